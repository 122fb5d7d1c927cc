/* store_checkout.c — the work tree and the git index brought from one tip to
 * the next for the sheets whose folder moved, and nothing else.
 *
 * Why: after a fast-forward, libgit2's checkout (even limited to the changed
 * paths) reads the whole git index into a hash map and writes it back, and the
 * tree comparison that finds those paths reads both sheets/ trees: at 10,000
 * sheets that is most of a pull. The revision index says which sheets moved
 * (store_index_moved.c); here each moved sheet's two folders are read, its
 * files written and the index patched in place for their entries.
 *
 * The same guarantee as a safe checkout: a file the person changed (in the
 * work tree, or staged in the index) is left as it is. Anything else than a
 * sheet's two files moving (a file outside sheets/, a folder holding other
 * files, an index layout not read here) answers 1: the caller checks out
 * with libgit2. */
#include "store/store_index.h"
#include "store/store_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define FILES 2
static const char *const files[FILES] = {"sheet.json", "sheet.md"};

typedef struct file_move {
    char path[VS_SHEET_ID_MAX + 32];
    int had, has;
    git_oid before, after;
    uint32_t mode;
} file_move;

/* 1 when the two root trees hold the same entries but for sheets/. */
static int only_sheets_moved(const git_tree *a, const git_tree *b)
{
    size_t i, n = git_tree_entrycount(a);
    if (n != git_tree_entrycount(b))
        return 0;
    for (i = 0; i < n; i++) {
        const git_tree_entry *x = git_tree_entry_byindex(a, i), *y = git_tree_entry_byindex(b, i);
        if (strcmp(git_tree_entry_name(x), git_tree_entry_name(y)) ||
            git_tree_entry_filemode(x) != git_tree_entry_filemode(y))
            return 0;
        if (!strcmp(git_tree_entry_name(x), "sheets"))
            continue;
        if (!git_oid_equal(git_tree_entry_id(x), git_tree_entry_id(y)))
            return 0;
    }
    return 1;
}

/* A sheet's folder holding at most its two files, as blobs: 0 with *got set
 * for each, 1 when it holds something else. */
static int folder_files(git_repository *repo, const git_oid *folder, int got[FILES],
                        git_oid ids[FILES], uint32_t modes[FILES])
{
    git_tree *t = NULL;
    size_t i, f, n;
    int rc = 0;
    memset(got, 0, FILES * sizeof *got);
    if (!folder)
        return 0;
    if (git_tree_lookup(&t, repo, folder) < 0)
        return -1;
    n = git_tree_entrycount(t);
    for (i = 0; i < n && rc == 0; i++) {
        const git_tree_entry *e = git_tree_entry_byindex(t, i);
        for (f = 0; f < FILES && strcmp(git_tree_entry_name(e), files[f]); f++)
            ;
        if (f == FILES || git_tree_entry_type(e) != GIT_OBJECT_BLOB) {
            rc = 1;
            break;
        }
        got[f] = 1;
        git_oid_cpy(&ids[f], git_tree_entry_id(e));
        modes[f] = (uint32_t)git_tree_entry_filemode(e);
    }
    git_tree_free(t);
    return rc;
}

/* 1 when the work tree and the index hold the file as the old tip had it: the
 * file is then the records' to replace. */
static int untouched(const vs_store_gitindex *gi, const file_move *m, const char *abs)
{
    git_oid in_index, h;
    uint32_t mode;
    struct stat sb;
    int found = vs_store_gitindex_find(gi, m->path, &in_index, &mode);
    if (!m->had)
        return !found && lstat(abs, &sb) != 0 && errno == ENOENT;
    if (!found || !git_oid_equal(&in_index, &m->before))
        return 0;
    if (lstat(abs, &sb) != 0 || !S_ISREG(sb.st_mode))
        return 0;
    return git_odb_hashfile(&h, abs, GIT_OBJECT_BLOB) == 0 && git_oid_equal(&h, &m->before);
}

static int move_cmp(const void *a, const void *b)
{
    return strcmp(((const file_move *)a)->path, ((const file_move *)b)->path);
}

/* The files that differ between each moved sheet's two folders: 0, 1 when a
 * folder holds other files, -1 when one cannot be read. */
static int list_moves(git_repository *repo, const vs_store_index_moved *moved, size_t n,
                      file_move *out, size_t *nout)
{
    size_t i, f;
    *nout = 0;
    for (i = 0; i < n; i++) {
        int had[FILES], has[FILES], rc;
        git_oid a[FILES], b[FILES];
        uint32_t ma[FILES], mb[FILES];
        if ((rc = folder_files(repo, moved[i].had ? &moved[i].before : NULL, had, a, ma)) ||
            (rc = folder_files(repo, moved[i].has ? &moved[i].after : NULL, has, b, mb)))
            return rc;
        for (f = 0; f < FILES; f++) {
            file_move *m = &out[*nout];
            if (had[f] == has[f] && (!had[f] || (git_oid_equal(&a[f], &b[f]) && ma[f] == mb[f])))
                continue;
            memset(m, 0, sizeof *m);
            snprintf(m->path, sizeof m->path, "sheets/%s/%s", moved[i].id, files[f]);
            if ((m->had = had[f]))
                git_oid_cpy(&m->before, &a[f]);
            if ((m->has = has[f])) {
                git_oid_cpy(&m->after, &b[f]);
                m->mode = mb[f];
            }
            (*nout)++;
        }
    }
    qsort(out, *nout, sizeof *out, move_cmp);
    return 0;
}

