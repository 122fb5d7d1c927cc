/* store.h — the records repository: sheets kept as files in git, through libgit2.
 *
 * A records repository is an ordinary git repository (with a work tree, or bare).
 * Each sheet lives in sheets/<id>/ as sheet.json and sheet.md; this module writes
 * those two files as bytes it is given and knows nothing of their layout. It
 * never touches anything outside sheets/ (a repository may hold other content).
 *
 * Writers lose nothing: a commit is built in memory from the exact parent the
 * branch is then swapped against (compare-and-swap on the branch reference, with
 * retry from the new tip), so commits to different sheets never conflict, and a
 * stale edit of the same sheet (the sheet's blob at the tip is not the one the
 * caller loaded) is refused with VS_ECONFLICT, never written over. In a
 * repository with a work tree, the index and the work-tree files of the sheet are
 * brought to the tip after each commit, so `git status` stays clean. A push is
 * checked after the fact: it never reports a commit the remote lost as pushed.
 *
 * A commit in a repository with a work tree never writes over a person's own
 * edits of the sheet's files there (refused, naming them), and leaves a journal
 * entry until the files follow the tip: a writer killed halfway is repaired by
 * the next open (vs_store_notice says so).
 *
 * Every failure is a vs_error: VS_ERECORDS (unusable path, locks, git errors,
 * each saying what to do), VS_ECONFLICT (a concurrent change refused),
 * VS_ENOTFOUND (no such sheet or revision). A vs_store and everything it returns
 * belong to one thread at a time (libgit2 objects are not thread-safe).
 * A busy branch or index is retried for 8 s (VRAMSHEET_RECORDS_WAIT_MS changes
 * that) before it is reported as a lock, with the lock file to remove.
 */
#ifndef VS_STORE_STORE_H
#define VS_STORE_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

#define VS_STORE_HEX 41 /* 40 hex digits and a NUL */
#define VS_STORE_BRANCH_MAX 256

typedef struct vs_store vs_store;

/* Opens the records at path: a repository with a work tree, a bare repository,
 * or a folder that does not exist yet or is empty (created on the first commit,
 * with a work tree and branch `main`). A path that exists but is not usable (a
 * file, a non-empty folder that is not a repository, a repository owned by
 * someone else) is VS_ERECORDS saying why and what to do. Returns 0 and a new
 * store in *out. */
int vs_store_open(vs_store **out, const char *path, vs_error *err);
void vs_store_free(vs_store *st);

/* The path as given (borrowed). */
const char *vs_store_path(const vs_store *st);
/* What opening had to repair, for the person to read ("" when nothing): a
 * commit killed before it finished leaves a journal entry behind, and the
 * next open brings that sheet's index and work-tree files to the branch tip. */
const char *vs_store_notice(const vs_store *st);
/* 1 when the repository exists (0 before the first commit of a new folder). */
int vs_store_exists(const vs_store *st);
/* 1 for a bare repository. */
int vs_store_is_bare(const vs_store *st);
/* The branch records go to: HEAD's branch ("main" for a new repository). */
int vs_store_branch(vs_store *st, char *out, size_t outlen, vs_error *err);

/* One sheet to commit. */
typedef struct vs_store_write {
    const char *sheet_id; /* a slug (vs_sheet_id_valid); anything else is VS_EVALUE */
    const char *json;     /* bytes of sheets/<id>/sheet.json */
    size_t json_len;
    const char *md; /* bytes of sheets/<id>/sheet.md; NULL leaves it out */
    size_t md_len;
    const char *message; /* the whole commit message */
    /* The sheet.json blob id (hex) the caller's version was loaded from; NULL when
     * the caller's sheet is new (then a sheet of that id already in the records is
     * a conflict). */
    const char *expected_blob;
    /* Non-zero: the person chose to record this version on top of whatever the
     * tip holds (the other version stays in history); no conflict check. */
    int replace;
} vs_store_write;

