/* kvlayout.h — what a model's attention layers keep per token: the KV layout.
 *
 * Layers of one model keep different caches: full attention keeps keys and
 * values of every token, a sliding or chunked layer only a window of them, a
 * latent (multi-head latent attention, DeepSeek-V2) layer one compressed vector
 * per token serving as key and value, a recurrent layer a fixed state per
 * sequence, a cross-attention layer the encoder's tokens, and an encoder-only
 * model nothing. A layout is a short list of layer groups of one kind each; a
 * family (model/) builds it from its config, a GGUF header from its metadata,
 * an old record (schema 1) becomes one full group. This module turns a layout
 * into exact cache bytes; what an engine allocates on top (pages, padding) is
 * the engine's. Pure: no I/O, no globals.
 */
#ifndef VS_SHEET_KVLAYOUT_H
#define VS_SHEET_KVLAYOUT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

typedef enum {
    VS_KV_FULL = 0, /* keys and values of every token */
    VS_KV_SLIDING,  /* the last `window` tokens */
    VS_KV_CHUNKED,  /* attention within chunks of `window` tokens (at most a chunk kept) */
    VS_KV_LATENT,   /* one vector of `latent` values per token, key and value at once */
    VS_KV_STATE,    /* a fixed recurrent state of `state_bytes` per sequence and layer */
    VS_KV_CROSS,    /* keys and values of the encoder's tokens */
    VS_KV_NONE,     /* no cache (encoder-only layers) */
    VS_KV_KIND_COUNT
} vs_kv_kind;

typedef struct vs_kv_group {
    vs_kv_kind kind;
    uint64_t layers;
    uint64_t kv_heads;    /* full, sliding, chunked, cross */
    uint64_t head_dim;    /* key head size */
    uint64_t head_dim_v;  /* value head size; 0 = head_dim */
    uint64_t window;      /* sliding, chunked: tokens; 0 otherwise */
    uint64_t latent;      /* latent: values per token and layer (kv_lora_rank + rope dims) */
    uint64_t state_bytes; /* state: bytes per sequence and layer */
    /* state: its values per sequence and layer, the convolution's and the SSM
     * (or delta-rule) state's, so that an engine can size them in its own cache
     * dtypes; 0 when not known (state_bytes alone) */
    uint64_t state_conv, state_ssm;
} vs_kv_group;

#define VS_KV_GROUPS_MAX 8

typedef struct vs_kv_layout {
    size_t n;
    vs_kv_group g[VS_KV_GROUPS_MAX];
} vs_kv_layout;

/* "full", "sliding", "chunked", "latent", "state", "cross", "none". */
const char *vs_kv_kind_name(vs_kv_kind kind);
/* 0 or VS_EVALUE naming the kinds. */
int vs_kv_kind_parse(vs_kv_kind *out, const char *name, vs_error *err);

/* Appends a group; a group of the same kind and shape as the last one is
 * merged into it (its layers added), so that builders may add layer by layer.
 * VS_EVALUE when the layout already holds VS_KV_GROUPS_MAX groups. */
int vs_kv_layout_add(vs_kv_layout *l, const vs_kv_group *g, vs_error *err);

/* Every layer of the layout (the sum of the groups' layers). */
uint64_t vs_kv_layout_layers(const vs_kv_layout *l);

/* What the cache is sized for. */
typedef struct vs_kv_dims {
    uint64_t length;         /* tokens per sequence (decoder side) */
    uint64_t concurrency;    /* sequences */
    uint64_t encoder_length; /* cross groups: encoder tokens, when encoder_known */
    unsigned bits;           /* bits per cached value (16 for fp16/bf16) */
    uint64_t tp;             /* tensor-parallel ways (1 = none): KV heads split */
    int encoder_known;       /* encoder_length is given; else cross groups take length */
} vs_kv_dims;

/* One group's share, as estimate kv reports it. */
typedef struct vs_kv_group_bytes {
    uint64_t tokens;          /* tokens kept per sequence (0 for state, none) */
    uint64_t kv_heads;        /* heads held per GPU after tp */
    uint64_t bytes;           /* all sequences, per GPU */
    uint64_t bytes_per_token; /* per sequence, one more token of context; 0 when capped */
} vs_kv_group_bytes;

/* Tokens a group keeps for a sequence of `length` tokens: full length; sliding
 * and chunked min(window, length); cross the encoder length; state and none 0. */
uint64_t vs_kv_group_tokens(const vs_kv_group *g, const vs_kv_dims *d);

/* KV heads one GPU holds under tp ways: ceil(kv_heads / tp), at least one
 * (fewer heads than GPUs replicate one each). Latent groups are not split. */
uint64_t vs_kv_group_heads_per_gpu(const vs_kv_group *g, uint64_t tp);

/* Values (not bytes) one group keeps per token and layer on one GPU:
 * kv_heads x (head_dim + head_dim_v) for attention, latent for latent, 0 else. */
uint64_t vs_kv_group_values_per_token(const vs_kv_group *g, uint64_t tp);

/* The bytes of every group (out[i], may be NULL) and their total, exact:
 *   full/sliding/chunked/cross: layers x heads x (head_dim + head_dim_v) x tokens
 *                               x concurrency x bits / 8
 *   latent: layers x latent x tokens x concurrency x bits / 8
 *   state:  layers x ceil(state_bytes / tp) x concurrency
 * rounded up to a whole byte once per group. *per_token (may be NULL) is what
 * one more token of context costs per sequence, over the groups not capped by
 * their window at this length. VS_EUNIT on overflow, VS_EVALUE for bits 0. */
int vs_kv_layout_bytes(uint64_t *total, uint64_t *per_token, vs_kv_group_bytes *out,
                       const vs_kv_layout *l, const vs_kv_dims *d, vs_error *err);

/* The layout as the card stores it: an array of
 * {"kind", "layers", "kv_heads", "head_dim", "head_dim_v", "window", "latent",
 *  "state_bytes"} (null where a kind has no such value), and "state_conv",
 *  "state_ssm" on a state group that knows them. New reference or NULL. */
json_t *vs_kv_layout_to_json(const vs_kv_layout *l);

/* Back from that array: 0, or VS_EFORMAT saying which group and key is wrong. */
int vs_kv_layout_from_json(vs_kv_layout *out, const json_t *arr, vs_error *err);

/* A uniform model (every layer full attention): one group. */
void vs_kv_layout_uniform(vs_kv_layout *out, uint64_t layers, uint64_t kv_heads, uint64_t head_dim);

#endif
