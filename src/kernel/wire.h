/* wire.h — Jupyter messages on the wire: frames in, parsed messages out, and back.
 *
 * A message is [identities..., "<IDS|MSG>", signature, header, parent_header,
 * metadata, content, buffers...]. The signature is HMAC-SHA256 (hex) over the
 * four JSON frames exactly as received, compared in constant time after a length
 * check; an empty key means no signing. This module also makes headers (UUID4
 * msg_ids from libsodium's CSPRNG, ISO 8601 dates). It is pure apart from reading
 * the clock and the CSPRNG: no sockets, no threads, no globals, so it is tested
 * and fuzzed directly. It never trusts a frame: every field is checked.
 */
#ifndef VS_KERNEL_WIRE_H
#define VS_KERNEL_WIRE_H

#include <jansson.h>
#include <stddef.h>
#include <time.h>

#include "util/error.h"

#define VS_WIRE_DELIM "<IDS|MSG>"
#define VS_WIRE_PROTOCOL_VERSION "5.3"
#define VS_WIRE_SIG_HEX 64 /* hex digits of an HMAC-SHA256 */

/* One frame: bytes and a length. In vs_wire_parse's input the bytes are borrowed;
 * frames made by this module own their bytes (free with vs_wire_frames_free). */
typedef struct vs_frame {
    unsigned char *data;
    size_t len;
} vs_frame;

/* A parsed message. Everything is owned by the message. */
typedef struct vs_msg {
    vs_frame *ids; /* routing identities, echoed in replies */
    size_t nids;
    json_t *header;        /* object with string msg_id and msg_type */
    json_t *parent_header; /* object, possibly empty */
    json_t *metadata;      /* object */
    json_t *content;       /* object */
    size_t nbuffers;       /* extra binary buffers are accepted and dropped */
    vs_frame header_raw;   /* the header frame as received: the parent of replies */
    const char *msg_type;  /* borrowed from header */
    const char *msg_id;    /* borrowed from header */
    /* Non-NULL when the content frame was not a JSON object (a NUL or a lone
     * surrogate that jansson refuses, say): the message is kept with an empty
     * content so that a request can still be answered, with an error. */
    char *content_error;
} vs_msg;

/* HMAC-SHA256 of frames[0..3] with a key of any length, as 64 lowercase hex
 * digits and a NUL in hex. With keylen 0 writes "". */
void vs_wire_sign(const unsigned char *key, size_t keylen, const vs_frame frames[4],
                  char hex[VS_WIRE_SIG_HEX + 1]);

/* Non-zero when sig (siglen bytes) is the signature of frames[0..3]: length first,
 * then a constant-time comparison. With keylen 0 every signature is accepted. */
int vs_wire_verify(const unsigned char *key, size_t keylen, const vs_frame frames[4],
                   const unsigned char *sig, size_t siglen);

/* Parses frames into a new message (*out, free with vs_msg_free). Returns 0, or
 * VS_EPROTOCOL (no delimiter, too few frames, bad signature, bad JSON, a header
 * without msg_id or msg_type, a part that is not an object) or VS_ENOMEM, with err
 * saying why. A message with a bad signature is never parsed further. */
int vs_wire_parse(vs_msg **out, const vs_frame *frames, size_t nframes, const unsigned char *key,
                  size_t keylen, vs_error *err);

void vs_msg_free(vs_msg *m);

/* Serialises a message into new frames (*out, *nout): ids, delimiter, signature,
 * then header, parent (raw JSON bytes, e.g. a request's header_raw; NULL or empty
 * means {}), metadata (NULL means {}) and content, compact. Returns 0, VS_EVALUE
 * when a part cannot be serialised (not valid UTF-8), or VS_ENOMEM. */
int vs_wire_serialize(vs_frame **out, size_t *nout, const vs_frame *ids, size_t nids,
                      const json_t *header, const vs_frame *parent, const json_t *metadata,
                      const json_t *content, const unsigned char *key, size_t keylen,
                      vs_error *err);
/* The same with the content already JSON text (an object, not checked again):
 * results arrive as text (render/bundle.h) and go out without a second pass.
 * content_take (malloc'd) is taken, whatever the call returns. */
int vs_wire_serialize_raw(vs_frame **out, size_t *nout, const vs_frame *ids, size_t nids,
                          const json_t *header, const vs_frame *parent, const json_t *metadata,
                          char *content_take, size_t content_len, const unsigned char *key,
                          size_t keylen, vs_error *err);

void vs_wire_frames_free(vs_frame *frames, size_t n);

/* A UUID4 string (36 characters and a NUL) from 16 random bytes. */
void vs_wire_uuid4_from(const unsigned char rnd[16], char out[37]);
/* The same from libsodium's CSPRNG (sodium_init must have succeeded). */
void vs_wire_uuid4(char out[37]);

/* An ISO 8601 UTC date with microseconds: "2026-11-29T21:41:40.123456Z". */
void vs_wire_format_date(time_t sec, long usec, char out[32]);
void vs_wire_date_now(char out[32]);

/* A new header object: msg_id, msg_type, username, session, date, version. Returns
 * NULL when memory is short. */
json_t *vs_wire_header_new(const char *msg_type, const char *msg_id, const char *session,
                           const char *username, const char *date);

#endif
