#include "kernel/kernel.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zmq.h>

#include "kernel/history.h"
#include "kernel/replay.h"
#include "kernel/testcell.h"
#include "kernel/wire.h"
#include "measure/runner.h"
#include "util/json.h"
#include "util/utf8.h"

#define MAX_FRAMES 1024   /* more frames than this is not a Jupyter message */
#define LINGER_MS 200     /* how long close waits for unsent messages */
#define ABORT_WINDOW_MS 2 /* see collect_queued() */
#define MAX_QUEUED 4096   /* requests collected behind a failed cell */
#define HISTORY_ENTRIES 1000 /* jupyter console asks for the last 1,000 */
#define HISTORY_BYTES (1u << 20)
#define WAKE_ENDPOINT "inproc://vramsheet-wake"
#define IDLE_POLL_MS 500 /* how often the idle loop reaps strays and looks at SIGTERM */
#define REPLAY_REMEMBERED 8192 /* signatures remembered at least (about 1 MB) */

/* The one process-wide piece of state: a signal handler can reach nothing else.
 * Set by SIGINT and by interrupt_request; cleared when a cell starts. */
static atomic_int g_interrupt;

static void on_sigint(int sig)
{
    (void)sig;
    atomic_store(&g_interrupt, 1);
}

/* Set by SIGTERM (jupyter_client's shutdown sends it after shutdown_request, and
 * it is what `kill` sends): the kernel ends. A measured command's group is ended
 * first, at once (runner.h), and the running cell stops as if interrupted. */
static atomic_int g_terminate;

static void on_sigterm(int sig)
{
    (void)sig;
    atomic_store(&g_terminate, 1);
    atomic_store(&g_interrupt, 1);
    vs_runner_terminate();
}

typedef struct vs_kernel {
    const vs_conn *conn;
    const unsigned char *key;
    size_t keylen;
    void *ctx;
    void *shell, *stdin_sock, *iopub, *wake_rx; /* main thread */
    void *control, *wake_tx;                    /* control thread */
    void *hb;                                   /* heartbeat thread */
    pthread_mutex_t iopub_lock;
    char session[37];
    char username[64];
    vs_interp *ip;
    vs_history *hist;
    vs_replay *replay; /* signatures accepted so far, on every channel */
    pthread_mutex_t replay_lock;
    int execution_count;
    int test_cells;
    pid_t parent_pid; /* JPY_PARENT_PID, watched; 0 when none */
    atomic_int stop;
} vs_kernel;

/* A received multipart message: the zmq parts and frames pointing into them. */
typedef struct rx {
    zmq_msg_t parts[MAX_FRAMES];
    vs_frame frames[MAX_FRAMES];
    size_t n;
} rx;

