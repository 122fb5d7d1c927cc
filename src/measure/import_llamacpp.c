/* import_llamacpp.c — llama.cpp's per-device buffer sizes and its memory
 * breakdown table.
 *
 * Buffers, in MiB with two decimals (ggml_backend_buffer_get_size / 1024.0 /
 * 1024.0): "load_tensors:        CUDA0 model buffer size =  4403.49 MiB",
 * "llama_kv_cache:      CUDA0 KV buffer size =   182.75 MiB", "llama_context:
 *      CUDA0 compute buffer size =   105.00 MiB"; older releases
 * "llm_load_tensors:      CUDA0 buffer size =  7317.71 MiB" (the weights),
 * "llama_kv_cache_init:      CUDA0 KV buffer size", "llama_new_context_with_model:
 *      CUDA0 compute buffer size". The table printed at exit
 * (llama_memory_breakdown_print in src/llama-context.cpp, later
 * common_memory_breakdown_print): "| - CUDA0 (RTX 5090) | 32606 = 1057 + (29365
 * = 28609 + 397 + 358) + 2183 |" (total = free + (self = model + context +
 * compute) + unaccounted, whole MiB) and "| - Host | 30956 = 30940 + 0 + 16 |".
 * The unaccounted column is not kept: it is derived, and a size_t wrap has
 * been printed there (17592186029324). A device named NAME<digits> (CUDA0,
 * ROCm1, Vulkan0, MTL0) is that GPU index, and so is a buffer kind of one
 * (MTL0_Mapped: the weights mmapped into the unified memory the GPU reads;
 * Metal, Metal_Mapped: Apple's one GPU, 0); others (CPU, CPU_Mapped,
 * CUDA_Host, Host) are kept with the device in the counter's name.
 *
 * A model with sliding-window layers keeps two caches (llama_kv_cache_iswa,
 * src/llama-kv-cache-iswa.cpp), each printing its own "KV buffer size" per
 * device: the KV buffers of one device are summed until the context's compute
 * buffers (or another load's model buffers) close it. A build with --fit
 * (common/fit.cpp) prints the breakdown table while it projects the memory at
 * start-up, between "fitting params to device memory" and "fitting params to
 * free memory took", and again at exit: the first is phase load, the second
 * exit.
 */
#include <stdio.h>
#include <string.h>

#include "measure/import.h"

#define MIB (1ull << 20)
#define KV_DEVICES 16

typedef struct lstate {
    int in_fit; /* inside the start-up --fit projection */
    size_t nkv; /* devices with a running KV sum */
    struct {
        char dev[64];
        uint64_t bytes, res;
    } kv[KV_DEVICES];
} lstate;

static int llamacpp_sniff(const char *line, size_t n)
{
    return vs_import_find(line, n, "buffer size =", 0) != NULL ||
           vs_import_find(line, n, "memory breakdown [MiB]", 0) != NULL ||
           vs_import_find(line, n, "llama_model_loader:", 0) != NULL ||
           vs_import_find(line, n, "llm_load_tensors:", 0) != NULL;
}

static int is_alpha(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}
static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* 1 and *gpu when a device name is a GPU's: letters (and '_' inside) then
 * digits only; 0 for others. name is name[0..n). */
static int device_gpu(const char *name, size_t n, unsigned *gpu)
{
    size_t i = 0;
    unsigned g = 0;
    while (i < n && is_alpha(name[i]))
        i++;
    if (i == 0 || i == n)
        return 0;
    for (; i < n; i++) {
        if (!is_digit(name[i]) || g > VS_IMPORT_GPU_MAX)
            return 0;
        g = g * 10 + (unsigned)(name[i] - '0');
    }
    if (g > VS_IMPORT_GPU_MAX)
        return 0;
    *gpu = g;
    return 1;
}

/* device_gpu, Metal's one GPU ("Metal", 0) and a GPU's buffer kinds
 * ("Metal_Mapped", "MTL0_Mapped", "MTL0_Private": the weights mmapped into the
 * unified memory the GPU reads, its private memory). CPU_Mapped, CUDA_Host
 * stay the host's: their stem names no GPU. */
static int device_index(const char *name, size_t n, unsigned *gpu)
{
    const char *us = memchr(name, '_', n);
    size_t stem = us ? (size_t)(us - name) : n;
    if (stem == 5 && !memcmp(name, "Metal", 5)) {
        *gpu = 0;
        return 1;
    }
    return device_gpu(name, stem, gpu);
}

