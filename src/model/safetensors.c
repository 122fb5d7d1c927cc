#include "model/safetensors.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/jscan.h"
#include "model/wfile.h"
#include "model/wfile_safetensors.h"
#include "util/checked.h"
#include "util/cmp.h"

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

/* The header's text was not JSON: where, and what was expected. */
static int not_json(const vs_jscan *j, const char *file, const char *what, vs_error *err)
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
            return not_json(j, file, "header", err);
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
            return not_json(j, file, "header", err);
        if (rc == VS_JSCAN_NOT_COUNT)
            return vs_error_set(err, VS_EFORMAT,
                                "%s: tensor '%s': \"%s\" entries must be non-negative integers "
                                "(%s)",
                                file, name, key, j->error);
        if (pair) {
            if (count < 2)
                pair[count] = d;
        } else if (vs_ckd_mul(n, *n, d)) {
            return vs_error_set(err, VS_EFORMAT,
                                "%s: tensor '%s': the shape's element count overflows 64 bits",
                                file, name);
        }
        if (shape_of && count < VS_ST_MAX_DIMS)
            shape_of->shape[count] = d;
        count++;
    }
    if (more < 0)
        return not_json(j, file, "header", err);
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
            return not_json(j, file, "header", err);
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
                    return not_json(j, file, "header", err);
                return vs_error_set(err, VS_EFORMAT, "%s: tensor '%s': \"dtype\" must be a string",
                                    file, name);
            }
            if (vs_jscan_string(j))
                return not_json(j, file, "header", err);
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
            return not_json(j, file, "header", err);
        }
    }
    if (more < 0)
        return not_json(j, file, "header", err);
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
    if (vs_ckd_mul(&bytes, n, (uint64_t)vs_st_dtype_size(t->dtype)))
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

/* A string -> index map (open addressing, FNV-1a): duplicate names and
 * lookups over thousands of tensors whose names share long prefixes, where
 * sorting would spend its time in strcmp. Keys are borrowed. */
typedef struct strmap {
    const char **keys;
    size_t *vals;
    size_t mask, n;
} strmap;

static int strmap_init(strmap *m, size_t hint)
{
    size_t cap = 16;
    while (cap < 2 * hint + 2)
        cap *= 2;
    m->mask = cap - 1;
    m->n = 0;
    m->keys = calloc(cap, sizeof *m->keys);
    m->vals = malloc(cap * sizeof *m->vals);
    if (!m->keys || !m->vals) {
        free(m->keys);
        free(m->vals);
        m->keys = NULL;
        m->vals = NULL;
        return VS_ENOMEM;
    }
    return 0;
}

static void strmap_free(strmap *m)
{
    free(m->keys);
    free(m->vals);
    m->keys = NULL;
    m->vals = NULL;
}

