/* The envelope against published peaks: each row of tests/data/published/peaks.tsv
 * is a run someone measured and printed (torchtune's README tables, Unsloth's README
 * table of the longest context a card fits, the SDXL optimisation notebook, the
 * FLUX.1-dev quantisation post's bf16, BnB and FP8 rows and its benchmark table's runs
 * under model CPU offload, and, held out, the peak reserved memory three of Unsloth's Colab
 * notebooks print in their saved outputs), with its
 * link, its settings and the cells that say the same run to the kernel. The cells run as a
 * person would type them; the envelope's known part is compared with the published
 * figure. Every figure here was printed by a PyTorch allocator counter, which
 * does not see CUDA managed memory, and each row names its counter (the
 * counter column): one of live tensors (allocated: max_memory_allocated;
 * active: torchtune's peak active) is compared with the envelope's
 * tensors_bytes, one of reserved memory (reserved: max_memory_reserved, and
 * a card's size, which must hold it) with allocator_bytes, the envelope less
 * its managed part (a paged optimizer's state); the two differ by the
 * caching allocator's reserved-but-free memory the VAE decode's second part
 * stands for (allocator cache). The test checks those parts by hand where a
 * row has one. A row marked
 * within must come within 10%; a row marked miss is a known gap (the page says
 * which and why) and must stay outside 10%, so that closing it updates the
 * table. A row whose unit is "GB card" (Unsloth's longest context a card fits)
 * is a capacity claim, not a peak: its error is the sheet's longest context on
 * that card against the published length, in tokens (capacity_error): Unsloth's docs
 * say of that table only "We tested Llama 3.1 (8B) Instruct ... with a batch size of 1.
 * We padded all sequences to a certain maximum sequence length", naming no GPU, and its
 * rows lie on one line in the card's size, so which were run is not known. The
 * errors print per row, with the median and the worst per kind. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lang/interp.h"
#include "util/buf.h"

#include "check_run.h"
#include "results.h"

#include "cell_run.h"
#include "test_tmp.h"

#ifndef VS_PUBLISHED_TSV
#error "VS_PUBLISHED_TSV (tests/data/published/peaks.tsv) must be defined"
#endif
#ifndef VS_MODEL_CONFIGS
#error "VS_MODEL_CONFIGS (the tests/model/configs folder) must be defined"
#endif
#ifndef VS_SDXL_PIPELINE
#error "VS_SDXL_PIPELINE (notebooks/pipelines/sdxl-base-1.0) must be defined"
#endif
#ifndef VS_FLUX_PIPELINE
#error "VS_FLUX_PIPELINE (tests/data/pipelines/flux.1-dev) must be defined"
#endif

#define MAX_ROWS 64

typedef struct {
    char id[32], kind[16], expect[8], set[12], unit[16], counter[12], dims[160];
    double published, per_unit;
    char *cells;
    double err;
    long long reach; /* a bound row: the length a sequence at which the sheet reaches the peak */
} row;

static char tmpdir[256];

static void copy_file(const char *from, const char *to)
{
    char buf[8192];
    size_t n;
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    ck_assert_ptr_nonnull(in);
    ck_assert_ptr_nonnull(out);
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        ck_assert_uint_eq(fwrite(buf, 1, n, out), n);
    fclose(in);
    fclose(out);
}

static unsigned dtype_size(const char *d)
{
    return !strcmp(d, "F32") ? 4 : !strcmp(d, "F16") || !strcmp(d, "BF16") ? 2 : 1;
}

/* One component folder: its config.json, and its tensors.txt (NAME DTYPE 1280x320
 * lines under a `# file NAME` line) written as a safetensors file whose data is
 * a hole: the header, then the exact size. */
static void write_component(const char *from, const char *to, const char *comp)
{
    char src[600], dst[900], line[512], file[512] = "", name[256], dtype[16], shape[128];
    vs_buf h = VS_BUF_INIT;
    uint64_t off = 0;
    unsigned char len8[8];
    size_t k;
    FILE *f;
    snprintf(dst, sizeof dst, "%s/%s/%s", tmpdir, to, comp);
    ck_assert_int_eq(mkdir(dst, 0700), 0);
    snprintf(src, sizeof src, "%s/%s/config.json", from, comp);
    snprintf(dst, sizeof dst, "%s/%s/%s/config.json", tmpdir, to, comp);
    copy_file(src, dst);
    snprintf(src, sizeof src, "%s/%s/tensors.txt", from, comp);
    f = fopen(src, "r");
    ck_assert_ptr_nonnull(f);
    vs_buf_putc(&h, '{');
    while (fgets(line, sizeof line, f)) {
        uint64_t n = 1;
        char *p, *save = NULL;
        if (!strncmp(line, "# file ", 7)) {
            snprintf(file, sizeof file, "%s", line + 7);
            file[strcspn(file, "\r\n")] = 0;
            continue;
        }
        if (line[0] == '#' || sscanf(line, "%255s %15s %127s", name, dtype, shape) != 3)
            continue;
        vs_buf_printf(&h, "%s\"%s\":{\"dtype\":\"%s\",\"shape\":[", off || h.len > 1 ? "," : "",
                      name, dtype);
        for (p = strtok_r(shape, "x", &save), k = 0; p; p = strtok_r(NULL, "x", &save), k++) {
            n *= strtoull(p, NULL, 10);
            vs_buf_printf(&h, "%s%s", k ? "," : "", p);
        }
        n *= dtype_size(dtype);
        vs_buf_printf(&h, "],\"data_offsets\":[%llu,%llu]}", (unsigned long long)off,
                      (unsigned long long)(off + n));
        off += n;
    }
    fclose(f);
    vs_buf_putc(&h, '}');
    ck_assert(file[0] != 0);
    snprintf(dst, sizeof dst, "%s/%s/%s/%s", tmpdir, to, comp, file);
    f = fopen(dst, "wb");
    ck_assert_ptr_nonnull(f);
    for (k = 0; k < 8; k++)
        len8[k] = (unsigned char)((h.len >> (8 * k)) & 0xff);
    fwrite(len8, 1, 8, f);
    fwrite(h.data, 1, h.len, f);
    ck_assert_int_eq(ftruncate(fileno(f), (off_t)(8 + h.len + off)), 0);
    fclose(f);
    vs_buf_free(&h);
}

/* A pipeline folder (model_index.json and its components) written under tmpdir/to. */
static void write_pipeline(const char *from, const char *to, const char *const *comps, size_t n)
{
    char src[600], dst[600];
    size_t i;
    snprintf(dst, sizeof dst, "%s/%s", tmpdir, to);
    ck_assert_int_eq(mkdir(dst, 0700), 0);
    snprintf(src, sizeof src, "%s/model_index.json", from);
    snprintf(dst, sizeof dst, "%s/%s/model_index.json", tmpdir, to);
    copy_file(src, dst);
    for (i = 0; i < n; i++)
        write_component(from, to, comps[i]);
}

static void write_pipelines(void)
{
    static const char *const sdxl[] = {"text_encoder", "text_encoder_2", "unet", "vae"};
    static const char *const flux[] = {"text_encoder", "text_encoder_2", "transformer", "vae"};
    write_pipeline(VS_SDXL_PIPELINE, "sdxl", sdxl, 4);
    write_pipeline(VS_FLUX_PIPELINE, "flux", flux, 4);
}

/* The cells of a row: `\n` between lines, the placeholders filled. */
static char *cells_of(const char *id, const char *raw)
{
    vs_buf b = VS_BUF_INIT;
    const char *p = raw;
    vs_buf_printf(&b, "sheet \"%s\"\n", id);
    while (*p) {
        if (!strncmp(p, "\\n", 2)) {
            vs_buf_putc(&b, '\n');
            p += 2;
        } else if (!strncmp(p, "@CONFIGS@", 9)) {
            vs_buf_puts(&b, VS_MODEL_CONFIGS);
            p += 9;
        } else if (!strncmp(p, "@SDXL@", 6) || !strncmp(p, "@FLUX@", 6)) {
            vs_buf_printf(&b, "%s/%s", tmpdir, p[1] == 'S' ? "sdxl" : "flux");
            p += 6;
        } else {
            vs_buf_putc(&b, *p++);
        }
    }
    return b.data;
}

