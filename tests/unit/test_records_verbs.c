/* The records verbs (src/lang/verbs_records.c) through the interpreter, with a
 * temporary records repository; plus the pure diff and markdown renderers. */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lang/interp.h"
#include "render/bundle.h"
#include "render/diff.h"
#include "render/markdown.h"
#include "sheet/derived.h"
#include "sheet/diff.h"
#include "sheet/sheet.h"
#include "store/store_sheet.h"
#include "util/buf.h"

#include "check_run.h"
#include "results.h"
#include "shell_out.h"
#include "test_tmp.h"

static char tmpdir[256], records[300];

static void setup(void)
{
    vs_test_tmp(tmpdir, sizeof tmpdir, "vs_test_records_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
    snprintf(records, sizeof records, "%s/records", tmpdir);
    setenv("VRAMSHEET_RECORDS", records, 1);
    setenv("GIT_AUTHOR_NAME", "tester", 1);
    setenv("GIT_AUTHOR_EMAIL", "tester@example.org", 1);
}

static void teardown(void)
{
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
}

/* Runs a cell; returns the rc, the last result's payload (new reference) in
 * *payload when asked. */
static int run(vs_interp *ip, const char *code, json_t **payload, vs_error *err)
{
    json_t *res = NULL;
    vs_sink sink;
    int rc;
    memset(&sink, 0, sizeof sink);
    vs_error_clear(err);
    rc = vs_test_execute(ip, code, &sink, &res, err);
    if (payload) {
        *payload = res ? json_incref(json_object_get(res, VS_MIME_JSON)) : NULL;
    }
    json_decref(res);
    return rc;
}

static const char *pstr(const json_t *p, const char *k)
{
    return json_string_value(json_object_get(p, k));
}

static const char setup_cell[] = "sheet \"Llama 7B campaign A\"\n"
                                 "model meta-llama/Llama-2-7b-chat-hf params=6.74B\n"
                                 "format bf16\n"
                                 "reserve kv_cache 16GiB status=estimated source=\"kv formula\"\n"
                                 "invalidate \"a context longer than 4096 tokens\"\n";

START_TEST(test_commit_history_show)
{
    vs_interp *ip = vs_interp_new(NULL), *ip2 = vs_interp_new(NULL);
    vs_error err;
    json_t *p = NULL, *revs;
    char *out, c1[41], c2[41];
    ck_assert_int_eq(run(ip, setup_cell, NULL, &err), 0);
    ck_assert_int_eq(run(ip, "commit \"first estimate\"", &p, &err), 0);
    ck_assert_str_eq(pstr(p, "kind"), "commit");
    ck_assert_str_eq(pstr(p, "sheet"), "llama-7b-campaign-a");
    ck_assert_str_eq(pstr(p, "branch"), "main");
    ck_assert_int_eq((int)strlen(pstr(p, "commit")), 40);
    snprintf(c1, sizeof c1, "%s", pstr(p, "commit"));
    json_decref(p);
    /* git reads what the verb wrote */
    out = vs_test_sh("cd '%s' && git log --format=%%H%%x20%%s && git status --porcelain && "
                     "git fsck --strict --no-dangling 2>&1",
                     records);
    ck_assert_ptr_nonnull(strstr(out, c1));
    ck_assert_ptr_nonnull(strstr(out, "llama-7b-campaign-a: first estimate"));
    ck_assert_int_eq((int)strlen(out), 41 + (int)strlen("llama-7b-campaign-a: first estimate") + 1);
    free(out);
    out = vs_test_sh("git -C '%s' show main:sheets/llama-7b-campaign-a/sheet.md", records);
    ck_assert_ptr_nonnull(strstr(out, "| kv_cache | 17,179,869,184 B | 17.18 GB | 16.00 GiB |"));
    ck_assert_ptr_nonnull(strstr(out, "- a context longer than 4096 tokens"));
    free(out);

    /* a second commit after a change builds on the first (no conflict) */
    ck_assert_int_eq(run(ip,
                         "reserve workspace 2GiB status=estimated source=\"guess\"\n"
                         "decide \"RTX 6000 Ada, pending the context check\"\n"
                         "commit \"with workspace\"",
                         &p, &err),
                     0);
    snprintf(c2, sizeof c2, "%s", pstr(p, "commit"));
    json_decref(p);
    ck_assert_int_eq(run(ip, "history", &p, &err), 0);
    ck_assert_str_eq(pstr(p, "kind"), "history");
    revs = json_object_get(p, "revisions");
    ck_assert_uint_eq(json_array_size(revs), 2);
    ck_assert_str_eq(pstr(json_array_get(revs, 0), "commit"), c2);
    ck_assert_str_eq(pstr(json_array_get(revs, 1), "commit"), c1);
    ck_assert_str_eq(pstr(json_array_get(revs, 0), "message"),
                     "llama-7b-campaign-a: with workspace");
    json_decref(p);

    /* another session opens it with show, at a revision */
    ck_assert_int_eq(run(ip2, "show llama-7b-campaign-a@HEAD~1", &p, &err), 0);
    ck_assert_str_eq(pstr(p, "kind"), "sheet");
    ck_assert_str_eq(pstr(p, "id"), "llama-7b-campaign-a");
    ck_assert_str_eq(pstr(json_object_get(p, "revision"), "commit"), c1);
    ck_assert_uint_eq(json_array_size(json_object_get(p, "components")), 1);
    json_decref(p);
    ck_assert_int_eq(run(ip2, "show nope", NULL, &err), VS_ENOTFOUND);
    ck_assert_int_eq(run(ip2, "show Bad@x", NULL, &err), VS_EVALUE);
    vs_interp_free(ip);
    vs_interp_free(ip2);
}
END_TEST

START_TEST(test_concurrent_same_sheet_refused)
{
    vs_interp *a = vs_interp_new(NULL), *b = vs_interp_new(NULL);
    vs_error err;
    json_t *p = NULL;
    char *out;
    ck_assert_int_eq(run(a, setup_cell, NULL, &err), 0);
    ck_assert_int_eq(run(a, "commit \"base\"", NULL, &err), 0);
    ck_assert_int_eq(run(b, "show llama-7b-campaign-a", NULL, &err), 0);
    ck_assert_int_eq(run(b, "reserve extra 1GiB\ncommit \"theirs\"", NULL, &err), 0);
    ck_assert_int_eq(run(a, "reserve mine 3GiB\ncommit \"mine\"", NULL, &err), VS_ECONFLICT);
    ck_assert_str_eq(vs_error_ename(err.code), "RecordsError");
    ck_assert_ptr_nonnull(strstr(err.message, "replace"));
    ck_assert_int_eq(err.line, 2);
    out = vs_test_sh("git -C '%s' log --format=%%s", records);
    ck_assert_str_eq(out, "llama-7b-campaign-a: theirs\nllama-7b-campaign-a: base\n");
    free(out);
    /* the person chooses to record theirs on top */
    ck_assert_int_eq(run(a, "reserve mine 3GiB\ncommit \"mine\" replace", &p, &err), 0);
    json_decref(p);
    out = vs_test_sh(
        "git -C '%s' show main:sheets/llama-7b-campaign-a/sheet.json | grep -c '\"name\"'",
        records);
    ck_assert_str_eq(out, "2\n"); /* kv_cache and mine: b's extra is in history only */
    free(out);
    /* a new session's sheet of the same id does not silently replace the record:
     * restating a state the records hold (base, two revisions back) writes
     * nothing, and a change from there meets the newer revisions as a conflict */
    vs_interp_free(b);
    b = vs_interp_new(NULL);
    ck_assert_int_eq(run(b, setup_cell, NULL, &err), 0);
    ck_assert_int_eq(run(b, "commit \"again\"", &p, &err), 0);
    ck_assert(json_is_true(json_object_get(p, "unchanged")));
    ck_assert(json_is_true(json_object_get(p, "held_earlier")));
    out = vs_test_sh("git -C '%s' log --format=%%H -1 --skip=2", records); /* base */
    ck_assert_int_eq(strncmp(out, pstr(p, "commit"), 40), 0);
    free(out);
    json_decref(p);
    ck_assert_int_eq(run(b, "reserve other 2GiB\ncommit \"again\"", NULL, &err), VS_ECONFLICT);
    ck_assert_ptr_nonnull(strstr(err.message, "changed in the records"));
    vs_interp_free(b);
    b = vs_interp_new(NULL);
    ck_assert_int_eq(run(b, setup_cell, NULL, &err), 0);
    ck_assert_int_eq(run(b, "reserve other 2GiB\ncommit \"again\"", NULL, &err), VS_ECONFLICT);
    ck_assert_ptr_nonnull(strstr(err.message, "did not load"));
    out = vs_test_sh("git -C '%s' rev-list --count main", records);
    ck_assert_str_eq(out, "3\n");
    free(out);
    vs_interp_free(a);
    vs_interp_free(b);
}
END_TEST

START_TEST(test_rerun_same_state_unchanged)
{
    /* A notebook run again from the top in a new kernel states the same sheet:
     * nothing is written, and the session can go on committing on top of it. */
    vs_interp *a = vs_interp_new(NULL), *b = vs_interp_new(NULL);
    vs_error err;
    json_t *p = NULL;
    char *out;
    ck_assert_int_eq(run(a, setup_cell, NULL, &err), 0);
    ck_assert_int_eq(run(a, "commit \"first\"", &p, &err), 0);
    ck_assert(json_is_false(json_object_get(p, "unchanged")));
    json_decref(p);
    ck_assert_int_eq(run(b, setup_cell, NULL, &err), 0);
    ck_assert_int_eq(run(b, "commit \"first\"", &p, &err), 0);
    ck_assert(json_is_true(json_object_get(p, "unchanged")));
    out = vs_test_sh("git -C '%s' rev-parse main", records);
    ck_assert_int_eq(strncmp(out, pstr(p, "commit"), 40), 0);
    free(out);
    json_decref(p);
    ck_assert_int_eq(run(b, "reserve more 1GiB\ncommit \"second\"", NULL, &err), 0);
    out = vs_test_sh("git -C '%s' log --format=%%s", records);
    ck_assert_str_eq(out, "llama-7b-campaign-a: second\nllama-7b-campaign-a: first\n");
    free(out);
    vs_interp_free(a);
    vs_interp_free(b);
}
END_TEST

START_TEST(test_commit_stays_when_cell_fails)
{
    vs_interp *ip = vs_interp_new(NULL);
    vs_error err;
    char *out;
    ck_assert_int_eq(run(ip, setup_cell, NULL, &err), 0);
    ck_assert_int_eq(run(ip, "commit \"kept\"\nconvert 1 parsecs", NULL, &err), VS_EUNIT);
    ck_assert_ptr_nonnull(strstr(err.message, "committed llama-7b-campaign-a@"));
    out = vs_test_sh("git -C '%s' log --format=%%s", records);
    ck_assert_str_eq(out, "llama-7b-campaign-a: kept\n");
    free(out);
    vs_interp_free(ip);
}
END_TEST

START_TEST(test_diff_and_reproduce)
{
    vs_interp *ip = vs_interp_new(NULL);
    vs_error err;
    json_t *p = NULL, *changes, *c, *lin, *ms;
    size_t i;
    int saw_comp = 0, saw_decision = 0, saw_length = 0;
    ck_assert_int_eq(run(ip, setup_cell, NULL, &err), 0);
    ck_assert_int_eq(run(ip,
                         "record phase=load gpu=0 gpu_name=\"RTX 4090\" "
                         "counter=torch.max_memory_reserved 14GiB\n"
                         "record phase=generate gpu=0 gpu_name=\"H100\" "
                         "counter=torch.max_memory_reserved 20GiB\n"
                         "commit \"one\"",
                         NULL, &err),
                     0);
    ck_assert_int_eq(run(ip,
                         "reserve kv_cache 32GiB status=estimated source=\"longer\"\n"
                         "length 8192\ndecide \"H100\"\ncommit \"two\"",
                         NULL, &err),
                     0);
    ck_assert_int_eq(run(ip, "diff llama-7b-campaign-a@HEAD~1 HEAD", &p, &err), 0);
    ck_assert_str_eq(pstr(p, "kind"), "diff");
    ck_assert(json_is_false(json_object_get(p, "same")));
    changes = json_object_get(p, "changes");
    json_array_foreach(changes, i, c)
    {
        if (!strcmp(pstr(c, "section"), "components") && !strcmp(pstr(c, "item"), "kv_cache")) {
            saw_comp = 1;
            ck_assert_str_eq(pstr(c, "change"), "changed");
            ck_assert_int_eq(json_integer_value(json_object_get(c, "delta_bytes")), 17179869184LL);
        }
        if (!strcmp(pstr(c, "section"), "decision"))
            saw_decision = 1;
        if (!strcmp(pstr(c, "section"), "card") && !strcmp(pstr(c, "item"), "length"))
            saw_length = 1;
    }
    ck_assert(saw_comp && saw_decision && saw_length);
    json_decref(p);
    /* against the session: nothing changed since the commit */
    ck_assert_int_eq(run(ip, "diff llama-7b-campaign-a@HEAD", &p, &err), 0);
    ck_assert(json_is_true(json_object_get(p, "same")));
    json_decref(p);

    ck_assert_int_eq(
        run(ip, "reproduce llama-7b-campaign-a@HEAD~1 as \"campaign B\" gpu=\"H100\"", &p, &err),
        0);
    ck_assert_str_eq(pstr(p, "kind"), "reproduce");
    ck_assert_str_eq(pstr(p, "sheet"), "campaign-b");
    ck_assert_int_eq(json_integer_value(json_object_get(p, "to_remeasure")), 1);
    lin = json_object_get(p, "lineage");
    ck_assert_str_eq(pstr(lin, "sheet"), "llama-7b-campaign-a");
    ck_assert_int_eq((int)strlen(pstr(lin, "commit")), 40);
    json_decref(p);
    ck_assert_int_eq(run(ip, "commit \"from A\"\nshow campaign-b", &p, &err), 0);
    ck_assert_str_eq(pstr(json_object_get(p, "lineage"), "sheet"), "llama-7b-campaign-a");
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(p, "card"), "length")), 0);
    ms = json_object_get(p, "measurements");
    ck_assert_uint_eq(json_array_size(ms), 2);
    ck_assert_str_eq(pstr(json_array_get(ms, 0), "state"), "to re-measure"); /* RTX 4090 */
    ck_assert_str_eq(pstr(json_array_get(ms, 1), "state"), "current");       /* H100 */
    ck_assert(json_is_null(json_object_get(p, "decision")));
    ck_assert_uint_eq(json_array_size(json_object_get(p, "invalidate")), 1);
    /* gpu= is the new campaign's offer; "H100" names three catalogue entries, so
     * there is none yet (test_reproduce_gpu_is_the_offer has a catalogue name) */
    ck_assert_uint_eq(json_array_size(json_object_get(p, "offers")), 0);
    json_decref(p);
    ck_assert_int_eq(
        run(ip, "reproduce llama-7b-campaign-a as \"campaign C\" software=\"vllm 0.6\"", &p, &err),
        0);
    ck_assert_int_eq(json_integer_value(json_object_get(p, "to_remeasure")), 2);
    json_decref(p);
    /* run again from the same source: the campaign is reopened, not refused */
    ck_assert_int_eq(run(ip, "reproduce llama-7b-campaign-a as \"campaign C\"", &p, &err), 0);
    ck_assert(json_is_true(json_object_get(p, "reopened")));
    ck_assert_str_eq(pstr(p, "from"), "session");
    json_decref(p);
    /* from another state of the source: the id is taken */
    ck_assert_int_eq(
        run(ip, "sheet \"Llama 7B campaign A\"\nreserve later 1GiB\ncommit \"later\"", NULL, &err),
        0);
    ck_assert_int_eq(run(ip, "reproduce llama-7b-campaign-a as \"campaign C\"", NULL, &err),
                     VS_EVALUE);
    vs_interp_free(ip);
}
END_TEST

