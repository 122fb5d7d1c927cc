/* Granite 4.0 hybrids (GraniteMoeHybrid): Mamba-2 or attention as each
 * layer's mixer (layer_types), then a mixture of experts with a shared MLP on
 * every layer, as transformers' modeling_granitemoehybrid.py builds them and
 * the checkpoint names them (experts fused in input_linear / output_linear,
 * GraniteMoE's layout). Attention layers use no position embedding ("nope"). */
#include "model/families/fam.h"

static int gh_parse(vs_arch *a, const json_t *cfg, vs_error *err)
{
    const char *r = a->rule;
    uint64_t expand = 2, i;
    int conv_bias = 1, proj_bias = 0, attn_bias = 0, rc;
    if ((rc = vs_fam_llama_dims(a, cfg, 1, err)) ||
        (rc = vs_fam_uint0(cfg, "num_local_experts", 0, &a->experts, err)) ||
        (rc = vs_fam_dim1(cfg, "num_experts_per_tok", 0, 1, &a->experts_per_token, r, err)) ||
        (rc = vs_fam_uint0(cfg, "shared_intermediate_size", 0, &a->shared_intermediate, err)) ||
        (rc = vs_fam_dim1(cfg, "mamba_n_heads", 1, 0, &a->ssm.heads, r, err)) ||
        (rc = vs_fam_dim1(cfg, "mamba_d_state", 1, 0, &a->ssm.state, r, err)) ||
        (rc = vs_fam_dim1(cfg, "mamba_n_groups", 0, 1, &a->ssm.groups, r, err)) ||
        (rc = vs_fam_dim1(cfg, "mamba_d_conv", 0, 4, &a->ssm.conv, r, err)) ||
        (rc = vs_fam_dim1(cfg, "mamba_expand", 0, 2, &expand, r, err)) ||
        (rc = vs_fam_bool(cfg, "mamba_conv_bias", 1, &conv_bias, err)) ||
        (rc = vs_fam_bool(cfg, "mamba_proj_bias", 0, &proj_bias, err)) ||
        (rc = vs_fam_bool(cfg, "attention_bias", 0, &attn_bias, err)) ||
        (rc = vs_fam_hybrid_pattern(a, cfg, err)))
        return rc;
    a->ssm.inner = expand * a->hidden;
    /* mamba_d_head: given, else inner / heads (configuration_granitemoehybrid.py) */
    if ((rc = vs_fam_dim1(cfg, "mamba_d_head", 0, a->ssm.inner / a->ssm.heads, &a->ssm.head_dim, r,
                          err)))
        return rc;
    if (a->ssm.heads * a->ssm.head_dim != a->ssm.inner)
        return vs_error_set(err, VS_EFORMAT,
                            "mamba_n_heads x mamba_d_head is not mamba_expand x hidden_size");
    if (a->experts_per_token > a->experts && a->experts)
        return vs_error_set(err, VS_EFORMAT, "num_experts_per_tok exceeds num_local_experts");
    for (i = 0; i < a->layers; i++)
        a->layer_dense[i] = a->experts == 0;
    a->moe_intermediate = a->intermediate;
    a->ssm.state_bytes = vs_fam_state_mamba2(&a->ssm);
    a->flags = (unsigned)(conv_bias | proj_bias << 1 | attn_bias << 2);
    return 0;
}

static int gh_kv(vs_arch *a, const json_t *cfg, vs_error *err)
{
    (void)cfg;
    return vs_fam_kv_hybrid(a, err);
}

static void mamba(vs_fam_emit *e, const vs_arch *a, uint64_t l0, uint64_t n)
{
    const vs_arch_ssm *s = &a->ssm;
    uint64_t h = a->hidden, conv = s->inner + 2 * s->groups * s->state;
    uint64_t in = s->inner + conv + s->heads;
    VS_L1(e, "model.layers.{L}.mamba.dt_bias", l0, n, s->heads);
    VS_L1(e, "model.layers.{L}.mamba.A_log", l0, n, s->heads);
    VS_L1(e, "model.layers.{L}.mamba.D", l0, n, s->heads);
    vs_fam_rule(e, "model.layers.{L}.mamba.conv1d.weight", l0, n, 0, 0, 3, conv, 1, s->conv, 0);
    if (a->flags & 1)
        VS_L1(e, "model.layers.{L}.mamba.conv1d.bias", l0, n, conv);
    VS_L2(e, "model.layers.{L}.mamba.in_proj.weight", l0, n, in, h);
    if (a->flags & 2)
        VS_L1(e, "model.layers.{L}.mamba.in_proj.bias", l0, n, in);
    VS_L1(e, "model.layers.{L}.mamba.norm.weight", l0, n, s->inner);
    VS_L2(e, "model.layers.{L}.mamba.out_proj.weight", l0, n, h, s->inner);
    if (a->flags & 2)
        VS_L1(e, "model.layers.{L}.mamba.out_proj.bias", l0, n, h);
}

