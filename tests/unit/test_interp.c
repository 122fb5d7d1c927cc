/* The interpreter: results and displays, atomic cells, errors with positions,
 * the core verbs, completion, inspection, is_complete, the records path. */
#include <check.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "lang/interp.h"
#include "lang/parse.h"
#include "lang/verb.h"
#include "render/bundle.h"

#include "check_run.h"
#include "results.h"
#include "test_tmp.h"

typedef struct {
    json_t *displays; /* array of bundles shown, in order */
} capture;

static void cap_display(void *ctx, const vs_bundle *bundle, const char *display_id, int update)
{
    capture *c = ctx;
    (void)display_id;
    (void)update;
    json_array_append_new(c->displays, vs_test_bundle_json(bundle));
}

static vs_sink make_sink(capture *c)
{
    vs_sink s;
    memset(&s, 0, sizeof s);
    c->displays = json_array();
    s.ctx = c;
    s.display = cap_display;
    return s;
}

static json_t *run_ok(vs_interp *ip, const char *code, const vs_sink *sink)
{
    json_t *r = NULL;
    vs_error err;
    int rc = vs_test_execute(ip, code, sink, &r, &err);
    ck_assert_msg(rc == 0, "%s: %s", code, err.message);
    return r;
}

static int run_err(vs_interp *ip, const char *code, vs_error *err)
{
    vs_bundle *r = (vs_bundle *)1;
    int rc = vs_interp_execute(ip, code, NULL, &r, err);
    ck_assert_msg(rc < 0, "%s should fail", code);
    ck_assert_ptr_null(r);
    ck_assert_int_eq(err->code, rc);
    return rc;
}

static json_t *payload(json_t *bundle)
{
    return json_object_get(bundle, VS_MIME_JSON);
}

static const char *plain(json_t *bundle)
{
    return json_string_value(json_object_get(bundle, "text/plain"));
}

/* The session's sheets as the `sheet` listing reports them. */
static char *session_state(vs_interp *ip)
{
    json_t *r = run_ok(ip, "sheet", NULL);
    char *s = json_dumps(payload(r), JSON_SORT_KEYS | JSON_COMPACT);
    json_decref(r);
    return s;
}

/* The payload of `sheet first` (its member key when not NULL), as text. */
static char *first_sheet(vs_interp *ip, const char *key)
{
    json_t *r = run_ok(ip, "sheet first", NULL), *p = payload(r);
    char *s = json_dumps(key ? json_object_get(p, key) : p, JSON_SORT_KEYS | JSON_COMPACT);
    json_decref(r);
    return s;
}

START_TEST(test_last_result_and_displays)
{
    vs_interp *ip = vs_interp_new(NULL);
    capture cap;
    vs_sink sink = make_sink(&cap);
    json_t *r = run_ok(ip, "convert 1GB B\nconvert 2GB B # two\n\nconvert 3GB B", &sink);
    ck_assert_uint_eq(json_array_size(cap.displays), 2);
    ck_assert_int_eq(
        json_integer_value(json_object_get(payload(json_array_get(cap.displays, 0)), "bytes")),
        1000000000);
    ck_assert_int_eq(
        json_integer_value(json_object_get(payload(json_array_get(cap.displays, 1)), "bytes")),
        2000000000);
    ck_assert_int_eq(json_integer_value(json_object_get(payload(r), "bytes")), 3000000000);
    json_decref(r);
    /* a cell with no result returns NULL */
    r = run_ok(ip, "# only a comment\n", &sink);
    ck_assert_ptr_null(r);
    json_decref(cap.displays);
    vs_interp_free(ip);
}
END_TEST

START_TEST(test_convert_payload)
{
    vs_interp *ip = vs_interp_new(NULL);
    json_t *r = run_ok(ip, "convert 24GB GiB", NULL), *p = payload(r);
    ck_assert_str_eq(json_string_value(json_object_get(p, "kind")), "convert");
    ck_assert(json_is_integer(json_object_get(p, "bytes")));
    ck_assert_int_eq(json_integer_value(json_object_get(p, "bytes")), 24000000000LL);
    ck_assert_str_eq(json_string_value(json_object_get(p, "unit")), "GiB");
    ck_assert_str_eq(json_string_value(json_object_get(p, "value")), "22.351741790771484375");
    ck_assert_ptr_nonnull(strstr(plain(r), "24,000,000,000 B = 24.00 GB = 22.35 GiB"));
    ck_assert_ptr_nonnull(strstr(plain(r), "22.351741790771484375"));
    ck_assert_ptr_nonnull(json_object_get(r, "text/html"));
    json_decref(r);
    /* "convert 24 GB GiB" reads the same */
    r = run_ok(ip, "convert 24 GB GiB", NULL);
    ck_assert_int_eq(json_integer_value(json_object_get(payload(r), "bytes")), 24000000000LL);
    json_decref(r);
    vs_interp_free(ip);
}
END_TEST

