/* The GGUF row of the weights-file table (model/wfile.h): the header parser
 * is model/gguf.c; this turns its tensor table into the list. */
#include <stdlib.h>
#include <string.h>

#include "model/gguf.h"
#include "model/wfile.h"
#include "model/wfile_gguf.h"

static int gguf_sniff(const unsigned char *head, size_t n, const char *path)
{
    (void)path;
    return vs_gguf_sniff(head, n);
}

int vs_wfile_gguf_list(vs_wf_list **out, const vs_gguf_file *f, vs_error *err)
{
    vs_wf_list *l = calloc(1, sizeof *l);
    size_t i;
    int rc;
    *out = NULL;
    if (!l)
        return vs_error_set(err, VS_ENOMEM, "out of memory");
    for (i = 0; i < f->count; i++) {
        const vs_gguf_tensor *g = &f->tensors[i];
        vs_wf_tensor t;
        unsigned d;
        memset(&t, 0, sizeof t);
        t.name = g->name;
        t.dtype = g->type->name;
        t.dtype_rank = g->type->id;
        t.elements = g->elements;
        t.bytes = g->bytes;
        t.ndims = g->ndims;
        for (d = 0; d < g->ndims; d++)
            t.shape[d] = g->ne[d];
        if ((rc = vs_wf_list_add(l, &t, err))) {
            vs_wf_list_free(l);
            return rc;
        }
    }
    *out = l;
    return 0;
}

static int gguf_read(vs_wf_list **out, const char *path, uint64_t *file_size, uint64_t *bytes_read,
                     vs_error *err)
{
    vs_gguf_file *f = NULL;
    int rc;
    *out = NULL;
    if ((rc = vs_gguf_read_file(&f, path, file_size, bytes_read, err)))
        return rc;
    rc = vs_wfile_gguf_list(out, f, err);
    vs_gguf_file_free(f);
    return rc;
}

const vs_wf_format vs_wf_format_gguf = {"gguf", gguf_sniff, gguf_read};
