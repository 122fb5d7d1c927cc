/* markdown.h — a sheet written for people: the sheet.md beside sheet.json.
 *
 * The same model as the canonical JSON, laid out to be read in a browser or with
 * `git show`: the workload card, the component table (exact bytes, GB and GiB,
 * status, source), the placement, the procedure (stages), the measurements with
 * their context, the offers, requirements and evidence, the decision, the
 * conditions that would invalidate it, and the lineage. GB and GiB are display
 * only and always labelled. Pure: no I/O, no globals; the same sheet always gives
 * the same bytes (records diff well).
 */
#ifndef VS_RENDER_MARKDOWN_H
#define VS_RENDER_MARKDOWN_H

#include <jansson.h>

#include "util/buf.h"

/* Returns a malloc'd Markdown text ending with a newline, or NULL when memory is
 * short. Missing or mistyped keys are shown as not set, never a crash. */
char *vs_markdown_sheet(const json_t *sheet);

/* Appends text a person typed (or a file held) as Markdown that renders as those
 * characters and nothing else: HTML's < > & as entities, Markdown's punctuation
 * escaped, line breaks as spaces, nothing that opens a block at its start, control
 * characters as U+FFFD. in_cell: a table cell's pipes too. */
void vs_markdown_text(vs_buf *b, const char *s, int in_cell);

#endif
