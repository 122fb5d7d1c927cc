#include "kernel/replay.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define DIGEST 32           /* bytes of a signature's digest */
#define KEYLEN (DIGEST + 1) /* and one byte: which kind of key it is */

/* One generation: an open-addressing table at most half full. A slot holds a
 * signature's key (key_of). */
typedef struct gen {
    unsigned char *keys; /* slots × KEYLEN */
    unsigned char *used; /* slots */
    size_t count;
} gen;

struct vs_replay {
    gen g[2]; /* g[cur] fills; g[!cur] is the older generation */
    int cur;
    size_t capacity, slots;
};

static int hexval(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* The key of a signature: an HMAC-SHA256 signature (64 hex digits, either case)
 * is its 32-byte digest, exactly, tagged 0; anything else a fold of its bytes
 * and length, tagged 1. So two HMAC signatures share a key only when they are
 * the same digest, and a fold's collision can only refuse another non-HMAC
 * signature, never an HMAC one. */
static void key_of(const unsigned char *sig, size_t len, unsigned char out[KEYLEN])
{
    size_t i;
    memset(out, 0, KEYLEN);
    if (len == 2 * DIGEST) {
        for (i = 0; i < DIGEST; i++) {
            int hi = hexval(sig[2 * i]), lo = hexval(sig[2 * i + 1]);
            if (hi < 0 || lo < 0)
                break;
            out[i] = (unsigned char)(hi << 4 | lo);
        }
        if (i == DIGEST)
            return;
        memset(out, 0, KEYLEN);
    }
    for (i = 0; i < len; i++)
        out[i % DIGEST] = (unsigned char)(out[i % DIGEST] * 31u + sig[i] + 1u);
    for (i = 0; i < sizeof len; i++)
        out[i] ^= (unsigned char)(len >> (8 * i));
    out[DIGEST] = 1;
}

static size_t slot_of(const unsigned char key[KEYLEN], size_t slots)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a: the keys are already uniform */
    size_t i;
    for (i = 0; i < 8; i++)
        h = (h ^ key[i]) * 1099511628211ULL;
    return (size_t)(h & (slots - 1));
}

static int gen_has(const gen *g, size_t slots, const unsigned char key[KEYLEN])
{
    size_t s = slot_of(key, slots);
    while (g->used[s]) {
        if (!memcmp(g->keys + s * KEYLEN, key, KEYLEN))
            return 1;
        s = (s + 1) & (slots - 1);
    }
    return 0;
}

static void gen_add(gen *g, size_t slots, const unsigned char key[KEYLEN])
{
    size_t s = slot_of(key, slots);
    while (g->used[s])
        s = (s + 1) & (slots - 1);
    g->used[s] = 1;
    memcpy(g->keys + s * KEYLEN, key, KEYLEN);
    g->count++;
}

vs_replay *vs_replay_new(size_t capacity)
{
    vs_replay *r;
    size_t slots = 2, k;
    if (capacity < 1 || capacity > ((size_t)1 << 24))
        return NULL;
    while (slots < 2 * capacity)
        slots <<= 1;
    r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->capacity = capacity;
    r->slots = slots;
    for (k = 0; k < 2; k++) {
        r->g[k].keys = malloc(slots * KEYLEN);
        r->g[k].used = calloc(slots, 1);
        if (!r->g[k].keys || !r->g[k].used) {
            vs_replay_free(r);
            return NULL;
        }
    }
    return r;
}

void vs_replay_free(vs_replay *r)
{
    size_t k;
    if (!r)
        return;
    for (k = 0; k < 2; k++) {
        free(r->g[k].keys);
        free(r->g[k].used);
    }
    free(r);
}

int vs_replay_seen(vs_replay *r, const unsigned char *sig, size_t len)
{
    unsigned char key[KEYLEN];
    gen *g;
    if (!len)
        return 0;
    key_of(sig, len, key);
    if (gen_has(&r->g[0], r->slots, key) || gen_has(&r->g[1], r->slots, key))
        return 1;
    g = &r->g[r->cur];
    if (g->count >= r->capacity) {
        r->cur = !r->cur;
        g = &r->g[r->cur];
        memset(g->used, 0, r->slots);
        g->count = 0;
    }
    gen_add(g, r->slots, key);
    return 0;
}
