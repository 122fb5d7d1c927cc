#include "render/bundle.h"

#include <stdlib.h>
#include <string.h>

struct vs_table {
    size_t ncols;
    char **headers;
    char **cells; /* nrows * ncols */
    size_t nrows;
    size_t cap;
    unsigned char *right;
    int failed;
};

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when it is invalid. */
static size_t utf8_seq(const unsigned char *s, size_t n)
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

/* A JSON string of s; invalid UTF-8 (which jansson refuses) becomes U+FFFD so a
 * result is never lost over one bad byte. */
static json_t *string_safe(const char *s)
{
    json_t *j = json_string(s);
    vs_buf b = VS_BUF_INIT;
    size_t n, i = 0;
    if (j)
        return j;
    n = strlen(s);
    while (i < n) {
        size_t k = utf8_seq((const unsigned char *)s + i, n - i);
        if (k == 0) {
            vs_buf_puts(&b, "\xEF\xBF\xBD");
            i++;
        } else {
            vs_buf_append(&b, s + i, k);
            i += k;
        }
    }
    if (!vs_buf_failed(&b))
        j = json_string(vs_buf_str(&b));
    vs_buf_free(&b);
    return j;
}

json_t *vs_bundle_new(const char *plain, const char *html, const char *svg, json_t *payload_take)
{
    json_t *b = json_object(), *v;
    if (!b || !plain)
        goto fail;
    if (!(v = string_safe(plain)) || json_object_set_new(b, "text/plain", v) < 0)
        goto fail;
    if (html && (!(v = string_safe(html)) || json_object_set_new(b, "text/html", v) < 0))
        goto fail;
    if (svg && (!(v = string_safe(svg)) || json_object_set_new(b, "image/svg+xml", v) < 0))
        goto fail;
    if (payload_take) {
        if (json_object_set_new(b, VS_MIME_JSON, payload_take) < 0) {
            payload_take = NULL; /* set_new releases it on failure */
            goto fail;
        }
    }
    return b;
fail:
    json_decref(payload_take);
    json_decref(b);
    return NULL;
}

static char *dup_or_empty(const char *s)
{
    return strdup(s ? s : "");
}

vs_table *vs_table_new(size_t ncols, const char *const *headers)
{
    vs_table *t = calloc(1, sizeof *t);
    size_t i;
    if (!t)
        return NULL;
    t->ncols = ncols;
    t->headers = calloc(ncols ? ncols : 1, sizeof *t->headers);
    t->right = calloc(ncols ? ncols : 1, 1);
    if (!t->headers || !t->right) {
        vs_table_free(t);
        return NULL;
    }
    for (i = 0; i < ncols; i++) {
        t->headers[i] = dup_or_empty(headers ? headers[i] : NULL);
        if (!t->headers[i])
            t->failed = 1;
    }
    return t;
}

void vs_table_free(vs_table *t)
{
    size_t i;
    if (!t)
        return;
    if (t->headers)
        for (i = 0; i < t->ncols; i++)
            free(t->headers[i]);
    for (i = 0; i < t->nrows * t->ncols; i++)
        free(t->cells[i]);
    free(t->headers);
    free(t->cells);
    free(t->right);
    free(t);
}

void vs_table_add_row(vs_table *t, const char *const *cells)
{
    size_t i;
    if (!t || t->failed)
        return;
    if (t->nrows == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 8;
        char **p = realloc(t->cells, cap * (t->ncols ? t->ncols : 1) * sizeof *p);
        if (!p) {
            t->failed = 1;
            return;
        }
        t->cells = p;
        t->cap = cap;
    }
    for (i = 0; i < t->ncols; i++) {
        char *c = dup_or_empty(cells ? cells[i] : NULL);
        if (!c)
            t->failed = 1;
        t->cells[t->nrows * t->ncols + i] = c;
    }
    t->nrows++;
}

