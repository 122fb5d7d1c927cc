/* diff.h — a readable difference between two versions of a sheet.
 *
 * Compares two sheets (records/sheet.schema.json) section by section: title and
 * lineage, the card's fields, the components (added, removed, changed with their
 * bytes and the difference in bytes), placement, stages, measurements (keyed by
 * run, phase, GPU and counter), offers, requirements and evidence, the decision
 * and the invalidating conditions. The result is the list of changes (render/diff.h
 * shows it: one table, text and HTML from the same rows, and the payload
 * {"kind": "diff", ...}). Runtime ("_") keys are ignored. Pure: no I/O, no globals.
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

#include "util/buf.h"

/* The list of changes from a to b (a new array, in section order), or NULL when
 * memory is short. */
json_t *vs_diff_changes(const json_t *a, const json_t *b);

/* The axes of a sizing campaign that one revision should change one at a time. */
enum {
    VS_AXIS_MODEL = 1 << 0,  /* card model, revision, params, arch */
    VS_AXIS_FORMAT = 1 << 1, /* card format, bits */
    VS_AXIS_LENGTH = 1 << 2,
    VS_AXIS_CONCURRENCY = 1 << 3,
    VS_AXIS_MICROBATCH = 1 << 4, /* microbatch, accumulation */
    VS_AXIS_PLACEMENT = 1 << 5,
    VS_AXIS_ENGINE = 1 << 6, /* card or sheet "engine", when present */
    VS_AXIS_OFFERS = 1 << 7,
    VS_AXIS_COUNT = 8
};

/* Which axes differ between sheets a and b (a bit set of VS_AXIS_*). Pure. */
unsigned vs_diff_axes(const json_t *a, const json_t *b);

/* The name of axis i (0 <= i < VS_AXIS_COUNT): "model", "format", ... */
const char *vs_diff_axis_name(unsigned i);

/* Writes "this revision changes format and length together; compare one change
 * at a time" into out when axes holds more than one axis; returns 1 then, else
 * 0 (out untouched). */
int vs_diff_axes_warning(unsigned axes, vs_buf *out);

#endif
