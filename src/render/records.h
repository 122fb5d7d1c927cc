/* records.h (render) — how the records verbs are shown: `commit`, `history`,
 * `show`, `reproduce`, `records` and `records push` / `pull` (`diff` is
 * render/diff.h). The verbs pass plain facts (what the store answered, counts,
 * flags); each function here appends the text/plain and the text/html of one
 * result. The payloads stay with the verbs: they are the facts themselves.
 * Strings are borrowed; "" and NULL both mean "none" where a field says so.
 * Sheet ids, branches and commit ids are slugs and hex, written into the HTML
 * as they are; messages, titles and paths are escaped. Pure: no I/O, no store.
 */
#ifndef VS_RENDER_RECORDS_H
#define VS_RENDER_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "render/bundle.h"
#include "util/buf.h"

/* What opening the records repaired (a commit killed halfway), streamed at once:
 * appends "records: NOTICE\n" to text. */
void vs_records_render_notice(const char *notice, vs_buf *text);

/* --- commit --- */

typedef struct vs_records_commit {
    const char *sheet;   /* the sheet's id */
    const char *records; /* the records path */
    const char *branch;
    const char *commit;  /* the commit written, or the one already holding the state */
    const char *message; /* the whole commit message ("<id>: MESSAGE") */
    const char *joined;  /* the remote tip this commit joins ("" or NULL: none) */
    const char *warning; /* the store's warning ("" or NULL: none) */
    const char *axes;    /* more than one axis changed ("" or NULL: none; new commits only) */
    int created;         /* the repository was created by this commit */
    int unchanged;       /* nothing was written: the records hold this state */
    int held_earlier;    /* unchanged, at a commit older than the branch's newer revisions */
    int attempts;        /* compare-and-swap attempts (other writers moved the branch) */
    /* a lock on the branch that a dead writer left, removed ("" or NULL: none) */
    const char *repaired;
} vs_records_commit;

void vs_records_render_commit(const vs_records_commit *c, vs_buf *text, vs_buf *html);

/* The result of `commit`: that text and the payload (kind "commit": sheet,
 * commit, branch, records, blob (the sheet's blob at that commit), created,
 * attempts, unchanged, held_earlier, joined, the axes' warning on a new
 * commit, repaired). NULL when memory is short. */
vs_bundle *vs_records_commit_bundle(const vs_records_commit *c, const char *blob);

/* --- history --- */

typedef struct vs_records_revision {
    const char *commit; /* 40 hex; the table shows 12 */
    const char *message;
    int64_t time; /* committer time, seconds since the epoch */
    int offset;   /* committer's UTC offset in minutes */
} vs_records_revision;

/* The revisions of sheet in records, newest first, as a table (commit, time,
 * message); a sentence when n is 0. An allocation failure marks text failed. */
void vs_records_render_history(const char *sheet, const char *records,
                               const vs_records_revision *revs, size_t n, vs_buf *text,
                               vs_buf *html);

/* The result of `history`: the table above, a note when truncated (the commit
 * a shallow clone stops at, else NULL) and the payload (kind "history": the
 * revisions with their ISO times and epochs). NULL when memory is short. */
vs_bundle *vs_records_history_bundle(const char *sheet, const char *records,
                                     const vs_records_revision *revs, size_t n,
                                     const char *truncated);

/* What `vramsheet log --json` prints, a new reference (NULL when memory is
 * short): {kind: "history", sheet (null: every commit of the branch),
 * records, revisions: [{commit, message, time: ISO 8601 with the committer's
 * offset}]}, the revisions as given, newest first. */
json_t *vs_records_log_payload(const char *sheet, const char *records,
                               const vs_records_revision *revs, size_t n);

/* --- show --- */

typedef struct vs_records_show {
    const char *sheet;
    const char *rev;    /* as the person wrote it; NULL: the tip */
    const char *commit; /* the commit it was read at */
    const char *md;     /* the sheet's Markdown page */
    int opened;         /* 1: now open as the current sheet; 0: one of this id was open */
} vs_records_show;

void vs_records_render_show(const vs_records_show *s, vs_buf *text, vs_buf *html);

/* The result of `show`: that text and the payload, the sheet as read (doc,
 * taken: a copy the verb made before opening it) with kind "sheet" and its revision (commit, blob,
 * records). NULL when memory is short. */
vs_bundle *vs_records_show_bundle(const vs_records_show *s, json_t *doc_take, const char *blob,
                                  const char *records);

