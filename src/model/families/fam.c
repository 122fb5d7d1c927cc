#include "model/families/fam.h"

#include <stdio.h>
#include <string.h>

/* ---- config keys ---- */

static json_t *present(const json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return v && !json_is_null(v) ? v : NULL;
}

static int read_dim(json_t *v, const char *key, uint64_t *out, vs_error *err)
{
    json_int_t n;
    if (!json_is_integer(v))
        return vs_error_set(err, VS_EFORMAT, "'%s' must be a positive integer", key);
    n = json_integer_value(v);
    if (n <= 0 || (uint64_t)n > VS_FAM_DIM_MAX)
        return vs_error_set(err, VS_EFORMAT,
                            "'%s' must be a positive integer (at most 2^40), not %lld", key,
                            (long long)n);
    *out = (uint64_t)n;
    return 0;
}

int vs_fam_dim(const json_t *o, const char *const *keys, int required, uint64_t dflt, uint64_t *out,
               const char *rule, vs_error *err)
{
    size_t i;
    for (i = 0; keys[i]; i++) {
        json_t *v = present(o, keys[i]);
        if (v)
            return read_dim(v, keys[i], out, err);
    }
    if (required)
        return vs_error_set(err, VS_EFORMAT, "key '%s' is missing (the %s needs it)", keys[0],
                            rule);
    *out = dflt;
    return 0;
}

int vs_fam_dim1(const json_t *o, const char *key, int required, uint64_t dflt, uint64_t *out,
                const char *rule, vs_error *err)
{
    const char *keys[2] = {key, NULL};
    return vs_fam_dim(o, keys, required, dflt, out, rule, err);
}

int vs_fam_uint0(const json_t *o, const char *key, uint64_t dflt, uint64_t *out, vs_error *err)
{
    json_t *v = present(o, key);
    if (!v) {
        *out = dflt;
        return 0;
    }
    if (!json_is_integer(v) || json_integer_value(v) < 0 ||
        (uint64_t)json_integer_value(v) > VS_FAM_DIM_MAX)
        return vs_error_set(err, VS_EFORMAT, "'%s' must be a whole number from 0 to 2^40", key);
    *out = (uint64_t)json_integer_value(v);
    return 0;
}

int vs_fam_bool(const json_t *o, const char *key, int dflt, int *out, vs_error *err)
{
    json_t *v = present(o, key);
    if (!v) {
        *out = dflt;
        return 0;
    }
    if (!json_is_boolean(v))
        return vs_error_set(err, VS_EFORMAT, "'%s' must be true or false", key);
    *out = json_is_true(v);
    return 0;
}

int vs_fam_heads(vs_arch *a, const json_t *o, const char *kv_key, vs_error *err)
{
    int rc;
    if (!present(o, "head_dim") && a->hidden % a->heads)
        return vs_error_set(err, VS_EFORMAT,
                            "hidden_size %llu is not a multiple of num_attention_heads %llu and "
                            "no head_dim is given",
                            (unsigned long long)a->hidden, (unsigned long long)a->heads);
    if ((rc = vs_fam_dim1(o, "head_dim", 0, a->hidden / a->heads, &a->head_dim, a->rule, err)) ||
        (rc = vs_fam_dim1(o, kv_key, 0, a->heads, &a->kv_heads, a->rule, err)))
        return rc;
    if (a->kv_heads > a->heads || a->heads % a->kv_heads)
        return vs_error_set(err, VS_EFORMAT, "%s %llu does not divide num_attention_heads %llu",
                            kv_key, (unsigned long long)a->kv_heads, (unsigned long long)a->heads);
    return 0;
}

/* ---- tensor rules ---- */

void vs_fam_emit_init(vs_fam_emit *e, vs_tensor_rule_cb cb, void *ud, const char *prefix)
{
    e->cb = cb;
    e->ud = ud;
    e->prefix = prefix ? prefix : "";
    e->part = VS_PART_TEXT;
    e->rc = 0;
}

void vs_fam_rule(vs_fam_emit *e, const char *pattern, uint64_t layer0, uint64_t layers,
                 uint64_t experts, uint64_t routed, unsigned nd, uint64_t d0, uint64_t d1,
                 uint64_t d2, uint64_t d3)
{
    vs_tensor_rule r;
    if (e->rc || layers == 0)
        return;
    r.prefix = e->prefix;
    r.pattern = pattern;
    r.ndims = nd;
    r.shape[0] = d0;
    r.shape[1] = d1;
    r.shape[2] = d2;
    r.shape[3] = d3;
    r.layer0 = layer0;
    r.layers = layers;
    r.experts = experts;
    r.routed = routed;
    r.part = e->part;
    e->rc = e->cb(e->ud, &r);
}

