/* Parameter counts from config.json: each family's count is checked against an
 * independent sum over the tensors the family's Hugging Face model class
 * creates (written out below by name and shape), and the published counts of
 * well-known checkpoints must reproduce exactly from their config.json values. */
#include <check.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "model/hfconfig.h"

#include "check_run.h"

/* ---- an independent state-dict tally ---- */

typedef struct tally {
    uint64_t params;
    unsigned tensors;
} tally;

/* One tensor of the given shape (ndim dims, each an unsigned long long). */
static void T(tally *t, const char *name, int ndim, ...)
{
    va_list ap;
    uint64_t n = 1;
    int i;
    (void)name; /* the names document which tensor each line is */
    va_start(ap, ndim);
    for (i = 0; i < ndim; i++)
        n *= va_arg(ap, unsigned long long);
    va_end(ap);
    t->params += n;
    t->tensors++;
}

typedef unsigned long long ull;

typedef struct ldims {
    ull layers, hidden, heads, kv, head_dim, inter, vocab, experts, topk;
    int tied, attn_bias, mlp_bias, qkv_bias, qk_norm, four_norms;
} ldims;

/* LlamaForCausalLM and the models that copy its module tree. active_experts
 * limits the experts counted per layer (0 = all). */
static tally llama_state_dict(const ldims *d, ull active_experts)
{
    tally t = {0, 0};
    ull l, e, q = d->heads * d->head_dim, kv = d->kv * d->head_dim;
    T(&t, "model.embed_tokens.weight", 2, d->vocab, d->hidden);
    for (l = 0; l < d->layers; l++) {
        T(&t, "self_attn.q_proj.weight", 2, q, d->hidden);
        T(&t, "self_attn.k_proj.weight", 2, kv, d->hidden);
        T(&t, "self_attn.v_proj.weight", 2, kv, d->hidden);
        T(&t, "self_attn.o_proj.weight", 2, d->hidden, q);
        if (d->attn_bias || d->qkv_bias) {
            T(&t, "self_attn.q_proj.bias", 1, q);
            T(&t, "self_attn.k_proj.bias", 1, kv);
            T(&t, "self_attn.v_proj.bias", 1, kv);
        }
        if (d->attn_bias)
            T(&t, "self_attn.o_proj.bias", 1, d->hidden);
        if (d->qk_norm) {
            T(&t, "self_attn.q_norm.weight", 1, d->head_dim);
            T(&t, "self_attn.k_norm.weight", 1, d->head_dim);
        }
        if (d->experts) {
            ull n = active_experts ? active_experts : d->experts;
            T(&t, "block_sparse_moe.gate.weight", 2, d->experts, d->hidden);
            for (e = 0; e < n; e++) {
                T(&t, "experts.e.w1.weight", 2, d->inter, d->hidden);
                T(&t, "experts.e.w2.weight", 2, d->hidden, d->inter);
                T(&t, "experts.e.w3.weight", 2, d->inter, d->hidden);
            }
        } else {
            T(&t, "mlp.gate_proj.weight", 2, d->inter, d->hidden);
            T(&t, "mlp.up_proj.weight", 2, d->inter, d->hidden);
            T(&t, "mlp.down_proj.weight", 2, d->hidden, d->inter);
            if (d->mlp_bias) {
                T(&t, "mlp.gate_proj.bias", 1, d->inter);
                T(&t, "mlp.up_proj.bias", 1, d->inter);
                T(&t, "mlp.down_proj.bias", 1, d->hidden);
            }
        }
        T(&t, "input_layernorm.weight", 1, d->hidden);
        T(&t, "post_attention_layernorm.weight", 1, d->hidden);
        if (d->four_norms) {
            T(&t, "pre_feedforward_layernorm.weight", 1, d->hidden);
            T(&t, "post_feedforward_layernorm.weight", 1, d->hidden);
        }
    }
    T(&t, "model.norm.weight", 1, d->hidden);
    if (!d->tied)
        T(&t, "lm_head.weight", 2, d->vocab, d->hidden);
    return t;
}

