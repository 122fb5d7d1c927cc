/* candidates.h — how a classification of GPU offers is shown.
 *
 * Turns a vs_classification (sheet/classify.h) into the `candidates` result:
 * the payload (kind "candidates", rows of {gpu, capacity_bytes,
 * capacity_basis, verdict, requirements: [{name, verdict, evidence}], rank},
 * with more keys), and the same content as aligned text and as HTML tables: one
 * row per candidate (capacity with its unit and basis, useful margin, package,
 * verdict, rank), the candidates x requirements matrix of verdicts, the
 * evidence behind each verdict, and the notes. The classification says why
 * with codes and figures; the words of each reason and note, GiB and GB
 * amounts included, are written here. Prices are shown as the price of a
 * package, never as a speed. Pure: no I/O.
 */
#ifndef VS_RENDER_CANDIDATES_H
#define VS_RENDER_CANDIDATES_H

#include <jansson.h>

#include "render/bundle.h"
#include "sheet/classify.h"
#include "util/buf.h"
#include "util/json.h"

/* Appends why requirement r (of row, in c) has its verdict, in words: the
 * payload's "note", the "Why:" lines, `evidence`'s answer. */
void vs_candidates_why_text(vs_buf *out, const vs_classification *c, const vs_classify_row *row,
                            const vs_classify_req *r);

/* Appends what requirement r asks, in words: the payload's "label". */
void vs_candidates_label_text(vs_buf *out, const vs_classify_req *r);

/* Appends note n of c in words (the payload's "notes", the "Notes:" lines). */
void vs_candidates_note_text(vs_buf *out, const vs_classification *c, const vs_classify_note *n);

/* Writes the payload's members (kind "candidates", ...) into the object w
 * has open. */
void vs_candidates_payload_write(vs_jw *w, const vs_classification *c);

/* The whole MIME bundle: text/plain, text/html, the payload, and svg (the
 * budget chart, may be NULL) as image/svg+xml. A new reference, or NULL. */
vs_bundle *vs_candidates_bundle(const vs_classification *c, const char *svg);
/* The same with the chart already a JSON string (vs_svg_memo_json), copied
 * as it is: the bytes of vs_candidates_bundle with that chart. */
vs_bundle *vs_candidates_bundle_chart(const vs_classification *c, const vs_buf *chart_json);

#endif
