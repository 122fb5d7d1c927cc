/* The measurement verbs through the interpreter (src/lang/verbs_measure.c):
 * measure and %%measure against the fake NVML, the gauge, the sheet's runs and
 * measurements, overflow, interrupt, no driver, record, measured, import;
 * credentials in the command redacted from the record. */
#include "../measure/measure_testlib.h"

#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>

#include "lang/interp.h"
#include "render/bundle.h"
#include "render/markdown.h"
#include "sheet/sheet.h"
#include "util/buf.h"

#include "check_run.h"
#include "results.h"

#define GPU0 "gpu 0 name=\"NVIDIA H200\" total=150754820096 used=1000000\n"
#define GPU1 "gpu 1 name=\"NVIDIA H200\" total=150754820096 used=2000000\n"
#define SETMEM                                                                                     \
    "setmem() { printf 'gpu 0 used %s\\nproc %s gpu 0 mem %s\\n' \"$1\" \"$$\" \"$2\" > "          \
    "\"$FAKE_NVML_STATE.t\"; mv \"$FAKE_NVML_STATE.t\" \"$FAKE_NVML_STATE\"; }; "

typedef struct cap {
    vs_buf out, err;
    int displays, updates, gauges;
    char last_state[32];
    char last_run[32];
    char display_id[128];
    int ids_consistent;
    int64_t start, interrupt_after_ms;
    int out_before_end; /* output seen while gauges were still running */
} cap;

static int64_t ms_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void on_display(void *ctx, const vs_bundle *vb, const char *id, int update)
{
    cap *c = ctx;
    json_t *bundle = vs_test_bundle_json(vb);
    json_t *p = json_object_get(bundle, VS_MIME_JSON);
    const char *kind = json_string_value(json_object_get(p, "kind"));
    if (!kind || strcmp(kind, "gauge") != 0) {
        c->displays++;
        json_decref(bundle);
        return;
    }
    c->gauges++;
    if (update)
        c->updates++;
    ck_assert_ptr_nonnull(id);
    if (!c->display_id[0]) {
        snprintf(c->display_id, sizeof c->display_id, "%s", id);
        c->ids_consistent = !update;
    } else if (strcmp(c->display_id, id) != 0 || !update) {
        c->ids_consistent = 0;
    }
    ck_assert_ptr_nonnull(json_object_get(bundle, "text/plain"));
    ck_assert_ptr_nonnull(json_object_get(bundle, "text/html"));
    snprintf(c->last_state, sizeof c->last_state, "%s",
             json_string_value(json_object_get(p, "state")));
    snprintf(c->last_run, sizeof c->last_run, "%s", json_string_value(json_object_get(p, "run")));
    json_decref(bundle);
}

static void on_stream(void *ctx, const char *name, const char *text, size_t len)
{
    cap *c = ctx;
    vs_buf_append(!strcmp(name, "stdout") ? &c->out : &c->err, text, len);
    if (c->gauges > 0 && !strcmp(c->last_state, "running"))
        c->out_before_end = 1;
}

static int on_interrupted(void *ctx)
{
    cap *c = ctx;
    return c->interrupt_after_ms > 0 && ms_now() - c->start >= c->interrupt_after_ms;
}

static vs_sink sink_of(cap *c)
{
    vs_sink s;
    memset(&s, 0, sizeof s);
    s.ctx = c;
    s.display = on_display;
    s.stream = on_stream;
    s.interrupted = on_interrupted;
    return s;
}

static int exec(vs_interp *ip, cap *c, const char *code, json_t **payload, vs_error *err)
{
    vs_sink s = sink_of(c);
    json_t *result = NULL;
    int rc;
    c->start = ms_now();
    vs_error_clear(err);
    rc = vs_test_execute(ip, code, &s, &result, err);
    *payload = result ? json_incref(json_object_get(result, VS_MIME_JSON)) : NULL;
    json_decref(result);
    return rc;
}

/* The current sheet as stored. */
static json_t *sheet_of(vs_interp *ip, const char *title)
{
    cap c;
    vs_error err;
    json_t *p;
    char code[256];
    memset(&c, 0, sizeof c);
    snprintf(code, sizeof code, "sheet \"%s\"", title);
    ck_assert_int_eq(exec(ip, &c, code, &p, &err), 0);
    ck_assert_str_eq(json_string_value(json_object_get(p, "kind")), "sheet");
    vs_buf_free(&c.out);
    vs_buf_free(&c.err);
    return p;
}

static json_t *find_row(json_t *rows, const char *phase, const char *counter, int gpu)
{
    size_t i;
    json_t *r;
    json_array_foreach(rows, i, r)
    {
        if (!strcmp(json_string_value(json_object_get(r, "phase")), phase) &&
            !strcmp(json_string_value(json_object_get(r, "counter")), counter) &&
            (gpu < 0 || json_integer_value(json_object_get(r, "gpu")) == gpu))
            return r;
    }
    return NULL;
}

static vs_interp *setup(const char *script)
{
    vs_interp *ip;
    char rec[512];
    mt_fake(VS_FAKE_NVML, script);
    mt_path(rec, sizeof rec, "records");
    setenv("VRAMSHEET_RECORDS", rec, 1);
    ip = vs_interp_new(NULL);
    ck_assert_ptr_nonnull(ip);
    return ip;
}

/* What setup and a test's capture hold, released. */
static void teardown(vs_interp *ip, cap *c)
{
    vs_buf_free(&c->out);
    vs_buf_free(&c->err);
    vs_interp_free(ip);
}

