/* `measure import FILE... [format=...]`: what real runs printed (probe JSON
 * lines, engine logs, nvidia-smi, torch's memory stats), read into the
 * sheet's runs and measurements. Shown by render/measure.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lang/verbs_measure.h"
#include "measure/import.h"
#include "model/safetensors.h"
#include "render/measure.h"
#include "sheet/derived.h"
#include "sheet/sheet.h"
#include "util/buf.h"
#include "util/file.h"
#include "util/json.h"

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

/* What read_line found. Not error codes: out of memory is VS_ENOMEM (< 0). */
enum { LINE_READ = 0, LINE_END = 1, LINE_TOO_LONG = 2 };

/* The next line of fp (newline dropped) in *buf and its length in *len:
 * LINE_READ; LINE_END at the end; LINE_TOO_LONG when it is longer than max
 * (getline would grow without bound); VS_ENOMEM. */
static int read_line(FILE *fp, char **buf, size_t *cap, size_t max, size_t *len)
{
    size_t n = 0;
    int ch;
    while ((ch = getc_unlocked(fp)) != EOF && ch != '\n') {
        if (n >= max)
            return LINE_TOO_LONG;
        if (n + 1 >= *cap) {
            size_t nc = *cap ? *cap * 2 : 4096;
            char *nb = realloc(*buf, nc);
            if (!nb)
                return VS_ENOMEM;
            *buf = nb;
            *cap = nc;
        }
        (*buf)[n++] = (char)ch;
    }
    if (ch == EOF && n == 0)
        return LINE_END;
    if (!*buf && !(*buf = malloc(*cap = 4096)))
        return VS_ENOMEM;
    (*buf)[n] = '\0';
    *len = n;
    return LINE_READ;
}

/* One file through one importer (imp NULL: sniffed from its first lines). */
static int import_file(vs_import *im, const vs_importer *imp, const vs_arg *a, size_t *nlines,
                       vs_error *err)
{
    char *buf = NULL;
    size_t cap = 0, lineno = 0, n = 0;
    int got;
    void *state = NULL;
    char label[1200];
    FILE *fp;
    int rc = 0, fd = vs_file_open_regular(a->value, IMPORT_FILE_MAX, NULL, err);
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
        return vs_error_oom(err);
    }
    while (!imp && lineno < IMPORT_SNIFF_LINES &&
           (got = read_line(fp, &buf, &cap, IMPORT_LINE_MAX, &n)) != LINE_END) {
        lineno++;
        if (got != LINE_READ) {
            rc = got == LINE_TOO_LONG
                     ? import_error(err, a->value, lineno, NULL, "line longer than 1 MiB")
                     : vs_error_oom(err);
            goto done;
        }
        imp = vs_importer_sniff(buf, n);
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
        rc = vs_error_oom(err);
        goto done;
    }
    while ((got = read_line(fp, &buf, &cap, IMPORT_LINE_MAX, &n)) != LINE_END) {
        lineno++;
        if (got == LINE_TOO_LONG)
            rc = import_error(err, a->value, lineno, imp->name, "line longer than 1 MiB");
        else if (got < 0)
            rc = vs_error_oom(err);
        else if ((rc = imp->line(im, state, buf, n)) == VS_IMPORT_REFUSED)
            rc = import_error(err, a->value, im->why_line ? im->why_line : lineno, imp->name,
                              im->why);
        else if (rc < 0)
            rc = vs_error_oom(err);
        if (rc < 0)
            goto done;
        if (n > 0)
            (*nlines)++;
    }
    if (imp->finish && (rc = imp->finish(im, state)) < 0)
        rc = rc == VS_IMPORT_REFUSED
                 ? import_error(err, a->value, im->why_line ? im->why_line : lineno, imp->name,
                                im->why)
                 : vs_error_oom(err);
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
    const json_t *runs = vs_sheet_array(sheet, VS_SK_RUNS),
                 *ms = vs_sheet_array(sheet, VS_SK_MEASUREMENTS);
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

/* Into an existing run (into): every imported measurement already recorded
 * under it (but for the time) is a restatement; 1 then, rows getting them. */
static int into_restates(const json_t *sheet, const char *into, const json_t *items, json_t *rows)
{
    static const char *const m_skip[] = {"time", NULL};
    const json_t *ms = vs_sheet_array(sheet, VS_SK_MEASUREMENTS), *m;
    json_t *found = json_array(), *x;
    size_t i, k;
    int ok = found != NULL;
    vs_json_array_foreach(items, i, m)
    {
        json_t *hit = NULL;
        if (!ok)
            break;
        vs_json_array_foreach(ms, k, x)
        {
            const char *xr = json_string_value(json_object_get(x, "run"));
            if (xr && !strcmp(xr, into) && same_but(m, x, m_skip)) {
                hit = x;
                break;
            }
        }
        ok = hit && json_array_append(found, hit) == 0;
    }
    if (ok)
        ok = json_array_extend(rows, found) == 0;
    json_decref(found);
    return ok;
}

/* The imported runs and measurements into the sheet: each checked against
 * the record's layout first, then all appended, or none. With into (the id
 * of a run of the sheet), the measurements join that run and no run is
 * added: `measure launch` keeps NVML's samples and the engine's own lines as
 * one run. */
