/* estimate training lora: the trainable parameters of a LoRA adapter from the
 * model's shapes. PEFT's LoraLayer.update_layer (peft/tuners/lora/layer.py,
 * commit 00336949, the 0.17 series) gives each targeted nn.Linear of in_features
 * x out_features two matrices, lora_A = nn.Linear(in_features, r) and lora_B =
 * nn.Linear(r, out_features), both without bias: r x (in + out) parameters. */
#include "sheet/estimate.h"

#include <string.h>

#include "sheet/estimators/arith.h"

static const char *const module_names[VS_LORA_MODULES] = {"q", "k", "v", "o", "gate", "up", "down"};

const char *vs_estimate_lora_module_name(unsigned i)
{
    return i < VS_LORA_MODULES ? module_names[i] : "?";
}

int vs_estimate_lora_targets_parse(unsigned *mask, const char *text, vs_error *err)
{
    unsigned m = 0, i;
    const char *p = text;
    if (!text || !*text)
        return vs_error_set(err, VS_EVALUE, "targets= is empty");
    if (!strcmp(text, "all-linear") || !strcmp(text, "all")) {
        *mask = VS_LORA_ALL_LINEAR;
        return 0;
    }
    while (*p) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p), k = n;
        int found = 0;
        /* q_proj, gate_proj: PEFT's module names are accepted too */
        if (k > 5 && !strncmp(p + k - 5, "_proj", 5))
            k -= 5;
        for (i = 0; i < VS_LORA_MODULES; i++)
            if (strlen(module_names[i]) == k && !strncmp(p, module_names[i], k)) {
                m |= 1u << i;
                found = 1;
            }
        if (!found)
            return vs_error_set(err, VS_EVALUE,
                                "targets=: unknown module '%.*s'; expected all-linear or a list of "
                                "q, k, v, o, gate, up, down",
                                (int)n, p);
        p += n;
        if (*p == ',')
            p++;
    }
    *mask = m;
    return 0;
}

/* r x (in + out) for count modules of in x out, added to *acc; the module's
 * in x out is also added to *base and kept in *largest when it is larger. */
static int module(uint64_t *acc, uint64_t *base, uint64_t *largest, uint64_t count, uint64_t rank,
                  uint64_t in, uint64_t out, int targeted, vs_error *err)
{
    uint64_t t = in, w = in;
    int rc;
    if ((rc = vs_arith_mul(&w, out, "a layer's weights", err)))
        return rc;
    if (w > *largest)
        *largest = w;
    if ((rc = vs_arith_mul(&w, count, "the base weights", err)) ||
        (rc = vs_arith_add(base, w, "the base", err)))
        return rc;
    if (!targeted)
        return 0;
    if ((rc = vs_arith_add(&t, out, "the adapter", err)) ||
        (rc = vs_arith_mul(&t, rank, "the adapter", err)) ||
        (rc = vs_arith_mul(&t, count, "the adapter", err)))
        return rc;
    return vs_arith_add(acc, t, "the adapter", err);
}

/* One decoder layer: attention, then a dense or mixture-of-experts MLP. */
static int layer(vs_lora_est *e, const vs_lora_shape *s, unsigned mask, uint64_t rank, int moe,
                 vs_error *err)
{
    uint64_t h = s->hidden, q = s->heads * s->head_dim, kv = s->kv_heads * s->head_dim;
    uint64_t in[VS_LORA_MODULES] = {h, h, h, q, h, h, 0};
    uint64_t out[VS_LORA_MODULES] = {q, kv, kv, h, 0, 0, h};
    uint64_t i;
    int rc;
    for (i = 0; i < 4; i++)
        if ((rc = module(&e->trainable, &e->base_linear, &e->largest_linear, 1, rank, in[i], out[i],
                         (mask >> i) & 1, err)))
            return rc;
    for (i = 0; i < 4; i++)
        e->per_module[i] += (mask >> i) & 1 ? rank * (in[i] + out[i]) : 0;
    /* the MLP: dense layers (and MoE models' first dense layers) at intermediate;
     * each routed expert at moe_intermediate, the shared experts as one MLP at
     * shared_intermediate; with all-linear the router (hidden -> experts) too */
    {
        uint64_t widths[2] = {moe ? s->moe_intermediate : s->intermediate,
                              moe ? s->shared_intermediate : 0};
        uint64_t counts[2] = {moe ? s->experts : 1, 1};
        unsigned j;
        for (j = 0; j < 2; j++) {
            uint64_t m = widths[j];
            if (!m)
                continue;
            if ((rc = module(&e->trainable, &e->base_linear, &e->largest_linear, counts[j], rank, h,
                             m, (mask >> 4) & 1, err)) ||
                (rc = module(&e->trainable, &e->base_linear, &e->largest_linear, counts[j], rank, h,
                             m, (mask >> 5) & 1, err)) ||
                (rc = module(&e->trainable, &e->base_linear, &e->largest_linear, counts[j], rank, m,
                             h, (mask >> 6) & 1, err)))
                return rc;
            e->per_module[4] += (mask >> 4) & 1 ? counts[j] * rank * (h + m) : 0;
            e->per_module[5] += (mask >> 5) & 1 ? counts[j] * rank * (h + m) : 0;
            e->per_module[6] += (mask >> 6) & 1 ? counts[j] * rank * (m + h) : 0;
        }
        if (moe && (rc = module(&e->trainable, &e->base_linear, &e->largest_linear, 1, rank, h,
                                s->experts, mask == VS_LORA_ALL_LINEAR, err)))
            return rc;
        if (moe && mask == VS_LORA_ALL_LINEAR)
            e->router += rank * (h + s->experts);
    }
    return 0;
}

int vs_estimate_lora(vs_lora_est *out, const vs_lora_shape *s, unsigned mask, uint64_t rank,
                     vs_error *err)
{
    vs_lora_est e;
    uint64_t l, dense = s->experts ? s->dense_layers : s->layers;
    int rc;
    if (!rank)
        return vs_error_set(err, VS_EVALUE, "rank= must be at least 1");
    if (!s->layers || !s->hidden || !s->heads || !s->kv_heads || !s->head_dim)
        return vs_error_set(err, VS_EVALUE, "the shapes are incomplete");
    if (s->experts && !s->moe_intermediate)
        return vs_error_set(err, VS_EVALUE, "a mixture of experts without its experts' size");
    if (dense > s->layers)
        dense = s->layers;
    if (dense && !s->intermediate)
        return vs_error_set(err, VS_EVALUE, "the MLP's intermediate size is unknown");
    memset(&e, 0, sizeof e);
    /* one layer of each kind, then times their counts: layers are identical */
    for (l = 0; l < 2; l++) {
        vs_lora_est one;
        uint64_t n = l == 0 ? dense : s->layers - dense, t, b, i;
        if (!n)
            continue;
        memset(&one, 0, sizeof one);
        if ((rc = layer(&one, s, mask, rank, l == 1, err)))
            return rc;
        t = one.trainable;
        b = one.base_linear;
        if ((rc = vs_arith_mul(&t, n, "the adapter", err)) ||
            (rc = vs_arith_add(&e.trainable, t, "the adapter", err)) ||
            (rc = vs_arith_mul(&b, n, "the base", err)) ||
            (rc = vs_arith_add(&e.base_linear, b, "the base", err)))
            return rc;
        for (i = 0; i < VS_LORA_MODULES; i++)
            e.per_module[i] += one.per_module[i] * n;
        e.router += one.router * n;
        if (one.largest_linear > e.largest_linear)
            e.largest_linear = one.largest_linear;
    }
    *out = e;
    return 0;
}
