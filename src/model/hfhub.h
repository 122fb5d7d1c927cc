/* hfhub.h — sizing before download: a model's config and weights headers from
 * the Hugging Face Hub, read with HTTP range requests, kept in the local cache.
 *
 * When a model is not in the local cache (model/hfcache.h) and the network is
 * allowed, this module resolves the revision to its commit through the Hub's
 * API (GET /api/models/ORG/NAME/revision/REV: "sha" and "siblings", as
 * huggingface_hub's HfApi.model_info reads them), fetches config.json (or a
 * diffusers pipeline's model_index.json) and model.safetensors.index.json whole
 * (GET /ORG/NAME/resolve/COMMIT/FILE, as hf_hub_url builds it), and of each
 * weights file only its header: for safetensors the first 8 bytes, then the
 * header length they give; for GGUF growing ranges until the tensor table is
 * parsed (the data section's start). The endpoint is $HF_ENDPOINT (default
 * https://huggingface.co); the token is $HF_TOKEN, else huggingface_hub's
 * token file ($HF_TOKEN_PATH, else $HF_HOME/token, else
 * ~/.cache/huggingface/token); it is sent to the endpoint only, never printed
 * or recorded. $HF_HUB_OFFLINE (1, ON, YES, TRUE) forbids any request.
 *
 * What is fetched lands in huggingface_hub's cache layout, so the next `model`
 * works offline: complete files as blobs/<etag> with snapshots/<commit>/<name>
 * linking to them and refs/<revision> naming the commit. A header is not a
 * file, so it is never put where huggingface_hub or transformers would take it
 * for one: it goes to <repo>/vramsheet-headers/<commit>/<name>, a sparse file of
 * the real size holding the real header bytes at the start and a hole after
 * them (the readers of model/model.h read it as they read the real file and
 * never look past the header), described by <repo>/vramsheet-headers/<commit>.json
 * (each file's size, header bytes, and the sha256 of those bytes; which
 * headers each weights name needs). Deleting the
 * repository from the cache (`huggingface-cli delete-cache`) removes them too.
 */
#ifndef VS_MODEL_HFHUB_H
#define VS_MODEL_HFHUB_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "model/hfcache.h"
#include "util/error.h"

/* Where a long fetch reports (a progress line about once a second after the
 * first second) and learns it was interrupted. May be NULL, its members too. */
typedef struct vs_hub_progress {
    void *ctx;
    void (*line)(void *ctx, const char *text); /* one line, with its '\n' */
    int (*interrupted)(void *ctx);
    int offline; /* the session said `hub offline`: as HF_HUB_OFFLINE=1 */
} vs_hub_progress;

/* What one fetch did. */
typedef struct vs_hub_stats {
    uint64_t bytes;    /* bodies received */
    unsigned requests; /* HTTP requests made (redirects included) */
    unsigned files;    /* files or headers written into the cache */
    uint64_t ms;       /* wall time */
} vs_hub_stats;

/* 1 when $HF_HUB_OFFLINE says no network (huggingface_hub's true values). */
int vs_hfhub_offline(void);

/* 1 when a fetch may be tried (not offline by the environment or p's
 * session, libcurl loadable); else 0 and why (for a note: which setting, or
 * how to get libcurl) in why. p may be NULL. */
int vs_hfhub_can_fetch(const vs_hub_progress *p, char *why, size_t n);

/* Forgets an endpoint found unreachable (net/http.h's VS_HTTP_UNREACHABLE_MS),
 * so that the next request asks it again: `hub` does it. */
void vs_hfhub_forget_unreachable(void);

/* What `model` and `weights` may ask of the Hub, for `hub`: the endpoint,
 * whether the environment forbids it, where a token would come from (never
 * the token), whether libcurl loads (why not), the cache folder. */
typedef struct vs_hub_status {
    char endpoint[512];
    int env_offline;
    const char *token_source; /* "HF_TOKEN", "the token file PATH", NULL: none */
    char token_file[VS_HF_PATH_MAX];
    int libcurl;
    char libcurl_why[400];
    char cache[VS_HF_PATH_MAX];
} vs_hub_status;
void vs_hfhub_status(vs_hub_status *out);

/* `model ORG/NAME [revision=REV]` not in the cache: resolves revision (NULL:
 * "main") to its commit and fetches config.json, or model_index.json for a
 * diffusers pipeline, into the cache (and refs/<revision>). 0 when the
 * snapshot now holds it (*commit, 41 bytes); 1 when the repository has
 * neither file (a GGUF repository: its files carry the metadata); a negative
 * code with the Hub's answer in words (VS_ENOTFOUND: no such repository,
 * revision or file; VS_EIO: refused (401/403: gated or private, with how to
 * log in), unreachable, timed out). */
int vs_hfhub_fetch_config(const char *repo_id, const char *revision, char commit[41],
                          const vs_hub_progress *p, vs_hub_stats *st, vs_error *err);

/* The headers of the weights of repo_id at commit (40 hex): the header
 * folder's weights file into out: file (a file of the repository: a .gguf,
 * the first of a split set bringing the others, a .safetensors, or an index
 * .json bringing its shards), else model.safetensors.index.json,
 * model.safetensors or the one GGUF file. Uses the header folder when it has
 * them all (no request); else, when allowed, reads the headers from the Hub
 * (st, may be NULL, says how much). VS_ENOTFOUND when the repository holds no
 * such file or no weights file; VS_EVALUE for several GGUF files (named) and
 * no file; VS_EIO when offline or without libcurl (saying which), or the Hub
 * refused. */
int vs_hfhub_headers(const char *repo_id, const char *commit, const char *file, char *out, size_t n,
                     const vs_hub_progress *p, vs_hub_stats *st, vs_error *err);

/* A diffusers pipeline of repo_id at commit: model_index.json and, for each
 * component holding weights, its safetensors headers (index and shards, or
 * one file; variant, may be NULL, picks NAME.VARIANT.safetensors where the
 * component has it, as model/pipeline_files.h reads them), into the header
 * folder, whose path goes into out for vs_pipeline_apply. As
 * vs_hfhub_headers otherwise: no request when the folder has them. */
int vs_hfhub_pipeline_headers(const char *repo_id, const char *commit, const char *variant,
                              char *out, size_t n, const vs_hub_progress *p, vs_hub_stats *st,
                              vs_error *err);

/* After model/model.h read a header folder (weights_path inside it): adds to
 * each entry of sheet.weights_files.files and of payload.files (payload may be
 * NULL) "partial": true, "header_bytes" and "header_sha256" from the folder's
 * description, and to weights_files "hub": {"repo", "commit"}. 0 when
 * weights_path is not in a header folder (nothing to add); VS_ENOMEM. */
int vs_hfhub_annotate(json_t *sheet, json_t *payload, const char *weights_path, vs_error *err);

#endif