/* An imported log's release rides on its measurements into the record, and
 * reproduce carries it into the new campaign. The log: kvcached#29's vLLM 0.9.2
 * lines (https://github.com/ovg-project/kvcached/issues/29), verbatim. */
START_TEST(test_reproduce_carries_engine_version)
{
    vs_interp *ip = vs_interp_new(NULL);
    vs_error err;
    json_t *p = NULL, *ms;
    char path[400], cell[700];
    FILE *f;
    size_t i;
    snprintf(path, sizeof path, "%s/vllm.log", tmpdir);
    ck_assert_ptr_nonnull(f = fopen(path, "w"));
    fputs("INFO 07-17 00:07:07 [core.py:69] Initializing a V1 LLM engine (v0.9.2) with config: "
          "model='meta-llama/Llama-3.1-8B', speculative_config=None\n"
          "ValueError: Free memory on device (59.32/79.15 GiB) on startup is less than desired "
          "GPU memory utilization (0.9, 71.24 GiB). Decrease GPU memory utilization or reduce "
          "GPU memory used by other processes.\n",
          f);
    fclose(f);
    snprintf(cell, sizeof cell,
             "sheet \"Import campaign\"\nmodel m params=8B\nformat bf16\nmeasure import \"%s\"\n"
             "commit \"imported\"",
             path);
    ck_assert_msg(run(ip, cell, NULL, &err) == 0, "%s", err.message);
    ck_assert_int_eq(run(ip,
                         "reproduce import-campaign as \"import again\"\ncommit \"again\"\n"
                         "show import-again",
                         &p, &err),
                     0);
    ms = json_object_get(p, "measurements");
    ck_assert_uint_gt(json_array_size(ms), 0);
    for (i = 0; i < json_array_size(ms); i++)
        ck_assert_str_eq(pstr(json_array_get(ms, i), "engine_version"), "0.9.2");
    json_decref(p);
    vs_interp_free(ip);
}
END_TEST

