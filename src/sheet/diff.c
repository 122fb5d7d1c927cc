#include "sheet/diff.h"

#include "sheet/derived.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sheet/derived.h"
#include "sheet/sheet.h"
#include "sheet/units.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/pool.h"

static int equal(const json_t *a, const json_t *b)
{
    if (!a)
        a = json_null();
    if (!b)
        b = json_null();
    return json_equal((json_t *)a, (json_t *)b);
}

/* Appends one change; from/to are borrowed (copied here), fields taken. */
static void add(json_t *out, const char *section, const char *change, const char *item,
                const json_t *from, const json_t *to, json_t *fields_take, const char *bytes_key)
{
    json_t *c = json_object();
    if (!c) {
        json_decref(fields_take);
        return;
    }
    json_object_set_new(c, "section", json_string(section));
    json_object_set_new(c, "change", json_string(change));
    json_object_set_new(c, "item", json_string(item));
    json_object_set_new(c, "from", from ? json_deep_copy(from) : json_null());
    json_object_set_new(c, "to", to ? json_deep_copy(to) : json_null());
    json_object_set_new(c, "fields", fields_take ? fields_take : json_array());
    if (bytes_key && from && to) {
        const json_t *fb = json_object_get(from, bytes_key), *tb = json_object_get(to, bytes_key);
        if (json_is_integer(fb) && json_is_integer(tb))
            json_object_set_new(c, "delta_bytes",
                                json_integer(json_integer_value(tb) - json_integer_value(fb)));
    }
    json_array_append_new(out, c);
}

/* The names of the keys whose values differ between two objects. */
static json_t *changed_fields(const json_t *a, const json_t *b)
{
    json_t *f = json_array();
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)a, k, v)
    {
        if (k[0] != '_' && !equal(v, json_object_get(b, k)))
            json_array_append_new(f, json_string(k));
    }
    json_object_foreach((json_t *)b, k, v)
    {
        if (k[0] != '_' && !json_object_get(a, k))
            json_array_append_new(f, json_string(k));
    }
    return f;
}

static void scalar_change(json_t *out, const char *section, const char *item, const json_t *a,
                          const json_t *b)
{
    if (equal(a, b))
        return;
    add(out, section,
        json_is_null(a) || !a   ? "added"
        : json_is_null(b) || !b ? "removed"
                                : "changed",
        item, a, b, NULL, NULL);
}

typedef void (*key_fn)(const json_t *item, char *out, size_t len);

static void key_name(const json_t *x, char *out, size_t len)
{
    snprintf(out, len, "%s", vs_json_str_of(x, "name") ? vs_json_str_of(x, "name") : "?");
}

static void key_run(const json_t *x, char *out, size_t len)
{
    snprintf(out, len, "%s", vs_json_str_of(x, "id") ? vs_json_str_of(x, "id") : "?");
}

static void key_evidence(const json_t *x, char *out, size_t len)
{
    snprintf(out, len, "%s / %s",
             vs_json_str_of(x, "candidate") ? vs_json_str_of(x, "candidate") : "?",
             vs_json_str_of(x, "requirement") ? vs_json_str_of(x, "requirement") : "?");
}

static void key_measurement(const json_t *x, char *out, size_t len)
{
    const json_t *g = json_object_get(x, "gpu");
    char gpu[32] = "";
    if (json_is_integer(g))
        snprintf(gpu, sizeof gpu, " gpu %" JSON_INTEGER_FORMAT, json_integer_value(g));
    snprintf(out, len, "%s%s%s%s %s", vs_json_str_of(x, "phase") ? vs_json_str_of(x, "phase") : "?",
             gpu, vs_json_str_of(x, "stage") ? " stage " : "",
             vs_json_str_of(x, "stage") ? vs_json_str_of(x, "stage") : "",
             vs_json_str_of(x, "counter") ? vs_json_str_of(x, "counter") : "?");
    if (vs_json_str_of(x, "run")) {
        size_t n = strlen(out);
        snprintf(out + n, len > n ? len - n : 0, " (run %s)", vs_json_str_of(x, "run"));
    }
}

static void key_string(const json_t *x, char *out, size_t len)
{
    if (json_is_string(x))
        snprintf(out, len, "%s", json_string_value(x));
    else
        key_name(x, out, len);
}

static void key_oom(const json_t *x, char *out, size_t len)
{
    snprintf(out, len, "%s", vs_json_str_of(x, "phase") ? vs_json_str_of(x, "phase") : "?");
}

