/* Derived state against the card (sheet/derived.h): an estimate's reads and
 * how they changed, a measurement's validation, stale measured components,
 * evidence the card has moved past. Expected texts and flags are written by
 * hand from the card values set in each test. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "sheet/derived.h"
#include "sheet/envelope.h"
#include "sheet/sheet.h"

#include "check_run.h"

static json_t *card_sheet(json_int_t length, json_int_t concurrency, const char *format)
{
    json_t *s = vs_sheet_new("derived");
    json_t *card = vs_sheet_card(s);
    json_object_set_new(card, "model", json_string("example/7b"));
    json_object_set_new(card, "params", json_integer(7000000000));
    json_object_set_new(card, "length", length ? json_integer(length) : json_null());
    json_object_set_new(card, "concurrency", concurrency ? json_integer(concurrency) : json_null());
    json_object_set_new(card, "format", json_string(format));
    return s;
}

static const vs_derived_read kv_like[] = {{"length", NULL},
                                          {"concurrency", NULL},
                                          {"arch", "layers,kv_heads,head_dim"},
                                          {"placement", NULL},
                                          {NULL, NULL}};

START_TEST(reads_skip_what_the_line_wrote)
{
    json_t *s = card_sheet(4096, 8, "bf16");
    json_t *all = json_pack("{s:s, s:s, s:s}", "layers", "32", "kv_heads", "8", "head_dim", "128");
    json_t *some = json_pack("{s:s}", "layers", "32");
    json_t *r1 = vs_derived_reads(s, kv_like, all), *r2 = vs_derived_reads(s, kv_like, some);
    ck_assert_ptr_nonnull(r1);
    ck_assert_ptr_null(json_object_get(r1, "arch")); /* all three shapes on the line */
    ck_assert_int_eq(json_integer_value(json_object_get(r1, "length")), 4096);
    ck_assert_int_eq(json_integer_value(json_object_get(r1, "concurrency")), 8);
    ck_assert(json_is_object(json_object_get(r1, "placement")));
    ck_assert_ptr_nonnull(json_object_get(r2, "arch")); /* read, as null: no config yet */
    ck_assert(json_is_null(json_object_get(r2, "arch")));
    json_decref(r1);
    json_decref(r2);
    json_decref(all);
    json_decref(some);
    json_decref(s);
}
END_TEST

START_TEST(changes_are_described)
{
    json_t *s = card_sheet(4096, 8, "bf16");
    json_t *then = vs_derived_reads(s, kv_like, NULL), *now;
    vs_buf b = VS_BUF_INIT;
    now = vs_derived_reads_now(s, then);
    ck_assert_int_eq(vs_derived_moved(s, then), 0);
    ck_assert_uint_eq(vs_derived_changes(then, now, &b), 0);
    ck_assert_str_eq(vs_buf_str(&b), "");
    json_decref(now);
    json_object_set_new(vs_sheet_card(s), "length", json_integer(65536));
    json_object_set_new(s, "placement",
                        json_pack("{s:s, s:i, s:n}", "kind", "tensor", "gpus", 2, "stage"));
    now = vs_derived_reads_now(s, then);
    ck_assert_int_eq(vs_derived_moved(s, then), 1);
    ck_assert_uint_eq(vs_derived_changes(then, now, &b), 3);
    ck_assert_str_eq(vs_buf_str(&b), "length 4,096 \xe2\x86\x92 65,536; placement.kind single "
                                     "\xe2\x86\x92 tensor; placement.gpus 1 \xe2\x86\x92 2");
    vs_buf_free(&b);
    /* an engine set where there was none says its name */
    {
        json_t *o = json_pack("{s:n}", "engine"),
               *n = json_pack("{s:{s:s, s:{}}}", "engine", "name", "vllm", "keys");
        vs_buf e = VS_BUF_INIT;
        ck_assert_uint_eq(vs_derived_changes(o, n, &e), 1);
        ck_assert_str_eq(vs_buf_str(&e), "engine unset \xe2\x86\x92 vllm");
        vs_buf_free(&e);
        json_decref(o);
        json_decref(n);
    }
    json_decref(now);
    json_decref(then);
    json_decref(s);
}
END_TEST

static json_t *typed(json_int_t length, json_int_t concurrency, const char *run)
{
    json_t *dims = json_object();
    if (length)
        json_object_set_new(dims, "length", json_integer(length));
    if (concurrency)
        json_object_set_new(dims, "concurrency", json_integer(concurrency));
    return json_pack("{s:s?, s:s, s:i, s:n, s:s, s:s, s:I, s:o, s:b, s:s}", "run", run, "phase",
                     "generate", "gpu", 0, "gpu_name", "counter", "torch.max_memory_reserved",
                     "scope", "allocator", "peak_bytes", (json_int_t)21474836480, "dims", dims,
                     "validates_card", 1, "state", "current");
}

