/* What a session keeps from one cell to the next. The results kept between
 * runs of a cell (render/result_memo.h): a key finds exactly what was kept
 * under it and nothing else, and a cell run again writes, line for line, the
 * bytes its first run wrote (and a fresh session writes), while a line
 * changed in one word gets its own result. The component views a cell leaves
 * to the next: they follow the sheet, a failed cell's included. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "lang/interp.h"
#include "render/bundle.h"
#include "render/result_memo.h"
#include "util/buf.h"

static vs_bundle *bundle_of(const char *json)
{
    vs_buf b = VS_BUF_INIT;
    vs_buf_puts(&b, json);
    return vs_bundle_from_buf(&b);
}

static void key_of(vs_result_key *k, const char *verb, const char *a, const char *b, uint64_t n)
{
    vs_result_key_init(k, verb);
    vs_result_key_str(k, a);
    vs_result_key_str(k, b);
    vs_result_key_u64(k, n);
}

/* Whether the memo gives back json under this key (NULL: nothing). */
static int gives(vs_result_memo *m, const char *verb, const char *a, const char *b, uint64_t n,
                 const char *json)
{
    vs_result_key k;
    vs_bundle *got;
    int ok;
    key_of(&k, verb, a, b, n);
    got = vs_result_memo_get(m, &k);
    ok = json ? got && got->len == strlen(json) && !strcmp(got->json, json) : got == NULL;
    vs_bundle_free(got);
    return ok;
}

START_TEST(a_key_finds_what_was_kept_under_it_only)
{
    vs_result_memo *m = vs_result_memo_new();
    vs_bundle *one = bundle_of("{\"text/plain\":\"one\"}");
    vs_result_key k;
    ck_assert_ptr_nonnull(m);
    ck_assert(gives(m, "convert", "1GB", "MiB", 3, NULL)); /* empty */
    key_of(&k, "convert", "1GB", "MiB", 3);
    vs_result_memo_put(m, &k, one);
    vs_bundle_free(one); /* the memo keeps its own copy */
    ck_assert(gives(m, "convert", "1GB", "MiB", 3, "{\"text/plain\":\"one\"}"));
    ck_assert(gives(m, "convert", "1GB", "MiB", 3, "{\"text/plain\":\"one\"}")); /* again */
    /* one field different; fields moved across their boundary; NULL and "" */
    ck_assert(gives(m, "convert", "1GB", "MiB", 4, NULL));
    ck_assert(gives(m, "convert", "1GB", "GiB", 3, NULL));
    ck_assert(gives(m, "reserve", "1GB", "MiB", 3, NULL));
    ck_assert(gives(m, "convert", "1GBM", "iB", 3, NULL));
    key_of(&k, "convert", NULL, "x", 0);
    one = bundle_of("{\"null\":1}");
    vs_result_memo_put(m, &k, one);
    vs_bundle_free(one);
    ck_assert(gives(m, "convert", NULL, "x", 0, "{\"null\":1}"));
    ck_assert(gives(m, "convert", "", "x", 0, NULL));
    /* the same key again: the new result in place of the old */
    key_of(&k, "convert", "1GB", "MiB", 3);
    one = bundle_of("{\"text/plain\":\"two\"}");
    vs_result_memo_put(m, &k, one);
    vs_bundle_free(one);
    ck_assert(gives(m, "convert", "1GB", "MiB", 3, "{\"text/plain\":\"two\"}"));
    vs_result_memo_free(m);
}
END_TEST

