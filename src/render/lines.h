/* lines.h — a result that is a headline and a list of lines.
 *
 * What the procedure verbs (stage, invalidate, oom, decide), `placement` and
 * `reserve remove` print: the headline, then each line, in text and as an
 * HTML list, with the payload (it names its own kind). The verbs hand the
 * facts they read or stored (the sheet's stages and conditions, the phase and
 * its suspects, the decision and what it rests without, the placement with
 * the envelope and KV layout it divides); each result, text, HTML and
 * payload, is written here. Pure: no I/O.
 */
#ifndef VS_RENDER_LINES_H
#define VS_RENDER_LINES_H

#include <jansson.h>
#include <stddef.h>

#include "render/bundle.h"
#include "sheet/envelope.h"
#include "sheet/kvlayout.h"
#include "sheet/placement.h"

/* headline (may be NULL), nlines lines (NULL entries print empty) as
 * "  - line" in text and an HTML list, and payload_take (taken; must have
 * "kind"). New bundle or NULL. */
vs_bundle *vs_render_lines(const char *headline, const char *const *lines, size_t nlines,
                           json_t *payload_take);

/* The result of a `stage` line: the procedure as the headline, then one line
 * per stage of the sheet's stages (an array of {name, DIM: N or null, ...,
 * note?}; at most 16 shown), "NAME: length=N concurrency=N (note)" with the
 * dimensions of dims (ndims names) that the stage holds, in that order. The
 * payload is {kind: "stages", stages: a copy}. NULL when memory is short. */
vs_bundle *vs_render_stages(const json_t *stages, const char *const *dims, size_t ndims);

/* The result of an `invalidate` line: "the conclusion no longer holds if:",
 * then each of the sheet's conditions (an array of strings; at most 64
 * listed). The payload is {kind: "invalidate", conditions: a copy}. NULL when
 * memory is short. */
vs_bundle *vs_render_invalidate(const json_t *conditions);

/* How many components on the sheet `oom` lists by name. */
#define VS_RENDER_OOM_SUSPECTS 8

/* The result of `oom phase=P`: "overflow at P: what to examine", the nexamine
 * things to examine, "on the sheet: NAME (STATUS)" for each of the suspects
 * (the sheet's components of the classes the phase points at, an array of
 * objects with a "name" and a "status", "?" when it has none; the first
 * VS_RENDER_OOM_SUSPECTS listed), then the rule of one change at a time. The
 * payload is {kind: "oom", phase, examine, suspects: every suspect's name,
 * rule}. NULL when memory is short. */
vs_bundle *vs_render_oom(const char *phase, const char *const *examine, size_t nexamine,
                         const json_t *suspects);

/* The result of `decide`: "decision recorded:", the decision, the unknown
 * components (names: an array of strings) that it rests without, and what
 * the sheet still lacks: any measurement (measurements 0), any invalidating
 * condition (invalidating 0). The payload is {kind: "decision", decision,
 * unknown, measurements}. NULL when memory is short. */
vs_bundle *vs_render_decision(const char *decision, const json_t *unknown, size_t measurements,
                              int invalidating);

/* The result of a `placement` line: the headline, how each component class
 * is divided (the weights first, then the classes from the most divided to
 * the least), under offload= what one GPU holds of the weights (env: the
 * sheet's envelope, NULL when the weights are not known yet), and under a
 * tensor placement the KV heads each GPU holds (kv: the card's layout, NULL
 * when the card has none). The payload is {kind: "placement", placement,
 * gpus, stage (null but under ZeRO), ways: {class: W}, kv_heads_per_gpu:
 * [{kind, kv_heads, per_gpu}], offload: {offload, weights_gpu_bytes,
 * host_bytes, basis} or null}. NULL when memory is short. */
vs_bundle *vs_render_placement(const vs_placement *p, const vs_envelope *env,
                               const vs_kv_layout *kv);

/* The lines of a `placement` result, each written into out (outlen bytes, cut
 * to fit). The headline: "placement: ZeRO stage 2 on 4 GPUs; the envelope and
 * the capacity check are per GPU". */
void vs_render_placement_head(char *out, size_t outlen, const vs_placement *p);
/* How one class is divided: "CLASS: split W ways (1/W per GPU)", or "CLASS:
 * whole on every GPU" when w <= 1. */
void vs_render_placement_ways(char *out, size_t outlen, const char *cls, unsigned w);
/* What offload= leaves on one GPU: "offload=MODE: weights on the GPU DESC
 * (BASIS); host memory for the weights DESC" from env (its weights_gpu_bytes,
 * offload_basis, host_bytes), or, env NULL (the weights not known yet), the
 * line saying how to give them. */
void vs_render_placement_offload(char *out, size_t outlen, vs_offload mode, const vs_envelope *env);
/* The KV heads each GPU holds under tensor parallelism on gpus GPUs, group by
 * group of l ("KV heads per GPU: full layers 2 of 8; ..."; groups with no KV
 * heads are left out). Returns how many groups of l the line went through:
 * all of them, unless out filled first; the payload lists those. */
size_t vs_render_placement_kv_heads(char *out, size_t outlen, const vs_kv_layout *l, unsigned gpus);

#endif
