/* Measurement verbs: measure (and %%measure), measure import, record, measured,
 * measurements. They turn src/measure/'s results into the sheet's "runs"
 * and "measurements" (layout in sheet/sheet.h) and into bundles. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lang/verb.h"
#include "measure/import.h"
#include "measure/measure.h"
#include "measure/phasefd.h"
#include "model/safetensors.h"
#include "render/bundle.h"
#include "render/gauge.h"
#include "sheet/compare.h"
#include "sheet/derived.h"
#include "sheet/envelope.h"
#include "sheet/sheet.h"
#include "sheet/units.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/json.h"
#include "util/pool.h"
#include "util/utf8.h"

static int oom_error(vs_error *err)
{
    return vs_error_set(err, VS_ENOMEM, "out of memory");
}

static const char one_change[] =
    "Change one thing at a time (capacity, cache, microbatch or precision) and measure again; "
    "after each change re-check the quality criterion and the coverage: a shorter length, fewer "
    "sequences or another quantization may no longer answer the card.";

/* ------------------------------------------------------------ small helpers */

static json_t *iso_json(int64_t wall_ms)
{
    char buf[32];
    vs_clock_iso_utc(buf, sizeof buf, wall_ms);
    return buf[0] ? json_string(buf) : json_null();
}

static json_t *str_or_null(const char *s)
{
    return s && *s ? json_string(s) : json_null();
}

/* The sheet's next run id: m1, m2, ... after the largest in use. */
static void next_run_id(const json_t *sheet, char *out, size_t n)
{
    long max = 0;
    size_t i;
    json_t *r;
    vs_json_array_foreach(vs_sheet_array(sheet, "runs"), i, r)
    {
        const char *id = json_string_value(json_object_get(r, "id"));
        char *end;
        long k;
        if (!id || id[0] != 'm')
            continue;
        k = strtol(id + 1, &end, 10);
        if (!*end && k > max)
            max = k;
    }
    snprintf(out, n, "m%ld", max + 1);
}

static json_t *ensure_array(json_t *sheet, const char *key)
{
    json_t *a = vs_sheet_array(sheet, key);
    if (!a) {
        a = json_array();
        if (!a || json_object_set_new(sheet, key, a) < 0)
            return NULL;
    }
    return a;
}

/* ------------------------------------------------- dims against the card */

static const char *const card_dims[] = {"length", "concurrency", "microbatch", NULL};

/* One definition of what validates the card, in sheet/derived.c: recomputed
 * after every line, so the stored flag is never stale. */
static int validates_card(const json_t *sheet, const json_t *dims, vs_buf *why)
{
    return vs_dims_validate(sheet, dims, why);
}

static int measurement_validates(const json_t *sheet, const json_t *m, vs_buf *why)
{
    return vs_measurement_validates(sheet, m, why);
}

/* The first of the sheet's stages whose declared dims all equal the executed
 * ones, or NULL. */
static const char *match_stage(const json_t *sheet, const json_t *dims)
{
    size_t i, k;
    json_t *st;
    vs_json_array_foreach(vs_sheet_array(sheet, "stages"), i, st)
    {
        int declared = 0, match = 1;
        for (k = 0; card_dims[k]; k++) {
            json_t *want = json_object_get(st, card_dims[k]), *have;
            if (!json_is_integer(want))
                continue;
            declared = 1;
            have = json_object_get(dims, card_dims[k]);
            if (!json_is_integer(have) || json_integer_value(have) != json_integer_value(want))
                match = 0;
        }
        if (declared && match)
            return json_string_value(json_object_get(st, "name"));
    }
    return NULL;
}

static json_t *dims_json(const vs_measure_phase_dims *d)
{
    json_t *o = json_object();
    size_t i;
    for (i = 0; o && d && i < d->ndims; i++)
        json_object_set_new(o, d->dims[i].key, json_integer((json_int_t)d->dims[i].value));
    return o;
}

static void dims_text(vs_buf *b, const json_t *dims)
{
    const char *k;
    json_t *v;
    int first = 1;
    json_object_foreach((json_t *)dims, k, v)
    {
        vs_buf_printf(b, "%s%s=%lld", first ? "" : " ", k, (long long)json_integer_value(v));
        first = 0;
    }
}

/* A measurement object as the layout has it. */
static json_t *measurement_new(const json_t *sheet, const char *run, const char *phase, int gpu,
                               const char *gpu_name, const char *counter, const char *scope,
                               uint64_t peak, json_t *dims_take, const char *stage,
                               const char *host, int rank, int64_t at)
{
    json_t *m;
    if (!dims_take)
        return NULL;
    if (!stage)
        stage = match_stage(sheet, dims_take);
    m = json_pack("{s:o, s:s, s:o, s:o, s:s, s:s, s:I, s:o, s:o, s:o, s:o, s:b, s:s, s:o}", "run",
                  str_or_null(run), "phase", phase, "gpu",
                  gpu >= 0 ? json_integer(gpu) : json_null(), "gpu_name", str_or_null(gpu_name),
                  "counter", counter, "scope", scope, "peak_bytes", (json_int_t)peak, "dims",
                  dims_take, "stage", str_or_null(stage), "host", str_or_null(host), "rank",
                  rank >= 0 ? json_integer(rank) : json_null(), "validates_card",
                  validates_card(sheet, dims_take, NULL), "state", "current", "time", iso_json(at));
    /* schema 2's keys of a log's figure: none for a measured run */
    if (m && (json_object_set_new(m, "text", json_null()) < 0 ||
              json_object_set_new(m, "resolution_bytes", json_null()) < 0 ||
              json_object_set_new(m, "value", json_null()) < 0 ||
              json_object_set_new(m, "unit", json_null()) < 0)) {
        json_decref(m);
        return NULL;
    }
    return m;
}

/* ----------------------------------------------------- measurement tables */

/* The peak cell: bytes, or an imported count with its unit ("158,656 tokens",
 * "4.84 x") whose peak_bytes is null. */
static void peak_text(char *out, size_t n, const json_t *m)
{
    json_t *v = json_object_get(m, "value");
    const char *unit = json_string_value(json_object_get(m, "unit"));
    if (json_is_null(json_object_get(m, "peak_bytes")) && json_is_number(v)) {
        if (json_is_integer(v) && json_integer_value(v) >= 0)
            vs_units_grouped(out, n, (uint64_t)json_integer_value(v));
        else
            snprintf(out, n, "%.4g", json_number_value(v));
        if (unit && strlen(out) + strlen(unit) + 2 < n) {
            strcat(out, " ");
            strcat(out, unit);
        }
        return;
    }
    vs_units_describe(out, n, (uint64_t)json_integer_value(json_object_get(m, "peak_bytes")));
}

static const char *const mtable_headers[] = {"phase", "GPU",  "counter", "scope",
                                             "peak",  "dims", "stage",   "validates card"};

static void add_mrow(vs_table *t, const json_t *m)
{
    char gpu[160], peak[160];
    const char *cells[8];
    vs_buf d = VS_BUF_INIT;
    json_t *g = json_object_get(m, "gpu");
    const char *name = json_string_value(json_object_get(m, "gpu_name"));
    if (json_is_integer(g))
        snprintf(gpu, sizeof gpu, "%lld%s%s", (long long)json_integer_value(g), name ? " " : "",
                 name ? name : "");
    else
        snprintf(gpu, sizeof gpu, "%s", "-");
    peak_text(peak, sizeof peak, m);
    dims_text(&d, json_object_get(m, "dims"));
    cells[0] = json_string_value(json_object_get(m, "phase"));
    cells[1] = gpu;
    cells[2] = json_string_value(json_object_get(m, "counter"));
    cells[3] = json_string_value(json_object_get(m, "scope"));
    cells[4] = peak;
    cells[5] = d.len ? vs_buf_str(&d) : "-";
    cells[6] = json_string_value(json_object_get(m, "stage"));
    cells[7] = json_is_true(json_object_get(m, "validates_card")) ? "yes" : "no";
    if (!cells[6])
        cells[6] = "-";
    vs_table_add_row(t, cells);
    vs_buf_free(&d);
}

/* Rows for the payload: the layout's measurement keys of the `measurement` result. */
static json_t *payload_row(const json_t *m)
{
    return json_pack("{s:O, s:O, s:O, s:O, s:O, s:O, s:O, s:O, s:O, s:O}", "phase",
                     json_object_get(m, "phase"), "gpu", json_object_get(m, "gpu"), "gpu_name",
                     json_object_get(m, "gpu_name"), "counter", json_object_get(m, "counter"),
                     "scope", json_object_get(m, "scope"), "peak_bytes",
                     json_object_get(m, "peak_bytes"), "dims", json_object_get(m, "dims"), "stage",
                     json_object_get(m, "stage"), "validates_card",
                     json_object_get(m, "validates_card"), "run", json_object_get(m, "run"));
}

static void scope_notes(vs_buf *text, const json_t *rows)
{
    size_t i;
    json_t *m;
    int device = 0, alloc = 0, tensors = 0;
    json_array_foreach((json_t *)rows, i, m)
    {
        const char *s = json_string_value(json_object_get(m, "scope"));
        if (!s)
            continue;
        device |= !strcmp(s, "device");
        alloc |= !strcmp(s, "allocator");
        tensors |= !strcmp(s, "tensors");
    }
    if (device)
        vs_buf_puts(text, "Scope device: the GPU's used memory as NVML reports it, covering every "
                          "process and the driver's own, more than the command.\n");
    if (alloc && tensors)
        vs_buf_puts(text, "Allocated (tensors) and reserved (allocator) are different scopes of "
                          "the same memory: never add them.\n");
}

/* ------------------------------------------------------------------ gauge */

/* The gauge's last state, kept so that a run that restates an earlier one
 * can name that run in the gauge too. */
typedef struct gauge_snap {
    vs_gauge g;
    vs_gauge_gpu *gpus;
    char (*names)[128];
    char state[24], phase[64], why[160];
} gauge_snap;

typedef struct gauge {
    vs_ctx *ctx;
    char id[96];
    char run[32];
    gauge_snap snap;         /* gpus NULL until the run ended */
    uint64_t envelope_bytes; /* the sheet's, per GPU: the gauge's mark (0: none) */
    int shown;
    int64_t last_ms;
    /* UTF-8 carried between reads, per stream */
    char carry[3][4];
    size_t ncarry[3];
} gauge;

