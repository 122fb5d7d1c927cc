/* records.c (render) — the text and HTML of the records verbs. */
#include "render/records.h"

#include <jansson.h>
#include <stdio.h>

#include "render/bundle.h"
#include "render/result.h"
#include "util/clock.h"

static int has(const char *s)
{
    return s && *s;
}

/* The HTML of a result that is one sentence or paragraph: its text, escaped. */
static void html_para(const vs_buf *text, vs_buf *html)
{
    vs_buf_puts(html, "<p>");
    vs_buf_put_html(html, vs_buf_str(text));
    vs_buf_puts(html, "</p>\n");
}

static void html_warning(const char *warning, vs_buf *html)
{
    vs_buf_puts(html, "<p>warning: ");
    vs_buf_put_html(html, warning);
    vs_buf_puts(html, "</p>\n");
}

void vs_records_render_notice(const char *notice, vs_buf *text)
{
    vs_buf_printf(text, "records: %s\n", notice);
}

void vs_records_render_commit(const vs_records_commit *c, vs_buf *text, vs_buf *html)
{
    int axes = !c->unchanged && has(c->axes);
    if (c->unchanged && c->held_earlier)
        vs_buf_printf(text,
                      "Unchanged: the records %s already hold this state of sheet %s, "
                      "at commit %s (branch %s has newer revisions of it since); nothing "
                      "was written. The sheet goes on from that revision\n",
                      c->records, c->sheet, c->commit, c->branch);
    else if (c->unchanged)
        vs_buf_printf(text,
                      "Unchanged: the records %s already hold this state of sheet %s "
                      "(branch %s, written at commit %s); nothing was written\n",
                      c->records, c->sheet, c->branch, c->commit);
    else
        vs_buf_printf(text, "Committed sheet %s to %s (branch %s%s)\ncommit %s\nmessage: %s\n",
                      c->sheet, c->records, c->branch, c->created ? ", repository created" : "",
                      c->commit, c->message);
    if (has(c->joined))
        vs_buf_printf(text,
                      "This commit joins the remote's %.12s: each sheet changed on both "
                      "sides keeps the version chosen here (theirs stay in history), the "
                      "other sheets come from the side that changed them; `records push` "
                      "now goes through.\n",
                      c->joined);
    if (c->attempts > 1)
        vs_buf_printf(text,
                      "(other writers moved the branch meanwhile: built again on the new "
                      "tip, %d attempts)\n",
                      c->attempts);
    if (has(c->repaired))
        vs_buf_printf(text, "records: %s\n", c->repaired);
    if (has(c->warning))
        vs_buf_printf(text, "warning: %s\n", c->warning);
    if (axes)
        vs_buf_printf(text, "warning: %s\n", c->axes);
    vs_buf_puts(html, c->unchanged ? "<p>Unchanged (nothing written): sheet <code>"
                                   : "<p>Committed sheet <code>");
    vs_buf_put_html(html, c->sheet);
    vs_buf_puts(html, "</code> to <code>");
    vs_buf_put_html(html, c->records);
    vs_buf_printf(html, "</code> (branch <code>%s</code>): commit <code>%s</code></p>\n", c->branch,
                  c->commit);
    if (has(c->repaired)) {
        vs_buf_puts(html, "<p>records: ");
        vs_buf_put_html(html, c->repaired);
        vs_buf_puts(html, "</p>\n");
    }
    if (has(c->warning))
        html_warning(c->warning, html);
    if (axes)
        html_warning(c->axes, html);
}

void vs_records_render_history(const char *sheet, const char *records,
                               const vs_records_revision *revs, size_t n, vs_buf *text,
                               vs_buf *html)
{
    static const char *const headers[] = {"commit", "time", "message"};
    vs_table *t;
    size_t i;
    if (n == 0) {
        vs_buf_printf(text, "Sheet %s has no revisions in %s yet (`commit \"...\"` records it).\n",
                      sheet, records);
        html_para(text, html);
        return;
    }
    if (!(t = vs_table_new(3, headers))) {
        text->failed = 1;
        return;
    }
    for (i = 0; i < n; i++) {
        char when[80], shortc[16];
        const char *cells[3];
        vs_clock_iso_offset(when, sizeof when, revs[i].time, revs[i].offset);
        snprintf(shortc, sizeof shortc, "%.12s", revs[i].commit);
        cells[0] = shortc;
        cells[1] = when;
        cells[2] = revs[i].message;
        vs_table_add_row(t, cells);
    }
    vs_buf_printf(text, "History of sheet %s in %s, newest first (%zu revision%s):\n\n", sheet,
                  records, n, n == 1 ? "" : "s");
    vs_table_text(t, text);
    vs_buf_printf(html, "<p>History of sheet <code>%s</code>, newest first</p>\n", sheet);
    vs_table_html(t, html);
    if (vs_table_failed(t))
        text->failed = 1;
    vs_table_free(t);
}

