/* store_worktree.c — the work tree and index of a records repository brought
 * to the branch tip after a commit: files written by rename, the index lock
 * taken so that a writer killed halfway is recognised, the journal that lets
 * the next open repair a commit killed before its files followed, and the
 * sheets whose files there were edited by hand (refused, not written over). */
#include "store/store_gitindex.h"
#include "store/store_index.h"
#include "store/store_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* --- the work tree --- */

int vs_store_write_file_atomic(const char *path, const void *data, size_t len)
{
    char tmp[4500];
    FILE *f;
    int ok;
    snprintf(tmp, sizeof tmp, "%s.vs-tmp-%ld", path, (long)getpid());
    f = fopen(tmp, "wb");
    if (!f)
        return -1;
    ok = fwrite(data, 1, len, f) == len;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* Writers in several processes update the index one after another: libgit2's
 * index.lock guards only the write, not our read-modify-write. flock is released
 * by the kernel if a writer dies, so a crash cannot leave it held. */
int vs_store_worktree_lock(vs_store *st, int *fd_out, vs_error *err)
{
    char p[4096];
    int64_t deadline = vs_clock_mono_ms() + STORE_RETRY_MS;
    int fd;
    snprintf(p, sizeof p, "%svramsheet.lock", git_repository_path(st->repo));
    fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return vs_error_set(err, VS_ERECORDS, "cannot open %s: %s", p, strerror(errno));
    while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (vs_clock_mono_ms() > deadline) {
            close(fd);
            return vs_error_set(err, VS_ERECORDS, "another writer held %s for %.1f s", p,
                                STORE_RETRY_MS / 1000.0);
        }
        usleep(2000);
    }
    *fd_out = fd;
    return 0;
}

/* --- the index, written so that a writer killed halfway is recognised ---
 *
 * git_index_write takes <gitdir>/index.lock, writes the new index into it and
 * renames it over the index. A writer killed by kill -9 in between leaves
 * index.lock behind, holding index data that says nothing of who wrote it, and
 * every later commit found the index locked: the branch moved, but the work
 * tree and the index stayed behind until a person removed the file. So our
 * writers take index.lock themselves, by link(2) of a file that names them
 * ("vramsheet <pid>": created whole or not at all), put the new index in place
 * with a rename while they hold it, and remove it. An index.lock that names a
 * process no longer alive is one of ours that crashed: the next writer (under
 * the work-tree lock, so no writer of ours is live in there) removes it. Any
 * other index.lock is a git command's, and is waited on as before. */
#define INDEX_LOCK_TAG "vramsheet "

/* The pid an index.lock of ours names; 0 when it is not ours (or is gone). */
static long index_lock_owner(const char *lock)
{
    char buf[64];
    ssize_t n;
    int fd = open(lock, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= (ssize_t)strlen(INDEX_LOCK_TAG))
        return 0;
    buf[n] = '\0';
    if (strncmp(buf, INDEX_LOCK_TAG, strlen(INDEX_LOCK_TAG)) != 0)
        return 0;
    return strtol(buf + strlen(INDEX_LOCK_TAG), NULL, 10);
}

