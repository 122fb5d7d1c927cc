/* import_probe.c — the JSON lines `vramsheet probe --out FILE` writes
 * (src/measure/probe_cli.c): a "run" line per process, "sample" lines, "peak"
 * lines per phase, GPU and counter, an "end" line. Peaks merge per host, GPU,
 * phase and counter (the largest kept); runs per host. Every key of a line is
 * checked against what the probe writes before anything is kept: a value of
 * another type, a negative or out-of-range number, a control character in a
 * string or a key the probe never writes refuses the file (a record with such
 * a value could not be read back). */
#include <string.h>

#include "measure/import.h"
#include "measure/measure.h"
#include "measure/phasefd.h"

/* The keys each line type may carry, and their types. */
enum { T_STR = 1, T_UINT, T_INT, T_BOOL, T_GPUS, T_DIMS, T_GPU };

typedef struct key_type {
    const char *key;
    int type;
} key_type;

static const key_type common_keys[] = {
    {"type", T_STR}, {"host", T_STR}, {"rank", T_UINT}, {"local_rank", T_UINT}, {NULL, 0}};
static const key_type run_keys[] = {{"command", T_STR},        {"started", T_STR},
                                    {"driver", T_STR},         {"nvml", T_STR},
                                    {"memory_api", T_STR},     {"process_api", T_STR},
                                    {"interval_ms", T_UINT},   {"gpus", T_GPUS},
                                    {"process_memory", T_STR}, {NULL, 0}};
static const key_type peak_keys[] = {{"phase", T_STR},   {"gpu", T_GPU},   {"gpu_name", T_STR},
                                     {"counter", T_STR}, {"scope", T_STR}, {"peak_bytes", T_UINT},
                                     {"dims", T_DIMS},   {"time", T_STR},  {NULL, 0}};
static const key_type end_keys[] = {{"exit_status", T_INT},
                                    {"signal", T_INT},
                                    {"overflow_phase", T_STR},
                                    {"oom_pattern", T_STR},
                                    {"elapsed_ms", T_UINT},
                                    {"timed_out", T_BOOL},
                                    {"interrupted", T_BOOL},
                                    {"leftovers", T_INT},
                                    {"samples", T_UINT},
                                    {"sampler_cpu_ns", T_UINT},
                                    {NULL, 0}};
static const key_type sample_keys[] = {
    {"t_ms", T_UINT},       {"phase", T_STR},          {"gpu", T_GPU},
    {"used_bytes", T_UINT}, {"process_bytes", T_UINT}, {NULL, 0}};
static const key_type gpu_keys[] = {{"index", T_GPU},
                                    {"name", T_STR},
                                    {"uuid", T_STR},
                                    {"total_bytes", T_UINT},
                                    {"total_basis", T_STR},
                                    {"cuda_total_bytes", T_UINT},
                                    {NULL, 0}};

static const key_type *find_key(const key_type *t, const char *k)
{
    for (; t && t->key; t++)
        if (!strcmp(t->key, k))
            return t;
    return NULL;
}

static int check_keys(vs_import *im, const json_t *obj, const key_type *own, const char *what);

/* 0 when v (of key k) has type t; else the refusal. null stands for "not
 * known" everywhere the probe writes it. */
