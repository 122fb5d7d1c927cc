/* import_vllm.c — vLLM's start-up lines, as its releases print them.
 *
 * V0 (vllm/worker/worker.py, 0.6.x): one line "Memory profiling results:
 * total_gpu_memory=23.58GiB initial_memory_usage=... non_torch_memory=0.35GiB
 * kv_cache_size=3.81GiB gpu_memory_utilization=0.90", then (0.6.5, PR #10511) a
 * block of lines "total_gpu_memory 79.22GiB", "model weights take 14.96GiB",
 * "non_torch_memory 1.79GiB", "PyTorch activation peak memory 1.26GiB",
 * "available_kv_cache_memory 53.29GiB", then (0.7) the one-line form "model
 * weights take 14.96GiB; non_torch_memory takes 1.79GiB; PyTorch activation
 * peak memory takes 1.26GiB; the rest of the memory reserved for KV Cache is
 * 53.29GiB."; "# GPU blocks: N, # CPU blocks: M" (later "# CUDA blocks").
 * "Loading model weights took X GB" (vllm/worker/model_runner.py, 0.4-0.6:
 * logger.info("Loading model weights took %.4f GB", self.model_memory_usage /
 * float(2**30))) is a GiB figure labelled GB, and is read as GiB.
 * V1 (vllm/v1/worker/gpu_model_runner.py, gpu_worker.py,
 * vllm/v1/core/kv_cache_utils.py): "Model loading took 14.9889 GiB",
 * "Available KV cache memory: 19.37 GiB", "GPU KV cache size: 158,656 tokens",
 * "Maximum concurrency for 32,768 tokens per request: 4.84x". CUDA graphs:
 * "Graph capturing finished in 14 secs, took 0.21 GiB" (model_runner.py).
 * A worker's "(VllmWorker rank=N ...)" or "(Worker_TPN ...)" prefix gives the
 * rank. Every figure is a measurement of phase "startup", scope "reported".
 */
#include <string.h>

#include "measure/import.h"

enum { P_BYTES = 1, P_GB_IS_GIB, P_USABLE, P_GRAPH, P_COUNT, P_REAL, P_BEFORE, P_COMMA, P_NO_ROOM };

typedef struct phrase {
    const char *text;    /* as printed */
    const char *counter; /* the measurement's counter */
    int kind;
    const char *unit; /* counts */
    int ci;           /* ASCII case ignored ("# cuda blocks" in 0.8) */
} phrase;

