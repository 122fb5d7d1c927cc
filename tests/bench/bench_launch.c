/* Benchmark of launch: the commands for 20 offers under vLLM on a sheet with a
 * hybrid (sliding + full) KV layout, through the pure API (engine/fit.h, then
 * engine/launch.h for each offer), as `launch` does it; median of many runs,
 * printed beside the reference (5 ms). Run by hand: <build>/bench_launch [RUNS];
 * exits 1 when the median passes the reference with --check. */
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
    int runs = 200, check = 0, i, k, launched = 0;
    json_t *sheet, *offers;
    vs_error err;
    double *t;
    vs_fit_row rows[20];
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--check"))
            check = 1;
        else
            runs = atoi(argv[i]);
    }
    if (runs < 1)
        runs = 1;
    t = calloc((size_t)runs, sizeof *t);
    vs_pool_install();
    sheet = bench_offers_sheet("bench launch", "google/gemma-3-27b-it");
    offers = vs_sheet_array(sheet, "offers");
    for (i = 0; i < runs; i++) {
        vs_fit_ctx c;
        double t0 = now_ms();
        if (vs_fit_prepare(&c, sheet, &err) < 0) {
            fprintf(stderr, "bench_launch: %s\n", err.message);
            return 2;
        }
        for (k = 0; k < 20; k++) {
            vs_launch_in in;
            json_t *l = NULL;
            if (vs_fit_offer(&rows[k], &c, json_array_get(offers, (size_t)k), NULL, 0, &err) < 0) {
                fprintf(stderr, "bench_launch: %s\n", err.message);
                return 2;
            }
            in.sheet = sheet;
            in.ctx = &c;
            in.row = &rows[k];
            /* the small offers are refused (VS_EVALUE): that is part of the work */
            if (vs_launch_build(&l, &in, &err) < 0 && err.code != VS_EVALUE) {
                fprintf(stderr, "bench_launch: %s\n", err.message);
                return 2;
            }
            launched += l != NULL;
            json_decref(l);
        }
        t[i] = now_ms() - t0;
        for (k = 0; k < 20; k++)
            vs_fit_row_free(&rows[k]);
        vs_fit_ctx_free(&c);
    }
    qsort(t, (size_t)runs, sizeof *t, cmp_double);
    printf("launch, 20 offers (vLLM, sliding + full layout; %d commands a run): median %.3f ms, "
           "p90 %.3f ms over %d runs; reference %.1f ms\n",
           launched / runs, t[runs / 2], t[runs * 9 / 10], runs, REFERENCE_MS);
    json_decref(sheet);
    i = check && t[runs / 2] > REFERENCE_MS;
    free(t);
    return i;
}
