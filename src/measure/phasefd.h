/* phasefd.h — the lines a measured command writes on VRAMSHEET_PHASE_FD.
 *
 * A command names its phases, the dimensions it really executed and its own
 * counters, one line each:
 *   phase NAME
 *   dims KEY=N [KEY=N ...]             length=4096 concurrency=8 microbatch=4 ...
 *                                      (resolution=WxH stands for width=W height=H)
 *   counter NAME BYTES [gpu=I] [uuid=GPU-...]
 * BYTES is a plain integer (bytes) or an amount with a byte unit ("14.2GiB").
 * Names are 1..63 characters of [A-Za-z0-9_.:/+-]; dims keys are lowercase
 * [a-z0-9_]. Blank lines and lines starting with '#' are ignored. This module
 * only reads one line into an event: pure, no I/O, no state.
 */
#ifndef VS_MEASURE_PHASEFD_H
#define VS_MEASURE_PHASEFD_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

#define VS_PHASEFD_NAME_MAX 64
#define VS_PHASEFD_DIMS_MAX 16
#define VS_PHASEFD_LINE_MAX 1024 /* longer lines are refused */

typedef enum {
    VS_PHASEFD_NONE, /* blank line or comment */
    VS_PHASEFD_PHASE,
    VS_PHASEFD_DIMS,
    VS_PHASEFD_COUNTER
} vs_phasefd_kind;

typedef struct vs_phasefd_dim {
    char key[VS_PHASEFD_NAME_MAX];
    uint64_t value;
} vs_phasefd_dim;

typedef struct vs_phasefd_event {
    vs_phasefd_kind kind;
    char name[VS_PHASEFD_NAME_MAX];     /* phase or counter name */
    uint64_t bytes;                     /* counter */
    int gpu_known;                      /* the counter said gpu= */
    unsigned gpu;                       /* counter's gpu=, when gpu_known */
    char uuid[VS_PHASEFD_NAME_MAX * 2]; /* counter's uuid=, "" when not given */
    vs_phasefd_dim dims[VS_PHASEFD_DIMS_MAX];
    size_t ndims;
} vs_phasefd_event;

/* Reads one line (len bytes, no newline needed; a trailing '\r' or '\n' is
 * ignored; need not be NUL-terminated). Returns 0 and fills *ev, or VS_ESYNTAX /
 * VS_EVALUE / VS_EUNIT with a message naming what was expected; err->column is
 * the 1-based byte column of the fault. */
int vs_phasefd_parse(vs_phasefd_event *ev, const char *line, size_t len, vs_error *err);

/* 1 when s is a valid phase or counter name. */
int vs_phasefd_name_valid(const char *s);

#endif
