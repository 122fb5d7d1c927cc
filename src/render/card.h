/* card.h — the result of the card verbs: the workload card.
 *
 * The card as a table (model, revision, params, task, format, length,
 * concurrency, image and video dims, quality, the architecture, the
 * placement), or, after a verb that set one key, as one line; both carry the
 * whole card in the payload (kind "card"). The architecture and its KV layout
 * in words are here too, for the verbs' own headlines. Pure: no I/O.
 */
#ifndef VS_RENDER_CARD_H
#define VS_RENDER_CARD_H

#include <jansson.h>
#include <stdint.h>

#include "render/bundle.h"
#include "util/buf.h"

/* The workload card as a table (kind "card", with the whole card). headline
 * is the first line; notes (NULL-terminated, may be NULL) follow the table;
 * extra_take (taken, may be NULL) is merged into the payload. */
vs_bundle *vs_render_card(const json_t *sheet, const char *headline, const char *const *notes,
                          json_t *extra_take);

/* What a card verb just set, as one line (headline then each note,
 * "; "-separated) in text/plain and in an HTML paragraph; the payload is the
 * same as vs_render_card's (kind "card", the whole card), with "set" naming
 * the card key that was set (may be NULL). */
vs_bundle *vs_render_card_line(const json_t *sheet, const char *set, const char *headline,
                               const char *const *notes, json_t *extra_take);

/* What `model` read besides the card, for its payload. Borrowed; NULL or 0
 * where there is none. */
typedef struct vs_card_model_read {
    const json_t *config;   /* what a config.json gave (vs_render_card_config) */
    const json_t *pipeline; /* a diffusers pipeline's weights (model/pipeline_files) */
    const char *hf_commit;  /* the Hugging Face cache's snapshot the model came from */
    const char *hf_config;  /* its config.json there */
    const char *hf_ref;     /* the revision asked for ("main" when none) */
    uint64_t hub_bytes;     /* what the Hub sent for it ... */
    unsigned hub_requests;  /* ... in this many requests (0: the cache had it all) */
} vs_card_model_read;

/* The result of `model`: vs_render_card_line's with set "model", the payload
 * adding what was read: config, weights (the pipeline's), hf_cache ({config,
 * commit, ref, hub: {bytes, requests} or null}) when the model came from the
 * cache. NULL when memory is short. */
vs_bundle *vs_render_card_model(const json_t *sheet, const char *headline, const char *const *notes,
                                const vs_card_model_read *r);

/* The card's architecture as one line: "llama layers=32 hidden=4096 ...". */
void vs_render_arch(const json_t *arch, vs_buf *out);
/* "; KV cache per layer: 52 sliding (16 KV heads x 128, window 1024) + 10 full
 * (16 KV heads x 128)" from an arch's kv_layout (nothing when it has none). */
void vs_render_kv_layout(const json_t *kv_layout, vs_buf *out);

#endif