START_TEST(test_measure_line)
{
    vs_interp *ip = setup(GPU0 "proc 1 gpu 0 mem 5\n");
    cap c;
    vs_error err;
    json_t *p, *sheet, *row, *runs, *ms, *m;
    size_t i;
    memset(&c, 0, sizeof c);
    ck_assert_int_eq(exec(ip, &c,
                          "sheet \"m\"\nlength 4096\nconcurrency 8\n"
                          "measure phase=load timeout=20 -- " SETMEM
                          "echo hello; setmem 5000000000 4000000000; sleep 0.4; "
                          "echo 'phase generate' >&3; echo 'dims length=128 concurrency=1' >&3; "
                          "sleep 0.1; setmem 9000000000 8000000000; sleep 0.4; echo bye",
                          &p, &err),
                     0);
    ck_assert_str_eq(vs_buf_str(&c.out), "hello\nbye\n");
    ck_assert_int_eq(c.out_before_end, 1);
    /* the gauge: one display, then updates of the same id, ending "finished" */
    ck_assert_int_ge(c.gauges, 3);
    ck_assert_int_eq(c.updates, c.gauges - 1);
    ck_assert_int_eq(c.ids_consistent, 1);
    ck_assert_str_eq(c.last_state, "finished");
    ck_assert_str_eq(json_string_value(json_object_get(p, "kind")), "measurement");
    ck_assert_str_eq(json_string_value(json_object_get(p, "run")), "m1");
    ck_assert_int_eq(json_integer_value(json_object_get(p, "exit_status")), 0);
    ck_assert(json_is_null(json_object_get(p, "overflow_phase")));
    row = find_row(json_object_get(p, "rows"), "generate", "nvml.device_used", 0);
    ck_assert_ptr_nonnull(row);
    ck_assert_int_eq(json_integer_value(json_object_get(row, "peak_bytes")), 9000000000LL);
    ck_assert_str_eq(json_string_value(json_object_get(row, "scope")), "device");
    ck_assert_str_eq(json_string_value(json_object_get(row, "gpu_name")), "NVIDIA H200");
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(row, "dims"), "length")),
                     128);
    row = find_row(json_object_get(p, "rows"), "load", "nvml.process_used", 0);
    ck_assert_ptr_nonnull(row);
    ck_assert_int_eq(json_integer_value(json_object_get(row, "peak_bytes")), 4000000000LL);
    ck_assert_str_eq(json_string_value(json_object_get(row, "scope")), "process");
    ck_assert(json_is_false(json_object_get(p, "validates_card")));
    json_decref(p);

    sheet = sheet_of(ip, "m");
    runs = json_object_get(sheet, "runs");
    ck_assert_uint_eq(json_array_size(runs), 1);
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(runs, 0), "id")), "m1");
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(runs, 0), "phase")), "load");
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(runs, 0), "driver")),
                     "550.54.15");
    m = json_array_get(json_object_get(json_array_get(runs, 0), "gpus"), 0);
    ck_assert_int_eq(json_integer_value(json_object_get(m, "total_bytes")), 150754820096LL);
    ck_assert_str_eq(json_string_value(json_object_get(m, "total_basis")), "nvml");
    ms = json_object_get(sheet, "measurements");
    ck_assert_uint_eq(json_array_size(ms), 4); /* load and generate x device and process */
    json_array_foreach(ms, i, m)
    {
        ck_assert_str_eq(json_string_value(json_object_get(m, "run")), "m1");
        ck_assert_str_eq(json_string_value(json_object_get(m, "state")), "current");
        ck_assert(json_is_false(json_object_get(m, "validates_card")));
        ck_assert(json_is_string(json_object_get(m, "time")));
        ck_assert(json_is_string(json_object_get(m, "host")));
    }
    json_decref(sheet);

    /* a second run at the card's dims validates it and is m2 */
    vs_buf_reset(&c.out);
    ck_assert_int_eq(exec(ip, &c, "measure length=4096 concurrency=8 -- true", &p, &err), 0);
    ck_assert_str_eq(json_string_value(json_object_get(p, "run")), "m2");
    ck_assert(json_is_true(json_object_get(p, "validates_card")));
    row = find_row(json_object_get(p, "rows"), "run", "nvml.device_used", 0);
    ck_assert_ptr_nonnull(row);
    ck_assert(json_is_true(json_object_get(row, "validates_card")));
    json_decref(p);
    teardown(ip, &c);
}
END_TEST

START_TEST(test_cell_form_and_stage)
{
    vs_interp *ip = setup(GPU0);
    cap c;
    vs_error err;
    json_t *p, *row;
    memset(&c, 0, sizeof c);
    ck_assert_int_eq(
        exec(ip, &c,
             "sheet \"s\"\nlength 4096\nconcurrency 8\nstage short length=128 concurrency=1", &p,
             &err),
        0);
    json_decref(p);
    ck_assert_int_eq(exec(ip, &c,
                          "%%measure phase=prefill interval=5\n"
                          "echo body-ran\n"
                          "echo 'dims length=128 concurrency=1' >&$VRAMSHEET_PHASE_FD\n"
                          "printf 'caf\\303' ; sleep 0.1; printf '\\251\\n'\n",
                          &p, &err),
                     0);
    ck_assert_str_eq(vs_buf_str(&c.out), "body-ran\ncaf\xc3\xa9\n");
    row = find_row(json_object_get(p, "rows"), "prefill", "nvml.device_used", 0);
    ck_assert_ptr_nonnull(row);
    ck_assert_str_eq(json_string_value(json_object_get(row, "stage")), "short");
    ck_assert(json_is_false(json_object_get(row, "validates_card")));
    json_decref(p);
    /* an empty body is an error */
    ck_assert_int_eq(exec(ip, &c, "%%measure phase=x\n", &p, &err), VS_EVALUE);
    teardown(ip, &c);
}
END_TEST

START_TEST(test_overflow_still_measured)
{
    vs_interp *ip = setup(GPU0);
    cap c;
    vs_error err;
    json_t *p, *sheet;
    json_t *result;
    vs_sink s;
    const char *text;
    memset(&c, 0, sizeof c);
    s = sink_of(&c);
    ck_assert_int_eq(
        vs_test_execute(ip,
                        "sheet \"o\"\nmeasure phase=load -- echo 'phase generate' >&3; sleep 0.05; "
                        "echo 'torch.OutOfMemoryError: CUDA out of memory.' >&2; exit 1",
                        &s, &result, &err),
        0);
    p = json_object_get(result, VS_MIME_JSON);
    ck_assert_int_eq(json_integer_value(json_object_get(p, "exit_status")), 1);
    ck_assert_str_eq(json_string_value(json_object_get(p, "overflow_phase")), "generate");
    ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(p, "triage")), "concurrency"));
    text = json_string_value(json_object_get(result, "text/plain"));
    ck_assert_ptr_nonnull(strstr(text, "OUT OF MEMORY in phase generate"));
    ck_assert_ptr_nonnull(strstr(text, "one thing at a time"));
    ck_assert_ptr_nonnull(strstr(vs_buf_str(&c.err), "CUDA out of memory"));
    json_decref(result);
    sheet = sheet_of(ip, "o");
    ck_assert_int_eq(json_integer_value(json_object_get(
                         json_array_get(json_object_get(sheet, "runs"), 0), "exit_status")),
                     1);
    ck_assert_str_eq(json_string_value(json_object_get(
                         json_array_get(json_object_get(sheet, "runs"), 0), "overflow_phase")),
                     "generate");
    ck_assert_str_eq(json_string_value(json_object_get(
                         json_array_get(json_object_get(sheet, "oom"), 0), "phase")),
                     "generate");
    json_decref(sheet);
    teardown(ip, &c);
}
END_TEST

START_TEST(test_failed_cell_keeps_measurement)
{
    /* The command ran: its run and peaks stay even though a later line fails,
     * while the cell's other changes are undone. An overflowed run at the card's
     * dims validates nothing. */
    vs_interp *ip = setup(GPU0);
    cap c;
    vs_error err;
    json_t *p = NULL, *sheet, *ms;
    size_t i;
    json_t *m;
    memset(&c, 0, sizeof c);
    ck_assert_int_eq(exec(ip, &c, "sheet \"k\"\nlength 128", &p, &err), 0);
    json_decref(p);
    ck_assert_int_lt(exec(ip, &c,
                          "length 4096\nmeasure phase=load -- echo 'dims length=128' >&3; "
                          "echo 'CUDA out of memory' >&2; exit 1\nno_such_verb",
                          &p, &err),
                     0);
    ck_assert_ptr_nonnull(strstr(err.message, "kept"));
    sheet = sheet_of(ip, "k");
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(sheet, "card"), "length")),
                     128);
    ck_assert_int_eq(json_array_size(json_object_get(sheet, "runs")), 1);
    ms = json_object_get(sheet, "measurements");
    ck_assert_int_gt(json_array_size(ms), 0);
    json_array_foreach(ms, i, m) ck_assert(json_is_false(json_object_get(m, "validates_card")));
    json_decref(sheet);
    teardown(ip, &c);
}
END_TEST

