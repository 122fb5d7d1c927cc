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
     * has some, use intermediate_size. A plain MLP (OPT's fc1, activation, fc2:
     * vllm/model_executor/models/opt.py OPTDecoderLayer; GPT-2's GPT2MLP, GPT-NeoX's
     * GPTNeoXMLP, BLOOM's BloomMLP, Falcon's FalconMLP, StarCoder2's Starcoder2MLP,
     * Phi-2's PhiMLP in the same directory) has no gate: fc1's ColumnParallelLinear
     * output (width) and the activation's (width), 2 x width. */
    per_token = (s->mlp_plain ? 2 : 3) * div_up(s->intermediate, tp) + 4 * s->hidden;
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
    /* V0's ranks past the first do not sample (vllm/worker/model_runner.py
     * ModelRunner.execute_model returns before the sampler when not
     * is_driver_worker): such a rank's peak is its forward pass. */
    if (s->sampler_off)
        sampler = 0;
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
                    : s->mlp_plain
                        ? "max_num_batched_tokens x (2 x intermediate / tp + 4 x hidden) x 2 "
                          "B: the plain MLP's fc1 output and activation (no gate: vllm/"
                          "model_executor/models/opt.py, gpt2.py) plus four hidden-wide "
                          "tensors of the profiling pass (vllm/v1/worker/gpu_model_runner.py "
                          "profile_run), larger than the sampler's run"
                        : "max_num_batched_tokens x (3 x intermediate / tp + 4 x hidden) x 2 "
                          "B: the MLP's gate/up output and activation plus four hidden-wide "
                          "tensors of the profiling pass (vllm/v1/worker/gpu_model_runner.py "
                          "profile_run), larger than the sampler's run";
    }
    /* the worst scored row of vllm_runtime.tsv (the sampler each row's release takes):
     * vllm#13061's further RTX 4090, 0.157 GiB for 0.19 printed, -17.25% */
    out->error = 0.1725;
    return 0;
}

/* non_torch: what CUDA holds outside PyTorch's allocator (vllm/utils.py
 * memory_profiling since 0.7.0, vllm-project/vllm#11809: device used less
 * torch.cuda.memory_reserved()), measured from a baseline taken after the CUDA
 * context exists (V0 worker.py init_device, V1 gpu_worker.py init_device): cuBLAS
 * workspaces and kernels on every worker; at tp > 1 the NCCL communicators' buffers.
 * NCCL gives each channel a buffer per protocol and peer (src/transport/p2p.cc), and
 * a ring or tree has a fixed number of peers whatever the group's size, so the term
 * follows the link (how many channels NCCL opens), not tp: NVLink on the Hopper
 * boards opens many more than PCIe. On NVSwitch systems NCCL also binds an NVLS
 * buffer of nHeads x nChannels x 2 x buffSize on every rank (src/transport/nvls.cc
 * ncclNvlsBufferSetup; "nHeads 8 ... buffSize 1048576 nvlsPerRankSize 33554432" on
 * eight H100s: 32 MiB per rank in the group), only for groups of more than two
 * (vllm-project/vllm#9699, whose older NCCL added a 2 MiB memSize to a 4 MiB buffer: 288
 * MiB per rank then). The source fixes none of the other sizes: they are the fitting
 * half's figures. The published Hopper figures do not follow that reading between two
 * ranks and four: 0.55 GiB at TP 2 on H100s (0.11.0) against 2.04 GiB at TP 4 on H200s
 * (0.10), so a group of two has its own term where one is published. Where one
 * generation ships both NVSwitch boards (A100 SXM4) and PCIe cards or bridged pairs
 * (A30, RTX 3090), the architecture does not say how many channels NCCL opens; the
 * GPU's name does (board_of below), and the rule asks for it.
 * The baseline moved once: 0.7 to 0.10.2 take it before init_worker_distributed_environment
 * (V0 vllm/worker/worker.py, V1 vllm/v1/worker/gpu_worker.py init_device), so what NCCL
 * sets up counts; vllm-project/vllm#25359 (2025-09, after 0.10.2) takes it after, so only
 * what the profile run adds counts. The TP 4 figure above is 0.10's and the TP 2 one a
 * 0.11+ image's (January 2026); 0.19.0 prints 2.07 and 2.13 GiB at TP 2 and 4 on H100s,
 * both after the move, so the buffers the run itself connects can be as large
 * (llm-d-incubation/llm-d-planner's accuracy report); their difference is the NVLS buffers
 * of two more ranks, so 0.19.0 gives a pair a larger group's buffers
 * (vs_engine_context_pair_as_group below, engine/vllm.c's release table). cuBLAS's
 * workspace counts in no release: torch allocates it, and cuBLASLt's, from its caching
 * allocator (pytorch/pytorch aten/src/ATen/cuda/CublasHandlePool.cpp getNewWorkspace). At
 * tp 1 what is left is cuBLAS's own small cudaMallocAsync buffers (CUDA 12.2+, that file's
 * note), the code the
 * run loads (lazy module loading) and the driver's local-memory reserve (CU_LIMIT_STACK_SIZE
 * grows at a launch that needs more and is not reset: cuCtxSetLimit), which the source sizes
 * in no release and which move with it: one H100 and model print 0.13 GiB from 0.15.0 to
 * 0.17.0 and 0.25 from 0.18.0 (the same report), against 0.16 under V0 and 0.07 in 0.10.2. The
 * sizes here are those of 0.11 and before; the later releases' terms are engine/vllm.c's.
 * Read by the card's SMs (the local-memory reserve being per resident thread), the fitting
 * rows at tp 1 give 1.2455 MiB a SM under V0 (H100 SXM, RTX 4060, T4 within 2.7%; by
 * threads they miss by up to 50%) and 0.484 MiB a SM under 0.10's V1 (the B200): the held-out
 * RTX A500 Laptop would be -35.1% and the H100 PCIe -23.0%, and the A30s' 1.65 MiB a SM
 * would put the 0.11 image's H100 runs 52% to 63% over, so the terms stay by generation
 * (the figures: the table's header).
 */
