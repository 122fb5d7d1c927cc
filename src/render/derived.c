/* The words of an estimate that followed the card (render/derived.h). */
#include "render/derived.h"

#include <stdio.h>

#include "render/result.h"
#include "sheet/units.h"
#include "sheet/vocab.h"
#include "util/json.h"

/* "4.00 GiB", or "unknown" for anything but an integer */
static void gib(char *out, size_t n, const json_t *bytes)
{
    char g[40];
    if (!json_is_integer(bytes)) {
        snprintf(out, n, "unknown");
        return;
    }
    vs_units_round(g, sizeof g, (uint64_t)json_integer_value(bytes), VS_UNIT_GIB, 2);
    snprintf(out, n, "%s GiB", g);
}

void vs_render_derived_line(vs_buf *text, const char *name, const char *changes, const json_t *from,
                            const json_t *to)
{
    char a[80], z[80];
    gib(a, sizeof a, from);
    gib(z, sizeof z, to);
    /* json_equal is 0 when either is NULL: an absent amount is never "unchanged" */
    if (json_equal(from, to))
        vs_buf_printf(text, "%s re-estimated: %s, %s, unchanged\n", name, changes, a);
    else
        vs_buf_printf(text, "%s re-estimated: %s, %s \xe2\x86\x92 %s\n", name, changes, a, z);
}

void vs_render_derived_failed_line(vs_buf *text, const char *name, const char *changes,
                                   const json_t *from, const char *why)
{
    char a[80];
    gib(a, sizeof a, from);
    vs_buf_printf(text, "%s could not be re-estimated: %s, %s \xe2\x86\x92 unknown (%s)\n", name,
                  changes, a, why);
}

void vs_render_derived_html(vs_buf *html, const json_t *rows)
{
    size_t r;
    json_t *row;
    vs_json_array_foreach(rows, r, row)
    {
        vs_buf_puts(html, "<p>");
        vs_buf_put_html(html, json_string_value(json_object_get(row, "name")));
        vs_buf_puts(html, json_is_null(json_object_get(row, "to_bytes"))
                              ? " could not be re-estimated: "
                              : " re-estimated: ");
        vs_buf_put_html(html, json_string_value(json_object_get(row, "changes")));
        vs_buf_puts(html, "</p>\n");
    }
}

void vs_render_derived_add(vs_buf *text, json_t *rows, const char *name, const char *estimator,
                           const char *changes, const json_t *from, const json_t *to,
                           const json_t *status)
{
    vs_render_derived_line(text, name, changes, from, to);
    json_array_append_new(rows, json_pack("{s:s, s:s, s:s, s:O, s:O, s:O}", "name", name,
                                          "estimator", estimator, "changes", changes, "from_bytes",
                                          from ? from : json_null(), "to_bytes",
                                          to ? to : json_null(), "status", status));
}

void vs_render_derived_add_failed(vs_buf *text, json_t *rows, const char *name,
                                  const char *estimator, const char *changes, const json_t *from,
                                  const char *why)
{
    vs_render_derived_failed_line(text, name, changes, from, why);
    json_array_append_new(rows, json_pack("{s:s, s:s, s:s, s:O, s:n, s:s, s:s}", "name", name,
                                          "estimator", estimator, "changes", changes, "from_bytes",
                                          from ? from : json_null(), "to_bytes", "status",
                                          vs_vocab_status_name(VS_STATUS_UNKNOWN), "error", why));
}

vs_bundle *vs_render_rederived(vs_buf *text, const json_t *sheet_id, const json_t *rows)
{
    vs_buf html = VS_BUF_INIT;
    vs_render_derived_html(&html, rows);
    return vs_render_finish(
        text, &html, NULL,
        json_pack("{s:s, s:O, s:O}", "kind", "rederived", "sheet", sheet_id, "rows", rows));
}