/* reproduce gpu="NAME" makes NAME the new sheet's offer: the source's offers go,
 * unless keep_offers=yes keeps them beside it; keep_offers alone is refused. */
START_TEST(test_reproduce_gpu_is_the_offer)
{
    vs_interp *ip = vs_interp_new(NULL);
    vs_error err;
    json_t *p = NULL, *offers;
    ck_assert_int_eq(run(ip, setup_cell, NULL, &err), 0);
    ck_assert_int_eq(run(ip, "gpu \"RTX 4090\"\ngpu \"L4\"\ncommit \"two offers\"", NULL, &err), 0);
    ck_assert_int_eq(run(ip,
                         "reproduce llama-7b-campaign-a as \"on a 5090\" gpu=\"RTX 5090\"\n"
                         "commit \"the 5090 campaign\"\nshow on-a-5090",
                         &p, &err),
                     0);
    offers = json_object_get(p, "offers");
    ck_assert_uint_eq(json_array_size(offers), 1);
    ck_assert_str_eq(pstr(json_array_get(offers, 0), "name"), "RTX 5090");
    ck_assert_str_eq(pstr(json_array_get(offers, 0), "catalog"), "RTX 5090");
    json_decref(p);
    ck_assert_int_eq(run(ip,
                         "reproduce llama-7b-campaign-a as \"beside\" gpu=\"RTX 5090\" "
                         "keep_offers=yes\ncommit \"kept\"\nshow beside",
                         &p, &err),
                     0);
    offers = json_object_get(p, "offers");
    ck_assert_uint_eq(json_array_size(offers), 3);
    ck_assert_str_eq(pstr(json_array_get(offers, 0), "name"), "RTX 4090");
    ck_assert_str_eq(pstr(json_array_get(offers, 2), "name"), "RTX 5090");
    json_decref(p);
    ck_assert_int_eq(run(ip, "reproduce llama-7b-campaign-a as \"x\" keep_offers=yes", NULL, &err),
                     VS_EVALUE);
    ck_assert_int_eq(err.line, 1);
    vs_interp_free(ip);
}
END_TEST

/* A title whose id is the source's own: refused at the reproduce line even
 * when the source is only recorded (a fresh session), where it used to create
 * a sheet that committed over the source's history. */
/* `history` with no sheet open names none: no "untitled" sheet is opened
 * behind the person's back, and the session stays empty. */
