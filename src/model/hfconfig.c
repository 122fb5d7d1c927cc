#include "model/hfconfig.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

/* A dimension above this is a corrupt file, not a model; products are still
 * checked for overflow below. */
#define DIM_MAX ((uint64_t)1 << 40)

enum family {
    F_LLAMA,
    F_MISTRAL,
    F_QWEN2,
    F_QWEN3,
    F_GEMMA,
    F_GEMMA2,
    F_GPT2,
    F_NEOX,
    F_FALCON,
    F_MIXTRAL,
    F_NONE
};

static const struct {
    const char *model_type;
    const char *architecture;
    enum family family;
} families[] = {
    {"llama", "LlamaForCausalLM", F_LLAMA},
    {"mistral", "MistralForCausalLM", F_MISTRAL},
    {"qwen2", "Qwen2ForCausalLM", F_QWEN2},
    {"qwen3", "Qwen3ForCausalLM", F_QWEN3},
    {"gemma", "GemmaForCausalLM", F_GEMMA},
    {"gemma2", "Gemma2ForCausalLM", F_GEMMA2},
    {"gpt2", "GPT2LMHeadModel", F_GPT2},
    {"gpt_neox", "GPTNeoXForCausalLM", F_NEOX},
    {"falcon", "FalconForCausalLM", F_FALCON},
    /* Falcon's first configs, written for its remote code */
    {"RefinedWeb", "RWForCausalLM", F_FALCON},
    {"RefinedWebModel", "RWForCausalLM", F_FALCON},
    {"mixtral", "MixtralForCausalLM", F_MIXTRAL},
};

static const char *family_names[] = {"llama",  "mistral", "qwen2",    "qwen3",  "gemma",
                                     "gemma2", "gpt2",    "gpt_neox", "falcon", "mixtral"};

const char *vs_hfconfig_families(void)
{
    return "llama, mistral, qwen2, qwen3, gemma, gemma2, gpt2, gpt_neox, falcon, mixtral";
}

/* Arithmetic that remembers an overflow instead of wrapping. */
typedef struct acc {
    int overflow;
} acc;

static uint64_t mul(acc *a, uint64_t x, uint64_t y)
{
    uint64_t r;
    if (__builtin_mul_overflow(x, y, &r)) {
        a->overflow = 1;
        return 0;
    }
    return r;
}

static uint64_t add(acc *a, uint64_t x, uint64_t y)
{
    uint64_t r;
    if (__builtin_add_overflow(x, y, &r)) {
        a->overflow = 1;
        return 0;
    }
    return r;
}

/* Stores a family's counts, or says the arithmetic overflowed (then the
 * dimensions are not a real model's). */
static int set_counts(vs_hfconfig *c, const acc *a, uint64_t total, uint64_t active,
                      vs_error *err)
{
    if (a->overflow)
        return vs_error_set(err, VS_EFORMAT,
                            "the parameter count overflows 64 bits; the "
                            "dimensions are not a real model's");
    c->params_total = total;
    c->params_active = active;
    return 0;
}

/* The first of keys present and not null; NULL when none. */
static json_t *lookup(const json_t *o, const char *const *keys, const char **found)
{
    size_t i;
    for (i = 0; keys[i]; i++) {
        json_t *v = json_object_get(o, keys[i]);
        if (v && !json_is_null(v)) {
            *found = keys[i];
            return v;
        }
    }
    *found = keys[0];
    return NULL;
}

/* Reads a positive integer from the first present key of keys. required = 0
 * stores dflt when none is present. */
static int get_dim(const json_t *o, const char *const *keys, int required, uint64_t dflt,
                   uint64_t *out, const char *rule, vs_error *err)
{
    const char *key;
    json_t *v = lookup(o, keys, &key);
    json_int_t n;
    if (!v) {
        if (required)
            return vs_error_set(err, VS_EFORMAT, "key '%s' is missing (the %s needs it)", key,
                                rule);
        *out = dflt;
        return 0;
    }
    if (!json_is_integer(v))
        return vs_error_set(err, VS_EFORMAT, "'%s' must be a positive integer", key);
    n = json_integer_value(v);
    if (n <= 0 || (uint64_t)n > DIM_MAX)
        return vs_error_set(err, VS_EFORMAT,
                            "'%s' must be a positive integer (at most 2^40), not %lld", key,
                            (long long)n);
    *out = (uint64_t)n;
    return 0;
}

