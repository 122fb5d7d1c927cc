/* Benchmark of `engine sglang estimate=yes` against published SGLang start-ups
 * (tests/data/engine_startup/sglang_startup.tsv):
 *
 * - non_torch, the memory a GPU holds before the weights load: the catalogue card's
 *   nvidia-smi total less the printed "Load weight begin. avail mem", beside the engine's
 *   estimate, on the rows the table marks "fit" and "held-out" (median and worst |error|
 *   of each half); a row with that line on a card the catalogue does not hold is printed
 *   "unknown"; on the held-out rows also the free memory before loading it gives (the card
 *   less the estimate, what the pool is sized against) beside the printed one;
 * - the KV pool and its tokens with estimate=yes alone (the card the thread names, the
 *   release its date falls under, the run's mem_fraction_static, the sheet's weights from
 *   config.json), on the rows the table's pool_half marks, against the printed "KV Cache
 *   is allocated. #tokens: N, K size, V size": the fit and held-out rows tallied apart; a
 *   row whose estimate leaves an item unknown (the pool an upper bound) printed, not
 *   scored.
 *
 * Run by hand: <build>/bench_sglang [TSV]. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"
#include "engine/engine.h"
#include "lang/interp.h"
#include "render/bundle.h"

#include "../unit/error_tally.h"
#include "../unit/sglang_rows.h"
#include "../unit/tsv_row.h"

#define ROWS_MAX 64
#define GIB (1024.0 * 1024.0 * 1024.0)

typedef struct errs {
    double e[ROWS_MAX];
    size_t n;
} errs;

static void add(errs *s, double e)
{
    if (s->n < ROWS_MAX)
        s->e[s->n++] = fabs(e);
}

static void summary(const char *what, const errs *s)
{
    if (!s->n) {
        printf("%-28s rows 0\n", what);
        return;
    }
    printf("%-28s rows %zu  median |error| %.1f%%  worst %.1f%%\n", what, s->n,
           vs_tally_median(s->e, s->n) * 100, vs_tally_worst(s->e, s->n) * 100);
}

/* The fit row of a cell's result, or NULL (the cell failed: its message printed). */
static json_t *fit_row(vs_interp *ip, const char *cell, json_t **keep)
{
    vs_sink sink;
    vs_bundle *b = NULL;
    vs_error err;
    json_t *j;
    memset(&sink, 0, sizeof sink);
    vs_error_clear(&err);
    if (vs_interp_execute(ip, cell, &sink, &b, &err) < 0 || !b) {
        printf("  the cell failed: %s\n", err.message);
        vs_bundle_free(b);
        return NULL;
    }
    j = vs_bundle_to_json(b);
    vs_bundle_free(b);
    *keep = j;
    return json_array_get(json_object_get(json_object_get(j, VS_MIME_JSON), "rows"), 0);
}

