/* derived.c — derived state against the card: the reads of an estimate, the
 * validation of a measurement, stale measured components, evidence that the
 * card has moved past. See derived.h. */
#include "sheet/derived.h"

#include <stdio.h>
#include <string.h>

#include "sheet/sheet.h"
#include "sheet/units.h"
#include "sheet/vocab.h"
#include "util/json.h"

/* width, height, frames, batch: image and video generation (diffusers pipelines) */
#define card_dims vs_sheet_card_dims
#define NDIMS VS_SHEET_NDIMS
#define DIM(i) vs_sheet_card_key_names[card_dims[i]]

/* ------------------------------------------------------------ reads */

/* "placement.tp": the tensor-parallel ways (1 unless the placement is
 * tensor), what the KV heads per GPU follow; other placement changes (ZeRO,
 * DDP) leave it, and the estimates reading it, alone. A new reference. */
static json_t *tensor_ways(const json_t *sheet)
{
    const json_t *pl = vs_sheet_get(sheet, VS_SK_PLACEMENT);
    const char *k = json_string_value(vs_sheet_placement_field(pl, VS_PK_KIND));
    json_t *g = vs_sheet_placement_field(pl, VS_PK_GPUS);
    return json_integer(k && !strcmp(k, "tensor") && json_is_integer(g) ? json_integer_value(g)
                                                                        : 1);
}

static json_t *value_at(const json_t *sheet, const char *path)
{
    json_t *v;
    if (!strcmp(path, "placement"))
        v = vs_sheet_get(sheet, VS_SK_PLACEMENT);
    else
        v = json_object_get(vs_sheet_card(sheet), path);
    return v ? v : json_null();
}

/* 1 when every key of the comma-separated list is written in keys. */
static int all_written(const char *list, const json_t *keys)
{
    char k[64];
    const char *p = list;
    while (*p) {
        size_t n = strcspn(p, ",");
        if (n == 0 || n >= sizeof k)
            return 0;
        memcpy(k, p, n);
        k[n] = '\0';
        if (!json_object_get(keys, k))
            return 0;
        p += n;
        if (*p == ',')
            p++;
    }
    return 1;
}

json_t *vs_derived_reads(const json_t *sheet, const vs_derived_read *reads, const json_t *keys)
{
    json_t *out = json_object();
    size_t i;
    if (!out)
        return NULL;
    for (i = 0; reads && reads[i].path; i++) {
        if (reads[i].unless && keys && all_written(reads[i].unless, keys))
            continue;
        if (json_object_set_new(out, reads[i].path,
                                !strcmp(reads[i].path, "placement.tp")
                                    ? tensor_ways(sheet)
                                    : json_deep_copy(value_at(sheet, reads[i].path)))) {
            json_decref(out);
            return NULL;
        }
    }
    return out;
}

json_t *vs_derived_reads_now(const json_t *sheet, const json_t *old)
{
    json_t *out = json_object(), *v;
    const char *k;
    if (!out)
        return NULL;
    json_object_foreach((json_t *)old, k, v)
    {
        (void)v;
        if (json_object_set_new(out, k,
                                !strcmp(k, "placement.tp") ? tensor_ways(sheet)
                                                           : json_deep_copy(value_at(sheet, k)))) {
            json_decref(out);
            return NULL;
        }
    }
    return out;
}

/* Equal as reads compare: a key absent on one side reads as null, at any
 * depth (a record's card gains the layout's null keys when it loads, the reads
 * an estimator kept do not). vs_derived_moved and vs_derived_changes both
 * compare through this, so the cheap check and the description agree. */
static int same_value(const json_t *a, const json_t *b)
{
    const char *k;
    json_t *v;
    if (!a)
        a = json_null();
    if (!b)
        b = json_null();
    if (json_is_object(a) && json_is_object(b)) {
        json_object_foreach((json_t *)a, k, v)
        {
            if (!same_value(v, json_object_get(b, k)))
                return 0;
        }
        json_object_foreach((json_t *)b, k, v)
        {
            if (!json_object_get(a, k) && !json_is_null(v))
                return 0;
        }
        return 1;
    }
    return json_equal((json_t *)a, (json_t *)b);
}

