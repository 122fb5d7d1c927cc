/* gguf_internal.h — what the GGUF reader's files share among themselves:
 * gguf.c (the bounded reader, the tensor table, the whole header),
 * gguf_meta.c (the metadata) and gguf_types.c (the type tables). Not a
 * contract for other modules: they include model/gguf.h.
 */
#ifndef VS_MODEL_GGUF_INTERNAL_H
#define VS_MODEL_GGUF_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "model/gguf.h"

/* ---- a bounded, buffered reader over the callback (gguf.c) ---- */

#define VS_GGUF_CHUNK 65536

typedef struct vs_gguf_rd {
    vs_file_read_fn read;
    void *ctx;
    const char *name;
    uint64_t size; /* the file's */
    uint64_t pos;  /* next byte to consume */
    unsigned char buf[VS_GGUF_CHUNK];
    uint64_t buf_at; /* file offset of buf[0] */
    size_t buf_len;
    uint64_t counted;
    vs_error *err;
    const char *subj; /* the key or tensor the field belongs to (errors only) */
    char label[224];
} vs_gguf_rd;

/* The bytes left in the file after r->pos. */
uint64_t vs_gguf_rd_left(const vs_gguf_rd *r);
/* n bytes at r->pos into out (NULL: skips them); a field the file ends inside
 * is VS_EFORMAT naming what, at its position. 0 or a VS_E* code. */
int vs_gguf_rd_take(vs_gguf_rd *r, void *out, uint64_t n, const char *what);
/* Little-endian integers. */
int vs_gguf_rd_u32(vs_gguf_rd *r, uint32_t *v, const char *what);
int vs_gguf_rd_u64(vs_gguf_rd *r, uint64_t *v, const char *what);
/* A GGUF string: u64 length then bytes. out NULL skips it; else a NUL-ended
 * malloc'd copy of at most max bytes (longer, or holding a NUL, is an error
 * naming what). */
int vs_gguf_rd_str(vs_gguf_rd *r, char **out, uint64_t max, const char *what);

/* ---- the metadata (gguf_meta.c) ---- */

/* A value kept: one number, or an array of numbers. */
typedef struct vs_gguf_kept {
    int have;
    int is_array;
    uint64_t v;
    uint64_t *arr;
    size_t n;
    int neg;
} vs_gguf_kept;

/* One "<prefix>.<arch key>" value; which is its index among the arch keys. */
typedef struct vs_gguf_archval {
    char *prefix; /* the key before ".<suffix>" */
    int which;
    vs_gguf_kept k;
} vs_gguf_archval;

/* The metadata read so far (zeroed before the first key). */
typedef struct vs_gguf_meta {
    char **keys; /* every key, for the duplicate check */
    size_t nkeys, kcap;
    char *architecture;
    vs_gguf_kept alignment, file_type, split_no, split_count, split_tensors;
    vs_gguf_archval *av;
    size_t nav, cap;
} vs_gguf_meta;

void vs_gguf_meta_free(vs_gguf_meta *m);
/* Reads metadata key number index (key, type, value) at r->pos. */
int vs_gguf_meta_read_kv(vs_gguf_rd *r, vs_gguf_meta *m, uint64_t index);
/* VS_EFORMAT when a key was given twice (gguf.cpp refuses it). */
int vs_gguf_meta_unique_keys(vs_gguf_rd *r, vs_gguf_meta *m);
/* The architecture's values (general.architecture's prefix) into f->arch. */
int vs_gguf_meta_take_arch(vs_gguf_rd *r, vs_gguf_file *f, vs_gguf_meta *m);

#endif
