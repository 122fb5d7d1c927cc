/* kernel_io.c — the transport's messages: receiving a multipart message,
 * checking it (signature, replay), and signing and sending replies and IOPub
 * messages (kernel_internal.h). */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "kernel/kernel_internal.h"
#include "util/json.h"
#include "util/utf8.h"

void vs_kernel_log(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    /* One write per line, so that threads' lines do not interleave. */
    fprintf(stderr, "vramsheet kernel: %s\n", line);
}

void vs_kernel_rx_close(vs_kernel_rx *r)
{
    size_t i;
    for (i = 0; i < r->n; i++)
        zmq_msg_close(&r->parts[i]);
    r->n = 0;
}

/* Receives all parts of one message. Returns 1 when a message was read (r->n may
 * be 0 when it had too many frames: it was drained and must be dropped), 0 when
 * nothing was there (flags ZMQ_DONTWAIT), -1 on error with errno set. */
int vs_kernel_rx_recv(void *sock, vs_kernel_rx *r, int flags)
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
            vs_kernel_rx_close(r);
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
        vs_kernel_rx_close(r);
    return 1;
}

/* Parses a received message (vs_wire_parse) and refuses one whose signature was
 * accepted before, on any channel and from any identity: a replay. Returns 0,
 * or a negative code with err saying why (the message is then dropped). */
int vs_kernel_parse_fresh(vs_kernel *k, vs_msg **m, const vs_kernel_rx *r, vs_error *err)
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
 * taken; NULL when it could not be made, which is logged and dropped), under
 * the send lock. */
int vs_kernel_send_raw(vs_kernel *k, void *sock, const vs_frame *ids, size_t nids,
                       const char *msg_type, const vs_msg *parent, char *content,
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
        vs_kernel_log("out of memory (or content that is not JSON) building %s", msg_type);
        free(content);
        rc = VS_ENOMEM;
        goto done;
    }
    rc = vs_wire_serialize_raw(&frames, &n, ids, nids, header, parent ? &parent->header_raw : NULL,
                               NULL, content, content_len, k->key, k->keylen, &err);
    if (rc < 0) {
        vs_kernel_log("cannot serialise %s: %s", msg_type, err.message);
        goto done;
    }
    pthread_mutex_lock(&k->send_lock);
    if (send_frames(sock, frames, n) < 0 && errno != ETERM)
        vs_kernel_log("cannot send %s: %s", msg_type, zmq_strerror(errno));
    pthread_mutex_unlock(&k->send_lock);
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
int vs_kernel_send(vs_kernel *k, void *sock, const vs_frame *ids, size_t nids, const char *msg_type,
                   const vs_msg *parent, json_t *content)
{
    size_t len = 0;
    char *text = content_text(content, &len);
    return vs_kernel_send_raw(k, sock, ids, nids, msg_type, parent, text, len);
}

/* On IOPub, content already JSON text (taken, as vs_kernel_send_raw takes it). */
void vs_kernel_publish_raw(vs_kernel *k, const char *msg_type, const vs_msg *parent, char *content,
                           size_t content_len)
{
    /* The topic frame only helps subscribers filter; clients subscribe to all. */
    char topic[64];
    vs_frame t;
    snprintf(topic, sizeof topic, "kernel.%.8s.%s", k->session, msg_type);
    t.data = (unsigned char *)topic;
    t.len = strlen(topic);
    vs_kernel_send_raw(k, k->iopub, &t, 1, msg_type, parent, content, content_len);
}

void vs_kernel_publish(vs_kernel *k, const char *msg_type, const vs_msg *parent, json_t *content)
{
    size_t len = 0;
    char *text = content_text(content, &len);
    vs_kernel_publish_raw(k, msg_type, parent, text, len);
}

/* A result on IOPub: {head"data":bundle,"metadata":{}tail}, where head and tail
 * are JSON members (each with its comma) or "". The bundle's text goes in as
 * it is. */
void vs_kernel_publish_bundle(vs_kernel *k, const char *msg_type, const vs_msg *parent,
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
    vs_kernel_publish_raw(k, msg_type, parent, vs_buf_take(&c), len);
}

void vs_kernel_publish_status(vs_kernel *k, const vs_msg *parent, const char *state)
{
    vs_kernel_publish(k, "status", parent, json_pack("{s:s}", "execution_state", state));
}

void vs_kernel_reply(vs_kernel *k, void *sock, const vs_msg *req, const char *msg_type,
                     json_t *content)
{
    vs_kernel_send(k, sock, req->ids, req->nids, msg_type, req, content);
}

/* A JSON string from any bytes: invalid UTF-8 is repaired rather than lost. */
json_t *vs_kernel_jstrn(const char *s, size_t len)
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

json_t *vs_kernel_jstr(const char *s)
{
    return vs_kernel_jstrn(s, strlen(s));
}
