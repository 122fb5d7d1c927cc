/* NVML through dlopen (src/measure/nvml.c), against the fake library. */
#include "../measure/measure_testlib.h"

#include "measure/nvml.h"

#include "check_run.h"

#define H200 "gpu 0 name=\"NVIDIA H200\" total=150754820096 used=1000000\n"

START_TEST(test_open_v2)
{
    vs_nvml *n;
    vs_error err;
    uint64_t used = 0, total = 0;
    mt_fake(VS_FAKE_NVML, H200 "driver 550.54.15\nnvml 12.550.54.15\n");
    ck_assert_int_eq(vs_nvml_open(&n, &err), 0);
    ck_assert_uint_eq(vs_nvml_count(n), 1);
    ck_assert_str_eq(vs_nvml_gpu_at(n, 0)->name, "NVIDIA H200");
    ck_assert_int_eq(vs_nvml_gpu_at(n, 0)->total_known, 1);
    ck_assert_uint_eq(vs_nvml_gpu_at(n, 0)->total_bytes, 150754820096ULL);
    ck_assert_int_eq(vs_nvml_gpu_at(n, 0)->cuda_total_known, 0);
    ck_assert_ptr_null(vs_nvml_gpu_at(n, 1));
    ck_assert_str_eq(vs_nvml_driver_version(n), "550.54.15");
    ck_assert_str_eq(vs_nvml_version(n), "12.550.54.15");
    ck_assert_str_eq(vs_nvml_memory_api(n), "v2");
    ck_assert_int_eq(vs_nvml_memory(n, 0, &used, &total, &err), 0);
    ck_assert_uint_eq(used, 1000000);
    ck_assert_uint_eq(total, 150754820096ULL);
    ck_assert_int_eq(vs_nvml_memory(n, 3, &used, &total, &err), VS_EMEASURE);
    vs_nvml_free(n);
    vs_nvml_free(NULL);
}
END_TEST

START_TEST(test_memory_v1_fallback)
{
    vs_nvml *n;
    vs_error err;
    uint64_t used = 0;
    mt_fake(VS_FAKE_NVML, H200 "memory v1\n");
    ck_assert_int_eq(vs_nvml_open(&n, &err), 0);
    ck_assert_str_eq(vs_nvml_memory_api(n), "v1");
    ck_assert_int_eq(vs_nvml_memory(n, 0, &used, NULL, &err), 0);
    ck_assert_uint_eq(used, 1000000);
    vs_nvml_free(n);
}
END_TEST

START_TEST(test_minimal_library)
{
    vs_nvml *n;
    vs_error err;
    uint64_t used = 0;
    const vs_nvml_proc *p;
    size_t count;
    int avail;
    char script[256];
    snprintf(script, sizeof script, H200 "proc %d gpu 0 mem 4096\n", (int)getpid());
    mt_fake(VS_FAKE_NVML_MIN, script);
    ck_assert_int_eq(vs_nvml_open(&n, &err), 0);
    ck_assert_str_eq(vs_nvml_memory_api(n), "v1");
    ck_assert_str_eq(vs_nvml_process_api(n), "v1");
    ck_assert_str_eq(vs_nvml_driver_version(n), "");
    ck_assert_str_eq(vs_nvml_gpu_at(n, 0)->uuid, "");
    ck_assert_int_eq(vs_nvml_memory(n, 0, &used, NULL, &err), 0);
    ck_assert_uint_eq(used, 1000000);
    ck_assert_int_eq(vs_nvml_processes(n, 0, &p, &count, &avail, &err), 0);
    ck_assert_int_eq(avail, 1);
    ck_assert_uint_eq(count, 1);
    ck_assert_uint_eq(p[0].pid, (unsigned)getpid());
    ck_assert_uint_eq(p[0].used_bytes, 4096);
    ck_assert_str_eq(vs_nvml_process_api(n), "v1/16");
    vs_nvml_free(n);
}
END_TEST

