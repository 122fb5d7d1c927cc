/* util/json: the serialiser writes exactly what jansson's json_dumps writes,
 * the copy is equal and shares its scalars, strings are checked as jansson
 * checks them. jansson is the reference throughout. */
#include <check.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/json.h"
#include "util/utf8.h"
#include "util/word.h"

#include "check_run.h"

/* vs_json_dump and json_dumps(JSON_COMPACT | JSON_ENCODE_ANY) agree on v. */
static void same_as_jansson(json_t *v)
{
    char *ref = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    vs_buf b = VS_BUF_INIT;
    ck_assert_ptr_nonnull(ref);
    vs_buf_puts(&b, "prefix:"); /* it appends */
    ck_assert_int_eq(vs_json_dump(v, &b), 0);
    ck_assert_str_eq(vs_buf_str(&b) + 7, ref);
    ck_assert_uint_eq(b.len, strlen(ref) + 7);
    free(ref);
    vs_buf_free(&b);
}

/* Every byte jansson escapes, and the ones it does not. */
START_TEST(strings_escape_like_jansson)
{
    char s[200];
    size_t i, n = 0;
    json_t *v;
    for (i = 1; i < 0x80; i++)
        s[n++] = (char)i;
    memcpy(s + n, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\x7f\"\\/", 14);
    n += 14;
    v = json_stringn(s, n);
    ck_assert_ptr_nonnull(v);
    same_as_jansson(v);
    json_decref(v);
    /* an embedded NUL, and runs of every length around the 8-byte fast path */
    v = json_stringn("a\0b", 3);
    same_as_jansson(v);
    json_decref(v);
    for (n = 0; n < 40; n++) {
        char t[64];
        memset(t, 'x', n);
        t[n] = n % 3 ? '"' : '\n';
        memset(t + n + 1, 'y', 40 - n);
        v = json_stringn(t, 41);
        same_as_jansson(v);
        json_decref(v);
    }
}
END_TEST

/* Strings shorter than a block, of every length, each ending where its
 * allocation ends (ASan sees any read past it), with a byte to escape or a
 * multi-byte character at every position: the short tail is read as a
 * padded block made of overlapping words, which must cover every byte once
 * read and none beyond. The buffer starts empty (the long escaper's path)
 * and keeps its room after (the one-block path for short clean strings). */
START_TEST(short_strings_read_no_byte_past_their_end)
{
    static const char *const specials[] = {"\"",       "\\",           "\n", "\x01",
                                           "\xc3\xa9", "\xe2\x82\xac", "<"};
    vs_buf b = VS_BUF_INIT;
    size_t len, at, k;
    for (len = 0; len < 16; len++)
        for (k = 0; k < sizeof specials / sizeof specials[0]; k++)
            for (at = 0; at <= len; at++) {
                size_t sl = strlen(specials[k]);
                char *s, *ref;
                json_t *v;
                if (at + sl > len && len)
                    continue;
                s = malloc(len ? len : 1);
                ck_assert_ptr_nonnull(s);
                memset(s, 'a' + (int)(len % 20), len);
                if (len)
                    memcpy(s + at, specials[k], sl);
                /* jansson escapes its own copy; the escaper reads s itself */
                v = json_stringn(s, len);
                ck_assert_ptr_nonnull(v);
                ref = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
                ck_assert_ptr_nonnull(ref);
                vs_buf_reset(&b);
                ck_assert_int_eq(vs_json_dump_string(s, len, &b), 0);
                ck_assert_str_eq(vs_buf_str(&b), ref);
                free(ref);
                json_decref(v);
                free(s);
            }
    vs_buf_free(&b);
}
END_TEST

/* The digits of integers, two at a time, are printf's: every length from 1
 * to 20 digits, at and around each power of ten, and the largest. */
