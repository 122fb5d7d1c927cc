/* Quantised checkpoints, weights tensor by tensor (model/quant.h).
 *
 * The oracles are independent of the code under test:
 * - a published loader figure: vLLM's "Model loading took 64.38 GiB" for
 *   openai/gpt-oss-120b on one H100, v0.14.1, Triton MXFP4 backend
 *   (https://github.com/vllm-project/vllm/issues/33155), beside the same
 *   figure worked by hand below from the checkpoint's published shapes;
 * - sparse safetensors files the test writes with the tensor names, dtypes and
 *   shapes quantised checkpoints publish (AutoGPTQ / GPTQModel's qweight,
 *   qzeros, scales, g_idx; AutoAWQ's; FP8 with weight_scale_inv 128x128
 *   blocks as DeepSeek-V3 and Qwen3-FP8 publish; ModelOpt NVFP4's weight,
 *   weight_scale, weight_scale_2, input_scale; bitsandbytes nf4's packed
 *   weight, absmax and quant_map), whose bytes the project's safetensors
 *   reader totals from the header alone;
 * - the refusals, through the interpreter: an unknown quant_method, and a
 *   format contradicting the checkpoint, leave the sheet as it was. */
#include <check.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/gguf_arch.h"
#include "model/gguf_quant.h"
#include "model/model.h"
#include "model/quant.h"
#include "sheet/sheet.h"
#include "sheet/vocab.h"

#include "cell_run.h"
#include "check_run.h"

typedef unsigned long long ull;
static char tmpdir[64];

/* ---- a sparse safetensors writer ---- */

typedef struct sth {
    json_t *hdr;
    ull off;
} sth;

static void T(sth *s, const char *name, const char *dtype, unsigned esize_bits, int nd, ull a,
              ull b, ull c)
{
    ull n = nd == 0 ? 1 : nd == 1 ? a : nd == 2 ? a * b : a * b * c, bytes = n * esize_bits / 8;
    json_t *shape = json_array();
    if (nd >= 1)
        json_array_append_new(shape, json_integer((json_int_t)a));
    if (nd >= 2)
        json_array_append_new(shape, json_integer((json_int_t)b));
    if (nd >= 3)
        json_array_append_new(shape, json_integer((json_int_t)c));
    json_object_set_new(s->hdr, name,
                        json_pack("{s:s, s:o, s:[I,I]}", "dtype", dtype, "shape", shape,
                                  "data_offsets", (json_int_t)s->off,
                                  (json_int_t)(s->off + bytes)));
    s->off += bytes;
}

static void st_write(sth *s, const char *path)
{
    char *h = json_dumps(s->hdr, JSON_COMPACT);
    uint64_t n = strlen(h);
    unsigned char le[8];
    int i, fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    ck_assert_int_ge(fd, 0);
    for (i = 0; i < 8; i++)
        le[i] = (unsigned char)(n >> (8 * i));
    ck_assert_int_eq(write(fd, le, 8), 8);
    ck_assert_int_eq(write(fd, h, n), (ssize_t)n);
    ck_assert_int_eq(ftruncate(fd, (off_t)(8 + n + s->off)), 0);
    close(fd);
    free(h);
    json_decref(s->hdr);
}

/* ---- a Llama / Qwen2 decoder as a quantised checkpoint stores it ---- */

typedef struct dims {
    ull layers, hidden, heads, kv, head_dim, inter, vocab;
    int tied, qkv_bias;
} dims;

typedef enum { GPTQ4, AWQ4, FP8B, NVFP4, NF4 } scheme;

/* one Linear weight of out x in, named prefix (".weight" stripped) */
static void linear(sth *s, scheme k, const char *p, ull out, ull in)
{
    char n[200];
#define N(suffix) (snprintf(n, sizeof n, "%s.%s", p, suffix), n)
    switch (k) {
    case GPTQ4: /* AutoGPTQ QuantLinear: 4 bits, group 128 */
        T(s, N("qweight"), "I32", 32, 2, in / 8, out, 0);
        T(s, N("qzeros"), "I32", 32, 2, in / 128, out / 8, 0);
        T(s, N("scales"), "F16", 16, 2, in / 128, out, 0);
        T(s, N("g_idx"), "I32", 32, 1, in, 0, 0);
        break;
    case AWQ4: /* AutoAWQ WQLinear_GEMM: 4 bits, group 128 */
        T(s, N("qweight"), "I32", 32, 2, in, out / 8, 0);
        T(s, N("qzeros"), "I32", 32, 2, in / 128, out / 8, 0);
        T(s, N("scales"), "F16", 16, 2, in / 128, out, 0);
        break;
    case FP8B: /* weight_block_size [128, 128] */
        T(s, N("weight"), "F8_E4M3", 8, 2, out, in, 0);
        T(s, N("weight_scale_inv"), "F32", 32, 2, (out + 127) / 128, (in + 127) / 128, 0);
        break;
    case NVFP4: /* ModelOpt NVFP4 */
        T(s, N("weight"), "U8", 8, 2, out, in / 2, 0);
        T(s, N("weight_scale"), "F8_E4M3", 8, 2, out, in / 16, 0);
        T(s, N("weight_scale_2"), "F32", 32, 0, 0, 0, 0);
        T(s, N("input_scale"), "F32", 32, 0, 0, 0, 0);
        break;
    case NF4: /* bitsandbytes Params4bit, blocksize 64, no double quant */
        T(s, N("weight"), "U8", 8, 2, out * in / 2, 1, 0);
        T(s, N("weight.absmax"), "F32", 32, 1, out * in / 64, 0, 0);
        T(s, N("weight.quant_map"), "F32", 32, 1, 16, 0, 0);
        break;
    }
#undef N
}

