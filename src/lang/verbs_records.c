/* Records verbs: commit, history, show, diff, reproduce, records (push, pull).
 *
 * They join the session's sheets to the git records (src/store/): a sheet is
 * written as canonical JSON (vs_sheet_dump) with its Markdown page beside it.
 * The runtime key "_base_blob" of a sheet remembers the sheet.json blob it was
 * loaded from or last committed as, so that a commit can tell a concurrent
 * change of the same sheet from its own history. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "lang/verb.h"
#include "render/bundle.h"
#include "render/diff.h"
#include "render/markdown.h"
#include "sheet/derived.h"
#include "sheet/diff.h"
#include "sheet/sheet.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/error.h"

/* Errors of the store are about the records; they point at the line's verb. */
static int at_line(const vs_line *line, vs_error *err, int rc)
{
    if (err && err->line == 0) {
        err->line = line->line;
        err->column = line->column;
    }
    return rc;
}

/* The sheet an optional SHEET[@REV] argument names, else the current sheet
 * (rev stays as the caller set it). */
static int sheet_spec(vs_ctx *ctx, const vs_arg *a, char *id, size_t idlen, const char **rev,
                      vs_error *err)
{
    json_t *s;
    int rc;
    if (a) {
        if ((rc = vs_store_parse_spec(a->value, id, idlen, rev, err)) < 0)
            return vs_arg_error(a, err, rc);
        return 0;
    }
    /* no sheet named and none open: say so, rather than open "untitled" */
    if (!json_array_size(vs_ctx_sheets(ctx)))
        return vs_error_set(err, VS_EVALUE,
                            "no sheet is open in this session: name one (`history SHEET`, "
                            "`show SHEET`) or open one with `sheet \"TITLE\"`");
    if (!(s = vs_ctx_sheet(ctx)))
        return vs_oom(err);
    snprintf(id, idlen, "%s", json_string_value(json_object_get(s, "id")));
    return 0;
}

/* Opens the records in force; what opening repaired (a commit killed halfway)
 * is said at once, whatever the verb does next. */
static int open_store(vs_ctx *ctx, vs_store **st, vs_error *err)
{
    const char *path = vs_ctx_records_path(ctx);
    int rc = vs_store_open(st, path, err);
    if (rc == 0 && *vs_store_notice(*st)) {
        vs_buf b = VS_BUF_INIT;
        vs_buf_printf(&b, "records: %s\n", vs_store_notice(*st));
        if (!vs_buf_failed(&b))
            vs_ctx_stream(ctx, "stdout", vs_buf_str(&b), b.len);
        vs_buf_free(&b);
    }
    return rc;
}

/* Loads sheets/<id>/sheet.json at rev into a new sheet with its _base_blob set. */
static int load_sheet(vs_store *st, const char *id, const char *rev, json_t **out,
                      vs_store_blob *blob, vs_error *err)
{
    int rc;
    *out = NULL;
    if ((rc = vs_store_read(st, id, rev, NULL, blob, err)) < 0)
        return rc;
    if ((rc = vs_sheet_load(out, blob->data, blob->len, err)) < 0) {
        vs_error_prefix(err, "sheets/%s/sheet.json at %.12s: ", id, blob->commit);
        vs_store_blob_clear(blob);
        return rc;
    }
    json_object_set_new(*out, "_base_blob", json_string(blob->blob));
    vs_sheet_refresh_derived(*out);
    return 0;
}

/* The warning when the sheet's recorded version and this one differ on more
 * than one axis (model, format, length, ...); "" otherwise. */
static void axes_warning(vs_store *st, const char *id, const json_t *sheet, vs_buf *out)
{
    vs_store_blob b = {0};
    json_t *prev = NULL;
    vs_error e;
    vs_error_clear(&e);
    if (vs_store_read(st, id, NULL, NULL, &b, &e) == 0 &&
        vs_sheet_load(&prev, b.data, b.len, &e) == 0)
        vs_diff_axes_warning(vs_diff_axes(prev, sheet), out);
    json_decref(prev);
    vs_store_blob_clear(&b);
}

/* ------------------------------------------------------------------ commit */

/* 1 when two measurements are the same but for when they were recorded (and
 * what is derived from the card of the moment). */
static int same_measurement(const json_t *a, const json_t *b)
{
    json_t *x = json_copy((json_t *)a), *y = json_copy((json_t *)b);
    int same;
    json_object_del(x, "time");
    json_object_del(y, "time");
    json_object_del(x, "validates_card");
    json_object_del(y, "validates_card");
    same = x && y && json_equal(x, y);
    json_decref(x);
    json_decref(y);
    return same;
}

#define RESTATE_REVISIONS 64

/* A measurement restated by a cell run again (in a new kernel: the same line,
 * so the same fields but a new time) is the one the records hold: it keeps the
 * time it was first recorded there, so that the same state is the same bytes
 * and its commit writes nothing. Looks at the sheet's last revisions. */
