#include "model/safetensors.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/jscan.h"
#include "model/safetensors_internal.h"
#include "util/checked.h"
#include "util/file.h"

static const struct {
    const char *name;
    unsigned size;
} dtypes[VS_ST_NDTYPES] = {
    [VS_ST_F64] = {"F64", 8},         [VS_ST_F32] = {"F32", 4},
    [VS_ST_F16] = {"F16", 2},         [VS_ST_BF16] = {"BF16", 2},
    [VS_ST_F8_E4M3] = {"F8_E4M3", 1}, [VS_ST_F8_E5M2] = {"F8_E5M2", 1},
    [VS_ST_F8_E8M0] = {"F8_E8M0", 1}, [VS_ST_I64] = {"I64", 8},
    [VS_ST_I32] = {"I32", 4},         [VS_ST_I16] = {"I16", 2},
    [VS_ST_I8] = {"I8", 1},           [VS_ST_U64] = {"U64", 8},
    [VS_ST_U32] = {"U32", 4},         [VS_ST_U16] = {"U16", 2},
    [VS_ST_U8] = {"U8", 1},           [VS_ST_BOOL] = {"BOOL", 1},
};

const char *vs_st_dtype_name(vs_st_dtype d)
{
    return (unsigned)d < VS_ST_NDTYPES ? dtypes[d].name : NULL;
}

unsigned vs_st_dtype_size(vs_st_dtype d)
{
    return (unsigned)d < VS_ST_NDTYPES ? dtypes[d].size : 0;
}

int vs_st_dtype_parse(const char *name, vs_st_dtype *out)
{
    int i;
    for (i = 0; i < VS_ST_NDTYPES; i++) {
        if (!strcmp(dtypes[i].name, name)) {
            *out = (vs_st_dtype)i;
            return 0;
        }
    }
    return VS_EFORMAT;
}

void vs_st_file_free(vs_st_file *f)
{
    size_t i;
    if (!f)
        return;
    for (i = 0; i < f->count; i++)
        free(f->tensors[i].name);
    free(f->tensors);
    free(f);
}

int vs_safetensors_not_json(const vs_jscan *j, const char *file, const char *what, vs_error *err)
{
    if (j->nomem)
        return vs_error_set(err, VS_ENOMEM, "%s: out of memory reading the %s", file, what);
    return vs_error_set_pos(err, VS_EFORMAT, (long long)j->error_at,
                            "%s: the %s is not JSON (byte %zu of it: %s)", file, what, j->error_at,
                            j->error ? j->error : "malformed");
}

/* Reads [d0, d1, ...] as non-negative integers into *n (the product, overflow
 * checked) or, with pair != NULL, exactly two of them into pair. */
static int read_dims(vs_jscan *j, const char *file, const char *name, const char *key, uint64_t *n,
                     uint64_t pair[2], vs_st_tensor *shape_of, vs_error *err)
{
    int more, first = 1, rc;
    size_t count = 0;
    uint64_t d;
    if (vs_jscan_peek(j) != '[') {
        if (vs_jscan_skip(j))
            return vs_safetensors_not_json(j, file, "header", err);
        return vs_error_set(err, VS_EFORMAT, "%s: tensor '%s': \"%s\" must be a list", file, name,
                            key);
    }
    vs_jscan_array(j);
    if (n)
        *n = 1;
    while ((more = vs_jscan_next(j, first)) == 1) {
        first = 0;
        rc = vs_jscan_uint(j, &d);
        if (rc == VS_JSCAN_BAD)
            return vs_safetensors_not_json(j, file, "header", err);
        if (rc == VS_JSCAN_NOT_COUNT)
            return vs_error_set(err, VS_EFORMAT,
                                "%s: tensor '%s': \"%s\" entries must be non-negative integers "
                                "(%s)",
                                file, name, key, j->error);
        if (pair) {
            if (count < 2)
                pair[count] = d;
        } else if (vs_checked_mul(n, *n, d)) {
            return vs_error_set(err, VS_EFORMAT,
                                "%s: tensor '%s': the shape's element count overflows 64 bits",
                                file, name);
        }
        if (shape_of && count < VS_ST_MAX_DIMS)
            shape_of->shape[count] = d;
        count++;
    }
    if (more < 0)
        return vs_safetensors_not_json(j, file, "header", err);
    if (shape_of)
        shape_of->ndims = count < VS_ST_MAX_DIMS ? (unsigned)count : VS_ST_MAX_DIMS;
    if (pair && count != 2)
        return vs_error_set(err, VS_EFORMAT,
                            "%s: tensor '%s': \"data_offsets\" must be [begin, end], not %zu "
                            "numbers",
                            file, name, count);
    return 0;
}

/* One tensor's entry: {"dtype": ..., "shape": [...], "data_offsets": [b, e]}
 * (other keys are ignored, as the reference implementation does). */
