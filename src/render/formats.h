/* formats.h — the result of `formats`: weights and envelope per format.
 *
 * One row per weight format with the same reserve, so that a row shows only
 * the arithmetic effect of the format; quantised rows counted as params x bits
 * / 8 are flagged (scales, metadata and layers kept in another format are not
 * included). The rows are the verb's (model/formats for GGUF types); this
 * module only presents. Pure: no I/O.
 */
#ifndef VS_RENDER_FORMATS_H
#define VS_RENDER_FORMATS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "render/bundle.h"
#include "sheet/envelope.h"

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

/* The table of nrows rows, the notes, and the payload (kind "formats"). New
 * bundle or NULL. */
vs_bundle *vs_render_formats(const json_t *sheet, const vs_envelope *env, const vs_format_row *rows,
                             size_t nrows);

#endif
