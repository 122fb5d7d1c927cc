/* The headers of many weights files from the Hub, several at once: range
 * reads of one file (safetensors: 8 bytes, then the header; GGUF: growing
 * ranges until the tensor table is parsed), written as sparse files; and the
 * sessions that read them side by side (model/hfhub.h says where and why). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/gguf.h"
#include "model/hfhub_internal.h"
#include "model/safetensors.h"
#include "util/clock.h"

/* A request that takes this long (ms, on average over the first file) is
 * waiting on the link: the other files are then read side by side. */
#define SIDE_BY_SIDE_MS 5

/* GGUF's first range, then doubled: a header with a large vocabulary is a few MB */
#define GGUF_FIRST ((uint64_t)64 * 1024)

/* One weights file being read: the bytes of its start fetched so far. */
typedef struct rfile {
    vs_hfhub *s;
    const char *name;
    unsigned char *buf;
    uint64_t have, total;
    vs_error e; /* why a read through the parser failed */
    int failed;
} rfile;

/* Fetches bytes [have, want) of the file (want capped at its size). */
static int fetch_to(rfile *f, uint64_t want, vs_error *err)
{
    vs_http_resp r;
    unsigned char *g;
    int rc;
    if (f->total && want > f->total)
        want = f->total;
    if (want <= f->have)
        return 0;
    if ((rc = vs_hfhub_get(f->s, f->name, f->have, want - f->have, 0, &r, err)))
        return rc;
    if (!r.total || (f->total && r.total != f->total) || r.len == 0 ||
        (r.len < want - f->have && f->have + r.len < r.total)) {
        rc = vs_error_set(err, VS_EFORMAT,
                          "%s: %s: the server's range answer is short or gives no size "
                          "(Content-Range)",
                          f->s->repo, f->name);
        goto done;
    }
    f->total = r.total;
    if (!(g = realloc(f->buf, (size_t)(f->have + r.len)))) {
        rc = vs_error_oom(err);
        goto done;
    }
    f->buf = g;
    memcpy(g + f->have, r.body, r.len);
    f->have += r.len;
done:
    vs_http_resp_clear(&r);
    return rc;
}

/* A vs_file_read_fn for the GGUF parser: what it asks beyond the bytes
 * fetched brings a range twice as long. */
static long long gguf_read(void *ctx, void *buf, size_t n, uint64_t offset)
{
    rfile *f = ctx;
    uint64_t want = offset + n;
    if (want > f->have && (!f->total || f->have < f->total)) {
        if (want < f->have * 2)
            want = f->have * 2;
        if (fetch_to(f, want, &f->e)) {
            f->failed = 1;
            errno = EIO;
            return -1;
        }
    }
    if (offset >= f->have)
        return 0;
    if (n > f->have - offset)
        n = (size_t)(f->have - offset);
    memcpy(buf, f->buf + offset, n);
    return (long long)n;
}

/* The header's length: safetensors 8 + the length its first 8 bytes give;
 * GGUF the start of the data section (after the tensor table's padding). */
static int read_header(rfile *f, int gguf, uint64_t *header_bytes, vs_error *err)
{
    int rc, i;
    if (gguf) {
        vs_gguf_file *g = NULL;
        if ((rc = fetch_to(f, GGUF_FIRST, err)))
            return rc;
        rc = vs_gguf_read(&g, f->name, f->total, gguf_read, f, NULL, err);
        if (rc && f->failed && err)
            *err = f->e;
        if (rc)
            return rc;
        *header_bytes = g->data_start < f->total ? g->data_start : f->total;
        vs_gguf_file_free(g);
    } else {
        uint64_t hlen = 0;
        if ((rc = fetch_to(f, 8, err)))
            return rc;
        if (f->have < 8)
            return vs_error_set(err, VS_EFORMAT, "%s: %s is shorter than 8 bytes", f->s->repo,
                                f->name);
        for (i = 7; i >= 0; i--)
            hlen = (hlen << 8) | f->buf[i];
        if (hlen == 0 || hlen > f->total - 8 || hlen > VS_ST_HEADER_MAX)
            return vs_error_set(err, VS_EFORMAT,
                                "%s: %s: the header length %llu does not fit the file (%llu "
                                "bytes) or the format's limit; not a safetensors file",
                                f->s->repo, f->name, (unsigned long long)hlen,
                                (unsigned long long)f->total);
        *header_bytes = 8 + hlen;
    }
    return fetch_to(f, *header_bytes, err);
}

