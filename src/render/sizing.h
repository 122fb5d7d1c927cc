/* sizing.h — the results of the sizing verbs as MIME bundles.
 *
 * Weights only, the envelope (with its budget chart), the formats table, the
 * components an estimator or `reserve` added, and the workload card. Each
 * bundle has aligned text/plain where every amount is labelled (exact bytes, GB
 * and GiB with two decimals, never mixed), an HTML table built from the same
 * vs_table, and the application/vnd.vramsheet.v1+json payload (bytes
 * as JSON integers). The verbs decide and compute; this module only presents.
 * Pure: no I/O.
 */
#ifndef VS_RENDER_SIZING_H
#define VS_RENDER_SIZING_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "render/bundle.h"
#include "sheet/envelope.h"
#include "util/buf.h"

/* `weights`: weights only (params x bits / 8, or the files' bytes), per GPU
 * after the placement, "a lower bound, not a GPU recommendation". files_payload
 * (borrowed, may be NULL) is the model adapter's "weights" payload when the
 * bytes were just read from files: its keys are kept. New bundle or NULL. */
vs_bundle *vs_render_weights(const json_t *sheet, const vs_envelope *env,
                             const json_t *files_payload);

/* `envelope`: the component table per GPU, the known total, unknown names, the
 * conservative-envelope statement, and the SVG chart against the capacity of
 * every offer in the sheet. views are the sheet's components, as env was
 * computed from (vs_component_views_read). */
vs_bundle *vs_render_envelope(const json_t *sheet, const vs_envelope *env,
                              const vs_component_views *views);

/* The envelope's budget chart alone (the SVG document of vs_render_envelope),
 * malloc'd, or NULL when memory is short: `candidates` draws it too. */
char *vs_render_envelope_svg(const json_t *sheet, const vs_envelope *env,
                             const vs_component_views *views);

typedef struct vs_format_row {
    const char *format; /* "bf16", "bits=6" */
    unsigned bits;
    const char *bits_text;  /* NULL: bits; else the exact bits per weight ("4.5", "4.89") */
    const char *basis;      /* NULL: params x bits / 8 (flagged when quantised); else how the
                             * bytes were counted per tensor (not flagged) */
    uint64_t weights_bytes; /* whole model */
    uint64_t weights_gpu_bytes;
    uint64_t envelope_bytes; /* per GPU: weights_gpu_bytes + the sheet's known reserve */
} vs_format_row;

/* `formats`: one row per format with the same reserve; quantised rows are
 * flagged (scales, metadata and other-format layers not included). */
vs_bundle *vs_render_formats(const json_t *sheet, const vs_envelope *env, const vs_format_row *rows,
                             size_t nrows);

/* Components an estimator or `reserve` just set: names (borrowed array of
 * strings) looked up in the sheet. headline is the first line (the formula
 * with its numbers); notes (NULL-terminated, may be NULL) follow the table.
 * inputs (taken, may be NULL) goes into the payload. One component gives kind
 * "component" (name, bytes, status, source, class, ...); several give kind
 * "components" with a "components" list and "total_bytes". The keys of
 * extra_take (an object, taken, may be NULL) are added to the payload. */
vs_bundle *vs_render_components(const json_t *sheet, const char *estimator,
                                const char *const *names, size_t nnames, const char *headline,
                                const char *const *notes, json_t *inputs_take, json_t *extra_take);

/* A component `reserve` just set (its view, vs_sheet_put_component's), as one
 * line: headline then each note, "; "-separated, in text/plain and in an HTML
 * paragraph. The payload is the one vs_render_components gives for one
 * component (kind "component"). */
vs_bundle *vs_render_component_line(const vs_component_view *component, const char *estimator,
                                    const char *headline, const char *const *notes,
                                    json_t *inputs_take);

/* The workload card as a table (kind "card", with the whole card). headline
 * and notes as above; extra_take (may be NULL) is merged into the payload. */
vs_bundle *vs_render_card(const json_t *sheet, const char *headline, const char *const *notes,
                          json_t *extra_take);

/* What a card verb just set, as one line (headline then each note,
 * "; "-separated) in text/plain and in an HTML paragraph; the payload is the
 * same as vs_render_card's (kind "card", the whole card), with "set" naming
 * the card key that was set (may be NULL). */
vs_bundle *vs_render_card_line(const json_t *sheet, const char *set, const char *headline,
                               const char *const *notes, json_t *extra_take);

/* The card's architecture as one line: "llama layers=32 hidden=4096 ...". */
void vs_render_arch(const json_t *arch, vs_buf *out);
/* "; KV cache per layer: 52 sliding (16 KV heads x 128, window 1024) + 10 full
 * (16 KV heads x 128)" from an arch's kv_layout (nothing when it has none). */
void vs_render_kv_layout(const json_t *kv_layout, vs_buf *out);

/* A small bundle for verbs that record a line of the procedure (stage,
 * invalidate, oom, decide): text lines, an HTML paragraph list, and payload
 * (taken; must have "kind"). */
vs_bundle *vs_render_lines(const char *headline, const char *const *lines, size_t nlines,
                           json_t *payload_take);

/* "14,000,000,000 B", "14.00 GB", "13.04 GiB" into the three buffers (>= 64
 * bytes each). */
void vs_render_amount(uint64_t bytes, char *b, char *gb, char *gib);

#endif
