/* store_pack.c — pack indexes and pack entries, read from mapped files
 * (git's Documentation/gitformat-pack.txt, v2.39: "Version 2 pack-*.idx
 * files", "pack-*.pack files", "Deltified representation"). */
#include "store/store_pack.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/inflate.h"

typedef struct one_pack {
    const unsigned char *idx;
    const unsigned char *pack; /* given as bytes; else read from fd */
    int fd;
    size_t idx_len, pack_len;
    uint32_t n;                 /* objects */
    const unsigned char *ids;   /* n × 20 */
    const unsigned char *off32; /* n × 4 */
    const unsigned char *off64; /* n64 × 8 */
    size_t n64;
    int mapped; /* 1: idx is this module's mapping, fd its to close */
} one_pack;

struct vs_store_pack {
    one_pack *v;
    unsigned n, cap;
};

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Up to len bytes of the pack at off (never its trailer): how many. The
 * pack is read, not mapped: a build of the index reads one small delta in
 * each few hundred kilobytes of it, and a mapping would count every page it
 * touched as the process's memory. */
static size_t read_at(const one_pack *o, uint64_t off, unsigned char *buf, size_t len)
{
    size_t end = o->pack_len - 20, got = 0;
    if (off >= end)
        return 0;
    if (len > end - off)
        len = (size_t)(end - off);
    if (o->pack) {
        memcpy(buf, o->pack + off, len);
        return len;
    }
    while (got < len) {
        ssize_t r = pread(o->fd, buf + got, len - got, (off_t)(off + got));
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    return got;
}

int vs_store_pack_new(vs_store_pack **out, vs_error *err)
{
    *out = calloc(1, sizeof **out);
    return *out ? 0 : vs_error_oom(err);
}

void vs_store_pack_free(vs_store_pack *p)
{
    unsigned i;
    if (!p)
        return;
    for (i = 0; i < p->n; i++)
        if (p->v[i].mapped) {
            munmap((void *)p->v[i].idx, p->v[i].idx_len);
            close(p->v[i].fd);
        }
    free(p->v);
    free(p);
}

/* An index's tables: the fan-out's counts never go down, the ids are sorted
 * (each lookup compares them anyway: not checked here), the large offsets'
 * table is whole. */
static int parse(one_pack *o, vs_error *err)
{
    unsigned char head[12];
    uint64_t need;
    uint32_t i, prev = 0;
    if (o->idx_len < 8 + 1024 + 40 || memcmp(o->idx, "\377tOc", 4) || be32(o->idx + 4) != 2)
        return vs_error_set(err, VS_EFORMAT, "not a version-2 pack index");
    for (i = 0; i < 256; i++) {
        uint32_t c = be32(o->idx + 8 + 4 * i);
        if (c < prev)
            return vs_error_set(err, VS_EFORMAT, "a pack index whose fan-out goes down");
        prev = c;
    }
    o->n = prev;
    need = 8 + 1024 + (uint64_t)o->n * 28 + 40;
    if (need > o->idx_len || (o->idx_len - need) % 8)
        return vs_error_set(err, VS_EFORMAT, "a pack index of the wrong size");
    o->ids = o->idx + 8 + 1024;
    o->off32 = o->ids + (size_t)o->n * 24; /* past the ids and the CRCs */
    o->off64 = o->off32 + (size_t)o->n * 4;
    o->n64 = (o->idx_len - need) / 8;
    if (o->pack_len < 12 + 20 || read_at(o, 0, head, 12) != 12 || memcmp(head, "PACK", 4) ||
        (be32(head + 4) != 2 && be32(head + 4) != 3) || be32(head + 8) != o->n)
        return vs_error_set(err, VS_EFORMAT, "not a pack of this index");
    return 0;
}

static int push(vs_store_pack *p, const one_pack *o, vs_error *err)
{
    if (p->n == p->cap) {
        unsigned nc = p->cap ? p->cap * 2 : 4;
        one_pack *nv = realloc(p->v, nc * sizeof *nv);
        if (!nv)
            return vs_error_oom(err);
        p->v = nv;
        p->cap = nc;
    }
    p->v[p->n++] = *o;
    return 0;
}

int vs_store_pack_add(vs_store_pack *p, const unsigned char *idx, size_t idx_len,
                      const unsigned char *pack, size_t pack_len, vs_error *err)
{
    one_pack o;
    int rc;
    memset(&o, 0, sizeof o);
    o.fd = -1;
    o.idx = idx;
    o.idx_len = idx_len;
    o.pack = pack;
    o.pack_len = pack_len;
    if ((rc = parse(&o, err)) < 0)
        return rc;
    return push(p, &o, err);
}

static const unsigned char *map_file(const char *path, size_t *len)
{
    struct stat sb;
    void *m;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) || sb.st_size <= 0) {
        close(fd);
        return NULL;
    }
    m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED)
        return NULL;
    *len = (size_t)sb.st_size;
    return m;
}

