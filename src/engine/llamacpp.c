/* llama.cpp: the cells of its context as it allocates them, on the layout its own
 * architecture rules give (engine/llamacpp_arch.h), the weights it keeps on the
 * host, and its budget from free memory. Read at llama.cpp commit 0c1e570. */
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/llamacpp.h"
#include "engine/llamacpp_arch.h"
#include "engine/llamacpp_compute.h"
#include "sheet/units.h"

static const char *const cache_words[] = {"f16",  "bf16", "f32",  "q8_0",   "q4_0",
                                          "q4_1", "q5_0", "q5_1", "iq4_nl", NULL};
static const char *const fa_words[] = {"auto", "on", "off", NULL};

/* llama.cpp's defaults, build by build: each row what changed at that build.
 *   b6324: before ggml-org/llama.cpp#15434: flash attention off unless -fa is given, no
 *     layers on the GPU unless -ngl is given (llama_model_default_params n_gpu_layers 0),
 *     no --fit (the context is allocated as asked: no margin kept);
 *   b6325: #15434 "use FA + max. GPU layers by default" (release b6325): -fa auto, -ngl
 *     all layers; still no --fit;
 *   0c1e570 (the tree llama-cpp-python 0.3.36 vendors, read for every rule here; the
 *     tree names no build number): --fit on by default with --fit-target 1024 MiB per
 *     device (common/arg.cpp, common/fit.cpp; #16653).
 * Not a row: from b7079 llama-server with -np omitted takes 4 slots and a unified cache
 * (#16736, clarified by #17997); `launch` always writes -np, so that rule never applies
 * to a command this sheet writes, and kv_unified stays no unless given. */
typedef struct lrelease {
    const char *build;
    const char *flash_attn;
    int all_layers;      /* -ngl: all layers (else 0) */
    uint64_t fit_target; /* --fit's margin; 0: no --fit */
} lrelease;

static const lrelease releases[] = {
    {"b6324", "off", 0, 0},
    {"b6325", "auto", 1, 0},
    {"0c1e570", "auto", 1, (uint64_t)1024 << 20},
};

static const char *const build_words[] = {"b6324", "b6325", "0c1e570", NULL};

static const vs_engine_key keys[] = {
    {"ctx", VS_EKEY_COUNT, NULL, "the card's length", NULL,
     "context per sequence (llama-server's n_ctx_slot); llama.cpp's -c is ctx x parallel"},
    {"n_ctx", VS_EKEY_COUNT, NULL, "ctx x parallel", NULL,
     "-c: the cells of every sequence together, when given instead of ctx"},
    {"parallel", VS_EKEY_COUNT, NULL, "the card's concurrency", NULL,
     "sequences (-np): one stream of cells each unless kv_unified"},
    {"ubatch", VS_EKEY_COUNT, "512", "common/common.h (n_ubatch = 512) at 0c1e570", NULL,
     "physical batch (-ub): sliding-window layers keep window + ubatch cells"},
    {"batch", VS_EKEY_COUNT, "2048", "common/common.h (n_batch = 2048) at 0c1e570", NULL,
     "logical batch (-b): the ubatch is at most min(batch, -c)"},
    {"flash_attn", VS_EKEY_WORD, "auto",
     "the build's (build=): common/arg.cpp (-fa auto) at 0c1e570 and from b6325 "
     "(ggml-org/llama.cpp#15434); off in b6324",
     fa_words, "a quantised V cache needs flash attention (src/llama-context.cpp)"},
    {"cache_type_k", VS_EKEY_WORD, "f16", "common/common.h (cache_type_k = GGML_TYPE_F16)",
     cache_words, "K cache type (-ctk), on the full and the sliding-window cache alike"},
    {"cache_type_v", VS_EKEY_WORD, "f16", "common/common.h (cache_type_v = GGML_TYPE_F16)",
     cache_words, "V cache type (-ctv)"},
    {"swa_full", VS_EKEY_BOOL, "no", "common/arg.cpp (--swa-full off)", NULL,
     "full-size cache for sliding-window layers too"},
    {"kv_unified", VS_EKEY_BOOL, "no", "common/common.h (kv_unified = false)", NULL,
     "one stream of cells shared by every sequence (llama-server sets it with -np auto)"},
    {"n_gpu_layers", VS_EKEY_COUNT, NULL,
     "the build's (build=): all layers from b6325 (-ngl -1, src/llama-model.cpp; #15434); 0 in "
     "b6324",
     NULL, "-ngl: the last n_gpu_layers - 1 repeating layers and the output layer on the GPU"},
    {"no_kv_offload", VS_EKEY_BOOL, "no", "common/common.h (no_kv_offload = false)", NULL,
     "--no-kv-offload: the KV cache in host memory"},
    {"mmap", VS_EKEY_BOOL, "yes",
     "src/llama-model.cpp (llama_model_default_params: use_mmap = true); --no-mmap in "
     "common/arg.cpp at 145b628",
     NULL,
     "the weights kept in host memory are mapped from the file (no: --no-mmap, read into a "
     "pinned host buffer)"},
    {"fit_target", VS_EKEY_BYTES, "1024MiB",
     "the build's (build=): common/arg.cpp (--fit-target 1024 MiB per device) at 0c1e570; 0 "
     "before --fit (b6324, b6325)",
     NULL, "the margin --fit keeps free on each device"},
    {"cuda_context", VS_EKEY_BYTES, "264MiB",
     "ollama/ollama#17482: an idle RTX 3090, CUDA's total 24124 MiB, 23860 MiB free to "
     "llama-server",
     NULL, "what a CUDA context takes before llama.cpp reads the free memory (no free= given)"},
    {"build", VS_EKEY_WORD, "0c1e570", "the newest build modelled here", build_words,
     "the llama.cpp build whose defaults apply: flash_attn, n_gpu_layers and fit_target when "
     "not written (b6324, b6325, 0c1e570)"},
    {NULL, 0, NULL, NULL, NULL, NULL}};

