/* diff.h — a readable difference between two versions of a sheet.
 *
 * Compares two sheets of the layout in sheet.h section by section: title and
 * lineage, the card's fields, the components (added, removed, changed with their
 * bytes and the difference in bytes), placement, stages, measurements (keyed by
 * run, phase, GPU and counter), offers, requirements and evidence, the decision
 * and the invalidating conditions. The result is a MIME bundle: one table (text
 * and HTML from the same rows) and the payload {"kind": "diff", ...}. Runtime
 * ("_") keys are ignored. Pure: no I/O, no globals.
 *
 * Payload: {"kind": "diff", "sheet": ID, "from": LABEL, "to": LABEL,
 *   "same": BOOL, "changes": [{"section": STR, "change": "added"|"removed"|"changed",
 *   "item": STR, "from": JSON|null, "to": JSON|null, "fields": [STR],
 *   "delta_bytes": INT (components and measurements whose bytes are known on both
 *   sides)}]}
 */
#ifndef VS_SHEET_DIFF_H
#define VS_SHEET_DIFF_H

#include <jansson.h>

#include "render/bundle.h"

/* The list of changes from a to b (a new array, in section order), or NULL when
 * memory is short. */
json_t *vs_diff_changes(const json_t *a, const json_t *b);

/* The bundle showing the changes; from_label and to_label name the two versions
 * ("llama@3f2a1c0", "this session"). The keys of extra_take (an object, taken,
 * may be NULL) are added to the payload. Returns a new bundle or NULL. */
vs_bundle *vs_diff_bundle(const json_t *a, const json_t *b, const char *from_label,
                          const char *to_label, json_t *extra_take);

#endif
