/* classify_internal.h — what the files of the classification share
 * (classify.c, classify_rank.c); not part of its contract, which is
 * classify.h. The vs_cl_ names are for these files only.
 */
#ifndef VS_SHEET_CLASSIFY_INTERNAL_H
#define VS_SHEET_CLASSIFY_INTERNAL_H

#include "sheet/classify.h"

/* Appends a note to c; its owned strings are c's from then on, even when
 * memory is short (VS_ENOMEM). */
int vs_classify_add_note(vs_classification *c, const vs_classify_note *note);
/* The same for a note with no facts but its code. */
int vs_classify_add_note_code(vs_classification *c, vs_classify_note_code code);

/* Ranks c's retained rows (rank 1.., equal keys share a rank), sets
 * nretained and ranked, and adds the notes on why they are not ranked or on
 * different periods. 0 or VS_ENOMEM. */
int vs_classify_rank_rows(vs_classification *c);

#endif