START_TEST(test_convert_errors)
{
    vs_interp *ip = vs_interp_new(NULL);
    vs_error err;
    ck_assert_int_eq(run_err(ip, "convert 24 GiB", &err), VS_EUNIT); /* no unit on 24 */
    ck_assert_int_eq(run_err(ip, "convert 24GB gib", &err), VS_EUNIT);
    ck_assert_int_eq(err.line, 1);
    ck_assert_int_eq(err.column, 14);
    ck_assert_int_eq(run_err(ip, "\n  convert 24XB GiB", &err), VS_EUNIT);
    ck_assert_int_eq(err.line, 2);
    ck_assert_int_eq(err.column, 11);
    ck_assert_int_eq(run_err(ip, "convert", &err), VS_EVALUE);
    ck_assert_int_eq(run_err(ip, "convert 1GB GiB x", &err), VS_EVALUE);
    ck_assert_int_eq(err.column, 17);
    ck_assert_int_eq(run_err(ip, "convert 1GB GiB to=x", &err), VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "unknown key 'to='"));
    ck_assert_int_eq(run_err(ip, "convert 16777216TiB B", &err), VS_EUNIT);
    vs_interp_free(ip);
}
END_TEST

START_TEST(test_sheets)
{
    vs_interp *ip = vs_interp_new(NULL);
    json_t *r, *p;
    vs_error err;
    r = run_ok(ip, "sheet", NULL);
    ck_assert_str_eq(json_string_value(json_object_get(payload(r), "kind")), "sheets");
    ck_assert_uint_eq(json_array_size(json_object_get(payload(r), "sheets")), 0);
    json_decref(r);
    r = run_ok(ip, "sheet \"Llama-2-7B chat, inference, campaign A\"", NULL);
    p = payload(r);
    ck_assert_str_eq(json_string_value(json_object_get(p, "kind")), "sheet");
    ck_assert_str_eq(json_string_value(json_object_get(p, "action")), "created");
    ck_assert_str_eq(json_string_value(json_object_get(p, "id")),
                     "llama-2-7b-chat-inference-campaign-a");
    ck_assert_str_eq(json_string_value(json_object_get(p, "schema")), "vramsheet/sheet/2");
    ck_assert(json_is_object(json_object_get(p, "card")));
    json_decref(r);
    r = run_ok(ip, "sheet B\nsheet \"llama 2 7b chat inference campaign a\"", NULL);
    ck_assert_str_eq(json_string_value(json_object_get(payload(r), "action")), "switched");
    json_decref(r);
    r = run_ok(ip, "sheet", NULL);
    p = payload(r);
    ck_assert_uint_eq(json_array_size(json_object_get(p, "sheets")), 2);
    ck_assert_str_eq(json_string_value(json_object_get(p, "current")),
                     "llama-2-7b-chat-inference-campaign-a");
    ck_assert_ptr_nonnull(strstr(plain(r), "*  llama-2-7b-chat-inference-campaign-a"));
    json_decref(r);
    ck_assert_int_eq(run_err(ip, "sheet \"\"", &err), VS_EVALUE);
    ck_assert_int_eq(run_err(ip, "sheet a b", &err), VS_EVALUE);
    vs_interp_free(ip);
}
END_TEST

/* The bytes of component i of a payload's "components". */
static json_int_t component_bytes(json_t *bundle, size_t i)
{
    json_t *c = json_array_get(json_object_get(payload(bundle), "components"), i);
    return json_integer_value(json_object_get(c, "bytes"));
}

/* Two results the same, key for key (jansson's sorted dump of each). */
static void assert_same_json(json_t *got, json_t *want)
{
    char *got_text = json_dumps(got, JSON_SORT_KEYS | JSON_COMPACT);
    char *want_text = json_dumps(want, JSON_SORT_KEYS | JSON_COMPACT);
    ck_assert_str_eq(got_text, want_text);
    free(got_text);
    free(want_text);
}

/* The verbs of a cell share the components' views: after a component is
 * replaced (the same count, in the same places), `sheet` and `envelope` show
 * its new amount, and the chart drawn after it is the one a new session draws
 * for the same sheet. */
START_TEST(test_views_follow_a_replaced_component)
{
    vs_interp *ip = vs_interp_new(NULL), *fresh = vs_interp_new(NULL);
    capture cap;
    vs_sink sink = make_sink(&cap);
    json_t *r = run_ok(ip,
                       "sheet V\nmodel m params=1000000\nformat bf16\nreserve a 1MiB\nreserve b "
                       "2MiB\nsheet V\nenvelope\n"
                       "reserve a 5MiB\nsheet V\nenvelope",
                       &sink),
           *want;
    ck_assert_uint_eq(json_array_size(cap.displays), 9);
    /* the first `sheet V` after the reserve, and the envelope that read the same views */
    ck_assert_int_eq(component_bytes(json_array_get(cap.displays, 5), 0), 1048576);
    ck_assert_int_eq(component_bytes(json_array_get(cap.displays, 6), 0), 1048576);
    /* a replaced: 5 MiB = 5 * 1,048,576 bytes; b kept at 2 * 1,048,576 */
    ck_assert_int_eq(component_bytes(json_array_get(cap.displays, 8), 0), 5242880);
    ck_assert_int_eq(component_bytes(json_array_get(cap.displays, 8), 1), 2097152);
    ck_assert_int_eq(component_bytes(r, 0), 5242880);
    ck_assert_int_eq(component_bytes(r, 1), 2097152);
    want = run_ok(
        fresh,
        "sheet V\nmodel m params=1000000\nformat bf16\nreserve a 5MiB\nreserve b 2MiB\nenvelope",
        NULL);
    assert_same_json(r, want);
    json_decref(want);
    json_decref(r);
    json_decref(cap.displays);
    vs_interp_free(fresh);
    vs_interp_free(ip);
}
END_TEST

