/* Llama 4 (Scout, Maverick): chunked local attention with RoPE on three of
 * four layers and global attention without RoPE on the fourth, mixtures of
 * experts with a shared expert (every layer, or every interleave_moe_layer_step-th),
 * and a ViT with a pixel-shuffle adapter. Tensor names as transformers'
 * modeling_llama4.py stores them (the experts' gate and up fused in one
 * tensor per layer, as the checkpoint has them). */
#include <string.h>

#include "model/families/fam.h"

static int text_parse(vs_arch *a, const json_t *tc, vs_error *err)
{
    const json_t *moe = json_object_get(tc, "moe_layers"),
                 *nr = json_object_get(tc, "no_rope_layers");
    uint64_t step = 1, interval = 4, i;
    size_t k;
    int rc;
    if ((rc = vs_fam_llama_dims(a, tc, 0, err)) ||
        (rc = vs_fam_dim1(tc, "num_local_experts", 1, 0, &a->experts, a->rule, err)) ||
        (rc = vs_fam_dim1(tc, "num_experts_per_tok", 0, 1, &a->experts_per_token, a->rule, err)) ||
        (rc = vs_fam_dim1(tc, "intermediate_size_mlp", 1, 0, &a->shared_intermediate, a->rule,
                          err)) ||
        (rc = vs_fam_dim1(tc, "interleave_moe_layer_step", 0, 1, &step, a->rule, err)) ||
        (rc = vs_fam_dim1(tc, "no_rope_layer_interval", 0, 4, &interval, a->rule, err)) ||
        (rc = vs_fam_dim1(tc, "attention_chunk_size", 1, 0, &a->chunk, a->rule, err)))
        return rc;
    if (a->layers > VS_ARCH_LAYERS_MAX)
        return vs_error_set(err, VS_EFORMAT, "llama4 layers are followed for at most %d layers",
                            VS_ARCH_LAYERS_MAX);
    /* the MoE layers: moe_layers, else every step-th (configuration_llama4.py) */
    a->moe_intermediate = a->intermediate;
    for (i = 0; i < a->layers; i++)
        a->layer_dense[i] = (i + 1) % step != 0;
    if (json_is_array(moe)) {
        memset(a->layer_dense, 1, (size_t)a->layers);
        for (k = 0; k < json_array_size(moe); k++) {
            json_t *v = json_array_get(moe, k);
            if (!json_is_integer(v) || json_integer_value(v) < 0 ||
                (uint64_t)json_integer_value(v) >= a->layers)
                return vs_error_set(err, VS_EFORMAT, "moe_layers[%zu] is not a layer below %llu", k,
                                    (unsigned long long)a->layers);
            a->layer_dense[json_integer_value(v)] = 0;
        }
    }
    /* no_rope_layers[i] = 1: RoPE and chunked attention; 0: global, no RoPE */
    if (json_is_array(nr) && json_array_size(nr) > 0 && json_array_size(nr) != a->layers)
        return vs_error_set(err, VS_EFORMAT, "'no_rope_layers' must list each of the %llu layers",
                            (unsigned long long)a->layers);
    for (i = 0; i < a->layers; i++) {
        int rope = json_array_size(nr) ? json_is_true(json_array_get(nr, (size_t)i)) ||
                                             json_integer_value(json_array_get(nr, (size_t)i)) != 0
                                       : (i + 1) % interval != 0;
        a->layer_kind[i] = (unsigned char)(rope ? VS_LAYER_CHUNKED : VS_LAYER_FULL);
    }
    a->shared_experts = 1;
    return 0;
}

