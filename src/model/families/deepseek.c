/* DeepSeek-V2 and DeepSeek-V3: multi-head latent attention (MLA) and a
 * mixture of experts with shared experts, the first first_k_dense_replace
 * layers dense. Tensor names as the checkpoints' modeling_deepseek.py stores
 * them. DeepSeek-V3's checkpoint also holds num_nextn_predict_layers
 * multi-token-prediction layers (model.layers.61 for V3), loaded only for
 * speculative decoding: listed, and excluded from params (README_WEIGHTS.md
 * of deepseek-ai/DeepSeek-V3). The cache keeps one latent vector of
 * kv_lora_rank + qk_rope_head_dim values per token and layer (DeepSeek-V2
 * paper, section 2.1). */
#include <stdio.h>
#include <string.h>

#include "model/families/fam.h"

enum { DS_CORRECTION_BIAS = 1 };

static int ds_parse(vs_arch *a, const json_t *cfg, vs_error *err)
{
    uint64_t freq = 1;
    int rc;
    const char *topk = json_string_value(json_object_get(cfg, "topk_method"));
    if ((rc = vs_fam_dim1(cfg, "num_hidden_layers", 1, 0, &a->layers, a->rule, err)) ||
        (rc = vs_fam_dim1(cfg, "hidden_size", 1, 0, &a->hidden, a->rule, err)) ||
        (rc = vs_fam_dim1(cfg, "num_attention_heads", 1, 0, &a->heads, a->rule, err)) ||
        (rc = vs_fam_dim1(cfg, "intermediate_size", 1, 0, &a->intermediate, a->rule, err)) ||
        (rc = vs_fam_dim1(cfg, "vocab_size", 1, 0, &a->vocab, a->rule, err)) ||
        (rc = vs_fam_uint0(cfg, "q_lora_rank", 0, &a->q_lora_rank, err)) ||
        (rc = vs_fam_dim1(cfg, "kv_lora_rank", 1, 0, &a->kv_lora_rank, a->rule, err)) ||
        (rc = vs_fam_dim1(cfg, "qk_rope_head_dim", 1, 0, &a->rope_dim, a->rule, err)) ||
        (rc = vs_fam_dim1(cfg, "qk_nope_head_dim", 1, 0, &a->nope_dim, a->rule, err)) ||
        (rc = vs_fam_dim1(cfg, "v_head_dim", 1, 0, &a->head_dim_v, a->rule, err)) ||
        (rc = vs_fam_dim1(cfg, "n_routed_experts", 1, 0, &a->experts, a->rule, err)) ||
        (rc = vs_fam_dim1(cfg, "num_experts_per_tok", 1, 0, &a->experts_per_token, a->rule, err)) ||
        (rc =
             vs_fam_dim1(cfg, "moe_intermediate_size", 1, 0, &a->moe_intermediate, a->rule, err)) ||
        (rc = vs_fam_uint0(cfg, "n_shared_experts", 0, &a->shared_experts, err)) ||
        (rc = vs_fam_uint0(cfg, "first_k_dense_replace", 0, &a->dense_layers, err)) ||
        (rc = vs_fam_dim1(cfg, "moe_layer_freq", 0, 1, &freq, a->rule, err)) ||
        (rc = vs_fam_uint0(cfg, "num_nextn_predict_layers", 0, &a->mtp_layers, err)) ||
        (rc = vs_fam_bool(cfg, "tie_word_embeddings", 0, &a->tied_embeddings, err)))
        return rc;
    if (freq != 1)
        return vs_error_set(err, VS_EFORMAT,
                            "moe_layer_freq %llu: only every layer after the dense ones being "
                            "sparse (1) is known",
                            (unsigned long long)freq);
    if (a->experts_per_token > a->experts)
        return vs_error_set(
            err, VS_EFORMAT, "num_experts_per_tok %llu exceeds n_routed_experts %llu",
            (unsigned long long)a->experts_per_token, (unsigned long long)a->experts);
    if (a->dense_layers > a->layers)
        a->dense_layers = a->layers;
    a->kv_heads = a->heads;
    a->head_dim = a->nope_dim + a->rope_dim;
    a->shared_intermediate = a->moe_intermediate * a->shared_experts;
    /* DeepSeek-V3's router adds a learnt per-expert bias (auxiliary-loss-free
     * balancing, noaux_tc) */
    if ((topk && !strcmp(topk, "noaux_tc")) || (!topk && !strcmp(a->family, "deepseek_v3")))
        a->flags |= DS_CORRECTION_BIAS;
    if (a->mtp_layers)
        snprintf(a->excluded_reason, sizeof a->excluded_reason,
                 "%llu multi-token-prediction layer%s (num_nextn_predict_layers), loaded only "
                 "for speculative decoding",
                 (unsigned long long)a->mtp_layers, a->mtp_layers == 1 ? "" : "s");
    return 0;
}

static int ds_kv(vs_arch *a, const json_t *cfg, vs_error *err)
{
    vs_kv_group g;
    (void)cfg;
    memset(&g, 0, sizeof g);
    memset(&a->kv, 0, sizeof a->kv);
    g.kind = VS_KV_LATENT;
    g.layers = a->layers;
    g.latent = a->kv_lora_rank + a->rope_dim;
    return vs_kv_layout_add(&a->kv, &g, err);
}

