/* Diffusers pipelines: model_index.json parsed (pure), pipeline folders built
 * here (model_index.json, component config.json, sparse safetensors with real
 * tensor names and shapes: a header and a hole) read into a sheet, the
 * offload placements, the card's resolution and frames in validates_card,
 * and the generation estimators against hand-worked numbers. Every expected
 * byte count is tallied here from the tensor table (elements x dtype size),
 * never taken from the code under test. */
#include <check.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lang/interp.h"
#include "lang/verbs_estimate_internal.h"
#include "model/pipeline.h"
#include "model/pipeline_files.h"
#include "model/pipeline_modules.h"
#include "render/bundle.h"
#include "sheet/classify.h"
#include "sheet/derived.h"
#include "sheet/envelope.h"
#include "sheet/estimate.h"
#include "sheet/placement.h"
#include "sheet/sheet.h"
#include "util/buf.h"

#include "check_run.h"
#include "results.h"

static char dir[256];

static void make_dir(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/vs_pipe_XXXXXX", t && *t ? t : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void remove_dir(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

static const char *at(const char *name)
{
    static char p[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
    return p[k];
}

static void mkdir_in(const char *name)
{
    ck_assert_int_eq(mkdir(at(name), 0755), 0);
}

static void write_text(const char *name, const char *text)
{
    FILE *f = fopen(at(name), "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(text, 1, strlen(text), f), strlen(text));
    fclose(f);
}

typedef struct tspec {
    const char *name;
    const char *dtype; /* safetensors dtype */
    unsigned size;     /* bytes per element */
    unsigned ndims;
    uint64_t shape[4];
} tspec;

static uint64_t elements(const tspec *t)
{
    uint64_t n = 1;
    unsigned i;
    for (i = 0; i < t->ndims; i++)
        n *= t->shape[i];
    return n;
}

/* A safetensors file: the header, then a hole the size of the tensors' data
 * (sparse: nothing is written past the header). Returns the data bytes. */
static uint64_t write_st(const char *name, const tspec *t, size_t n)
{
    vs_buf b = VS_BUF_INIT;
    uint64_t off = 0;
    unsigned char len8[8];
    size_t k, hl;
    unsigned d;
    FILE *f;
    vs_buf_putc(&b, '{');
    for (k = 0; k < n; k++) {
        uint64_t bytes = elements(&t[k]) * t[k].size;
        vs_buf_printf(&b, "%s\"%s\": {\"dtype\": \"%s\", \"shape\": [", k ? ", " : "", t[k].name,
                      t[k].dtype);
        for (d = 0; d < t[k].ndims; d++)
            vs_buf_printf(&b, "%s%llu", d ? ", " : "", (unsigned long long)t[k].shape[d]);
        vs_buf_printf(&b, "], \"data_offsets\": [%llu, %llu]}", (unsigned long long)off,
                      (unsigned long long)(off + bytes));
        off += bytes;
    }
    vs_buf_putc(&b, '}');
    hl = b.len;
    for (k = 0; k < 8; k++)
        len8[k] = (unsigned char)((hl >> (8 * k)) & 0xff);
    f = fopen(at(name), "wb");
    ck_assert_ptr_nonnull(f);
    fwrite(len8, 1, 8, f);
    fwrite(b.data, 1, hl, f);
    ck_assert_int_eq(ftruncate(fileno(f), (off_t)(8 + hl + off)), 0);
    fclose(f);
    vs_buf_free(&b);
    return off;
}

/* The unet in two shards, t1 and t2, and their index, its weight map naming each
 * shard's own tensors. Returns the data bytes of both. */
static uint64_t write_unet_shards(const tspec *t1, size_t n1, const tspec *t2, size_t n2)
{
    static const char *const shard[2] = {"diffusion_pytorch_model-00001-of-00002.safetensors",
                                         "diffusion_pytorch_model-00002-of-00002.safetensors"};
    const tspec *t[2] = {t1, t2};
    size_t n[2] = {n1, n2}, i, k;
    uint64_t total = 0;
    char path[128];
    vs_buf map = VS_BUF_INIT, idx = VS_BUF_INIT;
    for (i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "unet/%s", shard[i]);
        total += write_st(path, t[i], n[i]);
        for (k = 0; k < n[i]; k++)
            vs_buf_printf(&map, "%s\"%s\": \"%s\"", map.len ? ", " : "", t[i][k].name, shard[i]);
    }
    vs_buf_printf(&idx, "{\"metadata\": {\"total_size\": %llu}, \"weight_map\": {%.*s}}",
                  (unsigned long long)total, (int)map.len, map.data);
    write_text("unet/diffusion_pytorch_model.safetensors.index.json", idx.data);
    vs_buf_free(&map);
    vs_buf_free(&idx);
    return total;
}

/* ---- the pipeline: an SDXL-shaped one, small (real names and shapes) ---- */

/* unet, sharded in two, fp16 */
static const tspec unet1[] = {
    {"conv_in.weight", "F16", 2, 4, {320, 4, 3, 3}},
    {"conv_in.bias", "F16", 2, 1, {320}},
    {"down_blocks.1.attentions.0.proj_in.weight", "F16", 2, 2, {640, 640}},
    {"down_blocks.1.resnets.0.conv1.weight", "F16", 2, 4, {640, 320, 3, 3}},
};
static const tspec unet2[] = {
    {"down_blocks.2.attentions.0.proj_in.weight", "F16", 2, 2, {1280, 1280}},
    {"mid_block.resnets.0.conv1.weight", "F16", 2, 4, {1280, 1280, 3, 3}},
    {"conv_out.weight", "F16", 2, 4, {4, 320, 3, 3}},
};
/* vae: fp32, and an fp16 variant */
static const tspec vae32[] = {
    {"decoder.conv_in.weight", "F32", 4, 4, {512, 4, 3, 3}},
    {"decoder.up_blocks.3.resnets.0.conv1.weight", "F32", 4, 4, {128, 256, 3, 3}},
    {"decoder.conv_out.weight", "F32", 4, 4, {3, 128, 3, 3}},
};
static const tspec vae16[] = {
    {"decoder.conv_in.weight", "F16", 2, 4, {512, 4, 3, 3}},
    {"decoder.up_blocks.3.resnets.0.conv1.weight", "F16", 2, 4, {128, 256, 3, 3}},
    {"decoder.conv_out.weight", "F16", 2, 4, {3, 128, 3, 3}},
};
/* text_encoder: bf16 with an fp32 norm, no fp16 variant */
static const tspec te[] = {
    {"text_model.embeddings.token_embedding.weight", "BF16", 2, 2, {49408, 768}},
    {"text_model.encoder.layers.0.self_attn.q_proj.weight", "BF16", 2, 2, {768, 768}},
    {"text_model.final_layer_norm.weight", "F32", 4, 1, {768}},
};

#define N(a) (sizeof a / sizeof a[0])

static uint64_t tally(const tspec *t, size_t n)
{
    uint64_t s = 0;
    size_t i;
    for (i = 0; i < n; i++)
        s += elements(&t[i]) * t[i].size;
    return s;
}

static uint64_t tally_params(const tspec *t, size_t n)
{
    uint64_t s = 0;
    size_t i;
    for (i = 0; i < n; i++)
        s += elements(&t[i]);
    return s;
}

static const char *MODEL_INDEX = "{\n"
                                 "  \"_class_name\": \"StableDiffusionXLPipeline\",\n"
                                 "  \"_diffusers_version\": \"0.19.0.dev0\",\n"
                                 "  \"force_zeros_for_empty_prompt\": true,\n"
                                 "  \"image_encoder\": [null, null],\n"
                                 "  \"scheduler\": [\"diffusers\", \"EulerDiscreteScheduler\"],\n"
                                 "  \"text_encoder\": [\"transformers\", \"CLIPTextModel\"],\n"
                                 "  \"tokenizer\": [\"transformers\", \"CLIPTokenizer\"],\n"
                                 "  \"unet\": [\"diffusers\", \"UNet2DConditionModel\"],\n"
                                 "  \"vae\": [\"diffusers\", \"AutoencoderKL\"]\n"
                                 "}\n";

static void build_pipeline(void)
{
    make_dir();
    write_text("model_index.json", MODEL_INDEX);
    mkdir_in("unet");
    mkdir_in("vae");
    mkdir_in("text_encoder");
    mkdir_in("tokenizer");
    mkdir_in("scheduler");
    write_text("unet/config.json", "{\"_class_name\": \"UNet2DConditionModel\", "
                                   "\"block_out_channels\": [320, 640, 1280]}");
    write_text("vae/config.json", "{\"_class_name\": \"AutoencoderKL\", \"latent_channels\": 4, "
                                  "\"block_out_channels\": [128, 256, 512, 512]}");
    write_text("text_encoder/config.json", "{\"architectures\": [\"CLIPTextModel\"]}");
    write_text("scheduler/scheduler_config.json", "{\"_class_name\": \"EulerDiscreteScheduler\"}");
    write_text("tokenizer/vocab.json", "{}");
    write_unet_shards(unet1, N(unet1), unet2, N(unet2));
    write_st("vae/diffusion_pytorch_model.safetensors", vae32, N(vae32));
    write_st("vae/diffusion_pytorch_model.fp16.safetensors", vae16, N(vae16));
    write_st("text_encoder/model.safetensors", te, N(te));
}

static json_t *component_of(const json_t *sheet, const char *name)
{
    json_t *c;
    size_t i;
    json_array_foreach(
        json_object_get(json_object_get(sheet, "weights_files"), "components"), i,
        c) if (!strcmp(json_string_value(json_object_get(c, "name")), name)) return c;
    return NULL;
}

static uint64_t cbytes(const json_t *sheet, const char *name)
{
    json_t *c = component_of(sheet, name);
    ck_assert_ptr_nonnull(c);
    return (uint64_t)json_integer_value(json_object_get(c, "bytes"));
}

static uint64_t dtype_bytes(const json_t *by, const char *dtype)
{
    json_t *d;
    size_t i;
    json_array_foreach(
        (json_t *)by, i,
        d) if (!strcmp(json_string_value(json_object_get(d, "dtype")),
                       dtype)) return (uint64_t)json_integer_value(json_object_get(d, "bytes"));
    return 0;
}

/* ------------------------------------------------------------ the parser */

START_TEST(parse_sdxl_index)
{
    vs_pipeline p;
    vs_error err;
    size_t i, w = 0;
    ck_assert_int_eq(vs_pipeline_parse(&p, MODEL_INDEX, strlen(MODEL_INDEX), &err), 0);
    ck_assert_str_eq(p.cls, "StableDiffusionXLPipeline");
    ck_assert_uint_eq(p.n, 5); /* image_encoder [null, null] is left out */
    for (i = 0; i < p.n; i++) {
        w += (size_t)p.c[i].weights;
        if (!strcmp(p.c[i].name, "unet")) {
            ck_assert(p.c[i].denoiser);
            ck_assert_str_eq(p.c[i].cls, "UNet2DConditionModel");
            ck_assert_str_eq(p.c[i].library, "diffusers");
        }
        if (!strcmp(p.c[i].name, "tokenizer") || !strcmp(p.c[i].name, "scheduler"))
            ck_assert(!p.c[i].weights);
    }
    ck_assert_uint_eq(w, 3); /* text_encoder, unet, vae */
}
END_TEST

START_TEST(parse_refuses_bad_indexes)
{
    vs_pipeline p;
    vs_error err;
    static const char *const bad[] = {
        "[1, 2]",
        "{\"unet\": [\"diffusers\"]}",
        "{\"../etc\": [\"diffusers\", \"AutoencoderKL\"]}",
        "{\"a/b\": [\"diffusers\", \"AutoencoderKL\"]}",
        "{\".hidden\": [\"diffusers\", \"AutoencoderKL\"]}",
        "{\"tokenizer\": [\"transformers\", \"CLIPTokenizer\"]}",
        "{\"unet\": [\"diffusers\", 3]}",
        "{\"unet\": [\"diffusers\", \"A\"], \"unet\": [\"diffusers\", \"B\"]}",
        "{\"unet\": ",
    };
    size_t i;
    for (i = 0; i < N(bad); i++) {
        vs_error_clear(&err);
        ck_assert_msg(vs_pipeline_parse(&p, bad[i], strlen(bad[i]), &err) == VS_EFORMAT, "%s",
                      bad[i]);
        ck_assert_ptr_nonnull(strstr(err.message, "model_index.json"));
    }
    /* a Flux.1 index: the T5 tokenizer (TokenizerFast) holds no weights */
    {
        const char *flux = "{\"_class_name\": \"FluxPipeline\", \"text_encoder_2\": "
                           "[\"transformers\", \"T5EncoderModel\"], \"tokenizer_2\": "
                           "[\"transformers\", \"T5TokenizerFast\"], \"transformer\": "
                           "[\"diffusers\", \"FluxTransformer2DModel\"]}";
        ck_assert_int_eq(vs_pipeline_parse(&p, flux, strlen(flux), &err), 0);
        ck_assert_uint_eq(p.n, 3);
        for (i = 0; i < p.n; i++)
            if (!strcmp(p.c[i].name, "transformer"))
                ck_assert(p.c[i].denoiser && p.c[i].weights);
            else if (!strcmp(p.c[i].name, "tokenizer_2"))
                ck_assert(!p.c[i].weights);
    }
}
END_TEST

/* ------------------------------------------------------ reading folders */

START_TEST(components_and_total_against_the_tally)
{
    json_t *s = vs_sheet_new("pipe"), *payload = NULL, *wf;
    vs_error err;
    uint64_t unet = tally(unet1, N(unet1)) + tally(unet2, N(unet2));
    uint64_t vae = tally(vae32, N(vae32)), tenc = tally(te, N(te)), p;
    build_pipeline();
    /* the tally by hand: unet 18,660,160 fp16 params; vae 316,800 fp32; text
     * encoder 49,408 x 768 + 768 x 768 bf16 and 768 fp32 */
    ck_assert_uint_eq(unet, 37320320);
    ck_assert_uint_eq(vae, 1267200);
    ck_assert_uint_eq(tenc, 75890688ull + 1179648 + 3072);
    ck_assert_int_eq(vs_pipeline_apply(s, dir, NULL, &payload, &err), 0);
    ck_assert_uint_eq(cbytes(s, "unet"), unet);
    ck_assert_uint_eq(cbytes(s, "vae"), vae);
    ck_assert_uint_eq(cbytes(s, "text_encoder"), tenc);
    ck_assert_ptr_null(component_of(s, "tokenizer"));
    ck_assert_ptr_null(component_of(s, "scheduler"));
    wf = json_object_get(s, "weights_files");
    ck_assert_uint_eq(json_integer_value(json_object_get(wf, "bytes")), unet + vae + tenc);
    ck_assert_uint_eq(unet + vae + tenc, 115660928);
    /* per dtype, merged over the components */
    ck_assert_uint_eq(dtype_bytes(json_object_get(wf, "by_dtype"), "F16"), unet);
    ck_assert_uint_eq(dtype_bytes(json_object_get(wf, "by_dtype"), "F32"), vae + 3072);
    ck_assert_uint_eq(dtype_bytes(json_object_get(wf, "by_dtype"), "BF16"), 75890688ull + 1179648);
    ck_assert_uint_eq(
        dtype_bytes(json_object_get(component_of(s, "text_encoder"), "by_dtype"), "F32"), 3072);
    /* params on the card */
    ck_assert(vs_sheet_card_uint(s, VS_CK_PARAMS, &p));
    ck_assert_uint_eq(p, tally_params(unet1, N(unet1)) + tally_params(unet2, N(unet2)) +
                             tally_params(vae32, N(vae32)) + tally_params(te, N(te)));
    ck_assert_str_eq(json_string_value(json_object_get(vs_sheet_card(s), "params_source")),
                     "safetensors (diffusers pipeline)");
    /* every shard listed, under its component's folder */
    ck_assert_uint_eq(json_array_size(json_object_get(wf, "files")), 4);
    ck_assert_str_eq(
        json_string_value(json_object_get(json_array_get(json_object_get(wf, "files"), 0), "name")),
        "text_encoder/model.safetensors");
    /* the largest module of each component, its own tensors (sequential offload) */
    ck_assert_str_eq(json_string_value(json_object_get(component_of(s, "unet"), "largest_group")),
                     "mid_block.resnets.0.conv1");
    ck_assert_uint_eq(
        json_integer_value(json_object_get(component_of(s, "unet"), "largest_group_bytes")),
        1280ull * 1280 * 9 * 2);
    ck_assert_str_eq(json_string_value(json_object_get(component_of(s, "vae"), "largest_group")),
                     "decoder.up_blocks.3.resnets.0.conv1");
    /* the payload carries the components too */
    ck_assert_uint_eq(json_array_size(json_object_get(payload, "components")), 3);
    ck_assert_str_eq(json_string_value(json_object_get(payload, "pipeline")),
                     "StableDiffusionXLPipeline");
    /* the record keeps them: dump, load, dump is the same text */
    {
        char *d = vs_sheet_dump(s), *d2;
        json_t *back = NULL;
        ck_assert_ptr_nonnull(d);
        ck_assert_int_eq(vs_sheet_load(&back, d, strlen(d), &err), 0);
        d2 = vs_sheet_dump(back);
        ck_assert_str_eq(d, d2);
        ck_assert_ptr_nonnull(strstr(d, "\"largest_group\": \"mid_block.resnets.0.conv1\""));
        free(d);
        free(d2);
        json_decref(back);
    }
    json_decref(payload);
    json_decref(s);
    remove_dir();
}
END_TEST

/* Sequential CPU offload moves one module's own tensors at a time (accelerate's
 * AlignDevicesHook on each module with direct tensors): the unet below, in two shards,
 * worked by hand:
 *   up.0.proj       weight 1,280 x 1,280 F16 (shard 1) + bias 1,280 F32 (shard 2)
 *                   = 3,276,800 + 5,120 = 3,281,920 B: the largest
 *   up.0.proj.norm  weight 1,280 x 1,280 F16 = 3,276,800 B, a module of its own, nested
 *   mid.lin         weight 1,281 x 1,280 F16 = 3,279,360 B, the largest single tensor
 *   (top module)    scale 4 F32 = 16 B (a name without a dot)
 * Counting the weight alone would pick mid.lin; grouping up to the first number,
 * up.0 (6,558,720 B); taking only consecutive tensors, mid.lin again. Under sequential
 * offload the denoise phase holds 3,281,920 B of weights, the encode phase the text
 * encoder's token embedding (49,408 x 768 x 2 = 75,890,688 B), the whole the larger. */
static const tspec mods1[] = {
    {"up.0.proj.weight", "F16", 2, 2, {1280, 1280}},
    {"up.0.proj.norm.weight", "F16", 2, 2, {1280, 1280}},
    {"mid.lin.weight", "F16", 2, 2, {1281, 1280}},
};
static const tspec mods2[] = {
    {"scale", "F32", 4, 1, {4}},
    {"up.0.proj.bias", "F32", 4, 1, {1280}},
};

START_TEST(largest_module_is_its_own_tensors)
{
    json_t *s = vs_sheet_new("pipe");
    vs_error err;
    vs_envelope env;
    vs_placement p = {VS_PLACE_SINGLE, 1, 0, VS_OFFLOAD_SEQUENTIAL};
    char m[64];
    size_t k;
    build_pipeline();
    ck_assert_uint_eq(write_unet_shards(mods1, N(mods1), mods2, N(mods2)),
                      3276800ull * 2 + 3279360 + 16 + 5120);
    ck_assert_int_eq(vs_pipeline_apply(s, dir, NULL, NULL, &err), 0);
    ck_assert_str_eq(json_string_value(json_object_get(component_of(s, "unet"), "largest_group")),
                     "up.0.proj");
    ck_assert_uint_eq(
        json_integer_value(json_object_get(component_of(s, "unet"), "largest_group_bytes")),
        1280ull * 1280 * 2 + 1280 * 4);
    ck_assert_str_eq(
        json_string_value(json_object_get(component_of(s, "text_encoder"), "largest_group")),
        "text_model.embeddings.token_embedding");
    /* the phases: each its components' largest module */
    json_object_set_new(s, "placement", vs_placement_to_json(&p));
    ck_assert_int_eq(vs_envelope_compute(&env, s, NULL, &err), 0);
    ck_assert_uint_eq(env.weights_gpu_bytes, 49408ull * 768 * 2);
    for (k = 0; k < env.phases.n; k++)
        if (!strcmp(env.phases.row[k].name, "denoise"))
            break;
    ck_assert_uint_lt(k, env.phases.n);
    ck_assert_uint_eq(env.phases.row[k].weights_bytes, 3281920);
    ck_assert_str_eq(env.phases.row[k].weights_of, "unet");
    /* the module of a name: less its last part; none for a name without a dot */
    vs_pipeline_modules_of(m, sizeof m, "up_blocks.0.resnets.1.conv1.weight");
    ck_assert_str_eq(m, "up_blocks.0.resnets.1.conv1");
    vs_pipeline_modules_of(m, sizeof m, "scale");
    ck_assert_str_eq(m, "");
    json_decref(s);
    remove_dir();
}
END_TEST

START_TEST(variant_picks_fp16_and_falls_back)
{
    json_t *s = vs_sheet_new("pipe"), *payload = NULL;
    vs_error err;
    build_pipeline();
    ck_assert_int_eq(vs_pipeline_apply(s, dir, "fp16", &payload, &err), 0);
    ck_assert_uint_eq(cbytes(s, "vae"), tally(vae16, N(vae16)));
    ck_assert_uint_eq(cbytes(s, "vae"), 633600);
    ck_assert_str_eq(json_string_value(json_object_get(component_of(s, "vae"), "variant")), "fp16");
    /* unet and text_encoder have no fp16 files: their plain ones, said so */
    ck_assert(json_is_null(json_object_get(component_of(s, "unet"), "variant")));
    ck_assert_uint_eq(cbytes(s, "unet"), 37320320);
    ck_assert_uint_eq(json_array_size(json_object_get(payload, "notes")), 2);
    ck_assert_uint_eq(
        json_integer_value(json_object_get(json_object_get(s, "weights_files"), "bytes")),
        37320320ull + 633600 + 77073408);
    json_decref(payload);
    json_decref(s);
    /* a sharded fp16 variant, spelled as diffusers writes its index */
    s = vs_sheet_new("pipe");
    {
        char idx[600];
        uint64_t a = write_st("unet/diffusion_pytorch_model.fp16-00001-of-00001.safetensors", unet2,
                              N(unet2));
        snprintf(idx, sizeof idx,
                 "{\"metadata\": {\"total_size\": %llu}, \"weight_map\": {"
                 "\"down_blocks.2.attentions.0.proj_in.weight\": \"%s\", "
                 "\"mid_block.resnets.0.conv1.weight\": \"%s\", \"conv_out.weight\": \"%s\"}}",
                 (unsigned long long)a, "diffusion_pytorch_model.fp16-00001-of-00001.safetensors",
                 "diffusion_pytorch_model.fp16-00001-of-00001.safetensors",
                 "diffusion_pytorch_model.fp16-00001-of-00001.safetensors");
        write_text("unet/diffusion_pytorch_model.safetensors.index.fp16.json", idx);
    }
    ck_assert_int_eq(vs_pipeline_apply(s, dir, "fp16", NULL, &err), 0);
    ck_assert_uint_eq(cbytes(s, "unet"), tally(unet2, N(unet2)));
    ck_assert_str_eq(json_string_value(json_object_get(component_of(s, "unet"), "variant")),
                     "fp16");
    json_decref(s);
    remove_dir();
}
END_TEST

START_TEST(missing_component_file_is_named_and_sheet_unchanged)
{
    json_t *s = vs_sheet_new("pipe");
    vs_error err;
    char *before, *after;
    build_pipeline();
    before = vs_sheet_dump(s);
    ck_assert_int_eq(unlink(at("text_encoder/model.safetensors")), 0);
    vs_error_clear(&err);
    ck_assert_int_lt(vs_pipeline_apply(s, dir, NULL, NULL, &err), 0);
    ck_assert_ptr_nonnull(strstr(err.message, "component text_encoder (CLIPTextModel)"));
    ck_assert_ptr_nonnull(strstr(err.message, "text_encoder/model.safetensors"));
    after = vs_sheet_dump(s);
    ck_assert_str_eq(before, after);
    free(after);
    /* a missing shard is named too */
    write_st("text_encoder/model.safetensors", te, N(te));
    ck_assert_int_eq(unlink(at("unet/diffusion_pytorch_model-00002-of-00002.safetensors")), 0);
    vs_error_clear(&err);
    ck_assert_int_lt(vs_pipeline_apply(s, dir, NULL, NULL, &err), 0);
    ck_assert_ptr_nonnull(strstr(err.message, "pipeline component unet"));
    ck_assert_ptr_nonnull(strstr(err.message, "diffusion_pytorch_model-00002-of-00002"));
    after = vs_sheet_dump(s);
    ck_assert_str_eq(before, after);
    free(after);
    /* no model_index.json */
    ck_assert_int_eq(unlink(at("model_index.json")), 0);
    ck_assert_int_eq(vs_pipeline_apply(s, dir, NULL, NULL, &err), VS_EIO);
    ck_assert_ptr_nonnull(strstr(err.message, "model_index.json"));
    free(before);
    json_decref(s);
    remove_dir();
}
END_TEST

/* ------------------------------------------------------------- offload */

START_TEST(offload_placements_per_gpu)
{
    json_t *s = vs_sheet_new("pipe");
    vs_error err;
    vs_envelope env;
    vs_placement p = {VS_PLACE_SINGLE, 1, 0, VS_OFFLOAD_NONE};
    uint64_t total = 115660928;
    build_pipeline();
    ck_assert_int_eq(vs_pipeline_apply(s, dir, NULL, NULL, &err), 0);
    /* no offload: everything on the GPU, nothing in host memory */
    ck_assert_int_eq(vs_envelope_compute(&env, s, NULL, &err), 0);
    ck_assert_uint_eq(env.weights_gpu_bytes, total);
    ck_assert_uint_eq(env.host_bytes, 0);
    /* model offload: the largest component, the text encoder */
    p.offload = VS_OFFLOAD_MODEL;
    json_object_set_new(s, "placement", vs_placement_to_json(&p));
    ck_assert_int_eq(vs_envelope_compute(&env, s, NULL, &err), 0);
    ck_assert_uint_eq(env.weights_gpu_bytes, 75890688ull + 1179648 + 3072);
    ck_assert_uint_eq(env.host_bytes, total);
    ck_assert_ptr_nonnull(strstr(env.offload_basis, "largest component"));
    /* sequential offload: the largest module, the token embedding (49,408 x 768 bf16) */
    p.offload = VS_OFFLOAD_SEQUENTIAL;
    json_object_set_new(s, "placement", vs_placement_to_json(&p));
    ck_assert_int_eq(vs_envelope_compute(&env, s, NULL, &err), 0);
    ck_assert_uint_eq(env.weights_gpu_bytes, 49408ull * 768 * 2);
    ck_assert_uint_eq(env.host_bytes, total);
    /* offload is one GPU */
    p.kind = VS_PLACE_DDP;
    p.gpus = 2;
    ck_assert_int_eq(vs_placement_check(&p, &err), VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "single only"));
    /* the record keeps it */
    {
        char *d = vs_sheet_dump(s);
        json_t *back = NULL;
        vs_placement q;
        ck_assert_int_eq(vs_sheet_load(&back, d, strlen(d), &err), 0);
        ck_assert_int_eq(vs_placement_from_sheet(&q, back, &err), 0);
        ck_assert_int_eq(q.offload, VS_OFFLOAD_SEQUENTIAL);
        free(d);
        json_decref(back);
    }
    json_decref(s);
    remove_dir();
}
END_TEST

/* --------------------------------------------------------- the card */

START_TEST(validates_card_on_resolution_and_frames)
{
    json_t *s = vs_sheet_new("gen"), *card = vs_sheet_card(s), *m;
    vs_buf why = VS_BUF_INIT;
    json_object_set_new(card, "width", json_integer(1024));
    json_object_set_new(card, "height", json_integer(1024));
    m = json_pack("{s:s, s:s, s:I, s:{s:i, s:i}, s:s}", "phase", "decode", "counter", "peak",
                  "peak_bytes", (json_int_t)1000, "dims", "width", 512, "height", 512, "state",
                  "current");
    ck_assert_int_eq(vs_derived_measurement_validates(s, m, &why), 0);
    ck_assert_ptr_nonnull(strstr(vs_buf_str(&why), "width 512 < the card's 1024"));
    json_object_set_new(json_object_get(m, "dims"), "width", json_integer(1024));
    json_object_set_new(json_object_get(m, "dims"), "height", json_integer(1024));
    ck_assert_int_eq(vs_derived_measurement_validates(s, m, NULL), 1);
    /* video: fewer frames do not validate */
    json_object_set_new(card, "frames", json_integer(81));
    json_object_set_new(json_object_get(m, "dims"), "frames", json_integer(49));
    vs_buf_free(&why);
    ck_assert_int_eq(vs_derived_measurement_validates(s, m, &why), 0);
    ck_assert_ptr_nonnull(strstr(vs_buf_str(&why), "frames 49 < the card's 81"));
    json_object_set_new(json_object_get(m, "dims"), "frames", json_integer(81));
    ck_assert_int_eq(vs_derived_measurement_validates(s, m, NULL), 1);
    vs_buf_free(&why);
    json_decref(m);
    json_decref(s);
}
END_TEST

static int names_have(const json_t *names, const char *n)
{
    size_t i;
    json_t *x;
    json_array_foreach((json_t *)names, i, x) if (!strcmp(json_string_value(x), n)) return 1;
    return 0;
}

/* a generation task is confirmed on its resolution and batch (and frames), not on a length */
START_TEST(generation_requirements)
{
    json_t *s = vs_sheet_new("gen"), *card = vs_sheet_card(s), *names, *ev;
    json_object_set_new(card, "task", json_string("generate-image"));
    names = vs_classify_requirement_names(s);
    ck_assert(names_have(names, "resolution") && names_have(names, "batch"));
    ck_assert(!names_have(names, "length") && !names_have(names, "concurrency") &&
              !names_have(names, "microbatch") && !names_have(names, "frames"));
    json_decref(names);
    json_object_set_new(card, "task", json_string("generate-video"));
    names = vs_classify_requirement_names(s);
    ck_assert(names_have(names, "frames"));
    json_decref(names);
    ck_assert_str_eq(vs_classify_requirement_find(s, "image size"), "resolution");
    /* evidence on the resolution holds for that width and height */
    json_object_set_new(card, "width", json_integer(1024));
    json_object_set_new(card, "height", json_integer(1024));
    ev = json_pack("{s:s, s:s, s:o}", "candidate", "x", "requirement", "resolution", "card",
                   vs_derived_evidence_card(s, "resolution"));
    ck_assert_uint_eq(json_object_size(json_object_get(ev, "card")), 2);
    ck_assert_int_eq(vs_derived_evidence_moved(s, ev, NULL), 0);
    json_object_set_new(card, "width", json_integer(2048));
    ck_assert_int_eq(vs_derived_evidence_moved(s, ev, NULL), 1);
    json_decref(ev);
    /* a language model keeps its requirements */
    json_object_set_new(card, "task", json_string("inference"));
    names = vs_classify_requirement_names(s);
    ck_assert(names_have(names, "length") && !names_have(names, "resolution"));
    json_decref(names);
    json_decref(s);
}
END_TEST

/* ------------------------------------------------------- estimators */

START_TEST(estimator_formulas_by_hand)
{
    uint64_t v, t;
    vs_error err;
    /* SDXL at 1024x1024: 1 x 4 x 128 x 128 x 2 B */
    ck_assert_int_eq(vs_estimate_latents(&v, 1, 4, 1024, 1024, 8, 1, 16, &err), 0);
    ck_assert_uint_eq(v, 131072);
    /* Wan 2.1 at 832x480, 81 frames: 21 latent frames of 16 x 60 x 104, bf16 */
    ck_assert_uint_eq(vs_estimate_latent_frames(81, 4), 21);
    ck_assert_uint_eq(vs_estimate_latent_frames(1, 4), 1);
    ck_assert_int_eq(vs_estimate_latents(&v, 1, 16, 832, 480, 8, 21, 16, &err), 0);
    ck_assert_uint_eq(v, 16ull * 21 * 60 * 104 * 2);
    ck_assert_uint_eq(v, 4193280);
    /* SDXL's first attention level (1/2 of the latent): 64 x 64 = 4,096 tokens;
     * 10 heads, cfg doubles batch 1: 2 x 10 x 4096^2 x 2 B */
    ck_assert_int_eq(vs_estimate_latent_tokens(&t, 1024, 1024, 8 * 1 * 2, 1, 0, &err), 0);
    ck_assert_uint_eq(t, 4096);
    ck_assert_int_eq(vs_estimate_attention_scores(&v, 2, 10, t, 16, &err), 0);
    ck_assert_uint_eq(v, 671088640);
    /* Flux.1-dev at 1024x1024: (1024 / 16)^2 + 512 text tokens, 24 heads */
    ck_assert_int_eq(vs_estimate_latent_tokens(&t, 1024, 1024, 16, 1, 512, &err), 0);
    ck_assert_uint_eq(t, 4608);
    ck_assert_int_eq(vs_estimate_attention_scores(&v, 1, 24, t, 16, &err), 0);
    ck_assert_uint_eq(v, 24ull * 4608 * 4608 * 2);
    ck_assert_uint_eq(v, 1019215872);
    /* the decode at 1024x1024 fp16: 1024 x 1024 x 2 B x 2200, and 128 x 6 */
    ck_assert_int_eq(vs_estimate_decode(&v, 1, 1, 1024, 1024, 16, 2200, &err), 0);
    ck_assert_uint_eq(v, 4613734400ull);
    ck_assert_int_eq(vs_estimate_decode(&v, 1, 1, 1024, 1024, 16, 128 * 6, &err), 0);
    ck_assert_uint_eq(v, 1610612736ull);
    /* overflow is an error, never a wrap-around */
    ck_assert_int_eq(vs_estimate_attention_scores(&v, 1u << 20, 1u << 20, 1ull << 20, 16, &err),
                     VS_EUNIT);
}
END_TEST

/* ------------------------------------------------- through the verbs */

typedef struct {
    json_t *bundles;
} sink_state;

static void on_display(void *ctx, const vs_bundle *bundle, const char *id, int update)
{
    sink_state *s = ctx;
    (void)id;
    (void)update;
    json_array_append_new(s->bundles, vs_test_bundle_json(bundle));
}

static int run(vs_interp *ip, sink_state *st, const char *code, vs_error *err)
{
    vs_sink sink;
    json_t *result = NULL;
    int rc;
    memset(&sink, 0, sizeof sink);
    sink.ctx = st;
    sink.display = on_display;
    json_array_clear(st->bundles);
    vs_error_clear(err);
    rc = vs_test_execute(ip, code, &sink, &result, err);
    if (result)
        json_array_append_new(st->bundles, result);
    return rc;
}

static json_t *last_bundle(sink_state *st)
{
    return json_array_get(st->bundles, json_array_size(st->bundles) - 1);
}

static json_t *lastp(sink_state *st)
{
    return json_object_get(json_array_get(st->bundles, json_array_size(st->bundles) - 1),
                           VS_MIME_JSON);
}

START_TEST(verbs_end_to_end)
{
    vs_interp *ip = vs_interp_new(NULL);
    sink_state st = {json_array()};
    vs_error err;
    char cell[1024];
    json_t *p, *c;
    size_t i;
    build_pipeline();
    snprintf(cell, sizeof cell, "model sdxl-mini pipeline=%s\ntask generate-image", dir);
    ck_assert_msg(run(ip, &st, cell, &err) == 0, "%s", err.message);
    ck_assert_int_eq(run(ip, &st, "weights", &err), 0);
    p = lastp(&st);
    ck_assert_uint_eq(json_integer_value(json_object_get(p, "bytes")), 115660928);
    ck_assert_uint_eq(json_array_size(json_object_get(p, "components")), 3);
    /* the envelope: one row per component, the sum the sheet's weights */
    ck_assert_int_eq(run(ip, &st, "envelope", &err), 0);
    p = lastp(&st);
    ck_assert_uint_eq(json_array_size(json_object_get(p, "weights_components")), 3);
    ck_assert_uint_eq(json_integer_value(json_object_get(p, "weights_gpu_bytes")), 115660928);
    ck_assert_ptr_nonnull(
        strstr(json_string_value(json_object_get(json_array_get(st.bundles, 0), "text/plain")),
               "weights: unet"));
    {
        /* the budget chart stacks the components */
        const char *svg = json_string_value(json_object_get(last_bundle(&st), "image/svg+xml"));
        ck_assert_ptr_nonnull(svg);
        ck_assert_ptr_nonnull(strstr(svg, "text_encoder"));
        ck_assert_ptr_nonnull(strstr(svg, "unet"));
    }
    /* a known 0 B component is in the table but draws no slice and no legend row */
    ck_assert_int_eq(run(ip, &st, "reserve nothing_here 0B\nenvelope", &err), 0);
    ck_assert_ptr_nonnull(
        strstr(json_string_value(json_object_get(last_bundle(&st), "text/plain")), "nothing_here"));
    ck_assert_ptr_null(strstr(json_string_value(json_object_get(last_bundle(&st), "image/svg+xml")),
                              "nothing_here"));
    ck_assert_int_eq(run(ip, &st, "placement offload=model\nenvelope", &err), 0);
    p = lastp(&st);
    ck_assert_uint_eq(json_integer_value(json_object_get(p, "weights_gpu_bytes")), 77073408);
    ck_assert_uint_eq(json_integer_value(json_object_get(p, "host_bytes")), 115660928);
    /* one component at a time: the phases, each its own component, the worst the
     * text encoder's (the largest component here); the chart stacks it and names it */
    ck_assert_str_eq(json_string_value(json_object_get(p, "worst_phase")), "encode");
    ck_assert_uint_eq(json_array_size(json_object_get(p, "phases")), 3);
    ck_assert_uint_eq(json_integer_value(json_object_get(p, "envelope_bytes")), 77073408);
    ck_assert_ptr_nonnull(
        strstr(json_string_value(json_object_get(last_bundle(&st), "image/svg+xml")),
               "worst phase encode"));
    ck_assert_ptr_nonnull(
        strstr(json_string_value(json_object_get(last_bundle(&st), "image/svg+xml")),
               "weights in encode: text_encoder"));
    /* training the unet: its parameters, from its files */
    ck_assert_int_eq(run(ip, &st,
                         "placement single\ntask finetune\nestimate training "
                         "component=unet",
                         &err),
                     0);
    p = lastp(&st);
    json_array_foreach(json_object_get(p, "components"), i,
                       c) if (!strcmp(json_string_value(json_object_get(c, "name")), "gradients"))
        ck_assert_uint_eq(json_integer_value(json_object_get(c, "bytes")), 18660160ull * 2);
    ck_assert_int_eq(run(ip, &st, "estimate training component=nope", &err), VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "text_encoder, unet, vae"));
    /* InvokeAI's constant, named: 1024 x 1024 x 2 B x 2200 */
    ck_assert_int_eq(run(ip, &st,
                         "task generate-image\nresolution 1024x1024\nestimate decode "
                         "dtype=fp16 rule=invokeai",
                         &err),
                     0);
    p = lastp(&st);
    json_array_foreach(json_object_get(p, "components"), i,
                       c) if (!strcmp(json_string_value(json_object_get(c, "name")), "vae_decode"))
        ck_assert_uint_eq(json_integer_value(json_object_get(c, "bytes")), 4613734400ull);
    /* by default two parts: the decoder's tensors with cuDNN's workspace (workspace=4, below:
     * 2,550,136,832 B at 1024 x 1024 fp16) and, memory cache, the rest of that constant, the
     * allocator's reserved-but-free memory, 4,613,734,400 - 2,550,136,832 */
    ck_assert_int_eq(run(ip, &st, "estimate decode dtype=fp16", &err), 0);
    p = lastp(&st);
    {
        int seen = 0;
        json_array_foreach(json_object_get(p, "components"), i, c)
        {
            const char *nm = json_string_value(json_object_get(c, "name"));
            if (!strcmp(nm, "vae_decode")) {
                seen |= 1;
                ck_assert_uint_eq(json_integer_value(json_object_get(c, "bytes")), 2550136832ull);
            }
            if (!strcmp(nm, "vae_decode_cache")) {
                seen |= 2;
                ck_assert_uint_eq(json_integer_value(json_object_get(c, "bytes")),
                                  4613734400ull - 2550136832ull);
                ck_assert_str_eq(json_string_value(json_object_get(c, "memory")), "cache");
            }
        }
        ck_assert_int_eq(seen, 3);
    }
    ck_assert_int_eq(run(ip, &st, "envelope", &err), 0);
    p = lastp(&st);
    ck_assert_uint_eq(json_integer_value(json_object_get(p, "cache_bytes")), 2063597568ull);
    ck_assert_uint_eq(json_integer_value(json_object_get(p, "allocator_bytes")) -
                          json_integer_value(json_object_get(p, "tensors_bytes")),
                      2063597568ull);
    /* both parts follow the card: at 512 x 512 the tensors a quarter, 637,534,208 B, the
     * constant 512 x 512 x 2 x 2,200 = 1,153,433,600 B, the cache the rest */
    ck_assert_int_eq(run(ip, &st, "resolution 512x512\nenvelope", &err), 0);
    json_array_foreach(json_object_get(lastp(&st), "components"), i, c)
    {
        const char *nm = json_string_value(json_object_get(c, "name"));
        if (!strcmp(nm, "vae_decode"))
            ck_assert_uint_eq(json_integer_value(json_object_get(c, "bytes")), 637534208ull);
        if (!strcmp(nm, "vae_decode_cache"))
            ck_assert_uint_eq(json_integer_value(json_object_get(c, "bytes")),
                              1153433600ull - 637534208ull);
    }
    ck_assert_int_eq(run(ip, &st, "resolution 1024x1024", &err), 0);
    /* another rule: the cache it split off goes */
    ck_assert_int_eq(run(ip, &st, "estimate decode dtype=fp16 rule=invokeai\nenvelope", &err), 0);
    ck_assert_uint_eq(json_integer_value(json_object_get(lastp(&st), "cache_bytes")), 0);
    json_array_foreach(json_object_get(lastp(&st), "components"), i, c)
        ck_assert_str_ne(json_string_value(json_object_get(c, "name")), "vae_decode_cache");
    ck_assert_int_eq(run(ip, &st, "estimate decode dtype=fp16 rule=fitted", &err), VS_EVALUE);
    ck_assert_int_eq(run(ip, &st, "estimate decode dtype=fp16 rule=invokeai live=5", &err),
                     VS_EVALUE);
    ck_assert_int_eq(run(ip, &st, "estimate decode dtype=fp16 blocks=128,,512", &err), VS_EVALUE);
    /* a tile the decoder cannot upsample to: an error at the line, the sheet unchanged */
    ck_assert_int_eq(run(ip, &st, "estimate decode dtype=fp16 rule=diffusers tile=500", &err),
                     VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "multiples of 8"));
    ck_assert_int_eq(err.line, 1);
    /* rule=diffusers, the decoder's tensors: at 1024 x 1024 fp16 the last up block's
     * first resnet, its 256-channel input beside norm1's and the SiLU's outputs,
     * 3 x 256 x 1024 x 1024 x 2 B; then a recompute when the card moves, 512 x 512 */
    ck_assert_int_eq(run(ip, &st, "estimate decode dtype=fp16 rule=diffusers", &err), 0);
    p = lastp(&st);
    json_array_foreach(json_object_get(p, "components"), i,
                       c) if (!strcmp(json_string_value(json_object_get(c, "name")), "vae_decode"))
        ck_assert_uint_eq(json_integer_value(json_object_get(c, "bytes")),
                          3ull * 256 * 1024 * 1024 * 2);
    ck_assert_int_eq(run(ip, &st, "resolution 512x512\nenvelope", &err), 0);
    p = lastp(&st);
    json_array_foreach(json_object_get(p, "components"), i,
                       c) if (!strcmp(json_string_value(json_object_get(c, "name")), "vae_decode"))
        ck_assert_uint_eq(json_integer_value(json_object_get(c, "bytes")),
                          3ull * 256 * 512 * 512 * 2);
    /* another decoder: two blocks of 64 and 128 channels, one layer each, at 512 x
     * 512 (a latent of 256 x 256): the last block's first resnet, 128 -> 64 channels,
     * its input beside norm1's and the SiLU's outputs, 3 x 128 x 512 x 512 x 2 B */
    ck_assert_int_eq(run(ip, &st, "estimate decode dtype=fp16 blocks=64,128 layers=1", &err), 0);
    p = lastp(&st);
    json_array_foreach(json_object_get(p, "components"), i,
                       c) if (!strcmp(json_string_value(json_object_get(c, "name")), "vae_decode"))
        ck_assert_uint_eq(json_integer_value(json_object_get(c, "bytes")),
                          3ull * 128 * 512 * 512 * 2);
    /* the older AttnProcessor in the mid block, at 1024 x 1024 fp16: two float32
     * score matrices over 128 x 128 latent tokens, one head, beside six 512-channel
     * tensors at 128 x 128, above the last block's 3 x 256 channels */
    ck_assert_int_eq(
        run(ip, &st,
            "resolution 1024x1024\nestimate decode dtype=fp16 rule=diffusers attention=eager",
            &err),
        0);
    p = lastp(&st);
    json_array_foreach(json_object_get(p, "components"), i,
                       c) if (!strcmp(json_string_value(json_object_get(c, "name")), "vae_decode"))
        ck_assert_uint_eq(json_integer_value(json_object_get(c, "bytes")),
                          2ull * 16384 * 16384 * 4 + 6ull * 512 * 128 * 128 * 2);
    /* workspace=4 (the default's, rule=split): cuDNN's workspace, 4 B per element of a 3 x 3
     * convolution's input, at 1024 x 1024 fp16 the third up block's upsampler conv: its
     * input (512 channels at 512 x 512), its last resnet's output (256 at 512), the
     * upsampled tensor and the conv's output (256 at 1024) at 2 B, and 256 x 1024 x 1024
     * x 4 B of workspace, above the last block's 3 x 256 channels */
    ck_assert_int_eq(run(ip, &st, "estimate decode dtype=fp16 workspace=4", &err), 0);
    p = lastp(&st);
    json_array_foreach(json_object_get(p, "components"), i,
                       c) if (!strcmp(json_string_value(json_object_get(c, "name")), "vae_decode"))
        ck_assert_uint_eq(json_integer_value(json_object_get(c, "bytes")),
                          512ull * 512 * 512 * 2 + 256ull * 512 * 512 * 2 +
                              2 * 256ull * 1024 * 1024 * 2 + 256ull * 1024 * 1024 * 4);
    ck_assert_int_eq(run(ip, &st, "estimate decode dtype=fp16 rule=invokeai workspace=4", &err),
                     VS_EVALUE);
    ck_assert_int_eq(run(ip, &st, "estimate decode dtype=fp16 workspace=65", &err), VS_EVALUE);
    ck_assert_int_eq(run(ip, &st, "estimate decode dtype=fp16 attention=flash", &err), VS_EVALUE);
    ck_assert_int_eq(run(ip, &st, "estimate decode dtype=fp16 rule=invokeai attention=eager", &err),
                     VS_EVALUE);
    ck_assert_int_eq(
        run(ip, &st, "estimate decode dtype=fp16 rule=diffusers\nresolution 1024x1024", &err), 0);
    ck_assert_int_eq(run(ip, &st, "resolution 1000x1001", &err), VS_EVALUE);
    ck_assert_int_eq(run(ip, &st, "oom phase=decode", &err), 0);
    {
        char *dumped = json_dumps(lastp(&st), 0);
        ck_assert_ptr_nonnull(strstr(dumped, "enable_vae_tiling"));
        free(dumped);
    }
    /* a missing component file: the error names it, the sheet keeps its weights */
    ck_assert_int_eq(unlink(at("vae/diffusion_pytorch_model.safetensors")), 0);
    snprintf(cell, sizeof cell, "model sdxl-other pipeline=%s", dir);
    ck_assert_int_lt(run(ip, &st, cell, &err), 0);
    ck_assert_ptr_nonnull(strstr(err.message, "component vae (AutoencoderKL)"));
    ck_assert_int_eq(run(ip, &st, "weights", &err), 0);
    ck_assert_uint_eq(json_integer_value(json_object_get(lastp(&st), "bytes")), 115660928);
    json_decref(st.bundles);
    vs_interp_free(ip);
    remove_dir();
}
END_TEST

