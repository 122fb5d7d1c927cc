/* The Hub session, its API and the complete files it puts in the cache
 * (model/hfhub.h says what and where). */
#include "model/hfhub.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/hfhub_internal.h"
#include "util/clock.h"
#include "util/file.h"

/* huggingface_hub's constants.py: _is_true accepts these, case-insensitively */
static int env_true(const char *name)
{
    const char *v = getenv(name);
    static const char *const yes[] = {"1", "ON", "YES", "TRUE"};
    size_t i;
    if (!v)
        return 0;
    for (i = 0; i < 4; i++)
        if (!strcasecmp(v, yes[i]))
            return 1;
    return 0;
}

int vs_hfhub_offline(void)
{
    return env_true("HF_HUB_OFFLINE");
}

void vs_hfhub_forget_unreachable(void)
{
    vs_http_forget_unreachable();
}

int vs_hfhub_can_fetch(const vs_hub_progress *p, char *why, size_t n)
{
    char lib[400];
    if (vs_hfhub_offline()) {
        snprintf(why, n, "HF_HUB_OFFLINE is set, so nothing is asked of the Hub");
        return 0;
    }
    if (p && p->offline) {
        snprintf(why, n, "`hub offline` is set for this session, so nothing is asked of the Hub");
        return 0;
    }
    if (!vs_http_available(lib, sizeof lib)) {
        snprintf(why, n,
                 "the Hub cannot be asked: libcurl cannot be loaded (%s; Debian's and Ubuntu's "
                 "package libcurl4 has it)",
                 lib);
        return 0;
    }
    return 1;
}

/* huggingface_hub's token file: $HF_TOKEN_PATH, else $HF_HOME/token (HF_HOME
 * defaulting to $XDG_CACHE_HOME/huggingface, else ~/.cache/huggingface). */
static int token_path(char *path, size_t n)
{
    const char *v, *home;
    if ((v = getenv("HF_TOKEN_PATH")) && *v)
        snprintf(path, n, "%s", v);
    else if ((v = getenv("HF_HOME")) && *v)
        snprintf(path, n, "%s/token", v);
    else if ((v = getenv("XDG_CACHE_HOME")) && *v)
        snprintf(path, n, "%s/huggingface/token", v);
    else if ((home = getenv("HOME")) && *home)
        snprintf(path, n, "%s/.cache/huggingface/token", home);
    else
        return 0;
    return 1;
}

/* $HF_TOKEN, else the token file huggingface_hub's `login` writes. */
static int read_token(char *out, size_t n)
{
    const char *v = getenv("HF_TOKEN");
    char path[VS_HF_PATH_MAX];
    uint64_t size = 0;
    long long got;
    size_t len;
    int fd;
    out[0] = '\0';
    if (v && *v) {
        snprintf(out, n, "%s", v);
    } else {
        if (!token_path(path, sizeof path))
            return 0;
        if ((fd = vs_file_open_regular(path, 4096, &size, NULL)) < 0)
            return 0;
        got = vs_file_pread(&fd, out, n - 1, 0);
        close(fd);
        out[got > 0 ? got : 0] = '\0';
    }
    len = strlen(out);
    while (len && isspace((unsigned char)out[len - 1]))
        out[--len] = '\0';
    return len > 0 && !strpbrk(out, "\r\n");
}

void vs_hfhub_status(vs_hub_status *out)
{
    const char *ep = getenv("HF_ENDPOINT");
    char token[2048];
    size_t n;
    memset(out, 0, sizeof *out);
    snprintf(out->endpoint, sizeof out->endpoint, "%s", ep && *ep ? ep : "https://huggingface.co");
    n = strlen(out->endpoint);
    while (n && out->endpoint[n - 1] == '/')
        out->endpoint[--n] = '\0';
    out->env_offline = vs_hfhub_offline();
    if (read_token(token, sizeof token)) {
        const char *v = getenv("HF_TOKEN");
        if (v && *v)
            out->token_source = "HF_TOKEN";
        else if (token_path(out->token_file, sizeof out->token_file))
            out->token_source = out->token_file;
    }
    sodium_memzero(token, sizeof token);
    out->libcurl = vs_http_available(out->libcurl_why, sizeof out->libcurl_why);
    if (vs_hfcache_hub_dir(out->cache, sizeof out->cache, NULL))
        out->cache[0] = '\0';
}

