/* store_sides.c — the two sides of a sync: the sheets changed on both since
 * their merge base (a sheet is never merged), and the work tree brought from
 * one tip to the other, file by file where they differ. */
#include "store/store_internal.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

/* --- sheets changed on both sides --- */

static const git_oid *folder_in(const git_tree *sheets, const char *name)
{
    const git_tree_entry *e = sheets ? git_tree_entry_byname(sheets, name) : NULL;
    return e && git_tree_entry_type(e) == GIT_OBJECT_TREE ? git_tree_entry_id(e) : NULL;
}

static int same_folder(const git_oid *a, const git_oid *b)
{
    return a == b || (a && b && git_oid_equal(a, b));
}

/* The sheets whose files differ between trees a (NULL: none) and b, sorted in
 * the diff's (path) order: a diff of sheets/, which passes over every folder
 * whose id is the same on both sides. */
typedef struct sheet_set {
    char (*ids)[VS_SHEET_ID_MAX];
    size_t n, cap;
} sheet_set;

static int on_sheet_delta(const git_diff_delta *d, float progress, void *payload)
{
    sheet_set *set = payload;
    const char *p = d->new_file.path ? d->new_file.path : d->old_file.path, *slash;
    size_t len;
    (void)progress;
    if (!p || strncmp(p, "sheets/", 7) || !(slash = strchr(p + 7, '/')))
        return 0;
    len = (size_t)(slash - p - 7);
    if (len >= VS_SHEET_ID_MAX ||
        (set->n && !strncmp(set->ids[set->n - 1], p + 7, len) && !set->ids[set->n - 1][len]))
        return 0;
    if (set->n == set->cap) {
        size_t nc = set->cap ? set->cap * 2 : 16;
        char(*nv)[VS_SHEET_ID_MAX] = realloc(set->ids, nc * sizeof *nv);
        if (!nv)
            return -1;
        set->ids = nv;
        set->cap = nc;
    }
    memcpy(set->ids[set->n], p + 7, len);
    set->ids[set->n][len] = '\0';
    set->n++;
    return 0;
}

