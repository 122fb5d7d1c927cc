/* GPT-NeoX (Pythia): fused query_key_value, LayerNorms with biases, untied
 * embed_out, as transformers' modeling_gpt_neox.py stores them. Rotary
 * embeddings have no parameters; the parallel residual changes the wiring,
 * not the tensors. */
#include "model/families/fam.h"

static int neox_parse(vs_arch *a, const json_t *cfg, vs_error *err)
{
    int bias = 1, rc;
    if ((rc = vs_fam_dim1(cfg, "num_hidden_layers", 1, 0, &a->layers, a->rule, err)) ||
        (rc = vs_fam_dim1(cfg, "hidden_size", 1, 0, &a->hidden, a->rule, err)) ||
        (rc = vs_fam_dim1(cfg, "num_attention_heads", 1, 0, &a->heads, a->rule, err)) ||
        (rc = vs_fam_dim1(cfg, "intermediate_size", 1, 0, &a->intermediate, a->rule, err)) ||
        (rc = vs_fam_dim1(cfg, "vocab_size", 1, 0, &a->vocab, a->rule, err)) ||
        (rc = vs_fam_bool(cfg, "tie_word_embeddings", 0, &a->tied_embeddings, err)) ||
        (rc = vs_fam_bool(cfg, "attention_bias", 1, &bias, err)))
        return rc;
    if (a->hidden % a->heads)
        return vs_error_set(err, VS_EFORMAT,
                            "hidden_size %llu is not a multiple of num_attention_heads %llu",
                            (unsigned long long)a->hidden, (unsigned long long)a->heads);
    a->kv_heads = a->heads;
    a->head_dim = a->hidden / a->heads;
    a->flags = bias;
    a->mlp_plain = 1; /* dense_h_to_4h, activation, dense_4h_to_h */
    return 0;
}

static int neox_kv(vs_arch *a, const json_t *cfg, vs_error *err)
{
    return vs_fam_kv_decoder(a, cfg, -1, err);
}

static int neox_tensors(const vs_arch *a, vs_tensor_rule_cb cb, void *ud)
{
    vs_fam_emit e;
    uint64_t h = a->hidden, i = a->intermediate, L = a->layers;
    vs_fam_emit_init(&e, cb, ud, "gpt_neox.");
    VS_T2(&e, "embed_in.weight", a->vocab, h);
    VS_L1(&e, "layers.{L}.input_layernorm.weight", 0, L, h);
    VS_L1(&e, "layers.{L}.input_layernorm.bias", 0, L, h);
    VS_L1(&e, "layers.{L}.post_attention_layernorm.weight", 0, L, h);
    VS_L1(&e, "layers.{L}.post_attention_layernorm.bias", 0, L, h);
    VS_L2(&e, "layers.{L}.attention.query_key_value.weight", 0, L, 3 * h, h);
    VS_L2(&e, "layers.{L}.attention.dense.weight", 0, L, h, h);
    if (a->flags) {
        VS_L1(&e, "layers.{L}.attention.query_key_value.bias", 0, L, 3 * h);
        VS_L1(&e, "layers.{L}.attention.dense.bias", 0, L, h);
    }
    VS_L2(&e, "layers.{L}.mlp.dense_h_to_4h.weight", 0, L, i, h);
    VS_L1(&e, "layers.{L}.mlp.dense_h_to_4h.bias", 0, L, i);
    VS_L2(&e, "layers.{L}.mlp.dense_4h_to_h.weight", 0, L, h, i);
    VS_L1(&e, "layers.{L}.mlp.dense_4h_to_h.bias", 0, L, h);
    VS_T1(&e, "final_layer_norm.weight", h);
    VS_T1(&e, "final_layer_norm.bias", h);
    e.prefix = "";
    if (!a->tied_embeddings)
        VS_T2(&e, "embed_out.weight", a->vocab, h);
    return e.rc;
}

static const char *const neox_types[] = {"gpt_neox", NULL};
static const char *const neox_archs[] = {"GPTNeoXForCausalLM", NULL};
static const char *const neox_keys[] = {"num_hidden_layers", "hidden_size", "num_attention_heads",
                                        "intermediate_size", "vocab_size",  "tie_word_embeddings",
                                        "attention_bias",    "layer_types", NULL};
const vs_family vs_family_gpt_neox = {"gpt_neox", neox_types, neox_archs,  neox_keys,
                                      neox_parse, neox_kv,    neox_tensors};
