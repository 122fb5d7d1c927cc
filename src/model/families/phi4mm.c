/* Phi-4-multimodal (model_type phi4mm): Phi-4-mini's decoder (fused
 * qkv_proj and gate_up_proj, tied embeddings), a SigLIP vision tower with
 * its pooling head, a conformer audio encoder and, in the same checkpoint
 * beside every base projection of the decoder, two LoRA adapters (vision
 * and speech). The names are the checkpoint's (its modeling_phi4mm.py wraps
 * the four projections with peft: base_layer, lora_A.<name>, lora_B.<name>);
 * the shapes are transformers' Phi4MultimodalForCausalLM
 * (models/phi4_multimodal/modeling_phi4_multimodal.py, 5.24), which its
 * conversion script builds from this config, plus the adapters. */
#include <stdio.h>

#include "model/families/fam.h"

/* SigLIP-so400m at 448 pixels: what the checkpoint's code builds when
 * img_processor is null (Phi4MultimodalVisionConfig's defaults). */
static const vs_arch_vision siglip_defaults = {27, 1152, 16, 4304, 14, 448, 3, 0, 0, 0, 0};

static int sub_dim(const json_t *o, const char *key, uint64_t dflt, uint64_t *out, vs_error *err)
{
    return vs_fam_dim1(o, key, 0, dflt, out, "audio_processor.config", err);
}

/* audio_processor.config, with the defaults of Phi4MultimodalAudioConfig */
static int audio_parse(vs_arch_audio *u, const json_t *cfg, vs_error *err)
{
    const json_t *ap = json_object_get(cfg, "audio_processor"), *c = json_object_get(ap, "config");
    const json_t *nemo = json_object_get(c, "nemo_conv_settings"),
                 *rel = json_object_get(c, "relative_attention_bias_args"),
                 *emb = json_object_get(json_object_get(cfg, "embd_layer"), "audio_embd_layer");
    uint64_t dist;
    int rc;
    if (!json_is_object(c))
        return vs_error_set(err, VS_EFORMAT,
                            "key 'audio_processor.config' is missing (the phi4mm rule needs it)");
    if ((rc = sub_dim(c, "num_blocks", 24, &u->blocks, err)) ||
        (rc = sub_dim(c, "attention_dim", 1024, &u->hidden, err)) ||
        (rc = sub_dim(c, "attention_heads", 16, &u->heads, err)) ||
        (rc = sub_dim(c, "linear_units", 1536, &u->intermediate, err)) ||
        (rc = sub_dim(nemo, "conv_channels", 1024, &u->channels, err)) ||
        (rc = sub_dim(c, "input_size", 80, &u->input, err)) ||
        (rc = sub_dim(c, "time_reduction", 8, &u->time_reduction, err)) ||
        (rc = sub_dim(c, "kernel_size", 3, &u->kernel, err)) ||
        (rc = sub_dim(c, "ext_pw_out_channel", 1024, &u->ext_pw_out, err)) ||
        (rc = sub_dim(c, "depthwise_seperable_out_channel", 1024, &u->dw_out, err)) ||
        (rc = sub_dim(c, "depthwise_multiplier", 1, &u->dw_mult, err)) ||
        (rc = sub_dim(rel, "t5_bias_max_distance", 1000, &dist, err)) ||
        (rc = sub_dim(emb, "downsample_rate", 1, &u->downsample, err)))
        return rc;
    if (u->time_reduction < 2 || (u->time_reduction & (u->time_reduction - 1)))
        return vs_error_set(err, VS_EFORMAT,
                            "audio_processor.config: time_reduction %llu is not a power of two",
                            (unsigned long long)u->time_reduction);
    if (u->heads == 0 || u->hidden % u->heads)
        return vs_error_set(err, VS_EFORMAT,
                            "audio_processor.config: attention_dim is not a multiple of "
                            "attention_heads");
    /* symmetric is false in the checkpoint's relative bias: 2 x max distance */
    u->bias_buckets = 2 * dist;
    return 0;
}

