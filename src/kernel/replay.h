/* replay.h — the signatures a kernel has already accepted, to refuse a replay.
 *
 * A signed message captured on the wire can be sent again, byte for byte, from
 * any socket: its HMAC still verifies. jupyter_client refuses a signature it has
 * seen before on its side ("Duplicate Signature", jupyter_client/session.py);
 * the kernel does the same on its. Every legitimate message carries a fresh
 * msg_id (and date) in its signed header, so a repeated signature is a replay.
 * Memory is bounded: two generations of at most `capacity` digests each, the
 * older dropped when the newer fills, so that at least the last `capacity`
 * signatures (and at most twice as many) are remembered. Pure: no I/O, no
 * locks (the caller serialises), no globals.
 */
#ifndef VS_KERNEL_REPLAY_H
#define VS_KERNEL_REPLAY_H

#include <stddef.h>

typedef struct vs_replay vs_replay;

/* A set remembering at least capacity signatures (capacity >= 1); NULL when
 * memory is short. */
vs_replay *vs_replay_new(size_t capacity);
void vs_replay_free(vs_replay *r);

/* 1 when sig (len bytes, as received) was seen before; else remembers it and
 * returns 0. An empty signature (no key: nothing is signed) is never remembered
 * and always answers 0. */
int vs_replay_seen(vs_replay *r, const unsigned char *sig, size_t len);

#endif
