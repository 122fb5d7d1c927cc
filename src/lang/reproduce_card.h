/* reproduce_card.h — what `reproduce` changes on the new campaign's card:
 * format=, length=, concurrency= and engine= ("NAME [key=value ...]", the
 * rest of an `engine` line).
 *
 * Each override runs as the line a person would type (`length 32768`,
 * `engine llamacpp cache_type_k=q8_0`) through that verb, so that the checks,
 * the card and the engine's keys are exactly that verb's; then every estimate
 * that read the card follows it (lang/derive.h). The verbs' own results are
 * not shown: the caller says, in one place, what changed on the card and
 * which estimates moved and by how much. Not for opening or committing
 * sheets: the caller has already made the new sheet current.
 */
#ifndef VS_LANG_REPRODUCE_CARD_H
#define VS_LANG_REPRODUCE_CARD_H

#include <jansson.h>

#include "lang/verb.h"
#include "util/buf.h"

/* The keys reproduce takes for the card, in the order they are applied,
 * ending with NULL. */
extern const char *const vs_reproduce_card_keys[];

/* 1 when line gives at least one of vs_reproduce_card_keys. */
int vs_reproduce_card_given(const vs_line *line);

/* Runs line's card overrides on the session's current sheet, then the
 * estimates that follow the card. Appends to said what changed ("length
 * 4,096 → 32,768; engine llamacpp → llamacpp cache_type_k=q8_0", a value that
 * was already so "(unchanged)") and, when estimates moved, "; re-estimated:
 * kv_cache 0.50 GiB → 4.00 GiB" (then "; added: non_torch (unknown)" and
 * "; removed: ..." for the components another engine brings or takes away);
 * sets in facts (an object; the result's payload takes its keys) "card_changes"
 * [{field, from, to}] and "reestimated"
 * [{component, change, from, to}] (bytes; null when unknown or absent). A value the verb refuses
 * fails with the verb's message after "KEY=VALUE: ", placed at the value. 0 when line gives none.
 */
int vs_reproduce_card_apply(vs_ctx *ctx, const vs_line *line, json_t *facts, vs_buf *said,
                            vs_error *err);

#endif
