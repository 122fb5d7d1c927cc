/* The sizing results rendered straight from a sheet, without the interpreter:
 * labelled amounts, the one-line and list forms, the components' payloads
 * (a total only when every part is known), quantised formats flagged, and an
 * envelope with an unknown part that says it is only the known part. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "render/card.h"
#include "render/component.h"
#include "render/envelope.h"
#include "render/formats.h"
#include "render/lines.h"
#include "render/result.h"
#include "sheet/envelope.h"
#include "sheet/sheet.h"

#include "check_run.h"
#include "results.h"

static const char *plain(const json_t *b)
{
    return json_string_value(json_object_get(b, "text/plain"));
}

static json_t *payload(const json_t *b)
{
    return json_object_get(b, VS_MIME_JSON);
}

/* A sheet of 7,000,000,000 params in bf16 with a known and an unknown component. */
static json_t *seed_sheet(void)
{
    json_t *s = vs_sheet_new("seed");
    vs_error err;
    ck_assert_ptr_nonnull(s);
    json_object_set_new(vs_sheet_card(s), "params", json_integer(7000000000LL));
    json_object_set_new(vs_sheet_card(s), "format", json_string("bf16"));
    ck_assert_int_eq(vs_sheet_set_component(s, "kv_cache", 1, 6442450944ULL, "estimated", "kv",
                                            "decode", "kv_cache", &err),
                     0);
    ck_assert_int_eq(
        vs_sheet_set_component(s, "workspace", 0, 0, "unknown", NULL, NULL, NULL, &err), 0);
    return s;
}

START_TEST(amount_labelled)
{
    char b[VS_RENDER_AMT], gb[VS_RENDER_AMT], gib[VS_RENDER_AMT];
    vs_render_amount(14000000000ULL, b, gb, gib);
    ck_assert_str_eq(b, "14,000,000,000 B");
    ck_assert_str_eq(gb, "14.00 GB");
    ck_assert_str_eq(gib, "13.04 GiB");
}
END_TEST

START_TEST(lines_and_card_line)
{
    static const char *const lines[] = {"a < b", NULL};
    static const char *const notes[] = {"n1", "n2", NULL};
    json_t *s = seed_sheet(), *j;
    vs_bundle *b = vs_render_lines("head", lines, 2, json_pack("{s:s}", "kind", "stages"));
    j = vs_test_bundle_json(b);
    ck_assert_str_eq(plain(j), "head\n  - a < b\n  - \n");
    ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(j, "text/html")), "a &lt; b"));
    ck_assert_str_eq(json_string_value(json_object_get(payload(j), "kind")), "stages");
    json_decref(j);
    vs_bundle_free(b);

    b = vs_render_card_line(s, "format", "format bf16", notes, NULL);
    j = vs_test_bundle_json(b);
    ck_assert_str_eq(plain(j), "format bf16; n1; n2\n");
    ck_assert_str_eq(json_string_value(json_object_get(payload(j), "kind")), "card");
    ck_assert_str_eq(json_string_value(json_object_get(payload(j), "set")), "format");
    ck_assert_uint_eq(json_array_size(json_object_get(payload(j), "notes")), 2);
    json_decref(j);
    vs_bundle_free(b);
    json_decref(s);
}
END_TEST

START_TEST(components_total_only_when_known)
{
    static const char *const one[] = {"kv_cache"}, *const both[] = {"kv_cache", "workspace"};
    json_t *s = seed_sheet(), *j;
    vs_bundle *b = vs_render_components(s, "kv", one, 1, "kv = 6 GiB", NULL, NULL, NULL);
    j = vs_test_bundle_json(b);
    ck_assert_str_eq(json_string_value(json_object_get(payload(j), "kind")), "component");
    ck_assert_int_eq(json_integer_value(json_object_get(payload(j), "bytes")), 6442450944LL);
    ck_assert_str_eq(json_string_value(json_object_get(payload(j), "formula")), "kv = 6 GiB");
    json_decref(j);
    vs_bundle_free(b);

    b = vs_render_components(s, "reserve", both, 2, NULL, NULL, NULL, NULL);
    j = vs_test_bundle_json(b);
    ck_assert_str_eq(json_string_value(json_object_get(payload(j), "kind")), "components");
    ck_assert_uint_eq(json_array_size(json_object_get(payload(j), "components")), 2);
    ck_assert(json_is_null(json_object_get(payload(j), "total_bytes")));
    ck_assert_ptr_nonnull(strstr(plain(j), "unknown"));
    json_decref(j);
    vs_bundle_free(b);
    json_decref(s);
}
END_TEST

START_TEST(formats_flag_quantised)
{
    vs_format_row rows[] = {{"bf16", 16, NULL, NULL, 14000000000ULL, 14000000000ULL, 0},
                            {"int4", 4, NULL, NULL, 3500000000ULL, 3500000000ULL, 0}};
    json_t *s = seed_sheet(), *j, *jr;
    vs_bundle *b;
    vs_envelope env;
    vs_component_views views;
    vs_error err;
    ck_assert_int_eq(vs_component_views_read(&views, s), 0);
    ck_assert_int_eq(vs_envelope_compute(&env, s, &views, &err), 0);
    rows[0].envelope_bytes = rows[0].weights_gpu_bytes + env.reserve_bytes;
    rows[1].envelope_bytes = rows[1].weights_gpu_bytes + env.reserve_bytes;
    b = vs_render_formats(s, &env, rows, 2);
    j = vs_test_bundle_json(b);
    jr = json_object_get(payload(j), "rows");
    ck_assert(json_is_false(json_object_get(json_array_get(jr, 0), "quantized")));
    ck_assert(json_is_true(json_object_get(json_array_get(jr, 1), "quantized")));
    ck_assert_ptr_nonnull(strstr(plain(j), "* not a guaranteed peak"));
    ck_assert_ptr_nonnull(strstr(plain(j), "some components are unknown"));
    json_decref(j);
    vs_bundle_free(b);
    vs_component_views_free(&views);
    json_decref(s);
}
END_TEST

START_TEST(envelope_known_part)
{
    json_t *s = seed_sheet(), *j;
    vs_envelope env;
    vs_component_views views;
    vs_error err;
    vs_bundle *b;
    ck_assert_int_eq(vs_component_views_read(&views, s), 0);
    ck_assert_int_eq(vs_envelope_compute(&env, s, &views, &err), 0);
    b = vs_render_envelope(s, &env, &views);
    j = vs_test_bundle_json(b);
    ck_assert_ptr_nonnull(strstr(plain(j), "(known part only)"));
    ck_assert_ptr_nonnull(strstr(plain(j), "workspace is unknown"));
    ck_assert_ptr_nonnull(json_string_value(json_object_get(j, "image/svg+xml")));
    ck_assert(json_is_array(json_object_get(payload(j), "capacities")));
    json_decref(j);
    vs_bundle_free(b);
    vs_component_views_free(&views);
    json_decref(s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("render_results");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, amount_labelled);
    tcase_add_test(tc, lines_and_card_line);
    tcase_add_test(tc, components_total_only_when_known);
    tcase_add_test(tc, formats_flag_quantised);
    tcase_add_test(tc, envelope_known_part);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