static const char help[] =
    "llama.cpp's allocation, read at commit 0c1e570 (the tree llama-cpp-python 0.3.36 "
    "vendors):\n"
    "  build= names the build whose defaults apply (without it the newest modelled, 0c1e570): "
    "b6324 flash_attn off, no layers on the GPU (-ngl 0), no --fit (fit_target 0); b6325 "
    "(ggml-org/llama.cpp#15434) -fa auto and all layers, still no --fit; 0c1e570 --fit with "
    "--fit-target 1024 MiB (#16653); before 0c1e570 the cells below are padded to 32, not 256, "
    "with flash attention off (llama_kv_cache_unified::get_padding)\n"
    "  budget = free - fit_target (common/fit.cpp: projected free = the device's free memory "
    "less model + context + compute buffers, against --fit-target 1024 MiB): free from the "
    "offer's free=, else its total less cuda_context (264 MiB, an idle RTX 3090 in "
    "ollama/ollama#17482; a measured non_torch replaces it)\n"
    "  n_ctx = pad(ctx x parallel, 256); per stream (one per sequence unless kv_unified) "
    "n_ctx_seq = pad(n_ctx / parallel, 256) (src/llama-context.cpp)\n"
    "  full layers: n_ctx_seq cells per stream; sliding-window layers: pad(min(n_ctx_seq, "
    "window x (kv_unified ? parallel : 1) + ubatch), 256), ubatch at most min(batch, n_ctx) "
    "(src/llama-kv-cache-iswa.cpp); swa_full: as full\n"
    "  bytes = cells x layers x (ggml_row_size(K type, kv_heads x head_dim) + "
    "ggml_row_size(V type, kv_heads x head_dim_v)): f16 2 bytes, q8_0 34 per 32 values, "
    "q4_0 18 per 32 (ggml-common.h); both caches take the cache types (the f16 sliding "
    "cache of pull request #21277 was reverted by #21332); latent (MLA) layers keep K only, "
    "and K and V types must be equal (src/llama-context.cpp refuses them otherwise)\n"
    "  which layers slide is llama.cpp's rule per architecture, not the config's: 'llama' "
    "(Mistral, Mixtral), 'qwen2', 'qwen3', 'starcoder2' have no sliding window, Phi-3's is "
    "disabled (src/models/phi3.cpp), gpt-oss slides every other layer "
    "(src/models/openai-moe.cpp, load_swa_pattern(ml, 2)), Gemma 2/3 as the file says; fit "
    "says where this differs from the model's own layout\n"
    "  host memory: token_embd (and position and token-type embeddings) always "
    "(src/llama-model.cpp: 'there is very little benefit to offloading the input layer'); a "
    "tied model's output is a copy on the GPU; -ngl below all layers keeps the first "
    "layers (n_layer + 1 - n_gpu_layers) and their KV cells there (their weights as the "
    "GGUF's tensor list sums them, else spread evenly); --no-kv-offload all the KV cache\n"
    "Runtime items: activation_peak, the compute buffer ('CUDA0 compute buffer size'): unknown "
    "unless measured, or estimated by `estimate runtime` as 1.10 x the largest of three phases "
    "of one ubatch's graph (the logits, vocab x ubatch x 4 B; the attention scores without "
    "flash attention, cells x ubatch x heads x 4 B, with the mask; the MLP's three "
    "intermediate states), which on 35 llama-fit-params runs at 0c1e570 came 1.02 to 1.22 "
    "times their compute buffer (never below; 2.0 for DeepSeek, whose card's intermediate "
    "size is its dense layers'), and on CUDA 1.10 times fedora-copr/logdetective#106's 2144 "
    "MiB (flash attention off) and 1.14 times ggml-org/llama.cpp#11861's 307 MiB (on).";

