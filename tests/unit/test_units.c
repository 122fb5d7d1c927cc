/* Exact units: parsing, overflow, exact and rounded display, the worked examples. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sheet/units.h"

#include "check_run.h"

static uint64_t bytes_ok(const char *text)
{
    uint64_t v = 0;
    vs_error err;
    vs_error_clear(&err);
    ck_assert_msg(vs_units_parse_bytes(&v, text, &err) == 0, "%s: %s", text, err.message);
    return v;
}

static int bytes_fails(const char *text, vs_error *err)
{
    uint64_t v = 12345;
    int rc;
    vs_error_clear(err);
    rc = vs_units_parse_bytes(&v, text, err);
    ck_assert_msg(rc < 0, "%s should fail, got %llu", text, (unsigned long long)v);
    ck_assert_int_eq(err->code, rc);
    ck_assert_uint_eq(v, 12345); /* nothing written on failure */
    return rc;
}

static uint64_t count_ok(const char *text)
{
    uint64_t v = 0;
    vs_error err;
    vs_error_clear(&err);
    ck_assert_msg(vs_units_parse_count(&v, text, &err) == 0, "%s: %s", text, err.message);
    return v;
}

START_TEST(test_unit_names)
{
    vs_unit u;
    vs_error err;
    const char *names[] = {"B", "KB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB"};
    const uint64_t sizes[] = {1ULL,       1000ULL,    1000000ULL, 1000000000ULL, 1000000000000ULL,
                              1ULL << 10, 1ULL << 20, 1ULL << 30, 1ULL << 40};
    size_t i;
    for (i = 0; i < 9; i++) {
        ck_assert_int_eq(vs_unit_parse(&u, names[i], &err), 0);
        ck_assert_str_eq(vs_unit_name(u), names[i]);
        ck_assert_uint_eq(vs_unit_bytes(u), sizes[i]);
    }
    ck_assert_int_eq(vs_unit_parse(&u, "gib", &err), VS_EUNIT);
    ck_assert_ptr_nonnull(strstr(err.message, "GiB"));
    ck_assert_int_eq(vs_unit_parse(&u, "", &err), VS_EUNIT);
}
END_TEST

START_TEST(test_parse_bytes)
{
    ck_assert_uint_eq(bytes_ok("24GB"), 24000000000ULL);
    ck_assert_uint_eq(bytes_ok("6GiB"), 6442450944ULL);
    ck_assert_uint_eq(bytes_ok("1.5 TiB"), 1649267441664ULL);
    ck_assert_uint_eq(bytes_ok("13.04GiB"), 14001593385ULL); /* 14001593384.96 rounds up */
    ck_assert_uint_eq(bytes_ok("0.5GB"), 500000000ULL);
    ck_assert_uint_eq(bytes_ok(".5GB"), 500000000ULL);
    ck_assert_uint_eq(bytes_ok("7e9B"), 7000000000ULL);
    ck_assert_uint_eq(bytes_ok("14e9 B"), 14000000000ULL);
    ck_assert_uint_eq(bytes_ok("1.25e3KB"), 1250000ULL);
    ck_assert_uint_eq(bytes_ok("0B"), 0);
    ck_assert_uint_eq(bytes_ok("000042B"), 42);
    ck_assert_uint_eq(bytes_ok("512KiB"), 524288ULL);
    ck_assert_uint_eq(bytes_ok("3MiB"), 3145728ULL);
    ck_assert_uint_eq(bytes_ok("2.000000000000000000000000000TB"), 2000000000000ULL);
}
END_TEST

