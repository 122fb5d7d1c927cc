/* bundle_table.c — the tables results print (render/bundle.h's vs_table):
 * built once, written as aligned plain text and as HTML, each either as it is
 * or escaped into a JSON string (vs_bundle_new_table writes a long result's
 * table straight into its bundle).
 */
#include "render/bundle.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "render/bundle_internal.h"
#include "util/json.h"
#include "util/word.h"

/* Cells live in one text arena (NUL-separated), each with its display width
 * measured once: a table of a few hundred rows is rendered twice (text and
 * HTML) per result, and per-cell allocations and per-character appends were
 * most of the cost of a long `envelope`. */
typedef struct {
    size_t off;   /* into text */
    size_t len;   /* bytes */
    size_t width; /* code points */
    int flat;     /* 0: holds a newline, CR or tab (printed as spaces in text) */
    int markup;   /* holds &, <, >, " or ' (escaped in HTML) */
    int plain;    /* printable ASCII without " or \: as it is inside a JSON string */
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

static int is_markup(char c)
{
    return c == '&' || c == '<' || c == '>' || c == '"' || c == '\'';
}

/* Whether the n (<= 16) bytes at s are all printable ASCII (one column each,
 * no newline, CR or tab) and none is markup (&, <, >, " or '): sixteen at a
 * time with SSE2, a short cell read as one block padded with spaces. When
 * they are, *backslash is set if one of them is a backslash (which JSON
 * escapes). */
static inline int plain_block(const char *s, size_t n, int *backslash)
{
    char pad[16];
    if (n < 16) {
        vs_word_pad16(pad, s, n);
        s = pad;
    }
    if (vs_word_block_run(s, 0x20, '&', '<', '>', '"', '\'') < 16)
        return 0;
    if (vs_word_block_run(s, 0x20, '\\', 0, 0, 0, 0) < 16)
        *backslash = 1;
    return 1;
}

/* Display width in code points (continuation bytes do not count), whether
 * the text has no newline, CR or tab (flat), whether it holds markup, and
 * whether it is plain (see table_cell). Cells are mostly short plain ASCII
 * (one column a byte), counted a block at a time. */
static size_t measure_blocks(const char *s, size_t len, int *flat, int *markup, int *plain)
{
    size_t w = 0, i = 0, k, n;
    int backslash = 0;
    *flat = 1;
    *markup = 0;
    *plain = 1;
    for (; i < len; i += n) {
        n = len - i < 16 ? len - i : 16;
        if (plain_block(s + i, n, &backslash)) {
            w += n;
            continue;
        }
        for (k = i; k < i + n; k++) {
            unsigned char c = (unsigned char)s[k];
            if ((c & 0xC0) != 0x80)
                w++;
            if (c == '\n' || c == '\r' || c == '\t')
                *flat = 0;
            if (is_markup((char)c))
                *markup = 1;
            if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\')
                *plain = 0;
        }
    }
    if (backslash)
        *plain = 0;
    return w;
}

/* The n bytes at s to d: from 4 to 16 bytes (most cells) as two overlapping
 * words, no call to memcpy; the rest through memcpy. */
static inline void copy_bytes(char *d, const char *s, size_t n)
{
    if (n >= 8 && n <= 16) {
        uint64_t a, b;
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
        memcpy(d, &a, 8);
        memcpy(d + n - 8, &b, 8);
    } else if (n >= 4 && n < 8) {
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4);
        memcpy(d, &a, 4);
        memcpy(d + n - 4, &b, 4);
    } else if (n) {
        memcpy(d, s, n);
    }
}

/* measure_blocks, with the common case first and inline: a short cell of
 * plain ASCII (most of an `envelope`'s thousand cells) is one block. */
static inline size_t measure(const char *s, size_t len, int *flat, int *markup, int *plain)
{
    int backslash = 0;
    if (len <= 16 && plain_block(s, len, &backslash)) {
        *flat = 1;
        *markup = 0;
        *plain = !backslash;
        return len;
    }
    return measure_blocks(s, len, flat, markup, plain);
}

/* Cell c is the len bytes at s (no NUL among them), kept with a NUL after,
 * into room made for it (table_room). */
