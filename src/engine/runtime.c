/* Estimates of the runtime items, each with its rule, source and stated error.
 * The rules follow vLLM's profiling code; the constants the code does not fix are
 * fitted on the fitting half of tests/data/engine_startup/vllm_runtime.tsv
 * (tests/bench/bench_runtime.c reports both halves). */
#include <string.h>
#include <strings.h>

#include "engine/engine.h"

/* Bytes per (sequence x vocabulary entry) of the sampler's dummy run: vLLM computes
 * the logits of max_num_seqs last tokens over the full vocabulary in float32, and the
 * profile samples with top-k and top-p on (V0: vllm/worker/model_runner.py
 * profile_run, SamplingParams(top_p=0.99, top_k=vocab - 1); V1:
 * vllm/v1/worker/gpu_model_runner.py _dummy_sampler_run), so sorted values, int64
 * indices, softmax, cumulative sum and log-probabilities are live with the logits:
 * about ten float32-wide copies. The count is not in the source: 40 B is the mean of
 * the fitting half, rounded (41.2 B at Llama-3-8B, 38.8 B at Qwen3-235B, 38.5 B at
 * DeepSeek-Coder-V2-Lite). */
#define SAMPLER_BYTES_PER_ENTRY 40u

static uint64_t div_up(uint64_t a, uint64_t b)
{
    return b ? (a + b - 1) / b : a;
}

int vs_runtime_estimate_activation(vs_runtime_estimate *out, const vs_runtime_shape *s,
                                   vs_error *err)
{
    uint64_t tp = s->tp ? s->tp : 1, per_token, forward, sampler;
    int moe = s->moe_intermediate && s->experts_per_token;
    memset(out, 0, sizeof *out);
    if (!s->tokens || !s->hidden || (!s->intermediate && !moe))
        return vs_error_set(err, VS_EVALUE,
                            "the activation-peak estimate needs max_num_batched_tokens and the "
                            "model's hidden and intermediate sizes (`model NAME config=PATH`)");
    /* The profiling forward pass runs max_num_batched_tokens tokens one layer at a
     * time; the peak is one MLP: its gate-and-up output (2 x width) and activated half
     * (width), width split over the tensor ranks (MergedColumnParallelLinear), plus
     * four hidden-wide 16-bit tensors (residual, norm, attention out, MLP out) that are
     * replicated. A mixture of experts routes every token to experts_per_token experts
     * of moe_intermediate_size: fused_moe's intermediate caches hold tokens x top-k x
     * (2N + N) and the top-k hidden-wide outputs
     * (vllm/model_executor/layers/fused_moe/fused_moe.py); its dense layers, when it
     * has some, use intermediate_size. */
    per_token = 3 * div_up(s->intermediate, tp) + 4 * s->hidden;
    if (moe) {
        uint64_t m = s->experts_per_token * (3 * div_up(s->moe_intermediate, tp) + s->hidden) +
                     4 * s->hidden;
        if (!s->dense_layers || m > per_token || !s->intermediate)
            per_token = m;
    }
    forward = s->tokens * per_token * 2;
    /* The sampler runs after the forward pass, on max_num_seqs rows of full-vocabulary
     * logits (LogitsProcessor gathers the vocabulary shards, so nothing is divided by
     * tp); the larger of the two is the peak. */
    sampler = s->seqs * s->vocab * SAMPLER_BYTES_PER_ENTRY;
    if (sampler > forward) {
        out->bytes = sampler;
        out->rule = "max_num_seqs x vocab x 40 B: the sampler's dummy run over full-vocabulary "
                    "float32 logits with top-k/top-p on (vllm/worker/model_runner.py "
                    "profile_run, vllm/v1/worker/gpu_model_runner.py _dummy_sampler_run; the "
                    "40 B fitted), larger than the forward pass's MLP peak";
    } else {
        out->bytes = forward;
        out->rule = moe ? "max_num_batched_tokens x (experts_per_token x (3 x "
                          "moe_intermediate / tp + hidden) + 4 x hidden) x 2 B: fused_moe's "
                          "caches in the profiling pass (vllm/model_executor/layers/fused_moe/"
                          "fused_moe.py), larger than the sampler's run"
                        : "max_num_batched_tokens x (3 x intermediate / tp + 4 x hidden) x 2 "
                          "B: the MLP's gate/up output and activation plus four hidden-wide "
                          "tensors of the profiling pass (vllm/v1/worker/gpu_model_runner.py "
                          "profile_run), larger than the sampler's run";
    }
    out->error = 0.16;
    return 0;
}

/* non_torch: what CUDA holds outside PyTorch's allocator (vllm/utils.py
 * memory_profiling since 0.7.0, vllm-project/vllm#11809: device used less
 * torch.cuda.memory_reserved()): the CUDA context and cuBLAS workspaces on every
 * worker, NCCL communicators and the custom all-reduce buffers when tp > 1. The source
 * fixes none of these sizes; the constants are the fitting half's figures. */
static const struct ctxrule {
    const char *arch;
    uint64_t bytes;
} ctx_rules[] = {
    /* 0.16 GiB on an H100 at TP 1 (generative-computing/mellea#416) */
    {"Hopper", (uint64_t)160 << 20},
    /* 0.33 GiB on an RTX 5090 at PP 2, its NCCL p2p buffers included (vllm#14452) */
    {"Blackwell", (uint64_t)340 << 20},
    /* 0.35 GiB on an RTX 3090 at 0.6.4 (vllm#10517, older accounting) and 0.20 GiB on
     * RTX 3090 workers at TP > 1 in 0.8 (vllm#14447): no row of the current accounting */
    {"Ampere", (uint64_t)300 << 20},
};

/* each tensor rank past the first: (2.04 GiB - 160 MiB) / 3 at TP 4 on an H200
 * (vllm#21429, V1 0.10 "non-torch forward increase") */
#define NCCL_PER_RANK ((uint64_t)640 << 20)

int vs_runtime_estimate_context(vs_runtime_estimate *out, const char *architecture, uint64_t tp,
                                vs_error *err)
{
    size_t i;
    memset(out, 0, sizeof *out);
    for (i = 0; architecture && i < sizeof ctx_rules / sizeof ctx_rules[0]; i++)
        if (!strcasecmp(architecture, ctx_rules[i].arch)) {
            out->bytes = ctx_rules[i].bytes + (tp > 1 ? (tp - 1) * NCCL_PER_RANK : 0);
            out->error = 0.03;
            out->rule = "vLLM's non_torch_memory (CUDA context, cuBLAS workspace; NCCL and "
                        "custom all-reduce buffers at tp > 1; vllm/utils.py memory_profiling): "
                        "Hopper 160 MiB, Blackwell 340 MiB, Ampere 300 MiB, + 640 MiB per "
                        "tensor rank past the first, fitted on published start-up logs";
            return 0;
        }
    return vs_error_set(err, VS_ENOTFOUND,
                        "no published non-torch figure for the %s architecture: measure it "
                        "(`measure import` of a vLLM start-up log) or declare it with `reserve "
                        "non_torch AMOUNT`",
                        architecture ? architecture : "(unknown)");
}
