/* Unit tests of the raw git index and tree writers (src/store/store_gitindex.h,
 * store_tree.h): SHA-1 against FIPS 180's examples; an index patched here
 * against what git itself makes of the same work tree (`git ls-files -s`,
 * `git write-tree`, `git status`); trees spliced here against `git mktree`. */
#include <check.h>
#include <git2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/store_gitindex.h"
#include "store/store_tree.h"

#include "check_run.h"
#include "test_tmp.h"

#define VS_GIT_FIXTURE_NAME "vs_test_gitindex_XXXXXX"
#include "git_fixture.h"

/* A shell command run in tmpdir; its stdout (malloc'd, trailing newline kept). */
static char *sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *sh(const char *fmt, ...)
{
    char cmd[4096], body[3800];
    va_list ap;
    FILE *p;
    size_t cap = 1 << 16, len = 0, n;
    char *out = malloc(cap);
    va_start(ap, fmt);
    vsnprintf(body, sizeof body, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "cd '%s' && %s", tmpdir, body);
    ck_assert_ptr_nonnull(p = popen(cmd, "r"));
    while ((n = fread(out + len, 1, cap - len - 1, p)) > 0)
        len += n;
    out[len] = '\0';
    ck_assert_int_eq(pclose(p), 0);
    return out;
}

static void hex_of(const void *data, size_t len, char out[41])
{
    unsigned char d[20];
    int i;
    vs_store_sha1(data, len, d);
    for (i = 0; i < 20; i++)
        sprintf(out + 2 * i, "%02x", d[i]);
}

