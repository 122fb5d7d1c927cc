/* result.h — the pieces the sizing results are assembled from.
 *
 * Every result of the sizing verbs (render/weights, render/envelope,
 * render/formats, render/component, render/card, render/lines) is a bundle of
 * the same shape: a headline, a table rendered once as aligned text and as
 * HTML, notes after it, and the payload. Amounts are labelled the same way
 * everywhere: exact bytes, GB and GiB with two decimals, never mixed. These
 * helpers are that shape, written once; the result modules only choose the
 * rows. Pure: no I/O.
 */
#ifndef VS_RENDER_RESULT_H
#define VS_RENDER_RESULT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "render/bundle.h"
#include "util/buf.h"

/* The size of each buffer vs_render_amount fills (at least sheet/units.h's
 * VS_UNITS_AMOUNT). */
#define VS_RENDER_AMT 64

/* "14,000,000,000 B", "14.00 GB", "13.04 GiB" into the three buffers (>=
 * VS_RENDER_AMT bytes each). */
void vs_render_amount(uint64_t bytes, char *b, char *gb, char *gib);

/* The headline (may be NULL: nothing) as a text line and an HTML paragraph. */
void vs_render_put_headline(vs_buf *text, vs_buf *html, const char *headline);
/* The table as aligned text and as HTML; an allocation failure in the table
 * marks text failed. t stays the caller's. */
void vs_render_put_table(vs_buf *text, vs_buf *html, vs_table *t);
/* n notes (NULL entries skipped), a text line each and an HTML list; nothing
 * when n is 0. */
void vs_render_put_notes(vs_buf *text, vs_buf *html, const char *const *notes, size_t n);
/* headline, then each note of a NULL-terminated list (may be NULL),
 * "; "-separated, as one text line and one HTML paragraph. */
void vs_render_put_one_line(vs_buf *text, vs_buf *html, const char *headline,
                            const char *const *notes);

/* The bundle of text, html (may be NULL: a text-only result), svg (borrowed,
 * may be NULL) and the payload written as JSON text (vs_jw); frees the three
 * buffers. New bundle, or NULL
 * when any of them failed or memory is short. */
vs_bundle *vs_render_finish_text(vs_buf *text, vs_buf *html, const char *svg, vs_buf *payload);
/* The same with the chart already a JSON string (vs_bundle_new_chart). */
vs_bundle *vs_render_finish_chart(vs_buf *text, vs_buf *html, const vs_buf *chart_json,
                                  vs_buf *payload);
/* The same for a payload built as a tree (taken, may be NULL). */
vs_bundle *vs_render_finish(vs_buf *text, vs_buf *html, const char *svg, json_t *payload_take);
/* A table result: headline, the table (freed here), after a blank line the
 * notes of a NULL-terminated list (may be NULL), then vs_render_finish_text. */
vs_bundle *vs_render_finish_table(vs_buf *text, vs_buf *html, const char *headline, vs_table *t,
                                  const char *const *notes, vs_buf *payload);

/* The sheet's placement in words ("ZeRO stage 2 on 4 GPUs"; outlen >= 64), as
 * vs_placement_describe gives it; "single GPU" when the sheet has none or an
 * invalid one. */
const char *vs_render_placement_text(const json_t *sheet, char *out, size_t outlen);

#endif
