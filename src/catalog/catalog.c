#include "catalog/catalog.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sheet/vocab.h"
#include "util/buf.h"
#include "util/json.h"

/* Generated from src/catalog/gpus.json by src/catalog/build.cmake. */
extern const unsigned char vs_catalog_data[];
extern const size_t vs_catalog_data_len;

/* Parsed once and never freed: the catalogue lives as long as the process. */
static pthread_once_t catalog_once = PTHREAD_ONCE_INIT;
static json_t *catalog_json;
static const char **catalog_names;
static const char *const catalog_no_names[] = {NULL};
/* Per entry, the lookup keys of its name and aliases (vs_catalog_key), each
 * NUL-terminated, the list ending with an empty key: computed once, since
 * every `gpu` line searches the whole catalogue. */
static char **catalog_keys;

static const char *str_or_empty(const char *s)
{
    return s ? s : "";
}

static void catalog_load(void)
{
    json_error_t jerr;
    json_t *gpus, *g;
    size_t i, n;
    catalog_json = json_loadb((const char *)vs_catalog_data, vs_catalog_data_len, 0, &jerr);
    gpus = json_object_get(catalog_json, "gpus");
    if (!json_is_array(gpus) ||
        strcmp(str_or_empty(json_string_value(json_object_get(catalog_json, "schema"))),
               VS_CATALOG_SCHEMA)) {
        json_decref(catalog_json);
        catalog_json = NULL;
        return;
    }
    n = json_array_size(gpus);
    catalog_names = calloc(n + 1, sizeof *catalog_names);
    catalog_keys = calloc(n + 1, sizeof *catalog_keys);
    if (!catalog_names || !catalog_keys) {
        free(catalog_names);
        free(catalog_keys);
        catalog_names = NULL;
        catalog_keys = NULL;
        return;
    }
    json_array_foreach(gpus, i, g)
    {
        vs_buf keys = VS_BUF_INIT;
        char k[256];
        size_t j;
        json_t *a;
        catalog_names[i] = json_string_value(json_object_get(g, "name"));
        vs_catalog_key(k, sizeof k, str_or_empty(catalog_names[i]));
        if (k[0]) /* an empty key would end the list */
            vs_buf_append(&keys, k, strlen(k) + 1);
        vs_json_array_foreach(json_object_get(g, "aliases"), j, a)
        {
            vs_catalog_key(k, sizeof k, str_or_empty(json_string_value(a)));
            if (k[0])
                vs_buf_append(&keys, k, strlen(k) + 1);
        }
        vs_buf_putc(&keys, '\0');
        catalog_keys[i] = vs_buf_take(&keys); /* NULL when memory was short: no match */
    }
}

const json_t *vs_catalog(void)
{
    pthread_once(&catalog_once, catalog_load);
    return catalog_json;
}

const char *vs_catalog_text(size_t *len)
{
    if (len)
        *len = vs_catalog_data_len;
    return (const char *)vs_catalog_data;
}

static json_t *catalog_gpus(void)
{
    return json_object_get(vs_catalog(), "gpus");
}

size_t vs_catalog_count(void)
{
    return json_array_size(catalog_gpus());
}

const char *const *vs_catalog_names(void)
{
    vs_catalog();
    return catalog_names ? (const char *const *)catalog_names : catalog_no_names;
}

/* 1 when v is a boolean, *flag its value; else unknown (0, *flag 0). */
static int flag_of(const json_t *v, int *flag)
{
    *flag = json_is_true(v);
    return json_is_boolean(v);
}

/* A positive integer, else 0 (unknown). */
static uint64_t positive(const json_t *v)
{
    return json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
}

/* A total as printed ("22.168" GiB) in whole MiB, rounded half up, integer arithmetic to
 * three decimals; 0 when the value or the unit is not one this reads. */
static uint64_t printed_mib(const char *value, const char *unit)
{
    uint64_t whole = 0, milli = 0, scale = 100, per;
    const char *p = value;
    if (!value || !unit || !*value)
        return 0;
    if (!strcmp(unit, "MiB"))
        per = 1;
    else if (!strcmp(unit, "GiB"))
        per = 1024;
    else
        return 0;
    for (; *p >= '0' && *p <= '9'; p++)
        if ((whole = whole * 10 + (uint64_t)(*p - '0')) > 100000000u)
            return 0;
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9' && scale; p++, scale /= 10)
            milli += (uint64_t)(*p - '0') * scale;
    if (*p)
        return 0;
    return ((whole * 1000 + milli) * per + 500) / 1000;
}

static void printed_fill(vs_gpu_spec *out, const json_t *t)
{
    out->cuda_printed_value = json_string_value(json_object_get(t, "value"));
    out->cuda_printed_unit = json_string_value(json_object_get(t, "unit"));
    out->cuda_printed_source = json_string_value(json_object_get(t, "source"));
    out->cuda_printed_mib = printed_mib(out->cuda_printed_value, out->cuda_printed_unit);
    out->cuda_printed_known = out->cuda_printed_mib > 0 && out->cuda_printed_source != NULL;
}

