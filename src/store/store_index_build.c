/* store_index_build.c — commits into revisions: which sheets a commit changed
 * (its sheets/ tree against each parent's, compared entry by entry in git's
 * own order, without parsing either tree), appended to the index's log. */
#include "store/store_index_internal.h"
#include "store/store_tree.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* --- the table of sheets --- */

static uint32_t hash_id(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    while (*s)
        h = (h ^ (unsigned char)*s++) * 16777619u;
    return h;
}

static int table_grow(ix_table *t)
{
    size_t ns = t->nslots ? t->nslots * 2 : 1024, i;
    uint32_t *slots = calloc(ns, sizeof *slots);
    if (!slots)
        return -1;
    for (i = 0; i < t->n; i++) {
        size_t k = hash_id(t->heads[i].id) & (ns - 1);
        while (slots[k])
            k = (k + 1) & (ns - 1);
        slots[k] = (uint32_t)(i + 1);
    }
    free(t->slots);
    t->slots = slots;
    t->nslots = ns;
    return 0;
}

ix_head *vs_store_index_table_get(ix_table *t, const char *id, int create)
{
    size_t k;
    if (!t->nslots || (create && (t->n + 1) * 2 > t->nslots)) {
        if (!create && !t->nslots)
            return NULL;
        if (table_grow(t) < 0)
            return NULL;
    }
    k = hash_id(id) & (t->nslots - 1);
    while (t->slots[k]) {
        ix_head *h = &t->heads[t->slots[k] - 1];
        if (!strcmp(h->id, id))
            return h;
        k = (k + 1) & (t->nslots - 1);
    }
    if (!create)
        return NULL;
    if (t->n == t->cap) {
        size_t nc = t->cap ? t->cap * 2 : 256;
        ix_head *nh = realloc(t->heads, nc * sizeof *nh);
        if (!nh)
            return NULL;
        t->heads = nh;
        t->cap = nc;
    }
    memset(&t->heads[t->n], 0, sizeof t->heads[t->n]);
    snprintf(t->heads[t->n].id, sizeof t->heads[t->n].id, "%s", id);
    t->slots[k] = (uint32_t)(t->n + 1);
    return &t->heads[t->n++];
}