/* The name of component i of a payload's "components". */
static const char *component_name(json_t *bundle, size_t i)
{
    json_t *c = json_array_get(json_object_get(payload(bundle), "components"), i);
    return json_string_value(json_object_get(c, "name"));
}

/* `reserve` hands each component's view on to the verbs that walk them all
 * later in the cell. What they show is what a cell that only reads the sheet
 * shows (its views all read from the components): after a component is
 * declared again in its place (its first view out of date), one is removed
 * (the places after it move) and one is added in the freed place. */
START_TEST(test_views_take_what_reserve_stored)
{
    vs_interp *ip = vs_interp_new(NULL), *fresh = vs_interp_new(NULL);
    json_t *r, *want;
    r = run_ok(ip,
               "sheet V\nmodel m params=1000000\nformat bf16\nreserve a 1MiB\nreserve b 2MiB\n"
               "reserve a 3MiB\nreserve remove b\nreserve c 4MiB\nenvelope",
               NULL);
    /* a at 3 x 1,048,576 bytes, then c at 4 x 1,048,576; b gone */
    ck_assert_uint_eq(json_array_size(json_object_get(payload(r), "components")), 2);
    ck_assert_str_eq(component_name(r, 0), "a");
    ck_assert_int_eq(component_bytes(r, 0), 3145728);
    ck_assert_str_eq(component_name(r, 1), "c");
    ck_assert_int_eq(component_bytes(r, 1), 4194304);
    /* the same sheet in another session, its envelope in a cell of its own */
    json_decref(run_ok(fresh,
                       "sheet V\nmodel m params=1000000\nformat bf16\nreserve a 3MiB\n"
                       "reserve c 4MiB",
                       NULL));
    want = run_ok(fresh, "envelope", NULL);
    assert_same_json(r, want);
    json_decref(want);
    json_decref(r);
    vs_interp_free(fresh);
    vs_interp_free(ip);
}
END_TEST

/* The canonical text of the sheet of that id, as the session holds it. */
static char *sheet_text(vs_interp *ip, const char *title)
{
    char code[120];
    json_t *r;
    char *s;
    snprintf(code, sizeof code, "sheet %s", title);
    r = run_ok(ip, code, NULL);
    s = json_dumps(payload(r), JSON_SORT_KEYS | JSON_COMPACT);
    json_decref(r);
    return s;
}

/* A sheet is copied only once a verb reaches it; a failed cell still puts
 * back every sheet it changed, whichever way it reached them (the current
 * one, one switched to, one changed by following its card), and leaves the
 * others as they were. */
START_TEST(test_atomic_cell_many_sheets)
{
    vs_interp *ip = vs_interp_new(NULL);
    vs_error err;
    char *a0, *b0, *c0, *a1, *b1, *c1, *list0, *list1;
    json_decref(run_ok(ip,
                       "sheet a\nlength 4096\nconcurrency 1\n"
                       "estimate kv layers=2 kv_heads=2 head_dim=64\n"
                       "sheet b\nreserve w 1GiB\nsheet c\nreserve x 2GiB\nsheet a",
                       NULL));
    a0 = sheet_text(ip, "a");
    b0 = sheet_text(ip, "b");
    c0 = sheet_text(ip, "c");
    json_decref(run_ok(ip, "sheet a", NULL));
    list0 = session_state(ip);
    ck_assert_int_lt(run_err(ip,
                             "length 8192\nreserve y 3GiB\nsheet b\nreserve w 5GiB\n"
                             "length 2\nsheet d\nreserve z 1GiB\nbogus",
                             &err),
                     0);
    list1 = session_state(ip);
    ck_assert_str_eq(list0, list1);
    a1 = sheet_text(ip, "a");
    b1 = sheet_text(ip, "b");
    c1 = sheet_text(ip, "c");
    ck_assert_str_eq(a0, a1);
    ck_assert_str_eq(b0, b1);
    ck_assert_str_eq(c0, c1);
    ck_assert_ptr_null(strstr(a1, "\"y\""));
    ck_assert_ptr_nonnull(strstr(a1, "4096"));
    free(a0), free(b0), free(c0), free(a1), free(b1), free(c1), free(list0), free(list1);
    vs_interp_free(ip);
}
END_TEST

