/* verb_ctx.c — the verbs' context (lang/verb.h): what a verb reaches of the
 * session during a cell (its sheets, each copied before a verb first gets
 * it), where its results go (the latest held back, the others published as
 * they come), its stream, input and effects; and what the interpreter reads
 * of it around a cell (lang/verb_ctx_internal.h). */
#include "lang/verb_ctx_internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lang/interp_internal.h"
#include "render/bundle.h"
#include "render/result_memo.h"
#include "sheet/sheet.h"
#include "util/buf.h"
#include "util/json.h"

static char *dup_opt(const char *s)
{
    return s ? strdup(s) : NULL;
}

void vs_ctx_publish(vs_ctx *ctx, const vs_bundle *bundle)
{
    if (ctx->sink && ctx->sink->display)
        ctx->sink->display(ctx->sink->ctx, bundle, NULL, 0);
}

void vs_ctx_flush(vs_ctx *ctx)
{
    if (ctx->pending) {
        vs_ctx_publish(ctx, ctx->pending);
        vs_bundle_free(ctx->pending);
        ctx->pending = NULL;
    }
}

int vs_ctx_quiet(vs_ctx *ctx, int on)
{
    int was = ctx->quiet;
    ctx->quiet = on;
    return was;
}

void vs_ctx_emit(vs_ctx *ctx, vs_bundle *bundle_take)
{
    if (!bundle_take)
        return;
    if (ctx->quiet) {
        vs_bundle_free(bundle_take);
        return;
    }
    vs_ctx_flush(ctx);
    ctx->pending = bundle_take;
}

void vs_ctx_stream(vs_ctx *ctx, const char *name, const char *text, size_t len)
{
    /* results already produced come first, in the order they were made */
    vs_ctx_flush(ctx);
    if (ctx->sink && ctx->sink->stream)
        ctx->sink->stream(ctx->sink->ctx, name, text, len);
}

void vs_ctx_display(vs_ctx *ctx, const vs_bundle *bundle, const char *display_id, int update)
{
    vs_ctx_flush(ctx);
    if (ctx->sink && ctx->sink->display)
        ctx->sink->display(ctx->sink->ctx, bundle, display_id, update);
}

int vs_ctx_interrupted(vs_ctx *ctx)
{
    return ctx->sink && ctx->sink->interrupted && ctx->sink->interrupted(ctx->sink->ctx);
}

int vs_ctx_input(vs_ctx *ctx, const char *prompt, char **out, vs_error *err)
{
    int rc;
    *out = NULL;
    vs_ctx_flush(ctx);
    if (!ctx->sink || !ctx->sink->input)
        return vs_error_set(err, VS_EVALUE, "this front end does not accept input");
    rc = ctx->sink->input(ctx->sink->ctx, prompt, 0, out);
    if (rc == VS_EINTERRUPT)
        return vs_error_set(err, rc, "interrupted while waiting for input");
    if (rc < 0)
        return vs_error_set(err, rc, "input was not available (the client does not allow stdin)");
    return 0;
}

void vs_ctx_effect(vs_ctx *ctx, const char *fmt, ...)
{
    va_list ap;
    if (ctx->effects.len)
        vs_buf_puts(&ctx->effects, "; ");
    va_start(ap, fmt);
    vs_buf_vprintf(&ctx->effects, fmt, ap);
    va_end(ap);
}

void vs_ctx_keep_sheet(vs_ctx *ctx, const json_t *sheet)
{
    size_t i, n = json_array_size(ctx->before);
    json_t *copy;
    for (i = 0; i < n; i++) {
        if (json_array_get(ctx->before, i) != sheet)
            continue;
        if (!json_is_null(json_array_get(ctx->snaps, i)))
            return;
        if (!(copy = vs_sheet_snapshot((json_t *)sheet)) ||
            json_array_set_new(ctx->snaps, i, copy) < 0)
            ctx->snap_failed = 1;
        return;
    }
}

static void keep_all(vs_ctx *ctx)
{
    size_t i;
    for (i = 0; i < json_array_size(ctx->before); i++)
        vs_ctx_keep_sheet(ctx, json_array_get(ctx->before, i));
}