START_TEST(validation_follows_the_card)
{
    json_t *s = card_sheet(4096, 8, "bf16"), *m = typed(4096, 8, NULL);
    vs_buf why = VS_BUF_INIT;
    json_array_append_new(vs_sheet_array(s, VS_SK_MEASUREMENTS), m);
    ck_assert_int_eq(vs_derived_measurement_validates(s, m, NULL), 1);
    ck_assert_uint_eq(vs_sheet_refresh_validation(s), 0);
    json_object_set_new(vs_sheet_card(s), "concurrency", json_integer(16));
    ck_assert_int_eq(vs_derived_measurement_validates(s, m, &why), 0);
    ck_assert_str_eq(vs_buf_str(&why), "concurrency 8 < the card's 16");
    ck_assert_uint_eq(vs_sheet_refresh_validation(s), 1);
    ck_assert(json_is_false(json_object_get(m, "validates_card")));
    ck_assert_uint_eq(vs_sheet_refresh_derived(s), 0); /* already fresh */
    json_object_set_new(vs_sheet_card(s), "concurrency", json_integer(4));
    ck_assert_uint_eq(vs_sheet_refresh_derived(s), 1); /* smaller card: validated again */
    ck_assert(json_is_true(json_object_get(m, "validates_card")));
    /* reproduced for another campaign's hardware: to re-measure, validating nothing */
    json_object_set_new(m, "state", json_string("to re-measure"));
    vs_buf_reset(&why);
    ck_assert_int_eq(vs_derived_measurement_validates(s, m, &why), 0);
    ck_assert_str_eq(vs_buf_str(&why), "to re-measure on this campaign's hardware and software");
    ck_assert_uint_eq(vs_sheet_refresh_derived(s), 1);
    vs_buf_free(&why);
    json_decref(s);
}
END_TEST

START_TEST(a_failed_run_validates_nothing)
{
    json_t *s = card_sheet(4096, 8, "bf16"), *m = typed(4096, 8, "m1");
    vs_buf why = VS_BUF_INIT;
    json_array_append_new(vs_sheet_array(s, VS_SK_MEASUREMENTS), m);
    json_array_append_new(
        vs_sheet_array(s, VS_SK_RUNS),
        json_pack("{s:s, s:i, s:s}", "id", "m1", "exit_status", 1, "overflow_phase", "generate"));
    ck_assert_int_eq(vs_derived_measurement_validates(s, m, &why), 0);
    ck_assert_str_eq(vs_buf_str(&why),
                     "run m1 did not complete (exit status 1, out of memory in phase generate)");
    vs_buf_free(&why);
    /* a card that declares no dimension is not validated */
    json_object_set_new(vs_sheet_card(s), "length", json_null());
    json_object_set_new(vs_sheet_card(s), "concurrency", json_null());
    ck_assert_int_eq(vs_derived_measurement_validates(
                         s, json_array_get(vs_sheet_array(s, VS_SK_MEASUREMENTS), 0), NULL),
                     0);
    json_decref(s);
}
END_TEST

START_TEST(measured_component_flagged_when_the_card_grows)
{
    json_t *s = card_sheet(4096, 8, "bf16"), *c;
    vs_buf why = VS_BUF_INIT;
    vs_envelope env;
    vs_error err;
    json_array_append_new(vs_sheet_array(s, VS_SK_MEASUREMENTS), typed(4096, 8, NULL));
    ck_assert_int_eq(vs_sheet_set_component(s, "kv_cache", 1, 21474836480ULL, "measured",
                                            "measured: typed by hand, phase generate, GPU 0, "
                                            "counter torch.max_memory_reserved (scope allocator)",
                                            "generate", NULL, &err),
                     0);
    /* a declared measured amount has no measurement: never flagged */
    ck_assert_int_eq(
        vs_sheet_set_component(s, "workspace", 1, 1024, "measured", "nsys", "load", NULL, &err), 0);
    c = vs_sheet_component(s, "kv_cache");
    ck_assert_ptr_eq(vs_derived_component_measurement(s, c),
                     json_array_get(vs_sheet_array(s, VS_SK_MEASUREMENTS), 0));
    ck_assert_int_eq(vs_derived_component_stale(s, c, NULL), 0);
    json_object_set_new(vs_sheet_card(s), "length", json_integer(8192));
    ck_assert_int_eq(vs_derived_component_stale(s, c, &why), 1);
    ck_assert_str_eq(vs_buf_str(&why), "length 4096 < the card's 8192");
    ck_assert_int_eq(vs_derived_component_stale(s, vs_sheet_component(s, "workspace"), NULL), 0);
    ck_assert_int_eq(vs_envelope_compute(&env, s, NULL, &err), 0);
    ck_assert_uint_eq(env.n_stale, 1);
    ck_assert_str_eq(env.stale, "kv_cache (length 4096 < the card's 8192)");
    vs_buf_free(&why);
    json_decref(s);
}
END_TEST

