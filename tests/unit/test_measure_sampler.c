/* The sampler and one measured run (src/measure/sampler.c, measure.c) against
 * the fake NVML: peaks per phase, a short peak caught, process attribution,
 * NOT_SUPPORTED, overflow phase, counters and dims, no driver. */
#include "../measure/measure_testlib.h"

#include <errno.h>
#include <signal.h>

#include "measure/measure.h"

#include "check_run.h"

#define GPU0                                                                                       \
    "gpu 0 name=\"NVIDIA H200\" total=150754820096 used=1000000 "                                  \
    "uuid=GPU-11111111-2222-3333-4444-555555555555\n"
#define GPU1                                                                                       \
    "gpu 1 name=\"NVIDIA H200\" total=150754820096 used=2000000 "                                  \
    "uuid=GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee\n"

/* A shell function the commands use to set the fake's state atomically. */
#define SETMEM                                                                                     \
    "setmem() { printf 'gpu 0 used %s\\nproc %s gpu 0 mem %s\\n' \"$1\" \"$$\" \"$2\" > "          \
    "\"$FAKE_NVML_STATE.t\"; mv \"$FAKE_NVML_STATE.t\" \"$FAKE_NVML_STATE\"; }; "

static const vs_sampler_cell *cell(const vs_measure_result *r, const char *phase, unsigned gpu)
{
    size_t i;
    for (i = 0; i < r->view->nphases; i++)
        if (!strcmp(r->view->phases[i].name, phase))
            return &r->view->phases[i].gpus[gpu];
    return NULL;
}

static const vs_measure_counter *counter(const vs_measure_result *r, const char *phase,
                                         const char *name, unsigned gpu)
{
    size_t i;
    for (i = 0; i < r->ncounters; i++)
        if (!strcmp(r->counters[i].phase, phase) && !strcmp(r->counters[i].name, name) &&
            r->counters[i].gpu_known && r->counters[i].gpu == gpu)
            return &r->counters[i];
    return NULL;
}

static int measure(const char *cmd, const char *phase, double timeout, vs_measure_result *r,
                   vs_error *err)
{
    vs_measure_options o;
    memset(&o, 0, sizeof o);
    o.command = cmd;
    o.phase = phase;
    o.timeout_s = timeout;
    o.grace_ms = 300;
    vs_error_clear(err);
    return vs_measure_run(&o, r, err);
}

START_TEST(test_peaks_per_phase)
{
    vs_measure_result r;
    vs_error err;
    const vs_sampler_cell *c;
    const vs_measure_phase_dims *d;
    mt_fake(VS_FAKE_NVML, GPU0 GPU1 "proc 1 gpu 0 mem 7777\n");
    ck_assert_int_eq(
        measure(SETMEM
                "echo 'phase load' >&3; sleep 0.1; setmem 5000000000 4000000000; sleep 0.2; "
                "echo 'phase generate' >&3; echo 'dims length=128 concurrency=1' >&3; sleep 0.1; "
                "setmem 9000000000 8000000000; sleep 0.2; setmem 6000000000 5000000000; sleep 0.1; "
                "echo 'phase load' >&3; sleep 0.1",
                NULL, 20, &r, &err),
        0);
    ck_assert_int_eq(r.run.exit_status, 0);
    ck_assert_uint_eq(r.ngpus, 2);
    ck_assert_uint_eq(r.view->nphases, 3);
    ck_assert_str_eq(r.view->phases[0].name, "run");
    ck_assert_str_eq(r.view->phases[1].name, "load");
    ck_assert_str_eq(r.view->phases[2].name, "generate");
    c = cell(&r, "run", 0);
    ck_assert_uint_eq(c->device_peak, 1000000);
    c = cell(&r, "load", 0);
    /* load was revisited at the end, with 6 GB in use: the peak of the name */
    ck_assert_uint_eq(c->device_peak, 6000000000ULL);
    ck_assert_uint_eq(c->process_peak, 5000000000ULL);
    c = cell(&r, "generate", 0);
    ck_assert_uint_eq(c->device_peak, 9000000000ULL);
    ck_assert_uint_eq(c->process_peak, 8000000000ULL); /* pid 1 is not the command's */
    ck_assert_int_gt(c->device_peak_at, r.started_at - 1);
    c = cell(&r, "generate", 1);
    ck_assert_uint_eq(c->device_peak, 2000000);
    ck_assert_uint_eq(c->process_peak, 0);
    ck_assert_int_eq(r.view->process_available, 1);
    ck_assert_int_eq(r.view->process_attributed, 1);
    d = vs_measure_dims_of(&r, "generate");
    ck_assert_ptr_nonnull(d);
    ck_assert_uint_eq(d->ndims, 2);
    ck_assert_str_eq(d->dims[0].key, "length");
    ck_assert_uint_eq(d->dims[0].value, 128);
    ck_assert_uint_eq(vs_measure_dims_of(&r, "run")->ndims, 0);
    ck_assert_str_eq(r.overflow_phase, "");
    ck_assert_str_eq(r.driver, "550.54.15");
    ck_assert_str_eq(r.memory_api, "v2");
    ck_assert_str_eq(r.process_api, "v3/24");
    ck_assert_int_eq(kill(-r.run.pid, 0), -1);
    vs_measure_result_clear(&r);
}
END_TEST

