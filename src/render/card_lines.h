/* card_lines.h — the words of the card verbs' headlines.
 *
 * `card`'s first line and what the method still needs on the card ("model,
 * params, task: not set yet"); what `model` learnt (the count and its source,
 * what one token uses, what is counted and left out, a diffusers pipeline's
 * components, the architecture); what `task` adds; what `format`, `length`,
 * `concurrency`, `frames`, `batch`, `resolution`, `microbatch` and `quality`
 * hold; the notes that say what a change cleared. The verbs decide what to set
 * and what to refuse, and hand over the facts: the sheet's JSON, the payloads
 * model/ returned, plain values. The words are written here, appended to a
 * vs_buf (a failed append marks it failed, as every vs_buf append does). Pure:
 * no I/O, no globals.
 */
#ifndef VS_RENDER_CARD_LINES_H
#define VS_RENDER_CARD_LINES_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "model/hfconfig.h"
#include "sheet/vocab.h"
#include "util/buf.h"

/* What `card` finds missing, one bit each; the list reads in this order. */
enum {
    VS_CARD_UNSET_MODEL = 1u << 0,
    VS_CARD_UNSET_PARAMS = 1u << 1,
    VS_CARD_UNSET_LENGTH = 1u << 2,
    VS_CARD_UNSET_TASK = 1u << 3,
    VS_CARD_UNSET_FORMAT = 1u << 4,
    VS_CARD_UNSET_RESOLUTION = 1u << 5,
    VS_CARD_UNSET_BATCH = 1u << 6,
    VS_CARD_UNSET_FRAMES = 1u << 7,
    VS_CARD_UNSET_CONCURRENCY = 1u << 8,
    VS_CARD_UNSET_MICROBATCH = 1u << 9,
    VS_CARD_UNSET_QUALITY = 1u << 10
};

/* `card`'s headline: "workload card of sheet ID ("TITLE"), held fixed: every
 * candidate is compared against it", from the sheet's id and title ("?" and
 * "" when absent). */
void vs_render_card_headline(vs_buf *out, const json_t *sheet);

/* "model, params, task: not set yet" for the VS_CARD_UNSET_* bits in unset;
 * nothing when unset is 0. */
void vs_render_card_unset(vs_buf *out, unsigned unset);

/* What a config.json gave `model`, the "config" of its payload, a new
 * reference (NULL when memory is short): the card's arch as read (a copy of
 * arch), then kind "model", model_type, params, params_active,
 * params_excluded (what the checkpoint holds that params leaves out: [{part,
 * params, reason}]), parts (the counted parts of a multimodal or headed
 * checkpoint: [{part, params}]), params_source ("config.json (RULE)") and
 * positions (null when the config gives none). */
json_t *vs_render_card_config(const json_t *arch, const vs_hfconfig *c);

/* `model`'s headline: "model NAME", then from the sheet's card " at revision
 * R" and ": N params (SOURCE)"; with config (the payload of reading a
 * config.json, may be NULL) ", N active per token" (the card arch's
 * params_active), "; counted: PART N, ..." (when it counts more than one part)
 * and "; left out: N params of REASON" for each of its params_excluded; with
 * pipeline (a diffusers pipeline's payload, may be NULL) "; diffusers pipeline
 * NAME: COMPONENT BYTES, ..."; and "; architecture ..." when the card has one. */
void vs_render_card_model_headline(vs_buf *out, const json_t *sheet, const char *name,
                                   const json_t *config, const json_t *pipeline);

/* The note when the declared params= differs from what the config counts:
 * "the declared params=N replaces the M computed from the config". */
void vs_render_card_params_note(vs_buf *out, uint64_t declared, uint64_t computed);

/* `task`'s headline for task (spelt as the user wrote it, of kind kind): for
 * inference and generation "task T: adds no component by itself"; for a
 * training task "task T: nothing is multiplied; " and either the components it
 * added as unknown (added[0 .. nadded)) or that they were already there. */
void vs_render_card_task_headline(vs_buf *out, const char *task, vs_vocab_task kind,
                                  const char *const *added, size_t nadded);

/* The note after `task`'s headline: what documents the rest for that kind. */
const char *vs_render_card_task_note(vs_vocab_task kind);

/* `quality`'s headline: "quality "CRITERION": the criterion every change
 * (format, length, candidate) is re-checked against". */
void vs_render_card_quality_headline(vs_buf *out, const char *criterion);

/* `format`'s headline: "format NAME: N bits per weight". */
void vs_render_card_format_headline(vs_buf *out, const char *format, unsigned bits);

/* The headline of a card dimension that one count sets (length, concurrency,
 * frames, batch): "length 4,096: the required tokens per sequence, held fixed
 * for every candidate"; "KEY N" for a key of no other. */
void vs_render_card_dim_headline(vs_buf *out, const char *key, uint64_t v);

/* `resolution`'s headline: "resolution WxH: the generated image or video
 * frame in pixels, held fixed for every candidate". */
void vs_render_card_resolution_headline(vs_buf *out, uint64_t width, uint64_t height);

/* `microbatch`'s headline, with ", accumulation N" and why it keeps the
 * update comparable when have_accumulation. */
void vs_render_card_microbatch_headline(vs_buf *out, uint64_t microbatch, int have_accumulation,
                                        uint64_t accumulation);

/* The notes the card verbs add, by what happened. */
typedef enum {
    VS_CARD_NOTE_FILES_OTHER_MODEL,  /* `model` or its revision changed: files' weights cleared */
    VS_CARD_NOTE_FILES_OTHER_FORMAT, /* `format` changed: files' weights cleared */
    VS_CARD_NOTE_NO_PARAMS           /* `model` left the card without a parameter count */
} vs_card_note;

/* The words of a note (static). */
const char *vs_render_card_note(vs_card_note note);

#endif
