/* Mllama (Llama 3.2 Vision): a language model whose cross_attention_layers
 * attend to the vision encoder's tokens instead of their own, a tiled
 * vision encoder (a local and a gated global transformer) and a linear
 * projector, as transformers' modeling_mllama.py stores them. The cache:
 * keys and values of every token in the self-attention layers, and of the
 * image tokens in the cross-attention layers. */
#include <string.h>

#include "model/families/fam.h"
#include "util/checked.h"

/* transformers' MllamaTextConfig and MllamaVisionConfig defaults */
static const char text_defaults[] =
    "{\"vocab_size\": 128256, \"hidden_size\": 4096, \"num_hidden_layers\": 40, "
    "\"num_attention_heads\": 32, \"num_key_value_heads\": 8, \"intermediate_size\": 14336, "
    "\"cross_attention_layers\": [3, 8, 13, 18, 23, 28, 33, 38]}";
static const char vision_defaults[] =
    "{\"hidden_size\": 1280, \"num_hidden_layers\": 32, \"num_global_layers\": 8, "
    "\"attention_heads\": 16, \"num_channels\": 3, \"intermediate_size\": 5120, "
    "\"vision_output_dim\": 7680, \"image_size\": 448, \"patch_size\": 14, \"max_num_tiles\": 4, "
    "\"supported_aspect_ratios\": [[1, 1], [1, 2], [1, 3], [1, 4], [2, 1], [2, 2], [3, 1], [4, "
    "1]]}";

static int parse_text(vs_arch *a, const json_t *t, vs_error *err)
{
    const json_t *cl = json_object_get(t, "cross_attention_layers");
    size_t k;
    int rc;
    if ((rc = vs_fam_llama_dims(a, t, 0, err)))
        return rc;
    if (a->layers > VS_ARCH_LAYERS_MAX)
        return vs_error_set(err, VS_EFORMAT, "text_config: at most %d layers are followed",
                            VS_ARCH_LAYERS_MAX);
    if (!json_is_array(cl))
        return vs_error_set(err, VS_EFORMAT,
                            "'cross_attention_layers' must be a list of layer numbers");
    for (k = 0; k < json_array_size(cl); k++) {
        json_t *v = json_array_get(cl, k);
        if (!json_is_integer(v) || json_integer_value(v) < 0 ||
            (uint64_t)json_integer_value(v) >= a->layers)
            return vs_error_set(err, VS_EFORMAT,
                                "cross_attention_layers[%zu] is not a layer number below %llu", k,
                                (unsigned long long)a->layers);
        a->layer_kind[json_integer_value(v)] = VS_LAYER_CROSS;
    }
    return 0;
}

static int parse_vision(vs_arch *a, const json_t *v, vs_error *err)
{
    vs_arch_vision *w = &a->vision;
    const json_t *ar = json_object_get(v, "supported_aspect_ratios");
    const char *r = "vision_config";
    uint64_t np, p;
    int rc;
    if ((rc = vs_fam_dim1(v, "num_hidden_layers", 1, 0, &w->layers, r, err)) ||
        (rc = vs_fam_dim1(v, "num_global_layers", 1, 0, &w->global_layers, r, err)) ||
        (rc = vs_fam_dim1(v, "hidden_size", 1, 0, &w->hidden, r, err)) ||
        (rc = vs_fam_dim1(v, "attention_heads", 1, 0, &w->heads, r, err)) ||
        (rc = vs_fam_dim1(v, "intermediate_size", 1, 0, &w->intermediate, r, err)) ||
        (rc = vs_fam_dim1(v, "num_channels", 1, 0, &w->channels, r, err)) ||
        (rc = vs_fam_dim1(v, "vision_output_dim", 1, 0, &w->output_dim, r, err)) ||
        (rc = vs_fam_dim1(v, "image_size", 1, 0, &w->image_size, r, err)) ||
        (rc = vs_fam_dim1(v, "patch_size", 1, 0, &w->patch, r, err)) ||
        (rc = vs_fam_dim1(v, "max_num_tiles", 1, 0, &w->max_tiles, r, err)))
        return rc;
    if (!json_is_array(ar) || json_array_size(ar) == 0)
        return vs_error_set(err, VS_EFORMAT, "'supported_aspect_ratios' must be a list");
    w->aspect_ratio_ids = json_array_size(ar) + 1;
    if (w->image_size % w->patch)
        return vs_error_set(err, VS_EFORMAT,
                            "vision_config: image_size is not a multiple of patch_size");
    np = (w->image_size / w->patch) * (w->image_size / w->patch) + 1;
    if (vs_checked_mul(&p, np, w->max_tiles) || vs_checked_mul(&p, p, w->hidden) ||
        p > ((uint64_t)1 << 50))
        return vs_error_set(err, VS_EFORMAT,
                            "the parameter count overflows 64 bits; the dimensions are not a real "
                            "model's");
    return 0;
}

