/* store.c — opening the records, and what every part of the store shares:
 * errors, the branch and its tip, locks, signatures. */
#include "store/store_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* VRAMSHEET_RECORDS_WAIT_MS shortens the wait (tests of stale locks). */
int vs_store_retry_ms(void)
{
    const char *e = getenv("VRAMSHEET_RECORDS_WAIT_MS");
    long v = e ? strtol(e, NULL, 10) : 0;
    return v > 0 && v < 600000 ? (int)v : STORE_RETRY_MS_DEFAULT;
}

/* --- errors --- */

static const char *git_msg(void)
{
    const git_error *e = git_error_last();
    return e && e->message ? e->message : "unknown libgit2 error";
}

/* Copies libgit2's thread-local message at once into err, after our context. */
int vs_store_gfail(vs_error *err, int code, const char *fmt, ...)
{
    char ctx[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx, sizeof ctx, fmt, ap);
    va_end(ap);
    return vs_error_set(err, code, "%s: %s", ctx, git_msg());
}

void vs_store_hex(char out[VS_STORE_HEX], const git_oid *oid)
{
    git_oid_tostr(out, VS_STORE_HEX, oid);
}

/* A short random pause so that racing writers do not retry in lock step. The
 * draw is libsodium's (seeded from the system per process): rand() unseeded
 * gave every process the same sequence, so racing writers backed off alike. */
unsigned vs_store_backoff_us(int attempt)
{
    int cap = attempt < 20 ? attempt + 1 : 20;
    return randombytes_uniform((uint32_t)(cap * 500 + 1)) + 100;
}

void vs_store_backoff(int attempt)
{
    usleep((useconds_t)vs_store_backoff_us(attempt));
}

int vs_store_is_busy(int rc)
{
    return rc == GIT_EMODIFIED || rc == GIT_ELOCKED || rc == GIT_EEXISTS;
}

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

/* libgit2 stays started for the life of the process: its start loads the
 * system's TLS certificates (mbedTLS parses the whole bundle, about 8 ms here),
 * and a store opened and freed per verb paid that at every open once the last
 * reference was dropped. The reference taken here is dropped at exit. */
static void libgit2_release(void)
{
    git_libgit2_shutdown();
}

static void libgit2_hold(void)
{
    if (git_libgit2_init() > 0)
        atexit(libgit2_release);
}

int vs_store_open(vs_store **out, const char *path, vs_error *err)
{
    static pthread_once_t held = PTHREAD_ONCE_INIT;
    vs_store *st = NULL;
    struct stat sb;
    int rc = 0;
    *out = NULL;
    if (!path || !*path)
        return vs_error_set(err, VS_ERECORDS,
                            "no records path: set one with `records PATH` or "
                            "VRAMSHEET_RECORDS");
    if (sodium_init() < 0)
        return vs_error_set(err, VS_ERECORDS, "libsodium failed to initialise");
    if (git_libgit2_init() < 0)
        return vs_store_gfail(err, VS_ERECORDS, "cannot start libgit2");
    pthread_once(&held, libgit2_hold);
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
        rc =
            vs_error_set(err, VS_ERECORDS, "cannot use records path %s: %s", path, strerror(errno));
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
        vs_store_repair_interrupted(st);
    *out = st;
    return 0;
}

void vs_store_free(vs_store *st)
{
    if (!st)
        return;
    git_repository_free(st->repo);
    free(st->moved);
    free(st->path);
    free(st);
    git_libgit2_shutdown();
}

const char *vs_store_path(const vs_store *st)
{
    return st->path;
}
const char *vs_store_notice(const vs_store *st)
{
    return st->notice;
}
int vs_store_exists(const vs_store *st)
{
    return st->repo != NULL;
}
int vs_store_is_bare(const vs_store *st)
{
    return st->repo && git_repository_is_bare(st->repo);
}

