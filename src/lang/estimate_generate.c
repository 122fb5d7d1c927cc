/* estimate_generate.c — the estimators of image and video generation, as
 * rows of the estimator table (lang/estimators.def): `estimate latents`,
 * `estimate attention`, `estimate decode`. Each reads the card's resolution
 * (width, height), frames and batch, prints its rule with the numbers and
 * stores one estimated component (never over a measured one; the decode by
 * default two: its tensors and the allocator's cache beside them). The arithmetic
 * is in sheet/estimators/{latents,attention,decode}.c. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "lang/derive.h"
#include "lang/verbs_common.h"
#include "lang/verbs_estimate_internal.h"
#include "render/component.h"
#include "sheet/estimate.h"
#include "sheet/sheet.h"
#include "sheet/units.h"
#include "sheet/vocab.h"
#include "util/buf.h"
#include "util/checked.h"

static const vs_derived_read generate_reads[] = {
    {"width", NULL}, {"height", NULL},    {"frames", NULL}, {"batch", NULL},
    {"task", NULL},  {"format", "dtype"}, {NULL, NULL}};

static void grouped(char *out, size_t n, uint64_t v)
{
    vs_units_grouped(out, n, v);
}

/* The card's generation dimensions. */
typedef struct gen_card {
    uint64_t width, height, frames, batch;
    int video;
} gen_card;

static int read_card(gen_card *g, const vs_line *line, const json_t *sheet, const char *sub,
                     vs_error *err)
{
    const char *task = vs_sheet_card_str(sheet, VS_CK_TASK);
    vs_vocab_task task_of;
    if (!vs_sheet_card_uint(sheet, VS_CK_WIDTH, &g->width) ||
        !vs_sheet_card_uint(sheet, VS_CK_HEIGHT, &g->height))
        return vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                               "`estimate %s` uses the card's resolution: set it first "
                               "(`resolution 1024x1024`)",
                               sub);
    if (!vs_sheet_card_uint(sheet, VS_CK_BATCH, &g->batch))
        g->batch = 1;
    g->video =
        task && !vs_vocab_task_parse(&task_of, task, NULL) && task_of == VS_TASK_GENERATE_VIDEO;
    if (!vs_sheet_card_uint(sheet, VS_CK_FRAMES, &g->frames))
        g->frames = 1;
    if (g->video && g->frames <= 1 && !vs_sheet_card_uint(sheet, VS_CK_FRAMES, &g->frames))
        return vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                               "`estimate %s` for task generate-video uses the card's frames: "
                               "set them first (`frames 81`)",
                               sub);
    return 0;
}

/* dtype= on the line, else the card's format when it is 16 or 32 bits. */
static int dtype_bits(unsigned *bits, const char **name, const vs_line *line, const json_t *sheet,
                      vs_error *err)
{
    const vs_arg *d = vs_line_pair(line, "dtype");
    const char *f = vs_sheet_card_str(sheet, VS_CK_FORMAT);
    unsigned fb;
    if (d) {
        if (vs_estimate_dtype_bits(bits, d->value, NULL) < 0)
            return vs_arg_error(d, err,
                                vs_error_set(err, VS_EVALUE, "dtype must be one of %s, not '%s'",
                                             vs_estimate_dtype_names(), d->value));
        *name = d->value;
        return 0;
    }
    if (vs_estimate_dtype_bits(&fb, f, NULL) == 0 && (fb == 16 || fb == 32)) {
        *bits = fb;
        *name = f;
        return 0;
    }
    return vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                           "give dtype=bf16|fp16|fp32 (the computation's dtype; the card's "
                           "format %s does not say it)",
                           f ? f : "is not set and");
}

static int get_pos(const vs_line *line, const char *key, uint64_t def, uint64_t *out, vs_error *err)
{
    int have = 0, rc;
    if ((rc = vs_line_get_uint(line, key, 0, out, &have, err)) < 0)
        return rc;
    if (!have)
        *out = def;
    else if (*out == 0)
        return vs_arg_error(vs_line_pair(line, key), err,
                            vs_error_set(err, VS_EVALUE, "%s= must be at least 1", key));
    return 0;
}

static int get_yesno(const vs_line *line, const char *key, int def, int *out, vs_error *err)
{
    const vs_arg *a = vs_line_pair(line, key);
    *out = def;
    if (!a)
        return 0;
    if (!strcmp(a->value, "yes") || !strcmp(a->value, "true"))
        *out = 1;
    else if (!strcmp(a->value, "no") || !strcmp(a->value, "false"))
        *out = 0;
    else
        return vs_arg_error(
            a, err, vs_error_set(err, VS_EVALUE, "%s= must be yes or no, not '%s'", key, a->value));
    return 0;
}

/* A second component an estimate stores beside its own: the decode's
 * allocator cache ("memory": "cache"). */
typedef struct cache_part {
    const char *name;
    uint64_t bytes;
    const char *source;
} cache_part;