void vs_store_index_table_free(ix_table *t)
{
    free(t->heads);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

/* --- raw trees --- */

int vs_store_index_is_sheet(const vs_store_tree_entry *e)
{
    char id[VS_SHEET_ID_MAX];
    if (!e->is_tree || e->len >= sizeof id)
        return 0;
    memcpy(id, e->name, e->len);
    id[e->len] = '\0';
    return vs_sheet_id_valid(id);
}

/* The sheets/ trees read while a batch is appended: a child's parent is
 * usually the commit just before it, so a few suffice. */
#define TREE_CACHE 4

/* Where each entry of a raw tree begins: kept for the trees in the cache, so
 * that the next commit's comparison (its parent is usually this commit) finds
 * the entry at a byte offset by a binary search, not a walk from the start. */
typedef struct entry_offs {
    uint32_t *v;
    size_t n, cap;
    int valid;
} entry_offs;

typedef struct tree_cache {
    git_odb *odb;
    git_oid id[TREE_CACHE];
    git_odb_object *obj[TREE_CACHE];
    entry_offs offs[TREE_CACHE];
    unsigned next;
    /* the sheets/ tree of the commits last asked for (a commit, then its
     * parent: the child of the next commit) */
    git_oid commit[2], sheets[2];
    int has[2], valid[2];
    unsigned next_commit;
    ix_held held;
} tree_cache;

/* The tree id from the cache or the object database; *offs (may be NULL) its
 * entries' offsets (valid 0 until computed). */
static int cache_read_offs(tree_cache *tc, const git_oid *id, const git_odb_object *keep,
                           git_odb_object **out, entry_offs **offs)
{
    unsigned i;
    int rc;
    for (i = 0; i < TREE_CACHE; i++)
        if (tc->obj[i] && git_oid_equal(&tc->id[i], id)) {
            *out = tc->obj[i];
            if (offs)
                *offs = &tc->offs[i];
            return 0;
        }
    i = tc->next++ % TREE_CACHE;
    if (keep && tc->obj[i] == keep)
        i = tc->next++ % TREE_CACHE;
    git_odb_object_free(tc->obj[i]);
    tc->obj[i] = NULL;
    tc->offs[i].valid = 0;
    if ((rc = git_odb_read(&tc->obj[i], tc->odb, id)) < 0)
        return rc;
    git_oid_cpy(&tc->id[i], id);
    *out = tc->obj[i];
    if (offs)
        *offs = &tc->offs[i];
    return 0;
}

static int cache_read(tree_cache *tc, const git_oid *id, const git_odb_object *keep,
                      git_odb_object **out)
{
    return cache_read_offs(tc, id, keep, out, NULL);
}

static void cache_free(tree_cache *tc)
{
    unsigned i;
    for (i = 0; i < TREE_CACHE; i++) {
        git_odb_object_free(tc->obj[i]);
        free(tc->offs[i].v);
    }
    vs_store_index_held_free(&tc->held);
    git_odb_free(tc->odb);
}

static int offs_push(entry_offs *o, size_t at)
{
    if (o->n == o->cap) {
        size_t nc = o->cap ? o->cap * 2 : 1024;
        uint32_t *nv = realloc(o->v, nc * sizeof *nv);
        if (!nv)
            return -1;
        o->v = nv;
        o->cap = nc;
    }
    o->v[o->n++] = (uint32_t)at;
    return 0;
}

/* Every entry's offset in the tree o (one walk). -1 when memory is short. */
static int offs_build(git_odb_object *o, entry_offs *offs)
{
    const unsigned char *d = git_odb_object_data(o), *p = d, *end = d + git_odb_object_size(o);
    vs_store_tree_entry e;
    offs->n = 0;
    offs->valid = 0;
    while (p < end) {
        const unsigned char *at = p;
        if (!vs_store_tree_next(&p, end, &e))
            break;
        if (offs_push(offs, (size_t)(at - d)) < 0)
            return -1;
    }
    offs->valid = 1;
    return 0;
}

/* The id of name in a raw tree: 1 found (with *is_tree), 0 not. */
static int raw_find(git_odb_object *o, const char *name, git_oid *out, int *is_tree)
{
    const unsigned char *p = git_odb_object_data(o), *end = p + git_odb_object_size(o);
    size_t len = strlen(name);
    vs_store_tree_entry e;
    while (vs_store_tree_next(&p, end, &e))
        if (e.len == len && !memcmp(e.name, name, len)) {
            git_oid_fromraw(out, e.id);
            *is_tree = e.is_tree;
            return 1;
        }
    return 0;
}

/* The sheets/ tree of a commit: 1 with *out, 0 when it has none. */
static int sheets_of(git_repository *repo, tree_cache *tc, const git_oid *commit, git_oid *out)
{
    git_commit *c = NULL;
    git_odb_object *root = NULL;
    int rc, is_tree = 0, found;
    unsigned i;
    for (i = 0; i < 2; i++)
        if (tc->valid[i] && git_oid_equal(&tc->commit[i], commit)) {
            git_oid_cpy(out, &tc->sheets[i]);
            return tc->has[i];
        }
    if ((rc = git_commit_lookup(&c, repo, commit)) < 0)
        return rc;
    rc = git_odb_read(&root, tc->odb, git_commit_tree_id(c));
    git_commit_free(c);
    if (rc < 0)
        return rc;
    memset(out, 0, sizeof *out);
    found = raw_find(root, "sheets", out, &is_tree) && is_tree;
    git_odb_object_free(root);
    i = tc->next_commit++ % 2;
    git_oid_cpy(&tc->commit[i], commit);
    git_oid_cpy(&tc->sheets[i], out);
    tc->has[i] = found;
    tc->valid[i] = 1;
    return found;
}

/* --- what a commit changed --- */

int vs_store_index_touched_add(ix_touched_list *l, const vs_store_tree_entry *e,
                               const unsigned char *folder)
{
    ix_touched *t;
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 16;
        ix_touched *nv = realloc(l->v, nc * sizeof *nv);
        if (!nv)
            return -1;
        l->v = nv;
        l->cap = nc;
    }
    t = &l->v[l->n++];
    memcpy(t->id, e->name, e->len);
    t->id[e->len] = '\0';
    t->present = folder != NULL;
    if (folder)
        git_oid_fromraw(&t->folder, folder);
    return 0;
}

