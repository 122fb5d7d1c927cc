/* kernel_shell.c — the requests the kernel serves (kernel_internal.h): one
 * handler per message type, dispatched from one {msg_type, handler} table for
 * the shell and control channels. The interpreter is reached through its ops
 * table (ops.h) only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/kernel_internal.h"
#include "util/utf8.h"

static json_t *kernel_info_content(vs_kernel *k)
{
    json_t *li = k->ops->language_info(k->self);
    if (!li)
        return NULL;
    return json_pack("{s:s, s:s, s:s, s:s, s:o, s:o, s:[], s:b}", "status", "ok",
                     "protocol_version", VS_WIRE_PROTOCOL_VERSION, "implementation", "vramsheet",
                     "implementation_version", VS_VERSION, "language_info", li, "banner",
                     vs_kernel_jstr(k->ops->banner(k->self)), "help_links", "debugger", 0);
}

static void request_shutdown(vs_kernel *k, void *sock, const vs_msg *req, void *wake)
{
    int restart = json_is_true(json_object_get(req->content, "restart"));
    vs_kernel_reply(k, sock, req, "shutdown_reply",
                    json_pack("{s:s, s:b}", "status", "ok", "restart", restart));
    /* Other clients learn of the shutdown too, as ipykernel does. */
    vs_kernel_publish(k, "shutdown_reply", req,
                      json_pack("{s:s, s:b}", "status", "ok", "restart", restart));
    atomic_store(&k->stop, 1);
    atomic_store(&vs_kernel_interrupt, 1); /* a running cell stops at its next poll */
    if (wake)
        zmq_send(wake, "", 0, ZMQ_DONTWAIT);
}

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
    return json_pack("[o]", vs_kernel_jstr(line));
}

static json_t *error_content(const char *ename, const char *evalue)
{
    return json_pack("{s:s, s:s, s:o, s:o}", "status", "error", "ename", ename, "evalue",
                     vs_kernel_jstr(evalue), "traceback", traceback_of(ename, evalue));
}

static void abort_execute(vs_kernel *k, const vs_msg *m)
{
    /* jupyter_kernel_test's schema refuses status "aborted", so an aborted cell is
     * an error named Aborted (jupyter_kernel_test 0.4.5, its reply schema). Nothing runs and the
     * count stays. */
    json_t *c = error_content(vs_error_ename(VS_EABORTED),
                              "not run: an earlier cell failed and stop_on_error was set");
    vs_kernel_publish_status(k, m, "busy");
    if (c)
        json_object_set_new(c, "execution_count", json_integer(k->execution_count));
    vs_kernel_reply(k, k->shell, m, "execute_reply", c);
    vs_kernel_publish_status(k, m, "idle");
}

/* After a failed cell with stop_on_error, the requests already waiting behind it
 * are aborted. They are collected before the failed cell's reply goes out: any
 * request that arrives before that reply was sent without knowing of the error,
 * which is what "queued" means to the client. A short window lets requests that
 * are in flight inside libzmq arrive. */
static size_t collect_queued(vs_kernel *k, vs_msg **queue, size_t max)
{
    size_t n = 0;
    vs_kernel_rx *r = malloc(sizeof *r);
    if (!r)
        return 0;
    while (n < max) {
        zmq_pollitem_t it = {k->shell, 0, ZMQ_POLLIN, 0};
        vs_error err;
        int got = zmq_poll(&it, 1, ABORT_WINDOW_MS);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0 || vs_kernel_rx_recv(k->shell, r, ZMQ_DONTWAIT) != 1)
            break;
        if (!r->n) {
            vs_kernel_log("dropped a message on shell: more than %d frames", MAX_FRAMES);
            continue;
        }
        vs_error_clear(&err);
        if (vs_kernel_parse_fresh(k, &queue[n], r, &err) < 0)
            vs_kernel_log("dropped a message on shell: %s", err.message);
        else
            n++;
        vs_kernel_rx_close(r);
    }
    free(r);
    return n;
}

