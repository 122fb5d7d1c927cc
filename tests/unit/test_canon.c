/* Canonical JSON of a sheet: fixed order, stable text, lossless round trip. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sheet/sheet.h"

#include "check_run.h"

static char *roundtrip(const char *text, vs_error *err)
{
    json_t *s = NULL;
    char *out;
    if (vs_sheet_load(&s, text, strlen(text), err))
        return NULL;
    out = vs_sheet_dump(s);
    json_decref(s);
    return out;
}

static const char *EMPTY_SHEET = "{\n"
                                 "  \"schema\": \"vramsheet/sheet/2\",\n"
                                 "  \"id\": \"seed-7b\",\n"
                                 "  \"title\": \"Seed 7B\",\n"
                                 "  \"lineage\": null,\n"
                                 "  \"card\": {\n"
                                 "    \"model\": null,\n"
                                 "    \"revision\": null,\n"
                                 "    \"params\": null,\n"
                                 "    \"params_source\": null,\n"
                                 "    \"task\": null,\n"
                                 "    \"format\": null,\n"
                                 "    \"bits\": null,\n"
                                 "    \"length\": null,\n"
                                 "    \"concurrency\": null,\n"
                                 "    \"microbatch\": null,\n"
                                 "    \"accumulation\": null,\n"
                                 "    \"width\": null,\n"
                                 "    \"height\": null,\n"
                                 "    \"frames\": null,\n"
                                 "    \"batch\": null,\n"
                                 "    \"quality\": null,\n"
                                 "    \"arch\": null,\n"
                                 "    \"engine\": null\n"
                                 "  },\n"
                                 "  \"weights_files\": null,\n"
                                 "  \"components\": [],\n"
                                 "  \"placement\": {\n"
                                 "    \"kind\": \"single\",\n"
                                 "    \"gpus\": 1,\n"
                                 "    \"stage\": null,\n"
                                 "    \"offload\": null\n"
                                 "  },\n"
                                 "  \"stages\": [],\n"
                                 "  \"offers\": [],\n"
                                 "  \"requirements\": [],\n"
                                 "  \"evidence\": [],\n"
                                 "  \"runs\": [],\n"
                                 "  \"measurements\": [],\n"
                                 "  \"invalidate\": [],\n"
                                 "  \"oom\": [],\n"
                                 "  \"decision\": null\n"
                                 "}\n";

START_TEST(new_sheet_exact_text)
{
    json_t *s = vs_sheet_new("Seed 7B");
    char *d = vs_sheet_dump(s), *d2;
    vs_error err;
    ck_assert_str_eq(d, EMPTY_SHEET);
    d2 = roundtrip(d, &err);
    ck_assert_ptr_nonnull(d2);
    ck_assert_str_eq(d2, d);
    free(d);
    free(d2);
    json_decref(s);
}
END_TEST

START_TEST(key_order_is_the_layout_not_insertion)
{
    /* Same content inserted in another order dumps to the same text. */
    const char *shuffled =
        "{\"decision\": null, \"card\": {\"arch\": null, \"model\": null}, \"id\": \"seed-7b\","
        " \"schema\": \"vramsheet/sheet/1\", \"title\": \"Seed 7B\"}";
    vs_error err;
    char *d = roundtrip(shuffled, &err);
    ck_assert_msg(d != NULL, "%s", err.message);
    ck_assert_str_eq(d, EMPTY_SHEET); /* missing keys get their defaults */
    free(d);
}
END_TEST

START_TEST(one_component_per_line)
{
    json_t *s = vs_sheet_new("Seed 7B");
    vs_error err;
    char *d, *line;
    vs_sheet_set_component(s, "reserve", 1, 6442450944ULL, "estimated", "declared", NULL, NULL,
                           &err);
    vs_sheet_set_component(s, "workspace", 0, 0, "unknown", "attention \"workspace\"", "generate",
                           NULL, &err);
    d = vs_sheet_dump(s);
    line =
        strstr(d, "    {\"name\": \"reserve\", \"bytes\": 6442450944, \"status\": \"estimated\", "
                  "\"source\": \"declared\", \"phase\": null, \"class\": \"other\"},\n");
    ck_assert_msg(line != NULL, "%s", d);
    ck_assert(strstr(d, "    {\"name\": \"workspace\", \"bytes\": null, \"status\": \"unknown\", "
                        "\"source\": \"attention \\\"workspace\\\"\", \"phase\": \"generate\", "
                        "\"class\": \"other\"}\n  ],\n") != NULL);
    free(d);
    json_decref(s);
}
END_TEST

