/* TensorRT-LLM: a fraction of the memory left free after weights and runtime. */
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "sheet/units.h"

static const char *const dtype_words[] = {"auto", "fp8", NULL};

static const vs_engine_key keys[] = {
    {"free_gpu_memory_fraction", VS_EKEY_FRACTION, "0.9",
     "tensorrt_llm/llmapi/llm_args.py (KvCacheConfig.free_gpu_memory_fraction, v0.2x)", NULL,
     "the fraction of the free memory (after weights and runtime) the KV cache takes"},
    {"tokens_per_block", VS_EKEY_COUNT, "32",
     "tensorrt_llm/llmapi/llm_args.py (tokens_per_block, v0.2x)", NULL, "tokens per KV block"},
    {"kv_cache_dtype", VS_EKEY_WORD, "auto", "tensorrt_llm/llmapi/llm_args.py", dtype_words,
     "auto: the model's 16-bit type"},
    {NULL, 0, NULL, NULL, NULL, NULL}};

static const char help[] =
    "TensorRT-LLM (tensorrt_llm/_torch/pyexecutor/_util.py KvCacheCreator, v0.2x):\n"
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
    .aliases = aliases};