/* Stores one estimate, and cache beside it when not NULL (never over a
 * measured component: vs_verbs_estimate_store_phase), and emits them. */
static int store_emit2(vs_ctx *ctx, json_t *sheet, const char *estimator, const char *name,
                       uint64_t bytes, const char *source, const char *phase, const char *head,
                       const char *const *notes, json_t *inputs_take, const cache_part *cache,
                       vs_error *err)
{
    const char *names[2] = {name, cache ? cache->name : NULL};
    const char *all[8] = {NULL};
    char skip[2][300];
    size_t n = 0, i, k;
    int rc = 1;
    long at;
    for (i = 0; notes && notes[i] && n < 5; i++)
        all[n++] = notes[i];
    for (k = 0; k < (cache ? 2u : 1u); k++) {
        const char *nm = k ? cache->name : name, *src = k ? cache->source : source;
        vs_buf sk = VS_BUF_INIT;
        if (k && rc == 0) {
            /* the cache is the constant less the tensors' estimate, which the
             * sheet did not keep: beside a measurement (often of reserved
             * memory, the cache in it) it would count the cache twice */
            if ((rc = vs_verbs_estimate_drop(sheet, nm, VS_MEMORY_CACHE, err)) < 0) {
                json_decref(inputs_take);
                return rc;
            }
            snprintf(skip[k], sizeof skip[k],
                     "%s was not stored: it is InvokeAI's constant less the estimate of %s, "
                     "which is measured (a measurement of reserved memory holds the cache "
                     "already)",
                     nm, name);
            all[n++] = skip[k];
            continue;
        }
        rc = vs_verbs_estimate_store_phase(sheet, nm, k ? cache->bytes : bytes, src,
                                           VS_CLASS_ACTIVATIONS, phase, &sk, NULL, err);
        if (rc == 0) {
            /* the note without its closing ". ": the notes are joined */
            size_t len = strlen(vs_buf_str(&sk));
            snprintf(skip[k], sizeof skip[k], "%.*s", (int)(len > 2 ? len - 2 : len),
                     vs_buf_str(&sk));
            all[n++] = skip[k];
        }
        vs_buf_free(&sk);
        if (rc < 0) {
            json_decref(inputs_take);
            return rc;
        }
        if (k && rc == 1 && (at = vs_sheet_component_index(sheet, nm)) >= 0 &&
            vs_sheet_component_with(sheet, (size_t)at, VS_MEMORY_KEY,
                                    json_string(VS_MEMORY_CACHE)) < 0) {
            json_decref(inputs_take);
            return vs_error_oom(err);
        }
    }
    return vs_verb_emit(
        ctx,
        vs_render_components(sheet, estimator, names, cache ? 2 : 1, head, all, inputs_take, NULL),
        err);
}

/* Stores one estimate (never over a measured component) and emits it. */
static int store_emit(vs_ctx *ctx, json_t *sheet, const char *estimator, const char *name,
                      uint64_t bytes, const char *source, const char *phase, const char *head,
                      const char *const *notes, json_t *inputs_take, vs_error *err)
{
    return store_emit2(ctx, sheet, estimator, name, bytes, source, phase, head, notes, inputs_take,
                       NULL, err);
}

/* ---------------------------------------------------------------- latents */

