/* util/pool: blocks of every size keep their bytes, are reused by size class,
 * survive a free on another thread, and jansson works on top of the pool
 * (whole trees built, copied, serialised and freed). Each test runs in its own
 * process (Check forks), so installing the pool in one leaves the others alone. */
#include <check.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "util/json.h"
#include "util/pool.h"

#include "check_run.h"

START_TEST(blocks_keep_their_bytes_at_every_size)
{
    enum { N = 700 };
    unsigned char *p[N];
    size_t i, k;
    for (i = 0; i < N; i++) {
        p[i] = vs_pool_alloc(i);
        ck_assert_ptr_nonnull(p[i]);
        ck_assert_uint_eq((uintptr_t)p[i] % 8, 0);
        memset(p[i], (int)(i & 0xFF), i);
    }
    for (i = 0; i < N; i++)
        for (k = 0; k < i; k++)
            ck_assert_uint_eq(p[i][k], i & 0xFF);
    for (i = 0; i < N; i++)
        vs_pool_free(p[i]);
    vs_pool_free(NULL);
}
END_TEST

START_TEST(a_freed_block_is_reused_by_its_size_class)
{
    void *a = vs_pool_alloc(40), *b;
    vs_pool_free(a);
    b = vs_pool_alloc(33); /* 33 and 40 bytes share a class (48 with the header) */
    ck_assert_ptr_eq(a, b);
    vs_pool_free(b);
    b = vs_pool_alloc(100); /* another class: not the freed block */
    ck_assert_ptr_ne(a, b);
    vs_pool_free(b);
    /* large blocks go to malloc and come back whole */
    a = vs_pool_alloc(1 << 20);
    ck_assert_ptr_nonnull(a);
    memset(a, 7, 1 << 20);
    vs_pool_free(a);
    /* a size the header would wrap around is refused, not under-allocated */
    ck_assert_ptr_null(vs_pool_alloc(SIZE_MAX - 4));
}
END_TEST

static void *free_all(void *arg)
{
    void **blocks = arg;
    size_t i;
    for (i = 0; blocks[i]; i++)
        vs_pool_free(blocks[i]);
    /* and this thread's own blocks, from the ones it was given */
    for (i = 0; i < 100; i++)
        blocks[i] = vs_pool_alloc(24);
    for (i = 0; i < 100; i++)
        vs_pool_free(blocks[i]);
    return NULL;
}

START_TEST(blocks_made_on_one_thread_are_freed_on_another)
{
    void *blocks[1001];
    pthread_t t;
    size_t i;
    for (i = 0; i < 1000; i++) {
        blocks[i] = vs_pool_alloc(i % 300);
        memset(blocks[i], 1, i % 300);
    }
    blocks[1000] = NULL;
    ck_assert_int_eq(pthread_create(&t, NULL, free_all, blocks), 0);
    ck_assert_int_eq(pthread_join(t, NULL), 0);
    /* this thread's lists are intact */
    for (i = 0; i < 1000; i++) {
        void *p = vs_pool_alloc(64);
        memset(p, 2, 64);
        vs_pool_free(p);
    }
}
END_TEST

START_TEST(jansson_builds_copies_dumps_and_frees_through_the_pool)
{
    json_malloc_t m;
    json_free_t f;
    json_t *root, *copy;
    vs_buf b = VS_BUF_INIT;
    char *ref;
    int installed = vs_pool_install(), i;
    json_get_alloc_funcs(&m, &f);
    if (installed) {
        ck_assert_ptr_eq(m, vs_pool_alloc);
        ck_assert_ptr_eq(f, vs_pool_free);
    } else {
        /* a sanitizer build: jansson stays on malloc so ASan sees every node */
        ck_assert_ptr_eq(f, free);
    }
    ck_assert_int_eq(vs_pool_install(), installed); /* a second call changes nothing */
    root = json_object();
    for (i = 0; i < 2000; i++) {
        char key[32], val[600];
        snprintf(key, sizeof key, "component_%d", i);
        memset(val, 'a' + i % 26, (size_t)(i % 599));
        val[i % 599] = '\0';
        json_object_set_new(root, key,
                            json_pack("{s:s, s:I, s:[i, s]}", "name", val, "bytes",
                                      (json_int_t)i << 20, "list", i, key));
    }
    copy = vs_json_copy(root);
    ck_assert(json_equal(root, copy));
    ref = json_dumps(root, JSON_COMPACT);
    ck_assert_ptr_nonnull(ref);
    ck_assert_int_eq(vs_json_dump(copy, &b), 0);
    ck_assert_str_eq(vs_buf_str(&b), ref);
    vs_pool_json_free(ref); /* json_dumps's text goes back to jansson's allocator */
    json_decref(root);
    ck_assert_uint_eq(json_object_size(copy), 2000);
    json_decref(copy);
    vs_buf_free(&b);
}
END_TEST

