/* SGLang: a static fraction of the card for weights and the KV pool; token pages. */
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/sglang_internal.h"
#include "sheet/units.h"

static const char *const dtype_words[] = {"auto", "fp8_e4m3", "fp8_e5m2", "bf16", NULL};
static const char *const ssm_words[] = {"float32", "bfloat16", NULL};

static const char *const version_words[] = {"0.4", "0.5", NULL};

static const vs_engine_key keys[] = {
    {"mem_fraction_static", VS_EKEY_FRACTION, NULL,
     "unset: SGLang's choice by release (python/sglang/srt/server_args.py): 0.5 from the "
     "card's memory and tp (_handle_gpu_memory_settings, sgl-project/sglang#10975), 0.4 by tp "
     "(__post_init__): see the rules below",
     NULL, "the fraction of the free memory before loading for weights and the KV pool"},
    {"kv_cache_dtype", VS_EKEY_WORD, "auto", "python/sglang/srt/server_args.py (v0.4)", dtype_words,
     "auto: the model's 16-bit type"},
    /* hybrid models' pools (engine/sglang_hybrid.c) */
    {"mamba_full_memory_ratio", VS_EKEY_FRACTION, "0.9", "python/sglang/srt/server_args.py (0.5)",
     NULL, "state memory / attention KV memory when max_mamba_cache_size is not given"},
    {"max_mamba_cache_size", VS_EKEY_COUNT, NULL, "unset (python/sglang/srt/server_args.py)", NULL,
     "the state slots of a hybrid model, given"},
    {"mamba_ssm_dtype", VS_EKEY_WORD, "float32", "python/sglang/srt/server_args.py (0.5)",
     ssm_words, "the dtype of a recurrent layer's temporal state (its conv state is bf16)"},
    {"disable_radix_cache", VS_EKEY_BOOL, "no", "python/sglang/srt/server_args.py", NULL,
     "without the radix cache a hybrid model's requests take one state slot each, not three"},
    {"max_running_requests", VS_EKEY_COUNT, NULL, "unset (python/sglang/srt/server_args.py)", NULL,
     "the requests running at once, given"},
    {"version", VS_EKEY_WORD, "0.5",
     "the newest modelled release. 0.5: mem_fraction_static from the card's memory and tp "
     "(python/sglang/srt/server_args.py _handle_gpu_memory_settings, from "
     "sgl-project/sglang#10975 with #11076's constants, September 2025); 0.4: by tp alone "
     "(server_args.py __post_init__, v0.4). Both: requests capped at max_total_num_tokens - 1 "
     "(python/sglang/srt/managers/tp_worker.py at 0045f98e)",
     version_words, "the SGLang release whose defaults and rules apply"},
    {NULL, 0, NULL, NULL, NULL, NULL}};