enum board { BOARD_UNKNOWN, BOARD_NVSWITCH, BOARD_PCIE };

static const struct ctxrule {
    const char *arch;
    uint64_t base;     /* tp 1 */
    int link_known;    /* a tp > 1 figure is published (on a PCIe board where by_board) */
    uint64_t link;     /* tp > 1 */
    uint64_t link2;    /* tp 2 where it differs from link; 0: link */
    int nvls;          /* NVLS buffers for tp > 2 */
    int by_board;      /* tp > 1: NVSwitch boards and PCIe boards differ */
    uint64_t nvswitch; /* by_board: tp > 2 on an NVSwitch board; 0: none published */
    uint64_t pcie_max; /* by_board: the largest tp the PCIe figure covers; 0: any */
    uint64_t wide_tp;  /* by_board: from this tp on a PCIe board, + wide; 0: none */
    uint64_t wide;
    const char *rule;
} ctx_rules[] = {
    /* 0.16 GiB on an H100 at TP 1 (generative-computing/mellea#416); 2.04 GiB at TP 4 on
     * H200s (vllm#21429, V1 0.10 "non-torch forward increase"): 2.04 GiB - 160 MiB -
     * 4 x 32 MiB of NVLS = 1,800 MiB for the NVLink rings; 0.55 GiB at TP 2 on H100s
     * (llm-d/llm-d-benchmark config_explorer/empirical-vllm-memory-results.md at 2593348,
     * Llama-3.3-70B-FP8, 0.11.0's DEBUG summary): 563 MiB - 160 MiB = 403 MiB for two
     * ranks */
    {"Hopper", (uint64_t)160 << 20, 1, (uint64_t)1800 << 20, (uint64_t)403 << 20, 1, 0, 0, 0, 0, 0,
     "vLLM's non_torch_memory (cuBLAS workspaces; NCCL's buffers at tp > 1; "
     "vllm/utils.py memory_profiling): Hopper 160 MiB, + 403 MiB of NVLink buffers at "
     "tp 2, + 1,800 MiB at tp > 2 and tp x 32 MiB of NVLS buffers (NCCL "
     "src/transport/nvls.cc), the sizes fitted on published start-up logs"},
    /* 0.07 GiB on a B200 at TP 1 (vllm#21489, V1 0.10's "non-torch memory"); a Blackwell
     * card has NVLink (B200) or not (RTX 5090): no tp > 1 figure */
    {"Blackwell", (uint64_t)70 << 20, 0, 0, 0, 0, 0, 0, 0, 0, 0,
     "vLLM's non_torch_memory (cuBLAS workspaces; vllm/utils.py memory_profiling): "
     "Blackwell 70 MiB at tp 1, fitted on a published start-up log"},
    /* 0.09 GiB in all on four A30s at TP 4 (vllm-project/vllm#29070, 0.11.1's DEBUG
     * "non-torch forward increase memory", NVLink bridges in pairs, PCIe between them):
     * the CUDA context's share at TP 1 is no more, and the PCIe rings add nothing a log
     * rounded to 10 MiB shows; 2.10 GiB on eight A100-SXM4-40GB at TP 8 (an
     * ml.p4d.24xlarge, NVSwitch: aws-samples/aws-ai-ml-workshop-kr's DeepSeek-Coder-V2
     * deployment, 0.7.1): 2,150 MiB - 90 MiB = 2,060 MiB of NVSwitch rings, the figure
     * Hopper's NVLink term comes close to (1,800 MiB). vllm#10517's RTX 3090 printed 0.35
     * GiB at TP 1 in 0.6.4, whose accounting counted the allocator's cached blocks too.
     * 0.20 GiB on a further rank of sixteen RTX 3090s at TP 16 (vllm-project/vllm#14447,
     * 0.8.3 V0, DeepSeek-V3-0324-AWQ; PCIe only): 205 MiB - 90 MiB = 115 MiB that sixteen
     * PCIe ranks add where four added none. No PCIe figure between 4 and 16 ranks is
     * published, so those tps are refused. */
    {"Ampere", (uint64_t)90 << 20, 1, 0, 0, 0, 1, (uint64_t)2060 << 20, 4, 16, (uint64_t)115 << 20,
     "vLLM's non_torch_memory (cuBLAS workspaces; NCCL's buffers at tp > 1; "
     "vllm/utils.py memory_profiling): Ampere 90 MiB at tp 1 and on PCIe or bridged cards "
     "up to tp 4, + 115 MiB on PCIe cards at tp 16 or more, + 2,060 MiB of NVSwitch rings "
     "at tp > 2 on SXM boards, fitted on published start-up logs"},
    /* 0.03 GiB on an RTX 4060 at TP 1 (vllm#13882); 0.25 GiB on RTX 4090s at TP 2 over
     * PCIe (vllm#13061): 0.25 GiB - 30 MiB = 225 MiB; no Ada card has NVLink */
    {"Ada Lovelace", (uint64_t)30 << 20, 1, (uint64_t)225 << 20, 0, 0, 0, 0, 0, 0, 0,
     "vLLM's non_torch_memory (cuBLAS workspaces; NCCL's buffers at tp > 1; "
     "vllm/utils.py memory_profiling): Ada Lovelace 30 MiB, + 225 MiB of PCIe rings at "
     "tp > 1, fitted on published start-up logs"},
    /* 0.05 GiB on a Tesla T4 at TP 1 (ameureka/Unsloth_Lllama_deepseek, 0.7.2 under
     * Unsloth; V0: Turing is below V1's compute capability 8.0); T4s and RTX 20xx cards
     * are PCIe cards, but no tp > 1 figure is published */
    {"Turing", (uint64_t)50 << 20, 0, 0, 0, 0, 0, 0, 0, 0, 0,
     "vLLM's non_torch_memory (cuBLAS workspaces; vllm/utils.py memory_profiling): "
     "Turing 50 MiB at tp 1, fitted on a published start-up log"},
};

