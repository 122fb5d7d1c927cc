/* libFuzzer target: the torchtune importer (src/measure/import_torchtune.c). */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return vs_fuzz_import("torchtune", data, size);
}