/* The weights an offload placement keeps in host memory are checked against
 * each offer's host=, on a line of their own: 115,660,928 B (the three
 * components' files, as `weights` reads them above) against 100 MB (short by
 * 15,660,928 B: exclude), 1 GB (admissible) and no host= (to-confirm). */
static const json_t *host_req(const json_t *payload, const char *gpu)
{
    size_t i, j;
    json_t *row, *req;
    json_array_foreach(json_object_get(payload, "rows"), i, row)
    {
        if (strcmp(json_string_value(json_object_get(row, "gpu")), gpu))
            continue;
        json_array_foreach(json_object_get(row, "requirements"), j,
                           req) if (!strcmp(json_string_value(json_object_get(req, "name")),
                                            "host-memory")) return req;
    }
    return NULL;
}

/* The component named name in the last payload, or NULL. */
static json_t *comp_named(sink_state *st, const char *name)
{
    json_t *c;
    size_t i;
    json_array_foreach(json_object_get(lastp(st), "components"), i, c)
    {
        if (!strcmp(json_string_value(json_object_get(c, "name")), name))
            return c;
    }
    return NULL;
}

/* The decode's cache is InvokeAI's constant less the tensors' estimate: beside a
 * measured vae_decode (3 GiB, say of reserved memory, the cache in it) it is not
 * stored, and an earlier one goes. A vae_decode_cache the user declared (no
 * "memory": "cache") is not the decode's: another rule leaves it. */
