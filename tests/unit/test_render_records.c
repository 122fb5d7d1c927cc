/* How the records verbs are shown (src/render/records.c): commit, history,
 * show, reproduce, records and records push / pull, from plain facts. Every
 * expected string here is worked out by hand from the facts given. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "render/records.h"

#include "check_run.h"

#define C1 "0123456789abcdef0123456789abcdef01234567"
#define C2 "fedcba9876543210fedcba9876543210fedcba98"

/* Renders into two fresh buffers and compares both with what is expected. */
#define EXPECT(text_want, html_want)                                                               \
    do {                                                                                           \
        ck_assert(!vs_buf_failed(&text) && !vs_buf_failed(&html));                                 \
        ck_assert_str_eq(vs_buf_str(&text), text_want);                                            \
        ck_assert_str_eq(vs_buf_str(&html), html_want);                                            \
        vs_buf_reset(&text);                                                                       \
        vs_buf_reset(&html);                                                                       \
    } while (0)

START_TEST(commit_new_and_unchanged)
{
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    vs_records_commit c = {
        "llama", "/tmp/a&b", "main", C1,  "llama: baseline", "", "", "model and format changed", 1,
        0,       0,          3,      NULL};
    vs_records_render_commit(&c, &text, &html);
    EXPECT("Committed sheet llama to /tmp/a&b (branch main, repository created)\n"
           "commit " C1 "\n"
           "message: llama: baseline\n"
           "(other writers moved the branch meanwhile: built again on the new tip, 3 attempts)\n"
           "warning: model and format changed\n",
           "<p>Committed sheet <code>llama</code> to <code>/tmp/a&amp;b</code> (branch "
           "<code>main</code>): commit <code>" C1 "</code></p>\n"
           "<p>warning: model and format changed</p>\n");

    /* unchanged, held at an older commit: the axes warning is not said (nothing
     * was written), the store's warning and the join are */
    c.records = "/tmp/rec";
    c.created = 0;
    c.unchanged = 1;
    c.held_earlier = 1;
    c.attempts = 1;
    c.joined = C2;
    c.warning = "x < y";
    vs_records_render_commit(&c, &text, &html);
    EXPECT("Unchanged: the records /tmp/rec already hold this state of sheet llama, at commit " C1
           " (branch main has newer revisions of it since); nothing was written. The sheet goes "
           "on from that revision\n"
           "This commit joins the remote's fedcba987654: each sheet changed on both sides keeps "
           "the version chosen here (theirs stay in history), the other sheets come from the "
           "side that changed them; `records push` now goes through.\n"
           "warning: x < y\n",
           "<p>Unchanged (nothing written): sheet <code>llama</code> to <code>/tmp/rec</code> "
           "(branch <code>main</code>): commit <code>" C1 "</code></p>\n"
           "<p>warning: x &lt; y</p>\n");

    /* unchanged at the tip; NULL means none as "" does */
    c.held_earlier = 0;
    c.joined = NULL;
    c.warning = NULL;
    c.axes = NULL;
    vs_records_render_commit(&c, &text, &html);
    EXPECT("Unchanged: the records /tmp/rec already hold this state of sheet llama (branch main, "
           "written at commit " C1 "); nothing was written\n",
           "<p>Unchanged (nothing written): sheet <code>llama</code> to <code>/tmp/rec</code> "
           "(branch <code>main</code>): commit <code>" C1 "</code></p>\n");
    vs_buf_free(&text);
    vs_buf_free(&html);
}
END_TEST

/* A dead writer's branch lock the store removed is said, after the commit. */
START_TEST(commit_repaired)
{
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    vs_records_commit c;
    memset(&c, 0, sizeof c);
    c.sheet = "llama";
    c.records = "/r";
    c.branch = "main";
    c.commit = C1;
    c.message = "llama: x";
    c.attempts = 1;
    c.repaired = "removed /r/.git/refs/heads/main.lock, the lock of a writer (process 7) that "
                 "was killed while it moved main";
    vs_records_render_commit(&c, &text, &html);
    EXPECT("Committed sheet llama to /r (branch main)\ncommit " C1 "\nmessage: llama: x\n"
           "records: removed /r/.git/refs/heads/main.lock, the lock of a writer (process 7) that "
           "was killed while it moved main\n",
           "<p>Committed sheet <code>llama</code> to <code>/r</code> (branch <code>main</code>): "
           "commit <code>" C1 "</code></p>\n"
           "<p>records: removed /r/.git/refs/heads/main.lock, the lock of a writer (process 7) "
           "that was killed while it moved main</p>\n");
    vs_buf_free(&text);
    vs_buf_free(&html);
}
END_TEST