static int mllama_parse(vs_arch *a, const json_t *cfg, vs_error *err)
{
    json_t *t = vs_fam_with_defaults(json_object_get(cfg, "text_config"), text_defaults);
    json_t *v = vs_fam_with_defaults(json_object_get(cfg, "vision_config"), vision_defaults);
    int rc;
    if (!json_is_object(json_object_get(cfg, "text_config")) ||
        !json_is_object(json_object_get(cfg, "vision_config")))
        rc = vs_error_set(err, VS_EFORMAT,
                          "keys 'text_config' and 'vision_config' are needed (the mllama rule)");
    else if (!t || !v)
        rc = vs_error_set(err, VS_ENOMEM, "out of memory");
    else if (!(rc = parse_text(a, t, err)))
        rc = parse_vision(a, v, err);
    json_decref(t);
    json_decref(v);
    a->has_vision = 1;
    a->text_hidden = a->hidden;
    return rc;
}

static int mllama_kv(vs_arch *a, const json_t *cfg, vs_error *err)
{
    vs_kv_group g;
    uint64_t i, ncross = 0;
    int rc;
    (void)cfg;
    for (i = 0; i < a->layers; i++)
        ncross += a->layer_kind[i] == VS_LAYER_CROSS;
    memset(&a->kv, 0, sizeof a->kv);
    memset(&g, 0, sizeof g);
    g.kind = VS_KV_FULL;
    g.layers = a->layers - ncross;
    g.kv_heads = a->kv_heads;
    g.head_dim = a->head_dim;
    if (g.layers && (rc = vs_kv_layout_add(&a->kv, &g, err)))
        return rc;
    g.kind = VS_KV_CROSS;
    g.layers = ncross;
    return ncross ? vs_kv_layout_add(&a->kv, &g, err) : 0;
}

static void self_layers(vs_fam_emit *e, const vs_arch *a, uint64_t l0, uint64_t n)
{
    vs_fam_llama_attn(e, a, l0, n);
    vs_fam_gated_mlp(e, "model.layers.{L}.mlp.gate_proj.weight",
                     "model.layers.{L}.mlp.up_proj.weight", "model.layers.{L}.mlp.down_proj.weight",
                     l0, n, a->hidden, a->intermediate, 0);
}

static void cross_layers(vs_fam_emit *e, const vs_arch *a, uint64_t l0, uint64_t n)
{
    uint64_t h = a->hidden, q = a->heads * a->head_dim, kv = a->kv_heads * a->head_dim;
    VS_L2(e, "model.layers.{L}.cross_attn.q_proj.weight", l0, n, q, h);
    VS_L2(e, "model.layers.{L}.cross_attn.k_proj.weight", l0, n, kv, h);
    VS_L2(e, "model.layers.{L}.cross_attn.v_proj.weight", l0, n, kv, h);
    VS_L2(e, "model.layers.{L}.cross_attn.o_proj.weight", l0, n, h, q);
    VS_L1(e, "model.layers.{L}.cross_attn.q_norm.weight", l0, n, a->head_dim);
    VS_L1(e, "model.layers.{L}.cross_attn.k_norm.weight", l0, n, a->head_dim);
    VS_L1(e, "model.layers.{L}.cross_attn_attn_gate", l0, n, 1);
    VS_L1(e, "model.layers.{L}.cross_attn_mlp_gate", l0, n, 1);
    VS_L1(e, "model.layers.{L}.input_layernorm.weight", l0, n, h);
    VS_L1(e, "model.layers.{L}.post_attention_layernorm.weight", l0, n, h);
    vs_fam_gated_mlp(e, "model.layers.{L}.mlp.gate_proj.weight",
                     "model.layers.{L}.mlp.up_proj.weight", "model.layers.{L}.mlp.down_proj.weight",
                     l0, n, h, a->intermediate, 0);
}

