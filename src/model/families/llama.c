/* Dense Llama-style decoders: Llama, Mistral, Qwen2, Qwen3, OLMo 2.
 * Tensor names and shapes as transformers' modeling_llama.py (and its copies
 * modeling_mistral.py, modeling_qwen2.py, modeling_qwen3.py,
 * modeling_olmo2.py) store them. */
#include "model/families/fam.h"

static int dense_tensors(const vs_arch *a, vs_tensor_rule_cb cb, void *ud)
{
    vs_fam_emit e;
    vs_fam_emit_init(&e, cb, ud, "");
    vs_fam_llama_ends(&e, a);
    vs_fam_llama_attn(&e, a, 0, a->layers);
    vs_fam_gated_mlp(&e, "model.layers.{L}.mlp.gate_proj.weight",
                     "model.layers.{L}.mlp.up_proj.weight", "model.layers.{L}.mlp.down_proj.weight",
                     0, a->layers, a->hidden, a->intermediate, a->flags & VS_LL_MLP_BIAS);
    return e.rc;
}

static int llama_parse(vs_arch *a, const json_t *cfg, vs_error *err)
{
    int attn_bias = 0, mlp_bias = 0, rc;
    if ((rc = vs_fam_llama_dims(a, cfg, 0, err)) ||
        (rc = vs_fam_bool(cfg, "attention_bias", 0, &attn_bias, err)) ||
        (rc = vs_fam_bool(cfg, "mlp_bias", 0, &mlp_bias, err)))
        return rc;
    a->flags = (attn_bias ? VS_LL_QKV_BIAS | VS_LL_O_BIAS : 0) | (mlp_bias ? VS_LL_MLP_BIAS : 0);
    return 0;
}

static int mistral_parse(vs_arch *a, const json_t *cfg, vs_error *err)
{
    return vs_fam_llama_dims(a, cfg, 0, err);
}

static int qwen2_parse(vs_arch *a, const json_t *cfg, vs_error *err)
{
    int rc = vs_fam_llama_dims(a, cfg, 0, err);
    a->flags = VS_LL_QKV_BIAS; /* Qwen2 keeps biases on q, k and v, not on o */
    return rc;
}

static int qwen3_parse(vs_arch *a, const json_t *cfg, vs_error *err)
{
    int attn_bias = 0, rc;
    if ((rc = vs_fam_llama_dims(a, cfg, 0, err)) ||
        (rc = vs_fam_bool(cfg, "attention_bias", 0, &attn_bias, err)))
        return rc;
    a->flags = VS_LL_QK_NORM | (attn_bias ? VS_LL_QKV_BIAS | VS_LL_O_BIAS : 0);
    return 0;
}

static int olmo2_parse(vs_arch *a, const json_t *cfg, vs_error *err)
{
    int attn_bias = 0, rc;
    if ((rc = vs_fam_llama_dims(a, cfg, 0, err)) ||
        (rc = vs_fam_bool(cfg, "attention_bias", 0, &attn_bias, err)))
        return rc;
    /* norms after attention and MLP only, and one RMSNorm over all of q and k */
    a->flags = VS_LL_POST_ONLY | VS_LL_QK_NORM_W | (attn_bias ? VS_LL_QKV_BIAS | VS_LL_O_BIAS : 0);
    return 0;
}

/* Llama keeps every layer full (generic layer_types honoured). */
static int kv_full(vs_arch *a, const json_t *cfg, vs_error *err)
{
    return vs_fam_kv_decoder(a, cfg, -1, err);
}

/* Mistral v0.1: every layer slides over sliding_window tokens when it is set. */
static int kv_all_sliding(vs_arch *a, const json_t *cfg, vs_error *err)
{
    return vs_fam_kv_decoder(a, cfg, 0, err);
}

#define LLAMA_KEYS                                                                                 \
    "num_hidden_layers", "hidden_size", "num_attention_heads", "num_key_value_heads", "head_dim",  \
        "intermediate_size", "vocab_size", "tie_word_embeddings", "layer_types"

static const char *const llama_types[] = {"llama", NULL};
static const char *const llama_archs[] = {"LlamaForCausalLM", NULL};
static const char *const llama_keys[] = {LLAMA_KEYS, "attention_bias", "mlp_bias", NULL};
const vs_family vs_family_llama = {"llama",     llama_types, llama_archs,  llama_keys,
                                   llama_parse, kv_full,     dense_tensors};

static const char *const mistral_types[] = {"mistral", NULL};
static const char *const mistral_archs[] = {"MistralForCausalLM", NULL};
static const char *const mistral_keys[] = {LLAMA_KEYS, "sliding_window", NULL};
const vs_family vs_family_mistral = {"mistral",     mistral_types,  mistral_archs, mistral_keys,
                                     mistral_parse, kv_all_sliding, dense_tensors};

static const char *const qwen2_types[] = {"qwen2", NULL};
static const char *const qwen2_archs[] = {"Qwen2ForCausalLM", NULL};
static const char *const qwen_keys[] = {LLAMA_KEYS,          "use_sliding_window", "sliding_window",
                                        "max_window_layers", "attention_bias",     NULL};
const vs_family vs_family_qwen2 = {"qwen2",     qwen2_types,    qwen2_archs,  qwen_keys,
                                   qwen2_parse, vs_fam_kv_qwen, dense_tensors};

static const char *const qwen3_types[] = {"qwen3", NULL};
static const char *const qwen3_archs[] = {"Qwen3ForCausalLM", NULL};
const vs_family vs_family_qwen3 = {"qwen3",     qwen3_types,    qwen3_archs,  qwen_keys,
                                   qwen3_parse, vs_fam_kv_qwen, dense_tensors};

static const char *const olmo2_types[] = {"olmo2", NULL};
static const char *const olmo2_archs[] = {"Olmo2ForCausalLM", NULL};
static const char *const olmo2_keys[] = {LLAMA_KEYS, "attention_bias", NULL};
const vs_family vs_family_olmo2 = {"olmo2",     olmo2_types, olmo2_archs,  olmo2_keys,
                                   olmo2_parse, kv_full,     dense_tensors};
