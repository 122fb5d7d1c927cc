/* SGLang's and TensorRT-LLM's start-up lines, vLLM 0.10+'s profiling lines and
 * the engines' "no room for the KV cache" failures, read from the published
 * logs kept in tests/data/engine_logs/ (each file opens with its link). The
 * bytes expected are worked by hand here: a printed decimal d in a unit of U
 * bytes is round(d x U), its resolution U / (2 x 10^decimals); SGLang's and
 * TensorRT-LLM's "GB" is 2^30 bytes (they divide by 2^30). Then `compare` on
 * a sheet holding a failure: the kv_cache row measured at 0, "engine found no
 * room". */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/import.h"
#include "sheet/compare.h"

#include "cell_run.h"
#include "check_run.h"
#include "results.h"

#ifndef VS_SOURCE_DIR
#define VS_SOURCE_DIR "."
#endif
#define LOGS VS_SOURCE_DIR "/tests/data/engine_logs/"

#define GIB 1073741824ll
#define MIB 1048576ll

/* The file's lines through the importer named format; 0 or the refusal. */
static int feed_file(const char *format, vs_import *im, const char *name)
{
    const vs_importer *imp = vs_importer_find(format);
    char path[512], line[8192];
    FILE *f;
    void *state;
    int rc = 0;
    ck_assert_ptr_nonnull(imp);
    snprintf(path, sizeof path, LOGS "%s", name);
    ck_assert_msg((f = fopen(path, "r")) != NULL, "%s", path);
    state = calloc(1, imp->state_size ? imp->state_size : 1);
    ck_assert_int_eq(vs_import_init(im), 0);
    im->run_key = "log";
    while (rc == 0 && fgets(line, sizeof line, f)) {
        size_t n = strcspn(line, "\r\n");
        line[n] = '\0';
        rc = imp->line(im, state, line, n);
    }
    if (rc == 0 && imp->finish)
        rc = imp->finish(im, state);
    if (imp->clear)
        imp->clear(state);
    free(state);
    fclose(f);
    return rc;
}

static json_t *find(const vs_import *im, const char *counter, int rank)
{
    size_t i;
    json_t *m;
    json_array_foreach(im->items, i, m)
    {
        json_t *r = json_object_get(m, "rank");
        if (strcmp(json_string_value(json_object_get(m, "counter")), counter) != 0)
            continue;
        if (rank != -2 &&
            (rank < 0 ? !json_is_null(r) : !json_is_integer(r) || json_integer_value(r) != rank))
            continue;
        return m;
    }
    return NULL;
}

static void expect_bytes(const vs_import *im, const char *counter, int rank, long long bytes,
                         long long res)
{
    json_t *m = find(im, counter, rank);
    ck_assert_msg(m != NULL, "no %s (rank %d)", counter, rank);
    ck_assert_int_eq(json_integer_value(json_object_get(m, "peak_bytes")), bytes);
    ck_assert_int_eq(json_integer_value(json_object_get(m, "resolution_bytes")), res);
}

static void expect_count(const vs_import *im, const char *counter, double value, const char *unit)
{
    json_t *m = find(im, counter, -2);
    ck_assert_msg(m != NULL, "no %s", counter);
    ck_assert(json_is_null(json_object_get(m, "peak_bytes")));
    ck_assert_msg(json_number_value(json_object_get(m, "value")) == value, "%s: %g, not %g",
                  counter, json_number_value(json_object_get(m, "value")), value);
    ck_assert_str_eq(json_string_value(json_object_get(m, "unit")), unit);
}

/* ---------------------------------------------------------------- SGLang */

