/* wfile.h — weights files of any format, behind one interface.
 *
 * Each format is one file (model/wfile_safetensors.c, model/wfile_gguf.c) and
 * one row of the table in model/wfile.c, as libgit2's object-database backends:
 * a sniff (from the first bytes and the name) and a reader that gives the
 * tensor list (name, stored type name, elements, bytes, shape) and nothing
 * else. What is made of the list is format-neutral: the summary below (bytes
 * and elements per stored type, the bulk type, the tensors kept in another
 * type grouped by name pattern) is shared by every format.
 */
#ifndef VS_MODEL_WFILE_H
#define VS_MODEL_WFILE_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

#define VS_WF_MAX_DIMS 8

typedef struct vs_wf_tensor {
    char *name;
    const char *dtype;   /* static: "BF16", "Q4_K" */
    unsigned dtype_rank; /* the format's order of its types, for ties */
    uint64_t elements;
    uint64_t bytes;
    unsigned ndims;                 /* 0 when the format does not say */
    uint64_t shape[VS_WF_MAX_DIMS]; /* as the format stores it */
} vs_wf_tensor;

typedef struct vs_wf_list {
    vs_wf_tensor *tensors;
    size_t count;
    uint64_t bytes, params;
} vs_wf_list;

void vs_wf_list_free(vs_wf_list *l);
/* Appends a tensor (name copied). VS_ENOMEM. */
int vs_wf_list_add(vs_wf_list *l, const vs_wf_tensor *t, vs_error *err);

/* One format. */
typedef struct vs_wf_format {
    const char *name; /* "safetensors", "gguf" */
    /* 1 when a file with these first bytes (n of them, maybe fewer than 8)
     * and this name is of the format */
    int (*sniff)(const unsigned char *head, size_t n, const char *path);
    /* The tensor list of one file (one shard) at path; *file_size and
     * *bytes_read (may be NULL) its size and the bytes read. */
    int (*read)(vs_wf_list **out, const char *path, uint64_t *file_size, uint64_t *bytes_read,
                vs_error *err);
} vs_wf_format;

/* The formats known, in sniffing order. */
const vs_wf_format *const *vs_wfile_formats(size_t *n);
/* The format of the file at path (read: its first 8 bytes); NULL and
 * VS_EFORMAT (or VS_EIO) when none. */
const vs_wf_format *vs_wfile_sniff_file(const char *path, vs_error *err);
const vs_wf_format *vs_wf_format_named(const char *name);

/* ---- the format-neutral summary ---- */

typedef struct vs_wf_summary vs_wf_summary;

typedef struct vs_wf_dtype_total {
    const char *dtype;
    unsigned rank;
    uint64_t bytes, params, tensors;
} vs_wf_dtype_total;

typedef struct vs_wf_other {
    char *pattern; /* digits-only name parts replaced by '*' */
    const char *dtype;
    unsigned rank;
    uint64_t bytes, tensors;
} vs_wf_other;

vs_wf_summary *vs_wf_summary_new(void);
void vs_wf_summary_free(vs_wf_summary *s);
/* Adds a list's tensors. VS_EFORMAT when the totals overflow; VS_ENOMEM. */
int vs_wf_summary_add(vs_wf_summary *s, const vs_wf_list *l, vs_error *err);
uint64_t vs_wf_summary_bytes(const vs_wf_summary *s);
uint64_t vs_wf_summary_params(const vs_wf_summary *s);
uint64_t vs_wf_summary_tensors(const vs_wf_summary *s);
/* The types present, most bytes first (ties by rank); borrowed until the next add. */
const vs_wf_dtype_total *vs_wf_summary_dtypes(vs_wf_summary *s, size_t *n);
/* The tensors not in the bulk type, grouped by (pattern, type), most bytes
 * first, then by pattern; NULL and *n = 0 when none, or when memory is short
 * (*failed = 1 then). */
const vs_wf_other *vs_wf_summary_others(vs_wf_summary *s, size_t *n, int *failed);

#endif