static int lora_rank(const json_t *cfg, const char *key, uint64_t *out, vs_error *err)
{
    const json_t *l = json_object_get(cfg, key);
    *out = 0;
    if (!l || json_is_null(l))
        return 0;
    if (!json_is_object(l))
        return vs_error_set(err, VS_EFORMAT, "'%s' must be an object or null", key);
    return vs_fam_uint0(l, "r", 0, out, err);
}

static int phi4mm_parse(vs_arch *a, const json_t *cfg, vs_error *err)
{
    const json_t *ip = json_object_get(cfg, "img_processor");
    int rc;
    if ((rc = vs_fam_llama_dims(a, cfg, 1, err)) || (rc = audio_parse(&a->audio, cfg, err)) ||
        (rc = lora_rank(cfg, "vision_lora", &a->audio.lora_rank[0], err)) ||
        (rc = lora_rank(cfg, "speech_lora", &a->audio.lora_rank[1], err)))
        return rc;
    if (json_is_object(ip)) {
        if ((rc = vs_fam_vision(&a->vision, ip, &siglip_defaults, err)))
            return rc;
    } else
        a->vision = siglip_defaults;
    a->has_vision = 1;
    a->text_hidden = a->hidden;
    return 0;
}

/* sliding_window (262,144) is past the context (131,072): every layer is full
 * attention, as transformers' Phi4MultimodalConfig (no window) keeps it */
static int phi4mm_kv(vs_arch *a, const json_t *cfg, vs_error *err)
{
    return vs_fam_kv_decoder(a, cfg, -1, err);
}

/* a base projection and its adapters: lora_A [r, in], lora_B [out, r] */
static void adapted(vs_fam_emit *e, const vs_arch *a, const char *proj, uint64_t out, uint64_t in)
{
    static const char *const names[2] = {"vision", "speech"};
    char pat[128];
    unsigned k;
    snprintf(pat, sizeof pat, "model.layers.{L}.%s.base_layer.weight", proj);
    e->part = VS_PART_TEXT;
    VS_L2(e, pat, 0, a->layers, out, in);
    e->part = VS_PART_ADAPTER;
    for (k = 0; k < 2; k++) {
        uint64_t r = a->audio.lora_rank[k];
        if (!r)
            continue;
        snprintf(pat, sizeof pat, "model.layers.{L}.%s.lora_A.%s.weight", proj, names[k]);
        VS_L2(e, pat, 0, a->layers, r, in);
        snprintf(pat, sizeof pat, "model.layers.{L}.%s.lora_B.%s.weight", proj, names[k]);
        VS_L2(e, pat, 0, a->layers, out, r);
    }
    e->part = VS_PART_TEXT;
}

#define IMG "model.embed_tokens_extend.image_embed."
#define VIT IMG "img_processor."

static void linear(vs_fam_emit *e, const char *w, const char *b, uint64_t out, uint64_t in)
{
    VS_T2(e, w, out, in);
    VS_T1(e, b, out);
}

