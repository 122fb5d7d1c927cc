/* Estimates that follow the card, through the interpreter (lang/derive.h):
 * the recomputation after a card line, its result, the unknown it leaves when
 * the new card cannot compute it, multi-component estimators, atomic cells,
 * and the runtime key that spares unchanged lines. Expected bytes are hand
 * arithmetic: 2 x 32 x 8 x 128 x 2 B = 131,072 B per token for the KV cache. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "lang/derive.h"
#include "lang/interp.h"
#include "lang/interp_internal.h"
#include "render/bundle.h"
#include "sheet/sheet.h"

#include "check_run.h"
#include "results.h"

#define GIB 1073741824LL

typedef struct {
    json_t *displays;
} capture;

static void cap_display(void *ctx, const vs_bundle *bundle, const char *display_id, int update)
{
    capture *c = ctx;
    (void)display_id;
    (void)update;
    json_array_append_new(c->displays, vs_test_bundle_json(bundle));
}

/* Runs code; returns every result of the cell (displays and the last), in order. */
static json_t *run_all(vs_interp *ip, const char *code)
{
    capture c = {json_array()};
    vs_sink s;
    json_t *r = NULL;
    vs_error err;
    int rc;
    memset(&s, 0, sizeof s);
    s.ctx = &c;
    s.display = cap_display;
    rc = vs_test_execute(ip, code, &s, &r, &err);
    ck_assert_msg(rc == 0, "%s: %s", code, err.message);
    if (r)
        json_array_append_new(c.displays, r);
    return c.displays;
}

/* The rederived payload among results, or NULL. */
static json_t *rederived(json_t *results)
{
    size_t i;
    json_t *b;
    json_array_foreach(results, i, b)
    {
        json_t *p = json_object_get(b, VS_MIME_JSON);
        const char *k = json_string_value(json_object_get(p, "kind"));
        if (k && !strcmp(k, "rederived"))
            return b;
    }
    return NULL;
}

static json_t *row_named(json_t *bundle, const char *name)
{
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(json_object_get(bundle, VS_MIME_JSON), "rows"), i, r)
    {
        if (!strcmp(json_string_value(json_object_get(r, "name")), name))
            return r;
    }
    return NULL;
}

/* The current sheet's component named name, as the `sheet` payload shows it (a copy). */
static json_t *component(vs_interp *ip, const char *title, const char *name)
{
    char code[200];
    json_t *res, *out = NULL, *c;
    size_t i;
    snprintf(code, sizeof code, "sheet \"%s\"", title);
    res = run_all(ip, code);
    json_array_foreach(
        json_object_get(json_object_get(json_array_get(res, 0), VS_MIME_JSON), "components"), i, c)
    {
        if (!strcmp(json_string_value(json_object_get(c, "name")), name))
            out = json_deep_copy(c);
    }
    json_decref(res);
    ck_assert_msg(out != NULL, "no component %s", name);
    return out;
}

static json_int_t bytes_of(const json_t *x, const char *key)
{
    return json_integer_value(json_object_get(x, key));
}

START_TEST(length_recomputes_kv)
{
    vs_interp *ip = vs_interp_new(NULL);
    json_t *res, *b, *r, *c;
    res = run_all(ip, "sheet \"d\"\nlength 4096\nconcurrency 8\n"
                      "estimate kv layers=32 kv_heads=8 head_dim=128");
    ck_assert_ptr_null(rederived(res)); /* the estimate itself says what it made */
    json_decref(res);
    res = run_all(ip, "length 65536");
    b = rederived(res);
    ck_assert_ptr_nonnull(b);
    r = row_named(b, "kv_cache");
    ck_assert_int_eq(bytes_of(r, "from_bytes"), 131072LL * 4096 * 8);
    ck_assert_int_eq(bytes_of(r, "to_bytes"), 131072LL * 65536 * 8);
    ck_assert_str_eq(
        json_string_value(json_object_get(b, "text/plain")),
        "kv_cache re-estimated: length 4,096 \xe2\x86\x92 65,536, 4.00 GiB \xe2\x86\x92 "
        "64.00 GiB\n");
    /* it is the cell's result: the card line's own came first */
    ck_assert_ptr_eq(json_array_get(res, json_array_size(res) - 1), b);
    json_decref(res);
    c = component(ip, "d", "kv_cache");
    ck_assert_int_eq(bytes_of(c, "bytes"), 64 * GIB);
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(c, "derived"), "estimator")),
                     "kv");
    ck_assert_int_eq(bytes_of(json_object_get(json_object_get(c, "derived"), "reads"), "length"),
                     65536);
    ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(c, "source")), "65,536 tokens"));
    json_decref(c);
    /* a line that touches no card field: nothing said, nothing changed */
    res = run_all(ip, "invalidate \"a longer context\"");
    ck_assert_ptr_null(rederived(res));
    json_decref(res);
    vs_interp_free(ip);
}
END_TEST

