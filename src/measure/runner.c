#define _GNU_SOURCE /* memmem */
#include "measure/runner.h"
#include "util/clock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static const char *const oom_patterns[] = {
    "CUDA out of memory",
    "OutOfMemoryError",
    "CUBLAS_STATUS_ALLOC_FAILED",
    "CUDNN_STATUS_ALLOC_FAILED",
    "cudaErrorMemoryAllocation",
    "CUDA_ERROR_OUT_OF_MEMORY",
    "CUDA error: out of memory",
    "Cuda failure 'out of memory'",
    "RESOURCE_EXHAUSTED: Out of memory",
    NULL,
};
#define OOM_TAIL 48 /* longer than every pattern: bytes kept across reads */

const char *vs_runner_oom_pattern(const char *text, size_t len)
{
    size_t i;
    for (i = 0; oom_patterns[i]; i++)
        if (memmem(text, len, oom_patterns[i], strlen(oom_patterns[i])))
            return oom_patterns[i];
    return NULL;
}

#define TERM_GRACE_MS 1000 /* SIGTERM -> SIGKILL when the process is ending */

/* The one process-wide state here, for a signal handler: the group of the
 * command running now (0 when none) and whether the process is ending. */
static volatile sig_atomic_t g_current_group;
static volatile sig_atomic_t g_terminate;
static void *g_fork_roots[3]; /* see vs_runner_run: for a leak checker, nothing else */

void vs_runner_terminate(void)
{
    pid_t g = (pid_t)g_current_group;
    int saved = errno;
    g_terminate = 1;
    if (g > 0)
        kill(-g, SIGTERM);
    errno = saved;
}

int vs_runner_reap_strays(void)
{
    int n = 0;
    while (waitpid(-1, NULL, WNOHANG) > 0)
        n++;
    return n;
}

/* Reads state, ppid and pgrp of pid from /proc; 0 or -1 when gone. */
static int proc_stat(pid_t pid, char *state, pid_t *ppid, pid_t *pgrp)
{
    char path[64], buf[512];
    const char *p;
    ssize_t n;
    int fd, pp, pg;
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    p = strrchr(buf, ')'); /* the command name may hold spaces and parentheses */
    if (!p || sscanf(p + 1, " %c %d %d", state, &pp, &pg) != 3)
        return -1;
    *ppid = (pid_t)pp;
    *pgrp = (pid_t)pg;
    return 0;
}

int vs_runner_pid_in_tree(pid_t pid, pid_t root)
{
    int depth;
    for (depth = 0; depth < 64 && pid > 1; depth++) {
        char st;
        pid_t ppid, pgrp;
        if (pid == root)
            return 1;
        if (proc_stat(pid, &st, &ppid, &pgrp) < 0)
            return 0;
        if (pgrp == root)
            return 1;
        pid = ppid;
    }
    return 0;
}

int vs_runner_group_count(pid_t pgid)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    int count = 0;
    if (!d)
        return 0;
    while ((e = readdir(d)) != NULL) {
        char st, *end;
        pid_t ppid, pgrp;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0)
            continue;
        if (proc_stat((pid_t)pid, &st, &ppid, &pgrp) == 0 && pgrp == pgid && st != 'Z' && st != 'X')
            count++;
    }
    closedir(d);
    return count;
}

/* A pipe whose ends sit at fd 10 or above (so that the child's dup2 onto
 * 0..3 never overwrites one) and close on exec. */
static int high_pipe(int fds[2])
{
    int p[2], k;
    if (pipe(p) < 0)
        return -1;
    for (k = 0; k < 2; k++) {
        int h = fcntl(p[k], F_DUPFD_CLOEXEC, 10);
        if (h < 0) {
            close(p[0]);
            close(p[1]);
            if (k == 1)
                close(fds[0]);
            return -1;
        }
        close(p[k]);
        fds[k] = h;
    }
    return 0;
}

/* The PATH lookup execvp would do, done before fork. */
static char *find_program(const char *name)
{
    const char *path = getenv("PATH"), *p;
    char buf[4096];
    if (strchr(name, '/'))
        return strdup(name);
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    for (p = path; *p;) {
        const char *colon = strchr(p, ':');
        size_t n = colon ? (size_t)(colon - p) : strlen(p);
        snprintf(buf, sizeof buf, "%.*s/%s", (int)n, n ? p : ".", name);
        if (access(buf, X_OK) == 0)
            return strdup(buf);
        p += n;
        if (*p == ':')
            p++;
    }
    return strdup(name); /* execve will say ENOENT */
}