static void decoder(const dims *d, scheme k, const char *dense, unsigned dbits, const char *path)
{
    sth s = {json_object(), 0};
    ull l, q = d->heads * d->head_dim, kv = d->kv * d->head_dim;
    char p[160];
    T(&s, "model.embed_tokens.weight", dense, dbits, 2, d->vocab, d->hidden, 0);
    for (l = 0; l < d->layers; l++) {
#define P(x) (snprintf(p, sizeof p, "model.layers.%llu.%s", l, x), p)
        T(&s, P("input_layernorm.weight"), dense, dbits, 1, d->hidden, 0, 0);
        T(&s, P("post_attention_layernorm.weight"), dense, dbits, 1, d->hidden, 0, 0);
        linear(&s, k, P("self_attn.q_proj"), q, d->hidden);
        linear(&s, k, P("self_attn.k_proj"), kv, d->hidden);
        linear(&s, k, P("self_attn.v_proj"), kv, d->hidden);
        linear(&s, k, P("self_attn.o_proj"), d->hidden, q);
        if (d->qkv_bias) {
            T(&s, P("self_attn.q_proj.bias"), dense, dbits, 1, q, 0, 0);
            T(&s, P("self_attn.k_proj.bias"), dense, dbits, 1, kv, 0, 0);
            T(&s, P("self_attn.v_proj.bias"), dense, dbits, 1, kv, 0, 0);
        }
        linear(&s, k, P("mlp.gate_proj"), d->inter, d->hidden);
        linear(&s, k, P("mlp.up_proj"), d->inter, d->hidden);
        linear(&s, k, P("mlp.down_proj"), d->hidden, d->inter);
#undef P
    }
    T(&s, "model.norm.weight", dense, dbits, 1, d->hidden, 0, 0);
    if (!d->tied)
        T(&s, "lm_head.weight", dense, dbits, 2, d->vocab, d->hidden, 0);
    st_write(&s, path);
}

/* the fixture's config.json with a quantization_config, written to the tmpdir */
static const char *quant_config(const char *fixture, const char *qc, const char *dtype)
{
    static char out[256];
    char in[512];
    json_error_t je;
    json_t *c, *q;
    snprintf(in, sizeof in, "%s/%s", VS_MODEL_CONFIGS, fixture);
    c = json_load_file(in, 0, &je);
    ck_assert_msg(c != NULL, "%s: %s", in, je.text);
    q = json_loads(qc, 0, &je);
    ck_assert_msg(q != NULL, "%s", je.text);
    json_object_set_new(c, "quantization_config", q);
    if (dtype)
        json_object_set_new(c, "torch_dtype", json_string(dtype));
    snprintf(out, sizeof out, "%s/%s", tmpdir, fixture);
    ck_assert_int_eq(json_dump_file(c, out, 0), 0);
    json_decref(c);
    return out;
}

static void qsetup(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/vs-quant-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
    setup();
}

static void qteardown(void)
{
    char cmd[100];
    teardown();
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    ck_assert_int_eq(system(cmd), 0);
}

/* the weights `model ... config=` put on the card, through the interpreter */
static ull card_weights(const char *cfg, const char *engine)
{
    char cell[600];
    json_t *p;
    snprintf(cell, sizeof cell, "%smodel m config=%s\nweights", engine ? engine : "", cfg);
    run_ok(cell);
    p = lastp();
    ck_assert_str_eq(gets(p, "basis"), "tensor list");
    return (ull)geti(p, "bytes");
}

/* the bytes the project's safetensors reader totals from a header */
static ull header_bytes(const char *path)
{
    json_t *sheet = vs_sheet_new("s"), *pl = NULL;
    ull b;
    vs_error e;
    ck_assert_ptr_nonnull(sheet);
    ck_assert_msg(vs_model_apply_weights_files(sheet, path, 0, &pl, &e) == 0, "%s", e.message);
    b = (ull)json_integer_value(json_object_get(json_object_get(sheet, "weights_files"), "bytes"));
    json_decref(pl);
    json_decref(sheet);
    return b;
}

static const dims QWEN7 = {28, 3584, 28, 4, 128, 18944, 152064, 0, 1};
static const dims LLAMA8 = {32, 4096, 32, 8, 128, 14336, 128256, 0, 0};

/* ---- gpt-oss-120b: the published loader figure ---- */

START_TEST(gpt_oss_120b_mxfp4_vllm)
{
    /* openai/gpt-oss-120b config.json (hidden 2880, 36 layers, 64 heads of 64,
     * 8 KV heads, 128 experts of 2880, vocabulary 201,088, untied) */
    const char *cfg = "/tmp/vs-quant-oss.json";
    FILE *f = fopen(cfg, "w");
    ull experts, dense, kept_layer, by_hand_ckpt, by_hand_vllm, got, published;
    ck_assert_ptr_nonnull(f);
    fputs("{\"architectures\":[\"GptOssForCausalLM\"],\"model_type\":\"gpt_oss\","
          "\"hidden_size\":2880,\"intermediate_size\":2880,\"num_hidden_layers\":36,"
          "\"num_attention_heads\":64,\"num_key_value_heads\":8,\"head_dim\":64,"
          "\"num_local_experts\":128,\"num_experts_per_tok\":4,\"vocab_size\":201088,"
          "\"tie_word_embeddings\":false,\"sliding_window\":128,\"torch_dtype\":\"bfloat16\","
          "\"quantization_config\":{\"modules_to_not_convert\":[\"model.layers.*.self_attn\","
          "\"model.layers.*.mlp.router\",\"model.embed_tokens\",\"lm_head\"],"
          "\"quant_method\":\"mxfp4\"}}",
          f);
    fclose(f);
    /* per layer, the experts as the checkpoint stores them: gate_up blocks
     * [128, 5760, 90, 16] and scales [128, 5760, 90], down [128, 2880, 90, 16]
     * and [128, 2880, 90], biases bf16 [128, 5760] and [128, 2880] */
    experts = 128ull * 5760 * 90 * 16 + 128ull * 5760 * 90 + 128ull * 2880 * 90 * 16 +
              128ull * 2880 * 90 + 2 * (128ull * 5760 + 128ull * 2880);
    /* attention in bf16: q 4096x2880 + k, v 512x2880 + o 2880x4096, their biases,
     * 64 sinks; two norms; the router 128x2880 and its bias */
    kept_layer = 2 * (4096ull * 2880 + 2 * 512ull * 2880 + 2880ull * 4096 + 4096 + 512 + 512 +
                      2880 + 64 + 2 * 2880 + 128ull * 2880 + 128);
    dense = 2 * (2 * 201088ull * 2880 + 2880); /* embed_tokens, lm_head, final norm */
    by_hand_ckpt = 36 * (experts + kept_layer) + dense;
    /* vLLM 0.14 on Hopper (Triton backend): scales held twice (the swizzled copy and
     * the parameter), expert biases in fp32 */
    by_hand_vllm = by_hand_ckpt + 36 * (128ull * 5760 * 90 + 128ull * 2880 * 90) +
                   36 * 2 * (128ull * 5760 + 128ull * 2880);
    ck_assert_uint_eq(card_weights(cfg, NULL), by_hand_ckpt);
    got = card_weights(cfg, "engine vllm\n");
    ck_assert_uint_eq(got, by_hand_vllm);
    /* "Model loading took 64.38 GiB memory" (vllm-project/vllm#33155): within 3% */
    published = 6438ull * (1ull << 30) / 100;
    ck_assert_msg(got * 100 >= published * 97 && got * 100 <= published * 103,
                  "%llu B against the published %llu B", got, published);
    run_ok("card");
    ck_assert_str_eq(gets(json_object_get(lastp(), "card"), "format"), "mxfp4");
    unlink(cfg);
}
END_TEST

