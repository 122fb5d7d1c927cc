/* LLaVA: a CLIP vision tower, a two-layer projector and a language model
 * (text_config, Llama by default), as transformers' modeling_llava.py stores
 * them (vision_tower.*, multi_modal_projector.*, language_model.*). Every
 * layer of the tower is in the checkpoint and counted, though the features
 * come from vision_feature_layer. */
#include <string.h>

#include "model/families/fam.h"

/* transformers' LlamaConfig defaults, which llava-hf's text_config relies on */
static const char llama_defaults[] =
    "{\"vocab_size\": 32000, \"hidden_size\": 4096, \"intermediate_size\": 11008, "
    "\"num_hidden_layers\": 32, \"num_attention_heads\": 32}";

/* transformers' CLIPVisionConfig defaults */
static const vs_arch_vision clip_defaults = {12, 768, 12, 3072, 32, 224, 3, 0, 0, 0, 0};

static int llava_parse(vs_arch *a, const json_t *cfg, vs_error *err)
{
    const json_t *tc = json_object_get(cfg, "text_config"),
                 *vc = json_object_get(cfg, "vision_config");
    const json_t *mt = json_object_get(tc, "model_type");
    const char *type = json_is_string(mt) ? json_string_value(mt) : "llama";
    const vs_family *f;
    char names[VS_FAMILY_NAMES_MAX];
    json_t *t;
    int rc;
    if (!json_is_object(tc))
        return vs_error_set(err, VS_EFORMAT,
                            "key 'text_config' is missing (the llava rule needs it)");
    f = vs_family_find(type, NULL);
    if (!f || f->tensors == NULL || !strcmp(type, "llava") || !strcmp(type, "mllama") ||
        !strcmp(type, "gemma3"))
        return vs_error_set(err, VS_EVALUE,
                            "text_config: no parameter rule for '%s' (rules exist for: %s)", type,
                            vs_family_names(names, sizeof names));
    t = !strcmp(type, "llama") ? vs_fam_with_defaults(tc, llama_defaults) : json_copy((json_t *)tc);
    if (!t)
        return vs_error_set(err, VS_ENOMEM, "out of memory");
    a->text_fam = f;
    if (!(rc = f->parse(a, t, err)))
        rc = f->kv_layout(a, t, err);
    json_decref(t);
    if (rc)
        return rc;
    if (!json_is_object(vc))
        return vs_error_set(err, VS_EFORMAT,
                            "key 'vision_config' is missing (the llava rule needs it)");
    if ((rc = vs_fam_vision(&a->vision, vc, &clip_defaults, err)))
        return rc;
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

static int llava_tensors(const vs_arch *a, vs_tensor_rule_cb cb, void *ud)
{
    vs_fam_emit e;
    int rc;
    if ((rc = vs_fam_prefixed(a->text_fam, a, "language_model.", cb, ud)))
        return rc;
    vs_fam_emit_init(&e, cb, ud, "");
    vs_fam_clip_tower(&e, &a->vision, "");
    e.part = VS_PART_PROJECTOR;
    VS_T2(&e, "multi_modal_projector.linear_1.weight", a->hidden, a->vision.hidden);
    VS_T1(&e, "multi_modal_projector.linear_1.bias", a->hidden);
    VS_T2(&e, "multi_modal_projector.linear_2.weight", a->hidden, a->hidden);
    VS_T1(&e, "multi_modal_projector.linear_2.bias", a->hidden);
    return e.rc;
}

static const char *const llava_types[] = {"llava", NULL};
static const char *const llava_archs[] = {"LlavaForConditionalGeneration", NULL};
static const char *const llava_keys[] = {
    "text_config", "vision_config",       "model_type",          "num_hidden_layers",
    "hidden_size", "num_attention_heads", "num_key_value_heads", "intermediate_size",
    "vocab_size",  "patch_size",          "image_size",          "num_channels",
    NULL};
const vs_family vs_family_llava = {"llava",     llava_types, llava_archs,  llava_keys,
                                   llava_parse, kv_done,     llava_tensors};
