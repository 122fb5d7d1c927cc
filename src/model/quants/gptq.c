/* GPTQ and AWQ: integers packed eight (4-bit) or four (8-bit) to an int32,
 * an fp16 scale and a packed zero point per group of `group` input values.
 *
 * vLLM vllm/model_executor/layers/quantization/gptq.py (GPTQLinearMethod.
 * create_weights): qweight int32 [in * bits / 32, out], g_idx int32 [in],
 * qzeros int32 [in / group, out * bits / 32], scales fp16 [in / group, out];
 * group_size -1 is one group per column. awq.py (AWQLinearMethod): qweight
 * int32 [in, out * bits / 32], qzeros [in / group, out * bits / 32], scales
 * [in / group, out], no g_idx. transformers' GPTQ and AWQ quantizers
 * (optimum / gptqmodel, autoawq QuantLinear) store the same tensors, so the
 * checkpoint's header and the loaded layer agree. Under vLLM a symmetric
 * 4- or 8-bit GPTQ layer with a Marlin group size runs on Marlin (or Machete),
 * whose MarlinLinearKernel.process_weights_after_loading (kernels/
 * mixed_precision/marlin.py at 04aa528e) repacks the weights and scales at
 * their size but empties the zero points (symmetric) and g_idx without act
 * order, and with act order keeps g_idx beside an int32 g_idx_sort_indices. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/quants/quants.h"

static uint64_t packed32(uint64_t n, unsigned bits)
{
    /* whole int32 words of n values at bits each */
    return (n * bits + 31) / 32 * 4;
}

static int groups_of(const vs_quant *q, const vs_quant_matrix *m, uint64_t *g, vs_error *err)
{
    if (q->group == 0) {
        *g = 1;
        return 0;
    }
    if (m->in % q->group)
        return vs_error_set(err, VS_EVALUE,
                            "a %llu-column matrix is not a whole number of %llu-value groups",
                            (unsigned long long)m->in, (unsigned long long)q->group);
    *g = m->in / q->group;
    return 0;
}

/* vLLM's gptq_marlin conditions (GPTQMarlinConfig.is_gptq_marlin_compatible):
 * symmetric, 4 or 8 bits, a group size Marlin takes */
static int marlin_layout(const vs_quant *q, vs_quant_engine eng)
{
    return eng != VS_QUANT_ENGINE_CHECKPOINT && q->sym && (q->bits == 4 || q->bits == 8) &&
           (q->group == 0 || q->group == 32 || q->group == 64 || q->group == 128);
}

static int gptq_matrix(const vs_quant *q, const vs_quant_matrix *m, vs_quant_engine eng,
                       vs_quant_bytes *out, vs_error *err)
{
    uint64_t g = 1;
    int rc;
    if ((rc = groups_of(q, m, &g, err)))
        return rc;
    out->values = packed32(m->in, q->bits) * m->out;
    out->scales = g * m->out * 2;
    out->zeros = g * packed32(m->out, q->bits);
    out->index = m->in * 4;
    if (q->ct) {
        /* compressed-tensors' pack-quantized (schemes/compressed_tensors_wNa16.py):
         * weight_packed, weight_scale, weight_zero_point only when asymmetric,
         * weight_shape (two int64), weight_g_idx only with actorder */
        out->zeros = q->sym ? 0 : out->zeros;
        out->index = 16 + (q->desc_act ? m->in * 4 : 0);
    }
    if (marlin_layout(q, eng)) {
        /* Marlin: no zero points, g_idx and its sort order only with act order */
        out->zeros = 0;
        out->index = (q->ct ? 16 : 0) + (q->desc_act ? 2 * m->in * 4 : 0);
    }
    return 0;
}

static int awq_matrix(const vs_quant *q, const vs_quant_matrix *m, vs_quant_engine eng,
                      vs_quant_bytes *out, vs_error *err)
{
    uint64_t g = 1;
    int rc;
    (void)eng;
    if ((rc = groups_of(q, m, &g, err)))
        return rc;
    out->values = m->in * packed32(m->out, q->bits);
    out->scales = g * m->out * 2;
    out->zeros = g * packed32(m->out, q->bits);
    out->index = 0;
    return 0;
}

/* `format gptq|awq [bits=N] [group=G]`: 4 bits and groups of 128 unless given */
static int gptq_from_format(vs_quant *q, const char *word, uint64_t bits, uint64_t group,
                            uint64_t block, vs_error *err)
{
    int awq = !strcmp(word, "awq");
    if (!awq && strcmp(word, "gptq"))
        return 1;
    q->scheme = awq ? &vs_quant_scheme_awq : &vs_quant_scheme_gptq;
    q->bits = bits ? (unsigned)bits : 4;
    q->group = group ? group : 128;
    q->sym = 1;
    if (q->bits < 2 || q->bits > 8)
        return vs_error_set(err, VS_EVALUE, "%s: bits= must be 2 to 8", word);
    if (block)
        return vs_error_set(err, VS_EVALUE, "%s takes bits= and group=, not block=", word);
    return 0;
}

