/* sglang_rows.h — the columns of tests/data/engine_startup/sglang_startup.tsv
 * (its header comment says what each holds) and the cell that sizes one row's
 * run under `engine sglang estimate=yes`, for the test that checks the rows and
 * the benchmark that prints their errors, so the two read the table alike. */
#ifndef VS_TESTS_SGLANG_ROWS_H
#define VS_TESTS_SGLANG_ROWS_H

#include <jansson.h>
#include <stdio.h>
#include <string.h>

enum {
    S_LINK,
    S_RELEASE,
    S_GPU,
    S_ARCH,
    S_TP,
    S_MODEL,
    S_CONFIG,
    S_FORMAT,
    S_KVDTYPE,
    S_FRACTION,
    S_CONTEXT,
    S_BEFORE,
    S_WEIGHTS,
    S_AFTER,
    S_TOKENS,
    S_K,
    S_V,
    S_POOLEND,
    S_GRAPH,
    S_SCORE,
    S_CATALOG,
    S_NT_HALF,
    S_POOL_HALF,
    S_MODELLED,
    S_NOTE,
    S_NCOL
};

/* 1 when the thread gives the figure ("-" is one it does not) */
static int vs_sgl_given(const char *s) __attribute__((unused));
static int vs_sgl_given(const char *s)
{
    return strcmp(s, "-") != 0;
}

/* 1 for a row held out of the rules ("held-out", or "held-out-miss": held out and
 * known to miss the goal, the reason in its note); 1 in *miss for the latter. */
static int vs_sgl_held_out(const char *half, int *miss) __attribute__((unused));
static int vs_sgl_held_out(const char *half, int *miss)
{
    *miss = !strcmp(half, "held-out-miss");
    return *miss || !strcmp(half, "held-out");
}

/* Writes into cell the sheet of row c's run with nothing from its log: the
 * model's config.json (relative to source_dir), the format typed, the context
 * (4,096 where the thread gives none), the catalogue card the thread names, tp
 * cards, the release the run's date falls under and its mem_fraction_static;
 * then `fit`. The row must name a catalogue card (c[S_CATALOG] given). */
static void vs_sgl_estimate_cell(char *cell, size_t size, const char *title, const char *source_dir,
                                 char **c) __attribute__((unused));
static void vs_sgl_estimate_cell(char *cell, size_t size, const char *title, const char *source_dir,
                                 char **c)
{
    char place[64] = "", fmt[64] = "";
    if (vs_sgl_given(c[S_FORMAT]))
        snprintf(fmt, sizeof fmt, "format %s\n", c[S_FORMAT]);
    if (strcmp(c[S_TP], "1"))
        snprintf(place, sizeof place, "placement tensor gpus=%s\n", c[S_TP]);
    snprintf(cell, size,
             "sheet \"%s\"\nmodel m config=%s/%s\n%slength %s\nconcurrency 1\n"
             "task inference\n%sgpu \"%s\" cards=%s\n"
             "engine sglang version=%s mem_fraction_static=%s estimate=yes\nfit",
             title, source_dir, c[S_CONFIG], fmt,
             vs_sgl_given(c[S_CONTEXT]) ? c[S_CONTEXT] : "4096", place, c[S_CATALOG], c[S_TP],
             c[S_MODELLED], c[S_FRACTION]);
}

/* Why fit's row r (of an estimate=yes cell) leaves the KV pool unknown, or NULL
 * when the pool is the estimate's: the card's total only nominal (no device-
 * reported figure in the catalogue), or non_torch unknown (no rule for the
 * card's architecture). activation_peak and cuda_graphs, unknown under an
 * estimate, live in the reserve mem_fraction_static leaves, not in the pool. */
static const char *vs_sgl_pool_unknown(const json_t *r) __attribute__((unused));
static const char *vs_sgl_pool_unknown(const json_t *r)
{
    size_t i;
    const json_t *u;
    const char *basis = json_string_value(json_object_get(r, "capacity_basis"));
    if (!basis || strcmp(basis, "device"))
        return "the catalogue has no device-reported total for the card";
    json_array_foreach(json_object_get(r, "unknown"), i, u)
    {
        const char *s = json_string_value(u);
        if (s && !strncmp(s, "non_torch", 9))
            return "non_torch has no rule for the card's architecture";
    }
    return NULL;
}

#endif