/* libFuzzer target: the trtllm importer (src/measure/import_trtllm.c). */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return vs_fuzz_import("trtllm", data, size);
}