int vs_store_pack_open_dir(vs_store_pack *p, const char *dir, vs_error *err)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    int rc = 0;
    if (!d)
        return 0; /* no packs: every object is libgit2's */
    while (rc == 0 && (de = readdir(d)) != NULL) {
        size_t nl = strlen(de->d_name);
        char path[4096];
        struct stat sb;
        one_pack o;
        if (nl < 5 || strcmp(de->d_name + nl - 4, ".idx") ||
            (size_t)snprintf(path, sizeof path, "%s/%.*s.pack", dir, (int)(nl - 4), de->d_name) >=
                sizeof path)
            continue;
        memset(&o, 0, sizeof o);
        o.mapped = 1;
        if ((o.fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
            continue;
        if (fstat(o.fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
            close(o.fd);
            continue;
        }
        o.pack_len = (size_t)sb.st_size;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (!(o.idx = map_file(path, &o.idx_len)) || parse(&o, NULL) < 0) {
            if (o.idx)
                munmap((void *)o.idx, o.idx_len);
            close(o.fd);
            continue;
        }
        if ((rc = push(p, &o, err)) < 0) {
            munmap((void *)o.idx, o.idx_len);
            close(o.fd);
        }
    }
    closedir(d);
    return rc;
}

uint64_t vs_store_pack_count(const vs_store_pack *p)
{
    uint64_t n = 0;
    unsigned i;
    for (i = 0; i < p->n; i++)
        n += p->v[i].n;
    return n;
}

unsigned vs_store_pack_npacks(const vs_store_pack *p)
{
    return p->n;
}

int vs_store_pack_id_at(const vs_store_pack *p, unsigned k, uint64_t n, unsigned char id[20])
{
    if (k >= p->n || n >= p->v[k].n)
        return VS_ENOTFOUND;
    memcpy(id, p->v[k].ids + 20 * n, 20);
    return 0;
}

/* The offset of the n-th object of o: VS_EFORMAT past the pack's end. */
static int offset_of(const one_pack *o, uint32_t n, uint64_t *out)
{
    uint32_t v = be32(o->off32 + 4 * (size_t)n);
    uint64_t off = v;
    if (v & 0x80000000u) {
        size_t k = v & 0x7fffffffu;
        if (k >= o->n64)
            return VS_EFORMAT;
        off = (uint64_t)be32(o->off64 + 8 * k) << 32 | be32(o->off64 + 8 * k + 4);
    }
    if (off < 12 || off >= o->pack_len - 20)
        return VS_EFORMAT;
    *out = off;
    return 0;
}

int vs_store_pack_entry_at(const vs_store_pack *p, unsigned k, uint64_t offset,
                           vs_store_pack_entry *e, vs_error *err)
{
    const one_pack *o;
    unsigned char head[32]; /* a size of 64 bits and a base's offset or id fit */
    const unsigned char *s, *end;
    uint64_t size;
    unsigned shift = 4;
    if (k >= p->n)
        return vs_error_set(err, VS_EFORMAT, "no such pack");
    o = &p->v[k];
    if (offset < 12 || offset >= o->pack_len - 20)
        return vs_error_set(err, VS_EFORMAT, "an entry outside its pack");
    s = head;
    end = head + read_at(o, offset, head, sizeof head);
    if (s == end)
        return vs_error_set(err, VS_EFORMAT, "an entry that cannot be read");
    memset(e, 0, sizeof *e);
    e->pack = k;
    e->offset = offset;
    e->type = (*s >> 4) & 7;
    size = *s & 15;
    while (*s++ & 0x80) {
        if (s == end || shift > 57)
            return vs_error_set(err, VS_EFORMAT, "an entry's size runs past its pack");
        size |= (uint64_t)(*s & 0x7f) << shift;
        shift += 7;
    }
    e->size = size;
    if (e->type == VS_STORE_PACK_OFS_DELTA) {
        /* big-endian groups of 7 bits, one added per group after the first */
        uint64_t rel;
        if (s == end)
            return vs_error_set(err, VS_EFORMAT, "a delta without its base");
        rel = *s & 0x7f;
        while (*s++ & 0x80) {
            if (s == end || rel > (UINT64_MAX >> 8))
                return vs_error_set(err, VS_EFORMAT, "a delta's base offset runs past its pack");
            rel = ((rel + 1) << 7) | (*s & 0x7f);
        }
        if (rel == 0 || rel > offset)
            return vs_error_set(err, VS_EFORMAT, "a delta's base outside its pack");
        e->base_offset = offset - rel;
    } else if (e->type == VS_STORE_PACK_REF_DELTA) {
        if ((size_t)(end - s) < 20)
            return vs_error_set(err, VS_EFORMAT, "a delta without its base");
        memcpy(e->base_id, s, 20);
        s += 20;
    } else if (e->type == 0 || e->type == 5) {
        return vs_error_set(err, VS_EFORMAT, "an entry of type %d", e->type);
    }
    e->data_at = offset + (uint64_t)(s - head);
    return 0;
}

int vs_store_pack_find(const vs_store_pack *p, const unsigned char id[20], vs_store_pack_entry *e)
{
    unsigned k;
    for (k = 0; k < p->n; k++) {
        const one_pack *o = &p->v[k];
        uint32_t lo = id[0] ? be32(o->idx + 8 + 4 * (id[0] - 1)) : 0;
        uint32_t hi = be32(o->idx + 8 + 4 * id[0]);
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            int c = memcmp(o->ids + 20 * (size_t)mid, id, 20);
            uint64_t off;
            if (c == 0) {
                if (offset_of(o, mid, &off) < 0 || vs_store_pack_entry_at(p, k, off, e, NULL) < 0)
                    return VS_EFORMAT;
                return 1;
            }
            if (c < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
    }
    return 0;
}

int vs_store_pack_inflate(const vs_store_pack *p, const vs_store_pack_entry *e, unsigned char *out,
                          size_t max, vs_error *err)
{
    const one_pack *o;
    unsigned char *in;
    size_t want, got;
    int rc;
    if (e->pack >= p->n || e->size > max)
        return vs_error_set(err, VS_EFORMAT, "an entry too large to read here");
    o = &p->v[e->pack];
    if (o->pack) /* bytes: inflated where they are */
        return vs_inflate_zlib(o->pack + e->data_at, o->pack_len - 20 - e->data_at, out,
                               (size_t)e->size, err);
    /* deflate's largest expansion: 5 bytes per stored block of 64 KiB, the
     * zlib header and checksum */
    want = (size_t)e->size + 5 * ((size_t)e->size / 65535 + 1) + 6;
    if (!(in = malloc(want)))
        return vs_error_oom(err);
    got = read_at(o, e->data_at, in, want);
    rc = vs_inflate_zlib(in, got, out, (size_t)e->size, err);
    free(in);
    return rc;
}

/* A delta's size: little-endian groups of 7 bits. */
static int varint(const unsigned char *d, size_t len, size_t *pos, uint64_t *out)
{
    uint64_t v = 0;
    unsigned shift = 0;
    unsigned char c;
    do {
        if (*pos == len || shift > 63)
            return -1;
        c = d[(*pos)++];
        v |= (uint64_t)(c & 0x7f) << shift;
        shift += 7;
    } while (c & 0x80);
    *out = v;
    return 0;
}

int vs_store_pack_delta_sizes(const unsigned char *d, size_t len, uint64_t *base_size,
                              uint64_t *result_size, size_t *ops_at, vs_error *err)
{
    size_t pos = 0;
    if (varint(d, len, &pos, base_size) < 0 || varint(d, len, &pos, result_size) < 0)
        return vs_error_set(err, VS_EFORMAT, "a delta without its sizes");
    *ops_at = pos;
    return 0;
}

int vs_store_pack_delta_op(const unsigned char *d, size_t len, size_t *pos, uint64_t *from,
                           uint64_t *size, vs_error *err)
{
    unsigned char op;
    if (*pos == len)
        return 0;
    op = d[(*pos)++];
    if (op & 0x80) {
        /* which of 4 offset bytes and 3 size bytes follow: bits 0-3, 4-6 */
        uint64_t off = 0, sz = 0;
        unsigned i;
        for (i = 0; i < 7; i++) {
            if (!(op & (1u << i)))
                continue;
            if (*pos == len)
                return vs_error_set(err, VS_EFORMAT, "a delta's copy runs past its end");
            if (i < 4)
                off |= (uint64_t)d[*pos] << (8 * i);
            else
                sz |= (uint64_t)d[*pos] << (8 * (i - 4));
            (*pos)++;
        }
        *from = off;
        *size = sz ? sz : 0x10000; /* a size of 0 is 65536 */
        return 1;
    }
    if (op == 0)
        return vs_error_set(err, VS_EFORMAT, "a delta's reserved opcode 0");
    if (op > len - *pos)
        return vs_error_set(err, VS_EFORMAT, "a delta's insert runs past its end");
    *from = *pos;
    *size = op;
    *pos += op;
    return 2;
}