/* ---- attention layouts ---- */

static int add_groups(vs_arch *a, uint64_t nfull, uint64_t nslide, uint64_t nchunk, uint64_t chunk,
                      int sliding_first, vs_error *err)
{
    vs_kv_group full, slide, chunked;
    int rc = 0;
    memset(&full, 0, sizeof full);
    full.kind = VS_KV_FULL;
    full.kv_heads = a->kv_heads;
    full.head_dim = a->head_dim;
    full.head_dim_v = a->head_dim_v && a->head_dim_v != a->head_dim ? a->head_dim_v : 0;
    slide = full;
    slide.kind = VS_KV_SLIDING;
    slide.window = a->sliding_window;
    chunked = full;
    chunked.kind = VS_KV_CHUNKED;
    chunked.window = chunk;
    full.layers = nfull;
    slide.layers = nslide;
    chunked.layers = nchunk;
    memset(&a->kv, 0, sizeof a->kv);
    if (sliding_first && nslide)
        rc = vs_kv_layout_add(&a->kv, &slide, err);
    if (!rc && nfull)
        rc = vs_kv_layout_add(&a->kv, &full, err);
    if (!rc && !sliding_first && nslide)
        rc = vs_kv_layout_add(&a->kv, &slide, err);
    if (!rc && nchunk)
        rc = vs_kv_layout_add(&a->kv, &chunked, err);
    return rc;
}

static int from_layer_types(vs_arch *a, const json_t *cfg, const json_t *lt, vs_error *err)
{
    uint64_t n[3] = {0, 0, 0}, chunk = 0, i;
    int first_sliding = -1, rc;
    if (!json_is_array(lt) || json_array_size(lt) != a->layers)
        return vs_error_set(err, VS_EFORMAT,
                            "'layer_types' must list one type for each of the %llu layers",
                            (unsigned long long)a->layers);
    for (i = 0; i < a->layers; i++) {
        const char *t = json_string_value(json_array_get(lt, (size_t)i));
        int k;
        if (t && !strcmp(t, "full_attention"))
            k = VS_LAYER_FULL;
        else if (t && !strcmp(t, "sliding_attention"))
            k = VS_LAYER_SLIDING;
        else if (t && !strcmp(t, "chunked_attention"))
            k = VS_LAYER_CHUNKED;
        else
            return vs_error_set(err, VS_EFORMAT,
                                "layer_types[%llu] is '%s'; known: full_attention, "
                                "sliding_attention, chunked_attention",
                                (unsigned long long)i, t ? t : "(not a string)");
        if (first_sliding < 0)
            first_sliding = k == VS_LAYER_SLIDING;
        n[k]++;
        if (i < VS_ARCH_LAYERS_MAX)
            a->layer_kind[i] = (unsigned char)k;
    }
    if (n[VS_LAYER_SLIDING] && !a->sliding_window)
        return vs_error_set(err, VS_EFORMAT,
                            "layer_types has sliding_attention layers but no sliding_window");
    if (n[VS_LAYER_CHUNKED] &&
        (rc = vs_fam_dim1(cfg, "attention_chunk_size", 1, 0, &chunk, a->rule, err)))
        return rc;
    return add_groups(a, n[VS_LAYER_FULL], n[VS_LAYER_SLIDING], n[VS_LAYER_CHUNKED], chunk,
                      first_sliding == 1, err);
}

int vs_fam_kv_decoder(vs_arch *a, const json_t *cfg, int pattern_default, vs_error *err)
{
    const json_t *lt = present(cfg, "layer_types");
    uint64_t pattern = 0, i, nslide = 0;
    int rc;
    if ((rc = vs_fam_uint0(cfg, "sliding_window", 0, &a->sliding_window, err)))
        return rc;
    if (lt)
        return from_layer_types(a, cfg, lt, err);
    if (!a->sliding_window || pattern_default < 0) {
        a->sliding_window = 0;
        return add_groups(a, a->layers, 0, 0, 0, 0, err);
    }
    if ((rc =
             vs_fam_uint0(cfg, "sliding_window_pattern", (uint64_t)pattern_default, &pattern, err)))
        return rc;
    /* every pattern-th layer (counting from 1) is global, the others slide */
    for (i = 0; i < a->layers && i < VS_ARCH_LAYERS_MAX; i++)
        a->layer_kind[i] = pattern && (i + 1) % pattern == 0 ? VS_LAYER_FULL : VS_LAYER_SLIDING;
    nslide = pattern ? a->layers - a->layers / pattern : a->layers;
    return add_groups(a, a->layers - nslide, nslide, 0, 0, 1, err);
}

