/* `format bnb-nf4 components=...` on a diffusers pipeline: the named components'
 * nn.Linear weights as bitsandbytes stores them, T5's wo in float32, the rest as
 * stored. A small FLUX-shaped pipeline (real names and shapes) is written as
 * header-only safetensors files; every expected byte is worked by hand below. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/pipeline_files.h"
#include "model/pipeline_quant.h"
#include "model/quant.h"
#include "sheet/sheet.h"
#include "util/buf.h"

#include "check_run.h"
#include "results.h"

#include "cell_run.h"
#include "test_tmp.h"

static char dir[256];

typedef struct tspec {
    const char *name, *dtype;
    unsigned size, ndims;
    uint64_t shape[4];
} tspec;

static const tspec transformer[] = {
    {"x_embedder.weight", "BF16", 2, 2, {3072, 64}},
    {"x_embedder.bias", "BF16", 2, 1, {3072}},
    {"transformer_blocks.0.attn.to_q.weight", "BF16", 2, 2, {3072, 3072}},
    {"transformer_blocks.0.attn.norm_q.weight", "BF16", 2, 1, {128}},
    {"proj_out.weight", "BF16", 2, 2, {64, 3072}},
    {"proj_out.bias", "BF16", 2, 1, {64}},
};
static const tspec t5[] = {
    {"shared.weight", "BF16", 2, 2, {32128, 4096}},
    {"encoder.block.0.layer.0.SelfAttention.q.weight", "BF16", 2, 2, {4096, 4096}},
    {"encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight",
     "BF16",
     2,
     2,
     {32, 64}},
    {"encoder.block.0.layer.1.DenseReluDense.wo.weight", "BF16", 2, 2, {4096, 10240}},
    {"encoder.block.0.layer.1.layer_norm.weight", "BF16", 2, 1, {4096}},
};
static const tspec vae[] = {{"decoder.conv_in.weight", "BF16", 2, 4, {512, 16, 3, 3}}};

static const char *at(const char *name)
{
    static char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return p;
}

static void write_text(const char *name, const char *text)
{
    FILE *f = fopen(at(name), "wb");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static void write_st(const char *name, const tspec *t, size_t n)
{
    vs_buf b = VS_BUF_INIT;
    uint64_t off = 0;
    unsigned char len8[8];
    size_t k;
    unsigned d;
    FILE *f;
    vs_buf_putc(&b, '{');
    for (k = 0; k < n; k++) {
        uint64_t e = t[k].size;
        for (d = 0; d < t[k].ndims; d++)
            e *= t[k].shape[d];
        vs_buf_printf(&b, "%s\"%s\": {\"dtype\": \"%s\", \"shape\": [", k ? ", " : "", t[k].name,
                      t[k].dtype);
        for (d = 0; d < t[k].ndims; d++)
            vs_buf_printf(&b, "%s%llu", d ? ", " : "", (unsigned long long)t[k].shape[d]);
        vs_buf_printf(&b, "], \"data_offsets\": [%llu, %llu]}", (unsigned long long)off,
                      (unsigned long long)(off + e));
        off += e;
    }
    vs_buf_putc(&b, '}');
    for (k = 0; k < 8; k++)
        len8[k] = (unsigned char)((b.len >> (8 * k)) & 0xff);
    f = fopen(at(name), "wb");
    ck_assert_ptr_nonnull(f);
    fwrite(len8, 1, 8, f);
    fwrite(b.data, 1, b.len, f);
    ck_assert_int_eq(ftruncate(fileno(f), (off_t)(8 + b.len + off)), 0);
    fclose(f);
    vs_buf_free(&b);
}

static void build(void)
{
    static const char *const comps[] = {"transformer", "text_encoder_2", "vae"};
    size_t i;
    for (i = 0; i < 3; i++)
        ck_assert_int_eq(mkdir(at(comps[i]), 0700), 0);
    write_text("model_index.json", "{\"_class_name\": \"FluxPipeline\", "
                                   "\"transformer\": [\"diffusers\", \"FluxTransformer2DModel\"], "
                                   "\"text_encoder_2\": [\"transformers\", \"T5EncoderModel\"], "
                                   "\"vae\": [\"diffusers\", \"AutoencoderKL\"]}");
    write_text("transformer/config.json", "{\"_class_name\": \"FluxTransformer2DModel\"}");
    write_text("text_encoder_2/config.json", "{\"architectures\": [\"T5EncoderModel\"]}");
    write_text("vae/config.json", "{\"_class_name\": \"AutoencoderKL\"}");
    write_st("transformer/diffusion_pytorch_model.safetensors", transformer, 6);
    write_st("text_encoder_2/model.safetensors", t5, 5);
    write_st("vae/diffusion_pytorch_model.safetensors", vae, 1);
}

static uint64_t cbytes(const json_t *sheet, const char *name)
{
    json_t *c;
    size_t i;
    json_array_foreach(json_object_get(json_object_get(sheet, "weights_files"), "components"), i, c)
    {
        if (!strcmp(json_string_value(json_object_get(c, "name")), name))
            return (uint64_t)json_integer_value(json_object_get(c, "bytes"));
    }
    ck_abort_msg("no component %s", name);
    return 0;
}

/* A component's integer field, or -1 when it has none. */
static long long cfield(const json_t *sheet, const char *name, const char *key)
{
    json_t *c;
    size_t i;
    json_array_foreach(json_object_get(json_object_get(sheet, "weights_files"), "components"), i, c)
    {
        json_t *v = json_object_get(c, key);
        if (!strcmp(json_string_value(json_object_get(c, "name")), name))
            return json_is_integer(v) ? (long long)json_integer_value(v) : -1;
    }
    ck_abort_msg("no component %s", name);
    return -1;
}

