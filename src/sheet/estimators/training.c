/* estimate training: bytes per trainable parameter of an optimizer under a
 * precision policy (Rajbhandari et al. 2020, ZeRO). */
#include "sheet/estimate.h"

#include <stdio.h>
#include <string.h>

#include "sheet/estimators/arith.h"

const char *const vs_estimate_training_keys[] = {
    "optimizer", "precision", "trainable",   "component", "rank",
    "targets",   "alpha",     "in_backward", "torch",     NULL};

const vs_estimator_info vs_estimator_training = {
    "training", vs_estimate_training_keys,
    "estimate training [lora rank=R [targets=all-linear|q,k,v,o,gate,up,down] [alpha=A]] "
    "[optimizer=adamw|sgd|adamw8bit|paged_adamw8bit|paged_adamw] [precision=mixed] [trainable=N] "
    "[component=NAME] [in_backward=yes] [torch=2.5|2.6|2.15]",
    "gradients, master copy and optimizer state per trainable parameter (ZeRO)"};

int vs_training_rule_get(vs_training_rule *out, const char *optimizer, const char *precision,
                         vs_error *err)
{
    enum { ADAMW, SGD, ADAMW8 } opt;
    int paged = 0;
    if (!optimizer)
        optimizer = "adamw";
    if (!precision)
        precision = "mixed";
    if (!strcmp(optimizer, "adamw") || !strcmp(optimizer, "adam"))
        opt = ADAMW;
    else if (!strcmp(optimizer, "sgd"))
        opt = SGD;
    else if (!strcmp(optimizer, "adamw8bit"))
        opt = ADAMW8;
    else if (!strcmp(optimizer, "paged_adamw8bit") || !strcmp(optimizer, "paged_adamw_8bit"))
        opt = ADAMW8, paged = 1;
    else if (!strcmp(optimizer, "paged_adamw") || !strcmp(optimizer, "paged_adamw32bit") ||
             !strcmp(optimizer, "paged_adamw_32bit"))
        opt = ADAMW, paged = 1;
    else
        return vs_error_set(err, VS_EVALUE,
                            "optimizer must be adamw, adam, sgd, adamw8bit, paged_adamw8bit or "
                            "paged_adamw, not '%s'",
                            optimizer);
    memset(out, 0, sizeof *out);
    out->optimizer = opt == ADAMW ? (paged ? "paged_adamw" : "adamw")
                     : opt == SGD ? "sgd"
                     : paged      ? "paged_adamw8bit"
                                  : "adamw8bit";
    /* bitsandbytes' paged optimizers (PagedAdamW, PagedAdamW8bit: is_paged=True)
     * take each moment of a parameter of 100,000 values or more from
     * Optimizer8bit.get_state_buffer -> F.get_paged, whose buffer is
     * lib.cget_managed_ptr: cudaMallocManaged (bitsandbytes/optim/optimizer.py,
     * bitsandbytes/functional.py at 06029dd). The caching allocator neither
     * makes nor counts it, and the driver may page it out to host memory; the
     * 8-bit moments' absmax are torch.zeros, in the allocator. */
    out->paged = paged;
    /* both 8-bit AdamWs quantise each moment in blocks with an fp32 scale per
     * block: torchao's OptimState8bit in blocks of 256 (block_size=256,
     * prototype/low_bit_optim/subclass_8bit.py at b5b9525; adam.py's
     * _new_buffer keeps tensors under 4,096 values, or not a whole number of
     * blocks, in the parameter's dtype), bitsandbytes' blockwise state1/state2
     * with absmax1/absmax2 (optim/optimizer.py, Optimizer2State.init_state) in
     * blocks of 256 in its later releases, of 2,048 at 06029dd: 256 counts the
     * larger of the two, 1.6% of the 8-bit moments */
    out->state_block = opt == ADAMW8 ? 256 : 0;
    if (!strcmp(precision, "mixed")) {
        out->precision = "mixed";
        out->gradient_bytes = 2;
        out->master_bytes = 4;
        out->state_bytes = opt == ADAMW ? 8 : opt == SGD ? 4 : 2;
        out->why =
            opt == ADAMW ? "16-bit gradients 2 B, fp32 master copy 4 B, two fp32 moments 8 B"
            : opt == SGD
                ? "16-bit gradients 2 B, fp32 master copy 4 B, one fp32 momentum 4 B"
                : "16-bit gradients 2 B, fp32 master copy 4 B, two 8-bit moments 2 B (and an fp32 "
                  "scale per 256 values each)";
    } else if (!strcmp(precision, "fp32")) {
        out->precision = "fp32";
        out->gradient_bytes = 4;
        out->master_bytes = 0;
        out->state_bytes = opt == ADAMW ? 8 : opt == SGD ? 4 : 2;
        out->why = opt == ADAMW ? "fp32 gradients 4 B, no master copy, two fp32 moments 8 B"
                   : opt == SGD
                       ? "fp32 gradients 4 B, no master copy, one fp32 momentum 4 B"
                       : "fp32 gradients 4 B, no master copy, two 8-bit moments 2 B (and an fp32 "
                         "scale per 256 values each)";
    } else if (!strcmp(precision, "bf16")) {
        out->precision = "bf16";
        out->gradient_bytes = 2;
        out->master_bytes = 0;
        out->state_bytes = opt == ADAMW ? (paged ? 8 : 4) : 2;
        out->why = opt == ADAMW && paged
                       ? "bf16 gradients 2 B, no master copy, two fp32 moments 8 B (bitsandbytes "
                         "keeps 32-bit state in float32)"
                   : opt == ADAMW ? "bf16 gradients 2 B, no master copy, two bf16 moments 4 B"
                   : opt == SGD
                       ? "bf16 gradients 2 B, no master copy, one bf16 momentum 2 B"
                       : "bf16 gradients 2 B, no master copy, two 8-bit moments 2 B (and an fp32 "
                         "scale per 256 values each)";
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
    if ((rc = vs_arith_mul(&e.gradients, rule->gradient_bytes, "the gradients", err)) ||
        (rc = vs_arith_mul(&e.master_copy, rule->master_bytes, "the master copy", err)) ||
        (rc = vs_arith_mul(&e.optimizer_state, rule->state_bytes, "the optimizer state", err)))
        return rc;
    e.paged_state = 0;
    if (rule->paged) { /* the moments are managed memory; the block scales stay */
        e.paged_state = e.optimizer_state;
        e.optimizer_state = 0;
    }
    if (rule->state_block &&
        (rc = vs_arith_add(&e.optimizer_state,
                           vs_arith_ceil_div(trainable, rule->state_block) * 2 * 4,
                           "the optimizer state", err)))
        return rc;
    *out = e;
    return 0;
}