static size_t read_rows(row *rows)
{
    FILE *f = fopen(VS_PUBLISHED_TSV, "r");
    static char line[8192];
    size_t n = 0;
    ck_assert_ptr_nonnull(f);
    while (fgets(line, sizeof line, f)) {
        char *col[14], *rest = line, *p;
        size_t k = 0;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        line[strcspn(line, "\r\n")] = 0;
        while ((p = strsep(&rest, "\t")) && k < 14) /* an empty note is a column too */
            col[k++] = p;
        ck_assert_msg(k == 14, "a row of %zu columns in %s", k, VS_PUBLISHED_TSV);
        ck_assert_msg(!strcmp(col[13], "allocated") || !strcmp(col[13], "active") ||
                          !strcmp(col[13], "reserved") || !strcmp(col[13], "card"),
                      "%s: counter '%s', expected allocated, active, reserved or card", col[0],
                      col[13]);
        ck_assert_msg(!strcmp(col[9], "within") || !strcmp(col[9], "miss") ||
                          !strcmp(col[9], "bound"),
                      "%s: expect '%s', expected within, miss or bound", col[0], col[9]);
        ck_assert_msg(strcmp(col[9], "bound") || strstr(col[5], "length<="),
                      "%s: expect bound, but its dims state no bound on the length", col[0]);
        ck_assert_msg(!strcmp(col[12], "fit") || !strcmp(col[12], "held-out"),
                      "%s: set '%s', expected fit or held-out", col[0], col[12]);
        ck_assert_uint_lt(n, MAX_ROWS);
        ck_assert_msg(!strncmp(col[2], "https://", 8), "%s: no link", col[0]);
        snprintf(rows[n].id, sizeof rows[n].id, "%s", col[0]);
        snprintf(rows[n].kind, sizeof rows[n].kind, "%s", col[1]);
        rows[n].published = strtod(col[6], NULL);
        rows[n].per_unit = strtod(col[8], NULL);
        snprintf(rows[n].expect, sizeof rows[n].expect, "%s", col[9]);
        snprintf(rows[n].set, sizeof rows[n].set, "%s", col[12]);
        snprintf(rows[n].unit, sizeof rows[n].unit, "%s", col[7]);
        snprintf(rows[n].counter, sizeof rows[n].counter, "%s", col[13]);
        snprintf(rows[n].dims, sizeof rows[n].dims, "%s", col[5]);
        rows[n].reach = -1;
        rows[n].cells = cells_of(col[0], col[11]);
        n++;
    }
    fclose(f);
    return n;
}

/* The envelope's part row r's counter sees: the live tensors (allocated,
 * active) or the caching allocator's reserved memory (reserved, a card). */
static int sees_tensors(const row *r)
{
    return !strcmp(r->counter, "allocated") || !strcmp(r->counter, "active");
}

static long long scored_bytes(const row *r, json_t *p)
{
    return geti(p, sees_tensors(r) ? "tensors_bytes" : "allocator_bytes");
}

static int by_abs(const void *a, const void *b)
{
    double x = fabs(*(const double *)a), y = fabs(*(const double *)b);
    return x < y ? -1 : x > y;
}

/* Prints the median and the worst |error| of one kind (of one set, or all
 * when set is NULL; of the rows whose id starts with prefix, or all when it is
 * NULL; of one counter, or all when it is NULL); returns how many rows. */
static size_t summary_by(const row *rows, size_t n, const char *kind, const char *set,
                         const char *prefix, const char *counter, const char *label)
{
    double e[MAX_ROWS];
    size_t m = 0, i, within = 0, bound = 0;
    vs_buf apart = VS_BUF_INIT;
    for (i = 0; i < n; i++)
        if (!strcmp(rows[i].kind, kind) && (!set || !strcmp(rows[i].set, set)) &&
            (!prefix || !strncmp(rows[i].id, prefix, strlen(prefix))) &&
            (!counter || !strcmp(rows[i].counter, counter))) {
            if (!strcmp(rows[i].expect, "bound")) {
                /* a peak at a length the run does not print: listed apart, never within */
                vs_buf_printf(&apart, "%s%s %+.1f%%", bound++ ? ", " : "", rows[i].id,
                              100 * rows[i].err);
                continue;
            }
            e[m++] = rows[i].err;
            within += fabs(rows[i].err) <= 0.10;
        }
    if (bound)
        printf("%s%s%s: %zu runs stated by a bound on the length, not scored (the sheet at the "
               "bound, at or above the peak): %s\n",
               kind, set || label ? ", " : "",
               set     ? set
               : label ? label
                       : "",
               bound, vs_buf_str(&apart));
    vs_buf_free(&apart);
    if (!m)
        return 0;
    qsort(e, m, sizeof e[0], by_abs);
    printf("%s%s%s: %zu published runs, %zu within 10%%; median |error| %.1f%%, worst %+.1f%%\n",
           kind, set || label ? ", " : "",
           set     ? set
           : label ? label
                   : "",
           m, within, 100 * (m % 2 ? fabs(e[m / 2]) : (fabs(e[m / 2 - 1]) + fabs(e[m / 2])) / 2),
           100 * e[m - 1]);
    return m;
}

static size_t summary_of(const row *rows, size_t n, const char *kind, const char *set,
                         const char *prefix, const char *label)
{
    return summary_by(rows, n, kind, set, prefix, NULL, label);
}

/* The FLUX.1-dev rows under model offload against the same runs without it, by hand:
 * without offload the plain sum (sum_bytes; the envelope is its worst phase, the decode), every
 * weight, the latents (16 x 128 x 128 x 2 B) and the bf16 decode (InvokeAI's 1,048,576 px x 2 B x
 * 2,200); the published parameter counts at 2 bytes give
 * CLIP-L 123,060,480, T5-XXL's encoder 4,762,310,656 (the post's "9.52 GB") and the VAE
 * 83,819,683. Under model offload diffusers leaves a bitsandbytes 8-bit model on the GPU (it
 * skips its hook), so the 8-bit row's decode phase is the 8-bit row without offload less CLIP and
 * the latents, and its denoising phase less the VAE and the decode too; the FP8 row's worst phase
 * is the fp8 transformer with the latents, the row without offload less every other weight and
 * the decode. Every bitsandbytes model is loaded straight to the GPU, each weight quantised there
 * from a 16-bit copy of it, before enable_model_cpu_offload moves the 4-bit ones off: the 4-bit
 * row's load phase is the 4-bit row without offload less CLIP, the VAE, the latents and the
 * decode, plus the largest quantised weight's bf16 copy, the transformer's norm1.linear
 * (AdaLayerNormZero: 3,072 -> 6 x 3,072), 2 x 18,432 x 3,072 B (T5's largest, wi_0 and wi_1, 10,240
 * x 4,096, are smaller; its wo stays in float32, unquantised). */
