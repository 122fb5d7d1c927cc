/* The AutoencoderKL decoder's peak (sheet/estimators/decoder_kl.c) against
 * tensor lists worked by hand from the VAE's config. The SD 1.x, SDXL, SD3 and
 * Flux.1 VAEs (their vae/config.json): block_out_channels 128, 256, 512, 512,
 * layers_per_block 2, so the decoder's up blocks run at 1/8, 1/4, 1/2 and the
 * full side with 512, 512, 256 and 128 channels, three ResnetBlock2D each, an
 * Upsample2D after each but the last. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sheet/estimate.h"

#include "check_run.h"

#ifndef VS_DECODER_ORACLE_TSV
#error "VS_DECODER_ORACLE_TSV (tests/data/decoder_kl_oracle.tsv) must be defined"
#endif

static const uint64_t sdxl[] = {128, 256, 512, 512};
/* A one-frame decode of a VAE of n block widths and l layers a block, the rest
 * named: DECODE(small, 2, 1, .batch = 1, .width = 64, .height = 64, .bits = 32);
 * SDXL(...) the SDXL VAE's (four blocks, two layers a block) */
#define DECODE(b, n, l, ...)                                                                       \
    (&(vs_decode_kl){.blocks = (b), .n_blocks = (n), .layers = (l), .frames = 1, __VA_ARGS__})
#define SDXL(...) DECODE(sdxl, 4, 2, __VA_ARGS__)

/* bytes of a tensor of c channels at a side of s pixels, batch b, e bytes an element */
static uint64_t tensor(uint64_t b, uint64_t c, uint64_t s, uint64_t e)
{
    return b * c * s * s * e;
}

START_TEST(sdxl_fp32_one_image)
{
    vs_decode_peak p;
    vs_error err;
    /* The last up block's first resnet, 256 -> 128 channels at 1024 x 1024:
     * its input (the upsampler's output, 256 channels) beside norm1's output
     * and the SiLU's (256 each). The same bytes again at its residual: the
     * input, the 1x1 shortcut, conv2's output, the sum and the division (4 x
     * 128), and in the next two resnets (the block's input 256, theirs 128,
     * conv2's, the sum, the division); the first is named. */
    const uint64_t silu = 3 * tensor(1, 256, 1024, 4);
    const uint64_t residual = tensor(1, 256, 1024, 4) + 4 * tensor(1, 128, 1024, 4);
    /* the upsampler before it: the third block's input (512 channels at 512),
     * its last resnet's output (256 at 512), the upsampled tensor and the
     * conv's output (256 at 1024) */
    const uint64_t upconv =
        tensor(1, 512, 512, 4) + tensor(1, 256, 512, 4) + 2 * tensor(1, 256, 1024, 4);
    ck_assert_uint_eq(silu, 3221225472ull); /* 3.0 GiB */
    ck_assert_uint_eq(residual, silu);
    ck_assert_uint_lt(upconv, silu);
    ck_assert_int_eq(vs_estimate_decode_kl(
                         &p, SDXL(.batch = 1, .width = 1024, .height = 1024, .bits = 32), &err),
                     0);
    ck_assert_uint_eq(p.bytes, silu);
    ck_assert_uint_eq(p.per_image_pixel, 3 * 256 * 4);
    ck_assert_str_eq(p.step, "up_blocks.3 resnets.0 SiLU after norm1");
}
END_TEST

