/* Gemma, Gemma 2, Gemma 3 (text) and Gemma 3 (text_config + SigLIP
 * vision_config). Tensor names as transformers' modeling_gemma.py,
 * modeling_gemma2.py and modeling_gemma3.py store them; the embeddings are
 * tied unless the config says otherwise. */
#include <string.h>

#include "model/families/fam.h"

static int gemma_tensors(const vs_arch *a, vs_tensor_rule_cb cb, void *ud)
{
    vs_fam_emit e;
    vs_fam_emit_init(&e, cb, ud, a->has_vision ? "language_model." : "");
    vs_fam_llama_ends(&e, a);
    vs_fam_llama_attn(&e, a, 0, a->layers);
    vs_fam_gated_mlp(&e, "model.layers.{L}.mlp.gate_proj.weight",
                     "model.layers.{L}.mlp.up_proj.weight", "model.layers.{L}.mlp.down_proj.weight",
                     0, a->layers, a->hidden, a->intermediate, 0);
    if (a->has_vision) {
        vs_fam_siglip_tower(&e, &a->vision, "");
        e.part = VS_PART_PROJECTOR;
        VS_T2(&e, "multi_modal_projector.mm_input_projection_weight", a->vision.hidden, a->hidden);
        VS_T1(&e, "multi_modal_projector.mm_soft_emb_norm.weight", a->vision.hidden);
    }
    return e.rc;
}

static int gemma_parse(vs_arch *a, const json_t *cfg, vs_error *err)
{
    int attn_bias = 0, rc;
    if ((rc = vs_fam_llama_dims(a, cfg, 1, err)) ||
        (rc = vs_fam_bool(cfg, "attention_bias", 0, &attn_bias, err)))
        return rc;
    a->flags = attn_bias ? VS_LL_QKV_BIAS | VS_LL_O_BIAS : 0;
    return 0;
}

static int gemma2_parse(vs_arch *a, const json_t *cfg, vs_error *err)
{
    int rc = gemma_parse(a, cfg, err);
    a->flags |= VS_LL_NORMS4;
    return rc;
}

static int gemma3_text_parse(vs_arch *a, const json_t *cfg, vs_error *err)
{
    int rc = gemma_parse(a, cfg, err);
    a->flags |= VS_LL_NORMS4 | VS_LL_QK_NORM;
    return rc;
}

static int kv_gemma(vs_arch *a, const json_t *cfg, vs_error *err)
{
    return vs_fam_kv_decoder(a, cfg, 0, err);
}

/* Gemma 2: layers alternate, the first one sliding. */
static int kv_gemma2(vs_arch *a, const json_t *cfg, vs_error *err)
{
    return vs_fam_kv_decoder(a, cfg, 2, err);
}

/* Gemma 3: five sliding layers, then one global. */
static int kv_gemma3(vs_arch *a, const json_t *cfg, vs_error *err)
{
    return vs_fam_kv_decoder(a, cfg, 6, err);
}

/* ---- Gemma 3 multimodal ---- */

/* transformers' Gemma3TextConfig defaults, which a text_config relies on */
static const char gemma3_text_defaults[] =
    "{\"vocab_size\": 262208, \"hidden_size\": 2304, \"intermediate_size\": 9216, "
    "\"num_hidden_layers\": 26, \"num_attention_heads\": 8, \"num_key_value_heads\": 4, "
    "\"head_dim\": 256, \"sliding_window\": 4096, \"sliding_window_pattern\": 6}";

/* transformers' SiglipVisionConfig defaults */
static const vs_arch_vision siglip_defaults = {12, 768, 12, 3072, 16, 224, 3, 0, 0, 0, 0};

static int gemma3_parse(vs_arch *a, const json_t *cfg, vs_error *err)
{
    const json_t *tc = json_object_get(cfg, "text_config"),
                 *vc = json_object_get(cfg, "vision_config");
    json_t *t;
    int rc;
    if (!json_is_object(tc))
        return vs_error_set(err, VS_EFORMAT,
                            "key 'text_config' is missing (the gemma3 rule needs it)");
    if (!(t = vs_fam_with_defaults(tc, gemma3_text_defaults)))
        return vs_error_set(err, VS_ENOMEM, "out of memory");
    if (!(rc = gemma3_text_parse(a, t, err)))
        rc = kv_gemma3(a, t, err);
    json_decref(t);
    if (rc)
        return rc;
    if (vc && !json_is_null(vc)) {
        if ((rc = vs_fam_vision(&a->vision, vc, &siglip_defaults, err)))
            return rc;
        a->has_vision = 1;
        a->text_hidden = a->hidden;
    }
    return 0;
}

/* The layout was built from text_config while parsing. */
static int kv_done(vs_arch *a, const json_t *cfg, vs_error *err)
{
    (void)a;
    (void)cfg;
    (void)err;
    return 0;
}

#define GEMMA_KEYS                                                                                 \
    "num_hidden_layers", "hidden_size", "num_attention_heads", "num_key_value_heads", "head_dim",  \
        "intermediate_size", "vocab_size", "tie_word_embeddings", "attention_bias", "layer_types"

static const char *const gemma_types[] = {"gemma", NULL};
static const char *const gemma_archs[] = {"GemmaForCausalLM", NULL};
static const char *const gemma_keys[] = {GEMMA_KEYS, NULL};
const vs_family vs_family_gemma = {"gemma",     gemma_types, gemma_archs,  gemma_keys,
                                   gemma_parse, kv_gemma,    gemma_tensors};

static const char *const gemma2_types[] = {"gemma2", NULL};
static const char *const gemma2_archs[] = {"Gemma2ForCausalLM", NULL};
static const char *const gemma2_keys[] = {GEMMA_KEYS, "sliding_window", NULL};
const vs_family vs_family_gemma2 = {"gemma2",     gemma2_types, gemma2_archs, gemma2_keys,
                                    gemma2_parse, kv_gemma2,    gemma_tensors};

static const char *const gemma3_text_types[] = {"gemma3_text", NULL};
static const char *const gemma3_text_archs[] = {"Gemma3ForCausalLM", NULL};
static const char *const gemma3_text_keys[] = {GEMMA_KEYS, "sliding_window",
                                               "sliding_window_pattern", NULL};
const vs_family vs_family_gemma3_text = {"gemma3_text",    gemma3_text_types, gemma3_text_archs,
                                         gemma3_text_keys, gemma3_text_parse, kv_gemma3,
                                         gemma_tensors};

static const char *const gemma3_types[] = {"gemma3", NULL};
static const char *const gemma3_archs[] = {"Gemma3ForConditionalGeneration", NULL};
static const char *const gemma3_keys[] = {"text_config",
                                          "vision_config",
                                          "num_hidden_layers",
                                          "hidden_size",
                                          "num_attention_heads",
                                          "num_key_value_heads",
                                          "head_dim",
                                          "intermediate_size",
                                          "vocab_size",
                                          "sliding_window",
                                          "sliding_window_pattern",
                                          "layer_types",
                                          "patch_size",
                                          "image_size",
                                          "num_channels",
                                          NULL};
const vs_family vs_family_gemma3 = {"gemma3",     gemma3_types, gemma3_archs, gemma3_keys,
                                    gemma3_parse, kv_done,      gemma_tensors};
