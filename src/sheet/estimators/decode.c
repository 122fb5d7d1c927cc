/* estimate decode: the VAE decoder's working memory at the card's resolution
 * and frames — the phase where many generation runs overflow. */
#include "sheet/estimate.h"

#include "sheet/estimators/arith.h"

const char *const vs_estimate_decode_keys[] = {"rule",     "blocks", "layers",    "attention",
                                               "channels", "live",   "tile",      "slicing",
                                               "dtype",    "name",   "workspace", NULL};

const vs_estimator_info vs_estimator_decode = {
    "decode", vs_estimate_decode_keys,
    "estimate decode [dtype=bf16] [rule=split|diffusers|invokeai] [blocks=128,256,512,512] "
    "[layers=2] [attention=sdpa|eager] [workspace=4] [tile=N] [slicing=yes|no]",
    "the VAE decode in two parts (rule=split, the default): the AutoencoderKL decoder's "
    "tensors at its peak step with cuDNN's convolution workspace fitted to published decodes "
    "(workspace=4), and beside them vae_decode_cache, the allocator's reserved-but-free "
    "memory, InvokeAI's reserved constant less those tensors; rule=diffusers the tensors "
    "alone (a lower bound), rule=invokeai the constant alone"};

int vs_estimate_decode(uint64_t *out, uint64_t batch, uint64_t frames, uint64_t width,
                       uint64_t height, unsigned bits, uint64_t per_pixel, vs_error *err)
{
    const char *w = "the VAE decode";
    uint64_t v = batch;
    int rc;
    if ((rc = vs_arith_mul(&v, frames ? frames : 1, w, err)) ||
        (rc = vs_arith_mul(&v, height, w, err)) || (rc = vs_arith_mul(&v, width, w, err)) ||
        (rc = vs_arith_mul(&v, per_pixel, w, err)) || (rc = vs_arith_mul(&v, bits, w, err)))
        return rc;
    *out = vs_arith_ceil_div(v, 8);
    return 0;
}