json_t *vs_ctx_restored_sheets(vs_ctx *ctx)
{
    json_t *out = json_array();
    size_t i;
    for (i = 0; out && i < json_array_size(ctx->before); i++) {
        json_t *s = json_array_get(ctx->snaps, i);
        if (json_array_append(out, json_is_null(s) ? json_array_get(ctx->before, i) : s) < 0)
            out = (json_decref(out), NULL);
    }
    return out;
}

void vs_ctx_drop_views(vs_ctx *ctx)
{
    size_t i;
    /* the chart's key holds the views' texts by address */
    vs_svg_memo_free(&ctx->chart);
    vs_component_views_free(&ctx->views);
    json_decref(ctx->views_of);
    ctx->views_of = NULL;
    for (i = 0; i < ctx->nstored; i++)
        json_decref(ctx->stored[i].component);
    free(ctx->stored);
    ctx->stored = NULL;
    ctx->nstored = ctx->stored_cap = 0;
}

void vs_ctx_component_stored(vs_ctx *ctx, size_t at, json_t *component,
                             const vs_component_view *view)
{
    struct vs_ctx_stored *st;
    ctx->next_at = at + 1;
    /* already among the views in that place (a cell run again keeps what
     * it declares): nothing to note */
    if (ctx->views_of && json_array_get(ctx->views_of, at) == component)
        return;
    /* best effort: a note that cannot be kept only leaves the view to read.
     * Grown four times over: each move copies every note, and a long cell
     * stores a component a line */
    if (ctx->nstored == ctx->stored_cap) {
        size_t cap = ctx->stored_cap ? ctx->stored_cap * 4 : 64;
        struct vs_ctx_stored *p = realloc(ctx->stored, cap * sizeof *p);
        if (!p)
            return;
        ctx->stored = p;
        ctx->stored_cap = cap;
    }
    st = &ctx->stored[ctx->nstored++];
    st->at = at;
    st->component = json_incref(component);
    st->view = *view;
}

void vs_ctx_take_views(vs_ctx *ctx)
{
    ctx->views_of = ctx->ip->views_of;
    ctx->views = ctx->ip->views;
    ctx->ip->views_of = NULL;
    ctx->ip->views.v = NULL;
    ctx->ip->views.n = 0;
}

void vs_ctx_keep_views(vs_ctx *ctx)
{
    /* the views stay true of the objects they were read from, which they
     * hold (a component is replaced, never edited); the notes and the chart
     * are the cell's own */
    json_t *of = ctx->views_of;
    vs_component_views views = ctx->views;
    ctx->views_of = NULL;
    ctx->views.v = NULL;
    ctx->views.n = 0;
    vs_ctx_drop_views(ctx);
    json_decref(ctx->ip->views_of);
    vs_component_views_free(&ctx->ip->views);
    ctx->ip->views_of = of;
    ctx->ip->views = views;
}

const vs_component_view *vs_ctx_component_held(vs_ctx *ctx, size_t at, const json_t *component)
{
    /* the same object read: its view (a component is replaced, never edited) */
    if (ctx->views_of && at < ctx->views.n && json_array_get(ctx->views_of, at) == component)
        return &ctx->views.v[at];
    return NULL;
}

struct vs_result_memo *vs_ctx_results(vs_ctx *ctx)
{
    if (!ctx->ip->results)
        ctx->ip->results = vs_result_memo_new();
    return ctx->ip->results;
}

size_t vs_ctx_component_next(const vs_ctx *ctx)
{
    return ctx->next_at;
}

/* The view of c, component i of the sheet: the one a verb handed on when it
 * stored c there (vs_ctx_component_stored), else read from c. *k walks the
 * notes, which come in the order of their places when a cell adds
 * components one after the other; a note out of that order, or for an
 * object no longer in its place, is passed over (the view is read). */
static void view_at(vs_ctx *ctx, size_t i, json_t *c, vs_component_view *out, size_t *k)
{
    const vs_component_view *noted = NULL;
    for (; *k < ctx->nstored && ctx->stored[*k].at <= i; (*k)++)
        if (ctx->stored[*k].at == i && ctx->stored[*k].component == c)
            noted = &ctx->stored[*k].view;
    if (noted)
        *out = *noted;
    else
        vs_component_view_read(out, c);
}