static tally gpt2_state_dict(ull layers, ull h, ull inner, ull vocab, ull pos, int tied)
{
    tally t = {0, 0};
    ull l;
    T(&t, "transformer.wte.weight", 2, vocab, h);
    T(&t, "transformer.wpe.weight", 2, pos, h);
    for (l = 0; l < layers; l++) {
        T(&t, "ln_1.weight", 1, h);
        T(&t, "ln_1.bias", 1, h);
        T(&t, "attn.c_attn.weight", 2, h, 3 * h);
        T(&t, "attn.c_attn.bias", 1, 3 * h);
        T(&t, "attn.c_proj.weight", 2, h, h);
        T(&t, "attn.c_proj.bias", 1, h);
        T(&t, "ln_2.weight", 1, h);
        T(&t, "ln_2.bias", 1, h);
        T(&t, "mlp.c_fc.weight", 2, h, inner);
        T(&t, "mlp.c_fc.bias", 1, inner);
        T(&t, "mlp.c_proj.weight", 2, inner, h);
        T(&t, "mlp.c_proj.bias", 1, h);
    }
    T(&t, "transformer.ln_f.weight", 1, h);
    T(&t, "transformer.ln_f.bias", 1, h);
    if (!tied)
        T(&t, "lm_head.weight", 2, vocab, h);
    return t;
}

static tally neox_state_dict(ull layers, ull h, ull inter, ull vocab, int tied, int bias)
{
    tally t = {0, 0};
    ull l;
    T(&t, "gpt_neox.embed_in.weight", 2, vocab, h);
    for (l = 0; l < layers; l++) {
        T(&t, "input_layernorm.weight", 1, h);
        T(&t, "input_layernorm.bias", 1, h);
        T(&t, "post_attention_layernorm.weight", 1, h);
        T(&t, "post_attention_layernorm.bias", 1, h);
        T(&t, "attention.query_key_value.weight", 2, 3 * h, h);
        T(&t, "attention.dense.weight", 2, h, h);
        if (bias) {
            T(&t, "attention.query_key_value.bias", 1, 3 * h);
            T(&t, "attention.dense.bias", 1, h);
        }
        T(&t, "mlp.dense_h_to_4h.weight", 2, inter, h);
        T(&t, "mlp.dense_h_to_4h.bias", 1, inter);
        T(&t, "mlp.dense_4h_to_h.weight", 2, h, inter);
        T(&t, "mlp.dense_4h_to_h.bias", 1, h);
    }
    T(&t, "gpt_neox.final_layer_norm.weight", 1, h);
    T(&t, "gpt_neox.final_layer_norm.bias", 1, h);
    if (!tied)
        T(&t, "embed_out.weight", 2, vocab, h);
    return t;
}

/* FalconForCausalLM. lns: 1 (input_layernorm), 2 (ln_attn + ln_mlp) or 0 for
 * the sequential block (input_layernorm + post_attention_layernorm). */
static tally falcon_state_dict(ull layers, ull h, ull heads, ull kv, ull ffn, ull vocab, int bias,
                               int lns, int tied)
{
    tally t = {0, 0};
    ull l, hd = h / heads, qkv = (heads + 2 * kv) * hd;
    T(&t, "transformer.word_embeddings.weight", 2, vocab, h);
    for (l = 0; l < layers; l++) {
        T(&t, "self_attention.query_key_value.weight", 2, qkv, h);
        T(&t, "self_attention.dense.weight", 2, h, h);
        T(&t, "mlp.dense_h_to_4h.weight", 2, ffn, h);
        T(&t, "mlp.dense_4h_to_h.weight", 2, h, ffn);
        if (bias) {
            T(&t, "self_attention.query_key_value.bias", 1, qkv);
            T(&t, "self_attention.dense.bias", 1, h);
            T(&t, "mlp.dense_h_to_4h.bias", 1, ffn);
            T(&t, "mlp.dense_4h_to_h.bias", 1, h);
        }
        if (lns == 2) {
            T(&t, "ln_attn.weight", 1, h);
            T(&t, "ln_attn.bias", 1, h);
            T(&t, "ln_mlp.weight", 1, h);
            T(&t, "ln_mlp.bias", 1, h);
        } else {
            T(&t, "input_layernorm.weight", 1, h);
            T(&t, "input_layernorm.bias", 1, h);
            if (lns == 0) {
                T(&t, "post_attention_layernorm.weight", 1, h);
                T(&t, "post_attention_layernorm.bias", 1, h);
            }
        }
    }
    T(&t, "transformer.ln_f.weight", 1, h);
    T(&t, "transformer.ln_f.bias", 1, h);
    if (!tied)
        T(&t, "lm_head.weight", 2, vocab, h);
    return t;
}

/* ---- helpers ---- */

static vs_hfconfig parse_ok(const char *text)
{
    vs_hfconfig c;
    vs_error err;
    int rc;
    vs_error_clear(&err);
    rc = vs_hfconfig_parse(&c, text, strlen(text), &err);
    ck_assert_msg(rc == 0, "parse failed (%d): %s\nconfig: %s", rc, err.message, text);
    return c;
}

static int parse_err(const char *text, vs_error *err)
{
    vs_hfconfig c;
    memset(&c, 0x5a, sizeof c);
    vs_error_clear(err);
    return vs_hfconfig_parse(&c, text, strlen(text), err);
}