static int estimate_latents(vs_ctx *ctx, const vs_line *line, json_t *sheet, vs_error *err)
{
    const vs_arg *nm = vs_line_pair(line, "name");
    const char *name = nm ? nm->value : "latents", *dname = NULL;
    gen_card g;
    uint64_t channels = 0, factor, temporal, lf, bytes;
    unsigned bits = 0;
    int rc, have_c = 0;
    char gb[40], gc[40], gh[40], gw[40], gl[40], gbytes[40], src[600], head[700];
    const char *notes[3] = {NULL};

    if ((rc = vs_line_check_keys(line, vs_estimate_latents_keys, err)) < 0 ||
        (rc = read_card(&g, line, sheet, "latents", err)) < 0 ||
        (rc = dtype_bits(&bits, &dname, line, sheet, err)) < 0 ||
        (rc = vs_line_get_uint(line, "channels", 0, &channels, &have_c, err)) < 0 ||
        (rc = get_pos(line, "factor", 8, &factor, err)) < 0 ||
        (rc = get_pos(line, "temporal", 4, &temporal, err)) < 0)
        return rc;
    if (!have_c || channels == 0)
        return vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                               "`estimate latents` needs channels=C: the VAE's latent_channels "
                               "(its vae/config.json: 4 for SD 1.x and SDXL, 16 for SD3, Flux.1 "
                               "and Wan 2.1)");
    lf = g.video ? vs_estimate_latent_frames(g.frames, temporal) : 1;
    if ((rc = vs_estimate_latents(&bytes, g.batch, channels, g.width, g.height, factor, lf, bits,
                                  err)) < 0)
        return rc;
    grouped(gb, sizeof gb, g.batch);
    grouped(gc, sizeof gc, channels);
    grouped(gh, sizeof gh, g.height / factor);
    grouped(gw, sizeof gw, g.width / factor);
    grouped(gl, sizeof gl, lf);
    grouped(gbytes, sizeof gbytes, bytes);
    if (g.video)
        snprintf(src, sizeof src,
                 "%s batch x %s channels x %s latent frames ((%llu - 1) / %llu + 1) x %s x %s x "
                 "%u/8 B = %s B (%s)",
                 gb, gc, gl, (unsigned long long)g.frames, (unsigned long long)temporal, gh, gw,
                 bits, gbytes, dname);
    else
        snprintf(src, sizeof src, "%s batch x %s channels x %s x %s x %u/8 B = %s B (%s)", gb, gc,
                 gh, gw, bits, gbytes, dname);
    snprintf(head, sizeof head, "estimate latents: %s", src);
    notes[0] = "source: diffusers' prepare_latents, shape (batch, num_channels_latents, height // "
               "vae_scale_factor, width // vae_scale_factor), the factor 2^(len(block_out_channels)"
               " - 1) = 8 for the SD, SDXL, SD3 and Flux.1 VAEs; video pipelines (pipeline_wan.py) "
               "keep (frames - 1) // vae_scale_factor_temporal + 1 latent frames";
    notes[1] = "small beside the denoiser's activations; the scheduler keeps one or two more "
               "copies of this size";
    return store_emit(ctx, sheet, "latents", name, bytes, src, "denoise", head, notes,
                      json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:i}", "batch", (json_int_t)g.batch,
                                "channels", (json_int_t)channels, "width", (json_int_t)g.width,
                                "height", (json_int_t)g.height, "factor", (json_int_t)factor,
                                "latent_frames", (json_int_t)lf, "bits", (int)bits),
                      err);
}

/* -------------------------------------------------------------- attention */

static int estimate_attention(vs_ctx *ctx, const vs_line *line, json_t *sheet, vs_error *err)
{
    const vs_arg *nm = vs_line_pair(line, "name"), *at = vs_line_pair(line, "attention");
    const char *name = nm ? nm->value : "attention_scores", *dname = NULL;
    gen_card g;
    uint64_t heads = 0, patch, down, text = 0, factor, temporal, lf, tokens, bytes = 0, batch;
    unsigned bits = 0;
    int rc, have_h = 0, have_t = 0, cfg = 0, eager = 0;
    char gt[40], gbytes[40], src[700], head[800];
    const char *notes[4] = {NULL};

    if ((rc = vs_line_check_keys(line, vs_estimate_attention_keys, err)) < 0 ||
        (rc = read_card(&g, line, sheet, "attention", err)) < 0 ||
        (rc = dtype_bits(&bits, &dname, line, sheet, err)) < 0 ||
        (rc = vs_line_get_uint(line, "heads", 0, &heads, &have_h, err)) < 0 ||
        (rc = vs_line_get_uint(line, "text_tokens", 0, &text, &have_t, err)) < 0 ||
        (rc = get_pos(line, "patch", 1, &patch, err)) < 0 ||
        (rc = get_pos(line, "downsample", 1, &down, err)) < 0 ||
        (rc = get_pos(line, "factor", 8, &factor, err)) < 0 ||
        (rc = get_pos(line, "temporal", 4, &temporal, err)) < 0 ||
        (rc = get_yesno(line, "cfg", 0, &cfg, err)) < 0)
        return rc;
    if (at) {
        if (!strcmp(at->value, "eager"))
            eager = 1;
        else if (strcmp(at->value, "sdpa") && strcmp(at->value, "flash"))
            return vs_arg_error(at, err,
                                vs_error_set(err, VS_EVALUE,
                                             "attention= must be sdpa, flash or eager, not '%s'",
                                             at->value));
    }
    if (!have_h || heads == 0)
        return vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                               "`estimate attention` needs heads=A: the attention heads at the "
                               "level attending over the most tokens (the denoiser's config.json: "
                               "num_attention_heads, or SDXL's channels / attention_head_dim)");
    lf = g.video ? vs_estimate_latent_frames(g.frames, temporal) : 1;
    if ((rc = vs_estimate_latent_tokens(&tokens, g.width, g.height, factor * patch * down, lf, text,
                                        err)) < 0)
        return rc;
    batch = g.batch * (cfg ? 2 : 1);
    if (eager && (rc = vs_estimate_attention_scores(&bytes, batch, heads, tokens, bits, err)) < 0)
        return rc;
    grouped(gt, sizeof gt, tokens);
    grouped(gbytes, sizeof gbytes, bytes);
    if (eager)
        snprintf(src, sizeof src,
                 "%llu batch%s x %llu heads x %s tokens^2 x %u/8 B = %s B (eager attention: the "
                 "score matrix; tokens = %llu/%llu x %llu/%llu%s%s)",
                 (unsigned long long)batch, cfg ? " (x2 for classifier-free guidance)" : "",
                 (unsigned long long)heads, gt, bits, gbytes, (unsigned long long)g.height,
                 (unsigned long long)(factor * patch * down), (unsigned long long)g.width,
                 (unsigned long long)(factor * patch * down), lf > 1 ? " x latent frames" : "",
                 text ? " + text tokens" : "");
    else
        snprintf(src, sizeof src,
                 "0 B: fused attention (sdpa/flash) never materialises the %s x %s score matrix "
                 "(eager would hold %llu batch x %llu heads x %s^2 x %u/8 B)",
                 gt, gt, (unsigned long long)batch, (unsigned long long)heads, gt, bits);
    snprintf(head, sizeof head, "estimate attention: %s", src);
    notes[0] = "source: eager attention computes softmax(QK^T / sqrt(d)) V with a tokens x tokens "
               "matrix per head (Vaswani et al. 2017); PyTorch's F.scaled_dot_product_attention "
               "(diffusers' default AttnProcessor2_0) and FlashAttention (Dao et al. 2022) work in "
               "tiles and never hold it";
    notes[1] = "latent tokens: (H / 8) x (W / 8) divided by the patch size (2 for DiT, SD3, "
               "Flux.1) and by the UNet level's downsampling (SDXL attends first at 1/2 the "
               "latent); joint-attention models add their text tokens (text_tokens=512 for "
               "Flux.1-dev's T5)";
    notes[2] = "q, k, v and the output (batch x tokens x channels each) are activations of the "
               "denoiser besides this";
    return store_emit(ctx, sheet, "attention", name, bytes, src, "denoise", head, notes,
                      json_pack("{s:I, s:I, s:I, s:b, s:i, s:b}", "tokens", (json_int_t)tokens,
                                "heads", (json_int_t)heads, "batch", (json_int_t)batch, "eager",
                                eager, "bits", (int)bits, "cfg", cfg),
                      err);
}

