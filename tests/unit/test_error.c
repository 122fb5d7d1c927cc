/* Unit tests for src/util/error: positions, the setters and the evalue text. */
#include <check.h>
#include <string.h>

#include "util/error.h"

#include "check_run.h"

START_TEST(test_position_setters)
{
    vs_error err;
    char out[128];
    vs_error_clear(&err);
    ck_assert_int_eq(err.code, 0);
    ck_assert(err.position == VS_ERROR_NO_POSITION);
    /* a position without a line: the evalue is the bare message */
    ck_assert_int_eq(vs_error_set_pos(&err, VS_EFORMAT, 42, "bad %s", "byte"), VS_EFORMAT);
    ck_assert(err.position == 42);
    ck_assert_int_eq(err.line, 0);
    ck_assert_str_eq(vs_error_evalue(&err, out, sizeof out), "bad byte");
    /* every other setter clears it */
    vs_error_set(&err, VS_EVALUE, "x");
    ck_assert(err.position == VS_ERROR_NO_POSITION);
    vs_error_set_pos(&err, VS_EFORMAT, 7, "x");
    vs_error_set_at(&err, VS_ESYNTAX, 2, 3, "y");
    ck_assert(err.position == VS_ERROR_NO_POSITION);
    vs_error_set_pos(&err, VS_EFORMAT, 7, "x");
    ck_assert_int_eq(vs_error_oom(&err), VS_ENOMEM);
    ck_assert(err.position == VS_ERROR_NO_POSITION);
    /* line, column and position together; the evalue shows line and column only */
    ck_assert_int_eq(vs_error_set_at_pos(&err, VS_ESYNTAX, 2, 3, 9, "z"), VS_ESYNTAX);
    ck_assert(err.line == 2 && err.column == 3 && err.position == 9);
    ck_assert_str_eq(vs_error_evalue(&err, out, sizeof out), "line 2, column 3: z");
    /* a position added to an error already set; none to no error */
    vs_error_set(&err, VS_EFORMAT, "later");
    vs_error_position(&err, 0);
    ck_assert(err.position == 0);
    vs_error_prefix(&err, "f: ");
    ck_assert(err.position == 0);
    ck_assert_str_eq(err.message, "f: later");
    vs_error_clear(&err);
    vs_error_position(&err, 5);
    ck_assert(err.position == VS_ERROR_NO_POSITION);
    vs_error_position(NULL, 5);
    ck_assert_int_eq(vs_error_set_pos(NULL, VS_EIO, 1, "none"), VS_EIO);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("error");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_position_setters);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
