#include "render/result_memo.h"

#include <stdlib.h>
#include <string.h>

/* A result kept: its key's hash, the key, then the result's JSON (with its
 * NUL), in one block. */
struct entry {
    uint64_t hash;
    size_t key_len, len;
    char bytes[];
};

/* The entries are cut from blocks of CHUNK bytes, one after the other, not
 * malloc'd one by one: a first run keeps every reserve and convert line's
 * result, and a malloc of a result's size (a new block from the heap's top,
 * nothing of that size freed yet) cost several times the copy itself. An
 * entry written over by one of another size leaves its place unused; the
 * memo full (VS_RESULT_MEMO_BYTES of blocks), it starts over, empty. */
#define CHUNK (64u << 10)
struct chunk {
    struct chunk *next;
    size_t used;
    _Alignas(uint64_t) char bytes[];
};

/* A key is looked for in PROBES slots from the one its hash picks (so that
 * two lines whose hashes meet both stay), and a new one goes to the first of
 * them that is empty, or, all taken, in place of the first. */
#define PROBES 8

struct vs_result_memo {
    /* a power of two of slots, grown up to VS_RESULT_MEMO_SLOTS: a pointer
     * each, so that growing zeroes little (a new session's first long cell
     * grows it three times) */
    struct entry **slots;
    size_t nslots, used;
    struct chunk *chunks; /* the newest first: entries are cut from it */
    size_t bytes;         /* of the chunks, CHUNK each */
    unsigned long starts; /* how many times it started over (entry_alloc) */
};

static void key_add(vs_result_key *k, const void *p, size_t n)
{
    if (k->over || n > sizeof k->bytes - k->len) {
        k->over = 1;
        return;
    }
    memcpy(k->bytes + k->len, p, n);
    k->len += n;
}

void vs_result_key_init(vs_result_key *k, const char *verb)
{
    k->len = 0;
    k->over = 0;
    k->hashed = 0;
    vs_result_key_str(k, verb);
}

void vs_result_key_str(vs_result_key *k, const char *s)
{
    /* a string with its NUL, NULL as a byte no UTF-8 text starts with: the
     * fields cannot run into one another */
    static const char none = '\xff';
    if (s)
        key_add(k, s, strlen(s) + 1);
    else
        key_add(k, &none, 1);
}

void vs_result_key_u64(vs_result_key *k, uint64_t v)
{
    key_add(k, &v, sizeof v);
}

/* The slot of a key of a few dozen bytes: eight bytes a step, each mixed in
 * with a multiply (FNV's prime) and a shift, rather than a byte a step. */
static uint64_t key_hash(vs_result_key *k)
{
    size_t i = 0;
    uint64_t h = 14695981039346656037ULL, w;
    if (k->hashed)
        return k->hash;
    for (; i + sizeof w <= k->len; i += sizeof w) {
        memcpy(&w, k->bytes + i, sizeof w); /* a constant size: one load */
        h = (h ^ w) * 1099511628211ULL;
        h ^= h >> 29;
    }
    w = 0;
    memcpy(&w, k->bytes + i, k->len - i);
    h = (h ^ w) * 1099511628211ULL;
    /* murmur3's finaliser: every bit of the key reaches the low bits that
     * pick the slot */
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    k->hash = h;
    k->hashed = 1;
    return h;
}

vs_result_memo *vs_result_memo_new(void)
{
    return calloc(1, sizeof(vs_result_memo));
}

static void chunks_free(vs_result_memo *m)
{
    while (m->chunks) {
        struct chunk *next = m->chunks->next;
        free(m->chunks);
        m->chunks = next;
    }
    m->bytes = 0;
}

void vs_result_memo_free(vs_result_memo *m)
{
    if (!m)
        return;
    chunks_free(m);
    free(m->slots);
    free(m);
}

/* Room for an entry of n bytes (its header included), or NULL: past
 * VS_RESULT_MEMO_BYTES the memo drops every result and starts again (what
 * was written over, or pushed out of its slots, is only reclaimed so), or
 * memory is short. */
