/* libFuzzer target: the sglang importer (src/measure/import_sglang.c). */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return vs_fuzz_import("sglang", data, size);
}
