#include "sheet/estimate.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static int mul(uint64_t *acc, uint64_t x, const char *what, vs_error *err)
{
    if (__builtin_mul_overflow(*acc, x, acc))
        return vs_error_set(err, VS_EUNIT, "%s does not fit in 64-bit bytes", what);
    return 0;
}

static int add(uint64_t *acc, uint64_t x, const char *what, vs_error *err)
{
    if (__builtin_add_overflow(*acc, x, acc))
        return vs_error_set(err, VS_EUNIT, "%s does not fit in 64-bit bytes", what);
    return 0;
}

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return a / b + (a % b != 0);
}

static const struct {
    const char *name;
    unsigned bits;
} dtype_table[] = {{"fp32", 32},     {"float32", 32}, {"fp16", 16}, {"float16", 16}, {"bf16", 16},
                   {"bfloat16", 16}, {"fp8", 8},      {"e4m3", 8},  {"e5m2", 8},     {"fp8_e4m3", 8},
                   {"fp8_e5m2", 8},  {"int8", 8},     {"int4", 4},  {"nf4", 4},      {"fp4", 4}};

unsigned vs_dtype_bits(const char *dtype)
{
    size_t i;
    if (!dtype)
        return 0;
    for (i = 0; i < sizeof dtype_table / sizeof dtype_table[0]; i++)
        if (!strcasecmp(dtype, dtype_table[i].name))
            return dtype_table[i].bits;
    return 0;
}

const char *vs_dtype_names(void)
{
    /* every name of dtype_table, in its order */
    return "fp32, float32, fp16, float16, bf16, bfloat16, fp8, e4m3, e5m2, fp8_e4m3, fp8_e5m2, "
           "int8, int4, nf4 or fp4";
}

int vs_estimate_kv(uint64_t *out, uint64_t layers, uint64_t kv_heads, uint64_t head_dim,
                   unsigned bits, uint64_t length, uint64_t concurrency, vs_error *err)
{
    uint64_t v = 2;
    int rc;
    if (bits == 0)
        return vs_error_set(err, VS_EVALUE, "the cache dtype has no known width");
    /* Multiply by the bits last and divide by 8 once: an int4 cache of an odd
     * count still rounds up to a whole byte, and nothing is lost before. */
    if ((rc = mul(&v, layers, "the KV cache", err)) ||
        (rc = mul(&v, kv_heads, "the KV cache", err)) ||
        (rc = mul(&v, head_dim, "the KV cache", err)) ||
        (rc = mul(&v, length, "the KV cache", err)) ||
        (rc = mul(&v, concurrency, "the KV cache", err)))
        return rc;
    if (bits % 8 == 0) {
        if ((rc = mul(&v, bits / 8, "the KV cache", err)))
            return rc;
    } else {
        if ((rc = mul(&v, bits, "the KV cache", err)))
            return rc;
        v = ceil_div(v, 8);
    }
    *out = v;
    return 0;
}

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
    if ((rc = mul(&sbh, microbatch, w, err)) || (rc = mul(&sbh, hidden, w, err)))
        return rc;
    if (mode == VS_CKPT_FULL) {
        per_layer = sbh;
        if ((rc = mul(&per_layer, 2, w, err)))
            return rc;
    } else {
        per_layer = sbh;
        if ((rc = mul(&per_layer, 34, w, err)))
            return rc;
        if (mode == VS_CKPT_NONE) {
            /* s*b*h * 5*a*s/h == 5*a*s*s*b: the h cancels, so the attention term
             * is an exact integer and needs no rounding at all. */
            uint64_t attn = 5;
            if ((rc = mul(&attn, heads, w, err)) || (rc = mul(&attn, length, w, err)) ||
                (rc = mul(&attn, length, w, err)) || (rc = mul(&attn, microbatch, w, err)) ||
                (rc = add(&per_layer, attn, w, err)))
                return rc;
        }
    }
    if ((rc = mul(&per_layer, layers, w, err)))
        return rc;
    *out = per_layer;
    return 0;
}

int vs_training_rule_get(vs_training_rule *out, const char *optimizer, const char *precision,
                         vs_error *err)
{
    enum { ADAMW, SGD, ADAMW8 } opt;
    if (!optimizer)
        optimizer = "adamw";
    if (!precision)
        precision = "mixed";
    if (!strcmp(optimizer, "adamw") || !strcmp(optimizer, "adam"))
        opt = ADAMW;
    else if (!strcmp(optimizer, "sgd"))
        opt = SGD;
    else if (!strcmp(optimizer, "adamw8bit") || !strcmp(optimizer, "paged_adamw8bit"))
        opt = ADAMW8;
    else
        return vs_error_set(err, VS_EVALUE,
                            "optimizer must be adamw, adam, sgd, adamw8bit or paged_adamw8bit, "
                            "not '%s'",
                            optimizer);
    memset(out, 0, sizeof *out);
    out->optimizer = opt == ADAMW ? "adamw" : opt == SGD ? "sgd" : "adamw8bit";
    if (!strcmp(precision, "mixed")) {
        out->precision = "mixed";
        out->gradient_bytes = 2;
        out->master_bytes = 4;
        out->state_bytes = opt == ADAMW ? 8 : opt == SGD ? 4 : 2;
        out->why = opt == ADAMW ? "16-bit gradients 2 B, fp32 master copy 4 B, two fp32 moments 8 B"
                   : opt == SGD
                       ? "16-bit gradients 2 B, fp32 master copy 4 B, one fp32 momentum 4 B"
                       : "16-bit gradients 2 B, fp32 master copy 4 B, two 8-bit moments 2 B";
    } else if (!strcmp(precision, "fp32")) {
        out->precision = "fp32";
        out->gradient_bytes = 4;
        out->master_bytes = 0;
        out->state_bytes = opt == ADAMW ? 8 : opt == SGD ? 4 : 2;
        out->why = opt == ADAMW ? "fp32 gradients 4 B, no master copy, two fp32 moments 8 B"
                   : opt == SGD ? "fp32 gradients 4 B, no master copy, one fp32 momentum 4 B"
                                : "fp32 gradients 4 B, no master copy, two 8-bit moments 2 B";
    } else if (!strcmp(precision, "bf16")) {
        out->precision = "bf16";
        out->gradient_bytes = 2;
        out->master_bytes = 0;
        out->state_bytes = opt == ADAMW ? 4 : 2;
        out->why = opt == ADAMW ? "bf16 gradients 2 B, no master copy, two bf16 moments 4 B"
                   : opt == SGD ? "bf16 gradients 2 B, no master copy, one bf16 momentum 2 B"
                                : "bf16 gradients 2 B, no master copy, two 8-bit moments 2 B";
    } else {
        return vs_error_set(err, VS_EVALUE, "precision must be mixed, fp32 or bf16, not '%s'",
                            precision);
    }
    return 0;
}

