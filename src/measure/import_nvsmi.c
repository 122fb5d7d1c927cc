/* import_nvsmi.c — `nvidia-smi --query-gpu=index,name,memory.total,memory.used
 * --format=csv` (and csv,nounits, csv,noheader).
 *
 * The header names the columns ("index, name, memory.total [MiB], memory.used
 * [MiB]"); with nounits the values are bare numbers in the header's unit, else
 * "81559 MiB". nvidia-smi's MiB is 2^20 bytes. Without a header the columns are
 * taken as index, name, memory.total, memory.used. Each row is a measurement of
 * phase "query" per GPU: memory.used (scope device), memory.total and
 * memory.free/reserved when queried (scope reported); the GPUs and their totals
 * go into the run (total_basis "nvidia-smi"). Rows of a looping query (-l)
 * merge: the largest used is kept. "[N/A]" is no figure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/import.h"

enum { C_OTHER = 0, C_INDEX, C_NAME, C_TOTAL, C_USED, C_FREE, C_RESERVED };
#define NCOLS 16

typedef struct nvsmi_state {
    int ncols;
    int col[NCOLS];
    uint64_t unit[NCOLS]; /* the header's unit ("[MiB]") */
    int header;           /* a header was read */
} nvsmi_state;

static const struct {
    const char *name;
    int col;
    const char *counter;
} columns[] = {
    {"index", C_INDEX, NULL},
    {"name", C_NAME, NULL},
    {"memory.total", C_TOTAL, "nvidia-smi.memory.total"},
    {"memory.used", C_USED, "nvidia-smi.memory.used"},
    {"memory.free", C_FREE, "nvidia-smi.memory.free"},
    {"memory.reserved", C_RESERVED, "nvidia-smi.memory.reserved"},
};
#define NCOLUMNS (sizeof columns / sizeof columns[0])

static int nvsmi_sniff(const char *line, size_t n)
{
    return (n >= 6 && !memcmp(line, "index,", 6)) ||
           vs_import_find(line, n, "memory.used [MiB]", 0) != NULL ||
           vs_import_find(line, n, "memory.total [MiB]", 0) != NULL;
}

/* The next comma-separated field of s[*at..n), trimmed: start and length. */
static int next_field(const char *s, size_t n, size_t *at, const char **f, size_t *fl)
{
    size_t i = *at, e;
    if (i > n)
        return 0;
    while (i < n && s[i] == ' ')
        i++;
    e = i;
    while (e < n && s[e] != ',')
        e++;
    *f = s + i;
    *fl = e - i;
    while (*fl > 0 && (s[i + *fl - 1] == ' ' || s[i + *fl - 1] == '\r'))
        (*fl)--;
    *at = e + 1;
    return 1;
}

static int header(nvsmi_state *st, vs_import *im, const char *line, size_t n)
{
    size_t at = 0, fl, k;
    const char *f;
    st->ncols = 0;
    while (next_field(line, n, &at, &f, &fl)) {
        const char *br = memchr(f, '[', fl);
        size_t nl = br ? (size_t)(br - f) : fl, u = 0;
        if (st->ncols >= NCOLS)
            return vs_import_refuse(im, "more than %d columns", NCOLS);
        while (nl > 0 && f[nl - 1] == ' ')
            nl--;
        st->col[st->ncols] = C_OTHER;
        st->unit[st->ncols] = 0;
        for (k = 0; k < NCOLUMNS; k++)
            if (strlen(columns[k].name) == nl && !memcmp(f, columns[k].name, nl))
                st->col[st->ncols] = columns[k].col;
        if (br)
            st->unit[st->ncols] = vs_import_unit(br + 1, fl - (size_t)(br + 1 - f), &u);
        st->ncols++;
    }
    st->header = 1;
    return 0;
}

