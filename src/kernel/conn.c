#include "kernel/conn.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const chan_names[VS_CHAN_COUNT] = {"shell", "iopub", "stdin", "control", "hb"};

const char *vs_conn_channel_name(int chan)
{
    if (chan < 0 || chan >= VS_CHAN_COUNT)
        return "?";
    return chan_names[chan];
}

/* Copies an optional string field; absent means keep the default already in dst. */
static int get_string(json_t *root, const char *name, char *dst, size_t dstlen, size_t *outlen,
                      vs_error *err)
{
    json_t *v = json_object_get(root, name);
    size_t n;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_string(v))
        return vs_error_set(err, VS_EFORMAT, "connection file: \"%s\" must be a string", name);
    n = json_string_length(v);
    if (n >= dstlen)
        return vs_error_set(err, VS_EFORMAT, "connection file: \"%s\" is too long (%zu bytes)",
                            name, n);
    if (memchr(json_string_value(v), '\0', n))
        return vs_error_set(err, VS_EFORMAT, "connection file: \"%s\" contains a NUL", name);
    memcpy(dst, json_string_value(v), n);
    dst[n] = '\0';
    if (outlen)
        *outlen = n;
    return 0;
}

int vs_conn_parse(vs_conn *out, const char *text, size_t len, vs_error *err)
{
    json_error_t jerr;
    json_t *root = NULL;
    int rc = 0, i;

    memset(out, 0, sizeof *out);
    strcpy(out->transport, "tcp");
    strcpy(out->ip, "127.0.0.1");
    strcpy(out->signature_scheme, "hmac-sha256");

    root = json_loadb(text, len, 0, &jerr);
    if (!root) {
        rc = vs_error_set(err, VS_EFORMAT, "connection file is not JSON: line %d, column %d: %s",
                          jerr.line, jerr.column, jerr.text);
        goto done;
    }
    if (!json_is_object(root)) {
        rc = vs_error_set(err, VS_EFORMAT, "connection file: expected a JSON object");
        goto done;
    }
    if ((rc = get_string(root, "transport", out->transport, sizeof out->transport, NULL, err)) < 0)
        goto done;
    if (strcmp(out->transport, "tcp") && strcmp(out->transport, "ipc")) {
        rc = vs_error_set(err, VS_EVALUE,
                          "connection file: transport \"%s\" is not supported (tcp or ipc)",
                          out->transport);
        goto done;
    }
    if ((rc = get_string(root, "ip", out->ip, sizeof out->ip, NULL, err)) < 0)
        goto done;
    if (!out->ip[0]) {
        rc = vs_error_set(err, VS_EVALUE, "connection file: \"ip\" is empty");
        goto done;
    }
    if ((rc = get_string(root, "key", out->key, sizeof out->key, &out->key_len, err)) < 0)
        goto done;
    if ((rc = get_string(root, "signature_scheme", out->signature_scheme,
                         sizeof out->signature_scheme, NULL, err)) < 0)
        goto done;
    /* With an empty key nothing is signed, so the scheme does not matter. */
    if (out->key_len && strcmp(out->signature_scheme, "hmac-sha256")) {
        rc = vs_error_set(err, VS_EVALUE,
                          "connection file: signature_scheme \"%s\" is not supported "
                          "(hmac-sha256)",
                          out->signature_scheme);
        goto done;
    }
    for (i = 0; i < VS_CHAN_COUNT; i++) {
        char field[32];
        json_t *v;
        json_int_t p;
        snprintf(field, sizeof field, "%s_port", chan_names[i]);
        v = json_object_get(root, field);
        if (!v) {
            rc = vs_error_set(err, VS_EVALUE, "connection file: \"%s\" is missing", field);
            goto done;
        }
        if (!json_is_integer(v)) {
            rc = vs_error_set(err, VS_EFORMAT, "connection file: \"%s\" must be an integer", field);
            goto done;
        }
        p = json_integer_value(v);
        /* tcp needs a real port (the client connects to exactly that one); ipc
         * only uses the number as a file name suffix. */
        if (p < 0 || p > 65535 || (p == 0 && !strcmp(out->transport, "tcp"))) {
            rc = vs_error_set(err, VS_EVALUE, "connection file: \"%s\" = %lld is not a port", field,
                              (long long)p);
            goto done;
        }
        out->ports[i] = (int)p;
    }
done:
    json_decref(root);
    return rc;
}

int vs_conn_load(vs_conn *out, const char *path, vs_error *err)
{
    FILE *f = NULL;
    char *text = NULL;
    size_t len = 0, cap = 0;
    int rc = 0;

    memset(out, 0, sizeof *out);
    f = fopen(path, "rb");
    if (!f) {
        rc = vs_error_set(err, VS_EIO, "cannot read connection file %s: %s", path, strerror(errno));
        goto done;
    }
    for (;;) {
        size_t got;
        if (len == cap) {
            char *t;
            /* A connection file is a few hundred bytes; refuse anything absurd. */
            if (cap >= (1u << 20)) {
                rc = vs_error_set(err, VS_EFORMAT, "connection file %s is larger than 1 MiB", path);
                goto done;
            }
            cap = cap ? cap * 2 : 4096;
            t = realloc(text, cap);
            if (!t) {
                rc = vs_error_set(err, VS_ENOMEM, "out of memory reading %s", path);
                goto done;
            }
            text = t;
        }
        got = fread(text + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        rc = vs_error_set(err, VS_EIO, "cannot read connection file %s", path);
        goto done;
    }
    rc = vs_conn_parse(out, text ? text : "", len, err);
    if (rc < 0)
        vs_error_prefix(err, "%s: ", path);
done:
    if (f)
        fclose(f);
    free(text);
    return rc;
}

int vs_conn_endpoint(const vs_conn *c, int chan, char *out, size_t outlen, vs_error *err)
{
    int n;
    if (chan < 0 || chan >= VS_CHAN_COUNT)
        return vs_error_set(err, VS_EVALUE, "no channel %d", chan);
    if (!strcmp(c->transport, "ipc"))
        n = snprintf(out, outlen, "ipc://%s-%d", c->ip, c->ports[chan]);
    else if (strchr(c->ip, ':'))
        n = snprintf(out, outlen, "tcp://[%s]:%d", c->ip, c->ports[chan]); /* IPv6 */
    else
        n = snprintf(out, outlen, "tcp://%s:%d", c->ip, c->ports[chan]);
    if (n < 0 || (size_t)n >= outlen)
        return vs_error_set(err, VS_EVALUE, "endpoint for %s is too long", chan_names[chan]);
    return 0;
}
