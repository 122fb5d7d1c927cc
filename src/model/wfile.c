#include "model/wfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/safetensors.h" /* vs_safetensors_name_pattern */
#include "util/checked.h"
#include "util/file.h"

/* ---- the formats: one row each (model/wfile_<format>.c) ---- */

extern const vs_wf_format vs_wf_format_gguf;
extern const vs_wf_format vs_wf_format_safetensors;

static const vs_wf_format *const formats[] = {
    &vs_wf_format_gguf, /* a magic: sniffed first */
    &vs_wf_format_safetensors,
};
#define NFORMATS (sizeof formats / sizeof formats[0])

const vs_wf_format *const *vs_wfile_formats(size_t *n)
{
    *n = NFORMATS;
    return formats;
}

const vs_wf_format *vs_wf_format_named(const char *name)
{
    size_t i;
    for (i = 0; i < NFORMATS; i++)
        if (!strcmp(formats[i]->name, name))
            return formats[i];
    return NULL;
}

const vs_wf_format *vs_wfile_sniff_file(const char *path, vs_error *err)
{
    unsigned char head[8];
    size_t got = 0, i;
    int fd = vs_file_open_regular(path, 0, NULL, err);
    if (fd < 0)
        return NULL;
    while (got < sizeof head) {
        ssize_t r = pread(fd, head + got, sizeof head - got, (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    for (i = 0; i < NFORMATS; i++)
        if (formats[i]->sniff(head, got, path))
            return formats[i];
    vs_error_set(err, VS_EFORMAT, "%s: neither a GGUF nor a safetensors file", path);
    return NULL;
}

/* ---- lists ---- */

void vs_wf_list_free(vs_wf_list *l)
{
    size_t i;
    if (!l)
        return;
    for (i = 0; i < l->count; i++)
        free(l->tensors[i].name);
    free(l->tensors);
    free(l);
}

int vs_wf_list_add(vs_wf_list *l, const vs_wf_tensor *t, vs_error *err)
{
    vs_wf_tensor *n;
    if ((l->count & (l->count - 1)) == 0) { /* 0, 1, 2, 4, ...: grow */
        n = realloc(l->tensors, (l->count ? l->count * 2 : 1) * sizeof *n);
        if (!n)
            return vs_error_set(err, VS_ENOMEM, "out of memory");
        l->tensors = n;
    }
    n = &l->tensors[l->count];
    *n = *t;
    if (!(n->name = strdup(t->name)))
        return vs_error_set(err, VS_ENOMEM, "out of memory");
    if (vs_checked_add(&l->bytes, l->bytes, t->bytes) ||
        vs_checked_add(&l->params, l->params, t->elements)) {
        free(n->name);
        return vs_error_set(err, VS_EFORMAT, "the tensors' totals overflow 64 bits");
    }
    l->count++;
    return 0;
}

/* ---- the summary ---- */

typedef struct entry {
    char *pattern;
    const char *dtype;
    unsigned rank;
    uint64_t bytes;
} entry;

struct vs_wf_summary {
    vs_wf_dtype_total *totals; /* one per (dtype) seen */
    size_t ntotals;
    vs_wf_dtype_total *sorted;
    uint64_t bytes, params, tensors;
    entry *entries;
    size_t nentries, cap;
    vs_wf_other *others;
    size_t nothers;
    int others_valid;
};

vs_wf_summary *vs_wf_summary_new(void)
{
    return calloc(1, sizeof(vs_wf_summary));
}

static void drop_others(vs_wf_summary *s)
{
    size_t i;
    for (i = 0; i < s->nothers; i++)
        free(s->others[i].pattern);
    free(s->others);
    s->others = NULL;
    s->nothers = 0;
    s->others_valid = 0;
}

void vs_wf_summary_free(vs_wf_summary *s)
{
    size_t i;
    if (!s)
        return;
    drop_others(s);
    for (i = 0; i < s->nentries; i++)
        free(s->entries[i].pattern);
    free(s->entries);
    free(s->totals);
    free(s->sorted);
    free(s);
}

int vs_wf_summary_add(vs_wf_summary *s, const vs_wf_list *l, vs_error *err)
{
    size_t i, nnext = s->ntotals;
    vs_wf_dtype_total *next = NULL;
    uint64_t bytes, params, tensors;
    char small[256];

    if (vs_checked_add(&bytes, s->bytes, l->bytes) ||
        vs_checked_add(&params, s->params, l->params) ||
        vs_checked_add(&tensors, s->tensors, (uint64_t)l->count))
        return vs_error_set(err, VS_EFORMAT, "the checkpoint's totals overflow 64 bits");
    if (!(next = malloc((s->ntotals + l->count + 1) * sizeof *next)))
        return vs_error_set(err, VS_ENOMEM, "out of memory summing the checkpoint");
    if (s->ntotals)
        memcpy(next, s->totals, s->ntotals * sizeof *next);
    if (s->nentries + l->count > s->cap) {
        size_t cap = s->cap ? s->cap : 256;
        entry *e;
        while (cap < s->nentries + l->count)
            cap *= 2;
        if (!(e = realloc(s->entries, cap * sizeof *e))) {
            free(next);
            return vs_error_set(err, VS_ENOMEM, "out of memory summing the checkpoint");
        }
        s->entries = e;
        s->cap = cap;
    }
    for (i = 0; i < l->count; i++) {
        const vs_wf_tensor *t = &l->tensors[i];
        vs_wf_dtype_total *d = NULL;
        size_t k;
        for (k = 0; k < nnext; k++)
            if (!strcmp(next[k].dtype, t->dtype)) {
                d = &next[k];
                break;
            }
        if (!d) { /* room: at most one new total per tensor */
            d = &next[nnext++];
            memset(d, 0, sizeof *d);
            d->dtype = t->dtype;
            d->rank = t->dtype_rank;
        }
        d->bytes += t->bytes; /* bounded by the total checked above */
        d->params += t->elements;
        d->tensors++;
    }
    for (i = 0; i < l->count; i++) {
        const vs_wf_tensor *t = &l->tensors[i];
        size_t len = strlen(t->name) + 1;
        char *pat = len <= sizeof small ? small : malloc(len);
        entry *e = &s->entries[s->nentries + i];
        if (!pat)
            goto oom;
        vs_safetensors_name_pattern(t->name, pat, len);
        e->pattern = strdup(pat);
        if (pat != small)
            free(pat);
        if (!e->pattern)
            goto oom;
        e->dtype = t->dtype;
        e->rank = t->dtype_rank;
        e->bytes = t->bytes;
        continue;
    oom:
        while (i-- > 0)
            free(s->entries[s->nentries + i].pattern);
        free(next);
        return vs_error_set(err, VS_ENOMEM, "out of memory summing the checkpoint");
    }
    {
        vs_wf_dtype_total *sorted = realloc(s->sorted, (nnext ? nnext : 1) * sizeof *sorted);
        if (!sorted) {
            for (i = 0; i < l->count; i++)
                free(s->entries[s->nentries + i].pattern);
            free(next);
            return vs_error_set(err, VS_ENOMEM, "out of memory summing the checkpoint");
        }
        s->sorted = sorted;
    }
    s->nentries += l->count;
    free(s->totals);
    s->totals = next;
    s->ntotals = nnext;
    s->bytes = bytes;
    s->params = params;
    s->tensors = tensors;
    drop_others(s);
    return 0;
}

uint64_t vs_wf_summary_bytes(const vs_wf_summary *s)
{
    return s->bytes;
}
uint64_t vs_wf_summary_params(const vs_wf_summary *s)
{
    return s->params;
}
uint64_t vs_wf_summary_tensors(const vs_wf_summary *s)
{
    return s->tensors;
}

static int cmp_total(const void *a, const void *b)
{
    const vs_wf_dtype_total *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

const vs_wf_dtype_total *vs_wf_summary_dtypes(vs_wf_summary *s, size_t *n)
{
    size_t i, m = 0;
    for (i = 0; i < s->ntotals; i++)
        if (s->totals[i].tensors > 0)
            s->sorted[m++] = s->totals[i];
    if (m > 1)
        qsort(s->sorted, m, sizeof s->sorted[0], cmp_total);
    *n = m;
    return s->sorted;
}

static int cmp_entry(const void *a, const void *b)
{
    const entry *x = *(const entry *const *)a, *y = *(const entry *const *)b;
    int c = strcmp(x->pattern, y->pattern);
    if (c)
        return c;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static int cmp_other(const void *a, const void *b)
{
    const vs_wf_other *x = a, *y = b;
    int c;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    c = strcmp(x->pattern, y->pattern);
    if (c)
        return c;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

const vs_wf_other *vs_wf_summary_others(vs_wf_summary *s, size_t *n, int *failed)
{
    const vs_wf_dtype_total *d;
    size_t nd, i, m = 0, k;
    entry **sel = NULL;
    const char *bulk;
    *n = 0;
    *failed = 0;
    if (s->others_valid) {
        *n = s->nothers;
        return s->others;
    }
    d = vs_wf_summary_dtypes(s, &nd);
    if (nd < 2) {
        s->others_valid = 1;
        return NULL;
    }
    bulk = d[0].dtype;
    sel = malloc(s->nentries * sizeof *sel);
    if (!sel)
        goto oom;
    for (i = 0; i < s->nentries; i++)
        if (strcmp(s->entries[i].dtype, bulk))
            sel[m++] = &s->entries[i];
    qsort(sel, m, sizeof *sel, cmp_entry);
    s->others = calloc(m ? m : 1, sizeof *s->others);
    if (!s->others)
        goto oom;
    for (i = 0; i < m; i = k) {
        vs_wf_other *o = &s->others[s->nothers];
        o->pattern = strdup(sel[i]->pattern);
        if (!o->pattern)
            goto oom;
        o->dtype = sel[i]->dtype;
        o->rank = sel[i]->rank;
        s->nothers++;
        for (k = i; k < m && !cmp_entry(&sel[i], &sel[k]); k++) {
            o->bytes += sel[k]->bytes;
            o->tensors++;
        }
    }
    qsort(s->others, s->nothers, sizeof *s->others, cmp_other);
    free(sel);
    s->others_valid = 1;
    *n = s->nothers;
    return s->others;
oom:
    free(sel);
    drop_others(s);
    *failed = 1;
    return NULL;
}
