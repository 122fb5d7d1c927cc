#include "render/measure.h"

#include <stdio.h>
#include <string.h>

#include "render/bundle.h"
#include "render/gauge.h"
#include "render/result.h"
#include "sheet/units.h"
#include "sheet/vocab.h"
#include "util/error.h"
#include "util/json.h"

/* The advice after an out-of-memory run, whatever its phase. */
static const char one_change[] =
    "Change one thing at a time (capacity, cache, microbatch or precision) and measure again; "
    "after each change re-check the quality criterion and the coverage: a shorter length, fewer "
    "sequences or another quantization may no longer answer the card.";

static const char *const mtable_headers[] = {"phase", "GPU",  "counter", "scope",
                                             "peak",  "dims", "stage",   "validates card"};

/* "length=8192 concurrency=4": the executed dims in the object's order. */
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

/* The table of measurements: a row for each of rows (an array), or for one
 * alone when rows is NULL; NULL when memory is short. */
static vs_table *mtable(const json_t *rows, const json_t *one)
{
    vs_table *t = vs_table_new(8, mtable_headers);
    size_t i;
    json_t *m;
    if (!t)
        return NULL;
    vs_table_align_right(t, 4);
    if (!rows)
        add_mrow(t, one);
    vs_json_array_foreach(rows, i, m) add_mrow(t, m);
    return t;
}

/* What the scopes of these rows mean, where a reader could misread them. */
static void scope_notes(vs_buf *text, const json_t *rows)
{
    size_t i;
    json_t *m;
    int device = 0, alloc = 0, tensors = 0;
    vs_json_array_foreach(rows, i, m)
    {
        vs_vocab_scope s;
        if (vs_vocab_scope_parse(&s, json_string_value(json_object_get(m, "scope")), NULL) < 0)
            continue;
        device |= s == VS_SCOPE_DEVICE;
        alloc |= s == VS_SCOPE_ALLOCATOR;
        tensors |= s == VS_SCOPE_TENSORS;
    }
    if (device)
        vs_buf_puts(text, "Scope device: the GPU's used memory as NVML reports it, covering every "
                          "process and the driver's own, more than the command.\n");
    if (alloc && tensors)
        vs_buf_puts(text, "Allocated (tensors) and reserved (allocator) are different scopes of "
                          "the same memory: never add them.\n");
}

/* How the command ended. */
static void run_end_text(vs_buf *text, const vs_measure_run_view *v)
{
    if (v->timed_out)
        vs_buf_printf(text,
                      "TIMED OUT: the command's process group was ended (exit status %d); "
                      "the peaks up to then are recorded.\n",
                      v->exit_status);
    else if (v->term_signal)
        vs_buf_printf(text,
                      "The command was ended by signal %d (exit status %d); it was "
                      "measured all the same.\n",
                      v->term_signal, v->exit_status);
    else if (v->exit_status != 0)
        vs_buf_printf(text,
                      "The command FAILED with exit status %d; it was measured all the "
                      "same%s.\n",
                      v->exit_status, v->restates ? "" : " and the run is recorded");
    else
        vs_buf_puts(text, "The command exited with status 0.\n");
}

