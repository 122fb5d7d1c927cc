/* vLLM: a budget of CUDA's total x gpu_memory_utilization, filled with pages of KV. */
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/vllm.h"
#include "sheet/units.h"

static const char *const dtype_words[] = {"auto",    "fp8",  "fp8_e4m3", "fp8_e5m2", "bfloat16",
                                          "float16", "bf16", "fp16",     "float32",  NULL};

static const char *const mxfp4_words[] = {"triton", "marlin", NULL};
static const char *const ssm_words[] = {"auto", "float32", "bfloat16", "float16", NULL};
static const char *const sampler_words[] = {"native", "flashinfer", "triton", NULL};
static const char *const install_words[] = {"pip", "image", NULL};

/* vLLM's defaults, release by release. Every row's release is V1 with chunked
 * prefill, served with `vllm serve` (UsageContext.OPENAI_API_SERVER):
 *   gpu_memory_utilization: CacheConfig (vllm/config/cache.py), 0.9 (a later main,
 *     002f10e0, has 0.92; its first release is not placed here);
 *   max_num_seqs, max_num_batched_tokens: EngineArgs.get_batch_defaults
 *     (vllm/engine/arg_utils.py): device_memory >= 70 GiB and "a100" not in the
 *     device's name: 1024 and 8192, else 256 and 2048; then
 *     max_num_batched_tokens = min(max_num_seqs x max_model_len, it) and
 *     max_num_seqs = min(max_num_seqs, max_num_batched_tokens)
 *     (_set_default_max_num_seqs_and_batched_tokens_args); a 0.19.0 H100 log prints
 *     "Defaulting max_num_batched_tokens to 8192 ... max_num_seqs to 1024"
 *     (llm-d-incubation/llm-d-planner accuracy/results/v0.19.0/logs at d3121e0);
 *   graphs_in_budget: no, the graphs captured after the KV cache is allocated
 *     (vllm/v1/worker/gpu_worker.py compile_or_warm_up_model, at 0012cf691b7e); the
 *     profiling of the graphs before the pool (vllm-project/vllm#30515, in 0.18.0)
 *     is opt-in through 0.19.0 (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1; on by
 *     default from 0.21.0, as its log line says);
 *   flashinfer_sampler: the profiling pass's dummy sampler run (top-k and top-p set)
 *     goes through FlashInfer's kernel wherever FlashInfer is importable: V1's
 *     TopKTopPSampler binds forward_cuda when VLLM_USE_FLASHINFER_SAMPLER "is not
 *     False", unset being None, "None means True" in V1
 *     (vllm/v1/sample/ops/topk_topp_sampler.py TopKTopPSampler.__init__ of the 0.10
 *     and 0.11 trees; both releases' logs show it: a 0.10.2 pip install's
 *     "[topk_topp_sampler.py:69] FlashInfer is not available. Falling back" is that
 *     branch's, and 0.11.0's image on a V100 fails inside FlashInfer's sampler as the
 *     engine starts, vllm-project/vllm#27729), until vllm-project/vllm#26859
 *     (2025-10-15, first released after 0.11.0) made it opt-in ("Users must opt in
 *     explicitly via VLLM_USE_FLASHINFER_SAMPLER=1"); on by default again with
 *     vllm-project/vllm#40376 (in 0.21.0: not modelled).
 *     Importable is the installation's: the vllm/vllm-openai image ships
 *     flashinfer-python (0.3.1 in vllm-project/vllm#29070's image of a 0.11.0 tree,
 *     whose traceback runs through forward_cuda), `pip install vllm` of 0.10.2 and
 *     0.11.0 does not (vllm-project/vllm#21959 made it an extra; a 0.10.2 pip install
 *     logs "FlashInfer is not available"); #26443 (after 0.11.0) made it a
 *     dependency again, so later wheels bring it, and the sampler is opt-in there.
 *     install= says which;
 *   triton_sampler: from 0.17.0 apply_top_k_top_p hands a batch of 8 or more rows
 *     to the Triton top-k/top-p kernel (vllm/v1/sample/ops/topk_topp_triton.py,
 *     vllm-project/vllm#33538, in the 0.17.0 release notes), which sorts nothing;
 *     before it the native path sorts the vocabulary;
 *   graphs: the capture sizes (engine/cuda_graphs.c): 0.10.2 piecewise over 1, 2, 4,
 *     8k; 0.11.0 adds the full decode graphs (vllm-project/vllm#25444); from 0.12.0
 *     the sizes step by 16 from 256 (vllm-project/vllm#26016, opened 2025-10-01, not
 *     in 0.11.0, whose logs capture 67 piecewise graphs at 256 sequences);
 *   pair_as_group: a group of two ranks on Hopper takes the NVLink rings and NVLS
 *     buffers of larger groups (engine_runtime.c vs_engine_context_pair_as_group),
 *     fitted on 0.19.0's two published TP 2 runs (their TP 4 runs print 64 MiB more, the
 *     NVLS buffers of two more ranks), where 0.11's image printed a TP 2 figure a quarter
 *     of its TP 4 one; no source read sizes it, and the release that
 *     changed it between 0.11.0 and 0.19.0 is not known, so only 0.19.0 takes it;
 *   non_torch_extra: what the release adds to the non-torch figures of 0.11 and
 *     before on every rank (engine_runtime.c). No source read sizes it: 96 MiB from
 *     0.18.0 is fitted on one run (llm-d-planner's 0.18.0 Qwen3-14B at TP 1, 0.25 GiB
 *     against 0.16); the 0.19.0 runs are held out.
 * A row whose `carried` names an earlier release changes none of these. */
typedef struct vrelease {
    const char *version;
    const char *carried; /* nothing changed since this release's row; NULL: a change */
    uint64_t gmu_ppm;
    uint64_t seqs, seqs_large; /* max_num_seqs: below / at 70 GiB (not an A100) */
    uint64_t mnbt, mnbt_large; /* max_num_batched_tokens, likewise */
    int graphs_in_budget;
    int flashinfer_sampler; /* FlashInfer's sampler by default where importable */
    int pip_flashinfer;     /* `pip install vllm` brings FlashInfer */
    int triton_sampler;     /* the Triton top-k/top-p kernel for 8 rows or more */
    int pair_as_group;      /* tp 2 takes the buffers of larger groups (Hopper) */
    int graphs;             /* VS_VLLM_GRAPHS_*: the capture sizes */
    uint64_t non_torch_extra;
    const char *changed; /* what the row changes, with its source (docs, help) */
} vrelease;

