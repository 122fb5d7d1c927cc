/* estimate activations: saved activations of a transformer layer
 * (Korthikanti et al. 2022). */
#include "sheet/estimate.h"

#include <stdio.h>
#include <string.h>

#include "sheet/estimators/arith.h"

const char *const vs_estimate_activations_keys[] = {
    "layers",    "hidden", "heads", "checkpointing", "attention", "vocab",   "loss", "chunks",
    "framework", "head",   "name",  "rope",          "rope_cast", "outputs", "cce",  NULL};

const vs_estimator_info vs_estimator_activations = {
    "activations", vs_estimate_activations_keys,
    "estimate activations [layers=L] [hidden=H] [heads=A] "
    "[checkpointing=none|selective|full|offload] "
    "[attention=eager|sdpa|flash|xformers] [vocab=V] "
    "[loss=full|chunked [chunks=8]|cce [cce=25.1|24.12] [head=trained|frozen]|liger "
    "[head=trained|frozen]|unsloth [outputs=fp32|native]] "
    "[framework=pytorch|unsloth [rope=shared|layers] [rope_cast=16bit]]",
    "saved activations per layer (Korthikanti et al. 2022)"};

int vs_checkpointing_parse(vs_checkpointing *out, const char *name, vs_error *err)
{
    if (!name || !strcmp(name, "none"))
        *out = VS_CKPT_NONE;
    else if (!strcmp(name, "selective"))
        *out = VS_CKPT_SELECTIVE;
    else if (!strcmp(name, "full"))
        *out = VS_CKPT_FULL;
    else if (!strcmp(name, "offload"))
        *out = VS_CKPT_OFFLOAD;
    else
        return vs_error_set(err, VS_EVALUE,
                            "checkpointing must be none, selective, full or offload, not '%s'",
                            name);
    return 0;
}

int vs_attention_parse(vs_attention *out, const char *name, vs_error *err)
{
    if (!strcmp(name, "eager"))
        *out = VS_ATTN_EAGER;
    else if (!strcmp(name, "sdpa"))
        *out = VS_ATTN_SDPA;
    else if (!strcmp(name, "flash"))
        *out = VS_ATTN_FLASH;
    else if (!strcmp(name, "xformers"))
        *out = VS_ATTN_XFORMERS;
    else
        return vs_error_set(err, VS_EVALUE,
                            "attention must be eager, sdpa, flash or xformers, not '%s'", name);
    return 0;
}

const char *vs_attention_name(vs_attention a)
{
    return a == VS_ATTN_SDPA       ? "sdpa"
           : a == VS_ATTN_FLASH    ? "flash"
           : a == VS_ATTN_XFORMERS ? "xformers"
                                   : "eager";
}

int vs_estimate_logits(uint64_t *out, uint64_t tokens, uint64_t vocab, uint64_t chunks,
                       vs_error *err)
{
    const char *w = "the logits";
    uint64_t tv = tokens, v;
    int rc;
    if ((rc = vs_arith_mul(&tv, vocab, w, err)))
        return rc;
    v = tv;
    if (chunks > 1) {
        /* the 16-bit logits of every chunk wait for the backward; the float32
         * upcast and its gradient live inside one chunk's loss at a time, which
         * hands the output layer a 16-bit gradient of its chunk */
        uint64_t one = tv;
        if ((rc = vs_arith_mul(&v, 2, w, err)) || (rc = vs_arith_mul(&one, 2, w, err)))
            return rc;
        if ((rc = vs_arith_add(&v, vs_arith_ceil_div(one, chunks), w, err)))
            return rc;
    } else if ((rc = vs_arith_mul(&v, 10, w, err))) {
        /* float32 logits 4 B + their gradient 4 B + the 16-bit gradient 2 B */
        return rc;
    }
    *out = v;
    return 0;
}

int vs_estimate_loss_cce(uint64_t *out, uint64_t tokens, uint64_t hidden, uint64_t vocab,
                         int classifier_grad, vs_error *err)
{
    const char *w = "the loss";
    uint64_t per = hidden, v = tokens, dc = vocab;
    int rc;
    /* cut_cross_entropy 24.11.4 to 25.1.1 on PyPI: the forward's lse, float32
     * (cce_lse_forward.py), the shifted labels' flat indices, valids, int64
     * (utils.py _build_flat_valids: nonzero().to(int32) summed over the batch
     * and position columns, which sum promotes to int64; Unsloth passes
     * shift=True), both saved; the backward's de = torch.zeros_like(e)
     * (cce_backward.py) in the 16-bit dtype of e, and dc = torch.zeros_like(c),
     * vocab x hidden x 2 B, which 24.11.4 to 24.12.3 allocate whether or not
     * the classifier requires grad and 25.1.1 only when it does */
    if ((rc = vs_arith_mul(&per, 2, w, err)) || (rc = vs_arith_add(&per, 4 + 8, w, err)) ||
        (rc = vs_arith_mul(&v, per, w, err)))
        return rc;
    if (classifier_grad &&
        ((rc = vs_arith_mul(&dc, hidden, w, err)) || (rc = vs_arith_mul(&dc, 2, w, err)) ||
         (rc = vs_arith_add(&v, dc, w, err))))
        return rc;
    *out = v;
    return 0;
}

