/* Records verbs that read the records: history, show, diff, reproduce (rows of
 * vs_verbs_records, verbs_records.c). What they print is render/records.c and
 * render/diff.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lang/reproduce_card.h"
#include "lang/verb.h"
#include "lang/verbs_gpu_here.h"
#include "lang/verbs_records_internal.h"
#include "render/bundle.h"
#include "render/diff.h"
#include "render/markdown.h"
#include "render/records.h"
#include "sheet/derived.h"
#include "sheet/diff.h"
#include "sheet/sheet.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/error.h"

/* ----------------------------------------------------------------- history */

int vs_verb_history(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    static const char *const keys[] = {"limit", NULL};
    const vs_arg *a = vs_line_positional(line, 0);
    vs_bundle *bundle;
    vs_store *st = NULL;
    vs_store_revisions h = {0};
    vs_records_revision *shown = NULL;
    char id[VS_SHEET_ID_MAX];
    const char *rev = NULL;
    uint64_t limit = 0;
    size_t i;
    int rc;
    if ((rc = vs_line_check_keys(line, keys, err)) < 0)
        return rc;
    if ((rc = vs_line_get_uint(line, "limit", 0, &limit, NULL, err)) < 0)
        return rc;
    if ((rc = vs_line_no_extra(line, 1, "history [SHEET] [limit=N]", err)) < 0)
        return rc;
    if ((rc = vs_verbs_records_sheet_spec(ctx, a, id, sizeof id, &rev, err)) < 0)
        return rc;
    if ((rc = vs_verbs_records_open_store(ctx, &st, err)) < 0 ||
        (rc = vs_store_history(st, id, (size_t)limit, &h, err)) < 0) {
        vs_verbs_records_at_line(line, err, rc);
        goto done;
    }
    if (!(shown = calloc(h.n ? h.n : 1, sizeof *shown))) {
        rc = vs_error_oom(err);
        goto done;
    }
    for (i = 0; i < h.n; i++) {
        shown[i].commit = h.revs[i].commit;
        shown[i].message = h.revs[i].message;
        shown[i].time = h.revs[i].time;
        shown[i].offset = h.revs[i].offset;
    }
    if (!(bundle = vs_records_history_bundle(id, vs_store_path(st), shown, h.n,
                                             *h.truncated ? h.truncated : NULL))) {
        rc = vs_error_oom(err);
        goto done;
    }
    vs_ctx_emit(ctx, bundle);
    rc = 0;
done:
    free(shown);
    vs_store_revisions_clear(&h);
    vs_store_free(st);
    return rc;
}

/* -------------------------------------------------------------------- show */

int vs_verb_show(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    static const char *const syntax = "show SHEET[@REV]";
    const vs_arg *a = vs_line_positional(line, 0);
    json_t *sheet = NULL, *payload = NULL;
    vs_store *st = NULL;
    vs_store_blob blob = {0};
    vs_records_show shown;
    vs_bundle *bundle;
    char id[VS_SHEET_ID_MAX], *md = NULL;
    const char *rev = NULL;
    int rc, loaded = 0;
    if ((rc = vs_line_check_keys(line, NULL, err)) < 0)
        return rc;
    if ((rc = vs_line_no_extra(line, 1, syntax, err)) < 0)
        return rc;
    if ((rc = vs_verbs_records_sheet_spec(ctx, a, id, sizeof id, &rev, err)) < 0)
        return rc;
    if ((rc = vs_verbs_records_open_store(ctx, &st, err)) < 0 ||
        (rc = vs_verbs_records_load_sheet(st, id, rev, &sheet, &blob, err)) < 0) {
        vs_arg_error(a, err, rc);
        if (!a)
            vs_verbs_records_at_line(line, err, rc);
        goto done;
    }
    md = vs_markdown_sheet(sheet);
    payload = json_deep_copy(sheet);
    if (!md || !payload) {
        rc = vs_error_oom(err);
        goto done;
    }
    if (!vs_ctx_find_sheet(ctx, id)) {
        if ((rc = vs_ctx_add_sheet(ctx, sheet, blob.blob, err)) < 0) {
            sheet = NULL;
            goto done;
        }
        sheet = NULL;
        loaded = 1;
    }
    shown.sheet = id;
    shown.rev = rev;
    shown.commit = blob.commit;
    shown.md = md;
    shown.opened = loaded;
    bundle = vs_records_show_bundle(&shown, payload, blob.blob, vs_store_path(st));
    payload = NULL;
    if (!bundle) {
        rc = vs_error_oom(err);
        goto done;
    }
    vs_ctx_emit(ctx, bundle);
    rc = 0;
done:
    json_decref(payload);
    json_decref(sheet);
    free(md);
    vs_store_blob_clear(&blob);
    vs_store_free(st);
    return rc;
}