/* Matches items of a and b by key (each used once, in order). */
static void keyed(json_t *out, const char *section, const json_t *a, const json_t *b, key_fn kf,
                  const char *bytes_key)
{
    size_t na = json_array_size(a), nb = json_array_size(b), i, j;
    char *used = calloc(nb + 1, 1);
    char ka[512], kb[512];
    if (!used)
        return;
    for (i = 0; i < na; i++) {
        const json_t *x = json_array_get(a, i);
        int found = 0;
        kf(x, ka, sizeof ka);
        for (j = 0; j < nb && !found; j++) {
            const json_t *y = json_array_get(b, j);
            if (used[j])
                continue;
            kf(y, kb, sizeof kb);
            if (strcmp(ka, kb))
                continue;
            used[j] = 1;
            found = 1;
            if (!equal(x, y)) {
                if (json_is_object(x) && json_is_object(y))
                    add(out, section, "changed", ka, x, y, changed_fields(x, y), bytes_key);
                else
                    add(out, section, "changed", ka, x, y, NULL, NULL);
            }
        }
        if (!found)
            add(out, section, "removed", ka, x, NULL, NULL, NULL);
    }
    for (j = 0; j < nb; j++) {
        if (!used[j]) {
            kf(json_array_get(b, j), kb, sizeof kb);
            add(out, section, "added", kb, NULL, json_array_get(b, j), NULL, NULL);
        }
    }
    free(used);
}

/* An object-valued item: the fields that changed, or added/removed whole. */
static void object_change(json_t *out, const char *section, const char *item, const json_t *a,
                          const json_t *b, const char *bytes_key)
{
    if (equal(a, b))
        return;
    if (json_is_object(a) && json_is_object(b))
        add(out, section, "changed", item, a, b, changed_fields(a, b), bytes_key);
    else
        scalar_change(out, section, item, a, b);
}

/* Every key of a and b, each once: a's order (the canonical layout's), then the
 * keys only b has, so that a field the layout gains is never missed. */
static void each_key(const json_t *a, const json_t *b, const char *const *skip,
                     void (*fn)(void *ctx, const char *key), void *ctx)
{
    const char *k;
    json_t *v;
    size_t i;
    for (int side = 0; side < 2; side++) {
        json_object_foreach((json_t *)(side ? b : a), k, v)
        {
            int skipped = k[0] == '_' || (side && json_object_get(a, k));
            for (i = 0; skip && skip[i] && !skipped; i++)
                skipped = !strcmp(k, skip[i]);
            if (!skipped)
                fn(ctx, k);
        }
    }
}

typedef struct {
    json_t *out;
    const char *section;
    const json_t *a, *b;
} field_walk;

static void field_change(void *ctx, const char *key)
{
    field_walk *w = ctx;
    object_change(w->out, w->section, key, json_object_get(w->a, key), json_object_get(w->b, key),
                  NULL);
}

json_t *vs_diff_changes(const json_t *a, const json_t *b)
{
    /* the sections below, compared item by item; every other key of the
     * record, now or later, is compared whole in "sheet" */
    static const char *const sections[] = {"card",         "weights_files",
                                           "components",   "placement",
                                           "stages",       "runs",
                                           "measurements", "offers",
                                           "requirements", "evidence",
                                           "oom",          "decision",
                                           "invalidate",   NULL};
    json_t *out = json_array();
    const json_t *ca = vs_sheet_card(a), *cb = vs_sheet_card(b);
    field_walk w;
    if (!out)
        return NULL;
    w.out = out;
    w.section = "sheet";
    w.a = a;
    w.b = b;
    each_key(a, b, sections, field_change, &w);
    /* every field of the card: the engine and its keys, the generation dims, the
     * architecture, and any the card gains */
    w.section = "card";
    w.a = ca;
    w.b = cb;
    each_key(ca, cb, NULL, field_change, &w);
    object_change(out, "weights", "weights files", vs_sheet_get(a, VS_SK_WEIGHTS_FILES),
                  vs_sheet_get(b, VS_SK_WEIGHTS_FILES), "bytes");
    keyed(out, "components", vs_sheet_array(a, VS_SK_COMPONENTS),
          vs_sheet_array(b, VS_SK_COMPONENTS), key_name, "bytes");
    object_change(out, "placement", "placement", vs_sheet_get(a, VS_SK_PLACEMENT),
                  vs_sheet_get(b, VS_SK_PLACEMENT), NULL);
    keyed(out, "stages", vs_sheet_array(a, VS_SK_STAGES), vs_sheet_array(b, VS_SK_STAGES), key_name,
          NULL);
    keyed(out, "runs", vs_sheet_array(a, VS_SK_RUNS), vs_sheet_array(b, VS_SK_RUNS), key_run, NULL);
    keyed(out, "measurements", vs_sheet_array(a, VS_SK_MEASUREMENTS),
          vs_sheet_array(b, VS_SK_MEASUREMENTS), key_measurement, "peak_bytes");
    keyed(out, "offers", vs_sheet_array(a, VS_SK_OFFERS), vs_sheet_array(b, VS_SK_OFFERS), key_name,
          "memory_bytes");
    keyed(out, "requirements", vs_sheet_array(a, VS_SK_REQUIREMENTS),
          vs_sheet_array(b, VS_SK_REQUIREMENTS), key_name, NULL);
    keyed(out, "evidence", vs_sheet_array(a, VS_SK_EVIDENCE), vs_sheet_array(b, VS_SK_EVIDENCE),
          key_evidence, NULL);
    keyed(out, "oom", vs_sheet_array(a, VS_SK_OOM), vs_sheet_array(b, VS_SK_OOM), key_oom, NULL);
    scalar_change(out, "decision", "decision", vs_sheet_get(a, VS_SK_DECISION),
                  vs_sheet_get(b, VS_SK_DECISION));
    keyed(out, "invalidating conditions", vs_sheet_array(a, VS_SK_INVALIDATE),
          vs_sheet_array(b, VS_SK_INVALIDATE), key_string, NULL);
    return out;
}