static int raw_next_at(const unsigned char **p, const unsigned char *end, vs_store_tree_entry *e)
{
    return *p < end && vs_store_tree_next(p, end, e);
}

/* How many bytes a and b share at their start (at most n): memcmp a block at a
 * time, then byte by byte in the block that differs. */
static size_t common_prefix(const unsigned char *a, const unsigned char *b, size_t n)
{
    size_t i = 0;
    while (i + 4096 <= n && !memcmp(a + i, b + i, 4096))
        i += 4096;
    while (i < n && a[i] == b[i])
        i++;
    return i;
}

/* How many bytes a (la) and b (lb) share at their end, at most n. */
static size_t common_suffix(const unsigned char *a, size_t la, const unsigned char *b, size_t lb,
                            size_t n)
{
    size_t i = 0;
    while (i + 4096 <= n && !memcmp(a + la - i - 4096, b + lb - i - 4096, 4096))
        i += 4096;
    while (i < n && a[la - i - 1] == b[lb - i - 1])
        i++;
    return i;
}

/* The sheets whose folder differs between cur and par (either may be NULL: no
 * sheets/ tree), sorted in git's order, into l. Two versions of sheets/ share
 * all but a few entries: the bytes they share at the start and at the end are
 * passed over, and only the entries between are compared. */
static int raw_diff(git_odb_object *cur, git_odb_object *par, ix_touched_list *l)
{
    const unsigned char *a = cur ? git_odb_object_data(cur) : NULL, *b = NULL;
    const unsigned char *ae = a ? a + git_odb_object_size(cur) : NULL, *be = NULL;
    const unsigned char *sa, *sb;
    vs_store_tree_entry ea, eb;
    size_t tail = 0;
    int ha, hb;
    if (par) {
        b = git_odb_object_data(par);
        be = b + git_odb_object_size(par);
    }
    if (a && b) {
        size_t la = (size_t)(ae - a), lb = (size_t)(be - b);
        size_t p = common_prefix(a, b, la < lb ? la : lb), start = 0;
        const unsigned char *c = a;
        if (p == la && la == lb)
            return 0;
        /* the entries wholly inside the shared start are the same, at the same
         * places: both sides go on from the first entry that reaches past it */
        while (c < ae) {
            const unsigned char *was = c;
            if (!vs_store_tree_next(&c, ae, &ea) || (size_t)(c - a) > p) {
                c = was;
                break;
            }
        }
        start = (size_t)(c - a);
        a += start;
        b += start;
        tail = common_suffix(a, (size_t)(ae - a), b, (size_t)(be - b),
                             (size_t)(ae - a) < (size_t)(be - b) ? (size_t)(ae - a)
                                                                 : (size_t)(be - b));
    }
    sa = a;
    sb = b;
    ha = a && vs_store_tree_next(&a, ae, &ea);
    hb = b && vs_store_tree_next(&b, be, &eb);
    while (ha || hb) {
        int c;
        /* both at an entry's start with the same bytes left, all shared: done */
        if (ha && hb && ae - sa == be - sb && (size_t)(ae - sa) <= tail)
            break;
        c = !ha ? 1 : !hb ? -1 : vs_store_tree_cmp(&ea, &eb);
        if (c == 0) {
            if (memcmp(ea.id, eb.id, 20) && vs_store_index_is_sheet(&ea) &&
                vs_store_index_touched_add(l, &ea, ea.id) < 0)
                return -1;
            sa = a;
            ha = vs_store_tree_next(&a, ae, &ea);
            sb = b;
            hb = vs_store_tree_next(&b, be, &eb);
        } else if (c < 0) {
            if (vs_store_index_is_sheet(&ea) && vs_store_index_touched_add(l, &ea, ea.id) < 0)
                return -1;
            sa = a;
            ha = vs_store_tree_next(&a, ae, &ea);
        } else {
            if (vs_store_index_is_sheet(&eb) && vs_store_index_touched_add(l, &eb, NULL) < 0)
                return -1;
            sb = b;
            hb = vs_store_tree_next(&b, be, &eb);
        }
    }
    return 0;
}

