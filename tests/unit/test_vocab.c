/* Unit tests for the shared vocabulary in src/util/: checked arithmetic
 * (checked.h), the streaming UTF-8 prefix check (utf8.h), vs_error_oom (error.h),
 * vs_json_str_of (json.h) and vs_cmp_str (cmp.h). Expected values are hand
 * arithmetic and the byte tables of RFC 3629, section 4. */
#include <check.h>
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/checked.h"
#include "util/cmp.h"
#include "util/error.h"
#include "util/json.h"
#include "util/utf8.h"

#include "check_run.h"

START_TEST(test_checked)
{
    uint64_t r = 0;
    ck_assert_int_eq(vs_checked_add(&r, 2, 3), 0);
    ck_assert_uint_eq(r, 5);
    ck_assert_int_eq(vs_checked_add(&r, UINT64_MAX - 1, 1), 0);
    ck_assert_uint_eq(r, UINT64_MAX);
    ck_assert_int_eq(vs_checked_add(&r, UINT64_MAX, 1), 1);
    ck_assert_uint_eq(r, 0); /* wrapped, as the builtin leaves it */
    ck_assert_int_eq(vs_checked_mul(&r, 1ULL << 32, 1ULL << 31), 0);
    ck_assert_uint_eq(r, 1ULL << 63);
    ck_assert_int_eq(vs_checked_mul(&r, 1ULL << 32, 1ULL << 32), 1);
    ck_assert_int_eq(vs_checked_mul(&r, 0, UINT64_MAX), 0);
    ck_assert_uint_eq(r, 0);
    /* 4294967296 x 4294967295 = 18446744069414584320, still below 2^64 */
    ck_assert_int_eq(vs_checked_mul(&r, 4294967296ULL, 4294967295ULL), 0);
    ck_assert_uint_eq(r, 18446744069414584320ULL);
}
END_TEST

static int prefix(const char *s, size_t n)
{
    return vs_utf8_prefix((const unsigned char *)s, n);
}

START_TEST(test_utf8_prefix)
{
    ck_assert_int_eq(prefix("a", 1), 1);
    ck_assert_int_eq(prefix("\xc3\xa9", 2), 2);         /* é */
    ck_assert_int_eq(prefix("\xe2\x82\xac", 3), 3);     /* € */
    ck_assert_int_eq(prefix("\xf0\x9f\x98\x80", 4), 4); /* 😀 */
    ck_assert_int_eq(prefix("\xc3", 1), -1);            /* cut: more may come */
    ck_assert_int_eq(prefix("\xe2\x82", 2), -1);
    ck_assert_int_eq(prefix("\xf0\x9f\x98", 3), -1);
    ck_assert_int_eq(prefix("\xc0\x80", 2), 0); /* overlong lead bytes */
    ck_assert_int_eq(prefix("\xc1\xbf", 2), 0);
    ck_assert_int_eq(prefix("\xf5\x80\x80\x80", 4), 0); /* past U+10FFFF */
    ck_assert_int_eq(prefix("\x80", 1), 0);             /* a lone continuation */
    ck_assert_int_eq(prefix("\xc3x", 2), 0);
    ck_assert_int_eq(prefix("\xe0\x9f\x80", 3), 0);     /* overlong 3-byte */
    ck_assert_int_eq(prefix("\xed\xa0\x80", 3), 0);     /* a surrogate, U+D800 */
    ck_assert_int_eq(prefix("\xf0\x8f\xbf\xbf", 4), 0); /* overlong 4-byte */
    ck_assert_int_eq(prefix("\xf4\x90\x80\x80", 4), 0); /* U+110000 */
    ck_assert_int_eq(prefix("\xe0\x9f", 2), -1);        /* range checks wait for the end */
    /* a complete sequence agrees with vs_utf8_seq */
    ck_assert_uint_eq(vs_utf8_seq((const unsigned char *)"\xf0\x9f\x98\x80", 4), 4);
    ck_assert_uint_eq(vs_utf8_seq((const unsigned char *)"\xed\xa0\x80", 3), 0);
}
END_TEST

static int sorted(const char *const *v, size_t n)
{
    size_t i;
    for (i = 1; i < n; i++)
        if (strcmp(v[i - 1], v[i]) > 0)
            return 0;
    return 1;
}

START_TEST(test_oom_str_cmp)
{
    vs_error err;
    json_t *o = json_pack("{s:s, s:i}", "name", "llama", "n", 3);
    const char *names[] = {"vllm", "llama.cpp", "sglang", "TensorRT-LLM", "llama"};
    vs_error_clear(&err);
    ck_assert_int_eq(vs_error_oom(&err), VS_ENOMEM);
    ck_assert_int_eq(err.code, VS_ENOMEM);
    ck_assert_str_eq(err.message, "out of memory");
    ck_assert_int_eq(vs_error_oom(NULL), VS_ENOMEM);

    ck_assert_ptr_nonnull(o);
    ck_assert_str_eq(vs_json_str_of(o, "name"), "llama");
    ck_assert_ptr_null(vs_json_str_of(o, "n"));
    ck_assert_ptr_null(vs_json_str_of(o, "missing"));
    ck_assert_ptr_null(vs_json_str_of(NULL, "name"));
    json_decref(o);

    qsort(names, 5, sizeof names[0], vs_cmp_str);
    ck_assert(sorted(names, 5));
    ck_assert_str_eq(names[0], "TensorRT-LLM"); /* 'T' (0x54) sorts before 'l' */
    ck_assert_str_eq(names[1], "llama");
    ck_assert_str_eq(names[2], "llama.cpp");
    ck_assert_str_eq(names[4], "vllm");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("util_vocab");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_checked);
    tcase_add_test(tc, test_utf8_prefix);
    tcase_add_test(tc, test_oom_str_cmp);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
