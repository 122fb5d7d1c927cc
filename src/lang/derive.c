/* derive.c — estimates recorded with how they were made, and recomputed when
 * the card moves (see derive.h). Nothing here knows any estimator's formula:
 * a recomputation is the estimator's own function run again on a line made of
 * its stored keys. */
#include "lang/derive.h"

#include <stdlib.h>
#include <string.h>

#include "lang/verbs_common.h"
#include "render/derived.h"
#include "sheet/sheet.h"
#include "sheet/vocab.h"
#include "util/buf.h"
#include "util/json.h"

const vs_estimator *const vs_estimators[] = {
#define VS_ESTIMATOR(id) &vs_estimator_row_##id,
#include "lang/estimators.def"
#undef VS_ESTIMATOR
    NULL};

const vs_estimator *vs_estimator_find(const char *name)
{
    const vs_estimator *const *e;
    for (e = vs_estimators; name && *e; e++)
        if (!strcmp((*e)->info->name, name))
            return *e;
    return NULL;
}

/* The keys written on the line, as written: {KEY: "text"}. */
static json_t *line_keys(const vs_line *line)
{
    json_t *keys = json_object();
    size_t i;
    if (!keys)
        return NULL;
    for (i = 0; i < line->nargs; i++) {
        const vs_arg *a = &line->args[i];
        if (a->kind != VS_ARG_PAIR)
            continue;
        if (json_object_set_new(keys, a->key, json_string(a->value))) {
            json_decref(keys);
            return NULL;
        }
    }
    return keys;
}

/* 1 when c is one of the components held in before (by identity). An
 * estimator replaces or appends a few components and leaves the rest where
 * they were, so the walk keeps a cursor into before (*at): a component still
 * at the cursor is found at once, and only one that moved, or is new, is
 * looked for further on. Linear in the components, where a scan of before
 * for each component made a re-run of a long cell quadratic. */
static int was_there(const json_t *before, size_t *at, const json_t *c)
{
    size_t i, n = json_array_size(before);
    for (i = *at; i < n; i++)
        if (json_array_get(before, i) == c) {
            *at = i + 1;
            return 1;
        }
    for (i = 0; i < *at && i < n; i++)
        if (json_array_get(before, i) == c)
            return 1;
    return 0;
}

/* Writes derived (a copy each) into every estimated component of sheet that is
 * not in before: those the estimator just stored. */
static int attach(json_t *sheet, const json_t *before, const json_t *derived, vs_error *err)
{
    json_t *comps = vs_sheet_array(sheet, VS_SK_COMPONENTS), *c;
    size_t i, at = 0;
    vs_json_array_foreach(comps, i, c)
    {
        const char *st;
        if (was_there(before, &at, c))
            continue;
        st = vs_sheet_component_str(c, VS_COMPK_STATUS);
        if (!vs_vocab_status_is(st, VS_STATUS_ESTIMATED))
            continue;
        if (vs_sheet_component_with(sheet, i, "derived", json_deep_copy(derived)) < 0)
            return vs_error_set(err, VS_ENOMEM, "out of memory");
    }
    return 0;
}

static json_t *derived_new(const json_t *sheet, const vs_estimator *e, json_t *keys_take)
{
    json_t *reads = keys_take ? vs_derived_reads(sheet, e->reads, keys_take) : NULL;
    if (!keys_take || !reads) {
        json_decref(keys_take);
        json_decref(reads);
        return NULL;
    }
    return json_pack("{s:s, s:o, s:o}", "estimator", e->info->name, "keys", keys_take, "reads",
                     reads);
}

int vs_derive_run(vs_ctx *ctx, const vs_line *line, json_t *sheet, const vs_estimator *e,
                  vs_error *err)
{
    json_t *before = json_copy(vs_sheet_array(sheet, VS_SK_COMPONENTS)), *derived;
    int rc;
    if (!before)
        before = json_array();
    if (!before)
        return vs_error_set(err, VS_ENOMEM, "out of memory");
    if ((rc = e->run(ctx, line, sheet, err)) < 0)
        goto done;
    if (!(derived = derived_new(sheet, e, line_keys(line)))) {
        rc = vs_error_set(err, VS_ENOMEM, "out of memory");
        goto done;
    }
    rc = attach(sheet, before, derived, err);
    json_decref(derived);
done:
    json_decref(before);
    return rc;
}

