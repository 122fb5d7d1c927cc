/* A throwaway engine for tests/extension: it budgets half of each GPU and
 * fills it with a 16-bit KV cache. Dropped into a scratch copy of the tree as
 * src/engine/toyeng.c with one row in engines.def. */
#include <stdio.h>

#include "engine/engine.h"
#include "sheet/units.h"

static const vs_engine_key keys[] = {{NULL, 0, NULL, NULL, NULL, NULL}};

static int budget(const vs_engine_env *e, vs_engine_budget *out, vs_error *err)
{
    char half[64];
    (void)err;
    out->budget_bytes = e->total_bytes / 2;
    vs_units_round(half, sizeof half, out->budget_bytes, VS_UNIT_GIB, 2);
    snprintf(out->rule, sizeof out->rule, "toy rule: half of the GPU, %s GiB", half);
    return 0;
}

static int kv(const vs_engine_env *e, uint64_t pool, vs_engine_kv *out, vs_error *err)
{
    return e->layout_known ? vs_engine_token_kv(e, pool, 16, 1, NULL, out, err) : 0;
}

/* designated, so that an optional slot the struct gains stays NULL here */
const vs_engine vs_engine_toyeng = {.name = "toyeng",
                                    .summary = "a throwaway test engine: half of each GPU",
                                    .help = "Half of each GPU, for tests.",
                                    .keys = keys,
                                    .budget = budget,
                                    .kv = kv};
