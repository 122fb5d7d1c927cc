/* derived.h — what a sheet derives from its card, and how to tell when it no
 * longer follows it.
 *
 * The card (model, format, length, concurrency, microbatch, placement) is the
 * truth; everything computed from it must follow it:
 *   - an estimated component remembers how it was obtained, in its "derived"
 *     object: {"estimator": "kv", "keys": {KEY: "as written"}, "reads": {...}},
 *     where "reads" holds the card fields and model shape the estimator read
 *     (vs_derived_reads). When the current reads differ from the stored ones
 *     (vs_derived_changes), the estimate is recomputed by the language layer
 *     (lang/derive.h), which re-runs the estimator from its name and keys;
 *   - a measurement's "validates_card" is a function of its executed dims, its
 *     run's exit and the card (vs_derived_measurement_validates), written fresh by
 *     vs_sheet_refresh_validation;
 *   - a measured component whose measurement no longer validates the card is
 *     flagged (vs_derived_component_stale) and supports no admissible capacity verdict;
 *   - a piece of evidence remembers the card it was obtained under, in its
 *     "card" object (vs_derived_evidence_card); once the card moves past it
 *     (vs_derived_evidence_moved) it no longer decides a verdict.
 * Pure: no I/O, no globals.
 */
#ifndef VS_SHEET_DERIVED_H
#define VS_SHEET_DERIVED_H

#include <jansson.h>
#include <stddef.h>

#include "util/buf.h"

/* One input an estimator reads: a card field ("length", "params", "arch" for
 * the whole model shape, "format", ...), "placement" (the sheet's
 * placement) or "placement.tp" (its tensor-parallel ways: the GPU count under
 * placement tensor, else 1). unless: NULL, or keys separated by ',' that, when all written on
 * the estimate line, make this read unnecessary ("layers,kv_heads,head_dim":
 * the shape is not read from the model when the line gives all of it). */
typedef struct vs_derived_read {
    const char *path;
    const char *unless;
} vs_derived_read;

/* The current values of reads (ending with {NULL}) for an estimate whose line
 * wrote keys (an object KEY -> text; NULL for none): a new object path ->
 * value (null when unset), or NULL when memory is short. */
json_t *vs_derived_reads(const json_t *sheet, const vs_derived_read *reads, const json_t *keys);

/* The current values of the paths stored in old (an object as made by
 * vs_derived_reads): what the estimator would read now. New object or NULL. */
json_t *vs_derived_reads_now(const json_t *sheet, const json_t *old);

/* 1 when the card no longer holds the values of reads (as stored): a walk
 * with no copy, for the check made after every line. */
int vs_derived_moved(const json_t *sheet, const json_t *reads);

/* Describes how now differs from old ("length 4,096 → 65,536; layers 32 →
 * 40", the model shape's fields by their own names, an object's otherwise as
 * "placement.kind"), appending to out. Returns how many values differ. */
size_t vs_derived_changes(const json_t *old, const json_t *now, vs_buf *out);

/* 1 when executed dims (an object dimension -> INT) meet every dimension the
 * card declares; else 0 with the reasons appended to why (when not NULL). */
int vs_derived_dims_validate(const json_t *sheet, const json_t *dims, vs_buf *why);

/* 1 when measurement m validates the card as it is now: every dimension the
 * card declares (length, concurrency, microbatch) was executed at least at the
 * card's value (and, for image and video generation, width, height, frames
 * and batch: a run at 512x512 does not validate a 1024x1024 card), the run it
 * came from (if any) completed (exit status 0, no
 * overflow), and it is not "to re-measure" (taken on the hardware or software
 * of another campaign). A card that declares none is not validated. Else 0, with the
 * reasons appended to why ("; "-separated) when why is not NULL. */
int vs_derived_measurement_validates(const json_t *sheet, const json_t *m, vs_buf *why);

/* Writes every measurement's "validates_card" as vs_derived_measurement_validates
 * finds it now. Returns how many flags changed. */
size_t vs_sheet_refresh_validation(json_t *sheet);

/* The pure part of keeping a sheet's derived state fresh, for callers outside
 * a cell (commit, records pull, reproduce): today the validation flags.
 * Returns how many values changed. */
size_t vs_sheet_refresh_derived(json_t *sheet);

/* The measurement a measured component was taken from (the one whose run,
 * phase, counter and peak its source and bytes name), or NULL (declared with
 * `reserve ... status=measured`, or not found). Borrowed. */
const json_t *vs_derived_component_measurement(const json_t *sheet, const json_t *component);

/* 1 when component is measured and its measurement no longer validates the
 * card ("measured at smaller dims than the card"); the reasons appended to why
 * when not NULL. */
int vs_derived_component_stale(const json_t *sheet, const json_t *component, vs_buf *why);

/* The text a flagged component carries in `envelope` and `candidates`. */
#define VS_STALE_FLAG "measured at smaller dims than the card"

/* The card fields a piece of evidence for requirement holds under: quality
 * and compatibility (and declared requirements) depend on the model, its
 * revision and the format; length, concurrency and microbatch on that
 * dimension; capacity and available-memory on the model, its revision, the
 * format and every dimension. A new
 * object of the current values (null when unset), or NULL when memory is short. */
json_t *vs_derived_evidence_card(const json_t *sheet, const char *requirement);

/* 1 when the card has moved past what evidence entry was obtained under (its
 * "card" object): another model, revision or format, or a dimension now larger
 * than the one confirmed. The changes appended to why ("format bf16 → int4")
 * when not NULL. An entry without "card" (older records) never moves. */
int vs_derived_evidence_moved(const json_t *sheet, const json_t *entry, vs_buf *why);

#endif