static int l4_parse(vs_arch *a, const json_t *cfg, vs_error *err)
{
    const json_t *tc = json_object_get(cfg, "text_config"),
                 *vc = json_object_get(cfg, "vision_config");
    const char *r = "llama4 vision_config";
    int rc;
    if (!json_is_object(tc)) /* Llama4ForCausalLM: the text model alone */
        return text_parse(a, cfg, err);
    if ((rc = text_parse(a, tc, err)))
        return rc;
    if (!json_is_object(vc))
        return vs_error_set(err, VS_EFORMAT,
                            "key 'vision_config' is missing (the llama4 rule needs it)");
    if ((rc = vs_fam_dim1(vc, "num_hidden_layers", 1, 0, &a->vision.layers, r, err)) ||
        (rc = vs_fam_dim1(vc, "hidden_size", 1, 0, &a->vision.hidden, r, err)) ||
        (rc = vs_fam_dim1(vc, "intermediate_size", 1, 0, &a->vision.intermediate, r, err)) ||
        (rc = vs_fam_dim1(vc, "patch_size", 1, 0, &a->vision.patch, r, err)) ||
        (rc = vs_fam_dim1(vc, "image_size", 1, 0, &a->vision.image_size, r, err)) ||
        (rc = vs_fam_dim1(vc, "num_channels", 0, 3, &a->vision.channels, r, err)) ||
        (rc = vs_fam_dim1(vc, "vision_output_dim", 1, 0, &a->vision.output_dim, r, err)) ||
        (rc = vs_fam_dim1(vc, "projector_input_dim", 1, 0, &a->mm.proj_in, r, err)) ||
        (rc = vs_fam_dim1(vc, "projector_output_dim", 1, 0, &a->mm.proj_out, r, err)))
        return rc;
    a->has_vision = 1;
    a->text_hidden = a->hidden;
    return 0;
}

static int l4_kv(vs_arch *a, const json_t *cfg, vs_error *err)
{
    (void)cfg;
    return vs_fam_kv_hybrid(a, err);
}

static void moe_layers(vs_fam_emit *e, const vs_arch *a, uint64_t l0, uint64_t n)
{
    uint64_t h = a->hidden, i = a->intermediate, E = a->experts;
    VS_L2(e, "model.layers.{L}.feed_forward.router.weight", l0, n, E, h);
    vs_fam_rule(e, "model.layers.{L}.feed_forward.experts.gate_up_proj", l0, n, 0, E, 3, E, h,
                2 * i, 0);
    vs_fam_rule(e, "model.layers.{L}.feed_forward.experts.down_proj", l0, n, 0, E, 3, E, i, h, 0);
    vs_fam_gated_mlp(e, "model.layers.{L}.feed_forward.shared_expert.gate_proj.weight",
                     "model.layers.{L}.feed_forward.shared_expert.up_proj.weight",
                     "model.layers.{L}.feed_forward.shared_expert.down_proj.weight", l0, n, h, i,
                     0);
}

static int text_tensors(const vs_arch *a, vs_tensor_rule_cb cb, void *ud, const char *prefix)
{
    vs_fam_emit e;
    vs_fam_emit_init(&e, cb, ud, prefix);
    vs_fam_llama_ends(&e, a);
    vs_fam_llama_attn(&e, a, 0, a->layers); /* its q/k norms hold no weights */
    VS_FAM_RUNS(a, layer_dense, 0, moe_layers(&e, a, l0, n));
    VS_FAM_RUNS(a, layer_dense, 1,
                vs_fam_gated_mlp(&e, "model.layers.{L}.feed_forward.gate_proj.weight",
                                 "model.layers.{L}.feed_forward.up_proj.weight",
                                 "model.layers.{L}.feed_forward.down_proj.weight", l0, n, a->hidden,
                                 a->shared_intermediate, 0));
    return e.rc;
}