/* The gauge's numbers from the sampler; render/gauge.c draws them. */
static vs_bundle *gauge_bundle(gauge *gz, const vs_measure_live *live, const char *state, int keep)
{
    vs_sampler_view *v = NULL;
    vs_gauge g;
    vs_gauge_gpu *gp;
    char why[160];
    unsigned i;
    vs_bundle *b;
    if (vs_sampler_view_get(live->sampler, &v) < 0)
        return NULL;
    gp = calloc(v->ngpus ? v->ngpus : 1, sizeof *gp);
    if (!gp) {
        vs_sampler_view_free(v);
        return NULL;
    }
    for (i = 0; i < v->ngpus; i++) {
        size_t p;
        gp[i].name = i < live->ngpus ? live->gpus[i].name : "";
        gp[i].total_bytes = i < live->ngpus ? live->gpus[i].total_bytes : 0;
        gp[i].used_bytes = v->device_now[i];
        gp[i].phase_peak_bytes = v->phases[v->current].gpus[i].device_peak;
        for (p = 0; p < v->nphases; p++)
            if (v->phases[p].gpus[i].device_peak > gp[i].run_peak_bytes)
                gp[i].run_peak_bytes = v->phases[p].gpus[i].device_peak;
        gp[i].process_known = v->process_available && v->process_attributed;
        gp[i].process_bytes = v->process_now[i];
    }
    if (!v->process_available)
        snprintf(why, sizeof why, "the driver lists no processes");
    else if (!v->process_attributed && !v->foreign_pids)
        snprintf(why, sizeof why, "the driver lists no process of the command's yet");
    else if (!v->process_attributed)
        snprintf(why, sizeof why,
                 "the driver lists %u process(es), none of the command's (another PID "
                 "namespace?)",
                 v->foreign_pids);
    g = (vs_gauge){gz->run,
                   state,
                   v->phases[v->current].name,
                   live->elapsed_ms,
                   gz->envelope_bytes,
                   v->process_available && v->process_attributed ? NULL : why,
                   gp,
                   v->ngpus};
    b = vs_render_gauge(&g);
    if (keep && !gz->snap.gpus) {
        gauge_snap *sn = &gz->snap;
        sn->names = calloc(v->ngpus ? v->ngpus : 1, sizeof *sn->names);
        if (sn->names) {
            sn->g = g;
            sn->g.gpus = sn->gpus = gp;
            gp = NULL;
            for (i = 0; i < v->ngpus; i++) {
                snprintf(sn->names[i], sizeof sn->names[i], "%s", sn->gpus[i].name);
                sn->gpus[i].name = sn->names[i];
            }
            snprintf(sn->state, sizeof sn->state, "%s", state);
            snprintf(sn->phase, sizeof sn->phase, "%s", g.phase ? g.phase : "");
            snprintf(sn->why, sizeof sn->why, "%s", g.process_why ? g.process_why : "");
            sn->g.state = sn->state;
            sn->g.phase = sn->phase;
            sn->g.process_why = g.process_why ? sn->why : NULL;
        }
    }
    free(gp);
    vs_sampler_view_free(v);
    return b;
}

static void gauge_show(gauge *gz, const vs_measure_live *live, const char *state, int keep)
{
    vs_bundle *b = gauge_bundle(gz, live, state, keep);
    if (!b)
        return;
    vs_ctx_display(gz->ctx, b, gz->id, gz->shown);
    gz->shown = 1;
    vs_bundle_free(b);
}

static void on_tick(void *cb, const vs_measure_live *live)
{
    gauge_show(cb, live, "running", 0);
}

/* The gauge's last state, so that it does not stay "running". */
static void on_end(void *cb, const vs_measure_live *live, const vs_runner_result *run)
{
    gauge *gz = cb;
    if (gz->shown)
        gauge_show(gz, live,
                   run->interrupted ? "interrupted"
                   : run->timed_out ? "timed out"
                                    : "finished",
                   1);
}

/* The gauge shown again in its last state, naming the run it restates. */
static void gauge_restated(gauge *gz, const char *run)
{
    vs_bundle *b;
    if (!gz->shown || !gz->snap.gpus)
        return;
    gz->snap.g.run = run;
    if ((b = vs_render_gauge(&gz->snap.g)) != NULL) {
        vs_ctx_display(gz->ctx, b, gz->id, 1);
        vs_bundle_free(b);
    }
}

static int on_interrupted(void *cb)
{
    return vs_ctx_interrupted(((gauge *)cb)->ctx);
}

/* Streams bytes as text: a sequence cut between two reads waits for its end;
 * invalid bytes and NULs become U+FFFD. */
static void stream_text(gauge *gz, int stream, const char *data, size_t len, int final)
{
    vs_buf in = VS_BUF_INIT, out = VS_BUF_INIT;
    size_t i = 0;
    int s = stream == 2 ? 2 : 1;
    vs_buf_append(&in, gz->carry[s], gz->ncarry[s]);
    if (len)
        vs_buf_append(&in, data, len);
    gz->ncarry[s] = 0;
    if (vs_buf_failed(&in))
        goto done;
    while (i < in.len) {
        int k = vs_utf8_prefix((const unsigned char *)in.data + i, in.len - i);
        if (k < 0 && !final && in.len - i < 4) {
            memcpy(gz->carry[s], in.data + i, in.len - i);
            gz->ncarry[s] = in.len - i;
            break;
        }
        if (k <= 0 || in.data[i] == '\0') {
            vs_buf_puts(&out, "\xEF\xBF\xBD");
            i++;
        } else {
            vs_buf_append(&out, in.data + i, (size_t)k);
            i += (size_t)k;
        }
    }
    if (out.len && !vs_buf_failed(&out))
        vs_ctx_stream(gz->ctx, s == 2 ? "stderr" : "stdout", out.data, out.len);
done:
    vs_buf_free(&in);
    vs_buf_free(&out);
}

static void on_output(void *cb, int stream, const char *data, size_t len)
{
    stream_text(cb, stream, data, len, 0);
}

static void on_bad_line(void *cb, const char *line, const char *why)
{
    gauge *gz = cb;
    char msg[512];
    int n =
        snprintf(msg, sizeof msg, "vramsheet: ignored phase line '%.120s': %.200s\n", line, why);
    if (n > 0)
        stream_text(gz, 2, msg, strlen(msg), 0);
}

/* ------------------------------------------------------------ measure verb */

static const char *const measure_keys[] = {"phase",       "timeout",    "interval", "length",
                                           "concurrency", "microbatch", "format",   NULL};
static const char *const measure_words[] = {"import", NULL};

static int parse_seconds(const vs_line *line, const char *key, double *out, vs_error *err)
{
    const vs_arg *a = vs_line_pair(line, key);
    char *end;
    double v;
    if (!a)
        return 0;
    v = strtod(a->value, &end);
    if (end == a->value || *end || !isfinite(v) || v <= 0 || v > 1e7)
        return vs_error_set_at(err, VS_EVALUE, a->line, a->value_column,
                               "expected %s=SECONDS, a positive number (got '%s')", key, a->value);
    *out = v;
    return 0;
}

/* GPUs worth a row: those where the command's processes held memory, or that a
 * counter names, or (without process attribution) whose used memory changed;
 * all of them when none qualifies. */
static void pick_gpus(const vs_measure_result *r, int *keep)
{
    const vs_sampler_view *v = r->view;
    unsigned g;
    size_t p, c;
    int any = 0;
    for (g = 0; g < v->ngpus; g++) {
        uint64_t lo = UINT64_MAX, hi = 0;
        keep[g] = 0;
        for (p = 0; p < v->nphases; p++) {
            const vs_sampler_cell *cell = &v->phases[p].gpus[g];
            if (v->process_attributed && cell->process_peak > 0)
                keep[g] = 1;
            if (cell->device_peak_at) {
                if (cell->device_peak > hi)
                    hi = cell->device_peak;
            }
        }
        lo = v->device_start[g];
        if (!v->process_attributed && hi > lo)
            keep[g] = 1;
        for (c = 0; c < r->ncounters; c++)
            if (r->counters[c].gpu == (int)g)
                keep[g] = 1;
        any |= keep[g];
    }
    if (!any)
        for (g = 0; g < v->ngpus; g++)
            keep[g] = 1;
}

static int record_run(vs_ctx *ctx, json_t *sheet, const char *run_id, const char *command,
                      const char *phase_arg, const vs_measure_result *r, json_t *rows,
                      vs_error *err)
{
    json_t *runs = ensure_array(sheet, "runs"), *ms = ensure_array(sheet, "measurements");
    json_t *run, *gpus = json_array();
    const vs_sampler_view *v = r->view;
    int *keep = calloc(r->ngpus ? r->ngpus : 1, sizeof *keep);
    unsigned g;
    size_t p, c;
    char started[32];
    int rc = 0;
    if (!runs || !ms || !gpus || !keep) {
        json_decref(gpus);
        free(keep);
        return oom_error(err);
    }
    for (g = 0; g < r->ngpus; g++) {
        const vs_nvml_gpu *gi = &r->gpus[g];
        int nvml = gi->total_bytes > 0;
        json_array_append_new(gpus,
                              json_pack("{s:i, s:s, s:I, s:s}", "index", (int)g, "name", gi->name,
                                        "total_bytes",
                                        (json_int_t)(nvml ? gi->total_bytes : gi->cuda_total_bytes),
                                        "total_basis", nvml ? "nvml" : "cuda"));
    }
    vs_clock_iso_utc(started, sizeof started, r->started_at);
    run = json_pack("{s:s, s:s, s:o, s:i, s:o, s:s, s:I, s:o, s:o, s:o, s:o}", "id", run_id,
                    "command", command, "phase", str_or_null(phase_arg), "exit_status",
                    r->run.exit_status, "overflow_phase", str_or_null(r->overflow_phase), "started",
                    started, "elapsed_ms", (json_int_t)r->run.elapsed_ms, "host",
                    str_or_null(r->host), "driver", str_or_null(r->driver), "nvml",
                    str_or_null(r->nvml_version), "gpus", gpus);
    if (!run || json_array_append_new(runs, run) < 0) {
        free(keep);
        return oom_error(err);
    }
    pick_gpus(r, keep);
    for (p = 0; p < v->nphases; p++) {
        const char *phase = v->phases[p].name;
        const vs_measure_phase_dims *d = vs_measure_dims_of(r, phase);
        for (g = 0; g < v->ngpus; g++) {
            const vs_sampler_cell *cell = &v->phases[p].gpus[g];
            json_t *m;
            if (!keep[g] || cell->samples == 0)
                continue;
            m = measurement_new(sheet, run_id, phase, (int)g, r->gpus[g].name, VS_COUNTER_DEVICE,
                                "device", cell->device_peak, dims_json(d), NULL, r->host, -1,
                                cell->device_peak_at);
            if (!m || json_array_append_new(ms, m) < 0 ||
                json_array_append_new(rows, json_incref(m)) < 0)
                rc = oom_error(err);
            if (v->process_available && v->process_attributed && cell->process_peak_at) {
                m = measurement_new(sheet, run_id, phase, (int)g, r->gpus[g].name,
                                    VS_COUNTER_PROCESS, "process", cell->process_peak, dims_json(d),
                                    NULL, r->host, -1, cell->process_peak_at);
                if (!m || json_array_append_new(ms, m) < 0 ||
                    json_array_append_new(rows, json_incref(m)) < 0)
                    rc = oom_error(err);
            }
        }
        for (c = 0; c < r->ncounters; c++) {
            const vs_measure_counter *k = &r->counters[c];
            json_t *m;
            if (strcmp(k->phase, phase) != 0)
                continue;
            m = measurement_new(sheet, run_id, phase, k->gpu,
                                k->gpu >= 0 ? r->gpus[k->gpu].name : NULL, k->name,
                                vs_measure_counter_scope(k->name), k->bytes, dims_json(d), NULL,
                                r->host, -1, k->at);
            if (!m || json_array_append_new(ms, m) < 0 ||
                json_array_append_new(rows, json_incref(m)) < 0)
                rc = oom_error(err);
        }
    }
    /* A run that failed or overflowed did not complete the workload: whatever
     * dims it reached, it validates nothing. */
    if (r->run.exit_status != 0 || r->run.term_signal || r->overflow_phase[0]) {
        size_t i;
        json_t *m;
        json_array_foreach(rows, i, m) json_object_set_new(m, "validates_card", json_false());
    }
    if (r->overflow_phase[0]) {
        json_t *o = ensure_array(sheet, "oom");
        char note[256];
        snprintf(note, sizeof note, "run %s: \"%s\"", run_id, r->run.oom_pattern);
        if (!o || json_array_append_new(
                      o, json_pack("{s:s, s:s}", "phase", r->overflow_phase, "note", note)) < 0)
            rc = oom_error(err);
    }
    free(keep);
    (void)ctx;
    return rc;
}