/* ------------------------------------------------------------- rederive */

/* A line `estimate NAME KEY=VALUE ...` made from a stored derived object, for
 * the estimator's own function. Strings are borrowed from derived. */
typedef struct made_line {
    vs_line line;
    vs_arg *args;
} made_line;

static int make_line(made_line *out, const json_t *derived, const vs_line *at)
{
    json_t *keys = json_object_get(derived, "keys"), *v;
    const char *k;
    size_t n = 1;
    memset(out, 0, sizeof *out);
    out->args = calloc(json_object_size(keys) + 1, sizeof *out->args);
    if (!out->args)
        return VS_ENOMEM;
    out->args[0].kind = VS_ARG_WORD;
    out->args[0].value = (char *)json_string_value(json_object_get(derived, "estimator"));
    json_object_foreach(keys, k, v)
    {
        vs_arg *a;
        if (!json_is_string(v))
            continue;
        a = &out->args[n++];
        a->kind = VS_ARG_PAIR;
        a->key = (char *)k;
        a->value = (char *)json_string_value(v);
    }
    for (size_t i = 0; i < n; i++) {
        out->args[i].line = at ? at->line : 0;
        out->args[i].column = at ? at->column : 0;
        out->args[i].value_column = out->args[i].column;
    }
    out->line.verb = (char *)"estimate";
    out->line.line = at ? at->line : 0;
    out->line.column = at ? at->column : 0;
    out->line.args = out->args;
    out->line.nargs = n;
    return 0;
}

/* The derived object without its reads: which estimate, with which keys. */
static int same_estimate(const json_t *a, const json_t *b)
{
    return json_equal(json_object_get(a, "estimator"), json_object_get(b, "estimator")) &&
           json_equal(json_object_get(a, "keys"), json_object_get(b, "keys"));
}

/* Components of sheet carrying an estimate equal to derived: names into names
 * (a JSON array), bytes into bytes (name -> bytes or null). */
static void collect(const json_t *sheet, const json_t *derived, json_t *names, json_t *bytes)
{
    size_t i;
    json_t *c;
    vs_json_array_foreach(vs_sheet_array(sheet, VS_SK_COMPONENTS), i, c)
    {
        json_t *d = vs_sheet_component_get(c, VS_COMPK_DERIVED);
        const char *name = vs_sheet_component_str(c, VS_COMPK_NAME);
        if (!name || !json_is_object(d) || !same_estimate(d, derived))
            continue;
        json_array_append_new(names, json_string(name));
        json_object_set(bytes, name, vs_sheet_component_get(c, VS_COMPK_BYTES));
    }
}

/* Makes every component of names unknown, saying why, keeping derived with
 * the reads of now. */
static int make_unknown(json_t *sheet, const json_t *names, const json_t *derived, const char *why,
                        vs_error *err)
{
    size_t i;
    json_t *n;
    vs_json_array_foreach(names, i, n)
    {
        const char *name = json_string_value(n);
        json_t *c = vs_sheet_component(sheet, name),
               *cls = vs_sheet_component_get(c, VS_COMPK_CLASS);
        size_t k;
        json_t *x;
        int rc;
        if ((rc = vs_sheet_set_component(sheet, name, 0, 0, vs_vocab_status_name(VS_STATUS_UNKNOWN),
                                         why, NULL, json_string_value(cls), err)) < 0)
            return rc;
        vs_json_array_foreach(vs_sheet_array(sheet, VS_SK_COMPONENTS), k, x)
        {
            if (!json_equal(vs_sheet_component_get(x, VS_COMPK_NAME), n))
                continue;
            if (vs_sheet_component_with(sheet, k, "derived", json_deep_copy(derived)) < 0)
                return vs_error_set(err, VS_ENOMEM, "out of memory");
            break;
        }
    }
    return 0;
}

