/* store_receive.c — what a push learns from the server, and the push to a
 * repository on this machine that has hooks, through `git receive-pack`.
 *
 * libgit2's local transport writes a path remote's objects and references
 * itself and runs none of its hooks (src/libgit2/transports/local.c, 1.5), so
 * a `pre-receive` or `update` hook that `git push` is refused by would let our
 * push through. A remote with hooks is therefore pushed to as git pushes to a
 * path (connect.c: `git receive-pack PATH` on a pipe, with the variables that
 * name the pushing repository, git's local_repo_env in environment.c, taken out
 * of its environment): libgit2's smart protocol speaks to that process, which
 * checks the old value of each reference under its own lock, runs the hooks
 * with their stdin and environment, and answers per reference.
 *
 * Whatever the transport, the server's words are kept: the status of a
 * refused reference (push_update_reference), and what its hooks printed
 * (side-band progress, and receive-pack's own stderr), as text fit to show. */
#include "store/store_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <git2/sys/transport.h>

#include "util/utf8.h"

extern char **environ;

/* --- the server's words --- */

/* Lines of git's own progress ("Resolving deltas: 100% (3/3)"), not the hooks'. */
static int progress_line(const char *s, size_t n)
{
    static const char *const lead[] = {"Resolving deltas", "Unpacking objects", "Total ",
                                       "Counting objects", "Compressing objects"};
    size_t i;
    for (i = 0; i < sizeof lead / sizeof *lead; i++)
        if (n >= strlen(lead[i]) && !strncmp(s, lead[i], strlen(lead[i])))
            return 1;
    return 0;
}

/* Appends text from the server, one line at a time: progress lines dropped,
 * control characters (a hostile server's escape sequences) shown as '?',
 * lines joined by " / "; bytes that are not UTF-8 are repaired when read. */
static void said_append(vs_store_push_report *r, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        size_t j = i, k;
        while (j < n && s[j] != '\n' && s[j] != '\r')
            j++;
        while (i < j && (s[i] == ' ' || s[i] == '\t'))
            i++;
        if (j > i && !progress_line(s + i, j - i)) {
            size_t at = strlen(r->said);
            if (at && at + 4 < sizeof r->said)
                at += (size_t)snprintf(r->said + at, sizeof r->said - at, " / ");
            for (k = i; k < j && at + 1 < sizeof r->said; k++) {
                unsigned char c = (unsigned char)s[k];
                r->said[at++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
            }
            r->said[at] = '\0';
        }
        i = j + 1;
    }
}

static int on_sideband(const char *str, int len, void *payload)
{
    if (len > 0)
        said_append(payload, str, (size_t)len);
    return 0;
}

static int on_update(const char *ref, const char *status, void *payload)
{
    vs_store_push_report *r = payload;
    if (status && !*r->status) {
        size_t at;
        snprintf(r->status, sizeof r->status, "%.200s: ", ref);
        at = strlen(r->status);
        for (; *status && at + 1 < sizeof r->status; status++)
            r->status[at++] = (unsigned char)*status < 0x20 ? '?' : *status;
        r->status[at] = '\0';
    }
    return 0;
}

static int on_cred(git_credential **out, const char *url, const char *user_from_url,
                   unsigned int allowed, void *payload)
{
    vs_store_push_report *r = payload;
    return vs_store_cred_acquire(out, url, user_from_url, allowed, &r->cred);
}

void vs_store_push_report_init(vs_store_push_report *r, git_remote_callbacks *cb)
{
    memset(r, 0, sizeof *r);
    cb->sideband_progress = on_sideband;
    cb->push_update_reference = on_update;
    cb->credentials = on_cred;
    cb->payload = r;
}

