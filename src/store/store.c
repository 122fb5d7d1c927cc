#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <signal.h>
#include <sodium.h>

#include "sheet/sheet.h"
#include "util/clock.h"

/* How long writers keep retrying a busy branch or index before calling a lock
 * stale; long enough for a burst of concurrent writers, short enough for a cell. */
#define STORE_RETRY_MS_DEFAULT 8000
#define STORE_PUSH_ATTEMPTS 3

/* VRAMSHEET_RECORDS_WAIT_MS shortens the wait (tests of stale locks). */
static int retry_ms(void)
{
    const char *e = getenv("VRAMSHEET_RECORDS_WAIT_MS");
    long v = e ? strtol(e, NULL, 10) : 0;
    return v > 0 && v < 600000 ? (int)v : STORE_RETRY_MS_DEFAULT;
}
#define STORE_RETRY_MS retry_ms()

struct vs_store {
    char *path;
    git_repository *repo; /* NULL until the first commit creates it */
    char notice[1024];    /* what opening repaired, for the person ("" if nothing) */
};

/* --- errors --- */

static const char *git_msg(void)
{
    const git_error *e = git_error_last();
    return e && e->message ? e->message : "unknown libgit2 error";
}

/* Copies libgit2's thread-local message at once into err, after our context. */
static int gfail(vs_error *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int gfail(vs_error *err, int code, const char *fmt, ...)
{
    char ctx[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx, sizeof ctx, fmt, ap);
    va_end(ap);
    return vs_error_set(err, code, "%s: %s", ctx, git_msg());
}

static void hex(char out[VS_STORE_HEX], const git_oid *oid) { git_oid_tostr(out, VS_STORE_HEX, oid); }

/* A short random pause so that racing writers do not retry in lock step. The
 * draw is libsodium's (seeded from the system per process): rand() unseeded
 * gave every process the same sequence, so racing writers backed off alike. */
static void backoff(int attempt)
{
    int cap = attempt < 20 ? attempt + 1 : 20;
    long us = (long)randombytes_uniform((uint32_t)(cap * 500 + 1)) + 100;
    usleep((useconds_t)us);
}

static int sheet_blob_at(git_repository *repo, const git_oid *tree_id, const char *id,
                         const char *file, git_oid *out, int *has);

static int is_busy(int rc) { return rc == GIT_EMODIFIED || rc == GIT_ELOCKED || rc == GIT_EEXISTS; }

/* --- opening --- */

static int dir_is_empty(const char *path)
{
    DIR *d = opendir(path);
    struct dirent *e;
    int empty = 1;
    if (!d)
        return 0;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            empty = 0;
            break;
        }
    }
    closedir(d);
    return empty;
}

static int path_join_exists(const char *a, const char *b, struct stat *sb)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", a, b);
    return stat(p, sb) == 0;
}

/* Says why an existing folder cannot be opened as records, and what to do. */
static int explain_unopenable(const char *path, vs_error *err)
{
    struct stat sb;
    char gitmsg[512];
    snprintf(gitmsg, sizeof gitmsg, "%s", git_msg());
    if (path_join_exists(path, ".git", &sb) ||
        (path_join_exists(path, "HEAD", &sb) && path_join_exists(path, "objects", &sb))) {
        struct stat top;
        if (stat(path, &top) == 0 && (top.st_uid != geteuid() || sb.st_uid != geteuid()))
            return vs_error_set(err, VS_ERECORDS,
                                "records repository %s is owned by someone else (uid %u, you are "
                                "uid %u), so git refuses to use it; if you trust it, run `git "
                                "config --global --add safe.directory %s`, or choose your own "
                                "folder with `records PATH`",
                                path, (unsigned)(top.st_uid != geteuid() ? top.st_uid : sb.st_uid),
                                (unsigned)geteuid(), path);
        return vs_error_set(err, VS_ERECORDS,
                            "%s looks like a git repository but cannot be opened (%s); check it "
                            "with `git -C %s status`, or choose another folder with `records PATH`",
                            path, gitmsg, path);
    }
    return vs_error_set(err, VS_ERECORDS,
                        "%s is not a git repository and is not empty; records need a git "
                        "repository, an empty folder or a new path: choose one with `records "
                        "PATH` (or `git init %s` to make this folder one)",
                        path, path);
}

/* Another process may be creating the repository right now (its .git exists
 * before HEAD does): give it a moment before calling the folder unusable. */
static int open_patiently(git_repository **repo, const char *path)
{
    struct stat sb;
    int i;
    for (i = 0; i < 50; i++) {
        if (git_repository_open_ext(repo, path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) == 0)
            return 0;
        *repo = NULL;
        if (!path_join_exists(path, ".git", &sb) || sb.st_uid != geteuid())
            return -1;
        usleep(20000);
    }
    return -1;
}

static void repair_interrupted(vs_store *st);

int vs_store_open(vs_store **out, const char *path, vs_error *err)
{
    vs_store *st = NULL;
    struct stat sb;
    int rc = 0;
    *out = NULL;
    if (!path || !*path)
        return vs_error_set(err, VS_ERECORDS, "no records path: set one with `records PATH` or "
                                              "VRAMSHEET_RECORDS");
    if (sodium_init() < 0)
        return vs_error_set(err, VS_ERECORDS, "libsodium failed to initialise");
    if (git_libgit2_init() < 0)
        return gfail(err, VS_ERECORDS, "cannot start libgit2");
    /* libgit2 re-hashes every object it reads by default (git does not; fsck
     * does): that was 70% of `history` on a 40 KB sheets/ tree per commit. */
    git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
    st = calloc(1, sizeof *st);
    if (!st || !(st->path = strdup(path))) {
        rc = vs_error_set(err, VS_ENOMEM, "out of memory");
        goto done;
    }
    if (stat(path, &sb) != 0) {
        if (errno == ENOENT)
            goto done; /* created on the first commit */
        rc = vs_error_set(err, VS_ERECORDS, "cannot use records path %s: %s", path,
                          strerror(errno));
        goto done;
    }
    if (!S_ISDIR(sb.st_mode)) {
        rc = vs_error_set(err, VS_ERECORDS,
                          "records path %s is a file, not a folder: choose a folder with "
                          "`records PATH`",
                          path);
        goto done;
    }
    if (git_repository_open_ext(&st->repo, path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) == 0)
        goto done;
    st->repo = NULL;
    if (dir_is_empty(path) || open_patiently(&st->repo, path) == 0)
        goto done;
    rc = explain_unopenable(path, err);
done:
    if (rc < 0) {
        vs_store_free(st);
        return rc;
    }
    if (st->repo && !git_repository_is_bare(st->repo))
        repair_interrupted(st);
    *out = st;
    return 0;
}

void vs_store_free(vs_store *st)
{
    if (!st)
        return;
    git_repository_free(st->repo);
    free(st->path);
    free(st);
    git_libgit2_shutdown();
}

const char *vs_store_path(const vs_store *st) { return st->path; }
const char *vs_store_notice(const vs_store *st) { return st->notice; }
int vs_store_exists(const vs_store *st) { return st->repo != NULL; }
int vs_store_is_bare(const vs_store *st) { return st->repo && git_repository_is_bare(st->repo); }

static int ensure_repo(vs_store *st, int *created, vs_error *err)
{
    git_repository_init_options o;
    int rc;
    if (st->repo)
        return 0;
    git_repository_init_options_init(&o, GIT_REPOSITORY_INIT_OPTIONS_VERSION);
    o.flags = GIT_REPOSITORY_INIT_MKPATH;
    o.initial_head = "main";
    /* Two kernels may create the same folder at once: re-initialising an existing
     * repository is harmless, and opening afterwards gets whichever won. */
    rc = git_repository_init_ext(&st->repo, st->path, &o);
    if (rc < 0) {
        st->repo = NULL;
        if (open_patiently(&st->repo, st->path) == 0)
            return 0;
        return gfail(err, VS_ERECORDS,
                     "cannot create the records repository at %s (choose a writable folder with "
                     "`records PATH` or VRAMSHEET_RECORDS; the sheet stays open in the kernel)",
                     st->path);
    }
    if (created)
        *created = 1;
    return 0;
}

static int need_repo(vs_store *st, vs_error *err)
{
    if (st->repo)
        return 0;
    return vs_error_set(err, VS_ENOTFOUND, "no records yet in %s (nothing committed there)",
                        st->path);
}

/* The branch HEAD names, as a full reference name. */
static int head_branch(vs_store *st, char *refname, size_t len, vs_error *err)
{
    git_reference *head = NULL;
    const char *target;
    int rc = 0;
    if (git_reference_lookup(&head, st->repo, "HEAD") < 0)
        return gfail(err, VS_ERECORDS, "records %s: cannot read HEAD", st->path);
    if (git_reference_type(head) != GIT_REFERENCE_SYMBOLIC ||
        !(target = git_reference_symbolic_target(head)) || strncmp(target, "refs/heads/", 11)) {
        rc = vs_error_set(err, VS_ERECORDS,
                          "records %s: HEAD is detached; check out a branch there (`git -C %s "
                          "switch main`) so that commits have a branch to go to",
                          st->path, st->path);
        goto done;
    }
    if (strlen(target) >= len) {
        rc = vs_error_set(err, VS_ERECORDS, "records %s: branch name too long", st->path);
        goto done;
    }
    snprintf(refname, len, "%s", target);
done:
    git_reference_free(head);
    return rc;
}

int vs_store_branch(vs_store *st, char *out, size_t outlen, vs_error *err)
{
    char ref[VS_STORE_BRANCH_MAX + 16];
    int rc;
    if (!st->repo) {
        snprintf(out, outlen, "%s", "main");
        return 0;
    }
    if ((rc = head_branch(st, ref, sizeof ref, err)) < 0)
        return rc;
    snprintf(out, outlen, "%s", ref + 11);
    return 0;
}

/* The branch tip: 1 with *tip, 0 when the branch has no commit yet. */
static int branch_tip(git_repository *repo, const char *refname, git_oid *tip, vs_error *err)
{
    int rc = git_reference_name_to_id(tip, repo, refname);
    if (rc == 0)
        return 1;
    if (rc == GIT_ENOTFOUND)
        return 0;
    return gfail(err, VS_ERECORDS, "cannot read %s", refname);
}