START_TEST(test_history_opens_no_untitled)
{
    vs_interp *ip = vs_interp_new(NULL);
    vs_error err;
    json_t *p = NULL;
    ck_assert_int_eq(run(ip, "history", &p, &err), VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "no sheet is open"));
    ck_assert_ptr_nonnull(strstr(err.message, "history SHEET"));
    ck_assert_int_eq(run(ip, "sheet", &p, &err), 0);
    {
        char *dump = json_dumps(p, JSON_COMPACT);
        ck_assert_ptr_null(strstr(dump, "untitled"));
        free(dump);
    }
    json_decref(p);
    vs_interp_free(ip);
}
END_TEST

START_TEST(test_reproduce_own_id_refused)
{
    vs_interp *ip = vs_interp_new(NULL), *ip2 = vs_interp_new(NULL);
    vs_error err;
    json_t *p = NULL;
    ck_assert_int_eq(run(ip, setup_cell, NULL, &err), 0);
    ck_assert_int_eq(run(ip, "commit \"one\"", NULL, &err), 0);
    ck_assert_int_eq(
        run(ip2, "reproduce llama-7b-campaign-a as \"Llama 7B: campaign A\"", &p, &err), VS_EVALUE);
    ck_assert_ptr_null(p);
    ck_assert_ptr_nonnull(strstr(err.message, "source sheet's own"));
    ck_assert_ptr_nonnull(strstr(err.message, "choose another title"));
    ck_assert_int_gt(err.column, 0);
    ck_assert_int_eq(
        run(ip2, "reproduce llama-7b-campaign-a@HEAD as \"llama-7b-campaign-a\"", NULL, &err),
        VS_EVALUE);
    /* another title is fine */
    ck_assert_int_eq(run(ip2, "reproduce llama-7b-campaign-a as \"campaign A2\"", &p, &err), 0);
    ck_assert_str_eq(pstr(p, "sheet"), "campaign-a2");
    json_decref(p);
    vs_interp_free(ip);
    vs_interp_free(ip2);
}
END_TEST

START_TEST(test_records_paths_and_sync)
{
    vs_interp *ip = vs_interp_new(NULL), *ip2 = vs_interp_new(NULL);
    vs_error err;
    json_t *p = NULL;
    char cell[1200], *out;
    ck_assert_int_eq(run(ip, "records", &p, &err), 0);
    ck_assert_str_eq(pstr(p, "kind"), "records");
    ck_assert_str_eq(pstr(p, "path"), records);
    ck_assert(json_is_false(json_object_get(p, "exists")));
    json_decref(p);
    /* an unusable path is refused and the path in force stays */
    out = vs_test_sh("mkdir -p '%s/junk' && echo x > '%s/junk/file' && echo ok", tmpdir, tmpdir);
    free(out);
    snprintf(cell, sizeof cell, "records %s/junk", tmpdir);
    ck_assert_int_eq(run(ip, cell, NULL, &err), VS_ERECORDS);
    ck_assert_ptr_nonnull(strstr(err.message, "not a git repository"));
    ck_assert_int_eq(run(ip, "records", &p, &err), 0);
    ck_assert_str_eq(pstr(p, "path"), records);
    json_decref(p);
    /* `records ~/x` is the home folder's x, as in a shell */
    {
        const char *home = getenv("HOME");
        setenv("HOME", tmpdir, 1);
        ck_assert_int_eq(run(ip, "records ~/tilde", &p, &err), 0);
        snprintf(cell, sizeof cell, "%s/tilde", tmpdir);
        ck_assert_str_eq(pstr(p, "path"), cell);
        json_decref(p);
        ck_assert_int_eq(run(ip, "records \"~nobody/x\"", &p, &err), 0); /* only ~ and ~/ */
        json_decref(p);
        if (home)
            setenv("HOME", home, 1);
        snprintf(cell, sizeof cell, "records %s", records);
        ck_assert_int_eq(run(ip, cell, &p, &err), 0);
        json_decref(p);
    }
    /* a bare repository as records, then push and pull with a remote */
    out = vs_test_sh("git init -q --bare -b main '%s/hub.git' && echo ok", tmpdir);
    ck_assert_str_eq(out, "ok\n");
    free(out);
    ck_assert_int_eq(run(ip, setup_cell, NULL, &err), 0);
    snprintf(cell, sizeof cell, "commit \"local\"\nrecords push %s/hub.git", tmpdir);
    ck_assert_int_eq(run(ip, cell, &p, &err), 0);
    ck_assert_str_eq(pstr(p, "kind"), "push");
    ck_assert_int_eq((int)strlen(pstr(p, "remote_tip")), 40);
    json_decref(p);
    snprintf(cell, sizeof cell, "records %s/other\nrecords pull file://%s/hub.git\nrecords", tmpdir,
             tmpdir);
    ck_assert_int_eq(run(ip2, cell, &p, &err), 0);
    ck_assert_str_eq(json_string_value(json_array_get(json_object_get(p, "sheets"), 0)),
                     "llama-7b-campaign-a");
    json_decref(p);
    out = vs_test_sh("cd '%s/other' && git status --porcelain && ls sheets", tmpdir);
    ck_assert_str_eq(out, "llama-7b-campaign-a\n");
    free(out);
    vs_interp_free(ip);
    vs_interp_free(ip2);
}
END_TEST

/* --- pure renderers --- */

static json_t *sample(void)
{
    json_t *s = vs_sheet_new("Sample | sheet");
    vs_error err;
    json_object_set_new(vs_sheet_card(s), "params", json_integer(7000000000LL));
    json_object_set_new(vs_sheet_card(s), "bits", json_integer(16));
    vs_sheet_set_component(s, "kv_cache", 1, 6442450944ULL, "estimated", "2 x L x H", NULL,
                           "kv_cache", &err);
    vs_sheet_set_component(s, "workspace", 0, 0, "unknown", NULL, NULL, NULL, &err);
    return s;
}

START_TEST(test_markdown)
{
    json_t *s = sample();
    char *md = vs_markdown_sheet(s), *md2;
    ck_assert_ptr_nonnull(md);
    ck_assert_ptr_nonnull(strstr(md, "# Sample | sheet\n"));
    /* seed example: 7e9 params at 16 bits = 14,000,000,000 B = 13.04 GiB; +6 GiB = 19.04 GiB */
    ck_assert_ptr_nonnull(strstr(md, "| weights | 14,000,000,000 B | 14.00 GB | 13.04 GiB |"));
    ck_assert_ptr_nonnull(strstr(md, "| kv_cache | 6,442,450,944 B | 6.44 GB | 6.00 GiB |"));
    ck_assert_ptr_nonnull(strstr(md, "20,442,450,944 B = 20.44 GB = 19.04 GiB"));
    ck_assert_ptr_nonnull(strstr(md, "| workspace | unknown | unknown | unknown | unknown |"));
    ck_assert_ptr_nonnull(strstr(md, "1 component is unknown"));
    ck_assert_ptr_nonnull(strstr(md, "## Invalidating conditions"));
    ck_assert_int_eq(md[strlen(md) - 1], '\n');
    ck_assert_int_ne(md[strlen(md) - 2], '\n');
    md2 = vs_markdown_sheet(s);
    ck_assert_str_eq(md, md2); /* stable */
    free(md);
    free(md2);
    /* pipes inside a cell are escaped */
    vs_sheet_set_component(s, "a|b", 1, 1, "estimated", "x|y", NULL, NULL, NULL);
    md = vs_markdown_sheet(s);
    ck_assert_ptr_nonnull(strstr(md, "| a\\|b | 1 B |"));
    free(md);
    json_decref(s);
}
END_TEST

