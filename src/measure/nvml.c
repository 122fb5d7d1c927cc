#include "measure/nvml.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The few NVML types and codes used here, declared after NVIDIA's nvml.h so
 * that no header of the driver is needed to build. */
typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct {
    unsigned long long total, free, used;
} nvmlMemory_t;
typedef struct {
    unsigned int version;
    unsigned long long total, reserved, free, used;
} nvmlMemory_v2_t;
#define NVML_MEMORY_V2_VERSION ((unsigned int)(sizeof(nvmlMemory_v2_t) | (2u << 24)))

enum {
    NVML_SUCCESS = 0,
    NVML_ERROR_UNINITIALIZED = 1,
    NVML_ERROR_INVALID_ARGUMENT = 2,
    NVML_ERROR_NOT_SUPPORTED = 3,
    NVML_ERROR_NO_PERMISSION = 4,
    NVML_ERROR_INSUFFICIENT_SIZE = 7,
    NVML_ERROR_DRIVER_NOT_LOADED = 9,
    NVML_ERROR_FUNCTION_NOT_FOUND = 13,
    NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
};
#define NVML_VALUE_NOT_AVAILABLE_ULL (~0ULL)

/* Process entries: pid at offset 0 and usedGpuMemory at offset 8 in every
 * layout; the entry size is 16 (plain), 24 (_v2, _v3) or 32 (some drivers' _v3,
 * with usedGpuCcProtectedMemory), probed on the first non-empty answer. */
#define PROC_MAX_STRIDE 32
#define PROC_SENTINEL 0xA5

typedef nvmlReturn_t (*fn_void)(void);
typedef nvmlReturn_t (*fn_count)(unsigned int *);
typedef nvmlReturn_t (*fn_handle)(unsigned int, nvmlDevice_t *);
typedef nvmlReturn_t (*fn_dev_str)(nvmlDevice_t, char *, unsigned int);
typedef nvmlReturn_t (*fn_sys_str)(char *, unsigned int);
typedef nvmlReturn_t (*fn_mem)(nvmlDevice_t, nvmlMemory_t *);
typedef nvmlReturn_t (*fn_mem2)(nvmlDevice_t, nvmlMemory_v2_t *);
typedef nvmlReturn_t (*fn_procs)(nvmlDevice_t, unsigned int *, void *);
typedef const char *(*fn_errstr)(nvmlReturn_t);

typedef int (*cu_init_fn)(unsigned int);
typedef int (*cu_count_fn)(int *);
typedef int (*cu_get_fn)(int *, int);
typedef int (*cu_total_fn)(size_t *, int);
typedef int (*cu_uuid_fn)(unsigned char *, int);

struct vs_nvml {
    void *lib;
    char path[512];
    struct {
        fn_void init, shutdown;
        fn_count count;
        fn_handle handle;
        fn_dev_str name, uuid;
        fn_sys_str driver, version;
        fn_mem mem;
        fn_mem2 mem2;
        fn_procs procs[3]; /* _v3, _v2, plain */
        fn_errstr errstr;
    } f;
    int inited;
    int use_mem2;
    int proc_version; /* index into f.procs of the one in use; -1 none */
    int proc_unsupported;
    size_t proc_stride; /* 0 until probed */
    unsigned char *proc_raw;
    size_t proc_raw_cap; /* entries */
    vs_nvml_proc *procs;
    unsigned ngpus;
    nvmlDevice_t *handles;
    vs_nvml_gpu *gpus;
    char driver[96];
    char nvml_version[96];
    char mem_api[8];
    char proc_api[32];
};

static const char *errstr(const vs_nvml *n, nvmlReturn_t r)
{
    const char *s = n->f.errstr ? n->f.errstr(r) : NULL;
    return s ? s : "unknown NVML error";
}

static void *sym(void *lib, const char *name)
{
    return dlsym(lib, name);
}

static void *sym2(void *lib, const char *a, const char *b)
{
    void *p = dlsym(lib, a);
    return p ? p : dlsym(lib, b);
}

static void uuid_text(char *out, size_t outlen, const unsigned char *u)
{
    snprintf(out, outlen,
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
             u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
             u[15]);
}

