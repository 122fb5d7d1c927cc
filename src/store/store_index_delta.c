/* store_index_delta.c — the next sheets/ tree from a pack delta against the
 * one held, and the sheets it changed, without resolving the delta's chain.
 *
 * Why: at 10,000 sheets a sheets/ tree is 340 KB; libgit2 rebuilds each one
 * from its chain of deltas (up to 50) and the comparison with the parent's
 * reads it whole: most of a first build of the index over 100,000 commits.
 * git fast-import (and a pack written like it) stores each commit's sheets/
 * tree as a delta of a few instructions against the tree of the commit before
 * it: "copy the first 3,400 bytes, insert these 20, copy the rest". Read as an
 * edit script of the held tree (copies in order, the bytes between replaced),
 * only the entries around each edit can differ: those entries are compared,
 * the held bytes are patched (in place when no length changes), and the
 * entries' offsets follow. A delta of another shape (copies out of order, a
 * base that is not the held tree, as `git repack` often makes) is left to
 * libgit2. */
#include "store/store_index_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DELTA_MAX (1u << 20) /* a larger delta is no small edit: libgit2 */
/* A copy from further on in the base, shorter than this, is taken as new
 * bytes: git's deltas copy a tree entry's common start ("40000 s-1") from
 * wherever it matched, and a short copy ahead would leave the bytes it skips
 * as a gap (a wider window), not keep them. */
#define KEEP_MIN 64

static int grow(void **p, size_t *cap, size_t need, size_t unit)
{
    size_t nc;
    void *np;
    if (need == 0)
        need = 1; /* never NULL: a copy of no bytes still has a place */
    if (need <= *cap)
        return 0;
    nc = *cap ? *cap : 64;
    while (nc < need)
        nc *= 2;
    if (!(np = realloc(*p, nc * unit)))
        return -1;
    *p = np;
    *cap = nc;
    return 0;
}

int vs_store_index_held_init(ix_held *h, git_repository *repo)
{
    char dir[4096];
    memset(h, 0, sizeof *h);
    if (vs_store_pack_new(&h->packs, NULL) < 0)
        return -1;
    if ((size_t)snprintf(dir, sizeof dir, "%sobjects/pack", git_repository_commondir(repo)) >=
            sizeof dir ||
        vs_store_pack_open_dir(h->packs, dir, NULL) < 0 || vs_store_pack_npacks(h->packs) == 0) {
        vs_store_pack_free(h->packs);
        h->packs = NULL;
    }
    return 0;
}

void vs_store_index_held_free(ix_held *h)
{
    vs_store_pack_free(h->packs);
    git_odb_object_free(h->borrowed);
    free(h->buf);
    free(h->alt);
    free(h->offs);
    free(h->offs_alt);
    free(h->delta);
    free(h->ins);
    free(h->win);
    free(h->edits);
    free(h->woffs);
    memset(h, 0, sizeof *h);
}

int vs_store_index_held_set(ix_held *h, const git_oid *id, git_odb_object *o, const uint32_t *offs,
                            size_t n)
{
    const unsigned char *d = git_odb_object_data(o);
    size_t len = git_odb_object_size(o);
    vs_store_pack_entry e;
    h->valid = 0;
    if (!h->packs || len >= UINT32_MAX)
        return 0;
    if (!offs) {
        const unsigned char *p = d, *end = d + len;
        vs_store_tree_entry te;
        n = 0;
        while (p < end) {
            const unsigned char *at = p;
            if (!vs_store_tree_next(&p, end, &te))
                return 0; /* malformed: never held */
            if (grow((void **)&h->offs, &h->offs_cap, n + 1, sizeof *h->offs) < 0)
                return -1;
            h->offs[n++] = (uint32_t)(at - d);
        }
    } else {
        if (grow((void **)&h->offs, &h->offs_cap, n, sizeof *h->offs) < 0)
            return -1;
        if (n)
            memmove(h->offs, offs, n * sizeof *offs);
    }
    h->n = n;
    git_odb_object_free(h->borrowed);
    if (git_odb_object_dup(&h->borrowed, o) < 0) {
        h->borrowed = NULL;
        return 0;
    }
    h->data = git_odb_object_data(h->borrowed);
    h->len = len;
    git_oid_cpy(&h->id, id);
    h->in_pack = vs_store_pack_find(h->packs, id->id, &e) == 1;
    h->pack = h->in_pack ? e.pack : 0;
    h->off = h->in_pack ? e.offset : 0;
    h->valid = 1;
    return 0;
}