static int parse_tensor(vs_st_tensor *t, vs_jscan *j, const char *file, const char *name,
                        uint64_t data_size, vs_error *err)
{
    int more, first = 1, rc, have_dtype = 0, have_shape = 0, have_off = 0;
    uint64_t n = 1, bytes, off[2] = {0, 0};

    if (vs_jscan_peek(j) != '{') {
        if (vs_jscan_skip(j))
            return vs_safetensors_not_json(j, file, "header", err);
        return vs_error_set(err, VS_EFORMAT, "%s: tensor '%s': expected an object", file, name);
    }
    vs_jscan_object(j);
    while ((more = vs_jscan_key(j, first)) == 1) {
        first = 0;
        if (!strcmp(j->str, "dtype")) {
            if (have_dtype++)
                return vs_error_set(err, VS_EFORMAT, "%s: tensor '%s': \"dtype\" given twice", file,
                                    name);
            if (vs_jscan_peek(j) != '"') {
                if (vs_jscan_skip(j))
                    return vs_safetensors_not_json(j, file, "header", err);
                return vs_error_set(err, VS_EFORMAT, "%s: tensor '%s': \"dtype\" must be a string",
                                    file, name);
            }
            if (vs_jscan_string(j))
                return vs_safetensors_not_json(j, file, "header", err);
            if (vs_st_dtype_parse(j->str, &t->dtype))
                return vs_error_set(err, VS_EFORMAT,
                                    "%s: tensor '%s': unknown dtype '%s' (known: F64 F32 F16 BF16 "
                                    "F8_E4M3 F8_E5M2 F8_E8M0 I64 I32 I16 I8 U64 U32 U16 U8 BOOL)",
                                    file, name, j->str);
        } else if (!strcmp(j->str, "shape")) {
            if (have_shape++)
                return vs_error_set(err, VS_EFORMAT, "%s: tensor '%s': \"shape\" given twice", file,
                                    name);
            if ((rc = read_dims(j, file, name, "shape", &n, NULL, t, err)))
                return rc;
        } else if (!strcmp(j->str, "data_offsets")) {
            if (have_off++)
                return vs_error_set(err, VS_EFORMAT,
                                    "%s: tensor '%s': \"data_offsets\" given twice", file, name);
            if ((rc = read_dims(j, file, name, "data_offsets", NULL, off, NULL, err)))
                return rc;
        } else if (vs_jscan_skip(j)) {
            return vs_safetensors_not_json(j, file, "header", err);
        }
    }
    if (more < 0)
        return vs_safetensors_not_json(j, file, "header", err);
    if (!have_dtype || !have_shape || !have_off)
        return vs_error_set(err, VS_EFORMAT, "%s: tensor '%s': \"%s\" is missing", file, name,
                            !have_dtype   ? "dtype"
                            : !have_shape ? "shape"
                                          : "data_offsets");
    t->begin = off[0];
    t->end = off[1];
    if (t->begin > t->end)
        return vs_error_set(err, VS_EFORMAT,
                            "%s: tensor '%s': data_offsets [%llu, %llu] are out of order", file,
                            name, (unsigned long long)t->begin, (unsigned long long)t->end);
    if (t->end > data_size)
        return vs_error_set(err, VS_EFORMAT,
                            "%s: tensor '%s': data_offsets [%llu, %llu] run past the end of the "
                            "file (its data area is %llu bytes; truncated?)",
                            file, name, (unsigned long long)t->begin, (unsigned long long)t->end,
                            (unsigned long long)data_size);
    if (vs_checked_mul(&bytes, n, (uint64_t)vs_st_dtype_size(t->dtype)))
        return vs_error_set(err, VS_EFORMAT,
                            "%s: tensor '%s': the shape's byte size overflows 64 bits", file, name);
    if (t->end - t->begin != bytes)
        return vs_error_set(err, VS_EFORMAT,
                            "%s: tensor '%s': data_offsets cover %llu bytes but the shape holds "
                            "%llu elements x %u bytes (%s) = %llu bytes",
                            file, name, (unsigned long long)(t->end - t->begin),
                            (unsigned long long)n, vs_st_dtype_size(t->dtype),
                            vs_st_dtype_name(t->dtype), (unsigned long long)bytes);
    t->elements = n;
    return 0;
}

