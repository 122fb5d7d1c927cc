#include "render/bundle.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"
#include "util/utf8.h"

/* Cells live in one text arena (NUL-separated), each with its display width
 * measured once: a table of a few hundred rows is rendered twice (text and
 * HTML) per result, and per-cell allocations and per-character appends were
 * most of the cost of a long `envelope`. */
typedef struct {
    size_t off;   /* into text */
    size_t len;   /* bytes */
    size_t width; /* code points */
    int flat;     /* 0: holds a newline, CR or tab (printed as spaces in text) */
} table_cell;

struct vs_table {
    size_t ncols;
    table_cell *headers;
    table_cell *cells; /* nrows * ncols */
    size_t nrows;
    size_t cap;
    unsigned char *right;
    vs_buf text;
    int failed;
};

/* A JSON string of s; invalid UTF-8 (which jansson refuses) becomes U+FFFD so a
 * result is never lost over one bad byte. */
static json_t *string_safe(const char *s)
{
    size_t n = strlen(s), i = 0;
    json_t *j = vs_json_stringn(s, n);
    vs_buf b = VS_BUF_INIT;
    if (j)
        return j;
    while (i < n) {
        size_t k = vs_utf8_seq((const unsigned char *)s + i, n - i);
        if (k == 0) {
            vs_buf_puts(&b, "\xEF\xBF\xBD");
            i++;
        } else {
            vs_buf_append(&b, s + i, k);
            i += k;
        }
    }
    if (!vs_buf_failed(&b))
        j = vs_json_stringn(vs_buf_str(&b), b.len);
    vs_buf_free(&b);
    return j;
}