#define MIB(n) ((uint64_t)(n) << 20)

/* The one declaration of the releases: each row's version, the release it carries
 * (NULL: it changes something), FlashInfer's sampler by default, FlashInfer in the
 * pip wheel, the Triton sampler, a TP 2 group's buffers, the capture sizes, the
 * non-torch term and what changed. The batch defaults and the utilisation are every
 * row's (above). */
#define VLLM_RELEASES(R)                                                                           \
    R("0.10.2", NULL, 1, 0, 0, 0, VS_VLLM_GRAPHS_PIECEWISE, 0,                                     \
      "PIECEWISE graphs; FlashInfer's sampler wherever it is importable (the image)")              \
    R("0.11.0", NULL, 1, 0, 0, 0, VS_VLLM_GRAPHS_FULL, 0,                                          \
      "FULL_AND_PIECEWISE: a full decode graph per size up to max_num_seqs "                       \
      "(vllm-project/vllm#25444)")                                                                 \
    R("0.12.0", NULL, 0, 1, 0, 0, VS_VLLM_GRAPHS_STEP16, 0,                                        \
      "FlashInfer's sampler opt-in (vllm-project/vllm#26859) and a pip dependency again "          \
      "(#26443); capture sizes by 16 from 256 (#26016)")                                           \
    R("0.13.0", "0.12.0", 0, 1, 0, 0, VS_VLLM_GRAPHS_STEP16, 0, NULL)                              \
    R("0.14.0", "0.12.0", 0, 1, 0, 0, VS_VLLM_GRAPHS_STEP16, 0, NULL)                              \
    R("0.15.0", "0.12.0", 0, 1, 0, 0, VS_VLLM_GRAPHS_STEP16, 0, NULL)                              \
    R("0.16.0", "0.12.0", 0, 1, 0, 0, VS_VLLM_GRAPHS_STEP16, 0, NULL)                              \
    R("0.17.0", NULL, 0, 1, 1, 0, VS_VLLM_GRAPHS_STEP16, 0,                                        \
      "the Triton top-k/top-p kernel in the profiling pass's sampler (vllm-project/vllm#33538)")   \
    R("0.18.0", NULL, 0, 1, 1, 0, VS_VLLM_GRAPHS_STEP16, MIB(96),                                  \
      "non_torch + 96 MiB on every rank, fitted on one published run (no source sizes it)")        \
    R("0.19.0", NULL, 0, 1, 1, 1, VS_VLLM_GRAPHS_STEP16, MIB(96),                                  \
      "at tp 2 on Hopper the NVLink rings and NVLS buffers of larger groups, fitted on two "       \
      "published runs (no source sizes it)")

#define VLLM_ROW(v, carried, fi, pip, triton, pair, graphs, nt, changed)                           \
    {v, carried, 900000, 256, 1024, 2048, 8192, 0, fi, pip, triton, pair, graphs, nt, changed},
#define VLLM_WORD(v, carried, fi, pip, triton, pair, graphs, nt, changed) v,

static const vrelease releases[] = {VLLM_RELEASES(VLLM_ROW)};
static const char *const version_words[] = {VLLM_RELEASES(VLLM_WORD) NULL};

#define NRELEASES (sizeof releases / sizeof releases[0])