static void klog(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void klog(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    /* One write per line, so that threads' lines do not interleave. */
    fprintf(stderr, "vramsheet kernel: %s\n", line);
}

static void rx_close(rx *r)
{
    size_t i;
    for (i = 0; i < r->n; i++)
        zmq_msg_close(&r->parts[i]);
    r->n = 0;
}

/* Receives all parts of one message. Returns 1 when a message was read (r->n may
 * be 0 when it had too many frames: it was drained and must be dropped), 0 when
 * nothing was there (flags ZMQ_DONTWAIT), -1 on error with errno set. */
static int rx_recv(void *sock, rx *r, int flags)
{
    int more = 1, overflow = 0;
    r->n = 0;
    while (more) {
        zmq_msg_t tmp, *m = r->n < MAX_FRAMES ? &r->parts[r->n] : &tmp;
        zmq_msg_init(m);
        if (zmq_msg_recv(m, sock, r->n || overflow ? 0 : flags) < 0) {
            int e = errno;
            zmq_msg_close(m);
            if (r->n == 0 && !overflow && e == EAGAIN)
                return 0;
            rx_close(r);
            errno = e;
            return -1;
        }
        more = zmq_msg_more(m);
        if (m == &tmp) {
            zmq_msg_close(m);
            overflow = 1;
            continue;
        }
        r->frames[r->n].data = zmq_msg_data(m);
        r->frames[r->n].len = zmq_msg_size(m);
        r->n++;
    }
    if (overflow)
        rx_close(r);
    return 1;
}

/* Parses a received message (vs_wire_parse) and refuses one whose signature was
 * accepted before, on any channel and from any identity: a replay. Returns 0,
 * or a negative code with err saying why (the message is then dropped). */
static int parse_fresh(vs_kernel *k, vs_msg **m, const rx *r, vs_error *err)
{
    size_t d;
    int rc = vs_wire_parse(m, r->frames, r->n, k->key, k->keylen, err);
    if (rc < 0 || !k->keylen)
        return rc;
    for (d = 0; d < r->n; d++)
        if (r->frames[d].len == sizeof VS_WIRE_DELIM - 1 &&
            !memcmp(r->frames[d].data, VS_WIRE_DELIM, sizeof VS_WIRE_DELIM - 1))
            break;
    if (d + 1 < r->n) {
        int seen;
        pthread_mutex_lock(&k->replay_lock);
        seen = vs_replay_seen(k->replay, r->frames[d + 1].data, r->frames[d + 1].len);
        pthread_mutex_unlock(&k->replay_lock);
        if (!seen)
            return 0;
    }
    vs_msg_free(*m);
    *m = NULL;
    return vs_error_set(err, VS_EPROTOCOL, "a signature already seen (a replayed message)");
}

static int send_frames(void *sock, const vs_frame *f, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (zmq_send(sock, f[i].data, f[i].len, i + 1 < n ? ZMQ_SNDMORE : 0) < 0)
            return -1;
    return 0;
}

/* Signs and sends one message whose content is already JSON text (malloc'd,
 * taken; NULL when it could not be made, which is logged and dropped). lock,
 * when given, is held around the send (IOPub is shared by threads). */
static int kernel_send_raw(vs_kernel *k, void *sock, pthread_mutex_t *lock, const vs_frame *ids,
                           size_t nids, const char *msg_type, const vs_msg *parent, char *content,
                           size_t content_len)
{
    char msg_id[37], date[32];
    json_t *header;
    vs_frame *frames = NULL;
    size_t n = 0;
    vs_error err;
    int rc = 0;

    vs_error_clear(&err);
    vs_wire_uuid4(msg_id);
    vs_wire_date_now(date);
    header = vs_wire_header_new(msg_type, msg_id, k->session, k->username, date);
    if (!header || !content) {
        klog("out of memory (or content that is not JSON) building %s", msg_type);
        free(content);
        rc = VS_ENOMEM;
        goto done;
    }
    rc = vs_wire_serialize_raw(&frames, &n, ids, nids, header, parent ? &parent->header_raw : NULL,
                               NULL, content, content_len, k->key, k->keylen, &err);
    if (rc < 0) {
        klog("cannot serialise %s: %s", msg_type, err.message);
        goto done;
    }
    if (lock)
        pthread_mutex_lock(lock);
    if (send_frames(sock, frames, n) < 0 && errno != ETERM)
        klog("cannot send %s: %s", msg_type, zmq_strerror(errno));
    if (lock)
        pthread_mutex_unlock(lock);
done:
    vs_wire_frames_free(frames, n);
    json_decref(header);
    return rc;
}

/* content's compact JSON text (malloc'd) and its length; takes content. NULL
 * when content is NULL or cannot be written. */
static char *content_text(json_t *content, size_t *len)
{
    vs_buf b = VS_BUF_INIT;
    char *text = NULL;
    if (content && vs_json_dump(content, &b) == 0) {
        *len = b.len;
        text = vs_buf_take(&b);
    }
    vs_buf_free(&b);
    json_decref(content);
    return text;
}

/* Signs and sends one message; steals content. */
static int kernel_send(vs_kernel *k, void *sock, pthread_mutex_t *lock, const vs_frame *ids,
                       size_t nids, const char *msg_type, const vs_msg *parent, json_t *content)
{
    size_t len = 0;
    char *text = content_text(content, &len);
    return kernel_send_raw(k, sock, lock, ids, nids, msg_type, parent, text, len);
}

/* On IOPub, content already JSON text (taken, as kernel_send_raw takes it). */
static void publish_raw(vs_kernel *k, const char *msg_type, const vs_msg *parent, char *content,
                        size_t content_len)
{
    /* The topic frame only helps subscribers filter; clients subscribe to all. */
    char topic[64];
    vs_frame t;
    snprintf(topic, sizeof topic, "kernel.%.8s.%s", k->session, msg_type);
    t.data = (unsigned char *)topic;
    t.len = strlen(topic);
    kernel_send_raw(k, k->iopub, &k->iopub_lock, &t, 1, msg_type, parent, content, content_len);
}

static void publish(vs_kernel *k, const char *msg_type, const vs_msg *parent, json_t *content)
{
    size_t len = 0;
    char *text = content_text(content, &len);
    publish_raw(k, msg_type, parent, text, len);
}

/* A result on IOPub: {head"data":bundle,"metadata":{}tail}, where head and tail
 * are JSON members (each with its comma) or "". The bundle's text goes in as
 * it is. */
static void publish_bundle(vs_kernel *k, const char *msg_type, const vs_msg *parent,
                           const char *head, const vs_bundle *bundle, const char *tail)
{
    vs_buf c = VS_BUF_INIT;
    size_t len;
    vs_buf_reserve(&c, bundle->len + strlen(head) + strlen(tail) + 32);
    vs_buf_putc(&c, '{');
    vs_buf_puts(&c, head);
    vs_buf_puts(&c, "\"data\":");
    vs_buf_append(&c, bundle->json, bundle->len);
    vs_buf_puts(&c, ",\"metadata\":{}");
    vs_buf_puts(&c, tail);
    vs_buf_putc(&c, '}');
    len = c.len;
    publish_raw(k, msg_type, parent, vs_buf_take(&c), len);
}

static void publish_status(vs_kernel *k, const vs_msg *parent, const char *state)
{
    publish(k, "status", parent, json_pack("{s:s}", "execution_state", state));
}

static void reply(vs_kernel *k, void *sock, const vs_msg *req, const char *msg_type,
                  json_t *content)
{
    kernel_send(k, sock, NULL, req->ids, req->nids, msg_type, req, content);
}

/* A JSON string from any bytes: invalid UTF-8 is repaired rather than lost. */
static json_t *jstrn(const char *s, size_t len)
{
    json_t *v = json_stringn(s, len);
    char *fixed;
    if (v)
        return v;
    fixed = vs_utf8_repair(s, len);
    if (!fixed)
        return NULL;
    v = json_string(fixed);
    free(fixed);
    return v;
}

static json_t *jstr(const char *s)
{
    return jstrn(s, strlen(s));
}

/* ---- kernel_info, shared by shell and control ---- */

static json_t *kernel_info_content(void)
{
    return json_pack("{s:s, s:s, s:s, s:s, s:{s:s, s:s, s:s, s:s, s:s, s:s}, s:o, s:[], s:b}",
                     "status", "ok", "protocol_version", VS_WIRE_PROTOCOL_VERSION, "implementation",
                     "vramsheet", "implementation_version", VS_VERSION, "language_info", "name",
                     "vramsheet", "version", VS_VERSION, "mimetype", "text/x-vramsheet",
                     "file_extension", ".vramsheet", "pygments_lexer", "text", "codemirror_mode",
                     "shell", "banner", jstr(vs_interp_banner()), "help_links", "debugger", 0);
}

static void request_shutdown(vs_kernel *k, void *sock, const vs_msg *req, void *wake)
{
    int restart = json_is_true(json_object_get(req->content, "restart"));
    reply(k, sock, req, "shutdown_reply",
          json_pack("{s:s, s:b}", "status", "ok", "restart", restart));
    /* Other clients learn of the shutdown too, as ipykernel does. */
    publish(k, "shutdown_reply", req, json_pack("{s:s, s:b}", "status", "ok", "restart", restart));
    atomic_store(&k->stop, 1);
    atomic_store(&g_interrupt, 1); /* a running cell stops at its next poll */
    if (wake)
        zmq_send(wake, "", 0, ZMQ_DONTWAIT);
}

/* ---- control thread ---- */

static void *control_main(void *arg)
{
    vs_kernel *k = arg;
    rx *r = malloc(sizeof *r);
    if (!r) {
        klog("out of memory: control channel not served");
        return NULL;
    }
    for (;;) {
        vs_msg *m = NULL;
        vs_error err;
        int got = rx_recv(k->control, r, 0);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            break; /* ETERM: the context is shutting down */
        }
        if (!r->n) {
            klog("dropped a message on control: more than %d frames", MAX_FRAMES);
            continue;
        }
        vs_error_clear(&err);
        if (parse_fresh(k, &m, r, &err) < 0) {
            klog("dropped a message on control: %s", err.message);
            rx_close(r);
            continue;
        }
        rx_close(r);
        if (!strcmp(m->msg_type, "kernel_info_request")) {
            publish_status(k, m, "busy");
            reply(k, k->control, m, "kernel_info_reply", kernel_info_content());
            publish_status(k, m, "idle");
        } else if (!strcmp(m->msg_type, "interrupt_request")) {
            publish_status(k, m, "busy");
            atomic_store(&g_interrupt, 1);
            reply(k, k->control, m, "interrupt_reply", json_pack("{s:s}", "status", "ok"));
            publish_status(k, m, "idle");
        } else if (!strcmp(m->msg_type, "shutdown_request")) {
            publish_status(k, m, "busy");
            request_shutdown(k, k->control, m, k->wake_tx);
            publish_status(k, m, "idle");
        } else {
            klog("ignored a %s on control (unknown message type)", m->msg_type);
        }
        vs_msg_free(m);
    }
    free(r);
    zmq_close(k->control);
    zmq_close(k->wake_tx);
    return NULL;
}

