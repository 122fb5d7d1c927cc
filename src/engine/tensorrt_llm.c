/* TensorRT-LLM: a fraction of the memory left free after weights and runtime. */
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "sheet/units.h"

static const char *const dtype_words[] = {"auto", "fp8", NULL};

/* TensorRT-LLM's defaults, release by release:
 *   0.21.0: the TensorRT engine workflow is the default (`tensorrt_llm.LLM`,
 *     trtllm-serve), its paged KV cache in blocks of 64 tokens
 *     (tensorrt_llm/plugin/plugin.py PluginConfig._tokens_per_block = 64);
 *   1.0.0: the PyTorch workflow becomes the default (NVIDIA/TensorRT-LLM#5312, landed
 *     after the 0.21 branch), blocks of 32 tokens (tensorrt_llm/llmapi/llm_args.py
 *     KvCacheConfig.tokens_per_block = 32).
 * Both take free_gpu_memory_fraction 0.9 of the memory free after loading
 * (KvCacheConfig: "Default is 90%"). */
typedef struct trelease {
    const char *version;
    uint64_t tokens_per_block;
} trelease;

static const trelease releases[] = {{"0.21.0", 64}, {"1.0.0", 32}};

static const char *const version_words[] = {"0.21.0", "1.0.0", NULL};

static const vs_engine_key keys[] = {
    {"free_gpu_memory_fraction", VS_EKEY_FRACTION, "0.9",
     "tensorrt_llm/llmapi/llm_args.py (KvCacheConfig.free_gpu_memory_fraction: \"Default is "
     "90%\", 0.21.0 and 1.0.0)",
     NULL, "the fraction of the free memory (after weights and runtime) the KV cache takes"},
    {"tokens_per_block", VS_EKEY_COUNT, "32",
     "the release's (version=): 32 in 1.0.0's PyTorch workflow (tensorrt_llm/llmapi/llm_args.py "
     "KvCacheConfig.tokens_per_block), 64 in 0.21.0's TensorRT engines "
     "(tensorrt_llm/plugin/plugin.py PluginConfig)",
     NULL, "tokens per KV block"},
    {"kv_cache_dtype", VS_EKEY_WORD, "auto", "tensorrt_llm/llmapi/llm_args.py", dtype_words,
     "auto: the model's 16-bit type"},
    {"version", VS_EKEY_WORD, "1.0.0", "the newest release modelled here", version_words,
     "the TensorRT-LLM release whose defaults apply: tokens_per_block when not written (0.21.0: "
     "TensorRT engines, 64; 1.0.0: the PyTorch workflow, 32)"},
    {NULL, 0, NULL, NULL, NULL, NULL}};

static const char help[] =
    "TensorRT-LLM (tensorrt_llm/_torch/pyexecutor/_util.py KvCacheCreator, v0.2x):\n"
    "  version= names the release whose defaults apply (without it the newest modelled, "
    "1.0.0): 0.21.0 serves TensorRT engines, KV blocks of 64 tokens "
    "(tensorrt_llm/plugin/plugin.py); 1.0.0 the PyTorch workflow (NVIDIA/TensorRT-LLM#5312), "
    "blocks of 32 (tensorrt_llm/llmapi/llm_args.py)\n"
    "  KV pool = free_gpu_memory_fraction x (total - weights - non_torch - activation_peak "
    "- cuda_graphs), the memory free after loading and a profiling run\n"
    "  blocks = pool / (tokens_per_block x bytes of one token over every layer); a request "
    "takes cdiv(length, tokens_per_block) blocks.";

static int budget(const vs_engine_env *e, vs_engine_budget *out, vs_error *err)
{
    const vs_engine_val *f = vs_engine_get(e, "free_gpu_memory_fraction");
    char tot[64];
    (void)err;
    out->budget_bytes = e->total_bytes;
    out->pool_fraction = 1;
    out->pool_fraction_ppm = f->u;
    out->inside = VS_RT_BIT(VS_RT_NON_TORCH) | VS_RT_BIT(VS_RT_ACTIVATION_PEAK) |
                  VS_RT_BIT(VS_RT_CUDA_GRAPHS);
    vs_units_round(tot, sizeof tot, e->total_bytes, VS_UNIT_GIB, 2);
    snprintf(out->rule, sizeof out->rule,
             "the whole card, %s GiB; the KV pool is %.6g of what weights and runtime leave", tot,
             (double)f->u / 1e6);
    return 0;
}

static int kv(const vs_engine_env *e, uint64_t pool, vs_engine_kv *out, vs_error *err)
{
    const vs_engine_val *d = vs_engine_get(e, "kv_cache_dtype");
    uint64_t tpb = vs_engine_get(e, "tokens_per_block")->u;
    unsigned bits;
    int rc;
    if (!vs_engine_kv_bits(d->word, vs_engine_model_bits(e), &bits))
        return vs_error_set(err, VS_EVALUE, "tensorrt_llm: unknown kv_cache_dtype");
    if ((rc = vs_engine_token_kv(e, pool, bits, tpb, NULL, out, err)) < 0)
        return rc;
    snprintf(out->rule, sizeof out->rule, "blocks of %llu tokens, %u-bit values",
             (unsigned long long)tpb, bits);
    return 0;
}

/* The release's defaults, in the keys not written on the line. */
static void defaults(vs_engine_env *e)
{
    const vs_engine_val *v = vs_engine_get(e, "version");
    const trelease *r = &releases[sizeof releases / sizeof releases[0] - 1];
    size_t i, k;
    for (i = 0; v && v->word && i < sizeof releases / sizeof releases[0]; i++)
        if (!strcmp(releases[i].version, v->word))
            r = &releases[i];
    if (vs_engine_key_index(e->engine, "tokens_per_block", &k) && !e->val[k].given) {
        e->val[k].set = 1;
        e->val[k].u = r->tokens_per_block;
    }
}

/* the package's name and the repository's short one */
static const char *const aliases[] = {"tensorrt-llm", "trtllm", NULL};

const vs_engine vs_engine_tensorrt_llm = {
    .name = "tensorrt_llm",
    .summary =
        "TensorRT-LLM: free_gpu_memory_fraction of the memory left after weights and runtime",
    .help = help,
    .keys = keys,
    .runtime = VS_RT_BIT(VS_RT_NON_TORCH) | VS_RT_BIT(VS_RT_ACTIVATION_PEAK) |
               VS_RT_BIT(VS_RT_CUDA_GRAPHS),
    .budget = budget,
    .kv = kv,
    .defaults = defaults,
    .aliases = aliases};