static const phrase phrases[] = {
    {"Loading model weights took", "vllm.model_weights", P_GB_IS_GIB, NULL, 0},
    {"Model loading took", "vllm.model_weights", P_BYTES, NULL, 0},
    {"model weights take", "vllm.model_weights", P_BYTES, NULL, 0},
    {"non_torch_memory", "vllm.non_torch_memory", P_BYTES, NULL, 0},
    {"PyTorch activation peak memory", "vllm.activation_peak", P_BYTES, NULL, 0},
    {"the rest of the memory reserved for KV Cache is", "vllm.kv_cache_memory", P_BYTES, NULL, 0},
    {"available_kv_cache_memory", "vllm.kv_cache_memory", P_BYTES, NULL, 0},
    {"kv_cache_size", "vllm.kv_cache_memory", P_BYTES, NULL, 0},
    {"Available KV cache memory:", "vllm.kv_cache_memory", P_BYTES, NULL, 0},
    {"total_gpu_memory", "vllm.total_gpu_memory", P_BYTES, NULL, 0},
    {"initial_memory_usage", "vllm.initial_memory_usage", P_BYTES, NULL, 0},
    {"peak_torch_memory", "vllm.peak_torch_memory", P_BYTES, NULL, 0},
    {"memory_usage_post_profile", "vllm.memory_usage_post_profile", P_BYTES, NULL, 0},
    {"the current vLLM instance can use", "vllm.usable_memory", P_USABLE, NULL, 0},
    {"gpu_memory_utilization", "vllm.gpu_memory_utilization", P_REAL, "fraction", 0},
    {"Graph capturing finished in", "vllm.cuda_graph_memory", P_GRAPH, NULL, 0},
    {"CUDA graph takes", "vllm.cuda_graph_memory", P_BYTES, NULL, 0},
    {"Estimated CUDA graph memory:", "vllm.cuda_graph_memory_estimate", P_BYTES, NULL, 0},
    /* "Actual usage: 1.14 GiB for weights, 0.22 GiB for peak activation, 0.13
     * GiB for non-torch memory, 0.04 GiB for NPU graph memory": the figure
     * before its name */
    {"for weight", "vllm.model_weights", P_BEFORE, NULL, 0},
    {"for peak activation", "vllm.activation_peak", P_BEFORE, NULL, 0},
    {"for non-torch memory", "vllm.non_torch_memory", P_BEFORE, NULL, 0},
    {"for CUDAGraph memory", "vllm.cuda_graph_memory", P_BEFORE, NULL, 0},
    {"for NPU graph memory", "vllm.cuda_graph_memory", P_BEFORE, NULL, 0},
    /* 0.10 (vllm/v1/worker/gpu_worker.py, at DEBUG): "Initial free memory:
     * 43.82 GiB; Requested memory: 0.90 (util), 39.88 GiB", "Free memory after
     * profiling: 41.43 GiB (total), 37.49 GiB (within requested)", "Memory
     * profiling takes 7.26 seconds. Total non KV cache memory: 2.78GiB; torch
     * peak memory increase: 0.45GiB; non-torch forward increase memory:
     * 0.02GiB; weights memory: 2.32GiB." (PR #21429); 0.9's "Initial free
     * memory: ..., free memory: ..., requested GPU memory: ..." */
    {"Initial free memory:", "vllm.initial_free_memory", P_BYTES, NULL, 0},
    {"(util),", "vllm.requested_memory", P_BYTES, NULL, 0},
    {"requested GPU memory:", "vllm.requested_memory", P_BYTES, NULL, 0},
    {"Free memory after profiling:", "vllm.free_after_profiling", P_BYTES, NULL, 0},
    {"Total non KV cache memory:", "vllm.non_kv_cache_memory", P_BYTES, NULL, 0},
    {"torch peak memory increase:", "vllm.activation_peak", P_BYTES, NULL, 0},
    {"non-torch forward increase memory:", "vllm.non_torch_memory", P_BYTES, NULL, 0},
    {"weights memory:", "vllm.model_weights", P_BYTES, NULL, 0},
    /* 0.11+: "Free memory on device (4.95/6.0 GiB) on startup. Desired GPU
     * memory utilization is (0.79, 4.74 GiB). Actual usage is 2.1 GiB for
     * consumed memory (weights + non-torch), ... Current kv cache memory in
     * use is 2.41 GiB." and the exact --kv-cache-memory= bytes (read apart) */
    {"Desired GPU memory utilization is", "vllm.requested_memory", P_COMMA, NULL, 0},
    /* 0.9: "ValueError: Free memory on device (59.32/79.15 GiB) on startup is less
     * than desired GPU memory utilization (0.9, 71.24 GiB)." */
    {"less than desired GPU memory utilization", "vllm.requested_memory", P_COMMA, NULL, 0},
    {"for consumed memory", "vllm.non_kv_consumed_memory", P_BEFORE, NULL, 0},
    {"Current kv cache memory in use is", "vllm.kv_cache_memory", P_BYTES, NULL, 0},
    /* no room: vllm/v1/core/kv_cache_utils.py check_enough_kv_cache_memory
     * ("No available memory for the cache blocks.", "... KV cache is needed,
     * which is larger than the available KV cache memory (5.59 GiB)") */
    {"No available memory for the cache blocks", "vllm.no_kv_room", P_NO_ROOM, "failure", 0},
    {"KV cache is needed, which is larger than the available KV cache memory",
     "vllm.kv_cache_needed", P_BEFORE, NULL, 0},
    {"than the available KV cache memory", "vllm.kv_cache_memory", P_BYTES, NULL, 0},
    {"# GPU blocks:", "vllm.gpu_blocks", P_COUNT, "blocks", 1},
    {"# CUDA blocks:", "vllm.gpu_blocks", P_COUNT, "blocks", 1},
    {"GPU blocks:", "vllm.gpu_blocks", P_COUNT, "blocks", 1},
    {"CPU blocks:", "vllm.cpu_blocks", P_COUNT, "blocks", 1},
    {"GPU KV cache size:", "vllm.kv_cache_tokens", P_COUNT, "tokens", 0},
    {"Maximum concurrency for", "vllm.tokens_per_request", P_COUNT, "tokens", 0},
    {NULL, NULL, 0, NULL, 0},
};

