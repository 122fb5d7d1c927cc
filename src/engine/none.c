/* none: no engine declared; the sheet's own components against the whole card. */
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "sheet/units.h"

static const vs_engine_key keys[] = {{NULL, 0, NULL, NULL, NULL, NULL}};

static const char help[] =
    "No engine: the capacity is the card's whole total and the sheet's components are the "
    "whole need, as the envelope sums them. The KV pool is what the weights and the other "
    "components leave; the KV need is the sheet's kv_cache components, else the model's KV "
    "layout at the card's length and concurrency (16-bit values).";

static int budget(const vs_engine_env *e, vs_engine_budget *out, vs_error *err)
{
    char tot[64];
    (void)err;
    out->budget_bytes = e->total_bytes;
    out->inside = VS_RT_BIT(VS_RT_NON_TORCH) | VS_RT_BIT(VS_RT_ACTIVATION_PEAK) |
                  VS_RT_BIT(VS_RT_CUDA_GRAPHS);
    vs_units_round(tot, sizeof tot, e->total_bytes, VS_UNIT_GIB, 2);
    snprintf(out->rule, sizeof out->rule, "the whole card, %s GiB (no engine declared)", tot);
    return 0;
}

static int kv(const vs_engine_env *e, uint64_t pool, vs_engine_kv *out, vs_error *err)
{
    int rc = 0;
    if (e->layout_known)
        rc = vs_engine_token_kv(e, pool, 16, 1, NULL, out, err);
    if (rc < 0)
        return rc;
    if (e->kv_component_known) { /* the sheet's own figure is the need */
        out->need_known = 1;
        out->need_bytes = e->kv_component_bytes;
        if (!e->layout_known && e->concurrency_known && e->concurrency && e->length_known &&
            e->length && e->kv_component_bytes) {
            /* the component scales with length x concurrency (the estimate's rule) */
            uint64_t per_token = e->kv_component_bytes / (e->length * e->concurrency);
            if (per_token) {
                out->kv_tokens = pool / per_token;
                out->max_concurrency = (double)pool / ((double)per_token * (double)e->length);
                out->max_length = pool / (per_token * e->concurrency);
            }
        }
        snprintf(out->rule, sizeof out->rule, "the sheet's kv_cache components");
    } else {
        snprintf(out->rule, sizeof out->rule,
                 "the model's KV layout at the card's length and concurrency, 16-bit values");
    }
    return 0;
}

const vs_engine vs_engine_none = {
    .name = "none",
    .summary = "no engine: the sheet's own components against the whole card (the default)",
    .help = help,
    .keys = keys,
    .budget = budget,
    .kv = kv};
