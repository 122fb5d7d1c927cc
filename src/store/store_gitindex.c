/* store_gitindex.c — the git index file read and patched in place (the
 * layout of git's Documentation/gitformat-index.txt, versions 2 and 3): why,
 * and what is left to libgit2, in store_gitindex.h. */
#include "store/store_gitindex.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ENTRY_FIXED 62 /* 10 times 32 bits of stat data, the id, 16 bits of flags */
#define FLAG_EXTENDED 0x4000
#define FLAG_STAGE 0x3000
#define FLAG_NAMELEN 0x0fff
#define TREE_DEPTH_MAX 64

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

typedef struct entry {
    const char *name;
    size_t namelen, size;
    int stage;
} entry;

/* The entry at off (its bounds checked against end): 0, or 1 when it is not
 * one this file reads. */
static int entry_at(const vs_store_gitindex *gi, size_t off, size_t end, entry *e)
{
    const unsigned char *p = gi->data + off;
    unsigned flags;
    size_t fixed;
    if (off + ENTRY_FIXED > end)
        return 1;
    flags = (unsigned)p[60] << 8 | p[61];
    if ((flags & FLAG_EXTENDED) && gi->version < 3)
        return 1;
    fixed = ENTRY_FIXED + ((flags & FLAG_EXTENDED) ? 2 : 0);
    if (off + fixed >= end)
        return 1;
    e->name = (const char *)p + fixed;
    e->namelen = flags & FLAG_NAMELEN;
    if (e->namelen == FLAG_NAMELEN) {
        const char *nul = memchr(e->name, '\0', end - off - fixed);
        if (!nul)
            return 1;
        e->namelen = (size_t)(nul - e->name);
    }
    /* the name, then 1 to 8 NULs to a multiple of 8 bytes */
    e->size = (fixed + e->namelen + 8) & ~(size_t)7;
    if (off + e->size > end || e->name[e->namelen] != '\0')
        return 1;
    e->stage = (int)((flags & FLAG_STAGE) >> 12);
    return 0;
}

int vs_store_gitindex_load(vs_store_gitindex *gi, const char *path)
{
    struct stat sb;
    size_t off, end, got = 0;
    uint32_t i;
    int fd;
    memset(gi, 0, sizeof *gi);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return errno == ENOENT ? 1 : -1;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size < 12 + 20 ||
        !(gi->data = malloc((size_t)sb.st_size))) {
        close(fd);
        return gi->data || sb.st_size < 12 + 20 ? 1 : -1;
    }
    gi->len = (size_t)sb.st_size;
    while (got < gi->len) {
        ssize_t r = read(fd, gi->data + got, gi->len - got);
        if (r <= 0) {
            close(fd);
            vs_store_gitindex_free(gi);
            return 1; /* shorter than it said: being replaced, let libgit2 judge */
        }
        got += (size_t)r;
    }
    close(fd);
    gi->version = be32(gi->data + 4);
    gi->count = be32(gi->data + 8);
    if (memcmp(gi->data, "DIRC", 4) != 0 || (gi->version != 2 && gi->version != 3))
        goto unread;
    end = gi->len - 20;
    for (off = 12, i = 0; i < gi->count; i++) {
        entry e;
        if (entry_at(gi, off, end, &e))
            goto unread;
        off += e.size;
    }
    gi->entries_end = off;
    while (off < end) {
        uint32_t size;
        if (off + 8 > end || gi->data[off] < 'A' || gi->data[off] > 'Z')
            goto unread; /* a required extension */
        size = be32(gi->data + off + 4);
        if (size > end - off - 8)
            goto unread;
        off += 8 + (size_t)size;
    }
    return 0;
unread:
    vs_store_gitindex_free(gi);
    return 1;
}

void vs_store_gitindex_free(vs_store_gitindex *gi)
{
    free(gi->data);
    memset(gi, 0, sizeof *gi);
}

/* git's order of entries: the names' bytes, then the shorter first. */
static int name_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
    int c = memcmp(a, b, alen < blen ? alen : blen);
    return c ? c : (alen > blen) - (alen < blen);
}