/* The counter: "llamacpp.<what>" for a GPU, "llamacpp.<device>.<what>" for
 * another device (its name reduced to the characters of a counter name). */
static void counter_name(char *out, size_t cap, const char *dev, size_t dn, int is_gpu,
                         const char *what)
{
    char d[48];
    size_t i, o = 0;
    if (is_gpu) {
        snprintf(out, cap, "llamacpp.%s", what);
        return;
    }
    for (i = 0; i < dn && o + 1 < sizeof d; i++)
        d[o++] =
            is_alpha(dev[i]) || is_digit(dev[i]) || dev[i] == '_' || dev[i] == '-' ? dev[i] : '_';
    d[o] = '\0';
    snprintf(out, cap, "llamacpp.%s.%s", o ? d : "device", what);
}

/* "<prefix>: DEV [model|KV|compute|output|RS] buffer size = X MiB" */
static int buffer_line(vs_import *im, lstate *st, const char *line, size_t n, const char *bs)
{
    const char *p = bs, *word, *dev, *colon;
    size_t wn, dn, off, used = 0, u = 0;
    uint64_t bytes, res, mult;
    char counter[96], devname[64];
    const char *what;
    vs_import_at at = {.phase = "load"};
    /* the word before "buffer size" */
    while (p > line && p[-1] == ' ')
        p--;
    word = p;
    while (word > line && word[-1] != ' ' && word[-1] != '\t' && word[-1] != ':')
        word--;
    wn = (size_t)(p - word);
    if (wn == 0)
        return 0;
    if ((wn == 5 && !memcmp(word, "model", 5)))
        what = "model_buffer";
    else if (wn == 2 && !memcmp(word, "KV", 2))
        what = "kv_buffer";
    else if (wn == 7 && !memcmp(word, "compute", 7))
        what = "compute_buffer";
    else if (wn == 6 && !memcmp(word, "output", 6))
        what = "output_buffer";
    else if (wn == 2 && !memcmp(word, "RS", 2))
        what = "rs_buffer";
    else
        what = NULL; /* "llm_load_tensors: CUDA0 buffer size": the word is the device */
    if (what) {
        p = word;
        while (p > line && p[-1] == ' ')
            p--;
        dev = p;
        while (dev > line && dev[-1] != ' ' && dev[-1] != '\t' && dev[-1] != ':')
            dev--;
        dn = (size_t)(p - dev);
    } else {
        dev = word;
        dn = wn;
        what = "model_buffer";
    }
    colon = memchr(line, ':', (size_t)(dev - line));
    if (dn == 0 || dn >= sizeof devname || !colon)
        return 0;
    /* a "compute buffer" of the older context print names no kind word: the
     * function that printed it says which */
    if (!strcmp(what, "model_buffer") && dev == word &&
        (vs_import_find(line, (size_t)(colon - line), "kv_cache", 0)))
        what = "kv_buffer";
    memcpy(devname, dev, dn);
    devname[dn] = '\0';
    if (!vs_import_text_valid(devname))
        return vs_import_refuse(im, "a device name that is not printable text");
    at.gpu_known = device_index(dev, dn, &at.gpu);
    at.gpu_name = devname;
    off = (size_t)(bs - line) + strlen("buffer size =");
    while (off < n && line[off] == ' ')
        off++;
    {
        json_t *num = vs_import_number(line + off, n - off, 0, &used);
        size_t sp = 0;
        if (!num)
            return 0;
        json_decref(num);
        while (off + used + sp < n && line[off + used + sp] == ' ')
            sp++;
        mult = vs_import_unit(line + off + used + sp, n - off - used - sp, &u);
        if (!mult)
            return 0;
        if (vs_import_decimal(line + off, used, mult, 0, &bytes, &res, &used))
            return vs_import_refuse(im, "a buffer size beyond 2^63 bytes");
        used += sp + u;
    }
    counter_name(counter, sizeof counter, dev, dn, at.gpu_known, what);
    if (!strcmp(what, "kv_buffer")) {
        /* one context's caches on this device, summed */
        size_t i;
        for (i = 0; i < st->nkv && strcmp(st->kv[i].dev, devname); i++)
            ;
        if (i == st->nkv && i < KV_DEVICES) {
            snprintf(st->kv[i].dev, sizeof st->kv[i].dev, "%s", devname);
            st->kv[i].bytes = st->kv[i].res = 0;
            st->nkv++;
        }
        if (i < st->nkv) {
            if (st->kv[i].bytes > (uint64_t)INT64_MAX - bytes)
                return vs_import_refuse(im, "KV buffers beyond 2^63 bytes");
            st->kv[i].bytes += bytes;
            st->kv[i].res += res;
            bytes = st->kv[i].bytes;
            res = st->kv[i].res;
        }
    } else if (!strcmp(what, "compute_buffer") || !strcmp(what, "model_buffer")) {
        st->nkv = 0; /* the context's caches are all printed */
    }
    return vs_import_bytes(im, &at, counter, VS_SCOPE_REPORTED, bytes, res, dev,
                           (size_t)(line + off + used - dev));
}