/* ggml block size and bytes per block of a cache type (ggml-common.h) */
static void type_of(const char *w, unsigned *bs, unsigned *ts)
{
    *bs = 1;
    *ts = 2;
    if (!w || !strcmp(w, "f16") || !strcmp(w, "bf16"))
        return;
    if (!strcmp(w, "f32")) {
        *ts = 4;
        return;
    }
    *bs = 32;
    if (!strcmp(w, "q8_0"))
        *ts = 34;
    else if (!strcmp(w, "q4_0") || !strcmp(w, "iq4_nl"))
        *ts = 18;
    else if (!strcmp(w, "q4_1"))
        *ts = 20;
    else if (!strcmp(w, "q5_0"))
        *ts = 22;
    else if (!strcmp(w, "q5_1"))
        *ts = 24;
}

static uint64_t pad(uint64_t x, uint64_t n)
{
    return (x + n - 1) / n * n;
}

typedef struct lc {
    const vs_engine_env *e;
    vs_kv_layout layout; /* as llama.cpp allocates it */
    int changed;
    char why[360];
    unsigned kbs, kts, vbs, vts;
    uint64_t ubatch, batch, host_layers, n_layer;
    int swa_full, unified, fa_off, no_offload;
    uint64_t npad; /* the cells' padding: 256, or 32 without flash attention before 0c1e570 */
} lc;

static uint64_t row(uint64_t n, unsigned bs, unsigned ts)
{
    return (n + bs - 1) / bs * ts;
}

static void lc_init(lc *c, const vs_engine_env *e, const vs_kv_layout *layout)
{
    const vs_engine_val *ngl = vs_engine_get(e, "n_gpu_layers"),
                        *fa = vs_engine_get(e, "flash_attn");
    c->e = e;
    type_of(vs_engine_get(e, "cache_type_k")->word, &c->kbs, &c->kts);
    type_of(vs_engine_get(e, "cache_type_v")->word, &c->vbs, &c->vts);
    c->ubatch = vs_engine_get(e, "ubatch")->u;
    c->batch = vs_engine_get(e, "batch")->u;
    c->swa_full = (int)vs_engine_get(e, "swa_full")->u;
    c->unified = (int)vs_engine_get(e, "kv_unified")->u;
    c->no_offload = (int)vs_engine_get(e, "no_kv_offload")->u;
    c->fa_off = fa->word && !strcmp(fa->word, "off");
    /* llama_kv_cache_unified::get_padding (src/llama-kv-cache-unified.cpp, b6324 and
     * b6325): "the FA kernels require padding", flash_attn ? 256 : 32; 0c1e570 pads
     * to 256 always (src/llama-context.cpp) */
    {
        const vs_engine_val *b = vs_engine_get(e, "build");
        int older = b && b->word && strcmp(b->word, "0c1e570");
        c->npad = older && c->fa_off ? 32 : 256;
    }
    c->n_layer = e->n_layer ? e->n_layer : vs_kv_layout_layers(layout);
    /* i_gpu_start = n_layer + 1 - n_gpu_layers (src/llama-model.cpp): the layers below
     * it stay on the CPU, the output layer counting as layer n_layer */
    c->host_layers = 0;
    if (ngl && ngl->set && ngl->u < c->n_layer + 1)
        c->host_layers = c->n_layer + 1 - ngl->u;
    if (c->host_layers > c->n_layer)
        c->host_layers = c->n_layer;
    if (layout == &e->layout) {
        vs_llamacpp_arch_layout(&c->layout, &c->changed, c->why, sizeof c->why,
                                vs_llamacpp_arch_find(e->family), e->family, layout);
    } else {
        c->layout = *layout;
        c->changed = 0;
        c->why[0] = '\0';
    }
}