static int check_value(vs_import *im, const char *k, const json_t *v, int t)
{
    if (json_is_null(v))
        return 0;
    switch (t) {
    case T_STR:
        if (!json_is_string(v))
            return vs_import_refuse(im, "\"%s\" must be a string (or null)", k);
        if (!vs_import_text_valid(json_string_value(v)))
            return vs_import_refuse(im, "\"%s\" holds a control character", k);
        if (json_string_length(v) > 4096)
            return vs_import_refuse(im, "\"%s\" is longer than 4096 bytes", k);
        return 0;
    case T_UINT:
        if (!json_is_integer(v) || json_integer_value(v) < 0)
            return vs_import_refuse(im, "\"%s\" must be an integer >= 0 (or null)", k);
        if (!strcmp(k, "rank") && json_integer_value(v) > 2147483647)
            return vs_import_refuse(im, "\"rank\" must be an integer >= 0 (or null)");
        return 0;
    case T_INT:
        if (!json_is_integer(v))
            return vs_import_refuse(im, "\"%s\" must be an integer (or null)", k);
        return 0;
    case T_BOOL:
        if (!json_is_boolean(v))
            return vs_import_refuse(im, "\"%s\" must be true or false", k);
        return 0;
    case T_GPU:
        /* An out-of-range value would be cast to another GPU (1099511627776
         * became GPU 0): refused, not silently repaired. */
        if (!json_is_integer(v) || json_integer_value(v) < 0 ||
            json_integer_value(v) > VS_IMPORT_GPU_MAX)
            return vs_import_refuse(im, "\"%s\" must be a GPU index from 0 to %d (or null)", k,
                                    VS_IMPORT_GPU_MAX);
        return 0;
    case T_DIMS: {
        const char *dk;
        json_t *dv;
        if (!json_is_object(v))
            return vs_import_refuse(im, "\"dims\" must be an object of executed dims");
        json_object_foreach((json_t *)v, dk, dv)
        {
            if (!vs_phasefd_name_valid(dk))
                return vs_import_refuse(im, "executed dims (\"dims\") need names of A-Z a-z "
                                            "0-9 _ . : / + -");
            if (!json_is_integer(dv) || json_integer_value(dv) < 0)
                return vs_import_refuse(im, "executed dims (\"dims\") must be integers >= 0");
        }
        return 0;
    }
    case T_GPUS: {
        size_t i;
        json_t *g;
        if (!json_is_array(v))
            return vs_import_refuse(im, "\"gpus\" must be an array of GPUs");
        json_array_foreach((json_t *)v, i, g)
        {
            if (!json_is_object(g))
                return vs_import_refuse(im, "\"gpus\"[%zu] must be an object", i);
            if (check_keys(im, g, gpu_keys, "a GPU of \"gpus\"") < 0)
                return VS_IMPORT_REFUSED;
        }
        return 0;
    }
    default:
        return 0;
    }
}

static int check_keys(vs_import *im, const json_t *obj, const key_type *own, const char *what)
{
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)obj, k, v)
    {
        const key_type *t = find_key(own, k);
        if (!t && own != gpu_keys)
            t = find_key(common_keys, k);
        if (!t)
            return vs_import_refuse(im, "unknown key \"%.64s\" in %s", k, what);
        if (check_value(im, k, v, t->type) < 0)
            return VS_IMPORT_REFUSED;
    }
    return 0;
}

static int probe_sniff(const char *line, size_t n)
{
    return n > 0 && line[0] == '{' && vs_import_find(line, n, "\"type\":", 0) != NULL &&
           (vs_import_find(line, n, "\"peak\"", 0) || vs_import_find(line, n, "\"run\"", 0) ||
            vs_import_find(line, n, "\"sample\"", 0) || vs_import_find(line, n, "\"end\"", 0));
}

static int run_line(vs_import *im, json_t *h, json_t *j)
{
    json_t *gpus = json_object_get(j, "gpus"), *g, *st = json_object_get(j, "started");
    size_t k;
    if (json_is_null(json_object_get(h, "command")) &&
        json_is_string(json_object_get(j, "command")))
        json_object_set(h, "command", json_object_get(j, "command"));
    if (json_is_string(st) &&
        (!json_is_string(json_object_get(h, "started")) ||
         strcmp(json_string_value(st), json_string_value(json_object_get(h, "started"))) < 0))
        json_object_set(h, "started", st);
    if (json_object_get(j, "driver"))
        json_object_set(h, "driver", json_object_get(j, "driver"));
    if (json_object_get(j, "nvml"))
        json_object_set(h, "nvml", json_object_get(j, "nvml"));
    json_array_foreach(gpus, k, g)
    {
        json_t *have, *list = json_object_get(h, "gpus");
        size_t q;
        int seen = 0;
        json_array_foreach(list, q, have) if (json_equal(json_object_get(have, "index"),
                                                         json_object_get(g, "index"))) seen = 1;
        if (!seen) {
            json_t *e = json_pack("{s:O?, s:O?, s:O?, s:O?}", "index", json_object_get(g, "index"),
                                  "name", json_object_get(g, "name"), "total_bytes",
                                  json_object_get(g, "total_bytes"), "total_basis",
                                  json_object_get(g, "total_basis"));
            if (!e || json_array_append_new(list, e) < 0)
                return VS_ENOMEM;
        }
    }
    return 0;
}

