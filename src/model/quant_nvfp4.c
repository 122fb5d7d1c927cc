/* NVFP4: two e2m1 values per byte, an fp8 (e4m3) scale per 16 values, a
 * float32 global scale per tensor (weight_scale_2) and a float32 input scale.
 *
 * vLLM vllm/model_executor/layers/quantization/modelopt.py
 * (ModelOptNvFp4LinearMethod.create_weights): weight uint8 [out, in / 2],
 * weight_scale float8_e4m3fn [out, in / group_size] (group_size 16),
 * weight_scale_2 and input_scale float32 per logical matrix; the MoE method
 * the same per expert. compressed-tensors' nvfp4 (w4a4_nvfp4) names them
 * weight_packed, weight_scale, weight_global_scale, input_global_scale. */
#include "model/quant_internal.h"

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

const vs_quant_scheme vs_quant_scheme_nvfp4 = {
    "nvfp4", 1,
    1,       nvfp4_matrix,
    NULL,    "vLLM quantization/modelopt.py (weight, weight_scale, weight_scale_2, input_scale)"};
