/* weights.h — the result of `weights`: weights only.
 *
 * params x bits / 8, or the bytes of the weights files just read (by dtype,
 * by pipeline component, the tensors kept in another format), and per GPU
 * after the placement. It is a lower bound, never a GPU recommendation, and
 * the result says so. Aligned text, an HTML table from the same vs_table, and
 * the application/vnd.vramsheet.v1+json payload (kind "weights", bytes as
 * JSON integers). The verb computes; this module only presents. Pure: no I/O.
 */
#ifndef VS_RENDER_WEIGHTS_H
#define VS_RENDER_WEIGHTS_H

#include <jansson.h>

#include "render/bundle.h"
#include "sheet/envelope.h"

/* files_payload (borrowed, may be NULL) is the model adapter's "weights"
 * payload when the bytes were just read from files: its keys are kept. New
 * bundle or NULL. */
vs_bundle *vs_render_weights(const json_t *sheet, const vs_envelope *env,
                             const json_t *files_payload);

#endif
