/* libFuzzer target: the torch importer (src/measure/import_torch.c). */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return vs_fuzz_import("torch", data, size);
}