START_TEST(sglang_ranks_and_free_memory)
{
    vs_import im;
    ck_assert_int_eq(feed_file("sglang", &im, "sglang_4127_tp4.log"), 0);
    /* 21.63 x 2^30 = 23225035653.12 -> 23225035653; resolution 2^30 / 200 = 5368709.12 */
    expect_bytes(&im, "sglang.free_before_load", 0, 23225035653LL, 5368709);
    expect_bytes(&im, "sglang.free_before_load", 3, 23225035653LL, 5368709);
    ck_assert_uint_eq(json_array_size(im.items), 4); /* one per rank; "Init torch" is not read */
    vs_import_clear(&im);

    ck_assert_int_eq(feed_file("sglang", &im, "sglang_11716_tp8.log"), 0);
    /* 137.52 x 2^30 = 147660975636.48 -> 147660975636 */
    expect_bytes(&im, "sglang.free_before_load", 7, 147660975636LL, 5368709);
    /* 137.34 x 2^30 = 147467702108.16 -> 147467702108 */
    expect_bytes(&im, "sglang.free_before_load", 0, 147467702108LL, 5368709);
    vs_import_clear(&im);
}
END_TEST

START_TEST(sglang_pool)
{
    vs_import im;
    ck_assert_int_eq(feed_file("sglang", &im, "sglang_vllm21348_tp4.log"), 0);
    /* K and V of 8.23 GB each: 8.23 x 2^30 = 8836895211.52 -> 8836895212,
     * summed 17673790424; their resolutions summed */
    expect_bytes(&im, "sglang.kv_cache_memory", -1, 17673790424LL, 2 * 5368709);
    expect_count(&im, "sglang.kv_cache_tokens", 367404, "tokens");
    vs_import_clear(&im);

    {
        /* V before K (a fuzzer's find): the same sum, the text spanning both */
        static const char vk[] = "KV Cache is allocated. #tokens: 1, V size: 8.23 GB, K size: "
                                 "8.23 GB";
        const vs_importer *sg = vs_importer_find("sglang");
        ck_assert_int_eq(vs_import_init(&im), 0);
        im.run_key = "log";
        ck_assert_int_eq(sg->line(&im, NULL, vk, strlen(vk)), 0);
        expect_bytes(&im, "sglang.kv_cache_memory", -1, 17673790424LL, 2 * 5368709);
        ck_assert_str_eq(
            json_string_value(json_object_get(find(&im, "sglang.kv_cache_memory", -2), "text")),
            "V size: 8.23 GB, K size: 8.23 GB");
        vs_import_clear(&im);
    }
    ck_assert_int_eq(feed_file("sglang", &im, "sglang_29575.log"), 0);
    expect_count(&im, "sglang.max_total_num_tokens", 2086558, "tokens");
    expect_count(&im, "sglang.max_running_requests", 33, "requests");
    expect_count(&im, "sglang.context_len", 256000, "tokens");
    /* 17.22 x 2^30 = 18489834209.28 -> 18489834209 */
    expect_bytes(&im, "sglang.available_gpu_mem", -1, 18489834209LL, 5368709);
    vs_import_clear(&im);
}
END_TEST

START_TEST(sglang_no_room)
{
    vs_import im;
    ck_assert_int_eq(feed_file("sglang", &im, "sglang_inferencex2128_no_room.log"), 0);
    /* 125.65 x 2^30 = 134915660185.6 -> 134915660186; 12.25 x 2^30 exactly 13153337344 */
    expect_bytes(&im, "sglang.model_weights", -1, 134915660186LL, 5368709);
    expect_bytes(&im, "sglang.free_after_load", -1, 13153337344LL, 5368709);
    expect_count(&im, "sglang.no_kv_room", 1, "failure");
    vs_import_clear(&im);
}
END_TEST

/* --------------------------------------------------------- TensorRT-LLM */

