/* Unit tests of the records store (src/store/store.h) over temporary repositories,
 * with libgit2 and the git CLI as independent readers. */
#include <check.h>
#include <git2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/store.h"
#include "store/store_internal.h"

#include "check_run.h"
#include "shell_out.h"
#include "test_tmp.h"

#define VS_GIT_FIXTURE_NAME "vs_test_store_XXXXXX"
#include "git_fixture.h"

static void path_in(char *out, size_t len, const char *name)
{
    snprintf(out, len, "%s/%s", tmpdir, name);
}

static int commit_sheet(vs_store *st, const char *id, const char *json, const char *expected,
                        const char *msg, vs_store_commit_info *info, vs_error *err)
{
    vs_store_write w;
    char md[256];
    memset(&w, 0, sizeof w);
    snprintf(md, sizeof md, "# %s\n\n%s", id, json);
    w.sheet_id = id;
    w.json = json;
    w.json_len = strlen(json);
    w.md = md;
    w.md_len = strlen(md);
    w.message = msg;
    w.expected_blob = expected;
    return vs_store_commit(st, &w, info, err);
}

START_TEST(test_create_commit_read)
{
    char path[300];
    vs_store *st = NULL;
    vs_store_commit_info info;
    vs_store_blob blob;
    vs_error err;
    char *out;
    vs_error_clear(&err);
    path_in(path, sizeof path, "new/records");
    ck_assert_int_eq(vs_store_open(&st, path, &err), 0);
    ck_assert_int_eq(vs_store_exists(st), 0);
    ck_assert_int_eq(vs_store_read(st, "a", NULL, NULL, &blob, &err), VS_ENOTFOUND);
    ck_assert_int_eq(commit_sheet(st, "llama-7b", "{\"id\": \"llama-7b\"}\n", NULL,
                                  "llama-7b: first", &info, &err),
                     0);
    ck_assert_int_eq(info.created, 1);
    ck_assert_str_eq(info.branch, "main");
    ck_assert_int_eq((int)strlen(info.commit), 40);
    ck_assert_int_eq(vs_store_exists(st), 1);
    ck_assert_int_eq(vs_store_is_bare(st), 0);

    ck_assert_int_eq(vs_store_read(st, "llama-7b", NULL, NULL, &blob, &err), 0);
    ck_assert_str_eq(blob.data, "{\"id\": \"llama-7b\"}\n");
    ck_assert_str_eq(blob.commit, info.commit);
    ck_assert_str_eq(blob.blob, info.blob);
    vs_store_blob_clear(&blob);

    /* git itself reads the same bytes, ids and message on branch main */
    out = vs_test_sh("git -C '%s' show main:sheets/llama-7b/sheet.json", path);
    ck_assert_str_eq(out, "{\"id\": \"llama-7b\"}\n");
    free(out);
    out = vs_test_sh("git -C '%s' rev-parse main:sheets/llama-7b/sheet.json", path);
    ck_assert_int_eq(strncmp(out, info.blob, 40), 0);
    free(out);
    out = vs_test_sh("git -C '%s' log --format=%%H%%n%%s main", path);
    ck_assert_int_eq(strncmp(out, info.commit, 40), 0);
    ck_assert_ptr_nonnull(strstr(out, "llama-7b: first"));
    free(out);
    out = vs_test_sh("git -C '%s' status --porcelain 2>&1", path);
    ck_assert_str_eq(out, "");
    free(out);
    vs_store_free(st);
}
END_TEST

START_TEST(test_history_and_revisions)
{
    char path[300], rev[64];
    vs_store *st = NULL;
    vs_store_commit_info a1, a2, b1, a3;
    vs_store_revisions h;
    vs_store_blob blob;
    vs_error err;
    char **ids;
    size_t n;
    vs_error_clear(&err);
    path_in(path, sizeof path, "hist");
    ck_assert_int_eq(vs_store_open(&st, path, &err), 0);
    ck_assert_int_eq(commit_sheet(st, "a", "1\n", NULL, "a: one", &a1, &err), 0);
    ck_assert_int_eq(commit_sheet(st, "a", "2\n", a1.blob, "a: two", &a2, &err), 0);
    ck_assert_int_eq(commit_sheet(st, "b", "x\n", NULL, "b: one", &b1, &err), 0);
    ck_assert_int_eq(commit_sheet(st, "a", "3\n", a2.blob, "a: three", &a3, &err), 0);

    ck_assert_int_eq(vs_store_history(st, "a", 0, &h, &err), 0);
    ck_assert_uint_eq(h.n, 3);
    ck_assert_str_eq(h.revs[0].commit, a3.commit);
    ck_assert_str_eq(h.revs[0].message, "a: three");
    ck_assert_str_eq(h.revs[1].commit, a2.commit);
    ck_assert_str_eq(h.revs[2].commit, a1.commit);
    ck_assert(h.revs[0].time > 1600000000);
    vs_store_revisions_clear(&h);
    ck_assert_int_eq(vs_store_history(st, "b", 0, &h, &err), 0);
    ck_assert_uint_eq(h.n, 1);
    ck_assert_str_eq(h.revs[0].commit, b1.commit);
    vs_store_revisions_clear(&h);
    ck_assert_int_eq(vs_store_history(st, "nope", 0, &h, &err), 0);
    ck_assert_uint_eq(h.n, 0);
    ck_assert_int_eq(vs_store_history(st, NULL, 2, &h, &err), 0);
    ck_assert_uint_eq(h.n, 2);
    vs_store_revisions_clear(&h);
    ck_assert_int_eq(vs_store_history(st, "../x", 0, &h, &err), VS_EVALUE);

    /* revisions: HEAD~N, a prefix, the branch */
    ck_assert_int_eq(vs_store_read(st, "a", "HEAD~2", NULL, &blob, &err), 0);
    ck_assert_str_eq(blob.data, "2\n");
    ck_assert_str_eq(blob.commit, a2.commit);
    vs_store_blob_clear(&blob);
    snprintf(rev, sizeof rev, "%.9s", a1.commit);
    ck_assert_int_eq(vs_store_read(st, "a", rev, NULL, &blob, &err), 0);
    ck_assert_str_eq(blob.data, "1\n");
    vs_store_blob_clear(&blob);
    ck_assert_int_eq(vs_store_read(st, "a", "main", "sheet.md", &blob, &err), 0);
    ck_assert_ptr_nonnull(strstr(blob.data, "# a"));
    vs_store_blob_clear(&blob);
    ck_assert_int_eq(vs_store_read(st, "b", a2.commit, NULL, &blob, &err), VS_ENOTFOUND);
    ck_assert_ptr_nonnull(strstr(err.message, "not in the records"));
    ck_assert_int_eq(vs_store_read(st, "a", "deadbeefdeadbeef", NULL, &blob, &err), VS_ENOTFOUND);
    ck_assert_int_eq(vs_store_read(st, "a", "HEAD", "../../x", &blob, &err), VS_EVALUE);

    ck_assert_int_eq(vs_store_list(st, NULL, &ids, &n, &err), 0);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(ids[0], "a");
    ck_assert_str_eq(ids[1], "b");
    free(ids[0]);
    free(ids[1]);
    free(ids);
    ck_assert_int_eq(vs_store_list(st, a2.commit, &ids, &n, &err), 0);
    ck_assert_uint_eq(n, 1);
    free(ids[0]);
    free(ids);
    vs_store_free(st);
}
END_TEST