/* GPTQConfig / AwqConfig (transformers utils/quantization_config.py): bits (or
 * AutoAWQ's w_bit), group_size (or q_group_size; -1 is one group per row),
 * sym, desc_act, lm_head */
static int gptq_from_config(vs_quant *q, const char *m, const json_t *qc, vs_error *err)
{
    int64_t gs;
    json_t *g = json_object_get(qc, "group_size");
    q->scheme = !strcasecmp(m, "gptq") ? &vs_quant_scheme_gptq : &vs_quant_scheme_awq;
    q->bits = (unsigned)vs_quant_cfg_uint(qc, "bits", vs_quant_cfg_uint(qc, "w_bit", 4));
    gs = json_is_integer(g) ? json_integer_value(g)
                            : (json_is_integer(json_object_get(qc, "q_group_size"))
                                   ? json_integer_value(json_object_get(qc, "q_group_size"))
                                   : 128);
    if (gs == 0 || gs < -1)
        return vs_quant_cfg_bad(err, m, "group_size must be positive or -1");
    q->group = gs == -1 ? 0 : (uint64_t)gs;
    q->sym = vs_quant_cfg_bool(qc, "sym", 1);
    q->desc_act = vs_quant_cfg_bool(qc, "desc_act", 0);
    q->lm_head = vs_quant_cfg_bool(qc, "lm_head", 0);
    if (q->bits < 2 || q->bits > 8)
        return vs_quant_cfg_bad(err, m, "bits must be 2 to 8");
    return 0;
}

/* " bits=N" (2 to 8) then " group=G" (positive), each optional */
static int gptq_canonical(const char *word, const char *p, unsigned *b)
{
    (void)word;
    if (!strncmp(p, " bits=", 6)) {
        char *end;
        unsigned long v = strtoul(p + 6, &end, 10);
        if (v < 2 || v > 8)
            return 0;
        *b = (unsigned)v;
        p = end;
    }
    if (!strncmp(p, " group=", 7)) {
        char *end;
        if (strtoull(p + 7, &end, 10) == 0 || end == p + 7)
            return 0;
        p = end;
    }
    return *p == '\0';
}

static const char *gptq_format_name(const vs_quant *q, char *out, size_t cap)
{
    if (q->group)
        snprintf(out, cap, "%s bits=%u group=%llu", q->scheme->name, q->bits,
                 (unsigned long long)q->group);
    else
        snprintf(out, cap, "%s bits=%u", q->scheme->name, q->bits);
    return out;
}

static const char *gptq_values_label(const vs_quant *q, char *out, size_t cap)
{
    snprintf(out, cap, "int%u, packed in int32", q->bits);
    return out;
}

static const vs_vocab_scheme gptq_words[] = {
    {"gptq", "bits=N group=G", 4, "4.16 at bits=4 group=128 (fp16 scale, packed zero, g_idx)",
     "embeddings, lm_head, norms, MoE routers", "safetensors"},
    {NULL, NULL, 0, NULL, NULL, NULL}};
static const vs_vocab_scheme awq_words[] = {
    {"awq", "bits=N group=G", 4, "4.16 at bits=4 group=128 (fp16 scale, packed zero)",
     "embeddings, lm_head, norms, MoE routers", "safetensors"},
    {NULL, NULL, 0, NULL, NULL, NULL}};
static const char *const gptq_methods[] = {"gptq", NULL}, *const awq_methods[] = {"awq", NULL};

const vs_quant_scheme vs_quant_scheme_gptq = {
    .name = "gptq",
    .words = gptq_words,
    .methods = gptq_methods,
    .linear = 1,
    .experts = 1,
    .from_format = gptq_from_format,
    .from_config = gptq_from_config,
    .canonical = gptq_canonical,
    .format_name = gptq_format_name,
    .values_label = gptq_values_label,
    .scales_label = "fp16 scales",
    .index_label = "int32 g_idx",
    .matrix = gptq_matrix,
    .source = "vLLM quantization/gptq.py (qweight, qzeros, scales, g_idx)"};
const vs_quant_scheme vs_quant_scheme_awq = {
    .name = "awq",
    .words = awq_words,
    .methods = awq_methods,
    .linear = 1,
    .experts = 1,
    .from_format = gptq_from_format,
    .from_config = gptq_from_config,
    .canonical = gptq_canonical,
    .format_name = gptq_format_name,
    .values_label = gptq_values_label,
    .scales_label = "fp16 scales",
    .index_label = "",
    .matrix = awq_matrix,
    .source = "vLLM quantization/awq.py (qweight, qzeros, scales)"};