/* raw_diff with the parent's entry offsets known (po): the entries inside
 * the shared start found by a binary search, those inside the shared end
 * by their place, and the commit's offsets (co) written for the next. Both
 * trees are one object each, sizes below 4 GiB (a tree's offsets are 32-bit;
 * larger ones take raw_diff). */
static int raw_diff_offs(const unsigned char *a0, size_t la, const unsigned char *b0, size_t lb,
                         const uint32_t *pv, size_t pn, entry_offs *co, ix_touched_list *l)
{
    const unsigned char *a = a0, *b = b0, *ae = a0 + la, *be = b0 + lb, *sa, *sb;
    size_t p = common_prefix(a0, b0, la < lb ? la : lb), lo = 0, hi = pn, j, tail, k;
    vs_store_tree_entry ea, eb;
    int ha, hb;
    co->n = 0;
    co->valid = 0;
    if (p == la && la == lb) {
        for (k = 0; k < pn; k++)
            if (offs_push(co, pv[k]) < 0)
                return -1;
        co->valid = 1;
        return 0;
    }
    /* the entries that end at or before p: the same in both, at the same places */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2, end = mid + 1 < pn ? pv[mid + 1] : lb;
        if (end <= p)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (k = 0; k < lo; k++)
        if (offs_push(co, pv[k]) < 0)
            return -1;
    j = lo;
    a += lo < pn ? pv[lo] : lb;
    b += lo < pn ? pv[lo] : lb;
    tail = common_suffix(a, (size_t)(ae - a), b, (size_t)(be - b),
                         (size_t)(ae - a) < (size_t)(be - b) ? (size_t)(ae - a) : (size_t)(be - b));
    sa = a;
    sb = b;
    ha = raw_next_at(&a, ae, &ea);
    hb = raw_next_at(&b, be, &eb);
    while (ha || hb) {
        int c;
        if (ha && hb && ae - sa == be - sb && (size_t)(ae - sa) <= tail) {
            /* the rest is shared: the commit's entries are the parent's, moved */
            size_t shift = (size_t)(sa - a0) - (size_t)(sb - b0);
            for (k = j; k < pn; k++)
                if (offs_push(co, pv[k] + shift) < 0)
                    return -1;
            co->valid = 1;
            return 0;
        }
        c = !ha ? 1 : !hb ? -1 : vs_store_tree_cmp(&ea, &eb);
        if (c <= 0 && offs_push(co, (size_t)(sa - a0)) < 0)
            return -1;
        if (c == 0) {
            if (memcmp(ea.id, eb.id, 20) && vs_store_index_is_sheet(&ea) &&
                vs_store_index_touched_add(l, &ea, ea.id) < 0)
                return -1;
        } else if (c < 0) {
            if (vs_store_index_is_sheet(&ea) && vs_store_index_touched_add(l, &ea, ea.id) < 0)
                return -1;
        } else if (vs_store_index_is_sheet(&eb) && vs_store_index_touched_add(l, &eb, NULL) < 0) {
            return -1;
        }
        if (c <= 0) {
            sa = a;
            ha = raw_next_at(&a, ae, &ea);
        }
        if (c >= 0) {
            sb = b;
            hb = raw_next_at(&b, be, &eb);
            j++;
        }
    }
    co->valid = 1;
    return 0;
}

