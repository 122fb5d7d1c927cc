#include "render/lines.h"

#include <stdio.h>

#include "render/result.h"
#include "util/buf.h"
#include "util/json.h"

vs_bundle *vs_render_lines(const char *headline, const char *const *lines, size_t nlines,
                           json_t *payload_take)
{
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    size_t i;
    vs_render_put_headline(&text, &html, headline);
    if (nlines) {
        vs_buf_puts(&html, "<ul>\n");
        for (i = 0; i < nlines; i++) {
            vs_buf_printf(&text, "  - %s\n", lines[i] ? lines[i] : "");
            vs_buf_puts(&html, "<li>");
            vs_buf_put_html(&html, lines[i] ? lines[i] : "");
            vs_buf_puts(&html, "</li>\n");
        }
        vs_buf_puts(&html, "</ul>\n");
    }
    return vs_render_finish(&text, &html, NULL, payload_take);
}

vs_bundle *vs_render_stages(const json_t *stages, const char *const *dims, size_t ndims)
{
    char lbuf[16][200];
    const char *lines[16];
    size_t i, k, n = 0;
    json_t *x;
    json_array_foreach(stages, i, x)
    {
        vs_buf l = VS_BUF_INIT;
        if (n == 16)
            break;
        vs_buf_puts(&l, json_string_value(json_object_get(x, "name")));
        vs_buf_putc(&l, ':');
        for (k = 0; k < ndims; k++)
            if (json_is_integer(json_object_get(x, dims[k])))
                vs_buf_printf(&l, " %s=%" JSON_INTEGER_FORMAT, dims[k],
                              json_integer_value(json_object_get(x, dims[k])));
        if (json_is_string(json_object_get(x, "note")))
            vs_buf_printf(&l, " (%s)", json_string_value(json_object_get(x, "note")));
        snprintf(lbuf[n], sizeof lbuf[n], "%s", vs_buf_str(&l));
        vs_buf_free(&l);
        lines[n] = lbuf[n];
        n++;
    }
    return vs_render_lines(
        "procedure: short input and small batch, then the usual input, "
        "then the required limit; only the limit validates the card",
        lines, n, json_pack("{s:s, s:o}", "kind", "stages", "stages", json_deep_copy(stages)));
}

vs_bundle *vs_render_oom(const char *phase, const char *const *examine, size_t nexamine,
                         const char *const *names, const char *const *statuses, size_t nsuspects,
                         json_t *payload_take)
{
    const char *lines[16];
    char lbuf[VS_RENDER_OOM_SUSPECTS][300], head[300];
    size_t i, n = 0;
    for (i = 0; i < nexamine && n < 4; i++)
        lines[n++] = examine[i];
    for (i = 0; i < nsuspects && i < VS_RENDER_OOM_SUSPECTS; i++) {
        snprintf(lbuf[i], sizeof lbuf[i], "on the sheet: %s (%s)", names[i],
                 statuses[i] ? statuses[i] : "?");
        lines[n++] = lbuf[i];
    }
    lines[n++] = "change one thing at a time, then re-check the quality criterion and the "
                 "coverage (length, data kept)";
    snprintf(head, sizeof head, "overflow at %s: what to examine", phase);
    return vs_render_lines(head, lines, n, payload_take);
}

vs_bundle *vs_render_decision(const char *decision, const json_t *unknown, int measured,
                              int invalidating, json_t *payload_take)
{
    vs_buf u = VS_BUF_INIT;
    const char *lines[4];
    size_t i, n = 0;
    json_t *x;
    vs_bundle *b;
    lines[n++] = decision;
    vs_json_array_foreach(unknown, i, x)
    {
        vs_buf_printf(&u, "%s%s", u.len ? ", " : "", json_string_value(x));
    }
    if (u.len) {
        vs_buf_puts(&u, ": still unknown; the decision rests on the known part of the envelope");
        lines[n++] = vs_buf_str(&u);
    }
    if (!measured)
        lines[n++] = "no measurement on this sheet yet: the envelope is a hypothesis to verify "
                     "by stages (short, usual, limit)";
    if (!invalidating)
        lines[n++] = "no invalidating condition yet: `invalidate \"...\"` says what would make "
                     "this decision wrong";
    b = vs_render_lines("decision recorded:", lines, n, payload_take);
    vs_buf_free(&u);
    return b;
}
