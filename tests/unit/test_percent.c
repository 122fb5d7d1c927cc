/* lang/percent: the percent format's cells, read and written (Jupytext's own
 * script of a sample notebook is compared in tests/lang/test_convert.py). */
#include <check.h>
#include <jansson.h>
#include <string.h>

#include "lang/percent.h"
#include "util/buf.h"

#include "check_run.h"

static vs_percent_cells read_text(const char *text)
{
    vs_percent_cells c;
    vs_error err;
    ck_assert_int_eq(vs_percent_read(&c, text, strlen(text), &err), 0);
    return c;
}

START_TEST(test_markers_and_kinds)
{
    vs_percent_cells c = read_text("\xEF\xBB\xBF"
                                   "model m\n\n"
                                   "#%% [md]\n# text\n\n"
                                   "# %% A title [markdown] key=\"v\"\n# more\n\n"
                                   "# %%measure is not a marker\n"
                                   "# %% [raw]\nraw line\n");
    ck_assert_uint_eq(c.n, 4);
    ck_assert_int_eq(c.cells[0].kind, VS_PERCENT_CODE);
    ck_assert_str_eq(c.cells[0].source, "model m"); /* before the first marker */
    ck_assert_int_eq(c.cells[0].line, 1);
    ck_assert_int_eq(c.cells[1].kind, VS_PERCENT_MARKDOWN);
    ck_assert_str_eq(c.cells[1].source, "text");
    ck_assert_int_eq(c.cells[1].line, 4);
    ck_assert_int_eq(c.cells[2].kind, VS_PERCENT_MARKDOWN);
    /* "# %%measure" is a comment line of the text cell, uncommented */
    ck_assert_str_eq(c.cells[2].source, "more\n\n%%measure is not a marker");
    ck_assert_int_eq(c.cells[3].kind, VS_PERCENT_RAW);
    ck_assert_str_eq(c.cells[3].source, "raw line");
    vs_percent_cells_free(&c);
    /* blank lines before the first marker are no cell; the coding line and a
     * Jupytext header are read past */
    c = read_text("# -*- coding: utf-8 -*-\n# ---\n# jupyter:\n#   a: b\n# ---\n\n\n# %%\nhelp\n");
    ck_assert_uint_eq(c.n, 1);
    ck_assert_str_eq(c.cells[0].source, "help");
    ck_assert_int_eq(c.cells[0].line, 9);
    vs_percent_cells_free(&c);
}
END_TEST

/* written and read back: the same sources, byte for byte, whatever blank lines
 * they begin or end with */
START_TEST(test_round_trip_sources)
{
    static const struct {
        vs_percent_kind kind;
        const char *src;
    } want[] = {{VS_PERCENT_CODE, "a\n"},       {VS_PERCENT_CODE, ""},
                {VS_PERCENT_CODE, "\n\nx\n\n"}, {VS_PERCENT_MARKDOWN, "a\n\nb\n"},
                {VS_PERCENT_MARKDOWN, ""},      {VS_PERCENT_RAW, "r"},
                {VS_PERCENT_CODE, "last\n\n"}};
    vs_percent_cell cells[7];
    vs_percent_cells in = {cells, 7}, back;
    vs_buf text = VS_BUF_INIT;
    vs_error err;
    size_t i;
    for (i = 0; i < 7; i++) {
        cells[i].kind = want[i].kind;
        cells[i].source = (char *)want[i].src;
        cells[i].len = strlen(want[i].src);
        cells[i].line = 0;
    }
    ck_assert_int_eq(vs_percent_write(&in, &text, &err), 0);
    ck_assert_ptr_nonnull(strstr(vs_buf_str(&text), "# %% [markdown]\n# a\n#\n# b\n#\n\n"));
    ck_assert_int_eq(vs_percent_read(&back, vs_buf_str(&text), text.len, &err), 0);
    ck_assert_uint_eq(back.n, 7);
    for (i = 0; i < 7; i++) {
        ck_assert_int_eq(back.cells[i].kind, want[i].kind);
        ck_assert_str_eq(back.cells[i].source, want[i].src);
    }
    vs_percent_cells_free(&back);
    vs_buf_free(&text);
}
END_TEST

START_TEST(test_refusals)
{
    vs_percent_cell one = {VS_PERCENT_MARKDOWN, (char *)"fine\n%% a line of text", 21, 0};
    vs_percent_cells c = {&one, 1};
    vs_buf text = VS_BUF_INIT;
    vs_error err;
    json_t *nb = NULL;
    /* a text line "%%" would be written "# %%", a marker */
    ck_assert_int_eq(vs_percent_write(&c, &text, &err), VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "cell 1, line 2"));
    /* a notebook holds text only */
    one.kind = VS_PERCENT_CODE;
    one.source = (char *)"ok\n\xff";
    one.len = 4;
    one.line = 3;
    ck_assert_int_eq(vs_percent_to_notebook(&nb, &c, NULL, &err), VS_EVALUE);
    ck_assert_int_eq(err.line, 3);
    ck_assert_ptr_null(nb);
    /* nbformat's lines keep their newline, the last may have none */
    one.source = (char *)"a\nb";
    one.len = 3;
    ck_assert_int_eq(vs_percent_to_notebook(&nb, &c, NULL, &err), 0);
    ck_assert_str_eq(
        json_string_value(json_array_get(
            json_object_get(json_array_get(json_object_get(nb, "cells"), 0), "source"), 0)),
        "a\n");
    ck_assert_int_eq(json_integer_value(json_object_get(nb, "nbformat_minor")), 5);
    json_decref(nb);
    nb = json_loads("{\"nbformat\": 4, \"cells\": [{\"cell_type\": \"code\", \"source\": \"x\"}, "
                    "{\"cell_type\": \"heading\", \"source\": \"y\"}]}",
                    0, NULL);
    ck_assert_int_eq(vs_percent_from_notebook(&c, nb, &err), VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "notebook cell 2: cell_type 'heading'"));
    ck_assert_uint_eq(c.n, 0);
    json_decref(nb);
    vs_buf_free(&text);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("percent");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_markers_and_kinds);
    tcase_add_test(tc, test_round_trip_sources);
    tcase_add_test(tc, test_refusals);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
