/* safetensors_summary.c — the summary of one or more safetensors files: the
 * format-neutral one (model/wfile.h), given in safetensors' dtypes (the
 * contract: model/safetensors.h). */
#include <stdlib.h>
#include <string.h>

#include "model/safetensors.h"
#include "model/wfile.h"
#include "model/wfile_safetensors.h"

struct vs_st_summary {
    vs_wf_summary *w;
    vs_st_dtype_total sorted[VS_ST_NDTYPES];
    vs_st_other *others;
    size_t nothers;
};

vs_st_summary *vs_st_summary_new(void)
{
    vs_st_summary *s = calloc(1, sizeof *s);
    if (s && !(s->w = vs_wf_summary_new())) {
        free(s);
        return NULL;
    }
    return s;
}

void vs_st_summary_free(vs_st_summary *s)
{
    if (!s)
        return;
    vs_wf_summary_free(s->w);
    free(s->others);
    free(s);
}

void vs_safetensors_name_pattern(const char *name, char *out, size_t outlen)
{
    size_t o = 0;
    const char *p = name;
    if (outlen == 0)
        return;
    while (*p) {
        const char *q = p;
        while (*q >= '0' && *q <= '9')
            q++;
        if (q > p && (*q == '.' || *q == '\0') && (p == name || p[-1] == '.')) {
            if (o + 1 < outlen)
                out[o++] = '*';
            p = q;
            continue;
        }
        while (*p && *p != '.') {
            if (o + 1 < outlen)
                out[o++] = *p;
            p++;
        }
        if (*p == '.') {
            if (o + 1 < outlen)
                out[o++] = '.';
            p++;
        }
    }
    out[o] = '\0';
}

int vs_st_summary_add(vs_st_summary *s, const vs_st_file *f, vs_error *err)
{
    vs_wf_list *l = NULL;
    int rc = vs_wfile_safetensors_list(&l, f, err);
    if (rc == VS_EFORMAT)
        rc = vs_error_set(err, VS_EFORMAT, "the checkpoint's totals overflow 64 bits");
    if (!rc)
        rc = vs_wf_summary_add(s->w, l, err);
    vs_wf_list_free(l);
    return rc;
}

uint64_t vs_st_summary_bytes(const vs_st_summary *s)
{
    return vs_wf_summary_bytes(s->w);
}
uint64_t vs_st_summary_params(const vs_st_summary *s)
{
    return vs_wf_summary_params(s->w);
}
uint64_t vs_st_summary_tensors(const vs_st_summary *s)
{
    return vs_wf_summary_tensors(s->w);
}

const vs_st_dtype_total *vs_st_summary_dtypes(vs_st_summary *s, size_t *n)
{
    size_t nd, i;
    const vs_wf_dtype_total *d = vs_wf_summary_dtypes(s->w, &nd);
    for (i = 0; i < nd && i < VS_ST_NDTYPES; i++) {
        s->sorted[i].dtype = (vs_st_dtype)d[i].rank; /* the rank is the dtype */
        s->sorted[i].bytes = d[i].bytes;
        s->sorted[i].params = d[i].params;
        s->sorted[i].tensors = d[i].tensors;
    }
    *n = i;
    return s->sorted;
}

const vs_st_other *vs_st_summary_others(vs_st_summary *s, size_t *n, int *failed)
{
    size_t no, i;
    const vs_wf_other *o = vs_wf_summary_others(s->w, &no, failed);
    vs_st_other *g;
    *n = 0;
    if (!o || !no)
        return NULL;
    if (!(g = realloc(s->others, no * sizeof *g))) {
        *failed = 1;
        return NULL;
    }
    s->others = g;
    for (i = 0; i < no; i++) {
        g[i].pattern = o[i].pattern; /* borrowed from the neutral summary */
        g[i].dtype = (vs_st_dtype)o[i].rank;
        g[i].bytes = o[i].bytes;
        g[i].tensors = o[i].tensors;
    }
    s->nothers = no;
    *n = no;
    return g;
}
