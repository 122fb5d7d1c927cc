/* verbs_estimate.h — `estimate` and the estimators of language models: kv,
 * training, activations, quant.
 *
 * `estimate WORD` finds its row in the estimators' table (vs_estimators,
 * lang/derive.h: one row of lang/estimators.def each) and runs it through
 * vs_derive_run, which records it so that it follows the card. Each
 * estimator here reads its shapes from the line or the card's architecture,
 * prints its formula with the numbers, and stores estimated components (never
 * over a measured one); the arithmetic is in sheet/estimators/. Image and video
 * generation's rows are lang/estimate_generate.c's, `estimate runtime`'s
 * lang/verbs_engine.c's.
 */
#ifndef VS_LANG_VERBS_ESTIMATE_H
#define VS_LANG_VERBS_ESTIMATE_H

#include <jansson.h>

#include "lang/verb.h"

/* The verb: dispatches on its first word to the estimators' table. */
int vs_verb_estimate(vs_ctx *ctx, const vs_line *line, vs_error *err);

#endif