int vs_nvml_index_of_uuid(const vs_nvml *n, const char *uuid, unsigned *index)
{
    unsigned i;
    if (!uuid || !*uuid)
        return 0;
    if (!strncasecmp(uuid, "GPU-", 4))
        uuid += 4;
    for (i = 0; i < n->ngpus; i++) {
        const char *u = n->gpus[i].uuid;
        if (!strncasecmp(u, "GPU-", 4))
            u += 4;
        if (*u && !strcasecmp(u, uuid)) {
            *index = i;
            return 1;
        }
    }
    return 0;
}

/* A byte count a record can hold: below 2^63 (records are JSON integers read as
 * int64). NVML answers 2^64 - 1 (NVML_VALUE_NOT_AVAILABLE_ULL) for what it does
 * not know, and a broken driver may answer anything: such a value is unknown,
 * never wrapped to a negative number. */
static int in_range(uint64_t v)
{
    return v <= (uint64_t)INT64_MAX;
}

/* CUDA's own total per GPU, matched to NVML's GPUs by UUID. cuInit creates no
 * context and takes no device memory; the library stays loaded because
 * unloading an initialised CUDA driver is not safe. Any failure leaves the
 * totals unknown. */
static void cuda_totals(vs_nvml *n)
{
    const char *lib = getenv("VRAMSHEET_CUDA_LIBRARY");
    void *h;
    cu_init_fn init;
    cu_count_fn count;
    cu_get_fn get;
    cu_total_fn total;
    cu_uuid_fn uuid;
    int c = 0, i;
    if (lib && (!*lib || !strcmp(lib, "none")))
        return;
    if (!lib) {
        /* A fake NVML means fake GPUs: the machine's CUDA would not match them. */
        if (getenv("VRAMSHEET_NVML_LIBRARY"))
            return;
        lib = "libcuda.so.1";
    }
    h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return;
    init = (cu_init_fn)sym(h, "cuInit");
    count = (cu_count_fn)sym(h, "cuDeviceGetCount");
    get = (cu_get_fn)sym(h, "cuDeviceGet");
    total = (cu_total_fn)sym2(h, "cuDeviceTotalMem_v2", "cuDeviceTotalMem");
    uuid = (cu_uuid_fn)sym2(h, "cuDeviceGetUuid_v2", "cuDeviceGetUuid");
    if (!init || !count || !get || !total || !uuid || init(0) != 0 || count(&c) != 0)
        return;
    for (i = 0; i < c && i < 1024; i++) {
        int dev;
        size_t bytes = 0;
        unsigned char u[16];
        char text[64];
        unsigned idx;
        if (get(&dev, i) != 0 || total(&bytes, dev) != 0 || uuid(u, dev) != 0)
            continue;
        uuid_text(text, sizeof text, u);
        if (vs_nvml_index_of_uuid(n, text, &idx)) {
            n->gpus[idx].cuda_total_known = bytes > 0 && in_range((uint64_t)bytes);
            n->gpus[idx].cuda_total_bytes = n->gpus[idx].cuda_total_known ? (uint64_t)bytes : 0;
        }
    }
}

static int query_memory(vs_nvml *n, unsigned i, uint64_t *used, uint64_t *total, nvmlReturn_t *rc)
{
    if (n->use_mem2) {
        nvmlMemory_v2_t m;
        memset(&m, 0, sizeof m);
        m.version = NVML_MEMORY_V2_VERSION;
        *rc = n->f.mem2(n->handles[i], &m);
        if (*rc == NVML_SUCCESS) {
            *used = m.used;
            *total = m.total;
            return 0;
        }
        return -1;
    }
    {
        nvmlMemory_t m;
        memset(&m, 0, sizeof m);
        *rc = n->f.mem(n->handles[i], &m);
        if (*rc == NVML_SUCCESS) {
            *used = m.used;
            *total = m.total;
            return 0;
        }
    }
    return -1;
}

