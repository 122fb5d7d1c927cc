#include "net/http.h"

#include <ctype.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/clock.h"

/* The few curl types, options and codes used here, declared after curl's
 * public curl/curl.h (CURLOPTTYPE_LONG 0, _OBJECTPOINT 10000,
 * _FUNCTIONPOINT 20000; CURLINFO_STRING 0x100000, _LONG 0x200000), so that no
 * curl header is needed to build. */
typedef void CURL;
typedef int CURLcode;
struct curl_slist;
enum {
    CURLOPT_WRITEDATA = 10001,
    CURLOPT_URL = 10002,
    CURLOPT_RANGE = 10007,
    CURLOPT_ERRORBUFFER = 10010,
    CURLOPT_WRITEFUNCTION = 20011,
    CURLOPT_USERAGENT = 10018,
    CURLOPT_LOW_SPEED_LIMIT = 19,
    CURLOPT_LOW_SPEED_TIME = 20,
    CURLOPT_HTTPHEADER = 10023,
    CURLOPT_HEADERDATA = 10029,
    CURLOPT_NOPROGRESS = 43,
    CURLOPT_FOLLOWLOCATION = 52,
    CURLOPT_XFERINFODATA = 10057,
    CURLOPT_CONNECTTIMEOUT = 78,
    CURLOPT_HEADERFUNCTION = 20079,
    CURLOPT_HTTPGET = 80,
    CURLOPT_NOSIGNAL = 99,
    CURLOPT_PROTOCOLS = 181,
    CURLOPT_XFERINFOFUNCTION = 20219,
};
enum { CURLINFO_RESPONSE_CODE = 0x200000 + 2, CURLINFO_REDIRECT_URL = 0x100000 + 31 };
enum {
    CURLE_OK = 0,
    CURLE_COULDNT_RESOLVE_PROXY = 5,
    CURLE_COULDNT_RESOLVE_HOST = 6,
    CURLE_COULDNT_CONNECT = 7,
    CURLE_WRITE_ERROR = 23,
    CURLE_OPERATION_TIMEDOUT = 28,
    CURLE_ABORTED_BY_CALLBACK = 42
};
#define CURL_GLOBAL_DEFAULT 3L
#define CURLPROTO_HTTP_HTTPS 3L /* CURLPROTO_HTTP (1 << 0) | CURLPROTO_HTTPS (1 << 1) */
#define CURL_ERROR_SIZE 256

typedef CURLcode (*fn_global_init)(long);
typedef CURL *(*fn_easy_init)(void);
typedef CURLcode (*fn_easy_setopt)(CURL *, int, ...);
typedef CURLcode (*fn_easy_perform)(CURL *);
typedef CURLcode (*fn_easy_getinfo)(CURL *, int, ...);
typedef void (*fn_easy_cleanup)(CURL *);
typedef const char *(*fn_easy_strerror)(CURLcode);
typedef struct curl_slist *(*fn_slist_append)(struct curl_slist *, const char *);
typedef void (*fn_slist_free_all)(struct curl_slist *);

/* libcurl, loaded once per process (curl_global_init is not thread-safe in
 * older releases: pthread_once guards it). */
static struct {
    void *lib;
    char why[512];
    fn_global_init global_init;
    fn_easy_init init;
    fn_easy_setopt setopt;
    fn_easy_perform perform;
    fn_easy_getinfo getinfo;
    fn_easy_cleanup cleanup;
    fn_easy_strerror strerror;
    fn_slist_append slist_append;
    fn_slist_free_all slist_free_all;
} curl;
static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

