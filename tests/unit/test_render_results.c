/* The sizing results rendered straight from a sheet, without the interpreter:
 * labelled amounts, the one-line and list forms, the components' payloads
 * (a total only when every part is known), quantised formats flagged, and an
 * envelope with an unknown part that says it is only the known part. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/card.h"
#include "render/component.h"
#include "render/core.h"
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

/* The tree a card line's payload reads as, built here with jansson the way
 * json_object_update and json_object_set_new place keys: kind, card,
 * placement, extra's keys (one named like those three takes its place),
 * notes, set (each in extra's place when extra has it; a string that is not
 * UTF-8 left out, as json_string refuses it). */
static json_t *card_payload_tree(const json_t *sheet, const char *const *notes, json_t *extra,
                                 const char *set)
{
    json_t *card = json_object_get(sheet, "card"), *pl = json_object_get(sheet, "placement");
    json_t *p = json_pack("{s:s, s:O, s:O}", "kind", "card", "card", card ? card : json_null(),
                          "placement", pl ? pl : json_null());
    size_t i;
    if (extra)
        json_object_update(p, extra);
    if (notes) {
        json_t *ns = json_array();
        for (i = 0; notes[i]; i++) {
            json_t *n = json_string(notes[i]);
            if (n)
                json_array_append_new(ns, n);
        }
        json_object_set_new(p, "notes", ns);
    }
    if (set) {
        json_t *js = json_string(set);
        if (js)
            json_object_set_new(p, "set", js);
    }
    return p;
}

/* A card line's payload, written straight into its bundle, is byte for byte
 * jansson's dump of that tree: with no extra, and with extra keys that
 * collide with every key the payload writes itself. */
