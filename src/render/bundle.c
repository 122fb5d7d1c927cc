#include "render/bundle.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"
#include "util/utf8.h"
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

#define PLAIN_KEY "{\"text/plain\":"

static void table_text(const vs_table *t, vs_buf *out, int json);
static void table_html(const vs_table *t, vs_buf *out, int json);

/* Whether html is "<p>" + plain's one line + "</p>\n", plain ending with its
 * newline. */
static int one_line_html(const char *plain, size_t np, const char *html, size_t nh)
{
    return np && plain[np - 1] == '\n' && nh == np + 7 && !memcmp(html, "<p>", 3) &&
           !memcmp(html + nh - 5, "</p>\n", 5) && !memcmp(html + 3, plain, np - 1);
}

/* The bundle of vs_bundle_new_text, the chart given either as its SVG text
 * (svg) or already escaped as a JSON string (chart_json, quotes included). */
static vs_bundle *bundle_build(const char *plain, const char *html, const char *svg,
                               const vs_buf *chart_json, const char *payload_json,
                               size_t payload_len)
{
    vs_buf out = VS_BUF_INIT;
    vs_bundle *b;
    size_t np, nh = html ? strlen(html) : 0, ns = svg ? strlen(svg) : 0;
    if (!plain)
        return NULL;
    if (chart_json)
        ns = chart_json->len;
    np = strlen(plain);
    vs_buf_reserve(&out, np + nh + 2 * ns + payload_len + 160);
    vs_buf_puts(&out, PLAIN_KEY);
    vs_json_dump_string_lossy(plain, np, &out);
    if (html && chart_json) {
        vs_buf_puts(&out, ",\"text/html\":");
        vs_json_dump_string_lossy(html, nh, &out);
        if (!vs_buf_failed(&out)) {
            out.len--; /* as below: the chart follows inside html's string */
            vs_buf_puts(&out, "<div class='vramsheet-chart'>\\n");
            vs_buf_append(&out, chart_json->data + 1, chart_json->len - 2);
            vs_buf_puts(&out, "</div>\\n\",\"image/svg+xml\":");
            vs_buf_append(&out, chart_json->data, chart_json->len);
        }
    } else if (chart_json) {
        vs_buf_puts(&out, ",\"image/svg+xml\":");
        vs_buf_append(&out, chart_json->data, chart_json->len);
    } else if (html && svg) {
        /* Frontends show one representation per output, and every one of them
         * (classic Notebook, JupyterLab, nbconvert) ranks text/html above
         * image/svg+xml: the chart must be inside the HTML to be seen. The
         * chart is escaped once and written twice: escaping is a byte at a
         * time (a repaired byte too), so the escaped whole is the escaped
         * pieces end to end. */
        vs_buf chart = VS_BUF_INIT;
        vs_json_dump_string_lossy(svg, ns, &chart);
        vs_buf_puts(&out, ",\"text/html\":");
        vs_json_dump_string_lossy(html, nh, &out);
        if (vs_buf_failed(&chart) || vs_buf_failed(&out)) {
            out.failed = 1;
        } else {
            out.len--; /* html's closing quote: the chart follows inside the string */
            vs_buf_puts(&out, "<div class='vramsheet-chart'>\\n");
            vs_buf_append(&out, chart.data + 1, chart.len - 2);
            vs_buf_puts(&out, "</div>\\n\",\"image/svg+xml\":");
            vs_buf_append(&out, chart.data, chart.len);
        }
        vs_buf_free(&chart);
    } else if (html && one_line_html(plain, np, html, nh) && !vs_buf_failed(&out)) {
        /* The HTML is the text's one line in a paragraph (render/result.c's
         * vs_render_put_one_line, most of a cell's results): its escape is
         * the text's, already written, between <p> and </p>, escaping being
         * a byte at a time. */
        size_t body = out.len - sizeof PLAIN_KEY - 3; /* less the quotes and \n */
        vs_buf_reserve(&out, body + 32);
        if (!vs_buf_failed(&out)) {
            vs_buf_puts(&out, ",\"text/html\":\"<p>");
            vs_buf_append(&out, out.data + sizeof PLAIN_KEY, body);
            vs_buf_puts(&out, "</p>\\n\"");
        }
    } else if (html) {
        vs_buf_puts(&out, ",\"text/html\":");
        vs_json_dump_string_lossy(html, nh, &out);
    } else if (svg) {
        vs_buf_puts(&out, ",\"image/svg+xml\":");
        vs_json_dump_string_lossy(svg, ns, &out);
    }
    if (payload_json) {
        vs_buf_puts(&out, ",\"" VS_MIME_JSON "\":");
        vs_buf_append(&out, payload_json, payload_len);
    }
    vs_buf_putc(&out, '}');
    if (vs_buf_failed(&out) || !(b = malloc(sizeof *b))) {
        vs_buf_free(&out);
        return NULL;
    }
    b->len = out.len;
    b->cap = out.cap;
    b->json = vs_buf_take(&out);
    return b;
}

