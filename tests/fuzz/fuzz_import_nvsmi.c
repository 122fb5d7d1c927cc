/* libFuzzer target: the nvidia-smi importer (src/measure/import_nvsmi.c). */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return vs_fuzz_import("nvidia-smi", data, size);
}