/* Keeps in l only the sheets also in m: a merge's sheets changed against
 * every parent (merges are few; a plain search). */
static void intersect(ix_touched_list *l, const ix_touched_list *m)
{
    size_t i, x, k = 0;
    for (i = 0; i < l->n; i++) {
        int found = 0;
        for (x = 0; x < m->n && !found; x++)
            found = !strcmp(m->v[x].id, l->v[i].id);
        if (found)
            l->v[k++] = l->v[i];
    }
    l->n = k;
}

/* The sheets commit c changed (differs from every parent; a root's: all it
 * holds), into l. */
static int commit_touched(git_repository *repo, tree_cache *tc, git_commit *c, int boundary,
                          ix_touched_list *l)
{
    git_oid cur_id, par_id;
    git_odb_object *cur = NULL, *par = NULL;
    entry_offs *co = NULL, *po = NULL;
    ix_touched_list other = {0};
    unsigned p, np = boundary ? 0 : git_commit_parentcount(c);
    int rc, has_cur, has_par;
    l->n = 0;
    if ((has_cur = sheets_of(repo, tc, git_commit_id(c), &cur_id)) < 0)
        return has_cur;
    if (np == 1 && has_cur && tc->held.valid) {
        /* the parent's sheets/ is the tree held: the commit's, when it is a
         * delta against it, is read from the pack; else libgit2 reads it and
         * it is compared with the held bytes */
        if ((has_par = sheets_of(repo, tc, git_commit_parent_id(c, 0), &par_id)) < 0)
            return has_par;
        if (has_par && !git_oid_equal(&cur_id, &par_id) && git_oid_equal(&tc->held.id, &par_id)) {
            if ((rc = vs_store_index_held_advance(&tc->held, &cur_id, l)) != 0)
                return rc < 0 ? VS_ENOMEM : 0;
            if ((rc = cache_read_offs(tc, &cur_id, NULL, &cur, &co)) < 0)
                return rc;
            if (git_odb_object_size(cur) < UINT32_MAX &&
                (raw_diff_offs(git_odb_object_data(cur), git_odb_object_size(cur), tc->held.data,
                               tc->held.len, tc->held.offs, tc->held.n, co, l) < 0 ||
                 vs_store_index_held_set(&tc->held, &cur_id, cur, co->v, co->n) < 0))
                return VS_ENOMEM;
            if (git_odb_object_size(cur) < UINT32_MAX)
                return 0;
            l->n = 0;
            tc->held.valid = 0;
        }
    }
    for (p = 0; p < np; p++) {
        ix_touched_list *into = p == 0 ? l : &other;
        if ((has_par = sheets_of(repo, tc, git_commit_parent_id(c, p), &par_id)) < 0) {
            rc = has_par;
            goto done;
        }
        if (has_cur == has_par && (!has_cur || git_oid_equal(&cur_id, &par_id))) {
            l->n = 0; /* the same sheets/ as one parent: no sheet changed */
            rc = 0;
            goto done;
        }
        /* the parent's read never drops the commit's own from the cache */
        if ((has_cur && (rc = cache_read_offs(tc, &cur_id, NULL, &cur, &co)) < 0) ||
            (has_par && (rc = cache_read_offs(tc, &par_id, cur, &par, &po)) < 0))
            goto done;
        into->n = 0;
        if (p == 0 && has_cur && has_par && git_odb_object_size(cur) < UINT32_MAX &&
            git_odb_object_size(par) < UINT32_MAX) {
            if ((!po->valid && offs_build(par, po) < 0) ||
                raw_diff_offs(git_odb_object_data(cur), git_odb_object_size(cur),
                              git_odb_object_data(par), git_odb_object_size(par), po->v, po->n, co,
                              into) < 0 ||
                (np == 1 && vs_store_index_held_set(&tc->held, &cur_id, cur, co->v, co->n) < 0)) {
                rc = VS_ENOMEM;
                goto done;
            }
        } else if (raw_diff(has_cur ? cur : NULL, has_par ? par : NULL, into) < 0) {
            rc = VS_ENOMEM;
            goto done;
        }
        if (p > 0)
            intersect(l, &other);
        cur = par = NULL;
    }
    if (np == 0 && has_cur) {
        if ((rc = cache_read(tc, &cur_id, NULL, &cur)) < 0)
            goto done;
        if (raw_diff(cur, NULL, l) < 0 ||
            vs_store_index_held_set(&tc->held, &cur_id, cur, NULL, 0) < 0) {
            rc = VS_ENOMEM;
            goto done;
        }
    }
    rc = 0;
done:
    free(other.v);
    return rc;
}

