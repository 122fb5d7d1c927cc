/* store_list.c — which sheets: those at a revision (its tree), those at the
 * tip as the revision index lists them (completion), and those two commits
 * differ in (a tree diff of sheets/). */
#include "store/store_index.h"
#include "store/store_internal.h"
#include "util/cmp.h"

#include <stdlib.h>
#include <string.h>

int vs_store_list(vs_store *st, const char *rev, char ***out_ids, size_t *out_n, vs_error *err)
{
    git_commit *c = NULL;
    git_tree *tree = NULL, *sheets = NULL;
    git_tree_entry *e = NULL;
    char **ids = NULL;
    size_t n = 0, i, cnt;
    int rc = 0;
    *out_ids = NULL;
    *out_n = 0;
    if (!st->repo)
        return 0;
    if (!rev) {
        char refname[VS_STORE_BRANCH_MAX + 16];
        git_oid tip;
        if ((rc = vs_store_head_branch(st, refname, sizeof refname, err)) < 0)
            return rc;
        if ((rc = vs_store_branch_tip(st->repo, refname, &tip, err)) <= 0)
            return rc;
    }
    if ((rc = vs_store_resolve_commit(st, rev, &c, err)) < 0)
        return rc;
    if (git_commit_tree(&tree, c) < 0) {
        rc = vs_store_gfail(err, VS_ERECORDS, "cannot read a tree");
        goto done;
    }
    if (git_tree_entry_bypath(&e, tree, "sheets") < 0 || git_tree_entry_type(e) != GIT_OBJECT_TREE)
        goto done;
    if (git_tree_lookup(&sheets, st->repo, git_tree_entry_id(e)) < 0) {
        rc = vs_store_gfail(err, VS_ERECORDS, "cannot read sheets/");
        goto done;
    }
    cnt = git_tree_entrycount(sheets);
    if (cnt && !(ids = calloc(cnt, sizeof *ids))) {
        rc = vs_error_set(err, VS_ENOMEM, "out of memory");
        goto done;
    }
    for (i = 0; i < cnt; i++) {
        const git_tree_entry *se = git_tree_entry_byindex(sheets, i);
        const char *name = git_tree_entry_name(se);
        if (git_tree_entry_type(se) != GIT_OBJECT_TREE || !vs_sheet_id_valid(name))
            continue;
        if (!(ids[n] = strdup(name))) {
            rc = vs_error_set(err, VS_ENOMEM, "out of memory");
            goto done;
        }
        n++;
    }
    if (n)
        qsort(ids, n, sizeof *ids, vs_cmp_str);
done:
    git_tree_entry_free(e);
    git_tree_free(sheets);
    git_tree_free(tree);
    git_commit_free(c);
    if (rc < 0) {
        for (i = 0; i < n; i++)
            free(ids[i]);
        free(ids);
        return rc;
    }
    if (!n) {
        free(ids);
        ids = NULL;
    }
    *out_ids = ids;
    *out_n = n;
    return 0;
}

int vs_store_ids(vs_store *st, const char *prefix, char ***out_ids, size_t *out_n, vs_error *err)
{
    char **ids = NULL;
    size_t n = 0, i, k = 0, plen = prefix ? strlen(prefix) : 0;
    int rc;
    *out_ids = NULL;
    *out_n = 0;
    if (!st->repo)
        return 0;
    if (vs_store_index_sync(st, err) == 0)
        return vs_store_index_ids(st, prefix, out_ids, out_n, err);
    vs_error_clear(err);
    if ((rc = vs_store_list(st, NULL, &ids, &n, err)) < 0)
        return rc;
    for (i = 0; i < n; i++) {
        if (!plen || !strncmp(ids[i], prefix, plen))
            ids[k++] = ids[i];
        else
            free(ids[i]);
    }
    if (!k) {
        free(ids);
        ids = NULL;
    }
    *out_ids = ids;
    *out_n = k;
    return 0;
}

typedef struct id_list {
    char **v;
    size_t n;
} id_list;

