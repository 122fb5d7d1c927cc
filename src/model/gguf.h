/* gguf.h — what a GGUF file stores, read from its header alone.
 *
 * A GGUF file (the llama.cpp / ggml format, versions 2 and 3, little-endian) is
 * "GGUF", a u32 version, a u64 tensor count, a u64 metadata count, the
 * metadata (key string, u32 value type, value: 13 value types, arrays of any
 * of them, arrays of arrays), the tensor table (name, u32 dimensions, u64 per
 * dimension, u32 ggml type, u64 offset), padding to general.alignment (32 by
 * default), then the tensor data. This module reads the header and the table
 * through a read callback and never the tensor data, so a 400 GB file whose
 * data is a sparse hole reads in milliseconds.
 *
 * Every count is checked against the bytes left in the file before anything
 * is allocated for it (a header claiming 2^60 entries is refused at once), and
 * everything the reference loader (ggml/src/gguf.cpp) would refuse is
 * VS_EFORMAT naming the file: a wrong magic, version 1 or an unknown version,
 * a big-endian file, a value type that does not exist, a truncated field, a
 * tensor of more than 4 dimensions, a negative or overflowing shape, an
 * unknown ggml type (named by its number), a row not a whole number of
 * blocks, a name used twice or longer than 63 bytes, an alignment not a power
 * of two, an offset not aligned, not where the previous tensor's padded data
 * ends (out of order, overlapping or leaving holes), or data past the end of
 * the file. Such an error carries, in vs_error.position, the byte of the file
 * where the fault lies: the field the file ends inside, a string's or an
 * array's length that claims too much, a NUL inside a string, the header's
 * tensor count (byte 8) or key count (16), or, for a tensor's data, the byte
 * its offset names (data start + offset) or the byte it would end at.
 *
 * The ggml types are those of ggml-org/llama.cpp ggml/include/ggml.h and the
 * block layouts of ggml/src/ggml-common.h (type_traits in ggml/src/ggml.c) at
 * commit 01243c587fec (Q1_0, Q2_0 and NVFP4 included); the file types those of
 * include/llama.h (llama_ftype) at the same time.
 *
 * Files: gguf.c (the reader, the tensor table, the whole header), gguf_meta.c
 * (the metadata), gguf_types.c (the type tables, split names);
 * model/gguf_internal.h holds what they share.
 */
#ifndef VS_MODEL_GGUF_H
#define VS_MODEL_GGUF_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"
#include "util/file.h" /* vs_file_read_fn */

#define VS_GGUF_MAX_DIMS 4
#define VS_GGUF_MAX_NAME 64 /* GGML_MAX_NAME: a name is at most 63 bytes */
#define VS_GGUF_DEFAULT_ALIGNMENT 32

/* One ggml type: its number in the file, its name as gguf-py writes it
 * ("Q4_K"), the elements per block and the bytes per block. */
typedef struct vs_gguf_type {
    uint32_t id;
    const char *name;
    uint32_t block;
    uint32_t bytes;
} vs_gguf_type;

/* The type with that number; NULL when llama.cpp defines none. */
const vs_gguf_type *vs_gguf_type_by_id(uint32_t id);
/* The type with that name, any case ("q4_k", "Q4_K"); NULL when none. */
const vs_gguf_type *vs_gguf_type_by_name(const char *name);
/* Every type, by number; *n receives their count. */
const vs_gguf_type *vs_gguf_types(size_t *n);
/* Bytes of `elements` values of type t (elements a multiple of t->block):
 * 0 and *out, or VS_EFORMAT when it is not or the bytes overflow. */
int vs_gguf_type_bytes(const vs_gguf_type *t, uint64_t elements, uint64_t *out);

/* llama.cpp's name for a general.file_type ("MOSTLY_Q4_K_M", "ALL_F32");
 * NULL for a number llama_ftype does not define. */
const char *vs_gguf_ftype_name(uint32_t ftype);
/* The number for a name, any case, with or without "MOSTLY_" ("q4_k_m",
 * "MOSTLY_Q4_K_M", "f32"); -1 when none. */
int vs_gguf_ftype_parse(const char *name);

/* The architecture's metadata (keys "<general.architecture>.<key>"), raw as
 * stored. A value of 0 (or a NULL array) means the file does not say. */