static const vs_engine_key keys[] = {
    {"gpu_memory_utilization", VS_EKEY_FRACTION, "0.9",
     "the release's (version=): 0.9 in every release modelled, 0.10.2 to 0.19.0 "
     "(vllm/config/cache.py CacheConfig.gpu_memory_utilization; 0.92 on a later main)",
     NULL,
     "the fraction of CUDA's total this instance may use: weights, profiling peak, non-torch "
     "memory and the KV pool"},
    {"block_size", VS_EKEY_COUNT, "16", "vllm/config/cache.py (block_size on CUDA, v0.11)", NULL,
     "tokens per KV page"},
    {"max_model_len", VS_EKEY_COUNT, NULL, "the card's length", NULL,
     "tokens per request; maximum concurrency is computed at this length"},
    {"max_num_seqs", VS_EKEY_COUNT, "256",
     "256; 1024 on 70 GiB or more but an A100 (arg_utils.py get_batch_defaults)", NULL,
     "requests scheduled at once; the profiling pass samples this many"},
    {"max_num_batched_tokens", VS_EKEY_COUNT, "2048",
     "2048; 8192 on 70 GiB or more but an A100 (arg_utils.py get_batch_defaults)", NULL,
     "tokens of one forward pass: the profiling pass runs this many, and a sliding-window "
     "group keeps window - 1 + this many tokens per request"},
    {"kv_cache_dtype", VS_EKEY_WORD, "auto", "vllm/config/cache.py (v0.11)", dtype_words,
     "auto: the model's 16-bit type; fp8: one byte per value"},
    {"mamba_ssm_cache_dtype", VS_EKEY_WORD, "auto", "vllm/config/cache.py (v0.11)", ssm_words,
     "the dtype of a Mamba or linear-attention layer's temporal state: auto is the model's "
     "16-bit type, as the convolution state (vllm/model_executor/layers/mamba/mamba_utils.py)"},
    {"kv_cache_memory", VS_EKEY_BYTES, NULL, "unset (vllm/config/cache.py kv_cache_memory_bytes)",
     NULL, "the KV pool per GPU, given: gpu_memory_utilization is then not used"},
    {"enforce_eager", VS_EKEY_BOOL, "no", "vllm/config/model.py (v0.11)", NULL,
     "no CUDA graphs: cuda_graphs is then 0"},
    {"graphs_in_budget", VS_EKEY_BOOL, "no",
     "no in 0.10.2 to 0.19.0: vllm/v1/worker/gpu_worker.py captures the graphs after the KV "
     "cache is allocated (profiling them first, vllm-project/vllm#30515, is opt-in there)",
     NULL, "whether the CUDA graph pool is taken out of the budget (yes) or held beyond it (no)"},
    {"mxfp4_backend", VS_EKEY_WORD, "triton",
     "Triton on SM90 and SM100, Marlin below (quantization/mxfp4.py get_mxfp4_backend)",
     mxfp4_words,
     "the MXFP4 MoE kernel, which lays the expert weights out: triton (Hopper, Blackwell) or "
     "marlin (A100, L40S, RTX: hidden padded to 256, intermediate to 128)"},
    {"sampler", VS_EKEY_WORD, "native",
     "the release's with install=: 0.10.2 and 0.11.0 sample with FlashInfer wherever it is "
     "importable (vllm/v1/sample/ops/topk_topp_sampler.py: VLLM_USE_FLASHINFER_SAMPLER unset "
     "means on in V1, up to vllm-project/vllm#26859, after 0.11.0): flashinfer under "
     "install=image, native under install=pip; 0.12.0 to 0.16.0 native; from 0.17.0 triton "
     "(vllm/v1/sample/ops/topk_topp_triton.py, vllm-project/vllm#33538)",
     sampler_words,
     "the top-k/top-p kernel of the profiling pass's dummy sampler run: native sorts the "
     "vocabulary (about 40 B per sequence and vocabulary entry), flashinfer does not (14 B), "
     "triton neither (14 B, + the forward pass's output, which the run keeps)"},
    {"install", VS_EKEY_WORD, "pip",
     "pip: `pip install vllm` of 0.10.2 and 0.11.0 brings no FlashInfer "
     "(vllm-project/vllm#21959); later wheels do (#26443), where the sampler is opt-in",
     install_words,
     "how vLLM is installed: pip (no FlashInfer) or image (the vllm/vllm-openai image, which "
     "ships FlashInfer: vllm-project/vllm#21389); with sampler unwritten it decides the "
     "sampler's kernel"},
    {"num_speculative_tokens", VS_EKEY_COUNT, NULL,
     "unset: no speculative decoding (vllm/config/speculative.py SpeculativeConfig)", NULL,
     "tokens a draft (EAGLE layers, a draft model, MTP) proposes per step; when set the "
     "draft's memory is a runtime item, draft_model"},
    {"max_loras", VS_EKEY_COUNT, NULL, "unset: --enable-lora off (vllm/config/lora.py LoRAConfig)",
     NULL,
     "LoRA adapters served at once (--max-loras); when set the adapter slots are a runtime "
     "item, lora_adapters"},
    {"max_lora_rank", VS_EKEY_COUNT, "16", "vllm/config/lora.py LoRAConfig.max_lora_rank", NULL,
     "the rank each adapter slot is allocated at"},
    {"version", VS_EKEY_WORD, "0.19.0", "the newest release modelled here", version_words,
     "the vLLM release whose defaults apply: gpu_memory_utilization, max_num_seqs, "
     "max_num_batched_tokens, graphs_in_budget and sampler when not written, the CUDA graphs "
     "it captures (PIECEWISE in 0.10.2, FULL_AND_PIECEWISE from 0.11.0, sizes by 16 from 256 "
     "from 0.12.0) and its non-torch terms (+96 MiB from 0.18.0, fitted; in 0.19.0 a larger "
     "group's buffers at tp 2 on Hopper, fitted)"},
    {NULL, 0, NULL, NULL, NULL, NULL}};

