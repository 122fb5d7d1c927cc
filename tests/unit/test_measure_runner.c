/* The process runner (src/measure/runner.c): streaming, the phase pipe,
 * timeout and interrupt ending the whole group, out-of-memory detection. */
#include "../measure/measure_testlib.h"

#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "measure/runner.h"
#include "util/buf.h"

#include "check_run.h"

typedef struct rec {
    vs_buf out, err, phase;
    int64_t start, first_out_ms;
    int64_t interrupt_after_ms;
    int ticks;
    pid_t pid;
    int child_in_tree, self_in_tree;
} rec;

static int64_t ms_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void on_output(void *cb, int stream, const char *d, size_t n)
{
    rec *r = cb;
    if (r->first_out_ms < 0)
        r->first_out_ms = ms_now() - r->start;
    vs_buf_append(stream == 1 ? &r->out : &r->err, d, n);
}

static void on_phase(void *cb, const char *line, size_t n)
{
    rec *r = cb;
    vs_buf_append(&r->phase, line, n);
    vs_buf_putc(&r->phase, '|');
    if (!strncmp(line, "pid ", 4)) {
        pid_t p = (pid_t)atoi(line + 4);
        r->child_in_tree = vs_runner_pid_in_tree(p, r->pid);
        r->self_in_tree = vs_runner_pid_in_tree(getpid(), r->pid);
    }
}

static void on_started(void *cb, pid_t pid)
{
    ((rec *)cb)->pid = pid;
}
static void on_tick(void *cb)
{
    ((rec *)cb)->ticks++;
}

static int interrupted(void *cb)
{
    rec *r = cb;
    return r->interrupt_after_ms > 0 && ms_now() - r->start >= r->interrupt_after_ms;
}

static int run(const char *cmd, double timeout, int grace, int64_t interrupt_after, rec *r,
               vs_runner_result *res, vs_error *err)
{
    vs_runner_options o;
    vs_buf_free(&r->out);
    vs_buf_free(&r->err);
    vs_buf_free(&r->phase);
    memset(r, 0, sizeof *r);
    r->first_out_ms = -1;
    r->interrupt_after_ms = interrupt_after;
    memset(&o, 0, sizeof o);
    o.command = cmd;
    o.timeout_s = timeout;
    o.grace_ms = grace;
    o.tick_ms = 50;
    o.cb = r;
    o.on_output = on_output;
    o.on_phase_line = on_phase;
    o.on_started = on_started;
    o.on_tick = on_tick;
    o.interrupted = interrupted;
    r->start = ms_now();
    vs_error_clear(err);
    return vs_runner_run(&o, res, err);
}

static void assert_group_gone(pid_t pgid)
{
    ck_assert_int_gt(pgid, 0);
    ck_assert_int_eq(kill(-pgid, 0), -1);
    ck_assert_int_eq(errno, ESRCH);
    ck_assert_int_eq(vs_runner_group_count(pgid), 0);
}

START_TEST(test_streams_and_phase_pipe)
{
    rec r;
    memset(&r, 0, sizeof r);
    vs_runner_result res;
    vs_error err;
    ck_assert_int_eq(run("echo out; echo err >&2; echo \"phase load\" >&$VRAMSHEET_PHASE_FD; "
                         "printf 'dims length=8' >&3; cat; exit 3",
                         10, 500, 0, &r, &res, &err),
                     0);
    ck_assert_int_eq(res.exit_status, 3);
    ck_assert_int_eq(res.term_signal, 0);
    ck_assert_str_eq(vs_buf_str(&r.out), "out\n");
    ck_assert_str_eq(vs_buf_str(&r.err), "err\n");
    /* a last line without its newline is not a line */
    ck_assert_str_eq(vs_buf_str(&r.phase), "phase load|");
    ck_assert_int_eq(res.phase_lines, 1);
    ck_assert_int_eq(res.pid, r.pid);
    assert_group_gone(res.pid);
    vs_buf_free(&r.out);
    vs_buf_free(&r.err);
    vs_buf_free(&r.phase);
}
END_TEST

START_TEST(test_output_arrives_as_it_comes)
{
    rec r;
    memset(&r, 0, sizeof r);
    vs_runner_result res;
    vs_error err;
    ck_assert_int_eq(run("echo first; sleep 1; echo second", 10, 500, 0, &r, &res, &err), 0);
    ck_assert_str_eq(vs_buf_str(&r.out), "first\nsecond\n");
    ck_assert_int_lt(r.first_out_ms, 700);
    ck_assert_int_ge(res.elapsed_ms, 1000);
    ck_assert_int_ge(r.ticks, 10);
    vs_buf_free(&r.out);
    vs_buf_free(&r.err);
    vs_buf_free(&r.phase);
}
END_TEST

