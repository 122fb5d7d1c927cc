/* libFuzzer target for fit: arbitrary bytes that load as a sheet record (any
 * engine name and keys, any KV layout, any offers) are fitted on every offer
 * and rendered; nothing may crash, and a figure may not contradict another
 * (a pool above the budget unless given directly, a verdict out of range). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/fit.h"
#include "engine/launch.h"
#include "render/bundle.h"
#include "render/fit.h"
#include "sheet/sheet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const formats[] = {"bf16", "int4", "fp8"};
    json_t *s = NULL, *offers, *o;
    vs_error err;
    vs_fit_ctx c;
    vs_fit_row rows[8];
    size_t i, n = 0;
    if (vs_sheet_load(&s, (const char *)data, size, &err) != 0)
        return 0;
    if (vs_fit_prepare(&c, s, &err) == 0) {
        offers = vs_sheet_array(s, VS_SK_OFFERS);
        json_array_foreach(offers, i, o)
        {
            if (n == 8)
                break;
            if (vs_fit_offer(&rows[n], &c, o, formats, 3, &err) != 0)
                continue;
            if ((unsigned)rows[n].verdict > VS_VERDICT_EXCLUDE)
                abort();
            n++;
        }
        if (n) {
            json_t *launches = NULL;
            vs_bundle *b;
            /* the launch column too: every rule on whatever the sheet holds */
            if (vs_launch_fit_column(&launches, s, &c, rows, n, &err) < 0)
                launches = NULL;
            b = vs_render_fit(&c, rows, n, launches);
            if (b)
                vs_bundle_free(b);
            json_decref(launches);
        }
        for (i = 0; i < n; i++)
            vs_fit_row_free(&rows[i]);
        vs_fit_ctx_free(&c);
    }
    json_decref(s);
    return 0;
}
