#include "render/bundle.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "render/bundle_internal.h"
#include "util/json.h"
#include "util/utf8.h"

#define PLAIN_KEY "{\"text/plain\":"

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
    if (vs_table_failed(t) || (chart_json && (nc < 2 || chart_json->data[0] != '"')))
        return NULL;
    /* the table's text and HTML, the pieces around it, the chart twice and
     * the payload */
    vs_buf_reserve(&out,
                   vs_bundle_table_room(t) +
                       2 * (text_pre->len + text_post->len + html_pre->len + html_post->len + nc) +
                       payload_room + 256);
    /* each piece ends with ASCII (a newline, a tag): their escapes end to
     * end are the escape of the whole */
    vs_buf_puts(&out, PLAIN_KEY "\"");
    vs_json_escape_lossy(vs_buf_str(text_pre), text_pre->len, &out);
    vs_bundle_table_text(t, &out, 1);
    vs_json_escape_lossy(vs_buf_str(text_post), text_post->len, &out);
    vs_buf_puts(&out, "\",\"text/html\":\"");
    vs_json_escape_lossy(vs_buf_str(html_pre), html_pre->len, &out);
    vs_bundle_table_html(t, &out, 1);
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
        vs_buf_failed(html_post) || vs_table_failed(t))
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
        /* a block whose size is known goes back to util/buf for the next
         * bundle; one without (cap 0) is only freed */
        if (b->cap)
            vs_buf_free_taken(b->json, b->cap);
        else
            free(b->json);
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
