/* One page on a recorded sheet: Markdown for a pull request, or a static HTML page. */
#include "render/report.h"

#include <string.h>

#include "render/markdown.h"
#include "sheet/sheet_access.h"
#include "util/json.h"

/* A bundle's MIME part (borrowed from the tree *hold, which the caller frees). */
static const char *part(const vs_bundle *b, const char *mime, json_t **hold)
{
    *hold = vs_bundle_to_json(b);
    return json_string_value(json_object_get(*hold, mime));
}

static void md_block(vs_buf *out, const char *heading, const vs_bundle *b)
{
    json_t *hold = NULL;
    const char *text = b ? part(b, "text/plain", &hold) : NULL;
    vs_buf_printf(out, "\n## %s\n\n", heading);
    if (!text) {
        vs_buf_puts(out, "(not available)\n");
        return;
    }
    /* a fence longer than any run of backticks the text holds */
    vs_buf_puts(out, "````text\n");
    vs_buf_puts(out, text);
    if (!*text || text[strlen(text) - 1] != '\n')
        vs_buf_putc(out, '\n');
    vs_buf_puts(out, "````\n");
    json_decref(hold);
}

static void html_block(vs_buf *out, const char *heading, const vs_bundle *b)
{
    json_t *hold = NULL;
    const char *html = b ? part(b, "text/html", &hold) : NULL;
    const char *text = b && !html ? part(b, "text/plain", &hold) : NULL;
    vs_buf_puts(out, "<section>\n<h2>");
    vs_buf_put_html(out, heading);
    vs_buf_puts(out, "</h2>\n");
    if (html)
        vs_buf_puts(out, html);
    else if (text) {
        vs_buf_puts(out, "<pre>");
        vs_buf_put_html(out, text);
        vs_buf_puts(out, "</pre>");
    } else
        vs_buf_puts(out, "<p>(not available)</p>");
    vs_buf_puts(out, "\n</section>\n");
    json_decref(hold);
}

static const char *condition_text(const json_t *c)
{
    return json_is_string(c) ? json_string_value(c) : vs_json_str_of(c, "condition");
}

static void page_md(vs_buf *out, const vs_report_parts *p)
{
    const char *title = vs_sheet_get_str(p->sheet, VS_SK_TITLE);
    const char *decision = vs_sheet_get_str(p->sheet, VS_SK_DECISION);
    const json_t *conds = vs_sheet_get(p->sheet, VS_SK_INVALIDATE), *c;
    size_t i;
    vs_buf_puts(out, "# Sizing report: ");
    vs_markdown_text(out, title ? title : p->sheet_id, 0);
    vs_buf_printf(out, "\n\nSheet `%s` at commit `%s` in the records at `%s`.\n\n", p->sheet_id,
                  p->commit, p->records);
    vs_buf_puts(out, "**Decision:** ");
    if (decision && *decision)
        vs_markdown_text(out, decision, 0);
    else
        vs_buf_puts(out, "none recorded yet");
    vs_buf_putc(out, '\n');
    md_block(out, "Verdict per offer", p->candidates);
    md_block(out, "Components per GPU", p->envelope);
    if (p->diff) {
        vs_buf heading = VS_BUF_INIT;
        vs_buf_puts(&heading, "What changed since ");
        vs_markdown_text(&heading, p->since, 0);
        md_block(out, vs_buf_str(&heading), p->diff);
        if (vs_buf_failed(&heading))
            out->failed = 1;
        vs_buf_free(&heading);
    }
    vs_buf_puts(out, "\n## What would invalidate the decision\n\n");
    if (!json_array_size(conds))
        vs_buf_puts(out, "No condition recorded (`invalidate \"...\"` adds one).\n");
    json_array_foreach(conds, i, c)
    {
        vs_buf_puts(out, "- ");
        vs_markdown_text(out, condition_text(c), 0);
        vs_buf_putc(out, '\n');
    }
}

static void page_html(vs_buf *out, const vs_report_parts *p)
{
    const char *title = vs_sheet_get_str(p->sheet, VS_SK_TITLE);
    const char *decision = vs_sheet_get_str(p->sheet, VS_SK_DECISION);
    const json_t *conds = vs_sheet_get(p->sheet, VS_SK_INVALIDATE), *c;
    size_t i;
    vs_buf_puts(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                     "<title>Sizing report: ");
    vs_buf_put_html(out, title ? title : p->sheet_id);
    vs_buf_puts(out,
                "</title>\n<style>body{font-family:sans-serif;max-width:72rem;margin:2rem auto;"
                "padding:0 1rem}table{border-collapse:collapse}td,th{border:1px solid #ccc;"
                "padding:.2rem .5rem;text-align:left}code,pre{font-family:monospace}"
                "</style>\n</head>\n<body>\n<h1>Sizing report: ");
    vs_buf_put_html(out, title ? title : p->sheet_id);
    vs_buf_puts(out, "</h1>\n<p>Sheet <code>");
    vs_buf_put_html(out, p->sheet_id);
    vs_buf_puts(out, "</code> at commit <code>");
    vs_buf_put_html(out, p->commit);
    vs_buf_puts(out, "</code> in the records at <code>");
    vs_buf_put_html(out, p->records);
    vs_buf_puts(out, "</code>.</p>\n<p><strong>Decision:</strong> ");
    vs_buf_put_html(out, decision && *decision ? decision : "none recorded yet");
    vs_buf_puts(out, "</p>\n");
    html_block(out, "Verdict per offer", p->candidates);
    html_block(out, "Components per GPU", p->envelope);
    if (p->diff) {
        vs_buf heading = VS_BUF_INIT;
        vs_buf_printf(&heading, "What changed since %s", p->since ? p->since : "");
        html_block(out, vs_buf_str(&heading), p->diff);
        if (vs_buf_failed(&heading))
            out->failed = 1;
        vs_buf_free(&heading);
    }
    vs_buf_puts(out, "<section>\n<h2>What would invalidate the decision</h2>\n<ul>\n");
    if (!json_array_size(conds))
        vs_buf_puts(out, "<li>No condition recorded.</li>\n");
    json_array_foreach(conds, i, c)
    {
        vs_buf_puts(out, "<li>");
        vs_buf_put_html(out, condition_text(c) ? condition_text(c) : "");
        vs_buf_puts(out, "</li>\n");
    }
    vs_buf_puts(out, "</ul>\n</section>\n</body>\n</html>\n");
}

void vs_report_page(vs_buf *out, const vs_report_parts *p, vs_report_format format)
{
    if (format == VS_REPORT_HTML)
        page_html(out, p);
    else
        page_md(out, p);
}
