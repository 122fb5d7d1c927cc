/* `measure` and `%%measure`: a command run under the sampler (src/measure/),
 * its peaks recorded as the sheet's run mN and its measurements, or, when it
 * gives the result of an earlier run, that run restated; and the table of the
 * measurement verbs. The live gauge is verbs_measure_live.c's, the other
 * verbs verbs_measure_import.c's and verbs_measure_record.c's; shown by render/measure.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/verbs_measure.h"
#include "measure/import.h"
#include "measure/measure.h"
#include "measure/phasefd.h"
#include "render/measure.h"
#include "sheet/derived.h"
#include "sheet/envelope.h"
#include "sheet/sheet.h"
#include "sheet/vocab.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/cmp.h"
#include "util/json.h"
#include "util/pool.h"
#include "util/redact.h"

static json_t *dims_json(const vs_measure_phase_dims *d)
{
    json_t *o = json_object();
    size_t i;
    for (i = 0; o && d && i < d->ndims; i++)
        json_object_set_new(o, d->dims[i].key, json_integer((json_int_t)d->dims[i].value));
    return o;
}

/* ------------------------------------------------------------ measure verb */

static const char *const measure_keys[] = {
    "phase",  "timeout", "interval", "length",     "concurrency", "microbatch", "width",
    "height", "frames",  "batch",    "resolution", "format",      NULL};
