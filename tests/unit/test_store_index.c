/* Unit tests of the per-sheet revision index (src/store/store_index.h): random
 * histories with merges, built commit by commit with libgit2, the index brought
 * along (appended, rebuilt after a reset, after a crash mid-write), and each
 * sheet's revisions checked against a full walk written here (every commit,
 * topological and newer first, a commit counted for a sheet when its folder
 * differs from every parent's, as `git log --full-history` counts it), read
 * by git_tree_entry_bypath, not by the index's raw tree compare. The same
 * on histories packed by git fast-import and by git repack (trees stored as
 * deltas, read from the packs). A shallow clone made by the git CLI; a
 * revision that searches messages. */
#include <check.h>
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/store.h"
#include "store/store_index.h"
#include "store/store_internal.h"

#include "check_run.h"
#include "fast_import_history.h"

#define VS_GIT_FIXTURE_NAME "vs_test_store_index_XXXXXX"
#include "git_fixture.h"

/* --- a random history --- */

#define NBRANCH 4
#define MAXSHEETS 400

typedef struct world {
    git_repository *repo;
    git_signature *sig;
    git_oid tip[NBRANCH];
    int has[NBRANCH];
    unsigned seed;
    int64_t when;
    unsigned serial; /* every sheet.json written is unique */
    unsigned nsheets;
} world;

static unsigned rnd(world *w, unsigned n)
{
    w->seed = w->seed * 1103515245u + 12345u;
    return (w->seed >> 8) % n;
}

static void sheet_name(char *out, size_t len, unsigned k)
{
    /* ids that sort differently as names and as git tree entries ('-' < '/'),
     * then many more: a sheets/ tree larger than the blocks compared at once */
    static const char *const names[7] = {"a", "a-b", "ab", "b", "b-1", "c", "zz"};
    if (k < 7)
        snprintf(out, len, "%s", names[k]);
    else
        snprintf(out, len, "s-%u", k);
}

/* A commit on parents (1 or 2) whose tree is base's with upd applied. */
static void make_commit(world *w, const git_oid *base_tree, git_tree_update *upd, size_t nupd,
                        const git_oid *parents, unsigned np, git_oid *out)
{
    git_tree *base = NULL, *tree = NULL;
    git_oid tree_id;
    git_commit *pc[2] = {NULL, NULL};
    git_signature *sig = NULL;
    unsigned i;
    char msg[64];
    if (base_tree)
        ck_assert_int_eq(git_tree_lookup(&base, w->repo, base_tree), 0);
    if (base && nupd == 0) {
        git_oid_cpy(&tree_id, base_tree);
    } else if (!base) {
        git_treebuilder *tb = NULL;
        git_oid empty;
        ck_assert_int_eq(git_treebuilder_new(&tb, w->repo, NULL), 0);
        ck_assert_int_eq(git_treebuilder_write(&empty, tb), 0);
        git_treebuilder_free(tb);
        ck_assert_int_eq(git_tree_lookup(&base, w->repo, &empty), 0);
        ck_assert_int_eq(git_tree_create_updated(&tree_id, w->repo, base, nupd, upd), 0);
    } else {
        ck_assert_int_eq(git_tree_create_updated(&tree_id, w->repo, base, nupd, upd), 0);
    }
    ck_assert_int_eq(git_tree_lookup(&tree, w->repo, &tree_id), 0);
    for (i = 0; i < np; i++)
        ck_assert_int_eq(git_commit_lookup(&pc[i], w->repo, &parents[i]), 0);
    /* mostly later, sometimes earlier: clocks of several machines */
    w->when += rnd(w, 10) == 0 ? -(int64_t)rnd(w, 500) : (int64_t)(1 + rnd(w, 100));
    ck_assert_int_eq(git_signature_new(&sig, "T", "t@example.org", w->when, 0), 0);
    snprintf(msg, sizeof msg, "change %u\n", w->serial);
    ck_assert_int_eq(git_commit_create(out, w->repo, NULL, sig, sig, NULL, msg, tree, np,
                                       (const git_commit **)pc),
                     0);
    git_signature_free(sig);
    git_commit_free(pc[0]);
    git_commit_free(pc[1]);
    git_tree_free(tree);
    git_tree_free(base);
}

static void tree_of(world *w, const git_oid *commit, git_oid *tree)
{
    git_commit *c = NULL;
    ck_assert_int_eq(git_commit_lookup(&c, w->repo, commit), 0);
    git_oid_cpy(tree, git_commit_tree_id(c));
    git_commit_free(c);
}