START_TEST(u64_digits_are_printfs)
{
    uint64_t p = 1;
    int k, d;
    for (k = 0; k < 20; k++, p *= 10)
        for (d = -2; d <= 2; d++) {
            uint64_t v = p + (uint64_t)(int64_t)d;
            char want[32], got[32], *start;
            if (d < 0 && p + (uint64_t)(int64_t)d > p)
                continue; /* below zero */
            snprintf(want, sizeof want, "%llu", (unsigned long long)v);
            got[31] = '\0';
            start = vs_word_u64_digits(v, got + 31);
            ck_assert_str_eq(start, want);
        }
    {
        char got[32], *start;
        got[31] = '\0';
        start = vs_word_u64_digits(UINT64_MAX, got + 31);
        ck_assert_str_eq(start, "18446744073709551615");
    }
}
END_TEST

/* Random strings over a mix of plain ASCII, escapes and multi-byte sequences,
 * at every alignment: the 8-byte scan must land on each special byte. */
START_TEST(random_strings_dump_like_jansson)
{
    static const char *const pieces[] = {"a",
                                         "bc",
                                         "defghijk",
                                         "\"",
                                         "\\",
                                         "\n",
                                         "\t",
                                         "\x01",
                                         "\x1f",
                                         "/",
                                         "\x7f",
                                         "\xc3\xa9",
                                         "\xe2\x82\xac",
                                         "\xf0\x9f\x98\x80",
                                         " ",
                                         "<td style=\"x\">"};
    unsigned seed = 12345;
    int round;
    for (round = 0; round < 3000; round++) {
        char buf[256];
        size_t n = 0;
        int k, count;
        json_t *v;
        seed = seed * 1103515245u + 12345u;
        count = (int)((seed >> 16) % 24);
        for (k = 0; k < count; k++) {
            const char *p;
            seed = seed * 1103515245u + 12345u;
            p = pieces[(seed >> 16) % (sizeof pieces / sizeof pieces[0])];
            memcpy(buf + n, p, strlen(p));
            n += strlen(p);
        }
        v = json_stringn(buf, n);
        ck_assert_ptr_nonnull(v);
        same_as_jansson(v);
        json_decref(v);
    }
}
END_TEST

/* Escapes write up to six bytes for one: strings dense with them, of every
 * length around the block size and long ones, outgrow the room reserved at
 * the start, which must grow as they go; long plain runs between them cross
 * many blocks. */
START_TEST(dense_escapes_grow_the_room)
{
    static char buf[70000];
    size_t n, i;
    json_t *v;
    for (n = 0; n < 70; n++) {
        memset(buf, '\x01', n);
        v = json_stringn(buf, n);
        same_as_jansson(v);
        json_decref(v);
    }
    for (i = 0; i < sizeof buf; i++) /* runs of plain text, escapes, UTF-8 */
        buf[i] = i % 97 < 60 ? (char)('a' + i % 26) : i % 97 < 90 ? '\x02' : '\n';
    memcpy(buf + 1000, "\xe2\x82\xac\xf0\x9f\x98\x80", 7);
    v = json_stringn(buf, sizeof buf);
    ck_assert_ptr_nonnull(v);
    same_as_jansson(v);
    json_decref(v);
}
END_TEST

/* vs_buf_printf writes strings and integers itself: the C library's
 * snprintf of the same format and arguments is what it must write, for the
 * conversions it takes (%s, %d, %u with l, ll and z, %%) and for the ones
 * it hands on (widths, precisions, floats), on an empty and a long buffer. */
#define SAME_AS_SNPRINTF(...)                                                                      \
    do {                                                                                           \
        char want[512];                                                                            \
        vs_buf got = VS_BUF_INIT;                                                                  \
        snprintf(want, sizeof want, __VA_ARGS__);                                                  \
        vs_buf_printf(&got, __VA_ARGS__);                                                          \
        ck_assert_str_eq(vs_buf_str(&got), want);                                                  \
        vs_buf_fill(&got, 'x', 300);                                                               \
        vs_buf_printf(&got, __VA_ARGS__);                                                          \
        ck_assert_str_eq(vs_buf_str(&got) + strlen(want) + 300, want);                             \
        ck_assert_uint_eq(got.len, 2 * strlen(want) + 300);                                        \
        vs_buf_free(&got);                                                                         \
    } while (0)
