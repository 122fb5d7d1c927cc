/* import_trtllm.c — TensorRT-LLM's start-up lines, as its runtime prints them.
 *
 * cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp: "Number of blocks in KV
 * cache primary pool: N", "Number of tokens per block: T.", "[MemUsageChange]
 * Allocated 16.10 GiB for max tokens in paged KV cache (301472)." (the pool:
 * bytes / 2^30 and its tokens); the older runtime (0.5 to 0.8): "Allocate
 * 69524783104 bytes for k/v cache." (exact bytes) and "Using 132608 tokens in
 * paged KV cache."; "Memory usage when calculating max tokens in paged kv
 * cache: total: 79.10 GiB, available: 70.48 GiB"; trtGptModelInflightBatching.cpp:
 * "Allocated 2.66 GB GPU memory for runtime buffers.", "... for decoder." (its
 * MemoryCounters::bytesToString divides by 1024 and prints KB, MB, GB: read
 * as powers of 1024); "Allocated 773.51 MiB for execution context memory.",
 * "Loaded engine size: 875 MiB"; the PyTorch backend (tensorrt_llm/_torch/
 * pyexecutor/_util.py): "Memory used after loading model weights (inside
 * torch) in memory usage profiling: X GiB", "fraction is set 0.9" and a
 * "free_gpu_memory_fraction=0.9" in its configuration. A worker's "[RANK]"
 * is not printed in these lines: ranks stay unknown. */
#include <string.h>

#include "measure/import.h"

typedef struct phrase {
    const char *text;    /* as printed */
    const char *counter; /* the measurement's counter */
    int count;           /* 0 bytes; 1 a count with unit; 2 a fraction */
    const char *unit;
    int before; /* the figure stands before the text, after "Allocated" */
} phrase;

static const phrase phrases[] = {
    {"for max tokens in paged KV cache", "trtllm.kv_cache_memory", 0, NULL, 1},
    {"Allocate ", "trtllm.kv_cache_memory", 0, NULL, 0}, /* "Allocate N bytes for k/v cache." */
    {"Using ", "trtllm.kv_cache_tokens", 1, "tokens", 0},
    {"Number of blocks in KV cache primary pool:", "trtllm.kv_cache_blocks", 1, "blocks", 0},
    {"Number of tokens per block:", "trtllm.tokens_per_block", 1, "tokens", 0},
    {"GPU memory for runtime buffers", "trtllm.runtime_buffers", 0, NULL, 1},
    {"GPU memory for decoder", "trtllm.decoder", 0, NULL, 1},
    {"for execution context memory", "trtllm.execution_context", 0, NULL, 1},
    {"Loaded engine size:", "trtllm.model_weights", 0, NULL, 0},
    {"Memory used after loading model weights (inside torch) in memory usage profiling:",
     "trtllm.model_weights", 0, NULL, 0},
    {"fraction is set", "trtllm.free_gpu_memory_fraction", 2, "fraction", 0},
    {"free_gpu_memory_fraction=", "trtllm.free_gpu_memory_fraction", 2, "fraction", 0},
    {NULL, NULL, 0, NULL, 0},
};

static int trtllm_sniff(const char *line, size_t n)
{
    return vs_import_find(line, n, "[TensorRT-LLM]", 0) != NULL ||
           vs_import_find(line, n, "[TRT-LLM]", 0) != NULL;
}

/* "Allocated 2.66 GB GPU memory for ...": the figure after "Allocated". */
static int allocated_before(vs_import *im, const char *line, size_t n, const char *at_phrase,
                            const phrase *ph, const vs_import_at *at)
{
    const char *a = vs_import_find(line, (size_t)(at_phrase - line), "Allocated", 0);
    size_t off, used = 0;
    uint64_t b = 0, r = 0;
    int rc;
    if (!a)
        return 0;
    off = (size_t)(a - line) + 9;
    if ((rc = vs_import_figure(line + off, n - off, 1, &b, &r, &used)) < 0)
        return vs_import_refuse(im, "%s: the figure is out of range", ph->text);
    if (rc > 0 || line + off + used > at_phrase)
        return 0;
    return vs_import_bytes(im, at, ph->counter, VS_SCOPE_REPORTED, b, r, a,
                           (size_t)(at_phrase + strlen(ph->text) - a));
}