/* One step: a commit that writes (or sometimes removes) one or two sheets on
 * a branch, or a merge of two branches, each sheet taken from either side or
 * written anew. */
static void step(world *w)
{
    unsigned b = rnd(w, 3) == 0 ? 0 : rnd(w, NBRANCH), k, n, i;
    static git_tree_update upd[MAXSHEETS];
    static char paths[MAXSHEETS][80];
    static git_oid blobs[MAXSHEETS];
    git_oid base_tree, out;
    size_t nupd = 0;
    if (!w->has[b]) {
        /* a branch starts from another's tip or from nothing */
        unsigned from = rnd(w, NBRANCH);
        if (w->has[from]) {
            w->tip[b] = w->tip[from];
            w->has[b] = 1;
        }
    }
    if (w->has[b] && rnd(w, 4) == 0) {
        unsigned o = rnd(w, NBRANCH);
        git_oid parents[2], t2, base;
        git_tree *tr2 = NULL;
        if (o == b || !w->has[o])
            return;
        if (git_merge_base(&base, w->repo, &w->tip[b], &w->tip[o]) != 0)
            return;
        parents[0] = w->tip[b];
        parents[1] = w->tip[o];
        tree_of(w, &w->tip[b], &base_tree);
        tree_of(w, &w->tip[o], &t2);
        ck_assert_int_eq(git_tree_lookup(&tr2, w->repo, &t2), 0);
        for (k = 0; k < w->nsheets; k++) {
            char dir[16];
            git_tree_entry *e = NULL;
            unsigned choice = rnd(w, w->nsheets > 7 ? 60 : 6);
            sheet_name(dir, sizeof dir, k);
            snprintf(paths[nupd], sizeof paths[nupd], "sheets/%s/sheet.json", dir);
            if (choice == 0) { /* theirs */
                if (git_tree_entry_bypath(&e, tr2, paths[nupd]) == 0) {
                    memset(&upd[nupd], 0, sizeof upd[nupd]);
                    upd[nupd].action = GIT_TREE_UPDATE_UPSERT;
                    git_oid_cpy(&upd[nupd].id, git_tree_entry_id(e));
                    upd[nupd].filemode = GIT_FILEMODE_BLOB;
                    upd[nupd].path = paths[nupd];
                    nupd++;
                    git_tree_entry_free(e);
                }
            } else if (choice == 1) { /* new in the merge */
                char text[64];
                snprintf(text, sizeof text, "{\"v\": %u}\n", ++w->serial);
                ck_assert_int_eq(
                    git_blob_create_from_buffer(&blobs[nupd], w->repo, text, strlen(text)), 0);
                memset(&upd[nupd], 0, sizeof upd[nupd]);
                upd[nupd].action = GIT_TREE_UPDATE_UPSERT;
                git_oid_cpy(&upd[nupd].id, &blobs[nupd]);
                upd[nupd].filemode = GIT_FILEMODE_BLOB;
                upd[nupd].path = paths[nupd];
                nupd++;
            }
        }
        git_tree_free(tr2);
        make_commit(w, &base_tree, upd, nupd, parents, 2, &out);
        w->tip[b] = out;
        return;
    }
    n = 1 + rnd(w, 2);
    for (i = 0; i < n; i++) {
        char id[16], text[64];
        k = rnd(w, w->nsheets);
        sheet_name(id, sizeof id, k);
        memset(&upd[nupd], 0, sizeof upd[nupd]);
        snprintf(paths[nupd], sizeof paths[nupd], "sheets/%s/sheet.json", id);
        upd[nupd].path = paths[nupd];
        if (w->has[b] && rnd(w, 12) == 0) {
            git_tree *t = NULL;
            git_tree_entry *e = NULL;
            int there;
            tree_of(w, &w->tip[b], &base_tree);
            ck_assert_int_eq(git_tree_lookup(&t, w->repo, &base_tree), 0);
            there = git_tree_entry_bypath(&e, t, paths[nupd]) == 0;
            git_tree_entry_free(e);
            git_tree_free(t);
            if (!there)
                continue;
            upd[nupd].action = GIT_TREE_UPDATE_REMOVE;
        } else {
            snprintf(text, sizeof text, "{\"v\": %u}\n", ++w->serial);
            ck_assert_int_eq(git_blob_create_from_buffer(&blobs[nupd], w->repo, text, strlen(text)),
                             0);
            upd[nupd].action = GIT_TREE_UPDATE_UPSERT;
            git_oid_cpy(&upd[nupd].id, &blobs[nupd]);
            upd[nupd].filemode = GIT_FILEMODE_BLOB;
        }
        /* the same path twice in one update is refused by libgit2 */
        {
            size_t j;
            int dup = 0;
            for (j = 0; j < nupd; j++)
                dup |= !strcmp(paths[j], paths[nupd]);
            if (!dup)
                nupd++;
        }
    }
    if (w->has[b])
        tree_of(w, &w->tip[b], &base_tree);
    make_commit(w, w->has[b] ? &base_tree : NULL, upd, nupd, &w->tip[b], w->has[b] ? 1 : 0, &out);
    w->tip[b] = out;
    w->has[b] = 1;
}

