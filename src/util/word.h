/* word.h — many bytes at a time, for the scanners that see every byte of a
 * cell or a result (UTF-8 checks, JSON escaping, the parser's runs, table
 * widths and markup).
 *
 * The word tests are the classic SWAR ones: each sets the high bit of a byte
 * that matches. The lowest flagged byte is always exact; bytes above it may
 * be flagged falsely (a borrow), so callers stop at the lowest one. On top of
 * them, vs_word_block_run scans sixteen bytes for the first that stops a run (with
 * SSE2 where the compiler has it: x86-64 always). Header only: the compiler
 * inlines them into the loops that use them. Pure.
 */
#ifndef VS_UTIL_WORD_H
#define VS_UTIL_WORD_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define VS_WORD_ONES 0x0101010101010101ULL
#define VS_WORD_HIGHS 0x8080808080808080ULL

/* Eight bytes from p, any alignment. */
static inline uint64_t vs_word_load(const char *p)
{
    uint64_t x;
    memcpy(&x, p, 8);
    return x;
}

/* High bits of the bytes of x below n (1 <= n <= 0x80). */
static inline uint64_t vs_word_below(uint64_t x, unsigned n)
{
    return (x - VS_WORD_ONES * n) & ~x & VS_WORD_HIGHS;
}

/* High bits of the bytes of x equal to c. */
static inline uint64_t vs_word_equal(uint64_t x, unsigned char c)
{
    return vs_word_below(x ^ (VS_WORD_ONES * c), 1);
}

/* High bits of the bytes of x that are not ASCII. */
static inline uint64_t vs_word_high(uint64_t x)
{
    return x & VS_WORD_HIGHS;
}

/* The n (< 16) bytes at s into pad, the rest of its 16 bytes spaces: a short
 * string read as one block by a scanner that takes sixteen at a time. Two
 * overlapping words, not memcpy: no library call for a few bytes. Below 8
 * bytes, two overlapping 4-byte words, or the first, middle and last bytes:
 * most strings a result writes (a status, a class, "0.12 GB") are that short,
 * and a loop of a byte at a time was most of their cost. */
static inline void vs_word_pad16(char pad[16], const char *s, size_t n)
{
    memset(pad, ' ', 16);
    if (n >= 8 && n <= 16) {
        memcpy(pad, s, 8);
        memcpy(pad + n - 8, s + n - 8, 8);
    } else if (n >= 4 && n < 8) {
        memcpy(pad, s, 4);
        memcpy(pad + n - 4, s + n - 4, 4);
    } else if (n >= 1 && n < 4) {
        pad[0] = s[0];
        pad[n / 2] = s[n / 2];
        pad[n - 1] = s[n - 1];
    }
}

#if defined(__SSE2__)
/* m, and the bytes of x equal to c when c is a stop (not 0) */
static inline __m128i vs_word_block_stop_(__m128i m, __m128i x, char c)
{
    return c ? _mm_or_si128(m, _mm_cmpeq_epi8(x, _mm_set1_epi8(c))) : m;
}
#endif

/* How many of the 16 bytes at p, from the first, continue a run (16 when
 * all): a byte stops it when it is below lo (1..0x7F; every byte >= 0x80
 * stops it too) or equals one of s1..s5 (0 for none). The callers pass
 * constants, so the tests for unused stops fold away. */
static inline size_t vs_word_block_run(const char *p, char lo, char s1, char s2, char s3, char s4,
                                       char s5)
{
#if defined(__SSE2__)
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
    /* signed: bytes >= 0x80 are negative, below lo */
    __m128i m = _mm_cmplt_epi8(x, _mm_set1_epi8(lo));
    unsigned bits;
    m = vs_word_block_stop_(m, x, s1);
    m = vs_word_block_stop_(m, x, s2);
    m = vs_word_block_stop_(m, x, s3);
    m = vs_word_block_stop_(m, x, s4);
    m = vs_word_block_stop_(m, x, s5);
    bits = (unsigned)_mm_movemask_epi8(m);
    return bits ? (size_t)__builtin_ctz(bits) : 16;
#else
    /* a byte at a time where there is no SSE2: correct, not tuned */
    size_t k;
    for (k = 0; k < 16; k++) {
        char c = p[k];
        if ((unsigned char)c < (unsigned char)lo || (unsigned char)c >= 0x80 ||
            (c && (c == s1 || c == s2 || c == s3 || c == s4 || c == s5)))
            return k;
    }
    return 16;
#endif
}

/* The decimal digits of v written backwards, ending at end (room for 20);
 * returns the first. Two digits per division, from a table of the hundred
 * pairs: every amount, count and byte total a result prints passes here. */
static inline char *vs_word_u64_digits(uint64_t v, char *end)
{
    static const char pairs[] = "00010203040506070809101112131415161718192021222324"
                                "25262728293031323334353637383940414243444546474849"
                                "50515253545556575859606162636465666768697071727374"
                                "75767778798081828384858687888990919293949596979899";
    while (v >= 100) {
        unsigned d = (unsigned)(v % 100) * 2;
        v /= 100;
        *--end = pairs[d + 1];
        *--end = pairs[d];
    }
    if (v >= 10) {
        *--end = pairs[v * 2 + 1];
        *--end = pairs[v * 2];
    } else {
        *--end = (char)('0' + v);
    }
    return end;
}

#endif