/* By hand, bitsandbytes nf4 without double quantisation: n / 2 bytes of
 * values, an fp32 absmax per 64 values, a 16-entry fp32 code (64 B):
 *   x_embedder 3,072 x 64 = 196,608 values: 98,304 + 12,288 + 64 = 110,656 B
 *   to_q 3,072 x 3,072 = 9,437,184 values: 4,718,592 + 589,824 + 64 = 5,308,480 B
 *   proj_out 64 x 3,072 = 196,608 values: 110,656 B
 *   + the biases 6,144 + 128 B and norm_q 256 B as stored = 5,536,320 B.
 * T5: shared (an embedding) 32,128 x 4,096 x 2 = 263,192,576 B as stored;
 *   q 16,777,216 values: 8,388,608 + 1,048,576 + 64 = 9,437,248 B;
 *   relative_attention_bias (an embedding) 4,096 B; wo in fp32 4,096 x 10,240 x 4
 *   = 167,772,160 B; layer_norm 8,192 B: 440,414,272 B.
 * As stored (bf16): transformer 393,216 + 6,144 + 18,874,368 + 256 + 393,216 + 128 =
 *   19,667,328 B; T5 263,192,576 + 33,554,432 + 4,096 + 83,886,080 + 8,192 = 380,645,376 B.
 * LLM.int8: n bytes and an fp32 scale per output row:
 *   x_embedder 196,608 + 12,288; to_q 9,437,184 + 12,288; proj_out 196,608 + 256;
 *   + 6,144 + 128 + 256 = 9,861,760 B;
 *   T5 q 16,777,216 + 16,384 = 16,793,600, the rest as above (430,977,024): 447,770,624 B.
 * fp8 layerwise casting: x_embedder's weight and bias 196,608 + 3,072, to_q 9,437,184 at a
 *   byte; norm_q (under a "norm" module) 256 B and proj_out (^proj_out$) 393,216 + 128 B as
 *   stored: 10,030,464 B.
 * While loading, bitsandbytes quantises each weight on the GPU from a 16-bit copy of it: the
 * largest is the transformer's to_q, 3,072 x 3,072 x 2 = 18,874,368 B, and T5's q, 4,096 x
 * 4,096 x 2 = 33,554,432 B (its wo, larger, stays in fp32 unquantised; shared is an embedding).
 * Layerwise casting is no bitsandbytes scheme: no such copy. */
