/* estimate_generate.h — the estimators of image and video generation, as
 * rows of the estimator table (lang/derive.h; the table is in
 * lang/verbs_sizing.c): `estimate latents`, `estimate attention`,
 * `estimate decode`. Each reads the card's resolution (width, height),
 * frames and batch, prints its rule with the numbers and stores one
 * estimated component (never over a measured one). The arithmetic is in
 * sheet/estimators/{latents,attention,decode}.c. */
#ifndef VS_LANG_ESTIMATE_GENERATE_H
#define VS_LANG_ESTIMATE_GENERATE_H

#include <jansson.h>

#include "lang/verb.h"
#include "sheet/derived.h"

int vs_estimate_generate_latents(vs_ctx *ctx, const vs_line *line, json_t *sheet, vs_error *err);
int vs_estimate_generate_attention(vs_ctx *ctx, const vs_line *line, json_t *sheet, vs_error *err);
int vs_estimate_generate_decode(vs_ctx *ctx, const vs_line *line, json_t *sheet, vs_error *err);

/* What they read from the card, ending with {NULL}. */
extern const vs_derived_read vs_estimate_generate_reads[];

#endif
