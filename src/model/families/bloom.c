/* BLOOM: ALiBi (no position parameters), an embedding LayerNorm, fused
 * query_key_value with biases, tied embeddings, as transformers'
 * modeling_bloom.py stores them. */
#include "model/families/fam.h"

static const char *const K_LAYERS[] = {"n_layer", "num_hidden_layers", NULL};
static const char *const K_HEADS[] = {"n_head", "num_attention_heads", NULL};
static const char *const K_HIDDEN[] = {"hidden_size", "n_embed", NULL};

static int bloom_parse(vs_arch *a, const json_t *cfg, vs_error *err)
{
    int rc;
    if ((rc = vs_fam_dim(cfg, K_LAYERS, 1, 0, &a->layers, a->rule, err)) ||
        (rc = vs_fam_dim(cfg, K_HIDDEN, 1, 0, &a->hidden, a->rule, err)) ||
        (rc = vs_fam_dim(cfg, K_HEADS, 1, 0, &a->heads, a->rule, err)) ||
        (rc = vs_fam_dim1(cfg, "vocab_size", 1, 0, &a->vocab, a->rule, err)) ||
        (rc = vs_fam_bool(cfg, "tie_word_embeddings", 1, &a->tied_embeddings, err)))
        return rc;
    if (a->hidden % a->heads)
        return vs_error_set(err, VS_EFORMAT, "hidden_size %llu is not a multiple of n_head %llu",
                            (unsigned long long)a->hidden, (unsigned long long)a->heads);
    a->kv_heads = a->heads;
    a->head_dim = a->hidden / a->heads;
    a->intermediate = 4 * a->hidden;
    a->mlp_plain = 1; /* dense_h_to_4h, GELU, dense_4h_to_h */
    return 0;
}

static int bloom_kv(vs_arch *a, const json_t *cfg, vs_error *err)
{
    return vs_fam_kv_decoder(a, cfg, -1, err);
}

static int bloom_tensors(const vs_arch *a, vs_tensor_rule_cb cb, void *ud)
{
    vs_fam_emit e;
    uint64_t h = a->hidden, i = a->intermediate, L = a->layers;
    vs_fam_emit_init(&e, cb, ud, "transformer.");
    VS_T2(&e, "word_embeddings.weight", a->vocab, h);
    VS_T1(&e, "word_embeddings_layernorm.weight", h);
    VS_T1(&e, "word_embeddings_layernorm.bias", h);
    VS_L1(&e, "h.{L}.input_layernorm.weight", 0, L, h);
    VS_L1(&e, "h.{L}.input_layernorm.bias", 0, L, h);
    VS_L2(&e, "h.{L}.self_attention.query_key_value.weight", 0, L, 3 * h, h);
    VS_L1(&e, "h.{L}.self_attention.query_key_value.bias", 0, L, 3 * h);
    VS_L2(&e, "h.{L}.self_attention.dense.weight", 0, L, h, h);
    VS_L1(&e, "h.{L}.self_attention.dense.bias", 0, L, h);
    VS_L1(&e, "h.{L}.post_attention_layernorm.weight", 0, L, h);
    VS_L1(&e, "h.{L}.post_attention_layernorm.bias", 0, L, h);
    VS_L2(&e, "h.{L}.mlp.dense_h_to_4h.weight", 0, L, i, h);
    VS_L1(&e, "h.{L}.mlp.dense_h_to_4h.bias", 0, L, i);
    VS_L2(&e, "h.{L}.mlp.dense_4h_to_h.weight", 0, L, h, i);
    VS_L1(&e, "h.{L}.mlp.dense_4h_to_h.bias", 0, L, h);
    VS_T1(&e, "ln_f.weight", h);
    VS_T1(&e, "ln_f.bias", h);
    e.prefix = "";
    if (!a->tied_embeddings)
        VS_T2(&e, "lm_head.weight", a->vocab, h);
    return e.rc;
}

static const char *const bloom_types[] = {"bloom", NULL};
static const char *const bloom_archs[] = {"BloomForCausalLM", "BloomModel", NULL};
static const char *const bloom_keys[] = {
    "n_layer",    "num_hidden_layers",   "hidden_size", "n_embed", "n_head", "num_attention_heads",
    "vocab_size", "tie_word_embeddings", NULL};
const vs_family vs_family_bloom = {"bloom",     bloom_types, bloom_archs,  bloom_keys,
                                   bloom_parse, bloom_kv,    bloom_tensors};
