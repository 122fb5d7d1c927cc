/* The sheet document (src/sheet/sheet.c): the layout of a new sheet, slugs,
 * components that never lose a measurement. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "sheet/sheet.h"

#include "check_run.h"

static const char *slug(const char *title)
{
    static char id[VS_SHEET_ID_MAX];
    ck_assert_int_eq(vs_sheet_slug(title, id, sizeof id), 0);
    ck_assert_msg(vs_sheet_id_valid(id), "'%s' -> invalid id '%s'", title, id);
    return id;
}

START_TEST(new_sheet_has_the_whole_layout)
{
    static const char *const keys[] = {
        "schema",     "id",           "title",      "lineage", "card",         "weights_files",
        "components", "placement",    "stages",     "offers",  "requirements", "evidence",
        "runs",       "measurements", "invalidate", "oom",     "decision",     NULL};
    json_t *s = vs_sheet_new("Llama-2-7B chat, inference, campaign A");
    size_t i;
    ck_assert_ptr_nonnull(s);
    for (i = 0; keys[i]; i++)
        ck_assert_msg(json_object_get(s, keys[i]) != NULL, "missing %s", keys[i]);
    ck_assert_str_eq(json_string_value(json_object_get(s, "id")),
                     "llama-2-7b-chat-inference-campaign-a");
    ck_assert_str_eq(json_string_value(json_object_get(s, "schema")), VS_SHEET_SCHEMA);
    ck_assert(json_is_null(json_object_get(vs_sheet_card(s), "params")));
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(s, "placement"), "kind")),
                     "single");
    json_decref(s);
}
END_TEST

START_TEST(slugs)
{
    ck_assert_str_eq(slug("Llama-2-7B chat, inference, campaign A"),
                     "llama-2-7b-chat-inference-campaign-a");
    ck_assert_str_eq(slug("  --a  b--  "), "a-b");
    ck_assert_str_eq(slug("../../etc/passwd"), "etc-passwd"); /* no path escapes */
    ck_assert_str_eq(slug("...."), "sheet");
    ck_assert_str_eq(slug(""), "sheet");
    /* at most VS_SHEET_ID_MAX - 1 characters, never ending with '-' */
    {
        char t[300];
        memset(t, 'a', sizeof t - 1);
        t[sizeof t - 1] = '\0';
        t[62] = ' ';
        ck_assert_uint_lt(strlen(slug(t)), VS_SHEET_ID_MAX);
    }
}
END_TEST

START_TEST(non_ascii_titles_keep_distinct_ids)
{
    char a[VS_SHEET_ID_MAX], b[VS_SHEET_ID_MAX];
    snprintf(a, sizeof a, "%s", slug("\xe6\x97\xa5\xe6\x9c\xac")); /* 日本 */
    snprintf(b, sizeof b, "%s", slug("\xe4\xb8\xad\xe5\x9b\xbd")); /* 中国 */
    ck_assert_str_ne(a, b);
    ck_assert_int_eq(strncmp(a, "sheet-", 6), 0);
    /* stable: the same title always gives the same id */
    ck_assert_str_eq(slug("\xe6\x97\xa5\xe6\x9c\xac"), a);
    snprintf(a, sizeof a, "%s",
             slug("\xc3\x9c"
                  "n\xc3\xaf"
                  "c\xc3\xb6"
                  "d\xc3\xa9")); /* Ünïcödé */
    snprintf(b, sizeof b, "%s",
             slug("An\xc3\xaf"
                  "c\xc3\xb6"
                  "d\xc3\xa9")); /* Anïcödé */
    ck_assert_str_ne(a, b);
    ck_assert_int_eq(strncmp(a, "n-c-d-", 6), 0);
    /* a long non-ASCII title still fits */
    {
        char t[400];
        size_t i;
        for (i = 0; i + 2 < sizeof t; i += 2)
            memcpy(t + i, "\xc3\xa9", 2);
        t[i] = '\0';
        ck_assert_uint_lt(strlen(slug(t)), VS_SHEET_ID_MAX);
    }
}
END_TEST

START_TEST(id_validity)
{
    ck_assert(vs_sheet_id_valid("a-b-1"));
    ck_assert(!vs_sheet_id_valid(""));
    ck_assert(!vs_sheet_id_valid("-a"));
    ck_assert(!vs_sheet_id_valid("a-"));
    ck_assert(!vs_sheet_id_valid("a--b"));
    ck_assert(!vs_sheet_id_valid("A"));
    ck_assert(!vs_sheet_id_valid("a/b"));
    ck_assert(!vs_sheet_id_valid(".."));
}
END_TEST

