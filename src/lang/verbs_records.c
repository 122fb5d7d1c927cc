/* Records verbs: commit, records (the repository in force), records push and
 * pull; the helpers every records verb shares, and the table of them all
 * (history, show, diff and reproduce are verbs_records_history.c). They join the
 * session's sheets to the git records (src/store/); what they print is
 * render/records.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/verb.h"
#include "lang/verbs_records_internal.h"
#include "render/markdown.h"
#include "render/records.h"
#include "sheet/derived.h"
#include "sheet/diff.h"
#include "sheet/sheet.h"
#include "store/store.h"
#include "store/store_sheet.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/json.h"

int vs_verbs_records_at_line(const vs_line *line, vs_error *err, int rc)
{
    if (err && err->line == 0) {
        err->line = line->line;
        err->column = line->column;
    }
    return rc;
}

int vs_verbs_records_sheet_spec(vs_ctx *ctx, const vs_arg *a, char *id, size_t idlen,
                                const char **rev, vs_error *err)
{
    json_t *s;
    int rc;
    if (a) {
        if ((rc = vs_store_parse_spec(a->value, id, idlen, rev, err)) < 0)
            return vs_arg_error(a, err, rc);
        return 0;
    }
    /* no sheet named and none open: say so, rather than open "untitled" */
    if (!vs_ctx_sheet_count(ctx))
        return vs_error_set(err, VS_EVALUE,
                            "no sheet is open in this session: name one (`history SHEET`, "
                            "`show SHEET`) or open one with `sheet \"TITLE\"`");
    if (!(s = vs_ctx_sheet(ctx)))
        return vs_error_oom(err);
    snprintf(id, idlen, "%s", vs_sheet_get_str(s, VS_SK_ID));
    return 0;
}

int vs_verbs_records_open_store(vs_ctx *ctx, vs_store **st, vs_error *err)
{
    const char *path = vs_ctx_records_path(ctx);
    int rc = vs_store_open(st, path, err);
    if (rc == 0 && *vs_store_notice(*st)) {
        vs_buf b = VS_BUF_INIT;
        vs_records_render_notice(vs_store_notice(*st), &b);
        if (!vs_buf_failed(&b))
            vs_ctx_stream(ctx, "stdout", vs_buf_str(&b), b.len);
        vs_buf_free(&b);
    }
    return rc;
}