static void flux_offload_by_hand(const row *r, json_t *p)
{
    static uint64_t int8_sum, fp8_sum, nf4_sum;
    const uint64_t transient = 2ull * 18432 * 3072;
    const uint64_t clip = 2 * 123060480ull, t5 = 2 * 4762310656ull, vae = 2 * 83819683ull,
                   latents = 16ull * 128 * 128 * 2, decode = 1024ull * 1024 * 2 * 2200;
    uint64_t env = (uint64_t)geti(p, "envelope_bytes"), sum = (uint64_t)geti(p, "sum_bytes");
    json_t *ph;
    size_t k;
    ck_assert_uint_eq(t5, 9524621312ull);
    ck_assert_uint_eq(decode, 4613734400ull);
    if (!strcmp(r->id, "gen-8") || !strcmp(r->id, "gen-9") || !strcmp(r->id, "gen-10")) {
        ck_assert_str_eq(gets(p, "worst_phase"), "decode");
        ck_assert_uint_eq(env, sum - latents);
    }
    if (!strcmp(r->id, "gen-8"))
        nf4_sum = sum;
    if (!strcmp(r->id, "gen-9"))
        int8_sum = sum;
    if (!strcmp(r->id, "gen-10"))
        fp8_sum = sum;
    if (!strcmp(r->id, "gen-12")) {
        /* the table says which weights stay and which come in turn */
        ck_assert_ptr_nonnull(strstr(text(last()), "on the GPU throughout"));
        ck_assert_ptr_nonnull(strstr(text(last()), "the components the offload moves"));
        ck_assert_uint_gt(int8_sum, 0);
        ck_assert_str_eq(gets(p, "worst_phase"), "decode");
        ck_assert_uint_eq(env, int8_sum - clip - latents);
        json_array_foreach(json_object_get(p, "phases"), k, ph)
        {
            if (!strcmp(gets(ph, "name"), "denoise"))
                ck_assert_uint_eq((uint64_t)geti(ph, "bytes"), env - vae - decode + latents);
        }
    }
    if (!strcmp(r->id, "gen-13")) { /* 4-bit models move, after loading on the GPU together */
        ck_assert_uint_gt(nf4_sum, 0);
        ck_assert_uint_eq(transient, 113246208ull);
        ck_assert_str_eq(gets(p, "worst_phase"), "load");
        ck_assert_uint_eq(env, nf4_sum - clip - vae - latents - decode + transient);
        ck_assert_ptr_nonnull(strstr(text(last()), "phase load"));
    }
    if (!strcmp(r->id, "gen-12")) /* the 8-bit models load too, below the decode phase */
        json_array_foreach(json_object_get(p, "phases"), k, ph)
        {
            if (!strcmp(gets(ph, "name"), "load"))
                ck_assert_uint_eq((uint64_t)geti(ph, "bytes"),
                                  int8_sum - clip - vae - latents - decode + transient);
        }
    if (!strcmp(r->id, "gen-14")) {
        ck_assert_uint_gt(fp8_sum, 0);
        ck_assert_str_eq(gets(p, "worst_phase"), "denoise");
        ck_assert_uint_eq(env, fp8_sum - clip - t5 - vae - decode);
    }
}

/* The bytes of component comp's largest module, as the envelope's payload lists them. */
static uint64_t largest_module(json_t *p, const char *comp)
{
    json_t *c;
    size_t k;
    json_array_foreach(json_object_get(p, "weights_components"), k, c)
    {
        if (!strcmp(gets(c, "name"), comp))
            return (uint64_t)geti(c, "largest_group_bytes");
    }
    ck_abort_msg("no component %s", comp);
    return 0;
}

/* Sequential CPU offload holds one module's own tensors at a time (accelerate's
 * AlignDevicesHook, one per module with direct tensors): the largest module of each
 * component, worked by hand from the architectures the tensor lists follow.
 *   SDXL (fp16): the CLIP-L and OpenCLIP-bigG token embeddings, 49,408 x 768 and 49,408 x
 *   1,280; the UNet's up_blocks.0.resnets.{0,1}.conv1, 2,560 -> 1,280 channels 3 x 3 with
 *   its bias; the VAE's 512 -> 512 3 x 3 convolutions with their bias (the first of them
 *   the encoder's).
 *   FLUX.1-dev (bf16): CLIP-L's token embedding; T5's shared embedding, 32,128 x 4,096; the
 *   transformer's norm1.linear (AdaLayerNormZero, 3,072 -> 6 x 3,072, with its bias); the
 *   VAE's 512 -> 512 convolutions.
 * Under it the SDXL rows' phases hold: encode the bigger token embedding, denoise the UNet's
 * conv1, decode the VAE's convolution. */
static void sequential_by_hand(const row *r, json_t *p)
{
    const uint64_t te = 49408ull * 768 * 2, te2 = 49408ull * 1280 * 2,
                   unet = 1280ull * 2560 * 9 * 2 + 1280 * 2, vae = 512ull * 512 * 9 * 2 + 512 * 2;
    json_t *ph;
    size_t k, seen = 0;
    ck_assert_uint_eq(unet, 58984960ull);
    ck_assert_uint_eq(te2, 126484480ull);
    if (!strcmp(r->id, "gen-3") || !strcmp(r->id, "gen-5")) {
        ck_assert_uint_eq(largest_module(p, "text_encoder"), te);
        ck_assert_uint_eq(largest_module(p, "text_encoder_2"), te2);
        ck_assert_uint_eq(largest_module(p, "unet"), unet);
        ck_assert_uint_eq(largest_module(p, "vae"), vae);
        json_array_foreach(json_object_get(p, "phases"), k, ph)
        {
            const char *n = gets(ph, "name");
            uint64_t w = (uint64_t)geti(ph, "weights_gpu_bytes");
            seen += !strcmp(n, "encode") || !strcmp(n, "denoise") || !strcmp(n, "decode");
            if (!strcmp(n, "encode"))
                ck_assert_uint_eq(w, te2);
            else if (!strcmp(n, "denoise"))
                ck_assert_uint_eq(w, unet);
            else if (!strcmp(n, "decode"))
                ck_assert_uint_eq(w, vae);
        }
        ck_assert_uint_eq(seen, 3);
    }
    if (!strcmp(r->id, "gen-7")) {
        ck_assert_uint_eq(largest_module(p, "text_encoder"), te);
        ck_assert_uint_eq(largest_module(p, "text_encoder_2"), 32128ull * 4096 * 2);
        ck_assert_uint_eq(largest_module(p, "transformer"), (18432ull * 3072 + 18432) * 2);
        ck_assert_uint_eq(largest_module(p, "vae"), vae);
    }
}

/* The SDXL rows' envelopes worked by hand (and one FLUX.1-dev row, below): the weights are the
 * published parameter counts at 2 bytes (UNet 2,567,463,684, VAE 83,653,863, CLIP-L 123,060,480,
 * OpenCLIP-bigG 694,659,840), the latents 4 images x 4 channels x 128 x 128 x 2 B, fused attention
 * 0 B, the fp32 decode of four 1024 x 1024 images InvokeAI's constant for the first (1,048,576 px
 * x 4 B x 2,200) and, for each further one, what it holds at the convolution where the decode
 * peaks (128 channels x 5 live tensors x 1,048,576 px x 4 B). Without offload the worst phase,
 * every weight resident in each: the decode (the latents, in denoise, freed before it); under
 * model offload the decode phase, the VAE and its decode. */
