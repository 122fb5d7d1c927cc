#include "model/family.h"

#include <stdio.h>
#include <string.h>

#include "model/families/fam.h"
#include "util/checked.h"

/* The families, one row of model/families/families.def each. */
static const vs_family *const families[] = {
#define VS_FAMILY(id) &vs_family_##id,
#include "model/families/families.def"
#undef VS_FAMILY
};

#define N_FAMILIES (sizeof families / sizeof families[0])

const vs_family *const *vs_family_table(size_t *n)
{
    *n = N_FAMILIES;
    return families;
}

static const char *const part_names[VS_PART_COUNT] = {
    "text",        "vision_tower", "projector", "mtp", "pretraining_heads",
    "audio_tower", "lora_adapters"};

const char *vs_part_name(vs_part p)
{
    return (unsigned)p < VS_PART_COUNT ? part_names[p] : "?";
}

const vs_family *vs_family_find(const char *model_type, const char *architecture)
{
    size_t i, j;
    for (i = 0; i < N_FAMILIES; i++) {
        const vs_family *f = families[i];
        if (model_type) {
            for (j = 0; f->model_types[j]; j++)
                if (!strcmp(f->model_types[j], model_type))
                    return f;
        } else if (architecture && f->architectures) {
            for (j = 0; f->architectures[j]; j++)
                if (!strcmp(f->architectures[j], architecture))
                    return f;
        }
    }
    return NULL;
}

/* A model_type spelled in lower case is what config.json writes today;
 * capitalised ones (Falcon's old RefinedWeb) are still read, not listed. */
static int listed_type(const char *t)
{
    for (; *t; t++)
        if (*t >= 'A' && *t <= 'Z')
            return 0;
    return 1;
}

const char *vs_family_names(char *buf, size_t n)
{
    size_t i, j, k = 0;
    if (!n)
        return buf;
    buf[0] = '\0';
    for (i = 0; i < N_FAMILIES; i++)
        for (j = 0; families[i]->model_types[j]; j++) {
            const char *t = families[i]->model_types[j];
            int w;
            if (!listed_type(t))
                continue;
            w = snprintf(buf + k, n - k, "%s%s", k ? ", " : "", t);
            if (w < 0 || (size_t)w >= n - k)
                return buf; /* cut short: an error text, not a record */
            k += (size_t)w;
        }
    return buf;
}

/* ---- counting ---- */

typedef struct counter {
    const vs_arch *a;
    uint64_t total, active, part[VS_PART_COUNT];
    int overflow;
} counter;

static int count_rule(void *ud, const vs_tensor_rule *r)
{
    counter *c = ud;
    uint64_t n = 1, act;
    unsigned i;
    int o = 0;
    for (i = 0; i < r->ndims; i++)
        o |= vs_checked_mul(&n, n, r->shape[i]);
    o |= vs_checked_mul(&n, n, r->layers);
    if (r->experts)
        o |= vs_checked_mul(&n, n, r->experts);
    act = n;
    if (r->routed && r->routed > c->a->experts_per_token) {
        /* the rule's tensors are r->routed experts' equal shares */
        act = n / r->routed;
        o |= vs_checked_mul(&act, act, c->a->experts_per_token);
    }
    o |= vs_checked_add(&c->part[r->part], c->part[r->part], n);
    if (r->part != VS_PART_MTP) {
        o |= vs_checked_add(&c->total, c->total, n);
        o |= vs_checked_add(&c->active, c->active, act);
    }
    c->overflow |= o;
    return 0;
}

int vs_arch_count(vs_arch *a, vs_error *err)
{
    counter c;
    memset(&c, 0, sizeof c);
    c.a = a;
    vs_family_tensor_rules(a, count_rule, &c);
    if (c.overflow || c.total > (uint64_t)INT64_MAX)
        return vs_error_set(err, VS_EFORMAT,
                            "the parameter count overflows 64 bits; the dimensions are not a "
                            "real model's");
    a->params_total = c.total;
    a->params_active = c.active;
    memcpy(a->part_params, c.part, sizeof c.part);
    return 0;
}

