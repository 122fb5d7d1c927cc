/* estimate kv: the KV cache, through the layout of sheet/kvlayout.h, where the
 * formula of every layer kind lives. */
#include "sheet/estimate.h"

#include <stdio.h>
#include <string.h>

#include "sheet/estimators/arith.h"
#include "sheet/kvlayout.h"

const char *const vs_estimate_kv_keys[] = {"layers",         "kv_heads", "head_dim", "dtype",
                                           "encoder_length", "name",     NULL};

const vs_estimator_info vs_estimator_kv = {
    "kv", vs_estimate_kv_keys,
    "estimate kv [layers=L] [kv_heads=H] [head_dim=D] [dtype=fp16] [encoder_length=N] [name=NAME]",
    "the KV cache: the sum over the model's KV layer groups"};

int vs_estimate_kv(uint64_t *out, uint64_t layers, uint64_t kv_heads, uint64_t head_dim,
                   unsigned bits, uint64_t length, uint64_t concurrency, vs_error *err)
{
    /* one full group: the KV formula itself lives once, in sheet/kvlayout.c */
    vs_kv_layout l;
    vs_kv_dims d = {length, concurrency, 0, bits, 1, 0};
    if (bits == 0)
        return vs_error_set(err, VS_EVALUE, "the cache dtype has no known width");
    vs_kv_layout_uniform(&l, layers, kv_heads, head_dim);
    return vs_kv_layout_bytes(out, NULL, NULL, &l, &d, err);
}
