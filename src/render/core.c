#include "render/core.h"
#include "render/result.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "sheet/sheet.h"
#include "util/buf.h"
#include "util/json.h"

/* A bundle from the buffers (freed here; html may be NULL), or NULL when one
 * of them failed. */
static vs_bundle *bundle_of(vs_buf *text, vs_buf *html, vs_buf *payload)
{
    vs_bundle *b = NULL;
    if (!vs_buf_failed(text) && !vs_buf_failed(html) && !vs_buf_failed(payload))
        b = vs_bundle_new_text(vs_buf_str(text), vs_buf_str(html), NULL, vs_buf_str(payload),
                               payload->len);
    vs_buf_free(text);
    vs_buf_free(html);
    vs_buf_free(payload);
    return b;
}

/* ----------------------------------------------------------------- convert */

/* A literal's bytes, its length known when compiling: a cell of conversions
 * is mostly these pieces, and a strlen and a library memcpy each were most of
 * the cost of writing them. */
#define PUT_LIT(b, lit) vs_buf_append((b), (lit), sizeof(lit) - 1)

/* A piece made here of bytes that JSON and HTML both take as they are: a
 * number formatted by sheet/units.h (digits, commas, a point, spaces, unit
 * names, "="), appended with no escape. Debug builds check it. */
static void put_safe(vs_buf *b, const char *s)
{
    size_t n = strlen(s);
    assert(strcspn(s, "\"\\&<>'\n\r\t") == n);
    vs_buf_append(b, s, n);
}

/* JSON's escape of a newline, inside the string literals written below */
#define NL "\\n"

vs_bundle *vs_render_convert(const char *input, uint64_t bytes, vs_unit unit)
{
    /* Written straight into the bundle, text, HTML and payload in one pass:
     * a cell of conversions is mostly these, and every piece but the input
     * is a literal or a formatted number, which need no escape (the
     * literals below are written escaped: \n for each newline). The input
     * is escaped once, for the text, and copied from there into the
     * payload. */
    vs_buf out = VS_BUF_INIT;
    vs_jw w = VS_JW_INIT(&out);
    char exact[128], rounded[64], desc[160], grouped[40], unitb[40];
    const char *un = vs_unit_name(unit);
    size_t in_at, in_len, n = strlen(input);
    vs_units_exact(exact, sizeof exact, bytes, unit);
    vs_units_round(rounded, sizeof rounded, bytes, unit, 2);
    vs_units_describe(desc, sizeof desc, bytes);
    vs_units_grouped(grouped, sizeof grouped, bytes);
    vs_units_grouped(unitb, sizeof unitb, vs_unit_bytes(unit));
    vs_buf_reserve(&out, 2 * (n + n / 8) + 1024);
    PUT_LIT(&out, "{\"text/plain\":\"");
    in_at = out.len;
    vs_json_escape_lossy(input, n, &out);
    in_len = out.len - in_at;
    PUT_LIT(&out, " = ");
    put_safe(&out, desc);
    PUT_LIT(&out, NL);
    put_safe(&out, grouped);
    if (unit == VS_UNIT_B) {
        PUT_LIT(&out, " B exactly" NL);
    } else {
        PUT_LIT(&out, " B / ");
        put_safe(&out, unitb);
        PUT_LIT(&out, " B per ");
        put_safe(&out, un);
        PUT_LIT(&out, " = ");
        put_safe(&out, exact);
        PUT_LIT(&out, " ");
        put_safe(&out, un);
        PUT_LIT(&out, " exactly (");
        put_safe(&out, rounded);
        PUT_LIT(&out, " ");
        put_safe(&out, un);
        PUT_LIT(&out, " rounded)" NL);
    }
    PUT_LIT(&out, "\",\"text/html\":\"<table class='vramsheet'>" NL "<tbody>" NL
                  "<tr><th style='text-align:left'>bytes</th><td style='text-align:right'>");
    put_safe(&out, grouped);
    PUT_LIT(&out, " B</td></tr>" NL "<tr><th style='text-align:left'>");
    put_safe(&out, un);
    PUT_LIT(&out, " (exact)</th><td style='text-align:right'>");
    put_safe(&out, exact);
    PUT_LIT(&out, " ");
    put_safe(&out, un);
    PUT_LIT(&out, "</td></tr>" NL "<tr><th style='text-align:left'>");
    put_safe(&out, un);
    PUT_LIT(&out, " (2 decimals)</th><td style='text-align:right'>");
    put_safe(&out, rounded);
    PUT_LIT(&out, " ");
    put_safe(&out, un);
    PUT_LIT(&out, "</td></tr>" NL "</tbody>" NL "</table>" NL "<p>");
    put_safe(&out, desc);
    PUT_LIT(&out, "</p>" NL "\",\"" VS_MIME_JSON "\":");
    vs_jw_open(&w, '{');
    vs_jw_member_str(&w, "kind", "convert");
    vs_jw_member_u64(&w, "bytes", bytes);
    vs_jw_member_str(&w, "unit", un);
    vs_jw_member_str(&w, "value", exact);
    vs_jw_member_str(&w, "rounded", rounded);
    vs_jw_key(&w, "input");
    vs_jw_str_again(&w, in_at, in_len);
    vs_jw_close(&w, '}');
    vs_buf_putc(&out, '}');
    return vs_bundle_from_buf(&out);
}

