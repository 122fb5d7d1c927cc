/* Jamba (AI21): Mamba-1 mixers with one attention layer in every
 * attn_layer_period, and a mixture of experts on every expert_layer_period-th
 * layer, as transformers' modeling_jamba.py and the checkpoint (one tensor per
 * expert) name them. */
#include "model/families/fam.h"

static int jamba_parse(vs_arch *a, const json_t *cfg, vs_error *err)
{
    const json_t *dt = json_object_get(cfg, "mamba_dt_rank");
    uint64_t expand = 2, period = 2, offset = 1, i;
    int conv_bias = 1, proj_bias = 0, rc;
    const char *r = a->rule;
    if ((rc = vs_fam_llama_dims(a, cfg, 0, err)) ||
        (rc = vs_fam_dim1(cfg, "num_experts", 0, 16, &a->experts, r, err)) ||
        (rc = vs_fam_dim1(cfg, "num_experts_per_tok", 0, 2, &a->experts_per_token, r, err)) ||
        (rc = vs_fam_dim1(cfg, "expert_layer_period", 0, 2, &period, r, err)) ||
        (rc = vs_fam_uint0(cfg, "expert_layer_offset", 1, &offset, err)) ||
        (rc = vs_fam_dim1(cfg, "mamba_d_state", 0, 16, &a->ssm.state, r, err)) ||
        (rc = vs_fam_dim1(cfg, "mamba_d_conv", 0, 4, &a->ssm.conv, r, err)) ||
        (rc = vs_fam_dim1(cfg, "mamba_expand", 0, 2, &expand, r, err)) ||
        (rc = vs_fam_bool(cfg, "mamba_conv_bias", 1, &conv_bias, err)) ||
        (rc = vs_fam_bool(cfg, "mamba_proj_bias", 0, &proj_bias, err)) ||
        (rc = vs_fam_hybrid_pattern(a, cfg, err)))
        return rc;
    a->ssm.inner = expand * a->hidden;
    /* "auto" (the default): ceil(hidden / 16), configuration_jamba.py */
    if (json_is_integer(dt)) {
        if ((rc = vs_fam_dim1(cfg, "mamba_dt_rank", 1, 0, &a->ssm.dt_rank, r, err)))
            return rc;
    } else {
        a->ssm.dt_rank = (a->hidden + 15) / 16;
    }
    if (a->experts_per_token > a->experts)
        return vs_error_set(err, VS_EFORMAT, "num_experts_per_tok exceeds num_experts");
    for (i = 0; i < a->layers; i++)
        a->layer_dense[i] = a->experts <= 1 || i % period != offset;
    a->moe_intermediate = a->intermediate;
    a->ssm.state_bytes = vs_fam_state_mamba1(&a->ssm);
    a->flags = (unsigned)(conv_bias | proj_bias << 1);
    return 0;
}

static int jamba_kv(vs_arch *a, const json_t *cfg, vs_error *err)
{
    (void)cfg;
    return vs_fam_kv_hybrid(a, err);
}

static void mamba(vs_fam_emit *e, const vs_arch *a, uint64_t l0, uint64_t n)
{
    const vs_arch_ssm *s = &a->ssm;
    uint64_t h = a->hidden, in = s->inner;
    VS_L2(e, "model.layers.{L}.mamba.A_log", l0, n, in, s->state);
    VS_L1(e, "model.layers.{L}.mamba.D", l0, n, in);
    vs_fam_rule(e, "model.layers.{L}.mamba.conv1d.weight", l0, n, 0, 0, 3, in, 1, s->conv, 0);
    if (a->flags & 1)
        VS_L1(e, "model.layers.{L}.mamba.conv1d.bias", l0, n, in);
    VS_L2(e, "model.layers.{L}.mamba.in_proj.weight", l0, n, 2 * in, h);
    if (a->flags & 2)
        VS_L1(e, "model.layers.{L}.mamba.in_proj.bias", l0, n, 2 * in);
    VS_L2(e, "model.layers.{L}.mamba.x_proj.weight", l0, n, s->dt_rank + 2 * s->state, in);
    VS_L2(e, "model.layers.{L}.mamba.dt_proj.weight", l0, n, in, s->dt_rank);
    VS_L1(e, "model.layers.{L}.mamba.dt_proj.bias", l0, n, in);
    VS_L2(e, "model.layers.{L}.mamba.out_proj.weight", l0, n, h, in);
    if (a->flags & 2)
        VS_L1(e, "model.layers.{L}.mamba.out_proj.bias", l0, n, h);
    VS_L1(e, "model.layers.{L}.mamba.dt_layernorm.weight", l0, n, s->dt_rank);
    VS_L1(e, "model.layers.{L}.mamba.b_layernorm.weight", l0, n, s->state);
    VS_L1(e, "model.layers.{L}.mamba.c_layernorm.weight", l0, n, s->state);
}