START_TEST(test_fraction_rounds_up)
{
    ck_assert_uint_eq(bytes_ok("0.1B"), 1);
    ck_assert_uint_eq(bytes_ok("1.0000001B"), 2);
    ck_assert_uint_eq(bytes_ok("1e-30GB"), 1);
    ck_assert_uint_eq(bytes_ok("1.5B"), 2);
    ck_assert_uint_eq(bytes_ok("0.001KiB"), 2);        /* 1.024 B */
    ck_assert_uint_eq(bytes_ok("0.0009765625KiB"), 1); /* exactly 1 B, not 2 */
    /* the plain form (digits, a point, a unit) read without the decimal
     * arithmetic, and its edges, where the decimal reading takes over */
    ck_assert_uint_eq(bytes_ok("12.5GB"), 12500000000ULL);
    ck_assert_uint_eq(bytes_ok("12.5 GB"), 12500000000ULL);
    ck_assert_uint_eq(bytes_ok("0.1KiB"), 103);         /* 102.4 B */
    ck_assert_uint_eq(bytes_ok("1.0000001KB"), 1001);   /* 1,000.0001 B */
    ck_assert_uint_eq(bytes_ok("3.14159MiB"), 3294196); /* 3,294,195.63... B */
    ck_assert_uint_eq(bytes_ok("5.GB"), 5000000000ULL);
    ck_assert_uint_eq(bytes_ok("0005GB"), 5000000000ULL);
    ck_assert_uint_eq(bytes_ok("999999999999999999B"), 999999999999999999ULL);   /* 18 digits */
    ck_assert_uint_eq(bytes_ok("9999999999999999999B"), 9999999999999999999ULL); /* 19 */
    ck_assert_uint_eq(bytes_ok("18446744073.709551615GB"), UINT64_MAX);
    ck_assert_uint_eq(bytes_ok("+5GB"), 5000000000ULL);
    ck_assert_uint_eq(bytes_ok("5e3MB"), 5000000000ULL);
}
END_TEST

START_TEST(test_bytes_overflow)
{
    vs_error err;
    ck_assert_uint_eq(bytes_ok("18446744073709551615B"), UINT64_MAX);
    ck_assert_int_eq(bytes_fails("18446744073709551616B", &err), VS_EUNIT);
    ck_assert_ptr_nonnull(strstr(err.message, "64 bits"));
    ck_assert_int_eq(bytes_fails("16777216TiB", &err), VS_EUNIT); /* exactly 2^64 */
    ck_assert_uint_eq(bytes_ok("16777215TiB"), 16777215ULL << 40);
    ck_assert_int_eq(bytes_fails("1e5000B", &err), VS_EUNIT);
    ck_assert_int_eq(bytes_fails("99999999999999999999999TB", &err), VS_EUNIT);
    ck_assert_int_eq(bytes_fails("18446744073.709551616GB", &err), VS_EUNIT); /* 2^64 B */
    ck_assert_int_eq(bytes_fails("16777216.0TiB", &err), VS_EUNIT);
}
END_TEST

START_TEST(test_bytes_errors)
{
    vs_error err;
    ck_assert_int_eq(bytes_fails("24", &err), VS_EUNIT); /* a missing unit */
    ck_assert_ptr_nonnull(strstr(err.message, "no unit"));
    ck_assert_int_eq(bytes_fails("24gb", &err), VS_EUNIT);
    ck_assert_ptr_nonnull(strstr(err.message, "did you mean GB"));
    ck_assert_int_eq(bytes_fails("24GBs", &err), VS_EUNIT);
    ck_assert_int_eq(bytes_fails("24 Gi", &err), VS_EUNIT);
    ck_assert_int_eq(bytes_fails("GB", &err), VS_EVALUE);
    ck_assert_int_eq(bytes_fails("", &err), VS_EVALUE);
    ck_assert_int_eq(bytes_fails("-1GB", &err), VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "negative"));
    ck_assert_int_eq(bytes_fails("1.2.3GB", &err), VS_EUNIT);
    ck_assert_int_eq(bytes_fails("1,000GB", &err), VS_EUNIT);
    /* more significant digits than we keep exactly: refused, not approximated */
    ck_assert_int_eq(
        bytes_fails("1.00000000000000000000000000000000000000000000000000000000000000001GB", &err),
        VS_EVALUE);
}
END_TEST

START_TEST(test_parse_count)
{
    vs_error err;
    uint64_t v;
    ck_assert_uint_eq(count_ok("7e9"), 7000000000ULL);
    ck_assert_uint_eq(count_ok("6.74B"), 6740000000ULL);
    ck_assert_uint_eq(count_ok("6738415616"), 6738415616ULL);
    ck_assert_uint_eq(count_ok("70M"), 70000000ULL);
    ck_assert_uint_eq(count_ok("1.5K"), 1500ULL);
    ck_assert_uint_eq(count_ok("1T"), 1000000000000ULL);
    ck_assert_uint_eq(count_ok("13e9"), 13000000000ULL);
    ck_assert_uint_eq(count_ok("1.3E10"), 13000000000ULL);
    ck_assert_uint_eq(count_ok("0.0001T"), 100000000ULL);
    ck_assert_int_eq(vs_units_parse_count(&v, "1.5", &err), VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "whole"));
    ck_assert_int_eq(vs_units_parse_count(&v, "1.2345K", &err), VS_EVALUE);
    ck_assert_int_eq(vs_units_parse_count(&v, "7G", &err), VS_EVALUE);
    ck_assert_int_eq(vs_units_parse_count(&v, "7GB", &err), VS_EVALUE);
    ck_assert_int_eq(vs_units_parse_count(&v, "1e20", &err), VS_EUNIT);
    ck_assert_int_eq(vs_units_parse_count(&v, "x", &err), VS_EVALUE);
}
END_TEST