static int pid_alive(long pid)
{
    return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

/* Removes what a dead writer of ours left: its index.lock and its temporary files. */
static void remove_dead_index_lock(vs_store *st, const char *lock, long pid)
{
    const char *gd = git_repository_path(st->repo);
    char p[4200];
    unlink(lock);
    snprintf(p, sizeof p, "%svramsheet-index.%ld", gd, pid);
    unlink(p);
    snprintf(p, sizeof p, "%svramsheet-index.%ld.lock", gd, pid);
    unlink(p);
    snprintf(p, sizeof p, "%svramsheet-index-lock.%ld", gd, pid);
    unlink(p);
}

/* The temporary files of writers of ours killed before they took index.lock. */
static void remove_dead_index_files(vs_store *st)
{
    DIR *d = opendir(git_repository_path(st->repo));
    struct dirent *e;
    if (!d)
        return;
    while ((e = readdir(d))) {
        const char *rest = NULL;
        char p[4400];
        long pid;
        if (!strncmp(e->d_name, "vramsheet-index-lock.", 21))
            rest = e->d_name + 21;
        else if (!strncmp(e->d_name, "vramsheet-index.", 16))
            rest = e->d_name + 16;
        if (!rest || (pid = strtol(rest, NULL, 10)) <= 0 || pid == (long)getpid() || pid_alive(pid))
            continue;
        snprintf(p, sizeof p, "%s%s", git_repository_path(st->repo), e->d_name);
        unlink(p);
    }
    closedir(d);
}

/* Puts a new <gitdir>/index in place: idx's entries (libgit2's index, changed
 * in memory, read back after) or the bytes of a file patched directly. */
static int write_index(vs_store *st, git_index *idx, const unsigned char *bytes, size_t blen,
                       vs_error *err)
{
    const char *gd = git_repository_path(st->repo);
    char tmp[4200], tag[4200], lock[4200], dst[4200], who[64];
    git_index *out = NULL;
    int64_t deadline = vs_clock_mono_ms() + STORE_RETRY_MS / 4;
    long me = (long)getpid(), owner;
    int rc = 0, fd, locked = 0;
    size_t n, i;
    snprintf(tmp, sizeof tmp, "%svramsheet-index.%ld", gd, me);
    snprintf(tag, sizeof tag, "%svramsheet-index-lock.%ld", gd, me);
    snprintf(lock, sizeof lock, "%sindex.lock", gd);
    snprintf(dst, sizeof dst, "%sindex", gd);
    remove_dead_index_files(st);
    unlink(tmp);
    /* the new index, complete, beside the old one */
    if (!idx) {
        if (vs_store_write_file_atomic(tmp, bytes, blen) < 0) {
            rc = vs_error_set(err, VS_ERECORDS, "cannot write %s: %s", tmp, strerror(errno));
            goto done;
        }
    } else {
        if (git_index_open(&out, tmp) < 0)
            rc = -1;
        for (i = 0; rc == 0 && i < git_index_entrycount(idx); i++)
            if (git_index_add(out, git_index_get_byindex(idx, i)) < 0)
                rc = -1;
        if (rc < 0 || git_index_write(out) < 0) {
            rc = vs_store_gfail(err, VS_ERECORDS, "cannot write the index of %s", st->path);
            goto done;
        }
    }
    n = (size_t)snprintf(who, sizeof who, INDEX_LOCK_TAG "%ld\n", me);
    if ((fd = open(tag, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0 ||
        write(fd, who, n) != (ssize_t)n || close(fd) != 0) {
        rc = vs_error_set(err, VS_ERECORDS, "cannot write %s: %s", tag, strerror(errno));
        goto done;
    }
    while (link(tag, lock) != 0) {
        if (errno != EEXIST) {
            rc = vs_error_set(err, VS_ERECORDS, "cannot create %s: %s", lock, strerror(errno));
            goto done;
        }
        owner = index_lock_owner(lock);
        if (owner > 0 && owner != me && !pid_alive(owner)) {
            remove_dead_index_lock(st, lock, owner);
            continue;
        }
        if (vs_clock_mono_ms() > deadline) {
            rc = vs_error_set(err, VS_ERECORDS,
                              "the index of %s is locked by %s (a git command running, or one "
                              "that crashed); if none is running, remove that file, then `git -C "
                              "%s reset -q` brings the index to the commit",
                              st->path, lock, st->path);
            goto done;
        }
        usleep(5000);
    }
    locked = 1;
    if (rename(tmp, dst) != 0) {
        rc = vs_error_set(err, VS_ERECORDS, "cannot replace %s: %s", dst, strerror(errno));
        goto done;
    }
    /* the in-memory index, read back: it is what is on disk now */
    if (idx)
        git_index_read(idx, 1);
done:
    if (locked)
        unlink(lock);
    unlink(tag);
    unlink(tmp);
    git_index_free(out);
    return rc;
}

#define SYNC_FILES 2

/* git's order of index entries (bytes compared, the shorter first): strcmp's */
static int change_cmp(const void *a, const void *b)
{
    return strcmp(((const vs_store_gitindex_change *)a)->path,
                  ((const vs_store_gitindex_change *)b)->path);
}

/* The index entries of the changed files: patched in the index file when
 * store_gitindex.c reads its layout, else through libgit2's index (which
 * hashes each file again). */
int vs_store_worktree_patch_index(vs_store *st, vs_store_gitindex_change *ch, size_t n,
                                  vs_error *err)
{
    char path[4200];
    vs_store_gitindex gi;
    git_index *idx = NULL;
    unsigned char *bytes = NULL;
    size_t blen, i;
    int rc;
    snprintf(path, sizeof path, "%sindex", git_repository_path(st->repo));
    if ((rc = vs_store_gitindex_load(&gi, path)) < 0)
        return vs_error_set(err, VS_ERECORDS, "cannot read %s: %s", path, strerror(errno));
    if (rc == 0) {
        rc = vs_store_gitindex_patch(&gi, ch, n, &bytes, &blen);
        vs_store_gitindex_free(&gi);
        if (rc < 0)
            return vs_error_oom(err);
        if (rc == 0) {
            rc = write_index(st, NULL, bytes, blen, err);
            free(bytes);
            return rc;
        }
    }
    if (git_repository_index(&idx, st->repo) < 0 || git_index_read(idx, 1) < 0) {
        git_index_free(idx);
        return vs_store_gfail(err, VS_ERECORDS, "cannot read the index");
    }
    for (i = 0; i < n; i++) {
        if (ch[i].has && git_index_add_bypath(idx, ch[i].path) < 0) {
            git_index_free(idx);
            return vs_store_gfail(err, VS_ERECORDS, "cannot add %s to the index", ch[i].path);
        }
        if (!ch[i].has)
            git_index_remove_bypath(idx, ch[i].path);
    }
    rc = write_index(st, idx, NULL, 0, err);
    git_index_free(idx);
    return rc;
}

/* sheets/<id>/<file> at the tip: 1 with its blob and mode, 0 when absent.
 * From the folder the revision index holds for the tip when it was brought
 * there (no read of the whole sheets/ tree), else through the tip's tree
 * (*tree read once, kept for the next). */
static int tip_file(vs_store *st, const git_oid *tip, git_tree **tree, const char *id,
                    const char *file, git_oid *out, uint32_t *mode)
{
    char rel[VS_SHEET_ID_MAX + 32];
    git_oid folder;
    git_tree *ft = NULL;
    git_tree_entry *e = NULL;
    const git_tree_entry *fe;
    int known = vs_store_index_tip_folder(st, tip, id, &folder), found = 0;
    if (known == 0)
        return 0;
    if (known == 1) {
        if (git_tree_lookup(&ft, st->repo, &folder) < 0)
            return -1;
        if ((fe = git_tree_entry_byname(ft, file)) && git_tree_entry_type(fe) == GIT_OBJECT_BLOB) {
            git_oid_cpy(out, git_tree_entry_id(fe));
            *mode = (uint32_t)git_tree_entry_filemode(fe);
            found = 1;
        }
        git_tree_free(ft);
        return found;
    }
    if (!*tree) {
        git_commit *c = NULL;
        int rc = git_commit_lookup(&c, st->repo, tip) < 0 || git_commit_tree(tree, c) < 0;
        git_commit_free(c);
        if (rc)
            return -1;
    }
    snprintf(rel, sizeof rel, "sheets/%s/%s", id, file);
    if (git_tree_entry_bypath(&e, *tree, rel) == 0 && git_tree_entry_type(e) == GIT_OBJECT_BLOB) {
        git_oid_cpy(out, git_tree_entry_id(e));
        *mode = (uint32_t)git_tree_entry_filemode(e);
        found = 1;
    }
    git_tree_entry_free(e);
    return found;
}

/* Brings the index and work-tree files of the given sheets to the branch tip
 * (not to a commit of ours: a later writer may already have moved it). */
int vs_store_sync_sheets(vs_store *st, const char *refname, const char *const *ids, size_t nids,
                         vs_error *err)
{
    static const char *const files[SYNC_FILES] = {"sheet.json", "sheet.md"};
    const char *wd = git_repository_workdir(st->repo);
    vs_store_gitindex_change *ch = NULL;
    char(*rels)[VS_SHEET_ID_MAX + 32] = NULL;
    git_tree *tree = NULL;
    git_oid tip;
    int fd = -1, rc = 0, have;
    size_t i, f, n = 0;
    if (!wd)
        return 0;
    if (!(ch = calloc(nids * SYNC_FILES + 1, sizeof *ch)) ||
        !(rels = calloc(nids * SYNC_FILES + 1, sizeof *rels))) {
        free(ch);
        return vs_error_oom(err);
    }
    if ((rc = vs_store_worktree_lock(st, &fd, err)) < 0)
        goto done;
    if ((have = vs_store_branch_tip(st->repo, refname, &tip, err)) < 0) {
        rc = have;
        goto done;
    }
    for (i = 0; i < nids; i++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%ssheets", wd);
        mkdir(dir, 0777);
        snprintf(dir, sizeof dir, "%ssheets/%s", wd, ids[i]);
        for (f = 0; f < SYNC_FILES; f++) {
            char *rel = rels[n], abs[4400];
            vs_store_gitindex_change *cf = &ch[n++];
            int in_tip = 0;
            snprintf(rel, sizeof *rels, "sheets/%s/%s", ids[i], files[f]);
            snprintf(abs, sizeof abs, "%s%s", wd, rel);
            cf->path = rel;
            if (have &&
                (in_tip = tip_file(st, &tip, &tree, ids[i], files[f], &cf->id, &cf->mode)) < 0) {
                rc = vs_store_gfail(err, VS_ERECORDS, "cannot read the tip");
                goto done;
            }
            if (in_tip) {
                git_blob *b = NULL;
                int wrc;
                if (git_blob_lookup(&b, st->repo, &cf->id) < 0) {
                    rc = vs_store_gfail(err, VS_ERECORDS, "cannot read %s", rel);
                    goto done;
                }
                mkdir(dir, 0777);
                wrc = vs_store_write_file_atomic(abs, git_blob_rawcontent(b),
                                                 (size_t)git_blob_rawsize(b));
                git_blob_free(b);
                cf->has = 1;
                if (wrc < 0 || lstat(abs, &cf->st) != 0) {
                    rc =
                        vs_error_set(err, VS_ERECORDS, "cannot write %s: %s", abs, strerror(errno));
                    goto done;
                }
            } else {
                if (unlink(abs) != 0 && errno != ENOENT) {
                    rc = vs_error_set(err, VS_ERECORDS, "cannot remove %s: %s", abs,
                                      strerror(errno));
                    goto done;
                }
            }
        }
        rmdir(dir); /* only when empty */
    }
    /* the index's order: ids sorted give their paths in order ("sheet.json"
     * before "sheet.md") */
    qsort(ch, n, sizeof *ch, change_cmp);
    for (i = f = 0; i < n; i++) /* a sheet named twice: once */
        if (f == 0 || strcmp(ch[f - 1].path, ch[i].path))
            ch[f++] = ch[i];
    rc = vs_store_worktree_patch_index(st, ch, f, err);
done:
    git_tree_free(tree);
    if (fd >= 0) {
        flock(fd, LOCK_UN);
        close(fd);
    }
    free(ch);
    free(rels);
    return rc;
}

/* --- interrupted commits --- */

/* A commit in a repository with a work tree writes a journal entry
 * <gitdir>/vramsheet-sync/<sheet>.<pid> before it moves the branch and removes
 * it once the sheet's index entries and files follow the tip. A writer killed
 * in between (kill -9) leaves the entry behind; the next open finds it and
 * brings that sheet's files and index to the tip. The entry is what tells
 * such a half-updated sheet from a person's own edits, which are left alone. */
static void journal_path(const vs_store *st, const char *id, long pid, char *out, size_t len)
{
    snprintf(out, len, "%svramsheet-sync/%s.%ld", git_repository_path(st->repo), id, pid);
}

int vs_store_journal_begin(vs_store *st, const char *id, vs_error *err)
{
    char p[4096];
    int fd;
    snprintf(p, sizeof p, "%svramsheet-sync", git_repository_path(st->repo));
    if (mkdir(p, 0777) != 0 && errno != EEXIST)
        return vs_error_set(err, VS_ERECORDS, "cannot create %s: %s", p, strerror(errno));
    journal_path(st, id, (long)getpid(), p, sizeof p);
    fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return vs_error_set(err, VS_ERECORDS, "cannot write %s: %s", p, strerror(errno));
    close(fd);
    return 0;
}

void vs_store_journal_end(vs_store *st, const char *id)
{
    char p[4096];
    journal_path(st, id, (long)getpid(), p, sizeof p);
    unlink(p);
}

void vs_store_repair_interrupted(vs_store *st)
{
    char p[4096], refname[VS_STORE_BRANCH_MAX + 16], done_ids[600] = "";
    DIR *d;
    struct dirent *e;
    vs_error err;
    int failed = 0;
    vs_error_clear(&err);
    snprintf(p, sizeof p, "%svramsheet-sync", git_repository_path(st->repo));
    if (!(d = opendir(p)))
        return;
    while ((e = readdir(d))) {
        char id[VS_SHEET_ID_MAX], jp[4400];
        const char *dot = strrchr(e->d_name, '.');
        const char *ids[1];
        long pid;
        if (!dot || dot == e->d_name || (size_t)(dot - e->d_name) >= sizeof id)
            continue;
        memcpy(id, e->d_name, (size_t)(dot - e->d_name));
        id[dot - e->d_name] = '\0';
        pid = strtol(dot + 1, NULL, 10);
        if (!vs_sheet_id_valid(id) || pid <= 0)
            continue;
        /* A live writer is still on its way to the tip; this process holds no
         * commit open while it opens a store. */
        if (pid != (long)getpid() && (kill((pid_t)pid, 0) == 0 || errno == EPERM))
            continue;
        ids[0] = id;
        if (vs_store_head_branch(st, refname, sizeof refname, &err) < 0 ||
            vs_store_sync_sheets(st, refname, ids, 1, &err) < 0) {
            failed = 1;
            break;
        }
        /* and the temporary files it was about to rename into place */
        if (git_repository_workdir(st->repo)) {
            static const char *const files[] = {"sheet.json", "sheet.md"};
            size_t f;
            for (f = 0; f < 2; f++) {
                snprintf(jp, sizeof jp, "%ssheets/%s/%s.vs-tmp-%ld",
                         git_repository_workdir(st->repo), id, files[f], pid);
                unlink(jp);
            }
        }
        snprintf(jp, sizeof jp, "%s/%s", p, e->d_name);
        unlink(jp);
        if (strlen(done_ids) + strlen(id) + 16 < sizeof done_ids)
            snprintf(done_ids + strlen(done_ids), sizeof done_ids - strlen(done_ids),
                     "%ssheets/%s/", *done_ids ? ", " : "", id);
    }
    closedir(d);
    if (failed)
        snprintf(
            st->notice, sizeof st->notice,
            "the records work tree of %.200s was left half-updated by an interrupted commit "
            "and could not be repaired (%.300s); `git -C %.200s reset --hard` brings it to the "
            "branch tip",
            st->path, err.message, st->path);
    else if (*done_ids)
        snprintf(st->notice, sizeof st->notice,
                 "repaired the records work tree of %.200s: a commit interrupted before it "
                 "finished had left %.500s half-updated; the index and files now match the branch "
                 "tip",
                 st->path, done_ids);
}

#define STORE_RECENT_COMMITS 64

/* A file's stage-0 entry in the index, or its absence. */
typedef struct index_entry {
    int has;
    git_oid id;
    uint32_t mode;
} index_entry;

/* The index entries of sheets/<id>/<files[0..1]>: found in the index file
 * itself (store_gitindex.c), or through libgit2's index for a layout that
 * file does not read. */
static int index_entries(vs_store *st, const char *id, const char *const *files, index_entry *ie,
                         vs_error *err)
{
    char path[4200], rel[256];
    vs_store_gitindex gi;
    git_index *idx = NULL;
    size_t f;
    int rc;
    memset(ie, 0, 2 * sizeof *ie);
    snprintf(path, sizeof path, "%sindex", git_repository_path(st->repo));
    if ((rc = vs_store_gitindex_load(&gi, path)) < 0)
        return vs_error_set(err, VS_ERECORDS, "cannot read %s: %s", path, strerror(errno));
    if (rc == 0) {
        for (f = 0; f < 2; f++) {
            snprintf(rel, sizeof rel, "sheets/%s/%s", id, files[f]);
            ie[f].has = vs_store_gitindex_find(&gi, rel, &ie[f].id, &ie[f].mode);
        }
        vs_store_gitindex_free(&gi);
        return 0;
    }
    if (git_repository_index(&idx, st->repo) < 0 || git_index_read(idx, 0) < 0) {
        git_index_free(idx);
        return vs_store_gfail(err, VS_ERECORDS, "cannot read the index of %s", st->path);
    }
    for (f = 0; f < 2; f++) {
        const git_index_entry *e;
        snprintf(rel, sizeof rel, "sheets/%s/%s", id, files[f]);
        if ((e = git_index_get_bypath(idx, rel, 0))) {
            ie[f].has = 1;
            git_oid_cpy(&ie[f].id, &e->id);
            ie[f].mode = e->mode;
        }
    }
    git_index_free(idx);
    return 0;
}

/* 1 when the index's entry for path (or its absence) is what one of the
 * branch's last commits holds there: an index that another writer is about to
 * bring to the tip it just moved, not an edit staged by hand. */
static int index_is_recent(vs_store *st, const index_entry *ie, const char *id, const char *file)
{
    char refname[VS_STORE_BRANCH_MAX + 16];
    git_revwalk *walk = NULL;
    git_oid tip, oid;
    vs_error e;
    int n = 0, recent = 0;
    vs_error_clear(&e);
    if (vs_store_head_branch(st, refname, sizeof refname, &e) < 0 ||
        vs_store_branch_tip(st->repo, refname, &tip, &e) != 1)
        return !ie->has;
    if (git_revwalk_new(&walk, st->repo) < 0 || git_revwalk_push(walk, &tip) < 0)
        goto done;
    git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME);
    while (!recent && n++ < STORE_RECENT_COMMITS && git_revwalk_next(&oid, walk) == 0) {
        git_commit *c = NULL;
        git_oid blob;
        int has = 0;
        if (git_commit_lookup(&c, st->repo, &oid) < 0)
            break;
        if (vs_store_sheet_blob_at(st->repo, git_commit_tree_id(c), id, file, &blob, &has) == 0)
            recent = ie->has ? has && git_oid_equal(&blob, &ie->id) : !has;
        git_commit_free(c);
    }
done:
    git_revwalk_free(walk);
    return recent;
}

/* git_status_file's flags for one file of a sheet, from the three places it
 * compares, looked at directly: the tip's blob, the index entry, and the work
 * tree's file hashed through its filters. git_status_file diffs the whole
 * tree against the index and lists the sheets/ folder, most of a commit when
 * the records hold 10,000 sheets. GIT_ENOTFOUND when none of them has it. */
static int file_status(vs_store *st, const index_entry *ie, const git_oid *tip, const char *id,
                       const char *file, const char *rel, unsigned int *flags)
{
    const char *wd = git_repository_workdir(st->repo);
    char abs[4400];
    struct stat sb;
    git_oid head, wt;
    int has_h = 0, in_wt, rc;
    *flags = 0;
    if (tip && (rc = vs_store_tip_blob(st, tip, id, file, &head, &has_h)) < 0)
        return rc;
    snprintf(abs, sizeof abs, "%s%s", wd ? wd : "", rel);
    in_wt = lstat(abs, &sb) == 0;
    if (!has_h && !ie->has && !in_wt)
        return GIT_ENOTFOUND;
    if (has_h && !ie->has)
        *flags |= GIT_STATUS_INDEX_DELETED;
    else if (!has_h && ie->has)
        *flags |= GIT_STATUS_INDEX_NEW;
    else if (has_h && !git_oid_equal(&head, &ie->id))
        *flags |= GIT_STATUS_INDEX_MODIFIED;
    if (!in_wt) {
        if (ie->has)
            *flags |= GIT_STATUS_WT_DELETED;
    } else if (!S_ISREG(sb.st_mode)) {
        *flags |= ie->has ? GIT_STATUS_WT_TYPECHANGE : GIT_STATUS_WT_NEW;
    } else if (!ie->has) {
        *flags |= GIT_STATUS_WT_NEW;
    } else if ((rc = git_odb_hashfile(&wt, abs, GIT_OBJECT_BLOB)) < 0) {
        return rc;
    } else if (!git_oid_equal(&wt, &ie->id) &&
               /* the bytes differ: through the filters (.gitattributes,
                * core.autocrlf), which load the whole index, only then */
               (rc = git_repository_hashfile(&wt, st->repo, abs, GIT_OBJECT_BLOB, NULL)) < 0) {
        return rc;
    } else if (!git_oid_equal(&wt, &ie->id) ||
               (ie->mode == GIT_FILEMODE_BLOB_EXECUTABLE) != ((sb.st_mode & S_IXUSR) != 0)) {
        *flags |= GIT_STATUS_WT_MODIFIED;
    }
    return 0;
}

/* The sheet's files in the work tree that differ from what git knows: edited,
 * deleted or staged by hand (names joined into out). Judged under the work-tree
 * lock, so that no writer is halfway through bringing them to the tip; an index
 * entry a racing writer has not brought to its new tip yet is not an edit. */
int vs_store_hand_edits(vs_store *st, const char *id, char *out, size_t len, vs_error *err)
{
    static const char *const files[] = {"sheet.json", "sheet.md"};
    const unsigned int in_wt = GIT_STATUS_WT_MODIFIED | GIT_STATUS_WT_DELETED | GIT_STATUS_WT_NEW |
                               GIT_STATUS_WT_TYPECHANGE;
    const unsigned int in_index = GIT_STATUS_INDEX_MODIFIED | GIT_STATUS_INDEX_DELETED |
                                  GIT_STATUS_INDEX_NEW | GIT_STATUS_INDEX_TYPECHANGE;
    index_entry ie[2];
    git_oid tip;
    int fd = -1, rc, have_tip;
    size_t f;
    *out = '\0';
    if ((rc = vs_store_worktree_lock(st, &fd, err)) < 0)
        return rc;
    if ((rc = index_entries(st, id, files, ie, err)) < 0)
        goto done;
    {
        char refname[VS_STORE_BRANCH_MAX + 16];
        vs_error e;
        vs_error_clear(&e);
        have_tip = vs_store_head_branch(st, refname, sizeof refname, &e) == 0 &&
                   vs_store_branch_tip(st->repo, refname, &tip, &e) == 1;
    }
    for (f = 0; f < 2; f++) {
        char rel[256];
        unsigned int flags = 0;
        snprintf(rel, sizeof rel, "sheets/%s/%s", id, files[f]);
        if (file_status(st, &ie[f], have_tip ? &tip : NULL, id, files[f], rel, &flags) < 0)
            continue; /* not in the tip, the index or the work tree */
        if ((flags & in_wt) || ((flags & in_index) && !index_is_recent(st, &ie[f], id, files[f])))
            snprintf(out + strlen(out), len - strlen(out), "%s%s", *out ? ", " : "", rel);
    }
done:
    flock(fd, LOCK_UN);
    close(fd);
    return rc;
}