START_TEST(history_table)
{
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    /* 0 s at +01:00 is 01:00 local; 86400 s (1970-01-02T00:00Z) at -05:30 is
     * 18:30 local the evening before */
    vs_records_revision revs[2] = {{C1, "llama: baseline", 0, 60},
                                   {C2, "llama: fp8 weights & <kv>", 86400, -330}};
    vs_records_render_history("llama", "/tmp/rec", revs, 2, &text, &html);
    /* widths: commit 12, time 25, message 25 (the last column is not padded);
     * the rule is 12 + 2 + 25 + 2 + 25 = 66 dashes */
    EXPECT("History of sheet llama in /tmp/rec, newest first (2 revisions):\n\n"
           "commit        time                       message\n"
           "------------------------------------------------------------------\n"
           "0123456789ab  1970-01-01T01:00:00+01:00  llama: baseline\n"
           "fedcba987654  1970-01-01T18:30:00-05:30  llama: fp8 weights & <kv>\n",
           "<p>History of sheet <code>llama</code>, newest first</p>\n"
           "<table class='vramsheet'>\n<thead><tr><th style='text-align:left'>commit</th>"
           "<th style='text-align:left'>time</th><th style='text-align:left'>message</th>"
           "</tr></thead>\n<tbody>\n"
           /* a cell opening with a digit is kept on one line; "fedcba..." is text */
           "<tr><td style='text-align:left;white-space:nowrap'>0123456789ab</td>"
           "<td style='text-align:left;white-space:nowrap'>1970-01-01T01:00:00+01:00</td>"
           "<td style='text-align:left'>llama: baseline</td></tr>\n"
           "<tr><td style='text-align:left'>fedcba987654</td>"
           "<td style='text-align:left;white-space:nowrap'>1970-01-01T18:30:00-05:30</td>"
           "<td style='text-align:left'>llama: fp8 weights &amp; &lt;kv&gt;</td></tr>\n"
           "</tbody>\n</table>\n");

    vs_records_render_history("llama", "/tmp/rec", revs, 1, &text, &html);
    ck_assert_ptr_nonnull(strstr(vs_buf_str(&text), "newest first (1 revision):\n"));
    vs_buf_reset(&text);
    vs_buf_reset(&html);

    vs_records_render_history("llama", "/tmp/rec", NULL, 0, &text, &html);
    EXPECT("Sheet llama has no revisions in /tmp/rec yet (`commit \"...\"` records it).\n",
           "<p>Sheet llama has no revisions in /tmp/rec yet (`commit &quot;...&quot;` records "
           "it).\n</p>\n");
    vs_buf_free(&text);
    vs_buf_free(&html);
}
END_TEST

/* `vramsheet log --json`: the same times as the table above, the sheet null
 * when the log is of every commit. */
START_TEST(log_payload)
{
    vs_records_revision revs[2] = {{C1, "llama: baseline", 0, 60},
                                   {C2, "llama: fp8 weights & <kv>", 86400, -330}};
    json_t *p = vs_records_log_payload("llama", "/tmp/rec", revs, 2), *r;
    char *s;
    ck_assert_ptr_nonnull(p);
    s = json_dumps(p, JSON_COMPACT);
    ck_assert_str_eq(s, "{\"kind\":\"history\",\"sheet\":\"llama\",\"records\":\"/tmp/rec\","
                        "\"revisions\":[{\"commit\":\"" C1 "\",\"message\":\"llama: baseline\","
                        "\"time\":\"1970-01-01T01:00:00+01:00\"},{\"commit\":\"" C2 "\","
                        "\"message\":\"llama: fp8 weights & <kv>\","
                        "\"time\":\"1970-01-01T18:30:00-05:30\"}]}");
    free(s);
    json_decref(p);
    p = vs_records_log_payload(NULL, "/tmp/rec", revs, 0);
    ck_assert_ptr_nonnull(p);
    ck_assert(json_is_null(json_object_get(p, "sheet")));
    r = json_object_get(p, "revisions");
    ck_assert(json_is_array(r) && json_array_size(r) == 0);
    json_decref(p);
}
END_TEST

START_TEST(show_page)
{
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    vs_records_show s = {"llama", NULL, C1, "# Llama <3>\n", 1};
    vs_records_render_show(&s, &text, &html);
    EXPECT("Sheet llama at the tip (commit " C1 "), now open as the current sheet\n\n"
           "# Llama <3>\n",
           "<p>Sheet <code>llama</code> at commit <code>" C1 "</code>, now open as the current "
           "sheet</p>\n<pre class='vramsheet-sheet'># Llama &lt;3&gt;\n</pre>\n");
    s.rev = "~1";
    s.opened = 0;
    vs_records_render_show(&s, &text, &html);
    EXPECT("Sheet llama at ~1 (commit " C1 ") (a sheet of this id is already open in this "
           "session: it was left as it is)\n\n# Llama <3>\n",
           "<p>Sheet <code>llama</code> at commit <code>" C1 "</code> (the open sheet was left "
           "as it is)</p>\n<pre class='vramsheet-sheet'># Llama &lt;3&gt;\n</pre>\n");
    vs_buf_free(&text);
    vs_buf_free(&html);
}
END_TEST