static int get_bool(const json_t *o, const char *key, int dflt, int *out, vs_error *err)
{
    json_t *v = json_object_get(o, key);
    if (!v || json_is_null(v)) {
        *out = dflt;
        return 0;
    }
    if (!json_is_boolean(v))
        return vs_error_set(err, VS_EFORMAT, "'%s' must be true or false", key);
    *out = json_is_true(v);
    return 0;
}

static enum family find_family(const json_t *root, const char **shown, vs_error *err)
{
    json_t *mt = json_object_get(root, "model_type");
    json_t *archs = json_object_get(root, "architectures");
    size_t i;
    *shown = "(none)";
    if (json_is_string(mt)) {
        *shown = json_string_value(mt);
        for (i = 0; i < sizeof families / sizeof families[0]; i++)
            if (!strcmp(families[i].model_type, *shown))
                return families[i].family;
        return F_NONE;
    }
    if (mt && !json_is_null(mt)) {
        vs_error_set(err, VS_EFORMAT, "'model_type' must be a string");
        return F_NONE;
    }
    if (json_is_array(archs) && json_array_size(archs) > 0 &&
        json_is_string(json_array_get(archs, 0))) {
        *shown = json_string_value(json_array_get(archs, 0));
        for (i = 0; i < sizeof families / sizeof families[0]; i++)
            if (!strcmp(families[i].architecture, *shown))
                return families[i].family;
    }
    return F_NONE;
}

static const char *const K_LAYERS[] = {"num_hidden_layers", "n_layer", NULL};
static const char *const K_HEADS[] = {"num_attention_heads", "n_head", NULL};
static const char *const K_HIDDEN[] = {"hidden_size", NULL};
static const char *const K_KV[] = {"num_key_value_heads", NULL};
static const char *const K_HEAD_DIM[] = {"head_dim", NULL};
static const char *const K_INTER[] = {"intermediate_size", NULL};
static const char *const K_VOCAB[] = {"vocab_size", NULL};
static const char *const K_EXPERTS[] = {"num_local_experts", NULL};
static const char *const K_TOPK[] = {"num_experts_per_tok", NULL};
static const char *const K_GPT2_LAYERS[] = {"n_layer", NULL};
static const char *const K_GPT2_HEADS[] = {"n_head", NULL};
static const char *const K_GPT2_HIDDEN[] = {"n_embd", NULL};
static const char *const K_GPT2_POS[] = {"n_positions", NULL};
static const char *const K_GPT2_INNER[] = {"n_inner", NULL};
static const char *const K_FALCON_KV[] = {"num_kv_heads", "n_head_kv", NULL};
static const char *const K_FALCON_FFN[] = {"ffn_hidden_size", NULL};
static const char *const K_FALCON_NLN[] = {"num_ln_in_parallel_attn", NULL};

/* Decoder layers with RMSNorm and a gated MLP (gate, up, down): Llama and the
 * families that copy its layout. */