typedef struct vs_gguf_arch {
    char name[64];        /* general.architecture ("llama", "deepseek2") */
    uint64_t block_count; /* layers */
    uint64_t context_length;
    uint64_t embedding_length;
    uint64_t feed_forward_length;
    uint64_t head_count; /* attention.head_count (a number) */
    uint64_t
        head_count_kv; /* attention.head_count_kv as one number, or the largest per-layer value */
    uint64_t *head_count_kv_layers; /* when attention.head_count_kv is an array: one per layer */
    size_t n_head_count_kv_layers;
    uint64_t key_length;             /* attention.key_length */
    uint64_t value_length;           /* attention.value_length */
    uint64_t key_length_mla;         /* attention.key_length_mla */
    uint64_t value_length_mla;       /* attention.value_length_mla */
    uint64_t kv_lora_rank;           /* attention.kv_lora_rank (MLA) */
    uint64_t q_lora_rank;            /* attention.q_lora_rank (MLA) */
    uint64_t rope_dimension_count;   /* rope.dimension_count */
    uint64_t sliding_window;         /* attention.sliding_window */
    uint64_t sliding_window_pattern; /* attention.sliding_window_pattern as one number */
    uint64_t *sliding_window_layers; /* ... or as an array, one per layer (1: sliding) */
    size_t n_sliding_window_layers;
    uint64_t expert_count;
    uint64_t expert_used_count;
    uint64_t vocab_size;
    int has_sliding_window;        /* attention.sliding_window is present (0 included) */
    uint64_t *feed_forward_layers; /* feed_forward_length as an array, one per layer */
    size_t n_feed_forward_layers;
    /* recurrent layers (llama.cpp's hybrid and recurrent architectures) */
    uint64_t ssm_conv_kernel, ssm_inner_size, ssm_state_size, ssm_group_count;
    uint64_t full_attention_interval; /* 0 when absent */
    uint64_t *recurrent_layers;       /* attention.recurrent_layers, one per layer (1: recurrent) */
    size_t n_recurrent_layers;
    uint64_t shortconv_l_cache; /* LFM2's short convolutions */
} vs_gguf_arch;

typedef struct vs_gguf_tensor {
    char *name;
    uint32_t ndims;
    uint64_t ne[VS_GGUF_MAX_DIMS]; /* ggml order: ne[0] is the row length; 1 past ndims */
    const vs_gguf_type *type;
    uint64_t offset;   /* from the start of the data section */
    uint64_t elements; /* product of ne */
    uint64_t bytes;    /* elements / block x bytes per block */
} vs_gguf_tensor;

typedef struct vs_gguf_file {
    uint32_t version;
    uint64_t n_kv;
    vs_gguf_tensor *tensors; /* in table order (data order) */
    size_t count;
    uint32_t alignment;
    uint64_t data_start;            /* where the data section begins */
    uint64_t data_bytes;            /* sum of the tensors' bytes */
    uint64_t params;                /* sum of their elements */
    int64_t file_type;              /* general.file_type; -1 when absent */
    uint32_t split_no, split_count; /* split.no, split.count (0, 0 when not split) */
    int64_t split_tensors;          /* split.tensors.count; -1 when absent */
    vs_gguf_arch arch;
} vs_gguf_file;

void vs_gguf_file_free(vs_gguf_file *f);

/* Reads the header of a file of file_size bytes through read (which reads
 * n bytes at an offset: util/file.h). name labels errors. *bytes_read (may
 * be NULL) receives the bytes requested through read. */
int vs_gguf_read(vs_gguf_file **out, const char *name, uint64_t file_size, vs_file_read_fn read,
                 void *ctx, uint64_t *bytes_read, vs_error *err);

/* The same over len bytes in memory that begin a file of file_size bytes
 * (file_size >= len; reading past len is a truncated file). */
int vs_gguf_parse(vs_gguf_file **out, const char *name, const void *buf, size_t len,
                  uint64_t file_size, vs_error *err);

/* The same on the file at path (VS_EIO when it cannot be opened or read).
 * *file_size and *bytes_read may be NULL. */
int vs_gguf_read_file(vs_gguf_file **out, const char *path, uint64_t *file_size,
                      uint64_t *bytes_read, vs_error *err);

/* "NAME-00001-of-00003.gguf" (any shard) -> 1 and *count = 3, with the
 * prefix ("NAME") length in *prefix_len; 0 for a name not of that form. */
int vs_gguf_split_name(const char *path, unsigned *no, unsigned *count, size_t *prefix_len);

/* True when the first bytes (at least 4) are GGUF's magic. */
int vs_gguf_sniff(const unsigned char *head, size_t n);

#endif