START_TEST(test_failed_cell_keeps_oom)
{
    /* All of a run's effects stay together: the run, its overflow_phase and the
     * sheet's oom entry for it, while a later line's failure undoes the rest. */
    vs_interp *ip = setup(GPU0);
    cap c;
    vs_error err;
    json_t *p = NULL, *sheet, *oom, *run;
    char note[128];
    memset(&c, 0, sizeof c);
    ck_assert_int_eq(exec(ip, &c, "sheet \"q\"\noom phase=load note=\"by hand\"", &p, &err), 0);
    json_decref(p);
    ck_assert_int_lt(
        exec(ip, &c,
             "oom phase=prefill note=\"undone\"\nmeasure phase=load -- echo 'phase generate' >&3; "
             "echo 'CUDA out of memory' >&2; exit 1\nno_such_verb",
             &p, &err),
        0);
    sheet = sheet_of(ip, "q");
    ck_assert_int_eq(json_array_size(json_object_get(sheet, "runs")), 1);
    run = json_array_get(json_object_get(sheet, "runs"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(run, "overflow_phase")), "generate");
    oom = json_object_get(sheet, "oom");
    ck_assert_int_eq(json_array_size(oom), 2); /* "by hand" and the run's; not "undone" */
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(oom, 0), "note")), "by hand");
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(oom, 1), "phase")),
                     "generate");
    snprintf(note, sizeof note, "run %s: \"CUDA out of memory\"",
             json_string_value(json_object_get(run, "id")));
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(oom, 1), "note")), note);
    /* the run it came from is a field of its own; the one typed by hand has none */
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(oom, 1), "run")),
                     json_string_value(json_object_get(run, "id")));
    ck_assert_ptr_null(json_object_get(json_array_get(oom, 0), "run"));
    json_decref(sheet);
    teardown(ip, &c);
}
END_TEST

/* How many integers below 0 v holds, at any depth. */
static int negatives(const json_t *v)
{
    const char *k;
    json_t *x;
    size_t i;
    int n = 0;
    if (json_is_integer(v))
        return json_integer_value(v) < 0;
    if (json_is_array(v))
        json_array_foreach(v, i, x) n += negatives(x);
    if (json_is_object(v))
        json_object_foreach((json_t *)v, k, x) n += negatives(x);
    return n;
}

/* NVML answering 2^64 - 1 for total and used (NVML_VALUE_NOT_AVAILABLE_ULL) at
 * first, then 1 MB: no figure in the record wraps to -1, and the record reads
 * back. The total is then unknown (0), the out-of-range samples are errors. */
START_TEST(test_nvml_past_int64_stays_loadable)
{
    vs_interp *ip = setup("gpu 0 name=\"NVIDIA H200\" total=18446744073709551615 "
                          "used=18446744073709551615\nat 0 gpu 0 used 18446744073709551615\n"
                          "at 150 gpu 0 used 1000000\n");
    cap c;
    vs_error err;
    json_t *p = NULL, *sheet, *back = NULL, *gpu, *m;
    char *text;
    size_t i;
    memset(&c, 0, sizeof c);
    ck_assert_int_eq(exec(ip, &c, "sheet \"w\"\nmeasure phase=load -- sleep 0.6", &p, &err), 0);
    json_decref(p);
    sheet = sheet_of(ip, "w");
    gpu = json_array_get(json_object_get(json_array_get(json_object_get(sheet, "runs"), 0), "gpus"),
                         0);
    ck_assert_int_eq(json_integer_value(json_object_get(gpu, "total_bytes")), 0);
    ck_assert_int_gt(json_array_size(json_object_get(sheet, "measurements")), 0);
    json_array_foreach(json_object_get(sheet, "measurements"), i, m)
        ck_assert_int_eq(json_integer_value(json_object_get(m, "peak_bytes")), 1000000);
    text = vs_sheet_dump(sheet);
    ck_assert_ptr_nonnull(text);
    ck_assert_int_eq(negatives(sheet), 0);
    vs_error_clear(&err);
    ck_assert_msg(vs_sheet_load(&back, text, strlen(text), &err) == 0, "%s", err.message);
    json_decref(back);
    free(text);
    json_decref(sheet);
    teardown(ip, &c);
}
END_TEST

