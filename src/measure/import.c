/* import.c — the table of importers and what they share: the merge of
 * measurements, exact decimal figures, units, the printed text kept. */
#include "measure/import.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/utf8.h"

#define VS_IMPORTER(sym, word, structured) extern const vs_importer vs_import_##sym;
#include "measure/importers.def"
#undef VS_IMPORTER

/* The rows of importers.def, with whether format=auto asks them first. */
static const struct {
    const vs_importer *imp;
    int structured;
} importers[] = {
#define VS_IMPORTER(sym, word, structured) {&vs_import_##sym, structured},
#include "measure/importers.def"
#undef VS_IMPORTER
};
#define NIMPORTERS (sizeof importers / sizeof importers[0])

const vs_importer *vs_importer_at(size_t i)
{
    return i < NIMPORTERS ? importers[i].imp : NULL;
}

const vs_importer *vs_importer_find(const char *name)
{
    size_t i;
    for (i = 0; name && i < NIMPORTERS; i++)
        if (!strcmp(importers[i].imp->name, name))
            return importers[i].imp;
    return NULL;
}

/* The structured formats first (a probe line and a torch dump are
 * unmistakable; a log line may quote them), then the logs. */
const vs_importer *vs_importer_sniff(const char *line, size_t n)
{
    size_t i;
    int pass;
    for (pass = 1; pass >= 0; pass--)
        for (i = 0; i < NIMPORTERS; i++)
            if (importers[i].structured == pass && importers[i].imp->sniff(line, n))
                return importers[i].imp;
    return NULL;
}

const char *vs_importer_names(void)
{
    /* the words of the rows, joined at compile time */
    static const char names[] = ""
#define VS_IMPORTER(sym, word, structured) "|" word
#include "measure/importers.def"
#undef VS_IMPORTER
        ;
    return names + 1;
}

int vs_import_init(vs_import *im)
{
    memset(im, 0, sizeof *im);
    vs_buf_init(&im->key);
    im->runs = json_object();
    im->items = json_array();
    im->where = json_object();
    if (!im->runs || !im->items || !im->where) {
        vs_import_clear(im);
        return VS_ENOMEM;
    }
    return 0;
}

void vs_import_clear(vs_import *im)
{
    json_decref(im->runs);
    json_decref(im->items);
    json_decref(im->where);
    vs_buf_free(&im->key);
    im->runs = im->items = im->where = NULL;
}

int vs_import_refuse(vs_import *im, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(im->why, sizeof im->why, fmt, ap);
    va_end(ap);
    return VS_IMPORT_REFUSED;
}

json_t *vs_import_run(vs_import *im, const char *key)
{
    json_t *r = json_object_get(im->runs, key);
    if (r)
        return r;
    r = json_pack("{s:n, s:n, s:n, s:n, s:I, s:n, s:n, s:[]}", "command", "started", "exit_status",
                  "overflow_phase", "elapsed_ms", (json_int_t)0, "driver", "nvml", "gpus");
    if (!r || json_object_set_new(im->runs, key, r) < 0)
        return NULL;
    /* a probe run's exit status is 0 until an end line says otherwise; a log's
     * run is marked (a runtime key: the record never holds it) */
    if (!im->run_key)
        json_object_set_new(r, "exit_status", json_integer(0));
    else
        json_object_set_new(r, "_log", json_true());
    return r;
}

/* The larger of two measurements of one key: bytes, else the count. */
static int larger(const json_t *a, const json_t *b)
{
    json_t *pa = json_object_get(a, "peak_bytes"), *pb = json_object_get(b, "peak_bytes");
    if (json_is_integer(pa) || json_is_integer(pb))
        return json_integer_value(pa) > json_integer_value(pb);
    return json_number_value(json_object_get(a, "value")) >
           json_number_value(json_object_get(b, "value"));
}

/* The merge key: phase and counter are names without newlines and the GPU a
 * number (or nothing when unknown), so with the run last it is unambiguous. A
 * probe's ranks on one host merge (each rank's GPU 0 may be another device:
 * the largest is kept); a log's ranks are its workers, kept apart. */