static int rederive_one(vs_ctx *ctx, json_t *sheet, const json_t *derived, const json_t *now,
                        const char *changes, json_t *rows, vs_buf *text, vs_error *err)
{
    const vs_estimator *e =
        vs_estimator_find(json_string_value(json_object_get(derived, "estimator")));
    json_t *names = json_array(), *was = json_object(), *fresh = NULL, *before = NULL, *n;
    made_line ml = {0};
    vs_error local;
    int rc = 0, quiet;
    size_t i;
    if (!names || !was) {
        rc = vs_error_set(err, VS_ENOMEM, "out of memory");
        goto done;
    }
    collect(sheet, derived, names, was);
    if (!e) /* an estimator this kernel does not know (a later release's record) */
        goto done;
    if (!(fresh = json_pack("{s:O, s:O, s:O}", "estimator", json_object_get(derived, "estimator"),
                            "keys", json_object_get(derived, "keys"), "reads", now)) ||
        !(before = json_copy(vs_sheet_array(sheet, VS_SK_COMPONENTS))) ||
        make_line(&ml, derived, NULL) < 0) {
        rc = vs_error_set(err, VS_ENOMEM, "out of memory");
        goto done;
    }
    vs_error_clear(&local);
    quiet = vs_ctx_quiet(ctx, 1);
    rc = e->run(ctx, &ml.line, sheet, &local);
    vs_ctx_quiet(ctx, quiet);
    if (rc == VS_ENOMEM) {
        *err = local;
        goto done;
    }
    if (rc < 0) {
        /* the card no longer gives what it needs: unknown, saying why */
        vs_buf why = VS_BUF_INIT;
        vs_buf_printf(&why, "could not be re-estimated after %s: %s", changes, local.message);
        rc = vs_buf_failed(&why) ? vs_error_set(err, VS_ENOMEM, "out of memory")
                                 : make_unknown(sheet, names, fresh, vs_buf_str(&why), err);
        vs_buf_free(&why);
        if (rc < 0)
            goto done;
        vs_json_array_foreach(names, i, n)
        {
            vs_render_derived_add_failed(text, rows, json_string_value(n), e->info->name, changes,
                                         json_object_get(was, json_string_value(n)), local.message);
        }
        goto done;
    }
    if ((rc = attach(sheet, before, fresh, err)) < 0)
        goto done;
    /* what the estimator stored under the names it held, now */
    vs_json_array_foreach(names, i, n)
    {
        const char *name = json_string_value(n);
        json_t *c = vs_sheet_component(sheet, name);
        vs_render_derived_add(text, rows, name, e->info->name, changes, json_object_get(was, name),
                              vs_sheet_component_get(c, VS_COMPK_BYTES),
                              vs_sheet_component_get(c, VS_COMPK_STATUS));
    }
done:
    free(ml.args);
    json_decref(names);
    json_decref(was);
    json_decref(fresh);
    json_decref(before);
    return rc;
}

/* Whether the card moved since the last check is the card's generation
 * (sheet/sheet.h), which its writers move: most lines write neither card nor
 * placement, and the check after each is two integers. A writer that forgot
 * to move it would leave estimates stale; with VRAMSHEET_CHECK_CARD=1 (the
 * tests run so) the card and placement seen are kept too, and a card that
 * changed under an unmoved generation fails the cell, naming the line. */
#define COPY_KEY "_card_copy"

static int check_mode(void)
{
    static int on = -1;
    if (on < 0) {
        const char *v = getenv("VRAMSHEET_CHECK_CARD");
        on = v && v[0] == '1';
    }
    return on;
}