/* ---- the checkpoints' own headers ---- */

static void against_header(const char *fixture, const dims *d, scheme k, const char *qc,
                           const char *dtype, const char *dense, unsigned dbits, ull slack)
{
    char st_path[256];
    const char *cfg = quant_config(fixture, qc, dtype);
    ull want, got;
    snprintf(st_path, sizeof st_path, "%s/model.safetensors", tmpdir);
    decoder(d, k, dense, dbits, st_path);
    want = header_bytes(st_path);
    got = card_weights(cfg, NULL);
    ck_assert_msg(got + slack >= want && got <= want + slack, "%s: %llu B, the header %llu B",
                  fixture, got, want);
}

START_TEST(gptq_header)
{
    against_header("qwen2.5-7b.json", &QWEN7, GPTQ4,
                   "{\"quant_method\":\"gptq\",\"bits\":4,\"group_size\":128,\"desc_act\":false,"
                   "\"sym\":true}",
                   "float16", "F16", 16, 0);
    run_ok("card");
    ck_assert_str_eq(gets(json_object_get(lastp(), "card"), "format"), "gptq bits=4 group=128");
}
END_TEST

START_TEST(awq_header)
{
    against_header("qwen2.5-7b.json", &QWEN7, AWQ4,
                   "{\"quant_method\":\"awq\",\"bits\":4,\"group_size\":128,\"zero_point\":true,"
                   "\"version\":\"gemm\"}",
                   "float16", "F16", 16, 0);
}
END_TEST

START_TEST(fp8_block_header)
{
    against_header("llama-3.1-8b.json", &LLAMA8, FP8B,
                   "{\"quant_method\":\"fp8\",\"activation_scheme\":\"dynamic\","
                   "\"weight_block_size\":[128,128]}",
                   "bfloat16", "BF16", 16, 0);
    run_ok("card");
    ck_assert_str_eq(gets(json_object_get(lastp(), "card"), "format"), "fp8 block=128");
}
END_TEST

START_TEST(nvfp4_header)
{
    against_header("llama-3.1-8b.json", &LLAMA8, NVFP4,
                   "{\"quant_method\":\"modelopt\",\"quant_algo\":\"NVFP4\","
                   "\"exclude_modules\":[\"lm_head\"]}",
                   "bfloat16", "BF16", 16, 0);
}
END_TEST

START_TEST(nf4_header)
{
    against_header("qwen2.5-7b.json", &QWEN7, NF4,
                   "{\"quant_method\":\"bitsandbytes\",\"load_in_4bit\":true,"
                   "\"bnb_4bit_quant_type\":\"nf4\",\"bnb_4bit_use_double_quant\":false}",
                   "bfloat16", "BF16", 16, 0);
    run_ok("card");
    ck_assert_str_eq(gets(json_object_get(lastp(), "card"), "format"), "bnb-nf4");
}
END_TEST

/* ---- kept modules, by hand ---- */

START_TEST(ignore_lists_keep_bf16)
{
    /* compressed-tensors FP8 per channel, lm_head and every layer 0 module ignored:
     * layer 0's seven matrices stay bf16 (2 bytes) where the others take 1 byte and a
     * float32 per row */
    const char *cfg = quant_config(
        "llama-3.1-8b.json",
        "{\"quant_method\":\"compressed-tensors\",\"format\":\"float-quantized\","
        "\"config_groups\":{\"group_0\":{\"targets\":[\"Linear\"],\"weights\":{\"num_bits\":8,"
        "\"type\":\"float\",\"strategy\":\"channel\",\"symmetric\":true},"
        "\"input_activations\":{\"num_bits\":8,\"type\":\"float\",\"dynamic\":true}}},"
        "\"ignore\":[\"lm_head\",\"re:model\\\\.layers\\\\.0\\\\..*\"]}",
        "bfloat16");
    const dims *d = &LLAMA8;
    ull q = 4096, kv = 1024, lin_elems = q * 4096 + 2 * kv * 4096 + 4096 * q + 3 * 14336ull * 4096;
    ull lin_rows = q + 2 * kv + 4096 + 2 * 14336 + 4096;
    ull want = 2 * (2 * d->vocab * d->hidden + d->hidden)      /* embed, lm_head, norm */
               + d->layers * 2 * (2 * d->hidden)               /* two norms a layer */
               + 2 * lin_elems                                 /* layer 0 in bf16 */
               + (d->layers - 1) * (lin_elems + 4 * lin_rows); /* fp8 + row scales */
    ck_assert_uint_eq(card_weights(cfg, NULL), want);
}
END_TEST

/* ---- the vocabulary ---- */

START_TEST(vocabulary)
{
    vs_vocab_format f;
    unsigned b;
    static const char *const ok[] = {"gptq bits=4 group=128",
                                     "awq bits=4 group=128",
                                     "mxfp4",
                                     "nvfp4",
                                     "fp8 block=128",
                                     "bnb-nf4",
                                     "bnb-int8",
                                     "q4_k_m",
                                     "iq4_xs",
                                     NULL};
    size_t i;
    for (i = 0; ok[i]; i++) {
        ck_assert_msg(vs_vocab_format_parse(&f, &b, ok[i], NULL) == 0, "%s", ok[i]);
        ck_assert_int_eq(f, VS_FORMAT_SCHEME);
    }
    /* the seed's plain widths stay plain */
    ck_assert_int_eq(vs_vocab_format_parse(&f, &b, "int4", NULL), 0);
    ck_assert_int_eq(f, VS_FORMAT_INT4);
    ck_assert_int_eq(vs_vocab_format_parse(&f, &b, "fp8", NULL), 0);
    ck_assert_int_eq(f, VS_FORMAT_FP8);
    ck_assert_int_lt(vs_vocab_format_parse(&f, &b, "gptq bits=99", NULL), 0);
    ck_assert_int_lt(vs_vocab_format_parse(&f, &b, "q4_k_x", NULL), 0);
}
END_TEST

