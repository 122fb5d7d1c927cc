/* kernel.c — the server (kernel.h): sockets, signals, the control, heartbeat and
 * parent-watch threads, and the shell loop; the rest of the transport is in
 * kernel_io.c, kernel_shell.c and kernel_sink.c (kernel_internal.h). */
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

#include "kernel/kernel_internal.h"

#define LINGER_MS 200        /* how long close waits for unsent messages */
#define HISTORY_ENTRIES 1000 /* jupyter console asks for the last 1,000 */
#define HISTORY_BYTES (1u << 20)
#define WAKE_ENDPOINT "inproc://vramsheet-wake"
#define IDLE_POLL_MS 500       /* how often the idle loop reaps strays and looks at SIGTERM */
#define REPLAY_REMEMBERED 8192 /* signatures remembered at least (about 1 MB) */

/* The process-wide state (kernel_internal.h): a signal handler can reach
 * nothing else. Set by SIGINT and by interrupt_request; cleared when a cell starts. */
atomic_int vs_kernel_interrupt;

static void on_sigint(int sig)
{
    (void)sig;
    atomic_store(&vs_kernel_interrupt, 1);
}

/* Set by SIGTERM (jupyter_client's shutdown sends it after shutdown_request, and
 * it is what `kill` sends): the kernel ends. The interpreter's terminate op runs
 * first, at once (it ends a measured command's group), and the running cell stops
 * as if interrupted. The ops and their self, for the handler. */
static atomic_int g_terminate;
static const vs_kernel_ops *g_ops;
static void *g_self;

static void on_sigterm(int sig)
{
    (void)sig;
    atomic_store(&g_terminate, 1);
    atomic_store(&vs_kernel_interrupt, 1);
    if (g_ops)
        g_ops->terminate(g_self);
}

/* ---- control thread ---- */

static void *control_main(void *arg)
{
    vs_kernel *k = arg;
    vs_kernel_rx *r = malloc(sizeof *r);
    if (!r) {
        vs_kernel_log("out of memory: control channel not served");
        return NULL;
    }
    for (;;) {
        vs_msg *m = NULL;
        vs_error err;
        int got = vs_kernel_rx_recv(k->control, r, 0);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            break; /* ETERM: the context is shutting down */
        }
        if (!r->n) {
            vs_kernel_log("dropped a message on control: more than %d frames", MAX_FRAMES);
            continue;
        }
        vs_error_clear(&err);
        if (vs_kernel_parse_fresh(k, &m, r, &err) < 0) {
            vs_kernel_log("dropped a message on control: %s", err.message);
            vs_kernel_rx_close(r);
            continue;
        }
        vs_kernel_rx_close(r);
        vs_kernel_dispatch(k, VS_KERNEL_CONTROL, k->control, m);
        vs_msg_free(m);
    }
    free(r);
    zmq_close(k->control);
    zmq_close(k->wake_tx);
    return NULL;
}

/* ---- heartbeat thread: echo, always ---- */

#define HB_FRAMES 64 /* a ping's frames echoed; more are received and dropped */

/* A REP socket takes a reply only once the whole request is in (a send between
 * its frames fails with EFSM), so all frames are read first, then sent back in
 * order: a multipart ping is echoed whole. */