static const char *llama_json(char *buf, size_t n, const char *type, const ldims *d,
                              const char *extra)
{
    snprintf(buf, n,
             "{\"model_type\": \"%s\", \"num_hidden_layers\": %llu, \"hidden_size\": %llu, "
             "\"num_attention_heads\": %llu, \"num_key_value_heads\": %llu, "
             "\"intermediate_size\": %llu, \"vocab_size\": %llu, \"rms_norm_eps\": 1e-05, "
             "\"rope_theta\": 10000.0%s%s}",
             type, d->layers, d->hidden, d->heads, d->kv, d->inter, d->vocab, extra ? ", " : "",
             extra ? extra : "");
    return buf;
}

/* ---- families, against the tensor tally ---- */

START_TEST(llama_small_untied)
{
    char j[2048];
    ldims d = {
        .layers = 3, .hidden = 64, .heads = 8, .kv = 2, .head_dim = 8, .inter = 96, .vocab = 101};
    vs_hfconfig c = parse_ok(llama_json(j, sizeof j, "llama", &d, NULL));
    tally t = llama_state_dict(&d, 0);
    ck_assert_str_eq(c.family, "llama");
    ck_assert_str_eq(c.rule, "llama rule");
    ck_assert_uint_eq(c.params_total, t.params);
    ck_assert_uint_eq(c.params_active, t.params);
    ck_assert_uint_eq(c.head_dim, 8);
    ck_assert_uint_eq(c.kv_heads, 2);
    ck_assert_uint_eq(c.layers, 3);
    ck_assert_uint_eq(c.intermediate, 96);
    ck_assert_uint_eq(c.vocab, 101);
    ck_assert_int_eq(c.tied_embeddings, 0);
    ck_assert_uint_eq(c.experts, 0);
}
END_TEST

START_TEST(llama_biases_tied_head_dim)
{
    char j[2048];
    ldims d = {.layers = 2,
               .hidden = 48,
               .heads = 4,
               .kv = 4,
               .head_dim = 20,
               .inter = 80,
               .vocab = 77,
               .tied = 1,
               .attn_bias = 1,
               .mlp_bias = 1};
    vs_hfconfig c = parse_ok(llama_json(j, sizeof j, "llama", &d,
                                        "\"head_dim\": 20, \"attention_bias\": true, "
                                        "\"mlp_bias\": true, \"tie_word_embeddings\": true"));
    tally t = llama_state_dict(&d, 0);
    ck_assert_uint_eq(c.params_total, t.params);
    ck_assert_uint_eq(c.head_dim, 20);
    ck_assert_int_eq(c.tied_embeddings, 1);
}
END_TEST

START_TEST(llama_kv_default_and_architectures)
{
    /* no num_key_value_heads (= heads), no model_type: the architectures list */
    const char *j = "{\"architectures\": [\"LlamaForCausalLM\"], \"num_hidden_layers\": 2, "
                    "\"hidden_size\": 32, \"num_attention_heads\": 4, \"intermediate_size\": 40, "
                    "\"vocab_size\": 50}";
    ldims d = {
        .layers = 2, .hidden = 32, .heads = 4, .kv = 4, .head_dim = 8, .inter = 40, .vocab = 50};
    vs_hfconfig c = parse_ok(j);
    ck_assert_str_eq(c.family, "llama");
    ck_assert_str_eq(c.model_type, "");
    ck_assert_uint_eq(c.kv_heads, 4);
    ck_assert_uint_eq(c.head_dim, 8);
    ck_assert_uint_eq(c.params_total, llama_state_dict(&d, 0).params);
}
END_TEST

START_TEST(mistral_gqa)
{
    char j[2048];
    ldims d = {
        .layers = 4, .hidden = 64, .heads = 8, .kv = 1, .head_dim = 8, .inter = 112, .vocab = 90};
    vs_hfconfig c = parse_ok(llama_json(j, sizeof j, "mistral", &d, "\"sliding_window\": 4096"));
    ck_assert_str_eq(c.rule, "mistral rule");
    ck_assert_uint_eq(c.params_total, llama_state_dict(&d, 0).params);
}
END_TEST

START_TEST(qwen2_qkv_bias)
{
    char j[2048];
    ldims d = {.layers = 2,
               .hidden = 64,
               .heads = 4,
               .kv = 2,
               .head_dim = 16,
               .inter = 100,
               .vocab = 150,
               .qkv_bias = 1};
    vs_hfconfig c = parse_ok(llama_json(j, sizeof j, "qwen2", &d, NULL));
    ck_assert_str_eq(c.family, "qwen2");
    ck_assert_uint_eq(c.params_total, llama_state_dict(&d, 0).params);
    d.tied = 1;
    c = parse_ok(llama_json(j, sizeof j, "qwen2", &d, "\"tie_word_embeddings\": true"));
    ck_assert_uint_eq(c.params_total, llama_state_dict(&d, 0).params);
}
END_TEST