int vs_store_gitindex_find(const vs_store_gitindex *gi, const char *path, git_oid *id,
                           uint32_t *mode)
{
    size_t off = 12, plen = strlen(path);
    uint32_t i;
    for (i = 0; i < gi->count; i++) {
        entry e;
        int c;
        if (entry_at(gi, off, gi->entries_end, &e))
            return 0;
        c = name_cmp(e.name, e.namelen, path, plen);
        if (c > 0)
            return 0;
        if (c == 0 && e.stage == 0) {
            git_oid_fromraw(id, gi->data + off + 40);
            *mode = be32(gi->data + off + 24);
            return 1;
        }
        off += e.size;
    }
    return 0;
}

static size_t put_entry(unsigned char *o, const vs_store_gitindex_change *c)
{
    size_t plen = strlen(c->path), size = (ENTRY_FIXED + plen + 8) & ~(size_t)7;
    memset(o, 0, size);
    /* stat data as git keeps it: each field cut to 32 bits */
    put32(o, (uint32_t)c->st.st_ctim.tv_sec);
    put32(o + 4, (uint32_t)c->st.st_ctim.tv_nsec);
    put32(o + 8, (uint32_t)c->st.st_mtim.tv_sec);
    put32(o + 12, (uint32_t)c->st.st_mtim.tv_nsec);
    put32(o + 16, (uint32_t)c->st.st_dev);
    put32(o + 20, (uint32_t)c->st.st_ino);
    put32(o + 24, c->mode);
    put32(o + 28, (uint32_t)c->st.st_uid);
    put32(o + 32, (uint32_t)c->st.st_gid);
    put32(o + 36, (uint32_t)c->st.st_size);
    memcpy(o + 40, c->id.id, 20);
    o[60] = (unsigned char)((plen < FLAG_NAMELEN ? plen : FLAG_NAMELEN) >> 8);
    o[61] = (unsigned char)(plen < FLAG_NAMELEN ? plen : FLAG_NAMELEN);
    memcpy(o + ENTRY_FIXED, c->path, plen);
    return size;
}

/* 1 when the folder dir (length dlen, "" the root) holds a changed path. */
static int holds_change(const char *dir, size_t dlen, const vs_store_gitindex_change *ch, size_t n)
{
    size_t i;
    if (dlen == 0)
        return 1;
    for (i = 0; i < n; i++)
        if (strlen(ch[i].path) > dlen && !memcmp(ch[i].path, dir, dlen) && ch[i].path[dlen] == '/')
            return 1;
    return 0;
}

/* One node of the cache of trees (its name, "COUNT SUBTREES\n", its tree id
 * when COUNT is not -1, then its subtrees), copied to o with the folders that
 * hold a changed path made invalid ("-1", no id), as git does when it changes
 * an entry. 0, or 1 when the extension is not as the format says. */
static int tree_node(const unsigned char *d, size_t len, size_t *pos, char *dir, size_t dlen,
                     int depth, const vs_store_gitindex_change *ch, size_t n, unsigned char *o,
                     size_t *opos)
{
    const unsigned char *nul, *nl;
    char counts[48], *sp;
    long count, subtrees, k;
    size_t nlen, clen, sub = dlen;
    if (depth > TREE_DEPTH_MAX || *pos >= len || !(nul = memchr(d + *pos, '\0', len - *pos)))
        return 1;
    nlen = (size_t)(nul - (d + *pos));
    if (!(nl = memchr(nul + 1, '\n', len - (size_t)(nul + 1 - d))) ||
        (clen = (size_t)(nl - (nul + 1))) >= sizeof counts)
        return 1;
    memcpy(counts, nul + 1, clen);
    counts[clen] = '\0';
    count = strtol(counts, &sp, 10);
    if (*sp != ' ' || (subtrees = strtol(sp + 1, NULL, 10)) < 0 || subtrees > 1 << 20)
        return 1;
    if (depth > 0) { /* the root's name is "" */
        if (dlen + nlen + 2 > 4096)
            return 1;
        if (dlen)
            dir[sub++] = '/';
        memcpy(dir + sub, d + *pos, nlen);
        sub += nlen;
    }
    memcpy(o + *opos, d + *pos, nlen + 1);
    *opos += nlen + 1;
    *pos = (size_t)(nl + 1 - d);
    if (count >= 0) {
        if (*pos + 20 > len)
            return 1;
        *pos += 20;
    }
    if (holds_change(dir, sub, ch, n)) {
        *opos += (size_t)sprintf((char *)o + *opos, "-1 %ld\n", subtrees);
    } else {
        memcpy(o + *opos, counts, clen);
        o[*opos + clen] = '\n';
        *opos += clen + 1;
        if (count >= 0) {
            memcpy(o + *opos, d + *pos - 20, 20);
            *opos += 20;
        }
    }
    for (k = 0; k < subtrees; k++)
        if (tree_node(d, len, pos, dir, sub, depth + 1, ch, n, o, opos))
            return 1;
    return 0;
}

