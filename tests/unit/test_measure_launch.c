/* `measure launch`: the offer's launch command run under measure against the
 * fake NVML, with a fake `vllm` on PATH that raises the GPU's use and prints a
 * published vLLM 0.10 start-up log (tests/data/engine_logs/vllm_21429_v010.log,
 * vllm-project/vllm#21429); the run's NVML peaks and the engine's own figures
 * land in the same sheet, and compare lines them up with the estimate. */
#include "../measure/measure_testlib.h"

#include <dirent.h>
#include <sys/stat.h>

#include "cell_run.h"
#include "check_run.h"

#ifndef VS_SOURCE_DIR
#define VS_SOURCE_DIR "."
#endif

#define GPU0 "gpu 0 name=\"NVIDIA H200\" total=150754820096 used=1000000\n"

static void fake_engine(const char *name)
{
    char path[512], newpath[4096];
    mt_write(name,
             "#!/bin/sh\n"
             "printf 'gpu 0 used 60000000000\\n' > \"$FAKE_NVML_STATE\"\n"
             "echo \"$0 $*\" > \"%s/argv\"\n"
             "cat '%s/tests/data/engine_logs/vllm_21429_v010.log'\n"
             "sleep 0.3\n",
             mt_dir, VS_SOURCE_DIR);
    mt_path(path, sizeof path, name);
    ck_assert_int_eq(chmod(path, 0755), 0);
    snprintf(newpath, sizeof newpath, "%s:%s", mt_dir,
             getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
    setenv("PATH", newpath, 1);
}

static const json_t *measurement(const json_t *sheet, const char *counter)
{
    const json_t *m;
    size_t i;
    json_array_foreach(json_object_get(sheet, "measurements"), i, m)
    {
        if (!strcmp(json_string_value(json_object_get(m, "counter")), counter))
            return m;
    }
    return NULL;
}

START_TEST(runs_the_command_and_imports_its_lines)
{
    json_t *sheet;
    const json_t *m, *run;
    char path[512];
    char *argv;
    mt_tmpdir();
    mt_fake(VS_FAKE_NVML, GPU0);
    mt_path(path, sizeof path, "records");
    setenv("VRAMSHEET_RECORDS", path, 1);
    setenv("TMPDIR", mt_dir, 1);
    fake_engine("vllm");
    run_ok("sheet \"measure launch\"\n"
           "model Qwen/Qwen3-8B params=8.19B\nformat bf16\ntask inference\n"
           "length 8192\nconcurrency 4\nestimate kv layers=36 kv_heads=8 head_dim=128\n"
           "gpu \"H200\"\nengine vllm gpu_memory_utilization=0.5 max_num_seqs=4\n"
           "measure launch timeout=30\nsheet \"measure launch\"");
    sheet = lastp();
    /* the engine got the command launch writes */
    mt_path(path, sizeof path, "argv");
    argv = mt_read(path);
    ck_assert_ptr_nonnull(argv);
    ck_assert_ptr_nonnull(strstr(argv, "/vllm serve Qwen/Qwen3-8B --tensor-parallel-size 1 "
                                       "--max-model-len 8192 --gpu-memory-utilization 0.5 "
                                       "--max-num-seqs 4"));
    free(argv);
    /* NVML's run: phase launch, the peak the fake engine set */
    run = json_array_get(json_object_get(sheet, "runs"), 0);
    ck_assert_str_eq(gets((json_t *)run, "phase"), "launch");
    ck_assert_ptr_nonnull(strstr(gets((json_t *)run, "command"), "vllm serve Qwen/Qwen3-8B"));
    m = measurement(sheet, "nvml.device_used");
    ck_assert_ptr_nonnull(m);
    ck_assert_int_eq(geti((json_t *)m, "peak_bytes"), 60000000000LL);
    ck_assert_str_eq(gets((json_t *)m, "phase"), "launch");
    /* the engine's own lines: 7.07 GiB = 7,591,354,695.68 -> 7,591,354,696 B of
     * KV cache, 55.13 GiB of weights -> 59,195,386,757 B */
    m = measurement(sheet, "vllm.kv_cache_memory");
    ck_assert_ptr_nonnull(m);
    ck_assert_int_eq(geti((json_t *)m, "peak_bytes"), 7591354696LL);
    m = measurement(sheet, "vllm.model_weights");
    ck_assert_ptr_nonnull(m);
    ck_assert_int_eq(geti((json_t *)m, "peak_bytes"), 59195386757LL);
    /* one run: the engine's lines joined the run NVML's samples made, none of
     * its own named after the temporary file */
    ck_assert_uint_eq(json_array_size(json_object_get(sheet, "runs")), 1);
    ck_assert_str_eq(gets((json_t *)m, "run"), gets((json_t *)run, "id"));
    ck_assert_str_eq(gets((json_t *)measurement(sheet, "vllm.kv_cache_memory"), "run"),
                     gets((json_t *)run, "id"));
    ck_assert_str_eq(gets((json_t *)measurement(sheet, "nvml.device_used"), "run"),
                     gets((json_t *)run, "id"));
    /* the engine's output file, kept in TMPDIR for the import, is gone */
    {
        DIR *d = opendir(mt_dir);
        struct dirent *e;
        ck_assert_ptr_nonnull(d);
        while ((e = readdir(d)))
            ck_assert_msg(strncmp(e->d_name, "vramsheet-launch-", 17), "%s left", e->d_name);
        closedir(d);
    }
    /* compare: the estimate against the engine's lines and NVML's total (the
     * published log is another model's, so only where each figure comes from
     * is checked) */
    run_ok("compare");
    ck_assert_str_eq(gets(lastp(), "kind"), "compare");
    {
        const json_t *rows = json_object_get(lastp(), "rows"), *r;
        size_t i, seen = 0;
        json_array_foreach(rows, i, r)
        {
            const char *cls = gets((json_t *)r, "class"),
                       *from = gets((json_t *)r, "measured_from");
            if (!strcmp(cls, "weights"))
                seen += !strcmp(from, "vllm.model_weights") &&
                        geti((json_t *)r, "estimated_bytes") == 16380000000LL;
            if (!strcmp(cls, "kv_cache"))
                seen += !strcmp(from, "vllm.kv_cache_memory");
            if (!strcmp(cls, "total"))
                seen += !strcmp(from, "nvml.device_used") &&
                        geti((json_t *)r, "measured_bytes") == 60000000000LL;
        }
        ck_assert_uint_eq(seen, 3);
    }
}
END_TEST

START_TEST(refused_without_a_command)
{
    mt_tmpdir();
    mt_fake(VS_FAKE_NVML, GPU0);
    run_ok("sheet \"no engine\"\nmodel m params=1B\nformat bf16\ntask inference\ngpu \"H200\"");
    ck_assert_int_eq(run("measure launch"), VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "no command line"));
    run_ok("engine vllm");
    ck_assert_int_eq(run("measure launch \"RTX 4090\""), VS_ENOTFOUND);
    ck_assert_int_eq(run("measure launch -- echo hi"), VS_EVALUE);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("measure_launch");
    TCase *t = tcase_create("measure_launch");
    tcase_set_timeout(t, 60);
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, runs_the_command_and_imports_its_lines);
    tcase_add_test(t, refused_without_a_command);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return vs_check_run(suite());
}
