/* store_internal.h — what the files of the store share (store.c, store_commit.c,
 * store_worktree.c, store_history.c, store_sync.c, store_receive.c); not part of the store's
 * contract, which is store.h. The vs_st_ names are for these files only.
 */
#ifndef VS_STORE_STORE_INTERNAL_H
#define VS_STORE_STORE_INTERNAL_H

#include <git2.h>

#include "sheet/sheet.h"
#include "store/store.h"
#include "store/store_gitindex.h"
#include "store/store_index.h"
#include "util/clock.h"

/* How long writers keep retrying a busy branch or index before calling a lock
 * stale; long enough for a burst of concurrent writers, short enough for a cell. */
#define STORE_RETRY_MS_DEFAULT 8000
#define STORE_PUSH_ATTEMPTS 3
/* The wait in force: VRAMSHEET_RECORDS_WAIT_MS shortens it (tests of stale locks). */
int vs_store_retry_ms(void);
#define STORE_RETRY_MS vs_store_retry_ms()

struct vs_store {
    char *path;
    git_repository *repo; /* NULL until the first commit creates it */
    char notice[1024];    /* what opening repaired, for the person ("" if nothing) */
    /* The sheets the last pull or push moved from moved_from to moved_to (the
     * revision index's heads compared), kept for vs_store_changed_sheets. */
    vs_store_index_moved *moved;
    size_t n_moved;
    int has_moved;
    git_oid moved_from, moved_to;
};

/* --- store.c: errors, the branch, locks --- */