/* ---- refusals leave the sheet as it was ---- */

START_TEST(unknown_method_refused)
{
    const char *cfg =
        quant_config("llama-3.1-8b.json", "{\"quant_method\":\"hqq\",\"bits\":4}", NULL);
    char cell[400];
    run_ok("model before params=7B\nformat bf16");
    snprintf(cell, sizeof cell, "model m config=%s", cfg);
    ck_assert_int_lt(run(cell), 0);
    ck_assert_ptr_nonnull(strstr(err.message, "unknown quant_method 'hqq'"));
    ck_assert_ptr_nonnull(strstr(err.message, "gptq, awq, bitsandbytes"));
    run_ok("card");
    ck_assert_str_eq(gets(json_object_get(lastp(), "card"), "model"), "before");
    ck_assert_str_eq(gets(json_object_get(lastp(), "card"), "format"), "bf16");
}
END_TEST

START_TEST(contradicting_format_refused)
{
    const char *cfg = quant_config(
        "qwen2.5-7b.json", "{\"quant_method\":\"awq\",\"bits\":4,\"group_size\":128}", "float16");
    char cell[400];
    ull before;
    snprintf(cell, sizeof cell, "model m config=%s\nweights", cfg);
    run_ok(cell);
    before = (ull)geti(lastp(), "bytes");
    ck_assert_int_lt(run("format bf16"), 0);
    ck_assert_ptr_nonnull(strstr(err.message, "quantised as awq bits=4 group=128"));
    ck_assert_ptr_nonnull(strstr(err.message, "model NAME config=PATH"));
    run_ok("weights");
    ck_assert_uint_eq((ull)geti(lastp(), "bytes"), before);
    /* the same scheme again is no contradiction */
    run_ok("format awq bits=4 group=128");
}
END_TEST

START_TEST(format_names_schemes)
{
    /* without a quantization_config: `format gptq` sums the family's list; the
     * plain widths stay params x bits */
    char cell[400];
    ull gptq, int4;
    snprintf(cell, sizeof cell,
             "model m config=%s/qwen2.5-7b.json\nformat gptq bits=4 "
             "group=128\nweights",
             VS_MODEL_CONFIGS);
    run_ok(cell);
    gptq = (ull)geti(lastp(), "bytes");
    ck_assert_str_eq(gets(lastp(), "basis"), "tensor list");
    run_ok("format int4\nweights");
    int4 = (ull)geti(lastp(), "bytes");
    ck_assert_str_eq(gets(lastp(), "basis"), "params x bits / 8");
    ck_assert_uint_gt(gptq, int4); /* scales, zeros and 16-bit embeddings on top */
    run_ok("format q4_k_m\nweights");
    ck_assert_str_eq(gets(lastp(), "basis"), "tensor list");
    ck_assert_int_lt(run("format gptq block=128"), 0);
}
END_TEST

/* ---- llama.cpp's tensor list from a config.json ---- */

static vs_gguf_quant_tensor *gguf_list(const char *fixture, size_t *n, json_t **root, vs_arch *a)
{
    char path[512];
    json_error_t je;
    vs_gguf_quant_tensor *t = NULL;
    vs_error e;
    snprintf(path, sizeof path, "%s/%s", VS_MODEL_CONFIGS, fixture);
    *root = json_load_file(path, 0, &je);
    ck_assert_ptr_nonnull(*root);
    ck_assert_int_eq(vs_arch_from_json(a, *root, &e), 0);
    ck_assert_msg(vs_gguf_arch_from_config(a, *root, &t, n, &e) == 0, "%s", e.message);
    return t;
}

static ssize_t find(const vs_gguf_quant_tensor *t, size_t n, const char *name)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (!strcmp(t[i].name, name))
            return (ssize_t)i;
    return -1;
}

START_TEST(gguf_gpt_oss_and_rope_freqs)
{
    static vs_arch a;
    json_t *root;
    size_t n;
    ssize_t k;
    vs_gguf_quant_tensor *t = gguf_list("gpt-oss-20b.json", &n, &root, &a);
    const vs_gguf_type **types = calloc(n, sizeof *types);
    vs_gguf_quant_model m;
    uint64_t total;
    vs_error e;
    /* gpt-oss-20b: 24 layers, 32 experts of 2880, hidden 2880, 64 heads */
    ck_assert_int_ge(find(t, n, "blk.0.attn_sinks.weight"), 0);
    k = find(t, n, "blk.0.ffn_gate_exps.weight");
    ck_assert_int_ge(k, 0);
    ck_assert_uint_eq(t[k].shape[0], 2880);
    ck_assert_uint_eq(t[k].shape[1], 2880);
    ck_assert_uint_eq(t[k].shape[2], 32);
    k = find(t, n, "blk.0.ffn_up_exps.bias");
    ck_assert_int_ge(k, 0);
    vs_gguf_arch_llq_model(&m, &a);
    ck_assert_int_eq(vs_gguf_quant_predict(t, n, 15 /* Q4_K_M */, &m, types, NULL, &total, &e), 0);
    ck_assert_str_eq(types[k]->name, "F32"); /* the expert biases stay F32 */
    ck_assert_str_eq(types[find(t, n, "blk.0.attn_sinks.weight")]->name, "F32");
    free(types);
    vs_gguf_quant_list_free(t, n);
    json_decref(root);
    /* Llama 3.1 (rope_scaling llama3): rope_freqs, head_dim / 2 = 64 factors */
    t = gguf_list("llama-3.1-8b.json", &n, &root, &a);
    k = find(t, n, "rope_freqs.weight");
    ck_assert_int_ge(k, 0);
    ck_assert_uint_eq(t[k].shape[0], 64);
    vs_gguf_quant_list_free(t, n);
    json_decref(root);
}
END_TEST

