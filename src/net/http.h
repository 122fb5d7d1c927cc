/* http.h — HTTP GET with byte ranges, through libcurl loaded at run time.
 *
 * libcurl is found with dlopen (libcurl.so.4, the soname Debian's libcurl4 and
 * its GnuTLS and NSS builds carry) and used through a table of function
 * pointers: the product builds and runs without it, and says so when a request
 * needs it. Only curl's public ABI is declared (curl/curl.h's option numbers),
 * so no curl header is needed to build.
 *
 * A session keeps one connection alive across requests (a Hub's headers are
 * many small ranges of one host). The token goes to one origin (scheme, host
 * and port) only; redirects are followed here, not by libcurl, so that the
 * Authorization header is dropped once a redirect leaves it: a token for the
 * Hub is never sent to its CDN. A ranged request must be answered 206 with that range: a server
 * that ignores Range (200 and the whole body) is refused and the transfer aborted at once, so a
 * whole shard is never downloaded by accident. This module knows nothing of the Hub.
 */
#ifndef VS_NET_HTTP_H
#define VS_NET_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

typedef struct vs_http vs_http;

typedef struct vs_http_opts {
    const char *bearer;        /* "Authorization: Bearer ..."; may be NULL */
    const char *bearer_origin; /* the URL whose origin alone receives it */
    const char *user_agent;    /* may be NULL */
    long connect_timeout_s;    /* 0: 10 s */
    long stall_timeout_s;      /* no byte for this long aborts; 0: 10 s */
    unsigned max_redirects;    /* 0: 10 */
    /* Called about every 100 ms while a transfer runs, with the bytes of
     * this response so far; non-zero stops the transfer (VS_EINTERRUPT). */
    int (*progress)(void *ctx, uint64_t now_bytes);
    void *progress_ctx;
} vs_http_opts;

typedef struct vs_http_resp {
    long status;         /* the last response's status (after redirects) */
    unsigned char *body; /* malloc'd, NUL-terminated; NULL when empty */
    size_t len;
    uint64_t total;          /* a 206's Content-Range total; 0 when not given */
    char etag[160];          /* X-Linked-Etag, else ETag, without quotes or W/ */
    char repo_commit[48];    /* X-Repo-Commit */
    char error_code[64];     /* X-Error-Code (the Hub's: RepoNotFound, GatedRepo, ...) */
    char error_message[256]; /* X-Error-Message */
    char final_url[1024];    /* where the body came from */
    unsigned redirects;
    int cross_origin; /* a redirect left the first origin (credentials dropped) */
} vs_http_resp;

/* 1 when libcurl can be loaded; else 0 with why (the dlopen message) in
 * why (may be NULL). */
int vs_http_available(char *why, size_t n);

/* A session. VS_EIO when libcurl cannot be loaded (the message says which
 * library and how to install it). opts is copied (its strings too). */
int vs_http_open(vs_http **out, const vs_http_opts *opts, vs_error *err);
void vs_http_free(vs_http *h);

/* GET url. length 0: the whole body (at most max_body bytes, else
 * VS_EFORMAT); otherwise bytes [offset, offset + length) with a Range header,
 * answered by a 206 whose Content-Range starts at offset and holds at most
 * length bytes (a 200 to a range is VS_EFORMAT, the transfer aborted).
 * Returns 0 with any HTTP status in resp (the caller judges 4xx), VS_EIO for
 * a transport failure (DNS, refused, timeout, TLS) with curl's words,
 * VS_EINTERRUPT when progress asked to stop. resp is the caller's; release
 * with vs_http_resp_clear. An error answer (4xx, 5xx) keeps the first 4 KiB
 * of its body. */
int vs_http_get(vs_http *h, const char *url, uint64_t offset, uint64_t length, size_t max_body,
                vs_http_resp *resp, vs_error *err);

/* An origin (scheme, host, port) that could not be reached (its name not
 * resolved, no connection, no answer before a timeout) is not asked again for
 * this long, by any session of the process: vs_http_get fails at once with
 * the same words for the URL asked. A request that reaches the origin, or
 * vs_http_forget_unreachable, ends it. */
#define VS_HTTP_UNREACHABLE_MS 30000
void vs_http_forget_unreachable(void);
void vs_http_resp_clear(vs_http_resp *resp);

/* Bytes of bodies and requests made by the session so far (a request failed
 * at once for an unreachable origin counts). */
uint64_t vs_http_bytes(const vs_http *h);
unsigned vs_http_requests(const vs_http *h);

#endif
