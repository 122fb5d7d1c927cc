/* Unit tests of a pull's work tree brought forward per sheet
 * (src/store/store_checkout.c, store_index_moved.c): the files of the sheets
 * that moved and their git index entries, read back with the git CLI; a file
 * the person changed left alone; a change outside sheets/ through libgit2's
 * checkout. */
#include <check.h>
#include <git2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/store.h"
#include "store/store_internal.h"

#include "check_run.h"
#include "shell_out.h"
#include "test_tmp.h"

#define VS_GIT_FIXTURE_NAME "vs_test_checkout_XXXXXX"
#include "git_fixture.h"

static void expect(const char *want, char *got)
{
    ck_assert_str_eq(got, want);
    free(got);
}

static void commit_sheet(vs_store *st, const char *id, const char *json)
{
    vs_store_write w;
    vs_store_commit_info info;
    vs_store_blob now = {0};
    vs_error err;
    char md[256], msg[64];
    int had;
    vs_error_clear(&err);
    had = vs_store_read(st, id, NULL, NULL, &now, &err) == 0;
    memset(&w, 0, sizeof w);
    snprintf(md, sizeof md, "# %s\n\n%s", id, json);
    snprintf(msg, sizeof msg, "%s: edit", id);
    w.sheet_id = id;
    w.json = json;
    w.json_len = strlen(json);
    w.md = md;
    w.md_len = strlen(md);
    w.message = msg;
    w.expected_blob = had ? now.blob : NULL;
    ck_assert_int_eq(vs_store_commit(st, &w, &info, &err), 0);
    vs_store_blob_clear(&now);
}

START_TEST(test_pull_moves_sheets_only)
{
    char remote[300], a[300], b[300];
    vs_store *sa = NULL, *sb = NULL;
    vs_store_sync sync;
    vs_error err;
    char **ids = NULL;
    size_t n = 0, i;
    vs_error_clear(&err);
    snprintf(remote, sizeof remote, "%s/remote.git", tmpdir);
    snprintf(a, sizeof a, "%s/a", tmpdir);
    snprintf(b, sizeof b, "%s/b", tmpdir);
    expect("ok\n", vs_test_sh("git init -q --bare -b main '%s' && echo ok", remote));
    ck_assert_int_eq(vs_store_open(&sa, a, &err), 0);
    ck_assert_int_eq(vs_store_open(&sb, b, &err), 0);
    commit_sheet(sa, "x", "x1\n");
    commit_sheet(sa, "y", "y1\n");
    commit_sheet(sa, "z", "z1\n");
    ck_assert_int_eq(vs_store_push(sa, remote, &sync, &err), 0);
    ck_assert_int_eq(vs_store_pull(sb, remote, &sync, &err), 0); /* the first: a checkout */
    expect("", vs_test_sh("git -C '%s' status --porcelain", b));

    /* x and z revised, w new; in b the person edits z's sheet.md by hand */
    commit_sheet(sa, "x", "x2\n");
    commit_sheet(sa, "z", "z2\n");
    commit_sheet(sa, "w", "w1\n");
    ck_assert_int_eq(vs_store_push(sa, remote, &sync, &err), 0);
    expect("ok\n", vs_test_sh("echo mine > '%s/sheets/z/sheet.md' && echo ok", b));
    ck_assert_int_eq(vs_store_pull(sb, remote, &sync, &err), 0);
    ck_assert_int_eq(sync.fast_forward, 1);
    ck_assert_str_eq(sync.warning, "");
    /* the per-sheet path was taken: the heads said x, z and w moved */
    ck_assert_int_eq(sb->has_moved, 1);
    ck_assert_uint_eq(sb->n_moved, 3);
    expect("x2\n# x\n\nx2\nw1\nz2\nmine\n",
           vs_test_sh("cd '%s' && cat sheets/x/sheet.json sheets/x/sheet.md sheets/w/sheet.json "
                      "sheets/z/sheet.json sheets/z/sheet.md",
                      b));
    /* git reads the patched index: everything at the tip but the person's file */
    expect("sheets/z/sheet.md\n", vs_test_sh("git -C '%s' diff --name-only HEAD", b));
    expect("", vs_test_sh("git -C '%s' ls-files --others --exclude-standard", b));
    expect(
        "",
        vs_test_sh(
            "git -C '%s' diff --cached --name-only HEAD -- sheets/x sheets/w sheets/z/sheet.json",
            b));
    /* the sheets the pull changed, as the pull's refresh asks for them */
    ck_assert_int_eq(
        vs_store_changed_sheets(sb, sync.local_before, sync.local_after, &ids, &n, &err), 0);
    ck_assert_uint_eq(n, 3);
    ck_assert_str_eq(ids[0], "w");
    ck_assert_str_eq(ids[1], "x");
    ck_assert_str_eq(ids[2], "z");
    for (i = 0; i < n; i++)
        free(ids[i]);
    free(ids);

    /* a sheet removed (with git): its files and entries go, its folder too */
    expect("ok\n",
           vs_test_sh("cd '%s' && git rm -q -r sheets/y && git -c user.name=t -c user.email=t@t "
                      "commit -q -m 'y: removed' && echo ok",
                      a));
    ck_assert_int_eq(vs_store_push(sa, remote, &sync, &err), 0);
    ck_assert_int_eq(vs_store_pull(sb, remote, &sync, &err), 0);
    ck_assert_str_eq(sync.warning, "");
    ck_assert_int_eq(sb->has_moved, 1);
    ck_assert_uint_eq(sb->n_moved, 1);
    expect("gone\n", vs_test_sh("test -e '%s/sheets/y' || echo gone", b));
    expect("", vs_test_sh("git -C '%s' ls-files sheets/y", b));
    expect("sheets/z/sheet.md\n", vs_test_sh("git -C '%s' diff --name-only HEAD", b));

    /* a file outside sheets/ (committed with git): libgit2's checkout brings it */
    expect("ok\n",
           vs_test_sh("cd '%s' && echo hello > NOTES && git add NOTES && git -c user.name=t "
                      "-c user.email=t@t commit -q -m notes && echo ok",
                      a));
    commit_sheet(sa, "y", "y2\n");
    ck_assert_int_eq(vs_store_push(sa, remote, &sync, &err), 0);
    ck_assert_int_eq(vs_store_pull(sb, remote, &sync, &err), 0);
    ck_assert_str_eq(sync.warning, "");
    expect("hello\ny2\n", vs_test_sh("cd '%s' && cat NOTES sheets/y/sheet.json", b));
    expect("sheets/z/sheet.md\n", vs_test_sh("git -C '%s' diff --name-only HEAD", b));
    vs_store_free(sa);
    vs_store_free(sb);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("store_checkout");
    TCase *tc = tcase_create("store_checkout");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_pull_moves_sheets_only);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return vs_check_run(suite());
}