static long env_seconds(const char *name, long def)
{
    const char *v = getenv(name);
    char *end;
    long s;
    if (!v || !*v)
        return def;
    s = strtol(v, &end, 10);
    return *end || s <= 0 ? def : s;
}

/* A progress line once a second, once the first second has passed. */
static void tick(vs_hfhub *s, uint64_t now_bytes)
{
    int64_t t = vs_clock_mono_ms();
    if (s->p && s->p->line && t - s->t0 >= 1000 && t - s->last_line >= 1000) {
        char line[400];
        uint64_t b = s->base_bytes + now_bytes;
        s->last_line = t;
        if (s->total)
            snprintf(line, sizeof line,
                     "%s: reading headers from the Hub, %u of %u files, %llu KiB, %lld.%01lld s\n",
                     s->repo, s->done, s->total, (unsigned long long)(b / 1024),
                     (long long)((t - s->t0) / 1000), (long long)((t - s->t0) % 1000 / 100));
        else
            snprintf(line, sizeof line, "%s: asking the Hub, %llu KiB, %lld.%01lld s\n", s->repo,
                     (unsigned long long)(b / 1024), (long long)((t - s->t0) / 1000),
                     (long long)((t - s->t0) % 1000 / 100));
        s->p->line(s->p->ctx, line);
    }
}

void vs_hfhub_tick(vs_hfhub *s)
{
    tick(s, 0);
}

static int on_progress(void *ctx, uint64_t now_bytes)
{
    vs_hfhub *s = ctx;
    if (s->p && s->p->interrupted && s->p->interrupted(s->p->ctx))
        return 1;
    tick(s, now_bytes);
    return 0;
}

/* The session's HTTP client: the token read again (it is never kept), for
 * the endpoint's origin only. */
static int start_http(vs_hfhub *s, vs_error *err)
{
    char token[2048];
    vs_http_opts o;
    int rc;
    memset(&o, 0, sizeof o);
    s->has_token = read_token(token, sizeof token);
    o.bearer = s->has_token ? token : NULL;
    o.bearer_origin = s->endpoint;
    o.user_agent = "vramsheet (sizing before download; headers by range requests)";
    /* huggingface_hub's settings for the same two waits (constants.py, 10 s each) */
    o.connect_timeout_s = env_seconds("HF_HUB_ETAG_TIMEOUT", 10);
    o.stall_timeout_s = env_seconds("HF_HUB_DOWNLOAD_TIMEOUT", 10);
    o.progress = on_progress;
    o.progress_ctx = s;
    rc = vs_http_open(&s->h, &o, err);
    sodium_memzero(token, sizeof token);
    s->t0 = s->last_line = vs_clock_mono_ms();
    return rc;
}

int vs_hfhub_open(vs_hfhub *s, const char *repo_id, const vs_hub_progress *p, vs_hub_stats *st,
                  vs_error *err)
{
    char why[600], hub[VS_HF_PATH_MAX];
    const char *ep = getenv("HF_ENDPOINT"), *slash = strchr(repo_id, '/');
    size_t n;
    int rc;
    memset(s, 0, sizeof *s);
    if (!vs_hfhub_can_fetch(p, why, sizeof why))
        return vs_error_set(err, VS_EIO, "%s", why);
    if (!vs_hfcache_is_repo_id(repo_id) || strlen(repo_id) >= sizeof s->repo)
        return vs_error_set(err, VS_EVALUE, "'%s' is not a Hugging Face repository id (ORG/NAME)",
                            repo_id);
    snprintf(s->repo, sizeof s->repo, "%s", repo_id);
    snprintf(s->endpoint, sizeof s->endpoint, "%s", ep && *ep ? ep : "https://huggingface.co");
    n = strlen(s->endpoint);
    while (n && s->endpoint[n - 1] == '/')
        s->endpoint[--n] = '\0';
    if ((rc = vs_hfcache_hub_dir(hub, sizeof hub, err)))
        return rc;
    if ((size_t)snprintf(s->repo_dir, sizeof s->repo_dir, "%s/models--%.*s--%s", hub,
                         (int)(slash - repo_id), repo_id, slash + 1) >= sizeof s->repo_dir)
        return vs_error_set(err, VS_EVALUE, "the cache path is too long");
    s->p = p;
    s->st = st;
    return start_http(s, err);
}