static const char *const measure_words[] = {"import", "launch", NULL};

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
            if (r->counters[c].gpu_known && r->counters[c].gpu == g)
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
    json_t *runs = vs_verbs_measure_ensure_array(sheet, VS_SK_RUNS),
           *ms = vs_verbs_measure_ensure_array(sheet, VS_SK_MEASUREMENTS);
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
        return vs_error_oom(err);
    }
    for (g = 0; g < r->ngpus; g++) {
        const vs_nvml_gpu *gi = &r->gpus[g];
        /* NVML's total, else CUDA's; neither known is written as 0 (basis cuda) */
        int nvml = gi->total_known;
        uint64_t total = nvml ? gi->total_bytes : gi->cuda_total_known ? gi->cuda_total_bytes : 0;
        json_array_append_new(gpus, json_pack("{s:i, s:s, s:I, s:s}", "index", (int)g, "name",
                                              gi->name, "total_bytes", (json_int_t)total,
                                              "total_basis", nvml ? "nvml" : "cuda"));
    }
    vs_clock_iso_utc(started, sizeof started, r->started_at);
    run = json_pack(
        "{s:s, s:s, s:o, s:i, s:o, s:s, s:I, s:o, s:o, s:o, s:o}", "id", run_id, "command", command,
        "phase", vs_verbs_measure_str_or_null(phase_arg), "exit_status", r->run.exit_status,
        "overflow_phase", vs_verbs_measure_str_or_null(r->overflow_phase), "started", started,
        "elapsed_ms", (json_int_t)r->run.elapsed_ms, "host", vs_verbs_measure_str_or_null(r->host),
        "driver", vs_verbs_measure_str_or_null(r->driver), "nvml",
        vs_verbs_measure_str_or_null(r->nvml_version), "gpus", gpus);
    if (!run || json_array_append_new(runs, run) < 0) {
        free(keep);
        return vs_error_oom(err);
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
            m = vs_verbs_measure_measurement_new(
                sheet, run_id, phase, 1, g, r->gpus[g].name, VS_COUNTER_DEVICE,
                vs_vocab_scope_name(VS_SCOPE_DEVICE), cell->device_peak, dims_json(d), NULL,
                r->host, 0, 0, cell->device_peak_at);
            if (!m || json_array_append_new(ms, m) < 0 ||
                json_array_append_new(rows, json_incref(m)) < 0)
                rc = vs_error_oom(err);
            if (v->process_available && v->process_attributed && cell->process_peak_at) {
                m = vs_verbs_measure_measurement_new(
                    sheet, run_id, phase, 1, g, r->gpus[g].name, VS_COUNTER_PROCESS,
                    vs_vocab_scope_name(VS_SCOPE_PROCESS), cell->process_peak, dims_json(d), NULL,
                    r->host, 0, 0, cell->process_peak_at);
                if (!m || json_array_append_new(ms, m) < 0 ||
                    json_array_append_new(rows, json_incref(m)) < 0)
                    rc = vs_error_oom(err);
            }
        }
        for (c = 0; c < r->ncounters; c++) {
            const vs_measure_counter *k = &r->counters[c];
            json_t *m;
            if (strcmp(k->phase, phase) != 0)
                continue;
            m = vs_verbs_measure_measurement_new(sheet, run_id, phase, k->gpu_known, k->gpu,
                                                 k->gpu_known ? r->gpus[k->gpu].name : NULL,
                                                 k->name, vs_measure_counter_scope(k->name),
                                                 k->bytes, dims_json(d), NULL, r->host, 0, 0,
                                                 k->at);
            if (!m || json_array_append_new(ms, m) < 0 ||
                json_array_append_new(rows, json_incref(m)) < 0)
                rc = vs_error_oom(err);
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
        json_t *o = vs_verbs_measure_ensure_array(sheet, VS_SK_OOM);
        char note[256];
        snprintf(note, sizeof note, "run %s: \"%s\"", run_id, r->run.oom_pattern);
        if (!o || json_array_append_new(o, json_pack("{s:s, s:s, s:s}", "phase", r->overflow_phase,
                                                     "note", note, "run", run_id)) < 0)
            rc = vs_error_oom(err);
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
static char *run_signature(const json_t *sheet, const json_t *run)
{
    const char *id = json_string_value(json_object_get(run, "id"));
    json_t *m, *head;
    char **keys = NULL, *out = NULL;
    size_t i, n = 0, cap = 0, k;
    vs_buf b = VS_BUF_INIT;
    if (!id)
        return NULL;
    vs_json_array_foreach(vs_sheet_array(sheet, VS_SK_MEASUREMENTS), i, m)
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
                vs_pool_json_free(d);
                goto done;
            }
            keys = nk;
        }
        keys[n++] = d;
    }
    if (n)
        qsort(keys, n, sizeof *keys, vs_cmp_str);
    head = json_pack("{s:O?, s:O?, s:O?}", "command", json_object_get(run, "command"),
                     "exit_status", json_object_get(run, "exit_status"), "overflow_phase",
                     json_object_get(run, "overflow_phase"));
    if (head) {
        char *d = json_dumps(head, JSON_COMPACT | JSON_SORT_KEYS);
        json_decref(head);
        if (d) {
            vs_buf_puts(&b, d);
            vs_pool_json_free(d);
            for (k = 0; k < n; k++) {
                vs_buf_puts(&b, "\n");
                vs_buf_puts(&b, keys[k]);
            }
            out = strdup(vs_buf_str(&b));
        }
    }
done:
    for (k = 0; k < n; k++)
        vs_pool_json_free(keys[k]);
    free(keys);
    vs_buf_free(&b);
    return out;
}

/* The earlier run of the sheet that run_id (just recorded, the last run)
 * restates, or NULL. A run with no peak recorded restates nothing. */