/* The verbs that walk every component (envelope, weights, formats,
 * candidates) often follow one another on a sheet that did not change
 * between them, and reading a view is a walk of the component's keys: a long
 * reserve's were read four times in a cell. A component is replaced, never
 * edited (sheet.h), so the same objects in the same places are the same
 * views; holding them means no freed one is mistaken for a new one. The
 * components a verb of the cell stored (`reserve`: most of a long sheet's)
 * come with their views, noted as they were stored, and are not read. */
const vs_component_views *vs_ctx_component_views(vs_ctx *ctx, const json_t *sheet)
{
    json_t *comps = vs_sheet_array(sheet, VS_SK_COMPONENTS), *of, *c;
    size_t i, n = json_array_size(comps), k = 0, held;
    vs_component_view *v;
    if (ctx->views_of && json_array_size(ctx->views_of) == n) {
        /* The same count in the same places: only the components replaced
         * since are read again. A cell run again replaces the few an
         * estimator rewrites (its "derived" key) and keeps the rest, and
         * reading all of them again for that was most of a `sheet` line's
         * worth. The chart's key holds the texts of the views by address:
         * it goes as soon as one is replaced. */
        int moved = 0;
        for (i = 0; i < n; i++) {
            c = json_array_get(comps, i);
            if (json_array_get(ctx->views_of, i) == c)
                continue;
            if (!moved++)
                vs_svg_memo_free(&ctx->chart);
            if (json_array_set(ctx->views_of, i, c) < 0)
                break; /* read them all below */
            view_at(ctx, i, c, &ctx->views.v[i], &k);
        }
        if (i == n)
            return &ctx->views;
    }
    /* A component added or removed: a new set of views, each one held from
     * before when the same object is in the same place, else noted or read. */
    v = malloc((n ? n : 1) * sizeof *v);
    of = json_is_array(comps) ? json_copy(comps) : json_array();
    if (!of || !v) {
        json_decref(of);
        free(v);
        vs_ctx_drop_views(ctx);
        return NULL;
    }
    held = ctx->views_of ? json_array_size(ctx->views_of) : 0;
    for (i = 0; i < n; i++) {
        c = json_array_get(comps, i);
        if (i < held && json_array_get(ctx->views_of, i) == c)
            v[i] = ctx->views.v[i];
        else
            view_at(ctx, i, c, &v[i], &k);
    }
    vs_ctx_drop_views(ctx); /* the notes too: every one is in the views now or out of date */
    ctx->views.v = v;
    ctx->views.n = n;
    ctx->views_of = of;
    return &ctx->views;
}

json_t *vs_ctx_word(vs_ctx *ctx, const char *word)
{
    size_t k;
    json_t *w;
    for (k = 0; k < ctx->nwords; k++) {
        const char *t = json_string_value(ctx->words[k]);
        if (t[0] == word[0] && !strcmp(t, word))
            return ctx->words[k];
    }
    if (ctx->nwords == sizeof ctx->words / sizeof ctx->words[0] ||
        !(w = vs_json_stringn(word, strlen(word))))
        return NULL;
    return ctx->words[ctx->nwords++] = w;
}

void vs_ctx_drop_words(vs_ctx *ctx)
{
    while (ctx->nwords)
        json_decref(ctx->words[--ctx->nwords]);
}

vs_svg_memo *vs_ctx_chart_memo(vs_ctx *ctx)
{
    return &ctx->chart;
}

size_t vs_ctx_sheet_count(vs_ctx *ctx)
{
    return json_array_size(ctx->ip->sheets);
}

json_t *vs_ctx_sheets(vs_ctx *ctx)
{
    keep_all(ctx);
    return ctx->ip->sheets;
}

static json_t *find_sheet(vs_interp *ip, const char *id)
{
    size_t i;
    json_t *s;
    json_array_foreach(ip->sheets, i, s)
    {
        const char *sid = vs_sheet_get_str(s, VS_SK_ID);
        if (sid && id && !strcmp(sid, id))
            return s;
    }
    return NULL;
}