static char **build_env(const vs_runner_options *o)
{
    size_t n = 0, extra = 0, i, k = 0;
    char **env;
    static const char phase_var[] = "VRAMSHEET_PHASE_FD=";
    while (environ && environ[n])
        n++;
    while (o->extra_env && o->extra_env[extra])
        extra++;
    env = calloc(n + extra + 2, sizeof *env);
    if (!env)
        return NULL;
    for (i = 0; i < n; i++)
        if (strncmp(environ[i], phase_var, sizeof phase_var - 1) != 0)
            env[k++] = environ[i];
    for (i = 0; i < extra; i++)
        env[k++] = (char *)o->extra_env[i];
    env[k++] = (char *)"VRAMSHEET_PHASE_FD=3";
    env[k] = NULL;
    return env;
}

/* The status pipe's records, from the guard to the runner. */
enum { ST_GROUP = 1, ST_ERRNO = 2 };

static void st_write(int fd, int kind, int value)
{
    int rec[2];
    rec[0] = kind;
    rec[1] = value;
    if (write(fd, rec, sizeof rec) < 0) {
        /* the runner is gone: nothing more to say */
    }
}

static void all_default(void)
{
    struct sigaction sa;
    sigset_t none;
    int sig;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    for (sig = 1; sig < NSIG; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
            sigaction(sig, &sa, NULL); /* an ignored SIGINT would survive exec */
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

/* In the guard, its own copy: the command's group, for the death signal. */
static volatile sig_atomic_t g_guard_group;

/* The guard's parent (the runner's thread) died, even by SIGKILL: end the
 * command's whole group, the guard with it. */
static void guard_orphaned(int sig)
{
    (void)sig;
    if (g_guard_group > 0)
        kill(-(pid_t)g_guard_group, SIGKILL);
    _exit(128 + SIGKILL);
}

/* Between fork and exec: async-signal-safe calls only (_Fork, not fork: no
 * atfork handlers run in the child of a threaded process).
 *
 * The forked process is a guard: it starts the command in a new process group
 * (the command's pid is the group's id, as a shell's $$ says), joins that group
 * itself, and waits. PR_SET_PDEATHSIG tells the guard when the runner's thread
 * dies, however it dies (SIGKILL included): it then kills the group. A death
 * signal on the command alone would not do: /bin/sh -c forks what it runs, and
 * a forked child does not inherit the death signal. The command gets its own
 * (SIGKILL when the guard goes). The guard ignores the signals sent to the
 * group (SIGINT, SIGTERM, SIGHUP, SIGQUIT) and exits as the command did. */
static void child(pid_t runner, int out_w, int err_w, int phase_w, int status_w, int devnull,
                  const char *path, char *const *argv, char **envp)
{
    struct sigaction sa;
    pid_t guard = getpid(), cmd;
    int status = 0, e;
    static const int ignored[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    size_t i;

    all_default();
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_IGN;
    for (i = 0; i < sizeof ignored / sizeof ignored[0]; i++)
        sigaction(ignored[i], &sa, NULL);
    sa.sa_handler = guard_orphaned;
    sigaction(SIGUSR2, &sa, NULL);
    prctl(PR_SET_DUMPABLE, 0); /* a signal passed on below writes no core of the guard */
    if (prctl(PR_SET_PDEATHSIG, SIGUSR2) < 0 || getppid() != runner)
        _exit(127); /* the runner died before the death signal was set */
    if (dup2(devnull, 0) < 0 || dup2(out_w, 1) < 0 || dup2(err_w, 2) < 0 ||
        dup2(phase_w, VS_RUNNER_PHASE_FD) < 0)
        goto fail;
#ifdef SYS_close_range
    if ((status_w <= VS_RUNNER_PHASE_FD + 1 ||
         syscall(SYS_close_range, VS_RUNNER_PHASE_FD + 1, (unsigned)status_w - 1, 0) == 0) &&
        syscall(SYS_close_range, (unsigned)status_w + 1, ~0U, 0) == 0) {
        /* done */
    } else
#endif
    {
        int fd;
        for (fd = VS_RUNNER_PHASE_FD + 1; fd < 4096; fd++)
            if (fd != status_w)
                close(fd);
    }
    cmd = _Fork();
    if (cmd < 0)
        goto fail;
    if (cmd == 0) {
        setpgid(0, 0);
        all_default();
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != guard)
            _exit(127);
        execve(path, argv, envp);
        st_write(status_w, ST_ERRNO, errno);
        _exit(127);
    }
    setpgid(cmd, cmd); /* also here: no window where the group does not exist */
    g_guard_group = cmd;
    if (setpgid(0, cmd) < 0) {
        /* cannot join: the group is still ended by the death signal above */
    }
    st_write(status_w, ST_GROUP, (int)cmd);
    close(status_w);
    /* The pipes are the command's: their ends close when it and its own do
     * (fd 0 is /dev/null here; devnull itself was closed above). */
    dup2(0, 1);
    dup2(0, 2);
    close(VS_RUNNER_PHASE_FD);
    while (waitpid(cmd, &status, 0) < 0)
        if (errno != EINTR)
            _exit(127);
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = SIG_DFL;
        sigaction(sig, &sa, NULL);
        kill(guard, sig);
        _exit(128 + sig);
    }
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 127);
fail:
    e = errno;
    st_write(status_w, ST_ERRNO, e);
    _exit(127);
}

