/* estimate quant: quantisation metadata per group (Dettmers et al. 2023,
 * QLoRA; Frantar et al. 2022, GPTQ). */
#include "sheet/estimate.h"

#include <stdio.h>
#include <string.h>

#include "sheet/estimators/arith.h"

const char *const vs_estimate_quant_keys[] = {"scheme", "group", "double", "bits",
                                              "params", "name",  NULL};

const vs_estimator_info vs_estimator_quant = {
    "quant", vs_estimate_quant_keys,
    "estimate quant [scheme=bnb|gptq|group] [group=N] [double=yes|no] [bits=N] [params=N]",
    "quantisation metadata per group (QLoRA, GPTQ)"};

int vs_estimate_quant_group_check(uint64_t group, vs_error *err)
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
    uint64_t groups = vs_arith_ceil_div(params, rule->group), bits1 = groups, total;
    int rc;
    if ((rc = vs_arith_mul(&bits1, rule->meta_bits, "the quantisation metadata", err)))
        return rc;
    total = vs_arith_ceil_div(bits1, 8);
    if (rule->group2) {
        uint64_t g2 = vs_arith_ceil_div(groups, rule->group2), bits2 = g2;
        if ((rc = vs_arith_mul(&bits2, rule->meta2_bits, "the quantisation metadata", err)) ||
            (rc = vs_arith_add(&total, vs_arith_ceil_div(bits2, 8), "the quantisation metadata",
                               err)))
            return rc;
    }
    *out = total;
    return 0;
}