START_TEST(reproduce_and_reopen)
{
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    vs_records_reproduce r = {
        "llama-h100", "Llama H100", "llama", "~1", C1, "H100", NULL, 1, 3, 0, 2, NULL, NULL, NULL};
    vs_records_render_reproduce(&r, &text, &html);
    EXPECT("New sheet llama-h100 (\"Llama H100\") from llama at ~1 (commit " C1
           "): card, components, procedure, requirements and invalidating conditions "
           "carried; evidence left behind (new hardware or software).\n"
           "Its offer: H100, in place of the source's 2 (keep_offers=yes keeps them beside it).\n"
           "The new campaign changes the GPU to H100: 1 of 3 measurements marked \"to "
           "re-measure\".\n"
           "It is the current sheet now; `commit \"...\"` records it.\n",
           "<p>New sheet llama-h100 (&quot;Llama H100&quot;) from llama at ~1 (commit " C1
           "): card, components, procedure, requirements and invalidating conditions "
           "carried; evidence left behind (new hardware or software).\n"
           "Its offer: H100, in place of the source&#39;s 2 (keep_offers=yes keeps them beside "
           "it).\n"
           "The new campaign changes the GPU to H100: 1 of 3 measurements marked &quot;to "
           "re-measure&quot;.\n"
           "It is the current sheet now; `commit &quot;...&quot;` records it.\n</p>\n");

    r.software = "vllm 0.6";
    r.marked = 3;
    vs_records_render_reproduce(&r, &text, &html);
    ck_assert_ptr_nonnull(strstr(vs_buf_str(&text),
                                 "\nThe new campaign changes the GPU to H100 and the software to "
                                 "vllm 0.6: 3 of 3 measurements marked \"to re-measure\".\n"));
    vs_buf_reset(&text);
    vs_buf_reset(&html);

    r.rev = NULL;
    r.gpu = r.software = NULL;
    r.marked = 0;
    r.measurements = 1;
    vs_records_render_reproduce(&r, &text, &html);
    ck_assert_str_eq(vs_buf_str(&text),
                     "New sheet llama-h100 (\"Llama H100\") from llama at the tip (commit " C1
                     "): card, components, procedure, offers, requirements and invalidating "
                     "conditions carried, with evidence.\n"
                     "Same hardware and software: the 1 measurement stay current (say "
                     "gpu=\"NAME\", engine=\"NAME\" or software=\"VERSIONS\" when they change).\n"
                     "It is the current sheet now; `commit \"...\"` records it.\n");
    vs_buf_reset(&text);
    vs_buf_reset(&html);

    /* engine= is a change of software; the card's changes in a line of their own */
    r.engine = "llamacpp cache_type_k=q8_0";
    r.card = "length 4,096 → 8,192; re-estimated: kv_cache 0.50 GiB → 1.00 GiB";
    r.marked = 1;
    vs_records_render_reproduce(&r, &text, &html);
    ck_assert_str_eq(vs_buf_str(&text),
                     "New sheet llama-h100 (\"Llama H100\") from llama at the tip (commit " C1
                     "): card, components, procedure, offers, requirements and invalidating "
                     "conditions carried; evidence left behind (new hardware or software).\n"
                     "Its card: length 4,096 → 8,192; re-estimated: kv_cache 0.50 GiB → 1.00 GiB.\n"
                     "The new campaign changes the engine to llamacpp cache_type_k=q8_0: 1 of 1 "
                     "measurement marked \"to re-measure\".\n"
                     "It is the current sheet now; `commit \"...\"` records it.\n");
    vs_buf_reset(&text);
    vs_buf_reset(&html);
    r.engine = r.card = NULL;
    r.marked = 0;

    vs_records_render_reopened(&r, 1, &text, &html);
    EXPECT("Sheet llama-h100 (\"Llama H100\") was reproduced from llama at 0123456789ab before; "
           "reopened from the records, as the current sheet (nothing new was started).\n",
           "<p>Sheet llama-h100 (&quot;Llama H100&quot;) was reproduced from llama at "
           "0123456789ab before; reopened from the records, as the current sheet (nothing new "
           "was started).\n</p>\n");
    vs_records_render_reopened(&r, 0, &text, &html);
    ck_assert_ptr_nonnull(strstr(vs_buf_str(&text), "before; it is open in this session, as"));
    vs_buf_free(&text);
    vs_buf_free(&html);
}
END_TEST

