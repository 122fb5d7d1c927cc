/* The body every fuzz_import_<format>.c target shares: the input's lines
 * through one importer (src/measure/import.h), then its finish. A refusal
 * must say why; whatever it keeps must be a measurement the record can read
 * back (vs_sheet_check_entry), with text free of control characters. */
#ifndef VS_FUZZ_IMPORT_H
#define VS_FUZZ_IMPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "measure/import.h"
#include "sheet/sheet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int vs_fuzz_import(const char *format, const uint8_t *data, size_t size)
{
    const vs_importer *imp = vs_importer_find(format);
    vs_import im;
    void *state;
    size_t at = 0, i;
    int rc = 0;
    json_t *m;
    if (!imp || vs_import_init(&im) < 0)
        __builtin_trap();
    im.run_key = strcmp(format, "probe") ? "fuzz" : NULL;
    state = calloc(1, imp->state_size ? imp->state_size : 1);
    while (at < size && rc == 0) {
        const uint8_t *nl = memchr(data + at, '\n', size - at);
        size_t n = nl ? (size_t)(nl - (data + at)) : size - at;
        char *line = malloc(n + 1);
        memcpy(line, data + at, n);
        line[n] = '\0';
        rc = imp->line(&im, state, line, n);
        free(line);
        at += n + 1;
    }
    if (rc == 0 && imp->finish)
        rc = imp->finish(&im, state);
    if (rc == VS_IMPORT_REFUSED && !im.why[0])
        __builtin_trap(); /* every refusal says why */
    if (rc != 0 && rc != VS_IMPORT_REFUSED)
        __builtin_trap(); /* no other failure than memory, which a fuzzer does not run short of */
    if (rc == 0) {
        json_array_foreach(im.items, i, m)
        {
            json_t *c = json_deep_copy(m), *t = json_object_get(m, "text");
            vs_error err;
            if (!json_is_integer(json_object_get(m, "peak_bytes")) &&
                !json_is_number(json_object_get(m, "value")))
                __builtin_trap();
            if (t && json_is_string(t) && !vs_import_text_valid(json_string_value(t)))
                __builtin_trap();
            json_object_set_new(c, "run", json_null());
            if (vs_sheet_check_entry(c, "measurements", &err) != 0)
                __builtin_trap();
            json_decref(c);
        }
    }
    if (imp->clear)
        imp->clear(state);
    free(state);
    vs_import_clear(&im);
    return 0;
}

#endif