START_TEST(measured_components_are_never_overwritten_by_estimates)
{
    json_t *s = vs_sheet_new("t");
    vs_error err;
    ck_assert_int_eq(
        vs_sheet_set_component(s, "kv", 1, 100, "estimated", "formula", NULL, "kv_cache", &err), 0);
    ck_assert_int_eq(
        vs_sheet_set_component(s, "kv", 1, 90, "measured", "m1", "generate", "kv_cache", &err), 0);
    ck_assert_int_eq(
        vs_sheet_set_component(s, "kv", 1, 200, "estimated", "formula", NULL, "kv_cache", &err),
        VS_EVALUE);
    ck_assert_int_eq(json_integer_value(json_object_get(vs_sheet_component(s, "kv"), "bytes")), 90);
    /* unknown stores null bytes, and the order of declaration is kept */
    ck_assert_int_eq(vs_sheet_set_component(s, "ws", 0, 0, "unknown", NULL, NULL, NULL, &err), 0);
    ck_assert(json_is_null(json_object_get(vs_sheet_component(s, "ws"), "bytes")));
    ck_assert_str_eq(json_string_value(json_object_get(
                         json_array_get(vs_sheet_array(s, VS_SK_COMPONENTS), 1), "name")),
                     "ws");
    json_decref(s);
}
END_TEST

/* A component view: each field from one walk, in any key order; a field of
 * the wrong type, or a negative amount, reads as absent. */
/* A view writes the component as the sheet stores it (same keys, same
 * order), and a component without a class as class "other". */
START_TEST(component_view_writes_the_stored_shape)
{
    json_t *s = vs_sheet_new("w"), *c, *bare = json_pack("{s:s, s:n}", "name", "x", "bytes");
    vs_component_view v;
    vs_buf out = VS_BUF_INIT;
    vs_jw w = VS_JW_INIT(&out);
    vs_error err;
    char *want;
    ck_assert_int_eq(vs_sheet_put_component(&c, NULL, NULL, s, NULL, "kv \"cache\"", 1,
                                            17179869184ULL, "estimated", "formula", "generate",
                                            "kv_cache", &err),
                     0);
    vs_component_view_read(&v, c);
    vs_jw_open(&w, '{');
    vs_component_view_write(&v, &w);
    vs_jw_close(&w, '}');
    want = json_dumps(c, JSON_COMPACT);
    ck_assert_str_eq(vs_buf_str(&out), want);
    free(want);
    vs_buf_reset(&out);
    w.comma = 0;
    vs_component_view_read(&v, bare);
    vs_jw_open(&w, '{');
    vs_component_view_write(&v, &w);
    vs_jw_close(&w, '}');
    ck_assert_str_eq(vs_buf_str(&out), "{\"name\":\"x\",\"bytes\":null,\"status\":null,"
                                       "\"source\":null,\"phase\":null,\"class\":\"other\"}");
    vs_buf_free(&out);
    json_decref(bare);
    json_decref(s);
}
END_TEST

/* The view is written as members after others the object already has (its
 * first key takes the comma), with escapes in its strings and the
 * managed-memory key, exactly as jansson writes the same object; one written
 * into an empty buffer grows it. */
START_TEST(component_view_write_continues_an_object)
{
    json_t *c = json_pack("{s:s, s:I, s:s, s:n, s:s, s:s, s:s}", "name", "tab\there \"q\" \\ \001",
                          "bytes", (json_int_t)1, "status", "measured", "source", "phase", "train",
                          "class", "activations", "memory", "managed");
    json_t *want = json_pack(
        "{s:s, s:O, s:O, s:O, s:O, s:O, s:O, s:O, s:s}", "kind", "component", "name",
        json_object_get(c, "name"), "bytes", json_object_get(c, "bytes"), "status",
        json_object_get(c, "status"), "source", json_null(), "phase", json_object_get(c, "phase"),
        "class", json_object_get(c, "class"), "memory", json_object_get(c, "memory"), "after", "x");
    vs_component_view v;
    vs_buf out = VS_BUF_INIT;
    vs_jw w = VS_JW_INIT(&out);
    char *text = json_dumps(want, JSON_COMPACT);
    vs_component_view_read(&v, c);
    ck_assert(v.managed);
    vs_jw_open(&w, '{');
    vs_jw_member_str(&w, "kind", "component");
    vs_component_view_write(&v, &w);
    vs_jw_member_str(&w, "after", "x"); /* the writer leaves a comma owed */
    vs_jw_close(&w, '}');
    ck_assert(!vs_buf_failed(&out));
    ck_assert_str_eq(vs_buf_str(&out), text);
    free(text);
    vs_buf_free(&out);
    json_decref(want);
    json_decref(c);
}
END_TEST

/* The allocator-cache key ("memory": "cache") is read as its own flag, not as
 * managed memory, and written back as it was; another value is neither. */
START_TEST(component_view_cache_key)
{
    json_t *c = json_pack("{s:s, s:I, s:s, s:s, s:s, s:s}", "name", "vae_decode_cache", "bytes",
                          (json_int_t)7, "status", "estimated", "phase", "decode", "class",
                          "activations", "memory", "cache");
    vs_component_view v;
    vs_buf out = VS_BUF_INIT;
    vs_jw w = VS_JW_INIT(&out);
    vs_component_view_read(&v, c);
    ck_assert(v.cache);
    ck_assert(!v.managed);
    vs_jw_open(&w, '{');
    vs_component_view_write(&v, &w);
    vs_jw_close(&w, '}');
    ck_assert_str_eq(vs_buf_str(&out), "{\"name\":\"vae_decode_cache\",\"bytes\":7,\"status\":"
                                       "\"estimated\",\"source\":null,\"phase\":\"decode\","
                                       "\"class\":\"activations\",\"memory\":\"cache\"}");
    vs_buf_free(&out);
    json_object_set_new(c, "memory", json_string("pinned"));
    vs_component_view_read(&v, c);
    ck_assert(!v.cache && !v.managed);
    json_decref(c);
}
END_TEST

