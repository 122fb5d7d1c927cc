#include "sheet/kvlayout.h"

#include <string.h>

#include "util/checked.h"

static const char *const kind_names[VS_KV_KIND_COUNT] = {"full",  "sliding", "chunked", "latent",
                                                         "state", "cross",   "none"};

const char *vs_kv_kind_name(vs_kv_kind kind)
{
    return (unsigned)kind < VS_KV_KIND_COUNT ? kind_names[kind] : "?";
}

int vs_kv_kind_parse(vs_kv_kind *out, const char *name, vs_error *err)
{
    unsigned i;
    for (i = 0; name && i < VS_KV_KIND_COUNT; i++)
        if (!strcmp(name, kind_names[i])) {
            *out = (vs_kv_kind)i;
            return 0;
        }
    return vs_error_set(err, VS_EVALUE,
                        "unknown KV layer kind \"%s\"; expected full, sliding, chunked, latent, "
                        "state, cross or none",
                        name ? name : "");
}

static int same_shape(const vs_kv_group *a, const vs_kv_group *b)
{
    return a->kind == b->kind && a->kv_heads == b->kv_heads && a->head_dim == b->head_dim &&
           a->head_dim_v == b->head_dim_v && a->window == b->window && a->latent == b->latent &&
           a->state_bytes == b->state_bytes && a->state_conv == b->state_conv &&
           a->state_ssm == b->state_ssm;
}

int vs_kv_layout_add(vs_kv_layout *l, const vs_kv_group *g, vs_error *err)
{
    size_t i;
    /* Any earlier group of the same shape takes the layers: an interleaved
     * local/global model (5 sliding, 1 full, ...) stays two groups. */
    for (i = 0; i < l->n; i++)
        if (same_shape(&l->g[i], g)) {
            if (vs_checked_add(&l->g[i].layers, l->g[i].layers, g->layers))
                return vs_error_set(err, VS_EVALUE, "too many layers in one KV group");
            return 0;
        }
    if (l->n >= VS_KV_GROUPS_MAX)
        return vs_error_set(err, VS_EVALUE, "a KV layout holds at most %d groups of layers",
                            VS_KV_GROUPS_MAX);
    l->g[l->n++] = *g;
    return 0;
}

uint64_t vs_kv_layout_layers(const vs_kv_layout *l)
{
    uint64_t n = 0;
    size_t i;
    for (i = 0; i < l->n; i++)
        n += l->g[i].layers;
    return n;
}

uint64_t vs_kv_group_tokens(const vs_kv_group *g, const vs_kv_dims *d)
{
    switch (g->kind) {
    case VS_KV_FULL:
    case VS_KV_LATENT:
        return d->length;
    case VS_KV_SLIDING:
    case VS_KV_CHUNKED:
        return g->window && g->window < d->length ? g->window : d->length;
    case VS_KV_CROSS:
        return d->encoder_known ? d->encoder_length : d->length;
    default:
        return 0;
    }
}

uint64_t vs_kv_group_heads_per_gpu(const vs_kv_group *g, uint64_t tp)
{
    uint64_t h;
    if (g->kind == VS_KV_LATENT || tp <= 1)
        return g->kv_heads;
    h = g->kv_heads / tp + (g->kv_heads % tp != 0);
    return h ? h : (g->kv_heads ? 1 : 0);
}

uint64_t vs_kv_group_values_per_token(const vs_kv_group *g, uint64_t tp)
{
    uint64_t dv = g->head_dim_v ? g->head_dim_v : g->head_dim;
    switch (g->kind) {
    case VS_KV_FULL:
    case VS_KV_SLIDING:
    case VS_KV_CHUNKED:
    case VS_KV_CROSS:
        return vs_kv_group_heads_per_gpu(g, tp) * (g->head_dim + dv);
    case VS_KV_LATENT:
        return g->latent;
    default:
        return 0;
    }
}