static int cmp_offsets(const void *a, const void *b)
{
    const vs_st_tensor *x = a, *y = b;
    if (x->begin != y->begin)
        return x->begin < y->begin ? -1 : 1;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* "__metadata__" is a map of strings to strings in the format (the reference
 * loader deserialises it as Option<HashMap<String, String>> and refuses a file
 * where it is anything else); null stands for none, as there. Skipping any value
 * accepted files that loader rejects. */
static int read_metadata(vs_jscan *j, const char *name, vs_error *err)
{
    static const char expected[] =
        "(expected an object of string keys to string values, as the safetensors format says)";
    char key[64];
    int more, first = 1, cut;
    char c = vs_jscan_peek(j);
    if (c == 'n')
        return vs_jscan_skip(j) ? vs_safetensors_not_json(j, name, "header", err) : 0;
    if (c != '{') {
        if (vs_jscan_skip(j))
            return vs_safetensors_not_json(j, name, "header", err);
        return vs_error_set(err, VS_EFORMAT, "%s: \"__metadata__\" is not an object %s", name,
                            expected);
    }
    if (vs_jscan_object(j))
        return vs_safetensors_not_json(j, name, "header", err);
    while ((more = vs_jscan_key(j, first)) == 1) {
        first = 0;
        snprintf(key, sizeof key, "%s", j->str);
        cut = j->str_len >= sizeof key; /* j->str is reused by what follows */
        if (vs_jscan_peek(j) != '"') {
            if (vs_jscan_skip(j))
                return vs_safetensors_not_json(j, name, "header", err);
            return vs_error_set(err, VS_EFORMAT,
                                "%s: \"__metadata__\" value of '%s%s' is not a string %s", name,
                                key, cut ? "..." : "", expected);
        }
        if (vs_jscan_string(j))
            return vs_safetensors_not_json(j, name, "header", err);
    }
    return more < 0 ? vs_safetensors_not_json(j, name, "header", err) : 0;
}

int vs_safetensors_parse_header(vs_st_file **out, const char *name, const char *json, size_t len,
                                uint64_t data_size, vs_error *err)
{
    vs_jscan j;
    vs_st_file *f = NULL;
    size_t cap = 0, i;
    uint64_t pos = 0;
    int more, first = 1, rc = 0, meta = 0, dup = 0;

    *out = NULL;
    vs_jscan_init(&j, json, len);
    if (!(f = calloc(1, sizeof *f))) {
        rc = vs_error_set(err, VS_ENOMEM, "%s: out of memory reading the header", name);
        goto done;
    }
    f->header_len = len;
    if (vs_jscan_peek(&j) != '{') {
        rc = vs_jscan_skip(&j) || vs_jscan_end(&j)
                 ? vs_safetensors_not_json(&j, name, "header", err)
                 : vs_error_set(err, VS_EFORMAT, "%s: the header is not a JSON object", name);
        goto done;
    }
    vs_jscan_object(&j);
    while ((more = vs_jscan_key(&j, first)) == 1) {
        vs_st_tensor *t;
        first = 0;
        if (!strcmp(j.str, "__metadata__")) {
            if (meta++) {
                rc = vs_error_set(err, VS_EFORMAT, "%s: \"__metadata__\" is given twice", name);
                goto done;
            }
            if ((rc = read_metadata(&j, name, err)))
                goto done;
            continue;
        }
        if (f->count == cap) {
            size_t ncap = cap ? cap * 2 : 64;
            vs_st_tensor *nt = realloc(f->tensors, ncap * sizeof *nt);
            if (!nt) {
                rc = vs_error_set(err, VS_ENOMEM, "%s: out of memory reading the header", name);
                goto done;
            }
            f->tensors = nt;
            cap = ncap;
        }
        t = &f->tensors[f->count];
        memset(t, 0, sizeof *t);
        if (!(t->name = strdup(j.str))) {
            rc = vs_error_set(err, VS_ENOMEM, "%s: out of memory reading the header", name);
            goto done;
        }
        f->count++;
        if ((rc = parse_tensor(t, &j, name, t->name, data_size, err)))
            goto done;
    }
    if (more < 0 || vs_jscan_end(&j)) {
        rc = vs_safetensors_not_json(&j, name, "header", err);
        goto done;
    }
    if (f->count > 1) {
        vs_st_map seen;
        if (vs_st_map_init(&seen, f->count)) {
            rc = vs_error_set(err, VS_ENOMEM, "%s: out of memory reading the header", name);
            goto done;
        }
        for (i = 0; i < f->count && (dup = vs_st_map_put(&seen, f->tensors[i].name, i, NULL)) == 0;
             i++)
            ;
        vs_st_map_free(&seen);
        if (dup < 0) {
            rc = vs_error_set(err, VS_ENOMEM, "%s: out of memory reading the header", name);
            goto done;
        }
        if (dup > 0) {
            rc = vs_error_set(err, VS_EFORMAT, "%s: tensor '%s' is listed twice", name,
                              f->tensors[i].name);
            goto done;
        }
        qsort(f->tensors, f->count, sizeof *f->tensors, cmp_offsets);
    }
    for (i = 0; i < f->count; i++) {
        const vs_st_tensor *t = &f->tensors[i];
        if (t->begin < pos) {
            rc = vs_error_set(err, VS_EFORMAT,
                              "%s: tensor '%s': data_offsets [%llu, %llu] overlap tensor '%s' "
                              "(which ends at %llu)",
                              name, t->name, (unsigned long long)t->begin,
                              (unsigned long long)t->end, f->tensors[i - 1].name,
                              (unsigned long long)pos);
            goto done;
        }
        if (t->begin > pos) {
            rc = vs_error_set(err, VS_EFORMAT,
                              "%s: tensor '%s': data_offsets start at %llu, leaving a hole of "
                              "%llu bytes after offset %llu (the format has no holes)",
                              name, t->name, (unsigned long long)t->begin,
                              (unsigned long long)(t->begin - pos), (unsigned long long)pos);
            goto done;
        }
        pos = t->end;
        /* sums cannot overflow: the tensors tile a data area of data_size bytes */
        f->data_bytes += t->end - t->begin;
        if (vs_checked_add(&f->params, f->params, t->elements)) {
            rc = vs_error_set(err, VS_EFORMAT, "%s: the element count overflows 64 bits", name);
            goto done;
        }
    }
    if (pos != data_size) {
        rc = vs_error_set(err, VS_EFORMAT,
                          "%s: the tensors cover %llu bytes of data but the file holds %llu after "
                          "its header (%llu bytes unaccounted for)",
                          name, (unsigned long long)pos, (unsigned long long)data_size,
                          (unsigned long long)(data_size - pos));
        goto done;
    }
    *out = f;
    f = NULL;
done:
    vs_st_file_free(f);
    vs_jscan_free(&j);
    return rc;
}

/* Reads exactly n bytes or says why not. */
static int read_exact(vs_file_read_fn read, void *ctx, void *buf, size_t n, uint64_t offset,
                      uint64_t *counted, const char *name, const char *what, vs_error *err)
{
    size_t got = 0;
    while (got < n) {
        long long r = read(ctx, (char *)buf + got, n - got, offset + got);
        if (r < 0)
            return vs_error_set(err, VS_EIO, "%s: cannot read %s: %s", name, what, strerror(errno));
        if (r == 0)
            return vs_error_set(err, VS_EFORMAT, "%s: truncated: the file ends inside %s", name,
                                what);
        if ((size_t)r > n - got)
            return vs_error_set(err, VS_EIO, "%s: the reader returned more than asked", name);
        got += (size_t)r;
        *counted += (uint64_t)r;
    }
    return 0;
}

int vs_safetensors_read(vs_st_file **out, const char *name, uint64_t file_size,
                        vs_file_read_fn read, void *ctx, uint64_t *bytes_read, vs_error *err)
{
    unsigned char lenbuf[8];
    uint64_t hlen = 0, counted = 0;
    char *header = NULL;
    int rc = 0, i;

    *out = NULL;
    if (file_size < 8) {
        rc = vs_error_set(err, VS_EFORMAT,
                          "%s: truncated: %llu bytes, shorter than the 8-byte header length", name,
                          (unsigned long long)file_size);
        goto done;
    }
    if ((rc = read_exact(read, ctx, lenbuf, 8, 0, &counted, name, "the header length", err)))
        goto done;
    for (i = 7; i >= 0; i--)
        hlen = (hlen << 8) | lenbuf[i];
    if (hlen > file_size - 8) {
        rc = vs_error_set(err, VS_EFORMAT,
                          "%s: the header length %llu is larger than the file (%llu bytes); "
                          "truncated, or not a safetensors file",
                          name, (unsigned long long)hlen, (unsigned long long)file_size);
        goto done;
    }
    if (hlen > VS_ST_HEADER_MAX) {
        rc = vs_error_set(err, VS_EFORMAT,
                          "%s: the header length %llu exceeds the format's limit of %llu bytes",
                          name, (unsigned long long)hlen, (unsigned long long)VS_ST_HEADER_MAX);
        goto done;
    }
    if (hlen == 0) {
        rc = vs_error_set(err, VS_EFORMAT, "%s: the header is not JSON (it is empty)", name);
        goto done;
    }
    if (!(header = malloc((size_t)hlen))) {
        rc = vs_error_set(err, VS_ENOMEM, "%s: out of memory for a %llu-byte header", name,
                          (unsigned long long)hlen);
        goto done;
    }
    if ((rc = read_exact(read, ctx, header, (size_t)hlen, 8, &counted, name, "the header", err)))
        goto done;
    rc = vs_safetensors_parse_header(out, name, header, (size_t)hlen, file_size - 8 - hlen, err);
done:
    if (bytes_read)
        *bytes_read = counted;
    free(header);
    return rc;
}

int vs_safetensors_read_file(vs_st_file **out, const char *path, uint64_t *file_size,
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
    rc = vs_safetensors_read(out, path, size, vs_file_pread, &fd, bytes_read, err);
    close(fd);
    return rc;
}