static void load_curl(void)
{
    /* Debian's libcurl4 (OpenSSL), then the GnuTLS build most desktops have */
    static const char *const names[] = {"libcurl.so.4", "libcurl-gnutls.so.4"};
    const char *env = getenv("VRAMSHEET_CURL_LIBRARY");
    size_t i;
    void *lib = NULL;
    if (env && *env) {
        lib = dlopen(env, RTLD_NOW | RTLD_LOCAL);
        if (!lib)
            snprintf(curl.why, sizeof curl.why, "%s", dlerror());
    } else {
        for (i = 0; !lib && i < sizeof names / sizeof names[0]; i++)
            if (!(lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL)) && i == 0)
                snprintf(curl.why, sizeof curl.why, "%s", dlerror());
    }
    if (!lib)
        return;
    curl.global_init = (fn_global_init)dlsym(lib, "curl_global_init");
    curl.init = (fn_easy_init)dlsym(lib, "curl_easy_init");
    curl.setopt = (fn_easy_setopt)dlsym(lib, "curl_easy_setopt");
    curl.perform = (fn_easy_perform)dlsym(lib, "curl_easy_perform");
    curl.getinfo = (fn_easy_getinfo)dlsym(lib, "curl_easy_getinfo");
    curl.cleanup = (fn_easy_cleanup)dlsym(lib, "curl_easy_cleanup");
    curl.strerror = (fn_easy_strerror)dlsym(lib, "curl_easy_strerror");
    curl.slist_append = (fn_slist_append)dlsym(lib, "curl_slist_append");
    curl.slist_free_all = (fn_slist_free_all)dlsym(lib, "curl_slist_free_all");
    if (!curl.global_init || !curl.init || !curl.setopt || !curl.perform || !curl.getinfo ||
        !curl.cleanup || !curl.strerror || !curl.slist_append || !curl.slist_free_all) {
        snprintf(curl.why, sizeof curl.why, "%s lacks curl_easy_* functions",
                 env && *env ? env : "libcurl");
        dlclose(lib);
        return;
    }
    if (curl.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        snprintf(curl.why, sizeof curl.why, "curl_global_init failed");
        dlclose(lib);
        return;
    }
    curl.lib = lib;
}

int vs_http_available(char *why, size_t n)
{
    pthread_once(&curl_once, load_curl);
    if (!curl.lib && why && n)
        snprintf(why, n, "%s", curl.why[0] ? curl.why : "libcurl.so.4 not found");
    return curl.lib != NULL;
}

static void origin_of(const char *url, char *out, size_t n);

struct vs_http {
    CURL *easy;
    vs_http_opts o;
    char *bearer, *agent;
    char bearer_origin[512];
    char errbuf[CURL_ERROR_SIZE];
    uint64_t bytes;
    unsigned requests;
};

int vs_http_open(vs_http **out, const vs_http_opts *opts, vs_error *err)
{
    char why[512];
    vs_http *h;
    *out = NULL;
    if (!vs_http_available(why, sizeof why))
        return vs_error_set(err, VS_EIO,
                            "no HTTP client: libcurl cannot be loaded (%s); it comes with "
                            "Debian's and Ubuntu's libcurl4 package (`apt-get install libcurl4`)",
                            why);
    if (!(h = calloc(1, sizeof *h)))
        return vs_error_oom(err);
    h->o = *opts;
    if (opts->bearer && opts->bearer_origin)
        origin_of(opts->bearer_origin, h->bearer_origin, sizeof h->bearer_origin);
    if ((opts->bearer && opts->bearer_origin && !(h->bearer = strdup(opts->bearer))) ||
        (opts->user_agent && !(h->agent = strdup(opts->user_agent)))) {
        vs_http_free(h);
        return vs_error_set(err, VS_ENOMEM, "out of memory starting an HTTP session");
    }
    if (!h->o.connect_timeout_s)
        h->o.connect_timeout_s = 10;
    if (!h->o.stall_timeout_s)
        h->o.stall_timeout_s = 10;
    if (!h->o.max_redirects)
        h->o.max_redirects = 10;
    *out = h;
    return 0;
}

void vs_http_free(vs_http *h)
{
    if (!h)
        return;
    if (h->easy)
        curl.cleanup(h->easy);
    if (h->bearer) /* a token: not left in freed memory */
        memset(h->bearer, 0, strlen(h->bearer));
    free(h->bearer);
    free(h->agent);
    free(h);
}

