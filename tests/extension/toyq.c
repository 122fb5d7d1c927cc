/* A throwaway weights format for tests/extension: four bits a value, two to a
 * byte, and an fp16 scale per output row, for every Linear layer. Dropped into a
 * scratch copy of the tree as src/model/quants/toyq.c with one row in
 * quants.def; `format toyq4` names it, and a quantization_config of
 * quant_method "toyq" reads it. */
#include <stdio.h>
#include <string.h>

#include "model/quants/quants.h"

static int toyq_from_format(vs_quant *q, const char *word, uint64_t bits, uint64_t group,
                            uint64_t block, vs_error *err)
{
    (void)bits;
    (void)group;
    if (strcmp(word, "toyq4"))
        return 1;
    q->scheme = &vs_quant_scheme_toyq;
    q->bits = 4;
    return block ? vs_error_set(err, VS_EVALUE, "%s takes no block=", word) : 0;
}

static int toyq_from_config(vs_quant *q, const char *method, const json_t *qc, vs_error *err)
{
    (void)method;
    (void)qc;
    (void)err;
    q->scheme = &vs_quant_scheme_toyq;
    q->bits = 4;
    return 0;
}

static const char *toyq_name(const vs_quant *q, char *out, size_t cap)
{
    (void)q;
    snprintf(out, cap, "toyq4");
    return out;
}

static const char *toyq_values(const vs_quant *q, char *out, size_t cap)
{
    (void)q;
    snprintf(out, cap, "toy int4 (two a byte)");
    return out;
}

static int toyq_matrix(const vs_quant *q, const vs_quant_matrix *m, vs_quant_engine eng,
                       vs_quant_bytes *out, vs_error *err)
{
    (void)q;
    (void)eng;
    (void)err;
    out->values = m->out * m->in / 2;
    out->scales = m->out * 2;
    return 0;
}

static const vs_vocab_scheme toyq_words[] = {{"toyq4", "", 4, "4 + an fp16 scale per row",
                                              "a throwaway test format's kept tensors",
                                              "safetensors"},
                                             {NULL, NULL, 0, NULL, NULL, NULL}};
static const char *const toyq_methods[] = {"toyq", NULL};

const vs_quant_scheme vs_quant_scheme_toyq = {.name = "toyq",
                                              .words = toyq_words,
                                              .methods = toyq_methods,
                                              .linear = 1,
                                              .experts = 1,
                                              .from_format = toyq_from_format,
                                              .from_config = toyq_from_config,
                                              .format_name = toyq_name,
                                              .values_label = toyq_values,
                                              .scales_label = "toy fp16 row scales",
                                              .index_label = "",
                                              .matrix = toyq_matrix,
                                              .source = "a throwaway test format"};
