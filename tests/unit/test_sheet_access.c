/* sheet/sheet_access: the key tables (sheet/sheet_keys.def) against the
 * record's JSON Schema (records/sheet.schema.json), the layout's one
 * description, read here with jansson: the same keys in the same order, so a
 * property added to one and not the other fails here, and so does a key the
 * schema leaves without a description. Then the accessors on a sheet built
 * key by key in the test. */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "sheet/sheet.h"
#include "sheet/sheet_access.h"
#include "util/error.h"

#include "check_run.h"

#ifndef VS_SOURCE_DIR
#define VS_SOURCE_DIR "."
#endif

static json_t *schema(void)
{
    char path[1024];
    json_error_t e;
    json_t *j;
    snprintf(path, sizeof path, "%s/records/sheet.schema.json", VS_SOURCE_DIR);
    j = json_load_file(path, JSON_PRESERVE_ORDER, &e);
    ck_assert_msg(j != NULL, "%s: %s", path, e.text);
    return j;
}

/* The "properties" of an object schema, or of the object branch of a oneOf
 * (a field that may be null). */
static json_t *props_of(json_t *s)
{
    json_t *p = json_object_get(s, "properties"), *alt;
    size_t i;
    if (p)
        return p;
    json_array_foreach(json_object_get(s, "oneOf"), i, alt) if ((p = props_of(alt))) return p;
    return NULL;
}

static void same_keys(json_t *props, const char *const *names, size_t n, const char *what)
{
    const char *k;
    json_t *v;
    size_t i = 0;
    ck_assert_msg(json_is_object(props), "%s: no properties in the schema", what);
    json_object_foreach(props, k, v)
    {
        ck_assert_msg(i < n, "%s: the schema's \"%s\" is not in sheet_keys.def", what, k);
        ck_assert_msg(!strcmp(names[i], k),
                      "%s: key %zu is \"%s\" in sheet_keys.def, \"%s\" in the schema", what, i,
                      names[i], k);
        i++;
    }
    ck_assert_msg(i == n, "%s: sheet_keys.def has %zu keys, the schema %zu", what, n, i);
}

/* Calls check on each of the five key sets sheet_keys.def names, with the
 * schema's properties of that object. */
static void each_key_set(void (*check)(json_t *props, const char *const *names, size_t n,
                                       const char *what))
{
    json_t *s = schema(), *top = json_object_get(s, "properties");
    json_t *card = props_of(json_object_get(top, "card"));
    check(top, vs_sheet_key_names, VS_SK_COUNT, "sheet");
    check(card, vs_sheet_card_key_names, VS_CK_COUNT, "card");
    check(props_of(json_object_get(card, "engine")), vs_sheet_engine_key_names, VS_EK_COUNT,
          "card.engine");
    check(props_of(json_object_get(top, "placement")), vs_sheet_placement_key_names, VS_PK_COUNT,
          "placement");
    check(props_of(json_object_get(json_object_get(top, "components"), "items")),
          vs_sheet_component_key_names, VS_COMPK_COUNT, "components[]");
    json_decref(s);
}

START_TEST(tables_are_the_schema)
{
    each_key_set(same_keys);
}
END_TEST

/* Every key the code names has its description in the schema, which is where
 * the layout is described (sheet.h points there): what it holds and its unit. */
static void described(json_t *props, const char *const *names, size_t n, const char *what)
{
    size_t i;
    for (i = 0; i < n; i++) {
        const char *d =
            json_string_value(json_object_get(json_object_get(props, names[i]), "description"));
        ck_assert_msg(d && strlen(d) > 10, "%s: the schema's \"%s\" has no description", what,
                      names[i]);
    }
}

START_TEST(every_key_is_described)
{
    each_key_set(described);
}
END_TEST

