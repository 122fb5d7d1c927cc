/* libFuzzer target for canonical records: arbitrary bytes either fail to load
 * with an error, or load into a sheet whose dump re-loads and re-dumps to the
 * same text (records must be stable). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sheet/sheet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *a = NULL, *b = NULL;
    vs_error err;
    char *d1, *d2;
    if (vs_sheet_load(&a, (const char *)data, size, &err) != 0)
        return 0;
    d1 = vs_sheet_dump(a);
    if (!d1)
        abort();
    if (vs_sheet_load(&b, d1, strlen(d1), &err) != 0)
        abort(); /* a dump that does not load back */
    d2 = vs_sheet_dump(b);
    if (!d2 || strcmp(d1, d2) != 0)
        abort(); /* not canonical */
    free(d1);
    free(d2);
    json_decref(a);
    json_decref(b);
    return 0;
}