/* ---- heartbeat thread: echo, always ---- */

static void *hb_main(void *arg)
{
    vs_kernel *k = arg;
    for (;;) {
        zmq_msg_t m;
        int more;
        zmq_msg_init(&m);
        if (zmq_msg_recv(&m, k->hb, 0) < 0) {
            zmq_msg_close(&m);
            if (errno == EINTR)
                continue;
            break;
        }
        more = zmq_msg_more(&m);
        if (zmq_msg_send(&m, k->hb, more ? ZMQ_SNDMORE : 0) < 0) {
            zmq_msg_close(&m);
            if (errno == ETERM)
                break;
        }
    }
    zmq_close(k->hb);
    return NULL;
}

/* ---- parent watch: the kernel does not outlive the client that started it ---- */

#define PARENT_POLL_MS 1000
#define PARENT_EXIT_MS 10000 /* after SIGTERM, at most this long to end cleanly */

/* 1 when the parent named in JPY_PARENT_PID is gone. As ipykernel does
 * (ipykernel/parentpoller.py, ParentPollerUnix): when it was this process's
 * parent, a change of getppid() says so (a subreaper or init adopted us);
 * else the process itself is looked for (kill 0; EPERM means it is there). */
static int parent_gone(pid_t parent, pid_t original_ppid)
{
    if (original_ppid == parent && getppid() != parent)
        return 1;
    return kill(parent, 0) < 0 && errno == ESRCH;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
    }
}

static void *parent_main(void *arg)
{
    vs_kernel *k = arg;
    pid_t original = getppid();
    int waited = 0;
    while (!atomic_load(&k->stop)) {
        sleep_ms(100);
        waited += 100;
        if (waited < PARENT_POLL_MS)
            continue;
        waited = 0;
        if (!parent_gone(k->parent_pid, original))
            continue;
        klog("the parent process %d (JPY_PARENT_PID) is gone: shutting down", (int)k->parent_pid);
        kill(getpid(), SIGTERM); /* taken by the main thread: the others block it */
        for (waited = 0; waited < PARENT_EXIT_MS && !atomic_load(&k->stop); waited += 100)
            sleep_ms(100);
        if (!atomic_load(&k->stop)) {
            klog("still running %d s after the parent went: exiting", PARENT_EXIT_MS / 1000);
            _exit(1);
        }
        break;
    }
    return NULL;
}