static void do_execute(vs_kernel *k, void *sock, const vs_msg *m)
{
    const char *code = content_string(m, "code", NULL);
    int silent = content_bool(m, "silent", 0);
    int store_history = silent ? 0 : content_bool(m, "store_history", 1);
    int stop_on_error = content_bool(m, "stop_on_error", 1);
    vs_kernel_exec ec = {k, m, silent, content_bool(m, "allow_stdin", 0)};
    vs_sink sink;
    vs_bundle *result = NULL;
    json_t *rep;
    vs_msg **queue = NULL;
    size_t nqueue = 0, i;
    vs_error err;
    int rc, count;

    vs_kernel_sink_init(&sink, &ec);
    vs_error_clear(&err);
    vs_kernel_publish_status(k, m, "busy");
    if (!code) {
        vs_kernel_reply(
            k, k->shell, m, "execute_reply",
            error_content(vs_error_ename(VS_EPROTOCOL), "execute_request without code"));
        vs_kernel_publish_status(k, m, "idle");
        return;
    }
    if (store_history)
        k->execution_count++;
    count = k->execution_count;
    if (!silent)
        vs_kernel_publish(k, "execute_input", m,
                          json_pack("{s:s, s:i}", "code", code, "execution_count", count));

    atomic_store(&vs_kernel_interrupt, 0);
    if (k->ops->is_exit(k->self, code)) {
        /* answered below with the ask_exit payload; a notebook ignores it */
        static const char bye[] = "exit: asking the client to leave (jupyter console does; in a "
                                  "notebook, File > Close and Halt)\n";
        vs_kernel_sink_stream(&ec, "stdout", bye, sizeof bye - 1);
        rc = 0;
    } else
        rc = k->ops->execute(k->self, code, &sink, &result, &err);

    if (store_history) {
        char *plain = rc == 0 ? vs_bundle_plain(result) : NULL;
        if (vs_history_add(k->hist, count, code, plain) < 0)
            vs_kernel_log("out of memory: cell %d not kept in history", count);
        free(plain);
    }
    if (rc == 0) {
        if (result && !silent) {
            char head[48];
            snprintf(head, sizeof head, "\"execution_count\":%d,", count);
            vs_kernel_publish_bundle(k, "execute_result", m, head, result, "");
        }
        if (k->ops->is_exit(k->self, code))
            /* what ipykernel sends for exit: jupyter console leaves and shuts
             * the kernel down (jupyter_console/ptshell.py, handle_execute_reply) */
            rep = json_pack("{s:s, s:i, s:[{s:s, s:b}], s:{}}", "status", "ok", "execution_count",
                            count, "payload", "source", "ask_exit", "keepkernel", 0,
                            "user_expressions");
        else
            rep = json_pack("{s:s, s:i, s:[], s:{}}", "status", "ok", "execution_count", count,
                            "payload", "user_expressions");
    } else {
        char evalue[VS_ERROR_MESSAGE_MAX + 64];
        const char *ename = vs_error_ename(err.code ? err.code : rc);
        vs_error_evalue(&err, evalue, sizeof evalue);
        if (!silent)
            vs_kernel_publish(k, "error", m,
                              json_pack("{s:s, s:o, s:o}", "ename", ename, "evalue",
                                        vs_kernel_jstr(evalue), "traceback",
                                        traceback_of(ename, evalue)));
        rep = error_content(ename, evalue);
        if (rep)
            json_object_set_new(rep, "execution_count", json_integer(count));
        if (stop_on_error && (queue = calloc(MAX_QUEUED, sizeof *queue)))
            nqueue = collect_queued(k, queue, MAX_QUEUED);
    }
    vs_bundle_free(result);
    vs_kernel_reply(k, k->shell, m, "execute_reply", rep);
    vs_kernel_publish_status(k, m, "idle");

    for (i = 0; i < nqueue; i++) {
        if (!strcmp(queue[i]->msg_type, "execute_request"))
            abort_execute(k, queue[i]);
        else
            vs_kernel_dispatch(k, VS_KERNEL_SHELL, k->shell, queue[i]);
        vs_msg_free(queue[i]);
    }
    free(queue);
}