static int write_rec(FILE *f, uint64_t *pos, const ix_rec *r, const char *id, const char *msg)
{
    if (fwrite(r, IX_REC_FIXED, 1, f) != 1 || fwrite(id, 1, r->idlen, f) != r->idlen ||
        fwrite(msg, 1, r->msglen, f) != r->msglen)
        return -1;
    *pos += r->reclen;
    return 0;
}

int vs_store_index_append(git_repository *repo, FILE *f, uint64_t *pos, ix_table *t,
                          uint64_t *nrevs, const git_oid *commits, size_t ncommits,
                          const git_oid *shallow, size_t n_shallow, int line, vs_error *err)
{
    tree_cache tc;
    ix_touched_list l = {0};
    size_t i, k;
    int rc = 0;
    int64_t t0 = vs_clock_mono_ms(), shown = 0;
    /* a long build (the first read of a history of 100,000 commits takes
     * seconds) says how far it is, on a terminal's stderr, once a second */
    int progress = ncommits >= 20000 && isatty(2);
    memset(&tc, 0, sizeof tc);
    if (git_repository_odb(&tc.odb, repo) < 0)
        return vs_store_gfail(err, VS_ERECORDS, "cannot open the object database");
    if (vs_store_index_held_init(&tc.held, repo) < 0) {
        cache_free(&tc);
        return vs_error_oom(err);
    }
    for (i = 0; i < ncommits; i++) {
        git_commit *c = NULL;
        if (progress && vs_clock_mono_ms() - t0 >= 1000 * (shown + 1)) {
            shown = (vs_clock_mono_ms() - t0) / 1000;
            fprintf(stderr, "\rindexing the records' history: %zu of %zu commits", i, ncommits);
        }
        const char *m;
        size_t mlen;
        int boundary = n_shallow && vs_store_shallow_has(shallow, n_shallow, &commits[i]);
        if (git_commit_lookup(&c, repo, &commits[i]) < 0) {
            rc = vs_store_gfail(err, VS_ERECORDS, "cannot read a commit of the history");
            goto done;
        }
        if ((rc = commit_touched(repo, &tc, c, boundary, &l)) < 0) {
            git_commit_free(c);
            rc = rc == VS_ENOMEM ? vs_error_oom(err)
                                 : vs_store_gfail(err, VS_ERECORDS, "cannot read a tree");
            goto done;
        }
        m = git_commit_message(c);
        mlen = m ? strlen(m) : 0;
        while (mlen && (m[mlen - 1] == '\n' || m[mlen - 1] == ' '))
            mlen--;
        for (k = 0; k < l.n; k++) {
            ix_head *h = vs_store_index_table_get(t, l.v[k].id, 1);
            ix_rec r;
            if (!h) {
                git_commit_free(c);
                rc = vs_error_oom(err);
                goto done;
            }
            memset(&r, 0, sizeof r);
            r.idlen = (uint16_t)strlen(l.v[k].id);
            r.msglen = (uint32_t)mlen;
            r.reclen = (uint32_t)(IX_REC_FIXED + r.idlen + r.msglen);
            r.flags = (l.v[k].present ? 0 : VS_STORE_INDEX_DELETED) |
                      (boundary ? VS_STORE_INDEX_BOUNDARY : 0);
            memcpy(r.commit, commits[i].id, 20);
            r.time = (int64_t)git_commit_time(c);
            r.offset = git_commit_time_offset(c);
            r.prev = h->head;
            if (l.v[k].present) {
                git_odb_object *fo = NULL;
                git_oid blob;
                int is_tree = 1;
                memcpy(r.folder, l.v[k].folder.id, 20);
                if (git_odb_read(&fo, tc.odb, &l.v[k].folder) < 0) {
                    git_commit_free(c);
                    rc = vs_store_gfail(err, VS_ERECORDS, "cannot read sheets/%s/", l.v[k].id);
                    goto done;
                }
                if (raw_find(fo, "sheet.json", &blob, &is_tree) && !is_tree)
                    memcpy(r.blob, blob.id, 20);
                git_odb_object_free(fo);
            }
            h->head = *pos;
            h->count++;
            /* the sheet as this commit leaves it: the tip's, along one line
             * of commits */
            if (line) {
                h->present = l.v[k].present;
                if (l.v[k].present)
                    memcpy(h->folder, l.v[k].folder.id, 20);
            }
            if (write_rec(f, pos, &r, l.v[k].id, m ? m : "") < 0) {
                git_commit_free(c);
                rc = vs_error_set(err, VS_ERECORDS, "cannot write the revision index");
                goto done;
            }
            (*nrevs)++;
        }
        git_commit_free(c);
    }
done:
    if (shown)
        fprintf(stderr, "\rindexing the records' history: %zu of %zu commits, %.1f s\n", i,
                ncommits, (double)(vs_clock_mono_ms() - t0) / 1000.0);
    free(l.v);
    cache_free(&tc);
    return rc;
}

