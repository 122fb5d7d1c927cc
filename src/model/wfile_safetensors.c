/* The safetensors row of the weights-file table (model/wfile.h): the header
 * parser is model/safetensors.c; this turns its tensors into the list. */
#include <stdlib.h>
#include <string.h>

#include "model/safetensors.h"
#include "model/wfile.h"
#include "model/wfile_safetensors.h"

static int st_sniff(const unsigned char *head, size_t n, const char *path)
{
    /* no magic (an 8-byte length, then '{'): the last row, it takes every file
     * the formats before it did not, and its parser says when it is not one */
    (void)head;
    (void)n;
    (void)path;
    return 1;
}

static int st_read(vs_wf_list **out, const char *path, uint64_t *file_size, uint64_t *bytes_read,
                   vs_error *err)
{
    vs_st_file *f = NULL;
    int rc;
    *out = NULL;
    if ((rc = vs_safetensors_read_file(&f, path, file_size, bytes_read, err)))
        return rc;
    rc = vs_wfile_safetensors_list(out, f, err);
    vs_st_file_free(f);
    return rc;
}

const vs_wf_format vs_wf_format_safetensors = {"safetensors", st_sniff, st_read};

int vs_wfile_safetensors_list(vs_wf_list **out, const vs_st_file *f, vs_error *err)
{
    vs_wf_list *l = calloc(1, sizeof *l);
    size_t i;
    int rc;
    *out = NULL;
    if (!l)
        return vs_error_set(err, VS_ENOMEM, "out of memory");
    for (i = 0; i < f->count; i++) {
        const vs_st_tensor *s = &f->tensors[i];
        vs_wf_tensor t;
        memset(&t, 0, sizeof t);
        t.name = s->name;
        t.dtype = vs_st_dtype_name(s->dtype);
        t.dtype_rank = (unsigned)s->dtype;
        t.elements = s->elements;
        t.bytes = s->end - s->begin;
        t.ndims = s->ndims;
        memcpy(t.shape, s->shape, sizeof t.shape);
        if ((rc = vs_wf_list_add(l, &t, err))) {
            vs_wf_list_free(l);
            return rc;
        }
    }
    *out = l;
    return 0;
}
