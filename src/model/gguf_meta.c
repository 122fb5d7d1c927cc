/* gguf_meta.c — a GGUF header's metadata: every key read or skipped (13 value
 * types, arrays of them, arrays of arrays), the few kept (alignment, file
 * type, split, the architecture's shapes), the duplicate check, and the
 * architecture's values into vs_gguf_arch (model/gguf_internal.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/gguf_internal.h"
#include "util/cmp.h"
#include "util/utf8.h"

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
static int scalar(vs_gguf_rd *r, uint32_t type, uint64_t *v, int *neg, const char *what)
{
    unsigned char b[8];
    unsigned n = tsize[type], i;
    int rc = vs_gguf_rd_take(r, b, n, what);
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

static int skip_value(vs_gguf_rd *r, uint32_t type, unsigned depth, const char *key);

static int skip_array(vs_gguf_rd *r, unsigned depth, const char *key, vs_gguf_kept *keep)
{
    uint32_t et;
    uint64_t n, i;
    int rc;
    const char *what = "the array of key";
    r->subj = key;
    if ((rc = vs_gguf_rd_u32(r, &et, what)) || (rc = vs_gguf_rd_u64(r, &n, what)))
        return rc;
    if (et >= T_COUNT)
        return vs_error_set(r->err, VS_EFORMAT, "%s: key '%s' is an array of unknown type %u",
                            r->name, key, et);
    if (depth >= MAX_DEPTH)
        return vs_error_set(r->err, VS_EFORMAT, "%s: key '%s' nests arrays more than %d deep",
                            r->name, key, MAX_DEPTH);
    /* every element takes at least tsize bytes: a count the file cannot hold
     * is refused before anything is read or allocated for it */
    if (n > vs_gguf_rd_left(r) / tsize[et])
        return vs_error_set_pos(r->err, VS_EFORMAT, (long long)(r->pos - 8),
                                "%s: key '%s' claims %llu %s elements, more than the %llu bytes "
                                "left can hold",
                                r->name, key, (unsigned long long)n, tname[et],
                                (unsigned long long)vs_gguf_rd_left(r));
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
        return vs_gguf_rd_take(r, NULL, n * tsize[et], what);
    for (i = 0; i < n; i++)
        if ((rc = skip_value(r, et, depth + 1, key)))
            return rc;
    return 0;
}

static int skip_value(vs_gguf_rd *r, uint32_t type, unsigned depth, const char *key)
{
    const char *what = "the value of key";
    r->subj = key;
    if (type == T_STRING)
        return vs_gguf_rd_str(r, NULL, 0, what);
    if (type == T_ARRAY)
        return skip_array(r, depth, key, NULL);
    return vs_gguf_rd_take(r, NULL, tsize[type], what);
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
    K_SSM_CONV,
    K_SSM_INNER,
    K_SSM_STATE,
    K_SSM_GROUPS,
    K_FULL_ATTN,
    K_RECURRENT,
    K_SHORTCONV,
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
    "ssm.conv_kernel",
    "ssm.inner_size",
    "ssm.state_size",
    "ssm.group_count",
    "full_attention_interval",
    "attention.recurrent_layers",
    "shortconv.l_cache",
};

static void kept_free(vs_gguf_kept *k)
{
    free(k->arr);
    memset(k, 0, sizeof *k);
}

void vs_gguf_meta_free(vs_gguf_meta *m)
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
static vs_gguf_kept *slot_for(vs_gguf_rd *r, vs_gguf_meta *m, const char *key, int *rc)
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
            vs_gguf_archval *a;
            if (m->nav == m->cap) {
                size_t cap = m->cap ? m->cap * 2 : 16;
                vs_gguf_archval *g = realloc(m->av, cap * sizeof *g);
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

int vs_gguf_meta_read_kv(vs_gguf_rd *r, vs_gguf_meta *m, uint64_t index)
{
    char *key = NULL, what[64];
    uint32_t type;
    vs_gguf_kept *slot;
    int rc;
    snprintf(what, sizeof what, "metadata key %llu", (unsigned long long)index);
    r->subj = NULL;
    if ((rc = vs_gguf_rd_str(r, &key, 65535, what)))
        return rc;
    if (!key[0]) {
        rc = vs_error_set(r->err, VS_EFORMAT, "%s: metadata key %llu is empty", r->name,
                          (unsigned long long)index);
        goto done;
    }
    r->subj = key;
    if ((rc = vs_gguf_rd_u32(r, &type, "the type of key")))
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
        rc = vs_gguf_rd_str(r, &m->architecture, 63, "general.architecture");
        if (rc == 0 && !vs_utf8_valid(m->architecture, strlen(m->architecture))) {
            /* it names the file's family and goes into the card as text */
            size_t n = strlen(m->architecture), at = 0, k;
            while (at < n &&
                   (k = vs_utf8_seq((const unsigned char *)m->architecture + at, n - at)) > 0)
                at += k;
            rc = vs_error_set_pos(r->err, VS_EFORMAT, (long long)(r->pos - n + at),
                                  "%s: general.architecture is not UTF-8 text (byte 0x%02X at "
                                  "offset %llu); the file's architecture cannot be named",
                                  r->name, (unsigned char)m->architecture[at],
                                  (unsigned long long)(r->pos - n + at));
            free(m->architecture);
            m->architecture = NULL;
        }
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
int vs_gguf_meta_unique_keys(vs_gguf_rd *r, vs_gguf_meta *m)
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

int vs_gguf_meta_take_arch(vs_gguf_rd *r, vs_gguf_file *f, vs_gguf_meta *m)
{
    size_t i;
    if (!m->architecture)
        return 0;
    snprintf(f->arch.name, sizeof f->arch.name, "%s", m->architecture);
    for (i = 0; i < m->nav; i++) {
        vs_gguf_archval *a = &m->av[i];
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
        case K_SSM_CONV:
            dst = &f->arch.ssm_conv_kernel;
            break;
        case K_SSM_INNER:
            dst = &f->arch.ssm_inner_size;
            break;
        case K_SSM_STATE:
            dst = &f->arch.ssm_state_size;
            break;
        case K_SSM_GROUPS:
            dst = &f->arch.ssm_group_count;
            break;
        case K_FULL_ATTN:
            dst = &f->arch.full_attention_interval;
            break;
        case K_SHORTCONV:
            dst = &f->arch.shortconv_l_cache;
            break;
        default:
            break;
        }
        if (a->which == K_RECURRENT) { /* only as an array, one per layer */
            if (a->k.is_array) {
                free(f->arch.recurrent_layers);
                f->arch.recurrent_layers = a->k.arr;
                f->arch.n_recurrent_layers = a->k.n;
                a->k.arr = NULL;
            }
            continue;
        }
        if (!dst)
            continue;
        if (a->which == K_SWA)
            f->arch.has_sliding_window = 1;
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
        } else if (a->which == K_FF) {
            /* per-layer feed-forward sizes (Nemotron-H: 0 on its Mamba and attention
             * layers); the scalar is the largest */
            size_t j;
            free(f->arch.feed_forward_layers);
            f->arch.feed_forward_layers = a->k.arr;
            f->arch.n_feed_forward_layers = a->k.n;
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