START_TEST(trtllm_pool)
{
    vs_import im;
    ck_assert_int_eq(feed_file("trtllm", &im, "trtllm_1400.log"), 0);
    /* printed in bytes: exact, resolution 0 */
    expect_bytes(&im, "trtllm.kv_cache_memory", -1, 69524783104LL, 0);
    expect_count(&im, "trtllm.kv_cache_tokens", 132608, "tokens");
    vs_import_clear(&im);

    ck_assert_int_eq(feed_file("trtllm", &im, "trtllm_1188.log"), 0);
    /* 875 MiB = 917504000; resolution 2^20 / 2 = 524288 */
    expect_bytes(&im, "trtllm.model_weights", -1, 875 * MIB, MIB / 2);
    /* 773.51 x 2^20 = 811084021.76 -> 811084022; resolution 2^20 / 200 = 5242.88 -> 5243 */
    expect_bytes(&im, "trtllm.execution_context", -1, 811084022LL, 5243);
    /* 2.66 "GB" as 2^30: 2.66 x 1073741824 = 2856153251.84 -> 2856153252 */
    expect_bytes(&im, "trtllm.runtime_buffers", -1, 2856153252LL, 5368709);
    /* 5.76 x 2^30 = 6184752906.24 -> 6184752906 */
    expect_bytes(&im, "trtllm.decoder", -1, 6184752906LL, 5368709);
    /* 4.53 x 2^30 = 4864050462.72 -> 4864050463 */
    expect_bytes(&im, "trtllm.kv_cache_memory", -1, 4864050463LL, 5368709);
    expect_count(&im, "trtllm.kv_cache_tokens", 395776, "tokens");
    vs_import_clear(&im);

    ck_assert_int_eq(feed_file("trtllm", &im, "trtllm_5306.log"), 0);
    /* 16.10 x 2^30 = 17287243366.4 -> 17287243366 */
    expect_bytes(&im, "trtllm.kv_cache_memory", -1, 17287243366LL, 5368709);
    expect_count(&im, "trtllm.kv_cache_tokens", 301472, "tokens");
    vs_import_clear(&im);
}
END_TEST

/* ------------------------------------------------------------------ vLLM */

START_TEST(vllm_010_profiling)
{
    vs_import im;
    ck_assert_int_eq(feed_file("vllm", &im, "vllm_21429_v010.log"), 0);
    /* 139.12 x 2^30 = 149378962554.88 -> 149378962555 */
    expect_bytes(&im, "vllm.initial_free_memory", 2, 149378962555LL, 5368709);
    /* 69.86 x 2^30 = 75011603824.64 -> 75011603825 */
    expect_bytes(&im, "vllm.requested_memory", 2, 75011603825LL, 5368709);
    /* 62.79 x 2^30 = 67420249128.96 -> 67420249129 */
    expect_bytes(&im, "vllm.non_kv_cache_memory", 2, 67420249129LL, 5368709);
    /* 5.62 x 2^30 = 6034429050.88 -> 6034429051 */
    expect_bytes(&im, "vllm.activation_peak", 2, 6034429051LL, 5368709);
    /* 2.04 x 2^30 = 2190433320.96 -> 2190433321 */
    expect_bytes(&im, "vllm.non_torch_memory", 2, 2190433321LL, 5368709);
    /* 55.13 x 2^30 = 59195386757.12 -> 59195386757 */
    expect_bytes(&im, "vllm.model_weights", 2, 59195386757LL, 5368709);
    /* 7.07 x 2^30 = 7591354695.68 -> 7591354696 */
    expect_bytes(&im, "vllm.kv_cache_memory", 2, 7591354696LL, 5368709);
    ck_assert_ptr_null(find(&im, "vllm.no_kv_room", -2));
    vs_import_clear(&im);
}
END_TEST

/* vLLM 0.9.2 refusing a budget above the free memory (71.24 x 2^30 =
 * 76493367541.76 -> 76493367542). */
START_TEST(vllm_budget_above_free)
{
    vs_import im;
    ck_assert_int_eq(feed_file("vllm", &im, "vllm_kvcached29_v092.log"), 0);
    expect_bytes(&im, "vllm.requested_memory", -1, 76493367542LL, 5368709);
    vs_import_clear(&im);
}
END_TEST

/* The 0.11+ suggestion line, as vllm-ascend prints it
 * (https://github.com/vllm-project/vllm-ascend/pull/8289): exact bytes. And
 * the negative pool, in the format of vllm/v1/worker/gpu_worker.py's
 * logger.info("Available KV cache memory: %.2f GiB") with the figure the
 * engine prints when its budget is below what it holds. */
