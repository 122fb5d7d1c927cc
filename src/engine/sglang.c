/* SGLang: a static fraction of the card for weights and the KV pool; token pages. */
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/sglang_internal.h"
#include "sheet/units.h"

static const char *const dtype_words[] = {"auto", "fp8_e4m3", "fp8_e5m2", "bf16", NULL};
static const char *const ssm_words[] = {"float32", "bfloat16", NULL};

static const char *const version_words[] = {"0.4", NULL};

static const vs_engine_key keys[] = {
    {"mem_fraction_static", VS_EKEY_FRACTION, "0.88",
     "python/sglang/srt/server_args.py __post_init__ (v0.4): unset, it is chosen from the "
     "tensor-parallel size: 0.88 at tp 1, 0.87 at tp 2-3, 0.85 at tp 4-7, 0.81 at tp 8-15, "
     "0.79 at tp 16 and more",
     NULL, "the fraction of the card for weights and the KV pool"},
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
    {"version", VS_EKEY_WORD, "0.4",
     "the newest modelled release (its one row): mem_fraction_static by tp "
     "(python/sglang/srt/server_args.py __post_init__, v0.4), requests capped at "
     "max_total_num_tokens - 1 (python/sglang/srt/managers/tp_worker.py at 0045f98e)",
     version_words, "the SGLang release whose defaults and rules apply"},
    {NULL, 0, NULL, NULL, NULL, NULL}};

static const char help[] =
    "SGLang (python/sglang/srt/model_executor/model_runner.py profile_max_num_token, v0.4):\n"
    "  KV pool = free memory after loading the weights - total x (1 - mem_fraction_static), "
    "so = total x mem_fraction_static - weights - non_torch\n"
    "  mem_fraction_static, unset: 0.88 at tp 1, 0.87 at tp 2, 0.85 at tp 4, 0.81 at tp 8, "
    "0.79 at tp 16 (python/sglang/srt/server_args.py __post_init__, v0.4); x 0.95 for a "
    "multimodal model, given or not (model_runner.py ModelRunner.__init__, v0.4)\n"
    "  tokens = pool / (bytes of one token over every layer) (page size 1)\n"
    "  a pool smaller than the context still starts: each request is capped at "
    "max_total_num_tokens - 1 tokens, and the start fails only below 7 tokens "
    "(python/sglang/srt/managers/tp_worker.py max_req_len, max_req_input_len)\n"
    "  activations and CUDA graphs live in the remaining (1 - mem_fraction_static) of the "
    "card, beyond the budget.\n"
    "  hybrid models (Mamba or linear-attention layers; the 0.5 series, "
    "model_runner_kv_cache_mixin.py handle_max_mamba_cache at 001ccef): the pool is split "
    "into max_mamba_cache_size state slots, as many as pool x r / (1 + r) holds "
    "(r = mamba_full_memory_ratio, 0.9) unless given, each the recurrent layers' conv state "
    "in bf16 and temporal state in mamba_ssm_dtype (float32), and the attention layers' "
    "token pool; requests at once at most slots // 3 (slots // 1 with disable_radix_cache).";

/* SGLang's own choice when mem_fraction_static is not given: by the
 * tensor-parallel size (python/sglang/srt/server_args.py __post_init__, v0.4). */
static uint64_t fraction_by_tp(uint64_t tp)
{
    return tp >= 16 ? 790000 : tp >= 8 ? 810000 : tp >= 4 ? 850000 : tp >= 2 ? 870000 : 880000;
}

static int budget(const vs_engine_env *e, vs_engine_budget *out, vs_error *err)
{
    const vs_engine_val *f = vs_engine_get(e, "mem_fraction_static");
    uint64_t ppm = f->given ? f->u : fraction_by_tp(e->tp), used;
    char tot[64], b[64], vlm[96] = "";
    (void)err;
    /* A multimodal model gets 5% less, given or not: ModelRunner.__init__ runs
     * `if self.is_multimodal: self.mem_fraction_static *= 0.95` on the value from
     * server_args (python/sglang/srt/model_executor/model_runner.py, the 0.4 series);
     * sgl-project/sglang#4826's gemma-3-4b-it on an H200 printed a pool of 0.836 of the
     * free memory less the weights */
    used = e->encoder ? ppm * 95 / 100 : ppm;
    if (e->encoder)
        snprintf(vlm, sizeof vlm, " x 0.95 (a multimodal model)");
    out->budget_bytes = vs_engine_fraction_floor(e->total_bytes, used);
    out->inside = VS_RT_BIT(VS_RT_NON_TORCH);
    out->outside = VS_RT_BIT(VS_RT_ACTIVATION_PEAK) | VS_RT_BIT(VS_RT_CUDA_GRAPHS);
    vs_units_round(tot, sizeof tot, e->total_bytes, VS_UNIT_GIB, 2);
    vs_units_round(b, sizeof b, out->budget_bytes, VS_UNIT_GIB, 2);
    snprintf(out->rule, sizeof out->rule, "%s GiB x mem_fraction_static %.6g%s%s = %s GiB", tot,
             (double)ppm / 1e6, f->given ? "" : " (SGLang's choice at this tp)", vlm, b);
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
    if (!per_req)
        snprintf(out->rule, sizeof out->rule,
                 "token pages of the model's layout, %u-bit values; requests capped at "
                 "max_total_num_tokens - 1 = %llu tokens (tp_worker.py max_req_len)",
                 bits, (unsigned long long)out->length_cap);
    return 0;
}

const vs_engine vs_engine_sglang = {
    .name = "sglang",
    .summary = "SGLang: total x mem_fraction_static for weights and the KV pool",
    .help = help,
    .keys = keys,
    .runtime = VS_RT_BIT(VS_RT_NON_TORCH) | VS_RT_BIT(VS_RT_ACTIVATION_PEAK) |
               VS_RT_BIT(VS_RT_CUDA_GRAPHS),
    .budget = budget,
    .kv = kv};
