/* A throwaway log importer for tests/extension: lines "toylog peak N MiB",
 * one measurement each (phase "run", counter toylog.peak). Dropped into a
 * scratch copy of the tree as src/measure/import_toylog.c with one row in
 * importers.def. */
#include <string.h>

#include "measure/import.h"

static int toylog_sniff(const char *line, size_t n)
{
    return n >= 7 && !memcmp(line, "toylog ", 7);
}

static int toylog_line(vs_import *im, void *state, const char *line, size_t n)
{
    const char *p = vs_import_find(line, n, "peak ", 0);
    vs_import_at at = {.phase = "run"};
    uint64_t bytes, res;
    size_t used;
    (void)state;
    if (!p)
        return 0;
    p += 5;
    if (vs_import_decimal(p, n - (size_t)(p - line), (uint64_t)1 << 20, 0, &bytes, &res, &used))
        return vs_import_refuse(im, "toylog's peak needs a figure in MiB");
    return vs_import_bytes(im, &at, "toylog.peak", VS_SCOPE_REPORTED, bytes, res, line, n);
}

const vs_importer vs_import_toylog = {
    "toylog",    "a throwaway test format: \"toylog peak N MiB\" lines",
    0,           toylog_sniff,
    toylog_line, NULL,
    NULL,
};