/* Where libgit2 keeps the lock of a reference, to name it in a stale-lock report. */
static void lock_report(vs_store *st, const char *file, vs_error *err)
{
    char p[4096];
    struct stat sb;
    snprintf(p, sizeof p, "%s%s.lock", git_repository_path(st->repo), file);
    if (stat(p, &sb) == 0) {
        long age = (long)(time(NULL) - sb.st_mtime);
        vs_error_set(err, VS_ERECORDS,
                     "records %s are locked by %s (left %ld s ago, perhaps by a writer that "
                     "crashed); if no git or vramsheet process is writing there, remove that file "
                     "and run the command again; nothing was written",
                     st->path, p, age);
    } else {
        vs_error_set(err, VS_ERECORDS,
                     "records %s stayed busy for %.1f s (other writers, or a lock on %s); nothing was "
                     "written: run the command again",
                     st->path, STORE_RETRY_MS / 1000.0, file);
    }
}

static int check_writable(vs_store *st, vs_error *err)
{
    char p[4096];
    snprintf(p, sizeof p, "%sobjects", git_repository_path(st->repo));
    if (access(p, W_OK) != 0 || access(git_repository_path(st->repo), W_OK) != 0)
        return vs_error_set(err, VS_ERECORDS,
                            "records repository %s is read-only for you (%s); choose a writable "
                            "one with `records PATH`; the sheet stays open in the kernel",
                            st->path, strerror(errno));
    return 0;
}

static int make_signature(git_repository *repo, git_signature **sig)
{
    const char *n = getenv("GIT_COMMITTER_NAME"), *e = getenv("GIT_COMMITTER_EMAIL");
    if (!n)
        n = getenv("GIT_AUTHOR_NAME");
    if (!e)
        e = getenv("GIT_AUTHOR_EMAIL");
    if (n && *n && e && *e)
        return git_signature_now(sig, n, e);
    if (git_signature_default(sig, repo) == 0)
        return 0;
    return git_signature_now(sig, "vramsheet", "vramsheet@localhost");
}

/* --- the work tree --- */

static int write_file_atomic(const char *path, const void *data, size_t len)
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
static int worktree_lock(vs_store *st, int *fd_out, vs_error *err)
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

/* Brings the index and work-tree files of the given sheets to the branch tip
 * (not to a commit of ours: a later writer may already have moved it). */
static int sync_sheets(vs_store *st, const char *refname, const char *const *ids, size_t nids,
                       vs_error *err)
{
    static const char *const files[] = {"sheet.json", "sheet.md"};
    const char *wd = git_repository_workdir(st->repo);
    git_index *idx = NULL;
    git_commit *c = NULL;
    git_tree *tree = NULL;
    git_oid tip;
    int fd = -1, rc = 0, have;
    size_t i, f;
    int64_t deadline;
    if (!wd)
        return 0;
    if ((rc = worktree_lock(st, &fd, err)) < 0)
        return rc;
    if ((have = branch_tip(st->repo, refname, &tip, err)) < 0) {
        rc = have;
        goto done;
    }
    if (have && (git_commit_lookup(&c, st->repo, &tip) < 0 || git_commit_tree(&tree, c) < 0)) {
        rc = gfail(err, VS_ERECORDS, "cannot read the tip");
        goto done;
    }
    if (git_repository_index(&idx, st->repo) < 0 || git_index_read(idx, 1) < 0) {
        rc = gfail(err, VS_ERECORDS, "cannot read the index");
        goto done;
    }
    for (i = 0; i < nids; i++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%ssheets", wd);
        mkdir(dir, 0777);
        snprintf(dir, sizeof dir, "%ssheets/%s", wd, ids[i]);
        for (f = 0; f < 2; f++) {
            char rel[256], abs[4400];
            git_tree_entry *e = NULL;
            snprintf(rel, sizeof rel, "sheets/%s/%s", ids[i], files[f]);
            snprintf(abs, sizeof abs, "%s%s", wd, rel);
            if (tree && git_tree_entry_bypath(&e, tree, rel) == 0 &&
                git_tree_entry_type(e) == GIT_OBJECT_BLOB) {
                git_blob *b = NULL;
                int wrc;
                if (git_blob_lookup(&b, st->repo, git_tree_entry_id(e)) < 0) {
                    git_tree_entry_free(e);
                    rc = gfail(err, VS_ERECORDS, "cannot read %s", rel);
                    goto done;
                }
                mkdir(dir, 0777);
                wrc = write_file_atomic(abs, git_blob_rawcontent(b), (size_t)git_blob_rawsize(b));
                git_blob_free(b);
                git_tree_entry_free(e);
                if (wrc < 0) {
                    rc = vs_error_set(err, VS_ERECORDS, "cannot write %s: %s", abs, strerror(errno));
                    goto done;
                }
                if (git_index_add_bypath(idx, rel) < 0) {
                    rc = gfail(err, VS_ERECORDS, "cannot add %s to the index", rel);
                    goto done;
                }
            } else {
                git_tree_entry_free(e);
                if (unlink(abs) != 0 && errno != ENOENT) {
                    rc = vs_error_set(err, VS_ERECORDS, "cannot remove %s: %s", abs, strerror(errno));
                    goto done;
                }
                git_index_remove_bypath(idx, rel);
            }
        }
        rmdir(dir); /* only when empty */
    }
    deadline = vs_clock_mono_ms() + STORE_RETRY_MS / 4;
    while ((rc = git_index_write(idx)) == GIT_ELOCKED && vs_clock_mono_ms() < deadline)
        usleep(5000);
    if (rc == GIT_ELOCKED) {
        char p[4096];
        snprintf(p, sizeof p, "%sindex.lock", git_repository_path(st->repo));
        rc = vs_error_set(err, VS_ERECORDS,
                          "the index of %s is locked by %s (a git command running, or one that "
                          "crashed); if none is running, remove that file, then `git -C %s reset "
                          "-q` brings the index to the commit",
                          st->path, p, st->path);
    } else if (rc < 0) {
        rc = gfail(err, VS_ERECORDS, "cannot write the index");
    }
done:
    git_index_free(idx);
    git_tree_free(tree);
    git_commit_free(c);
    if (fd >= 0) {
        flock(fd, LOCK_UN);
        close(fd);
    }
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

static int journal_begin(vs_store *st, const char *id, vs_error *err)
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

static void journal_end(vs_store *st, const char *id)
{
    char p[4096];
    journal_path(st, id, (long)getpid(), p, sizeof p);
    unlink(p);
}

/* 1 when a journal entry of a live writer other than this process names id. */
static int journal_live(vs_store *st, const char *id)
{
    char p[4096];
    DIR *d;
    struct dirent *e;
    size_t n = strlen(id);
    int live = 0;
    snprintf(p, sizeof p, "%svramsheet-sync", git_repository_path(st->repo));
    if (!(d = opendir(p)))
        return 0;
    while (!live && (e = readdir(d))) {
        long pid;
        if (strncmp(e->d_name, id, n) || e->d_name[n] != '.')
            continue;
        pid = strtol(e->d_name + n + 1, NULL, 10);
        live = pid > 0 && pid != (long)getpid() && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
    }
    closedir(d);
    return live;
}

static int sync_sheets(vs_store *st, const char *refname, const char *const *ids, size_t nids,
                       vs_error *err);

static void repair_interrupted(vs_store *st)
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
        if (head_branch(st, refname, sizeof refname, &err) < 0 ||
            sync_sheets(st, refname, ids, 1, &err) < 0) {
            failed = 1;
            break;
        }
        snprintf(jp, sizeof jp, "%s/%s", p, e->d_name);
        unlink(jp);
        if (strlen(done_ids) + strlen(id) + 16 < sizeof done_ids)
            snprintf(done_ids + strlen(done_ids), sizeof done_ids - strlen(done_ids), "%ssheets/%s/",
                     *done_ids ? ", " : "", id);
    }
    closedir(d);
    if (failed)
        snprintf(st->notice, sizeof st->notice,
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

/* The sheet's files in the work tree that differ from what git knows: edited,
 * deleted or staged by hand (names joined into out). A sheet another live
 * writer is bringing to the tip right now is not judged on its index. */
static int hand_edits(vs_store *st, const char *id, char *out, size_t len, vs_error *err)
{
    static const char *const files[] = {"sheet.json", "sheet.md"};
    int live = journal_live(st, id), fd = -1, rc;
    size_t f;
    *out = '\0';
    if ((rc = worktree_lock(st, &fd, err)) < 0)
        return rc;
    for (f = 0; f < 2; f++) {
        char rel[256];
        unsigned int flags = 0;
        unsigned int bad = GIT_STATUS_WT_MODIFIED | GIT_STATUS_WT_DELETED | GIT_STATUS_WT_NEW |
                           GIT_STATUS_WT_TYPECHANGE;
        snprintf(rel, sizeof rel, "sheets/%s/%s", id, files[f]);
        if (!live)
            bad |= GIT_STATUS_INDEX_MODIFIED | GIT_STATUS_INDEX_DELETED | GIT_STATUS_INDEX_NEW |
                   GIT_STATUS_INDEX_TYPECHANGE;
        if (git_status_file(&flags, st->repo, rel) < 0)
            continue; /* not in the tip, the index or the work tree */
        if (flags & bad)
            snprintf(out + strlen(out), len - strlen(out), "%s%s", *out ? ", " : "", rel);
    }
    flock(fd, LOCK_UN);
    close(fd);
    return 0;
}

/* 1 with *at when sheets/<id>/sheet.json was blob at some commit of the branch
 * from tip, 0 when never; libgit2 errors negative. */
static int sheet_held(git_repository *repo, const git_oid *tip, const char *id,
                      const git_oid *blob, git_oid *at)
{
    git_revwalk *walk = NULL;
    git_oid oid;
    int rc, found = 0;
    if ((rc = git_revwalk_new(&walk, repo)) < 0 || (rc = git_revwalk_push(walk, tip)) < 0)
        goto done;
    git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME);
    /* The commit that wrote that state: the oldest of the newest run of
     * commits holding it (later commits of other sheets hold it too). */
    while ((rc = git_revwalk_next(&oid, walk)) == 0) {
        git_commit *c = NULL;
        git_oid cur;
        int has = 0;
        if ((rc = git_commit_lookup(&c, repo, &oid)) < 0)
            goto done;
        rc = sheet_blob_at(repo, git_commit_tree_id(c), id, "sheet.json", &cur, &has);
        git_commit_free(c);
        if (rc < 0)
            goto done;
        if (has && git_oid_equal(&cur, blob)) {
            git_oid_cpy(at, &oid);
            found = 1;
        } else if (found) {
            break;
        }
    }
    rc = rc == GIT_ITEROVER ? 0 : rc;
done:
    git_revwalk_free(walk);
    return rc < 0 ? rc : found;
}

/* --- sheets changed on both sides --- */

