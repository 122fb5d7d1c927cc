/* T5 and mT5: an encoder-decoder. The decoder keeps its own keys and values
 * (full) and the keys and values of the encoder's tokens in every layer
 * (cross). Tensor names as transformers' modeling_t5.py stores them; one
 * relative-position bias table in the first block of each stack; gated
 * feed-forward (wi_0, wi_1) for "gated-*" feed_forward_proj (T5 v1.1, mT5). */
#include <string.h>

#include "model/families/fam.h"

enum { T5_GATED = 1 };

static int t5_parse(vs_arch *a, const json_t *cfg, vs_error *err)
{
    const json_t *ff = json_object_get(cfg, "feed_forward_proj");
    int rc;
    if ((rc = vs_fam_dim1(cfg, "num_layers", 1, 0, &a->encoder_layers, a->rule, err)) ||
        (rc = vs_fam_dim1(cfg, "num_decoder_layers", 0, a->encoder_layers, &a->layers, a->rule,
                          err)) ||
        (rc = vs_fam_dim1(cfg, "d_model", 1, 0, &a->hidden, a->rule, err)) ||
        (rc = vs_fam_dim1(cfg, "d_kv", 1, 0, &a->head_dim, a->rule, err)) ||
        (rc = vs_fam_dim1(cfg, "d_ff", 1, 0, &a->intermediate, a->rule, err)) ||
        (rc = vs_fam_dim1(cfg, "num_heads", 1, 0, &a->heads, a->rule, err)) ||
        (rc = vs_fam_dim1(cfg, "vocab_size", 1, 0, &a->vocab, a->rule, err)) ||
        (rc = vs_fam_dim1(cfg, "relative_attention_num_buckets", 0, 32, &a->num_buckets, a->rule,
                          err)) ||
        (rc = vs_fam_bool(cfg, "tie_word_embeddings", 1, &a->tied_embeddings, err)))
        return rc;
    if (ff && !json_is_null(ff) && !json_is_string(ff))
        return vs_error_set(err, VS_EFORMAT, "'feed_forward_proj' must be a string");
    if (json_is_string(ff) && !strncmp(json_string_value(ff), "gated-", 6))
        a->flags = T5_GATED;
    a->kv_heads = a->heads;
    return 0;
}

static int t5_kv(vs_arch *a, const json_t *cfg, vs_error *err)
{
    vs_kv_group g;
    int rc;
    (void)cfg;
    memset(&a->kv, 0, sizeof a->kv);
    memset(&g, 0, sizeof g);
    g.kind = VS_KV_FULL;
    g.layers = a->layers;
    g.kv_heads = a->heads;
    g.head_dim = a->head_dim;
    if ((rc = vs_kv_layout_add(&a->kv, &g, err)))
        return rc;
    g.kind = VS_KV_CROSS;
    return vs_kv_layout_add(&a->kv, &g, err);
}

static void ffn(vs_fam_emit *e, const vs_arch *a, const char *wi, const char *wi0, const char *wi1,
                const char *wo, uint64_t n)
{
    uint64_t d = a->hidden, f = a->intermediate;
    if (a->flags & T5_GATED) {
        VS_L2(e, wi0, 0, n, f, d);
        VS_L2(e, wi1, 0, n, f, d);
    } else {
        VS_L2(e, wi, 0, n, f, d);
    }
    VS_L2(e, wo, 0, n, d, f);
}

static int t5_tensors(const vs_arch *a, vs_tensor_rule_cb cb, void *ud)
{
    vs_fam_emit e;
    uint64_t d = a->hidden, in = a->heads * a->head_dim, ne = a->encoder_layers, nd = a->layers;
    vs_fam_emit_init(&e, cb, ud, "");
    VS_T2(&e, "shared.weight", a->vocab, d);
    VS_L2(&e, "encoder.block.{L}.layer.0.SelfAttention.q.weight", 0, ne, in, d);
    VS_L2(&e, "encoder.block.{L}.layer.0.SelfAttention.k.weight", 0, ne, in, d);
    VS_L2(&e, "encoder.block.{L}.layer.0.SelfAttention.v.weight", 0, ne, in, d);
    VS_L2(&e, "encoder.block.{L}.layer.0.SelfAttention.o.weight", 0, ne, d, in);
    VS_T2(&e, "encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight",
          a->num_buckets, a->heads);
    VS_L1(&e, "encoder.block.{L}.layer.0.layer_norm.weight", 0, ne, d);
    ffn(&e, a, "encoder.block.{L}.layer.1.DenseReluDense.wi.weight",
        "encoder.block.{L}.layer.1.DenseReluDense.wi_0.weight",
        "encoder.block.{L}.layer.1.DenseReluDense.wi_1.weight",
        "encoder.block.{L}.layer.1.DenseReluDense.wo.weight", ne);
    VS_L1(&e, "encoder.block.{L}.layer.1.layer_norm.weight", 0, ne, d);
    VS_T1(&e, "encoder.final_layer_norm.weight", d);
    VS_L2(&e, "decoder.block.{L}.layer.0.SelfAttention.q.weight", 0, nd, in, d);
    VS_L2(&e, "decoder.block.{L}.layer.0.SelfAttention.k.weight", 0, nd, in, d);
    VS_L2(&e, "decoder.block.{L}.layer.0.SelfAttention.v.weight", 0, nd, in, d);
    VS_L2(&e, "decoder.block.{L}.layer.0.SelfAttention.o.weight", 0, nd, d, in);
    VS_T2(&e, "decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight",
          a->num_buckets, a->heads);
    VS_L1(&e, "decoder.block.{L}.layer.0.layer_norm.weight", 0, nd, d);
    VS_L2(&e, "decoder.block.{L}.layer.1.EncDecAttention.q.weight", 0, nd, in, d);
    VS_L2(&e, "decoder.block.{L}.layer.1.EncDecAttention.k.weight", 0, nd, in, d);
    VS_L2(&e, "decoder.block.{L}.layer.1.EncDecAttention.v.weight", 0, nd, in, d);
    VS_L2(&e, "decoder.block.{L}.layer.1.EncDecAttention.o.weight", 0, nd, d, in);
    VS_L1(&e, "decoder.block.{L}.layer.1.layer_norm.weight", 0, nd, d);
    ffn(&e, a, "decoder.block.{L}.layer.2.DenseReluDense.wi.weight",
        "decoder.block.{L}.layer.2.DenseReluDense.wi_0.weight",
        "decoder.block.{L}.layer.2.DenseReluDense.wi_1.weight",
        "decoder.block.{L}.layer.2.DenseReluDense.wo.weight", nd);
    VS_L1(&e, "decoder.block.{L}.layer.2.layer_norm.weight", 0, nd, d);
    VS_T1(&e, "decoder.final_layer_norm.weight", d);
    if (!a->tied_embeddings)
        VS_T2(&e, "lm_head.weight", a->vocab, d);
    return e.rc;
}

static const char *const t5_types[] = {"t5", "mt5", NULL};
static const char *const t5_archs[] = {"T5ForConditionalGeneration", "MT5ForConditionalGeneration",
                                       NULL};
static const char *const t5_keys[] = {"num_layers",
                                      "num_decoder_layers",
                                      "d_model",
                                      "d_kv",
                                      "d_ff",
                                      "num_heads",
                                      "vocab_size",
                                      "relative_attention_num_buckets",
                                      "feed_forward_proj",
                                      "tie_word_embeddings",
                                      NULL};
const vs_family vs_family_t5 = {"t5", t5_types, t5_archs, t5_keys, t5_parse, t5_kv, t5_tensors};
