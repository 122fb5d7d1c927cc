#include "util/utf8.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

size_t vs_utf8_seq(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t len, i;
    unsigned cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
        return 0;
    return len;
}

/* As vs_utf8_seq, with NUL refused: JSON text and C strings cannot carry it. */
static size_t seq_len(const unsigned char *s, size_t len, size_t i)
{
    return s[i] ? vs_utf8_seq(s + i, len - i) : 0;
}

/* Code points are counted as lead bytes (anything but 10xxxxxx), so that the
 * two conversions agree with each other even on invalid input. */
size_t vs_utf8_cp_to_byte(const char *s, size_t len, size_t cp)
{
    size_t i = 0, seen = 0;
    while (i < len) {
        if (((unsigned char)s[i] & 0xc0) != 0x80) {
            if (seen == cp)
                return i;
            seen++;
        }
        i++;
    }
    return len;
}

size_t vs_utf8_byte_to_cp(const char *s, size_t len, size_t byte)
{
    size_t i, n = 0;
    if (byte > len)
        byte = len;
    for (i = 0; i < byte; i++)
        if (((unsigned char)s[i] & 0xc0) != 0x80)
            n++;
    return n;
}

int vs_utf8_valid(const char *s, size_t len)
{
    const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    size_t i = 0, n;
    while (i < len) {
        /* eight ASCII bytes, none NUL, at a time: a cell is almost all ASCII,
         * and the parser checks every byte of it */
        if (i + 8 <= len) {
            uint64_t x;
            memcpy(&x, s + i, 8);
            if (!(x & highs) && !((x - ones) & ~x & highs)) {
                i += 8;
                continue;
            }
        }
        n = seq_len((const unsigned char *)s, len, i);
        if (!n)
            return 0;
        i += n;
    }
    return 1;
}

char *vs_utf8_repair(const char *s, size_t len)
{
    size_t i = 0, o = 0, n;
    char *out;
    if (len > ((size_t)-1 - 1) / 3)
        return NULL;
    /* Each invalid byte becomes 3 bytes at most. */
    out = malloc(3 * len + 1);
    if (!out)
        return NULL;
    while (i < len) {
        n = seq_len((const unsigned char *)s, len, i);
        if (n) {
            memcpy(out + o, s + i, n);
            o += n;
            i += n;
        } else {
            memcpy(out + o, "\xef\xbf\xbd", 3);
            o += 3;
            i++;
        }
    }
    out[o] = '\0';
    return out;
}
