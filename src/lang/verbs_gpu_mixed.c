/* Cards of several kinds in one offer (lang/verbs_gpu_mixed.h). */
#include "lang/verbs_gpu_mixed.h"

#include <stdio.h>
#include <string.h>

#include "catalog/catalog.h"

int vs_verbs_gpu_mixed(vs_gpu_mixed *out, const vs_arg *a, vs_error *err)
{
    const char *p = a->value;
    int all_reported = 1;
    memset(out, 0, sizeof *out);
    if (!(out->devices = json_array()))
        return vs_error_oom(err);
    while (*p) {
        char name[128];
        size_t n = strcspn(p, ","), k = n;
        const char *s = p;
        vs_gpu_spec spec;
        json_t *d;
        while (k && (*s == ' ')) {
            s++;
            k--;
        }
        while (k && s[k - 1] == ' ')
            k--;
        if (k == 0 || k >= sizeof name) {
            json_decref(out->devices);
            out->devices = NULL;
            return vs_error_set_at(err, VS_EVALUE, a->line, a->value_column,
                                   "devices=: expected catalogue names separated by commas "
                                   "(devices=\"RTX 4090,RTX 3090\")");
        }
        memcpy(name, s, k);
        name[k] = '\0';
        if (vs_catalog_find(&spec, name, err) < 0) {
            json_decref(out->devices);
            out->devices = NULL;
            err->line = a->line;
            err->column = a->value_column;
            return VS_ENOTFOUND;
        }
        d = json_pack("{s:s, s:o, s:o}", "name", spec.name, "memory_bytes",
                      spec.memory_known ? json_integer((json_int_t)spec.memory_bytes) : json_null(),
                      "reported_bytes",
                      spec.reported_known ? json_integer((json_int_t)spec.reported_bytes)
                                          : json_null());
        if (!d || json_array_append_new(out->devices, d)) {
            json_decref(out->devices);
            out->devices = NULL;
            return vs_error_oom(err);
        }
        if (spec.memory_known && (!out->memory_known || spec.memory_bytes < out->memory_bytes)) {
            out->memory_bytes = spec.memory_bytes;
            out->memory_known = 1;
            if (!out->reported_known)
                snprintf(out->smallest, sizeof out->smallest, "%s", spec.name);
        }
        if (!spec.reported_known)
            all_reported = 0;
        else if (!out->reported_known || spec.reported_bytes < out->reported_bytes) {
            out->reported_bytes = spec.reported_bytes;
            out->reported_known = 1;
            snprintf(out->smallest, sizeof out->smallest, "%s", spec.name);
        }
        out->n++;
        p += n;
        if (*p == ',')
            p++;
    }
    /* a total known for some cards only is no total of the offer */
    out->reported_known = out->reported_known && all_reported;
    if (out->n < 2) {
        json_decref(out->devices);
        out->devices = NULL;
        return vs_error_set_at(err, VS_EVALUE, a->line, a->value_column,
                               "devices=: name two cards or more (one kind of card is `gpu NAME "
                               "cards=N`)");
    }
    return 0;
}