START_TEST(qwen3_qk_norm)
{
    char j[2048];
    ldims d = {.layers = 3,
               .hidden = 64,
               .heads = 4,
               .kv = 2,
               .head_dim = 32,
               .inter = 100,
               .vocab = 150,
               .qk_norm = 1,
               .tied = 1};
    vs_hfconfig c = parse_ok(
        llama_json(j, sizeof j, "qwen3", &d, "\"head_dim\": 32, \"tie_word_embeddings\": true"));
    ck_assert_uint_eq(c.params_total, llama_state_dict(&d, 0).params);
}
END_TEST

START_TEST(gemma_tied_by_default)
{
    char j[2048];
    ldims d = {.layers = 2,
               .hidden = 48,
               .heads = 4,
               .kv = 1,
               .head_dim = 32,
               .inter = 96,
               .vocab = 300,
               .tied = 1};
    vs_hfconfig c = parse_ok(llama_json(j, sizeof j, "gemma", &d, "\"head_dim\": 32"));
    ck_assert_str_eq(c.rule, "gemma rule");
    ck_assert_int_eq(c.tied_embeddings, 1);
    ck_assert_uint_eq(c.head_dim, 32);
    ck_assert_uint_eq(c.params_total, llama_state_dict(&d, 0).params);
}
END_TEST

START_TEST(gemma2_four_norms)
{
    char j[2048];
    ldims d = {.layers = 2,
               .hidden = 48,
               .heads = 4,
               .kv = 2,
               .head_dim = 16,
               .inter = 96,
               .vocab = 300,
               .tied = 1,
               .four_norms = 1};
    vs_hfconfig c = parse_ok(llama_json(j, sizeof j, "gemma2", &d, "\"head_dim\": 16"));
    ck_assert_uint_eq(c.params_total, llama_state_dict(&d, 0).params);
}
END_TEST

START_TEST(mixtral_total_and_active)
{
    char j[2048];
    ldims d = {.layers = 2,
               .hidden = 32,
               .heads = 4,
               .kv = 2,
               .head_dim = 8,
               .inter = 48,
               .vocab = 64,
               .experts = 4,
               .topk = 2};
    vs_hfconfig c = parse_ok(llama_json(j, sizeof j, "mixtral", &d,
                                        "\"num_local_experts\": 4, \"num_experts_per_tok\": 2"));
    ck_assert_str_eq(c.family, "mixtral");
    ck_assert_uint_eq(c.experts, 4);
    ck_assert_uint_eq(c.experts_per_token, 2);
    ck_assert_uint_eq(c.params_total, llama_state_dict(&d, 0).params);
    ck_assert_uint_eq(c.params_active, llama_state_dict(&d, 2).params);
    ck_assert_uint_lt(c.params_active, c.params_total);
}
END_TEST

START_TEST(gpt2_family)
{
    const char *j = "{\"model_type\": \"gpt2\", \"n_layer\": 3, \"n_embd\": 48, \"n_head\": 4, "
                    "\"n_positions\": 64, \"n_ctx\": 64, \"vocab_size\": 99, \"n_inner\": null}";
    vs_hfconfig c = parse_ok(j);
    ck_assert_str_eq(c.rule, "gpt2 rule");
    ck_assert_uint_eq(c.params_total, gpt2_state_dict(3, 48, 4 * 48, 99, 64, 1).params);
    ck_assert_uint_eq(c.intermediate, 192);
    ck_assert_uint_eq(c.positions, 64);
    ck_assert_uint_eq(c.head_dim, 12);
    c = parse_ok("{\"model_type\": \"gpt2\", \"n_layer\": 2, \"n_embd\": 32, \"n_head\": 2, "
                 "\"n_positions\": 16, \"vocab_size\": 40, \"n_inner\": 50, "
                 "\"tie_word_embeddings\": false}");
    ck_assert_uint_eq(c.params_total, gpt2_state_dict(2, 32, 50, 40, 16, 0).params);
}
END_TEST