/* Typed text in sheet.md reads as its characters: no HTML, link, emphasis,
 * code or block of its own. The expected lines are written out by hand from
 * CommonMark's rules (backslash escapes, entities, code spans). */
START_TEST(test_markdown_escapes)
{
    json_t *s = vs_sheet_new("Evil <img src=x onerror=alert(1)>\n# Injected heading");
    json_t *runs = json_array();
    vs_error err;
    char *md;
    const char *line;
    int headings = 0;
    json_object_set_new(s, "decision",
                        json_string("[click](javascript:alert(1)) **bold** `x` _em_ a & b"));
    vs_sheet_set_component(s, "<script>alert(1)</script>", 1, 1, "estimated", "x|y\n## row", NULL,
                           NULL, &err);
    json_array_append_new(json_object_get(s, "invalidate"), json_string("- nested\n- list"));
    json_array_append_new(runs, json_pack("{s:s, s:s}", "id", "m1", "command",
                                          "echo `id` ``x`` <b>\n# not a heading"));
    json_object_set_new(s, "runs", runs);
    md = vs_markdown_sheet(s);
    ck_assert_ptr_nonnull(md);
    ck_assert_msg(strstr(md, "# Evil &lt;img src=x onerror=alert(1)&gt; # Injected heading\n"),
                  "%s", md);
    ck_assert_msg(strstr(md, "\n\\[click\\](javascript:alert(1)) \\*\\*bold\\*\\* \\`x\\` \\_em\\_ "
                             "a &amp; b\n"),
                  "%s", md);
    ck_assert_msg(strstr(md, "| &lt;script&gt;alert(1)&lt;/script&gt; | 1 B |"), "%s", md);
    ck_assert_msg(strstr(md, "| x\\|y ## row |"), "%s", md);
    ck_assert_msg(strstr(md, "\n- \\- nested - list\n"), "%s", md);
    /* the command verbatim in a code span longer than its backtick runs */
    ck_assert_msg(strstr(md, "- run m1: ```echo `id` ``x`` <b> # not a heading```"), "%s", md);
    ck_assert_ptr_null(strstr(md, "<img"));
    ck_assert_ptr_null(strstr(md, "<script"));
    ck_assert_ptr_null(strstr(md, "click](")); /* the bracket escaped: no link */
    /* the only headings are the page's own: its title and its sections */
    for (line = md; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
        if (*line == '#') {
            headings++;
            ck_assert_msg(!strncmp(line, "# Evil", 6) || !strncmp(line, "## ", 3), "%.40s", line);
        }
    ck_assert_int_ge(headings, 6);
    free(md);
    json_decref(s);
}
END_TEST

START_TEST(test_diff_pure)
{
    json_t *a = sample(), *b = json_deep_copy(a), *ch, *bundle;
    const char *text;
    vs_bundle *vb;
    vs_error err;
    ch = vs_diff_changes(a, b);
    ck_assert_uint_eq(json_array_size(ch), 0);
    json_decref(ch);
    vs_sheet_set_component(b, "kv_cache", 1, 8589934592ULL, "measured", "nvml", "generate",
                           "kv_cache", &err);
    vs_sheet_set_component(b, "buffers", 1, 1000, "estimated", NULL, NULL, NULL, &err);
    json_array_append_new(vs_sheet_array(b, VS_SK_INVALIDATE), json_string("new driver"));
    json_object_set_new(b, "decision", json_string("H100"));
    json_object_set_new(b, "_runtime", json_string("ignored"));
    ch = vs_diff_changes(a, b);
    ck_assert_uint_eq(json_array_size(ch), 4);
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(ch, 0), "change")),
                     "changed");
    ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(ch, 0), "delta_bytes")),
                     2147483648LL);
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(ch, 1), "item")), "buffers");
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(ch, 1), "change")), "added");
    json_decref(ch);
    vb = vs_diff_bundle(a, b, "x@1", "x@2", json_pack("{s:s}", "from_commit", "abc"));
    bundle = vs_test_bundle_json(vb);
    vs_bundle_free(vb);
    ck_assert_str_eq(
        json_string_value(json_object_get(json_object_get(bundle, VS_MIME_JSON), "from_commit")),
        "abc");
    text = json_string_value(json_object_get(bundle, "text/plain"));
    ck_assert_ptr_nonnull(strstr(text, "bytes: 6,442,450,944 B = 6.44 GB = 6.00 GiB → "
                                       "8,589,934,592 B = 8.59 GB = 8.00 GiB"));
    ck_assert_ptr_nonnull(strstr(text, "(+2,147,483,648 B)"));
    ck_assert_ptr_nonnull(strstr(text, "new driver"));
    ck_assert_ptr_nonnull(
        strstr(json_string_value(json_object_get(bundle, "text/html")), "<table"));
    json_decref(bundle);
    json_decref(a);
    json_decref(b);
}
END_TEST

static int has_match(const json_t *m, const char *s)
{
    size_t i;
    json_t *x;
    json_array_foreach(m, i, x) if (!strcmp(json_string_value(x), s)) return 1;
    return 0;
}

/* SHEET@~N through show and diff, with another sheet's commits interleaved;
 * the git CLI names the commits. Ids complete from the records in a new kernel. */