START_TEST(what_is_too_long_is_not_kept)
{
    vs_result_memo *m = vs_result_memo_new();
    char name[600];
    vs_buf big = VS_BUF_INIT;
    vs_bundle *b;
    vs_result_key k;
    memset(name, 'n', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    /* a key over its block */
    key_of(&k, "reserve", name, "s", 1);
    ck_assert_int_eq(k.over, 1);
    b = bundle_of("{}");
    vs_result_memo_put(m, &k, b);
    vs_bundle_free(b);
    ck_assert_ptr_null(vs_result_memo_get(m, &k));
    /* a result over VS_RESULT_MEMO_MAX bytes */
    vs_buf_fill(&big, ' ', VS_RESULT_MEMO_MAX + 1);
    b = vs_bundle_from_buf(&big);
    key_of(&k, "reserve", "big", "s", 1);
    vs_result_memo_put(m, &k, b);
    vs_bundle_free(b);
    ck_assert(gives(m, "reserve", "big", "s", 1, NULL));
    /* results of 4,000 bytes each: no more are kept than the memo's bytes
     * hold, and those kept are found */
    {
        int i, found = 0;
        char big_name[32];
        for (i = 0; i < 6000; i++) {
            vs_buf one = VS_BUF_INIT;
            snprintf(big_name, sizeof big_name, "big_%d", i);
            vs_buf_fill(&one, 'x', 4000);
            b = vs_bundle_from_buf(&one);
            key_of(&k, "reserve", big_name, "s", 1);
            vs_result_memo_put(m, &k, b);
            vs_bundle_free(b);
        }
        for (i = 0; i < 6000; i++) {
            vs_bundle *got;
            snprintf(big_name, sizeof big_name, "big_%d", i);
            key_of(&k, "reserve", big_name, "s", 1);
            got = vs_result_memo_get(m, &k);
            if (got) {
                ck_assert_uint_eq(got->len, 4000);
                found++;
            }
            vs_bundle_free(got);
        }
        ck_assert_int_le(found, VS_RESULT_MEMO_BYTES / 4000);
        ck_assert_int_ge(found, 1000);
    }
    /* no memo (memory short): nothing kept, nothing found */
    vs_result_memo_put(NULL, &k, NULL);
    ck_assert_ptr_null(vs_result_memo_get(NULL, &k));
    vs_result_memo_free(m);
}
END_TEST

/* part i's key, from the name part_i, and its result {"n":i}, written into
 * name and json */
static void part(vs_result_key *k, char *name, size_t name_size, char *json, size_t json_size,
                 int i)
{
    snprintf(name, name_size, "part_%d", i);
    snprintf(json, json_size, "{\"n\":%d}", i);
    key_of(k, "reserve", name, "bench", (uint64_t)i);
}

static void put_part(vs_result_memo *m, int i)
{
    char name[32], json[64];
    vs_result_key k;
    vs_bundle *b;
    part(&k, name, sizeof name, json, sizeof json, i);
    b = bundle_of(json);
    vs_result_memo_put(m, &k, b);
    vs_bundle_free(b);
}

/* 1 when part i gives its own result, 0 when nothing; fails on another's */
static int finds_part(vs_result_memo *m, int i)
{
    char name[32], json[64];
    vs_result_key k;
    vs_bundle *got;
    part(&k, name, sizeof name, json, sizeof json, i);
    got = vs_result_memo_get(m, &k);
    if (got)
        ck_assert_str_eq(got->json, json);
    vs_bundle_free(got);
    return got != NULL;
}

/* As the table grows (from 256 slots), the results of a long cell (200
 * lines) all stay found; ten times as many, nearly all; past its largest
 * size, some go. Whatever is found is the result kept under that key, never
 * another's. */
START_TEST(a_grown_memo_keeps_every_result_under_its_key)
{
    vs_result_memo *m = vs_result_memo_new();
    int i, found = 0;
    for (i = 0; i < 200; i++)
        put_part(m, i);
    for (i = 0; i < 200; i++)
        ck_assert_msg(finds_part(m, i), "part_%d", i);
    for (; i < 2000; i++)
        put_part(m, i);
    for (i = 0; i < 2000; i++)
        found += finds_part(m, i);
    ck_assert_int_ge(found, 1900);
    for (; i < 3 * VS_RESULT_MEMO_SLOTS; i++)
        put_part(m, i);
    for (i = 0, found = 0; i < 3 * VS_RESULT_MEMO_SLOTS; i++)
        found += finds_part(m, i);
    ck_assert_int_le(found, VS_RESULT_MEMO_SLOTS);
    ck_assert_int_ge(found, VS_RESULT_MEMO_SLOTS / 2);
    vs_result_memo_free(m);
}
END_TEST

/* A result written over again and again by one of another size (a cell
 * edited in one word for a long session) leaves its old places unused until
 * the memo is full: it then starts over, so that new results are still kept
 * (those from before are gone), and each key still gives its own result. */
static vs_bundle *filled(char c, size_t n)
{
    vs_buf b = VS_BUF_INIT;
    vs_buf_fill(&b, c, n);
    return vs_bundle_from_buf(&b);
}

START_TEST(a_full_memo_starts_over)
{
    vs_result_memo *m = vs_result_memo_new();
    vs_result_key k;
    vs_bundle *b = bundle_of("{\"first\":1}"), *got;
    int i;
    key_of(&k, "reserve", "first", "s", 1);
    vs_result_memo_put(m, &k, b);
    vs_bundle_free(b);
    ck_assert(gives(m, "reserve", "first", "s", 1, "{\"first\":1}"));
    /* 3,000 and 3,001 bytes in turn under one key: 12,000 of them are twice
     * the memo's bytes */
    for (i = 0; i < 12000; i++) {
        b = filled(i % 2 ? 'b' : 'a', 3000 + (size_t)(i % 2));
        key_of(&k, "reserve", "edited", "s", 1);
        vs_result_memo_put(m, &k, b);
        vs_bundle_free(b);
    }
    ck_assert_int_gt(12000 * 3000, 2 * (int)VS_RESULT_MEMO_BYTES);
    key_of(&k, "reserve", "edited", "s", 1);
    got = vs_result_memo_get(m, &k);
    ck_assert_ptr_nonnull(got);
    ck_assert_uint_eq(got->len, 3001); /* the last one, i = 11,999 */
    ck_assert_int_eq(got->json[0], 'b');
    ck_assert_int_eq(got->json[3000], 'b');
    vs_bundle_free(got);
    ck_assert(gives(m, "reserve", "first", "s", 1, NULL)); /* gone when it started over */
    b = bundle_of("{\"after\":1}");
    key_of(&k, "reserve", "after", "s", 1);
    vs_result_memo_put(m, &k, b);
    vs_bundle_free(b);
    ck_assert(gives(m, "reserve", "after", "s", 1, "{\"after\":1}"));
    vs_result_memo_free(m);
}
END_TEST

/* every bundle a cell writes, as raw JSON text, in order */
typedef struct {
    char *json[32];
    size_t n;
} raw_results;

static void raw_free(raw_results *r)
{
    while (r->n)
        free(r->json[--r->n]);
}

static void on_display(void *ctx, const vs_bundle *b, const char *id, int update)
{
    raw_results *r = ctx;
    (void)id;
    (void)update;
    ck_assert_uint_lt(r->n, 32);
    r->json[r->n++] = strdup(b->json);
}

static int run_rc(vs_interp *ip, const char *cell, raw_results *r)
{
    vs_sink sink;
    vs_bundle *last = NULL;
    vs_error err;
    int rc;
    memset(&sink, 0, sizeof sink);
    sink.ctx = r;
    sink.display = on_display;
    rc = vs_interp_execute(ip, cell, &sink, &last, &err);
    if (last)
        on_display(r, last, NULL, 0);
    vs_bundle_free(last);
    return rc;
}

static void run_raw(vs_interp *ip, const char *cell, raw_results *r)
{
    ck_assert_int_eq(run_rc(ip, cell, r), 0);
}

static const char cell[] = "sheet \"memo\"\n"
                           "reserve a 2GiB status=estimated source=\"line a\"\n"
                           "reserve b status=unknown source=\"to measure\"\n"
                           "convert 1GB MiB\n"
                           "reserve c 512MiB class=kv_cache phase=decode\n"
                           "reserve 6GiB\n"
                           "convert 3 GB GiB\n";

/* the same cell with one word changed: 2GB for 1GB */
static const char edited_cell[] = "sheet \"memo\"\n"
                                  "reserve a 2GiB status=estimated source=\"line a\"\n"
                                  "reserve b status=unknown source=\"to measure\"\n"
                                  "convert 2GB MiB\n"
                                  "reserve c 512MiB class=kv_cache phase=decode\n"
                                  "reserve 6GiB\n"
                                  "convert 3 GB GiB\n";

START_TEST(a_cell_run_again_writes_the_same_bytes)
{
    vs_interp *ip = vs_interp_new(NULL), *fresh = vs_interp_new(NULL);
    raw_results first = {{0}, 0}, again = {{0}, 0}, other = {{0}, 0}, edited = {{0}, 0};
    size_t i;
    run_raw(ip, cell, &first);
    run_raw(ip, cell, &again);
    run_raw(fresh, cell, &other);
    ck_assert_uint_eq(first.n, 7);
    ck_assert_uint_eq(again.n, 7);
    ck_assert_uint_eq(other.n, 7);
    /* the `sheet` line says "created" the first time and "already current"
     * after; every other line writes the same bytes */
    for (i = 1; i < 7; i++) {
        ck_assert_str_eq(again.json[i], first.json[i]);
        ck_assert_str_eq(other.json[i], first.json[i]);
    }
    /* one word changed: that line's own result (2 x 10^9 bytes), the rest
     * as before */
    run_raw(ip, edited_cell, &edited);
    ck_assert_uint_eq(edited.n, 7);
    ck_assert_ptr_nonnull(strstr(edited.json[3], "2,000,000,000 B"));
    ck_assert_ptr_null(strstr(first.json[3], "2,000,000,000 B"));
    ck_assert_ptr_nonnull(strstr(first.json[3], "1,000,000,000 B"));
    for (i = 1; i < 7; i++)
        if (i != 3)
            ck_assert_str_eq(edited.json[i], first.json[i]);
    raw_free(&first);
    raw_free(&again);
    raw_free(&other);
    raw_free(&edited);
    vs_interp_free(ip);
    vs_interp_free(fresh);
}
END_TEST

/* The component views a cell leaves to the next (lang/verb_ctx.c) are of
 * the objects they were read from: a cell that failed after replacing a
 * component leaves the views of its replacement, and the next cell, on the
 * sheet put back, shows the component as it was; one that succeeded shows
 * the new one. The `sheet` line's payload lists every component from the
 * views: 1 GiB = 1,073,741,824 B, 3 GiB = 3,221,225,472 B, 5 GiB =
 * 5,368,709,120 B. */
START_TEST(the_views_a_cell_leaves_follow_the_sheet)
{
    vs_interp *ip = vs_interp_new(NULL);
    raw_results r = {{0}, 0};
    run_raw(ip, "sheet \"views\"\nreserve a 1GiB\nreserve b 2GiB\n", &r);
    raw_free(&r);
    ck_assert_int_lt(run_rc(ip, "reserve a 3GiB\nsheet \"views\"\nno_such_verb\n", &r), 0);
    raw_free(&r);
    run_raw(ip, "sheet \"views\"\n", &r);
    ck_assert_uint_eq(r.n, 1);
    ck_assert_ptr_nonnull(strstr(r.json[0], "\"name\":\"a\",\"bytes\":1073741824"));
    ck_assert_ptr_null(strstr(r.json[0], "3221225472"));
    ck_assert_ptr_nonnull(strstr(r.json[0], "\"name\":\"b\",\"bytes\":2147483648"));
    raw_free(&r);
    run_raw(ip, "reserve a 5GiB\n", &r);
    raw_free(&r);
    run_raw(ip, "sheet \"views\"\n", &r);
    ck_assert_ptr_nonnull(strstr(r.json[0], "\"name\":\"a\",\"bytes\":5368709120"));
    ck_assert_ptr_null(strstr(r.json[0], "1073741824"));
    raw_free(&r);
    vs_interp_free(ip);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("result_memo");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, a_key_finds_what_was_kept_under_it_only);
    tcase_add_test(tc, what_is_too_long_is_not_kept);
    tcase_add_test(tc, a_grown_memo_keeps_every_result_under_its_key);
    tcase_add_test(tc, a_full_memo_starts_over);
    tcase_add_test(tc, a_cell_run_again_writes_the_same_bytes);
    tcase_add_test(tc, the_views_a_cell_leaves_follow_the_sheet);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
