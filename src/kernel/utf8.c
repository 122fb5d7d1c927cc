#include "kernel/utf8.h"

#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s[i] (1..4), or 0 when it is invalid
 * (overlong forms, surrogates and values past U+10FFFF included). */
static size_t seq_len(const unsigned char *s, size_t len, size_t i)
{
    unsigned char c = s[i];
    size_t n, k;
    unsigned long cp;
    if (c < 0x80)
        return c ? 1 : 0;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
        cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (len - i < n)
        return 0;
    for (k = 1; k < n; k++) {
        if ((s[i + k] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i + k] & 0x3f);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
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
    size_t i = 0, n;
    while (i < len) {
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