START_TEST(test_sheet_revisions_verbs)
{
    vs_interp *ip = vs_interp_new(NULL), *ip2;
    vs_error err;
    json_t *p = NULL, *m;
    size_t start, end;
    char *out, want[64];
    const char *code;
    ck_assert_int_eq(run(ip, setup_cell, NULL, &err), 0);
    ck_assert_int_eq(run(ip, "commit \"a1\"\nsheet \"other\"\ncommit \"o1\"", NULL, &err), 0);
    ck_assert_int_eq(run(ip,
                         "sheet \"Llama 7B campaign A\"\nreserve extra 1GiB\ncommit \"a2\"\n"
                         "sheet \"other\"\nreserve o 1GiB\ncommit \"o2\"",
                         NULL, &err),
                     0);
    ck_assert_int_eq(run(ip, "show llama-7b-campaign-a@~1", &p, &err), 0);
    out = vs_test_sh("git -C '%s' log --format=%%H -- sheets/llama-7b-campaign-a/ | sed -n 2p",
                     records);
    snprintf(want, sizeof want, "%s\n", pstr(json_object_get(p, "revision"), "commit"));
    ck_assert_str_eq(out, want);
    free(out);
    ck_assert_ptr_null(vs_sheet_component(p, "extra"));
    json_decref(p);
    ck_assert_int_eq(run(ip, "show llama-7b-campaign-a@HEAD~1", &p, &err), 0);
    out = vs_test_sh("git -C '%s' rev-parse HEAD~1", records);
    snprintf(want, sizeof want, "%s\n", pstr(json_object_get(p, "revision"), "commit"));
    ck_assert_str_eq(out, want);
    free(out);
    ck_assert_ptr_nonnull(vs_sheet_component(p, "extra"));
    json_decref(p);
    /* the sheet's last change, whatever came after it on the branch */
    ck_assert_int_eq(run(ip, "diff llama-7b-campaign-a@~1 ~0", &p, &err), 0);
    ck_assert(json_is_false(json_object_get(p, "same")));
    json_decref(p);
    ck_assert_int_eq(run(ip, "diff llama-7b-campaign-a@HEAD~1 HEAD", &p, &err), 0);
    ck_assert(json_is_true(json_object_get(p, "same")));
    json_decref(p);
    ck_assert_int_eq(run(ip, "show llama-7b-campaign-a@~2", NULL, &err), VS_ENOTFOUND);
    ck_assert_ptr_nonnull(strstr(err.message, "@~1 the oldest"));
    ck_assert_int_eq(run(ip, "help show", &p, &err), 0);
    ck_assert_ptr_nonnull(strstr(pstr(p, "help"), "~N"));
    ck_assert_ptr_nonnull(strstr(pstr(p, "help"), "HEAD~N"));
    json_decref(p);
    /* a new kernel: the records' ids complete */
    ip2 = vs_interp_new(NULL);
    code = "show ll";
    ck_assert_int_eq(vs_interp_complete(ip2, code, strlen(code), &m, &start, &end), 0);
    ck_assert(has_match(m, "llama-7b-campaign-a@"));
    ck_assert(has_match(m, "llama-7b-campaign-a"));
    ck_assert(!has_match(m, "other"));
    json_decref(m);
    code = "diff oth";
    ck_assert_int_eq(vs_interp_complete(ip2, code, strlen(code), &m, &start, &end), 0);
    ck_assert(has_match(m, "other@"));
    json_decref(m);
    vs_interp_free(ip2);
    vs_interp_free(ip);
}
END_TEST

/* validates_card is written as the card is at commit time. */
START_TEST(test_validates_card_fresh_at_commit)
{
    vs_interp *ip = vs_interp_new(NULL);
    vs_error err;
    char *out;
    ck_assert_int_eq(run(ip, setup_cell, NULL, &err), 0);
    ck_assert_int_eq(run(ip,
                         "length 4096\nconcurrency 8\n"
                         "record phase=generate gpu=0 counter=torch.max_memory_reserved 20GiB "
                         "length=4096 concurrency=8\ncommit \"validates\"",
                         NULL, &err),
                     0);
    out = vs_test_sh("git -C '%s' show main:sheets/llama-7b-campaign-a/sheet.json | grep -o "
                     "'\"validates_card\": [a-z]*'",
                     records);
    ck_assert_str_eq(out, "\"validates_card\": true\n");
    free(out);
    ck_assert_int_eq(run(ip, "concurrency 16\ncommit \"more sequences\"", NULL, &err), 0);
    out = vs_test_sh("git -C '%s' show main:sheets/llama-7b-campaign-a/sheet.json | grep -o "
                     "'\"validates_card\": [a-z]*'; git -C '%s' show "
                     "main:sheets/llama-7b-campaign-a/sheet.md | grep -c '| yes |'",
                     records, records);
    ck_assert_str_eq(out, "\"validates_card\": false\n0\n");
    free(out);
    vs_interp_free(ip);
}
END_TEST

/* One change at a time: commit and diff warn when a revision changes two axes. */
START_TEST(test_one_change_at_a_time)
{
    vs_interp *ip = vs_interp_new(NULL);
    vs_error err;
    json_t *p = NULL;
    ck_assert_int_eq(run(ip, setup_cell, NULL, &err), 0);
    ck_assert_int_eq(run(ip, "length 4096\ncommit \"base\"", NULL, &err), 0);
    ck_assert_int_eq(run(ip, "length 8192\ncommit \"longer\"", &p, &err), 0);
    ck_assert(json_is_null(json_object_get(p, "warning")));
    json_decref(p);
    ck_assert_int_eq(run(ip, "format int4\nlength 16384\ncommit \"two at once\"", &p, &err), 0);
    ck_assert_str_eq(pstr(p, "warning"),
                     "this revision changes format and length together; compare one change at a "
                     "time");
    json_decref(p);
    ck_assert_int_eq(run(ip, "diff llama-7b-campaign-a@~1 ~0", &p, &err), 0);
    ck_assert_str_eq(pstr(p, "warning"),
                     "this revision changes format and length together; compare one change at a "
                     "time");
    json_decref(p);
    ck_assert_int_eq(run(ip, "diff llama-7b-campaign-a@~2 ~1", &p, &err), 0);
    ck_assert(json_is_null(json_object_get(p, "warning")));
    json_decref(p);
    vs_interp_free(ip);
}
END_TEST

/* reproduce ... as NAME run again in a new kernel reopens the campaign from the records. */
START_TEST(test_reproduce_reopens_in_new_kernel)
{
    vs_interp *ip = vs_interp_new(NULL);
    vs_error err;
    json_t *p = NULL;
    ck_assert_int_eq(run(ip, setup_cell, NULL, &err), 0);
    ck_assert_int_eq(run(ip,
                         "commit \"a\"\nreproduce llama-7b-campaign-a@~0 as \"campaign B\" "
                         "gpu=\"H100\"\nreserve b 1GiB\ncommit \"b\"",
                         NULL, &err),
                     0);
    vs_interp_free(ip);
    ip = vs_interp_new(NULL);
    ck_assert_int_eq(
        run(ip, "reproduce llama-7b-campaign-a@HEAD as \"campaign B\" gpu=\"H100\"", &p, &err), 0);
    ck_assert(json_is_true(json_object_get(p, "reopened")));
    ck_assert_str_eq(pstr(p, "from"), "records");
    json_decref(p);
    /* the reopened sheet is the recorded one, loaded: committing it writes nothing */
    ck_assert_int_eq(run(ip, "commit \"b\"", &p, &err), 0);
    ck_assert(json_is_true(json_object_get(p, "unchanged")));
    json_decref(p);
    vs_interp_free(ip);
}
END_TEST

/* records pull writes validates_card fresh: a sheet recorded elsewhere with a
 * value its card contradicts (edited with the git CLI here) is corrected by
 * one commit that says so. */
