/* fake_nvml.c — a stand-in for libnvidia-ml.so.1 (and the few libcuda calls
 * vramsheet makes) that plays a scripted memory curve, for tests on machines
 * with no GPU. Point VRAMSHEET_NVML_LIBRARY (and VRAMSHEET_CUDA_LIBRARY) at it.
 *
 * FAKE_NVML_SCRIPT names a script, one directive a line ('#' comments):
 *   gpu I name="NVIDIA H200" total=BYTES [used=BYTES] [uuid=GPU-...]
 *   driver TEXT | nvml TEXT            versions reported
 *   memory v1|v2                       v1: nvmlDeviceGetMemoryInfo_v2 answers FUNCTION_NOT_FOUND
 *   processes v3|v2|v1|notsupported|nopermission   which process query answers
 *   procstride 24|32                   the _v3 entry size written (32: the newer driver layout)
 *   init fail                          nvmlInit answers DRIVER_NOT_LOADED
 *   cudagap BYTES                      CUDA's total = NVML's total - BYTES (default 453 MiB)
 *   at MS gpu I used BYTES             the curve: from MS ms after nvmlInit, used is BYTES
 *   proc PID gpu I mem BYTES           a process entry (PID 0 = the caller's own pid)
 *   state PATH                         a state file (also FAKE_NVML_STATE) re-read on change
 * A state file, written by the measured command itself, holds
 *   gpu I used BYTES                   overrides the curve while present
 *   proc PID gpu I mem BYTES
 * so that a command can drive memory phase by phase. Built twice: the full
 * library, and with FAKE_NVML_MINIMAL the oldest API only (no _v2/_v3 symbols).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAXG 16
#define MAXP 64
#define MAXAT 4096

typedef struct {
    char name[96], uuid[96];
    unsigned long long total, used;
} gpu_t;
typedef struct {
    unsigned pid, gpu;
    unsigned long long mem;
} proc_t;
typedef struct {
    long ms;
    unsigned gpu;
    unsigned long long used;
} at_t;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int inited, init_fail, mem_v1, proc_mode = 3, proc_stride = 24;
static unsigned ngpus;
static gpu_t gpus[MAXG];
static proc_t procs[MAXP];
static unsigned nprocs;
static at_t ats[MAXAT];
static unsigned nats;
static char driver[96] = "550.54.15", nvml_ver[96] = "12.550.54.15", state_path[512];
static unsigned long long cudagap = 453ULL << 20;
static struct timespec t0;
/* state file */
static time_t st_mtime_s;
static long st_mtime_ns;
static off_t st_size = -1;
static int st_has_used[MAXG];
static unsigned long long st_used[MAXG];
static proc_t st_procs[MAXP];
static unsigned st_nprocs;

static const char *value_of(const char *line, const char *key, char *out, size_t outlen)
{
    const char *p = strstr(line, key);
    size_t n = 0;
    if (!p)
        return NULL;
    p += strlen(key);
    if (*p == '"') {
        p++;
        while (*p && *p != '"' && n + 1 < outlen)
            out[n++] = *p++;
    } else {
        while (*p && *p != ' ' && *p != '\n' && n + 1 < outlen)
            out[n++] = *p++;
    }
    out[n] = '\0';
    return out;
}

