#include "model/gguf.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/gguf_internal.h"
#include "util/checked.h"
#include "util/file.h"

/* ---- the bounded, buffered reader (model/gguf_internal.h) ---- */

/* "the value of key 'general.name'": built only when an error is told */
static const char *ctx(vs_gguf_rd *r, const char *what)
{
    if (r->subj)
        snprintf(r->label, sizeof r->label, "%s '%.160s'", what, r->subj);
    else
        snprintf(r->label, sizeof r->label, "%s", what);
    return r->label;
}

static int fill(vs_gguf_rd *r, const char *what)
{
    size_t want = VS_GGUF_CHUNK, got = 0;
    if (r->pos >= r->size)
        return vs_error_set_pos(r->err, VS_EFORMAT, (long long)r->pos,
                                "%s: truncated: the file ends inside %s", r->name, ctx(r, what));
    if (r->size - r->pos < want)
        want = (size_t)(r->size - r->pos);
    while (got < want) {
        long long k = r->read(r->ctx, r->buf + got, want - got, r->pos + got);
        if (k < 0)
            return vs_error_set(r->err, VS_EIO, "%s: cannot read %s: %s", r->name, ctx(r, what),
                                strerror(errno));
        if (k == 0)
            break;
        if ((size_t)k > want - got)
            return vs_error_set(r->err, VS_EIO, "%s: the reader returned more than asked", r->name);
        got += (size_t)k;
        r->counted += (uint64_t)k;
    }
    if (got == 0)
        return vs_error_set_pos(r->err, VS_EFORMAT, (long long)r->pos,
                                "%s: truncated: the file ends inside %s", r->name, ctx(r, what));
    r->buf_at = r->pos;
    r->buf_len = got;
    return 0;
}

uint64_t vs_gguf_rd_left(const vs_gguf_rd *r)
{
    return r->size > r->pos ? r->size - r->pos : 0;
}

/* n bytes at pos into out (may be NULL: skip them) */
int vs_gguf_rd_take(vs_gguf_rd *r, void *out, uint64_t n, const char *what)
{
    unsigned char *o = out;
    if (n > vs_gguf_rd_left(r))
        return vs_error_set_pos(r->err, VS_EFORMAT, (long long)r->pos,
                                "%s: truncated: the file ends inside %s (%llu bytes needed, %llu "
                                "left)",
                                r->name, ctx(r, what), (unsigned long long)n,
                                (unsigned long long)vs_gguf_rd_left(r));
    while (n > 0) {
        size_t k;
        int rc;
        if (r->pos < r->buf_at || r->pos >= r->buf_at + r->buf_len) {
            if (!o) { /* skipping: no need to read what is skipped past the buffer */
                r->pos += n;
                return 0;
            }
            if ((rc = fill(r, what)))
                return rc;
        }
        k = (size_t)(r->buf_at + r->buf_len - r->pos);
        if (k > n)
            k = (size_t)n;
        if (o) {
            memcpy(o, r->buf + (r->pos - r->buf_at), k);
            o += k;
        }
        r->pos += k;
        n -= k;
    }
    return 0;
}

int vs_gguf_rd_u32(vs_gguf_rd *r, uint32_t *v, const char *what)
{
    unsigned char b[4];
    int rc = vs_gguf_rd_take(r, b, 4, what);
    if (!rc)
        *v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    return rc;
}

int vs_gguf_rd_u64(vs_gguf_rd *r, uint64_t *v, const char *what)
{
    unsigned char b[8];
    int i, rc = vs_gguf_rd_take(r, b, 8, what);
    if (rc)
        return rc;
    *v = 0;
    for (i = 7; i >= 0; i--)
        *v = *v << 8 | b[i];
    return 0;
}

/* A GGUF string: u64 length then bytes. out NULL skips it; else a NUL-ended
 * copy of at most max bytes (longer is an error naming what). */
