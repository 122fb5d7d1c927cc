/* safetensors.h — what a safetensors file stores, read from its header alone.
 *
 * A safetensors file is an 8-byte little-endian header length N, N bytes of
 * JSON ({name: {"dtype", "shape", "data_offsets": [begin, end]}, plus an
 * optional "__metadata__"}), then the tensor data. The exact bytes a loader
 * will hold are in that header, so this module reads the 8 bytes and the
 * header and never the tensor data. Every inconsistency the real loader would
 * refuse (a header longer than the file, a header that is not JSON, offsets
 * out of order, overlapping, leaving holes or running past the end, a size
 * that is not product(shape) x dtype size, an unknown dtype, a shape that
 * overflows) is VS_EFORMAT naming the file and the tensor. A header or an
 * index that is not JSON says where: vs_error.position is the byte of the JSON
 * text (0 is the header's first byte, the file's ninth), as the message says.
 *
 * A summary adds files together (the shards of one checkpoint): bytes and
 * elements per dtype, the bulk dtype (the one with most bytes), and the tensors
 * stored in another dtype grouped by name pattern (layer indices replaced by
 * '*': "model.layers.*.input_layernorm.weight"). It is the format-neutral
 * summary of model/wfile.h, given in safetensors' dtypes.
 *
 * The header and index texts are read with model/jscan.h rather than built as
 * jansson trees: a 30-shard checkpoint's 2 MB of headers must read in well
 * under 50 ms. The parsers and the summary are pure. vs_safetensors_read takes a read
 * callback, so tests can count and bound what is read; vs_safetensors_read_file
 * is the one function here that touches the file system (pread on one file).
 *
 * Files: safetensors.c (dtypes, the header, reading a file), safetensors_index.c
 * (the index), safetensors_summary.c (the summary), safetensors_map.c (the name
 * map the header and index checks share); model/safetensors_internal.h holds
 * what they share.
 */
#ifndef VS_MODEL_SAFETENSORS_H
#define VS_MODEL_SAFETENSORS_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"
#include "util/file.h" /* vs_file_read_fn */

/* Largest header accepted, as the reference implementation (100 MB). */
#define VS_ST_HEADER_MAX ((uint64_t)100000000)

typedef enum vs_st_dtype {
    VS_ST_F64,
    VS_ST_F32,
    VS_ST_F16,
    VS_ST_BF16,
    VS_ST_F8_E4M3,
    VS_ST_F8_E5M2,
    VS_ST_F8_E8M0,
    VS_ST_I64,
    VS_ST_I32,
    VS_ST_I16,
    VS_ST_I8,
    VS_ST_U64,
    VS_ST_U32,
    VS_ST_U16,
    VS_ST_U8,
    VS_ST_BOOL,
    VS_ST_NDTYPES
} vs_st_dtype;

/* "BF16", ... ; NULL for an out-of-range value. */
const char *vs_st_dtype_name(vs_st_dtype d);
/* Bytes per element (1 to 8). */
unsigned vs_st_dtype_size(vs_st_dtype d);
/* 0 and *out for a dtype name as the header spells it; VS_EFORMAT otherwise. */
int vs_st_dtype_parse(const char *name, vs_st_dtype *out);

#define VS_ST_MAX_DIMS 8

typedef struct vs_st_tensor {
    char *name;
    vs_st_dtype dtype;
    unsigned ndims;                 /* the shape's length (at most VS_ST_MAX_DIMS kept) */
    uint64_t shape[VS_ST_MAX_DIMS]; /* as the header writes it */
    uint64_t elements;              /* product of the shape (1 for a scalar) */
    uint64_t begin;                 /* data_offsets, relative to the end of the header */
    uint64_t end;
} vs_st_tensor;

typedef struct vs_st_file {
    vs_st_tensor *tensors; /* in data order */
    size_t count;
    uint64_t header_len; /* N, the JSON header's length */
    uint64_t data_bytes; /* sum of the tensors' data */
    uint64_t params;     /* sum of the elements */
} vs_st_file;