START_TEST(test_no_driver_nothing_recorded)
{
    vs_interp *ip = setup(GPU0);
    cap c;
    vs_error err;
    json_t *p, *sheet;
    char marker[512], code[1024];
    memset(&c, 0, sizeof c);
    setenv("VRAMSHEET_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    mt_path(marker, sizeof marker, "ran");
    snprintf(code, sizeof code, "sheet \"n\"\nmeasure phase=load -- touch %s", marker);
    ck_assert_int_eq(exec(ip, &c, code, &p, &err), VS_EMEASURE);
    ck_assert_ptr_nonnull(strstr(err.message, "no NVIDIA driver"));
    ck_assert_int_eq(err.line, 2);
    ck_assert_int_eq(access(marker, F_OK), -1);
    sheet = sheet_of(ip, "n");
    ck_assert_uint_eq(json_array_size(json_object_get(sheet, "runs")), 0);
    ck_assert_uint_eq(json_array_size(json_object_get(sheet, "measurements")), 0);
    json_decref(sheet);
    vs_interp_free(ip);
}
END_TEST

START_TEST(test_interrupt_ends_group)
{
    vs_interp *ip = setup(GPU0);
    cap c;
    vs_error err;
    json_t *p, *sheet;
    char pidfile[512], code[1024], *pid;
    memset(&c, 0, sizeof c);
    c.interrupt_after_ms = 400;
    mt_path(pidfile, sizeof pidfile, "pid");
    snprintf(code, sizeof code, "sheet \"i\"\nmeasure -- echo $$ > %s; sleep 30 & sleep 30",
             pidfile);
    ck_assert_int_eq(exec(ip, &c, code, &p, &err), VS_EINTERRUPT);
    ck_assert_int_lt(ms_now() - c.start, 6000);
    ck_assert_str_eq(c.last_state, "interrupted");
    pid = mt_read(pidfile);
    ck_assert_ptr_nonnull(pid);
    ck_assert_int_eq(kill(-(pid_t)atoi(pid), 0), -1);
    ck_assert_int_eq(errno, ESRCH);
    free(pid);
    c.interrupt_after_ms = 0;
    sheet = sheet_of(ip, "i");
    ck_assert_uint_eq(json_array_size(json_object_get(sheet, "runs")), 0);
    json_decref(sheet);
    vs_interp_free(ip);
}
END_TEST

START_TEST(test_bad_arguments)
{
    vs_interp *ip = setup(GPU0);
    cap c;
    vs_error err;
    json_t *p;
    memset(&c, 0, sizeof c);
    ck_assert_int_eq(exec(ip, &c, "measure phase=load", &p, &err), VS_EVALUE);
    ck_assert_int_eq(exec(ip, &c, "measure timeout=-1 -- true", &p, &err), VS_EVALUE);
    ck_assert_int_eq(exec(ip, &c, "measure interval=0 -- true", &p, &err), VS_EVALUE);
    ck_assert_int_eq(exec(ip, &c, "measure phase=\"a b\" -- true", &p, &err), VS_EVALUE);
    ck_assert_int_eq(exec(ip, &c, "measure color=red -- true", &p, &err), VS_EVALUE);
    ck_assert_int_eq(exec(ip, &c, "measure -- /nonexistent/cmd", &p, &err), VS_EMEASURE);
    ck_assert_ptr_nonnull(strstr(err.message, "could not start"));
    teardown(ip, &c);
}
END_TEST

START_TEST(test_record_and_measured)
{
    vs_interp *ip = setup(GPU0 GPU1);
    cap c;
    vs_error err;
    json_t *p, *sheet, *comp;
    size_t i;
    memset(&c, 0, sizeof c);
    ck_assert_int_eq(exec(ip, &c,
                          "sheet \"r\"\nlength 4096\nconcurrency 8\n"
                          "record phase=generate gpu=0 counter=torch.max_memory_reserved 14.2GiB "
                          "length=4096 concurrency=8",
                          &p, &err),
                     0);
    ck_assert_str_eq(json_string_value(json_object_get(p, "kind")), "measurement");
    ck_assert_str_eq(
        json_string_value(json_object_get(json_array_get(json_object_get(p, "rows"), 0), "scope")),
        "allocator");
    ck_assert(json_is_true(
        json_object_get(json_array_get(json_object_get(p, "rows"), 0), "validates_card")));
    ck_assert_int_eq(json_integer_value(json_object_get(
                         json_array_get(json_object_get(p, "rows"), 0), "peak_bytes")),
                     15247133901LL);
    json_decref(p);
    ck_assert_int_eq(exec(ip, &c, "record phase=load gpu=0 counter=x 12apples", &p, &err),
                     VS_EUNIT);
    ck_assert_int_eq(exec(ip, &c, "record phase=load counter=x", &p, &err), VS_EVALUE);
    /* scope= is one of the five scopes; stage= names a stage of the procedure */
    ck_assert_int_eq(
        exec(ip, &c, "record phase=load gpu=0 counter=x 1GiB scope=everything", &p, &err),
        VS_EVALUE);
    ck_assert_int_eq(err.column, 46); /* the value */
    ck_assert_int_eq(exec(ip, &c, "record phase=load gpu=0 counter=x 1GiB stage=warmup", &p, &err),
                     VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "stage warmup length=N"));
    ck_assert_int_eq(exec(ip, &c,
                          "stage warmup length=128 concurrency=1\n"
                          "record phase=load gpu=0 counter=x 1GiB stage=warmup scope=tensors\n"
                          "record phase=load gpu=0 counter=y 1GiB stage=limit",
                          &p, &err),
                     0);
    json_decref(p);

    ck_assert_int_eq(exec(ip, &c, "measured kv_cache from=#1 class=kv_cache", &p, &err), 0);
    ck_assert_str_eq(json_string_value(json_object_get(p, "kind")), "component");
    ck_assert_str_eq(json_string_value(json_object_get(p, "status")), "measured");
    json_decref(p);
    ck_assert_int_eq(exec(ip, &c, "measured x from=#9", &p, &err), VS_ENOTFOUND);
    ck_assert_int_eq(exec(ip, &c, "measured x from=m9:load:y", &p, &err), VS_ENOTFOUND);
    ck_assert_int_eq(exec(ip, &c, "measured x from=nonsense", &p, &err), VS_EVALUE);

    /* both GPUs moved: two rows match without gpu= */
    ck_assert_int_eq(exec(ip, &c,
                          "measure phase=load length=4096 concurrency=8 -- printf 'gpu 0 used "
                          "3000000000\\ngpu 1 used 4000000000\\n' > $FAKE_NVML_STATE; sleep 0.2",
                          &p, &err),
                     0);
    json_decref(p);
    ck_assert_int_eq(exec(ip, &c, "measured w from=m1:load:nvml.device_used", &p, &err), VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "gpu="));
    ck_assert_int_eq(exec(ip, &c, "measured w from=m1:load:nvml.device_used gpu=1", &p, &err), 0);
    ck_assert_int_eq(json_integer_value(json_object_get(p, "bytes")), 4000000000LL);
    json_decref(p);
    sheet = sheet_of(ip, "r");
    comp = NULL;
    json_array_foreach(json_object_get(sheet, "components"), i, p)
    {
        if (!strcmp(json_string_value(json_object_get(p, "name")), "kv_cache"))
            comp = p;
    }
    ck_assert_ptr_nonnull(comp);
    ck_assert_str_eq(json_string_value(json_object_get(comp, "status")), "measured");
    ck_assert_str_eq(json_string_value(json_object_get(comp, "class")), "kv_cache");
    ck_assert_int_eq(json_integer_value(json_object_get(comp, "bytes")), 15247133901LL);
    ck_assert_ptr_nonnull(
        strstr(json_string_value(json_object_get(comp, "source")), "torch.max_memory_reserved"));
    json_decref(sheet);
    ck_assert_int_eq(exec(ip, &c, "measurements", &p, &err), 0);
    ck_assert_uint_ge(json_array_size(json_object_get(p, "rows")), 3);
    json_decref(p);
    teardown(ip, &c);
}
END_TEST

/* Rule 1: a measurement that does not validate the card (smaller dims, or a
 * run that failed) never becomes a measured component, and the check is made
 * against the card as it is when `measured` runs, not when it was recorded. */
/* Image and video generation keep their dims: a 512 x 512 run never validates a
 * 1024 x 1024 card (width 512 < 1,024), a run at the card's resolution and
 * batch does; frames the same for video; resolution= is width= and height=. */
START_TEST(test_generation_dims)
{
    vs_interp *ip = setup(GPU0);
    cap c;
    vs_error err;
    json_t *p, *row, *dims;
    memset(&c, 0, sizeof c);
    ck_assert_int_eq(exec(ip, &c,
                          "sheet \"img\"\ntask generate-image\nresolution 1024x1024\nbatch 1\n"
                          "record phase=decode gpu=0 counter=torch.max_memory_allocated 9GiB "
                          "resolution=512x512 batch=1",
                          &p, &err),
                     0);
    row = json_array_get(json_object_get(p, "rows"), 0);
    ck_assert(json_is_false(json_object_get(row, "validates_card")));
    dims = json_object_get(row, "dims");
    ck_assert_int_eq(json_integer_value(json_object_get(dims, "width")), 512);
    ck_assert_int_eq(json_integer_value(json_object_get(dims, "height")), 512);
    ck_assert_int_eq(json_integer_value(json_object_get(dims, "batch")), 1);
    json_decref(p);
    ck_assert_int_eq(exec(ip, &c,
                          "record phase=decode gpu=0 counter=torch.max_memory_allocated 12GiB "
                          "resolution=1024x1024 batch=1",
                          &p, &err),
                     0);
    row = json_array_get(json_object_get(p, "rows"), 0);
    ck_assert(json_is_true(json_object_get(row, "validates_card")));
    json_decref(p);
    /* a batch smaller than the card's */
    ck_assert_int_eq(exec(ip, &c,
                          "batch 4\nrecord phase=decode gpu=0 counter=torch.max_memory_allocated "
                          "12GiB width=1024 height=1024 batch=2",
                          &p, &err),
                     0);
    ck_assert(json_is_false(
        json_object_get(json_array_get(json_object_get(p, "rows"), 0), "validates_card")));
    json_decref(p);
    ck_assert_int_eq(
        exec(ip, &c, "record phase=decode gpu=0 counter=x 1GiB resolution=1024", &p, &err),
        VS_EVALUE);
    ck_assert_int_eq(exec(ip, &c,
                          "record phase=decode gpu=0 counter=x 1GiB resolution=64x64 width=64", &p,
                          &err),
                     VS_EVALUE);
    /* measure keeps them too, from its line and from the command's dims line */
    vs_buf_reset(&c.out);
    ck_assert_int_eq(exec(ip, &c,
                          "batch 1\nmeasure phase=denoise resolution=1024x1024 batch=1 -- true", &p,
                          &err),
                     0);
    ck_assert(json_is_true(json_object_get(p, "validates_card")));
    json_decref(p);
    vs_buf_reset(&c.out);
    ck_assert_int_eq(exec(ip, &c,
                          "measure phase=denoise batch=1 -- echo 'dims resolution=768x768' >&3", &p,
                          &err),
                     0);
    ck_assert(json_is_false(json_object_get(p, "validates_card")));
    json_decref(p);
    teardown(ip, &c);
}
END_TEST

