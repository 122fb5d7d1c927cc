/* llama.cpp: exactly the cells of its context, padded to 256, per sequence stream. */
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "sheet/units.h"

static const char *const cache_words[] = {"f16",  "bf16", "f32",  "q8_0",   "q4_0",
                                          "q4_1", "q5_0", "q5_1", "iq4_nl", NULL};
static const char *const fa_words[] = {"auto", "on", "off", NULL};

static const vs_engine_key keys[] = {
    {"ctx", VS_EKEY_COUNT, NULL, "the card's length", NULL,
     "context per sequence (llama-server's n_ctx_slot); the cache holds ctx x parallel cells"},
    {"parallel", VS_EKEY_COUNT, NULL, "the card's concurrency", NULL,
     "sequences (-np): one stream of cells each unless kv_unified"},
    {"ubatch", VS_EKEY_COUNT, "512", "common/common.h (n_ubatch = 512, b6xxx)", NULL,
     "physical batch: sliding-window layers keep window + ubatch cells"},
    {"flash_attn", VS_EKEY_WORD, "auto", "common/arg.cpp (-fa auto, b6xxx)", fa_words,
     "a quantised V cache needs flash attention (src/llama-context.cpp)"},
    {"cache_type_k", VS_EKEY_WORD, "f16", "common/common.h (cache_type_k = GGML_TYPE_F16)",
     cache_words, "K cache type; q8_0 keeps 34 bytes per 32 values (ggml-common.h)"},
    {"cache_type_v", VS_EKEY_WORD, "f16", "common/common.h (cache_type_v = GGML_TYPE_F16)",
     cache_words, "V cache type"},
    {"swa_full", VS_EKEY_BOOL, "no", "common/arg.cpp (--swa-full off)", NULL,
     "full-size cache for sliding-window layers too"},
    {"kv_unified", VS_EKEY_BOOL, "no", "include/llama.h (llama_context_default_params)", NULL,
     "one stream of cells shared by every sequence"},
    {"fit_target", VS_EKEY_BYTES, "1024MiB", "common/arg.cpp (--fit-target 1024 MiB per device)",
     NULL, "the margin --fit keeps free on each device"},
    {NULL, 0, NULL, NULL, NULL, NULL}};

static const char help[] =
    "llama.cpp's allocation (src/llama-context.cpp, src/llama-kv-cache.cpp, "
    "src/llama-kv-cache-iswa.cpp, b6xxx-b7xxx):\n"
    "  budget = total - fit_target (common/arg.cpp --fit: 1024 MiB free per device)\n"
    "  n_ctx = pad(ctx x parallel, 256); per stream (one per sequence unless kv_unified) "
    "n_ctx_seq = pad(n_ctx / parallel, 256)\n"
    "  full layers: n_ctx_seq cells per stream; sliding-window layers: pad(min(n_ctx_seq, "
    "window x (kv_unified ? parallel : 1) + ubatch), 256) (swa_full: as full)\n"
    "  bytes = cells x layers x (kv_heads x head_dim x K type + kv_heads x head_dim_v x V "
    "type), f16 2 bytes, q8_0 34 per 32 values, q4_0 18 per 32 (ggml-common.h)\n"
    "  the sliding-window cache stays f16 whatever the cache types (pull request #21277)\n"
    "  older releases padded n_ctx to 256 with flash attention and 32 without "
    "(llama_kv_cache_unified::get_padding)\n"
    "Runtime items: non_torch (CUDA context and cuBLAS), activation_peak (the compute buffer, "
    "'CUDA0 compute buffer size'); unknown unless measured.";

/* bytes per 32 values of a ggml cache type (ggml-common.h) */
static unsigned per32(const char *w)
{
    if (!w || !strcmp(w, "f16") || !strcmp(w, "bf16"))
        return 64;
    if (!strcmp(w, "f32"))
        return 128;
    if (!strcmp(w, "q8_0"))
        return 34;
    if (!strcmp(w, "q4_0") || !strcmp(w, "iq4_nl"))
        return 18;
    if (!strcmp(w, "q4_1"))
        return 20;
    if (!strcmp(w, "q5_0"))
        return 22;
    if (!strcmp(w, "q5_1"))
        return 24;
    return 64;
}

static uint64_t pad(uint64_t x, uint64_t n)
{
    return (x + n - 1) / n * n;
}

typedef struct lc {
    const vs_engine_env *e;
    unsigned k32, v32;
    uint64_t ubatch;
    int swa_full, unified;
} lc;

static void lc_init(lc *c, const vs_engine_env *e)
{
    c->e = e;
    c->k32 = per32(vs_engine_get(e, "cache_type_k")->word);
    c->v32 = per32(vs_engine_get(e, "cache_type_v")->word);
    c->ubatch = vs_engine_get(e, "ubatch")->u;
    c->swa_full = (int)vs_engine_get(e, "swa_full")->u;
    c->unified = (int)vs_engine_get(e, "kv_unified")->u;
}

