/* Qwen3-Next and the Qwen3.5 language models: gated delta nets on three of
 * every four layers, gated full attention on the fourth, and after each a Qwen
 * MoE with a shared expert (Qwen3-Next, Qwen3.5-MoE) or a dense MLP (Qwen3.5),
 * as transformers' modeling_qwen3_next.py and modeling_qwen3_5(_moe).py (and the
 * checkpoints' per-expert names) store them. Qwen3.5 splits the delta net's
 * input projection in four (in_proj_qkv, in_proj_z, in_proj_b, in_proj_a). The
 * checkpoints' mtp.* layers are not part of the model classes and are not
 * counted. */
#include "model/families/fam.h"

enum { SPLIT_PROJ = 1u << 0 }; /* Qwen3.5's four input projections */

static int gdn_parse(vs_arch *a, const json_t *cfg, int moe, unsigned flags, vs_error *err)
{
    uint64_t i;
    int rc, dense = 0;
    /* the llama-style dims; a MoE's dense intermediate_size only where a layer
     * is dense (Qwen3.5-MoE's config has none) */
    if ((rc = vs_fam_dim1(cfg, "num_hidden_layers", 1, 0, &a->layers, a->rule, err)) ||
        (rc = vs_fam_dim1(cfg, "hidden_size", 1, 0, &a->hidden, a->rule, err)) ||
        (rc = vs_fam_dim1(cfg, "num_attention_heads", 1, 0, &a->heads, a->rule, err)) ||
        (rc = vs_fam_dim1(cfg, "intermediate_size", !moe, 0, &a->intermediate, a->rule, err)) ||
        (rc = vs_fam_dim1(cfg, "vocab_size", 1, 0, &a->vocab, a->rule, err)) ||
        (rc = vs_fam_heads(a, cfg, "num_key_value_heads", err)) ||
        (rc = vs_fam_bool(cfg, "tie_word_embeddings", 0, &a->tied_embeddings, err)) ||
        (rc = vs_fam_dim1(cfg, "linear_num_key_heads", 1, 0, &a->ssm.key_heads, a->rule, err)) ||
        (rc = vs_fam_dim1(cfg, "linear_key_head_dim", 1, 0, &a->ssm.key_dim, a->rule, err)) ||
        (rc =
             vs_fam_dim1(cfg, "linear_num_value_heads", 1, 0, &a->ssm.value_heads, a->rule, err)) ||
        (rc = vs_fam_dim1(cfg, "linear_value_head_dim", 1, 0, &a->ssm.value_dim, a->rule, err)) ||
        (rc = vs_fam_dim1(cfg, "linear_conv_kernel_dim", 0, 4, &a->ssm.conv, a->rule, err)) ||
        (rc = vs_fam_hybrid_pattern(a, cfg, err)))
        return rc;
    a->flags = flags;
    a->ssm.state_bytes = vs_fam_state_gdn(&a->ssm);
    if (!moe) {
        for (i = 0; i < a->layers; i++)
            a->layer_dense[i] = 1;
        return 0;
    }
    if ((rc = vs_fam_dim1(cfg, "num_experts", 1, 0, &a->experts, a->rule, err)) ||
        (rc = vs_fam_dim1(cfg, "num_experts_per_tok", 1, 0, &a->experts_per_token, a->rule, err)) ||
        (rc =
             vs_fam_dim1(cfg, "moe_intermediate_size", 1, 0, &a->moe_intermediate, a->rule, err)) ||
        (rc = vs_fam_dim1(cfg, "shared_expert_intermediate_size", 1, 0, &a->shared_intermediate,
                          a->rule, err)))
        return rc;
    if (a->experts_per_token > a->experts)
        return vs_error_set(err, VS_EFORMAT, "num_experts_per_tok exceeds num_experts");
    if ((rc = vs_fam_sparse_layers(a, cfg, err)))
        return rc;
    for (i = 0; i < a->layers && !dense; i++)
        dense = a->layer_dense[i];
    if (!a->intermediate && dense)
        return vs_error_set(err, VS_EFORMAT,
                            "dense layers (mlp_only_layers, decoder_sparse_step) need "
                            "intermediate_size");
    a->shared_experts = 1;
    return 0;
}

static int next_parse(vs_arch *a, const json_t *cfg, vs_error *err)
{
    return gdn_parse(a, cfg, 1, 0, err);
}

static int q35_parse(vs_arch *a, const json_t *cfg, vs_error *err)
{
    return gdn_parse(a, cfg, 0, SPLIT_PROJ, err);
}

static int q35moe_parse(vs_arch *a, const json_t *cfg, vs_error *err)
{
    return gdn_parse(a, cfg, 1, SPLIT_PROJ, err);
}

static int next_kv(vs_arch *a, const json_t *cfg, vs_error *err)
{
    (void)cfg;
    return vs_fam_kv_hybrid(a, err);
}