START_TEST(test_conflicts)
{
    char path[300];
    vs_store *st = NULL;
    vs_store_commit_info a1, a2, info;
    vs_store_write w;
    vs_store_blob blob;
    vs_error err;
    vs_error_clear(&err);
    path_in(path, sizeof path, "conf");
    ck_assert_int_eq(vs_store_open(&st, path, &err), 0);
    ck_assert_int_eq(commit_sheet(st, "s", "base\n", NULL, "s: base", &a1, &err), 0);
    ck_assert_int_eq(commit_sheet(st, "s", "theirs\n", a1.blob, "s: theirs", &a2, &err), 0);
    /* a second session that loaded the base version is refused */
    ck_assert_int_eq(commit_sheet(st, "s", "mine\n", a1.blob, "s: mine", &info, &err),
                     VS_ECONFLICT);
    ck_assert_ptr_nonnull(strstr(err.message, "replace"));
    ck_assert_str_eq(info.commit, a2.commit);
    ck_assert_str_eq(info.blob, a2.blob);
    /* a new sheet of an existing id too */
    ck_assert_int_eq(commit_sheet(st, "s", "other\n", NULL, "s: other", &info, &err), VS_ECONFLICT);
    ck_assert_ptr_nonnull(strstr(err.message, "did not load"));
    ck_assert_int_eq(vs_store_read(st, "s", NULL, NULL, &blob, &err), 0);
    ck_assert_str_eq(blob.data, "theirs\n");
    vs_store_blob_clear(&blob);
    /* the person chose to record theirs-then-mine: allowed */
    memset(&w, 0, sizeof w);
    w.sheet_id = "s";
    w.json = "mine\n";
    w.json_len = 5;
    w.message = "s: mine on top";
    w.expected_blob = a1.blob;
    w.replace = 1;
    ck_assert_int_eq(vs_store_commit(st, &w, &info, &err), 0);
    ck_assert_int_eq(vs_store_read(st, "s", "HEAD~1", NULL, &blob, &err), 0);
    ck_assert_str_eq(blob.data, "theirs\n");
    vs_store_blob_clear(&blob);
    /* ids that are not slugs never reach a path */
    w.sheet_id = "../evil";
    ck_assert_int_eq(vs_store_commit(st, &w, &info, &err), VS_EVALUE);
    w.sheet_id = "a/b";
    ck_assert_int_eq(vs_store_commit(st, &w, &info, &err), VS_EVALUE);
    vs_store_free(st);
}
END_TEST

START_TEST(test_bare_and_existing)
{
    char bare[300], work[300];
    vs_store *st = NULL;
    vs_store_commit_info info;
    vs_store_blob blob;
    vs_error err;
    char *out;
    vs_error_clear(&err);
    path_in(bare, sizeof bare, "bare.git");
    path_in(work, sizeof work, "project");
    out = vs_test_sh("git init -q --bare -b main '%s' && git init -q -b trunk '%s' && cd '%s' && "
                     "echo hello > README && mkdir -p docs && echo x > docs/a && git add . && "
                     "git -c user.name=t -c user.email=t@t commit -qm init && echo ok",
                     bare, work, work);
    ck_assert_str_eq(out, "ok\n");
    free(out);

    ck_assert_int_eq(vs_store_open(&st, bare, &err), 0);
    ck_assert_int_eq(vs_store_is_bare(st), 1);
    ck_assert_int_eq(commit_sheet(st, "s", "bare\n", NULL, "s: bare", &info, &err), 0);
    ck_assert_int_eq(vs_store_read(st, "s", NULL, NULL, &blob, &err), 0);
    ck_assert_str_eq(blob.data, "bare\n");
    vs_store_blob_clear(&blob);
    vs_store_free(st);
    out = vs_test_sh("git -C '%s' show main:sheets/s/sheet.json && git -C '%s' fsck --strict 2>&1",
                     bare, bare);
    ck_assert_str_eq(out, "bare\n");
    free(out);

    /* an existing repository with other content, on its own branch */
    ck_assert_int_eq(vs_store_open(&st, work, &err), 0);
    ck_assert_int_eq(commit_sheet(st, "s", "in project\n", NULL, "s: here", &info, &err), 0);
    ck_assert_str_eq(info.branch, "trunk");
    vs_store_free(st);
    out = vs_test_sh("cd '%s' && git ls-tree -r --name-only trunk && git status --porcelain && "
                     "git diff HEAD~1 --stat | tail -n1",
                     work);
    ck_assert_str_eq(out, "README\ndocs/a\nsheets/s/sheet.json\nsheets/s/sheet.md\n"
                          " 2 files changed, 4 insertions(+)\n");
    free(out);
    out = vs_test_sh("cat '%s/sheets/s/sheet.json'", work);
    ck_assert_str_eq(out, "in project\n");
    free(out);
}
END_TEST

