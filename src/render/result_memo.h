/* Results kept from one run of a cell to the next, for the lines whose result
 * is drawn from their own words alone (`reserve`, `convert`): a notebook run
 * again, or a cell edited in one place and run again, writes most of its
 * lines' results exactly as before, and writing them was about half of a
 * long cell's cost. A line's key holds every input its result is drawn
 * from, so a result kept is the one the renderer would write: a different
 * input is a different key, never a stale result.
 *
 * The memo is a hash table of at most VS_RESULT_MEMO_SLOTS slots holding at
 * most VS_RESULT_MEMO_BYTES, none a result over VS_RESULT_MEMO_MAX bytes: a
 * key is looked for near the slot its hash picks, and a new one, with no room
 * there, takes the place of an old one. Full, it starts over empty. A session
 * holds one (lang/verb_ctx.c), freed with it. */
#ifndef VS_RENDER_RESULT_MEMO_H
#define VS_RENDER_RESULT_MEMO_H

#include <stddef.h>
#include <stdint.h>

#include "render/bundle.h"

/* A 5,000-line cell's results fit, at most 16 MiB of them (a result of a
 * line is most often under 1 KB) */
#define VS_RESULT_MEMO_SLOTS 16384
#define VS_RESULT_MEMO_MAX 4096
#define VS_RESULT_MEMO_BYTES (16u << 20)

/* A line's key, written field by field into a fixed block: a key longer than
 * the block (a very long name or source) is "over", and its line's result is
 * neither looked up nor kept. */
typedef struct vs_result_key {
    char bytes[512];
    size_t len;
    int over;
    uint64_t hash; /* computed by the first vs_result_memo_get, reused by _put */
    int hashed;
} vs_result_key;

/* A key begun with the verb's name (each verb's keys apart from the others'). */
void vs_result_key_init(vs_result_key *k, const char *verb);
/* Adds a string, or NULL (told apart from every string, "" included). */
void vs_result_key_str(vs_result_key *k, const char *s);
/* Adds an integer (a flag, an amount, an enum). */
void vs_result_key_u64(vs_result_key *k, uint64_t v);

typedef struct vs_result_memo vs_result_memo;
/* An empty memo, or NULL when memory is short. */
vs_result_memo *vs_result_memo_new(void);
void vs_result_memo_free(vs_result_memo *m);
/* A new copy of the result kept under k, or NULL (none kept, k over, m NULL,
 * or memory short: the caller renders it). */
vs_bundle *vs_result_memo_get(vs_result_memo *m, vs_result_key *k);
/* Keeps a copy of b under k, in place of what k's slot held. Best effort:
 * nothing is kept for NULL m or b, k over, a result over VS_RESULT_MEMO_MAX,
 * or memory short. A new one past VS_RESULT_MEMO_BYTES in all (results
 * written over count until then) drops every result kept before it. */
void vs_result_memo_put(vs_result_memo *m, vs_result_key *k, const vs_bundle *b);

#endif