START_TEST(buf_printf_writes_as_snprintf)
{
    SAME_AS_SNPRINTF("plain text, no conversion");
    SAME_AS_SNPRINTF("%s", "");
    SAME_AS_SNPRINTF("%s\n", "a line with é and 100%");
    SAME_AS_SNPRINTF("%d %d %d %u %u", 0, -1, -2147483647 - 1, 0u, 4294967295u);
    SAME_AS_SNPRINTF("%ld %lu %lld %llu", -9000000000L, 18446744073709551615UL,
                     -9223372036854775807LL - 1, 18446744073709551615ULL);
    SAME_AS_SNPRINTF("%zu bytes, 100%% of %s", (size_t)12345678901234ULL, "them");
    SAME_AS_SNPRINTF("%u GPU%s; cards=%lld", 1u, "", 8LL);
    /* handed on: a width, a precision, a float, a character */
    SAME_AS_SNPRINTF("%5s|%-4d|%.2f|%c|%s", "ab", 7, 3.14159, 'z', "end");
    SAME_AS_SNPRINTF("%.3s and %s", "abcdef", "ghi");
    SAME_AS_SNPRINTF("%zd %x %s", (ptrdiff_t)-5, 255u, "hex");
    SAME_AS_SNPRINTF("a long line: %s", "0123456789012345678901234567890123456789012345678901234567"
                                        "8901234567890123456789012345678901234567890123456789");
}
END_TEST
#undef SAME_AS_SNPRINTF

START_TEST(object_of_builds_in_order_and_releases_on_failure)
{
    json_t *shared = json_string("kept"), *o;
    char *text;
    o = vs_json_object_of("kind", json_string("convert"), "bytes", json_integer(24), "same",
                          json_incref(shared), NULL);
    ck_assert_ptr_nonnull(o);
    text = json_dumps(o, JSON_COMPACT);
    ck_assert_str_eq(text, "{\"kind\":\"convert\",\"bytes\":24,\"same\":\"kept\"}");
    free(text);
    json_decref(o);
    /* a NULL value (a failed allocation upstream) fails the whole object, and
     * the other values are released, not leaked (the sanitizer build checks) */
    ck_assert_ptr_null(
        vs_json_object_of("a", json_incref(shared), "b", NULL, "c", json_incref(shared), NULL));
    ck_assert_int_eq(shared->refcount, 1);
    json_decref(shared);
}
END_TEST

START_TEST(trees_dump_like_jansson)
{
    json_t *v = json_pack(
        "{s:s, s:i, s:I, s:I, s:I, s:f, s:f, s:b, s:b, s:n, s:[], s:{}, s:[i, [s, {s:[]}], f],"
        " s:{s:{s:{}}}}",
        "text/plain", "line 1\nline 2\t\"quoted\" \\ back", "zero", 0, "max",
        (json_int_t)9223372036854775807LL, "min", (json_int_t)(-9223372036854775807LL - 1), "neg",
        (json_int_t)-42, "pi", 3.141592653589793, "tenth", 0.1, "t", 1, "f", 0, "null",
        "empty_array", "empty_object", "nested", 1, "x", "k", 1e300, "deep", "a", "b");
    json_t *keyed = json_object();
    ck_assert_ptr_nonnull(v);
    /* keys are escaped as strings are, and kept in insertion order */
    json_object_set_new(keyed, "z\"key\n", json_integer(1));
    json_object_set_new(keyed, "a", json_integer(2));
    json_object_set_new(keyed, "\xc3\xa9t\xc3\xa9", json_true());
    json_object_set_new(v, "keyed", keyed);
    same_as_jansson(v);
    same_as_jansson(json_object_get(v, "pi")); /* any value, as JSON_ENCODE_ANY */
    same_as_jansson(json_object_get(v, "text/plain"));
    json_decref(v);
}
END_TEST

