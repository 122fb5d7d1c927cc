/* store_history.c — reading the records: a sheet's history, its files at a
 * revision (SHEET@~N or any git revision), the sheets at a revision. */
#include "store/store_internal.h"
#include "util/cmp.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* --- reading --- */

/* The tree id of sheets/<id> in a commit (the folder: both files), or 0 when absent. */
typedef struct folder_cache {
    git_oid commit;
    git_oid folder;
    int has;
    int valid;
} folder_cache;

/* Finds name in a raw tree object ("<mode> <name>\0<20-byte id>" entries) without
 * parsing the whole tree: the sheets/ tree has one entry per sheet, and history
 * reads one per commit. Returns 1 with *out (and *is_tree), 0 when absent. */
static int raw_tree_find(const unsigned char *data, size_t len, const char *name, git_oid *out,
                         int *is_tree)
{
    const unsigned char *p = data, *end = data + len;
    size_t nlen = strlen(name);
    while (p < end) {
        const unsigned char *sp = memchr(p, ' ', (size_t)(end - p)), *nul;
        if (!sp)
            return 0;
        nul = memchr(sp + 1, '\0', (size_t)(end - sp - 1));
        if (!nul || end - nul < 21)
            return 0;
        if ((size_t)(nul - sp - 1) == nlen && !memcmp(sp + 1, name, nlen)) {
            git_oid_fromraw(out, nul + 1);
            if (is_tree)
                *is_tree = sp - p == 5 && !memcmp(p, "40000", 5);
            return 1;
        }
        p = nul + 21;
    }
    return 0;
}

/* The id of entry name in tree tree_id, read raw from the object database. */
static int odb_tree_entry(git_odb *odb, const git_oid *tree_id, const char *name, git_oid *out,
                          int *found, int *is_tree)
{
    git_odb_object *o = NULL;
    int rc;
    *found = 0;
    if ((rc = git_odb_read(&o, odb, tree_id)) < 0)
        return rc;
    if (git_odb_object_type(o) == GIT_OBJECT_TREE)
        *found = raw_tree_find(git_odb_object_data(o), git_odb_object_size(o), name, out, is_tree);
    git_odb_object_free(o);
    return 0;
}

static int folder_of(git_repository *repo, const git_oid *commit_id, const char *id,
                     git_oid *folder, int *has)
{
    git_commit *c = NULL;
    git_odb *odb = NULL;
    git_oid sheets;
    int rc = 0, found, is_tree = 0;
    *has = 0;
    if ((rc = git_commit_lookup(&c, repo, commit_id)) < 0 ||
        (rc = git_repository_odb(&odb, repo)) < 0)
        goto done;
    if ((rc = odb_tree_entry(odb, git_commit_tree_id(c), "sheets", &sheets, &found, &is_tree)) <
            0 ||
        !found || !is_tree)
        goto done;
    if ((rc = odb_tree_entry(odb, &sheets, id, folder, &found, &is_tree)) < 0)
        goto done;
    *has = found && is_tree;
done:
    git_odb_free(odb);
    git_commit_free(c);
    return rc;
}

/* The blob id of sheets/<id>/<file> in a commit's tree, read raw. */
int vs_store_sheet_blob_at(git_repository *repo, const git_oid *tree_id, const char *id,
                           const char *file, git_oid *out, int *has)
{
    git_odb *odb = NULL;
    git_oid sheets, folder;
    int rc, found, is_tree = 0;
    *has = 0;
    if ((rc = git_repository_odb(&odb, repo)) < 0)
        return rc;
    if ((rc = odb_tree_entry(odb, tree_id, "sheets", &sheets, &found, &is_tree)) < 0 || !found ||
        !is_tree)
        goto done;
    if ((rc = odb_tree_entry(odb, &sheets, id, &folder, &found, &is_tree)) < 0 || !found ||
        !is_tree)
        goto done;
    if ((rc = odb_tree_entry(odb, &folder, file, out, &found, &is_tree)) < 0)
        goto done;
    *has = found && !is_tree;
done:
    git_odb_free(odb);
    return rc;
}