int vs_hfhub_clone(vs_hfhub *dst, const vs_hfhub *src, const vs_hub_progress *p, vs_error *err)
{
    memset(dst, 0, sizeof *dst);
    memcpy(dst->endpoint, src->endpoint, sizeof dst->endpoint);
    memcpy(dst->repo, src->repo, sizeof dst->repo);
    memcpy(dst->repo_dir, src->repo_dir, sizeof dst->repo_dir);
    memcpy(dst->commit, src->commit, sizeof dst->commit);
    dst->p = p;
    return start_http(dst, err);
}

void vs_hfhub_close(vs_hfhub *s)
{
    if (s->st && s->h) {
        s->st->bytes += vs_http_bytes(s->h);
        s->st->requests += vs_http_requests(s->h);
        s->st->ms += (uint64_t)(vs_clock_mono_ms() - s->t0);
    }
    vs_http_free(s->h);
    s->h = NULL;
}

/* urllib.parse.quote: unreserved characters kept, and '/' where allowed */
static void quote(char *out, size_t n, const char *in, int keep_slash)
{
    size_t k = 0;
    for (; *in && k + 4 < n; in++) {
        unsigned char c = (unsigned char)*in;
        if (isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || (keep_slash && c == '/'))
            out[k++] = (char)c;
        else
            k += (size_t)snprintf(out + k, n - k, "%%%02X", c);
    }
    out[k] = '\0';
}

/* The Hub's refusal in words, as huggingface_hub's hf_raise_for_status
 * (utils/_http.py) reads X-Error-Code and the status. */
static int refusal(const vs_hfhub *s, const vs_http_resp *r, const char *what, vs_error *err)
{
    const char *code = r->error_code, *msg = r->error_message;
    const char *login = "log in with `huggingface-cli login` (or set HF_TOKEN)";
    if (!strcmp(code, "RevisionNotFound"))
        return vs_error_set(err, VS_ENOTFOUND, "%s has no revision %s on %s (HTTP %ld)", s->repo,
                            what, s->endpoint, r->status);
    if (!strcmp(code, "EntryNotFound") || (r->status == 404 && s->commit[0]))
        return vs_error_set(err, VS_ENOTFOUND, "%s at %s has no file %s on %s (HTTP %ld)", s->repo,
                            s->commit, what, s->endpoint, r->status);
    if (!strcmp(code, "GatedRepo"))
        return vs_error_set(err, VS_EIO,
                            "%s is gated (HTTP %ld): accept its conditions at %s/%s, then %s%s",
                            s->repo, r->status, s->endpoint, s->repo, login,
                            s->has_token ? "; the token given has no access yet" : "");
    if (r->status == 401 && !strcmp(msg, "Invalid credentials in Authorization header"))
        return vs_error_set(err, VS_EIO,
                            "%s: the Hub refused the token (HTTP 401, invalid credentials): %s "
                            "again",
                            s->repo, login);
    if (r->status == 404 && !code[0] && !s->commit[0]) /* the API, without the Hub's words */
        return vs_error_set(err, VS_ENOTFOUND,
                            "%s: no such repository on %s, or no revision %s in it (HTTP 404)",
                            s->repo, s->endpoint, what);
    if (!strcmp(code, "RepoNotFound") || r->status == 401 || r->status == 404)
        return vs_error_set(err, r->status == 404 ? VS_ENOTFOUND : VS_EIO,
                            "%s: no such repository on %s (HTTP %ld), or it is private or "
                            "gated: %s%s",
                            s->repo, s->endpoint, r->status,
                            s->has_token ? "the token given cannot see it; " : "", login);
    if (r->status == 403)
        return vs_error_set(err, VS_EIO,
                            "%s: the Hub refused access (HTTP 403%s%s): a gated or private "
                            "repository; %s",
                            s->repo, msg[0] ? ": " : "", msg, login);
    return vs_error_set(err, VS_EIO, "%s: HTTP %ld from %s for %s%s%s", s->repo, r->status,
                        s->endpoint, what, msg[0] ? ": " : "", msg);
}