START_TEST(vllm_exact_and_negative)
{
    const vs_importer *imp = vs_importer_find("vllm");
    static const char exact[] =
        "(EngineCore pid=2884597) INFO 04-15 06:30:01 [worker.py:575] Free memory on device "
        "(60.86/61.27 GiB) on startup. Desired GPU memory utilization is (0.9, 55.14 GiB). "
        "Actual usage: 1.14 GiB for weights, 0.22 GiB for peak activation, 0.13 GiB for "
        "non-torch memory, 0.04 GiB for NPU graph memory. Replace gpu_memory_utilization with "
        "`--kv-cache-memory=57403864576` (53.46 GiB) to fit in";
    static const char negative[] =
        "(EngineCore_DP0 pid=1) INFO 10-03 16:22:17 [gpu_worker.py:298] Available KV cache "
        "memory: -2.14 GiB";
    vs_import im;
    char state[8192];
    ck_assert_uint_le(imp->state_size, sizeof state);
    memset(state, 0, sizeof state);
    ck_assert_int_eq(vs_import_init(&im), 0);
    im.run_key = "log";
    ck_assert_int_eq(imp->line(&im, state, exact, strlen(exact)), 0);
    expect_bytes(&im, "vllm.kv_cache_memory_in_budget", -1, 57403864576LL, 0);
    /* 55.14 x 2^30 = 59206124175.36 -> 59206124175 */
    expect_bytes(&im, "vllm.requested_memory", -1, 59206124175LL, 5368709);
    ck_assert_int_eq(imp->line(&im, state, negative, strlen(negative)), 0);
    /* 2.14 x 2^30 = 2297807503.36 -> 2297807503: what the pool lacks */
    expect_bytes(&im, "vllm.kv_cache_shortfall", -1, 2297807503LL, 5368709);
    expect_count(&im, "vllm.no_kv_room", 1, "failure");
    ck_assert_ptr_null(find(&im, "vllm.kv_cache_memory", -2));
    vs_import_clear(&im);
}
END_TEST

START_TEST(vllm_no_room_errors)
{
    vs_import im;
    ck_assert_int_eq(feed_file("vllm", &im, "vllm_25350_no_room.log"), 0);
    expect_count(&im, "vllm.no_kv_room", 1, "failure");
    /* 10.12 x 2^30 = 10866267258.88 -> 10866267259; 5.59 x 2^30 = 6002216796.16 */
    expect_bytes(&im, "vllm.kv_cache_needed", -1, 10866267259LL, 5368709);
    expect_bytes(&im, "vllm.kv_cache_memory", -1, 6002216796LL, 5368709);
    vs_import_clear(&im);

    ck_assert_int_eq(feed_file("vllm", &im, "vllm_omni946_no_room.log"), 0);
    expect_count(&im, "vllm.no_kv_room", 1, "failure");
    ck_assert_uint_eq(json_array_size(im.items), 1);
    vs_import_clear(&im);
}
END_TEST

/* ------------------------------------------------------------- compare */

/* A sheet whose only measurement is the failure: the kv_cache row is
 * measured at 0 and says the engine found no room. */
START_TEST(compare_no_room)
{
    json_t *sheet = json_pack("{s:[], s:[{s:s, s:n, s:n, s:s, s:s, s:n, s:I, s:s, s:n, s:n}]}",
                              "components", "measurements", "phase", "startup", "gpu", "gpu_name",
                              "counter", "vllm.kv_cache_shortfall", "scope", "reported", "host",
                              "peak_bytes", (json_int_t)2297807503LL, "unit", "B", "rank", "time");
    vs_compare c;
    vs_error e;
    memset(&e, 0, sizeof e);
    ck_assert_ptr_nonnull(sheet);
    ck_assert_int_eq(vs_compare_sheet(&c, sheet, 0, 0, &e), 0);
    ck_assert(c.no_room);
    ck_assert(c.has_shortfall);
    ck_assert_int_eq(c.shortfall_bytes, 2297807503LL);
    ck_assert(c.rows[VS_CMP_KV].has_measured);
    ck_assert_int_eq(c.rows[VS_CMP_KV].measured_bytes, 0);
    ck_assert_str_eq(c.rows[VS_CMP_KV].status, "engine found no room");
    ck_assert_str_eq(c.rows[VS_CMP_KV].measured_from, "vllm.kv_cache_shortfall");
    json_decref(sheet);
}
END_TEST