START_TEST(test_timeout_ends_group)
{
    rec r;
    memset(&r, 0, sizeof r);
    vs_runner_result res;
    vs_error err;
    ck_assert_int_eq(run("sleep 30 & sh -c 'sleep 30' & sleep 30", 0.3, 300, 0, &r, &res, &err), 0);
    ck_assert_int_eq(res.timed_out, 1);
    ck_assert_int_eq(res.term_signal, SIGTERM);
    ck_assert_int_eq(res.exit_status, 128 + SIGTERM);
    ck_assert_int_lt(res.elapsed_ms, 5000);
    assert_group_gone(res.pid);
    vs_buf_free(&r.out);
    vs_buf_free(&r.err);
    vs_buf_free(&r.phase);
}
END_TEST

START_TEST(test_timeout_kills_stubborn)
{
    rec r;
    memset(&r, 0, sizeof r);
    vs_runner_result res;
    vs_error err;
    ck_assert_int_eq(
        run("trap '' TERM INT; sleep 30 & wait; sleep 30", 0.2, 300, 0, &r, &res, &err), 0);
    ck_assert_int_eq(res.timed_out, 1);
    ck_assert_int_eq(res.term_signal, SIGKILL);
    ck_assert_int_lt(res.elapsed_ms, 5000);
    assert_group_gone(res.pid);
    vs_buf_free(&r.out);
    vs_buf_free(&r.err);
    vs_buf_free(&r.phase);
}
END_TEST

START_TEST(test_interrupt_ends_group)
{
    rec r;
    memset(&r, 0, sizeof r);
    vs_runner_result res;
    vs_error err;
    /* The kernel may ignore SIGINT while idle: the command must not inherit that. */
    signal(SIGINT, SIG_IGN);
    ck_assert_int_eq(run("sleep 30 & sleep 30 & wait", 0, 5000, 200, &r, &res, &err), 0);
    ck_assert_int_eq(res.interrupted, 1);
    ck_assert_int_eq(res.timed_out, 0);
    ck_assert_int_eq(res.term_signal, SIGINT);
    ck_assert_int_lt(res.elapsed_ms, 3000); /* SIGINT did it, not the SIGKILL after 5 s */
    assert_group_gone(res.pid);
    vs_buf_free(&r.out);
    vs_buf_free(&r.err);
    vs_buf_free(&r.phase);
}
END_TEST

START_TEST(test_leftovers_ended)
{
    rec r;
    memset(&r, 0, sizeof r);
    vs_runner_result res;
    vs_error err;
    ck_assert_int_eq(run("sleep 30 >/dev/null 2>&1 3>&- & exit 0", 0, 300, 0, &r, &res, &err), 0);
    ck_assert_int_eq(res.exit_status, 0);
    ck_assert_int_eq(res.leftovers, 1);
    assert_group_gone(res.pid);
    vs_buf_free(&r.out);
    vs_buf_free(&r.err);
    vs_buf_free(&r.phase);
}
END_TEST

START_TEST(test_leftover_holding_pipe)
{
    rec r;
    memset(&r, 0, sizeof r);
    vs_runner_result res;
    vs_error err;
    ck_assert_int_eq(run("sleep 30 & echo done", 0, 300, 0, &r, &res, &err), 0);
    ck_assert_int_eq(res.exit_status, 0);
    ck_assert_int_eq(res.leftovers, 1);
    ck_assert_int_lt(res.elapsed_ms, 5000);
    assert_group_gone(res.pid);
    vs_buf_free(&r.out);
    vs_buf_free(&r.err);
    vs_buf_free(&r.phase);
}
END_TEST

START_TEST(test_cannot_start)
{
    rec r;
    memset(&r, 0, sizeof r);
    vs_runner_result res;
    vs_error err;
    vs_runner_options o;
    char *argv[] = {(char *)"/nonexistent/program", NULL};
    ck_assert_int_eq(run("/nonexistent/program --x", 0, 300, 0, &r, &res, &err), VS_EMEASURE);
    ck_assert_ptr_nonnull(strstr(err.message, "command not found"));
    memset(&o, 0, sizeof o);
    o.argv = argv;
    ck_assert_int_eq(vs_runner_run(&o, &res, &err), VS_EMEASURE);
    ck_assert_ptr_nonnull(strstr(err.message, "No such file"));
    /* a failing command is a result, not an error */
    ck_assert_int_eq(run("exit 1", 0, 300, 0, &r, &res, &err), 0);
    ck_assert_int_eq(res.exit_status, 1);
    vs_buf_free(&r.out);
    vs_buf_free(&r.err);
    vs_buf_free(&r.phase);
}
END_TEST

