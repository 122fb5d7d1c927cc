/* The seed's worked example as a record: records/examples/seed-7b-inference/
 * sheet.json is what the verbs make, written by vs_sheet_dump, and it loads and
 * re-dumps byte for byte. With VS_REGENERATE_RECORDS=1 this test (re)writes the
 * example from the verbs instead of comparing (the tool that generated it). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/interp.h"
#include "render/bundle.h"
#include "sheet/sheet.h"

#include "results.h"

#ifndef VS_SOURCE_DIR
#define VS_SOURCE_DIR "."
#endif
#define EXAMPLE VS_SOURCE_DIR "/records/examples/seed-7b-inference/sheet.json"

/* SPEC §2: 7e9 params at 16 bits, a 6 GiB reserve, the two offers of the seed. */
static const char *SEED_CELL = "sheet \"Seed 7B inference\"\n"
                               "model example/7b params=7e9\n"
                               "task inference\n"
                               "format bf16\n"
                               "reserve 6GiB\n"
                               "gpu \"RTX 4090\" memory=24GB price=47.14USD period=3d cards=1\n"
                               "gpu \"RTX 6000 Ada\" memory=48GB price=55.71USD period=3d cards=1\n"
                               "sheet \"Seed 7B inference\"\n";

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n + 1)) != NULL) {
        *len = fread(buf, 1, (size_t)n, f);
        buf[*len] = '\0';
    }
    fclose(f);
    return buf;
}

/* The seed sheet as the verbs build it, dumped canonically. */
static char *seed_from_verbs(void)
{
    vs_interp *ip;
    vs_sink sink;
    json_t *result = NULL, *p;
    vs_error err;
    char *text;
    setenv("VRAMSHEET_RECORDS", "/nonexistent/vramsheet-test-records", 1);
    ip = vs_interp_new(NULL);
    memset(&sink, 0, sizeof sink);
    ck_assert_msg(vs_test_execute(ip, SEED_CELL, &sink, &result, &err) == 0, "%s", err.message);
    p = json_object_get(result, VS_MIME_JSON);
    ck_assert_str_eq(json_string_value(json_object_get(p, "kind")), "sheet");
    /* the `sheet` payload is the whole sheet as stored, plus what the verb did */
    json_object_del(p, "kind");
    json_object_del(p, "action");
    text = vs_sheet_dump(p);
    json_decref(result);
    vs_interp_free(ip);
    return text;
}

START_TEST(example_is_what_the_verbs_make)
{
    char *made = seed_from_verbs(), *stored;
    size_t len = 0;
    ck_assert_ptr_nonnull(made);
    if (getenv("VS_REGENERATE_RECORDS")) {
        FILE *f = fopen(EXAMPLE, "wb");
        ck_assert_ptr_nonnull(f);
        fputs(made, f);
        fclose(f);
    }
    stored = read_file(EXAMPLE, &len);
    ck_assert_msg(stored != NULL, "cannot read %s", EXAMPLE);
    ck_assert_str_eq(stored, made);
    free(stored);
    free(made);
}
END_TEST

START_TEST(example_roundtrips_byte_for_byte)
{
    size_t len = 0;
    char *stored = read_file(EXAMPLE, &len), *again;
    json_t *sheet = NULL, *offers;
    vs_error err;
    ck_assert_ptr_nonnull(stored);
    ck_assert_msg(vs_sheet_load(&sheet, stored, len, &err) == 0, "%s", err.message);
    again = vs_sheet_dump(sheet);
    ck_assert_str_eq(again, stored);
    /* and it is the seed */
    ck_assert_int_eq(json_integer_value(json_object_get(vs_sheet_card(sheet), "params")),
                     7000000000LL);
    ck_assert_int_eq(json_integer_value(json_object_get(vs_sheet_card(sheet), "bits")), 16);
    ck_assert_int_eq(
        json_integer_value(json_object_get(vs_sheet_component(sheet, "reserve"), "bytes")),
        6442450944LL);
    offers = vs_sheet_array(sheet, "offers");
    ck_assert_int_eq(json_array_size(offers), 2);
    ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(offers, 0), "memory_bytes")),
                     24000000000LL);
    ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(offers, 1), "memory_bytes")),
                     48000000000LL);
    free(again);
    free(stored);
    json_decref(sheet);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sizing_records");
    TCase *tc = tcase_create("seed");
    SRunner *sr;
    int failed;
    tcase_add_test(tc, example_is_what_the_verbs_make);
    tcase_add_test(tc, example_roundtrips_byte_for_byte);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    /* the regeneration must happen before the round-trip reads the file */
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