static const char help[] =
    "SGLang (python/sglang/srt/model_executor/model_runner.py profile_max_num_token):\n"
    "  KV pool = free memory after loading the weights - free before x (1 - "
    "mem_fraction_static), so = (total - non_torch) x mem_fraction_static - weights, "
    "non_torch being what the GPU holds before the weights load (the CUDA context, NCCL)\n"
    "  mem_fraction_static, unset, by release (version=, the newest by default):\n"
    "    0.5: round((gpu_mem - reserved) / gpu_mem, 3), gpu_mem the card's total in MiB; "
    "reserved = 512 + 1.5 x chunked_prefill_size + 2 x cuda_graph_max_bs + 1024 x tp / 8 MiB, "
    "at least 10,240 on cards over 60 GiB; chunked_prefill_size and cuda_graph_max_bs (tp "
    "below 4 / 4 and more) by the card: under 20 GiB 2048, 8; under 35 GiB 2048, 24 / 80; "
    "under 60 GiB 4096, 32 / 160; under 160 GiB 8192, 256 / 512; else 16384, 512 "
    "(python/sglang/srt/server_args.py _handle_gpu_memory_settings, sgl-project/sglang#10975 "
    "and #11076; later main adds 8 MiB per piecewise CUDA graph size, not modelled). "
    "A multimodal model's reduction by its vision tower (adjust_mem_fraction_for_vlm) is not "
    "modelled: the budget is then an upper bound\n"
    "    0.4: 0.88 at tp 1, 0.87 at tp 2, 0.85 at tp 4, 0.81 at tp 8, 0.79 at tp 16 "
    "(server_args.py __post_init__, v0.4); x 0.95 for a multimodal model, given or not "
    "(model_runner.py ModelRunner.__init__, v0.4)\n"
    "  tokens = pool / (bytes of one token over every layer) (page size 1)\n"
    "  a pool smaller than the context still starts: each request is capped at "
    "max_total_num_tokens - 1 tokens, and the start fails only below 7 tokens "
    "(python/sglang/srt/managers/tp_worker.py max_req_len, max_req_input_len)\n"
    "  activations and CUDA graphs live in the remaining (1 - mem_fraction_static) of the "
    "free memory, beyond the budget.\n"
    "  estimate=yes: non_torch = the CUDA context against nvidia-smi's total: the memory "
    "that total counts beyond CUDA's own (never free to CUDA, whose free memory SGLang "
    "reads: an H200 143,771 - 143,156 MiB = 615, an L4 23,034 - 22,700 = 334, an RTX 4090 "
    "24,564 - 24,092 = 472, from published torch totals; the H200's 615 on a card with none "
    "published) + the local "
    "memory of the card's resident threads (SMs x threads per SM x the 1 KiB stack CUDA "
    "starts with: NVIDIA's rule, forums.developer.nvidia.com t/local-memory-management/289339; "
    "2,048 threads a SM on Hopper, 1,536 on Ada Lovelace) + 341 MiB (an H200 1,220 MiB, an "
    "L4 762), + the distributed set-up "
    "on Hopper and Ada Lovelace up to tp 8: 192 MiB x (tp - 1) on NVLink boards; on PCIe cards "
    "(the card's name says so: L4, RTX, H100 PCIe) NCCL's 154 MiB, + 24 MiB at tp 2 for the "
    "custom all-reduce's three 8 MiB buffers, which SGLang sets up on no more than two "
    "PCIe-only GPUs (custom_all_reduce.py); from published start-ups that print the card and "
    "\"Load weight begin. avail mem\" (fitted on one H200; held out: within 18.2%, two RTX "
    "4090s +0.6%, four L4s over PCIe at tp 4 +3.5%, the free memory before loading it gives "
    "0.2% from the printed one in the median, 0.4% at worst; the KV pool from the estimates "
    "alone +0.12% on the run the fixed part was fitted on, +5.3% and +9.25% on two held out, "
    "an H100 SXM at tp 1 and the four L4s); unknown on other architectures. activation_peak and "
    "cuda_graphs stay unknown: they sit outside "
    "the pool, in the reserve mem_fraction_static leaves.\n"
    "  hybrid models (Mamba or linear-attention layers; the 0.5 series, "
    "model_runner_kv_cache_mixin.py handle_max_mamba_cache at 001ccef): the pool is split "
    "into max_mamba_cache_size state slots, as many as pool x r / (1 + r) holds "
    "(r = mamba_full_memory_ratio, 0.9) unless given, each the recurrent layers' conv state "
    "in bf16 and temporal state in mamba_ssm_dtype (float32), and the attention layers' "
    "token pool; requests at once at most slots // 3 (slots // 1 with disable_radix_cache).";

/* SGLang 0.4's choice when mem_fraction_static is not given: by the
 * tensor-parallel size (python/sglang/srt/server_args.py __post_init__, v0.4). */
static uint64_t fraction_by_tp(uint64_t tp)
{
    return tp >= 16 ? 790000 : tp >= 8 ? 810000 : tp >= 4 ? 850000 : tp >= 2 ? 870000 : 880000;
}

/* SGLang 0.5's choice: python/sglang/srt/server_args.py _handle_gpu_memory_settings
 * (sgl-project/sglang#10975; the 512 MiB and the tp / 8 are #11076's, which halved
 * #10975's 1024 and tp / 4 days later) buckets the card's total (gpu_mem, MiB, from
 * get_device_memory_capacity: nvidia-smi's memory.total) into chunked_prefill_size and
 * cuda_graph_max_bs, reserves what activations and graphs take from them and rounds
 * (gpu_mem - reserved) / gpu_mem to three decimals (pp 1, no DP attention, no
 * speculative decoding, no piecewise CUDA graphs: later main reserves 8 MiB more per
 * piecewise capture size when they are on). Checked on sgl-project/sglang#18263's printed
 * 0.911 on a 288 GiB card at tp 1 (#10975's constants would give 0.909). Returns parts per million;
 * *cps, *cgbs the two defaults. */