static int folder_cached(git_repository *repo, folder_cache *fc, const git_oid *cid, const char *id,
                         git_oid *folder, int *has)
{
    int rc;
    if (fc->valid && git_oid_equal(&fc->commit, cid)) {
        git_oid_cpy(folder, &fc->folder);
        *has = fc->has;
        return 0;
    }
    if ((rc = folder_of(repo, cid, id, folder, has)) < 0)
        return rc;
    git_oid_cpy(&fc->commit, cid);
    git_oid_cpy(&fc->folder, folder);
    fc->has = *has;
    fc->valid = 1;
    return 0;
}

static int history_push(vs_store_revisions *out, size_t *cap, git_commit *c, const git_oid *oid)
{
    vs_store_revision *r;
    const char *m = git_commit_message(c);
    size_t len = m ? strlen(m) : 0;
    if (out->n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 16;
        vs_store_revision *nr = realloc(out->revs, ncap * sizeof *nr);
        if (!nr)
            return VS_ENOMEM;
        out->revs = nr;
        *cap = ncap;
    }
    r = &out->revs[out->n];
    while (len && (m[len - 1] == '\n' || m[len - 1] == ' '))
        len--;
    if (!(r->message = malloc(len + 1)))
        return VS_ENOMEM;
    memcpy(r->message, m ? m : "", len);
    r->message[len] = '\0';
    vs_store_hex(r->commit, oid);
    r->time = (int64_t)git_commit_time(c);
    r->offset = git_commit_time_offset(c);
    out->n++;
    return 0;
}

int vs_store_history(vs_store *st, const char *sheet_id, size_t limit, vs_store_revisions *out,
                     vs_error *err)
{
    char refname[VS_STORE_BRANCH_MAX + 16];
    git_revwalk *walk = NULL;
    git_oid tip, oid;
    folder_cache fc;
    size_t cap = 0;
    int rc = 0, have;

    memset(out, 0, sizeof *out);
    memset(&fc, 0, sizeof fc);
    if (sheet_id && !vs_sheet_id_valid(sheet_id))
        return vs_error_set(err, VS_EVALUE, "'%s' is not a sheet id", sheet_id);
    if (!st->repo)
        return 0;
    if ((rc = vs_store_head_branch(st, refname, sizeof refname, err)) < 0)
        return rc;
    if ((have = vs_store_branch_tip(st->repo, refname, &tip, err)) <= 0)
        return have;
    if (git_revwalk_new(&walk, st->repo) < 0 || git_revwalk_push(walk, &tip) < 0) {
        rc = vs_store_gfail(err, VS_ERECORDS, "cannot walk the history of %s", st->path);
        goto done;
    }
    git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME);
    while ((rc = git_revwalk_next(&oid, walk)) == 0) {
        git_commit *c = NULL;
        int touched = 1;
        if (git_commit_lookup(&c, st->repo, &oid) < 0) {
            rc = vs_store_gfail(err, VS_ERECORDS, "cannot read commit");
            goto done;
        }
        if (sheet_id) {
            git_oid mine, theirs;
            int has_mine, has_theirs;
            unsigned int p, np = git_commit_parentcount(c);
            if ((rc = folder_cached(st->repo, &fc, &oid, sheet_id, &mine, &has_mine)) < 0) {
                git_commit_free(c);
                rc = vs_store_gfail(err, VS_ERECORDS, "cannot read a tree");
                goto done;
            }
            touched = np == 0 ? has_mine : 1;
            /* Like git log's simplification: a commit that leaves the folder as one of
             * its parents had it did not change the sheet. */
            for (p = 0; p < np && touched; p++) {
                if ((rc = folder_cached(st->repo, &fc, git_commit_parent_id(c, p), sheet_id,
                                        &theirs, &has_theirs)) < 0) {
                    git_commit_free(c);
                    rc = vs_store_gfail(err, VS_ERECORDS, "cannot read a tree");
                    goto done;
                }
                if (has_mine == has_theirs && (!has_mine || git_oid_equal(&mine, &theirs)))
                    touched = 0;
            }
        }
        if (touched && (rc = history_push(out, &cap, c, &oid)) < 0) {
            git_commit_free(c);
            rc = vs_error_set(err, VS_ENOMEM, "out of memory");
            goto done;
        }
        git_commit_free(c);
        if (limit && out->n >= limit)
            break;
    }
    if (rc == GIT_ITEROVER)
        rc = 0;
    else if (rc < 0 && rc != VS_ENOMEM)
        rc = vs_store_gfail(err, VS_ERECORDS, "cannot walk the history of %s", st->path);