/* Boundaries of the held tree: entry starts, then its end. */
static uint32_t bound(const ix_held *h, size_t i)
{
    return i < h->n ? h->offs[i] : (uint32_t)h->len;
}

/* The last boundary at or before x. */
static size_t bound_le(const ix_held *h, uint32_t x)
{
    size_t lo = 0, hi = h->n + 1;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (bound(h, mid) <= x)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* The first boundary at or after x. */
static size_t bound_ge(const ix_held *h, uint32_t x)
{
    size_t lo = 0, hi = h->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (bound(h, mid) < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The delta's instructions as edits of the held tree: the copies that keep
 * the base's bytes in order, and the bytes between them replaced by what the
 * other instructions write (inserts, copies out of order). 0 with *nedits,
 * -1 when the delta is not one of the held tree (a copy out of the base, a
 * result of another size), -2 when memory is short. */
static int edits_of(ix_held *h, const unsigned char *d, size_t len, size_t *nedits,
                    uint64_t *result_len)
{
    uint64_t base_size, res_size, from, size, bc = 0, rc = 0;
    size_t pos, ne = 0, ins = 0, pend_at = 0, pend = 0;
    int op;
    if (vs_store_pack_delta_sizes(d, len, &base_size, &res_size, &pos, NULL) < 0 ||
        base_size != h->len || res_size >= UINT32_MAX)
        return -1;
    for (;;) {
        op = vs_store_pack_delta_op(d, len, &pos, &from, &size, NULL);
        if (op < 0)
            return -1;
        if (op == 1 && (from > h->len || size > h->len - from))
            return -1;
        if (op == 2 || (op == 1 && from != bc && (from < bc || size < KEEP_MIN))) {
            /* new bytes: inserted, or copied from elsewhere in the base */
            if (grow((void **)&h->ins, &h->ins_cap, ins + size, 1) < 0)
                return -2;
            if (!pend)
                pend_at = ins;
            memcpy(h->ins + ins, (op == 2 ? d : h->data) + from, size);
            ins += size;
            pend += size;
            rc += size;
            continue;
        }
        if (op == 0)
            from = h->len;
        if (from > bc || pend) {
            if (grow((void **)&h->edits, &h->edits_cap, ne + 1, sizeof *h->edits) < 0)
                return -2;
            h->edits[ne].bs = (uint32_t)bc;
            h->edits[ne].be = (uint32_t)from;
            h->edits[ne].ins_at = (uint32_t)pend_at;
            h->edits[ne].ins_len = (uint32_t)pend;
            ne++;
            pend = 0;
        }
        if (op == 0)
            break;
        bc = from + size;
        rc += size;
    }
    if (rc != res_size)
        return -1;
    *nedits = ne;
    *result_len = res_size;
    return 0;
}

/* The sheets that differ between the entries of cur (the new window) and
 * par (the held one), both whole entries in git's order, into l. */
static int diff_entries(const unsigned char *a, const unsigned char *ae, const unsigned char *b,
                        const unsigned char *be, ix_touched_list *l)
{
    vs_store_tree_entry ea, eb;
    int ha = a < ae && vs_store_tree_next(&a, ae, &ea);
    int hb = b < be && vs_store_tree_next(&b, be, &eb);
    while (ha || hb) {
        int c = !ha ? 1 : !hb ? -1 : vs_store_tree_cmp(&ea, &eb);
        if (c == 0 && memcmp(ea.id, eb.id, 20) && vs_store_index_is_sheet(&ea) &&
            vs_store_index_touched_add(l, &ea, ea.id) < 0)
            return -1;
        if (c < 0 && vs_store_index_is_sheet(&ea) && vs_store_index_touched_add(l, &ea, ea.id) < 0)
            return -1;
        if (c > 0 && vs_store_index_is_sheet(&eb) && vs_store_index_touched_add(l, &eb, NULL) < 0)
            return -1;
        if (c <= 0)
            ha = a < ae && vs_store_tree_next(&a, ae, &ea);
        if (c >= 0)
            hb = b < be && vs_store_tree_next(&b, be, &eb);
    }
    return 0;
}

/* A window: the held entries [i0, i1) and what the edits [k0, k1) make of
 * them, win[w0, w0 + wlen) with nw entries at woffs[o0...]. */
typedef struct window {
    size_t i0, i1, k0, k1, w0, wlen, o0, nw;
} window;

/* The window's new bytes (edits applied to the held bytes it spans) into win
 * at w0, and their entries: 1 when they are whole entries, 0 when the last
 * runs past the window's end, -1 when memory is short. */
static int build_window(ix_held *h, window *w)
{
    uint32_t from = bound(h, w->i0), to = bound(h, w->i1), pos = from;
    size_t k, at = w->w0;
    const unsigned char *p, *end;
    vs_store_tree_entry e;
    size_t need = to - from;
    for (k = w->k0; k < w->k1; k++)
        need += h->edits[k].ins_len;
    if (grow((void **)&h->win, &h->win_cap, w->w0 + need, 1) < 0)
        return -1;
    for (k = w->k0; k < w->k1; k++) {
        const ix_edit *ed = &h->edits[k];
        memcpy(h->win + at, h->data + pos, ed->bs - pos);
        at += ed->bs - pos;
        if (ed->ins_len) /* h->ins may be NULL: no insert yet */
            memcpy(h->win + at, h->ins + ed->ins_at, ed->ins_len);
        at += ed->ins_len;
        pos = ed->be;
    }
    memcpy(h->win + at, h->data + pos, to - pos);
    at += to - pos;
    w->wlen = at - w->w0;
    w->nw = 0;
    p = h->win + w->w0;
    end = h->win + at;
    while (p < end) {
        const unsigned char *s = p;
        if (!vs_store_tree_next(&p, end, &e))
            return 0;
        if (grow((void **)&h->woffs, &h->woffs_cap, w->o0 + w->nw + 1, sizeof *h->woffs) < 0)
            return -1;
        h->woffs[w->o0 + w->nw++] = (uint32_t)(s - (h->win + w->w0));
    }
    return 1;
}

/* The held tree with the edits applied, and its entries' offsets. */
static int apply(ix_held *h, const window *wins, size_t nwin, size_t nedits, uint64_t result_len)
{
    size_t k, g, n = 0, prev = 0, old_len = h->len;
    int same = result_len == h->len, counts = 1;
    int64_t shift = 0;
    for (k = 0; k < nedits && same; k++)
        same = h->edits[k].ins_len == h->edits[k].be - h->edits[k].bs;
    for (g = 0; g < nwin; g++)
        counts &= wins[g].nw == wins[g].i1 - wins[g].i0;
    if (same) {
        if (h->borrowed) { /* the first edit: a copy of libgit2's bytes to patch */
            if (grow((void **)&h->buf, &h->buf_cap, h->len ? h->len : 1, 1) < 0)
                return -1;
            memcpy(h->buf, h->data, h->len);
            git_odb_object_free(h->borrowed);
            h->borrowed = NULL;
            h->data = h->buf;
        }
        for (k = 0; k < nedits; k++)
            if (h->edits[k].ins_len)
                memcpy(h->buf + h->edits[k].bs, h->ins + h->edits[k].ins_at, h->edits[k].ins_len);
    } else {
        uint32_t pos = 0;
        size_t at = 0, tc;
        unsigned char *t;
        if (grow((void **)&h->alt, &h->alt_cap, result_len ? result_len : 1, 1) < 0)
            return -1;
        for (k = 0; k < nedits; k++) {
            const ix_edit *ed = &h->edits[k];
            memcpy(h->alt + at, h->data + pos, ed->bs - pos);
            at += ed->bs - pos;
            if (ed->ins_len)
                memcpy(h->alt + at, h->ins + ed->ins_at, ed->ins_len);
            at += ed->ins_len;
            pos = ed->be;
        }
        memcpy(h->alt + at, h->data + pos, h->len - pos);
        git_odb_object_free(h->borrowed);
        h->borrowed = NULL;
        t = h->buf;
        h->buf = h->alt;
        h->alt = t;
        tc = h->buf_cap;
        h->buf_cap = h->alt_cap;
        h->alt_cap = tc;
        h->data = h->buf;
        h->len = (size_t)result_len;
    }
    if (same && counts) {
        for (g = 0; g < nwin; g++)
            for (k = 0; k < wins[g].nw; k++)
                h->offs[wins[g].i0 + k] = bound(h, wins[g].i0) + h->woffs[wins[g].o0 + k];
        return 0;
    }
    /* entries moved: the offsets anew, the unchanged ones shifted */
    {
        size_t total = h->n, tc;
        uint32_t *t;
#define OLDB(i) ((int64_t)((i) < h->n ? h->offs[i] : old_len))
        for (g = 0; g < nwin; g++)
            total = total - (wins[g].i1 - wins[g].i0) + wins[g].nw;
        if (grow((void **)&h->offs_alt, &h->offs_alt_cap, total ? total : 1, sizeof *h->offs_alt) <
            0)
            return -1;
        for (g = 0; g < nwin; g++) {
            int64_t ws = OLDB(wins[g].i0) + shift;
            for (; prev < wins[g].i0; prev++)
                h->offs_alt[n++] = (uint32_t)((int64_t)h->offs[prev] + shift);
            for (k = 0; k < wins[g].nw; k++)
                h->offs_alt[n++] = (uint32_t)(ws + h->woffs[wins[g].o0 + k]);
            shift += (int64_t)wins[g].wlen - (OLDB(wins[g].i1) - OLDB(wins[g].i0));
            prev = wins[g].i1;
        }
        for (; prev < h->n; prev++)
            h->offs_alt[n++] = (uint32_t)((int64_t)h->offs[prev] + shift);
#undef OLDB
        t = h->offs;
        h->offs = h->offs_alt;
        h->offs_alt = t;
        tc = h->offs_cap;
        h->offs_cap = h->offs_alt_cap;
        h->offs_alt_cap = tc;
        h->n = n;
    }
    return 0;
}

int vs_store_index_held_advance(ix_held *h, const git_oid *id, ix_touched_list *l)
{
    vs_store_pack_entry e;
    size_t nedits = 0, k = 0, nwin = 0, wcap = 0, prev_j = 0, l0 = l->n;
    uint64_t result_len = 0;
    window *wins = NULL;
    int rc;
    if (!h->valid || !h->packs || vs_store_pack_find(h->packs, id->id, &e) != 1)
        goto miss;
    if (e.type == VS_STORE_PACK_OFS_DELTA) {
        if (!h->in_pack || e.pack != h->pack || e.base_offset != h->off)
            goto miss;
    } else if (e.type != VS_STORE_PACK_REF_DELTA || memcmp(e.base_id, h->id.id, 20)) {
        goto miss;
    }
    if (e.size > DELTA_MAX || grow((void **)&h->delta, &h->delta_cap, e.size ? e.size : 1, 1) < 0)
        goto miss;
    if (vs_store_pack_inflate(h->packs, &e, h->delta, DELTA_MAX, NULL) < 0)
        goto miss;
    if ((rc = edits_of(h, h->delta, (size_t)e.size, &nedits, &result_len)) == -2)
        goto oom;
    if (rc < 0)
        goto miss;
    /* windows: the whole entries each run of edits touches, widened until
     * the new bytes are whole entries too */
    while (k < nedits) {
        window w;
        memset(&w, 0, sizeof w);
        w.i0 = bound_le(h, h->edits[k].bs);
        if (w.i0 < prev_j)
            w.i0 = prev_j;
        w.i1 = bound_ge(h, h->edits[k].be);
        w.k0 = k;
        w.k1 = k;
        w.w0 = nwin ? wins[nwin - 1].w0 + wins[nwin - 1].wlen : 0;
        w.o0 = nwin ? wins[nwin - 1].o0 + wins[nwin - 1].nw : 0;
        for (;;) {
            while (w.k1 < nedits && (w.k1 == k || h->edits[w.k1].bs < bound(h, w.i1))) {
                size_t j = bound_ge(h, h->edits[w.k1].be);
                if (j > w.i1)
                    w.i1 = j;
                w.k1++;
            }
            if ((rc = build_window(h, &w)) < 0)
                goto oom;
            if (rc == 1)
                break;
            if (w.i1 >= h->n)
                goto miss; /* the new tree is malformed: libgit2 says so */
            w.i1++;
        }
        if (diff_entries(h->win + w.w0, h->win + w.w0 + w.wlen, h->data + bound(h, w.i0),
                         h->data + bound(h, w.i1), l) < 0)
            goto oom;
        if (grow((void **)&wins, &wcap, nwin + 1, sizeof *wins) < 0)
            goto oom;
        wins[nwin++] = w;
        prev_j = w.i1;
        k = w.k1;
    }
    if (apply(h, wins, nwin, nedits, result_len) < 0) {
        h->valid = 0; /* half patched */
        goto oom;
    }
    git_oid_cpy(&h->id, id);
    h->in_pack = 1;
    h->pack = e.pack;
    h->off = e.offset;
    h->advanced++;
    free(wins);
    return 1;
miss:
    free(wins);
    l->n = l0;
    h->missed++;
    return 0;
oom:
    free(wins);
    l->n = l0;
    return -1;
}