vs_bundle *vs_bundle_new_text(const char *plain, const char *html, const char *svg,
                              const char *payload_json, size_t payload_len)
{
    return bundle_build(plain, html, svg, NULL, payload_json, payload_len);
}

vs_bundle *vs_bundle_new_chart(const char *plain, const char *html, const vs_buf *chart_json,
                               const char *payload_json, size_t payload_len)
{
    if (!chart_json || chart_json->len < 2 || chart_json->data[0] != '"')
        return NULL;
    return bundle_build(plain, html, NULL, chart_json, payload_json, payload_len);
}

vs_bundle *vs_bundle_new_table(const vs_buf *text_pre, const vs_buf *text_post,
                               const vs_buf *html_pre, const vs_buf *html_post, const vs_table *t,
                               const vs_buf *chart_json, vs_bundle_payload_fn payload,
                               void *payload_ctx, size_t payload_room)
{
    vs_buf out = VS_BUF_INIT;
    size_t nc = chart_json ? chart_json->len : 0;
    if (!t || t->failed || (chart_json && (nc < 2 || chart_json->data[0] != '"')))
        return NULL;
    /* the table's text and HTML (its cells twice, the markup and padding of
     * each row), the pieces around it, the chart twice and the payload */
    vs_buf_reserve(&out,
                   2 * t->text.len + (t->nrows + 2) * (t->ncols * 60 + 16) +
                       2 * (text_pre->len + text_post->len + html_pre->len + html_post->len + nc) +
                       payload_room + 256);
    /* each piece ends with ASCII (a newline, a tag): their escapes end to
     * end are the escape of the whole */
    vs_buf_puts(&out, PLAIN_KEY "\"");
    vs_json_escape_lossy(vs_buf_str(text_pre), text_pre->len, &out);
    table_text(t, &out, 1);
    vs_json_escape_lossy(vs_buf_str(text_post), text_post->len, &out);
    vs_buf_puts(&out, "\",\"text/html\":\"");
    vs_json_escape_lossy(vs_buf_str(html_pre), html_pre->len, &out);
    table_html(t, &out, 1);
    vs_json_escape_lossy(vs_buf_str(html_post), html_post->len, &out);
    if (chart_json) { /* inside the HTML too, as bundle_build places it */
        vs_buf_puts(&out, "<div class='vramsheet-chart'>\\n");
        vs_buf_append(&out, chart_json->data + 1, nc - 2);
        vs_buf_puts(&out, "</div>\\n\",\"image/svg+xml\":");
        vs_buf_append(&out, chart_json->data, nc);
    } else {
        vs_buf_putc(&out, '"');
    }
    if (payload) {
        vs_buf_puts(&out, ",\"" VS_MIME_JSON "\":");
        payload(&out, payload_ctx);
    }
    if (vs_buf_failed(text_pre) || vs_buf_failed(text_post) || vs_buf_failed(html_pre) ||
        vs_buf_failed(html_post) || t->failed)
        out.failed = 1;
    vs_buf_putc(&out, '}');
    return vs_bundle_from_buf(&out);
}

vs_bundle *vs_bundle_new(const char *plain, const char *html, const char *svg, json_t *payload_take)
{
    vs_buf p = VS_BUF_INIT;
    vs_bundle *b = NULL;
    if (!payload_take)
        return vs_bundle_new_text(plain, html, svg, NULL, 0);
    if (vs_json_dump_take(payload_take, &p) == 0)
        b = vs_bundle_new_text(plain, html, svg, vs_buf_str(&p), p.len);
    vs_buf_free(&p);
    return b;
}

