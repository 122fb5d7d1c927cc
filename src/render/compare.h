/* compare.h (render) — how `compare` is shown: one row per component class
 * (estimate, measurement with the counter it came from, the difference and
 * the status; under-estimates marked), the unaccounted and total rows, as
 * aligned text and HTML, and the machine-readable payload (kind "compare", rows
 * of {class, estimated_bytes, measured_bytes, delta_bytes, status}, with
 * resolution_bytes, measured_from and unknown). Pure: no I/O.
 */
#ifndef VS_RENDER_COMPARE_H
#define VS_RENDER_COMPARE_H

#include <jansson.h>

#include "render/bundle.h"
#include "sheet/compare.h"
#include "util/buf.h"

/* Appends the text and HTML to text and html, and sets *payload to a new
 * object. 0 or VS_ENOMEM. */
int vs_compare_render(const vs_compare *c, vs_buf *text, vs_buf *html, json_t **payload);

/* The `compare` result whole: the text, HTML and payload above as one bundle.
 * NULL when memory is short. */
vs_bundle *vs_render_compare(const vs_compare *c);

#endif