static void spec_fill(vs_gpu_spec *out, const json_t *g)
{
    json_t *gb = json_object_get(g, "memory_gb");
    json_t *mib = json_object_get(g, "reported_mib");
    json_t *rb = json_object_get(g, "reported_bytes");
    memset(out, 0, sizeof *out);
    out->entry = g;
    out->name = json_string_value(json_object_get(g, "name"));
    out->vendor = json_string_value(json_object_get(g, "vendor"));
    if (json_is_integer(gb) && json_integer_value(gb) > 0) {
        out->memory_known = 1;
        out->memory_bytes = (uint64_t)json_integer_value(gb) * 1000000000u;
    }
    /* reported_bytes is the figure used; reported_mib is what the capture printed. */
    if (json_is_integer(rb) && json_integer_value(rb) > 0) {
        out->reported_known = 1;
        out->reported_bytes = (uint64_t)json_integer_value(rb);
        out->reported_mib = json_is_integer(mib) ? (uint64_t)json_integer_value(mib) : 0;
    }
    out->ecc = json_string_value(json_object_get(g, "ecc"));
    out->reported_source = json_string_value(json_object_get(g, "reported_source"));
    out->reported_unknown = json_string_value(json_object_get(g, "reported_unknown"));
    {
        json_t *cb = json_object_get(g, "cuda_total_bytes");
        if (json_is_integer(cb) && json_integer_value(cb) > 0) {
            out->cuda_known = 1;
            out->cuda_bytes = (uint64_t)json_integer_value(cb);
            out->cuda_source = json_string_value(json_object_get(g, "cuda_total_source"));
        }
    }
    printed_fill(out, json_object_get(g, "cuda_total_printed"));
    out->sm_count = positive(json_object_get(g, "sm_count"));
    out->max_threads_per_sm = positive(json_object_get(g, "max_threads_per_sm"));
    {
        json_t *u = json_object_get(g, "unified"), *gb2 = json_object_get(u, "gpu_bytes"),
               *hg = json_object_get(u, "host_gb");
        out->unified_kind = json_string_value(json_object_get(u, "kind"));
        if (out->unified_kind && json_is_integer(gb2) && json_integer_value(gb2) > 0) {
            out->unified_gpu_known = 1;
            out->unified_gpu_bytes = (uint64_t)json_integer_value(gb2);
        }
        if (out->unified_kind && json_is_integer(hg) && json_integer_value(hg) > 0) {
            out->unified_host_known = 1;
            out->unified_host_bytes = (uint64_t)json_integer_value(hg) * 1000000000u;
        }
        out->unified_rule = json_string_value(json_object_get(u, "rule"));
        out->unified_source = json_string_value(json_object_get(u, "source"));
    }
    /* the formats a card computes in natively, keyed by their names */
    out->bf16_known = flag_of(json_object_get(g, vs_vocab_format_name(VS_FORMAT_BF16)), &out->bf16);
    out->fp8_known = flag_of(json_object_get(g, vs_vocab_format_name(VS_FORMAT_FP8)), &out->fp8);
}

int vs_catalog_at(vs_gpu_spec *out, size_t i)
{
    json_t *g = json_array_get(catalog_gpus(), i);
    if (!g)
        return VS_ENOTFOUND;
    spec_fill(out, g);
    return 0;
}

/* Words that brand a name rather than tell two products apart. */
static int brand_word(const char *w, size_t n)
{
    static const char *const words[] = {"nvidia",   "geforce",    "tesla", "amd",
                                        "instinct", "generation", NULL};
    size_t i;
    for (i = 0; words[i]; i++)
        if (strlen(words[i]) == n && !strncmp(words[i], w, n))
            return 1;
    return 0;
}

char *vs_catalog_key(char *out, size_t outlen, const char *name)
{
    char word[128];
    size_t n = 0, wn = 0;
    const char *p = name;
    if (!outlen)
        return out;
    for (;; p++) {
        char c = *p;
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
            if (wn + 1 < sizeof word)
                word[wn++] = c;
            continue;
        }
        if (wn && !brand_word(word, wn)) {
            size_t k = wn < outlen - 1 - n ? wn : outlen - 1 - n;
            memcpy(out + n, word, k);
            n += k;
        }
        wn = 0;
        if (!c)
            break;
    }
    out[n] = '\0';
    return out;
}

static int entry_matches(size_t i, const char *key, int prefix)
{
    size_t kl = strlen(key);
    const char *k;
    if (!kl || !catalog_keys || !catalog_keys[i])
        return 0;
    for (k = catalog_keys[i]; *k; k += strlen(k) + 1)
        if (prefix ? !strncmp(k, key, kl) || strstr(k, key) != NULL : !strcmp(k, key))
            return 1;
    return 0;
}

int vs_catalog_find(vs_gpu_spec *out, const char *name, vs_error *err)
{
    char key[256];
    json_t *gpus = catalog_gpus(), *g;
    size_t i, nsugg = 0;
    vs_buf sugg = VS_BUF_INIT;
    int rc;
    if (!gpus)
        return vs_error_set(err, VS_ENOTFOUND, "the GPU catalogue is unavailable");
    vs_catalog_key(key, sizeof key, name);
    json_array_foreach(gpus, i, g)
    {
        if (entry_matches(i, key, 0)) {
            spec_fill(out, g);
            return 0;
        }
    }
    /* No exact match: name what it may have meant, but never pick for the person
     * ("RTX 6000" may be the RTX 6000 Ada or the older Quadro RTX 6000). */
    json_array_foreach(gpus, i, g)
    {
        if (entry_matches(i, key, 1)) {
            vs_buf_printf(&sugg, "%s%s", nsugg ? ", " : "",
                          json_string_value(json_object_get(g, "name")));
            nsugg++;
        }
    }
    if (nsugg)
        rc = vs_error_set(err, VS_ENOTFOUND, "'%s' is not a catalogue name; did you mean: %s?",
                          name, vs_buf_str(&sugg));
    else
        rc = vs_error_set(err, VS_ENOTFOUND,
                          "'%s' is not in the GPU catalogue (give memory= for a GPU it does not "
                          "know; `gpus` lists the catalogue)",
                          name);
    vs_buf_free(&sugg);
    return rc;
}
