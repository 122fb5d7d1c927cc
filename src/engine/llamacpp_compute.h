/* llamacpp_compute.h — llama.cpp's compute buffer, estimated per architecture and ubatch.
 *
 * llama.cpp reserves its compute buffer by planning the worst-case graph of one
 * ubatch (src/llama-context.cpp sched_reserve, ggml-alloc): the buffer is the peak
 * of what is alive at once, which is one of three phases:
 *   output:    the logits, vocab x ubatch x 4 B, and two hidden states (ubatch x
 *              hidden x 4 B each)
 *   attention: without flash attention, the scores of one layer, cells x ubatch x
 *              heads x 4 B, beside the mask (cells x ubatch, f16 with flash
 *              attention, f32 without) and four hidden states
 *   MLP:       the mask, three intermediate states (ubatch x width x 4 B; two for
 *              an MLP without a gate) and four hidden states, the width being
 *              intermediate x experts used for a mixture of experts
 * cells being the per-stream cells of the largest cache. The largest of the three,
 * times 1.10, is the estimate: ruled on 35 runs of llama-fit-params at llama.cpp
 * 0c1e570 (tests/data/llamacpp/fit_params.tsv), where it came between 1.02 and
 * 1.22 times the printed compute buffer (never below), and 1.9 to 2.0 times for
 * DeepSeek-V2-Lite, whose card's intermediate size is its dense layers' (the
 * experts' is smaller); and on the published CUDA figure of
 * fedora-copr/logdetective#106 (2144 MiB at 32768 cells, flash attention off:
 * the attention phase exactly). Pure.
 */
#ifndef VS_ENGINE_LLAMACPP_COMPUTE_H
#define VS_ENGINE_LLAMACPP_COMPUTE_H

#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"

/* The shapes the estimate reads (card.arch); 0 where unknown. */
typedef struct vs_llamacpp_shapes {
    uint64_t vocab, hidden, heads, intermediate, experts_per_token;
} vs_llamacpp_shapes;

/* The compute buffer of e's card under its llamacpp keys (e from vs_fit_prepare);
 * out->rule points into rule (rule_size bytes: 400 hold it). 0, or VS_EVALUE
 * naming the missing shape. */
int vs_llamacpp_compute_estimate(vs_runtime_estimate *out, char *rule, size_t rule_size,
                                 const vs_engine_env *e, const vs_llamacpp_shapes *s,
                                 vs_error *err);

/* vs_llamacpp_compute_estimate with the shapes read from the card's
 * architecture arch (borrowed; NULL or a missing shape: unknown): the engine's
 * runtime_estimate (engine/engine.h). */
int vs_llamacpp_compute_runtime(vs_runtime_estimate *out, char *rule, size_t rule_size,
                                const vs_engine_env *e, const json_t *arch, vs_error *err);

#endif