/* language_info comes from the interpreter: its name is the kernelspec's
 * language (kernel/install.c writes "vramsheet"), its version the binary's. */
START_TEST(test_language_info)
{
    json_t *li = vs_interp_language_info();
    ck_assert_ptr_nonnull(li);
    ck_assert_str_eq(json_string_value(json_object_get(li, "name")), "vramsheet");
    ck_assert_str_eq(json_string_value(json_object_get(li, "version")), VS_VERSION);
    ck_assert_str_eq(json_string_value(json_object_get(li, "file_extension")), ".vramsheet");
    ck_assert_str_eq(json_string_value(json_object_get(li, "mimetype")), "text/x-vramsheet");
    ck_assert_uint_eq(json_object_size(li), 6);
    json_decref(li);
}
END_TEST

START_TEST(test_atomic_cell)
{
    vs_interp *ip = vs_interp_new(NULL);
    vs_error err;
    char *before, *after;
    json_t *r = run_ok(ip, "sheet first", NULL);
    json_decref(r);
    before = session_state(ip);
    /* the third line fails: the two sheets opened before it disappear */
    ck_assert_int_eq(run_err(ip, "sheet second\nsheet third\nnosuchverb x=1", &err), VS_ENOTFOUND);
    ck_assert_int_eq(err.line, 3);
    ck_assert_int_eq(err.column, 1);
    after = session_state(ip);
    ck_assert_str_eq(before, after);
    free(after);
    /* a failure in the middle of a line's arguments too */
    ck_assert_int_eq(run_err(ip, "sheet fourth\nconvert 1GB B\nconvert 1GB bytes", &err), VS_EUNIT);
    after = session_state(ip);
    ck_assert_str_eq(before, after);
    free(after);
    /* a syntax error anywhere runs nothing */
    ck_assert_int_eq(run_err(ip, "sheet fifth\nsheet \"open", &err), VS_ESYNTAX);
    after = session_state(ip);
    ck_assert_str_eq(before, after);
    free(after);
    /* a renamed verb fails here rather than skipping what follows */
    ck_assert_msg(vs_verb_find("reserve") != NULL, "no verb `reserve`");
    {
        /* with the sizing verbs: the sheet's content is restored too */
        char *s1, *s2;
        r = run_ok(ip, "sheet first\nreserve 6GiB", NULL);
        json_decref(r);
        s1 = first_sheet(ip, "components");
        ck_assert_int_lt(run_err(ip, "reserve kv 16GiB\nreserve w 1GiB\nbogus", &err), 0);
        s2 = first_sheet(ip, "components");
        ck_assert_str_eq(s1, s2);
        free(s1);
        free(s2);
        /* components the failed cell replaced, changed status of or removed
         * come back as they were: the snapshot shares them (sheet.h) */
        r = run_ok(ip, "reserve kv 16GiB source=\"first\"\nreserve act status=unknown", NULL);
        json_decref(r);
        s1 = first_sheet(ip, NULL);
        ck_assert_ptr_nonnull(strstr(s1, "\"source\":\"first\""));
        ck_assert_int_lt(run_err(ip,
                                 "reserve kv 20GiB source=\"second\"\nreserve act 1GiB\n"
                                 "reserve remove reserve\nreserve extra 1GiB\nbogus",
                                 &err),
                         0);
        s2 = first_sheet(ip, NULL);
        ck_assert_str_eq(s1, s2);
        free(s1);
        free(s2);
        /* the restored sheet still finds each component by name: declaring
         * the removed-then-restored one again replaces it, never a second */
        r = run_ok(ip, "reserve 7GiB\nreserve act 2GiB", NULL);
        json_decref(r);
        r = run_ok(ip, "sheet first", NULL);
        {
            json_t *comps = json_object_get(payload(r), "components"), *c;
            size_t i, lumps = 0;
            ck_assert_uint_eq(json_array_size(comps), 3);
            json_array_foreach(comps, i, c)
            {
                if (!strcmp(json_string_value(json_object_get(c, "name")), "reserve")) {
                    lumps++;
                    ck_assert_int_eq(json_integer_value(json_object_get(c, "bytes")), 7LL << 30);
                }
            }
            ck_assert_uint_eq(lumps, 1);
        }
        json_decref(r);
    }
    free(before);
    vs_interp_free(ip);
}
END_TEST

START_TEST(test_empty_text_refused)
{
    vs_interp *ip = vs_interp_new(NULL);
    vs_error err;
    ck_assert_int_eq(run_err(ip, "sheet \"\"", &err), VS_EVALUE);
    ck_assert_int_eq(err.column, 7);
    ck_assert_ptr_nonnull(strstr(err.message, "empty text"));
    ck_assert_int_eq(run_err(ip, "convert 1GB GiB\nhelp x=\"\"", &err), VS_EVALUE);
    ck_assert_int_eq(err.line, 2);
    ck_assert_int_eq(err.column, 8); /* at the value */
    ck_assert_ptr_nonnull(strstr(err.message, "x="));
    vs_interp_free(ip);
}
END_TEST

