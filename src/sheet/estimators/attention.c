/* estimate attention: the denoiser's attention over latent tokens — the
 * score matrix eager attention materialises (Vaswani et al. 2017: softmax(QK^T)
 * is tokens x tokens per head); fused scaled-dot-product attention (PyTorch's
 * F.scaled_dot_product_attention, FlashAttention, Dao et al. 2022) never
 * materialises it. */
#include "sheet/estimate.h"

#include "sheet/estimators/arith.h"

const char *const vs_estimate_attention_keys[] = {"heads",     "patch", "downsample", "text_tokens",
                                                  "attention", "cfg",   "dtype",      "factor",
                                                  "temporal",  "name",  NULL};

const vs_estimator_info vs_estimator_attention = {
    "attention", vs_estimate_attention_keys,
    "estimate attention heads=A [patch=1|2] [downsample=1] [text_tokens=0] "
    "[attention=sdpa|eager] [cfg=yes|no] [dtype=bf16]",
    "the denoiser's attention over latent tokens: batch x heads x tokens^2 (eager only)"};

int vs_estimate_latent_tokens(uint64_t *out, uint64_t width, uint64_t height, uint64_t div,
                              uint64_t latent_frames, uint64_t text_tokens, vs_error *err)
{
    const char *w = "the latent tokens";
    uint64_t v;
    int rc;
    if (div == 0)
        return vs_error_set(err, VS_EVALUE, "the latent tokens need a factor of at least 1");
    v = height / div;
    if ((rc = vs_arith_mul(&v, width / div, w, err)) ||
        (rc = vs_arith_mul(&v, latent_frames, w, err)) ||
        (rc = vs_arith_add(&v, text_tokens, w, err)))
        return rc;
    *out = v;
    return 0;
}

int vs_estimate_attention_scores(uint64_t *out, uint64_t batch, uint64_t heads, uint64_t tokens,
                                 unsigned bits, vs_error *err)
{
    const char *w = "the attention scores";
    uint64_t v = batch;
    int rc;
    if ((rc = vs_arith_mul(&v, heads, w, err)) || (rc = vs_arith_mul(&v, tokens, w, err)) ||
        (rc = vs_arith_mul(&v, tokens, w, err)) || (rc = vs_arith_mul(&v, bits, w, err)))
        return rc;
    *out = vs_arith_ceil_div(v, 8);
    return 0;
}