/* A first commit on branch 0 holding every sheet. */
static void seed_all(world *w)
{
    static git_tree_update upd[MAXSHEETS];
    static char paths[MAXSHEETS][80];
    unsigned k;
    for (k = 0; k < w->nsheets; k++) {
        char id[16], text[64];
        sheet_name(id, sizeof id, k);
        snprintf(paths[k], sizeof paths[k], "sheets/%s/sheet.json", id);
        snprintf(text, sizeof text, "{\"v\": %u}\n", ++w->serial);
        memset(&upd[k], 0, sizeof upd[k]);
        upd[k].action = GIT_TREE_UPDATE_UPSERT;
        ck_assert_int_eq(git_blob_create_from_buffer(&upd[k].id, w->repo, text, strlen(text)), 0);
        upd[k].filemode = GIT_FILEMODE_BLOB;
        upd[k].path = paths[k];
    }
    make_commit(w, NULL, upd, w->nsheets, NULL, 0, &w->tip[0]);
    w->has[0] = 1;
}

/* --- the reference: a full walk --- */

/* 1 with *folder when sheets/<id> is a folder in commit c. */
static int folder_at(git_repository *repo, const git_oid *c, const char *id, git_oid *folder)
{
    git_commit *cm = NULL;
    git_tree *t = NULL;
    git_tree_entry *e = NULL;
    char path[80];
    int has;
    snprintf(path, sizeof path, "sheets/%s", id);
    ck_assert_int_eq(git_commit_lookup(&cm, repo, c), 0);
    ck_assert_int_eq(git_commit_tree(&t, cm), 0);
    has = git_tree_entry_bypath(&e, t, path) == 0 && git_tree_entry_type(e) == GIT_OBJECT_TREE;
    if (has)
        git_oid_cpy(folder, git_tree_entry_id(e));
    git_tree_entry_free(e);
    git_tree_free(t);
    git_commit_free(cm);
    return has;
}

/* The commits that changed sheets/<id>/ from tip, newest first, as hex. */
static size_t reference_walk(git_repository *repo, const git_oid *tip, const char *id,
                             char (*out)[VS_STORE_HEX], size_t max)
{
    git_revwalk *walk = NULL;
    git_oid oid;
    size_t n = 0;
    ck_assert_int_eq(git_revwalk_new(&walk, repo), 0);
    ck_assert_int_eq(git_revwalk_push(walk, tip), 0);
    git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME);
    while (git_revwalk_next(&oid, walk) == 0) {
        git_commit *c = NULL;
        git_oid mine, theirs;
        unsigned p, np;
        int has_mine, touched;
        ck_assert_int_eq(git_commit_lookup(&c, repo, &oid), 0);
        np = git_commit_parentcount(c);
        has_mine = folder_at(repo, &oid, id, &mine);
        touched = np == 0 ? has_mine : 1;
        for (p = 0; p < np && touched; p++) {
            int has_theirs = folder_at(repo, git_commit_parent_id(c, p), id, &theirs);
            if (has_mine == has_theirs && (!has_mine || git_oid_equal(&mine, &theirs)))
                touched = 0;
        }
        git_commit_free(c);
        if (touched) {
            ck_assert_uint_lt(n, max);
            git_oid_tostr(out[n++], VS_STORE_HEX, &oid);
        }
    }
    git_revwalk_free(walk);
    return n;
}

#define MAXREV 4096
static char want[MAXREV][VS_STORE_HEX];