/* 1 when the pool is installed. A sanitizer build (or VRAMSHEET_POOL=0) keeps
 * jansson and vs_buf on malloc (util/pool.h), so that ASan sees every block:
 * a test of the pool's own behaviour then says on stdout that it is skipped,
 * and checks only what holds on malloc. A plain build must install it. */
static int pool_or_say(const char *test)
{
    int sanitized = 0;
    const char *env = getenv("VRAMSHEET_POOL");
    if (vs_pool_install())
        return 1;
#if defined(__SANITIZE_ADDRESS__)
    sanitized = 1;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
    sanitized = 1;
#endif
#endif
    ck_assert_msg(sanitized || (env && !strcmp(env, "0")),
                  "the pool did not install in a build without sanitizers");
    printf("SKIPPED (part of) %s: the pool is off (%s), malloc's reuse is not the pool's; "
           "the buffers' contents are still checked\n",
           test, sanitized ? "a sanitizer build" : "VRAMSHEET_POOL=0");
    fflush(stdout);
    return 0;
}

/* With the pool installed (glibc), the buffers a long cell grows and frees
 * stay in the heap: growing them again, cell after cell, takes no new page
 * faults. Without it, glibc mapped and unmapped the largest ones each round
 * (about 160 faults a round here, 32,000 in this test). */
START_TEST(freed_cell_buffers_stay_in_the_heap)
{
#if defined(__GLIBC__)
    struct rusage before, after;
    char chunk[1000];
    int round, i, pooled = pool_or_say("freed_cell_buffers_stay_in_the_heap");
    memset(chunk, 'x', sizeof chunk);
    for (round = 0; round < 200; round++) {
        vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
        for (i = 0; i < 300; i++) { /* a long result, appended as renderers do */
            vs_buf_append(&text, chunk, sizeof chunk);
            if (i % 3 == 0)
                vs_buf_append(&html, chunk, sizeof chunk);
        }
        ck_assert(!vs_buf_failed(&text) && !vs_buf_failed(&html));
        ck_assert_uint_eq(text.len, 300 * sizeof chunk);
        ck_assert_uint_eq(html.len, 100 * sizeof chunk);
        ck_assert_int_eq(text.data[text.len - 1], 'x');
        vs_buf_free(&text);
        vs_buf_free(&html);
        if (round == 1) /* the first rounds map the pages once */
            getrusage(RUSAGE_SELF, &before);
    }
    getrusage(RUSAGE_SELF, &after);
    if (pooled)
        ck_assert_msg(after.ru_minflt - before.ru_minflt < 100, "%ld page faults in 198 rounds",
                      after.ru_minflt - before.ru_minflt);
#endif
}
END_TEST

/* With the pool installed, a freed buffer's block is the next buffer's (the
 * last kept first), its old bytes never show through, a block over 64 KiB is
 * not kept, and what vs_buf_take hands out is plain malloc'd. */
