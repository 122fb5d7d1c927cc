/* The live gauge (src/render/gauge.c): a bar per GPU of used memory against
 * the device total, the envelope and the run's peak as marks, the
 * percentage, the peaks and the phase; the text form for text/plain. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/gauge.h"

#include "check_run.h"
#include "results.h"

/* The number in `style='...NAME:V%` of the first element of class cls
 * after from; -1 when absent. */
static double style_pct(const char *html, const char *cls, const char *name, const char **from)
{
    char key[64];
    const char *p, *s, *end;
    snprintf(key, sizeof key, "class='%s'", cls);
    p = strstr(*from, key);
    if (!p)
        return -1;
    end = strchr(p, '>');
    snprintf(key, sizeof key, "%s:", name);
    s = strstr(p, key);
    *from = end;
    (void)html;
    if (!s || s > end)
        return -1;
    return atof(s + strlen(key));
}

static size_t count(const char *s, const char *needle)
{
    size_t n = 0;
    while ((s = strstr(s, needle)) != NULL)
        n++, s += strlen(needle);
    return n;
}

START_TEST(bars_are_proportional)
{
    /* GPU 0: 20 of 80 GiB used (25.0%), peak 60 GiB (75.0%); GPU 1: 8 of
     * 16 GB (50.0%), peak 12 GB (75.0%). Envelope 40 GiB: 50.0% of GPU 0,
     * above GPU 1's total (drawn at 100%). */
    vs_gauge_gpu gpus[2] = {
        {"NVIDIA H100 80GB HBM3", 20ULL << 30, 1, 80ULL << 30, 30ULL << 30, 60ULL << 30, 0, 0},
        {"Tesla T4", 8000000000ULL, 1, 16000000000ULL, 8000000000ULL, 12000000000ULL, 0, 0}};
    vs_gauge g = {
        "r2", "running", "generate", 1500, 1, 40ULL << 30, "the driver lists no processes",
        gpus, 2};
    vs_bundle *b = vs_render_gauge(&g);
    json_t *j = vs_test_bundle_json(b), *p;
    const char *html, *text, *at;
    ck_assert_ptr_nonnull(j);
    html = json_string_value(json_object_get(j, "text/html"));
    text = json_string_value(json_object_get(j, "text/plain"));
    ck_assert_ptr_nonnull(html);
    ck_assert_uint_eq(count(html, "class='vs-gauge-bar'"), 2);
    ck_assert_uint_eq(count(html, "class='vs-gauge-used'"), 2);
    ck_assert_uint_eq(count(html, "class='vs-gauge-peak'"), 2);
    ck_assert_uint_eq(count(html, "class='vs-gauge-envelope'"), 2);
    at = html;
    ck_assert_double_eq_tol(style_pct(html, "vs-gauge-used", "width", &at), 25.0, 0.05);
    ck_assert_double_eq_tol(style_pct(html, "vs-gauge-peak", "left", &at), 75.0, 0.05);
    ck_assert_double_eq_tol(style_pct(html, "vs-gauge-envelope", "left", &at), 50.0, 0.05);
    ck_assert_double_eq_tol(style_pct(html, "vs-gauge-used", "width", &at), 50.0, 0.05);
    ck_assert_double_eq_tol(style_pct(html, "vs-gauge-peak", "left", &at), 75.0, 0.05);
    ck_assert_double_eq_tol(style_pct(html, "vs-gauge-envelope", "left", &at), 100.0, 0.05);
    ck_assert_ptr_nonnull(strstr(html, "above the device total"));
    /* the percentage, the peaks, the phase, and why the process is unknown */
    ck_assert_ptr_nonnull(strstr(html, ">25.0%</b>"));
    ck_assert_ptr_nonnull(strstr(html, "20.00 GiB of 80.00 GiB"));
    ck_assert_ptr_nonnull(strstr(html, "peak this phase 30.00 GiB, peak this run 60.00 GiB"));
    ck_assert_ptr_nonnull(strstr(html, "phase <code>generate</code>, 1.5 s"));
    ck_assert_ptr_nonnull(strstr(html, "unavailable (the driver lists no processes)"));
    ck_assert_ptr_nonnull(strstr(html, "Tesla T4"));
    /* the text form: the same numbers as a table */
    ck_assert_ptr_nonnull(strstr(text, "measuring r2: phase generate, 1.5 s"));
    ck_assert_ptr_nonnull(strstr(text, "25.0%"));
    ck_assert_ptr_nonnull(strstr(text, "unavailable: the driver lists no processes"));
    ck_assert_ptr_nonnull(strstr(text, "envelope per GPU (the sheet's known part): 40.00 GiB"));
    /* the payload */
    p = json_object_get(j, VS_MIME_JSON);
    ck_assert_str_eq(json_string_value(json_object_get(p, "kind")), "gauge");
    ck_assert_str_eq(json_string_value(json_object_get(p, "state")), "running");
    ck_assert_int_eq(json_integer_value(json_object_get(p, "envelope_bytes")), 40LL << 30);
    ck_assert_int_eq(json_array_size(json_object_get(p, "gpus")), 2);
    ck_assert(json_is_null(
        json_object_get(json_array_get(json_object_get(p, "gpus"), 0), "process_bytes")));
    json_decref(j);
    vs_bundle_free(b);
}
END_TEST