void vs_store_push_report_words(vs_store_push_report *r, char *out, size_t len)
{
    char *ok;
    snprintf(out, len, "%s%s%s%s%s", r->status, *r->status && *r->said ? " (" : "",
             *r->said ? "the server said: " : "", r->said, *r->status && *r->said ? ")" : "");
    if (!*out)
        snprintf(out, len, "%s", "the server gave no reason");
    if ((ok = vs_utf8_repair(out, strlen(out)))) {
        snprintf(out, len, "%s", ok);
        free(ok);
    }
}

int vs_store_push_report_race(const vs_store_push_report *r)
{
    /* git's words for a reference that another push moved or held meanwhile
     * (builtin/receive-pack.c, refs/files-backend.c, git 2.39), and for objects a
     * push quarantined that could not be moved into the repository while another
     * push wrote into the same object directories (receive-pack.c execute_commands
     * after tmp_objdir_migrate: no reference moved, so pushing again is safe; the
     * attempts stay bounded) */
    static const char *const race[] = {
        "failed to update ref", "failed to lock",
        "cannot lock ref",      "incorrect old value",
        "non-fast-forward",     "unable to migrate objects to permanent storage"};
    size_t i;
    for (i = 0; i < sizeof race / sizeof *race; i++)
        if (strstr(r->status, race[i]))
            return 1;
    return 0;
}

/* --- a remote's hooks --- */

int vs_store_receive_hooks(git_repository *remote, char *names, size_t len)
{
    /* the hooks `git receive-pack` runs (githooks(5), git 2.39) */
    static const char *const hooks[] = {"pre-receive",     "update",      "proc-receive",
                                        "post-receive",    "post-update", "reference-transaction",
                                        "push-to-checkout"};
    git_config *cfg = NULL;
    git_buf hp = {0};
    char dir[4096], p[4400];
    size_t i;
    int n = 0;
    struct stat sb;
    *names = '\0';
    if (git_repository_config_snapshot(&cfg, remote) == 0 &&
        git_config_get_path(&hp, cfg, "core.hooksPath") == 0 && hp.ptr && *hp.ptr) {
        /* relative to where the hooks run: the top of the work tree, or the
         * repository itself when it is bare (core.hooksPath in git-config(1)) */
        const char *base = git_repository_workdir(remote);
        if (hp.ptr[0] == '/')
            snprintf(dir, sizeof dir, "%s", hp.ptr);
        else
            snprintf(dir, sizeof dir, "%s%s", base ? base : git_repository_path(remote), hp.ptr);
    } else {
        snprintf(dir, sizeof dir, "%shooks", git_repository_path(remote));
    }
    git_buf_dispose(&hp);
    git_config_free(cfg);
    for (i = 0; i < sizeof hooks / sizeof *hooks; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, hooks[i]);
        /* git runs a hook only when it is executable (run-command.c, find_hook) */
        if (stat(p, &sb) != 0 || !S_ISREG(sb.st_mode) || access(p, X_OK) != 0)
            continue;
        n++;
        if (strlen(names) + strlen(hooks[i]) + 3 < len)
            snprintf(names + strlen(names), len - strlen(names), "%s%s", *names ? ", " : "",
                     hooks[i]);
    }
    return n;
}

/* --- `git receive-pack PATH` as libgit2's smart transport's stream --- */

typedef struct rp_stream {
    git_smart_subtransport_stream parent;
    pid_t pid;
    int in, out, err; /* its stdin, stdout, and a file holding its stderr */
} rp_stream;

typedef struct rp_sub {
    git_smart_subtransport parent;
    vs_store_push_report *report;
    rp_stream *stream;
} rp_sub;

static int rp_read(git_smart_subtransport_stream *s, char *buf, size_t size, size_t *got)
{
    rp_stream *rs = (rp_stream *)s;
    ssize_t n;
    while ((n = read(rs->out, buf, size)) < 0 && errno == EINTR)
        ;
    if (n < 0) {
        git_error_set(GIT_ERROR_OS, "reading from git receive-pack: %s", strerror(errno));
        return -1;
    }
    *got = (size_t)n;
    return 0;
}

