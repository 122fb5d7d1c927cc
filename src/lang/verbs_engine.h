/* verbs_engine.h — what lang/verbs_engine.c gives the other verb files:
 * `estimate runtime`, a row of the estimators' table (lang/derive.h; the table
 * is in lang/verbs_sizing.c). It reads the engine, the model and the placement
 * and stores the engine's runtime items as estimated components. The verbs
 * `engine` and `fit` are rows of vs_verbs_engine (lang/verb.h).
 */
#ifndef VS_LANG_VERBS_ENGINE_H
#define VS_LANG_VERBS_ENGINE_H

#include <jansson.h>

#include "lang/verb.h"
#include "sheet/derived.h"

/* The row's run function (vs_estimator.run). */
int vs_verbs_engine_estimate_runtime(vs_ctx *ctx, const vs_line *line, json_t *sheet,
                                     vs_error *err);
/* What it reads from the card, ending with {NULL}. */
extern const vs_derived_read vs_verbs_engine_runtime_reads[];

#endif