/* ---- one vocabulary: help, formats, fit formats=, estimate quant, weights ---- */

/* the row of a payload's array whose key is value */
static json_t *row_of(json_t *arr, const char *key, const char *value)
{
    size_t i;
    json_t *x;
    json_array_foreach(arr, i, x) if (gets(x, key) && !strcmp(gets(x, key), value)) return x;
    return NULL;
}

START_TEST(help_lists_the_schemes)
{
    static const char *const pages[] = {"help format", "help formats", "help fit", NULL};
    size_t i, k, n = vs_vocab_scheme_count();
    const vs_vocab_scheme *sc;
    for (i = 0; pages[i]; i++) {
        json_t *f, *x;
        run_ok(pages[i]);
        f = json_object_get(lastp(), "formats");
        /* every scheme of the table and the eight plain widths, nothing typed by hand */
        ck_assert_uint_eq(json_array_size(f), n + 8);
        for (k = 0; k < n; k++) {
            sc = vs_vocab_scheme_at(k);
            x = row_of(f, "format", sc->word);
            ck_assert_msg(x != NULL, "%s: no row for %s", pages[i], sc->word);
            ck_assert_ptr_nonnull(strstr(text(last()), sc->word));
        }
        /* MXFP4: 4 bits and an 8-bit e8m0 scale per 32 values, 4 + 8 / 32 = 4.25 */
        x = row_of(f, "format", "mxfp4");
        ck_assert_int_eq(geti(x, "bits"), 4);
        ck_assert_ptr_nonnull(strstr(gets(x, "bits_per_weight"), "4.25"));
        /* NVFP4: an fp8 scale per 16 values, 4 + 8 / 16 = 4.5 */
        ck_assert_ptr_nonnull(strstr(gets(row_of(f, "format", "nvfp4"), "bits_per_weight"), "4.5"));
        ck_assert_str_eq(gets(row_of(f, "format", "q4_k_m"), "kind"), "llama.cpp");
        ck_assert_str_eq(gets(row_of(f, "format", "int4"), "kind"), "plain width");
        ck_assert_ptr_nonnull(strstr(gets(row_of(f, "format", "gptq"), "kept"), "lm_head"));
        /* every word listed is one `format` takes */
        json_array_foreach(f, k, x)
        {
            vs_vocab_format vf;
            ck_assert_msg(vs_vocab_format_parse(&vf, NULL, gets(x, "format"), NULL) == 0, "%s",
                          gets(x, "format"));
        }
    }
    run_ok("help card");
    ck_assert_ptr_null(json_object_get(lastp(), "formats"));
}
END_TEST

/* vs_vocab_scheme_of finds each row of the table by its word, alone or with
 * keys after a space, as the walk of vs_vocab_scheme_at in its order would
 * (the first row whose word starts the text); a plain width, a word that only
 * starts like a scheme, and no text find none. */
START_TEST(scheme_of_finds_each_row_by_its_word)
{
    size_t j, k, n = vs_vocab_scheme_count();
    char text[64];
    for (k = 0; k < n; k++) {
        const vs_vocab_scheme *sc = vs_vocab_scheme_at(k), *first = NULL;
        for (j = 0; j < n && !first; j++)
            if (!strcmp(vs_vocab_scheme_at(j)->word, sc->word))
                first = vs_vocab_scheme_at(j);
        ck_assert_ptr_eq(vs_vocab_scheme_of(sc->word), first);
        snprintf(text, sizeof text, "%s bits=4", sc->word);
        ck_assert_ptr_eq(vs_vocab_scheme_of(text), first);
        snprintf(text, sizeof text, "%sx", sc->word);
        ck_assert_ptr_null(vs_vocab_scheme_of(text));
    }
    ck_assert_str_eq(vs_vocab_scheme_of("gptq bits=3 group=128")->word, "gptq");
    ck_assert_str_eq(vs_vocab_scheme_of("tq1_0")->family, "llama.cpp");
    ck_assert_ptr_null(vs_vocab_scheme_of("bf16"));
    ck_assert_ptr_null(vs_vocab_scheme_of("int4"));
    ck_assert_ptr_null(vs_vocab_scheme_of(""));
    ck_assert_ptr_null(vs_vocab_scheme_of(NULL));
}
END_TEST

START_TEST(fit_formats_takes_the_vocabulary)
{
    /* fit formats= gives each name the weights `formats` gives it: gptq summed
     * over the tensor list (against the sparse GPTQ header the test writes),
     * q4_k_m as llama-quantize chooses, bf16 params x 2 */
    char st_path[256], cell[600];
    ull header, params, q4, f_q4;
    json_t *fm, *row;
    snprintf(st_path, sizeof st_path, "%s/model.safetensors", tmpdir);
    decoder(&QWEN7, GPTQ4, "F16", 16, st_path);
    header = header_bytes(st_path);
    snprintf(cell, sizeof cell,
             "model m config=%s/qwen2.5-7b.json\ngpu \"H100 SXM\"\nlength 4096\nformats q4_k_m",
             VS_MODEL_CONFIGS);
    run_ok(cell);
    q4 = (ull)geti(json_array_get(json_object_get(lastp(), "rows"), 0), "weights_bytes");
    run_ok("fit formats=\"bf16, q4_k_m gptq bits=4 group=128 GPTQ\"");
    fm = json_object_get(json_array_get(json_object_get(lastp(), "rows"), 0), "formats");
    ck_assert_uint_eq(json_array_size(fm), 4);
    run_ok("card");
    params = (ull)geti(json_object_get(lastp(), "card"), "params");
    run_ok("fit formats=\"bf16, q4_k_m gptq bits=4 group=128 GPTQ\"");
    fm = json_object_get(json_array_get(json_object_get(lastp(), "rows"), 0), "formats");
    ck_assert_uint_eq((ull)geti(row_of(fm, "format", "bf16"), "weights_bytes"), params * 2);
    f_q4 = (ull)geti(row_of(fm, "format", "q4_k_m"), "weights_bytes");
    ck_assert_uint_eq(f_q4, q4);
    ck_assert_uint_lt(f_q4, params * 2 / 3); /* not a 16-bit row */
    row = json_array_get(fm, 2);
    ck_assert_str_eq(gets(row, "format"), "gptq bits=4 group=128");
    ck_assert_uint_eq((ull)geti(row, "weights_bytes"), header);
    /* a bare word and any case: the scheme's defaults, the same bytes */
    ck_assert_str_eq(gets(json_array_get(fm, 3), "format"), "gptq bits=4 group=128");
    ck_assert_uint_eq((ull)geti(json_array_get(fm, 3), "weights_bytes"), header);
    /* an unknown word is refused at the value, naming where the list is */
    ck_assert_int_lt(run("fit formats=\"bf16 q9_z\""), 0);
    ck_assert_ptr_nonnull(strstr(err.message, "q9_z"));
    ck_assert_ptr_nonnull(strstr(err.message, "help format"));
    ck_assert_int_eq(err.column, (int)strlen("fit formats=") + 1);
}
END_TEST