START_TEST(test_worktree_follows_tip)
{
    char path[300];
    vs_store *s1 = NULL, *s2 = NULL;
    vs_store_commit_info i1, i2;
    vs_error err;
    char *out;
    vs_error_clear(&err);
    path_in(path, sizeof path, "wt");
    ck_assert_int_eq(vs_store_open(&s1, path, &err), 0);
    ck_assert_int_eq(commit_sheet(s1, "x", "1\n", NULL, "x: 1", &i1, &err), 0);
    ck_assert_int_eq(vs_store_open(&s2, path, &err), 0);
    ck_assert_int_eq(commit_sheet(s2, "y", "1\n", NULL, "y: 1", &i2, &err), 0);
    ck_assert_int_eq(commit_sheet(s1, "x", "2\n", i1.blob, "x: 2", &i1, &err), 0);
    ck_assert_int_eq(commit_sheet(s2, "y", "2\n", i2.blob, "y: 2", &i2, &err), 0);
    out = vs_test_sh(
        "cd '%s' && git status --porcelain && cat sheets/x/sheet.json sheets/y/sheet.json && "
        "git rev-list --count main",
        path);
    ck_assert_str_eq(out, "2\n2\n4\n");
    free(out);
    vs_store_free(s1);
    vs_store_free(s2);
}
END_TEST

START_TEST(test_unusable_paths)
{
    char path[300], *out;
    vs_store *st = NULL;
    vs_error err;
    vs_error_clear(&err);
    path_in(path, sizeof path, "afile");
    out = vs_test_sh("echo x > '%s'", path);
    free(out);
    ck_assert_int_eq(vs_store_open(&st, path, &err), VS_ERECORDS);
    ck_assert_ptr_nonnull(strstr(err.message, "is a file"));
    path_in(path, sizeof path, "notrepo");
    out = vs_test_sh("mkdir '%s' && echo x > '%s/data'", path, path);
    free(out);
    ck_assert_int_eq(vs_store_open(&st, path, &err), VS_ERECORDS);
    ck_assert_ptr_nonnull(strstr(err.message, "not a git repository"));
    ck_assert_ptr_null(st);
    /* empty folder: fine, created on the first commit */
    path_in(path, sizeof path, "empty");
    mkdir(path, 0777);
    ck_assert_int_eq(vs_store_open(&st, path, &err), 0);
    vs_store_free(st);
    st = NULL;
    /* owned by someone else: only testable as root (chown) */
    if (geteuid() == 0) {
        path_in(path, sizeof path, "theirs");
        out = vs_test_sh("git init -q '%s' && chown -R 65534:65534 '%s' && echo ok", path, path);
        ck_assert_str_eq(out, "ok\n");
        free(out);
        ck_assert_int_eq(vs_store_open(&st, path, &err), VS_ERECORDS);
        ck_assert_ptr_nonnull(strstr(err.message, "owned by someone else"));
        ck_assert_ptr_nonnull(strstr(err.message, "safe.directory"));
    }
}
END_TEST

START_TEST(test_stale_lock_reported)
{
    char path[300], lock[400], *out;
    vs_store *st = NULL;
    vs_store_commit_info info;
    vs_error err;
    vs_error_clear(&err);
    setenv("VRAMSHEET_RECORDS_WAIT_MS", "300", 1);
    path_in(path, sizeof path, "locked");
    ck_assert_int_eq(vs_store_open(&st, path, &err), 0);
    ck_assert_int_eq(commit_sheet(st, "s", "1\n", NULL, "s: 1", &info, &err), 0);
    snprintf(lock, sizeof lock, "%s/.git/refs/heads/main.lock", path);
    out = vs_test_sh("touch '%s'", lock);
    free(out);
    ck_assert_int_eq(commit_sheet(st, "t", "1\n", NULL, "t: 1", &info, &err), VS_ERECORDS);
    ck_assert_ptr_nonnull(strstr(err.message, "main.lock"));
    ck_assert_ptr_nonnull(strstr(err.message, "remove that file"));
    unlink(lock);
    ck_assert_int_eq(commit_sheet(st, "t", "1\n", NULL, "t: 1", &info, &err), 0);
    /* a stale index.lock: the commit stays, the warning says what to do */
    snprintf(lock, sizeof lock, "%s/.git/index.lock", path);
    out = vs_test_sh("touch '%s'", lock);
    free(out);
    ck_assert_int_eq(commit_sheet(st, "u", "1\n", NULL, "u: 1", &info, &err), 0);
    ck_assert_ptr_nonnull(strstr(info.warning, "index.lock"));
    unlink(lock);
    unsetenv("VRAMSHEET_RECORDS_WAIT_MS");
    vs_store_free(st);
}
END_TEST

/* A branch lock left by a writer that died is removed by the next writer, which
 * says so; git, reading the branch afterwards, agrees with what was reported. */
