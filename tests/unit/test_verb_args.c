/* The verbs' argument helpers: vs_line_take_keys finds each allowed key's pair
 * in one walk of the line, and refuses what vs_line_check_keys refuses with
 * the same error, at the same place. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "lang/parse.h"
#include "lang/verb.h"

#include "check_run.h"

static const char *const keys[] = {"status", "source", "phase", "class", NULL};

static vs_cell *parse_ok(const char *text)
{
    vs_cell *cell = NULL;
    vs_error err;
    ck_assert_msg(vs_parse_cell(&cell, text, strlen(text), &err) == 0, "%s: %s", text, err.message);
    return cell;
}

/* Each key's pair, by the value the line gives it; NULL for those it does
 * not give; the words (positional arguments) are no key's. */
START_TEST(each_allowed_key_gets_its_pair)
{
    vs_cell *cell = parse_ok("reserve act 2GiB class=activations source=\"by hand\" phase=train");
    const vs_arg *found[4] = {(const vs_arg *)1, NULL, NULL, NULL};
    vs_error err;
    ck_assert_int_eq(vs_line_take_keys(&cell->lines[0], keys, found, &err), 0);
    ck_assert_ptr_null(found[0]); /* status: not given (and set to NULL) */
    ck_assert_str_eq(found[1]->value, "by hand");
    ck_assert_int_eq(found[1]->quoted, 1);
    ck_assert_str_eq(found[2]->value, "train");
    ck_assert_str_eq(found[3]->value, "activations");
    ck_assert_int_eq(found[3]->column, 18); /* "reserve act 2GiB " is 17 characters */
    /* what vs_line_pair finds for each */
    ck_assert_ptr_eq(found[1], vs_line_pair(&cell->lines[0], "source"));
    ck_assert_ptr_eq(found[2], vs_line_pair(&cell->lines[0], "phase"));
    ck_assert_ptr_eq(found[3], vs_line_pair(&cell->lines[0], "class"));
    vs_cell_free(cell);
    cell = parse_ok("reserve x 1GiB");
    ck_assert_int_eq(vs_line_take_keys(&cell->lines[0], keys, found, &err), 0);
    ck_assert(!found[0] && !found[1] && !found[2] && !found[3]);
    vs_cell_free(cell);
}
END_TEST

/* An unknown key and a key given twice: the error of vs_line_check_keys,
 * code, message and place, for the first offending pair. */
START_TEST(refusals_are_check_keys_refusals)
{
    static const struct {
        const char *line;
        const char *says; /* part of the message */
        int column;
    } cases[] = {
        {"reserve a 1GiB sauce=x status=estimated", "unknown key 'sauce='", 16},
        {"reserve a 1GiB status=estimated phase=p status=measured", "given twice", 41},
        {"reserve a 1GiB class=other bogus=1 class=other", "unknown key 'bogus='", 28},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        vs_cell *cell = parse_ok(cases[i].line);
        const vs_arg *found[4];
        vs_error a, b;
        int ra = vs_line_take_keys(&cell->lines[0], keys, found, &a);
        int rb = vs_line_check_keys(&cell->lines[0], keys, &b);
        ck_assert_int_eq(ra, VS_EVALUE);
        ck_assert_int_eq(rb, VS_EVALUE);
        ck_assert_str_eq(a.message, b.message);
        ck_assert_msg(strstr(a.message, cases[i].says), "%s: %s", cases[i].line, a.message);
        ck_assert_int_eq(a.line, 1);
        ck_assert_int_eq(a.column, cases[i].column);
        ck_assert_int_eq(a.column, b.column);
        vs_cell_free(cell);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("verb_args");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, each_allowed_key_gets_its_pair);
    tcase_add_test(tc, refusals_are_check_keys_refusals);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
