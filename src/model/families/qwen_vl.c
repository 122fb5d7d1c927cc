/* Qwen2.5-VL, Qwen3-VL and Qwen3-VL-MoE: a ViT over (temporal x spatial)
 * patches, a patch merger into the language model (and, in Qwen3-VL,
 * deepstack mergers feeding three of its layers), and a Qwen2 / Qwen3 /
 * Qwen3-MoE language model, as transformers' modeling_qwen2_5_vl.py,
 * modeling_qwen3_vl.py and modeling_qwen3_vl_moe.py build them and the
 * checkpoints name them (Qwen2.5-VL: visual.*, model.*; Qwen3-VL:
 * model.visual.*, model.language_model.*). The vision tower keeps no KV. */
#include <stdio.h>
#include <string.h>

#include "model/families/fam.h"

enum { QWEN25 = 1, QWEN3 = 2 };

static int vision_dims(vs_arch *a, const json_t *vc, vs_error *err)
{
    const char *r = "vision_config";
    vs_arch_vision *v = &a->vision;
    static const char *const chans[] = {"in_chans", "in_channels", NULL};
    int rc;
    if (!json_is_object(vc))
        return vs_error_set(err, VS_EFORMAT,
                            "key 'vision_config' is missing (the %s rule needs it)", a->family);
    if ((rc = vs_fam_dim1(vc, "depth", 1, 0, &v->layers, r, err)) ||
        (rc = vs_fam_dim1(vc, "hidden_size", 1, 0, &v->hidden, r, err)) ||
        (rc = vs_fam_dim1(vc, "intermediate_size", 1, 0, &v->intermediate, r, err)) ||
        (rc = vs_fam_dim1(vc, "num_heads", 1, 0, &v->heads, r, err)) ||
        (rc = vs_fam_dim1(vc, "patch_size", 1, 0, &v->patch, r, err)) ||
        (rc = vs_fam_dim(vc, chans, 0, 3, &v->channels, r, err)) ||
        (rc = vs_fam_dim1(vc, "temporal_patch_size", 0, 2, &a->mm.temporal_patch, r, err)) ||
        (rc = vs_fam_dim1(vc, "spatial_merge_size", 0, 2, &a->mm.merge, r, err)) ||
        (rc = vs_fam_dim1(vc, "out_hidden_size", 1, 0, &a->mm.out_hidden, r, err)))
        return rc;
    if (a->flags & QWEN3) {
        const json_t *ds = json_object_get(vc, "deepstack_visual_indexes");
        if ((rc = vs_fam_dim1(vc, "num_position_embeddings", 1, 0, &a->mm.pos_embeds, r, err)))
            return rc;
        a->mm.deepstack = json_is_array(ds) ? json_array_size(ds) : 0;
    }
    a->has_vision = 1;
    return 0;
}

static int vl_parse(vs_arch *a, const json_t *cfg, const char *text_type, unsigned which,
                    vs_error *err)
{
    const json_t *tc = json_object_get(cfg, "text_config");
    const vs_family *f = vs_family_find(text_type, NULL);
    unsigned flags;
    int rc;
    /* Qwen2.5-VL's published configs keep the language model's keys at the top */
    if (!json_is_object(tc))
        tc = cfg;
    a->text_fam = f;
    if ((rc = f->parse(a, tc, err)) || (rc = f->kv_layout(a, tc, err)))
        return rc;
    flags = a->flags;
    a->flags = which;
    rc = vision_dims(a, json_object_get(cfg, "vision_config"), err);
    a->flags = flags | (which << 8);
    a->text_hidden = a->hidden;
    return rc;
}

static int q25_parse(vs_arch *a, const json_t *cfg, vs_error *err)
{
    return vl_parse(a, cfg, "qwen2", QWEN25, err);
}

static int q3_parse(vs_arch *a, const json_t *cfg, vs_error *err)
{
    return vl_parse(a, cfg, "qwen3", QWEN3, err);
}

static int q3moe_parse(vs_arch *a, const json_t *cfg, vs_error *err)
{
    return vl_parse(a, cfg, "qwen3_moe", QWEN3, err);
}

static int q35_parse(vs_arch *a, const json_t *cfg, vs_error *err)
{
    return vl_parse(a, cfg, "qwen3_5_text", QWEN3, err);
}

static int q35moe_parse(vs_arch *a, const json_t *cfg, vs_error *err)
{
    return vl_parse(a, cfg, "qwen3_5_moe_text", QWEN3, err);
}

static int kv_done(vs_arch *a, const json_t *cfg, vs_error *err)
{
    (void)a;
    (void)cfg;
    (void)err;
    return 0; /* built from the language model's keys while parsing */
}