/* ---- the sink: where a running cell's outputs go ---- */

typedef struct exec_ctx {
    vs_kernel *k;
    const vs_msg *req;
    int silent;
    int allow_stdin;
} exec_ctx;

static void sink_display(void *ctx, const vs_bundle *bundle, const char *display_id, int update)
{
    exec_ctx *ec = ctx;
    vs_buf tail = VS_BUF_INIT;
    if (ec->silent || !bundle)
        return;
    if (display_id) {
        vs_buf_puts(&tail, ",\"transient\":{\"display_id\":");
        vs_json_dump_string_lossy(display_id, strlen(display_id), &tail);
        vs_buf_putc(&tail, '}');
    }
    if (!vs_buf_failed(&tail))
        publish_bundle(ec->k, update ? "update_display_data" : "display_data", ec->req, "", bundle,
                       vs_buf_str(&tail));
    vs_buf_free(&tail);
}

static void sink_stream(void *ctx, const char *name, const char *text, size_t len)
{
    exec_ctx *ec = ctx;
    if (ec->silent || !len)
        return;
    if (strcmp(name, "stderr"))
        name = "stdout";
    publish(ec->k, "stream", ec->req,
            json_pack("{s:s, s:o}", "name", name, "text", jstrn(text, len)));
}

static int sink_interrupted(void *ctx)
{
    (void)ctx;
    return atomic_load(&g_interrupt);
}

static int sink_input(void *ctx, const char *prompt, int password, char **out)
{
    exec_ctx *ec = ctx;
    vs_kernel *k = ec->k;
    rx *r = NULL;
    int rc = VS_EINTERRUPT;

    *out = NULL;
    if (!ec->allow_stdin)
        return VS_EVALUE;
    r = malloc(sizeof *r);
    if (!r)
        return VS_ENOMEM;
    /* Replies to an earlier, abandoned request must not answer this one. */
    while (rx_recv(k->stdin_sock, r, ZMQ_DONTWAIT) == 1)
        rx_close(r);
    kernel_send(
        k, k->stdin_sock, NULL, ec->req->ids, ec->req->nids, "input_request", ec->req,
        json_pack("{s:o, s:b}", "prompt", jstr(prompt ? prompt : ""), "password", password));
    while (!atomic_load(&g_interrupt) && !atomic_load(&k->stop)) {
        zmq_pollitem_t it = {k->stdin_sock, 0, ZMQ_POLLIN, 0};
        vs_msg *m = NULL;
        vs_error err;
        json_t *v;
        /* The interrupt flag cannot wake a poll, so look at it often. */
        if (zmq_poll(&it, 1, 20) <= 0 || !(it.revents & ZMQ_POLLIN))
            continue;
        if (rx_recv(k->stdin_sock, r, ZMQ_DONTWAIT) != 1 || !r->n)
            continue;
        vs_error_clear(&err);
        if (parse_fresh(k, &m, r, &err) < 0) {
            klog("dropped a message on stdin: %s", err.message);
            rx_close(r);
            continue;
        }
        rx_close(r);
        v = json_object_get(m->content, "value");
        if (!strcmp(m->msg_type, "input_reply") && json_is_string(v)) {
            *out = strdup(json_string_value(v));
            rc = *out ? 0 : VS_ENOMEM;
            vs_msg_free(m);
            break;
        }
        klog("ignored a %s on stdin", m->msg_type);
        vs_msg_free(m);
    }
    free(r);
    return rc;
}

/* ---- shell requests ---- */

static const char *content_string(const vs_msg *m, const char *key, const char *dflt)
{
    json_t *v = json_object_get(m->content, key);
    return json_is_string(v) ? json_string_value(v) : dflt;
}

static json_int_t content_int(const vs_msg *m, const char *key, json_int_t dflt)
{
    json_t *v = json_object_get(m->content, key);
    return json_is_integer(v) ? json_integer_value(v) : dflt;
}

static int content_bool(const vs_msg *m, const char *key, int dflt)
{
    json_t *v = json_object_get(m->content, key);
    return json_is_boolean(v) ? json_is_true(v) : dflt;
}

/* The traceback is what frontends print (most show nothing else): one line
 * that names the error as well as saying what was expected. */
static json_t *traceback_of(const char *ename, const char *evalue)
{
    char line[VS_ERROR_MESSAGE_MAX + 128];
    snprintf(line, sizeof line, "%s: %s", ename, evalue);
    return json_pack("[o]", jstr(line));
}

static json_t *error_content(const char *ename, const char *evalue)
{
    return json_pack("{s:s, s:s, s:o, s:o}", "status", "error", "ename", ename, "evalue",
                     jstr(evalue), "traceback", traceback_of(ename, evalue));
}

static void abort_execute(vs_kernel *k, const vs_msg *m)
{
    /* jupyter_kernel_test's schema refuses status "aborted", so an aborted cell is
     * an error named Aborted (NOTES.md). Nothing runs and the count stays. */
    json_t *c = error_content(vs_error_ename(VS_EABORTED),
                              "not run: an earlier cell failed and stop_on_error was set");
    publish_status(k, m, "busy");
    if (c)
        json_object_set_new(c, "execution_count", json_integer(k->execution_count));
    reply(k, k->shell, m, "execute_reply", c);
    publish_status(k, m, "idle");
}

