/* import_sglang.c — SGLang's start-up lines, as its model runner prints them.
 *
 * python/sglang/srt/model_executor/model_runner.py (v0.4 to v0.5):
 * "Load weight begin. avail mem=137.29 GB" (the free memory before loading:
 * what SGLang sizes its static fraction against, its "total"), "Load weight
 * end. type=..., avail mem=80.84 GB, mem usage=94.50 GB." (the weights),
 * "Memory pool end. avail mem=1.68 GB", "Capture cuda graph end. Time
 * elapsed: 8.04 s. mem usage=0.80 GB." (also "elapsed=... s, mem usage=...");
 * python/sglang/srt/mem_cache/memory_pool.py: "KV Cache is allocated.
 * #tokens: 367404, K size: 8.23 GB, V size: 8.23 GB" (MLA: "KV size: X GB");
 * python/sglang/srt/managers/scheduler.py: "max_total_num_tokens=N,
 * chunked_prefill_size=..., max_prefill_tokens=..., max_running_requests=R,
 * context_len=C, available_gpu_mem=X GB"; the server_args line's
 * "mem_fraction_static=0.851". Its "GB" is GiB: get_available_gpu_memory
 * (python/sglang/srt/utils.py) returns free bytes / (1 << 30) and
 * memory_pool.py's GB is 1024 ** 3. A "[... TP3]" prefix gives the rank.
 * "leave no GPU memory for the KV cache" / "Not enough memory" is kept as a
 * failure (counter sglang.no_kv_room): the engine found no room. */
#include <string.h>

#include "measure/import.h"

#define RANK_MAX 2147483647u

/* The rank of "[2025-03-06 06:14:53 TP2]" or "[... DP0 TP0 EP0]": 1 and
 * *rank, 0 when the line has no such prefix, -1 when it is out of range. */
static int rank_of(const char *line, size_t n, unsigned *rank)
{
    const char *close, *p;
    size_t lim;
    if (n == 0 || line[0] != '[' || !(close = memchr(line, ']', n < 80 ? n : 80)))
        return 0;
    lim = (size_t)(close - line);
    for (p = line + 1; p + 2 < line + lim; p++) {
        uint64_t r = 0;
        const char *q = p + 2;
        if (p[0] != 'T' || p[1] != 'P' || (p[-1] != ' ' && p[-1] != '[') || *q < '0' || *q > '9')
            continue;
        while (q < close && *q >= '0' && *q <= '9')
            if ((r = r * 10 + (unsigned)(*q++ - '0')) > RANK_MAX)
                return -1;
        if (q != close && *q != ' ')
            continue;
        *rank = (unsigned)r;
        return 1;
    }
    return 0;
}

/* The figure after key in line, as bytes: 0 (added, or not there), or a
 * refusal when its digits are out of range. */
static int bytes_after(vs_import *im, const vs_import_at *at, const char *line, size_t n,
                       const char *key, const char *counter)
{
    const char *p = vs_import_find(line, n, key, 0);
    size_t off, used = 0;
    uint64_t b = 0, r = 0;
    int rc;
    if (!p)
        return 0;
    off = (size_t)(p - line) + strlen(key);
    if ((rc = vs_import_figure(line + off, n - off, 1, &b, &r, &used)) < 0)
        return vs_import_refuse(im, "%s: the figure is out of range (beyond 2^63 bytes)", key);
    if (rc > 0)
        return 0;
    return vs_import_bytes(im, at, counter, VS_SCOPE_REPORTED, b, r, p,
                           (size_t)(line + off + used - p));
}

/* The number after key (a count, or a fraction when real is set). */
static int count_after(vs_import *im, const vs_import_at *at, const char *line, size_t n,
                       const char *key, const char *counter, const char *unit, int real)
{
    const char *p = vs_import_find(line, n, key, 0);
    size_t off, used = 0;
    json_t *v;
    if (!p)
        return 0;
    off = (size_t)(p - line) + strlen(key);
    while (off < n && (line[off] == ' ' || line[off] == '=' || line[off] == ':'))
        off++;
    if (!(v = vs_import_number(line + off, n - off, 0, &used))) {
        if (off < n && line[off] >= '0' && line[off] <= '9')
            return vs_import_refuse(im, "%s: the figure is out of range", key);
        return 0;
    }
    if (!real && !json_is_integer(v)) {
        json_decref(v);
        return 0;
    }
    return vs_import_count(im, at, counter, v, unit, p, (size_t)(line + off + used - p));
}

/* "K size: 8.23 GB, V size: 8.23 GB": the pool is their sum. */
static int kv_sizes(vs_import *im, const vs_import_at *at, const char *line, size_t n)
{
    const char *k = vs_import_find(line, n, "K size:", 0);
    const char *v = vs_import_find(line, n, "V size:", 0);
    uint64_t kb = 0, kr = 0, vb = 0, vr = 0;
    size_t ku = 0, vu = 0, ko, vo;
    int a, b;
    if (!k || !v)
        return bytes_after(im, at, line, n, "KV size:", "sglang.kv_cache_memory");
    ko = (size_t)(k - line) + 7;
    vo = (size_t)(v - line) + 7;
    a = vs_import_figure(line + ko, n - ko, 1, &kb, &kr, &ku);
    b = vs_import_figure(line + vo, n - vo, 1, &vb, &vr, &vu);
    if (a < 0 || b < 0 || (a == 0 && b == 0 && kb > (uint64_t)INT64_MAX - vb))
        return vs_import_refuse(im, "KV Cache is allocated: a size is out of range");
    if (a || b)
        return 0;
    {
        /* the text from the first size to the end of the last (either order) */
        const char *from = k < v ? k : v, *ke = line + ko + ku, *ve = line + vo + vu;
        const char *to = ke > ve ? ke : ve;
        return vs_import_bytes(im, at, "sglang.kv_cache_memory", VS_SCOPE_REPORTED, kb + vb,
                               kr + vr, from, (size_t)(to - from));
    }
}