START_TEST(test_dead_writer_branch_lock)
{
    char path[300], lock[400], refs[400], *out, tag[128];
    vs_store *st = NULL;
    vs_store_commit_info info;
    vs_error err;
    pid_t dead;
    FILE *f;
    vs_error_clear(&err);
    setenv("VRAMSHEET_RECORDS_WAIT_MS", "300", 1);
    path_in(path, sizeof path, "deadlock");
    ck_assert_int_eq(vs_store_open(&st, path, &err), 0);
    ck_assert_int_eq(commit_sheet(st, "s", "1\n", NULL, "s: 1", &info, &err), 0);
    ck_assert_str_eq(info.repaired, "");
    snprintf(lock, sizeof lock, "%s/.git/refs/heads/main.lock", path);
    snprintf(refs, sizeof refs, "%s/.git/vramsheet-refs.lock", path);

    /* 1. empty and a minute old, with no writer of ours behind it: a writer
     * that died before it wrote the branch (git writes its lock at once) */
    out = vs_test_sh("touch -d '-60 seconds' '%s'", lock);
    free(out);
    ck_assert_int_eq(commit_sheet(st, "t", "1\n", NULL, "t: 1", &info, &err), 0);
    ck_assert_ptr_nonnull(strstr(info.repaired, "main.lock"));
    ck_assert_ptr_nonnull(strstr(info.repaired, "empty for"));
    ck_assert_int_ne(access(lock, F_OK), 0);
    out = vs_test_sh("git -C '%s' rev-parse main", path);
    ck_assert_int_eq(strncmp(out, info.commit, 40), 0);
    free(out);

    /* 2. fresh, but the records' own lock of references names a writer that
     * is dead (it held it while moving main, and was killed) */
    dead = fork();
    if (dead == 0)
        _exit(0);
    waitpid(dead, NULL, 0);
    snprintf(tag, sizeof tag, "vramsheet %ld refs/heads/main\n", (long)dead);
    ck_assert_ptr_nonnull(f = fopen(refs, "w"));
    fputs(tag, f);
    fclose(f);
    ck_assert_ptr_nonnull(f = fopen(lock, "w"));
    fclose(f);
    ck_assert_int_eq(commit_sheet(st, "u", "1\n", NULL, "u: 1", &info, &err), 0);
    snprintf(tag, sizeof tag, "process %ld", (long)dead);
    ck_assert_ptr_nonnull(strstr(info.repaired, tag));
    ck_assert_ptr_nonnull(strstr(info.repaired, "killed while it moved main"));
    ck_assert_int_ne(access(lock, F_OK), 0);
    out = vs_test_sh("git -C '%s' log --format=%%s main | head -1", path);
    ck_assert_str_eq(out, "u: 1\n");
    free(out);

    /* 3. a fresh lock with no dead writer named is a live writer's: waited on,
     * reported, left in place */
    ck_assert_ptr_nonnull(f = fopen(lock, "w"));
    fclose(f);
    ck_assert_int_eq(commit_sheet(st, "v", "1\n", NULL, "v: 1", &info, &err), VS_ERECORDS);
    ck_assert_ptr_nonnull(strstr(err.message, "main.lock"));
    ck_assert_int_eq(access(lock, F_OK), 0);
    /* and one with a new id in it (a git command between writing and
     * renaming it) is never removed, however old */
    ck_assert_ptr_nonnull(f = fopen(lock, "w"));
    fputs("0123456789012345678901234567890123456789\n", f);
    fclose(f);
    out = vs_test_sh("touch -d '-60 seconds' '%s'", lock);
    free(out);
    ck_assert_int_eq(commit_sheet(st, "v", "1\n", NULL, "v: 1", &info, &err), VS_ERECORDS);
    ck_assert_int_eq(access(lock, F_OK), 0);
    unlink(lock);
    ck_assert_int_eq(commit_sheet(st, "v", "1\n", NULL, "v: 1", &info, &err), 0);
    ck_assert_str_eq(info.repaired, "");
    unsetenv("VRAMSHEET_RECORDS_WAIT_MS");
    vs_store_free(st);
}
END_TEST

START_TEST(test_parse_spec)
{
    char id[64];
    const char *rev;
    vs_error err;
    ck_assert_int_eq(vs_store_parse_spec("llama-7b@HEAD~2", id, sizeof id, &rev, &err), 0);
    ck_assert_str_eq(id, "llama-7b");
    ck_assert_str_eq(rev, "HEAD~2");
    ck_assert_int_eq(vs_store_parse_spec("llama-7b", id, sizeof id, &rev, &err), 0);
    ck_assert_ptr_null(rev);
    ck_assert_int_eq(vs_store_parse_spec("x@main@{1}", id, sizeof id, &rev, &err), 0);
    ck_assert_str_eq(rev, "main@{1}");
    ck_assert_int_eq(vs_store_parse_spec("Bad/Id@HEAD", id, sizeof id, &rev, &err), VS_EVALUE);
    ck_assert_int_eq(vs_store_parse_spec("x@", id, sizeof id, &rev, &err), VS_EVALUE);
    ck_assert_int_eq(vs_store_parse_spec("@HEAD", id, sizeof id, &rev, &err), VS_EVALUE);
}
END_TEST