static void check_procs(const char *mode, const char *stride, const char *api, unsigned nproc)
{
    vs_nvml *n;
    vs_error err;
    const vs_nvml_proc *p;
    size_t count, i;
    int avail = -1;
    char script[8192];
    size_t off =
        (size_t)snprintf(script, sizeof script, H200 "processes %s\nprocstride %s\n", mode, stride);
    for (i = 0; i < nproc; i++)
        off += (size_t)snprintf(script + off, sizeof script - off, "proc %u gpu 0 mem %u\n",
                                (unsigned)(1000 + i), (unsigned)(1 + i) * 1048576u);
    mt_fake(VS_FAKE_NVML, script);
    ck_assert_int_eq(vs_nvml_open(&n, &err), 0);
    ck_assert_int_eq(vs_nvml_processes(n, 0, &p, &count, &avail, &err), 0);
    ck_assert_int_eq(avail, 1);
    ck_assert_uint_eq(count, nproc);
    for (i = 0; i < nproc; i++) {
        ck_assert_uint_eq(p[i].pid, 1000 + i);
        ck_assert_uint_eq(p[i].used_bytes, (uint64_t)(1 + i) * 1048576u);
    }
    ck_assert_str_eq(vs_nvml_process_api(n), api);
    vs_nvml_free(n);
}

START_TEST(test_procs_v3_24)
{
    check_procs("v3", "24", "v3/24", 3);
}
END_TEST
START_TEST(test_procs_v3_32)
{
    check_procs("v3", "32", "v3/32", 3);
}
END_TEST
START_TEST(test_procs_v3_32_one)
{
    check_procs("v3", "32", "v3/32", 1);
}
END_TEST
START_TEST(test_procs_v2)
{
    check_procs("v2", "24", "v2/24", 2);
}
END_TEST
START_TEST(test_procs_v1)
{
    check_procs("v1", "24", "v1/16", 2);
}
END_TEST
START_TEST(test_procs_insufficient_size)
{
    check_procs("v3", "32", "v3/32", 40);
}
END_TEST

START_TEST(test_procs_not_supported)
{
    vs_nvml *n;
    vs_error err;
    const vs_nvml_proc *p;
    size_t count = 9;
    int avail = -1;
    mt_fake(VS_FAKE_NVML, H200 "processes notsupported\nproc 5 gpu 0 mem 7\n");
    ck_assert_int_eq(vs_nvml_open(&n, &err), 0);
    ck_assert_int_eq(vs_nvml_processes(n, 0, &p, &count, &avail, &err), 0);
    ck_assert_int_eq(avail, 0);
    ck_assert_uint_eq(count, 0);
    /* remembered: asked again, still data, not an error */
    ck_assert_int_eq(vs_nvml_processes(n, 0, &p, &count, &avail, &err), 0);
    ck_assert_int_eq(avail, 0);
    vs_nvml_free(n);
}
END_TEST

