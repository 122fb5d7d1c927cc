#include "util/utf8.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/word.h"

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
int vs_utf8_prefix(const unsigned char *s, size_t n)
{
    int k, i;
    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xC2 && s[0] <= 0xDF)
        k = 2;
    else if (s[0] >= 0xE0 && s[0] <= 0xEF)
        k = 3;
    else if (s[0] >= 0xF0 && s[0] <= 0xF4)
        k = 4;
    else
        return 0;
    for (i = 1; i < k; i++) {
        if ((size_t)i >= n)
            return -1;
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    }
    if (k == 3 && ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] > 0x9F)))
        return 0;
    if (k == 4 && ((s[0] == 0xF0 && s[1] < 0x90) || (s[0] == 0xF4 && s[1] > 0x8F)))
        return 0;
    return k;
}

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

/* Eight bytes of ASCII (and, unless nul_ok, none of them NUL). */
static int clean8(uint64_t x, int nul_ok)
{
    return !vs_word_high(x) && (nul_ok || !vs_word_below(x, 1));
}

/* The one UTF-8 check: NUL bytes refused or allowed. ASCII is skipped 32, then
 * 8 bytes at a time: cells, HTML and SVG are almost all ASCII, and every byte
 * of them is checked (the parser, every JSON string of a result). */
static inline int valid(const char *s, size_t len, int nul_ok)
{
    size_t i = 0, n;
    while (i < len) {
        while (i + 32 <= len) {
            uint64_t a = vs_word_load(s + i), b = vs_word_load(s + i + 8),
                     c = vs_word_load(s + i + 16), d = vs_word_load(s + i + 24);
            if (vs_word_high(a | b | c | d) ||
                (!nul_ok && !(clean8(a, 0) && clean8(b, 0) && clean8(c, 0) && clean8(d, 0))))
                break;
            i += 32;
        }
        while (i + 8 <= len && clean8(vs_word_load(s + i), nul_ok))
            i += 8;
        if (i >= len)
            break;
        n = nul_ok ? vs_utf8_seq((const unsigned char *)s + i, len - i)
                   : seq_len((const unsigned char *)s, len, i);
        if (!n)
            return 0;
        i += n;
    }
    return 1;
}

int vs_utf8_valid(const char *s, size_t len)
{
    return valid(s, len, 0);
}

int vs_utf8_valid_nul(const char *s, size_t len)
{
    return valid(s, len, 1);
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
