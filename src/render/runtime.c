#include "render/runtime.h"

#include "sheet/units.h"

void vs_render_runtime_estimated(vs_buf *said, const char *name, uint64_t bytes, const char *rule)
{
    char d[96];
    vs_units_describe(d, sizeof d, bytes);
    vs_buf_printf(said, "%s estimated: %s (%s). ", name, d, rule);
}

void vs_render_runtime_missing(vs_buf *why, const char *name, const char *reason)
{
    vs_buf_printf(why, "%s: %s. ", name,
                  reason ? reason
                         : "no offer names a catalogue GPU, whose generation the rule needs");
}

vs_bundle *vs_render_runtime(const char *said)
{
    vs_buf t = VS_BUF_INIT;
    json_t *payload =
        json_pack("{s:s, s:s, s:s}", "kind", "component", "name", "runtime items", "source", said);
    vs_bundle *b = NULL;
    vs_buf_printf(&t, "estimate runtime: %s\n", said);
    if (payload && !vs_buf_failed(&t))
        b = vs_bundle_new(vs_buf_str(&t), NULL, NULL, payload);
    else
        json_decref(payload);
    vs_buf_free(&t);
    return b;
}