static int cmp_id(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

static int sheets_changed(git_repository *repo, git_tree *a, git_tree *b, sheet_set *out)
{
    git_diff *diff = NULL;
    git_diff_options o;
    char *spec[1] = {"sheets/"};
    int rc;
    git_diff_options_init(&o, GIT_DIFF_OPTIONS_VERSION);
    o.pathspec.strings = spec;
    o.pathspec.count = 1;
    if ((rc = git_diff_tree_to_tree(&diff, repo, a, b, &o)) < 0)
        return rc;
    rc = git_diff_foreach(diff, on_sheet_delta, NULL, NULL, NULL, out);
    git_diff_free(diff);
    return rc;
}

static int root_tree(git_repository *repo, const git_oid *commit_id, git_tree **out)
{
    git_commit *c = NULL;
    int rc;
    *out = NULL;
    if ((rc = git_commit_lookup(&c, repo, commit_id)) == 0)
        rc = git_commit_tree(out, c);
    git_commit_free(c);
    return rc;
}

/* A sheet is never merged: the ids of the sheets whose folder changed on both
 * sides since their merge base, to different contents, joined into names (as
 * "sheets/<id>/") and, when ids is not NULL, listed there (at most
 * STORE_DIVERGED_MAX, *nids of them). Per sheet, from the merge base: the
 * sheets each side changed (two tree diffs of sheets/), and of those changed
 * on both, the ones whose folders now differ. Returns how many, or a libgit2
 * error. */
int vs_store_diverged_sheets(git_repository *repo, const git_oid *ours, const git_oid *theirs,
                             char *names, size_t len, char (*ids)[VS_SHEET_ID_MAX], size_t *nids)
{
    git_oid base;
    git_tree *tb = NULL, *to = NULL, *tt = NULL, *so = NULL, *stt = NULL;
    sheet_set mine = {NULL, 0, 0}, other = {NULL, 0, 0};
    const git_tree_entry *e;
    int rc, n = 0;
    size_t i;
    *names = '\0';
    if (nids)
        *nids = 0;
    rc = git_merge_base(&base, repo, ours, theirs);
    if (rc < 0 && rc != GIT_ENOTFOUND)
        return rc;
    if ((rc == 0 && (rc = root_tree(repo, &base, &tb)) < 0) ||
        (rc = root_tree(repo, ours, &to)) < 0 || (rc = root_tree(repo, theirs, &tt)) < 0 ||
        (rc = sheets_changed(repo, tb, to, &mine)) < 0 ||
        (rc = sheets_changed(repo, tb, tt, &other)) < 0)
        goto done;
    if ((e = git_tree_entry_byname(to, "sheets")) && git_tree_entry_type(e) == GIT_OBJECT_TREE &&
        (rc = git_tree_lookup(&so, repo, git_tree_entry_id(e))) < 0)
        goto done;
    if ((e = git_tree_entry_byname(tt, "sheets")) && git_tree_entry_type(e) == GIT_OBJECT_TREE &&
        (rc = git_tree_lookup(&stt, repo, git_tree_entry_id(e))) < 0)
        goto done;
    if (other.n)
        qsort(other.ids, other.n, sizeof *other.ids, cmp_id);
    for (i = 0; i < mine.n; i++) {
        const char *name = mine.ids[i];
        if (!other.n || !bsearch(name, other.ids, other.n, sizeof *other.ids, cmp_id))
            continue; /* changed on our side only */
        if (same_folder(folder_in(so, name), folder_in(stt, name)))
            continue;
        if (ids && *nids < STORE_DIVERGED_MAX)
            snprintf(ids[(*nids)++], VS_SHEET_ID_MAX, "%s", name);
        n++;
        if (strlen(names) + strlen(name) + 12 < len)
            snprintf(names + strlen(names), len - strlen(names), "%ssheets/%s/", *names ? ", " : "",
                     name);
    }
    rc = n;
done:
    free(mine.ids);
    free(other.ids);
    git_tree_free(so);
    git_tree_free(stt);
    git_tree_free(tb);
    git_tree_free(to);
    git_tree_free(tt);
    return rc;
}

/* --- the work tree --- */

static void paths_free(git_strarray *a)
{
    size_t i;
    for (i = 0; i < a->count; i++)
        free(a->strings[i]);
    free(a->strings);
    a->strings = NULL;
    a->count = 0;
}

static int on_delta(const git_diff_delta *d, float progress, void *payload)
{
    git_strarray *a = payload;
    const char *p[2];
    int k;
    (void)progress;
    p[0] = d->old_file.path;
    p[1] = d->new_file.path && d->old_file.path && strcmp(d->new_file.path, d->old_file.path)
               ? d->new_file.path
               : NULL;
    for (k = 0; k < 2 && p[k]; k++) {
        char **nv = realloc(a->strings, (a->count + 1) * sizeof *nv);
        if (!nv)
            return -1;
        a->strings = nv;
        if (!(a->strings[a->count] = strdup(p[k])))
            return -1;
        a->count++;
    }
    return 0;
}

/* The files that differ between two trees (a tree diff skips the folders
 * whose ids are equal: the sheets that did not change cost one compare). */
static int changed_paths(git_repository *repo, git_tree *a, git_tree *b, git_strarray *out)
{
    git_diff *diff = NULL;
    int rc;
    if ((rc = git_diff_tree_to_tree(&diff, repo, a, b, NULL)) < 0)
        return rc;
    rc = git_diff_foreach(diff, on_delta, NULL, NULL, NULL, out);
    git_diff_free(diff);
    if (rc < 0)
        paths_free(out);
    return rc;
}

/* After the branch moved from old_tree to new_tree in a repository with a work
 * tree, update the files that changed, leaving the person's own edits alone. */
int vs_store_checkout_moved(vs_store *st, const git_oid *old_commit, const git_oid *new_commit,
                            vs_error *err)
{
    git_checkout_options co;
    git_commit *oc = NULL, *nc = NULL;
    git_tree *ot = NULL, *nt = NULL;
    git_strarray paths = {0};
    int rc = 0, fd = -1;
    if (git_repository_is_bare(st->repo))
        return 0;
    if ((rc = vs_store_worktree_lock(st, &fd, err)) < 0)
        return rc;
    if ((old_commit &&
         (git_commit_lookup(&oc, st->repo, old_commit) < 0 || git_commit_tree(&ot, oc) < 0)) ||
        git_commit_lookup(&nc, st->repo, new_commit) < 0 || git_commit_tree(&nt, nc) < 0) {
        rc = vs_store_gfail(err, VS_ERECORDS, "cannot read trees");
        goto done;
    }
    git_checkout_options_init(&co, GIT_CHECKOUT_OPTIONS_VERSION);
    co.checkout_strategy = GIT_CHECKOUT_SAFE | GIT_CHECKOUT_ALLOW_CONFLICTS;
    co.baseline = ot;
    /* Only the paths that changed: a checkout of the whole tree would look at
     * every file of every sheet in the work tree. */
    if (ot && changed_paths(st->repo, ot, nt, &paths) < 0) {
        rc = vs_store_gfail(err, VS_ERECORDS, "cannot compare trees");
        goto done;
    }
    if (ot && !paths.count)
        goto done;
    if (ot) {
        co.checkout_strategy |= GIT_CHECKOUT_DISABLE_PATHSPEC_MATCH;
        co.paths = paths;
    }
    if (git_checkout_tree(st->repo, (git_object *)nt, &co) < 0)
        rc = vs_store_gfail(err, VS_ERECORDS, "cannot update the work tree");
done:
    paths_free(&paths);
    git_tree_free(ot);
    git_tree_free(nt);
    git_commit_free(oc);
    git_commit_free(nc);
    flock(fd, LOCK_UN);
    close(fd);
    return rc;
}