int vs_render_measure_run(vs_buf *text, vs_buf *html, const vs_measure_run_view *v,
                          const json_t *rows)
{
    const char *host = v->host && v->host[0] ? v->host : "this host";
    const char *overflow = v->overflow_phase ? v->overflow_phase : "";
    const char *driver = v->driver && v->driver[0] ? v->driver : "unknown";
    const char *nvml = v->nvml_version && v->nvml_version[0] ? v->nvml_version : "unknown";
    int any = json_array_size(rows) > 0;
    vs_table *t = mtable(rows, NULL);
    if (!t)
        return VS_ENOMEM;
    if (v->restates) {
        vs_buf_printf(text, "measured again on %s, %.2f s: `", host,
                      (double)v->elapsed_ms / 1000.0);
        vs_render_command_head(text, v->command, 0);
        vs_buf_printf(text,
                      "`\nThe same result as run %s (the same command, exit status, "
                      "peaks per phase, GPU and counter, and executed dims): this run "
                      "restates %s, which stays as recorded; nothing new was recorded.\n",
                      v->run, v->run);
    } else {
        vs_buf_printf(text, "measured run %s on %s, %.2f s: `", v->run, host,
                      (double)v->elapsed_ms / 1000.0);
        vs_render_command_head(text, v->command, 0);
        vs_buf_puts(text, "`\n");
    }
    run_end_text(text, v);
    if (overflow[0])
        vs_buf_printf(text, "OUT OF MEMORY in phase %s (\"%s\" in its output).\n%s\n%s\n", overflow,
                      v->oom_pattern ? v->oom_pattern : "", v->triage ? v->triage : "", one_change);
    if (any)
        vs_table_text(t, text);
    else
        vs_buf_puts(text, "No sample was taken.\n");
    scope_notes(text, rows);
    if (!v->process_available)
        vs_buf_puts(text, "Process memory: not reported by this driver (only the device's used "
                          "memory is measured).\n");
    else if (!v->process_attributed)
        vs_buf_printf(text,
                      "Process memory: the driver listed %u process(es) but none of the "
                      "command's (another PID namespace?); not recorded.\n",
                      v->foreign_pids);
    if (!v->not_valid_why)
        vs_buf_puts(text, "Executed dims meet the card.\n");
    else
        vs_buf_printf(text, "This run does not validate the card: %s.\n", v->not_valid_why);
    if (v->leftovers)
        vs_buf_printf(text, "%d process(es) left in the command's group were ended.\n",
                      v->leftovers);
    if (v->bad_lines)
        vs_buf_printf(text, "%d phase line(s) ignored; the first: %s\n", v->bad_lines,
                      v->first_bad_line ? v->first_bad_line : "");
    vs_buf_printf(text, "Driver %s, NVML %s; %llu samples every %d ms, longest gap %lld ms.\n",
                  driver, nvml, (unsigned long long)v->samples, v->interval_ms,
                  (long long)v->max_gap_ms);
    {
        vs_run_head h = {v->run,   v->host,   v->command, v->elapsed_ms,   v->exit_status,
                         overflow, v->triage, one_change, v->not_valid_why};
        vs_render_run_html(html, &h, any ? t : NULL);
    }
    vs_table_free(t);
    return 0;
}

int vs_render_measure_record(vs_buf *text, vs_buf *html, const json_t *m, int again,
                             const char *not_valid_why)
{
    vs_table *t = mtable(NULL, m);
    if (!t)
        return VS_ENOMEM;
    vs_buf_puts(text, again ? "already recorded: the same measurement typed by hand (not "
                              "added again)\n"
                            : "recorded a measurement typed by hand\n");
    vs_table_text(t, text);
    if (not_valid_why)
        vs_buf_printf(text, "It does not validate the card: %s.\n", not_valid_why);
    vs_buf_puts(html, "<p>recorded a measurement typed by hand</p>");
    vs_table_html(t, html);
    vs_table_free(t);
    return 0;
}

int vs_render_measure_import(vs_buf *text, vs_buf *html, const json_t *rows, int restated,
                             size_t nfiles, size_t nlines)
{
    vs_table *t = mtable(rows, NULL);
    if (!t)
        return VS_ENOMEM;
    if (restated)
        vs_buf_printf(text,
                      "the same %zu measurement(s) as already recorded from %zu file(s): "
                      "this import restates them; nothing new was recorded\n",
                      json_array_size(rows), nfiles);
    else
        vs_buf_printf(text,
                      "imported %zu measurement(s) from %zu file(s), %zu line(s) "
                      "(merged per run, GPU, phase and counter: the largest kept)\n",
                      json_array_size(rows), nfiles, nlines);
    vs_table_text(t, text);
    scope_notes(text, rows);
    vs_buf_printf(html, "<p>imported %zu measurement(s) from %zu file(s)</p>",
                  json_array_size(rows), nfiles);
    vs_table_html(t, html);
    vs_table_free(t);
    return 0;
}

int vs_render_measurements(vs_buf *text, vs_buf *html, const json_t *ms, const int *valid)
{
    static const char *const headers[] = {"#",     "run",  "phase", "GPU",   "counter",
                                          "scope", "peak", "dims",  "stage", "validates card",
                                          "state"};
    vs_table *t = vs_table_new(11, headers);
    size_t i;
    json_t *m;
    if (!t)
        return VS_ENOMEM;
    vs_table_align_right(t, 6);
    vs_json_array_foreach(ms, i, m)
    {
        char idx[32], gpu[160], peak[160];
        const char *cells[11];
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
        cells[9] = valid[i] ? "yes" : "no";
        cells[10] = json_string_value(json_object_get(m, "state"));
        if (!cells[1])
            cells[1] = "(by hand)";
        if (!cells[8])
            cells[8] = "-";
        vs_table_add_row(t, cells);
        vs_buf_free(&d);
    }
    if (json_array_size(ms) == 0)
        vs_buf_puts(text, "no measurements yet (measure ... -- COMMAND, or record ...)\n");
    else
        vs_table_text(t, text);
    scope_notes(text, ms);
    vs_table_html(t, html);
    vs_table_free(t);
    return 0;
}

