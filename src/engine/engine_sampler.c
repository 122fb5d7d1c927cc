/* The sampler's kernel in vLLM's profiling pass, and the activation peak it gives.
 *
 * profile_run ends with _dummy_sampler_run (vllm/v1/worker/gpu_model_runner.py):
 * max_num_seqs rows of full-vocabulary logits sampled with top-k = vocab - 1 and
 * top-p = 0.9, so TopKTopPSampler (vllm/v1/sample/ops/topk_topp_sampler.py) filters
 * them. Its native path sorts the whole vocabulary (apply_top_k_top_p: sorted values,
 * int64 indices, the sort's buffers, the cumulative sum, the scatter back): the 40 B
 * per entry of engine_runtime.c. Its FlashInfer path (forward_cuda: k and p set, no
 * per-request generators) hands the logits to flashinfer_sample, whose
 * top_k_top_p_sampling_from_logits (flashinfer/sampling.py, filter_apply_order
 * "top_k_first") masks the top-k into a new float32 tensor and takes its softmax
 * into another, sorting nothing: the 16-bit logits (2 B) and the float32 copy the
 * sampler makes (4 B, the temperature divided in place) live with the mask (4 B) and
 * the probabilities (4 B), 14 B per entry.
 *
 * Which path runs is the installation's: V1 takes FlashInfer's whenever FlashInfer is
 * importable and VLLM_USE_FLASHINFER_SAMPLER is not 0, up to vllm-project/vllm#26859
 * (after 0.11.0), which made it opt-in. The vllm/vllm-openai image has long shipped
 * FlashInfer (vllm-project/vllm#21389); `pip install vllm` of 0.10.2 and 0.11.0 does
 * not install it (vllm-project/vllm#21959 made it an extra; #26443, after 0.11.0, a
 * dependency again). The sheet cannot see which: install= says (image or pip), and
 * the release table in engine/vllm.c turns it into the release's kernel unless
 * sampler= names one (vs_vllm_sampler). vllm-project/vllm#29070's run, a
 * 0.11.0 tree in the image (flashinfer-python 0.3.1 installed), shows the choice in
 * its traceback: TopKTopPSampler.forward_cuda, which __init__ binds only when it picks
 * FlashInfer's kernel (falling back to forward_native there only for a batch without
 * top-k and top-p).
 *
 * From 0.17.0 the native path does not sort either: apply_top_k_top_p hands a batch of
 * 8 rows or more to apply_top_k_top_p_triton (vllm/v1/sample/ops/topk_topp_sampler.py;
 * the kernel of vllm/v1/sample/ops/topk_topp_triton.py, vllm-project/vllm#33538, in the
 * 0.17.0 release notes), which masks the float32 logits in place. What is live at the
 * sampler's peak is then the 16-bit logits compute_logits returned (2 B; the dummy run
 * holds them while the sampler works on its float32 copy), that copy (4 B: Sampler's
 * logits.to(torch.float32)), the softmax (4 B) and random_sample's exponential noise
 * (4 B, torch.empty_like(probs)): 14 B per entry, plus the forward pass's output,
 * which profile_run keeps until the sampler has run (max_num_batched_tokens x hidden x
 * 2 B: gpu_model_runner.py profile_run deletes hidden_states after
 * _dummy_sampler_run). The kernel's own buffer, min(SMs, rows) x vocab x 4 B (80 MB on
 * an H100's 132 SMs at 151,936 entries), is left out: the rule reads the model and the
 * batch, not the card (the catalogue's sm_count gives its Hopper and Ada cards' SMs).
 * A batch below 8 rows still sorts (the native rule). */
#include <string.h>

#include "engine/engine.h"
#include "util/checked.h"

/* 2 B of 16-bit logits + 4 B float32 logits + 4 B top-k mask + 4 B softmax */
#define FLASHINFER_BYTES_PER_ENTRY 14u
/* 2 B of 16-bit logits + 4 B float32 logits + 4 B softmax + 4 B sampling noise */
#define TRITON_BYTES_PER_ENTRY 14u
/* apply_top_k_top_p: HAS_TRITON and logits.shape[0] >= 8 takes the Triton kernel */
#define TRITON_MIN_ROWS 8u

int vs_runtime_estimate_activation_sampler(vs_runtime_estimate *out, const vs_runtime_shape *s,
                                           const char *sampler, vs_error *err)
{
    vs_runtime_shape fwd;
    uint64_t smp, held = 0;
    int rc;
    int triton = sampler && !strcmp(sampler, "triton");
    if (!sampler || !strcmp(sampler, "native") || (triton && s->seqs < TRITON_MIN_ROWS))
        return vs_runtime_estimate_activation(out, s, err);
    if (strcmp(sampler, "flashinfer") && !triton)
        return vs_error_set(err, VS_EVALUE, "sampler=%s: expected native, flashinfer or triton",
                            sampler);
    /* the forward pass's peak alone, by engine_runtime.c's rule */
    fwd = *s;
    fwd.sampler_off = 1;
    if ((rc = vs_runtime_estimate_activation(out, &fwd, err)) < 0)
        return rc;
    if (s->sampler_off)
        return 0;
    /* both kernels hold 14 B a sequence and vocabulary entry; Triton's run
     * also keeps the forward pass's output */
    if (vs_checked_mul(&smp, s->seqs, s->vocab) ||
        vs_checked_mul(&smp, smp, triton ? TRITON_BYTES_PER_ENTRY : FLASHINFER_BYTES_PER_ENTRY) ||
        (triton && (vs_checked_mul(&held, s->tokens, s->hidden) || vs_checked_mul(&held, held, 2) ||
                    vs_checked_add(&smp, smp, held))))
        return vs_error_set(err, VS_EUNIT, "the sampler's run does not fit in 64 bits");
    if (smp > out->bytes) {
        out->bytes = smp;
        out->rule =
            triton ? "max_num_seqs x vocab x 14 B + max_num_batched_tokens x hidden x 2 B: "
                     "the sampler's dummy run through the Triton top-k/top-p kernel "
                     "(sampler=triton, from 0.17.0: vllm/v1/sample/ops/topk_topp_triton.py, "
                     "no sort; 16-bit and float32 logits, the softmax and the sampling "
                     "noise) with the forward pass's output still held "
                     "(vllm/v1/worker/gpu_model_runner.py profile_run), larger than the "
                     "forward pass's MLP peak"
                   : "max_num_seqs x vocab x 14 B: the sampler's dummy run through FlashInfer's "
                     "top_k_top_p_sampling_from_logits (sampler=flashinfer: no sort; 16-bit and "
                     "float32 logits, the top-k mask and the softmax: "
                     "vllm/v1/sample/ops/topk_topp_sampler.py forward_cuda, flashinfer/"
                     "sampling.py), larger than the forward pass's MLP peak";
    }
    /* else the forward rule stands: it says it is larger than the sampler's run */
    return 0;
}