void vs_st_file_free(vs_st_file *f);

/* Parses a header of len bytes. data_size is the length of the data area
 * (file size - 8 - header length). name labels errors (a file name). */
int vs_safetensors_parse_header(vs_st_file **out, const char *name, const char *json, size_t len,
                                uint64_t data_size, vs_error *err);

/* Reads the 8-byte length and the header through read, for a file of
 * file_size bytes, and parses it. *bytes_read (may be NULL) receives the bytes
 * requested through read: 8 + header length on success. */
int vs_safetensors_read(vs_st_file **out, const char *name, uint64_t file_size,
                        vs_file_read_fn read, void *ctx, uint64_t *bytes_read, vs_error *err);

/* Same on the file at path (VS_EIO when it cannot be opened or read).
 * *file_size and *bytes_read may be NULL. */
int vs_safetensors_read_file(vs_st_file **out, const char *path, uint64_t *file_size,
                             uint64_t *bytes_read, vs_error *err);

/* A model.safetensors.index.json: its weight_map, tensor by tensor. */
typedef struct vs_st_index {
    char **tensors;   /* in the index's order */
    size_t *shard_of; /* for each tensor, its shard's number in shards */
    size_t count;
    char **shards; /* the shard files, sorted by name, unique */
    size_t nshards;
} vs_st_index;

/* Parses an index's text. VS_EFORMAT (naming name) when it is not JSON, has
 * no "weight_map" entries, maps a tensor twice, or names a shard that is not a
 * plain file name beside the index (no '/', not "." or ".."). */
int vs_st_index_parse(vs_st_index **out, const char *name, const char *json, size_t len,
                      vs_error *err);
void vs_st_index_free(vs_st_index *ix);

/* Checks the shards' headers against the index: files[k] is shard k of
 * ix->shards. VS_EFORMAT (naming name) when a tensor is stored in two shards
 * or the index puts a tensor in a shard whose header does not have it. */
int vs_st_index_check(const vs_st_index *ix, const vs_st_file *const *files, const char *name,
                      vs_error *err);

/* Totals over one or more files. */
typedef struct vs_st_summary vs_st_summary;

typedef struct vs_st_dtype_total {
    vs_st_dtype dtype;
    uint64_t bytes;
    uint64_t params;
    uint64_t tensors;
} vs_st_dtype_total;

typedef struct vs_st_other {
    char *pattern; /* digits-only name parts replaced by '*' */
    vs_st_dtype dtype;
    uint64_t bytes;
    uint64_t tensors;
} vs_st_other;

vs_st_summary *vs_st_summary_new(void);
void vs_st_summary_free(vs_st_summary *s);

/* Adds a file's tensors. VS_EFORMAT when the totals overflow; VS_ENOMEM. */
int vs_st_summary_add(vs_st_summary *s, const vs_st_file *f, vs_error *err);

uint64_t vs_st_summary_bytes(const vs_st_summary *s);
uint64_t vs_st_summary_params(const vs_st_summary *s);
uint64_t vs_st_summary_tensors(const vs_st_summary *s);

/* The dtypes present, most bytes first (ties by dtype order); *n receives
 * their count. Borrowed, valid until the next add. The first is the bulk. */
const vs_st_dtype_total *vs_st_summary_dtypes(vs_st_summary *s, size_t *n);

/* The tensors not in the bulk dtype, grouped by (pattern, dtype), most bytes
 * first, then by pattern. Borrowed, valid until the next add; NULL and *n = 0
 * when there are none, or when memory is short (*failed = 1 then). */
const vs_st_other *vs_st_summary_others(vs_st_summary *s, size_t *n, int *failed);

/* "model.layers.12.mlp.experts.3.w1.weight" -> "model.layers.*.mlp.experts.*.w1.weight"
 * into out (truncated to outlen - 1). */
void vs_safetensors_name_pattern(const char *name, char *out, size_t outlen);

#endif