/* KV bytes on the device (*host: in host memory) and full-layer cells for a context
 * of total_ctx cells (-c) over par sequences. */
static uint64_t lc_bytes(const lc *c, uint64_t total_ctx, uint64_t par, uint64_t *cells_out,
                         uint64_t *swa_cells_out, uint64_t *host)
{
    const vs_engine_env *e = c->e;
    uint64_t n_ctx, streams, seq, ub, vmax = 0, total = 0, on_host = 0;
    uint64_t tp = e->tp ? e->tp : 1;
    int vary = 0;
    size_t i;
    if (par == 0)
        par = 1;
    n_ctx = pad(total_ctx, c->npad);
    streams = c->unified ? 1 : par;
    seq = c->unified ? n_ctx : pad(n_ctx / par, c->npad);
    /* n_batch = min(n_ctx, -b) for causal attention; n_ubatch = min(n_batch, -ub) */
    ub = c->ubatch < c->batch ? c->ubatch : c->batch;
    if (ub > n_ctx)
        ub = n_ctx;
    if (cells_out)
        *cells_out = seq * streams;
    if (swa_cells_out)
        *swa_cells_out = 0;
    /* without flash attention the V cache is transposed and padded to the widest
     * layer's (src/llama-kv-cache.cpp, TAG_V_CACHE_VARIABLE) */
    for (i = 0; i < c->layout.n; i++) {
        const vs_kv_group *g = &c->layout.g[i];
        uint64_t w;
        if (g->kind != VS_KV_FULL && g->kind != VS_KV_SLIDING && g->kind != VS_KV_CHUNKED)
            continue;
        w = vs_kv_group_heads_per_gpu(g, tp) * (g->head_dim_v ? g->head_dim_v : g->head_dim);
        if (vmax && w != vmax)
            vary = 1;
        if (w > vmax)
            vmax = w;
    }
    for (i = 0; i < c->layout.n; i++) {
        const vs_kv_group *g = &c->layout.g[i];
        uint64_t cells = seq, heads = vs_kv_group_heads_per_gpu(g, tp), b = 0, hl;
        uint64_t dv = g->head_dim_v ? g->head_dim_v : g->head_dim;
        switch (g->kind) {
        case VS_KV_SLIDING:
        case VS_KV_CHUNKED:
            if (!c->swa_full) {
                uint64_t w = g->window * (c->unified ? par : 1) + ub;
                cells = pad(seq < w ? seq : w, c->npad);
            }
            if (swa_cells_out)
                *swa_cells_out = cells * streams;
            /* fall through */
        case VS_KV_FULL:
        case VS_KV_CROSS:
            b = g->layers * cells * streams *
                (row(heads * g->head_dim, c->kbs, c->kts) +
                 row(c->fa_off && vary ? vmax : heads * dv, c->vbs, c->vts));
            break;
        case VS_KV_LATENT: /* MLA: K only (src/llama-kv-cache.cpp, has_v = !is_mla) */
            b = g->layers * cells * streams * row(g->latent, c->kbs, c->kts);
            break;
        case VS_KV_STATE:
            /* recurrent layers keep one row per sequence, max(1, n_seq_max), of
             * their conv and SSM states in F32 whatever the model's dtype
             * (src/llama-memory-recurrent.cpp, llama_model::create_memory's
             * type_r/type_s, at 0c1e570); state_bytes alone when the split is not
             * known */
            b = g->state_conv || g->state_ssm
                    ? g->layers * (g->state_conv + g->state_ssm) * 4 * (par ? par : 1)
                    : g->layers * g->state_bytes * (par ? par : 1);
            break;
        default:
            break;
        }
        /* layers on the CPU keep their cells there (model.dev_layer(il)) */
        /* spread over the groups by their share of the layers, rounded down: the
         * GPU's part is never under-counted */
        hl = c->no_offload ? g->layers : c->n_layer ? g->layers * c->host_layers / c->n_layer : 0;
        if (hl > g->layers)
            hl = g->layers;
        if (g->layers) {
            uint64_t h = b / g->layers * hl;
            on_host += h;
            total += b - h;
        }
    }
    if (host)
        *host = on_host;
    return total;
}