START_TEST(sdxl_bf16_upsampler_cast)
{
    vs_decode_peak p;
    vs_error err;
    /* bfloat16: Upsample2D casts to float32 for the interpolation and back.
     * Before the third block's conv: its input (512 channels at 512) and its
     * last resnet's output (256 at 512) in bf16, the upsampled tensor in fp32
     * and its bf16 copy (256 at 1024): more than the last block's 3 x 256
     * channels in bf16 */
    const uint64_t cast = tensor(1, 512, 512, 2) + tensor(1, 256, 512, 2) +
                          tensor(1, 256, 1024, 4) + tensor(1, 256, 1024, 2);
    ck_assert_uint_eq(cast, 2013265920ull); /* 1.875 GiB */
    ck_assert_uint_gt(cast, 3 * tensor(1, 256, 1024, 2));
    ck_assert_int_eq(
        vs_estimate_decode_kl(
            &p, SDXL(.batch = 1, .width = 1024, .height = 1024, .bits = 16, .bf16 = 1), &err),
        0);
    ck_assert_uint_eq(p.bytes, cast);
    ck_assert_str_eq(p.step, "up_blocks.2 upsamplers.0 cast back to bfloat16");
    /* fp16 has no cast: the last block's 3 x 256 channels again, at 2 B */
    ck_assert_int_eq(vs_estimate_decode_kl(
                         &p, SDXL(.batch = 1, .width = 1024, .height = 1024, .bits = 16), &err),
                     0);
    ck_assert_uint_eq(p.bytes, 3 * tensor(1, 256, 1024, 2));
}
END_TEST

START_TEST(batch_and_resolution_scale)
{
    vs_decode_peak p;
    vs_error err;
    /* every tensor carries the batch: four fp16 images at 1024, and one at 512 */
    ck_assert_int_eq(vs_estimate_decode_kl(
                         &p, SDXL(.batch = 4, .width = 1024, .height = 1024, .bits = 16), &err),
                     0);
    ck_assert_uint_eq(p.bytes, 3 * tensor(4, 256, 1024, 2));
    ck_assert_uint_eq(p.bytes, 6442450944ull);
    ck_assert_uint_eq(p.per_image_pixel, 3 * 256 * 2);
    ck_assert_int_eq(
        vs_estimate_decode_kl(&p, SDXL(.batch = 1, .width = 512, .height = 768, .bits = 32), &err),
        0);
    ck_assert_uint_eq(p.bytes, 3ull * 256 * 512 * 768 * 4);
}
END_TEST

START_TEST(another_config)
{
    vs_decode_peak p;
    vs_error err;
    const uint64_t small[] = {64, 128};
    /* two blocks (one upsampling), one layer (two resnets a block), 64 x 64
     * output, fp32: the latent is 32 x 32. The last block, 128 -> 64 channels
     * at 64: the first resnet's SiLU, 3 x 128 channels, and its residual, 128
     * + 4 x 64, tie; the second resnet's residual, the block's input 128 +
     * its own 64 + 3 x 64, ties too. The upsampler: the first block's input
     * and output, 128 channels at 32, and two of 128 at 64; the mid block's
     * attention, 9 x 128 channels at 32, less */
    const uint64_t peak = 3 * tensor(1, 128, 64, 4);
    ck_assert_uint_eq(peak, tensor(1, 128, 64, 4) + 4 * tensor(1, 64, 64, 4));
    ck_assert_uint_eq(peak,
                      tensor(1, 128, 64, 4) + tensor(1, 64, 64, 4) + 3 * tensor(1, 64, 64, 4));
    ck_assert_uint_lt(2 * tensor(1, 128, 32, 4) + 2 * tensor(1, 128, 64, 4), peak);
    ck_assert_uint_lt(9 * tensor(1, 128, 32, 4), peak);
    ck_assert_int_eq(
        vs_estimate_decode_kl(
            &p, DECODE(small, 2, 1, .batch = 1, .width = 64, .height = 64, .bits = 32), &err),
        0);
    ck_assert_uint_eq(p.bytes, peak);
    ck_assert_uint_eq(p.bytes, 6291456ull);
    ck_assert_str_eq(p.step, "up_blocks.1 resnets.0 SiLU after norm1");
}
END_TEST

