/* bench_families — the family registry at the kernel's pace.
 *
 * For every config.json in a folder (default: the fixtures of tests/model,
 * one published checkpoint per family): the pure parse and count
 * (vs_arch_parse), `model m config=PATH` as a cell through the interpreter
 * (file read, card, payload and rendering), and `estimate kv` on that card
 * (median of RUNS each, after a warm-up). Prints one line per config; with
 * --check fails when a median passes 1 ms.
 *
 *   bench_families [--check] [DIR]
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_clock.h"

#include "lang/interp.h"
#include "model/family.h"
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

static double median(double *t)
{
    qsort(t, RUNS, sizeof *t, cmp_double);
    return t[RUNS / 2];
}

/* Runs cell RUNS + 1 times on interpreter ip (the first as a warm-up). */
static int time_cell(vs_interp *ip, const char *cell, double *out)
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
    *out = median(t);
    return 0;
}

int main(int argc, char **argv)
{
    int check = argc > 1 && !strcmp(argv[1], "--check"), bad = 0, n = 0;
    const char *dir = argc > 1 + check ? argv[1 + check] : VS_MODEL_CONFIGS;
    struct dirent **names = NULL;
    int count, k;

    vs_pool_install();
    count = scandir(dir, &names, NULL, alphasort);
    if (count < 0) {
        perror(dir);
        return 1;
    }
    printf("%-42s %12s %12s %12s\n", "config", "parse ms", "model ms", "kv ms");
    for (k = 0; k < count; k++) {
        char path[1024], cell[1200], *text;
        double tp[RUNS], tm, tk;
        FILE *f;
        long len;
        int i;
        vs_interp *ip;
        const char *nm = names[k]->d_name;
        if (strlen(nm) < 6 || strcmp(nm + strlen(nm) - 5, ".json"))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, nm);
        if (!(f = fopen(path, "rb")))
            continue;
        fseek(f, 0, SEEK_END);
        len = ftell(f);
        fseek(f, 0, SEEK_SET);
        text = malloc((size_t)len);
        if (fread(text, 1, (size_t)len, f) != (size_t)len) {
            fclose(f);
            free(text);
            continue;
        }
        fclose(f);
        for (i = -1; i < RUNS; i++) {
            vs_arch a;
            vs_error err;
            double t0 = now_ms();
            if (vs_arch_parse(&a, text, (size_t)len, &err)) {
                fprintf(stderr, "%s: %s\n", nm, err.message);
                return 1;
            }
            if (i >= 0)
                tp[i] = now_ms() - t0;
        }
        free(text);
        ip = vs_interp_new(NULL);
        snprintf(cell, sizeof cell, "model m config=%s", path);
        if (time_cell(ip, cell, &tm))
            return 1;
        if (time_cell(ip, "length 32768\nconcurrency 8", &tk) ||
            time_cell(ip, "estimate kv encoder_length=4096", &tk))
            return 1;
        vs_interp_free(ip);
        printf("%-42s %12.4f %12.4f %12.4f\n", nm, median(tp), tm, tk);
        bad |= median(tp) > 1.0 || tm > 1.0 || tk > 1.0;
        n++;
        free(names[k]);
    }
    free(names);
    if (check && bad) {
        fprintf(stderr, "a median passed 1 ms\n");
        return 1;
    }
    return n ? 0 : 1;
}
