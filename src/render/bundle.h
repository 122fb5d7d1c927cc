/* bundle.h — the MIME bundle every result is, and the tables results print.
 *
 * A bundle is the compact JSON text of an object: "text/plain" always (its
 * first key), "text/html" for tables, "image/svg+xml" for charts, and
 * "application/vnd.vramsheet.v1+json" with the machine-readable payload (an
 * object with "kind"). It is built as text, not as a jansson tree:
 * the kernel splices it into the wire message as it is, and a long cell makes
 * hundreds of them (a tree per result, then a pass to serialise it, were most
 * of a cell's time). A table is built once and rendered both as aligned plain
 * text and as an HTML table, so the two never disagree. Pure: no I/O.
 */
#ifndef VS_RENDER_BUNDLE_H
#define VS_RENDER_BUNDLE_H

#include <jansson.h>
#include <stddef.h>

#include "util/buf.h"

#define VS_MIME_JSON "application/vnd.vramsheet.v1+json"

typedef struct vs_table vs_table;

typedef struct vs_bundle {
    char *json; /* NUL-terminated */
    size_t len;
    size_t cap; /* the block json is, given back to util/buf when freed; 0: unknown,
                 * only freed (bundles are made by render/bundle*.c) */
} vs_bundle;

/* A new bundle. plain is required; html and svg may be NULL (with both, the
 * chart is also placed inside the HTML); payload_json is the payload's JSON
 * text (borrowed, written with vs_jw; NULL for none). Bytes of plain, html or
 * svg that are not UTF-8 become U+FFFD. NULL when memory is short. */
vs_bundle *vs_bundle_new_text(const char *plain, const char *html, const char *svg,
                              const char *payload_json, size_t payload_len);
/* The same with the chart already escaped as a JSON string (chart_json, its
 * quotes included, as vs_json_dump_string_lossy writes it: render/svg.h's
 * memo keeps it so), copied into the bundle as it is rather than escaped
 * again. The bytes are those of vs_bundle_new_text with the chart's SVG. NULL
 * when memory is short or chart_json is no JSON string. */
vs_bundle *vs_bundle_new_chart(const char *plain, const char *html, const vs_buf *chart_json,
                               const char *payload_json, size_t payload_len);
/* A long result around one table (an `envelope` of hundreds of rows),
 * written straight into its bundle: text/plain is text_pre, the table's text
 * form, text_post; text/html is html_pre, the table's HTML, html_post, then
 * the chart (chart_json as for vs_bundle_new_chart, may be NULL; shown as
 * there); the payload is what payload writes into the bundle's buffer (one
 * JSON value; NULL for none), about payload_room bytes. The table is escaped
 * as it is written, not written and then escaped; the pieces are escaped
 * into place. The bytes are those of vs_bundle_new_chart (or _text) with the
 * pieces and vs_table_text's and vs_table_html's forms end to end. NULL when
 * memory is short, a buffer or the table failed, or chart_json is no JSON
 * string. */
typedef void (*vs_bundle_payload_fn)(vs_buf *out, void *ctx);
vs_bundle *vs_bundle_new_table(const vs_buf *text_pre, const vs_buf *text_post,
                               const vs_buf *html_pre, const vs_buf *html_post, const vs_table *t,
                               const vs_buf *chart_json, vs_bundle_payload_fn payload,
                               void *payload_ctx, size_t payload_room);
/* The same with the payload as a jansson tree, taken (may be NULL). */
vs_bundle *vs_bundle_new(const char *plain, const char *html, const char *svg,
                         json_t *payload_take);
void vs_bundle_free(vs_bundle *b);

/* A one-line result (a `reserve` line, a card line: most lines of a long
 * cell), written straight into its bundle in one pass over its words, with
 * no text, HTML and payload buffers to copy in afterwards. Begins the bundle
 * in out (empty): text/plain is headline, then "; " and each note of the
 * NULL-terminated notes (may be NULL), then a newline; text/html that line,
 * escaped for HTML, in a paragraph; then the payload's key. The bytes are
 * those of render/result.h's vs_render_put_one_line then vs_bundle_new_text.
 * Write the payload (one JSON value) into out next, then call
 * vs_bundle_line_end. *head_at and *head_len say where the headline's escape
 * lies in out (no quotes), for a payload that repeats the headline to copy
 * it with vs_jw_str_again. payload_room is about how long the payload will
 * be, so that out is allocated once. */
void vs_bundle_line_begin(vs_buf *out, const char *headline, const char *const *notes,
                          size_t payload_room, size_t *head_at, size_t *head_len);
/* The same with the line written by the caller, piece by piece, for a
 * renderer whose line is made of a few words: vs_bundle_line_open begins
 * the bundle in out (empty), with room for about room bytes in all (the
 * line's escape twice and the payload), and returns where the line starts;
 * append the line's JSON escape (vs_json_escape_lossy for text, plain
 * appends for bytes that need none; no newline); vs_bundle_line_close then
 * writes the newline, the HTML and the payload's key. */
size_t vs_bundle_line_open(vs_buf *out, size_t room);
void vs_bundle_line_close(vs_buf *out, size_t start);
/* The bundle begun in out, closed; out is empty after. NULL when an append
 * failed or memory is short. */
vs_bundle *vs_bundle_line_end(vs_buf *out);
/* A bundle of the JSON text a renderer wrote into json itself (the object
 * whole, as described above), taken: json is empty after. NULL when an append
 * failed or memory is short. */
vs_bundle *vs_bundle_from_buf(vs_buf *json);

/* The bundle as a jansson object (a new reference), for callers that look
 * inside results: tests, the notebook runner. NULL for NULL. */
json_t *vs_bundle_to_json(const vs_bundle *b);
/* The text/plain of b, malloc'd, or NULL. Reads that one string only. */
char *vs_bundle_plain(const vs_bundle *b);

/* A table with ncols columns and the given headers (copied). */
vs_table *vs_table_new(size_t ncols, const char *const *headers);
void vs_table_free(vs_table *t);
/* Appends a row of ncols cells (copied; NULL prints as empty). */
void vs_table_add_row(vs_table *t, const char *const *cells);
/* The same with each cell's length given (lens[i] bytes of cells[i], none of
 * them NUL; a NULL cell is empty whatever its length): a renderer that holds
 * its cells' lengths (JSON strings, amounts it formatted) spares a strlen
 * each. */
void vs_table_add_rown(vs_table *t, const char *const *cells, const size_t *lens);
/* Makes room for rows more rows and text_bytes bytes of their cells (all
 * cells, with a NUL each), so that a table whose size is known (one row a
 * component) is not copied as it grows. Only room: nothing is added. */
void vs_table_reserve(vs_table *t, size_t rows, size_t text_bytes);
/* Marks column i right-aligned (numbers). */
void vs_table_align_right(vs_table *t, size_t col);
/* Appends the aligned text form (header, rule, rows) to out. */
void vs_table_text(const vs_table *t, vs_buf *out);
/* Appends <table class="vramsheet">...</table> (escaped) to out. */
void vs_table_html(const vs_table *t, vs_buf *out);
/* 0, or non-zero after an allocation failure. */
int vs_table_failed(const vs_table *t);

#endif