/* After a failed cell with stop_on_error, the requests already waiting behind it
 * are aborted. They are collected before the failed cell's reply goes out: any
 * request that arrives before that reply was sent without knowing of the error,
 * which is what "queued" means to the client. A short window lets requests that
 * are in flight inside libzmq arrive. */
static size_t collect_queued(vs_kernel *k, vs_msg **queue, size_t max)
{
    size_t n = 0;
    rx *r = malloc(sizeof *r);
    if (!r)
        return 0;
    while (n < max) {
        zmq_pollitem_t it = {k->shell, 0, ZMQ_POLLIN, 0};
        vs_error err;
        int got = zmq_poll(&it, 1, ABORT_WINDOW_MS);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0 || rx_recv(k->shell, r, ZMQ_DONTWAIT) != 1)
            break;
        if (!r->n) {
            klog("dropped a message on shell: more than %d frames", MAX_FRAMES);
            continue;
        }
        vs_error_clear(&err);
        if (parse_fresh(k, &queue[n], r, &err) < 0)
            klog("dropped a message on shell: %s", err.message);
        else
            n++;
        rx_close(r);
    }
    free(r);
    return n;
}

static void handle_shell(vs_kernel *k, const vs_msg *m);

static void do_execute(vs_kernel *k, const vs_msg *m)
{
    const char *code = content_string(m, "code", NULL);
    int silent = content_bool(m, "silent", 0);
    int store_history = silent ? 0 : content_bool(m, "store_history", 1);
    int stop_on_error = content_bool(m, "stop_on_error", 1);
    exec_ctx ec = {k, m, silent, content_bool(m, "allow_stdin", 0)};
    vs_sink sink = {&ec, sink_display, sink_stream, sink_interrupted, sink_input};
    vs_bundle *result = NULL;
    json_t *rep;
    vs_msg **queue = NULL;
    size_t nqueue = 0, i;
    vs_error err;
    int rc, count;

    vs_error_clear(&err);
    publish_status(k, m, "busy");
    if (!code) {
        reply(k, k->shell, m, "execute_reply",
              error_content(vs_error_ename(VS_EPROTOCOL), "execute_request without code"));
        publish_status(k, m, "idle");
        return;
    }
    if (store_history)
        k->execution_count++;
    count = k->execution_count;
    if (!silent)
        publish(k, "execute_input", m,
                json_pack("{s:s, s:i}", "code", code, "execution_count", count));

    atomic_store(&g_interrupt, 0);
    if (vs_interp_is_exit(code)) {
        /* answered below with the ask_exit payload; a notebook ignores it */
        static const char bye[] = "exit: asking the client to leave (jupyter console does; in a "
                                  "notebook, File > Close and Halt)\n";
        sink_stream(&ec, "stdout", bye, sizeof bye - 1);
        rc = 0;
    }
    else if (k->test_cells && vs_testcell_is(code))
        rc = vs_testcell_execute(code, &sink, &result, &err);
    else
        rc = vs_interp_execute(k->ip, code, &sink, &result, &err);

    if (store_history) {
        char *plain = rc == 0 ? vs_bundle_plain(result) : NULL;
        if (vs_history_add(k->hist, count, code, plain) < 0)
            klog("out of memory: cell %d not kept in history", count);
        free(plain);
    }
    if (rc == 0) {
        if (result && !silent) {
            char head[48];
            snprintf(head, sizeof head, "\"execution_count\":%d,", count);
            publish_bundle(k, "execute_result", m, head, result, "");
        }
        if (vs_interp_is_exit(code))
            /* what ipykernel sends for exit: jupyter console leaves and shuts
             * the kernel down (jupyter_console/ptshell.py, handle_execute_reply) */
            rep = json_pack("{s:s, s:i, s:[{s:s, s:b}], s:{}}", "status", "ok",
                            "execution_count", count, "payload", "source", "ask_exit",
                            "keepkernel", 0, "user_expressions");
        else
            rep = json_pack("{s:s, s:i, s:[], s:{}}", "status", "ok", "execution_count", count,
                            "payload", "user_expressions");
    } else {
        char evalue[VS_ERROR_MESSAGE_MAX + 64];
        const char *ename = vs_error_ename(err.code ? err.code : rc);
        vs_error_evalue(&err, evalue, sizeof evalue);
        if (!silent)
            publish(k, "error", m,
                    json_pack("{s:s, s:o, s:o}", "ename", ename, "evalue", jstr(evalue),
                              "traceback", traceback_of(ename, evalue)));
        rep = error_content(ename, evalue);
        if (rep)
            json_object_set_new(rep, "execution_count", json_integer(count));
        if (stop_on_error && (queue = calloc(MAX_QUEUED, sizeof *queue)))
            nqueue = collect_queued(k, queue, MAX_QUEUED);
    }
    vs_bundle_free(result);
    reply(k, k->shell, m, "execute_reply", rep);
    publish_status(k, m, "idle");

    for (i = 0; i < nqueue; i++) {
        if (!strcmp(queue[i]->msg_type, "execute_request"))
            abort_execute(k, queue[i]);
        else
            handle_shell(k, queue[i]);
        vs_msg_free(queue[i]);
    }
    free(queue);
}