int vs_store_ensure_repo(vs_store *st, int *created, vs_error *err)
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
        return vs_store_gfail(
            err, VS_ERECORDS,
            "cannot create the records repository at %s (choose a writable folder with "
            "`records PATH` or VRAMSHEET_RECORDS; the sheet stays open in the kernel)",
            st->path);
    }
    if (created)
        *created = 1;
    return 0;
}

int vs_store_need_repo(vs_store *st, vs_error *err)
{
    if (st->repo)
        return 0;
    return vs_error_set(err, VS_ENOTFOUND, "no records yet in %s (nothing committed there)",
                        st->path);
}

/* The branch HEAD names, as a full reference name. */
int vs_store_head_branch(vs_store *st, char *refname, size_t len, vs_error *err)
{
    git_reference *head = NULL;
    const char *target;
    int rc = 0;
    if (git_reference_lookup(&head, st->repo, "HEAD") < 0)
        return vs_store_gfail(err, VS_ERECORDS, "records %s: cannot read HEAD", st->path);
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
    if ((rc = vs_store_head_branch(st, ref, sizeof ref, err)) < 0)
        return rc;
    snprintf(out, outlen, "%s", ref + 11);
    return 0;
}

/* The branch tip: 1 with *tip, 0 when the branch has no commit yet. */
int vs_store_branch_tip(git_repository *repo, const char *refname, git_oid *tip, vs_error *err)
{
    int rc = git_reference_name_to_id(tip, repo, refname);
    if (rc == 0)
        return 1;
    if (rc == GIT_ENOTFOUND)
        return 0;
    return vs_store_gfail(err, VS_ERECORDS, "cannot read %s", refname);
}

/* --- moving a branch: a dead writer's lock recognised ---
 *
 * libgit2 (and git) move a branch by creating <gitdir>/<ref>.lock, writing the
 * new id into it and renaming it over the reference. A writer killed in between
 * (kill -9) leaves that lock behind, and from then on every writer, ours and
 * git's, finds the branch locked until a person removes the file. So our
 * writers move a branch only while they hold <gitdir>/vramsheet-refs.lock
 * (flock: the kernel releases it when its holder dies), and they write into
 * that file which reference they are moving, emptying it once the move is done.
 * A writer that takes the file and finds words in it knows that the last
 * holder died while moving that reference, so the reference's lock, if there,
 * is that dead writer's: it is removed. Without those words a lock is another
 * program's (a git command's) and is left to it, unless it is empty and older
 * than STORE_REF_LOCK_STALE_S: git writes the new id into its lock as soon as it
 * has taken it (refs/files-backend.c, lock_ref_for_update; only a deletion
 * leaves it empty), libgit2 writes and renames within milliseconds
 * (refdb_fs.c, loose_commit). */
#define STORE_REF_LOCK_STALE_S 5
#define STORE_REF_TAG "vramsheet "