/* Integers separated by '=', '+', '(' and ')' after the device cell, as the
 * table's rows print them. Returns how many (at most max). */
static size_t row_numbers(const char *s, size_t n, uint64_t *v, size_t max, int *overflow)
{
    size_t i = 0, k = 0;
    *overflow = 0;
    while (i < n && k < max) {
        if (is_digit(s[i])) {
            uint64_t x = 0;
            while (i < n && is_digit(s[i])) {
                if (x > (UINT64_MAX - 9) / 10)
                    *overflow = 1;
                else
                    x = x * 10 + (uint64_t)(s[i] - '0');
                i++;
            }
            v[k++] = x;
        } else if (s[i] == ' ' || s[i] == '=' || s[i] == '+' || s[i] == '(' || s[i] == ')' ||
                   (s[i] == '-' && i + 1 < n && is_digit(s[i + 1]))) {
            /* a negative unaccounted column (printed since the fit code) */
            i++;
        } else {
            break;
        }
    }
    return k;
}

/* "<prefix>: |   - CUDA0 (RTX 5090)   | 32606 = 1057 + (29365 = 28609 + 397 + 358) + 2183 |" */
static int breakdown_line(vs_import *im, const lstate *st, const char *line, size_t n,
                          const char *dash)
{
    static const char *const gpu_cols[] = {"total", "free", "self", "model", "context", "compute"};
    static const char *const host_cols[] = {"self", "model", "context", "compute"};
    const char *name = dash + 1, *bar, *nend;
    size_t dn, k, i, ncols;
    uint64_t v[8];
    int overflow;
    char devname[64], counter[96];
    const char *const *cols;
    vs_import_at at = {.phase = st->in_fit ? "load" : "exit"};
    while (name < line + n && *name == ' ')
        name++;
    nend = name;
    while (nend < line + n && *nend != ' ' && *nend != ':' && *nend != '|')
        nend++;
    dn = (size_t)(nend - name);
    if (dn == 0 || dn >= sizeof devname)
        return 0;
    memcpy(devname, name, dn);
    devname[dn] = '\0';
    if (!vs_import_text_valid(devname))
        return vs_import_refuse(im, "a device name that is not printable text");
    /* the numbers follow the device's description "(RTX 4090)" and a '|' (or,
     * in the first form of llama.cpp PR #15860, a ':') */
    bar = nend;
    while (bar < line + n && *bar == ' ')
        bar++;
    if (bar < line + n && *bar == '(') {
        const char *close = memchr(bar, ')', (size_t)(line + n - bar));
        if (!close)
            return 0;
        bar = close + 1;
    }
    while (bar < line + n && *bar == ' ')
        bar++;
    if (bar >= line + n || (*bar != '|' && *bar != ':'))
        return 0;
    k = row_numbers(bar + 1, (size_t)(line + n - bar - 1), v, 8, &overflow);
    if (k == 7) {
        cols = gpu_cols;
        ncols = 6;
    } else if (k == 4) {
        cols = host_cols;
        ncols = 4;
    } else {
        return 0;
    }
    for (i = 0; i < ncols; i++)
        if (v[i] > (uint64_t)INT64_MAX / MIB)
            return vs_import_refuse(im, "a breakdown figure of %llu MiB is beyond 2^63 bytes",
                                    (unsigned long long)v[i]);
    /* each figure is its byte count truncated to whole MiB: self is the sum
     * of its three parts, or up to 2 MiB more */
    if (k == 7 && (v[2] < v[3] + v[4] + v[5] || v[2] > v[3] + v[4] + v[5] + 2))
        return vs_import_refuse(im,
                                "the breakdown row does not add up (self %llu MiB, model + "
                                "context + compute %llu MiB)",
                                (unsigned long long)v[2], (unsigned long long)(v[3] + v[4] + v[5]));
    at.gpu_known = device_index(name, dn, &at.gpu);
    at.gpu_name = devname;
    for (i = 0; i < ncols; i++) {
        int rc;
        counter_name(counter, sizeof counter, name, dn, at.gpu_known, cols[i]);
        /* whole MiB: the resolution is half of one */
        if ((rc = vs_import_bytes(im, &at, counter,
                                  !strcmp(cols[i], "total") || !strcmp(cols[i], "free")
                                      ? VS_SCOPE_DEVICE
                                      : VS_SCOPE_REPORTED,
                                  v[i] * MIB, MIB / 2, dash, (size_t)(line + n - dash))) < 0)
            return rc;
    }
    return 0;
}