static void attn(vs_fam_emit *e, const vs_arch *a, uint64_t l0, uint64_t n)
{
    uint64_t h = a->hidden, q = a->heads * a->head_dim, kv = a->kv_heads * a->head_dim;
    VS_L2(e, "model.layers.{L}.self_attn.q_proj.weight", l0, n, q, h);
    VS_L2(e, "model.layers.{L}.self_attn.k_proj.weight", l0, n, kv, h);
    VS_L2(e, "model.layers.{L}.self_attn.v_proj.weight", l0, n, kv, h);
    VS_L2(e, "model.layers.{L}.self_attn.o_proj.weight", l0, n, h, q);
}

static void experts(vs_fam_emit *e, const vs_arch *a, uint64_t l0, uint64_t n)
{
    uint64_t h = a->hidden, i = a->intermediate, E = a->experts;
    VS_L2(e, "model.layers.{L}.feed_forward.router.weight", l0, n, E, h);
    vs_fam_rule(e, "model.layers.{L}.feed_forward.experts.{E}.gate_proj.weight", l0, n, E, E, 2, i,
                h, 0, 0);
    vs_fam_rule(e, "model.layers.{L}.feed_forward.experts.{E}.up_proj.weight", l0, n, E, E, 2, i, h,
                0, 0);
    vs_fam_rule(e, "model.layers.{L}.feed_forward.experts.{E}.down_proj.weight", l0, n, E, E, 2, h,
                i, 0, 0);
}

static int jamba_tensors(const vs_arch *a, vs_tensor_rule_cb cb, void *ud)
{
    vs_fam_emit e;
    vs_fam_emit_init(&e, cb, ud, "");
    VS_T2(&e, "model.embed_tokens.weight", a->vocab, a->hidden);
    VS_T1(&e, "model.final_layernorm.weight", a->hidden);
    if (!a->tied_embeddings)
        VS_T2(&e, "lm_head.weight", a->vocab, a->hidden);
    VS_L1(&e, "model.layers.{L}.input_layernorm.weight", 0, a->layers, a->hidden);
    VS_L1(&e, "model.layers.{L}.pre_ff_layernorm.weight", 0, a->layers, a->hidden);
    VS_FAM_RUNS(a, layer_kind, VS_LAYER_STATE, mamba(&e, a, l0, n));
    VS_FAM_RUNS(a, layer_kind, VS_LAYER_FULL, attn(&e, a, l0, n));
    VS_FAM_RUNS(a, layer_dense, 0, experts(&e, a, l0, n));
    VS_FAM_RUNS(a, layer_dense, 1,
                vs_fam_gated_mlp(&e, "model.layers.{L}.feed_forward.gate_proj.weight",
                                 "model.layers.{L}.feed_forward.up_proj.weight",
                                 "model.layers.{L}.feed_forward.down_proj.weight", l0, n, a->hidden,
                                 a->intermediate, 0));
    return e.rc;
}

static const char *const jamba_types[] = {"jamba", NULL};
static const char *const jamba_archs[] = {"JambaForCausalLM", NULL};
static const char *const jamba_keys[] = {
    "num_hidden_layers",   "hidden_size",         "num_attention_heads", "num_key_value_heads",
    "intermediate_size",   "vocab_size",          "tie_word_embeddings", "num_experts",
    "num_experts_per_tok", "expert_layer_period", "expert_layer_offset", "attn_layer_period",
    "attn_layer_offset",   "mamba_d_state",       "mamba_d_conv",        "mamba_expand",
    "mamba_dt_rank",       "mamba_conv_bias",     "mamba_proj_bias",     NULL};
const vs_family vs_family_jamba = {"jamba",     jamba_types, jamba_archs,  jamba_keys,
                                   jamba_parse, jamba_kv,    jamba_tensors};
