/* bench_lang_scale — how the language's cost grows: a cell of 200, 1,000 and
 * 5,000 lines (bench_lang's sheet: the card, an estimate, offers, reserve
 * lines and conversions, then weights, envelope, formats and candidates), its
 * first run in a new interpreter and its re-run in the same one (as a notebook
 * runs a cell again); and a one-line cell with 1 and with 100 other sheets
 * open. Both should grow linearly: with the lines, and not at all with the
 * sheets that a line does not touch.
 *
 * Usage: bench_lang_scale [RUNS]       wall time, median of RUNS (default 5)
 *        bench_lang_scale --one LINES SHEETS first|rerun|line
 *            runs one case once, collecting only the measured cell when run
 *            under `valgrind --tool=callgrind --collect-atstart=no` (the
 *            "Collected" figure is its instruction count, stable from run to
 *            run, unlike wall time on a shared machine). What a process does
 *            once (the GPU catalogue's parse, loading libcurl) is done first,
 *            in a throwaway interpreter, so that the count is the cell's.
 *        bench_lang_scale --instructions
 *            every case above through callgrind (valgrind on the PATH), as a
 *            table of instructions per cell.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lang/interp.h"
#include "util/buf.h"
#include "util/pool.h"

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#endif
#endif
#ifndef CALLGRIND_TOGGLE_COLLECT
#define CALLGRIND_TOGGLE_COLLECT
#endif

/* bench_lang's cell, with the body stretched to lines. */
static void make_cell(vs_buf *b, int lines)
{
    static const char *const card[] = {
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
    static const char *const tail[] = {"weights", "envelope", "formats fp32 bf16 int8 int4",
                                       "candidates", NULL};
    int i, n = 0;
    for (i = 0; card[i]; i++, n++)
        vs_buf_printf(b, "%s\n", card[i]);
    for (; n < lines - 4; n++) {
        switch (n % 4) {
        case 0:
        case 1:
            vs_buf_printf(b, "reserve part_%d %dMiB status=estimated source=\"bench line %d\"\n", n,
                          100 + n, n);
            break;
        case 2:
            vs_buf_printf(b, "reserve unknown_%d status=unknown source=\"to measure\"\n", n);
            break;
        default:
            vs_buf_printf(b, "convert %d.5GB GiB   # a comment\n", n);
            break;
        }
    }
    for (i = 0; tail[i]; i++)
        vs_buf_printf(b, "%s\n", tail[i]);
}

/* sheets other sheets, each with a card and a few components, then back to
 * one sheet for the measured line. */
static void make_sheets(vs_buf *b, int sheets)
{
    int i;
    for (i = 0; i < sheets; i++)
        vs_buf_printf(b,
                      "sheet \"other %d\"\nmodel m%d params=7B\nformat bf16\nlength 4096\n"
                      "reserve a 1GiB status=estimated source=\"s\"\n"
                      "reserve b 2GiB status=estimated source=\"s\"\n",
                      i, i);
    vs_buf_puts(b, "sheet \"the one\"\n");
}

static void sink_init(vs_sink *s)
{
    memset(s, 0, sizeof *s);
}

static int exec(vs_interp *ip, const char *code, int collect)
{
    vs_sink sink;
    vs_bundle *r = NULL;
    vs_error err;
    int rc;
    sink_init(&sink);
    if (collect)
        CALLGRIND_TOGGLE_COLLECT;
    rc = vs_interp_execute(ip, code, &sink, &r, &err);
    if (collect)
        CALLGRIND_TOGGLE_COLLECT;
    vs_bundle_free(r);
    if (rc < 0)
        fprintf(stderr, "bench_lang_scale: the cell failed: %s\n", err.message);
    return rc;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* One case: "first" (the cell in a new interpreter), "rerun" (the same cell
 * again), "line" (one `convert` line with sheets others open). Returns the
 * measured milliseconds, or a negative number on failure. */
static double one(int lines, int sheets, const char *what, int collect)
{
    vs_interp *ip;
    vs_buf cell = VS_BUF_INIT, pre = VS_BUF_INIT;
    double t0, t = -1;
    if (collect) { /* a process's one-time state, outside the count */
        vs_buf warm = VS_BUF_INIT;
        if (!(ip = vs_interp_new(NULL)))
            return -1;
        make_cell(&warm, 200);
        exec(ip, vs_buf_str(&warm), 0);
        vs_buf_free(&warm);
        vs_interp_free(ip);
    }
    ip = vs_interp_new(NULL);
    if (!ip)
        return -1;
    if (!strcmp(what, "line")) {
        make_sheets(&pre, sheets);
        if (exec(ip, vs_buf_str(&pre), 0) < 0)
            goto done;
        vs_buf_puts(&cell, "convert 24GB GiB\n");
    } else {
        make_cell(&cell, lines);
        if (!strcmp(what, "rerun") && exec(ip, vs_buf_str(&cell), 0) < 0)
            goto done;
    }
    t0 = now_ms();
    if (exec(ip, vs_buf_str(&cell), collect) < 0)
        goto done;
    t = now_ms() - t0;
done:
    vs_buf_free(&cell);
    vs_buf_free(&pre);
    vs_interp_free(ip);
    return t;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(int lines, int sheets, const char *what, int runs)
{
    double t[64];
    int i;
    if (runs > 64)
        runs = 64;
    for (i = 0; i < runs; i++)
        if ((t[i] = one(lines, sheets, what, 0)) < 0)
            return -1;
    qsort(t, (size_t)runs, sizeof *t, cmp_double);
    return t[runs / 2];
}

/* The instructions of one case: this binary's --one under callgrind, its
 * "Collected : N" line. 0 when valgrind cannot be run. */
static unsigned long long instructions(const char *self, int lines, int sheets, const char *what)
{
    char cmd[1024], line[512];
    unsigned long long n = 0;
    FILE *p;
    snprintf(cmd, sizeof cmd,
             "valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file=/dev/null "
             "'%s' --one %d %d %s 2>&1",
             self, lines, sheets, what);
    if (!(p = popen(cmd, "r")))
        return 0;
    while (fgets(line, sizeof line, p)) {
        const char *c = strstr(line, "Collected : ");
        if (c)
            n = strtoull(c + 12, NULL, 10);
    }
    return pclose(p) == 0 ? n : 0;
}

static int print_instructions(const char *self)
{
    static const int sizes[] = {200, 1000, 5000};
    size_t i;
    printf("bench_lang_scale: instructions per cell (callgrind)\n");
    for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        unsigned long long f = instructions(self, sizes[i], 1, "first");
        unsigned long long r = instructions(self, sizes[i], 1, "rerun");
        if (!f || !r) {
            fprintf(stderr, "bench_lang_scale: valgrind --tool=callgrind did not run\n");
            return 1;
        }
        printf("%5d lines: first run %12llu, re-run %12llu (%llu / %llu per line)\n", sizes[i], f,
               r, f / (unsigned long long)sizes[i], r / (unsigned long long)sizes[i]);
    }
    printf("one line, 1 other sheet open:    %12llu\n", instructions(self, 0, 1, "line"));
    printf("one line, 100 other sheets open: %12llu\n", instructions(self, 0, 100, "line"));
    return 0;
}

int main(int argc, char **argv)
{
    static const int sizes[] = {200, 1000, 5000};
    int runs = 5;
    size_t i;
    vs_pool_install();
    if (argc == 5 && !strcmp(argv[1], "--one"))
        return one(atoi(argv[2]), atoi(argv[3]), argv[4], 1) < 0;
    if (argc == 2 && !strcmp(argv[1], "--instructions"))
        return print_instructions(argv[0]);
    if (argc > 1)
        runs = atoi(argv[1]);
    if (runs < 1)
        return 2;
    printf("bench_lang_scale: median of %d runs, wall time\n", runs);
    for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        printf("%5d lines: first run %9.3f ms, re-run %9.3f ms\n", sizes[i],
               median(sizes[i], 1, "first", runs), median(sizes[i], 1, "rerun", runs));
    printf("one line, 1 other sheet open:    %9.4f ms\n", median(0, 1, "line", runs));
    printf("one line, 100 other sheets open: %9.4f ms\n", median(0, 100, "line", runs));
    return 0;
}
