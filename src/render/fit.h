/* fit.h (render) — the `fit` table, its charts and payload; the `engine` card.
 *
 * One table row per offer (text and HTML from one vs_table), a small SVG per
 * offer (the KV pool against what the card needs), and the `fit` payload
 * {kind, engine, rows: [{gpu, capacity_bytes, capacity_basis, budget_bytes,
 * non_kv_bytes, kv_pool_bytes, kv_tokens, max_concurrency, max_length,
 * unknown, verdict, launch, ...}]}. Pure: no I/O.
 */
#ifndef VS_RENDER_FIT_H
#define VS_RENDER_FIT_H

#include <jansson.h>
#include <stddef.h>

#include "engine/engine.h"
#include "engine/fit.h"
#include "render/bundle.h"

/* The fit result. launches: NULL, or one object per row from
 * vs_launch_fit_column (engine/launch.h): the table then has a launch column
 * (yes, offload or no), the text each offer's command, the HTML the commands
 * folded in one <details>, and each payload row its "launch" (the launch
 * object, or null and "launch_refused"). NULL when memory is short. */
vs_bundle *vs_render_fit(const vs_fit_ctx *c, const vs_fit_row *rows, size_t n,
                         const json_t *launches);

/* The engine declared on the card: each key with its value and where it comes
 * from (written on the line, the engine's default and its source, or the
 * card), and the runtime items with their state. keys_written is the card's
 * engine.keys (may be NULL). NULL when memory is short. */
vs_bundle *vs_render_engine(const vs_fit_ctx *c, const json_t *keys_written, const char *notes);

#endif
