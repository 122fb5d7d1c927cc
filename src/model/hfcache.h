/* hfcache.h — a model in the local Hugging Face hub cache, found without the network.
 *
 * huggingface_hub lays a downloaded repository out as
 *   <hub>/models--ORG--NAME/refs/<branch or tag>   (a file holding the 40-hex commit)
 *   <hub>/models--ORG--NAME/snapshots/<commit>/<files>   (symlinks into ../../blobs/)
 *   <hub>/models--ORG--NAME/blobs/<hash>
 * with <hub> = $HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub
 * (huggingface_hub's constants.py; "Manage huggingface_hub cache-system" in
 * its documentation). This module finds a revision's snapshot there and says,
 * when something is missing, exactly which files to fetch and where they go.
 * Nothing is downloaded.
 */
#ifndef VS_MODEL_HFCACHE_H
#define VS_MODEL_HFCACHE_H

#include <stddef.h>

#include <jansson.h>

#include "util/error.h"

#define VS_HF_PATH_MAX 4096

struct vs_hub_progress; /* model/hfhub.h: a fetch's progress lines, its interrupt */
struct vs_hub_stats;

typedef struct vs_hf_snapshot {
    char hub[VS_HF_PATH_MAX];      /* the cache folder */
    char repo_dir[VS_HF_PATH_MAX]; /* <hub>/models--ORG--NAME */
    char path[VS_HF_PATH_MAX];     /* <repo_dir>/snapshots/<commit> */
    char commit[41];
    char ref[256]; /* the ref it was found by ("main", a tag), or the commit itself */
} vs_hf_snapshot;

/* The cache folder from the environment, as huggingface_hub resolves it. */
int vs_hfcache_hub_dir(char *out, size_t n, vs_error *err);

/* 1 when name looks like a Hugging Face repository id (ORG/NAME). */
int vs_hfcache_is_repo_id(const char *name);

/* Finds repo_id ("ORG/NAME") at revision (NULL: "main"; a 40-hex commit is
 * used as it is) in the cache. VS_ENOTFOUND with the command that would fetch
 * it and where it would go, when the repository, the ref or the snapshot is
 * missing; VS_EFORMAT when a ref file does not hold a commit. */
int vs_hfcache_find(vs_hf_snapshot *s, const char *repo_id, const char *revision, vs_error *err);

/* The snapshot's file `name` (NULL-terminated path into out), 0 when it is
 * there (a symlink to a blob that is present); VS_ENOTFOUND saying what to
 * fetch (`huggingface-cli download ORG/NAME <name> --revision <commit>`) and
 * where it belongs, otherwise. */
int vs_hfcache_file(const vs_hf_snapshot *s, const char *repo_id, const char *name, char *out,
                    size_t n, vs_error *err);

/* The weights in the snapshot: model.safetensors.index.json (all its shards
 * present), model.safetensors, or one GGUF file (set). out receives its path.
 * VS_ENOTFOUND naming the files to fetch when they are not all there. */
int vs_hfcache_weights(const vs_hf_snapshot *s, const char *repo_id, char *out, size_t n,
                       vs_error *err);

/* `model ORG/NAME [revision=REV]` without config=: the snapshot's
 * config.json. When the cache lacks it and the network is allowed, it is
 * fetched from the Hub first (model/hfhub.h; st, may be NULL, adds what that
 * cost). 0 with *config_path and *commit (malloc'd) when found; 0 with
 * *config_path NULL and *note (malloc'd) saying what to fetch and where (and
 * why the Hub did not give it) when the model, the ref, the snapshot or its
 * config.json is not there (*commit still set when the snapshot is: a GGUF
 * repository has no config.json); a negative code for a cache that is there
 * but malformed. */
int vs_hfcache_model_config(const char *repo_id, const char *revision, char **config_path,
                            char **commit, char **note, const struct vs_hub_progress *p,
                            struct vs_hub_stats *st, vs_error *err);

/* `weights` with no from=: when the card names a repository (ORG/NAME) at a
 * commit whose snapshot is in the cache, reads that snapshot's weights
 * (model/model.h, vs_model_apply_weights_files) into the sheet: 0 and
 * *payload. When the snapshot lacks them, the headers read from the Hub
 * before (model/hfhub.h's header folder), else read now when the network is
 * allowed (st, may be NULL, adds what that cost). VS_ENOTFOUND saying which
 * files to fetch and where when they are not there; 1 when the card's model
 * and revision are not in the cache and cannot be asked of the Hub. file
 * (may be NULL) names the repository's file to read (`weights file=`: a
 * .gguf of several, a .safetensors, an index .json) instead of the one found. */
int vs_hfcache_card_weights(json_t *sheet, const char *file, json_t **payload,
                            const struct vs_hub_progress *p, struct vs_hub_stats *st,
                            vs_error *err);

#endif
