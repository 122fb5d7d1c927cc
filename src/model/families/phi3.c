/* Phi-3: fused qkv_proj and gate_up_proj, as transformers' modeling_phi3.py
 * stores them; untied embeddings. */
#include "model/families/fam.h"

static int phi3_parse(vs_arch *a, const json_t *cfg, vs_error *err)
{
    return vs_fam_llama_dims(a, cfg, 0, err);
}

/* every layer slides over sliding_window tokens where the config sets one */
static int phi3_kv(vs_arch *a, const json_t *cfg, vs_error *err)
{
    return vs_fam_kv_decoder(a, cfg, 0, err);
}

static int phi3_tensors(const vs_arch *a, vs_tensor_rule_cb cb, void *ud)
{
    vs_fam_emit e;
    uint64_t h = a->hidden, q = a->heads * a->head_dim, kv = a->kv_heads * a->head_dim;
    uint64_t i = a->intermediate, L = a->layers;
    vs_fam_emit_init(&e, cb, ud, "");
    vs_fam_llama_ends(&e, a);
    VS_L2(&e, "model.layers.{L}.self_attn.qkv_proj.weight", 0, L, q + 2 * kv, h);
    VS_L2(&e, "model.layers.{L}.self_attn.o_proj.weight", 0, L, h, q);
    VS_L2(&e, "model.layers.{L}.mlp.gate_up_proj.weight", 0, L, 2 * i, h);
    VS_L2(&e, "model.layers.{L}.mlp.down_proj.weight", 0, L, h, i);
    VS_L1(&e, "model.layers.{L}.input_layernorm.weight", 0, L, h);
    VS_L1(&e, "model.layers.{L}.post_attention_layernorm.weight", 0, L, h);
    return e.rc;
}

static const char *const phi3_types[] = {"phi3", NULL};
static const char *const phi3_archs[] = {"Phi3ForCausalLM", NULL};
static const char *const phi3_keys[] = {"num_hidden_layers",
                                        "hidden_size",
                                        "num_attention_heads",
                                        "num_key_value_heads",
                                        "head_dim",
                                        "intermediate_size",
                                        "vocab_size",
                                        "tie_word_embeddings",
                                        "sliding_window",
                                        "layer_types",
                                        NULL};
const vs_family vs_family_phi3 = {"phi3",     phi3_types, phi3_archs,  phi3_keys,
                                  phi3_parse, phi3_kv,    phi3_tensors};