static uint64_t fraction_by_memory(uint64_t total_bytes, uint64_t tp, uint64_t *cps, uint64_t *cgbs)
{
    double mem = (double)total_bytes / (1024.0 * 1024.0), reserved;
    int small_tp = tp < 4;
    if (mem < 20 * 1024)
        *cps = 2048, *cgbs = 8;
    else if (mem < 35 * 1024)
        *cps = 2048, *cgbs = small_tp ? 24 : 80;
    else if (mem < 60 * 1024)
        *cps = 4096, *cgbs = small_tp ? 32 : 160;
    else if (mem < 160 * 1024)
        *cps = 8192, *cgbs = small_tp ? 256 : 512;
    else
        *cps = 16384, *cgbs = 512;
    reserved = 512 + 1.5 * (double)(*cps > 2048 ? *cps : 2048) + 2.0 * (double)*cgbs +
               (double)(tp ? tp : 1) / 8.0 * 1024;
    if (mem > 60 * 1024 && reserved < 10 * 1024)
        reserved = 10 * 1024;
    if (mem <= reserved)
        return 0;
    /* round(x, 3) in parts per million */
    return (uint64_t)((mem - reserved) / mem * 1000.0 + 0.5) * 1000;
}

static int budget(const vs_engine_env *e, vs_engine_budget *out, vs_error *err)
{
    const vs_engine_val *f = vs_engine_get(e, "mem_fraction_static"),
                        *v = vs_engine_get(e, "version");
    int v04 = v && v->word && !strcmp(v->word, "0.4");
    uint64_t ppm, used, cps = 0, cgbs = 0, nt = 0, before = e->total_bytes;
    char tot[64], b[64], ntw[64], vlm[96] = "", why[160];
    (void)err;
    if (f->given) {
        ppm = f->u;
        snprintf(why, sizeof why, "%s", "");
    } else if (v04) {
        ppm = fraction_by_tp(e->tp);
        snprintf(why, sizeof why, " (SGLang 0.4's choice at this tp)");
    } else {
        ppm = fraction_by_memory(e->total_bytes, e->tp, &cps, &cgbs);
        snprintf(why, sizeof why,
                 " (SGLang 0.5's choice here: chunked_prefill_size %llu, cuda_graph_max_bs "
                 "%llu)",
                 (unsigned long long)cps, (unsigned long long)cgbs);
    }
    /* A multimodal model gets 5% less in 0.4, given or not: ModelRunner.__init__ runs
     * `if self.is_multimodal: self.mem_fraction_static *= 0.95` on the value from
     * server_args (python/sglang/srt/model_executor/model_runner.py, the 0.4 series);
     * sgl-project/sglang#4826's gemma-3-4b-it on an H200 printed a pool of 0.836 of the
     * free memory less the weights. 0.5 scales an unset fraction by the vision tower's
     * size (server_args.py adjust_mem_fraction_for_vlm), not modelled: an upper bound. */
    used = ppm;
    if (e->encoder && v04) {
        used = ppm * 95 / 100;
        snprintf(vlm, sizeof vlm, " x 0.95 (a multimodal model)");
    } else if (e->encoder && !f->given) {
        snprintf(vlm, sizeof vlm, " (less for a multimodal model's vision tower: not modelled)");
    }
    /* The fraction applies to the memory free before loading ("Load weight begin. avail
     * mem", the total_gpu_memory of profile_max_num_token): the card less what it already
     * holds, the non_torch item; that item is then counted inside the budget. */
    if (e->item_known[VS_RT_NON_TORCH] && e->item_bytes[VS_RT_NON_TORCH] < e->total_bytes) {
        nt = e->item_bytes[VS_RT_NON_TORCH];
        before = e->total_bytes - nt;
    }
    out->budget_bytes = vs_engine_fraction_floor(before, used) + nt;
    out->inside = VS_RT_BIT(VS_RT_NON_TORCH);
    out->outside = VS_RT_BIT(VS_RT_ACTIVATION_PEAK) | VS_RT_BIT(VS_RT_CUDA_GRAPHS);
    vs_units_round(tot, sizeof tot, before, VS_UNIT_GIB, 2);
    vs_units_round(b, sizeof b, out->budget_bytes, VS_UNIT_GIB, 2);
    vs_units_round(ntw, sizeof ntw, nt, VS_UNIT_GIB, 2);
    {
        char line[640];
        if (nt)
            snprintf(line, sizeof line,
                     "%s GiB free before loading (the card less non_torch %s GiB) x "
                     "mem_fraction_static %.6g%s%s + non_torch = %s GiB",
                     tot, ntw, (double)ppm / 1e6, why, vlm, b);
        else
            snprintf(line, sizeof line,
                     "%s GiB, the card (less what it holds before loading: non_torch, %s) x "
                     "mem_fraction_static %.6g%s%s = %s GiB",
                     tot, e->item_known[VS_RT_NON_TORCH] ? "0" : "unknown", (double)ppm / 1e6, why,
                     vlm, b);
        snprintf(out->rule, sizeof out->rule, "%.319s", line);
    }
    return 0;
}

