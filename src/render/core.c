#include "render/core.h"
#include "render/result.h"

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

vs_bundle *vs_render_convert(const char *input, uint64_t bytes, vs_unit unit)
{
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT, payload = VS_BUF_INIT;
    char exact[128], rounded[64], desc[160], grouped[40], unitb[40];
    const char *un = vs_unit_name(unit);
    vs_units_exact(exact, sizeof exact, bytes, unit);
    vs_units_round(rounded, sizeof rounded, bytes, unit, 2);
    vs_units_describe(desc, sizeof desc, bytes);
    vs_units_grouped(grouped, sizeof grouped, bytes);
    vs_units_grouped(unitb, sizeof unitb, vs_unit_bytes(unit));
    vs_buf_puts(&text, input);
    PUT_LIT(&text, " = ");
    vs_buf_puts(&text, desc);
    PUT_LIT(&text, "\n");
    vs_buf_puts(&text, grouped);
    if (unit == VS_UNIT_B) {
        PUT_LIT(&text, " B exactly\n");
    } else {
        PUT_LIT(&text, " B / ");
        vs_buf_puts(&text, unitb);
        PUT_LIT(&text, " B per ");
        vs_buf_puts(&text, un);
        PUT_LIT(&text, " = ");
        vs_buf_puts(&text, exact);
        PUT_LIT(&text, " ");
        vs_buf_puts(&text, un);
        PUT_LIT(&text, " exactly (");
        vs_buf_puts(&text, rounded);
        PUT_LIT(&text, " ");
        vs_buf_puts(&text, un);
        PUT_LIT(&text, " rounded)\n");
    }
    PUT_LIT(&html, "<table class='vramsheet'>\n<tbody>\n<tr><th "
                   "style='text-align:left'>bytes</th><td style='text-align:right'>");
    vs_buf_put_html(&html, grouped);
    PUT_LIT(&html, " B</td></tr>\n<tr><th style='text-align:left'>");
    vs_buf_puts(&html, un);
    PUT_LIT(&html, " (exact)</th><td style='text-align:right'>");
    vs_buf_put_html(&html, exact);
    PUT_LIT(&html, " ");
    vs_buf_puts(&html, un);
    PUT_LIT(&html, "</td></tr>\n<tr><th style='text-align:left'>");
    vs_buf_puts(&html, un);
    PUT_LIT(&html, " (2 decimals)</th><td style='text-align:right'>");
    vs_buf_puts(&html, rounded);
    PUT_LIT(&html, " ");
    vs_buf_puts(&html, un);
    PUT_LIT(&html, "</td></tr>\n</tbody>\n</table>\n<p>");
    vs_buf_put_html(&html, desc);
    PUT_LIT(&html, "</p>\n");
    {
        vs_jw w = VS_JW_INIT(&payload);
        vs_jw_open(&w, '{');
        vs_jw_member_str(&w, "kind", "convert");
        vs_jw_member_u64(&w, "bytes", bytes);
        vs_jw_member_str(&w, "unit", un);
        vs_jw_member_str(&w, "value", exact);
        vs_jw_member_str(&w, "rounded", rounded);
        vs_jw_key(&w, "input");
        vs_jw_strn(&w, input, strlen(input));
        vs_jw_close(&w, '}');
    }
    return bundle_of(&text, &html, &payload);
}

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