static void generation_by_hand(const row *r, json_t *p)
{
    const uint64_t unet = 2567463684ull, vae = 83653863ull, te = 123060480ull, te2 = 694659840ull,
                   px = 1024ull * 1024;
    const uint64_t latents = 4ull * 4 * 128 * 128 * 2;
    const uint64_t decode = px * 4 * 2200 + 3 * 128 * 5 * px * 4;
    ck_assert_uint_eq(decode, 17280532480ull);
    if (!strcmp(r->id, "gen-1")) {
        ck_assert_str_eq(gets(p, "worst_phase"), "decode");
        ck_assert_uint_eq((uint64_t)geti(p, "envelope_bytes"),
                          2 * (unet + vae + te + te2) + decode);
        ck_assert_uint_eq((uint64_t)geti(p, "sum_bytes"),
                          2 * (unet + vae + te + te2) + latents + decode);
    }
    /* the notebook's rows after its torch.compile cell: the compiled fp16 UNet is
     * still allocated beside each run (dynamo keeps it after del pipe), in every phase */
    if (!strcmp(r->id, "gen-2"))
        ck_assert_uint_eq((uint64_t)geti(p, "envelope_bytes"), 2 * unet + 2 * vae + decode);
    /* diffusion-fast's one-image runs, every component on the GPU: the decode phase, the
     * weights at 4 and 2 bytes and one image's decode, InvokeAI's 2,200 B a pixel a byte of
     * element (rule=diffusers, below, the decoder's own tensors) */
    if (!strcmp(r->id, "gen-15") || !strcmp(r->id, "gen-16")) {
        const uint64_t b = !strcmp(r->id, "gen-15") ? 4 : 2;
        const uint64_t one = px * b * 2200;
        ck_assert_str_eq(gets(p, "worst_phase"), "decode");
        ck_assert_uint_eq((uint64_t)geti(p, "envelope_bytes"), b * (unet + vae + te + te2) + one);
    }
    /* its two parts at fp32: the decoder's tensors where they peak with cuDNN's workspace,
     * the third up block's upsampler conv: its input (512 channels at 512 x 512), its last
     * resnet's output (256 at 512 x 512), the upsampled tensor and the conv's output (256 at
     * 1024 x 1024) at 4 B, and 4 B of workspace per element of the conv's input (256 at
     * 1024 x 1024); the allocator's cache the rest of InvokeAI's constant. The tensors' figure
     * is what max_memory_allocated, the row's counter, is compared with */
    if (!strcmp(r->id, "gen-15")) {
        const uint64_t q = 512ull * 512,
                       tensors = 512 * q * 4 + 256 * q * 4 + 2 * 256 * px * 4 + 256 * px * 4;
        ck_assert_uint_eq(tensors, 4026531840ull);
        ck_assert_uint_eq((uint64_t)geti(p, "tensors_bytes"),
                          4 * (unet + vae + te + te2) + tensors);
        ck_assert_uint_eq((uint64_t)geti(p, "cache_bytes"), px * 4 * 2200 - tensors);
        ck_assert_uint_eq((uint64_t)geti(p, "allocator_bytes"),
                          (uint64_t)geti(p, "tensors_bytes") + (uint64_t)geti(p, "cache_bytes"));
    }
    /* FLUX.1-dev under model offload: the denoising phase, the transformer
     * alone, 11,901,408,320 parameters x 2 B (the post's "23.8 GB"), and the
     * latents, 16 channels x 128 x 128 x 2 B; fused attention 0 B */
    if (!strcmp(r->id, "gen-11")) {
        ck_assert_str_eq(gets(p, "worst_phase"), "denoise");
        ck_assert_uint_eq((uint64_t)geti(p, "envelope_bytes"),
                          2 * 11901408320ull + 16ull * 128 * 128 * 2);
    }
    flux_offload_by_hand(r, p);
    sequential_by_hand(r, p);
}

static size_t summary(const row *rows, size_t n, const char *kind, const char *set)
{
    return summary_of(rows, n, kind, set, NULL, NULL);
}

/* The bytes of the entry called name in envelope p's array key ("phases",
 * "components"); -1 when it has none. */
static long long named_bytes(json_t *p, const char *key, const char *name)
{
    json_t *e;
    size_t k;
    json_array_foreach(json_object_get(p, key), k, e)
    {
        if (!strcmp(gets(e, "name"), name))
            return geti(e, "bytes");
    }
    return -1;
}

static long long phase_bytes(json_t *p, const char *name)
{
    return named_bytes(p, "phases", name);
}

static long long component_bytes(json_t *p, const char *name)
{
    return named_bytes(p, "components", name);
}

/* The cells of row r with its `length` line set to length, on a sheet of their own. */
static char *cells_at(const row *r, long long length)
{
    const char *body = strchr(r->cells, '\n'), *len = strstr(r->cells, "\nlength ");
    vs_buf b = VS_BUF_INIT;
    ck_assert_ptr_nonnull(body);
    ck_assert_ptr_nonnull(len);
    vs_buf_printf(&b, "sheet \"%s@%lld\"", r->id, length);
    vs_buf_append(&b, body, (size_t)(len - body));
    vs_buf_printf(&b, "\nlength %lld", length);
    vs_buf_puts(&b, strchr(len + 1, '\n'));
    return b.data;
}

static long long allocator_at(const row *r, long long length)
{
    char *cells = cells_at(r, length);
    long long bytes;
    run_ok(cells);
    free(cells);
    ck_assert_str_eq(gets(lastp(), "kind"), "envelope");
    bytes = geti(lastp(), "allocator_bytes");
    return bytes;
}

/* The largest length in [lo, hi] whose envelope (allocator part) fits card,
 * the envelope nondecreasing in the length there; lo - 1 when none does. */
