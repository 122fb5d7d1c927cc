/* verbs_card.h — the verbs that set the workload card: card, model, task,
 * format, length, concurrency, frames, batch, resolution, microbatch, quality.
 *
 * Each checks its line, sets its keys of the card (lang/verbs_common.h's
 * vs_verb_card_set) and emits one card line (render/card); `card` shows the
 * whole card. The verbs decide what to set and refuse; their headlines and
 * notes are written by render/card_lines. `model` reads a config.json, a
 * diffusers pipeline or the local Hugging Face cache through model/; nothing is
 * downloaded. A change of model, revision or format clears the weights read
 * from files. Their rows, help and order are in vs_verbs_sizing
 * (lang/verbs_sizing.c).
 */
#ifndef VS_LANG_VERBS_CARD_H
#define VS_LANG_VERBS_CARD_H

#include "lang/verb.h"

int vs_verb_card(vs_ctx *ctx, const vs_line *line, vs_error *err);
int vs_verb_model(vs_ctx *ctx, const vs_line *line, vs_error *err);
int vs_verb_task(vs_ctx *ctx, const vs_line *line, vs_error *err);
int vs_verb_format(vs_ctx *ctx, const vs_line *line, vs_error *err);
int vs_verb_length(vs_ctx *ctx, const vs_line *line, vs_error *err);
int vs_verb_concurrency(vs_ctx *ctx, const vs_line *line, vs_error *err);
int vs_verb_frames(vs_ctx *ctx, const vs_line *line, vs_error *err);
int vs_verb_batch(vs_ctx *ctx, const vs_line *line, vs_error *err);
int vs_verb_resolution(vs_ctx *ctx, const vs_line *line, vs_error *err);
int vs_verb_microbatch(vs_ctx *ctx, const vs_line *line, vs_error *err);
int vs_verb_quality(vs_ctx *ctx, const vs_line *line, vs_error *err);

/* The keys they accept, NULL-terminated (the table's, for completion and
 * help). The words `task` and `format` accept are sheet/vocab.h's
 * vs_vocab_task_names and vs_vocab_format_names (`formats`' too). */
extern const char *const vs_verb_model_keys[];
extern const char *const vs_verb_format_keys[];
extern const char *const vs_verb_microbatch_keys[];

#endif