json_t *vs_bundle_new(const char *plain, const char *html, const char *svg, json_t *payload_take)
{
    json_t *b = json_object(), *v;
    if (!b || !plain)
        goto fail;
    if (!(v = string_safe(plain)) || json_object_set_new_nocheck(b, "text/plain", v) < 0)
        goto fail;
    if (html && svg) {
        /* Frontends show one representation per output, and every one of them
         * (classic Notebook, JupyterLab, nbconvert) ranks text/html above
         * image/svg+xml: the chart must be inside the HTML to be seen. */
        vs_buf both = VS_BUF_INIT;
        vs_buf_puts(&both, html);
        vs_buf_puts(&both, "<div class=\"vramsheet-chart\">\n");
        vs_buf_puts(&both, svg);
        vs_buf_puts(&both, "</div>\n");
        v = vs_buf_failed(&both) ? NULL : string_safe(vs_buf_str(&both));
        vs_buf_free(&both);
        if (!v || json_object_set_new_nocheck(b, "text/html", v) < 0)
            goto fail;
    } else if (html &&
               (!(v = string_safe(html)) || json_object_set_new_nocheck(b, "text/html", v) < 0)) {
        goto fail;
    }
    if (svg && (!(v = string_safe(svg)) || json_object_set_new_nocheck(b, "image/svg+xml", v) < 0))
        goto fail;
    if (payload_take) {
        if (json_object_set_new_nocheck(b, VS_MIME_JSON, payload_take) < 0) {
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

/* Display width in code points (continuation bytes do not count), and whether
 * the text has no newline, CR or tab. Cells are mostly printable ASCII (one
 * column a byte): eight such bytes are counted at once. */
static size_t measure(const char *s, size_t len, int *flat)
{
    const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    size_t w = 0, i = 0;
    *flat = 1;
    for (;;) {
        uint64_t x;
        while (i + 8 <= len) {
            memcpy(&x, s + i, 8);
            /* a byte >= 0x80, or one < 0x20 (newline, CR, tab among them) */
            if ((x & highs) || ((x - ones * 0x20) & ~x & highs))
                break;
            w += 8;
            i += 8;
        }
        if (i >= len)
            break;
        {
            unsigned char c = (unsigned char)s[i++];
            if ((c & 0xC0) != 0x80)
                w++;
            if (c == '\n' || c == '\r' || c == '\t')
                *flat = 0;
        }
    }
    return w;
}

static void store(vs_table *t, table_cell *c, const char *s)
{
    if (!s)
        s = "";
    c->off = t->text.len;
    c->len = strlen(s);
    c->width = measure(s, c->len, &c->flat);
    vs_buf_append(&t->text, s, c->len + 1); /* with its NUL */
    if (vs_buf_failed(&t->text))
        t->failed = 1;
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
    for (i = 0; i < ncols; i++)
        store(t, &t->headers[i], headers ? headers[i] : NULL);
    return t;
}

void vs_table_free(vs_table *t)
{
    if (!t)
        return;
    free(t->headers);
    free(t->cells);
    free(t->right);
    vs_buf_free(&t->text);
    free(t);
}

void vs_table_add_row(vs_table *t, const char *const *cells)
{
    size_t i;
    if (!t || t->failed)
        return;
    if (t->nrows == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 8;
        table_cell *p = realloc(t->cells, cap * (t->ncols ? t->ncols : 1) * sizeof *p);
        if (!p) {
            t->failed = 1;
            return;
        }
        t->cells = p;
        t->cap = cap;
    }
    for (i = 0; i < t->ncols; i++)
        store(t, &t->cells[t->nrows * t->ncols + i], cells ? cells[i] : NULL);
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

static const char *cell_text(const vs_table *t, const table_cell *c)
{
    return t->text.data + c->off;
}

/* Newlines and tabs inside a cell would break the alignment; they print as spaces. */
static void put_flat(vs_buf *out, const char *s, size_t len)
{
    size_t i;
    for (i = 0; i < len; i++)
        vs_buf_putc(out, (s[i] == '\n' || s[i] == '\r' || s[i] == '\t') ? ' ' : s[i]);
}

static void put_padded(vs_buf *out, const vs_table *t, const table_cell *c, size_t w, int right,
                       int last)
{
    if (right && c->width < w)
        vs_buf_fill(out, ' ', w - c->width);
    if (c->flat)
        vs_buf_append(out, cell_text(t, c), c->len);
    else
        put_flat(out, cell_text(t, c), c->len);
    if (!right && !last && c->width < w)
        vs_buf_fill(out, ' ', w - c->width);
}

/* Ends a text row: padding after the last visible cell is dropped. */
static void end_row(vs_buf *out)
{
    while (out->len > 0 && out->data[out->len - 1] == ' ')
        out->data[--out->len] = '\0';
    vs_buf_putc(out, '\n');
}

static void text_row(vs_buf *out, const vs_table *t, const table_cell *row, const size_t *w)
{
    size_t c;
    for (c = 0; c < t->ncols; c++) {
        if (c)
            vs_buf_append(out, "  ", 2);
        put_padded(out, t, &row[c], w[c], t->right[c], c + 1 == t->ncols);
    }
    end_row(out);
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
        w[c] = t->headers[c].width;
        for (r = 0; r < t->nrows; r++)
            if (t->cells[r * t->ncols + c].width > w[c])
                w[c] = t->cells[r * t->ncols + c].width;
        total += w[c] + (c ? 2 : 0);
    }
    /* the whole table at once: one allocation instead of a doubling series */
    vs_buf_reserve(out, (total + 1) * (t->nrows + 2) + t->text.len);
    text_row(out, t, t->headers, w);
    vs_buf_fill(out, '-', total);
    vs_buf_putc(out, '\n');
    for (r = 0; r < t->nrows; r++)
        text_row(out, t, &t->cells[r * t->ncols], w);
    free(w);
}

void vs_table_html(const vs_table *t, vs_buf *out)
{
    static const char th_l[] = "<th style=\"text-align:left\">",
                      th_r[] = "<th style=\"text-align:right\">",
                      td_l[] = "<td style=\"text-align:left\">",
                      td_r[] = "<td style=\"text-align:right\">";
    size_t r, c;
    if (!t || t->failed)
        return;
    vs_buf_reserve(out, t->text.len + (t->nrows + 1) * (t->ncols * 40 + 12) + 64);
    vs_buf_puts(out, "<table class=\"vramsheet\">\n<thead><tr>");
    for (c = 0; c < t->ncols; c++) {
        if (t->right[c])
            vs_buf_append(out, th_r, sizeof th_r - 1);
        else
            vs_buf_append(out, th_l, sizeof th_l - 1);
        vs_buf_put_html(out, cell_text(t, &t->headers[c]));
        vs_buf_append(out, "</th>", 5);
    }
    vs_buf_puts(out, "</tr></thead>\n<tbody>\n");
    for (r = 0; r < t->nrows; r++) {
        vs_buf_append(out, "<tr>", 4);
        for (c = 0; c < t->ncols; c++) {
            if (t->right[c])
                vs_buf_append(out, td_r, sizeof td_r - 1);
            else
                vs_buf_append(out, td_l, sizeof td_l - 1);
            vs_buf_put_html(out, cell_text(t, &t->cells[r * t->ncols + c]));
            vs_buf_append(out, "</td>", 5);
        }
        vs_buf_append(out, "</tr>\n", 6);
    }
    vs_buf_puts(out, "</tbody>\n</table>\n");
}
