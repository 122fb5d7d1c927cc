/* fit: the engine's budget and KV allocation on each offer. */
#include "engine/fit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"
#include "sheet/capacity.h"
#include "sheet/envelope.h"
#include "sheet/sheet.h"
#include "sheet/units.h"
#include "sheet/vocab.h"

static int positive_int(const json_t *v, uint64_t *out)
{
    if (json_is_integer(v) && json_integer_value(v) > 0) {
        *out = (uint64_t)json_integer_value(v);
        return 1;
    }
    if (json_is_string(v)) { /* keys as written on an estimate line */
        char *end;
        unsigned long long x = strtoull(json_string_value(v), &end, 10);
        if (*end == '\0' && x > 0) {
            *out = x;
            return 1;
        }
    }
    return 0;
}

/* The model's KV layout: card.arch.kv_layout, else a uniform one from
 * card.arch, else from the keys an `estimate kv` line left on its component. */
static const char *layout_of(vs_kv_layout *out, const json_t *sheet)
{
    const json_t *arch = vs_sheet_card_get(sheet, VS_CK_ARCH), *kl;
    uint64_t L = 0, H = 0, D = 0, hid = 0, heads = 0;
    vs_error err;
    size_t i;
    json_t *c;
    kl = json_object_get(arch, "kv_layout");
    if (json_is_array(kl) && json_array_size(kl) > 0 && vs_kv_layout_from_json(out, kl, &err) == 0)
        return "the model's KV layout (card.arch.kv_layout)";
    if (positive_int(json_object_get(arch, "layers"), &L) &&
        (positive_int(json_object_get(arch, "kv_heads"), &H) ||
         positive_int(json_object_get(arch, "heads"), &H))) {
        if (!positive_int(json_object_get(arch, "head_dim"), &D) &&
            positive_int(json_object_get(arch, "hidden"), &hid) &&
            positive_int(json_object_get(arch, "heads"), &heads) && hid % heads == 0)
            D = hid / heads;
        if (D) {
            vs_kv_layout_uniform(out, L, H, D);
            return "a uniform layout from card.arch (layers, kv_heads, head_dim)";
        }
    }
    vs_json_array_foreach(vs_sheet_array(sheet, VS_SK_COMPONENTS), i, c)
    {
        const json_t *k = json_object_get(c, "keys");
        const char *cls = vs_sheet_component_str(c, VS_COMPK_CLASS);
        if (!k) /* the keys an estimate line wrote, as lang/derive records them */
            k = json_object_get(vs_sheet_component_get(c, VS_COMPK_DERIVED), "keys");
        if (!k)
            k = json_object_get(json_object_get(c, "estimate"), "keys");
        if (vs_vocab_class_of(cls) != VS_CLASS_KV_CACHE)
            continue;
        if (!json_is_object(k)) {
            /* the formula `estimate kv` writes as the component's source */
            const char *src = vs_sheet_component_str(c, VS_COMPK_SOURCE);
            char plain[256];
            size_t a = 0, b = 0;
            unsigned long long l, h, d;
            for (; src && src[a] && b + 1 < sizeof plain; a++)
                if (src[a] != ',')
                    plain[b++] = src[a];
            plain[b] = '\0';
            if (src &&
                sscanf(plain, "2 x %llu layers x %llu kv_heads x %llu head_dim", &l, &h, &d) == 3 &&
                l && h && d) {
                vs_kv_layout_uniform(out, l, h, d);
                return "a uniform layout from the kv_cache estimate's shapes";
            }
            continue;
        }
        if (positive_int(json_object_get(k, "layers"), &L) &&
            positive_int(json_object_get(k, "kv_heads"), &H) &&
            positive_int(json_object_get(k, "head_dim"), &D)) {
            vs_kv_layout_uniform(out, L, H, D);
            return "a uniform layout from the keys of the kv_cache estimate";
        }
    }
    return NULL;
}

/* llama.cpp's input and output layers: the GGUF's tensor list as `weights from=`
 * summed it (weights_files), else the card's vocab x hidden at the format's bits. */