START_TEST(estimate_quant_and_weights_print_the_names)
{
    /* 7e9 params, gptq bits=4 group=64: ceil(7e9 / 64) = 109,375,000 groups of
     * an fp16 scale and a 4-bit zero, 20 bits each: 273,437,500 B */
    char cell[400];
    run_ok("model m params=7B\nformat gptq bits=4 group=64\nestimate quant");
    ck_assert_uint_eq((ull)geti(lastp(), "bytes"), 273437500ull);
    ck_assert_ptr_nonnull(strstr(text(last()), "format gptq bits=4 group=64"));
    run_ok("weights");
    ck_assert_ptr_nonnull(strstr(text(last()), "(format gptq bits=4 group=64)"));
    ck_assert_str_eq(gets(lastp(), "card_format"), "gptq bits=4 group=64");
    /* the words of `format` as scheme=: awq's scales and zeros are gptq's */
    run_ok("estimate quant scheme=awq group=64");
    ck_assert_uint_eq((ull)geti(lastp(), "bytes"), 273437500ull);
    /* on a tally the scales are in the weights already: counted once */
    snprintf(cell, sizeof cell,
             "model q config=%s/qwen2.5-7b.json\nformat awq bits=4 group=128\nestimate quant",
             VS_MODEL_CONFIGS);
    run_ok(cell);
    ck_assert_uint_eq((ull)geti(lastp(), "bytes"), 0);
    run_ok("weights");
    ck_assert_ptr_nonnull(strstr(text(last()), "(format awq bits=4 group=128)"));
}
END_TEST

/* a start-up log the test writes, as the engines print these lines */
static void write_log(const char *path, const char *body)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(body, f);
    fclose(f);
}

START_TEST(measured_weights_from_a_log)
{
    char log[200], cell[800];
    json_t *comps;
    size_t i;
    snprintf(log, sizeof log, "%s/vllm.log", tmpdir);
    /* vLLM V1 (gpu_model_runner.py) prints GiB: 5.25 x 2^30 = 5,637,144,576 B */
    write_log(log, "INFO 01-01 00:00:01 [gpu_model_runner.py:1843] Model loading took 5.25 GiB "
                   "and 3.2 seconds\n"
                   "INFO 01-01 00:00:09 [gpu_worker.py:276] Available KV cache memory: 60.00 "
                   "GiB\n");
    snprintf(cell, sizeof cell,
             "model m config=%s/qwen2.5-7b.json\nformat gptq bits=4 group=128\nlength "
             "32768\nconcurrency 8\nmeasure import %s format=vllm\nmeasurements",
             VS_MODEL_CONFIGS, log);
    run_ok(cell);
    ck_assert_str_eq(gets(json_array_get(json_object_get(lastp(), "rows"), 1), "counter"),
                     "vllm.kv_cache_memory");
    /* the KV figure is no figure of the weights: refused, the sheet unchanged */
    ck_assert_int_lt(run("measured weights from=#2"), 0);
    ck_assert_ptr_nonnull(strstr(err.message, "not a figure of the weights"));
    run_ok("weights");
    ck_assert_str_eq(gets(lastp(), "basis"), "tensor list");
    /* the loading line: no length, no concurrency, and it stands */
    run_ok("measured weights from=#1\nweights");
    ck_assert_str_eq(gets(lastp(), "basis"), "measured");
    ck_assert_uint_eq((ull)geti(lastp(), "bytes"), 5637144576ull);
    run_ok("envelope");
    ck_assert_uint_eq((ull)geti(lastp(), "weights_bytes"), 5637144576ull);
    /* no second "weights" component on top of the weights */
    comps = json_object_get(lastp(), "components");
    for (i = 0; i < json_array_size(comps); i++)
        ck_assert_str_ne(gets(json_array_get(comps, i), "name"), "weights");
    /* a length change does not touch it; a format change clears it */
    run_ok("length 65536\nweights");
    ck_assert_uint_eq((ull)geti(lastp(), "bytes"), 5637144576ull);
    run_ok("format awq bits=4 group=128\nweights");
    ck_assert_str_eq(gets(lastp(), "basis"), "tensor list");
    /* llama.cpp: "CUDA0 model buffer size = 4403.50 MiB" = 4403.5 x 2^20 B */
    snprintf(log, sizeof log, "%s/llama.log", tmpdir);
    write_log(log, "load_tensors: offloaded 29/29 layers to GPU\n"
                   "load_tensors:        CUDA0 model buffer size =  4403.50 MiB\n");
    snprintf(cell, sizeof cell,
             "sheet other\nmodel m config=%s/qwen2.5-7b.json\nformat q4_k_m\nmeasure import %s "
             "format=llamacpp\nmeasured weights from=#1\nweights",
             VS_MODEL_CONFIGS, log);
    run_ok(cell);
    ck_assert_uint_eq((ull)geti(lastp(), "bytes"), 44035ull * (1ull << 20) / 10);
}
END_TEST

