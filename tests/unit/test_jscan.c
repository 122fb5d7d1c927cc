/* The strict JSON pull reader under the safetensors headers: what it accepts
 * and decodes, and each way a text fails to be JSON. Texts that jansson
 * accepts or rejects are checked against jansson too, as a second opinion. */
#include <check.h>
#include <jansson.h>
#include <stdint.h>
#include <string.h>

#include "model/jscan.h"

#include "check_run.h"

/* 1 when the whole text is one JSON value by jscan. */
static int valid(const char *text, size_t len)
{
    vs_jscan s;
    int ok;
    vs_jscan_init(&s, text, len);
    ok = vs_jscan_skip(&s) == 0 && vs_jscan_end(&s) == 0;
    vs_jscan_free(&s);
    return ok;
}

static int jansson_valid(const char *text, size_t len)
{
    json_error_t e;
    json_t *v = json_loadb(text, len, JSON_DECODE_ANY, &e);
    json_decref(v);
    return v != NULL;
}

START_TEST(agrees_with_jansson)
{
    static const char *const texts[] = {
        "{}",
        "[]",
        "{\"a\": [1, 2.5, -3e+7, 0, 0.0e0, true, false, null, \"x\"]}",
        "  {\"a\" : {\"b\" : {}} }  \n",
        "\"\\u00e9\\ud83d\\ude00\\n\\t\\\"\\\\\\/\"",
        "-0",
        "1E9",
        "[1,]",
        "{\"a\":1,}",
        "{,}",
        "[01]",
        "[1.]",
        "[.5]",
        "[1e]",
        "[-]",
        "[+1]",
        "{\"a\" 1}",
        "{a: 1}",
        "['a']",
        "[\"\\x41\"]",
        "[\"\\u12\"]",
        "[\"\\ud800\"]",
        "[\"\\udc00\"]",
        "[\"\\u0000\"]",
        "[\"tab\there\"]",
        "[tru]",
        "[nul]",
        "{\"a\":1} x",
        "",
        "   ",
        "[\"\xc3\xa9\"]",
        "[\"\xc3\"]",
        "[\"\xe0\x80\xaf\"]",
        "[\"\xed\xa0\x80\"]",
        "[\"\xf4\x90\x80\x80\"]",
        "[\"\xff\"]",
        "{\"a\":[{\"b\":[[[]]]}]}",
        "[1 2]",
        "{\"a\":1 \"b\":2}",
    };
    size_t i;
    for (i = 0; i < sizeof texts / sizeof texts[0]; i++)
        ck_assert_msg(valid(texts[i], strlen(texts[i])) ==
                          jansson_valid(texts[i], strlen(texts[i])),
                      "jscan and jansson disagree on: %s", texts[i]);
}
END_TEST

START_TEST(decodes_strings)
{
    const char *t = "[\"plain\", \"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\", \"\\u00e9\\u20ac\", "
                    "\"\\ud83d\\ude00\", \"\xc3\xa9\"]";
    vs_jscan s;
    vs_jscan_init(&s, t, strlen(t));
    ck_assert_int_eq(vs_jscan_array(&s), 0);
    ck_assert_int_eq(vs_jscan_next(&s, 1), 1);
    ck_assert_int_eq(vs_jscan_string(&s), 0);
    ck_assert_str_eq(s.str, "plain");
    ck_assert_uint_eq(s.str_len, 5);
    ck_assert_int_eq(vs_jscan_next(&s, 0), 1);
    ck_assert_int_eq(vs_jscan_string(&s), 0);
    ck_assert_str_eq(s.str, "a\"b\\c/d\b\f\n\r\t");
    ck_assert_int_eq(vs_jscan_next(&s, 0), 1);
    ck_assert_int_eq(vs_jscan_string(&s), 0);
    ck_assert_str_eq(s.str, "\xc3\xa9\xe2\x82\xac");
    ck_assert_int_eq(vs_jscan_next(&s, 0), 1);
    ck_assert_int_eq(vs_jscan_string(&s), 0);
    ck_assert_str_eq(s.str, "\xf0\x9f\x98\x80");
    ck_assert_int_eq(vs_jscan_next(&s, 0), 1);
    ck_assert_int_eq(vs_jscan_string(&s), 0);
    ck_assert_str_eq(s.str, "\xc3\xa9");
    ck_assert_int_eq(vs_jscan_next(&s, 0), 0);
    ck_assert_int_eq(vs_jscan_end(&s), 0);
    vs_jscan_free(&s);
}
END_TEST