/* The build the log names, as the release tags spell it ("b6325"): common/common.cpp
 * common_init prints "build: %d (%s) with %s for %s" (LLAMA_BUILD_NUMBER,
 * LLAMA_COMMIT, ...); later builds "build_info: b8819-f15ea3ef8". 0, or a negative
 * code. */
static int build_line(vs_import *im, const char *line, size_t n)
{
    const char *p = vs_import_find(line, n, "build: ", 0), *e = line + n;
    char v[24];
    size_t k = 0;
    if (p) {
        p += 7;
    } else if ((p = vs_import_find(line, n, "build_info: b", 0)) != NULL) {
        p += 13;
    } else {
        return 0;
    }
    v[k++] = 'b';
    while (p < e && *p >= '0' && *p <= '9' && k < sizeof v - 1)
        v[k++] = *p++;
    /* the number is followed by its commit: " (hash)" or "-hash" */
    if (k == 1 || p >= e || (*p != ' ' && *p != '-'))
        return 0;
    v[k] = '\0';
    return vs_import_engine_version(im, v, k);
}

static int llamacpp_line(vs_import *im, void *state, const char *line, size_t n)
{
    const char *p;
    lstate *st = state;
    int rc;
    if ((rc = build_line(im, line, n)) < 0)
        return rc;
    /* common/common.cpp "fitting params to device memory ...", common/fit.cpp
     * "<fn>_params_fit_impl: ..." and, at the end, "fitting params to free memory
     * took X seconds" (llama_params_fit in the first releases) */
    if (vs_import_find(line, n, "fitting params to free memory took", 0))
        st->in_fit = 0;
    else if (vs_import_find(line, n, "fitting params to device memory", 0) ||
             vs_import_find(line, n, "params_fit_impl:", 0))
        st->in_fit = 1;
    if ((p = vs_import_find(line, n, "buffer size =", 0)) != NULL)
        return buffer_line(im, st, line, n, p);
    if ((p = vs_import_find(line, n, "memory_breakdown_print:", 0)) != NULL ||
        (p = vs_import_find(line, n, "print_memory_breakdown:", 0)) != NULL) {
        const char *q = p + 23;
        while (q < line + n && (*q == ' ' || *q == '|'))
            q++;
        if (q < line + n && *q == '-')
            return breakdown_line(im, st, line, n, q);
    }
    return 0;
}

const vs_importer vs_import_llamacpp = {
    "llamacpp",
    "llama.cpp's per-device buffer sizes in MiB (\"CUDA0 model buffer size\", \"KV buffer "
    "size\", \"compute buffer size\"; older \"llm_load_tensors: CUDA0 buffer size\", "
    "\"llama_kv_cache_init\", \"llama_new_context_with_model\") and the memory breakdown "
    "table printed at exit (llama_memory_breakdown_print, src/llama-context.cpp: total = free "
    "+ (self = model + context + compute) + unaccounted, in MiB; phase load while --fit "
    "projects it at start-up); the KV buffers of one device summed (a sliding-window model "
    "prints one per cache); Metal's mapped model buffer is GPU 0's",
    sizeof(lstate),
    llamacpp_sniff,
    llamacpp_line,
    NULL,
    NULL,
};
