/* The AutoencoderKL decoder's peak, tensor by tensor, from its config
 * (block_out_channels, layers_per_block) under torch.no_grad: each op
 * allocates its output while its inputs are still referenced, and a tensor is
 * freed when the last Python name for it is rebound. Read in diffusers:
 *  - models/autoencoders/vae.py Decoder.forward (commit 9578d7e): conv_in,
 *    mid_block, then `sample = up_block(sample, latent_embeds)` for each up
 *    block, so `sample`, the block's input, stays referenced through the whole
 *    block; then conv_norm_out, conv_act, conv_out.
 *  - models/unet_2d_blocks.py UpDecoderBlock2D.forward: layers_per_block + 1
 *    ResnetBlock2D (`hidden_states = resnet(hidden_states, temb=temb)`), then
 *    its Upsample2D; the last up block has none. UNetMidBlock2D: resnet,
 *    attention, resnet at the latent resolution.
 *  - models/resnet.py ResnetBlock2D.forward (commit 0019408): norm1, SiLU (a
 *    new tensor: nn.SiLU is not in place), conv1, norm2, SiLU, dropout (eval:
 *    the same tensor), conv2, conv_shortcut when in != out channels, then
 *    (input_tensor + hidden_states) / output_scale_factor, two more tensors.
 *  - models/upsampling.py Upsample2D.forward (commit 049ca38): a bfloat16
 *    input is cast to float32 for F.interpolate(scale_factor=2, nearest) and
 *    the upsampled tensor cast back before the 3x3 conv.
 * GroupNorm (aten native_group_norm) allocates its output plus mean and rstd
 * (batch x groups, left out). The mid block's attention (one head: the
 * decoder passes attention_head_dim=block_out_channels[-1]) with
 * AttnProcessor2_0 is F.scaled_dot_product_attention: no score matrix; with
 * the older AttnProcessor (eager) models/attention_processor.py
 * Attention.get_attention_scores makes the scores with baddbmm, upcasts them
 * to float32 (upcast_softmax, set for the VAE's attention) and softmaxes them:
 * two float32 tokens x tokens matrices at once. cuDNN's convolution
 * workspace: with benchmark off PyTorch takes cuDNN's heuristic order and
 * allocates whatever the first engine that runs asks for through the caching
 * allocator, with no cap of its own (aten/src/ATen/native/cudnn/Conv_v8.cpp at
 * 06ca69c: run_single_conv, try_configs, run_conv_plan), so
 * max_memory_allocated counts it, but its size is cuDNN's heuristic's and no
 * source states it. It is left out unless the caller gives ws, bytes per
 * element of each 3 x 3 convolution's input beside the step's tensors (the
 * caller's fitted figure: 4, from InvokeAI's published decodes of the SD 1.5
 * and SDXL VAEs alone, estimate_generate.c).
 * Checked again at diffusers 0.25.0 (the release current when
 * huggingface/diffusion-fast was published, January 2024; its Dockerfile
 * installs diffusers from git at 4836cfad), and against that release's AutoencoderKL.decode
 * run on the meta device with every aten op's outputs counted until their last
 * reference dies (tests/tools/decoder_kl_oracle.py): the same peak at the same
 * step on every run tried, with nothing more at the peak than
 *  - two latent-sized tensors, the decode's input and post_quant_conv's
 *    output, held by AutoencoderKL.decode and _decode to the end (left out:
 *    4 channels at the latent side, 0.5 MiB for an fp32 1024 x 1024 image);
 * and, read in the same sources, nothing else: Upsample2D's .contiguous() for
 * a batch of 64 or more returns the tensor itself (it is contiguous); the
 * decoder's sample.to(upscale_dtype) is a no-op in one dtype; the convolution
 * adds its bias in place (aten Convolution.cpp _convolution, the cuDNN
 * backend); SDPA on CUDA with the 512-wide head picks the memory-efficient
 * kernel (InvokeAI invokeai/backend/util/attention.py sdpa_score_matrix_bytes:
 * no score matrix on CUDA), its float32 logsumexp batch x tokens x 4 B;
 * conv_norm_out, conv_act and conv_out at full resolution and the image
 * processor's postprocess (3 channels) stay below the last up block. */
#include <stdio.h>

