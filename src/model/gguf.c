#include "model/gguf.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "util/checked.h"
#include "util/cmp.h"

/* ---- types ---- */

/* ggml-org/llama.cpp ggml/include/ggml.h (enum ggml_type) and
 * ggml/src/ggml-common.h (block_* structs; ggml.c type_traits: blck_size,
 * type_size), commit 01243c587fec. Ids 4, 5, 31-33 and 36-38 were removed
 * from the format and are refused like any unknown id. */
static const vs_gguf_type types[] = {
    {0, "F32", 1, 4},         {1, "F16", 1, 2},         {2, "Q4_0", 32, 18},
    {3, "Q4_1", 32, 20},      {6, "Q5_0", 32, 22},      {7, "Q5_1", 32, 24},
    {8, "Q8_0", 32, 34},      {9, "Q8_1", 32, 36},      {10, "Q2_K", 256, 84},
    {11, "Q3_K", 256, 110},   {12, "Q4_K", 256, 144},   {13, "Q5_K", 256, 176},
    {14, "Q6_K", 256, 210},   {15, "Q8_K", 256, 292},   {16, "IQ2_XXS", 256, 66},
    {17, "IQ2_XS", 256, 74},  {18, "IQ3_XXS", 256, 98}, {19, "IQ1_S", 256, 50},
    {20, "IQ4_NL", 32, 18},   {21, "IQ3_S", 256, 110},  {22, "IQ2_S", 256, 82},
    {23, "IQ4_XS", 256, 136}, {24, "I8", 1, 1},         {25, "I16", 1, 2},
    {26, "I32", 1, 4},        {27, "I64", 1, 8},        {28, "F64", 1, 8},
    {29, "IQ1_M", 256, 56},   {30, "BF16", 1, 2},       {34, "TQ1_0", 256, 54},
    {35, "TQ2_0", 256, 66},   {39, "MXFP4", 32, 17},    {40, "NVFP4", 64, 36},
    {41, "Q1_0", 128, 18},    {42, "Q2_0", 64, 18},
};
#define NTYPES (sizeof types / sizeof types[0])

const vs_gguf_type *vs_gguf_type_by_id(uint32_t id)
{
    size_t i;
    for (i = 0; i < NTYPES; i++)
        if (types[i].id == id)
            return &types[i];
    return NULL;
}

const vs_gguf_type *vs_gguf_type_by_name(const char *name)
{
    size_t i;
    for (i = 0; i < NTYPES; i++)
        if (!strcasecmp(types[i].name, name))
            return &types[i];
    return NULL;
}

const vs_gguf_type *vs_gguf_types(size_t *n)
{
    *n = NTYPES;
    return types;
}

int vs_gguf_type_bytes(const vs_gguf_type *t, uint64_t elements, uint64_t *out)
{
    uint64_t b;
    if (elements % t->block)
        return vs_error_set(NULL, VS_EFORMAT, "not whole blocks");
    if (vs_ckd_mul(&b, elements / t->block, (uint64_t)t->bytes))
        return vs_error_set(NULL, VS_EFORMAT, "overflow");
    *out = b;
    return 0;
}

/* include/llama.h, enum llama_ftype (the name without LLAMA_FTYPE_). */
static const struct {
    uint32_t id;
    const char *name;
} ftypes[] = {
    {0, "ALL_F32"},           {1, "MOSTLY_F16"},     {2, "MOSTLY_Q4_0"},    {3, "MOSTLY_Q4_1"},
    {7, "MOSTLY_Q8_0"},       {8, "MOSTLY_Q5_0"},    {9, "MOSTLY_Q5_1"},    {10, "MOSTLY_Q2_K"},
    {11, "MOSTLY_Q3_K_S"},    {12, "MOSTLY_Q3_K_M"}, {13, "MOSTLY_Q3_K_L"}, {14, "MOSTLY_Q4_K_S"},
    {15, "MOSTLY_Q4_K_M"},    {16, "MOSTLY_Q5_K_S"}, {17, "MOSTLY_Q5_K_M"}, {18, "MOSTLY_Q6_K"},
    {19, "MOSTLY_IQ2_XXS"},   {20, "MOSTLY_IQ2_XS"}, {21, "MOSTLY_Q2_K_S"}, {22, "MOSTLY_IQ3_XS"},
    {23, "MOSTLY_IQ3_XXS"},   {24, "MOSTLY_IQ1_S"},  {25, "MOSTLY_IQ4_NL"}, {26, "MOSTLY_IQ3_S"},
    {27, "MOSTLY_IQ3_M"},     {28, "MOSTLY_IQ2_S"},  {29, "MOSTLY_IQ2_M"},  {30, "MOSTLY_IQ4_XS"},
    {31, "MOSTLY_IQ1_M"},     {32, "MOSTLY_BF16"},   {36, "MOSTLY_TQ1_0"},  {37, "MOSTLY_TQ2_0"},
    {38, "MOSTLY_MXFP4_MOE"}, {39, "MOSTLY_NVFP4"},  {40, "MOSTLY_Q1_0"},   {41, "MOSTLY_Q2_0"},
};