START_TEST(decode_cache_beside_measurements_and_declarations)
{
    vs_interp *ip = vs_interp_new(NULL);
    sink_state st = {json_array()};
    vs_error err;
    json_t *c;
    ck_assert_int_eq(run(ip, &st,
                         "model m params=1e9\nformat fp16\ntask generate-image\nresolution "
                         "1024x1024\nestimate decode dtype=fp16\n"
                         "envelope",
                         &err),
                     0);
    ck_assert_ptr_nonnull(comp_named(&st, "vae_decode_cache"));
    ck_assert_int_eq(run(ip, &st,
                         "reserve vae_decode 3GiB status=measured phase=decode\n"
                         "estimate decode dtype=fp16",
                         &err),
                     0);
    {
        char *all = json_dumps(st.bundles, 0);
        ck_assert_ptr_nonnull(strstr(all, "vae_decode_cache was not stored"));
        free(all);
    }
    ck_assert_int_eq(run(ip, &st, "envelope", &err), 0);
    ck_assert_ptr_null(comp_named(&st, "vae_decode_cache"));
    c = comp_named(&st, "vae_decode");
    ck_assert_uint_eq(json_integer_value(json_object_get(c, "bytes")), 3ull << 30);
    ck_assert_uint_eq(json_integer_value(json_object_get(lastp(&st), "cache_bytes")), 0);
    /* measured first, estimated after: no cache either */
    ck_assert_int_eq(run(ip, &st,
                         "sheet \"other\"\nmodel m params=1e9\nformat fp16\ntask "
                         "generate-image\nresolution 1024x1024\n"
                         "reserve vae_decode 3GiB status=measured phase=decode\n"
                         "estimate decode dtype=fp16\nenvelope",
                         &err),
                     0);
    ck_assert_ptr_null(comp_named(&st, "vae_decode_cache"));
    /* declared, then rule=invokeai: the declaration stays, 1 GB */
    ck_assert_int_eq(run(ip, &st,
                         "sheet \"third\"\nmodel m params=1e9\nformat fp16\ntask "
                         "generate-image\nresolution 1024x1024\n"
                         "reserve vae_decode_cache 1GB phase=decode\n"
                         "estimate decode dtype=fp16 rule=invokeai\nenvelope",
                         &err),
                     0);
    c = comp_named(&st, "vae_decode_cache");
    ck_assert_ptr_nonnull(c);
    ck_assert_uint_eq(json_integer_value(json_object_get(c, "bytes")), 1000000000ull);
    json_decref(st.bundles);
    vs_interp_free(ip);
}
END_TEST