/* Every sheet's history from the store (through the index) equals the walk's. */
static void check_against_walk(vs_store *st, git_repository *repo, const git_oid *tip,
                               unsigned nsheets)
{
    unsigned k;
    for (k = 0; k < nsheets; k++) {
        char id[32];
        vs_store_revisions h = {0};
        vs_error err;
        size_t n, i;
        sheet_name(id, sizeof id, k);
        n = reference_walk(repo, tip, id, want, MAXREV);
        vs_error_clear(&err);
        ck_assert_msg(vs_store_history(st, id, 0, &h, &err) == 0, "%s", err.message);
        ck_assert_msg(h.n == n, "sheet %s: %zu revisions from the index, %zu from the walk", id,
                      h.n, n);
        for (i = 0; i < n; i++)
            ck_assert_msg(!strcmp(h.revs[i].commit, want[i]),
                          "sheet %s, revision ~%zu: %.12s from the index, %.12s from the walk", id,
                          i, h.revs[i].commit, want[i]);
        vs_store_revisions_clear(&h);
        /* the tip's version, whichever side of a merge it came from: the tree's */
        {
            git_oid f;
            char path[80], hex[VS_STORE_HEX];
            vs_store_blob b = {0};
            int there = folder_at(repo, tip, id, &f),
                rc = vs_store_read(st, id, NULL, NULL, &b, &err);
            if (there) {
                git_commit *cm = NULL;
                git_tree *t = NULL;
                git_tree_entry *e = NULL;
                snprintf(path, sizeof path, "sheets/%s/sheet.json", id);
                ck_assert_int_eq(git_commit_lookup(&cm, repo, tip), 0);
                ck_assert_int_eq(git_commit_tree(&t, cm), 0);
                ck_assert_int_eq(git_tree_entry_bypath(&e, t, path), 0);
                git_oid_tostr(hex, sizeof hex, git_tree_entry_id(e));
                ck_assert_msg(rc == 0, "sheet %s at the tip: %s", id, err.message);
                ck_assert_str_eq(b.blob, hex);
                git_tree_entry_free(e);
                git_tree_free(t);
                git_commit_free(cm);
            } else {
                ck_assert_int_eq(rc, VS_ENOTFOUND);
            }
            vs_store_blob_clear(&b);
        }
        /* ~N through vs_store_read lands on the same commits */
        if (n > 2) {
            vs_store_blob b = {0};
            int rc = vs_store_read(st, id, "~2", NULL, &b, &err);
            if (rc == 0)
                ck_assert_str_eq(b.commit, want[2]);
            else
                ck_assert_int_eq(rc, VS_ENOTFOUND); /* ~2 removed the sheet */
            vs_store_blob_clear(&b);
        }
    }
}

static void set_main(world *w, const git_oid *to)
{
    git_reference *ref = NULL;
    ck_assert_int_eq(git_reference_create(&ref, w->repo, "refs/heads/main", to, 1, "test"), 0);
    git_reference_free(ref);
}

static void run_random(unsigned seed, int steps, unsigned nsheets)
{
    char path[300];
    world w;
    vs_store *st = NULL;
    vs_error err;
    int i, syncs = 0;
    memset(&w, 0, sizeof w);
    w.seed = seed;
    w.when = 1700000000;
    w.nsheets = nsheets;
    snprintf(path, sizeof path, "%s/r%u", tmpdir, seed);
    ck_assert_int_eq(git_repository_init(&w.repo, path, 1), 0);
    ck_assert_int_eq(git_repository_set_head(w.repo, "refs/heads/main"), 0);
    vs_error_clear(&err);
    ck_assert_int_eq(vs_store_open(&st, path, &err), 0);
    if (nsheets > 7)
        seed_all(&w);
    for (i = 0; i < steps; i++) {
        unsigned b;
        step(&w);
        /* main follows a branch now and then: mostly forward (the index is
         * appended to), sometimes elsewhere (a reset: it is rebuilt) */
        b = rnd(&w, 5) == 0 ? rnd(&w, NBRANCH) : 0; /* mostly branch 0: "main" */
        if (w.has[b] && rnd(&w, 3) == 0) {
            set_main(&w, &w.tip[b]);
            ck_assert_msg(vs_store_index_sync(st, &err) == 0, "%s", err.message);
            syncs++;
            if (rnd(&w, 4) == 0 && nsheets <= 7)
                check_against_walk(st, w.repo, &w.tip[b], w.nsheets);
        }
    }
    for (i = 0; i < NBRANCH; i++)
        if (w.has[i] && (nsheets <= 7 || i == 0)) {
            set_main(&w, &w.tip[i]);
            check_against_walk(st, w.repo, &w.tip[i], w.nsheets);
        }
    ck_assert_int_gt(syncs, 0);
    vs_store_free(st);
    git_repository_free(w.repo);
}