int vs_derived_moved(const json_t *sheet, const json_t *reads)
{
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)reads, k, v)
    {
        json_t *now =
            !strcmp(k, "placement.tp") ? tensor_ways(sheet) : json_incref(value_at(sheet, k));
        int moved = !same_value(v, now);
        json_decref(now);
        if (moved)
            return 1;
    }
    return 0;
}

static void put_scalar(vs_buf *out, const json_t *v)
{
    char g[40];
    if (!v || json_is_null(v))
        vs_buf_puts(out, "unset");
    else if (json_is_integer(v) && json_integer_value(v) >= 0) {
        vs_units_grouped(g, sizeof g, (uint64_t)json_integer_value(v));
        vs_buf_puts(out, g);
    } else if (json_is_integer(v))
        vs_buf_printf(out, "%lld", (long long)json_integer_value(v));
    else if (json_is_string(v))
        vs_buf_puts(out, json_string_value(v));
    else if (json_is_true(v))
        vs_buf_puts(out, "yes");
    else if (json_is_false(v))
        vs_buf_puts(out, "no");
    else if (json_is_string(json_object_get(v, "name"))) /* an engine: its name says it */
        vs_buf_puts(out, json_string_value(json_object_get(v, "name")));
    else if (json_is_object(v))
        vs_buf_puts(out, "set");
    else
        vs_buf_puts(out, "a value");
}

static size_t changes_at(const char *prefix, const json_t *old, const json_t *now, vs_buf *out)
{
    size_t n = 0;
    const char *k;
    json_t *v;
    /* a key absent on one side reads as null (a schema-2 key such as placement.offload) */
    if (!old)
        old = json_null();
    if (!now)
        now = json_null();
    if (same_value(old, now))
        return 0;
    if (json_is_object(old) && json_is_object(now)) {
        char p[128];
        /* the model shape's fields read as they are named in the card */
        int bare = !strcmp(prefix, "model shape");
        json_object_foreach((json_t *)old, k, v)
        {
            snprintf(p, sizeof p, "%s%s%s", bare ? "" : prefix, bare ? "" : ".", k);
            n += changes_at(p, v, json_object_get(now, k), out);
        }
        json_object_foreach((json_t *)now, k, v)
        {
            if (json_object_get(old, k))
                continue;
            snprintf(p, sizeof p, "%s%s%s", bare ? "" : prefix, bare ? "" : ".", k);
            n += changes_at(p, json_null(), v, out);
        }
        return n;
    }
    if (out->len)
        vs_buf_puts(out, "; ");
    vs_buf_printf(out, "%s ", prefix);
    put_scalar(out, old);
    vs_buf_puts(out, " \xe2\x86\x92 ");
    put_scalar(out, now);
    return 1;
}

size_t vs_derived_changes(const json_t *old, const json_t *now, vs_buf *out)
{
    size_t n = 0;
    const char *k;
    json_t *v;
    vs_buf local = VS_BUF_INIT;
    json_object_foreach((json_t *)old, k, v)
    {
        json_t *w = json_object_get(now, k);
        n += changes_at(!strcmp(k, "arch") ? "model shape" : k, v, w ? w : json_null(),
                        out ? out : &local);
    }
    vs_buf_free(&local);
    return n;
}

/* ------------------------------------------------------- validation */

static void why_add(vs_buf *why, const char *fmt, long long a, unsigned long long b,
                    const char *dim)
{
    if (!why)
        return;
    if (why->len)
        vs_buf_puts(why, "; ");
    if (a < 0)
        vs_buf_printf(why, fmt, dim, b);
    else
        vs_buf_printf(why, fmt, dim, a, b);
}