static void io_of(vs_engine_env *e, const json_t *sheet, const json_t *arch)
{
    const json_t *wf = vs_sheet_get(sheet, VS_SK_WEIGHTS_FILES);
    const json_t *in = json_object_get(wf, "input_layer_bytes");
    uint64_t vocab = 0, hidden = 0;
    if (json_is_integer(in) && json_integer_value(in) >= 0) {
        e->io_known = e->io_exact = 1;
        e->input_bytes = (uint64_t)json_integer_value(in);
        e->embd_bytes = (uint64_t)json_integer_value(json_object_get(wf, "token_embd_bytes"));
        e->output_bytes = (uint64_t)json_integer_value(json_object_get(wf, "output_layer_bytes"));
        e->tied = json_is_true(json_object_get(wf, "tied_output"));
        e->pad_bytes = (uint64_t)json_integer_value(json_object_get(wf, "cuda_pad_bytes"));
        e->layer_bytes = json_object_get(wf, "layer_bytes");
        return;
    }
    if (positive_int(json_object_get(arch, "vocab"), &vocab) &&
        positive_int(json_object_get(arch, "hidden"), &hidden) && e->weight_bits_known &&
        vocab < ((uint64_t)1 << 31) && hidden < ((uint64_t)1 << 24)) {
        e->io_known = 1;
        e->embd_bytes = (vocab * hidden * e->weight_bits + 7) / 8;
        e->input_bytes = e->embd_bytes;
        e->tied = json_is_true(json_object_get(arch, "tied_embeddings"));
        e->output_bytes = e->tied ? 0 : e->embd_bytes;
    }
}

void vs_fit_ctx_free(vs_fit_ctx *c)
{
    if (c) {
        json_decref(c->unknown);
        c->unknown = NULL;
    }
}