static void *hb_main(void *arg)
{
    vs_kernel *k = arg;
    zmq_msg_t parts[HB_FRAMES];
    for (;;) {
        size_t n = 0, i;
        int more = 1, failed = 0, e = 0;
        while (more) {
            zmq_msg_t extra, *m = n < HB_FRAMES ? &parts[n] : &extra;
            zmq_msg_init(m);
            if (zmq_msg_recv(m, k->hb, 0) < 0) {
                e = errno;
                zmq_msg_close(m);
                if (e == EINTR)
                    continue;
                failed = 2; /* the socket is closed or the context ended */
                break;
            }
            more = zmq_msg_more(m);
            if (m == &extra)
                zmq_msg_close(m);
            else
                n++;
        }
        pthread_mutex_lock(&k->send_lock);
        for (i = 0; i < n && !failed; i++) {
            if (zmq_msg_send(&parts[i], k->hb, i + 1 < n ? ZMQ_SNDMORE : 0) < 0) {
                failed = 1;
                e = errno;
                break;
            }
        }
        pthread_mutex_unlock(&k->send_lock);
        for (; i < n; i++)
            zmq_msg_close(&parts[i]); /* the ones not sent (a sent one is the socket's) */
        if (failed == 2 || (failed && (e == ETERM || e == ENOTSOCK)))
            break;
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
        vs_kernel_log("the parent process %d (JPY_PARENT_PID) is gone: shutting down",
                      (int)k->parent_pid);
        kill(getpid(), SIGTERM); /* taken by the main thread: the others block it */
        for (waited = 0; waited < PARENT_EXIT_MS && !atomic_load(&k->stop); waited += 100)
            sleep_ms(100);
        if (!atomic_load(&k->stop)) {
            vs_kernel_log("still running %d s after the parent went: exiting",
                          PARENT_EXIT_MS / 1000);
            _exit(1);
        }
        break;
    }
    return NULL;
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
    vs_kernel_rx *r = malloc(sizeof *r);
    if (!r) {
        vs_kernel_log("out of memory: shell channel not served");
        return;
    }
    while (!atomic_load(&k->stop)) {
        zmq_pollitem_t items[2] = {{k->shell, 0, ZMQ_POLLIN, 0}, {k->wake_rx, 0, ZMQ_POLLIN, 0}};
        vs_msg *m = NULL;
        vs_error err;
        int got;
        if (atomic_load(&g_terminate)) {
            vs_kernel_log("ended by SIGTERM");
            atomic_store(&k->stop, 1);
            break;
        }
        /* The interpreter's idle work: a measured command's descendant that left
         * its group (setsid) is our child now, reaped there, not left a zombie. */
        k->ops->idle(k->self);
        got = zmq_poll(items, 2, IDLE_POLL_MS);
        if (got < 0) {
            if (errno == EINTR)
                continue; /* SIGINT while idle: nothing to interrupt */
            vs_kernel_log("poll failed: %s", zmq_strerror(errno));
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
        if (vs_kernel_rx_recv(k->shell, r, ZMQ_DONTWAIT) != 1)
            continue;
        if (!r->n) {
            vs_kernel_log("dropped a message on shell: more than %d frames", MAX_FRAMES);
            continue;
        }
        vs_error_clear(&err);
        if (vs_kernel_parse_fresh(k, &m, r, &err) < 0) {
            vs_kernel_log("dropped a message on shell: %s", err.message);
            vs_kernel_rx_close(r);
            continue;
        }
        vs_kernel_rx_close(r);
        vs_kernel_dispatch(k, VS_KERNEL_SHELL, k->shell, m);
        vs_msg_free(m);
    }
    atomic_store(&k->stop, 1);
    free(r);
}

int vs_kernel_serve(const vs_conn *conn, const vs_kernel_ops *ops, void *self,
                    const vs_kernel_options *opts, vs_error *err)
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
    k.ops = ops;
    k.self = self;
    k.parent_pid = opts && opts->parent_pid > 1 ? opts->parent_pid : 0;
    pthread_mutex_init(&k.send_lock, NULL);
    atomic_store(&vs_kernel_interrupt, 0);
    vs_wire_uuid4(k.session);
    snprintf(k.username, sizeof k.username, "%s", user && *user ? user : "vramsheet");
    pthread_mutex_init(&k.replay_lock, NULL);
    k.hist = vs_history_new(HISTORY_ENTRIES, HISTORY_BYTES);
    k.replay = vs_replay_new(REPLAY_REMEMBERED);
    if (!k.hist || !k.replay) {
        rc = vs_error_set(err, VS_ENOMEM, "out of memory");
        goto done;
    }

    /* A log line to a stderr whose reader has gone (a closed pipe) must not end
     * the kernel: the write fails with EPIPE instead, and the line is lost. A
     * measured command gets the default back (runner.c resets every signal). */
    signal(SIGPIPE, SIG_IGN);

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
    g_ops = ops;
    g_self = self;
    sa.sa_handler = on_sigterm;
    sigaction(SIGTERM, &sa, &old_term);

    vs_kernel_publish_status(&k, NULL, "starting");
    serve_shell(&k);

    sigaction(SIGINT, &old_sa, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    g_ops = NULL;
    g_self = NULL;
    ops->shutdown(self);
done:
    if (k.ctx) {
        /* Wakes the control and heartbeat threads out of their blocking receives
         * (ETERM); they close their own sockets. */
        pthread_mutex_lock(&k.send_lock); /* after any send under way, whole */
        zmq_ctx_shutdown(k.ctx);
        pthread_mutex_unlock(&k.send_lock);
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
    pthread_mutex_destroy(&k.send_lock);
    return rc;
}
