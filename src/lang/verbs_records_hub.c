/* `hub`: what `model` and `weights` may ask of the Hugging Face Hub in this
 * session (model/hfhub.h), shown, or switched off and on as `records PATH`
 * sets the records. A row of the records verbs' table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/verbs_records_internal.h"
#include "model/hfhub.h"
#include "util/buf.h"

int vs_verb_hub(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    static const char *const syntax = "hub [offline | online]";
    const vs_arg *a = vs_line_positional(line, 0);
    vs_buf text = VS_BUF_INIT;
    vs_hub_status *st = NULL;
    json_t *payload;
    int rc, off;
    if ((rc = vs_line_check_keys(line, NULL, err)) < 0 ||
        (rc = vs_line_no_extra(line, 1, syntax, err)) < 0)
        return rc;
    if (a && strcmp(a->value, "offline") && strcmp(a->value, "online"))
        return vs_error_set_at(err, VS_EVALUE, a->line, a->column, "expected `%s`, not '%s'",
                               syntax, a->value);
    if (a)
        vs_ctx_set_hub_offline(ctx, !strcmp(a->value, "offline"));
    if (!(st = calloc(1, sizeof *st)))
        return vs_error_oom(err);
    vs_hfhub_status(st);
    off = st->env_offline || vs_ctx_hub_offline(ctx);
    vs_buf_printf(&text, "Hub: %s, %s", st->endpoint,
                  st->env_offline           ? "offline (HF_HUB_OFFLINE is set)"
                  : vs_ctx_hub_offline(ctx) ? "offline for this session (`hub offline`)"
                  : !st->libcurl            ? "not reachable: libcurl cannot be loaded"
                                            : "asked for what the local cache lacks");
    vs_buf_printf(&text, "\ntoken: %s", st->token_source ? st->token_source : "none");
    if (!st->libcurl)
        vs_buf_printf(&text, "\nlibcurl: %s (Debian's and Ubuntu's package libcurl4 has it)",
                      st->libcurl_why);
    vs_buf_printf(&text, "\ncache: %s", st->cache[0] ? st->cache : "none");
    if (a && !strcmp(a->value, "online") && st->env_offline)
        vs_buf_puts(&text, "\n`hub online` lifts only `hub offline`: HF_HUB_OFFLINE in the "
                           "environment still forbids requests");
    payload =
        json_pack("{s:s, s:s, s:b, s:b, s:b, s:s?, s:b, s:s?}", "kind", "hub", "endpoint",
                  st->endpoint, "offline", off, "env_offline", st->env_offline, "session_offline",
                  vs_ctx_hub_offline(ctx), "token_source", st->token_source, "libcurl", st->libcurl,
                  "cache", st->cache[0] ? st->cache : NULL);
    free(st);
    rc = vs_ctx_emit_text(ctx, &text, NULL, payload, err);
    vs_buf_free(&text);
    return rc;
}