json_t *vs_ctx_find_sheet(vs_ctx *ctx, const char *id)
{
    json_t *s = find_sheet(ctx->ip, id);
    if (s)
        vs_ctx_keep_sheet(ctx, s);
    return s;
}

static long sheet_index(vs_interp *ip, const json_t *sheet)
{
    size_t i;
    json_t *s;
    json_array_foreach(ip->sheets, i, s) if (s == sheet) return (long)i;
    return -1;
}

json_t *vs_ctx_sheet(vs_ctx *ctx)
{
    vs_interp *ip = ctx->ip;
    json_t *s;
    if (ip->current >= 0 && (size_t)ip->current < json_array_size(ip->sheets)) {
        s = json_array_get(ip->sheets, (size_t)ip->current);
        vs_ctx_keep_sheet(ctx, s);
        return ctx->snap_failed ? NULL : s;
    }
    if (vs_ctx_open_sheet(ctx, "untitled", &s, NULL) < 0)
        return NULL;
    return s;
}

int vs_ctx_open_sheet(vs_ctx *ctx, const char *title, json_t **out_sheet, vs_error *err)
{
    char id[VS_SHEET_ID_MAX];
    json_t *s;
    if (out_sheet)
        *out_sheet = NULL;
    if (!title)
        return vs_error_set(err, VS_EVALUE, "expected a sheet title");
    vs_sheet_slug(title, id, sizeof id);
    s = vs_ctx_find_sheet(ctx, id);
    if (!s) {
        s = vs_sheet_new(title);
        if (!s || json_array_append_new(ctx->ip->sheets, s) < 0)
            return vs_error_set(err, VS_ENOMEM, "out of memory");
        json_object_del(ctx->ip->bases, id); /* a new sheet was loaded from nothing */
    }
    ctx->ip->current = sheet_index(ctx->ip, s);
    if (out_sheet)
        *out_sheet = s;
    return 0;
}

int vs_ctx_add_sheet(vs_ctx *ctx, json_t *sheet_take, const char *base_blob, vs_error *err)
{
    const char *id = vs_sheet_get_str(sheet_take, VS_SK_ID);
    if (!id || !vs_sheet_id_valid(id)) {
        json_decref(sheet_take);
        return vs_error_set(err, VS_EVALUE, "the sheet has no valid id");
    }
    if (find_sheet(ctx->ip, id)) {
        int rc = vs_error_set(err, VS_EVALUE,
                              "a sheet with id '%s' is already open in this session "
                              "(choose another title)",
                              id);
        json_decref(sheet_take);
        return rc;
    }
    if (vs_ctx_set_base_blob(ctx, id, base_blob) < 0) {
        json_decref(sheet_take);
        return vs_error_oom(err);
    }
    if (json_array_append_new(ctx->ip->sheets, sheet_take) < 0) {
        json_object_del(ctx->ip->bases, id);
        return vs_error_set(err, VS_ENOMEM, "out of memory");
    }
    ctx->ip->current = (long)json_array_size(ctx->ip->sheets) - 1;
    return 0;
}

const char *vs_ctx_base_blob(vs_ctx *ctx, const char *id)
{
    return id ? json_string_value(json_object_get(ctx->ip->bases, id)) : NULL;
}

int vs_ctx_set_base_blob(vs_ctx *ctx, const char *id, const char *blob)
{
    if (!id)
        return VS_EVALUE;
    if (!blob) {
        json_object_del(ctx->ip->bases, id);
        return 0;
    }
    return json_object_set_new(ctx->ip->bases, id, json_string(blob)) < 0 ? VS_ENOMEM : 0;
}

const char *vs_ctx_records_path(vs_ctx *ctx)
{
    return vs_interp_records_path(ctx->ip);
}

int vs_ctx_hub_offline(vs_ctx *ctx)
{
    return ctx->ip->hub_offline;
}

void vs_ctx_set_hub_offline(vs_ctx *ctx, int on)
{
    ctx->ip->hub_offline = on != 0;
}

void vs_ctx_set_records_path(vs_ctx *ctx, const char *path)
{
    char *p = dup_opt(path);
    if (path && !p)
        return;
    free(ctx->ip->set_records);
    ctx->ip->set_records = p;
}