/* A linear layer with its bias, under stem ("...blocks.{L}.attn.qkv"). */
static void linear(vs_fam_emit *e, const char *pre, const char *stem, uint64_t L, uint64_t out,
                   uint64_t in)
{
    char w[128], b[128];
    snprintf(w, sizeof w, "%s%s.weight", pre, stem);
    snprintf(b, sizeof b, "%s%s.bias", pre, stem);
    VS_L2(e, w, 0, L, out, in);
    VS_L1(e, b, 0, L, out);
}

static void norm(vs_fam_emit *e, const char *pre, const char *stem, uint64_t L, uint64_t n,
                 int bias)
{
    char w[128], b[128];
    snprintf(w, sizeof w, "%s%s.weight", pre, stem);
    snprintf(b, sizeof b, "%s%s.bias", pre, stem);
    VS_L1(e, w, 0, L, n);
    if (bias)
        VS_L1(e, b, 0, L, n);
}

static void vision(vs_fam_emit *e, const vs_arch *a, const char *pre)
{
    const vs_arch_vision *v = &a->vision;
    uint64_t h = v->hidden, in = v->intermediate, L = v->layers, m = h * a->mm.merge * a->mm.merge;
    int q3 = (a->flags >> 8) & QWEN3;
    char name[128];
    uint64_t k;
    e->part = VS_PART_VISION;
    /* a Conv3d of [hidden, channels, temporal, patch, patch]: channels x
     * temporal kept in one dimension (the rule holds four) */
    snprintf(name, sizeof name, "%spatch_embed.proj.weight", pre);
    vs_fam_rule(e, name, 0, 1, 0, 0, 4, h, v->channels * a->mm.temporal_patch, v->patch, v->patch);
    if (q3) {
        snprintf(name, sizeof name, "%spatch_embed.proj.bias", pre);
        VS_T1(e, name, h);
        snprintf(name, sizeof name, "%spos_embed.weight", pre);
        VS_T2(e, name, a->mm.pos_embeds, h);
    }
    norm(e, pre, "blocks.{L}.norm1", L, h, q3);
    norm(e, pre, "blocks.{L}.norm2", L, h, q3);
    linear(e, pre, "blocks.{L}.attn.qkv", L, 3 * h, h);
    linear(e, pre, "blocks.{L}.attn.proj", L, h, h);
    if (q3) {
        linear(e, pre, "blocks.{L}.mlp.linear_fc1", L, in, h);
        linear(e, pre, "blocks.{L}.mlp.linear_fc2", L, h, in);
    } else {
        linear(e, pre, "blocks.{L}.mlp.gate_proj", L, in, h);
        linear(e, pre, "blocks.{L}.mlp.up_proj", L, in, h);
        linear(e, pre, "blocks.{L}.mlp.down_proj", L, h, in);
    }
    e->part = VS_PART_PROJECTOR;
    if (!q3) {
        norm(e, pre, "merger.ln_q", 1, h, 0);
        linear(e, pre, "merger.mlp.0", 1, m, m);
        linear(e, pre, "merger.mlp.2", 1, a->mm.out_hidden, m);
        return;
    }
    norm(e, pre, "merger.norm", 1, h, 1);
    linear(e, pre, "merger.linear_fc1", 1, m, m);
    linear(e, pre, "merger.linear_fc2", 1, a->mm.out_hidden, m);
    for (k = 0; k < a->mm.deepstack; k++) {
        char stem[64];
        /* the deepstack mergers normalise after the shuffle: over m values */
        snprintf(stem, sizeof stem, "deepstack_merger_list.%llu.norm", (unsigned long long)k);
        norm(e, pre, stem, 1, m, 1);
        snprintf(stem, sizeof stem, "deepstack_merger_list.%llu.linear_fc1", (unsigned long long)k);
        linear(e, pre, stem, 1, m, m);
        snprintf(stem, sizeof stem, "deepstack_merger_list.%llu.linear_fc2", (unsigned long long)k);
        linear(e, pre, stem, 1, a->mm.out_hidden, m);
    }
}

/* Qwen3-VL names the language model model.language_model.*: "model." of
 * the text family's names becomes that, lm_head.weight stays. */
typedef struct renamer {
    vs_tensor_rule_cb cb;
    void *ud;
} renamer;

static int rename_rule(void *ud, const vs_tensor_rule *r)
{
    renamer *x = ud;
    vs_tensor_rule c = *r;
    char buf[160];
    if (!strncmp(r->pattern, "model.", 6)) {
        snprintf(buf, sizeof buf, "model.language_model.%s", r->pattern + 6);
        c.pattern = buf;
    }
    return x->cb(x->ud, &c);
}