int vs_derived_dims_validate(const json_t *sheet, const json_t *dims, vs_buf *why)
{
    int ok = 1, any = 0;
    size_t i;
    for (i = 0; i < NDIMS; i++) {
        uint64_t want;
        json_t *have;
        if (!vs_sheet_card_uint(sheet, card_dims[i], &want))
            continue;
        any = 1;
        have = json_object_get(dims, DIM(i));
        if (!json_is_integer(have)) {
            why_add(why, "%s not reported (the card asks %llu)", -1, (unsigned long long)want,
                    DIM(i));
            ok = 0;
        } else if ((uint64_t)json_integer_value(have) < want) {
            why_add(why, "%s %lld < the card's %llu", (long long)json_integer_value(have),
                    (unsigned long long)want, DIM(i));
            ok = 0;
        }
    }
    if (!any) {
        if (why) {
            if (why->len)
                vs_buf_puts(why, "; ");
            vs_buf_puts(why, "the card declares no length, concurrency, microbatch, resolution, "
                             "frames or batch");
        }
        return 0;
    }
    return ok;
}

int vs_derived_measurement_validates(const json_t *sheet, const json_t *m, vs_buf *why)
{
    int ok = vs_derived_dims_validate(sheet, json_object_get(m, "dims"), why);
    const char *run = vs_json_str_of(m, "run"), *state = vs_json_str_of(m, "state");
    size_t i;
    json_t *r;
    if (state && !strcmp(state, "to re-measure")) {
        /* taken on other hardware or software than this campaign's */
        if (why) {
            if (why->len)
                vs_buf_puts(why, "; ");
            vs_buf_puts(why, "to re-measure on this campaign's hardware and software");
        }
        ok = 0;
    }
    if (!run)
        return ok;
    vs_json_array_foreach(vs_sheet_array(sheet, VS_SK_RUNS), i, r)
    {
        json_t *es = json_object_get(r, "exit_status");
        const char *ov = vs_json_str_of(r, "overflow_phase");
        const char *id = vs_json_str_of(r, "id");
        if (!id || strcmp(id, run) != 0)
            continue;
        if ((json_is_integer(es) && json_integer_value(es) != 0) || ov) {
            if (why) {
                if (why->len)
                    vs_buf_puts(why, "; ");
                vs_buf_printf(why, "run %s did not complete (exit status %lld%s%s)", run,
                              json_is_integer(es) ? (long long)json_integer_value(es) : 0LL,
                              ov ? ", out of memory in phase " : "", ov ? ov : "");
            }
            ok = 0;
        }
        break;
    }
    return ok;
}

size_t vs_sheet_refresh_validation(json_t *sheet)
{
    size_t i, n = 0;
    json_t *m;
    vs_json_array_foreach(vs_sheet_array(sheet, VS_SK_MEASUREMENTS), i, m)
    {
        int now = vs_derived_measurement_validates(sheet, m, NULL);
        json_t *was = json_object_get(m, "validates_card");
        if (json_is_boolean(was) && json_is_true(was) == now)
            continue;
        if (json_object_set_new(m, "validates_card", json_boolean(now)) == 0)
            n++;
    }
    return n;
}

size_t vs_sheet_refresh_derived(json_t *sheet)
{
    return vs_sheet_refresh_validation(sheet);
}

/* ------------------------------------------------ measured components */

/* 1 when text contains needle followed by one of the bytes in ends (or the end). */
static int contains_word(const char *text, const char *needle, const char *ends)
{
    size_t n = strlen(needle);
    const char *p = text;
    while ((p = strstr(p, needle)) != NULL) {
        char c = p[n];
        if (!c || strchr(ends, c))
            return 1;
        p++;
    }
    return 0;
}

