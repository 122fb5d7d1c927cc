/* store_pack.h — git's pack files read directly: version-2 pack indexes
 * (the .idx files of objects/pack) and the entries of their packs (version 2 or 3), as
 * git's Documentation/gitformat-pack.txt describes them (git v2.39), and
 * deltas (the copy and insert instructions of git's delta format).
 *
 * Why: libgit2 exposes no pack internals. The revision index, built once
 * from a history of 100,000 commits, reads each commit's sheets/ tree; such a
 * tree is stored as a delta of a few instructions against the previous one,
 * which says which bytes changed without resolving the delta's chain. Only
 * what the index needs is here: where an object is, its entry's header, an
 * entry's data inflated. Anything else (loose objects, other index versions,
 * a multi-pack index) is read through libgit2. Every offset and length read
 * from a file is checked against the file's size: the files are input. */
#ifndef VS_STORE_STORE_PACK_H
#define VS_STORE_STORE_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

typedef struct vs_store_pack vs_store_pack;

enum {
    VS_STORE_PACK_COMMIT = 1,
    VS_STORE_PACK_TREE = 2,
    VS_STORE_PACK_BLOB = 3,
    VS_STORE_PACK_TAG = 4,
    VS_STORE_PACK_OFS_DELTA = 6,
    VS_STORE_PACK_REF_DELTA = 7
};

/* One entry of a pack: its type, the size of its data once inflated, where
 * its compressed data starts; a delta's base (by offset in the same pack, or
 * by id). */
typedef struct vs_store_pack_entry {
    int type;
    uint64_t size;
    unsigned pack;
    uint64_t offset;
    uint64_t data_at;
    uint64_t base_offset;      /* OFS_DELTA */
    unsigned char base_id[20]; /* REF_DELTA */
} vs_store_pack_entry;

/* No packs yet. */
int vs_store_pack_new(vs_store_pack **out, vs_error *err);
void vs_store_pack_free(vs_store_pack *p);

/* Every index (.idx) of dir (a repository's objects/pack) with its .pack, mapped
 * read-only. A pair that is not a readable version-2 index and pack is left
 * out (its objects are then libgit2's to read); VS_ENOMEM only. */
int vs_store_pack_open_dir(vs_store_pack *p, const char *dir, vs_error *err);

/* An index and its pack given as bytes (they must outlive p): checked as a
 * file's would be. 0, or VS_EFORMAT (nothing added). */
int vs_store_pack_add(vs_store_pack *p, const unsigned char *idx, size_t idx_len,
                      const unsigned char *pack, size_t pack_len, vs_error *err);

/* How many objects the packs index (every pack's count). */
uint64_t vs_store_pack_count(const vs_store_pack *p);

/* The n-th id of pack k's index (for walks over every object). 0, or
 * VS_ENOTFOUND past the end. */
int vs_store_pack_id_at(const vs_store_pack *p, unsigned k, uint64_t n, unsigned char id[20]);
unsigned vs_store_pack_npacks(const vs_store_pack *p);

/* 1 and *e when id is in one of the packs, 0 when in none, VS_EFORMAT when
 * its entry's header is malformed. */
int vs_store_pack_find(const vs_store_pack *p, const unsigned char id[20], vs_store_pack_entry *e);

/* The header of the entry at offset in pack k. 0, or VS_EFORMAT. */
int vs_store_pack_entry_at(const vs_store_pack *p, unsigned k, uint64_t offset,
                           vs_store_pack_entry *e, vs_error *err);

/* The entry's data inflated into out (e->size bytes, at most max). 0,
 * VS_EFORMAT, or VS_ENOMEM. */
int vs_store_pack_inflate(const vs_store_pack *p, const vs_store_pack_entry *e, unsigned char *out,
                          size_t max, vs_error *err);

/* A delta's two sizes (the base's, the result's) and where its instructions
 * start: 0, or VS_EFORMAT. */
int vs_store_pack_delta_sizes(const unsigned char *d, size_t len, uint64_t *base_size,
                              uint64_t *result_size, size_t *ops_at, vs_error *err);

/* The next instruction of a delta at *pos (advanced): 1 a copy of *size
 * bytes from the base at *from, 2 an insert of *size bytes at d + *from, 0
 * at the end; VS_EFORMAT on a malformed one (an opcode 0, an insert past the
 * end). Bounds against the base and the result are the caller's. */
int vs_store_pack_delta_op(const unsigned char *d, size_t len, size_t *pos, uint64_t *from,
                           uint64_t *size, vs_error *err);

#endif