START_TEST(test_oom_detection)
{
    rec r;
    memset(&r, 0, sizeof r);
    vs_runner_result res;
    vs_error err;
    ck_assert_int_eq(run("echo 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2 "
                         "GiB' >&2; exit 1",
                         0, 300, 0, &r, &res, &err),
                     0);
    ck_assert_int_eq(res.oom, 1);
    ck_assert_str_eq(res.oom_pattern, "CUDA out of memory");
    /* split across two writes */
    ck_assert_int_eq(
        run("printf 'RuntimeError: CUBLAS_STATUS_AL' >&2; sleep 0.2; printf 'LOC_FAILED\\n' >&2", 0,
            300, 0, &r, &res, &err),
        0);
    ck_assert_int_eq(res.oom, 1);
    ck_assert_str_eq(res.oom_pattern, "CUBLAS_STATUS_ALLOC_FAILED");
    ck_assert_int_eq(run("echo 'all fine: memory ok'", 0, 300, 0, &r, &res, &err), 0);
    ck_assert_int_eq(res.oom, 0);
    ck_assert_ptr_nonnull(vs_runner_oom_pattern("x cudaErrorMemoryAllocation y", 29));
    ck_assert_ptr_null(vs_runner_oom_pattern("out of memory", 13));
    vs_buf_free(&r.out);
    vs_buf_free(&r.err);
    vs_buf_free(&r.phase);
}
END_TEST

START_TEST(test_environment_and_tree)
{
    rec r;
    memset(&r, 0, sizeof r);
    vs_runner_result res;
    vs_error err;
    ck_assert_int_eq(
        run("test \"$VRAMSHEET_PHASE_FD\" = 3 || exit 9; sleep 5 & echo \"pid $!\" >&3; "
            "sleep 0.3; kill $!",
            10, 300, 0, &r, &res, &err),
        0);
    ck_assert_int_eq(res.exit_status, 0);
    ck_assert_int_eq(r.child_in_tree, 1);
    ck_assert_int_eq(r.self_in_tree, 0);
    ck_assert_int_eq(vs_runner_pid_in_tree(1, getpid()), 0);
    vs_buf_free(&r.out);
    vs_buf_free(&r.err);
    vs_buf_free(&r.phase);
}
END_TEST