static struct entry *entry_alloc(vs_result_memo *m, size_t n)
{
    struct chunk *c = m->chunks;
    n = (n + sizeof(uint64_t) - 1) & ~(sizeof(uint64_t) - 1); /* the next entry aligned */
    if (!c || CHUNK - sizeof *c - c->used < n) {
        if (m->bytes + CHUNK > VS_RESULT_MEMO_BYTES) {
            chunks_free(m);
            memset(m->slots, 0, m->nslots * sizeof *m->slots);
            m->used = 0;
            m->starts++;
        }
        if (!(c = malloc(CHUNK)))
            return NULL;
        c->next = m->chunks;
        c->used = 0;
        m->chunks = c;
        m->bytes += CHUNK;
    }
    c->used += n;
    return (struct entry *)(c->bytes + c->used - n);
}

/* Doubles the slots (from 256), each kept result moved near its new slot
 * (one with no room there is dropped). A table of the largest size from the
 * start cost a short cell more than it spared. Best effort. */
static void grow(vs_result_memo *m)
{
    size_t i, j, n = m->nslots ? m->nslots * 2 : 256;
    struct entry **to = calloc(n, sizeof *to);
    if (!to)
        return;
    m->used = 0;
    for (i = 0; i < m->nslots; i++) {
        struct entry *e = m->slots[i];
        if (!e)
            continue;
        for (j = 0; j < PROBES && to[(e->hash + j) & (n - 1)]; j++)
            ;
        if (j == PROBES)
            continue; /* its place is reclaimed when the memo starts over */
        to[(e->hash + j) & (n - 1)] = e;
        m->used++;
    }
    free(m->slots);
    m->slots = to;
    m->nslots = n;
}

static int holds(const struct entry *e, uint64_t h, const vs_result_key *k)
{
    return e && e->hash == h && e->key_len == k->len && !memcmp(e->bytes, k->bytes, k->len);
}

/* The slot holding k, else where k goes; *found says which. */
static struct entry **slot_of(vs_result_memo *m, uint64_t h, const vs_result_key *k, int *found)
{
    size_t i, mask = m->nslots - 1;
    for (i = 0; i < PROBES; i++) {
        struct entry **s = &m->slots[(h + i) & mask];
        *found = holds(*s, h, k);
        if (*found || !*s) /* nothing is removed: no key lies past an empty slot */
            return s;
    }
    return &m->slots[h & mask];
}

vs_bundle *vs_result_memo_get(vs_result_memo *m, vs_result_key *k)
{
    const struct entry *e;
    vs_buf json = VS_BUF_INIT;
    int found;
    if (!m || k->over || !m->nslots)
        return NULL;
    e = *slot_of(m, key_hash(k), k, &found);
    if (!found)
        return NULL;
    /* through a vs_buf, as every bundle: its block is one the bundle before
     * gave back (util/buf's kept list), and goes back there when freed */
    vs_buf_append(&json, e->bytes + e->key_len, e->len);
    return vs_bundle_from_buf(&json);
}

void vs_result_memo_put(vs_result_memo *m, vs_result_key *k, const vs_bundle *b)
{
    struct entry **s, *e;
    uint64_t h;
    int found;
    if (!m || !b || k->over || b->len > VS_RESULT_MEMO_MAX)
        return;
    /* grown while it is over a quarter full: the keys that meet near one
     * slot stay few, so that a long cell's lines seldom push one another out */
    if (m->nslots < VS_RESULT_MEMO_SLOTS && m->used >= m->nslots / 4)
        grow(m);
    if (!m->nslots)
        return;
    h = key_hash(k);
    s = slot_of(m, h, k, &found);
    /* a block of the same size is written over in place: a cell whose lines
     * change keeps writing over the same slots */
    if (*s && (*s)->key_len + (*s)->len == k->len + b->len) {
        e = *s;
    } else {
        unsigned long starts = m->starts;
        if (!(e = entry_alloc(m, sizeof *e + k->len + b->len + 1)))
            return;
        if (m->starts != starts) /* every slot is empty now: s among them */
            s = slot_of(m, h, k, &found);
        if (!*s)
            m->used++;
        *s = e;
    }
    e->hash = h;
    e->key_len = k->len;
    e->len = b->len;
    memcpy(e->bytes, k->bytes, k->len);
    memcpy(e->bytes + k->len, b->json, b->len + 1);
}