int vs_fam_kv_qwen(vs_arch *a, const json_t *cfg, vs_error *err)
{
    int use = 0, rc;
    uint64_t from = 0, i, nslide;
    if (present(cfg, "layer_types")) {
        if ((rc = vs_fam_uint0(cfg, "sliding_window", 0, &a->sliding_window, err)))
            return rc;
        return from_layer_types(a, cfg, present(cfg, "layer_types"), err);
    }
    if ((rc = vs_fam_bool(cfg, "use_sliding_window", 0, &use, err)) ||
        (rc = vs_fam_uint0(cfg, "sliding_window", 0, &a->sliding_window, err)) ||
        (rc = vs_fam_uint0(cfg, "max_window_layers", 28, &from, err)))
        return rc;
    if (!use || !a->sliding_window) {
        a->sliding_window = 0;
        return add_groups(a, a->layers, 0, 0, 0, 0, err);
    }
    nslide = from < a->layers ? a->layers - from : 0;
    for (i = 0; i < a->layers && i < VS_ARCH_LAYERS_MAX; i++)
        a->layer_kind[i] = i >= from ? VS_LAYER_SLIDING : VS_LAYER_FULL;
    return add_groups(a, a->layers - nslide, nslide, 0, 0, 0, err);
}

/* ---- llama-style decoders ---- */

static const char *const K_LAYERS[] = {"num_hidden_layers", "n_layer", NULL};
static const char *const K_HEADS[] = {"num_attention_heads", "n_head", NULL};

int vs_fam_llama_dims(vs_arch *a, const json_t *o, int tie_default, vs_error *err)
{
    int rc;
    if ((rc = vs_fam_dim(o, K_LAYERS, 1, 0, &a->layers, a->rule, err)) ||
        (rc = vs_fam_dim1(o, "hidden_size", 1, 0, &a->hidden, a->rule, err)) ||
        (rc = vs_fam_dim(o, K_HEADS, 1, 0, &a->heads, a->rule, err)) ||
        (rc = vs_fam_dim1(o, "intermediate_size", 1, 0, &a->intermediate, a->rule, err)) ||
        (rc = vs_fam_dim1(o, "vocab_size", 1, 0, &a->vocab, a->rule, err)) ||
        (rc = vs_fam_heads(a, o, "num_key_value_heads", err)) ||
        (rc = vs_fam_bool(o, "tie_word_embeddings", tie_default, &a->tied_embeddings, err)))
        return rc;
    return 0;
}

void vs_fam_llama_attn(vs_fam_emit *e, const vs_arch *a, uint64_t l0, uint64_t n)
{
    uint64_t h = a->hidden, q = a->heads * a->head_dim, kv = a->kv_heads * a->head_dim;
    unsigned f = a->flags;
    VS_L2(e, "model.layers.{L}.self_attn.q_proj.weight", l0, n, q, h);
    VS_L2(e, "model.layers.{L}.self_attn.k_proj.weight", l0, n, kv, h);
    VS_L2(e, "model.layers.{L}.self_attn.v_proj.weight", l0, n, kv, h);
    VS_L2(e, "model.layers.{L}.self_attn.o_proj.weight", l0, n, h, q);
    if (f & VS_LL_QKV_BIAS) {
        VS_L1(e, "model.layers.{L}.self_attn.q_proj.bias", l0, n, q);
        VS_L1(e, "model.layers.{L}.self_attn.k_proj.bias", l0, n, kv);
        VS_L1(e, "model.layers.{L}.self_attn.v_proj.bias", l0, n, kv);
    }
    if (f & VS_LL_O_BIAS)
        VS_L1(e, "model.layers.{L}.self_attn.o_proj.bias", l0, n, h);
    if (f & VS_LL_QK_NORM) {
        VS_L1(e, "model.layers.{L}.self_attn.q_norm.weight", l0, n, a->head_dim);
        VS_L1(e, "model.layers.{L}.self_attn.k_norm.weight", l0, n, a->head_dim);
    }
    if (f & VS_LL_QK_NORM_W) {
        VS_L1(e, "model.layers.{L}.self_attn.q_norm.weight", l0, n, q);
        VS_L1(e, "model.layers.{L}.self_attn.k_norm.weight", l0, n, kv);
    }
    if (!(f & VS_LL_POST_ONLY))
        VS_L1(e, "model.layers.{L}.input_layernorm.weight", l0, n, h);
    VS_L1(e, "model.layers.{L}.post_attention_layernorm.weight", l0, n, h);
    if (f & VS_LL_NORMS4)
        VS_L1(e, "model.layers.{L}.pre_feedforward_layernorm.weight", l0, n, h);
    if (f & (VS_LL_NORMS4 | VS_LL_POST_ONLY))
        VS_L1(e, "model.layers.{L}.post_feedforward_layernorm.weight", l0, n, h);
}