static int budget(const vs_engine_env *e, vs_engine_budget *out, vs_error *err)
{
    uint64_t target = vs_engine_get(e, "fit_target")->u, free, ctxb, w = e->weights_bytes;
    const vs_engine_val *ngl = vs_engine_get(e, "n_gpu_layers");
    char a[32], t[32], b[32], c[32];
    (void)err;
    out->inside = VS_RT_BIT(VS_RT_ACTIVATION_PEAK);
    vs_units_round(t, sizeof t, target, VS_UNIT_MIB, 0);
    if (e->free_known) {
        free = e->free_bytes;
        vs_units_round(a, sizeof a, free, VS_UNIT_MIB, 0);
        out->budget_bytes = free > target ? free - target : 0;
        vs_units_round(b, sizeof b, out->budget_bytes, VS_UNIT_GIB, 2);
        snprintf(out->rule, sizeof out->rule,
                 "free %s MiB (the offer's free=) - fit_target %s MiB = %s GiB (common/fit.cpp)", a,
                 t, b);
    } else {
        int measured = e->item_known[VS_RT_NON_TORCH];
        ctxb = measured ? e->item_bytes[VS_RT_NON_TORCH] : vs_engine_get(e, "cuda_context")->u;
        free = e->total_bytes > ctxb ? e->total_bytes - ctxb : 0;
        out->budget_bytes = free > target ? free - target : 0;
        vs_units_round(a, sizeof a, e->total_bytes, VS_UNIT_MIB, 0);
        vs_units_round(c, sizeof c, ctxb, VS_UNIT_MIB, 0);
        vs_units_round(b, sizeof b, out->budget_bytes, VS_UNIT_GIB, 2);
        snprintf(out->rule, sizeof out->rule,
                 "free = total %s MiB - %s %s MiB; - fit_target %s MiB = %s GiB (common/fit.cpp "
                 "budgets from free memory: give free= for the real figure)",
                 a, measured ? "non_torch (measured)" : "cuda_context", c, t, b);
    }
    /* the weights llama.cpp keeps in host memory (src/llama-model.cpp load_tensors) */
    out->weights_host_bytes = 0;
    out->host_rule[0] = '\0';
    if (e->weights_known && e->io_known) {
        uint64_t host = e->input_bytes, io = e->input_bytes + e->output_bytes, nl = e->n_layer;
        uint64_t hl = 0, layers = 0;
        int exact = 0;
        if (ngl && ngl->set && nl && ngl->u < nl + 1) {
            hl = nl + 1 - ngl->u;
            if (hl > nl)
                hl = nl;
            if (json_is_array(e->layer_bytes) && json_array_size(e->layer_bytes) == nl) {
                /* layers 0 .. hl - 1 as the GGUF's tensor list sums them */
                uint64_t il;
                for (il = 0; il < hl; il++)
                    layers += (uint64_t)json_integer_value(json_array_get(e->layer_bytes, il));
                exact = 1;
            } else {
                /* the repeating layers' share, spread evenly */
                layers = w > io ? (w - io) / nl * hl : 0;
            }
            host += layers;
        }
        if (host > w)
            host = w;
        out->weights_host_bytes = host;
        /* a tied model's output is token_embd again, copied to the output layer's
         * device (TENSOR_DUPLICATED, src/llama-model-loader.cpp) */
        out->weights_gpu_copy_bytes = e->tied ? e->embd_bytes : 0;
        /* and a CUDA buffer pads the tensors (ggml-cuda.cu get_alloc_size, 128-byte
         * alignment): counted from the file's tensor list */
        out->weights_gpu_copy_bytes += e->pad_bytes;
        vs_units_round(a, sizeof a, e->input_bytes, VS_UNIT_MIB, 2);
        vs_units_round(b, sizeof b, host, VS_UNIT_MIB, 2);
        vs_units_round(c, sizeof c, layers, VS_UNIT_MIB, 2);
        snprintf(out->host_rule, sizeof out->host_rule,
                 "%s MiB of weights in host memory: the input layer (token_embd%s) %s MiB%s%s%s%s "
                 "(src/llama-model.cpp keeps the input layer on the CPU)%s",
                 b, e->tied ? ", its copy as the tied output on the GPU" : "", a,
                 hl ? ", and " : "", hl ? c : "", hl ? " MiB for the layers below -ngl" : "",
                 hl && !exact ? " (spread evenly)" : "",
                 e->io_exact ? "" : "; from the card's vocab x hidden at the format's bits");
    }
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
    uint64_t b = f->vary_ctx ? lc_bytes(f->c, x * f->fixed, f->fixed, NULL, NULL, NULL)
                             : lc_bytes(f->c, f->fixed * x, x, NULL, NULL, NULL);
    return b <= f->pool;
}

