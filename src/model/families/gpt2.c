/* GPT-2 and GPTBigCode (StarCoder, SantaCoder): learned positions, LayerNorms
 * with biases, a fused c_attn, tied embeddings. GPT-2's Conv1D weights are
 * stored [in, out] (modeling_gpt2.py); GPTBigCode's Linear weights [out, in],
 * its c_attn holding one key and one value head under multi_query
 * (modeling_gpt_bigcode.py). The causal-mask buffers some GPT-2 files carry
 * (h.N.attn.bias) are not parameters and are not counted. */
#include <string.h>

#include "model/families/fam.h"

enum { BIGCODE = 1 };

static int gpt2_parse_common(vs_arch *a, const json_t *cfg, vs_error *err)
{
    int rc;
    if ((rc = vs_fam_dim1(cfg, "n_layer", 1, 0, &a->layers, a->rule, err)) ||
        (rc = vs_fam_dim1(cfg, "n_embd", 1, 0, &a->hidden, a->rule, err)) ||
        (rc = vs_fam_dim1(cfg, "n_head", 1, 0, &a->heads, a->rule, err)) ||
        (rc = vs_fam_dim1(cfg, "n_positions", 1, 0, &a->positions, a->rule, err)) ||
        (rc = vs_fam_dim1(cfg, "vocab_size", 1, 0, &a->vocab, a->rule, err)))
        return rc;
    if (a->hidden % a->heads)
        return vs_error_set(err, VS_EFORMAT, "n_embd %llu is not a multiple of n_head %llu",
                            (unsigned long long)a->hidden, (unsigned long long)a->heads);
    if ((rc = vs_fam_dim1(cfg, "n_inner", 0, 4 * a->hidden, &a->intermediate, a->rule, err)) ||
        (rc = vs_fam_bool(cfg, "tie_word_embeddings", 1, &a->tied_embeddings, err)))
        return rc;
    a->head_dim = a->hidden / a->heads;
    a->kv_heads = a->heads;
    a->mlp_plain = 1; /* c_fc, activation, c_proj */
    return 0;
}

static int gpt2_parse(vs_arch *a, const json_t *cfg, vs_error *err)
{
    return gpt2_parse_common(a, cfg, err);
}

static int bigcode_parse(vs_arch *a, const json_t *cfg, vs_error *err)
{
    int mq = 1, rc;
    if ((rc = gpt2_parse_common(a, cfg, err)) ||
        (rc = vs_fam_bool(cfg, "multi_query", 1, &mq, err)))
        return rc;
    a->kv_heads = mq ? 1 : a->heads;
    a->flags = BIGCODE;
    return 0;
}

static int gpt2_kv(vs_arch *a, const json_t *cfg, vs_error *err)
{
    return vs_fam_kv_decoder(a, cfg, -1, err);
}

static int gpt2_tensors(const vs_arch *a, vs_tensor_rule_cb cb, void *ud)
{
    vs_fam_emit e;
    uint64_t h = a->hidden, in = a->intermediate, L = a->layers;
    uint64_t qkv = h + 2 * a->kv_heads * a->head_dim;
    int bc = a->flags & BIGCODE;
    vs_fam_emit_init(&e, cb, ud, bc ? "transformer." : "transformer.");
    VS_T2(&e, "wte.weight", a->vocab, h);
    VS_T2(&e, "wpe.weight", a->positions, h);
    VS_L1(&e, "h.{L}.ln_1.weight", 0, L, h);
    VS_L1(&e, "h.{L}.ln_1.bias", 0, L, h);
    if (bc) {
        VS_L2(&e, "h.{L}.attn.c_attn.weight", 0, L, qkv, h);
        VS_L2(&e, "h.{L}.mlp.c_fc.weight", 0, L, in, h);
        VS_L2(&e, "h.{L}.mlp.c_proj.weight", 0, L, h, in);
    } else {
        VS_L2(&e, "h.{L}.attn.c_attn.weight", 0, L, h, qkv);
        VS_L2(&e, "h.{L}.mlp.c_fc.weight", 0, L, h, in);
        VS_L2(&e, "h.{L}.mlp.c_proj.weight", 0, L, in, h);
    }
    VS_L1(&e, "h.{L}.attn.c_attn.bias", 0, L, qkv);
    VS_L2(&e, "h.{L}.attn.c_proj.weight", 0, L, h, h);
    VS_L1(&e, "h.{L}.attn.c_proj.bias", 0, L, h);
    VS_L1(&e, "h.{L}.ln_2.weight", 0, L, h);
    VS_L1(&e, "h.{L}.ln_2.bias", 0, L, h);
    VS_L1(&e, "h.{L}.mlp.c_fc.bias", 0, L, in);
    VS_L1(&e, "h.{L}.mlp.c_proj.bias", 0, L, h);
    VS_T1(&e, "ln_f.weight", h);
    VS_T1(&e, "ln_f.bias", h);
    e.prefix = "";
    if (!a->tied_embeddings)
        VS_T2(&e, "lm_head.weight", a->vocab, h);
    return e.rc;
}

static const char *const gpt2_types[] = {"gpt2", NULL};
static const char *const gpt2_archs[] = {"GPT2LMHeadModel", NULL};
static const char *const gpt2_keys[] = {
    "n_layer", "n_embd", "n_head", "n_positions", "n_inner", "vocab_size", "tie_word_embeddings",
    NULL};
const vs_family vs_family_gpt2 = {"gpt2",     gpt2_types, gpt2_archs,  gpt2_keys,
                                  gpt2_parse, gpt2_kv,    gpt2_tensors};

static const char *const bigcode_types[] = {"gpt_bigcode", NULL};
static const char *const bigcode_archs[] = {"GPTBigCodeForCausalLM", NULL};
static const char *const bigcode_keys[] = {
    "n_layer", "n_embd",     "n_head",      "n_positions",
    "n_inner", "vocab_size", "multi_query", "tie_word_embeddings",
    NULL};
const vs_family vs_family_gpt_bigcode = {"gpt_bigcode", bigcode_types, bigcode_archs, bigcode_keys,
                                         bigcode_parse, gpt2_kv,       gpt2_tensors};