static int mul(uint64_t *acc, uint64_t x, vs_error *err)
{
    if (vs_checked_mul(acc, *acc, x))
        return vs_error_set(err, VS_EUNIT, "the KV cache does not fit in 64-bit bytes");
    return 0;
}

/* v x bits / 8, rounded up, without losing the low bits of an odd count. */
static int times_bits(uint64_t *v, unsigned bits, vs_error *err)
{
    int rc;
    if (bits % 8 == 0)
        return mul(v, bits / 8, err);
    if ((rc = mul(v, bits, err)))
        return rc;
    *v = *v / 8 + (*v % 8 != 0);
    return 0;
}

int vs_kv_layout_bytes(uint64_t *total, uint64_t *per_token, vs_kv_group_bytes *out,
                       const vs_kv_layout *l, const vs_kv_dims *d, vs_error *err)
{
    uint64_t sum = 0, tok_sum = 0, tp = d->tp ? d->tp : 1;
    size_t i;
    int rc;
    if (d->bits == 0)
        return vs_error_set(err, VS_EVALUE, "the cache dtype has no known width");
    for (i = 0; i < l->n; i++) {
        const vs_kv_group *g = &l->g[i];
        vs_kv_group_bytes r = {vs_kv_group_tokens(g, d), vs_kv_group_heads_per_gpu(g, tp), 0, 0};
        uint64_t v;
        if (g->kind == VS_KV_STATE) {
            /* the recurrent heads and the convolution's channels are split
             * over the tensor-parallel ranks (vLLM's MambaStateShapeCalculator
             * divides them by the TP size, mamba_utils.py at 02d7108) */
            v = g->layers;
            if ((rc = mul(&v, g->state_bytes / tp + (g->state_bytes % tp != 0), err)) ||
                (rc = mul(&v, d->concurrency, err)))
                return rc;
        } else {
            uint64_t pt = g->layers;
            if ((rc = mul(&pt, vs_kv_group_values_per_token(g, tp), err)))
                return rc;
            v = pt;
            if ((rc = mul(&v, r.tokens, err)) || (rc = mul(&v, d->concurrency, err)) ||
                (rc = times_bits(&v, d->bits, err)))
                return rc;
            /* One more token costs this group only while it is not capped by
             * its window, and a cross group grows with the encoder, not here. */
            if ((g->kind == VS_KV_FULL || g->kind == VS_KV_LATENT ||
                 ((g->kind == VS_KV_SLIDING || g->kind == VS_KV_CHUNKED) &&
                  (!g->window || d->length < g->window)))) {
                if ((rc = times_bits(&pt, d->bits, err)))
                    return rc;
                r.bytes_per_token = pt;
            }
        }
        r.bytes = v;
        if (vs_checked_add(&sum, sum, v) || vs_checked_add(&tok_sum, tok_sum, r.bytes_per_token))
            return vs_error_set(err, VS_EUNIT, "the KV cache does not fit in 64-bit bytes");
        if (out)
            out[i] = r;
    }
    if (total)
        *total = sum;
    if (per_token)
        *per_token = tok_sum;
    return 0;
}

static json_t *num_or_null(int has, uint64_t v)
{
    return has ? json_integer((json_int_t)v) : json_null();
}