START_TEST(test_random_histories_match_a_full_walk)
{
    unsigned seed;
    for (seed = 1; seed <= 10; seed++)
        run_random(seed, 120, 7);
    /* a sheets/ tree of 20 KB: the shared start and end are passed over a
     * block at a time */
    run_random(100, 40, MAXSHEETS);
}
END_TEST

/* --- files on disk --- */

static void commit_one(vs_store *st, const char *id, const char *json)
{
    vs_store_write w;
    vs_store_commit_info info;
    vs_error err;
    char msg[128];
    memset(&w, 0, sizeof w);
    snprintf(msg, sizeof msg, "%s: %s", id, json);
    w.sheet_id = id;
    w.json = json;
    w.json_len = strlen(json);
    w.message = msg;
    w.replace = 1;
    vs_error_clear(&err);
    ck_assert_msg(vs_store_commit(st, &w, &info, &err) == 0, "%s", err.message);
}

static size_t history_n(vs_store *st, const char *id)
{
    vs_store_revisions h = {0};
    vs_error err;
    size_t n;
    vs_error_clear(&err);
    ck_assert_msg(vs_store_history(st, id, 0, &h, &err) == 0, "%s", err.message);
    n = h.n;
    vs_store_revisions_clear(&h);
    return n;
}

static off_t file_size(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 ? sb.st_size : -1;
}