uint64_t vs_http_bytes(const vs_http *h)
{
    return h->bytes;
}

unsigned vs_http_requests(const vs_http *h)
{
    return h->requests;
}

void vs_http_resp_clear(vs_http_resp *r)
{
    free(r->body);
    memset(r, 0, sizeof *r);
}

/* One transfer's state, seen by the callbacks. */
typedef struct xfer {
    vs_http *h;
    vs_http_resp *r;
    int ranged;
    uint64_t offset, length;
    size_t cap, used;
    int refused; /* 200 to a range, wrong range, or more than asked */
    int too_big;
    int stopped; /* progress asked to stop */
    uint64_t range_start;
    int have_range;
} xfer;

static void copy_value(char *dst, size_t n, const char *v, size_t len)
{
    while (len && (*v == ' ' || *v == '\t'))
        v++, len--;
    while (len && (v[len - 1] == '\r' || v[len - 1] == '\n' || v[len - 1] == ' '))
        len--;
    if (len >= n)
        len = n - 1;
    memcpy(dst, v, len);
    dst[len] = '\0';
}

/* An ETag as huggingface_hub keeps it: no W/ prefix, no quotes. */
static void clean_etag(char *e)
{
    size_t n;
    if (!strncmp(e, "W/", 2))
        memmove(e, e + 2, strlen(e + 2) + 1);
    n = strlen(e);
    if (n >= 2 && e[0] == '"' && e[n - 1] == '"') {
        memmove(e, e + 1, n - 2);
        e[n - 2] = '\0';
    }
}

static size_t on_header(char *data, size_t size, size_t nmemb, void *ctx)
{
    xfer *x = ctx;
    size_t n = size * nmemb, k;
    const char *colon = memchr(data, ':', n);
    if (n >= 5 && !memcmp(data, "HTTP/", 5)) { /* a status line: a new response */
        /* the first response's ETag and X-Repo-Commit are the Hub's (a
         * redirect's target is a CDN's): kept; the rest is the last one's */
        x->have_range = 0;
        x->r->total = 0;
        x->r->error_code[0] = x->r->error_message[0] = '\0';
        return n;
    }
    if (!colon)
        return n;
    k = (size_t)(colon - data);
    colon++;
    if (k == 13 && !strncasecmp(data, "Content-Range", 13)) {
        char v[128];
        unsigned long long a = 0, b = 0, t = 0;
        copy_value(v, sizeof v, colon, n - k - 1);
        if (sscanf(v, "bytes %llu-%llu/%llu", &a, &b, &t) >= 2) {
            x->have_range = 1;
            x->range_start = a;
            x->r->total = t;
        }
    } else if (k == 4 && !strncasecmp(data, "ETag", 4)) {
        if (!x->r->etag[0]) {
            copy_value(x->r->etag, sizeof x->r->etag, colon, n - k - 1);
            clean_etag(x->r->etag);
        }
    } else if (k == 13 && !strncasecmp(data, "X-Linked-Etag", 13)) {
        /* an LFS file's sha256: huggingface_hub names the blob by it, not by ETag */
        copy_value(x->r->etag, sizeof x->r->etag, colon, n - k - 1);
        clean_etag(x->r->etag);
    } else if (k == 13 && !strncasecmp(data, "X-Repo-Commit", 13) && !x->r->repo_commit[0]) {
        copy_value(x->r->repo_commit, sizeof x->r->repo_commit, colon, n - k - 1);
    } else if (k == 12 && !strncasecmp(data, "X-Error-Code", 12)) {
        copy_value(x->r->error_code, sizeof x->r->error_code, colon, n - k - 1);
    } else if (k == 15 && !strncasecmp(data, "X-Error-Message", 15)) {
        copy_value(x->r->error_message, sizeof x->r->error_message, colon, n - k - 1);
    }
    return n;
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *ctx)
{
    xfer *x = ctx;
    size_t n = size * nmemb;
    long status = 0;
    curl.getinfo(x->h->easy, CURLINFO_RESPONSE_CODE, &status);
    if (status >= 300 && status < 400)
        return n;        /* a redirect's body: followed below, not kept */
    if (status >= 400) { /* an error page, ranged or not: its start is enough */
        size_t keep = x->used < 4096 ? 4096 - x->used : 0;
        if (keep > n)
            keep = n;
        if (keep) {
            unsigned char *g = realloc(x->r->body, x->used + keep + 1);
            if (!g)
                return 0;
            x->r->body = g;
            memcpy(g + x->used, data, keep);
            x->used += keep;
            g[x->used] = '\0';
            x->h->bytes += keep;
        }
        return n;
    }
    if (x->ranged && status == 200) {
        x->refused = 1; /* the whole file is coming: stop it now */
        return 0;
    }
    if (x->ranged && status == 206 && (!x->have_range || x->range_start != x->offset)) {
        x->refused = 1;
        return 0;
    }
    if (x->used + n > x->cap) {
        if (x->ranged)
            x->refused = 1;
        else
            x->too_big = 1;
        return 0;
    }
    if (n) {
        unsigned char *g = realloc(x->r->body, x->used + n + 1);
        if (!g)
            return 0;
        x->r->body = g;
        memcpy(g + x->used, data, n);
        x->used += n;
        g[x->used] = '\0';
        x->h->bytes += n;
    }
    return size * nmemb;
}