static int count_llama_like(vs_hfconfig *c, const json_t *o, enum family f, vs_error *err)
{
    acc a = {0};
    int tied = 0, attn_bias = 0, mlp_bias = 0, rc;
    uint64_t q_out, kv_out, attn, attn_b = 0, mlp, norms, layer, layer_active, router = 0;
    uint64_t embed, total, active;

    if ((rc = get_dim(o, K_LAYERS, 1, 0, &c->layers, c->rule, err)) ||
        (rc = get_dim(o, K_HIDDEN, 1, 0, &c->hidden, c->rule, err)) ||
        (rc = get_dim(o, K_HEADS, 1, 0, &c->heads, c->rule, err)) ||
        (rc = get_dim(o, K_KV, 0, c->heads, &c->kv_heads, c->rule, err)) ||
        (rc = get_dim(o, K_INTER, 1, 0, &c->intermediate, c->rule, err)) ||
        (rc = get_dim(o, K_VOCAB, 1, 0, &c->vocab, c->rule, err)))
        return rc;
    if (!json_object_get(o, "head_dim") || json_is_null(json_object_get(o, "head_dim"))) {
        if (c->hidden % c->heads)
            return vs_error_set(err, VS_EFORMAT,
                                "hidden_size %llu is not a multiple of "
                                "num_attention_heads %llu and no head_dim is given",
                                (unsigned long long)c->hidden, (unsigned long long)c->heads);
    }
    if ((rc = get_dim(o, K_HEAD_DIM, 0, c->hidden / c->heads, &c->head_dim, c->rule, err)))
        return rc;
    if (c->kv_heads > c->heads || c->heads % c->kv_heads)
        return vs_error_set(err, VS_EFORMAT,
                            "num_key_value_heads %llu does not divide "
                            "num_attention_heads %llu",
                            (unsigned long long)c->kv_heads, (unsigned long long)c->heads);
    if ((rc = get_bool(o, "tie_word_embeddings", f == F_GEMMA || f == F_GEMMA2, &tied, err)))
        return rc;
    if (f == F_LLAMA || f == F_QWEN3 || f == F_GEMMA || f == F_GEMMA2)
        if ((rc = get_bool(o, "attention_bias", 0, &attn_bias, err)))
            return rc;
    if (f == F_LLAMA)
        if ((rc = get_bool(o, "mlp_bias", 0, &mlp_bias, err)))
            return rc;
    if (f == F_MIXTRAL) {
        if ((rc = get_dim(o, K_EXPERTS, 1, 0, &c->experts, c->rule, err)) ||
            (rc = get_dim(o, K_TOPK, 1, 0, &c->experts_per_token, c->rule, err)))
            return rc;
        if (c->experts_per_token > c->experts)
            return vs_error_set(err, VS_EFORMAT,
                                "num_experts_per_tok %llu exceeds num_local_experts "
                                "%llu",
                                (unsigned long long)c->experts_per_token,
                                (unsigned long long)c->experts);
    }
    c->tied_embeddings = tied;

    q_out = mul(&a, c->heads, c->head_dim);
    kv_out = mul(&a, c->kv_heads, c->head_dim);
    /* q and o are hidden x heads*head_dim; k and v hidden x kv_heads*head_dim */
    attn = mul(&a, c->hidden, add(&a, mul(&a, 2, q_out), mul(&a, 2, kv_out)));
    if (f == F_QWEN2) /* Qwen2 keeps biases on q, k and v, not on o */
        attn_b = add(&a, q_out, mul(&a, 2, kv_out));
    else if (attn_bias)
        attn_b = add(&a, add(&a, q_out, mul(&a, 2, kv_out)), c->hidden);
    attn = add(&a, attn, attn_b);
    if (f == F_QWEN3) /* RMSNorm on each query and key head */
        attn = add(&a, attn, mul(&a, 2, c->head_dim));
    mlp = mul(&a, 3, mul(&a, c->hidden, c->intermediate));
    if (mlp_bias)
        mlp = add(&a, mlp, add(&a, mul(&a, 2, c->intermediate), c->hidden));
    norms = mul(&a, f == F_GEMMA2 ? 4 : 2, c->hidden);
    if (f == F_MIXTRAL) {
        router = mul(&a, c->hidden, c->experts);
        layer = add(&a, add(&a, attn, norms), add(&a, router, mul(&a, c->experts, mlp)));
        layer_active =
            add(&a, add(&a, attn, norms), add(&a, router, mul(&a, c->experts_per_token, mlp)));
    } else {
        layer = layer_active = add(&a, add(&a, attn, norms), mlp);
    }
    embed = mul(&a, c->vocab, c->hidden);
    if (!tied)
        embed = mul(&a, embed, 2);
    embed = add(&a, embed, c->hidden); /* the final norm */
    total = add(&a, mul(&a, c->layers, layer), embed);
    active = add(&a, mul(&a, c->layers, layer_active), embed);
    return set_counts(c, &a, total, active, err);
}

