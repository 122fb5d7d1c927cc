/* The `launch` result: the commands as text, HTML and payload. */
#include "render/launch.h"

#include <string.h>

#include "util/buf.h"

vs_bundle *vs_render_launch(const char *engine, const char *release, const json_t *launches,
                            const json_t *refused)
{
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    vs_bundle *b = NULL;
    json_t *payload;
    const json_t *l;
    size_t i;
    vs_buf_printf(&text, "launch under engine %s (flags of %s)\n", engine, release);
    vs_buf_puts(&html, "<div class='vramsheet-launch'><p>launch under engine <b>");
    vs_buf_put_html(&html, engine);
    vs_buf_puts(&html, "</b> (flags of ");
    vs_buf_put_html(&html, release);
    vs_buf_puts(&html, ")</p>\n");
    json_array_foreach(launches, i, l)
    {
        const char *offer = json_string_value(json_object_get(l, "offer")),
                   *cmd = json_string_value(json_object_get(l, "command")),
                   *note = json_string_value(json_object_get(l, "note"));
        vs_buf_printf(&text, "%s:\n  %s\n", offer, cmd);
        vs_buf_puts(&html, "<p><b>");
        vs_buf_put_html(&html, offer);
        vs_buf_puts(&html, "</b></p><pre>");
        vs_buf_put_html(&html, cmd);
        vs_buf_puts(&html, "</pre>\n");
        if (note) {
            vs_buf_printf(&text, "  note: %s\n", note);
            vs_buf_puts(&html, "<p>note: ");
            vs_buf_put_html(&html, note);
            vs_buf_puts(&html, "</p>\n");
        }
    }
    json_array_foreach(refused, i, l)
    {
        const char *offer = json_string_value(json_object_get(l, "offer")),
                   *why = json_string_value(json_object_get(l, "reason"));
        vs_buf_printf(&text, "%s: no command: %s\n", offer, why);
        vs_buf_puts(&html, "<p><b>");
        vs_buf_put_html(&html, offer);
        vs_buf_puts(&html, "</b>: no command: ");
        vs_buf_put_html(&html, why);
        vs_buf_puts(&html, "</p>\n");
    }
    vs_buf_puts(&html, "</div>\n");
    payload = json_pack("{s:s, s:s, s:s, s:O, s:O}", "kind", "launch", "engine", engine, "release",
                        release, "launches", launches, "refused", refused);
    if (payload && !text.failed && !html.failed)
        b = vs_bundle_new(vs_buf_str(&text), vs_buf_str(&html), NULL, payload);
    else
        json_decref(payload);
    vs_buf_free(&text);
    vs_buf_free(&html);
    return b;
}
