#include "kernel/wire.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/json.h"

static const char hexdigits[] = "0123456789abcdef";

void vs_wire_sign(const unsigned char *key, size_t keylen, const vs_frame frames[4],
                  char hex[VS_WIRE_SIG_HEX + 1])
{
    crypto_auth_hmacsha256_state st;
    unsigned char mac[crypto_auth_hmacsha256_BYTES];
    int i;

    if (!keylen) {
        hex[0] = '\0';
        return;
    }
    /* The one-shot crypto_auth_hmacsha256() assumes a 32-byte key; Jupyter keys
     * have any length, which only the streaming API handles as HMAC does. */
    crypto_auth_hmacsha256_init(&st, key, keylen);
    for (i = 0; i < 4; i++)
        crypto_auth_hmacsha256_update(&st, frames[i].data, frames[i].len);
    crypto_auth_hmacsha256_final(&st, mac);
    for (i = 0; i < (int)sizeof mac; i++) {
        hex[2 * i] = hexdigits[mac[i] >> 4];
        hex[2 * i + 1] = hexdigits[mac[i] & 15];
    }
    hex[VS_WIRE_SIG_HEX] = '\0';
    sodium_memzero(&st, sizeof st);
}

int vs_wire_verify(const unsigned char *key, size_t keylen, const vs_frame frames[4],
                   const unsigned char *sig, size_t siglen)
{
    char want[VS_WIRE_SIG_HEX + 1];
    if (!keylen)
        return 1;
    if (siglen != VS_WIRE_SIG_HEX)
        return 0;
    vs_wire_sign(key, keylen, frames, want);
    return sodium_memcmp(want, sig, VS_WIRE_SIG_HEX) == 0;
}

static int frame_is(const vs_frame *f, const char *s)
{
    size_t n = strlen(s);
    return f->len == n && (n == 0 || memcmp(f->data, s, n) == 0);
}

static int copy_frame(vs_frame *dst, const vs_frame *src)
{
    /* One extra byte keeps copies usable as C strings when they are text. */
    dst->data = malloc(src->len + 1);
    if (!dst->data)
        return VS_ENOMEM;
    if (src->len)
        memcpy(dst->data, src->data, src->len);
    dst->data[src->len] = '\0';
    dst->len = src->len;
    return 0;
}

static json_t *load_object(const vs_frame *f, const char *what, vs_error *err)
{
    json_error_t jerr;
    json_t *v = json_loadb((const char *)f->data, f->len, 0, &jerr);
    if (!v) {
        vs_error_set_pos(err, VS_EPROTOCOL, jerr.position, "%s is not valid JSON: %s (position %d)",
                         what, jerr.text, jerr.position);
        return NULL;
    }
    if (!json_is_object(v)) {
        json_decref(v);
        vs_error_set(err, VS_EPROTOCOL, "%s is not a JSON object", what);
        return NULL;
    }
    return v;
}

void vs_msg_free(vs_msg *m)
{
    size_t i;
    if (!m)
        return;
    for (i = 0; i < m->nids; i++)
        free(m->ids[i].data);
    free(m->ids);
    json_decref(m->header);
    json_decref(m->parent_header);
    json_decref(m->metadata);
    json_decref(m->content);
    free(m->header_raw.data);
    free(m->content_error);
    free(m);
}

