#include "sheet/sheet.h"

#include <stdio.h>
#include <string.h>

json_t *vs_sheet_new(const char *title)
{
    char id[VS_SHEET_ID_MAX];
    json_t *s;
    vs_sheet_slug(title ? title : "untitled", id, sizeof id);
    s = json_pack("{s:s, s:s, s:s?, s:n,"
                  " s:{s:n, s:n, s:n, s:n, s:n, s:n, s:n, s:n, s:n, s:n, s:n, s:n, s:n},"
                  " s:n, s:[], s:{s:s, s:i, s:n}, s:[], s:[], s:[], s:[], s:[], s:[], s:[],"
                  " s:[], s:n}",
                  "schema", VS_SHEET_SCHEMA, "id", id, "title", title, "lineage",
                  "card", "model", "revision", "params", "params_source", "task", "format",
                  "bits", "length", "concurrency", "microbatch", "accumulation", "quality", "arch",
                  "weights_files", "components", "placement", "kind", "single", "gpus", 1, "stage",
                  "stages", "offers", "requirements", "evidence", "runs", "measurements",
                  "invalidate", "oom", "decision");
    return s;
}

int vs_sheet_slug(const char *title, char *out, size_t outlen)
{
    size_t n = 0;
    int dash = 0;
    const unsigned char *p;
    if (outlen < 2)
        return VS_EVALUE;
    for (p = (const unsigned char *)title; *p && n + 1 < outlen && n + 1 < VS_SHEET_ID_MAX; p++) {
        unsigned char c = *p;
        if (c >= 'A' && c <= 'Z')
            c = (unsigned char)(c - 'A' + 'a');
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
            if (dash && n > 0 && n + 2 < outlen && n + 2 < VS_SHEET_ID_MAX)
                out[n++] = '-';
            dash = 0;
            out[n++] = (char)c;
        } else {
            dash = 1;
        }
    }
    out[n] = '\0';
    if (n == 0)
        snprintf(out, outlen, "%s", "sheet");
    return 0;
}

int vs_sheet_id_valid(const char *id)
{
    size_t n = strlen(id), i;
    if (n == 0 || n >= VS_SHEET_ID_MAX || id[0] == '-' || id[n - 1] == '-')
        return 0;
    for (i = 0; i < n; i++) {
        char c = id[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'))
            return 0;
        if (c == '-' && i > 0 && id[i - 1] == '-')
            return 0;
    }
    return 1;
}

json_t *vs_sheet_card(const json_t *sheet) { return json_object_get(sheet, "card"); }

json_t *vs_sheet_array(const json_t *sheet, const char *key)
{
    json_t *a = json_object_get(sheet, key);
    return json_is_array(a) ? a : NULL;
}

int vs_sheet_card_uint(const json_t *sheet, const char *key, uint64_t *out)
{
    json_t *v = json_object_get(vs_sheet_card(sheet), key);
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return 0;
    *out = (uint64_t)json_integer_value(v);
    return 1;
}

json_t *vs_sheet_component(const json_t *sheet, const char *name)
{
    size_t i;
    json_t *c;
    json_array_foreach(vs_sheet_array(sheet, "components"), i, c) {
        const char *n = json_string_value(json_object_get(c, "name"));
        if (n && !strcmp(n, name))
            return c;
    }
    return NULL;
}

int vs_sheet_set_component(json_t *sheet, const char *name, int known, uint64_t bytes,
                           const char *status, const char *source, const char *phase,
                           const char *cls, vs_error *err)
{
    json_t *old = vs_sheet_component(sheet, name), *c, *arr;
    if (known && bytes > (uint64_t)INT64_MAX)
        return vs_error_set(err, VS_EUNIT, "%s: %s bytes does not fit a record", name, "the amount");
    if (old && strcmp(status, "measured") != 0) {
        const char *st = json_string_value(json_object_get(old, "status"));
        if (st && !strcmp(st, "measured"))
            return vs_error_set(err, VS_EVALUE,
                                "component '%s' is measured; an estimate never overwrites a "
                                "measurement (use another name, or `reserve %s ... "
                                "status=measured` to replace it)",
                                name, name);
    }
    c = json_pack("{s:s, s:o, s:s, s:s?, s:s?, s:s}", "name", name, "bytes",
                  known ? json_integer((json_int_t)bytes) : json_null(), "status", status,
                  "source", source, "phase", phase, "class", cls ? cls : "other");
    if (!c)
        return vs_error_set(err, VS_ENOMEM, "out of memory");
    if (!json_object_get(c, "source"))
        json_object_set_new(c, "source", json_null());
    if (!json_object_get(c, "phase"))
        json_object_set_new(c, "phase", json_null());
    arr = vs_sheet_array(sheet, "components");
    if (!arr) {
        arr = json_array();
        json_object_set_new(sheet, "components", arr);
    }
    if (old) {
        size_t i;
        json_t *x;
        json_array_foreach(arr, i, x) {
            if (x == old) {
                json_array_set_new(arr, i, c);
                return 0;
            }
        }
    }
    json_array_append_new(arr, c);
    return 0;
}