START_TEST(neox_family)
{
    vs_hfconfig c = parse_ok("{\"model_type\": \"gpt_neox\", \"num_hidden_layers\": 3, "
                             "\"hidden_size\": 64, \"num_attention_heads\": 8, "
                             "\"intermediate_size\": 256, \"vocab_size\": 120, \"rotary_pct\": "
                             "0.25, \"use_parallel_residual\": true}");
    ck_assert_str_eq(c.family, "gpt_neox");
    ck_assert_int_eq(c.tied_embeddings, 0);
    ck_assert_uint_eq(c.params_total, neox_state_dict(3, 64, 256, 120, 0, 1).params);
    /* the parallel residual changes no tensor */
    ck_assert_uint_eq(parse_ok("{\"model_type\": \"gpt_neox\", \"num_hidden_layers\": 3, "
                               "\"hidden_size\": 64, \"num_attention_heads\": 8, "
                               "\"intermediate_size\": 256, \"vocab_size\": 120, "
                               "\"use_parallel_residual\": false}")
                          .params_total,
                      c.params_total);
    c = parse_ok("{\"model_type\": \"gpt_neox\", \"num_hidden_layers\": 2, \"hidden_size\": 32, "
                 "\"num_attention_heads\": 4, \"intermediate_size\": 64, \"vocab_size\": 70, "
                 "\"attention_bias\": false, \"tie_word_embeddings\": true}");
    ck_assert_uint_eq(c.params_total, neox_state_dict(2, 32, 64, 70, 1, 0).params);
}
END_TEST

START_TEST(falcon_variants)
{
    vs_hfconfig c;
    /* Falcon-7B's layout: multi-query, one LayerNorm, no bias, tied */
    c = parse_ok("{\"model_type\": \"falcon\", \"num_hidden_layers\": 32, \"hidden_size\": 4544, "
                 "\"num_attention_heads\": 71, \"multi_query\": true, \"parallel_attn\": true, "
                 "\"bias\": false, \"new_decoder_architecture\": false, \"alibi\": false, "
                 "\"vocab_size\": 65024}");
    ck_assert_uint_eq(c.kv_heads, 1);
    ck_assert_uint_eq(c.head_dim, 64);
    ck_assert_uint_eq(c.params_total,
                      falcon_state_dict(32, 4544, 71, 1, 4 * 4544, 65024, 0, 1, 1).params);
    /* new decoder (Falcon-40B's): grouped KV heads, ln_attn and ln_mlp */
    c = parse_ok("{\"model_type\": \"falcon\", \"num_hidden_layers\": 3, \"hidden_size\": 64, "
                 "\"num_attention_heads\": 8, \"num_kv_heads\": 2, "
                 "\"new_decoder_architecture\": true, \"parallel_attn\": true, \"bias\": false, "
                 "\"vocab_size\": 100}");
    ck_assert_uint_eq(c.kv_heads, 2);
    ck_assert_uint_eq(c.params_total, falcon_state_dict(3, 64, 8, 2, 256, 100, 0, 2, 1).params);
    /* the old remote-code spelling of the same */
    c = parse_ok("{\"model_type\": \"RefinedWeb\", \"n_layer\": 3, \"hidden_size\": 64, "
                 "\"n_head\": 8, \"n_head_kv\": 2, \"parallel_attn\": true, \"bias\": false, "
                 "\"vocab_size\": 100}");
    ck_assert_uint_eq(c.params_total, falcon_state_dict(3, 64, 8, 2, 256, 100, 0, 2, 1).params);
    /* a sequential block with biases and full multi-head attention, untied */
    c = parse_ok("{\"model_type\": \"falcon\", \"num_hidden_layers\": 2, \"hidden_size\": 32, "
                 "\"num_attention_heads\": 4, \"multi_query\": false, \"parallel_attn\": false, "
                 "\"bias\": true, \"alibi\": true, \"vocab_size\": 50, \"ffn_hidden_size\": 80, "
                 "\"tie_word_embeddings\": false}");
    ck_assert_uint_eq(c.kv_heads, 4);
    ck_assert_uint_eq(c.params_total, falcon_state_dict(2, 32, 4, 4, 80, 50, 1, 0, 0).params);
}
END_TEST

/* ---- published counts of well-known checkpoints (their config.json values) ---- */

START_TEST(published_llama2_7b)
{
    vs_hfconfig c = parse_ok(
        "{\"architectures\": [\"LlamaForCausalLM\"], \"bos_token_id\": 1, \"eos_token_id\": 2, "
        "\"hidden_act\": \"silu\", \"hidden_size\": 4096, \"initializer_range\": 0.02, "
        "\"intermediate_size\": 11008, \"max_position_embeddings\": 4096, \"model_type\": "
        "\"llama\", \"num_attention_heads\": 32, \"num_hidden_layers\": 32, "
        "\"num_key_value_heads\": 32, \"pretraining_tp\": 1, \"rms_norm_eps\": 1e-05, "
        "\"rope_scaling\": null, \"tie_word_embeddings\": false, \"torch_dtype\": \"float16\", "
        "\"transformers_version\": \"4.31.0.dev0\", \"use_cache\": true, \"vocab_size\": 32000}");
    ck_assert_uint_eq(c.params_total, 6738415616ULL);
}
END_TEST

