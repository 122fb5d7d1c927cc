/* Unit tests of what the revision index reads from packs itself: the inflater
 * (src/util/inflate.h) on streams made by zlib, the pack and index reader
 * (src/store/store_pack.h) against `git cat-file --batch`, and the held tree
 * (store_index_delta.c) patched by each delta of a git fast-import history,
 * checked byte for byte against the tree libgit2 reads and its changed
 * sheets against a comparison made with libgit2's tree API. */
#include <check.h>
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/store_index_internal.h"
#include "store/store_pack.h"
#include "util/inflate.h"

#include "check_run.h"
#include "fast_import_history.h"

#define VS_GIT_FIXTURE_NAME "vs_test_store_pack_XXXXXX"
#include "git_fixture.h"

static size_t unhex(const char *h, unsigned char *out)
{
    size_t n = 0;
    unsigned v;
    while (sscanf(h + 2 * n, "%2x", &v) == 1)
        out[n++] = (unsigned char)v;
    return n;
}

/* --- the inflater --- */

/* The sheets/ entries the dynamic-block stream below holds, written out here. */
static size_t tree_text(char *out)
{
    size_t n = 0;
    int i;
    for (i = 0; i < 60; i++)
        n += (size_t)sprintf(out + n, "40000 s-%d", i * 7919 % 1000) + 1; /* and its NUL */
    return n;
}

START_TEST(test_inflate_zlib_streams)
{
    /* Python 3.11.7's zlib (zlib 1.2.13): zlib.compress(b"a", 6), a fixed
     * Huffman block; zlib.compress(b"abc" * 3, 0), a stored block;
     * zlib.compress(tree_text, 9), a dynamic Huffman block */
    static const char *const fixed = "789c4b040000620062";
    static const char *const stored = "7801010900f6ff616263616263616263113d0373";
    static const char *const dynamic =
        "78da4dd2b90903511044c10d450908e63ee252fe201962bad76a63a1f8bc09f97dafcf5b9ef8afd5bd3d3e"
        "b73bfb7675ddce4d6c8ddbe17edbd36e5beb6d5db82a700dec06d829b03d605bc09681cd001b05d607ac2d"
        "b10a571d6e82dd063b0b76146c3bd84ab0d96063c0868075036b01578b5cb040d78c7e00da25946d29db50"
        "b6a66c45d992b2056583ab0ad7c16e0a655bca461725745146171549d9e8b14317257451a6cf17e4bb8994";
    unsigned char in[512], out[1024];
    char want[1024];
    size_t n, wn, cut;
    vs_error err;
    n = unhex(fixed, in);
    ck_assert_int_eq(vs_inflate_zlib(in, n, out, 1, &err), 0);
    ck_assert_int_eq(out[0], 'a');
    n = unhex(stored, in);
    ck_assert_int_eq(vs_inflate_zlib(in, n, out, 9, &err), 0);
    ck_assert(!memcmp(out, "abcabcabc", 9));
    n = unhex(dynamic, in);
    ck_assert_uint_eq(n, 172);
    wn = tree_text(want);
    ck_assert_uint_eq(wn, 712);
    ck_assert_int_eq(vs_inflate_zlib(in, n, out, wn, &err), 0);
    ck_assert(!memcmp(out, want, wn));
    /* another length than the stream's, any stream cut short, a checksum
     * changed: refused */
    ck_assert_int_eq(vs_inflate_zlib(in, n, out, wn - 1, &err), VS_EFORMAT);
    ck_assert_int_eq(vs_inflate_zlib(in, n, out, wn + 1, &err), VS_EFORMAT);
    for (cut = 0; cut < n; cut++)
        ck_assert_int_eq(vs_inflate_zlib(in, cut, out, wn, &err), VS_EFORMAT);
    in[n - 1] ^= 1;
    ck_assert_int_eq(vs_inflate_zlib(in, n, out, wn, &err), VS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.message, "checksum"));
    /* a stored block whose length's complement is wrong */
    n = unhex(stored, in);
    in[5] ^= 1;
    ck_assert_int_eq(vs_inflate_zlib(in, n, out, 9, &err), VS_EFORMAT);
}
END_TEST

/* --- the pack reader --- */

static void sheet_name(char *out, size_t len, unsigned k)
{
    /* ids of several lengths: a new one sorts anywhere in sheets/ */
    static const char *const names[5] = {"a", "a-b", "ab", "b", "zz"};
    if (k < 5)
        snprintf(out, len, "%s", names[k]);
    else
        snprintf(out, len, "s-%u", k * 37 % 1000);
}

/* Every object of the packs fast-import wrote: a whole one inflated is what
 * git cat-file prints, a delta's sizes are read and its base is in the pack. */