int main(int argc, char **argv)
{
    const char *path =
        argc > 1 ? argv[1] : VS_SOURCE_DIR "/tests/data/engine_startup/sglang_startup.tsv";
    const vs_engine *sg = vs_engine_find("sglang");
    FILE *f = fopen(path, "r");
    char line[2400], *c[S_NCOL];
    errs fit = {{0}, 0}, held = {{0}, 0}, pool = {{0}, 0}, tok = {{0}, 0}, before = {{0}, 0},
         pool_h = {{0}, 0}, tok_h = {{0}, 0};
    int n = 0, unknown = 0, sheets = 0;
    vs_interp *ip = vs_interp_new(NULL);
    if (!f || !sg || !ip) {
        fprintf(stderr, "bench_sglang: cannot read %s\n", path);
        return 1;
    }
    printf("non_torch: the card's total less \"Load weight begin. avail mem\"\n");
    printf("%-46s %-13s %3s %9s %9s %8s\n", "row", "half", "tp", "printed", "estimate", "error");
    while (fgets(line, sizeof line, f)) {
        vs_gpu_spec spec;
        vs_engine_env env;
        vs_runtime_estimate est;
        vs_error e;
        char rule[640];
        double printed;
        int miss;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (vs_tsv_split(line, c, S_NCOL) != S_NCOL)
            continue;
        if (!vs_sgl_given(c[S_BEFORE]))
            continue;
        if (!vs_sgl_given(c[S_CATALOG]) || vs_catalog_find(&spec, c[S_CATALOG], &e) < 0 ||
            !spec.reported_known) {
            printf("%-46.46s %-13s %3s %9s %9s %8s  unknown: %s\n", c[S_LINK] + 19, "-", c[S_TP],
                   "-", "-", "-",
                   vs_sgl_given(c[S_CATALOG]) ? "the catalogue has no device-reported total"
                                              : "the card is not in the catalogue");
            continue;
        }
        memset(&env, 0, sizeof env);
        env.engine = sg;
        env.gpu_name = c[S_CATALOG];
        env.tp = strtoull(c[S_TP], NULL, 10);
        printed = (double)spec.reported_bytes - strtod(c[S_BEFORE], NULL) * GIB;
        if (sg->runtime_estimate(&est, rule, sizeof rule, &env, NULL, &e) < 0) {
            printf("%-46.46s %-13s %3s %9.2f %9s %8s  %s\n", c[S_LINK] + 19, c[S_NT_HALF], c[S_TP],
                   printed / GIB, "unknown", "-", e.message);
            continue;
        }
        printf("%-46.46s %-13s %3s %9.2f %9.2f %+7.1f%%  %s\n", c[S_LINK] + 19, c[S_NT_HALF],
               c[S_TP], printed / GIB, est.bytes / GIB, (est.bytes / printed - 1) * 100,
               c[S_CATALOG]);
        if (!strcmp(c[S_NT_HALF], "fit"))
            add(&fit, est.bytes / printed - 1);
        else if (vs_sgl_held_out(c[S_NT_HALF], &miss)) {
            /* what the pool is sized against: the card less the estimate */
            double b = strtod(c[S_BEFORE], NULL) * GIB;
            add(&held, est.bytes / printed - 1);
            add(&before, ((double)spec.reported_bytes - est.bytes) / b - 1);
        }
    }
    summary("non_torch, fit half", &fit);
    summary("non_torch, held-out half", &held);
    summary("free before loading, held-out", &before);
    rewind(f);
    printf("\nKV pool and tokens with estimate=yes alone\n");
    while (fgets(line, sizeof line, f)) {
        char cell[2048], title[32];
        double pk, pt, gp, gt;
        json_t *keep = NULL, *r;
        const char *why;
        int held_out, miss;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (vs_tsv_split(line, c, S_NCOL) != S_NCOL || !vs_sgl_given(c[S_POOL_HALF]))
            continue;
        held_out = vs_sgl_held_out(c[S_POOL_HALF], &miss);
        if (!vs_sgl_given(c[S_CATALOG])) {
            unknown++;
            printf("%-46.46s %-8s unknown: the thread names no card the catalogue holds\n",
                   c[S_LINK] + 19, c[S_POOL_HALF]);
            continue;
        }
        snprintf(title, sizeof title, "bench %d", sheets++);
        vs_sgl_estimate_cell(cell, sizeof cell, title, VS_SOURCE_DIR, c);
        if (!(r = fit_row(ip, cell, &keep))) {
            json_decref(keep);
            continue;
        }
        pk = (strtod(c[S_K], NULL) + (vs_sgl_given(c[S_V]) ? strtod(c[S_V], NULL) : 0)) * GIB;
        pt = strtod(c[S_TOKENS], NULL);
        gp = (double)json_integer_value(json_object_get(r, "kv_pool_bytes"));
        gt = (double)json_integer_value(json_object_get(r, "kv_tokens"));
        if ((why = vs_sgl_pool_unknown(r))) {
            unknown++;
            printf("%-46.46s %-8s %s: unknown (%s; the pool at most %.2f GiB, %.2f printed)\n",
                   c[S_LINK] + 19, c[S_POOL_HALF], c[S_CATALOG], why, gp / GIB, pk / GIB);
            json_decref(keep);
            continue;
        }
        n++;
        add(held_out ? &pool_h : &pool, gp / pk - 1);
        add(held_out ? &tok_h : &tok, gt / pt - 1);
        printf("%-46.46s %-8s %s: pool %.2f printed / %.2f GiB (%+.2f%%), #tokens %.0f / %.0f "
               "(%+.2f%%)%s\n",
               c[S_LINK] + 19, held_out ? "held-out" : c[S_POOL_HALF], c[S_CATALOG], pk / GIB,
               gp / GIB, (gp / pk - 1) * 100, pt, gt, (gt / pt - 1) * 100,
               miss ? "  (a recorded miss: see the row's note)" : "");
        json_decref(keep);
    }
    summary("KV pool, fit rows", &pool);
    summary("KV tokens, fit rows", &tok);
    summary("KV pool, held-out rows", &pool_h);
    summary("KV tokens, held-out rows", &tok_h);
    printf("%d pool rows unknown\n", unknown);
    fclose(f);
    vs_interp_free(ip);
    return 0;
}
