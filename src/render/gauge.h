/* gauge.h — what a measurement shows: the live gauge while it runs, and the
 * head of the run's result.
 *
 * The gauge is, per GPU, a bar of the device's used memory against its
 * total, with the sheet's envelope (per GPU) and the run's peak as marks, the
 * percentage, the peak so far and the phase; the text/plain form is the same
 * numbers as a table, for clients without HTML. The process column says why
 * it is unavailable when it is. Pure: no I/O; the caller reads the sampler
 * and the sheet and hands the numbers here.
 */
#ifndef VS_RENDER_GAUGE_H
#define VS_RENDER_GAUGE_H

#include <stddef.h>
#include <stdint.h>

#include "render/bundle.h"
#include "util/buf.h"

typedef struct vs_gauge_gpu {
    const char *name;          /* "NVIDIA H200" */
    uint64_t used_bytes;       /* device used now */
    int total_known;           /* unknown: no bar, no percentage */
    uint64_t total_bytes;      /* the device's total, when total_known */
    uint64_t phase_peak_bytes; /* peak of the current phase */
    uint64_t run_peak_bytes;   /* peak of the run so far */
    int process_known;         /* process_bytes is the command's own */
    uint64_t process_bytes;
} vs_gauge_gpu;

typedef struct vs_gauge {
    const char *run;   /* "r3" */
    const char *state; /* "running", "finished", "interrupted", "timed out" */
    const char *phase; /* the current phase */
    int64_t elapsed_ms;
    int envelope_known;      /* the sheet has an envelope: the mark */
    uint64_t envelope_bytes; /* the sheet's known envelope per GPU, when envelope_known */
    const char *process_why; /* why process memory is unavailable (NULL when known) */
    const vs_gauge_gpu *gpus;
    unsigned ngpus;
} vs_gauge;

/* Why the command's process memory is unavailable, into out (n bytes): the
 * driver lists no processes, none of the command's yet, or only others'
 * (foreign_pids of them). Returns out, or NULL when it is known (the driver
 * lists processes and some are the command's): a vs_gauge's process_why. */
const char *vs_render_gauge_why(char *out, size_t n, int available, int attributed,
                                unsigned foreign_pids);

/* The gauge as a bundle (payload kind "gauge"), or NULL when memory is short. */
vs_bundle *vs_render_gauge(const vs_gauge *g);

/* The head of a command for a result's title: its first non-empty line, and
 * "(+N more lines)" when the script has more. Appended to out, escaped for
 * HTML when html is set. */
void vs_render_command_head(vs_buf *out, const char *command, int html);

/* The HTML of a measured run's result: the head (run, host, time, exit
 * status, the command's first line), the out-of-memory paragraph when
 * overflow_phase is set, the table of peaks (NULL for none) and why the run
 * does not validate the card (NULL when it does). */
typedef struct vs_run_head {
    const char *run, *host, *command;
    int64_t elapsed_ms;
    int exit_status;
    const char *overflow_phase; /* NULL or "" when none */
    const char *triage, *advice;
    const char *not_valid_why; /* NULL: the run validates the card */
} vs_run_head;

void vs_render_run_html(vs_buf *html, const vs_run_head *h, const vs_table *peaks);

#endif