int vs_fit_prepare(vs_fit_ctx *c, const json_t *sheet, vs_error *err)
{
    const json_t *card = vs_sheet_card(sheet), *eng = vs_sheet_card_field(card, VS_CK_ENGINE);
    const json_t *arch = vs_sheet_card_field(card, VS_CK_ARCH);
    const char *name = json_string_value(vs_sheet_engine_field(eng, VS_EK_NAME));
    vs_component_views views = {NULL, 0};
    vs_envelope env;
    size_t i;
    int rc;
    memset(c, 0, sizeof *c);
    c->sheet = sheet;
    c->engine = name ? vs_engine_find(name) : vs_engine_default();
    if (!c->engine)
        return vs_error_set(err, VS_EVALUE, "the card names an unknown engine '%s'", name);
    if ((rc = vs_engine_resolve(&c->env, c->engine, vs_sheet_engine_field(eng, VS_EK_KEYS), err)) <
        0)
        return rc;
    if ((rc = vs_placement_from_sheet(&c->placement, sheet, err)) < 0)
        return rc;
    if (!(c->unknown = json_array()))
        return vs_error_oom(err);
    c->env.tp = c->placement.kind == VS_PLACE_TENSOR ? c->placement.gpus : 1;
    c->env.length_known = vs_sheet_card_uint(sheet, VS_CK_LENGTH, &c->env.length);
    c->env.concurrency_known = vs_sheet_card_uint(sheet, VS_CK_CONCURRENCY, &c->env.concurrency);
    c->env.weight_bits_known = vs_sheet_weight_bits(sheet, &c->env.weight_bits);
    c->params_known = vs_sheet_card_uint(sheet, VS_CK_PARAMS, &c->params);
    c->format = json_string_value(vs_sheet_card_field(card, VS_CK_FORMAT));
    c->env.heads_known = positive_int(json_object_get(arch, "heads"), &c->env.heads);
    c->layout_source = layout_of(&c->env.layout, sheet);
    c->env.layout_known = c->layout_source != NULL;
    if (c->engine->defaults) /* the release's, before any GPU is known */
        c->engine->defaults(&c->env);
    c->env.family = json_string_value(json_object_get(arch, "family"));
    positive_int(json_object_get(arch, "layers"), &c->env.n_layer);
    c->env.encoder = vs_engine_encoder_present(arch);
    io_of(&c->env, sheet, arch);
    if ((rc = vs_component_views_read(&views, sheet)) < 0)
        return vs_error_oom(err);
    if ((rc = vs_envelope_compute(&env, sheet, &views, err)) < 0)
        goto done;
    c->env.weights_known = env.weights_known;
    c->env.weights_bytes = env.weights_gpu_bytes;
    if (!env.weights_known)
        json_array_append_new(c->unknown, json_string(VS_VOCAB_WEIGHTS));
    c->env.kv_component_known = 1;
    for (i = 0; i < views.n; i++) {
        const vs_component_view *v = &views.v[i];
        const char *nm = json_string_value(v->name), *cls = json_string_value(v->cls);
        vs_runtime_item item;
        uint64_t share;
        share = v->known ? vs_placement_per_gpu(&c->placement, cls, v->value) : 0;
        /* an extra item's name under an engine without it is an ordinary component */
        if (vs_runtime_item_find(&item, nm) &&
            (item < VS_RT_DRAFT_MODEL || (vs_engine_items(&c->env) & VS_RT_BIT(item)))) {
            c->env.item_known[item] = v->known;
            c->env.item_bytes[item] = share;
            continue;
        }
        if (vs_vocab_class_of(cls) == VS_CLASS_KV_CACHE) {
            if (v->known)
                c->env.kv_component_bytes += share;
            else
                c->env.kv_component_known = 0;
            if (c->engine != vs_engine_default())
                continue; /* the engine allocates the KV cache itself */
        } else if (v->known) {
            c->env.other_bytes += share;
        } else {
            c->env.other_unknown++;
        }
        if (!v->known && nm)
            json_array_append_new(c->unknown, json_string(nm));
    }
    if (c->env.kv_component_bytes == 0 && c->env.kv_component_known) {
        /* no kv_cache component at all: nothing the sheet says */
        int any = 0;
        for (i = 0; i < views.n; i++) {
            if (vs_vocab_class_of(json_string_value(views.v[i].cls)) == VS_CLASS_KV_CACHE)
                any = 1;
        }
        if (!any)
            c->env.kv_component_known = 0;
    }
    /* enforce_eager: vLLM captures no CUDA graphs */
    {
        const vs_engine_val *eager = vs_engine_get(&c->env, "enforce_eager");
        if (eager && eager->u && !c->env.item_known[VS_RT_CUDA_GRAPHS]) {
            c->env.item_known[VS_RT_CUDA_GRAPHS] = 1;
            c->env.item_bytes[VS_RT_CUDA_GRAPHS] = 0;
        }
    }
    /* a model without an encoder runs no encoder pass */
    for (i = 0; i < VS_RT_COUNT; i++)
        if (!vs_engine_item_applies((vs_runtime_item)i, c->env.encoder)) {
            c->env.item_known[i] = 1;
            c->env.item_bytes[i] = 0;
        }
    for (i = 0; i < VS_RT_COUNT; i++)
        if ((vs_engine_items(&c->env) & VS_RT_BIT(i)) && !c->env.item_known[i]) {
            char b[64];
            snprintf(b, sizeof b, "%s (runtime item)", vs_runtime_item_name((vs_runtime_item)i));
            json_array_append_new(c->unknown, json_string(b));
        }
    if (c->engine != vs_engine_default() && !c->env.layout_known)
        json_array_append_new(c->unknown, json_string("the model's KV layout"));
    rc = 0;
done:
    vs_component_views_free(&views);
    return rc;
}