int vs_nvml_open(vs_nvml **out, vs_error *err)
{
    const char *path = getenv("VRAMSHEET_NVML_LIBRARY");
    vs_nvml *n;
    nvmlReturn_t r;
    unsigned i;
    int rc = VS_EMEASURE;
    *out = NULL;
    if (!path || !*path)
        path = "libnvidia-ml.so.1";
    n = calloc(1, sizeof *n);
    if (!n)
        return vs_error_set(err, VS_ENOMEM, "out of memory");
    snprintf(n->path, sizeof n->path, "%s", path);
    n->proc_version = -1;
    n->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!n->lib) {
        const char *why = dlerror();
        vs_error_set(err, VS_EMEASURE,
                     "no NVIDIA driver: cannot load %s (%s); measuring needs an NVIDIA GPU and "
                     "its driver (VRAMSHEET_NVML_LIBRARY names another NVML library); nothing "
                     "was run or recorded",
                     path, why ? why : "not found");
        goto done;
    }
    n->f.init = (fn_void)sym2(n->lib, "nvmlInit_v2", "nvmlInit");
    n->f.shutdown = (fn_void)sym(n->lib, "nvmlShutdown");
    n->f.count = (fn_count)sym2(n->lib, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount");
    n->f.handle =
        (fn_handle)sym2(n->lib, "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex");
    n->f.name = (fn_dev_str)sym(n->lib, "nvmlDeviceGetName");
    n->f.uuid = (fn_dev_str)sym(n->lib, "nvmlDeviceGetUUID");
    n->f.driver = (fn_sys_str)sym(n->lib, "nvmlSystemGetDriverVersion");
    n->f.version = (fn_sys_str)sym(n->lib, "nvmlSystemGetNVMLVersion");
    n->f.mem = (fn_mem)sym(n->lib, "nvmlDeviceGetMemoryInfo");
    n->f.mem2 = (fn_mem2)sym(n->lib, "nvmlDeviceGetMemoryInfo_v2");
    n->f.procs[0] = (fn_procs)sym(n->lib, "nvmlDeviceGetComputeRunningProcesses_v3");
    n->f.procs[1] = (fn_procs)sym(n->lib, "nvmlDeviceGetComputeRunningProcesses_v2");
    n->f.procs[2] = (fn_procs)sym(n->lib, "nvmlDeviceGetComputeRunningProcesses");
    n->f.errstr = (fn_errstr)sym(n->lib, "nvmlErrorString");
    if (!n->f.init || !n->f.count || !n->f.handle || (!n->f.mem && !n->f.mem2)) {
        vs_error_set(err, VS_EMEASURE,
                     "%s is not a usable NVML library (it lacks nvmlInit, nvmlDeviceGetCount, "
                     "nvmlDeviceGetHandleByIndex or nvmlDeviceGetMemoryInfo); nothing was run or "
                     "recorded",
                     path);
        goto done;
    }
    r = n->f.init();
    if (r != NVML_SUCCESS) {
        vs_error_set(err, VS_EMEASURE,
                     "no NVIDIA driver: NVML could not start (%s, code %d); nothing was run or "
                     "recorded",
                     errstr(n, r), r);
        goto done;
    }
    n->inited = 1;
    r = n->f.count(&n->ngpus);
    if (r != NVML_SUCCESS || n->ngpus == 0) {
        vs_error_set(err, VS_EMEASURE, "NVML found no GPU (%s); nothing was run or recorded",
                     r != NVML_SUCCESS ? errstr(n, r) : "0 devices");
        n->ngpus = 0;
        goto done;
    }
    if (n->ngpus > 1024)
        n->ngpus = 1024;
    n->handles = calloc(n->ngpus, sizeof *n->handles);
    n->gpus = calloc(n->ngpus, sizeof *n->gpus);
    if (!n->handles || !n->gpus) {
        rc = vs_error_set(err, VS_ENOMEM, "out of memory");
        goto done;
    }
    if (n->f.driver && n->f.driver(n->driver, sizeof n->driver) != NVML_SUCCESS)
        n->driver[0] = '\0';
    if (n->f.version && n->f.version(n->nvml_version, sizeof n->nvml_version) != NVML_SUCCESS)
        n->nvml_version[0] = '\0';
    n->driver[sizeof n->driver - 1] = '\0';
    n->nvml_version[sizeof n->nvml_version - 1] = '\0';
    for (i = 0; i < n->ngpus; i++) {
        r = n->f.handle(i, &n->handles[i]);
        if (r != NVML_SUCCESS) {
            vs_error_set(err, VS_EMEASURE, "NVML cannot open GPU %u (%s); nothing was run", i,
                         errstr(n, r));
            goto done;
        }
        n->gpus[i].index = i;
        if (!n->f.name ||
            n->f.name(n->handles[i], n->gpus[i].name, VS_NVML_NAME_MAX) != NVML_SUCCESS)
            snprintf(n->gpus[i].name, VS_NVML_NAME_MAX, "GPU %u", i);
        n->gpus[i].name[VS_NVML_NAME_MAX - 1] = '\0';
        if (!n->f.uuid ||
            n->f.uuid(n->handles[i], n->gpus[i].uuid, VS_NVML_NAME_MAX) != NVML_SUCCESS)
            n->gpus[i].uuid[0] = '\0';
        n->gpus[i].uuid[VS_NVML_NAME_MAX - 1] = '\0';
    }
    /* Pick the memory struct once: _v2 where it answers, the plain one else. */
    {
        uint64_t used, total;
        n->use_mem2 = n->f.mem2 != NULL;
        if (n->use_mem2 && query_memory(n, 0, &used, &total, &r) < 0)
            n->use_mem2 = 0;
        if (!n->use_mem2 && !n->f.mem) {
            vs_error_set(err, VS_EMEASURE, "NVML cannot read GPU 0's memory (%s)", errstr(n, r));
            goto done;
        }
        snprintf(n->mem_api, sizeof n->mem_api, "%s", n->use_mem2 ? "v2" : "v1");
        for (i = 0; i < n->ngpus; i++) {
            if (query_memory(n, i, &used, &total, &r) < 0) {
                vs_error_set(err, VS_EMEASURE, "NVML cannot read GPU %u's memory (%s)", i,
                             errstr(n, r));
                goto done;
            }
            n->gpus[i].total_known = total > 0 && in_range(total);
            n->gpus[i].total_bytes = n->gpus[i].total_known ? total : 0;
        }
    }
    for (i = 0; i < 3; i++) {
        if (n->f.procs[i]) {
            n->proc_version = (int)i;
            break;
        }
    }
    snprintf(n->proc_api, sizeof n->proc_api, "%s",
             n->proc_version < 0    ? "none"
             : n->proc_version == 0 ? "v3"
             : n->proc_version == 1 ? "v2"
                                    : "v1");
    cuda_totals(n);
    *out = n;
    n = NULL;
    rc = 0;
done:
    vs_nvml_free(n);
    return rc;
}

