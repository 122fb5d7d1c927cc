/* Nemotron-H (NVIDIA Nemotron-H, Nemotron Nano 2): one mixer per layer, a
 * Mamba-2 block (M), an attention block (*) or a squared-ReLU MLP (-), as
 * hybrid_override_pattern spells them, with the names of transformers'
 * modeling_nemotron_h.py. Only attention layers keep a KV cache; each Mamba
 * layer keeps a fixed state. */
#include <string.h>

#include "model/families/fam.h"

enum { NH_MAMBA = 0, NH_ATTN = 1, NH_MLP = 2 };
#define NO_CACHE 0xff /* an MLP layer's kind: neither attention nor state */

static int nh_parse(vs_arch *a, const json_t *cfg, vs_error *err)
{
    const char *pat = json_string_value(json_object_get(cfg, "hybrid_override_pattern"));
    const char *r = a->rule;
    int bias = 0, conv_bias = 1, mlp_bias = 0, attn_bias = 0, rc;
    uint64_t i;
    if ((rc = vs_fam_dim1(cfg, "num_hidden_layers", 1, 0, &a->layers, r, err)) ||
        (rc = vs_fam_dim1(cfg, "hidden_size", 1, 0, &a->hidden, r, err)) ||
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
    if (!pat)
        return vs_error_set(err, VS_EFORMAT,
                            "key 'hybrid_override_pattern' is missing (the nemotron_h rule needs "
                            "it: one of M, * or - per layer)");
    if (strlen(pat) != a->layers || a->layers > VS_ARCH_LAYERS_MAX)
        return vs_error_set(err, VS_EFORMAT,
                            "'hybrid_override_pattern' has %zu letters for %llu layers (at most "
                            "%d followed)",
                            strlen(pat), (unsigned long long)a->layers, VS_ARCH_LAYERS_MAX);
    for (i = 0; i < a->layers; i++) {
        char c = pat[i];
        if (c != 'M' && c != '*' && c != '-')
            return vs_error_set(err, VS_EFORMAT,
                                "hybrid_override_pattern[%llu] is '%c'; known: M (Mamba-2), * "
                                "(attention), - (MLP)",
                                (unsigned long long)i, c);
        a->layer_dense[i] = (unsigned char)(c == 'M' ? NH_MAMBA : c == '*' ? NH_ATTN : NH_MLP);
        a->layer_kind[i] = (unsigned char)(c == 'M'   ? VS_LAYER_STATE
                                           : c == '*' ? VS_LAYER_FULL
                                                      : NO_CACHE);
        a->ssm.layers += c == 'M';
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