int vs_verbs_records_load_sheet(vs_store *st, const char *id, const char *rev, json_t **out,
                                vs_store_blob *blob, vs_error *err)
{
    /* the store's reader: `vramsheet show` checks a record the same way */
    return vs_store_load_sheet(st, id, rev, out, blob, err);
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
    json_t *ms = vs_sheet_array(sheet, VS_SK_MEASUREMENTS), *m, *t;
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
        /* the revision's blob when the index named it: no tree read */
        if ((*h.revs[r].blob ? vs_store_read_blob(st, h.revs[r].blob, &b, &e)
                             : vs_store_read(st, id, h.revs[r].commit, NULL, &b, &e)) == 0 &&
            vs_sheet_load(&rec, b.data, b.len, &e) == 0) {
            json_array_foreach(ms, i, m)
            {
                if (done[i])
                    continue;
                vs_json_array_foreach(vs_sheet_array(rec, VS_SK_MEASUREMENTS), j, t)
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
    json_t *sheet = vs_ctx_sheet(ctx);
    vs_bundle *bundle;
    vs_store *st = NULL;
    vs_store_write wr;
    vs_store_commit_info info;
    vs_records_commit shown;
    vs_buf msg = VS_BUF_INIT, warn = VS_BUF_INIT;
    char *json = NULL, *md = NULL;
    const char *id;
    int rc;
    if ((rc = vs_line_check_keys(line, NULL, err)) < 0)
        return rc;
    if (!sheet)
        return vs_error_oom(err);
    if (!m || !*m->value)
        return vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                               "expected `%s`: say what this state of the sheet is", syntax);
    if (w && strcmp(w->value, "replace"))
        return vs_error_set_at(err, VS_EVALUE, w->line, w->column, "unexpected '%s'; expected `%s`",
                               w->value, syntax);
    if ((rc = vs_line_no_extra(line, 2, syntax, err)) < 0)
        return rc;
    id = vs_sheet_get_str(sheet, VS_SK_ID);
    if (!id || !vs_sheet_id_valid(id))
        return vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                               "the current sheet has no valid id");
    if ((rc = vs_verbs_records_open_store(ctx, &st, err)) < 0)
        goto fail;
    adopt_recorded_times(st, id, sheet);
    /* What is derived from the card is written as the card is now. */
    vs_sheet_refresh_derived(sheet);
    json = vs_sheet_dump(sheet);
    md = vs_markdown_sheet(sheet);
    vs_buf_printf(&msg, "%s: %s", id, m->value);
    if (!json || !md || vs_buf_failed(&msg)) {
        rc = vs_error_oom(err);
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
    wr.expected_blob = vs_ctx_base_blob(ctx, id);
    wr.replace = w != NULL;
    if ((rc = vs_store_commit(st, &wr, &info, err)) < 0)
        goto fail;
    if (vs_ctx_set_base_blob(ctx, id, info.blob) < 0) {
        rc = vs_error_oom(err);
        goto done;
    }
    if (!info.unchanged)
        vs_ctx_effect(ctx, "committed %s@%.12s to %s", id, info.commit, vs_store_path(st));
    shown.sheet = id;
    shown.records = vs_store_path(st);
    shown.branch = info.branch;
    shown.commit = info.commit;
    shown.message = vs_buf_str(&msg);
    shown.joined = info.joined;
    shown.warning = info.warning;
    shown.repaired = info.repaired;
    shown.axes = vs_buf_str(&warn);
    shown.created = info.created;
    shown.unchanged = info.unchanged;
    shown.held_earlier = info.held_earlier;
    shown.attempts = info.attempts;
    if (!(bundle = vs_records_commit_bundle(&shown, info.blob))) {
        rc = vs_error_oom(err);
        goto done;
    }
    vs_ctx_emit(ctx, bundle);
    rc = 0;
    goto done;
fail:
    vs_verbs_records_at_line(line, err, rc);
done:
    vs_store_free(st);
    free(json);
    free(md);
    vs_buf_free(&msg);
    vs_buf_free(&warn);
    return rc;
}

/* ----------------------------------------------------------------- records */

static int records_info(vs_ctx *ctx, const vs_line *line, const char *said, vs_error *err)
{
    vs_store *st = NULL;
    vs_store_revisions h = {0};
    vs_records_info shown;
    vs_bundle *bundle;
    char branch[VS_STORE_BRANCH_MAX] = "main", **ids = NULL;
    size_t n = 0, i;
    int rc;
    if ((rc = vs_verbs_records_open_store(ctx, &st, err)) < 0 ||
        (rc = vs_store_branch(st, branch, sizeof branch, err)) < 0 ||
        (rc = vs_store_list(st, NULL, &ids, &n, err)) < 0 ||
        (rc = vs_store_history(st, NULL, 1, &h, err)) < 0) {
        vs_verbs_records_at_line(line, err, rc);
        goto done;
    }
    shown.said = said;
    shown.path = vs_store_path(st);
    shown.exists = vs_store_exists(st);
    shown.bare = vs_store_is_bare(st);
    shown.branch = branch;
    shown.sheets = (const char *const *)ids;
    shown.nsheets = n;
    shown.tip = h.n ? h.revs[0].commit : NULL;
    if (!(bundle = vs_records_info_bundle(&shown))) {
        rc = vs_error_oom(err);
        goto done;
    }
    vs_ctx_emit(ctx, bundle);
    rc = 0;
done:
    for (i = 0; i < n; i++)
        free(ids[i]);
    free(ids);
    vs_store_revisions_clear(&h);
    vs_store_free(st);
    return rc;
}

/* After a pull: each sheet that arrived is written with what is derived from
 * its card recomputed (another kernel may have recorded a stale
 * validates_card); a sheet that needs it gets one commit saying so, appended to
 * fixed as {sheet, commit, measurements} (how many changed). */
static int refresh_pulled(vs_ctx *ctx, vs_store *st, const vs_store_sync *s, json_t *fixed,
                          vs_error *err)
{
    char **ids = NULL;
    size_t n = 0, i;
    int rc;
    /* only the sheets this pull changed (a tree diff, not a read of each) */
    if ((rc = vs_store_changed_sheets(st, s->local_before, *s->local_after ? s->local_after : NULL,
                                      &ids, &n, err)) < 0)
        return rc;
    for (i = 0; i < n && rc == 0; i++) {
        vs_store_blob now = {0};
        json_t *sheet = NULL;
        const char *base;
        vs_error e;
        int changed;
        vs_error_clear(&e);
        if (vs_store_read(st, ids[i], NULL, NULL, &now, &e) < 0)
            continue; /* removed by the pull */
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
                rc = vs_error_oom(err);
            else if ((rc = vs_store_commit(st, &w, &info, err)) == 0) {
                vs_ctx_effect(ctx, "committed %s@%.12s to %s", ids[i], info.commit,
                              vs_store_path(st));
                json_array_append_new(fixed, json_pack("{s:s, s:s, s:i}", "sheet", ids[i], "commit",
                                                       info.commit, "measurements", changed));
                /* a session copy loaded from the stale record goes on from the fix */
                base = vs_ctx_base_blob(ctx, ids[i]);
                if (base && !strcmp(base, now.blob) &&
                    vs_ctx_set_base_blob(ctx, ids[i], info.blob) < 0)
                    rc = vs_error_oom(err);
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

/* The pull's recomputed sheets as the renderer reads them (borrowing fixed's
 * strings) and as the payload lists them (ids). */
static int refreshed_of(const json_t *fixed, vs_records_refresh **out)
{
    json_t *f;
    size_t i, n = json_array_size(fixed);
    *out = calloc(n ? n : 1, sizeof **out);
    if (!*out)
        return VS_ENOMEM;
    vs_json_array_foreach(fixed, i, f)
    {
        (*out)[i].sheet = vs_json_str_of(f, "sheet");
        (*out)[i].commit = vs_json_str_of(f, "commit");
        (*out)[i].measurements = (int)json_integer_value(json_object_get(f, "measurements"));
        if (!(*out)[i].sheet || !(*out)[i].commit)
            return VS_ENOMEM;
    }
    return 0;
}

static int records_sync(vs_ctx *ctx, const vs_line *line, int push, const vs_arg *remote,
                        vs_error *err)
{
    vs_store *st = NULL;
    vs_store_sync s;
    vs_records_sync shown;
    vs_records_refresh *refreshed = NULL;
    vs_bundle *bundle;
    json_t *fixed = json_array();
    int rc;
    if (!fixed)
        return vs_error_oom(err);
    if ((rc = vs_verbs_records_open_store(ctx, &st, err)) < 0)
        goto fail;
    rc = push ? vs_store_push(st, remote ? remote->value : NULL, &s, err)
              : vs_store_pull(st, remote ? remote->value : NULL, &s, err);
    if (rc < 0)
        goto fail;
    if (push) {
        vs_ctx_effect(ctx, "pushed %s to %s", s.branch, s.remote);
    } else {
        vs_ctx_effect(ctx, "pulled %s from %s", s.branch, s.remote);
        if (!s.up_to_date && (rc = refresh_pulled(ctx, st, &s, fixed, err)) < 0)
            goto fail;
    }
    if (refreshed_of(fixed, &refreshed) < 0) {
        rc = vs_error_oom(err);
        goto done;
    }
    memset(&shown, 0, sizeof shown);
    shown.push = push;
    shown.remote = s.remote;
    shown.branch = s.branch;
    shown.before = s.local_before;
    shown.after = s.local_after;
    shown.remote_after = s.remote_after;
    shown.up_to_date = s.up_to_date;
    shown.merged = s.merged;
    shown.warning = s.warning;
    shown.repaired = s.repaired;
    shown.refreshed = refreshed;
    shown.nrefreshed = json_array_size(fixed);
    if (!(bundle = vs_records_sync_bundle(&shown, vs_store_path(st), s.fast_forward))) {
        rc = vs_error_oom(err);
        goto done;
    }
    vs_ctx_emit(ctx, bundle);
    rc = 0;
    goto done;
fail:
    if (remote)
        vs_arg_error(remote, err, rc);
    else
        vs_verbs_records_at_line(line, err, rc);
done:
    json_decref(fixed);
    free(refreshed);
    vs_store_free(st);
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
            return vs_error_oom(err);
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
static const char *const reproduce_keys[] = {"gpu",    "keep_offers", "software", "engine",
                                             "length", "concurrency", "format",   NULL};
static const char *const commit_words[] = {"replace", NULL};
static const char *const records_words[] = {"push", "pull", NULL};
static const char *const reproduce_words[] = {"as", NULL};
static const char *const hub_words[] = {"offline", "online", NULL};

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
     "placement, engine and the offers says so (a warning: compare one change at a time). A lock "
     "on the branch left by a writer killed while it moved the branch (kill -9, a crash) is "
     "recognised and removed by the next commit, which says so; a lock a running git command "
     "holds is waited on and left to it.",
     no_keys, commit_words, 0, NULL},
    {"history", vs_verb_history, "history [SHEET] [limit=N]",
     "the revisions of a sheet in the records, newest first",
     "history [SHEET] lists the commits that changed sheets/<SHEET>/ (the current sheet when "
     "omitted), newest first: commit id, committer time, message. limit=N shows the last N. "
     "They are read from the revision index kept beside the repository (.git/vramsheet/, "
     "brought up to the branch tip first), so a long history costs what is listed; in a "
     "shallow clone the list stops at the clone's boundary and says so (payload "
     "\"truncated_at\"). The payload (kind \"history\") has full 40-hex commit ids.",
     history_keys, NULL, VS_VERB_OPENS_SHEETS | VS_VERB_SHEET_REV, NULL},
    {"show", vs_verb_show, "show SHEET[@REV]",
     "print a recorded sheet (and open it if it is not open)",
     "show SHEET[@REV] reads sheets/<SHEET>/sheet.json at REV and prints it. REV is ~N, N "
     "revisions back in that sheet's own history (the commits that changed sheets/<SHEET>/, as "
     "`history SHEET` lists them: SHEET@~0 is its latest revision, SHEET@~1 the one before, "
     "whatever other sheets were committed in between), or git's own revisions: HEAD~N is N "
     "commits back on the branch (of any sheet), a commit id or prefix, a branch; the tip when "
     "omitted (a search of commit messages, :/TEXT, is not a revision here). If no sheet of "
     "that id is open in this "
     "session, it is opened as the current sheet, remembering the revision it came from so that "
     "its next commit detects concurrent changes. The payload (kind \"sheet\") is the whole "
     "sheet as stored, with \"revision\": {commit, blob, records}.",
     no_keys, NULL, VS_VERB_OPENS_SHEETS | VS_VERB_SHEET_REV, NULL},
    {"diff", vs_verb_diff, "diff SHEET[@REV1] [REV2]",
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
     no_keys, NULL, VS_VERB_OPENS_SHEETS | VS_VERB_SHEET_REV, NULL},
    {"reproduce", vs_verb_reproduce,
     "reproduce SHEET[@REV] as \"TITLE\" [gpu=\"NAME\" [keep_offers=yes]] "
     "[software=\"VERSIONS\"] [engine=\"NAME [key=value ...]\"] [length=N] [concurrency=N] "
     "[format=NAME]",
     "start a new campaign's sheet from a recorded one, with lineage",
     "reproduce SHEET@REV as \"TITLE\" (REV as in `help show`: SHEET@~N for the sheet's own "
     "revisions, SHEET@HEAD~N for the branch's) opens a new sheet titled TITLE carrying the card, "
     "weight "
     "files, components, placement, procedure (stages), offers, requirements, runs, "
     "measurements and invalidating conditions of SHEET at REV, with lineage {sheet, commit, "
     "title} naming the source. The decision is not carried: the new campaign decides anew. "
     "Say what the new campaign changes: gpu=\"H100 SXM\" is the new campaign's GPU: the "
     "sheet's offer becomes that GPU, as `gpu \"H100 SXM\"` adds it (the source's offers stay "
     "beside it only with keep_offers=yes; a name the catalogue does not know leaves no offer, "
     "and the result says how to add one), and every measurement taken on another "
     "GPU (its gpu_name differs, or is unknown) is marked \"to re-measure\"; software=\"vllm 0.6, "
     "CUDA "
     "12.4\" marks every measurement \"to re-measure\" (the records keep no software version "
     "per measurement that could match). Measurements marked so no longer validate the card. "
     "The card's own changes: engine=\"llamacpp cache_type_k=q8_0 cache_type_v=q8_0\" is the "
     "rest of an `engine` line (the engine and its keys replace the source's, as that line "
     "would; a change of software, so every measurement is marked \"to re-measure\"), "
     "length=N, concurrency=N and format=NAME are `length N`, `concurrency N` and `format "
     "NAME` on the new sheet; every estimate that read them is re-estimated, and the result "
     "says each change (\"length 4,096 → 32,768\", \"(unchanged)\" when it was already so) "
     "and each component that moved (\"re-estimated: kv_cache 0.50 GiB → 8.00 GiB\"; payload "
     "card_changes and reestimated). A value the verb refuses fails the line with that verb's "
     "error, at the value, and the session's sheets stay as they were. "
     "Evidence carries over only when none of gpu=, engine= and software= is given (evidence "
     "the new card moved past, a longer length or another format, no longer decides a "
     "verdict). Run again (a "
     "notebook from the top, in this kernel or a new one), a reproduce whose TITLE names a "
     "sheet already reproduced from the same source reopens that sheet (from the session, "
     "else from the records) instead of starting anew.",
     reproduce_keys, reproduce_words, VS_VERB_OPENS_SHEETS | VS_VERB_SHEET_REV, NULL},
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
     "and keep one. A repository on this machine that has hooks (pre-receive, update, "
     "post-receive, ...) is pushed to through `git receive-pack`, as `git push` pushes to a "
     "path, so that its hooks run with the same input and a push they refuse is refused here "
     "too (git must be installed; without it such a push is refused, saying why). A push the "
     "server refuses, by a hook or another rule of its own, stops at once with the server's "
     "words (the reason and what its hooks printed), and nothing is pushed; only a remote "
     "branch that another pusher moved meanwhile is merged and pushed again. A remote over "
     "http(s) that asks for a credential gets the VRAMSHEET_RECORDS_TOKEN environment "
     "variable as the password (user VRAMSHEET_RECORDS_USER, else the URL's user name, else "
     "vramsheet), else what `git credential fill` answers (your git credential helper, asked "
     "for the URL's protocol, host and path, run in the records repository, never prompting "
     "on a terminal); it is given once, and a refused one is said, not retried. A credential "
     "is never written into the records or shown; a URL with user:password@ is refused (shown "
     "as <redacted>): give the user name alone in the URL. A folder "
     "literally named push or pull is given as ./push.",
     no_keys, records_words, VS_VERB_OPENS_SHEETS, NULL},
    {"hub", vs_verb_hub, "hub [offline | online]",
     "what `model` and `weights` may ask of the Hugging Face Hub in this session",
     "hub shows what `model ORG/NAME` and `weights` may ask of the Hugging Face Hub when the "
     "local cache lacks a model: the endpoint ($HF_ENDPOINT, default https://huggingface.co), "
     "whether requests are allowed, where a token would come from ($HF_TOKEN, else the token "
     "file `huggingface-cli login` writes; never the token itself), whether libcurl can be "
     "loaded, and the cache folder. `hub offline` forbids every request for this session, as "
     "HF_HUB_OFFLINE=1 does for the process (huggingface_hub's setting); `hub online` lifts "
     "it (HF_HUB_OFFLINE in the environment still forbids). Offline, a model or weights file "
     "missing from the cache gets the command that fetches it and where it goes. An endpoint "
     "that could not be reached (its name not resolved, no connection, no answer before the "
     "timeout) is not asked again for 30 s, and the same failure is given at once: a cell "
     "run again, or one of several `model` lines, does not wait on it each time; `hub` or "
     "`hub online` asks again at the next request.",
     no_keys, hub_words, 0, NULL},
    {0},
};
