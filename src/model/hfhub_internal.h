/* hfhub_internal.h — what hfhub.c (the session, the API, complete files in the
 * cache) and hfhub_headers.c (the weights' headers) share. */
#ifndef VS_MODEL_HFHUB_INTERNAL_H
#define VS_MODEL_HFHUB_INTERNAL_H

#include <jansson.h>

#include "model/hfcache.h"
#include "model/hfhub.h"
#include "net/http.h"

/* A small file fetched whole (config.json, an index, model_index.json). */
#define VS_HFHUB_SMALL_MAX ((size_t)64 * 1024 * 1024)

typedef struct vs_hfhub {
    vs_http *h;
    char endpoint[512];
    char repo[256];
    char repo_dir[VS_HF_PATH_MAX];
    char commit[41];
    int has_token;
    const vs_hub_progress *p;
    vs_hub_stats *st;
    int64_t t0, last_line;
    uint64_t base_bytes; /* received before the transfer now running */
    unsigned done, total;
    char last_name[512], last_url[1024]; /* where the last range was redirected */
} vs_hfhub;

/* Opens a session for repo_id: VS_EIO when offline or without libcurl. */
int vs_hfhub_open(vs_hfhub *s, const char *repo_id, const vs_hub_progress *p, vs_hub_stats *st,
                  vs_error *err);
/* A second session on the same repository and commit (its own connection),
 * reporting to p; no stats. */
int vs_hfhub_clone(vs_hfhub *dst, const vs_hfhub *src, const vs_hub_progress *p, vs_error *err);
/* Prints a progress line when one is due (s->done of s->total files,
 * s->base_bytes received). */
void vs_hfhub_tick(vs_hfhub *s);
/* Closes it, filling its stats. */
void vs_hfhub_close(vs_hfhub *s);

/* The headers of names[0..n) (GGUF files when gguf, else safetensors), read
 * by up to VS_HFHUB_WORKERS sessions at once, each written as a sparse file
 * under hdir; files receives {name, size, header_bytes, header_sha256} in
 * names' order. Progress lines and the interrupt stay on this thread. */
int vs_hfhub_read_headers(vs_hfhub *s, char **names, size_t n, int gguf, const char *hdir,
                          json_t *files, vs_error *err);

/* The header folder of a commit: <cache>/models--ORG--NAME/vramsheet-headers/<commit>. */
int vs_hfhub_header_dir(const char *repo_id, const char *commit, char *out, size_t n,
                        vs_error *err);
/* 1 for a repository file name safe to write under a folder (relative, no
 * empty, "." or ".." part). */
int vs_hfhub_safe_name(const char *name);
/* Appends prefix[0..plen) + name to a malloc'd list. */
int vs_hfhub_add_name(char ***names, size_t *n, const char *prefix, size_t plen, const char *name,
                      vs_error *err);
/* An index fetched whole into the cache; its shards (beside it) appended. */
int vs_hfhub_plan_index(vs_hfhub *s, const char *index, char ***names, size_t *n, vs_error *err);
/* A complete file of the snapshot (fetched when missing and in sib) linked
 * into the header folder. */
int vs_hfhub_link_complete(vs_hfhub *s, const json_t *sib, const char *hdir, const char *name,
                           vs_error *err);
/* The folder's description (new reference) or NULL; the name (want, or the
 * default) whose headers are all there, or NULL; written last, merging. */
json_t *vs_hfhub_manifest_load(const char *hdir);
const char *vs_hfhub_manifest_ready(const json_t *m, const char *hdir, const char *want);
int vs_hfhub_manifest_write(vs_hfhub *s, const char *hdir, const char *weights, int is_default,
                            char **names, size_t nn, json_t *files, vs_error *err);

/* huggingface_hub's snapshot_download reads 8 files at once (max_workers=8) */
#define VS_HFHUB_WORKERS 8

/* The model's info at revision: sets s->commit; *siblings (new reference) the
 * file names ("rfilename") of the repository. */
int vs_hfhub_info(vs_hfhub *s, const char *revision, json_t **siblings, vs_error *err);

/* GET the repository's file name at s->commit (bytes [offset, offset+length),
 * or whole when length is 0, at most max): 0 only for a 2xx answer, else
 * the Hub's refusal in words. */
int vs_hfhub_get(vs_hfhub *s, const char *name, uint64_t offset, uint64_t length, size_t max,
                 vs_http_resp *r, vs_error *err);

/* A complete file into the cache: blobs/<etag> (etag: the Hub's, else the
 * sha256 of data), snapshots/<commit>/<name> linking to it. */
int vs_hfhub_put_file(vs_hfhub *s, const char *name, const unsigned char *data, size_t len,
                      const char *etag, vs_error *err);

/* mkdir -p of the folders above path. */
int vs_hfhub_mkdirs(const char *path, vs_error *err);

/* 1 when a sibling of that name is in the list. */
int vs_hfhub_has(const json_t *siblings, const char *name);

#endif
