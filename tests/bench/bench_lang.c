/* bench_lang — median time to evaluate a 200-line cell and render every output.
 *
 * The cell is a realistic, long sizing sheet: the card, an estimate, two offers,
 * 185 reserve lines and conversions, then weights, the envelope (with its
 * chart), formats and candidates once each, as a person would write them. Lines whose verb is not
 * built into this binary (a part still missing) are replaced by `convert` lines so the cell always
 * has 200 lines. Two passes: evaluating and rendering every result (each bundle is its JSON
 * text, render/bundle.h), then the same plus building each message's content as the kernel does
 * (the bundle copied into {"data":...}); then the first pass again in a session
 * told `hub offline` (the `model` line asks the Hub nothing: with no network, its
 * request is a failed DNS lookup each run, most of the first figure's wall time
 * and no instruction callgrind counts); then the first evaluation of the cell in
 * a new interpreter each run (every component new). Target: median under
 * 0.5 ms per cell on a quiet machine. jansson allocates through util/pool, as in the vramsheet
 * binary (main.c installs it). Usage: bench_lang [RUNS]   (default 200); bench_lang --cell prints
 * the cell (bench_kernel.py sends it through the kernel and prints both figures beside its round
 * trip).
 *
 * Wall time on a shared machine moves with its load; the instructions a cell costs do not. The
 * benchmark cannot count them itself; callgrind does, for the same cell:
 *     build/bench_lang_scale --instructions
 * prints them for 200, 1,000 and 5,000 lines (first run and re-run) and for a one-line cell with
 * 1 and 100 other sheets open, and
 *     valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file=cg.out \
 *         build/bench_lang_scale --one 200 1 rerun
 *     callgrind_annotate --inclusive=yes cg.out
 * shows where one case spends them (the count covers the measured cell only).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_clock.h"

#include "lang/interp.h"
#include "lang/parse.h"
#include "lang/verb.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/pool.h"

static size_t rendered_bytes;
static int serialize;
static vs_buf wire = VS_BUF_INIT;

/* Each run's CPU time (cpu_ms), beside its wall time in t[] */
static double *cpu;

/* Sorts the runs' times and prints their median, p10 and p90 against the
 * target, then the median CPU time the runs took their thread (a wall time
 * far above it is the machine's other load, not the cell); no newline: a pass
 * may add to the line. */
static void report(const char *what, double *t, int runs)
{
    qsort(t, (size_t)runs, sizeof *t, cmp_double);
    qsort(cpu, (size_t)runs, sizeof *cpu, cmp_double);
    printf("%s: median %.3f ms per cell, p10 %.3f ms, p90 %.3f ms (target < 0.5 ms); CPU "
           "median %.3f ms",
           what, t[runs / 2], t[runs / 10], t[(runs * 9) / 10], cpu[runs / 2]);
}

/* Builds the message content as the kernel does (publish_bundle): the
 * bundle's text copied once into {"data":...,"metadata":{}}. */
static void on_display(void *ctx, const vs_bundle *bundle, const char *id, int update)
{
    (void)ctx;
    (void)id;
    (void)update;
    if (!serialize || !bundle)
        return;
    vs_buf_reset(&wire);
    vs_buf_puts(&wire, "{\"data\":");
    vs_buf_append(&wire, bundle->json, bundle->len);
    vs_buf_puts(&wire, ",\"metadata\":{}}");
    rendered_bytes += bundle->len;
}

/* Appends line if its verb exists, else a conversion, so the count stays fixed. */
static void add(vs_buf *b, const char *line, int *used_core)
{
    char verb[32];
    size_t n = strcspn(line, " ");
    if (n >= sizeof verb)
        n = sizeof verb - 1;
    memcpy(verb, line, n);
    verb[n] = '\0';
    if (vs_verb_find(verb)) {
        vs_buf_puts(b, line);
    } else {
        vs_buf_puts(b, "convert 24GB GiB");
        (*used_core)++;
    }
    vs_buf_putc(b, '\n');
}