static const char help[] =
    "vLLM's start-up sizing, before renting the GPU:\n"
    "  budget  = ceil(total x gpu_memory_utilization), total being CUDA's (cudaMemGetInfo); "
    "vllm/v1/worker/gpu_worker.py (requested_memory), v0.11\n"
    "  KV pool = budget - (weights + activation_peak + non_torch [+ cuda_graphs when "
    "graphs_in_budget]); gpu_worker.py determine_available_memory; kv_cache_memory= gives "
    "the pool directly\n"
    "  page    = block_size x kv_heads per GPU x (head_size + head_size_v) x dtype bytes for one "
    "layer (2 x block x heads x head_size x bytes), latent (MLA) caches block x latent x "
    "bytes: vllm/v1/kv_cache_interface.py page_size_bytes\n"
    "  blocks  = pool // page // layers (one layer type); with sliding and full groups of one "
    "page size, layers are grouped in groups of the smaller type's count and blocks = pool "
    "// (page x group size): vllm/v1/core/kv_cache_utils.py _get_kv_cache_config_uniform_type "
    "/ _uniform_page_size\n"
    "  tokens  = blocks x block_size (divided among the groups): 'GPU KV cache size'\n"
    "  per request: full cdiv(max_model_len, block) pages, sliding cdiv(min(window - 1 + "
    "max_num_batched_tokens, max_model_len), block) + 1, chunked cdiv(min(chunk + "
    "max_num_batched_tokens, max_model_len), block): kv_cache_interface.py "
    "max_memory_usage_bytes\n"
    "  hybrid (attention and Mamba / linear-attention state layers): the attention block grows "
    "to 16 x cdiv(state page, 16 x attention bytes per token) tokens and the state page is "
    "padded to the attention page (vllm/model_executor/models/config.py "
    "HybridAttentionMambaModelConfig, v0.11.0); a state group takes one block per request, "
    "whatever its length, and the state blocks cap the requests running at once\n"
    "  maximum concurrency = blocks / pages per request (get_max_concurrency_for_kv_cache_"
    "config); tensor-parallel ranks hold ceil(kv_heads / tp) heads (at least one) and take "
    "the minimum\n"
    "Runtime items: non_torch, activation_peak (the profiling pass of max_num_batched_tokens "
    "tokens), cuda_graphs; unknown unless a component of that name says, or `engine vllm "
    "estimate=yes` estimates them; num_speculative_tokens= adds draft_model (the "
    "draft's weights, EAGLE's layers, its own KV layers in the pool) and max_loras= "
    "lora_adapters (max_loras slots at max_lora_rank), both unknown until measured or "
    "declared and taken out of the budget before the pool:\n"
    "  activation_peak = max(forward, sampler): forward = max_num_batched_tokens x (3 x "
    "intermediate / tp + 4 x hidden) x 2 B for a gated MLP (gate and up), 2 x intermediate "
    "for a plain one (the card's mlp: OPT's fc1/fc2, GPT-2's, GPT-NeoX's, BLOOM's, Falcon's, "
    "StarCoder2's; vllm/model_executor/models/opt.py), a mixture of experts experts_per_token x (3 "
    "x "
    "moe_intermediate / tp + hidden) + 4 x hidden per token (fused_moe's caches); sampler = "
    "max_num_seqs x vocab x 40 B, the dummy sampler run over float32 logits with top-k/top-p "
    "(vllm/worker/model_runner.py profile_run, vllm/v1/worker/gpu_model_runner.py "
    "_dummy_sampler_run; the 40 B fitted); sampler=flashinfer, FlashInfer's kernel, which "
    "sorts nothing: max_num_seqs x vocab x 14 B (16-bit and float32 logits, the top-k mask, "
    "the softmax: vllm/v1/sample/ops/topk_topp_sampler.py forward_cuda, flashinfer/"
    "sampling.py top_k_top_p_sampling_from_logits). Unwritten, sampler is the release's: "
    "0.10.2 and 0.11.0 take FlashInfer's wherever it is importable "
    "(topk_topp_sampler.py: VLLM_USE_FLASHINFER_SAMPLER unset means on in V1, until "
    "vllm-project/vllm#26859 made it opt-in after 0.11.0), so install=image (the "
    "vllm/vllm-openai image, which ships it) gives flashinfer and install=pip (the "
    "default: `pip install vllm` of those releases brings no FlashInfer, "
    "vllm-project/vllm#21959) native; 0.12.0 to 0.16.0 native; from 0.17.0 triton, the "
    "Triton top-k/top-p kernel apply_top_k_top_p takes for 8 sequences or more "
    "(vllm/v1/sample/ops/topk_topp_triton.py, vllm-project/vllm#33538), which sorts nothing: "
    "max_num_seqs x vocab x 14 B (16-bit and float32 logits, the softmax, the sampling noise) "
    "+ max_num_batched_tokens x hidden x 2 B (the forward pass's output, which profile_run "
    "holds through the sampler's run)\n"
    "  non_torch = cuBLAS workspaces, + NCCL's buffers at tp > 1, which follow the link: "
    "Hopper 160 MiB, + 403 MiB of NVLink buffers at tp 2, + 1,800 MiB of NVLink rings and tp "
    "x 32 MiB of NVLS buffers at tp > 2 (NCCL src/transport/nvls.cc); Ada Lovelace 30 MiB, + 225 "
    "MiB of PCIe rings; Ampere 90 MiB at tp 1 and on PCIe or bridged cards up to tp 4, + "
    "115 MiB on PCIe cards at tp 16 (none published between), + "
    "2,060 MiB of NVSwitch rings at tp > 2 on SXM boards (the offer's name says which: "
    "\"A100 80GB\" alone does not); Turing 50 MiB and Blackwell 70 MiB at tp 1 only (no "
    "tp > 1 figure); fitted, none for other generations (Volta included); from 0.18.0 + 96 MiB "
    "on every rank (fitted on one published 0.18.0 run: no source read sizes it); in 0.19.0 a "
    "group of two on Hopper NVSwitch boards takes a larger group's 1,800 MiB of rings and 2 x "
    "32 MiB of NVLS buffers, 1,461 MiB more than tp 2's own term (not on PCIe cards, which "
    "have no NVLS) (fitted on two published 0.19.0 runs: its "
    "TP 2 and TP 4 figures differ by the NVLS buffers alone; no source read sizes it, and "
    "FlashInfer's all-reduce fusion workspace, which 0.19.0 builds after the baseline, does "
    "not show in the figures, whatever its size). A V0 rank "
    "past the first runs no sampler, and the engine sizes the pool from the first rank's "
    "larger peak\n"
    "  against 50 published vLLM start-up logs (Turing, Ampere, Ada, Hopper, Blackwell; TP 1 "
    "to 16; 0.6 to 0.19), scored from the releases whose accounting these rules follow "
    "(activation_peak from 0.6.5, non_torch from 0.7, no pipeline parallelism), each row with "
    "the sampler and the non-torch term its release takes under its installation: "
    "activation_peak median 4.2% on 42, worst 17.2% (held-out half 5.2% / 16.1% on 32); the "
    "ten H100 runs of 0.15.0 to 0.19.0 were held out before the rules were read: 0.15.0 and "
    "0.16.0 +2.8% (the sort), the eight from 0.17.0 -5.5% to -6.1% under the Triton rule "
    "(+159% to +163% under the sort), and six 0.19.0 logs added later -4.9% to -16.1%; the two "
    "runs of 0.11.0 trees in the vllm/vllm-openai "
    "image, Mistral-Small-3.2-24B on an H100 and OPT-2.7B on four A30s, print 17 to 18 B per "
    "sequence and vocabulary entry where the other sampler-bound rows print 38 to 41, and "
    "FlashInfer's kernel gives them 1.81 GiB for 2.12 printed (-14.5%) and 0.23 for 0.22 "
    "(+6.5%), where the sort gave +136% and +118%; non_torch median 2.3% on 41 (fitting "
    "half 0.4% / 2.3% on 13, held-out 11.6% / 193% on 28, 20.2% at worst on the 39 figures "
    "above 0.1 GiB); the misses are two 0.10.2 runs printing 31 and 72 MiB (an RTX A500 "
    "Laptop and an H100 PCIe: +193% and +123%, 59 and 88 MiB, 2.0% and 0.2% of their KV "
    "pools; read by the card's SMs, the fitting rows at TP 1 give 1.25 MiB a SM under V0 and "
    "0.48 under 0.10's V1, which would leave them at -35% and -23%, and by resident threads "
    "the fitting rows themselves miss by up to 50%, so the terms stay by generation); 0.15.0 to "
    "0.17.0 print 0.13 GiB at TP 1 (+20.2%), 0.19.0 0.24 and 0.25 (+4.2%, "
    "0.0%), 2.13 at TP 4 (+0.1%), and six held-out 0.19.0 logs at TP 1, 2 and 4 (Llama-3.3-70B, "
    "Mistral-Small-3.1-24B, gpt-oss-20b, Llama-4-Scout) -3.8% to 0.0%. With these two estimates "
    "alone (no item measured; "
    "each sheet naming version=0.11.0, the logs being of 0.11 and before), fit's KV pool is "
    "within 1.9% of the pool 15 published logs printed in the median, 7.8% at worst, KV "
    "tokens 2.4% / 9.0% on 6 and maximum concurrency 2.1% / 4.1% on 4; "
    "the four starts vLLM refused (Llama-3.1-8B at 29,000 tokens on an RTX 3090, "
    "DeepSeek-R1-Distill-Qwen-14B at 131,072 on two RTX 4090s, Llama-3.3-70B-FP8 and "
    "Qwen3-32B at 32,000 tokens on one H100) are exclusions.\n"
    "  cuda_graphs = graphs x layers x 400 KiB, held beyond the budget (graphs_in_budget=no): "
    "one piecewise graph per capture size, 1, 2, 4, then multiples of 8 up to min(2 x "
    "max_num_seqs, 512), none above max_num_batched_tokens (vllm/config/__init__.py "
    "_set_cudagraph_sizes), and from 0.11.0 (FULL_AND_PIECEWISE, vllm-project/vllm#25444) a "
    "full decode graph per size up to max_num_seqs: 102 graphs at 256 sequences in 0.11.0, "
    "86 from 0.12.0, whose sizes step by 16 from 256 (vllm/config/vllm.py, "
    "vllm-project/vllm#26016; 102 at an H100's 1024 sequences), "
    "67 in 0.10.2; each graph holds a piece per decoder layer (V1 splits the compiled model "
    "at every attention: vllm/compilation/backends.py split_graph), so the bytes follow "
    "graphs x num_hidden_layers; no source sizes a piece, the 400 KiB is fitted on 2 of 5 "
    "published start-up logs that name their model (\"Graph capturing finished in N secs, "
    "took X GiB\"): median 10.3%, worst 188% on 5 (a V0 Qwen3-0.6B whose capture sizes the "
    "log does not show); held out 19.5% / 188% on 3 (9 MiB a graph before: 52.3% / 137%); "
    "enforce_eager=yes: 0\n"
    "  A model with a vision or audio encoder has encoder_profile "
    "too: profile_run (vllm/v1/worker/gpu_model_runner.py) first runs the encoder on "
    "max(1, min(encoder budget // tokens per item, max_num_seqs x min(limit_mm_per_prompt, "
    "max_model_len // tokens per item))) dummy items of the largest size the processor "
    "accepts (vllm/v1/worker/utils.py MultiModalBudget.get_max_items; "
    "vllm/multimodal/profiling.py) and keeps their outputs through the text model's dummy "
    "run; it is counted inside the budget and unknown until measured or declared "
    "(`reserve encoder_profile AMOUNT`).";

