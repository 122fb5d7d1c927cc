/* measure.h — one measured run: NVML, the sampler and the runner together.
 *
 * Opens NVML (no driver: VS_EMEASURE before anything runs), starts the sampler,
 * runs the command with its phase pipe, and gathers per phase and GPU the peaks
 * of device used memory and of the command's process tree, the command's own
 * counters and executed dims, its exit status and the phase of an
 * out-of-memory message. Shared by the `measure` verb and `vramsheet probe`;
 * it knows nothing of sheets, bundles or JSON.
 */
#ifndef VS_MEASURE_MEASURE_H
#define VS_MEASURE_MEASURE_H

#include <stddef.h>
#include <stdint.h>

#include "measure/nvml.h"
#include "measure/phasefd.h"
#include "measure/runner.h"
#include "measure/sampler.h"
#include "sheet/vocab.h"
#include "util/error.h"

#define VS_MEASURE_COUNTERS_MAX 1024

typedef struct vs_measure_live {
    vs_sampler *sampler; /* vs_sampler_view_get() for current and peak values */
    const vs_nvml_gpu *gpus;
    unsigned ngpus;
    int64_t elapsed_ms;
} vs_measure_live;

typedef struct vs_measure_options {
    const char *command; /* shell text; or NULL and argv */
    char *const *argv;
    const char *phase;          /* the phase before any phase line; NULL: "run" */
    const vs_phasefd_dim *dims; /* executed dims declared by the person; may be NULL */
    size_t ndims;
    double timeout_s; /* 0: none */
    int interval_ms;  /* sampler; 0: 10 */
    int grace_ms;     /* runner; 0: 2000 */
    int tick_ms;      /* on_tick period; 0: 250 */
    const char *const *extra_env;
    void *cb;
    void (*on_output)(void *cb, int stream, const char *data, size_t len);
    void (*on_tick)(void *cb, const vs_measure_live *live);
    /* Once, after the command ended and the sampler stopped (the gauge's last
     * state); may be NULL. */
    void (*on_end)(void *cb, const vs_measure_live *live, const vs_runner_result *run);
    int (*interrupted)(void *cb);
    /* A phase line that could not be read (the line and why); may be NULL. */
    void (*on_bad_line)(void *cb, const char *line, const char *why);
    void (*on_sample)(void *cb, int64_t wall_ms, const char *phase, unsigned gpu,
                      uint64_t used_bytes, uint64_t process_bytes);
} vs_measure_options;

typedef struct vs_measure_counter {
    char phase[VS_PHASEFD_NAME_MAX];
    char name[VS_PHASEFD_NAME_MAX];
    int gpu_known;  /* the command named the GPU */
    unsigned gpu;   /* its index, when gpu_known */
    uint64_t bytes; /* the largest value reported in the phase */
    int64_t at;     /* wall ms of that report */
} vs_measure_counter;

typedef struct vs_measure_phase_dims {
    char phase[VS_PHASEFD_NAME_MAX];
    vs_phasefd_dim dims[VS_PHASEFD_DIMS_MAX];
    size_t ndims;
} vs_measure_phase_dims;

typedef struct vs_measure_result {
    vs_runner_result run;
    char overflow_phase[VS_PHASEFD_NAME_MAX]; /* "" when no out-of-memory message */
    int64_t started_at;                       /* wall ms since the epoch */
    int interval_ms;                          /* the sampler's */
    char host[256];
    char driver[96], nvml_version[96], memory_api[16], process_api[32];
    vs_nvml_gpu *gpus;
    unsigned ngpus;
    vs_sampler_view *view; /* final peaks per phase and GPU */
    vs_measure_counter *counters;
    size_t ncounters;
    vs_measure_phase_dims *dims; /* one per phase of view, same order */
    size_t ndims;
    int bad_lines;
    char first_bad_line[256]; /* "line: why" */
} vs_measure_result;

/* Runs one measurement. Returns 0 with *res filled (free it with
 * vs_measure_result_clear) whatever the command's exit; VS_EMEASURE when there
 * is no driver or the command cannot start (nothing to record); VS_ENOMEM. */
int vs_measure_run(const vs_measure_options *o, vs_measure_result *res, vs_error *err);
void vs_measure_result_clear(vs_measure_result *res);

/* The dims of the phase at view index i (NULL when none recorded). */
const vs_measure_phase_dims *vs_measure_dims_of(const vs_measure_result *res, const char *phase);

/* The scope a counter's name implies: "tensors" for *max_memory_allocated* /
 * *memory_allocated*, "allocator" for *memory_reserved*, "device" and
 * "process" for the sampler's own, "reported" otherwise. */
const char *vs_measure_counter_scope(const char *name);

/* What to examine after an overflow in phase (load: weights, format, transient allocation;
 * generation: context and concurrency; backward: microbatch, activations): a static text. */
const char *vs_measure_triage(const char *phase);

/* VS_COUNTER_DEVICE, VS_COUNTER_PROCESS: the sampler's own counters (sheet/vocab.h). */

#endif