START_TEST(test_push_pull)
{
    char remote[300], a[300], b[300], *out;
    vs_store *sa = NULL, *sb = NULL;
    vs_store_commit_info ia, ib;
    vs_store_sync sync;
    vs_store_blob blob;
    vs_error err;
    vs_error_clear(&err);
    path_in(remote, sizeof remote, "remote.git");
    path_in(a, sizeof a, "a");
    path_in(b, sizeof b, "b");
    out = vs_test_sh("git init -q --bare -b main '%s' && echo ok", remote);
    ck_assert_str_eq(out, "ok\n");
    free(out);
    ck_assert_int_eq(vs_store_open(&sa, a, &err), 0);
    ck_assert_int_eq(vs_store_open(&sb, b, &err), 0);
    ck_assert_int_eq(vs_store_push(sa, remote, &sync, &err), VS_ERECORDS); /* nothing yet */
    ck_assert_int_eq(commit_sheet(sa, "x", "x1\n", NULL, "x: 1", &ia, &err), 0);
    ck_assert_int_eq(vs_store_push(sa, NULL, &sync, &err), VS_ERECORDS); /* no origin */
    ck_assert_ptr_nonnull(strstr(err.message, "origin"));
    ck_assert_int_eq(vs_store_push(sa, remote, &sync, &err), 0);
    ck_assert_str_eq(sync.remote_after, ia.commit);
    out = vs_test_sh("git -C '%s' rev-parse main", remote);
    ck_assert_int_eq(strncmp(out, ia.commit, 40), 0);
    free(out);
    /* pushing again: nothing to do */
    ck_assert_int_eq(vs_store_push(sa, remote, &sync, &err), 0);
    ck_assert_int_eq(sync.up_to_date, 1);

    /* b has a commit of its own: pull merges the remote in */
    ck_assert_int_eq(commit_sheet(sb, "y", "y1\n", NULL, "y: 1", &ib, &err), 0);
    ck_assert_int_eq(vs_store_pull(sb, remote, &sync, &err), 0);
    ck_assert_int_eq(sync.merged, 1);
    ck_assert_int_eq(vs_store_read(sb, "x", NULL, NULL, &blob, &err), 0);
    ck_assert_str_eq(blob.data, "x1\n");
    vs_store_blob_clear(&blob);
    out = vs_test_sh("cd '%s' && git status --porcelain && cat sheets/x/sheet.json", b);
    ck_assert_str_eq(out, "x1\n");
    free(out);

    /* both sides commit different sheets; b pushes first, a must merge then push */
    ck_assert_int_eq(vs_store_push(sb, remote, &sync, &err), 0);
    ck_assert_int_eq(commit_sheet(sa, "z", "z1\n", NULL, "z: 1", &ia, &err), 0);
    ck_assert_int_eq(vs_store_push(sa, remote, &sync, &err), 0);
    ck_assert_int_eq(sync.merged, 1);
    out = vs_test_sh(
        "git -C '%s' merge-base --is-ancestor %s main && git -C '%s' ls-tree --name-only "
        "main:sheets && git -C '%s' fsck --strict 2>&1",
        remote, ia.commit, remote, remote);
    ck_assert_str_eq(out, "x\ny\nz\n");
    free(out);

    /* the same sheet on both sides: refused, the remote keeps b's */
    ck_assert_int_eq(vs_store_pull(sb, remote, &sync, &err), 0);
    ck_assert_int_eq(vs_store_read(sb, "x", NULL, NULL, &blob, &err), 0);
    ck_assert_int_eq(commit_sheet(sb, "x", "x-b\n", blob.blob, "x: b", &ib, &err), 0);
    ck_assert_int_eq(commit_sheet(sa, "x", "x-a\n", blob.blob, "x: a", &ia, &err), 0);
    vs_store_blob_clear(&blob);
    ck_assert_int_eq(vs_store_push(sb, remote, &sync, &err), 0);
    ck_assert_int_eq(vs_store_push(sa, remote, &sync, &err), VS_ECONFLICT);
    ck_assert_ptr_nonnull(strstr(err.message, "sheets/x/"));
    out = vs_test_sh("git -C '%s' show main:sheets/x/sheet.json", remote);
    ck_assert_str_eq(out, "x-b\n");
    free(out);

    /* a configured remote name, and file:// */
    out = vs_test_sh("git -C '%s' remote add origin 'file://%s' && echo ok", b, remote);
    ck_assert_str_eq(out, "ok\n");
    free(out);
    ck_assert_int_eq(vs_store_pull(sb, NULL, &sync, &err), 0);
    ck_assert_int_eq(sync.up_to_date, 1);
    vs_store_free(sa);
    vs_store_free(sb);
}
END_TEST

/* SHEET@~N counts the sheet's own revisions; SHEET@HEAD~N the branch's commits.
 * Commits of another sheet are interleaved; the git CLI says which is which. */
START_TEST(test_sheet_revisions)
{
    char path[300], *out, want[64];
    vs_store *st = NULL;
    vs_store_commit_info ix, iy;
    vs_store_blob b = {0};
    vs_error err;
    unsigned long n;
    vs_error_clear(&err);
    path_in(path, sizeof path, "wt");
    ck_assert_int_eq(vs_store_open(&st, path, &err), 0);
    ck_assert_int_eq(commit_sheet(st, "x", "x1\n", NULL, "x: 1", &ix, &err), 0);
    ck_assert_int_eq(commit_sheet(st, "y", "y1\n", NULL, "y: 1", &iy, &err), 0);
    ck_assert_int_eq(commit_sheet(st, "x", "x2\n", ix.blob, "x: 2", &ix, &err), 0);
    ck_assert_int_eq(commit_sheet(st, "y", "y2\n", iy.blob, "y: 2", &iy, &err), 0);
    /* the sheet's own history: x2 then x1 */
    ck_assert_int_eq(vs_store_read(st, "x", "~1", NULL, &b, &err), 0);
    ck_assert_str_eq(b.data, "x1\n");
    out = vs_test_sh("git -C '%s' log --format=%%H -- sheets/x/ | sed -n 2p", path);
    snprintf(want, sizeof want, "%s\n", b.commit);
    ck_assert_str_eq(out, want);
    free(out);
    vs_store_blob_clear(&b);
    ck_assert_int_eq(vs_store_read(st, "x", "~", NULL, &b, &err), 0); /* ~ is ~1 */
    ck_assert_str_eq(b.data, "x1\n");
    vs_store_blob_clear(&b);
    ck_assert_int_eq(vs_store_read(st, "x", "~0", NULL, &b, &err), 0);
    ck_assert_str_eq(b.data, "x2\n");
    out = vs_test_sh("git -C '%s' log -1 --format=%%H -- sheets/x/", path);
    snprintf(want, sizeof want, "%s\n", b.commit);
    ck_assert_str_eq(out, want);
    free(out);
    vs_store_blob_clear(&b);
    /* git's meaning: one commit back on the branch (y's), where x was x2 */
    ck_assert_int_eq(vs_store_read(st, "x", "HEAD~1", NULL, &b, &err), 0);
    ck_assert_str_eq(b.data, "x2\n");
    out = vs_test_sh("git -C '%s' rev-parse HEAD~1 && git -C '%s' show HEAD~1:sheets/x/sheet.json",
                     path, path);
    snprintf(want, sizeof want, "%s\nx2\n", b.commit);
    ck_assert_str_eq(out, want);
    free(out);
    vs_store_blob_clear(&b);
    ck_assert_int_eq(vs_store_read(st, "x", "~2", NULL, &b, &err), VS_ENOTFOUND);
    ck_assert_ptr_nonnull(strstr(err.message, "2 revisions"));
    ck_assert_int_eq(vs_store_read(st, "y", "~1", "sheet.md", &b, &err), 0);
    ck_assert_str_eq(b.data, "# y\n\ny1\n");
    vs_store_blob_clear(&b);
    ck_assert_int_eq(vs_store_sheet_rev("~12", &n), 1);
    ck_assert_uint_eq(n, 12);
    ck_assert_int_eq(vs_store_sheet_rev("~1x", &n), 0);
    ck_assert_int_eq(vs_store_sheet_rev("HEAD~1", &n), 0);
    ck_assert_int_eq(vs_store_sheet_rev("~-1", &n), 0);
    vs_store_free(st);
}
END_TEST