START_TEST(published_mistral_7b)
{
    vs_hfconfig c = parse_ok(
        "{\"architectures\": [\"MistralForCausalLM\"], \"bos_token_id\": 1, \"eos_token_id\": 2, "
        "\"hidden_act\": \"silu\", \"hidden_size\": 4096, \"initializer_range\": 0.02, "
        "\"intermediate_size\": 14336, \"max_position_embeddings\": 32768, \"model_type\": "
        "\"mistral\", \"num_attention_heads\": 32, \"num_hidden_layers\": 32, "
        "\"num_key_value_heads\": 8, \"rms_norm_eps\": 1e-05, \"rope_theta\": 10000.0, "
        "\"sliding_window\": 4096, \"tie_word_embeddings\": false, \"torch_dtype\": \"bfloat16\", "
        "\"transformers_version\": \"4.34.0.dev0\", \"use_cache\": true, \"vocab_size\": 32000}");
    ck_assert_uint_eq(c.params_total, 7241732096ULL);
}
END_TEST

START_TEST(published_mixtral_8x7b)
{
    vs_hfconfig c = parse_ok(
        "{\"architectures\": [\"MixtralForCausalLM\"], \"hidden_act\": \"silu\", "
        "\"hidden_size\": 4096, \"intermediate_size\": 14336, \"max_position_embeddings\": "
        "32768, \"model_type\": \"mixtral\", \"num_attention_heads\": 32, "
        "\"num_experts_per_tok\": 2, \"num_hidden_layers\": 32, \"num_key_value_heads\": 8, "
        "\"num_local_experts\": 8, \"output_router_logits\": false, \"rms_norm_eps\": 1e-05, "
        "\"rope_theta\": 1000000.0, \"router_aux_loss_coef\": 0.02, \"sliding_window\": null, "
        "\"tie_word_embeddings\": false, \"vocab_size\": 32000}");
    ck_assert_uint_eq(c.params_total, 46702792704ULL);
    /* two of eight experts per token: 12.9B active */
    ck_assert_uint_eq(c.params_active, 12879925248ULL);
}
END_TEST

START_TEST(published_small_models)
{
    /* openai-community/gpt2 and gpt2-medium */
    ck_assert_uint_eq(parse_ok("{\"model_type\": \"gpt2\", \"architectures\": "
                               "[\"GPT2LMHeadModel\"], \"n_ctx\": 1024, \"n_embd\": 768, "
                               "\"n_head\": 12, \"n_layer\": 12, \"n_positions\": 1024, "
                               "\"vocab_size\": 50257}")
                          .params_total,
                      124439808ULL);
    ck_assert_uint_eq(parse_ok("{\"model_type\": \"gpt2\", \"n_ctx\": 1024, \"n_embd\": 1024, "
                               "\"n_head\": 16, \"n_layer\": 24, \"n_positions\": 1024, "
                               "\"vocab_size\": 50257}")
                          .params_total,
                      354823168ULL);
    /* EleutherAI/pythia-70m and pythia-160m */
    ck_assert_uint_eq(parse_ok("{\"architectures\": [\"GPTNeoXForCausalLM\"], \"hidden_size\": "
                               "512, \"intermediate_size\": 2048, \"model_type\": \"gpt_neox\", "
                               "\"num_attention_heads\": 8, \"num_hidden_layers\": 6, "
                               "\"rotary_pct\": 0.25, \"tie_word_embeddings\": false, "
                               "\"use_parallel_residual\": true, \"vocab_size\": 50304}")
                          .params_total,
                      70426624ULL);
    ck_assert_uint_eq(parse_ok("{\"hidden_size\": 768, \"intermediate_size\": 3072, "
                               "\"model_type\": \"gpt_neox\", \"num_attention_heads\": 12, "
                               "\"num_hidden_layers\": 12, \"vocab_size\": 50304}")
                          .params_total,
                      162322944ULL);
    /* Qwen/Qwen2.5-0.5B: q/k/v biases, tied */
    ck_assert_uint_eq(parse_ok("{\"model_type\": \"qwen2\", \"hidden_size\": 896, "
                               "\"intermediate_size\": 4864, \"num_attention_heads\": 14, "
                               "\"num_hidden_layers\": 24, \"num_key_value_heads\": 2, "
                               "\"tie_word_embeddings\": true, \"vocab_size\": 151936}")
                          .params_total,
                      494032768ULL);
    /* Qwen/Qwen3-0.6B and Qwen3-1.7B: QK norms, head_dim 128, tied */
    ck_assert_uint_eq(parse_ok("{\"model_type\": \"qwen3\", \"head_dim\": 128, \"hidden_size\": "
                               "1024, \"intermediate_size\": 3072, \"num_attention_heads\": 16, "
                               "\"num_hidden_layers\": 28, \"num_key_value_heads\": 8, "
                               "\"attention_bias\": false, \"tie_word_embeddings\": true, "
                               "\"vocab_size\": 151936}")
                          .params_total,
                      596049920ULL);
    ck_assert_uint_eq(parse_ok("{\"model_type\": \"qwen3\", \"head_dim\": 128, \"hidden_size\": "
                               "2048, \"intermediate_size\": 6144, \"num_attention_heads\": 16, "
                               "\"num_hidden_layers\": 28, \"num_key_value_heads\": 8, "
                               "\"tie_word_embeddings\": true, \"vocab_size\": 151936}")
                          .params_total,
                      1720574976ULL);
    /* TinyLlama/TinyLlama-1.1B-Chat-v1.0 */
    ck_assert_uint_eq(parse_ok("{\"model_type\": \"llama\", \"hidden_size\": 2048, "
                               "\"intermediate_size\": 5632, \"num_attention_heads\": 32, "
                               "\"num_hidden_layers\": 22, \"num_key_value_heads\": 4, "
                               "\"tie_word_embeddings\": false, \"vocab_size\": 32000}")
                          .params_total,
                      1100048384ULL);
}
END_TEST

