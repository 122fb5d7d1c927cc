/* util/arena: pieces of any size keep their bytes and alignment until the
 * arena is freed; large pieces get their own block without wasting the
 * current one. Run under ASan in CI, which checks every block is freed. */
#include <check.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/arena.h"

#include "check_run.h"

START_TEST(pieces_keep_bytes_and_alignment)
{
    vs_arena *a = vs_arena_new();
    unsigned char *p[600];
    size_t i, k;
    ck_assert_ptr_nonnull(a);
    for (i = 0; i < 600; i++) {
        size_t n = (i * 37) % 9000; /* some over the 4 KiB block size */
        p[i] = vs_arena_alloc(a, n);
        ck_assert_ptr_nonnull(p[i]);
        ck_assert_uint_eq((uintptr_t)p[i] % alignof(max_align_t), 0);
        memset(p[i], (int)(i & 0xFF), n);
    }
    for (i = 0; i < 600; i++)
        for (k = 0; k < (i * 37) % 9000; k++)
            ck_assert_uint_eq(p[i][k], i & 0xFF);
    vs_arena_free(a);
    vs_arena_free(NULL);
}
END_TEST

START_TEST(a_large_piece_leaves_the_current_block_in_use)
{
    vs_arena *a = vs_arena_new();
    char *small1 = vs_arena_alloc(a, 16), *big, *small2;
    big = vs_arena_alloc(a, 100000);
    small2 = vs_arena_alloc(a, 16);
    ck_assert_ptr_nonnull(big);
    /* the next small piece follows the first in the same block */
    ck_assert_ptr_eq(small2, small1 + 16);
    vs_arena_free(a);
}
END_TEST

START_TEST(strndup_copies_and_terminates)
{
    vs_arena *a = vs_arena_new();
    char *s = vs_arena_strndup(a, "reserve kv_cache", 7), *e = vs_arena_strndup(a, "", 0);
    ck_assert_str_eq(s, "reserve");
    ck_assert_str_eq(e, "");
    ck_assert_ptr_null(vs_arena_alloc(a, SIZE_MAX - 8));
    vs_arena_free(a);
}
END_TEST

/* Strings are packed byte after byte; a piece asked for after one is still
 * aligned, and every string and piece keeps its bytes, across blocks and for
 * strings longer than a block. */
START_TEST(strings_and_pieces_interleaved)
{
    vs_arena *a = vs_arena_new();
    char src[6000], *str[400];
    unsigned char *piece[400];
    size_t i, k;
    for (i = 0; i < sizeof src; i++)
        src[i] = (char)('a' + i % 26);
    for (i = 0; i < 400; i++) {
        size_t n = (i * 53) % (i % 50 ? 40 : 6000); /* mostly short, some past a block */
        str[i] = vs_arena_strndup(a, src + i % 7, n);
        piece[i] = vs_arena_alloc(a, i % 5);
        ck_assert_ptr_nonnull(str[i]);
        ck_assert_ptr_nonnull(piece[i]);
        ck_assert_uint_eq((uintptr_t)piece[i] % alignof(max_align_t), 0);
        memset(piece[i], (int)(i & 0xFF), i % 5);
    }
    for (i = 0; i < 400; i++) {
        size_t n = (i * 53) % (i % 50 ? 40 : 6000);
        ck_assert_uint_eq(strlen(str[i]), n);
        ck_assert(!memcmp(str[i], src + i % 7, n));
        for (k = 0; k < i % 5; k++)
            ck_assert_uint_eq(piece[i][k], i & 0xFF);
    }
    vs_arena_free(a);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("arena");
    TCase *tc = tcase_create("arena");
    tcase_add_test(tc, pieces_keep_bytes_and_alignment);
    tcase_add_test(tc, a_large_piece_leaves_the_current_block_in_use);
    tcase_add_test(tc, strndup_copies_and_terminates);
    tcase_add_test(tc, strings_and_pieces_interleaved);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