static void do_complete(vs_kernel *k, void *sock, const vs_msg *m)
{
    const char *code = content_string(m, "code", "");
    size_t len = strlen(code), cp = vs_utf8_byte_to_cp(code, len, len), at, s = 0, e = 0;
    json_int_t pos = content_int(m, "cursor_pos", (json_int_t)cp);
    json_t *matches = NULL;

    if (pos < 0)
        pos = 0;
    at = vs_utf8_cp_to_byte(code, len, (size_t)pos);
    if (k->ops->complete(k->self, code, at, &matches, &s, &e) < 0 || !json_is_array(matches)) {
        json_decref(matches);
        matches = json_array();
        s = e = at;
    }
    if (e > len)
        e = len;
    if (s > e)
        s = e;
    vs_kernel_reply(k, k->shell, m, "complete_reply",
                    json_pack("{s:s, s:o, s:I, s:I, s:{}}", "status", "ok", "matches", matches,
                              "cursor_start", (json_int_t)vs_utf8_byte_to_cp(code, len, s),
                              "cursor_end", (json_int_t)vs_utf8_byte_to_cp(code, len, e),
                              "metadata"));
}

static void do_inspect(vs_kernel *k, void *sock, const vs_msg *m)
{
    const char *code = content_string(m, "code", "");
    size_t len = strlen(code), cp = vs_utf8_byte_to_cp(code, len, len);
    json_int_t pos = content_int(m, "cursor_pos", (json_int_t)cp);
    int detail = content_int(m, "detail_level", 0) ? 1 : 0;
    json_t *bundle = NULL;

    if (pos < 0)
        pos = 0;
    if (k->ops->inspect(k->self, code, vs_utf8_cp_to_byte(code, len, (size_t)pos), detail,
                        &bundle) < 0 ||
        !json_is_object(bundle)) {
        json_decref(bundle);
        bundle = NULL;
    }
    vs_kernel_reply(k, k->shell, m, "inspect_reply",
                    json_pack("{s:s, s:b, s:o, s:{}}", "status", "ok", "found", bundle != NULL,
                              "data", bundle ? bundle : json_object(), "metadata"));
}

static void do_is_complete(vs_kernel *k, void *sock, const vs_msg *m)
{
    const char *indent = "";
    const char *status = k->ops->is_complete(k->self, content_string(m, "code", ""), &indent);
    json_t *c = json_pack("{s:s}", "status", status ? status : "unknown");
    if (c && status && !strcmp(status, "incomplete"))
        json_object_set_new(c, "indent", json_string(indent ? indent : ""));
    vs_kernel_reply(k, k->shell, m, "is_complete_reply", c);
}

static void do_history(vs_kernel *k, void *sock, const vs_msg *m)
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
    vs_kernel_reply(k, k->shell, m, "history_reply",
                    json_pack("{s:s, s:o}", "status", "ok", "history", h ? h : json_array()));
}

static void do_comm_open(vs_kernel *k, void *sock, const vs_msg *m)
{
    /* No comm targets exist: close at once so that the client does not keep a
     * half-open comm (messaging spec, "Opening a Comm"). */
    const char *id = content_string(m, "comm_id", NULL);
    vs_kernel_log("closed comm %s: no target '%s'", id ? id : "?",
                  content_string(m, "target_name", ""));
    if (id)
        vs_kernel_publish(k, "comm_close", m, json_pack("{s:s, s:{}}", "comm_id", id, "data"));
}

