/* MXFP4 (OCP microscaling): two e2m1 values per byte and an e8m0 scale (one
 * byte) per 32 values: 4.25 bits per weight.
 *
 * The gpt-oss checkpoints (quantization_config quant_method mxfp4) store the
 * experts so: *_blocks uint8 [experts, out, in / 32, 16] and *_scales uint8
 * [experts, out, in / 32]; everything else, attention included, is bf16
 * (modules_to_not_convert). vLLM applies MXFP4 to the fused MoE only: its
 * Mxfp4Config gives Linear layers UnquantizedLinearMethod
 * (vllm/model_executor/layers/quantization/mxfp4.py at 007d50058a06). On the
 * Triton backend (Hopper's default) Mxfp4MoEMethod pads the intermediate size
 * to a multiple of 64 (a no-op for 2,880), turns the expert biases into
 * float32 and swizzles weights and scales into new tensors
 * (process_weights_after_loading, _swizzle_mxfp4): the weights' old tensors
 * are deleted, the scales' are not, so the scales are held twice. On the
 * Marlin backend (below SM90, or VLLM_MXFP4_USE_MARLIN=1) create_weights pads
 * each expert for the kernel's n % 256 and k % 128: the intermediate size to a
 * multiple of 128 and the hidden size to one of 256, weights, scales and bf16
 * biases alike; prepare_moe_fp4_layer_for_marlin repacks them into tensors of
 * the same sizes and frees the old ones (no copy held twice). */
#include <stdio.h>
#include <string.h>

#include "model/quants/quants.h"

static uint64_t pad64(uint64_t v, uint64_t inter)
{
    /* the intermediate dimension (or gate and up fused: twice it) only */
    if (inter && (v == inter || v == 2 * inter)) {
        uint64_t per = v == inter ? 1 : 2;
        return (inter + 63) / 64 * 64 * per;
    }
    return v;
}

static uint64_t round_up(uint64_t v, uint64_t to)
{
    return (v + to - 1) / to * to;
}

/* Marlin's padded expert: gate_up [2 I, H] (its out twice the intermediate)
 * or down [H, I], each padded (H to 256, I to 128); the padding's bytes, the
 * bf16 bias of the padded rows with them. */
static uint64_t marlin_pad(const vs_quant_matrix *m)
{
    uint64_t o = m->out, i = m->in, po, pi;
    if (m->moe_intermediate && o == 2 * m->moe_intermediate) {
        po = 2 * round_up(m->moe_intermediate, 128);
        pi = round_up(i, 256);
    } else {
        po = round_up(o, 256);
        pi = round_up(i, 128);
    }
    return (po * pi / 2 + po * (pi / 32) + po * 2) - (o * i / 2 + o * (i / 32) + o * 2);
}

static int mxfp4_matrix(const vs_quant *q, const vs_quant_matrix *m, vs_quant_engine eng,
                        vs_quant_bytes *out, vs_error *err)
{
    uint64_t o = m->out, i = m->in;
    (void)q;
    if (eng == VS_QUANT_ENGINE_VLLM_MARLIN && m->fused_experts) {
        if (i % 32)
            return vs_error_set(err, VS_EVALUE,
                                "mxfp4: a %llu-column matrix is not a whole number of 32-value "
                                "blocks",
                                (unsigned long long)i);
        out->values = o * i / 2;
        out->scales = o * (i / 32);
        out->zeros = out->index = 0;
        out->pad = marlin_pad(m);
        return 0;
    }
    if (eng == VS_QUANT_ENGINE_VLLM) {
        o = pad64(o, m->moe_intermediate);
        i = pad64(i, m->moe_intermediate);
    }
    if (i % 32)
        return vs_error_set(err, VS_EVALUE,
                            "mxfp4: a %llu-column matrix is not a whole number of 32-value blocks",
                            (unsigned long long)i);
    out->values = o * i / 2;
    out->scales = o * (i / 32) * (eng == VS_QUANT_ENGINE_VLLM ? 2 : 1);
    out->zeros = out->index = 0;
    return 0;
}

static unsigned mxfp4_kept(const vs_quant *q, const char *name, vs_quant_engine eng)
{
    (void)q;
    if (eng == VS_QUANT_ENGINE_VLLM && strstr(name, ".experts.") && strstr(name, "_bias"))
        return 4;
    return 0;
}

/* `format mxfp4`: fixed bits and blocks */
static int mxfp4_from_format(vs_quant *q, const char *word, uint64_t bits, uint64_t group,
                             uint64_t block, vs_error *err)
{
    (void)bits;
    (void)group;
    if (strcmp(word, "mxfp4"))
        return 1;
    q->scheme = &vs_quant_scheme_mxfp4;
    q->bits = 4;
    return block ? vs_error_set(err, VS_EVALUE, "%s takes no block=", word) : 0;
}

/* Mxfp4Config: nothing to read beyond modules_to_not_convert */
static int mxfp4_from_config(vs_quant *q, const char *m, const json_t *qc, vs_error *err)
{
    (void)m;
    (void)qc;
    (void)err;
    q->scheme = &vs_quant_scheme_mxfp4;
    q->bits = 4;
    return 0;
}

static const char *mxfp4_layout_note(vs_quant_engine eng)
{
    return eng == VS_QUANT_ENGINE_VLLM          ? ", as vLLM's MXFP4 Triton MoE lays it out"
           : eng == VS_QUANT_ENGINE_VLLM_MARLIN ? ", as vLLM's MXFP4 Marlin MoE lays it out"
                                                : NULL;
}

static const char *mxfp4_format_name(const vs_quant *q, char *out, size_t cap)
{
    (void)q;
    snprintf(out, cap, "mxfp4");
    return out;
}

static const char *mxfp4_values_label(const vs_quant *q, char *out, size_t cap)
{
    (void)q;
    snprintf(out, cap, "e2m1 (two a byte)");
    return out;
}

static const vs_vocab_scheme mxfp4_words[] = {
    {"mxfp4", "", 4, "4.25 (an e8m0 scale per 32 values)",
     "every Linear layer: vLLM applies it to MoE experts only", "safetensors"},
    {NULL, NULL, 0, NULL, NULL, NULL}};
static const char *const mxfp4_methods[] = {"mxfp4", NULL};

/* vLLM's Mxfp4Config quantises no Linear layer: only the experts */
const vs_quant_scheme vs_quant_scheme_mxfp4 = {
    .name = "mxfp4",
    .words = mxfp4_words,
    .methods = mxfp4_methods,
    .linear = 0,
    .experts = 1,
    .from_format = mxfp4_from_format,
    .from_config = mxfp4_from_config,
    .format_name = mxfp4_format_name,
    .values_label = mxfp4_values_label,
    .scales_label = "e8m0 scales",
    .index_label = "",
    .layout_note = mxfp4_layout_note,
    .matrix = mxfp4_matrix,
    .kept_bytes = mxfp4_kept,
    .source = "vLLM quantization/mxfp4.py at 007d50058a06 (Mxfp4MoEMethod); the gpt-oss "
              "checkpoints' _blocks and _scales"};