/* The views of a sheet are its components' views, in the sheet's order; a
 * sheet without components gives none. */
START_TEST(component_views_follow_the_sheet)
{
    json_t *s = vs_sheet_new("v"), *c;
    vs_component_views views;
    vs_error err;
    size_t i;
    ck_assert_int_eq(vs_component_views_read(&views, s), 0);
    ck_assert_uint_eq(views.n, 0);
    vs_component_views_free(&views);
    ck_assert_int_eq(vs_sheet_put_component(&c, NULL, NULL, s, NULL, "b", 1, 7, "estimated", NULL,
                                            NULL, NULL, &err),
                     0);
    ck_assert_int_eq(vs_sheet_put_component(&c, NULL, NULL, s, NULL, "a", 0, 0, "unknown",
                                            "to measure", "train", "activations", &err),
                     0);
    ck_assert_int_eq(vs_component_views_read(&views, s), 0);
    ck_assert_uint_eq(views.n, 2);
    for (i = 0; i < views.n; i++) {
        vs_component_view one;
        vs_component_view_read(&one, json_array_get(vs_sheet_array(s, VS_SK_COMPONENTS), i));
        ck_assert_mem_eq(&views.v[i], &one, sizeof one);
    }
    ck_assert_str_eq(json_string_value(views.v[0].name), "b");
    ck_assert_uint_eq(views.v[0].value, 7);
    ck_assert_int_eq(views.v[1].known, 0);
    ck_assert_str_eq(json_string_value(views.v[1].phase), "train");
    vs_component_views_free(&views);
    ck_assert_ptr_null(views.v);
    json_decref(s);
}
END_TEST

/* Components are found by name through the sheet's index whatever happened
 * to the sheet: many added, some replaced, some removed, the sheet copied
 * by a snapshot or loaded from its record. A name is never stored twice. */
static void put_named(json_t *s, const char *name, uint64_t bytes)
{
    json_t *c;
    vs_error err;
    ck_assert_int_eq(vs_sheet_put_component(&c, NULL, NULL, s, NULL, name, 1, bytes, "estimated",
                                            NULL, NULL, NULL, &err),
                     0);
    ck_assert_ptr_eq(vs_sheet_component(s, name), c);
}

static void assert_unique_and_found(json_t *s)
{
    json_t *comps = vs_sheet_array(s, VS_SK_COMPONENTS), *c, *seen = json_object();
    size_t i;
    json_array_foreach(comps, i, c)
    {
        const char *n = json_string_value(json_object_get(c, "name"));
        ck_assert_msg(!json_object_get(seen, n), "%s stored twice", n);
        json_object_set_new(seen, n, json_true());
        ck_assert_ptr_eq(vs_sheet_component(s, n), c);
    }
    json_decref(seen);
}

START_TEST(components_are_found_by_name_after_any_change)
{
    json_t *s = vs_sheet_new("index"), *sheets, *snap, *copy, *loaded;
    char name[32], *text;
    size_t i;
    vs_error err;
    for (i = 0; i < 300; i++) {
        snprintf(name, sizeof name, "part_%zu", i);
        put_named(s, name, i + 1);
    }
    for (i = 0; i < 300; i += 7) { /* replaced in place, not appended */
        snprintf(name, sizeof name, "part_%zu", i);
        put_named(s, name, 1000 + i);
    }
    ck_assert_uint_eq(json_array_size(vs_sheet_array(s, VS_SK_COMPONENTS)), 300);
    ck_assert_uint_eq(json_object_size(json_object_get(s, "_component_at")), 300);
    assert_unique_and_found(s);
    ck_assert_ptr_null(vs_sheet_component(s, "part_300"));
    /* removals move the positions after them */
    ck_assert_int_eq(vs_sheet_remove_component(s, 10), 0);
    ck_assert_int_eq(vs_sheet_remove_component(s, 0), 0);
    ck_assert_ptr_null(vs_sheet_component(s, "part_10"));
    ck_assert_ptr_null(vs_sheet_component(s, "part_0"));
    put_named(s, "part_299", 5); /* still there: replaced */
    put_named(s, "part_10", 6);  /* gone: appended */
    ck_assert_uint_eq(json_array_size(vs_sheet_array(s, VS_SK_COMPONENTS)), 299);
    assert_unique_and_found(s);
    /* a snapshot leaves the cache out and still finds everything */
    sheets = json_pack("[O]", s);
    snap = vs_sheet_snapshot_all(sheets);
    json_decref(sheets);
    copy = json_array_get(snap, 0);
    ck_assert_ptr_null(json_object_get(copy, "_component_at"));
    assert_unique_and_found(copy);
    put_named(copy, "part_5", 7);
    put_named(copy, "new", 8);
    ck_assert_uint_eq(json_array_size(vs_sheet_array(copy, VS_SK_COMPONENTS)), 300);
    assert_unique_and_found(copy);
    /* the cache is never recorded; a loaded sheet finds by name too */
    text = vs_sheet_dump(s);
    ck_assert_ptr_null(strstr(text, "_component_at"));
    ck_assert_int_eq(vs_sheet_load(&loaded, text, strlen(text), &err), 0);
    put_named(loaded, "part_42", 9);
    put_named(loaded, "another", 10);
    ck_assert_uint_eq(json_array_size(vs_sheet_array(loaded, VS_SK_COMPONENTS)), 300);
    assert_unique_and_found(loaded);
    ck_assert_ptr_ne(json_object_get(loaded, "_component_at"), json_object_get(s, "_component_at"));
    free(text);
    json_decref(loaded);
    json_decref(snap);
    json_decref(s);
}
END_TEST