static void adopt_recorded_times(vs_store *st, const char *id, json_t *sheet)
{
    json_t *ms = vs_sheet_array(sheet, "measurements"), *m, *t;
    vs_store_revisions h = {0};
    char *done;
    size_t r, i, j, n = json_array_size(ms);
    vs_error e;
    vs_error_clear(&e);
    if (!n || vs_store_history(st, id, RESTATE_REVISIONS, &h, &e) < 0)
        return;
    if (!(done = calloc(n, 1))) {
        vs_store_revisions_clear(&h);
        return;
    }
    for (r = 0; r < h.n; r++) {
        vs_store_blob b = {0};
        json_t *rec = NULL;
        if (vs_store_read(st, id, h.revs[r].commit, NULL, &b, &e) == 0 &&
            vs_sheet_load(&rec, b.data, b.len, &e) == 0) {
            json_array_foreach(ms, i, m)
            {
                if (done[i])
                    continue;
                vs_json_array_foreach(vs_sheet_array(rec, "measurements"), j, t)
                {
                    if (same_measurement(m, t)) {
                        json_object_set(m, "time", json_object_get(t, "time"));
                        done[i] = 1;
                        break;
                    }
                }
            }
        }
        json_decref(rec);
        vs_store_blob_clear(&b);
    }
    free(done);
    vs_store_revisions_clear(&h);
}

static int verb_commit(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    static const char *const syntax = "commit \"MESSAGE\" [replace]";
    const vs_arg *m = vs_line_positional(line, 0), *w = vs_line_positional(line, 1);
    json_t *sheet = vs_ctx_sheet(ctx), *payload;
    vs_store *st = NULL;
    vs_store_write wr;
    vs_store_commit_info info;
    vs_buf msg = VS_BUF_INIT, text = VS_BUF_INIT, html = VS_BUF_INIT, warn = VS_BUF_INIT;
    char *json = NULL, *md = NULL;
    const char *id;
    int rc;
    if ((rc = vs_line_check_keys(line, NULL, err)) < 0)
        return rc;
    if (!sheet)
        return vs_oom(err);
    if (!m || !*m->value)
        return vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                               "expected `%s`: say what this state of the sheet is", syntax);
    if (w && strcmp(w->value, "replace"))
        return vs_error_set_at(err, VS_EVALUE, w->line, w->column, "unexpected '%s'; expected `%s`",
                               w->value, syntax);
    if ((rc = vs_line_no_extra(line, 2, syntax, err)) < 0)
        return rc;
    id = json_string_value(json_object_get(sheet, "id"));
    if (!id || !vs_sheet_id_valid(id))
        return vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                               "the current sheet has no valid id");
    if ((rc = open_store(ctx, &st, err)) < 0)
        goto fail;
    adopt_recorded_times(st, id, sheet);
    /* What is derived from the card is written as the card is now. */
    vs_sheet_refresh_derived(sheet);
    json = vs_sheet_dump(sheet);
    md = vs_markdown_sheet(sheet);
    vs_buf_printf(&msg, "%s: %s", id, m->value);
    if (!json || !md || vs_buf_failed(&msg)) {
        rc = vs_oom(err);
        goto done;
    }
    axes_warning(st, id, sheet, &warn);
    memset(&wr, 0, sizeof wr);
    wr.sheet_id = id;
    wr.json = json;
    wr.json_len = strlen(json);
    wr.md = md;
    wr.md_len = strlen(md);
    wr.message = vs_buf_str(&msg);
    wr.expected_blob = json_string_value(json_object_get(sheet, "_base_blob"));
    wr.replace = w != NULL;
    if ((rc = vs_store_commit(st, &wr, &info, err)) < 0)
        goto fail;
    json_object_set_new(sheet, "_base_blob", json_string(info.blob));
    if (info.unchanged && info.held_earlier) {
        vs_buf_printf(&text,
                      "Unchanged: the records %s already hold this state of sheet %s, "
                      "at commit %s (branch %s has newer revisions of it since); nothing "
                      "was written. The sheet goes on from that revision\n",
                      vs_store_path(st), id, info.commit, info.branch);
    } else if (info.unchanged) {
        vs_buf_printf(&text,
                      "Unchanged: the records %s already hold this state of sheet %s "
                      "(branch %s, written at commit %s); nothing was written\n",
                      vs_store_path(st), id, info.branch, info.commit);
    } else {
        vs_ctx_effect(ctx, "committed %s@%.12s to %s", id, info.commit, vs_store_path(st));
        vs_buf_printf(&text, "Committed sheet %s to %s (branch %s%s)\ncommit %s\nmessage: %s\n", id,
                      vs_store_path(st), info.branch, info.created ? ", repository created" : "",
                      info.commit, vs_buf_str(&msg));
    }
    if (*info.joined)
        vs_buf_printf(&text,
                      "This commit joins the remote's %.12s: each sheet changed on both "
                      "sides keeps the version chosen here (theirs stay in history), the "
                      "other sheets come from the side that changed them; `records push` "
                      "now goes through.\n",
                      info.joined);
    if (info.attempts > 1)
        vs_buf_printf(&text,
                      "(other writers moved the branch meanwhile: built again on the new "
                      "tip, %d attempts)\n",
                      info.attempts);
    if (*info.warning)
        vs_buf_printf(&text, "warning: %s\n", info.warning);
    if (!info.unchanged && warn.len)
        vs_buf_printf(&text, "warning: %s\n", vs_buf_str(&warn));
    vs_buf_puts(&html, info.unchanged ? "<p>Unchanged (nothing written): sheet <code>"
                                      : "<p>Committed sheet <code>");
    vs_buf_put_html(&html, id);
    vs_buf_puts(&html, "</code> to <code>");
    vs_buf_put_html(&html, vs_store_path(st));
    vs_buf_printf(&html, "</code> (branch <code>%s</code>): commit <code>%s</code></p>\n",
                  info.branch, info.commit);
    if (*info.warning) {
        vs_buf_puts(&html, "<p>warning: ");
        vs_buf_put_html(&html, info.warning);
        vs_buf_puts(&html, "</p>\n");
    }
    if (!info.unchanged && warn.len) {
        vs_buf_puts(&html, "<p>warning: ");
        vs_buf_put_html(&html, vs_buf_str(&warn));
        vs_buf_puts(&html, "</p>\n");
    }
    payload = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:b, s:i, s:b, s:b, s:s?, s:s?}", "kind",
                        "commit", "sheet", id, "commit", info.commit, "branch", info.branch,
                        "records", vs_store_path(st), "blob", info.blob, "created", info.created,
                        "attempts", info.attempts, "unchanged", info.unchanged, "held_earlier",
                        info.held_earlier, "joined", *info.joined ? info.joined : NULL, "warning",
                        !info.unchanged && warn.len ? vs_buf_str(&warn) : NULL);
    rc = vs_ctx_emit_text(ctx, &text, &html, payload, err);
    goto done;