/* --- one change at a time --- */

static const char *const axis_names[VS_AXIS_COUNT] = {
    "model", "format", "length", "concurrency", "microbatch", "placement", "engine", "offers"};

const char *vs_diff_axis_name(unsigned i)
{
    return i < VS_AXIS_COUNT ? axis_names[i] : NULL;
}

static int keys_differ(const json_t *a, const json_t *b, const char *const *keys)
{
    size_t i;
    for (i = 0; keys[i]; i++)
        if (!equal(json_object_get(a, keys[i]), json_object_get(b, keys[i])))
            return 1;
    return 0;
}

unsigned vs_diff_axes(const json_t *a, const json_t *b)
{
    static const char *const model[] = {"model", "revision", "params", "arch", NULL};
    static const char *const format[] = {"format", "bits", NULL};
    static const char *const length[] = {"length", NULL};
    static const char *const concurrency[] = {"concurrency", NULL};
    static const char *const microbatch[] = {"microbatch", "accumulation", NULL};
    static const char *const engine[] = {"engine", NULL};
    const json_t *ca = vs_sheet_card(a), *cb = vs_sheet_card(b);
    unsigned axes = 0;
    if (keys_differ(ca, cb, model))
        axes |= VS_AXIS_MODEL;
    if (keys_differ(ca, cb, format))
        axes |= VS_AXIS_FORMAT;
    if (keys_differ(ca, cb, length))
        axes |= VS_AXIS_LENGTH;
    if (keys_differ(ca, cb, concurrency))
        axes |= VS_AXIS_CONCURRENCY;
    if (keys_differ(ca, cb, microbatch))
        axes |= VS_AXIS_MICROBATCH;
    if (!equal(vs_sheet_get(a, VS_SK_PLACEMENT), vs_sheet_get(b, VS_SK_PLACEMENT)))
        axes |= VS_AXIS_PLACEMENT;
    if (keys_differ(ca, cb, engine) || keys_differ(a, b, engine))
        axes |= VS_AXIS_ENGINE;
    if (!equal(vs_sheet_get(a, VS_SK_OFFERS), vs_sheet_get(b, VS_SK_OFFERS)))
        axes |= VS_AXIS_OFFERS;
    return axes;
}

int vs_diff_axes_warning(unsigned axes, vs_buf *out)
{
    unsigned i, n = 0, k = 0;
    for (i = 0; i < VS_AXIS_COUNT; i++)
        n += (axes >> i) & 1u;
    if (n < 2)
        return 0;
    vs_buf_puts(out, "this revision changes ");
    for (i = 0; i < VS_AXIS_COUNT; i++) {
        if (!((axes >> i) & 1u))
            continue;
        k++;
        if (k > 1)
            vs_buf_puts(out, k == n ? " and " : ", ");
        vs_buf_puts(out, axis_names[i]);
    }
    vs_buf_puts(out, " together; compare one change at a time");
    return 1;
}