static void put_index(vs_buf *b, int known, unsigned long long v)
{
    char t[24];
    int i = (int)sizeof t;
    if (!known)
        return;
    do {
        t[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v && i > 0);
    vs_buf_append(b, t + i, sizeof t - (size_t)i);
}

static int make_key(vs_import *im, const char *phase, const char *counter, int gpu_known,
                    unsigned long long gpu, int rank_known, unsigned long long rank,
                    const char *run)
{
    vs_buf_reset(&im->key);
    vs_buf_puts(&im->key, phase ? phase : "");
    vs_buf_putc(&im->key, '\n');
    vs_buf_puts(&im->key, counter ? counter : "");
    vs_buf_putc(&im->key, '\n');
    put_index(&im->key, gpu_known, gpu);
    vs_buf_putc(&im->key, '\n');
    put_index(&im->key, im->run_key && rank_known, rank);
    vs_buf_putc(&im->key, '\n');
    vs_buf_puts(&im->key, run);
    return vs_buf_failed(&im->key) ? VS_ENOMEM : 0;
}

/* The measurement kept under the key in im->key, or NULL. */
static json_t *kept(vs_import *im)
{
    json_t *at = json_object_get(im->where, vs_buf_str(&im->key));
    return at ? json_array_get(im->items, (size_t)json_integer_value(at)) : NULL;
}

int vs_import_add(vs_import *im, json_t *m)
{
    json_t *old, *g, *r;
    const char *host = json_string_value(json_object_get(m, "host"));
    const char *run = im->run_key ? im->run_key : host ? host : "";
    if (!m)
        return VS_ENOMEM;
    if (json_object_set_new(m, "_run", json_string(run)) < 0 || !vs_import_run(im, run)) {
        json_decref(m);
        return VS_ENOMEM;
    }
    g = json_object_get(m, "gpu");
    r = json_object_get(m, "rank");
    if (make_key(im, json_string_value(json_object_get(m, "phase")),
                 json_string_value(json_object_get(m, "counter")), json_is_integer(g),
                 json_is_integer(g) ? (unsigned long long)json_integer_value(g) : 0,
                 json_is_integer(r),
                 json_is_integer(r) ? (unsigned long long)json_integer_value(r) : 0, run) < 0) {
        json_decref(m);
        return VS_ENOMEM;
    }
    if ((old = kept(im)) != NULL) {
        json_t *at = json_object_get(im->where, vs_buf_str(&im->key));
        if (!larger(m, old)) {
            json_decref(m);
            return 0;
        }
        return json_array_set_new(im->items, (size_t)json_integer_value(at), m) < 0 ? VS_ENOMEM : 0;
    }
    if (json_object_set_new(im->where, vs_buf_str(&im->key),
                            json_integer((json_int_t)json_array_size(im->items))) < 0 ||
        json_array_append_new(im->items, m) < 0)
        return VS_ENOMEM;
    return 0;
}

/* 1 when a log's figure at at would replace nothing kept (an equal or larger
 * one is there): the object is then never built. */
static int already_covered(vs_import *im, const vs_import_at *at, const char *counter,
                           int64_t bytes, double value, int is_count)
{
    json_t *old;
    const char *run = im->run_key ? im->run_key : "";
    if (make_key(im, at->phase, counter, at->gpu_known, at->gpu, at->rank_known, at->rank, run) <
            0 ||
        !(old = kept(im)))
        return 0;
    if (is_count)
        return json_number_value(json_object_get(old, "value")) >= value;
    return json_integer_value(json_object_get(old, "peak_bytes")) >= bytes;
}

/* The printed text kept with a measurement: printable ASCII, runs of blanks
 * and anything else (terminal colours, bytes beyond ASCII) as one space,
 * trimmed, at most VS_IMPORT_TEXT_MAX bytes. */
static json_t *text_json(const char *s, size_t n)
{
    char out[VS_IMPORT_TEXT_MAX + 1];
    size_t i, o = 0;
    int space = 0;
    for (i = 0; i < n && o < VS_IMPORT_TEXT_MAX; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == 0x1b && i + 1 < n && s[i + 1] == '[') { /* ESC [ ... letter */
            i += 2;
            while (i < n && !((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z')))
                i++;
            space = o > 0;
            continue;
        }
        if (c <= ' ' || c >= 0x7f) {
            space = o > 0;
            continue;
        }
        if (space && o < VS_IMPORT_TEXT_MAX)
            out[o++] = ' ';
        space = 0;
        if (o < VS_IMPORT_TEXT_MAX)
            out[o++] = (char)c;
    }
    out[o] = '\0';
    return json_string(out);
}

static json_t *item_new(const vs_import_at *at, const char *counter, vs_vocab_scope scope,
                        const char *text, size_t text_len)
{
    return json_pack("{s:s, s:o, s:o, s:s, s:s, s:{}, s:n, s:o, s:n, s:o}", "phase", at->phase,
                     "gpu", at->gpu_known ? json_integer(at->gpu) : json_null(), "gpu_name",
                     at->gpu_name ? json_string(at->gpu_name) : json_null(), "counter", counter,
                     "scope", vs_vocab_scope_name(scope), "dims", "host", "rank",
                     at->rank_known ? json_integer(at->rank) : json_null(), "time", "text",
                     text_json(text, text_len));
}

int vs_import_bytes(vs_import *im, const vs_import_at *at, const char *counter,
                    vs_vocab_scope scope, uint64_t bytes, uint64_t resolution, const char *text,
                    size_t text_len)
{
    json_t *m;
    if (already_covered(im, at, counter, (int64_t)bytes, 0, 0))
        return 0;
    if (!(m = item_new(at, counter, scope, text, text_len)))
        return VS_ENOMEM;
    if (json_object_set_new(m, "peak_bytes", json_integer((json_int_t)bytes)) < 0 ||
        json_object_set_new(m, "resolution_bytes", json_integer((json_int_t)resolution)) < 0) {
        json_decref(m);
        return VS_ENOMEM;
    }
    return vs_import_add(im, m);
}

int vs_import_count(vs_import *im, const vs_import_at *at, const char *counter, json_t *value,
                    const char *unit, const char *text, size_t text_len)
{
    json_t *m;
    if (value && already_covered(im, at, counter, 0, json_number_value(value), 1)) {
        json_decref(value);
        return 0;
    }
    m = value ? item_new(at, counter, VS_SCOPE_REPORTED, text, text_len) : NULL;
    if (!m) {
        json_decref(value);
        return VS_ENOMEM;
    }
    if (json_object_set_new(m, "peak_bytes", json_null()) < 0 ||
        json_object_set_new(m, "value", value) < 0 ||
        json_object_set_new(m, "unit", json_string(unit)) < 0) {
        json_decref(m);
        return VS_ENOMEM;
    }
    return vs_import_add(im, m);
}

/* ---------------------------------------------------------------- figures */

static int isd(const char *s, size_t n, size_t i)
{
    return i < n && s[i] >= '0' && s[i] <= '9';
}

/* Reads digits (and one '.') into a decimal mantissa and its count of
 * decimals: at most 18 significant digits, so that mantissa x mult stays in
 * 128 bits. 0, or 1 when there is no such figure. */
static int read_decimal(const char *s, size_t n, int commas, uint64_t *mant, unsigned *decimals,
                        size_t *used)
{
    size_t i = 0, digits = 0;
    int dot = 0;
    uint64_t m = 0;
    unsigned d = 0;
    while (i < n) {
        char c = s[i];
        if (c >= '0' && c <= '9') {
            if (m == 0 && c == '0' && !dot) {
                digits++; /* leading zeros add no significance */
            } else {
                if (m > (UINT64_MAX - 9) / 10 || ++digits > 40)
                    return 1;
                m = m * 10 + (uint64_t)(c - '0');
            }
            if (dot)
                d++;
            i++;
        } else if (c == '.' && !dot && i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9' && digits) {
            dot = 1;
            i++;
        } else if (c == ',' && commas && !dot && digits && isd(s, n, i + 1) && isd(s, n, i + 2) &&
                   isd(s, n, i + 3) && !isd(s, n, i + 4)) {
            i++;
        } else {
            break;
        }
    }
    if (!digits || d > 18)
        return 1;
    *mant = m;
    *decimals = d;
    *used = i;
    return 0;
}

int vs_import_decimal(const char *s, size_t n, uint64_t mult, int commas, uint64_t *bytes,
                      uint64_t *resolution, size_t *used)
{
    uint64_t m;
    unsigned d, k;
    unsigned __int128 den = 1, v;
    if (read_decimal(s, n, commas, &m, &d, used))
        return 1;
    for (k = 0; k < d; k++)
        den *= 10;
    v = ((unsigned __int128)m * mult + den / 2) / den;
    if (v > (unsigned __int128)INT64_MAX)
        return 1;
    *bytes = (uint64_t)v;
    /* half a unit of the last digit: mult / (2 x 10^d), rounded half up */
    *resolution = (uint64_t)(((unsigned __int128)mult + den) / (2 * den));
    return 0;
}

json_t *vs_import_number(const char *s, size_t n, int commas, size_t *used)
{
    uint64_t m;
    unsigned d;
    char digits[64];
    size_t i, o = 0;
    if (read_decimal(s, n, commas, &m, &d, used) || m > (uint64_t)INT64_MAX)
        return NULL;
    if (d == 0)
        return json_integer((json_int_t)m);
    /* the nearest double to the printed decimal: strtod of its digits */
    for (i = 0; i < *used && o + 1 < sizeof digits; i++)
        if (s[i] != ',')
            digits[o++] = s[i];
    digits[o] = '\0';
    return json_real(strtod(digits, NULL));
}

uint64_t vs_import_unit(const char *s, size_t n, size_t *used)
{
    static const struct {
        const char *word;
        uint64_t bytes;
    } units[] = {
        {"GiB", 1ull << 30},      {"MiB", 1ull << 20}, {"KiB", 1ull << 10}, {"TiB", 1ull << 40},
        {"GB", 1000000000ull},    {"MB", 1000000ull},  {"kB", 1000ull},     {"KB", 1000ull},
        {"TB", 1000000000000ull}, {"B", 1ull},
    };
    size_t i;
    for (i = 0; i < sizeof units / sizeof units[0]; i++) {
        size_t l = strlen(units[i].word);
        if (n >= l && !memcmp(s, units[i].word, l) &&
            (n == l || !((s[l] >= 'A' && s[l] <= 'Z') || (s[l] >= 'a' && s[l] <= 'z')))) {
            *used = l;
            return units[i].bytes;
        }
    }
    return 0;
}

int vs_import_figure(const char *s, size_t n, int binary, uint64_t *bytes, uint64_t *resolution,
                     size_t *used)
{
    size_t i = 0, k = 0, u = 0, sp = 0;
    uint64_t mult;
    json_t *num;
    while (i < n && (s[i] == ' ' || s[i] == '=' || s[i] == ':'))
        i++;
    if (!(num = vs_import_number(s + i, n - i, 0, &k))) {
        size_t d = i;
        while (d < n && s[d] >= '0' && s[d] <= '9')
            d++;
        return d > i ? -1 : 1;
    }
    json_decref(num);
    while (i + k + sp < n && s[i + k + sp] == ' ')
        sp++;
    if (!(mult = vs_import_unit(s + i + k + sp, n - i - k - sp, &u)))
        return 1;
    if (binary && u == 2 && s[i + k + sp + 1] == 'B') {
        char c = s[i + k + sp];
        mult = c == 'G'               ? 1ull << 30
               : c == 'M'             ? 1ull << 20
               : c == 'K' || c == 'k' ? 1ull << 10
                                      : mult;
    }
    if (vs_import_decimal(s + i, k, mult, 0, bytes, resolution, &k))
        return -1;
    *used = i + k + sp + u;
    return 0;
}

static char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

const char *vs_import_find(const char *s, size_t n, const char *needle, int ci)
{
    size_t l = strlen(needle), i, j;
    if (l == 0 || l > n)
        return NULL;
    if (!ci) {
        const char *p = s, *end = s + n - l + 1;
        while (p < end && (p = memchr(p, needle[0], (size_t)(end - p))) != NULL) {
            if (!memcmp(p, needle, l))
                return p;
            p++;
        }
        return NULL;
    }
    for (i = 0; i + l <= n; i++) {
        for (j = 0; j < l && lower(s[i + j]) == lower(needle[j]); j++)
            ;
        if (j == l)
            return s + i;
    }
    return NULL;
}

int vs_import_engine_version(vs_import *im, const char *s, size_t n)
{
    size_t k = 0;
    json_t *run;
    char v[VS_IMPORT_VERSION_MAX + 1];
    /* a release as engines print it: "0.9.2", "0.8.5.dev169+gce17db808.d20250423", or
     * llama.cpp's build tag "b6325" */
    if (!im->run_key || !n ||
        ((s[0] < '0' || s[0] > '9') && !(s[0] == 'b' && n > 1 && s[1] >= '0' && s[1] <= '9')))
        return 0;
    while (k < n && k < VS_IMPORT_VERSION_MAX &&
           ((s[k] >= '0' && s[k] <= '9') || (s[k] >= 'a' && s[k] <= 'z') ||
            (s[k] >= 'A' && s[k] <= 'Z') || s[k] == '.' || s[k] == '+' || s[k] == '-' ||
            s[k] == '_'))
        k++;
    while (k > 1 && (s[k - 1] == '.' || s[k - 1] == '-')) /* a sentence's full stop */
        k--;
    memcpy(v, s, k);
    v[k] = '\0';
    if (!(run = vs_import_run(im, im->run_key)) ||
        json_object_set_new(run, "_engine_version", json_string(v)) < 0)
        return VS_ENOMEM;
    return 0;
}

int vs_import_text_valid(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    for (; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return 0;
    return vs_utf8_valid(s, strlen(s));
}