START_TEST(eager_mid_block_attention)
{
    vs_decode_peak p;
    vs_error err;
    /* the older AttnProcessor at the latent, 128 x 128 = 16,384 tokens, one head:
     * the scores upcast to float32 and their softmax, 2 x 16,384^2 x 4 B, beside
     * the mid block's input, the residual, the GroupNorm's output, q, k and v, 6 x
     * 512 channels at 128 x 128. In fp16 it is the peak (the last block's 3 x 256
     * channels at 1024 are 1.5 GiB); in fp32 it is not (3.0 GiB) */
    const uint64_t scores = 2ull * 16384 * 16384 * 4;
    const uint64_t fp16 = scores + 6 * tensor(1, 512, 128, 2);
    ck_assert_uint_eq(fp16, 2248146944ull);
    ck_assert_int_eq(
        vs_estimate_decode_kl(
            &p, SDXL(.batch = 1, .width = 1024, .height = 1024, .bits = 16, .eager = 1), &err),
        0);
    ck_assert_uint_eq(p.bytes, fp16);
    ck_assert_str_eq(p.step,
                     "mid_block attentions.0 float32 scores and softmax (eager AttnProcessor)");
    ck_assert_uint_lt(scores + 6 * tensor(1, 512, 128, 4), 3 * tensor(1, 256, 1024, 4));
    ck_assert_int_eq(
        vs_estimate_decode_kl(
            &p, SDXL(.batch = 1, .width = 1024, .height = 1024, .bits = 32, .eager = 1), &err),
        0);
    ck_assert_uint_eq(p.bytes, 3 * tensor(1, 256, 1024, 4));
}
END_TEST

START_TEST(bad_input_is_an_error)
{
    vs_decode_peak p;
    vs_error err;
    const uint64_t zero[] = {128, 0};
    /* the decoder upsamples three times: sides must be multiples of 8 */
    ck_assert_int_eq(vs_estimate_decode_kl(
                         &p, SDXL(.batch = 1, .width = 1020, .height = 1024, .bits = 32), &err),
                     VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "multiples of 8"));
    ck_assert_int_eq(
        vs_estimate_decode_kl(
            &p, DECODE(zero, 2, 2, .batch = 1, .width = 64, .height = 64, .bits = 32), &err),
        VS_EVALUE);
    ck_assert_int_eq(
        vs_estimate_decode_kl(
            &p, DECODE(sdxl, 0, 2, .batch = 1, .width = 64, .height = 64, .bits = 32), &err),
        VS_EVALUE);
    ck_assert_int_eq(
        vs_estimate_decode_kl(&p, SDXL(.batch = 1, .width = 64, .height = 64, .bits = 8), &err),
        VS_EVALUE);
    /* overflow is an error, never a wrap-around */
    ck_assert_int_eq(
        vs_estimate_decode_kl(
            &p, SDXL(.batch = 1ull << 40, .width = 1ull << 20, .height = 1024, .bits = 32), &err),
        VS_EUNIT);
}
END_TEST

/* diffusers' own AutoencoderKL.decode (0.25.0, current when diffusion-fast was published) run on
 * the meta device by tests/tools/decoder_kl_oracle.py, every tensor an aten op returns
 * counted until its last Python reference dies: the walk finds the same peak at the
 * same step on every run, less two latent-sized tensors it leaves out, the decode's
 * input and post_quant_conv's output (4 channels at the latent side), held by
 * AutoencoderKL.decode and _decode to the end: 2 x 4 x batch x latent px x bytes,
 * 0.5 MiB for one float32 1024 x 1024 image */