/* The revisions as {commit, message, time[, epoch]}: the history result's payload
 * has always carried the epoch for programs that sort or plot it; `log --json`
 * never did, and keeps its shape. */
static json_t *revision_list(const vs_records_revision *revs, size_t n, int epoch)
{
    json_t *list = json_array();
    size_t i;
    for (i = 0; list && i < n; i++) {
        char when[80];
        json_t *one;
        vs_clock_iso_offset(when, sizeof when, revs[i].time, revs[i].offset);
        one = json_pack("{s:s, s:s, s:s}", "commit", revs[i].commit, "message", revs[i].message,
                        "time", when);
        if (one && epoch)
            json_object_set_new(one, "epoch", json_integer((json_int_t)revs[i].time));
        json_array_append_new(list, one);
    }
    return list;
}

vs_bundle *vs_records_history_bundle(const char *sheet, const char *records,
                                     const vs_records_revision *revs, size_t n,
                                     const char *truncated)
{
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    json_t *list = revision_list(revs, n, 1);
    vs_records_render_history(sheet, records, revs, n, &text, &html);
    if (truncated) {
        /* a shallow clone: what is older than its boundary is not here */
        static const char said[] =
            "The records here are a shallow clone: this history stops at %.12s, the clone's "
            "boundary (older revisions are not here; `git fetch --unshallow` in the records "
            "fetches them).";
        vs_buf_printf(&text, "\n");
        vs_buf_printf(&text, said, truncated);
        vs_buf_printf(&text, "\n");
        vs_buf_printf(&html, "<p>");
        vs_buf_printf(&html, said, truncated);
        vs_buf_printf(&html, "</p>\n");
    }
    return vs_render_finish(&text, &html, NULL,
                            json_pack("{s:s, s:s, s:s, s:o, s:s?}", "kind", "history", "sheet",
                                      sheet, "records", records, "revisions", list, "truncated_at",
                                      truncated));
}

json_t *vs_records_log_payload(const char *sheet, const char *records,
                               const vs_records_revision *revs, size_t n)
{
    json_t *list = revision_list(revs, n, 0);
    return list ? json_pack("{s:s, s:s?, s:s, s:o}", "kind", "history", "sheet", sheet, "records",
                            records, "revisions", list)
                : NULL;
}

void vs_records_render_show(const vs_records_show *s, vs_buf *text, vs_buf *html)
{
    vs_buf_printf(text, "Sheet %s at %s (commit %s)%s\n\n%s", s->sheet, s->rev ? s->rev : "the tip",
                  s->commit,
                  s->opened ? ", now open as the current sheet"
                            : " (a sheet of this id is already open in this session: it was "
                              "left as it is)",
                  s->md);
    vs_buf_printf(
        html, "<p>Sheet <code>%s</code> at commit <code>%s</code>%s</p>\n", s->sheet, s->commit,
        s->opened ? ", now open as the current sheet" : " (the open sheet was left as it is)");
    vs_buf_puts(html, "<pre class='vramsheet-sheet'>");
    vs_buf_put_html(html, s->md);
    vs_buf_puts(html, "</pre>\n");
}