static int is_hex40(const char *c)
{
    size_t i;
    for (i = 0; i < 40; i++)
        if (!isxdigit((unsigned char)c[i]) || isupper((unsigned char)c[i]))
            return 0;
    return c[40] == '\0';
}

int vs_hfhub_info(vs_hfhub *s, const char *revision, json_t **siblings, vs_error *err)
{
    char url[1400], rev[600];
    vs_http_resp r;
    json_t *root = NULL, *sha, *sib;
    json_error_t je;
    int rc;
    *siblings = NULL;
    quote(rev, sizeof rev, revision ? revision : "main", 0);
    snprintf(url, sizeof url, "%s/api/models/%s/revision/%s", s->endpoint, s->repo, rev);
    if ((rc = vs_http_get(s->h, url, 0, 0, VS_HFHUB_SMALL_MAX, &r, err)))
        return rc;
    if (r.status < 200 || r.status >= 300) {
        rc = refusal(s, &r, revision ? revision : "main", err);
        goto done;
    }
    root = json_loadb((const char *)r.body, r.len, 0, &je);
    sha = json_object_get(root, "sha");
    sib = json_object_get(root, "siblings");
    if (!json_is_string(sha) || strlen(json_string_value(sha)) != 40 ||
        !is_hex40(json_string_value(sha)) || !json_is_array(sib)) {
        rc = vs_error_set(err, VS_EFORMAT,
                          "%s: the Hub's answer to %s has no 40-hex \"sha\" and \"siblings\" "
                          "list%s%s",
                          s->repo, url, root ? "" : ": not JSON, ", root ? "" : je.text);
        goto done;
    }
    memcpy(s->commit, json_string_value(sha), 41);
    *siblings = json_incref(sib);
done:
    json_decref(root);
    vs_http_resp_clear(&r);
    return rc;
}

int vs_hfhub_has(const json_t *siblings, const char *name)
{
    size_t i;
    for (i = 0; i < json_array_size(siblings); i++) {
        const char *f =
            json_string_value(json_object_get(json_array_get(siblings, i), "rfilename"));
        if (f && !strcmp(f, name))
            return 1;
    }
    return 0;
}

int vs_hfhub_get(vs_hfhub *s, const char *name, uint64_t offset, uint64_t length, size_t max,
                 vs_http_resp *r, vs_error *err)
{
    char url[2200], q[1200];
    int rc;
    /* the next range of the same file goes where the last one was redirected
     * (the CDN's signed URL): one request instead of two; the Hub again when
     * that fails (an expired signature) */
    if (length && s->last_url[0] && !strcmp(s->last_name, name)) {
        vs_error quiet;
        vs_error_clear(&quiet);
        rc = vs_http_get(s->h, s->last_url, offset, length, max, r, &quiet);
        s->base_bytes = vs_http_bytes(s->h);
        if (rc == 0 && r->status == 206)
            return 0;
        if (rc == VS_EINTERRUPT || rc == VS_EFORMAT) {
            if (err)
                *err = quiet;
            return rc;
        }
        vs_http_resp_clear(r);
    }
    s->last_url[0] = '\0';
    quote(q, sizeof q, name, 1);
    snprintf(url, sizeof url, "%s/%s/resolve/%s/%s", s->endpoint, s->repo, s->commit, q);
    if ((rc = vs_http_get(s->h, url, offset, length, max, r, err)))
        return rc;
    s->base_bytes = vs_http_bytes(s->h);
    if (length && r->status == 206 && r->redirects && strlen(name) < sizeof s->last_name) {
        snprintf(s->last_name, sizeof s->last_name, "%s", name);
        snprintf(s->last_url, sizeof s->last_url, "%s", r->final_url);
    }
    if (r->status >= 200 && r->status < 300)
        return 0;
    rc = refusal(s, r, name, err);
    vs_http_resp_clear(r);
    return rc;
}

