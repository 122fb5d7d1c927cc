/* Falcon-H1: attention and a Mamba-2 mixer side by side in every layer, then a
 * gated MLP, as transformers' modeling_falcon_h1.py builds them and the
 * checkpoint names them. Every layer keeps both a KV cache and a state. */
#include "model/families/fam.h"

static int fh_parse(vs_arch *a, const json_t *cfg, vs_error *err)
{
    const char *r = a->rule;
    const json_t *dh = json_object_get(cfg, "mamba_d_head");
    int conv_bias = 1, proj_bias = 0, norm = 0, pbias = 0, attn_bias = 0, mlp_bias = 0, rc;
    uint64_t i;
    if ((rc = vs_fam_llama_dims(a, cfg, 0, err)) ||
        (rc = vs_fam_dim1(cfg, "mamba_d_ssm", 1, 0, &a->ssm.inner, r, err)) ||
        (rc = vs_fam_dim1(cfg, "mamba_n_heads", 1, 0, &a->ssm.heads, r, err)) ||
        (rc = vs_fam_dim1(cfg, "mamba_d_state", 1, 0, &a->ssm.state, r, err)) ||
        (rc = vs_fam_dim1(cfg, "mamba_n_groups", 0, 1, &a->ssm.groups, r, err)) ||
        (rc = vs_fam_dim1(cfg, "mamba_d_conv", 0, 4, &a->ssm.conv, r, err)) ||
        (rc = vs_fam_bool(cfg, "mamba_conv_bias", 1, &conv_bias, err)) ||
        (rc = vs_fam_bool(cfg, "mamba_proj_bias", 0, &proj_bias, err)) ||
        (rc = vs_fam_bool(cfg, "mamba_rms_norm", 0, &norm, err)) ||
        (rc = vs_fam_bool(cfg, "projectors_bias", 0, &pbias, err)) ||
        (rc = vs_fam_bool(cfg, "attention_bias", 0, &attn_bias, err)) ||
        (rc = vs_fam_bool(cfg, "mlp_bias", 0, &mlp_bias, err)))
        return rc;
    /* mamba_d_head "auto" (the default): d_ssm / n_heads */
    a->ssm.head_dim = a->ssm.inner / a->ssm.heads;
    if (json_is_integer(dh) &&
        (rc = vs_fam_dim1(cfg, "mamba_d_head", 1, 0, &a->ssm.head_dim, r, err)))
        return rc;
    if (a->layers > VS_ARCH_LAYERS_MAX)
        return vs_error_set(err, VS_EFORMAT, "falcon_h1 layers are followed for at most %d layers",
                            VS_ARCH_LAYERS_MAX);
    for (i = 0; i < a->layers; i++)
        a->layer_kind[i] = VS_LAYER_FULL;
    a->ssm.layers = a->layers; /* beside the attention, not instead of it */
    a->ssm.state_bytes = vs_fam_state_mamba2(&a->ssm);
    a->flags = (unsigned)(conv_bias | proj_bias << 1 | norm << 2 | pbias << 3 | mlp_bias << 4 |
                          attn_bias << 5);
    return 0;
}

static int fh_kv(vs_arch *a, const json_t *cfg, vs_error *err)
{
    (void)cfg;
    return vs_fam_kv_hybrid(a, err);
}