static void do_complete(vs_kernel *k, const vs_msg *m)
{
    const char *code = content_string(m, "code", "");
    size_t len = strlen(code), cp = vs_utf8_byte_to_cp(code, len, len), at, s = 0, e = 0;
    json_int_t pos = content_int(m, "cursor_pos", (json_int_t)cp);
    json_t *matches = NULL;

    if (pos < 0)
        pos = 0;
    at = vs_utf8_cp_to_byte(code, len, (size_t)pos);
    if (vs_interp_complete(k->ip, code, at, &matches, &s, &e) < 0 || !json_is_array(matches)) {
        json_decref(matches);
        matches = json_array();
        s = e = at;
    }
    if (e > len)
        e = len;
    if (s > e)
        s = e;
    reply(k, k->shell, m, "complete_reply",
          json_pack("{s:s, s:o, s:I, s:I, s:{}}", "status", "ok", "matches", matches,
                    "cursor_start", (json_int_t)vs_utf8_byte_to_cp(code, len, s), "cursor_end",
                    (json_int_t)vs_utf8_byte_to_cp(code, len, e), "metadata"));
}

static void do_inspect(vs_kernel *k, const vs_msg *m)
{
    const char *code = content_string(m, "code", "");
    size_t len = strlen(code), cp = vs_utf8_byte_to_cp(code, len, len);
    json_int_t pos = content_int(m, "cursor_pos", (json_int_t)cp);
    int detail = content_int(m, "detail_level", 0) ? 1 : 0;
    json_t *bundle = NULL;

    if (pos < 0)
        pos = 0;
    if (vs_interp_inspect(k->ip, code, vs_utf8_cp_to_byte(code, len, (size_t)pos), detail,
                          &bundle) < 0 ||
        !json_is_object(bundle)) {
        json_decref(bundle);
        bundle = NULL;
    }
    reply(k, k->shell, m, "inspect_reply",
          json_pack("{s:s, s:b, s:o, s:{}}", "status", "ok", "found", bundle != NULL, "data",
                    bundle ? bundle : json_object(), "metadata"));
}

static void do_is_complete(vs_kernel *k, const vs_msg *m)
{
    const char *indent = "";
    const char *status = vs_interp_is_complete(k->ip, content_string(m, "code", ""), &indent);
    json_t *c = json_pack("{s:s}", "status", status ? status : "unknown");
    if (c && status && !strcmp(status, "incomplete"))
        json_object_set_new(c, "indent", json_string(indent ? indent : ""));
    reply(k, k->shell, m, "is_complete_reply", c);
}

static void do_history(vs_kernel *k, const vs_msg *m)
{
    const char *type = content_string(m, "hist_access_type", "tail");
    int output = content_bool(m, "output", 0);
    json_int_t n = content_int(m, "n", 0);
    json_t *h;
    if (n < 0)
        n = 0;
    if (!strcmp(type, "range"))
        h = vs_history_range(k->hist, (int)content_int(m, "session", 0),
                             (int)content_int(m, "start", 0), (int)content_int(m, "stop", 0),
                             output);
    else if (!strcmp(type, "search"))
        h = vs_history_search(k->hist, content_string(m, "pattern", "*"), (size_t)n,
                              content_bool(m, "unique", 0), output);
    else
        h = vs_history_tail(k->hist, json_object_get(m->content, "n") ? (size_t)n : 10, output);
    reply(k, k->shell, m, "history_reply",
          json_pack("{s:s, s:o}", "status", "ok", "history", h ? h : json_array()));
}

static void do_comm_open(vs_kernel *k, const vs_msg *m)
{
    /* No comm targets exist: close at once so that the client does not keep a
     * half-open comm (messaging spec, "Opening a Comm"). */
    const char *id = content_string(m, "comm_id", NULL);
    klog("closed comm %s: no target '%s'", id ? id : "?", content_string(m, "target_name", ""));
    if (id)
        publish(k, "comm_close", m, json_pack("{s:s, s:{}}", "comm_id", id, "data"));
}

static void do_connect(vs_kernel *k, const vs_msg *m)
{
    const int *p = k->conn->ports;
    reply(k, k->shell, m, "connect_reply",
          json_pack("{s:s, s:i, s:i, s:i, s:i, s:i}", "status", "ok", "shell_port",
                    p[VS_CHAN_SHELL], "iopub_port", p[VS_CHAN_IOPUB], "stdin_port",
                    p[VS_CHAN_STDIN], "hb_port", p[VS_CHAN_HB], "control_port",
                    p[VS_CHAN_CONTROL]));
}

/* A request whose content could not be read gets its reply with status error,
 * between busy and idle, so that the client does not wait forever. */
static void reply_bad_content(vs_kernel *k, void *sock, const vs_msg *m)
{
    const char *t = m->msg_type;
    size_t n = strlen(t);
    char rtype[128], evalue[VS_ERROR_MESSAGE_MAX + 64];
    json_t *c;
    klog("a %s with unreadable content: %s", t, m->content_error);
    if (n <= 8 || strcmp(t + n - 8, "_request") != 0 || n - 8 + 7 >= sizeof rtype)
        return; /* not a request: nothing to answer */
    snprintf(rtype, sizeof rtype, "%.*s_reply", (int)(n - 8), t);
    snprintf(evalue, sizeof evalue, "the request's content cannot be read: %s", m->content_error);
    publish_status(k, m, "busy");
    c = error_content(vs_error_ename(VS_EPROTOCOL), evalue);
    if (c && !strcmp(t, "execute_request"))
        json_object_set_new(c, "execution_count", json_integer(k->execution_count));
    reply(k, sock, m, rtype, c);
    publish_status(k, m, "idle");
}

