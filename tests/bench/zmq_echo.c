/* zmq_echo — the floor for bench_kernel.py: a ZeroMQ ROUTER that verifies each
 * Jupyter message's HMAC, parses it, and answers with a signed reply, with no
 * kernel behind it. Usage: vs_bench_echo ENDPOINT KEY. A message whose msg_type
 * is "shutdown_request" ends it after the reply. */
#include <errno.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "kernel/wire.h"

#define MAXF 64

int main(int argc, char **argv)
{
    void *ctx, *sock;
    const unsigned char *key;
    size_t keylen;
    int done = 0;

    if (argc != 3) {
        fprintf(stderr, "usage: vs_bench_echo ENDPOINT KEY\n");
        return 2;
    }
    if (sodium_init() < 0)
        return 1;
    key = (const unsigned char *)argv[2];
    keylen = strlen(argv[2]);
    ctx = zmq_ctx_new();
    sock = zmq_socket(ctx, ZMQ_ROUTER);
    if (zmq_bind(sock, argv[1]) < 0) {
        fprintf(stderr, "vs_bench_echo: cannot bind %s: %s\n", argv[1], zmq_strerror(errno));
        return 1;
    }
    while (!done) {
        zmq_msg_t parts[MAXF];
        vs_frame frames[MAXF], *out = NULL;
        size_t n = 0, nout = 0, i;
        vs_msg *m = NULL;
        vs_error err;
        int more = 1;
        while (more && n < MAXF) {
            zmq_msg_init(&parts[n]);
            if (zmq_msg_recv(&parts[n], sock, 0) < 0)
                return 1;
            more = zmq_msg_more(&parts[n]);
            frames[n].data = zmq_msg_data(&parts[n]);
            frames[n].len = zmq_msg_size(&parts[n]);
            n++;
        }
        if (vs_wire_parse(&m, frames, n, key, keylen, &err) == 0) {
            char id[37], date[32];
            json_t *h, *c = json_pack("{s:s}", "status", "ok");
            vs_wire_uuid4(id);
            vs_wire_date_now(date);
            h = vs_wire_header_new("echo_reply", id, "echo", "echo", date);
            if (vs_wire_serialize(&out, &nout, m->ids, m->nids, h, &m->header_raw, NULL, c, key,
                                  keylen, &err) == 0)
                for (i = 0; i < nout; i++)
                    zmq_send(sock, out[i].data, out[i].len, i + 1 < nout ? ZMQ_SNDMORE : 0);
            done = !strcmp(m->msg_type, "shutdown_request");
            vs_wire_frames_free(out, nout);
            json_decref(h);
            json_decref(c);
            vs_msg_free(m);
        }
        for (i = 0; i < n; i++)
            zmq_msg_close(&parts[i]);
    }
    zmq_close(sock);
    zmq_ctx_term(ctx);
    return 0;
}