/* The sheets/ tree of a commit, or *out NULL when it has none. */
static int sheets_tree(git_repository *repo, const git_oid *commit_id, git_tree **out)
{
    git_commit *c = NULL;
    git_tree *t = NULL;
    const git_tree_entry *e;
    int rc;
    *out = NULL;
    if ((rc = git_commit_lookup(&c, repo, commit_id)) < 0 || (rc = git_commit_tree(&t, c)) < 0)
        goto done;
    e = git_tree_entry_byname(t, "sheets");
    if (e && git_tree_entry_type(e) == GIT_OBJECT_TREE)
        rc = git_tree_lookup(out, repo, git_tree_entry_id(e));
done:
    git_tree_free(t);
    git_commit_free(c);
    return rc;
}

static const git_oid *folder_in(const git_tree *sheets, const char *name)
{
    const git_tree_entry *e = sheets ? git_tree_entry_byname(sheets, name) : NULL;
    return e && git_tree_entry_type(e) == GIT_OBJECT_TREE ? git_tree_entry_id(e) : NULL;
}

static int same_folder(const git_oid *a, const git_oid *b)
{
    return a == b || (a && b && git_oid_equal(a, b));
}

/* A sheet is never merged: the ids of the sheets whose folder changed on both
 * sides since their merge base, to different contents, joined into names (as
 * "sheets/<id>/") and, when ids is not NULL, listed there (at most
 * STORE_DIVERGED_MAX, *nids of them). Returns how many, or a libgit2 error. */
#define STORE_DIVERGED_MAX 32

static int diverged_sheets(git_repository *repo, const git_oid *ours, const git_oid *theirs,
                           char *names, size_t len, char (*ids)[VS_SHEET_ID_MAX], size_t *nids)
{
    git_oid base;
    git_tree *tb = NULL, *to = NULL, *tt = NULL;
    const git_tree *sides[2];
    int rc, n = 0, s;
    size_t i;
    *names = '\0';
    if (nids)
        *nids = 0;
    rc = git_merge_base(&base, repo, ours, theirs);
    if (rc < 0 && rc != GIT_ENOTFOUND)
        return rc;
    if ((rc == 0 && (rc = sheets_tree(repo, &base, &tb)) < 0) ||
        (rc = sheets_tree(repo, ours, &to)) < 0 || (rc = sheets_tree(repo, theirs, &tt)) < 0)
        goto done;
    sides[0] = to;
    sides[1] = tt;
    for (s = 0; s < 2; s++) {
        size_t cnt = sides[s] ? git_tree_entrycount(sides[s]) : 0;
        for (i = 0; i < cnt; i++) {
            const char *name = git_tree_entry_name(git_tree_entry_byindex(sides[s], i));
            const git_oid *b = folder_in(tb, name), *o = folder_in(to, name), *t = folder_in(tt, name);
            if (s == 1 && o)
                continue; /* seen from our side */
            if (same_folder(o, b) || same_folder(t, b) || same_folder(o, t))
                continue;
            if (ids && *nids < STORE_DIVERGED_MAX && strlen(name) < VS_SHEET_ID_MAX)
                snprintf(ids[(*nids)++], VS_SHEET_ID_MAX, "%s", name);
            n++;
            if (strlen(names) + strlen(name) + 12 < len)
                snprintf(names + strlen(names), len - strlen(names), "%ssheets/%s/",
                         *names ? ", " : "", name);
        }
    }
    /* a sheet removed on both sides differently cannot be: removal is one content */
    rc = n;
done:
    git_tree_free(tb);
    git_tree_free(to);
    git_tree_free(tt);
    return rc;
}

/* When a pull or push is refused because sheets changed on both sides, the
 * other side's tip is remembered in <gitdir>/vramsheet-theirs: its id on the
 * first line, then one line per diverged sheet the person has already chosen a
 * version of. `commit ... replace` of a diverged sheet is that choice; the
 * commit that makes the last choice joins theirs as a second parent, so that
 * both histories meet with the chosen versions and a push goes through. */
typedef struct theirs_note {
    int has;
    git_oid theirs;
    char chosen[STORE_DIVERGED_MAX][VS_SHEET_ID_MAX];
    size_t n;
} theirs_note;

static void note_path(vs_store *st, char *p, size_t n)
{
    snprintf(p, n, "%svramsheet-theirs", git_repository_path(st->repo));
}

static void note_write(vs_store *st, const theirs_note *tn)
{
    char p[4096], h[VS_STORE_HEX], *text = NULL;
    size_t i, len;
    FILE *f;
    hex(h, &tn->theirs);
    note_path(st, p, sizeof p);
    if (!(f = open_memstream(&text, &len)))
        return;
    fprintf(f, "%s\n", h);
    for (i = 0; i < tn->n; i++)
        fprintf(f, "%s\n", tn->chosen[i]);
    if (fclose(f) == 0)
        write_file_atomic(p, text, len);
    free(text);
}

static void note_read(vs_store *st, theirs_note *tn)
{
    char p[4096], line[128];
    FILE *f;
    memset(tn, 0, sizeof *tn);
    note_path(st, p, sizeof p);
    if (!(f = fopen(p, "r")))
        return;
    if (fgets(line, sizeof line, f) && strlen(line) > 40 && (line[40] = '\0', 1) &&
        git_oid_fromstr(&tn->theirs, line) == 0) {
        tn->has = 1;
        while (tn->n < STORE_DIVERGED_MAX && fgets(line, sizeof line, f)) {
            line[strcspn(line, "\n")] = '\0';
            if (vs_sheet_id_valid(line))
                snprintf(tn->chosen[tn->n++], VS_SHEET_ID_MAX, "%s", line);
        }
    }
    fclose(f);
}

static void note_remove(vs_store *st)
{
    char p[4096];
    note_path(st, p, sizeof p);
    unlink(p);
}

static int note_has(const theirs_note *tn, const char *id)
{
    size_t i;
    for (i = 0; i < tn->n; i++)
        if (!strcmp(tn->chosen[i], id))
            return 1;
    return 0;
}

/* The tree joining ours_tree (the tip with this commit's files) and theirs:
 * each sheet changed on one side comes from that side, and each chosen sheet
 * from ours, whole. */
static int joined_tree(git_repository *repo, const git_oid *ours_tree, const git_oid *tip,
                       const git_oid *theirs, const theirs_note *tn, git_oid *out)
{
    git_oid base;
    git_commit *bc = NULL, *tc = NULL;
    git_tree *bt = NULL, *ot = NULL, *tt = NULL, *folder = NULL;
    git_index *idx = NULL;
    git_merge_options mo;
    size_t i, k;
    int rc, stage;
    git_merge_options_init(&mo, GIT_MERGE_OPTIONS_VERSION);
    mo.file_favor = GIT_MERGE_FILE_FAVOR_OURS;
    if ((rc = git_merge_base(&base, repo, tip, theirs)) < 0 ||
        (rc = git_commit_lookup(&bc, repo, &base)) < 0 || (rc = git_commit_tree(&bt, bc)) < 0 ||
        (rc = git_commit_lookup(&tc, repo, theirs)) < 0 || (rc = git_commit_tree(&tt, tc)) < 0 ||
        (rc = git_tree_lookup(&ot, repo, ours_tree)) < 0 ||
        (rc = git_merge_trees(&idx, repo, bt, ot, tt, &mo)) < 0)
        goto done;
    for (i = 0; i < tn->n; i++) {
        char dir[VS_SHEET_ID_MAX + 16];
        git_tree_entry *e = NULL;
        snprintf(dir, sizeof dir, "sheets/%s", tn->chosen[i]);
        for (stage = 0; stage <= 3; stage++)
            git_index_remove_directory(idx, dir, stage);
        if (git_tree_entry_bypath(&e, ot, dir) != 0)
            continue; /* chosen as removed */
        rc = git_tree_lookup(&folder, repo, git_tree_entry_id(e));
        git_tree_entry_free(e);
        if (rc < 0)
            goto done;
        for (k = 0; k < git_tree_entrycount(folder); k++) {
            const git_tree_entry *fe = git_tree_entry_byindex(folder, k);
            git_index_entry ie;
            char path[VS_SHEET_ID_MAX + 300];
            if (git_tree_entry_type(fe) != GIT_OBJECT_BLOB)
                continue;
            snprintf(path, sizeof path, "%s/%s", dir, git_tree_entry_name(fe));
            memset(&ie, 0, sizeof ie);
            ie.mode = git_tree_entry_filemode(fe);
            git_oid_cpy(&ie.id, git_tree_entry_id(fe));
            ie.path = path;
            if ((rc = git_index_add(idx, &ie)) < 0)
                goto done;
        }
        git_tree_free(folder);
        folder = NULL;
    }
    if (git_index_has_conflicts(idx)) {
        git_error_set_str(GIT_ERROR_MERGE, "files outside the chosen sheets conflict");
        rc = GIT_EMERGECONFLICT;
        goto done;
    }
    rc = git_index_write_tree_to(out, idx, repo);
done:
    git_index_free(idx);
    git_tree_free(folder);
    git_tree_free(bt);
    git_tree_free(ot);
    git_tree_free(tt);
    git_commit_free(bc);
    git_commit_free(tc);
    return rc;
}

/* For a replace commit of sheet id while a divergence is remembered: *join
 * when this choice is the last one needed (the commit joins theirs); *chosen
 * when id is one of the diverged sheets. Drops a note that no longer applies. */
static int divergence_choice(vs_store *st, const git_oid *tip, const char *id, theirs_note *tn,
                             int *join, int *chosen)
{
    char names[600], ids[STORE_DIVERGED_MAX][VS_SHEET_ID_MAX];
    size_t nids = 0, i;
    int nd;
    git_commit *tc = NULL;
    int missing;
    *join = *chosen = 0;
    note_read(st, tn);
    if (!tn->has)
        return 0;
    missing = git_commit_lookup(&tc, st->repo, &tn->theirs) < 0;
    git_commit_free(tc);
    if (missing || git_oid_equal(tip, &tn->theirs) ||
        git_graph_descendant_of(st->repo, tip, &tn->theirs) == 1) {
        note_remove(st);
        tn->has = 0;
        return 0;
    }
    if ((nd = diverged_sheets(st->repo, tip, &tn->theirs, names, sizeof names, ids, &nids)) < 0)
        return nd;
    for (i = 0; i < nids; i++)
        if (!strcmp(ids[i], id))
            *chosen = 1;
    if (!*chosen)
        return 0;
    if (!note_has(tn, id) && tn->n < STORE_DIVERGED_MAX)
        snprintf(tn->chosen[tn->n++], VS_SHEET_ID_MAX, "%s", id);
    *join = 1;
    for (i = 0; i < nids; i++)
        if (!note_has(tn, ids[i]))
            *join = 0;
    return 0;
}

