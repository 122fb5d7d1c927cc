/* buf.h — a growable byte string, always NUL-terminated.
 *
 * Used wherever text is built piece by piece (renderers, canonical JSON, wire
 * frames). Appends never fail silently: after an allocation failure the buffer is
 * marked failed, further appends are no-ops, and vs_buf_failed() says so, so a
 * caller checks once at the end. No I/O.
 */
#ifndef VS_UTIL_BUF_H
#define VS_UTIL_BUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct vs_buf {
    char *data; /* NUL-terminated; NULL until the first append */
    size_t len;
    size_t cap;
    int failed;
} vs_buf;

#define VS_BUF_INIT {NULL, 0, 0, 0}

void vs_buf_init(vs_buf *b);
void vs_buf_free(vs_buf *b); /* frees the data; the struct is reusable after */
void vs_buf_reset(vs_buf *b); /* length 0, keeps capacity */
void vs_buf_append(vs_buf *b, const char *s, size_t n);
void vs_buf_puts(vs_buf *b, const char *s);
void vs_buf_putc(vs_buf *b, char c);
void vs_buf_printf(vs_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void vs_buf_vprintf(vs_buf *b, const char *fmt, va_list ap);
/* Appends s with &, <, >, " escaped for HTML and SVG text and attributes. */
void vs_buf_put_html(vs_buf *b, const char *s);
int vs_buf_failed(const vs_buf *b);
/* The text ("" when empty); borrowed, valid until the next append. */
const char *vs_buf_str(const vs_buf *b);
/* Transfers the data to the caller (free()); the buffer is empty after.
 * Returns NULL when an append failed. */
char *vs_buf_take(vs_buf *b);

#endif