static int nvsmi_line(vs_import *im, void *state, const char *line, size_t n)
{
    nvsmi_state *st = state;
    size_t at = 0, fl, c = 0, k;
    const char *f;
    int gpu_known = 0, rc;
    unsigned gpu = 0;
    char name[128] = "";
    struct {
        uint64_t bytes, res;
        int set;
        const char *text;
        size_t tl;
    } v[C_RESERVED + 1];
    vs_import_at where = {.phase = "query"};
    json_t *run, *gpus, *g;
    memset(v, 0, sizeof v);
    if (n == 0)
        return 0;
    if (vs_import_find(line, n, "index", 0) == line || vs_import_find(line, n, "memory.", 0))
        return header(st, im, line, n);
    if (!st->header) { /* csv,noheader: the order of the documented query */
        st->ncols = 4;
        st->col[0] = C_INDEX;
        st->col[1] = C_NAME;
        st->col[2] = C_TOTAL;
        st->col[3] = C_USED;
        st->unit[0] = st->unit[1] = st->unit[2] = st->unit[3] = 0;
        st->header = 1;
    }
    while (next_field(line, n, &at, &f, &fl)) {
        int col = c < (size_t)st->ncols ? st->col[c] : C_OTHER;
        uint64_t unit = c < (size_t)st->ncols ? st->unit[c] : 0;
        c++;
        if (col == C_INDEX) {
            size_t used = 0;
            json_t *x = vs_import_number(f, fl, 0, &used);
            if (!json_is_integer(x) || used != fl || json_integer_value(x) > VS_IMPORT_GPU_MAX) {
                json_decref(x);
                return vs_import_refuse(im, "\"index\" must be a GPU index from 0 to %d",
                                        VS_IMPORT_GPU_MAX);
            }
            gpu_known = 1;
            gpu = (unsigned)json_integer_value(x);
            json_decref(x);
        } else if (col == C_NAME) {
            if (fl >= sizeof name)
                fl = sizeof name - 1;
            memcpy(name, f, fl);
            name[fl] = '\0';
            if (!vs_import_text_valid(name))
                return vs_import_refuse(im, "the GPU's name holds a control character");
        } else if (col >= C_TOTAL) {
            size_t used = 0, sp = 0, u = 0;
            uint64_t mult = 0;
            json_t *x;
            if (fl >= 3 && (!memcmp(f, "[N/A]", fl < 5 ? fl : 5) || !memcmp(f, "N/A", 3)))
                continue;
            x = vs_import_number(f, fl, 0, &used);
            if (!x)
                return vs_import_refuse(im, "a memory column needs a figure (\"81559 MiB\")");
            json_decref(x);
            while (used + sp < fl && f[used + sp] == ' ')
                sp++;
            if (used + sp < fl)
                mult = vs_import_unit(f + used + sp, fl - used - sp, &u);
            else
                mult = unit;
            if (!mult || used + sp + u != fl)
                return vs_import_refuse(im, "a memory column needs a unit (MiB) in the value "
                                            "or the header");
            if (vs_import_decimal(f, used, mult, 0, &v[col].bytes, &v[col].res, &used))
                return vs_import_refuse(im, "a memory figure beyond 2^63 bytes");
            v[col].set = 1;
            v[col].text = f;
            v[col].tl = fl;
        }
    }
    if (!gpu_known)
        return vs_import_refuse(im, "a row needs the GPU's index (query index first)");
    where.gpu_known = 1;
    where.gpu = gpu;
    where.gpu_name = name[0] ? name : NULL;
    for (k = 0; k < NCOLUMNS; k++) {
        int col = columns[k].col;
        if (!columns[k].counter || !v[col].set)
            continue;
        if ((rc = vs_import_bytes(im, &where, columns[k].counter,
                                  col == C_USED ? VS_SCOPE_DEVICE : VS_SCOPE_REPORTED, v[col].bytes,
                                  v[col].res, line, n)) < 0)
            return rc;
    }
    /* the run's GPUs, once each */
    if (!(run = vs_import_run(im, im->run_key ? im->run_key : "")))
        return VS_ENOMEM;
    gpus = json_object_get(run, "gpus");
    json_array_foreach(gpus, k, g) if (json_integer_value(json_object_get(g, "index")) ==
                                       (json_int_t)gpu) return 0;
    g = json_pack("{s:i, s:o, s:o, s:s}", "index", (int)gpu, "name",
                  name[0] ? json_string(name) : json_null(), "total_bytes",
                  v[C_TOTAL].set ? json_integer((json_int_t)v[C_TOTAL].bytes) : json_null(),
                  "total_basis", "nvidia-smi");
    if (!g || json_array_append_new(gpus, g) < 0)
        return VS_ENOMEM;
    return 0;
}

const vs_importer vs_import_nvsmi = {
    "nvidia-smi",
    "`nvidia-smi --query-gpu=index,name,memory.total,memory.used --format=csv` output (also "
    "csv,nounits and csv,noheader); MiB is 2^20 bytes",
    sizeof(nvsmi_state),
    nvsmi_sniff,
    nvsmi_line,
    NULL,
    NULL,
};