/* A write to a receive-pack that has exited would raise SIGPIPE, which ends
 * the process by default: SIGPIPE is blocked for this thread while writing,
 * and one the write raised is taken back before it is unblocked. */
static int rp_write(git_smart_subtransport_stream *s, const char *buf, size_t len)
{
    rp_stream *rs = (rp_stream *)s;
    sigset_t pipe, old;
    struct timespec zero = {0, 0};
    int rc = 0, saved = 0;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, &old);
    while (len > 0) {
        ssize_t n = write(rs->in, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            saved = errno;
            rc = -1;
            break;
        }
        buf += n;
        len -= (size_t)n;
    }
    if (saved == EPIPE)
        while (sigtimedwait(&pipe, NULL, &zero) == SIGPIPE)
            ;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc < 0)
        git_error_set(GIT_ERROR_OS, "writing to git receive-pack: %s", strerror(saved));
    return rc;
}

/* Ends the process; what it said on stderr joins the server's words. */
static void rp_stream_end(rp_stream *rs, vs_store_push_report *report)
{
    char buf[2048];
    ssize_t n;
    int status;
    if (rs->in >= 0)
        close(rs->in);
    if (rs->out >= 0)
        close(rs->out);
    rs->in = rs->out = -1;
    if (rs->pid > 0)
        while (waitpid(rs->pid, &status, 0) < 0 && errno == EINTR)
            ;
    rs->pid = 0;
    if (rs->err >= 0) {
        if (report && (n = pread(rs->err, buf, sizeof buf, 0)) > 0)
            said_append(report, buf, (size_t)n);
        close(rs->err);
        rs->err = -1;
    }
}

static void rp_stream_free(git_smart_subtransport_stream *s)
{
    rp_stream *rs = (rp_stream *)s;
    rp_sub *sub = (rp_sub *)s->subtransport;
    rp_stream_end(rs, sub ? sub->report : NULL);
    if (sub && sub->stream == rs)
        sub->stream = NULL;
    free(rs);
}

/* git's local_repo_env (environment.c): what names the pushing repository. */
static int local_repo_var(const char *kv)
{
    static const char *const vars[] = {"GIT_ALTERNATE_OBJECT_DIRECTORIES",
                                       "GIT_CONFIG",
                                       "GIT_CONFIG_PARAMETERS",
                                       "GIT_CONFIG_COUNT",
                                       "GIT_OBJECT_DIRECTORY",
                                       "GIT_DIR",
                                       "GIT_WORK_TREE",
                                       "GIT_IMPLICIT_WORK_TREE",
                                       "GIT_GRAFT_FILE",
                                       "GIT_INDEX_FILE",
                                       "GIT_NO_REPLACE_OBJECTS",
                                       "GIT_REPLACE_REF_BASE",
                                       "GIT_PREFIX",
                                       "GIT_SHALLOW_FILE",
                                       "GIT_COMMON_DIR"};
    size_t i, n;
    for (i = 0; i < sizeof vars / sizeof *vars; i++) {
        n = strlen(vars[i]);
        if (!strncmp(kv, vars[i], n) && kv[n] == '=')
            return 1;
    }
    return 0;
}

/* Our ends of the pipes stay out of other children (a measured command). */
static int cloexec(int fd)
{
    return fcntl(fd, F_SETFD, FD_CLOEXEC) == 0;
}

