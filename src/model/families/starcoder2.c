/* StarCoder2: LayerNorms with biases, biased q, k, v, o and a two-layer MLP
 * (c_fc, c_proj), tied embeddings, sliding-window attention where the config
 * sets one, as transformers' modeling_starcoder2.py stores them. */
#include "model/families/fam.h"

static int sc2_parse(vs_arch *a, const json_t *cfg, vs_error *err)
{
    int bias = 1, rc;
    if ((rc = vs_fam_llama_dims(a, cfg, 1, err)) ||
        (rc = vs_fam_bool(cfg, "use_bias", 1, &bias, err)))
        return rc;
    a->flags = (unsigned)bias;
    a->mlp_plain = 1; /* c_fc, activation, c_proj */
    return 0;
}

static int sc2_kv(vs_arch *a, const json_t *cfg, vs_error *err)
{
    return vs_fam_kv_decoder(a, cfg, 0, err);
}

static int sc2_tensors(const vs_arch *a, vs_tensor_rule_cb cb, void *ud)
{
    vs_fam_emit e;
    uint64_t h = a->hidden, q = a->heads * a->head_dim, kv = a->kv_heads * a->head_dim;
    uint64_t i = a->intermediate, L = a->layers;
    int b = a->flags & 1;
    vs_fam_emit_init(&e, cb, ud, "");
    vs_fam_llama_ends(&e, a);
    VS_T1(&e, "model.norm.bias", h);
    VS_L2(&e, "model.layers.{L}.self_attn.q_proj.weight", 0, L, q, h);
    VS_L2(&e, "model.layers.{L}.self_attn.k_proj.weight", 0, L, kv, h);
    VS_L2(&e, "model.layers.{L}.self_attn.v_proj.weight", 0, L, kv, h);
    VS_L2(&e, "model.layers.{L}.self_attn.o_proj.weight", 0, L, h, q);
    VS_L2(&e, "model.layers.{L}.mlp.c_fc.weight", 0, L, i, h);
    VS_L2(&e, "model.layers.{L}.mlp.c_proj.weight", 0, L, h, i);
    if (b) {
        VS_L1(&e, "model.layers.{L}.self_attn.q_proj.bias", 0, L, q);
        VS_L1(&e, "model.layers.{L}.self_attn.k_proj.bias", 0, L, kv);
        VS_L1(&e, "model.layers.{L}.self_attn.v_proj.bias", 0, L, kv);
        VS_L1(&e, "model.layers.{L}.self_attn.o_proj.bias", 0, L, h);
        VS_L1(&e, "model.layers.{L}.mlp.c_fc.bias", 0, L, i);
        VS_L1(&e, "model.layers.{L}.mlp.c_proj.bias", 0, L, h);
    }
    VS_L1(&e, "model.layers.{L}.input_layernorm.weight", 0, L, h);
    VS_L1(&e, "model.layers.{L}.input_layernorm.bias", 0, L, h);
    VS_L1(&e, "model.layers.{L}.post_attention_layernorm.weight", 0, L, h);
    VS_L1(&e, "model.layers.{L}.post_attention_layernorm.bias", 0, L, h);
    return e.rc;
}

static const char *const sc2_types[] = {"starcoder2", NULL};
static const char *const sc2_archs[] = {"Starcoder2ForCausalLM", NULL};
static const char *const sc2_keys[] = {
    "num_hidden_layers", "hidden_size",       "num_attention_heads", "num_key_value_heads",
    "head_dim",          "intermediate_size", "vocab_size",          "tie_word_embeddings",
    "use_bias",          "sliding_window",    "layer_types",         NULL};
const vs_family vs_family_starcoder2 = {"starcoder2", sc2_types, sc2_archs,  sc2_keys,
                                        sc2_parse,    sc2_kv,    sc2_tensors};
