/* Falcon (and its first remote-code "RefinedWeb" configs): a fused
 * query_key_value holding all query heads and one key and one value per KV
 * head, as transformers' modeling_falcon.py stores it. */
#include <string.h>

#include "model/families/fam.h"

enum { F_BIAS = 1, F_NEW = 2, F_SEQUENTIAL = 4, F_TWO_LN = 8 };

static const char *const K_LAYERS[] = {"num_hidden_layers", "n_layer", NULL};
static const char *const K_HEADS[] = {"num_attention_heads", "n_head", NULL};
static const char *const K_KV[] = {"num_kv_heads", "n_head_kv", NULL};

static int falcon_parse(vs_arch *a, const json_t *cfg, vs_error *err)
{
    int bias = 0, parallel = 1, mq = 1, new_arch = 0, rc;
    uint64_t nln = 0;
    if ((rc = vs_fam_dim(cfg, K_LAYERS, 1, 0, &a->layers, a->rule, err)) ||
        (rc = vs_fam_dim1(cfg, "hidden_size", 1, 0, &a->hidden, a->rule, err)) ||
        (rc = vs_fam_dim(cfg, K_HEADS, 1, 0, &a->heads, a->rule, err)) ||
        (rc = vs_fam_dim1(cfg, "vocab_size", 1, 0, &a->vocab, a->rule, err)) ||
        (rc = vs_fam_bool(cfg, "tie_word_embeddings", 1, &a->tied_embeddings, err)) ||
        (rc = vs_fam_bool(cfg, "bias", 0, &bias, err)) ||
        (rc = vs_fam_bool(cfg, "parallel_attn", 1, &parallel, err)) ||
        (rc = vs_fam_bool(cfg, "multi_query", 1, &mq, err)) ||
        /* the remote-code "RefinedWeb" type is the new decoder (Falcon-40B) */
        (rc = vs_fam_bool(cfg, "new_decoder_architecture", !strcmp(a->model_type, "RefinedWeb"),
                          &new_arch, err)))
        return rc;
    if (a->hidden % a->heads)
        return vs_error_set(err, VS_EFORMAT,
                            "hidden_size %llu is not a multiple of num_attention_heads %llu",
                            (unsigned long long)a->hidden, (unsigned long long)a->heads);
    a->head_dim = a->hidden / a->heads;
    if (new_arch) {
        if ((rc = vs_fam_dim(cfg, K_KV, 0, a->heads, &a->kv_heads, a->rule, err)))
            return rc;
        if (a->kv_heads > a->heads || a->heads % a->kv_heads)
            return vs_error_set(err, VS_EFORMAT,
                                "num_kv_heads %llu does not divide num_attention_heads %llu",
                                (unsigned long long)a->kv_heads, (unsigned long long)a->heads);
    } else {
        a->kv_heads = mq ? 1 : a->heads;
    }
    if ((rc = vs_fam_dim1(cfg, "ffn_hidden_size", 0, 4 * a->hidden, &a->intermediate, a->rule,
                          err)) ||
        (rc = vs_fam_dim1(cfg, "num_ln_in_parallel_attn", 0, new_arch ? 2 : 1, &nln, a->rule, err)))
        return rc;
    a->flags = (bias ? F_BIAS : 0) | (new_arch ? F_NEW : 0) | (!parallel ? F_SEQUENTIAL : 0) |
               (parallel && nln == 2 ? F_TWO_LN : 0);
    a->mlp_plain = 1; /* dense_h_to_4h, GELU, dense_4h_to_h */
    return 0;
}

static int falcon_kv(vs_arch *a, const json_t *cfg, vs_error *err)
{
    return vs_fam_kv_decoder(a, cfg, -1, err);
}

static int falcon_tensors(const vs_arch *a, vs_tensor_rule_cb cb, void *ud)
{
    vs_fam_emit e;
    uint64_t h = a->hidden, f = a->intermediate, L = a->layers;
    uint64_t qkv = (a->heads + 2 * a->kv_heads) * a->head_dim;
    vs_fam_emit_init(&e, cb, ud, "transformer.");
    VS_T2(&e, "word_embeddings.weight", a->vocab, h);
    VS_L2(&e, "h.{L}.self_attention.query_key_value.weight", 0, L, qkv, h);
    VS_L2(&e, "h.{L}.self_attention.dense.weight", 0, L, h, h);
    VS_L2(&e, "h.{L}.mlp.dense_h_to_4h.weight", 0, L, f, h);
    VS_L2(&e, "h.{L}.mlp.dense_4h_to_h.weight", 0, L, h, f);
    if (a->flags & F_BIAS) {
        VS_L1(&e, "h.{L}.self_attention.query_key_value.bias", 0, L, qkv);
        VS_L1(&e, "h.{L}.self_attention.dense.bias", 0, L, h);
        VS_L1(&e, "h.{L}.mlp.dense_h_to_4h.bias", 0, L, f);
        VS_L1(&e, "h.{L}.mlp.dense_4h_to_h.bias", 0, L, h);
    }
    if (a->flags & F_TWO_LN) {
        VS_L1(&e, "h.{L}.ln_attn.weight", 0, L, h);
        VS_L1(&e, "h.{L}.ln_attn.bias", 0, L, h);
        VS_L1(&e, "h.{L}.ln_mlp.weight", 0, L, h);
        VS_L1(&e, "h.{L}.ln_mlp.bias", 0, L, h);
    } else {
        VS_L1(&e, "h.{L}.input_layernorm.weight", 0, L, h);
        VS_L1(&e, "h.{L}.input_layernorm.bias", 0, L, h);
        if (a->flags & F_SEQUENTIAL) {
            VS_L1(&e, "h.{L}.post_attention_layernorm.weight", 0, L, h);
            VS_L1(&e, "h.{L}.post_attention_layernorm.bias", 0, L, h);
        }
    }
    VS_T1(&e, "ln_f.weight", h);
    VS_T1(&e, "ln_f.bias", h);
    e.prefix = "";
    if (!a->tied_embeddings)
        VS_T2(&e, "lm_head.weight", a->vocab, h);
    return e.rc;
}

static const char *const falcon_types[] = {"falcon", "RefinedWeb", "RefinedWebModel", NULL};
static const char *const falcon_archs[] = {"FalconForCausalLM", "RWForCausalLM", NULL};
static const char *const falcon_keys[] = {"num_hidden_layers",
                                          "n_layer",
                                          "hidden_size",
                                          "num_attention_heads",
                                          "n_head",
                                          "num_kv_heads",
                                          "n_head_kv",
                                          "vocab_size",
                                          "bias",
                                          "parallel_attn",
                                          "multi_query",
                                          "new_decoder_architecture",
                                          "ffn_hidden_size",
                                          "num_ln_in_parallel_attn",
                                          "tie_word_embeddings",
                                          NULL};
const vs_family vs_family_falcon = {"falcon",     falcon_types, falcon_archs,  falcon_keys,
                                    falcon_parse, falcon_kv,    falcon_tensors};