static const char *restated_run(const json_t *sheet, const char *run_id)
{
    const json_t *runs = vs_sheet_array(sheet, VS_SK_RUNS);
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
static void unrecord_run(json_t *sheet, const char *run_id)
{
    json_t *runs = vs_sheet_get(sheet, VS_SK_RUNS), *ms = vs_sheet_get(sheet, VS_SK_MEASUREMENTS);
    json_t *o = vs_sheet_get(sheet, VS_SK_OOM);
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
    for (i = json_array_size(o); i-- > 0;) {
        const char *id = json_string_value(json_object_get(json_array_get(o, i), "run"));
        if (id && !strcmp(id, run_id))
            json_array_remove(o, i);
    }
}

/* The measurements of an earlier run, in the sheet's order (references). */
static json_t *rows_of_run(const json_t *sheet, const char *run_id)
{
    json_t *rows = json_array(), *m;
    size_t i;
    if (!rows)
        return NULL;
    vs_json_array_foreach(vs_sheet_array(sheet, VS_SK_MEASUREMENTS), i, m)
    {
        const char *id = json_string_value(json_object_get(m, "run"));
        if (id && !strcmp(id, run_id))
            json_array_append(rows, m);
    }
    return rows;
}

/* The result of a run: rows are its measurements (restated_by set: those of
 * run_id, an earlier run that the run restated_by restates). */
static int render_measurement(vs_ctx *ctx, const json_t *sheet, const char *run_id,
                              const char *command, const vs_measure_result *r, json_t *rows,
                              const char *restated_by, vs_error *err)
{
    vs_buf why = VS_BUF_INIT;
    json_t *gpus = json_array();
    vs_bundle *bundle;
    int validates = 1;
    unsigned g;
    if (!gpus)
        return vs_error_oom(err);
    /* The run's dims: the last phase's (dims carry over). */
    if (r->view->nphases) {
        const vs_measure_phase_dims *d =
            vs_measure_dims_of(r, r->view->phases[r->view->nphases - 1].name);
        json_t *dj = dims_json(d);
        validates = vs_derived_dims_validate(sheet, dj, &why);
        json_decref(dj);
    }
    if (r->run.exit_status != 0 || r->run.term_signal || r->overflow_phase[0]) {
        vs_render_measure_incomplete(&why);
        validates = 0;
    }
    for (g = 0; g < r->ngpus; g++)
        json_array_append_new(
            gpus, json_pack("{s:i, s:s, s:s, s:I, s:s, s:o}", "index", (int)g, "name",
                            r->gpus[g].name, "uuid", r->gpus[g].uuid, "total_bytes",
                            (json_int_t)(r->gpus[g].total_known ? r->gpus[g].total_bytes : 0),
                            "total_basis", "nvml", "cuda_total_bytes",
                            r->gpus[g].cuda_total_known
                                ? json_integer((json_int_t)r->gpus[g].cuda_total_bytes)
                                : json_null()));
    {
        vs_measure_run_view v = {run_id,
                                 restated_by != NULL,
                                 r->host,
                                 command,
                                 r->run.elapsed_ms,
                                 r->run.exit_status,
                                 r->run.term_signal,
                                 r->run.timed_out,
                                 r->overflow_phase,
                                 r->run.oom_pattern,
                                 vs_measure_triage(r->overflow_phase),
                                 r->view->process_available,
                                 r->view->process_attributed,
                                 r->view->foreign_pids,
                                 validates ? NULL : vs_buf_str(&why),
                                 r->run.leftovers,
                                 r->bad_lines,
                                 r->first_bad_line,
                                 r->driver,
                                 r->nvml_version,
                                 r->view->samples,
                                 r->interval_ms,
                                 r->view->max_gap_ms,
                                 r->memory_api,
                                 r->process_api,
                                 r->view->cpu_ns,
                                 r->view->errors};
        bundle = vs_render_measure_result(&v, rows, gpus);
    }
    json_decref(gpus);
    vs_buf_free(&why);
    if (!bundle)
        return vs_error_oom(err);
    vs_ctx_emit(ctx, bundle);
    return 0;
}

static int verb_measure(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    vs_measure_options o;
    vs_measure_result r;
    vs_phasefd_dim dims[8]; /* the card's dimensions (vs_sheet_card_dims), each at most once */
    vs_mv_gauge gz;
    json_t *sheet, *rows = NULL;
    const vs_arg *phase = vs_line_pair(line, "phase"), *first = vs_line_positional(line, 0);
    char run_id[32];
    uint64_t interval = 0;
    int rc, present, cell = line->verb[0] == '%';
    size_t nd = 0;
    const char *command = line->raw, *recorded;
    vs_buf shown = VS_BUF_INIT, redacted = VS_BUF_INIT;

    if (first && !strcmp(first->value, "import") && !cell)
        return vs_verb_measure_import(ctx, line, err);
    if (first && !strcmp(first->value, "launch") && !cell)
        return vs_verb_measure_launch(ctx, line, err);
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
    {
        json_t *dj = json_object(), *v;
        const char *k;
        if (!dj)
            return vs_error_oom(err);
        if ((rc = vs_verbs_measure_line_dims(line, dj, err)) < 0) {
            json_decref(dj);
            return rc;
        }
        json_object_foreach(dj, k, v)
        {
            snprintf(dims[nd].key, sizeof dims[nd].key, "%s", k);
            dims[nd++].value = (uint64_t)json_integer_value(v);
        }
        json_decref(dj);
    }
    sheet = vs_ctx_sheet(ctx);
    if (!sheet)
        return vs_error_oom(err);
    vs_verbs_measure_next_run_id(sheet, run_id, sizeof run_id);
    /* The record keeps the command without its credentials; the process is run
     * with the command as typed. */
    if (vs_redact_command(&shown, &redacted, command) > 0) {
        vs_buf note = VS_BUF_INIT;
        vs_buf_printf(&note,
                      "measure: %s redacted from the record (shown as %s); the command runs "
                      "with the values as typed\n",
                      vs_buf_str(&redacted), VS_REDACTED);
        if (!vs_buf_failed(&note))
            vs_ctx_stream(ctx, "stderr", vs_buf_str(&note), note.len);
        vs_buf_free(&note);
    }
    if (vs_buf_failed(&shown) || vs_buf_failed(&redacted)) {
        rc = vs_error_oom(err);
        goto freebufs;
    }
    recorded = vs_buf_str(&shown);

    {
        vs_envelope env;
        vs_error e;
        /* a zero envelope (nothing known to mark) draws no mark */
        int known = vs_envelope_compute(&env, sheet, NULL, &e) == 0 && env.weights_known &&
                    env.envelope_bytes > 0;
        vs_mv_gauge_start(&gz, ctx, run_id, known, known ? env.envelope_bytes : 0, &o);
    }
    o.command = command;
    o.phase = phase ? phase->value : NULL;
    o.dims = dims;
    o.ndims = nd;
    o.interval_ms = (int)interval;
    o.tick_ms = 250;
    rc = vs_measure_run(&o, &r, err);
    if (rc < 0) {
        vs_mv_gauge_clear(&gz);
        goto freebufs;
    }
    vs_mv_gauge_flush(&gz);
    if (r.run.interrupted) {
        rc = vs_error_set(err, VS_EINTERRUPT,
                          "interrupted: the command's process group was ended after %.1f s; "
                          "nothing was recorded",
                          (double)r.run.elapsed_ms / 1000.0);
        goto done;
    }
    rows = json_array();
    if (!rows) {
        rc = vs_error_oom(err);
        goto done;
    }
    rc = record_run(ctx, sheet, run_id, recorded, phase ? phase->value : NULL, &r, rows, err);
    if (rc < 0)
        goto done;
    /* Re-running is restating: a run that gives the result of an earlier run of
     * the sheet (a notebook run again from the top) keeps the earlier one. */
    {
        const char *earlier = restated_run(sheet, run_id);
        if (earlier) {
            char was[32];
            snprintf(was, sizeof was, "%s", earlier);
            unrecord_run(sheet, run_id);
            json_decref(rows);
            if (!(rows = rows_of_run(sheet, was))) {
                rc = vs_error_oom(err);
                goto done;
            }
            vs_ctx_effect(ctx, "measured again: the same result as run %s, nothing new recorded",
                          was);
            vs_mv_gauge_restated(&gz, was);
            rc = render_measurement(ctx, sheet, was, recorded, &r, rows, run_id, err);
            goto done;
        }
    }
    vs_ctx_effect(ctx, "measured run %s (%s)", run_id,
                  r.overflow_phase[0] ? "out of memory"
                  : r.run.exit_status ? "failed"
                                      : "exit 0");
    rc = render_measurement(ctx, sheet, run_id, recorded, &r, rows, NULL, err);
done:
    vs_mv_gauge_clear(&gz);
    json_decref(rows);
    vs_measure_result_clear(&r);
freebufs:
    vs_buf_free(&shown);
    vs_buf_free(&redacted);
    return rc;
}

/* ------------------------------------------------------------------- table */

/* `measure import`'s format= values and the formats' paragraph of the help
 * come from the importers' rows (measure/importers.def). */
static const char *importer_value(const char *key, size_t klen, size_t i)
{
    const vs_importer *im;
    if (klen != 6 || strncmp(key, "format", 6) != 0)
        return NULL;
    if (i == 0)
        return "auto";
    im = vs_importer_at(i - 1);
    return im ? im->name : NULL;
}

static void importer_help(vs_buf *out)
{
    const vs_importer *im;
    size_t i;
    vs_buf_puts(out, "\nThe formats of `measure import`:");
    for (i = 0; (im = vs_importer_at(i)) != NULL; i++)
        vs_buf_printf(out, "\n  %s: %s", im->name, im->summary);
}

static const vs_verb_registry importers_registry = {NULL, NULL, importer_value, importer_help};

const vs_verb vs_verbs_measure[] = {
    {"measure", verb_measure,
     "measure [phase=NAME] [timeout=SECONDS] [interval=MS] [length=N] [concurrency=N] "
     "[microbatch=N] [resolution=WxH] [frames=N] [batch=N] -- COMMAND  |  %%measure ... (the "
     "cell's body is the script)  |  measure launch [OFFER] [timeout=S]  |  measure "
     "import FILE... [format=auto"
#define VS_IMPORTER(sym, word, structured) "|" word
#include "measure/importers.def"
#undef VS_IMPORTER
     "]",
     "run a command and record its GPU memory peaks per phase",
     "Runs COMMAND (the raw text after --, or a %%measure cell's body) with /bin/sh -c in its own "
     "process group, streams its output, and samples every GPU through NVML every interval "
     "(10 ms by default): per phase and GPU the peak of the device's used memory (scope device: "
     "every process and the driver, more than the command) and of the command's process tree "
     "(scope process, where the driver reports it). A live gauge shows current and peak memory. "
     "The command names its phases and reports executed dims and its own counters on the file "
     "descriptor in VRAMSHEET_PHASE_FD: `phase NAME`, `dims length=N concurrency=N ...`, "
     "`counter NAME BYTES [gpu=I]` (kernel/python/vramsheet_torch.py writes torch's "
     "max_memory_allocated and max_memory_reserved); a run keeps at most 256 phases, a later "
     "new name is counted in the 256th and the result says so. length=, concurrency=, microbatch= "
     "declare executed dims when the command cannot; for image and video generation "
     "resolution=WxH (width= and height=), frames= and batch= (and `dims resolution=WxH` on the "
     "descriptor). A run at smaller dims than the card does not validate it: a 512x512 run never "
     "validates a 1024x1024 card, nor a batch of 2 a card of 4. An out-of-memory message marks "
     "the overflow at the current phase and shows "
     "what to examine for that phase. A failing or overflowing command is still measured and "
     "recorded as run mN; interrupt or timeout= end the whole process group. With no NVIDIA "
     "driver: MeasureError, nothing recorded. The record keeps the command as typed but for "
     "credentials: the value of an assignment whose name holds TOKEN, KEY, SECRET, PASSWORD or "
     "PASSWD (HF_TOKEN=...) and a URL's user:password are stored as <redacted> (the cell says "
     "which); the command itself runs with them. `measure import FILE... [format=...]` reads what "
     "real runs printed, as measurements with phase, GPU or rank, counter, scope, exact bytes, "
     "the printed text and resolution_bytes (half a unit of the last printed digit); counts "
     "(tokens, blocks, concurrency) keep their value and unit. format=auto (the default) "
     "sniffs each file's first lines (the formats below). Every value is checked against the "
     "record before it "
     "enters the sheet: a bad one is refused with file and line, and nothing is imported. "
     "`measure launch [OFFER] [timeout=S]` closes the loop: the command `launch` writes for the "
     "offer (the first one by default) runs as `measure phase=launch`, its output kept in a "
     "temporary file that the engine's importer then reads (`measure import FILE "
     "format=ENGINE`, the file removed after), so the sheet holds NVML's peaks and the "
     "engine's start-up figures, one run of the sheet, beside the estimate and `compare` "
     "lines up all three.",
     measure_keys, measure_words, 0, &importers_registry},
    {"record", vs_verb_record,
     "record phase=NAME gpu=I counter=NAME BYTES [length=N] [concurrency=N] [microbatch=N] "
     "[resolution=WxH | width=N height=N] [frames=N] [batch=N] [stage=NAME] [scope=S]",
     "add a measurement typed by hand",
     "Adds a raw measurement to the sheet, as read elsewhere (a log, nvidia-smi, torch): the "
     "phase, the GPU index, the counter (torch.max_memory_reserved, ...), its peak with a byte "
     "unit, and the dims that were executed. Its scope follows the counter's name (allocated: "
     "tensors; reserved: allocator) unless scope= says it: device, process, tensors, allocator "
     "or reported. stage= is short, usual, limit or a stage declared with `stage`. The dims are "
     "length=, concurrency=, microbatch= and, for image and video generation, resolution=WxH "
     "(or width= height=), frames=, batch=. A measurement at smaller dims than the card (any "
     "of them) does not validate the card.",
     vs_verbs_measure_record_keys, NULL, 0, NULL},
    {"measured", vs_verb_measured,
     "measured NAME from=RUN:PHASE:COUNTER [gpu=I] [class=CLASS]  |  measured NAME from=#N",
     "make a reserve component measured, from one named measurement",
     "Sets the reserve component NAME to the peak of one measurement, with status measured and "
     "a source naming run, phase, GPU and counter. from=m1:generate:torch.max_memory_reserved "
     "picks by run, phase and counter (gpu= when several GPUs match); from=#N picks the N-th "
     "row of `measurements`. One measurement only: allocated and reserved are never added. "
     "A device or process peak covers the weights too: prefer a counter of the component alone. "
     "`measured weights from=M` makes the sheet's weights a loader's own figure (vLLM's \"Model "
     "loading took\", llama.cpp's model buffer size, a counter of a load phase): weights do not "
     "depend on length or concurrency, so an imported start-up line stands for the card; one "
     "GPU's figure, until the model or the format changes.",
     vs_verbs_measure_measured_keys, NULL, 0, NULL},
    {"measurements", vs_verb_measurements, "measurements", "list the sheet's raw measurements",
     "Lists every measurement of the current sheet with its run, phase, GPU, counter, scope, "
     "peak, executed dims, stage and whether it validates the card; #N numbers are those "
     "`measured NAME from=#N` takes.",
     NULL, NULL, 0, NULL},
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
     "usable budget) minus the measured parts. The managed memory row holds the components in "
     "CUDA managed memory (a paged optimizer's state, optimizer_state_paged): in the total, as "
     "the device holds them while resident, but not in the allocator row, the total less them, "
     "which PyTorch's reserved-memory counters measure (torch.max_memory_reserved, "
     "reserved_bytes, torchtune's peak_memory_reserved): those never see managed memory. The "
     "allocator cache row holds the caching allocator's reserved-but-free memory (memory "
     "cache: the VAE decode's vae_decode_cache): in the total and the allocator row, not in "
     "the tensors row, the allocator row less it, which the counters of live tensors measure "
     "(torch.max_memory_allocated, allocated_bytes, active_bytes, torchtune's "
     "peak_memory_active and peak_memory_alloc). "
     "gpu= picks the GPU (default: the lowest index measured; figures with no GPU count for "
     "every GPU).",
     vs_verb_compare_keys, NULL, 0, NULL},
    {0},
};