size_t vs_bundle_line_open(vs_buf *out, size_t room)
{
    /* the line twice and the keys: one allocation */
    vs_buf_reserve(out, room + 96);
    vs_buf_puts(out, PLAIN_KEY "\"");
    return out->len;
}

/* The HTML of a line with markup, from the line's JSON escape (the n bytes at
 * e): its escape for HTML, escaped for JSON. HTML's escapes are ASCII, which
 * JSON keeps, and JSON's escape a byte at a time, so this is the escape of
 * the HTML escape of the line: &, <, > and ' become entities, an escaped
 * quote (\") &quot;, every other escape stays as it is. */
static void put_html_of_escape(vs_buf *out, const char *e, size_t n)
{
    size_t i, run = 0;
    for (i = 0; i < n; i++) {
        const char *ent;
        size_t skip = 1;
        switch (e[i]) {
        case '\\':
            if (i + 1 < n && e[i + 1] == '"') {
                ent = "&quot;";
                skip = 2;
                break;
            }
            i++; /* an escape other than \": both bytes as they are */
            continue;
        case '&':
            ent = "&amp;";
            break;
        case '<':
            ent = "&lt;";
            break;
        case '>':
            ent = "&gt;";
            break;
        case '\'':
            ent = "&#39;";
            break;
        default:
            continue;
        }
        vs_buf_append(out, e + run, i - run);
        vs_buf_puts(out, ent);
        i += skip - 1;
        run = i + 1;
    }
    vs_buf_append(out, e + run, n - run);
}

void vs_bundle_line_close(vs_buf *out, size_t start)
{
    size_t end = out->len;
    int markup;
    if (vs_buf_failed(out) || start > end)
        return;
    /* the escape has markup where the line has (a quote shows as \") */
    markup = strcspn(out->data + start, "&<>\"'") < end - start;
    /* the line twice, escapes and all, with room for a few entities */
    vs_buf_reserve(out, (end - start) + (markup ? (end - start) / 2 : 0) + 32);
    if (vs_buf_failed(out))
        return;
    vs_buf_puts(out, "\\n\",\"text/html\":\"<p>");
    if (!markup) /* the HTML's line is the text's, already escaped */
        vs_buf_append(out, out->data + start, end - start);
    else /* rare: the escape read from the buffer while the buffer grows */
    {
        vs_buf line = VS_BUF_INIT;
        vs_buf_append(&line, out->data + start, end - start);
        put_html_of_escape(out, vs_buf_str(&line), line.len);
        if (vs_buf_failed(&line))
            out->failed = 1;
        vs_buf_free(&line);
    }
    vs_buf_puts(out, "</p>\\n\",\"" VS_MIME_JSON "\":");
}

void vs_bundle_line_begin(vs_buf *out, const char *headline, const char *const *notes,
                          size_t payload_room, size_t *head_at, size_t *head_len)
{
    size_t i, n = headline ? strlen(headline) : 0, start;
    for (i = 0; notes && notes[i]; i++)
        n += strlen(notes[i]) + 2;
    /* the line twice, escaped (an eighth more for escapes) */
    start = vs_bundle_line_open(out, 2 * (n + n / 8) + payload_room);
    /* the pieces escaped one after another are the line's escape: each is
     * followed by ASCII ("; " or the newline), so no character spans two */
    vs_json_escape_lossy(headline ? headline : "", headline ? strlen(headline) : 0, out);
    *head_at = start;
    *head_len = out->len - start;
    for (i = 0; notes && notes[i]; i++) {
        vs_buf_append(out, "; ", 2);
        vs_json_escape_lossy(notes[i], strlen(notes[i]), out);
    }
    vs_bundle_line_close(out, start);
}

vs_bundle *vs_bundle_from_buf(vs_buf *json)
{
    vs_bundle *b;
    if (vs_buf_failed(json) || !(b = malloc(sizeof *b))) {
        vs_buf_free(json);
        return NULL;
    }
    b->len = json->len;
    b->cap = json->cap;
    b->json = vs_buf_take(json);
    return b;
}