/* The header bytes at the start of a sparse file of the real size. */
static int write_sparse(const char *path, const unsigned char *head, uint64_t n, uint64_t size,
                        vs_error *err)
{
    char tmp[VS_HF_PATH_MAX + 700];
    uint64_t done = 0;
    int fd, rc;
    if ((rc = vs_hfhub_mkdirs(path, err)))
        return rc;
    snprintf(tmp, sizeof tmp, "%s.vramsheet-%ld.tmp", path, (long)getpid());
    if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0)
        return vs_error_set(err, VS_EIO, "cannot write %s: %s", tmp, strerror(errno));
    while (done < n) {
        ssize_t w = write(fd, head + done, (size_t)(n - done));
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        done += (uint64_t)w;
    }
    if (done < n || ftruncate(fd, (off_t)size) != 0 || close(fd) != 0 || rename(tmp, path)) {
        rc = vs_error_set(err, VS_EIO, "cannot write %s: %s", path, strerror(errno));
        if (done < n)
            close(fd);
        unlink(tmp);
        return rc;
    }
    return 0;
}

/* ---- several files at once ---- */

typedef struct slot {
    uint64_t header_bytes, size;
    char sha[65];
    int rc;
    vs_error err;
} slot;

typedef struct pool {
    char **names;
    size_t n;
    int gguf;
    const char *hdir;
    slot *slots;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t next, done, running;
    int stop; /* an interrupt or a failure: no new file, transfers abort */
    uint64_t bytes;
} pool;

typedef struct worker {
    pool *p;
    vs_hfhub s;
    vs_hub_progress prog;
    pthread_t t;
    int started;
} worker;

static int pool_stopped(void *ctx)
{
    pool *p = ctx;
    int stop;
    pthread_mutex_lock(&p->mu);
    stop = p->stop;
    pthread_mutex_unlock(&p->mu);
    return stop;
}

static void one_file(vs_hfhub *s, const pool *p, size_t i, slot *out)
{
    rfile f;
    unsigned char d[crypto_hash_sha256_BYTES];
    char path[VS_HF_PATH_MAX + 600];
    memset(&f, 0, sizeof f);
    f.s = s;
    f.name = p->names[i];
    vs_error_clear(&out->err);
    out->rc = read_header(&f, p->gguf, &out->header_bytes, &out->err);
    if (!out->rc) {
        crypto_hash_sha256(d, f.buf, out->header_bytes);
        sodium_bin2hex(out->sha, sizeof out->sha, d, sizeof d);
        out->size = f.total;
        snprintf(path, sizeof path, "%s/%s", p->hdir, p->names[i]);
        out->rc = write_sparse(path, f.buf, out->header_bytes, f.total, &out->err);
    }
    free(f.buf);
}

static void *work(void *arg)
{
    worker *w = arg;
    pool *p = w->p;
    for (;;) {
        size_t i;
        uint64_t before = vs_http_bytes(w->s.h);
        pthread_mutex_lock(&p->mu);
        if (p->stop || p->next >= p->n) {
            p->running--;
            pthread_cond_signal(&p->cv);
            pthread_mutex_unlock(&p->mu);
            return NULL;
        }
        i = p->next++;
        pthread_mutex_unlock(&p->mu);
        one_file(&w->s, p, i, &p->slots[i]);
        pthread_mutex_lock(&p->mu);
        p->done++;
        p->bytes += vs_http_bytes(w->s.h) - before;
        if (p->slots[i].rc)
            p->stop = 1;
        pthread_cond_signal(&p->cv);
        pthread_mutex_unlock(&p->mu);
    }
}

/* This thread waits, says how far the workers are once a second, and passes
 * an interrupt on to them. */
static void watch(vs_hfhub *s, pool *p)
{
    pthread_mutex_lock(&p->mu);
    while (p->running > 0) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 100 * 1000 * 1000;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&p->cv, &p->mu, &ts);
        s->done = (unsigned)p->done;
        s->base_bytes = p->bytes;
        pthread_mutex_unlock(&p->mu);
        if (s->p && s->p->interrupted && s->p->interrupted(s->p->ctx)) {
            pthread_mutex_lock(&p->mu);
            p->stop = 1;
            pthread_mutex_unlock(&p->mu);
        }
        vs_hfhub_tick(s);
        pthread_mutex_lock(&p->mu);
    }
    pthread_mutex_unlock(&p->mu);
}

/* 1 for a host on this machine: no latency to hide there. */
static int loopback(const char *url)
{
    const char *h = strstr(url, "://");
    h = h ? h + 3 : url;
    return !strncmp(h, "localhost", 9) || !strncmp(h, "127.", 4) || !strncmp(h, "[::1]", 5);
}

/* Whether the other files are read side by side, and by how many sessions
 * (*nw): VRAMSHEET_HUB_WORKERS when set (1: one at a time), else 8 when the
 * first file's requests waited on a link that is not this machine's. */
static int side_by_side(const vs_hfhub *s, int64_t ms, unsigned requests, size_t *nw)
{
    const char *v = getenv("VRAMSHEET_HUB_WORKERS");
    char *end;
    long k;
    if (v && *v && (k = strtol(v, &end, 10)) >= 1 && !*end) {
        if ((size_t)k < *nw)
            *nw = (size_t)k;
        return k > 1;
    }
    return !loopback(s->endpoint) && ms >= SIDE_BY_SIDE_MS * (int64_t)requests;
}