int vs_gguf_rd_str(vs_gguf_rd *r, char **out, uint64_t max, const char *what)
{
    const char *nul;
    uint64_t n;
    int rc;
    if ((rc = vs_gguf_rd_u64(r, &n, what)))
        return rc;
    if (n > vs_gguf_rd_left(r))
        return vs_error_set_pos(r->err, VS_EFORMAT, (long long)(r->pos - 8),
                                "%s: %s claims %llu bytes, more than the %llu left in the file",
                                r->name, ctx(r, what), (unsigned long long)n,
                                (unsigned long long)vs_gguf_rd_left(r));
    if (!out)
        return vs_gguf_rd_take(r, NULL, n, what);
    if (n > max)
        return vs_error_set_pos(r->err, VS_EFORMAT, (long long)(r->pos - 8),
                                "%s: %s is %llu bytes, longer than %llu", r->name, ctx(r, what),
                                (unsigned long long)n, (unsigned long long)max);
    if (!(*out = malloc((size_t)n + 1)))
        return vs_error_set(r->err, VS_ENOMEM, "%s: out of memory", r->name);
    if ((rc = vs_gguf_rd_take(r, *out, n, what))) {
        free(*out);
        *out = NULL;
        return rc;
    }
    (*out)[n] = '\0';
    if ((nul = memchr(*out, '\0', (size_t)n))) {
        long long at = (long long)(r->pos - n) + (nul - *out);
        free(*out);
        *out = NULL;
        return vs_error_set_pos(r->err, VS_EFORMAT, at, "%s: %s holds a NUL byte", r->name,
                                ctx(r, what));
    }
    return 0;
}

/* ---- the whole header ---- */

void vs_gguf_file_free(vs_gguf_file *f)
{
    size_t i;
    if (!f)
        return;
    for (i = 0; i < f->count; i++)
        free(f->tensors[i].name);
    free(f->tensors);
    free(f->arch.head_count_kv_layers);
    free(f->arch.sliding_window_layers);
    free(f->arch.feed_forward_layers);
    free(f->arch.recurrent_layers);
    free(f);
}

static int cmp_name(const void *a, const void *b)
{
    const vs_gguf_tensor *x = *(const vs_gguf_tensor *const *)a,
                         *y = *(const vs_gguf_tensor *const *)b;
    return strcmp(x->name, y->name);
}

static int read_tensor(vs_gguf_rd *r, vs_gguf_tensor *t, uint64_t index)
{
    char what[64];
    uint32_t type, d;
    uint64_t elements = 1;
    int rc;
    snprintf(what, sizeof what, "the name of tensor %llu", (unsigned long long)index);
    r->subj = NULL;
    if ((rc = vs_gguf_rd_str(r, &t->name, VS_GGUF_MAX_NAME - 1, what)))
        return rc;
    r->subj = t->name;
    if ((rc = vs_gguf_rd_u32(r, &t->ndims, "the dimensions of tensor")))
        return rc;
    if (t->ndims < 1 || t->ndims > VS_GGUF_MAX_DIMS)
        return vs_error_set(r->err, VS_EFORMAT, "%s: tensor '%s' has %u dimensions (1 to %d)",
                            r->name, t->name, t->ndims, VS_GGUF_MAX_DIMS);
    for (d = 0; d < VS_GGUF_MAX_DIMS; d++) {
        t->ne[d] = 1;
        if (d >= t->ndims)
            continue;
        if ((rc = vs_gguf_rd_u64(r, &t->ne[d], "the shape of tensor")))
            return rc;
        if (t->ne[d] > (uint64_t)INT64_MAX)
            return vs_error_set(r->err, VS_EFORMAT, "%s: tensor '%s' has a negative dimension",
                                r->name, t->name);
        if (vs_checked_mul(&elements, elements, t->ne[d]) || elements > (uint64_t)INT64_MAX)
            return vs_error_set(r->err, VS_EFORMAT,
                                "%s: tensor '%s' has more elements than 64 bits count", r->name,
                                t->name);
    }
    if ((rc = vs_gguf_rd_u32(r, &type, "the type of tensor")))
        return rc;
    if (!(t->type = vs_gguf_type_by_id(type)))
        return vs_error_set(r->err, VS_EFORMAT,
                            "%s: tensor '%s' has ggml type %u, which llama.cpp does not define",
                            r->name, t->name, type);
    if (t->ne[0] % t->type->block)
        return vs_error_set(r->err, VS_EFORMAT,
                            "%s: tensor '%s': a row of %llu values is not a whole number of %s "
                            "blocks of %u",
                            r->name, t->name, (unsigned long long)t->ne[0], t->type->name,
                            t->type->block);
    t->elements = elements;
    if (vs_gguf_type_bytes(t->type, elements, &t->bytes))
        return vs_error_set(r->err, VS_EFORMAT, "%s: tensor '%s' has more bytes than 64 bits count",
                            r->name, t->name);
    rc = vs_gguf_rd_u64(r, &t->offset, "the offset of tensor");
    r->subj = NULL;
    return rc;
}

