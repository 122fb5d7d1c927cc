/* libFuzzer target: what the records verbs compute from two versions of a sheet,
 * and revision specs. The input is a revision spec (up to the first newline),
 * then two JSON documents separated by a NUL byte, taken as sheets of any shape.
 * vs_store_parse_spec and vs_store_sheet_rev read the spec; vs_diff_axes, its
 * warning and vs_sheet_refresh_derived (twice: the second changes nothing) read
 * the sheets. Nothing may crash, leak or loop, whatever the values. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sheet/derived.h"
#include "sheet/diff.h"
#include "sheet/sheet.h"
#include "store/store.h"
#include "util/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nl = memchr(data, '\n', size), *nul;
    size_t speclen = nl ? (size_t)(nl - data) : size, rest;
    char *spec = malloc(speclen + 1), id[VS_SHEET_ID_MAX];
    const char *rev = NULL;
    unsigned long n;
    json_t *a = NULL, *b = NULL;
    vs_buf w = VS_BUF_INIT;
    vs_error err;
    if (!spec)
        return 0;
    memcpy(spec, data, speclen);
    spec[speclen] = '\0';
    if (!memchr(spec, '\0', speclen) && vs_store_parse_spec(spec, id, sizeof id, &rev, &err) == 0 &&
        rev)
        (void)vs_store_sheet_rev(rev, &n);
    free(spec);
    if (!nl)
        return 0;
    data = nl + 1;
    rest = size - speclen - 1;
    nul = memchr(data, '\0', rest);
    a = json_loadb((const char *)data, nul ? (size_t)(nul - data) : rest, 0, NULL);
    if (nul)
        b = json_loadb((const char *)nul + 1, rest - (size_t)(nul - data) - 1, 0, NULL);
    if (json_is_object(a) && json_is_object(b)) {
        vs_diff_axes_warning(vs_diff_axes(a, b), &w);
        if (vs_sheet_refresh_derived(b) >= 0 && vs_sheet_refresh_derived(b) != 0)
            abort(); /* a second refresh has nothing left to change */
    }
    vs_buf_free(&w);
    json_decref(a);
    json_decref(b);
    return 0;
}