/* The whole file p, malloc'd, *len its size. */
static unsigned char *slurp(const char *p, size_t *len)
{
    FILE *f = fopen(p, "rb");
    unsigned char *b;
    long n;
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    b = malloc((size_t)n + 1);
    ck_assert_int_eq(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return b;
}

/* A commit's revision, written without comparing trees (the commit says what
 * it changed), is the record the comparison writes: the index after a run of
 * commits (new sheets sorted first, last and between, edits, sheet.md left
 * out) is byte for byte the one rebuilt from the history, but for the
 * generation both files carry (16 bytes at their start). */
START_TEST(test_known_commits_index_as_a_rebuild)
{
    static const char *const seq[][2] = {{"m", "{\"v\": 1}\n"},   {"t", "{\"v\": 2}\n"},
                                         {"m", "{\"v\": 3}\n"},   {"a", "{\"v\": 4}\n"},
                                         {"p-q", "{\"v\": 5}\n"}, {"z", "{\"v\": 6}\n"},
                                         {"a", "{\"v\": 7}\n"},   {"t", "{\"v\": 8}\n"}};
    char path[300], revs[4200], heads[4200];
    unsigned char *r1, *h1, *r2, *h2;
    size_t rl1, hl1, rl2, hl2, i;
    vs_store *st = NULL;
    vs_error err;
    snprintf(path, sizeof path, "%s/rec", tmpdir);
    vs_error_clear(&err);
    ck_assert_int_eq(vs_store_open(&st, path, &err), 0);
    for (i = 0; i < sizeof seq / sizeof seq[0]; i++)
        commit_one(st, seq[i][0], seq[i][1]);
    vs_store_index_path(st, "index.revs", revs, sizeof revs);
    vs_store_index_path(st, "index.heads", heads, sizeof heads);
    r1 = slurp(revs, &rl1);
    h1 = slurp(heads, &hl1);
    ck_assert_uint_eq(history_n(st, "a"), 2);
    ck_assert_uint_eq(history_n(st, "p-q"), 1);
    unlink(heads);
    unlink(revs);
    ck_assert_int_eq(vs_store_index_sync(st, &err), 0);
    r2 = slurp(revs, &rl2);
    h2 = slurp(heads, &hl2);
    ck_assert_uint_eq(rl1, rl2);
    ck_assert_uint_eq(hl1, hl2);
    /* the log's 32-byte header, 8 records of 96 bytes, each with its id and
     * its message "ID: " and 8 bytes of JSON (the id twice, 10 bytes more) */
    ck_assert_uint_eq(rl1, 32 + 8 * 96 + 2 * (1 + 1 + 1 + 1 + 3 + 1 + 1 + 1) + 8 * 10);
    ck_assert_int_eq(memcmp(r1 + 16, r2 + 16, rl1 - 16), 0);
    ck_assert_int_eq(memcmp(h1 + 16, h2 + 16, hl1 - 16), 0);
    free(r1);
    free(h1);
    free(r2);
    free(h2);
    vs_store_free(st);
}
END_TEST

START_TEST(test_commit_appends_and_crash_is_recovered)
{
    char path[300], revs[4200], heads[4200], cmd[9000];
    vs_store *st = NULL;
    vs_error err;
    off_t before;
    FILE *f;
    snprintf(path, sizeof path, "%s/rec", tmpdir);
    vs_error_clear(&err);
    ck_assert_int_eq(vs_store_open(&st, path, &err), 0);
    commit_one(st, "a", "{\"v\": 1}\n");
    commit_one(st, "b", "{\"v\": 2}\n");
    commit_one(st, "a", "{\"v\": 3}\n");
    vs_store_index_path(st, "index.revs", revs, sizeof revs);
    vs_store_index_path(st, "index.heads", heads, sizeof heads);
    /* each commit appended to the log (3 revisions: 3 records) */
    ck_assert_int_gt(file_size(revs), 32);
    ck_assert_uint_eq(history_n(st, "a"), 2);
    ck_assert_uint_eq(history_n(st, "b"), 1);
    /* a writer killed after appending, before renaming the heads: the tail is
     * garbage past the covered length, cut by the next writer */
    before = file_size(revs);
    ck_assert_ptr_nonnull(f = fopen(revs, "ab"));
    fputs("half a record, then kill -9", f);
    fclose(f);
    ck_assert_uint_eq(history_n(st, "a"), 2);
    commit_one(st, "a", "{\"v\": 4}\n");
    ck_assert_uint_eq(history_n(st, "a"), 3);
    ck_assert_int_gt(file_size(revs), before);
    ck_assert_int_lt(file_size(revs), before + 27 + 96 + 64 + 64);
    /* the heads gone (or half-written by something else): rebuilt from history */
    unlink(heads);
    ck_assert_uint_eq(history_n(st, "a"), 3);
    ck_assert_ptr_nonnull(f = fopen(heads, "r+b"));
    fputs("garbage", f);
    fclose(f);
    ck_assert_uint_eq(history_n(st, "a"), 3);
    truncate(heads, 20);
    ck_assert_uint_eq(history_n(st, "a"), 3);
    /* a commit made with git itself, outside vramsheet: taken at the next read */
    snprintf(cmd, sizeof cmd,
             "cd '%s' && mkdir -p sheets/c && echo '{}' > sheets/c/sheet.json && git add sheets "
             "&& git -c user.name=T -c user.email=t@e commit -qm 'c: by hand'",
             path);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_uint_eq(history_n(st, "c"), 1);
    /* a reset of the branch to an older commit (a1 b a3 a4 c, back to b):
     * rebuilt for that tip */
    snprintf(cmd, sizeof cmd, "git -C '%s' reset -q --hard HEAD~3", path);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_uint_eq(history_n(st, "a"), 1);
    ck_assert_uint_eq(history_n(st, "b"), 1);
    ck_assert_uint_eq(history_n(st, "c"), 0);
    vs_store_free(st);
}
END_TEST

START_TEST(test_ids_and_restate_read_the_index)
{
    char path[300], **ids = NULL, commit[VS_STORE_HEX];
    vs_store *st = NULL;
    vs_store_revisions h = {0};
    vs_error err;
    size_t n = 0, i;
    vs_store_blob b = {0};
    snprintf(path, sizeof path, "%s/rec", tmpdir);
    vs_error_clear(&err);
    ck_assert_int_eq(vs_store_open(&st, path, &err), 0);
    commit_one(st, "gpu-a", "{\"v\": 1}\n");
    commit_one(st, "gpu-b", "{\"v\": 1}\n");
    commit_one(st, "other", "{\"v\": 1}\n");
    commit_one(st, "gpu-a", "{\"v\": 2}\n");
    ck_assert_int_eq(vs_store_ids(st, "gpu", &ids, &n, &err), 0);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(ids[0], "gpu-a");
    ck_assert_str_eq(ids[1], "gpu-b");
    for (i = 0; i < n; i++)
        free(ids[i]);
    free(ids);
    /* the revision that wrote {"v": 1} of gpu-a is its first: ~1 */
    ck_assert_int_eq(vs_store_history(st, "gpu-a", 0, &h, &err), 0);
    ck_assert_uint_eq(h.n, 2);
    ck_assert_int_eq(vs_store_read(st, "gpu-a", "~1", NULL, &b, &err), 0);
    ck_assert_int_eq(vs_store_index_find_blob(st, "gpu-a", b.blob, commit, &err), 1);
    ck_assert_str_eq(commit, h.revs[1].commit);
    /* each revision names its sheet.json, read without a tree */
    ck_assert_str_eq(h.revs[1].blob, b.blob);
    vs_store_blob_clear(&b);
    ck_assert_int_eq(vs_store_read_blob(st, h.revs[1].blob, &b, &err), 0);
    ck_assert_str_eq(b.data, "{\"v\": 1}\n");
    vs_store_blob_clear(&b);
    ck_assert_int_eq(vs_store_read_blob(st, "0123456789012345678901234567890123456789", &b, &err),
                     VS_ENOTFOUND);
    vs_store_revisions_clear(&h);
    /* a message search is not a revision here */
    ck_assert_int_eq(vs_store_read(st, "gpu-a", ":/gpu", NULL, &b, &err), VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "searches commit messages"));
    ck_assert_int_eq(vs_store_read(st, "gpu-a", "HEAD^{/gpu}", NULL, &b, &err), VS_EVALUE);
    vs_store_free(st);
}
END_TEST