const char *vs_checkpointing_name(vs_checkpointing mode)
{
    switch (mode) {
    case VS_CKPT_SELECTIVE:
        return "selective";
    case VS_CKPT_FULL:
        return "full";
    case VS_CKPT_OFFLOAD:
        return "offload";
    default:
        return "none";
    }
}

int vs_estimate_activations(uint64_t *out, uint64_t layers, uint64_t hidden, uint64_t heads,
                            uint64_t length, uint64_t microbatch, vs_checkpointing mode,
                            vs_error *err)
{
    const char *w = "the activations";
    uint64_t sbh = length, per_layer;
    int rc;
    if ((rc = vs_arith_mul(&sbh, microbatch, w, err)) || (rc = vs_arith_mul(&sbh, hidden, w, err)))
        return rc;
    if (mode == VS_CKPT_FULL) {
        per_layer = sbh;
        if ((rc = vs_arith_mul(&per_layer, 2, w, err)))
            return rc;
    } else {
        per_layer = sbh;
        if ((rc = vs_arith_mul(&per_layer, 34, w, err)))
            return rc;
        if (mode == VS_CKPT_NONE) {
            /* s*b*h * 5*a*s/h == 5*a*s*s*b: the h cancels, so the attention term
             * is an exact integer and needs no rounding at all. */
            uint64_t attn = 5;
            if ((rc = vs_arith_mul(&attn, heads, w, err)) ||
                (rc = vs_arith_mul(&attn, length, w, err)) ||
                (rc = vs_arith_mul(&attn, length, w, err)) ||
                (rc = vs_arith_mul(&attn, microbatch, w, err)) ||
                (rc = vs_arith_add(&per_layer, attn, w, err)))
                return rc;
        }
    }
    if ((rc = vs_arith_mul(&per_layer, layers, w, err)))
        return rc;
    *out = per_layer;
    return 0;
}

int vs_estimate_activations_layers(vs_act_est *out, const vs_act_shape *s, vs_checkpointing mode,
                                   vs_attention attn, vs_error *err)
{
    const char *w = "the activations";
    uint64_t t = s->length, per, scores = 0, width, input;
    int gated = s->kv_width && s->intermediate, rc;
    vs_act_est e;
    memset(&e, 0, sizeof e);
    if ((rc = vs_arith_mul(&t, s->microbatch, w, err)))
        return rc;
    if (gated) {
        /* bytes per token of 16-bit tensors autograd saves in a Llama layer:
         * attention norm in and out 2h + 2h, q 2h, k and v 2 kv each, the
         * attention output 2h (o_proj's input); MLP norm in and out 2h + 2h;
         * gate and up 2i each (silu's and the product's inputs), silu(gate) 2i
         * and the product 2i (down's input) */
        uint64_t a = s->hidden, b = s->kv_width, c = s->intermediate;
        if ((rc = vs_arith_mul(&a, 12, w, err)) || (rc = vs_arith_mul(&b, 4, w, err)) ||
            (rc = vs_arith_mul(&c, 8, w, err)) || (rc = vs_arith_add(&a, b, w, err)) ||
            (rc = vs_arith_add(&a, c, w, err)))
            return rc;
        width = a;
    } else {
        width = s->hidden;
        if ((rc = vs_arith_mul(&width, 34, w, err)))
            return rc;
    }
    per = t;
    if ((rc = vs_arith_mul(&per, width, w, err)))
        return rc;
    if (attn == VS_ATTN_EAGER) {
        /* the a x s x s scores and their softmax, 2 B each (and Korthikanti's
         * 1-byte dropout mask where the layer has dropout) */
        scores = gated ? 4 : 5;
        if ((rc = vs_arith_mul(&scores, s->heads, w, err)) ||
            (rc = vs_arith_mul(&scores, s->length, w, err)) ||
            (rc = vs_arith_mul(&scores, s->length, w, err)) ||
            (rc = vs_arith_mul(&scores, s->microbatch, w, err)))
            return rc;
    }
    if ((rc = vs_arith_add(&per, scores, w, err)))
        return rc;
    e.per_layer = per;
    input = t;
    if ((rc = vs_arith_mul(&input, s->hidden, w, err)) || (rc = vs_arith_mul(&input, 2, w, err)))
        return rc;
    switch (mode) {
    case VS_CKPT_NONE:
        e.kept = per;
        break;
    case VS_CKPT_SELECTIVE:
        e.kept = per - scores;
        break;
    case VS_CKPT_FULL:
        e.kept = input;
        e.recompute = per;
        break;
    case VS_CKPT_OFFLOAD:
        e.kept = 0;
        e.recompute = per;
        break;
    }
    if ((rc = vs_arith_mul(&e.kept, s->layers, w, err)))
        return rc;
    e.total = e.kept;
    if ((rc = vs_arith_add(&e.total, e.recompute, w, err)))
        return rc;
    *out = e;
    return 0;
}
