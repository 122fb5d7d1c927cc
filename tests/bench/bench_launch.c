/* Benchmark of launch: the commands for 20 offers under vLLM on a sheet with a
 * hybrid (sliding + full) KV layout, through the pure API (engine/fit.h, then
 * engine/launch.h for each offer), as `launch` does it, then the same 20 offers
 * as mixed cards under llama.cpp; median of many runs, each printed beside the
 * reference (5 ms). Run by hand: <build>/bench_launch [RUNS];
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

/* The 20 offers as mixed pairs (an RTX 5090 and an RTX 4090 each) split over
 * two GPUs under llama.cpp: every offer's fit sizes each card on its own
 * (engine/fit_devices.c) and its launch writes the shares. */
static json_t *mixed_sheet(void)
{
    json_t *sheet = bench_offers_sheet("bench launch mixed", "google/gemma-3-27b-it"), *o;
    json_error_t je;
    size_t k;
    json_object_set_new(vs_sheet_card(sheet), "engine",
                        json_loads("{\"name\": \"llamacpp\", \"keys\": {}}", 0, &je));
    json_object_set_new(vs_sheet_card(sheet), "format", json_string("int4")); /* so they fit */
    json_object_set_new(sheet, "placement", json_pack("{s:s, s:i}", "kind", "tensor", "gpus", 2));
    json_array_foreach(vs_sheet_array(sheet, VS_SK_OFFERS), k, o)
    {
        json_object_set_new(o, "cards", json_integer(2));
        json_object_set_new(o, "devices",
                            json_pack("[{s:s, s:I, s:I}, {s:s, s:I, s:I}]", "name", "RTX 5090",
                                      "memory_bytes", (json_int_t)32000000000LL, "reported_bytes",
                                      (json_int_t)34190917632LL, "name", "RTX 4090", "memory_bytes",
                                      (json_int_t)24000000000LL, "reported_bytes",
                                      (json_int_t)25757220864LL));
    }
    return sheet;
}

/* runs timings of the fit and launch of every offer of sheet into t (sorted);
 * the commands written in *launched. 0, or 2 on an error. */
static int timed(json_t *sheet, double *t, int runs, int *launched)
{
    const json_t *offers = vs_sheet_array(sheet, VS_SK_OFFERS);
    vs_fit_row rows[BENCH_OFFERS];
    vs_error err;
    int i, k;
    *launched = 0;
    for (i = 0; i < runs; i++) {
        vs_fit_ctx c;
        double t0 = now_ms();
        if (vs_fit_prepare(&c, sheet, &err) < 0) {
            fprintf(stderr, "bench_launch: %s\n", err.message);
            return 2;
        }
        for (k = 0; k < BENCH_OFFERS; k++) {
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
            *launched += l != NULL;
            json_decref(l);
        }
        t[i] = now_ms() - t0;
        for (k = 0; k < BENCH_OFFERS; k++)
            vs_fit_row_free(&rows[k]);
        vs_fit_ctx_free(&c);
    }
    qsort(t, (size_t)runs, sizeof *t, cmp_double);
    return 0;
}

int main(int argc, char **argv)
{
    int runs, check, launched = 0, over = 0;
    json_t *sheet;
    double *t;
    bench_offers_args(argc, argv, &runs, &check);
    t = calloc((size_t)runs, sizeof *t);
    vs_pool_install();
    sheet = bench_offers_sheet("bench launch", "google/gemma-3-27b-it");
    if (timed(sheet, t, runs, &launched))
        return 2;
    printf("launch, 20 offers (vLLM, sliding + full layout; %d commands a run): median %.3f ms, "
           "p90 %.3f ms over %d runs; reference %.1f ms\n",
           launched / runs, t[runs / 2], t[runs * 9 / 10], runs, REFERENCE_MS);
    over = t[runs / 2] > REFERENCE_MS;
    json_decref(sheet);
    sheet = mixed_sheet();
    if (timed(sheet, t, runs, &launched))
        return 2;
    printf("launch, 20 offers of mixed cards (RTX 5090 + RTX 4090, llama.cpp, each card sized; "
           "%d commands a run): median %.3f ms, p90 %.3f ms over %d runs; reference %.1f ms\n",
           launched / runs, t[runs / 2], t[runs * 9 / 10], runs, REFERENCE_MS);
    over = over || t[runs / 2] > REFERENCE_MS;
    json_decref(sheet);
    free(t);
    return check && over;
}