START_TEST(test_parse_uint)
{
    vs_error err;
    uint64_t v;
    ck_assert_int_eq(vs_units_parse_uint(&v, "4096", &err), 0);
    ck_assert_uint_eq(v, 4096);
    ck_assert_int_eq(vs_units_parse_uint(&v, "18446744073709551615", &err), 0);
    ck_assert_uint_eq(v, UINT64_MAX);
    ck_assert_int_eq(vs_units_parse_uint(&v, "18446744073709551616", &err), VS_EVALUE);
    ck_assert_int_eq(vs_units_parse_uint(&v, "4k", &err), VS_EVALUE);
    ck_assert_int_eq(vs_units_parse_uint(&v, "-4", &err), VS_EVALUE);
    ck_assert_int_eq(vs_units_parse_uint(&v, "", &err), VS_EVALUE);
    ck_assert_int_eq(vs_units_parse_uint(&v, "1e3", &err), VS_EVALUE);
}
END_TEST

START_TEST(test_exact)
{
    char b[128];
    ck_assert_str_eq(vs_units_exact(b, sizeof b, 24000000000ULL, VS_UNIT_GIB),
                     "22.351741790771484375");
    ck_assert_str_eq(vs_units_exact(b, sizeof b, 24000000000ULL, VS_UNIT_GB), "24");
    ck_assert_str_eq(vs_units_exact(b, sizeof b, 6442450944ULL, VS_UNIT_GIB), "6");
    ck_assert_str_eq(vs_units_exact(b, sizeof b, 1, VS_UNIT_TB), "0.000000000001");
    ck_assert_str_eq(vs_units_exact(b, sizeof b, 1, VS_UNIT_TIB),
                     "0.0000000000009094947017729282379150390625");
    ck_assert_str_eq(vs_units_exact(b, sizeof b, UINT64_MAX, VS_UNIT_B), "18446744073709551615");
}
END_TEST

START_TEST(test_round_half_up)
{
    char b[64];
    ck_assert_str_eq(vs_units_round(b, sizeof b, 24000000000ULL, VS_UNIT_GIB, 2), "22.35");
    ck_assert_str_eq(vs_units_round(b, sizeof b, 14000000000ULL, VS_UNIT_GIB, 2), "13.04");
    /* exactly half: 1.125 GB -> 1.13 (half up), 1.115 GB -> 1.12 */
    ck_assert_str_eq(vs_units_round(b, sizeof b, 1125000000ULL, VS_UNIT_GB, 2), "1.13");
    ck_assert_str_eq(vs_units_round(b, sizeof b, 1115000000ULL, VS_UNIT_GB, 2), "1.12");
    ck_assert_str_eq(vs_units_round(b, sizeof b, 1114999999ULL, VS_UNIT_GB, 2), "1.11");
    /* carries through the integer part */
    ck_assert_str_eq(vs_units_round(b, sizeof b, 9999999999ULL, VS_UNIT_GB, 2), "10.00");
    ck_assert_str_eq(vs_units_round(b, sizeof b, (1ULL << 30) - 1, VS_UNIT_GIB, 2), "1.00");
    ck_assert_str_eq(vs_units_round(b, sizeof b, 1500000000ULL, VS_UNIT_GB, 0), "2");
    ck_assert_str_eq(vs_units_round(b, sizeof b, 0, VS_UNIT_GIB, 2), "0.00");
    ck_assert_str_eq(vs_units_round(b, sizeof b, UINT64_MAX, VS_UNIT_TIB, 2), "16777216.00");
}
END_TEST

/* A table row's three amounts, worked by hand: the bytes grouped, GB and GiB
 * to two places half up and never grouped (2e12 B is 2000.00 GB, and
 * 2e12 / 2^30 = 1862.6451... GiB); the half-up carry into the integer part
 * (999,995,000 B is 0.999995 GB -> 1.00 GB; 2^64 - 1 B is 2^34 GiB less
 * 2^-30 -> 17179869184.00 GiB, 18446744073.709... GB -> 18446744073.71). */