typedef struct vs_store_commit_info {
    char commit[VS_STORE_HEX]; /* the new commit; on VS_ECONFLICT the tip that refused */
    char blob[VS_STORE_HEX];   /* the new sheet.json blob; on VS_ECONFLICT the tip's ("" if none) */
    char branch[VS_STORE_BRANCH_MAX];
    int attempts; /* compare-and-swap attempts (1 when nobody raced) */
    int created;  /* this commit created the repository */
    /* The tip already held this exact sheet.json: nothing was written, and
     * commit/blob name the tip and its blob. */
    int unchanged;
    /* With unchanged: the tip holds another version, but an older revision of
     * the branch held exactly this one (commit names it; blob is this one's). A
     * sheet restated so continues from that revision. */
    int held_earlier;
    /* Non-empty when this replace commit made the last choice among sheets that
     * a refused pull or push found changed on both sides: the commit has that
     * remote tip (named here) as its second parent, and a push now goes through. */
    char joined[VS_STORE_HEX];
    /* Non-empty when a lock on the branch left by a writer that died was
     * removed so that this commit could go through: what was removed. */
    char repaired[600];
    /* Non-empty when the commit is recorded but the work tree could not be
     * brought up to date (for example a stale index.lock): what to do. */
    char warning[512];
} vs_store_commit_info;

/* Commits w as one commit on the branch (or nothing, with info->unchanged, when
 * the tip already holds the same sheet.json, or when an older revision held it
 * and the commit would otherwise be refused as stale: info->held_earlier).
 * Returns 0 and fills *info (may be NULL), VS_ECONFLICT when the sheet changed
 * since the caller loaded it (nothing written; *info names the tip), or
 * VS_ERECORDS; among these, in a repository with a work tree, when the sheet's
 * files there were edited, deleted or staged by hand (named; nothing written). */
int vs_store_commit(vs_store *st, const vs_store_write *w, vs_store_commit_info *info,
                    vs_error *err);

typedef struct vs_store_revision {
    char commit[VS_STORE_HEX];
    /* sheets/<id>/sheet.json at that commit, when the history read it from the
     * revision index ("" when it has none, or for every commit) */
    char blob[VS_STORE_HEX];
    char *message; /* the whole message, without its trailing newline */
    int64_t time;  /* committer time, seconds since the epoch */
    int offset;    /* committer's UTC offset in minutes */
} vs_store_revision;

typedef struct vs_store_revisions {
    vs_store_revision *revs; /* newest first */
    size_t n;
    /* In a shallow clone, the boundary commit where the history shown stops (the
     * older commits are not in this clone); "" when the history is whole. */
    char truncated[VS_STORE_HEX];
} vs_store_revisions;

/* The commits of the branch that changed sheets/<sheet_id>/ (sheet_id NULL: every
 * commit), newest first, at most limit (0: all). A sheet's are read from the
 * revision index (store_index.h), brought to the tip first: only the revisions
 * returned are read. An empty history is not an error. */
int vs_store_history(vs_store *st, const char *sheet_id, size_t limit, vs_store_revisions *out,
                     vs_error *err);
void vs_store_revisions_clear(vs_store_revisions *h);

typedef struct vs_store_blob {
    char *data; /* malloc'd, NUL-terminated */
    size_t len;
    char commit[VS_STORE_HEX]; /* the revision it was read at */
    char blob[VS_STORE_HEX];
} vs_store_blob;

/* Reads sheets/<sheet_id>/<file> ("sheet.json" when NULL) at rev: "~N", N
 * revisions back in that sheet's own history (the commits that changed
 * sheets/<sheet_id>/, as vs_store_history lists them; "~0" its latest, "~" is
 * "~1"), or anything git rev-parse takes, with git's meaning (a commit id or
 * prefix, HEAD~N = N commits back on the branch, a branch); NULL is the branch
 * tip. VS_ENOTFOUND when the revision or the sheet is not there. */
int vs_store_read(vs_store *st, const char *sheet_id, const char *rev, const char *file,
                  vs_store_blob *out, vs_error *err);
void vs_store_blob_clear(vs_store_blob *b);