int vs_hfhub_read_headers(vs_hfhub *s, char **names, size_t n, int gguf, const char *hdir,
                          json_t *files, vs_error *err)
{
    size_t nw = n - 1 < VS_HFHUB_WORKERS ? n - 1 : VS_HFHUB_WORKERS, i;
    worker *ws = calloc(nw ? nw : 1, sizeof *ws);
    pool p;
    int rc = 0, stopped = 0;
    int64_t t0;
    unsigned r0;
    if (n == 0) {
        free(ws);
        return 0;
    }
    memset(&p, 0, sizeof p);
    p.names = names;
    p.n = n;
    p.gguf = gguf;
    p.hdir = hdir;
    if (!ws || !(p.slots = calloc(n ? n : 1, sizeof *p.slots))) {
        free(ws);
        return vs_error_oom(err);
    }
    if (sodium_init() < 0) { /* before the threads hash */
        free(ws);
        free(p.slots);
        return vs_error_set(err, VS_EIO, "libsodium failed to initialise");
    }
    pthread_mutex_init(&p.mu, NULL);
    pthread_cond_init(&p.cv, NULL);
    s->total = (unsigned)n;
    /* The first file on this thread tells the link's latency. Side by side
     * pays only where requests wait on a network: on this machine one
     * connection is quicker, and a local server that serves one connection
     * at a time (keeping it alive) would make the others wait for their
     * timeout. */
    t0 = vs_clock_mono_ms();
    r0 = vs_http_requests(s->h);
    one_file(s, &p, 0, &p.slots[0]);
    p.next = p.done = 1;
    p.stop = p.slots[0].rc != 0;
    if (!p.stop && n > 1 &&
        !side_by_side(s, vs_clock_mono_ms() - t0, vs_http_requests(s->h) - r0, &nw)) {
        for (i = 1; i < n && !p.stop; i++) {
            s->done = (unsigned)i;
            one_file(s, &p, i, &p.slots[i]);
            p.next = p.done = i + 1;
            p.stop = p.slots[i].rc != 0;
        }
        nw = 0;
    }
    for (i = 0; i < nw && !rc && !p.stop; i++) {
        ws[i].p = &p;
        ws[i].prog.ctx = &p;
        ws[i].prog.interrupted = pool_stopped;
        if ((rc = vs_hfhub_clone(&ws[i].s, s, &ws[i].prog, err)))
            break;
        pthread_mutex_lock(&p.mu);
        p.running++;
        pthread_mutex_unlock(&p.mu);
        if (pthread_create(&ws[i].t, NULL, work, &ws[i]) != 0) {
            pthread_mutex_lock(&p.mu);
            p.running--;
            pthread_mutex_unlock(&p.mu);
            rc = vs_error_set(err, VS_EIO, "cannot start a thread: %s", strerror(errno));
            break;
        }
        ws[i].started = 1;
    }
    if (rc) {
        pthread_mutex_lock(&p.mu);
        p.stop = 1;
        pthread_mutex_unlock(&p.mu);
    }
    if (nw)
        watch(s, &p);
    for (i = 0; i < nw; i++) {
        if (ws[i].started)
            pthread_join(ws[i].t, NULL);
        if (ws[i].s.h && s->st) {
            s->st->bytes += vs_http_bytes(ws[i].s.h);
            s->st->requests += vs_http_requests(ws[i].s.h);
        }
        vs_hfhub_close(&ws[i].s);
    }
    stopped = p.stop;
    /* the first failure in the files' order; a transfer aborted because
     * another failed (VS_EINTERRUPT) only when there is no other */
    for (i = 0; !rc && i < n; i++)
        if (p.slots[i].rc && p.slots[i].rc != VS_EINTERRUPT) {
            rc = p.slots[i].rc;
            if (err)
                *err = p.slots[i].err;
        }
    for (i = 0; !rc && i < n; i++)
        if (p.slots[i].rc) {
            rc = p.slots[i].rc;
            if (err)
                *err = p.slots[i].err;
        }
    if (!rc && stopped && p.done < n)
        rc = vs_error_set(err, VS_EINTERRUPT, "%s: interrupted while reading headers from the Hub",
                          s->repo);
    for (i = 0; !rc && i < n; i++) {
        if (json_array_append_new(files, json_pack("{s:s, s:I, s:I, s:s}", "name", names[i], "size",
                                                   (json_int_t)p.slots[i].size, "header_bytes",
                                                   (json_int_t)p.slots[i].header_bytes,
                                                   "header_sha256", p.slots[i].sha)))
            rc = vs_error_oom(err);
        else if (s->st)
            s->st->files++;
    }
    pthread_cond_destroy(&p.cv);
    pthread_mutex_destroy(&p.mu);
    free(p.slots);
    free(ws);
    return rc;
}