static int pid_alive(long pid)
{
    return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

/* The records' own lock of the references of repo: 0 and *fd_out (-1 when
 * the file cannot be made there: a repository whose folder is not ours to
 * write, where the move goes on without it), 1 when another writer of ours
 * holds it for longer than a second (busy). */
static int refs_lock(git_repository *repo, int *fd_out)
{
    char p[4096];
    int64_t deadline = vs_clock_mono_ms() + 1000;
    int fd;
    *fd_out = -1;
    snprintf(p, sizeof p, "%svramsheet-refs.lock", git_repository_path(repo));
    if ((fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0)
        return 0;
    while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (vs_clock_mono_ms() > deadline) {
            close(fd);
            return 1;
        }
        usleep(200);
    }
    *fd_out = fd;
    return 0;
}

static void said_add(char *said, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void said_add(char *said, size_t len, const char *fmt, ...)
{
    size_t at;
    va_list ap;
    if (!said || !len)
        return;
    at = strlen(said);
    if (at && at + 3 < len)
        at += (size_t)snprintf(said + at, len - at, "; ");
    va_start(ap, fmt);
    if (at < len)
        vsnprintf(said + at, len - at, fmt, ap);
    va_end(ap);
}

/* Under the records' lock of references (fd): removes the branch locks that a
 * dead writer left, saying so in said. */
static void remove_dead_ref_locks(git_repository *repo, int fd, const char *refname, char *said,
                                  size_t saidlen)
{
    const char *gd = git_repository_path(repo);
    char buf[VS_STORE_BRANCH_MAX + 64], lock[4400], *ref, *end;
    struct stat sb;
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    long pid;
    if (n > (ssize_t)strlen(STORE_REF_TAG) && !strncmp(buf, STORE_REF_TAG, strlen(STORE_REF_TAG))) {
        buf[n] = '\0';
        pid = strtol(buf + strlen(STORE_REF_TAG), &ref, 10);
        /* "vramsheet PID REF\n", written whole before the move began */
        if (*ref == ' ' && (end = strchr(++ref, '\n')) && !end[1] && (*end = '\0', 1) &&
            !strncmp(ref, "refs/", 5) && !strstr(ref, "..") && !pid_alive(pid)) {
            snprintf(lock, sizeof lock, "%s%s.lock", gd, ref);
            if (unlink(lock) == 0)
                said_add(said, saidlen,
                         "removed %s, the lock of a writer (process %ld) that was killed while it "
                         "moved %s",
                         lock, pid, ref + (strncmp(ref, "refs/heads/", 11) ? 0 : 11));
        }
    }
    if (ftruncate(fd, 0) != 0)
        return;
    snprintf(lock, sizeof lock, "%s%s.lock", gd, refname);
    if (lstat(lock, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size == 0 &&
        time(NULL) - sb.st_mtime >= STORE_REF_LOCK_STALE_S && unlink(lock) == 0)
        said_add(said, saidlen,
                 "removed %s, empty for %ld s: the lock of a writer that died before it wrote "
                 "the branch",
                 lock, (long)(time(NULL) - sb.st_mtime));
}

int vs_store_ref_move(git_repository *repo, const char *refname, const git_oid *to,
                      const git_oid *from, const char *logmsg, char *said, size_t saidlen,
                      vs_error *err)
{
    char tag[VS_STORE_BRANCH_MAX + 64];
    git_reference *ref = NULL;
    int fd = -1, rc, crc;
    size_t n;
    if ((rc = refs_lock(repo, &fd)) != 0)
        return rc;
    if (fd >= 0)
        remove_dead_ref_locks(repo, fd, refname, said, saidlen);
    n = (size_t)snprintf(tag, sizeof tag, STORE_REF_TAG "%ld %.*s\n", (long)getpid(),
                         VS_STORE_BRANCH_MAX + 16, refname);
    if (fd >= 0 && pwrite(fd, tag, n, 0) != (ssize_t)n) {
        rc = vs_error_set(err, VS_ERECORDS, "cannot write %svramsheet-refs.lock: %s",
                          git_repository_path(repo), strerror(errno));
        goto done;
    }
    crc = git_reference_create_matching(&ref, repo, refname, to, from ? 1 : 0, from, logmsg);
    git_reference_free(ref);
    /* the move is over: a failure to empty the file only makes the next
     * writer look for a lock that is gone */
    if (fd >= 0)
        (void)!ftruncate(fd, 0);
    if (crc == 0)
        rc = 0;
    else if (vs_store_is_busy(crc))
        rc = 1;
    else
        rc = vs_store_gfail(err, VS_ERECORDS, "cannot move %s in %s", refname,
                            git_repository_path(repo));
done:
    if (fd >= 0) {
        flock(fd, LOCK_UN);
        close(fd);
    }
    return rc;
}

/* Where libgit2 keeps the lock of a reference, to name it in a stale-lock report. */
void vs_store_lock_report(vs_store *st, const char *file, vs_error *err)
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
        vs_error_set(
            err, VS_ERECORDS,
            "records %s stayed busy for %.1f s (other writers, or a lock on %s); nothing was "
            "written: run the command again",
            st->path, STORE_RETRY_MS / 1000.0, file);
    }
}

int vs_store_check_writable(vs_store *st, vs_error *err)
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

int vs_store_make_signature(git_repository *repo, git_signature **sig)
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