START_TEST(test_measured_needs_card)
{
    vs_interp *ip = setup(GPU0);
    cap c;
    vs_error err;
    json_t *p, *sheet, *comp, *rows;
    size_t i;
    memset(&c, 0, sizeof c);
    /* the reviewer's reproducer: a T4 exclude must not turn admissible */
    ck_assert_int_eq(
        exec(ip, &c,
             "sheet \"small\"\nmodel m params=7e9\nformat bf16\nlength 4096\nconcurrency 8\n"
             "estimate kv layers=32 kv_heads=32 head_dim=128\ngpu \"T4\"\n"
             "record phase=generate gpu=0 counter=torch.max_memory_allocated 100MB length=128 "
             "concurrency=1",
             &p, &err),
        0);
    json_decref(p);
    ck_assert_int_eq(exec(ip, &c, "measured kv_cache from=#1", &p, &err), VS_EVALUE);
    ck_assert_ptr_null(p);
    ck_assert_ptr_nonnull(strstr(err.message, "does not validate the card"));
    ck_assert_ptr_nonnull(strstr(err.message, "length 128 < the card's 4096"));
    ck_assert_ptr_nonnull(strstr(err.message, "limit"));
    sheet = sheet_of(ip, "small");
    json_array_foreach(json_object_get(sheet, "components"), i, comp)
        ck_assert_str_ne(json_string_value(json_object_get(comp, "status")), "measured");
    json_decref(sheet);
    ck_assert_int_eq(exec(ip, &c, "candidates", &p, &err), 0);
    rows = json_object_get(p, "rows");
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(rows, 0), "verdict")),
                     "exclude");
    json_decref(p);

    /* validated when recorded, not after the card grew */
    ck_assert_int_eq(exec(ip, &c,
                          "sheet \"grow\"\nlength 128\nconcurrency 1\n"
                          "record phase=generate gpu=0 counter=torch.max_memory_allocated 100MB "
                          "length=128 concurrency=1\n"
                          "length 4096",
                          &p, &err),
                     0);
    json_decref(p);
    ck_assert_int_eq(exec(ip, &c, "measurements", &p, &err), 0);
    ck_assert(json_is_false(
        json_object_get(json_array_get(json_object_get(p, "rows"), 0), "validates_card")));
    json_decref(p);
    ck_assert_int_eq(exec(ip, &c, "measured kv_cache from=#1", &p, &err), VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "length 128 < the card's 4096"));
    /* and the other way: a short card that grew back makes it valid again */
    ck_assert_int_eq(exec(ip, &c, "length 128", &p, &err), 0);
    json_decref(p);
    ck_assert_int_eq(exec(ip, &c, "measurements", &p, &err), 0);
    ck_assert(json_is_true(
        json_object_get(json_array_get(json_object_get(p, "rows"), 0), "validates_card")));
    json_decref(p);
    ck_assert_int_eq(exec(ip, &c, "measured kv_cache from=#1", &p, &err), 0);
    json_decref(p);

    /* a run that failed at the card's dims did not complete the workload */
    ck_assert_int_eq(exec(ip, &c,
                          "sheet \"failed\"\nlength 128\nconcurrency 1\n"
                          "measure phase=load length=128 concurrency=1 -- printf 'gpu 0 used "
                          "3000000000\\n' > $FAKE_NVML_STATE; sleep 0.2; exit 3",
                          &p, &err),
                     0);
    json_decref(p);
    ck_assert_int_eq(exec(ip, &c, "measured w from=m1:load:nvml.device_used", &p, &err), VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "run m1 did not complete (exit status 3)"));
    teardown(ip, &c);
}
END_TEST

START_TEST(test_import)
{
    vs_interp *ip = setup(GPU0);
    cap c;
    vs_error err;
    json_t *p, *sheet, *ms, *m;
    char a[512], b[512], code[2048];
    size_t i;
    int seen_max = 0;
    memset(&c, 0, sizeof c);
    mt_write("rank0.jsonl",
             "{\"type\":\"run\",\"host\":\"node1\",\"rank\":0,\"command\":\"torchrun "
             "train.py\",\"started\":\"2026-01-01T00:00:00Z\",\"driver\":\"550\",\"nvml\":\"12."
             "550\",\"gpus\":[{\"index\":0,\"name\":\"NVIDIA "
             "H100\",\"total_bytes\":85899345920,\"total_basis\":\"nvml\"}]}\n"
             "{\"type\":\"peak\",\"host\":\"node1\",\"rank\":0,\"phase\":\"backward\",\"gpu\":0,"
             "\"gpu_name\":\"NVIDIA "
             "H100\",\"counter\":\"nvml.device_used\",\"scope\":\"device\",\"peak_bytes\":"
             "70000000000,\"dims\":{\"length\":4096,\"microbatch\":4}}\n"
             "{\"type\":\"end\",\"host\":\"node1\",\"rank\":0,\"exit_status\":0,\"overflow_phase\":"
             "null,\"elapsed_ms\":1000}\n");
    mt_write("rank1.jsonl",
             "{\"type\":\"run\",\"host\":\"node1\",\"rank\":1,\"command\":\"torchrun "
             "train.py\",\"started\":\"2026-01-01T00:00:00Z\",\"gpus\":[]}\n"
             "{\"type\":\"peak\",\"host\":\"node1\",\"rank\":1,\"phase\":\"backward\",\"gpu\":0,"
             "\"counter\":\"nvml.device_used\",\"scope\":\"device\",\"peak_bytes\":71000000000,"
             "\"dims\":{\"length\":4096}}\n"
             "{\"type\":\"peak\",\"host\":\"node2\",\"rank\":2,\"phase\":\"backward\",\"gpu\":0,"
             "\"counter\":\"nvml.device_used\",\"scope\":\"device\",\"peak_bytes\":69000000000,"
             "\"dims\":{}}\n"
             "{\"type\":\"end\",\"host\":\"node2\",\"rank\":2,\"exit_status\":1,\"overflow_phase\":"
             "\"backward\",\"elapsed_ms\":900}\n");
    mt_path(a, sizeof a, "rank0.jsonl");
    mt_path(b, sizeof b, "rank1.jsonl");
    snprintf(code, sizeof code, "sheet \"imp\"\nmeasure import \"%s\" \"%s\"", a, b);
    ck_assert_int_eq(exec(ip, &c, code, &p, &err), 0);
    ck_assert_uint_eq(json_array_size(json_object_get(p, "rows")), 2);
    json_decref(p);
    sheet = sheet_of(ip, "imp");
    ck_assert_uint_eq(json_array_size(json_object_get(sheet, "runs")), 2);
    ms = json_object_get(sheet, "measurements");
    ck_assert_uint_eq(json_array_size(ms), 2);
    json_array_foreach(ms, i, m)
    {
        const char *host = json_string_value(json_object_get(m, "host"));
        if (!strcmp(host, "node1")) {
            ck_assert_int_eq(json_integer_value(json_object_get(m, "peak_bytes")), 71000000000LL);
            ck_assert_int_eq(json_integer_value(json_object_get(m, "rank")), 1);
            seen_max = 1;
        }
        ck_assert(json_is_string(json_object_get(m, "run")));
    }
    ck_assert_int_eq(seen_max, 1);
    json_array_foreach(json_object_get(sheet, "runs"), i, m)
    {
        if (!strcmp(json_string_value(json_object_get(m, "host")), "node2")) {
            ck_assert_int_eq(json_integer_value(json_object_get(m, "exit_status")), 1);
            ck_assert_str_eq(json_string_value(json_object_get(m, "overflow_phase")), "backward");
        }
    }
    json_decref(sheet);
    /* a broken file imports nothing */
    mt_write("bad.jsonl",
             "{\"type\":\"peak\",\"phase\":\"x\",\"counter\":\"y\",\"peak_bytes\":1}\nnot json\n");
    mt_path(a, sizeof a, "bad.jsonl");
    snprintf(code, sizeof code, "measure import \"%s\"", a);
    ck_assert_int_eq(exec(ip, &c, code, &p, &err), VS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.message, ":2:"));
    ck_assert_int_eq(exec(ip, &c, "measure import /nonexistent.jsonl", &p, &err), VS_EIO);
    sheet = sheet_of(ip, "imp");
    ck_assert_uint_eq(json_array_size(json_object_get(sheet, "measurements")), 2);
    json_decref(sheet);
    vs_interp_free(ip);
}
END_TEST