static int fh_tensors(const vs_arch *a, vs_tensor_rule_cb cb, void *ud)
{
    const vs_arch_ssm *s = &a->ssm;
    uint64_t h = a->hidden, L = a->layers, conv = s->inner + 2 * s->groups * s->state;
    uint64_t in = s->inner + conv + s->heads, q = a->heads * a->head_dim,
             kv = a->kv_heads * a->head_dim;
    vs_fam_emit e;
    vs_fam_emit_init(&e, cb, ud, "");
    VS_T2(&e, "model.embed_tokens.weight", a->vocab, h);
    VS_T1(&e, "model.final_layernorm.weight", h);
    if (!a->tied_embeddings)
        VS_T2(&e, "lm_head.weight", a->vocab, h);
    vs_fam_gated_mlp(&e, "model.layers.{L}.feed_forward.gate_proj.weight",
                     "model.layers.{L}.feed_forward.up_proj.weight",
                     "model.layers.{L}.feed_forward.down_proj.weight", 0, L, h, a->intermediate,
                     (a->flags >> 4) & 1);
    VS_L1(&e, "model.layers.{L}.mamba.dt_bias", 0, L, s->heads);
    VS_L1(&e, "model.layers.{L}.mamba.A_log", 0, L, s->heads);
    VS_L1(&e, "model.layers.{L}.mamba.D", 0, L, s->heads);
    vs_fam_rule(&e, "model.layers.{L}.mamba.conv1d.weight", 0, L, 0, 0, 3, conv, 1, s->conv, 0);
    if (a->flags & 1)
        VS_L1(&e, "model.layers.{L}.mamba.conv1d.bias", 0, L, conv);
    VS_L2(&e, "model.layers.{L}.mamba.in_proj.weight", 0, L, in, h);
    if (a->flags & 2)
        VS_L1(&e, "model.layers.{L}.mamba.in_proj.bias", 0, L, in);
    if (a->flags & 4)
        VS_L1(&e, "model.layers.{L}.mamba.norm.weight", 0, L, s->inner);
    VS_L2(&e, "model.layers.{L}.mamba.out_proj.weight", 0, L, h, s->inner);
    if (a->flags & 8) /* projectors_bias: the out projection's */
        VS_L1(&e, "model.layers.{L}.mamba.out_proj.bias", 0, L, h);
    VS_L2(&e, "model.layers.{L}.self_attn.q_proj.weight", 0, L, q, h);
    VS_L2(&e, "model.layers.{L}.self_attn.k_proj.weight", 0, L, kv, h);
    VS_L2(&e, "model.layers.{L}.self_attn.v_proj.weight", 0, L, kv, h);
    VS_L2(&e, "model.layers.{L}.self_attn.o_proj.weight", 0, L, h, q);
    if (a->flags & 32) {
        VS_L1(&e, "model.layers.{L}.self_attn.q_proj.bias", 0, L, q);
        VS_L1(&e, "model.layers.{L}.self_attn.k_proj.bias", 0, L, kv);
        VS_L1(&e, "model.layers.{L}.self_attn.v_proj.bias", 0, L, kv);
        VS_L1(&e, "model.layers.{L}.self_attn.o_proj.bias", 0, L, h);
    }
    VS_L1(&e, "model.layers.{L}.input_layernorm.weight", 0, L, h);
    VS_L1(&e, "model.layers.{L}.pre_ff_layernorm.weight", 0, L, h);
    return e.rc;
}

static const char *const fh_types[] = {"falcon_h1", NULL};
static const char *const fh_archs[] = {"FalconH1ForCausalLM", NULL};
static const char *const fh_keys[] = {"num_hidden_layers",
                                      "hidden_size",
                                      "num_attention_heads",
                                      "num_key_value_heads",
                                      "head_dim",
                                      "intermediate_size",
                                      "vocab_size",
                                      "tie_word_embeddings",
                                      "mamba_d_ssm",
                                      "mamba_n_heads",
                                      "mamba_d_head",
                                      "mamba_d_state",
                                      "mamba_n_groups",
                                      "mamba_d_conv",
                                      "mamba_conv_bias",
                                      "mamba_proj_bias",
                                      "mamba_rms_norm",
                                      "projectors_bias",
                                      "attention_bias",
                                      "mlp_bias",
                                      NULL};
const vs_family vs_family_falcon_h1 = {"falcon_h1", fh_types, fh_archs,  fh_keys,
                                       fh_parse,    fh_kv,    fh_tensors};
