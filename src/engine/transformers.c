/* transformers generate(): the model's own cache; eager attention materialises the scores. */
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "sheet/units.h"

static const char *const attention_words[] = {"sdpa", "eager", "flash", NULL};
static const char *const cache_words[] = {"dynamic", "static", NULL};

static const vs_engine_key keys[] = {
    {"attention", VS_EKEY_WORD, "sdpa",
     "src/transformers/modeling_utils.py (attn_implementation: sdpa when available, v4.4x)",
     attention_words,
     "eager materialises batch x heads x length^2 scores per layer; sdpa and flash do not"},
    {"cache", VS_EKEY_WORD, "dynamic",
     "src/transformers/generation/utils.py (DynamicCache unless cache_implementation, v4.4x)",
     cache_words, "dynamic grows with the sequence; static allocates max_cache_len up front"},
    {NULL, 0, NULL, NULL, NULL, NULL}};

static const char help[] =
    "transformers generate() (src/transformers/generation/utils.py, cache_utils.py, v4.4x):\n"
    "  budget = the whole card (PyTorch's caching allocator may take all of it)\n"
    "  KV = the model's own layout: DynamicCache keeps every token of full layers and the "
    "window of sliding layers (DynamicSlidingWindowLayer); StaticCache allocates "
    "max_cache_len = the card's length for the whole batch up front\n"
    "  attention=eager adds the score matrix of one layer: batch x heads x length^2 x (2 "
    "bytes of scores + 4 of the float32 softmax), eager_attention_forward in "
    "models/llama/modeling_llama.py; sdpa and flash attention work in tiles and keep no "
    "such matrix\n"
    "Runtime items: non_torch (CUDA context), activation_peak (the prefill's largest "
    "transient); unknown unless measured.";

static int budget(const vs_engine_env *e, vs_engine_budget *out, vs_error *err)
{
    char tot[64];
    (void)err;
    out->budget_bytes = e->total_bytes;
    out->inside = VS_RT_BIT(VS_RT_NON_TORCH) | VS_RT_BIT(VS_RT_ACTIVATION_PEAK);
    vs_units_round(tot, sizeof tot, e->total_bytes, VS_UNIT_GIB, 2);
    snprintf(out->rule, sizeof out->rule, "the whole card, %s GiB", tot);
    return 0;
}

/* eager: one layer's scores for one sequence of length tokens */
static uint64_t scores(const vs_engine_env *e, uint64_t length)
{
    uint64_t tp = e->tp ? e->tp : 1, heads = (e->heads + tp - 1) / tp;
    return heads * length * length * 6;
}

static int kv(const vs_engine_env *e, uint64_t pool, vs_engine_kv *out, vs_error *err)
{
    const vs_engine_val *a = vs_engine_get(e, "attention");
    int eager = a->word && !strcmp(a->word, "eager");
    unsigned bits = vs_engine_model_bits(e);
    int rc;
    if (eager && !e->heads_known)
        return vs_error_set(err, VS_EVALUE,
                            "transformers attention=eager needs the model's query heads "
                            "(card.arch heads: `model NAME config=PATH`)");
    rc = vs_engine_token_kv(e, pool, bits, 1, eager ? scores : NULL, out, err);
    if (rc < 0)
        return rc;
    snprintf(out->rule, sizeof out->rule, "%s cache of the model's layout, %u-bit values%s",
             vs_engine_get(e, "cache")->word, bits,
             eager ? "; plus eager attention's scores: heads x length^2 x 6 bytes per sequence"
                   : "; sdpa/flash: no score matrix");
    return 0;
}

const vs_engine vs_engine_transformers = {
    .name = "transformers",
    .summary =
        "transformers generate(): the model's own cache; eager attention adds the score matrix",
    .help = help,
    .keys = keys,
    .runtime = VS_RT_BIT(VS_RT_NON_TORCH) | VS_RT_BIT(VS_RT_ACTIVATION_PEAK),
    .budget = budget,
    .kv = kv};