START_TEST(diffusers_on_the_meta_device_agrees)
{
    static const uint64_t small[] = {64, 128};
    char line[512], cfg[16], dt[8], att[8], at[160], want[160];
    unsigned long long batch, w, h, peak;
    size_t rows = 0;
    FILE *f = fopen(VS_DECODER_ORACLE_TSV, "r");
    ck_assert_ptr_nonnull(f);
    while (fgets(line, sizeof line, f)) {
        vs_decode_peak p;
        vs_error err;
        const int is_small = !strncmp(line, "small\t", 6);
        const uint64_t side = is_small ? 2 : 8;
        uint64_t e, latents;
        char *dot;
        if (line[0] == '#')
            continue;
        ck_assert_int_eq(sscanf(line, "%15s %7s %llu %llu %llu %7s %llu %159[^\n]", cfg, dt, &batch,
                                &w, &h, att, &peak, at),
                         8);
        e = strcmp(dt, "fp32") ? 2 : 4;
        latents = 2 * 4 * batch * (w / side) * (h / side) * e;
        ck_assert_int_eq(
            vs_estimate_decode_kl(&p,
                                  DECODE(is_small ? small : sdxl, is_small ? 2 : 4,
                                         is_small ? 1 : 2, .batch = batch, .width = w, .height = h,
                                         .bits = (unsigned)(8 * e), .bf16 = !strcmp(dt, "bf16"),
                                         .eager = !strcmp(att, "eager")),
                                  &err),
            0);
        ck_assert_msg(p.bytes + latents == peak, "%s %s b%llu %llux%llu %s: %llu + %llu != %llu",
                      cfg, dt, batch, w, h, att, (unsigned long long)p.bytes,
                      (unsigned long long)latents, peak);
        /* "up_blocks.3.resnets.0 silu.default" names the step "up_blocks.3 resnets.0 ..." */
        snprintf(want, sizeof want, "%s", at);
        dot = strchr(want, ' ');
        ck_assert_ptr_nonnull(dot);
        *dot = '\0';
        if ((dot = strstr(want, ".resnets")) || (dot = strstr(want, ".upsamplers")) ||
            (dot = strstr(want, ".attentions")))
            *dot = ' ';
        ck_assert_msg(!strncmp(p.step, want, strlen(want)), "%s: the walk names '%s'", at, p.step);
        rows++;
    }
    fclose(f);
    ck_assert_uint_eq(rows, 8);
}
END_TEST

/* cuDNN's convolution workspace (ws, bytes per element of a 3 x 3 convolution's input),
 * fitted to InvokeAI's published decodes of the VAE alone: invoke-ai/InvokeAI
 * vae_benchmarks/VAE_BENCHMARK_REPORT.md at fc1e4b05e814f38edf1e780cfabae589af538816 (the
 * figures of sd_vae_benchmark_results.json at 7785061e7d9445036332d9d010afdc5e2de695f1),
 * benchmark_sd_vae.py: madebyollin's sdxl-vae-fp16-fix (the SDXL rows; SD 1.5's
 * sd-vae-ft-mse, the same shapes, prints the same), one image, tiling off, torch.no_grad
 * and inference_mode, an RTX 4090; "Allocated (MB)" is max_memory_allocated() less
 * memory_allocated() before the decode, / 1024 / 1024, the mean of 5 runs after 2. */
START_TEST(workspace_fitted_to_invokeai_decodes)
{
    static const struct {
        unsigned bits;
        uint64_t side;
        double mib;
    } pub[] = {{16, 512, 610.06},   {16, 768, 1370.13},  {16, 1024, 2434.22}, {16, 1536, 5474.51},
               {16, 2048, 9730.90}, {32, 512, 962.36},   {32, 768, 2162.50},  {32, 1024, 3842.70},
               {32, 1536, 8643.26}, {32, 2048, 15364.05}};
    size_t i;
    for (i = 0; i < sizeof pub / sizeof pub[0]; i++) {
        vs_decode_peak p;
        vs_error err;
        const uint64_t e = pub[i].bits / 8, s = pub[i].side;
        /* the third up block's upsampler conv: that block's input (512 channels at half
         * the side), its last resnet's output (256 at half), the upsampled tensor and the
         * conv's output (256 at the side), and 4 B per element of the conv's input (256
         * channels at the side); the decode's input and post_quant_conv's output (4
         * channels at 1/8 of the side) beside, as on the meta device */
        const uint64_t tensors =
            tensor(1, 512, s / 2, e) + tensor(1, 256, s / 2, e) + 2 * tensor(1, 256, s, e);
        const uint64_t ws = tensor(1, 256, s, 4), latents = 2 * tensor(1, 4, s / 8, e);
        const double left = pub[i].mib * 1048576.0 - (double)(tensors + ws + latents);
        ck_assert_int_eq(
            vs_estimate_decode_kl(
                &p, SDXL(.batch = 1, .width = s, .height = s, .bits = pub[i].bits, .ws = 4), &err),
            0);
        ck_assert_uint_eq(p.bytes, tensors + ws);
        ck_assert_uint_eq(p.workspace, ws);
        ck_assert_uint_eq(p.per_image_pixel, 704 * e + 1024);
        ck_assert_str_eq(p.step, "up_blocks.2 upsamplers.0 conv");
        /* what the fit leaves: 1.9 to 2.3 MiB at every size and in both dtypes, a constant
         * (under 0.4% of the smallest decode), not a term of the pixels */
        printf("InvokeAI %2u-bit %4llu px: published %9.2f MiB, tensors %9.2f + workspace %8.2f "
               "MiB, %+.2f MiB left\n",
               pub[i].bits, (unsigned long long)s, pub[i].mib,
               (double)(tensors + latents) / 1048576, (double)ws / 1048576, left / 1048576);
        ck_assert_msg(left > 1.8 * 1048576 && left < 2.4 * 1048576, "%u-bit %llu: %.2f MiB left",
                      pub[i].bits, (unsigned long long)s, left / 1048576);
    }
}
END_TEST