#define NPHRASES (sizeof phrases / sizeof phrases[0] - 1)

/* Per file: which phrases may start at a byte, so that a line is scanned
 * once, not once per phrase (a 100,000-line log in well under 200 ms). */
typedef struct vllm_state {
    int ready;
    unsigned char count[256];
    unsigned char which[256][8];
} vllm_state;

static void add_start(vllm_state *st, unsigned char c, size_t i)
{
    if (st->count[c] < sizeof st->which[c])
        st->which[c][st->count[c]++] = (unsigned char)i;
}

static void prepare(vllm_state *st)
{
    size_t i;
    for (i = 0; i < NPHRASES; i++) {
        unsigned char c = (unsigned char)phrases[i].text[0];
        add_start(st, c, i);
        if (phrases[i].ci && c >= 'A' && c <= 'Z')
            add_start(st, (unsigned char)(c - 'A' + 'a'), i);
        else if (phrases[i].ci && c >= 'a' && c <= 'z')
            add_start(st, (unsigned char)(c - 'a' + 'A'), i);
    }
    st->ready = 1;
}

static int match_at(const char *s, size_t n, const phrase *ph)
{
    size_t l = strlen(ph->text), j;
    if (l > n)
        return 0;
    if (!ph->ci)
        return !memcmp(s, ph->text, l);
    for (j = 0; j < l; j++) {
        char a = s[j], b = ph->text[j];
        if (a >= 'A' && a <= 'Z')
            a = (char)(a - 'A' + 'a');
        if (b >= 'A' && b <= 'Z')
            b = (char)(b - 'A' + 'a');
        if (a != b)
            return 0;
    }
    return 1;
}

static int vllm_sniff(const char *line, size_t n)
{
    static const char *const marks[] = {"Memory profiling results",
                                        "Model loading took",
                                        "Loading model weights took",
                                        "GPU KV cache size:",
                                        "Maximum concurrency for",
                                        "# GPU blocks:",
                                        "# CUDA blocks:",
                                        "Available KV cache memory:",
                                        "vLLM",
                                        "LLM engine (v",
                                        NULL};
    size_t i;
    for (i = 0; marks[i]; i++)
        if (vs_import_find(line, n, marks[i], 0))
            return 1;
    return 0;
}

/* Skips what stands between a name and its figure: blanks, '=', ':', '(' and
 * the words take, takes, took, is. */
static size_t skip_to_figure(const char *s, size_t n)
{
    static const char *const words[] = {"takes ", "take ", "took ", "is ", NULL};
    size_t i = 0, k;
    for (;;) {
        while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '=' || s[i] == ':' || s[i] == '('))
            i++;
        for (k = 0; words[k]; k++) {
            size_t l = strlen(words[k]);
            if (n - i >= l && !memcmp(s + i, words[k], l)) {
                i += l;
                break;
            }
        }
        if (!words[k])
            return i;
    }
}

/* Digits at s that do not make a figure the record can hold (more than 18
 * significant digits, beyond 2^63): refused rather than left out. */
static size_t digits_at(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == ','))
        i++;
    return i && s[0] >= '0' && s[0] <= '9' ? i : 0;
}

static int out_of_range(vs_import *im, const char *what, const char *s, size_t n)
{
    size_t k = digits_at(s, n);
    return vs_import_refuse(im,
                            "%s: the figure %.*s is out of range (beyond 2^63 bytes, or "
                            "more than 18 significant digits)",
                            what, (int)(k > 40 ? 40 : k), s);
}

