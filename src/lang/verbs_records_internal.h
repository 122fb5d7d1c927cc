/* verbs_records_internal.h — what the two files of the records verbs share:
 * verbs_records.c (commit, records, records push / pull, and the verb table
 * vs_verbs_records) and verbs_records_history.c (history, show, diff, reproduce). Not
 * part of any contract: the verbs are reached through the table (lang/verb.h).
 * The vs_rv_ names are for these two files only.
 *
 * A sheet is written to the records as canonical JSON (vs_sheet_dump) with its
 * Markdown page beside it. The session remembers, beside each open sheet, the
 * sheet.json blob it was loaded from or last committed as (vs_ctx_base_blob),
 * so that a commit can tell a concurrent change of the same sheet from its own
 * history.
 */
#ifndef VS_LANG_VERBS_RECORDS_INTERNAL_H
#define VS_LANG_VERBS_RECORDS_INTERNAL_H

#include <jansson.h>
#include <stddef.h>

#include "lang/verb.h"
#include "store/store.h"
#include "util/error.h"

/* --- verbs_records.c: the helpers --- */

/* Points an error of the store (about the records) at the line's verb, unless
 * it already has a place. Returns rc. */
int vs_verbs_records_at_line(const vs_line *line, vs_error *err, int rc);
/* The sheet an optional SHEET[@REV] argument a names, else the current sheet
 * (*rev stays as the caller set it); VS_EVALUE when a is NULL and no sheet is
 * open. */
int vs_verbs_records_sheet_spec(vs_ctx *ctx, const vs_arg *a, char *id, size_t idlen,
                                const char **rev, vs_error *err);
/* Opens the records in force; what opening repaired (a commit killed halfway)
 * is streamed at once, whatever the verb does next. */
int vs_verbs_records_open_store(vs_ctx *ctx, vs_store **st, vs_error *err);
/* Loads sheets/<id>/sheet.json at rev (NULL: the tip) into *out, a new sheet
 * with what is derived from its card recomputed; blob holds what was read
 * (blob->blob: the base to open it with; cleared by the caller). */
int vs_verbs_records_load_sheet(vs_store *st, const char *id, const char *rev, json_t **out,
                                vs_store_blob *blob, vs_error *err);

/* --- verbs_records_history.c: the verbs, rows of vs_verbs_records --- */

int vs_verb_history(vs_ctx *ctx, const vs_line *line, vs_error *err);
/* verbs_records_hub.c: `hub [offline | online]`. */
int vs_verb_hub(vs_ctx *ctx, const vs_line *line, vs_error *err);
int vs_verb_show(vs_ctx *ctx, const vs_line *line, vs_error *err);
int vs_verb_diff(vs_ctx *ctx, const vs_line *line, vs_error *err);
int vs_verb_reproduce(vs_ctx *ctx, const vs_line *line, vs_error *err);

#endif
