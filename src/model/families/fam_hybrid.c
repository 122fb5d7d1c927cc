/* What the hybrid families share: the layer pattern of attention and
 * recurrent layers, and the bytes a recurrent layer keeps per sequence. */
#include <string.h>

#include "model/families/fam.h"

/* the 16-bit model dtype of vLLM's "auto" cache, and the fp32 delta-rule state */
#define STATE16 2u
#define STATE32 4u

uint64_t vs_fam_state_mamba1(vs_arch_ssm *s)
{
    s->conv_values = (s->conv - 1) * s->inner;
    s->ssm_values = s->inner * s->state;
    return (s->conv_values + s->ssm_values) * STATE16;
}

uint64_t vs_fam_state_mamba2(vs_arch_ssm *s)
{
    s->conv_values = (s->conv - 1) * (s->inner + 2 * s->groups * s->state);
    s->ssm_values = s->heads * s->head_dim * s->state;
    return (s->conv_values + s->ssm_values) * STATE16;
}

uint64_t vs_fam_state_gdn(vs_arch_ssm *s)
{
    s->conv_values =
        (s->conv - 1) * (2 * s->key_heads * s->key_dim + s->value_heads * s->value_dim);
    s->ssm_values = s->value_heads * s->key_dim * s->value_dim;
    return s->conv_values * STATE16 + s->ssm_values * STATE32;
}

int vs_fam_kv_hybrid(vs_arch *a, vs_error *err)
{
    vs_kv_group g;
    uint64_t i, n = a->layers < VS_ARCH_LAYERS_MAX ? a->layers : VS_ARCH_LAYERS_MAX;
    uint64_t nfull = 0, nchunk = 0;
    int rc = 0;
    for (i = 0; i < n; i++) {
        nfull += a->layer_kind[i] == VS_LAYER_FULL;
        nchunk += a->layer_kind[i] == VS_LAYER_CHUNKED;
    }
    memset(&a->kv, 0, sizeof a->kv);
    memset(&g, 0, sizeof g);
    g.kv_heads = a->kv_heads;
    g.head_dim = a->head_dim;
    if (nchunk) {
        g.kind = VS_KV_CHUNKED;
        g.layers = nchunk;
        g.window = a->chunk;
        rc = vs_kv_layout_add(&a->kv, &g, err);
    }
    if (!rc && nfull) {
        g.kind = VS_KV_FULL;
        g.layers = nfull;
        g.window = 0;
        rc = vs_kv_layout_add(&a->kv, &g, err);
    }
    if (!rc && a->ssm.layers) {
        memset(&g, 0, sizeof g);
        g.kind = VS_KV_STATE;
        g.layers = a->ssm.layers;
        g.state_bytes = a->ssm.state_bytes;
        g.state_conv = a->ssm.conv_values;
        g.state_ssm = a->ssm.ssm_values;
        rc = vs_kv_layout_add(&a->kv, &g, err);
    }
    return rc;
}

static int set_kind(vs_arch *a, uint64_t i, int state)
{
    if (i < VS_ARCH_LAYERS_MAX)
        a->layer_kind[i] = (unsigned char)(state ? VS_LAYER_STATE : VS_LAYER_FULL);
    a->ssm.layers += state != 0;
    return 0;
}

static int from_types(vs_arch *a, const json_t *lt, vs_error *err)
{
    uint64_t i;
    if (!json_is_array(lt) || json_array_size(lt) != a->layers)
        return vs_error_set(err, VS_EFORMAT,
                            "'layer_types' must list one type for each of the %llu layers",
                            (unsigned long long)a->layers);
    for (i = 0; i < a->layers; i++) {
        const char *t = json_string_value(json_array_get(lt, (size_t)i));
        if (t && (!strcmp(t, "full_attention") || !strcmp(t, "attention")))
            set_kind(a, i, 0);
        else if (t && (!strcmp(t, "linear_attention") || !strcmp(t, "mamba")))
            set_kind(a, i, 1);
        else
            return vs_error_set(err, VS_EFORMAT,
                                "layer_types[%llu] is '%s'; known here: full_attention, "
                                "attention, linear_attention, mamba",
                                (unsigned long long)i, t ? t : "(not a string)");
    }
    return 0;
}

int vs_fam_hybrid_pattern(vs_arch *a, const json_t *cfg, vs_error *err)
{
    const json_t *lt = json_object_get(cfg, "layer_types");
    uint64_t period = 0, offset = 0, interval = 0, i;
    int rc;
    a->ssm.layers = 0;
    if (a->layers > VS_ARCH_LAYERS_MAX)
        return vs_error_set(err, VS_EFORMAT, "hybrid layers are followed for at most %d layers",
                            VS_ARCH_LAYERS_MAX);
    if (lt && !json_is_null(lt))
        return from_types(a, lt, err);
    if (json_object_get(cfg, "attn_layer_period")) {
        /* Jamba: layer i attends when i % period == offset (modeling_jamba.py) */
        if ((rc = vs_fam_dim1(cfg, "attn_layer_period", 1, 0, &period, a->rule, err)) ||
            (rc = vs_fam_uint0(cfg, "attn_layer_offset", 0, &offset, err)))
            return rc;
        for (i = 0; i < a->layers; i++)
            set_kind(a, i, i % period != offset);
        return 0;
    }
    if ((rc = vs_fam_dim1(cfg, "full_attention_interval", 1, 0, &interval, a->rule, err)))
        return rc;
    /* Qwen3-Next: every interval-th layer (counting from 1) attends */
    for (i = 0; i < a->layers; i++)
        set_kind(a, i, (i + 1) % interval != 0);
    return 0;
}