/* A byte of the file as vs_error.position (none past what it can hold). */
static long long file_pos(uint64_t at)
{
    return at > (uint64_t)LLONG_MAX ? VS_ERROR_NO_POSITION : (long long)at;
}

static int parse(vs_gguf_file **out, vs_gguf_rd *r)
{
    unsigned char magic[4];
    uint32_t version;
    uint64_t n_tensors, n_kv, i, expect, end, cap;
    vs_gguf_file *f = NULL;
    vs_gguf_tensor **by_name = NULL;
    vs_gguf_meta m;
    int rc;

    memset(&m, 0, sizeof m);
    *out = NULL;
    if (r->size < 4 || (rc = vs_gguf_rd_take(r, magic, 4, "the magic"))) {
        rc = vs_error_set(r->err, VS_EFORMAT, "%s: %llu bytes: too short for a GGUF file", r->name,
                          (unsigned long long)r->size);
        goto done;
    }
    if (memcmp(magic, "GGUF", 4)) {
        rc = vs_error_set(r->err, VS_EFORMAT, "%s: not a GGUF file (the magic is not \"GGUF\")",
                          r->name);
        goto done;
    }
    if ((rc = vs_gguf_rd_u32(r, &version, "the version")))
        goto done;
    if (version == 0x02000000u || version == 0x03000000u) {
        rc = vs_error_set(r->err, VS_EFORMAT,
                          "%s: a big-endian GGUF file; only little-endian files are read", r->name);
        goto done;
    }
    if (version != 2 && version != 3) {
        rc = vs_error_set(r->err, VS_EFORMAT, "%s: GGUF version %u; versions 2 and 3 are read%s",
                          r->name, version,
                          version == 1 ? " (version 1 is no longer supported by llama.cpp)" : "");
        goto done;
    }
    if ((rc = vs_gguf_rd_u64(r, &n_tensors, "the tensor count")) ||
        (rc = vs_gguf_rd_u64(r, &n_kv, "the metadata count")))
        goto done;
    /* a tensor's entry takes at least 8 + 4 + 8 + 4 + 8 bytes, a key's 8 + 1 + 4 + 1 */
    if (n_tensors > vs_gguf_rd_left(r) / 32) {
        rc = vs_error_set_pos(r->err, VS_EFORMAT, 8,
                              "%s: the header claims %llu tensors, more than the %llu bytes left "
                              "can describe",
                              r->name, (unsigned long long)n_tensors,
                              (unsigned long long)vs_gguf_rd_left(r));
        goto done;
    }
    if (n_kv > vs_gguf_rd_left(r) / 14) {
        rc = vs_error_set_pos(r->err, VS_EFORMAT, 16,
                              "%s: the header claims %llu metadata keys, more than the %llu bytes "
                              "left can hold",
                              r->name, (unsigned long long)n_kv,
                              (unsigned long long)vs_gguf_rd_left(r));
        goto done;
    }
    for (i = 0; i < n_kv; i++)
        if ((rc = vs_gguf_meta_read_kv(r, &m, i)))
            goto done;
    if ((rc = vs_gguf_meta_unique_keys(r, &m)))
        goto done;
    /* the table grows as entries are read: what it holds is bounded by the
     * bytes read, never by the count a header claims */
    if (!(f = calloc(1, sizeof *f)) || !(f->tensors = calloc(1, sizeof *f->tensors))) {
        rc = vs_error_set(r->err, VS_ENOMEM, "%s: out of memory", r->name);
        goto done;
    }
    f->version = version;
    f->n_kv = n_kv;
    f->file_type = -1;
    f->split_tensors = -1;
    f->alignment = VS_GGUF_DEFAULT_ALIGNMENT;
    if (m.alignment.have) {
        if (m.alignment.is_array || m.alignment.v == 0 || m.alignment.v > 0x80000000u ||
            (m.alignment.v & (m.alignment.v - 1))) {
            rc = vs_error_set(r->err, VS_EFORMAT,
                              "%s: general.alignment must be a power of two, not %llu", r->name,
                              (unsigned long long)m.alignment.v);
            goto done;
        }
        f->alignment = (uint32_t)m.alignment.v;
    }
    if (m.file_type.have && !m.file_type.is_array && !m.file_type.neg)
        f->file_type = (int64_t)(m.file_type.v & 0xffffffffu);
    if (m.split_count.have) {
        if (m.split_count.is_array || !m.split_no.have || m.split_no.is_array ||
            m.split_count.v == 0 || m.split_count.v > 99999 || m.split_no.v >= m.split_count.v) {
            rc = vs_error_set(r->err, VS_EFORMAT,
                              "%s: split.no and split.count do not describe a shard of a split "
                              "set",
                              r->name);
            goto done;
        }
        f->split_count = (uint32_t)m.split_count.v;
        f->split_no = (uint32_t)m.split_no.v;
        if (m.split_tensors.have && !m.split_tensors.is_array && !m.split_tensors.neg)
            f->split_tensors = (int64_t)m.split_tensors.v;
    }
    if ((rc = vs_gguf_meta_take_arch(r, f, &m)))
        goto done;
    for (i = 0, cap = 1; i < n_tensors; i++) {
        if (i == cap) {
            vs_gguf_tensor *g;
            cap = cap * 2 < n_tensors ? cap * 2 : n_tensors;
            if (!(g = realloc(f->tensors, (size_t)cap * sizeof *g))) {
                rc = vs_error_set(r->err, VS_ENOMEM, "%s: out of memory", r->name);
                goto done;
            }
            f->tensors = g;
        }
        memset(&f->tensors[i], 0, sizeof f->tensors[i]);
        if ((rc = read_tensor(r, &f->tensors[i], i))) {
            f->count = (size_t)i + 1;
            goto done;
        }
        f->count = (size_t)i + 1;
    }
    /* names are unique */
    if (f->count > 1) {
        if (!(by_name = malloc(f->count * sizeof *by_name))) {
            rc = vs_error_set(r->err, VS_ENOMEM, "%s: out of memory", r->name);
            goto done;
        }
        for (i = 0; i < f->count; i++)
            by_name[i] = &f->tensors[i];
        qsort(by_name, f->count, sizeof *by_name, cmp_name);
        for (i = 1; i < f->count; i++)
            if (!strcmp(by_name[i - 1]->name, by_name[i]->name)) {
                rc = vs_error_set(r->err, VS_EFORMAT, "%s: tensor '%s' is in the table twice",
                                  r->name, by_name[i]->name);
                goto done;
            }
    }
    /* the data section starts at the next multiple of the alignment */
    f->data_start = r->pos;
    if (f->data_start % f->alignment)
        f->data_start += f->alignment - f->data_start % f->alignment;
    /* gguf.cpp: each tensor's data starts where the previous one's, padded
     * to the alignment, ended */
    expect = 0;
    for (i = 0; i < f->count; i++) {
        vs_gguf_tensor *t = &f->tensors[i];
        uint64_t padded;
        if (t->offset % f->alignment) {
            rc = vs_error_set_pos(r->err, VS_EFORMAT, file_pos(f->data_start + t->offset),
                                  "%s: tensor '%s' has offset %llu, not a multiple of the "
                                  "alignment %u",
                                  r->name, t->name, (unsigned long long)t->offset, f->alignment);
            goto done;
        }
        if (t->offset != expect) {
            rc = vs_error_set_pos(
                r->err, VS_EFORMAT, file_pos(f->data_start + t->offset),
                "%s: tensor '%s' has offset %llu, expected %llu: the tensors' data "
                "is %s",
                r->name, t->name, (unsigned long long)t->offset, (unsigned long long)expect,
                t->offset < expect ? "overlapping or out of order" : "not back to back (a hole)");
            goto done;
        }
        padded = t->bytes;
        if (padded % f->alignment)
            padded += f->alignment - padded % f->alignment;
        if (vs_checked_add(&expect, expect, padded) ||
            vs_checked_add(&f->data_bytes, f->data_bytes, t->bytes) ||
            vs_checked_add(&f->params, f->params, t->elements)) {
            rc = vs_error_set(r->err, VS_EFORMAT, "%s: the tensors' sizes overflow 64 bits",
                              r->name);
            goto done;
        }
    }
    if (f->count > 0) {
        const vs_gguf_tensor *last = &f->tensors[f->count - 1];
        if (vs_checked_add(&end, f->data_start, last->offset + last->bytes) || end > r->size) {
            rc = vs_error_set_pos(r->err, VS_EFORMAT,
                                  file_pos(f->data_start + last->offset + last->bytes),
                                  "%s: tensor '%s' ends at byte %llu, past the end of the file "
                                  "(%llu bytes); truncated",
                                  r->name, last->name,
                                  (unsigned long long)(f->data_start + last->offset + last->bytes),
                                  (unsigned long long)r->size);
            goto done;
        }
    }
    *out = f;
    f = NULL;
done:
    free(by_name);
    vs_gguf_file_free(f);
    vs_gguf_meta_free(&m);
    return rc;
}