/* Files that are not a probe's: a FIFO (blocked), /dev/zero (read forever), a
 * folder ("no peak lines"), a line without end; and values that were cast or
 * kept (gpu 2^40 became GPU 0, gpu -1, rank -1, dims length -1). Each is
 * refused with nothing imported. */
START_TEST(test_import_refuses)
{
    vs_interp *ip = setup(GPU0);
    cap c;
    vs_error err;
    json_t *p, *sheet;
    char a[512], code[2048];
    size_t k;
    static const char *const bad[][2] = {
        {"{\"type\":\"peak\",\"phase\":\"x\",\"gpu\":1099511627776,\"counter\":\"y\",\"peak_"
         "bytes\":1}\n",
         "\"gpu\""},
        {"{\"type\":\"peak\",\"phase\":\"x\",\"gpu\":-1,\"counter\":\"y\",\"peak_bytes\":1}\n",
         "\"gpu\""},
        {"{\"type\":\"peak\",\"phase\":\"x\",\"gpu\":\"0\",\"counter\":\"y\",\"peak_bytes\":1}\n",
         "\"gpu\""},
        {"{\"type\":\"peak\",\"phase\":\"x\",\"gpu\":0,\"rank\":-1,\"counter\":\"y\",\"peak_"
         "bytes\":1}\n",
         "\"rank\""},
        {"{\"type\":\"peak\",\"phase\":\"x\",\"gpu\":0,\"rank\":4294967296,\"counter\":\"y\","
         "\"peak_bytes\":1}\n",
         "\"rank\""},
        {"{\"type\":\"peak\",\"phase\":\"x\",\"gpu\":0,\"counter\":\"y\",\"peak_bytes\":1,\"dims\":"
         "{\"length\":-1}}\n",
         "dims"},
        {"{\"type\":\"peak\",\"phase\":\"x\",\"gpu\":0,\"counter\":\"y\",\"peak_bytes\":1,\"dims\":"
         "[4096]}\n",
         "dims"},
    };
    memset(&c, 0, sizeof c);
    ck_assert_int_eq(exec(ip, &c, "sheet \"ir\"", &p, &err), 0);
    json_decref(p);
    for (k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        mt_write(
            "bad.jsonl",
            "{\"type\":\"peak\",\"phase\":\"ok\",\"gpu\":0,\"counter\":\"y\",\"peak_bytes\":1}\n%s",
            bad[k][0]);
        mt_path(a, sizeof a, "bad.jsonl");
        snprintf(code, sizeof code, "measure import \"%s\"", a);
        ck_assert_int_eq(exec(ip, &c, code, &p, &err), VS_EFORMAT);
        ck_assert_ptr_nonnull(strstr(err.message, ":2:"));
        ck_assert_ptr_nonnull(strstr(err.message, bad[k][1]));
        ck_assert_ptr_nonnull(strstr(err.message, "nothing was imported"));
    }
    /* gpu null is a counter with no GPU: still fine */
    mt_write("null.jsonl", "{\"type\":\"peak\",\"phase\":\"ok\",\"gpu\":null,\"rank\":null,"
                           "\"counter\":\"y\",\"peak_bytes\":1}\n");
    mt_path(a, sizeof a, "null.jsonl");
    snprintf(code, sizeof code, "measure import \"%s\"", a);
    ck_assert_int_eq(exec(ip, &c, code, &p, &err), 0);
    json_decref(p);
    /* not regular files */
    mt_path(a, sizeof a, "fifo");
    ck_assert_int_eq(mkfifo(a, 0600), 0);
    snprintf(code, sizeof code, "measure import \"%s\"", a);
    ck_assert_int_eq(exec(ip, &c, code, &p, &err), VS_EIO);
    ck_assert_ptr_nonnull(strstr(err.message, "FIFO"));
    ck_assert_int_eq(exec(ip, &c, "measure import /dev/zero", &p, &err), VS_EIO);
    ck_assert_ptr_nonnull(strstr(err.message, "character device"));
    ck_assert_int_eq(exec(ip, &c, "measure import /tmp", &p, &err), VS_EIO);
    ck_assert_ptr_nonnull(strstr(err.message, "folder"));
    /* a line longer than any probe line */
    {
        char path[512];
        FILE *f;
        mt_path(path, sizeof path, "long.jsonl");
        f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        for (k = 0; k < (2u << 20); k++)
            fputc(' ', f);
        fclose(f);
        snprintf(code, sizeof code, "measure import \"%s\"", path);
        ck_assert_int_eq(exec(ip, &c, code, &p, &err), VS_EFORMAT);
        ck_assert_ptr_nonnull(strstr(err.message, "longer than"));
    }
    sheet = sheet_of(ip, "ir");
    ck_assert_uint_eq(json_array_size(json_object_get(sheet, "measurements")), 1);
    json_decref(sheet);
    teardown(ip, &c);
}
END_TEST

/* Merging peaks was a scan of every kept peak per line: 16,000 lines took 36 s
 * under ASan. Now one lookup per line. Linear is checked by the process's CPU
 * time for n and 4n lines, not by a wall-clock bound: a linear import takes
 * about 4 times as long, a quadratic one 16 (and a busy machine or a sanitizer
 * slows both runs alike). */
