/* Helpers shared by the measurement unit tests: a temporary folder, a fake
 * NVML script, and the environment that points vramsheet at the fake library.
 * VS_FAKE_NVML and VS_FAKE_NVML_MIN are defined by tests/measure/build.cmake. */
#ifndef VS_TEST_MEASURE_TESTLIB_H
#define VS_TEST_MEASURE_TESTLIB_H

#include "../unit/test_tmp.h"
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char mt_dir[256];
static pid_t mt_owner; /* the process that made mt_dir removes it */

static void mt_cleanup(void)
{
    if (mt_dir[0] && getpid() == mt_owner)
        vs_test_rmtree(mt_dir);
}

/* A fresh temporary folder (per forked test), removed when the process that
 * made it exits (Check ends each forked test with exit). */
__attribute__((unused)) static const char *mt_tmpdir(void)
{
    static int registered;
    vs_test_tmp(mt_dir, sizeof mt_dir, "vs-measure-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(mt_dir));
    mt_owner = getpid();
    if (!registered && atexit(mt_cleanup) == 0)
        registered = 1;
    return mt_dir;
}

__attribute__((unused)) static void mt_path(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", mt_dir, name);
}

static void mt_write(const char *name, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), unused));
static void mt_write(const char *name, const char *fmt, ...)
{
    char path[512];
    FILE *f;
    va_list ap;
    mt_path(path, sizeof path, name);
    f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fclose(f);
}

/* Points NVML at the fake library playing script (text), with a state file
 * "state" in the temporary folder. */
__attribute__((unused)) static void mt_fake(const char *lib, const char *script)
{
    char path[512];
    if (!mt_dir[0])
        mt_tmpdir();
    mt_write("script", "%s", script);
    mt_path(path, sizeof path, "script");
    setenv("FAKE_NVML_SCRIPT", path, 1);
    mt_path(path, sizeof path, "state");
    setenv("FAKE_NVML_STATE", path, 1);
    setenv("VRAMSHEET_NVML_LIBRARY", lib, 1);
    unsetenv("VRAMSHEET_CUDA_LIBRARY");
}

__attribute__((unused)) static char *mt_read(const char *path)
{
    FILE *f = fopen(path, "r");
    char *buf;
    long n;
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = calloc(1, (size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

#endif
