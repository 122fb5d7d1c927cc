/* kernel.h — the Jupyter transport: five sockets, three threads, one interpreter.
 *
 * vs_kernel_serve binds the sockets of a connection file and serves the protocol
 * until a shutdown_request: shell requests run on the calling thread (cells run
 * there), control requests (kernel_info, interrupt, shutdown) on a thread of their
 * own so that they are answered while a cell runs, the heartbeat on a third.
 * IOPub is one socket behind a mutex, so outputs may come from any thread.
 * Interrupts (SIGINT, or interrupt_request on control) set a flag the running cell
 * polls through vs_sink.interrupted; SIGINT while idle does nothing. SIGTERM ends
 * the kernel: the interpreter's terminate op first (it ends a measured command's
 * process group), then the running cell, as interrupted. With a parent pid (JPY_PARENT_PID, as
 * ipykernel reads it) the kernel exits within seconds of that process going.
 * Malformed, forged or replayed messages (a signature already accepted,
 * replay.h) are dropped with one line on stderr. This module knows nothing of
 * sizing: it sees the interpreter as an ops table and a `void *` (ops.h); the
 * command line (kernel_cli.c) builds them. The parts: kernel_internal.h.
 */
#ifndef VS_KERNEL_KERNEL_H
#define VS_KERNEL_KERNEL_H

#include "kernel/conn.h"
#include "kernel/ops.h"
#include "util/error.h"

typedef struct vs_kernel_options {
    int parent_pid; /* JPY_PARENT_PID: exit when that process is gone; 0 (or 1): none */
} vs_kernel_options;

/* Serves until shutdown, running every request through ops with self. Returns 0
 * after a clean shutdown, or a negative code when the sockets cannot be set up (a
 * port in use: VS_EIO). ops and self are borrowed; ops->shutdown is called once
 * serving ends. Installs SIGINT and SIGTERM handlers for its duration. */
int vs_kernel_serve(const vs_conn *conn, const vs_kernel_ops *ops, void *self,
                    const vs_kernel_options *opts, vs_error *err);

#endif
