/* verbs_procedure.h — the lines of the validation procedure: stage,
 * invalidate, oom, decide.
 *
 * `stage` records short, usual and limit (the limit is the card's dimensions,
 * never a smaller run); `invalidate` a condition that would make the
 * conclusion wrong; `oom` where an overflow happened and what to examine for
 * its phase; `decide` the decision and what it still rests on. Each appends to
 * the sheet and emits its list. Their rows, help and order are in
 * vs_verbs_sizing (lang/verbs_sizing.c).
 */
#ifndef VS_LANG_VERBS_PROCEDURE_H
#define VS_LANG_VERBS_PROCEDURE_H

#include "lang/verb.h"

int vs_verb_stage(vs_ctx *ctx, const vs_line *line, vs_error *err);
int vs_verb_invalidate(vs_ctx *ctx, const vs_line *line, vs_error *err);
int vs_verb_oom(vs_ctx *ctx, const vs_line *line, vs_error *err);
int vs_verb_decide(vs_ctx *ctx, const vs_line *line, vs_error *err);

/* The keys and first words they accept, NULL-terminated. */
extern const char *const vs_verb_stage_keys[];
extern const char *const vs_verb_stage_words[];
extern const char *const vs_verb_oom_keys[];
extern const char *const vs_verb_oom_words[];

#endif