/* ----------------------------------------------------------------- decode */

/* InvokeAI's measured constant (invokeai/backend/util/vae_working_memory.py),
 * bytes per output pixel per byte of element, set on reserved memory with
 * headroom: the option rule=invokeai. Each further image of a batch adds, on
 * top of it, what one image holds at the full-resolution convolution where
 * the decode peaks: 5 x 128 channels (the tally of sheet/estimators/
 * decoder_kl.c at up_blocks.3 resnets.0 conv1: its 256-channel input, the
 * 256-channel SiLU output it reads and its 128-channel output). */
#define INVOKEAI_DECODE_CONSTANT 2200
#define DECODE_STEP_CHANNELS 128
#define DECODE_STEP_LIVE 5
/* the SD 1.x, SDXL, SD3 and Flux.1 VAEs' vae/config.json */
#define KL_MAX_BLOCKS 8
static const uint64_t kl_default_blocks[] = {128, 256, 512, 512};
#define KL_DEFAULT_LAYERS 2

/* split: the walk's tensors and the allocator's cache up to InvokeAI's
 * constant; diffusers: the walk alone; invokeai: the constant alone; flat:
 * channels x live tensors */
enum decode_rule { RULE_SPLIT, RULE_DIFFUSERS, RULE_INVOKEAI, RULE_FLAT };
#define WALKS(rule) ((rule) == RULE_SPLIT || (rule) == RULE_DIFFUSERS)
/* cuDNN's workspace under rule=split, bytes per element (note_workspace) */
#define SPLIT_WORKSPACE 4

/* blocks=128,256,512,512: the VAE's block_out_channels */
static int get_blocks(const vs_line *line, uint64_t *blocks, size_t *n, vs_error *err)
{
    const vs_arg *a = vs_line_pair(line, "blocks");
    const char *p;
    *n = 0;
    if (!a) {
        memcpy(blocks, kl_default_blocks, sizeof kl_default_blocks);
        *n = sizeof kl_default_blocks / sizeof kl_default_blocks[0];
        return 0;
    }
    for (p = a->value; *p;) {
        uint64_t v = 0;
        int digits = 0;
        while (*p >= '0' && *p <= '9' && v < 1000000) {
            v = v * 10 + (uint64_t)(*p++ - '0');
            digits++;
        }
        if (!digits || v == 0 || v > 65536 || *n == KL_MAX_BLOCKS || (*p && *p != ','))
            return vs_arg_error(
                a, err,
                vs_error_set(err, VS_EVALUE,
                             "blocks= is the VAE's block_out_channels, 1 to 8 widths of 1 to "
                             "65,536 between commas (blocks=128,256,512,512), not '%s'",
                             a->value));
        blocks[(*n)++] = v;
        if (*p == ',' && !*++p)
            return vs_arg_error(a, err, vs_error_set(err, VS_EVALUE, "blocks= ends with a comma"));
    }
    return 0;
}