/* Every field of two views, the amounts and counts by value and the strings
 * by the JSON value they point at. */
static void assert_same_view(const vs_component_view *a, const vs_component_view *b, size_t step)
{
    ck_assert_msg(a->name == b->name && a->status == b->status && a->source == b->source &&
                      a->phase == b->phase && a->cls == b->cls,
                  "step %zu: a string of the view is not the stored one", step);
    ck_assert_msg(a->known == b->known && a->bytes_null == b->bytes_null && a->value == b->value &&
                      a->keys == b->keys && a->nulls == b->nulls && a->managed == b->managed,
                  "step %zu: known %d/%d, null %d/%d, value %llu/%llu, keys %u/%u, nulls %u/%u",
                  step, a->known, b->known, a->bytes_null, b->bytes_null,
                  (unsigned long long)a->value, (unsigned long long)b->value, a->keys, b->keys,
                  a->nulls, b->nulls);
}

/* Declaring a component again with the same fields keeps the stored object
 * (a cell run again); any field that differs replaces it with the new one. */
START_TEST(the_same_declaration_keeps_the_component)
{
    static const struct {
        int known;
        uint64_t bytes;
        const char *status, *source, *phase, *cls;
        int kept; /* the same fields as the declaration before */
    } steps[] = {
        {1, 100, "estimated", "formula", NULL, "kv_cache", 0},
        {1, 100, "estimated", "formula", NULL, "kv_cache", 1},
        {1, 101, "estimated", "formula", NULL, "kv_cache", 0},     /* bytes */
        {1, 101, "estimated", "other", NULL, "kv_cache", 0},       /* source */
        {1, 101, "estimated", "other", "generate", "kv_cache", 0}, /* phase */
        {1, 101, "estimated", "other", "generate", NULL, 0},       /* class */
        {1, 101, "estimated", "other", "generate", "other", 1},    /* NULL class is "other" */
        {0, 0, "unknown", "other", "generate", "other", 0},        /* status, bytes null */
        {0, 0, "unknown", NULL, "generate", "other", 0},           /* source null */
        {0, 0, "unknown", NULL, "generate", "other", 1},
    };
    json_t *s = vs_sheet_new("same"), *c = NULL, *now;
    vs_component_view view, read;
    vs_error err;
    size_t i;
    for (i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        ck_assert_int_eq(vs_sheet_put_component(&now, &view, NULL, s, NULL, "kv", steps[i].known,
                                                steps[i].bytes, steps[i].status, steps[i].source,
                                                steps[i].phase, steps[i].cls, &err),
                         0);
        if (steps[i].kept)
            ck_assert_msg(now == c, "step %zu: the same fields, a new object", i);
        else
            ck_assert_msg(now != c, "step %zu: other fields, the old object kept", i);
        ck_assert_uint_eq(json_array_size(vs_sheet_array(s, VS_SK_COMPONENTS)), 1);
        ck_assert_str_eq(json_string_value(json_object_get(now, "status")), steps[i].status);
        /* the view handed back is the stored component's */
        vs_component_view_read(&read, now);
        assert_same_view(&view, &read, i);
        ck_assert_int_eq(json_is_null(json_object_get(now, "bytes")), !steps[i].known);
        c = now;
    }
    json_decref(s);
}
END_TEST

/* A component added (a new name) hands back the view of what it stored, as
 * reading the stored object gives it: the nulls counted by hand for each
 * case (an unknown amount, a missing source and phase, a missing class stored
 * as "other"). */