void vs_fit_capacity(vs_fit_row *row, const json_t *offer)
{
    vs_offer_cap cap;
    vs_gpu_spec spec;
    vs_error err;
    const char *cat = json_string_value(json_object_get(offer, "catalog"));
    char g[64];
    int have_spec;
    vs_offer_capacity(&cap, offer);
    row->capacity_known = 1;
    have_spec = cat && vs_catalog_find(&spec, cat, &err) == 0;
    if (cap.reported_known && cap.reported_source && !strncmp(cap.reported_source, "declared", 8)) {
        row->capacity_bytes = cap.reported_bytes;
        row->capacity_basis = "reported";
        snprintf(row->capacity_note, sizeof row->capacity_note, "the offer's reported= total (%s)",
                 cap.reported_source);
    } else if (have_spec && spec.unified_gpu_known && cap.reported_known &&
               cap.reported_bytes == spec.unified_gpu_bytes) {
        /* a GPU sharing memory with its CPU: what it may hold of it, by the
         * catalogue's basis (Metal's working set, an APU's GTT) */
        row->capacity_bytes = cap.reported_bytes;
        row->capacity_basis = "unified";
        snprintf(row->capacity_note, sizeof row->capacity_note,
                 "unified memory, the %s's basis (%s): %s (%s)", spec.name, spec.unified_kind,
                 spec.unified_rule ? spec.unified_rule : "no rule",
                 spec.unified_source ? spec.unified_source : "no source");
    } else if (have_spec && spec.cuda_known) {
        row->capacity_bytes = spec.cuda_bytes;
        row->capacity_basis = "cuda";
        snprintf(row->capacity_note, sizeof row->capacity_note,
                 "CUDA's total for the %s in the catalogue (%s)", spec.name,
                 spec.cuda_source ? spec.cuda_source : "no source");
    } else if (cap.reported_known) {
        row->capacity_bytes = cap.reported_bytes;
        row->capacity_basis = "device";
        snprintf(row->capacity_note, sizeof row->capacity_note,
                 "the device-reported (nvidia-smi) total; CUDA's, which vLLM budgets from, is a "
                 "few hundred MiB lower: give reported= with CUDA's total for exact figures");
    } else if (cap.nominal_known) {
        row->capacity_bytes = cap.nominal_bytes;
        row->capacity_basis = "nominal";
        vs_units_round(g, sizeof g, cap.nominal_bytes, VS_UNIT_GB, 0);
        snprintf(row->capacity_note, sizeof row->capacity_note,
                 "the nominal %s GB as marketed: no device-reported total is known", g);
    } else {
        row->capacity_known = 0;
        row->capacity_basis = NULL;
        snprintf(row->capacity_note, sizeof row->capacity_note,
                 "the card's memory is unknown: give memory= or reported=");
    }
    /* a Grace GPU's own HBM is its capacity; the basis says where its host memory is */
    if (have_spec && spec.unified_kind && !spec.unified_gpu_known && spec.unified_rule) {
        size_t n = strlen(row->capacity_note);
        snprintf(row->capacity_note + n, sizeof row->capacity_note - n,
                 "; unified memory (%s): %s (%s)", spec.unified_kind, spec.unified_rule,
                 spec.unified_source ? spec.unified_source : "no source");
    }
}

void vs_fit_row_free(vs_fit_row *row)
{
    if (row) {
        json_decref(row->unknown);
        row->unknown = NULL;
    }
}

/* The figures for one total and one weights figure. */
typedef struct one {
    vs_engine_budget b;
    vs_engine_kv kv;
    uint64_t non_kv, outside;
    int64_t pool;
    int kv_ok;
} one;

/* the engine's view of one GPU of the offer, of that total */
static void env_at(vs_engine_env *e, const vs_fit_ctx *c, uint64_t total, const json_t *offer)
{
    *e = c->env;
    e->total_bytes = total;
    e->gpu_name = json_string_value(json_object_get(offer, "catalog"));
    if (!e->gpu_name)
        e->gpu_name = json_string_value(json_object_get(offer, "name"));
    if (c->engine->defaults) /* the release's defaults on this GPU */
        c->engine->defaults(e);
}

static int compute(one *o, const vs_fit_ctx *c, uint64_t total, const json_t *offer,
                   int weights_known, uint64_t weights, vs_error *err)
{
    vs_engine_env e;
    const json_t *fr = json_object_get(offer, "free_bytes");
    int rc, i;
    uint64_t avail, host;
    memset(o, 0, sizeof *o);
    env_at(&e, c, total, offer);
    e.weights_known = weights_known;
    e.weights_bytes = weights;
    if (json_is_integer(fr) && json_integer_value(fr) > 0) {
        e.free_known = 1;
        e.free_bytes = (uint64_t)json_integer_value(fr);
    }
    if ((rc = c->engine->budget(&e, &o->b, err)) < 0)
        return rc;
    /* what the engine keeps of the weights in host memory is not on the GPU */
    host = o->b.weights_host_bytes < weights ? o->b.weights_host_bytes : weights;
    o->non_kv = weights - host + o->b.weights_gpu_copy_bytes + e.other_bytes;
    for (i = 0; i < VS_RT_COUNT; i++) {
        if (!e.item_known[i])
            continue;
        if (o->b.inside & VS_RT_BIT(i))
            o->non_kv += e.item_bytes[i];
        else if (o->b.outside & VS_RT_BIT(i))
            o->outside += e.item_bytes[i];
    }
    if (o->b.pool_fixed) {
        o->pool = (int64_t)o->b.pool_fixed_bytes;
    } else {
        o->pool = (int64_t)o->b.budget_bytes - (int64_t)o->non_kv;
        if (o->b.pool_fraction && o->pool > 0)
            o->pool = (int64_t)vs_engine_fraction_floor((uint64_t)o->pool, o->b.pool_fraction_ppm);
    }
    avail = o->pool > 0 ? (uint64_t)o->pool : 0;
    if (c->engine == vs_engine_default() || e.layout_known) {
        if ((rc = c->engine->kv(&e, avail, &o->kv, err)) < 0)
            return rc;
        o->kv_ok = 1;
    }
    return 0;
}

