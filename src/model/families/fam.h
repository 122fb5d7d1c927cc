/* fam.h — what the family files share: reading config keys and writing
 * tensor rules. Internal to model/; the contract is model/family.h. */
#ifndef VS_MODEL_FAMILIES_FAM_H
#define VS_MODEL_FAMILIES_FAM_H

#include <jansson.h>
#include <stdint.h>

#include "model/family.h"

/* A dimension above this is a corrupt file, not a model. */
#define VS_FAM_DIM_MAX ((uint64_t)1 << 40)

/* A positive integer from the first present (non-null) key of keys (NULL-
 * terminated). required = 0 stores dflt when none is present. */
int vs_fam_dim(const json_t *o, const char *const *keys, int required, uint64_t dflt, uint64_t *out,
               const char *rule, vs_error *err);
/* Qwen's MoE layout, into a->layer_dense: a layer is sparse unless listed in
 * mlp_only_layers, and only every decoder_sparse_step-th layer (counting from
 * 1) is. VS_EFORMAT for a list that is not one of layer numbers below
 * a->layers, or a pattern past VS_ARCH_LAYERS_MAX layers. */
int vs_fam_sparse_layers(vs_arch *a, const json_t *cfg, vs_error *err);
/* The same for one key. */
int vs_fam_dim1(const json_t *o, const char *key, int required, uint64_t dflt, uint64_t *out,
                const char *rule, vs_error *err);
/* A non-negative integer (0 allowed), or dflt. */
int vs_fam_uint0(const json_t *o, const char *key, uint64_t dflt, uint64_t *out, vs_error *err);
int vs_fam_bool(const json_t *o, const char *key, int dflt, int *out, vs_error *err);

/* hidden % heads == 0 when no head_dim is given, and head_dim read (default
 * hidden / heads); kv_heads read (default heads) and dividing heads. */
int vs_fam_heads(vs_arch *a, const json_t *o, const char *kv_key, vs_error *err);

/* Writes tensor rules to a callback; the first non-zero return sticks. */
typedef struct vs_fam_emit {
    vs_tensor_rule_cb cb;
    void *ud;
    const char *prefix;
    vs_part part;
    int rc;
} vs_fam_emit;

void vs_fam_emit_init(vs_fam_emit *e, vs_tensor_rule_cb cb, void *ud, const char *prefix);

/* One rule: pattern, first layer, layer count (1 for a singleton), experts
 * (0 = none), routed (see vs_tensor_rule), ndims and up to four dims. */
void vs_fam_rule(vs_fam_emit *e, const char *pattern, uint64_t layer0, uint64_t layers,
                 uint64_t experts, uint64_t routed, unsigned nd, uint64_t d0, uint64_t d1,
                 uint64_t d2, uint64_t d3);

/* Shorthands: a singleton tensor; a tensor in layers [l0, l0 + n). */
#define VS_T1(e, pat, a) vs_fam_rule(e, pat, 0, 1, 0, 0, 1, a, 0, 0, 0)
#define VS_T2(e, pat, a, b) vs_fam_rule(e, pat, 0, 1, 0, 0, 2, a, b, 0, 0)
#define VS_L1(e, pat, l0, n, a) vs_fam_rule(e, pat, l0, n, 0, 0, 1, a, 0, 0, 0)
#define VS_L2(e, pat, l0, n, a, b) vs_fam_rule(e, pat, l0, n, 0, 0, 2, a, b, 0, 0)

/* The runs of layers whose a->arr[] is kind: body runs with l0 and n set. */
#define VS_FAM_RUNS(a, arr, kind, body)                                                            \
    do {                                                                                           \
        uint64_t run_i_ = 0,                                                                       \
                 run_n_ = (a)->layers < VS_ARCH_LAYERS_MAX ? (a)->layers : VS_ARCH_LAYERS_MAX;     \
        while (run_i_ < run_n_) {                                                                  \
            uint64_t l0 = run_i_, n;                                                               \
            if ((a)->arr[run_i_] != (kind)) {                                                      \
                run_i_++;                                                                          \
                continue;                                                                          \
            }                                                                                      \
            while (run_i_ < run_n_ && (a)->arr[run_i_] == (kind))                                  \
                run_i_++;                                                                          \
            n = run_i_ - l0;                                                                       \
            body;                                                                                  \
        }                                                                                          \
    } while (0)

/* The attention layout of a decoder: reads the generic keys wherever present
 * (layer_types; sliding_window with sliding_window_pattern), else uses
 * pattern_default (0: every layer sliding when sliding_window is set; N: one
 * full layer in every N, the others sliding; -1: never sliding) and builds
 * a->kv with kv_heads x head_dim (head_dim_v when set) per layer. Also
 * records a->layer_kind for layers below VS_ARCH_LAYERS_MAX. */
int vs_fam_kv_decoder(vs_arch *a, const json_t *cfg, int pattern_default, vs_error *err);

/* Qwen2-style sliding: only when use_sliding_window is true, from layer
 * max_window_layers on. */
int vs_fam_kv_qwen(vs_arch *a, const json_t *cfg, vs_error *err);

