/* The verbs of measurements one at a time: `record` (a measurement typed by
 * hand), `measured` (a reserve component from one measurement) and
 * `measurements` (the sheet's list). Shown by render/measure.c. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lang/verbs_common.h"
#include "lang/verbs_measure.h"
#include "render/measure.h"
#include "sheet/compare.h"
#include "sheet/derived.h"
#include "sheet/sheet.h"
#include "sheet/units.h"
#include "sheet/vocab.h"
#include "util/buf.h"
#include "util/json.h"

/* The scopes a counter can have (vs_measure_counter_scope says which a name
 * implies): a measurement is compared only with others of its scope. */
static int known_scope(const char *s)
{
    vs_vocab_scope scope;
    return vs_vocab_scope_parse(&scope, s, NULL) == 0;
}

/* A measurement's stage= names a stage of the sheet's procedure: one of the
 * three the method names, or one declared with `stage`. */
static int check_stage(const json_t *sheet, const vs_arg *a, vs_error *err)
{
    const json_t *st;
    size_t i;
    if (!strcmp(a->value, "short") || !strcmp(a->value, "usual") || !strcmp(a->value, "limit"))
        return 0;
    vs_json_array_foreach(vs_sheet_array(sheet, VS_SK_STAGES), i, st)
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

const char *const vs_verbs_measure_record_keys[] = {
    "phase",       "gpu",        "counter", "scope",  "gpu_name", "length",
    "concurrency", "microbatch", "width",   "height", "frames",   "batch",
    "resolution",  "stage",      "host",    "rank",   NULL};

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

int vs_verb_record(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    const vs_arg *phase = vs_line_pair(line, "phase"), *counter = vs_line_pair(line, "counter");
    const vs_arg *amount = vs_line_positional(line, 0), *scope = vs_line_pair(line, "scope");
    const vs_arg *gname = vs_line_pair(line, "gpu_name"), *stage = vs_line_pair(line, "stage");
    const vs_arg *host = vs_line_pair(line, "host");
    json_t *sheet, *dims, *m, *ms, *again = NULL;
    uint64_t bytes, gpu = 0, rank = 0;
    int rc, has_gpu = 0, has_rank = 0;
    vs_buf why = VS_BUF_INIT;
    vs_bundle *bundle;
    int valid;
    static const char syntax[] = "record phase=NAME gpu=I counter=NAME BYTES [length=N] "
                                 "[concurrency=N] [microbatch=N] [resolution=WxH] [frames=N] "
                                 "[batch=N] [stage=NAME] [scope=S]";
    if ((rc = vs_line_check_keys(line, vs_verbs_measure_record_keys, err)) < 0)
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
        return vs_error_oom(err);
    }
    if ((rc = vs_verbs_measure_line_dims(line, dims, err)) < 0) {
        json_decref(dims);
        return rc;
    }
    {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        m = vs_verbs_measure_measurement_new(
            sheet, NULL, phase->value, has_gpu, (unsigned)gpu, gname ? gname->value : NULL,
            counter->value, scope ? scope->value : vs_measure_counter_scope(counter->value), bytes,
            dims, stage ? stage->value : NULL, host ? host->value : NULL, has_rank, (unsigned)rank,
            (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
    }
    ms = vs_verbs_measure_ensure_array(sheet, VS_SK_MEASUREMENTS);
    if (m && ms && (again = same_typed(ms, m)) != NULL) {
        /* the same line run again (Run All twice) restates it: one measurement */
        json_decref(m);
        m = json_incref(again);
    } else
        again = NULL;
    if (!m || !ms || (!again && json_array_append(ms, m) < 0)) {
        json_decref(m);
        return vs_error_oom(err);
    }
    valid = json_is_true(json_object_get(m, "validates_card"));
    if (!valid)
        vs_derived_dims_validate(sheet, json_object_get(m, "dims"), &why);
    bundle = vs_render_measure_record_result(m, again != NULL, valid ? NULL : vs_buf_str(&why));
    json_decref(m);
    vs_buf_free(&why);
    if (!bundle)
        return vs_error_oom(err);
    vs_ctx_emit(ctx, bundle);
    return 0;
}

/* ---------------------------------------------------------------- measured */

const char *const vs_verbs_measure_measured_keys[] = {"from", "gpu", "class", NULL};

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
    return VS_CMP_NONE;
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
    vs_json_array_foreach(vs_sheet_array(sheet, VS_SK_RUNS), i, r)
    {
        const char *id = json_string_value(json_object_get(r, "id"));
        if (id && !strcmp(id, run))
            return !json_is_integer(json_object_get(r, "exit_status"));
    }
    return 0;
}

/* `measured weights from=M`: the sheet's weights become a loader's own
 * figure. Weights do not depend on length or concurrency, so a start-up log's
 * line (vLLM's "Model loading took", llama.cpp's model buffer, which name no
 * dims) or a counter of a load phase stands for any card of the same model
 * and format; a counter of another quantity is refused. The figure is one
 * GPU's (a log prints it per rank). */
static int measured_weights(vs_ctx *ctx, json_t *sheet, const json_t *found, const vs_arg *from,
                            vs_error *err)
{
    const char *ct = json_string_value(json_object_get(found, "counter"));
    const char *ph = json_string_value(json_object_get(found, "phase"));
    const char *r = json_string_value(json_object_get(found, "run"));
    const char *sc = json_string_value(json_object_get(found, "scope"));
    const char *fmt = vs_sheet_card_str(sheet, VS_CK_FORMAT);
    uint64_t bytes = (uint64_t)json_integer_value(json_object_get(found, "peak_bytes"));
    int load_phase = ph && (strstr(ph, "load") || strstr(ph, "weight"));
    char source[400], gtext[40];
    json_t *g = json_object_get(found, "gpu"), *wf;
    vs_bundle *bundle;
    if (vs_compare_counter_class(ct) != VS_CMP_WEIGHTS && !load_phase)
        return vs_error_set_at(err, VS_EVALUE, from->line, from->value_column,
                               "measurement %s (counter %s, phase %s) is not a figure of the "
                               "weights: name a loader's weights line (vLLM's \"Model loading "
                               "took\", llama.cpp's model buffer size) or a counter of a load "
                               "phase",
                               from->value, ct ? ct : "?", ph ? ph : "?");
    if (json_is_integer(g))
        snprintf(gtext, sizeof gtext, "GPU %lld", (long long)json_integer_value(g));
    else
        snprintf(gtext, sizeof gtext, "no GPU named");
    snprintf(source, sizeof source, "measured: %s%s, phase %s, %s, counter %s (scope %s)",
             r ? "run " : "typed by hand", r ? r : "", ph ? ph : "?", gtext, ct ? ct : "?",
             sc ? sc : "?");
    wf = json_pack("{s:n, s:I, s:[], s:[], s:[], s:s, s:s?}", "path", "bytes", (json_int_t)bytes,
                   "by_dtype", "other_dtype", "files", "measured", source, "format_measured", fmt);
    if (!wf || json_object_set_new(sheet, "weights_files", wf))
        return vs_error_oom(err);
    if (!(bundle = vs_render_measured_weights(fmt, bytes, source)))
        return vs_error_oom(err);
    vs_ctx_emit(ctx, bundle);
    return 0;
}

int vs_verb_measured(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    const vs_arg *name = vs_line_positional(line, 0), *from = vs_line_pair(line, "from");
    const vs_arg *cls = vs_line_pair(line, "class");
    json_t *sheet = vs_ctx_sheet(ctx), *m, *found = NULL;
    uint64_t gpu = 0;
    int has_gpu = 0, rc, matches = 0, log_item = 0;
    vs_vocab_class class_of;
    size_t i;
    char run[64] = "", phase[64] = "", counter[64] = "", source[600];
    vs_buf gpus = VS_BUF_INIT;
    vs_bundle *bundle;
    static const char syntax[] = "measured NAME from=RUN:PHASE:COUNTER [gpu=I] [class=CLASS] "
                                 "(or from=#N, the N-th of `measurements`)";
    if ((rc = vs_line_check_keys(line, vs_verbs_measure_measured_keys, err)) < 0)
        return rc;
    if (!name || !from || vs_line_positional(line, 1))
        return vs_error_set(err, VS_EVALUE, "expected `%s`", syntax);
    if (!sheet)
        return vs_error_oom(err);
    if ((rc = vs_line_get_uint(line, "gpu", 0, &gpu, &has_gpu, err)) < 0)
        return rc;
    if (cls && vs_vocab_class_parse(&class_of, cls->value, NULL) < 0) {
        char choices[100];
        return vs_error_set_at(
            err, VS_EVALUE, cls->line, cls->value_column, "class is one of %s",
            vs_verb_join_names(choices, sizeof choices, vs_vocab_class_names, ", ", ", "));
    }
    if (from->value[0] == '#') {
        char *end;
        long k = strtol(from->value + 1, &end, 10);
        if (*end || k < 1 || (size_t)k > json_array_size(vs_sheet_array(sheet, VS_SK_MEASUREMENTS)))
            return vs_error_set_at(err, VS_ENOTFOUND, from->line, from->value_column,
                                   "no measurement %s (the sheet has %zu; see `measurements`)",
                                   from->value,
                                   json_array_size(vs_sheet_array(sheet, VS_SK_MEASUREMENTS)));
        found = json_array_get(vs_sheet_array(sheet, VS_SK_MEASUREMENTS), (size_t)k - 1);
        matches = 1;
    } else {
        const char *a = from->value, *c1 = strchr(a, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c1 || !c2 || c1 == a || c2 == c1 + 1 || !c2[1] || (size_t)(c1 - a) >= sizeof run ||
            (size_t)(c2 - c1 - 1) >= sizeof phase || strlen(c2 + 1) >= sizeof counter)
            return vs_error_set_at(err, VS_EVALUE, from->line, from->value_column,
                                   "expected from=RUN:PHASE:COUNTER (m1:load:" VS_COUNTER_DEVICE
                                   ") "
                                   "or from=#N");
        memcpy(run, a, (size_t)(c1 - a));
        memcpy(phase, c1 + 1, (size_t)(c2 - c1 - 1));
        snprintf(counter, sizeof counter, "%s", c2 + 1);
        vs_json_array_foreach(vs_sheet_array(sheet, VS_SK_MEASUREMENTS), i, m)
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
    if (!strcmp(name->value, VS_VOCAB_WEIGHTS))
        return measured_weights(ctx, sheet, found, from, err);
    /* The runtime items an engine prints at start-up (vLLM's non-torch
     * memory, activation peak, CUDA graphs) come from its log, which names no
     * executed dims: such a figure fills that item, said to be not at the
     * card's dims (the envelope flags it as such); everything else keeps the
     * rule below. */
    if (runtime_item_class(name->value) != VS_CMP_NONE && from_engine_log(sheet, found)) {
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
        if (!vs_derived_measurement_validates(sheet, found, &why)) {
            uint64_t want;
            for (i = 0; i < VS_SHEET_NDIMS; i++)
                if (vs_sheet_card_uint(sheet, vs_sheet_card_dims[i], &want))
                    vs_buf_printf(&dims, " %s=%llu", vs_sheet_card_key_names[vs_sheet_card_dims[i]],
                                  (unsigned long long)want);
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
            (uint64_t)json_integer_value(json_object_get(found, "peak_bytes")),
            vs_vocab_status_name(VS_STATUS_MEASURED), source,
            json_string_value(json_object_get(found, "phase")), cls ? cls->value : NULL, err);
        if (rc < 0)
            return rc;
        bundle = vs_render_measured_component_result(
            name->value, (uint64_t)json_integer_value(json_object_get(found, "peak_bytes")), source,
            log_item, sc);
    }
    if (!bundle)
        return vs_error_oom(err);
    vs_ctx_emit(ctx, bundle);
    return 0;
}

/* ------------------------------------------------------------ measurements */

int vs_verb_measurements(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    json_t *sheet = vs_ctx_sheet(ctx), *m, *ms;
    vs_bundle *bundle;
    int *valid;
    size_t i;
    if (line->nargs)
        return vs_error_set(err, VS_EVALUE, "expected `measurements` alone");
    if (!sheet)
        return vs_error_oom(err);
    ms = vs_sheet_array(sheet, VS_SK_MEASUREMENTS);
    valid = calloc(json_array_size(ms) ? json_array_size(ms) : 1, sizeof *valid);
    if (!valid)
        return vs_error_oom(err);
    /* against the card as it is now, not the flag frozen at record time */
    vs_json_array_foreach(ms, i, m) valid[i] = vs_derived_measurement_validates(sheet, m, NULL);
    bundle = vs_render_measurements_result(ms, valid);
    free(valid);
    if (!bundle)
        return vs_error_oom(err);
    vs_ctx_emit(ctx, bundle);
    return 0;
}