static void vision(vs_fam_emit *e, const vs_arch *a)
{
    const vs_arch_vision *v = &a->vision;
    uint64_t h = v->hidden, in = v->intermediate, L = v->layers, g = v->image_size / v->patch;
    static const char *const proj[] = {"q_proj", "k_proj", "v_proj", "o_proj"};
    char w[96], b[96];
    unsigned k;
    e->part = VS_PART_VISION;
    VS_T1(e, "vision_model.class_embedding", h);
    VS_T2(e, "vision_model.positional_embedding_vlm", g * g + 1, h);
    VS_T2(e, "vision_model.patch_embedding.linear.weight", h, v->channels * v->patch * v->patch);
    VS_T1(e, "vision_model.layernorm_pre.weight", h);
    VS_T1(e, "vision_model.layernorm_pre.bias", h);
    VS_T1(e, "vision_model.layernorm_post.weight", h);
    VS_T1(e, "vision_model.layernorm_post.bias", h);
    for (k = 0; k < 4; k++) {
        snprintf(w, sizeof w, "vision_model.model.layers.{L}.self_attn.%s.weight", proj[k]);
        snprintf(b, sizeof b, "vision_model.model.layers.{L}.self_attn.%s.bias", proj[k]);
        VS_L2(e, w, 0, L, h, h);
        VS_L1(e, b, 0, L, h);
    }
    VS_L2(e, "vision_model.model.layers.{L}.mlp.fc1.weight", 0, L, in, h);
    VS_L1(e, "vision_model.model.layers.{L}.mlp.fc1.bias", 0, L, in);
    VS_L2(e, "vision_model.model.layers.{L}.mlp.fc2.weight", 0, L, h, in);
    VS_L1(e, "vision_model.model.layers.{L}.mlp.fc2.bias", 0, L, h);
    VS_L1(e, "vision_model.model.layers.{L}.input_layernorm.weight", 0, L, h);
    VS_L1(e, "vision_model.model.layers.{L}.input_layernorm.bias", 0, L, h);
    VS_L1(e, "vision_model.model.layers.{L}.post_attention_layernorm.weight", 0, L, h);
    VS_L1(e, "vision_model.model.layers.{L}.post_attention_layernorm.bias", 0, L, h);
    /* the pixel-shuffle adapter and the projector into the language model */
    e->part = VS_PART_PROJECTOR;
    VS_T2(e, "vision_model.vision_adapter.mlp.fc1.weight", a->mm.proj_in, in);
    VS_T2(e, "vision_model.vision_adapter.mlp.fc2.weight", a->mm.proj_out, a->mm.proj_out);
    VS_T2(e, "multi_modal_projector.linear_1.weight", a->text_hidden, v->output_dim);
}

static int l4_tensors(const vs_arch *a, vs_tensor_rule_cb cb, void *ud)
{
    vs_fam_emit e;
    int rc;
    if (!a->has_vision)
        return text_tensors(a, cb, ud, "");
    if ((rc = text_tensors(a, cb, ud, "language_model.")))
        return rc;
    vs_fam_emit_init(&e, cb, ud, "");
    vision(&e, a);
    return e.rc;
}

static const char *const l4_types[] = {"llama4", "llama4_text", NULL};
static const char *const l4_archs[] = {"Llama4ForConditionalGeneration", "Llama4ForCausalLM", NULL};
static const char *const l4_keys[] = {"text_config",
                                      "vision_config",
                                      "num_hidden_layers",
                                      "hidden_size",
                                      "num_attention_heads",
                                      "num_key_value_heads",
                                      "head_dim",
                                      "intermediate_size",
                                      "intermediate_size_mlp",
                                      "vocab_size",
                                      "tie_word_embeddings",
                                      "num_local_experts",
                                      "num_experts_per_tok",
                                      "interleave_moe_layer_step",
                                      "moe_layers",
                                      "no_rope_layers",
                                      "no_rope_layer_interval",
                                      "attention_chunk_size",
                                      "image_size",
                                      "patch_size",
                                      "vision_output_dim",
                                      "projector_input_dim",
                                      "projector_output_dim",
                                      NULL};
const vs_family vs_family_llama4 = {"llama4", l4_types, l4_archs,  l4_keys,
                                    l4_parse, l4_kv,    l4_tensors};