int vs_wire_parse(vs_msg **out, const vs_frame *frames, size_t nframes, const unsigned char *key,
                  size_t keylen, vs_error *err)
{
    vs_msg *m = NULL;
    size_t delim, i;
    const vs_frame *parts;
    json_t *v;
    int rc = 0;

    *out = NULL;
    for (delim = 0; delim < nframes; delim++)
        if (frame_is(&frames[delim], VS_WIRE_DELIM))
            break;
    if (delim == nframes) {
        rc = vs_error_set(err, VS_EPROTOCOL, "no <IDS|MSG> delimiter in %zu frames", nframes);
        goto done;
    }
    if (nframes - delim - 1 < 5) {
        rc = vs_error_set(err, VS_EPROTOCOL,
                          "%zu frames after the delimiter, expected a signature and 4 parts",
                          nframes - delim - 1);
        goto done;
    }
    parts = frames + delim + 2;
    if (!vs_wire_verify(key, keylen, parts, frames[delim + 1].data, frames[delim + 1].len)) {
        rc = vs_error_set(err, VS_EPROTOCOL, "bad signature");
        goto done;
    }

    m = calloc(1, sizeof *m);
    if (!m || (delim && !(m->ids = calloc(delim, sizeof *m->ids)))) {
        rc = vs_error_set(err, VS_ENOMEM, "out of memory parsing a message");
        goto done;
    }
    for (i = 0; i < delim; i++, m->nids++)
        if (copy_frame(&m->ids[i], &frames[i]) < 0) {
            rc = vs_error_set(err, VS_ENOMEM, "out of memory parsing a message");
            goto done;
        }
    if (!(m->header = load_object(&parts[0], "header", err)) ||
        !(m->parent_header = load_object(&parts[1], "parent_header", err)) ||
        !(m->metadata = load_object(&parts[2], "metadata", err))) {
        rc = err ? err->code : VS_EPROTOCOL;
        goto done;
    }
    if (!(m->content = load_object(&parts[3], "content", err))) {
        /* signed and addressed: worth an error reply rather than silence */
        if (!(m->content = json_object()) ||
            !(m->content_error = strdup(err && err->message[0] ? err->message : "bad content"))) {
            rc = vs_error_set(err, VS_ENOMEM, "out of memory parsing a message");
            goto done;
        }
        vs_error_clear(err);
    }
    v = json_object_get(m->header, "msg_type");
    if (!json_is_string(v) || !json_string_length(v)) {
        rc = vs_error_set(err, VS_EPROTOCOL, "header has no msg_type string");
        goto done;
    }
    m->msg_type = json_string_value(v);
    v = json_object_get(m->header, "msg_id");
    if (!json_is_string(v)) {
        rc = vs_error_set(err, VS_EPROTOCOL, "header has no msg_id string");
        goto done;
    }
    m->msg_id = json_string_value(v);
    if (copy_frame(&m->header_raw, &parts[0]) < 0) {
        rc = vs_error_set(err, VS_ENOMEM, "out of memory parsing a message");
        goto done;
    }
    m->nbuffers = nframes - delim - 6;
    *out = m;
    m = NULL;
done:
    vs_msg_free(m);
    return rc;
}

void vs_wire_frames_free(vs_frame *frames, size_t n)
{
    size_t i;
    if (!frames)
        return;
    for (i = 0; i < n; i++)
        free(frames[i].data);
    free(frames);
}

/* Content frames carry whole results (a long envelope is a few hundred KB):
 * vs_json_dump writes what json_dumps(JSON_COMPACT) does, several times
 * faster. */
static int dump_into(vs_frame *f, const json_t *v, const char *fallback)
{
    vs_buf b = VS_BUF_INIT;
    size_t len;
    if (!v) {
        char *s = strdup(fallback);
        if (!s)
            return VS_ENOMEM;
        f->data = (unsigned char *)s;
        f->len = strlen(s);
        return 0;
    }
    if (vs_json_dump(v, &b) < 0) {
        int rc = vs_buf_failed(&b) ? VS_ENOMEM : VS_EVALUE;
        vs_buf_free(&b);
        return rc;
    }
    len = b.len;
    f->data = (unsigned char *)vs_buf_take(&b);
    if (!f->data)
        return VS_ENOMEM;
    f->len = len;
    return 0;
}