static inline void store_raw(vs_table *t, table_cell *c, const char *s, size_t len)
{
    c->off = t->text.len;
    c->len = len;
    c->width = measure(s, len, &c->flat, &c->markup, &c->plain);
    copy_bytes(t->text.data + t->text.len, s, len);
    t->text.len += len;
    t->text.data[t->text.len++] = '\0';
}

/* Room for n more bytes of cells in the table's text: 0, or -1 (failed). */
static int table_room(vs_table *t, size_t n)
{
    if (t->text.cap - t->text.len <= n || t->text.failed)
        vs_buf_reserve(&t->text, n);
    if (vs_buf_failed(&t->text))
        t->failed = 1;
    return t->failed ? -1 : 0;
}

static void store_n(vs_table *t, table_cell *c, const char *s, size_t len)
{
    if (table_room(t, len + 1) == 0)
        store_raw(t, c, s, len);
}

static void store(vs_table *t, table_cell *c, const char *s)
{
    if (!s)
        s = "";
    store_n(t, c, s, strlen(s));
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

/* Room for cap rows: 0, or -1 with the table failed. */
static int grow_rows(vs_table *t, size_t cap)
{
    table_cell *p;
    if (cap <= t->cap)
        return 0;
    p = realloc(t->cells, cap * (t->ncols ? t->ncols : 1) * sizeof *p);
    if (!p) {
        t->failed = 1;
        return -1;
    }
    t->cells = p;
    t->cap = cap;
    return 0;
}

void vs_table_reserve(vs_table *t, size_t rows, size_t text_bytes)
{
    if (!t || t->failed || grow_rows(t, t->nrows + rows) < 0)
        return;
    vs_buf_reserve(&t->text, text_bytes);
    if (vs_buf_failed(&t->text))
        t->failed = 1;
}

/* The next row's cells, or NULL (failed). */
static table_cell *next_row(vs_table *t)
{
    if (!t || t->failed)
        return NULL;
    if (t->nrows == t->cap && grow_rows(t, t->cap ? t->cap * 2 : 8) < 0)
        return NULL;
    return &t->cells[t->nrows * t->ncols];
}

void vs_table_add_row(vs_table *t, const char *const *cells)
{
    table_cell *row = next_row(t);
    size_t i;
    if (!row)
        return;
    for (i = 0; i < t->ncols; i++)
        store(t, &row[i], cells ? cells[i] : NULL);
    t->nrows++;
}

void vs_table_add_rown(vs_table *t, const char *const *cells, const size_t *lens)
{
    table_cell *row = next_row(t);
    size_t i, n = 0;
    if (!row)
        return;
    /* the row's cells and their NULs: room made once for the row */
    for (i = 0; i < t->ncols; i++)
        n += (cells[i] ? lens[i] : 0) + 1;
    if (table_room(t, n) < 0)
        return;
    for (i = 0; i < t->ncols; i++)
        store_raw(t, &row[i], cells[i] ? cells[i] : "", cells[i] ? lens[i] : 0);
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

/* A cell's text as it prints in the text form: as it is, or escaped for a
 * JSON string when json (copied when plain). A cell is escaped on its own:
 * cells are separated by spaces or a newline, so no character spans two and
 * the pieces' escapes are the escape of the whole. */
static void put_cell_text(vs_buf *out, const vs_table *t, const table_cell *c, int json)
{
    if (c->flat && (!json || c->plain)) {
        vs_buf_append(out, cell_text(t, c), c->len);
    } else if (!json) {
        put_flat(out, cell_text(t, c), c->len);
    } else if (c->flat) {
        vs_json_escape_lossy(cell_text(t, c), c->len, out);
    } else {
        vs_buf f = VS_BUF_INIT;
        put_flat(&f, cell_text(t, c), c->len);
        if (vs_buf_failed(&f))
            out->failed = 1;
        vs_json_escape_lossy(vs_buf_str(&f), f.len, out);
        vs_buf_free(&f);
    }
}

/* Room for n more bytes written with put_raw and put_spaces, and the 16 that
 * put_spaces may write past them: 0, or -1 (the buffer failed). */
static inline int room(vs_buf *out, size_t n)
{
    if (out->cap - out->len <= n + 16 || out->failed)
        vs_buf_reserve(out, n + 16);
    if (!out->failed)
        return 0;
    if (out->data) /* what the row wrote so far stays a string */
        out->data[out->len] = '\0';
    return -1;
}

/* The n bytes at s into room made by room(): a table's rows are most of a
 * long `envelope` (over a thousand cells, each with its padding), and vs_buf's
 * checks, its NUL after every piece and a call a padding were most of their
 * cost. A cell of 8 to 16 bytes (most) is two overlapping words, not a call
 * to memcpy. The row's last append puts the NUL back. */
static inline void put_raw(vs_buf *out, const char *s, size_t n)
{
    copy_bytes(out->data + out->len, s, n);
    out->len += n;
}

/* n spaces into room made by room(): up to 16 (most paddings) as one block
 * of 16, the bytes past n overwritten by what follows. */
static inline void put_spaces(vs_buf *out, size_t n)
{
    if (n <= 16)
        memcpy(out->data + out->len, "                ", 16);
    else
        memset(out->data + out->len, ' ', n);
    out->len += n;
}

/* A newline in the text form, escaped when json */
static void put_newline(vs_buf *out, int json)
{
    if (json)
        vs_buf_append(out, "\\n", 2);
    else
        vs_buf_putc(out, '\n');
}

/* Ends a text row: padding after the last visible cell is dropped (no
 * escape ends with a space, so the same spaces in the escaped form). */
static void end_row(vs_buf *out, int json)
{
    while (out->len > 0 && out->data[out->len - 1] == ' ')
        out->len--;
    put_newline(out, json);
}

static void text_row(vs_buf *out, const vs_table *t, const table_cell *row, const size_t *w,
                     int json)
{
    size_t c;
    for (c = 0; c < t->ncols; c++) {
        const table_cell *cell = &row[c];
        size_t pad = cell->width < w[c] ? w[c] - cell->width : 0;
        /* as it is (most cells), or through put_cell_text */
        int raw = cell->flat && (!json || cell->plain);
        if (room(out, 2 + pad + (raw ? cell->len : 0)) < 0)
            return;
        if (c)
            put_raw(out, "  ", 2);
        if (t->right[c])
            put_spaces(out, pad);
        if (raw) {
            put_raw(out, cell_text(t, cell), cell->len);
        } else {
            out->data[out->len] = '\0';
            put_cell_text(out, t, cell, json);
            if (room(out, pad) < 0)
                return;
        }
        if (!t->right[c] && c + 1 < t->ncols)
            put_spaces(out, pad);
    }
    end_row(out, json);
}

/* The text form, or its escape inside a JSON string when json. */
void vs_bundle_table_text(const vs_table *t, vs_buf *out, int json)
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
    vs_buf_reserve(out, (total + 2) * (t->nrows + 2) + t->text.len);
    text_row(out, t, t->headers, w, json);
    vs_buf_fill(out, '-', total);
    put_newline(out, json);
    for (r = 0; r < t->nrows; r++)
        text_row(out, t, &t->cells[r * t->ncols], w, json);
    free(w);
}

void vs_table_text(const vs_table *t, vs_buf *out)
{
    vs_bundle_table_text(t, out, 0);
}

/* A cell's text in HTML: copied whole when measure() found no markup in it;
 * escaped for a JSON string too when json (copied when plain). */
static void put_cell_html(vs_buf *out, const vs_table *t, const table_cell *c, int json)
{
    if (!json || (c->plain && !c->markup)) {
        if (c->markup)
            vs_buf_put_html(out, cell_text(t, c));
        else
            vs_buf_append(out, cell_text(t, c), c->len);
    } else if (!c->markup) {
        vs_json_escape_lossy(cell_text(t, c), c->len, out);
    } else {
        vs_buf h = VS_BUF_INIT;
        vs_buf_put_html(&h, cell_text(t, c));
        if (vs_buf_failed(&h))
            out->failed = 1;
        vs_json_escape_lossy(vs_buf_str(&h), h.len, out);
        vs_buf_free(&h);
    }
}

/* How a cell may break in a page: a number with its unit ("13.04 GiB",
 * "14,000,000,000 B = 14.00 GB = 13.04 GiB", "25.0%") never does; a long text
 * (a source, a URL, a path) may break anywhere rather than widen the table
 * past the page; one short hyphenated word ("to-confirm") never; the rest breaks at
 * spaces as usual. */
enum { CELL_TEXT, CELL_NUMBER, CELL_LONG };

static int cell_kind(const vs_table *t, const table_cell *c, int right)
{
    const unsigned char *p = (const unsigned char *)cell_text(t, c);
    if (right)
        return CELL_NUMBER;
    if (*p == '-' || *p == '+' || *p == '~' || *p == '<' || *p == '>')
        p++;
    if (*p >= '0' && *p <= '9' && c->width <= 64)
        return CELL_NUMBER;
    /* one short hyphenated word ("to-confirm") is not split at its hyphen */
    if (c->width <= 24 && strchr(cell_text(t, c), '-') && !strchr(cell_text(t, c), ' '))
        return CELL_NUMBER;
    return c->width > 48 ? CELL_LONG : CELL_TEXT;
}

/* The HTML form, or its escape inside a JSON string when json: the markup's
 * newlines escaped (its attributes are quoted with ', which JSON keeps). */
void vs_bundle_table_html(const vs_table *t, vs_buf *out, int json)
{
    static const char th_l[] = "<th style='text-align:left'>",
                      th_r[] = "<th style='text-align:right'>",
                      td_l[] = "<td style='text-align:left'>",
                      td_r[] = "<td style='text-align:right;white-space:nowrap'>",
                      td_n[] = "<td style='text-align:left;white-space:nowrap'>",
                      td_w[] = "<td style='text-align:left;white-space:normal;"
                               "overflow-wrap:anywhere;min-width:16em'>";
    /* the four pieces with a newline, as they are and escaped */
    static const char *const open[2] = {"<table class='vramsheet'>\n<thead><tr>",
                                        "<table class='vramsheet'>\\n<thead><tr>"};
    static const char *const body[2] = {"</tr></thead>\n<tbody>\n", "</tr></thead>\\n<tbody>\\n"};
    static const char *const row_end[2] = {"</tr>\n", "</tr>\\n"};
    static const char *const close[2] = {"</tbody>\n</table>\n", "</tbody>\\n</table>\\n"};
    size_t r, c, row_end_len = json ? 7 : 6;
    if (!t || t->failed)
        return;
    vs_buf_reserve(out, t->text.len + (t->nrows + 1) * (t->ncols * 40 + 12) + 64);
    vs_buf_puts(out, open[json]);
    for (c = 0; c < t->ncols; c++) {
        if (t->right[c])
            vs_buf_append(out, th_r, sizeof th_r - 1);
        else
            vs_buf_append(out, th_l, sizeof th_l - 1);
        put_cell_html(out, t, &t->headers[c], json);
        vs_buf_append(out, "</th>", 5);
    }
    vs_buf_puts(out, body[json]);
    for (r = 0; r < t->nrows; r++) {
        vs_buf_append(out, "<tr>", 4);
        for (c = 0; c < t->ncols; c++) {
            const table_cell *cell = &t->cells[r * t->ncols + c];
            int kind = cell_kind(t, cell, t->right[c]);
            /* a cell without markup is copied as it is (most cells): with
             * its tags, into room made once (put_raw) */
            int raw = !cell->markup && (!json || cell->plain);
            /* room for the longest tag; each tag copied with its length
             * known when compiling (a few block moves, not a byte loop) */
            if (room(out, sizeof td_w - 1 + 5 + (raw ? cell->len : 0)) < 0)
                return;
            if (t->right[c])
                put_raw(out, td_r, sizeof td_r - 1);
            else if (kind == CELL_NUMBER)
                put_raw(out, td_n, sizeof td_n - 1);
            else if (kind == CELL_LONG)
                put_raw(out, td_w, sizeof td_w - 1);
            else
                put_raw(out, td_l, sizeof td_l - 1);
            if (raw) {
                put_raw(out, cell_text(t, cell), cell->len);
            } else {
                out->data[out->len] = '\0';
                put_cell_html(out, t, cell, json);
                if (room(out, 5) < 0)
                    return;
            }
            put_raw(out, "</td>", 5);
        }
        vs_buf_append(out, row_end[json], row_end_len);
    }
    vs_buf_puts(out, close[json]);
}

void vs_table_html(const vs_table *t, vs_buf *out)
{
    vs_bundle_table_html(t, out, 0);
}

size_t vs_bundle_table_room(const vs_table *t)
{
    /* its cells twice, the markup and padding of each row */
    return t ? 2 * t->text.len + (t->nrows + 2) * (t->ncols * 60 + 16) : 0;
}