static int kv(const vs_engine_env *e, uint64_t pool, vs_engine_kv *out, vs_error *err)
{
    const vs_engine_val *d = vs_engine_get(e, "kv_cache_dtype");
    unsigned bits;
    int rc;
    uint64_t per_req = vs_sglang_state_per_req(e);
    if (!vs_engine_kv_bits(d->word && !strcmp(d->word, "bf16") ? "bf16" : d->word,
                           vs_engine_model_bits(e), &bits))
        return vs_error_set(err, VS_EVALUE, "sglang: unknown kv_cache_dtype");
    if (per_req)
        rc = vs_sglang_hybrid_kv(e, pool, bits, per_req, out, err);
    else
        rc = vs_engine_token_kv(e, pool, bits, 1, NULL, out, err);
    if (rc < 0)
        return rc;
    /* SGLang starts with a pool smaller than the context: it caps each request at
     * max_req_len = min(context_len - 1, max_total_num_tokens - 1) and refuses only when
     * max_req_input_len = max_req_len - 5 is not positive ("Memory pool size is too
     * small"): python/sglang/srt/managers/tp_worker.py TpModelWorker.__init__ at 0045f98e */
    out->caps_length = 1;
    out->min_tokens = 7;
    out->length_cap = out->kv_tokens > 0 ? out->kv_tokens - 1 : 0;
    if (out->max_length > out->length_cap)
        out->max_length = out->length_cap;
    out->start_rule = "SGLang refuses to start when max_total_num_tokens - 1 - 5 is not positive "
                      "(python/sglang/srt/managers/tp_worker.py, \"Memory pool size is too "
                      "small\")";
    if (!per_req) {
        /* The requests at once, unset: min(max_total_num_tokens // 2, req_to_token_pool's
         * size), the pool's size max_num_reqs = min(max(int(tokens / context_len x 512),
         * 2048), 4096) (python/sglang/srt/managers/tp_worker.py TpModelWorker.__init__,
         * python/sglang/srt/model_executor/model_runner.py init_memory_pool; given, it is
         * both); context_len the card's length, which the launch command passes.
         * sgl-project/sglang#11830 printed max_running_requests=4096 for 2,261,377 tokens at
         * context_len 128,000. */
        const vs_engine_val *rr = vs_engine_get(e, "max_running_requests");
        uint64_t ctx = e->length_known && e->length ? e->length : 1, reqs;
        if (rr->set) {
            reqs = rr->u;
        } else {
            reqs = out->kv_tokens / ctx > 8 ? 4096 : out->kv_tokens * 512 / ctx;
            reqs = reqs < 2048 ? 2048 : reqs > 4096 ? 4096 : reqs;
            if (out->kv_tokens / 2 < reqs)
                reqs = out->kv_tokens / 2;
        }
        out->seq_limited = 1;
        out->seq_limit = reqs;
        if (out->max_concurrency > (double)reqs)
            out->max_concurrency = (double)reqs;
        snprintf(out->rule, sizeof out->rule,
                 "token pages of the model's layout, %u-bit values; requests capped at "
                 "max_total_num_tokens - 1 = %llu tokens (tp_worker.py max_req_len); at most "
                 "%llu requests at once (max_running_requests%s)",
                 bits, (unsigned long long)out->length_cap, (unsigned long long)reqs,
                 rr->set ? ", given" : ": min(tokens // 2, max_num_reqs)");
    }
    return 0;
}

const vs_engine vs_engine_sglang = {
    .name = "sglang",
    .summary = "SGLang: the free memory before loading x mem_fraction_static for weights and "
               "the KV pool",
    .help = help,
    .keys = keys,
    .runtime = VS_RT_BIT(VS_RT_NON_TORCH) | VS_RT_BIT(VS_RT_ACTIVATION_PEAK) |
               VS_RT_BIT(VS_RT_CUDA_GRAPHS),
    .budget = budget,
    .kv = kv,
    .estimates = VS_RT_BIT(VS_RT_NON_TORCH),
    .runtime_estimate = vs_sglang_runtime,
    .runtime_items_note = "SGLang's estimated runtime item is non_torch, what the GPU holds "
                          "before the weights load; activations and CUDA graphs sit outside "
                          "the pool, in the reserve mem_fraction_static leaves"};
