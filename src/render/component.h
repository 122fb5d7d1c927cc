/* component.h — the result of a line that set components: an estimator, `reserve`.
 *
 * The components just set, each with its status, class, bytes (GB and GiB
 * beside, or "unknown") and source, under the formula with its numbers; the
 * payload names what produced them (estimator, formula, inputs). Most lines of
 * a long cell are `reserve` lines: their payload is written as text (vs_jw),
 * never built as a tree. Pure: no I/O.
 */
#ifndef VS_RENDER_COMPONENT_H
#define VS_RENDER_COMPONENT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "render/bundle.h"
#include "sheet/sheet.h"

/* What a `reserve` line set, as the line said it: the facts its words are made
 * of. */
typedef struct vs_reserve_said {
    const char *name;   /* the component's name */
    int lump;           /* `reserve 6GiB`: the one declared lump, named on no line */
    int known;          /* an amount was given (bytes) */
    uint64_t bytes;     /* when known */
    const char *status; /* "estimated", "measured" or "unknown" */
    const char *cls;    /* its class */
    const char *phase;  /* may be NULL */
    const char *source; /* as stored ("declared" when the line gave none) */
} vs_reserve_said;

/* Components an estimator or `reserve` just set: names (borrowed array of
 * strings) looked up in the sheet. headline is the first line (the formula
 * with its numbers); notes (NULL-terminated, may be NULL) follow the table.
 * inputs (taken, may be NULL) goes into the payload. One component gives kind
 * "component" (name, bytes, status, source, class, ...); several give kind
 * "components" with a "components" list and "total_bytes". The keys of
 * extra_take (an object, taken, may be NULL) are added to the payload. */
vs_bundle *vs_render_components(const json_t *sheet, const char *estimator,
                                const char *const *names, size_t nnames, const char *headline,
                                const char *const *notes, json_t *inputs_take, json_t *extra_take);

/* A component `reserve` just set (its view, vs_sheet_put_component's), as one
 * line: headline then each note, "; "-separated, in text/plain and in an HTML
 * paragraph. The payload is the one vs_render_components gives for one
 * component (kind "component"). */
vs_bundle *vs_render_component_line(const vs_component_view *component, const char *estimator,
                                    const char *headline, const char *const *notes,
                                    json_t *inputs_take);

/* The result of a `reserve` line: "reserve NAME: 2 GiB (...) (estimated)",
 * "reserve: ..., one declared lump (estimated)" or "reserve NAME: unknown,
 * still to estimate or measure", then "class C[, phase P], source: S", and
 * for a measurement without its phase a note asking for it; one line, as
 * vs_render_component_line, whose payload it gives (estimator "reserve").
 * stored is the component as the sheet holds it. NULL when memory is short. */
vs_bundle *vs_render_reserve(const vs_component_view *stored, const vs_reserve_said *said);

/* The result of `reserve remove NAME`: "removed component NAME from the
 * reserve", payload {kind: "removed", name}. NULL when memory is short. */
vs_bundle *vs_render_reserve_removed(const char *name);

#endif
