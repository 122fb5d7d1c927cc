/* estimate latents: the denoising loop's latents at the card's resolution
 * (diffusers' prepare_latents). */
#include "sheet/estimate.h"

#include "sheet/estimators/arith.h"

const char *const vs_estimate_latents_keys[] = {"channels", "factor", "temporal",
                                                "dtype",    "name",   NULL};

const vs_estimator_info vs_estimator_latents = {
    "latents", vs_estimate_latents_keys,
    "estimate latents channels=C [factor=8] [temporal=4] [dtype=bf16]",
    "latents: batch x channels x (H/8) x (W/8) [x latent frames] (diffusers prepare_latents)"};

uint64_t vs_estimate_latent_frames(uint64_t frames, uint64_t temporal)
{
    if (frames <= 1)
        return 1;
    if (temporal <= 1)
        return frames;
    return (frames - 1) / temporal + 1;
}

int vs_estimate_latents(uint64_t *out, uint64_t batch, uint64_t channels, uint64_t width,
                        uint64_t height, uint64_t factor, uint64_t latent_frames, unsigned bits,
                        vs_error *err)
{
    const char *w = "the latents";
    uint64_t v = batch;
    int rc;
    if (factor == 0 || bits == 0)
        return vs_error_set(err, VS_EVALUE, "the latents need a factor and a dtype");
    if ((rc = vs_arith_mul(&v, channels, w, err)) ||
        (rc = vs_arith_mul(&v, height / factor, w, err)) ||
        (rc = vs_arith_mul(&v, width / factor, w, err)) ||
        (rc = vs_arith_mul(&v, latent_frames, w, err)) || (rc = vs_arith_mul(&v, bits, w, err)))
        return rc;
    *out = vs_arith_ceil_div(v, 8);
    return 0;
}