#include "sheet/estimate.h"

#include "sheet/estimators/arith.h"

/* one step's live bytes, in units of one latent pixel of one image (the
 * caller multiplies by batch x frames x latent H x latent W) */
typedef struct walk {
    uint64_t best, best_ws;
    unsigned ws; /* bytes per element of a 3 x 3 convolution's input (0: none) */
    char step[VS_DECODE_STEP_MAX];
} walk;

/* the first step with the most bytes, ws of them the workspace */
static void at_ws(walk *w, uint64_t units, uint64_t ws, const char *step)
{
    if (units + ws <= w->best)
        return;
    w->best = units + ws;
    w->best_ws = ws;
    snprintf(w->step, sizeof w->step, "%s", step);
}

static void at(walk *w, uint64_t units, const char *step)
{
    at_ws(w, units, 0, step);
}

/* a tensor of c channels at level (0: the latent, each level twice the side)
 * with e bytes an element, per latent pixel */
static uint64_t t(uint64_t c, int level, unsigned e)
{
    return c * ((uint64_t)1 << (2 * level)) * e;
}

/* a ResnetBlock2D at level, hold what the caller keeps besides its input */
static void resnet(walk *w, uint64_t hold, uint64_t cin, uint64_t cout, int level, unsigned e,
                   const char *where, unsigned idx)
{
    uint64_t x = t(cin, level, e), o = t(cout, level, e);
    char f[VS_DECODE_STEP_MAX];
    /* norm1 then SiLU beside the input: x, the norm's output, the SiLU's */
    snprintf(f, sizeof f, "%s resnets.%u SiLU after norm1", where, idx);
    at(w, hold + 3 * x, f);
    /* conv1 reads the SiLU's output (cin channels): its workspace beside */
    snprintf(f, sizeof f, "%s resnets.%u conv1", where, idx);
    at_ws(w, hold + 2 * x + o, t(cin, level, w->ws), f);
    /* norm2 and its SiLU: conv1's output, then the norm's, beside x; conv2
     * reads cout channels */
    snprintf(f, sizeof f, "%s resnets.%u norm2 / SiLU / conv2", where, idx);
    at_ws(w, hold + x + 2 * o, t(cout, level, w->ws), f);
    /* the residual: [shortcut,] conv2's output, the sum and the division */
    snprintf(f, sizeof f, "%s resnets.%u residual sum / output_scale_factor", where, idx);
    at(w, hold + x + (cin != cout ? 4 : 3) * o, f);
}

