/* sglang_rows.h — the columns of tests/data/engine_startup/sglang_startup.tsv
 * (its header comment says what each holds) and the cell that sizes one row's
 * run under `engine sglang estimate=yes`, for the test that checks the rows and
 * the benchmark that prints their errors, so the two read the table alike. */
#ifndef VS_TESTS_SGLANG_ROWS_H
#define VS_TESTS_SGLANG_ROWS_H

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

#endif
