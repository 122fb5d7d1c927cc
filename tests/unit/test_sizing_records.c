/* The seed's worked example as a record: records/examples/seed-7b-inference/
 * sheet.json is what the verbs make, written by vs_sheet_dump, and it loads and
 * re-dumps byte for byte. This test only compares: the example is written by a
 * separate tool, tests/tools/regen_records.c (records/README.md), which it
 * never runs. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/interp.h"
#include "render/bundle.h"
#include "sheet/sheet.h"

#include "results.h"
#include "seed_record.h"

#ifndef VS_SOURCE_DIR
#define VS_SOURCE_DIR "."
#endif
#define EXAMPLE VS_SOURCE_DIR "/records/examples/seed-7b-inference/sheet.json"

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
    char why[VS_ERROR_MESSAGE_MAX + 64] = "";
    char *text = vs_seed_from_verbs(why, sizeof why);
    ck_assert_msg(text != NULL, "%s", why);
    return text;
}

START_TEST(example_is_what_the_verbs_make)
{
    char *made = seed_from_verbs(), *stored;
    size_t len = 0;
    ck_assert_ptr_nonnull(made);
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
    offers = vs_sheet_array(sheet, VS_SK_OFFERS);
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
