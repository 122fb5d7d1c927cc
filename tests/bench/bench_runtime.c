/* Benchmark of the runtime-item estimators against published start-up figures:
 * for each row of tests/data/engine_startup/vllm_runtime.tsv, what `engine vllm
 * estimate=yes` would put as non_torch and activation_peak beside what the log
 * printed, then each estimator's median and worst relative error on the whole
 * table, on its fitting half and on its held-out half. Rows of an older
 * accounting (activation before 0.6.5, non_torch before 0.7: the file's header
 * says why), non_torch at pipeline parallelism (not modelled) and rows missing a
 * figure are printed, not scored. A row quoting a V0
 * rank past the first (rank 1+) is estimated without the sampler, which only the
 * first rank runs there. Run by hand:
 * <build>/bench_runtime [TSV]. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"

#include "../unit/error_tally.h"
#include "../unit/tsv_row.h"

#define ROWS_MAX 256
#define COLS 21

enum {
    C_LINK,
    C_VLLM,
    C_GPU,
    C_ARCH,
    C_TP,
    C_PP,
    C_MODEL,
    C_HIDDEN,
    C_INTER,
    C_MOE,
    C_TOPK,
    C_DENSE,
    C_VOCAB,
    C_MML,
    C_MNBT,
    C_SEQS,
    C_DTYPE,
    C_NT,
    C_ACT,
    C_RANK,
    C_HALF
};

typedef struct errs {
    double e[ROWS_MAX];
    size_t n, missed; /* scored rows the estimator gave nothing for */
} errs;

static void summary(const char *what, const char *half, const errs *s)
{
    double worst = vs_tally_worst(s->e, s->n), median = vs_tally_median(s->e, s->n);
    if (!s->n) {
        printf("%-16s %-9s rows 0 (%zu without an estimate)\n", what, half, s->missed);
        return;
    }
    printf("%-16s %-9s rows %zu  median |error| %.1f%%  worst %.1f%%", what, half, s->n,
           median * 100, worst * 100);
    if (s->missed)
        printf("  (%zu more without an estimate)", s->missed);
    printf("\n");
}

/* "0.6.5", "0.10", "0.8.0.dev (V0)": major, minor, patch as one number
 * (0.6.5 = 6005), for the accounting gates */
static unsigned version_of(const char *v)
{
    unsigned a = 0, b = 0, c = 0;
    sscanf(v, "%u.%u.%u", &a, &b, &c);
    return a * 1000000 + b * 1000 + c;
}

static unsigned long long num(const char *s)
{
    return strcmp(s, "-") ? strtoull(s, NULL, 10) : 0;
}

static void add(errs *all, errs *half, int scored, int have, double est, double pub)
{
    if (!scored)
        return;
    if (!have) {
        all->missed++;
        half->missed++;
        return;
    }
    all->e[all->n++] = est / pub - 1;
    half->e[half->n++] = est / pub - 1;
}

int main(int argc, char **argv)
{
    const char *path =
        argc > 1 ? argv[1] : VS_SOURCE_DIR "/tests/data/engine_startup/vllm_runtime.tsv";
    FILE *f = fopen(path, "r");
    char line[2048];
    errs nt_all = {{0}, 0, 0}, nt_fit = nt_all, nt_held = nt_all;
    errs act_all = nt_all, act_fit = nt_all, act_held = nt_all;
    size_t rows = 0;
    if (!f) {
        fprintf(stderr, "bench_runtime: cannot open %s\n", path);
        return 1;
    }
    printf("%-14s %-22s %-3s %-4s %-34s %9s %9s %9s %9s %s\n", "vllm", "gpu", "tp", "rank", "model",
           "non_torch", "estimate", "act_peak", "estimate", "half");
    while (fgets(line, sizeof line, f) && rows < ROWS_MAX) {
        char *col[COLS];
        int n = 0, fit, nt_scored, act_scored, have;
        vs_runtime_estimate est;
        vs_runtime_shape sh;
        vs_error err;
        char nt_s[32] = "-", act_s[32] = "-";
        double nt_pub, act_pub;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        n = vs_tsv_split(line, col, COLS);
        if (n != COLS || (strcmp(col[C_HALF], "fit") && strcmp(col[C_HALF], "held"))) {
            fprintf(stderr, "bench_runtime: row %zu: %d columns, want %d ending fit|held\n",
                    rows + 1, n, COLS);
            fclose(f);
            return 1;
        }
        rows++;
        fit = !strcmp(col[C_HALF], "fit");
        nt_pub = strcmp(col[C_NT], "-") ? atof(col[C_NT]) : 0;
        act_pub = strcmp(col[C_ACT], "-") ? atof(col[C_ACT]) : 0;
        /* pipeline parallelism adds NCCL's p2p buffers, which a sheet does not model */
        nt_scored = nt_pub > 0 && version_of(col[C_VLLM]) >= 7000 && strcmp(col[C_ARCH], "-") &&
                    strcmp(col[C_TP], "-") && num(col[C_PP]) <= 1;
        have = vs_runtime_estimate_context(&est, col[C_ARCH], num(col[C_TP]), &err) == 0;
        if (have)
            snprintf(nt_s, sizeof nt_s, "%.2f", (double)est.bytes / (1 << 30));
        add(&nt_all, fit ? &nt_fit : &nt_held, nt_scored, have, (double)est.bytes / (1 << 30),
            nt_pub);
        sh.tokens = num(col[C_MNBT]);
        sh.seqs = num(col[C_SEQS]);
        sh.hidden = num(col[C_HIDDEN]);
        sh.intermediate = num(col[C_INTER]);
        sh.vocab = num(col[C_VOCAB]);
        sh.moe_intermediate = num(col[C_MOE]);
        sh.experts_per_token = num(col[C_TOPK]);
        sh.dense_layers = num(col[C_DENSE]);
        sh.tp = num(col[C_TP]);
        sh.sampler_off = !strcmp(col[C_RANK], "1+") &&
                         (strstr(col[C_VLLM], "V0") || version_of(col[C_VLLM]) < 8000);
        act_scored = act_pub > 0 && version_of(col[C_VLLM]) >= 6005 && sh.seqs && sh.vocab;
        have = vs_runtime_estimate_activation(&est, &sh, &err) == 0;
        if (have)
            snprintf(act_s, sizeof act_s, "%.2f", (double)est.bytes / (1 << 30));
        add(&act_all, fit ? &act_fit : &act_held, act_scored, have, (double)est.bytes / (1 << 30),
            act_pub);
        printf("%-14.14s %-22.22s %-3s %-4s %-34.34s %9s %9s %9s %9s %s%s\n", col[C_VLLM],
               col[C_GPU], col[C_TP], col[C_RANK], col[C_MODEL], col[C_NT], nt_s, col[C_ACT], act_s,
               col[C_HALF], nt_scored || act_scored ? "" : " (not scored)");
    }
    fclose(f);
    if (!rows) {
        fprintf(stderr, "bench_runtime: no rows\n");
        return 1;
    }
    summary("non_torch", "all", &nt_all);
    summary("non_torch", "fitting", &nt_fit);
    summary("non_torch", "held-out", &nt_held);
    summary("activation_peak", "all", &act_all);
    summary("activation_peak", "fitting", &act_fit);
    summary("activation_peak", "held-out", &act_held);
    return 0;
}
