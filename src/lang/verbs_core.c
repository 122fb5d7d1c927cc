/* Core verbs: help, convert, sheet. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/verb.h"
#include "render/bundle.h"
#include "sheet/sheet.h"
#include "sheet/units.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/json.h"

/* ------------------------------------------------------------------- help */

typedef struct {
    vs_table *table;
    json_t *list;
    const char *last_group;
    vs_buf *text;
} help_acc;

static const char *const help_headers[] = {"group", "verb", "summary"};

static void help_each(const vs_verb *v, void *data)
{
    help_acc *acc = data;
    const char *group = vs_verb_group(v);
    const char *cells[3];
    cells[0] = group && (!acc->last_group || strcmp(acc->last_group, group)) ? group : "";
    cells[1] = v->name;
    cells[2] = v->summary ? v->summary : "";
    acc->last_group = group;
    vs_table_add_row(acc->table, cells);
    json_array_append_new(acc->list, json_pack("{s:s, s:s?, s:s?, s:s?}", "name", v->name, "group",
                                               group, "syntax", v->syntax, "summary", v->summary));
}

static int verb_help(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    const vs_arg *a;
    int rc = vs_line_check_keys(line, NULL, err);
    if (rc < 0)
        return rc;
    if ((rc = vs_line_no_extra(line, 1, "help [VERB]", err)) < 0)
        return rc;
    a = vs_line_positional(line, 0);
    if (a) {
        const vs_verb *v = vs_verb_find(a->value);
        vs_bundle *b;
        if (!v) {
            const char *near[3];
            size_t n = vs_verb_suggest(a->value, near, 3), i;
            vs_buf s = VS_BUF_INIT;
            for (i = 0; i < n; i++)
                vs_buf_printf(&s, "%s`%s`",
                              i == 0       ? "; did you mean "
                              : i + 1 == n ? " or "
                                           : ", ",
                              near[i]);
            if (n)
                vs_buf_puts(&s, "?");
            rc = vs_error_set_at(err, VS_ENOTFOUND, a->line, a->column,
                                 "no verb named '%s'%s (`help` alone lists every verb)", a->value,
                                 vs_buf_str(&s));
            vs_buf_free(&s);
            return rc;
        }
        b = vs_verb_help_bundle(v);
        if (!b)
            return vs_oom(err);
        vs_ctx_emit(ctx, b);
        return 0;
    }
    {
        vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
        help_acc acc;
        json_t *payload;
        acc.table = vs_table_new(3, help_headers);
        acc.list = json_array();
        acc.last_group = NULL;
        acc.text = &text;
        if (!acc.table || !acc.list) {
            vs_table_free(acc.table);
            json_decref(acc.list);
            return vs_oom(err);
        }
        vs_verb_each(help_each, &acc);
        vs_buf_puts(&text,
                    "vramsheet verbs (`help VERB` for the syntax, meaning and formula):\n\n");
        vs_table_text(acc.table, &text);
        vs_buf_puts(&text,
                    "\nAmounts carry a byte unit: B KB MB GB TB (powers of 10), KiB MiB GiB "
                    "TiB (powers of 2).\nCounts take K M B T or plain numbers (7e9). `#` starts "
                    "a comment; a trailing `\\` continues a line.\n");
        vs_buf_puts(&html, "<p>vramsheet verbs (<code>help VERB</code> for the syntax, meaning "
                           "and formula)</p>\n");
        vs_table_html(acc.table, &html);
        if (vs_table_failed(acc.table))
            text.failed = 1;
        vs_table_free(acc.table);
        payload = json_pack("{s:s, s:o}", "kind", "help", "verbs", acc.list);
        rc = vs_ctx_emit_text(ctx, &text, &html, payload, err);
        vs_buf_free(&text);
        vs_buf_free(&html);
        return rc;
    }
}

/* ----------------------------------------------------------------- convert */