/* vs_verbs_estimate_drop, the one rule the estimators drop an earlier line's
 * component by: a measured one always stays; memory NULL drops an estimate or
 * an unknown; memory "cache" only an estimate that carries it. */
START_TEST(estimate_drop_keeps_measurements_and_declarations)
{
    json_t *s = vs_sheet_new("drop");
    vs_error err;
    static const char *const names[] = {"m", "e", "u", "c", "d"};
    static const char *const status[] = {"measured", "estimated", "unknown", "estimated",
                                         "estimated"};
    size_t i;
    for (i = 0; i < 5; i++)
        ck_assert_int_eq(vs_sheet_set_component(s, names[i], strcmp(status[i], "unknown") != 0,
                                                1000, status[i], NULL, NULL, "activations", &err),
                         0);
    ck_assert_int_eq(vs_sheet_component_index(s, "c"), 3);
    ck_assert_int_eq(vs_sheet_component_index(s, "nope"), -1);
    ck_assert_int_eq(vs_sheet_component_with(s, 3, "memory", json_string("cache")), 0);
    /* memory cache: the measured, the unknown and the plain estimate "d" stay */
    for (i = 0; i < 5; i++)
        ck_assert_int_eq(vs_verbs_estimate_drop(s, names[i], "cache", &err), 0);
    ck_assert_ptr_null(vs_sheet_component(s, "c"));
    ck_assert_uint_eq(json_array_size(json_object_get(s, "components")), 4);
    /* memory NULL: everything but the measurement goes; an absent name is no error */
    for (i = 0; i < 5; i++)
        ck_assert_int_eq(vs_verbs_estimate_drop(s, names[i], NULL, &err), 0);
    ck_assert_uint_eq(json_array_size(json_object_get(s, "components")), 1);
    ck_assert_int_eq(vs_sheet_component_index(s, "m"), 0);
    json_decref(s);
}
END_TEST