START_TEST(test_unknown_verb_suggests)
{
    vs_interp *ip = vs_interp_new(NULL);
    vs_error err;
    char ev[2048];
    ck_assert_int_eq(run_err(ip, "convert 1GB B\n   convret 1GB B", &err), VS_ENOTFOUND);
    ck_assert_str_eq(vs_error_ename(err.code), "NameError");
    vs_error_evalue(&err, ev, sizeof ev);
    ck_assert_ptr_nonnull(strstr(ev, "line 2, column 4: unknown verb 'convret'"));
    ck_assert_ptr_nonnull(strstr(ev, "did you mean `convert`"));
    ck_assert_int_eq(run_err(ip, "shet x", &err), VS_ENOTFOUND);
    ck_assert_ptr_nonnull(strstr(err.message, "`sheet`"));
    /* a verb looked up again after a run of another (the line before's verb
     * is kept): a misspelling of it, then a different verb, are each their own */
    ck_assert_int_eq(run_err(ip, "convert 1GB B\nconvert 2GB B\nconverts 1GB B", &err),
                     VS_ENOTFOUND);
    ck_assert_int_eq(err.line, 3);
    ck_assert_ptr_nonnull(strstr(err.message, "unknown verb 'converts'"));
    {
        json_t *r = run_ok(ip, "convert 1GB B\nconvert 2GB B\nhelp", NULL);
        ck_assert_ptr_nonnull(json_object_get(payload(r), "verbs"));
        json_decref(r);
    }
    /* nothing close: no suggestion */
    ck_assert_int_eq(run_err(ip, "zzzzzzzzzz", &err), VS_ENOTFOUND);
    ck_assert_ptr_null(strstr(err.message, "did you mean"));
    vs_interp_free(ip);
}
END_TEST

START_TEST(test_help)
{
    vs_interp *ip = vs_interp_new(NULL);
    vs_error err;
    json_t *r = run_ok(ip, "help", NULL), *verbs;
    size_t i, n = 0;
    const char *name;
    verbs = json_object_get(payload(r), "verbs");
    /* every verb of every table is listed, with its group */
    for (i = 0; i < json_array_size(verbs); i++) {
        name = json_string_value(json_object_get(json_array_get(verbs, i), "name"));
        ck_assert_ptr_nonnull(vs_verb_find(name));
        ck_assert_ptr_nonnull(strstr(plain(r), name));
        n++;
    }
    ck_assert_uint_ge(n, 3);
    ck_assert_ptr_nonnull(json_object_get(r, "text/html"));
    json_decref(r);
    r = run_ok(ip, "help convert", NULL);
    ck_assert_ptr_nonnull(strstr(plain(r), "convert QUANTITY UNIT"));
    ck_assert_ptr_nonnull(strstr(plain(r), "22.351741790771484375"));
    ck_assert_str_eq(json_string_value(json_object_get(payload(r), "verb")), "convert");
    json_decref(r);
    ck_assert_int_eq(run_err(ip, "help shet", &err), VS_ENOTFOUND);
    ck_assert_int_eq(err.column, 6);
    ck_assert_ptr_nonnull(strstr(err.message, "`sheet`"));
    vs_interp_free(ip);
}
END_TEST

static int has_match(json_t *m, const char *s)
{
    size_t i;
    for (i = 0; i < json_array_size(m); i++)
        if (!strcmp(json_string_value(json_array_get(m, i)), s))
            return 1;
    return 0;
}

