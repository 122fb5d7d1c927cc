/* check_run.h — how every unit test here runs its suite: Check forks each
 * case (a crash fails one test, not the run), prints one line per failure,
 * and the process exits non-zero when any failed. */
#ifndef VS_TESTS_CHECK_RUN_H
#define VS_TESTS_CHECK_RUN_H

#include <check.h>
#include <stdlib.h>

static inline int vs_check_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    int failed;
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