START_TEST(test_no_driver)
{
    vs_nvml *n = (vs_nvml *)1;
    vs_error err;
    mt_tmpdir();
    setenv("VRAMSHEET_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    ck_assert_int_eq(vs_nvml_open(&n, &err), VS_EMEASURE);
    ck_assert_ptr_null(n);
    ck_assert_ptr_nonnull(strstr(err.message, "no NVIDIA driver"));
    ck_assert_ptr_nonnull(strstr(err.message, "/nonexistent/libnvidia-ml.so.1"));
}
END_TEST

START_TEST(test_init_fails)
{
    vs_nvml *n;
    vs_error err;
    mt_fake(VS_FAKE_NVML, H200 "init fail\n");
    ck_assert_int_eq(vs_nvml_open(&n, &err), VS_EMEASURE);
    ck_assert_ptr_nonnull(strstr(err.message, "Driver Not Loaded"));
}
END_TEST

START_TEST(test_not_nvml)
{
    vs_nvml *n;
    vs_error err;
    mt_tmpdir();
    setenv("VRAMSHEET_NVML_LIBRARY", "libc.so.6", 1);
    ck_assert_int_eq(vs_nvml_open(&n, &err), VS_EMEASURE);
    ck_assert_ptr_nonnull(strstr(err.message, "not a usable NVML library"));
}
END_TEST

START_TEST(test_cuda_totals_by_uuid)
{
    vs_nvml *n;
    vs_error err;
    unsigned g = 0;
    mt_fake(VS_FAKE_NVML,
            "gpu 0 name=\"A\" total=85899345920 uuid=GPU-11111111-2222-3333-4444-555555555555\n"
            "gpu 1 name=\"B\" total=25769803776 uuid=GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee\n"
            "cudagap 1048576\n");
    setenv("VRAMSHEET_CUDA_LIBRARY", VS_FAKE_NVML, 1);
    ck_assert_int_eq(vs_nvml_open(&n, &err), 0);
    ck_assert_uint_eq(vs_nvml_count(n), 2);
    /* the fake's CUDA order is the reverse of NVML's: matched by UUID */
    ck_assert_int_eq(vs_nvml_gpu_at(n, 0)->cuda_total_known, 1);
    ck_assert_uint_eq(vs_nvml_gpu_at(n, 0)->cuda_total_bytes, 85899345920ULL - 1048576);
    ck_assert_int_eq(vs_nvml_gpu_at(n, 1)->cuda_total_known, 1);
    ck_assert_uint_eq(vs_nvml_gpu_at(n, 1)->cuda_total_bytes, 25769803776ULL - 1048576);
    ck_assert_int_eq(vs_nvml_index_of_uuid(n, "GPU-AAAAAAAA-bbbb-cccc-dddd-eeeeeeeeeeee", &g), 1);
    ck_assert_uint_eq(g, 1);
    ck_assert_int_eq(vs_nvml_index_of_uuid(n, "11111111-2222-3333-4444-555555555555", &g), 1);
    ck_assert_uint_eq(g, 0);
    ck_assert_int_eq(vs_nvml_index_of_uuid(n, "GPU-0", &g), 0);
    vs_nvml_free(n);
}
END_TEST

/* 18446744073709551615 is 2^64 - 1 (NVML_VALUE_NOT_AVAILABLE_ULL in nvml.h), and
 * 9223372036854775808 is 2^63: both past a record's int64. A total is then
 * unknown (total_known 0), a used reading an error (not a reading), a process "not said". */
START_TEST(test_values_past_int64)
{
    vs_nvml *n;
    vs_error err;
    uint64_t used = 7, total = 7;
    const vs_nvml_proc *procs;
    size_t count = 0;
    int avail = 0;
    mt_fake(VS_FAKE_NVML,
            "gpu 0 name=\"W\" total=18446744073709551615 used=18446744073709551615\n"
            "gpu 1 name=\"X\" total=9223372036854775807 used=9223372036854775808\n"
            "proc 0 gpu 0 mem 9223372036854775808\nproc 0 gpu 1 mem 9223372036854775807\n");
    setenv("VRAMSHEET_CUDA_LIBRARY", VS_FAKE_NVML, 1);
    ck_assert_int_eq(vs_nvml_open(&n, &err), 0);
    ck_assert_int_eq(vs_nvml_gpu_at(n, 0)->total_known, 0);
    ck_assert_int_eq(vs_nvml_gpu_at(n, 0)->cuda_total_known, 0); /* 2^64 - 1 - 453 MiB */
    ck_assert_int_eq(vs_nvml_gpu_at(n, 1)->total_known, 1);
    ck_assert_uint_eq(vs_nvml_gpu_at(n, 1)->total_bytes, 9223372036854775807ULL);
    vs_error_clear(&err);
    ck_assert_int_eq(vs_nvml_memory(n, 0, &used, &total, &err), VS_EMEASURE);
    ck_assert_ptr_nonnull(strstr(err.message, "18446744073709551615"));
    ck_assert_ptr_nonnull(strstr(err.message, "out of range"));
    ck_assert_int_eq(vs_nvml_memory(n, 1, &used, &total, &err), VS_EMEASURE);
    ck_assert_ptr_nonnull(strstr(err.message, "9223372036854775808"));
    ck_assert_int_eq(vs_nvml_processes(n, 0, &procs, &count, &avail, &err), 0);
    ck_assert_int_eq(avail, 1);
    ck_assert_uint_eq(count, 1);
    ck_assert_uint_eq(procs[0].used_bytes, UINT64_MAX);
    ck_assert_int_eq(vs_nvml_processes(n, 1, &procs, &count, &avail, &err), 0);
    ck_assert_uint_eq(count, 1);
    ck_assert_uint_eq(procs[0].used_bytes, 9223372036854775807ULL);
    vs_nvml_free(n);
    unsetenv("VRAMSHEET_CUDA_LIBRARY");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("measure_nvml");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_open_v2);
    tcase_add_test(tc, test_memory_v1_fallback);
    tcase_add_test(tc, test_minimal_library);
    tcase_add_test(tc, test_procs_v3_24);
    tcase_add_test(tc, test_procs_v3_32);
    tcase_add_test(tc, test_procs_v3_32_one);
    tcase_add_test(tc, test_procs_v2);
    tcase_add_test(tc, test_procs_v1);
    tcase_add_test(tc, test_procs_insufficient_size);
    tcase_add_test(tc, test_procs_not_supported);
    tcase_add_test(tc, test_no_driver);
    tcase_add_test(tc, test_init_fails);
    tcase_add_test(tc, test_not_nvml);
    tcase_add_test(tc, test_cuda_totals_by_uuid);
    tcase_add_test(tc, test_values_past_int64);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