int vs_estimate_decode_kl(vs_decode_peak *out, const vs_decode_kl *d, vs_error *err)
{
    const char *what = "the VAE decode";
    const uint64_t *blocks = d->blocks;
    size_t n_blocks = d->n_blocks;
    uint64_t layers = d->layers, batch = d->batch, frames = d->frames, width = d->width,
             height = d->height;
    unsigned bits = d->bits, ws = d->ws;
    int bf16 = d->bf16, eager = d->eager;
    walk w = {0, 0, ws, ""};
    unsigned e = bits / 8;
    uint64_t top, side, v;
    size_t i, j;
    int rc;
    char where[48];
    if (n_blocks < 1 || n_blocks > 8 || layers > 16 || (bits != 16 && bits != 32) || ws > 64)
        return vs_error_set(err, VS_EVALUE,
                            "the decoder needs 1 to 8 block widths, at most 16 layers per "
                            "block, a 16- or 32-bit dtype and a workspace of at most 64 bytes "
                            "per input element");
    for (i = 0; i < n_blocks; i++)
        if (blocks[i] < 1 || blocks[i] > 65536)
            return vs_error_set(err, VS_EVALUE, "block widths are 1 to 65,536 channels");
    side = (uint64_t)1 << (n_blocks - 1);
    if (width % side || height % side)
        return vs_error_set(err, VS_EVALUE,
                            "the decoder upsamples %zu times: width and height must be multiples "
                            "of %llu",
                            n_blocks - 1, (unsigned long long)side);
    top = blocks[n_blocks - 1];
    /* the mid block at the latent resolution, conv_in's output held by
     * Decoder.forward; its attention (AttnProcessor2_0) beside it: the
     * residual, the GroupNorm's output, q, k, v, SDPA's output (no scores), its
     * reshaped copy and to_out's output, q, k and v referenced to the end */
    resnet(&w, 0, top, top, 0, e, "mid_block", 0);
    at(&w, 9 * t(top, 0, e), "mid_block attentions.0");
    resnet(&w, t(top, 0, e), top, top, 0, e, "mid_block", 1);
    for (i = 0; i < n_blocks; i++) {
        int level = (int)i;
        uint64_t cin = i ? blocks[n_blocks - i] : top, cout = blocks[n_blocks - 1 - i];
        uint64_t hold = t(cin, level, e), y = t(cout, level, e);
        snprintf(where, sizeof where, "up_blocks.%zu", i);
        for (j = 0; j <= layers; j++)
            resnet(&w, j ? hold : 0, j ? cout : cin, cout, level, e, where, (unsigned)j);
        if (i + 1 == n_blocks)
            break;
        /* Upsample2D: the block's input (Decoder.forward) and its last
         * resnet's output (the up block) stay referenced throughout */
        {
            uint64_t u = t(cout, level + 1, e), uf = t(cout, level + 1, 4), yf = t(cout, level, 4);
            char f[VS_DECODE_STEP_MAX];
            if (bf16) {
                snprintf(f, sizeof f, "%s upsamplers.0 float32 F.interpolate", where);
                at(&w, hold + y + yf + uf, f);
                snprintf(f, sizeof f, "%s upsamplers.0 cast back to bfloat16", where);
                at(&w, hold + y + uf + u, f);
            } else {
                snprintf(f, sizeof f, "%s upsamplers.0 F.interpolate", where);
                at(&w, hold + y + u, f);
            }
            snprintf(f, sizeof f, "%s upsamplers.0 conv", where);
            at_ws(&w, hold + y + 2 * u, t(cout, level + 1, w.ws), f);
        }
    }
    /* conv_norm_out and conv_act: two tensors of block_out_channels[0] */
    at(&w, 2 * t(blocks[0], (int)n_blocks - 1, e), "conv_norm_out / conv_act");
    /* the workspace scales with the batch as the convolution's input does
     * (the fit had one image; the four-image rows are held out against it) */
    v = w.best;
    if ((rc = vs_arith_mul(&v, batch, what, err)) || (rc = vs_arith_mul(&v, frames, what, err)) ||
        (rc = vs_arith_mul(&v, width / side, what, err)) ||
        (rc = vs_arith_mul(&v, height / side, what, err)))
        return rc;
    out->bytes = v;
    out->workspace = w.best_ws * batch * frames * (width / side) * (height / side);
    out->per_image_pixel = w.best / ((uint64_t)1 << (2 * (n_blocks - 1)));
    snprintf(out->step, sizeof out->step, "%s", w.step);
    if (eager) {
        /* the block's input, the residual, the GroupNorm's output, q, k, v
         * beside two float32 score matrices of tokens^2 an image */
        uint64_t tokens = width / side, scores = 8, a = t(top, 0, e);
        if ((rc = vs_arith_mul(&tokens, height / side, what, err)) ||
            (rc = vs_arith_mul(&scores, batch, what, err)) ||
            (rc = vs_arith_mul(&a, 6, what, err)) ||
            (rc = vs_arith_mul(&scores, frames, what, err)) ||
            (rc = vs_arith_mul(&scores, tokens, what, err)) ||
            (rc = vs_arith_mul(&scores, tokens, what, err)) ||
            (rc = vs_arith_mul(&a, batch, what, err)) ||
            (rc = vs_arith_mul(&a, frames, what, err)) ||
            (rc = vs_arith_mul(&a, tokens, what, err)) ||
            (rc = vs_arith_add(&a, scores, what, err)))
            return rc;
        if (a > out->bytes) {
            uint64_t px = batch;
            out->bytes = a;
            out->workspace = 0;
            out->per_image_pixel = vs_checked_mul(&px, px, frames) ||
                                           vs_checked_mul(&px, px, width) ||
                                           vs_checked_mul(&px, px, height)
                                       ? 0
                                       : vs_arith_ceil_div(a, px);
            snprintf(out->step, sizeof out->step,
                     "mid_block attentions.0 float32 scores and softmax (eager AttnProcessor)");
        }
    }
    return 0;
}