/* 1 and *bits, or 0 for a kv_cache_dtype with no whole bits per value. */
static int kv_bits(const vs_engine_env *e, unsigned *bits)
{
    const vs_engine_val *d = vs_engine_get(e, "kv_cache_dtype");
    unsigned auto_bits = vs_engine_model_bits(e); /* auto: the model's 16-bit dtype */
    return vs_engine_kv_bits(d && d->word ? d->word : "auto", auto_bits, bits);
}

static int budget(const vs_engine_env *e, vs_engine_budget *out, vs_error *err)
{
    const vs_engine_val *u = vs_engine_get(e, "gpu_memory_utilization"),
                        *m = vs_engine_get(e, "kv_cache_memory"),
                        *eager = vs_engine_get(e, "enforce_eager"),
                        *gib = vs_engine_get(e, "graphs_in_budget");
    char tot[64], bud[64];
    (void)err;
    out->budget_bytes = vs_engine_fraction_ceil(e->total_bytes, u->u);
    /* the encoder's pass runs inside profile_run, before the KV cache is sized; the
     * draft's weights load with the target's before the profiling pass and its KV
     * layers share the pool; the LoRA slots are allocated at load and the pass runs
     * dummy adapters (vllm/v1/worker/gpu_model_runner.py load_model, profile_run):
     * all come out of the budget before the pool */
    out->inside = VS_RT_BIT(VS_RT_NON_TORCH) | VS_RT_BIT(VS_RT_ACTIVATION_PEAK) |
                  VS_RT_BIT(VS_RT_ENCODER_PROFILE) | VS_RT_BIT(VS_RT_DRAFT_MODEL) |
                  VS_RT_BIT(VS_RT_LORA);
    if (!(eager->set && eager->u)) {
        if (gib->u)
            out->inside |= VS_RT_BIT(VS_RT_CUDA_GRAPHS);
        else
            out->outside |= VS_RT_BIT(VS_RT_CUDA_GRAPHS);
    }
    vs_units_round(tot, sizeof tot, e->total_bytes, VS_UNIT_GIB, 2);
    vs_units_round(bud, sizeof bud, out->budget_bytes, VS_UNIT_GIB, 2);
    if (m && m->set) {
        out->pool_fixed = 1;
        out->pool_fixed_bytes = m->u;
        snprintf(out->rule, sizeof out->rule,
                 "kv_cache_memory= gives the KV pool; the budget shown is %s GiB x %.6g = %s GiB, "
                 "which vLLM then does not enforce",
                 tot, (double)u->u / 1e6, bud);
    } else {
        snprintf(out->rule, sizeof out->rule,
                 "ceil(%s GiB x %.6g) = %s GiB (gpu_memory_utilization of CUDA's total)", tot,
                 (double)u->u / 1e6, bud);
    }
    return 0;
}

/* vLLM's KV cache groups for one GPU. */
typedef struct vgroup {
    vs_kv_kind kind;
    uint64_t layers;
    uint64_t window; /* sliding, chunked */
    uint64_t page;   /* bytes of one block of one layer */
    uint64_t vals;   /* attention: values per token and layer on one GPU */
} vgroup;

