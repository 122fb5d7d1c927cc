/* verbs_budget.h — the memory budget around the weights: reserve, placement,
 * weights, envelope, formats.
 *
 * `reserve` declares components (an amount, or unknown) with their status,
 * source, phase and class; `placement` says how the work is spread over GPUs
 * (sheet/placement); `weights` the weights only, from the card or read from
 * files (model/); `envelope` weights + reserve per GPU with the chart
 * (sheet/envelope); `formats` one row per format with the same reserve. Their
 * rows, help and order are in vs_verbs_sizing (lang/verbs_sizing.c).
 */
#ifndef VS_LANG_VERBS_BUDGET_H
#define VS_LANG_VERBS_BUDGET_H

#include "lang/verb.h"

int vs_verb_reserve(vs_ctx *ctx, const vs_line *line, vs_error *err);
int vs_verb_placement(vs_ctx *ctx, const vs_line *line, vs_error *err);
int vs_verb_weights(vs_ctx *ctx, const vs_line *line, vs_error *err);
int vs_verb_envelope(vs_ctx *ctx, const vs_line *line, vs_error *err);
int vs_verb_formats(vs_ctx *ctx, const vs_line *line, vs_error *err);

/* The keys and first words they accept, NULL-terminated. */
extern const char *const vs_verb_reserve_keys[];
extern const char *const vs_verb_placement_keys[];
extern const char *const vs_verb_placement_words[];
extern const char *const vs_verb_weights_keys[];
extern const char *const vs_verb_formats_keys[];

#endif