static void vision(vs_fam_emit *e, const vs_arch *a)
{
    const vs_arch_vision *v = &a->vision;
    uint64_t d = v->hidden, i = v->intermediate, n = v->layers, side = v->image_size / v->patch;
    e->part = VS_PART_VISION;
    vs_fam_rule(e, VIT "embeddings.patch_embedding.weight", 0, 1, 0, 0, 4, d, v->channels, v->patch,
                v->patch);
    VS_T1(e, VIT "embeddings.patch_embedding.bias", d);
    VS_T2(e, VIT "embeddings.position_embedding.weight", side * side, d);
    VS_L1(e, VIT "encoder.layers.{L}.layer_norm1.weight", 0, n, d);
    VS_L1(e, VIT "encoder.layers.{L}.layer_norm1.bias", 0, n, d);
    VS_L2(e, VIT "encoder.layers.{L}.self_attn.k_proj.weight", 0, n, d, d);
    VS_L1(e, VIT "encoder.layers.{L}.self_attn.k_proj.bias", 0, n, d);
    VS_L2(e, VIT "encoder.layers.{L}.self_attn.v_proj.weight", 0, n, d, d);
    VS_L1(e, VIT "encoder.layers.{L}.self_attn.v_proj.bias", 0, n, d);
    VS_L2(e, VIT "encoder.layers.{L}.self_attn.q_proj.weight", 0, n, d, d);
    VS_L1(e, VIT "encoder.layers.{L}.self_attn.q_proj.bias", 0, n, d);
    VS_L2(e, VIT "encoder.layers.{L}.self_attn.out_proj.weight", 0, n, d, d);
    VS_L1(e, VIT "encoder.layers.{L}.self_attn.out_proj.bias", 0, n, d);
    VS_L1(e, VIT "encoder.layers.{L}.layer_norm2.weight", 0, n, d);
    VS_L1(e, VIT "encoder.layers.{L}.layer_norm2.bias", 0, n, d);
    VS_L2(e, VIT "encoder.layers.{L}.mlp.fc1.weight", 0, n, i, d);
    VS_L1(e, VIT "encoder.layers.{L}.mlp.fc1.bias", 0, n, i);
    VS_L2(e, VIT "encoder.layers.{L}.mlp.fc2.weight", 0, n, d, i);
    VS_L1(e, VIT "encoder.layers.{L}.mlp.fc2.bias", 0, n, d);
    VS_T1(e, VIT "post_layernorm.weight", d);
    VS_T1(e, VIT "post_layernorm.bias", d);
    /* the attention-pooling head: stored and loaded, though the features
     * come from a layer below it */
    vs_fam_rule(e, VIT "head.probe", 0, 1, 0, 0, 3, 1, 1, d, 0);
    linear(e, VIT "head.attention.in_proj_weight", VIT "head.attention.in_proj_bias", 3 * d, d);
    linear(e, VIT "head.attention.out_proj.weight", VIT "head.attention.out_proj.bias", d, d);
    VS_T1(e, VIT "head.layernorm.weight", d);
    VS_T1(e, VIT "head.layernorm.bias", d);
    linear(e, VIT "head.mlp.fc1.weight", VIT "head.mlp.fc1.bias", i, d);
    linear(e, VIT "head.mlp.fc2.weight", VIT "head.mlp.fc2.bias", d, i);
    /* the separators between crops and the two-layer projector */
    e->part = VS_PART_PROJECTOR;
    vs_fam_rule(e, IMG "global_img_feature_extensor", 0, 1, 0, 0, 3, 1, 1, d, 0);
    vs_fam_rule(e, IMG "sub_img_feature_extensor", 0, 1, 0, 0, 4, 1, 1, 1, d);
    linear(e, IMG "img_projection_up.weight", IMG "img_projection_up.bias", a->hidden, d);
    linear(e, IMG "img_projection_down.weight", IMG "img_projection_down.bias", a->hidden,
           a->hidden);
    e->part = VS_PART_TEXT;
}

#define AUD "model.embed_tokens_extend.audio_embed."
#define ENC AUD "encoder."
#define BLK ENC "encoders.{L}."

/* a per-block linear with its bias */
static void blinear(vs_fam_emit *e, const char *w, const char *b, uint64_t n, uint64_t out,
                    uint64_t in)
{
    VS_L2(e, w, 0, n, out, in);
    VS_L1(e, b, 0, n, out);
}