static int count_gpt2(vs_hfconfig *c, const json_t *o, vs_error *err)
{
    acc a = {0};
    int tied = 1, rc;
    uint64_t h, layer, total;
    if ((rc = get_dim(o, K_GPT2_LAYERS, 1, 0, &c->layers, c->rule, err)) ||
        (rc = get_dim(o, K_GPT2_HIDDEN, 1, 0, &c->hidden, c->rule, err)) ||
        (rc = get_dim(o, K_GPT2_HEADS, 1, 0, &c->heads, c->rule, err)) ||
        (rc = get_dim(o, K_GPT2_POS, 1, 0, &c->positions, c->rule, err)) ||
        (rc = get_dim(o, K_VOCAB, 1, 0, &c->vocab, c->rule, err)))
        return rc;
    if (c->hidden % c->heads)
        return vs_error_set(err, VS_EFORMAT, "n_embd %llu is not a multiple of n_head %llu",
                            (unsigned long long)c->hidden, (unsigned long long)c->heads);
    if ((rc = get_dim(o, K_GPT2_INNER, 0, 4 * c->hidden, &c->intermediate, c->rule, err)) ||
        (rc = get_bool(o, "tie_word_embeddings", 1, &tied, err)))
        return rc;
    c->kv_heads = c->heads;
    c->head_dim = c->hidden / c->heads;
    c->tied_embeddings = tied;
    h = c->hidden;
    /* two LayerNorms (weight and bias), fused qkv and projection, two-layer MLP,
     * every Conv1D with a bias */
    layer = add(&a, mul(&a, 4, h), mul(&a, mul(&a, 3, h), add(&a, h, 1)));
    layer = add(&a, layer, mul(&a, h, add(&a, h, 1)));
    layer = add(&a, layer, mul(&a, c->intermediate, add(&a, h, 1)));
    layer = add(&a, layer, mul(&a, h, add(&a, c->intermediate, 1)));
    total = mul(&a, c->layers, layer);
    total = add(&a, total, mul(&a, add(&a, c->vocab, c->positions), h));
    if (!tied)
        total = add(&a, total, mul(&a, c->vocab, h));
    total = add(&a, total, mul(&a, 2, h)); /* ln_f */
    return set_counts(c, &a, total, total, err);
}

static int count_neox(vs_hfconfig *c, const json_t *o, vs_error *err)
{
    acc a = {0};
    int tied = 0, bias = 1, rc;
    uint64_t h, layer, total;
    if ((rc = get_dim(o, K_LAYERS, 1, 0, &c->layers, c->rule, err)) ||
        (rc = get_dim(o, K_HIDDEN, 1, 0, &c->hidden, c->rule, err)) ||
        (rc = get_dim(o, K_HEADS, 1, 0, &c->heads, c->rule, err)) ||
        (rc = get_dim(o, K_INTER, 1, 0, &c->intermediate, c->rule, err)) ||
        (rc = get_dim(o, K_VOCAB, 1, 0, &c->vocab, c->rule, err)) ||
        (rc = get_bool(o, "tie_word_embeddings", 0, &tied, err)) ||
        (rc = get_bool(o, "attention_bias", 1, &bias, err)))
        return rc;
    if (c->hidden % c->heads)
        return vs_error_set(err, VS_EFORMAT,
                            "hidden_size %llu is not a multiple of "
                            "num_attention_heads %llu",
                            (unsigned long long)c->hidden, (unsigned long long)c->heads);
    c->kv_heads = c->heads;
    c->head_dim = c->hidden / c->heads;
    c->tied_embeddings = tied;
    h = c->hidden;
    /* rotary embeddings have no parameters; the parallel residual changes the
     * wiring, not the tensors */
    layer = add(&a, mul(&a, 4, h), mul(&a, 4, mul(&a, h, h)));
    if (bias)
        layer = add(&a, layer, mul(&a, 4, h));
    layer = add(&a, layer,
                add(&a, mul(&a, 2, mul(&a, h, c->intermediate)), add(&a, c->intermediate, h)));
    total = add(&a, mul(&a, c->layers, layer), mul(&a, 2, h));
    total = add(&a, total, mul(&a, mul(&a, tied ? 1 : 2, c->vocab), h));
    return set_counts(c, &a, total, total, err);
}