int vs_hfhub_mkdirs(const char *path, vs_error *err)
{
    char p[VS_HF_PATH_MAX + 600];
    size_t i;
    if (strlen(path) >= sizeof p)
        return vs_error_set(err, VS_EVALUE, "the cache path is too long");
    snprintf(p, sizeof p, "%s", path);
    for (i = 1; p[i]; i++) {
        if (p[i] != '/')
            continue;
        p[i] = '\0';
        if (mkdir(p, 0755) != 0 && errno != EEXIST)
            return vs_error_set(err, VS_EIO, "cannot create %s: %s", p, strerror(errno));
        p[i] = '/';
    }
    return 0;
}

static int safe_etag(const char *e)
{
    size_t n = strlen(e), i;
    if (n < 8 || n > 128)
        return 0;
    for (i = 0; i < n; i++)
        if (!isalnum((unsigned char)e[i]) && e[i] != '-' && e[i] != '_')
            return 0;
    return 1;
}

/* Writes data to path through a temporary file and a rename: a reader never
 * sees half a file. */
static int write_atomic(const char *path, const unsigned char *data, size_t len, vs_error *err)
{
    char tmp[VS_HF_PATH_MAX + 700];
    size_t done = 0;
    int fd;
    snprintf(tmp, sizeof tmp, "%s.vramsheet-%ld.tmp", path, (long)getpid());
    if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0)
        return vs_error_set(err, VS_EIO, "cannot write %s: %s", tmp, strerror(errno));
    while (done < len) {
        ssize_t w = write(fd, data + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            close(fd);
            unlink(tmp);
            return vs_error_set(err, VS_EIO, "cannot write %s: %s", tmp, strerror(errno));
        }
        done += (size_t)w;
    }
    if (close(fd) != 0 || rename(tmp, path) != 0) {
        unlink(tmp);
        return vs_error_set(err, VS_EIO, "cannot write %s: %s", path, strerror(errno));
    }
    return 0;
}

/* snapshots/<commit>/<name> -> ../../blobs/<blob> (one more ../ per folder in name) */
static int link_into_snapshot(vs_hfhub *s, const char *name, const char *blob, vs_error *err)
{
    char link[VS_HF_PATH_MAX + 600], target[VS_HF_PATH_MAX];
    const char *c;
    size_t k = 0;
    int rc;
    snprintf(link, sizeof link, "%s/snapshots/%s/%s", s->repo_dir, s->commit, name);
    for (c = name; *c; c++)
        if (*c == '/')
            k += (size_t)snprintf(target + k, sizeof target - k, "../");
    snprintf(target + k, sizeof target - k, "../../blobs/%s", blob);
    if ((rc = vs_hfhub_mkdirs(link, err)))
        return rc;
    unlink(link);
    if (symlink(target, link) != 0)
        return vs_error_set(err, VS_EIO, "cannot link %s: %s", link, strerror(errno));
    return 0;
}