static void audio(vs_fam_emit *e, const vs_arch *a)
{
    const vs_arch_audio *u = &a->audio;
    uint64_t d = u->hidden, ff = u->intermediate, c = u->channels, n = u->blocks;
    uint64_t freq = u->input, stages = 0, t, s;
    char w[96], b[96];
    for (t = u->time_reduction; t > 1; t >>= 1)
        stages++;
    e->part = VS_PART_AUDIO;
    /* the subsampling: a 3x3 convolution, then per further stage a depthwise
     * 3x3 and a pointwise convolution, each halving the mel axis */
    vs_fam_rule(e, ENC "embed.conv.0.weight", 0, 1, 0, 0, 4, c, 1, 3, 3);
    VS_T1(e, ENC "embed.conv.0.bias", c);
    for (s = 1; s < stages; s++) {
        snprintf(w, sizeof w, ENC "embed.conv.%llu.weight", (unsigned long long)(3 * s - 1));
        snprintf(b, sizeof b, ENC "embed.conv.%llu.bias", (unsigned long long)(3 * s - 1));
        vs_fam_rule(e, w, 0, 1, 0, 0, 4, c, 1, 3, 3);
        VS_T1(e, b, c);
        snprintf(w, sizeof w, ENC "embed.conv.%llu.weight", (unsigned long long)(3 * s));
        snprintf(b, sizeof b, ENC "embed.conv.%llu.bias", (unsigned long long)(3 * s));
        vs_fam_rule(e, w, 0, 1, 0, 0, 4, c, c, 1, 1);
        VS_T1(e, b, c);
    }
    for (s = 0; s < stages; s++)
        freq = (freq - 1) / 2 + 1;
    linear(e, ENC "embed.out.weight", ENC "embed.out.bias", d, c * freq);
    VS_T2(e, ENC "relative_attention_bias_layer.bias_values.weight", u->bias_buckets, u->heads);
    /* each conformer block: two half-step feed-forwards, attention, the
     * convolution module, two norms */
    VS_L1(e, BLK "feed_forward_in.layer_norm.weight", 0, n, d);
    VS_L1(e, BLK "feed_forward_in.layer_norm.bias", 0, n, d);
    blinear(e, BLK "feed_forward_in.net.0.linear.weight", BLK "feed_forward_in.net.0.linear.bias",
            n, 2 * ff, d);
    blinear(e, BLK "feed_forward_in.net.2.weight", BLK "feed_forward_in.net.2.bias", n, d, ff);
    blinear(e, BLK "self_attn.linear_q.weight", BLK "self_attn.linear_q.bias", n, d, d);
    blinear(e, BLK "self_attn.linear_k.weight", BLK "self_attn.linear_k.bias", n, d, d);
    blinear(e, BLK "self_attn.linear_v.weight", BLK "self_attn.linear_v.bias", n, d, d);
    blinear(e, BLK "self_attn.linear_out.weight", BLK "self_attn.linear_out.bias", n, d, d);
    VS_L1(e, BLK "conv.layer_norm.weight", 0, n, d);
    VS_L1(e, BLK "conv.layer_norm.bias", 0, n, d);
    vs_fam_rule(e, BLK "conv.glu.b1", 0, n, 0, 0, 3, 1, u->ext_pw_out, 1, 0);
    vs_fam_rule(e, BLK "conv.glu.b2", 0, n, 0, 0, 3, 1, u->ext_pw_out, 1, 0);
    vs_fam_rule(e, BLK "conv.glu.ext_pw_conv_1d.weight", 0, n, 0, 0, 3, 2 * u->ext_pw_out, d, 1, 0);
    VS_L1(e, BLK "conv.glu.ext_pw_conv_1d.bias", 0, n, 2 * u->ext_pw_out);
    vs_fam_rule(e, BLK "conv.dw_sep_conv_1d.dw_conv.weight", 0, n, 0, 0, 3, d * u->dw_mult, 1,
                u->kernel, 0);
    VS_L1(e, BLK "conv.dw_sep_conv_1d.dw_conv.bias", 0, n, d * u->dw_mult);
    vs_fam_rule(e, BLK "conv.dw_sep_conv_1d.pw_conv.weight", 0, n, 0, 0, 3, u->dw_out,
                d * u->dw_mult, 1, 0);
    VS_L1(e, BLK "conv.dw_sep_conv_1d.pw_conv.bias", 0, n, u->dw_out);
    vs_fam_rule(e, BLK "conv.ext_pw_conv_1d.weight", 0, n, 0, 0, 3, d, u->ext_pw_out, 1, 0);
    VS_L1(e, BLK "conv.ext_pw_conv_1d.bias", 0, n, d);
    VS_L1(e, BLK "feed_forward_out.layer_norm.weight", 0, n, d);
    VS_L1(e, BLK "feed_forward_out.layer_norm.bias", 0, n, d);
    blinear(e, BLK "feed_forward_out.net.0.linear.weight", BLK "feed_forward_out.net.0.linear.bias",
            n, 2 * ff, d);
    blinear(e, BLK "feed_forward_out.net.2.weight", BLK "feed_forward_out.net.2.bias", n, d, ff);
    VS_L1(e, BLK "layer_norm_att.weight", 0, n, d);
    VS_L1(e, BLK "layer_norm_att.bias", 0, n, d);
    VS_L1(e, BLK "layer_norm.weight", 0, n, d);
    VS_L1(e, BLK "layer_norm.bias", 0, n, d);
    /* two projectors into the decoder: speech alone, speech with an image */
    e->part = VS_PART_PROJECTOR;
    linear(e, AUD "up_proj_for_speech.weight", AUD "up_proj_for_speech.bias", a->hidden,
           d * u->downsample);
    linear(e, AUD "down_proj_for_speech.weight", AUD "down_proj_for_speech.bias", a->hidden,
           a->hidden);
    linear(e, AUD "up_proj_for_vision_speech.weight", AUD "up_proj_for_vision_speech.bias",
           a->hidden, d * u->downsample);
    linear(e, AUD "down_proj_for_vision_speech.weight", AUD "down_proj_for_vision_speech.bias",
           a->hidden, a->hidden);
    e->part = VS_PART_TEXT;
}

