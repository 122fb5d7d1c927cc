/* Llama-style mixtures of experts: Mixtral, Qwen2-MoE, Qwen3-MoE.
 * Tensor names as transformers' modeling_mixtral.py, modeling_qwen2_moe.py
 * and modeling_qwen3_moe.py store them. */
#include <string.h>

#include "model/families/fam.h"

static int experts_dims(vs_arch *a, const json_t *cfg, const char *experts_key, vs_error *err)
{
    int rc;
    if ((rc = vs_fam_dim1(cfg, experts_key, 1, 0, &a->experts, a->rule, err)) ||
        (rc = vs_fam_dim1(cfg, "num_experts_per_tok", 1, 0, &a->experts_per_token, a->rule, err)))
        return rc;
    if (a->experts_per_token > a->experts)
        return vs_error_set(err, VS_EFORMAT, "num_experts_per_tok %llu exceeds %s %llu",
                            (unsigned long long)a->experts_per_token, experts_key,
                            (unsigned long long)a->experts);
    return 0;
}

/* ---- Mixtral ---- */

static int mixtral_parse(vs_arch *a, const json_t *cfg, vs_error *err)
{
    int rc;
    if ((rc = vs_fam_llama_dims(a, cfg, 0, err)) ||
        (rc = experts_dims(a, cfg, "num_local_experts", err)))
        return rc;
    a->moe_intermediate = a->intermediate;
    return 0;
}

static int mixtral_tensors(const vs_arch *a, vs_tensor_rule_cb cb, void *ud)
{
    vs_fam_emit e;
    uint64_t h = a->hidden, i = a->intermediate, E = a->experts, L = a->layers;
    vs_fam_emit_init(&e, cb, ud, "");
    vs_fam_llama_ends(&e, a);
    vs_fam_llama_attn(&e, a, 0, L);
    VS_L2(&e, "model.layers.{L}.block_sparse_moe.gate.weight", 0, L, E, h);
    vs_fam_rule(&e, "model.layers.{L}.block_sparse_moe.experts.{E}.w1.weight", 0, L, E, E, 2, i, h,
                0, 0);
    vs_fam_rule(&e, "model.layers.{L}.block_sparse_moe.experts.{E}.w2.weight", 0, L, E, E, 2, h, i,
                0, 0);
    vs_fam_rule(&e, "model.layers.{L}.block_sparse_moe.experts.{E}.w3.weight", 0, L, E, E, 2, i, h,
                0, 0);
    return e.rc;
}

static int kv_mixtral(vs_arch *a, const json_t *cfg, vs_error *err)
{
    return vs_fam_kv_decoder(a, cfg, 0, err);
}

/* ---- Qwen MoE: which layers are sparse ---- */

int vs_fam_sparse_layers(vs_arch *a, const json_t *cfg, vs_error *err)
{
    const json_t *only = json_object_get(cfg, "mlp_only_layers");
    uint64_t step = 1, i;
    size_t k;
    int rc;
    if ((rc = vs_fam_dim1(cfg, "decoder_sparse_step", 0, 1, &step, a->rule, err)))
        return rc;
    if (only && !json_is_null(only) && !json_is_array(only))
        return vs_error_set(err, VS_EFORMAT, "'mlp_only_layers' must be a list of layer numbers");
    if ((step > 1 || json_array_size(only) > 0) && a->layers > VS_ARCH_LAYERS_MAX)
        return vs_error_set(err, VS_EFORMAT,
                            "dense and sparse layers are followed for at most %d layers",
                            VS_ARCH_LAYERS_MAX);
    for (i = 0; i < a->layers && i < VS_ARCH_LAYERS_MAX; i++)
        a->layer_dense[i] = (i + 1) % step != 0;
    for (k = 0; k < json_array_size(only); k++) {
        json_t *v = json_array_get(only, k);
        if (!json_is_integer(v) || json_integer_value(v) < 0 ||
            (uint64_t)json_integer_value(v) >= a->layers)
            return vs_error_set(err, VS_EFORMAT,
                                "mlp_only_layers[%zu] is not a layer number below %llu", k,
                                (unsigned long long)a->layers);
        a->layer_dense[json_integer_value(v)] = 1;
    }
    return 0;
}

static int qwen2_moe_parse(vs_arch *a, const json_t *cfg, vs_error *err)
{
    int rc;
    if ((rc = vs_fam_llama_dims(a, cfg, 0, err)) ||
        (rc = experts_dims(a, cfg, "num_experts", err)) ||
        (rc =
             vs_fam_dim1(cfg, "moe_intermediate_size", 1, 0, &a->moe_intermediate, a->rule, err)) ||
        (rc = vs_fam_dim1(cfg, "shared_expert_intermediate_size", 1, 0, &a->shared_intermediate,
                          a->rule, err)) ||
        (rc = vs_fam_sparse_layers(a, cfg, err)))
        return rc;
    a->shared_experts = 1;
    a->flags = VS_LL_QKV_BIAS;
    return 0;
}