static int checkout_moved(vs_store *st, const git_oid *old_commit, const git_oid *new_commit,
                          vs_error *err);

/* --- commit --- */

int vs_store_commit(vs_store *st, const vs_store_write *w, vs_store_commit_info *info,
                    vs_error *err)
{
    vs_store_commit_info tmp_info;
    char refname[VS_STORE_BRANCH_MAX + 16], path_json[128], path_md[128], logmsg[300];
    char *msg = NULL;
    git_signature *sig = NULL;
    git_oid blob_json, blob_md, expected, tip, tree_oid, commit_oid;
    git_tree_update upd[2];
    size_t nupd = 1, mlen;
    int rc = 0, attempt = 0, created = 0, journaled = 0, keep_journal = 0, joined = 0;
    int64_t deadline;
    theirs_note note;
    git_oid before;
    int had_before = 0;

    if (!w || !w->sheet_id || !vs_sheet_id_valid(w->sheet_id))
        return vs_error_set(err, VS_EVALUE, "'%s' is not a sheet id (a slug: a-z, 0-9, '-')",
                            w && w->sheet_id ? w->sheet_id : "");
    if (!w->json || !w->message)
        return vs_error_set(err, VS_EVALUE, "nothing to commit");
    /* Parsed before info is cleared: the caller may pass info->blob as expected_blob. */
    if (w->expected_blob && git_oid_fromstr(&expected, w->expected_blob) < 0)
        return vs_error_set(err, VS_EVALUE, "'%s' is not a blob id", w->expected_blob);
    if (!info)
        info = &tmp_info;
    memset(info, 0, sizeof *info);
    if ((rc = ensure_repo(st, &created, err)) < 0)
        return rc;
    info->created = created;
    if ((rc = check_writable(st, err)) < 0)
        return rc;
    if ((rc = head_branch(st, refname, sizeof refname, err)) < 0)
        return rc;
    snprintf(info->branch, sizeof info->branch, "%.255s", refname + 11);
    snprintf(path_json, sizeof path_json, "sheets/%s/sheet.json", w->sheet_id);
    snprintf(path_md, sizeof path_md, "sheets/%s/sheet.md", w->sheet_id);
    if (!git_repository_is_bare(st->repo)) {
        char edited[600];
        if ((rc = hand_edits(st, w->sheet_id, edited, sizeof edited, err)) < 0)
            return rc;
        if (*edited)
            return vs_error_set(err, VS_ERECORDS,
                                "the records work tree %s has changes of its own to %s (edited, "
                                "deleted or staged by hand, see `git -C %s status`); a commit "
                                "would write over them, so nothing was written. Keep them with "
                                "`git -C %s commit`, or drop them with `git -C %s checkout HEAD -- "
                                "sheets/%s/`, then commit again",
                                st->path, edited, st->path, st->path, st->path, w->sheet_id);
        if ((rc = journal_begin(st, w->sheet_id, err)) < 0)
            return rc;
        journaled = 1;
    }

    mlen = strlen(w->message);
    if (!(msg = malloc(mlen + 2))) {
        rc = vs_error_set(err, VS_ENOMEM, "out of memory");
        goto done;
    }
    memcpy(msg, w->message, mlen + 1);
    if (mlen == 0 || msg[mlen - 1] != '\n') {
        msg[mlen] = '\n';
        msg[mlen + 1] = '\0';
    }
    snprintf(logmsg, sizeof logmsg, "commit: %.*s", (int)strcspn(msg, "\n") > 200 ? 200 : (int)strcspn(msg, "\n"), msg);

    if (make_signature(st->repo, &sig) < 0) {
        rc = gfail(err, VS_ERECORDS, "cannot make a commit signature");
        goto done;
    }
    if (git_blob_create_from_buffer(&blob_json, st->repo, w->json, w->json_len) < 0 ||
        (w->md && git_blob_create_from_buffer(&blob_md, st->repo, w->md, w->md_len) < 0)) {
        rc = gfail(err, VS_ERECORDS, "cannot write to records %s", st->path);
        goto done;
    }
    memset(upd, 0, sizeof upd);
    upd[0].action = GIT_TREE_UPDATE_UPSERT;
    git_oid_cpy(&upd[0].id, &blob_json);
    upd[0].filemode = GIT_FILEMODE_BLOB;
    upd[0].path = path_json;
    if (w->md) {
        upd[1].action = GIT_TREE_UPDATE_UPSERT;
        git_oid_cpy(&upd[1].id, &blob_md);
        upd[1].filemode = GIT_FILEMODE_BLOB;
        upd[1].path = path_md;
        nupd = 2;
    }

    deadline = vs_clock_mono_ms() + STORE_RETRY_MS;
    for (;;) {
        git_commit *parent = NULL, *their_commit = NULL;
        git_tree *ptree = NULL, *tree = NULL;
        git_reference *ref = NULL;
        const git_commit *parents[2];
        git_oid cur;
        int have, crc, has_cur = 0, join = 0, chosen = 0;

        attempt++;
        if ((have = branch_tip(st->repo, refname, &tip, err)) < 0) {
            rc = have;
            goto done;
        }
        if (have && (git_commit_lookup(&parent, st->repo, &tip) < 0 ||
                     git_commit_tree(&ptree, parent) < 0)) {
            git_commit_free(parent);
            rc = gfail(err, VS_ERECORDS, "cannot read the tip of %s", refname);
            goto done;
        }
        if (ptree &&
            sheet_blob_at(st->repo, git_tree_id(ptree), w->sheet_id, "sheet.json", &cur, &has_cur) < 0) {
            git_tree_free(ptree);
            git_commit_free(parent);
            rc = gfail(err, VS_ERECORDS, "cannot read the tip of %s", refname);
            goto done;
        }
        if (have && w->replace &&
            (crc = divergence_choice(st, &tip, w->sheet_id, &note, &join, &chosen)) < 0) {
            git_tree_free(ptree);
            git_commit_free(parent);
            rc = gfail(err, VS_ERECORDS, "cannot compare the sheets here and in the remote");
            goto done;
        }
        /* The records already hold exactly this sheet (a notebook run again from
         * the top): nothing can be lost, and an empty commit would only be noise.
         * Unless it is the version chosen over theirs: that choice is recorded. */
        if (has_cur && git_oid_equal(&cur, &blob_json) && !chosen) {
            hex(info->commit, &tip);
            hex(info->blob, &cur);
            info->unchanged = 1;
            info->attempts = attempt;
            git_tree_free(ptree);
            git_commit_free(parent);
            goto done;
        }
        if (!w->replace) {
            int stale = w->expected_blob ? (!has_cur || !git_oid_equal(&cur, &expected)) : has_cur;
            git_oid held_at;
            int held = 0;
            /* A state of this sheet the records already hold at an older
             * revision (a notebook run again from the top, in a kernel that did
             * not load it): restating it writes nothing, and the caller goes on
             * from that revision (a later change then meets the newer ones as a
             * concurrent change, as it should). */
            if (stale && (held = sheet_held(st->repo, &tip, w->sheet_id, &blob_json, &held_at)) < 0) {
                git_tree_free(ptree);
                git_commit_free(parent);
                rc = gfail(err, VS_ERECORDS, "cannot read the history of %s", refname);
                goto done;
            }
            if (held) {
                hex(info->commit, &held_at);
                hex(info->blob, &blob_json);
                info->unchanged = 1;
                info->held_earlier = 1;
                info->attempts = attempt;
                git_tree_free(ptree);
                git_commit_free(parent);
                goto done;
            }
            if (stale) {
                hex(info->commit, &tip);
                if (has_cur)
                    hex(info->blob, &cur);
                if (w->expected_blob && has_cur)
                    rc = vs_error_set(err, VS_ECONFLICT,
                                      "sheet '%s' changed in the records (%s, now at %.12s) since "
                                      "this version was loaded; nothing was written. Compare the "
                                      "two, then record yours on top with `commit \"...\" "
                                      "replace` (theirs stays in history) or start from theirs",
                                      w->sheet_id, st->path, info->commit);
                else if (w->expected_blob)
                    rc = vs_error_set(err, VS_ECONFLICT,
                                      "sheet '%s' is no longer in the records %s (tip %.12s), "
                                      "though this version was loaded from there; nothing was "
                                      "written. Record it again with `commit \"...\" replace`",
                                      w->sheet_id, st->path, info->commit);
                else
                    rc = vs_error_set(err, VS_ECONFLICT,
                                      "sheet '%s' already has a record in %s (at %.12s) that this "
                                      "session did not load; nothing was written. Load it with "
                                      "`show %s` (in a session where it is not open), use another "
                                      "title, or record this version on top with `commit \"...\" "
                                      "replace` (the other stays in history)",
                                      w->sheet_id, st->path, info->commit, w->sheet_id);
                git_tree_free(ptree);
                git_commit_free(parent);
                goto done;
            }
        }
        had_before = have;
        if (have)
            git_oid_cpy(&before, &tip);
        crc = git_tree_create_updated(&tree_oid, st->repo, ptree, nupd, upd);
        if (crc == 0 && join)
            crc = joined_tree(st->repo, &tree_oid, &tip, &note.theirs, &note, &tree_oid);
        if (crc == 0 && join)
            crc = git_commit_lookup(&their_commit, st->repo, &note.theirs);
        if (crc == 0)
            crc = git_tree_lookup(&tree, st->repo, &tree_oid);
        if (crc == 0) {
            parents[0] = parent;
            parents[1] = their_commit;
            crc = git_commit_create(&commit_oid, st->repo, NULL, sig, sig, NULL, msg, tree,
                                    have ? (join ? 2 : 1) : 0, parents);
        }
        if (crc < 0) {
            rc = gfail(err, VS_ERECORDS, "cannot write the commit to %s", st->path);
        } else {
            crc = git_reference_create_matching(&ref, st->repo, refname, &commit_oid, have ? 1 : 0,
                                                have ? &tip : NULL, logmsg);
            git_reference_free(ref);
            if (crc < 0 && !is_busy(crc))
                rc = gfail(err, VS_ERECORDS, "cannot move %s in %s", refname, st->path);
        }
        git_tree_free(tree);
        git_tree_free(ptree);
        git_commit_free(parent);
        git_commit_free(their_commit);
        if (rc < 0)
            goto done;
        if (crc == 0) {
            joined = join;
            if (join)
                hex(info->joined, &note.theirs);
            if (join)
                note_remove(st);
            else if (chosen)
                note_write(st, &note);
            break;
        }
        /* Somebody moved the branch (or holds its lock): rebuild from the new tip. */
        if (vs_clock_mono_ms() > deadline) {
            lock_report(st, refname, err);
            rc = VS_ERECORDS;
            goto done;
        }
        backoff(attempt);
    }
    hex(info->commit, &commit_oid);
    hex(info->blob, &blob_json);
    info->attempts = attempt;
    if (!git_repository_is_bare(st->repo)) {
        vs_error werr;
        const char *ids[1];
        ids[0] = w->sheet_id;
        vs_error_clear(&werr);
        /* joined: theirs' other sheets arrive too */
        if ((joined && checkout_moved(st, had_before ? &before : NULL, &commit_oid, &werr) < 0) ||
            sync_sheets(st, refname, ids, 1, &werr) < 0) {
            snprintf(info->warning, sizeof info->warning,
                     "committed, but the work tree of %.80s was not updated: %.360s", st->path,
                     werr.message);
            keep_journal = 1; /* the next open tries again */
        }
    }
done:
    if (journaled && !keep_journal)
        journal_end(st, w->sheet_id);
    git_signature_free(sig);
    free(msg);
    return rc;
}