START_TEST(runtime_keys_never_written)
{
    json_t *s = vs_sheet_new("x"), *l = NULL;
    vs_error err;
    char *d;
    json_object_set_new(s, "_runtime", json_string("0123"));
    json_object_set_new(vs_sheet_card(s), "_cache", json_true());
    d = vs_sheet_dump(s);
    ck_assert(strstr(d, "_runtime") == NULL);
    ck_assert(strstr(d, "_cache") == NULL);
    free(d);
    {
        const char *rec = "{\"schema\": \"vramsheet/sheet/1\", \"id\": \"x\", \"_runtime\": \"1\"}";
        ck_assert_int_eq(vs_sheet_load(&l, rec, strlen(rec), &err), 0);
    }
    ck_assert_ptr_null(json_object_get(l, "_runtime"));
    json_decref(l);
    json_decref(s);
}
END_TEST

START_TEST(extra_keys_kept_sorted_and_reals_shortest)
{
    json_t *s = vs_sheet_new("x");
    vs_error err;
    char *d, *d2;
    json_object_set_new(s, "zeta", json_real(0.1));
    json_object_set_new(
        s, "reals",
        json_pack("[f, f, f, f, f]", 10000.0, 1e-7, -0.0, 123456789012345678.0, 2.5e-5));
    json_object_set_new(s, "alpha",
                        json_pack("{s:f, s:f, s:f}", "one", 1.0, "big", 1e300, "third", 1.0 / 3.0));
    d = vs_sheet_dump(s);
    ck_assert(strstr(d, "  \"zeta\": 0.1\n}\n") != NULL);
    ck_assert(strstr(d, "\"big\": 1e+300") != NULL);
    ck_assert(strstr(d, "\"one\": 1.0") != NULL); /* stays a real */
    ck_assert(strstr(d, "\"third\": 0.3333333333333333") != NULL);
    ck_assert(strstr(d, "\"alpha\"") < strstr(d, "\"zeta\""));
    ck_assert_msg(
        strstr(
            d,
            "    10000.0,\n    1e-07,\n    -0.0,\n    1.2345678901234568e+17,\n    0.000025\n") !=
            NULL,
        "%s", d);
    ck_assert(strstr(d, "\"decision\"") < strstr(d, "\"alpha\""));
    d2 = roundtrip(d, &err);
    ck_assert_ptr_nonnull(d2);
    ck_assert_str_eq(d2, d);
    {
        json_t *l = NULL;
        ck_assert_int_eq(vs_sheet_load(&l, d, strlen(d), &err), 0);
        ck_assert(json_is_real(json_object_get(json_object_get(l, "alpha"), "one")));
        ck_assert(json_real_value(json_object_get(json_object_get(l, "alpha"), "third")) ==
                  1.0 / 3.0);
        json_decref(l);
    }
    free(d);
    free(d2);
    json_decref(s);
}
END_TEST

START_TEST(strings_escape_and_utf8)
{
    json_t *s = vs_sheet_new("x"), *l = NULL;
    vs_error err;
    char *d, *d2;
    json_object_set_new(s, "decision",
                        json_string("RTX 6000 Ada \xc3\xa9 \"q\" \\ tab\t nl\n \x01"));
    d = vs_sheet_dump(s);
    ck_assert(
        strstr(d, "\"decision\": \"RTX 6000 Ada \xc3\xa9 \\\"q\\\" \\\\ tab\\t nl\\n \\u0001\"") !=
        NULL);
    ck_assert_int_eq(vs_sheet_load(&l, d, strlen(d), &err), 0);
    ck_assert(json_equal(json_object_get(l, "decision"), json_object_get(s, "decision")));
    d2 = vs_sheet_dump(l);
    ck_assert_str_eq(d, d2);
    free(d);
    free(d2);
    json_decref(l);
    {
        /* every control byte is escaped as json_dumps escapes it */
        char ctl[33], *ref, *want;
        int c;
        for (c = 1; c < 32; c++)
            ctl[c - 1] = (char)c;
        ctl[31] = '\0';
        json_object_set_new(s, "decision", json_string(ctl));
        ref = json_dumps(json_object_get(s, "decision"), JSON_ENCODE_ANY);
        want = malloc(strlen(ref) + 16);
        sprintf(want, "\"decision\": %s", ref);
        d = vs_sheet_dump(s);
        ck_assert_ptr_nonnull(strstr(d, want));
        free(d);
        free(want);
        free(ref);
    }
    json_decref(s);
}
END_TEST