int vs_derive_card_unmoved(const json_t *sheet, vs_error *err)
{
    json_t *copy;
    if (vs_sheet_card_unseen(sheet))
        return 0;
    if (!check_mode() || !(copy = json_object_get(sheet, COPY_KEY)))
        return 1;
    if (json_equal(vs_sheet_get(copy, VS_SK_CARD), vs_sheet_card(sheet)) &&
        json_equal(vs_sheet_get(copy, VS_SK_PLACEMENT), vs_sheet_get(sheet, VS_SK_PLACEMENT)))
        return 1;
    return vs_error_set(err, VS_EVALUE,
                        "internal: the card or the placement changed without "
                        "vs_sheet_card_touch (what follows the card would miss it)");
}

static void card_saw(json_t *sheet)
{
    vs_sheet_card_saw(sheet);
    if (check_mode()) {
        json_t *card = vs_sheet_card(sheet), *pl = vs_sheet_get(sheet, VS_SK_PLACEMENT);
        json_object_set_new(sheet, COPY_KEY,
                            json_pack("{s:o, s:o}", "card",
                                      card ? json_deep_copy(card) : json_null(), "placement",
                                      pl ? json_deep_copy(pl) : json_null()));
    }
}

int vs_derive_follow_card(vs_ctx *ctx, json_t *sheet, vs_error *err)
{
    int rc = vs_derive_card_unmoved(sheet, err);
    return rc ? (rc < 0 ? rc : 0) : vs_derive_follow_moved(ctx, sheet, err);
}

#define LAYOUT_KEYS 6 /* name, bytes, status, source, phase, class */

int vs_derive_follow_moved(vs_ctx *ctx, json_t *sheet, vs_error *err)
{
    json_t *done, *rows, *c, *comps;
    vs_buf text = VS_BUF_INIT;
    size_t i;
    int rc = 0;
    done = json_array();
    rows = json_array();
    if (!done || !rows) {
        rc = vs_error_set(err, VS_ENOMEM, "out of memory");
        goto out;
    }
    vs_sheet_refresh_validation(sheet);
    /* the walk restarts after each recomputation: it replaces components (and
     * may replace the array, so it is looked up again then) */
    comps = vs_sheet_array(sheet, VS_SK_COMPONENTS);
    for (i = 0; i < json_array_size(comps);) {
        json_t *d, *now;
        vs_buf changes = VS_BUF_INIT;
        size_t k, seen = 0;
        c = json_array_get(comps, i++);
        /* Every component holds the layout's six keys (sheet.h: set, put and
         * the loader write all six), so one with no more has no "derived":
         * after each card line, a long reserve's components are passed over
         * without a hash lookup each. */
        if (json_object_size(c) <= LAYOUT_KEYS)
            continue;
        d = vs_sheet_component_get(c, VS_COMPK_DERIVED);
        if (!json_is_object(d) || !json_is_object(json_object_get(d, "reads")))
            continue;
        for (k = 0; k < json_array_size(done); k++)
            if (same_estimate(json_array_get(done, k), d))
                seen = 1;
        if (seen || !vs_derived_moved(sheet, json_object_get(d, "reads")))
            continue;
        if (!(now = vs_derived_reads_now(sheet, json_object_get(d, "reads")))) {
            rc = vs_error_set(err, VS_ENOMEM, "out of memory");
            goto out;
        }
        if (vs_derived_changes(json_object_get(d, "reads"), now, &changes) > 0 &&
            !vs_buf_failed(&changes)) {
            json_t *keep = json_incref(d);
            json_array_append(done, d);
            rc = rederive_one(ctx, sheet, keep, now, vs_buf_str(&changes), rows, &text, err);
            json_decref(keep);
            comps = vs_sheet_array(sheet, VS_SK_COMPONENTS);
            i = 0;
        }
        vs_buf_free(&changes);
        json_decref(now);
        if (rc < 0)
            goto out;
    }
    if (json_array_size(rows))
        rc =
            vs_verb_emit(ctx, vs_render_rederived(&text, vs_sheet_get(sheet, VS_SK_ID), rows), err);
    if (rc >= 0)
        card_saw(sheet);
out:
    vs_buf_free(&text);
    json_decref(done);
    json_decref(rows);
    return rc;
}