void vs_render_measured_component(vs_buf *text, const char *name, uint64_t bytes,
                                  const char *source, int log_item, const char *scope)
{
    char peak[160];
    vs_vocab_scope s;
    vs_units_describe(peak, sizeof peak, bytes);
    vs_buf_printf(text, "component %s = %s, status %s\nsource: %s\n", name, peak,
                  vs_vocab_status_name(VS_STATUS_MEASURED), source);
    if (log_item)
        vs_buf_printf(text,
                      "Not taken at the card's dims: an engine log's start-up figure "
                      "names no executed length, concurrency or microbatch. It fills "
                      "the runtime item %s as the engine reported it; the envelope "
                      "flags it until a run at the card's dims confirms it.\n",
                      name);
    if (!vs_vocab_scope_parse(&s, scope, NULL) && (s == VS_SCOPE_DEVICE || s == VS_SCOPE_PROCESS))
        vs_buf_puts(text, "Note: this peak covers the whole device or process, weights "
                          "included; the envelope adds the weights again. A counter of "
                          "that component alone is a better source.\n");
}

void vs_render_measure_incomplete(vs_buf *why)
{
    if (why->len)
        vs_buf_puts(why, "; ");
    vs_buf_puts(why, "the run did not complete (it failed or overflowed)");
}

/* ------------------------------------------------------------ the payloads */

json_t *vs_render_measure_payload_row(const json_t *m)
{
    return json_pack("{s:O, s:O, s:O, s:O, s:O, s:O, s:O, s:O, s:O, s:O}", "phase",
                     json_object_get(m, "phase"), "gpu", json_object_get(m, "gpu"), "gpu_name",
                     json_object_get(m, "gpu_name"), "counter", json_object_get(m, "counter"),
                     "scope", json_object_get(m, "scope"), "peak_bytes",
                     json_object_get(m, "peak_bytes"), "dims", json_object_get(m, "dims"), "stage",
                     json_object_get(m, "stage"), "validates_card",
                     json_object_get(m, "validates_card"), "run", json_object_get(m, "run"));
}

static json_t *str_or_null(const char *s)
{
    return s && *s ? json_string(s) : json_null();
}

vs_bundle *vs_render_measure_result(const vs_measure_run_view *v, const json_t *rows,
                                    const json_t *gpus)
{
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    json_t *payload, *prow = json_array(), *m;
    const char *process_memory = !v->process_available   ? "not reported by the driver"
                                 : v->process_attributed ? "attributed"
                                                         : "unattributed";
    const char *overflow = v->overflow_phase ? v->overflow_phase : "";
    size_t i;
    if (!prow || vs_render_measure_run(&text, &html, v, rows) < 0) {
        json_decref(prow);
        vs_buf_free(&text);
        vs_buf_free(&html);
        return NULL;
    }
    json_array_foreach(rows, i, m) json_array_append_new(prow, vs_render_measure_payload_row(m));
    payload = json_pack(
        "{s:s, s:s, s:o, s:i, s:o, s:s, s:I, s:b, s:b, s:i, s:o, s:i, s:o, s:s, s:b, s:o, s:O,"
        " s:{s:o, s:o, s:s, s:s}, s:{s:i, s:I, s:I, s:I, s:I}}",
        "kind", "measurement", "run", v->run, "rows", prow, "exit_status", v->exit_status,
        "overflow_phase", str_or_null(overflow), "command", v->command, "elapsed_ms",
        (json_int_t)v->elapsed_ms, "timed_out", v->timed_out, "interrupted", 0, "signal",
        v->term_signal, "oom_pattern", str_or_null(v->oom_pattern), "leftovers", v->leftovers,
        "triage", overflow[0] ? json_string(v->triage) : json_null(), "process_memory",
        process_memory, "validates_card", v->not_valid_why == NULL, "card_check",
        v->not_valid_why ? json_string(v->not_valid_why) : json_null(), "gpus", gpus, "versions",
        "driver", str_or_null(v->driver), "nvml", str_or_null(v->nvml_version), "memory_api",
        v->memory_api, "process_api", v->process_api, "sampler", "interval_ms", v->interval_ms,
        "samples", (json_int_t)v->samples, "max_gap_ms", (json_int_t)v->max_gap_ms, "cpu_ns",
        (json_int_t)v->cpu_ns, "errors", (json_int_t)v->errors);
    /* a run again with the same result: which run it restates (the payload's
     * run), and that nothing new was recorded */
    if (payload && v->restates)
        json_object_set_new(payload, "restates", json_true());
    return vs_render_finish(&text, &html, NULL, payload);
}