/* Appends each string up to the NULL. */
__attribute__((sentinel)) static void puts_all(vs_buf *b, ...)
{
    va_list ap;
    const char *s;
    va_start(ap, b);
    while ((s = va_arg(ap, const char *)))
        vs_buf_puts(b, s);
    va_end(ap);
}

static int verb_convert(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    const char *syntax = "convert QUANTITY UNIT (convert 24GB GiB)";
    const vs_arg *q, *u;
    vs_buf qty = VS_BUF_INIT, text = VS_BUF_INIT, html = VS_BUF_INIT, payload = VS_BUF_INIT;
    uint64_t bytes;
    vs_unit unit;
    char exact[128], rounded[64], desc[160], grouped[40];
    size_t np = vs_line_npositional(line);
    int rc = vs_line_check_keys(line, NULL, err);
    if (rc < 0)
        return rc;
    if (np < 2)
        return vs_error_set_at(
            err, VS_EVALUE, line->line, line->column,
            "expected `%s`: an amount with its unit, then the unit to show it in", syntax);
    /* "convert 24 GB GiB" reads as "convert 24GB GiB" */
    q = vs_line_positional(line, 0);
    if (np == 3 && q->value[0] && strchr("0123456789.", q->value[strlen(q->value) - 1])) {
        u = vs_line_positional(line, 2);
        vs_buf_printf(&qty, "%s%s", q->value, vs_line_positional(line, 1)->value);
    } else {
        if ((rc = vs_line_no_extra(line, 2, syntax, err)) < 0)
            return rc;
        u = vs_line_positional(line, 1);
        vs_buf_puts(&qty, q->value);
    }
    if (vs_buf_failed(&qty)) {
        rc = vs_oom(err);
        goto done;
    }
    rc = vs_units_parse_bytes(&bytes, vs_buf_str(&qty), err);
    if (rc < 0) {
        err->line = q->line;
        err->column = q->column;
        goto done;
    }
    rc = vs_unit_parse(&unit, u->value, err);
    if (rc < 0) {
        err->line = u->line;
        err->column = u->column;
        goto done;
    }
    if (bytes > (uint64_t)INT64_MAX) {
        rc = vs_error_set_at(err, VS_EUNIT, q->line, q->column,
                             "'%s' is more bytes than a record can hold (at most 2^63-1)",
                             vs_buf_str(&qty));
        goto done;
    }
    vs_units_exact(exact, sizeof exact, bytes, unit);
    vs_units_round(rounded, sizeof rounded, bytes, unit, 2);
    vs_units_describe(desc, sizeof desc, bytes);
    vs_units_grouped(grouped, sizeof grouped, bytes);
    {
        /* appended piece by piece: a cell of conversions spent most of its time
         * in printf */
        char unitb[40];
        const char *un = vs_unit_name(unit);
        vs_units_grouped(unitb, sizeof unitb, vs_unit_bytes(unit));
        puts_all(&text, vs_buf_str(&qty), " = ", desc, "\n", (const char *)NULL);
        if (unit == VS_UNIT_B)
            puts_all(&text, grouped, " B exactly\n", (const char *)NULL);
        else
            puts_all(&text, grouped, " B / ", unitb, " B per ", un, " = ", exact, " ", un,
                     " exactly (", rounded, " ", un, " rounded)\n", (const char *)NULL);
        vs_buf_puts(&html, "<table class='vramsheet'>\n<tbody>\n<tr><th "
                           "style='text-align:left'>bytes</th><td style='text-align:right'>");
        vs_buf_put_html(&html, grouped);
        puts_all(&html, " B</td></tr>\n<tr><th style='text-align:left'>", un,
                 " (exact)</th><td style='text-align:right'>", (const char *)NULL);
        vs_buf_put_html(&html, exact);
        puts_all(&html, " ", un, "</td></tr>\n<tr><th style='text-align:left'>", un,
                 " (2 decimals)</th><td style='text-align:right'>", rounded, " ", un,
                 "</td></tr>\n</tbody>\n</table>\n<p>", (const char *)NULL);
        vs_buf_put_html(&html, desc);
        vs_buf_puts(&html, "</p>\n");
    }
    {
        vs_jw w = VS_JW_INIT(&payload);
        vs_jw_open(&w, '{');
        vs_jw_member_str(&w, "kind", "convert");
        vs_jw_member_u64(&w, "bytes", bytes);
        vs_jw_member_str(&w, "unit", vs_unit_name(unit));
        vs_jw_member_str(&w, "value", exact);
        vs_jw_member_str(&w, "rounded", rounded);
        vs_jw_key(&w, "input");
        vs_jw_strn(&w, vs_buf_str(&qty), qty.len);
        vs_jw_close(&w, '}');
    }
    rc = vs_ctx_emit_written(ctx, &text, &html, &payload, err);
done:
    vs_buf_free(&qty);
    vs_buf_free(&text);
    vs_buf_free(&html);
    vs_buf_free(&payload);
    return rc;
}