/* Running (not gone and not a zombie), from /proc. */
static int alive(pid_t pid)
{
    char path[64], buf[512], *p;
    FILE *f;
    size_t n;
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    if (!(f = fopen(path, "r")))
        return 0;
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    p = strrchr(buf, ')');
    return p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

static pid_t read_pid(const char *path, int wait_ms)
{
    int64_t until = ms_now() + wait_ms;
    do {
        char *t = mt_read(path);
        pid_t p = t ? (pid_t)atoi(t) : 0;
        free(t);
        if (p > 0)
            return p;
        usleep(20000);
    } while (ms_now() < until);
    return 0;
}

/* A process running the runner, started with fork; the command writes the pid
 * of its sleep (the shell's child: no death signal of its own) to pidfile. */
static pid_t runner_process(const char *cmd)
{
    pid_t p = fork();
    ck_assert_int_ge(p, 0);
    if (p == 0) {
        rec r;
        vs_runner_result res;
        vs_error err;
        memset(&r, 0, sizeof r);
        signal(SIGTERM, SIG_DFL);
        _exit(run(cmd, 0, 300, 0, &r, &res, &err) == 0 ? res.interrupted ? 3 : 0 : 1);
    }
    return p;
}

START_TEST(test_runner_killed_ends_group)
{
    /* kill -9 of the runner's process: its guard kills the group (the shell
     * and the sleep the shell forked). */
    char pidfile[512], cmd[1024];
    pid_t runner, sleeper;
    int64_t t0;
    mt_tmpdir();
    mt_path(pidfile, sizeof pidfile, "sleeper");
    snprintf(cmd, sizeof cmd, "sleep 44 & echo $! > %s; wait", pidfile);
    runner = runner_process(cmd);
    sleeper = read_pid(pidfile, 5000);
    ck_assert_int_gt(sleeper, 0);
    ck_assert(alive(sleeper));
    kill(runner, SIGKILL);
    ck_assert_int_eq(waitpid(runner, NULL, 0), runner);
    t0 = ms_now();
    while (alive(sleeper) && ms_now() - t0 < 3000)
        usleep(20000);
    ck_assert_msg(!alive(sleeper), "the sleep outlived the runner by 3 s");
}
END_TEST

static void on_term(int sig)
{
    (void)sig;
    vs_runner_terminate();
}

START_TEST(test_terminate_ends_stubborn_group)
{
    /* SIGTERM to the runner's process (its handler calls vs_runner_terminate):
     * the group goes first, even one that ignores SIGTERM, within about 1 s. */
    char pidfile[512], cmd[1024];
    pid_t runner, sleeper;
    int status = 0;
    int64_t t0;
    mt_tmpdir();
    mt_path(pidfile, sizeof pidfile, "stubborn");
    snprintf(cmd, sizeof cmd, "trap '' TERM INT; sleep 44 & echo $! > %s; wait; sleep 44", pidfile);
    runner = fork();
    ck_assert_int_ge(runner, 0);
    if (runner == 0) {
        rec r;
        vs_runner_result res;
        vs_error err;
        memset(&r, 0, sizeof r);
        signal(SIGTERM, on_term);
        _exit(run(cmd, 0, 5000, 0, &r, &res, &err) == 0 && res.interrupted ? 3 : 1);
    }
    sleeper = read_pid(pidfile, 5000);
    ck_assert_int_gt(sleeper, 0);
    t0 = ms_now();
    kill(runner, SIGTERM);
    ck_assert_int_eq(waitpid(runner, &status, 0), runner);
    ck_assert(WIFEXITED(status));
    ck_assert_int_eq(WEXITSTATUS(status), 3); /* returned, marked interrupted */
    ck_assert_int_lt(ms_now() - t0, 3000);    /* 1 s to SIGKILL, not the 5 s grace */
    ck_assert(!alive(sleeper));
}
END_TEST

START_TEST(test_setsid_stray_reaped)
{
    /* A child that left the group (setsid) outlives the command; it was
     * adopted (subreaper) and is reaped once it ends, never left a zombie. */
    rec r;
    vs_runner_result res;
    vs_error err;
    char pidfile[512], cmd[1024], path[64];
    pid_t stray;
    int64_t t0;
    memset(&r, 0, sizeof r);
    mt_tmpdir();
    mt_path(pidfile, sizeof pidfile, "stray");
    snprintf(cmd, sizeof cmd,
             "setsid sh -c 'echo $$ > %s; exec sleep 1' >/dev/null 2>&1 3>&- & sleep 0.1", pidfile);
    ck_assert_int_eq(run(cmd, 0, 300, 0, &r, &res, &err), 0);
    stray = read_pid(pidfile, 2000);
    ck_assert_int_gt(stray, 0);
    t0 = ms_now();
    while (alive(stray) && ms_now() - t0 < 3000)
        usleep(20000);
    ck_assert(!alive(stray));
    usleep(50000);
    snprintf(path, sizeof path, "/proc/%d", (int)stray);
    ck_assert_int_eq(access(path, F_OK), 0); /* a zombie of ours, until: */
    ck_assert_int_eq(vs_runner_reap_strays(), 1);
    ck_assert_int_eq(access(path, F_OK), -1);
    ck_assert_int_eq(vs_runner_reap_strays(), 0);
    vs_buf_free(&r.out);
    vs_buf_free(&r.err);
    vs_buf_free(&r.phase);
}
END_TEST

START_TEST(test_exit_status_passes_the_guard)
{
    /* The guard exits as the command did: a code, or the signal that ended it. */
    rec r;
    vs_runner_result res;
    vs_error err;
    memset(&r, 0, sizeof r);
    ck_assert_int_eq(run("exit 42", 0, 300, 0, &r, &res, &err), 0);
    ck_assert_int_eq(res.exit_status, 42);
    ck_assert_int_eq(res.term_signal, 0);
    ck_assert_int_eq(run("kill -SEGV $$", 0, 300, 0, &r, &res, &err), 0);
    ck_assert_int_eq(res.term_signal, SIGSEGV);
    ck_assert_int_eq(res.exit_status, 128 + SIGSEGV);
    ck_assert_int_eq(run("kill -TERM $$", 0, 300, 0, &r, &res, &err), 0);
    ck_assert_int_eq(res.term_signal, SIGTERM); /* the guard ignores it, then passes it on */
    vs_buf_free(&r.out);
    vs_buf_free(&r.err);
    vs_buf_free(&r.phase);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("measure_runner");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_streams_and_phase_pipe);
    tcase_add_test(tc, test_output_arrives_as_it_comes);
    tcase_add_test(tc, test_timeout_ends_group);
    tcase_add_test(tc, test_timeout_kills_stubborn);
    tcase_add_test(tc, test_interrupt_ends_group);
    tcase_add_test(tc, test_leftovers_ended);
    tcase_add_test(tc, test_leftover_holding_pipe);
    tcase_add_test(tc, test_cannot_start);
    tcase_add_test(tc, test_oom_detection);
    tcase_add_test(tc, test_environment_and_tree);
    tcase_add_test(tc, test_runner_killed_ends_group);
    tcase_add_test(tc, test_terminate_ends_stubborn_group);
    tcase_add_test(tc, test_setsid_stray_reaped);
    tcase_add_test(tc, test_exit_status_passes_the_guard);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