START_TEST(evidence_moves_with_the_card)
{
    json_t *s = card_sheet(4096, 8, "bf16");
    json_t *q = json_pack("{s:s, s:s, s:s, s:s}", "candidate", "H100 SXM", "requirement", "quality",
                          "verdict", "admissible", "source", "eval");
    json_t *l = json_pack("{s:s, s:s, s:s, s:s}", "candidate", "H100 SXM", "requirement", "length",
                          "verdict", "admissible", "source", "doc");
    json_t *old = json_deep_copy(q);
    vs_buf why = VS_BUF_INIT;
    json_object_set_new(q, "card", vs_derived_evidence_card(s, "quality"));
    json_object_set_new(l, "card", vs_derived_evidence_card(s, "length"));
    ck_assert_uint_eq(json_object_size(json_object_get(q, "card")),
                      3); /* model, revision, format */
    ck_assert_uint_eq(json_object_size(json_object_get(l, "card")), 1);
    ck_assert_int_eq(vs_derived_evidence_moved(s, q, NULL), 0);
    {
        /* model, revision, format, and the dims: length, concurrency, microbatch, width,
         * height, frames, batch */
        json_t *cap = vs_derived_evidence_card(s, "available-memory");
        ck_assert_uint_eq(json_object_size(cap), 10);
        ck_assert_int_eq(json_integer_value(json_object_get(cap, "concurrency")), 8);
        json_decref(cap);
    }
    json_object_set_new(vs_sheet_card(s), "format", json_string("int4"));
    ck_assert_int_eq(vs_derived_evidence_moved(s, q, &why), 1);
    ck_assert_str_eq(vs_buf_str(&why), "format bf16 \xe2\x86\x92 int4");
    ck_assert_int_eq(vs_derived_evidence_moved(s, l, NULL), 0);   /* the length did not move */
    ck_assert_int_eq(vs_derived_evidence_moved(s, old, NULL), 0); /* no card: an older record */
    json_object_set_new(vs_sheet_card(s), "length", json_integer(2048));
    ck_assert_int_eq(vs_derived_evidence_moved(s, l, NULL), 0); /* less than confirmed */
    json_object_set_new(vs_sheet_card(s), "length", json_integer(8192));
    vs_buf_reset(&why);
    ck_assert_int_eq(vs_derived_evidence_moved(s, l, &why), 1);
    ck_assert_str_eq(vs_buf_str(&why), "length 4,096 \xe2\x86\x92 8,192");
    vs_buf_free(&why);
    json_decref(q);
    json_decref(l);
    json_decref(old);
    json_decref(s);
}
END_TEST

START_TEST(component_with_replaces_not_edits)
{
    json_t *s = card_sheet(4096, 8, "bf16"), *before, *after;
    vs_error err;
    ck_assert_int_eq(
        vs_sheet_set_component(s, "kv_cache", 1, 42, "estimated", "x", NULL, "kv_cache", &err), 0);
    before = json_incref(vs_sheet_component(s, "kv_cache"));
    ck_assert_int_eq(
        vs_sheet_component_with(s, 0, "derived", json_pack("{s:s}", "estimator", "kv")), 0);
    after = vs_sheet_component(s, "kv_cache");
    ck_assert_ptr_ne(before, after);
    ck_assert_ptr_null(json_object_get(before, "derived"));
    ck_assert_str_eq(
        json_string_value(json_object_get(json_object_get(after, "derived"), "estimator")), "kv");
    /* a declared amount replaces the estimate whole: no recipe left */
    ck_assert_int_eq(
        vs_sheet_set_component(s, "kv_cache", 1, 42, "estimated", "x", NULL, "kv_cache", &err), 0);
    ck_assert_ptr_null(json_object_get(vs_sheet_component(s, "kv_cache"), "derived"));
    json_decref(before);
    json_decref(s);
}
END_TEST

START_TEST(older_schema_loads_as_the_current_one)
{
    const char *v1 = "{\"schema\": \"vramsheet/sheet/1\", \"id\": \"old\"}";
    json_t *l = NULL;
    vs_error err;
    char *d;
    ck_assert_int_eq(vs_sheet_load(&l, v1, strlen(v1), &err), 0);
    ck_assert_str_eq(json_string_value(json_object_get(l, "schema")), "vramsheet/sheet/2");
    d = vs_sheet_dump(l);
    ck_assert_ptr_nonnull(strstr(d, "\"schema\": \"vramsheet/sheet/2\""));
    free(d);
    json_decref(l);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("derived");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, reads_skip_what_the_line_wrote);
    tcase_add_test(tc, changes_are_described);
    tcase_add_test(tc, validation_follows_the_card);
    tcase_add_test(tc, a_failed_run_validates_nothing);
    tcase_add_test(tc, measured_component_flagged_when_the_card_grows);
    tcase_add_test(tc, evidence_moves_with_the_card);
    tcase_add_test(tc, component_with_replaces_not_edits);
    tcase_add_test(tc, older_schema_loads_as_the_current_one);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
