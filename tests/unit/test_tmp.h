/* test_tmp.h — where a unit test makes its temporary files: under $TMPDIR
 * (tests/unit/run_clean.cmake gives each test a folder of its own there and
 * fails the test when anything is left in it), else /tmp; and the removal of
 * what a test made. */
#ifndef VS_TESTS_TEST_TMP_H
#define VS_TESTS_TEST_TMP_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* "$TMPDIR/name" (name ends in XXXXXX for mkdtemp or mkstemp) into out. */
static inline char *vs_test_tmp(char *out, size_t n, const char *name)
{
    const char *t = getenv("TMPDIR");
    snprintf(out, n, "%s/%s", t && *t ? t : "/tmp", name);
    return out;
}

/* Makes "$TMPDIR/name" (name ends in XXXXXX) with text in it, its path in out;
 * 0, or -1 where the file could not be made or written. */
static inline int vs_test_tmp_write(char *out, size_t n, const char *name, const char *text)
{
    int fd = mkstemp(vs_test_tmp(out, n, name));
    size_t len = strlen(text);
    ssize_t w;
    if (fd < 0)
        return -1;
    w = write(fd, text, len);
    close(fd);
    return w == (ssize_t)len ? 0 : -1;
}

/* Removes path and everything under it (links are removed, not followed). */
static inline void vs_test_rmtree(const char *path)
{
    struct stat lst;
    DIR *d;
    struct dirent *e;
    if (!path || !*path || lstat(path, &lst) != 0)
        return;
    if (!S_ISDIR(lst.st_mode)) {
        unlink(path);
        return;
    }
    if ((d = opendir(path)) != NULL) {
        while ((e = readdir(d)) != NULL) {
            char sub[4096];
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            if ((size_t)snprintf(sub, sizeof sub, "%s/%s", path, e->d_name) < sizeof sub)
                vs_test_rmtree(sub);
        }
        closedir(d);
    }
    rmdir(path);
}

#endif