START_TEST(full_layout_roundtrip)
{
    const char *text =
        "{\"schema\": \"vramsheet/sheet/1\", \"id\": \"full\", \"title\": \"Full\","
        " \"lineage\": {\"sheet\": \"old\", \"commit\": "
        "\"0123456789abcdef0123456789abcdef01234567\", \"title\": null},"
        " \"card\": {\"model\": \"m\", \"params\": 7000000000, \"task\": \"lora\", \"format\": "
        "\"bits=6\", \"bits\": 6,"
        "   \"arch\": {\"family\": \"llama\", \"layers\": 32, \"tied_embeddings\": false, "
        "\"rope_theta\": 10000.0}},"
        " \"weights_files\": {\"path\": \"p\", \"bytes\": 10, \"params\": 5, \"by_dtype\": "
        "[{\"dtype\": \"BF16\", \"bytes\": 10, \"params\": 5}],"
        "   \"other_dtype\": [], \"files\": [{\"name\": \"a.safetensors\", \"size\": 100, "
        "\"sha256\": null}]},"
        " \"components\": [{\"name\": \"kv_cache\", \"bytes\": 17179869184, \"status\": "
        "\"estimated\", \"class\": \"kv_cache\"}],"
        " \"placement\": {\"kind\": \"zero\", \"gpus\": 4, \"stage\": 2},"
        " \"stages\": [{\"name\": \"short\", \"length\": 128, \"concurrency\": 1}],"
        " \"offers\": [{\"name\": \"RTX 4090\", \"memory_bytes\": 24000000000, \"price\": "
        "\"47.14\", \"currency\": \"USD\", \"period\": \"3d\"}],"
        " \"requirements\": [{\"name\": \"CUDA 12.4 driver\"}],"
        " \"evidence\": [{\"candidate\": \"RTX 4090\", \"requirement\": \"CUDA 12.4 driver\", "
        "\"verdict\": \"admissible\", \"source\": \"s\"}],"
        " \"runs\": [{\"id\": \"m1\", \"command\": \"python3 x.py\", \"exit_status\": -9, "
        "\"gpus\": [{\"index\": 0, \"name\": \"H200\", \"total_bytes\": 150754820096, "
        "\"total_basis\": \"nvml\"}]}],"
        " \"measurements\": [{\"run\": \"m1\", \"phase\": \"load\", \"counter\": "
        "\"torch.max_memory_reserved\", \"peak_bytes\": 15246295040,"
        "   \"dims\": {\"length\": 4096, \"concurrency\": 8}, \"validates_card\": true}],"
        " \"invalidate\": [\"a context longer than 4096 tokens\"], \"oom\": [{\"phase\": "
        "\"backward\"}], \"decision\": \"d\"}";
    json_t *l = NULL;
    vs_error err;
    char *d, *d2;
    ck_assert_msg(vs_sheet_load(&l, text, strlen(text), &err) == 0, "%s", err.message);
    /* defaults filled in */
    ck_assert_int_eq(json_integer_value(
                         json_object_get(json_array_get(json_object_get(l, "offers"), 0), "cards")),
                     1);
    ck_assert_str_eq(json_string_value(json_object_get(
                         json_array_get(json_object_get(l, "measurements"), 0), "state")),
                     "current");
    ck_assert(json_is_null(
        json_object_get(json_array_get(json_object_get(l, "components"), 0), "phase")));
    d = vs_sheet_dump(l);
    ck_assert(strstr(d, "\"dims\": {\"concurrency\": 8, \"length\": 4096}") != NULL);
    ck_assert(strstr(d, "    \"arch\": {\n      \"family\": \"llama\",\n") != NULL);
    ck_assert(strstr(d, "      \"rope_theta\": 10000.0\n    },\n    \"engine\": null\n") != NULL);
    ck_assert(strstr(d, "\"exit_status\": -9") != NULL);
    d2 = roundtrip(d, &err);
    ck_assert_ptr_nonnull(d2);
    ck_assert_str_eq(d2, d);
    free(d);
    free(d2);
    json_decref(l);
}
END_TEST

