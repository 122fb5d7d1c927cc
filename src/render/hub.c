/* hub.c (render) — the `hub` result. */
#include "render/hub.h"

#include <jansson.h>

#include "render/result.h"
#include "util/buf.h"

vs_bundle *vs_render_hub(const vs_render_hub_facts *f)
{
    vs_buf text = VS_BUF_INIT;
    vs_buf_printf(&text, "Hub: %s, %s", f->endpoint,
                  f->env_offline       ? "offline (HF_HUB_OFFLINE is set)"
                  : f->session_offline ? "offline for this session (`hub offline`)"
                  : !f->libcurl        ? "not reachable: libcurl cannot be loaded"
                                       : "asked for what the local cache lacks");
    vs_buf_printf(&text, "\ntoken: %s", f->token_source ? f->token_source : "none");
    if (!f->libcurl)
        vs_buf_printf(&text, "\nlibcurl: %s (Debian's and Ubuntu's package libcurl4 has it)",
                      f->libcurl_why);
    vs_buf_printf(&text, "\ncache: %s", f->cache[0] ? f->cache : "none");
    if (f->asked_online && f->env_offline)
        vs_buf_puts(&text, "\n`hub online` lifts only `hub offline`: HF_HUB_OFFLINE in the "
                           "environment still forbids requests");
    return vs_render_finish(
        &text, NULL, NULL,
        json_pack("{s:s, s:s, s:b, s:b, s:b, s:s?, s:b, s:s?}", "kind", "hub", "endpoint",
                  f->endpoint, "offline", f->env_offline || f->session_offline, "env_offline",
                  f->env_offline, "session_offline", f->session_offline, "token_source",
                  f->token_source, "libcurl", f->libcurl, "cache", f->cache[0] ? f->cache : NULL));
}
