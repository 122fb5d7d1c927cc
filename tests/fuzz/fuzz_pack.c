/* libFuzzer target: what the revision index reads from git's packs itself.
 * The input, whole, is inflated as a zlib stream (util/inflate) and read as a
 * pack index and pack (refused unless well formed). Then it is taken apart:
 * byte 0 a count n of objects (1-8), n 4-byte offsets, 2 bytes of a length
 * k, k bytes of a sheets/ tree to hold, and the rest a pack's entries. An
 * index for them is written here (ids 0x00.., 0x01.., one per object), the
 * entries read (header, inflated data, a delta's instructions) and each
 * object offered to the held tree as a delta against object 0 (store_index_delta).
 * Nothing may crash, leak, loop or read outside the input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_index_internal.h"
#include "store/store_pack.h"
#include "util/inflate.h"

static void put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static void read_entries(vs_store_pack *p, unsigned n)
{
    unsigned i;
    for (i = 0; i < n; i++) {
        unsigned char id[20] = {0};
        vs_store_pack_entry e;
        unsigned char *out;
        id[0] = (unsigned char)i;
        if (vs_store_pack_find(p, id, &e) != 1 || e.size > 65536)
            continue;
        if (!(out = malloc(e.size ? e.size : 1)))
            continue;
        if (vs_store_pack_inflate(p, &e, out, 65536, NULL) == 0 &&
            (e.type == VS_STORE_PACK_OFS_DELTA || e.type == VS_STORE_PACK_REF_DELTA)) {
            uint64_t bs, rs, from, size;
            size_t pos;
            if (vs_store_pack_delta_sizes(out, e.size, &bs, &rs, &pos, NULL) == 0)
                while (vs_store_pack_delta_op(out, e.size, &pos, &from, &size, NULL) > 0)
                    ;
        }
        free(out);
    }
}

/* Object 0's bytes held as a tree (when they are one), then every object
 * offered as the next. */
static void hold_and_advance(vs_store_pack *p, unsigned n, const unsigned char *tree, size_t k)
{
    ix_held h;
    ix_touched_list l = {0};
    const unsigned char *s = tree, *end = tree + k;
    vs_store_tree_entry te;
    vs_store_pack_entry e;
    unsigned char id0[20] = {0};
    unsigned i, round;
    memset(&h, 0, sizeof h);
    h.packs = p;
    if (!(h.buf = malloc(k ? k : 1)))
        return;
    h.buf_cap = k ? k : 1;
    memcpy(h.buf, tree, k);
    h.data = h.buf;
    h.len = k;
    while (s < end) {
        const unsigned char *at = s;
        if (!vs_store_tree_next(&s, end, &te))
            goto done;
        if (h.n == h.offs_cap) {
            size_t nc = h.offs_cap ? h.offs_cap * 2 : 16;
            uint32_t *nv = realloc(h.offs, nc * sizeof *nv);
            if (!nv)
                goto done;
            h.offs = nv;
            h.offs_cap = nc;
        }
        h.offs[h.n++] = (uint32_t)(at - tree);
    }
    if (vs_store_pack_find(p, id0, &e) == 1) {
        h.in_pack = 1;
        h.pack = e.pack;
        h.off = e.offset;
    }
    h.valid = 1;
    /* twice round: an advance holds the new tree, the next may be on it */
    for (round = 0; round < 2; round++)
        for (i = 1; i < n; i++) {
            git_oid id;
            memset(&id, 0, sizeof id);
            id.id[0] = (unsigned char)i;
            l.n = 0;
            if (vs_store_index_held_advance(&h, &id, &l) < 0)
                goto done;
        }
done:
    h.packs = NULL; /* the caller's */
    free(l.v);
    vs_store_index_held_free(&h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned char out[4096], *idx = NULL, *pack = NULL;
    vs_store_pack *p = NULL;
    size_t at, k, body, idx_len, i;
    unsigned n;
    if (size >= 2)
        (void)vs_inflate_zlib(data, size, out, (data[0] | (size_t)data[1] << 8) % sizeof out, NULL);
    if (vs_store_pack_new(&p, NULL) < 0)
        return 0;
    (void)vs_store_pack_add(p, data, size, data, size, NULL);
    vs_store_pack_free(p);
    p = NULL;
    if (size < 1)
        return 0;
    n = 1 + data[0] % 8;
    at = 1 + 4 * (size_t)n;
    if (size < at + 2)
        return 0;
    k = data[at] | (size_t)data[at + 1] << 8;
    at += 2;
    if (size - at < k)
        return 0;
    body = size - at - k;
    /* the pack: a header, the entries, a trailer of zeros */
    idx_len = 8 + 1024 + (size_t)n * 28 + 40;
    if (!(pack = calloc(1, 12 + body + 20)) || !(idx = calloc(1, idx_len)))
        goto done;
    memcpy(pack, "PACK", 4);
    put32(pack + 4, 2);
    put32(pack + 8, n);
    memcpy(pack + 12, data + at + k, body);
    memcpy(idx, "\377tOc", 4);
    put32(idx + 4, 2);
    for (i = 0; i < 256; i++)
        put32(idx + 8 + 4 * i, i < n ? (uint32_t)i + 1 : n);
    for (i = 0; i < n; i++) {
        uint32_t off = (uint32_t)data[1 + 4 * i] << 24 | (uint32_t)data[2 + 4 * i] << 16 |
                       (uint32_t)data[3 + 4 * i] << 8 | data[4 + 4 * i];
        idx[8 + 1024 + 20 * i] = (unsigned char)i;
        /* large offsets point into the table of 64-bit ones, which is empty */
        put32(idx + 8 + 1024 + (size_t)n * 24 + 4 * i,
              off & 0x80000000u ? off : (uint32_t)(12 + (body ? off % body : 0)));
    }
    if (vs_store_pack_new(&p, NULL) < 0 ||
        vs_store_pack_add(p, idx, idx_len, pack, 12 + body + 20, NULL) < 0)
        goto done;
    read_entries(p, n);
    hold_and_advance(p, n, data + at, k);
done:
    vs_store_pack_free(p);
    free(idx);
    free(pack);
    return 0;
}
