/* The interpreter: a session of sheets, cells applied atomically, results
 * handed to a sink. Completion, inspection and is_complete live here too, since
 * they read the same verb tables and the same session. */
#include "lang/interp.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/derive.h"
#include "lang/interp_internal.h"
#include "lang/parse.h"
#include "lang/verb.h"
#include "lang/verb_ctx_internal.h"
#include "render/bundle.h"
#include "render/core.h"
#include "render/result_memo.h"
#include "sheet/sheet.h"
#include "sheet/units.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/json.h"

vs_interp *vs_interp_new(const vs_interp_options *opts)
{
    vs_interp *ip = calloc(1, sizeof *ip);
    if (!ip)
        return NULL;
    ip->sheets = json_array();
    ip->bases = json_object();
    ip->current = -1;
    if (opts && opts->records_path) {
        ip->opt_records = strdup(opts->records_path);
        if (!ip->opt_records) {
            vs_interp_free(ip);
            return NULL;
        }
    }
    if (!ip->sheets || !ip->bases) {
        vs_interp_free(ip);
        return NULL;
    }
    return ip;
}

void vs_interp_free(vs_interp *ip)
{
    if (!ip)
        return;
    json_decref(ip->sheets);
    json_decref(ip->bases);
    free(ip->opt_records);
    free(ip->set_records);
    free(ip->env_records);
    vs_result_memo_free(ip->results);
    json_decref(ip->views_of);
    vs_component_views_free(&ip->views);
    free(ip);
}

json_t *vs_interp_language_info(void)
{
    /* no lexer knows the language: plain text, and CodeMirror's shell mode
     * (words, strings, # comments) for the editor */
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "name", "vramsheet", "version", VS_VERSION,
                     "mimetype", "text/x-vramsheet", "file_extension", ".vramsheet",
                     "pygments_lexer", "text", "codemirror_mode", "shell");
}

const char *vs_interp_banner(void)
{
    return "vramsheet " VS_VERSION ": GPU memory sizing sheets (type `help` for the verbs)";
}

/* ------------------------------------------------------------- records */

const char *vs_interp_records_path(vs_interp *ip)
{
    char *p;
    if (ip->set_records)
        return ip->set_records;
    if (ip->opt_records)
        return ip->opt_records;
    p = vs_store_default_path();
    if (!p)
        return ip->env_records ? ip->env_records : "";
    free(ip->env_records);
    ip->env_records = p;
    return p;
}

/* ------------------------------------------------------------------ execute */

const vs_verb *vs_interp_lookup(const char *name)
{
    const vs_verb *v = vs_verb_find(name);
    if (!v && name[0] == '%' && name[1] == '%')
        v = vs_verb_find(name + 2);
    return v;
}

static int unknown_verb(const vs_line *l, vs_error *err)
{
    const char *near[3];
    size_t n = vs_verb_suggest(l->verb, near, 3), i;
    vs_buf b = VS_BUF_INIT;
    int rc;
    if (n) {
        vs_buf_puts(&b, "; did you mean ");
        for (i = 0; i < n; i++)
            vs_buf_printf(&b, "%s`%s`", i == 0 ? "" : i + 1 == n ? " or " : ", ", near[i]);
        vs_buf_puts(&b, "?");
    }
    rc = vs_error_set_at(err, VS_ENOTFOUND, l->line, l->column,
                         "unknown verb '%s'%s (expected a verb; `help` lists them)", l->verb,
                         vs_buf_str(&b));
    vs_buf_free(&b);
    return rc;
}

/* `gpu ""`, `quality ""`, `source=""`: an empty text names nothing and would
 * stand in a record as if something had been said. No verb has a use for it. */
static int no_empty_text(const vs_line *l, vs_error *err)
{
    size_t i;
    for (i = 0; i < l->nargs; i++) {
        const vs_arg *a = &l->args[i];
        if (a->quoted && !a->value[0])
            return vs_error_set_at(err, VS_EVALUE, a->line,
                                   a->kind == VS_ARG_PAIR ? a->value_column : a->column,
                                   "an empty text says nothing: write it, or leave %s%s out",
                                   a->kind == VS_ARG_PAIR ? a->key : "the argument",
                                   a->kind == VS_ARG_PAIR ? "=" : "");
    }
    return 0;
}

/* The estimates of s follow its card. Following a card that did not move
 * changes nothing: no copy (and the generation is read once a line). */