typedef struct vplan {
    vgroup g[VS_KV_GROUPS_MAX];
    size_t n;
    uint64_t page;       /* the (largest) page of one layer */
    int padded;          /* groups of different pages: the smaller ones padded */
    uint64_t group_size; /* layers per KV cache group (hybrid); layers when uniform */
    uint64_t ngroups;    /* KV cache groups */
    int uniform;         /* one layer type */
    uint64_t block, mnbt;
    uint64_t block_given; /* block_size as set; block may have grown (hybrid) */
    int grown;
} vplan;

/* A state layer's bytes in vLLM's dtypes: the convolution state in the
 * model's dtype (mamba_cache_dtype auto), the temporal state in
 * mamba_ssm_cache_dtype, auto being the same (MambaStateDtypeCalculator,
 * vllm/model_executor/layers/mamba/mamba_utils.py at 02d7108). */
static uint64_t state_bytes(const vs_engine_env *e, const vs_kv_group *g)
{
    const vs_engine_val *d = vs_engine_get(e, "mamba_ssm_cache_dtype");
    uint64_t cb = vs_engine_model_bits(e) / 8, sb = cb;
    if (d && d->word && !strcmp(d->word, "float32"))
        sb = 4;
    else if (d && d->word && strcmp(d->word, "auto"))
        sb = 2;
    return g->state_conv * cb + g->state_ssm * sb;
}

/* A hybrid of attention and state (Mamba, gated delta net) layers: vLLM grows
 * the attention block until one attention page holds at least one state page,
 * attn_block = 16 x cdiv(state_page, 16 x attention bytes per token), and pads
 * the state page to the attention page, so that both share one pool of equal
 * pages (vllm/model_executor/models/config.py,
 * HybridAttentionMambaModelConfig.verify_and_update_config, v0.11.0). A state
 * group then takes one block per request. */
static void hybrid_pages(vplan *p, const vs_engine_env *e, unsigned bits, uint64_t tp)
{
    uint64_t state = 0, tok = 0, grown;
    size_t i, j;
    for (i = 0; i < p->n; i++)
        if (p->g[i].kind == VS_KV_STATE && p->g[i].page > state)
            state = p->g[i].page;
    if (!state)
        return;
    for (j = 0; j < e->layout.n; j++) {
        const vs_kv_group *g = &e->layout.g[j];
        uint64_t t;
        if (g->kind == VS_KV_STATE || g->kind == VS_KV_NONE || !g->layers)
            continue;
        t = vs_kv_group_values_per_token(g, tp) * bits / 8;
        if (t > tok)
            tok = t;
    }
    if (!tok)
        return; /* state layers alone: each keeps its own page */
    grown = 16 * ((state + 16 * tok - 1) / (16 * tok));
    if (p->block < grown) {
        p->block = grown;
        p->grown = 1;
    }
    for (i = 0; i < p->n; i++)
        if (p->g[i].kind != VS_KV_STATE)
            p->g[i].page = p->block * p->g[i].vals * bits / 8;
    for (i = 0; i < p->n; i++)
        if (p->g[i].kind == VS_KV_STATE)
            p->g[i].page = p->block * tok; /* padded to the attention page */
}

static int plan(vplan *p, const vs_engine_env *e, vs_error *err)
{
    size_t i, j;
    unsigned bits = 0;
    uint64_t tp = e->tp ? e->tp : 1, minl = 0, maxl = 0;
    memset(p, 0, sizeof *p);
    p->block = p->block_given = vs_engine_get(e, "block_size")->u;
    p->mnbt = vs_engine_get(e, "max_num_batched_tokens")->u;
    if (!kv_bits(e, &bits))
        return vs_error_set(err, VS_EVALUE, "vllm: unknown kv_cache_dtype");
    for (i = 0; i < e->layout.n; i++) {
        const vs_kv_group *g = &e->layout.g[i];
        vgroup v;
        uint64_t vals;
        memset(&v, 0, sizeof v);
        if (g->kind == VS_KV_NONE || g->layers == 0)
            continue;
        v.kind = g->kind == VS_KV_CROSS ? VS_KV_FULL : g->kind;
        v.layers = g->layers;
        v.window = g->window;
        if (g->kind == VS_KV_STATE) {
            /* MambaSpec: one page per request, its heads split over the ranks */
            uint64_t sb = g->state_bytes;
            if (g->state_conv || g->state_ssm)
                sb = state_bytes(e, g);
            v.page = sb / tp + (sb % tp != 0);
        } else {
            vals = vs_kv_group_values_per_token(g, tp); /* heads x (k + v) or latent */
            v.vals = vals;
            v.page = p->block * vals * bits / 8;
        }
        /* merge layers of one type and page (vLLM groups by spec) */
        for (j = 0; j < p->n; j++)
            if (p->g[j].kind == v.kind && p->g[j].window == v.window && p->g[j].page == v.page)
                break;
        if (j < p->n)
            p->g[j].layers += v.layers;
        else
            p->g[p->n++] = v;
    }
    if (p->n == 0)
        return vs_error_set(err, VS_EVALUE, "vllm: the model's layout keeps no KV cache");
    hybrid_pages(p, e, bits, tp);
    for (i = 0; i < p->n; i++) {
        if (p->g[i].page > p->page)
            p->page = p->g[i].page;
        if (!minl || p->g[i].layers < minl)
            minl = p->g[i].layers;
        if (p->g[i].layers > maxl)
            maxl = p->g[i].layers;
    }
    for (i = 0; i < p->n; i++)
        if (p->g[i].page != p->page)
            p->padded = 1;
    if (p->n == 1) {
        p->uniform = 1;
        p->group_size = p->g[0].layers;
        p->ngroups = 1;
    } else {
        /* kv_cache_utils.py: groups of the smallest type's layer count, or of the
         * largest when it is less than 1.25 times the smallest (fewer padding layers) */
        p->group_size = maxl * 4 < minl * 5 ? maxl : minl;
        for (i = 0; i < p->n; i++)
            p->ngroups += (p->g[i].layers + p->group_size - 1) / p->group_size;
    }
    return 0;
}