static void signal_group(pid_t pgid, int sig)
{
    if (kill(-pgid, sig) < 0 && errno == ESRCH)
        return;
}

/* Ends what is left of the group and reaps it; bounded by about grace + 2 s. */
static void end_group(pid_t pgid, int first_sig, int grace_ms, int *count)
{
    int64_t deadline;
    int left = vs_runner_group_count(pgid);
    if (count)
        *count = left;
    if (left == 0)
        goto reap;
    signal_group(pgid, first_sig);
    deadline = vs_clock_mono_ms() + grace_ms;
    while (vs_clock_mono_ms() < deadline && vs_runner_group_count(pgid) > 0) {
        struct timespec ts = {0, 10 * 1000000L};
        while (waitpid(-pgid, NULL, WNOHANG) > 0) {
        }
        nanosleep(&ts, NULL);
    }
    signal_group(pgid, SIGKILL);
reap:
    deadline = vs_clock_mono_ms() + 2000;
    while (vs_clock_mono_ms() < deadline) {
        struct timespec ts = {0, 5 * 1000000L};
        while (waitpid(-pgid, NULL, WNOHANG) > 0) {
        }
        if (kill(-pgid, 0) < 0 && errno == ESRCH)
            break;
        if (vs_runner_group_count(pgid) == 0)
            break;
        nanosleep(&ts, NULL);
    }
}

typedef struct stream_state {
    int fd;
    int which; /* 1 stdout, 2 stderr, 3 phase */
    char tail[OOM_TAIL];
    size_t tail_len;
    char *line; /* phase pipe: the line being read */
    size_t line_len;
    int line_overlong;
} stream_state;

#define PHASE_LINE_MAX 4096

static void on_phase_bytes(const vs_runner_options *o, vs_runner_result *res, stream_state *s,
                           const char *data, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        if (data[i] == '\n') {
            if (!s->line_overlong) {
                s->line[s->line_len] = '\0';
                res->phase_lines++;
                if (o->on_phase_line)
                    o->on_phase_line(o->cb, s->line, s->line_len);
            }
            s->line_len = 0;
            s->line_overlong = 0;
        } else if (s->line_len + 1 < PHASE_LINE_MAX) {
            s->line[s->line_len++] = data[i];
        } else {
            s->line_overlong = 1; /* dropped: a phase line is short */
        }
    }
}