START_TEST(no_total_no_envelope)
{
    vs_gauge_gpu gpus[1] = {{"x <y>", 1ULL << 30, 0, 0, 1ULL << 30, 1ULL << 30, 1, 1ULL << 29}};
    vs_gauge g = {"r1", "finished", "load", 200, 0, 0, NULL, gpus, 1};
    vs_bundle *b = vs_render_gauge(&g);
    json_t *j = vs_test_bundle_json(b);
    const char *html = json_string_value(json_object_get(j, "text/html"));
    ck_assert_uint_eq(count(html, "class='vs-gauge-bar'"), 0); /* nothing to draw against */
    ck_assert_ptr_nonnull(strstr(html, "device total unknown"));
    ck_assert_ptr_nonnull(strstr(html, "x &lt;y&gt;"));
    ck_assert_ptr_nonnull(strstr(html, "process: 0.50 GiB"));
    ck_assert_ptr_nonnull(strstr(html, "<b>finished r1</b>"));
    json_decref(j);
    vs_bundle_free(b);
}
END_TEST

START_TEST(command_head_is_the_first_line)
{
    vs_buf b = VS_BUF_INIT;
    vs_render_command_head(&b, "\npython3 serve.py --model x\necho done\n\nexit 0\n", 0);
    ck_assert_str_eq(vs_buf_str(&b), "python3 serve.py --model x (+2 more lines)");
    vs_buf_reset(&b);
    vs_render_command_head(&b, "a < b", 1);
    ck_assert_str_eq(vs_buf_str(&b), "a &lt; b");
    vs_buf_reset(&b);
    vs_render_command_head(&b, "one\nline two", 1);
    ck_assert_str_eq(vs_buf_str(&b), "one (+1 more line)");
    vs_buf_free(&b);
}
END_TEST

START_TEST(why_process_memory_is_unavailable)
{
    char why[160];
    ck_assert_ptr_null(vs_render_gauge_why(why, sizeof why, 1, 1, 0));
    ck_assert_str_eq(vs_render_gauge_why(why, sizeof why, 0, 0, 0),
                     "the driver lists no processes");
    ck_assert_str_eq(vs_render_gauge_why(why, sizeof why, 1, 0, 0),
                     "the driver lists no process of the command's yet");
    ck_assert_str_eq(vs_render_gauge_why(why, sizeof why, 1, 0, 3),
                     "the driver lists 3 process(es), none of the command's (another PID "
                     "namespace?)");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gauge");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, bars_are_proportional);
    tcase_add_test(tc, no_total_no_envelope);
    tcase_add_test(tc, command_head_is_the_first_line);
    tcase_add_test(tc, why_process_memory_is_unavailable);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