/* Reads the blob of that id (hex, as vs_store_revision.blob names it) into out
 * (its commit left ""). VS_ENOTFOUND when the records do not hold it. */
int vs_store_read_blob(vs_store *st, const char *blob, vs_store_blob *out, vs_error *err);

/* The ids of the sheets at rev (NULL: the tip), sorted; *out_ids is a malloc'd
 * array of malloc'd strings (free each, then the array). None yet: 0 ids. */
int vs_store_list(vs_store *st, const char *rev, char ***out_ids, size_t *out_n, vs_error *err);

/* The ids of the sheets at the tip that start with prefix (NULL or "": all),
 * sorted, as vs_store_list gives them, read from the revision index (one file,
 * no tree): what completion offers. */
int vs_store_ids(vs_store *st, const char *prefix, char ***out_ids, size_t *out_n, vs_error *err);

/* The ids of the sheets whose files differ between two commits (from NULL or
 * "": every sheet at to), sorted: a tree diff of sheets/, which passes over
 * the folders that did not change. */
int vs_store_changed_sheets(vs_store *st, const char *from, const char *to, char ***out_ids,
                            size_t *out_n, vs_error *err);

/* 1 with *n when rev is "~N" (or "~": 1), a revision of one sheet's own
 * history; 0 for any other revision. Pure. */
int vs_store_sheet_rev(const char *rev, unsigned long *n);

/* Splits "SHEET@REV" into the id and the revision (NULL when there is no '@').
 * VS_EVALUE when the id is not a valid slug or REV is empty. Pure. */
int vs_store_parse_spec(const char *spec, char *id, size_t idlen, const char **rev, vs_error *err);

typedef struct vs_store_sync {
    char remote[1024]; /* the URL or path used */
    char branch[VS_STORE_BRANCH_MAX];
    char local_before[VS_STORE_HEX];
    char local_after[VS_STORE_HEX];
    char remote_after[VS_STORE_HEX]; /* the remote branch as re-read at the end */
    int up_to_date;                  /* nothing to do */
    int fast_forward;                /* pull: local moved forward to the remote's tip */
    int merged;                      /* a merge commit joined both sides (different sheets) */
    int attempts;
    char warning[512];
    /* Non-empty when a lock on the branch (here, or the remote's on this
     * machine) left by a writer that died was removed: what was removed. */
    char repaired[600];
} vs_store_sync;

/* Sends the branch to remote: a configured remote name, a path to a repository,
 * a file:// URL, or any URL libgit2 has a transport for (NULL: "origin"). When
 * the remote has commits this side lacks, they are fetched and integrated first,
 * per sheet: a sheet changed on one side only is taken from that side; a sheet
 * changed on both sides since the merge base is never merged, even where git
 * would merge its lines: VS_ECONFLICT naming the sheets, nothing merged or
 * pushed. The remote's tip is then remembered, so that `commit ... replace` of
 * each such sheet (vs_store_write.replace) chooses its version, and the last
 * choice joins the two histories (vs_store_commit_info.joined). After the push
 * the remote branch is read back: the call succeeds only when the local tip is
 * reachable from it. */
int vs_store_push(vs_store *st, const char *remote, vs_store_sync *out, vs_error *err);

/* Fetches the remote's branch and brings it in: fast-forward, or a merge commit
 * when both sides have new commits to different sheets; a sheet changed on both
 * sides is VS_ECONFLICT as for vs_store_push (the branch and work tree are left
 * as they were). */
int vs_store_pull(vs_store *st, const char *remote, vs_store_sync *out, vs_error *err);

/* The records path when none is given: VRAMSHEET_RECORDS when set and not empty,
 * else $XDG_DATA_HOME/vramsheet/records when XDG_DATA_HOME is an absolute path
 * (the XDG Base Directory Specification ignores a relative one), else
 * $HOME/.local/share/vramsheet/records ("." for an unset or empty HOME). The one
 * rule for the kernel, `vramsheet run`, `log` and `show`. Returns a malloc'd
 * string, or NULL when memory is short. Reads the environment, nothing else. */
char *vs_store_default_path(void);

#endif