static double import_cpu_ms(vs_interp *ip, cap *c, int n, json_t **p)
{
    char path[512], code[1024], name[64];
    vs_error err;
    FILE *f;
    int k;
    clock_t t0;
    snprintf(name, sizeof name, "many-%d.jsonl", n);
    mt_path(path, sizeof path, name);
    f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    for (k = 0; k < n; k++)
        fprintf(f,
                "{\"type\":\"peak\",\"host\":\"n%d\",\"phase\":\"p%d\",\"gpu\":%d,\"counter\":"
                "\"c\",\"peak_bytes\":%d}\n",
                k % 50, k / 8, k % 8, k);
    /* and a second pass over the same keys, all larger: every one replaced */
    for (k = 0; k < n; k++)
        fprintf(f,
                "{\"type\":\"peak\",\"host\":\"n%d\",\"phase\":\"p%d\",\"gpu\":%d,\"counter\":"
                "\"c\",\"peak_bytes\":%d}\n",
                k % 50, k / 8, k % 8, 100000 + k);
    fclose(f);
    snprintf(code, sizeof code, "sheet \"lin%d\"\nmeasure import \"%s\"", n, path);
    t0 = clock();
    ck_assert_int_eq(exec(ip, c, code, p, &err), 0);
    unlink(path);
    return (double)(clock() - t0) * 1000.0 / CLOCKS_PER_SEC;
}

START_TEST(test_import_is_linear)
{
    vs_interp *ip = setup(GPU0);
    cap c;
    json_t *p = NULL;
    double small, large;
    memset(&c, 0, sizeof c);
    small = import_cpu_ms(ip, &c, 5000, &p);
    json_decref(p);
    large = import_cpu_ms(ip, &c, 20000, &p);
    ck_assert_msg(large < 10.0 * (small > 1.0 ? small : 1.0),
                  "4x the lines took %.0f ms of CPU against %.0f ms: not linear", large, small);
    ck_assert_uint_eq(json_array_size(json_object_get(p, "rows")), 20000);
    ck_assert_int_eq(json_integer_value(json_object_get(
                         json_array_get(json_object_get(p, "rows"), 0), "peak_bytes")),
                     100000);
    json_decref(p);
    teardown(ip, &c);
}
END_TEST

/* Re-running is restating: a `measure` whose run gives the result of an
 * earlier run of the sheet (same command, exit status, overflow phase, peaks
 * and dims; times aside) keeps that run and records nothing; another result
 * is a new run. */
START_TEST(test_measure_again_restates)
{
    vs_interp *ip = setup(GPU0);
    cap c;
    vs_error err;
    json_t *p, *sheet;
    int k;
    static const char same[] =
        "measure phase=load -- printf 'gpu 0 used 3000000000\\n' > $FAKE_NVML_STATE; sleep 0.3";
    static const char oom[] =
        "measure phase=generate -- printf 'gpu 0 used 5000000000\\n' > $FAKE_NVML_STATE; "
        "sleep 0.3; echo 'CUDA out of memory' >&2; exit 1";
    memset(&c, 0, sizeof c);
    ck_assert_int_eq(exec(ip, &c, "sheet \"again\"\nlength 128\nconcurrency 1", &p, &err), 0);
    json_decref(p);
    ck_assert_int_eq(exec(ip, &c, same, &p, &err), 0);
    ck_assert_str_eq(json_string_value(json_object_get(p, "run")), "m1");
    ck_assert_ptr_null(json_object_get(p, "restates"));
    json_decref(p);
    for (k = 0; k < 2; k++) {
        vs_buf_reset(&c.out);
        ck_assert_int_eq(exec(ip, &c, same, &p, &err), 0);
        ck_assert_str_eq(json_string_value(json_object_get(p, "run")), "m1");
        ck_assert(json_is_true(json_object_get(p, "restates")));
        /* the gauge, last shown as m2, ends naming the run restated */
        ck_assert_str_eq(c.last_run, "m1");
        ck_assert_str_eq(c.last_state, "finished");
        ck_assert_int_eq(json_integer_value(json_object_get(
                             json_array_get(json_object_get(p, "rows"), 0), "peak_bytes")),
                         3000000000LL);
        json_decref(p);
    }
    sheet = sheet_of(ip, "again");
    ck_assert_uint_eq(json_array_size(json_object_get(sheet, "runs")), 1);
    ck_assert_uint_eq(json_array_size(json_object_get(sheet, "measurements")), 1);
    json_decref(sheet);
    /* another peak is another result: m2 */
    ck_assert_int_eq(exec(ip, &c,
                          "measure phase=load -- printf 'gpu 0 used 4000000000\\n' > "
                          "$FAKE_NVML_STATE; sleep 0.3",
                          &p, &err),
                     0);
    ck_assert_str_eq(json_string_value(json_object_get(p, "run")), "m2");
    ck_assert_ptr_null(json_object_get(p, "restates"));
    json_decref(p);
    /* the same command text with another phase= is another command */
    ck_assert_int_eq(exec(ip, &c,
                          "measure phase=warm -- printf 'gpu 0 used 4000000000\\n' > "
                          "$FAKE_NVML_STATE; sleep 0.3",
                          &p, &err),
                     0);
    ck_assert_str_eq(json_string_value(json_object_get(p, "run")), "m3");
    json_decref(p);
    /* an overflow run again: its out-of-memory note is not written twice */
    ck_assert_int_eq(exec(ip, &c, oom, &p, &err), 0);
    ck_assert_str_eq(json_string_value(json_object_get(p, "run")), "m4");
    json_decref(p);
    ck_assert_int_eq(exec(ip, &c, oom, &p, &err), 0);
    ck_assert_str_eq(json_string_value(json_object_get(p, "run")), "m4");
    ck_assert(json_is_true(json_object_get(p, "restates")));
    ck_assert_str_eq(json_string_value(json_object_get(p, "overflow_phase")), "generate");
    json_decref(p);
    sheet = sheet_of(ip, "again");
    ck_assert_uint_eq(json_array_size(json_object_get(sheet, "runs")), 4);
    ck_assert_uint_eq(json_array_size(json_object_get(sheet, "oom")), 1);
    json_decref(sheet);
    teardown(ip, &c);
}
END_TEST

/* The runtime items (non_torch, activation_peak, cuda_graphs) are filled from
 * an engine log's start-up figures, which name no executed dims: allowed for
 * those names only, from the counter that reports the item, and said to be not
 * at the card's dims. Line: vLLM 0.7's one-line form (vllm/worker/worker.py,
 * quoted in src/measure/import_vllm.c). Expected bytes by hand:
 * 1.79 GiB = 1.79 x 1,073,741,824 = 1,921,997,864.96 -> 1,921,997,865;
 * 1.26 GiB = 1.26 x 1,073,741,824 = 1,352,914,698.24 -> 1,352,914,698. */