const json_t *vs_derived_component_measurement(const json_t *sheet, const json_t *component)
{
    const char *source = vs_sheet_component_str(component, VS_COMPK_SOURCE),
               *phase = vs_sheet_component_str(component, VS_COMPK_PHASE);
    const char *status = vs_sheet_component_str(component, VS_COMPK_STATUS);
    json_t *bytes = vs_sheet_component_get(component, VS_COMPK_BYTES), *m;
    size_t i;
    if (!vs_vocab_status_is(status, VS_STATUS_MEASURED) || !source || !phase ||
        !json_is_integer(bytes) || strncmp(source, "measured: ", 10) != 0)
        return NULL;
    vs_json_array_foreach(vs_sheet_array(sheet, VS_SK_MEASUREMENTS), i, m)
    {
        const char *run = vs_json_str_of(m, "run"), *ph = vs_json_str_of(m, "phase"),
                   *ct = vs_json_str_of(m, "counter");
        char needle[160];
        if (!ph || !ct || strcmp(ph, phase) || !json_equal(json_object_get(m, "peak_bytes"), bytes))
            continue;
        snprintf(needle, sizeof needle, "counter %s", ct);
        if (!contains_word(source, needle, " "))
            continue;
        if (run) {
            snprintf(needle, sizeof needle, "run %s", run);
            if (!contains_word(source, needle, ","))
                continue;
        } else if (!strstr(source, "typed by hand")) {
            continue;
        }
        return m;
    }
    return NULL;
}

int vs_derived_component_stale(const json_t *sheet, const json_t *component, vs_buf *why)
{
    const json_t *m = vs_derived_component_measurement(sheet, component);
    if (!m)
        return 0;
    return !vs_derived_measurement_validates(sheet, m, why);
}

/* ----------------------------------------------------------- evidence */

static void copy_fields(json_t *out, const json_t *sheet, const vs_card_key *fields, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        json_t *v = vs_sheet_card_get(sheet, fields[i]);
        json_object_set_new(out, vs_sheet_card_key_names[fields[i]],
                            v ? json_deep_copy(v) : json_null());
    }
}

json_t *vs_derived_evidence_card(const json_t *sheet, const char *requirement)
{
    static const vs_card_key model_fields[] = {VS_CK_MODEL, VS_CK_REVISION, VS_CK_FORMAT};
    static const vs_card_key wh[] = {VS_CK_WIDTH, VS_CK_HEIGHT};
    json_t *out = json_object();
    size_t i;
    if (!out)
        return NULL;
    for (i = 0; i < NDIMS; i++)
        if (requirement && !strcmp(requirement, DIM(i))) {
            copy_fields(out, sheet, &card_dims[i], 1);
            return out;
        }
    if (requirement && !strcmp(requirement, "resolution")) {
        copy_fields(out, sheet, wh, 2);
        return out;
    }
    copy_fields(out, sheet, model_fields, 3);
    /* memory that fits or is free holds for the whole workload: every dimension */
    if (requirement &&
        (!strcmp(requirement, "capacity") || !strcmp(requirement, "available-memory")))
        copy_fields(out, sheet, card_dims, NDIMS);
    return out;
}

int vs_derived_evidence_moved(const json_t *sheet, const json_t *entry, vs_buf *why)
{
    json_t *then = json_object_get(entry, "card"), *v, *card = vs_sheet_card(sheet);
    const char *k;
    int moved = 0;
    if (!json_is_object(then))
        return 0;
    json_object_foreach(then, k, v)
    {
        json_t *now = json_object_get(card, k);
        size_t d;
        int dim = 0, past;
        if (!now)
            now = json_null();
        for (d = 0; d < NDIMS; d++)
            if (!strcmp(k, DIM(d)))
                dim = 1;
        if (dim && json_is_integer(v) && json_is_integer(now))
            past = json_integer_value(now) > json_integer_value(v);
        else if (dim && json_is_integer(v))
            past = 0; /* the dimension was unset since: nothing asks more */
        else
            past = !json_equal(v, now) && !(json_is_null(v) && json_is_null(now));
        if (!past)
            continue;
        moved = 1;
        if (why) {
            if (why->len)
                vs_buf_puts(why, "; ");
            vs_buf_printf(why, "%s ", k);
            put_scalar(why, v);
            vs_buf_puts(why, " \xe2\x86\x92 ");
            put_scalar(why, now);
        }
    }
    return moved;
}
