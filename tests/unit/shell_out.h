/* shell_out.h — a shell command's standard output, for the store tests that
 * check what they wrote with the git CLI (an oracle independent of libgit2). */
#ifndef VS_TESTS_SHELL_OUT_H
#define VS_TESTS_SHELL_OUT_H

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* Runs the printf-formatted command and returns its whole stdout (malloc'd). */
static char *vs_test_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2), unused));
static char *vs_test_sh(const char *fmt, ...)
{
    char cmd[2048];
    va_list ap;
    FILE *p;
    size_t cap = 4096, len = 0, n;
    char *out = malloc(cap);
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    while ((n = fread(out + len, 1, cap - len - 1, p)) > 0) {
        len += n;
        if (len + 1 == cap)
            out = realloc(out, cap *= 2);
    }
    out[len] = '\0';
    pclose(p);
    return out;
}

#endif