START_TEST(components_by_hand)
{
    json_t *sheet = vs_sheet_new("q");
    vs_quant q;
    char note[512];
    vs_error e;
    uint64_t vae_bytes = 512 * 16 * 9 * 2;
    build();
    ck_assert_int_eq(vs_pipeline_apply(sheet, dir, NULL, NULL, &e), 0);
    ck_assert_int_eq(vs_quant_from_format(&q, "bnb-nf4", 0, 0, 0, NULL, NULL), 0);
    ck_assert_int_eq(vs_pipeline_quantize(sheet, &q, "bnb-nf4", "transformer,text_encoder_2", note,
                                          sizeof note, &e),
                     0);
    ck_assert_uint_eq(cbytes(sheet, "transformer"), 5536320);
    ck_assert_uint_eq(cbytes(sheet, "text_encoder_2"), 440414272);
    ck_assert_uint_eq(cbytes(sheet, "vae"), vae_bytes);
    ck_assert_uint_eq(
        json_integer_value(json_object_get(json_object_get(sheet, "weights_files"), "bytes")),
        5536320 + 440414272 + vae_bytes);
    ck_assert_ptr_nonnull(strstr(note, "transformer 19,667,328 -> 5,536,320 B"));
    ck_assert_int_eq(cfield(sheet, "transformer", "load_transient_bytes"), 2LL * 3072 * 3072);
    ck_assert_int_eq(cfield(sheet, "text_encoder_2", "load_transient_bytes"), 2LL * 4096 * 4096);
    ck_assert_int_eq(cfield(sheet, "vae", "load_transient_bytes"), -1);
    /* twice is refused, and the sheet stays as it was */
    ck_assert_int_eq(
        vs_pipeline_quantize(sheet, &q, "bnb-nf4", "transformer", note, sizeof note, &e),
        VS_EVALUE);
    ck_assert_uint_eq(cbytes(sheet, "transformer"), 5536320);
    /* int8 on a fresh read */
    ck_assert_int_eq(vs_pipeline_apply(sheet, dir, NULL, NULL, &e), 0);
    ck_assert_int_eq(vs_quant_from_format(&q, "bnb-int8", 0, 0, 0, NULL, NULL), 0);
    ck_assert_int_eq(vs_pipeline_quantize(sheet, &q, "bnb-int8", "transformer,text_encoder_2", note,
                                          sizeof note, &e),
                     0);
    ck_assert_uint_eq(cbytes(sheet, "transformer"), 9861760);
    ck_assert_uint_eq(cbytes(sheet, "text_encoder_2"), 447770624);
    /* a name that is no component, and a scheme that is not bitsandbytes */
    ck_assert_int_eq(vs_pipeline_apply(sheet, dir, NULL, NULL, &e), 0);
    ck_assert_int_eq(
        vs_pipeline_quantize(sheet, &q, "bnb-int8", "transformer,unet", note, sizeof note, &e),
        VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(e.message, "'unet' is no component"));
    ck_assert_uint_eq(cbytes(sheet, "transformer"), 19667328);
    ck_assert_int_eq(vs_quant_from_format(&q, "gptq", 4, 128, 0, NULL, NULL), 0);
    ck_assert_int_eq(vs_pipeline_quantize(sheet, &q, "gptq", "transformer", note, sizeof note, &e),
                     VS_EVALUE);
    /* layerwise casting to fp8, the T5 encoder as stored */
    ck_assert_int_eq(
        vs_pipeline_quantize(sheet, NULL, "fp8-layerwise", "transformer", note, sizeof note, &e),
        0);
    ck_assert_uint_eq(cbytes(sheet, "transformer"), 10030464);
    ck_assert_uint_eq(cbytes(sheet, "text_encoder_2"), 380645376);
    ck_assert_int_eq(cfield(sheet, "transformer", "load_transient_bytes"), -1);

    json_decref(sheet);
}
END_TEST

/* The verb: the envelope follows, errors leave the sheet as it was. */
START_TEST(format_components_verb)
{
    char cell[600];
    build();
    snprintf(cell, sizeof cell,
             "sheet \"f\"\nmodel flux pipeline=%s\nformat bnb-nf4 "
             "components=transformer,text_encoder_2\nenvelope",
             dir);
    run_ok(cell);
    ck_assert_int_eq(geti(lastp(), "envelope_bytes"), 5536320 + 440414272 + 512 * 16 * 9 * 2);
    ck_assert_int_ne(run("format bnb-nf4 components=unet"), 0);
    ck_assert_int_ne(run("format bf16 components=transformer"), 0);
    ck_assert_int_ne(run("format bits=4 components=transformer"), 0);
    ck_assert_int_ne(run("format gptq components=transformer"), 0);
    ck_assert_int_ne(run("format bnb-nf4 bits=4 components=transformer"), 0);
    run_ok("envelope");
    ck_assert_int_eq(geti(lastp(), "envelope_bytes"), 5536320 + 440414272 + 512 * 16 * 9 * 2);
    snprintf(cell, sizeof cell,
             "model flux pipeline=%s\nformat FP8-layerwise components=transformer\nenvelope", dir);
    run_ok(cell);
    ck_assert_int_eq(geti(lastp(), "envelope_bytes"), 10030464 + 380645376 + 512 * 16 * 9 * 2);
    ck_assert_int_ne(run("sheet \"g\"\nmodel m params=7B\nformat nf4 components=transformer"), 0);
}
END_TEST

static void quant_setup(void)
{
    setup();
    ck_assert_ptr_nonnull(mkdtemp(vs_test_tmp(dir, sizeof dir, "vs-test-pq-XXXXXX")));
}

static void quant_teardown(void)
{
    teardown();
    vs_test_rmtree(dir);
}

int main(void)
{
    Suite *s = suite_create("pipeline_quant");
    TCase *tc = tcase_create("pipeline_quant");
    tcase_add_checked_fixture(tc, quant_setup, quant_teardown);
    tcase_add_test(tc, components_by_hand);
    tcase_add_test(tc, format_components_verb);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
