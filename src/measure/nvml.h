/* nvml.h — the GPUs as NVIDIA's driver reports them, loaded at run time.
 *
 * NVML (libnvidia-ml.so.1, or the file named by VRAMSHEET_NVML_LIBRARY) is
 * opened with dlopen and used through a table of function pointers, the way
 * nvtop does: the project builds and runs with no GPU and no CUDA, and a test
 * points VRAMSHEET_NVML_LIBRARY at a fake library. Versioned entry points are
 * tried newest first (_v2 then plain; processes _v3, _v2, plain); a metric the
 * driver does not give (process memory, CUDA's total) is data marked
 * unavailable, never an error. Optionally the CUDA driver (libcuda.so.1, or
 * VRAMSHEET_CUDA_LIBRARY) gives CUDA's own total per GPU, without creating a
 * context. This module reads devices; it never starts processes or threads. One
 * thread at a time may use a vs_nvml.
 */
#ifndef VS_MEASURE_NVML_H
#define VS_MEASURE_NVML_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

#define VS_NVML_NAME_MAX 96

typedef struct vs_nvml vs_nvml;

typedef struct vs_nvml_gpu {
    unsigned index;              /* NVML's index */
    char name[VS_NVML_NAME_MAX]; /* "NVIDIA H200" */
    char uuid[VS_NVML_NAME_MAX]; /* "GPU-xxxxxxxx-..." or "" */
    /* Every byte count this module hands out is below 2^63 (a record's integer):
     * a larger answer is unknown (UINT64_MAX for a process), and so is a
     * total of 0 (no device has none). */
    int total_known;
    uint64_t total_bytes; /* NVML's total (basis "nvml"), when total_known */
    int cuda_total_known;
    uint64_t cuda_total_bytes; /* CUDA's total (basis "cuda"), when cuda_total_known */
} vs_nvml_gpu;

typedef struct vs_nvml_proc {
    unsigned pid;        /* as the driver sees it (host PID namespace) */
    uint64_t used_bytes; /* UINT64_MAX when the driver does not say */
} vs_nvml_proc;

/* Loads NVML, initialises it, and reads the driver and NVML versions and every
 * GPU's name, UUID and total. Returns 0 and a new handle, or VS_EMEASURE with a
 * message saying what is missing (no library, no driver, no GPU), or VS_ENOMEM. */
int vs_nvml_open(vs_nvml **out, vs_error *err);
/* nvmlShutdown and dlclose; NULL is a no-op. */
void vs_nvml_free(vs_nvml *n);

unsigned vs_nvml_count(const vs_nvml *n);
const vs_nvml_gpu *vs_nvml_gpu_at(const vs_nvml *n, unsigned i); /* borrowed; NULL past the end */
const char *vs_nvml_driver_version(const vs_nvml *n);            /* "" when unknown */
const char *vs_nvml_version(const vs_nvml *n); /* NVML's own version, "" when unknown */
const char *vs_nvml_library(const vs_nvml *n); /* the file that was loaded */
/* Which memory struct answered ("v2" or "v1") and which process query
 * ("v3", "v2", "v1" or "none"), with the entry size probed ("v3/32"). */
const char *vs_nvml_memory_api(const vs_nvml *n);
const char *vs_nvml_process_api(const vs_nvml *n);
/* 1 and *index the GPU whose UUID is uuid ("GPU-..." or without the
 * prefix); 0 when none has it. */
int vs_nvml_index_of_uuid(const vs_nvml *n, const char *uuid, unsigned *index);

/* Device used memory of GPU i now (covers every process and the driver's own).
 * Returns 0, or VS_EMEASURE with NVML's message or when used is 2^63 or more
 * (out of range: not a reading; *total, when asked, is 0 when out of range). */
int vs_nvml_memory(vs_nvml *n, unsigned i, uint64_t *used, uint64_t *total, vs_error *err);

/* The compute processes on GPU i now. *available is 0 when the driver does not
 * report them (NOT_SUPPORTED, NO_PERMISSION, no entry point): data, not an
 * error. *procs is borrowed, valid until the next call. Returns 0, or
 * VS_EMEASURE on another NVML error. */
int vs_nvml_processes(vs_nvml *n, unsigned i, const vs_nvml_proc **procs, size_t *count,
                      int *available, vs_error *err);

#endif
