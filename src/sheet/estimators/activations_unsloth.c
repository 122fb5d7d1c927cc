/* estimate activations framework=unsloth: what a gated decoder layer holds
 * under Unsloth's own autograd Functions and checkpointer, read in
 * unslothai/unsloth at 0050c73 (unsloth/kernels/fast_lora.py LoRA_MLP,
 * LoRA_QKV, LoRA_W; rms_layernorm.py Fast_RMS_Layernorm; rope_embedding.py
 * Fast_RoPE_Embedding; models/llama.py LlamaDecoderLayer_fast_forward) and
 * unslothai/unsloth-zoo at 0373fcc (unsloth_zoo/gradient_checkpointing.py); the
 * same kernels, checkpointer and model preparation as the December 2024 releases
 * on PyPI (unsloth 2024.12.4 and 2024.12.12, unsloth_zoo 2024.12.1 and
 * 2024.12.7), read there too. The rotary tables and, before Cut Cross-Entropy,
 * the loss: read in unsloth 2024.8, 2024.9.post1 and 2024.10.0 on PyPI. */
#include "sheet/estimate.h"

#include <string.h>

#include "sheet/estimators/arith.h"

int vs_estimate_activations_unsloth(vs_act_est *out, const vs_act_shape *s, vs_checkpointing mode,
                                    vs_attention attn, vs_error *err)
{
    const char *w = "the activations";
    uint64_t t = s->length, saved, work, a, b, c, d;
    vs_act_est e;
    int rc;
    if (mode != VS_CKPT_FULL && mode != VS_CKPT_OFFLOAD)
        return vs_error_set(err, VS_EVALUE,
                            "framework=unsloth goes with checkpointing=full or offload (Unsloth "
                            "checkpoints every layer: use_gradient_checkpointing=True or "
                            "\"unsloth\")");
    if (!s->kv_width || !s->intermediate)
        return vs_error_set(err, VS_EVALUE,
                            "framework=unsloth needs a Llama-shaped decoder on the card (its "
                            "kernels are LoRA_QKV, LoRA_W and LoRA_MLP over q/k/v/o and SwiGLU)");
    memset(&e, 0, sizeof e);
    if ((rc = vs_arith_mul(&t, s->microbatch, w, err)))
        return rc;
    /* saved: 12 h + 4 kv + 4 i + 4 heads + 8 bytes a token (estimate.h says which);
     * xformers keeps K and V at every head's width, kv = h */
    a = s->hidden, b = attn == VS_ATTN_XFORMERS ? s->hidden : s->kv_width, c = s->intermediate,
    d = s->heads;
    if ((rc = vs_arith_mul(&a, 12, w, err)) || (rc = vs_arith_mul(&b, 4, w, err)) ||
        (rc = vs_arith_mul(&c, 4, w, err)) || (rc = vs_arith_mul(&d, 4, w, err)) ||
        (rc = vs_arith_add(&a, b, w, err)) || (rc = vs_arith_add(&a, c, w, err)) ||
        (rc = vs_arith_add(&a, d, w, err)) || (rc = vs_arith_add(&a, 8, w, err)))
        return rc;
    saved = t;
    if ((rc = vs_arith_mul(&saved, a, w, err)))
        return rc;
    /* working, at the peak of LoRA_MLP's backward: the output and dY (2 h
     * each), DW = matmul_lora(dY, down^T, ...) (2 i) and, before its in-place
     * add, DW's LoRA term (dY @ B^T) @ (s A^T), a fresh T x i product
     * (kernels/utils.py matmul_lora: out += (X @ A) @ (s * B)), 2 i: 4 h + 4 i
     * a token. What comes after holds less: the SwiGLU backward writes over
     * DW, e and g, and dX over X (out = X), each later LoRA term T x h. */
    a = s->hidden, c = s->intermediate;
    if ((rc = vs_arith_mul(&a, 4, w, err)) || (rc = vs_arith_mul(&c, 4, w, err)) ||
        (rc = vs_arith_add(&a, c, w, err)))
        return rc;
    work = t;
    if ((rc = vs_arith_mul(&work, a, w, err)))
        return rc;
    e.per_layer = saved;
    e.working = work;
    e.recompute = saved;
    if ((rc = vs_arith_add(&e.recompute, work, w, err)))
        return rc;
    if (mode == VS_CKPT_FULL) {
        /* the inputs stay on the GPU, and the top layer's, the first one the
         * backward recomputes, is its first norm's X: counted once, in kept */
        uint64_t input = t;
        if ((rc = vs_arith_mul(&input, s->hidden, w, err)) ||
            (rc = vs_arith_mul(&input, 2, w, err)))
            return rc;
        e.kept = input;
        if ((rc = vs_arith_mul(&e.kept, s->layers, w, err)))
            return rc;
        e.recompute -= input;
    } else {
        /* the embedding's output stays on the GPU: prepare_model_for_kbit_training
         * (models/_utils.py, use_reentrant=True) calls enable_input_require_grads,
         * whose hook makes that output a leaf that requires grad, and the graph's
         * AccumulateGrad for it holds it until the backward ends; the checkpointer
         * offloads a copy. Under full it is the first layer's saved input, in kept. */
        e.kept = t;
        if ((rc = vs_arith_mul(&e.kept, s->hidden, w, err)) ||
            (rc = vs_arith_mul(&e.kept, 2, w, err)))
            return rc;
    }
    e.total = e.kept;
    if ((rc = vs_arith_add(&e.total, e.recompute, w, err)))
        return rc;
    *out = e;
    return 0;
}