int vs_fit_budget_at(uint64_t *budget, const vs_fit_ctx *c, const json_t *offer, const char *gpu,
                     uint64_t total_bytes, vs_error *err)
{
    json_t *o = json_copy((json_t *)offer); /* shallow: two keys change */
    one x;
    int rc;
    if (!o)
        return vs_error_oom(err);
    if (gpu && (json_object_set_new(o, "catalog", json_string(gpu)) < 0 ||
                json_object_set_new(o, "name", json_string(gpu)) < 0)) {
        json_decref(o);
        return vs_error_oom(err);
    }
    rc = compute(&x, c, total_bytes, o, c->env.weights_known, c->env.weights_bytes, err);
    json_decref(o);
    if (rc == 0)
        *budget = x.b.budget_bytes;
    return rc;
}

int vs_fit_pool_at(vs_fit_row *row, const vs_fit_ctx *c, const json_t *offer, int64_t pool,
                   vs_error *err)
{
    vs_engine_env e;
    vs_engine_kv kv;
    const json_t *ctxj = json_object_get(vs_sheet_card_get(c->sheet, VS_CK_ARCH), "context");
    int rc;
    row->kv_pool_bytes = pool;
    env_at(&e, c, row->capacity_bytes, offer);
    if (!(c->engine == vs_engine_default() || e.layout_known))
        return 0;
    memset(&kv, 0, sizeof kv);
    if ((rc = c->engine->kv(&e, pool > 0 ? (uint64_t)pool : 0, &kv, err)) < 0)
        return rc;
    row->kv_tokens = kv.kv_tokens;
    row->blocks = kv.blocks;
    row->max_concurrency = kv.max_concurrency;
    row->max_length = kv.max_length;
    /* no longer than the model's context (config.json), as the row's own */
    if (json_is_integer(ctxj) && json_integer_value(ctxj) > 0 &&
        row->max_length > (uint64_t)json_integer_value(ctxj))
        row->max_length = (uint64_t)json_integer_value(ctxj);
    return 0;
}

static vs_verdict worse(vs_verdict a, vs_verdict b)
{
    return a > b ? a : b;
}

/* Verdicts of one computation: start, concurrency, length. */
static void judge(const one *o, const vs_fit_ctx *c, uint64_t total, int unknown, vs_verdict *start,
                  vs_verdict *conc, vs_verdict *len)
{
    const vs_engine_env *e = &c->env;
    vs_verdict ok = unknown ? VS_VERDICT_TO_CONFIRM : VS_VERDICT_ADMISSIBLE;
    *start = *conc = *len = ok;
    if (o->pool <= 0 || (o->b.pool_fixed && o->non_kv + (uint64_t)o->pool > total) ||
        o->b.budget_bytes + o->outside > total) {
        *start = *conc = *len = VS_VERDICT_EXCLUDE;
        return;
    }
    if (!o->kv_ok) {
        *start = *conc = *len = VS_VERDICT_TO_CONFIRM;
        return;
    }
    /* Unknown runtime items only shrink the pool: a pool from the known lower
     * bounds that holds no request under the engine's rule excludes for certain. */
    if (o->kv.caps_length) {
        /* the engine starts with a smaller pool and caps each request (SGLang) */
        if (o->kv.kv_tokens < o->kv.min_tokens)
            *start = VS_VERDICT_EXCLUDE;
        if (e->length_known && o->kv.length_cap < e->length)
            *len = VS_VERDICT_EXCLUDE;
    } else {
        if (e->length_known && o->kv.max_length == 0)
            *start = VS_VERDICT_EXCLUDE;
        if (e->length_known && c->engine != vs_engine_default() && o->kv.max_concurrency < 1.0)
            *start = VS_VERDICT_EXCLUDE; /* vLLM refuses to start below one request */
    }
    if ((o->kv.need_known && o->kv.need_bytes > (uint64_t)o->pool) ||
        (o->kv.seq_limited && e->concurrency_known && e->concurrency > o->kv.seq_limit))
        *conc = VS_VERDICT_EXCLUDE;
    else if (!o->kv.need_known)
        *conc = VS_VERDICT_TO_CONFIRM;
    if (e->length_known && e->concurrency_known && o->kv.max_length < e->length)
        *len = VS_VERDICT_EXCLUDE;
    else if (!e->length_known)
        *len = VS_VERDICT_TO_CONFIRM;
}

