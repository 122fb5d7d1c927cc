/* FP8 (e4m3) weights, one byte each, with float32 scales: one per tensor, one
 * per output row, or one per weight_block_size block; a stored input scale
 * per matrix for a static activation scheme.
 *
 * vLLM vllm/model_executor/layers/quantization/fp8.py (Fp8LinearMethod.
 * create_weights): weight float8_e4m3fn [out, in]; weight_scale float32, per
 * tensor one per logical matrix, with weight_block_size [ceil(out / bn),
 * ceil(in / bk)] (weight_scale_inv); input_scale float32 when
 * activation_scheme is static. compressed-tensors' channel strategy
 * (schemes/compressed_tensors_w8a8_fp8.py): weight_scale [out, 1]. */
#include <stdio.h>
#include <string.h>

#include "model/quants/quants.h"

static int fp8_matrix(const vs_quant *q, const vs_quant_matrix *m, vs_quant_engine eng,
                      vs_quant_bytes *out, vs_error *err)
{
    (void)eng;
    (void)err;
    out->values = m->out * m->in;
    if (q->scale == VS_QUANT_SCALE_BLOCK)
        out->scales = (m->out + q->block[0] - 1) / q->block[0] *
                      ((m->in + q->block[1] - 1) / q->block[1]) * 4;
    else if (q->scale == VS_QUANT_SCALE_CHANNEL)
        out->scales = m->out * 4;
    else
        out->scales = 4;
    if (q->static_input)
        out->scales += 4;
    out->zeros = out->index = 0;
    return 0;
}

/* `format fp8 block=N`: square blocks; plain `fp8` is the plain width */
static int fp8_from_format(vs_quant *q, const char *word, uint64_t bits, uint64_t group,
                           uint64_t block, vs_error *err)
{
    (void)bits;
    (void)group;
    (void)err;
    if (strcmp(word, "fp8") || !block)
        return 1;
    q->scheme = &vs_quant_scheme_fp8;
    q->bits = 8;
    q->scale = VS_QUANT_SCALE_BLOCK;
    q->block[0] = q->block[1] = block;
    return 0;
}

/* FineGrainedFP8Config: weight_block_size [out, in], activation_scheme,
 * ignored_layers */
static int fp8_from_config(vs_quant *q, const char *m, const json_t *qc, vs_error *err)
{
    const json_t *bs = json_object_get(qc, "weight_block_size");
    const char *as = json_string_value(json_object_get(qc, "activation_scheme"));
    q->scheme = &vs_quant_scheme_fp8;
    q->bits = 8;
    q->static_input = as && !strcmp(as, "static");
    vs_quant_keep_modules(q, json_object_get(qc, "ignored_layers"));
    if (json_is_array(bs)) {
        if (json_array_size(bs) != 2 || !json_is_integer(json_array_get(bs, 0)) ||
            !json_is_integer(json_array_get(bs, 1)) ||
            json_integer_value(json_array_get(bs, 0)) < 1 ||
            json_integer_value(json_array_get(bs, 1)) < 1)
            return vs_quant_cfg_bad(err, m, "weight_block_size must be two positive sizes");
        q->scale = VS_QUANT_SCALE_BLOCK;
        q->block[0] = (uint64_t)json_integer_value(json_array_get(bs, 0));
        q->block[1] = (uint64_t)json_integer_value(json_array_get(bs, 1));
    }
    return 0;
}

/* " channel", " tensor", " block=N" or " block=RxC" */
static int fp8_canonical(const char *word, const char *p, unsigned *bits)
{
    (void)word;
    (void)bits;
    return !strcmp(p, " channel") || !strcmp(p, " tensor") ||
           (!strncmp(p, " block=", 7) && p[7] >= '1' && p[7] <= '9' &&
            strspn(p + 7, "0123456789x") == strlen(p + 7));
}

static const char *fp8_format_name(const vs_quant *q, char *out, size_t cap)
{
    if (q->scale == VS_QUANT_SCALE_BLOCK && q->block[0] == q->block[1])
        snprintf(out, cap, "fp8 block=%llu", (unsigned long long)q->block[0]);
    else if (q->scale == VS_QUANT_SCALE_BLOCK)
        snprintf(out, cap, "fp8 block=%llux%llu", (unsigned long long)q->block[0],
                 (unsigned long long)q->block[1]);
    else
        snprintf(out, cap, "fp8 %s", q->scale == VS_QUANT_SCALE_CHANNEL ? "channel" : "tensor");
    return out;
}

static const char *fp8_values_label(const vs_quant *q, char *out, size_t cap)
{
    /* compressed-tensors' w8a8 int8 shares the layout */
    snprintf(out, cap, "%s",
             q->method_name[0] && strstr(q->method_name, "int8") ? "int8" : "fp8 e4m3");
    return out;
}

static const vs_vocab_scheme fp8_words[] = {
    {"fp8", "block=N, channel or tensor", 8, "8.002 at block=128 (an fp32 scale per block)",
     "embeddings, lm_head, norms, MoE routers", "safetensors"},
    {NULL, NULL, 0, NULL, NULL, NULL}};
static const char *const fp8_methods[] = {"fp8", NULL};

const vs_quant_scheme vs_quant_scheme_fp8 = {
    .name = "fp8",
    .words = fp8_words,
    .methods = fp8_methods,
    .linear = 1,
    .experts = 1,
    .from_format = fp8_from_format,
    .from_config = fp8_from_config,
    .canonical = fp8_canonical,
    .format_name = fp8_format_name,
    .values_label = fp8_values_label,
    .scales_label = "fp32 scales",
    .index_label = "",
    .matrix = fp8_matrix,
    .source = "vLLM quantization/fp8.py (weight, weight_scale or weight_scale_inv, input_scale)"};