START_TEST(test_shallow_clone_stops_at_its_boundary)
{
    char path[300], clone[300], cmd[1200];
    vs_store *st = NULL;
    vs_store_revisions h = {0};
    vs_store_blob b = {0};
    vs_error err;
    int i;
    snprintf(path, sizeof path, "%s/rec", tmpdir);
    snprintf(clone, sizeof clone, "%s/shallow", tmpdir);
    vs_error_clear(&err);
    ck_assert_int_eq(vs_store_open(&st, path, &err), 0);
    for (i = 0; i < 6; i++) {
        char json[32];
        snprintf(json, sizeof json, "{\"v\": %d}\n", i);
        commit_one(st, "s", json);
    }
    vs_store_free(st);
    st = NULL;
    snprintf(cmd, sizeof cmd, "git clone -q --depth 3 'file://%s' '%s'", path, clone);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_int_eq(vs_store_open(&st, clone, &err), 0);
    /* three commits here: the sheet's three latest revisions, the last at the
     * boundary */
    ck_assert_msg(vs_store_history(st, "s", 0, &h, &err) == 0, "%s", err.message);
    ck_assert_uint_eq(h.n, 3);
    ck_assert_str_eq(h.truncated, h.revs[2].commit);
    vs_store_revisions_clear(&h);
    ck_assert_int_eq(vs_store_read(st, "s", "~2", NULL, &b, &err), 0);
    ck_assert_str_eq(b.data, "{\"v\": 3}\n");
    vs_store_blob_clear(&b);
    ck_assert_int_eq(vs_store_read(st, "s", "~4", NULL, &b, &err), VS_ENOTFOUND);
    ck_assert_ptr_nonnull(strstr(err.message, "shallow clone"));
    /* every commit (vramsheet log without a sheet) */
    ck_assert_msg(vs_store_history(st, NULL, 0, &h, &err) == 0, "%s", err.message);
    ck_assert_uint_eq(h.n, 3);
    ck_assert_str_eq(h.truncated, h.revs[2].commit);
    vs_store_revisions_clear(&h);
    vs_store_free(st);
}
END_TEST

/* A commit's check for hand edits reads the tip, the index and the file itself;
 * git status, run here, is the reader it must agree with. */