void vs_nvml_free(vs_nvml *n)
{
    if (!n)
        return;
    if (n->lib) {
        if (n->inited && n->f.shutdown)
            n->f.shutdown();
        dlclose(n->lib);
    }
    free(n->handles);
    free(n->gpus);
    free(n->proc_raw);
    free(n->procs);
    free(n);
}

unsigned vs_nvml_count(const vs_nvml *n)
{
    return n->ngpus;
}

const vs_nvml_gpu *vs_nvml_gpu_at(const vs_nvml *n, unsigned i)
{
    return i < n->ngpus ? &n->gpus[i] : NULL;
}

const char *vs_nvml_driver_version(const vs_nvml *n)
{
    return n->driver;
}
const char *vs_nvml_version(const vs_nvml *n)
{
    return n->nvml_version;
}
const char *vs_nvml_library(const vs_nvml *n)
{
    return n->path;
}
const char *vs_nvml_memory_api(const vs_nvml *n)
{
    return n->mem_api;
}
const char *vs_nvml_process_api(const vs_nvml *n)
{
    return n->proc_api;
}

int vs_nvml_memory(vs_nvml *n, unsigned i, uint64_t *used, uint64_t *total, vs_error *err)
{
    nvmlReturn_t r = 0;
    uint64_t t = 0;
    if (i >= n->ngpus)
        return vs_error_set(err, VS_EMEASURE, "no GPU %u", i);
    if (query_memory(n, i, used, &t, &r) < 0)
        return vs_error_set(err, VS_EMEASURE, "NVML cannot read GPU %u's memory (%s)", i,
                            errstr(n, r));
    if (!in_range(*used)) {
        uint64_t bad = *used;
        *used = 0;
        return vs_error_set(err, VS_EMEASURE,
                            "NVML reported %llu bytes used on GPU %u: out of range (2^63 or "
                            "more), not a reading",
                            (unsigned long long)bad, i);
    }
    if (total)
        *total = in_range(t) ? t : 0;
    return 0;
}

static int grow_raw(vs_nvml *n, size_t entries)
{
    unsigned char *raw;
    vs_nvml_proc *procs;
    if (entries <= n->proc_raw_cap)
        return 0;
    raw = realloc(n->proc_raw, entries * PROC_MAX_STRIDE);
    if (!raw)
        return -1;
    n->proc_raw = raw;
    procs = realloc(n->procs, entries * sizeof *procs);
    if (!procs)
        return -1;
    n->procs = procs;
    n->proc_raw_cap = entries;
    return 0;
}