START_TEST(a_new_component_hands_back_its_view)
{
    static const struct {
        const char *name;
        int known;
        uint64_t bytes;
        const char *status, *source, *phase, *cls;
        unsigned nulls; /* of the six stored fields */
    } steps[] = {
        {"a", 1, 100, "estimated", "formula", "generate", "kv_cache", 0},
        {"b", 1, 0, "estimated", NULL, NULL, NULL, 2},                /* source, phase */
        {"c", 0, 0, "unknown", "to measure", NULL, "activations", 2}, /* bytes, phase */
        {"d", 0, 0, "unknown", NULL, NULL, NULL, 3},                  /* bytes, source, phase */
        {"e", 1, 9223372036854775807ULL, "measured", "nvml", "load", "other", 0},
    };
    json_t *s = vs_sheet_new("views"), *now;
    vs_component_view view, read;
    vs_error err;
    size_t i;
    for (i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        ck_assert_int_eq(vs_sheet_put_component(&now, &view, NULL, s, NULL, steps[i].name,
                                                steps[i].known, steps[i].bytes, steps[i].status,
                                                steps[i].source, steps[i].phase, steps[i].cls,
                                                &err),
                         0);
        ck_assert_uint_eq(json_array_size(vs_sheet_array(s, VS_SK_COMPONENTS)), i + 1);
        ck_assert_ptr_eq(vs_sheet_component(s, steps[i].name), now);
        vs_component_view_read(&read, now);
        assert_same_view(&view, &read, i);
        ck_assert_uint_eq(view.nulls, steps[i].nulls);
        ck_assert_uint_eq(view.keys, 6);
        ck_assert_str_eq(json_string_value(view.cls), steps[i].cls ? steps[i].cls : "other");
        ck_assert_int_eq(view.known, steps[i].known);
        ck_assert_uint_eq(view.value, steps[i].known ? steps[i].bytes : 0);
    }
    json_decref(s);
}
END_TEST

/* A source of shared strings for the tests: "estimated" and "other" only,
 * counting how often it is asked. */
typedef struct {
    json_t *estimated, *other;
    int asked;
} words_fixture;

static json_t *fixture_word(void *data, const char *word)
{
    words_fixture *f = data;
    f->asked++;
    return !strcmp(word, "estimated") ? f->estimated : !strcmp(word, "other") ? f->other : NULL;
}

/* A component built holds the strings the caller's words give (the same
 * objects, one more reference each), its own for a word they do not give
 * (NULL), and one that is kept as it was (the same fields again) asks for
 * none; what is stored reads the same either way. */
START_TEST(components_hold_the_words_given)
{
    words_fixture f = {json_string("estimated"), json_string("other"), 0};
    vs_component_words words = {fixture_word, &f, NULL, 0, 0};
    json_t *s = vs_sheet_new("words"), *a, *b, *again;
    vs_component_view va, vb;
    vs_error err;
    ck_assert_int_eq(vs_sheet_put_component(&a, &va, NULL, s, &words, "a", 1, 10, "estimated", NULL,
                                            NULL, NULL, &err),
                     0);
    ck_assert_ptr_eq(json_object_get(a, "status"), f.estimated);
    ck_assert_ptr_eq(json_object_get(a, "class"), f.other); /* NULL class: "other" */
    ck_assert_ptr_eq(va.status, f.estimated);
    ck_assert_int_eq(f.estimated->refcount, 2);
    ck_assert_int_eq(f.asked, 2);
    ck_assert_int_eq(vs_sheet_put_component(&b, &vb, NULL, s, &words, "b", 0, 0, "unknown",
                                            "to measure", NULL, "kv_cache", &err),
                     0);
    ck_assert_str_eq(json_string_value(json_object_get(b, "status")), "unknown");
    ck_assert_str_eq(json_string_value(json_object_get(b, "class")), "kv_cache");
    ck_assert_int_eq(f.asked, 4);
    /* the same fields again: kept, nothing asked */
    ck_assert_int_eq(vs_sheet_put_component(&again, NULL, NULL, s, &words, "a", 1, 10, "estimated",
                                            NULL, NULL, NULL, &err),
                     0);
    ck_assert_ptr_eq(again, a);
    ck_assert_int_eq(f.asked, 4);
    json_decref(s); /* the components' references go with the sheet */
    ck_assert_int_eq(f.estimated->refcount, 1);
    ck_assert_int_eq(f.other->refcount, 1);
    json_decref(f.estimated);
    json_decref(f.other);
}
END_TEST

/* A caller whose strings are already checked as UTF-8 (a parsed cell's)
 * says so, and its component is the one a check of each string builds; a
 * caller that does not say so still has a bad string refused, the sheet
 * left without it. */