static int fit_offer(vs_fit_row *row, const vs_fit_ctx *c, const json_t *offer,
                     const char *const *formats, size_t nformats, vs_error *err);

int vs_fit_offer(vs_fit_row *row, const vs_fit_ctx *c, const json_t *offer,
                 const char *const *formats, size_t nformats, vs_error *err)
{
    int rc = fit_offer(row, c, offer, formats, nformats, err);
    if (rc < 0)
        vs_fit_row_free(row); /* a failed row holds nothing */
    return rc;
}

static int fit_offer(vs_fit_row *row, const vs_fit_ctx *c, const json_t *offer,
                     const char *const *formats, size_t nformats, vs_error *err)
{
    one o, ob;
    int rc, unknown;
    const json_t *cards = json_object_get(offer, "cards");
    const char *name = json_string_value(json_object_get(offer, "name"));
    unsigned gpus = c->placement.gpus ? c->placement.gpus : 1;
    size_t i, j;
    vs_verdict s, k, l;
    memset(row, 0, sizeof *row);
    snprintf(row->gpu, sizeof row->gpu, "%s", name ? name : "(unnamed)");
    row->cards = json_is_integer(cards) && json_integer_value(cards) > 0
                     ? (unsigned)json_integer_value(cards)
                     : 1;
    vs_fit_capacity(row, offer);
    if (!(row->unknown = json_copy(c->unknown)))
        return vs_error_oom(err);
    if (!row->capacity_known) {
        row->verdict = row->start_verdict = row->concurrency_verdict = row->length_verdict =
            VS_VERDICT_TO_CONFIRM;
        row->upper_bound = 1;
        snprintf(row->note, sizeof row->note, "%.600s", row->capacity_note);
        return 0;
    }
    if ((rc = compute(&o, c, row->capacity_bytes, offer, c->env.weights_known, c->env.weights_bytes,
                      err)) < 0)
        return rc;
    unknown = json_array_size(row->unknown) > 0;
    row->upper_bound = unknown;
    row->budget_bytes = o.b.budget_bytes;
    row->non_kv_bytes = o.non_kv;
    row->kv_pool_bytes = o.pool;
    row->outside_bytes = o.outside;
    memcpy(row->budget_rule, o.b.rule, sizeof row->budget_rule);
    memcpy(row->host_rule, o.b.host_rule, sizeof row->host_rule);
    row->host_bytes = o.b.weights_host_bytes;
    if (o.kv_ok) {
        row->host_bytes += o.kv.host_bytes;
        memcpy(row->layout_note, o.kv.layout_note, sizeof row->layout_note);
        row->kv_tokens = o.kv.kv_tokens;
        row->blocks = o.kv.blocks;
        row->page_bytes = o.kv.page_bytes;
        row->need_known = o.kv.need_known;
        row->need_bytes = o.kv.need_bytes;
        row->max_concurrency = o.kv.max_concurrency;
        row->max_length = o.kv.max_length;
        {
            /* no longer than the model's context (config.json), whatever the pool holds */
            const json_t *ctxj =
                json_object_get(vs_sheet_card_get(c->sheet, VS_CK_ARCH), "context");
            if (json_is_integer(ctxj) && json_integer_value(ctxj) > 0 &&
                row->max_length > (uint64_t)json_integer_value(ctxj))
                row->max_length = (uint64_t)json_integer_value(ctxj);
        }
        memcpy(row->kv_rule, o.kv.rule, sizeof row->kv_rule);
    } else {
        snprintf(row->kv_rule, sizeof row->kv_rule,
                 "the model's KV layout is unknown: `model NAME config=PATH`, or `estimate kv`");
    }
    judge(&o, c, row->capacity_bytes, unknown, &s, &k, &l);
    if (row->capacity_basis && !strcmp(row->capacity_basis, "nominal") &&
        worse(worse(s, k), l) == VS_VERDICT_EXCLUDE) {
        /* a nominal figure cannot exclude alone: try it read in binary units */
        vs_verdict s2, k2, l2;
        uint64_t bin = vs_capacity_nominal_binary(row->capacity_bytes);
        if ((rc = compute(&ob, c, bin, offer, c->env.weights_known, c->env.weights_bytes, err)) < 0)
            return rc;
        judge(&ob, c, bin, unknown, &s2, &k2, &l2);
        if (s == VS_VERDICT_EXCLUDE && s2 != VS_VERDICT_EXCLUDE)
            s = VS_VERDICT_TO_CONFIRM;
        if (k == VS_VERDICT_EXCLUDE && k2 != VS_VERDICT_EXCLUDE)
            k = VS_VERDICT_TO_CONFIRM;
        if (l == VS_VERDICT_EXCLUDE && l2 != VS_VERDICT_EXCLUDE)
            l = VS_VERDICT_TO_CONFIRM;
    }
    if (row->cards < gpus)
        s = k = l = VS_VERDICT_EXCLUDE;
    row->start_verdict = s;
    row->concurrency_verdict = k;
    row->length_verdict = l;
    row->verdict = worse(worse(s, k), l);
    if (row->cards < gpus)
        snprintf(row->note, sizeof row->note,
                 "the placement spreads the work over %u GPUs; this offer has %u card%s", gpus,
                 row->cards, row->cards == 1 ? "" : "s");
    else if (o.pool <= 0)
        snprintf(row->note, sizeof row->note,
                 "the non-KV part already exceeds the engine's budget: no KV cache is left");
    else if (o.b.budget_bytes + o.outside > row->capacity_bytes)
        snprintf(row->note, sizeof row->note,
                 "the runtime items held beyond the budget do not fit the card's total");
    else if (s == VS_VERDICT_EXCLUDE && o.kv_ok && o.kv.caps_length)
        snprintf(row->note, sizeof row->note, "the KV pool holds %llu tokens, fewer than %llu: %s",
                 (unsigned long long)o.kv.kv_tokens, (unsigned long long)o.kv.min_tokens,
                 o.kv.start_rule ? o.kv.start_rule : "the engine refuses to start");
    else if (s == VS_VERDICT_EXCLUDE)
        snprintf(row->note, sizeof row->note,
                 "the KV pool %sholds %.2f requests of the card's length, less than one: %s",
                 unknown ? "(from the known items alone) " : "",
                 o.kv_ok ? o.kv.max_concurrency : 0.0,
                 o.kv_ok && o.kv.start_rule ? o.kv.start_rule : "the engine refuses to start");
    else if (l == VS_VERDICT_EXCLUDE && o.kv_ok && o.kv.caps_length && c->env.length_known &&
             o.kv.length_cap < c->env.length)
        snprintf(row->note, sizeof row->note,
                 "the engine starts but caps each request at %llu tokens (max_total_num_tokens "
                 "- 1), shorter than the card's length %llu",
                 (unsigned long long)o.kv.length_cap, (unsigned long long)c->env.length);
    else if (k == VS_VERDICT_EXCLUDE && o.kv_ok && o.kv.seq_limited && c->env.concurrency_known &&
             c->env.concurrency > o.kv.seq_limit)
        snprintf(row->note, sizeof row->note,
                 "the engine schedules at most %llu sequences at once, fewer than the card's "
                 "concurrency %llu (raise max_num_seqs)",
                 (unsigned long long)o.kv.seq_limit, (unsigned long long)c->env.concurrency);
    else if (k == VS_VERDICT_EXCLUDE)
        snprintf(row->note, sizeof row->note,
                 "the KV pool holds %.2f requests of the card's length, fewer than its "
                 "concurrency%s",
                 row->max_concurrency, unknown ? " (an upper bound)" : "");
    else if (l == VS_VERDICT_EXCLUDE)
        snprintf(row->note, sizeof row->note,
                 "at the card's concurrency the longest sequence is %llu tokens, shorter than "
                 "its length",
                 (unsigned long long)row->max_length);
    else if (unknown)
        snprintf(row->note, sizeof row->note,
                 "fits so far; the figures are upper bounds until the unknown items are known");
    else
        snprintf(row->note, sizeof row->note, "every item known: the card fits");
    if ((rc = vs_fit_devices(row, c, offer, err)) < 0)
        return rc;

    for (i = 0; i < nformats && i < VS_FIT_FORMATS_MAX; i++) {
        vs_fit_format *f = &row->formats[row->nformats++];
        uint64_t w = 0;
        int wk = 0;
        f->format = formats[i];
        f->bits_known = vs_envelope_format_bits(&f->bits, formats[i], NULL) == 0;
        for (j = 0; j < c->nweights; j++)
            if (!strcmp(c->weights[j].format, formats[i]))
                break;
        if (c->format && !strcmp(formats[i], c->format)) {
            wk = c->env.weights_known;
            w = c->env.weights_bytes;
        } else if (j < c->nweights) {
            w = vs_placement_per_gpu(&c->placement, VS_VOCAB_WEIGHTS, c->weights[j].bytes);
            wk = 1;
        } else if (c->params_known && f->bits_known &&
                   vs_envelope_weights_bytes(&w, c->params, f->bits, err) == 0) {
            w = vs_placement_per_gpu(&c->placement, VS_VOCAB_WEIGHTS, w);
            wk = 1;
        }
        f->weights_known = wk;
        f->weights_bytes = w;
        if (!wk) {
            f->verdict = VS_VERDICT_TO_CONFIRM;
            continue;
        }
        if ((rc = compute(&ob, c, row->capacity_bytes, offer, 1, w, err)) < 0)
            return rc;
        judge(&ob, c, row->capacity_bytes, unknown, &s, &k, &l);
        f->kv_pool_bytes = ob.pool;
        f->kv_tokens = ob.kv_ok ? ob.kv.kv_tokens : 0;
        f->max_concurrency = ob.kv_ok ? ob.kv.max_concurrency : 0;
        f->verdict = row->cards < gpus ? VS_VERDICT_EXCLUDE : worse(worse(s, k), l);
    }
    return 0;
}

