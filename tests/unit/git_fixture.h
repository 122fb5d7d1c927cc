/* git_fixture.h — the store tests' fixture: setup() makes a fresh folder,
 * tmpdir, under $TMPDIR (test_tmp.h) from the pattern VS_GIT_FIXTURE_NAME
 * (ending in XXXXXX), and starts libgit2; teardown() removes the folder and
 * shuts libgit2 down. Included once, by a test's .c file. */
#ifndef VS_TESTS_GIT_FIXTURE_H
#define VS_TESTS_GIT_FIXTURE_H

#include <check.h>
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>

#include "test_tmp.h"

#ifndef VS_GIT_FIXTURE_NAME
#error "define VS_GIT_FIXTURE_NAME before including git_fixture.h"
#endif

static char tmpdir[256];

static void setup(void)
{
    vs_test_tmp(tmpdir, sizeof tmpdir, VS_GIT_FIXTURE_NAME);
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
    git_libgit2_init();
}

static void teardown(void)
{
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    git_libgit2_shutdown();
}

#endif
