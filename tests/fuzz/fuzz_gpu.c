/* libFuzzer target: classification and rendering of candidates on arbitrary
 * sheets. The input is JSON for the sheet's "offers", "requirements" and
 * "evidence" (any shape), after 16 bytes that set the per-GPU envelope. Nothing
 * may crash, leak or loop, whatever the values. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "render/candidates.h"
#include "sheet/classify.h"
#include "sheet/sheet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vs_envelope env;
    vs_classification *c = NULL;
    json_t *sheet, *in, *parsed;
    vs_bundle *b;
    uint64_t bytes = 0;
    size_t i;
    if (size < 16)
        return 0;
    memset(&env, 0, sizeof env);
    for (i = 0; i < 8; i++)
        bytes = bytes << 8 | data[i];
    env.envelope_bytes = bytes >> 2;
    env.weights_known = data[8] & 1;
    env.n_unknown = data[9] & 3;
    env.gpus = (unsigned)(data[10] & 7);
    env.conservative = data[11] & 1;
    sheet = vs_sheet_new("fuzz");
    in = json_loadb((const char *)data + 16, size - 16, 0, NULL);
    if (sheet && json_is_object(in)) {
        const char *keys[] = {"offers", "requirements", "evidence", "components", "card"};
        for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
            json_t *v = json_object_get(in, keys[i]);
            if (v && (i == 4 ? json_is_object(v) : json_is_array(v)))
                json_object_set(sheet, keys[i], v);
        }
    }
    if (sheet && vs_classify(&c, sheet, &env, NULL, NULL) == 0) {
        b = vs_candidates_bundle(c, NULL);
        /* whatever the offers hold, the result is one JSON object */
        parsed = vs_bundle_to_json(b);
        if (b && !json_is_object(parsed))
            abort();
        json_decref(parsed);
        vs_bundle_free(b);
        vs_classification_free(c);
    }
    json_decref(in);
    json_decref(sheet);
    return 0;
}