START_TEST(test_complete)
{
    vs_interp *ip = vs_interp_new(NULL);
    json_t *m, *r;
    size_t start, end;
    const char *code;

    ck_assert_int_eq(vs_interp_complete(ip, "con", 3, &m, &start, &end), 0);
    ck_assert(has_match(m, "convert"));
    ck_assert(!has_match(m, "sheet"));
    ck_assert_uint_eq(start, 0);
    ck_assert_uint_eq(end, 3);
    json_decref(m);

    /* after non-ASCII text, offsets are bytes */
    code = "sheet \"日本語\"\n  he";
    ck_assert_int_eq(vs_interp_complete(ip, code, strlen(code), &m, &start, &end), 0);
    ck_assert(has_match(m, "help"));
    ck_assert_uint_eq(start, strlen("sheet \"日本語\"\n  "));
    ck_assert_uint_eq(end, strlen(code));
    json_decref(m);

    /* after a verb: the format names where a format goes */
    code = "estimate kv dtype=f";
    ck_assert_int_eq(vs_interp_complete(ip, code, strlen(code), &m, &start, &end), 0);
    ck_assert(has_match(m, "fp16"));
    ck_assert(has_match(m, "fp8"));
    ck_assert(!has_match(m, "bf16"));
    ck_assert_uint_eq(start, strlen("estimate kv dtype="));
    json_decref(m);
    /* the keys of the form the first word names, not every estimator's */
    ck_assert_msg(vs_verb_find("estimate") != NULL, "no verb `estimate`");
    {
        code = "estimate kv ";
        ck_assert_int_eq(vs_interp_complete(ip, code, strlen(code), &m, &start, &end), 0);
        ck_assert(has_match(m, "kv_heads="));
        ck_assert(has_match(m, "head_dim="));
        ck_assert(!has_match(m, "optimizer="));
        ck_assert(!has_match(m, "checkpointing="));
        json_decref(m);
        code = "estimate training o";
        ck_assert_int_eq(vs_interp_complete(ip, code, strlen(code), &m, &start, &end), 0);
        ck_assert(has_match(m, "optimizer="));
        ck_assert_uint_eq(json_array_size(m), 1);
        json_decref(m);
        code = "estimate h"; /* no form yet: every key */
        ck_assert_int_eq(vs_interp_complete(ip, code, strlen(code), &m, &start, &end), 0);
        ck_assert(has_match(m, "head_dim="));
        ck_assert(has_match(m, "hidden="));
        json_decref(m);
    }
    code = "format b";
    ck_assert_int_eq(vs_interp_complete(ip, code, strlen(code), &m, &start, &end), 0);
    ck_assert(has_match(m, "bf16"));
    json_decref(m);

    /* sheet ids after `sheet`, and SHEET@ in show */
    r = run_ok(ip, "sheet \"Alpha one\"\nsheet \"Beta\"", NULL);
    json_decref(r);
    code = "sheet al";
    ck_assert_int_eq(vs_interp_complete(ip, code, strlen(code), &m, &start, &end), 0);
    ck_assert(has_match(m, "alpha-one"));
    ck_assert(!has_match(m, "beta"));
    json_decref(m);
    code = "show b";
    ck_assert_int_eq(vs_interp_complete(ip, code, strlen(code), &m, &start, &end), 0);
    ck_assert(has_match(m, "beta@"));
    json_decref(m);

    /* help completes verb names */
    code = "help sh";
    ck_assert_int_eq(vs_interp_complete(ip, code, strlen(code), &m, &start, &end), 0);
    ck_assert(has_match(m, "sheet"));
    json_decref(m);

    /* the keys of a verb, as key= */
    {
        const vs_verb *v = NULL;
        const char *cands[] = {"reserve", "estimate", "gpu", "measure", "commit", NULL};
        size_t i;
        for (i = 0; cands[i] && !v; i++)
            if (vs_verb_find(cands[i]) && vs_verb_find(cands[i])->keys &&
                vs_verb_find(cands[i])->keys[0])
                v = vs_verb_find(cands[i]);
        ck_assert_msg(v != NULL, "none of reserve, estimate, gpu, measure, commit has keys");
        {
            char buf[128], want[96];
            snprintf(buf, sizeof buf, "%s x ", v->name);
            snprintf(want, sizeof want, "%s=", v->keys[0]);
            ck_assert_int_eq(vs_interp_complete(ip, buf, strlen(buf), &m, &start, &end), 0);
            ck_assert(has_match(m, want));
            json_decref(m);
        }
    }

    /* GPU names from the catalogue after `gpu "`, whatever the case typed */
    {
        const char *const *names = vs_catalog_names();
        if (names[0]) {
            char buf[128], want[96], low[4];
            size_t k;
            for (k = 0; k < 3 && names[0][k]; k++)
                low[k] = (char)tolower((unsigned char)names[0][k]);
            low[k] = '\0';
            snprintf(buf, sizeof buf, "gpu \"%s", low);
            snprintf(want, sizeof want, "\"%s\"", names[0]); /* a quote was typed */
            ck_assert_int_eq(vs_interp_complete(ip, buf, strlen(buf), &m, &start, &end), 0);
            ck_assert_msg(has_match(m, want), "%s not offered for %s", want, buf);
            ck_assert_uint_eq(start, 4);
            json_decref(m);
        }
    }

    /* inside a comment: nothing; a cursor past the end or inside a character: no crash */
    code = "convert # con";
    ck_assert_int_eq(vs_interp_complete(ip, code, strlen(code), &m, &start, &end), 0);
    ck_assert_uint_eq(json_array_size(m), 0);
    json_decref(m);
    code = "日本";
    ck_assert_int_eq(vs_interp_complete(ip, code, 1000, &m, &start, &end), 0);
    ck_assert_uint_le(end, strlen(code));
    json_decref(m);
    ck_assert_int_eq(vs_interp_complete(ip, code, 1, &m, &start, &end), 0);
    ck_assert_uint_eq(end, 0);
    json_decref(m);
    vs_interp_free(ip);
}
END_TEST