int vs_store_gitindex_patch(const vs_store_gitindex *gi, const vs_store_gitindex_change *ch,
                            size_t n, unsigned char **out, size_t *outlen)
{
    size_t cap = gi->len + 64, off = 12, o = 12, c = 0, i, ext, count = 0;
    unsigned char *b;
    uint32_t k;
    for (i = 0; i < n; i++)
        cap += ENTRY_FIXED + strlen(ch[i].path) + 8 + 4;
    if (!(b = malloc(cap)))
        return -1;
    memcpy(b, gi->data, 12);
    for (k = 0; k < gi->count; k++) {
        entry e;
        int cmp = 1;
        if (entry_at(gi, off, gi->entries_end, &e))
            goto conflict; /* checked at load: cannot happen */
        /* a path changed just before, again at another stage: a conflict */
        if (c > 0 && !name_cmp(ch[c - 1].path, strlen(ch[c - 1].path), e.name, e.namelen))
            goto conflict;
        while (c < n && (cmp = name_cmp(ch[c].path, strlen(ch[c].path), e.name, e.namelen)) < 0) {
            if (ch[c].has) {
                o += put_entry(b + o, &ch[c]);
                count++;
            }
            c++;
        }
        if (c < n && cmp == 0) {
            if (e.stage != 0)
                goto conflict;
            if (ch[c].has) {
                o += put_entry(b + o, &ch[c]);
                count++;
            }
            c++;
        } else {
            memcpy(b + o, gi->data + off, e.size);
            o += e.size;
            count++;
        }
        off += e.size;
    }
    for (; c < n; c++)
        if (ch[c].has) {
            o += put_entry(b + o, &ch[c]);
            count++;
        }
    put32(b + 8, (uint32_t)count);
    /* the extensions: the cache of trees made invalid along the changed paths;
     * the resolved conflicts kept; the others (offset tables, caches of
     * untracked files, a file-system monitor's token) dropped, as the format
     * allows for an optional extension */
    for (ext = gi->entries_end; ext < gi->len - 20;) {
        const unsigned char *d = gi->data + ext + 8;
        uint32_t size = be32(gi->data + ext + 4);
        if (!memcmp(gi->data + ext, "TREE", 4)) {
            char dir[4096];
            size_t pos = 0, start = o;
            memcpy(b + o, "TREE", 4);
            o += 8;
            while (pos < size)
                if (tree_node(d, size, &pos, dir, 0, 0, ch, n, b, &o)) {
                    o = start; /* not as the format says: left out, git builds it again */
                    break;
                }
            if (o != start)
                put32(b + start + 4, (uint32_t)(o - start - 8));
        } else if (!memcmp(gi->data + ext, "REUC", 4)) {
            memcpy(b + o, gi->data + ext, 8 + (size_t)size);
            o += 8 + (size_t)size;
        }
        ext += 8 + (size_t)size;
    }
    vs_store_sha1(b, o, b + o);
    *out = b;
    *outlen = o + 20;
    return 0;
conflict:
    free(b);
    return 1;
}