fail:
    at_line(line, err, rc);
done:
    vs_store_free(st);
    free(json);
    free(md);
    vs_buf_free(&msg);
    vs_buf_free(&text);
    vs_buf_free(&html);
    vs_buf_free(&warn);
    return rc;
}

/* ----------------------------------------------------------------- history */

static int verb_history(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    static const char *const keys[] = {"limit", NULL};
    static const char *const headers[] = {"commit", "time", "message"};
    const vs_arg *a = vs_line_positional(line, 0);
    json_t *revs = NULL, *payload;
    vs_store *st = NULL;
    vs_store_revisions h = {0};
    vs_table *t = NULL;
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
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
    if ((rc = sheet_spec(ctx, a, id, sizeof id, &rev, err)) < 0)
        return rc;
    if ((rc = open_store(ctx, &st, err)) < 0 ||
        (rc = vs_store_history(st, id, (size_t)limit, &h, err)) < 0) {
        at_line(line, err, rc);
        goto done;
    }
    if (!(t = vs_table_new(3, headers)) || !(revs = json_array())) {
        rc = vs_oom(err);
        goto done;
    }
    for (i = 0; i < h.n; i++) {
        char when[80], shortc[16];
        const char *cells[3];
        vs_clock_iso_offset(when, sizeof when, h.revs[i].time, h.revs[i].offset);
        snprintf(shortc, sizeof shortc, "%.12s", h.revs[i].commit);
        cells[0] = shortc;
        cells[1] = when;
        cells[2] = h.revs[i].message;
        vs_table_add_row(t, cells);
        json_array_append_new(revs, json_pack("{s:s, s:s, s:s, s:I}", "commit", h.revs[i].commit,
                                              "message", h.revs[i].message, "time", when, "epoch",
                                              (json_int_t)h.revs[i].time));
    }
    if (h.n == 0) {
        vs_buf_printf(&text, "Sheet %s has no revisions in %s yet (`commit \"...\"` records it).\n",
                      id, vs_store_path(st));
        vs_buf_puts(&html, "<p>");
        vs_buf_put_html(&html, vs_buf_str(&text));
        vs_buf_puts(&html, "</p>\n");
    } else {
        vs_buf_printf(&text, "History of sheet %s in %s, newest first (%zu revision%s):\n\n", id,
                      vs_store_path(st), h.n, h.n == 1 ? "" : "s");
        vs_table_text(t, &text);
        vs_buf_printf(&html, "<p>History of sheet <code>%s</code>, newest first</p>\n", id);
        vs_table_html(t, &html);
        if (vs_table_failed(t))
            text.failed = 1;
    }
    payload = json_pack("{s:s, s:s, s:s, s:O}", "kind", "history", "sheet", id, "records",
                        vs_store_path(st), "revisions", revs);
    rc = vs_ctx_emit_text(ctx, &text, &html, payload, err);
done:
    json_decref(revs);
    vs_table_free(t);
    vs_store_revisions_clear(&h);
    vs_store_free(st);
    vs_buf_free(&text);
    vs_buf_free(&html);
    return rc;
}

/* -------------------------------------------------------------------- show */

static void html_pre(vs_buf *html, const char *text)
{
    vs_buf_puts(html, "<pre class='vramsheet-sheet'>");
    vs_buf_put_html(html, text);
    vs_buf_puts(html, "</pre>\n");
}