START_TEST(test_validates_card_fresh_at_pull)
{
    vs_interp *ip = vs_interp_new(NULL);
    vs_error err;
    json_t *p = NULL;
    char cell[900], *out;
    ck_assert_int_eq(run(ip, setup_cell, NULL, &err), 0);
    ck_assert_int_eq(run(ip,
                         "length 4096\nconcurrency 8\n"
                         "record phase=generate gpu=0 counter=torch.max_memory_reserved 20GiB "
                         "length=4096 concurrency=8\ncommit \"validates\"",
                         NULL, &err),
                     0);
    out = vs_test_sh(
        "cd '%s' && git init -q --bare -b main hub.git && git -C '%s' push -q '%s/hub.git' "
        "main && git clone -q hub.git clone && cd clone && sed -i '0,/\"concurrency\": 8/s//"
        "\"concurrency\": 16/' sheets/llama-7b-campaign-a/sheet.json && git -c "
        "user.name=t -c user.email=t@e commit -qam 'llama-7b-campaign-a: by hand' && git push "
        "-q origin main && grep -c '\"validates_card\": true' "
        "sheets/llama-7b-campaign-a/sheet.json",
        tmpdir, records, tmpdir);
    ck_assert_str_eq(out, "1\n");
    free(out);
    snprintf(cell, sizeof cell, "records pull %s/hub.git", tmpdir);
    ck_assert_int_eq(run(ip, cell, &p, &err), 0);
    ck_assert_str_eq(json_string_value(json_array_get(json_object_get(p, "recomputed"), 0)),
                     "llama-7b-campaign-a");
    json_decref(p);
    out = vs_test_sh(
        "git -C '%s' show main:sheets/llama-7b-campaign-a/sheet.json | grep -o "
        "'\"validates_card\": [a-z]*\\|\"concurrency\": 16'; git -C '%s' log -1 --format=%%s; "
        "git -C '%s' status --porcelain",
        records, records, records);
    ck_assert_str_eq(out, "\"concurrency\": 16\n\"validates_card\": false\n"
                          "llama-7b-campaign-a: validates_card recomputed from the card (records "
                          "pull)\n");
    free(out);
    /* the open sheet was loaded before the hand edit: its next commit meets
     * that edit as a concurrent change */
    ck_assert_int_eq(run(ip, "decide \"later\"\ncommit \"on top\"", NULL, &err), VS_ECONFLICT);
    vs_interp_free(ip);
}
END_TEST

/* The same cell run again in a new kernel a second later: its `record` is the
 * measurement the records hold (it keeps its recorded time), so the commit
 * writes nothing. */
START_TEST(test_restated_record_unchanged)
{
    static const char cell[] = "length 4096\nrecord phase=generate gpu=0 "
                               "counter=torch.max_memory_reserved 20GiB length=4096\n"
                               "commit \"measured\"";
    vs_interp *ip = vs_interp_new(NULL);
    vs_error err;
    json_t *p = NULL;
    char *out;
    ck_assert_int_eq(run(ip, setup_cell, NULL, &err), 0);
    ck_assert_int_eq(run(ip, cell, NULL, &err), 0);
    vs_interp_free(ip);
    sleep(1);
    ip = vs_interp_new(NULL);
    ck_assert_int_eq(run(ip, setup_cell, NULL, &err), 0);
    ck_assert_int_eq(run(ip, cell, &p, &err), 0);
    ck_assert(json_is_true(json_object_get(p, "unchanged")));
    json_decref(p);
    out = vs_test_sh("git -C '%s' rev-list --count main", records);
    ck_assert_str_eq(out, "1\n");
    free(out);
    /* a different measurement is a new one */
    ck_assert_int_eq(run(ip,
                         "record phase=generate gpu=0 counter=torch.max_memory_reserved 21GiB "
                         "length=4096\ncommit \"again\"",
                         &p, &err),
                     0);
    ck_assert(json_is_false(json_object_get(p, "unchanged")));
    json_decref(p);
    vs_interp_free(ip);
}
END_TEST

/* Which axes a revision changes, and the warning's words (pure). */
START_TEST(test_diff_axes_pure)
{
    json_t *a = vs_sheet_new("axes"), *b = json_deep_copy(a), *m;
    vs_buf w = VS_BUF_INIT;
    ck_assert_uint_eq(vs_diff_axes(a, b), 0);
    ck_assert_int_eq(vs_diff_axes_warning(0, &w), 0);
    json_object_set_new(vs_sheet_card(b), "format", json_string("int4"));
    json_object_set_new(vs_sheet_card(b), "bits", json_integer(4));
    ck_assert_uint_eq(vs_diff_axes(a, b), VS_AXIS_FORMAT);
    ck_assert_int_eq(vs_diff_axes_warning(VS_AXIS_FORMAT, &w), 0);
    ck_assert_uint_eq(w.len, 0);
    json_object_set_new(vs_sheet_card(b), "length", json_integer(8192));
    json_object_set_new(vs_sheet_card(b), "concurrency", json_integer(4));
    ck_assert_uint_eq(vs_diff_axes(a, b), VS_AXIS_FORMAT | VS_AXIS_LENGTH | VS_AXIS_CONCURRENCY);
    ck_assert_int_eq(vs_diff_axes_warning(vs_diff_axes(a, b), &w), 1);
    ck_assert_str_eq(vs_buf_str(&w), "this revision changes format, length and concurrency "
                                     "together; compare one change at a time");
    json_decref(b);
    b = json_deep_copy(a);
    json_object_set_new(vs_sheet_card(b), "model", json_string("other/model"));
    json_object_set_new(json_object_get(b, "placement"), "gpus", json_integer(4));
    json_array_append_new(vs_sheet_array(b, VS_SK_OFFERS), json_pack("{s:s}", "name", "H100"));
    json_object_set_new(vs_sheet_card(b), "engine", json_string("vllm"));
    json_object_set_new(vs_sheet_card(b), "accumulation", json_integer(8));
    ck_assert_uint_eq(vs_diff_axes(a, b), VS_AXIS_MODEL | VS_AXIS_PLACEMENT | VS_AXIS_OFFERS |
                                              VS_AXIS_ENGINE | VS_AXIS_MICROBATCH);
    json_decref(b);
    /* a decision, a component or a measurement is not an axis */
    b = json_deep_copy(a);
    json_object_set_new(b, "decision", json_string("H100"));
    m = json_pack("{s:s}", "name", "x");
    json_array_append_new(vs_sheet_array(b, VS_SK_MEASUREMENTS), m);
    ck_assert_uint_eq(vs_diff_axes(a, b), 0);
    ck_assert_str_eq(vs_diff_axis_name(0), "model");
    ck_assert_ptr_null(vs_diff_axis_name(VS_AXIS_COUNT));
    vs_buf_free(&w);
    json_decref(a);
    json_decref(b);
}
END_TEST