START_TEST(engine_order_gives_one_figure)
{
    /* gpt-oss-20b's config.json (quant_method mxfp4): under vLLM the expert
     * scales are held twice and the expert biases in fp32 (model/quants/mxfp4.c), so
     * `engine vllm` before or after `model` must give the same tally */
    char cell[400];
    ull before, after, plain, again;
    snprintf(cell, sizeof cell, "engine vllm\nmodel m config=%s/gpt-oss-20b.json\nweights",
             VS_MODEL_CONFIGS);
    run_ok(cell);
    before = (ull)geti(lastp(), "bytes");
    snprintf(cell, sizeof cell, "sheet two\nmodel m config=%s/gpt-oss-20b.json\nweights",
             VS_MODEL_CONFIGS);
    run_ok(cell);
    plain = (ull)geti(lastp(), "bytes");
    run_ok("engine vllm\nweights");
    after = (ull)geti(lastp(), "bytes");
    ck_assert_uint_eq(after, before);
    /* 24 layers of 32 experts: gate_up [5760 x 2880] and down [2880 x 2880],
     * scales 1 byte per 32 values again, biases 4 bytes instead of 2 */
    ck_assert_uint_eq(after - plain,
                      24ull * 32 * ((5760ull * 90 + 2880ull * 90) + 2 * (5760ull + 2880ull)));
    run_ok("engine none\nweights");
    again = (ull)geti(lastp(), "bytes");
    ck_assert_uint_eq(again, plain);
}
END_TEST

START_TEST(gpt_oss_20b_marlin_a100)
{
    /* openai/gpt-oss-20b (tests/model/configs/gpt-oss-20b.json: 24 layers, 32
     * experts, hidden 2880, intermediate 2880) on an A100, where vLLM's MXFP4
     * MoE runs on Marlin (no Triton kernels below SM90): create_weights pads
     * the hidden size to 256 (3,072) and the intermediate to 128 (2,944).
     * Published: "Model loading took 13.72 GiB memory", vLLM 0.19.0, `vllm serve
     * openai/gpt-oss-20b` on an A100 (https://myoceane.fr/index.php/ai-vllm-a100-gemma-4/);
     * the figure is the loader's weights (torch memory after load), within 3%. */
    char cell[400];
    ull ckpt, got, published, per_layer_ckpt, per_layer_marlin;
    snprintf(cell, sizeof cell, "model m config=%s/gpt-oss-20b.json\nweights", VS_MODEL_CONFIGS);
    run_ok(cell);
    ckpt = (ull)geti(lastp(), "bytes");
    run_ok("engine vllm mxfp4_backend=marlin\nweights");
    got = (ull)geti(lastp(), "bytes");
    /* the experts of one layer, by hand: blocks (two values a byte), e8m0 scales
     * (one per 32 values), bf16 biases; gate_up [2 I, H], down [H, I] */
    per_layer_ckpt = 32 * (5760ull * 2880 / 2 + 5760ull * 90 + 5760ull * 2 + 2880ull * 2880 / 2 +
                           2880ull * 90 + 2880ull * 2);
    per_layer_marlin = 32 * (5888ull * 3072 / 2 + 5888ull * 96 + 5888ull * 2 + 3072ull * 2944 / 2 +
                             3072ull * 92 + 3072ull * 2);
    ck_assert_uint_eq(got - ckpt, 24 * (per_layer_marlin - per_layer_ckpt));
    published = 1372ull * (1ull << 30) / 100;
    ck_assert_msg(got * 100 >= published * 97 && got * 100 <= published * 103,
                  "%llu B against the published %llu B", got, published);
    /* the Triton layout is another figure; back to Marlin is the same again */
    run_ok("engine vllm\nweights");
    ck_assert_uint_ne((ull)geti(lastp(), "bytes"), got);
    ck_assert_int_lt(run("engine vllm mxfp4_backend=cutlass"), 0);
}
END_TEST

/* vLLM allocates embed_tokens and lm_head with the vocabulary padded to 64 rows
 * (vocab_parallel_embedding.py pad_vocab_size): a Llama-3.1-8B AWQ config with
 * one added token (128,257) holds 128,320 rows under `engine vllm`, 63 more
 * rows of 4,096 fp16 values in each of the two: 2 x 63 x 4,096 x 2 B. The
 * checkpoint's own tally keeps 128,257. */
START_TEST(vllm_pads_the_vocabulary)
{
    static const char *awq = "{\"quant_method\":\"awq\",\"bits\":4,\"group_size\":128,"
                             "\"zero_point\":true,\"version\":\"gemm\"}";
    const char *cfg = quant_config("llama-3.1-8b.json", awq, "float16");
    json_t *c;
    ull plain, padded;
    /* 128,256 rows are a multiple of 64: the same figure under both */
    plain = card_weights(cfg, NULL);
    ck_assert_uint_eq(card_weights(cfg, "engine vllm\n"), plain);
    /* one added token */
    c = json_load_file(cfg, 0, NULL);
    ck_assert_ptr_nonnull(c);
    json_object_set_new(c, "vocab_size", json_integer(128257));
    ck_assert_int_eq(json_dump_file(c, cfg, 0), 0);
    json_decref(c);
    run_ok("sheet padded\nengine none");
    plain = card_weights(cfg, NULL);
    run_ok("engine vllm\nweights");
    padded = (ull)geti(lastp(), "bytes");
    ck_assert_uint_eq(padded - plain, 2ull * 63 * 4096 * 2);
}
END_TEST

/* vLLM's bitsandbytes loader undoes the double quantisation as it loads
 * (_dequantize_dq): each absmax is float32 again and the nested 256-entry code
 * is dropped. Llama-3.1-8B's 224 linear matrices hold 109,051,904 blocks of 64:
 * stored, an 8-bit absmax each, an fp32 constant per 256 blocks (425,984 x 4)
 * and a 4-byte offset per matrix, with a 256 x 4-byte code; under vLLM 4 bytes
 * per block and no second code. */
START_TEST(vllm_undoes_double_quant)
{
    const char *cfg = quant_config(
        "llama-3.1-8b.json",
        "{\"quant_method\":\"bitsandbytes\",\"load_in_4bit\":true,\"bnb_4bit_quant_type\":"
        "\"nf4\",\"bnb_4bit_use_double_quant\":true}",
        "bfloat16");
    ull stored = card_weights(cfg, NULL), loaded = card_weights(cfg, "engine vllm\n");
    ck_assert_uint_eq(loaded - stored, 109051904ull * 4 - (109051904ull + 425984ull * 4 + 224 * 4) -
                                           224ull * 256 * 4);
}
END_TEST

