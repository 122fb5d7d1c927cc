/* libFuzzer target: the vllm importer (src/measure/import_vllm.c). */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return vs_fuzz_import("vllm", data, size);
}