static int count_falcon(vs_hfconfig *c, const json_t *o, vs_error *err)
{
    acc a = {0};
    int tied = 1, bias = 0, parallel = 1, multi_query = 1, new_arch = 0, rc;
    uint64_t h, qkv, layer, total, nln = 0, ln_count;
    const char *mt = c->model_type;
    if ((rc = get_dim(o, K_LAYERS, 1, 0, &c->layers, c->rule, err)) ||
        (rc = get_dim(o, K_HIDDEN, 1, 0, &c->hidden, c->rule, err)) ||
        (rc = get_dim(o, K_HEADS, 1, 0, &c->heads, c->rule, err)) ||
        (rc = get_dim(o, K_VOCAB, 1, 0, &c->vocab, c->rule, err)) ||
        (rc = get_bool(o, "tie_word_embeddings", 1, &tied, err)) ||
        (rc = get_bool(o, "bias", 0, &bias, err)) ||
        (rc = get_bool(o, "parallel_attn", 1, &parallel, err)) ||
        (rc = get_bool(o, "multi_query", 1, &multi_query, err)) ||
        /* the remote-code "RefinedWeb" type is the new decoder (Falcon-40B) */
        (rc = get_bool(o, "new_decoder_architecture", !strcmp(mt, "RefinedWeb"), &new_arch, err)))
        return rc;
    if (c->hidden % c->heads)
        return vs_error_set(err, VS_EFORMAT,
                            "hidden_size %llu is not a multiple of "
                            "num_attention_heads %llu",
                            (unsigned long long)c->hidden, (unsigned long long)c->heads);
    c->head_dim = c->hidden / c->heads;
    h = c->hidden;
    if (new_arch) {
        if ((rc = get_dim(o, K_FALCON_KV, 0, c->heads, &c->kv_heads, c->rule, err)))
            return rc;
        if (c->kv_heads > c->heads || c->heads % c->kv_heads)
            return vs_error_set(err, VS_EFORMAT,
                                "num_kv_heads %llu does not divide "
                                "num_attention_heads %llu",
                                (unsigned long long)c->kv_heads, (unsigned long long)c->heads);
    } else {
        c->kv_heads = multi_query ? 1 : c->heads;
    }
    if ((rc = get_dim(o, K_FALCON_FFN, 0, mul(&a, 4, h), &c->intermediate, c->rule, err)) ||
        (rc = get_dim(o, K_FALCON_NLN, 0, new_arch ? 2 : 1, &nln, c->rule, err)))
        return rc;
    c->tied_embeddings = tied;
    /* fused query_key_value: all query heads plus one key and one value per KV head */
    qkv = mul(&a, add(&a, c->heads, mul(&a, 2, c->kv_heads)), c->head_dim);
    layer = add(&a, mul(&a, h, qkv), mul(&a, h, h));
    layer = add(&a, layer, mul(&a, 2, mul(&a, h, c->intermediate)));
    if (bias)
        layer = add(&a, layer, add(&a, add(&a, qkv, h), add(&a, c->intermediate, h)));
    /* a sequential block has two LayerNorms; a parallel one has one, or one for
     * attention and one for the MLP */
    ln_count = !parallel ? 2 : (nln == 2 ? 2 : 1);
    layer = add(&a, layer, mul(&a, ln_count, mul(&a, 2, h)));
    total = add(&a, mul(&a, c->layers, layer), mul(&a, 2, h));
    total = add(&a, total, mul(&a, mul(&a, tied ? 1 : 2, c->vocab), h));
    return set_counts(c, &a, total, total, err);
}

int vs_hfconfig_parse(vs_hfconfig *out, const char *text, size_t len, vs_error *err)
{
    json_error_t jerr;
    json_t *root = NULL;
    vs_hfconfig c;
    enum family f;
    const char *shown;
    json_t *mt;
    int rc = 0;

    memset(&c, 0, sizeof c);
    root = json_loadb(text, len, 0, &jerr);
    if (!root) {
        /* the position goes in the text: a vs_error's own line and column
         * belong to the cell that named the file */
        rc = vs_error_set(err, VS_EFORMAT, "not JSON (line %d, column %d of the file: %s)",
                          jerr.line, jerr.column, jerr.text);
        goto done;
    }
    if (!json_is_object(root)) {
        rc = vs_error_set(err, VS_EFORMAT, "expected a JSON object");
        goto done;
    }
    vs_error_clear(err);
    f = find_family(root, &shown, err);
    if (err && err->code) {
        rc = err->code;
        goto done;
    }
    if (f == F_NONE) {
        rc = vs_error_set(err, VS_EVALUE,
                          "no parameter rule for architecture '%s' (rules exist "
                          "for: %s); give the count yourself with params=",
                          shown, vs_hfconfig_families());
        goto done;
    }
    mt = json_object_get(root, "model_type");
    snprintf(c.model_type, sizeof c.model_type, "%s",
             json_is_string(mt) ? json_string_value(mt) : "");
    snprintf(c.family, sizeof c.family, "%s", family_names[f]);
    snprintf(c.rule, sizeof c.rule, "%s rule", family_names[f]);
    switch (f) {
    case F_GPT2:
        rc = count_gpt2(&c, root, err);
        break;
    case F_NEOX:
        rc = count_neox(&c, root, err);
        break;
    case F_FALCON:
        rc = count_falcon(&c, root, err);
        break;
    default:
        rc = count_llama_like(&c, root, f, err);
        break;
    }
    if (rc == 0)
        *out = c;
done:
    json_decref(root);
    return rc;
}