/* Which board a GPU's name says: an SXM module (or an HGX/DGX or p4d system) sits on
 * NVSwitch; a PCIe card, a bridged pair or a workstation card does not. The catalogue's
 * "A100 80GB" covers both, so it says neither. */
/* w in s, case aside; a model number ends it (whole: "A10" is not "A100") */
static int has_word(const char *s, const char *w, int whole)
{
    size_t n = strlen(w);
    for (; *s; s++)
        if (!strncasecmp(s, w, n) && !(whole && s[n] >= '0' && s[n] <= '9'))
            return 1;
    return 0;
}

static enum board board_of(const char *gpu)
{
    static const char *const nvswitch[] = {"SXM", "HGX", "DGX", "p4d", "p5."};
    static const char *const pcie[] = {"PCIe", "A30", "A10", "A40",    "L40",
                                       "L4",   "T4",  "RTX", "GeForce"};
    size_t i;
    if (!gpu)
        return BOARD_UNKNOWN;
    for (i = 0; i < sizeof nvswitch / sizeof nvswitch[0]; i++)
        if (has_word(gpu, nvswitch[i], 0))
            return BOARD_NVSWITCH;
    for (i = 0; i < sizeof pcie / sizeof pcie[0]; i++)
        if (has_word(gpu, pcie[i], 1))
            return BOARD_PCIE;
    return BOARD_UNKNOWN;
}

