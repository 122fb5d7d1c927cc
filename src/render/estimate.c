#include "render/estimate.h"

#include "sheet/units.h"

void vs_render_estimate_kv_headline(vs_buf *head, const char *formula)
{
    vs_buf_printf(head, "estimate kv: %s", formula);
}

void vs_render_estimate_skipped(vs_buf *note, const char *name, uint64_t bytes)
{
    char d[160];
    vs_units_describe(d, sizeof d, bytes);
    vs_buf_printf(note,
                  "%s is measured: the estimate (%s) was not stored; an estimate never "
                  "overwrites a measurement. ",
                  name, d);
}

void vs_render_estimate_kv_tensor_note(vs_buf *note, uint64_t tp)
{
    vs_buf_printf(note,
                  "placement tensor on %llu GPUs: each GPU holds ceil(kv_heads / %llu) KV "
                  "heads, one at least (fewer heads than GPUs are replicated), and the whole "
                  "of any latent cache",
                  (unsigned long long)tp, (unsigned long long)tp);
}