static void load_script(void)
{
    const char *path = getenv("FAKE_NVML_SCRIPT");
    const char *st = getenv("FAKE_NVML_STATE");
    char line[1024], v[256];
    FILE *f;
    unsigned i;
    if (st)
        snprintf(state_path, sizeof state_path, "%s", st);
    if (!path || !(f = fopen(path, "r"))) {
        ngpus = 1;
        snprintf(gpus[0].name, sizeof gpus[0].name, "Fake GPU");
        gpus[0].total = 80ULL << 30;
        return;
    }
    while (fgets(line, sizeof line, f)) {
        unsigned g, pid;
        long ms;
        unsigned long long b;
        if (line[0] == '#')
            continue;
        if (sscanf(line, "gpu %u", &i) == 1 && i < MAXG) {
            if (i + 1 > ngpus)
                ngpus = i + 1;
            if (value_of(line, "name=", v, sizeof v))
                snprintf(gpus[i].name, sizeof gpus[i].name, "%.95s", v);
            if (value_of(line, "uuid=", v, sizeof v))
                snprintf(gpus[i].uuid, sizeof gpus[i].uuid, "%.95s", v);
            if (value_of(line, "total=", v, sizeof v))
                gpus[i].total = strtoull(v, NULL, 10);
            if (value_of(line, "used=", v, sizeof v))
                gpus[i].used = strtoull(v, NULL, 10);
        } else if (sscanf(line, "driver %95s", v) == 1) {
            snprintf(driver, sizeof driver, "%.95s", v);
        } else if (sscanf(line, "nvml %95s", v) == 1) {
            snprintf(nvml_ver, sizeof nvml_ver, "%.95s", v);
        } else if (sscanf(line, "memory %15s", v) == 1) {
            mem_v1 = !strcmp(v, "v1");
        } else if (sscanf(line, "processes %31s", v) == 1) {
            proc_mode = !strcmp(v, "v3")             ? 3
                        : !strcmp(v, "v2")           ? 2
                        : !strcmp(v, "v1")           ? 1
                        : !strcmp(v, "nopermission") ? -4
                                                     : -3;
        } else if (sscanf(line, "procstride %u", &i) == 1) {
            proc_stride = i == 32 ? 32 : 24;
        } else if (!strncmp(line, "init fail", 9)) {
            init_fail = 1;
        } else if (sscanf(line, "cudagap %llu", &b) == 1) {
            cudagap = b;
        } else if (sscanf(line, "at %ld gpu %u used %llu", &ms, &g, &b) == 3 && nats < MAXAT) {
            ats[nats].ms = ms;
            ats[nats].gpu = g;
            ats[nats].used = b;
            nats++;
        } else if (sscanf(line, "proc %u gpu %u mem %llu", &pid, &g, &b) == 3 && nprocs < MAXP) {
            procs[nprocs].pid = pid ? pid : (unsigned)getpid();
            procs[nprocs].gpu = g;
            procs[nprocs].mem = b;
            nprocs++;
        } else if (sscanf(line, "state %511s", v) == 1) {
            snprintf(state_path, sizeof state_path, "%.95s", v);
        }
    }
    fclose(f);
    if (ngpus == 0)
        ngpus = 1;
    for (i = 0; i < ngpus; i++) {
        if (!gpus[i].name[0])
            snprintf(gpus[i].name, sizeof gpus[i].name, "Fake GPU %u", i);
        if (!gpus[i].total)
            gpus[i].total = 80ULL << 30;
        if (!gpus[i].uuid[0])
            snprintf(gpus[i].uuid, sizeof gpus[i].uuid, "GPU-%08x-0000-4000-8000-%012x",
                     0xfa4e0000u + i, i);
    }
}

/* Called with mu held. */
static void refresh_state(void)
{
    struct stat sb;
    FILE *f;
    char line[256];
    if (!state_path[0])
        return;
    if (stat(state_path, &sb) < 0) {
        memset(st_has_used, 0, sizeof st_has_used);
        st_nprocs = 0;
        st_size = -1;
        return;
    }
    if (sb.st_size == st_size && sb.st_mtim.tv_sec == st_mtime_s &&
        sb.st_mtim.tv_nsec == st_mtime_ns)
        return;
    f = fopen(state_path, "r");
    if (!f)
        return;
    st_size = sb.st_size;
    st_mtime_s = sb.st_mtim.tv_sec;
    st_mtime_ns = sb.st_mtim.tv_nsec;
    memset(st_has_used, 0, sizeof st_has_used);
    st_nprocs = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned g, pid;
        unsigned long long b;
        if (sscanf(line, "gpu %u used %llu", &g, &b) == 2 && g < MAXG) {
            st_has_used[g] = 1;
            st_used[g] = b;
        } else if (sscanf(line, "proc %u gpu %u mem %llu", &pid, &g, &b) == 3 && st_nprocs < MAXP) {
            st_procs[st_nprocs].pid = pid;
            st_procs[st_nprocs].gpu = g;
            st_procs[st_nprocs].mem = b;
            st_nprocs++;
        }
    }
    fclose(f);
}

