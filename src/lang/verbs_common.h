/* verbs_common.h — the small helpers the verb files share.
 *
 * Emitting a bundle, the current sheet, a positional count, the card's keys,
 * a component's class, a line's words joined: each written once here rather
 * than copied into every verbs_<group>.c. They check and set, and fill a
 * vs_error like the verbs; nothing here renders or computes a size.
 */
#ifndef VS_LANG_VERBS_COMMON_H
#define VS_LANG_VERBS_COMMON_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "lang/verb.h"
#include "model/hfhub.h"
#include "render/bundle.h"
#include "sheet/sheet_access.h"
#include "util/buf.h"
#include "util/error.h"

/* Emits bundle_take through the context (taking it); a NULL bundle (a render
 * that ran out of memory) is VS_ENOMEM. Returns 0 or VS_ENOMEM. */
int vs_verb_emit(vs_ctx *ctx, vs_bundle *bundle_take, vs_error *err);

/* A Hub fetch's progress lines streamed to the cell's stderr, its interrupt
 * the cell's (model/hfhub.h). */
void vs_verb_hub_progress(vs_ctx *ctx, vs_hub_progress *p);

/* The current sheet (borrowed, vs_ctx_sheet); NULL with VS_ENOMEM in err. */
json_t *vs_verb_sheet_of(vs_ctx *ctx, vs_error *err);

/* The line's first positional as a whole number from 1 to INT64_MAX (a count:
 * 4096, 32k, 32Ki), and nothing after it; syntax is quoted in the errors. */
int vs_verb_positional_uint(const vs_line *line, const char *syntax, uint64_t *out, vs_error *err);

/* Joins the positionals from index `from` with single spaces into out
 * (quality "a b" or quality a b). Returns 0, or -1 when out failed. */
int vs_verb_join_positionals(const vs_line *line, size_t from, vs_buf *out);

/* Writes a NULL-terminated table of names (a vocabulary's, sheet/vocab.h)
 * into out, joined by sep and the last two by last: ", " and " or " give
 * "other, kv_cache, ... or parameters"; "|" and "|" give "a|b|c". Returns
 * out (cut short when cap is too small). */
const char *vs_verb_join_names(char *out, size_t cap, const char *const *names, const char *sep,
                               const char *last);

/* Sets the card's field k (creating the card), taking value_take (NULL:
 * VS_ENOMEM), and moves the card's generation. A card dimension
 * (vs_sheet_card_dims) is copied into the limit stage too: that stage is the
 * card's dimensions by definition. */
int vs_verb_card_set(json_t *sheet, vs_card_key k, json_t *value_take, vs_error *err);

/* The component class a name implies (kv_cache, gradients, optimizer,
 * activations, parameters, else other): how a placement shards it. Static. */
const char *vs_verb_class_for(const char *name);

#endif
