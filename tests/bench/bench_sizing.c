/* Benchmark of the sizing verbs: a 200-line cell of card, reserve, estimator,
 * placement, envelope and formats lines, evaluated and rendered (text, HTML,
 * JSON, SVG) through the interpreter, median of many runs; and the canonical
 * dump and load of the resulting sheet. Run by hand: <build>/bench_sizing [RUNS]. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_clock.h"

#include "lang/interp.h"
#include "render/bundle.h"
#include "sheet/sheet.h"
#include "util/buf.h"
#include "util/pool.h"

static size_t rendered;

static void on_display(void *ctx, const vs_bundle *bundle, const char *id, int update)
{
    (void)ctx;
    (void)id;
    (void)update;
    rendered += bundle->len;
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 200, i, k;
    vs_buf cell = VS_BUF_INIT;
    double *t = calloc((size_t)(runs > 0 ? runs : 1), sizeof *t);
    vs_sink sink;
    json_t *sheet_payload = NULL;
    int lines = 0;

    vs_pool_install(); /* jansson on the pool, as in the vramsheet binary */
    vs_buf_puts(&cell, "model example/7b params=7e9\ntask finetune\nformat bf16\nlength 4096\n"
                       "concurrency 8\nmicrobatch 4 accumulation=8\n");
    lines += 6;
    for (k = 0; lines < 190; k++) {
        vs_buf_printf(&cell, "reserve part_%d %dMiB source=\"bench\"\n", k, 100 + k);
        vs_buf_printf(&cell, "estimate kv layers=32 kv_heads=8 head_dim=128 name=kv_%d\n", k);
        vs_buf_puts(&cell, "estimate training optimizer=adamw\n");
        vs_buf_puts(&cell, "estimate activations layers=32 hidden=4096 heads=32\n");
        vs_buf_puts(&cell, k % 2 ? "placement zero stage=2 gpus=4\n" : "placement single\n");
        vs_buf_puts(&cell, "envelope\n");
        vs_buf_puts(&cell, "formats fp32 bf16 int8 int4\n");
        lines += 7;
    }
    while (lines < 199) {
        vs_buf_puts(&cell, "weights\n");
        lines++;
    }
    vs_buf_puts(&cell, "envelope\n");
    lines++;

    memset(&sink, 0, sizeof sink);
    sink.display = on_display;
    for (i = 0; i < runs; i++) {
        vs_interp *ip = vs_interp_new(NULL);
        vs_bundle *result = NULL, *sheet_result = NULL;
        vs_error err;
        double t0 = now_ms();
        if (vs_interp_execute(ip, vs_buf_str(&cell), &sink, &result, &err) != 0) {
            fprintf(stderr, "cell failed: line %d: %s\n", err.line, err.message);
            return 1;
        }
        t[i] = now_ms() - t0;
        vs_bundle_free(result);
        if (i == runs - 1 &&
            vs_interp_execute(ip, "sheet untitled", &sink, &sheet_result, &err) == 0) {
            json_t *p;
            sheet_payload = vs_bundle_to_json(sheet_result);
            p = json_object_get(sheet_payload, VS_MIME_JSON);
            json_object_del(p, "kind");
            json_object_del(p, "action");
        }
        vs_bundle_free(sheet_result);
        vs_interp_free(ip);
    }
    qsort(t, (size_t)runs, sizeof *t, cmp_double);
    printf("sizing cell: %d lines evaluated and rendered (text, HTML, JSON, SVG): median %.3f ms, "
           "p90 %.3f ms over %d runs (%.2f us per line)\n",
           lines, t[runs / 2], t[runs * 9 / 10], runs, t[runs / 2] * 1000.0 / lines);

    if (sheet_payload) {
        json_t *p = json_object_get(sheet_payload, VS_MIME_JSON), *back = NULL;
        size_t len = 0;
        vs_error err;
        for (i = 0; i < runs; i++) {
            double t0 = now_ms();
            char *d = vs_sheet_dump(p);
            len = strlen(d);
            if (vs_sheet_load(&back, d, len, &err) != 0) {
                fprintf(stderr, "load failed: %s\n", err.message);
                return 1;
            }
            t[i] = now_ms() - t0;
            json_decref(back);
            free(d);
        }
        qsort(t, (size_t)runs, sizeof *t, cmp_double);
        printf("canonical record: dump + load of a %zu-byte sheet (%zu components): median "
               "%.3f ms\n",
               len, json_array_size(json_object_get(p, "components")), t[runs / 2]);
        json_decref(sheet_payload);
    }
    vs_buf_free(&cell);
    free(t);
    return rendered ? 0 : 1;
}
