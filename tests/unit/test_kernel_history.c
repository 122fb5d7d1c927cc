/* Unit tests for src/kernel/history: tail, range, search, bounds. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/history.h"

#include "check_run.h"

static vs_history *filled(void)
{
    vs_history *h = vs_history_new(100, 1 << 20);
    ck_assert_ptr_nonnull(h);
    ck_assert_int_eq(vs_history_add(h, 1, "help", NULL), 0);
    ck_assert_int_eq(vs_history_add(h, 2, "convert 24GB GiB", "22.35 GiB"), 0);
    ck_assert_int_eq(vs_history_add(h, 3, "help convert", NULL), 0);
    ck_assert_int_eq(vs_history_add(h, 4, "convert 24GB GiB", "22.35 GiB"), 0);
    ck_assert_int_eq(vs_history_add(h, 5, "convert 1GiB B", "1073741824 B"), 0);
    return h;
}

static const char *input_at(json_t *arr, size_t i)
{
    return json_string_value(json_array_get(json_array_get(arr, i), 2));
}

static int line_at(json_t *arr, size_t i)
{
    return (int)json_integer_value(json_array_get(json_array_get(arr, i), 1));
}

START_TEST(test_tail)
{
    vs_history *h = filled();
    json_t *t = vs_history_tail(h, 2, 0);
    ck_assert_uint_eq(json_array_size(t), 2);
    ck_assert_str_eq(input_at(t, 0), "convert 24GB GiB");
    ck_assert_int_eq(line_at(t, 0), 4);
    ck_assert_str_eq(input_at(t, 1), "convert 1GiB B");
    ck_assert_int_eq(json_integer_value(json_array_get(json_array_get(t, 0), 0)),
                     VS_HISTORY_SESSION);
    json_decref(t);
    t = vs_history_tail(h, 50, 1);
    ck_assert_uint_eq(json_array_size(t), 5);
    {
        json_t *pair = json_array_get(json_array_get(t, 1), 2);
        ck_assert_uint_eq(json_array_size(pair), 2);
        ck_assert_str_eq(json_string_value(json_array_get(pair, 1)), "22.35 GiB");
        pair = json_array_get(json_array_get(t, 0), 2);
        ck_assert(json_is_null(json_array_get(pair, 1)));
    }
    json_decref(t);
    vs_history_free(h);
}
END_TEST

START_TEST(test_range)
{
    vs_history *h = filled();
    json_t *r = vs_history_range(h, VS_HISTORY_SESSION, 2, 4, 0);
    ck_assert_uint_eq(json_array_size(r), 2);
    ck_assert_int_eq(line_at(r, 0), 2);
    ck_assert_int_eq(line_at(r, 1), 3);
    json_decref(r);
    r = vs_history_range(h, 0, 4, 0, 0); /* session 0 is the current one; stop 0 = to the end */
    ck_assert_uint_eq(json_array_size(r), 2);
    json_decref(r);
    r = vs_history_range(h, 7, 0, 0, 0);
    ck_assert_uint_eq(json_array_size(r), 0);
    json_decref(r);
    vs_history_free(h);
}
END_TEST

START_TEST(test_search)
{
    vs_history *h = filled();
    json_t *s = vs_history_search(h, "convert*", 0, 0, 0);
    ck_assert_uint_eq(json_array_size(s), 3);
    json_decref(s);
    s = vs_history_search(h, "convert 24GB*", 0, 1, 0);
    ck_assert_uint_eq(json_array_size(s), 1);
    ck_assert_int_eq(line_at(s, 0), 4); /* the latest of equal inputs */
    json_decref(s);
    s = vs_history_search(h, "*", 2, 0, 0);
    ck_assert_uint_eq(json_array_size(s), 2);
    ck_assert_int_eq(line_at(s, 1), 5);
    json_decref(s);
    s = vs_history_search(h, "help", 0, 0, 0); /* whole-input match, not substring */
    ck_assert_uint_eq(json_array_size(s), 1);
    json_decref(s);
    s = vs_history_search(h, "help ??????t", 0, 0, 0);
    ck_assert_uint_eq(json_array_size(s), 1);
    ck_assert_str_eq(input_at(s, 0), "help convert");
    json_decref(s);
    vs_history_free(h);
}
END_TEST

START_TEST(test_glob)
{
    ck_assert(vs_history_glob("*", ""));
    ck_assert(vs_history_glob("a*b*c", "aXXbYYc"));
    ck_assert(!vs_history_glob("a*b*c", "aXXbYY"));
    ck_assert(vs_history_glob("?\xc3\xa9", "x\xc3\xa9")); /* ? is one code point */
    ck_assert(vs_history_glob("\xc3\xa9?", "\xc3\xa9\xe2\x82\xac"));
    ck_assert(!vs_history_glob("??", "\xc3\xa9"));
    ck_assert(vs_history_glob("**a", "a"));
    ck_assert(!vs_history_glob("", "a"));
}
END_TEST

START_TEST(test_bounds)
{
    vs_history *h = vs_history_new(3, 20);
    char code[16];
    int i;
    for (i = 1; i <= 10; i++) {
        snprintf(code, sizeof code, "cell %d", i);
        ck_assert_int_eq(vs_history_add(h, i, code, NULL), 0);
    }
    ck_assert_uint_eq(vs_history_count(h), 3);
    {
        json_t *t = vs_history_tail(h, 10, 0);
        ck_assert_str_eq(input_at(t, 0), "cell 8");
        json_decref(t);
    }
    /* Byte bound: a 15-byte cell leaves room for nothing older (20 bytes). */
    ck_assert_int_eq(vs_history_add(h, 11, "fifteen bytes!!", NULL), 0);
    ck_assert_uint_eq(vs_history_count(h), 1);
    /* Output too large for the bound is dropped, the input kept. */
    ck_assert_int_eq(vs_history_add(h, 12, "x", "an output longer than twenty bytes"), 0);
    {
        json_t *t = vs_history_tail(h, 1, 1);
        ck_assert(json_is_null(json_array_get(json_array_get(json_array_get(t, 0), 2), 1)));
        json_decref(t);
    }
    vs_history_free(h);
    vs_history_free(NULL);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kernel_history");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_tail);
    tcase_add_test(tc, test_range);
    tcase_add_test(tc, test_search);
    tcase_add_test(tc, test_glob);
    tcase_add_test(tc, test_bounds);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
