/* store_tree.c — raw tree objects: walked entry by entry, and spliced for a
 * commit of one sheet (why, in store_tree.h). */
#include "store/store_tree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int vs_store_tree_next(const unsigned char **p, const unsigned char *end, vs_store_tree_entry *e)
{
    const unsigned char *sp, *nul;
    if (*p >= end || !(sp = memchr(*p, ' ', (size_t)(end - *p))))
        return 0;
    if (!(nul = memchr(sp + 1, '\0', (size_t)(end - sp - 1))) || end - nul < 21)
        return 0;
    e->is_tree = sp - *p == 5 && !memcmp(*p, "40000", 5);
    e->name = (const char *)sp + 1;
    e->len = (size_t)(nul - sp - 1);
    e->id = nul + 1;
    *p = nul + 21;
    return 1;
}

int vs_store_tree_cmp(const vs_store_tree_entry *a, const vs_store_tree_entry *b)
{
    size_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->name, b->name, n);
    unsigned ca, cb;
    if (c)
        return c;
    ca = a->len > n ? (unsigned char)a->name[n] : a->is_tree ? '/' : 0;
    cb = b->len > n ? (unsigned char)b->name[n] : b->is_tree ? '/' : 0;
    return (int)ca - (int)cb;
}

/* A raw tree read, or none (data NULL, len 0). */
typedef struct raw_tree {
    git_odb_object *obj;
    const unsigned char *data;
    size_t len;
} raw_tree;

static int raw_read(git_odb *odb, const git_oid *id, raw_tree *t)
{
    int rc;
    memset(t, 0, sizeof *t);
    if (!id)
        return 0;
    if ((rc = git_odb_read(&t->obj, odb, id)) < 0)
        return rc;
    if (git_odb_object_type(t->obj) != GIT_OBJECT_TREE) {
        git_odb_object_free(t->obj);
        memset(t, 0, sizeof *t);
        git_error_set_str(GIT_ERROR_INVALID, "not a tree");
        return GIT_EINVALID;
    }
    t->data = git_odb_object_data(t->obj);
    t->len = git_odb_object_size(t->obj);
    return 0;
}

/* The id of name in t: 1 found (*is_tree set), 0 not. */
static int raw_find(const raw_tree *t, const char *name, git_oid *out, int *is_tree)
{
    const unsigned char *p = t->data, *end = p + t->len;
    size_t len = strlen(name);
    vs_store_tree_entry e;
    while (p && vs_store_tree_next(&p, end, &e))
        if (e.len == len && !memcmp(e.name, name, len)) {
            git_oid_fromraw(out, e.id);
            *is_tree = e.is_tree;
            return 1;
        }
    return 0;
}

/* data (len) with the entry name (a tree or a blob, id) in its place, any
 * entry of that name replaced (git_treebuilder's upsert, byte for byte):
 * *out malloc'd. */
static int splice(const unsigned char *data, size_t len, const char *name, int is_tree,
                  const git_oid *id, unsigned char **out, size_t *outlen)
{
    const char *mode = is_tree ? "40000" : "100644";
    size_t nlen = strlen(name), elen = strlen(mode) + 1 + nlen + 1 + 20, o = 0;
    const unsigned char *p = data, *end = data + len;
    vs_store_tree_entry want, e;
    unsigned char *buf;
    int put = 0;
    if (!(buf = malloc(len + elen))) {
        git_error_set_oom();
        return GIT_ERROR;
    }
    want.name = name;
    want.len = nlen;
    want.is_tree = is_tree;
    while (p && p < end) {
        const unsigned char *at = p;
        if (!vs_store_tree_next(&p, end, &e)) {
            free(buf);
            git_error_set_str(GIT_ERROR_INVALID, "a malformed tree");
            return GIT_EINVALID;
        }
        if (!put && vs_store_tree_cmp(&e, &want) > 0) {
            o += (size_t)sprintf((char *)buf + o, "%s %s", mode, name) + 1;
            memcpy(buf + o, id->id, 20);
            o += 20;
            put = 1;
        }
        if (e.len == nlen && !memcmp(e.name, name, nlen))
            continue; /* the entry replaced */
        memcpy(buf + o, at, (size_t)(p - at));
        o += (size_t)(p - at);
    }
    if (!put) {
        o += (size_t)sprintf((char *)buf + o, "%s %s", mode, name) + 1;
        memcpy(buf + o, id->id, 20);
        o += 20;
    }
    *out = buf;
    *outlen = o;
    return 0;
}

static int splice_write(git_odb *odb, const raw_tree *t, const char *name, int is_tree,
                        const git_oid *id, git_oid *out)
{
    unsigned char *buf = NULL;
    size_t len;
    int rc = splice(t->data, t->len, name, is_tree, id, &buf, &len);
    if (rc == 0)
        rc = git_odb_write(out, odb, buf, len, GIT_OBJECT_TREE);
    free(buf);
    return rc;
}

int vs_store_tree_put_sheet(git_repository *repo, const git_oid *root, const char *id,
                            const git_oid *json, const git_oid *md, git_oid *out_root,
                            git_oid *out_folder)
{
    git_odb *odb = NULL;
    raw_tree rt, st, ft;
    git_oid sheets, folder, new_sheets;
    unsigned char *fbuf = NULL;
    size_t flen = 0;
    int rc, is_tree = 0, has_sheets = 0, has_folder = 0;
    memset(&rt, 0, sizeof rt);
    memset(&st, 0, sizeof st);
    memset(&ft, 0, sizeof ft);
    if ((rc = git_repository_odb(&odb, repo)) < 0 || (rc = raw_read(odb, root, &rt)) < 0)
        goto done;
    has_sheets = raw_find(&rt, "sheets", &sheets, &is_tree) && is_tree;
    if ((rc = raw_read(odb, has_sheets ? &sheets : NULL, &st)) < 0)
        goto done;
    has_folder = raw_find(&st, id, &folder, &is_tree) && is_tree;
    /* the folder: both files spliced before it is written (no tree between) */
    if ((rc = raw_read(odb, has_folder ? &folder : NULL, &ft)) < 0 ||
        (rc = splice(ft.data, ft.len, "sheet.json", 0, json, &fbuf, &flen)) < 0)
        goto done;
    if (md) {
        unsigned char *b2 = NULL;
        rc = splice(fbuf, flen, "sheet.md", 0, md, &b2, &flen);
        free(fbuf);
        fbuf = b2;
        if (rc < 0)
            goto done;
    }
    if ((rc = git_odb_write(out_folder, odb, fbuf, flen, GIT_OBJECT_TREE)) < 0)
        goto done;
    if ((rc = splice_write(odb, &st, id, 1, out_folder, &new_sheets)) < 0)
        goto done;
    rc = splice_write(odb, &rt, "sheets", 1, &new_sheets, out_root);
done:
    git_odb_object_free(rt.obj);
    git_odb_object_free(st.obj);
    git_odb_object_free(ft.obj);
    free(fbuf);
    git_odb_free(odb);
    return rc;
}