START_TEST(test_short_peak_caught)
{
    vs_measure_result r;
    vs_error err;
    int round;
    /* 9 GB held for 50 ms, from 300 to 350 ms after NVML starts, by the curve */
    mt_fake(VS_FAKE_NVML, GPU0 "at 0 gpu 0 used 1000000000\nat 300 gpu 0 used 9000000000\n"
                               "at 350 gpu 0 used 1000000000\n");
    for (round = 0; round < 3; round++) {
        ck_assert_int_eq(measure("sleep 0.7", "load", 10, &r, &err), 0);
        ck_assert_msg(cell(&r, "load", 0)->device_peak == 9000000000ULL,
                      "peak %llu, longest gap between samples %lld ms",
                      (unsigned long long)cell(&r, "load", 0)->device_peak,
                      (long long)r.view->max_gap_ms);
        ck_assert_uint_ge(r.view->samples, 30);
        vs_measure_result_clear(&r);
    }
}
END_TEST

START_TEST(test_short_phase_has_its_end)
{
    vs_measure_result r;
    vs_measure_options o;
    vs_error err;
    /* One round every 5 s: the run ends long before a periodic round, so the
     * 7 GB of phase "load" can only be seen by the round its phase change takes,
     * and generate's 8 GB by the last one. Markers are read asynchronously:
     * each is followed by a pause before memory moves. */
    mt_fake(VS_FAKE_NVML, GPU0);
    memset(&o, 0, sizeof o);
    o.command = SETMEM "echo 'phase load' >&3; sleep 0.3; setmem 7000000000 1; sleep 0.3; "
                       "echo 'phase generate' >&3; sleep 0.3; setmem 8000000000 1; sleep 0.1";
    o.timeout_s = 20;
    o.grace_ms = 300;
    o.interval_ms = 5000;
    vs_error_clear(&err);
    ck_assert_int_eq(vs_measure_run(&o, &r, &err), 0);
    ck_assert_uint_eq(cell(&r, "load", 0)->device_peak, 7000000000ULL);
    ck_assert_uint_eq(cell(&r, "generate", 0)->device_peak, 8000000000ULL);
    ck_assert_uint_eq(cell(&r, "run", 0)->device_peak, 1000000);
    vs_measure_result_clear(&r);
}
END_TEST

START_TEST(test_process_not_supported)
{
    vs_measure_result r;
    vs_error err;
    mt_fake(VS_FAKE_NVML, GPU0 "processes notsupported\n");
    ck_assert_int_eq(
        measure(SETMEM "setmem 3000000000 2000000000; sleep 0.2", "load", 10, &r, &err), 0);
    ck_assert_int_eq(r.view->process_available, 0);
    ck_assert_uint_eq(cell(&r, "load", 0)->device_peak, 3000000000ULL);
    ck_assert_int_eq(cell(&r, "load", 0)->process_peak_at, 0);
    vs_measure_result_clear(&r);
}
END_TEST

START_TEST(test_process_unattributed)
{
    vs_measure_result r;
    vs_error err;
    /* The driver lists only a stranger (as from another PID namespace). */
    mt_fake(VS_FAKE_NVML, GPU0 "proc 1 gpu 0 mem 5000000000\n");
    ck_assert_int_eq(measure("sleep 0.2", "load", 10, &r, &err), 0);
    ck_assert_int_eq(r.view->process_available, 1);
    ck_assert_int_eq(r.view->process_attributed, 0);
    ck_assert_uint_eq(r.view->foreign_pids, 1);
    ck_assert_uint_eq(cell(&r, "load", 0)->process_peak, 0);
    vs_measure_result_clear(&r);
}
END_TEST

START_TEST(test_overflow_phase)
{
    vs_measure_result r;
    vs_error err;
    mt_fake(VS_FAKE_NVML, GPU0);
    ck_assert_int_eq(
        measure(
            "echo 'phase load' >&3; sleep 0.05; echo 'phase backward' >&3; "
            "echo 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB' >&2; "
            "sleep 0.2; echo 'phase cleanup' >&3; exit 1",
            NULL, 10, &r, &err),
        0);
    ck_assert_int_eq(r.run.exit_status, 1);
    ck_assert_int_eq(r.run.oom, 1);
    ck_assert_str_eq(r.overflow_phase, "backward");
    ck_assert_ptr_nonnull(strstr(vs_measure_triage("backward"), "microbatch"));
    ck_assert_ptr_nonnull(strstr(vs_measure_triage("load"), "format"));
    ck_assert_ptr_nonnull(strstr(vs_measure_triage("generate"), "concurrency"));
    vs_measure_result_clear(&r);
}
END_TEST