START_TEST(checked_words_build_the_same_component)
{
    words_fixture f = {json_string("estimated"), json_string("other"), 0};
    vs_component_words checked = {fixture_word, &f, NULL, 0, 1};
    vs_component_words unchecked = {fixture_word, &f, NULL, 0, 0};
    json_t *s1 = vs_sheet_new("checked"), *s2 = vs_sheet_new("unchecked"), *a, *b;
    vs_error err;
    ck_assert_int_eq(vs_sheet_put_component(&a, NULL, NULL, s1, &checked, "kv_\xc3\xbc", 1, 10,
                                            "estimated", "bench \xc3\xa9", "decode", NULL, &err),
                     0);
    ck_assert_int_eq(vs_sheet_put_component(&b, NULL, NULL, s2, &unchecked, "kv_\xc3\xbc", 1, 10,
                                            "estimated", "bench \xc3\xa9", "decode", NULL, &err),
                     0);
    ck_assert(json_equal(a, b));
    ck_assert_str_eq(json_string_value(json_object_get(a, "name")), "kv_\xc3\xbc");
    ck_assert_str_eq(json_string_value(json_object_get(a, "source")), "bench \xc3\xa9");
    ck_assert_str_eq(json_string_value(json_object_get(a, "phase")), "decode");
    /* a byte that is no UTF-8 (0xff), unchecked: refused, nothing stored */
    ck_assert_int_lt(vs_sheet_put_component(&b, NULL, NULL, s2, &unchecked, "bad\xff", 1, 10,
                                            "estimated", NULL, NULL, NULL, &err),
                     0);
    ck_assert_ptr_null(vs_sheet_component(s2, "bad\xff"));
    ck_assert_uint_eq(json_array_size(vs_sheet_array(s2, VS_SK_COMPONENTS)), 1);
    json_decref(s1);
    json_decref(s2);
    json_decref(f.estimated);
    json_decref(f.other);
}
END_TEST

/* What a caller holds of the stored components: the views it hands out
 * (one slot, for the position and object asked), counted. */
typedef struct {
    vs_component_view view;
    size_t at;
    const json_t *of;
    int asked;
} held_fixture;

static const vs_component_view *fixture_view(void *data, size_t at, const json_t *c)
{
    held_fixture *f = data;
    f->asked++;
    return f->of == c && f->at == at ? &f->view : NULL;
}

/* A put looks at the place it is hinted first and falls back to the name's
 * lookup for any other (wrong, past the end); the component found is the one
 * of that name wherever the hint pointed. The caller's view of the stored
 * object, when it has one, is what the put decides from (a view saying
 * "measured" refuses an estimate, though the object says "estimated"); with
 * none, the object is read. */
START_TEST(a_put_takes_the_place_and_the_view_it_is_given)
{
    held_fixture f = {{0}, 0, NULL, 0};
    vs_component_words words = {NULL, &f, fixture_view, 1, 0};
    json_t *s = vs_sheet_new("held"), *a, *b, *c, *now;
    vs_component_view v;
    size_t at = 99;
    vs_error err;
    ck_assert_int_eq(vs_sheet_set_component(s, "a", 1, 10, "estimated", NULL, NULL, NULL, &err), 0);
    ck_assert_int_eq(vs_sheet_set_component(s, "b", 1, 20, "estimated", NULL, NULL, NULL, &err), 0);
    ck_assert_int_eq(
        vs_sheet_set_component(s, "c", 0, 0, "unknown", "to measure", NULL, NULL, &err), 0);
    a = json_array_get(vs_sheet_array(s, VS_SK_COMPONENTS), 0);
    b = json_array_get(vs_sheet_array(s, VS_SK_COMPONENTS), 1);
    c = json_array_get(vs_sheet_array(s, VS_SK_COMPONENTS), 2);
    /* hinted right, no view held: read, kept, its place */
    ck_assert_int_eq(vs_sheet_put_component(&now, &v, &at, s, &words, "b", 1, 20, "estimated", NULL,
                                            NULL, NULL, &err),
                     0);
    ck_assert_ptr_eq(now, b);
    ck_assert_uint_eq(at, 1);
    ck_assert_int_eq(f.asked, 1);
    ck_assert_uint_eq(v.value, 20);
    /* hinted wrong, then past the end: found by name all the same */
    words.hint = 0;
    ck_assert_int_eq(vs_sheet_put_component(&now, NULL, &at, s, &words, "c", 0, 0, "unknown",
                                            "to measure", NULL, NULL, &err),
                     0);
    ck_assert_ptr_eq(now, c);
    ck_assert_uint_eq(at, 2);
    words.hint = 7;
    ck_assert_int_eq(vs_sheet_put_component(&now, NULL, &at, s, &words, "a", 1, 10, "estimated",
                                            NULL, NULL, NULL, &err),
                     0);
    ck_assert_ptr_eq(now, a);
    ck_assert_uint_eq(at, 0);
    /* the view held of b decides: it says measured, so an estimate is refused
     * and b stays as it was */
    vs_component_view_read(&f.view, b);
    f.view.status = json_string("measured");
    f.of = b;
    f.at = 1;
    words.hint = 1;
    ck_assert_int_eq(vs_sheet_put_component(&now, NULL, &at, s, &words, "b", 1, 30, "estimated",
                                            NULL, NULL, NULL, &err),
                     VS_EVALUE);
    ck_assert_ptr_eq(json_array_get(vs_sheet_array(s, VS_SK_COMPONENTS), 1), b);
    ck_assert_int_eq(json_integer_value(json_object_get(b, "bytes")), 20);
    json_decref(f.view.status);
    /* the view as read: the same declaration keeps b, its view handed back */
    vs_component_view_read(&f.view, b);
    ck_assert_int_eq(vs_sheet_put_component(&now, &v, &at, s, &words, "b", 1, 20, "estimated", NULL,
                                            NULL, NULL, &err),
                     0);
    ck_assert_ptr_eq(now, b);
    ck_assert_ptr_eq(v.status, f.view.status);
    json_decref(s);
}
END_TEST

