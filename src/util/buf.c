#include "util/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void vs_buf_init(vs_buf *b)
{
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    b->failed = 0;
}

void vs_buf_free(vs_buf *b)
{
    if (!b)
        return;
    free(b->data);
    vs_buf_init(b);
}

void vs_buf_reset(vs_buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

static int grow(vs_buf *b, size_t extra)
{
    size_t need, cap;
    char *p;
    if (b->failed)
        return -1;
    if (extra > (size_t)-1 - b->len - 1) {
        b->failed = 1;
        return -1;
    }
    need = b->len + extra + 1;
    if (need <= b->cap)
        return 0;
    cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap = cap > (size_t)-1 / 2 ? need : cap * 2;
    p = realloc(b->data, cap);
    if (!p) {
        b->failed = 1;
        return -1;
    }
    b->data = p;
    b->cap = cap;
    return 0;
}

void vs_buf_append(vs_buf *b, const char *s, size_t n)
{
    if (grow(b, n) < 0)
        return;
    if (n)
        memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void vs_buf_puts(vs_buf *b, const char *s) { vs_buf_append(b, s, strlen(s)); }

void vs_buf_putc(vs_buf *b, char c) { vs_buf_append(b, &c, 1); }

void vs_buf_vprintf(vs_buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    int n;
    va_copy(ap2, ap);
    n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0) {
        b->failed = 1;
        return;
    }
    if (grow(b, (size_t)n) < 0)
        return;
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void vs_buf_printf(vs_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vs_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

void vs_buf_put_html(vs_buf *b, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': vs_buf_puts(b, "&amp;"); break;
        case '<': vs_buf_puts(b, "&lt;"); break;
        case '>': vs_buf_puts(b, "&gt;"); break;
        case '"': vs_buf_puts(b, "&quot;"); break;
        default: vs_buf_putc(b, *s);
        }
    }
}

int vs_buf_failed(const vs_buf *b) { return b->failed; }

const char *vs_buf_str(const vs_buf *b) { return b->data ? b->data : ""; }

char *vs_buf_take(vs_buf *b)
{
    char *p;
    if (b->failed) {
        vs_buf_free(b);
        return NULL;
    }
    if (!b->data) {
        p = malloc(1);
        if (p)
            p[0] = '\0';
        return p;
    }
    p = b->data;
    vs_buf_init(b);
    return p;
}
