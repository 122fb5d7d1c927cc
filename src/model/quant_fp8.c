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
#include "model/quant_internal.h"

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

const vs_quant_scheme vs_quant_scheme_fp8 = {
    "fp8", 1,
    1,     fp8_matrix,
    NULL,  "vLLM quantization/fp8.py (weight, weight_scale or weight_scale_inv, input_scale)"};
