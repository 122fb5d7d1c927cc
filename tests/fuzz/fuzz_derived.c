/* libFuzzer target for derived state (sheet/derived.h): a record that loads
 * is refreshed against its own card; a second refresh changes nothing (the
 * flags are a function of the card), and every check on its components,
 * evidence and estimate reads runs without a crash or a leak. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sheet/derived.h"
#include "sheet/envelope.h"
#include "sheet/sheet.h"
#include "util/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *s = NULL, *x, *d, *now;
    vs_error err;
    vs_envelope env;
    size_t i;
    if (vs_sheet_load(&s, (const char *)data, size, &err) != 0)
        return 0;
    vs_sheet_refresh_derived(s);
    if (vs_sheet_refresh_derived(s) != 0)
        abort(); /* not a function of the card */
    vs_json_array_foreach(vs_sheet_array(s, VS_SK_COMPONENTS), i, x)
    {
        vs_buf why = VS_BUF_INIT;
        vs_derived_component_stale(s, x, &why);
        d = json_object_get(json_object_get(x, "derived"), "reads");
        if (json_is_object(d) && (now = vs_derived_reads_now(s, d)) != NULL) {
            size_t n = vs_derived_changes(d, now, &why);
            if ((n > 0) != (vs_derived_moved(s, d) != 0))
                abort(); /* the cheap check and the description disagree */
            if (vs_derived_changes(now, now, NULL) != 0)
                abort();
            json_decref(now);
        }
        vs_buf_free(&why);
    }
    vs_json_array_foreach(vs_sheet_array(s, VS_SK_EVIDENCE), i, x)
    {
        vs_buf why = VS_BUF_INIT;
        if (vs_derived_evidence_moved(s, x, &why) && !why.len)
            abort(); /* moved without saying why */
        vs_buf_free(&why);
    }
    vs_envelope_compute(&env, s, NULL, &err);
    json_decref(s);
    return 0;
}