/* --- reproduce --- */

typedef struct vs_records_reproduce {
    const char *sheet;         /* the new sheet's id */
    const char *title;         /* its title */
    const char *source;        /* the source sheet's id */
    const char *rev;           /* the source's revision as written; NULL: the tip */
    const char *commit;        /* the source's commit */
    const char *gpu;           /* gpu= (NULL: not given): the new sheet's offer */
    const char *software;      /* software= (NULL: not given) */
    size_t marked;             /* measurements marked "to re-measure" */
    size_t measurements;       /* measurements carried */
    int keep_offers;           /* keep_offers=yes: the source's offers stay beside the gpu= one */
    size_t offers_left;        /* the source's offers not carried (gpu= without keep_offers) */
    const char *offer_missing; /* why gpu= gave no offer (a name the catalogue lacks), or NULL */
    const char *engine;        /* engine= as written (NULL: not given): a change of software */
    const char *card;          /* what the card overrides changed, and the estimates that
                                  moved (lang/reproduce_card.h); NULL: none given */
} vs_records_reproduce;

/* A new campaign started from a recorded sheet. */
void vs_records_render_reproduce(const vs_records_reproduce *r, vs_buf *text, vs_buf *html);

/* Its result: that text and the payload (kind "reproduce": sheet, title,
 * lineage (borrowed), to_remeasure, measurements, gpu, software, engine;
 * keep_offers when gpu= was given; offer_missing; then the card's changes,
 * every key of card (borrowed, may be NULL: card_changes, reestimated) in its
 * order). NULL when memory is short. */
vs_bundle *vs_records_reproduce_bundle(const vs_records_reproduce *r, const json_t *lineage,
                                       const json_t *card);
/* A campaign reproduced from the same source before, reopened: r's sheet,
 * title, source and commit are read; from_records 1 when it came from the
 * records, 0 when it was open in this session. */
void vs_records_render_reopened(const vs_records_reproduce *r, int from_records, vs_buf *text,
                                vs_buf *html);
/* Its result: that text and the payload (kind "reproduce", reopened, from
 * "records" or "session"). NULL when memory is short. */
vs_bundle *vs_records_reopened_bundle(const vs_records_reproduce *r, int from_records);

/* --- records --- */

typedef struct vs_records_info {
    const char *said;          /* a sentence said first ("Records path set ...\n"); NULL: none */
    const char *path;          /* the records path in force */
    int exists;                /* a repository is there */
    int bare;                  /* it is bare */
    const char *branch;        /* its branch */
    const char *const *sheets; /* the sheet ids at the tip, sorted */
    size_t nsheets;
    const char *tip; /* the last commit; NULL: none yet */
} vs_records_info;

void vs_records_render_info(const vs_records_info *r, vs_buf *text, vs_buf *html);

/* The result of `records`: that text and the payload (kind "records": path,
 * exists, bare, branch, sheets, tip). NULL when memory is short. */
vs_bundle *vs_records_info_bundle(const vs_records_info *r);

/* A sheet a pull brought whose validates_card was recomputed from its card,
 * recorded as one commit. */
typedef struct vs_records_refresh {
    const char *sheet;
    const char *commit;
    int measurements; /* how many changed */
} vs_records_refresh;

typedef struct vs_records_sync {
    int push;           /* 1: records push; 0: records pull */
    const char *remote; /* the URL or path used */
    const char *branch;
    const char *before;                  /* the local tip before ("" when none) */
    const char *after;                   /* the local tip after ("" when unchanged) */
    const char *remote_after;            /* the remote's branch read back after a push */
    int up_to_date;                      /* nothing to do */
    int merged;                          /* the two sides were joined by a merge commit */
    const char *warning;                 /* "" or NULL: none */
    const vs_records_refresh *refreshed; /* pull: sheets recomputed after it */
    size_t nrefreshed;
    /* a lock on the branch that a dead writer left, removed ("" or NULL: none) */
    const char *repaired;
} vs_records_sync;

void vs_records_render_sync(const vs_records_sync *s, vs_buf *text, vs_buf *html);

/* The result of `records push` or `records pull`: that text and the payload
 * (kind "push" or "pull": records (the path), remote, branch, the tips before
 * and after, the remote's tip, up_to_date, merged, fast_forward; a pull's
 * recomputed sheet ids). NULL when memory is short. */
vs_bundle *vs_records_sync_bundle(const vs_records_sync *s, const char *records, int fast_forward);

#endif
