/* Benchmark of fit: 20 offers x 8 formats under vLLM on a sheet with a hybrid
 * (sliding + full) KV layout, through the pure API (engine/fit.h) with the
 * launch column fit shows (engine/launch.h, each offer's command), median of
 * many runs, printed beside the reference (5 ms). Run by hand:
 * <build>/bench_fit [RUNS]; exits 1 when the median passes the reference with
 * --check. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_clock.h"
#include "bench_offers.h"

#include "engine/fit.h"
#include "engine/launch.h"
#include "sheet/sheet.h"
#include "util/pool.h"

#define REFERENCE_MS 5.0

int main(int argc, char **argv)
{
    int runs, check, i, k;
    static const char *const formats[8] = {"fp32", "fp16", "bf16", "fp8",
                                           "int8", "int4", "nf4",  "fp4"};
    json_t *sheet, *offers, *launches = NULL;
    vs_error err;
    double *t;
    vs_fit_row rows[20];
    bench_offers_args(argc, argv, &runs, &check);
    t = calloc((size_t)runs, sizeof *t);
    vs_pool_install();
    sheet = bench_offers_sheet("bench fit", NULL);
    offers = vs_sheet_array(sheet, VS_SK_OFFERS);
    for (i = 0; i < runs; i++) {
        vs_fit_ctx c;
        double t0 = now_ms();
        if (vs_fit_prepare(&c, sheet, &err) < 0) {
            fprintf(stderr, "bench_fit: %s\n", err.message);
            return 2;
        }
        for (k = 0; k < 20; k++)
            if (vs_fit_offer(&rows[k], &c, json_array_get(offers, (size_t)k), formats, 8, &err) <
                0) {
                fprintf(stderr, "bench_fit: %s\n", err.message);
                return 2;
            }
        if (vs_launch_fit_column(&launches, sheet, &c, rows, 20, &err) < 0) {
            fprintf(stderr, "bench_fit: %s\n", err.message);
            return 2;
        }
        t[i] = now_ms() - t0;
        json_decref(launches);
        for (k = 0; k < 20; k++)
            vs_fit_row_free(&rows[k]);
        vs_fit_ctx_free(&c);
    }
    qsort(t, (size_t)runs, sizeof *t, cmp_double);
    printf("fit, 20 offers x 8 formats and their launch column (vLLM, sliding + full layout): "
           "median %.3f ms, "
           "p90 %.3f ms over %d runs; reference %.1f ms\n",
           t[runs / 2], t[runs * 9 / 10], runs, REFERENCE_MS);
    json_decref(sheet);
    i = check && t[runs / 2] > REFERENCE_MS;
    free(t);
    return i;
}