START_TEST(test_sha1_fips_examples)
{
    char h[41], *m = malloc(1000000);
    /* FIPS 180-2 appendix A: one block, two blocks, a million 'a' */
    hex_of("abc", 3, h);
    ck_assert_str_eq(h, "a9993e364706816aba3e25717850c26c9cd0d89d");
    hex_of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, h);
    ck_assert_str_eq(h, "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
    memset(m, 'a', 1000000);
    hex_of(m, 1000000, h);
    ck_assert_str_eq(h, "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
    hex_of("", 0, h);
    ck_assert_str_eq(h, "da39a3ee5e6b4b0d3255bfef95601890afd80709");
    /* 55 and 56 bytes: the length fits the last block, then needs another
     * (the values sha1sum of coreutils 9.1 prints for 55 and 56 'b's) */
    memset(m, 'b', 64);
    hex_of(m, 55, h);
    ck_assert_str_eq(h, "4d055f5334ac4bca50260deff4707cd8d4fc1454");
    hex_of(m, 56, h);
    ck_assert_str_eq(h, "049adea016c8a8e3b7a9054aeeaa8643453bebd9");
    free(m);
}
END_TEST

static void change_for(vs_store_gitindex_change *c, const char *path, int has)
{
    char full[600], *out;
    memset(c, 0, sizeof *c);
    c->path = path;
    c->has = has;
    if (!has)
        return;
    out = sh("cd r && git hash-object -w '%s'", path);
    ck_assert_int_eq(git_oid_fromstrn(&c->id, out, 40), 0);
    free(out);
    c->mode = 0100644;
    snprintf(full, sizeof full, "%s/r/%s", tmpdir, path);
    ck_assert_int_eq(lstat(full, &c->st), 0);
}

/* The index of a work tree git staged, patched for a changed, a new and a
 * removed file: git lists the same entries as when it stages them itself,
 * builds the same tree from it (the cache of trees along the changed paths
 * invalid, the rest kept), sees nothing to commit, and libgit2 reads it (its
 * checksum checked). */
START_TEST(test_index_patch_matches_git)
{
    vs_store_gitindex gi;
    vs_store_gitindex_change ch[3];
    unsigned char *bytes = NULL;
    size_t len;
    char path[400], *ours, *theirs, *tree_ours, *tree_theirs;
    git_index *idx = NULL;
    FILE *f;
    free(sh("git init -q r && cd r && mkdir -p sheets/a sheets/b sheets/c && echo 1 > top.txt && "
            "echo a > sheets/a/sheet.json && echo b > sheets/b/sheet.json && echo b > "
            "sheets/b/sheet.md && echo c > sheets/c/sheet.json && git add -A && "
            "git -c user.name=t -c user.email=t@t commit -q -m one && git read-tree HEAD"));
    /* the work tree changes: a's json edited, bb new, b's md removed */
    free(sh("cd r && echo A > sheets/a/sheet.json && mkdir sheets/bb && echo bb > "
            "sheets/bb/sheet.json && rm sheets/b/sheet.md"));
    change_for(&ch[0], "sheets/a/sheet.json", 1);
    change_for(&ch[1], "sheets/b/sheet.md", 0);
    change_for(&ch[2], "sheets/bb/sheet.json", 1);
    snprintf(path, sizeof path, "%s/r/.git/index", tmpdir);
    ck_assert_int_eq(vs_store_gitindex_load(&gi, path), 0);
    ck_assert_int_eq(gi.count, 5);
    ck_assert_int_eq(vs_store_gitindex_patch(&gi, ch, 3, &bytes, &len), 0);
    vs_store_gitindex_free(&gi);
    ck_assert_ptr_nonnull(f = fopen(path, "wb"));
    ck_assert_int_eq(fwrite(bytes, 1, len, f), len);
    fclose(f);
    free(bytes);
    ours = sh("cd r && git ls-files -s");
    tree_ours = sh("cd r && git write-tree");
    /* staged, and the stat data right: nothing changed in the work tree */
    theirs = sh("cd r && git status --porcelain");
    ck_assert_str_eq(theirs,
                     "M  sheets/a/sheet.json\nD  sheets/b/sheet.md\nA  sheets/bb/sheet.json\n");
    free(theirs);
    /* libgit2 checks the checksum and reads the entries */
    ck_assert_int_eq(git_index_open(&idx, path), 0);
    ck_assert_int_eq((int)git_index_entrycount(idx), 5);
    git_index_free(idx);
    /* git's own index of the same work tree */
    free(sh("cd r && rm .git/index && git read-tree HEAD && git add -A"));
    theirs = sh("cd r && git ls-files -s");
    tree_theirs = sh("cd r && git write-tree");
    ck_assert_str_eq(ours, theirs);
    ck_assert_str_eq(tree_ours, tree_theirs);
    ck_assert_ptr_nonnull(strstr(ours, "sheets/bb/sheet.json"));
    ck_assert_ptr_null(strstr(ours, "sheets/b/sheet.md"));
    free(ours);
    free(theirs);
    free(tree_ours);
    free(tree_theirs);
}
END_TEST

/* A conflicted path is left to libgit2 (answer 1), and a version 4 index is
 * not read here. */
START_TEST(test_index_conflict_and_v4_left_to_libgit2)
{
    vs_store_gitindex gi;
    vs_store_gitindex_change ch;
    unsigned char *bytes = NULL;
    size_t len;
    char path[400];
    git_oid id;
    uint32_t mode;
    free(sh("git init -q r && cd r && echo base > f && git add f && git -c user.name=t -c "
            "user.email=t@t commit -q -m base && git checkout -q -b other && echo theirs > f && "
            "git -c user.name=t -c user.email=t@t commit -q -am theirs && git checkout -q - && "
            "echo ours > f && git -c user.name=t -c user.email=t@t commit -q -am ours && "
            "(git merge -q other >/dev/null 2>&1 || true)"));
    snprintf(path, sizeof path, "%s/r/.git/index", tmpdir);
    ck_assert_int_eq(vs_store_gitindex_load(&gi, path), 0);
    ck_assert_int_eq(gi.count, 3); /* stages 1, 2, 3 */
    ck_assert_int_eq(vs_store_gitindex_find(&gi, "f", &id, &mode), 0);
    memset(&ch, 0, sizeof ch);
    ch.path = "f";
    ck_assert_int_eq(vs_store_gitindex_patch(&gi, &ch, 1, &bytes, &len), 1);
    vs_store_gitindex_free(&gi);
    free(sh("cd r && git merge --abort && git update-index --index-version 4"));
    ck_assert_int_eq(vs_store_gitindex_load(&gi, path), 1);
    free(sh("cd r && git update-index --index-version 2"));
    ck_assert_int_eq(vs_store_gitindex_load(&gi, path), 0);
    ck_assert_int_eq(vs_store_gitindex_find(&gi, "f", &id, &mode), 1);
    ck_assert_uint_eq(mode, 0100644);
    vs_store_gitindex_free(&gi);
}
END_TEST

/* The trees of a sheet's commit, spliced: the ids `git mktree` gives the
 * same listings, for a sheet changed, one added between two others, and a
 * first commit (no tree before). */
START_TEST(test_tree_splice_matches_mktree)
{
    git_repository *repo = NULL;
    git_oid root, json, md, out_root, folder;
    char path[400], hex[41], *want, *got;
    free(sh("git init -q r && cd r && mkdir -p sheets/a sheets/c && echo a > sheets/a/sheet.json "
            "&& echo a > sheets/a/sheet.md && echo a > sheets/a/notes.txt && echo c > "
            "sheets/c/sheet.json && echo x > z.txt && git add -A && git -c user.name=t -c "
            "user.email=t@t commit -q -m one"));
    snprintf(path, sizeof path, "%s/r", tmpdir);
    ck_assert_int_eq(git_repository_open(&repo, path), 0);
    got = sh("cd r && git rev-parse HEAD^{tree}");
    ck_assert_int_eq(git_oid_fromstrn(&root, got, 40), 0);
    free(got);
    got = sh("cd r && printf 'new json\\n' | git hash-object -w --stdin");
    ck_assert_int_eq(git_oid_fromstrn(&json, got, 40), 0);
    free(got);
    got = sh("cd r && printf 'new md\\n' | git hash-object -w --stdin");
    ck_assert_int_eq(git_oid_fromstrn(&md, got, 40), 0);
    free(got);

    /* sheet a changed: its notes.txt kept */
    ck_assert_int_eq(vs_store_tree_put_sheet(repo, &root, "a", &json, &md, &out_root, &folder), 0);
    git_oid_tostr(hex, sizeof hex, &out_root);
    want = sh("cd r && J=$(printf 'new json\\n' | git hash-object --stdin) && M=$(printf 'new "
              "md\\n' | git hash-object --stdin) && N=$(git rev-parse HEAD:sheets/a/notes.txt) && "
              "A=$(printf '100644 blob %%s\\tnotes.txt\\n100644 blob %%s\\tsheet.json\\n100644 "
              "blob %%s\\tsheet.md\\n' $N $J $M | git mktree) && S=$(printf '040000 tree "
              "%%s\\ta\\n040000 tree %%s\\tc\\n' $A $(git rev-parse HEAD:sheets/c) | git mktree) "
              "&& printf '040000 tree %%s\\tsheets\\n100644 blob %%s\\tz.txt\\n' $S $(git "
              "rev-parse HEAD:z.txt) | git mktree");
    ck_assert_int_eq(strncmp(want, hex, 40), 0);
    free(want);

    /* sheet b added between a and c, sheet.md only when given (here not) */
    ck_assert_int_eq(vs_store_tree_put_sheet(repo, &root, "b", &json, NULL, &out_root, &folder), 0);
    git_oid_tostr(hex, sizeof hex, &out_root);
    want = sh("cd r && J=$(printf 'new json\\n' | git hash-object --stdin) && B=$(printf '100644 "
              "blob %%s\\tsheet.json\\n' $J | git mktree) && S=$(printf '040000 tree "
              "%%s\\ta\\n040000 tree %%s\\tb\\n040000 tree %%s\\tc\\n' $(git rev-parse "
              "HEAD:sheets/a) $B $(git rev-parse HEAD:sheets/c) | git mktree) && printf '040000 "
              "tree %%s\\tsheets\\n100644 blob %%s\\tz.txt\\n' $S $(git rev-parse HEAD:z.txt) | "
              "git mktree");
    ck_assert_int_eq(strncmp(want, hex, 40), 0);
    free(want);

    /* a first commit: nothing before */
    ck_assert_int_eq(vs_store_tree_put_sheet(repo, NULL, "a-b", &json, &md, &out_root, &folder), 0);
    git_oid_tostr(hex, sizeof hex, &out_root);
    want = sh("cd r && J=$(printf 'new json\\n' | git hash-object --stdin) && M=$(printf 'new "
              "md\\n' | git hash-object --stdin) && F=$(printf '100644 blob "
              "%%s\\tsheet.json\\n100644 blob %%s\\tsheet.md\\n' $J $M | git mktree) && "
              "S=$(printf '040000 tree %%s\\ta-b\\n' $F | git mktree) && printf '040000 tree "
              "%%s\\tsheets\\n' $S | git mktree");
    ck_assert_int_eq(strncmp(want, hex, 40), 0);
    free(want);
    git_oid_tostr(hex, sizeof hex, &folder);
    want = sh("cd r && J=$(printf 'new json\\n' | git hash-object --stdin) && M=$(printf 'new "
              "md\\n' | git hash-object --stdin) && printf '100644 blob %%s\\tsheet.json\\n100644 "
              "blob %%s\\tsheet.md\\n' $J $M | git mktree");
    ck_assert_int_eq(strncmp(want, hex, 40), 0);
    free(want);
    git_repository_free(repo);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("store_gitindex");
    TCase *tc = tcase_create("store_gitindex");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_sha1_fips_examples);
    tcase_add_test(tc, test_index_patch_matches_git);
    tcase_add_test(tc, test_index_conflict_and_v4_left_to_libgit2);
    tcase_add_test(tc, test_tree_splice_matches_mktree);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return vs_check_run(suite());
}
