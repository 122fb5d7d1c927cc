#include "util/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/word.h"

void vs_buf_init(vs_buf *b)
{
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    b->failed = 0;
}

/* Freed buffers kept for the next ones, per thread: a long cell makes and
 * frees six buffers a line (text, HTML, payload, pieces), and their malloc,
 * realloc and free were a twentieth of it. Only while recycling is on (the
 * vramsheet binary turns it on with the pool; sanitizers and valgrind see
 * every allocation). Blocks past KEEP_MAX go back to malloc. */
#define KEEP 16
#define KEEP_MAX ((size_t)64 << 10)
static int recycling;
static _Thread_local struct kept {
    char *data;
    size_t cap;
} kept[KEEP];
static _Thread_local size_t nkept;

void vs_buf_recycle(int on)
{
    recycling = on;
}

void vs_buf_free(vs_buf *b)
{
    if (!b)
        return;
    if (recycling && b->data && b->cap <= KEEP_MAX && nkept < KEEP) {
        kept[nkept].data = b->data;
        kept[nkept].cap = b->cap;
        nkept++;
    } else {
        free(b->data);
    }
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
    if (!b->data && nkept) {
        /* a kept block, the last one freed (warm in the cache) when it fits */
        struct kept k = kept[--nkept];
        if (k.cap >= need) {
            b->data = k.data;
            b->cap = k.cap;
            return 0;
        }
        free(k.data);
    }
    cap = b->cap ? b->cap : 256; /* most texts fit: no doubling series */
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

void vs_buf_append_slow(vs_buf *b, const char *s, size_t n)
{
    if (grow(b, n) < 0)
        return;
    if (n)
        memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void vs_buf_putc_slow(vs_buf *b, char c)
{
    vs_buf_append(b, &c, 1);
}

void vs_buf_fill(vs_buf *b, char c, size_t n)
{
    if ((b->cap - b->len <= n || b->failed) && grow(b, n) < 0)
        return;
    memset(b->data + b->len, c, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void vs_buf_reserve(vs_buf *b, size_t n)
{
    grow(b, n);
}

/* The conversion at f (just after its '%') when it is one vs_buf_vprintf
 * writes itself: '%', 's', or 'd' or 'u' after no length, "l", "ll" or
 * "z" ('u' only); *mods is how many length letters came first. 0 for any
 * other (a flag, a width, a precision, a float...). */
static char plain_conv(const char *f, size_t *mods)
{
    size_t m = 0;
    if (f[0] == 'z')
        return (*mods = 1, f[1] == 'u' ? 'z' : 0);
    while (m < 2 && f[m] == 'l')
        m++;
    *mods = m;
    if (f[m] == 's' || f[m] == '%')
        return m ? 0 : f[m];
    return f[m] == 'd' || f[m] == 'u' ? f[m] : 0;
}

/* Writes fmt when every conversion in it is a plain one (plain_conv), as
 * vsnprintf would write it (a NULL %s as glibc's "(null)"), and returns 1;
 * returns 0, having written and read nothing, for any other format. Most
 * results print strings and counts into sentences, and vsnprintf copied
 * each %s a byte at a time through its stream. */
static int plain_printf(vs_buf *b, const char *fmt, va_list *ap)
{
    const char *p, *run;
    size_t mods;
    for (p = fmt; (p = strchr(p, '%')) != NULL; p += mods + 2)
        if (!plain_conv(p + 1, &mods))
            return 0;
    for (run = p = fmt; (p = strchr(p, '%')) != NULL; run = p) {
        char conv = plain_conv(p + 1, &mods), d[24], *e = d + sizeof d, *q;
        int neg = 0;
        uint64_t v = 0;
        vs_buf_append(b, run, (size_t)(p - run));
        p += mods + 2;
        switch (conv) {
        case '%':
            vs_buf_putc(b, '%');
            continue;
        case 's': {
            const char *s = va_arg(*ap, const char *);
            vs_buf_puts(b, s ? s : "(null)");
            continue;
        }
        case 'z':
            v = va_arg(*ap, size_t);
            break;
        case 'u':
            v = mods == 2   ? va_arg(*ap, unsigned long long)
                : mods == 1 ? va_arg(*ap, unsigned long)
                            : va_arg(*ap, unsigned);
            break;
        default: { /* 'd' */
            long long x = mods == 2   ? va_arg(*ap, long long)
                          : mods == 1 ? va_arg(*ap, long)
                                      : va_arg(*ap, int);
            neg = x < 0;
            v = neg ? 0 - (uint64_t)x : (uint64_t)x;
        }
        }
        q = vs_word_u64_digits(v, e);
        if (neg)
            *--q = '-';
        vs_buf_append(b, q, (size_t)(e - q));
    }
    vs_buf_puts(b, run);
    return 1;
}

void vs_buf_vprintf(vs_buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    size_t room;
    int n;
    if (b->failed)
        return;
    va_copy(ap2, ap);
    n = plain_printf(b, fmt, &ap2);
    va_end(ap2);
    if (n)
        return;
    /* Format straight into the free space; only text that does not fit is
     * formatted a second time, after growing. */
    room = b->data ? b->cap - b->len : 0;
    if (room < 64) {
        /* a fresh or full buffer: room first, so one formatting pass is enough */
        if (grow(b, 64) < 0)
            return;
        room = b->cap - b->len;
    }
    va_copy(ap2, ap);
    /* room >= 64 here: b->data is allocated */
    n = vsnprintf(b->data + b->len, room, fmt, ap2);
    va_end(ap2);
    if (n < 0) {
        b->data[b->len] = '\0';
        b->failed = 1;
        return;
    }
    if ((size_t)n < room) {
        b->len += (size_t)n;
        return;
    }
    if (grow(b, (size_t)n) < 0) {
        if (b->data)
            b->data[b->len] = '\0'; /* drop the truncated attempt */
        return;
    }
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
    for (;;) {
        size_t n = strcspn(s, "&<>\"'"); /* runs without markup, copied whole */
        vs_buf_append(b, s, n);
        s += n;
        switch (*s) {
        case '&':
            vs_buf_append(b, "&amp;", 5);
            break;
        case '<':
            vs_buf_append(b, "&lt;", 4);
            break;
        case '>':
            vs_buf_append(b, "&gt;", 4);
            break;
        case '"':
            vs_buf_append(b, "&quot;", 6);
            break;
        case '\'':
            vs_buf_append(b, "&#39;", 5);
            break;
        default:
            return; /* the end */
        }
        s++;
    }
}

void vs_buf_put_htmln(vs_buf *b, const char *s, size_t n)
{
    size_t i, run = 0;
    for (i = 0; i < n; i++) {
        const char *e;
        switch (s[i]) {
        case '&':
            e = "&amp;";
            break;
        case '<':
            e = "&lt;";
            break;
        case '>':
            e = "&gt;";
            break;
        case '"':
            e = "&quot;";
            break;
        case '\'':
            e = "&#39;";
            break;
        default:
            continue;
        }
        vs_buf_append(b, s + run, i - run); /* the run without markup, whole */
        vs_buf_puts(b, e);
        run = i + 1;
    }
    vs_buf_append(b, s + run, n - run);
}

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

/* A result's bundle takes its buffer's block and frees it once the result is
 * sent, a block a line: back in the kept list, the next line's buffer takes
 * it rather than a malloc of a block glibc had just been given back (a
 * result is over a kilobyte, past glibc's per-thread cache). */
void vs_buf_free_taken(char *data, size_t cap)
{
    vs_buf b;
    vs_buf_init(&b);
    b.data = data;
    b.cap = cap;
    vs_buf_free(&b);
}
