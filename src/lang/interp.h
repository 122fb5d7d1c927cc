/* interp.h — the interpreter: evaluates cells of the vramsheet language against
 * the session's sheets and hands every result to a sink.
 *
 * This is the contract between the transport (src/kernel/) and the language, in
 * the shape xeus uses: execute, complete, inspect, is_complete. The interpreter
 * knows nothing of sockets, messages or threads; the kernel knows nothing of
 * sizing. Offsets are byte offsets into the UTF-8 code; the transport converts
 * Jupyter's code-point cursors. One interpreter is used by one thread at a time,
 * except vs_sink.interrupted, which the interpreter polls and which the
 * transport may flip from another thread.
 *
 * Files: interp.c (the session, the verbs' context, execute), interp_complete.c
 * (complete, inspect, is_complete, is_exit); lang/interp_internal.h holds what
 * they share.
 */
#ifndef VS_LANG_INTERP_H
#define VS_LANG_INTERP_H

#include <jansson.h>
#include <stddef.h>

#include "render/bundle.h"
#include "render/sink.h"
#include "util/error.h"

typedef struct vs_interp vs_interp;

/* Where results go while a cell runs: vs_sink, in render/sink.h. */

/* Options fixed for the interpreter's life. Zero-initialise, then set. */
typedef struct vs_interp_options {
    const char *records_path; /* NULL: VRAMSHEET_RECORDS, else the per-user default */
} vs_interp_options;

/* Returns a new interpreter, or NULL when memory is short. opts may be NULL. */
vs_interp *vs_interp_new(const vs_interp_options *opts);
void vs_interp_free(vs_interp *ip);

/* Evaluates one cell. Every result but the last goes to sink->display as it is
 * produced; the last is returned in *out_result (the caller frees it with
 * vs_bundle_free; NULL when the cell produced none) for the transport to publish as execute_result.
 * Returns 0, or a negative code with err filled (err->line/column point into the
 * cell). On error the session's sheets are as they were before the cell, except
 * for effects outside the kernel (commits, measurements, push/pull), which stay
 * and are named in err->message. */
int vs_interp_execute(vs_interp *ip, const char *code, const vs_sink *sink, vs_bundle **out_result,
                      vs_error *err);

/* Completion at byte offset cursor: *out_matches is a new array of strings
 * replacing code[*out_start, *out_end). Returns 0 (possibly no matches). */
int vs_interp_complete(vs_interp *ip, const char *code, size_t cursor, json_t **out_matches,
                       size_t *out_start, size_t *out_end);

/* Help for the word under the cursor: *out_bundle is a new MIME bundle, or NULL
 * when nothing is known there. detail 0 or 1 as in Jupyter. Returns 0. */
int vs_interp_inspect(vs_interp *ip, const char *code, size_t cursor, int detail,
                      json_t **out_bundle);

/* 1 when the cell is only `exit` or `quit` (or `exit()`, `quit()`): the
 * kernel then asks its client to leave (jupyter console does), as ipykernel
 * does, instead of evaluating it. */
int vs_interp_is_exit(const char *code);

/* "complete", "incomplete" (open quote, trailing backslash: then the indent
 * is four spaces) or "invalid".
 * *out_indent receives a static string to indent the next line with. */
const char *vs_interp_is_complete(vs_interp *ip, const char *code, const char **out_indent);

/* The records repository path in force (borrowed, valid until the next call):
 * the last `records PATH` of the session, else opts->records_path, else
 * VRAMSHEET_RECORDS, else $XDG_DATA_HOME/vramsheet/records (when XDG_DATA_HOME is
 * an absolute path), else ~/.local/share/vramsheet/records. */
const char *vs_interp_records_path(vs_interp *ip);

/* Static facts for kernel_info_reply's banner. */
const char *vs_interp_banner(void);
/* kernel_info_reply's language_info: the language's name, version, MIME type,
 * file extension and the lexer and editor mode a client highlights it with.
 * A new object, NULL when memory is short. */
json_t *vs_interp_language_info(void);

#endif