/* validates_card as a function of the dims, the card and the run (pure). */
START_TEST(test_refresh_derived_pure)
{
    json_t *s = vs_sheet_new("derived"), *ms = vs_sheet_array(s, VS_SK_MEASUREMENTS), *m;
    json_array_append_new(ms, json_pack("{s:s?, s:{s:i, s:i}, s:b, s:s}", "run", NULL, "dims",
                                        "length", 4096, "concurrency", 8, "validates_card", 0,
                                        "state", "current"));
    json_array_append_new(ms, json_pack("{s:s, s:{s:i, s:i}, s:b, s:s}", "run", "m1", "dims",
                                        "length", 4096, "concurrency", 8, "validates_card", 1,
                                        "state", "current"));
    json_array_append_new(
        vs_sheet_array(s, VS_SK_RUNS),
        json_pack("{s:s, s:i, s:s}", "id", "m1", "exit_status", 0, "overflow_phase", "generate"));
    /* a card that declares no dims is not validated */
    ck_assert_int_eq(vs_sheet_refresh_derived(s), 1);
    ck_assert(json_is_false(json_object_get(json_array_get(ms, 1), "validates_card")));
    json_object_set_new(vs_sheet_card(s), "length", json_integer(4096));
    json_object_set_new(vs_sheet_card(s), "concurrency", json_integer(8));
    ck_assert_int_eq(vs_sheet_refresh_derived(s), 1);
    m = json_array_get(ms, 0);
    ck_assert(json_is_true(json_object_get(m, "validates_card")));
    /* an out-of-memory run validates nothing */
    ck_assert(json_is_false(json_object_get(json_array_get(ms, 1), "validates_card")));
    json_object_set_new(vs_sheet_card(s), "concurrency", json_integer(16));
    ck_assert_int_eq(vs_sheet_refresh_derived(s), 1);
    ck_assert(json_is_false(json_object_get(m, "validates_card")));
    json_object_set_new(vs_sheet_card(s), "concurrency", json_integer(8));
    json_object_set_new(m, "state", json_string("to re-measure"));
    ck_assert_int_eq(vs_sheet_refresh_derived(s), 0);
    ck_assert(json_is_false(json_object_get(m, "validates_card")));
    json_decref(s);
}
END_TEST

/* The records blob a sheet was loaded from or committed as is the session's,
 * kept beside the sheet: never a key of the document, loaded, shown or saved.
 * A failed cell keeps the base a commit in it moved, and drops the base of a
 * sheet it opened (the sheet goes too). */
START_TEST(test_base_blob_beside_the_sheet)
{
    vs_interp *a = vs_interp_new(NULL), *c = vs_interp_new(NULL);
    vs_store *st = NULL;
    vs_store_blob blob = {0};
    json_t *p = NULL, *doc = NULL;
    vs_error err;
    char *out;
    ck_assert_int_eq(run(a, setup_cell, NULL, &err), 0);
    ck_assert_int_eq(run(a, "commit \"base\"", NULL, &err), 0);
    ck_assert_int_eq(vs_store_open(&st, records, &err), 0);
    ck_assert_int_eq(vs_store_load_sheet(st, "llama-7b-campaign-a", NULL, &doc, &blob, &err), 0);
    ck_assert_ptr_null(json_object_get(doc, "_base_blob"));
    ck_assert_uint_eq(strlen(blob.blob), 40);
    vs_store_blob_clear(&blob);
    json_decref(doc);
    vs_store_free(st);
    /* shown: the payload is the document, with the blob in its revision only */
    ck_assert_int_eq(run(c, "show llama-7b-campaign-a", &p, &err), 0);
    ck_assert_ptr_null(json_object_get(p, "_base_blob"));
    ck_assert_uint_eq(strlen(pstr(json_object_get(p, "revision"), "blob")), 40);
    json_decref(p);
    /* a commit in a cell that fails stays, and the next commit goes on from it */
    ck_assert_int_eq(run(c, "reserve y 1GiB\ncommit \"kept\"\nconvert 1 parsecs", NULL, &err),
                     VS_EUNIT);
    ck_assert_int_eq(run(c, "reserve z 1GiB\ncommit \"after\"", NULL, &err), 0);
    out = vs_test_sh("git -C '%s' log --format=%%s", records);
    ck_assert_str_eq(out, "llama-7b-campaign-a: after\nllama-7b-campaign-a: kept\n"
                          "llama-7b-campaign-a: base\n");
    free(out);
    /* a sheet opened by a cell that fails goes, and its base with it: the same
     * id opened anew did not load the records */
    vs_interp_free(c);
    c = vs_interp_new(NULL);
    ck_assert_int_eq(run(c, "show llama-7b-campaign-a\nconvert 1 parsecs", NULL, &err), VS_EUNIT);
    ck_assert_int_eq(run(c, setup_cell, NULL, &err), 0);
    ck_assert_int_eq(run(c, "reserve w 1GiB\ncommit \"fresh\"", NULL, &err), VS_ECONFLICT);
    ck_assert_ptr_nonnull(strstr(err.message, "did not load"));
    /* the saved documents hold no runtime key at any revision */
    out = vs_test_sh("for c in $(git -C '%s' rev-list main); do git -C '%s' show "
                     "$c:sheets/llama-7b-campaign-a/sheet.json; done | grep -c '\"_' || true",
                     records, records);
    ck_assert_str_eq(out, "0\n");
    free(out);
    vs_interp_free(a);
    vs_interp_free(c);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("records_verbs");
    TCase *tc = tcase_create("verbs");
    TCase *pure = tcase_create("pure");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_commit_history_show);
    tcase_add_test(tc, test_concurrent_same_sheet_refused);
    tcase_add_test(tc, test_rerun_same_state_unchanged);
    tcase_add_test(tc, test_commit_stays_when_cell_fails);
    tcase_add_test(tc, test_diff_and_reproduce);
    tcase_add_test(tc, test_reproduce_carries_engine_version);
    tcase_add_test(tc, test_reproduce_gpu_is_the_offer);
    tcase_add_test(tc, test_reproduce_own_id_refused);
    tcase_add_test(tc, test_history_opens_no_untitled);
    tcase_add_test(tc, test_records_paths_and_sync);
    tcase_add_test(tc, test_sheet_revisions_verbs);
    tcase_add_test(tc, test_validates_card_fresh_at_commit);
    tcase_add_test(tc, test_one_change_at_a_time);
    tcase_add_test(tc, test_reproduce_reopens_in_new_kernel);
    tcase_add_test(tc, test_validates_card_fresh_at_pull);
    tcase_add_test(tc, test_restated_record_unchanged);
    tcase_add_test(tc, test_base_blob_beside_the_sheet);
    tcase_add_test(pure, test_markdown);
    tcase_add_test(pure, test_markdown_escapes);
    tcase_add_test(pure, test_diff_pure);
    tcase_add_test(pure, test_diff_axes_pure);
    tcase_add_test(pure, test_refresh_derived_pure);
    suite_add_tcase(s, tc);
    suite_add_tcase(s, pure);
    return s;
}

int main(void)
{
    return vs_check_run(suite());
}