START_TEST(test_amounts_of_a_row)
{
    static const struct {
        uint64_t bytes;
        const char *b, *gb, *gib;
    } cases[] = {
        {0, "0 B", "0.00 GB", "0.00 GiB"},
        {24000000000ULL, "24,000,000,000 B", "24.00 GB", "22.35 GiB"},
        {117440512ULL, "117,440,512 B", "0.12 GB", "0.11 GiB"},
        {2000000000000ULL, "2,000,000,000,000 B", "2000.00 GB", "1862.65 GiB"},
        {999995000ULL, "999,995,000 B", "1.00 GB", "0.93 GiB"},
        {UINT64_MAX, "18,446,744,073,709,551,615 B", "18446744073.71 GB", "17179869184.00 GiB"},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char b[VS_UNITS_AMOUNT], gb[VS_UNITS_AMOUNT], gib[VS_UNITS_AMOUNT];
        vs_units_amounts(cases[i].bytes, b, gb, gib);
        ck_assert_str_eq(b, cases[i].b);
        ck_assert_str_eq(gb, cases[i].gb);
        ck_assert_str_eq(gib, cases[i].gib);
    }
}
END_TEST

START_TEST(test_seed_examples)
{
    char b[160];
    uint64_t w, reserve = bytes_ok("6GiB"), env;
    const unsigned bits[] = {32, 16, 8, 4};
    const char *weights[] = {"26.08", "13.04", "6.52", "3.26"};
    const char *envelopes[] = {"32.08", "19.04", "12.52", "9.26"};
    size_t i;
    ck_assert_str_eq(vs_units_describe(b, sizeof b, 24000000000ULL),
                     "24,000,000,000 B = 24.00 GB = 22.35 GiB");
    ck_assert_str_eq(vs_units_describe(b, sizeof b, 14000000000ULL),
                     "14,000,000,000 B = 14.00 GB = 13.04 GiB");
    ck_assert_str_eq(vs_units_describe(b, sizeof b, 26000000000ULL),
                     "26,000,000,000 B = 26.00 GB = 24.21 GiB");
    for (i = 0; i < 4; i++) {
        ck_assert_int_eq(vs_units_mul(&w, count_ok("7e9"), bits[i]), 0);
        w /= 8;
        ck_assert_str_eq(vs_units_round(b, sizeof b, w, VS_UNIT_GIB, 2), weights[i]);
        ck_assert_int_eq(vs_units_add(&env, w, reserve), 0);
        ck_assert_str_eq(vs_units_round(b, sizeof b, env, VS_UNIT_GIB, 2), envelopes[i]);
    }
}
END_TEST

START_TEST(test_describe_scales)
{
    char b[160];
    ck_assert_str_eq(vs_units_describe(b, sizeof b, 0), "0 B");
    ck_assert_str_eq(vs_units_describe(b, sizeof b, 512), "512 B");
    ck_assert_str_eq(vs_units_describe(b, sizeof b, 6291456), "6,291,456 B = 6.29 MB = 6.00 MiB");
    ck_assert_str_eq(vs_units_describe(b, sizeof b, 2048), "2,048 B = 2.05 KB = 2.00 KiB");
    ck_assert_str_eq(vs_units_describe(b, sizeof b, 2000000000000ULL),
                     "2,000,000,000,000 B = 2,000.00 GB = 1,862.65 GiB");
    ck_assert_str_eq(vs_units_grouped(b, sizeof b, 1234567), "1,234,567");
    ck_assert_str_eq(vs_units_grouped(b, sizeof b, 123), "123");
    ck_assert_str_eq(vs_units_grouped(b, sizeof b, UINT64_MAX), "18,446,744,073,709,551,615");
    {
        /* every digit count, against printf's digits with a comma put
         * before every third digit from the right: digits come two at a
         * time, groups three at a time */
        uint64_t v = 0;
        int k;
        for (k = 0; k < 20; k++) {
            char ref[32], want[40], got[40];
            size_t i, n, j = 0;
            v = v * 10 + (uint64_t)(k % 10);
            n = (size_t)snprintf(ref, sizeof ref, "%llu", (unsigned long long)v);
            for (i = 0; i < n; i++) {
                if (i > 0 && (n - i) % 3 == 0)
                    want[j++] = ',';
                want[j++] = ref[i];
            }
            want[j] = '\0';
            ck_assert_str_eq(vs_units_grouped(got, sizeof got, v), want);
        }
        /* rounded and exact figures cut to fit, as the grouped ones */
        ck_assert_str_eq(vs_units_round(b, 4, 24000000000ULL, VS_UNIT_GIB, 2), "22.");
        ck_assert_str_eq(vs_units_round(b, 3, 24000000000ULL, VS_UNIT_GIB, 2), "22");
        ck_assert_str_eq(vs_units_exact(b, 6, 24000000000ULL, VS_UNIT_GIB), "22.35");
        ck_assert_str_eq(vs_units_exact(b, 1, 24000000000ULL, VS_UNIT_GIB), "");
        ck_assert_str_eq(vs_units_grouped(b, sizeof b, 0), "0");
        ck_assert_str_eq(vs_units_grouped(b, 4, 1234567), "1,2"); /* cut to fit */
    }
    /* a short buffer truncates, never overflows */
    ck_assert_str_eq(vs_units_describe(b, 6, 24000000000ULL), "24,00");
}
END_TEST