static int verb_show(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    static const char *const syntax = "show SHEET[@REV]";
    const vs_arg *a = vs_line_positional(line, 0);
    json_t *sheet = NULL, *payload = NULL;
    vs_store *st = NULL;
    vs_store_blob blob = {0};
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    char id[VS_SHEET_ID_MAX], *md = NULL;
    const char *rev = NULL;
    int rc, loaded = 0;
    if ((rc = vs_line_check_keys(line, NULL, err)) < 0)
        return rc;
    if ((rc = vs_line_no_extra(line, 1, syntax, err)) < 0)
        return rc;
    if ((rc = sheet_spec(ctx, a, id, sizeof id, &rev, err)) < 0)
        return rc;
    if ((rc = open_store(ctx, &st, err)) < 0 ||
        (rc = load_sheet(st, id, rev, &sheet, &blob, err)) < 0) {
        vs_arg_error(a, err, rc);
        if (!a)
            at_line(line, err, rc);
        goto done;
    }
    md = vs_markdown_sheet(sheet);
    payload = json_deep_copy(sheet);
    if (!md || !payload) {
        rc = vs_oom(err);
        goto done;
    }
    json_object_del(payload, "_base_blob");
    json_object_set_new(payload, "kind", json_string("sheet"));
    json_object_set_new(payload, "revision",
                        json_pack("{s:s, s:s, s:s}", "commit", blob.commit, "blob", blob.blob,
                                  "records", vs_store_path(st)));
    if (!vs_ctx_find_sheet(ctx, id)) {
        if ((rc = vs_ctx_add_sheet(ctx, sheet, err)) < 0) {
            sheet = NULL;
            goto done;
        }
        sheet = NULL;
        loaded = 1;
    }
    vs_buf_printf(&text, "Sheet %s at %s (commit %s)%s\n\n%s", id, rev ? rev : "the tip",
                  blob.commit,
                  loaded ? ", now open as the current sheet"
                         : " (a sheet of this id is already open in this session: it was left "
                           "as it is)",
                  md);
    vs_buf_printf(
        &html, "<p>Sheet <code>%s</code> at commit <code>%s</code>%s</p>\n", id, blob.commit,
        loaded ? ", now open as the current sheet" : " (the open sheet was left as it is)");
    html_pre(&html, md);
    rc = vs_ctx_emit_text(ctx, &text, &html, payload, err);
    payload = NULL;
done:
    json_decref(payload);
    json_decref(sheet);
    free(md);
    vs_store_blob_clear(&blob);
    vs_store_free(st);
    vs_buf_free(&text);
    vs_buf_free(&html);
    return rc;
}

/* -------------------------------------------------------------------- diff */

static int verb_diff(vs_ctx *ctx, const vs_line *line, vs_error *err)
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
    if ((rc = open_store(ctx, &st, err)) < 0)
        goto fail_line;
    if ((rc = load_sheet(st, id, rev1, &from, &b1, err)) < 0) {
        vs_arg_error(a1, err, rc);
        goto done;
    }
    snprintf(l1, sizeof l1, "%s@%.12s", id, b1.commit);
    if (a2) {
        if ((rc = load_sheet(st, id, rev2, &to, &b2, err)) < 0) {
            vs_arg_error(a2, err, rc);
            goto done;
        }
        snprintf(l2, sizeof l2, "%s@%.12s", id, b2.commit);
        to_ref = to;
    } else if ((to_ref = vs_ctx_find_sheet(ctx, id))) {
        snprintf(l2, sizeof l2, "%s", "this session");
    } else {
        if ((rc = load_sheet(st, id, NULL, &to, &b2, err)) < 0)
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
        rc = vs_oom(err);
        goto done;
    }
    vs_ctx_emit(ctx, bundle);
    rc = 0;
    goto done;
fail_line:
    at_line(line, err, rc);
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
    const json_t *lin = json_object_get(sheet, "lineage");
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
    json_t *open = vs_ctx_find_sheet(ctx, new_id), *rec = NULL, *cur = NULL, *payload;
    vs_store_blob b = {0};
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    vs_error e;
    int rc = 0, from_records = 0;
    vs_error_clear(&e);
    if (!open) {
        int lr = load_sheet(st, new_id, NULL, &rec, &b, &e);
        if (lr == VS_ENOTFOUND)
            return 1;
        if (lr < 0) {
            if (err)
                *err = e;
            return at_line(line, err, lr);
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
        if ((rc = vs_ctx_add_sheet(ctx, rec, err)) < 0) {
            rec = NULL;
            goto done;
        }
        rec = NULL;
    } else if ((rc = vs_ctx_open_sheet(ctx, title->value, &cur, err)) < 0) {
        goto done;
    }
    vs_buf_printf(&text,
                  "Sheet %s (\"%s\") was reproduced from %s at %.12s before; %s, as the "
                  "current sheet (nothing new was started).\n",
                  new_id, title->value, id, src->commit,
                  from_records ? "reopened from the records" : "it is open in this session");
    vs_buf_puts(&html, "<p>");
    vs_buf_put_html(&html, vs_buf_str(&text));
    vs_buf_puts(&html, "</p>\n");
    payload = json_pack("{s:s, s:s, s:s, s:b, s:s}", "kind", "reproduce", "sheet", new_id, "title",
                        title->value, "reopened", 1, "from", from_records ? "records" : "session");
    rc = vs_ctx_emit_text(ctx, &text, &html, payload, err);
done:
    json_decref(rec);
    vs_store_blob_clear(&b);
    vs_buf_free(&text);
    vs_buf_free(&html);
    return rc;
}

