/* derived.h — how an estimate that followed the card is shown.
 *
 * After a line moves what an estimate read (the length, the format, the
 * placement ...), the estimator runs again and the cell says so, one line per
 * component: "kv_cache re-estimated: length 4,096 -> 65,536, 4.00 GiB -> 64.00
 * GiB", or that it could not be and is unknown now, with the estimator's
 * reason. lang/derive decides what to re-run and hands what each run gave;
 * the words and the payload (kind "rederived") are written here. Pure: no
 * I/O, no globals.
 */
#ifndef VS_RENDER_DERIVED_H
#define VS_RENDER_DERIVED_H

#include <jansson.h>

#include "render/bundle.h"
#include "util/buf.h"

/* Appends the text line of one re-estimated component: changes is what moved
 * ("length 4,096 -> 65,536"); from and to its bytes before and after (JSON
 * integers, or null/NULL: unknown). "unchanged" when both are present and
 * equal. */
void vs_render_derived_line(vs_buf *text, const char *name, const char *changes, const json_t *from,
                            const json_t *to);

/* Appends the text line of a component that could not be re-estimated: it is
 * unknown now, because of why (the estimator's message). */
void vs_render_derived_failed_line(vs_buf *text, const char *name, const char *changes,
                                   const json_t *from, const char *why);

/* One component an estimator re-ran for, as the cell says it: its line (as
 * vs_render_derived_line) appended to text and its row to rows (name,
 * estimator, changes, from_bytes, to_bytes, status: the component's status
 * now, borrowed). */
void vs_render_derived_add(vs_buf *text, json_t *rows, const char *name, const char *estimator,
                           const char *changes, const json_t *from, const json_t *to,
                           const json_t *status);

/* One component that could not be re-estimated (why: the estimator's
 * message): its line (as vs_render_derived_failed_line) appended to text and
 * its row to rows (to_bytes null, status "unknown", error). */
void vs_render_derived_add_failed(vs_buf *text, json_t *rows, const char *name,
                                  const char *estimator, const char *changes, const json_t *from,
                                  const char *why);

/* Appends the HTML of the rows of a `rederived` payload (each with "name",
 * "changes" and "to_bytes", null when it could not be re-estimated). */
void vs_render_derived_html(vs_buf *html, const json_t *rows);

/* The result of the estimates that followed the card after a line: text (the
 * lines the adds above wrote; its data is freed here, the struct reusable),
 * their HTML and the payload {kind: "rederived", sheet: sheet_id, rows}. NULL
 * when memory is short. */
vs_bundle *vs_render_rederived(vs_buf *text, const json_t *sheet_id, const json_t *rows);

#endif
