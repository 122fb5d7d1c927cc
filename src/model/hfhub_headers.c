/* The weights' headers from the Hub with range requests, into the cache's
 * header folder (model/hfhub.h says where and why there). */
#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/gguf.h"
#include "model/hfhub.h"
#include "model/hfhub_internal.h"
#include "model/safetensors.h"
#include "sheet/sheet_access.h"
#include "util/json.h"

#define HEADERS_DIR "vramsheet-headers"
static int ends_with(const char *s, const char *x)
{
    size_t n = strlen(s), m = strlen(x);
    return n >= m && !strcmp(s + n - m, x);
}

int vs_hfhub_header_dir(const char *repo_id, const char *commit, char *out, size_t n, vs_error *err)
{
    char hub[VS_HF_PATH_MAX];
    const char *slash = strchr(repo_id, '/');
    int rc;
    if (!slash)
        return vs_error_set(err, VS_EVALUE, "'%s' is not ORG/NAME", repo_id);
    if ((rc = vs_hfcache_hub_dir(hub, sizeof hub, err)))
        return rc;
    if ((size_t)snprintf(out, n, "%s/models--%.*s--%s/" HEADERS_DIR "/%s", hub,
                         (int)(slash - repo_id), repo_id, slash + 1, commit) >= n)
        return vs_error_set(err, VS_EVALUE, "the cache path is too long");
    return 0;
}

/* A repository's file name vramsheet will write under a folder: relative,
 * no empty, "." or ".." part. */
int vs_hfhub_safe_name(const char *name)
{
    const char *p = name;
    if (!*name || *name == '/')
        return 0;
    while (*p) {
        size_t k = strcspn(p, "/");
        if (k == 0 || (k == 1 && p[0] == '.') || (k == 2 && p[0] == '.' && p[1] == '.'))
            return 0;
        p += k;
        if (*p == '/')
            p++;
        if (!*p && p[-1] == '/')
            return 0;
    }
    return 1;
}

int vs_hfhub_add_name(char ***names, size_t *n, const char *prefix, size_t plen, const char *name,
                      vs_error *err)
{
    size_t m = plen + strlen(name) + 1;
    char **g = realloc(*names, (*n + 1) * sizeof **names);
    if (!g)
        return vs_error_oom(err);
    *names = g;
    if (!(g[*n] = malloc(m)))
        return vs_error_oom(err);
    snprintf(g[*n], m, "%.*s%s", (int)plen, prefix, name);
    (*n)++;
    return 0;
}

/* An index's shards (names beside it), the index itself fetched whole into
 * the cache. */
int vs_hfhub_plan_index(vs_hfhub *s, const char *index, char ***names, size_t *n, vs_error *err)
{
    vs_http_resp r;
    vs_st_index *ix = NULL;
    const char *slash = strrchr(index, '/');
    size_t i, plen = slash ? (size_t)(slash - index) + 1 : 0;
    int rc = vs_hfhub_get(s, index, 0, 0, VS_HFHUB_SMALL_MAX, &r, err);
    if (!rc)
        rc = vs_hfhub_put_file(s, index, r.body, r.len, r.etag, err);
    if (!rc)
        rc = vs_st_index_parse(&ix, index, (const char *)r.body, r.len, err);
    vs_http_resp_clear(&r);
    for (i = 0; !rc && i < ix->nshards; i++)
        rc = vs_hfhub_add_name(names, n, index, plen, ix->shards[i], err);
    vs_st_index_free(ix);
    return rc;
}

/* The weights files to read, as model/hfcache.c picks them in a snapshot:
 * `want` when given (a file of the repository), else the index (its shards),
 * model.safetensors, or the one GGUF file; a GGUF file brings its split set.
 * *names: malloc'd list; weights: what stands for them. */
