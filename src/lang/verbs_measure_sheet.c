/* The sheet's runs and measurements as the measurement verbs write them: run
 * ids, the stage executed dims match, measurement objects and payload rows
 * (declared in lang/verbs_measure.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/verbs_measure.h"
#include "sheet/derived.h"
#include "sheet/sheet.h"
#include "util/clock.h"
#include "util/json.h"

int vs_verbs_measure_line_dims(const vs_line *line, json_t *dims, vs_error *err)
{
    const vs_arg *res = vs_line_pair(line, "resolution");
    size_t i;
    int rc;
    for (i = 0; i < VS_SHEET_NDIMS; i++) {
        uint64_t v;
        int present;
        if ((rc = vs_line_get_count(line, vs_sheet_card_key_names[vs_sheet_card_dims[i]], 0, &v,
                                    &present, err)) < 0)
            return rc;
        if (present && json_object_set_new(dims, vs_sheet_card_key_names[vs_sheet_card_dims[i]],
                                           json_integer((json_int_t)v)))
            return vs_error_oom(err);
    }
    if (res) {
        /* resolution=WxH is width= and height= in one, as the card's `resolution` */
        unsigned long long w = 0, h = 0;
        char tail;
        if (vs_line_pair(line, "width") || vs_line_pair(line, "height"))
            return vs_error_set_at(err, VS_EVALUE, res->line, res->column,
                                   "resolution= is width= and height= together: give one or the "
                                   "other");
        if (sscanf(res->value, "%llu%*[xX]%llu%c", &w, &h, &tail) != 2 || res->value[0] < '0' ||
            res->value[0] > '9' || w == 0 || h == 0 || w > (unsigned long long)INT64_MAX ||
            h > (unsigned long long)INT64_MAX)
            return vs_error_set_at(err, VS_EVALUE, res->line, res->value_column,
                                   "resolution= is WIDTHxHEIGHT in pixels (1024x1024), not '%s'",
                                   res->value);
        if (json_object_set_new(dims, "width", json_integer((json_int_t)w)) ||
            json_object_set_new(dims, "height", json_integer((json_int_t)h)))
            return vs_error_oom(err);
    }
    return 0;
}

static json_t *iso_json(int64_t wall_ms)
{
    char buf[32];
    vs_clock_iso_utc(buf, sizeof buf, wall_ms);
    return buf[0] ? json_string(buf) : json_null();
}

json_t *vs_verbs_measure_str_or_null(const char *s)
{
    return s && *s ? json_string(s) : json_null();
}

void vs_verbs_measure_next_run_id(const json_t *sheet, char *out, size_t n)
{
    long max = 0;
    size_t i;
    json_t *r;
    vs_json_array_foreach(vs_sheet_array(sheet, VS_SK_RUNS), i, r)
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

json_t *vs_verbs_measure_ensure_array(json_t *sheet, vs_sheet_key key)
{
    json_t *a = vs_sheet_array(sheet, key);
    if (!a) {
        a = json_array();
        if (!a || vs_sheet_set(sheet, key, a) < 0)
            return NULL;
    }
    return a;
}

const char *vs_verbs_measure_match_stage(const json_t *sheet, const json_t *dims)
{
    size_t i, k;
    json_t *st;
    vs_json_array_foreach(vs_sheet_array(sheet, VS_SK_STAGES), i, st)
    {
        int declared = 0, match = 1;
        for (k = 0; k < VS_SHEET_NDIMS; k++) {
            json_t *want = json_object_get(st, vs_sheet_card_key_names[vs_sheet_card_dims[k]]),
                   *have;
            if (!json_is_integer(want))
                continue;
            declared = 1;
            have = json_object_get(dims, vs_sheet_card_key_names[vs_sheet_card_dims[k]]);
            if (!json_is_integer(have) || json_integer_value(have) != json_integer_value(want))
                match = 0;
        }
        if (declared && match)
            return json_string_value(json_object_get(st, "name"));
    }
    return NULL;
}

json_t *vs_verbs_measure_measurement_new(const json_t *sheet, const char *run, const char *phase,
                                         int gpu_known, unsigned gpu, const char *gpu_name,
                                         const char *counter, const char *scope, uint64_t peak,
                                         json_t *dims_take, const char *stage, const char *host,
                                         int rank_known, unsigned rank, int64_t at)
{
    json_t *m;
    if (!dims_take)
        return NULL;
    if (!stage)
        stage = vs_verbs_measure_match_stage(sheet, dims_take);
    /* whether it validates the card: one definition, in sheet/derived.c,
     * recomputed after every line, so the stored flag is never stale */
    m = json_pack("{s:o, s:s, s:o, s:o, s:s, s:s, s:I, s:o, s:o, s:o, s:o, s:b, s:s, s:o}", "run",
                  vs_verbs_measure_str_or_null(run), "phase", phase, "gpu",
                  gpu_known ? json_integer(gpu) : json_null(), "gpu_name",
                  vs_verbs_measure_str_or_null(gpu_name), "counter", counter, "scope", scope,
                  "peak_bytes", (json_int_t)peak, "dims", dims_take, "stage",
                  vs_verbs_measure_str_or_null(stage), "host", vs_verbs_measure_str_or_null(host),
                  "rank", rank_known ? json_integer(rank) : json_null(), "validates_card",
                  vs_derived_dims_validate(sheet, dims_take, NULL), "state", "current", "time",
                  iso_json(at));
    /* schema 2's keys of a log's figure: none for a measured run */
    if (m && (json_object_set_new(m, "text", json_null()) < 0 ||
              json_object_set_new(m, "resolution_bytes", json_null()) < 0 ||
              json_object_set_new(m, "value", json_null()) < 0 ||
              json_object_set_new(m, "unit", json_null()) < 0 ||
              json_object_set_new(m, "engine_version", json_null()) < 0)) {
        json_decref(m);
        return NULL;
    }
    return m;
}