/* A record of the previous schema loads, its arch as one full attention group
 * (what that schema's one formula assumed), and re-commits unchanged but for
 * the schema bump and that group. */
START_TEST(schema_1_record_loads_as_one_full_group)
{
    const char *now =
        "{\"schema\": \"vramsheet/sheet/2\", \"id\": \"old\", \"card\": {\"model\": "
        "\"m\", \"arch\": {\"family\": \"llama\", \"layers\": 32, \"hidden\": 4096, "
        "\"heads\": 32, \"kv_heads\": 8, \"head_dim\": 128, \"tied_embeddings\": false}}}";
    json_t *l = NULL, *g;
    vs_error err;
    char *d2, *d1, *d3, *cut, *end;
    const char *line = ",\n      \"kv_layout\": null";
    ck_assert_msg(vs_sheet_load(&l, now, strlen(now), &err) == 0, "%s", err.message);
    d2 = vs_sheet_dump(l);
    json_decref(l);
    /* the same record as schema 1 wrote it: no kv_layout key */
    d1 = strdup(d2);
    ck_assert_ptr_nonnull(cut = strstr(d1, line));
    memmove(cut, cut + strlen(line), strlen(cut + strlen(line)) + 1);
    ck_assert_ptr_nonnull(cut = strstr(d1, "sheet/2"));
    cut[6] = '1';
    ck_assert_msg(vs_sheet_load(&l, d1, strlen(d1), &err) == 0, "%s", err.message);
    ck_assert_str_eq(json_string_value(json_object_get(l, "schema")), "vramsheet/sheet/2");
    g = json_array_get(
        json_object_get(json_object_get(json_object_get(l, "card"), "arch"), "kv_layout"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(g, "kind")), "full");
    ck_assert_int_eq(json_integer_value(json_object_get(g, "layers")), 32);
    ck_assert_int_eq(json_integer_value(json_object_get(g, "kv_heads")), 8);
    ck_assert_int_eq(json_integer_value(json_object_get(g, "head_dim")), 128);
    d3 = vs_sheet_dump(l);
    json_decref(l);
    /* everything else is byte for byte the schema-2 text */
    ck_assert_ptr_nonnull(cut = strstr(d3, "\"kv_layout\": ["));
    ck_assert_ptr_nonnull(end = strstr(cut, "\n      ]"));
    end += strlen("\n      ]");
    memmove(cut + strlen("\"kv_layout\": null"), end, strlen(end) + 1);
    memcpy(cut, "\"kv_layout\": null", strlen("\"kv_layout\": null"));
    ck_assert_str_eq(d3, d2);
    free(d1);
    free(d2);
    free(d3);
}
END_TEST

START_TEST(bad_json_has_line_and_column)
{
    json_t *l = (json_t *)1;
    vs_error err;
    const char *text = "{\n  \"schema\": \"vramsheet/sheet/1\",\n  \"id\": x\n}\n";
    vs_error_clear(&err);
    ck_assert_int_eq(vs_sheet_load(&l, text, strlen(text), &err), VS_EFORMAT);
    ck_assert_ptr_null(l);
    ck_assert_int_eq(err.line, 3);
    ck_assert_int_gt(err.column, 0);
    ck_assert_int_eq(vs_sheet_load(&l, "", 0, &err), VS_EFORMAT);
    ck_assert_int_eq(vs_sheet_load(&l, "[1]", 3, &err), VS_EFORMAT);
    /* duplicate keys would make the record ambiguous */
    text = "{\"schema\": \"vramsheet/sheet/1\", \"id\": \"a\", \"id\": \"b\"}";
    ck_assert_int_eq(vs_sheet_load(&l, text, strlen(text), &err), VS_EFORMAT);
}
END_TEST

/* The record's error carries jansson's byte position too (the bytes read when
 * the fault was seen: "{\"id\": x" up to and with the x). */