static int end_line(json_t *h, json_t *j)
{
    json_t *es = json_object_get(j, "exit_status"), *ov = json_object_get(j, "overflow_phase");
    json_t *el = json_object_get(j, "elapsed_ms");
    if (json_is_integer(es) && json_integer_value(es) != 0 &&
        json_integer_value(json_object_get(h, "exit_status")) == 0)
        json_object_set(h, "exit_status", es);
    if (json_is_string(ov) && json_is_null(json_object_get(h, "overflow_phase")))
        json_object_set(h, "overflow_phase", ov);
    if (json_is_integer(el) &&
        json_integer_value(el) > json_integer_value(json_object_get(h, "elapsed_ms")))
        json_object_set(h, "elapsed_ms", el);
    return 0;
}

static int peak_line(vs_import *im, json_t *j)
{
    const char *phase = json_string_value(json_object_get(j, "phase"));
    const char *counter = json_string_value(json_object_get(j, "counter"));
    json_t *peak = json_object_get(j, "peak_bytes"), *dims = json_object_get(j, "dims"), *m;
    json_t *scope = json_object_get(j, "scope");
    if (!phase || !counter || !json_is_integer(peak) || !vs_phasefd_name_valid(phase) ||
        !vs_phasefd_name_valid(counter))
        return vs_import_refuse(im, "a peak needs phase, counter and peak_bytes (a byte count "
                                    ">= 0)");
    m = json_pack("{s:s, s:O?, s:O?, s:s, s:O?, s:O, s:o, s:O?, s:O?, s:O?}", "phase", phase, "gpu",
                  json_object_get(j, "gpu"), "gpu_name", json_object_get(j, "gpu_name"), "counter",
                  counter, "scope", json_is_string(scope) ? scope : NULL, "peak_bytes", peak,
                  "dims", json_is_object(dims) ? json_deep_copy(dims) : json_object(), "host",
                  json_object_get(j, "host"), "rank", json_object_get(j, "rank"), "time",
                  json_object_get(j, "time"));
    if (!m)
        return VS_ENOMEM;
    if (!json_is_string(scope))
        json_object_set_new(m, "scope", json_string(vs_measure_counter_scope(counter)));
    return vs_import_add(im, m);
}

static int probe_line(vs_import *im, void *state, const char *line, size_t n)
{
    json_error_t je;
    json_t *j, *h;
    const char *type, *host;
    const key_type *own;
    int rc = 0;
    (void)state;
    if (n == 0)
        return 0;
    j = json_loadb(line, n, 0, &je);
    if (!j || !json_is_object(j)) {
        rc = vs_import_refuse(im, "%s", j ? "not an object" : je.text);
        json_decref(j);
        return rc;
    }
    type = json_string_value(json_object_get(j, "type"));
    if (!type) {
        json_decref(j);
        return vs_import_refuse(im, "no \"type\"");
    }
    own = !strcmp(type, "run")      ? run_keys
          : !strcmp(type, "peak")   ? peak_keys
          : !strcmp(type, "end")    ? end_keys
          : !strcmp(type, "sample") ? sample_keys
                                    : NULL;
    if (!own) {
        rc = vs_import_refuse(im, "unknown \"type\" \"%.32s\" (run, sample, peak or end)", type);
        json_decref(j);
        return rc;
    }
    if ((rc = check_keys(im, j, own, "a probe line")) < 0) {
        json_decref(j);
        return rc;
    }
    if (json_is_string(json_object_get(j, "host")) &&
        json_string_length(json_object_get(j, "host")) > 255) {
        json_decref(j);
        return vs_import_refuse(im, "\"host\" is longer than 255 bytes");
    }
    host = json_string_value(json_object_get(j, "host"));
    if (!(h = vs_import_run(im, host ? host : ""))) {
        json_decref(j);
        return VS_ENOMEM;
    }
    if (!strcmp(type, "run"))
        rc = run_line(im, h, j);
    else if (!strcmp(type, "end"))
        rc = end_line(h, j);
    else if (!strcmp(type, "peak"))
        rc = peak_line(im, j);
    json_decref(j);
    return rc;
}

const vs_importer vs_import_probe = {
    "probe",
    "the JSON lines of `vramsheet probe --out FILE -- COMMAND` (other machines, torchrun, "
    "Slurm): peaks merged per host, GPU, phase and counter, the largest kept; one run per host",
    0,
    probe_sniff,
    probe_line,
    NULL,
    NULL,
};
