/* envelope.h — the result of `envelope`: the per-GPU envelope and its chart.
 *
 * The component table per GPU after the placement (weights, then each
 * component, then the envelope), the unknown names (missing, never counted as
 * zero), the conservative-envelope statement, stale measurements, each
 * offer's capacity line with its basis (device-reported, else nominal), and
 * the SVG budget chart (render/svg) against every offer in the sheet. The
 * arithmetic is sheet/envelope's; this module only presents. Pure: no I/O.
 */
#ifndef VS_RENDER_ENVELOPE_H
#define VS_RENDER_ENVELOPE_H

#include <jansson.h>

#include "render/bundle.h"
#include "render/svg.h"
#include "sheet/envelope.h"
#include "sheet/sheet.h"
#include "util/json.h"

/* The bundle: text, HTML, the chart, and the payload (the envelope's, with
 * "capacities"). views are the sheet's components, as env was computed from
 * (vs_component_views_read). New bundle or NULL. */
vs_bundle *vs_render_envelope(const json_t *sheet, const vs_envelope *env,
                              const vs_component_views *views);

/* vs_render_envelope with its chart drawn through memo (render/svg.h): not
 * drawn again when the last chart drawn through memo showed the same. The
 * components' names and statuses are keyed by address: memo is freed before
 * views are (vs_svg_budget_memo). The bytes are those of vs_render_envelope. */
vs_bundle *vs_render_envelope_memo(const json_t *sheet, const vs_envelope *env,
                                   const vs_component_views *views, vs_svg_memo *memo);

/* The chart of vs_render_envelope_memo alone, borrowed from memo (valid until
 * its next use), or NULL when memory is short: `candidates` draws it too. */
const char *vs_render_envelope_chart(const json_t *sheet, const vs_envelope *env,
                                     const vs_component_views *views, vs_svg_memo *memo);

/* The envelope's budget chart alone (the SVG document of vs_render_envelope),
 * malloc'd, or NULL when memory is short: `candidates` draws it too. */
char *vs_render_envelope_svg(const json_t *sheet, const vs_envelope *env,
                             const vs_component_views *views);

/* Writes the members of the `envelope` payload (kind "envelope",
 * weights_bytes, reserve_bytes, envelope_bytes, conservative, components,
 * unknown, ...) into the object w has open, so a renderer can add its own: the
 * payload of the envelope result, built here from the envelope the sheet
 * computed (sheet/envelope.h).
 * views are the sheet's components (vs_component_views_read). */
void vs_envelope_payload_write(vs_jw *w, const vs_envelope *env, const json_t *sheet,
                               const vs_component_views *views);

#endif