static int add_changed(const git_diff_delta *d, float progress, void *payload)
{
    id_list *l = payload;
    char id[VS_SHEET_ID_MAX], **v;
    const char *p = d->new_file.path ? d->new_file.path : d->old_file.path, *slash;
    size_t len;
    (void)progress;
    if (!p || strncmp(p, "sheets/", 7) || !(slash = strchr(p + 7, '/')))
        return 0;
    len = (size_t)(slash - p - 7);
    if (len >= sizeof id)
        return 0;
    memcpy(id, p + 7, len);
    id[len] = '\0';
    /* deltas come in path order: a sheet's files are together */
    if (!vs_sheet_id_valid(id) || (l->n && !strcmp(l->v[l->n - 1], id)))
        return 0;
    if (!(v = realloc(l->v, (l->n + 1) * sizeof *v)))
        return -1;
    l->v = v;
    if (!(v[l->n] = strdup(id)))
        return -1;
    l->n++;
    return 0;
}

/* The sheets the pull or push just made moved, when it moved the branch from
 * fc to tc (the revision index's heads compared: no tree read): 1 with l
 * filled (sorted), 0 when that is not known, -1 when memory is short. */
static int moved_since(vs_store *st, git_commit *fc, git_commit *tc, id_list *l)
{
    size_t i;
    if (!st->has_moved || !git_oid_equal(git_commit_id(fc), &st->moved_from) ||
        !git_oid_equal(git_commit_id(tc), &st->moved_to))
        return 0;
    for (i = 0; i < st->n_moved; i++) {
        char **v;
        if (!vs_sheet_id_valid(st->moved[i].id))
            continue;
        if (!(v = realloc(l->v, (l->n + 1) * sizeof *v)) || !(v[l->n] = strdup(st->moved[i].id))) {
            if (v)
                l->v = v;
            return -1;
        }
        l->v = v;
        l->n++;
    }
    return 1;
}

int vs_store_changed_sheets(vs_store *st, const char *from, const char *to, char ***out_ids,
                            size_t *out_n, vs_error *err)
{
    git_commit *fc = NULL, *tc = NULL;
    git_tree *ft = NULL, *tt = NULL;
    git_diff *diff = NULL;
    git_diff_options o;
    char *spec[1] = {"sheets/"};
    id_list l = {NULL, 0};
    size_t i;
    int rc = 0;
    *out_ids = NULL;
    *out_n = 0;
    if ((rc = vs_store_resolve_commit(st, to, &tc, err)) < 0)
        return rc;
    if (from && *from && (rc = vs_store_resolve_commit(st, from, &fc, err)) < 0)
        goto done;
    if (fc && (rc = moved_since(st, fc, tc, &l)) != 0) {
        rc = rc < 0 ? vs_error_oom(err) : 0;
        goto done;
    }
    if ((fc && git_commit_tree(&ft, fc) < 0) || git_commit_tree(&tt, tc) < 0) {
        rc = vs_store_gfail(err, VS_ERECORDS, "cannot read a tree");
        goto done;
    }
    git_diff_options_init(&o, GIT_DIFF_OPTIONS_VERSION);
    o.pathspec.strings = spec;
    o.pathspec.count = 1;
    if (git_diff_tree_to_tree(&diff, st->repo, ft, tt, &o) < 0 ||
        git_diff_foreach(diff, add_changed, NULL, NULL, NULL, &l) < 0) {
        rc = vs_store_gfail(err, VS_ERECORDS, "cannot compare the sheets of two commits");
        goto done;
    }
    if (l.n)
        qsort(l.v, l.n, sizeof *l.v, vs_cmp_str);
done:
    git_diff_free(diff);
    git_tree_free(ft);
    git_tree_free(tt);
    git_commit_free(fc);
    git_commit_free(tc);
    if (rc < 0) {
        for (i = 0; i < l.n; i++)
            free(l.v[i]);
        free(l.v);
        return rc;
    }
    *out_ids = l.v;
    *out_n = l.n;
    return 0;
}