int vs_gguf_read(vs_gguf_file **out, const char *name, uint64_t file_size, vs_file_read_fn read,
                 void *ctx, uint64_t *bytes_read, vs_error *err)
{
    vs_gguf_rd *r = malloc(sizeof *r);
    int rc;
    *out = NULL;
    if (bytes_read)
        *bytes_read = 0;
    if (!r)
        return vs_error_set(err, VS_ENOMEM, "%s: out of memory", name);
    memset(r, 0, offsetof(vs_gguf_rd, buf));
    r->read = read;
    r->ctx = ctx;
    r->name = name;
    r->size = file_size;
    r->buf_at = 0;
    r->buf_len = 0;
    r->counted = 0;
    r->err = err;
    r->subj = NULL;
    r->label[0] = '\0';
    rc = parse(out, r);
    if (bytes_read)
        *bytes_read = r->counted;
    free(r);
    return rc;
}

typedef struct membuf {
    const unsigned char *p;
    size_t len;
} membuf;

static long long mem_read(void *ctx, void *buf, size_t n, uint64_t offset)
{
    const membuf *m = ctx;
    if (offset >= m->len)
        return 0;
    if (n > m->len - offset)
        n = (size_t)(m->len - offset);
    memcpy(buf, m->p + offset, n);
    return (long long)n;
}

int vs_gguf_parse(vs_gguf_file **out, const char *name, const void *buf, size_t len,
                  uint64_t file_size, vs_error *err)
{
    membuf m = {buf, len};
    if (file_size < len)
        file_size = len;
    return vs_gguf_read(out, name, file_size, mem_read, &m, NULL, err);
}

int vs_gguf_read_file(vs_gguf_file **out, const char *path, uint64_t *file_size,
                      uint64_t *bytes_read, vs_error *err)
{
    uint64_t size = 0;
    int fd, rc;
    *out = NULL;
    if (bytes_read)
        *bytes_read = 0;
    if ((fd = vs_file_open_regular(path, 0, &size, err)) < 0)
        return fd;
    if (file_size)
        *file_size = size;
    rc = vs_gguf_read(out, path, size, vs_file_pread, &fd, bytes_read, err);
    close(fd);
    return rc;
}