START_TEST(bad_json_has_position)
{
    json_t *l = NULL;
    json_error_t jerr;
    vs_error err;
    const char *text = "{\"id\": x}";
    ck_assert_ptr_null(json_loads(text, JSON_REJECT_DUPLICATES, &jerr));
    ck_assert_int_eq(vs_sheet_load(&l, text, strlen(text), &err), VS_EFORMAT);
    ck_assert(err.position == jerr.position);
    ck_assert(err.position == 8);
    ck_assert_int_eq(err.line, 1);
}
END_TEST

static void expect_type_error(const char *text, const char *needle)
{
    json_t *l = NULL;
    vs_error err;
    vs_error_clear(&err);
    ck_assert_int_eq(vs_sheet_load(&l, text, strlen(text), &err), VS_EFORMAT);
    ck_assert_ptr_null(l);
    ck_assert_msg(strstr(err.message, needle) != NULL, "'%s' lacks '%s'", err.message, needle);
}

START_TEST(schema_and_types_checked)
{
    expect_type_error("{\"id\": \"x\"}", "schema");
    expect_type_error("{\"schema\": \"vramsheet/sheet/3\", \"id\": \"x\"}", "schema");
    expect_type_error("{\"schema\": \"vramsheet/sheet/1\"}", "id: missing");
    expect_type_error("{\"schema\": \"vramsheet/sheet/1\", \"id\": \"../etc\"}", "id");
    expect_type_error("{\"schema\": \"vramsheet/sheet/1\", \"id\": \"x\", \"components\": "
                      "[{\"name\": \"a\", \"bytes\": \"6GiB\", \"status\": \"estimated\"}]}",
                      "components[0].bytes: expected a non-negative integer");
    expect_type_error("{\"schema\": \"vramsheet/sheet/1\", \"id\": \"x\", \"components\": "
                      "[{\"name\": \"a\", \"bytes\": -1, \"status\": \"estimated\"}]}",
                      "components[0].bytes");
    expect_type_error("{\"schema\": \"vramsheet/sheet/1\", \"id\": \"x\", \"components\": "
                      "[{\"name\": \"a\", \"bytes\": 1.5, \"status\": \"estimated\"}]}",
                      "components[0].bytes");
    expect_type_error("{\"schema\": \"vramsheet/sheet/1\", \"id\": \"x\", \"components\": "
                      "[{\"name\": \"a\", \"bytes\": 1, \"status\": \"guessed\"}]}",
                      "components[0].status: 'guessed'");
    expect_type_error("{\"schema\": \"vramsheet/sheet/1\", \"id\": \"x\", \"components\": "
                      "[{\"bytes\": 1, \"status\": \"measured\"}]}",
                      "components[0].name: missing");
    expect_type_error(
        "{\"schema\": \"vramsheet/sheet/1\", \"id\": \"x\", \"card\": {\"task\": \"chat\"}}",
        "card.task");
    expect_type_error(
        "{\"schema\": \"vramsheet/sheet/1\", \"id\": \"x\", \"card\": {\"format\": \"fp12\"}}",
        "card.format");
    expect_type_error("{\"schema\": \"vramsheet/sheet/1\", \"id\": \"x\", \"card\": []}",
                      "card: expected an object");
    expect_type_error("{\"schema\": \"vramsheet/sheet/1\", \"id\": \"x\", \"placement\": null}",
                      "placement");
    expect_type_error(
        "{\"schema\": \"vramsheet/sheet/1\", \"id\": \"x\", \"placement\": {\"kind\": \"nvlink\"}}",
        "placement.kind");
    expect_type_error("{\"schema\": \"vramsheet/sheet/1\", \"id\": \"x\", \"invalidate\": [1]}",
                      "invalidate[0]");
    expect_type_error("{\"schema\": \"vramsheet/sheet/1\", \"id\": \"x\", \"measurements\": "
                      "[{\"phase\": \"load\","
                      " \"counter\": \"c\", \"peak_bytes\": 1, \"dims\": {\"length\": \"long\"}}]}",
                      "measurements[0].dims.length");
    expect_type_error("{\"schema\": \"vramsheet/sheet/1\", \"id\": \"x\", \"card\": {\"params\": "
                      "99999999999999999999}}",
                      "integer");
}
END_TEST

