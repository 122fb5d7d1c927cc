/* kernel_internal.h — the parts of the transport (kernel.h), shared among its files:
 *   kernel.c         the server: sockets, signals, the control, heartbeat and
 *                    parent-watch threads, the shell loop;
 *   kernel_io.c      messages: receive, check (signature, replay), sign and send;
 *   kernel_shell.c   the handlers, dispatched from one {msg_type, handler} table
 *                    for shell and control;
 *   kernel_sink.c    the output sink of a running cell (display, stream, input).
 * Not for use outside src/kernel/.
 */
#ifndef VS_KERNEL_KERNEL_INTERNAL_H
#define VS_KERNEL_KERNEL_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <sys/types.h>
#include <zmq.h>

#include "kernel/conn.h"
#include "kernel/history.h"
#include "kernel/ops.h"
#include "kernel/replay.h"
#include "kernel/wire.h"

#define MAX_FRAMES 1024   /* more frames than this is not a Jupyter message */
#define ABORT_WINDOW_MS 2 /* see collect_queued() */
#define MAX_QUEUED 4096   /* requests collected behind a failed cell */

/* Set by SIGINT and by interrupt_request; cleared when a cell starts. With the
 * server's SIGTERM flag, the one process-wide state (a signal handler can reach
 * nothing else). */
extern atomic_int vs_kernel_interrupt;

typedef struct vs_kernel {
    const vs_conn *conn;
    const unsigned char *key;
    size_t keylen;
    void *ctx;
    void *shell, *stdin_sock, *iopub, *wake_rx; /* main thread */
    void *control, *wake_tx;                    /* control thread */
    void *hb;                                   /* heartbeat thread */
    /* Held around every multipart send, by every thread, and around
     * zmq_ctx_shutdown: a message is then never cut between its frames by the
     * context's termination (the frames libzmq took before an ETERM stay in
     * the pipe and are never freed), and IOPub, shared by threads, is sent
     * whole. No send here blocks (PUB and ROUTER drop, REP answers). */
    pthread_mutex_t send_lock;
    char session[37];
    char username[64];
    const vs_kernel_ops *ops; /* the interpreter, as the transport sees it */
    void *self;               /* handed to every op */
    vs_history *hist;
    vs_replay *replay; /* signatures accepted so far, on every channel */
    pthread_mutex_t replay_lock;
    int execution_count;
    pid_t parent_pid; /* JPY_PARENT_PID, watched; 0 when none */
    atomic_int stop;
} vs_kernel;

/* ---- kernel_io.c ---- */

/* A received multipart message: the zmq parts and frames pointing into them. */
typedef struct vs_kernel_rx {
    zmq_msg_t parts[MAX_FRAMES];
    vs_frame frames[MAX_FRAMES];
    size_t n;
} vs_kernel_rx;

/* One line on stderr, "vramsheet kernel: ...", written at once. */
void vs_kernel_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void vs_kernel_rx_close(vs_kernel_rx *r);
/* Receives all parts of one message. Returns 1 when a message was read (r->n may
 * be 0 when it had too many frames: it was drained and must be dropped), 0 when
 * nothing was there (flags ZMQ_DONTWAIT), -1 on error with errno set. */
int vs_kernel_rx_recv(void *sock, vs_kernel_rx *r, int flags);
/* Parses a received message and refuses a replayed one. Returns 0, or a
 * negative code with err saying why (the message is then dropped). */
int vs_kernel_parse_fresh(vs_kernel *k, vs_msg **m, const vs_kernel_rx *r, vs_error *err);
/* Signs and sends one message whose content is JSON text (malloc'd, taken). */
int vs_kernel_send_raw(vs_kernel *k, void *sock, const vs_frame *ids, size_t nids,
                       const char *msg_type, const vs_msg *parent, char *content,
                       size_t content_len);
/* Signs and sends one message; steals content. */
int vs_kernel_send(vs_kernel *k, void *sock, const vs_frame *ids, size_t nids, const char *msg_type,
                   const vs_msg *parent, json_t *content);
void vs_kernel_publish_raw(vs_kernel *k, const char *msg_type, const vs_msg *parent, char *content,
                           size_t content_len);
void vs_kernel_publish(vs_kernel *k, const char *msg_type, const vs_msg *parent, json_t *content);
/* {head"data":bundle,"metadata":{}tail} on IOPub (head and tail: members or ""). */
void vs_kernel_publish_bundle(vs_kernel *k, const char *msg_type, const vs_msg *parent,
                              const char *head, const vs_bundle *bundle, const char *tail);
void vs_kernel_publish_status(vs_kernel *k, const vs_msg *parent, const char *state);
void vs_kernel_reply(vs_kernel *k, void *sock, const vs_msg *req, const char *msg_type,
                     json_t *content);
/* A JSON string from any bytes: invalid UTF-8 is repaired rather than lost. */
json_t *vs_kernel_jstrn(const char *s, size_t len);
json_t *vs_kernel_jstr(const char *s);

/* ---- kernel_sink.c ---- */

/* What a running cell's outputs need to reach the client. */
typedef struct vs_kernel_exec {
    vs_kernel *k;
    const vs_msg *req;
    int silent;
    int allow_stdin;
} vs_kernel_exec;

/* The sink of one execute_request (sink->ctx is ec). */
void vs_kernel_sink_init(vs_sink *sink, vs_kernel_exec *ec);
/* A stream message of the cell, as sink->stream. */
void vs_kernel_sink_stream(void *ctx, const char *name, const char *text, size_t len);

/* ---- kernel_shell.c ---- */

enum { VS_KERNEL_SHELL = 1 << 0, VS_KERNEL_CONTROL = 1 << 1 };

/* Handles one request that arrived on channel (VS_KERNEL_SHELL or
 * VS_KERNEL_CONTROL), on socket sock: the table's handler for its msg_type, or
 * one line on stderr for a type that channel does not serve. */
void vs_kernel_dispatch(vs_kernel *k, unsigned channel, void *sock, const vs_msg *m);

#endif