static void handle_shell(vs_kernel *k, const vs_msg *m)
{
    const char *t = m->msg_type;
    if (m->content_error) {
        reply_bad_content(k, k->shell, m);
        return;
    }
    if (!strcmp(t, "execute_request")) {
        do_execute(k, m); /* publishes its own busy and idle */
        return;
    }
    if (strcmp(t, "kernel_info_request") && strcmp(t, "complete_request") &&
        strcmp(t, "inspect_request") && strcmp(t, "is_complete_request") &&
        strcmp(t, "history_request") && strcmp(t, "comm_info_request") && strcmp(t, "comm_open") &&
        strcmp(t, "comm_msg") && strcmp(t, "comm_close") && strcmp(t, "connect_request") &&
        strcmp(t, "shutdown_request")) {
        klog("ignored a %s on shell (unknown message type)", t);
        return;
    }
    publish_status(k, m, "busy");
    if (!strcmp(t, "kernel_info_request"))
        reply(k, k->shell, m, "kernel_info_reply", kernel_info_content());
    else if (!strcmp(t, "complete_request"))
        do_complete(k, m);
    else if (!strcmp(t, "inspect_request"))
        do_inspect(k, m);
    else if (!strcmp(t, "is_complete_request"))
        do_is_complete(k, m);
    else if (!strcmp(t, "history_request"))
        do_history(k, m);
    else if (!strcmp(t, "comm_info_request"))
        reply(k, k->shell, m, "comm_info_reply", json_pack("{s:s, s:{}}", "status", "ok", "comms"));
    else if (!strcmp(t, "comm_open"))
        do_comm_open(k, m);
    else if (!strcmp(t, "connect_request"))
        do_connect(k, m);
    else if (!strcmp(t, "shutdown_request"))
        request_shutdown(k, k->shell, m, NULL); /* deprecated on shell, still honoured */
    else
        klog("ignored a %s: no comms are open", t);
    publish_status(k, m, "idle");
}

/* ---- set-up and the main loop ---- */

static void *open_socket(vs_kernel *k, int type, int chan, vs_error *err)
{
    char ep[VS_CONN_IP_MAX + 64];
    int linger = LINGER_MS, one = 1;
    void *s;
    if (vs_conn_endpoint(k->conn, chan, ep, sizeof ep, err) < 0)
        return NULL;
    s = zmq_socket(k->ctx, type);
    if (!s) {
        vs_error_set(err, VS_EIO, "cannot create the %s socket: %s", vs_conn_channel_name(chan),
                     zmq_strerror(errno));
        return NULL;
    }
    zmq_setsockopt(s, ZMQ_LINGER, &linger, sizeof linger);
    if (type == ZMQ_ROUTER)
        zmq_setsockopt(s, ZMQ_ROUTER_HANDOVER, &one, sizeof one);
    if (strchr(k->conn->ip, ':') && !strcmp(k->conn->transport, "tcp"))
        zmq_setsockopt(s, ZMQ_IPV6, &one, sizeof one);
    if (zmq_bind(s, ep) < 0) {
        vs_error_set(err, VS_EIO, "cannot bind the %s channel to %s: %s",
                     vs_conn_channel_name(chan), ep, zmq_strerror(errno));
        zmq_close(s);
        return NULL;
    }
    return s;
}

static void serve_shell(vs_kernel *k)
{
    rx *r = malloc(sizeof *r);
    if (!r) {
        klog("out of memory: shell channel not served");
        return;
    }
    while (!atomic_load(&k->stop)) {
        zmq_pollitem_t items[2] = {{k->shell, 0, ZMQ_POLLIN, 0}, {k->wake_rx, 0, ZMQ_POLLIN, 0}};
        vs_msg *m = NULL;
        vs_error err;
        int got;
        if (atomic_load(&g_terminate)) {
            klog("ended by SIGTERM");
            atomic_store(&k->stop, 1);
            break;
        }
        /* A measured command's descendant that left its group (setsid) is
         * our child now (runner.h): reaped here, not left a zombie. */
        vs_runner_reap_strays();
        got = zmq_poll(items, 2, IDLE_POLL_MS);
        if (got < 0) {
            if (errno == EINTR)
                continue; /* SIGINT while idle: nothing to interrupt */
            klog("poll failed: %s", zmq_strerror(errno));
            break;
        }
        if (got == 0)
            continue;
        if (items[1].revents & ZMQ_POLLIN) {
            char b;
            while (zmq_recv(k->wake_rx, &b, 1, ZMQ_DONTWAIT) >= 0)
                ;
        }
        if (!(items[0].revents & ZMQ_POLLIN) || atomic_load(&k->stop))
            continue;
        if (rx_recv(k->shell, r, ZMQ_DONTWAIT) != 1)
            continue;
        if (!r->n) {
            klog("dropped a message on shell: more than %d frames", MAX_FRAMES);
            continue;
        }
        vs_error_clear(&err);
        if (parse_fresh(k, &m, r, &err) < 0) {
            klog("dropped a message on shell: %s", err.message);
            rx_close(r);
            continue;
        }
        rx_close(r);
        handle_shell(k, m);
        vs_msg_free(m);
    }
    atomic_store(&k->stop, 1);
    free(r);
}