static size_t strmap_slot(const char *const *keys, size_t mask, const char *key)
{
    uint64_t h = 14695981039346656037ULL;
    const unsigned char *p;
    size_t i;
    for (p = (const unsigned char *)key; *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    for (i = (size_t)h & mask; keys[i] && strcmp(keys[i], key) != 0; i = (i + 1) & mask)
        ;
    return i;
}

/* The value stored for key, or NULL. */
static size_t *strmap_get(const strmap *m, const char *key)
{
    size_t i = strmap_slot(m->keys, m->mask, key);
    return m->keys[i] ? &m->vals[i] : NULL;
}

/* Stores key -> val: 0 when inserted, 1 when key was there (*existing then
 * points at its value), VS_ENOMEM when memory is short. Keeps the load under 1/2. */
static int strmap_put(strmap *m, const char *key, size_t val, size_t **existing)
{
    size_t i = strmap_slot(m->keys, m->mask, key);
    if (m->keys[i]) {
        if (existing)
            *existing = &m->vals[i];
        return 1;
    }
    if (2 * (m->n + 1) > m->mask + 1) {
        size_t cap = 2 * (m->mask + 1), k;
        const char **keys = calloc(cap, sizeof *keys);
        size_t *vals = malloc(cap * sizeof *vals);
        if (!keys || !vals) {
            free(keys);
            free(vals);
            return VS_ENOMEM;
        }
        for (k = 0; k <= m->mask; k++) {
            if (m->keys[k]) {
                size_t j = strmap_slot(keys, cap - 1, m->keys[k]);
                keys[j] = m->keys[k];
                vals[j] = m->vals[k];
            }
        }
        free(m->keys);
        free(m->vals);
        m->keys = keys;
        m->vals = vals;
        m->mask = cap - 1;
        i = strmap_slot(m->keys, m->mask, key);
    }
    m->keys[i] = key;
    m->vals[i] = val;
    m->n++;
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
        return vs_jscan_skip(j) ? not_json(j, name, "header", err) : 0;
    if (c != '{') {
        if (vs_jscan_skip(j))
            return not_json(j, name, "header", err);
        return vs_error_set(err, VS_EFORMAT, "%s: \"__metadata__\" is not an object %s", name,
                            expected);
    }
    if (vs_jscan_object(j))
        return not_json(j, name, "header", err);
    while ((more = vs_jscan_key(j, first)) == 1) {
        first = 0;
        snprintf(key, sizeof key, "%s", j->str);
        cut = j->str_len >= sizeof key; /* j->str is reused by what follows */
        if (vs_jscan_peek(j) != '"') {
            if (vs_jscan_skip(j))
                return not_json(j, name, "header", err);
            return vs_error_set(err, VS_EFORMAT,
                                "%s: \"__metadata__\" value of '%s%s' is not a string %s", name,
                                key, cut ? "..." : "", expected);
        }
        if (vs_jscan_string(j))
            return not_json(j, name, "header", err);
    }
    return more < 0 ? not_json(j, name, "header", err) : 0;
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
                 ? not_json(&j, name, "header", err)
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
        rc = not_json(&j, name, "header", err);
        goto done;
    }
    if (f->count > 1) {
        strmap seen;
        if (strmap_init(&seen, f->count)) {
            rc = vs_error_set(err, VS_ENOMEM, "%s: out of memory reading the header", name);
            goto done;
        }
        for (i = 0; i < f->count && (dup = strmap_put(&seen, f->tensors[i].name, i, NULL)) == 0;
             i++)
            ;
        strmap_free(&seen);
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
        if (vs_ckd_add(&f->params, f->params, t->elements)) {
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

/* ---- model.safetensors.index.json ---- */

void vs_st_index_free(vs_st_index *ix)
{
    size_t i;
    if (!ix)
        return;
    for (i = 0; i < ix->count; i++)
        free(ix->tensors[i]);
    for (i = 0; i < ix->nshards; i++)
        free(ix->shards[i]);
    free(ix->tensors);
    free(ix->shard_of);
    free(ix->shards);
    free(ix);
}

static int plain_file_name(const char *s)
{
    return *s && !strchr(s, '/') && strcmp(s, ".") != 0 && strcmp(s, "..") != 0;
}

/* Grows an array of n elements of size sz to hold one more: 0 or VS_ENOMEM. */
static int grow(void *arrp, size_t *cap, size_t n, size_t sz)
{
    void **arr = arrp, *p;
    size_t ncap;
    if (n < *cap)
        return 0;
    ncap = *cap ? *cap * 2 : 256;
    if (!(p = realloc(*arr, ncap * sz)))
        return VS_ENOMEM;
    *arr = p;
    *cap = ncap;
    return 0;
}

/* The shard's number in ix->shards, appended when new. Consecutive entries
 * usually name the same shard: that is checked before the map. */
static int shard_number(vs_st_index *ix, size_t *scap, strmap *known, const char *shard,
                        size_t *out)
{
    size_t *hit = NULL;
    char *copy;
    int r;
    if (ix->count > 0 && !strcmp(ix->shards[ix->shard_of[ix->count - 1]], shard)) {
        *out = ix->shard_of[ix->count - 1];
        return 0;
    }
    if ((hit = strmap_get(known, shard))) {
        *out = *hit;
        return 0;
    }
    if (grow(&ix->shards, scap, ix->nshards, sizeof *ix->shards) || !(copy = strdup(shard)))
        return VS_ENOMEM;
    ix->shards[ix->nshards] = copy;
    *out = ix->nshards++;
    r = strmap_put(known, copy, *out, NULL);
    return r < 0 ? VS_ENOMEM : 0;
}

int vs_st_index_parse(vs_st_index **out, const char *name, const char *json, size_t len,
                      vs_error *err)
{
    vs_jscan j;
    vs_st_index *ix = calloc(1, sizeof *ix);
    strmap known = {NULL, NULL, 0, 0}, seen = {NULL, NULL, 0, 0};
    size_t tcap = 0, scap = 0, i, *map = NULL, shard;
    char *tensor = NULL, **sorted = NULL;
    int more, first = 1, rc = 0, have_map = 0;

    *out = NULL;
    vs_jscan_init(&j, json, len);
    if (!ix || strmap_init(&known, 16)) {
        rc = vs_error_set(err, VS_ENOMEM, "out of memory");
        goto done;
    }
    if (vs_jscan_peek(&j) != '{') {
        rc = vs_jscan_skip(&j) || vs_jscan_end(&j)
                 ? not_json(&j, name, "index", err)
                 : vs_error_set(err, VS_EFORMAT, "%s: the index is not a JSON object", name);
        goto done;
    }
    vs_jscan_object(&j);
    while ((more = vs_jscan_key(&j, first)) == 1) {
        int m, mfirst = 1;
        first = 0;
        if (strcmp(j.str, "weight_map") != 0 || vs_jscan_peek(&j) != '{') {
            if (vs_jscan_skip(&j)) {
                rc = not_json(&j, name, "index", err);
                goto done;
            }
            continue;
        }
        if (have_map++) {
            rc = vs_error_set(err, VS_EFORMAT, "%s: \"weight_map\" is given twice", name);
            goto done;
        }
        vs_jscan_object(&j);
        while ((m = vs_jscan_key(&j, mfirst)) == 1) {
            mfirst = 0;
            if (!(tensor = strdup(j.str))) {
                rc = vs_error_set(err, VS_ENOMEM, "out of memory");
                goto done;
            }
            if (vs_jscan_peek(&j) != '"') {
                if (vs_jscan_skip(&j)) {
                    rc = not_json(&j, name, "index", err);
                    goto done;
                }
                rc = vs_error_set(err, VS_EFORMAT,
                                  "%s: weight_map entry for '%s' must name a shard file beside "
                                  "the index",
                                  name, tensor);
                goto done;
            }
            if (vs_jscan_string(&j)) {
                rc = not_json(&j, name, "index", err);
                goto done;
            }
            if (!plain_file_name(j.str)) {
                rc = vs_error_set(err, VS_EFORMAT,
                                  "%s: weight_map entry for '%s' must name a shard file beside "
                                  "the index, not '%s'",
                                  name, tensor, j.str);
                goto done;
            }
            if (ix->count == tcap) {
                size_t ocap = tcap, scap2 = tcap;
                if (grow(&ix->tensors, &tcap, ix->count, sizeof *ix->tensors) ||
                    grow(&ix->shard_of, &scap2, ocap, sizeof *ix->shard_of)) {
                    rc = vs_error_set(err, VS_ENOMEM, "out of memory");
                    goto done;
                }
            }
            if (shard_number(ix, &scap, &known, j.str, &shard)) {
                rc = vs_error_set(err, VS_ENOMEM, "out of memory");
                goto done;
            }
            ix->tensors[ix->count] = tensor;
            ix->shard_of[ix->count++] = shard;
            tensor = NULL;
        }
        if (m < 0) {
            rc = not_json(&j, name, "index", err);
            goto done;
        }
    }
    if (more < 0 || vs_jscan_end(&j)) {
        rc = not_json(&j, name, "index", err);
        goto done;
    }
    if (ix->count == 0) {
        rc = vs_error_set(err, VS_EFORMAT,
                          "%s: no \"weight_map\" object with entries (a "
                          "model.safetensors.index.json maps each tensor to its shard)",
                          name);
        goto done;
    }
    /* a tensor mapped twice */
    if (strmap_init(&seen, ix->count)) {
        rc = vs_error_set(err, VS_ENOMEM, "out of memory");
        goto done;
    }
    for (i = 0; i < ix->count; i++) {
        int r = strmap_put(&seen, ix->tensors[i], i, NULL);
        if (r < 0) {
            rc = vs_error_set(err, VS_ENOMEM, "out of memory");
            goto done;
        }
        if (r > 0) {
            rc = vs_error_set(err, VS_EFORMAT, "%s: tensor '%s' is listed twice in weight_map",
                              name, ix->tensors[i]);
            goto done;
        }
    }
    /* shards in name order, so that files are read and listed the same way
     * whatever the index's order */
    sorted = malloc(ix->nshards * sizeof *sorted);
    map = malloc(ix->nshards * sizeof *map);
    if (!sorted || !map) {
        rc = vs_error_set(err, VS_ENOMEM, "out of memory");
        goto done;
    }
    memcpy(sorted, ix->shards, ix->nshards * sizeof *sorted);
    qsort(sorted, ix->nshards, sizeof *sorted, vs_cmp_str);
    for (i = 0; i < ix->nshards; i++)
        map[*strmap_get(&known, sorted[i])] = i;
    for (i = 0; i < ix->count; i++)
        ix->shard_of[i] = map[ix->shard_of[i]];
    memcpy(ix->shards, sorted, ix->nshards * sizeof *sorted);
    *out = ix;
    ix = NULL;
done:
    free(tensor);
    free(sorted);
    free(map);
    strmap_free(&known);
    strmap_free(&seen);
    vs_st_index_free(ix);
    vs_jscan_free(&j);
    return rc;
}

int vs_st_index_check(const vs_st_index *ix, const vs_st_file *const *files, const char *name,
                      vs_error *err)
{
    strmap where;
    size_t total = 0, i, k, *hit;
    int rc = 0;
    for (k = 0; k < ix->nshards; k++)
        total += files[k]->count;
    if (strmap_init(&where, total))
        return vs_error_set(err, VS_ENOMEM, "out of memory");
    for (k = 0; k < ix->nshards; k++) {
        for (i = 0; i < files[k]->count; i++) {
            int r = strmap_put(&where, files[k]->tensors[i].name, k, &hit);
            if (r < 0) {
                rc = vs_error_set(err, VS_ENOMEM, "out of memory");
                goto done;
            }
            if (r > 0) {
                rc = vs_error_set(err, VS_EFORMAT,
                                  "%s: tensor '%s' is stored in two shards (%s, %s)", name,
                                  files[k]->tensors[i].name, ix->shards[*hit], ix->shards[k]);
                goto done;
            }
        }
    }
    for (i = 0; i < ix->count; i++) {
        hit = strmap_get(&where, ix->tensors[i]);
        if (!hit || *hit != ix->shard_of[i]) {
            rc = vs_error_set(err, VS_EFORMAT,
                              "%s: weight_map puts tensor '%s' in %s, whose header does not "
                              "have it",
                              name, ix->tensors[i], ix->shards[ix->shard_of[i]]);
            goto done;
        }
    }
done:
    strmap_free(&where);
    return rc;
}

/* Reads exactly n bytes or says why not. */
static int read_exact(vs_st_read_fn read, void *ctx, void *buf, size_t n, uint64_t offset,
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

int vs_safetensors_read(vs_st_file **out, const char *name, uint64_t file_size, vs_st_read_fn read,
                        void *ctx, uint64_t *bytes_read, vs_error *err)
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

static long long pread_fn(void *ctx, void *buf, size_t n, uint64_t offset)
{
    int fd = *(int *)ctx;
    ssize_t r;
    do {
        r = pread(fd, buf, n, (off_t)offset);
    } while (r < 0 && errno == EINTR);
    return (long long)r;
}

static const char *file_kind(mode_t m)
{
    if (S_ISDIR(m))
        return "a folder";
    if (S_ISFIFO(m))
        return "a FIFO";
    if (S_ISCHR(m))
        return "a character device";
    if (S_ISBLK(m))
        return "a block device";
    if (S_ISSOCK(m))
        return "a socket";
    return "not a regular file";
}

int vs_open_regular(const char *path, uint64_t max_size, uint64_t *size, vs_error *err)
{
    struct stat st;
    int fd, fl, rc;
    /* O_NONBLOCK: opening a FIFO for reading waits for a writer otherwise, so
     * the check below would never be reached. It is cleared once the file is
     * known to be regular (where it changes nothing anyway). */
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return vs_error_set(err, VS_EIO, "cannot open %s: %s", path, strerror(errno));
    if (fstat(fd, &st) != 0) {
        rc = vs_error_set(err, VS_EIO, "cannot stat %s: %s", path, strerror(errno));
        goto fail;
    }
    if (!S_ISREG(st.st_mode)) {
        rc = vs_error_set(err, VS_EIO, "%s is %s, not a regular file: expected a file on disk",
                          path, S_ISLNK(st.st_mode) ? "a link" : file_kind(st.st_mode));
        goto fail;
    }
    if ((fl = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
        rc = vs_error_set(err, VS_EIO, "cannot read %s: %s", path, strerror(errno));
        goto fail;
    }
    if (max_size && (uint64_t)st.st_size > max_size) {
        rc = vs_error_set(err, VS_EFORMAT,
                          "%s: %lld bytes is too large for this kind of file (at most %llu)", path,
                          (long long)st.st_size, (unsigned long long)max_size);
        goto fail;
    }
    if (size)
        *size = (uint64_t)st.st_size;
    return fd;
fail:
    close(fd);
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
    if ((fd = vs_open_regular(path, 0, &size, err)) < 0)
        return fd;
    if (file_size)
        *file_size = size;
    rc = vs_safetensors_read(out, path, size, pread_fn, &fd, bytes_read, err);
    close(fd);
    return rc;
}

/* ---- summary: the format-neutral one (model/wfile.h), in safetensors' dtypes ---- */

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

void vs_st_name_pattern(const char *name, char *out, size_t outlen)
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
    int rc = vs_wf_from_st(&l, f, err);
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