/* -------------------------------------------------------------------- diff */

int vs_verb_diff(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    static const char *const syntax = "diff SHEET[@REV1] [REV2]";
    const vs_arg *a1 = vs_line_positional(line, 0), *a2 = vs_line_positional(line, 1);
    json_t *from = NULL, *to = NULL;
    vs_bundle *bundle;
    const json_t *to_ref;
    vs_store *st = NULL;
    vs_store_blob b1 = {0}, b2 = {0};
    char id[VS_SHEET_ID_MAX], id2[VS_SHEET_ID_MAX], l1[160], l2[160];
    const char *rev1 = NULL, *rev2 = NULL;
    int rc;
    if ((rc = vs_line_check_keys(line, NULL, err)) < 0)
        return rc;
    if ((rc = vs_line_no_extra(line, 2, syntax, err)) < 0)
        return rc;
    if (!a1)
        return vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                               "expected `%s` (the second revision defaults to the session's "
                               "sheet, or the tip)",
                               syntax);
    if ((rc = vs_store_parse_spec(a1->value, id, sizeof id, &rev1, err)) < 0)
        return vs_arg_error(a1, err, rc);
    if (a2) {
        /* REV2 or SHEET@REV2 of the same sheet */
        const char *at = strchr(a2->value, '@');
        if (at) {
            if ((rc = vs_store_parse_spec(a2->value, id2, sizeof id2, &rev2, err)) < 0)
                return vs_arg_error(a2, err, rc);
            if (strcmp(id, id2))
                return vs_error_set_at(err, VS_EVALUE, a2->line, a2->column,
                                       "diff compares two revisions of one sheet (%s, not %s)", id,
                                       id2);
        } else {
            rev2 = a2->value;
        }
    }
    if ((rc = vs_verbs_records_open_store(ctx, &st, err)) < 0)
        goto fail_line;
    if ((rc = vs_verbs_records_load_sheet(st, id, rev1, &from, &b1, err)) < 0) {
        vs_arg_error(a1, err, rc);
        goto done;
    }
    snprintf(l1, sizeof l1, "%s@%.12s", id, b1.commit);
    if (a2) {
        if ((rc = vs_verbs_records_load_sheet(st, id, rev2, &to, &b2, err)) < 0) {
            vs_arg_error(a2, err, rc);
            goto done;
        }
        snprintf(l2, sizeof l2, "%s@%.12s", id, b2.commit);
        to_ref = to;
    } else if ((to_ref = vs_ctx_find_sheet(ctx, id))) {
        snprintf(l2, sizeof l2, "%s", "this session");
    } else {
        if ((rc = vs_verbs_records_load_sheet(st, id, NULL, &to, &b2, err)) < 0)
            goto fail_line;
        snprintf(l2, sizeof l2, "%s@%.12s (tip)", id, b2.commit);
        to_ref = to;
    }
    {
        vs_buf w = VS_BUF_INIT;
        vs_diff_axes_warning(vs_diff_axes(from, to_ref), &w);
        bundle = vs_diff_bundle(from, to_ref, l1, l2,
                                json_pack("{s:s, s:o, s:s?}", "from_commit", b1.commit, "to_commit",
                                          *b2.commit ? json_string(b2.commit) : json_null(),
                                          "warning", w.len ? vs_buf_str(&w) : NULL));
        vs_buf_free(&w);
    }
    if (!bundle) {
        rc = vs_error_oom(err);
        goto done;
    }
    vs_ctx_emit(ctx, bundle);
    rc = 0;
    goto done;
