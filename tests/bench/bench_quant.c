/* bench_quant — weights tensor by tensor at the kernel's pace.
 *
 * `model m config=PATH` and `weights` as cells through the interpreter (the
 * median of RUNS each, after a warm-up), for a config.json with a
 * quantization_config (gpt-oss-20b's mxfp4; Qwen2.5-7B with a GPTQ
 * quantization_config written beside it; the same under `engine vllm`)
 * beside the plain config.json. Goal: each under 1 ms; with --check fails
 * when a median passes it.
 *
 *   bench_quant [--check]
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_clock.h"

#include "lang/interp.h"
#include "render/bundle.h"
#include "util/pool.h"

#define RUNS 41

static void on_display(void *ctx, const vs_bundle *bundle, const char *id, int update)
{
    (void)ctx;
    (void)bundle;
    (void)id;
    (void)update;
}

/* The median of RUNS runs of cell on ip, after one warm-up; -1 on a failure. */
static double time_cell(vs_interp *ip, const char *cell)
{
    double t[RUNS];
    vs_sink sink;
    int i;
    memset(&sink, 0, sizeof sink);
    sink.display = on_display;
    for (i = -1; i < RUNS; i++) {
        vs_bundle *result = NULL;
        vs_error err;
        double t0 = now_ms();
        if (vs_interp_execute(ip, cell, &sink, &result, &err) != 0) {
            fprintf(stderr, "cell failed: %s\n%s\n", err.message, cell);
            return -1;
        }
        if (i >= 0)
            t[i] = now_ms() - t0;
        vs_bundle_free(result);
    }
    qsort(t, RUNS, sizeof *t, cmp_double);
    return t[RUNS / 2];
}

/* Qwen2.5-7B's config.json with Qwen's GPTQ-Int4 quantization_config added. */
static int write_gptq(const char *out)
{
    char in[512], buf[8192];
    FILE *f, *g;
    size_t n;
    snprintf(in, sizeof in, "%s/qwen2.5-7b.json", VS_MODEL_CONFIGS);
    if (!(f = fopen(in, "rb")))
        return -1;
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    while (n && buf[n - 1] != '}')
        n--;
    if (!n || !(g = fopen(out, "wb")))
        return -1;
    fwrite(buf, 1, n - 1, g);
    fputs(",\"quantization_config\":{\"quant_method\":\"gptq\",\"bits\":4,\"group_size\":128,"
          "\"desc_act\":false,\"sym\":true}}",
          g);
    fclose(g);
    return 0;
}

int main(int argc, char **argv)
{
    int check = argc > 1 && !strcmp(argv[1], "--check"), bad = 0, i;
    char gptq[64], oss[512], plain[512];
    struct {
        const char *label, *engine, *path;
    } cases[4];
    vs_pool_install();
    snprintf(gptq, sizeof gptq, "/tmp/vs-bench-quant-%ld.json", (long)getpid());
    snprintf(oss, sizeof oss, "%s/gpt-oss-20b.json", VS_MODEL_CONFIGS);
    snprintf(plain, sizeof plain, "%s/qwen2.5-7b.json", VS_MODEL_CONFIGS);
    if (write_gptq(gptq)) {
        perror(gptq);
        return 1;
    }
    cases[0].label = "qwen2.5-7b (no quantization_config)";
    cases[0].engine = "none";
    cases[0].path = plain;
    cases[1].label = "qwen2.5-7b gptq bits=4 group=128";
    cases[1].engine = "none";
    cases[1].path = gptq;
    cases[2].label = "gpt-oss-20b mxfp4";
    cases[2].engine = "none";
    cases[2].path = oss;
    cases[3].label = "gpt-oss-20b mxfp4, engine vllm";
    cases[3].engine = "vllm";
    cases[3].path = oss;
    printf("%-40s %12s %12s\n", "config", "model ms", "weights ms");
    for (i = 0; i < 4; i++) {
        char cell[700];
        double tm, tw;
        vs_interp *ip = vs_interp_new(NULL);
        snprintf(cell, sizeof cell, "engine %s\nformat bf16", cases[i].engine);
        if (time_cell(ip, cell) < 0)
            return 1;
        snprintf(cell, sizeof cell, "model m config=%s", cases[i].path);
        tm = time_cell(ip, cell);
        tw = time_cell(ip, "weights");
        vs_interp_free(ip);
        if (tm < 0 || tw < 0)
            return 1;
        printf("%-40s %12.4f %12.4f\n", cases[i].label, tm, tw);
        bad |= tm > 1.0 || tw > 1.0;
    }
    unlink(gptq);
    if (check && bad) {
        fprintf(stderr, "a median passed 1 ms\n");
        return 1;
    }
    return 0;
}