/* --- reading --- */

/* The tree id of sheets/<id> in a commit (the folder: both files), or 0 when absent. */
typedef struct folder_cache {
    git_oid commit;
    git_oid folder;
    int has;
    int valid;
} folder_cache;

/* Finds name in a raw tree object ("<mode> <name>\0<20-byte id>" entries) without
 * parsing the whole tree: the sheets/ tree has one entry per sheet, and history
 * reads one per commit. Returns 1 with *out (and *is_tree), 0 when absent. */
static int raw_tree_find(const unsigned char *data, size_t len, const char *name, git_oid *out,
                         int *is_tree)
{
    const unsigned char *p = data, *end = data + len;
    size_t nlen = strlen(name);
    while (p < end) {
        const unsigned char *sp = memchr(p, ' ', (size_t)(end - p)), *nul;
        if (!sp)
            return 0;
        nul = memchr(sp + 1, '\0', (size_t)(end - sp - 1));
        if (!nul || end - nul < 21)
            return 0;
        if ((size_t)(nul - sp - 1) == nlen && !memcmp(sp + 1, name, nlen)) {
            git_oid_fromraw(out, nul + 1);
            if (is_tree)
                *is_tree = sp - p == 5 && !memcmp(p, "40000", 5);
            return 1;
        }
        p = nul + 21;
    }
    return 0;
}

/* The id of entry name in tree tree_id, read raw from the object database. */
static int odb_tree_entry(git_odb *odb, const git_oid *tree_id, const char *name, git_oid *out,
                          int *found, int *is_tree)
{
    git_odb_object *o = NULL;
    int rc;
    *found = 0;
    if ((rc = git_odb_read(&o, odb, tree_id)) < 0)
        return rc;
    if (git_odb_object_type(o) == GIT_OBJECT_TREE)
        *found = raw_tree_find(git_odb_object_data(o), git_odb_object_size(o), name, out, is_tree);
    git_odb_object_free(o);
    return 0;
}

static int folder_of(git_repository *repo, const git_oid *commit_id, const char *id,
                     git_oid *folder, int *has)
{
    git_commit *c = NULL;
    git_odb *odb = NULL;
    git_oid sheets;
    int rc = 0, found, is_tree = 0;
    *has = 0;
    if ((rc = git_commit_lookup(&c, repo, commit_id)) < 0 || (rc = git_repository_odb(&odb, repo)) < 0)
        goto done;
    if ((rc = odb_tree_entry(odb, git_commit_tree_id(c), "sheets", &sheets, &found, &is_tree)) < 0 ||
        !found || !is_tree)
        goto done;
    if ((rc = odb_tree_entry(odb, &sheets, id, folder, &found, &is_tree)) < 0)
        goto done;
    *has = found && is_tree;
done:
    git_odb_free(odb);
    git_commit_free(c);
    return rc;
}

/* The blob id of sheets/<id>/<file> in a commit's tree, read raw. */
static int sheet_blob_at(git_repository *repo, const git_oid *tree_id, const char *id,
                         const char *file, git_oid *out, int *has)
{
    git_odb *odb = NULL;
    git_oid sheets, folder;
    int rc, found, is_tree = 0;
    *has = 0;
    if ((rc = git_repository_odb(&odb, repo)) < 0)
        return rc;
    if ((rc = odb_tree_entry(odb, tree_id, "sheets", &sheets, &found, &is_tree)) < 0 || !found ||
        !is_tree)
        goto done;
    if ((rc = odb_tree_entry(odb, &sheets, id, &folder, &found, &is_tree)) < 0 || !found ||
        !is_tree)
        goto done;
    if ((rc = odb_tree_entry(odb, &folder, file, out, &found, &is_tree)) < 0)
        goto done;
    *has = found && !is_tree;
done:
    git_odb_free(odb);
    return rc;
}

static int folder_cached(git_repository *repo, folder_cache *fc, const git_oid *cid,
                         const char *id, git_oid *folder, int *has)
{
    int rc;
    if (fc->valid && git_oid_equal(&fc->commit, cid)) {
        git_oid_cpy(folder, &fc->folder);
        *has = fc->has;
        return 0;
    }
    if ((rc = folder_of(repo, cid, id, folder, has)) < 0)
        return rc;
    git_oid_cpy(&fc->commit, cid);
    git_oid_cpy(&fc->folder, folder);
    fc->has = *has;
    fc->valid = 1;
    return 0;
}

static int history_push(vs_store_revisions *out, size_t *cap, git_commit *c, const git_oid *oid)
{
    vs_store_revision *r;
    const char *m = git_commit_message(c);
    size_t len = m ? strlen(m) : 0;
    if (out->n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 16;
        vs_store_revision *nr = realloc(out->revs, ncap * sizeof *nr);
        if (!nr)
            return VS_ENOMEM;
        out->revs = nr;
        *cap = ncap;
    }
    r = &out->revs[out->n];
    while (len && (m[len - 1] == '\n' || m[len - 1] == ' '))
        len--;
    if (!(r->message = malloc(len + 1)))
        return VS_ENOMEM;
    memcpy(r->message, m ? m : "", len);
    r->message[len] = '\0';
    hex(r->commit, oid);
    r->time = (int64_t)git_commit_time(c);
    r->offset = git_commit_time_offset(c);
    out->n++;
    return 0;
}

int vs_store_history(vs_store *st, const char *sheet_id, size_t limit, vs_store_revisions *out,
                     vs_error *err)
{
    char refname[VS_STORE_BRANCH_MAX + 16];
    git_revwalk *walk = NULL;
    git_oid tip, oid;
    folder_cache fc;
    size_t cap = 0;
    int rc = 0, have;

    memset(out, 0, sizeof *out);
    memset(&fc, 0, sizeof fc);
    if (sheet_id && !vs_sheet_id_valid(sheet_id))
        return vs_error_set(err, VS_EVALUE, "'%s' is not a sheet id", sheet_id);
    if (!st->repo)
        return 0;
    if ((rc = head_branch(st, refname, sizeof refname, err)) < 0)
        return rc;
    if ((have = branch_tip(st->repo, refname, &tip, err)) <= 0)
        return have;
    if (git_revwalk_new(&walk, st->repo) < 0 || git_revwalk_push(walk, &tip) < 0) {
        rc = gfail(err, VS_ERECORDS, "cannot walk the history of %s", st->path);
        goto done;
    }
    git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME);
    while ((rc = git_revwalk_next(&oid, walk)) == 0) {
        git_commit *c = NULL;
        int touched = 1;
        if (git_commit_lookup(&c, st->repo, &oid) < 0) {
            rc = gfail(err, VS_ERECORDS, "cannot read commit");
            goto done;
        }
        if (sheet_id) {
            git_oid mine, theirs;
            int has_mine, has_theirs;
            unsigned int p, np = git_commit_parentcount(c);
            if ((rc = folder_cached(st->repo, &fc, &oid, sheet_id, &mine, &has_mine)) < 0) {
                git_commit_free(c);
                rc = gfail(err, VS_ERECORDS, "cannot read a tree");
                goto done;
            }
            touched = np == 0 ? has_mine : 1;
            /* Like git log's simplification: a commit that leaves the folder as one of
             * its parents had it did not change the sheet. */
            for (p = 0; p < np && touched; p++) {
                if ((rc = folder_cached(st->repo, &fc, git_commit_parent_id(c, p), sheet_id,
                                        &theirs, &has_theirs)) < 0) {
                    git_commit_free(c);
                    rc = gfail(err, VS_ERECORDS, "cannot read a tree");
                    goto done;
                }
                if (has_mine == has_theirs && (!has_mine || git_oid_equal(&mine, &theirs)))
                    touched = 0;
            }
        }
        if (touched && (rc = history_push(out, &cap, c, &oid)) < 0) {
            git_commit_free(c);
            rc = vs_error_set(err, VS_ENOMEM, "out of memory");
            goto done;
        }
        git_commit_free(c);
        if (limit && out->n >= limit)
            break;
    }
    if (rc == GIT_ITEROVER)
        rc = 0;
    else if (rc < 0 && rc != VS_ENOMEM)
        rc = gfail(err, VS_ERECORDS, "cannot walk the history of %s", st->path);
done:
    git_revwalk_free(walk);
    if (rc < 0)
        vs_store_revisions_clear(out);
    return rc < 0 ? rc : 0;
}

void vs_store_revisions_clear(vs_store_revisions *h)
{
    size_t i;
    if (!h)
        return;
    for (i = 0; i < h->n; i++)
        free(h->revs[i].message);
    free(h->revs);
    h->revs = NULL;
    h->n = 0;
}

/* The commit a revision names (rev NULL: the branch tip). */
static int resolve_commit(vs_store *st, const char *rev, git_commit **out, vs_error *err)
{
    git_object *obj = NULL, *peeled = NULL;
    int rc;
    *out = NULL;
    if ((rc = need_repo(st, err)) < 0)
        return rc;
    if (!rev) {
        char refname[VS_STORE_BRANCH_MAX + 16];
        git_oid tip;
        int have;
        if ((rc = head_branch(st, refname, sizeof refname, err)) < 0)
            return rc;
        if ((have = branch_tip(st->repo, refname, &tip, err)) < 0)
            return have;
        if (!have)
            return vs_error_set(err, VS_ENOTFOUND, "no records yet in %s (branch %s has no commit)",
                                st->path, refname + 11);
        if (git_commit_lookup(out, st->repo, &tip) < 0)
            return gfail(err, VS_ERECORDS, "cannot read the tip");
        return 0;
    }
    rc = git_revparse_single(&obj, st->repo, rev);
    if (rc == GIT_ENOTFOUND || rc == GIT_EINVALIDSPEC || rc == GIT_EAMBIGUOUS) {
        rc = vs_error_set(err, VS_ENOTFOUND,
                          "no revision '%s' in the records %s%s (give a commit id or prefix, "
                          "~N for N revisions back in the sheet's own history, HEAD~N for N "
                          "commits back on the branch, or a branch; `history` lists them)",
                          rev, st->path, rc == GIT_EAMBIGUOUS ? " (ambiguous prefix)" : "");
        goto done;
    }
    if (rc < 0) {
        rc = gfail(err, VS_ERECORDS, "cannot read revision '%s'", rev);
        goto done;
    }
    if (git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT) < 0) {
        rc = vs_error_set(err, VS_ENOTFOUND, "'%s' does not name a commit", rev);
        goto done;
    }
    *out = (git_commit *)peeled;
    peeled = NULL;