int vs_family_tensor_rules(const vs_arch *a, vs_tensor_rule_cb cb, void *ud)
{
    if (!a->fam || !a->fam->tensors)
        return 0;
    return a->fam->tensors(a, cb, ud);
}

/* ---- expansion into concrete names ---- */

typedef struct expander {
    vs_tensor_cb cb;
    void *ud;
} expander;

/* prefix + pattern with {L} = layer and {E} = expert. */
static void expand_name(char *out, size_t n, const vs_tensor_rule *r, uint64_t layer,
                        uint64_t expert)
{
    size_t k = 0;
    const char *p;
    k = (size_t)snprintf(out, n, "%s", r->prefix ? r->prefix : "");
    for (p = r->pattern; *p && k + 24 < n; p++) {
        if (p[0] == '{' && (p[1] == 'L' || p[1] == 'E') && p[2] == '}') {
            k += (size_t)snprintf(out + k, n - k, "%llu",
                                  (unsigned long long)(p[1] == 'L' ? layer : expert));
            p += 2;
        } else {
            out[k++] = *p;
        }
    }
    out[k < n ? k : n - 1] = '\0';
}

static int expand_rule(void *ud, const vs_tensor_rule *r)
{
    expander *x = ud;
    char name[256];
    vs_tensor t;
    uint64_t l, e, ne = r->experts ? r->experts : 1;
    int rc;
    t.name = name;
    t.ndims = r->ndims;
    memcpy(t.shape, r->shape, sizeof t.shape);
    t.part = r->part;
    for (l = r->layer0; l < r->layer0 + r->layers; l++)
        for (e = 0; e < ne; e++) {
            expand_name(name, sizeof name, r, l, e);
            if ((rc = x->cb(x->ud, &t)))
                return rc;
        }
    return 0;
}

int vs_family_tensors(const vs_arch *a, vs_tensor_cb cb, void *ud)
{
    expander x = {cb, ud};
    return vs_family_tensor_rules(a, expand_rule, &x);
}

/* ---- parsing ---- */

/* Shapes are products of two or three dimensions: above 2^30 each, they
 * could wrap before the counting checks them. */
static int too_big(const vs_arch *a)
{
    const uint64_t lim = (uint64_t)1 << 30;
    const uint64_t d[] = {a->layers,
                          a->hidden,
                          a->heads,
                          a->kv_heads,
                          a->head_dim,
                          a->head_dim_v,
                          a->intermediate,
                          a->vocab,
                          a->positions,
                          a->experts,
                          a->moe_intermediate,
                          a->shared_intermediate,
                          a->q_lora_rank,
                          a->kv_lora_rank,
                          a->rope_dim,
                          a->nope_dim,
                          a->mtp_layers,
                          a->encoder_layers,
                          a->type_vocab,
                          a->num_buckets,
                          a->vision.layers,
                          a->vision.hidden,
                          a->vision.intermediate,
                          a->vision.image_size,
                          a->vision.global_layers,
                          a->vision.max_tiles,
                          a->vision.output_dim,
                          a->vision.channels,
                          a->vision.patch,
                          a->shared_experts};
    size_t i;
    for (i = 0; i < sizeof d / sizeof d[0]; i++)
        if (d[i] > lim)
            return 1;
    return 0;
}

/* The context the model was built for: max_position_embeddings (or its older
 * spellings) of the language model (text_config first), and rope_scaling's
 * type and factor beside it. Absent or malformed: left unknown. */