START_TEST(card_line_payload_is_its_tree)
{
    static const char *const notes[] = {"n1", "bad \xff", "n3", NULL};
    json_t *s = seed_sheet();
    size_t k;
    for (k = 0; k < 4; k++) {
        json_t *extra = k == 0 ? NULL
                        : k == 1
                            ? json_pack("{s:{s:i}, s:s}", "config", "layers", 32, "weights", "w")
                        : k == 2 ? json_pack("{s:s, s:i, s:s, s:s, s:n}", "notes", "x", "set", 1,
                                             "kind", "other", "z", "last", "placement")
                                 : json_pack("{s:i}", "set", 7);
        const char *set = k == 3 ? "bad \xff" : "format";
        json_t *want = card_payload_tree(s, k == 1 ? NULL : notes, extra, set);
        char *dumped = json_dumps(want, JSON_COMPACT), *at;
        vs_bundle *b = vs_render_card_line(s, set, "format bf16", k == 1 ? NULL : notes, extra);
        ck_assert_ptr_nonnull(b);
        ck_assert_ptr_nonnull(dumped);
        at = strstr(b->json, ",\"" VS_MIME_JSON "\":");
        ck_assert_ptr_nonnull(at);
        at += strlen(",\"" VS_MIME_JSON "\":");
        ck_assert_uint_eq(strlen(at), strlen(dumped) + 1); /* the bundle's closing brace */
        ck_assert_msg(!strncmp(at, dumped, strlen(dumped)), "case %zu: %s\nwanted\n%s", k, at,
                      dumped);
        free(dumped);
        json_decref(want);
        vs_bundle_free(b);
    }
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
    {
        /* the payload, written as the rows go, is byte for byte jansson's
         * dump of the object packed here from the same facts, key by key */
        json_t *want = json_pack(
            "{s:s, s:[{s:s, s:I, s:I, s:I, s:I, s:b, s:n, s:n, s:n}, {s:s, s:I, s:I, s:I, s:I, "
            "s:b, s:s, s:n, s:n}], s:I, s:I, s:I, s:b, s:I}",
            "kind", "formats", "rows", "format", "bf16", "bits", (json_int_t)16, "weights_bytes",
            (json_int_t)14000000000LL, "weights_gpu_bytes", (json_int_t)14000000000LL,
            "envelope_bytes", (json_int_t)rows[0].envelope_bytes, "quantized", 0, "note",
            "bits_per_weight", "basis", "format", "int4", "bits", (json_int_t)4, "weights_bytes",
            (json_int_t)3500000000LL, "weights_gpu_bytes", (json_int_t)3500000000LL,
            "envelope_bytes", (json_int_t)rows[1].envelope_bytes, "quantized", 1, "note",
            vs_envelope_format_quant_note(4), "bits_per_weight", "basis", "params",
            (json_int_t)7000000000LL, "reserve_bytes", (json_int_t)env.reserve_bytes, "gpus",
            (json_int_t)env.gpus, "conservative", env.conservative, "unknown_count",
            (json_int_t)env.n_unknown);
        char *dumped = json_dumps(want, JSON_COMPACT), *at;
        ck_assert_ptr_nonnull(dumped);
        at = strstr(b->json, ",\"" VS_MIME_JSON "\":");
        ck_assert_ptr_nonnull(at);
        at += strlen(",\"" VS_MIME_JSON "\":");
        ck_assert_uint_eq(strlen(at), strlen(dumped) + 1); /* the bundle's closing brace */
        ck_assert_msg(!strncmp(at, dumped, strlen(dumped)), "%s\nwanted\n%s", at, dumped);
        free(dumped);
        json_decref(want);
    }
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

/* A conversion's bundle, written in one pass, is byte for byte jansson's
 * compact dump of the object written out here: 15.5 GB is 15,500,000,000 B,
 * and 15,500,000,000 / 2^30 = 14.4354999065399169921875 exactly (2^30
 * divides 10^30, so the expansion ends); 24 GB is 24,000,000,000 B, 22.35 GiB
 * to two decimals (22.3517...). The input is the person's text: escaped for
 * JSON in the text and the payload, a byte that is not UTF-8 as U+FFFD. */
START_TEST(convert_bundle_is_its_dump)
{
    static const struct {
        const char *input, *input_fixed;
        uint64_t bytes;
        vs_unit unit;
        const char *text, *html, *unit_name, *value, *rounded;
    } cases[] = {
        {"15.5GB", "15.5GB", 15500000000ULL, VS_UNIT_GIB,
         " = 15,500,000,000 B = 15.50 GB = 14.44 GiB\n15,500,000,000 B / 1,073,741,824 B per "
         "GiB = "
         "14.4354999065399169921875 GiB exactly (14.44 GiB rounded)\n",
         "<table class='vramsheet'>\n<tbody>\n<tr><th style='text-align:left'>bytes</th><td "
         "style='text-align:right'>15,500,000,000 B</td></tr>\n<tr><th "
         "style='text-align:left'>GiB (exact)</th><td style='text-align:right'>"
         "14.4354999065399169921875 GiB</td></tr>\n<tr><th style='text-align:left'>GiB (2 "
         "decimals)</th><td style='text-align:right'>14.44 GiB</td></tr>\n</tbody>\n</table>\n"
         "<p>15,500,000,000 B = 15.50 GB = 14.44 GiB</p>\n",
         "GiB", "14.4354999065399169921875", "14.44"},
        {"a\"<b>\\\xff", "a\"<b>\\\xEF\xBF\xBD", 24000000000ULL, VS_UNIT_B,
         " = 24,000,000,000 B = 24.00 GB = 22.35 GiB\n24,000,000,000 B exactly\n",
         "<table class='vramsheet'>\n<tbody>\n<tr><th style='text-align:left'>bytes</th><td "
         "style='text-align:right'>24,000,000,000 B</td></tr>\n<tr><th "
         "style='text-align:left'>B (exact)</th><td style='text-align:right'>24000000000 "
         "B</td></tr>\n<tr><th style='text-align:left'>B (2 decimals)</th><td "
         "style='text-align:right'>24000000000.00 B</td></tr>\n</tbody>\n</table>\n"
         "<p>24,000,000,000 B = 24.00 GB = 22.35 GiB</p>\n",
         "B", "24000000000", "24000000000.00"},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        vs_bundle *vb = vs_render_convert(cases[i].input, cases[i].bytes, cases[i].unit);
        char text[512], *dumped;
        json_t *want;
        snprintf(text, sizeof text, "%s%s", cases[i].input_fixed, cases[i].text);
        want =
            json_pack("{s:s, s:s, s:{s:s, s:I, s:s, s:s, s:s, s:s}}", "text/plain", text,
                      "text/html", cases[i].html, VS_MIME_JSON, "kind", "convert", "bytes",
                      (json_int_t)cases[i].bytes, "unit", cases[i].unit_name, "value",
                      cases[i].value, "rounded", cases[i].rounded, "input", cases[i].input_fixed);
        ck_assert_ptr_nonnull(want);
        dumped = json_dumps(want, JSON_COMPACT);
        ck_assert_ptr_nonnull(vb);
        ck_assert_msg(!strcmp(vb->json, dumped), "case %zu:\n%s\nwanted\n%s", i, vb->json, dumped);
        ck_assert_uint_eq(vb->len, strlen(dumped));
        free(dumped);
        json_decref(want);
        vs_bundle_free(vb);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("render_results");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, amount_labelled);
    tcase_add_test(tc, convert_bundle_is_its_dump);
    tcase_add_test(tc, lines_and_card_line);
    tcase_add_test(tc, card_line_payload_is_its_tree);
    tcase_add_test(tc, components_total_only_when_known);
    tcase_add_test(tc, formats_flag_quantised);
    tcase_add_test(tc, envelope_known_part);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
