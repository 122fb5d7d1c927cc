/* core.h (render) — the results of the core verbs: `convert` and `sheet`.
 *
 * The verbs (lang/verbs_core.c) read the line and open or switch the sheet;
 * this module writes what they found as text/plain, text/html and the payload.
 * Pure: no I/O.
 */
#ifndef VS_RENDER_CORE_H
#define VS_RENDER_CORE_H

#include <jansson.h>
#include <stdint.h>

#include "render/bundle.h"
#include "sheet/sheet.h"
#include "sheet/units.h"

/* `convert`: bytes shown in unit, exactly and rounded to two decimals, with
 * the amount as typed (input); payload {kind "convert", bytes, unit, value
 * (the exact decimal as a string), rounded, input}. NULL when memory is short. */
vs_bundle *vs_render_convert(const char *input, uint64_t bytes, vs_unit unit);

/* `sheet` alone: the session's sheets (an array of sheets, borrowed), the one
 * whose id is current marked (current may be NULL); payload {kind "sheets",
 * sheets: [{id, title, current}], current}. NULL when memory is short. */
vs_bundle *vs_render_sheet_list(const json_t *sheets, const char *current);

/* `sheet "TITLE"`: the sheet opened (borrowed), its id, what the verb did
 * (action "created", "switched" or "current") and the title as typed (a
 * different title of the same id is noted); payload kind "sheet" with the
 * action and the whole sheet as stored. views are its component views
 * (vs_sheet_fields_write; NULL: read here). NULL when memory is short. */
vs_bundle *vs_render_sheet_opened(const json_t *sheet, const vs_component_views *views,
                                  const char *id, const char *action, const char *typed);

/* The end of a cell that failed: what its earlier lines did and the cell undid
 * (names: "length, estimate kv", the lines as the person reads them), and
 * that the sheets are as they were before it; payload {kind "undone", lines}
 * (lines taken, an array of the same names). NULL when memory is short. */
vs_bundle *vs_render_undone(const char *names, json_t *lines_take);

#endif
