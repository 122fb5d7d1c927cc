/* The replay guard (src/kernel/replay.c): a signature is accepted once; at
 * least `capacity` recent ones are remembered, in bounded memory. */
#include <stdio.h>
#include <string.h>

#include "kernel/replay.h"

#include "check_run.h"

/* The 64 hex digits of a made-up signature number i. */
static void sig_of(unsigned i, char out[65])
{
    snprintf(out, 65, "%08x%056x", i, 0xabcdefu ^ i);
}

START_TEST(test_second_time_is_a_replay)
{
    vs_replay *r = vs_replay_new(16);
    /* the signature of the HMAC test vector (key a0436f6c-..., four frames) */
    const char *sig = "c127e7d687f9b04ac08b5d4d8d044e23d5af43c9f4c7df6ab23ca59210031b80";
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(vs_replay_seen(r, (const unsigned char *)sig, 64), 0);
    ck_assert_int_eq(vs_replay_seen(r, (const unsigned char *)sig, 64), 1);
    ck_assert_int_eq(vs_replay_seen(r, (const unsigned char *)sig, 64), 1);
    /* one digit different, or a prefix: another signature */
    ck_assert_int_eq(
        vs_replay_seen(r,
                       (const unsigned char
                            *)"d127e7d687f9b04ac08b5d4d8d044e23d5af43c9f4c7df6ab23ca59210031b80",
                       64),
        0);
    ck_assert_int_eq(vs_replay_seen(r, (const unsigned char *)sig, 63), 0);
    ck_assert_int_eq(vs_replay_seen(r, (const unsigned char *)sig, 63), 1);
    /* no key, no signature: nothing to remember */
    ck_assert_int_eq(vs_replay_seen(r, (const unsigned char *)"", 0), 0);
    ck_assert_int_eq(vs_replay_seen(r, (const unsigned char *)"", 0), 0);
    vs_replay_free(r);
    vs_replay_free(NULL);
}
END_TEST

START_TEST(test_remembers_at_least_capacity)
{
    /* With capacity 100, after 10,000 signatures the last 100 are all still
     * refused; none of the 10,000 was taken for another. */
    vs_replay *r = vs_replay_new(100);
    char s[65];
    unsigned i;
    for (i = 0; i < 10000; i++) {
        sig_of(i, s);
        ck_assert_int_eq(vs_replay_seen(r, (const unsigned char *)s, 64), 0);
    }
    for (i = 10000 - 100; i < 10000; i++) {
        sig_of(i, s);
        ck_assert_int_eq(vs_replay_seen(r, (const unsigned char *)s, 64), 1);
    }
    /* the oldest are forgotten: memory stays bounded (at most 2 × 100 kept) */
    sig_of(0, s);
    ck_assert_int_eq(vs_replay_seen(r, (const unsigned char *)s, 64), 0);
    vs_replay_free(r);
}
END_TEST

START_TEST(test_capacity_bounds)
{
    ck_assert_ptr_null(vs_replay_new(0));
    ck_assert_ptr_null(vs_replay_new((size_t)1 << 30));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("replay");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_second_time_is_a_replay);
    tcase_add_test(tc, test_remembers_at_least_capacity);
    tcase_add_test(tc, test_capacity_bounds);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