static void read_context(vs_arch *a, const json_t *root)
{
    static const char *const keys[] = {"max_position_embeddings", "n_positions", "max_seq_len",
                                       "seq_length", NULL};
    const json_t *objs[2] = {json_object_get(root, "text_config"), root};
    size_t i, k;
    for (i = 0; i < 2 && !a->context; i++) {
        const json_t *o = objs[i], *rs;
        if (!json_is_object(o))
            continue;
        for (k = 0; keys[k]; k++) {
            json_t *v = json_object_get(o, keys[k]);
            if (json_is_integer(v) && json_integer_value(v) > 0) {
                a->context = (uint64_t)json_integer_value(v);
                snprintf(a->context_key, sizeof a->context_key, "%s%s",
                         i == 0 ? "text_config." : "", keys[k]);
                break;
            }
        }
        rs = json_object_get(o, "rope_scaling");
        if (a->context && json_is_object(rs)) {
            const char *t = json_string_value(json_object_get(rs, "rope_type"));
            json_t *f = json_object_get(rs, "factor");
            if (!t)
                t = json_string_value(json_object_get(rs, "type"));
            if (json_is_number(f))
                snprintf(a->rope_scaling, sizeof a->rope_scaling, "%s, factor %g", t ? t : "rope",
                         json_number_value(f));
            else if (t)
                snprintf(a->rope_scaling, sizeof a->rope_scaling, "%s", t);
        }
    }
}

int vs_arch_from_json(vs_arch *out, const json_t *root, vs_error *err)
{
    json_t *mt = json_object_get(root, "model_type");
    json_t *archs = json_object_get(root, "architectures");
    const char *shown = "(none)";
    const vs_family *f = NULL;
    char names[VS_FAMILY_NAMES_MAX];
    vs_arch a;
    int rc;

    memset(&a, 0, sizeof a);
    if (!json_is_object(root))
        return vs_error_set(err, VS_EFORMAT, "expected a JSON object");
    if (json_is_string(mt)) {
        shown = json_string_value(mt);
        f = vs_family_find(shown, NULL);
    } else if (mt && !json_is_null(mt)) {
        return vs_error_set(err, VS_EFORMAT, "'model_type' must be a string");
    } else if (json_is_array(archs) && json_array_size(archs) > 0 &&
               json_is_string(json_array_get(archs, 0))) {
        shown = json_string_value(json_array_get(archs, 0));
        f = vs_family_find(NULL, shown);
    }
    if (!f)
        return vs_error_set(err, VS_EVALUE,
                            "no parameter rule for architecture '%s' (rules exist for: %s); "
                            "give the count yourself with params=",
                            shown, vs_family_names(names, sizeof names));
    a.fam = f;
    snprintf(a.model_type, sizeof a.model_type, "%s",
             json_is_string(mt) ? json_string_value(mt) : "");
    snprintf(a.family, sizeof a.family, "%s", f->name);
    snprintf(a.rule, sizeof a.rule, "%s rule", f->name);
    if ((rc = f->parse(&a, root, err)))
        return rc;
    if (too_big(&a))
        return vs_error_set(err, VS_EFORMAT,
                            "the parameter count overflows 64 bits; a dimension above 2^30 is "
                            "not a real model's");
    if ((rc = f->kv_layout(&a, root, err)) || (rc = vs_arch_count(&a, err)))
        return rc;
    read_context(&a, root);
    if (a.layers == 0 || (a.head_dim == 0 && a.kv.n && a.kv.g[0].kind != VS_KV_LATENT))
        return vs_error_set(err, VS_EFORMAT, "the config gives no layers or no head size");
    *out = a;
    return 0;
}

int vs_arch_parse(vs_arch *out, const char *text, size_t len, vs_error *err)
{
    json_error_t jerr;
    json_t *root = json_loadb(text, len, 0, &jerr);
    int rc;
    if (!root)
        /* the line and column go in the text: a vs_error's own belong to the
         * cell that named the file; the byte position is the file's */
        return vs_error_set_pos(err, VS_EFORMAT, jerr.position,
                                "not JSON (line %d, column %d of the file: %s)", jerr.line,
                                jerr.column, jerr.text);
    rc = vs_arch_from_json(out, root, err);
    json_decref(root);
    return rc;
}