START_TEST(test_inspect)
{
    vs_interp *ip = vs_interp_new(NULL);
    json_t *b = NULL;
    const char *code = "sheet x\nconvert 24GB GiB";
    /* on the verb */
    ck_assert_int_eq(vs_interp_inspect(ip, code, strlen("sheet x\ncon"), 0, &b), 0);
    ck_assert_ptr_nonnull(b);
    ck_assert_ptr_nonnull(strstr(plain(b), "convert QUANTITY UNIT"));
    ck_assert_ptr_nonnull(json_object_get(b, "text/html"));
    json_decref(b);
    /* on an argument: the line's verb */
    ck_assert_int_eq(vs_interp_inspect(ip, code, strlen(code) - 1, 1, &b), 0);
    ck_assert_ptr_nonnull(b);
    ck_assert_str_eq(json_string_value(json_object_get(payload(b), "verb")), "convert");
    json_decref(b);
    ck_assert_int_eq(vs_interp_inspect(ip, code, 2, 0, &b), 0);
    ck_assert_str_eq(json_string_value(json_object_get(payload(b), "verb")), "sheet");
    json_decref(b);
    ck_assert_int_eq(vs_interp_inspect(ip, "nothing here", 3, 0, &b), 0);
    ck_assert_ptr_null(b);
    ck_assert_int_eq(vs_interp_inspect(ip, "", 10, 0, &b), 0);
    ck_assert_ptr_null(b);
    vs_interp_free(ip);
}
END_TEST

START_TEST(test_is_complete)
{
    vs_interp *ip = vs_interp_new(NULL);
    const char *indent = NULL;
    ck_assert_str_eq(vs_interp_is_complete(ip, "convert 24GB GiB", &indent), "complete");
    ck_assert_ptr_nonnull(indent);
    ck_assert_str_eq(vs_interp_is_complete(ip, "sheet \"Llama", &indent), "incomplete");
    ck_assert_str_eq(vs_interp_is_complete(ip, "sheet \"a \\\"b", &indent), "incomplete");
    ck_assert_str_eq(vs_interp_is_complete(ip, "estimate kv \\", &indent), "incomplete");
    ck_assert_str_eq(indent, "    "); /* a continued line is set off */
    ck_assert_str_eq(vs_interp_is_complete(ip, "exit", &indent), "complete");
    ck_assert_int_eq(vs_interp_is_exit("exit"), 1);
    ck_assert_int_eq(vs_interp_is_exit("  quit\n"), 1);
    ck_assert_int_eq(vs_interp_is_exit("exit()"), 1);
    ck_assert_int_eq(vs_interp_is_exit("exit now"), 0);
    ck_assert_int_eq(vs_interp_is_exit("exits"), 0);
    ck_assert_int_eq(vs_interp_is_exit("sheet \"exit\""), 0);
    ck_assert_str_eq(vs_interp_is_complete(ip, "estimate kv \\\n layers=3", &indent), "complete");
    ck_assert_str_eq(vs_interp_is_complete(ip, "weights # it's \"open", &indent), "complete");
    ck_assert_str_eq(vs_interp_is_complete(ip, "weights # \\", &indent), "complete");
    ck_assert_str_eq(vs_interp_is_complete(ip, "measure -- echo \"", &indent), "complete");
    ck_assert_str_eq(vs_interp_is_complete(ip, "%%measure\nprint(\"", &indent), "complete");
    ck_assert_str_eq(vs_interp_is_complete(ip, "sheet \"\xff\"", &indent), "invalid");
    ck_assert_str_eq(vs_interp_is_complete(ip, "", &indent), "complete");
    vs_interp_free(ip);
}
END_TEST

START_TEST(test_records_path)
{
    vs_interp_options o;
    vs_interp *ip;
    memset(&o, 0, sizeof o);
    o.records_path = "/tmp/opt-records";
    ip = vs_interp_new(&o);
    setenv("VRAMSHEET_RECORDS", "/tmp/env-records", 1);
    ck_assert_str_eq(vs_interp_records_path(ip), "/tmp/opt-records");
    vs_interp_free(ip);
    ip = vs_interp_new(NULL);
    ck_assert_str_eq(vs_interp_records_path(ip), "/tmp/env-records");
    unsetenv("VRAMSHEET_RECORDS");
    setenv("XDG_DATA_HOME", "/tmp/xdg", 1);
    ck_assert_str_eq(vs_interp_records_path(ip), "/tmp/xdg/vramsheet/records");
    unsetenv("XDG_DATA_HOME");
    setenv("HOME", "/home/someone", 1);
    ck_assert_str_eq(vs_interp_records_path(ip), "/home/someone/.local/share/vramsheet/records");
    vs_interp_free(ip);
}
END_TEST

START_TEST(test_effect_kept_in_message)
{
    /* a verb with an effect outside the kernel: the records verbs' commit */
    char dir[200];
    vs_interp *ip;
    vs_error err;
    ck_assert_msg(vs_verb_find("commit") != NULL, "no verb `commit`");
    ck_assert_ptr_nonnull(mkdtemp(vs_test_tmp(dir, sizeof dir, "vs-test-interp-XXXXXX")));
    setenv("VRAMSHEET_RECORDS", dir, 1);
    ip = vs_interp_new(NULL);
    ck_assert_int_lt(run_err(ip, "sheet kept\ncommit \"first\"\nnosuchverb", &err), 0);
    ck_assert_ptr_nonnull(strstr(err.message, "kept:"));
    /* the commit stays: the next commit of the same sheet builds on it (the
     * sheet's runtime record of the last commit survives the rollback) */
    json_decref(run_ok(ip, "sheet kept2", NULL));
    ck_assert_int_lt(run_err(ip, "commit \"one\"\nnosuchverb", &err), 0);
    ck_assert_msg(vs_verb_find("quality") != NULL, "no verb `quality`");
    json_decref(run_ok(ip, "quality \"changed\"\ncommit \"two\"", NULL));
    vs_interp_free(ip);
    unsetenv("VRAMSHEET_RECORDS");
    vs_test_rmtree(dir);
}
END_TEST