static int on_progress(void *ctx, int64_t dltotal, int64_t dlnow, int64_t ultotal, int64_t ulnow)
{
    xfer *x = ctx;
    (void)dltotal;
    (void)ultotal;
    (void)ulnow;
    if (x->h->o.progress && x->h->o.progress(x->h->o.progress_ctx, (uint64_t)dlnow)) {
        x->stopped = 1;
        return 1;
    }
    return 0;
}

/* "scheme://host:port" of a URL, lowercased, the default port made explicit. */
static void origin_of(const char *url, char *out, size_t n)
{
    const char *p = strstr(url, "://"), *end;
    size_t i, k;
    int https = !strncasecmp(url, "https:", 6);
    if (!p) {
        snprintf(out, n, "%s", url);
        return;
    }
    end = p + 3 + strcspn(p + 3, "/?#");
    k = (size_t)(end - url);
    if (k >= n - 8)
        k = n - 8;
    for (i = 0; i < k; i++)
        out[i] = (char)tolower((unsigned char)url[i]);
    out[k] = '\0';
    if (!memchr(p + 3, ':', (size_t)(end - p - 3)) || (end[-1] == ']'))
        strcat(out, https ? ":443" : ":80");
}

/* The last origin that could not be reached: its name not resolved, no
 * connection, or no answer at all before a timeout. It is not asked again
 * for VS_HTTP_UNREACHABLE_MS: a cell run again offline, or a cell of several
 * `model` lines, would otherwise wait on a failing DNS lookup or a connect
 * timeout for each (10 s a timeout; seconds for a broken resolver), to be
 * told the same thing. The failure is given again in curl's words for the URL
 * asked, as a new attempt would most likely give it; a request that reaches
 * the origin forgets it. Process-wide, as the resolver's own state is. */
static struct {
    pthread_mutex_t lock;
    char origin[512];
    char why[CURL_ERROR_SIZE];
    int64_t at_ms;
} unreachable = {PTHREAD_MUTEX_INITIALIZER, "", "", 0};

static int unreachable_recall(const char *origin, char *why, size_t n)
{
    int hit;
    pthread_mutex_lock(&unreachable.lock);
    hit = unreachable.origin[0] && !strcmp(unreachable.origin, origin) &&
          vs_clock_mono_ms() - unreachable.at_ms < VS_HTTP_UNREACHABLE_MS;
    if (hit)
        snprintf(why, n, "%s", unreachable.why);
    pthread_mutex_unlock(&unreachable.lock);
    return hit;
}

/* what a failed transfer says of its origin: remembered when nothing came
 * back from it, forgotten when anything did */