done:
    git_revwalk_free(walk);
    if (rc < 0)
        vs_store_revisions_clear(out);
    return rc < 0 ? rc : 0;
}

void vs_store_revisions_clear(vs_store_revisions *h)
{
    size_t i;
    if (!h)
        return;
    for (i = 0; i < h->n; i++)
        free(h->revs[i].message);
    free(h->revs);
    h->revs = NULL;
    h->n = 0;
}

/* The commit a revision names (rev NULL: the branch tip). */
static int resolve_commit(vs_store *st, const char *rev, git_commit **out, vs_error *err)
{
    git_object *obj = NULL, *peeled = NULL;
    int rc;
    *out = NULL;
    if ((rc = vs_store_need_repo(st, err)) < 0)
        return rc;
    if (!rev) {
        char refname[VS_STORE_BRANCH_MAX + 16];
        git_oid tip;
        int have;
        if ((rc = vs_store_head_branch(st, refname, sizeof refname, err)) < 0)
            return rc;
        if ((have = vs_store_branch_tip(st->repo, refname, &tip, err)) < 0)
            return have;
        if (!have)
            return vs_error_set(err, VS_ENOTFOUND, "no records yet in %s (branch %s has no commit)",
                                st->path, refname + 11);
        if (git_commit_lookup(out, st->repo, &tip) < 0)
            return vs_store_gfail(err, VS_ERECORDS, "cannot read the tip");
        return 0;
    }
    rc = git_revparse_single(&obj, st->repo, rev);
    if (rc == GIT_ENOTFOUND || rc == GIT_EINVALIDSPEC || rc == GIT_EAMBIGUOUS) {
        rc = vs_error_set(err, VS_ENOTFOUND,
                          "no revision '%s' in the records %s%s (give a commit id or prefix, "
                          "~N for N revisions back in the sheet's own history, HEAD~N for N "
                          "commits back on the branch, or a branch; `history` lists them)",
                          rev, st->path, rc == GIT_EAMBIGUOUS ? " (ambiguous prefix)" : "");
        goto done;
    }
    if (rc < 0) {
        rc = vs_store_gfail(err, VS_ERECORDS, "cannot read revision '%s'", rev);
        goto done;
    }
    if (git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT) < 0) {
        rc = vs_error_set(err, VS_ENOTFOUND, "'%s' does not name a commit", rev);
        goto done;
    }
    *out = (git_commit *)peeled;
    peeled = NULL;
done:
    git_object_free(peeled);
    git_object_free(obj);
    return rc;
}

int vs_store_sheet_rev(const char *rev, unsigned long *n)
{
    char *end;
    if (!rev || rev[0] != '~')
        return 0;
    if (!rev[1]) {
        *n = 1; /* as git reads a bare ~ */
        return 1;
    }
    if (rev[1] < '0' || rev[1] > '9')
        return 0;
    errno = 0;
    *n = strtoul(rev + 1, &end, 10);
    return !*end && errno == 0;
}

/* The commit of the revision N back in the sheet's own history (~0 its latest). */
static int resolve_sheet_rev(vs_store *st, const char *sheet_id, const char *rev, unsigned long n,
                             git_commit **out, vs_error *err)
{
    vs_store_revisions h = {0};
    git_oid oid;
    int rc;
    *out = NULL;
    if ((rc = vs_store_need_repo(st, err)) < 0)
        return rc;
    if (n > 1000000)
        return vs_error_set(err, VS_ENOTFOUND, "no revision '%s' of sheet '%s'", rev, sheet_id);
    if ((rc = vs_store_history(st, sheet_id, (size_t)n + 1, &h, err)) < 0)
        return rc;
    if (h.n <= n) {
        if (h.n == 0)
            rc = vs_error_set(err, VS_ENOTFOUND, "sheet '%s' has no revisions in the records %s",
                              sheet_id, st->path);
        else
            rc = vs_error_set(err, VS_ENOTFOUND,
                              "sheet '%s' has %zu revision%s in the records %s: %s@~0 is the "
                              "latest, %s@~%zu the oldest (`history %s` lists them)",
                              sheet_id, h.n, h.n == 1 ? "" : "s", st->path, sheet_id, sheet_id,
                              h.n - 1, sheet_id);
        vs_store_revisions_clear(&h);
        return rc;
    }
    rc = git_oid_fromstr(&oid, h.revs[n].commit) < 0 || git_commit_lookup(out, st->repo, &oid) < 0
             ? vs_store_gfail(err, VS_ERECORDS, "cannot read commit %s", h.revs[n].commit)
             : 0;
    vs_store_revisions_clear(&h);
    return rc;
}