vs_bundle *vs_render_measure_import_result(const json_t *rows, int restated, size_t nfiles,
                                           size_t nlines, size_t nruns)
{
    static const char *const extra[] = {"text", "resolution_bytes", "value",
                                        "unit", "engine_version",   NULL};
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    json_t *prow = json_array(), *m;
    size_t i, k;
    if (!prow || vs_render_measure_import(&text, &html, rows, restated, nfiles, nlines) < 0) {
        json_decref(prow);
        vs_buf_free(&text);
        vs_buf_free(&html);
        return NULL;
    }
    json_array_foreach(rows, i, m)
    {
        json_t *pr = vs_render_measure_payload_row(m);
        for (k = 0; pr && extra[k]; k++)
            json_object_set(pr, extra[k], json_object_get(m, extra[k]));
        json_array_append_new(prow, pr);
    }
    return vs_render_finish(&text, &html, NULL,
                            json_pack("{s:s, s:o, s:n, s:n, s:{s:I, s:I, s:I}}", "kind",
                                      "measurement", "rows", prow, "exit_status", "overflow_phase",
                                      "imported", "files", (json_int_t)nfiles, "lines",
                                      (json_int_t)nlines, "runs", (json_int_t)nruns));
}

vs_bundle *vs_render_measure_record_result(const json_t *m, int again, const char *not_valid_why)
{
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    json_t *rows = json_array();
    if (!rows || vs_render_measure_record(&text, &html, m, again, not_valid_why) < 0) {
        json_decref(rows);
        vs_buf_free(&text);
        vs_buf_free(&html);
        return NULL;
    }
    json_array_append_new(rows, vs_render_measure_payload_row(m));
    return vs_render_finish(&text, &html, NULL,
                            json_pack("{s:s, s:o, s:n, s:n}", "kind", "measurement", "rows", rows,
                                      "exit_status", "overflow_phase"));
}

vs_bundle *vs_render_measurements_result(const json_t *ms, const int *valid)
{
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    json_t *rows = json_array(), *m;
    size_t i;
    if (!rows || vs_render_measurements(&text, &html, ms, valid) < 0) {
        json_decref(rows);
        vs_buf_free(&text);
        vs_buf_free(&html);
        return NULL;
    }
    json_array_foreach(ms, i, m)
    {
        json_t *prow = vs_render_measure_payload_row(m);
        if (prow)
            json_object_set_new(prow, "validates_card", json_boolean(valid[i]));
        json_array_append_new(rows, prow);
    }
    return vs_render_finish(&text, &html, NULL,
                            json_pack("{s:s, s:o, s:n, s:n}", "kind", "measurement", "rows", rows,
                                      "exit_status", "overflow_phase"));
}

static vs_bundle *component_result(vs_buf *text, const char *name, uint64_t bytes,
                                   const char *source, int validates)
{
    return vs_render_finish(text, NULL, NULL,
                            json_pack("{s:s, s:s, s:I, s:s, s:s, s:b}", "kind", "component", "name",
                                      name, "bytes", (json_int_t)bytes, "status",
                                      vs_vocab_status_name(VS_STATUS_MEASURED), "source", source,
                                      "validates_card", validates));
}

vs_bundle *vs_render_measured_component_result(const char *name, uint64_t bytes, const char *source,
                                               int log_item, const char *scope)
{
    vs_buf text = VS_BUF_INIT;
    vs_render_measured_component(&text, name, bytes, source, log_item, scope);
    return component_result(&text, name, bytes, source, !log_item);
}

vs_bundle *vs_render_measured_weights(const char *format, uint64_t bytes, const char *source)
{
    vs_buf text = VS_BUF_INIT;
    char desc[96];
    vs_units_describe(desc, sizeof desc, bytes);
    vs_buf_printf(&text,
                  "weights measured (format %s): %s, %s; weights do not depend on length "
                  "or concurrency, so the figure stands until the model or the format "
                  "changes\n",
                  format ? format : "not set", desc, source);
    return component_result(&text, "weights", bytes, source, 1);
}
