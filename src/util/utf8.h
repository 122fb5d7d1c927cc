/* utf8.h — UTF-8 checks and the conversions between Jupyter and C.
 *
 * Jupyter counts cursor positions in Unicode code points; the interpreter counts
 * bytes of UTF-8. Text from the interpreter or from a command's output may not be
 * valid UTF-8, which JSON cannot carry: it is repaired with U+FFFD. Pure: no I/O,
 * no state; every function accepts any bytes and never reads past len.
 */
#ifndef VS_UTIL_UTF8_H
#define VS_UTIL_UTF8_H

#include <stddef.h>

/* Length of the valid UTF-8 sequence at s[0..n) (1 to 4; a NUL byte is 1), or
 * 0 when it is invalid: overlong forms, surrogates, values past U+10FFFF, or a
 * sequence cut by the end. n must be at least 1. */
size_t vs_utf8_seq(const unsigned char *s, size_t n);

/* For text that arrives in pieces (a command's output): the length of the valid
 * sequence at s[0..n) (1 to 4), 0 when it is invalid, or -1 when its lead byte
 * and the continuation bytes present are well formed but the end cut it (more
 * bytes may complete it; the overlong and surrogate checks wait for them).
 * n must be at least 1. */
int vs_utf8_prefix(const unsigned char *s, size_t n);

/* Byte offset of code point cp in s[0..len); len when cp is past the end. */
size_t vs_utf8_cp_to_byte(const char *s, size_t len, size_t cp);

/* Number of code points in s[0..byte) (byte is clamped to len). */
size_t vs_utf8_byte_to_cp(const char *s, size_t len, size_t byte);

/* Non-zero when s[0..len) is valid UTF-8 without NUL bytes. */
int vs_utf8_valid(const char *s, size_t len);
/* The same with NUL bytes allowed, as in a JSON string. */
int vs_utf8_valid_nul(const char *s, size_t len);

/* A new NUL-terminated copy of s[0..len) in which every invalid sequence and NUL
 * is replaced by U+FFFD. Returns NULL when memory is short. */
char *vs_utf8_repair(const char *s, size_t len);

#endif
