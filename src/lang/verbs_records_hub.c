/* `hub`: what `model` and `weights` may ask of the Hugging Face Hub in this
 * session (model/hfhub.h), shown, or switched off and on as `records PATH`
 * sets the records. A row of the records verbs' table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/verbs_records_internal.h"
#include "model/hfhub.h"
#include "render/hub.h"

int vs_verb_hub(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    static const char *const syntax = "hub [offline | online]";
    const vs_arg *a = vs_line_positional(line, 0);
    vs_hub_status *st = NULL;
    vs_bundle *bundle;
    int rc;
    if ((rc = vs_line_check_keys(line, NULL, err)) < 0 ||
        (rc = vs_line_no_extra(line, 1, syntax, err)) < 0)
        return rc;
    if (a && strcmp(a->value, "offline") && strcmp(a->value, "online"))
        return vs_error_set_at(err, VS_EVALUE, a->line, a->column, "expected `%s`, not '%s'",
                               syntax, a->value);
    if (a)
        vs_ctx_set_hub_offline(ctx, !strcmp(a->value, "offline"));
    /* the user looks at the Hub again: the next request asks it, even if it
     * was found unreachable a moment ago */
    vs_hfhub_forget_unreachable();
    if (!(st = calloc(1, sizeof *st)))
        return vs_error_oom(err);
    vs_hfhub_status(st);
    {
        vs_render_hub_facts f = {st->endpoint,
                                 st->env_offline,
                                 vs_ctx_hub_offline(ctx),
                                 st->libcurl,
                                 st->libcurl_why,
                                 st->token_source,
                                 st->cache,
                                 a && !strcmp(a->value, "online")};
        bundle = vs_render_hub(&f);
    }
    free(st);
    if (!bundle)
        return vs_error_oom(err);
    vs_ctx_emit(ctx, bundle);
    return 0;
}