static void scan_oom(const vs_runner_options *o, vs_runner_result *res, stream_state *s,
                     const char *data, size_t n)
{
    char buf[OOM_TAIL * 2];
    const char *hit;
    size_t take;
    if (res->oom)
        return;
    hit = vs_runner_oom_pattern(data, n);
    if (!hit) {
        /* A pattern split across two reads. */
        take = n < OOM_TAIL ? n : OOM_TAIL;
        memcpy(buf, s->tail, s->tail_len);
        memcpy(buf + s->tail_len, data, take);
        hit = vs_runner_oom_pattern(buf, s->tail_len + take);
    }
    if (hit) {
        res->oom = 1;
        snprintf(res->oom_pattern, sizeof res->oom_pattern, "%s", hit);
        if (o->on_oom)
            o->on_oom(o->cb, hit);
        return;
    }
    if (n >= OOM_TAIL) {
        memcpy(s->tail, data + n - OOM_TAIL, OOM_TAIL);
        s->tail_len = OOM_TAIL;
    } else {
        size_t keep = s->tail_len + n > OOM_TAIL ? OOM_TAIL - n : s->tail_len;
        memmove(s->tail, s->tail + s->tail_len - keep, keep);
        memcpy(s->tail + keep, data, n);
        s->tail_len = keep + n;
    }
}

/* Reads what is there; returns 1 at end of file. */
static int drain(const vs_runner_options *o, vs_runner_result *res, stream_state *s)
{
    char buf[65536];
    int rounds;
    for (rounds = 0; rounds < 16; rounds++) {
        ssize_t n = read(s->fd, buf, sizeof buf);
        if (n == 0)
            return 1;
        if (n < 0)
            return (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) ? 0 : 1;
        if (s->which == 3) {
            on_phase_bytes(o, res, s, buf, (size_t)n);
        } else {
            if (o->on_output)
                o->on_output(o->cb, s->which, buf, (size_t)n);
            scan_oom(o, res, s, buf, (size_t)n);
        }
    }
    return 0;
}

