/* interp_internal.h — what the interpreter's files share among themselves:
 * interp.c (the session, execute), interp_complete.c
 * (complete, inspect, is_complete) and interp_failed.c (what a failed cell
 * keeps). Not a contract for other modules: they
 * include lang/interp.h (and verbs, lang/verb.h).
 */
#ifndef VS_LANG_INTERP_INTERNAL_H
#define VS_LANG_INTERP_INTERNAL_H

#include <jansson.h>

#include "lang/interp.h"
#include "lang/verb.h"
#include "sheet/sheet.h"

struct vs_interp {
    json_t *sheets; /* array of sheet objects */
    /* sheet id -> the sheets/<id>/sheet.json blob that open sheet was loaded
     * from or last committed as (what a commit compares against): runtime
     * state beside the documents, never in them. An entry names an open sheet;
     * a failed cell drops those of the sheets it opened. */
    json_t *bases;
    long current;      /* index into sheets, -1 when none is open */
    char *opt_records; /* from the options */
    char *set_records; /* from `records PATH` */
    int hub_offline;   /* `hub offline`: nothing asked of the Hugging Face Hub */
    char *env_records; /* the last path computed from the environment (borrowed out) */
    /* the results of lines drawn from their own words, kept for the next
     * run (render/result_memo.h); made at the first such line */
    struct vs_result_memo *results;
    /* the component views the last cell held (vs_ctx_component_views) and
     * the components they were read from, handed to the next cell: one run
     * again finds its components where they were, and reading each one's
     * keys again was a quarter of its `sheet` line */
    json_t *views_of;
    vs_component_views views;
};

/* The verb a line names, "%%name" as "name" too; NULL when none. */
const vs_verb *vs_interp_lookup(const char *name);

/* What happened outside the kernel stays true after a failed cell: the runs a
 * `measure` made, with their measurements and `oom` entries (the command ran;
 * its peaks and its overflow are data). So the sheets restored (the state before
 * the cell) take those from failed (the state after the failure). The records
 * as last seen (ip->bases, changed by a commit) are not in the sheets and stay
 * as they are. */
void vs_interp_keep_outside_world(json_t *restored, json_t *failed);

/* After a failed cell put the sheets back: the records bases (ip->bases) of
 * the sheets it opened go with them; those of the sheets it found stay (a
 * commit it made is true). */
void vs_interp_drop_closed_bases(vs_interp *ip);

#endif