void vs_fam_gated_mlp(vs_fam_emit *e, const char *gate, const char *up, const char *down,
                      uint64_t l0, uint64_t n, uint64_t hidden, uint64_t inter, int bias)
{
    char p[160];
    VS_L2(e, gate, l0, n, inter, hidden);
    VS_L2(e, up, l0, n, inter, hidden);
    VS_L2(e, down, l0, n, hidden, inter);
    if (bias) {
        /* "...weight" -> "...bias" */
        snprintf(p, sizeof p, "%.*sbias", (int)(strlen(gate) - 6), gate);
        VS_L1(e, p, l0, n, inter);
        snprintf(p, sizeof p, "%.*sbias", (int)(strlen(up) - 6), up);
        VS_L1(e, p, l0, n, inter);
        snprintf(p, sizeof p, "%.*sbias", (int)(strlen(down) - 6), down);
        VS_L1(e, p, l0, n, hidden);
    }
}

void vs_fam_llama_ends(vs_fam_emit *e, const vs_arch *a)
{
    VS_T2(e, "model.embed_tokens.weight", a->vocab, a->hidden);
    VS_T1(e, "model.norm.weight", a->hidden);
    if (!a->tied_embeddings)
        VS_T2(e, "lm_head.weight", a->vocab, a->hidden);
}

/* ---- vision towers ---- */

int vs_fam_vision(vs_arch_vision *v, const json_t *vc, const vs_arch_vision *d, vs_error *err)
{
    int rc;
    const char *r = "vision_config";
    if (!json_is_object(vc))
        return vs_error_set(err, VS_EFORMAT, "'vision_config' must be an object");
    if ((rc = vs_fam_dim1(vc, "num_hidden_layers", 0, d->layers, &v->layers, r, err)) ||
        (rc = vs_fam_dim1(vc, "hidden_size", 0, d->hidden, &v->hidden, r, err)) ||
        (rc = vs_fam_dim1(vc, "num_attention_heads", 0, d->heads, &v->heads, r, err)) ||
        (rc = vs_fam_dim1(vc, "intermediate_size", 0, d->intermediate, &v->intermediate, r, err)) ||
        (rc = vs_fam_dim1(vc, "patch_size", 0, d->patch, &v->patch, r, err)) ||
        (rc = vs_fam_dim1(vc, "image_size", 0, d->image_size, &v->image_size, r, err)) ||
        (rc = vs_fam_dim1(vc, "num_channels", 0, d->channels, &v->channels, r, err)))
        return rc;
    if (v->image_size % v->patch)
        return vs_error_set(err, VS_EFORMAT,
                            "vision_config: image_size %llu is not a multiple of patch_size %llu",
                            (unsigned long long)v->image_size, (unsigned long long)v->patch);
    return 0;
}