static void gdn_layers(vs_fam_emit *e, const vs_arch *a, uint64_t l0, uint64_t n)
{
    const vs_arch_ssm *s = &a->ssm;
    uint64_t h = a->hidden, kd = s->key_heads * s->key_dim, vd = s->value_heads * s->value_dim;
    VS_L1(e, "model.layers.{L}.linear_attn.dt_bias", l0, n, s->value_heads);
    VS_L1(e, "model.layers.{L}.linear_attn.A_log", l0, n, s->value_heads);
    vs_fam_rule(e, "model.layers.{L}.linear_attn.conv1d.weight", l0, n, 0, 0, 3, 2 * kd + vd, 1,
                s->conv, 0);
    if (a->flags & SPLIT_PROJ) {
        VS_L2(e, "model.layers.{L}.linear_attn.in_proj_qkv.weight", l0, n, 2 * kd + vd, h);
        VS_L2(e, "model.layers.{L}.linear_attn.in_proj_z.weight", l0, n, vd, h);
        VS_L2(e, "model.layers.{L}.linear_attn.in_proj_b.weight", l0, n, s->value_heads, h);
        VS_L2(e, "model.layers.{L}.linear_attn.in_proj_a.weight", l0, n, s->value_heads, h);
    } else {
        VS_L2(e, "model.layers.{L}.linear_attn.in_proj_qkvz.weight", l0, n, 2 * kd + 2 * vd, h);
        VS_L2(e, "model.layers.{L}.linear_attn.in_proj_ba.weight", l0, n, 2 * s->value_heads, h);
    }
    VS_L1(e, "model.layers.{L}.linear_attn.norm.weight", l0, n, s->value_dim);
    VS_L2(e, "model.layers.{L}.linear_attn.out_proj.weight", l0, n, h, vd);
}

static void attn_layers(vs_fam_emit *e, const vs_arch *a, uint64_t l0, uint64_t n)
{
    uint64_t h = a->hidden, q = a->heads * a->head_dim, kv = a->kv_heads * a->head_dim;
    /* the query projection carries the output gate beside the queries */
    VS_L2(e, "model.layers.{L}.self_attn.q_proj.weight", l0, n, 2 * q, h);
    VS_L2(e, "model.layers.{L}.self_attn.k_proj.weight", l0, n, kv, h);
    VS_L2(e, "model.layers.{L}.self_attn.v_proj.weight", l0, n, kv, h);
    VS_L2(e, "model.layers.{L}.self_attn.o_proj.weight", l0, n, h, q);
    VS_L1(e, "model.layers.{L}.self_attn.q_norm.weight", l0, n, a->head_dim);
    VS_L1(e, "model.layers.{L}.self_attn.k_norm.weight", l0, n, a->head_dim);
}

static int next_tensors(const vs_arch *a, vs_tensor_rule_cb cb, void *ud)
{
    vs_fam_emit e;
    vs_fam_emit_init(&e, cb, ud, "");
    vs_fam_llama_ends(&e, a);
    VS_FAM_RUNS(a, layer_kind, VS_LAYER_STATE, gdn_layers(&e, a, l0, n));
    VS_FAM_RUNS(a, layer_kind, VS_LAYER_FULL, attn_layers(&e, a, l0, n));
    VS_L1(&e, "model.layers.{L}.input_layernorm.weight", 0, a->layers, a->hidden);
    VS_L1(&e, "model.layers.{L}.post_attention_layernorm.weight", 0, a->layers, a->hidden);
    VS_FAM_RUNS(a, layer_dense, 0, vs_fam_qwen_moe_mlp(&e, a, l0, n));
    VS_FAM_RUNS(a, layer_dense, 1,
                vs_fam_gated_mlp(&e, "model.layers.{L}.mlp.gate_proj.weight",
                                 "model.layers.{L}.mlp.up_proj.weight",
                                 "model.layers.{L}.mlp.down_proj.weight", l0, n, a->hidden,
                                 a->intermediate, 0));
    return e.rc;
}

static const char *const next_types[] = {"qwen3_next", NULL};
static const char *const next_archs[] = {"Qwen3NextForCausalLM", NULL};
static const char *const next_keys[] = {"num_hidden_layers",
                                        "hidden_size",
                                        "num_attention_heads",
                                        "num_key_value_heads",
                                        "head_dim",
                                        "intermediate_size",
                                        "vocab_size",
                                        "tie_word_embeddings",
                                        "num_experts",
                                        "num_experts_per_tok",
                                        "moe_intermediate_size",
                                        "shared_expert_intermediate_size",
                                        "decoder_sparse_step",
                                        "mlp_only_layers",
                                        "layer_types",
                                        "full_attention_interval",
                                        "linear_num_key_heads",
                                        "linear_key_head_dim",
                                        "linear_num_value_heads",
                                        "linear_value_head_dim",
                                        "linear_conv_kernel_dim",
                                        NULL};
const vs_family vs_family_qwen3_next = {"qwen3_next", next_types, next_archs,  next_keys,
                                        next_parse,   next_kv,    next_tensors};

static const char *const q35_types[] = {"qwen3_5_text", NULL};
static const char *const q35_archs[] = {"Qwen3_5ForCausalLM", NULL};
const vs_family vs_family_qwen3_5_text = {"qwen3_5_text", q35_types, q35_archs,   next_keys,
                                          q35_parse,      next_kv,   next_tensors};

static const char *const q35moe_types[] = {"qwen3_5_moe_text", NULL};
static const char *const q35moe_archs[] = {"Qwen3_5MoeForCausalLM", NULL};
const vs_family vs_family_qwen3_5_moe_text = {
    "qwen3_5_moe_text", q35moe_types, q35moe_archs, next_keys, q35moe_parse, next_kv, next_tensors};