static int import_into_sheet(vs_ctx *ctx, json_t *sheet, vs_import *im, json_t *rows, int *restated,
                             const char *into, vs_error *err)
{
    json_t *newruns = json_array(), *ids = json_object(), *hr, *m;
    json_t *runs = vs_verbs_measure_ensure_array(sheet, VS_SK_RUNS),
           *ms = vs_verbs_measure_ensure_array(sheet, VS_SK_MEASUREMENTS);
    const char *key;
    size_t i;
    int rc = 0, serial = 0;
    long base = 0;
    char run_id[32];
    if (!newruns || !ids || !runs || !ms) {
        rc = vs_error_oom(err);
        goto done;
    }
    vs_verbs_measure_next_run_id(sheet, run_id, sizeof run_id);
    base = strtol(run_id + 1, NULL, 10);
    json_object_foreach(im->runs, key, hr)
    {
        json_t *run;
        int log = json_is_true(json_object_get(hr, "_log"));
        if (into) {
            if (json_object_set_new(ids, key, json_string(into)) < 0) {
                rc = vs_error_oom(err);
                goto done;
            }
            continue;
        }
        snprintf(run_id, sizeof run_id, "m%ld", base + serial++);
        run = json_deep_copy(hr);
        if (!run || json_object_set_new(run, "id", json_string(run_id)) < 0 ||
            json_object_set_new(run, "phase", json_null()) < 0 ||
            json_object_set_new(run, "host",
                                log ? json_null() : vs_verbs_measure_str_or_null(key)) < 0 ||
            json_object_set_new(ids, key, json_string(run_id)) < 0) {
            json_decref(run);
            rc = vs_error_oom(err);
            goto done;
        }
        if (json_is_null(json_object_get(run, "command")))
            json_object_set_new(run, "command", json_string(log ? key : "(imported)"));
        if ((rc = vs_sheet_check_entry(run, "runs", err)) < 0 ||
            (rc = json_array_append_new(newruns, run) < 0 ? vs_error_oom(err) : 0) < 0) {
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
        const char *stage = vs_verbs_measure_match_stage(sheet, json_object_get(m, "dims"));
        json_object_set(m, "run", json_object_get(ids, rk ? rk : ""));
        /* the release the log's version line named, on each of its figures */
        json_object_set_new(m, "engine_version",
                            json_is_string(json_object_get(hrun, "_engine_version"))
                                ? json_copy(json_object_get(hrun, "_engine_version"))
                                : json_null());
        json_object_set_new(m, "stage", vs_verbs_measure_str_or_null(stage));
        json_object_set_new(m, "state", json_string("current"));
        /* a run that failed or overflowed validates nothing, as for measure; a
         * log's figures are start-up evidence, not a run of the card's dims */
        json_object_set_new(
            m, "validates_card",
            json_boolean(!json_is_true(json_object_get(hrun, "_log")) && json_is_integer(es) &&
                         json_integer_value(es) == 0 &&
                         !json_is_string(json_object_get(hrun, "overflow_phase")) &&
                         vs_derived_dims_validate(sheet, json_object_get(m, "dims"), NULL)));
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
    if ((*restated = into ? into_restates(sheet, into, im->items, rows)
                          : import_restates(sheet, newruns, im->items, rows)))
        goto done;
    /* every entry passed: now the sheet changes */
    json_array_foreach(newruns, i, hr)
    {
        if (json_array_append(runs, hr) < 0) {
            rc = vs_error_oom(err);
            goto done;
        }
        if (json_is_string(json_object_get(hr, "overflow_phase"))) {
            json_t *o = vs_verbs_measure_ensure_array(sheet, VS_SK_OOM);
            json_array_append_new(o, json_pack("{s:O, s:s}", "phase",
                                               json_object_get(hr, "overflow_phase"), "note",
                                               "imported probe run"));
        }
    }
    json_array_foreach(im->items, i, m)
    {
        if (json_array_append(ms, m) < 0 || json_array_append(rows, m) < 0) {
            rc = vs_error_oom(err);
            goto done;
        }
    }
    vs_ctx_effect(ctx, "imported %zu measurement(s)", json_array_size(im->items));
done:
    json_decref(newruns);
    json_decref(ids);
    return rc;
}

static int import_verb(vs_ctx *ctx, const vs_line *line, const char *into, vs_error *err);

int vs_verb_measure_import(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    return import_verb(ctx, line, NULL, err);
}

int vs_verb_measure_import_into(vs_ctx *ctx, const vs_line *line, const char *run_id, vs_error *err)
{
    return import_verb(ctx, line, run_id, err);
}

static int import_verb(vs_ctx *ctx, const vs_line *line, const char *into, vs_error *err)
{
    json_t *sheet = vs_ctx_sheet(ctx), *rows = json_array();
    const vs_arg *fa = vs_line_pair(line, "format");
    const vs_importer *imp = NULL;
    size_t f, nfiles = vs_line_npositional(line), nlines = 0;
    int restated = 0;
    vs_import im;
    vs_bundle *bundle;
    int rc;
    if ((rc = vs_import_init(&im)) < 0 || !sheet || !rows) {
        json_decref(rows);
        if (rc == 0)
            vs_import_clear(&im);
        return vs_error_oom(err);
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
    if ((rc = import_into_sheet(ctx, sheet, &im, rows, &restated, into, err)) < 0)
        goto done;
    bundle = vs_render_measure_import_result(rows, restated, nfiles - 1, nlines,
                                             into ? 0 : json_object_size(im.runs));
    if (!bundle) {
        rc = vs_error_oom(err);
        goto done;
    }
    vs_ctx_emit(ctx, bundle);
    rc = 0;
done:
    vs_import_clear(&im);
    json_decref(rows);
    return rc;
}
