/* runner.h — runs a measured command in its own process group and watches it.
 *
 * The command (shell text for /bin/sh -c, or an argv) starts in a new process
 * group with stdin on /dev/null, its stdout and stderr on non-blocking pipes
 * handed to a callback as they come, and one more pipe whose write end is fd
 * VS_RUNNER_PHASE_FD in the command, named in VRAMSHEET_PHASE_FD, for its phase
 * lines. A timeout or an interrupt (a callback polled every few ms) ends the
 * whole group: SIGINT (interrupt) or SIGTERM (timeout), then SIGKILL after a
 * grace period; processes left in the group after the command exits are ended
 * the same way, so that nothing keeps holding GPU memory. A guard process
 * (the command's parent, in its group) ends the group when the calling
 * thread dies, even by SIGKILL (PR_SET_PDEATHSIG): so the thread that calls
 * vs_runner_run must be the one that lives as long as the process (the main
 * thread). Out-of-memory messages
 * in the output are recognised. This module starts processes; it knows nothing
 * of GPUs or sheets. The caller's thread runs the loop; callbacks run on it.
 */
#ifndef VS_MEASURE_RUNNER_H
#define VS_MEASURE_RUNNER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/error.h"

#define VS_RUNNER_PHASE_FD 3

typedef struct vs_runner_options {
    const char *command;          /* shell text for /bin/sh -c; or NULL and argv */
    char *const *argv;            /* run directly (PATH searched) when command is NULL */
    const char *const *extra_env; /* "KEY=VALUE" entries added, NULL-terminated; may be NULL */
    double timeout_s;             /* 0: no timeout */
    int grace_ms;                 /* polite signal -> SIGKILL; 0: 2000 */
    int tick_ms;                  /* on_tick period; 0: 250 */
    void *cb;                     /* passed to every callback */
    /* stream 1 = stdout, 2 = stderr; raw bytes as read (not NUL-terminated). */
    void (*on_output)(void *cb, int stream, const char *data, size_t len);
    /* One line from the phase pipe, without its newline (NUL-terminated). */
    void (*on_phase_line)(void *cb, const char *line, size_t len);
    /* The first out-of-memory message seen (the pattern that matched). */
    void (*on_oom)(void *cb, const char *pattern);
    void (*on_started)(void *cb, pid_t pid); /* pid is also the process group id */
    void (*on_tick)(void *cb);
    int (*interrupted)(void *cb);
} vs_runner_options;

typedef struct vs_runner_result {
    pid_t pid;       /* = the process group id */
    int exit_status; /* exit code, or 128 + signal as a shell reports it */
    int term_signal; /* the signal that ended it, 0 when it exited */
    int timed_out;
    int interrupted;
    int oom; /* an out-of-memory message was seen */
    char oom_pattern[64];
    int leftovers;   /* processes still in the group after the command exited (ended) */
    int phase_lines; /* lines read from the phase pipe */
    int64_t elapsed_ms;
} vs_runner_result;

/* Runs the command to its end. Returns 0 with *res filled whatever the command's
 * exit status (a failing command is a result, not an error); VS_EMEASURE when
 * the command cannot start (fork or exec failed; /bin/sh answering 126 or 127
 * without a phase line: not found or not executable); VS_ENOMEM. */
int vs_runner_run(const vs_runner_options *o, vs_runner_result *res, vs_error *err);

/* For a SIGTERM handler (async-signal-safe): the process is ending. The group of
 * the command running now gets SIGTERM at once, and SIGKILL 1 s later if it
 * is still there; vs_runner_run then returns with res->interrupted set, and
 * every later run is ended as soon as it starts. */
void vs_runner_terminate(void);

/* Reaps, without waiting, every ended child of this process; returns how many.
 * A measured command's descendant that left its group (setsid) is reparented
 * to the caller (a subreaper while a command runs) and would stay a zombie:
 * vs_runner_run calls this before and after each command, and a long-lived
 * caller (the kernel) calls it while idle. Only for a process whose children
 * are all its runner's (waitpid(-1)). */
int vs_runner_reap_strays(void);

/* The out-of-memory pattern found in text (len bytes), or NULL. Patterns:
 * "CUDA out of memory", "OutOfMemoryError", "CUBLAS_STATUS_ALLOC_FAILED",
 * "CUDNN_STATUS_ALLOC_FAILED", "cudaErrorMemoryAllocation",
 * "CUDA_ERROR_OUT_OF_MEMORY", "CUDA error: out of memory",
 * "Cuda failure 'out of memory'", "RESOURCE_EXHAUSTED: Out of memory". */
const char *vs_runner_oom_pattern(const char *text, size_t len);

/* 1 when pid is root, is in process group root, or descends from root, as
 * /proc says now; 0 otherwise (or when it is gone). */
int vs_runner_pid_in_tree(pid_t pid, pid_t root);

/* The number of live (non-zombie) processes in process group pgid, from /proc. */
int vs_runner_group_count(pid_t pgid);

#endif