/* The entry size the driver wrote: the region past count entries of each
 * smaller candidate size must still hold the sentinel. */
static size_t probe_stride(const unsigned char *raw, size_t count, size_t min_stride)
{
    static const size_t cand[] = {16, 24, 32};
    size_t c, b;
    for (c = 0; c < 3; c++) {
        size_t s = cand[c];
        int untouched = 1;
        if (s < min_stride)
            continue;
        for (b = count * s; b < count * PROC_MAX_STRIDE; b++) {
            if (raw[b] != PROC_SENTINEL) {
                untouched = 0;
                break;
            }
        }
        if (untouched)
            return s;
    }
    return PROC_MAX_STRIDE;
}

int vs_nvml_processes(vs_nvml *n, unsigned i, const vs_nvml_proc **procs, size_t *count,
                      int *available, vs_error *err)
{
    int attempt;
    *procs = NULL;
    *count = 0;
    *available = 0;
    if (i >= n->ngpus)
        return vs_error_set(err, VS_EMEASURE, "no GPU %u", i);
    if (n->proc_unsupported || n->proc_version < 0)
        return 0;
    if (grow_raw(n, 16) < 0)
        return vs_error_set(err, VS_ENOMEM, "out of memory");
    for (attempt = 0; attempt < 8; attempt++) {
        unsigned int c = (unsigned int)n->proc_raw_cap;
        nvmlReturn_t r;
        size_t k, stride;
        memset(n->proc_raw, PROC_SENTINEL, n->proc_raw_cap * PROC_MAX_STRIDE);
        r = n->f.procs[n->proc_version](n->handles[i], &c, n->proc_raw);
        if (r == NVML_ERROR_INSUFFICIENT_SIZE) {
            if (grow_raw(n, (size_t)c + 8) < 0)
                return vs_error_set(err, VS_ENOMEM, "out of memory");
            continue;
        }
        if (r == NVML_ERROR_FUNCTION_NOT_FOUND || r == NVML_ERROR_ARGUMENT_VERSION_MISMATCH) {
            /* An entry point that exists but does not answer: try the older one. */
            int v = n->proc_version + 1;
            while (v < 3 && !n->f.procs[v])
                v++;
            if (v >= 3) {
                n->proc_unsupported = 1;
                snprintf(n->proc_api, sizeof n->proc_api, "none");
                return 0;
            }
            n->proc_version = v;
            n->proc_stride = 0;
            snprintf(n->proc_api, sizeof n->proc_api, "%s", v == 1 ? "v2" : "v1");
            continue;
        }
        if (r == NVML_ERROR_NOT_SUPPORTED || r == NVML_ERROR_NO_PERMISSION) {
            n->proc_unsupported = 1;
            return 0;
        }
        if (r != NVML_SUCCESS)
            return vs_error_set(err, VS_EMEASURE, "NVML cannot list GPU %u's processes (%s)", i,
                                errstr(n, r));
        if (c > n->proc_raw_cap)
            c = (unsigned int)n->proc_raw_cap;
        if (c > 0 && n->proc_stride == 0) {
            n->proc_stride = probe_stride(n->proc_raw, c, n->proc_version == 2 ? 16 : 24);
            snprintf(n->proc_api, sizeof n->proc_api, "%s/%u",
                     n->proc_version == 0   ? "v3"
                     : n->proc_version == 1 ? "v2"
                                            : "v1",
                     (unsigned)n->proc_stride);
        }
        stride = n->proc_stride ? n->proc_stride : 24;
        for (k = 0; k < c; k++) {
            const unsigned char *e = n->proc_raw + k * stride;
            unsigned int pid;
            unsigned long long used;
            memcpy(&pid, e, sizeof pid);
            memcpy(&used, e + 8, sizeof used);
            n->procs[k].pid = pid;
            n->procs[k].used_bytes = in_range(used) ? used : UINT64_MAX; /* not available */
        }
        *procs = n->procs;
        *count = c;
        *available = 1;
        return 0;
    }
    return vs_error_set(err, VS_EMEASURE, "NVML's process list of GPU %u kept growing", i);
}
