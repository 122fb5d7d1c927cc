/* The process runner (src/measure/runner.c): streaming, the phase pipe,
 * timeout and interrupt ending the whole group, out-of-memory detection. */
#include "../measure/measure_testlib.h"

#include <errno.h>
#include <signal.h>
#include <time.h>

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

static void on_started(void *cb, pid_t pid) { ((rec *)cb)->pid = pid; }
static void on_tick(void *cb) { ((rec *)cb)->ticks++; }

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
    ck_assert_int_eq(run("trap '' TERM INT; sleep 30 & wait; sleep 30", 0.2, 300, 0, &r, &res, &err),
                     0);
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
    ck_assert_int_eq(run("echo 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2 GiB' >&2; exit 1",
                         0, 300, 0, &r, &res, &err),
                     0);
    ck_assert_int_eq(res.oom, 1);
    ck_assert_str_eq(res.oom_pattern, "CUDA out of memory");
    /* split across two writes */
    ck_assert_int_eq(run("printf 'RuntimeError: CUBLAS_STATUS_AL' >&2; sleep 0.2; printf 'LOC_FAILED\\n' >&2",
                         0, 300, 0, &r, &res, &err),
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
    ck_assert_int_eq(run("test \"$VRAMSHEET_PHASE_FD\" = 3 || exit 9; sleep 5 & echo \"pid $!\" >&3; "
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
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
