/* ops.h — what the transport sees of an interpreter: a table of operations and a
 * `void *self` handed back to each (xeus's xinterpreter, as a C table).
 *
 * The transport (kernel.c and its parts) knows nothing else of the language: it
 * turns Jupyter requests into these calls and their results into replies. Only
 * the command-line entry (kernel_cli.c) knows both sides and builds the table;
 * testcell.c is a second table, wrapped around the first, for the transport's
 * own tests. Offsets are byte offsets into the UTF-8 code (the transport converts
 * Jupyter's code-point cursors). Every operation is called from the thread that
 * serves shell, except banner (also from control's) and terminate (from a signal
 * handler). No entry may be NULL.
 */
#ifndef VS_KERNEL_OPS_H
#define VS_KERNEL_OPS_H

#include <jansson.h>
#include <stddef.h>

#include "render/bundle.h"
#include "render/sink.h"
#include "util/error.h"

typedef struct vs_kernel_ops {
    /* Runs one cell: outputs go to sink as they are produced, the last result
     * in *out_result (NULL: none; freed by the transport with vs_bundle_free).
     * Returns 0 or a negative code with err filled. */
    int (*execute)(void *self, const char *code, const vs_sink *sink, vs_bundle **out_result,
                   vs_error *err);
    /* Completion at byte offset cursor: a new array of strings replacing
     * code[*out_start, *out_end). Returns 0, or negative (no matches). */
    int (*complete)(void *self, const char *code, size_t cursor, json_t **out_matches,
                    size_t *out_start, size_t *out_end);
    /* Help for the word under the cursor: a new MIME bundle object, or NULL. */
    int (*inspect)(void *self, const char *code, size_t cursor, int detail, json_t **out_bundle);
    /* "complete", "incomplete" (then *out_indent) or "invalid". */
    const char *(*is_complete)(void *self, const char *code, const char **out_indent);
    /* 1 when the cell asks the client to leave (`exit`): the transport answers
     * it with ipykernel's ask_exit payload instead of running it. */
    int (*is_exit)(void *self, const char *code);
    /* The banner of kernel_info_reply (static text). */
    const char *(*banner)(void *self);
    /* kernel_info_reply's language_info (name, version, mimetype,
     * file_extension, pygments_lexer, codemirror_mode): a new object, NULL
     * when memory is short. The language says what it is, not the transport. */
    json_t *(*language_info)(void *self);
    /* Called between requests while idle, about twice a second (reaping, say). */
    void (*idle)(void *self);
    /* The kernel is ending (SIGTERM): stop what runs outside the process at once.
     * Called from a signal handler: async-signal-safe only. */
    void (*terminate)(void *self);
    /* The kernel has stopped serving (after shutdown_request or SIGTERM). */
    void (*shutdown)(void *self);
} vs_kernel_ops;

#endif