/* The local (transformer) and global (global_transformer, gated) encoders. */
static void vision_layers(vs_fam_emit *e, const vs_arch_vision *v, int global)
{
    uint64_t d = v->hidden, i = v->intermediate, n = global ? v->global_layers : v->layers;
#define VL(s) (global ? "global_transformer.layers.{L}." s : "transformer.layers.{L}." s)
    VS_L2(e, VL("self_attn.q_proj.weight"), 0, n, d, d);
    VS_L2(e, VL("self_attn.k_proj.weight"), 0, n, d, d);
    VS_L2(e, VL("self_attn.v_proj.weight"), 0, n, d, d);
    VS_L2(e, VL("self_attn.o_proj.weight"), 0, n, d, d);
    VS_L2(e, VL("mlp.fc1.weight"), 0, n, i, d);
    VS_L1(e, VL("mlp.fc1.bias"), 0, n, i);
    VS_L2(e, VL("mlp.fc2.weight"), 0, n, d, i);
    VS_L1(e, VL("mlp.fc2.bias"), 0, n, d);
    VS_L1(e, VL("input_layernorm.weight"), 0, n, d);
    VS_L1(e, VL("input_layernorm.bias"), 0, n, d);
    VS_L1(e, VL("post_attention_layernorm.weight"), 0, n, d);
    VS_L1(e, VL("post_attention_layernorm.bias"), 0, n, d);
    if (global) {
        VS_L1(e, VL("gate_attn"), 0, n, 1);
        VS_L1(e, VL("gate_ffn"), 0, n, 1);
    }
#undef VL
}

static int mllama_tensors(const vs_arch *a, vs_tensor_rule_cb cb, void *ud)
{
    vs_fam_emit e;
    const vs_arch_vision *v = &a->vision;
    uint64_t h = a->hidden, d = v->hidden, side = v->image_size / v->patch, np = side * side + 1;
    uint64_t ar = v->aspect_ratio_ids;
    vs_fam_emit_init(&e, cb, ud, "language_model.");
    /* eight more rows than the vocabulary: the image token and its kin */
    VS_T2(&e, "model.embed_tokens.weight", a->vocab + 8, h);
    VS_T1(&e, "model.norm.weight", h);
    if (!a->tied_embeddings)
        VS_T2(&e, "lm_head.weight", a->vocab, h);
    VS_FAM_RUNS(a, layer_kind, VS_LAYER_FULL, self_layers(&e, a, l0, n));
    VS_FAM_RUNS(a, layer_kind, VS_LAYER_CROSS, cross_layers(&e, a, l0, n));
    e.prefix = "vision_model.";
    e.part = VS_PART_VISION;
    vs_fam_rule(&e, "patch_embedding.weight", 0, 1, 0, 0, 4, d, v->channels, v->patch, v->patch);
    VS_T1(&e, "class_embedding", d);
    VS_T2(&e, "gated_positional_embedding.embedding", np, d);
    VS_T1(&e, "gated_positional_embedding.gate", 1);
    VS_T2(&e, "gated_positional_embedding.tile_embedding.weight", ar, v->max_tiles * np * d);
    VS_T2(&e, "pre_tile_positional_embedding.embedding.weight", ar, v->max_tiles * d);
    VS_T1(&e, "pre_tile_positional_embedding.gate", 1);
    VS_T2(&e, "post_tile_positional_embedding.embedding.weight", ar, v->max_tiles * d);
    VS_T1(&e, "post_tile_positional_embedding.gate", 1);
    VS_T1(&e, "layernorm_pre.weight", d);
    VS_T1(&e, "layernorm_pre.bias", d);
    VS_T1(&e, "layernorm_post.weight", d);
    VS_T1(&e, "layernorm_post.bias", d);
    vision_layers(&e, v, 0);
    vision_layers(&e, v, 1);
    e.prefix = "";
    e.part = VS_PART_PROJECTOR;
    VS_T2(&e, "multi_modal_projector.weight", h, v->output_dim);
    VS_T1(&e, "multi_modal_projector.bias", h);
    return e.rc;
}

static const char *const mllama_types[] = {"mllama", NULL};
static const char *const mllama_archs[] = {"MllamaForConditionalGeneration", NULL};
static const char *const mllama_keys[] = {"text_config",
                                          "vision_config",
                                          "num_hidden_layers",
                                          "hidden_size",
                                          "num_attention_heads",
                                          "num_key_value_heads",
                                          "intermediate_size",
                                          "vocab_size",
                                          "cross_attention_layers",
                                          "num_global_layers",
                                          "attention_heads",
                                          "vision_output_dim",
                                          "image_size",
                                          "patch_size",
                                          "max_num_tiles",
                                          "supported_aspect_ratios",
                                          NULL};
const vs_family vs_family_mllama = {"mllama",     mllama_types, mllama_archs,  mllama_keys,
                                    mllama_parse, mllama_kv,    mllama_tensors};
