/* estimate activations: saved activations of a transformer layer
 * (Korthikanti et al. 2022). */
#include "sheet/estimate.h"

#include <stdio.h>
#include <string.h>

#include "sheet/estimators/arith.h"

const char *const vs_estimate_activations_keys[] = {"layers",    "hidden", "heads", "checkpointing",
                                                    "attention", "vocab",  "loss",  "chunks",
                                                    "name",      NULL};

const vs_estimator_info vs_estimator_activations = {
    "activations", vs_estimate_activations_keys,
    "estimate activations [layers=L] [hidden=H] [heads=A] [checkpointing=none|selective|full] "
    "[attention=eager|sdpa|flash] [vocab=V] [loss=full|chunked [chunks=8]]",
    "saved activations per layer (Korthikanti et al. 2022)"};

int vs_checkpointing_parse(vs_checkpointing *out, const char *name, vs_error *err)
{
    if (!name || !strcmp(name, "none"))
        *out = VS_CKPT_NONE;
    else if (!strcmp(name, "selective"))
        *out = VS_CKPT_SELECTIVE;
    else if (!strcmp(name, "full"))
        *out = VS_CKPT_FULL;
    else
        return vs_error_set(err, VS_EVALUE,
                            "checkpointing must be none, selective or full, not '%s'", name);
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
    else
        return vs_error_set(err, VS_EVALUE, "attention must be eager, sdpa or flash, not '%s'",
                            name);
    return 0;
}

const char *vs_attention_name(vs_attention a)
{
    return a == VS_ATTN_SDPA ? "sdpa" : a == VS_ATTN_FLASH ? "flash" : "eager";
}

int vs_estimate_logits(uint64_t *out, uint64_t tokens, uint64_t vocab, uint64_t chunks,
                       vs_error *err)
{
    const char *w = "the logits";
    uint64_t v = tokens;
    int rc;
    if ((rc = vs_arith_mul(&v, vocab, w, err)) || (rc = vs_arith_mul(&v, 4, w, err)))
        return rc;
    if (chunks > 1)
        v = v / chunks + (v % chunks != 0);
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
