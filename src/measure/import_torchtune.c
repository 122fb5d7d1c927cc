/* import_torchtune.c — torchtune's memory statistics.
 *
 * torchtune/training/memory.py: get_memory_stats divides torch's
 * active_bytes.all.peak, max_memory_allocated and max_memory_reserved by
 * 1024**3, and log_memory_stats prints "Memory stats after model init:" then
 * "\tGPU peak memory allocation: 6.21 GiB", "... reserved: ...", "... active:
 * ..." (the device's name first: GPU, NPU, ...). The older
 * torchtune/utils/memory.py divided by 1e9 and printed "GB": each figure is
 * read with the unit it prints. Its dict form "Memory Stats after model init:
 * {'peak_memory_active': 9.478172672, ...}" (torchtune.utils.memory_stats_log)
 * is in GB of 1e9. The training loop's metric lines "Step 1 | loss:...
 * peak_memory_active:47.32 peak_memory_alloc:... peak_memory_reserved:..."
 * carry get_memory_stats's figures without a unit: GiB (torchtune.training).
 * Phases: "model_init" for the stats after model init, "train" for steps (the
 * largest step kept).
 */
#include <string.h>

#include "measure/import.h"

#define GIB (1ull << 30)
#define GB 1000000000ull

static const struct {
    const char *printed; /* "peak memory allocation:" */
    const char *key;     /* "peak_memory_alloc" */
    const char *counter;
    vs_vocab_scope scope;
} stats[] = {
    {"peak memory allocation:", "peak_memory_alloc", "torchtune.peak_memory_alloc",
     VS_SCOPE_TENSORS},
    {"peak memory reserved:", "peak_memory_reserved", "torchtune.peak_memory_reserved",
     VS_SCOPE_ALLOCATOR},
    {"peak memory active:", "peak_memory_active", "torchtune.peak_memory_active", VS_SCOPE_TENSORS},
};
#define NSTATS (sizeof stats / sizeof stats[0])

static int torchtune_sniff(const char *line, size_t n)
{
    return vs_import_find(line, n, "torchtune", 0) != NULL ||
           vs_import_find(line, n, "peak_memory_alloc", 0) != NULL ||
           vs_import_find(line, n, "Memory stats after model init", 1) != NULL;
}

/* figure [unit] at s: bytes with mult_default when no unit follows (0: a unit
 * is needed). */
static int figure(const char *s, size_t n, uint64_t mult_default, uint64_t *bytes, uint64_t *res,
                  size_t *used)
{
    size_t k = 0, sp = 0, u = 0;
    uint64_t mult;
    json_t *num = vs_import_number(s, n, 0, &k);
    if (!num)
        return -1;
    json_decref(num);
    while (k + sp < n && s[k + sp] == ' ')
        sp++;
    mult = vs_import_unit(s + k + sp, n - k - sp, &u);
    if (!mult) {
        if (!mult_default)
            return -1;
        mult = mult_default;
        sp = 0;
    }
    if (vs_import_decimal(s, k, mult, 0, bytes, res, &k))
        return -1;
    *used = k + sp + u;
    return 0;
}

static int torchtune_line(vs_import *im, void *state, const char *line, size_t n)
{
    size_t i;
    int step = vs_import_find(line, n, "Step ", 0) != NULL && memchr(line, '|', n) != NULL;
    vs_import_at at = {.phase = step ? "train" : "model_init"};
    (void)state;
    for (i = 0; i < NSTATS; i++) {
        const char *p;
        size_t off, used = 0;
        uint64_t bytes, res;
        int rc;
        if ((p = vs_import_find(line, n, stats[i].printed, 0)) != NULL) {
            /* "GPU peak memory allocation: 6.21 GiB" (unit as printed) */
            off = (size_t)(p - line) + strlen(stats[i].printed);
            while (off < n && line[off] == ' ')
                off++;
            if (figure(line + off, n - off, 0, &bytes, &res, &used) < 0)
                return vs_import_refuse(im, "torchtune's \"%s\" needs a figure with its unit",
                                        stats[i].printed);
            /* the device's name before "peak" ("GPU", "NPU") stays in the text */
            while (p > line && p[-1] == ' ')
                p--;
            while (p > line && p[-1] != ' ' && p[-1] != '\t' && p[-1] != ':')
                p--;
        } else if ((p = vs_import_find(line, n, stats[i].key, 0)) != NULL) {
            /* "peak_memory_alloc:52.00" (a step, GiB) or "'peak_memory_alloc': 8.95"
             * (the dict of torchtune.utils, GB) */
            int dict = p > line && p[-1] == '\'';
            off = (size_t)(p - line) + strlen(stats[i].key);
            while (off < n && (line[off] == '\'' || line[off] == ':' || line[off] == ' '))
                off++;
            if (figure(line + off, n - off, dict ? GB : GIB, &bytes, &res, &used) < 0)
                return vs_import_refuse(im, "torchtune's %s needs a figure", stats[i].key);
            if (dict)
                p--;
        } else {
            continue;
        }
        if ((rc = vs_import_bytes(im, &at, stats[i].counter, stats[i].scope, bytes, res, p,
                                  (size_t)(line + off + used - p))) < 0)
            return rc;
    }
    return 0;
}

const vs_importer vs_import_torchtune = {
    "torchtune",
    "torchtune's memory statistics: \"Memory stats after model init:\" with \"GPU peak memory "
    "allocation / reserved / active: X GiB\" (torchtune/training/memory.py log_memory_stats; "
    "GB of 1e9 in the older torchtune/utils/memory.py), the dict form of "
    "torchtune.utils.memory_stats_log (GB), and the step lines' peak_memory_alloc, "
    "peak_memory_reserved, peak_memory_active (GiB)",
    0,
    torchtune_sniff,
    torchtune_line,
    NULL,
    NULL,
};