START_TEST(offload_checks_host_memory)
{
    vs_interp *ip = vs_interp_new(NULL);
    sink_state st = {json_array()};
    vs_error err;
    char cell[1024];
    const json_t *p, *r;
    build_pipeline();
    snprintf(cell, sizeof cell,
             "model sdxl-mini pipeline=%s\ntask generate-image\n"
             "gpu \"small\" memory=24GB host=100MB\ngpu \"big\" memory=24GB host=1GB\n"
             "gpu \"bare\" memory=24GB\ncandidates",
             dir);
    ck_assert_msg(run(ip, &st, cell, &err) == 0, "%s", err.message);
    /* no offload: no host line */
    ck_assert_ptr_null(host_req(lastp(&st), "small"));
    ck_assert_int_eq(run(ip, &st, "placement offload=model\ncandidates", &err), 0);
    p = lastp(&st);
    r = host_req(p, "small");
    ck_assert_ptr_nonnull(r);
    ck_assert_str_eq(json_string_value(json_object_get(r, "verdict")), "exclude");
    /* 15,660,928 B = 0.01 GiB short; 115,660,928 B = 0.11 GiB, 10^8 B = 0.09 GiB */
    ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(r, "note")), "0.11 GiB"));
    ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(r, "note")), "0.09 GiB"));
    r = host_req(p, "big");
    ck_assert_str_eq(json_string_value(json_object_get(r, "verdict")), "admissible");
    r = host_req(p, "bare");
    ck_assert_str_eq(json_string_value(json_object_get(r, "verdict")), "to-confirm");
    ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(r, "note")), "host="));
    json_decref(st.bundles);
    vs_interp_free(ip);
    remove_dir();
}
END_TEST