static void unreachable_note(const char *origin, int failed_to_reach, const char *why)
{
    pthread_mutex_lock(&unreachable.lock);
    if (failed_to_reach) {
        snprintf(unreachable.origin, sizeof unreachable.origin, "%s", origin);
        snprintf(unreachable.why, sizeof unreachable.why, "%s", why);
        unreachable.at_ms = vs_clock_mono_ms();
    } else if (!strcmp(unreachable.origin, origin)) {
        unreachable.origin[0] = '\0';
    }
    pthread_mutex_unlock(&unreachable.lock);
}

void vs_http_forget_unreachable(void)
{
    pthread_mutex_lock(&unreachable.lock);
    unreachable.origin[0] = '\0';
    pthread_mutex_unlock(&unreachable.lock);
}

static int is_http_url(const char *u)
{
    return !strncasecmp(u, "http://", 7) || !strncasecmp(u, "https://", 8);
}

int vs_http_get(vs_http *h, const char *url, uint64_t offset, uint64_t length, size_t max_body,
                vs_http_resp *r, vs_error *err)
{
    char cur[1024], origin[512], range[64], auth[2200];
    struct curl_slist *hdrs = NULL;
    xfer x;
    int rc = 0, with_token = h->bearer != NULL;
    memset(r, 0, sizeof *r);
    if (!is_http_url(url) || strlen(url) >= sizeof cur)
        return vs_error_set(err, VS_EVALUE, "not an http(s) URL: %.200s", url);
    snprintf(cur, sizeof cur, "%s", url);
    for (;;) {
        CURLcode cc;
        long status = 0;
        char *next = NULL;
        memset(&x, 0, sizeof x);
        x.h = h;
        x.r = r;
        x.ranged = length > 0;
        x.offset = offset;
        x.length = length;
        x.cap = length ? (size_t)length : max_body;
        free(r->body);
        r->body = NULL;
        r->len = 0;
        origin_of(cur, origin, sizeof origin);
        if (unreachable_recall(origin, h->errbuf, sizeof h->errbuf)) {
            h->requests++; /* asked, and answered as the origin last answered */
            rc = vs_error_set(err, VS_EIO, "cannot read %.300s: %s", cur, h->errbuf);
            goto done;
        }
        /* curl's handle made at the first request that goes out: a session
         * whose origin is known unreachable costs no handle */
        if (!h->easy && !(h->easy = curl.init())) {
            rc = vs_error_set(err, VS_ENOMEM, "out of memory starting an HTTP session");
            goto done;
        }
        if (with_token && strcmp(origin, h->bearer_origin)) {
            with_token = 0; /* not its origin: no credentials there, nor after it */
            r->cross_origin = r->redirects > 0;
        }
        curl.slist_free_all(hdrs);
        hdrs = NULL;
        if (with_token) {
            snprintf(auth, sizeof auth, "Authorization: Bearer %s", h->bearer);
            hdrs = curl.slist_append(hdrs, auth);
            memset(auth, 0, sizeof auth);
            if (!hdrs) {
                rc = vs_error_oom(err);
                goto done;
            }
        }
        if (length)
            snprintf(range, sizeof range, "%llu-%llu", (unsigned long long)offset,
                     (unsigned long long)(offset + length - 1));
        h->errbuf[0] = '\0';
        curl.setopt(h->easy, CURLOPT_URL, cur);
        curl.setopt(h->easy, CURLOPT_HTTPGET, 1L);
        curl.setopt(h->easy, CURLOPT_PROTOCOLS, CURLPROTO_HTTP_HTTPS);
        curl.setopt(h->easy, CURLOPT_FOLLOWLOCATION, 0L);
        curl.setopt(h->easy, CURLOPT_NOSIGNAL, 1L);
        curl.setopt(h->easy, CURLOPT_CONNECTTIMEOUT, h->o.connect_timeout_s);
        curl.setopt(h->easy, CURLOPT_LOW_SPEED_LIMIT, 1L);
        curl.setopt(h->easy, CURLOPT_LOW_SPEED_TIME, h->o.stall_timeout_s);
        curl.setopt(h->easy, CURLOPT_HTTPHEADER, hdrs);
        curl.setopt(h->easy, CURLOPT_RANGE, length ? range : (char *)NULL);
        curl.setopt(h->easy, CURLOPT_USERAGENT, h->agent ? h->agent : "vramsheet");
        curl.setopt(h->easy, CURLOPT_ERRORBUFFER, h->errbuf);
        curl.setopt(h->easy, CURLOPT_WRITEFUNCTION, on_body);
        curl.setopt(h->easy, CURLOPT_WRITEDATA, &x);
        curl.setopt(h->easy, CURLOPT_HEADERFUNCTION, on_header);
        curl.setopt(h->easy, CURLOPT_HEADERDATA, &x);
        curl.setopt(h->easy, CURLOPT_NOPROGRESS, 0L);
        curl.setopt(h->easy, CURLOPT_XFERINFOFUNCTION, on_progress);
        curl.setopt(h->easy, CURLOPT_XFERINFODATA, &x);
        h->requests++;
        cc = curl.perform(h->easy);
        curl.getinfo(h->easy, CURLINFO_RESPONSE_CODE, &status);
        r->status = status;
        r->len = x.used;
        snprintf(r->final_url, sizeof r->final_url, "%s", cur);
        if (x.stopped) {
            rc = vs_error_set(err, VS_EINTERRUPT, "interrupted while reading %.300s", cur);
            goto done;
        }
        if (x.refused) {
            rc = vs_error_set(err, VS_EFORMAT,
                              "%.300s: the server did not answer the range request for bytes "
                              "%llu-%llu with that range (HTTP %ld%s); refused rather than "
                              "downloading the whole file",
                              cur, (unsigned long long)offset,
                              (unsigned long long)(offset + length - 1), status,
                              status == 200 ? ", the whole file" : "");
            goto done;
        }
        if (x.too_big) {
            rc = vs_error_set(err, VS_EFORMAT, "%.300s is larger than %zu bytes; not read", cur,
                              max_body);
            goto done;
        }
        if (cc != CURLE_OK) {
            const char *why = h->errbuf[0] ? h->errbuf : curl.strerror(cc);
            unreachable_note(origin,
                             cc == CURLE_COULDNT_RESOLVE_PROXY ||
                                 cc == CURLE_COULDNT_RESOLVE_HOST || cc == CURLE_COULDNT_CONNECT ||
                                 (cc == CURLE_OPERATION_TIMEDOUT && !status && !x.used),
                             why);
            rc = vs_error_set(err, VS_EIO, "cannot read %.300s: %s", cur, why);
            goto done;
        }
        unreachable_note(origin, 0, NULL);
        if (status < 300 || status >= 400 || status == 304)
            break;
        if (curl.getinfo(h->easy, CURLINFO_REDIRECT_URL, &next) != CURLE_OK || !next ||
            !is_http_url(next)) {
            rc = vs_error_set(err, VS_EIO, "%.300s: HTTP %ld redirects to no http(s) URL", cur,
                              status);
            goto done;
        }
        if (++r->redirects > h->o.max_redirects) {
            rc = vs_error_set(err, VS_EIO, "%.300s: more than %u redirects", url,
                              h->o.max_redirects);
            goto done;
        }
        if (strlen(next) >= sizeof cur) {
            rc = vs_error_set(err, VS_EIO, "%.300s: a redirect to a too long URL", cur);
            goto done;
        }
        snprintf(cur, sizeof cur, "%s", next);
    }
    if (length && r->status == 206 && r->len > length) {
        rc = vs_error_set(err, VS_EFORMAT, "%.300s: more bytes than the range asked", cur);
        goto done;
    }
done:
    if (h->easy)
        curl.setopt(h->easy, CURLOPT_HTTPHEADER, (struct curl_slist *)NULL);
    curl.slist_free_all(hdrs);
    if (rc) {
        free(r->body);
        r->body = NULL;
        r->len = 0;
    }
    return rc;
}