START_TEST(test_measured_runtime_item_from_log)
{
    vs_interp *ip = setup(GPU0);
    cap c;
    vs_error err;
    json_t *p, *sheet, *comp;
    char a[512], code[2048];
    size_t i;
    int seen = 0;
    memset(&c, 0, sizeof c);
    mt_write("vllm.log",
             "INFO 01-24 10:00:00 worker.py:241] Memory profiling takes 4.12 seconds\n"
             "INFO 01-24 10:00:00 worker.py:241] model weights take 14.96GiB; non_torch_memory "
             "takes 1.79GiB; PyTorch activation peak memory takes 1.26GiB; the rest of the memory "
             "reserved for KV Cache is 53.29GiB.\n");
    mt_path(a, sizeof a, "vllm.log");
    snprintf(code, sizeof code,
             "sheet \"log\"\nmodel m params=7e9\nformat bf16\nlength 4096\nconcurrency 8\n"
             "measure import \"%s\" format=vllm",
             a);
    ck_assert_int_eq(exec(ip, &c, code, &p, &err), 0);
    json_decref(p);
    ck_assert_int_eq(
        exec(ip, &c, "measured non_torch from=m1:startup:vllm.non_torch_memory", &p, &err), 0);
    ck_assert_int_eq(json_integer_value(json_object_get(p, "bytes")), 1921997865LL);
    ck_assert(json_is_false(json_object_get(p, "validates_card")));
    ck_assert_ptr_nonnull(
        strstr(json_string_value(json_object_get(p, "source")), "not taken at the card's dims"));
    json_decref(p);
    ck_assert_int_eq(
        exec(ip, &c, "measured activation_peak from=m1:startup:vllm.activation_peak", &p, &err), 0);
    ck_assert_int_eq(json_integer_value(json_object_get(p, "bytes")), 1352914698LL);
    json_decref(p);
    /* the item's own counter only */
    ck_assert_int_eq(
        exec(ip, &c, "measured cuda_graphs from=m1:startup:vllm.kv_cache_memory", &p, &err),
        VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "is not a figure of cuda_graphs"));
    /* everything else keeps the rule: a log's figure does not validate the card */
    ck_assert_int_eq(
        exec(ip, &c, "measured kv_cache from=m1:startup:vllm.kv_cache_memory", &p, &err),
        VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "does not validate the card"));
    ck_assert_int_eq(
        exec(ip, &c, "measured weights_seen from=m1:startup:vllm.model_weights", &p, &err),
        VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "does not validate the card"));
    /* and a runtime item from a run of a command at smaller dims keeps it too */
    ck_assert_int_eq(exec(ip, &c,
                          "record phase=generate gpu=0 counter=vllm.non_torch_memory 1GB "
                          "length=128 concurrency=1",
                          &p, &err),
                     0);
    json_decref(p);
    ck_assert_int_eq(exec(ip, &c, "measured non_torch from=#5", &p, &err), VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "does not validate the card"));
    sheet = sheet_of(ip, "log");
    json_array_foreach(json_object_get(sheet, "components"), i, comp)
    {
        const char *n = json_string_value(json_object_get(comp, "name"));
        if (!strcmp(n, "non_torch")) {
            ck_assert_str_eq(json_string_value(json_object_get(comp, "status")), "measured");
            ck_assert_int_eq(json_integer_value(json_object_get(comp, "bytes")), 1921997865LL);
            seen++;
        }
        ck_assert_str_ne(n, "kv_cache");
        ck_assert_str_ne(n, "cuda_graphs");
    }
    ck_assert_int_eq(seen, 1);
    json_decref(sheet);
    /* the envelope counts it, flagged: no capacity verdict rests on it */
    ck_assert_int_eq(exec(ip, &c, "envelope", &p, &err), 0);
    json_array_foreach(
        json_object_get(p, "components"), i,
        comp) if (!strcmp(json_string_value(json_object_get(comp, "name")), "non_torch"))
        ck_assert(json_is_string(json_object_get(comp, "flag")));
    json_decref(p);
    teardown(ip, &c);
}
END_TEST

/* Credentials in the command: the process gets them as typed; the sheet, its
 * Markdown and the result show <redacted> in their place, and say so. */
START_TEST(test_credentials_redacted)
{
    vs_interp *ip = setup(GPU0);
    cap c;
    vs_error err;
    json_t *p, *sheet;
    char *text, *md;
    /* typed by hand: what the record must keep of the command below */
    const char *kept = "HF_TOKEN=<redacted> db_Password=<redacted> sh -c 'echo \"got "
                       "$HF_TOKEN $db_Password\"'; echo https://bob:<redacted>@example.com/x "
                       ">/dev/null";
    memset(&c, 0, sizeof c);
    ck_assert_int_eq(exec(ip, &c,
                          "sheet \"s\"\nmeasure -- HF_TOKEN=hf_Secret123 db_Password='p w' sh -c "
                          "'echo \"got $HF_TOKEN $db_Password\"'; echo "
                          "https://bob:pw42@example.com/x >/dev/null",
                          &p, &err),
                     0);
    ck_assert_str_eq(vs_buf_str(&c.out), "got hf_Secret123 p w\n");
    ck_assert_msg(strstr(vs_buf_str(&c.err), "HF_TOKEN, db_Password, a URL's password redacted"),
                  "%s", vs_buf_str(&c.err));
    ck_assert_str_eq(json_string_value(json_object_get(p, "command")), kept);
    json_decref(p);
    sheet = sheet_of(ip, "s");
    ck_assert_str_eq(json_string_value(json_object_get(
                         json_array_get(json_object_get(sheet, "runs"), 0), "command")),
                     kept);
    text = json_dumps(sheet, 0);
    md = vs_markdown_sheet(sheet);
    ck_assert_ptr_nonnull(text);
    ck_assert_ptr_nonnull(md);
    ck_assert_ptr_null(strstr(text, "Secret123"));
    ck_assert_ptr_null(strstr(text, "pw42"));
    ck_assert_ptr_null(strstr(md, "Secret123"));
    ck_assert_ptr_null(strstr(md, "pw42"));
    ck_assert_ptr_null(strstr(md, "p w"));
    ck_assert_msg(strstr(md, "HF\\_TOKEN=") || strstr(md, "HF_TOKEN="), "%s", md);
    free(text);
    free(md);
    json_decref(sheet);
    /* nothing that looks like a credential: the command is kept byte for byte */
    vs_buf_reset(&c.err);
    ck_assert_int_eq(exec(ip, &c, "measure -- LENGTH=4 true # https://example.com/a@b", &p, &err),
                     0);
    ck_assert_str_eq(json_string_value(json_object_get(p, "command")),
                     "LENGTH=4 true # https://example.com/a@b");
    ck_assert_ptr_null(strstr(vs_buf_str(&c.err), "redacted"));
    json_decref(p);
    teardown(ip, &c);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("measure_verbs");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_measure_line);
    tcase_add_test(tc, test_cell_form_and_stage);
    tcase_add_test(tc, test_overflow_still_measured);
    tcase_add_test(tc, test_failed_cell_keeps_oom);
    tcase_add_test(tc, test_nvml_past_int64_stays_loadable);
    tcase_add_test(tc, test_failed_cell_keeps_measurement);
    tcase_add_test(tc, test_no_driver_nothing_recorded);
    tcase_add_test(tc, test_interrupt_ends_group);
    tcase_add_test(tc, test_bad_arguments);
    tcase_add_test(tc, test_record_and_measured);
    tcase_add_test(tc, test_measured_needs_card);
    tcase_add_test(tc, test_generation_dims);
    tcase_add_test(tc, test_import);
    tcase_add_test(tc, test_import_refuses);
    tcase_add_test(tc, test_import_is_linear);
    tcase_add_test(tc, test_measure_again_restates);
    tcase_add_test(tc, test_measured_runtime_item_from_log);
    tcase_add_test(tc, test_credentials_redacted);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
