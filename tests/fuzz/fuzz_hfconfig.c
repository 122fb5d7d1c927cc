/* libFuzzer target: config.json text through the family rules. */
#include <stddef.h>
#include <stdint.h>

#include "model/hfconfig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vs_hfconfig c;
    vs_error err;
    if (vs_hfconfig_parse(&c, (const char *)data, size, &err) == 0 &&
        (c.params_active > c.params_total || c.layers == 0 || c.head_dim == 0))
        __builtin_trap();
    return 0;
}