int vs_wire_serialize_raw(vs_frame **out, size_t *nout, const vs_frame *ids, size_t nids,
                          const json_t *header, const vs_frame *parent, const json_t *metadata,
                          char *content_take, size_t content_len, const unsigned char *key,
                          size_t keylen, vs_error *err)
{
    size_t n = nids + 6, i;
    vs_frame *f;
    vs_frame empty = {(unsigned char *)"{}", 2};
    char sig[VS_WIRE_SIG_HEX + 1];
    int rc = 0;

    *out = NULL;
    *nout = 0;
    f = calloc(n, sizeof *f);
    if (!f) {
        free(content_take);
        return vs_error_set(err, VS_ENOMEM, "out of memory serialising a message");
    }
    f[nids + 5].data = (unsigned char *)content_take;
    f[nids + 5].len = content_len;
    if (!content_take)
        goto nomem;
    for (i = 0; i < nids; i++)
        if ((rc = copy_frame(&f[i], &ids[i])) < 0)
            goto nomem;
    if ((rc = copy_frame(&f[nids], &(vs_frame){(unsigned char *)VS_WIRE_DELIM, 9})) < 0)
        goto nomem;
    if ((rc = dump_into(&f[nids + 2], header, "{}")) < 0)
        goto bad;
    if ((rc = copy_frame(&f[nids + 3], parent && parent->len ? parent : &empty)) < 0)
        goto nomem;
    if ((rc = dump_into(&f[nids + 4], metadata, "{}")) < 0)
        goto bad;
    vs_wire_sign(key, keylen, &f[nids + 2], sig);
    if ((rc = copy_frame(&f[nids + 1], &(vs_frame){(unsigned char *)sig, strlen(sig)})) < 0)
        goto nomem;
    *out = f;
    *nout = n;
    return 0;
nomem:
    vs_wire_frames_free(f, n);
    return vs_error_set(err, VS_ENOMEM, "out of memory serialising a message");
bad:
    vs_wire_frames_free(f, n);
    if (rc == VS_ENOMEM)
        return vs_error_set(err, VS_ENOMEM, "out of memory serialising a message");
    return vs_error_set(err, VS_EVALUE, "a message part cannot be serialised as JSON");
}

int vs_wire_serialize(vs_frame **out, size_t *nout, const vs_frame *ids, size_t nids,
                      const json_t *header, const vs_frame *parent, const json_t *metadata,
                      const json_t *content, const unsigned char *key, size_t keylen, vs_error *err)
{
    vs_frame c = {NULL, 0};
    int rc = dump_into(&c, content, "{}");
    *out = NULL;
    *nout = 0;
    if (rc < 0)
        return vs_error_set(err, rc,
                            rc == VS_ENOMEM ? "out of memory serialising a message"
                                            : "a message part cannot be serialised as JSON");
    return vs_wire_serialize_raw(out, nout, ids, nids, header, parent, metadata, (char *)c.data,
                                 c.len, key, keylen, err);
}

void vs_wire_uuid4_from(const unsigned char rnd[16], char out[37])
{
    unsigned char b[16];
    int i, o = 0;
    memcpy(b, rnd, 16);
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x40); /* version 4 */
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80); /* RFC 4122 variant */
    for (i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            out[o++] = '-';
        out[o++] = hexdigits[b[i] >> 4];
        out[o++] = hexdigits[b[i] & 15];
    }
    out[o] = '\0';
}

void vs_wire_uuid4(char out[37])
{
    unsigned char rnd[16];
    randombytes_buf(rnd, sizeof rnd);
    vs_wire_uuid4_from(rnd, out);
}

void vs_wire_format_date(time_t sec, long usec, char out[32])
{
    struct tm tm;
    char base[24];
    if (usec < 0 || usec > 999999)
        usec = 0;
    if (!gmtime_r(&sec, &tm) || !strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm))
        strcpy(base, "1970-01-01T00:00:00");
    snprintf(out, 32, "%.19s.%06ldZ", base, usec);
}

void vs_wire_date_now(char out[32])
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    vs_wire_format_date(ts.tv_sec, ts.tv_nsec / 1000, out);
}

json_t *vs_wire_header_new(const char *msg_type, const char *msg_id, const char *session,
                           const char *username, const char *date)
{
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "msg_id", msg_id, "msg_type", msg_type,
                     "username", username, "session", session, "date", date, "version",
                     VS_WIRE_PROTOCOL_VERSION);
}
