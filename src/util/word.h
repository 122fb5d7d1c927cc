/* word.h — eight bytes at a time, for the scanners that see every byte of a
 * cell or a result (UTF-8 checks, JSON escaping, table widths).
 *
 * The tests are the classic SWAR ones: each sets the high bit of a byte that
 * matches. The lowest flagged byte is always exact; bytes above it may be
 * flagged falsely (a borrow), so callers stop at the lowest one. Header only:
 * the compiler inlines them into the loops that use them. Pure.
 */
#ifndef VS_UTIL_WORD_H
#define VS_UTIL_WORD_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

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
 * overlapping words, not memcpy: no library call for a few bytes. */
static inline void vs_word_pad16(char pad[16], const char *s, size_t n)
{
    size_t k;
    memset(pad, ' ', 16);
    if (n >= 8) {
        memcpy(pad, s, 8);
        memcpy(pad + n - 8, s + n - 8, 8);
    } else {
        for (k = 0; k < n; k++)
            pad[k] = s[k];
    }
}

#endif
