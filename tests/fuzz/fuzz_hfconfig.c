/* libFuzzer target: config.json text through the family registry. The seed
 * corpus holds one published checkpoint's config.json per family (the
 * fixtures of tests/model/configs), so that every family's keys are reached.
 * Invariants: a parsed model has layers and a KV layout of one to
 * VS_KV_GROUPS_MAX groups, active <= total, and its tensor list sums to its
 * count. */
#include <stddef.h>
#include <stdint.h>

#include "model/hfconfig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct sum {
    uint64_t params, tensors;
} sum;

static int add(void *ud, const vs_tensor_rule *r)
{
    sum *s = ud;
    uint64_t n = r->layers * (r->experts ? r->experts : 1);
    unsigned i;
    for (i = 0; i < r->ndims; i++)
        n *= r->shape[i];
    if (r->part != VS_PART_MTP)
        s->params += n;
    s->tensors++;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vs_hfconfig c;
    vs_error err;
    sum s = {0, 0};
    if (vs_hfconfig_parse(&c, (const char *)data, size, &err) != 0)
        return 0;
    if (c.params_active > c.params_total || c.layers == 0 || c.kv.n == 0 ||
        c.kv.n > VS_KV_GROUPS_MAX)
        __builtin_trap();
    vs_family_tensor_rules(&c, add, &s);
    if (s.params != c.params_total)
        __builtin_trap();
    return 0;
}