/* stages take the generation dimensions; the limit stage follows the card */
START_TEST(stages_hold_resolution_and_frames)
{
    vs_interp *ip = vs_interp_new(NULL);
    sink_state st = {json_array()};
    vs_error err;
    json_t *stages, *x;
    size_t i;
    ck_assert_msg(run(ip, &st,
                      "task generate-video\nresolution 832x480\nframes 81\nbatch 1\n"
                      "stage short width=416 height=240 frames=17 batch=1\nstage limit",
                      &err) == 0,
                  "%s", err.message);
    stages = json_object_get(lastp(&st), "stages");
    ck_assert_uint_eq(json_array_size(stages), 2);
    ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(stages, 0), "frames")), 17);
    ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(stages, 1), "width")), 832);
    ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(stages, 1), "frames")), 81);
    /* the limit stage is the card's: another frame count is refused */
    ck_assert_int_eq(run(ip, &st, "stage limit frames=49", &err), VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "frames"));
    ck_assert_int_eq(run(ip, &st, "frames 121\nstage usual width=832 height=480 frames=81", &err),
                     0);
    json_array_foreach(json_object_get(lastp(&st), "stages"), i, x)
    {
        if (!strcmp(json_string_value(json_object_get(x, "name")), "limit"))
            ck_assert_int_eq(json_integer_value(json_object_get(x, "frames")), 121);
    }
    json_decref(st.bundles);
    vs_interp_free(ip);
}
END_TEST