START_TEST(failing_cell_keeps_the_old_estimate)
{
    vs_interp *ip = vs_interp_new(NULL);
    json_t *res, *c, *r = NULL;
    vs_error err;
    res = run_all(ip, "sheet \"a\"\nlength 4096\nconcurrency 8\n"
                      "estimate kv layers=32 kv_heads=8 head_dim=128");
    json_decref(res);
    ck_assert_int_lt(vs_test_execute(ip, "concurrency 16\nlength 0", NULL, &r, &err), 0);
    ck_assert_ptr_null(r);
    c = component(ip, "a", "kv_cache");
    ck_assert_int_eq(bytes_of(c, "bytes"), 4 * GIB);
    ck_assert_int_eq(
        bytes_of(json_object_get(json_object_get(c, "derived"), "reads"), "concurrency"), 8);
    json_decref(c);
    /* and the next change still recomputes from the state before the cell */
    res = run_all(ip, "concurrency 16");
    ck_assert_int_eq(bytes_of(row_named(rederived(res), "kv_cache"), "to_bytes"), 8 * GIB);
    json_decref(res);
    vs_interp_free(ip);
}
END_TEST

START_TEST(unknown_when_the_card_cannot_compute_it)
{
    vs_interp *ip = vs_interp_new(NULL);
    json_t *res, *c;
    /* training without trainable=: the model's params; a LoRA task needs trainable= */
    res = run_all(ip, "sheet \"t\"\nmodel m params=1000\ntask pretrain\n"
                      "estimate training optimizer=adamw");
    json_decref(res);
    res = run_all(ip, "model m params=2000");
    ck_assert_int_eq(bytes_of(row_named(rederived(res), "gradients"), "to_bytes"), 4000);
    ck_assert_int_eq(bytes_of(row_named(rederived(res), "optimizer_state"), "to_bytes"), 16000);
    ck_assert_int_eq(bytes_of(row_named(rederived(res), "master_copy"), "to_bytes"), 8000);
    json_decref(res);
    res = run_all(ip, "task lora");
    ck_assert_ptr_nonnull(
        strstr(json_string_value(json_object_get(rederived(res), "text/plain")),
               "gradients could not be re-estimated: task pretrain \xe2\x86\x92 lora"));
    json_decref(res);
    c = component(ip, "t", "gradients");
    ck_assert_str_eq(json_string_value(json_object_get(c, "status")), "unknown");
    ck_assert(json_is_null(json_object_get(c, "bytes")));
    ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(c, "source")), "trainable=N"));
    ck_assert_ptr_nonnull(json_object_get(c, "derived")); /* kept, to come back */
    json_decref(c);
    res = run_all(ip, "task pretrain");
    ck_assert_int_eq(bytes_of(row_named(rederived(res), "gradients"), "to_bytes"), 4000);
    json_decref(res);
    c = component(ip, "t", "gradients");
    ck_assert_str_eq(json_string_value(json_object_get(c, "status")), "estimated");
    json_decref(c);
    vs_interp_free(ip);
}
END_TEST

START_TEST(measured_is_never_recomputed)
{
    vs_interp *ip = vs_interp_new(NULL);
    json_t *res, *c;
    res = run_all(ip, "sheet \"m\"\nlength 4096\nconcurrency 8\n"
                      "estimate kv layers=32 kv_heads=8 head_dim=128\n"
                      "record phase=generate counter=c 5GiB length=4096 concurrency=8\n"
                      "measured kv_cache from=#1");
    json_decref(res);
    res = run_all(ip, "length 8192");
    ck_assert_ptr_null(rederived(res));
    json_decref(res);
    c = component(ip, "m", "kv_cache");
    ck_assert_str_eq(json_string_value(json_object_get(c, "status")), "measured");
    ck_assert_int_eq(bytes_of(c, "bytes"), 5 * GIB);
    ck_assert_ptr_null(json_object_get(c, "derived"));
    json_decref(c);
    vs_interp_free(ip);
}
END_TEST

/* The card's generation: a line that writes the card moves it and the
 * estimate follows; a card written behind the writers' back (here, by hand)
 * leaves it unmoved, which the check the tests run under (VRAMSHEET_CHECK_CARD=1,
 * set here too) reports as the cell's error instead of a stale estimate. */