/* ---- recurrent layers (hybrid models) ----
 * What a recurrent layer keeps per sequence, in bytes, as vLLM allocates it
 * (vllm/model_executor/layers/mamba/mamba_utils.py, MambaStateShapeCalculator,
 * at commit 02d7108): a convolution state of conv_kernel - 1 positions and a
 * temporal (SSM or delta-rule) state, whatever the length. The convolution
 * state and a Mamba state in the model's 16-bit type (vLLM's "auto"); a gated
 * delta net's recurrent state in fp32, as transformers' modeling_qwen3_next.py
 * (torch_chunk_gated_delta_rule) keeps it. */

/* Each also sets s->conv_values and s->ssm_values (what engines size in their
 * own dtypes) and returns the bytes. */
/* Mamba-1: conv (k-1) x inner, state inner x d_state. */
uint64_t vs_fam_state_mamba1(vs_arch_ssm *s);
/* Mamba-2: conv (k-1) x (inner + 2 groups d_state), state heads x head_dim x d_state. */
uint64_t vs_fam_state_mamba2(vs_arch_ssm *s);
/* Gated delta net: conv (k-1) x (2 key_heads key_dim + value_heads value_dim),
 * state value_heads x key_dim x value_dim in fp32. */
uint64_t vs_fam_state_gdn(vs_arch_ssm *s);

/* a->kv for a hybrid decoder: the attention layers (a->layer_kind FULL, or
 * CHUNKED with a->chunk) with kv_heads x head_dim, and a->ssm.layers recurrent
 * layers of a->ssm.state_bytes each. */
int vs_fam_kv_hybrid(vs_arch *a, vs_error *err);

/* The layer pattern a hybrid config gives, into a->layer_kind (FULL or
 * STATE) and a->ssm.layers: layer_types ("full_attention" / "attention",
 * "linear_attention" / "mamba"), else attn_layer_period with
 * attn_layer_offset (Jamba), else full_attention_interval (Qwen3-Next).
 * VS_EFORMAT when none is given or a list is wrong. */
int vs_fam_hybrid_pattern(vs_arch *a, const json_t *cfg, vs_error *err);

/* Llama-style decoders (family files share the llama block). */
enum {
    VS_LL_QKV_BIAS = 1u << 0,  /* biases on q, k, v */
    VS_LL_O_BIAS = 1u << 1,    /* bias on o */
    VS_LL_MLP_BIAS = 1u << 2,  /* biases on gate, up, down */
    VS_LL_QK_NORM = 1u << 3,   /* RMSNorm per head on q and k (head_dim) */
    VS_LL_QK_NORM_W = 1u << 4, /* RMSNorm over all q and all k (OLMo 2) */
    VS_LL_NORMS4 = 1u << 5,    /* pre and post norms around attention and MLP (Gemma 2/3) */
    VS_LL_POST_ONLY = 1u << 6, /* post-attention and post-feedforward norms only (OLMo 2) */
    VS_LL_NO_FINAL = 1u << 7   /* (unused: every family has model.norm) */
};

/* Parses the llama-style keys (layers, hidden, heads, kv, head_dim, inter,
 * vocab, tie default) into a. */
int vs_fam_llama_dims(vs_arch *a, const json_t *o, int tie_default, vs_error *err);

/* The attention and norms of a llama-style layer for layers [l0, l0 + n). */
void vs_fam_llama_attn(vs_fam_emit *e, const vs_arch *a, uint64_t l0, uint64_t n);
/* A gated MLP (gate, up, down) of inter for layers [l0, l0 + n) under name
 * stem (e.g. "model.layers.{L}.mlp"). */
void vs_fam_gated_mlp(vs_fam_emit *e, const char *gate, const char *up, const char *down,
                      uint64_t l0, uint64_t n, uint64_t hidden, uint64_t inter, int bias);
/* embed_tokens, norm and (untied) lm_head. */
void vs_fam_llama_ends(vs_fam_emit *e, const vs_arch *a);

/* ViT towers. */
/* CLIP vision (LLaVA): vision_tower.vision_model.* */
void vs_fam_clip_tower(vs_fam_emit *e, const vs_arch_vision *v, const char *prefix);
/* SigLIP vision (Gemma 3): vision_tower.vision_model.* */
void vs_fam_siglip_tower(vs_fam_emit *e, const vs_arch_vision *v, const char *prefix);
/* vision_config: layers, hidden, heads, intermediate, patch, image size,
 * channels, with the given defaults (the config class's). */
int vs_fam_vision(vs_arch_vision *v, const json_t *vc, const vs_arch_vision *defaults,
                  vs_error *err);

/* Walks f's tensor rules for a with prefix put before every name and part
 * text kept (a multimodal model's language model). */
int vs_fam_prefixed(const vs_family *f, const vs_arch *a, const char *prefix, vs_tensor_rule_cb cb,
                    void *ud);

/* A copy of sub (an object) with the keys of defaults (JSON text) it lacks:
 * the defaults of the config class a part relies on. New reference or NULL. */
json_t *vs_fam_with_defaults(const json_t *sub, const char *defaults);

/* The routed experts of a Qwen MoE layer (gate, experts.{E}.*, and the
 * shared expert with its gate when a->shared_experts) for layers [l0, l0 + n). */
void vs_fam_qwen_moe_mlp(vs_fam_emit *e, const vs_arch *a, uint64_t l0, uint64_t n);

/* The families: one extern per row of families.def. */
#define VS_FAMILY(id) extern const vs_family vs_family_##id;
#include "model/families/families.def"
#undef VS_FAMILY

#endif
