/* store_index.h — the per-sheet revision index: for each sheet, the commits of
 * the branch that changed sheets/<id>/ (its revisions), newest first, each with
 * its commit, its parent revision (the sheet's revision before it), committer
 * time, message and sheet.json blob, read without walking the history.
 *
 * It lives beside the repository, in <gitdir>/vramsheet/: `index.revs`, an
 * append-only log of revisions (each pointing back at the sheet's previous
 * one), and `index.heads`, the sheets sorted by id with their latest revision,
 * stamped with the branch and the tip it was built for, the length of the log
 * it covers and a generation both files carry. `index.heads` is replaced whole
 * by a rename, after the log it covers is written: a writer killed halfway
 * leaves the last complete index (the log's tail past its length is cut by the
 * next writer), and a reader never sees half of one. Writers take
 * <gitdir>/vramsheet/index.lock (flock: released when a writer dies). Nothing
 * is synced to the disk: the index is derived from the history, and what a
 * power cut could leave (a record of zeros, a chain pointing past the log) is
 * caught by the checks of each record read, and the index rebuilt.
 *
 * The index follows the branch: vs_store_index_sync brings it to the tip,
 * adding the commits made since (a commit, a pull, a push's merge, a commit
 * made with git itself) by comparing each one's sheets/ tree with its parents',
 * and rebuilding it from the whole history when it is missing, unreadable,
 * built for another branch, or for a tip that is no longer in the branch's
 * history (a reset). The order of a sheet's revisions is the history walk's
 * (topological, newer first): a batch of new commits that holds a revision of
 * a sheet that does not descend from the sheet's latest indexed one (the same
 * sheet changed on both sides of a merge) rebuilds it, so that the order stays
 * the walk's.
 *
 * A shallow clone is indexed down to its shallow boundary: a boundary commit
 * counts as a first revision of every sheet it holds, and is marked so
 * (VS_STORE_INDEX_BOUNDARY) for callers to say the history is truncated there.
 *
 * Errors are vs_error codes: VS_ERECORDS (git or file errors, saying which),
 * VS_ENOMEM. When <gitdir>/vramsheet/ cannot be written (records read from a
 * read-only place), vs_store_index_sync returns VS_STORE_INDEX_READONLY and
 * callers walk the history instead.
 */
#ifndef VS_STORE_STORE_INDEX_H
#define VS_STORE_STORE_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include <git2.h>

#include "sheet/sheet.h"
#include "store/store.h"
#include "util/error.h"

/* vs_store_index_sync's answer when the index cannot be written here. */
#define VS_STORE_INDEX_READONLY 1

/* A revision's flags. */
#define VS_STORE_INDEX_DELETED 1u  /* the commit removed sheets/<id>/ */
#define VS_STORE_INDEX_BOUNDARY 2u /* a shallow clone's boundary: older ones not here */

typedef struct vs_store_index_rev {
    char commit[VS_STORE_HEX];
    char blob[VS_STORE_HEX];   /* sheets/<id>/sheet.json at that commit ("" when none) */
    char parent[VS_STORE_HEX]; /* the sheet's revision before this one ("" for its first) */
    char folder[VS_STORE_HEX]; /* the tree sheets/<id> at that commit ("" when removed) */
    int64_t time;              /* committer time, seconds since the epoch */
    int offset;                /* committer's UTC offset in minutes */
    unsigned flags;            /* VS_STORE_INDEX_* */
    char *message;             /* malloc'd, without trailing newlines */
} vs_store_index_rev;

/* Brings the index to the tip of the records' branch (nothing to do when it was
 * built for that tip: one read of index.heads). 0 when the index is current,
 * VS_STORE_INDEX_READONLY when it cannot be written here (nothing is changed),
 * or a negative code. A repository without commits has an empty index. */
int vs_store_index_sync(vs_store *st, vs_error *err);

/* A commit of ours, made on the tip the index was built for: the one sheet
 * it changed, with that sheet's folder and sheet.json in the commit. */
typedef struct vs_store_index_known {
    git_oid commit;
    const char *id;
    git_oid folder;
    git_oid blob;
} vs_store_index_known;

/* vs_store_index_sync, told what the tip's commit changed: when the tip is
 * known->commit and its one parent is the index's tip, the revision is
 * appended without comparing the trees (what the comparison would find);
 * otherwise as vs_store_index_sync. */
int vs_store_index_sync_known(vs_store *st, const vs_store_index_known *known, vs_error *err);

/* 1 when the index on disk was built for exactly tip (the branch may have moved
 * since a caller read it), 0 otherwise. */
int vs_store_index_tip_is(vs_store *st, const git_oid *tip);

/* The tree sheets/<id> at the tip the index was built for, when that tip is
 * tip: 1 with *folder, 0 when the tip holds no such sheet, -1 when the index
 * is not for that tip (the caller reads the tree). Whichever side of a merge
 * the tip's version came from. */
int vs_store_index_tip_folder(vs_store *st, const git_oid *tip, const char *id, git_oid *folder);

/* The revisions of sheet id, newest first: skip of them passed over, then at
 * most limit (0: all), into *out (malloc'd, *n of them; free with
 * vs_store_index_revs_free). *total (may be NULL) is how many the sheet has.
 * Reads only the revisions returned (and the ones skipped, one fixed-size
 * read each). The index must be current (vs_store_index_sync). A sheet the
 * records never held has none. */
int vs_store_index_revisions(vs_store *st, const char *id, size_t skip, size_t limit,
                             vs_store_index_rev **out, size_t *n, size_t *total, vs_error *err);
void vs_store_index_revs_free(vs_store_index_rev *revs, size_t n);

/* The revision that wrote sheets/<id>/sheet.json as blob (hex): among the
 * sheet's revisions newest first, the first run holding that blob, and of it
 * the oldest (a later revision that changed only sheet.md holds it too).
 * 1 with commit filled, 0 when no revision held it. Reads the fixed part of
 * each revision up to there, no message. The index must be current. */
int vs_store_index_find_blob(vs_store *st, const char *id, const char *blob,
                             char commit[VS_STORE_HEX], vs_error *err);

/* The ids of the sheets present at the tip whose id starts with prefix ("" or
 * NULL: all), sorted; *ids a malloc'd array of malloc'd strings. Reads
 * index.heads only. */
int vs_store_index_ids(vs_store *st, const char *prefix, char ***ids, size_t *n, vs_error *err);

/* index.heads as written for one tip, kept mapped (a later sync renames a new
 * file into place; this one stays readable): store_index_moved.c. */
typedef struct vs_store_index_snap {
    void *base;
    size_t size;
} vs_store_index_snap;

/* 1 with *s when the index on disk was built for tip, 0 otherwise (*s empty). */
int vs_store_index_snap_take(vs_store *st, const git_oid *tip, vs_store_index_snap *s);
void vs_store_index_snap_free(vs_store_index_snap *s);

/* A sheet whose folder differs between two snapshots: had/before in the first
 * tip's tree, has/after in the second's. */
typedef struct vs_store_index_moved {
    char id[VS_SHEET_ID_MAX];
    int had, has;
    git_oid before, after;
} vs_store_index_moved;

/* The sheets whose folder differs from before to after, sorted by id: *out
 * malloc'd (NULL when none). Reads the two heads only, no tree. */
int vs_store_index_moved_sheets(const vs_store_index_snap *before, const vs_store_index_snap *after,
                                vs_store_index_moved **out, size_t *n, vs_error *err);

/* Where the index files are kept: <gitdir>/vramsheet/NAME, into out. */
void vs_store_index_path(vs_store *st, const char *name, char *out, size_t len);

#endif