static unsigned long long used_now(unsigned g)
{
    struct timespec now;
    long ms;
    unsigned i;
    unsigned long long u = gpus[g].used;
    refresh_state();
    if (st_has_used[g])
        return st_used[g];
    clock_gettime(CLOCK_MONOTONIC, &now);
    ms = (now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000;
    for (i = 0; i < nats; i++)
        if (ats[i].gpu == g && ats[i].ms <= ms)
            u = ats[i].used;
    return u;
}

typedef struct fake_dev *dev_t_;
static struct fake_dev {
    unsigned index;
} devs[MAXG];

int nvmlInit(void);
int nvmlInit(void)
{
    pthread_mutex_lock(&mu);
    if (!inited) {
        ngpus = 0;
        nats = nprocs = 0;
        memset(gpus, 0, sizeof gpus);
        load_script();
        clock_gettime(CLOCK_MONOTONIC, &t0);
    }
    if (init_fail) {
        pthread_mutex_unlock(&mu);
        return 9; /* DRIVER_NOT_LOADED */
    }
    inited++;
    pthread_mutex_unlock(&mu);
    return 0;
}

int nvmlShutdown(void);
int nvmlShutdown(void)
{
    pthread_mutex_lock(&mu);
    if (inited > 0)
        inited--;
    pthread_mutex_unlock(&mu);
    return 0;
}

const char *nvmlErrorString(int r);
const char *nvmlErrorString(int r)
{
    switch (r) {
    case 0:
        return "Success";
    case 2:
        return "Invalid Argument";
    case 3:
        return "Not Supported";
    case 4:
        return "Insufficient Permissions";
    case 7:
        return "Insufficient Size";
    case 9:
        return "Driver Not Loaded";
    case 13:
        return "Function Not Found";
    case 25:
        return "Argument Version Mismatch";
    default:
        return "Unknown Error";
    }
}

int nvmlDeviceGetCount(unsigned *c);
int nvmlDeviceGetCount(unsigned *c)
{
    if (!inited)
        return 1;
    *c = ngpus;
    return 0;
}

int nvmlDeviceGetHandleByIndex(unsigned i, dev_t_ *d);
int nvmlDeviceGetHandleByIndex(unsigned i, dev_t_ *d)
{
    if (!inited)
        return 1;
    if (i >= ngpus)
        return 2;
    devs[i].index = i;
    *d = &devs[i];
    return 0;
}

int nvmlDeviceGetName(dev_t_ d, char *out, unsigned len);
int nvmlDeviceGetName(dev_t_ d, char *out, unsigned len)
{
    if (strlen(gpus[d->index].name) + 1 > len)
        return 7;
    snprintf(out, len, "%s", gpus[d->index].name);
    return 0;
}

typedef struct {
    unsigned long long total, free, used;
} mem1_t;

int nvmlDeviceGetMemoryInfo(dev_t_ d, mem1_t *m);
int nvmlDeviceGetMemoryInfo(dev_t_ d, mem1_t *m)
{
    unsigned long long u;
    pthread_mutex_lock(&mu);
    u = used_now(d->index);
    pthread_mutex_unlock(&mu);
    m->total = gpus[d->index].total;
    m->used = u;
    m->free = u > m->total ? 0 : m->total - u;
    return 0;
}

/* The process entries of gpu g written at stride s into buf (capacity *count). */
static int write_procs(unsigned g, unsigned *count, unsigned char *buf, size_t s)
{
    unsigned n = 0, i, k = 0;
    proc_t all[2 * MAXP];
    pthread_mutex_lock(&mu);
    refresh_state();
    for (i = 0; i < nprocs; i++)
        if (procs[i].gpu == g)
            all[n++] = procs[i];
    for (i = 0; i < st_nprocs; i++)
        if (st_procs[i].gpu == g)
            all[n++] = st_procs[i];
    pthread_mutex_unlock(&mu);
    if (n > *count) {
        *count = n;
        return 7;
    }
    for (k = 0; k < n; k++) {
        unsigned char *e = buf + k * s;
        unsigned zero = 0, none = 0xFFFFFFFFu;
        unsigned long long z = 0;
        memset(e, 0, s);
        memcpy(e, &all[k].pid, 4);
        memcpy(e + 8, &all[k].mem, 8);
        if (s >= 24) {
            memcpy(e + 16, &none, 4);
            memcpy(e + 20, &none, 4);
        }
        if (s >= 32)
            memcpy(e + 24, &z, 8);
        (void)zero;
    }
    *count = n;
    return 0;
}

int nvmlDeviceGetComputeRunningProcesses(dev_t_ d, unsigned *count, void *buf);
int nvmlDeviceGetComputeRunningProcesses(dev_t_ d, unsigned *count, void *buf)
{
    if (proc_mode == -3)
        return 3;
    if (proc_mode == -4)
        return 4;
    return write_procs(d->index, count, buf, 16);
}

#ifndef FAKE_NVML_MINIMAL
int nvmlInit_v2(void);
int nvmlInit_v2(void)
{
    return nvmlInit();
}

int nvmlDeviceGetCount_v2(unsigned *c);
int nvmlDeviceGetCount_v2(unsigned *c)
{
    return nvmlDeviceGetCount(c);
}

int nvmlDeviceGetHandleByIndex_v2(unsigned i, dev_t_ *d);
int nvmlDeviceGetHandleByIndex_v2(unsigned i, dev_t_ *d)
{
    return nvmlDeviceGetHandleByIndex(i, d);
}

int nvmlDeviceGetUUID(dev_t_ d, char *out, unsigned len);
int nvmlDeviceGetUUID(dev_t_ d, char *out, unsigned len)
{
    snprintf(out, len, "%s", gpus[d->index].uuid);
    return 0;
}

int nvmlSystemGetDriverVersion(char *out, unsigned len);
int nvmlSystemGetDriverVersion(char *out, unsigned len)
{
    snprintf(out, len, "%s", driver);
    return 0;
}

int nvmlSystemGetNVMLVersion(char *out, unsigned len);
int nvmlSystemGetNVMLVersion(char *out, unsigned len)
{
    snprintf(out, len, "%s", nvml_ver);
    return 0;
}

typedef struct {
    unsigned version;
    unsigned long long total, reserved, free, used;
} mem2_t;

int nvmlDeviceGetMemoryInfo_v2(dev_t_ d, mem2_t *m);
int nvmlDeviceGetMemoryInfo_v2(dev_t_ d, mem2_t *m)
{
    unsigned long long u;
    if (mem_v1)
        return 13;
    if (m->version != (unsigned)(sizeof(mem2_t) | (2u << 24)))
        return 25;
    pthread_mutex_lock(&mu);
    u = used_now(d->index);
    pthread_mutex_unlock(&mu);
    m->total = gpus[d->index].total;
    m->reserved = 0;
    m->used = u;
    m->free = u > m->total ? 0 : m->total - u;
    return 0;
}

int nvmlDeviceGetComputeRunningProcesses_v2(dev_t_ d, unsigned *count, void *buf);
int nvmlDeviceGetComputeRunningProcesses_v2(dev_t_ d, unsigned *count, void *buf)
{
    if (proc_mode == -3)
        return 3;
    if (proc_mode == -4)
        return 4;
    if (proc_mode < 2)
        return 13;
    return write_procs(d->index, count, buf, 24);
}

int nvmlDeviceGetComputeRunningProcesses_v3(dev_t_ d, unsigned *count, void *buf);
int nvmlDeviceGetComputeRunningProcesses_v3(dev_t_ d, unsigned *count, void *buf)
{
    if (proc_mode == -3)
        return 3;
    if (proc_mode == -4)
        return 4;
    if (proc_mode < 3)
        return 13;
    return write_procs(d->index, count, buf, (size_t)proc_stride);
}

/* --- the CUDA driver calls vramsheet makes, for VRAMSHEET_CUDA_LIBRARY --- */
int cuInit(unsigned flags);
int cuInit(unsigned flags)
{
    (void)flags;
    return nvmlInit();
}

int cuDeviceGetCount(int *c);
int cuDeviceGetCount(int *c)
{
    *c = (int)ngpus;
    return 0;
}

int cuDeviceGet(int *dev, int ordinal);
int cuDeviceGet(int *dev, int ordinal)
{
    /* CUDA's order is not NVML's: reverse it, so matching must go by UUID. */
    *dev = (int)ngpus - 1 - ordinal;
    return 0;
}

int cuDeviceTotalMem_v2(size_t *bytes, int dev);
int cuDeviceTotalMem_v2(size_t *bytes, int dev)
{
    *bytes = (size_t)(gpus[dev].total - cudagap);
    return 0;
}

int cuDeviceGetUuid_v2(unsigned char *u, int dev);
int cuDeviceGetUuid_v2(unsigned char *u, int dev)
{
    const char *s = gpus[dev].uuid;
    int k = 0;
    if (!strncmp(s, "GPU-", 4))
        s += 4;
    while (*s && k < 16) {
        unsigned x;
        if (*s == '-') {
            s++;
            continue;
        }
        if (sscanf(s, "%2x", &x) != 1)
            return 1;
        u[k++] = (unsigned char)x;
        s += 2;
    }
    return k == 16 ? 0 : 1;
}
#endif