START_TEST(test_null_callbacks)
{
    vs_interp *ip = vs_interp_new(NULL);
    vs_sink s;
    json_t *r = NULL;
    vs_error err;
    memset(&s, 0, sizeof s);
    s.interrupted = NULL;
    ck_assert_int_eq(vs_test_execute(ip, "sheet a", &s, &r, &err), 0);
    json_decref(r);
    vs_interp_free(ip);
}
END_TEST

static int always(void *ctx)
{
    (void)ctx;
    return 1;
}

START_TEST(test_interrupt_restores)
{
    vs_interp *ip = vs_interp_new(NULL);
    vs_sink s;
    json_t *r = NULL;
    vs_error err;
    char *before, *after;
    before = session_state(ip);
    memset(&s, 0, sizeof s);
    s.interrupted = always;
    ck_assert_int_eq(vs_test_execute(ip, "sheet a\nsheet b", &s, &r, &err), VS_EINTERRUPT);
    ck_assert_str_eq(vs_error_ename(err.code), "KeyboardInterrupt");
    ck_assert_ptr_null(r);
    after = session_state(ip);
    ck_assert_str_eq(before, after);
    free(before);
    free(after);
    vs_interp_free(ip);
}
END_TEST

typedef struct {
    const vs_verb *seen[256];
    size_t n;
    char dups[512];
} registry_acc;

static void registry_each(const vs_verb *v, void *data)
{
    registry_acc *acc = data;
    size_t i;
    vs_cell *cell = NULL;
    vs_error err;
    ck_assert_msg(v->run != NULL, "%s has no function", v->name);
    ck_assert_msg(v->syntax && v->summary && v->help, "%s lacks syntax, summary or help", v->name);
    ck_assert_ptr_nonnull(vs_verb_group(v));
    /* every name reads as a verb at the start of a line */
    ck_assert_msg(vs_parse_cell(&cell, v->name, strlen(v->name), &err) == 0, "%s: %s", v->name,
                  err.message);
    ck_assert_str_eq(cell->lines[0].verb, v->name);
    vs_cell_free(cell);
    for (i = 0; i < acc->n; i++)
        if (!strcmp(acc->seen[i]->name, v->name) && strlen(acc->dups) + 64 < sizeof acc->dups)
            snprintf(acc->dups + strlen(acc->dups), sizeof acc->dups - strlen(acc->dups),
                     " '%s' (%s and %s)", v->name, vs_verb_group(acc->seen[i]), vs_verb_group(v));
    if (acc->n < 256)
        acc->seen[acc->n++] = v;
}

START_TEST(test_registry)
{
    registry_acc acc;
    memset(&acc, 0, sizeof acc);
    vs_verb_each(registry_each, &acc);
    ck_assert_uint_ge(acc.n, 3);
    ck_assert_ptr_eq(vs_verb_find("convert"), vs_verb_find("convert"));
    ck_assert_ptr_null(vs_verb_find("no-such-verb"));
    ck_assert_str_eq(vs_verb_group(vs_verb_find("help")), "core");
    /* a name defined twice makes the second definition unreachable */
    ck_assert_msg(acc.dups[0] == '\0', "verbs defined twice:%s", acc.dups);
}
END_TEST

START_TEST(test_banner)
{
    ck_assert_ptr_nonnull(strstr(vs_interp_banner(), "vramsheet"));
    vs_interp_free(NULL);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("interp");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_last_result_and_displays);
    tcase_add_test(tc, test_views_follow_a_replaced_component);
    tcase_add_test(tc, test_views_take_what_reserve_stored);
    tcase_add_test(tc, test_convert_payload);
    tcase_add_test(tc, test_convert_errors);
    tcase_add_test(tc, test_sheets);
    tcase_add_test(tc, test_atomic_cell);
    tcase_add_test(tc, test_language_info);
    tcase_add_test(tc, test_atomic_cell_many_sheets);
    tcase_add_test(tc, test_empty_text_refused);
    tcase_add_test(tc, test_unknown_verb_suggests);
    tcase_add_test(tc, test_help);
    tcase_add_test(tc, test_complete);
    tcase_add_test(tc, test_inspect);
    tcase_add_test(tc, test_is_complete);
    tcase_add_test(tc, test_records_path);
    tcase_add_test(tc, test_effect_kept_in_message);
    tcase_add_test(tc, test_null_callbacks);
    tcase_add_test(tc, test_interrupt_restores);
    tcase_add_test(tc, test_registry);
    tcase_add_test(tc, test_banner);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