START_TEST(test_counters_and_bad_lines)
{
    vs_measure_result r;
    vs_error err;
    const vs_measure_counter *c;
    mt_fake(VS_FAKE_NVML, GPU0 GPU1);
    ck_assert_int_eq(
        measure("echo 'phase load' >&3; "
                "echo 'counter torch.max_memory_allocated 3000 gpu=0' >&3; "
                "echo 'counter torch.max_memory_allocated 2000 gpu=0' >&3; "
                "echo 'counter torch.max_memory_reserved 1GiB "
                "uuid=GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee' >&3; "
                "echo 'counter x 1 gpu=7' >&3; echo 'bogus line' >&3; "
                "echo 'phase step' >&3; echo 'counter torch.max_memory_allocated 5000 gpu=0' >&3",
                NULL, 10, &r, &err),
        0);
    c = counter(&r, "load", "torch.max_memory_allocated", 0);
    ck_assert_ptr_nonnull(c);
    ck_assert_uint_eq(c->bytes, 3000);
    c = counter(&r, "load", "torch.max_memory_reserved", 1);
    ck_assert_ptr_nonnull(c);
    ck_assert_uint_eq(c->bytes, 1073741824ULL);
    c = counter(&r, "step", "torch.max_memory_allocated", 0);
    ck_assert_ptr_nonnull(c);
    ck_assert_uint_eq(c->bytes, 5000);
    ck_assert_uint_eq(r.ncounters, 3);
    ck_assert_int_eq(r.bad_lines, 2);
    ck_assert_ptr_nonnull(strstr(r.first_bad_line, "no GPU of that index"));
    ck_assert_str_eq(vs_measure_counter_scope("torch.max_memory_allocated"), "tensors");
    ck_assert_str_eq(vs_measure_counter_scope("torch.max_memory_reserved"), "allocator");
    ck_assert_str_eq(vs_measure_counter_scope(VS_COUNTER_DEVICE), "device");
    vs_measure_result_clear(&r);
}
END_TEST

/* More named phases than a run keeps: the run's first phase ("run") and
 * p1..p255 make 256; p256..p300 (45 lines) fold into p255, and each says so. */
START_TEST(test_too_many_phases_said)
{
    vs_measure_result r;
    vs_error err;
    mt_fake(VS_FAKE_NVML, GPU0);
    ck_assert_int_eq(measure("i=1; while [ $i -le 300 ]; do echo \"phase p$i\" >&3; "
                             "i=$((i + 1)); done",
                             NULL, 20, &r, &err),
                     0);
    ck_assert_uint_eq(r.view->nphases, 256);
    ck_assert_str_eq(r.view->phases[0].name, "run");
    ck_assert_str_eq(r.view->phases[255].name, "p255");
    ck_assert_int_eq(r.bad_lines, 45);
    ck_assert_msg(strstr(r.first_bad_line, "phase p256: a run keeps at most 256 phases") &&
                      strstr(r.first_bad_line, "counted in phase 'p255'"),
                  "%s", r.first_bad_line);
    vs_measure_result_clear(&r);
}
END_TEST

START_TEST(test_no_driver_runs_nothing)
{
    vs_measure_result r;
    vs_error err;
    char marker[512], cmd[600];
    mt_tmpdir();
    mt_path(marker, sizeof marker, "ran");
    snprintf(cmd, sizeof cmd, "touch %s", marker);
    setenv("VRAMSHEET_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    ck_assert_int_eq(measure(cmd, "load", 10, &r, &err), VS_EMEASURE);
    ck_assert_ptr_nonnull(strstr(err.message, "no NVIDIA driver"));
    ck_assert_int_eq(access(marker, F_OK), -1);
    ck_assert_ptr_null(r.view);
}
END_TEST

START_TEST(test_timeout_through_measure)
{
    vs_measure_result r;
    vs_error err;
    mt_fake(VS_FAKE_NVML, GPU0);
    ck_assert_int_eq(measure("sleep 30 & sleep 30", "load", 0.3, &r, &err), 0);
    ck_assert_int_eq(r.run.timed_out, 1);
    ck_assert_int_eq(kill(-r.run.pid, 0), -1);
    ck_assert_int_eq(errno, ESRCH);
    vs_measure_result_clear(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("measure_sampler");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_peaks_per_phase);
    tcase_add_test(tc, test_short_peak_caught);
    tcase_add_test(tc, test_short_phase_has_its_end);
    tcase_add_test(tc, test_process_not_supported);
    tcase_add_test(tc, test_process_unattributed);
    tcase_add_test(tc, test_overflow_phase);
    tcase_add_test(tc, test_counters_and_bad_lines);
    tcase_add_test(tc, test_no_driver_runs_nothing);
    tcase_add_test(tc, test_too_many_phases_said);
    tcase_add_test(tc, test_timeout_through_measure);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
