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
#include "model/quant_internal.h"

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

const vs_quant_scheme vs_quant_scheme_gptq = {
    "gptq", 1, 1, gptq_matrix, NULL, "vLLM quantization/gptq.py (qweight, qzeros, scales, g_idx)"};
const vs_quant_scheme vs_quant_scheme_awq = {
    "awq", 1, 1, awq_matrix, NULL, "vLLM quantization/awq.py (qweight, qzeros, scales)"};