/* A sheet with a name twice (a record may hold one): the put goes to the first
 * of that name, as the lookup by name does, whatever the hint says. */
START_TEST(a_name_twice_puts_to_the_first_whatever_the_hint)
{
    vs_component_words words = {NULL, NULL, NULL, 2, 0};
    json_t *s = vs_sheet_new("twice"), *comps, *dup, *now;
    size_t at = 99;
    vs_error err;
    ck_assert_int_eq(vs_sheet_set_component(s, "a", 1, 10, "estimated", NULL, NULL, NULL, &err), 0);
    ck_assert_int_eq(vs_sheet_set_component(s, "b", 1, 20, "estimated", NULL, NULL, NULL, &err), 0);
    comps = vs_sheet_array(s, VS_SK_COMPONENTS);
    ck_assert_ptr_nonnull(dup = json_deep_copy(json_array_get(comps, 0)));
    json_object_set_new(dup, "bytes", json_integer(99));
    ck_assert_int_eq(json_array_append_new(comps, dup), 0);
    ck_assert_int_eq(vs_sheet_put_component(&now, NULL, &at, s, &words, "a", 1, 55, "estimated",
                                            NULL, NULL, NULL, &err),
                     0);
    ck_assert_uint_eq(at, 0);
    ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(comps, 0), "bytes")), 55);
    ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(comps, 2), "bytes")), 99);
    json_decref(s);
}
END_TEST

/* The card's generation, as what follows the card reads it: a new sheet is
 * unseen until seen, every touch makes it unseen again (twice in a row too),
 * a snapshot taken while seen stays seen when the sheet it was taken from is
 * touched (the count is replaced, never set in place), and a sheet whose
 * count went (no memory to write it) reads as unseen. */
START_TEST(the_card_generation_says_unseen_after_each_touch)
{
    json_t *s = vs_sheet_new("gen"), *snap;
    ck_assert(vs_sheet_card_unseen(s));
    vs_sheet_card_saw(s);
    ck_assert(!vs_sheet_card_unseen(s));
    vs_sheet_card_saw(s); /* seeing again changes nothing */
    ck_assert(!vs_sheet_card_unseen(s));
    vs_sheet_card_touch(s);
    ck_assert(vs_sheet_card_unseen(s));
    vs_sheet_card_touch(s);
    ck_assert(vs_sheet_card_unseen(s));
    vs_sheet_card_saw(s);
    ck_assert(!vs_sheet_card_unseen(s));
    snap = json_copy(s); /* shares the count, as a cell's copy does */
    vs_sheet_card_touch(s);
    ck_assert(vs_sheet_card_unseen(s));
    ck_assert(!vs_sheet_card_unseen(snap));
    json_object_del(s, "_card_gen");
    ck_assert(vs_sheet_card_unseen(s));
    vs_sheet_card_saw(s);
    ck_assert(!vs_sheet_card_unseen(s));
    json_decref(snap);
    json_decref(s);
}
END_TEST

/* The `sheet` payload's fields are the sheet as stored, byte for byte what
 * jansson writes, without the runtime keys: components of the layout (known,
 * unknown) and one with a key the layout lacks. */
START_TEST(fields_write_the_sheet_as_stored)
{
    json_t *s = vs_sheet_new("fields"), *c, *odd, *want = json_object();
    vs_buf out = VS_BUF_INIT;
    vs_jw w = VS_JW_INIT(&out);
    vs_error err;
    const char *k;
    json_t *v;
    char *text;
    ck_assert_int_eq(vs_sheet_put_component(&c, NULL, NULL, s, NULL, "kv \"q\"", 1, 17179869184ULL,
                                            "estimated", "formula", "generate", "kv_cache", &err),
                     0);
    ck_assert_int_eq(vs_sheet_put_component(&c, NULL, NULL, s, NULL, "act", 0, 0, "unknown", NULL,
                                            NULL, NULL, &err),
                     0);
    odd = json_pack("{s:s, s:i, s:s}", "name", "odd", "bytes", 5, "note", "not in the layout");
    json_array_append_new(vs_sheet_array(s, VS_SK_COMPONENTS), odd);
    /* the six keys, but an amount as text: written as it is, not as unknown */
    odd = json_pack("{s:s, s:s, s:s, s:n, s:n, s:s}", "name", "text", "bytes", "12", "status",
                    "estimated", "source", "phase", "class", "other");
    json_array_append_new(vs_sheet_array(s, VS_SK_COMPONENTS), odd);
    json_object_set_new(s, "_runtime", json_string("abc"));
    json_object_foreach(s, k, v)
    {
        if (k[0] != '_')
            json_object_set(want, k, v);
    }
    vs_jw_open(&w, '{');
    vs_sheet_fields_write(s, NULL, &w);
    vs_jw_close(&w, '}');
    ck_assert(!vs_buf_failed(&out));
    text = json_dumps(want, JSON_COMPACT);
    ck_assert_str_eq(vs_buf_str(&out), text);
    ck_assert_ptr_null(strstr(vs_buf_str(&out), "_runtime"));
    free(text);
    vs_buf_free(&out);
    json_decref(want);
    json_decref(s);
}
END_TEST

