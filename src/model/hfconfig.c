#include "model/hfconfig.h"

int vs_hfconfig_parse(vs_hfconfig *out, const char *text, size_t len, vs_error *err)
{
    return vs_arch_parse(out, text, len, err);
}

static json_t *jint(uint64_t v)
{
    return json_integer((json_int_t)v);
}

json_t *vs_hfconfig_arch_json(const vs_hfconfig *c, const char *path, json_t *kv)
{
    /* a mixture of experts' own sizes are what a LoRA on its experts trains */
    int moe = c->experts > 0;
    /* what the encoder's profiling pass runs (engine/engine_encoder.c): a vision or
     * audio tower and the projector into the language model */
    uint64_t enc = c->part_params[VS_PART_VISION] + c->part_params[VS_PART_AUDIO] +
                   c->part_params[VS_PART_PROJECTOR];
    return json_pack(
        "{s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, "
        "s:b, s:s, "
        "s:O, s:o, s:s, s:o, s:o}",
        "family", c->family, "rule", c->rule, "config", path, "layers", jint(c->layers), "hidden",
        jint(c->hidden), "heads", jint(c->heads), "kv_heads", jint(c->kv_heads), "head_dim",
        jint(c->head_dim), "intermediate", jint(c->intermediate), "vocab", jint(c->vocab),
        "experts", moe ? jint(c->experts) : json_null(), "experts_per_token",
        moe ? jint(c->experts_per_token) : json_null(), "moe_intermediate",
        moe ? jint(c->moe_intermediate) : json_null(), "shared_intermediate",
        moe ? jint(c->shared_intermediate) : json_null(), "dense_layers",
        moe ? jint(c->dense_layers) : json_null(), "params_total", jint(c->params_total),
        "params_active", moe ? jint(c->params_active) : json_null(), "tied_embeddings",
        c->tied_embeddings, "mlp", c->mlp_plain ? "plain" : "gated", "kv_layout",
        kv ? kv : json_null(), "context", c->context ? jint(c->context) : json_null(),
        "context_key", c->context_key, "rope_scaling",
        c->rope_scaling[0] ? json_string(c->rope_scaling) : json_null(), "encoder_params",
        enc ? jint(enc) : json_null());
}
