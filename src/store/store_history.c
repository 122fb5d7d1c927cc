/* store_history.c — reading the records: a sheet's history (from the revision
 * index, or a walk), its files at a revision (SHEET@~N or any git revision). */
#include "store/store_index_internal.h"
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

/* The tip's blob of sheets/<id>/<file>: from the revision index's folder when
 * the index is at that tip (no read of sheets/), else read raw. */
int vs_store_tip_blob(vs_store *st, const git_oid *tip, const char *id, const char *file,
                      git_oid *out, int *has)
{
    git_commit *c = NULL;
    git_oid folder;
    int rc, known = vs_store_index_tip_folder(st, tip, id, &folder);
    *has = 0;
    if (known == 0)
        return 0;
    if (known == 1) {
        git_tree *t = NULL;
        const git_tree_entry *e;
        if ((rc = git_tree_lookup(&t, st->repo, &folder)) < 0)
            return rc;
        e = git_tree_entry_byname(t, file);
        if (e && git_tree_entry_type(e) == GIT_OBJECT_BLOB) {
            git_oid_cpy(out, git_tree_entry_id(e));
            *has = 1;
        }
        git_tree_free(t);
        return 0;
    }
    if ((rc = git_commit_lookup(&c, st->repo, tip)) < 0)
        return rc;
    rc = vs_store_sheet_blob_at(st->repo, git_commit_tree_id(c), id, file, out, has);
    git_commit_free(c);
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
    r->blob[0] = '\0';
    r->time = (int64_t)git_commit_time(c);
    r->offset = git_commit_time_offset(c);
    out->n++;
    return 0;
}

/* The history by a walk of every commit: where the index cannot be written
 * (records on a read-only path), and for every commit (sheet_id NULL). */
