/* sheet/diff: every field the record has is named by `diff`, with its old and new
 * value. The fields come from the record's JSON Schema (records/sheet.schema.json),
 * walked here; the base record is the worked example of records/examples/. Each
 * field is changed in turn in a copy, and the change list must hold it. */
#include <check.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "render/bundle.h"
#include "render/diff.h"
#include "sheet/diff.h"

#ifndef VS_SOURCE_DIR
#define VS_SOURCE_DIR "."
#endif

static json_t *load(const char *rel)
{
    char path[1024];
    json_error_t e;
    json_t *j;
    snprintf(path, sizeof path, "%s/%s", VS_SOURCE_DIR, rel);
    j = json_load_file(path, 0, &e);
    ck_assert_msg(j != NULL, "%s: %s", path, e.text);
    return j;
}

static int type_has(const json_t *prop, const char *t)
{
    const json_t *ty = json_object_get(prop, "type"), *x;
    size_t i;
    const char *ref = json_string_value(json_object_get(prop, "$ref"));
    if (ref && (strstr(ref, "bytes") || strstr(ref, "count")))
        return !strcmp(t, "integer");
    if (json_is_string(ty))
        return !strcmp(json_string_value(ty), t);
    json_array_foreach(ty, i, x) if (!strcmp(json_string_value(x), t)) return 1;
    return 0;
}

/* A value of the field's type that differs from old (a new reference). */
static json_t *changed_value(const json_t *prop, const json_t *old)
{
    if (type_has(prop, "array")) {
        json_t *arr = json_is_array(old) ? json_deep_copy(old) : json_array();
        const json_t *items = json_object_get(prop, "items");
        if (type_has(items, "string"))
            json_array_append_new(arr, json_string("added by the test"));
        else
            json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:s}", "name", "added-by-test",
                                                 "id", "added-by-test", "condition", "x",
                                                 "requirement", "added-by-test"));
        return arr;
    }
    if (type_has(prop, "integer") || type_has(prop, "number"))
        return json_integer(json_is_integer(old) ? json_integer_value(old) + 12345 : 12345);
    if (type_has(prop, "boolean"))
        return json_boolean(!json_is_true(old));
    if (type_has(prop, "string"))
        return json_string("changed by the test");
    /* an object, or a field the schema leaves open (lineage, arch, engine) */
    return json_pack("{s:s}", "changed_by", "the test");
}

/* 1 when some change names key with old and new: as its item (from/to the
 * values), as one of its fields (from/to objects holding them), or as an array
 * element added. */
static int names_change(const json_t *changes, const char *key, const json_t *old,
                        const json_t *new_, const json_t *parent_new)
{
    const json_t *c;
    size_t i;
    json_array_foreach(changes, i, c)
    {
        const json_t *from = json_object_get(c, "from"), *to = json_object_get(c, "to");
        const json_t *fields = json_object_get(c, "fields"), *f;
        const char *item = json_string_value(json_object_get(c, "item"));
        size_t j;
        char spelled[64]; /* an item is the key as a person reads it: "weights files" */
        snprintf(spelled, sizeof spelled, "%s", key);
        for (j = 0; spelled[j]; j++)
            if (spelled[j] == '_')
                spelled[j] = ' ';
        if (item && (!strcmp(item, key) || !strcmp(item, spelled)) &&
            json_equal((json_t *)to, (json_t *)new_) &&
            (!old || json_is_null(old) || json_equal((json_t *)from, (json_t *)old)))
            return 1;
        json_array_foreach(fields, j, f)
        {
            if (!strcmp(json_string_value(f), key) &&
                json_equal(json_object_get(to, key), (json_t *)new_) &&
                (!old || json_equal(json_object_get(from, key), (json_t *)old)))
                return 1;
        }
        /* an element added to an array */
        if (json_is_array(new_) && json_array_size(new_) &&
            !strcmp(json_string_value(json_object_get(c, "change")), "added") &&
            json_equal((json_t *)to, json_array_get(new_, json_array_size(new_) - 1)))
            return 1;
    }
    (void)parent_new;
    return 0;
}

/* Changes each property of schema_props, in object at path (NULL: the sheet). */
static void walk(const json_t *base, const json_t *schema_props, const char *at, int *checked)
{
    const char *key;
    json_t *prop;
    json_object_foreach((json_t *)schema_props, key, prop)
    {
        json_t *b = json_deep_copy(base), *changes;
        json_t *holder = at ? json_object_get(b, at) : b;
        json_t *old, *new_;
        if (!strcmp(key, "schema") || !strcmp(key, "id") || (!at && !strcmp(key, "card"))) {
            /* the record's identity (another id is another sheet, never a diff);
             * the card is walked field by field */
            json_decref(b);
            continue;
        }
        ck_assert_msg(json_is_object(holder), "%s is not an object in the example", at);
        old = json_deep_copy(json_object_get(holder, key)); /* set below frees it */
        new_ = changed_value(prop, old);
        ck_assert_ptr_nonnull(new_);
        json_object_set(holder, key, new_);
        changes = vs_diff_changes(base, b);
        ck_assert_ptr_nonnull(changes);
        ck_assert_msg(names_change(changes, key, old, new_, holder),
                      "diff does not name %s%s%s with its old and new value: %s", at ? at : "",
                      at ? "." : "", key, json_dumps(changes, JSON_COMPACT));
        (*checked)++;
        json_decref(new_);
        json_decref(old);
        json_decref(changes);
        json_decref(b);
    }
}