/* What jansson refuses to write, vs_json_dump refuses too. */
START_TEST(invalid_utf8_fails_like_jansson)
{
    static const char *const bad[] = {
        "\xff", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "ok then \xe2\x82", "\x80"};
    size_t i;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *s = json_stringn_nocheck(bad[i], strlen(bad[i]));
        json_t *o = json_pack("{s:o}", "k", s);
        vs_buf b = VS_BUF_INIT;
        ck_assert_ptr_null(json_dumps(o, JSON_COMPACT));
        ck_assert_int_eq(vs_json_dump(o, &b), -1);
        ck_assert(!vs_utf8_valid_nul(bad[i], strlen(bad[i])));
        ck_assert_ptr_null(vs_json_stringn(bad[i], strlen(bad[i])));
        ck_assert_ptr_null(json_string(bad[i]));
        vs_buf_free(&b);
        json_decref(o);
    }
    {
        static const char ok[] = "caf\xc3\xa9 \xf0\x9f\x98\x80 and a long ASCII tail";
        ck_assert(vs_utf8_valid_nul(ok, sizeof ok - 1));
        ck_assert(!vs_utf8_valid_nul(ok, 8)); /* cut inside the 4-byte sequence */
    }
    ck_assert(vs_utf8_valid_nul("a\0b", 3));
    ck_assert_uint_eq(vs_utf8_seq((const unsigned char *)"\xe2\x82\xac", 3), 3);
    ck_assert_uint_eq(vs_utf8_seq((const unsigned char *)"\xe2\x82\xac", 2), 0);
}
END_TEST

START_TEST(stringn_keeps_bytes_and_length)
{
    json_t *s = vs_json_stringn("a\0b\xc3\xa9", 5);
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(json_string_length(s), 5);
    ck_assert_int_eq(memcmp(json_string_value(s), "a\0b\xc3\xa9", 5), 0);
    json_decref(s);
}
END_TEST

/* The copy is equal, its containers are new (changing one leaves the other),
 * and its scalars are the same objects. */
START_TEST(copy_is_equal_and_shares_scalars)
{
    json_t *v =
        json_pack("{s:s, s:[{s:s, s:I}, n, b], s:{}, s:f}", "title", "a sheet", "components",
                  "name", "kv_cache", "bytes", (json_int_t)17179869184LL, 1, "card", "x", 0.5);
    json_t *c = vs_json_copy(v), *comp, *ccomp;
    char *a, *b;
    ck_assert_ptr_nonnull(c);
    ck_assert_ptr_ne(c, v);
    ck_assert(json_equal(c, v));
    a = json_dumps(v, JSON_COMPACT);
    b = json_dumps(c, JSON_COMPACT);
    ck_assert_str_eq(a, b); /* key order kept */
    free(a);
    free(b);
    comp = json_array_get(json_object_get(v, "components"), 0);
    ccomp = json_array_get(json_object_get(c, "components"), 0);
    ck_assert_ptr_ne(comp, ccomp);
    ck_assert_ptr_eq(json_object_get(comp, "name"), json_object_get(ccomp, "name"));
    ck_assert_ptr_ne(json_object_get(v, "card"), json_object_get(c, "card"));
    json_object_set_new(ccomp, "bytes", json_null());
    json_array_append_new(json_object_get(c, "components"), json_true());
    ck_assert_int_eq(json_integer_value(json_object_get(comp, "bytes")), 17179869184LL);
    ck_assert_uint_eq(json_array_size(json_object_get(v, "components")), 3);
    /* freeing either leaves the other whole */
    json_decref(v);
    ck_assert_str_eq(json_string_value(json_object_get(ccomp, "name")), "kv_cache");
    json_decref(c);
    ck_assert_ptr_null(vs_json_copy(NULL));
}
END_TEST