static int sglang_sniff(const char *line, size_t n)
{
    static const char *const marks[] = {"Load weight begin. avail mem=",
                                        "Load weight end.",
                                        "KV Cache is allocated.",
                                        "Memory pool end. avail mem=",
                                        "max_total_num_tokens=",
                                        "sglang.launch_server",
                                        NULL};
    size_t i;
    for (i = 0; marks[i]; i++)
        if (vs_import_find(line, n, marks[i], 0))
            return 1;
    return 0;
}

static int sglang_line(vs_import *im, void *state, const char *line, size_t n)
{
    vs_import_at at = {.phase = "startup"};
    int rc;
    (void)state;
    if ((rc = rank_of(line, n, &at.rank)) < 0)
        return vs_import_refuse(im, "the rank is out of range (at most %u)", RANK_MAX);
    at.rank_known = rc;
    if (vs_import_find(line, n, "Load weight begin.", 0))
        return bytes_after(im, &at, line, n, "avail mem", "sglang.free_before_load");
    if (vs_import_find(line, n, "Load weight end.", 0)) {
        if ((rc = bytes_after(im, &at, line, n, "mem usage", "sglang.model_weights")) < 0)
            return rc;
        return bytes_after(im, &at, line, n, "avail mem", "sglang.free_after_load");
    }
    if (vs_import_find(line, n, "KV Cache is allocated.", 0)) {
        if ((rc = kv_sizes(im, &at, line, n)) < 0)
            return rc;
        return count_after(im, &at, line, n, "#tokens", "sglang.kv_cache_tokens", "tokens", 0);
    }
    if (vs_import_find(line, n, "Memory pool end.", 0))
        return bytes_after(im, &at, line, n, "avail mem", "sglang.free_after_pool");
    if (vs_import_find(line, n, "Capture cuda graph end.", 1) ||
        (vs_import_find(line, n, "Capture ", 0) && vs_import_find(line, n, "graph end.", 0)))
        return bytes_after(im, &at, line, n, "mem usage", "sglang.cuda_graph_memory");
    if (vs_import_find(line, n, "max_total_num_tokens=", 0)) {
        if ((rc = count_after(im, &at, line, n, "max_total_num_tokens",
                              "sglang.max_total_num_tokens", "tokens", 0)) < 0 ||
            (rc = count_after(im, &at, line, n, "max_running_requests",
                              "sglang.max_running_requests", "requests", 0)) < 0 ||
            (rc = count_after(im, &at, line, n, "context_len", "sglang.context_len", "tokens", 0)) <
                0)
            return rc;
        return bytes_after(im, &at, line, n, "available_gpu_mem", "sglang.available_gpu_mem");
    }
    if (vs_import_find(line, n, "mem_fraction_static=", 0) &&
        vs_import_find(line, n, "ServerArgs(", 0))
        return count_after(im, &at, line, n, "mem_fraction_static", "sglang.mem_fraction_static",
                           "fraction", 1);
    if (vs_import_find(line, n, "leave no GPU memory for the KV cache", 0) ||
        vs_import_find(line, n, "Not enough memory. Please try to increase --mem-fraction-static",
                       0)) {
        const char *p = vs_import_find(line, n, "Loaded weights", 0);
        if (!p)
            p = vs_import_find(line, n, "Not enough memory", 0);
        if (!p)
            p = line;
        return vs_import_count(im, &at, "sglang.no_kv_room", json_integer(1), "failure", p,
                               (size_t)(line + n - p));
    }
    return 0;
}

const vs_importer vs_import_sglang = {
    "sglang",
    "SGLang's start-up lines (python/sglang/srt/model_executor/model_runner.py, "
    "mem_cache/memory_pool.py, managers/scheduler.py, v0.4-v0.5): \"Load weight begin. avail "
    "mem=X GB\" (the free memory before loading), \"Load weight end. ... mem usage=X GB\", \"KV "
    "Cache is allocated. #tokens: N, K size: X GB, V size: Y GB\" (or \"KV size\"), \"Memory "
    "pool end. avail mem=X GB\", \"Capture cuda graph end. ... mem usage=X GB\", "
    "\"max_total_num_tokens=N, ..., max_running_requests=R, context_len=C, "
    "available_gpu_mem=X GB\", mem_fraction_static from server_args; GB read as GiB (SGLang "
    "divides by 2^30); \"leave no GPU memory for the KV cache\" kept as a failure "
    "(sglang.no_kv_room)",
    0,
    sglang_sniff,
    sglang_line,
    NULL,
    NULL,
};