/* Through the interpreter: a sheet sized for a 221,000-token request under
 * vLLM, then the log where vLLM refused (it needed 10.12 GiB of KV and had
 * 5.59 GiB): `compare` measures kv_cache at 0 and says why. */
START_TEST(verb_compare_no_room)
{
    char cell[1024];
    json_t *rows, *row;
    size_t i;
    int seen = 0;
    run_ok("sheet \"vllm 25350\"\n"
           "model m params=8000000000\nformat bf16\ntask inference\n"
           "length 221000\nconcurrency 1\n"
           "estimate kv layers=32 kv_heads=8 head_dim=128\n"
           "gpu \"L40S\" memory=48GB\n"
           "engine vllm\n");
    snprintf(cell, sizeof cell, "measure import \"%s\"", LOGS "vllm_25350_no_room.log");
    run_ok(cell);
    run_ok("compare");
    ck_assert(json_is_true(json_object_get(lastp(), "engine_found_no_room")));
    rows = json_object_get(lastp(), "rows");
    json_array_foreach(rows, i, row)
    {
        if (strcmp(gets(row, "class"), "kv_cache") != 0)
            continue;
        seen = 1;
        ck_assert_int_eq(geti(row, "measured_bytes"), 0);
        ck_assert_str_eq(gets(row, "status"), "engine found no room");
    }
    ck_assert(seen);
    ck_assert_ptr_nonnull(strstr(text(last()), "the engine found no room for the KV cache"));
}
END_TEST

static const char *run_version(const vs_import *im)
{
    return json_string_value(json_object_get(json_object_get(im->runs, "log"), "_engine_version"));
}

/* The release from the log's own version line, whichever of vLLM's lines prints
 * it: the engine's "(vX)" (vllm#14452's 0.8.5 dev build, kvcached#29's 0.9.2),
 * the API server's line (vllm#15204, "vLLM API server version 0.8.1"), the
 * banner (https://myoceane.fr/index.php/ai-vllm-a100-gemma-4/, 0.19.0, drawn in
 * U+2588 blocks); TensorRT-LLM's line as tensorrt_llm/__init__.py prints it
 * (print(f"[TensorRT-LLM] TensorRT-LLM version: {__version__}")). The figures of
 * the same file are still read: 0.33 x 2^30 = 354334801.92 -> 354334802. */
START_TEST(engine_version_lines)
{
    static const char api[] =
        "INFO 03-20 17:28:13 [api_server.py:977] vLLM API server version 0.8.1";
    static const char banner[] = "(APIServer pid=6539) INFO 04-18 20:22:57 [utils.py:299] "
                                 "\xe2\x96\x84\xe2\x96\x84 \xe2\x96\x84\xe2\x96\x88 \xe2\x96\x88 "
                                 "\xe2\x96\x88 \xe2\x96\x88 \xe2\x96\x80\xe2\x96\x84\xe2\x96\x80 "
                                 "\xe2\x96\x88 version 0.19.0";
    static const char trt[] = "[TensorRT-LLM] TensorRT-LLM version: 0.17.0";
    static const char plain[] = "INFO the version 2 of the API";
    vs_import im;
    void *vst;
    const vs_importer *v = vs_importer_find("vllm"), *t = vs_importer_find("trtllm");
    ck_assert_int_eq(feed_file("vllm", &im, "vllm_14452_v085.log"), 0);
    ck_assert_str_eq(run_version(&im), "0.8.5.dev169+gce17db808.d20250423");
    expect_bytes(&im, "vllm.non_torch_memory", -1, 354334802LL, 5368709);
    vs_import_clear(&im);
    ck_assert_int_eq(feed_file("vllm", &im, "vllm_kvcached29_v092.log"), 0);
    ck_assert_str_eq(run_version(&im), "0.9.2");
    vs_import_clear(&im);
    ck_assert_int_eq(vs_import_init(&im), 0);
    im.run_key = "log";
    vst = calloc(1, v->state_size);
    ck_assert_int_eq(v->line(&im, vst, plain, strlen(plain)), 0);
    ck_assert_ptr_null(run_version(&im));
    ck_assert_int_eq(v->line(&im, vst, api, strlen(api)), 0);
    ck_assert_str_eq(run_version(&im), "0.8.1");
    ck_assert_int_eq(v->line(&im, vst, banner, strlen(banner)), 0);
    ck_assert_str_eq(run_version(&im), "0.19.0");
    free(vst);
    ck_assert_int_eq(t->line(&im, NULL, trt, strlen(trt)), 0);
    ck_assert_str_eq(run_version(&im), "0.17.0");
    vs_import_clear(&im);
}
END_TEST