static int one(vs_import *im, const char *line, size_t n, const phrase *ph, const char *p,
               const vs_import_at *at)
{
    size_t off = (size_t)(p - line) + strlen(ph->text), used = 0;
    uint64_t b = 0, r = 0;
    json_t *v;
    int rc;
    if (!strcmp(ph->text, "Allocate ")) {
        /* "Allocate 69524783104 bytes for k/v cache.": exact */
        const char *tail = vs_import_find(line + off, n - off, " bytes for k/v cache", 0);
        if (!tail)
            return 0;
        if (!(v = vs_import_number(line + off, (size_t)(tail - line) - off, 0, &used)) ||
            !json_is_integer(v) || line + off + used != tail) {
            json_decref(v);
            return vs_import_refuse(im, "Allocate N bytes for k/v cache: N is not a byte count "
                                        "the record can hold");
        }
        b = (uint64_t)json_integer_value(v);
        json_decref(v);
        return vs_import_bytes(im, at, ph->counter, VS_SCOPE_REPORTED, b, 0, p,
                               (size_t)(tail + 20 - p));
    }
    if (!strcmp(ph->text, "Using ") &&
        !vs_import_find(line + off, n - off, "tokens in paged KV cache", 0))
        return 0;
    if (!strcmp(ph->counter, "trtllm.kv_cache_memory")) {
        /* "Allocated 16.10 GiB for max tokens in paged KV cache (301472)." */
        const char *paren = memchr(line + off, '(', n - off);
        if ((rc = allocated_before(im, line, n, p, ph, at)) < 0)
            return rc;
        if (!paren)
            return 0;
        off = (size_t)(paren - line) + 1;
        if (!(v = vs_import_number(line + off, n - off, 0, &used)))
            return 0;
        if (!json_is_integer(v)) {
            json_decref(v);
            return 0;
        }
        return vs_import_count(im, at, "trtllm.kv_cache_tokens", v, "tokens", p,
                               (size_t)(line + off + used + 1 - p));
    }
    if (ph->before)
        return allocated_before(im, line, n, p, ph, at);
    while (off < n && (line[off] == ' ' || line[off] == '=' || line[off] == ':'))
        off++;
    if (!ph->count) {
        if ((rc = vs_import_figure(line + off, n - off, 1, &b, &r, &used)) < 0)
            return vs_import_refuse(im, "%s: the figure is out of range", ph->text);
        if (rc > 0)
            return 0;
        return vs_import_bytes(im, at, ph->counter, VS_SCOPE_REPORTED, b, r, p,
                               (size_t)(line + off + used - p));
    }
    if (!(v = vs_import_number(line + off, n - off, 0, &used))) {
        if (off < n && line[off] >= '0' && line[off] <= '9')
            return vs_import_refuse(im, "%s: the figure is out of range", ph->text);
        return 0;
    }
    if (ph->count == 1 && !json_is_integer(v)) {
        json_decref(v);
        return 0;
    }
    return vs_import_count(im, at, ph->counter, v, ph->unit, p, (size_t)(line + off + used - p));
}

static int trtllm_line(vs_import *im, void *state, const char *line, size_t n)
{
    vs_import_at at = {.phase = "startup"};
    size_t i;
    int rc;
    static const char vmark[] = "TensorRT-LLM version: ";
    const char *v = vs_import_find(line, n, vmark, 0);
    (void)state;
    /* the release: tensorrt_llm/__init__.py prints "[TensorRT-LLM] TensorRT-LLM
     * version: X" when the package is imported */
    if (v && (rc = vs_import_engine_version(im, v + sizeof vmark - 1,
                                            (size_t)(line + n - v) - (sizeof vmark - 1))) < 0)
        return rc;
    for (i = 0; phrases[i].text; i++) {
        const char *p = vs_import_find(line, n, phrases[i].text, 0);
        if (p && (rc = one(im, line, n, &phrases[i], p, &at)) < 0)
            return rc;
    }
    return 0;
}

const vs_importer vs_import_trtllm = {
    "trtllm",
    "TensorRT-LLM's start-up lines (cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp, "
    "trtGptModelInflightBatching.cpp, tensorrt_llm/_torch/pyexecutor/_util.py): \"Allocated X "
    "GiB for max tokens in paged KV cache (N)\", \"Allocate N bytes for k/v cache\" (exact), "
    "\"Using N tokens in paged KV cache\", \"Number of blocks in KV cache primary pool: N\", "
    "\"Allocated X GB GPU memory for runtime buffers\" / \"for decoder\" (KB, MB, GB as powers "
    "of 1024: MemoryCounters::bytesToString), \"Allocated X MiB for execution context "
    "memory\", \"Loaded engine size: X MiB\", the PyTorch backend's weights line and "
    "free_gpu_memory_fraction; the release from \"TensorRT-LLM version: X\"",
    0,
    trtllm_sniff,
    trtllm_line,
    NULL,
    NULL,
};
