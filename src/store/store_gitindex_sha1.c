/* store_gitindex_sha1.c — SHA-1 (FIPS 180-4, section 6.1), for the checksum that ends
 * a git index file: the index is patched here in place of libgit2's read and
 * write of all its entries (store_gitindex.c), and neither libgit2 nor
 * libsodium offers a plain SHA-1. A checksum, not a signature: nothing here
 * is trusted because of it. */
#include "store/store_gitindex.h"

#include <string.h>

static uint32_t rol(uint32_t x, int n)
{
    return (x << n) | (x >> (32 - n));
}

/* The 80 rounds written out, the five words renamed from round to round
 * instead of moved, and the schedule kept as 16 words rolling (w[t mod 16]),
 * each index a constant: the compiler keeps the state in registers (a loop
 * over the rounds spent three times as many instructions per byte, which is
 * what a 2 MB index at 10,000 sheets costs at each commit and pull). */
#define W(t)                                                                                       \
    (w[(t)&15] = rol(w[((t) + 13) & 15] ^ w[((t) + 8) & 15] ^ w[((t) + 2) & 15] ^ w[(t)&15], 1))
#define F1(b, c, d) (((b) & (c)) | (~(b) & (d)))
#define F2(b, c, d) ((b) ^ (c) ^ (d))
#define F3(b, c, d) (((b) & (c)) | ((b) & (d)) | ((c) & (d)))
#define R(a, b, c, d, e, f, k, wt)                                                                 \
    do {                                                                                           \
        e += rol(a, 5) + f(b, c, d) + (k) + (wt);                                                  \
        b = rol(b, 30);                                                                            \
    } while (0)
/* five rounds, the words renamed: after them a..e are where they started */
#define R5(f, k, t, wt)                                                                            \
    do {                                                                                           \
        R(a, b, c, d, e, f, k, wt(t));                                                             \
        R(e, a, b, c, d, f, k, wt((t) + 1));                                                       \
        R(d, e, a, b, c, f, k, wt((t) + 2));                                                       \
        R(c, d, e, a, b, f, k, wt((t) + 3));                                                       \
        R(b, c, d, e, a, f, k, wt((t) + 4));                                                       \
    } while (0)
#define W0(t) w[t]
#define R20(f, k, t, wt)                                                                           \
    do {                                                                                           \
        R5(f, k, (t), wt);                                                                         \
        R5(f, k, (t) + 5, wt);                                                                     \
        R5(f, k, (t) + 10, wt);                                                                    \
        R5(f, k, (t) + 15, wt);                                                                    \
    } while (0)

static void block(uint32_t h[5], const unsigned char *p)
{
    uint32_t w[16], a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    int i;
    for (i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
    R5(F1, 0x5a827999u, 0, W0);
    R5(F1, 0x5a827999u, 5, W0);
    R5(F1, 0x5a827999u, 10, W0);
    R(a, b, c, d, e, F1, 0x5a827999u, w[15]);
    R(e, a, b, c, d, F1, 0x5a827999u, W(16));
    R(d, e, a, b, c, F1, 0x5a827999u, W(17));
    R(c, d, e, a, b, F1, 0x5a827999u, W(18));
    R(b, c, d, e, a, F1, 0x5a827999u, W(19));
    R20(F2, 0x6ed9eba1u, 20, W);
    R20(F3, 0x8f1bbcdcu, 40, W);
    R20(F2, 0xca62c1d6u, 60, W);
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
}

void vs_store_sha1(const void *data, size_t len, unsigned char out[20])
{
    uint32_t h[5] = {0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u, 0xc3d2e1f0u};
    const unsigned char *p = data;
    unsigned char tail[128];
    uint64_t bits = (uint64_t)len * 8;
    size_t n = len, rest, tl, i;
    while (n >= 64) {
        block(h, p);
        p += 64;
        n -= 64;
    }
    /* the last bytes, 0x80, zeros, and the length in bits (one or two blocks) */
    rest = n;
    memset(tail, 0, sizeof tail);
    if (rest)
        memcpy(tail, p, rest);
    tail[rest] = 0x80;
    tl = rest + 1 + 8 <= 64 ? 64 : 128;
    for (i = 0; i < 8; i++)
        tail[tl - 1 - i] = (unsigned char)(bits >> (8 * i));
    block(h, tail);
    if (tl == 128)
        block(h, tail + 64);
    for (i = 0; i < 5; i++) {
        out[4 * i] = (unsigned char)(h[i] >> 24);
        out[4 * i + 1] = (unsigned char)(h[i] >> 16);
        out[4 * i + 2] = (unsigned char)(h[i] >> 8);
        out[4 * i + 3] = (unsigned char)h[i];
    }
}