static int plan(vs_hfhub *s, const json_t *sib, const char *want, char ***names, size_t *n,
                char *weights, size_t wn, int *gguf, vs_error *err)
{
    char cands[12][256];
    size_t i, nc = 0, ncand_all = 0;
    unsigned no, count = 1, k;
    size_t plen = 0;
    *names = NULL;
    *n = 0;
    *gguf = 0;
    if (want) {
        if (!vs_hfhub_safe_name(want) || strlen(want) >= sizeof cands[0])
            return vs_error_set(err, VS_EVALUE, "file=%s is not a file name of the repository",
                                want);
        if (!vs_hfhub_has(sib, want))
            return vs_error_set(err, VS_ENOTFOUND, "%s at %s has no file %s on %s", s->repo,
                                s->commit, want, s->endpoint);
        snprintf(weights, wn, "%s", want);
        if (ends_with(want, ".json"))
            return vs_hfhub_plan_index(s, want, names, n, err);
        if (!ends_with(want, ".gguf"))
            return vs_hfhub_add_name(names, n, "", 0, want, err);
        snprintf(cands[0], sizeof cands[0], "%s", want);
        ncand_all = 1;
    } else if (vs_hfhub_has(sib, "model.safetensors.index.json")) {
        snprintf(weights, wn, "model.safetensors.index.json");
        return vs_hfhub_plan_index(s, weights, names, n, err);
    } else if (vs_hfhub_has(sib, "model.safetensors")) {
        snprintf(weights, wn, "model.safetensors");
        return vs_hfhub_add_name(names, n, "", 0, weights, err);
    }
    for (i = 0; !want && i < json_array_size(sib); i++) {
        const char *f = json_string_value(json_object_get(json_array_get(sib, i), "rfilename"));
        if (!f || !ends_with(f, ".gguf") || strlen(f) >= sizeof cands[0])
            continue;
        if (vs_gguf_split_name(f, &no, &count, &plen) && no != 1)
            continue; /* the first shard stands for its set */
        if (nc < 12)
            snprintf(cands[nc++], sizeof cands[0], "%s", f);
        ncand_all++;
    }
    if (ncand_all == 0)
        return vs_error_set(err, VS_ENOTFOUND,
                            "%s at %s holds no weights file on the Hub "
                            "(model.safetensors.index.json, model.safetensors or .gguf)",
                            s->repo, s->commit);
    if (ncand_all > 1) {
        char list[12 * 260] = "";
        size_t used = 0;
        for (i = 0; i < nc; i++)
            used +=
                (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", cands[i]);
        return vs_error_set(err, VS_EVALUE,
                            "%s at %s holds %zu GGUF files (%s%s): name the one to size with "
                            "`weights file=NAME.gguf`",
                            s->repo, s->commit, ncand_all, list, ncand_all > nc ? ", ..." : "");
    }
    *gguf = 1;
    snprintf(weights, wn, "%s", cands[0]);
    if (!vs_gguf_split_name(cands[0], &no, &count, &plen)) {
        count = 1;
        plen = 0;
    }
    for (k = 0; k < count; k++) {
        char shard[300];
        if (count == 1)
            snprintf(shard, sizeof shard, "%s", cands[0]);
        else
            snprintf(shard, sizeof shard, "%.*s-%05u-of-%05u.gguf", (int)plen, cands[0], k + 1,
                     count);
        if (vs_hfhub_add_name(names, n, "", 0, shard, err))
            return VS_ENOMEM;
    }
    return 0;
}

/* A complete file of the snapshot linked into the header folder, so that the
 * readers find it beside the headers (an index; config.json's
 * quantization_config). Fetched when the snapshot lacks it. */
int vs_hfhub_link_complete(vs_hfhub *s, const json_t *sib, const char *hdir, const char *name,
                           vs_error *err)
{
    char snap[VS_HF_PATH_MAX + 400], link[VS_HF_PATH_MAX + 400], target[1200];
    const char *c;
    size_t k = 0;
    struct stat st;
    int rc;
    snprintf(snap, sizeof snap, "%s/snapshots/%s/%s", s->repo_dir, s->commit, name);
    if (stat(snap, &st) != 0) {
        vs_http_resp r;
        if (!vs_hfhub_has(sib, name))
            return 0;
        if ((rc = vs_hfhub_get(s, name, 0, 0, VS_HFHUB_SMALL_MAX, &r, err)))
            return rc;
        rc = vs_hfhub_put_file(s, name, r.body, r.len, r.etag, err);
        vs_http_resp_clear(&r);
        if (rc)
            return rc;
    }
    snprintf(link, sizeof link, "%s/%s", hdir, name);
    for (c = name; *c; c++) /* one more ../ per folder in name */
        if (*c == '/')
            k += (size_t)snprintf(target + k, sizeof target - k, "../");
    snprintf(target + k, sizeof target - k, "../../snapshots/%s/%s", s->commit, name);
    if ((rc = vs_hfhub_mkdirs(link, err)))
        return rc;
    unlink(link);
    if (symlink(target, link) != 0)
        return vs_error_set(err, VS_EIO, "cannot link %s: %s", link, strerror(errno));
    return 0;
}

/* The header folder's description (<folder>.json), written last: "files"
 * every header there (size, header_bytes, header_sha256); "reads" what each
 * weights name needs; "default" what `weights` reads without file=. A name
 * is ready only when all it needs is there at its size. */
json_t *vs_hfhub_manifest_load(const char *hdir)
{
    char path[VS_HF_PATH_MAX + 400];
    json_t *m;
    snprintf(path, sizeof path, "%s.json", hdir);
    if (!(m = json_load_file(path, 0, NULL)))
        return NULL;
    if (!json_is_array(json_object_get(m, "files")) ||
        !json_is_object(json_object_get(m, "reads"))) {
        json_decref(m);
        return NULL;
    }
    return m;
}

static const json_t *file_entry(const json_t *m, const char *name)
{
    size_t i;
    const json_t *f;
    vs_json_array_foreach(json_object_get(m, "files"), i, f)
    {
        const char *n = json_string_value(json_object_get(f, "name"));
        if (n && !strcmp(n, name))
            return f;
    }
    return NULL;
}

/* want (NULL: the default) when every header it needs is there; else NULL. */
const char *vs_hfhub_manifest_ready(const json_t *m, const char *hdir, const char *want)
{
    char path[VS_HF_PATH_MAX + 400];
    const json_t *need, *x;
    size_t i;
    if (!want)
        want = json_string_value(json_object_get(m, "default"));
    if (!want || !json_is_array(need = json_object_get(json_object_get(m, "reads"), want)))
        return NULL;
    vs_json_array_foreach(need, i, x)
    {
        struct stat st;
        const char *name = json_string_value(x);
        const json_t *f = name ? file_entry(m, name) : NULL;
        snprintf(path, sizeof path, "%s/%s", hdir, name ? name : "");
        if (!f || stat(path, &st) != 0 ||
            (json_int_t)st.st_size != json_integer_value(json_object_get(f, "size")))
            return NULL;
    }
    return want;
}

int vs_hfhub_manifest_write(vs_hfhub *s, const char *hdir, const char *weights, int is_default,
                            char **names, size_t nn, json_t *files, vs_error *err)
{
    char path[VS_HF_PATH_MAX + 400], tmp[VS_HF_PATH_MAX + 500];
    json_t *m = vs_hfhub_manifest_load(hdir), *all, *need = json_array(), *f;
    size_t i, j;
    int rc = 0;
    if (!m)
        m = json_pack("{s:s, s:[], s:{}}", "what",
                      "weights headers read by vramsheet: each file holds its first header_bytes "
                      "bytes (header_sha256 their digest); the rest is a hole, not the file's "
                      "data",
                      "files", "reads");
    all = json_object_get(m, "files");
    for (i = 0; need && i < nn; i++)
        json_array_append_new(need, json_string(names[i]));
    vs_json_array_foreach(files, i, f) /* a header read again replaces its entry */
    {
        const char *name = json_string_value(json_object_get(f, "name"));
        for (j = 0; j < json_array_size(all); j++)
            if (!strcmp(name, json_string_value(json_object_get(json_array_get(all, j), "name"))))
                json_array_remove(all, j--);
        json_array_append(all, f);
    }
    if (!m || !need || json_array_size(need) != nn ||
        json_object_set_new(m, "repo", json_string(s->repo)) ||
        json_object_set_new(m, "commit", json_string(s->commit)) ||
        json_object_set_new(m, "endpoint", json_string(s->endpoint)) ||
        json_object_set(json_object_get(m, "reads"), weights, need) ||
        (is_default && json_object_set_new(m, "default", json_string(weights)))) {
        rc = vs_error_oom(err);
        goto done;
    }
    snprintf(path, sizeof path, "%s.json", hdir);
    snprintf(tmp, sizeof tmp, "%s.vramsheet-%ld.tmp", path, (long)getpid());
    if (json_dump_file(m, tmp, JSON_INDENT(1) | JSON_SORT_KEYS) != 0 || rename(tmp, path) != 0) {
        unlink(tmp);
        rc = vs_error_set(err, VS_EIO, "cannot write %s: %s", path, strerror(errno));
    }
done:
    json_decref(need);
    json_decref(m);
    return rc;
}

int vs_hfhub_headers(const char *repo_id, const char *commit, const char *file, char *out, size_t n,
                     const vs_hub_progress *p, vs_hub_stats *st, vs_error *err)
{
    char hdir[VS_HF_PATH_MAX + 200], weights[300];
    vs_hfhub s;
    json_t *sib = NULL, *files = NULL, *m;
    char **names = NULL;
    size_t nn = 0, i;
    int rc, gguf = 0;
    if ((rc = vs_hfhub_header_dir(repo_id, commit, hdir, sizeof hdir, err)))
        return rc;
    if ((m = vs_hfhub_manifest_load(hdir)) &&
        vs_hfhub_manifest_ready(m, hdir, file)) { /* read before: no request */
        snprintf(out, n, "%s/%s", hdir, vs_hfhub_manifest_ready(m, hdir, file));
        json_decref(m);
        return 0;
    }
    json_decref(m);
    if ((rc = vs_hfhub_open(&s, repo_id, p, st, err)))
        goto done;
    if ((rc = vs_hfhub_info(&s, commit, &sib, err)))
        goto done;
    if (strcmp(s.commit, commit)) {
        rc = vs_error_set(err, VS_EFORMAT, "%s: the Hub answered commit %s for %s", repo_id,
                          s.commit, commit);
        goto done;
    }
    if ((rc = plan(&s, sib, file, &names, &nn, weights, sizeof weights, &gguf, err)))
        goto done;
    if (!(files = json_array())) {
        rc = vs_error_oom(err);
        goto done;
    }
    if ((rc = vs_hfhub_link_complete(&s, sib, hdir, "config.json", err)) ||
        (!gguf && ends_with(weights, ".json") &&
         (rc = vs_hfhub_link_complete(&s, sib, hdir, weights, err))))
        goto done;
    for (i = 0; i < nn; i++)
        if (!vs_hfhub_safe_name(names[i])) {
            rc = vs_error_set(err, VS_EFORMAT, "%s: '%s' is not a file name of the repository",
                              s.repo, names[i]);
            goto done;
        }
    if ((rc = vs_hfhub_read_headers(&s, names, nn, gguf, hdir, files, err)))
        goto done;
    if ((rc = vs_hfhub_manifest_write(&s, hdir, weights, file == NULL, names, nn, files, err)))
        goto done;
    snprintf(out, n, "%s/%s", hdir, weights);
done:
    for (i = 0; i < nn; i++)
        free(names[i]);
    free(names);
    json_decref(files);
    json_decref(sib);
    vs_hfhub_close(&s);
    return rc;
}

/* The header folder a weights path is in: its path into hdir, 1; else 0. */
static int header_folder_of(const char *path, char *hdir, size_t n)
{
    const char *m = strstr(path, "/" HEADERS_DIR "/"), *c;
    size_t k;
    if (!m)
        return 0;
    c = m + strlen("/" HEADERS_DIR "/");
    if (strlen(c) < 41 || c[40] != '/')
        return 0;
    k = (size_t)(c + 40 - path);
    if (k >= n)
        return 0;
    memcpy(hdir, path, k);
    hdir[k] = '\0';
    return 1;
}

static int annotate_files(json_t *list, const json_t *mfiles)
{
    size_t i, j;
    json_t *e, *f;
    vs_json_array_foreach(list, i, e)
    {
        const char *name = json_string_value(json_object_get(e, "name"));
        vs_json_array_foreach(mfiles, j, f)
        {
            if (!name || strcmp(name, json_string_value(json_object_get(f, "name"))))
                continue;
            if (json_object_set_new(e, "partial", json_true()) ||
                json_object_set(e, "header_bytes", json_object_get(f, "header_bytes")) ||
                json_object_set(e, "header_sha256", json_object_get(f, "header_sha256")))
                return VS_ENOMEM;
        }
    }
    return 0;
}

int vs_hfhub_annotate(json_t *sheet, json_t *payload, const char *weights_path, vs_error *err)
{
    char hdir[VS_HF_PATH_MAX + 200];
    json_t *m, *wf = vs_sheet_get(sheet, VS_SK_WEIGHTS_FILES), *mfiles;
    int rc = 0;
    if (!header_folder_of(weights_path, hdir, sizeof hdir) || !(m = vs_hfhub_manifest_load(hdir)))
        return 0;
    mfiles = json_object_get(m, "files");
    if (annotate_files(json_object_get(wf, "files"), mfiles) ||
        (payload && annotate_files(json_object_get(payload, "files"), mfiles)) ||
        (json_is_object(wf) &&
         json_object_set_new(wf, "hub",
                             json_pack("{s:O, s:O}", "repo", json_object_get(m, "repo"), "commit",
                                       json_object_get(m, "commit")))))
        rc = vs_error_oom(err);
    json_decref(m);
    return rc;
}
