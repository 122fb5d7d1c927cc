/* libFuzzer target: the probe importer (src/measure/import_probe.c). */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return vs_fuzz_import("probe", data, size);
}
