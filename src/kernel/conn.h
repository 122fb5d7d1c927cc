/* conn.h — the Jupyter connection file: where the five sockets live and the key
 * that signs every message.
 *
 * Parses the JSON file a Jupyter client writes before starting a kernel (tcp or
 * ipc transport; unknown fields ignored) and builds the endpoint of each channel.
 * vs_conn_parse is pure; vs_conn_load only reads the file. This module opens no
 * socket and knows nothing of messages.
 */
#ifndef VS_KERNEL_CONN_H
#define VS_KERNEL_CONN_H

#include <stddef.h>

#include "util/error.h"

/* The five channels, in the order the ports are kept. */
enum { VS_CHAN_SHELL, VS_CHAN_IOPUB, VS_CHAN_STDIN, VS_CHAN_CONTROL, VS_CHAN_HB, VS_CHAN_COUNT };

#define VS_CONN_IP_MAX 256
#define VS_CONN_KEY_MAX 512

typedef struct vs_conn {
    char transport[8];         /* "tcp" or "ipc" */
    char ip[VS_CONN_IP_MAX];   /* tcp: an address; ipc: a path prefix */
    int ports[VS_CHAN_COUNT];  /* indexed by VS_CHAN_* */
    char key[VS_CONN_KEY_MAX]; /* the HMAC key as bytes; "" means no signing */
    size_t key_len;
    char signature_scheme[32]; /* "hmac-sha256" */
} vs_conn;

/* The channel's name as Jupyter spells it in the file ("shell", "iopub", ...). */
const char *vs_conn_channel_name(int chan);

/* Parses the text of a connection file into *out. Returns 0, or VS_EVALUE /
 * VS_EFORMAT with err saying which field is wrong. */
int vs_conn_parse(vs_conn *out, const char *text, size_t len, vs_error *err);

/* Reads and parses the file at path. A missing or unreadable file is VS_EIO. */
int vs_conn_load(vs_conn *out, const char *path, vs_error *err);

/* Writes the ZeroMQ endpoint of a channel ("tcp://127.0.0.1:5555" or
 * "ipc://path-3") into out. Returns 0, or VS_EVALUE when out is too small. */
int vs_conn_endpoint(const vs_conn *c, int chan, char *out, size_t outlen, vs_error *err);

#endif