/* --------------------------------------------------------- restating a run */

/* What makes two runs the same result: the command text, the exit status, the
 * phase it overflowed in, and every recorded peak (phase, GPU, counter, scope,
 * bytes, executed dims). Times, elapsed milliseconds and the run id are not
 * part of it. One string, the rows sorted, so that order does not matter. */
static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *run_signature(const json_t *sheet, const json_t *run)
{
    const char *id = json_string_value(json_object_get(run, "id"));
    json_t *m, *head;
    char **keys = NULL, *out = NULL;
    size_t i, n = 0, cap = 0, k;
    vs_buf b = VS_BUF_INIT;
    if (!id)
        return NULL;
    vs_json_array_foreach(vs_sheet_array(sheet, "measurements"), i, m)
    {
        json_t *key;
        char *d;
        if (!json_is_string(json_object_get(m, "run")) ||
            strcmp(json_string_value(json_object_get(m, "run")), id) != 0)
            continue;
        key = json_pack("{s:O?, s:O?, s:O?, s:O?, s:O?, s:O?, s:O?}", "phase",
                        json_object_get(m, "phase"), "gpu", json_object_get(m, "gpu"), "gpu_name",
                        json_object_get(m, "gpu_name"), "counter", json_object_get(m, "counter"),
                        "scope", json_object_get(m, "scope"), "peak_bytes",
                        json_object_get(m, "peak_bytes"), "dims", json_object_get(m, "dims"));
        d = key ? json_dumps(key, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
        json_decref(key);
        if (!d)
            goto done;
        if (n == cap) {
            char **nk = realloc(keys, (cap = cap ? 2 * cap : 8) * sizeof *nk);
            if (!nk) {
                vs_json_free(d);
                goto done;
            }
            keys = nk;
        }
        keys[n++] = d;
    }
    if (n)
        qsort(keys, n, sizeof *keys, cmp_str);
    head = json_pack("{s:O?, s:O?, s:O?}", "command", json_object_get(run, "command"),
                     "exit_status", json_object_get(run, "exit_status"), "overflow_phase",
                     json_object_get(run, "overflow_phase"));
    if (head) {
        char *d = json_dumps(head, JSON_COMPACT | JSON_SORT_KEYS);
        json_decref(head);
        if (d) {
            vs_buf_puts(&b, d);
            vs_json_free(d);
            for (k = 0; k < n; k++) {
                vs_buf_puts(&b, "\n");
                vs_buf_puts(&b, keys[k]);
            }
            out = strdup(vs_buf_str(&b));
        }
    }
done:
    for (k = 0; k < n; k++)
        vs_json_free(keys[k]);
    free(keys);
    vs_buf_free(&b);
    return out;
}

/* The earlier run of the sheet that run_id (just recorded, the last run)
 * restates, or NULL. A run with no peak recorded restates nothing. */
static const char *restated_run(const json_t *sheet, const char *run_id)
{
    const json_t *runs = vs_sheet_array(sheet, "runs");
    json_t *r, *mine = NULL;
    char *want;
    const char *found = NULL;
    size_t i;
    vs_json_array_foreach(runs, i, r)
    {
        const char *id = json_string_value(json_object_get(r, "id"));
        if (id && !strcmp(id, run_id))
            mine = r;
    }
    if (!mine || !(want = run_signature(sheet, mine)))
        return NULL;
    if (!strchr(want, '\n')) {
        free(want);
        return NULL;
    }
    vs_json_array_foreach(runs, i, r)
    {
        const char *id = json_string_value(json_object_get(r, "id"));
        char *sig;
        if (!id || r == mine || !(sig = run_signature(sheet, r)))
            continue;
        if (!strcmp(sig, want))
            found = id;
        free(sig);
        if (found)
            break;
    }
    free(want);
    return found;
}

/* Takes back what record_run added for run_id: its run, its measurements, its
 * out-of-memory note. */
static void unrecord_run(json_t *sheet, const char *run_id, int overflowed)
{
    json_t *runs = json_object_get(sheet, "runs"), *ms = json_object_get(sheet, "measurements");
    json_t *o = json_object_get(sheet, "oom");
    size_t i;
    for (i = json_array_size(runs); i-- > 0;) {
        const char *id = json_string_value(json_object_get(json_array_get(runs, i), "id"));
        if (id && !strcmp(id, run_id))
            json_array_remove(runs, i);
    }
    for (i = json_array_size(ms); i-- > 0;) {
        const char *id = json_string_value(json_object_get(json_array_get(ms, i), "run"));
        if (id && !strcmp(id, run_id))
            json_array_remove(ms, i);
    }
    if (overflowed && json_array_size(o))
        json_array_remove(o, json_array_size(o) - 1);
}

/* The measurements of an earlier run, in the sheet's order (references). */
static json_t *rows_of_run(const json_t *sheet, const char *run_id)
{
    json_t *rows = json_array(), *m;
    size_t i;
    if (!rows)
        return NULL;
    vs_json_array_foreach(vs_sheet_array(sheet, "measurements"), i, m)
    {
        const char *id = json_string_value(json_object_get(m, "run"));
        if (id && !strcmp(id, run_id))
            json_array_append(rows, m);
    }
    return rows;
}

static int render_measurement(vs_ctx *ctx, const json_t *sheet, const char *run_id,
                              const char *command, const vs_measure_result *r, json_t *rows,
                              const char *fresh_id, vs_error *err)
{
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT, why = VS_BUF_INIT;
    vs_table *t = vs_table_new(8, mtable_headers);
    json_t *payload, *prow = json_array(), *gpus = json_array(), *m;
    const char *process_memory;
    size_t i;
    int validates = 1, any = 0;
    unsigned g;
    if (!t || !prow || !gpus) {
        vs_table_free(t);
        json_decref(prow);
        json_decref(gpus);
        return oom_error(err);
    }
    vs_table_align_right(t, 4);
    json_array_foreach(rows, i, m)
    {
        add_mrow(t, m);
        json_array_append_new(prow, payload_row(m));
        any = 1;
    }
    /* The run's dims: the last phase's (dims carry over). */
    if (r->view->nphases) {
        const vs_measure_phase_dims *d =
            vs_measure_dims_of(r, r->view->phases[r->view->nphases - 1].name);
        json_t *dj = dims_json(d);
        validates = validates_card(sheet, dj, &why);
        json_decref(dj);
    }
    if (r->run.exit_status != 0 || r->run.term_signal || r->overflow_phase[0]) {
        if (why.len)
            vs_buf_puts(&why, "; ");
        vs_buf_puts(&why, "the run did not complete (it failed or overflowed)");
        validates = 0;
    }
    process_memory = !r->view->process_available   ? "not reported by the driver"
                     : r->view->process_attributed ? "attributed"
                                                   : "unattributed";
    for (g = 0; g < r->ngpus; g++)
        json_array_append_new(gpus,
                              json_pack("{s:i, s:s, s:s, s:I, s:s, s:o}", "index", (int)g, "name",
                                        r->gpus[g].name, "uuid", r->gpus[g].uuid, "total_bytes",
                                        (json_int_t)r->gpus[g].total_bytes, "total_basis", "nvml",
                                        "cuda_total_bytes",
                                        r->gpus[g].cuda_total_bytes
                                            ? json_integer((json_int_t)r->gpus[g].cuda_total_bytes)
                                            : json_null()));

    if (fresh_id) {
        vs_buf_printf(&text, "measured again on %s, %.2f s: `", r->host[0] ? r->host : "this host",
                      (double)r->run.elapsed_ms / 1000.0);
        vs_render_command_head(&text, command, 0);
        vs_buf_printf(&text,
                      "`\nThe same result as run %s (the same command, exit status, "
                      "peaks per phase, GPU and counter, and executed dims): this run "
                      "restates %s, which stays as recorded; nothing new was recorded.\n",
                      run_id, run_id);
    } else {
        vs_buf_printf(&text, "measured run %s on %s, %.2f s: `", run_id,
                      r->host[0] ? r->host : "this host", (double)r->run.elapsed_ms / 1000.0);
        vs_render_command_head(&text, command, 0);
        vs_buf_puts(&text, "`\n");
    }
    if (r->run.timed_out)
        vs_buf_printf(&text,
                      "TIMED OUT: the command's process group was ended (exit status %d); "
                      "the peaks up to then are recorded.\n",
                      r->run.exit_status);
    else if (r->run.term_signal)
        vs_buf_printf(&text,
                      "The command was ended by signal %d (exit status %d); it was "
                      "measured all the same.\n",
                      r->run.term_signal, r->run.exit_status);
    else if (r->run.exit_status != 0)
        vs_buf_printf(&text,
                      "The command FAILED with exit status %d; it was measured all the "
                      "same%s.\n",
                      r->run.exit_status, fresh_id ? "" : " and the run is recorded");
    else
        vs_buf_puts(&text, "The command exited with status 0.\n");
    if (r->overflow_phase[0])
        vs_buf_printf(&text, "OUT OF MEMORY in phase %s (\"%s\" in its output).\n%s\n%s\n",
                      r->overflow_phase, r->run.oom_pattern, vs_measure_triage(r->overflow_phase),
                      one_change);
    if (any)
        vs_table_text(t, &text);
    else
        vs_buf_puts(&text, "No sample was taken.\n");
    scope_notes(&text, rows);
    if (!r->view->process_available)
        vs_buf_puts(&text, "Process memory: not reported by this driver (only the device's used "
                           "memory is measured).\n");
    else if (!r->view->process_attributed)
        vs_buf_printf(&text,
                      "Process memory: the driver listed %u process(es) but none of the "
                      "command's (another PID namespace?); not recorded.\n",
                      r->view->foreign_pids);
    if (validates)
        vs_buf_puts(&text, "Executed dims meet the card.\n");
    else
        vs_buf_printf(&text, "This run does not validate the card: %s.\n", vs_buf_str(&why));
    if (r->run.leftovers)
        vs_buf_printf(&text, "%d process(es) left in the command's group were ended.\n",
                      r->run.leftovers);
    if (r->bad_lines)
        vs_buf_printf(&text, "%d phase line(s) ignored; the first: %s\n", r->bad_lines,
                      r->first_bad_line);
    vs_buf_printf(
        &text, "Driver %s, NVML %s; %llu samples every %d ms, longest gap %lld ms.\n",
        r->driver[0] ? r->driver : "unknown", r->nvml_version[0] ? r->nvml_version : "unknown",
        (unsigned long long)r->view->samples, r->interval_ms, (long long)r->view->max_gap_ms);

    {
        vs_run_head h = {run_id,
                         r->host,
                         command,
                         r->run.elapsed_ms,
                         r->run.exit_status,
                         r->overflow_phase,
                         vs_measure_triage(r->overflow_phase),
                         one_change,
                         validates ? NULL : vs_buf_str(&why)};
        vs_render_run_html(&html, &h, any ? t : NULL);
    }

    payload = json_pack(
        "{s:s, s:s, s:o, s:i, s:o, s:s, s:I, s:b, s:b, s:i, s:o, s:i, s:o, s:s, s:b, s:o, s:o,"
        " s:{s:o, s:o, s:s, s:s}, s:{s:i, s:I, s:I, s:I, s:I}}",
        "kind", "measurement", "run", run_id, "rows", prow, "exit_status", r->run.exit_status,
        "overflow_phase", str_or_null(r->overflow_phase), "command", command, "elapsed_ms",
        (json_int_t)r->run.elapsed_ms, "timed_out", r->run.timed_out, "interrupted", 0, "signal",
        r->run.term_signal, "oom_pattern", str_or_null(r->run.oom_pattern), "leftovers",
        r->run.leftovers, "triage",
        r->overflow_phase[0] ? json_string(vs_measure_triage(r->overflow_phase)) : json_null(),
        "process_memory", process_memory, "validates_card", validates, "card_check",
        validates ? json_null() : json_string(vs_buf_str(&why)), "gpus", gpus, "versions", "driver",
        str_or_null(r->driver), "nvml", str_or_null(r->nvml_version), "memory_api", r->memory_api,
        "process_api", r->process_api, "sampler", "interval_ms", r->interval_ms, "samples",
        (json_int_t)r->view->samples, "max_gap_ms", (json_int_t)r->view->max_gap_ms, "cpu_ns",
        (json_int_t)r->view->cpu_ns, "errors", (json_int_t)r->view->errors);
    /* a run again with the same result: which run it restates (the payload's
     * run), and that nothing new was recorded */
    if (payload && fresh_id)
        json_object_set_new(payload, "restates", json_true());
    vs_table_free(t);
    vs_buf_free(&why);
    {
        int rc = vs_ctx_emit_text(ctx, &text, &html, payload, err);
        vs_buf_free(&text);
        vs_buf_free(&html);
        return rc;
    }
}

static int measure_import(vs_ctx *ctx, const vs_line *line, vs_error *err);

static int verb_measure(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    vs_measure_options o;
    vs_measure_result r;
    vs_phasefd_dim dims[3];
    gauge gz;
    json_t *sheet, *rows = NULL;
    const vs_arg *phase = vs_line_pair(line, "phase"), *first = vs_line_positional(line, 0);
    char run_id[32];
    uint64_t interval = 0;
    int rc, present, cell = line->verb[0] == '%';
    size_t i, nd = 0;
    const char *command = line->raw;

    if (first && !strcmp(first->value, "import") && !cell)
        return measure_import(ctx, line, err);
    if (first)
        return vs_error_set_at(err, VS_EVALUE, first->line, first->column,
                               "unexpected '%s'; expected `measure [phase=NAME] "
                               "[timeout=SECONDS] [interval=MS] -- COMMAND` or `measure import "
                               "FILE...`",
                               first->value);
    if ((rc = vs_line_check_keys(line, measure_keys, err)) < 0)
        return rc;
    if (vs_line_pair(line, "format"))
        return vs_error_set(err, VS_EVALUE, "format= is for `measure import FILE...`");
    while (command && (*command == ' ' || *command == '\t' || *command == '\n'))
        command++;
    if (!command || !*command)
        return vs_error_set(err, VS_EVALUE,
                            cell ? "%%%%measure needs a command: the cell's body is the script"
                                 : "expected `measure [phase=NAME] [timeout=SECONDS] -- COMMAND` "
                                   "(the command after --)");
    if (phase && !vs_phasefd_name_valid(phase->value))
        return vs_error_set_at(err, VS_EVALUE, phase->line, phase->value_column,
                               "phase names are 1-63 characters of A-Z a-z 0-9 _ . : / + -");
    memset(&o, 0, sizeof o);
    if ((rc = parse_seconds(line, "timeout", &o.timeout_s, err)) < 0)
        return rc;
    if ((rc = vs_line_get_uint(line, "interval", 0, &interval, &present, err)) < 0)
        return rc;
    if (present && (interval < 1 || interval > 10000)) {
        const vs_arg *a = vs_line_pair(line, "interval");
        return vs_error_set_at(err, VS_EVALUE, a->line, a->value_column,
                               "interval is in milliseconds, 1 to 10000");
    }
    for (i = 0; card_dims[i]; i++) {
        uint64_t v;
        if ((rc = vs_line_get_count(line, card_dims[i], 0, &v, &present, err)) < 0)
            return rc;
        if (present) {
            snprintf(dims[nd].key, sizeof dims[nd].key, "%s", card_dims[i]);
            dims[nd++].value = v;
        }
    }
    sheet = vs_ctx_sheet(ctx);
    if (!sheet)
        return oom_error(err);
    next_run_id(sheet, run_id, sizeof run_id);

    memset(&gz, 0, sizeof gz);
    gz.ctx = ctx;
    snprintf(gz.run, sizeof gz.run, "%s", run_id);
    {
        vs_envelope env;
        vs_error e;
        if (vs_envelope_compute(&env, sheet, NULL, &e) == 0 && env.weights_known)
            gz.envelope_bytes = env.envelope_bytes;
    }
    {
        struct timespec ts;
        static unsigned serial; /* display ids stay unique within the kernel */
        clock_gettime(CLOCK_REALTIME, &ts);
        snprintf(gz.id, sizeof gz.id, "vramsheet-gauge-%d-%lld-%u", (int)getpid(),
                 (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000, ++serial);
    }
    o.command = command;
    o.phase = phase ? phase->value : NULL;
    o.dims = dims;
    o.ndims = nd;
    o.interval_ms = (int)interval;
    o.tick_ms = 250;
    o.cb = &gz;
    o.on_output = on_output;
    o.on_tick = on_tick;
    o.on_end = on_end;
    o.interrupted = on_interrupted;
    o.on_bad_line = on_bad_line;
    rc = vs_measure_run(&o, &r, err);
    if (rc < 0) {
        free(gz.snap.gpus);
        free(gz.snap.names);
        return rc;
    }
    stream_text(&gz, 1, NULL, 0, 1);
    stream_text(&gz, 2, NULL, 0, 1);
    if (r.run.interrupted) {
        rc = vs_error_set(err, VS_EINTERRUPT,
                          "interrupted: the command's process group was ended after %.1f s; "
                          "nothing was recorded",
                          (double)r.run.elapsed_ms / 1000.0);
        goto done;
    }
    rows = json_array();
    if (!rows) {
        rc = oom_error(err);
        goto done;
    }
    rc = record_run(ctx, sheet, run_id, command, phase ? phase->value : NULL, &r, rows, err);
    if (rc < 0)
        goto done;
    /* Re-running is restating: a run that gives the result of an earlier run of
     * the sheet (a notebook run again from the top) keeps the earlier one. */
    {
        const char *earlier = restated_run(sheet, run_id);
        if (earlier) {
            char was[32];
            snprintf(was, sizeof was, "%s", earlier);
            unrecord_run(sheet, run_id, r.overflow_phase[0] != '\0');
            json_decref(rows);
            if (!(rows = rows_of_run(sheet, was))) {
                rc = oom_error(err);
                goto done;
            }
            vs_ctx_effect(ctx, "measured again: the same result as run %s, nothing new recorded",
                          was);
            gauge_restated(&gz, was);
            rc = render_measurement(ctx, sheet, was, command, &r, rows, run_id, err);
            goto done;
        }
    }
    vs_ctx_effect(ctx, "measured run %s (%s)", run_id,
                  r.overflow_phase[0] ? "out of memory"
                  : r.run.exit_status ? "failed"
                                      : "exit 0");
    rc = render_measurement(ctx, sheet, run_id, command, &r, rows, NULL, err);
done:
    free(gz.snap.gpus);
    free(gz.snap.names);
    json_decref(rows);
    vs_measure_result_clear(&r);
    return rc;
}

/* ---------------------------------------------------------- measure import */

/* The files are read here and handed line by line to an importer
 * (src/measure/import.h): one per format, format=auto sniffing each file's
 * first lines. Nothing enters the sheet until every file was read and every
 * run and measurement passed the record's layout (vs_sheet_check_entry): a
 * value the record could not read back is refused with file and line. */

/* Limits: a probe line is a few hundred bytes and a log line rarely more than
 * a few KiB; a file of samples every 10 ms for days stays below the size cap.
 * Anything beyond is not one of these files. */
#define IMPORT_LINE_MAX ((size_t)1 << 20)
#define IMPORT_FILE_MAX ((uint64_t)16 << 30)
#define IMPORT_SNIFF_LINES 64

static int import_error(vs_error *err, const char *file, size_t lineno, const char *fmt,
                        const char *what)
{
    if (!fmt)
        return vs_error_set(err, VS_EFORMAT,
                            "%s:%zu: %s (format=auto reads %s); nothing was imported", file, lineno,
                            what, vs_importer_names());
    return vs_error_set(err, VS_EFORMAT, "%s:%zu: %s (read as format=%s); nothing was imported",
                        file, lineno, what, fmt);
}

/* The next line of fp (newline dropped) in *buf; its length, -1 at the end,
 * -2 when it is longer than max (getline would grow without bound). */
static long read_line(FILE *fp, char **buf, size_t *cap, size_t max)
{
    size_t n = 0;
    int ch;
    while ((ch = getc_unlocked(fp)) != EOF && ch != '\n') {
        if (n >= max)
            return -2;
        if (n + 1 >= *cap) {
            size_t nc = *cap ? *cap * 2 : 4096;
            char *nb = realloc(*buf, nc);
            if (!nb)
                return -3;
            *buf = nb;
            *cap = nc;
        }
        (*buf)[n++] = (char)ch;
    }
    if (ch == EOF && n == 0)
        return -1;
    if (!*buf && !(*buf = malloc(*cap = 4096)))
        return -3;
    (*buf)[n] = '\0';
    return (long)n;
}

/* One file through one importer (imp NULL: sniffed from its first lines). */
static int import_file(vs_import *im, const vs_importer *imp, const vs_arg *a, size_t *nlines,
                       vs_error *err)
{
    char *buf = NULL;
    size_t cap = 0, lineno = 0;
    long n;
    void *state = NULL;
    char label[1200];
    FILE *fp;
    int rc = 0, fd = vs_open_regular(a->value, IMPORT_FILE_MAX, NULL, err);
    /* A FIFO would block, /dev/zero never ends, a folder reads as nothing:
     * only regular files are read. */
    if (fd < 0) {
        if (err) {
            err->line = a->line;
            err->column = a->column;
        }
        vs_error_prefix(err, "measure import: ");
        return fd;
    }
    if (!(fp = fdopen(fd, "r"))) {
        close(fd);
        return oom_error(err);
    }
    while (!imp && lineno < IMPORT_SNIFF_LINES &&
           (n = read_line(fp, &buf, &cap, IMPORT_LINE_MAX)) != -1) {
        lineno++;
        if (n < 0) {
            rc = n == -2 ? import_error(err, a->value, lineno, NULL, "line longer than 1 MiB")
                         : oom_error(err);
            goto done;
        }
        imp = vs_importer_sniff(buf, (size_t)n);
    }
    if (!imp) {
        rc =
            import_error(err, a->value, 1, NULL, "no line of a known format in its first 64 lines");
        goto done;
    }
    rewind(fp);
    lineno = 0;
    im->format = imp->name;
    /* the probe's runs merge per host across files; a log is a run of its own */
    snprintf(label, sizeof label, "measure import %s (format %s)", a->value, imp->name);
    im->run_key = strcmp(imp->name, "probe") ? label : NULL;
    if (!(state = calloc(1, imp->state_size ? imp->state_size : 1))) {
        rc = oom_error(err);
        goto done;
    }
    while ((n = read_line(fp, &buf, &cap, IMPORT_LINE_MAX)) != -1) {
        lineno++;
        if (n == -2)
            rc = import_error(err, a->value, lineno, imp->name, "line longer than 1 MiB");
        else if (n < 0)
            rc = oom_error(err);
        else if ((rc = imp->line(im, state, buf, (size_t)n)) == VS_IMPORT_REFUSED)
            rc = import_error(err, a->value, im->why_line ? im->why_line : lineno, imp->name,
                              im->why);
        else if (rc < 0)
            rc = oom_error(err);
        if (rc < 0)
            goto done;
        if (n > 0)
            (*nlines)++;
    }
    if (imp->finish && (rc = imp->finish(im, state)) < 0)
        rc = rc == VS_IMPORT_REFUSED
                 ? import_error(err, a->value, im->why_line ? im->why_line : lineno, imp->name,
                                im->why)
                 : oom_error(err);
done:
    im->run_key = NULL;
    if (state && imp && imp->clear)
        imp->clear(state);
    free(state);
    free(buf);
    fclose(fp);
    return rc;
}

/* 1 when a and b hold the same keys and values but for the keys in skip. */
static int same_but(const json_t *a, const json_t *b, const char *const *skip)
{
    const char *k;
    json_t *v;
    size_t i, na = 0, nb = 0;
    json_object_foreach((json_t *)a, k, v)
    {
        for (i = 0; skip[i] && strcmp(skip[i], k); i++)
            ;
        if (skip[i] || k[0] == '_')
            continue;
        na++;
        if (!json_equal(v, json_object_get(b, k)))
            return 0;
    }
    json_object_foreach((json_t *)b, k, v)
    {
        for (i = 0; skip[i] && strcmp(skip[i], k); i++)
            ;
        if (!skip[i] && k[0] != '_')
            nb++;
    }
    return na == nb;
}

/* An import that brings nothing new: every run it would add is already a run
 * of the sheet (the same but for its id and times), and each of its
 * measurements is already recorded under that run (but for the time). Then
 * the import restates those (rows gets them) and the sheet is left as it is:
 * a notebook run again imports its log once. Returns 1, or 0 (rows untouched). */
static int import_restates(const json_t *sheet, const json_t *newruns, const json_t *items,
                           json_t *rows)
{
    static const char *const run_skip[] = {"id", "started", "elapsed_ms", NULL};
    static const char *const m_skip[] = {"run", "time", NULL};
    const json_t *runs = vs_sheet_array(sheet, "runs"), *ms = vs_sheet_array(sheet, "measurements");
    json_t *map = json_object(), *found = json_array(), *hr, *x, *m;
    size_t i, j, k;
    int ok = map && found && json_array_size(newruns) > 0;
    vs_json_array_foreach(newruns, i, hr)
    {
        const char *was = NULL;
        if (!ok)
            break;
        vs_json_array_foreach(runs, j, x)
        {
            if (same_but(hr, x, run_skip)) {
                was = json_string_value(json_object_get(x, "id"));
                break;
            }
        }
        ok = was && json_object_set_new(map, json_string_value(json_object_get(hr, "id")),
                                        json_string(was)) == 0;
    }
    vs_json_array_foreach(items, i, m)
    {
        const char *mine = json_string_value(json_object_get(m, "run"));
        const char *was = mine ? json_string_value(json_object_get(map, mine)) : NULL;
        json_t *hit = NULL;
        if (!ok)
            break;
        vs_json_array_foreach(ms, k, x)
        {
            const char *xr = json_string_value(json_object_get(x, "run"));
            if (was && xr && !strcmp(xr, was) && same_but(m, x, m_skip)) {
                hit = x;
                break;
            }
        }
        ok = hit && json_array_append(found, hit) == 0;
    }
    if (ok)
        ok = json_array_extend(rows, found) == 0;
    json_decref(map);
    json_decref(found);
    return ok;
}

/* The imported runs and measurements into the sheet: each checked against
 * the record's layout first, then all appended, or none. */
static int import_into_sheet(vs_ctx *ctx, json_t *sheet, vs_import *im, json_t *rows, int *restated,
                             vs_error *err)
{
    json_t *newruns = json_array(), *ids = json_object(), *hr, *m;
    json_t *runs = ensure_array(sheet, "runs"), *ms = ensure_array(sheet, "measurements");
    const char *key;
    size_t i;
    int rc = 0, serial = 0;
    long base = 0;
    char run_id[32];
    if (!newruns || !ids || !runs || !ms) {
        rc = oom_error(err);
        goto done;
    }
    next_run_id(sheet, run_id, sizeof run_id);
    base = strtol(run_id + 1, NULL, 10);
    json_object_foreach(im->runs, key, hr)
    {
        json_t *run;
        int log = json_is_true(json_object_get(hr, "_log"));
        snprintf(run_id, sizeof run_id, "m%ld", base + serial++);
        run = json_deep_copy(hr);
        if (!run || json_object_set_new(run, "id", json_string(run_id)) < 0 ||
            json_object_set_new(run, "phase", json_null()) < 0 ||
            json_object_set_new(run, "host", log ? json_null() : str_or_null(key)) < 0 ||
            json_object_set_new(ids, key, json_string(run_id)) < 0) {
            json_decref(run);
            rc = oom_error(err);
            goto done;
        }
        if (json_is_null(json_object_get(run, "command")))
            json_object_set_new(run, "command", json_string(log ? key : "(imported)"));
        if ((rc = vs_sheet_check_entry(run, "runs", err)) < 0 ||
            (rc = json_array_append_new(newruns, run) < 0 ? oom_error(err) : 0) < 0) {
            if (rc != VS_ENOMEM)
                vs_error_prefix(err, "measure import: a run the record could not read back; "
                                     "nothing was imported: ");
            goto done;
        }
    }
    json_array_foreach(im->items, i, m)
    {
        const char *rk = json_string_value(json_object_get(m, "_run"));
        json_t *hrun = json_object_get(im->runs, rk ? rk : "");
        json_t *es = json_object_get(hrun, "exit_status"), *st;
        const char *stage = match_stage(sheet, json_object_get(m, "dims"));
        json_object_set(m, "run", json_object_get(ids, rk ? rk : ""));
        json_object_set_new(m, "stage", str_or_null(stage));
        json_object_set_new(m, "state", json_string("current"));
        /* a run that failed or overflowed validates nothing, as for measure; a
         * log's figures are start-up evidence, not a run of the card's dims */
        json_object_set_new(m, "validates_card",
                            json_boolean(!json_is_true(json_object_get(hrun, "_log")) &&
                                         json_is_integer(es) && json_integer_value(es) == 0 &&
                                         !json_is_string(json_object_get(hrun, "overflow_phase")) &&
                                         validates_card(sheet, json_object_get(m, "dims"), NULL)));
        st = json_object_get(m, "scope");
        if ((json_is_string(st) && !vs_import_text_valid(json_string_value(st))) ||
            (json_is_string(json_object_get(m, "gpu_name")) &&
             !vs_import_text_valid(json_string_value(json_object_get(m, "gpu_name"))))) {
            rc = vs_error_set(err, VS_EFORMAT,
                              "measure import: a control character in a "
                              "measurement's scope or GPU name; nothing was "
                              "imported");
            goto done;
        }
        if ((rc = vs_sheet_check_entry(m, "measurements", err)) < 0) {
            vs_error_prefix(err, "measure import: a measurement the record could not read back; "
                                 "nothing was imported: ");
            goto done;
        }
    }
    if ((*restated = import_restates(sheet, newruns, im->items, rows)))
        goto done;
    /* every entry passed: now the sheet changes */
    json_array_foreach(newruns, i, hr)
    {
        if (json_array_append(runs, hr) < 0) {
            rc = oom_error(err);
            goto done;
        }
        if (json_is_string(json_object_get(hr, "overflow_phase"))) {
            json_t *o = ensure_array(sheet, "oom");
            json_array_append_new(o, json_pack("{s:O, s:s}", "phase",
                                               json_object_get(hr, "overflow_phase"), "note",
                                               "imported probe run"));
        }
    }
    json_array_foreach(im->items, i, m)
    {
        if (json_array_append(ms, m) < 0 || json_array_append(rows, m) < 0) {
            rc = oom_error(err);
            goto done;
        }
    }
    vs_ctx_effect(ctx, "imported %zu measurement(s)", json_array_size(im->items));
done:
    json_decref(newruns);
    json_decref(ids);
    return rc;
}

static int measure_import(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    json_t *sheet = vs_ctx_sheet(ctx), *rows = json_array();
    const vs_arg *fa = vs_line_pair(line, "format");
    const vs_importer *imp = NULL;
    size_t f, nfiles = vs_line_npositional(line), nlines = 0, i;
    int restated = 0;
    vs_import im;
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    int rc;
    if ((rc = vs_import_init(&im)) < 0 || !sheet || !rows) {
        json_decref(rows);
        if (rc == 0)
            vs_import_clear(&im);
        return oom_error(err);
    }
    if (line->nargs != nfiles + (fa ? 1 : 0) || nfiles < 2) {
        rc = vs_error_set(err, VS_EVALUE, "expected `measure import FILE... [format=auto|%s]`",
                          vs_importer_names());
        goto done;
    }
    if (fa && strcmp(fa->value, "auto") != 0 && !(imp = vs_importer_find(fa->value))) {
        rc = vs_error_set_at(err, VS_EVALUE, fa->line, fa->value_column,
                             "format=%s is not one this reads: auto|%s", fa->value,
                             vs_importer_names());
        goto done;
    }
    for (f = 1; f < nfiles; f++) {
        const vs_arg *a = vs_line_positional(line, f);
        if ((rc = import_file(&im, imp, a, &nlines, err)) < 0)
            goto done;
    }
    if (json_array_size(im.items) == 0) {
        rc = vs_error_set(err, VS_EVALUE, "no measurements in the files: nothing was imported");
        goto done;
    }
    if ((rc = import_into_sheet(ctx, sheet, &im, rows, &restated, err)) < 0)
        goto done;
    {
        vs_table *t = vs_table_new(8, mtable_headers);
        json_t *prow = json_array(), *m;
        if (!t || !prow) {
            vs_table_free(t);
            json_decref(prow);
            rc = oom_error(err);
            goto done;
        }
        vs_table_align_right(t, 4);
        json_array_foreach(rows, i, m)
        {
            json_t *pr = payload_row(m);
            add_mrow(t, m);
            if (pr) {
                static const char *const extra[] = {"text", "resolution_bytes", "value", "unit",
                                                    NULL};
                size_t k;
                for (k = 0; extra[k]; k++)
                    json_object_set(pr, extra[k], json_object_get(m, extra[k]));
            }
            json_array_append_new(prow, pr);
        }
        if (restated)
            vs_buf_printf(&text,
                          "the same %zu measurement(s) as already recorded from %zu file(s): "
                          "this import restates them; nothing new was recorded\n",
                          json_array_size(rows), nfiles - 1);
        else
            vs_buf_printf(&text,
                          "imported %zu measurement(s) from %zu file(s), %zu line(s) "
                          "(merged per run, GPU, phase and counter: the largest kept)\n",
                          json_array_size(rows), nfiles - 1, nlines);
        vs_table_text(t, &text);
        scope_notes(&text, rows);
        vs_buf_printf(&html, "<p>imported %zu measurement(s) from %zu file(s)</p>",
                      json_array_size(rows), nfiles - 1);
        vs_table_html(t, &html);
        vs_table_free(t);
        rc = vs_ctx_emit_text(ctx, &text, &html,
                              json_pack("{s:s, s:o, s:n, s:n, s:{s:I, s:I, s:I}}", "kind",
                                        "measurement", "rows", prow, "exit_status",
                                        "overflow_phase", "imported", "files",
                                        (json_int_t)(nfiles - 1), "lines", (json_int_t)nlines,
                                        "runs", (json_int_t)json_object_size(im.runs)),
                              err);
    }
done:
    vs_buf_free(&text);
    vs_buf_free(&html);
    vs_import_clear(&im);
    json_decref(rows);
    return rc;
}

/* ------------------------------------------------------------------ record */

/* The scopes a counter can have (vs_measure_counter_scope says which a name
 * implies): a measurement is compared only with others of its scope. */
static int known_scope(const char *s)
{
    static const char *const scopes[] = {"device",    "process",  "tensors",
                                         "allocator", "reported", NULL};
    size_t i;
    for (i = 0; scopes[i]; i++)
        if (!strcmp(scopes[i], s))
            return 1;
    return 0;
}

/* A measurement's stage= names a stage of the sheet's procedure: one of the
 * three the method names, or one declared with `stage`. */
static int check_stage(const json_t *sheet, const vs_arg *a, vs_error *err)
{
    const json_t *st;
    size_t i;
    if (!strcmp(a->value, "short") || !strcmp(a->value, "usual") || !strcmp(a->value, "limit"))
        return 0;
    vs_json_array_foreach(vs_sheet_array(sheet, "stages"), i, st)
    {
        const char *n = json_string_value(json_object_get(st, "name"));
        if (n && !strcmp(n, a->value))
            return 0;
    }
    return vs_error_set_at(err, VS_EVALUE, a->line, a->value_column,
                           "stage=%s: no such stage on this sheet; expected short, usual, limit "
                           "or a stage declared with `stage %s length=N ...`",
                           a->value, a->value);
}

static const char *const record_keys[] = {"phase",    "gpu",    "counter",     "scope",
                                          "gpu_name", "length", "concurrency", "microbatch",
                                          "stage",    "host",   "rank",        NULL};

/* The measurement typed by hand in ms that holds what m holds, but for the
 * time it was typed (borrowed), or NULL. */
static json_t *same_typed(const json_t *ms, const json_t *m)
{
    size_t i;
    json_t *x;
    vs_json_array_foreach(ms, i, x)
    {
        const char *k;
        json_t *v;
        int same =
            json_is_null(json_object_get(x, "run")) && json_object_size(x) == json_object_size(m);
        json_object_foreach((json_t *)m, k, v)
        {
            if (!same)
                break;
            if (strcmp(k, "time") != 0 && !json_equal(v, json_object_get(x, k)))
                same = 0;
        }
        if (same)
            return x;
    }
    return NULL;
}

static int verb_record(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    const vs_arg *phase = vs_line_pair(line, "phase"), *counter = vs_line_pair(line, "counter");
    const vs_arg *amount = vs_line_positional(line, 0), *scope = vs_line_pair(line, "scope");
    const vs_arg *gname = vs_line_pair(line, "gpu_name"), *stage = vs_line_pair(line, "stage");
    const vs_arg *host = vs_line_pair(line, "host");
    json_t *sheet, *dims, *m, *ms, *rows, *again = NULL;
    uint64_t bytes, gpu = 0, rank = 0;
    int rc, has_gpu = 0, has_rank = 0;
    size_t i;
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT, why = VS_BUF_INIT;
    vs_table *t;
    static const char syntax[] = "record phase=NAME gpu=I counter=NAME BYTES [length=N] "
                                 "[concurrency=N] [microbatch=N] [stage=NAME] [scope=S]";
    if ((rc = vs_line_check_keys(line, record_keys, err)) < 0)
        return rc;
    if (!phase || !counter || !amount)
        return vs_error_set(err, VS_EVALUE, "expected `%s`", syntax);
    if (vs_line_positional(line, 1)) {
        const vs_arg *x = vs_line_positional(line, 1);
        return vs_error_set_at(err, VS_EVALUE, x->line, x->column, "unexpected '%s'; expected `%s`",
                               x->value, syntax);
    }
    if (!vs_phasefd_name_valid(phase->value))
        return vs_error_set_at(err, VS_EVALUE, phase->line, phase->value_column,
                               "phase names are 1-63 characters of A-Z a-z 0-9 _ . : / + -");
    if (!vs_phasefd_name_valid(counter->value))
        return vs_error_set_at(err, VS_EVALUE, counter->line, counter->value_column,
                               "counter names are 1-63 characters of A-Z a-z 0-9 _ . : / + -");
    if (vs_units_parse_bytes(&bytes, amount->value, err) < 0) {
        err->line = amount->line;
        err->column = amount->column;
        return VS_EUNIT;
    }
    if (bytes > (uint64_t)INT64_MAX)
        return vs_error_set_at(err, VS_EUNIT, amount->line, amount->column, "amount too large");
    if (scope && !known_scope(scope->value))
        return vs_error_set_at(err, VS_EVALUE, scope->line, scope->value_column,
                               "scope=%s: expected device, process, tensors, allocator or "
                               "reported (what the counter counts)",
                               scope->value);
    if (stage && (rc = check_stage(vs_ctx_sheet(ctx), stage, err)) < 0)
        return rc;
    if ((rc = vs_line_get_uint(line, "gpu", 0, &gpu, &has_gpu, err)) < 0)
        return rc;
    if ((rc = vs_line_get_uint(line, "rank", 0, &rank, &has_rank, err)) < 0)
        return rc;
    if (has_gpu && gpu > 4095)
        return vs_error_set(err, VS_EVALUE, "gpu= is a GPU index, 0 to 4095");
    if (has_rank && rank > 1000000)
        return vs_error_set(err, VS_EVALUE, "rank= is a process rank, 0 to 1000000");
    sheet = vs_ctx_sheet(ctx);
    dims = json_object();
    if (!sheet || !dims) {
        json_decref(dims);
        return oom_error(err);
    }
    for (i = 0; card_dims[i]; i++) {
        uint64_t v;
        int present;
        if ((rc = vs_line_get_count(line, card_dims[i], 0, &v, &present, err)) < 0) {
            json_decref(dims);
            return rc;
        }
        if (present)
            json_object_set_new(dims, card_dims[i], json_integer((json_int_t)v));
    }
    {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        m = measurement_new(
            sheet, NULL, phase->value, has_gpu ? (int)gpu : -1, gname ? gname->value : NULL,
            counter->value, scope ? scope->value : vs_measure_counter_scope(counter->value), bytes,
            dims, stage ? stage->value : NULL, host ? host->value : NULL, has_rank ? (int)rank : -1,
            (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
    }
    ms = ensure_array(sheet, "measurements");
    rows = json_array();
    t = vs_table_new(8, mtable_headers);
    if (m && ms && (again = same_typed(ms, m)) != NULL) {
        /* the same line run again (Run All twice) restates it: one measurement */
        json_decref(m);
        m = json_incref(again);
    } else
        again = NULL;
    if (!m || !ms || !rows || !t || (!again && json_array_append(ms, m) < 0)) {
        json_decref(m);
        json_decref(rows);
        vs_table_free(t);
        return oom_error(err);
    }
    json_array_append_new(rows, payload_row(m));
    vs_table_align_right(t, 4);
    add_mrow(t, m);
    vs_buf_puts(&text, again ? "already recorded: the same measurement typed by hand (not "
                               "added again)\n"
                             : "recorded a measurement typed by hand\n");
    vs_table_text(t, &text);
    if (!json_is_true(json_object_get(m, "validates_card"))) {
        validates_card(sheet, json_object_get(m, "dims"), &why);
        vs_buf_printf(&text, "It does not validate the card: %s.\n", vs_buf_str(&why));
    }
    vs_buf_puts(&html, "<p>recorded a measurement typed by hand</p>");
    vs_table_html(t, &html);
    vs_table_free(t);
    json_decref(m);
    rc = vs_ctx_emit_text(ctx, &text, &html,
                          json_pack("{s:s, s:o, s:n, s:n}", "kind", "measurement", "rows", rows,
                                    "exit_status", "overflow_phase"),
                          err);
    vs_buf_free(&text);
    vs_buf_free(&html);
    vs_buf_free(&why);
    return rc;
}

/* ---------------------------------------------------------------- measured */

static const char *const measured_keys[] = {"from", "gpu", "class", NULL};
static const char *const classes[] = {"other",       "kv_cache",   "gradients", "optimizer",
                                      "activations", "parameters", NULL};

/* The runtime items an engine reports at start-up, by their fixed names, and
 * the class of counter that fills each; -1 for any other component. */
static int runtime_item_class(const char *name)
{
    if (!strcmp(name, "non_torch"))
        return VS_CMP_NON_TORCH;
    if (!strcmp(name, "activation_peak"))
        return VS_CMP_ACTIVATIONS;
    if (!strcmp(name, "cuda_graphs"))
        return VS_CMP_CUDA_GRAPHS;
    return -1;
}

/* 1 for a figure imported from an engine's log (`measure import`): its run
 * has no exit status (a log is not a run of a command) and it names no
 * executed dims. */
static int from_engine_log(const json_t *sheet, const json_t *m)
{
    const char *run = json_string_value(json_object_get(m, "run"));
    json_t *dims = json_object_get(m, "dims"), *r;
    size_t i;
    if (!run || (json_is_object(dims) && json_object_size(dims) > 0))
        return 0;
    vs_json_array_foreach(vs_sheet_array(sheet, "runs"), i, r)
    {
        const char *id = json_string_value(json_object_get(r, "id"));
        if (id && !strcmp(id, run))
            return !json_is_integer(json_object_get(r, "exit_status"));
    }
    return 0;
}

static int verb_measured(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    const vs_arg *name = vs_line_positional(line, 0), *from = vs_line_pair(line, "from");
    const vs_arg *cls = vs_line_pair(line, "class");
    json_t *sheet = vs_ctx_sheet(ctx), *m, *found = NULL;
    uint64_t gpu = 0;
    int has_gpu = 0, rc, matches = 0, log_item = 0;
    size_t i;
    char run[64] = "", phase[64] = "", counter[64] = "", source[600], peak[160];
    vs_buf text = VS_BUF_INIT, gpus = VS_BUF_INIT;
    static const char syntax[] = "measured NAME from=RUN:PHASE:COUNTER [gpu=I] [class=CLASS] "
                                 "(or from=#N, the N-th of `measurements`)";
    if ((rc = vs_line_check_keys(line, measured_keys, err)) < 0)
        return rc;
    if (!name || !from || vs_line_positional(line, 1))
        return vs_error_set(err, VS_EVALUE, "expected `%s`", syntax);
    if (!sheet)
        return oom_error(err);
    if ((rc = vs_line_get_uint(line, "gpu", 0, &gpu, &has_gpu, err)) < 0)
        return rc;
    if (cls) {
        for (i = 0; classes[i] && strcmp(classes[i], cls->value); i++) {
        }
        if (!classes[i])
            return vs_error_set_at(err, VS_EVALUE, cls->line, cls->value_column,
                                   "class is one of other, kv_cache, gradients, optimizer, "
                                   "activations, parameters");
    }
    if (from->value[0] == '#') {
        char *end;
        long k = strtol(from->value + 1, &end, 10);
        if (*end || k < 1 || (size_t)k > json_array_size(vs_sheet_array(sheet, "measurements")))
            return vs_error_set_at(err, VS_ENOTFOUND, from->line, from->value_column,
                                   "no measurement %s (the sheet has %zu; see `measurements`)",
                                   from->value,
                                   json_array_size(vs_sheet_array(sheet, "measurements")));
        found = json_array_get(vs_sheet_array(sheet, "measurements"), (size_t)k - 1);
        matches = 1;
    } else {
        const char *a = from->value, *c1 = strchr(a, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c1 || !c2 || c1 == a || c2 == c1 + 1 || !c2[1] || (size_t)(c1 - a) >= sizeof run ||
            (size_t)(c2 - c1 - 1) >= sizeof phase || strlen(c2 + 1) >= sizeof counter)
            return vs_error_set_at(err, VS_EVALUE, from->line, from->value_column,
                                   "expected from=RUN:PHASE:COUNTER (m1:load:nvml.device_used) "
                                   "or from=#N");
        memcpy(run, a, (size_t)(c1 - a));
        memcpy(phase, c1 + 1, (size_t)(c2 - c1 - 1));
        snprintf(counter, sizeof counter, "%s", c2 + 1);
        vs_json_array_foreach(vs_sheet_array(sheet, "measurements"), i, m)
        {
            const char *r = json_string_value(json_object_get(m, "run"));
            json_t *g = json_object_get(m, "gpu");
            if (!r || strcmp(r, run) ||
                strcmp(json_string_value(json_object_get(m, "phase")), phase) ||
                strcmp(json_string_value(json_object_get(m, "counter")), counter))
                continue;
            if (has_gpu && (!json_is_integer(g) || (uint64_t)json_integer_value(g) != gpu))
                continue;
            if (matches++)
                vs_buf_puts(&gpus, ", ");
            if (json_is_integer(g))
                vs_buf_printf(&gpus, "gpu=%lld", (long long)json_integer_value(g));
            else
                vs_buf_puts(&gpus, "(no GPU)");
            found = m;
        }
        if (matches == 0) {
            vs_buf_free(&gpus);
            return vs_error_set_at(err, VS_ENOTFOUND, from->line, from->value_column,
                                   "no measurement of run %s, phase %s, counter %s%s (see "
                                   "`measurements`)",
                                   run, phase, counter, has_gpu ? " on that GPU" : "");
        }
        if (matches > 1) {
            rc = vs_error_set_at(err, VS_EVALUE, from->line, from->value_column,
                                 "%d measurements match (%s): say which with gpu=", matches,
                                 vs_buf_str(&gpus));
            vs_buf_free(&gpus);
            return rc;
        }
    }
    vs_buf_free(&gpus);
    if (!json_is_integer(json_object_get(found, "peak_bytes"))) {
        const char *unit = json_string_value(json_object_get(found, "unit"));
        return vs_error_set_at(err, VS_EVALUE, from->line, from->value_column,
                               "measurement %s is a count (%s), not bytes: a component needs a "
                               "figure in bytes",
                               from->value, unit ? unit : "no unit");
    }
    /* The runtime items an engine prints at start-up (vLLM's non-torch
     * memory, activation peak, CUDA graphs) come from its log, which names no
     * executed dims: such a figure fills that item, said to be not at the
     * card's dims (the envelope flags it as such); everything else keeps the
     * rule below. */
    if (runtime_item_class(name->value) >= 0 && from_engine_log(sheet, found)) {
        const char *ct = json_string_value(json_object_get(found, "counter"));
        if (vs_compare_counter_class(ct) != runtime_item_class(name->value))
            return vs_error_set_at(err, VS_EVALUE, from->line, from->value_column,
                                   "measurement %s (counter %s) is not a figure of %s: an "
                                   "engine log's figure fills a runtime item only from the "
                                   "counter that reports it (see `compare`)",
                                   from->value, ct ? ct : "?", name->value);
        log_item = 1;
    }
    /* A run at smaller dims (or one that failed) must not stand for the
     * declared card; as a measured component it would turn a capacity verdict
     * into admissible on the strength of a run that never met the need. */
    if (!log_item) {
        vs_buf why = VS_BUF_INIT, dims = VS_BUF_INIT;
        if (!measurement_validates(sheet, found, &why)) {
            uint64_t want;
            for (i = 0; card_dims[i]; i++)
                if (vs_sheet_card_uint(sheet, card_dims[i], &want))
                    vs_buf_printf(&dims, " %s=%llu", card_dims[i], (unsigned long long)want);
            rc = vs_error_set_at(
                err, VS_EVALUE, from->line, from->value_column,
                "measurement %s does not validate the card: %s. A measured component must come "
                "from a completed run at the card's dimensions (a smaller run never stands for "
                "the card): measure at those dims, the `limit` stage (`stage "
                "limit%s`, then `measure%s -- COMMAND`), or keep the component estimated",
                from->value, vs_buf_str(&why), dims.len ? vs_buf_str(&dims) : " length=N",
                dims.len ? vs_buf_str(&dims) : " length=N");
            vs_buf_free(&why);
            vs_buf_free(&dims);
            return rc;
        }
        vs_buf_free(&why);
    }
    {
        json_t *g = json_object_get(found, "gpu");
        const char *gn = json_string_value(json_object_get(found, "gpu_name"));
        const char *r = json_string_value(json_object_get(found, "run"));
        const char *sc = json_string_value(json_object_get(found, "scope"));
        char gtext[160];
        if (json_is_integer(g))
            snprintf(gtext, sizeof gtext, "GPU %lld%s%s%s", (long long)json_integer_value(g),
                     gn ? " (" : "", gn ? gn : "", gn ? ")" : "");
        else
            snprintf(gtext, sizeof gtext, "%s", "no GPU named");
        snprintf(source, sizeof source, "measured: %s%s, phase %s, %s, counter %s (scope %s)%s",
                 r ? "run " : "typed by hand", r ? r : "",
                 json_string_value(json_object_get(found, "phase")), gtext,
                 json_string_value(json_object_get(found, "counter")), sc ? sc : "?",
                 log_item ? " from an engine log, not taken at the card's dims" : "");
        rc = vs_sheet_set_component(
            sheet, name->value, 1,
            (uint64_t)json_integer_value(json_object_get(found, "peak_bytes")), "measured", source,
            json_string_value(json_object_get(found, "phase")), cls ? cls->value : NULL, err);
        if (rc < 0)
            return rc;
        vs_units_describe(peak, sizeof peak,
                          (uint64_t)json_integer_value(json_object_get(found, "peak_bytes")));
        vs_buf_printf(&text, "component %s = %s, status measured\nsource: %s\n", name->value, peak,
                      source);
        if (log_item)
            vs_buf_printf(&text,
                          "Not taken at the card's dims: an engine log's start-up figure "
                          "names no executed length, concurrency or microbatch. It fills "
                          "the runtime item %s as the engine reported it; the envelope "
                          "flags it until a run at the card's dims confirms it.\n",
                          name->value);
        if (sc && (!strcmp(sc, "device") || !strcmp(sc, "process")))
            vs_buf_puts(&text, "Note: this peak covers the whole device or process, weights "
                               "included; the envelope adds the weights again. A counter of "
                               "that component alone is a better source.\n");
    }
    rc = vs_ctx_emit_text(ctx, &text, NULL,
                          json_pack("{s:s, s:s, s:O, s:s, s:s, s:b}", "kind", "component", "name",
                                    name->value, "bytes", json_object_get(found, "peak_bytes"),
                                    "status", "measured", "source", source, "validates_card",
                                    !log_item),
                          err);
    vs_buf_free(&text);
    return rc;
}

/* ------------------------------------------------------------ measurements */

static int verb_measurements(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    json_t *sheet = vs_ctx_sheet(ctx), *m, *rows;
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    static const char *const headers[] = {"#",     "run",  "phase", "GPU",   "counter",
                                          "scope", "peak", "dims",  "stage", "validates card",
                                          "state"};
    vs_table *t;
    size_t i;
    int rc;
    if (line->nargs)
        return vs_error_set(err, VS_EVALUE, "expected `measurements` alone");
    if (!sheet)
        return oom_error(err);
    t = vs_table_new(11, headers);
    rows = json_array();
    if (!t || !rows) {
        vs_table_free(t);
        json_decref(rows);
        return oom_error(err);
    }
    vs_table_align_right(t, 6);
    vs_json_array_foreach(vs_sheet_array(sheet, "measurements"), i, m)
    {
        char idx[32], gpu[160], peak[160];
        const char *cells[11];
        json_t *prow;
        int valid;
        vs_buf d = VS_BUF_INIT;
        json_t *g = json_object_get(m, "gpu");
        snprintf(idx, sizeof idx, "#%zu", i + 1);
        if (json_is_integer(g))
            snprintf(gpu, sizeof gpu, "%lld", (long long)json_integer_value(g));
        else
            snprintf(gpu, sizeof gpu, "-");
        peak_text(peak, sizeof peak, m);
        dims_text(&d, json_object_get(m, "dims"));
        cells[0] = idx;
        cells[1] = json_string_value(json_object_get(m, "run"));
        cells[2] = json_string_value(json_object_get(m, "phase"));
        cells[3] = gpu;
        cells[4] = json_string_value(json_object_get(m, "counter"));
        cells[5] = json_string_value(json_object_get(m, "scope"));
        cells[6] = peak;
        cells[7] = d.len ? vs_buf_str(&d) : "-";
        cells[8] = json_string_value(json_object_get(m, "stage"));
        /* against the card as it is now, not the flag frozen at record time */
        valid = measurement_validates(sheet, m, NULL);
        cells[9] = valid ? "yes" : "no";
        cells[10] = json_string_value(json_object_get(m, "state"));
        if (!cells[1])
            cells[1] = "(by hand)";
        if (!cells[8])
            cells[8] = "-";
        vs_table_add_row(t, cells);
        vs_buf_free(&d);
        prow = payload_row(m);
        if (prow)
            json_object_set_new(prow, "validates_card", json_boolean(valid));
        json_array_append_new(rows, prow);
    }
    if (json_array_size(rows) == 0)
        vs_buf_puts(&text, "no measurements yet (measure ... -- COMMAND, or record ...)\n");
    else
        vs_table_text(t, &text);
    scope_notes(&text, vs_sheet_array(sheet, "measurements"));
    vs_table_html(t, &html);
    vs_table_free(t);
    rc = vs_ctx_emit_text(ctx, &text, &html,
                          json_pack("{s:s, s:o, s:n, s:n}", "kind", "measurement", "rows", rows,
                                    "exit_status", "overflow_phase"),
                          err);
    vs_buf_free(&text);
    vs_buf_free(&html);
    return rc;
}

/* ------------------------------------------------------------------- table */

const vs_verb vs_verbs_measure[] = {
    {"measure", verb_measure,
     "measure [phase=NAME] [timeout=SECONDS] [interval=MS] [length=N] [concurrency=N] "
     "[microbatch=N] -- COMMAND  |  %%measure ... (the cell's body is the script)  |  measure "
     "import FILE... [format=auto|probe|vllm|llamacpp|torchtune|nvidia-smi|torch]",
     "run a command and record its GPU memory peaks per phase",
     "Runs COMMAND (the raw text after --, or a %%measure cell's body) with /bin/sh -c in its own "
     "process group, streams its output, and samples every GPU through NVML every interval "
     "(10 ms by default): per phase and GPU the peak of the device's used memory (scope device: "
     "every process and the driver, more than the command) and of the command's process tree "
     "(scope process, where the driver reports it). A live gauge shows current and peak memory. "
     "The command names its phases and reports executed dims and its own counters on the file "
     "descriptor in VRAMSHEET_PHASE_FD: `phase NAME`, `dims length=N concurrency=N ...`, "
     "`counter NAME BYTES [gpu=I]` (kernel/python/vramsheet_torch.py writes torch's "
     "max_memory_allocated and max_memory_reserved). length=, concurrency=, microbatch= declare "
     "executed dims when the command cannot. A run at smaller dims than the card does not "
     "validate it. An out-of-memory message marks the overflow at the current phase and shows "
     "what to examine for that phase. A failing or overflowing command is still measured and "
     "recorded as run mN; interrupt or timeout= end the whole process group. With no NVIDIA "
     "driver: MeasureError, nothing recorded. `measure import FILE... [format=...]` reads what "
     "real runs printed, as measurements with phase, GPU or rank, counter, scope, exact bytes, "
     "the printed text and resolution_bytes (half a unit of the last printed digit); counts "
     "(tokens, blocks, concurrency) keep their value and unit. format=auto (the default) "
     "sniffs each file's first lines. probe: the JSON lines of `vramsheet probe --out FILE -- "
     "COMMAND` (other machines, torchrun, Slurm), merged per host, GPU, phase and counter, the "
     "largest kept. vllm: V0 \"Memory profiling results\" (one line or block), \"model weights "
     "take ...; non_torch_memory takes ...; PyTorch activation peak memory takes ...\", \"# GPU "
     "blocks\" / \"# CUDA blocks\", \"Loading model weights took X GB\" read as GiB "
     "(vllm/worker/model_runner.py in 0.4-0.6 divides by 2**30 and prints GB), V1 \"Model "
     "loading took X GiB\", \"Available KV cache memory\", \"GPU KV cache size: N tokens\", "
     "\"Maximum concurrency for N tokens per request: X.XXx\" (vllm/v1/core/kv_cache_utils.py), "
     "\"Graph capturing finished in S secs, took X GiB\". llamacpp: per-device model, KV and "
     "compute buffer sizes in MiB and the memory breakdown table at exit "
     "(llama_memory_breakdown_print, src/llama-context.cpp). torchtune: \"GPU peak memory "
     "allocation / reserved / active\" (torchtune/training/memory.py, GiB; GB of 1e9 in "
     "torchtune/utils/memory.py) and the step lines' peak_memory_*. nvidia-smi: `--query-gpu="
     "index,name,memory.total,memory.used --format=csv` (nounits too; MiB = 2^20). torch: a JSON "
     "dump of torch.cuda.memory_stats(). Every value is checked against the record before it "
     "enters the sheet: a bad one is refused with file and line, and nothing is imported.",
     measure_keys, measure_words},
    {"record", verb_record,
     "record phase=NAME gpu=I counter=NAME BYTES [length=N] [concurrency=N] [microbatch=N] "
     "[stage=NAME] [scope=S]",
     "add a measurement typed by hand",
     "Adds a raw measurement to the sheet, as read elsewhere (a log, nvidia-smi, torch): the "
     "phase, the GPU index, the counter (torch.max_memory_reserved, ...), its peak with a byte "
     "unit, and the dims that were executed. Its scope follows the counter's name (allocated: "
     "tensors; reserved: allocator) unless scope= says it: device, process, tensors, allocator "
     "or reported. stage= is short, usual, limit or a stage declared with `stage`. A "
     "measurement at smaller dims than the card does not validate the card.",
     record_keys, NULL},
    {"measured", verb_measured,
     "measured NAME from=RUN:PHASE:COUNTER [gpu=I] [class=CLASS]  |  measured NAME from=#N",
     "make a reserve component measured, from one named measurement",
     "Sets the reserve component NAME to the peak of one measurement, with status measured and "
     "a source naming run, phase, GPU and counter. from=m1:generate:torch.max_memory_reserved "
     "picks by run, phase and counter (gpu= when several GPUs match); from=#N picks the N-th "
     "row of `measurements`. One measurement only: allocated and reserved are never added. "
     "A device or process peak covers the weights too: prefer a counter of the component alone.",
     measured_keys, NULL},
    {"measurements", verb_measurements, "measurements", "list the sheet's raw measurements",
     "Lists every measurement of the current sheet with its run, phase, GPU, counter, scope, "
     "peak, executed dims, stage and whether it validates the card; #N numbers are those "
     "`measured NAME from=#N` takes.",
     NULL, NULL},
    {"compare", vs_verb_compare, "compare [gpu=I]",
     "the estimate against what was measured, per component class",
     "Lines up, per component class (weights, kv_cache, activations, non_torch: CUDA context "
     "and memory outside the framework's allocator, cuda_graphs, other), the sheet's estimate "
     "on one GPU after placement against the largest current measurement that stands for the "
     "class (vLLM's model weights, KV cache memory, activation peak, non-torch memory, CUDA "
     "graph memory; llama.cpp's model, KV and compute buffers or breakdown), with estimate - "
     "measured and a status; an estimate below its measurement by more than the printed "
     "figures' rounding (resolution_bytes) is flagged as an under-estimate. The unaccounted "
     "row is the measured total (device used, nvidia-smi used, llama.cpp's self, or vLLM's "
     "usable budget) minus the measured parts. gpu= picks the GPU (default: the lowest index "
     "measured; figures with no GPU count for every GPU).",
     vs_verb_compare_keys, NULL},
    {0},
};