/* A byte figure with its unit at s: 0; -1 when none; -2 when there is one
 * that is out of range. gb_is_gib reads "GB" as GiB (the figure was divided
 * by 2^30). */
static int figure(const char *s, size_t n, int gb_is_gib, uint64_t *bytes, uint64_t *res,
                  size_t *used)
{
    uint64_t mult, b = 0, r = 0;
    size_t k = 0, u = 0, sp = 0;
    /* the number first: its digits are re-read once the unit is known */
    json_t *num = vs_import_number(s, n, 0, &k);
    if (!num)
        return digits_at(s, n) ? -2 : -1;
    json_decref(num);
    while (k + sp < n && s[k + sp] == ' ')
        sp++;
    mult = vs_import_unit(s + k + sp, n - k - sp, &u);
    if (!mult)
        return -1;
    if (gb_is_gib && u == 2 && !memcmp(s + k + sp, "GB", 2))
        mult = 1ull << 30;
    if (vs_import_decimal(s, k, mult, 0, &b, &r, &k))
        return -2;
    *bytes = b;
    *res = r;
    *used = k + sp + u;
    return 0;
}

#define RANK_MAX 2147483647u /* torch.distributed's ranks are int32 */

/* 1 and *rank when the line opens with a worker's "(VllmWorker rank=1
 * pid=...)" or "(Worker_TP1 pid=...)" prefix, 0 when it does not, -1 when its
 * rank is out of range (read whole: never cut to fewer digits). */
static int rank_of(const char *line, size_t n, unsigned *rank)
{
    const char *p;
    size_t lim = n < 64 ? n : 64;
    if (lim == 0 || line[0] != '(')
        return 0;
    if ((p = vs_import_find(line, lim, "rank=", 0)) != NULL)
        p += 5;
    else if ((p = vs_import_find(line, lim, "Worker_TP", 0)) != NULL)
        p += 9;
    else
        return 0;
    if (p < line + n && *p >= '0' && *p <= '9') {
        uint64_t r = 0;
        while (p < line + n && *p >= '0' && *p <= '9') {
            r = r * 10 + (unsigned)(*p++ - '0');
            if (r > RANK_MAX)
                return -1;
        }
        *rank = (unsigned)r;
        return 1;
    }
    return 0;
}

/* Where "KV cache is needed, ..." was found (the engine refused: no room). */
static const char *found_needed(const char *const *found)
{
    size_t i;
    for (i = 0; phrases[i].text; i++)
        if (!strcmp(phrases[i].counter, "vllm.kv_cache_needed"))
            return found[i];
    return NULL;
}

/* vLLM 0.11+ (vllm/v1/worker/gpu_worker.py): "Replace gpu_memory_utilization
 * config with `--kv-cache-memory=2358995846` (2.2 GiB) to fit into requested
 * memory, or `--kv-cache-memory=2590736384` (2.41 GiB) to fully utilize gpu
 * memory.": the pool's exact bytes, within the budget and at the device's
 * limit (resolution 0). */
static int exact_suggestions(vs_import *im, const vs_import_at *at, const char *line, size_t n)
{
    static const char key[] = "--kv-cache-memory=";
    const char *p = line, *end = line + n;
    int rc;
    if (!vs_import_find(line, n, "Replace gpu_memory_utilization", 0))
        return 0;
    while ((p = vs_import_find(p, (size_t)(end - p), key, 0)) != NULL) {
        const char *q = p + sizeof key - 1, *close;
        size_t used = 0;
        const char *counter;
        json_t *v = vs_import_number(q, (size_t)(end - q), 0, &used);
        if (!v && digits_at(q, (size_t)(end - q)))
            return out_of_range(im, key, q, (size_t)(end - q));
        if (!v || !json_is_integer(v)) {
            json_decref(v);
            p = q;
            continue;
        }
        close = memchr(q + used, ')', (size_t)(end - q - used));
        counter = !close ? NULL
                  : vs_import_find(close, (size_t)(end - close) < 16 ? (size_t)(end - close) : 16,
                                   "to fit", 0)
                      ? "vllm.kv_cache_memory_in_budget"
                  : vs_import_find(close, (size_t)(end - close) < 16 ? (size_t)(end - close) : 16,
                                   "to fully", 0)
                      ? "vllm.kv_cache_memory_at_limit"
                      : NULL;
        if (counter && (rc = vs_import_bytes(im, at, counter, VS_SCOPE_REPORTED,
                                             (uint64_t)json_integer_value(v), 0, p,
                                             (size_t)(q + used - p))) < 0) {
            json_decref(v);
            return rc;
        }
        json_decref(v);
        p = q + used;
    }
    return 0;
}

