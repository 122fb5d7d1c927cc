/* NVFP4: two e2m1 values per byte, an fp8 (e4m3) scale per 16 values, a
 * float32 global scale per tensor (weight_scale_2) and a float32 input scale.
 *
 * vLLM vllm/model_executor/layers/quantization/modelopt.py
 * (ModelOptNvFp4LinearMethod.create_weights): weight uint8 [out, in / 2],
 * weight_scale float8_e4m3fn [out, in / group_size] (group_size 16),
 * weight_scale_2 and input_scale float32 per logical matrix; the MoE method
 * the same per expert. compressed-tensors' nvfp4 (w4a4_nvfp4) names them
 * weight_packed, weight_scale, weight_global_scale, input_global_scale. */
#include <stdio.h>
#include <string.h>

#include "model/quants/quants.h"

static int nvfp4_matrix(const vs_quant *q, const vs_quant_matrix *m, vs_quant_engine eng,
                        vs_quant_bytes *out, vs_error *err)
{
    (void)q;
    (void)eng;
    if (m->in % 16)
        return vs_error_set(err, VS_EVALUE,
                            "nvfp4: a %llu-column matrix is not a whole number of 16-value blocks",
                            (unsigned long long)m->in);
    out->values = m->out * m->in / 2;
    out->scales = m->out * (m->in / 16) + 4 + 4;
    out->zeros = out->index = 0;
    return 0;
}

/* `format nvfp4`: fixed bits and blocks */
static int nvfp4_from_format(vs_quant *q, const char *word, uint64_t bits, uint64_t group,
                             uint64_t block, vs_error *err)
{
    (void)bits;
    (void)group;
    if (strcmp(word, "nvfp4"))
        return 1;
    q->scheme = &vs_quant_scheme_nvfp4;
    q->bits = 4;
    return block ? vs_error_set(err, VS_EVALUE, "%s takes no block=", word) : 0;
}

static const char *nvfp4_format_name(const vs_quant *q, char *out, size_t cap)
{
    (void)q;
    snprintf(out, cap, "nvfp4");
    return out;
}

static const char *nvfp4_values_label(const vs_quant *q, char *out, size_t cap)
{
    (void)q;
    snprintf(out, cap, "e2m1 (two a byte)");
    return out;
}

static const vs_vocab_scheme nvfp4_words[] = {
    {"nvfp4", "", 4, "4.5 (an fp8 scale per 16 values, fp32 per tensor)",
     "embeddings, lm_head, norms, MoE routers", "safetensors"},
    {NULL, NULL, 0, NULL, NULL, NULL}};

/* reached through ModelOpt's and compressed-tensors' configs (model/quant_config.c) */
const vs_quant_scheme vs_quant_scheme_nvfp4 = {
    .name = "nvfp4",
    .words = nvfp4_words,
    .linear = 1,
    .experts = 1,
    .from_format = nvfp4_from_format,
    .format_name = nvfp4_format_name,
    .values_label = nvfp4_values_label,
    .scales_label = "fp8 block scales, fp32 global scales",
    .index_label = "",
    .matrix = nvfp4_matrix,
    .source = "vLLM quantization/modelopt.py (weight, weight_scale, weight_scale_2, input_scale)"};
