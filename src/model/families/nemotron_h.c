/* Nemotron-H (NVIDIA Nemotron-H, Nemotron Nano 2, Nemotron 3): one mixer per
 * layer, a Mamba-2 block (M), an attention block (*), a squared-ReLU MLP (-) or
 * a mixture of experts (E: Nemotron 3's n_routed_experts ungated up/down
 * experts, a sigmoid router and one shared MLP, with latent projections when
 * moe_latent_size is set), as hybrid_override_pattern spells them or
 * layers_block_type lists them, with the names of transformers'
 * modeling_nemotron_h.py (5.24: NemotronHMoE, NemotronHExperts). Only attention
 * layers keep a KV cache; each Mamba layer keeps a fixed state. */
#include <string.h>

#include "model/families/fam.h"

enum { NH_MAMBA = 0, NH_ATTN = 1, NH_MLP = 2, NH_MOE = 3 };
#define NO_CACHE 0xff /* an MLP or MoE layer's kind: neither attention nor state */

/* One layer's mixer from its letter or its layers_block_type word (the
 * transformers names and the older ones it remaps); -1 when unknown. */
static int mixer_of(const char *w, char c)
{
    if (w) {
        if (!strcmp(w, "linear_attention") || !strcmp(w, "mamba"))
            return NH_MAMBA;
        if (!strcmp(w, "full_attention") || !strcmp(w, "attention"))
            return NH_ATTN;
        if (!strcmp(w, "mlp"))
            return NH_MLP;
        if (!strcmp(w, "moe"))
            return NH_MOE;
        return -1;
    }
    return c == 'M' ? NH_MAMBA : c == '*' ? NH_ATTN : c == '-' ? NH_MLP : c == 'E' ? NH_MOE : -1;
}

static int nh_parse(vs_arch *a, const json_t *cfg, vs_error *err)
{
    const char *pat = json_string_value(json_object_get(cfg, "hybrid_override_pattern"));
    const json_t *types = json_object_get(cfg, "layers_block_type");
    const char *r = a->rule;
    int bias = 0, conv_bias = 1, mlp_bias = 0, attn_bias = 0, rc;
    uint64_t i, n_moe = 0;
    /* layers_block_type, when it is what the config gives, sets the layers
     * (transformers then ignores num_hidden_layers) */
    if (!pat && json_is_array(types))
        a->layers = json_array_size(types);
    else if ((rc = vs_fam_dim1(cfg, "num_hidden_layers", 1, 0, &a->layers, r, err)))
        return rc;
    if ((rc = vs_fam_dim1(cfg, "hidden_size", 1, 0, &a->hidden, r, err)) ||
        (rc = vs_fam_dim1(cfg, "num_attention_heads", 1, 0, &a->heads, r, err)) ||
        (rc = vs_fam_dim1(cfg, "intermediate_size", 1, 0, &a->intermediate, r, err)) ||
        (rc = vs_fam_dim1(cfg, "vocab_size", 1, 0, &a->vocab, r, err)) ||
        (rc = vs_fam_heads(a, cfg, "num_key_value_heads", err)) ||
        (rc = vs_fam_bool(cfg, "tie_word_embeddings", 0, &a->tied_embeddings, err)) ||
        (rc = vs_fam_dim1(cfg, "mamba_num_heads", 1, 0, &a->ssm.heads, r, err)) ||
        (rc = vs_fam_dim1(cfg, "mamba_head_dim", 1, 0, &a->ssm.head_dim, r, err)) ||
        (rc = vs_fam_dim1(cfg, "ssm_state_size", 1, 0, &a->ssm.state, r, err)) ||
        (rc = vs_fam_dim1(cfg, "n_groups", 0, 8, &a->ssm.groups, r, err)) ||
        (rc = vs_fam_dim1(cfg, "conv_kernel", 0, 4, &a->ssm.conv, r, err)) ||
        (rc = vs_fam_bool(cfg, "use_bias", 0, &bias, err)) ||
        (rc = vs_fam_bool(cfg, "use_conv_bias", 1, &conv_bias, err)) ||
        (rc = vs_fam_bool(cfg, "mlp_bias", 0, &mlp_bias, err)) ||
        (rc = vs_fam_bool(cfg, "attention_bias", 0, &attn_bias, err)))
        return rc;
    if (!pat && !json_is_array(types))
        return vs_error_set(err, VS_EFORMAT,
                            "key 'hybrid_override_pattern' is missing (the nemotron_h rule needs "
                            "it, one of M, *, - or E per layer, or layers_block_type)");
    if ((pat ? strlen(pat) : json_array_size(types)) != a->layers || a->layers > VS_ARCH_LAYERS_MAX)
        return vs_error_set(err, VS_EFORMAT,
                            "'%s' has %zu entries for %llu layers (at most %d followed)",
                            pat ? "hybrid_override_pattern" : "layers_block_type",
                            pat ? strlen(pat) : json_array_size(types),
                            (unsigned long long)a->layers, VS_ARCH_LAYERS_MAX);
    for (i = 0; i < a->layers; i++) {
        const char *w = pat ? NULL : json_string_value(json_array_get(types, i));
        int m = mixer_of(w, pat ? pat[i] : 0);
        if (m < 0 && pat)
            return vs_error_set(err, VS_EFORMAT,
                                "hybrid_override_pattern[%llu] is '%c'; known: M (Mamba-2), * "
                                "(attention), - (MLP), E (mixture of experts)",
                                (unsigned long long)i, pat[i]);
        if (m < 0)
            return vs_error_set(err, VS_EFORMAT,
                                "layers_block_type[%llu] is not one of linear_attention, "
                                "full_attention, mlp, moe",
                                (unsigned long long)i);
        a->layer_dense[i] = (unsigned char)m;
        a->layer_kind[i] = (unsigned char)(m == NH_MAMBA  ? VS_LAYER_STATE
                                           : m == NH_ATTN ? VS_LAYER_FULL
                                                          : NO_CACHE);
        a->ssm.layers += m == NH_MAMBA;
        n_moe += m == NH_MOE;
    }
    if (n_moe) {
        /* transformers' NemotronHConfig defaults where a key is absent */
        if ((rc = vs_fam_dim1(cfg, "n_routed_experts", 0, 8, &a->experts, r, err)) ||
            (rc = vs_fam_dim1(cfg, "num_experts_per_tok", 0, 2, &a->experts_per_token, r, err)) ||
            (rc = vs_fam_dim1(cfg, "moe_intermediate_size", 0, 7688, &a->moe_intermediate, r,
                              err)) ||
            (rc = vs_fam_dim1(cfg, "moe_shared_expert_intermediate_size", 0, 7688,
                              &a->shared_intermediate, r, err)) ||
            (rc = vs_fam_uint0(cfg, "moe_latent_size", 0, &a->moe_latent, err)))
            return rc;
        if (a->experts_per_token > a->experts)
            return vs_error_set(
                err, VS_EFORMAT, "num_experts_per_tok %llu exceeds n_routed_experts %llu",
                (unsigned long long)a->experts_per_token, (unsigned long long)a->experts);
    }
    a->ssm.inner = a->ssm.heads * a->ssm.head_dim;
    a->ssm.state_bytes = vs_fam_state_mamba2(&a->ssm);
    a->flags = (unsigned)(bias | conv_bias << 1 | mlp_bias << 2 | attn_bias << 3);
    return 0;
}