/* The encoder layers shared by CLIP and SigLIP. */
static void vit_layers(vs_fam_emit *e, const vs_arch_vision *v)
{
    uint64_t d = v->hidden, i = v->intermediate, n = v->layers;
    static const char *const proj[4][2] = {
        {"vision_tower.vision_model.encoder.layers.{L}.self_attn.k_proj.weight",
         "vision_tower.vision_model.encoder.layers.{L}.self_attn.k_proj.bias"},
        {"vision_tower.vision_model.encoder.layers.{L}.self_attn.v_proj.weight",
         "vision_tower.vision_model.encoder.layers.{L}.self_attn.v_proj.bias"},
        {"vision_tower.vision_model.encoder.layers.{L}.self_attn.q_proj.weight",
         "vision_tower.vision_model.encoder.layers.{L}.self_attn.q_proj.bias"},
        {"vision_tower.vision_model.encoder.layers.{L}.self_attn.out_proj.weight",
         "vision_tower.vision_model.encoder.layers.{L}.self_attn.out_proj.bias"}};
    size_t k;
    for (k = 0; k < 4; k++) {
        VS_L2(e, proj[k][0], 0, n, d, d);
        VS_L1(e, proj[k][1], 0, n, d);
    }
    VS_L1(e, "vision_tower.vision_model.encoder.layers.{L}.layer_norm1.weight", 0, n, d);
    VS_L1(e, "vision_tower.vision_model.encoder.layers.{L}.layer_norm1.bias", 0, n, d);
    VS_L2(e, "vision_tower.vision_model.encoder.layers.{L}.mlp.fc1.weight", 0, n, i, d);
    VS_L1(e, "vision_tower.vision_model.encoder.layers.{L}.mlp.fc1.bias", 0, n, i);
    VS_L2(e, "vision_tower.vision_model.encoder.layers.{L}.mlp.fc2.weight", 0, n, d, i);
    VS_L1(e, "vision_tower.vision_model.encoder.layers.{L}.mlp.fc2.bias", 0, n, d);
    VS_L1(e, "vision_tower.vision_model.encoder.layers.{L}.layer_norm2.weight", 0, n, d);
    VS_L1(e, "vision_tower.vision_model.encoder.layers.{L}.layer_norm2.bias", 0, n, d);
    VS_T1(e, "vision_tower.vision_model.post_layernorm.weight", d);
    VS_T1(e, "vision_tower.vision_model.post_layernorm.bias", d);
}

void vs_fam_clip_tower(vs_fam_emit *e, const vs_arch_vision *v, const char *prefix)
{
    uint64_t d = v->hidden, side = v->image_size / v->patch;
    e->prefix = prefix;
    e->part = VS_PART_VISION;
    VS_T1(e, "vision_tower.vision_model.embeddings.class_embedding", d);
    vs_fam_rule(e, "vision_tower.vision_model.embeddings.patch_embedding.weight", 0, 1, 0, 0, 4, d,
                v->channels, v->patch, v->patch);
    VS_T2(e, "vision_tower.vision_model.embeddings.position_embedding.weight", side * side + 1, d);
    VS_T1(e, "vision_tower.vision_model.pre_layrnorm.weight", d);
    VS_T1(e, "vision_tower.vision_model.pre_layrnorm.bias", d);
    vit_layers(e, v);
    e->part = VS_PART_TEXT;
}

void vs_fam_siglip_tower(vs_fam_emit *e, const vs_arch_vision *v, const char *prefix)
{
    uint64_t d = v->hidden, side = v->image_size / v->patch;
    e->prefix = prefix;
    e->part = VS_PART_VISION;
    vs_fam_rule(e, "vision_tower.vision_model.embeddings.patch_embedding.weight", 0, 1, 0, 0, 4, d,
                v->channels, v->patch, v->patch);
    VS_T1(e, "vision_tower.vision_model.embeddings.patch_embedding.bias", d);
    VS_T2(e, "vision_tower.vision_model.embeddings.position_embedding.weight", side * side, d);
    vit_layers(e, v);
    e->part = VS_PART_TEXT;
}

/* ---- parts ---- */

typedef struct prefixer {
    const char *prefix;
    vs_tensor_rule_cb cb;
    void *ud;
} prefixer;

static int prefix_rule(void *ud, const vs_tensor_rule *r)
{
    prefixer *p = ud;
    vs_tensor_rule c = *r;
    char buf[96];
    snprintf(buf, sizeof buf, "%s%s", p->prefix, r->prefix ? r->prefix : "");
    c.prefix = buf;
    return p->cb(p->ud, &c);
}

int vs_fam_prefixed(const vs_family *f, const vs_arch *a, const char *prefix, vs_tensor_rule_cb cb,
                    void *ud)
{
    prefixer p = {prefix, cb, ud};
    return f->tensors(a, prefix_rule, &p);
}

json_t *vs_fam_with_defaults(const json_t *sub, const char *defaults)
{
    json_t *d = json_loads(defaults, 0, NULL);
    json_t *c = json_is_object(sub) ? json_copy((json_t *)sub) : NULL;
    if (!d || !c) {
        json_decref(d);
        json_decref(c);
        return NULL;
    }
    json_object_update_missing(c, d);
    json_decref(d);
    return c;
}
