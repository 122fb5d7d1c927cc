/* sampler.h — a thread that samples GPU memory while a command runs.
 *
 * Every interval (10 ms by default) it reads, per GPU, the device's used memory
 * (scope "device": every process and the driver, more than the command) and,
 * where the driver lists processes, the memory of the processes of the
 * command's tree (scope "process"), and keeps the peak of each per phase and
 * GPU with the wall time it was seen. Phases are set from outside (the runner's
 * phase lines) and may be revisited; a peak is kept per phase name. It only
 * reads NVML and /proc; it never starts processes. The thread is the only user
 * of the vs_nvml while it runs.
 */
#ifndef VS_MEASURE_SAMPLER_H
#define VS_MEASURE_SAMPLER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "measure/nvml.h"
#include "util/error.h"

#define VS_SAMPLER_PHASES_MAX 256

typedef struct vs_sampler vs_sampler;

typedef struct vs_sampler_options {
    int interval_ms;   /* 0: 10 */
    int process_every; /* list processes every Nth sample; 0: 1 */
    /* Called on the sampler thread after each sample of each GPU (for the
     * probe's per-sample lines); may be NULL. process_bytes is UINT64_MAX when
     * unavailable. */
    void (*on_sample)(void *cb, int64_t wall_ms, const char *phase, unsigned gpu,
                      uint64_t used_bytes, uint64_t process_bytes);
    void *cb;
} vs_sampler_options;

typedef struct vs_sampler_cell {
    uint64_t device_peak;   /* bytes */
    int64_t device_peak_at; /* wall clock, ms since the epoch; 0 = no sample */
    uint64_t process_peak;
    int64_t process_peak_at; /* 0 = no process sample */
    uint64_t samples;
} vs_sampler_cell;

typedef struct vs_sampler_phase {
    char name[64];
    vs_sampler_cell *gpus; /* ngpus cells */
} vs_sampler_phase;

/* A copy of the sampler's state, for the gauge and for the results. */
typedef struct vs_sampler_view {
    unsigned ngpus;
    size_t nphases;
    vs_sampler_phase *phases; /* in the order first seen */
    size_t current;           /* index of the current phase */
    uint64_t *device_now;     /* last sample per GPU */
    uint64_t *device_start;   /* first sample per GPU (before the command started) */
    uint64_t *process_now;
    int process_available;  /* the driver listed processes at least once */
    int process_attributed; /* some listed process belonged to the command's tree */
    unsigned foreign_pids;  /* listed processes not in the tree (last sample) */
    uint64_t samples;       /* sampling rounds */
    uint64_t errors;        /* failed reads (the last one in last_error) */
    char last_error[256];
    int64_t cpu_ns;     /* CPU time of the sampler thread so far */
    int64_t max_gap_ms; /* the longest interval between two rounds */
} vs_sampler_view;

/* first_phase names the phase before any phase line ("run" when NULL). */
int vs_sampler_new(vs_sampler **out, vs_nvml *nvml, const char *first_phase,
                   const vs_sampler_options *opts, vs_error *err);
/* Starts the thread; one sample is taken before it returns. */
int vs_sampler_start(vs_sampler *s, vs_error *err);
/* The root of the command's process tree (its pid = process group id). */
void vs_sampler_set_root(vs_sampler *s, pid_t root);
/* Makes name the current phase (created on first use, at most
 * VS_SAMPLER_PHASES_MAX: later new names fold into the last one). Once started,
 * a change of phase first waits for one round taken into the phase that ends,
 * so every phase holds its state at its end however short it was. Returns 0,
 * or 1 when name was folded so (the caller says so). */
int vs_sampler_set_phase(vs_sampler *s, const char *name);
/* The current phase's name copied into out. */
void vs_sampler_current_phase(vs_sampler *s, char *out, size_t outlen);
/* Takes a last sample and joins the thread; idempotent. */
void vs_sampler_stop(vs_sampler *s);
void vs_sampler_free(vs_sampler *s);

/* A copy of the state now (safe while the thread runs). */
int vs_sampler_view_get(vs_sampler *s, vs_sampler_view **out);
void vs_sampler_view_free(vs_sampler_view *v);

#endif