static int history_walk(vs_store *st, const char *sheet_id, size_t limit, const git_oid *tip,
                        vs_store_revisions *out, vs_error *err)
{
    git_revwalk *walk = NULL;
    git_oid oid;
    folder_cache fc;
    size_t cap = 0;
    int rc = 0;

    memset(&fc, 0, sizeof fc);
    if (git_revwalk_new(&walk, st->repo) < 0 || git_revwalk_push(walk, tip) < 0) {
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

/* Every commit of a shallow clone, newest first, down to its boundary
 * (libgit2 would look for the parents the clone does not have). */
static int history_shallow(vs_store *st, size_t limit, const git_oid *tip, vs_store_revisions *out,
                           vs_error *err)
{
    git_oid *v = NULL, *shallow = NULL;
    size_t n = 0, ns = 0, cap = 0, i;
    int rc = 0;
    if (vs_store_shallow_read(st, &shallow, &ns) < 0)
        return vs_error_oom(err);
    if ((rc = vs_store_index_walk_shallow(st->repo, tip, shallow, ns, &v, &n, err)) < 0)
        goto done;
    for (i = n; i-- > 0 && (!limit || out->n < limit);) {
        git_commit *c = NULL;
        if (git_commit_lookup(&c, st->repo, &v[i]) < 0) {
            rc = vs_store_gfail(err, VS_ERECORDS, "cannot read commit");
            goto done;
        }
        rc = history_push(out, &cap, c, &v[i]);
        if (rc == 0 && git_commit_parentcount(c) && vs_store_shallow_has(shallow, ns, &v[i]))
            vs_store_hex(out->truncated, &v[i]);
        git_commit_free(c);
        if (rc < 0) {
            rc = vs_error_oom(err);
            goto done;
        }
    }
done:
    free(v);
    free(shallow);
    return rc;
}

/* One sheet's revisions from the index. */
static int history_index(vs_store *st, const char *sheet_id, size_t limit, vs_store_revisions *out,
                         vs_error *err)
{
    vs_store_index_rev *v = NULL;
    size_t n = 0, i;
    int rc;
    if ((rc = vs_store_index_revisions(st, sheet_id, 0, limit, &v, &n, NULL, err)) < 0)
        return rc;
    if (n && !(out->revs = calloc(n, sizeof *out->revs))) {
        vs_store_index_revs_free(v, n);
        return vs_error_oom(err);
    }
    for (i = 0; i < n; i++) {
        vs_store_revision *r = &out->revs[i];
        memcpy(r->commit, v[i].commit, sizeof r->commit);
        memcpy(r->blob, v[i].blob, sizeof r->blob);
        r->message = v[i].message;
        v[i].message = NULL;
        r->time = v[i].time;
        r->offset = v[i].offset;
    }
    out->n = n;
    if (n && (v[n - 1].flags & VS_STORE_INDEX_BOUNDARY))
        memcpy(out->truncated, v[n - 1].commit, sizeof out->truncated);
    vs_store_index_revs_free(v, n);
    return 0;
}

int vs_store_history(vs_store *st, const char *sheet_id, size_t limit, vs_store_revisions *out,
                     vs_error *err)
{
    char refname[VS_STORE_BRANCH_MAX + 16];
    git_oid tip;
    int rc, have;
    memset(out, 0, sizeof *out);
    if (sheet_id && !vs_sheet_id_valid(sheet_id))
        return vs_error_set(err, VS_EVALUE, "'%s' is not a sheet id", sheet_id);
    if (!st->repo)
        return 0;
    if ((rc = vs_store_head_branch(st, refname, sizeof refname, err)) < 0)
        return rc;
    if ((have = vs_store_branch_tip(st->repo, refname, &tip, err)) <= 0)
        return have;
    if (!sheet_id && limit == 1) {
        /* the tip alone: no walk (a topological walk prepares the whole graph) */
        git_commit *c = NULL;
        size_t cap = 0;
        if (git_commit_lookup(&c, st->repo, &tip) < 0)
            return vs_store_gfail(err, VS_ERECORDS, "cannot read the tip");
        rc = history_push(out, &cap, c, &tip);
        git_commit_free(c);
        return rc < 0 ? vs_error_oom(err) : 0;
    }
    if (!sheet_id)
        return vs_store_is_shallow(st) ? history_shallow(st, limit, &tip, out, err)
                                       : history_walk(st, NULL, limit, &tip, out, err);
    rc = vs_store_index_sync(st, err);
    if (rc == 0 && (rc = history_index(st, sheet_id, limit, out, err)) < 0 &&
        vs_store_index_sync(st, err) == 0) /* removed as damaged meanwhile: once more */
        rc = history_index(st, sheet_id, limit, out, err);
    if (rc == 0)
        return 0;
    if (rc < 0 && vs_store_is_shallow(st))
        return rc;
    /* an index that cannot be written here: the walk, as before there was one */
    vs_error_clear(err);
    return history_walk(st, sheet_id, limit, &tip, out, err);
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

int vs_store_resolve_commit(vs_store *st, const char *rev, git_commit **out, vs_error *err)
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
    /* A search by message (":/TEXT", "REV^{/TEXT}") runs a regular expression
     * over every commit, and libgit2 1.5 leaks in it: not a revision here. */
    if (strstr(rev, ":/") || strstr(rev, "^{/"))
        return vs_error_set(err, VS_EVALUE,
                            "'%s' searches commit messages, which a revision here cannot: give a "
                            "commit id or prefix, ~N for N revisions back in the sheet's own "
                            "history, HEAD~N or a branch (`history` lists them)",
                            rev);
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

/* Says that sheet_id has only n revisions (none: not in the records). */
static int too_far_back(vs_store *st, const char *sheet_id, const char *rev, size_t n,
                        const char *truncated, vs_error *err)
{
    char cut[200] = "";
    if (*truncated)
        snprintf(cut, sizeof cut,
                 "; this is a shallow clone, whose history stops at %.12s (older revisions are "
                 "not here: `git -C %.60s fetch --unshallow` fetches them)",
                 truncated, st->path);
    if (n == 0)
        return vs_error_set(err, VS_ENOTFOUND, "sheet '%s' has no revisions in the records %s%s",
                            sheet_id, st->path, cut);
    return vs_error_set(err, VS_ENOTFOUND,
                        "sheet '%s' has %zu revision%s in the records %s: %s@~0 is the "
                        "latest, %s@~%zu the oldest (`history %s` lists them)%s",
                        sheet_id, n, n == 1 ? "" : "s", st->path, sheet_id, sheet_id, n - 1,
                        sheet_id, cut);
}

/* The commit of the revision N back in the sheet's own history (~0 its latest):
 * one entry of the index, or a walk where there is none. */
static int resolve_sheet_rev(vs_store *st, const char *sheet_id, const char *rev, unsigned long n,
                             git_commit **out, git_oid *folder, int *known, vs_error *err)
{
    vs_store_revisions h = {0};
    vs_store_index_rev *v = NULL;
    char commit[VS_STORE_HEX];
    size_t got = 0, total = 0;
    git_oid oid;
    int rc;
    *out = NULL;
    *known = -1;
    if ((rc = vs_store_need_repo(st, err)) < 0)
        return rc;
    if (n > 1000000)
        return vs_error_set(err, VS_ENOTFOUND, "no revision '%s' of sheet '%s'", rev, sheet_id);
    if (vs_store_index_sync(st, err) == 0) {
        if ((rc = vs_store_index_revisions(st, sheet_id, (size_t)n, 1, &v, &got, &total, err)) < 0)
            return rc;
        if (!got) {
            char cut[VS_STORE_HEX] = "";
            if (total &&
                vs_store_index_revisions(st, sheet_id, total - 1, 1, &v, &got, NULL, err) == 0 &&
                got && (v[0].flags & VS_STORE_INDEX_BOUNDARY))
                snprintf(cut, sizeof cut, "%s", v[0].commit);
            vs_store_index_revs_free(v, got);
            return too_far_back(st, sheet_id, rev, total, cut, err);
        }
        snprintf(commit, sizeof commit, "%s", v[0].commit);
        /* the revision's own folder: no read of sheets/ */
        *known = *v[0].folder && git_oid_fromstr(folder, v[0].folder) == 0;
        vs_store_index_revs_free(v, got);
    } else {
        vs_error_clear(err);
        if ((rc = vs_store_history(st, sheet_id, (size_t)n + 1, &h, err)) < 0)
            return rc;
        if (h.n <= n) {
            rc = too_far_back(st, sheet_id, rev, h.n, h.truncated, err);
            vs_store_revisions_clear(&h);
            return rc;
        }
        snprintf(commit, sizeof commit, "%s", h.revs[n].commit);
        vs_store_revisions_clear(&h);
    }
    return git_oid_fromstr(&oid, commit) < 0 || git_commit_lookup(out, st->repo, &oid) < 0
               ? vs_store_gfail(err, VS_ERECORDS, "cannot read commit %s", commit)
               : 0;
}

int vs_store_read(vs_store *st, const char *sheet_id, const char *rev, const char *file,
                  vs_store_blob *out, vs_error *err)
{
    unsigned long back;
    git_commit *c = NULL;
    git_blob *b = NULL;
    git_oid bid, folder;
    char path[160];
    int rc = 0, has = 0, known = -1;
    size_t len;
    memset(out, 0, sizeof *out);
    if (!sheet_id || !vs_sheet_id_valid(sheet_id))
        return vs_error_set(err, VS_EVALUE, "'%s' is not a sheet id", sheet_id ? sheet_id : "");
    if (!file)
        file = "sheet.json";
    if (strcmp(file, "sheet.json") && strcmp(file, "sheet.md"))
        return vs_error_set(err, VS_EVALUE, "a sheet has sheet.json and sheet.md, not %s", file);
    if (vs_store_sheet_rev(rev, &back)
            ? (rc = resolve_sheet_rev(st, sheet_id, rev, back, &c, &folder, &known, err)) < 0
            : (rc = vs_store_resolve_commit(st, rev, &c, err)) < 0)
        return rc;
    if (!rev && vs_store_index_sync(st, err) == 0)
        known = vs_store_index_tip_folder(st, git_commit_id(c), sheet_id, &folder);
    vs_error_clear(err);
    vs_store_hex(out->commit, git_commit_id(c));
    snprintf(path, sizeof path, "sheets/%s/%s", sheet_id, file);
    /* The folder from the index when it names it; else read raw: the sheets/
     * tree has an entry per sheet, and one is wanted. */
    if (known == 1) {
        git_odb *odb = NULL;
        int found = 0, is_tree = 1;
        rc = git_repository_odb(&odb, st->repo) < 0 ||
                     odb_tree_entry(odb, &folder, file, &bid, &found, &is_tree) < 0
                 ? -1
                 : 0;
        git_odb_free(odb);
        has = found && !is_tree;
    } else if (known < 0) {
        rc = vs_store_sheet_blob_at(st->repo, git_commit_tree_id(c), sheet_id, file, &bid, &has);
    }
    if (rc < 0) {
        rc = vs_store_gfail(err, VS_ERECORDS, "cannot read a tree");
        goto done;
    }
    if (!has) {
        rc = vs_error_set(err, VS_ENOTFOUND, "sheet '%s' is not in the records %s at %s (%.12s)",
                          sheet_id, st->path, rev ? rev : "the tip", out->commit);
        goto done;
    }
    if (git_blob_lookup(&b, st->repo, &bid) < 0) {
        rc = vs_store_gfail(err, VS_ERECORDS, "cannot read %s", path);
        goto done;
    }
    vs_store_hex(out->blob, &bid);
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
    git_commit_free(c);
    if (rc < 0)
        vs_store_blob_clear(out);
    return rc;
}

int vs_store_read_blob(vs_store *st, const char *blob, vs_store_blob *out, vs_error *err)
{
    git_oid id;
    git_blob *b = NULL;
    size_t len;
    memset(out, 0, sizeof *out);
    if ((!blob || git_oid_fromstr(&id, blob) < 0))
        return vs_error_set(err, VS_EVALUE, "'%s' is not a blob id", blob ? blob : "");
    if (!st->repo || git_blob_lookup(&b, st->repo, &id) < 0)
        return vs_error_set(err, VS_ENOTFOUND, "no blob %.12s in the records %s", blob, st->path);
    len = (size_t)git_blob_rawsize(b);
    if (!(out->data = malloc(len + 1))) {
        git_blob_free(b);
        return vs_error_oom(err);
    }
    memcpy(out->data, git_blob_rawcontent(b), len);
    out->data[len] = '\0';
    out->len = len;
    vs_store_hex(out->blob, &id);
    git_blob_free(b);
    return 0;
}

void vs_store_blob_clear(vs_store_blob *b)
{
    if (!b)
        return;
    free(b->data);
    memset(b, 0, sizeof *b);
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