/* One decoder layer's attention and norms, layers [l0, l0 + n). */
static void ds_attn(vs_fam_emit *e, const vs_arch *a, uint64_t l0, uint64_t n)
{
    uint64_t h = a->hidden, qk = a->heads * (a->nope_dim + a->rope_dim);
    if (a->q_lora_rank) {
        VS_L2(e, "model.layers.{L}.self_attn.q_a_proj.weight", l0, n, a->q_lora_rank, h);
        VS_L1(e, "model.layers.{L}.self_attn.q_a_layernorm.weight", l0, n, a->q_lora_rank);
        VS_L2(e, "model.layers.{L}.self_attn.q_b_proj.weight", l0, n, qk, a->q_lora_rank);
    } else {
        VS_L2(e, "model.layers.{L}.self_attn.q_proj.weight", l0, n, qk, h);
    }
    VS_L2(e, "model.layers.{L}.self_attn.kv_a_proj_with_mqa.weight", l0, n,
          a->kv_lora_rank + a->rope_dim, h);
    VS_L1(e, "model.layers.{L}.self_attn.kv_a_layernorm.weight", l0, n, a->kv_lora_rank);
    VS_L2(e, "model.layers.{L}.self_attn.kv_b_proj.weight", l0, n,
          a->heads * (a->nope_dim + a->head_dim_v), a->kv_lora_rank);
    VS_L2(e, "model.layers.{L}.self_attn.o_proj.weight", l0, n, h, a->heads * a->head_dim_v);
    VS_L1(e, "model.layers.{L}.input_layernorm.weight", l0, n, h);
    VS_L1(e, "model.layers.{L}.post_attention_layernorm.weight", l0, n, h);
}

static void ds_moe(vs_fam_emit *e, const vs_arch *a, uint64_t l0, uint64_t n)
{
    uint64_t h = a->hidden, mi = a->moe_intermediate, E = a->experts;
    VS_L2(e, "model.layers.{L}.mlp.gate.weight", l0, n, E, h);
    if (a->flags & DS_CORRECTION_BIAS)
        VS_L1(e, "model.layers.{L}.mlp.gate.e_score_correction_bias", l0, n, E);
    vs_fam_rule(e, "model.layers.{L}.mlp.experts.{E}.gate_proj.weight", l0, n, E, E, 2, mi, h, 0,
                0);
    vs_fam_rule(e, "model.layers.{L}.mlp.experts.{E}.up_proj.weight", l0, n, E, E, 2, mi, h, 0, 0);
    vs_fam_rule(e, "model.layers.{L}.mlp.experts.{E}.down_proj.weight", l0, n, E, E, 2, h, mi, 0,
                0);
    if (a->shared_experts)
        vs_fam_gated_mlp(e, "model.layers.{L}.mlp.shared_experts.gate_proj.weight",
                         "model.layers.{L}.mlp.shared_experts.up_proj.weight",
                         "model.layers.{L}.mlp.shared_experts.down_proj.weight", l0, n, h,
                         a->shared_intermediate, 0);
}

static int ds_tensors(const vs_arch *a, vs_tensor_rule_cb cb, void *ud)
{
    vs_fam_emit e;
    uint64_t h = a->hidden, L = a->layers, k = a->dense_layers, m = a->mtp_layers;
    vs_fam_emit_init(&e, cb, ud, "");
    vs_fam_llama_ends(&e, a);
    ds_attn(&e, a, 0, L);
    vs_fam_gated_mlp(&e, "model.layers.{L}.mlp.gate_proj.weight",
                     "model.layers.{L}.mlp.up_proj.weight", "model.layers.{L}.mlp.down_proj.weight",
                     0, k, h, a->intermediate, 0);
    ds_moe(&e, a, k, L - k);
    if (m) {
        /* the multi-token-prediction layers: a decoder layer each, with its
         * own copies of the embedding and the output head */
        e.part = VS_PART_MTP;
        ds_attn(&e, a, L, m);
        if (L < k)
            vs_fam_gated_mlp(&e, "model.layers.{L}.mlp.gate_proj.weight",
                             "model.layers.{L}.mlp.up_proj.weight",
                             "model.layers.{L}.mlp.down_proj.weight", L, m, h, a->intermediate, 0);
        else
            ds_moe(&e, a, L, m);
        VS_L2(&e, "model.layers.{L}.embed_tokens.weight", L, m, a->vocab, h);
        VS_L1(&e, "model.layers.{L}.enorm.weight", L, m, h);
        VS_L1(&e, "model.layers.{L}.hnorm.weight", L, m, h);
        VS_L2(&e, "model.layers.{L}.eh_proj.weight", L, m, h, 2 * h);
        VS_L1(&e, "model.layers.{L}.shared_head.norm.weight", L, m, h);
        VS_L2(&e, "model.layers.{L}.shared_head.head.weight", L, m, a->vocab, h);
    }
    return e.rc;
}

#define DS_KEYS                                                                                    \
    "num_hidden_layers", "hidden_size", "num_attention_heads", "intermediate_size", "vocab_size",  \
        "q_lora_rank", "kv_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim",       \
        "n_routed_experts", "num_experts_per_tok", "moe_intermediate_size", "n_shared_experts",    \
        "first_k_dense_replace", "moe_layer_freq", "tie_word_embeddings", "topk_method"

static const char *const v2_types[] = {"deepseek_v2", NULL};
static const char *const v2_archs[] = {"DeepseekV2ForCausalLM", NULL};
static const char *const v2_keys[] = {DS_KEYS, NULL};
const vs_family vs_family_deepseek_v2 = {"deepseek_v2", v2_types, v2_archs,  v2_keys,
                                         ds_parse,      ds_kv,    ds_tensors};

static const char *const v3_types[] = {"deepseek_v3", NULL};
static const char *const v3_archs[] = {"DeepseekV3ForCausalLM", NULL};
static const char *const v3_keys[] = {DS_KEYS, "num_nextn_predict_layers", NULL};
const vs_family vs_family_deepseek_v3 = {"deepseek_v3", v3_types, v3_archs,  v3_keys,
                                         ds_parse,      ds_kv,    ds_tensors};
