#include "render/lines.h"

#include "render/result.h"
#include "util/buf.h"

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
