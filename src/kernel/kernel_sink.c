/* kernel_sink.c — the sink of a running cell (kernel_internal.h): displays and
 * streams go to IOPub, input requests to stdin, and the interrupt flag is polled. */
#include <stdlib.h>
#include <string.h>

#include "kernel/kernel_internal.h"
#include "util/buf.h"
#include "util/json.h"

static void sink_display(void *ctx, const vs_bundle *bundle, const char *display_id, int update)
{
    vs_kernel_exec *ec = ctx;
    vs_buf tail = VS_BUF_INIT;
    if (ec->silent || !bundle)
        return;
    if (display_id) {
        vs_buf_puts(&tail, ",\"transient\":{\"display_id\":");
        vs_json_dump_string_lossy(display_id, strlen(display_id), &tail);
        vs_buf_putc(&tail, '}');
    }
    if (!vs_buf_failed(&tail))
        vs_kernel_publish_bundle(ec->k, update ? "update_display_data" : "display_data", ec->req,
                                 "", bundle, vs_buf_str(&tail));
    vs_buf_free(&tail);
}

void vs_kernel_sink_stream(void *ctx, const char *name, const char *text, size_t len)
{
    vs_kernel_exec *ec = ctx;
    if (ec->silent || !len)
        return;
    if (strcmp(name, "stderr"))
        name = "stdout";
    vs_kernel_publish(ec->k, "stream", ec->req,
                      json_pack("{s:s, s:o}", "name", name, "text", vs_kernel_jstrn(text, len)));
}

static int sink_interrupted(void *ctx)
{
    (void)ctx;
    return atomic_load(&vs_kernel_interrupt);
}

static int sink_input(void *ctx, const char *prompt, int password, char **out)
{
    vs_kernel_exec *ec = ctx;
    vs_kernel *k = ec->k;
    vs_kernel_rx *r = NULL;
    int rc = VS_EINTERRUPT;

    *out = NULL;
    if (!ec->allow_stdin)
        return VS_EVALUE;
    r = malloc(sizeof *r);
    if (!r)
        return VS_ENOMEM;
    /* Replies to an earlier, abandoned request must not answer this one. */
    while (vs_kernel_rx_recv(k->stdin_sock, r, ZMQ_DONTWAIT) == 1)
        vs_kernel_rx_close(r);
    vs_kernel_send(k, k->stdin_sock, ec->req->ids, ec->req->nids, "input_request", ec->req,
                   json_pack("{s:o, s:b}", "prompt", vs_kernel_jstr(prompt ? prompt : ""),
                             "password", password));
    while (!atomic_load(&vs_kernel_interrupt) && !atomic_load(&k->stop)) {
        zmq_pollitem_t it = {k->stdin_sock, 0, ZMQ_POLLIN, 0};
        vs_msg *m = NULL;
        vs_error err;
        json_t *v;
        /* The interrupt flag cannot wake a poll, so look at it often. */
        if (zmq_poll(&it, 1, 20) <= 0 || !(it.revents & ZMQ_POLLIN))
            continue;
        if (vs_kernel_rx_recv(k->stdin_sock, r, ZMQ_DONTWAIT) != 1 || !r->n)
            continue;
        vs_error_clear(&err);
        if (vs_kernel_parse_fresh(k, &m, r, &err) < 0) {
            vs_kernel_log("dropped a message on stdin: %s", err.message);
            vs_kernel_rx_close(r);
            continue;
        }
        vs_kernel_rx_close(r);
        v = json_object_get(m->content, "value");
        if (!strcmp(m->msg_type, "input_reply") && json_is_string(v)) {
            *out = strdup(json_string_value(v));
            rc = *out ? 0 : VS_ENOMEM;
            vs_msg_free(m);
            break;
        }
        vs_kernel_log("ignored a %s on stdin", m->msg_type);
        vs_msg_free(m);
    }
    free(r);
    return rc;
}

void vs_kernel_sink_init(vs_sink *sink, vs_kernel_exec *ec)
{
    sink->ctx = ec;
    sink->display = sink_display;
    sink->stream = vs_kernel_sink_stream;
    sink->interrupted = sink_interrupted;
    sink->input = sink_input;
}