/* vs_json_array_foreach: every element in order, its array argument
 * evaluated once, nothing for NULL or a non-array, break and nesting work. */
static int evaluations;
static json_t *counted(json_t *a)
{
    evaluations++;
    return a;
}

/* The writer gives the text json_dumps gives for the same tree: commas in
 * nested objects and arrays, empty ones, every scalar, jansson values, a
 * value written beside and spliced in, and a string that is not
 * UTF-8 written with U+FFFD instead of failing. */
/* A member is its key then its value: the same text as the two calls. */
START_TEST(members_are_a_key_then_a_value)
{
    vs_buf a = VS_BUF_INIT, b = VS_BUF_INIT;
    vs_jw wa = VS_JW_INIT(&a), wb = VS_JW_INIT(&b);
    json_t *v = json_pack("[i, s]", 1, "x");
    vs_jw_open(&wa, '{');
    vs_jw_member_str(&wa, "s", "a \"q\"");
    vs_jw_member_str(&wa, "none", NULL);
    vs_jw_member_u64(&wa, "u", UINT64_MAX);
    vs_jw_member_bool(&wa, "b", 1);
    vs_jw_member_bytes(&wa, "known", 1, 42);
    vs_jw_member_bytes(&wa, "unknown", 0, 42);
    vs_jw_member_value(&wa, "v", v);
    vs_jw_close(&wa, '}');
    vs_jw_open(&wb, '{');
    vs_jw_key(&wb, "s");
    vs_jw_str(&wb, "a \"q\"");
    vs_jw_key(&wb, "none");
    vs_jw_null(&wb);
    vs_jw_key(&wb, "u");
    vs_jw_u64(&wb, UINT64_MAX);
    vs_jw_key(&wb, "b");
    vs_jw_bool(&wb, 1);
    vs_jw_key(&wb, "known");
    vs_jw_u64(&wb, 42);
    vs_jw_key(&wb, "unknown");
    vs_jw_null(&wb);
    vs_jw_key(&wb, "v");
    vs_jw_value(&wb, v);
    vs_jw_close(&wb, '}');
    ck_assert_str_eq(vs_buf_str(&a), vs_buf_str(&b));
    ck_assert_str_eq(vs_buf_str(&a),
                     "{\"s\":\"a \\\"q\\\"\",\"none\":null,\"u\":18446744073709551615,"
                     "\"b\":true,\"known\":42,\"unknown\":null,\"v\":[1,\"x\"]}");
    json_decref(v);
    vs_buf_free(&a);
    vs_buf_free(&b);
}
END_TEST