/* Sets err to our context then libgit2's last message (copied at once); returns code. */
int vs_store_gfail(vs_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void vs_store_hex(char out[VS_STORE_HEX], const git_oid *oid);
/* A short random pause so that racing writers do not retry in lock step:
 * vs_store_backoff_us draws it (100 us up to 10 ms, from a per-process random
 * source), vs_store_backoff sleeps it. */
unsigned vs_store_backoff_us(int attempt);
void vs_store_backoff(int attempt);
/* 1 for the libgit2 codes of a reference moved or locked by another writer. */
int vs_store_is_busy(int rc);
/* Creates the repository (branch main) if it does not exist yet; *created (may be NULL). */
int vs_store_ensure_repo(vs_store *st, int *created, vs_error *err);
/* VS_ENOTFOUND when nothing was committed there yet. */
int vs_store_need_repo(vs_store *st, vs_error *err);
/* The branch HEAD names, as a full reference name. */
int vs_store_head_branch(vs_store *st, char *refname, size_t len, vs_error *err);
/* The branch tip: 1 with *tip, 0 when the branch has no commit yet. */
int vs_store_branch_tip(git_repository *repo, const char *refname, git_oid *tip, vs_error *err);
/* Moves refname of repo to `to` if it is still at `from` (NULL: if it does not
 * exist yet), under the records' own lock of references, which is how a
 * branch lock left by a writer that died is told from a live one and removed
 * (what was removed is appended to said, "; "-separated; said may be NULL).
 * 0 moved, 1 busy (moved by another writer, or locked by a live one: build
 * again on the new tip), or VS_ERECORDS. */
int vs_store_ref_move(git_repository *repo, const char *refname, const git_oid *to,
                      const git_oid *from, const char *logmsg, char *said, size_t saidlen,
                      vs_error *err);
/* Sets err to a busy or stale lock on file (a reference) of the repository. */
void vs_store_lock_report(vs_store *st, const char *file, vs_error *err);
int vs_store_check_writable(vs_store *st, vs_error *err);
int vs_store_make_signature(git_repository *repo, git_signature **sig);

/* --- store_worktree.c: the work tree and index --- */

/* Writes path through a temporary file and a rename. 0 or -1 (errno). */
int vs_store_write_file_atomic(const char *path, const void *data, size_t len);
/* The lock that orders writers of the index and work tree (flock: released if a
 * writer dies); *fd_out to unlock and close. */
int vs_store_worktree_lock(vs_store *st, int *fd_out, vs_error *err);
/* Brings the index and work-tree files of the given sheets to the tip of branch
 * refname (a full reference name), under the work-tree lock; 0 at once for a
 * bare repository. */
int vs_store_sync_sheets(vs_store *st, const char *refname, const char *const *ids, size_t nids,
                         vs_error *err);
/* The index entries of the changed files (ch sorted by path, no path twice,
 * each file's stat taken after it was written), under the work-tree lock:
 * patched in <gitdir>/index when store_gitindex.c reads its layout, else
 * through libgit2's index. */
int vs_store_worktree_patch_index(vs_store *st, vs_store_gitindex_change *ch, size_t n,
                                  vs_error *err);
/* The journal entry of a commit of sheet id by this process: begun before the
 * branch moves, ended once the sheet's files and index follow the tip. An entry
 * left by a writer that died is what vs_store_repair_interrupted finds. */
int vs_store_journal_begin(vs_store *st, const char *id, vs_error *err);
void vs_store_journal_end(vs_store *st, const char *id);
/* Brings the sheets that a killed commit left half-updated to the branch tip,
 * saying so in st->notice. */
void vs_store_repair_interrupted(vs_store *st);
/* The sheet's files in the work tree (sheets/<id>/sheet.json, sheet.md) that
 * were edited, deleted or staged by hand, names joined into out ("" for none). */
int vs_store_hand_edits(vs_store *st, const char *id, char *out, size_t len, vs_error *err);

/* --- store_commit.c: a divergence from a remote, remembered --- */

/* The other side's tip remembered when a pull or push was refused because
 * sheets changed on both sides, with the sheets whose version was chosen since. */
#define STORE_DIVERGED_MAX 32
typedef struct vs_store_theirs_note {
    int has;
    git_oid theirs;
    char chosen[STORE_DIVERGED_MAX][VS_SHEET_ID_MAX];
    size_t n;
} vs_store_theirs_note;
void vs_store_note_read(vs_store *st, vs_store_theirs_note *tn);
void vs_store_note_write(vs_store *st, const vs_store_theirs_note *tn);

/* --- store_history.c: reading trees --- */

/* The blob id of sheets/<id>/<file> in a tree, read raw: *has 0 when absent. */
int vs_store_sheet_blob_at(git_repository *repo, const git_oid *tree_id, const char *id,
                           const char *file, git_oid *out, int *has);

/* --- store_cred.c: the credential a remote over http(s) asks for --- */

/* One connection's credential: given at most once (libgit2 asking again means
 * the server refused it), where it came from, and why none could be given.
 * The secret itself is never kept here. */
typedef struct vs_store_cred {
    const char *url; /* the remote's URL, as git credential fill is given it */
    const char *dir; /* the records, where git credential fill runs */
    int given;
    char from[64];  /* "VRAMSHEET_RECORDS_TOKEN" or "your git credential helper" */
    char user[256]; /* the user name given (not a secret) */
    char why[700];  /* why no credential, or why the one given was refused */
} vs_store_cred;
void vs_store_cred_init(vs_store_cred *c, const char *url, const char *dir);
/* A git_credential_acquire_cb with payload a vs_store_cred. */
int vs_store_cred_cb(git_credential **out, const char *url, const char *user_from_url,
                     unsigned int allowed, void *payload);
int vs_store_cred_acquire(git_credential **out, const char *url, const char *user_from_url,
                          unsigned int allowed, vs_store_cred *c);
/* Refuses (VS_ERECORDS, the URL shown redacted) a URL with user:password@. */
int vs_store_cred_url_check(const char *url, vs_error *err);

/* --- store_receive.c: what a push learns from the server; git receive-pack --- */

typedef struct vs_store_push_report {
    char status[300];   /* the first reference the server refused: "REF: ITS REASON" */
    char said[1024];    /* what its hooks printed, lines joined, control characters as '?' */
    char fail[300];     /* why git receive-pack could not be started ("" when it was) */
    vs_store_cred cred; /* the credential asked for on this connection */
} vs_store_push_report;
/* Clears r and points cb's side-band, reference-status and credential
 * callbacks (and payload) at it; the credential's URL and records dir are
 * then set with vs_store_cred_init(&r->cred, ...). */
void vs_store_push_report_init(vs_store_push_report *r, git_remote_callbacks *cb);
/* The server's words, status then what it said, as valid UTF-8, into out. */
void vs_store_push_report_words(vs_store_push_report *r, char *out, size_t len);
/* 1 when the refusal is git's for a reference another pusher moved or held
 * meanwhile, or for objects it could not move in beside another push's (a race,
 * not the server's policy). */
int vs_store_push_report_race(const vs_store_push_report *r);
/* How many of the hooks `git receive-pack` runs the repository has (executable,
 * in core.hooksPath or hooks/), their names joined into names. */
int vs_store_receive_hooks(git_repository *remote, char *names, size_t len);
/* A git_transport_cb (git_remote_callbacks.transport, payload: the callbacks'
 * vs_store_push_report) that pushes to a path through `git receive-pack PATH`. */
int vs_store_receive_pack_transport(git_transport **out, git_remote *owner, void *payload);

/* The commit a revision names (rev NULL: the branch tip); VS_ENOTFOUND when
 * there is none, VS_EVALUE for a search of commit messages. */
int vs_store_resolve_commit(vs_store *st, const char *rev, git_commit **out, vs_error *err);

/* The blob of sheets/<id>/<file> in commit tip (the branch tip): from the
 * revision index's folder when the index is at that tip, else read raw. */
int vs_store_tip_blob(vs_store *st, const git_oid *tip, const char *id, const char *file,
                      git_oid *out, int *has);

/* --- store_index_shallow.c: a shallow clone --- */

/* The boundary commits of a shallow clone (<gitdir>/shallow), sorted: *out
 * malloc'd (NULL and 0 when the clone is whole). -1 when memory is short. */
int vs_store_shallow_read(vs_store *st, git_oid **out, size_t *n);
/* 1 when c is one of the sorted boundary commits. */
int vs_store_shallow_has(const git_oid *shallow, size_t n, const git_oid *c);
/* 1 for a shallow clone. */
int vs_store_is_shallow(vs_store *st);

/* --- store_sides.c: the sides of a remote --- */

/* The sheets changed on both sides since the merge base, to different contents:
 * names joined into names ("sheets/<id>/, ..."), ids listed when not NULL.
 * Returns how many, or a libgit2 error. */
int vs_store_diverged_sheets(git_repository *repo, const git_oid *ours, const git_oid *theirs,
                             char *names, size_t len, char (*ids)[VS_SHEET_ID_MAX], size_t *nids);
/* store_checkout.c: as vs_store_checkout_moved, for the sheets in moved only
 * (what the revision index says moved from old_commit to new_commit): 0, 1
 * when more than a sheet's two files moved or the index's layout is not one
 * read here (nothing done: use vs_store_checkout_moved), or a negative code. */
int vs_store_checkout_sheets(vs_store *st, const git_oid *old_commit, const git_oid *new_commit,
                             const vs_store_index_moved *moved, size_t n, vs_error *err);
/* Updates the work tree's files that changed between two commits, leaving a
 * person's own edits alone. */
int vs_store_checkout_moved(vs_store *st, const git_oid *old_commit, const git_oid *new_commit,
                            vs_error *err);

#endif