static int nh_kv(vs_arch *a, const json_t *cfg, vs_error *err)
{
    (void)cfg;
    return vs_fam_kv_hybrid(a, err);
}

static void mamba(vs_fam_emit *e, const vs_arch *a, uint64_t l0, uint64_t n)
{
    const vs_arch_ssm *s = &a->ssm;
    uint64_t h = a->hidden, conv = s->inner + 2 * s->groups * s->state;
    VS_L1(e, "model.layers.{L}.mixer.dt_bias", l0, n, s->heads);
    VS_L1(e, "model.layers.{L}.mixer.A_log", l0, n, s->heads);
    VS_L1(e, "model.layers.{L}.mixer.D", l0, n, s->heads);
    vs_fam_rule(e, "model.layers.{L}.mixer.conv1d.weight", l0, n, 0, 0, 3, conv, 1, s->conv, 0);
    if (a->flags & 2)
        VS_L1(e, "model.layers.{L}.mixer.conv1d.bias", l0, n, conv);
    VS_L2(e, "model.layers.{L}.mixer.in_proj.weight", l0, n, s->inner + conv + s->heads, h);
    if (a->flags & 1)
        VS_L1(e, "model.layers.{L}.mixer.in_proj.bias", l0, n, s->inner + conv + s->heads);
    VS_L1(e, "model.layers.{L}.mixer.norm.weight", l0, n, s->inner);
    VS_L2(e, "model.layers.{L}.mixer.out_proj.weight", l0, n, h, s->inner);
    if (a->flags & 1)
        VS_L1(e, "model.layers.{L}.mixer.out_proj.bias", l0, n, h);
}

static void attn(vs_fam_emit *e, const vs_arch *a, uint64_t l0, uint64_t n)
{
    uint64_t h = a->hidden, q = a->heads * a->head_dim, kv = a->kv_heads * a->head_dim;
    VS_L2(e, "model.layers.{L}.mixer.q_proj.weight", l0, n, q, h);
    VS_L2(e, "model.layers.{L}.mixer.k_proj.weight", l0, n, kv, h);
    VS_L2(e, "model.layers.{L}.mixer.v_proj.weight", l0, n, kv, h);
    VS_L2(e, "model.layers.{L}.mixer.o_proj.weight", l0, n, h, q);
    if (a->flags & 8) {
        VS_L1(e, "model.layers.{L}.mixer.q_proj.bias", l0, n, q);
        VS_L1(e, "model.layers.{L}.mixer.k_proj.bias", l0, n, kv);
        VS_L1(e, "model.layers.{L}.mixer.v_proj.bias", l0, n, kv);
        VS_L1(e, "model.layers.{L}.mixer.o_proj.bias", l0, n, h);
    }
}