/* Restating a state the records held at an older revision, without having
 * loaded it: nothing is written, and the caller goes on from that revision. */
START_TEST(test_restate_held_state)
{
    char path[300], *out, want[64];
    vs_store *st = NULL;
    vs_store_commit_info i1, i2, i;
    vs_error err;
    vs_error_clear(&err);
    path_in(path, sizeof path, "wt");
    ck_assert_int_eq(vs_store_open(&st, path, &err), 0);
    ck_assert_int_eq(commit_sheet(st, "x", "x1\n", NULL, "x: 1", &i1, &err), 0);
    ck_assert_int_eq(commit_sheet(st, "y", "y1\n", NULL, "y: 1", &i, &err), 0);
    ck_assert_int_eq(commit_sheet(st, "x", "x2\n", i1.blob, "x: 2", &i2, &err), 0);
    ck_assert_int_eq(commit_sheet(st, "x", "x1\n", NULL, "x: again", &i, &err), 0);
    ck_assert_int_eq(i.unchanged, 1);
    ck_assert_int_eq(i.held_earlier, 1);
    ck_assert_str_eq(i.commit, i1.commit);
    ck_assert_str_eq(i.blob, i1.blob);
    /* the tip's own state, too (not loaded) */
    ck_assert_int_eq(commit_sheet(st, "x", "x2\n", NULL, "x: again", &i, &err), 0);
    ck_assert_int_eq(i.unchanged, 1);
    ck_assert_int_eq(i.held_earlier, 0);
    /* going on from x1 meets x2 as a concurrent change */
    ck_assert_int_eq(commit_sheet(st, "x", "x3\n", i1.blob, "x: 3", &i, &err), VS_ECONFLICT);
    out = vs_test_sh("git -C '%s' rev-list --count main && git -C '%s' status --porcelain", path,
                     path);
    ck_assert_str_eq(out, "3\n");
    free(out);
    /* a state never held is still refused when the session did not load it */
    ck_assert_int_eq(commit_sheet(st, "x", "x4\n", NULL, "x: 4", &i, &err), VS_ECONFLICT);
    ck_assert_ptr_nonnull(strstr(err.message, "did not load"));
    snprintf(want, sizeof want, "%s\n", i2.commit);
    out = vs_test_sh("git -C '%s' rev-parse main", path);
    ck_assert_str_eq(out, want);
    free(out);
    vs_store_free(st);
}
END_TEST

/* Hand edits of a sheet's files in the records work tree are never written over. */
START_TEST(test_hand_edits_refused)
{
    char path[300], *out;
    vs_store *st = NULL;
    vs_store_commit_info i, iy, ix;
    vs_error err;
    vs_error_clear(&err);
    path_in(path, sizeof path, "wt");
    ck_assert_int_eq(vs_store_open(&st, path, &err), 0);
    ck_assert_int_eq(commit_sheet(st, "x", "x1\n", NULL, "x: 1", &ix, &err), 0);
    ck_assert_int_eq(commit_sheet(st, "y", "y1\n", NULL, "y: 1", &iy, &err), 0);
    out = vs_test_sh(
        "cd '%s' && echo mine >> sheets/x/sheet.json && echo mine >> sheets/x/sheet.md && "
        "git rev-parse HEAD",
        path);
    free(out);
    ck_assert_int_eq(commit_sheet(st, "x", "x2\n", NULL, "x: 2", &i, &err), VS_ERECORDS);
    ck_assert_ptr_nonnull(strstr(err.message, "sheets/x/sheet.json, sheets/x/sheet.md"));
    ck_assert_ptr_nonnull(strstr(err.message, "nothing was written"));
    out = vs_test_sh(
        "cd '%s' && git status --porcelain && tail -1 sheets/x/sheet.json && git rev-list "
        "--count main",
        path);
    ck_assert_str_eq(out, " M sheets/x/sheet.json\n M sheets/x/sheet.md\nmine\n2\n");
    free(out);
    /* another sheet is not held back by them */
    ck_assert_int_eq(commit_sheet(st, "y", "y2\n", iy.blob, "y: 2", &i, &err), 0);
    /* staged by hand: refused too */
    out = vs_test_sh(
        "cd '%s' && git checkout -q HEAD -- sheets/x/sheet.md && git add sheets/x/sheet.json "
        "&& git status --porcelain",
        path);
    ck_assert_str_eq(out, "M  sheets/x/sheet.json\n");
    free(out);
    ck_assert_int_eq(commit_sheet(st, "x", "x2\n", NULL, "x: 2", &i, &err), VS_ERECORDS);
    ck_assert_ptr_nonnull(strstr(err.message, "sheets/x/sheet.json"));
    ck_assert_ptr_null(strstr(err.message, "sheet.md"));
    /* dropped as the message says: the commit goes through, the tree is clean */
    out =
        vs_test_sh("cd '%s' && git checkout -q HEAD -- sheets/x/ && git status --porcelain", path);
    ck_assert_str_eq(out, "");
    free(out);
    ck_assert_int_eq(commit_sheet(st, "x", "x2\n", ix.blob, "x: 2", &i, &err), 0);
    out = vs_test_sh("cd '%s' && git status --porcelain && git rev-list --count main", path);
    ck_assert_str_eq(out, "4\n");
    free(out);
    vs_store_free(st);
}
END_TEST