/* The release, from the lines that print it: "vLLM API server version 0.8.1"
 * (vllm/entrypoints/openai/api_server.py run_server), "Initializing a V1 LLM engine
 * (v0.9.2) with config" (vllm/v1/engine/core.py; V0 vllm/engine/llm_engine.py) and
 * the start-up banner's "version 0.19.0" (vllm/entrypoints/utils.py, drawn in
 * U+2588 blocks). */
static int version_line(vs_import *im, const char *line, size_t n)
{
    static const char *const marks[] = {"vLLM API server version ", "LLM engine (v", NULL};
    const char *p;
    size_t k;
    for (k = 0; marks[k]; k++)
        if ((p = vs_import_find(line, n, marks[k], 0)) != NULL) {
            p += strlen(marks[k]);
            return vs_import_engine_version(im, p, (size_t)(line + n - p));
        }
    if (vs_import_find(line, n, "\xe2\x96\x88", 0) &&
        (p = vs_import_find(line, n, " version ", 0)) != NULL) {
        p += strlen(" version ");
        return vs_import_engine_version(im, p, (size_t)(line + n - p));
    }
    return 0;
}

static int vllm_line(vs_import *im, void *state, const char *line, size_t n)
{
    vs_import_at at = {.phase = "startup"};
    vllm_state *st = state;
    const char *found[NPHRASES];
    size_t i, any = 0;
    int rc, blocks_seen = 0;
    if (!st->ready)
        prepare(st);
    if ((rc = version_line(im, line, n)) < 0)
        return rc;
    /* one pass: the first place each phrase starts */
    memset(found, 0, sizeof found);
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)line[i];
        unsigned k;
        for (k = 0; k < st->count[c]; k++) {
            size_t j = st->which[c][k];
            if (!found[j] && match_at(line + i, n - i, &phrases[j])) {
                found[j] = line + i;
                any++;
            }
        }
    }
    if (!any)
        return 0;
    if ((rc = rank_of(line, n, &at.rank)) < 0)
        return vs_import_refuse(im, "the worker's rank is out of range (at most %u)", RANK_MAX);
    at.rank_known = rc;
    for (i = 0; phrases[i].text; i++) {
        const phrase *ph = &phrases[i];
        const char *p = found[i], *end = line + n;
        size_t off, used = 0;
        uint64_t bytes = 0, res = 0;
        if (!p)
            continue;
        if (ph->kind == P_COUNT && !strcmp(ph->unit, "blocks")) {
            /* "# GPU blocks:" also matches "GPU blocks:": one of them only */
            if (!strcmp(ph->counter, "vllm.gpu_blocks") && blocks_seen)
                continue;
            if (!strcmp(ph->counter, "vllm.gpu_blocks"))
                blocks_seen = 1;
        }
        off = (size_t)(p - line) + strlen(ph->text);
        switch (ph->kind) {
        case P_NO_ROOM:
            rc = vs_import_count(im, &at, ph->counter, json_integer(1), ph->unit, p,
                                 strlen(ph->text));
            break;
        case P_COMMA: {
            /* "is (0.79, 4.74 GiB)": the figure after the comma */
            const char *c = memchr(line + off, ',', n - off);
            size_t o2;
            if (!c || c - (line + off) > 32)
                continue;
            o2 = (size_t)(c + 1 - line);
            o2 += skip_to_figure(line + o2, n - o2);
            if ((rc = figure(line + o2, n - o2, 0, &bytes, &res, &used)) == -2)
                return out_of_range(im, ph->text, line + o2, n - o2);
            if (rc < 0)
                continue;
            rc = vs_import_bytes(im, &at, ph->counter, VS_SCOPE_REPORTED, bytes, res, p,
                                 (size_t)(line + o2 + used - p));
            break;
        }
        case P_BYTES:
        case P_GB_IS_GIB:
            off += skip_to_figure(line + off, n - off);
            if (off + 1 < n && line[off] == '-' && !strcmp(ph->counter, "vllm.kv_cache_memory")) {
                /* "Available KV cache memory: -2.14 GiB": what the pool lacks;
                 * the engine found no room */
                if ((rc = figure(line + off + 1, n - off - 1, 0, &bytes, &res, &used)) == -2)
                    return out_of_range(im, ph->text, line + off + 1, n - off - 1);
                if (rc < 0)
                    continue;
                if ((rc = vs_import_bytes(im, &at, "vllm.kv_cache_shortfall", VS_SCOPE_REPORTED,
                                          bytes, res, p, (size_t)(line + off + 1 + used - p))) < 0)
                    return rc;
                rc = vs_import_count(im, &at, "vllm.no_kv_room", json_integer(1), "failure", p,
                                     (size_t)(line + off + 1 + used - p));
                break;
            }
            if ((rc = figure(line + off, n - off, ph->kind == P_GB_IS_GIB, &bytes, &res, &used)) ==
                -2)
                return out_of_range(im, ph->text, line + off, n - off);
            if (rc < 0)
                continue;
            rc = vs_import_bytes(im, &at, ph->counter, VS_SCOPE_REPORTED, bytes, res, p,
                                 (size_t)(line + off + used - p));
            break;
        case P_USABLE: {
            size_t o2 = off + skip_to_figure(line + off, n - off);
            if ((rc = figure(line + o2, n - o2, 0, &bytes, &res, &used)) == -2)
                return out_of_range(im, ph->text, line + o2, n - o2);
            if (rc < 0) {
                /* "can use total_gpu_memory (79.22GiB) x ... = 71.29GiB" */
                const char *eq = NULL, *q;
                for (q = line + off; q < end; q++)
                    if (*q == '=')
                        eq = q;
                if (!eq)
                    continue;
                o2 = (size_t)(eq + 1 - line);
                o2 += skip_to_figure(line + o2, n - o2);
                if ((rc = figure(line + o2, n - o2, 0, &bytes, &res, &used)) == -2)
                    return out_of_range(im, ph->text, line + o2, n - o2);
                if (rc < 0)
                    continue;
            }
            rc = vs_import_bytes(im, &at, ph->counter, VS_SCOPE_REPORTED, bytes, res, p,
                                 (size_t)(line + o2 + used - p));
            break;
        }
        case P_BEFORE: {
            /* back over the unit and the number: "0.22 GiB" */
            const char *q = p, *num;
            size_t u = 0;
            while (q > line && q[-1] == ' ')
                q--;
            while (q > line && ((q[-1] >= 'A' && q[-1] <= 'Z') || (q[-1] >= 'a' && q[-1] <= 'z')))
                q--;
            num = q;
            while (num > line && num[-1] == ' ')
                num--;
            while (num > line && ((num[-1] >= '0' && num[-1] <= '9') || num[-1] == '.'))
                num--;
            if (num == q || !vs_import_unit(q, (size_t)(p - q), &u))
                continue;
            if ((rc = figure(num, (size_t)(p - num), 0, &bytes, &res, &used)) == -2)
                return out_of_range(im, ph->text, num, (size_t)(p - num));
            if (rc < 0)
                continue;
            rc = vs_import_bytes(im, &at, ph->counter, VS_SCOPE_REPORTED, bytes, res, num,
                                 (size_t)(p + strlen(ph->text) - num));
            break;
        }
        case P_GRAPH: {
            const char *t = vs_import_find(line + off, n - off, "took", 0);
            size_t o2;
            if (!t)
                continue;
            o2 = (size_t)(t - line) + 4;
            o2 += skip_to_figure(line + o2, n - o2);
            if ((rc = figure(line + o2, n - o2, 0, &bytes, &res, &used)) == -2)
                return out_of_range(im, ph->text, line + o2, n - o2);
            if (rc < 0)
                continue;
            rc = vs_import_bytes(im, &at, ph->counter, VS_SCOPE_REPORTED, bytes, res, p,
                                 (size_t)(line + o2 + used - p));
            break;
        }
        case P_REAL:
        case P_COUNT: {
            json_t *v;
            off += skip_to_figure(line + off, n - off);
            v = vs_import_number(line + off, n - off, ph->kind == P_COUNT, &used);
            if (!v && digits_at(line + off, n - off))
                return out_of_range(im, ph->text, line + off, n - off);
            if (!v)
                continue;
            if (ph->kind == P_COUNT && !json_is_integer(v)) {
                json_decref(v);
                continue;
            }
            if (!strcmp(ph->counter, "vllm.tokens_per_request")) {
                /* "Maximum concurrency for 32,768 tokens per request: 4.84x" */
                const char *q = vs_import_find(line + off, n - off, "per request:", 0);
                size_t o2, u2 = 0;
                json_t *x;
                if (!q) {
                    json_decref(v);
                    continue;
                }
                o2 = (size_t)(q - line) + 12;
                o2 += skip_to_figure(line + o2, n - o2);
                x = vs_import_number(line + o2, n - o2, 1, &u2);
                if (!x && digits_at(line + o2, n - o2)) {
                    json_decref(v);
                    return out_of_range(im, "Maximum concurrency", line + o2, n - o2);
                }
                if (!x || o2 + u2 >= n || line[o2 + u2] != 'x') {
                    json_decref(x);
                    json_decref(v);
                    continue;
                }
                if ((rc = vs_import_count(im, &at, ph->counter, v, ph->unit, p,
                                          (size_t)(line + o2 + u2 + 1 - p))) < 0)
                    return rc;
                rc = vs_import_count(im, &at, "vllm.max_concurrency", x, "x", p,
                                     (size_t)(line + o2 + u2 + 1 - p));
                break;
            }
            if (ph->unit && !strcmp(ph->unit, "tokens")) /* "158,656 tokens" */
                while (off + used < n && line[off + used] == ' ')
                    used++;
            if (ph->unit && !strcmp(ph->unit, "tokens") && n - off - used >= 6 &&
                !memcmp(line + off + used, "tokens", 6))
                used += 6;
            rc = vs_import_count(im, &at, ph->counter, v, ph->unit, p,
                                 (size_t)(line + off + used - p));
            break;
        }
        default:
            continue;
        }
        if (rc < 0)
            return rc;
    }
    if (found_needed(found) &&
        (rc = vs_import_count(im, &at, "vllm.no_kv_room", json_integer(1), "failure",
                              found_needed(found), strlen(found_needed(found)))) < 0)
        return rc;
    return exact_suggestions(im, &at, line, n);
}