START_TEST(test_hand_edits_agree_with_git_status)
{
    static const char *const edits[] = {
        "echo mine >> sheets/x/sheet.json",
        "rm sheets/x/sheet.md",
        "chmod +x sheets/x/sheet.json",
        "git rm -q --cached sheets/x/sheet.md",
        "echo mine >> sheets/x/sheet.json && git add sheets/x/sheet.json",
        "rm sheets/x/sheet.md && mkdir sheets/x/sheet.md",
        "touch sheets/x/sheet.json", /* the same bytes: not an edit */
        "true",
    };
    char path[300], cmd[1200];
    vs_store *st = NULL;
    vs_error err;
    size_t k;
    int refused = 0;
    snprintf(path, sizeof path, "%s/rec", tmpdir);
    vs_error_clear(&err);
    ck_assert_int_eq(vs_store_open(&st, path, &err), 0);
    for (k = 0; k < sizeof edits / sizeof *edits + 1; k++) {
        vs_store_write w;
        vs_store_commit_info info;
        char json[32], status[512] = "";
        FILE *p;
        int rc;
        /* the first round records sheet.json and sheet.md, then each edits them */
        const char *edit = k ? edits[k - 1] : "true";
        snprintf(cmd, sizeof cmd, "cd '%s' 2>/dev/null; %s", path, edit);
        ck_assert_msg(system(cmd) == 0, "%s", edit);
        snprintf(cmd, sizeof cmd, "cd '%s' 2>/dev/null && git status --porcelain -- sheets/x/",
                 path);
        ck_assert_ptr_nonnull(p = popen(cmd, "r"));
        if (!fgets(status, sizeof status, p))
            status[0] = '\0';
        pclose(p);
        memset(&w, 0, sizeof w);
        snprintf(json, sizeof json, "{\"v\": %zu}\n", k);
        w.sheet_id = "x";
        w.json = json;
        w.json_len = strlen(json);
        w.md = "# x\n";
        w.md_len = 4;
        w.message = "x: again";
        w.replace = 1;
        rc = vs_store_commit(st, &w, &info, &err);
        ck_assert_msg(*status ? rc == VS_ERECORDS : rc == 0, "%s: git status '%s', commit %d: %s",
                      edit, status, rc, rc ? err.message : "");
        refused += rc != 0;
        snprintf(cmd, sizeof cmd,
                 "cd '%s' && rm -rf sheets/x/sheet.md && git reset -q && git checkout -q HEAD -- "
                 "sheets/x/ && chmod -x sheets/x/sheet.json",
                 path);
        ck_assert_int_eq(system(cmd), 0);
    }
    ck_assert_int_eq(refused, 6); /* all but the last two */
    vs_store_free(st);
}
END_TEST

/* --- packed histories --- */

/* The index built anew from a packed history matches the walk. */
static void check_packed(const char *path, unsigned nsheets)
{
    char cmd[700];
    git_repository *repo = NULL;
    git_oid tip;
    vs_store *st = NULL;
    vs_error err;
    snprintf(cmd, sizeof cmd, "rm -rf '%s/vramsheet'", path);
    ck_assert_int_eq(system(cmd), 0);
    vs_error_clear(&err);
    ck_assert_int_eq(git_repository_open(&repo, path), 0);
    ck_assert_int_eq(git_reference_name_to_id(&tip, repo, "refs/heads/main"), 0);
    ck_assert_int_eq(vs_store_open(&st, path, &err), 0);
    ck_assert_msg(vs_store_index_sync(st, &err) == 0, "%s", err.message);
    check_against_walk(st, repo, &tip, nsheets);
    vs_store_free(st);
    git_repository_free(repo);
}

START_TEST(test_packed_histories_match_a_full_walk)
{
    static const struct {
        unsigned seed, nsheets;
        int steps;
    } runs[] = {{1, 12, 160}, {2, 40, 160}, {3, 150, 150}};
    size_t r;
    for (r = 0; r < sizeof runs / sizeof *runs; r++) {
        char path[300], cmd[700];
        snprintf(path, sizeof path, "%s/fi%u", tmpdir, runs[r].seed);
        fi_history(path, runs[r].seed, runs[r].steps, runs[r].nsheets, sheet_name);
        check_packed(path, runs[r].nsheets);
        /* the same objects packed by pack-objects: a tree's base is any
         * similar tree, often a later one */
        snprintf(cmd, sizeof cmd, "git -C '%s' repack -q -adf", path);
        ck_assert_int_eq(system(cmd), 0);
        check_packed(path, runs[r].nsheets);
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("store_index");
    TCase *tc = tcase_create("store_index");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_random_histories_match_a_full_walk);
    tcase_add_test(tc, test_packed_histories_match_a_full_walk);
    tcase_add_test(tc, test_commit_appends_and_crash_is_recovered);
    tcase_add_test(tc, test_known_commits_index_as_a_rebuild);
    tcase_add_test(tc, test_ids_and_restate_read_the_index);
    tcase_add_test(tc, test_shallow_clone_stops_at_its_boundary);
    tcase_add_test(tc, test_hand_edits_agree_with_git_status);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return vs_check_run(suite());
}
