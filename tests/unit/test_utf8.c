/* Unit tests for src/kernel/utf8: cursor conversions and repair. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "util/utf8.h"

#include "check_run.h"

/* "é€😀a": 2 + 3 + 4 + 1 bytes, 4 code points. */
static const char *const S = "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"
                             "a";

START_TEST(test_cursor_conversions)
{
    size_t len = strlen(S);
    ck_assert_uint_eq(len, 10);
    ck_assert_uint_eq(vs_utf8_cp_to_byte(S, len, 0), 0);
    ck_assert_uint_eq(vs_utf8_cp_to_byte(S, len, 1), 2);
    ck_assert_uint_eq(vs_utf8_cp_to_byte(S, len, 2), 5);
    ck_assert_uint_eq(vs_utf8_cp_to_byte(S, len, 3), 9);
    ck_assert_uint_eq(vs_utf8_cp_to_byte(S, len, 4), 10);
    ck_assert_uint_eq(vs_utf8_cp_to_byte(S, len, 400), 10); /* past the end: clamped */
    ck_assert_uint_eq(vs_utf8_byte_to_cp(S, len, 9), 3);
    ck_assert_uint_eq(vs_utf8_byte_to_cp(S, len, 10), 4);
    ck_assert_uint_eq(vs_utf8_byte_to_cp(S, len, 99), 4);
    ck_assert_uint_eq(vs_utf8_byte_to_cp(S, len, 6), 3); /* inside a sequence */
    ck_assert_uint_eq(vs_utf8_cp_to_byte("", 0, 3), 0);
}
END_TEST

START_TEST(test_valid_and_repair)
{
    char *r;
    ck_assert(vs_utf8_valid(S, strlen(S)));
    ck_assert(!vs_utf8_valid("\xff", 1));
    ck_assert(!vs_utf8_valid("\xc0\xaf", 2));         /* overlong */
    ck_assert(!vs_utf8_valid("\xed\xa0\x80", 3));     /* surrogate */
    ck_assert(!vs_utf8_valid("\xf4\x90\x80\x80", 4)); /* past U+10FFFF */
    ck_assert(!vs_utf8_valid("\xe2\x82", 2));         /* truncated */
    ck_assert(!vs_utf8_valid("a\0b", 3));
    /* past the eight-bytes-at-a-time path: a NUL or a bad byte at every
     * offset of a long ASCII text is still found */
    {
        char t[40];
        size_t i;
        memset(t, 'x', sizeof t);
        ck_assert(vs_utf8_valid(t, sizeof t));
        for (i = 0; i < sizeof t; i++) {
            t[i] = '\0';
            ck_assert_msg(!vs_utf8_valid(t, sizeof t), "NUL at %zu", i);
            t[i] = (char)0xC0;
            ck_assert_msg(!vs_utf8_valid(t, sizeof t), "0xC0 at %zu", i);
            t[i] = 'x';
        }
        memcpy(t + 20, "\xe2\x82\xac", 3); /* a euro sign mid-text */
        ck_assert(vs_utf8_valid(t, sizeof t));
    }
    r = vs_utf8_repair("a\xffz\xe2\x82", 5);
    ck_assert_str_eq(r, "a\xef\xbf\xbdz\xef\xbf\xbd\xef\xbf\xbd");
    ck_assert(vs_utf8_valid(r, strlen(r)));
    free(r);
    r = vs_utf8_repair(S, strlen(S));
    ck_assert_str_eq(r, S);
    free(r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kernel_utf8");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_cursor_conversions);
    tcase_add_test(tc, test_valid_and_repair);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
