/* sink.h — where a running cell's results go: the one channel from the language
 * to whatever shows them (the Jupyter transport, `vramsheet run`, a test).
 *
 * The language fills bundles (bundle.h) and hands them over; the receiver
 * decides what a display, a stream or an input request becomes. Declared below
 * the language (lang/interp.h) and the transport (kernel/ops.h), which both use it.
 */
#ifndef VS_RENDER_SINK_H
#define VS_RENDER_SINK_H

#include <stddef.h>

#include "render/bundle.h"

/* Where results go while a cell runs. Every callback may be NULL. */
typedef struct vs_sink {
    void *ctx;
    /* A MIME bundle (JSON text of an object: mime type -> data) to publish as
     * display_data, or as update_display_data when update is non-zero.
     * display_id may be NULL (a plain display). The bundle is borrowed: copy
     * what you keep. */
    void (*display)(void *ctx, const vs_bundle *bundle, const char *display_id, int update);
    /* Text for a stream ("stdout" or "stderr"); not NUL-terminated. */
    void (*stream)(void *ctx, const char *name, const char *text, size_t len);
    /* Non-zero once an interrupt was requested; long work polls it. */
    int (*interrupted)(void *ctx);
    /* Asks the person for a line of text (Jupyter's input_request). Returns 0 and
     * a malloc'd *out, or a negative code (VS_EVALUE when the client does not
     * allow stdin, VS_EINTERRUPT when interrupted). */
    int (*input)(void *ctx, const char *prompt, int password, char **out);
} vs_sink;

#endif