/* A component put is stored with the layout's six keys, spelled out and in
 * their order, and found again by its name through the index. */
START_TEST(component_put_stores_the_layout_keys)
{
    json_t *s = vs_sheet_new("keys"), *c = NULL;
    vs_error err = {0};
    char *text;
    ck_assert_int_eq(vs_sheet_put_component(&c, NULL, NULL, s, NULL, "kv_cache", 1, 4096,
                                            "estimated", "2 x 32", NULL, "kv_cache", &err),
                     0);
    ck_assert_int_eq(vs_sheet_put_component(&c, NULL, NULL, s, NULL, "kv", 0, 0, "unknown", NULL,
                                            "decode", NULL, &err),
                     0);
    text = json_dumps(vs_sheet_array(s, VS_SK_COMPONENTS), JSON_COMPACT);
    ck_assert_str_eq(text, "[{\"name\":\"kv_cache\",\"bytes\":4096,\"status\":\"estimated\","
                           "\"source\":\"2 x 32\",\"phase\":null,\"class\":\"kv_cache\"},"
                           "{\"name\":\"kv\",\"bytes\":null,\"status\":\"unknown\","
                           "\"source\":null,\"phase\":\"decode\",\"class\":\"other\"}]");
    free(text);
    /* "kv" is a prefix of "kv_cache": each found at its own place */
    ck_assert_ptr_eq(vs_sheet_component(s, "kv"),
                     json_array_get(vs_sheet_array(s, VS_SK_COMPONENTS), 1));
    ck_assert_ptr_eq(vs_sheet_component(s, "kv_cache"),
                     json_array_get(vs_sheet_array(s, VS_SK_COMPONENTS), 0));
    ck_assert_ptr_null(vs_sheet_component(s, "kv_c"));
    json_decref(s);
}
END_TEST

START_TEST(component_view_reads_fields)
{
    vs_component_view v;
    json_t *c = json_pack("{s:s, s:s, s:I, s:s, s:n, s:s, s:i}", "class", "kv_cache", "status",
                          "estimated", "bytes", (json_int_t)17179869184LL, "name", "kv_cache",
                          "phase", "source", "2 x 32 x 8", "extra", 1);
    vs_component_view_read(&v, c);
    ck_assert_str_eq(json_string_value(v.name), "kv_cache");
    ck_assert_str_eq(json_string_value(v.status), "estimated");
    ck_assert_str_eq(json_string_value(v.source), "2 x 32 x 8");
    ck_assert_str_eq(json_string_value(v.cls), "kv_cache");
    ck_assert_ptr_null(v.phase); /* null is not a string */
    ck_assert_int_eq(v.known, 1);
    ck_assert_int_eq(v.bytes_null, 0);
    ck_assert_uint_eq(v.value, 17179869184ULL);
    json_decref(c);
    c = json_pack("{s:s, s:n}", "name", "u", "bytes");
    vs_component_view_read(&v, c);
    ck_assert_int_eq(v.known, 0);
    ck_assert_int_eq(v.bytes_null, 1);
    json_decref(c);
    c = json_pack("{s:i, s:I}", "name", 7, "bytes", (json_int_t)-1);
    vs_component_view_read(&v, c);
    ck_assert_ptr_null(v.name);
    ck_assert_int_eq(v.known, 0);
    ck_assert_uint_eq(v.value, 0);
    json_decref(c);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sheet");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, new_sheet_has_the_whole_layout);
    tcase_add_test(tc, slugs);
    tcase_add_test(tc, component_view_reads_fields);
    tcase_add_test(tc, component_put_stores_the_layout_keys);
    tcase_add_test(tc, component_view_writes_the_stored_shape);
    tcase_add_test(tc, component_view_write_continues_an_object);
    tcase_add_test(tc, component_view_cache_key);
    tcase_add_test(tc, component_views_follow_the_sheet);
    tcase_add_test(tc, components_are_found_by_name_after_any_change);
    tcase_add_test(tc, the_same_declaration_keeps_the_component);
    tcase_add_test(tc, a_new_component_hands_back_its_view);
    tcase_add_test(tc, the_card_generation_says_unseen_after_each_touch);
    tcase_add_test(tc, components_hold_the_words_given);
    tcase_add_test(tc, a_put_takes_the_place_and_the_view_it_is_given);
    tcase_add_test(tc, a_name_twice_puts_to_the_first_whatever_the_hint);
    tcase_add_test(tc, fields_write_the_sheet_as_stored);
    tcase_add_test(tc, non_ascii_titles_keep_distinct_ids);
    tcase_add_test(tc, id_validity);
    tcase_add_test(tc, measured_components_are_never_overwritten_by_estimates);
    tcase_add_test(tc, checked_words_build_the_same_component);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