START_TEST(writer_writes_what_jansson_dumps)
{
    vs_buf out = VS_BUF_INIT, side = VS_BUF_INIT;
    vs_jw w = VS_JW_INIT(&out), sw = VS_JW_INIT(&side);
    json_t *comp = json_pack("{s:s, s:I, s:n}", "name", "kv \"cache\"", "bytes",
                             (json_int_t)17179869184LL, "phase", "a"),
           *want = json_pack("{s:s, s:I, s:n, s:s, s:[], s:{}, s:[i, s:i, b, b, n, I, s], s:o, "
                             "s:{s:[s, s]}, s:s}",
                             "name", "kv \"cache\"", "bytes", (json_int_t)17179869184LL, "phase",
                             "kind", "component", "empty_list", "empty_object", "mixed", 1, "two",
                             -2, 1, 0, (json_int_t)INT64_MIN, "\n\t", "tree",
                             json_pack("{s:[i]}", "x", 3), "nested", "names", "a", "b", "bad",
                             "a\xEF\xBF\xBD"
                             "b");
    char *dumped = json_dumps(want, JSON_COMPACT);

    vs_jw_open(&w, '{');
    vs_jw_key(&w, "name");
    vs_jw_value(&w, json_object_get(comp, "name"));
    vs_jw_key(&w, "bytes");
    vs_jw_value(&w, json_object_get(comp, "bytes"));
    vs_jw_key(&w, "phase");
    vs_jw_value(&w, json_object_get(comp, "phase"));
    vs_jw_key(&w, "kind");
    vs_jw_str(&w, "component");
    vs_jw_key(&w, "empty_list");
    vs_jw_open(&w, '[');
    vs_jw_close(&w, ']');
    vs_jw_key(&w, "empty_object");
    vs_jw_open(&w, '{');
    vs_jw_close(&w, '}');
    vs_jw_key(&w, "mixed");
    vs_jw_open(&w, '[');
    vs_jw_u64(&w, 1);
    vs_jw_str(&w, "two");
    vs_jw_i64(&w, -2);
    vs_jw_bool(&w, 1);
    vs_jw_bool(&w, 0);
    vs_jw_bytes(&w, 0, 99);
    vs_jw_i64(&w, INT64_MIN);
    vs_jw_strn(&w, "\n\tX", 2);
    vs_jw_close(&w, ']');
    vs_jw_key(&w, "tree");
    vs_jw_value(&w, json_object_get(want, "tree"));
    /* a list written beside, then spliced in as one value */
    vs_jw_open(&sw, '[');
    vs_jw_str(&sw, "a");
    vs_jw_str(&sw, "b");
    vs_jw_close(&sw, ']');
    vs_jw_key(&w, "nested");
    vs_jw_open(&w, '{');
    vs_jw_key(&w, "names");
    vs_jw_raw(&w, side.data, side.len);
    vs_jw_close(&w, '}');
    vs_jw_key(&w, "bad");
    vs_jw_str(&w, "a\xff"
                  "b");
    vs_jw_close(&w, '}');

    ck_assert(!vs_buf_failed(&out));
    ck_assert_str_eq(vs_buf_str(&out), dumped);
    free(dumped);
    json_decref(want);
    json_decref(comp);
    vs_buf_free(&out);
    vs_buf_free(&side);
}
END_TEST

START_TEST(array_foreach_evaluates_once)
{
    json_t *a = json_pack("[i, i, i, i]", 1, 2, 3, 4), *v, *w, *o = json_object();
    size_t i, j;
    json_int_t sum = 0;
    int turns = 0;
    evaluations = 0;
    vs_json_array_foreach(counted(a), i, v) sum += json_integer_value(v);
    ck_assert_int_eq(sum, 10);
    ck_assert_int_eq(evaluations, 1);
    vs_json_array_foreach(NULL, i, v) turns++;
    vs_json_array_foreach(o, i, v) turns++;
    ck_assert_int_eq(turns, 0);
    vs_json_array_foreach(a, i, v)
    {
        if (json_integer_value(v) == 3)
            break;
        vs_json_array_foreach(a, j, w)
        {
            turns++;
        }
    }
    ck_assert_int_eq(turns, 8); /* two outer turns of four inner ones */
    ck_assert_uint_eq(i, 2);
    json_decref(a);
    json_decref(o);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("json");
    TCase *tc = tcase_create("json");
    tcase_add_test(tc, strings_escape_like_jansson);
    tcase_add_test(tc, dense_escapes_grow_the_room);
    tcase_add_test(tc, random_strings_dump_like_jansson);
    tcase_add_test(tc, short_strings_read_no_byte_past_their_end);
    tcase_add_test(tc, u64_digits_are_printfs);
    tcase_add_test(tc, buf_printf_writes_as_snprintf);
    tcase_add_test(tc, object_of_builds_in_order_and_releases_on_failure);
    tcase_add_test(tc, trees_dump_like_jansson);
    tcase_add_test(tc, invalid_utf8_fails_like_jansson);
    tcase_add_test(tc, stringn_keeps_bytes_and_length);
    tcase_add_test(tc, copy_is_equal_and_shares_scalars);
    tcase_add_test(tc, array_foreach_evaluates_once);
    tcase_add_test(tc, writer_writes_what_jansson_dumps);
    tcase_add_test(tc, members_are_a_key_then_a_value);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