START_TEST(accessors_read_and_write_the_layout)
{
    json_t *s = json_object(), *c;
    ck_assert_ptr_null(vs_sheet_card_get(s, VS_CK_TASK));
    ck_assert_int_eq(vs_sheet_card_set(s, VS_CK_TASK, json_string("inference")), VS_EVALUE);
    ck_assert_ptr_null(vs_sheet_engine_name(s));
    ck_assert_int_eq(vs_sheet_set(s, VS_SK_ID, json_string("a-b")), 0);
    ck_assert_str_eq(json_string_value(json_object_get(s, "id")), "a-b");
    ck_assert_str_eq(vs_sheet_get_str(s, VS_SK_ID), "a-b");
    ck_assert_int_eq(vs_sheet_set(s, VS_SK_CARD, json_object()), 0);
    ck_assert_int_eq(vs_sheet_card_set(s, VS_CK_TASK, json_string("lora")), 0);
    ck_assert_int_eq(vs_sheet_card_set(s, VS_CK_LENGTH, json_integer(4096)), 0);
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(s, "card"), "task")),
                     "lora");
    ck_assert_str_eq(vs_sheet_card_str(s, VS_CK_TASK), "lora");
    ck_assert_ptr_null(vs_sheet_card_str(s, VS_CK_LENGTH)); /* an integer, not a string */
    ck_assert_int_eq(json_integer_value(vs_sheet_card_get(s, VS_CK_LENGTH)), 4096);
    json_object_set_new(
        json_object_get(s, "card"), "engine",
        json_pack("{s:s, s:{s:s}}", "name", "vllm", "keys", "gpu_memory_utilization", "0.9"));
    ck_assert_str_eq(vs_sheet_engine_name(s), "vllm");
    ck_assert_str_eq(json_string_value(json_object_get(vs_sheet_engine_get(s, VS_EK_KEYS),
                                                       "gpu_memory_utilization")),
                     "0.9");
    json_object_set_new(s, "placement", json_pack("{s:s, s:i}", "kind", "tensor", "gpus", 2));
    ck_assert_str_eq(vs_sheet_placement_str(s, VS_PK_KIND), "tensor");
    ck_assert_int_eq(json_integer_value(vs_sheet_placement_get(s, VS_PK_GPUS)), 2);
    ck_assert_ptr_null(vs_sheet_placement_get(s, VS_PK_OFFLOAD));
    c = json_pack("{s:s, s:I, s:s}", "name", "kv", "bytes", (json_int_t)17179869184LL, "status",
                  "estimated");
    ck_assert_str_eq(json_string_value(vs_sheet_component_get(c, VS_COMPK_STATUS)), "estimated");
    ck_assert_int_eq(json_integer_value(vs_sheet_component_get(c, VS_COMPK_BYTES)), 17179869184LL);
    ck_assert_ptr_null(vs_sheet_component_get(c, VS_COMPK_SOURCE));
    json_decref(c);
    json_decref(s);
}
END_TEST

/* A new sheet holds every key the schema requires, at the top level and on
 * the card, and the accessors reach each one by its enum. */
static void has_required(const json_t *required, const char *const *names, size_t n,
                         json_t *(*get)(const json_t *, size_t), const json_t *sheet)
{
    size_t i, j;
    json_t *r;
    ck_assert_msg(json_array_size(required) > 0, "the schema requires nothing");
    json_array_foreach(required, i, r)
    {
        for (j = 0; j < n && strcmp(names[j], json_string_value(r)) != 0; j++)
            ;
        ck_assert_msg(j < n, "required \"%s\" has no enum", json_string_value(r));
        ck_assert_msg(get(sheet, j) != NULL, "a new sheet has no \"%s\"", names[j]);
    }
}

static json_t *top_at(const json_t *sheet, size_t i)
{
    return vs_sheet_get(sheet, (vs_sheet_key)i);
}

static json_t *card_at(const json_t *sheet, size_t i)
{
    return vs_sheet_card_get(sheet, (vs_card_key)i);
}

START_TEST(new_sheet_has_every_required_key)
{
    json_t *sc = schema(), *s = vs_sheet_new("Keys");
    json_t *card = json_object_get(json_object_get(sc, "properties"), "card");
    has_required(json_object_get(sc, "required"), vs_sheet_key_names, VS_SK_COUNT, top_at, s);
    has_required(json_object_get(card, "required"), vs_sheet_card_key_names, VS_CK_COUNT, card_at,
                 s);
    json_decref(s);
    json_decref(sc);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("sheet_access");
    TCase *tc = tcase_create("keys");
    tcase_add_test(tc, tables_are_the_schema);
    tcase_add_test(tc, every_key_is_described);
    tcase_add_test(tc, accessors_read_and_write_the_layout);
    tcase_add_test(tc, new_sheet_has_every_required_key);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return vs_check_run(suite());
}
