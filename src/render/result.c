#include "render/result.h"

#include <string.h>

#include "sheet/placement.h"
#include "sheet/units.h"
#include "util/json.h"

_Static_assert(VS_RENDER_AMT >= VS_UNITS_AMOUNT, "an amount's buffer holds what units writes");

void vs_render_amount(uint64_t bytes, char *b, char *gb, char *gib)
{
    /* every row of an envelope shows three amounts: one pass, no printf */
    vs_units_amounts(bytes, b, gb, gib);
}

vs_bundle *vs_render_finish_text(vs_buf *text, vs_buf *html, const char *svg, vs_buf *payload)
{
    vs_bundle *b = NULL;
    if (!vs_buf_failed(payload) && !vs_buf_failed(text) && !(html && vs_buf_failed(html)))
        b = vs_bundle_new_text(vs_buf_str(text), html ? vs_buf_str(html) : NULL, svg,
                               vs_buf_str(payload), payload->len);
    vs_buf_free(text);
    vs_buf_free(html);
    vs_buf_free(payload);
    return b;
}

vs_bundle *vs_render_finish_chart(vs_buf *text, vs_buf *html, const vs_buf *chart_json,
                                  vs_buf *payload)
{
    vs_bundle *b = NULL;
    if (!vs_buf_failed(payload) && !vs_buf_failed(text) && !(html && vs_buf_failed(html)))
        b = vs_bundle_new_chart(vs_buf_str(text), html ? vs_buf_str(html) : NULL, chart_json,
                                vs_buf_str(payload), payload->len);
    vs_buf_free(text);
    vs_buf_free(html);
    vs_buf_free(payload);
    return b;
}

vs_bundle *vs_render_finish(vs_buf *text, vs_buf *html, const char *svg, json_t *payload_take)
{
    vs_buf p = VS_BUF_INIT;
    vs_json_dump_take(payload_take, &p);
    return vs_render_finish_text(text, html, svg, &p);
}

void vs_render_put_notes(vs_buf *text, vs_buf *html, const char *const *notes, size_t n)
{
    size_t i;
    if (!n)
        return;
    vs_buf_puts(html, "<ul>\n");
    for (i = 0; i < n; i++) {
        if (!notes[i])
            continue;
        vs_buf_puts(text, notes[i]);
        vs_buf_putc(text, '\n');
        vs_buf_puts(html, "<li>");
        vs_buf_put_html(html, notes[i]);
        vs_buf_puts(html, "</li>\n");
    }
    vs_buf_puts(html, "</ul>\n");
}

void vs_render_put_headline(vs_buf *text, vs_buf *html, const char *headline)
{
    if (!headline)
        return;
    vs_buf_puts(text, headline);
    vs_buf_putc(text, '\n');
    vs_buf_puts(html, "<p>");
    vs_buf_put_html(html, headline);
    vs_buf_puts(html, "</p>\n");
}

void vs_render_put_table(vs_buf *text, vs_buf *html, vs_table *t)
{
    vs_table_text(t, text);
    vs_table_html(t, html);
    if (vs_table_failed(t))
        text->failed = 1;
}

vs_bundle *vs_render_finish_table(vs_buf *text, vs_buf *html, const char *headline, vs_table *t,
                                  const char *const *notes, vs_buf *payload)
{
    size_t nnotes = 0;
    vs_render_put_headline(text, html, headline);
    vs_render_put_table(text, html, t);
    vs_table_free(t);
    while (notes && notes[nnotes])
        nnotes++;
    if (nnotes)
        vs_buf_puts(text, "\n");
    vs_render_put_notes(text, html, notes, nnotes);
    return vs_render_finish_text(text, html, NULL, payload);
}

const char *vs_render_placement_text(const json_t *sheet, char *out, size_t outlen)
{
    vs_placement pl;
    if (vs_placement_from_sheet(&pl, sheet, NULL))
        return "single GPU";
    return vs_placement_describe(&pl, out, outlen);
}

void vs_render_put_one_line(vs_buf *text, vs_buf *html, const char *headline,
                            const char *const *notes)
{
    size_t i, n = headline ? strlen(headline) : 0;
    for (i = 0; notes && notes[i]; i++)
        n += strlen(notes[i]) + 2;
    /* one allocation each, not a doubling series: most lines of a cell are these */
    size_t start = text->len, len;
    vs_buf_reserve(text, n + 2);
    vs_buf_reserve(html, n + n / 8 + 16);
    vs_buf_puts(text, headline ? headline : "");
    for (i = 0; notes && notes[i]; i++) {
        vs_buf_puts(text, "; ");
        vs_buf_puts(text, notes[i]);
    }
    /* the HTML is the same line escaped: copied whole when it holds no markup */
    len = text->len - start;
    vs_buf_puts(html, "<p>");
    if (vs_buf_failed(text))
        html->failed = 1;
    else if (strcspn(text->data + start, "&<>\"'") == len)
        vs_buf_append(html, text->data + start, len);
    else
        vs_buf_put_htmln(html, text->data + start, len);
    vs_buf_putc(text, '\n');
    vs_buf_puts(html, "</p>\n");
}