vs_bundle *vs_bundle_line_end(vs_buf *out)
{
    vs_buf_putc(out, '}');
    return vs_bundle_from_buf(out);
}

void vs_bundle_free(vs_bundle *b)
{
    if (b) {
        vs_buf_free_taken(b->json, b->cap); /* kept for the next bundle */
        free(b);
    }
}

json_t *vs_bundle_to_json(const vs_bundle *b)
{
    return b ? json_loadb(b->json, b->len, 0, NULL) : NULL;
}

char *vs_bundle_plain(const vs_bundle *b)
{
    size_t k = sizeof PLAIN_KEY - 1;
    json_t *s;
    char *out = NULL;
    if (!b || b->len <= k || memcmp(b->json, PLAIN_KEY, k))
        return NULL;
    /* the one string after the key; the rest of the bundle is not parsed */
    s = json_loadb(b->json + k, b->len - k, JSON_DECODE_ANY | JSON_DISABLE_EOF_CHECK, NULL);
    if (json_is_string(s))
        out = strdup(json_string_value(s));
    json_decref(s);
    return out;
}

static int is_markup(char c)
{
    return c == '&' || c == '<' || c == '>' || c == '"' || c == '\'';
}

/* Whether the n (<= 16) bytes at s are all printable ASCII (one column each,
 * no newline, CR or tab) and none is markup (&, <, >, " or '): sixteen at a
 * time with SSE2, a short cell read as one block padded with spaces. When
 * they are, *backslash is set if one of them is a backslash (which JSON
 * escapes). */
static int plain_block(const char *s, size_t n, int *backslash)
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
static size_t measure(const char *s, size_t len, int *flat, int *markup, int *plain)
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

/* Cell c is the len bytes at s (no NUL among them), kept with a NUL after. */
static void store_n(vs_table *t, table_cell *c, const char *s, size_t len)
{
    c->off = t->text.len;
    c->len = len;
    c->width = measure(s, len, &c->flat, &c->markup, &c->plain);
    vs_buf_append(&t->text, s, len);
    vs_buf_putc(&t->text, '\0');
    if (vs_buf_failed(&t->text))
        t->failed = 1;
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
    size_t i;
    if (!row)
        return;
    for (i = 0; i < t->ncols; i++)
        store_n(t, &row[i], cells[i] ? cells[i] : "", cells[i] ? lens[i] : 0);
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

static void put_padded(vs_buf *out, const vs_table *t, const table_cell *c, size_t w, int right,
                       int last, int json)
{
    if (right && c->width < w)
        vs_buf_fill(out, ' ', w - c->width);
    put_cell_text(out, t, c, json);
    if (!right && !last && c->width < w)
        vs_buf_fill(out, ' ', w - c->width);
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
        out->data[--out->len] = '\0';
    put_newline(out, json);
}

static void text_row(vs_buf *out, const vs_table *t, const table_cell *row, const size_t *w,
                     int json)
{
    size_t c;
    for (c = 0; c < t->ncols; c++) {
        if (c)
            vs_buf_append(out, "  ", 2);
        put_padded(out, t, &row[c], w[c], t->right[c], c + 1 == t->ncols, json);
    }
    end_row(out, json);
}

/* The text form, or its escape inside a JSON string when json. */
static void table_text(const vs_table *t, vs_buf *out, int json)
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
    table_text(t, out, 0);
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
static void table_html(const vs_table *t, vs_buf *out, int json)
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
            if (t->right[c])
                vs_buf_append(out, td_r, sizeof td_r - 1);
            else if (kind == CELL_NUMBER)
                vs_buf_append(out, td_n, sizeof td_n - 1);
            else if (kind == CELL_LONG)
                vs_buf_append(out, td_w, sizeof td_w - 1);
            else
                vs_buf_append(out, td_l, sizeof td_l - 1);
            put_cell_html(out, t, cell, json);
            vs_buf_append(out, "</td>", 5);
        }
        vs_buf_append(out, row_end[json], row_end_len);
    }
    vs_buf_puts(out, close[json]);
}

void vs_table_html(const vs_table *t, vs_buf *out)
{
    table_html(t, out, 0);
}