done:
    git_object_free(peeled);
    git_object_free(obj);
    return rc;
}

int vs_store_sheet_rev(const char *rev, unsigned long *n)
{
    char *end;
    if (!rev || rev[0] != '~')
        return 0;
    if (!rev[1]) {
        *n = 1; /* as git reads a bare ~ */
        return 1;
    }
    if (rev[1] < '0' || rev[1] > '9')
        return 0;
    errno = 0;
    *n = strtoul(rev + 1, &end, 10);
    return !*end && errno == 0;
}

/* The commit of the revision N back in the sheet's own history (~0 its latest). */
static int resolve_sheet_rev(vs_store *st, const char *sheet_id, const char *rev,
                             unsigned long n, git_commit **out, vs_error *err)
{
    vs_store_revisions h = {0};
    git_oid oid;
    int rc;
    *out = NULL;
    if ((rc = need_repo(st, err)) < 0)
        return rc;
    if (n > 1000000)
        return vs_error_set(err, VS_ENOTFOUND, "no revision '%s' of sheet '%s'", rev, sheet_id);
    if ((rc = vs_store_history(st, sheet_id, (size_t)n + 1, &h, err)) < 0)
        return rc;
    if (h.n <= n) {
        if (h.n == 0)
            rc = vs_error_set(err, VS_ENOTFOUND, "sheet '%s' has no revisions in the records %s",
                              sheet_id, st->path);
        else
            rc = vs_error_set(err, VS_ENOTFOUND,
                              "sheet '%s' has %zu revision%s in the records %s: %s@~0 is the "
                              "latest, %s@~%zu the oldest (`history %s` lists them)",
                              sheet_id, h.n, h.n == 1 ? "" : "s", st->path, sheet_id, sheet_id,
                              h.n - 1, sheet_id);
        vs_store_revisions_clear(&h);
        return rc;
    }
    rc = git_oid_fromstr(&oid, h.revs[n].commit) < 0 || git_commit_lookup(out, st->repo, &oid) < 0
             ? gfail(err, VS_ERECORDS, "cannot read commit %s", h.revs[n].commit)
             : 0;
    vs_store_revisions_clear(&h);
    return rc;
}

int vs_store_read(vs_store *st, const char *sheet_id, const char *rev, const char *file,
                  vs_store_blob *out, vs_error *err)
{
    unsigned long back;
    git_commit *c = NULL;
    git_tree *tree = NULL;
    git_tree_entry *e = NULL;
    git_blob *b = NULL;
    char path[160];
    int rc = 0;
    size_t len;
    memset(out, 0, sizeof *out);
    if (!sheet_id || !vs_sheet_id_valid(sheet_id))
        return vs_error_set(err, VS_EVALUE, "'%s' is not a sheet id", sheet_id ? sheet_id : "");
    if (!file)
        file = "sheet.json";
    if (strcmp(file, "sheet.json") && strcmp(file, "sheet.md"))
        return vs_error_set(err, VS_EVALUE, "a sheet has sheet.json and sheet.md, not %s", file);
    if (vs_store_sheet_rev(rev, &back) ? (rc = resolve_sheet_rev(st, sheet_id, rev, back, &c, err)) < 0
                                       : (rc = resolve_commit(st, rev, &c, err)) < 0)
        return rc;
    hex(out->commit, git_commit_id(c));
    snprintf(path, sizeof path, "sheets/%s/%s", sheet_id, file);
    if (git_commit_tree(&tree, c) < 0) {
        rc = gfail(err, VS_ERECORDS, "cannot read a tree");
        goto done;
    }
    if (git_tree_entry_bypath(&e, tree, path) < 0 || git_tree_entry_type(e) != GIT_OBJECT_BLOB) {
        rc = vs_error_set(err, VS_ENOTFOUND, "sheet '%s' is not in the records %s at %s (%.12s)",
                          sheet_id, st->path, rev ? rev : "the tip", out->commit);
        goto done;
    }
    if (git_blob_lookup(&b, st->repo, git_tree_entry_id(e)) < 0) {
        rc = gfail(err, VS_ERECORDS, "cannot read %s", path);
        goto done;
    }
    hex(out->blob, git_tree_entry_id(e));
    len = (size_t)git_blob_rawsize(b);
    if (!(out->data = malloc(len + 1))) {
        rc = vs_error_set(err, VS_ENOMEM, "out of memory");
        goto done;
    }
    memcpy(out->data, git_blob_rawcontent(b), len);
    out->data[len] = '\0';
    out->len = len;
done:
    git_blob_free(b);
    git_tree_entry_free(e);
    git_tree_free(tree);
    git_commit_free(c);
    if (rc < 0)
        vs_store_blob_clear(out);
    return rc;
}

