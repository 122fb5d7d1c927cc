/* Forgiving input: what a person types the first time, read as meant or
 * answered with the fix: counts with k/K/M and Ki/Mi, formats and dtypes in
 * any case, tp for tensor, amounts written 24G or "24 GiB". */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lang/interp.h"
#include "render/bundle.h"
#include "sheet/estimate.h"

#include "check_run.h"
#include "results.h"

static vs_interp *ip;

static json_t *ok(const char *code)
{
    json_t *r = NULL;
    vs_error err;
    int rc = vs_test_execute(ip, code, NULL, &r, &err);
    ck_assert_msg(rc == 0, "%s: %s", code, err.message);
    ck_assert_ptr_nonnull(r);
    return r;
}

static vs_error fails(const char *code)
{
    vs_bundle *r = NULL;
    vs_error err;
    int rc = vs_interp_execute(ip, code, NULL, &r, &err);
    ck_assert_msg(rc < 0, "%s should fail", code);
    return err;
}

static const char *plain(json_t *b)
{
    return json_string_value(json_object_get(b, "text/plain"));
}

static json_t *card(json_t *b)
{
    return json_object_get(json_object_get(b, VS_MIME_JSON), "card");
}

static void setup(void)
{
    ip = vs_interp_new(NULL);
}
static void teardown(void)
{
    vs_interp_free(ip);
}

START_TEST(length_with_suffixes)
{
    json_t *r = ok("length 32k");
    ck_assert_int_eq(json_integer_value(json_object_get(card(r), "length")), 32000);
    ck_assert_ptr_nonnull(strstr(plain(r), "length 32,000"));
    ck_assert_ptr_nonnull(strstr(plain(r), "for 32,768 write 32Ki"));
    json_decref(r);
    r = ok("length 32Ki");
    ck_assert_int_eq(json_integer_value(json_object_get(card(r), "length")), 32768); /* 32 x 1024 */
    ck_assert_ptr_nonnull(strstr(plain(r), "32Ki is 32,768"));
    json_decref(r);
    r = ok("length 128K");
    ck_assert_int_eq(json_integer_value(json_object_get(card(r), "length")), 128000);
    json_decref(r);
    r = ok("concurrency 1M");
    ck_assert_int_eq(json_integer_value(json_object_get(card(r), "concurrency")), 1000000);
    json_decref(r);
    r = ok("length 4096");
    ck_assert_ptr_null(strstr(plain(r), "write"));
    json_decref(r);
    /* a stage's dimensions too */
    r = ok("length 32Ki\nconcurrency 8\nstage short length=1k concurrency=1");
    ck_assert_ptr_nonnull(strstr(plain(r), "short: length=1000 concurrency=1"));
    json_decref(r);
}
END_TEST

START_TEST(formats_in_any_case)
{
    json_t *r = ok("format FP8");
    ck_assert_str_eq(json_string_value(json_object_get(card(r), "format")), "fp8");
    ck_assert_int_eq(json_integer_value(json_object_get(card(r), "bits")), 8);
    json_decref(r);
    r = ok("format BF16");
    ck_assert_str_eq(json_string_value(json_object_get(card(r), "format")), "bf16");
    ck_assert_int_eq(json_integer_value(json_object_get(card(r), "bits")), 16);
    json_decref(r);
}
END_TEST

START_TEST(dtypes_in_any_case_and_the_list)
{
    /* every name the message lists is accepted, in upper case too, and the
     * message lists every name of the format tables (fp8 in its three
     * spellings, the two float names) */
    static const char *const names[] = {"fp32",     "float32", "fp16", "float16",  "bf16",
                                        "bfloat16", "e4m3",    "e5m2", "fp8_e4m3", "fp8_e5m2",
                                        "fp8",      "int8",    "int4", "nf4",      "fp4"};
    char list[400], *tok, *save;
    size_t i, listed = 0;
    unsigned bits;
    vs_error err;
    json_t *r = ok("length 4096\nconcurrency 8\nestimate kv layers=32 kv_heads=8 head_dim=128 "
                   "dtype=BF16");
    json_decref(r);
    err = fails("estimate kv layers=32 kv_heads=8 head_dim=128 dtype=fp9");
    ck_assert_ptr_nonnull(strstr(err.message, "unknown cache dtype 'fp9'"));
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        char up[32], needle[40];
        size_t k;
        for (k = 0; names[i][k]; k++)
            up[k] =
                (char)(names[i][k] >= 'a' && names[i][k] <= 'z' ? names[i][k] - 32 : names[i][k]);
        up[k] = '\0';
        ck_assert_msg(vs_estimate_dtype_bits(&bits, up, NULL) == 0, "%s", up);
        snprintf(needle, sizeof needle, "%s", names[i]);
        ck_assert_msg(strstr(err.message, needle), "%s missing from: %s", needle, err.message);
    }
    /* and nothing else: each listed name is one of these */
    snprintf(list, sizeof list, "%s", vs_estimate_dtype_names());
    for (tok = strtok_r(list, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
        if (!strcmp(tok, "or"))
            continue;
        ck_assert_msg(vs_estimate_dtype_bits(&bits, tok, NULL) == 0, "listed but refused: %s", tok);
        listed++;
    }
    ck_assert_uint_eq(listed, sizeof names / sizeof names[0]);
}
END_TEST

START_TEST(tp_is_tensor)
{
    json_t *r = ok("placement tp gpus=2");
    json_t *pl = json_object_get(json_object_get(r, VS_MIME_JSON), "placement");
    const char *s = json_dumps(json_object_get(r, VS_MIME_JSON), JSON_COMPACT);
    ck_assert_msg(strstr(s, "\"tensor\""), "%s", s);
    (void)pl;
    free((void *)s);
    json_decref(r);
}
END_TEST

START_TEST(amount_hints)
{
    vs_error err = fails("reserve activations 24G");
    ck_assert_ptr_nonnull(strstr(err.message, "did you mean 24GB or 24GiB?"));
    ck_assert_int_eq(err.column, 21);
    err = fails("reserve activations 24 GiB");
    ck_assert_ptr_nonnull(strstr(err.message, "write 24GiB (no space"));
    ck_assert_int_eq(err.line, 1);
    ck_assert_int_eq(err.column, 21); /* at the number */
    err = fails("gpu \"RTX 4090\" memory=24 GB cards=1");
    ck_assert_ptr_nonnull(strstr(err.message, "write 24GB (no space"));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("forgiving");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, length_with_suffixes);
    tcase_add_test(tc, formats_in_any_case);
    tcase_add_test(tc, dtypes_in_any_case_and_the_list);
    tcase_add_test(tc, tp_is_tensor);
    tcase_add_test(tc, amount_hints);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
