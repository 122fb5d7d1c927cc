/* verbs_estimate_internal.h — what the estimators of `estimate` share across
 * their files (verbs_estimate.c, verbs_estimate_activations.c): shapes from the
 * line or the card's architecture, the errors for a missing shape or card
 * field, and storing an estimated component. */
#ifndef VS_LANG_VERBS_ESTIMATE_INTERNAL_H
#define VS_LANG_VERBS_ESTIMATE_INTERNAL_H

#include <jansson.h>
#include <stdint.h>

#include "lang/verb.h"
#include "sheet/estimate.h"
#include "sheet/kvlayout.h"
#include "sheet/vocab.h"
#include "util/buf.h"

/* A shape: the key when given (0 refused), else card.arch.<arch_key> (arch_key
 * NULL: none). 1 found (*from_arch set when from the architecture), 0 not
 * found, or a negative error. */
int vs_verbs_estimate_shape(const vs_line *line, const json_t *sheet, const char *key,
                            const char *arch_key, uint64_t *out, int *from_arch, vs_error *err);
/* VS_EVALUE at the line: `estimate SUB` needs KEY=N (or a config.json). */
int vs_verbs_estimate_need_shape(const vs_line *line, const char *key, const char *sub,
                                 vs_error *err);
/* VS_EVALUE at the line: `estimate SUB` uses the card's KEY: set it (`EXAMPLE`). */
int vs_verbs_estimate_need_card(const vs_line *line, const char *key, const char *sub,
                                const char *example, vs_error *err);
/* Sets an estimated component unless a measurement holds the name: then the
 * estimate is only shown (skipped, skipped_list say so). 1 stored, 0 skipped,
 * or a negative error. */
int vs_verbs_estimate_store(json_t *sheet, const char *name, uint64_t bytes, const char *source,
                            vs_vocab_class cls, vs_buf *skipped, json_t *skipped_list,
                            vs_error *err);

/* Whether the card's architecture is a dense decoder laid out as Llama's (two
 * RMSNorms, separate q/k/v/o, SwiGLU, no dropout): 1 with its kv_heads x
 * head_dim and intermediate size, else 0. */
int vs_verbs_estimate_gated_decoder(const json_t *sheet, uint64_t *kv_width,
                                    uint64_t *intermediate);

/* When the gradients of e are on the GPU, into *phase: "step" (one micro-batch
 * a step: the backward fills them as it frees the activations, the optimizer
 * step holds them), NULL with microbatch accumulation=N > 1 (they stay through
 * the next forward) or in_backward=yes on the line (torchtune's
 * optimizer_in_bwd: e->gradients becomes the largest parameter's, from the
 * card's architecture, and src says so). note says why when not "step". 0 or a
 * negative error at the line. */
int vs_verbs_estimate_step_gradients(const vs_line *line, const json_t *sheet,
                                     const vs_training_rule *rule, int lora, vs_training_est *e,
                                     const char **phase, char *note, size_t notelen, char *src,
                                     size_t srclen, vs_error *err);

/* A paged optimizer's moments (rule->paged): component optimizer_state_paged,
 * class optimizer, "memory": "managed" (CUDA managed memory), its source
 * naming the trainable count gt; 1 when stored, 0 when the optimizer is not
 * paged (an estimated optimizer_state_paged left by an earlier line is then
 * removed), or a negative error. */
int vs_verbs_estimate_paged_state(json_t *sheet, const vs_training_rule *rule,
                                  const vs_training_est *e, const char *gt, vs_buf *skipped,
                                  json_t *skipped_list, vs_error *err);

/* The optimizer step's own allocations beyond its state (torchao's AdamW8bit on
 * a full finetune, the card's architecture giving the largest parameter;
 * torch= on the line names the PyTorch release whose Inductor compiles it:
 * vs_estimate_adamw8bit_step): component optimizer_step (each step) and
 * optimizer_autotune (the first step's autotuning), class optimizer, phase
 * step; with in_backward=yes on the line phase step for a tied embedding
 * (stepped last, when the backward has freed its layers), with the layers'
 * own steps beside the layer recomputed as optimizer_step_layers (phase
 * backward), and phase backward for an untied output layer or a layer's
 * projection. torch= is refused under an adapter (lora). Returns a mask, 1
 * when optimizer_step was stored, 2 when optimizer_autotune was and 4 when
 * optimizer_step_layers was (an estimated one an earlier line left and this
 * one does not give is removed), or a negative error. */
int vs_verbs_estimate_step_transient(const vs_line *line, json_t *sheet,
                                     const vs_training_rule *rule, int lora, vs_buf *skipped,
                                     json_t *skipped_list, vs_error *err);

/* Like vs_verbs_estimate_store, the component on the GPU in one phase only
 * (phase NULL: throughout). skipped_list may be NULL (not listed). */
int vs_verbs_estimate_store_phase(json_t *sheet, const char *name, uint64_t bytes,
                                  const char *source, vs_vocab_class cls, const char *phase,
                                  vs_buf *skipped, json_t *skipped_list, vs_error *err);

/* Removes the component named name that an earlier line estimated and this
 * one no longer makes; a measured one always stays. memory NULL: any other
 * (an estimate, or one a card change left unknown). memory a word (the
 * component's "memory" key, VS_MEMORY_CACHE): only an estimate that carries
 * it, an estimator's own second part, so that one the user declared under
 * that name (`reserve vae_decode_cache 1GB`) stays. 0, or VS_ENOMEM. */
int vs_verbs_estimate_drop(json_t *sheet, const char *name, const char *memory, vs_error *err);

/* estimate training lora: with rank= on the line, the adapter's trainable
 * parameters from the card's architecture and targets= (default all-linear)
 * into *e and *rank, the formula with its numbers appended to formula: 1. 0
 * when the line has no rank= (nor the word lora, nor targets=), or a negative
 * error (shapes missing, a family laid out otherwise). */
int vs_verbs_estimate_lora(const vs_line *line, const json_t *sheet, vs_lora_est *e, uint64_t *rank,
                           vs_buf *formula, vs_error *err);
/* Task qlora: stores quant_metadata (nf4, double quantisation, over e's base
 * linear weights) and dequant_buffer (the largest linear layer in bf16). */
int vs_verbs_estimate_lora_qlora(json_t *sheet, const vs_lora_est *e, vs_buf *skipped,
                                 json_t *skipped_list, vs_error *err);

/* estimate kv under the card's engine (any but none): the KV cache that engine
 * allocates for the card's length and concurrency on layout, by the rule `fit`
 * uses (the engine's kv callback: pages, cells, padding, its cache dtype), times
 * tp GPUs, into *bytes, and its source (the engine, its keys, its release, the
 * rule with its figures) appended to source: 1. 0 when the card has no engine
 * (the model-level estimate stands), or a negative error (the engine's rule
 * refuses the card). verbs_estimate_kv_engine.c. */
int vs_verbs_estimate_kv_engine(const json_t *sheet, const vs_kv_layout *layout, uint64_t tp,
                                uint64_t *bytes, vs_buf *source, vs_error *err);

#endif
