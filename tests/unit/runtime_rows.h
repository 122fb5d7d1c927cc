/* runtime_rows.h — one row of tests/data/engine_startup/vllm_runtime.tsv (published
 * vLLM start-up figures) read and scored against the runtime estimators the way
 * bench_runtime reports them and test_runtime_table checks them: which figures a row
 * scores (the file's header says why some are printed only), and what `engine vllm
 * estimate=yes` gives for them. */
#ifndef VS_TESTS_RUNTIME_ROWS_H
#define VS_TESTS_RUNTIME_ROWS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/vllm.h"

#include "tsv_row.h"

#define VS_RT_COLS 23

enum {
    VS_RT_LINK,
    VS_RT_VLLM,
    VS_RT_GPU,
    VS_RT_ARCH,
    VS_RT_TP,
    VS_RT_PP,
    VS_RT_MODEL,
    VS_RT_HIDDEN,
    VS_RT_INTER,
    VS_RT_MLP,
    VS_RT_MOE,
    VS_RT_TOPK,
    VS_RT_DENSE,
    VS_RT_VOCAB,
    VS_RT_MML,
    VS_RT_MNBT,
    VS_RT_SEQS,
    VS_RT_DTYPE,
    VS_RT_NT,
    VS_RT_ACT,
    VS_RT_RANK,
    VS_RT_INSTALL,
    VS_RT_HALF
};

typedef struct vs_rt_row {
    char *col[VS_RT_COLS];
    int fit;                      /* the half the constants were fitted on */
    int nt_fit, act_fit;          /* that figure is in the fitting half (fit, fit:...) */
    int nt_miss, act_miss;        /* held out and known to miss (half held-miss:...) */
    double nt_pub, act_pub;       /* printed, GiB (0: not given) */
    int nt_scored, act_scored;    /* the figure is one the rules estimate */
    int nt_have, act_have;        /* the estimator gave a figure */
    uint64_t nt_bytes, act_bytes; /* its estimate */
    vs_runtime_shape sh;          /* what the activation rule read */
    const char *sampler;          /* the kernel `estimate=yes` takes for the row's release */
} vs_rt_row;

/* "0.6.5", "0.10", "0.8.0.dev (V0)": major, minor, patch as one number
 * (0.6.5 = 6005), for the accounting gates */
static unsigned vs_rt_version(const char *v)
{
    unsigned a = 0, b = 0, c = 0;
    sscanf(v, "%u.%u.%u", &a, &b, &c);
    return a * 1000000 + b * 1000 + c;
}

static unsigned long long vs_rt_num(const char *s)
{
    return strcmp(s, "-") ? strtoull(s, NULL, 10) : 0;
}

/* The half column: "fit", "held", "fit:FIGURES", a row whose named figures (non_torch,
 * activation_peak, comma-separated) a constant was fitted on, its others held out, or
 * "held-miss:FIGURES", a held-out row whose named figures are known to miss their
 * stated error; the table's header says why for each. 0, or -1 for anything else. */
static int vs_rt_half(vs_rt_row *r, const char *half) __attribute__((unused));
static int vs_rt_half(vs_rt_row *r, const char *half)
{
    const char *p;
    int fit;
    if (!strcmp(half, "fit") || !strcmp(half, "held")) {
        r->fit = r->nt_fit = r->act_fit = !strcmp(half, "fit");
        return 0;
    }
    if (!strncmp(half, "fit:", 4)) {
        fit = 1;
        p = half + 4;
    } else if (!strncmp(half, "held-miss:", 10)) {
        fit = 0;
        p = half + 10;
    } else
        return -1;
    while (*p) {
        size_t n = strcspn(p, ",");
        int *nt = fit ? &r->nt_fit : &r->nt_miss, *act = fit ? &r->act_fit : &r->act_miss;
        if (n == 9 && !strncmp(p, "non_torch", n))
            *nt = 1;
        else if (n == 15 && !strncmp(p, "activation_peak", n))
            *act = 1;
        else
            return -1;
        p += n;
        if (*p == ',' && *++p == '\0')
            return -1;
    }
    return r->nt_miss || r->act_miss || r->nt_fit || r->act_fit ? 0 : -1;
}

/* Splits line (in place) into r and scores it. 1: a row; 0: a comment or a blank
 * line; -1: not 23 columns ending in a half (fit, held, fit:FIGURES, held-miss:FIGURES), an mlp
 * other than gated, plain or -, or an install other than image, pip or -. The sampler's kernel is
 * the one `engine vllm version=RELEASE install=... estimate=yes` takes (vs_vllm_sampler), RELEASE
 * being the row's leading a.b.c. Rows of an
 * older accounting (activation before 0.6.5, non_torch before 0.7), non_torch under pipeline
 * parallelism (its p2p buffers, which a sheet does not model) and rows missing a
 * figure or a setting are not scored. A V0 rank past the first (rank 1+) is
 * estimated without the sampler, which only the first rank runs there. */