START_TEST(a_card_changed_without_its_generation_is_caught)
{
    vs_interp *ip;
    json_t *res, *sheet;
    vs_sink s;
    json_t *r = NULL;
    vs_error err;
    setenv("VRAMSHEET_CHECK_CARD", "1", 1);
    ip = vs_interp_new(NULL);
    res = run_all(ip, "sheet \"g\"\nlength 4096\nconcurrency 1\n"
                      "estimate kv layers=2 kv_heads=2 head_dim=64");
    json_decref(res);
    sheet = json_array_get(ip->sheets, (size_t)ip->current);
    ck_assert(!vs_sheet_card_unseen(sheet));
    /* a writer moves it */
    vs_sheet_card_touch(sheet);
    ck_assert(vs_sheet_card_unseen(sheet));
    res = run_all(ip, "convert 1GiB GB");
    json_decref(res);
    ck_assert(!vs_sheet_card_unseen(sheet));
    /* a write that forgot to */
    json_object_set_new(vs_sheet_card(sheet), "length", json_integer(8192));
    memset(&s, 0, sizeof s);
    ck_assert_int_lt(vs_test_execute(ip, "convert 1GiB GB", &s, &r, &err), 0);
    ck_assert_ptr_nonnull(strstr(err.message, "without vs_sheet_card_touch"));
    ck_assert_int_eq(err.line, 1);
    json_decref(r);
    vs_interp_free(ip);
}
END_TEST

/* A card line that writes the value the card holds (a cell run again) leaves
 * the generation where it was: nothing to follow, and the check mode finds the
 * card as it saw it. A different value moves it, and the estimate follows:
 * 2 x 2 layers x 2 heads x 64 x 2 B = 1,024 B a token, x 4,096 then x 8,192. */
START_TEST(an_equal_card_value_leaves_the_generation)
{
    vs_interp *ip;
    json_t *res, *sheet, *c;
    json_int_t gen;
    setenv("VRAMSHEET_CHECK_CARD", "1", 1);
    ip = vs_interp_new(NULL);
    res = run_all(ip, "sheet \"q\"\nlength 4096\nconcurrency 1\n"
                      "estimate kv layers=2 kv_heads=2 head_dim=64");
    json_decref(res);
    sheet = json_array_get(ip->sheets, (size_t)ip->current);
    ck_assert(!vs_sheet_card_unseen(sheet));
    /* the generation's runtime key (sheet.c), compared before and after */
    gen = json_integer_value(json_object_get(sheet, "_card_gen"));
    ck_assert_int_gt(gen, 0);
    res = run_all(ip, "length 4096\nconcurrency 1");
    ck_assert_ptr_null(rederived(res));
    json_decref(res);
    ck_assert(!vs_sheet_card_unseen(sheet));
    ck_assert_int_eq(json_integer_value(json_object_get(sheet, "_card_gen")), gen);
    c = component(ip, "q", "kv_cache");
    ck_assert_int_eq(bytes_of(c, "bytes"), 1024LL * 4096);
    json_decref(c);
    res = run_all(ip, "length 8192");
    ck_assert_ptr_nonnull(rederived(res));
    json_decref(res);
    c = component(ip, "q", "kv_cache");
    ck_assert_int_eq(bytes_of(c, "bytes"), 1024LL * 8192);
    json_decref(c);
    vs_interp_free(ip);
}
END_TEST

/* Every row of lang/estimators.def is in the table, in the file's order, found
 * by the word its id spells (the word after `estimate`). */
START_TEST(the_table_names_every_estimator)
{
    static const char *const ids[] = {
#define VS_ESTIMATOR(id) #id,
#include "lang/estimators.def"
#undef VS_ESTIMATOR
        NULL};
    static const vs_estimator *const rows[] = {
#define VS_ESTIMATOR(id) &vs_estimator_row_##id,
#include "lang/estimators.def"
#undef VS_ESTIMATOR
        NULL};
    size_t i;
    for (i = 0; ids[i]; i++) {
        ck_assert_ptr_eq(vs_estimators[i], rows[i]);
        ck_assert_str_eq(rows[i]->info->name, ids[i]);
        ck_assert_ptr_eq(vs_estimator_find(ids[i]), rows[i]);
    }
    ck_assert_uint_gt(i, 0);
    ck_assert_ptr_null(vs_estimators[i]);
    ck_assert_ptr_null(vs_estimator_find("nope"));
    ck_assert_ptr_null(vs_estimator_find(NULL));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("derive");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, length_recomputes_kv);
    tcase_add_test(tc, failing_cell_keeps_the_old_estimate);
    tcase_add_test(tc, unknown_when_the_card_cannot_compute_it);
    tcase_add_test(tc, measured_is_never_recomputed);
    tcase_add_test(tc, the_table_names_every_estimator);
    tcase_add_test(tc, a_card_changed_without_its_generation_is_caught);
    tcase_add_test(tc, an_equal_card_value_leaves_the_generation);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