/* A symmetric 4-bit GPTQ layer runs on vLLM's Marlin, which empties the zero
 * points and, without act order, g_idx (MarlinLinearKernel.
 * process_weights_after_loading). Llama-3.1-8B at group 128: the zeros are
 * in / 128 x out / 8 int32 per matrix, 6,979,321,856 / 256 = 27,262,976 B; g_idx
 * an int32 per input column, 32 x (6 x 4,096 + 14,336) x 4 = 4,980,736 B. With
 * act order g_idx stays and an int32 sort order per column joins it. */
START_TEST(vllm_marlin_drops_zeros_and_g_idx)
{
    const char *cfg = quant_config("llama-3.1-8b.json",
                                   "{\"quant_method\":\"gptq\",\"bits\":4,\"group_size\":128,"
                                   "\"desc_act\":false,\"sym\":true}",
                                   "float16");
    ull stored = card_weights(cfg, NULL), loaded;
    run_ok("engine vllm\nweights");
    loaded = (ull)geti(lastp(), "bytes");
    ck_assert_uint_eq(stored - loaded, 27262976ull + 4980736ull);
    cfg = quant_config("llama-3.1-8b.json",
                       "{\"quant_method\":\"gptq\",\"bits\":4,\"group_size\":128,"
                       "\"desc_act\":true,\"sym\":true}",
                       "float16");
    run_ok("sheet act_order\nengine none");
    stored = card_weights(cfg, NULL);
    run_ok("engine vllm\nweights");
    loaded = (ull)geti(lastp(), "bytes");
    ck_assert_uint_eq(loaded + 27262976ull, stored + 4980736ull);
}
END_TEST

/* Without a quantization_config the plain words nf4, int8 and fp8 name the
 * schemes people run; int4 and fp4 stay widths. Llama-3.1-8B's tensor list,
 * by hand: per layer q and o 4,096 x 4,096, k and v 1,024 x 4,096, gate and up
 * 14,336 x 4,096, down 4,096 x 14,336 = 218,103,808 Linear values in 7
 * matrices with 43,008 output rows; x 32 layers = 6,979,321,856 values, 224
 * matrices, 1,376,256 rows. Kept in bf16: embed_tokens and lm_head 2 x 128,256
 * x 4,096 x 2 = 2,101,346,304 B and 65 norms of 4,096 x 2 = 532,480 B.
 * fp8 (vLLM's online Fp8LinearMethod): a byte a value and a float32 scale per
 * matrix, 224 x 4 = 896 B. int8 (bitsandbytes LLM.int8): a byte a value and a
 * float32 SCB per row, 1,376,256 x 4 = 5,505,024 B. int4: 8,030,261,248
 * parameters x 4 bits. */
START_TEST(plain_words_name_schemes)
{
    char cell[400];
    const ull kept = 2101346304ull + 532480ull, linear = 6979321856ull;
    snprintf(cell, sizeof cell, "model m config=%s/llama-3.1-8b.json\nformat fp8\nweights",
             VS_MODEL_CONFIGS);
    run_ok(cell);
    ck_assert_uint_eq((ull)geti(lastp(), "bytes"), linear + 224ull * 4 + kept);
    ck_assert_str_eq(gets(lastp(), "basis"), "tensor list");
    /* one vocabulary: `formats fp8` gives the same bytes */
    run_ok("gpu \"H100 SXM\"\nlength 4096\nformats fp8");
    ck_assert_uint_eq(
        (ull)geti(json_array_get(json_object_get(lastp(), "rows"), 0), "weights_bytes"),
        linear + 224ull * 4 + kept);
    /* vLLM pads the 128,256-token vocabulary to 64 rows: already a multiple */
    run_ok("engine vllm\nweights");
    ck_assert_uint_eq((ull)geti(lastp(), "bytes"), linear + 224ull * 4 + kept);
    run_ok("engine none\nformat int8\nweights");
    ck_assert_uint_eq((ull)geti(lastp(), "bytes"), linear + 1376256ull * 4 + kept);
    run_ok("format int4\nweights");
    ck_assert_uint_eq((ull)geti(lastp(), "bytes"), 8030261248ull / 2);
    ck_assert_str_eq(gets(lastp(), "basis"), "params x bits / 8");
    /* a plain word's scheme follows the engine as a named scheme does: nf4
     * (test_lora's 5,702,540,160 B) under vLLM, whose loader undoes the double
     * quantisation (vllm_undoes_double_quant's difference) */
    run_ok("format nf4\nweights");
    ck_assert_uint_eq((ull)geti(lastp(), "bytes"), 5702540160ull);
    run_ok("engine vllm\nweights");
    ck_assert_uint_eq((ull)geti(lastp(), "bytes"), 5702540160ull + 109051904ull * 4 -
                                                       (109051904ull + 425984ull * 4 + 224 * 4) -
                                                       224ull * 256 * 4);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("quant");
    TCase *tc = tcase_create("quant");
    tcase_add_checked_fixture(tc, qsetup, qteardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, gpt_oss_120b_mxfp4_vllm);
    tcase_add_test(tc, gptq_header);
    tcase_add_test(tc, awq_header);
    tcase_add_test(tc, fp8_block_header);
    tcase_add_test(tc, nvfp4_header);
    tcase_add_test(tc, nf4_header);
    tcase_add_test(tc, ignore_lists_keep_bf16);
    tcase_add_test(tc, vocabulary);
    tcase_add_test(tc, unknown_method_refused);
    tcase_add_test(tc, contradicting_format_refused);
    tcase_add_test(tc, format_names_schemes);
    tcase_add_test(tc, gguf_gpt_oss_and_rope_freqs);
    tcase_add_test(tc, help_lists_the_schemes);
    tcase_add_test(tc, fit_formats_takes_the_vocabulary);
    tcase_add_test(tc, estimate_quant_and_weights_print_the_names);
    tcase_add_test(tc, measured_weights_from_a_log);
    tcase_add_test(tc, engine_order_gives_one_figure);
    tcase_add_test(tc, gpt_oss_20b_marlin_a100);
    tcase_add_test(tc, vllm_pads_the_vocabulary);
    tcase_add_test(tc, vllm_undoes_double_quant);
    tcase_add_test(tc, vllm_marlin_drops_zeros_and_g_idx);
    tcase_add_test(tc, plain_words_name_schemes);
    tcase_add_test(tc, scheme_of_finds_each_row_by_its_word);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
