/* Benchmark of the runtime-item estimators against published start-up figures:
 * for each row of tests/data/engine_startup/vllm_runtime.tsv, what `engine vllm
 * estimate=yes` would put as non_torch and activation_peak beside what the log
 * printed, then each estimator's median and worst relative error. Run by hand:
 * <build>/bench_runtime [TSV]. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"

#define ROWS_MAX 256

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void summary(const char *what, double *err, size_t n)
{
    double abs_err[ROWS_MAX], worst = 0, median;
    size_t i;
    for (i = 0; i < n; i++) {
        abs_err[i] = fabs(err[i]);
        if (abs_err[i] > worst)
            worst = abs_err[i];
    }
    qsort(abs_err, n, sizeof abs_err[0], cmp_double);
    median = n % 2 ? abs_err[n / 2] : (abs_err[n / 2 - 1] + abs_err[n / 2]) / 2;
    printf("%-16s rows %zu  median |error| %.1f%%  worst %.1f%%\n", what, n, median * 100,
           worst * 100);
}

int main(int argc, char **argv)
{
    const char *path =
        argc > 1 ? argv[1] : VS_SOURCE_DIR "/tests/data/engine_startup/vllm_runtime.tsv";
    FILE *f = fopen(path, "r");
    char line[1024];
    double e_nt[ROWS_MAX], e_act[ROWS_MAX];
    size_t n_nt = 0, n_act = 0;
    if (!f) {
        fprintf(stderr, "bench_runtime: cannot open %s\n", path);
        return 1;
    }
    printf("%-8s %-10s %-3s %-28s %10s %10s %10s %10s\n", "vllm", "gpu", "tp", "model", "non_torch",
           "estimate", "act_peak", "estimate");
    while (fgets(line, sizeof line, f) && n_nt < ROWS_MAX) {
        char link[256], ver[32], gpu[64], arch[32], model[128];
        unsigned long long tp, hidden, inter, vocab, mnbt, seqs;
        double nt_gib, act_gib;
        vs_runtime_estimate est;
        vs_error err;
        char nt_s[32] = "-", act_s[32] = "-";
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (sscanf(
                line,
                "%255[^\t]\t%31[^\t]\t%63[^\t]\t%31[^\t]\t%llu\t%127[^\t]\t%llu\t%llu\t%llu\t%llu"
                "\t%llu\t%lf\t%lf",
                link, ver, gpu, arch, &tp, model, &hidden, &inter, &vocab, &mnbt, &seqs, &nt_gib,
                &act_gib) != 13) {
            fprintf(stderr, "bench_runtime: bad row: %s", line);
            fclose(f);
            return 1;
        }
        if (vs_runtime_estimate_context(&est, arch, tp, &err) == 0) {
            double g = (double)est.bytes / (1 << 30);
            e_nt[n_nt++] = g / nt_gib - 1;
            snprintf(nt_s, sizeof nt_s, "%.2f", g);
        }
        if (vs_runtime_estimate_activation(&est, mnbt, seqs, hidden, inter, vocab, tp, &err) == 0) {
            double g = (double)est.bytes / (1 << 30);
            e_act[n_act++] = g / act_gib - 1;
            snprintf(act_s, sizeof act_s, "%.2f", g);
        }
        printf("%-8s %-10s %-3llu %-28s %10.2f %10s %10.2f %10s\n", ver, gpu, tp, model, nt_gib,
               nt_s, act_gib, act_s);
    }
    fclose(f);
    if (!n_nt || !n_act) {
        fprintf(stderr, "bench_runtime: no rows estimated\n");
        return 1;
    }
    summary("non_torch", e_nt, n_nt);
    summary("activation_peak", e_act, n_act);
    return 0;
}