static uint64_t cdiv(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

/* Pages one request of len tokens takes from one group of this kind. */
static uint64_t pages_per_request(const vplan *p, const vgroup *g, uint64_t len)
{
    uint64_t t;
    switch (g->kind) {
    case VS_KV_SLIDING:
        t = g->window - 1 + p->mnbt;
        return cdiv(t < len ? t : len, p->block) + 1;
    case VS_KV_CHUNKED:
        t = g->window + p->mnbt;
        return cdiv(t < len ? t : len, p->block);
    case VS_KV_STATE:
        return 1;
    default:
        return cdiv(len, p->block);
    }
}

/* Blocks one request of len tokens takes from the shared pool: per group of
 * layers, as get_max_concurrency_for_kv_cache_config sums them. */
static uint64_t blocks_per_request(const vplan *p, uint64_t len)
{
    size_t i;
    uint64_t n = 0;
    if (p->uniform)
        return pages_per_request(p, &p->g[0], len);
    for (i = 0; i < p->n; i++)
        n += cdiv(p->g[i].layers, p->group_size) * pages_per_request(p, &p->g[i], len);
    return n;
}

typedef struct fitdata {
    const vplan *p;
    uint64_t blocks, conc;
} fitdata;

static int fits_length(const void *data, uint64_t len)
{
    const fitdata *f = data;
    uint64_t need = blocks_per_request(f->p, len);
    return need && f->conc <= f->blocks / need;
}

static int kv(const vs_engine_env *e, uint64_t pool, vs_engine_kv *out, vs_error *err)
{
    vplan p;
    int rc;
    uint64_t len, bpr, blk_bytes;
    char pg[48], bb[48];
    fitdata fd;
    size_t i;
    uint64_t states = 0;
    if ((rc = plan(&p, e, err)) < 0)
        return rc;
    len = vs_engine_get(e, "max_model_len")->set ? vs_engine_get(e, "max_model_len")->u : e->length;
    blk_bytes = p.page * p.group_size; /* one block across the layers sharing it */
    if (!p.page || blk_bytes / p.page != p.group_size)
        return vs_error_set(err, VS_EVALUE, "vllm: the layout's page size is zero or out of range");
    out->page_bytes = blk_bytes;
    out->blocks = pool / blk_bytes;
    out->kv_tokens = p.uniform ? out->blocks * p.block : out->blocks / p.ngroups * p.block;
    vs_units_grouped(pg, sizeof pg, p.page);
    vs_units_grouped(bb, sizeof bb, out->blocks);
    if (len) {
        bpr = blocks_per_request(&p, len);
        out->max_concurrency = (double)out->blocks / (double)bpr;
        if (e->concurrency_known) {
            out->need_known = 1;
            out->need_bytes = bpr * e->concurrency * blk_bytes;
        }
    }
    out->seq_limit = vs_engine_get(e, "max_num_seqs")->u;
    out->seq_limited = out->seq_limit > 0; /* max_num_seqs=0 sets none */
    fd.p = &p;
    fd.blocks = out->blocks;
    fd.conc = e->concurrency_known ? e->concurrency : 1;
    /* a request never exceeds the pool's tokens */
    out->max_length = vs_engine_max_length(out->blocks * p.block, fits_length, &fd);
    for (i = 0; i < p.n; i++)
        if (p.g[i].kind == VS_KV_STATE)
            states += p.uniform ? 1 : cdiv(p.g[i].layers, p.group_size);
    /* every running request holds one block in each state group: the blocks
     * cap the requests scheduled at once, below max_num_seqs when fewer */
    if (states && (!out->seq_limited || out->blocks / states < out->seq_limit)) {
        out->seq_limit = out->blocks / states;
        out->seq_limited = 1;
    }
    out->start_rule = "vLLM refuses to start when the KV pool holds less than one request of "
                      "max_model_len (vllm/v1/core/kv_cache_utils.py check_enough_kv_cache_memory, "
                      "v0.10-0.11)";
    if (p.grown) {
        snprintf(out->rule, sizeof out->rule,
                 "hybrid: attention block grown from %llu to %llu tokens so that its page of %s B "
                 "holds a state page (padded to it); %llu KV cache groups of %llu layers; %s "
                 "blocks = pool // (page x %llu); %llu blocks per request of %llu tokens, one per "
                 "state group whatever the length",
                 (unsigned long long)p.block_given, (unsigned long long)p.block, pg,
                 (unsigned long long)p.ngroups, (unsigned long long)p.group_size, bb,
                 (unsigned long long)p.group_size,
                 len ? (unsigned long long)blocks_per_request(&p, len) : 0ull,
                 (unsigned long long)len);
    } else if (p.uniform)
        snprintf(out->rule, sizeof out->rule,
                 "page %s B per layer (%llu tokens); %s blocks = pool // page // %llu layers; "
                 "%llu blocks per request of %llu tokens",
                 pg, (unsigned long long)p.block, bb, (unsigned long long)p.group_size,
                 len ? (unsigned long long)blocks_per_request(&p, len) : 0ull,
                 (unsigned long long)len);
    else
        snprintf(out->rule, sizeof out->rule,
                 "page %s B per layer (%llu tokens)%s; %llu KV cache groups of %llu layers; %s "
                 "blocks = pool // (page x %llu); %llu blocks per request of %llu tokens "
                 "(sliding groups keep window - 1 + %llu tokens)",
                 pg, (unsigned long long)p.block,
                 p.padded ? ", smaller pages padded to the largest (an approximation)" : "",
                 (unsigned long long)p.ngroups, (unsigned long long)p.group_size, bb,
                 (unsigned long long)p.group_size,
                 len ? (unsigned long long)blocks_per_request(&p, len) : 0ull,
                 (unsigned long long)len, (unsigned long long)p.mnbt);
    return 0;
}

static int large_gpu(const vs_engine_env *e)
{
    const uint64_t gib70 = (uint64_t)70 << 30;
    const char *n = e->gpu_name;
    size_t i;
    if (e->total_bytes < gib70)
        return 0;
    for (i = 0; n && n[i] && n[i + 1] && n[i + 2] && n[i + 3]; i++)
        if ((n[i] == 'a' || n[i] == 'A') && n[i + 1] == '1' && n[i + 2] == '0' && n[i + 3] == '0')
            return 0; /* arg_utils.py: "a100" not in the device's name (vllm#17885) */
    return 1;
}

static void set_default(vs_engine_env *e, const char *name, uint64_t u)
{
    size_t i;
    if (vs_engine_key_index(e->engine, name, &i) && !e->val[i].given) {
        e->val[i].set = 1;
        e->val[i].u = u;
    }
}

static const vrelease *release_of(const char *version)
{
    size_t i;
    for (i = 0; version && i < NRELEASES; i++)
        if (!strcmp(releases[i].version, version))
            return &releases[i];
    return NULL;
}

const char *vs_vllm_sampler(const char *release, int image)
{
    const vrelease *r = release_of(release);
    if (r && r->flashinfer_sampler && image)
        return sampler_words[1];
    return sampler_words[r && r->triton_sampler ? 2 : 0];
}

int vs_vllm_graphs(const char *release)
{
    const vrelease *r = release_of(release);
    return r ? r->graphs : VS_VLLM_GRAPHS_UNKNOWN;
}

uint64_t vs_vllm_non_torch_release(const char *release, const char *architecture, const char *gpu,
                                   uint64_t tp)
{
    const vrelease *r = release_of(release);
    if (!r)
        return 0;
    return r->non_torch_extra + (r->pair_as_group && tp == 2 && !vs_engine_board_pcie(gpu)
                                     ? vs_engine_context_pair_as_group(architecture)
                                     : 0);
}

int vs_vllm_release_at(size_t i, const char **version, const char **carried, const char **changed)
{
    if (i >= NRELEASES)
        return 0;
    *version = releases[i].version;
    *carried = releases[i].carried;
    *changed = releases[i].changed;
    return 1;
}

/* The MXFP4 MoE's layout by the kernel mxfp4_backend= names as written (Triton
 * unless marlin: quantization/mxfp4.py); other schemes load as stored. */
static vs_engine_weights weights(const json_t *given)
{
    const char *be = json_string_value(json_object_get(given, "mxfp4_backend"));
    return be && !strcmp(be, "marlin") ? VS_ENGINE_WEIGHTS_VLLM_MARLIN : VS_ENGINE_WEIGHTS_VLLM;
}

static void defaults(vs_engine_env *e)
{
    const vs_engine_val *v = vs_engine_get(e, "version"), *seqs, *mnbt, *len,
                        *inst = vs_engine_get(e, "install");
    const vrelease *r = release_of(v ? v->word : NULL);
    size_t i;
    uint64_t s, m, l;
    int big = large_gpu(e);
    if (!r)
        r = &releases[NRELEASES - 1];
    /* the sampler's kernel unless written: the release's where FlashInfer is installed */
    if (vs_engine_key_index(e->engine, "sampler", &i) && !e->val[i].given) {
        e->val[i].set = 1;
        e->val[i].word =
            vs_vllm_sampler(r->version, inst && inst->word && !strcmp(inst->word, "image"));
    }
    set_default(e, "gpu_memory_utilization", r->gmu_ppm);
    set_default(e, "graphs_in_budget", (uint64_t)r->graphs_in_budget);
    seqs = vs_engine_get(e, "max_num_seqs");
    mnbt = vs_engine_get(e, "max_num_batched_tokens");
    len = vs_engine_get(e, "max_model_len");
    s = seqs->given ? seqs->u : big ? r->seqs_large : r->seqs;
    m = mnbt->given ? mnbt->u : big ? r->mnbt_large : r->mnbt;
    l = len->set ? len->u : e->length_known ? e->length : 0;
    if (!mnbt->given && l && s && l <= m / s)
        m = s * l; /* min(max_num_seqs x max_model_len, max_num_batched_tokens) */
    if (!seqs->given && s > m)
        s = m;
    set_default(e, "max_num_seqs", s);
    set_default(e, "max_num_batched_tokens", m);
}

/* The release's non_torch terms at e->tp (its row's non_torch_extra, a TP 2 group's
 * larger buffers), with why. */
static uint64_t non_torch_extra(const vs_engine_env *e, const char *architecture, char *note,
                                size_t note_size)
{
    const vs_engine_val *v = vs_engine_get(e, "version");
    const char *w = v ? v->word : NULL;
    const vrelease *r = release_of(w);
    uint64_t all = vs_vllm_non_torch_release(w, architecture, e->gpu_name, e->tp),
             pair = r ? all - r->non_torch_extra : 0;
    int n = 0;
    if (note_size)
        note[0] = '\0';
    if (!r)
        return 0;
    if (r->non_torch_extra)
        n = snprintf(note, note_size,
                     "; + %llu MiB on every rank under vLLM %s (fitted on one published 0.18.0 "
                     "run; no source sizes it)",
                     (unsigned long long)(r->non_torch_extra >> 20), w);
    if (pair && n >= 0 && (size_t)n < note_size) {
        char mib[32];
        vs_units_grouped(mib, sizeof mib, pair >> 20);
        snprintf(note + n, note_size - (size_t)n,
                 "; + %s MiB at tp 2 under vLLM %s: the NVLink rings and 2 x 32 MiB of NVLS "
                 "buffers of a larger group (fitted on two published 0.19.0 runs; no source "
                 "sizes it)",
                 mib, w);
    }
    return all;
}

const vs_engine vs_engine_vllm = {
    .name = "vllm",
    .summary = "vLLM: budget = CUDA total x gpu_memory_utilization, the rest after weights and "
               "runtime filled with KV pages",
    .help = help,
    .keys = keys,
    .runtime = VS_RT_BIT(VS_RT_NON_TORCH) | VS_RT_BIT(VS_RT_ACTIVATION_PEAK) |
               VS_RT_BIT(VS_RT_CUDA_GRAPHS) | VS_RT_BIT(VS_RT_ENCODER_PROFILE),
    .budget = budget,
    .kv = kv,
    .defaults = defaults,
    /* engine/engine_runtime.c: the profiling peak from max_num_batched_tokens, the
     * non-torch memory of the GPU generation; engine/cuda_graphs.c: the graphs
     * the release captures */
    .estimates = VS_RT_BIT(VS_RT_NON_TORCH) | VS_RT_BIT(VS_RT_ACTIVATION_PEAK) |
                 VS_RT_BIT(VS_RT_CUDA_GRAPHS),
    .non_torch_extra = non_torch_extra,
    .weights = weights};