int vs_kernel_serve(const vs_conn *conn, vs_interp *ip, const vs_kernel_options *opts,
                    vs_error *err)
{
    vs_kernel k;
    struct sigaction sa, old_sa, old_term;
    sigset_t block, old_mask;
    int rc = 0, control_started = 0, hb_started = 0, parent_started = 0, zero = 0;
    pthread_t control_thr, hb_thr, parent_thr;
    const char *user = getenv("USER");

    memset(&k, 0, sizeof k);
    if (sodium_init() < 0)
        return vs_error_set(err, VS_EIO, "libsodium cannot start (no entropy source?)");
    k.conn = conn;
    k.key = (const unsigned char *)conn->key;
    k.keylen = conn->key_len;
    k.ip = ip;
    k.test_cells = opts ? opts->test_cells : 0;
    k.parent_pid = opts && opts->parent_pid > 1 ? opts->parent_pid : 0;
    pthread_mutex_init(&k.iopub_lock, NULL);
    atomic_store(&g_interrupt, 0);
    vs_wire_uuid4(k.session);
    snprintf(k.username, sizeof k.username, "%s", user && *user ? user : "vramsheet");
    pthread_mutex_init(&k.replay_lock, NULL);
    k.hist = vs_history_new(HISTORY_ENTRIES, HISTORY_BYTES);
    k.replay = vs_replay_new(REPLAY_REMEMBERED);
    if (!k.hist || !k.replay) {
        rc = vs_error_set(err, VS_ENOMEM, "out of memory");
        goto done;
    }

    /* SIGINT and SIGTERM go to the main thread only: every thread started from
     * here on (libzmq's included) inherits a mask that blocks them. */
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, &old_mask);

    k.ctx = zmq_ctx_new();
    if (!k.ctx) {
        rc = vs_error_set(err, VS_EIO, "cannot create a ZeroMQ context: %s", zmq_strerror(errno));
        goto unmask;
    }
    if (!(k.shell = open_socket(&k, ZMQ_ROUTER, VS_CHAN_SHELL, err)) ||
        !(k.control = open_socket(&k, ZMQ_ROUTER, VS_CHAN_CONTROL, err)) ||
        !(k.stdin_sock = open_socket(&k, ZMQ_ROUTER, VS_CHAN_STDIN, err)) ||
        !(k.iopub = open_socket(&k, ZMQ_PUB, VS_CHAN_IOPUB, err)) ||
        !(k.hb = open_socket(&k, ZMQ_REP, VS_CHAN_HB, err))) {
        rc = err ? err->code : VS_EIO;
        goto unmask;
    }
    k.wake_rx = zmq_socket(k.ctx, ZMQ_PAIR);
    k.wake_tx = zmq_socket(k.ctx, ZMQ_PAIR);
    if (!k.wake_rx || !k.wake_tx || zmq_bind(k.wake_rx, WAKE_ENDPOINT) < 0 ||
        zmq_connect(k.wake_tx, WAKE_ENDPOINT) < 0) {
        rc = vs_error_set(err, VS_EIO, "cannot create the wake-up pair: %s", zmq_strerror(errno));
        goto unmask;
    }
    zmq_setsockopt(k.wake_rx, ZMQ_LINGER, &zero, sizeof zero);
    zmq_setsockopt(k.wake_tx, ZMQ_LINGER, &zero, sizeof zero);

    if (pthread_create(&hb_thr, NULL, hb_main, &k) != 0) {
        rc = vs_error_set(err, VS_ENOMEM, "cannot start the heartbeat thread");
        goto unmask;
    }
    hb_started = 1;
    if (pthread_create(&control_thr, NULL, control_main, &k) != 0) {
        rc = vs_error_set(err, VS_ENOMEM, "cannot start the control thread");
        goto unmask;
    }
    control_started = 1;
    if (k.parent_pid) {
        if (pthread_create(&parent_thr, NULL, parent_main, &k) != 0) {
            rc = vs_error_set(err, VS_ENOMEM, "cannot start the parent-watch thread");
            goto unmask;
        }
        parent_started = 1;
    }

unmask:
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    if (rc < 0)
        goto done;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_sa);
    sa.sa_handler = on_sigterm;
    sigaction(SIGTERM, &sa, &old_term);

    publish_status(&k, NULL, "starting");
    serve_shell(&k);

    sigaction(SIGINT, &old_sa, NULL);
    sigaction(SIGTERM, &old_term, NULL);
done:
    if (k.ctx) {
        /* Wakes the control and heartbeat threads out of their blocking receives
         * (ETERM); they close their own sockets. */
        zmq_ctx_shutdown(k.ctx);
        if (control_started)
            pthread_join(control_thr, NULL);
        else {
            if (k.control)
                zmq_close(k.control);
            if (k.wake_tx)
                zmq_close(k.wake_tx);
        }
        atomic_store(&k.stop, 1);
        if (parent_started)
            pthread_join(parent_thr, NULL);
        if (hb_started)
            pthread_join(hb_thr, NULL);
        else if (k.hb)
            zmq_close(k.hb);
        if (k.shell)
            zmq_close(k.shell);
        if (k.stdin_sock)
            zmq_close(k.stdin_sock);
        if (k.iopub)
            zmq_close(k.iopub);
        if (k.wake_rx)
            zmq_close(k.wake_rx);
        zmq_ctx_term(k.ctx);
    }
    vs_history_free(k.hist);
    vs_replay_free(k.replay);
    pthread_mutex_destroy(&k.replay_lock);
    pthread_mutex_destroy(&k.iopub_lock);
    return rc;
}
