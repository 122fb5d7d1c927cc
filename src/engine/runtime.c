/* Estimates of the runtime items, each with its rule, source and stated error. */
#include <string.h>
#include <strings.h>

#include "engine/engine.h"

int vs_runtime_estimate_activation(vs_runtime_estimate *out, uint64_t tokens, uint64_t seqs,
                                   uint64_t hidden, uint64_t intermediate, uint64_t vocab,
                                   uint64_t tp, vs_error *err)
{
    (void)seqs;
    (void)vocab;
    (void)tp;
    memset(out, 0, sizeof *out);
    if (!tokens || !hidden || !intermediate)
        return vs_error_set(err, VS_EVALUE,
                            "the activation-peak estimate needs max_num_batched_tokens and the "
                            "model's hidden and intermediate sizes (`model NAME config=PATH`)");
    /* The profiling pass runs max_num_batched_tokens tokens through one layer at a
     * time: the MLP's gate-and-up output (2 x intermediate) and its activated half
     * (intermediate), plus about four hidden-wide 16-bit tensors (residual, norm,
     * attention output, MLP output) live at the peak. Fitted against the published
     * start-up figures listed in the README; the published TP 2 peak equals the
     * TP 1 one, so the rule does not divide by tp. */
    out->bytes = tokens * (3 * intermediate + 4 * hidden) * 2;
    out->rule = "max_num_batched_tokens x (3 x intermediate + 4 x hidden) x 2 bytes: the MLP's "
                "gate/up output and activation plus four hidden-wide tensors of the profiling "
                "pass (vllm/v1/worker/gpu_model_runner.py profile_run), fitted to published "
                "vLLM start-up logs";
    out->error = 0.28;
    return 0;
}

static const struct ctxrule {
    const char *arch;
    uint64_t bytes;
    double error;
} ctx_rules[] = {
    /* Hopper: non_torch_memory 0.16 GiB (H100, TP 1, generative-computing/mellea#416) and
     * 0.13 GiB (H100 workers, vllm-project/vllm#50722) */
    {"Hopper", (uint64_t)150 << 20, 0.13},
    /* Ampere: 0.35 GiB (RTX 3090, vllm-project/vllm#10517), 0.20 GiB (RTX 3090 workers at
     * TP > 1, vllm-project/vllm#14447) */
    {"Ampere", (uint64_t)300 << 20, 0.47},
};

int vs_runtime_estimate_context(vs_runtime_estimate *out, const char *architecture, uint64_t tp,
                                vs_error *err)
{
    size_t i;
    (void)tp;
    memset(out, 0, sizeof *out);
    for (i = 0; architecture && i < sizeof ctx_rules / sizeof ctx_rules[0]; i++)
        if (!strcasecmp(architecture, ctx_rules[i].arch)) {
            out->bytes = ctx_rules[i].bytes;
            out->error = ctx_rules[i].error;
            out->rule = "vLLM's non_torch_memory per GPU generation (CUDA context, cuBLAS "
                        "workspace, NCCL buffers), from published start-up logs: Hopper 150 "
                        "MiB, Ampere 300 MiB";
            return 0;
        }
    return vs_error_set(err, VS_ENOTFOUND,
                        "no published non-torch figure for the %s architecture: measure it "
                        "(`measure import` of a vLLM start-up log) or declare it with `reserve "
                        "non_torch AMOUNT`",
                        architecture ? architecture : "(unknown)");
}