void vs_records_render_reproduce(const vs_records_reproduce *r, vs_buf *text, vs_buf *html)
{
    const char *gpu = r->gpu, *sw = r->software, *eng = r->engine;
    size_t nm = r->measurements;
    vs_buf_printf(text,
                  "New sheet %s (\"%s\") from %s at %s (commit %s): card, components, "
                  "procedure, %srequirements and invalidating conditions carried%s.\n",
                  r->sheet, r->title, r->source, r->rev ? r->rev : "the tip", r->commit,
                  gpu && !r->keep_offers ? "" : "offers, ",
                  gpu || sw || eng ? "; evidence left behind (new hardware or software)"
                                   : ", with evidence");
    if (gpu && r->offer_missing)
        vs_buf_printf(text,
                      "%s: no offer for %s: %s; `gpu \"%s\" memory=...` adds it (or a catalogue "
                      "name).\n",
                      r->keep_offers ? "Its offers: the source's" : "Its offers: none yet", gpu,
                      r->offer_missing, gpu);
    else if (gpu && r->keep_offers)
        vs_buf_printf(text, "Its offers: the source's, and %s added (keep_offers=yes).\n", gpu);
    else if (gpu)
        vs_buf_printf(text,
                      "Its offer: %s, in place of the source's %zu (keep_offers=yes keeps them "
                      "beside it).\n",
                      gpu, r->offers_left);
    if (r->card)
        vs_buf_printf(text, "Its card: %s.\n", r->card);
    if (gpu || sw || eng) {
        int n = 0;
        vs_buf_puts(text, "The new campaign changes ");
        if (gpu)
            vs_buf_printf(text, "%sthe GPU to %s", n++ ? " and " : "", gpu);
        if (eng)
            vs_buf_printf(text, "%sthe engine to %s", n++ ? " and " : "", eng);
        if (sw)
            vs_buf_printf(text, "%sthe software to %s", n++ ? " and " : "", sw);
        vs_buf_printf(text, ": %zu of %zu measurement%s marked \"to re-measure\".\n", r->marked, nm,
                      nm == 1 ? "" : "s");
    } else {
        vs_buf_printf(text,
                      "Same hardware and software: the %zu measurement%s stay current (say "
                      "gpu=\"NAME\", engine=\"NAME\" or software=\"VERSIONS\" when they "
                      "change)%s.\n",
                      nm, nm == 1 ? "" : "s",
                      r->card && nm ? ", each validating the card only at its own dimensions" : "");
    }
    vs_buf_puts(text, "It is the current sheet now; `commit \"...\"` records it.\n");
    html_para(text, html);
}

void vs_records_render_reopened(const vs_records_reproduce *r, int from_records, vs_buf *text,
                                vs_buf *html)
{
    vs_buf_printf(text,
                  "Sheet %s (\"%s\") was reproduced from %s at %.12s before; %s, as the "
                  "current sheet (nothing new was started).\n",
                  r->sheet, r->title, r->source, r->commit,
                  from_records ? "reopened from the records" : "it is open in this session");
    html_para(text, html);
}

vs_bundle *vs_records_reopened_bundle(const vs_records_reproduce *r, int from_records)
{
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    vs_records_render_reopened(r, from_records, &text, &html);
    return vs_render_finish(&text, &html, NULL,
                            json_pack("{s:s, s:s, s:s, s:b, s:s}", "kind", "reproduce", "sheet",
                                      r->sheet, "title", r->title, "reopened", 1, "from",
                                      from_records ? "records" : "session"));
}

void vs_records_render_info(const vs_records_info *r, vs_buf *text, vs_buf *html)
{
    size_t i, n = r->nsheets;
    vs_buf_printf(text, "%sRecords: %s\n", r->said ? r->said : "", r->path);
    if (!r->exists)
        vs_buf_puts(text, "Not created yet: the first `commit` creates it (a git repository, "
                          "branch main).\n");
    else
        vs_buf_printf(text, "A %s git repository, branch %s, %zu sheet%s%s%s%s\n",
                      r->bare ? "bare" : "work-tree", r->branch, n, n == 1 ? "" : "s",
                      r->tip ? ", last commit " : "", r->tip ? r->tip : "",
                      r->tip ? "" : ", no commit yet");
    for (i = 0; i < n; i++)
        vs_buf_printf(text, "  %s\n", r->sheets[i]);
    vs_buf_puts(html, "<pre>");
    vs_buf_put_html(html, vs_buf_str(text));
    vs_buf_puts(html, "</pre>\n");
}

void vs_records_render_sync(const vs_records_sync *s, vs_buf *text, vs_buf *html)
{
    size_t i;
    if (s->push && s->up_to_date)
        vs_buf_printf(text, "%s already has %s at %s: nothing to push.\n", s->remote, s->branch,
                      has(s->after) ? s->after : s->before);
    else if (s->push)
        vs_buf_printf(text,
                      "Pushed %s to %s: the remote's %s is %s, read back after the "
                      "push and containing this side's tip%s.\n",
                      s->branch, s->remote, s->branch, s->remote_after,
                      s->merged ? " (the remote's new commits were merged here first)" : "");
    else if (s->up_to_date)
        vs_buf_printf(text, "%s has nothing new for %s.\n", s->remote, s->branch);
    else
        vs_buf_printf(text, "Pulled %s from %s: %s, now at %s.\n", s->branch, s->remote,
                      s->merged ? "merged (different sheets)" : "fast-forward", s->after);
    for (i = 0; i < s->nrefreshed; i++)
        vs_buf_printf(text,
                      "Sheet %s: validates_card recomputed from its card for %d "
                      "measurement%s, recorded as commit %s.\n",
                      s->refreshed[i].sheet, s->refreshed[i].measurements,
                      s->refreshed[i].measurements == 1 ? "" : "s", s->refreshed[i].commit);
    if (has(s->repaired))
        vs_buf_printf(text, "records: %s\n", s->repaired);
    if (has(s->warning))
        vs_buf_printf(text, "warning: %s\n", s->warning);
    html_para(text, html);
}

