/* store_sheet.h — a recorded sheet read back and checked: sheets/<id>/sheet.json
 * at a revision, loaded through the record's own check (vs_sheet_load: its
 * layout and types), with what is derived from its card recomputed. The one
 * reader the kernel's `show`, `diff` and `reproduce` and the shell's `vramsheet
 * show` share, so that a record one of them refuses the others refuse too, in
 * the same words. It adds no check of its own and writes nothing.
 */
#ifndef VS_STORE_STORE_SHEET_H
#define VS_STORE_STORE_SHEET_H

#include <jansson.h>

#include "store/store.h"
#include "util/error.h"

/* Loads sheets/<id>/sheet.json at rev (NULL: the tip) into *out, a new sheet
 * with its derived state recomputed; blob holds what was read (the caller
 * clears it): blob->blob is the id a later commit of this sheet compares
 * against, kept by the caller beside the document (the kernel's session), never
 * in it. A record that does not pass the check is VS_EFORMAT,
 * its message prefixed with "sheets/<id>/sheet.json at <commit>: "; the store's
 * errors as vs_store_read gives them. */
int vs_store_load_sheet(vs_store *st, const char *id, const char *rev, json_t **out,
                        vs_store_blob *blob, vs_error *err);

#endif
