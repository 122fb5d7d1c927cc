/* estimate activations loss=liger: what Liger-Kernel's fused linear
 * cross-entropy holds at its peak, read in linkedin/Liger-Kernel at 00eba63
 * (src/liger_kernel/ops/fused_linear_cross_entropy.py,
 * fused_linear_cross_entropy_forward). It runs the output layer and the loss
 * over chunks of tokens in the forward and computes their gradients there, so
 * the logits exist one chunk at a time and nothing of them waits for the
 * backward. */
#include "sheet/estimate.h"

#include <stdint.h>
#include <string.h>

#include "sheet/estimators/arith.h"

int vs_estimate_loss_liger(vs_liger_est *out, uint64_t tokens, uint64_t hidden, uint64_t vocab,
                           unsigned bytes, int head_trained, vs_error *err)
{
    const char *w = "the loss";
    uint64_t inc, rows = 1, want, v;
    vs_liger_est e;
    int rc;
    if (!tokens || !hidden || !vocab || !bytes)
        return vs_error_set(err, VS_EVALUE,
                            "loss=liger needs tokens, a hidden size and a vocabulary above 0");
    memset(&e, 0, sizeof e);
    /* inc_factor = triton.cdiv(V, chunk_mem_const * H), chunk_mem_const 1 by
     * default: the chunk's logits stay near the size of the BT x H input;
     * chunk_size = min(next_power_of_2(cdiv(BT, inc_factor)), BT) */
    inc = vs_arith_ceil_div(vocab, hidden);
    want = vs_arith_ceil_div(tokens, inc);
    while (rows < want && rows <= UINT64_MAX / 2)
        rows <<= 1;
    if (rows > tokens)
        rows = tokens;
    e.chunk_rows = rows;
    e.chunks = vs_arith_ceil_div(tokens, rows);
    /* logits_chunk = _input_chunk @ weight.t() in the input's dtype (no float32
     * upcast: liger_cross_entropy_kernel computes in float32 in registers and
     * writes the gradient over the logits in place, grad_logits_chunk =
     * logits_chunk); one chunk at a time (logits_storage, or a fresh chunk
     * after `del logits_chunk`) */
    e.logits_chunk = rows;
    if ((rc = vs_arith_mul(&e.logits_chunk, vocab, w, err)) ||
        (rc = vs_arith_mul(&e.logits_chunk, bytes, w, err)))
        return rc;
    /* grad_input = torch.zeros_like(_input): BT x H, saved for the backward */
    e.grad_input = tokens;
    if ((rc = vs_arith_mul(&e.grad_input, hidden, w, err)) ||
        (rc = vs_arith_mul(&e.grad_input, bytes, w, err)))
        return rc;
    /* loss_1d float32 a token, and target_mask = target != ignore_index, a
     * bool a token, both alive through the loop */
    e.per_token = tokens;
    if ((rc = vs_arith_mul(&e.per_token, 4 + 1, w, err)))
        return rc;
    /* grad_weight = torch.zeros_like(weight) if weight_needs_grad: V x H in
     * the weight's dtype (accum_dtype=None, the default), None for a frozen
     * output layer */
    if (head_trained) {
        e.grad_weight = vocab;
        if ((rc = vs_arith_mul(&e.grad_weight, hidden, w, err)) ||
            (rc = vs_arith_mul(&e.grad_weight, bytes, w, err)))
            return rc;
    }
    v = e.logits_chunk;
    if ((rc = vs_arith_add(&v, e.grad_input, w, err)) ||
        (rc = vs_arith_add(&v, e.per_token, w, err)) ||
        (rc = vs_arith_add(&v, e.grad_weight, w, err)))
        return rc;
    e.total = v;
    *out = e;
    return 0;
}
