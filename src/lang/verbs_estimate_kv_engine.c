/* verbs_estimate_kv_engine.c — `estimate kv` under an engine: the KV cache the
 * card's engine allocates, through the same rule `fit` uses (the engine's kv
 * callback on the sheet's fit context), so that the kv_cache component,
 * `envelope`, `candidates`, the records and `fit` say one figure. */
#include "lang/verbs_estimate_internal.h"

#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/fit.h"
#include "sheet/sheet.h"
#include "sheet/units.h"
#include "util/checked.h"

/* The engine's release as its keys name it (version=, else build=), or NULL. */
static const char *release_of(const vs_engine_env *env)
{
    static const char *const names[] = {"version", "build"};
    size_t i;
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        const vs_engine_val *v = vs_engine_get(env, names[i]);
        if (v && v->set && v->word)
            return v->word;
    }
    return NULL;
}

int vs_verbs_estimate_kv_engine(const json_t *sheet, const vs_kv_layout *layout, uint64_t tp,
                                uint64_t *bytes, vs_buf *source, vs_error *err)
{
    const json_t *eng = vs_sheet_card_get(sheet, VS_CK_ENGINE), *keys, *v;
    const char *name = json_string_value(vs_sheet_engine_field(eng, VS_EK_NAME)), *rel, *k;
    const vs_engine *e = name ? vs_engine_find(name) : NULL;
    vs_fit_ctx c;
    vs_engine_kv kv;
    char g[40], gt[40];
    int rc;
    if (!e || e == vs_engine_default())
        return 0; /* no engine: the model-level estimate stands */
    if ((rc = vs_fit_prepare(&c, sheet, err)) < 0)
        goto done;
    /* the layout estimate kv sized (the line's shapes, else the card's) */
    c.env.layout = *layout;
    c.env.layout_known = 1;
    memset(&kv, 0, sizeof kv);
    if ((rc = e->kv(&c.env, 0, &kv, err)) < 0)
        goto done;
    if (!kv.need_known) {
        rc = vs_error_set(err, VS_EVALUE, "engine %s gives no KV figure for this card", e->name);
        goto done;
    }
    *bytes = kv.need_bytes;
    /* again with a pool of exactly that need, so that the rule's own figures
     * (blocks, cells) describe the cache the component is */
    memset(&kv, 0, sizeof kv);
    if ((rc = e->kv(&c.env, *bytes, &kv, err)) < 0)
        goto done;
    if (vs_checked_mul(bytes, kv.need_bytes, tp ? tp : 1) < 0) {
        rc = vs_error_set(err, VS_EUNIT, "the KV cache does not fit in 64-bit bytes");
        goto done;
    }
    vs_buf_printf(source, "engine %s", e->name);
    keys = vs_sheet_engine_field(eng, VS_EK_KEYS);
    json_object_foreach((json_t *)keys, k, v)
    {
        if (json_is_string(v))
            vs_buf_printf(source, " %s=%s", k, json_string_value(v));
    }
    rel = release_of(&c.env);
    vs_units_grouped(g, sizeof g, kv.need_bytes);
    vs_buf_printf(source, "%s%s%s allocates: %s = %s B", rel ? " (release " : "", rel ? rel : "",
                  rel ? ")" : "", kv.rule, g);
    if (tp > 1) {
        vs_units_grouped(gt, sizeof gt, tp);
        vs_units_grouped(g, sizeof g, *bytes);
        vs_buf_printf(source, ", per GPU; x %s GPUs (placement tensor) = %s B", gt, g);
    }
    rc = vs_buf_failed(source) ? vs_error_oom(err) : 1;
done:
    vs_fit_ctx_free(&c);
    return rc;
}