static int get_rule(const vs_line *line, enum decode_rule *rule, vs_error *err)
{
    const vs_arg *r = vs_line_pair(line, "rule");
    int flat = vs_line_pair(line, "channels") || vs_line_pair(line, "live");
    /* The decode in two parts by default (rule=split): the decoder's tensors,
     * walked with cuDNN's workspace fitted to InvokeAI's decodes of the VAE
     * alone (workspace=4), what max_memory_allocated counts; and the caching
     * allocator's reserved-but-free memory up to InvokeAI's constant, which
     * was set on reserved memory. Against published runs each part fits its
     * own counter: the SDXL rows on max_memory_allocated by the tensors (the
     * constant read them +18% to +29%), the FLUX.1-dev rows on
     * max_memory_reserved by the whole (the tensors alone read them -10% to
     * -14%). blocks= or layers= name another decoder than the one InvokeAI
     * measured: its tensors alone (rule=diffusers). A video VAE (Wan 2.1's
     * causal 3D one) is not diffusers' AutoencoderKL either */
    *rule = flat                                                           ? RULE_FLAT
            : vs_line_pair(line, "blocks") || vs_line_pair(line, "layers") ? RULE_DIFFUSERS
                                                                           : RULE_SPLIT;
    if (!r)
        return 0;
    if (flat)
        return vs_arg_error(
            r, err,
            vs_error_set(err, VS_EVALUE, "rule= and channels=/live= are two rules: give one"));
    if (!strcmp(r->value, "split"))
        *rule = RULE_SPLIT;
    else if (!strcmp(r->value, "diffusers"))
        *rule = RULE_DIFFUSERS;
    else if (!strcmp(r->value, "invokeai"))
        *rule = RULE_INVOKEAI;
    else
        return vs_arg_error(r, err,
                            vs_error_set(err, VS_EVALUE,
                                         "rule= must be split (the decoder's tensors and the "
                                         "allocator's cache up to InvokeAI's reserved constant, "
                                         "the default), diffusers (the decoder's tensors, "
                                         "allocated) or invokeai (the constant alone, reserved "
                                         "memory), not '%s'",
                                         r->value));
    return 0;
}

/* InvokeAI's constant for the decode: one image x frames x h x w x bits/8 x
 * 2200, and each further image what it holds at the convolution where the
 * decode peaks. */
static int invokeai_bytes(uint64_t *out, uint64_t batch, uint64_t frames, uint64_t w, uint64_t h,
                          unsigned bits, vs_error *err)
{
    uint64_t more = 0;
    int rc;
    if ((rc = vs_estimate_decode(out, 1, frames, w, h, bits, INVOKEAI_DECODE_CONSTANT, err)) < 0)
        return rc;
    if (batch > 1 &&
        (rc = vs_estimate_decode(&more, batch - 1, frames, w, h, bits,
                                 (uint64_t)DECODE_STEP_CHANNELS * DECODE_STEP_LIVE, err)) < 0)
        return rc;
    if (vs_checked_add(out, *out, more))
        return vs_error_set(err, VS_EUNIT, "the VAE decode does not fit in 64 bits");
    return 0;
}

static const char note_diffusers[] =
    "rule (diffusers' AutoencoderKL under torch.no_grad, read tensor by tensor): "
    "models/autoencoders/vae.py Decoder.forward (9578d7e) keeps each up block's input while the "
    "block runs; models/resnet.py ResnetBlock2D.forward (0019408) holds its input beside norm1's "
    "and SiLU's outputs, and beside conv2's output, the shortcut, the residual sum and its "
    "division by output_scale_factor; models/upsampling.py Upsample2D.forward (049ca38) "
    "interpolates to twice the side (in float32 for a bfloat16 input, cast back) before its "
    "conv; the mid block's SDPA attention holds no score matrix (attention=eager: the older "
    "AttnProcessor's two float32 score matrices, models/attention_processor.py "
    "get_attention_scores). Allocated memory "
    "(max_memory_allocated): the cuDNN convolution workspace is not counted but with "
    "workspace= (PyTorch takes cuDNN's heuristic choice with no cap: "
    "aten/src/ATen/native/cudnn/Conv_v8.cpp at 06ca69c), "
    "nor reserved-but-free memory (rule=split, the default, adds it as vae_decode_cache); "
    "rule=invokeai gives InvokeAI's constant, measured on reserved memory";