const char *vs_gguf_ftype_name(uint32_t ftype)
{
    size_t i;
    for (i = 0; i < sizeof ftypes / sizeof ftypes[0]; i++)
        if (ftypes[i].id == ftype)
            return ftypes[i].name;
    return NULL;
}

int vs_gguf_ftype_parse(const char *name)
{
    size_t i;
    for (i = 0; i < sizeof ftypes / sizeof ftypes[0]; i++) {
        const char *n = ftypes[i].name;
        const char *bare = strchr(n, '_') + 1;
        if (!strcasecmp(n, name) || !strcasecmp(bare, name))
            return (int)ftypes[i].id;
    }
    return -1;
}

int vs_gguf_sniff(const unsigned char *head, size_t n)
{
    return n >= 4 && !memcmp(head, "GGUF", 4);
}

int vs_gguf_split_name(const char *path, unsigned *no, unsigned *count, size_t *prefix_len)
{
    /* llama.cpp's llama_split_path: "%s-%05d-of-%05d.gguf" */
    size_t n = strlen(path);
    const char *p;
    unsigned a = 0, b = 0;
    int i;
    if (n < 20 || strcmp(path + n - 5, ".gguf"))
        return 0;
    p = path + n - 5 - 15; /* "-00001-of-00003" */
    if (p[0] != '-' || memcmp(p + 6, "-of-", 4))
        return 0;
    for (i = 1; i <= 5; i++) {
        if (!isdigit((unsigned char)p[i]) || !isdigit((unsigned char)p[9 + i]))
            return 0;
        a = a * 10 + (unsigned)(p[i] - '0');
        b = b * 10 + (unsigned)(p[9 + i] - '0');
    }
    if (a < 1 || b < 1 || a > b)
        return 0;
    *no = a;
    *count = b;
    *prefix_len = (size_t)(p - path);
    return 1;
}

/* ---- a bounded, buffered reader over the callback ---- */

#define CHUNK 65536

typedef struct rd {
    vs_st_read_fn read;
    void *ctx;
    const char *name;
    uint64_t size; /* the file's */
    uint64_t pos;  /* next byte to consume */
    unsigned char buf[CHUNK];
    uint64_t buf_at; /* file offset of buf[0] */
    size_t buf_len;
    uint64_t counted;
    vs_error *err;
    const char *subj; /* the key or tensor the field belongs to (errors only) */
    char label[224];
} rd;

/* "the value of key 'general.name'": built only when an error is told */
static const char *ctx(rd *r, const char *what)
{
    if (r->subj)
        snprintf(r->label, sizeof r->label, "%s '%.160s'", what, r->subj);
    else
        snprintf(r->label, sizeof r->label, "%s", what);
    return r->label;
}