/* the fitted workspace elsewhere, by hand: bf16 (not in the fit), four images, the
 * default (no workspace) unchanged */
START_TEST(workspace_bf16_and_batch)
{
    vs_decode_peak p;
    vs_error err;
    /* bf16: the upsampler's conv after the cast back (the float32 copy freed), 256 + 128
     * + 2 x 512 B per output pixel, and the workspace's 1,024, above the cast's 1,920 */
    const uint64_t conv = tensor(1, 512, 512, 2) + tensor(1, 256, 512, 2) +
                          2 * tensor(1, 256, 1024, 2) + tensor(1, 256, 1024, 4);
    ck_assert_uint_eq(conv, 2550136832ull); /* 2.375 GiB */
    ck_assert_int_eq(vs_estimate_decode_kl(&p,
                                           SDXL(.batch = 1, .width = 1024, .height = 1024,
                                                .bits = 16, .bf16 = 1, .ws = 4),
                                           &err),
                     0);
    ck_assert_uint_eq(p.bytes, conv);
    ck_assert_str_eq(p.step, "up_blocks.2 upsamplers.0 conv");
    /* four fp32 images: four times one, the workspace too (3.75 GiB each) */
    ck_assert_int_eq(
        vs_estimate_decode_kl(
            &p, SDXL(.batch = 4, .width = 1024, .height = 1024, .bits = 32, .ws = 4), &err),
        0);
    ck_assert_uint_eq(p.bytes, 4 * (704ull * 4 + 1024) * 1024 * 1024);
    ck_assert_uint_eq(p.bytes, 16106127360ull);
    ck_assert_uint_eq(p.workspace, 4 * tensor(1, 256, 1024, 4));
    /* without it: the tensors alone, no workspace named */
    ck_assert_int_eq(vs_estimate_decode_kl(
                         &p, SDXL(.batch = 4, .width = 1024, .height = 1024, .bits = 32), &err),
                     0);
    ck_assert_uint_eq(p.bytes, 3 * tensor(4, 256, 1024, 4));
    ck_assert_uint_eq(p.workspace, 0);
    ck_assert_int_eq(
        vs_estimate_decode_kl(&p, SDXL(.batch = 1, .width = 64, .height = 64, .bits = 32, .ws = 65),
                              &err),
        VS_EVALUE);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("decode_kl");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, sdxl_fp32_one_image);
    tcase_add_test(tc, sdxl_bf16_upsampler_cast);
    tcase_add_test(tc, batch_and_resolution_scale);
    tcase_add_test(tc, another_config);
    tcase_add_test(tc, eager_mid_block_attention);
    tcase_add_test(tc, bad_input_is_an_error);
    tcase_add_test(tc, diffusers_on_the_meta_device_agrees);
    tcase_add_test(tc, workspace_fitted_to_invokeai_decodes);
    tcase_add_test(tc, workspace_bf16_and_batch);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