/* One table of cos and sin at length (vs_estimate_unsloth_rope). */
static int rope_table(uint64_t *out, uint64_t head_dim, uint64_t context, uint64_t length,
                      int cast16, vs_error *err)
{
    const char *w = "the rotary tables";
    const uint64_t step = 8192, first = 4 * 8192;
    uint64_t built = context && context < first ? context : first, positions, elem;
    int rc;
    if (length <= built) {
        /* as built: float32, torch.get_default_dtype(); cast16: post_patch's
         * module.cos_cached.to(correct_dtype), the model's 16-bit dtype */
        positions = built, elem = cast16 ? 2 : 4;
    } else {
        positions = length / step + (length % step != 0); /* extend_rope_embedding */
        if ((rc = vs_arith_mul(&positions, step, w, err)))
            return rc;
        elem = 2; /* rebuilt in V's dtype */
    }
    *out = positions;
    if ((rc = vs_arith_mul(out, head_dim, w, err)) || (rc = vs_arith_mul(out, 2 * elem, w, err)))
        return rc;
    return 0;
}

int vs_estimate_unsloth_rope(uint64_t *out, uint64_t layers, uint64_t head_dim, uint64_t context,
                             uint64_t length, int per_layer, int cast16, vs_error *err)
{
    uint64_t t, model;
    int rc;
    if (!layers || !head_dim)
        return vs_error_set(err, VS_EVALUE,
                            "framework=unsloth needs the layers and head_dim of the card's model");
    if ((rc = rope_table(&t, head_dim, context, length, cast16, err)))
        return rc;
    if (per_layer) {
        /* each layer's own, and the model's as built */
        if ((rc = rope_table(&model, head_dim, context, 0, cast16, err)) ||
            (rc = vs_arith_mul(&t, layers, "the rotary tables", err)) ||
            (rc = vs_arith_add(&t, model, "the rotary tables", err)))
            return rc;
    }
    *out = t;
    return 0;
}

int vs_estimate_loss_unsloth(vs_unsloth_loss_est *out, uint64_t tokens, uint64_t hidden,
                             uint64_t vocab, int fp32_outputs, vs_error *err)
{
    const char *w = "the loss";
    const uint64_t fused = 65536; /* kernels/cross_entropy_loss.py MAX_FUSED_SIZE */
    vs_unsloth_loss_est e;
    uint64_t tv = tokens, most;
    int rc;
    if (!vocab)
        return vs_error_set(err, VS_EVALUE, "loss=unsloth needs the vocabulary");
    memset(&e, 0, sizeof e);
    e.chunks = vs_arith_ceil_div(vocab, fused);
    if ((rc = vs_arith_mul(&tv, vocab, w, err)))
        return rc;
    e.logits = tv;
    /* one block: the losses and the log-sum-exp, 4 B each; more: the blocks'
     * log-sum-exps and their reduction beside the losses */
    e.forward = tokens;
    e.grad_hidden = tokens;
    if ((rc = vs_arith_mul(&e.logits, 2, w, err)) ||
        (rc = vs_arith_mul(&e.forward, e.chunks == 1 ? 8 : 4 * (e.chunks + 2), w, err)) ||
        (rc = vs_arith_mul(&e.grad_hidden, hidden, w, err)) ||
        (rc = vs_arith_mul(&e.grad_hidden, 2, w, err)))
        return rc;
    if (fp32_outputs) {
        /* the float32 copy beside the 16-bit logits and the saved log-sum-exp;
         * the losses are freed by then (loss.sum() keeps no input) */
        uint64_t lse = tokens;
        e.outputs = tv;
        if ((rc = vs_arith_mul(&e.outputs, 4, w, err)) || (rc = vs_arith_mul(&lse, 4, w, err)) ||
            (rc = vs_arith_add(&e.outputs, lse, w, err)))
            return rc;
    }
    most = e.forward > e.grad_hidden ? e.forward : e.grad_hidden;
    most = e.outputs > most ? e.outputs : most;
    e.total = e.logits;
    if ((rc = vs_arith_add(&e.total, most, w, err)))
        return rc;
    *out = e;
    return 0;
}