START_TEST(freed_buffers_are_recycled)
{
    vs_buf a = VS_BUF_INIT, b = VS_BUF_INIT, big = VS_BUF_INIT;
    char *block, *taken, *other;
    int i, pooled = pool_or_say("freed_buffers_are_recycled");
    vs_buf_puts(&a, "first buffer, long enough to matter");
    block = a.data;
    vs_buf_free(&a);
    ck_assert_ptr_null(a.data);
    other = malloc(256); /* would take a block handed back to malloc */
    if (pooled)
        ck_assert_ptr_ne(other, block);
    vs_buf_puts(&b, "x");
    if (pooled)
        ck_assert_ptr_eq(b.data, block);
    free(other);
    ck_assert_str_eq(vs_buf_str(&b), "x");
    ck_assert_uint_eq(b.len, 1);
    taken = vs_buf_take(&b);
    ck_assert_str_eq(taken, "x");
    free(taken);
    for (i = 0; i < 70; i++)
        vs_buf_fill(&big, 'y', 1024);
    block = big.data;
    vs_buf_free(&big);
    vs_buf_puts(&a, "z");
    ck_assert_str_eq(vs_buf_str(&a), "z");
    if (pooled)
        ck_assert_ptr_ne(a.data, block);
    /* more buffers than are kept: every one still correct */
    {
        vs_buf many[40];
        for (i = 0; i < 40; i++) {
            vs_buf_init(&many[i]);
            vs_buf_fill(&many[i], (char)('a' + i % 26), (size_t)(100 * i + 1));
        }
        for (i = 0; i < 40; i++)
            vs_buf_free(&many[i]);
        for (i = 0; i < 40; i++) {
            vs_buf_init(&many[i]);
            vs_buf_fill(&many[i], 'q', (size_t)(5000 - 100 * i));
            ck_assert_uint_eq(many[i].len, (size_t)(5000 - 100 * i));
            ck_assert_int_eq(many[i].data[many[i].len - 1], 'q');
            ck_assert_int_eq(many[i].data[many[i].len], '\0');
        }
        for (i = 0; i < 40; i++)
            vs_buf_free(&many[i]);
    }
    vs_buf_free(&a);
}
END_TEST

/* A block handed out by vs_buf_take and given back with its capacity (a
 * result's bundle, freed once it is sent) is the next buffer's that fits in
 * it, as a freed buffer's is; given back with no block, nothing happens. */
START_TEST(taken_blocks_given_back_are_recycled)
{
    vs_buf a = VS_BUF_INIT, b = VS_BUF_INIT;
    char *block;
    size_t cap, i;
    int pooled = pool_or_say("taken_blocks_given_back_are_recycled");
    vs_buf_fill(&a, 'r', 1500); /* a result over a kilobyte */
    cap = a.cap;
    ck_assert_uint_ge(cap, 1501);
    block = vs_buf_take(&a);
    vs_buf_free_taken(block, cap);
    vs_buf_free_taken(NULL, 0);
    vs_buf_reserve(&b, 1400); /* the next line's result */
    if (pooled) {
        ck_assert_ptr_eq(b.data, block);
        ck_assert_uint_eq(b.cap, cap);
    }
    ck_assert_uint_eq(b.len, 0);
    vs_buf_fill(&b, 's', 1400);
    vs_buf_putc(&b, 't');
    ck_assert_uint_eq(b.len, 1401);
    for (i = 0; i < 1400; i++)
        ck_assert_int_eq(b.data[i], 's');
    ck_assert_str_eq(b.data + 1400, "t");
    vs_buf_free(&b);
}
END_TEST

START_TEST(pool_can_be_turned_off_from_the_environment)
{
    json_malloc_t m;
    json_free_t f;
    setenv("VRAMSHEET_POOL", "0", 1);
    ck_assert_int_eq(vs_pool_install(), 0);
    json_get_alloc_funcs(&m, &f);
    ck_assert_ptr_eq(f, free);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pool");
    TCase *tc = tcase_create("pool");
    tcase_add_test(tc, blocks_keep_their_bytes_at_every_size);
    tcase_add_test(tc, a_freed_block_is_reused_by_its_size_class);
    tcase_add_test(tc, blocks_made_on_one_thread_are_freed_on_another);
    tcase_add_test(tc, jansson_builds_copies_dumps_and_frees_through_the_pool);
    tcase_add_test(tc, freed_cell_buffers_stay_in_the_heap);
    tcase_add_test(tc, freed_buffers_are_recycled);
    tcase_add_test(tc, taken_blocks_given_back_are_recycled);
    tcase_add_test(tc, pool_can_be_turned_off_from_the_environment);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