vs_bundle *vs_records_commit_bundle(const vs_records_commit *c, const char *blob)
{
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    json_t *payload;
    vs_records_render_commit(c, &text, &html);
    payload = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:b, s:i, s:b, s:b, s:s?, s:s?}", "kind",
                        "commit", "sheet", c->sheet, "commit", c->commit, "branch", c->branch,
                        "records", c->records, "blob", blob, "created", c->created, "attempts",
                        c->attempts, "unchanged", c->unchanged, "held_earlier", c->held_earlier,
                        "joined", has(c->joined) ? c->joined : NULL, "warning",
                        !c->unchanged && has(c->axes) ? c->axes : NULL);
    if (payload && has(c->repaired))
        json_object_set_new(payload, "repaired", json_string(c->repaired));
    return vs_render_finish(&text, &html, NULL, payload);
}

vs_bundle *vs_records_info_bundle(const vs_records_info *r)
{
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    json_t *list = json_array();
    size_t i;
    for (i = 0; list && i < r->nsheets; i++)
        json_array_append_new(list, json_string(r->sheets[i]));
    vs_records_render_info(r, &text, &html);
    return vs_render_finish(&text, &html, NULL,
                            json_pack("{s:s, s:s, s:b, s:b, s:s, s:o, s:s?}", "kind", "records",
                                      "path", r->path, "exists", r->exists, "bare", r->bare,
                                      "branch", r->branch, "sheets", list, "tip", r->tip));
}

vs_bundle *vs_records_sync_bundle(const vs_records_sync *s, const char *records, int fast_forward)
{
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    json_t *payload, *ids = json_array();
    size_t i;
    for (i = 0; ids && i < s->nrefreshed; i++)
        json_array_append_new(ids, json_string(s->refreshed[i].sheet));
    vs_records_render_sync(s, &text, &html);
    payload = json_pack("{s:s, s:s, s:s, s:s, s:s?, s:s?, s:s?, s:b, s:b, s:b}", "kind",
                        s->push ? "push" : "pull", "records", records, "remote", s->remote,
                        "branch", s->branch, "before", has(s->before) ? s->before : NULL, "after",
                        has(s->after) ? s->after : NULL, "remote_tip",
                        has(s->remote_after) ? s->remote_after : NULL, "up_to_date", s->up_to_date,
                        "merged", s->merged, "fast_forward", fast_forward);
    if (payload && !s->push)
        json_object_set(payload, "recomputed", ids);
    json_decref(ids);
    return vs_render_finish(&text, &html, NULL, payload);
}

vs_bundle *vs_records_show_bundle(const vs_records_show *s, json_t *doc_take, const char *blob,
                                  const char *records)
{
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    if (doc_take) {
        json_object_set_new(doc_take, "kind", json_string("sheet"));
        json_object_set_new(
            doc_take, "revision",
            json_pack("{s:s, s:s, s:s}", "commit", s->commit, "blob", blob, "records", records));
    }
    vs_records_render_show(s, &text, &html);
    return vs_render_finish(&text, &html, NULL, doc_take);
}

vs_bundle *vs_records_reproduce_bundle(const vs_records_reproduce *r, const json_t *lineage,
                                       const json_t *card)
{
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    json_t *payload = json_pack(
        "{s:s, s:s, s:s, s:O, s:i, s:i, s:s?, s:s?, s:s?}", "kind", "reproduce", "sheet", r->sheet,
        "title", r->title, "lineage", lineage, "to_remeasure", (int)r->marked, "measurements",
        (int)r->measurements, "gpu", r->gpu, "software", r->software, "engine", r->engine);
    if (payload && r->gpu)
        json_object_set_new(payload, "keep_offers", json_boolean(r->keep_offers));
    if (payload && r->offer_missing)
        json_object_set_new(payload, "offer_missing", json_string(r->offer_missing));
    if (payload && card && json_object_update(payload, (json_t *)card) < 0) {
        json_decref(payload);
        payload = NULL;
    }
    vs_records_render_reproduce(r, &text, &html);
    return vs_render_finish(&text, &html, NULL, payload);
}
