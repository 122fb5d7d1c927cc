/* store_index_shallow.c — a shallow clone for the revision index: its
 * boundary commits (<gitdir>/shallow), and the walk of the history that stops
 * there (a boundary commit counts as a root). */
#include "store/store_index_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* --- a shallow clone's walk --- */

int vs_store_shallow_has(const git_oid *shallow, size_t n, const git_oid *c)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int r = git_oid_cmp(&shallow[mid], c);
        if (!r)
            return 1;
        if (r < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

int vs_store_is_shallow(vs_store *st)
{
    char p[4096];
    struct stat sb;
    snprintf(p, sizeof p, "%sshallow", git_repository_path(st->repo));
    return stat(p, &sb) == 0 && sb.st_size > 0;
}

int vs_store_shallow_read(vs_store *st, git_oid **out, size_t *n)
{
    char p[4096], line[128];
    FILE *f;
    size_t cap = 0;
    *out = NULL;
    *n = 0;
    snprintf(p, sizeof p, "%sshallow", git_repository_path(st->repo));
    if (!(f = fopen(p, "r")))
        return 0;
    while (fgets(line, sizeof line, f)) {
        git_oid o;
        if (strlen(line) < 40 || (line[40] = '\0', git_oid_fromstr(&o, line) < 0))
            continue;
        if (*n == cap) {
            git_oid *nv = realloc(*out, (cap = cap ? cap * 2 : 16) * sizeof *nv);
            if (!nv) {
                fclose(f);
                return -1;
            }
            *out = nv;
        }
        git_oid_cpy(&(*out)[(*n)++], &o);
    }
    fclose(f);
    if (*n)
        qsort(*out, *n, sizeof **out, (int (*)(const void *, const void *))git_oid_cmp);
    return 0;
}

typedef struct oid_set {
    git_oid *v;
    size_t n, cap;
} oid_set;

static int oids_push(oid_set *s, const git_oid *o)
{
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 1024;
        git_oid *nv = realloc(s->v, nc * sizeof *nv);
        if (!nv)
            return -1;
        s->v = nv;
        s->cap = nc;
    }
    git_oid_cpy(&s->v[s->n++], o);
    return 0;
}

/* The commits seen: open addressing on the id's first bytes. */
typedef struct oid_hash {
    git_oid *v;
    unsigned char *used;
    size_t n, cap;
} oid_hash;

static size_t oid_slot(const oid_hash *h, const git_oid *o)
{
    size_t k;
    memcpy(&k, o->id, sizeof k);
    k &= h->cap - 1;
    while (h->used[k] && !git_oid_equal(&h->v[k], o))
        k = (k + 1) & (h->cap - 1);
    return k;
}

/* 1 when o was already there, 0 added, -1 out of memory. */
static int oid_hash_add(oid_hash *h, const git_oid *o)
{
    size_t k;
    if ((h->n + 1) * 2 > h->cap) {
        oid_hash g = {0};
        size_t i;
        g.cap = h->cap ? h->cap * 2 : 1024;
        if (!(g.v = malloc(g.cap * sizeof *g.v)) || !(g.used = calloc(g.cap, 1))) {
            free(g.v);
            return -1;
        }
        for (i = 0; i < h->cap; i++)
            if (h->used[i]) {
                k = oid_slot(&g, &h->v[i]);
                g.used[k] = 1;
                git_oid_cpy(&g.v[k], &h->v[i]);
            }
        g.n = h->n;
        free(h->v);
        free(h->used);
        *h = g;
    }
    k = oid_slot(h, o);
    if (h->used[k])
        return 1;
    h->used[k] = 1;
    git_oid_cpy(&h->v[k], o);
    h->n++;
    return 0;
}

/* Depth first from tip, a commit emitted after its parents (a topological
 * order, oldest first). */
int vs_store_index_walk_shallow(git_repository *repo, const git_oid *tip, const git_oid *shallow,
                                size_t n_shallow, git_oid **out, size_t *n, vs_error *err)
{
    typedef struct frame {
        git_oid id;
        unsigned next;
    } frame;
    frame *stack = NULL;
    size_t depth = 0, cap = 64;
    oid_set order = {0};
    oid_hash seen = {0};
    int rc = 0;
    *out = NULL;
    *n = 0;
    if (!(stack = malloc(cap * sizeof *stack)) || oid_hash_add(&seen, tip) < 0) {
        rc = vs_error_oom(err);
        goto done;
    }
    git_oid_cpy(&stack[0].id, tip);
    stack[0].next = 0;
    depth = 1;
    while (depth) {
        frame *fr = &stack[depth - 1];
        git_commit *c = NULL;
        unsigned np;
        int added = 1;
        git_oid p;
        if (git_commit_lookup(&c, repo, &fr->id) < 0) {
            rc = vs_store_gfail(err, VS_ERECORDS, "cannot read a commit of the history");
            goto done;
        }
        np = vs_store_shallow_has(shallow, n_shallow, &fr->id) ? 0 : git_commit_parentcount(c);
        while (fr->next < np) {
            git_oid_cpy(&p, git_commit_parent_id(c, fr->next++));
            if ((added = oid_hash_add(&seen, &p)) <= 0)
                break;
        }
        git_commit_free(c);
        if (added < 0) {
            rc = vs_error_oom(err);
            goto done;
        }
        if (added == 0) {
            if (depth == cap) {
                frame *ns = realloc(stack, cap * 2 * sizeof *ns);
                if (!ns) {
                    rc = vs_error_oom(err);
                    goto done;
                }
                stack = ns;
                cap *= 2;
            }
            git_oid_cpy(&stack[depth].id, &p);
            stack[depth].next = 0;
            depth++;
            continue;
        }
        if (oids_push(&order, &fr->id) < 0) {
            rc = vs_error_oom(err);
            goto done;
        }
        depth--;
    }
    *out = order.v;
    *n = order.n;
    order.v = NULL;
done:
    free(order.v);
    free(seen.v);
    free(seen.used);
    free(stack);
    return rc;
}