static void mlp(vs_fam_emit *e, const vs_arch *a, uint64_t l0, uint64_t n)
{
    VS_L2(e, "model.layers.{L}.mixer.up_proj.weight", l0, n, a->intermediate, a->hidden);
    VS_L2(e, "model.layers.{L}.mixer.down_proj.weight", l0, n, a->hidden, a->intermediate);
    if (a->flags & 4) {
        VS_L1(e, "model.layers.{L}.mixer.up_proj.bias", l0, n, a->intermediate);
        VS_L1(e, "model.layers.{L}.mixer.down_proj.bias", l0, n, a->hidden);
    }
}

/* NemotronHMoE: the router [experts, hidden], the fused experts (up [E, ff, in],
 * down [E, in, ff], in = moe_latent_size or hidden), one shared MLP, and the
 * latent projections around the experts when moe_latent_size is set. */
static void moe(vs_fam_emit *e, const vs_arch *a, uint64_t l0, uint64_t n)
{
    uint64_t h = a->hidden, E = a->experts, ff = a->moe_intermediate,
             in = a->moe_latent ? a->moe_latent : h, sh = a->shared_intermediate;
    VS_L2(e, "model.layers.{L}.mixer.gate.weight", l0, n, E, h);
    vs_fam_rule(e, "model.layers.{L}.mixer.experts.up_proj", l0, n, 0, E, 3, E, ff, in, 0);
    vs_fam_rule(e, "model.layers.{L}.mixer.experts.down_proj", l0, n, 0, E, 3, E, in, ff, 0);
    VS_L2(e, "model.layers.{L}.mixer.shared_experts.up_proj.weight", l0, n, sh, h);
    VS_L2(e, "model.layers.{L}.mixer.shared_experts.down_proj.weight", l0, n, h, sh);
    if (a->flags & 4) {
        VS_L1(e, "model.layers.{L}.mixer.shared_experts.up_proj.bias", l0, n, sh);
        VS_L1(e, "model.layers.{L}.mixer.shared_experts.down_proj.bias", l0, n, h);
    }
    if (a->moe_latent) {
        VS_L2(e, "model.layers.{L}.mixer.fc1_latent_proj.weight", l0, n, in, h);
        VS_L2(e, "model.layers.{L}.mixer.fc2_latent_proj.weight", l0, n, h, in);
        if (a->flags & 4) {
            VS_L1(e, "model.layers.{L}.mixer.fc1_latent_proj.bias", l0, n, in);
            VS_L1(e, "model.layers.{L}.mixer.fc2_latent_proj.bias", l0, n, h);
        }
    }
}

static int nh_tensors(const vs_arch *a, vs_tensor_rule_cb cb, void *ud)
{
    vs_fam_emit e;
    vs_fam_emit_init(&e, cb, ud, "");
    VS_T2(&e, "model.embeddings.weight", a->vocab, a->hidden);
    VS_T1(&e, "model.norm_f.weight", a->hidden);
    if (!a->tied_embeddings)
        VS_T2(&e, "lm_head.weight", a->vocab, a->hidden);
    VS_L1(&e, "model.layers.{L}.norm.weight", 0, a->layers, a->hidden);
    VS_FAM_RUNS(a, layer_dense, NH_MAMBA, mamba(&e, a, l0, n));
    VS_FAM_RUNS(a, layer_dense, NH_ATTN, attn(&e, a, l0, n));
    VS_FAM_RUNS(a, layer_dense, NH_MLP, mlp(&e, a, l0, n));
    VS_FAM_RUNS(a, layer_dense, NH_MOE, moe(&e, a, l0, n));
    return e.rc;
}

static const char *const nh_types[] = {"nemotron_h", NULL};
static const char *const nh_archs[] = {"NemotronHForCausalLM", NULL};
static const char *const nh_keys[] = {"num_hidden_layers",
                                      "hidden_size",
                                      "num_attention_heads",
                                      "num_key_value_heads",
                                      "head_dim",
                                      "intermediate_size",
                                      "vocab_size",
                                      "tie_word_embeddings",
                                      "hybrid_override_pattern",
                                      "layers_block_type",
                                      "n_routed_experts",
                                      "num_experts_per_tok",
                                      "moe_intermediate_size",
                                      "moe_shared_expert_intermediate_size",
                                      "moe_latent_size",
                                      "mamba_num_heads",
                                      "mamba_head_dim",
                                      "ssm_state_size",
                                      "n_groups",
                                      "conv_kernel",
                                      "use_bias",
                                      "use_conv_bias",
                                      "mlp_bias",
                                      "attention_bias",
                                      NULL};
const vs_family vs_family_nemotron_h = {"nemotron_h", nh_types, nh_archs,  nh_keys,
                                        nh_parse,     nh_kv,    nh_tensors};