void vs_table_align_right(vs_table *t, size_t col)
{
    if (t && col < t->ncols)
        t->right[col] = 1;
}

int vs_table_failed(const vs_table *t)
{
    return !t || t->failed;
}

/* Display width in code points (continuation bytes do not count). */
static size_t width(const char *s)
{
    size_t w = 0;
    if (!s)
        return 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xC0) != 0x80)
            w++;
    return w;
}

static const char *cell(const vs_table *t, size_t row, size_t col)
{
    const char *c = t->cells[row * t->ncols + col];
    return c ? c : "";
}

/* Newlines and tabs inside a cell would break the alignment; they print as spaces. */
static void put_flat(vs_buf *out, const char *s)
{
    for (; *s; s++)
        vs_buf_putc(out, (*s == '\n' || *s == '\r' || *s == '\t') ? ' ' : *s);
}

/* Ends a text row: padding after the last visible cell is dropped. */
static void end_row(vs_buf *out)
{
    while (out->len > 0 && out->data[out->len - 1] == ' ')
        out->data[--out->len] = '\0';
    vs_buf_putc(out, '\n');
}

static void put_padded(vs_buf *out, const char *s, size_t w, int right, int last)
{
    size_t sw = width(s), i;
    if (right)
        for (i = sw; i < w; i++)
            vs_buf_putc(out, ' ');
    put_flat(out, s);
    if (!right && !last)
        for (i = sw; i < w; i++)
            vs_buf_putc(out, ' ');
}

void vs_table_text(const vs_table *t, vs_buf *out)
{
    size_t *w, r, c, total = 0;
    if (!t || t->failed || t->ncols == 0)
        return;
    w = calloc(t->ncols, sizeof *w);
    if (!w) {
        out->failed = 1;
        return;
    }
    for (c = 0; c < t->ncols; c++) {
        w[c] = width(t->headers[c]);
        for (r = 0; r < t->nrows; r++)
            if (width(cell(t, r, c)) > w[c])
                w[c] = width(cell(t, r, c));
        total += w[c] + (c ? 2 : 0);
    }
    for (c = 0; c < t->ncols; c++) {
        if (c)
            vs_buf_puts(out, "  ");
        put_padded(out, t->headers[c], w[c], t->right[c], c + 1 == t->ncols);
    }
    end_row(out);
    for (c = 0; c < total; c++)
        vs_buf_putc(out, '-');
    vs_buf_putc(out, '\n');
    for (r = 0; r < t->nrows; r++) {
        for (c = 0; c < t->ncols; c++) {
            if (c)
                vs_buf_puts(out, "  ");
            put_padded(out, cell(t, r, c), w[c], t->right[c], c + 1 == t->ncols);
        }
        end_row(out);
    }
    free(w);
}

void vs_table_html(const vs_table *t, vs_buf *out)
{
    size_t r, c;
    if (!t || t->failed)
        return;
    vs_buf_puts(out, "<table class=\"vramsheet\">\n<thead><tr>");
    for (c = 0; c < t->ncols; c++) {
        vs_buf_puts(out, t->right[c] ? "<th style=\"text-align:right\">"
                                     : "<th style=\"text-align:left\">");
        vs_buf_put_html(out, t->headers[c]);
        vs_buf_puts(out, "</th>");
    }
    vs_buf_puts(out, "</tr></thead>\n<tbody>\n");
    for (r = 0; r < t->nrows; r++) {
        vs_buf_puts(out, "<tr>");
        for (c = 0; c < t->ncols; c++) {
            vs_buf_puts(out, t->right[c] ? "<td style=\"text-align:right\">"
                                         : "<td style=\"text-align:left\">");
            vs_buf_put_html(out, cell(t, r, c));
            vs_buf_puts(out, "</td>");
        }
        vs_buf_puts(out, "</tr>\n");
    }
    vs_buf_puts(out, "</tbody>\n</table>\n");
}