static long long longest_in(const row *r, long long lo, long long hi, long long card)
{
    if (allocator_at(r, lo) > card)
        return lo - 1;
    while (lo < hi) {
        long long mid = lo + (hi - lo + 1) / 2;
        if (allocator_at(r, mid) <= card)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* A capacity row (unit "GB card": the longest context a card of that size fits,
 * as Unsloth's table gives it) is scored by the sheet's own longest context on
 * that card, the largest length whose envelope (the backward's: weights, the
 * rotary tables and one recomputed layer) fits the card's bytes. The envelope
 * grows with the length on each side of 32,768 tokens but drops past it:
 * Unsloth builds each layer's rotary tables for 4 x 8,192 positions in float32
 * and rebuilds them, for a longer sequence, at the length rounded up to 8,192 in
 * 16-bit (unsloth/models/llama.py, extend_rope_embedding), so each side is
 * searched (bisection; the upper side's bound doubled until it no longer fits),
 * the longer fit taken, and checked: it fits and the length after it does not.
 * The error is in tokens, (sheet's - published) / published. *slope (the step
 * from the published length to the next) and *intercept (the envelope less
 * slope x length there) come back for the table's two numbers. */
static double capacity_error(const row *r, long long *longest, long long *slope,
                             long long *intercept)
{
    const long long card = (long long)(r->published * r->per_unit), built = 4 * 8192;
    const char *len = strstr(r->cells, "\nlength ");
    long long L = strtoll(len + 8, NULL, 10), at = allocator_at(r, L), best, hi = 2 * built;
    *slope = allocator_at(r, L + 1) - at;
    ck_assert_int_gt(*slope, 0);
    *intercept = at - *slope * L;
    while (allocator_at(r, hi) <= card)
        hi *= 2;
    best = longest_in(r, built + 1, hi, card);
    if (best == built)
        best = longest_in(r, 1, built, card);
    ck_assert_int_gt(best, 0);
    ck_assert_int_le(allocator_at(r, best), card);
    ck_assert_int_gt(allocator_at(r, best + 1), card);
    *longest = best;
    return (double)(best - L) / (double)L;
}

/* Unsloth's notebook runs (colab-): two figures each notebook prints, by hand. Its trainable
 * parameters, printed by the trainer, are rank 16 x (in + out) of q, k, v, o, gate, up, down a
 * layer, from each model's widths (Llama-3.1-8B hidden 4,096, kv 1,024, intermediate 14,336;
 * Llama-3.2-3B 3,072, 1,024, 8,192; Qwen2.5-7B 3,584, 512, 18,944), the adapter in float32 (4 B
 * each). And the memory it prints reserved before training is what the GPU holds after
 * loading: the weights, the adapter and the rotary tables of every layer and the model's,
 * which those releases' post_patch casts to the model's 16-bit dtype ("Downcast RoPE embedding
 * to correct data type", unsloth 2024.8, 2024.9.post1 and 2024.10.0 models/llama.py), as the
 * cells say (rope_cast=16bit); the optimizer's state comes at the first step. Within 0.5%: the
 * printed figure is rounded to 1 MB and reserved memory rounds each block up to the allocator's
 * 2 MiB. The rest of the peak, what the notebook prints as reserved for training, is printed
 * beside the sheet's envelope less that load-time part. */
/* the three notebooks' models and the figures each prints */
static const struct {
    const char *config;
    long long hidden, kv, inter, layers, printed_trainable;
    double printed_start, printed_training; /* GB, / 1024^3 */
} colab_runs[] = {
    {"llama-3.1-8b", 4096, 1024, 14336, 32, 41943040, 5.984, 1.938},
    {"llama-3.2-3b", 3072, 1024, 8192, 28, 24313856, 2.635, 3.896},
    {"qwen2.5-7b", 3584, 512, 18944, 28, 40370176, 5.764, 2.129},
};

/* The colab_runs entry of row r's model. */
static size_t colab_run(const row *r)
{
    size_t k, w = sizeof colab_runs / sizeof colab_runs[0];
    for (k = 0; k < sizeof colab_runs / sizeof colab_runs[0]; k++)
        if (strstr(r->cells, colab_runs[k].config))
            w = k;
    ck_assert_uint_lt(w, sizeof colab_runs / sizeof colab_runs[0]);
    return w;
}

/* Rank 16 x (in + out) of q, k, v, o, gate, up, down a layer, by hand from the widths. */
static long long colab_trainable(size_t w)
{
    return 16 *
           (2 * (2 * colab_runs[w].hidden) + 2 * (colab_runs[w].hidden + colab_runs[w].kv) +
            3 * (colab_runs[w].hidden + colab_runs[w].inter)) *
           colab_runs[w].layers;
}

static void colab_by_hand(const row *r, json_t *p)
{
    long long adapter = -1, rope = -1, trainable, load;
    double start;
    size_t k, w;
    json_t *c;
    if (strncmp(r->id, "colab-", 6))
        return;
    w = colab_run(r);
    trainable = colab_trainable(w);
    ck_assert_int_eq(trainable, colab_runs[w].printed_trainable);
    start = colab_runs[w].printed_start * 1073741824.0;
    json_array_foreach(json_object_get(p, "components"), k, c)
    {
        if (!strcmp(gets(c, "name"), "adapter_weights"))
            adapter = geti(c, "bytes");
        if (!strcmp(gets(c, "name"), "rope_cache"))
            rope = geti(c, "bytes");
    }
    ck_assert_int_eq(adapter, 4 * trainable);
    /* layers + 1 tables of (cos + sin) x 32,768 positions x head_dim 128 x 2 B */
    ck_assert_int_eq(rope, (colab_runs[w].layers + 1) * 2 * 32768LL * 128 * 2);
    load = geti(p, "weights_bytes") + adapter + rope;
    ck_assert_msg(fabs(load - start) / start < 0.005,
                  "%s: the load-time part %lld B against the printed %.0f", r->id, load, start);
    printf("%-8s training part (the peak less the load-time part): printed %.3f GiB, the "
           "sheet's %.3f GiB\n",
           r->id, colab_runs[w].printed_training,
           (double)(geti(p, "allocator_bytes") - load) / 1073741824.0);
}

/* The runs' gradient_accumulation_steps 4, as the cells say (microbatch 2 accumulation=4):
 * the adapter's float32 gradients, summed over a step's four micro-batches, are on the GPU
 * beside the next micro-batch's forward and loss, so the envelope is, by hand, the same
 * cells without accumulation= and 4 B a trainable parameter. */
static void colab_accumulation_by_hand(const row *r, long long with)
{
    const char *at = strstr(r->cells, " accumulation=4\n");
    vs_buf b = VS_BUF_INIT;
    long long without;
    ck_assert_ptr_nonnull(at);
    vs_buf_printf(&b, "sheet \"%s, no accumulation\"", r->id);
    vs_buf_append(&b, strchr(r->cells, '\n'), (size_t)(at - strchr(r->cells, '\n')));
    vs_buf_puts(&b, at + strlen(" accumulation=4"));
    run_ok(vs_buf_str(&b));
    vs_buf_free(&b);
    without = geti(lastp(), "allocator_bytes");
    ck_assert_int_eq(with - without, 4 * colab_trainable(colab_run(r)));
    printf("%-8s training   accumulation=4 adds the adapter's float32 gradients, %lld B (%.2f "
           "GiB without it)\n",
           r->id, with - without, (double)without / 1073741824.0);
}

/* Unsloth's context-length tables are computed, not card-by-card measurements: each is a
 * straight line in the card's size. Over the rows whose id starts with prefix (and, when
 * skip is given, does not contain it), tokens = a + b x card GiB by least squares, each
 * residual under max_residual tokens (when it is above 0: a table of more than two rows,
 * since two points always lie on a line); the line read as bytes, 2^30 / b a token and -a / b GiB
 * at no tokens, is printed beside the sheet's: the backward's bytes a token and its part at no
 * tokens below 32,768 tokens (at lo, from the step lo -> lo + 1) and above, through the rotary
 * tables' steps (at two multiples of 8,192, where every layer's table is rebuilt at the
 * length: layers x 16,384 B a token more and the layers' as-built tables gone, layers x 2 x
 * 32,768 x 128 x 4 B). by_hand_below is the sheet's bytes a token below the step, checked
 * with the rest. The seven 8B rows are two numbers; the scoring stays by row. */
static void unsloth_table_line(const row *rows, size_t n, const char *prefix, const char *skip,
                               long long layers, long long lo, long long by_hand_below,
                               double max_residual, const char *label)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0, a, b, worst = 0;
    size_t i, m = 0;
    const row *one = NULL;
    long long below, zero_below, above, zero_above;
    const long long at1 = 5 * 8192, at2 = 6 * 8192;
    for (i = 0; i < n; i++) {
        double x, y;
        if (strncmp(rows[i].id, prefix, strlen(prefix)) || (skip && strstr(rows[i].id, skip)))
            continue;
        x = rows[i].published;
        y = (double)strtoll(strstr(rows[i].cells, "\nlength ") + 8, NULL, 10);
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
        m++;
        one = &rows[i];
    }
    ck_assert_uint_ge(m, 2);
    b = (m * sxy - sx * sy) / (m * sxx - sx * sx);
    a = (sy - b * sx) / m;
    for (i = 0; i < n; i++) {
        double y;
        if (strncmp(rows[i].id, prefix, strlen(prefix)) || (skip && strstr(rows[i].id, skip)))
            continue;
        y = (double)strtoll(strstr(rows[i].cells, "\nlength ") + 8, NULL, 10);
        if (fabs(y - (a + b * rows[i].published)) > worst)
            worst = fabs(y - (a + b * rows[i].published));
    }
    /* a line through two points always fits: the residual is checked only where
     * the table has more rows than the line has parameters (max_residual > 0) */
    if (max_residual > 0) {
        ck_assert_uint_gt(m, 2);
        ck_assert_msg(worst < max_residual, "%s: a residual of %.2f tokens", label, worst);
    }
    below = allocator_at(one, lo + 1) - allocator_at(one, lo);
    zero_below = allocator_at(one, lo) - below * lo;
    above = (allocator_at(one, at2) - allocator_at(one, at1)) / (at2 - at1);
    zero_above = allocator_at(one, at1) - above * at1;
    ck_assert_int_eq(below, by_hand_below);
    ck_assert_int_eq(above, below + layers * 2 * 128 * 2);
    ck_assert_int_eq(zero_above, zero_below - layers * 2 * 32768LL * 128 * 4);
    printf("%s, least squares over %zu rows: tokens = %.1f + %.2f x card GiB, residuals at most "
           "%.2f tokens; read as bytes %.0f B a token and %.2f GiB at no tokens. The sheet: %lld "
           "B a token and %.2f GiB at no tokens below 32,768 tokens, %lld B a token and %.2f "
           "GiB at no tokens above it (through the rotary tables' steps)\n",
           label, m, a, b, worst, 1073741824.0 / b, -a / b, below,
           (double)zero_below / 1073741824.0, above, (double)zero_above / 1073741824.0);
}

START_TEST(published_peaks)
{
    static row rows[MAX_ROWS];
    long long unsloth_8gb = -1, torchtune_bf16_state = -1;
    size_t n, i;
    write_pipelines();
    n = read_rows(rows);
    for (i = 0; i < n; i++) {
        json_t *p;
        double pub, est;
        run_ok(rows[i].cells);
        p = lastp();
        ck_assert_str_eq(gets(p, "kind"), "envelope");
        ck_assert_int_eq(geti(p, "allocator_bytes") + geti(p, "managed_bytes"),
                         geti(p, "envelope_bytes"));
        /* what is allocated is reserved too; a run with no decode has no cache, and
         * its two parts are one (the training rows score as they did) */
        ck_assert_int_le(geti(p, "tensors_bytes"), geti(p, "allocator_bytes"));
        ck_assert_int_le(geti(p, "cache_bytes"), geti(p, "allocator_bytes"));
        if (!strstr(rows[i].cells, "estimate decode")) {
            ck_assert_int_eq(geti(p, "cache_bytes"), 0);
            ck_assert_int_eq(geti(p, "tensors_bytes"), geti(p, "allocator_bytes"));
        }
        if (!strcmp(rows[i].id, "train-11")) {
            /* PagedAdamW8bit over every parameter of Llama-3.1-8B (the config's
             * shapes, summed by hand): embed_tokens and lm_head 2 x 128,256 x
             * 4,096; a layer q and o 4,096^2 each, k and v 4,096 x 1,024 each,
             * gate, up and down 4,096 x 14,336 each, two norms of 4,096; the
             * final norm 4,096. Two 1-byte moments each, in managed memory. */
            const uint64_t layer =
                2 * 4096ull * 4096 + 2 * 4096ull * 1024 + 3 * 4096ull * 14336 + 2 * 4096;
            const uint64_t params = 2 * 128256ull * 4096 + 32 * layer + 4096;
            ck_assert_uint_eq(params, 8030261248ull);
            ck_assert_uint_eq((uint64_t)geti(p, "managed_bytes"), 2 * params);
        } else {
            ck_assert_int_eq(geti(p, "managed_bytes"), 0);
        }
        generation_by_hand(&rows[i], p);
        colab_by_hand(&rows[i], p);
        if (!strcmp(rows[i].id, "train-5"))
            torchtune_bf16_state = geti(p, "allocator_bytes");
        if (!strcmp(rows[i].id, "train-6")) {
            /* 8-bit AdamW on top of the row before: the moments change. Llama-3.2-3B's
             * 3,212,749,824 parameters: two bf16 moments, 12,850,999,296 B, become two bytes
             * a value, 6,425,499,648 B, and an fp32 scale per block of 256 of each,
             * 2 x 12,549,804 x 4 = 100,398,432 B: the loss phase falls by 6,325,101,216 B
             * (5.89 GiB), where the README's peak falls by 4.2 GiB (21.8 to 17.6). torchao's
             * step under PyTorch 2.5's Inductor (torch=2.5) adds, at the tied embedding's
             * step, n = 128,256 x 3,072 = 394,002,432 values: a float32 buffer of its shape,
             * 4n = 1,576,009,728 B, and at the first step the autotuning's clones,
             * 2 x (2n + 2 x n + 2 x 1,539,072 x 4) = 3,176,644,608 B, with triton's
             * 256,000,000 B flush buffer. optimizer_in_bwd steps the tied embedding last,
             * once the embedding lookup's backward has added its half of the gradient, when
             * the backward has freed every layer it recomputed (phase step); each layer's
             * parameters are stepped in the backward beside the layer recomputed, the
             * largest m = 8,192 x 3,072 = 25,165,824 values: 4m = 100,663,296 B each step
             * and at the first 2 x (2m + 2m + 2 x 98,304 x 4) + 256,000,000 = 458,899,456 B.
             *   weights 2 x 3,212,749,824                       6,425,499,648
             *   the embedding's gradient 2n                        788,004,864
             *   the 8-bit moments and their scales              6,525,898,080
             * in every phase                                    13,739,402,592
             *   + one recomputed layer (checkpointing=offload)     872,415,232
             *   + a layer's step and its autotuning                559,562,752
             * phase backward                                    15,171,380,576
             *   + the embedding's step's float32 buffer          1,576,009,728
             *   + its first step's autotuning                    3,432,644,608
             * phase step, the worst                             18,748,056,928
             * above the loss phase's 16,103,417,184 (+ the chunked logits 2,364,014,592). */
            json_t *c, *step = NULL, *tune = NULL, *layers = NULL, *ph;
            long long loss = -1, backward = -1, stepph = -1;
            const long long nv = 128256LL * 3072, m = 8192LL * 3072;
            const long long every = 6425499648LL + 788004864LL + 6525898080LL;
            size_t k;
            json_array_foreach(json_object_get(p, "components"), k, c)
            {
                if (!strcmp(gets(c, "name"), "optimizer_step"))
                    step = c;
                if (!strcmp(gets(c, "name"), "optimizer_autotune"))
                    tune = c;
                if (!strcmp(gets(c, "name"), "optimizer_step_layers"))
                    layers = c;
            }
            json_array_foreach(json_object_get(p, "phases"), k, ph)
            {
                if (!strcmp(gets(ph, "name"), "loss"))
                    loss = geti(ph, "bytes");
                if (!strcmp(gets(ph, "name"), "backward"))
                    backward = geti(ph, "bytes");
                if (!strcmp(gets(ph, "name"), "step"))
                    stepph = geti(ph, "bytes");
            }
            ck_assert_ptr_nonnull(step);
            ck_assert_ptr_nonnull(tune);
            ck_assert_ptr_nonnull(layers);
            ck_assert_int_eq(geti(step, "bytes"), nv * 4);
            ck_assert_int_eq(geti(tune, "bytes"),
                             2 * (nv * 2 + 2 * nv + 2 * (nv / 256) * 4) + 256000000LL);
            ck_assert_int_eq(geti(layers, "bytes"),
                             m * 4 + 2 * (m * 2 + 2 * m + 2 * (m / 256) * 4) + 256000000LL);
            ck_assert_int_eq(m * 4 + 2 * (m * 2 + 2 * m + 2 * (m / 256) * 4) + 256000000LL,
                             559562752LL);
            ck_assert_str_eq(gets(step, "phase"), "step");
            ck_assert_str_eq(gets(tune, "phase"), "step");
            ck_assert_str_eq(gets(layers, "phase"), "backward");
            ck_assert_int_eq(every, 13739402592LL);
            ck_assert_int_eq(backward, every + 872415232LL + 559562752LL);
            ck_assert_int_eq(backward, 15171380576LL);
            ck_assert_int_eq(stepph, every + 1576009728LL + 3432644608LL);
            ck_assert_int_eq(stepph, 18748056928LL);
            ck_assert_int_eq(loss, every + 2364014592LL);
            ck_assert_str_eq(gets(p, "worst_phase"), "step");
            ck_assert_int_eq(geti(p, "allocator_bytes"), 18748056928LL);
            ck_assert_int_eq(torchtune_bf16_state - loss,
                             12850999296LL - (6425499648LL + 2 * 12549804LL * 4));
            ck_assert_int_eq(12850999296LL - (6425499648LL + 2 * 12549804LL * 4), 6325101216LL);
        }
        if (!strcmp(rows[i].id, "unsloth-1")) {
            /* Cut Cross-Entropy as the table's releases ran it (cce=24.12: cut-cross-entropy
             * 24.11.4 to 24.12.3, cce_backward.py dc = torch.zeros_like(c) for the frozen
             * lm_head too): 2,972 tokens x (a float32 log-sum-exp 4 + an int64 label index 8
             * + the gradient into the hidden state 2 x 4,096) + dc 128,256 x 4,096 x 2; at
             * so short a context the loss phase is the worst, above the backward by
             *   the loss, 24,382,288 + 1,050,673,152              1,075,055,440
             *   less the recomputed layer, 2,972 x 184,456          548,203,232
             *   less the float32 adapter's gradients (rank 32 on
             *     the seven projections: 83,886,080 x 4)           335,544,320
             *                                                      191,307,888
             * (the embedding's output, 8,192 B a token, in both) */
            long long loss = phase_bytes(p, "loss");
            unsloth_8gb = phase_bytes(p, "backward");
            ck_assert_int_eq(component_bytes(p, "logits"),
                             2972LL * (4 + 8 + 2 * 4096) + 128256LL * 4096 * 2);
            ck_assert_int_eq(2972LL * (4 + 8 + 2 * 4096) + 128256LL * 4096 * 2, 1075055440LL);
            ck_assert_str_eq(gets(p, "worst_phase"), "loss");
            ck_assert_int_eq(loss - unsloth_8gb, 1075055440LL - 2972LL * 184456 - 4LL * 83886080);
            ck_assert_int_eq(1075055440LL - 2972LL * 184456 - 4LL * 83886080, 191307888LL);
        }
        if (!strcmp(rows[i].id, "unsloth-2")) {
            /* Unsloth's 8 GB and 12 GB rows, 2,972 and 21,848 tokens: the worst phase
             * of both is the backward, whose length-dependent parts are the one layer
             * recomputed from its offloaded input and the embedding's output the graph
             * holds (the rotary tables, both under 32,768 tokens, are as built in both:
             * rope=layers), so the two envelopes differ by 18,876 tokens x the bytes a
             * token of those. By hand, from Llama-3.1-8B's widths (hidden 4,096,
             * intermediate 14,336, 32 heads, 8 KV heads of 128: kv 1,024) and what
             * Unsloth's kernels save and allocate (unsloth 2024.12.4):
             *   the two Fast_RMS_Layernorm: X 2 x 4,096 + r 4, twice  16,392
             *   LoRA_QKV's X (the first norm's output)                 8,192
             *   flash attention q 8,192, k 2,048, v 2,048, output
             *     8,192 (LoRA_W's X too), log-sum-exp 32 x 4 = 128    20,608
             *   LoRA_MLP's X 8,192, e and g 2 x 14,336 each           65,536
             *   saved                                                110,728
             *   LoRA_MLP's backward: the layer's output 8,192, dY
             *     8,192, DW = dY down^T 28,672 and DW's LoRA term
             *     (dY B^T)(s A^T) before its in-place add 28,672        73,728
             *   the embedding's output, a leaf the graph holds          8,192
             *   a token                                               192,648
             * (155,784 before DW's LoRA term and the embedding's output were read.)
             * The table's own step is 4 GiB over those 18,876 tokens, 227,536 B a
             * token, and 32 GiB over the 151,005 from 48 to 80 GB, 227,540 B. */
            const long long saved = 2 * (2 * 4096 + 4) + 2 * 4096 +
                                    (2 * 4096 + 2 * 1024 + 2 * 1024 + 2 * 4096 + 32 * 4) +
                                    (2 * 4096 + 4 * 14336);
            ck_assert_int_eq(saved, 110728);
            ck_assert_int_eq(saved + 2 * 4096 + 2 * 4096 + 2 * 14336 + 2 * 14336 + 2 * 4096,
                             192648);
            ck_assert_str_eq(gets(p, "worst_phase"), "backward");
            ck_assert_int_eq(geti(p, "allocator_bytes") - unsloth_8gb, 18876LL * 192648);
            ck_assert_int_eq(((4LL << 30) + 18876 / 2) / 18876, 227536); /* rounded */
            ck_assert_int_eq(((32LL << 30) + 151005 / 2) / 151005, 227540);
            ck_assert_int_eq(342733 - 191728, 151005);
        }
        est = (double)scored_bytes(&rows[i], p);
        pub = rows[i].published * rows[i].per_unit;
        rows[i].err = (est - pub) / pub;
        printf("%-8s %-10s published %7.2f GiB %-9s, envelope %7.2f GiB (the allocator's %7.2f "
               "GiB, the tensors' %7.2f GiB), error %+6.1f%% (%s, %s)\n",
               rows[i].id, rows[i].kind, pub / 1073741824.0, rows[i].counter,
               (double)geti(p, "envelope_bytes") / 1073741824.0,
               (double)geti(p, "allocator_bytes") / 1073741824.0,
               (double)geti(p, "tensors_bytes") / 1073741824.0, 100 * rows[i].err, rows[i].expect,
               rows[i].set);
        if (!strncmp(rows[i].id, "colab-", 6)) {
            /* the cells state the bound, 2,048 tokens a sequence; the notebook does not print
             * its longest batch: the longest length a sequence at which the sheet stays within
             * the printed peak, printed; for a bound row, asserted below the bound and kept to
             * compare the rows over the same examples */
            long long at = longest_in(&rows[i], 1, 2048, (long long)pub);
            if (!strcmp(rows[i].expect, "bound")) {
                /* at the bound the sheet holds at least the peak, and reaches it below */
                ck_assert_msg(rows[i].err >= 0, "%s: %+.1f%% at the bound, below the peak",
                              rows[i].id, 100 * rows[i].err);
                ck_assert_int_lt(at, 2048);
                rows[i].reach = at + 1;
            }
            colab_accumulation_by_hand(&rows[i], (long long)est);
            if (at < 2048)
                printf("%-8s %-10s the sheet reaches the printed peak at %lld tokens a sequence "
                       "(the cells' bound 2,048)\n",
                       rows[i].id, rows[i].kind, at + 1);
            else
                printf("%-8s %-10s the sheet stays below the printed peak up to the cells' bound, "
                       "2,048 tokens a sequence\n",
                       rows[i].id, rows[i].kind);
        }
        if (!strcmp(rows[i].unit, "GB card")) {
            long long longest, slope, intercept;
            const char *len = strstr(rows[i].cells, "\nlength ");
            ck_assert_ptr_nonnull(len);
            rows[i].err = capacity_error(&rows[i], &longest, &slope, &intercept);
            printf("%-8s %-10s the longest context on the card: published %lld tokens, the "
                   "sheet's %lld, error %+6.1f%%; at the published length the sheet's %lld B a "
                   "token, and %.2f GiB at no tokens\n",
                   rows[i].id, rows[i].kind, strtoll(len + 8, NULL, 10), longest, 100 * rows[i].err,
                   slope, (double)intercept / 1073741824.0);
            /* the recomputed layer and the embedding's output a token, by hand from each
             * model's widths (Llama 3.1 8B: above; 70B: hidden 8,192, intermediate 28,672,
             * 64 heads, kv 1,024: saved 12 x 8,192 + 4 x 1,024 + 4 x 28,672 + 4 x 64 + 8,
             * LoRA_MLP's backward 4 x 8,192 + 4 x 28,672, the embedding's output 2 x
             * 8,192), the rotary tables' step being by 8,192; at the 8 GB row's 2,972 tokens
             * the loss phase is the worst (above): the embedding's output and the loss,
             * 2 x 4,096 + 4 + 8 + 2 x 4,096 */
            ck_assert_int_eq(slope, strstr(rows[i].cells, "70b")
                                        ? 18LL * 8192 + 4 * 1024 + 8 * 28672 + 4 * 64 + 8
                                    : !strcmp(rows[i].id, "unsloth-1") ? 2 * 4096 + 4 + 8 + 2 * 4096
                                                                       : 192648);
            ck_assert_int_eq(12LL * 8192 + 4 * 1024 + 4 * 28672 + 4 * 64 + 8, 217352);
            ck_assert_int_eq(217352 + 4LL * 8192 + 4 * 28672 + 2 * 8192, 381192);
            ck_assert_int_eq(18LL * 8192 + 4 * 1024 + 8 * 28672 + 4 * 64 + 8, 381192);
        }
    }
    /* the training runs by source, each in its own unit: torchtune's peaks (bytes),
     * Unsloth's longest context a card fits (tokens); one tally over both would mix them */
    ck_assert_uint_ge(summary_of(rows, n, "training", NULL, "train-", "torchtune's peaks"), 6);
    ck_assert_uint_ge(
        summary_of(rows, n, "training", NULL, "unsloth-", "Unsloth's longest context, in tokens"),
        1);
    ck_assert_uint_ge(summary_of(rows, n, "training", NULL, "colab-",
                                 "Unsloth's notebooks, peak reserved memory"),
                      1);
    ck_assert_uint_ge(summary(rows, n, "generation", NULL), 14);
    /* per counter: each scored against the part it sees */
    ck_assert_uint_ge(summary_by(rows, n, "generation", NULL, NULL, "allocated",
                                 "max_memory_allocated, against tensors_bytes"),
                      8);
    ck_assert_uint_ge(summary_by(rows, n, "generation", NULL, NULL, "reserved",
                                 "max_memory_reserved, against allocator_bytes"),
                      8);
    ck_assert_uint_ge(
        summary_by(rows, n, "training", NULL, NULL, "active", "peak active, against tensors_bytes"),
        11);
    ck_assert_uint_ge(summary_by(rows, n, "training", NULL, NULL, "reserved",
                                 "max_memory_reserved, against allocator_bytes"),
                      1);
    /* Unsloth's two tables as the lines they are (the 8B rows' own residuals at most 0.42
     * tokens; the 70B table's two rows are a line through two points, whose residual
     * is printed, not checked: its slopes are) */
    unsloth_table_line(rows, n, "unsloth-", "70b", 32, 21848, 192648, 1.0,
                       "Unsloth's Llama 3.1 8B table");
    unsloth_table_line(rows, n, "unsloth-70b-", NULL, 80, 12106, 381192, 0,
                       "Unsloth's Llama 3.3 70B table");
    /* the runs added after the arithmetic was set, apart */
    ck_assert_uint_ge(summary(rows, n, "training", "held-out"), 3);
    ck_assert_uint_ge(summary(rows, n, "generation", "held-out"), 5);
    /* bound rows over the same examples (the same dims: data set, batch, bound) reach their
     * peaks at lengths within 10% of each other: the two Alpaca runs, two tokenisers over the
     * same 480 examples (60 steps x 2 x 4, seed 3407) */
    {
        size_t pairs = 0, j;
        for (i = 0; i < n; i++)
            for (j = i + 1; j < n; j++)
                if (rows[i].reach > 0 && rows[j].reach > 0 && !strcmp(rows[i].dims, rows[j].dims)) {
                    double hi =
                        (double)(rows[i].reach > rows[j].reach ? rows[i].reach : rows[j].reach);
                    double d = fabs((double)(rows[i].reach - rows[j].reach)) / hi;
                    printf("%s and %s, the same examples: the sheet reaches their peaks at %lld "
                           "and %lld tokens a sequence, %.1f%% apart\n",
                           rows[i].id, rows[j].id, rows[i].reach, rows[j].reach, 100 * d);
                    ck_assert_msg(d <= 0.10, "%s, %s: %.1f%% apart", rows[i].id, rows[j].id,
                                  100 * d);
                    pairs++;
                }
        ck_assert_uint_ge(pairs, 1);
    }
    for (i = 0; i < n; i++) {
        if (!strcmp(rows[i].expect, "bound"))
            ck_assert_msg(rows[i].err >= 0, "%s: below the peak at its bound", rows[i].id);
        else if (!strcmp(rows[i].expect, "within"))
            ck_assert_msg(fabs(rows[i].err) <= 0.10, "%s: %+.1f%%, outside 10%%", rows[i].id,
                          100 * rows[i].err);
        else
            ck_assert_msg(fabs(rows[i].err) > 0.10,
                          "%s: %+.1f%%, now within 10%%: mark it within (and the page)", rows[i].id,
                          100 * rows[i].err);
        free(rows[i].cells);
    }
    fflush(stdout);
}
END_TEST

/* Every generation row's cells with its estimate decode line given extra keys (the
 * other cells as they are): the error of the part the row's counter sees against the
 * published figure, printed; the tally within 10% and of the misses high returned. */
static size_t generation_under(const char *keys, size_t *high, size_t *gen)
{
    static row rows[MAX_ROWS];
    size_t n, i, within = 0;
    *high = *gen = 0;
    write_pipelines();
    n = read_rows(rows);
    for (i = 0; i < n; i++) {
        const char *at = strstr(rows[i].cells, "estimate decode");
        if (strcmp(rows[i].kind, "generation") || !at) {
            free(rows[i].cells);
            continue;
        }
        {
            vs_buf b = VS_BUF_INIT;
            double pub = rows[i].published * rows[i].per_unit, e;
            vs_buf_append(&b, rows[i].cells, (size_t)(at - rows[i].cells));
            vs_buf_puts(&b, "estimate decode ");
            vs_buf_puts(&b, keys);
            vs_buf_puts(&b, at + strlen("estimate decode"));
            run_ok(vs_buf_str(&b));
            vs_buf_free(&b);
            /* one part alone: what the counter sees is all of it */
            ck_assert_int_eq(geti(lastp(), "cache_bytes"), 0);
            e = ((double)scored_bytes(&rows[i], lastp()) - pub) / pub;
            printf("%-8s %s: %7.2f GiB against %7.3f %s, error %+6.1f%% (%s)\n", rows[i].id, keys,
                   (double)scored_bytes(&rows[i], lastp()) / 1073741824.0, pub / 1073741824.0,
                   rows[i].counter, 100 * e, rows[i].set);
            (*gen)++;
            if (fabs(e) <= 0.10)
                within++;
            else if (e > 0)
                (*high)++;
        }
        free(rows[i].cells);
    }
    fflush(stdout);
    return within;
}

/* The decoder's own tensors (estimate decode rule=diffusers) on every generation row, as
 * help estimate and the generation page state it: a lower bound, every row that misses
 * misses low, 7 of the 16 within 10%. */
START_TEST(generation_rule_diffusers_reads_low)
{
    size_t high, gen;
    ck_assert_uint_eq(generation_under("rule=diffusers", &high, &gen), 7);
    ck_assert_uint_eq(gen, 16);
    ck_assert_uint_eq(high, 0);
}
END_TEST

/* The same tensors with cuDNN's workspace fitted to InvokeAI's decodes of the VAE alone
 * (rule=diffusers workspace=4, test_decode_kl), without the allocator's cache: every
 * generation row held out against it, none of them used to fit it. 12 of 16 within 10%:
 * the rows on max_memory_allocated come within but gen-5 (-25.6%: its 2.7 GiB beyond the
 * slicing row's decode, under sequential offload, is in no source read); the FLUX.1-dev rows on the
 * reserved counter with the decode as their worst phase leave (gen-8, gen-9, gen-12, low); every
 * miss low. */
START_TEST(generation_tensors_alone)
{
    size_t high, gen;
    ck_assert_uint_eq(generation_under("rule=diffusers workspace=4", &high, &gen), 12);
    ck_assert_uint_eq(gen, 16);
    ck_assert_uint_eq(high, 0);
}
END_TEST

/* InvokeAI's reserved-memory constant alone (rule=invokeai), what the default was before
 * the decode had two parts: 12 of 16 within 10%, but not the same 12: the rows on the
 * reserved counter come within, the one-image SDXL decodes on max_memory_allocated miss
 * high (gen-4, gen-15, gen-16) and so does gen-5. */
START_TEST(generation_constant_alone)
{
    size_t high, gen;
    ck_assert_uint_eq(generation_under("rule=invokeai", &high, &gen), 12);
    ck_assert_uint_eq(gen, 16);
    ck_assert_uint_eq(high, 4);
}
END_TEST

static void published_setup(void)
{
    setup();
    ck_assert_ptr_nonnull(mkdtemp(vs_test_tmp(tmpdir, sizeof tmpdir, "vs-test-published-XXXXXX")));
}

static void published_teardown(void)
{
    teardown();
    vs_test_rmtree(tmpdir);
}

int main(void)
{
    Suite *s = suite_create("published");
    TCase *tc = tcase_create("published");
    tcase_add_checked_fixture(tc, published_setup, published_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, published_peaks);
    tcase_add_test(tc, generation_rule_diffusers_reads_low);
    tcase_add_test(tc, generation_tensors_alone);
    tcase_add_test(tc, generation_constant_alone);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