static int qwen3_moe_parse(vs_arch *a, const json_t *cfg, vs_error *err)
{
    int attn_bias = 0, rc;
    if ((rc = vs_fam_llama_dims(a, cfg, 0, err)) ||
        (rc = experts_dims(a, cfg, "num_experts", err)) ||
        (rc =
             vs_fam_dim1(cfg, "moe_intermediate_size", 1, 0, &a->moe_intermediate, a->rule, err)) ||
        (rc = vs_fam_bool(cfg, "attention_bias", 0, &attn_bias, err)) ||
        (rc = vs_fam_sparse_layers(a, cfg, err)))
        return rc;
    a->flags = VS_LL_QK_NORM | (attn_bias ? VS_LL_QKV_BIAS | VS_LL_O_BIAS : 0);
    return 0;
}

void vs_fam_qwen_moe_mlp(vs_fam_emit *e, const vs_arch *a, uint64_t l0, uint64_t n)
{
    uint64_t h = a->hidden, mi = a->moe_intermediate, E = a->experts;
    VS_L2(e, "model.layers.{L}.mlp.gate.weight", l0, n, E, h);
    vs_fam_rule(e, "model.layers.{L}.mlp.experts.{E}.gate_proj.weight", l0, n, E, E, 2, mi, h, 0,
                0);
    vs_fam_rule(e, "model.layers.{L}.mlp.experts.{E}.up_proj.weight", l0, n, E, E, 2, mi, h, 0, 0);
    vs_fam_rule(e, "model.layers.{L}.mlp.experts.{E}.down_proj.weight", l0, n, E, E, 2, h, mi, 0,
                0);
    if (a->shared_experts) {
        vs_fam_gated_mlp(e, "model.layers.{L}.mlp.shared_expert.gate_proj.weight",
                         "model.layers.{L}.mlp.shared_expert.up_proj.weight",
                         "model.layers.{L}.mlp.shared_expert.down_proj.weight", l0, n, h,
                         a->shared_intermediate, 0);
        VS_L2(e, "model.layers.{L}.mlp.shared_expert_gate.weight", l0, n, 1, h);
    }
}

static int qwen_moe_tensors(const vs_arch *a, vs_tensor_rule_cb cb, void *ud)
{
    vs_fam_emit e;
    int any_dense = 0;
    uint64_t i;
    vs_fam_emit_init(&e, cb, ud, "");
    vs_fam_llama_ends(&e, a);
    vs_fam_llama_attn(&e, a, 0, a->layers);
    for (i = 0; i < a->layers && i < VS_ARCH_LAYERS_MAX; i++)
        any_dense |= a->layer_dense[i];
    if (!any_dense) {
        vs_fam_qwen_moe_mlp(&e, a, 0, a->layers);
        return e.rc;
    }
    VS_FAM_RUNS(a, layer_dense, 0, vs_fam_qwen_moe_mlp(&e, a, l0, n));
    VS_FAM_RUNS(a, layer_dense, 1,
                vs_fam_gated_mlp(&e, "model.layers.{L}.mlp.gate_proj.weight",
                                 "model.layers.{L}.mlp.up_proj.weight",
                                 "model.layers.{L}.mlp.down_proj.weight", l0, n, a->hidden,
                                 a->intermediate, 0));
    return e.rc;
}

#define MOE_KEYS                                                                                   \
    "num_hidden_layers", "hidden_size", "num_attention_heads", "num_key_value_heads", "head_dim",  \
        "intermediate_size", "vocab_size", "tie_word_embeddings", "layer_types",                   \
        "num_experts_per_tok"

static const char *const mixtral_types[] = {"mixtral", NULL};
static const char *const mixtral_archs[] = {"MixtralForCausalLM", NULL};
static const char *const mixtral_keys[] = {MOE_KEYS, "num_local_experts", "sliding_window", NULL};
const vs_family vs_family_mixtral = {"mixtral",     mixtral_types, mixtral_archs,  mixtral_keys,
                                     mixtral_parse, kv_mixtral,    mixtral_tensors};

static const char *const qwen2_moe_types[] = {"qwen2_moe", NULL};
static const char *const qwen2_moe_archs[] = {"Qwen2MoeForCausalLM", NULL};
static const char *const qwen2_moe_keys[] = {MOE_KEYS,
                                             "num_experts",
                                             "moe_intermediate_size",
                                             "shared_expert_intermediate_size",
                                             "decoder_sparse_step",
                                             "mlp_only_layers",
                                             "use_sliding_window",
                                             "sliding_window",
                                             "max_window_layers",
                                             NULL};
const vs_family vs_family_qwen2_moe = {"qwen2_moe",     qwen2_moe_types, qwen2_moe_archs,
                                       qwen2_moe_keys,  qwen2_moe_parse, vs_fam_kv_qwen,
                                       qwen_moe_tensors};

static const char *const qwen3_moe_types[] = {"qwen3_moe", NULL};
static const char *const qwen3_moe_archs[] = {"Qwen3MoeForCausalLM", NULL};
static const char *const qwen3_moe_keys[] = {MOE_KEYS,
                                             "num_experts",
                                             "moe_intermediate_size",
                                             "decoder_sparse_step",
                                             "mlp_only_layers",
                                             "attention_bias",
                                             "use_sliding_window",
                                             "sliding_window",
                                             "max_window_layers",
                                             NULL};
const vs_family vs_family_qwen3_moe = {"qwen3_moe",     qwen3_moe_types, qwen3_moe_archs,
                                       qwen3_moe_keys,  qwen3_moe_parse, vs_fam_kv_qwen,
                                       qwen_moe_tensors};
