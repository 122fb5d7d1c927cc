/* libFuzzer target: the llamacpp importer (src/measure/import_llamacpp.c). */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return vs_fuzz_import("llamacpp", data, size);
}