static int rp_start(rp_sub *sub, const char *url, rp_stream **out)
{
    int to[2] = {-1, -1}, from[2] = {-1, -1}, rc = -1;
    char path[4096], errname[] = "/tmp/vramsheet-receive-XXXXXX";
    char *argv[4], **envp = NULL;
    size_t n = 0, i, k = 0;
    posix_spawn_file_actions_t fa;
    rp_stream *rs = calloc(1, sizeof *rs);
    if (!rs) {
        git_error_set_oom();
        return -1;
    }
    rs->in = rs->out = rs->err = -1;
    snprintf(path, sizeof path, "%s", strncmp(url, "file://", 7) ? url : url + 7);
    while (environ && environ[n])
        n++;
    if (!(envp = calloc(n + 1, sizeof *envp))) {
        git_error_set_oom();
        goto done;
    }
    for (i = 0; i < n; i++)
        if (!local_repo_var(environ[i]))
            envp[k++] = environ[i];
    if ((rs->err = mkstemp(errname)) < 0 || pipe(to) != 0 || pipe(from) != 0 || !cloexec(rs->err) ||
        !cloexec(to[0]) || !cloexec(to[1]) || !cloexec(from[0]) || !cloexec(from[1])) {
        git_error_set(GIT_ERROR_OS, "cannot start git receive-pack: %s", strerror(errno));
        goto done;
    }
    unlink(errname);
    argv[0] = "git";
    argv[1] = "receive-pack";
    argv[2] = path;
    argv[3] = NULL;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, to[0], 0);
    posix_spawn_file_actions_adddup2(&fa, from[1], 1);
    posix_spawn_file_actions_adddup2(&fa, rs->err, 2);
    errno = posix_spawnp(&rs->pid, "git", &fa, NULL, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    if (errno != 0) {
        rs->pid = 0;
        snprintf(sub->report->fail, sizeof sub->report->fail,
                 "git could not be started (%s), and only git runs a repository's hooks",
                 strerror(errno));
        git_error_set(GIT_ERROR_OS, "%s", sub->report->fail);
        goto done;
    }
    rs->in = to[1];
    rs->out = from[0];
    to[1] = from[0] = -1;
    rs->parent.subtransport = &sub->parent;
    rs->parent.read = rp_read;
    rs->parent.write = rp_write;
    rs->parent.free = rp_stream_free;
    *out = rs;
    rs = NULL;
    rc = 0;
done:
    for (i = 0; i < 2; i++) {
        if (to[i] >= 0)
            close(to[i]);
        if (from[i] >= 0)
            close(from[i]);
    }
    if (rs) {
        rp_stream_end(rs, NULL);
        free(rs);
    }
    free(envp);
    return rc;
}

static int rp_action(git_smart_subtransport_stream **out, git_smart_subtransport *t,
                     const char *url, git_smart_service_t action)
{
    rp_sub *sub = (rp_sub *)t;
    *out = NULL;
    if (action == GIT_SERVICE_RECEIVEPACK_LS) {
        if (sub->stream) {
            git_error_set(GIT_ERROR_NET, "git receive-pack is already running");
            return -1;
        }
        if (rp_start(sub, url, &sub->stream) < 0)
            return -1;
    } else if (action != GIT_SERVICE_RECEIVEPACK || !sub->stream) {
        git_error_set(GIT_ERROR_NET, "this transport only pushes");
        return -1;
    }
    *out = &sub->stream->parent;
    return 0;
}

static int rp_close(git_smart_subtransport *t)
{
    rp_sub *sub = (rp_sub *)t;
    /* libgit2 frees the stream itself; ending the process here lets the
     * stream's free find nothing left to wait for */
    if (sub->stream)
        rp_stream_end(sub->stream, sub->report);
    return 0;
}

static void rp_free(git_smart_subtransport *t)
{
    free(t);
}

static int rp_sub_new(git_smart_subtransport **out, git_transport *owner, void *param)
{
    rp_sub *sub = calloc(1, sizeof *sub);
    (void)owner;
    if (!sub) {
        git_error_set_oom();
        return -1;
    }
    sub->report = param;
    sub->parent.action = rp_action;
    sub->parent.close = rp_close;
    sub->parent.free = rp_free;
    *out = &sub->parent;
    return 0;
}

int vs_store_receive_pack_transport(git_transport **out, git_remote *owner, void *payload)
{
    git_smart_subtransport_definition def;
    def.callback = rp_sub_new;
    def.rpc = 0; /* one process for the advertisement and the push, as over ssh */
    def.param = payload;
    return git_transport_smart(out, owner, &def);
}