/* Writes (or removes) each file to move that the person left untouched, its
 * index entry into ch: *nch of them. */
static int write_moves(vs_store *st, const vs_store_gitindex *gi, const file_move *mv, size_t n,
                       vs_store_gitindex_change *ch, size_t *nch, vs_error *err)
{
    const char *wd = git_repository_workdir(st->repo);
    size_t i;
    *nch = 0;
    for (i = 0; i < n; i++) {
        char abs[4400], dir[4400], *slash;
        vs_store_gitindex_change *c = &ch[*nch];
        snprintf(abs, sizeof abs, "%s%s", wd, mv[i].path);
        if (!untouched(gi, &mv[i], abs))
            continue; /* the person's version stays, as in a safe checkout */
        snprintf(dir, sizeof dir, "%s", abs);
        if ((slash = strrchr(dir, '/')))
            *slash = '\0'; /* sheets/<id> */
        memset(c, 0, sizeof *c);
        c->path = mv[i].path;
        if (mv[i].has) {
            git_blob *b = NULL;
            char top[4400];
            int wrc;
            if (git_blob_lookup(&b, st->repo, &mv[i].after) < 0)
                return vs_store_gfail(err, VS_ERECORDS, "cannot read %s", mv[i].path);
            snprintf(top, sizeof top, "%ssheets", wd);
            mkdir(top, 0777);
            mkdir(dir, 0777);
            wrc = vs_store_write_file_atomic(abs, git_blob_rawcontent(b),
                                             (size_t)git_blob_rawsize(b));
            git_blob_free(b);
            if (wrc < 0 || lstat(abs, &c->st) != 0)
                return vs_error_set(err, VS_ERECORDS, "cannot write %s: %s", abs, strerror(errno));
            c->has = 1;
            git_oid_cpy(&c->id, &mv[i].after);
            c->mode = mv[i].mode;
        } else {
            if (unlink(abs) != 0 && errno != ENOENT)
                return vs_error_set(err, VS_ERECORDS, "cannot remove %s: %s", abs, strerror(errno));
            rmdir(dir); /* only when empty */
        }
        (*nch)++;
    }
    return 0;
}

int vs_store_checkout_sheets(vs_store *st, const git_oid *old_commit, const git_oid *new_commit,
                             const vs_store_index_moved *moved, size_t n, vs_error *err)
{
    git_commit *oc = NULL, *nc = NULL;
    git_tree *ot = NULL, *nt = NULL;
    file_move *mv = NULL;
    vs_store_gitindex_change *ch = NULL;
    vs_store_gitindex gi = {0};
    char path[4200];
    size_t nmv = 0, nch = 0;
    int rc, fd = -1, loaded = 0;
    if (git_repository_is_bare(st->repo))
        return 0;
    if (git_commit_lookup(&oc, st->repo, old_commit) < 0 || git_commit_tree(&ot, oc) < 0 ||
        git_commit_lookup(&nc, st->repo, new_commit) < 0 || git_commit_tree(&nt, nc) < 0) {
        rc = vs_store_gfail(err, VS_ERECORDS, "cannot read trees");
        goto done;
    }
    if (!only_sheets_moved(ot, nt)) {
        rc = 1;
        goto done;
    }
    if (!(mv = calloc(n * FILES + 1, sizeof *mv)) || !(ch = calloc(n * FILES + 1, sizeof *ch))) {
        rc = vs_error_oom(err);
        goto done;
    }
    if ((rc = list_moves(st->repo, moved, n, mv, &nmv)) != 0) {
        if (rc < 0)
            rc = vs_store_gfail(err, VS_ERECORDS, "cannot read a sheet's folder");
        goto done;
    }
    if ((rc = vs_store_worktree_lock(st, &fd, err)) < 0)
        goto done;
    snprintf(path, sizeof path, "%sindex", git_repository_path(st->repo));
    if ((rc = vs_store_gitindex_load(&gi, path)) != 0) {
        if (rc < 0)
            rc = vs_error_set(err, VS_ERECORDS, "cannot read %s: %s", path, strerror(errno));
        goto done; /* 1: a layout libgit2 reads */
    }
    loaded = 1;
    if ((rc = write_moves(st, &gi, mv, nmv, ch, &nch, err)) == 0 && nch)
        rc = vs_store_worktree_patch_index(st, ch, nch, err);
done:
    if (loaded)
        vs_store_gitindex_free(&gi);
    if (fd >= 0) {
        flock(fd, LOCK_UN);
        close(fd);
    }
    free(ch);
    free(mv);
    git_tree_free(ot);
    git_tree_free(nt);
    git_commit_free(oc);
    git_commit_free(nc);
    return rc;
}