/* ---- refusals ---- */

START_TEST(unknown_architecture_is_refused)
{
    vs_error err;
    int rc = parse_err("{\"model_type\": \"mamba\", \"hidden_size\": 768}", &err);
    ck_assert_int_eq(rc, VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "mamba"));
    ck_assert_ptr_nonnull(strstr(err.message, "params="));
    /* a known architectures entry does not override an unknown model_type */
    rc = parse_err("{\"model_type\": \"rwkv\", \"architectures\": [\"LlamaForCausalLM\"]}", &err);
    ck_assert_int_eq(rc, VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "rwkv"));
    /* the refusal names every known family */
    ck_assert_ptr_nonnull(strstr(err.message, "deepseek_v3"));
    ck_assert_ptr_nonnull(strstr(err.message, "mllama"));
    rc = parse_err("{\"architectures\": [\"XLNetLMHeadModel\"]}", &err);
    ck_assert_int_eq(rc, VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "XLNetLMHeadModel"));
    rc = parse_err("{}", &err);
    ck_assert_int_eq(rc, VS_EVALUE);
}
END_TEST

START_TEST(malformed_configs)
{
    vs_error err;
    vs_hfconfig c;
    ck_assert_int_eq(parse_err("{\"model_type\": \"llama\", \"hidden_size\": ", &err), VS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.message, "not JSON"));
    ck_assert_int_eq(err.line, 0); /* the file's position is in the text, not the cell's */
    ck_assert_ptr_nonnull(strstr(err.message, "line 1"));
    ck_assert_int_eq(parse_err("[1, 2]", &err), VS_EFORMAT);
    ck_assert_int_eq(parse_err("{\"model_type\": 7}", &err), VS_EFORMAT);
    /* missing dimension: named */
    ck_assert_int_eq(parse_err("{\"model_type\": \"llama\", \"num_hidden_layers\": 2, "
                               "\"num_attention_heads\": 4, \"intermediate_size\": 8, "
                               "\"vocab_size\": 10}",
                               &err),
                     VS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.message, "hidden_size"));
    ck_assert_ptr_nonnull(strstr(err.message, "llama rule"));
    /* not a positive integer */
    ck_assert_int_eq(parse_err("{\"model_type\": \"llama\", \"num_hidden_layers\": 2, "
                               "\"hidden_size\": \"64\", \"num_attention_heads\": 4, "
                               "\"intermediate_size\": 8, \"vocab_size\": 10}",
                               &err),
                     VS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.message, "hidden_size"));
    ck_assert_int_eq(parse_err("{\"model_type\": \"llama\", \"num_hidden_layers\": -2, "
                               "\"hidden_size\": 64, \"num_attention_heads\": 4, "
                               "\"intermediate_size\": 8, \"vocab_size\": 10}",
                               &err),
                     VS_EFORMAT);
    ck_assert_int_eq(parse_err("{\"model_type\": \"llama\", \"num_hidden_layers\": 2.5, "
                               "\"hidden_size\": 64, \"num_attention_heads\": 4, "
                               "\"intermediate_size\": 8, \"vocab_size\": 10}",
                               &err),
                     VS_EFORMAT);
    /* heads that do not split the hidden size */
    ck_assert_int_eq(parse_err("{\"model_type\": \"llama\", \"num_hidden_layers\": 2, "
                               "\"hidden_size\": 65, \"num_attention_heads\": 4, "
                               "\"intermediate_size\": 8, \"vocab_size\": 10}",
                               &err),
                     VS_EFORMAT);
    ck_assert_int_eq(parse_err("{\"model_type\": \"llama\", \"num_hidden_layers\": 2, "
                               "\"hidden_size\": 64, \"num_attention_heads\": 4, "
                               "\"num_key_value_heads\": 3, \"intermediate_size\": 8, "
                               "\"vocab_size\": 10}",
                               &err),
                     VS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.message, "num_key_value_heads"));
    /* a wrong type for a flag */
    ck_assert_int_eq(parse_err("{\"model_type\": \"llama\", \"num_hidden_layers\": 2, "
                               "\"hidden_size\": 64, \"num_attention_heads\": 4, "
                               "\"intermediate_size\": 8, \"vocab_size\": 10, "
                               "\"tie_word_embeddings\": \"yes\"}",
                               &err),
                     VS_EFORMAT);
    /* experts */
    ck_assert_int_eq(parse_err("{\"model_type\": \"mixtral\", \"num_hidden_layers\": 2, "
                               "\"hidden_size\": 64, \"num_attention_heads\": 4, "
                               "\"intermediate_size\": 8, \"vocab_size\": 10, "
                               "\"num_local_experts\": 2, \"num_experts_per_tok\": 3}",
                               &err),
                     VS_EFORMAT);
    ck_assert_int_eq(parse_err("{\"model_type\": \"mixtral\", \"num_hidden_layers\": 2, "
                               "\"hidden_size\": 64, \"num_attention_heads\": 4, "
                               "\"intermediate_size\": 8, \"vocab_size\": 10}",
                               &err),
                     VS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.message, "num_local_experts"));
    /* dimensions whose product overflows 64 bits */
    ck_assert_int_eq(parse_err("{\"model_type\": \"llama\", \"num_hidden_layers\": 1099511627776, "
                               "\"hidden_size\": 1099511627776, \"num_attention_heads\": 1, "
                               "\"intermediate_size\": 1099511627776, \"vocab_size\": 10}",
                               &err),
                     VS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.message, "overflow"));
    /* a dimension beyond any model */
    ck_assert_int_eq(parse_err("{\"model_type\": \"llama\", \"num_hidden_layers\": 2, "
                               "\"hidden_size\": 9223372036854775807, \"num_attention_heads\": 1, "
                               "\"intermediate_size\": 8, \"vocab_size\": 10}",
                               &err),
                     VS_EFORMAT);
    /* not NUL-terminated: only len bytes are read */
    {
        const char text[] = "{\"model_type\": \"gpt2\", \"n_layer\": 1, \"n_embd\": 8, "
                            "\"n_head\": 2, \"n_positions\": 4, \"vocab_size\": 5}GARBAGE";
        vs_error_clear(&err);
        ck_assert_int_eq(vs_hfconfig_parse(&c, text, sizeof text - 1 - 7, &err), 0);
        ck_assert_uint_eq(c.params_total, gpt2_state_dict(1, 8, 32, 5, 4, 1).params);
    }
    {
        char names[VS_FAMILY_NAMES_MAX];
        ck_assert_ptr_nonnull(strstr(vs_family_names(names, sizeof names), "falcon"));
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("hfconfig");
    TCase *fam = tcase_create("families");
    TCase *pub = tcase_create("published");
    TCase *bad = tcase_create("refusals");
    tcase_add_test(fam, llama_small_untied);
    tcase_add_test(fam, llama_biases_tied_head_dim);
    tcase_add_test(fam, llama_kv_default_and_architectures);
    tcase_add_test(fam, mistral_gqa);
    tcase_add_test(fam, qwen2_qkv_bias);
    tcase_add_test(fam, qwen3_qk_norm);
    tcase_add_test(fam, gemma_tied_by_default);
    tcase_add_test(fam, gemma2_four_norms);
    tcase_add_test(fam, mixtral_total_and_active);
    tcase_add_test(fam, gpt2_family);
    tcase_add_test(fam, neox_family);
    tcase_add_test(fam, falcon_variants);
    tcase_add_test(pub, published_llama2_7b);
    tcase_add_test(pub, published_mistral_7b);
    tcase_add_test(pub, published_mixtral_8x7b);
    tcase_add_test(pub, published_small_models);
    tcase_add_test(bad, unknown_architecture_is_refused);
    tcase_add_test(bad, malformed_configs);
    suite_add_tcase(s, fam);
    suite_add_tcase(s, pub);
    suite_add_tcase(s, bad);
    return s;
}

int main(void)
{
    return vs_check_run(suite());
}