static int verb_reproduce(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    static const char *const syntax =
        "reproduce SHEET[@REV] as \"TITLE\" [gpu=\"NAME\"] [software=\"VERSIONS\"]";
    static const char *const keys[] = {"gpu", "software", NULL};
    static const char *const carried[] = {
        "card",   "weights_files", "components", "placement",  "stages",
        "offers", "requirements",  "runs",       "invalidate", NULL};
    const vs_arg *src = vs_line_positional(line, 0), *as = vs_line_positional(line, 1);
    const vs_arg *title = vs_line_positional(line, 2);
    const vs_arg *gpu = vs_line_pair(line, "gpu"), *sw = vs_line_pair(line, "software");
    json_t *old = NULL, *fresh = NULL, *ms, *m, *payload;
    vs_store *st = NULL;
    vs_store_blob blob = {0};
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    char id[VS_SHEET_ID_MAX], new_id[VS_SHEET_ID_MAX];
    const char *rev = NULL;
    size_t i, marked = 0, nm;
    int rc;
    if ((rc = vs_line_check_keys(line, keys, err)) < 0)
        return rc;
    if (!src || !as || strcmp(as->value, "as") || !title || !*title->value)
        return vs_error_set_at(err, VS_EVALUE, line->line, line->column, "expected `%s`", syntax);
    if ((rc = vs_line_no_extra(line, 3, syntax, err)) < 0)
        return rc;
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
    if ((rc = open_store(ctx, &st, err)) < 0)
        goto fail_line;
    if ((rc = load_sheet(st, id, rev, &old, &blob, err)) < 0) {
        vs_arg_error(src, err, rc);
        goto done;
    }
    /* Run again (the same kernel, or a new one against the same records): the
     * campaign this line started before, from this same source, is reopened. */
    if ((rc = reopen_reproduced(ctx, st, line, id, &blob, title, new_id, err)) != 1)
        goto done;
    rc = 0;
    if (!(fresh = vs_sheet_new(title->value))) {
        rc = vs_oom(err);
        goto done;
    }
    for (i = 0; carried[i]; i++) {
        json_t *v = json_object_get(old, carried[i]);
        if (v)
            json_object_set_new(fresh, carried[i], json_deep_copy(v));
    }
    /* Evidence was gathered for the old hardware and software: it only carries
     * over when the campaign keeps both. */
    if (!gpu && !sw && json_object_get(old, "evidence"))
        json_object_set_new(fresh, "evidence", json_deep_copy(json_object_get(old, "evidence")));
    json_object_set_new(fresh, "lineage",
                        json_pack("{s:s, s:s, s:s?}", "sheet", id, "commit", blob.commit, "title",
                                  json_string_value(json_object_get(old, "title"))));
    ms = json_deep_copy(json_object_get(old, "measurements"));
    if (!json_is_array(ms)) {
        json_decref(ms);
        ms = json_array();
    }
    nm = json_array_size(ms);
    json_array_foreach(ms, i, m)
    {
        const char *gn = json_string_value(json_object_get(m, "gpu_name"));
        int stale = sw != NULL || (gpu && differs(gn, gpu->value));
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
    vs_buf_printf(&text,
                  "New sheet %s (\"%s\") from %s at %s (commit %s): card, components, "
                  "procedure, offers, requirements and invalidating conditions carried%s.\n",
                  new_id, title->value, id, rev ? rev : "the tip", blob.commit,
                  gpu || sw ? "; evidence left behind (new hardware or software)"
                            : ", with evidence");
    if (gpu || sw)
        vs_buf_printf(&text,
                      "The new campaign changes %s%s%s%s%s: %zu of %zu measurement%s marked "
                      "\"to re-measure\".\n",
                      gpu ? "the GPU to " : "", gpu ? gpu->value : "", gpu && sw ? " and " : "",
                      sw ? "the software to " : "", sw ? sw->value : "", marked, nm,
                      nm == 1 ? "" : "s");
    else
        vs_buf_printf(&text,
                      "Same hardware and software: the %zu measurement%s stay current (say "
                      "gpu=\"NAME\" or software=\"VERSIONS\" when they change).\n",
                      nm, nm == 1 ? "" : "s");
    vs_buf_puts(&text, "It is the current sheet now; `commit \"...\"` records it.\n");
    vs_buf_puts(&html, "<p>");
    vs_buf_put_html(&html, vs_buf_str(&text));
    vs_buf_puts(&html, "</p>\n");
    payload = json_pack("{s:s, s:s, s:s, s:O, s:i, s:i, s:s?, s:s?}", "kind", "reproduce", "sheet",
                        new_id, "title", title->value, "lineage", json_object_get(fresh, "lineage"),
                        "to_remeasure", (int)marked, "measurements", (int)nm, "gpu",
                        gpu ? gpu->value : NULL, "software", sw ? sw->value : NULL);
    rc = vs_ctx_add_sheet(ctx, fresh, err);
    fresh = NULL;
    if (rc < 0) {
        json_decref(payload);
        goto fail_line;
    }
    rc = vs_ctx_emit_text(ctx, &text, &html, payload, err);
    goto done;
fail_line:
    at_line(line, err, rc);
done:
    json_decref(old);
    json_decref(fresh);
    vs_store_blob_clear(&blob);
    vs_store_free(st);
    vs_buf_free(&text);
    vs_buf_free(&html);
    return rc;
}

/* ----------------------------------------------------------------- records */

static int records_info(vs_ctx *ctx, const vs_line *line, const char *said, vs_error *err)
{
    vs_store *st = NULL;
    vs_store_revisions h = {0};
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    char branch[VS_STORE_BRANCH_MAX] = "main", **ids = NULL;
    size_t n = 0, i;
    json_t *list = NULL, *payload;
    int rc;
    if ((rc = open_store(ctx, &st, err)) < 0 ||
        (rc = vs_store_branch(st, branch, sizeof branch, err)) < 0 ||
        (rc = vs_store_list(st, NULL, &ids, &n, err)) < 0 ||
        (rc = vs_store_history(st, NULL, 1, &h, err)) < 0) {
        at_line(line, err, rc);
        goto done;
    }
    if (!(list = json_array())) {
        rc = vs_oom(err);
        goto done;
    }
    for (i = 0; i < n; i++)
        json_array_append_new(list, json_string(ids[i]));
    vs_buf_printf(&text, "%sRecords: %s\n", said ? said : "", vs_store_path(st));
    if (!vs_store_exists(st))
        vs_buf_puts(&text, "Not created yet: the first `commit` creates it (a git repository, "
                           "branch main).\n");
    else
        vs_buf_printf(&text, "A %s git repository, branch %s, %zu sheet%s%s%s%s\n",
                      vs_store_is_bare(st) ? "bare" : "work-tree", branch, n, n == 1 ? "" : "s",
                      h.n ? ", last commit " : "", h.n ? h.revs[0].commit : "",
                      h.n ? "" : ", no commit yet");
    for (i = 0; i < n; i++)
        vs_buf_printf(&text, "  %s\n", ids[i]);
    vs_buf_puts(&html, "<pre>");
    vs_buf_put_html(&html, vs_buf_str(&text));
    vs_buf_puts(&html, "</pre>\n");
    payload =
        json_pack("{s:s, s:s, s:b, s:b, s:s, s:O, s:s?}", "kind", "records", "path",
                  vs_store_path(st), "exists", vs_store_exists(st), "bare", vs_store_is_bare(st),
                  "branch", branch, "sheets", list, "tip", h.n ? h.revs[0].commit : NULL);
    rc = vs_ctx_emit_text(ctx, &text, &html, payload, err);
done:
    for (i = 0; i < n; i++)
        free(ids[i]);
    free(ids);
    json_decref(list);
    vs_store_revisions_clear(&h);
    vs_store_free(st);
    vs_buf_free(&text);
    vs_buf_free(&html);
    return rc;
}

/* After a pull: each sheet that arrived is written with what is derived from
 * its card recomputed (another kernel may have recorded a stale
 * validates_card); a sheet that needs it gets one commit saying so. */
static int refresh_pulled(vs_ctx *ctx, vs_store *st, const vs_store_sync *s, vs_buf *text,
                          json_t *fixed, vs_error *err)
{
    char **ids = NULL;
    size_t n = 0, i;
    int rc;
    if ((rc = vs_store_list(st, NULL, &ids, &n, err)) < 0)
        return rc;
    for (i = 0; i < n && rc == 0; i++) {
        vs_store_blob now = {0}, was = {0};
        json_t *sheet = NULL, *open;
        const char *base;
        vs_error e;
        int changed;
        vs_error_clear(&e);
        if (vs_store_read(st, ids[i], NULL, NULL, &now, &e) < 0)
            continue;
        if (*s->local_before && vs_store_read(st, ids[i], s->local_before, NULL, &was, &e) == 0 &&
            !strcmp(was.blob, now.blob)) {
            vs_store_blob_clear(&was);
            vs_store_blob_clear(&now);
            continue; /* not changed by this pull */
        }
        vs_store_blob_clear(&was);
        if (vs_sheet_load(&sheet, now.data, now.len, &e) == 0 &&
            (changed = vs_sheet_refresh_derived(sheet)) > 0) {
            char *json = vs_sheet_dump(sheet), *md = vs_markdown_sheet(sheet);
            vs_buf msg = VS_BUF_INIT;
            vs_store_write w;
            vs_store_commit_info info;
            vs_buf_printf(&msg, "%s: validates_card recomputed from the card (records pull)",
                          ids[i]);
            memset(&w, 0, sizeof w);
            w.sheet_id = ids[i];
            w.json = json;
            w.json_len = json ? strlen(json) : 0;
            w.md = md;
            w.md_len = md ? strlen(md) : 0;
            w.message = vs_buf_str(&msg);
            w.expected_blob = now.blob;
            if (!json || !md || vs_buf_failed(&msg))
                rc = vs_oom(err);
            else if ((rc = vs_store_commit(st, &w, &info, err)) == 0) {
                vs_buf_printf(text,
                              "Sheet %s: validates_card recomputed from its card for %d "
                              "measurement%s, recorded as commit %s.\n",
                              ids[i], changed, changed == 1 ? "" : "s", info.commit);
                vs_ctx_effect(ctx, "committed %s@%.12s to %s", ids[i], info.commit,
                              vs_store_path(st));
                json_array_append_new(fixed, json_string(ids[i]));
                /* a session copy loaded from the stale record goes on from the fix */
                open = vs_ctx_find_sheet(ctx, ids[i]);
                base = open ? json_string_value(json_object_get(open, "_base_blob")) : NULL;
                if (base && !strcmp(base, now.blob))
                    json_object_set_new(open, "_base_blob", json_string(info.blob));
            }
            free(json);
            free(md);
            vs_buf_free(&msg);
        }
        json_decref(sheet);
        vs_store_blob_clear(&now);
    }
    for (i = 0; i < n; i++)
        free(ids[i]);
    free(ids);
    return rc;
}

static int records_sync(vs_ctx *ctx, const vs_line *line, int push, const vs_arg *remote,
                        vs_error *err)
{
    vs_store *st = NULL;
    vs_store_sync s;
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    json_t *payload, *fixed = json_array();
    int rc;
    if (!fixed)
        return vs_oom(err);
    if ((rc = open_store(ctx, &st, err)) < 0)
        goto fail;
    rc = push ? vs_store_push(st, remote ? remote->value : NULL, &s, err)
              : vs_store_pull(st, remote ? remote->value : NULL, &s, err);
    if (rc < 0)
        goto fail;
    if (push) {
        if (s.up_to_date)
            vs_buf_printf(&text, "%s already has %s at %s: nothing to push.\n", s.remote, s.branch,
                          s.local_after[0] ? s.local_after : s.local_before);
        else
            vs_buf_printf(&text,
                          "Pushed %s to %s: the remote's %s is %s, read back after the "
                          "push and containing this side's tip%s.\n",
                          s.branch, s.remote, s.branch, s.remote_after,
                          s.merged ? " (the remote's new commits were merged here first)" : "");
        vs_ctx_effect(ctx, "pushed %s to %s", s.branch, s.remote);
    } else {
        if (s.up_to_date)
            vs_buf_printf(&text, "%s has nothing new for %s.\n", s.remote, s.branch);
        else
            vs_buf_printf(&text, "Pulled %s from %s: %s, now at %s.\n", s.branch, s.remote,
                          s.merged ? "merged (different sheets)" : "fast-forward", s.local_after);
        vs_ctx_effect(ctx, "pulled %s from %s", s.branch, s.remote);
        if (!s.up_to_date && (rc = refresh_pulled(ctx, st, &s, &text, fixed, err)) < 0)
            goto fail;
    }
    if (*s.warning)
        vs_buf_printf(&text, "warning: %s\n", s.warning);
    vs_buf_puts(&html, "<p>");
    vs_buf_put_html(&html, vs_buf_str(&text));
    vs_buf_puts(&html, "</p>\n");
    payload = json_pack("{s:s, s:s, s:s, s:s, s:s?, s:s?, s:s?, s:b, s:b, s:b}", "kind",
                        push ? "push" : "pull", "records", vs_store_path(st), "remote", s.remote,
                        "branch", s.branch, "before", *s.local_before ? s.local_before : NULL,
                        "after", *s.local_after ? s.local_after : NULL, "remote_tip",
                        *s.remote_after ? s.remote_after : NULL, "up_to_date", s.up_to_date,
                        "merged", s.merged, "fast_forward", s.fast_forward);
    if (payload && !push)
        json_object_set(payload, "recomputed", fixed);
    rc = vs_ctx_emit_text(ctx, &text, &html, payload, err);
    goto done;
fail:
    if (remote)
        vs_arg_error(remote, err, rc);
    else
        at_line(line, err, rc);
done:
    json_decref(fixed);
    vs_store_free(st);
    vs_buf_free(&text);
    vs_buf_free(&html);
    return rc;
}

static int verb_records(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    static const char *const syntax =
        "records [PATH] | records push [REMOTE] | records pull [REMOTE]";
    const vs_arg *a = vs_line_positional(line, 0);
    vs_store *st = NULL;
    int rc;
    if ((rc = vs_line_check_keys(line, NULL, err)) < 0)
        return rc;
    if (a && (!strcmp(a->value, "push") || !strcmp(a->value, "pull")) && !a->quoted) {
        if ((rc = vs_line_no_extra(line, 2, syntax, err)) < 0)
            return rc;
        return records_sync(ctx, line, !strcmp(a->value, "push"), vs_line_positional(line, 1), err);
    }
    if ((rc = vs_line_no_extra(line, 1, syntax, err)) < 0)
        return rc;
    if (!a)
        return records_info(ctx, line, NULL, err);
    {
        /* `records ~/x` means what it means in a shell; no shell expands it here */
        const char *home = getenv("HOME");
        vs_buf path = VS_BUF_INIT;
        if (a->value[0] == '~' && (a->value[1] == '/' || !a->value[1]) && home && *home)
            vs_buf_printf(&path, "%s%s", home, a->value + 1);
        else
            vs_buf_puts(&path, a->value);
        if (vs_buf_failed(&path))
            return vs_oom(err);
        /* Check the new path before switching to it: an unusable one changes nothing. */
        if ((rc = vs_store_open(&st, vs_buf_str(&path), err)) < 0) {
            vs_buf_free(&path);
            return vs_arg_error(a, err, rc);
        }
        vs_store_free(st);
        vs_ctx_set_records_path(ctx, vs_buf_str(&path));
        vs_buf_free(&path);
    }
    return records_info(ctx, line, "Records path set for this session.\n", err);
}

/* ------------------------------------------------------------------- table */

static const char *const no_keys[] = {NULL};
static const char *const history_keys[] = {"limit", NULL};
static const char *const reproduce_keys[] = {"gpu", "software", NULL};
static const char *const commit_words[] = {"replace", NULL};
static const char *const records_words[] = {"push", "pull", NULL};
static const char *const reproduce_words[] = {"as", NULL};

const vs_verb vs_verbs_records[] = {
    {"commit", verb_commit, "commit \"MESSAGE\" [replace]",
     "record the current sheet in the git records, as one commit",
     "commit \"MESSAGE\" writes the current sheet as sheets/<id>/sheet.json (canonical JSON) and "
     "sheets/<id>/sheet.md (for people) in one commit with the message \"<id>: MESSAGE\", on the "
     "branch of the records repository (`records` shows which; created on the first commit, "
     "branch main). The commit is built from the exact tip it is swapped against, so commits of "
     "other sheets by other kernels are never lost. If the same sheet was committed elsewhere "
     "since this session loaded it, the commit is refused (RecordsError) and nothing is written: "
     "compare with `diff`, then `commit \"MESSAGE\" replace` records this version on top (the "
     "other stays in history). A commit stays in the records even if a later line of the cell "
     "fails. Committing a state the records already hold writes nothing and says so (a "
     "notebook run again from the top, even in a new kernel). In a records repository with a "
     "work tree, the index and files follow, so `git status` stays clean; a sheet whose files "
     "there were edited by hand is refused, naming them, rather than written over. A commit "
     "that changes more than one of model, format, length, concurrency, microbatch, "
     "placement, engine and the offers says so (a warning: compare one change at a time).",
     no_keys, commit_words},
    {"history", verb_history, "history [SHEET] [limit=N]",
     "the revisions of a sheet in the records, newest first",
     "history [SHEET] lists the commits that changed sheets/<SHEET>/ (the current sheet when "
     "omitted), newest first: commit id, committer time, message. limit=N shows the last N. "
     "The payload (kind \"history\") has full 40-hex commit ids.",
     history_keys, NULL},
    {"show", verb_show, "show SHEET[@REV]",
     "print a recorded sheet (and open it if it is not open)",
     "show SHEET[@REV] reads sheets/<SHEET>/sheet.json at REV and prints it. REV is ~N, N "
     "revisions back in that sheet's own history (the commits that changed sheets/<SHEET>/, as "
     "`history SHEET` lists them: SHEET@~0 is its latest revision, SHEET@~1 the one before, "
     "whatever other sheets were committed in between), or git's own revisions: HEAD~N is N "
     "commits back on the branch (of any sheet), a commit id or prefix, a branch; the tip when "
     "omitted. If no sheet of that id is open in this "
     "session, it is opened as the current sheet, remembering the revision it came from so that "
     "its next commit detects concurrent changes. The payload (kind \"sheet\") is the whole "
     "sheet as stored, with \"revision\": {commit, blob, records}.",
     no_keys, NULL},
    {"diff", verb_diff, "diff SHEET[@REV1] [REV2]",
     "the difference between two revisions of a sheet",
     "diff SHEET@REV1 REV2 compares two revisions of a sheet: card fields, components (added, "
     "removed, changed, with bytes and the difference in bytes), placement, stages, "
     "measurements, offers, requirements, evidence, decision and invalidating conditions. "
     "REV1 and REV2 are revisions as in `help show`: ~N counts the sheet's own revisions "
     "(diff SHEET@~1 ~0 is its last change), HEAD~N counts the branch's commits. When the two "
     "differ in more than one of model, format, length, concurrency, microbatch, placement, "
     "engine and the offers, a warning says so (compare one change at a time); `commit` warns "
     "the same way against the sheet's last revision. Without REV2 the sheet open in this session "
     "(or else the tip) is compared with REV1; "
     "without @REV1 the tip is REV1. The payload has kind \"diff\" and a list of changes.",
     no_keys, NULL},
    {"reproduce", verb_reproduce,
     "reproduce SHEET[@REV] as \"TITLE\" [gpu=\"NAME\"] [software=\"VERSIONS\"]",
     "start a new campaign's sheet from a recorded one, with lineage",
     "reproduce SHEET@REV as \"TITLE\" (REV as in `help show`: SHEET@~N for the sheet's own "
     "revisions, SHEET@HEAD~N for the branch's) opens a new sheet titled TITLE carrying the card, "
     "weight "
     "files, components, placement, procedure (stages), offers, requirements, runs, "
     "measurements and invalidating conditions of SHEET at REV, with lineage {sheet, commit, "
     "title} naming the source. The decision is not carried: the new campaign decides anew. "
     "Say what the new campaign changes: gpu=\"H100\" marks every measurement taken on another "
     "GPU (its gpu_name differs, or is unknown) \"to re-measure\"; software=\"vllm 0.6, CUDA "
     "12.4\" marks every measurement \"to re-measure\" (the records keep no software version "
     "per measurement that could match). Measurements marked so no longer validate the card. "
     "Evidence carries over only when neither gpu= nor software= is given. Run again (a "
     "notebook from the top, in this kernel or a new one), a reproduce whose TITLE names a "
     "sheet already reproduced from the same source reopens that sheet (from the session, "
     "else from the records) instead of starting anew.",
     reproduce_keys, reproduce_words},
    {"records", verb_records, "records [PATH] | records push [REMOTE] | records pull [REMOTE]",
     "show or set the git records repository; push or pull it",
     "records shows the records repository in force: `records PATH` for this session, else the "
     "VRAMSHEET_RECORDS environment variable, else $XDG_DATA_HOME/vramsheet/records "
     "(~/.local/share/vramsheet/records). PATH may be a git repository with a work tree (other "
     "content is left alone: only sheets/ is written), a bare repository, or a new or empty "
     "folder (created on the first commit, branch main); an unusable path (a file, a folder "
     "that is not a repository, a repository owned by someone else) is refused and the path in "
     "force stays. `records push [REMOTE]` sends the branch to REMOTE (a git remote name, a "
     "bare repository path, a file:// URL, or any URL libgit2 supports; origin when omitted), "
     "merging the remote's new commits to other sheets first, and checks after the push that "
     "the remote's branch contains this side's tip. `records pull [REMOTE]` fetches and "
     "fast-forwards or merges. Sheets are never merged: each sheet changed on one side only "
     "is taken from that side; a sheet changed on both sides is refused (RecordsError, "
     "nothing merged or pushed, both sides keep their commits), saying how to look at theirs "
     "and keep one. A folder literally named push or pull is given as ./push.",
     no_keys, records_words},
    {0},
};