static void attn(vs_fam_emit *e, const vs_arch *a, uint64_t l0, uint64_t n)
{
    uint64_t h = a->hidden, q = a->heads * a->head_dim, kv = a->kv_heads * a->head_dim;
    VS_L2(e, "model.layers.{L}.self_attn.q_proj.weight", l0, n, q, h);
    VS_L2(e, "model.layers.{L}.self_attn.k_proj.weight", l0, n, kv, h);
    VS_L2(e, "model.layers.{L}.self_attn.v_proj.weight", l0, n, kv, h);
    VS_L2(e, "model.layers.{L}.self_attn.o_proj.weight", l0, n, h, q);
    if (a->flags & 4) {
        VS_L1(e, "model.layers.{L}.self_attn.q_proj.bias", l0, n, q);
        VS_L1(e, "model.layers.{L}.self_attn.k_proj.bias", l0, n, kv);
        VS_L1(e, "model.layers.{L}.self_attn.v_proj.bias", l0, n, kv);
        VS_L1(e, "model.layers.{L}.self_attn.o_proj.bias", l0, n, h);
    }
}

static int gh_tensors(const vs_arch *a, vs_tensor_rule_cb cb, void *ud)
{
    vs_fam_emit e;
    uint64_t h = a->hidden, i = a->intermediate, E = a->experts, L = a->layers;
    vs_fam_emit_init(&e, cb, ud, "");
    vs_fam_llama_ends(&e, a);
    VS_L1(&e, "model.layers.{L}.input_layernorm.weight", 0, L, h);
    VS_L1(&e, "model.layers.{L}.post_attention_layernorm.weight", 0, L, h);
    VS_FAM_RUNS(a, layer_kind, VS_LAYER_STATE, mamba(&e, a, l0, n));
    VS_FAM_RUNS(a, layer_kind, VS_LAYER_FULL, attn(&e, a, l0, n));
    if (E) {
        VS_L2(&e, "model.layers.{L}.block_sparse_moe.router.layer.weight", 0, L, E, h);
        vs_fam_rule(&e, "model.layers.{L}.block_sparse_moe.input_linear.weight", 0, L, 0, E, 3, E,
                    2 * i, h, 0);
        vs_fam_rule(&e, "model.layers.{L}.block_sparse_moe.output_linear.weight", 0, L, 0, E, 3, E,
                    h, i, 0);
    }
    if (a->shared_intermediate) {
        VS_L2(&e, "model.layers.{L}.shared_mlp.input_linear.weight", 0, L,
              2 * a->shared_intermediate, h);
        VS_L2(&e, "model.layers.{L}.shared_mlp.output_linear.weight", 0, L, h,
              a->shared_intermediate);
    }
    return e.rc;
}

static const char *const gh_types[] = {"granitemoehybrid", NULL};
static const char *const gh_archs[] = {"GraniteMoeHybridForCausalLM", NULL};
static const char *const gh_keys[] = {"num_hidden_layers",
                                      "hidden_size",
                                      "num_attention_heads",
                                      "num_key_value_heads",
                                      "intermediate_size",
                                      "vocab_size",
                                      "tie_word_embeddings",
                                      "layer_types",
                                      "num_local_experts",
                                      "num_experts_per_tok",
                                      "shared_intermediate_size",
                                      "mamba_n_heads",
                                      "mamba_d_head",
                                      "mamba_d_state",
                                      "mamba_n_groups",
                                      "mamba_d_conv",
                                      "mamba_expand",
                                      "mamba_conv_bias",
                                      "mamba_proj_bias",
                                      "attention_bias",
                                      NULL};
const vs_family vs_family_granitemoehybrid = {"granitemoehybrid", gh_types, gh_archs,  gh_keys,
                                              gh_parse,           gh_kv,    gh_tensors};