void vs_store_blob_clear(vs_store_blob *b)
{
    if (!b)
        return;
    free(b->data);
    memset(b, 0, sizeof *b);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int vs_store_list(vs_store *st, const char *rev, char ***out_ids, size_t *out_n, vs_error *err)
{
    git_commit *c = NULL;
    git_tree *tree = NULL, *sheets = NULL;
    git_tree_entry *e = NULL;
    char **ids = NULL;
    size_t n = 0, i, cnt;
    int rc = 0;
    *out_ids = NULL;
    *out_n = 0;
    if (!st->repo)
        return 0;
    if (!rev) {
        char refname[VS_STORE_BRANCH_MAX + 16];
        git_oid tip;
        if ((rc = head_branch(st, refname, sizeof refname, err)) < 0)
            return rc;
        if ((rc = branch_tip(st->repo, refname, &tip, err)) <= 0)
            return rc;
    }
    if ((rc = resolve_commit(st, rev, &c, err)) < 0)
        return rc;
    if (git_commit_tree(&tree, c) < 0) {
        rc = gfail(err, VS_ERECORDS, "cannot read a tree");
        goto done;
    }
    if (git_tree_entry_bypath(&e, tree, "sheets") < 0 || git_tree_entry_type(e) != GIT_OBJECT_TREE)
        goto done;
    if (git_tree_lookup(&sheets, st->repo, git_tree_entry_id(e)) < 0) {
        rc = gfail(err, VS_ERECORDS, "cannot read sheets/");
        goto done;
    }
    cnt = git_tree_entrycount(sheets);
    if (cnt && !(ids = calloc(cnt, sizeof *ids))) {
        rc = vs_error_set(err, VS_ENOMEM, "out of memory");
        goto done;
    }
    for (i = 0; i < cnt; i++) {
        const git_tree_entry *se = git_tree_entry_byindex(sheets, i);
        const char *name = git_tree_entry_name(se);
        if (git_tree_entry_type(se) != GIT_OBJECT_TREE || !vs_sheet_id_valid(name))
            continue;
        if (!(ids[n] = strdup(name))) {
            rc = vs_error_set(err, VS_ENOMEM, "out of memory");
            goto done;
        }
        n++;
    }
    if (n)
        qsort(ids, n, sizeof *ids, cmp_str);
done:
    git_tree_entry_free(e);
    git_tree_free(sheets);
    git_tree_free(tree);
    git_commit_free(c);
    if (rc < 0) {
        for (i = 0; i < n; i++)
            free(ids[i]);
        free(ids);
        return rc;
    }
    if (!n) {
        free(ids);
        ids = NULL;
    }
    *out_ids = ids;
    *out_n = n;
    return 0;
}

int vs_store_parse_spec(const char *spec, char *id, size_t idlen, const char **rev, vs_error *err)
{
    const char *at = strchr(spec, '@');
    size_t n = at ? (size_t)(at - spec) : strlen(spec);
    *rev = NULL;
    if (n == 0 || n >= idlen)
        return vs_error_set(err, VS_EVALUE, "expected SHEET or SHEET@REV, got '%s'", spec);
    memcpy(id, spec, n);
    id[n] = '\0';
    if (!vs_sheet_id_valid(id))
        return vs_error_set(err, VS_EVALUE,
                            "'%s' is not a sheet id (ids are slugs: lowercase letters, digits and "
                            "'-')",
                            id);
    if (at) {
        if (!at[1])
            return vs_error_set(err, VS_EVALUE,
                                "expected a revision after '@' in '%s' (~N: N revisions back in the "
                                "sheet's history; HEAD~N, a commit, a branch)",
                                spec);
        *rev = at + 1;
    }
    return 0;
}

/* --- push and pull --- */

typedef struct remote_spec {
    char url[1024];
    char track[VS_STORE_BRANCH_MAX + 64]; /* where fetched tips are kept locally */
    char local_path[1024];                /* non-empty for a repository on this machine */
} remote_spec;

static int resolve_remote(vs_store *st, const char *name, const char *branch, remote_spec *rs,
                          vs_error *err)
{
    git_config *cfg = NULL;
    git_buf val = {0};
    char key[300];
    int rc = 0, named = 0;
    struct stat sb;
    const char *p;
    memset(rs, 0, sizeof *rs);
    if (!name || !*name)
        name = "origin";
    if (git_remote_name_is_valid(&named, name) < 0)
        named = 0;
    if (named && strlen(name) < 200) {
        snprintf(key, sizeof key, "remote.%s.url", name);
        if (git_repository_config_snapshot(&cfg, st->repo) == 0 &&
            git_config_get_string_buf(&val, cfg, key) == 0) {
            snprintf(rs->url, sizeof rs->url, "%s", val.ptr);
            snprintf(rs->track, sizeof rs->track, "refs/remotes/%s/%s", name, branch);
        } else {
            named = 0;
        }
    }
    if (!named) {
        if (!strcmp(name, "origin")) {
            rc = vs_error_set(err, VS_ERECORDS,
                              "records %s have no remote named origin: name one, as in `records "
                              "push /path/to/records.git` (a bare repository, a file:// or another "
                              "git URL), or add it with `git -C %s remote add origin URL`",
                              st->path, st->path);
            goto done;
        }
        snprintf(rs->url, sizeof rs->url, "%s", name);
        snprintf(rs->track, sizeof rs->track, "refs/remotes/vramsheet/%s", branch);
    }
    p = rs->url;
    if (!strncmp(p, "file://", 7))
        p += 7;
    else if (strstr(p, "://"))
        p = NULL;
    if (p && stat(p, &sb) == 0 && S_ISDIR(sb.st_mode))
        snprintf(rs->local_path, sizeof rs->local_path, "%s", p);
    else if (p && !strncmp(rs->url, "file://", 7)) {
        rc = vs_error_set(err, VS_ERECORDS, "remote %s does not exist", rs->url);
        goto done;
    }
done:
    git_buf_dispose(&val);
    git_config_free(cfg);
    return rc;
}

static int new_remote(vs_store *st, const remote_spec *rs, git_remote **out, vs_error *err)
{
    git_remote_create_options o;
    git_remote_create_options_init(&o, GIT_REMOTE_CREATE_OPTIONS_VERSION);
    o.repository = st->repo;
    o.name = NULL;
    /* create_anonymous leaks in 1.5.1 (pcre2 match data for insteadOf); this does not. */
    o.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF | GIT_REMOTE_CREATE_SKIP_DEFAULT_FETCHSPEC;
    if (git_remote_create_with_opts(out, rs->url, &o) < 0)
        return gfail(err, VS_ERECORDS, "remote %s", rs->url);
    return 0;
}

/* Reads the remote's branch as it is now: 1 with *oid, 0 when it has none. */
/* Listing a local remote reads every reference under refs/: another pusher's
 * temporary reference can vanish between the directory listing and its read,
 * which libgit2 reports as a reference not found. That is a race, not a fault:
 * worth a few more tries. */
static int ref_vanished(void)
{
    const git_error *e = git_error_last();
    return e && e->klass == GIT_ERROR_REFERENCE && e->message && strstr(e->message, "not found");
}

#define REF_RACE_TRIES 5

static int remote_tip(vs_store *st, const remote_spec *rs, const char *refname, git_oid *oid,
                      vs_error *err)
{
    git_remote *r = NULL;
    git_remote_callbacks cb;
    const git_remote_head **heads;
    size_t n, i;
    int rc = 0, tries = 0, lc;
    if ((rc = new_remote(st, rs, &r, err)) < 0)
        return rc;
    git_remote_init_callbacks(&cb, GIT_REMOTE_CALLBACKS_VERSION);
    for (;;) {
        lc = git_remote_connect(r, GIT_DIRECTION_FETCH, &cb, NULL, NULL);
        if (lc == 0)
            lc = git_remote_ls(&heads, &n, r);
        if (lc == 0 || ++tries >= REF_RACE_TRIES || !ref_vanished())
            break;
        git_remote_disconnect(r);
    }
    if (lc < 0) {
        rc = gfail(err, VS_ERECORDS, "cannot read remote %s", rs->url);
        goto done;
    }
    for (i = 0; i < n; i++) {
        if (!strcmp(heads[i]->name, refname)) {
            git_oid_cpy(oid, &heads[i]->oid);
            rc = 1;
            break;
        }
    }
done:
    if (r)
        git_remote_disconnect(r);
    git_remote_free(r);
    return rc;
}

/* Fetches the remote's branch into rs->track: 1 with *oid, 0 when it has none. */
static int fetch_branch(vs_store *st, const remote_spec *rs, const char *refname, git_oid *oid,
                        vs_error *err)
{
    git_remote *r = NULL;
    git_fetch_options fo;
    char spec[600];
    char *specs[1];
    git_strarray arr;
    int rc;
    if ((rc = remote_tip(st, rs, refname, oid, err)) <= 0)
        return rc;
    if ((rc = new_remote(st, rs, &r, err)) < 0)
        return rc;
    git_fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
    fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
    snprintf(spec, sizeof spec, "+%s:%s", refname, rs->track);
    specs[0] = spec;
    arr.strings = specs;
    arr.count = 1;
    {
        int fc, tries = 0;
        while ((fc = git_remote_fetch(r, &arr, &fo, "records pull")) < 0 &&
               ++tries < REF_RACE_TRIES && ref_vanished())
            ;
        if (fc < 0) {
            rc = gfail(err, VS_ERECORDS, "cannot fetch from %s", rs->url);
            goto done;
        }
    }
    if (git_reference_name_to_id(oid, st->repo, rs->track) < 0) {
        rc = gfail(err, VS_ERECORDS, "fetched from %s but cannot read %s", rs->url, rs->track);
        goto done;
    }
    rc = 1;
done:
    git_remote_free(r);
    return rc;
}

/* After the branch moved from old_tree to new_tree in a repository with a work
 * tree, update the files that changed, leaving the person's own edits alone. */
static int checkout_moved(vs_store *st, const git_oid *old_commit, const git_oid *new_commit,
                          vs_error *err)
{
    git_checkout_options co;
    git_commit *oc = NULL, *nc = NULL;
    git_tree *ot = NULL, *nt = NULL;
    int rc = 0, fd = -1;
    if (git_repository_is_bare(st->repo))
        return 0;
    if ((rc = worktree_lock(st, &fd, err)) < 0)
        return rc;
    if ((old_commit && (git_commit_lookup(&oc, st->repo, old_commit) < 0 ||
                        git_commit_tree(&ot, oc) < 0)) ||
        git_commit_lookup(&nc, st->repo, new_commit) < 0 || git_commit_tree(&nt, nc) < 0) {
        rc = gfail(err, VS_ERECORDS, "cannot read trees");
        goto done;
    }
    git_checkout_options_init(&co, GIT_CHECKOUT_OPTIONS_VERSION);
    co.checkout_strategy = GIT_CHECKOUT_SAFE | GIT_CHECKOUT_ALLOW_CONFLICTS;
    co.baseline = ot;
    if (git_checkout_tree(st->repo, (git_object *)nt, &co) < 0)
        rc = gfail(err, VS_ERECORDS, "cannot update the work tree");
done:
    git_tree_free(ot);
    git_tree_free(nt);
    git_commit_free(oc);
    git_commit_free(nc);
    flock(fd, LOCK_UN);
    close(fd);
    return rc;
}

/* Brings theirs into the branch: nothing, fast-forward, or a merge commit. */
static int integrate(vs_store *st, const char *refname, const git_oid *theirs, const char *from,
                     vs_store_sync *out, vs_error *err)
{
    git_signature *sig = NULL;
    int rc = 0, attempt = 0;
    int64_t deadline = vs_clock_mono_ms() + STORE_RETRY_MS;
    git_oid tip, result;
    int have = 0;
    for (;;) {
        git_reference *ref = NULL;
        int crc;
        attempt++;
        if ((have = branch_tip(st->repo, refname, &tip, err)) < 0) {
            rc = have;
            goto done;
        }
        if (have && (git_oid_equal(&tip, theirs) || git_graph_descendant_of(st->repo, &tip, theirs) == 1)) {
            out->up_to_date = 1;
            goto done;
        }
        if (!have || git_graph_descendant_of(st->repo, theirs, &tip) == 1) {
            git_oid_cpy(&result, theirs);
            out->fast_forward = 1;
            out->merged = 0;
        } else {
            git_commit *ours = NULL, *other = NULL;
            git_index *idx = NULL;
            git_merge_options mo;
            git_oid tree_oid;
            git_tree *tree = NULL;
            const git_commit *parents[2];
            char msg[1200];
            char both[600];
            int nd;
            git_merge_options_init(&mo, GIT_MERGE_OPTIONS_VERSION);
            if ((nd = diverged_sheets(st->repo, &tip, theirs, both, sizeof both, NULL, NULL)) < 0) {
                rc = gfail(err, VS_ERECORDS, "cannot compare the sheets here and in %s", from);
                goto done;
            }
            if (nd > 0) {
                char th[VS_STORE_HEX];
                theirs_note tn;
                note_read(st, &tn);
                if (!tn.has || !git_oid_equal(&tn.theirs, theirs)) {
                    memset(&tn, 0, sizeof tn);
                    tn.has = 1;
                    git_oid_cpy(&tn.theirs, theirs);
                    note_write(st, &tn);
                }
                hex(th, theirs);
                rc = vs_error_set(err, VS_ECONFLICT,
                                  "the same sheet changed here and in %s since they last agreed "
                                  "(%s); a sheet is never merged, so nothing was merged or "
                                  "pushed and both sides keep their commits. Look at theirs with "
                                  "`show SHEET@%.12s` (in a session where that sheet is not "
                                  "open), then keep one version of each: `commit \"...\" "
                                  "replace` records the version open in the session over "
                                  "theirs (theirs stays in history); once each such sheet is "
                                  "recorded so, that commit joins both histories and `records "
                                  "push` goes through",
                                  from, both, th);
                goto done;
            }
            if (git_commit_lookup(&ours, st->repo, &tip) < 0 ||
                git_commit_lookup(&other, st->repo, theirs) < 0 ||
                git_merge_commits(&idx, st->repo, ours, other, &mo) < 0) {
                rc = gfail(err, VS_ERECORDS, "cannot merge %s", from);
            } else if (git_index_has_conflicts(idx)) {
                const git_index_entry *anc, *o, *t;
                git_index_conflict_iterator *it = NULL;
                char paths[600] = "";
                if (git_index_conflict_iterator_new(&it, idx) == 0) {
                    while (git_index_conflict_next(&anc, &o, &t, it) == 0) {
                        const char *pth = o ? o->path : t ? t->path : anc->path;
                        if (strlen(paths) + strlen(pth) + 3 < sizeof paths) {
                            if (*paths)
                                strcat(paths, ", ");
                            strcat(paths, pth);
                        }
                    }
                    git_index_conflict_iterator_free(it);
                }
                rc = vs_error_set(err, VS_ECONFLICT,
                                  "the same sheet changed here and in %s (%s); nothing was merged. "
                                  "Look at both with `git -C %s log -p --all -- sheets/`, keep one "
                                  "(for example by committing yours again with `commit \"...\" "
                                  "replace` after a pull in a fresh folder), then sync again",
                                  from, paths, st->path);
            } else if (!sig && make_signature(st->repo, &sig) < 0) {
                rc = gfail(err, VS_ERECORDS, "cannot make a signature");
            } else if (git_index_write_tree_to(&tree_oid, idx, st->repo) < 0 ||
                       git_tree_lookup(&tree, st->repo, &tree_oid) < 0) {
                rc = gfail(err, VS_ERECORDS, "cannot write the merged tree");
            } else {
                snprintf(msg, sizeof msg, "records: merge %s\n", from);
                parents[0] = ours;
                parents[1] = other;
                if (git_commit_create(&result, st->repo, NULL, sig, sig, NULL, msg, tree, 2,
                                      parents) < 0)
                    rc = gfail(err, VS_ERECORDS, "cannot write the merge commit");
                out->merged = 1;
                out->fast_forward = 0;
            }
            git_tree_free(tree);
            git_index_free(idx);
            git_commit_free(ours);
            git_commit_free(other);
            if (rc < 0)
                goto done;
        }
        crc = git_reference_create_matching(&ref, st->repo, refname, &result, have ? 1 : 0,
                                            have ? &tip : NULL,
                                            out->merged ? "records: merge" : "records: fast-forward");
        git_reference_free(ref);
        if (crc == 0)
            break;
        if (!is_busy(crc)) {
            rc = gfail(err, VS_ERECORDS, "cannot move %s", refname);
            goto done;
        }
        if (vs_clock_mono_ms() > deadline) {
            lock_report(st, refname, err);
            rc = VS_ERECORDS;
            goto done;
        }
        backoff(attempt);
    }
    {
        vs_error werr;
        vs_error_clear(&werr);
        if (checkout_moved(st, have ? &tip : NULL, &result, &werr) < 0)
            snprintf(out->warning, sizeof out->warning, "the work tree was not updated: %.460s",
                     werr.message);
    }
done:
    git_signature_free(sig);
    return rc;
}

static int sync_begin(vs_store *st, const char *remote, vs_store_sync *out, char *refname,
                      size_t reflen, remote_spec *rs, vs_error *err)
{
    int rc;
    git_oid tip;
    memset(out, 0, sizeof *out);
    if ((rc = need_repo(st, err)) < 0)
        return rc;
    if ((rc = head_branch(st, refname, reflen, err)) < 0)
        return rc;
    snprintf(out->branch, sizeof out->branch, "%s", refname + 11);
    if ((rc = resolve_remote(st, remote, out->branch, rs, err)) < 0)
        return rc;
    snprintf(out->remote, sizeof out->remote, "%s", rs->url);
    if ((rc = branch_tip(st->repo, refname, &tip, err)) < 0)
        return rc;
    if (rc)
        hex(out->local_before, &tip);
    return 0;
}

int vs_store_pull(vs_store *st, const char *remote, vs_store_sync *out, vs_error *err)
{
    char refname[VS_STORE_BRANCH_MAX + 16];
    remote_spec rs;
    git_oid theirs, tip;
    int rc;
    if ((rc = ensure_repo(st, NULL, err)) < 0)
        return rc;
    if ((rc = sync_begin(st, remote, out, refname, sizeof refname, &rs, err)) < 0)
        return rc;
    out->attempts = 1;
    if ((rc = fetch_branch(st, &rs, refname, &theirs, err)) < 0)
        return rc;
    if (rc == 0) {
        out->up_to_date = 1;
    } else {
        hex(out->remote_after, &theirs);
        if ((rc = integrate(st, refname, &theirs, rs.url, out, err)) < 0)
            return rc;
    }
    if (branch_tip(st->repo, refname, &tip, err) == 1)
        hex(out->local_after, &tip);
    return 0;
}

/* A repository on this machine: its branch is moved with a compare-and-swap of
 * our own, because libgit2's local transport writes the remote ref without
 * checking its old value (two racing pushers could both be told "ok"). The
 * objects travel by an ordinary push to a reference of our own. */
static int push_local(vs_store *st, const remote_spec *rs, const char *refname, const git_oid *tip,
                      int *need_merge, vs_error *err)
{
    git_repository *r = NULL;
    git_remote *remote = NULL;
    git_reference *ref = NULL;
    git_push_options po;
    git_oid rtip;
    char tmpref[200], spec[500];
    char *specs[1];
    git_strarray arr;
    int rc = 0, have, crc;
    struct timeval tv;
    *need_merge = 0;
    if (git_repository_open_ext(&r, rs->local_path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0) {
        rc = gfail(err, VS_ERECORDS, "remote %s is not a repository you can use", rs->url);
        r = NULL;
        goto done;
    }
    if (!git_repository_is_bare(r)) {
        git_reference *h = NULL;
        int checked_out = git_reference_lookup(&h, r, "HEAD") == 0 &&
                          git_reference_type(h) == GIT_REFERENCE_SYMBOLIC &&
                          !strcmp(git_reference_symbolic_target(h), refname);
        git_reference_free(h);
        if (checked_out) {
            rc = vs_error_set(err, VS_ERECORDS,
                              "remote %s has a work tree with %s checked out; pushing there would "
                              "leave its files stale. Push to a bare repository (`git clone --bare "
                              "%s records.git`)",
                              rs->url, refname + 11, rs->url);
            goto done;
        }
    }
    if ((have = branch_tip(r, refname, &rtip, err)) < 0) {
        rc = have;
        goto done;
    }
    if (have && !git_oid_equal(&rtip, tip) && git_graph_descendant_of(st->repo, tip, &rtip) != 1) {
        *need_merge = 1;
        goto done;
    }
    if (have && git_oid_equal(&rtip, tip))
        goto done;
    gettimeofday(&tv, NULL);
    snprintf(tmpref, sizeof tmpref, "refs/vramsheet/incoming/%ld-%ld-%d", (long)getpid(),
             (long)tv.tv_sec, (int)tv.tv_usec);
    snprintf(spec, sizeof spec, "+%s:%s", refname, tmpref);
    specs[0] = spec;
    arr.strings = specs;
    arr.count = 1;
    if ((rc = new_remote(st, rs, &remote, err)) < 0)
        goto done;
    git_push_options_init(&po, GIT_PUSH_OPTIONS_VERSION);
    if (git_remote_push(remote, &arr, &po) < 0) {
        rc = gfail(err, VS_ERECORDS, "cannot send the commits to %s", rs->url);
        goto done;
    }
    crc = git_reference_create_matching(&ref, r, refname, tip, have ? 1 : 0, have ? &rtip : NULL,
                                        "vramsheet: push");
    git_reference_free(ref);
    ref = NULL;
    if (crc < 0 && !is_busy(crc))
        rc = gfail(err, VS_ERECORDS, "cannot move %s in %s", refname, rs->url);
    else if (crc < 0)
        *need_merge = 1; /* somebody pushed meanwhile: merge theirs and try again */
    {
        git_reference *t = NULL;
        if (git_reference_lookup(&t, r, tmpref) == 0)
            git_reference_delete(t);
        git_reference_free(t);
    }
done:
    git_remote_free(remote);
    git_repository_free(r);
    return rc;
}

typedef struct push_status {
    char rejected[300];
} push_status;

static int on_push_update(const char *ref, const char *status, void *data)
{
    push_status *ps = data;
    if (status && !*ps->rejected)
        snprintf(ps->rejected, sizeof ps->rejected, "%s: %s", ref, status);
    return 0;
}

static int push_remote(vs_store *st, const remote_spec *rs, const char *refname, int *need_merge,
                       vs_error *err)
{
    git_remote *remote = NULL;
    git_push_options po;
    push_status ps;
    char spec[600];
    char *specs[1];
    git_strarray arr;
    int rc = 0;
    *need_merge = 0;
    memset(&ps, 0, sizeof ps);
    snprintf(spec, sizeof spec, "%s:%s", refname, refname);
    specs[0] = spec;
    arr.strings = specs;
    arr.count = 1;
    if ((rc = new_remote(st, rs, &remote, err)) < 0)
        return rc;
    git_push_options_init(&po, GIT_PUSH_OPTIONS_VERSION);
    po.callbacks.push_update_reference = on_push_update;
    po.callbacks.payload = &ps;
    rc = git_remote_push(remote, &arr, &po);
    if (rc == GIT_ENONFASTFORWARD || (rc == 0 && *ps.rejected)) {
        *need_merge = 1;
        rc = 0;
    } else if (rc < 0) {
        rc = gfail(err, VS_ERECORDS, "cannot push to %s", rs->url);
    }
    git_remote_free(remote);
    return rc;
}

int vs_store_push(vs_store *st, const char *remote, vs_store_sync *out, vs_error *err)
{
    char refname[VS_STORE_BRANCH_MAX + 16];
    remote_spec rs;
    git_oid tip, rtip;
    int rc, attempt;
    int64_t deadline;
    if (!st->repo)
        return vs_error_set(err, VS_ERECORDS, "nothing to push: records %s do not exist yet",
                            st->path);
    if ((rc = sync_begin(st, remote, out, refname, sizeof refname, &rs, err)) < 0)
        return rc;
    if (!*out->local_before)
        return vs_error_set(err, VS_ERECORDS, "nothing to push: records %s have no commit yet",
                            st->path);
    deadline = vs_clock_mono_ms() + STORE_RETRY_MS;
    for (attempt = 1;; attempt++) {
        int need_merge = 0, have;
        out->attempts = attempt;
        if (branch_tip(st->repo, refname, &tip, err) != 1)
            return err && err->code ? err->code : VS_ERECORDS;
        if ((have = remote_tip(st, &rs, refname, &rtip, err)) < 0)
            return have;
        if (have && git_oid_equal(&rtip, &tip)) {
            out->up_to_date = attempt == 1;
            hex(out->remote_after, &rtip);
            break;
        }
        rc = rs.local_path[0] ? push_local(st, &rs, refname, &tip, &need_merge, err)
                              : push_remote(st, &rs, refname, &need_merge, err);
        if (rc < 0)
            return rc;
        if (!need_merge) {
            /* After the fact: the remote branch, read back, must contain our tip. */
            if ((have = remote_tip(st, &rs, refname, &rtip, err)) < 0)
                return have;
            if (have && git_oid_equal(&rtip, &tip)) {
                hex(out->remote_after, &rtip);
                break;
            }
            if (have && (have = fetch_branch(st, &rs, refname, &rtip, err)) < 0)
                return have;
            if (have && git_graph_descendant_of(st->repo, &rtip, &tip) == 1) {
                hex(out->remote_after, &rtip);
                break;
            }
            /* Lost to a racing pusher: merge what is there and push again. */
        }
        if ((have = fetch_branch(st, &rs, refname, &rtip, err)) < 0)
            return have;
        if (have && (rc = integrate(st, refname, &rtip, rs.url, out, err)) < 0)
            return rc;
        if (attempt >= STORE_PUSH_ATTEMPTS && vs_clock_mono_ms() > deadline)
            return vs_error_set(err, VS_ERECORDS,
                                "the push to %s did not hold after %d attempts (other pushers kept "
                                "moving %s); your commits are safe here: run `records push` again",
                                rs.url, attempt, out->branch);
        backoff(attempt * 4);
    }
    if (branch_tip(st->repo, refname, &tip, err) == 1)
        hex(out->local_after, &tip);
    return 0;
}