static int no_figure(vs_error *err, const struct ctxrule *r, uint64_t tp, const char *board)
{
    return vs_error_set(err, VS_ENOTFOUND,
                        "no published non-torch figure for %s GPUs%s at tensor parallelism %llu "
                        "(NCCL's buffers follow the link: NVLink or PCIe): measure it (`measure "
                        "import` of a vLLM start-up log) or declare it with `reserve non_torch "
                        "AMOUNT`",
                        r->arch, board, (unsigned long long)tp);
}

int vs_runtime_estimate_context(vs_runtime_estimate *out, const char *architecture, const char *gpu,
                                uint64_t tp, vs_error *err)
{
    size_t i;
    memset(out, 0, sizeof *out);
    for (i = 0; architecture && i < sizeof ctx_rules / sizeof ctx_rules[0]; i++) {
        const struct ctxrule *r = &ctx_rules[i];
        uint64_t link = 0;
        if (strcasecmp(architecture, r->arch))
            continue;
        if (tp > 1 && r->by_board) {
            enum board b = board_of(gpu);
            if (b == BOARD_UNKNOWN)
                return no_figure(err, r, tp,
                                 " on a board the GPU's name does not say (SXM or PCIe)");
            if (b == BOARD_NVSWITCH && (tp < 3 || !r->nvswitch))
                return no_figure(err, r, tp, " on NVSwitch boards");
            if (b == BOARD_PCIE && r->pcie_max && tp > r->pcie_max &&
                (!r->wide_tp || tp < r->wide_tp))
                return no_figure(err, r, tp, " on PCIe boards");
            link = b == BOARD_NVSWITCH              ? r->nvswitch
                   : r->wide_tp && tp >= r->wide_tp ? r->link + r->wide
                                                    : r->link;
        } else if (tp > 1) {
            if (!r->link_known)
                return no_figure(err, r, tp, "");
            link = tp == 2 && r->link2 ? r->link2 : r->link;
        }
        out->bytes = r->base + link + (r->nvls && tp > 2 ? tp * ((uint64_t)32 << 20) : 0);
        out->error = 0.202;
        out->rule = r->rule;
        return 0;
    }
    return vs_error_set(err, VS_ENOTFOUND,
                        "no published non-torch figure for the %s architecture: measure it "
                        "(`measure import` of a vLLM start-up log) or declare it with `reserve "
                        "non_torch AMOUNT`",
                        architecture ? architecture : "(unknown)");
}

uint64_t vs_engine_context_pair_as_group(const char *architecture)
{
    size_t i;
    for (i = 0; architecture && i < sizeof ctx_rules / sizeof ctx_rules[0]; i++) {
        const struct ctxrule *r = &ctx_rules[i];
        if (!strcasecmp(architecture, r->arch) && r->link2 && r->nvls && r->link > r->link2)
            return r->link + 2 * ((uint64_t)32 << 20) - r->link2;
    }
    return 0;
}

int vs_engine_board_pcie(const char *gpu)
{
    return board_of(gpu) == BOARD_PCIE;
}