fail_line:
    vs_verbs_records_at_line(line, err, rc);
done:
    json_decref(from);
    json_decref(to);
    vs_store_blob_clear(&b1);
    vs_store_blob_clear(&b2);
    vs_store_free(st);
    return rc;
}

/* --------------------------------------------------------------- reproduce */

static int differs(const char *a, const char *b)
{
    return !a || !b || strcasecmp(a, b) != 0;
}

/* 1 when lineage names sheet id at a commit whose sheet.json is blob src's. */
static int same_source(vs_store *st, const json_t *sheet, const char *id, const vs_store_blob *src)
{
    const json_t *lin = vs_sheet_get(sheet, VS_SK_LINEAGE);
    const char *lid = json_string_value(json_object_get(lin, "sheet"));
    const char *lc = json_string_value(json_object_get(lin, "commit"));
    vs_store_blob b = {0};
    vs_error e;
    int same;
    if (!lid || !lc || strcmp(lid, id))
        return 0;
    if (!strcmp(lc, src->commit))
        return 1;
    vs_error_clear(&e);
    same = vs_store_read(st, id, lc, NULL, &b, &e) == 0 && !strcmp(b.blob, src->blob);
    vs_store_blob_clear(&b);
    return same;
}

/* The target id of a reproduce, already open in the session or held in the
 * records: reopened (0, after emitting what it did) when it came from the same
 * source, refused when not; 1 when the id is free and the campaign is new. */
static int reopen_reproduced(vs_ctx *ctx, vs_store *st, const vs_line *line, const char *id,
                             const vs_store_blob *src, const vs_arg *title, const char *new_id,
                             vs_error *err)
{
    json_t *open = vs_ctx_find_sheet(ctx, new_id), *rec = NULL, *cur = NULL;
    vs_store_blob b = {0};
    vs_records_reproduce shown;
    vs_bundle *bundle;
    vs_error e;
    int rc = 0, from_records = 0;
    vs_error_clear(&e);
    if (!open) {
        int lr = vs_verbs_records_load_sheet(st, new_id, NULL, &rec, &b, &e);
        if (lr == VS_ENOTFOUND)
            return 1;
        if (lr < 0) {
            if (err)
                *err = e;
            return vs_verbs_records_at_line(line, err, lr);
        }
        from_records = 1;
    }
    if (!same_source(st, open ? open : rec, id, src)) {
        rc = vs_error_set_at(err, VS_EVALUE, title->line, title->column,
                             "a sheet with id '%s' is already %s, and not from %s at %.12s: "
                             "choose another title for the new campaign",
                             new_id, open ? "open in this session" : "in the records", id,
                             src->commit);
        goto done;
    }
    if (from_records) {
        if ((rc = vs_ctx_add_sheet(ctx, rec, b.blob, err)) < 0) {
            rec = NULL;
            goto done;
        }
        rec = NULL;
    } else if ((rc = vs_ctx_open_sheet(ctx, title->value, &cur, err)) < 0) {
        goto done;
    }
    memset(&shown, 0, sizeof shown);
    shown.sheet = new_id;
    shown.title = title->value;
    shown.source = id;
    shown.commit = src->commit;
    if (!(bundle = vs_records_reopened_bundle(&shown, from_records))) {
        rc = vs_error_oom(err);
        goto done;
    }
    vs_ctx_emit(ctx, bundle);
    rc = 0;
done:
    json_decref(rec);
    vs_store_blob_clear(&b);
    return rc;
}

/* The offer NAME on the current sheet, exactly as `gpu "NAME"` adds it: the
 * line is made here and run by the gpu verb, so that the catalogue, the checks
 * and the result are that verb's. Errors point at the reproduce line. */