/* A commit killed between moving the branch and updating the work tree leaves
 * its journal entry; the next open repairs the sheet from the tip and says so. */
START_TEST(test_interrupted_commit_repaired)
{
    char path[300], *out, jp[600];
    vs_store *st = NULL;
    vs_store_commit_info i1, i2;
    vs_error err;
    pid_t dead;
    FILE *f;
    vs_error_clear(&err);
    path_in(path, sizeof path, "wt");
    ck_assert_int_eq(vs_store_open(&st, path, &err), 0);
    ck_assert_int_eq(commit_sheet(st, "x", "x1\n", NULL, "x: 1", &i1, &err), 0);
    ck_assert_int_eq(commit_sheet(st, "x", "x2\n", i1.blob, "x: 2", &i2, &err), 0);
    vs_store_free(st);
    /* the half state: index at x1, sheet.json's file at a third content, sheet.md at x1 */
    out =
        vs_test_sh("cd '%s' && git reset -q HEAD~1 -- sheets/x/ && git checkout -q -- sheets/x/ && "
                   "echo half > sheets/x/sheet.json && git status --porcelain",
                   path);
    ck_assert_str_eq(out, "MM sheets/x/sheet.json\nM  sheets/x/sheet.md\n");
    free(out);
    dead = fork();
    if (dead == 0)
        _exit(0);
    ck_assert_int_eq(waitpid(dead, NULL, 0), dead);
    snprintf(jp, sizeof jp, "%s/.git/vramsheet-sync", path);
    mkdir(jp, 0777);
    snprintf(jp, sizeof jp, "%s/.git/vramsheet-sync/x.%ld", path, (long)dead);
    ck_assert_ptr_nonnull(f = fopen(jp, "w"));
    fclose(f);
    /* killed before its rename: a temporary file beside the sheet */
    snprintf(jp, sizeof jp, "%s/sheets/x/sheet.md.vs-tmp-%ld", path, (long)dead);
    ck_assert_ptr_nonnull(f = fopen(jp, "w"));
    fclose(f);
    ck_assert_int_eq(vs_store_open(&st, path, &err), 0);
    ck_assert_ptr_nonnull(strstr(vs_store_notice(st), "repaired"));
    ck_assert_ptr_nonnull(strstr(vs_store_notice(st), "sheets/x/"));
    out = vs_test_sh(
        "cd '%s' && git status --porcelain && cat sheets/x/sheet.json && ls .git/vramsheet-sync",
        path);
    ck_assert_str_eq(out, "x2\n");
    free(out);
    vs_store_free(st);
    /* nothing to repair: nothing said */
    ck_assert_int_eq(vs_store_open(&st, path, &err), 0);
    ck_assert_str_eq(vs_store_notice(st), "");
    /* a journal entry of a live writer is left alone */
    snprintf(jp, sizeof jp, "%s/.git/vramsheet-sync/x.%ld", path, (long)getppid());
    ck_assert_ptr_nonnull(f = fopen(jp, "w"));
    fclose(f);
    vs_store_free(st);
    ck_assert_int_eq(vs_store_open(&st, path, &err), 0);
    ck_assert_str_eq(vs_store_notice(st), "");
    ck_assert_int_eq(access(jp, F_OK), 0);
    vs_store_free(st);
}
END_TEST

/* A sheet is never merged: the same sheet changed on both sides (in lines git
 * would merge without a conflict) is refused on push and on pull, nothing is
 * written, and both sides keep their commits. */