/* vs_units_describe against the parts it is made of, for amounts at every
 * scale and around every rounding carry: vs_units_grouped for the bytes,
 * vs_units_round to two decimals (its integer part grouped) for each unit. */
static void reference_part(char *out, size_t outlen, uint64_t bytes, vs_unit u)
{
    char r[64], g[40];
    const char *dot;
    vs_units_round(r, sizeof r, bytes, u, 2);
    dot = strchr(r, '.');
    vs_units_grouped(g, sizeof g, strtoull(r, NULL, 10));
    snprintf(out, outlen, "%s%s %s", g, dot ? dot : "", vs_unit_name(u));
}

START_TEST(test_describe_agrees_with_round_and_grouped)
{
    static const uint64_t edges[] = {
        999,        1000,       1004,       1005,           99994,          99995,
        99999,      100000,     99999999,   100000000,      999994999,      999995000,
        1073736581, 1073741823, 1073741824, UINT64_MAX / 2, UINT64_MAX - 1, UINT64_MAX};
    uint64_t x = 88172645463325252ULL;
    int i;
    for (i = 0; i < 200000; i++) {
        uint64_t bytes;
        char got[200], want[200], b[40], dp[64], bp[64];
        if (i < (int)(sizeof edges / sizeof edges[0])) {
            bytes = edges[i];
        } else {
            x ^= x << 13; /* xorshift: every magnitude, by a random shift */
            x ^= x >> 7;
            x ^= x << 17;
            bytes = x >> (x % 64);
        }
        vs_units_grouped(b, sizeof b, bytes);
        if (bytes < 1000) {
            snprintf(want, sizeof want, "%s B", b);
        } else {
            vs_unit du = bytes >= 100000000ULL ? VS_UNIT_GB
                         : bytes >= 100000ULL  ? VS_UNIT_MB
                                               : VS_UNIT_KB;
            vs_unit bu = bytes >= 100000000ULL ? VS_UNIT_GIB
                         : bytes >= 100000ULL  ? VS_UNIT_MIB
                                               : VS_UNIT_KIB;
            reference_part(dp, sizeof dp, bytes, du);
            reference_part(bp, sizeof bp, bytes, bu);
            snprintf(want, sizeof want, "%s B = %s = %s", b, dp, bp);
        }
        ck_assert_str_eq(vs_units_describe(got, sizeof got, bytes), want);
    }
}
END_TEST

START_TEST(test_checked_arith)
{
    uint64_t v;
    ck_assert_int_eq(vs_units_add(&v, UINT64_MAX - 1, 1), 0);
    ck_assert_uint_eq(v, UINT64_MAX);
    ck_assert_int_eq(vs_units_add(&v, UINT64_MAX, 1), VS_EUNIT);
    ck_assert_int_eq(vs_units_mul(&v, 1ULL << 32, 1ULL << 31), 0);
    ck_assert_uint_eq(v, 1ULL << 63);
    ck_assert_int_eq(vs_units_mul(&v, 1ULL << 32, 1ULL << 32), VS_EUNIT);
    ck_assert_int_eq(vs_units_mul(&v, 0, UINT64_MAX), 0);
    ck_assert_uint_eq(v, 0);
}
END_TEST