static int follow_one(vs_ctx *ctx, json_t *s, vs_error *err)
{
    int rc = vs_derive_card_unmoved(s, err);
    if (rc)
        return rc < 0 ? rc : 0;
    vs_ctx_keep_sheet(ctx, s);
    return ctx->snap_failed ? vs_error_oom(err) : vs_derive_follow_moved(ctx, s, err);
}

/* vs_derive_follow_card after a line: the current sheet is the only one most verbs
 * change; a verb that opens, loads or changes other sheets (VS_VERB_OPENS_SHEETS:
 * `sheet`, `show`, `reproduce`, `records pull`, `diff`, `history`) has every
 * sheet of the session checked. One sheet rather than all after each of a long
 * cell's lines keeps a 200-line cell in a session of several sheets near its
 * former cost. */
static int rederive_after(vs_ctx *ctx, const vs_verb *v, vs_error *err)
{
    size_t i;
    json_t *s;
    int rc;
    if (!(v->flags & VS_VERB_OPENS_SHEETS)) {
        vs_interp *ip = ctx->ip;
        /* the current sheet, never one opened here (no implicit sheet) */
        if (ip->current < 0 || (size_t)ip->current >= json_array_size(ip->sheets))
            return 0;
        s = json_array_get(ip->sheets, (size_t)ip->current);
        return follow_one(ctx, s, err);
    }
    json_array_foreach(ctx->ip->sheets, i, s)
    {
        if ((rc = follow_one(ctx, s, err)) < 0)
            return rc;
    }
    return 0;
}

/* A line that ran in a cell that then failed, named as the person reads it:
 * the verb, and its first word when the verb has forms (`estimate kv`). Only a
 * failed cell names them (undone_names): a cell that succeeds, nearly every
 * one, builds no list. */
static void note_undone(vs_buf *names, json_t *lines, const vs_line *l, const vs_verb *v)
{
    const vs_arg *first = vs_line_positional(l, 0);
    size_t start = names->len;
    if (names->len)
        vs_buf_puts(names, ", ");
    start = names->len;
    vs_buf_puts(names, l->verb);
    if (v && vs_verb_word(v, 0) && first && !first->quoted) {
        vs_buf_putc(names, ' ');
        vs_buf_puts(names, first->value);
    }
    if (!vs_buf_failed(names))
        json_array_append_new(lines, json_string(vs_buf_str(names) + start));
}

/* The lines of cell before the one that failed whose effects the failure
 * undoes (kept[k] == 0: nothing outside the kernel was kept), named into names
 * and lines. */
static void undone_names(vs_buf *names, json_t *lines, const vs_cell *cell, const vs_buf *kept)
{
    size_t k;
    for (k = 0; k < kept->len && k < cell->nlines; k++)
        if (!kept->data[k])
            note_undone(names, lines, &cell->lines[k], vs_interp_lookup(cell->lines[k].verb));
}