const vs_importer vs_import_vllm = {
    "vllm",
    "vLLM's start-up lines: V0 \"Memory profiling results\" (one line, or the block of "
    "0.6.5), \"model weights take ...; non_torch_memory takes ...; PyTorch activation peak "
    "memory takes ...; the rest of the memory reserved for KV Cache is ...\", \"# GPU blocks\" "
    "/ \"# CUDA blocks\"; \"Loading model weights took X GB\" read as GiB (vllm/worker/"
    "model_runner.py, 0.4-0.6, divides by 2**30 and prints GB); V1 \"Model loading took X "
    "GiB\", \"Available KV cache memory\", \"GPU KV cache size: N tokens\", \"Maximum "
    "concurrency for N tokens per request: X.XXx\" (vllm/v1/core/kv_cache_utils.py), \"Actual "
    "usage: X GiB for weights, Y GiB for peak activation, Z GiB for non-torch memory, ...\"; "
    "CUDA graphs \"Graph capturing finished in S secs, took X GiB\", \"Estimated CUDA graph "
    "memory: X GiB total\"; the release from \"vLLM API server version X\", \"LLM engine "
    "(vX)\" or the banner's \"version X\"",
    sizeof(vllm_state),
    vllm_sniff,
    vllm_line,
    NULL,
    NULL,
};
