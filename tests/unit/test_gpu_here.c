/* `gpu here`: this machine's GPUs from NVML (here the tests' fake NVML) become
 * offers, identical GPUs grouped as one offer of that many cards, with NVML's
 * exact total as the device-reported capacity. The expected figures are the
 * fake's script: 150,754,820,096 B for each H200 (143,771 MiB, as an H200
 * reports), 25,757,220,864 B for the RTX 4090 (24,564 MiB). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_run.h"
#include "results.h"

#include "cell_run.h"

#ifndef VS_FAKE_NVML
#define VS_FAKE_NVML "libfake_nvml.so"
#endif

#define TEXT_HAS(b, needle)                                                                        \
    ck_assert_msg(strstr(text(b), needle) != NULL, "text lacks '%s':\n%s", needle, text(b))

static char dir[512], script[600], state[600];

static void fake(const char *text)
{
    const char *tmp = getenv("TMPDIR");
    FILE *f;
    snprintf(dir, sizeof dir, "%s/vs-gpu-here-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(script, sizeof script, "%s/script", dir);
    snprintf(state, sizeof state, "%s/state", dir);
    f = fopen(script, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    setenv("FAKE_NVML_SCRIPT", script, 1);
    setenv("FAKE_NVML_STATE", state, 1);
    setenv("VRAMSHEET_NVML_LIBRARY", VS_FAKE_NVML, 1);
    unsetenv("VRAMSHEET_CUDA_LIBRARY");
}

static void unfake(void)
{
    unlink(script);
    unlink(state);
    rmdir(dir);
}

static json_t *offer(const char *name)
{
    size_t i;
    json_t *b;
    json_array_foreach(st.bundles, i, b)
    {
        json_t *p = payload(b), *o = json_object_get(p, "offer");
        if (p && !strcmp(gets(p, "kind"), "offer") && !strcmp(gets(o, "name"), name))
            return o;
    }
    return NULL;
}

START_TEST(identical_gpus_are_one_offer)
{
    json_t *h200, *rtx;
    fake("gpu 0 name=\"NVIDIA H200\" total=150754820096 used=1000000\n"
         "gpu 1 name=\"NVIDIA H200\" total=150754820096 used=1000000\n"
         "gpu 2 name=\"NVIDIA GeForce RTX 4090\" total=25757220864\n");
    run_ok("sheet \"here\"\nmodel m params=7e9\nformat bf16\ngpu here");
    h200 = offer("NVIDIA H200");
    rtx = offer("NVIDIA GeForce RTX 4090");
    ck_assert_ptr_nonnull(h200);
    ck_assert_ptr_nonnull(rtx);
    ck_assert_int_eq(geti(h200, "cards"), 2);
    ck_assert_int_eq(geti(h200, "reported_bytes"), 150754820096LL);
    ck_assert_int_eq(geti(rtx, "cards"), 1);
    ck_assert_int_eq(geti(rtx, "reported_bytes"), 25757220864LL);
    /* the catalogue still knows them by the driver's names */
    ck_assert_str_eq(gets(h200, "catalog"), "H200");
    TEXT_HAS(json_array_get(st.bundles, 3), "NVML memory total on");
    TEXT_HAS(json_array_get(st.bundles, 3), "GPU 0-1");
    /* running it again restates the same offers: no duplicate */
    run_ok("gpu here\ngpus");
    run_ok("candidates");
    ck_assert_int_eq(json_array_size(json_object_get(lastp(), "rows")), 2);
    unfake();
}
END_TEST

START_TEST(no_nvml_is_a_measure_error_with_the_way_out)
{
    setenv("VRAMSHEET_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    ck_assert_int_eq(run("sheet \"none\"\ngpu here"), VS_EMEASURE);
    ck_assert_ptr_nonnull(strstr(err.message, "gpu here: "));
    ck_assert_ptr_nonnull(strstr(err.message, "adds an offer by hand"));
    ck_assert_int_eq(err.line, 2);
    ck_assert_int_eq(run("sheet \"none\"\ngpu here cards=2"), VS_EVALUE);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gpu_here");
    TCase *tc = tcase_create("gpu_here");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, identical_gpus_are_one_offer);
    tcase_add_test(tc, no_nvml_is_a_measure_error_with_the_way_out);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