#undef NL

/* ------------------------------------------------------------------- sheet */

static const char *const list_headers[] = {"", "id", "title", "components", "offers"};

vs_bundle *vs_render_sheet_list(const json_t *sheets, const char *current)
{
    json_t *s, *list = json_array(), *payload;
    vs_table *t = vs_table_new(5, list_headers);
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT, p = VS_BUF_INIT;
    size_t i;
    if (!t || !list) {
        vs_table_free(t);
        json_decref(list);
        return NULL;
    }
    vs_table_align_right(t, 3);
    vs_table_align_right(t, 4);
    json_array_foreach(sheets, i, s)
    {
        const char *id = vs_sheet_get_str(s, VS_SK_ID);
        const char *title = vs_sheet_get_str(s, VS_SK_TITLE);
        char nc[24], no[24];
        const char *cells[5];
        int cur = id && current && !strcmp(id, current);
        snprintf(nc, sizeof nc, "%zu", json_array_size(vs_sheet_array(s, VS_SK_COMPONENTS)));
        snprintf(no, sizeof no, "%zu", json_array_size(vs_sheet_array(s, VS_SK_OFFERS)));
        cells[0] = cur ? "*" : "";
        cells[1] = id;
        cells[2] = title;
        cells[3] = nc;
        cells[4] = no;
        vs_table_add_row(t, cells);
        json_array_append_new(
            list, json_pack("{s:s?, s:s?, s:b}", "id", id, "title", title, "current", cur));
    }
    if (json_array_size(sheets) == 0) {
        vs_buf_puts(&text, "no sheet is open in this session; `sheet \"TITLE\"` opens one\n");
        vs_buf_puts(&html, "<p>no sheet is open in this session; <code>sheet \"TITLE\"</code> "
                           "opens one</p>\n");
    } else {
        vs_buf_printf(&text, "%zu sheet%s in this session (* = current):\n\n",
                      json_array_size(sheets), json_array_size(sheets) == 1 ? "" : "s");
        vs_table_text(t, &text);
        vs_buf_printf(&html, "<p>%zu sheet%s in this session (* = current)</p>\n",
                      json_array_size(sheets), json_array_size(sheets) == 1 ? "" : "s");
        vs_table_html(t, &html);
    }
    if (vs_table_failed(t))
        text.failed = 1;
    vs_table_free(t);
    payload = json_pack("{s:s, s:o, s:s?}", "kind", "sheets", "sheets", list, "current", current);
    if (!payload || vs_json_dump_take(payload, &p) < 0)
        p.failed = 1;
    return bundle_of(&text, &html, &p);
}

vs_bundle *vs_render_sheet_opened(const json_t *sheet, const vs_component_views *views,
                                  const char *id, const char *action, const char *typed)
{
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT, payload = VS_BUF_INIT;
    const char *title = vs_sheet_get_str(sheet, VS_SK_TITLE);
    if (!strcmp(action, "created"))
        vs_buf_printf(&text, "sheet %s: created, now current (\"%s\")\n", id, title ? title : "");
    else if (!strcmp(action, "switched"))
        vs_buf_printf(&text, "sheet %s: switched to it (\"%s\"; %zu components, %zu offers)\n", id,
                      title ? title : "", json_array_size(vs_sheet_array(sheet, VS_SK_COMPONENTS)),
                      json_array_size(vs_sheet_array(sheet, VS_SK_OFFERS)));
    else
        vs_buf_printf(&text, "sheet %s: already current (\"%s\")\n", id, title ? title : "");
    if (title && strcmp(title, typed) != 0 && strcmp(action, "created") != 0)
        vs_buf_printf(&text, "note: \"%s\" has the same id as the open sheet \"%s\"\n", typed,
                      title);
    vs_buf_puts(&html, "<p>sheet <code>");
    vs_buf_put_html(&html, id);
    vs_buf_printf(&html, "</code>: %s (", action);
    vs_buf_put_html(&html, title ? title : "");
    vs_buf_puts(&html, ")</p>\n");
    {
        vs_jw w = VS_JW_INIT(&payload);
        vs_jw_open(&w, '{');
        vs_jw_member_str(&w, "kind", "sheet");
        vs_jw_member_str(&w, "action", action);
        vs_sheet_fields_write(sheet, views, &w);
        vs_jw_close(&w, '}');
    }
    return bundle_of(&text, &html, &payload);
}

vs_bundle *vs_render_undone(const char *names, json_t *lines_take)
{
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT, head = VS_BUF_INIT;
    vs_bundle *b;
    vs_buf_printf(&head, "undone: %s; the sheets are as before the cell", names);
    vs_render_put_one_line(&text, &html, vs_buf_str(&head), NULL);
    b = vs_buf_failed(&head)
            ? NULL
            : vs_render_finish(&text, &html, NULL,
                               json_pack("{s:s, s:o}", "kind", "undone", "lines", lines_take));
    if (!b && vs_buf_failed(&head)) {
        vs_buf_free(&text);
        vs_buf_free(&html);
        json_decref(lines_take);
    }
    vs_buf_free(&head);
    return b;
}
