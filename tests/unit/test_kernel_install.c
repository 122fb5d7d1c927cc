/* Unit tests for src/kernel/install: kernel.json and the kernelspec folder. */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/install.h"

#include "check_run.h"
#include "test_tmp.h"

#ifndef VS_SOURCE_DIR
#error "VS_SOURCE_DIR is set by kernel/build.cmake"
#endif

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *data;
    long n;
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    data = malloc((size_t)n + 1);
    ck_assert_uint_eq(fread(data, 1, (size_t)n, f), (size_t)n);
    data[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return data;
}

START_TEST(test_spec_matches_template)
{
    char *text = vs_install_spec_json("/opt/vs/bin/vramsheet");
    json_t *spec = json_loads(text, 0, NULL),
           *tmpl = json_load_file(VS_SOURCE_DIR "/kernel/kernel.json", 0, NULL);
    ck_assert_ptr_nonnull(spec);
    ck_assert_ptr_nonnull(tmpl);
    ck_assert_str_eq(json_string_value(json_array_get(json_object_get(spec, "argv"), 0)),
                     "/opt/vs/bin/vramsheet");
    /* Apart from the binary's path, the same spec as the template cmake installs. */
    json_array_set_new(json_object_get(spec, "argv"), 0, json_string("vramsheet"));
    ck_assert_msg(json_equal(spec, tmpl), "kernel.json differs from kernel/kernel.json: %s", text);
    ck_assert_str_eq(json_string_value(json_object_get(spec, "language")), "vramsheet");
    json_decref(spec);
    json_decref(tmpl);
    free(text);
}
END_TEST

START_TEST(test_install_writes_folder)
{
    char tmp[200], dir[4096], path[4200];
    vs_error err;
    size_t n, m, i;
    char *a, *b;
    json_t *spec;
    const char *logos[] = {"logo-32x32.png", "logo-64x64.png"};
    ck_assert_ptr_nonnull(mkdtemp(vs_test_tmp(tmp, sizeof tmp, "vs_test_install_XXXXXX")));
    vs_error_clear(&err);
    snprintf(path, sizeof path, "%s/share/jupyter", tmp);
    ck_assert_int_eq(vs_install_kernelspec(path, "/x/vramsheet", dir, sizeof dir, &err), 0);
    snprintf(path, sizeof path, "%s/share/jupyter/kernels/vramsheet", tmp);
    ck_assert_str_eq(dir, path);
    snprintf(path, sizeof path, "%s/kernel.json", dir);
    spec = json_load_file(path, 0, NULL);
    ck_assert_ptr_nonnull(spec);
    ck_assert_str_eq(json_string_value(json_array_get(json_object_get(spec, "argv"), 0)),
                     "/x/vramsheet");
    json_decref(spec);
    unlink(path);
    for (i = 0; i < 2; i++) {
        /* The compiled-in logos are byte for byte the files in kernel/. */
        snprintf(path, sizeof path, "%s/%s", dir, logos[i]);
        a = slurp(path, &n);
        unlink(path);
        snprintf(path, sizeof path, "%s/kernel/%s", VS_SOURCE_DIR, logos[i]);
        b = slurp(path, &m);
        ck_assert_uint_eq(n, m);
        ck_assert_mem_eq(a, b, n);
        ck_assert_mem_eq(a, "\x89PNG\r\n\x1a\n", 8);
        free(a);
        free(b);
    }
    rmdir(dir);
    vs_test_rmtree(tmp); /* share/jupyter/kernels, made on the way */
    /* A data directory that cannot be created is an error, not a crash. */
    ck_assert_int_eq(vs_install_kernelspec("/proc/no/such", "/x", NULL, 0, &err), VS_EIO);
    ck_assert_ptr_nonnull(strstr(err.message, "/proc/no"));
}
END_TEST

START_TEST(test_user_data_dir)
{
    char out[256];
    vs_error err;
    setenv("JUPYTER_DATA_DIR", "/j", 1);
    ck_assert_int_eq(vs_install_user_data_dir(out, sizeof out, &err), 0);
    ck_assert_str_eq(out, "/j");
    unsetenv("JUPYTER_DATA_DIR");
    setenv("XDG_DATA_HOME", "/x", 1);
    ck_assert_int_eq(vs_install_user_data_dir(out, sizeof out, &err), 0);
    ck_assert_str_eq(out, "/x/jupyter");
    unsetenv("XDG_DATA_HOME");
    setenv("HOME", "/h", 1);
    ck_assert_int_eq(vs_install_user_data_dir(out, sizeof out, &err), 0);
    ck_assert_str_eq(out, "/h/.local/share/jupyter");
    unsetenv("HOME");
    ck_assert_int_eq(vs_install_user_data_dir(out, sizeof out, &err), VS_EVALUE);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kernel_install");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_spec_matches_template);
    tcase_add_test(tc, test_install_writes_folder);
    tcase_add_test(tc, test_user_data_dir);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