/* ------------------------------------------------------------------- sheet */

static const char *const list_headers[] = {"", "id", "title", "components", "offers"};

static int list_sheets(vs_ctx *ctx, vs_error *err)
{
    json_t *sheets = vs_ctx_sheets(ctx), *s, *list = json_array(), *payload;
    vs_table *t = vs_table_new(5, list_headers);
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    const char *current = NULL;
    size_t i;
    int rc;
    if (!t || !list) {
        vs_table_free(t);
        json_decref(list);
        return vs_oom(err);
    }
    /* which one is current, without opening "untitled" as a side effect */
    if (json_array_size(sheets))
        current = json_string_value(json_object_get(vs_ctx_sheet(ctx), "id"));
    vs_table_align_right(t, 3);
    vs_table_align_right(t, 4);
    json_array_foreach(sheets, i, s)
    {
        const char *id = json_string_value(json_object_get(s, "id"));
        const char *title = json_string_value(json_object_get(s, "title"));
        char nc[24], no[24];
        const char *cells[5];
        int cur = id && current && !strcmp(id, current);
        snprintf(nc, sizeof nc, "%zu", json_array_size(vs_sheet_array(s, "components")));
        snprintf(no, sizeof no, "%zu", json_array_size(vs_sheet_array(s, "offers")));
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
    rc = vs_ctx_emit_text(ctx, &text, &html, payload, err);
    vs_buf_free(&text);
    vs_buf_free(&html);
    return rc;
}

/* The `sheet` payload: the whole sheet as stored (runtime "_" keys left out),
 * with "kind" and what the verb did. */
static int verb_sheet(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    const vs_arg *a;
    json_t *sheet;
    char id[VS_SHEET_ID_MAX];
    const char *action, *title;
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    json_t *before;
    int rc = vs_line_check_keys(line, NULL, err);
    if (rc < 0)
        return rc;
    if ((rc = vs_line_no_extra(line, 1, "sheet \"TITLE\"", err)) < 0)
        return rc;
    a = vs_line_positional(line, 0);
    if (!a)
        return list_sheets(ctx, err);
    if (!a->value[0])
        return vs_error_set_at(err, VS_EVALUE, a->line, a->column,
                               "expected a non-empty sheet title");
    vs_sheet_slug(a->value, id, sizeof id);
    before = vs_ctx_find_sheet(ctx, id);
    if (before && json_array_size(vs_ctx_sheets(ctx)) && vs_ctx_sheet(ctx) == before)
        action = "current";
    else
        action = before ? "switched" : "created";
    rc = vs_ctx_open_sheet(ctx, a->value, &sheet, err);
    if (rc < 0) {
        err->line = a->line;
        err->column = a->column;
        return rc;
    }
    title = json_string_value(json_object_get(sheet, "title"));
    if (!strcmp(action, "created"))
        vs_buf_printf(&text, "sheet %s: created, now current (\"%s\")\n", id, title ? title : "");
    else if (!strcmp(action, "switched"))
        vs_buf_printf(&text, "sheet %s: switched to it (\"%s\"; %zu components, %zu offers)\n", id,
                      title ? title : "", json_array_size(vs_sheet_array(sheet, "components")),
                      json_array_size(vs_sheet_array(sheet, "offers")));
    else
        vs_buf_printf(&text, "sheet %s: already current (\"%s\")\n", id, title ? title : "");
    if (title && strcmp(title, a->value) != 0 && strcmp(action, "created") != 0)
        vs_buf_printf(&text, "note: \"%s\" has the same id as the open sheet \"%s\"\n", a->value,
                      title);
    vs_buf_puts(&html, "<p>sheet <code>");
    vs_buf_put_html(&html, id);
    vs_buf_printf(&html, "</code>: %s (", action);
    vs_buf_put_html(&html, title ? title : "");
    vs_buf_puts(&html, ")</p>\n");
    {
        vs_buf payload = VS_BUF_INIT;
        vs_jw w = VS_JW_INIT(&payload);
        vs_jw_open(&w, '{');
        vs_jw_member_str(&w, "kind", "sheet");
        vs_jw_member_str(&w, "action", action);
        vs_sheet_fields_write(sheet, &w);
        vs_jw_close(&w, '}');
        rc = vs_ctx_emit_written(ctx, &text, &html, &payload, err);
        vs_buf_free(&payload);
    }
    vs_buf_free(&text);
    vs_buf_free(&html);
    return rc;
}

/* --------------------------------------------------------------- the table */

static const char help_help[] =
    "Lists every verb with a one-line summary, grouped (core, sizing, gpu, records,\n"
    "measure). `help VERB` prints the verb's syntax, meaning, formula and source.\n"
    "In a notebook, Shift-Tab on a verb shows the same text.";

static const char convert_help[] =
    "Converts an amount of memory to another unit, exactly. Amounts are exact integer\n"
    "bytes: GB = 10^9 B, GiB = 2^30 B (KB/MB/TB and KiB/MiB/TiB likewise). A fraction\n"
    "of a byte rounds up to a whole byte. The result shows the exact quotient (never\n"
    "rounded: 24GB is 22.351741790771484375 GiB) and the two-decimal display, rounded\n"
    "half up (22.35 GiB).\n"
    "Payload: {\"kind\": \"convert\", \"bytes\": INT, \"unit\": UNIT, \"value\": EXACT}; value\n"
    "is the exact decimal as a string, so no reader rounds it through a double.\n"
    "Units: GB = 10^9 bytes (SI), GiB = 2^30 bytes (IEC 80000-13): 24,000,000,000 bytes\n"
    "= 22.35 GiB.";

static const char sheet_help[] =
    "Opens the sheet titled TITLE and makes it current, creating it when the session\n"
    "has no sheet of that id (the id is the title's slug: lowercase letters, digits\n"
    "and '-'). Switching back to a sheet keeps everything it holds. `sheet` alone\n"
    "lists the session's sheets. Verbs that need a sheet before any was opened open\n"
    "one titled \"untitled\".\n"
    "Payload: kind \"sheet\" with the whole sheet as stored, plus \"action\"\n"
    "(created, switched, current); `sheet` alone gives kind \"sheets\".";

const vs_verb vs_verbs_core[] = {
    {"help", verb_help, "help [VERB]", "list the verbs, or show one verb's syntax and meaning",
     help_help, NULL, NULL},
    {"convert", verb_convert, "convert QUANTITY UNIT",
     "convert an amount of memory exactly (convert 24GB GiB)", convert_help, NULL, NULL},
    {"sheet", verb_sheet, "sheet [\"TITLE\"]",
     "open, create or switch the current sheet; alone, list the sheets", sheet_help, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL, NULL, NULL},
};