START_TEST(reads_objects_and_integers)
{
    const char *t =
        "{\"n\": 18446744073709551615, \"m\": 0, \"skip\": {\"x\": [1, {\"y\": null}]}, "
        "\"neg\": -1, \"real\": 1.5, \"big\": 18446744073709551616, \"s\": \"7\"}";
    vs_jscan s;
    uint64_t v = 0;
    vs_jscan_init(&s, t, strlen(t));
    ck_assert_int_eq(vs_jscan_object(&s), 0);
    ck_assert_int_eq(vs_jscan_key(&s, 1), 1);
    ck_assert_str_eq(s.str, "n");
    ck_assert_int_eq(vs_jscan_uint(&s, &v), 0);
    ck_assert_uint_eq(v, UINT64_MAX);
    ck_assert_int_eq(vs_jscan_key(&s, 0), 1);
    ck_assert_int_eq(vs_jscan_uint(&s, &v), 0);
    ck_assert_uint_eq(v, 0);
    ck_assert_int_eq(vs_jscan_key(&s, 0), 1);
    ck_assert_str_eq(s.str, "skip");
    ck_assert_int_eq(vs_jscan_peek(&s), '{');
    ck_assert_int_eq(vs_jscan_skip(&s), 0);
    ck_assert_int_eq(vs_jscan_key(&s, 0), 1);
    ck_assert_int_eq(vs_jscan_uint(&s, &v), -2); /* -1: JSON, but not a count */
    vs_jscan_free(&s);

    /* each non-count on its own */
    {
        static const char *const bad[] = {"1.5", "18446744073709551616", "\"7\"", "1e3", "null"};
        size_t i;
        for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            vs_jscan_init(&s, bad[i], strlen(bad[i]));
            ck_assert_msg(vs_jscan_uint(&s, &v) == -2, "%s read as a count", bad[i]);
            ck_assert_ptr_nonnull(s.error);
            vs_jscan_free(&s);
        }
        vs_jscan_init(&s, "-", 1);
        ck_assert_int_eq(vs_jscan_uint(&s, &v), -1); /* not JSON at all */
        vs_jscan_free(&s);
    }
}
END_TEST

START_TEST(errors_keep_their_offset)
{
    const char *t = "{\"a\": [1, 2,, 3]}";
    vs_jscan s;
    vs_jscan_init(&s, t, strlen(t));
    ck_assert_int_eq(vs_jscan_skip(&s), -1);
    ck_assert_ptr_nonnull(s.error);
    ck_assert_uint_eq(s.error_at, 12); /* the second comma */
    /* once failed, everything fails */
    ck_assert_int_eq(vs_jscan_end(&s), -1);
    ck_assert_int_eq(vs_jscan_peek(&s), '\0');
    vs_jscan_free(&s);
    /* not NUL-terminated: only len bytes count */
    vs_jscan_init(&s, "[1]]]", 3);
    ck_assert_int_eq(vs_jscan_skip(&s), 0);
    ck_assert_int_eq(vs_jscan_end(&s), 0);
    vs_jscan_free(&s);
    vs_jscan_init(&s, "\"abc\"", 3);
    ck_assert_int_eq(vs_jscan_string(&s), -1);
    vs_jscan_free(&s);
}
END_TEST

START_TEST(nesting_is_bounded)
{
    char deep[2 * (VS_JSCAN_DEPTH + 10) + 1];
    size_t n = 0, i;
    for (i = 0; i < VS_JSCAN_DEPTH + 10; i++)
        deep[n++] = '[';
    for (i = 0; i < VS_JSCAN_DEPTH + 10; i++)
        deep[n++] = ']';
    deep[n] = '\0';
    ck_assert_int_eq(valid(deep, n), 0);
    /* at the limit it reads */
    n = 0;
    for (i = 0; i <= VS_JSCAN_DEPTH; i++)
        deep[n++] = '[';
    for (i = 0; i <= VS_JSCAN_DEPTH; i++)
        deep[n++] = ']';
    ck_assert_int_eq(valid(deep, n), 1);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("jscan");
    TCase *tc = tcase_create("jscan");
    tcase_add_test(tc, agrees_with_jansson);
    tcase_add_test(tc, decodes_strings);
    tcase_add_test(tc, reads_objects_and_integers);
    tcase_add_test(tc, errors_keep_their_offset);
    tcase_add_test(tc, nesting_is_bounded);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return vs_check_run(suite());
}