int main(int argc, char **argv)
{
    int print_cell = argc > 1 && !strcmp(argv[1], "--cell");
    int runs = argc > 1 && !print_cell ? atoi(argv[1]) : 200, i, lines = 0, substituted = 0;
    vs_buf cell = VS_BUF_INIT;
    vs_interp *ip = (vs_pool_install(), vs_interp_new(NULL));
    vs_sink sink;
    double *t;
    const char *card[] = {
        "sheet \"bench: Llama-2-7B chat, inference\"",
        "model meta-llama/Llama-2-7b-chat-hf revision=f5db02d params=6.74B",
        "task inference",
        "format bf16",
        "length 4096",
        "concurrency 8",
        "quality \"exact match within 0.5 points of the bf16 reference\"",
        "estimate kv layers=32 kv_heads=32 head_dim=128 dtype=fp16",
        "gpu \"RTX 4090\" memory=24GB price=47.14USD period=3d cards=1",
        "gpu \"RTX 6000 Ada\" memory=48GB price=55.71USD period=3d cards=1",
        "require \"CUDA 12.4 driver\"",
        NULL,
    };
    const char *tail[] = {
        "weights", "envelope", "formats fp32 bf16 int8 int4", "candidates", NULL,
    };
    if (runs < 1 || !ip)
        return 2;
    memset(&sink, 0, sizeof sink);
    sink.display = on_display;
    for (i = 0; card[i]; i++, lines++)
        add(&cell, card[i], &substituted);
    /* the body: reserve lines (known and unknown) and a few conversions */
    while (lines < 196) {
        char line[160];
        switch (lines % 4) {
        case 0:
        case 1:
            snprintf(line, sizeof line,
                     "reserve part_%d %dMiB status=estimated source=\"bench line %d\"", lines,
                     100 + lines, lines);
            break;
        case 2:
            snprintf(line, sizeof line, "reserve unknown_%d status=unknown source=\"to measure\"",
                     lines);
            break;
        default:
            snprintf(line, sizeof line, "convert %d.5GB GiB   # a comment", lines);
            break;
        }
        add(&cell, line, &substituted);
        lines++;
    }
    for (i = 0; tail[i]; i++, lines++)
        add(&cell, tail[i], &substituted);
    if (print_cell) {
        /* the same cell for the kernel's round trip (bench_kernel.py) */
        fputs(vs_buf_str(&cell), stdout);
        vs_buf_free(&cell);
        vs_interp_free(ip);
        return 0;
    }
    t = calloc((size_t)runs, sizeof *t);
    cpu = calloc((size_t)runs, sizeof *cpu);
    if (!t || !cpu || vs_buf_failed(&cell))
        return 2;
    /* the language alone: parsing the same cell */
    for (i = 0; i < runs; i++) {
        vs_cell *c = NULL;
        vs_error err;
        double t0 = now_ms();
        if (vs_parse_cell(&c, vs_buf_str(&cell), cell.len, &err) < 0)
            return 1;
        vs_cell_free(c);
        t[i] = now_ms() - t0;
    }
    qsort(t, (size_t)runs, sizeof *t, cmp_double);
    printf("bench_lang: %d-line cell (%d lines substituted by `convert` for missing verbs), "
           "%d runs\n",
           lines, substituted, runs);
    printf("parse only: median %.3f ms per cell\n", t[runs / 2]);
    for (serialize = 0; serialize < 2; serialize++) {
        rendered_bytes = 0;
        for (i = 0; i < runs; i++) {
            vs_bundle *r = NULL;
            vs_error err;
            double t0 = now_ms(), c0 = cpu_ms();
            if (vs_interp_execute(ip, vs_buf_str(&cell), &sink, &r, &err) < 0) {
                char ev[1200];
                fprintf(stderr, "bench_lang: the cell failed: %s: %s\n", vs_error_ename(err.code),
                        vs_error_evalue(&err, ev, sizeof ev));
                return 1;
            }
            on_display(NULL, r, NULL, 0);
            vs_bundle_free(r);
            t[i] = now_ms() - t0;
            cpu[i] = cpu_ms() - c0;
        }
        report(serialize ? "evaluate + render + serialize" : "evaluate + render", t, runs);
        if (serialize)
            printf("; %zu bytes of JSON per cell", rendered_bytes / (size_t)runs);
        printf("\n");
    }
    /* The same re-run in a session told `hub offline`. The cell's `model`
     * line asks the Hub for the model's config each run when it is not in
     * the local cache; with no network that is a DNS lookup that fails, a
     * system call the instruction counts (callgrind) do not see (an
     * unreachable Hub is asked once in 30 s, so the passes above pay it at
     * most once). This pass times the language alone: the same cell, its
     * `model` line saying that nothing is asked of the Hub. */
    {
        vs_interp *off = vs_interp_new(NULL);
        vs_bundle *r = NULL;
        vs_error err;
        if (!off || vs_interp_execute(off, "hub offline", &sink, &r, &err) < 0)
            return 2;
        vs_bundle_free(r);
        for (i = 0; i < runs; i++) {
            double t0 = now_ms(), c0 = cpu_ms();
            r = NULL;
            if (vs_interp_execute(off, vs_buf_str(&cell), &sink, &r, &err) < 0)
                return 1;
            vs_bundle_free(r);
            t[i] = now_ms() - t0;
            cpu[i] = cpu_ms() - c0;
        }
        vs_interp_free(off);
        report("evaluate + render, `hub offline` (the Hub not asked)", t, runs);
        printf("\n");
    }
    /* The first evaluation, in a new interpreter each run: every component is
     * new to the sheet (the passes above re-run the cell, as a notebook does,
     * so they replace components that exist). */
    serialize = 0;
    for (i = 0; i < runs; i++) {
        vs_interp *fresh = vs_interp_new(NULL);
        vs_bundle *r = NULL;
        vs_error err;
        double t0, c0;
        if (!fresh)
            return 2;
        t0 = now_ms(), c0 = cpu_ms();
        if (vs_interp_execute(fresh, vs_buf_str(&cell), &sink, &r, &err) < 0)
            return 1;
        vs_bundle_free(r);
        t[i] = now_ms() - t0;
        cpu[i] = cpu_ms() - c0;
        vs_interp_free(fresh);
    }
    report("first evaluation, fresh interpreter", t, runs);
    printf("\n");
    free(t);
    free(cpu);
    vs_buf_free(&wire);
    vs_buf_free(&cell);
    vs_interp_free(ip);
    return 0;
}