static int check_types(const lc *c, const vs_engine_env *e, vs_error *err)
{
    const char *tk = vs_engine_get(e, "cache_type_k")->word,
               *tv = vs_engine_get(e, "cache_type_v")->word;
    size_t i;
    if (c->fa_off && c->vbs > 1)
        return vs_error_set(err, VS_EVALUE,
                            "llamacpp: a quantised V cache (cache_type_v=%s) needs flash "
                            "attention (src/llama-context.cpp refuses it with flash_attn off)",
                            tv);
    for (i = 0; i < c->layout.n; i++) {
        const vs_kv_group *g = &c->layout.g[i];
        uint64_t dv = g->head_dim_v ? g->head_dim_v : g->head_dim;
        if (g->kind == VS_KV_LATENT && strcmp(tk, tv))
            return vs_error_set(err, VS_EVALUE,
                                "llamacpp: an MLA model does not take different K (%s) and V "
                                "(%s) cache types (src/llama-context.cpp at " VS_LLAMACPP_COMMIT
                                ": \"model does not support different K and V cache types\")",
                                tk, tv);
        if ((g->kind == VS_KV_FULL || g->kind == VS_KV_SLIDING || g->kind == VS_KV_CHUNKED) &&
            ((c->kbs > 1 && g->head_dim % c->kbs) || (c->vbs > 1 && dv % c->vbs)))
            return vs_error_set(err, VS_EVALUE,
                                "llamacpp: cache type %s has blocks of 32 values, which do not "
                                "divide the head size %llu (src/llama-context.cpp refuses it)",
                                g->head_dim % c->kbs ? tk : tv,
                                (unsigned long long)(g->head_dim % c->kbs ? g->head_dim : dv));
    }
    return 0;
}