json_t *vs_kv_layout_to_json(const vs_kv_layout *l)
{
    json_t *arr = json_array();
    size_t i;
    if (!arr)
        return NULL;
    for (i = 0; i < l->n; i++) {
        const vs_kv_group *g = &l->g[i];
        int attn = g->kind == VS_KV_FULL || g->kind == VS_KV_SLIDING || g->kind == VS_KV_CHUNKED ||
                   g->kind == VS_KV_CROSS;
        json_t *o = json_object();
        if (!o || json_array_append_new(arr, o) ||
            json_object_set_new(o, "kind", json_string(vs_kv_kind_name(g->kind))) ||
            json_object_set_new(o, "layers", json_integer((json_int_t)g->layers)) ||
            json_object_set_new(o, "kv_heads", num_or_null(attn, g->kv_heads)) ||
            json_object_set_new(o, "head_dim", num_or_null(attn, g->head_dim)) ||
            json_object_set_new(o, "head_dim_v",
                                num_or_null(attn, g->head_dim_v ? g->head_dim_v : g->head_dim)) ||
            json_object_set_new(
                o, "window",
                num_or_null(g->kind == VS_KV_SLIDING || g->kind == VS_KV_CHUNKED, g->window)) ||
            json_object_set_new(o, "latent", num_or_null(g->kind == VS_KV_LATENT, g->latent)) ||
            json_object_set_new(o, "state_bytes",
                                num_or_null(g->kind == VS_KV_STATE, g->state_bytes)) ||
            (g->kind == VS_KV_STATE && (g->state_conv || g->state_ssm) &&
             (json_object_set_new(o, "state_conv", json_integer((json_int_t)g->state_conv)) ||
              json_object_set_new(o, "state_ssm", json_integer((json_int_t)g->state_ssm))))) {
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}

/* An integer >= 0, or null (read as 0), under key k of group i. */
static int get_uint(uint64_t *out, const json_t *o, const char *k, size_t i, vs_error *err)
{
    const json_t *v = json_object_get(o, k);
    *out = 0;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return vs_error_set(err, VS_EFORMAT,
                            "kv_layout group %zu: \"%s\" must be a non-negative integer or null",
                            i + 1, k);
    *out = (uint64_t)json_integer_value(v);
    return 0;
}

int vs_kv_layout_from_json(vs_kv_layout *out, const json_t *arr, vs_error *err)
{
    size_t i;
    int rc;
    memset(out, 0, sizeof *out);
    if (!json_is_array(arr))
        return vs_error_set(err, VS_EFORMAT, "kv_layout must be an array of layer groups");
    if (json_array_size(arr) > VS_KV_GROUPS_MAX)
        return vs_error_set(err, VS_EFORMAT, "kv_layout holds at most %d groups", VS_KV_GROUPS_MAX);
    for (i = 0; i < json_array_size(arr); i++) {
        const json_t *o = json_array_get(arr, i);
        vs_kv_group *g = &out->g[i];
        if (!json_is_object(o) || !json_is_string(json_object_get(o, "kind")))
            return vs_error_set(err, VS_EFORMAT,
                                "kv_layout group %zu: expected an object with "
                                "a \"kind\"",
                                i + 1);
        if (vs_kv_kind_parse(&g->kind, json_string_value(json_object_get(o, "kind")), NULL))
            return vs_error_set(err, VS_EFORMAT,
                                "kv_layout group %zu: unknown kind \"%s\" (full, sliding, "
                                "chunked, latent, state, cross or none)",
                                i + 1, json_string_value(json_object_get(o, "kind")));
        if ((rc = get_uint(&g->layers, o, "layers", i, err)) ||
            (rc = get_uint(&g->kv_heads, o, "kv_heads", i, err)) ||
            (rc = get_uint(&g->head_dim, o, "head_dim", i, err)) ||
            (rc = get_uint(&g->head_dim_v, o, "head_dim_v", i, err)) ||
            (rc = get_uint(&g->window, o, "window", i, err)) ||
            (rc = get_uint(&g->latent, o, "latent", i, err)) ||
            (rc = get_uint(&g->state_bytes, o, "state_bytes", i, err)) ||
            (rc = get_uint(&g->state_conv, o, "state_conv", i, err)) ||
            (rc = get_uint(&g->state_ssm, o, "state_ssm", i, err)))
            return rc;
        if (g->head_dim_v == g->head_dim)
            g->head_dim_v = 0;
        out->n++;
    }
    return 0;
}

void vs_kv_layout_uniform(vs_kv_layout *out, uint64_t layers, uint64_t kv_heads, uint64_t head_dim)
{
    memset(out, 0, sizeof *out);
    out->n = 1;
    out->g[0].kind = VS_KV_FULL;
    out->g[0].layers = layers;
    out->g[0].kv_heads = kv_heads;
    out->g[0].head_dim = head_dim;
}