int vs_estimate_training(vs_training_est *out, const vs_training_rule *rule, uint64_t trainable,
                         vs_error *err)
{
    vs_training_est e;
    int rc;
    e.gradients = e.master_copy = e.optimizer_state = trainable;
    if ((rc = mul(&e.gradients, rule->gradient_bytes, "the gradients", err)) ||
        (rc = mul(&e.master_copy, rule->master_bytes, "the master copy", err)) ||
        (rc = mul(&e.optimizer_state, rule->state_bytes, "the optimizer state", err)))
        return rc;
    *out = e;
    return 0;
}

int vs_quant_group_check(uint64_t group, vs_error *err)
{
    if (group == 0)
        return vs_error_set(err, VS_EVALUE,
                            "group= must be at least 1 (values per group); leave it out for the "
                            "scheme's default (bnb 64, gptq 128)");
    return 0;
}

int vs_quant_rule_get(vs_quant_rule *out, const char *scheme, uint64_t group, int dq, unsigned bits,
                      unsigned scale_bits, vs_error *err)
{
    memset(out, 0, sizeof *out);
    if (!scheme)
        return vs_error_set(err, VS_EVALUE, "scheme must be bnb, gptq or group");
    if (!strcmp(scheme, "bnb")) {
        out->scheme = "bnb";
        out->group = group ? group : 64;
        if (dq) {
            out->meta_bits = 8;
            out->group2 = 256;
            out->meta2_bits = 32;
            snprintf(out->source, sizeof out->source,
                     "bitsandbytes 4-bit (nf4/fp4) with double quantisation: an 8-bit absmax per "
                     "block of %llu and an fp32 constant per 256 blocks (Dettmers et al. 2023, "
                     "QLoRA, section 3: 0.127 bits per parameter with the default blocks of 64)",
                     (unsigned long long)out->group);
        } else {
            out->meta_bits = 32;
            snprintf(out->source, sizeof out->source,
                     "bitsandbytes 4-bit (nf4/fp4): an fp32 absmax per block of %llu (Dettmers et "
                     "al. 2023, QLoRA, section 3: 0.5 bits per parameter with the default blocks "
                     "of 64)",
                     (unsigned long long)out->group);
        }
    } else if (!strcmp(scheme, "gptq")) {
        if (bits == 0)
            bits = 4;
        if (bits > 8)
            return vs_error_set(err, VS_EVALUE, "gptq bits must be 2 to 8, not %u", bits);
        out->scheme = "gptq";
        out->group = group ? group : 128;
        out->meta_bits = 16 + bits;
        snprintf(out->source, sizeof out->source,
                 "GPTQ (Frantar et al. 2022) as packed by AutoGPTQ: an fp16 scale and a packed "
                 "zero point per group of %llu input rows (128 by default) and output column",
                 (unsigned long long)out->group);
    } else if (!strcmp(scheme, "group")) {
        if (group == 0)
            return vs_error_set(err, VS_EVALUE, "scheme=group needs group=N (N >= 1)");
        out->scheme = "group";
        out->group = group;
        out->meta_bits = scale_bits ? scale_bits : 16;
        snprintf(out->source, sizeof out->source,
                 "one %u-bit scale per group of %llu values (generic group-wise quantisation)",
                 out->meta_bits, (unsigned long long)out->group);
    } else {
        return vs_error_set(err, VS_EVALUE, "scheme must be bnb, gptq or group, not '%s'", scheme);
    }
    return 0;
}

int vs_estimate_quant(uint64_t *out, const vs_quant_rule *rule, uint64_t params, vs_error *err)
{
    uint64_t groups = ceil_div(params, rule->group), bits1 = groups, total;
    int rc;
    if ((rc = mul(&bits1, rule->meta_bits, "the quantisation metadata", err)))
        return rc;
    total = ceil_div(bits1, 8);
    if (rule->group2) {
        uint64_t g2 = ceil_div(groups, rule->group2), bits2 = g2;
        if ((rc = mul(&bits2, rule->meta2_bits, "the quantisation metadata", err)) ||
            (rc = add(&total, ceil_div(bits2, 8), "the quantisation metadata", err)))
            return rc;
    }
    *out = total;
    return 0;
}
