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
#include <string.h>

typedef struct vs_buf {
    char *data; /* NUL-terminated; NULL until the first append */
    size_t len;
    size_t cap;
    int failed;
} vs_buf;

#define VS_BUF_INIT                                                                                \
    {                                                                                              \
        NULL, 0, 0, 0                                                                              \
    }

void vs_buf_init(vs_buf *b);
void vs_buf_free(vs_buf *b); /* frees the data; the struct is reusable after */
/* on: vs_buf_free keeps up to 16 blocks of at most 64 KiB per thread, and a
 * new buffer takes the last one kept (process-wide switch, off by default;
 * util/pool turns it on). Data handed out by vs_buf_take is plain malloc'd. */
void vs_buf_recycle(int on);
void vs_buf_reset(vs_buf *b); /* length 0, keeps capacity */
/* vs_buf_append and vs_buf_putc take the common case (the text fits) inline:
 * renderers append a few bytes at a time, hundreds of thousands of times per
 * long cell. The _slow functions grow the buffer; call the plain ones. */
void vs_buf_append_slow(vs_buf *b, const char *s, size_t n);
void vs_buf_putc_slow(vs_buf *b, char c);
static inline void vs_buf_append(vs_buf *b, const char *s, size_t n)
{
    if (n < b->cap - b->len && !b->failed) {
        if (n)
            memcpy(b->data + b->len, s, n);
        b->len += n;
        b->data[b->len] = '\0';
    } else {
        vs_buf_append_slow(b, s, n);
    }
}
/* Inline so that a literal's length is known where it is written. */
static inline void vs_buf_puts(vs_buf *b, const char *s)
{
    vs_buf_append(b, s, strlen(s));
}
static inline void vs_buf_putc(vs_buf *b, char c)
{
    if (b->len + 1 < b->cap && !b->failed) {
        b->data[b->len++] = c;
        b->data[b->len] = '\0';
    } else {
        vs_buf_putc_slow(b, c);
    }
}
/* Appends n copies of c (padding). */
void vs_buf_fill(vs_buf *b, char c, size_t n);
/* Makes room for n more bytes, so that the next appends up to n do not
 * reallocate. Marks the buffer failed when memory is short. */
void vs_buf_reserve(vs_buf *b, size_t n);
void vs_buf_printf(vs_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void vs_buf_vprintf(vs_buf *b, const char *fmt, va_list ap);
/* Appends s with &, <, >, " and ' escaped for HTML and SVG text and attributes
 * (results quote attributes with ', which JSON strings need not escape). */
void vs_buf_put_html(vs_buf *b, const char *s);
/* The same for the first n bytes of s (a piece of a longer text). */
void vs_buf_put_htmln(vs_buf *b, const char *s, size_t n);
static inline int vs_buf_failed(const vs_buf *b)
{
    return b->failed;
}
/* The text ("" when empty); borrowed, valid until the next append. */
static inline const char *vs_buf_str(const vs_buf *b)
{
    return b->data ? b->data : "";
}
/* Transfers the data to the caller (free()); the buffer is empty after.
 * Returns NULL when an append failed. */
char *vs_buf_take(vs_buf *b);
/* Frees data handed out by vs_buf_take (NULL: nothing) as vs_buf_free would:
 * kept for the next buffer while recycling is on. cap is the buffer's
 * capacity when it was taken (at most the bytes the block holds). */
void vs_buf_free_taken(char *data, size_t cap);

#endif