int vs_fit_classify(vs_classification **out, const json_t *sheet, const vs_envelope *env,
                    const vs_component_views *views, vs_error *err)
{
    const json_t *offers = vs_sheet_array(sheet, VS_SK_OFFERS), *o;
    const vs_engine *eng = vs_engine_find(vs_sheet_engine_name(sheet));
    vs_classify_engine ce = {NULL, NULL, 0};
    vs_classify_fit *fits = NULL;
    vs_fit_row *rows = NULL;
    vs_fit_ctx fc;
    vs_error ferr;
    size_t i, n = json_array_size(offers);
    int rc;
    memset(&fc, 0, sizeof fc);
    if (!eng || eng == vs_engine_default() || vs_fit_prepare(&fc, sheet, &ferr) < 0) {
        vs_fit_ctx_free(&fc);
        return vs_classify_under(out, sheet, env, views, NULL, err);
    }
    fits = calloc(n + 1, sizeof *fits);
    rows = calloc(n + 1, sizeof *rows);
    if (!fits || !rows) {
        free(fits);
        free(rows);
        vs_fit_ctx_free(&fc);
        *out = NULL;
        return vs_error_set(err, VS_ENOMEM, "out of memory while classifying candidates");
    }
    json_array_foreach(offers, i, o)
    {
        vs_fit_row *r = &rows[i];
        if (vs_fit_offer(r, &fc, o, NULL, 0, &ferr) != 0)
            continue;
        fits[i].known = 1;
        fits[i].start_verdict = r->start_verdict;
        fits[i].concurrency_verdict = r->concurrency_verdict;
        fits[i].length_verdict = r->length_verdict;
        fits[i].budget_bytes = r->budget_bytes;
        fits[i].kv_pool_bytes = r->kv_pool_bytes > 0 ? (uint64_t)r->kv_pool_bytes : 0;
        fits[i].max_concurrency = r->max_concurrency;
        fits[i].max_length = r->max_length;
        fits[i].upper_bound = r->upper_bound;
        fits[i].note = r->note;
    }
    ce.name = fc.engine->name;
    ce.fits = fits;
    ce.n = n;
    rc = vs_classify_under(out, sheet, env, views, &ce, err);
    for (i = 0; i < n; i++)
        if (fits[i].known)
            vs_fit_row_free(&rows[i]);
    free(fits);
    free(rows);
    vs_fit_ctx_free(&fc);
    return rc;
}