/* KV bytes and full-layer cells for ctx tokens per sequence x par sequences. */
static uint64_t lc_bytes(const lc *c, uint64_t ctx, uint64_t par, uint64_t *cells_out)
{
    const vs_engine_env *e = c->e;
    uint64_t n_ctx, streams, seq, total = 0;
    uint64_t tp = e->tp ? e->tp : 1;
    size_t i;
    if (par == 0)
        par = 1;
    n_ctx = pad(ctx * par, 256);
    streams = c->unified ? 1 : par;
    seq = c->unified ? n_ctx : pad(n_ctx / par, 256);
    if (cells_out)
        *cells_out = seq * streams;
    for (i = 0; i < e->layout.n; i++) {
        const vs_kv_group *g = &e->layout.g[i];
        uint64_t cells = seq, heads = vs_kv_group_heads_per_gpu(g, tp), row;
        uint64_t dv = g->head_dim_v ? g->head_dim_v : g->head_dim;
        switch (g->kind) {
        case VS_KV_SLIDING:
        case VS_KV_CHUNKED:
            if (!c->swa_full) {
                uint64_t w = g->window * (c->unified ? par : 1) + c->ubatch;
                cells = pad(seq < w ? seq : w, 256);
            }
            /* the sliding-window cache stays f16 whatever cache_type_k/v say
             * (ggml-org/llama.cpp pull request #21277, 2026) */
            row = (heads * g->head_dim * 64 + 31) / 32 + (heads * dv * 64 + 31) / 32;
            total += g->layers * cells * streams * row;
            break;
        case VS_KV_FULL:
        case VS_KV_CROSS:
            row = (heads * g->head_dim * c->k32 + 31) / 32 + (heads * dv * c->v32 + 31) / 32;
            total += g->layers * cells * streams * row;
            break;
        case VS_KV_LATENT:
            total += g->layers * cells * streams * ((g->latent * c->k32 + 31) / 32);
            break;
        case VS_KV_STATE:
            total += g->layers * g->state_bytes * par;
            break;
        default:
            break;
        }
    }
    return total;
}

static int budget(const vs_engine_env *e, vs_engine_budget *out, vs_error *err)
{
    uint64_t target = vs_engine_get(e, "fit_target")->u;
    char tot[64], t[64], b[64];
    (void)err;
    out->budget_bytes = e->total_bytes > target ? e->total_bytes - target : 0;
    out->inside = VS_RT_BIT(VS_RT_NON_TORCH) | VS_RT_BIT(VS_RT_ACTIVATION_PEAK);
    vs_units_round(tot, sizeof tot, e->total_bytes, VS_UNIT_GIB, 2);
    vs_units_round(t, sizeof t, target, VS_UNIT_MIB, 0);
    vs_units_round(b, sizeof b, out->budget_bytes, VS_UNIT_GIB, 2);
    snprintf(out->rule, sizeof out->rule, "%s GiB - fit_target %s MiB = %s GiB", tot, t, b);
    return 0;
}

typedef struct lfit {
    const lc *c;
    uint64_t pool, fixed; /* fixed: the other dimension */
    int vary_ctx;
} lfit;

static int fits(const void *data, uint64_t x)
{
    const lfit *f = data;
    uint64_t b =
        f->vary_ctx ? lc_bytes(f->c, x, f->fixed, NULL) : lc_bytes(f->c, f->fixed, x, NULL);
    return b <= f->pool;
}

static int kv(const vs_engine_env *e, uint64_t pool, vs_engine_kv *out, vs_error *err)
{
    lc c;
    const vs_engine_val *ctxv = vs_engine_get(e, "ctx"), *parv = vs_engine_get(e, "parallel"),
                        *fa = vs_engine_get(e, "flash_attn");
    uint64_t ctx = ctxv->set ? ctxv->u : e->length, par = parv->set ? parv->u : e->concurrency,
             cells = 0;
    lfit f;
    char need[64];
    lc_init(&c, e);
    if (!parv->set && !e->concurrency_known)
        par = 1;
    if (fa->word && !strcmp(fa->word, "off") && c.v32 != 64 && c.v32 != 128)
        return vs_error_set(err, VS_EVALUE,
                            "llamacpp: a quantised V cache (cache_type_v) needs flash attention "
                            "(src/llama-context.cpp refuses it with flash_attn off)");
    if (ctx && par) {
        out->need_bytes = lc_bytes(&c, ctx, par, &cells);
        out->need_known = 1;
        out->kv_tokens = cells;
    }
    f.c = &c;
    f.pool = pool;
    if (ctx) { /* how many sequences of ctx tokens */
        f.fixed = ctx;
        f.vary_ctx = 0;
        out->max_concurrency = (double)vs_engine_max_length(1u << 20, fits, &f);
    }
    f.fixed = par ? par : 1;
    f.vary_ctx = 1;
    out->max_length = vs_engine_max_length((uint64_t)1 << 24, fits, &f);
    vs_units_round(need, sizeof need, out->need_bytes, VS_UNIT_MIB, 2);
    snprintf(out->rule, sizeof out->rule,
             "%llu cells (ctx %llu x parallel %llu padded to 256%s), K %s V %s: %s MiB",
             (unsigned long long)cells, (unsigned long long)ctx, (unsigned long long)par,
             c.unified ? ", one unified stream" : " per stream",
             vs_engine_get(e, "cache_type_k")->word, vs_engine_get(e, "cache_type_v")->word, need);
    return 0;
}

const vs_engine vs_engine_llamacpp = {
    "llamacpp",
    "llama.cpp: the cells of ctx x parallel, padded to 256; sliding layers window + ubatch",
    help,
    keys,
    VS_RT_BIT(VS_RT_NON_TORCH) | VS_RT_BIT(VS_RT_ACTIVATION_PEAK),
    budget,
    kv};