static int vl_tensors(const vs_arch *a, vs_tensor_rule_cb cb, void *ud)
{
    vs_fam_emit e;
    int q3 = (a->flags >> 8) & QWEN3, rc;
    vs_arch t = *a;
    renamer x = {cb, ud};
    t.flags = a->flags & 0xff; /* the language model's own options */
    rc = q3 ? a->text_fam->tensors(&t, rename_rule, &x) : a->text_fam->tensors(&t, cb, ud);
    if (rc)
        return rc;
    vs_fam_emit_init(&e, cb, ud, "");
    vision(&e, a, q3 ? "model.visual." : "visual.");
    return e.rc;
}

#define VL_KEYS                                                                                    \
    "text_config", "vision_config", "num_hidden_layers", "hidden_size", "num_attention_heads",     \
        "num_key_value_heads", "head_dim", "intermediate_size", "vocab_size",                      \
        "tie_word_embeddings", "depth", "num_heads", "patch_size", "temporal_patch_size",          \
        "spatial_merge_size", "out_hidden_size", "in_chans", "in_channels"

static const char *const q25_types[] = {"qwen2_5_vl", NULL};
static const char *const q25_archs[] = {"Qwen2_5_VLForConditionalGeneration", NULL};
static const char *const q25_keys[] = {VL_KEYS, "use_sliding_window", "sliding_window",
                                       "max_window_layers", NULL};
const vs_family vs_family_qwen2_5_vl = {"qwen2_5_vl", q25_types, q25_archs, q25_keys,
                                        q25_parse,    kv_done,   vl_tensors};

static const char *const q3_types[] = {"qwen3_vl", NULL};
static const char *const q3_archs[] = {"Qwen3VLForConditionalGeneration", NULL};
static const char *const q3_keys[] = {VL_KEYS, "num_position_embeddings",
                                      "deepstack_visual_indexes", NULL};
const vs_family vs_family_qwen3_vl = {"qwen3_vl", q3_types, q3_archs,  q3_keys,
                                      q3_parse,   kv_done,  vl_tensors};

static const char *const q3moe_types[] = {"qwen3_vl_moe", NULL};
static const char *const q3moe_archs[] = {"Qwen3VLMoeForConditionalGeneration", NULL};
static const char *const q3moe_keys[] = {VL_KEYS,
                                         "num_position_embeddings",
                                         "deepstack_visual_indexes",
                                         "num_experts",
                                         "num_experts_per_tok",
                                         "moe_intermediate_size",
                                         "decoder_sparse_step",
                                         "mlp_only_layers",
                                         NULL};
const vs_family vs_family_qwen3_vl_moe = {"qwen3_vl_moe", q3moe_types, q3moe_archs, q3moe_keys,
                                          q3moe_parse,    kv_done,     vl_tensors};

/* Qwen3.5: Qwen3-VL's tower (no deepstack mergers unless listed) over a
 * Qwen3.5 language model of gated delta nets and gated attention. */
static const char *const q35_types[] = {"qwen3_5", NULL};
static const char *const q35_archs[] = {"Qwen3_5ForConditionalGeneration", NULL};
static const char *const q35_keys[] = {VL_KEYS,
                                       "num_position_embeddings",
                                       "deepstack_visual_indexes",
                                       "layer_types",
                                       "full_attention_interval",
                                       "linear_num_key_heads",
                                       "linear_key_head_dim",
                                       "linear_num_value_heads",
                                       "linear_value_head_dim",
                                       "linear_conv_kernel_dim",
                                       NULL};
const vs_family vs_family_qwen3_5 = {"qwen3_5", q35_types, q35_archs, q35_keys,
                                     q35_parse, kv_done,   vl_tensors};

static const char *const q35moe_types[] = {"qwen3_5_moe", NULL};
static const char *const q35moe_archs[] = {"Qwen3_5MoeForConditionalGeneration", NULL};
static const char *const q35moe_keys[] = {VL_KEYS,
                                          "num_position_embeddings",
                                          "deepstack_visual_indexes",
                                          "layer_types",
                                          "full_attention_interval",
                                          "linear_num_key_heads",
                                          "linear_key_head_dim",
                                          "linear_num_value_heads",
                                          "linear_value_head_dim",
                                          "linear_conv_kernel_dim",
                                          "num_experts",
                                          "num_experts_per_tok",
                                          "moe_intermediate_size",
                                          "shared_expert_intermediate_size",
                                          NULL};
const vs_family vs_family_qwen3_5_moe = {"qwen3_5_moe", q35moe_types, q35moe_archs, q35moe_keys,
                                         q35moe_parse,  kv_done,      vl_tensors};