int vs_store_read(vs_store *st, const char *sheet_id, const char *rev, const char *file,
                  vs_store_blob *out, vs_error *err)
{
    unsigned long back;
    git_commit *c = NULL;
    git_tree *tree = NULL;
    git_tree_entry *e = NULL;
    git_blob *b = NULL;
    char path[160];
    int rc = 0;
    size_t len;
    memset(out, 0, sizeof *out);
    if (!sheet_id || !vs_sheet_id_valid(sheet_id))
        return vs_error_set(err, VS_EVALUE, "'%s' is not a sheet id", sheet_id ? sheet_id : "");
    if (!file)
        file = "sheet.json";
    if (strcmp(file, "sheet.json") && strcmp(file, "sheet.md"))
        return vs_error_set(err, VS_EVALUE, "a sheet has sheet.json and sheet.md, not %s", file);
    if (vs_store_sheet_rev(rev, &back)
            ? (rc = resolve_sheet_rev(st, sheet_id, rev, back, &c, err)) < 0
            : (rc = resolve_commit(st, rev, &c, err)) < 0)
        return rc;
    vs_store_hex(out->commit, git_commit_id(c));
    snprintf(path, sizeof path, "sheets/%s/%s", sheet_id, file);
    if (git_commit_tree(&tree, c) < 0) {
        rc = vs_store_gfail(err, VS_ERECORDS, "cannot read a tree");
        goto done;
    }
    if (git_tree_entry_bypath(&e, tree, path) < 0 || git_tree_entry_type(e) != GIT_OBJECT_BLOB) {
        rc = vs_error_set(err, VS_ENOTFOUND, "sheet '%s' is not in the records %s at %s (%.12s)",
                          sheet_id, st->path, rev ? rev : "the tip", out->commit);
        goto done;
    }
    if (git_blob_lookup(&b, st->repo, git_tree_entry_id(e)) < 0) {
        rc = vs_store_gfail(err, VS_ERECORDS, "cannot read %s", path);
        goto done;
    }
    vs_store_hex(out->blob, git_tree_entry_id(e));
    len = (size_t)git_blob_rawsize(b);
    if (!(out->data = malloc(len + 1))) {
        rc = vs_error_set(err, VS_ENOMEM, "out of memory");
        goto done;
    }
    memcpy(out->data, git_blob_rawcontent(b), len);
    out->data[len] = '\0';
    out->len = len;
done:
    git_blob_free(b);
    git_tree_entry_free(e);
    git_tree_free(tree);
    git_commit_free(c);
    if (rc < 0)
        vs_store_blob_clear(out);
    return rc;
}

void vs_store_blob_clear(vs_store_blob *b)
{
    if (!b)
        return;
    free(b->data);
    memset(b, 0, sizeof *b);
}

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
    if ((rc = resolve_commit(st, rev, &c, err)) < 0)
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

int vs_store_parse_spec(const char *spec, char *id, size_t idlen, const char **rev, vs_error *err)
{
    const char *at = strchr(spec, '@');
    size_t n = at ? (size_t)(at - spec) : strlen(spec);
    *rev = NULL;
    if (n == 0 || n >= idlen)
        return vs_error_set(err, VS_EVALUE, "expected SHEET or SHEET@REV, got '%s'", spec);
    memcpy(id, spec, n);
    id[n] = '\0';
    if (!vs_sheet_id_valid(id))
        return vs_error_set(err, VS_EVALUE,
                            "'%s' is not a sheet id (ids are slugs: lowercase letters, digits and "
                            "'-')",
                            id);
    if (at) {
        if (!at[1])
            return vs_error_set(
                err, VS_EVALUE,
                "expected a revision after '@' in '%s' (~N: N revisions back in the "
                "sheet's history; HEAD~N, a commit, a branch)",
                spec);
        *rev = at + 1;
    }
    return 0;
}