static int kv(const vs_engine_env *e, uint64_t pool, vs_engine_kv *out, vs_error *err)
{
    lc c, own;
    const vs_engine_val *ctxv = vs_engine_get(e, "ctx"), *parv = vs_engine_get(e, "parallel"),
                        *nctx = vs_engine_get(e, "n_ctx");
    uint64_t ctx = ctxv->set ? ctxv->u : e->length, par = parv->set ? parv->u : e->concurrency,
             cells = 0, swa = 0, host = 0, total;
    lfit f;
    char need[32], sw[64] = "", hs[80] = "";
    int rc;
    lc_init(&c, e, &e->layout);
    if (!parv->set && !e->concurrency_known)
        par = 1;
    if ((rc = check_types(&c, e, err)) < 0)
        return rc;
    if (nctx->set && par) /* -c given: each sequence's share, as llama-server's n_ctx_slot */
        ctx = nctx->u / par ? nctx->u / par : 1;
    total = nctx->set ? nctx->u : ctx * par;
    if (ctx && par) {
        out->need_bytes = lc_bytes(&c, total, par, &cells, &swa, &host);
        out->need_known = 1;
        out->kv_tokens = cells;
        out->host_bytes = host;
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
    if (swa)
        snprintf(sw, sizeof sw, ", sliding layers %llu cells", (unsigned long long)swa);
    if (host) {
        char h[32];
        vs_units_round(h, sizeof h, host, VS_UNIT_MIB, 2);
        snprintf(hs, sizeof hs, "; %s MiB more in host memory", h);
    }
    snprintf(out->rule, sizeof out->rule,
             "%llu cells (-c %llu over parallel %llu padded to %llu%s)%s, K %s V %s: %s MiB on "
             "the GPU%s (llama.cpp at " VS_LLAMACPP_COMMIT ")",
             (unsigned long long)cells, (unsigned long long)total, (unsigned long long)par,
             (unsigned long long)c.npad, c.unified ? ", one unified stream" : " per stream", sw,
             vs_engine_get(e, "cache_type_k")->word, vs_engine_get(e, "cache_type_v")->word, need,
             hs);
    out->layout_note[0] = '\0';
    if (c.changed && ctx && par) {
        uint64_t h2 = 0, mine;
        char m[32], l[32];
        lc_init(&own, e, &e->layout);
        own.layout = e->layout; /* the model's own layout, the same cells rule */
        mine = lc_bytes(&own, total, par, NULL, NULL, &h2) + h2;
        vs_units_round(l, sizeof l, out->need_bytes + host, VS_UNIT_MIB, 2);
        vs_units_round(m, sizeof m, mine, VS_UNIT_MIB, 2);
        snprintf(out->layout_note, sizeof out->layout_note,
                 "%.340s: %s MiB of KV cache, where the model's own layout would need %s MiB",
                 c.why, l, m);
    } else if (c.why[0]) {
        snprintf(out->layout_note, sizeof out->layout_note, "%s", c.why);
    }
    return 0;
}

void vs_llamacpp_compute_cells(const vs_engine_env *e, uint64_t *cells, uint64_t *ubatch)
{
    lc c;
    const vs_engine_val *ctxv = vs_engine_get(e, "ctx"), *parv = vs_engine_get(e, "parallel"),
                        *nctx = vs_engine_get(e, "n_ctx");
    uint64_t ctx = ctxv->set ? ctxv->u : e->length, par = parv->set ? parv->u : e->concurrency;
    uint64_t total, n_ctx, seq, ub, big = 0;
    size_t i;
    lc_init(&c, e, &e->layout);
    if (!par || (!parv->set && !e->concurrency_known))
        par = 1;
    total = nctx->set ? nctx->u : ctx * par;
    n_ctx = pad(total ? total : 1, c.npad);
    seq = c.unified ? n_ctx : pad(n_ctx / par, c.npad);
    ub = c.ubatch < c.batch ? c.ubatch : c.batch;
    if (ub > n_ctx)
        ub = n_ctx;
    for (i = 0; i < c.layout.n; i++) {
        const vs_kv_group *g = &c.layout.g[i];
        uint64_t cl = seq;
        if ((g->kind == VS_KV_SLIDING || g->kind == VS_KV_CHUNKED) && !c.swa_full) {
            uint64_t w = g->window * (c.unified ? par : 1) + ub;
            cl = pad(seq < w ? seq : w, c.npad);
        }
        if (g->kind != VS_KV_STATE && g->kind != VS_KV_NONE && cl > big)
            big = cl;
    }
    *cells = big;
    *ubatch = ub;
}

/* the project's own name for itself, and its repository's */
static const char *const aliases[] = {"llama.cpp", "llama-cpp", NULL};

/* The build's defaults, in the keys not written on the line. */
static void defaults(vs_engine_env *e)
{
    const vs_engine_val *b = vs_engine_get(e, "build");
    const lrelease *r = &releases[sizeof releases / sizeof releases[0] - 1];
    size_t i, k;
    for (i = 0; b && b->word && i < sizeof releases / sizeof releases[0]; i++)
        if (!strcmp(releases[i].build, b->word))
            r = &releases[i];
    if (vs_engine_key_index(e->engine, "flash_attn", &k) && !e->val[k].given)
        for (i = 0; fa_words[i]; i++)
            if (!strcmp(fa_words[i], r->flash_attn)) {
                e->val[k].set = 1;
                e->val[k].word = fa_words[i];
            }
    if (vs_engine_key_index(e->engine, "fit_target", &k) && !e->val[k].given) {
        e->val[k].set = 1;
        e->val[k].u = r->fit_target;
    }
    if (vs_engine_key_index(e->engine, "n_gpu_layers", &k) && !e->val[k].given) {
        /* unset: all layers; b6324's default keeps none on the GPU */
        e->val[k].set = !r->all_layers;
        e->val[k].u = 0;
    }
}

const vs_engine vs_engine_llamacpp = {
    .name = "llamacpp",
    .summary = "llama.cpp: the cells of ctx x parallel on its own per-architecture layout, "
               "budgeted from free memory",
    .help = help,
    .keys = keys,
    .runtime = VS_RT_BIT(VS_RT_ACTIVATION_PEAK),
    .budget = budget,
    .kv = kv,
    .aliases = aliases,
    .defaults = defaults,
    /* its compute buffer (engine/llamacpp_compute.h) */
    .estimates = VS_RT_BIT(VS_RT_ACTIVATION_PEAK),
    .runtime_estimate = vs_llamacpp_compute_runtime,
    .runtime_items_note = "llama.cpp's runtime item is its compute buffer, activation_peak (the "
                          "CUDA context is in its budget from free memory)"};
