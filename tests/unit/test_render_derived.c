/* How an estimate that followed the card is shown (src/render/derived.c).
 * Expected strings are worked by hand: 4,294,967,296 B = 4.00 GiB,
 * 68,719,476,736 B = 64.00 GiB. */
#include <check.h>
#include <jansson.h>
#include <string.h>

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

int main(void)
{
    Suite *s = suite_create("render_derived");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, moved_unchanged_unknown);
    tcase_add_test(tc, failed_line);
    tcase_add_test(tc, html_rows);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
