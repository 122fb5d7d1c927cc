/* verb_ctx_internal.h — the verbs' context as the interpreter holds it
 * around a cell: the struct, and what interp.c does with it besides what a
 * verb may (lang/verb.h). Not a contract for the verbs.
 */
#ifndef VS_LANG_VERB_CTX_INTERNAL_H
#define VS_LANG_VERB_CTX_INTERNAL_H

#include <jansson.h>

#include "lang/interp.h"
#include "lang/verb.h"
#include "render/sink.h"
#include "render/svg.h"
#include "sheet/sheet.h"

struct vs_ctx {
    vs_interp *ip;
    const vs_sink *sink;
    vs_bundle *pending; /* the latest result, not yet published */
    vs_buf effects;     /* effects outside the kernel, "; "-separated */
    int quiet;          /* results are dropped (an estimate recomputed after a card change) */
    /* A cell is atomic, and a sheet is copied only once a verb can reach it:
     * before holds the session's sheets as the cell found them, snaps each
     * one's copy (null until a verb was handed it). A one-line cell in a
     * session of a hundred sheets copies one, not a hundred. */
    json_t *before, *snaps;
    int snap_failed; /* a copy could not be made: the cell fails (memory) */
    /* the component views handed out last (vs_ctx_component_views), and the
     * components they were read from, held so that none is freed under them */
    json_t *views_of;
    vs_component_views views;
    /* the components verbs stored since the views were last handed out, in
     * the order they were stored (vs_ctx_component_stored): where each went,
     * the object (a reference held, as views_of holds its own) and its view */
    struct vs_ctx_stored {
        size_t at;
        json_t *component;
        vs_component_view view;
    } * stored;
    size_t nstored, stored_cap;
    size_t next_at; /* the place after the component stored last (a hint) */
    /* the vocabulary's words as JSON strings, made once for the cell and
     * shared by the components that say them (vs_ctx_word) */
    json_t *words[16];
    size_t nwords;
    /* the budget chart drawn last in the cell, with what it showed: the
     * chart of `envelope` and of `candidates` (vs_ctx_chart_memo); its key
     * holds the texts of views, so it goes with them (vs_ctx_drop_views) */
    vs_svg_memo chart;
};

/* Hands bundle to the sink now (display_data), the pending result untouched. */
void vs_ctx_publish(vs_ctx *ctx, const vs_bundle *bundle);

/* Publishes the pending result, if any: what came before a stream, an input
 * or a later result goes out first. */
void vs_ctx_flush(vs_ctx *ctx);

/* Copies sheet, if the cell found it open and has not copied it yet, before
 * a verb gets it (a copy that fails sets snap_failed). */
void vs_ctx_keep_sheet(vs_ctx *ctx, const json_t *sheet);

/* The sheets to put back when the cell fails: each one's copy, or the sheet
 * itself where no verb reached it (then it is as the cell found it). A new
 * array, NULL when memory is short. */
json_t *vs_ctx_restored_sheets(vs_ctx *ctx);

/* Releases the component views handed out (vs_ctx_component_views). */
void vs_ctx_drop_views(vs_ctx *ctx);
/* At a cell's start, takes the views the session's last cell left
 * (vs_ctx_keep_views); at its end, leaves them to the next, with what else
 * the cell held about them (the chart, the notes) released. */
void vs_ctx_take_views(vs_ctx *ctx);
void vs_ctx_keep_views(vs_ctx *ctx);
/* Releases the words (vs_ctx_word): at the end of the cell. */
void vs_ctx_drop_words(vs_ctx *ctx);

#endif