/* A schema 1 record loads with schema 2's measurement keys at their defaults
 * and is written back as schema 2; schema 2's new keys are typed. */
START_TEST(schema_1_read_as_2)
{
    json_t *l = NULL, *m;
    vs_error err;
    const char *v1 =
        "{\"schema\": \"vramsheet/sheet/1\", \"id\": \"old\", \"measurements\": [{\"run\": null, "
        "\"phase\": \"p\", \"counter\": \"c\", \"peak_bytes\": 5}]}";
    char *d;
    ck_assert_int_eq(vs_sheet_load(&l, v1, strlen(v1), &err), 0);
    ck_assert_str_eq(json_string_value(json_object_get(l, "schema")), "vramsheet/sheet/2");
    m = json_array_get(json_object_get(l, "measurements"), 0);
    ck_assert(json_is_null(json_object_get(m, "text")));
    ck_assert(json_is_null(json_object_get(m, "resolution_bytes")));
    ck_assert(json_is_null(json_object_get(m, "value")));
    ck_assert(json_is_null(json_object_get(m, "unit")));
    d = vs_sheet_dump(l);
    ck_assert_ptr_nonnull(strstr(d, "\"schema\": \"vramsheet/sheet/2\""));
    ck_assert_ptr_nonnull(
        strstr(d, "\"text\": null, \"resolution_bytes\": null, \"value\": null, \"unit\": null, "
                  "\"engine_version\": null}"));
    free(d);
    json_decref(l);
    /* a count: peak_bytes null, value a number >= 0 */
    v1 = "{\"schema\": \"vramsheet/sheet/2\", \"id\": \"new\", \"measurements\": [{\"phase\": "
         "\"p\", "
         "\"counter\": \"vllm.max_concurrency\", \"peak_bytes\": null, \"value\": 4.84, \"unit\": "
         "\"x\"}]}";
    ck_assert_int_eq(vs_sheet_load(&l, v1, strlen(v1), &err), 0);
    json_decref(l);
    expect_type_error(
        "{\"schema\": \"vramsheet/sheet/2\", \"id\": \"x\", \"measurements\": [{\"phase\": "
        "\"p\", \"counter\": \"c\", \"peak_bytes\": 1, \"value\": -1}]}",
        "value");
    expect_type_error(
        "{\"schema\": \"vramsheet/sheet/2\", \"id\": \"x\", \"measurements\": [{\"phase\": "
        "\"p\", \"counter\": \"c\", \"peak_bytes\": 1, \"resolution_bytes\": \"a\"}]}",
        "resolution_bytes");
    /* engine_version (a log's release): a string or null; a schema 2 record
     * without it reads it as null, one with it keeps it */
    expect_type_error(
        "{\"schema\": \"vramsheet/sheet/2\", \"id\": \"x\", \"measurements\": [{\"phase\": "
        "\"p\", \"counter\": \"c\", \"peak_bytes\": 1, \"engine_version\": 9}]}",
        "engine_version");
    v1 = "{\"schema\": \"vramsheet/sheet/2\", \"id\": \"new\", \"measurements\": [{\"phase\": "
         "\"p\", \"counter\": \"c\", \"peak_bytes\": 1, \"engine_version\": \"0.9.2\"}]}";
    ck_assert_int_eq(vs_sheet_load(&l, v1, strlen(v1), &err), 0);
    m = json_array_get(json_object_get(l, "measurements"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(m, "engine_version")), "0.9.2");
    json_decref(l);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("canon");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, new_sheet_exact_text);
    tcase_add_test(tc, key_order_is_the_layout_not_insertion);
    tcase_add_test(tc, one_component_per_line);
    tcase_add_test(tc, runtime_keys_never_written);
    tcase_add_test(tc, extra_keys_kept_sorted_and_reals_shortest);
    tcase_add_test(tc, strings_escape_and_utf8);
    tcase_add_test(tc, full_layout_roundtrip);
    tcase_add_test(tc, schema_1_record_loads_as_one_full_group);
    tcase_add_test(tc, bad_json_has_line_and_column);
    tcase_add_test(tc, bad_json_has_position);
    tcase_add_test(tc, schema_and_types_checked);
    tcase_add_test(tc, schema_1_read_as_2);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