static const char note_split[] =
    "rule=split (the default): the decode in two parts, each from its own InvokeAI source. The "
    "decoder's tensors with cuDNN's workspace=4, fitted to InvokeAI's vae_benchmarks "
    "(invoke-ai/InvokeAI at 7785061, max_memory_allocated): what "
    "torch.cuda.max_memory_allocated counts. Beside them vae_decode_cache (NAME_cache with "
    "name=), class activations, memory cache: the caching allocator's reserved-but-free memory at "
    "the decode, max(0, InvokeAI's "
    "constant - the tensors), the constant of invokeai/backend/util/vae_working_memory.py at "
    "09dadda (2200 B per output pixel per byte of element, set on reserved memory with headroom: "
    "InvokeAI pull requests 7674 and 8414). The split is empirical, reserved less allocated as "
    "InvokeAI's two measurements give it, headroom included, not read in PyTorch's allocator; "
    "the envelope and every capacity verdict count both (the GPU holds what is reserved), "
    "tensors_bytes and compare's tensors row leave the cache out";

/* cuDNN's convolution workspace (workspace=B): no source states its size, so
 * it is fitted, and only on published decodes of the VAE alone: InvokeAI's
 * vae_benchmarks (invoke-ai/InvokeAI at 7785061, sd_vae_benchmark_results.json,
 * VAE_BENCHMARK_REPORT.md at fc1e4b0): the SD 1.5 and SDXL VAEs, one image,
 * fp16 and fp32, 512 to 2048 px square, an RTX 4090, max_memory_allocated less
 * what was allocated before. Beside the tensors of the walk's step at the
 * third up block's upsampler conv (256 channels at the full side) every one of
 * the ten decodes holds 1,024 B per output pixel more, in both dtypes (1,024.5
 * to 1,033 B, a constant of about 2 MiB besides): 4 B per element of that
 * convolution's input. The generation rows of test_published are held out
 * against it. */
static const char note_workspace[] =
    "workspace=B: cuDNN's convolution workspace, B bytes per element of each 3 x 3 "
    "convolution's input, beside the tensors of the convolution's step; 4 is fitted to "
    "InvokeAI's published decodes of the SD 1.5 and SDXL VAEs alone (invoke-ai/InvokeAI "
    "vae_benchmarks at 7785061: one image, fp16 and fp32, 512 to 2048 px, an RTX 4090, "
    "max_memory_allocated): 1,024 B per output pixel at the upsampler's conv before the last "
    "up block, in both dtypes. A fit to one GPU's cuDNN, not a rule read in a source; it "
    "grows with the batch here as the convolution's input does";

static const char note_invokeai[] =
    "rule=invokeai: InvokeAI, invokeai/backend/util/vae_working_memory.py "
    "(estimate_vae_working_memory_sd15_sdxl): 2200 bytes per output pixel per byte of element "
    "for the SD 1.x and SDXL AutoencoderKL, set on reserved memory with headroom (InvokeAI pull "
    "requests 7674 and 8414: it sizes the cache it keeps free), one image at a time; each "
    "further image of a batch adds what one image holds at the full-resolution convolution "
    "where the decode peaks, 128 channels x 5 live tensors (up_blocks.3 resnets.0 conv1: its "
    "256-channel input, the SiLU output it reads, its 128-channel output). Against "
    "max_memory_allocated it is high: one fp32 1024 x 1024 image counts 8.6 GiB where the "
    "decoder's tensors are 3.0";

