/* Benchmark of the runtime-item estimators against published start-up figures:
 * for each row of tests/data/engine_startup/vllm_runtime.tsv, what `engine vllm
 * estimate=yes` would put as non_torch and activation_peak beside what the log
 * printed, then each estimator's median and worst relative error on the whole
 * table, on its fitting half and on its held-out half. Rows of an older
 * accounting (activation before 0.6.5, non_torch before 0.7: the file's header
 * says why), non_torch at pipeline parallelism (not modelled) and rows missing a
 * figure are printed, not scored; a row quoting a V0 rank past the first (rank 1+)
 * is estimated without the sampler, which only the first rank runs there; the
 * sampler's kernel is the one the row's release takes under its install column
 * (FlashInfer's for 0.10.2 and 0.11.0 in the vllm/vllm-openai image, the native
 * sort otherwise). A row whose half is "held-miss:FIGURES" is held out and tallied
 * with the held-out half, its named figures known to miss (the table's header says
 * why); one whose half is "fit:FIGURES" counts those figures in the fitting half and
 * the others held out. tests/unit/runtime_rows.h reads and scores a row;
 * test_runtime_table checks the same figures against the errors the estimators
 * state. Run by hand:
 * <build>/bench_runtime [TSV]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/error_tally.h"
#include "../unit/runtime_rows.h"

#define ROWS_MAX 256

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

static void add(errs *all, errs *half, int scored, int have, uint64_t est, double pub)
{
    if (!scored)
        return;
    if (!have) {
        all->missed++;
        half->missed++;
        return;
    }
    all->e[all->n++] = vs_rt_error(est, pub);
    half->e[half->n++] = vs_rt_error(est, pub);
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
    printf("%-14s %-22s %-3s %-4s %-34s %9s %9s %9s %9s %-10s %s\n", "vllm", "gpu", "tp", "rank",
           "model", "non_torch", "estimate", "act_peak", "estimate", "sampler", "half");
    while (fgets(line, sizeof line, f) && rows < ROWS_MAX) {
        vs_rt_row r;
        char nt_s[32] = "-", act_s[32] = "-";
        int got = vs_rt_row_read(&r, line);
        char **col = r.col;
        if (!got)
            continue;
        if (got < 0) {
            fprintf(stderr, "bench_runtime: row %zu: want %d columns ending fit|held\n", rows + 1,
                    VS_RT_COLS);
            fclose(f);
            return 1;
        }
        rows++;
        if (r.nt_have)
            snprintf(nt_s, sizeof nt_s, "%.2f", (double)r.nt_bytes / (1 << 30));
        if (r.act_have)
            snprintf(act_s, sizeof act_s, "%.2f", (double)r.act_bytes / (1 << 30));
        add(&nt_all, r.nt_fit ? &nt_fit : &nt_held, r.nt_scored, r.nt_have, r.nt_bytes, r.nt_pub);
        add(&act_all, r.act_fit ? &act_fit : &act_held, r.act_scored, r.act_have, r.act_bytes,
            r.act_pub);
        printf("%-14.14s %-22.22s %-3s %-4s %-34.34s %9s %9s %9s %9s %-10s %s%s\n", col[VS_RT_VLLM],
               col[VS_RT_GPU], col[VS_RT_TP], col[VS_RT_RANK], col[VS_RT_MODEL], col[VS_RT_NT],
               nt_s, col[VS_RT_ACT], act_s, r.sampler, col[VS_RT_HALF],
               r.nt_scored || r.act_scored ? "" : " (not scored)");
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