static int add_gpu_offer(vs_ctx *ctx, const vs_line *at, const char *name, vs_error *err)
{
    vs_buf text = VS_BUF_INIT;
    int rc;
    vs_buf_puts(&text, "gpu ");
    vs_verbs_gpu_put_name(&text, name);
    vs_buf_putc(&text, '\n');
    rc = vs_buf_failed(&text) ? vs_error_oom(err) : vs_verbs_gpu_run_lines(ctx, at, &text, err);
    vs_buf_free(&text);
    return rc;
}

int vs_verb_reproduce(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    static const char *const syntax =
        "reproduce SHEET[@REV] as \"TITLE\" [gpu=\"NAME\" [keep_offers=yes]] "
        "[software=\"VERSIONS\"] [engine=\"NAME [key=value ...]\"] [length=N] "
        "[concurrency=N] [format=NAME]";
    static const char *const keys[] = {"gpu",    "keep_offers", "software",    "format",
                                       "length", "engine",      "concurrency", NULL};
    static const char *const carried[] = {
        "card",   "weights_files", "components", "placement",  "stages",
        "offers", "requirements",  "runs",       "invalidate", NULL};
    const vs_arg *src = vs_line_positional(line, 0), *as = vs_line_positional(line, 1);
    const vs_arg *title = vs_line_positional(line, 2);
    const vs_arg *gpu = vs_line_pair(line, "gpu"), *sw = vs_line_pair(line, "software");
    const vs_arg *keep = vs_line_pair(line, "keep_offers"), *eng = vs_line_pair(line, "engine");
    vs_buf card = VS_BUF_INIT;
    json_t *old = NULL, *fresh = NULL, *ms, *m, *lineage = NULL, *facts = NULL;
    vs_bundle *bundle;
    int keep_offers = 0;
    vs_store *st = NULL;
    vs_store_blob blob = {0};
    vs_records_reproduce shown;
    char id[VS_SHEET_ID_MAX], new_id[VS_SHEET_ID_MAX];
    const char *rev = NULL;
    char why[VS_ERROR_MESSAGE_MAX];
    size_t i, marked = 0, nm;
    int rc;
    memset(&shown, 0, sizeof shown);
    if ((rc = vs_line_check_keys(line, keys, err)) < 0)
        return rc;
    if (!src || !as || strcmp(as->value, "as") || !title || !*title->value)
        return vs_error_set_at(err, VS_EVALUE, line->line, line->column, "expected `%s`", syntax);
    if ((rc = vs_line_no_extra(line, 3, syntax, err)) < 0)
        return rc;
    if (keep && (!gpu || (strcmp(keep->value, "yes") && strcmp(keep->value, "no"))))
        return vs_error_set_at(err, VS_EVALUE, keep->line, keep->value_column,
                               "keep_offers=yes|no goes with gpu=\"NAME\": whether the source's "
                               "offers stay beside the new GPU");
    keep_offers = keep && !strcmp(keep->value, "yes");
    if ((rc = vs_store_parse_spec(src->value, id, sizeof id, &rev, err)) < 0)
        return vs_arg_error(src, err, rc);
    vs_sheet_slug(title->value, new_id, sizeof new_id);
    /* The new campaign under the source's own id would commit over the source's
     * history (and its lineage would name itself); refused here whether or not
     * the source is open in this session. */
    if (!strcmp(new_id, id))
        return vs_error_set_at(err, VS_EVALUE, title->line, title->column,
                               "the title \"%s\" gives the id '%s', the source sheet's own: "
                               "choose another title for the new campaign",
                               title->value, new_id);
    if ((rc = vs_verbs_records_open_store(ctx, &st, err)) < 0)
        goto fail_line;
    if ((rc = vs_verbs_records_load_sheet(st, id, rev, &old, &blob, err)) < 0) {
        vs_arg_error(src, err, rc);
        goto done;
    }
    /* Run again (the same kernel, or a new one against the same records): the
     * campaign this line started before, from this same source, is reopened. */
    if ((rc = reopen_reproduced(ctx, st, line, id, &blob, title, new_id, err)) != 1)
        goto done;
    rc = 0;
    if (!(fresh = vs_sheet_new(title->value))) {
        rc = vs_error_oom(err);
        goto done;
    }
    for (i = 0; carried[i]; i++) {
        json_t *v = json_object_get(old, carried[i]);
        if (v)
            json_object_set_new(fresh, carried[i], json_deep_copy(v));
    }
    /* gpu= is the campaign's GPU: the new sheet's offer is that GPU (added below
     * through the `gpu` verb, catalogue and all), the source's offers go unless
     * keep_offers=yes */
    if (gpu && !keep_offers)
        json_object_set_new(fresh, "offers", json_array());
    /* Evidence was gathered for the old hardware and software: it only carries
     * over when the campaign keeps both. */
    if (!gpu && !sw && !eng && vs_sheet_get(old, VS_SK_EVIDENCE))
        json_object_set_new(fresh, "evidence", json_deep_copy(vs_sheet_get(old, VS_SK_EVIDENCE)));
    json_object_set_new(fresh, "lineage",
                        json_pack("{s:s, s:s, s:s?}", "sheet", id, "commit", blob.commit, "title",
                                  vs_sheet_get_str(old, VS_SK_TITLE)));
    ms = json_deep_copy(vs_sheet_get(old, VS_SK_MEASUREMENTS));
    if (!json_is_array(ms)) {
        json_decref(ms);
        ms = json_array();
    }
    nm = json_array_size(ms);
    json_array_foreach(ms, i, m)
    {
        const char *gn = json_string_value(json_object_get(m, "gpu_name"));
        /* engine= is a change of software as much as software= */
        int stale = sw != NULL || eng != NULL || (gpu && differs(gn, gpu->value));
        if (stale) {
            json_object_set_new(m, "state", json_string("to re-measure"));
            json_object_set_new(m, "validates_card", json_false());
            marked++;
        } else if (!json_object_get(m, "state")) {
            json_object_set_new(m, "state", json_string("current"));
        }
    }
    json_object_set_new(fresh, "measurements", ms);
    vs_sheet_refresh_derived(fresh);
    shown.sheet = new_id;
    shown.title = title->value;
    shown.source = id;
    shown.rev = rev;
    shown.commit = blob.commit;
    shown.gpu = gpu ? gpu->value : NULL;
    shown.keep_offers = keep_offers;
    shown.offers_left = gpu && !keep_offers ? json_array_size(vs_sheet_get(old, VS_SK_OFFERS)) : 0;
    shown.software = sw ? sw->value : NULL;
    shown.engine = eng ? eng->value : NULL;
    shown.marked = marked;
    shown.measurements = nm;
    lineage = json_incref(vs_sheet_get(fresh, VS_SK_LINEAGE));
    if (!(facts = json_object())) {
        rc = vs_error_oom(err);
        goto done;
    }
    rc = vs_ctx_add_sheet(ctx, fresh, NULL, err);
    fresh = NULL;
    if (rc < 0)
        goto fail_line;
    /* the offer first, then the card's changes, the campaign's summary last
     * (the cell's result); a name the catalogue does not know leaves the
     * campaign without that offer, and the summary says so and how to add it */
    if (gpu && (rc = add_gpu_offer(ctx, line, gpu->value, err)) < 0) {
        if (rc != VS_ENOTFOUND)
            goto done;
        snprintf(why, sizeof why, "%s", err->message);
        vs_error_clear(err);
        shown.offer_missing = why;
    }
    if ((rc = vs_reproduce_card_apply(ctx, line, facts, &card, err)) < 0)
        goto done;
    shown.card = card.len ? vs_buf_str(&card) : NULL;
    if (!(bundle = vs_records_reproduce_bundle(&shown, lineage, facts))) {
        rc = vs_error_oom(err);
        goto done;
    }
    vs_ctx_emit(ctx, bundle);
    rc = 0;
    goto done;
fail_line:
    vs_verbs_records_at_line(line, err, rc);
done:
    json_decref(old);
    json_decref(fresh);
    json_decref(lineage);
    json_decref(facts);
    vs_store_blob_clear(&blob);
    vs_store_free(st);
    vs_buf_free(&card);
    return rc;
}