static int vs_rt_row_read(vs_rt_row *r, char *line) __attribute__((unused));
static int vs_rt_row_read(vs_rt_row *r, char *line)
{
    char **col = r->col;
    vs_runtime_estimate est;
    vs_runtime_shape sh;
    vs_error err;
    char release[32];
    unsigned v;
    int n;
    memset(r, 0, sizeof *r);
    if (line[0] == '#' || line[0] == '\n' || line[0] == '\0')
        return 0;
    n = vs_tsv_split(line, col, VS_RT_COLS);
    if (n != VS_RT_COLS || vs_rt_half(r, col[VS_RT_HALF]) < 0)
        return -1;
    if (strcmp(col[VS_RT_MLP], "gated") && strcmp(col[VS_RT_MLP], "plain") &&
        strcmp(col[VS_RT_MLP], "-"))
        return -1;
    if (strcmp(col[VS_RT_INSTALL], "image") && strcmp(col[VS_RT_INSTALL], "pip") &&
        strcmp(col[VS_RT_INSTALL], "-"))
        return -1;
    v = vs_rt_version(col[VS_RT_VLLM]);
    snprintf(release, sizeof release, "%u.%u.%u", v / 1000000, v / 1000 % 1000, v % 1000);
    r->nt_pub = strcmp(col[VS_RT_NT], "-") ? atof(col[VS_RT_NT]) : 0;
    r->act_pub = strcmp(col[VS_RT_ACT], "-") ? atof(col[VS_RT_ACT]) : 0;
    r->nt_scored = r->nt_pub > 0 && vs_rt_version(col[VS_RT_VLLM]) >= 7000 &&
                   strcmp(col[VS_RT_ARCH], "-") && strcmp(col[VS_RT_TP], "-") &&
                   vs_rt_num(col[VS_RT_PP]) <= 1;
    r->nt_have = vs_runtime_estimate_context(&est, col[VS_RT_ARCH], col[VS_RT_GPU],
                                             vs_rt_num(col[VS_RT_TP]), &err) == 0;
    /* the release's own terms (engine/vllm.c's table: 0 but from 0.18.0; in 0.19.0 a TP 2
     * group's larger buffers on Hopper) */
    r->nt_bytes =
        r->nt_have ? est.bytes + vs_vllm_non_torch_release(release, col[VS_RT_ARCH], col[VS_RT_GPU],
                                                           vs_rt_num(col[VS_RT_TP]))
                   : 0;
    sh.tokens = vs_rt_num(col[VS_RT_MNBT]);
    sh.seqs = vs_rt_num(col[VS_RT_SEQS]);
    sh.hidden = vs_rt_num(col[VS_RT_HIDDEN]);
    sh.intermediate = vs_rt_num(col[VS_RT_INTER]);
    sh.vocab = vs_rt_num(col[VS_RT_VOCAB]);
    sh.moe_intermediate = vs_rt_num(col[VS_RT_MOE]);
    sh.experts_per_token = vs_rt_num(col[VS_RT_TOPK]);
    sh.dense_layers = vs_rt_num(col[VS_RT_DENSE]);
    sh.tp = vs_rt_num(col[VS_RT_TP]);
    sh.mlp_plain = !strcmp(col[VS_RT_MLP], "plain");
    sh.sampler_off = !strcmp(col[VS_RT_RANK], "1+") &&
                     (strstr(col[VS_RT_VLLM], "V0") || vs_rt_version(col[VS_RT_VLLM]) < 8000);
    r->act_scored = r->act_pub > 0 && vs_rt_version(col[VS_RT_VLLM]) >= 6005 && sh.seqs && sh.vocab;
    r->sampler = vs_vllm_sampler(release, !strcmp(col[VS_RT_INSTALL], "image"));
    r->act_have = vs_runtime_estimate_activation_sampler(&est, &sh, r->sampler, &err) == 0;
    r->act_bytes = r->act_have ? est.bytes : 0;
    r->sh = sh;
    return 1;
}

/* est / published - 1, the estimate in bytes against a figure printed in GiB */
static double vs_rt_error(uint64_t est, double pub_gib) __attribute__((unused));
static double vs_rt_error(uint64_t est, double pub_gib)
{
    return (double)est / (1 << 30) / pub_gib - 1;
}

#endif