static int fill(rd *r, const char *what)
{
    size_t want = CHUNK, got = 0;
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

static uint64_t left(const rd *r)
{
    return r->size > r->pos ? r->size - r->pos : 0;
}

/* n bytes at pos into out (may be NULL: skip them) */
static int take(rd *r, void *out, uint64_t n, const char *what)
{
    unsigned char *o = out;
    if (n > left(r))
        return vs_error_set_pos(r->err, VS_EFORMAT, (long long)r->pos,
                                "%s: truncated: the file ends inside %s (%llu bytes needed, %llu "
                                "left)",
                                r->name, ctx(r, what), (unsigned long long)n,
                                (unsigned long long)left(r));
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

static int u32(rd *r, uint32_t *v, const char *what)
{
    unsigned char b[4];
    int rc = take(r, b, 4, what);
    if (!rc)
        *v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    return rc;
}

static int u64(rd *r, uint64_t *v, const char *what)
{
    unsigned char b[8];
    int i, rc = take(r, b, 8, what);
    if (rc)
        return rc;
    *v = 0;
    for (i = 7; i >= 0; i--)
        *v = *v << 8 | b[i];
    return 0;
}

/* A GGUF string: u64 length then bytes. out NULL skips it; else a NUL-ended
 * copy of at most max bytes (longer is an error naming what). */
static int str(rd *r, char **out, uint64_t max, const char *what)
{
    const char *nul;
    uint64_t n;
    int rc;
    if ((rc = u64(r, &n, what)))
        return rc;
    if (n > left(r))
        return vs_error_set_pos(r->err, VS_EFORMAT, (long long)(r->pos - 8),
                                "%s: %s claims %llu bytes, more than the %llu left in the file",
                                r->name, ctx(r, what), (unsigned long long)n,
                                (unsigned long long)left(r));
    if (!out)
        return take(r, NULL, n, what);
    if (n > max)
        return vs_error_set_pos(r->err, VS_EFORMAT, (long long)(r->pos - 8),
                                "%s: %s is %llu bytes, longer than %llu", r->name, ctx(r, what),
                                (unsigned long long)n, (unsigned long long)max);
    if (!(*out = malloc((size_t)n + 1)))
        return vs_error_set(r->err, VS_ENOMEM, "%s: out of memory", r->name);
    if ((rc = take(r, *out, n, what))) {
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

/* ---- metadata ---- */

enum {
    T_U8,
    T_I8,
    T_U16,
    T_I16,
    T_U32,
    T_I32,
    T_F32,
    T_BOOL,
    T_STRING,
    T_ARRAY,
    T_U64,
    T_I64,
    T_F64,
    T_COUNT
};
static const unsigned tsize[T_COUNT] = {1, 1, 2, 2, 4, 4, 4, 1, 8, 12, 8, 8, 8}; /* minimum bytes */
static const char *const tname[T_COUNT] = {"u8",   "i8",     "u16",   "i16", "u32", "i32", "f32",
                                           "bool", "string", "array", "u64", "i64", "f64"};

#define MAX_DEPTH 8
#define KEEP_MAX 65536 /* per-layer arrays kept: far more layers than any model */

/* One scalar integer value (signed ones sign-extended into *neg). */
static int scalar(rd *r, uint32_t type, uint64_t *v, int *neg, const char *what)
{
    unsigned char b[8];
    unsigned n = tsize[type], i;
    int rc = take(r, b, n, what);
    if (rc)
        return rc;
    *v = 0;
    for (i = n; i-- > 0;)
        *v = *v << 8 | b[i];
    *neg = 0;
    if ((type == T_I8 || type == T_I16 || type == T_I32 || type == T_I64) && (b[n - 1] & 0x80)) {
        *neg = 1;
    }
    return 0;
}

static int is_int(uint32_t t)
{
    return t == T_U8 || t == T_I8 || t == T_U16 || t == T_I16 || t == T_U32 || t == T_I32 ||
           t == T_U64 || t == T_I64 || t == T_BOOL;
}

/* A value we keep: one number, or an array of numbers. */
typedef struct kept {
    int have;
    int is_array;
    uint64_t v;
    uint64_t *arr;
    size_t n;
    int neg;
} kept;

static int skip_value(rd *r, uint32_t type, unsigned depth, const char *key);

static int skip_array(rd *r, unsigned depth, const char *key, kept *keep)
{
    uint32_t et;
    uint64_t n, i;
    int rc;
    const char *what = "the array of key";
    r->subj = key;
    if ((rc = u32(r, &et, what)) || (rc = u64(r, &n, what)))
        return rc;
    if (et >= T_COUNT)
        return vs_error_set(r->err, VS_EFORMAT, "%s: key '%s' is an array of unknown type %u",
                            r->name, key, et);
    if (depth >= MAX_DEPTH)
        return vs_error_set(r->err, VS_EFORMAT, "%s: key '%s' nests arrays more than %d deep",
                            r->name, key, MAX_DEPTH);
    /* every element takes at least tsize bytes: a count the file cannot hold
     * is refused before anything is read or allocated for it */
    if (n > left(r) / tsize[et])
        return vs_error_set_pos(r->err, VS_EFORMAT, (long long)(r->pos - 8),
                                "%s: key '%s' claims %llu %s elements, more than the %llu bytes "
                                "left can hold",
                                r->name, key, (unsigned long long)n, tname[et],
                                (unsigned long long)left(r));
    if (keep && is_int(et) && n <= KEEP_MAX) {
        keep->is_array = 1;
        keep->n = (size_t)n;
        keep->arr = calloc(n ? (size_t)n : 1, sizeof *keep->arr);
        if (!keep->arr)
            return vs_error_set(r->err, VS_ENOMEM, "%s: out of memory", r->name);
        for (i = 0; i < n; i++) {
            int neg = 0;
            if ((rc = scalar(r, et, &keep->arr[i], &neg, what)))
                return rc;
            keep->neg |= neg;
        }
        keep->have = 1;
        return 0;
    }
    if (et != T_STRING && et != T_ARRAY)
        return take(r, NULL, n * tsize[et], what);
    for (i = 0; i < n; i++)
        if ((rc = skip_value(r, et, depth + 1, key)))
            return rc;
    return 0;
}

static int skip_value(rd *r, uint32_t type, unsigned depth, const char *key)
{
    const char *what = "the value of key";
    r->subj = key;
    if (type == T_STRING)
        return str(r, NULL, 0, what);
    if (type == T_ARRAY)
        return skip_array(r, depth, key, NULL);
    return take(r, NULL, tsize[type], what);
}

/* The keys kept, by suffix after "<arch>." */
enum {
    K_BLOCK_COUNT,
    K_CONTEXT,
    K_EMBED,
    K_FF,
    K_HEADS,
    K_HEADS_KV,
    K_KEY_LEN,
    K_VAL_LEN,
    K_KEY_MLA,
    K_VAL_MLA,
    K_KV_LORA,
    K_Q_LORA,
    K_ROPE_DIM,
    K_SWA,
    K_SWA_PATTERN,
    K_EXPERTS,
    K_EXPERTS_USED,
    K_VOCAB,
    K_NARCH
};
static const char *const arch_keys[K_NARCH] = {
    "block_count",
    "context_length",
    "embedding_length",
    "feed_forward_length",
    "attention.head_count",
    "attention.head_count_kv",
    "attention.key_length",
    "attention.value_length",
    "attention.key_length_mla",
    "attention.value_length_mla",
    "attention.kv_lora_rank",
    "attention.q_lora_rank",
    "rope.dimension_count",
    "attention.sliding_window",
    "attention.sliding_window_pattern",
    "expert_count",
    "expert_used_count",
    "vocab_size",
};

typedef struct archval {
    char *prefix; /* the key before ".<suffix>" */
    int which;
    kept k;
} archval;

typedef struct meta {
    char **keys; /* every key, for the duplicate check */
    size_t nkeys, kcap;
    char *architecture;
    kept alignment, file_type, split_no, split_count, split_tensors;
    archval *av;
    size_t nav, cap;
} meta;

static void kept_free(kept *k)
{
    free(k->arr);
    memset(k, 0, sizeof *k);
}

static void meta_free(meta *m)
{
    size_t i;
    for (i = 0; i < m->nkeys; i++)
        free(m->keys[i]);
    free(m->keys);
    free(m->architecture);
    kept_free(&m->alignment);
    kept_free(&m->file_type);
    kept_free(&m->split_no);
    kept_free(&m->split_count);
    kept_free(&m->split_tensors);
    for (i = 0; i < m->nav; i++) {
        free(m->av[i].prefix);
        kept_free(&m->av[i].k);
    }
    free(m->av);
}

/* Which kept slot a key goes to (NULL: skipped). */
static kept *slot_for(rd *r, meta *m, const char *key, int *rc)
{
    size_t n = strlen(key), i;
    *rc = 0;
    if (!strcmp(key, "general.alignment"))
        return &m->alignment;
    if (!strcmp(key, "general.file_type"))
        return &m->file_type;
    if (!strcmp(key, "split.no"))
        return &m->split_no;
    if (!strcmp(key, "split.count"))
        return &m->split_count;
    if (!strcmp(key, "split.tensors.count"))
        return &m->split_tensors;
    for (i = 0; i < K_NARCH; i++) {
        size_t s = strlen(arch_keys[i]);
        if (n > s + 1 && key[n - s - 1] == '.' && !strcmp(key + n - s, arch_keys[i])) {
            archval *a;
            if (m->nav == m->cap) {
                size_t cap = m->cap ? m->cap * 2 : 16;
                archval *g = realloc(m->av, cap * sizeof *g);
                if (!g) {
                    *rc = vs_error_set(r->err, VS_ENOMEM, "%s: out of memory", r->name);
                    return NULL;
                }
                m->av = g;
                m->cap = cap;
            }
            a = &m->av[m->nav];
            memset(a, 0, sizeof *a);
            if (!(a->prefix = strndup(key, n - s - 1))) {
                *rc = vs_error_set(r->err, VS_ENOMEM, "%s: out of memory", r->name);
                return NULL;
            }
            a->which = (int)i;
            m->nav++;
            return &a->k;
        }
    }
    return NULL;
}

static int read_kv(rd *r, meta *m, uint64_t index)
{
    char *key = NULL, what[64];
    uint32_t type;
    kept *slot;
    int rc;
    snprintf(what, sizeof what, "metadata key %llu", (unsigned long long)index);
    r->subj = NULL;
    if ((rc = str(r, &key, 65535, what)))
        return rc;
    if (!key[0]) {
        rc = vs_error_set(r->err, VS_EFORMAT, "%s: metadata key %llu is empty", r->name,
                          (unsigned long long)index);
        goto done;
    }
    r->subj = key;
    if ((rc = u32(r, &type, "the type of key")))
        goto done;
    if (type >= T_COUNT) {
        rc = vs_error_set(r->err, VS_EFORMAT, "%s: key '%s' has unknown value type %u", r->name,
                          key, type);
        goto done;
    }
    if (!strcmp(key, "general.architecture")) {
        if (type != T_STRING) {
            rc = vs_error_set(r->err, VS_EFORMAT, "%s: general.architecture is a %s, not a string",
                              r->name, tname[type]);
            goto done;
        }
        free(m->architecture);
        m->architecture = NULL;
        r->subj = NULL;
        rc = str(r, &m->architecture, 63, "general.architecture");
        goto done;
    }
    slot = slot_for(r, m, key, &rc);
    if (rc)
        goto done;
    if (slot && slot->have) {
        rc = vs_error_set(r->err, VS_EFORMAT, "%s: key '%s' appears twice", r->name, key);
        goto done;
    }
    if (slot && is_int(type)) {
        int neg = 0;
        if ((rc = scalar(r, type, &slot->v, &neg, "the value of key")))
            goto done;
        slot->neg = neg;
        slot->have = 1;
    } else if (slot && type == T_ARRAY) {
        rc = skip_array(r, 0, key, slot);
    } else {
        rc = skip_value(r, type, 0, key);
    }
done:
    r->subj = NULL;
    if (m->nkeys == m->kcap) {
        size_t cap = m->kcap ? m->kcap * 2 : 32;
        char **g = realloc(m->keys, cap * sizeof *g);
        if (!g) {
            free(key);
            return rc ? rc : vs_error_set(r->err, VS_ENOMEM, "%s: out of memory", r->name);
        }
        m->keys = g;
        m->kcap = cap;
    }
    m->keys[m->nkeys++] = key; /* kept for the duplicate check */
    return rc;
}

/* gguf.cpp refuses a key given twice */
static int unique_keys(rd *r, meta *m)
{
    size_t i;
    if (m->nkeys < 2)
        return 0;
    qsort(m->keys, m->nkeys, sizeof *m->keys, vs_cmp_str);
    for (i = 1; i < m->nkeys; i++)
        if (!strcmp(m->keys[i - 1], m->keys[i]))
            return vs_error_set(r->err, VS_EFORMAT, "%s: key '%s' appears twice", r->name,
                                m->keys[i]);
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
    free(f);
}

static int cmp_name(const void *a, const void *b)
{
    const vs_gguf_tensor *x = *(const vs_gguf_tensor *const *)a,
                         *y = *(const vs_gguf_tensor *const *)b;
    return strcmp(x->name, y->name);
}

static int read_tensor(rd *r, vs_gguf_tensor *t, uint64_t index)
{
    char what[64];
    uint32_t type, d;
    uint64_t elements = 1;
    int rc;
    snprintf(what, sizeof what, "the name of tensor %llu", (unsigned long long)index);
    r->subj = NULL;
    if ((rc = str(r, &t->name, VS_GGUF_MAX_NAME - 1, what)))
        return rc;
    r->subj = t->name;
    if ((rc = u32(r, &t->ndims, "the dimensions of tensor")))
        return rc;
    if (t->ndims < 1 || t->ndims > VS_GGUF_MAX_DIMS)
        return vs_error_set(r->err, VS_EFORMAT, "%s: tensor '%s' has %u dimensions (1 to %d)",
                            r->name, t->name, t->ndims, VS_GGUF_MAX_DIMS);
    for (d = 0; d < VS_GGUF_MAX_DIMS; d++) {
        t->ne[d] = 1;
        if (d >= t->ndims)
            continue;
        if ((rc = u64(r, &t->ne[d], "the shape of tensor")))
            return rc;
        if (t->ne[d] > (uint64_t)INT64_MAX)
            return vs_error_set(r->err, VS_EFORMAT, "%s: tensor '%s' has a negative dimension",
                                r->name, t->name);
        if (vs_ckd_mul(&elements, elements, t->ne[d]) || elements > (uint64_t)INT64_MAX)
            return vs_error_set(r->err, VS_EFORMAT,
                                "%s: tensor '%s' has more elements than 64 bits count", r->name,
                                t->name);
    }
    if ((rc = u32(r, &type, "the type of tensor")))
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
    rc = u64(r, &t->offset, "the offset of tensor");
    r->subj = NULL;
    return rc;
}

static int take_arch(rd *r, vs_gguf_file *f, meta *m)
{
    size_t i;
    if (!m->architecture)
        return 0;
    snprintf(f->arch.name, sizeof f->arch.name, "%s", m->architecture);
    for (i = 0; i < m->nav; i++) {
        archval *a = &m->av[i];
        uint64_t *dst = NULL;
        if (strcmp(a->prefix, m->architecture))
            continue;
        if (a->k.neg)
            return vs_error_set(r->err, VS_EFORMAT, "%s: %s.%s is negative", r->name, a->prefix,
                                arch_keys[a->which]);
        switch (a->which) {
        case K_BLOCK_COUNT:
            dst = &f->arch.block_count;
            break;
        case K_CONTEXT:
            dst = &f->arch.context_length;
            break;
        case K_EMBED:
            dst = &f->arch.embedding_length;
            break;
        case K_FF:
            dst = &f->arch.feed_forward_length;
            break;
        case K_HEADS:
            dst = &f->arch.head_count;
            break;
        case K_HEADS_KV:
            dst = &f->arch.head_count_kv;
            break;
        case K_KEY_LEN:
            dst = &f->arch.key_length;
            break;
        case K_VAL_LEN:
            dst = &f->arch.value_length;
            break;
        case K_KEY_MLA:
            dst = &f->arch.key_length_mla;
            break;
        case K_VAL_MLA:
            dst = &f->arch.value_length_mla;
            break;
        case K_KV_LORA:
            dst = &f->arch.kv_lora_rank;
            break;
        case K_Q_LORA:
            dst = &f->arch.q_lora_rank;
            break;
        case K_ROPE_DIM:
            dst = &f->arch.rope_dimension_count;
            break;
        case K_SWA:
            dst = &f->arch.sliding_window;
            break;
        case K_SWA_PATTERN:
            dst = &f->arch.sliding_window_pattern;
            break;
        case K_EXPERTS:
            dst = &f->arch.expert_count;
            break;
        case K_EXPERTS_USED:
            dst = &f->arch.expert_used_count;
            break;
        case K_VOCAB:
            dst = &f->arch.vocab_size;
            break;
        default:
            break;
        }
        if (!dst)
            continue;
        if (!a->k.is_array) {
            *dst = a->k.v;
            continue;
        }
        if (a->which == K_HEADS_KV) {
            size_t j;
            free(f->arch.head_count_kv_layers); /* a key given twice: the last */
            f->arch.head_count_kv_layers = a->k.arr;
            f->arch.n_head_count_kv_layers = a->k.n;
            for (j = 0; j < a->k.n; j++)
                if (a->k.arr[j] > *dst)
                    *dst = a->k.arr[j];
            a->k.arr = NULL;
        } else if (a->which == K_SWA_PATTERN) {
            free(f->arch.sliding_window_layers);
            f->arch.sliding_window_layers = a->k.arr;
            f->arch.n_sliding_window_layers = a->k.n;
            a->k.arr = NULL;
        } else if (a->which == K_HEADS && a->k.n > 0) {
            /* per-layer head counts (OpenELM): the largest */
            size_t j;
            for (j = 0; j < a->k.n; j++)
                if (a->k.arr[j] > *dst)
                    *dst = a->k.arr[j];
        }
    }
    return 0;
}

/* A byte of the file as vs_error.position (none past what it can hold). */
static long long file_pos(uint64_t at)
{
    return at > (uint64_t)LLONG_MAX ? VS_ERROR_NO_POSITION : (long long)at;
}

static int parse(vs_gguf_file **out, rd *r)
{
    unsigned char magic[4];
    uint32_t version;
    uint64_t n_tensors, n_kv, i, expect, end, cap;
    vs_gguf_file *f = NULL;
    vs_gguf_tensor **by_name = NULL;
    meta m;
    int rc;

    memset(&m, 0, sizeof m);
    *out = NULL;
    if (r->size < 4 || (rc = take(r, magic, 4, "the magic"))) {
        rc = vs_error_set(r->err, VS_EFORMAT, "%s: %llu bytes: too short for a GGUF file", r->name,
                          (unsigned long long)r->size);
        goto done;
    }
    if (memcmp(magic, "GGUF", 4)) {
        rc = vs_error_set(r->err, VS_EFORMAT, "%s: not a GGUF file (the magic is not \"GGUF\")",
                          r->name);
        goto done;
    }
    if ((rc = u32(r, &version, "the version")))
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
    if ((rc = u64(r, &n_tensors, "the tensor count")) || (rc = u64(r, &n_kv, "the metadata count")))
        goto done;
    /* a tensor's entry takes at least 8 + 4 + 8 + 4 + 8 bytes, a key's 8 + 1 + 4 + 1 */
    if (n_tensors > left(r) / 32) {
        rc = vs_error_set_pos(r->err, VS_EFORMAT, 8,
                              "%s: the header claims %llu tensors, more than the %llu bytes left "
                              "can describe",
                              r->name, (unsigned long long)n_tensors, (unsigned long long)left(r));
        goto done;
    }
    if (n_kv > left(r) / 14) {
        rc = vs_error_set_pos(r->err, VS_EFORMAT, 16,
                              "%s: the header claims %llu metadata keys, more than the %llu bytes "
                              "left can hold",
                              r->name, (unsigned long long)n_kv, (unsigned long long)left(r));
        goto done;
    }
    for (i = 0; i < n_kv; i++)
        if ((rc = read_kv(r, &m, i)))
            goto done;
    if ((rc = unique_keys(r, &m)))
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
    if ((rc = take_arch(r, f, &m)))
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
        if (vs_ckd_add(&expect, expect, padded) ||
            vs_ckd_add(&f->data_bytes, f->data_bytes, t->bytes) ||
            vs_ckd_add(&f->params, f->params, t->elements)) {
            rc = vs_error_set(r->err, VS_EFORMAT, "%s: the tensors' sizes overflow 64 bits",
                              r->name);
            goto done;
        }
    }
    if (f->count > 0) {
        const vs_gguf_tensor *last = &f->tensors[f->count - 1];
        if (vs_ckd_add(&end, f->data_start, last->offset + last->bytes) || end > r->size) {
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
    meta_free(&m);
    return rc;
}

int vs_gguf_read(vs_gguf_file **out, const char *name, uint64_t file_size, vs_st_read_fn read,
                 void *ctx, uint64_t *bytes_read, vs_error *err)
{
    rd *r = malloc(sizeof *r);
    int rc;
    *out = NULL;
    if (bytes_read)
        *bytes_read = 0;
    if (!r)
        return vs_error_set(err, VS_ENOMEM, "%s: out of memory", name);
    memset(r, 0, offsetof(rd, buf));
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

static long long pread_fn(void *ctx, void *buf, size_t n, uint64_t offset)
{
    int fd = *(int *)ctx;
    ssize_t r;
    do {
        r = pread(fd, buf, n, (off_t)offset);
    } while (r < 0 && errno == EINTR);
    return (long long)r;
}

int vs_gguf_read_file(vs_gguf_file **out, const char *path, uint64_t *file_size,
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
    rc = vs_gguf_read(out, path, size, pread_fn, &fd, bytes_read, err);
    close(fd);
    return rc;
}
