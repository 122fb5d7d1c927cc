/* libFuzzer target: the phase-fd line parser (src/measure/phasefd.c), and the
 * out-of-memory pattern scan over the same bytes. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "measure/phasefd.h"
#include "measure/runner.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vs_phasefd_event ev;
    vs_error err;
    size_t i;
    vs_error_clear(&err);
    if (vs_phasefd_parse(&ev, (const char *)data, size, &err) == 0) {
        if (ev.kind == VS_PHASEFD_PHASE && !vs_phasefd_name_valid(ev.name))
            __builtin_trap();
        if (ev.kind == VS_PHASEFD_DIMS && (ev.ndims == 0 || ev.ndims > VS_PHASEFD_DIMS_MAX))
            __builtin_trap();
        for (i = 0; i < ev.ndims; i++)
            if (ev.dims[i].value > (uint64_t)INT64_MAX || !ev.dims[i].key[0])
                __builtin_trap();
        if (ev.kind == VS_PHASEFD_COUNTER && (ev.bytes > (uint64_t)INT64_MAX || ev.gpu > 4095))
            __builtin_trap();
    } else if (!err.message[0]) {
        __builtin_trap(); /* every refusal says why */
    }
    (void)vs_runner_oom_pattern((const char *)data, size);
    return 0;
}