int vs_runner_run(const vs_runner_options *o, vs_runner_result *res, vs_error *err)
{
    int outp[2] = {-1, -1}, errp[2] = {-1, -1}, phasep[2] = {-1, -1}, statp[2] = {-1, -1};
    int devnull = -1, rc = 0, k, status = 0, child_done = 0, was_subreaper = 0, set_subreaper = 0;
    stream_state st[3];
    char **envp = NULL, *path = NULL, *line = NULL;
    char *sh_argv[4];
    char *const *argv;
    pid_t pid, guard, self;
    int64_t start, deadline, next_tick, kill_at = 0, exit_at = 0;
    int killing = 0, terminating = 0, grace = o->grace_ms > 0 ? o->grace_ms : 2000;
    int tick = o->tick_ms > 0 ? o->tick_ms : 250;

    memset(res, 0, sizeof *res);
    memset(st, 0, sizeof st);
    for (k = 0; k < 3; k++)
        st[k].fd = -1;
    if (!o->command && (!o->argv || !o->argv[0]))
        return vs_error_set(err, VS_EVALUE, "no command to run");
    envp = build_env(o);
    line = malloc(PHASE_LINE_MAX);
    if (o->command) {
        sh_argv[0] = (char *)"sh";
        sh_argv[1] = (char *)"-c";
        sh_argv[2] = (char *)o->command;
        sh_argv[3] = NULL;
        argv = sh_argv;
        path = strdup("/bin/sh");
    } else {
        argv = o->argv;
        path = find_program(o->argv[0]);
    }
    if (!envp || !line || !path) {
        rc = vs_error_set(err, VS_ENOMEM, "out of memory");
        goto done;
    }
    devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (devnull >= 0 && devnull < 10) {
        int h = fcntl(devnull, F_DUPFD_CLOEXEC, 10);
        close(devnull);
        devnull = h;
    }
    if (devnull < 0 || high_pipe(outp) < 0 || high_pipe(errp) < 0 || high_pipe(phasep) < 0 ||
        high_pipe(statp) < 0) {
        rc = vs_error_set(err, VS_EMEASURE, "cannot start the command: %s", strerror(errno));
        goto done;
    }
    /* Orphans of the command stay our children, so that they can be reaped
     * (a container's PID 1 may never reap them) and counted. */
    if (prctl(PR_GET_CHILD_SUBREAPER, &was_subreaper) == 0 && !was_subreaper)
        set_subreaper = prctl(PR_SET_CHILD_SUBREAPER, 1) == 0;

    vs_runner_reap_strays();
    start = vs_clock_mono_ms();
    self = getpid();
    /* The guard never returns and the compiler saves no registers for it: the
     * only pointers to these blocks would vanish, and a leak checker in the
     * guard (valgrind) would call them lost. A static root keeps them seen. */
    g_fork_roots[0] = envp;
    g_fork_roots[1] = path;
    g_fork_roots[2] = line;
    guard = _Fork();
    if (guard < 0) {
        rc = vs_error_set(err, VS_EMEASURE, "cannot start the command: fork: %s", strerror(errno));
        goto done;
    }
    if (guard == 0)
        child(self, outp[1], errp[1], phasep[1], statp[1], devnull, path, argv, envp);
    memset(g_fork_roots, 0, sizeof g_fork_roots);
    close(outp[1]);
    close(errp[1]);
    close(phasep[1]);
    close(statp[1]);
    outp[1] = errp[1] = phasep[1] = statp[1] = -1;
    {
        /* The guard says the command's pid (the group), then nothing until the
         * command's exec closes the pipe, or why it could not start. */
        int recs[4] = {0, 0, 0, 0};
        size_t got = 0;
        ssize_t n;
        while (got < sizeof recs) {
            n = read(statp[0], (char *)recs + got, sizeof recs - got);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            got += (size_t)n;
        }
        pid = recs[0] == ST_GROUP && got >= 2 * sizeof(int) ? (pid_t)recs[1] : 0;
        if (pid <= 0 || (got >= sizeof recs && recs[2] == ST_ERRNO)) {
            int e = recs[0] == ST_ERRNO ? recs[1] : recs[2] == ST_ERRNO ? recs[3] : ECHILD;
            if (pid > 0)
                kill(-pid, SIGKILL);
            waitpid(guard, NULL, 0);
            rc = vs_error_set(err, VS_EMEASURE, "cannot start %s: %s", argv[0], strerror(e));
            goto done;
        }
    }
    res->pid = pid;
    g_current_group = pid;
    if (g_terminate) /* a SIGTERM came before the group existed */
        kill(-pid, SIGTERM);
    st[0].fd = outp[0];
    st[0].which = 1;
    st[1].fd = errp[0];
    st[1].which = 2;
    st[2].fd = phasep[0];
    st[2].which = 3;
    st[2].line = line;
    outp[0] = errp[0] = phasep[0] = -1;
    for (k = 0; k < 3; k++)
        fcntl(st[k].fd, F_SETFL, fcntl(st[k].fd, F_GETFL) | O_NONBLOCK);
    if (o->on_started)
        o->on_started(o->cb, pid);

    deadline = o->timeout_s > 0 ? start + (int64_t)(o->timeout_s * 1000.0) : 0;
    next_tick = start + tick;
    for (;;) {
        struct pollfd pfd[3];
        int nfd = 0, map[3], timeout;
        int64_t t = vs_clock_mono_ms(), wake = next_tick;
        if (deadline && !killing && deadline < wake)
            wake = deadline;
        if (killing && kill_at < wake)
            wake = kill_at;
        timeout = (int)(wake - t);
        if (timeout > 20)
            timeout = 20; /* the interrupt flag and the child's exit are polled */
        if (timeout < 0)
            timeout = 0;
        /* The phase pipe first: a phase line written before an error message
         * must be read before it. */
        for (k = 2; k >= 0; k--) {
            if (st[k].fd >= 0) {
                pfd[nfd].fd = st[k].fd;
                pfd[nfd].events = POLLIN;
                pfd[nfd].revents = 0;
                map[nfd++] = k;
            }
        }
        if (nfd > 0) {
            int pr = poll(pfd, (nfds_t)nfd, timeout);
            if (pr > 0) {
                int i;
                for (i = 0; i < nfd; i++) {
                    stream_state *s = &st[map[i]];
                    if (pfd[i].revents & (POLLIN | POLLHUP | POLLERR)) {
                        if (drain(o, res, s)) {
                            close(s->fd);
                            s->fd = -1;
                        }
                    }
                }
            }
        } else if (timeout > 0) {
            struct timespec ts = {0, (long)timeout * 1000000L};
            nanosleep(&ts, NULL);
        }
        t = vs_clock_mono_ms();
        if (!child_done) {
            pid_t w = waitpid(guard, &status, WNOHANG);
            if (w == guard) {
                child_done = 1;
                exit_at = t;
                if (WIFEXITED(status)) {
                    res->exit_status = WEXITSTATUS(status);
                } else if (WIFSIGNALED(status)) {
                    res->term_signal = WTERMSIG(status);
                    res->exit_status = 128 + res->term_signal;
                }
            }
        }
        if (child_done && st[0].fd < 0 && st[1].fd < 0 && st[2].fd < 0)
            break;
        /* The command exited but something it started still holds a pipe. */
        if (child_done && !killing && t - exit_at > 500) {
            int left = vs_runner_group_count(pid);
            if (left == 0)
                break;
            res->leftovers = left;
            killing = 1;
            signal_group(pid, SIGTERM);
            kill_at = t + grace;
        }
        if (g_terminate && !terminating) {
            /* The process is ending (vs_runner_terminate): the group goes first,
             * quickly, before whoever sent SIGTERM sends SIGKILL. */
            terminating = 1;
            res->interrupted = 1;
            signal_group(pid, SIGTERM);
            killing = 2;
            kill_at = t + (grace < TERM_GRACE_MS ? grace : TERM_GRACE_MS);
        }
        if (!killing && o->interrupted && o->interrupted(o->cb)) {
            res->interrupted = 1;
            killing = 1;
            signal_group(pid, SIGINT);
            kill_at = t + grace;
        }
        if (!killing && deadline && t >= deadline) {
            res->timed_out = 1;
            killing = 1;
            signal_group(pid, SIGTERM);
            kill_at = t + grace;
        }
        /* The command itself is gone: what remains ignored the polite signal
         * (a non-interactive shell starts `&` jobs with SIGINT ignored). */
        if (killing && killing < 3 && child_done && t - exit_at >= 200 && kill_at > t)
            kill_at = t;
        if (killing == 1 && t >= kill_at) {
            /* Interrupt: SIGINT, then SIGTERM, then SIGKILL. */
            if (res->interrupted) {
                signal_group(pid, SIGTERM);
                killing = 2;
                kill_at = t + grace;
            } else {
                signal_group(pid, SIGKILL);
                killing = 3;
                kill_at = t + 2000;
            }
        } else if (killing == 2 && t >= kill_at) {
            signal_group(pid, SIGKILL);
            killing = 3;
            kill_at = t + 2000;
        } else if (killing == 3 && t >= kill_at) {
            break; /* pipes still open after SIGKILL: held outside the group */
        }
        if (o->on_tick && t >= next_tick) {
            o->on_tick(o->cb);
            next_tick = t + tick;
        }
    }
    if (!child_done) {
        if (waitpid(guard, &status, 0) == guard) {
            if (WIFEXITED(status)) {
                res->exit_status = WEXITSTATUS(status);
            } else if (WIFSIGNALED(status)) {
                res->term_signal = WTERMSIG(status);
                res->exit_status = 128 + res->term_signal;
            }
        }
    }
    {
        int left = 0;
        end_group(pid, SIGTERM, grace, &left);
        if (left > res->leftovers && !res->interrupted && !res->timed_out)
            res->leftovers = left;
    }
    g_current_group = 0;
    vs_runner_reap_strays();
    res->elapsed_ms = vs_clock_mono_ms() - start;
    if (o->command && (res->exit_status == 127 || res->exit_status == 126) && !res->term_signal &&
        res->phase_lines == 0 && !res->interrupted && !res->timed_out)
        rc = vs_error_set(err, VS_EMEASURE, "the command could not start: /bin/sh answered %d (%s)",
                          res->exit_status,
                          res->exit_status == 127 ? "command not found" : "not executable");
done:
    if (set_subreaper)
        prctl(PR_SET_CHILD_SUBREAPER, 0);
    for (k = 0; k < 3; k++)
        if (st[k].fd >= 0)
            close(st[k].fd);
    for (k = 0; k < 2; k++) {
        if (outp[k] >= 0)
            close(outp[k]);
        if (errp[k] >= 0)
            close(errp[k]);
        if (phasep[k] >= 0)
            close(phasep[k]);
        if (statp[k] >= 0)
            close(statp[k]);
    }
    if (devnull >= 0)
        close(devnull);
    free(envp);
    free(path);
    free(line);
    return rc;
}
