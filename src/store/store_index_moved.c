/* store_index_moved.c — the sheets whose folder moved between two tips of the
 * revision index: index.heads before and after a sync, compared by id.
 *
 * Why: after a pull the work tree and the git index follow only the sheets
 * that changed. A comparison of the two commits' sheets/ trees reads and parses
 * both (10,000 entries each at 10,000 sheets); the heads already hold each
 * sheet's folder at the tip they were written for, sorted by id. A heads file
 * is replaced whole by a rename: the one mapped before a sync stays readable
 * after it. */
#include "store/store_index_internal.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int vs_store_index_snap_take(vs_store *st, const git_oid *tip, vs_store_index_snap *s)
{
    char p[4096];
    struct stat sb;
    const ix_heads_hdr *h;
    int fd;
    memset(s, 0, sizeof *s);
    if (!st->repo)
        return 0;
    vs_store_index_path(st, "index.heads", p, sizeof p);
    if ((fd = open(p, O_RDONLY | O_CLOEXEC)) < 0)
        return 0;
    if (fstat(fd, &sb) == 0 && (size_t)sb.st_size >= sizeof(ix_heads_hdr)) {
        s->size = (size_t)sb.st_size;
        s->base = mmap(NULL, s->size, PROT_READ, MAP_SHARED, fd, 0);
        if (s->base == MAP_FAILED)
            s->base = NULL;
    }
    close(fd);
    if (!s->base)
        return 0;
    h = s->base;
    if (memcmp(h->magic, IX_HEADS_MAGIC, 8) ||
        h->nsheets > (s->size - sizeof(ix_heads_hdr)) / sizeof(ix_head) || !h->has_tip ||
        memcmp(h->tip, tip->id, 20)) {
        vs_store_index_snap_free(s);
        return 0;
    }
    return 1;
}

void vs_store_index_snap_free(vs_store_index_snap *s)
{
    if (s->base)
        munmap(s->base, s->size);
    memset(s, 0, sizeof *s);
}

static const ix_head *snap_heads(const vs_store_index_snap *s, size_t *n)
{
    *n = (size_t)((const ix_heads_hdr *)s->base)->nsheets;
    return (const ix_head *)((const char *)s->base + sizeof(ix_heads_hdr));
}

static int push_moved(vs_store_index_moved **v, size_t *n, size_t *cap, const ix_head *a,
                      const ix_head *b)
{
    vs_store_index_moved *m;
    int had = a && a->present, has = b && b->present;
    if (!had && !has)
        return 0;
    if (had && has && !memcmp(a->folder, b->folder, 20))
        return 0;
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        if (!(m = realloc(*v, nc * sizeof *m)))
            return -1;
        *v = m;
        *cap = nc;
    }
    m = &(*v)[(*n)++];
    memset(m, 0, sizeof *m);
    memcpy(m->id, (a ? a : b)->id, VS_SHEET_ID_MAX);
    m->id[VS_SHEET_ID_MAX - 1] = '\0';
    if ((m->had = had))
        git_oid_fromraw(&m->before, a->folder);
    if ((m->has = has))
        git_oid_fromraw(&m->after, b->folder);
    return 0;
}

int vs_store_index_moved_sheets(const vs_store_index_snap *before, const vs_store_index_snap *after,
                                vs_store_index_moved **out, size_t *n, vs_error *err)
{
    size_t na, nb, i = 0, j = 0, cap = 0;
    const ix_head *a = snap_heads(before, &na), *b = snap_heads(after, &nb);
    vs_store_index_moved *v = NULL;
    int rc = 0;
    *out = NULL;
    *n = 0;
    /* both sorted by id (write_heads): one merge walk */
    while (rc == 0 && (i < na || j < nb)) {
        int c = i == na ? 1 : j == nb ? -1 : strncmp(a[i].id, b[j].id, VS_SHEET_ID_MAX);
        if (c < 0)
            rc = push_moved(&v, n, &cap, &a[i++], NULL);
        else if (c > 0)
            rc = push_moved(&v, n, &cap, NULL, &b[j++]);
        else
            rc = push_moved(&v, n, &cap, &a[i++], &b[j++]);
    }
    if (rc < 0) {
        free(v);
        *n = 0;
        return vs_error_oom(err);
    }
    *out = v;
    return 0;
}