/* llama.cpp's build as its release tags spell it: a line of common/common.cpp
 * common_init's format "build: %d (%s) with %s for %s" (its number and commit typed for
 * the test), and the later "build_info: b8819-f15ea3ef8"
 * (spiritbuun/buun-llama-cpp#14's log, a llama.cpp tree); a "build:" not followed by
 * a number and its commit is no version. */
START_TEST(llamacpp_build_line)
{
    static const char old[] = "build: 6325 (1234abc) with cc (Ubuntu 11.4.0-1ubuntu1~22.04) "
                              "11.4.0 for x86_64-linux-gnu";
    static const char info[] = "build_info: b8819-f15ea3ef8";
    static const char other[] = "INFO build: done";
    vs_import im;
    void *lst;
    const vs_importer *l = vs_importer_find("llamacpp");
    ck_assert_int_eq(vs_import_init(&im), 0);
    im.run_key = "log";
    lst = calloc(1, l->state_size);
    ck_assert_int_eq(l->line(&im, lst, other, strlen(other)), 0);
    ck_assert_ptr_null(run_version(&im));
    ck_assert_int_eq(l->line(&im, lst, old, strlen(old)), 0);
    ck_assert_str_eq(run_version(&im), "b6325");
    ck_assert_int_eq(l->line(&im, lst, info, strlen(info)), 0);
    ck_assert_str_eq(run_version(&im), "b8819");
    free(lst);
    vs_import_clear(&im);
}
END_TEST

/* Through the verb: each figure of the file carries the release (the rows the
 * import shows are the sheet's measurements). */
START_TEST(verb_import_engine_version)
{
    char cell[1024];
    json_t *ms, *m;
    size_t i, n = 0;
    run_ok("sheet \"vllm 14452\"\nmodel m params=32B\nformat bf16\ntask inference\n");
    snprintf(cell, sizeof cell, "measure import \"%s\"", LOGS "vllm_14452_v085.log");
    run_ok(cell);
    ms = json_object_get(lastp(), "rows");
    json_array_foreach(ms, i, m)
    {
        ck_assert_str_eq(json_string_value(json_object_get(m, "engine_version")),
                         "0.8.5.dev169+gce17db808.d20250423");
        n++;
    }
    ck_assert_uint_gt(n, 5);
}
END_TEST

START_TEST(sniff)
{
    static const char sg[] = "[2025-03-06 06:14:53 TP1] Load weight begin. avail mem=21.63 GB";
    static const char trt[] = "[TensorRT-LLM][INFO] Using 132608 tokens in paged KV cache.";
    ck_assert_str_eq(vs_importer_sniff(sg, strlen(sg))->name, "sglang");
    ck_assert_str_eq(vs_importer_sniff(trt, strlen(trt))->name, "trtllm");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("measure_import_engines");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, sglang_ranks_and_free_memory);
    tcase_add_test(tc, sglang_pool);
    tcase_add_test(tc, sglang_no_room);
    tcase_add_test(tc, trtllm_pool);
    tcase_add_test(tc, vllm_010_profiling);
    tcase_add_test(tc, vllm_exact_and_negative);
    tcase_add_test(tc, vllm_budget_above_free);
    tcase_add_test(tc, vllm_no_room_errors);
    tcase_add_test(tc, compare_no_room);
    tcase_add_test(tc, sniff);
    tcase_add_test(tc, engine_version_lines);
    suite_add_tcase(s, tc);
    tc = tcase_create("verbs");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, verb_compare_no_room);
    tcase_add_test(tc, verb_import_engine_version);
    tcase_add_test(tc, llamacpp_build_line);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
