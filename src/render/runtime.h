/* runtime.h (render) — the words of `estimate runtime`.
 *
 * What the verb says of each runtime item it estimated ("activation_peak
 * estimated: 1.2 GiB (...) (RULE). ") or could not ("non_torch: REASON. "),
 * and the one text line those sentences make, with its payload. The verb
 * keeps the rules and the storing; the same sentences of the items not
 * estimated also make its error when none was. Pure: no I/O.
 */
#ifndef VS_RENDER_RUNTIME_H
#define VS_RENDER_RUNTIME_H

#include <stdint.h>

#include "render/bundle.h"
#include "util/buf.h"

/* Appends "NAME estimated: DESC (RULE). " to said: DESC the bytes in words
 * (vs_units_describe), RULE the rule and its accuracy. */
void vs_render_runtime_estimated(vs_buf *said, const char *name, uint64_t bytes, const char *rule);

/* Appends "NAME: REASON. " to why; reason NULL is the rule's lack of a GPU
 * generation: no offer names a catalogue GPU. */
void vs_render_runtime_missing(vs_buf *why, const char *name, const char *reason);

/* The result: "estimate runtime: SAID" as one text line (no HTML), payload
 * {kind: "component", name: "runtime items", source: SAID}. NULL when memory
 * is short. */
vs_bundle *vs_render_runtime(const char *said);

#endif