int vs_interp_execute(vs_interp *ip, const char *code, const vs_sink *sink, vs_bundle **out_result,
                      vs_error *err)
{
    vs_cell *cell = NULL;
    vs_ctx ctx;
    json_t *snap = NULL;
    long snap_current;
    char *snap_records = NULL;
    vs_buf undone = VS_BUF_INIT; /* the lines a failure undoes, named */
    vs_buf kept = VS_BUF_INIT;   /* a byte a line that ran: 1 if it kept an effect */
    json_t *undone_lines = json_array();
    size_t i;
    int rc;
    vs_error local;
    const vs_verb *prev_verb = NULL; /* the verb of the line before */

    if (!err)
        err = &local;
    vs_error_clear(err);
    *out_result = NULL;
    memset(&ctx, 0, sizeof ctx);
    ctx.ip = ip;
    ctx.sink = sink;
    vs_buf_init(&ctx.effects);
    vs_ctx_take_views(&ctx);

    rc = vs_parse_cell(&cell, code ? code : "", code ? strlen(code) : 0, err);
    if (rc < 0)
        goto done;

    /* A cell is atomic: everything it may change is copied before a verb can
     * change it (keep_sheet). The copy shares the strings and numbers, which
     * nothing mutates (util/json.h), and the components, which are replaced,
     * never edited (sheet.h). */
    ctx.before = json_copy(ip->sheets);
    ctx.snaps = json_array();
    for (i = 0; ctx.snaps && i < json_array_size(ip->sheets); i++)
        if (json_array_append_new(ctx.snaps, json_null()) < 0)
            ctx.snaps = (json_decref(ctx.snaps), NULL);
    snap = ctx.before && ctx.snaps ? json_incref(ctx.before) : NULL;
    snap_current = ip->current;
    if (ip->set_records && !(snap_records = strdup(ip->set_records)))
        snap = (json_decref(snap), NULL);
    if (!snap) {
        rc = vs_error_set(err, VS_ENOMEM, "out of memory before running the cell");
        goto done;
    }

    for (i = 0; i < cell->nlines; i++) {
        const vs_line *l = &cell->lines[i];
        const vs_verb *v;
        size_t effects_before = ctx.effects.len;
        if (vs_ctx_interrupted(&ctx)) {
            rc = vs_error_set_at(err, VS_EINTERRUPT, l->line, l->column, "interrupted before `%s`",
                                 l->verb);
            break;
        }
        /* a line's verb is most often the one before it (a run of `reserve`
         * lines): one strcmp instead of a walk through the verb tables */
        if (!prev_verb || strcmp(l->verb, prev_verb->name))
            prev_verb = vs_interp_lookup(l->verb);
        v = prev_verb;
        if (!v || !v->run) {
            rc = unknown_verb(l, err);
            break;
        }
        vs_error_clear(err);
        if ((rc = no_empty_text(l, err)) < 0)
            break;
        rc = v->run(&ctx, l, err);
        if (ctx.snap_failed && rc >= 0)
            rc = vs_error_oom(err);
        /* the card stays the truth: whatever the line changed, the estimates and
         * validations derived from the card follow it in the same cell */
        if (rc >= 0 && !(v->flags & VS_VERB_DERIVES))
            rc = rederive_after(&ctx, v, err);
        if (rc >= 0) /* a kept effect is said as kept, not as undone */
            vs_buf_putc(&kept, ctx.effects.len != effects_before);
        if (rc < 0) {
            if (err->code == 0)
                vs_error_set(err, rc, "`%s` failed", l->verb);
            err->code = rc;
            if (err->line == 0) {
                err->line = l->line;
                err->column = l->column;
            }
            break;
        }
    }

    if (rc < 0) {
        /* what the person saw before the failure stays visible, and then what the
         * cell undid of it */
        vs_ctx_flush(&ctx);
        undone_names(&undone, undone_lines, cell, &kept);
        if (undone.len && !vs_buf_failed(&undone) && !vs_buf_failed(&kept)) {
            vs_bundle *u = vs_render_undone(vs_buf_str(&undone), json_incref(undone_lines));
            if (u)
                vs_ctx_publish(&ctx, u);
            vs_bundle_free(u);
        }
        json_decref(snap);
        if (!(snap = vs_ctx_restored_sheets(&ctx))) {
            /* no memory for the array: the copies cannot go back */
            rc = vs_error_oom(err);
            goto done;
        }
        vs_interp_keep_outside_world(snap, ip->sheets);
        json_decref(ip->sheets);
        ip->sheets = snap;
        snap = NULL;
        vs_interp_drop_closed_bases(ip);
        ip->current = snap_current;
        free(ip->set_records);
        ip->set_records = snap_records;
        snap_records = NULL;
        if (ctx.effects.len) {
            vs_buf m = VS_BUF_INIT;
            vs_buf_printf(&m, "%s (kept: %s; the sheet is back to its state before the cell)",
                          err->message, vs_buf_str(&ctx.effects));
            if (!vs_buf_failed(&m)) {
                size_t n = m.len < sizeof err->message - 1 ? m.len : sizeof err->message - 1;
                memcpy(err->message, m.data, n);
                err->message[n] = '\0';
            }
            vs_buf_free(&m);
        }
        goto done;
    }
    *out_result = ctx.pending;
    ctx.pending = NULL;

done:
    vs_buf_free(&undone);
    vs_buf_free(&kept);
    json_decref(undone_lines);
    vs_bundle_free(ctx.pending);
    json_decref(snap);
    json_decref(ctx.before);
    json_decref(ctx.snaps);
    free(snap_records);
    vs_buf_free(&ctx.effects);
    vs_ctx_keep_views(&ctx);
    vs_ctx_drop_words(&ctx);
    vs_cell_free(cell);
    return rc;
}