START_TEST(test_pack_entries_agree_with_git_cat_file)
{
    char path[300], dir[400], cmd[1200], line[256];
    vs_store_pack *p = NULL;
    vs_error err;
    uint64_t n, i, whole = 0, deltas = 0;
    FILE *batch;
    snprintf(path, sizeof path, "%s/fi", tmpdir);
    fi_history(path, 5, 120, 60, sheet_name);
    snprintf(dir, sizeof dir, "%s/objects/pack", path);
    vs_error_clear(&err);
    ck_assert_int_eq(vs_store_pack_new(&p, &err), 0);
    ck_assert_int_eq(vs_store_pack_open_dir(p, dir, &err), 0);
    ck_assert_uint_eq(vs_store_pack_npacks(p), 1);
    n = vs_store_pack_count(p);
    ck_assert_uint_gt(n, 300);
    snprintf(cmd, sizeof cmd,
             "git -C '%s' cat-file --batch-all-objects --batch-check='%%(objectname)' | "
             "git -C '%s' cat-file --batch > '%s/batch'",
             path, path, tmpdir);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s/batch", tmpdir);
    ck_assert_ptr_nonnull(batch = fopen(cmd, "rb"));
    for (i = 0; i < n; i++) {
        char hex[41], type[16];
        unsigned long size;
        unsigned char id[20], want_id[20];
        unsigned char *want, *got;
        vs_store_pack_entry e;
        ck_assert_ptr_nonnull(fgets(line, sizeof line, batch));
        ck_assert_int_eq(sscanf(line, "%40s %15s %lu", hex, type, &size), 3);
        want = malloc(size + 1);
        ck_assert_uint_eq(fread(want, 1, size + 1, batch), size + 1); /* and its newline */
        /* the pack's ids, sorted as cat-file lists them */
        ck_assert_int_eq(vs_store_pack_id_at(p, 0, i, id), 0);
        ck_assert_uint_eq(unhex(hex, want_id), 20);
        ck_assert(!memcmp(id, want_id, 20));
        ck_assert_int_eq(vs_store_pack_find(p, id, &e), 1);
        if (e.type == VS_STORE_PACK_OFS_DELTA || e.type == VS_STORE_PACK_REF_DELTA) {
            uint64_t bs, rs;
            size_t at;
            vs_store_pack_entry base;
            ck_assert_ptr_nonnull(got = malloc(e.size));
            ck_assert_int_eq(vs_store_pack_inflate(p, &e, got, e.size, &err), 0);
            ck_assert_int_eq(vs_store_pack_delta_sizes(got, e.size, &bs, &rs, &at, &err), 0);
            ck_assert_uint_eq(rs, size); /* the delta makes the object */
            if (e.type == VS_STORE_PACK_OFS_DELTA)
                ck_assert_int_eq(vs_store_pack_entry_at(p, 0, e.base_offset, &base, &err), 0);
            else
                ck_assert_int_eq(vs_store_pack_find(p, e.base_id, &base), 1);
            deltas++;
        } else {
            static const char *const names[5] = {"", "commit", "tree", "blob", "tag"};
            ck_assert_str_eq(names[e.type], type);
            ck_assert_uint_eq(e.size, size);
            ck_assert_ptr_nonnull(got = malloc(size ? size : 1));
            ck_assert_msg(vs_store_pack_inflate(p, &e, got, size, &err) == 0, "%s: %s", hex,
                          err.message);
            ck_assert(!memcmp(got, want, size));
            whole++;
        }
        free(got);
        free(want);
    }
    fclose(batch);
    ck_assert_uint_gt(deltas, 50);
    ck_assert_uint_gt(whole, 200);
    /* an index that is not one: refused, nothing added */
    {
        static unsigned char junk[2000];
        memcpy(junk, "\377tOc\0\0\0\2", 8);
        ck_assert_int_eq(vs_store_pack_add(p, junk, sizeof junk, junk, sizeof junk, &err),
                         VS_EFORMAT);
        ck_assert_uint_eq(vs_store_pack_npacks(p), 1);
    }
    vs_store_pack_free(p);
}
END_TEST

/* --- the held tree --- */

static git_odb_object *sheets_tree(git_repository *repo, git_odb *odb, const git_oid *commit,
                                   git_oid *id)
{
    git_commit *c = NULL;
    git_tree *t = NULL;
    const git_tree_entry *e;
    git_odb_object *o = NULL;
    ck_assert_int_eq(git_commit_lookup(&c, repo, commit), 0);
    ck_assert_int_eq(git_commit_tree(&t, c), 0);
    ck_assert_ptr_nonnull(e = git_tree_entry_byname(t, "sheets"));
    git_oid_cpy(id, git_tree_entry_id(e));
    ck_assert_int_eq(git_odb_read(&o, odb, id), 0);
    git_tree_free(t);
    git_commit_free(c);
    return o;
}

