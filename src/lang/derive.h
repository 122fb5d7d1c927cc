/* derive.h — estimates that follow the card.
 *
 * Every estimator is a row of one table (vs_estimators, lang/estimators.def):
 * its name (the word after `estimate`), the function the verb runs, and what it
 * reads from the card (sheet/derived.h). vs_derive_run runs a row for a line
 * and writes into each component it stored a "derived" object: the estimator,
 * the keys as written on the line, and the reads. vs_derive_follow_card, called by the
 * interpreter after every line that is not itself an estimate, compares each
 * derived component's reads with the card as it is now, and re-runs the
 * estimator from its name and keys through the same function, so that a
 * recomputed estimate is exactly what `estimate` would say now; it then emits
 * one result naming each recomputed component, what changed and by how much.
 * An estimate that can no longer be computed (the new model gives no shape)
 * becomes unknown, saying why, and keeps its derived object, so the next card
 * change that makes it computable brings it back. A component declared with
 * `reserve`, or measured, has no derived object and is never recomputed.
 */
#ifndef VS_LANG_DERIVE_H
#define VS_LANG_DERIVE_H

#include <jansson.h>

#include "lang/verb.h"
#include "sheet/derived.h"
#include "sheet/estimate.h"

typedef int (*vs_estimator_fn)(vs_ctx *ctx, const vs_line *line, json_t *sheet, vs_error *err);

typedef struct vs_estimator {
    const vs_estimator_info *info; /* name, keys, syntax (sheet/estimate.h) */
    vs_estimator_fn run;           /* checks the line, computes, stores, emits */
    const vs_derived_read *reads;  /* what it reads from the card, ending with {NULL} */
} vs_estimator;

/* The rows of lang/estimators.def, each defined beside its run function. */
#define VS_ESTIMATOR(id) extern const vs_estimator vs_estimator_row_##id;
#include "lang/estimators.def"
#undef VS_ESTIMATOR

/* The estimators in the order of lang/estimators.def, ending with NULL. */
extern const vs_estimator *const vs_estimators[];

/* The row named name, or NULL. */
const vs_estimator *vs_estimator_find(const char *name);

/* Runs e for line on sheet, then records in every component it stored (added
 * or replaced, status estimated) how it was derived. Returns e's result. */
int vs_derive_run(vs_ctx *ctx, const vs_line *line, json_t *sheet, const vs_estimator *e,
                  vs_error *err);

/* Recomputes every estimate of sheet whose reads no longer match the card, as
 * described above, and emits what changed (nothing when nothing did). Also
 * refreshes the measurements' validation flags. A sheet whose card and
 * placement are as the last call saw them (a runtime key) is left as it is. Returns 0 or a negative
 * code (memory; an estimator failing otherwise than on its inputs). */
int vs_derive_follow_card(vs_ctx *ctx, json_t *sheet, vs_error *err);

/* vs_derive_follow_card in two steps, for a caller that does something
 * between them (the interpreter copies the sheet before it changes): whether
 * the card and placement are as the last call saw them (1), moved (0), or
 * changed without moving the card's generation (VS_EVALUE, in the checking
 * mode described in derive.c); then the walk, for a card that moved. */
int vs_derive_card_unmoved(const json_t *sheet, vs_error *err);
int vs_derive_follow_moved(vs_ctx *ctx, json_t *sheet, vs_error *err);

#endif