int vs_hfhub_put_file(vs_hfhub *s, const char *name, const unsigned char *data, size_t len,
                      const char *etag, vs_error *err)
{
    char blob[200], path[VS_HF_PATH_MAX + 400];
    struct stat st;
    int rc;
    if (etag && safe_etag(etag)) {
        snprintf(blob, sizeof blob, "%s", etag);
    } else { /* no usable ETag: named by its content */
        unsigned char d[crypto_hash_sha256_BYTES];
        if (sodium_init() < 0)
            return vs_error_set(err, VS_EIO, "libsodium failed to initialise");
        crypto_hash_sha256(d, data, len);
        sodium_bin2hex(blob, sizeof blob, d, sizeof d);
    }
    snprintf(path, sizeof path, "%s/blobs/%s", s->repo_dir, blob);
    if ((rc = vs_hfhub_mkdirs(path, err)))
        return rc;
    if (!(stat(path, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size == len) &&
        (rc = write_atomic(path, data, len, err)))
        return rc;
    return link_into_snapshot(s, name, blob, err);
}

/* refs/<revision> names the commit, as huggingface_hub writes it (no newline) */
static int put_ref(vs_hfhub *s, const char *revision, vs_error *err)
{
    char path[VS_HF_PATH_MAX + 400];
    int rc;
    if (!strcmp(revision, s->commit))
        return 0;
    if (strstr(revision, "..") || revision[0] == '/')
        return vs_error_set(err, VS_EVALUE, "revision '%s' is not a branch, tag or commit",
                            revision);
    snprintf(path, sizeof path, "%s/refs/%s", s->repo_dir, revision);
    if ((rc = vs_hfhub_mkdirs(path, err)))
        return rc;
    return write_atomic(path, (const unsigned char *)s->commit, 40, err);
}

/* One complete small file of the repository into the cache. */
static int fetch_whole(vs_hfhub *s, const char *name, vs_error *err)
{
    vs_http_resp r;
    int rc = vs_hfhub_get(s, name, 0, 0, VS_HFHUB_SMALL_MAX, &r, err);
    if (rc == 0)
        rc = vs_hfhub_put_file(s, name, r.body ? r.body : (const unsigned char *)"", r.len, r.etag,
                               err);
    vs_http_resp_clear(&r);
    return rc;
}

int vs_hfhub_fetch_config(const char *repo_id, const char *revision, char commit[41],
                          const vs_hub_progress *p, vs_hub_stats *st, vs_error *err)
{
    vs_hfhub s;
    json_t *sib = NULL;
    const char *rev = revision ? revision : "main";
    int rc, found = 0;
    commit[0] = '\0';
    if ((rc = vs_hfhub_open(&s, repo_id, p, st, err)))
        goto done;
    if ((rc = vs_hfhub_info(&s, rev, &sib, err)))
        goto done;
    memcpy(commit, s.commit, 41);
    if (vs_hfhub_has(sib, "config.json")) {
        if ((rc = fetch_whole(&s, "config.json", err)))
            goto done;
        found = 1;
    }
    if (vs_hfhub_has(sib, "model_index.json")) { /* a diffusers pipeline */
        if ((rc = fetch_whole(&s, "model_index.json", err)))
            goto done;
        found = 1;
    }
    if (!found) {
        /* a GGUF repository: the snapshot folder says the commit was seen, and
         * .no_exist/<commit>/config.json that the file is not there, as
         * huggingface_hub marks a file it was told is missing (file_download.py) */
        char dir[VS_HF_PATH_MAX + 100];
        int fd;
        snprintf(dir, sizeof dir, "%s/snapshots/%s/", s.repo_dir, s.commit);
        if ((rc = vs_hfhub_mkdirs(dir, err)))
            goto done;
        snprintf(dir, sizeof dir, "%s/.no_exist/%s/config.json", s.repo_dir, s.commit);
        if ((rc = vs_hfhub_mkdirs(dir, err)))
            goto done;
        if ((fd = open(dir, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) >= 0)
            close(fd);
    }
    rc = put_ref(&s, rev, err);
    if (rc == 0)
        rc = found ? 0 : 1;
done:
    json_decref(sib);
    vs_hfhub_close(&s);
    return rc;
}