START_TEST(every_field_of_the_schema_is_named)
{
    json_t *schema = load("records/sheet.schema.json");
    json_t *base = load("records/examples/seed-7b-inference/sheet.json");
    const json_t *props = json_object_get(schema, "properties");
    int checked = 0;
    walk(base, props, NULL, &checked);
    walk(base, json_object_get(json_object_get(props, "card"), "properties"), "card", &checked);
    if (json_is_object(json_object_get(base, "placement")))
        walk(base, json_object_get(json_object_get(props, "placement"), "properties"), "placement",
             &checked);
    /* every property but schema, id and card itself, of the sheet and of its card: counted from
     * the schema itself, so a field added there is checked here too */
    ck_assert_int_ge(checked, (int)json_object_size(props) - 3 +
                                  (int)json_object_size(json_object_get(
                                      json_object_get(props, "card"), "properties")));
    json_decref(schema);
    json_decref(base);
}
END_TEST

/* The engine's keys decide the KV cache: a cache type switched from f16 to q8_0
 * is a change that `diff` shows, in its table as in its payload. */
/* Each executed dim the schema names for a measurement (length ... width,
 * height, frames, batch), changed in a copy, is a change `diff` shows: a run at
 * 512 x 512 and one at 1024 x 1024 are different records. */
START_TEST(every_measurement_dim_is_a_change)
{
    json_t *schema = load("records/sheet.schema.json");
    json_t *base = load("records/examples/seed-7b-inference/sheet.json");
    const json_t *dims = json_object_get(
        json_object_get(
            json_object_get(json_object_get(json_object_get(json_object_get(schema, "properties"),
                                                            "measurements"),
                                            "items"),
                            "properties"),
            "dims"),
        "properties");
    const char *key;
    json_t *prop;
    int n = 0;
    ck_assert_ptr_nonnull(json_object_get(dims, "width"));
    json_object_foreach((json_t *)dims, key, prop)
    {
        json_t *a = json_deep_copy(base), *b, *changes, *m;
        char *dump;
        (void)prop;
        m = json_pack("{s:s, s:s, s:i, s:n, s:s, s:s, s:I, s:{s:i}, s:n, s:n, s:n, s:b, s:s, "
                      "s:s}",
                      "run", "m1", "phase", "decode", "gpu", 0, "gpu_name", "counter", "c", "scope",
                      "device", "peak_bytes", (json_int_t)1000, "dims", key, 512, "stage", "host",
                      "rank", "validates_card", 0, "state", "ok", "time", "2026-01-01T00:00:00Z");
        json_object_set_new(a, "measurements", json_pack("[o]", m));
        b = json_deep_copy(a);
        json_object_set_new(
            json_object_get(json_array_get(json_object_get(b, "measurements"), 0), "dims"), key,
            json_integer(1024));
        changes = vs_diff_changes(a, b);
        ck_assert_ptr_nonnull(changes);
        dump = json_dumps(changes, JSON_COMPACT);
        ck_assert_msg(json_array_size(changes) > 0 && strstr(dump, "measurements"),
                      "diff does not show the measurement's %s 512 -> 1024: %s", key, dump);
        free(dump);
        json_decref(changes);
        json_decref(a);
        json_decref(b);
        n++;
    }
    ck_assert_int_eq(n, 7);
    json_decref(schema);
    json_decref(base);
}
END_TEST

START_TEST(engine_keys_are_a_change)
{
    json_t *a = load("records/examples/seed-7b-inference/sheet.json"), *b, *changes, *bj;
    json_t *card = json_object_get(a, "card");
    vs_bundle *bundle;
    const char *text;
    json_object_set_new(card, "engine",
                        json_pack("{s:s, s:{s:s, s:s}}", "name", "llamacpp", "keys", "cache_type_k",
                                  "f16", "cache_type_v", "f16"));
    b = json_deep_copy(a);
    json_object_set_new(
        json_object_get(json_object_get(json_object_get(b, "card"), "engine"), "keys"),
        "cache_type_k", json_string("q8_0"));
    changes = vs_diff_changes(a, b);
    ck_assert_int_eq(json_array_size(changes), 1);
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(changes, 0), "item")),
                     "engine");
    bundle = vs_diff_bundle(a, b, "s@~1", "s@~0", NULL);
    bj = vs_bundle_to_json(bundle);
    text = json_string_value(json_object_get(bj, "text/plain"));
    ck_assert_ptr_null(strstr(text, "No difference"));
    ck_assert_ptr_nonnull(strstr(text, "engine"));
    ck_assert_ptr_nonnull(strstr(text, "q8_0"));
    json_decref(bj);
    vs_bundle_free(bundle);
    json_decref(changes);
    json_decref(a);
    json_decref(b);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("diff");
    TCase *tc = tcase_create("diff");
    SRunner *sr;
    int failed;
    tcase_add_test(tc, every_field_of_the_schema_is_named);
    tcase_add_test(tc, engine_keys_are_a_change);
    tcase_add_test(tc, every_measurement_dim_is_a_change);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
