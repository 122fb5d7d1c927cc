/* gpt-oss: alternating sliding-window (128 tokens) and full attention with
 * learnt attention sinks, and a mixture of experts whose weights are fused
 * per layer ([experts, ...] tensors), as transformers' modeling_gpt_oss.py
 * stores them in bf16. The published checkpoints hold the expert weights as
 * MXFP4 blocks and scales (gate_up_proj_blocks, _scales): the same parameters,
 * packed (OpenAI, gpt-oss model card, 2025). */
#include "model/families/fam.h"

static const char *const K_TOPK[] = {"num_experts_per_tok", "experts_per_token", NULL};

static int oss_parse(vs_arch *a, const json_t *cfg, vs_error *err)
{
    int rc;
    if ((rc = vs_fam_llama_dims(a, cfg, 0, err)) ||
        (rc = vs_fam_dim1(cfg, "num_local_experts", 1, 0, &a->experts, a->rule, err)) ||
        (rc = vs_fam_dim(cfg, K_TOPK, 1, 0, &a->experts_per_token, a->rule, err)))
        return rc;
    if (a->experts_per_token > a->experts)
        return vs_error_set(
            err, VS_EFORMAT, "num_experts_per_tok %llu exceeds num_local_experts %llu",
            (unsigned long long)a->experts_per_token, (unsigned long long)a->experts);
    a->moe_intermediate = a->intermediate;
    return 0;
}

/* layer_types when given; else transformers' GptOssConfig default: even
 * layers sliding, odd layers full */
static int oss_kv(vs_arch *a, const json_t *cfg, vs_error *err)
{
    return vs_fam_kv_decoder(a, cfg, 2, err);
}

static int oss_tensors(const vs_arch *a, vs_tensor_rule_cb cb, void *ud)
{
    vs_fam_emit e;
    uint64_t h = a->hidden, q = a->heads * a->head_dim, kv = a->kv_heads * a->head_dim;
    uint64_t i = a->intermediate, E = a->experts, L = a->layers;
    vs_fam_emit_init(&e, cb, ud, "");
    vs_fam_llama_ends(&e, a);
    VS_L2(&e, "model.layers.{L}.self_attn.q_proj.weight", 0, L, q, h);
    VS_L1(&e, "model.layers.{L}.self_attn.q_proj.bias", 0, L, q);
    VS_L2(&e, "model.layers.{L}.self_attn.k_proj.weight", 0, L, kv, h);
    VS_L1(&e, "model.layers.{L}.self_attn.k_proj.bias", 0, L, kv);
    VS_L2(&e, "model.layers.{L}.self_attn.v_proj.weight", 0, L, kv, h);
    VS_L1(&e, "model.layers.{L}.self_attn.v_proj.bias", 0, L, kv);
    VS_L2(&e, "model.layers.{L}.self_attn.o_proj.weight", 0, L, h, q);
    VS_L1(&e, "model.layers.{L}.self_attn.o_proj.bias", 0, L, h);
    VS_L1(&e, "model.layers.{L}.self_attn.sinks", 0, L, a->heads);
    VS_L1(&e, "model.layers.{L}.input_layernorm.weight", 0, L, h);
    VS_L1(&e, "model.layers.{L}.post_attention_layernorm.weight", 0, L, h);
    VS_L2(&e, "model.layers.{L}.mlp.router.weight", 0, L, E, h);
    VS_L1(&e, "model.layers.{L}.mlp.router.bias", 0, L, E);
    vs_fam_rule(&e, "model.layers.{L}.mlp.experts.gate_up_proj", 0, L, 0, E, 3, E, h, 2 * i, 0);
    vs_fam_rule(&e, "model.layers.{L}.mlp.experts.gate_up_proj_bias", 0, L, 0, E, 2, E, 2 * i, 0,
                0);
    vs_fam_rule(&e, "model.layers.{L}.mlp.experts.down_proj", 0, L, 0, E, 3, E, i, h, 0);
    vs_fam_rule(&e, "model.layers.{L}.mlp.experts.down_proj_bias", 0, L, 0, E, 2, E, h, 0, 0);
    return e.rc;
}

static const char *const oss_types[] = {"gpt_oss", NULL};
static const char *const oss_archs[] = {"GptOssForCausalLM", NULL};
static const char *const oss_keys[] = {"num_hidden_layers",
                                       "hidden_size",
                                       "num_attention_heads",
                                       "num_key_value_heads",
                                       "head_dim",
                                       "intermediate_size",
                                       "vocab_size",
                                       "tie_word_embeddings",
                                       "num_local_experts",
                                       "num_experts_per_tok",
                                       "experts_per_token",
                                       "sliding_window",
                                       "layer_types",
                                       NULL};
const vs_family vs_family_gpt_oss = {"gpt_oss", oss_types, oss_archs,  oss_keys,
                                     oss_parse, oss_kv,    oss_tensors};