static void do_connect(vs_kernel *k, void *sock, const vs_msg *m)
{
    const int *p = k->conn->ports;
    vs_kernel_reply(k, k->shell, m, "connect_reply",
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
    vs_kernel_log("a %s with unreadable content: %s", t, m->content_error);
    if (n <= 8 || strcmp(t + n - 8, "_request") != 0 || n - 8 + 7 >= sizeof rtype)
        return; /* not a request: nothing to answer */
    snprintf(rtype, sizeof rtype, "%.*s_reply", (int)(n - 8), t);
    snprintf(evalue, sizeof evalue, "the request's content cannot be read: %s", m->content_error);
    vs_kernel_publish_status(k, m, "busy");
    c = error_content(vs_error_ename(VS_EPROTOCOL), evalue);
    if (c && !strcmp(t, "execute_request"))
        json_object_set_new(c, "execution_count", json_integer(k->execution_count));
    vs_kernel_reply(k, sock, m, rtype, c);
    vs_kernel_publish_status(k, m, "idle");
}

/* ---- the requests both channels serve, and control's own ---- */

static void do_kernel_info(vs_kernel *k, void *sock, const vs_msg *m)
{
    vs_kernel_reply(k, sock, m, "kernel_info_reply", kernel_info_content(k));
}

static void do_shutdown(vs_kernel *k, void *sock, const vs_msg *m)
{
    /* on control, the shell loop is woken to stop; on shell (deprecated there,
     * still honoured) it is the loop itself */
    request_shutdown(k, sock, m, sock == k->control ? k->wake_tx : NULL);
}

static void do_interrupt(vs_kernel *k, void *sock, const vs_msg *m)
{
    atomic_store(&vs_kernel_interrupt, 1);
    vs_kernel_reply(k, sock, m, "interrupt_reply", json_pack("{s:s}", "status", "ok"));
}

static void do_comm_info(vs_kernel *k, void *sock, const vs_msg *m)
{
    vs_kernel_reply(k, sock, m, "comm_info_reply",
                    json_pack("{s:s, s:{}}", "status", "ok", "comms"));
}

static void do_comm_ignored(vs_kernel *k, void *sock, const vs_msg *m)
{
    vs_kernel_log("ignored a %s: no comms are open", m->msg_type);
}

/* ---- dispatch ---- */

#define SHELL VS_KERNEL_SHELL
#define CONTROL VS_KERNEL_CONTROL

/* Every message type the kernel serves, the channels it is served on, and
 * whether the handler publishes its own busy and idle (else dispatch does,
 * around it). */
static const struct handler {
    const char *msg_type;
    void (*fn)(vs_kernel *k, void *sock, const vs_msg *m);
    unsigned channels;
    int own_status;
} handlers[] = {
    {"execute_request", do_execute, SHELL, 1},
    {"kernel_info_request", do_kernel_info, SHELL | CONTROL, 0},
    {"complete_request", do_complete, SHELL, 0},
    {"inspect_request", do_inspect, SHELL, 0},
    {"is_complete_request", do_is_complete, SHELL, 0},
    {"history_request", do_history, SHELL, 0},
    {"comm_info_request", do_comm_info, SHELL, 0},
    {"comm_open", do_comm_open, SHELL, 0},
    {"comm_msg", do_comm_ignored, SHELL, 0},
    {"comm_close", do_comm_ignored, SHELL, 0},
    {"connect_request", do_connect, SHELL, 0},
    {"shutdown_request", do_shutdown, SHELL | CONTROL, 0},
    {"interrupt_request", do_interrupt, CONTROL, 0},
};

void vs_kernel_dispatch(vs_kernel *k, unsigned channel, void *sock, const vs_msg *m)
{
    const struct handler *h = NULL;
    size_t i;
    /* shell answers a request it cannot read; control reads what it can */
    if (channel == SHELL && m->content_error) {
        reply_bad_content(k, sock, m);
        return;
    }
    for (i = 0; i < sizeof handlers / sizeof handlers[0] && !h; i++)
        if ((handlers[i].channels & channel) && !strcmp(handlers[i].msg_type, m->msg_type))
            h = &handlers[i];
    if (!h) {
        vs_kernel_log("ignored a %s on %s (unknown message type)", m->msg_type,
                      channel == SHELL ? "shell" : "control");
        return;
    }
    if (h->own_status) {
        h->fn(k, sock, m);
        return;
    }
    vs_kernel_publish_status(k, m, "busy");
    h->fn(k, sock, m);
    vs_kernel_publish_status(k, m, "idle");
}
