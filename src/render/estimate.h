/* estimate.h (render) — the words of the estimate verbs that are not a
 * component's table: the headline of `estimate kv`, the note that an estimate
 * was not stored over a measurement, and the note on a KV cache split by
 * tensor placement.
 *
 * The verbs (lang/verbs_estimate.c) compute the bytes and store the
 * components; the table of components is render/component's. Each function
 * appends to a buffer the verb then shows. Pure: no I/O, no globals.
 */
#ifndef VS_RENDER_ESTIMATE_H
#define VS_RENDER_ESTIMATE_H

#include <stdint.h>

#include "util/buf.h"

/* The headline of `estimate kv`: the formula as stored in the component's
 * source, after "estimate kv: ". */
void vs_render_estimate_kv_headline(vs_buf *head, const char *formula);

/* Component name is measured, so its estimate (bytes) was not stored. Each
 * such note ends with a space, ready for the next one. */
void vs_render_estimate_skipped(vs_buf *note, const char *name, uint64_t bytes);

/* The KV cache under placement tensor on tp GPUs (tp > 1): what each GPU
 * holds. */
void vs_render_estimate_kv_tensor_note(vs_buf *note, uint64_t tp);

#endif