/* Forgiving counts: k is K; Ki, Mi are powers of two; the echo says which. */
START_TEST(test_count_suffixes)
{
    uint64_t v;
    vs_error err;
    char note[200];
    ck_assert_int_eq(vs_units_parse_count(&v, "32k", &err), 0);
    ck_assert_uint_eq(v, 32000); /* 32 x 10^3 */
    ck_assert_int_eq(vs_units_parse_count(&v, "128K", &err), 0);
    ck_assert_uint_eq(v, 128000);
    ck_assert_int_eq(vs_units_parse_count(&v, "1M", &err), 0);
    ck_assert_uint_eq(v, 1000000);
    ck_assert_int_eq(vs_units_parse_count(&v, "32Ki", &err), 0);
    ck_assert_uint_eq(v, 32768); /* 32 x 1024 */
    ck_assert_int_eq(vs_units_parse_count(&v, "1Mi", &err), 0);
    ck_assert_uint_eq(v, 1048576);
    ck_assert_int_eq(vs_units_parse_count(&v, "0.5Ki", &err), 0);
    ck_assert_uint_eq(v, 512);
    /* near misses name the fix */
    ck_assert_int_eq(vs_units_parse_count(&v, "7G", &err), VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "did you mean 7B (10^9) or 7Gi (2^30)?"));
    ck_assert_int_eq(vs_units_parse_count(&v, "2m", &err), VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "did you mean 2M?"));
    ck_assert_int_eq(vs_units_parse_count(&v, "3x", &err), VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "Ki, Mi, Gi, Ti"));
    /* the notes for an echo */
    ck_assert_ptr_nonnull(vs_units_count_note(note, sizeof note, "32k"));
    ck_assert_str_eq(note, "32k is 32,000 (K = 10^3, as everywhere here); for 32,768 write 32Ki");
    ck_assert_ptr_nonnull(vs_units_count_note(note, sizeof note, "1M"));
    ck_assert_str_eq(note,
                     "1M is 1,000,000 (M = 10^6, as everywhere here); for 1,048,576 write 1Mi");
    ck_assert_ptr_nonnull(vs_units_count_note(note, sizeof note, "32Ki"));
    ck_assert_str_eq(note, "32Ki is 32,768 (Ki = 2^10)");
    ck_assert_ptr_null(vs_units_count_note(note, sizeof note, "4096"));
    ck_assert_ptr_null(vs_units_count_note(note, sizeof note, "7B"));
    ck_assert_ptr_null(vs_units_count_note(note, sizeof note, "zz"));
}
END_TEST

/* Forgiving amounts: a bare prefix, and a number apart from its unit. */
START_TEST(test_bytes_hints)
{
    uint64_t v;
    vs_error err;
    ck_assert_int_eq(vs_units_parse_bytes(&v, "24G", &err), VS_EUNIT);
    ck_assert_ptr_nonnull(strstr(err.message, "did you mean 24GB or 24GiB?"));
    ck_assert_int_eq(vs_units_parse_bytes(&v, "512m", &err), VS_EUNIT);
    ck_assert_ptr_nonnull(strstr(err.message, "did you mean 512MB or 512MiB?"));
    ck_assert_int_eq(vs_units_parse_bytes(&v, "1.5Ti", &err), VS_EUNIT);
    ck_assert_ptr_nonnull(strstr(err.message, "did you mean 1.5TB or 1.5TiB?"));
    ck_assert_int_eq(vs_units_unit_word("GiB"), 1);
    ck_assert_int_eq(vs_units_unit_word("gb"), 1);
    ck_assert_int_eq(vs_units_unit_word("G"), 1);
    ck_assert_int_eq(vs_units_unit_word("GPU"), 0);
    ck_assert_int_eq(vs_units_space_error(&err, "24", "GiB"), VS_EUNIT);
    ck_assert_str_eq(err.message,
                     "'24 GiB': write 24GiB (no space between the number and its unit)");
    ck_assert_int_eq(vs_units_space_error(&err, "24", "cards"), 0);
    ck_assert_int_eq(vs_units_space_error(&err, "kv", "GiB"), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("units");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_unit_names);
    tcase_add_test(tc, test_parse_bytes);
    tcase_add_test(tc, test_fraction_rounds_up);
    tcase_add_test(tc, test_bytes_overflow);
    tcase_add_test(tc, test_bytes_errors);
    tcase_add_test(tc, test_parse_count);
    tcase_add_test(tc, test_parse_uint);
    tcase_add_test(tc, test_exact);
    tcase_add_test(tc, test_round_half_up);
    tcase_add_test(tc, test_amounts_of_a_row);
    tcase_add_test(tc, test_seed_examples);
    tcase_add_test(tc, test_describe_scales);
    tcase_add_test(tc, test_describe_agrees_with_round_and_grouped);
    tcase_add_test(tc, test_checked_arith);
    tcase_add_test(tc, test_count_suffixes);
    tcase_add_test(tc, test_bytes_hints);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