static int estimate_decode(vs_ctx *ctx, const vs_line *line, json_t *sheet, vs_error *err)
{
    const vs_arg *nm = vs_line_pair(line, "name"), *at = vs_line_pair(line, "attention");
    const char *name = nm ? nm->value : "vae_decode", *dname = NULL;
    gen_card g;
    uint64_t channels = 0, live = 0, tile = 0, layers = KL_DEFAULT_LAYERS, per_pixel = 0, bytes, w,
             h, batch, frames, blocks[KL_MAX_BLOCKS], ws = 0;
    size_t n_blocks = 0, i;
    unsigned bits = 0;
    int rc, have_c = 0, have_l = 0, have_t = 0, have_y = 0, have_w = 0, slicing = 0, eager = 0;
    enum decode_rule rule;
    vs_decode_peak kl = {0, 0, 0, ""};
    char gw[40], gh[40], gbytes[40], gp[40], gws[40], src[800], head[900], rule_s[200],
        bl[80] = "", wss[120] = "", cname[200], csrc[600];
    const char *notes[6] = {NULL};
    cache_part cache = {cname, 0, csrc};

    if ((rc = vs_line_check_keys(line, vs_estimate_decode_keys, err)) < 0 ||
        (rc = read_card(&g, line, sheet, "decode", err)) < 0 ||
        (rc = dtype_bits(&bits, &dname, line, sheet, err)) < 0 ||
        (rc = get_rule(line, &rule, err)) < 0 ||
        (rc = get_blocks(line, blocks, &n_blocks, err)) < 0 ||
        (rc = vs_line_get_uint(line, "channels", 0, &channels, &have_c, err)) < 0 ||
        (rc = vs_line_get_uint(line, "live", 0, &live, &have_l, err)) < 0 ||
        (rc = vs_line_get_uint(line, "layers", 0, &layers, &have_y, err)) < 0 ||
        (rc = vs_line_get_uint(line, "tile", 0, &tile, &have_t, err)) < 0 ||
        (rc = vs_line_get_uint(line, "workspace", 0, &ws, &have_w, err)) < 0 ||
        (rc = get_yesno(line, "slicing", 0, &slicing, err)) < 0)
        return rc;
    if (!WALKS(rule) && (vs_line_pair(line, "blocks") || have_y || at || have_w))
        return vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                               "blocks=, layers=, attention= and workspace= describe the decoder "
                               "diffusers' rule walks (rule=split or rule=diffusers)");
    if (rule == RULE_SPLIT && !have_w)
        ws = SPLIT_WORKSPACE;
    if (ws > 64)
        return vs_arg_error(vs_line_pair(line, "workspace"), err,
                            vs_error_set(err, VS_EVALUE,
                                         "workspace= is bytes per element of a convolution's "
                                         "input, 0 to 64 (4: the fitted figure)"));
    if (at && strcmp(at->value, "sdpa") && strcmp(at->value, "eager"))
        return vs_arg_error(at, err,
                            vs_error_set(err, VS_EVALUE,
                                         "attention= must be sdpa (AttnProcessor2_0, the default "
                                         "under torch 2) or eager (AttnProcessor: its score "
                                         "matrices), not '%s'",
                                         at->value));
    eager = at && !strcmp(at->value, "eager");
    if (rule == RULE_FLAT) {
        if (!have_c)
            channels = 128;
        if (!have_l)
            live = 6;
        if (!channels || !live)
            return vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                                   "channels= and live= must be at least 1");
        per_pixel = channels;
        if (vs_checked_mul(&per_pixel, channels, live))
            return vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                                   "channels= x live= does not fit in 64 bits");
        snprintf(rule_s, sizeof rule_s, "%llu channels x %llu live tensors",
                 (unsigned long long)channels, (unsigned long long)live);
    } else if (rule == RULE_INVOKEAI) {
        per_pixel = INVOKEAI_DECODE_CONSTANT;
        snprintf(rule_s, sizeof rule_s, "2200 (InvokeAI's constant, reserved memory)");
    }
    if (have_t && tile == 0)
        return vs_arg_error(vs_line_pair(line, "tile"), err,
                            vs_error_set(err, VS_EVALUE, "tile= must be at least 1 (pixels)"));
    w = have_t && tile < g.width ? tile : g.width;
    h = have_t && tile < g.height ? tile : g.height;
    batch = slicing ? 1 : g.batch;
    frames = g.video ? g.frames : 1;
    grouped(gw, sizeof gw, w);
    grouped(gh, sizeof gh, h);
    if (WALKS(rule)) {
        size_t off = 0;
        if ((rc = vs_estimate_decode_kl(&kl,
                                        &(vs_decode_kl){.blocks = blocks,
                                                        .n_blocks = n_blocks,
                                                        .layers = layers,
                                                        .batch = batch,
                                                        .frames = frames,
                                                        .width = w,
                                                        .height = h,
                                                        .bits = bits,
                                                        .bf16 = dname && !strcmp(dname, "bf16"),
                                                        .eager = eager,
                                                        .ws = (unsigned)ws},
                                        err)) < 0) {
            char m[VS_ERROR_MESSAGE_MAX];
            snprintf(m, sizeof m, "%s", err->message);
            return vs_error_set_at(err, rc, line->line, line->column, "%s", m);
        }
        bytes = kl.bytes;
        for (i = 0; i < n_blocks && off + 8 < sizeof bl; i++)
            off += (size_t)snprintf(bl + off, sizeof bl - off, "%s%llu", i ? "," : "",
                                    (unsigned long long)blocks[i]);
        grouped(gbytes, sizeof gbytes, bytes);
        grouped(gp, sizeof gp, kl.per_image_pixel);
        if (ws) {
            grouped(gws, sizeof gws, kl.workspace);
            snprintf(wss, sizeof wss, ", cuDNN's workspace %llu B per input element (%s B of it)",
                     (unsigned long long)ws, gws);
        }
        snprintf(src, sizeof src,
                 "%llu batch%s x %llu frames x %s x %s px%s x %s B per pixel at the decoder's "
                 "peak, %s (block_out_channels %s, layers_per_block %llu, %s%s) = %s B",
                 (unsigned long long)batch, slicing ? " (slicing: one at a time)" : "",
                 (unsigned long long)frames, gh, gw, have_t ? " (one tile)" : "", gp, kl.step, bl,
                 (unsigned long long)layers, dname, wss, gbytes);
        notes[0] = note_diffusers;
        if (rule == RULE_SPLIT) {
            /* the reserved-but-free memory: InvokeAI's constant less the tensors */
            uint64_t inv;
            char ginv[40], gc[40];
            if ((rc = invokeai_bytes(&inv, batch, frames, w, h, bits, err)) < 0)
                return rc;
            cache.bytes = inv > bytes ? inv - bytes : 0;
            grouped(ginv, sizeof ginv, inv);
            grouped(gc, sizeof gc, cache.bytes);
            snprintf(cname, sizeof cname, "%s_cache", name);
            snprintf(csrc, sizeof csrc,
                     "the caching allocator's reserved-but-free memory at the decode: max(0, "
                     "InvokeAI's reserved constant %s B (1 image x %s x %s px x %u/8 B x 2200%s) "
                     "- the decoder's tensors %s B) = %s B",
                     ginv, gh, gw, bits,
                     batch > 1 ? " + each further image's 128 x 5 channels" : "", gbytes, gc);
            notes[1] = note_split;
        }
    } else {
        /* the measured constant is one image's decode (InvokeAI decodes one
         * at a time), what does not grow with the batch included */
        if ((rc = rule == RULE_INVOKEAI
                      ? invokeai_bytes(&bytes, batch, frames, w, h, bits, err)
                      : vs_estimate_decode(&bytes, batch, frames, w, h, bits, per_pixel, err)) < 0)
            return rc;
        grouped(gbytes, sizeof gbytes, bytes);
        if (rule == RULE_INVOKEAI && batch > 1)
            snprintf(src, sizeof src,
                     "1 image x %llu frames x %s x %s px%s x %u/8 B x %s + %llu more x the same "
                     "pixels x %u/8 B x 128 channels x 5 live tensors = %s B",
                     (unsigned long long)frames, gh, gw, have_t ? " (one tile)" : "", bits, rule_s,
                     (unsigned long long)(batch - 1), bits, gbytes);
        else
            snprintf(src, sizeof src,
                     "%llu batch%s x %llu frames x %s x %s px%s x %u/8 B x %s = %s B",
                     (unsigned long long)batch, slicing ? " (slicing: one at a time)" : "",
                     (unsigned long long)frames, gh, gw, have_t ? " (one tile)" : "", bits, rule_s,
                     gbytes);
        notes[0] = rule == RULE_INVOKEAI
                       ? note_invokeai
                       : "rule: channels x live tensors at full resolution for every image, "
                         "activations only (rule=diffusers walks the decoder's tensors "
                         "instead)";
    }
    snprintf(head, sizeof head, "estimate decode (phase decode): %s", src);
    for (i = 0; notes[i]; i++)
        ;
    notes[i] = "what to change when it overflows: pipe.enable_vae_tiling() (tile=512 here: one "
               "tile at a time), pipe.enable_vae_slicing() (slicing=yes: one image of the batch at "
               "a time), a lower resolution, fewer frames";
    if (g.video)
        notes[++i] = WALKS(rule)
                         ? "video: every frame through the 2D decoder at once, an upper bound; "
                           "causal video VAEs (Wan 2.1's) decode a few latent frames at a time"
                         : "video: every frame counted at once, an upper bound; causal video VAEs "
                           "(Wan 2.1's) decode a few latent frames at a time, which a measurement "
                           "shows (a video VAE is not diffusers' AutoencoderKL)";
    if (ws) {
        for (i = 0; notes[i]; i++)
            ;
        notes[i] = note_workspace;
    }
    /* another rule now: the cache an earlier line split off goes */
    if (rule != RULE_SPLIT) {
        snprintf(cname, sizeof cname, "%s_cache", name);
        if ((rc = vs_verbs_estimate_drop(sheet, cname, VS_MEMORY_CACHE, err)) < 0)
            return rc;
    }
    return store_emit2(ctx, sheet, "decode", name, bytes, src, "decode", head, notes,
                       json_pack("{s:I, s:I, s:I, s:I, s:I, s:i, s:s, s:b, s:s?, s:I, s:I}",
                                 "width", (json_int_t)w, "height", (json_int_t)h, "frames",
                                 (json_int_t)frames, "batch", (json_int_t)batch, "per_pixel",
                                 (json_int_t)(WALKS(rule) ? kl.per_image_pixel : per_pixel), "bits",
                                 (int)bits, "rule",
                                 rule == RULE_SPLIT       ? "split"
                                 : rule == RULE_DIFFUSERS ? "diffusers"
                                 : rule == RULE_INVOKEAI  ? "invokeai"
                                                          : "channels",
                                 "slicing", slicing, "peak_step", WALKS(rule) ? kl.step : NULL,
                                 "workspace_bytes", (json_int_t)kl.workspace, "cache_bytes",
                                 (json_int_t)cache.bytes),
                       rule == RULE_SPLIT ? &cache : NULL, err);
}

const vs_estimator vs_estimator_row_latents = {&vs_estimator_latents, estimate_latents,
                                               generate_reads};
const vs_estimator vs_estimator_row_attention = {&vs_estimator_attention, estimate_attention,
                                                 generate_reads};
const vs_estimator vs_estimator_row_decode = {&vs_estimator_decode, estimate_decode,
                                              generate_reads};
