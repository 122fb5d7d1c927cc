/* Benchmark of the cuda_graphs estimate against published start-up figures: for
 * each row of tests/data/engine_startup/vllm_graphs.tsv, the graphs the release's
 * rule captures (engine/cuda_graphs.h) beside the progress bars the log printed,
 * and the estimate (graphs x layers x VS_CUDA_GRAPHS_PER_LAYER_GRAPH) beside the
 * printed "took X GiB", then the median and worst relative error on all rows, the
 * fitting half and the held-out half; rows of another definition of the figure (half
 * "printed") and rows whose model is not named (no layer count) are printed, not
 * scored. A row outside the modelled rules is scored on its printed graph count. Exits 1 when a
 * printed bar disagrees with the rule (the count is the part the source fixes). Run by hand:
 * <build>/bench_graphs [TSV]. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/cuda_graphs.h"

#include "../unit/error_tally.h"
#include "../unit/tsv_row.h"

#define ROWS_MAX 128
#define COLS 13

enum {
    C_LINK,
    C_VLLM,
    C_RULE,
    C_GPU,
    C_TP,
    C_MODEL,
    C_LAYERS,
    C_SEQS,
    C_MNBT,
    C_BARS,
    C_GRAPHS,
    C_GIB,
    C_HALF
};

typedef struct errs {
    double e[ROWS_MAX];
    size_t n;
} errs;

static void summary(const char *half, const errs *s)
{
    double worst = vs_tally_worst(s->e, s->n), median = vs_tally_median(s->e, s->n);
    if (!s->n) {
        printf("cuda_graphs %-9s rows 0\n", half);
        return;
    }
    printf("cuda_graphs %-9s rows %zu  median |error| %.1f%%  worst %.1f%%\n", half, s->n,
           median * 100, worst * 100);
}

static unsigned long long num(const char *s)
{
    return strcmp(s, "-") ? strtoull(s, NULL, 10) : 0;
}

/* Each "+"-joined bar total of bars is the rule's piecewise or full count. */
static int bars_agree(const char *bars, const vs_cuda_graphs_count *n)
{
    const char *p = bars;
    if (!strcmp(bars, "-"))
        return 1;
    while (*p) {
        unsigned long long b = strtoull(p, NULL, 10);
        if (b != n->piecewise && b != n->full)
            return 0;
        p += strcspn(p, "+");
        if (*p == '+')
            p++;
    }
    return 1;
}

int main(int argc, char **argv)
{
    const char *path =
        argc > 1 ? argv[1] : VS_SOURCE_DIR "/tests/data/engine_startup/vllm_graphs.tsv";
    FILE *f = fopen(path, "r");
    char line[2048];
    errs all = {{0}, 0}, fit = all, held = all;
    size_t rows = 0;
    int bad = 0;
    if (!f) {
        fprintf(stderr, "bench_graphs: cannot open %s\n", path);
        return 1;
    }
    printf("%-13s %-7s %-3s %-34s %6s %-9s %7s %7s %9s %9s %s\n", "vllm", "rule", "tp", "model",
           "layers", "bars", "graphs", "rule", "took GiB", "estimate", "half");
    while (fgets(line, sizeof line, f) && rows < ROWS_MAX) {
        char *col[COLS];
        int n = 0, is_fit, scored;
        unsigned long long graphs;
        vs_cuda_graphs_count cnt;
        vs_error err;
        char rule_s[24] = "-";
        double pub, est;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        n = vs_tsv_split(line, col, COLS);
        if (n != COLS || (strcmp(col[C_HALF], "fit") && strcmp(col[C_HALF], "held") &&
                          strcmp(col[C_HALF], "printed"))) {
            fprintf(stderr, "bench_graphs: row %zu: %d columns, want %d ending fit|held|printed\n",
                    rows + 1, n, COLS);
            fclose(f);
            return 1;
        }
        rows++;
        is_fit = !strcmp(col[C_HALF], "fit");
        graphs = num(col[C_GRAPHS]);
        if (strcmp(col[C_RULE], "-")) {
            if (vs_cuda_graphs_count_of(&cnt, col[C_RULE], num(col[C_SEQS]), num(col[C_MNBT]),
                                        &err) < 0) {
                fprintf(stderr, "bench_graphs: row %zu: %s\n", rows, err.message);
                fclose(f);
                return 1;
            }
            snprintf(rule_s, sizeof rule_s, "%llu", (unsigned long long)(cnt.piecewise + cnt.full));
            if (cnt.piecewise + cnt.full != graphs || !bars_agree(col[C_BARS], &cnt)) {
                fprintf(stderr,
                        "bench_graphs: row %zu: the rule gives %llu piecewise + %llu full, the "
                        "row %llu graphs (bars %s)\n",
                        rows, (unsigned long long)cnt.piecewise, (unsigned long long)cnt.full,
                        graphs, col[C_BARS]);
                bad = 1;
            }
            graphs = cnt.piecewise + cnt.full;
        }
        pub = atof(col[C_GIB]);
        est = (double)(graphs * num(col[C_LAYERS]) * VS_CUDA_GRAPHS_PER_LAYER_GRAPH) / (1 << 30);
        /* "printed": a figure of another definition (the file's header says which); no
         * layer count: nothing to multiply */
        scored = pub > 0 && strcmp(col[C_HALF], "printed") && num(col[C_LAYERS]);
        if (scored) {
            all.e[all.n++] = est / pub - 1;
            if (is_fit)
                fit.e[fit.n++] = est / pub - 1;
            else
                held.e[held.n++] = est / pub - 1;
        }
        printf("%-13.13s %-7s %-3s %-34.34s %6s %-9s %7llu %7s %9s %9.3f %s%s\n", col[C_VLLM],
               col[C_RULE], col[C_TP], col[C_MODEL], col[C_LAYERS], col[C_BARS], graphs, rule_s,
               col[C_GIB], est, col[C_HALF], scored ? "" : " (not scored)");
    }
    fclose(f);
    if (!rows) {
        fprintf(stderr, "bench_graphs: no rows\n");
        return 1;
    }
    summary("all", &all);
    summary("fitting", &fit);
    summary("held-out", &held);
    return bad;
}