START_TEST(test_same_sheet_divergence_refused)
{
    char remote[300], a[300], b[300], *out, want[200];
    vs_store *sa = NULL, *sb = NULL;
    vs_store_commit_info ia, ib;
    vs_store_sync sync;
    vs_error err;
    vs_error_clear(&err);
    path_in(remote, sizeof remote, "remote.git");
    path_in(a, sizeof a, "a");
    path_in(b, sizeof b, "b");
    out = vs_test_sh("git init -q --bare -b main '%s' && echo ok", remote);
    ck_assert_str_eq(out, "ok\n");
    free(out);
    ck_assert_int_eq(vs_store_open(&sa, a, &err), 0);
    ck_assert_int_eq(vs_store_open(&sb, b, &err), 0);
    ck_assert_int_eq(commit_sheet(sa, "x", "l1\nl2\nl3\nl4\nl5\nl6\n", NULL, "x: base", &ia, &err),
                     0);
    ck_assert_int_eq(vs_store_push(sa, remote, &sync, &err), 0);
    ck_assert_int_eq(vs_store_pull(sb, remote, &sync, &err), 0);
    ck_assert_int_eq(commit_sheet(sb, "x", "l1\nl2\nl3\nl4\nl5\nB6\n", ia.blob, "x: b", &ib, &err),
                     0);
    ck_assert_int_eq(vs_store_push(sb, remote, &sync, &err), 0);
    ck_assert_int_eq(commit_sheet(sa, "x", "A1\nl2\nl3\nl4\nl5\nl6\n", ia.blob, "x: a", &ia, &err),
                     0);
    ck_assert_int_eq(commit_sheet(sa, "y", "ya\n", NULL, "y: a", &ia, &err), 0);
    /* git itself would merge the two edits of x */
    out = vs_test_sh(
        "cd '%s' && git fetch -q '%s' main && git merge-tree $(git merge-base HEAD FETCH_HEAD) "
        "HEAD FETCH_HEAD | grep -c '^+<<<<<<<'",
        a, remote);
    ck_assert_str_eq(out, "0\n");
    free(out);
    ck_assert_int_eq(vs_store_push(sa, remote, &sync, &err), VS_ECONFLICT);
    ck_assert_str_eq(vs_error_ename(err.code), "RecordsError");
    ck_assert_ptr_nonnull(strstr(err.message, "sheets/x/"));
    ck_assert_ptr_null(strstr(err.message, "sheets/y/"));
    ck_assert_ptr_nonnull(strstr(err.message, "nothing was merged or pushed"));
    ck_assert_ptr_nonnull(strstr(err.message, "show SHEET@"));
    ck_assert_ptr_nonnull(strstr(err.message, "replace"));
    /* the remote keeps b's, a keeps its own; nothing written on either */
    snprintf(want, sizeof want, "%s\n%s\n", ib.commit, ia.commit);
    out = vs_test_sh("git -C '%s' rev-parse main && git -C '%s' rev-parse main", remote, a);
    ck_assert_str_eq(out, want);
    free(out);
    ck_assert_int_eq(vs_store_pull(sa, remote, &sync, &err), VS_ECONFLICT);
    ck_assert_ptr_nonnull(strstr(err.message, "sheets/x/"));
    out = vs_test_sh("git -C '%s' rev-parse main && git -C '%s' status --porcelain && cat "
                     "'%s/sheets/x/sheet.json'",
                     a, a, a);
    snprintf(want, sizeof want, "%s\nA1\nl2\nl3\nl4\nl5\nl6\n", ia.commit);
    ck_assert_str_eq(out, want);
    free(out);
    /* both histories intact and readable */
    out = vs_test_sh(
        "git -C '%s' fsck --strict 2>&1 && git -C '%s' fsck --strict 2>&1 && git -C '%s' log "
        "--format=%%s main && git -C '%s' log --format=%%s main",
        remote, a, remote, a);
    ck_assert_str_eq(out, "x: b\nx: base\ny: a\nx: a\nx: base\n");
    free(out);
    /* the person keeps a's version: a replace commit joins both histories */
    {
        vs_store_write w;
        vs_store_blob tipx = {0};
        ck_assert_int_eq(vs_store_read(sa, "x", NULL, NULL, &tipx, &err), 0);
        memset(&w, 0, sizeof w);
        w.sheet_id = "x";
        w.json = "A1\nl2\nl3\nl4\nl5\nl6\n";
        w.json_len = strlen(w.json);
        w.message = "x: keep a's";
        w.expected_blob = tipx.blob;
        w.replace = 1;
        ck_assert_int_eq(vs_store_commit(sa, &w, &ia, &err), 0);
        vs_store_blob_clear(&tipx);
    }
    ck_assert_str_eq(ia.joined, ib.commit);
    ck_assert_int_eq(vs_store_push(sa, remote, &sync, &err), 0);
    snprintf(want, sizeof want, "%s\n%s\n", ia.commit, ib.commit);
    out = vs_test_sh("git -C '%s' rev-parse main && git -C '%s' rev-parse main^2", remote, remote);
    ck_assert_str_eq(out, want);
    free(out);
    out =
        vs_test_sh("git -C '%s' show main:sheets/x/sheet.json && git -C '%s' status --porcelain && "
                   "git -C '%s' fsck --strict 2>&1",
                   remote, a, remote);
    ck_assert_str_eq(out, "A1\nl2\nl3\nl4\nl5\nl6\n");
    free(out);
    ck_assert_int_eq(vs_store_pull(sb, remote, &sync, &err), 0);
    ck_assert_int_eq(sync.fast_forward, 1);
    vs_store_free(sa);
    vs_store_free(sb);
}
END_TEST

/* Racing writers back off by different pauses: two processes draw different
 * sequences (rand() unseeded gave every process the same one). */
/* git receive-pack's words for a push that lost a race, which the push tries
 * again, against a hook's refusal, which it reports (builtin/receive-pack.c) */
START_TEST(test_push_race_words)
{
    vs_store_push_report r;
    memset(&r, 0, sizeof r);
    snprintf(r.status, sizeof r.status, "refs/heads/main: cannot lock ref 'refs/heads/main'");
    ck_assert_int_eq(vs_store_push_report_race(&r), 1);
    snprintf(r.status, sizeof r.status,
             "refs/heads/main: unable to migrate objects to permanent storage");
    ck_assert_int_eq(vs_store_push_report_race(&r), 1);
    snprintf(r.status, sizeof r.status, "refs/heads/main: pre-receive hook declined");
    ck_assert_int_eq(vs_store_push_report_race(&r), 0);
}
END_TEST

START_TEST(test_backoff_differs_per_process)
{
    unsigned draws[2][16];
    int k, fd[2];
    for (k = 0; k < 2; k++) {
        pid_t pid;
        ck_assert_int_eq(pipe(fd), 0);
        pid = fork();
        if (pid == 0) {
            unsigned d[16];
            int i;
            for (i = 0; i < 16; i++)
                d[i] = vs_store_backoff_us(19);
            _exit(write(fd[1], d, sizeof d) == (ssize_t)sizeof d ? 0 : 1);
        }
        close(fd[1]);
        ck_assert_int_eq(read(fd[0], draws[k], sizeof draws[k]), (int)sizeof draws[k]);
        close(fd[0]);
        ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
    }
    for (k = 0; k < 16; k++) {
        ck_assert_uint_ge(draws[0][k], 100);
        ck_assert_uint_le(draws[0][k], 10100);
    }
    ck_assert(memcmp(draws[0], draws[1], sizeof draws[0]) != 0);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("store");
    TCase *tc = tcase_create("store");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_create_commit_read);
    tcase_add_test(tc, test_history_and_revisions);
    tcase_add_test(tc, test_conflicts);
    tcase_add_test(tc, test_bare_and_existing);
    tcase_add_test(tc, test_worktree_follows_tip);
    tcase_add_test(tc, test_unusable_paths);
    tcase_add_test(tc, test_stale_lock_reported);
    tcase_add_test(tc, test_dead_writer_branch_lock);
    tcase_add_test(tc, test_parse_spec);
    tcase_add_test(tc, test_push_pull);
    tcase_add_test(tc, test_sheet_revisions);
    tcase_add_test(tc, test_restate_held_state);
    tcase_add_test(tc, test_hand_edits_refused);
    tcase_add_test(tc, test_interrupted_commit_repaired);
    tcase_add_test(tc, test_same_sheet_divergence_refused);
    tcase_add_test(tc, test_backoff_differs_per_process);
    tcase_add_test(tc, test_push_race_words);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return vs_check_run(suite());
}
