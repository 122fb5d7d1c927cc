/* bundle.h — the MIME bundle every result is, and the tables results print.
 *
 * A bundle is a JSON object: "text/plain" always, "text/html" for tables,
 * "image/svg+xml" for charts, and "application/vnd.vramsheet.v1+json" with the
 * machine-readable payload (an object with "kind", SPEC §5). A table is built
 * once and rendered both as aligned plain text and as an HTML table, so the two
 * never disagree. Pure: no I/O.
 */
#ifndef VS_RENDER_BUNDLE_H
#define VS_RENDER_BUNDLE_H

#include <jansson.h>
#include <stddef.h>

#include "util/buf.h"

#define VS_MIME_JSON "application/vnd.vramsheet.v1+json"

/* A new bundle. plain is required; html and svg may be NULL; payload is taken
 * (may be NULL). Returns NULL when memory is short. */
json_t *vs_bundle_new(const char *plain, const char *html, const char *svg, json_t *payload_take);

typedef struct vs_table vs_table;

/* A table with ncols columns and the given headers (copied). */
vs_table *vs_table_new(size_t ncols, const char *const *headers);
void vs_table_free(vs_table *t);
/* Appends a row of ncols cells (copied; NULL prints as empty). */
void vs_table_add_row(vs_table *t, const char *const *cells);
/* Marks column i right-aligned (numbers). */
void vs_table_align_right(vs_table *t, size_t col);
/* Appends the aligned text form (header, rule, rows) to out. */
void vs_table_text(const vs_table *t, vs_buf *out);
/* Appends <table class="vramsheet">...</table> (escaped) to out. */
void vs_table_html(const vs_table *t, vs_buf *out);
/* 0, or non-zero after an allocation failure. */
int vs_table_failed(const vs_table *t);

#endif