int vs_store_index_tip_apply(git_repository *repo, const git_oid *old_commit,
                             const git_oid *new_commit, ix_table *t, vs_error *err)
{
    tree_cache tc;
    ix_touched_list l = {0};
    git_oid a, b;
    git_odb_object *ta = NULL, *tb = NULL;
    int rc = 0, ha = 0, hb;
    size_t k;
    memset(&tc, 0, sizeof tc);
    if (git_repository_odb(&tc.odb, repo) < 0)
        return vs_store_gfail(err, VS_ERECORDS, "cannot open the object database");
    if ((old_commit && (ha = sheets_of(repo, &tc, old_commit, &a)) < 0) ||
        (hb = sheets_of(repo, &tc, new_commit, &b)) < 0 ||
        (hb && cache_read(&tc, &b, NULL, &tb) < 0) || (ha && cache_read(&tc, &a, tb, &ta) < 0)) {
        rc = vs_store_gfail(err, VS_ERECORDS, "cannot read the sheets of the tip");
        goto done;
    }
    if (raw_diff(hb ? tb : NULL, ha ? ta : NULL, &l) < 0) {
        rc = vs_error_oom(err);
        goto done;
    }
    if (!old_commit) /* every sheet the tip holds is listed: the others are gone */
        for (k = 0; k < t->n; k++)
            t->heads[k].present = 0;
    for (k = 0; k < l.n; k++) {
        ix_head *h = vs_store_index_table_get(t, l.v[k].id, 1);
        if (!h) {
            rc = vs_error_oom(err);
            goto done;
        }
        h->present = l.v[k].present;
        if (l.v[k].present)
            memcpy(h->folder, l.v[k].folder.id, 20);
    }
done:
    free(l.v);
    cache_free(&tc);
    return rc;
}