static int phi4mm_tensors(const vs_arch *a, vs_tensor_rule_cb cb, void *ud)
{
    vs_fam_emit e;
    uint64_t h = a->hidden, q = a->heads * a->head_dim, kv = a->kv_heads * a->head_dim;
    uint64_t i = a->intermediate, L = a->layers;
    vs_fam_emit_init(&e, cb, ud, "");
    vs_fam_llama_ends(&e, a);
    adapted(&e, a, "self_attn.qkv_proj", q + 2 * kv, h);
    adapted(&e, a, "self_attn.o_proj", h, q);
    adapted(&e, a, "mlp.gate_up_proj", 2 * i, h);
    adapted(&e, a, "mlp.down_proj", h, i);
    VS_L1(&e, "model.layers.{L}.input_layernorm.weight", 0, L, h);
    VS_L1(&e, "model.layers.{L}.post_attention_layernorm.weight", 0, L, h);
    vision(&e, a);
    audio(&e, a);
    return e.rc;
}

static const char *const phi4mm_types[] = {"phi4mm", NULL};
static const char *const phi4mm_archs[] = {"Phi4MMForCausalLM", NULL};
static const char *const phi4mm_keys[] = {"num_hidden_layers",
                                          "hidden_size",
                                          "num_attention_heads",
                                          "num_key_value_heads",
                                          "intermediate_size",
                                          "vocab_size",
                                          "tie_word_embeddings",
                                          "img_processor",
                                          "embd_layer",
                                          "audio_processor",
                                          "vision_lora",
                                          "speech_lora",
                                          NULL};
const vs_family vs_family_phi4mm = {"phi4mm",     phi4mm_types, phi4mm_archs,  phi4mm_keys,
                                    phi4mm_parse, phi4mm_kv,    phi4mm_tensors};
