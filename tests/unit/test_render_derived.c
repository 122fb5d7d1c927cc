/* How an estimate that followed the card is shown (src/render/derived.c).
 * Expected strings are worked by hand: 4,294,967,296 B = 4.00 GiB,
 * 68,719,476,736 B = 64.00 GiB. */
#include <check.h>
#include <jansson.h>
#include <string.h>

#include "render/bundle.h"
#include "render/derived.h"

#include "check_run.h"

#define ARROW "\xe2\x86\x92"

START_TEST(moved_unchanged_unknown)
{
    vs_buf text = VS_BUF_INIT;
    json_t *a = json_integer(4294967296LL), *b = json_integer(68719476736LL);
    json_t *a2 = json_integer(4294967296LL), *nul = json_null();
    vs_render_derived_line(&text, "kv_cache", "length 4,096 " ARROW " 65,536", a, b);
    vs_render_derived_line(&text, "kv_cache", "format bf16 " ARROW " int4", a, a2);
    /* an amount absent before is never "unchanged", even against null */
    vs_render_derived_line(&text, "x", "length 1 " ARROW " 2", NULL, nul);
    ck_assert(!vs_buf_failed(&text));
    ck_assert_str_eq(vs_buf_str(&text),
                     "kv_cache re-estimated: length 4,096 " ARROW " 65,536, 4.00 GiB " ARROW
                     " 64.00 GiB\n"
                     "kv_cache re-estimated: format bf16 " ARROW " int4, 4.00 GiB, unchanged\n"
                     "x re-estimated: length 1 " ARROW " 2, unknown " ARROW " unknown\n");
    vs_buf_free(&text);
    json_decref(a);
    json_decref(a2);
    json_decref(b);
    json_decref(nul);
}
END_TEST

START_TEST(failed_line)
{
    vs_buf text = VS_BUF_INIT;
    json_t *a = json_integer(4294967296LL);
    vs_render_derived_failed_line(&text, "kv_cache", "model a " ARROW " b", a, "needs layers=");
    ck_assert_str_eq(vs_buf_str(&text), "kv_cache could not be re-estimated: model a " ARROW
                                        " b, 4.00 GiB " ARROW " unknown (needs layers=)\n");
    vs_buf_free(&text);
    json_decref(a);
}
END_TEST

START_TEST(html_rows)
{
    vs_buf html = VS_BUF_INIT;
    json_t *rows = json_pack("[{s:s, s:s, s:I}, {s:s, s:s, s:n}]", "name", "kv<cache>", "changes",
                             "length 1 & 2", "to_bytes", (json_int_t)5, "name", "acts", "changes",
                             "model", "to_bytes");
    vs_render_derived_html(&html, rows);
    ck_assert_str_eq(vs_buf_str(&html), "<p>kv&lt;cache&gt; re-estimated: length 1 &amp; 2</p>\n"
                                        "<p>acts could not be re-estimated: model</p>\n");
    vs_buf_free(&html);
    json_decref(rows);
}
END_TEST

/* The whole result: one component moved, one that could not be re-estimated;
 * the text is the two lines, the payload one row each with what each row
 * says, the failed one unknown with the estimator's message. */
START_TEST(rederived_result)
{
    vs_buf text = VS_BUF_INIT;
    json_t *rows = json_array(), *a = json_integer(4294967296LL), *b = json_integer(68719476736LL);
    json_t *st = json_string("estimated"), *id = json_string("seed-7b"), *all, *p, *r;
    vs_bundle *bundle;
    vs_render_derived_add(&text, rows, "kv_cache", "kv", "length 4,096 " ARROW " 65,536", a, b, st);
    vs_render_derived_add_failed(&text, rows, "acts", "activations", "microbatch 1 " ARROW " 0", a,
                                 "microbatch must be at least 1");
    bundle = vs_render_rederived(&text, id, rows);
    ck_assert_ptr_nonnull(bundle);
    all = vs_bundle_to_json(bundle);
    ck_assert_str_eq(json_string_value(json_object_get(all, "text/plain")),
                     "kv_cache re-estimated: length 4,096 " ARROW " 65,536, 4.00 GiB " ARROW
                     " 64.00 GiB\n"
                     "acts could not be re-estimated: microbatch 1 " ARROW " 0, 4.00 GiB " ARROW
                     " unknown (microbatch must be at least 1)\n");
    ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(all, "text/html")),
                                 "<p>acts could not be re-estimated: "));
    p = json_object_get(all, "application/vnd.vramsheet.v1+json");
    ck_assert_str_eq(json_string_value(json_object_get(p, "kind")), "rederived");
    ck_assert_str_eq(json_string_value(json_object_get(p, "sheet")), "seed-7b");
    ck_assert_int_eq(json_array_size(json_object_get(p, "rows")), 2);
    r = json_array_get(json_object_get(p, "rows"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(r, "estimator")), "kv");
    ck_assert_int_eq(json_integer_value(json_object_get(r, "from_bytes")), 4294967296LL);
    ck_assert_int_eq(json_integer_value(json_object_get(r, "to_bytes")), 68719476736LL);
    ck_assert_str_eq(json_string_value(json_object_get(r, "status")), "estimated");
    r = json_array_get(json_object_get(p, "rows"), 1);
    ck_assert(json_is_null(json_object_get(r, "to_bytes")));
    ck_assert_str_eq(json_string_value(json_object_get(r, "status")), "unknown");
    ck_assert_str_eq(json_string_value(json_object_get(r, "error")),
                     "microbatch must be at least 1");
    json_decref(all);
    vs_bundle_free(bundle);
    vs_buf_free(&text);
    json_decref(rows);
    json_decref(a);
    json_decref(b);
    json_decref(st);
    json_decref(id);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("render_derived");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, moved_unchanged_unknown);
    tcase_add_test(tc, failed_line);
    tcase_add_test(tc, html_rows);
    tcase_add_test(tc, rederived_result);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