/* `model ORG/NAME` without config=: a cached snapshot holding a model_index.json */
START_TEST(pipeline_from_the_hf_cache)
{
    vs_interp *ip = vs_interp_new(NULL);
    sink_state st = {json_array()};
    vs_error err;
    char cmd[2048];
    const char *commit = "0123456789abcdef0123456789abcdef01234567";
    build_pipeline();
    snprintf(cmd, sizeof cmd,
             "cd '%s' && mkdir -p hub/models--acme--sdxl-mini/refs "
             "hub/models--acme--sdxl-mini/snapshots/%s && printf %s > "
             "hub/models--acme--sdxl-mini/refs/main && mv model_index.json unet vae text_encoder "
             "tokenizer scheduler hub/models--acme--sdxl-mini/snapshots/%s/",
             dir, commit, commit, commit);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_int_eq(setenv("HF_HUB_CACHE", at("hub"), 1), 0);
    ck_assert_msg(run(ip, &st, "model acme/sdxl-mini variant=fp16\nweights", &err) == 0, "%s",
                  err.message);
    ck_assert_uint_eq(json_integer_value(json_object_get(lastp(&st), "bytes")),
                      37320320ull + 633600 + 77073408);
    ck_assert_int_eq(run(ip, &st, "card", &err), 0);
    ck_assert_str_eq(
        json_string_value(json_object_get(json_object_get(lastp(&st), "card"), "revision")),
        commit);
    /* a component file missing from the snapshot: named, with what fetches it */
    {
        char rel[200];
        snprintf(rel, sizeof rel,
                 "hub/models--acme--sdxl-mini/snapshots/%s/vae/diffusion_pytorch_model.safetensors",
                 commit);
        ck_assert_int_eq(unlink(at(rel)), 0);
    }
    ck_assert_int_lt(run(ip, &st, "model acme/sdxl-mini", &err), 0);
    ck_assert_ptr_nonnull(strstr(err.message, "component vae (AutoencoderKL)"));
    ck_assert_ptr_nonnull(strstr(err.message, "huggingface-cli download acme/sdxl-mini"));
    unsetenv("HF_HUB_CACHE");
    json_decref(st.bundles);
    vs_interp_free(ip);
    remove_dir();
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pipeline");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, parse_sdxl_index);
    tcase_add_test(tc, parse_refuses_bad_indexes);
    tcase_add_test(tc, components_and_total_against_the_tally);
    tcase_add_test(tc, largest_module_is_its_own_tensors);
    tcase_add_test(tc, variant_picks_fp16_and_falls_back);
    tcase_add_test(tc, missing_component_file_is_named_and_sheet_unchanged);
    tcase_add_test(tc, offload_placements_per_gpu);
    tcase_add_test(tc, offload_checks_host_memory);
    tcase_add_test(tc, estimate_drop_keeps_measurements_and_declarations);
    tcase_add_test(tc, decode_cache_beside_measurements_and_declarations);
    tcase_add_test(tc, validates_card_on_resolution_and_frames);
    tcase_add_test(tc, estimator_formulas_by_hand);
    tcase_add_test(tc, generation_requirements);
    tcase_add_test(tc, verbs_end_to_end);
    tcase_add_test(tc, pipeline_from_the_hf_cache);
    tcase_add_test(tc, stages_hold_resolution_and_frames);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
