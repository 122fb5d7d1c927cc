/* Mistral 3 (Mistral Small 3.1 / 3.2): a Pixtral vision tower (2D RoPE, no
 * learned positions), a patch merger and a two-layer projector, and a Mistral
 * language model (text_config), as transformers' modeling_mistral3.py and
 * modeling_pixtral.py build them and the checkpoint names them
 * (vision_tower.*, multi_modal_projector.*, language_model.*). The language
 * model's lm_head is stored: MistralConfig does not tie it. */
#include <stdio.h>

#include "model/families/fam.h"

static int m3_parse(vs_arch *a, const json_t *cfg, vs_error *err)
{
    const json_t *tc = json_object_get(cfg, "text_config"),
                 *vc = json_object_get(cfg, "vision_config");
    const char *r = "vision_config";
    vs_arch_vision *v = &a->vision;
    int bias = 0, rc;
    if (!json_is_object(tc))
        return vs_error_set(err, VS_EFORMAT,
                            "key 'text_config' is missing (the mistral3 rule needs it)");
    a->text_fam = vs_family_find("mistral", NULL);
    if ((rc = a->text_fam->parse(a, tc, err)) || (rc = a->text_fam->kv_layout(a, tc, err)))
        return rc;
    if (!json_is_object(vc))
        return vs_error_set(err, VS_EFORMAT,
                            "key 'vision_config' is missing (the mistral3 rule needs it)");
    /* PixtralVisionConfig's defaults where a key is absent */
    if ((rc = vs_fam_dim1(vc, "num_hidden_layers", 0, 24, &v->layers, r, err)) ||
        (rc = vs_fam_dim1(vc, "hidden_size", 0, 1024, &v->hidden, r, err)) ||
        (rc = vs_fam_dim1(vc, "intermediate_size", 0, 4096, &v->intermediate, r, err)) ||
        (rc = vs_fam_dim1(vc, "num_attention_heads", 0, 16, &v->heads, r, err)) ||
        (rc = vs_fam_dim1(vc, "patch_size", 0, 16, &v->patch, r, err)) ||
        (rc = vs_fam_dim1(vc, "num_channels", 0, 3, &v->channels, r, err)) ||
        (rc = vs_fam_dim1(cfg, "spatial_merge_size", 0, 2, &a->mm.merge, a->rule, err)) ||
        (rc = vs_fam_bool(cfg, "multimodal_projector_bias", 0, &bias, err)))
        return rc;
    a->mm.bias = bias;
    a->has_vision = 1;
    a->text_hidden = a->hidden;
    return 0;
}

static int kv_done(vs_arch *a, const json_t *cfg, vs_error *err)
{
    (void)a;
    (void)cfg;
    (void)err;
    return 0; /* built from text_config while parsing */
}

static int m3_tensors(const vs_arch *a, vs_tensor_rule_cb cb, void *ud)
{
    const vs_arch_vision *v = &a->vision;
    uint64_t h = v->hidden, in = v->intermediate, L = v->layers, th = a->text_hidden;
    static const char *const proj[] = {"q_proj", "k_proj", "v_proj", "o_proj"};
    vs_fam_emit e;
    char w[112];
    unsigned k;
    int rc;
    if ((rc = vs_fam_prefixed(a->text_fam, a, "language_model.", cb, ud)))
        return rc;
    vs_fam_emit_init(&e, cb, ud, "");
    e.part = VS_PART_VISION;
    vs_fam_rule(&e, "vision_tower.patch_conv.weight", 0, 1, 0, 0, 4, h, v->channels, v->patch,
                v->patch);
    VS_T1(&e, "vision_tower.ln_pre.weight", h);
    VS_L1(&e, "vision_tower.transformer.layers.{L}.attention_norm.weight", 0, L, h);
    VS_L1(&e, "vision_tower.transformer.layers.{L}.ffn_norm.weight", 0, L, h);
    for (k = 0; k < 4; k++) {
        snprintf(w, sizeof w, "vision_tower.transformer.layers.{L}.attention.%s.weight", proj[k]);
        VS_L2(&e, w, 0, L, h, h);
    }
    vs_fam_gated_mlp(&e, "vision_tower.transformer.layers.{L}.feed_forward.gate_proj.weight",
                     "vision_tower.transformer.layers.{L}.feed_forward.up_proj.weight",
                     "vision_tower.transformer.layers.{L}.feed_forward.down_proj.weight", 0, L, h,
                     in, 0);
    e.part = VS_PART_PROJECTOR;
    VS_T1(&e, "multi_modal_projector.norm.weight", h);
    VS_T2(&e, "multi_modal_projector.patch_merger.merging_layer.weight", h,
          h * a->mm.merge * a->mm.merge);
    VS_T2(&e, "multi_modal_projector.linear_1.weight", th, h);
    if (a->mm.bias)
        VS_T1(&e, "multi_modal_projector.linear_1.bias", th);
    VS_T2(&e, "multi_modal_projector.linear_2.weight", th, th);
    if (a->mm.bias)
        VS_T1(&e, "multi_modal_projector.linear_2.bias", th);
    return e.rc;
}

static const char *const m3_types[] = {"mistral3", NULL};
static const char *const m3_archs[] = {"Mistral3ForConditionalGeneration", NULL};
static const char *const m3_keys[] = {"text_config",
                                      "vision_config",
                                      "num_hidden_layers",
                                      "hidden_size",
                                      "num_attention_heads",
                                      "num_key_value_heads",
                                      "head_dim",
                                      "intermediate_size",
                                      "vocab_size",
                                      "patch_size",
                                      "num_channels",
                                      "spatial_merge_size",
                                      "multimodal_projector_bias",
                                      NULL};
const vs_family vs_family_mistral3 = {"mistral3", m3_types, m3_archs,  m3_keys,
                                      m3_parse,   kv_done,  m3_tensors};