START_TEST(records_info)
{
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    static const char *const ids[] = {"llama", "qwen"};
    vs_records_info r = {
        "Records path set for this session.\n", "/tmp/rec", 1, 0, "main", ids, 2, C1};
    vs_records_render_info(&r, &text, &html);
    EXPECT("Records path set for this session.\nRecords: /tmp/rec\n"
           "A work-tree git repository, branch main, 2 sheets, last commit " C1 "\n"
           "  llama\n  qwen\n",
           "<pre>Records path set for this session.\nRecords: /tmp/rec\n"
           "A work-tree git repository, branch main, 2 sheets, last commit " C1 "\n"
           "  llama\n  qwen\n</pre>\n");

    r.said = NULL;
    r.bare = 1;
    r.nsheets = 0;
    r.tip = NULL;
    vs_records_render_info(&r, &text, &html);
    EXPECT("Records: /tmp/rec\nA bare git repository, branch main, 0 sheets, no commit yet\n",
           "<pre>Records: /tmp/rec\nA bare git repository, branch main, 0 sheets, no commit "
           "yet\n</pre>\n");

    r.path = "/tmp/<new>";
    r.exists = 0;
    vs_records_render_info(&r, &text, &html);
    EXPECT("Records: /tmp/<new>\nNot created yet: the first `commit` creates it (a git "
           "repository, branch main).\n",
           "<pre>Records: /tmp/&lt;new&gt;\nNot created yet: the first `commit` creates it (a "
           "git repository, branch main).\n</pre>\n");
    vs_buf_free(&text);
    vs_buf_free(&html);
}
END_TEST

START_TEST(push_and_pull)
{
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    vs_records_refresh fixed[2] = {{"llama", C1, 1}, {"qwen", C2, 2}};
    vs_records_sync s = {0, "/srv/r.git", "main", C2, C1, "", 0, 1, "w", fixed, 2, NULL};
    vs_records_render_sync(&s, &text, &html);
    EXPECT("Pulled main from /srv/r.git: merged (different sheets), now at " C1 ".\n"
           "Sheet llama: validates_card recomputed from its card for 1 measurement, recorded as "
           "commit " C1 ".\n"
           "Sheet qwen: validates_card recomputed from its card for 2 measurements, recorded as "
           "commit " C2 ".\n"
           "warning: w\n",
           "<p>Pulled main from /srv/r.git: merged (different sheets), now at " C1 ".\n"
           "Sheet llama: validates_card recomputed from its card for 1 measurement, recorded as "
           "commit " C1 ".\n"
           "Sheet qwen: validates_card recomputed from its card for 2 measurements, recorded as "
           "commit " C2 ".\n"
           "warning: w\n</p>\n");

    s.merged = 0;
    s.nrefreshed = 0;
    s.warning = "";
    vs_records_render_sync(&s, &text, &html);
    EXPECT("Pulled main from /srv/r.git: fast-forward, now at " C1 ".\n",
           "<p>Pulled main from /srv/r.git: fast-forward, now at " C1 ".\n</p>\n");

    s.up_to_date = 1;
    vs_records_render_sync(&s, &text, &html);
    EXPECT("/srv/r.git has nothing new for main.\n",
           "<p>/srv/r.git has nothing new for main.\n</p>\n");

    /* a push with nothing to do names the tip before when the tip after is "" */
    s.push = 1;
    s.after = "";
    vs_records_render_sync(&s, &text, &html);
    EXPECT("/srv/r.git already has main at " C2 ": nothing to push.\n",
           "<p>/srv/r.git already has main at " C2 ": nothing to push.\n</p>\n");

    s.up_to_date = 0;
    s.merged = 1;
    s.remote_after = C1;
    vs_records_render_sync(&s, &text, &html);
    EXPECT("Pushed main to /srv/r.git: the remote's main is " C1 ", read back after the push and "
           "containing this side's tip (the remote's new commits were merged here first).\n",
           "<p>Pushed main to /srv/r.git: the remote&#39;s main is " C1 ", read back after the "
           "push and containing this side&#39;s tip (the remote&#39;s new commits were merged "
           "here first).\n</p>\n");
    vs_buf_free(&text);
    vs_buf_free(&html);
}
END_TEST

START_TEST(notice)
{
    vs_buf text = VS_BUF_INIT;
    vs_records_render_notice("repaired the records work tree", &text);
    ck_assert_str_eq(vs_buf_str(&text), "records: repaired the records work tree\n");
    vs_buf_free(&text);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("render_records");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, commit_new_and_unchanged);
    tcase_add_test(tc, commit_repaired);
    tcase_add_test(tc, history_table);
    tcase_add_test(tc, log_payload);
    tcase_add_test(tc, show_page);
    tcase_add_test(tc, reproduce_and_reopen);
    tcase_add_test(tc, records_info);
    tcase_add_test(tc, push_and_pull);
    tcase_add_test(tc, notice);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