/* The sheets whose entry differs between trees a and b, by libgit2's API. */
static size_t changed_names(git_repository *repo, const git_oid *a, const git_oid *b,
                            char (*out)[64], size_t max)
{
    git_tree *ta = NULL, *tb = NULL;
    size_t i, n = 0;
    ck_assert_int_eq(git_tree_lookup(&ta, repo, a), 0);
    ck_assert_int_eq(git_tree_lookup(&tb, repo, b), 0);
    for (i = 0; i < git_tree_entrycount(ta); i++) {
        const git_tree_entry *e = git_tree_entry_byindex(ta, i);
        const git_tree_entry *f = git_tree_entry_byname(tb, git_tree_entry_name(e));
        if (!f || !git_oid_equal(git_tree_entry_id(e), git_tree_entry_id(f))) {
            ck_assert_uint_lt(n, max);
            snprintf(out[n++], 64, "%s", git_tree_entry_name(e));
        }
    }
    for (i = 0; i < git_tree_entrycount(tb); i++) {
        const git_tree_entry *f = git_tree_entry_byindex(tb, i);
        if (!git_tree_entry_byname(ta, git_tree_entry_name(f))) {
            ck_assert_uint_lt(n, max);
            snprintf(out[n++], 64, "%s", git_tree_entry_name(f));
        }
    }
    git_tree_free(ta);
    git_tree_free(tb);
    return n;
}

START_TEST(test_held_tree_follows_fast_import_deltas)
{
    char path[300], want[64][64];
    git_repository *repo = NULL;
    git_odb *odb = NULL;
    git_revwalk *walk = NULL;
    git_oid c, prev_tree;
    ix_held h;
    ix_touched_list l = {0};
    int first = 1;
    unsigned tried = 0, advanced = 0;
    snprintf(path, sizeof path, "%s/fi", tmpdir);
    /* 400 names: sheets/ grows past the 4 KiB blocks and is patched at its
     * start, middle and end, entries added, removed and rewritten */
    fi_history(path, 11, 220, 400, sheet_name);
    ck_assert_int_eq(git_repository_open(&repo, path), 0);
    ck_assert_int_eq(git_repository_odb(&odb, repo), 0);
    ck_assert_int_eq(vs_store_index_held_init(&h, repo), 0);
    ck_assert_ptr_nonnull(h.packs);
    ck_assert_int_eq(git_revwalk_new(&walk, repo), 0);
    ck_assert_int_eq(git_revwalk_push_ref(walk, "refs/heads/main"), 0);
    ck_assert_int_eq(git_revwalk_simplify_first_parent(walk), 0);
    git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);
    while (git_revwalk_next(&c, walk) == 0) {
        git_oid tree;
        git_odb_object *o = sheets_tree(repo, odb, &c, &tree);
        int rc = 0;
        if (!first && !git_oid_equal(&tree, &prev_tree)) {
            size_t n, i, k;
            ck_assert(h.valid && git_oid_equal(&h.id, &prev_tree));
            tried++;
            l.n = 0;
            rc = vs_store_index_held_advance(&h, &tree, &l);
            ck_assert_int_ge(rc, 0);
            if (rc == 1) {
                const unsigned char *p = git_odb_object_data(o), *s = p, *end;
                vs_store_tree_entry e;
                advanced++;
                /* the patched bytes are the tree's, the offsets its entries' */
                ck_assert_uint_eq(h.len, git_odb_object_size(o));
                ck_assert(!memcmp(h.data, p, h.len));
                end = p + h.len;
                for (k = 0; s < end; k++) {
                    ck_assert_uint_lt(k, h.n);
                    ck_assert_uint_eq(h.offs[k], (size_t)(s - p));
                    ck_assert(vs_store_tree_next(&s, end, &e));
                }
                ck_assert_uint_eq(k, h.n);
                /* the changed sheets: libgit2's comparison, in git's order */
                n = changed_names(repo, &tree, &prev_tree, want, 64);
                ck_assert_uint_eq(l.n, n);
                for (i = 0; i < n; i++) {
                    int found = 0;
                    for (k = 0; k < l.n; k++)
                        found |= !strcmp(l.v[k].id, want[i]);
                    ck_assert_msg(found, "%s changed, not listed", want[i]);
                }
                for (k = 1; k < l.n; k++) {
                    vs_store_tree_entry x = {l.v[k - 1].id, strlen(l.v[k - 1].id), 1, NULL};
                    vs_store_tree_entry y = {l.v[k].id, strlen(l.v[k].id), 1, NULL};
                    ck_assert_int_lt(vs_store_tree_cmp(&x, &y), 0);
                }
            }
        }
        if (first || rc == 0)
            ck_assert_int_eq(vs_store_index_held_set(&h, &tree, o, NULL, 0), 0);
        git_oid_cpy(&prev_tree, &tree);
        first = 0;
        git_odb_object_free(o);
    }
    /* a chain of 50 deltas, then a whole tree: all but those few */
    ck_assert_uint_gt(tried, 150);
    ck_assert_uint_ge(advanced * 10, tried * 9);
    free(l.v);
    vs_store_index_held_free(&h);
    git_revwalk_free(walk);
    git_odb_free(odb);
    git_repository_free(repo);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("store_pack");
    TCase *tc = tcase_create("store_pack");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_inflate_zlib_streams);
    tcase_add_test(tc, test_pack_entries_agree_with_git_cat_file);
    tcase_add_test(tc, test_held_tree_follows_fast_import_deltas);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return vs_check_run(suite());
}
