/* The log importers (src/measure/import*.c), each fed lines that real runs
 * printed, copied from public issues and documentation (each with its link);
 * the bytes expected are worked by hand here: a printed decimal d in a unit
 * of U bytes is round(d x U), and its resolution half a unit of the last
 * digit, U / (2 x 10^decimals), rounded. Then `measure import` through the
 * interpreter: format=auto, the malformed variants refused with file and
 * line, nothing added to the sheet, and what was added read back. */
#include "../measure/measure_testlib.h"

#include "lang/interp.h"
#include "lang/verb.h"
#include "measure/import.h"
#include "render/bundle.h"
#include "sheet/compare.h"
#include "sheet/sheet.h"

#include "check_run.h"
#include "results.h"

#define GIB 1073741824ull
#define MIB 1048576ull

/* Feeds text line by line to imp; 0, or the first refusal (VS_IMPORT_REFUSED,
 * why in im). */
static int feed(const vs_importer *imp, vs_import *im, const char *text, size_t *bad_line)
{
    void *state = calloc(1, imp->state_size ? imp->state_size : 1);
    const char *p = text;
    size_t lineno = 0;
    int rc = 0;
    ck_assert_ptr_nonnull(state);
    while (*p && rc == 0) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        char *line = strndup(p, n);
        lineno++;
        rc = imp->line(im, state, line, n);
        free(line);
        p += n + (nl ? 1 : 0);
    }
    if (rc == 0 && imp->finish)
        rc = imp->finish(im, state);
    if (bad_line)
        *bad_line = im->why_line ? im->why_line : lineno;
    if (imp->clear)
        imp->clear(state);
    free(state);
    return rc;
}

/* The measurement of counter (on gpu, of rank; -2: any), or NULL. */
static json_t *find(const vs_import *im, const char *counter, int gpu, int rank)
{
    size_t i;
    json_t *m;
    json_array_foreach(im->items, i, m)
    {
        json_t *g = json_object_get(m, "gpu"), *r = json_object_get(m, "rank");
        if (strcmp(json_string_value(json_object_get(m, "counter")), counter) != 0)
            continue;
        if (gpu != -2 &&
            (gpu < 0 ? !json_is_null(g) : !json_is_integer(g) || json_integer_value(g) != gpu))
            continue;
        if (rank != -2 &&
            (rank < 0 ? !json_is_null(r) : !json_is_integer(r) || json_integer_value(r) != rank))
            continue;
        return m;
    }
    return NULL;
}

static void expect_bytes(const vs_import *im, const char *counter, int gpu, int rank,
                         long long bytes, long long res)
{
    json_t *m = find(im, counter, gpu, rank);
    ck_assert_msg(m != NULL, "no %s (gpu %d rank %d)", counter, gpu, rank);
    ck_assert_int_eq(json_integer_value(json_object_get(m, "peak_bytes")), bytes);
    ck_assert_int_eq(json_integer_value(json_object_get(m, "resolution_bytes")), res);
    ck_assert(json_is_string(json_object_get(m, "text")));
}

static void expect_count(const vs_import *im, const char *counter, double value, const char *unit)
{
    json_t *m = find(im, counter, -2, -2);
    ck_assert_msg(m != NULL, "no %s", counter);
    ck_assert(json_is_null(json_object_get(m, "peak_bytes")));
    ck_assert_msg(json_number_value(json_object_get(m, "value")) == value, "%s: %g, not %g",
                  counter, json_number_value(json_object_get(m, "value")), value);
    ck_assert_str_eq(json_string_value(json_object_get(m, "unit")), unit);
}

static const vs_importer *imp(const char *name)
{
    const vs_importer *i = vs_importer_find(name);
    ck_assert_ptr_nonnull(i);
    return i;
}

/* ------------------------------------------------------------------ vLLM */

/* https://github.com/vllm-project/vllm/issues/10517 (vLLM 0.6, RTX 3090,
 * Llama-3.1-8B): the V0 one-line form and "Loading model weights took X GB",
 * whose figure is GiB (model_runner.py divides by 2**30). The issue's text
 * lost the "#" of "# GPU blocks" on one line: both forms are read. */
START_TEST(vllm_v0_one_line)
{
    vs_import im;
    ck_assert_int_eq(vs_import_init(&im), 0);
    im.run_key = "log";
    ck_assert_int_eq(
        feed(imp("vllm"), &im,
             "Loading model weights took 14.9888 GB\n"
             "Memory profiling results: total_gpu_memory=23.58GiB initial_memory_usage=15.34GiB "
             "peak_torch_memory=17.06GiB memory_usage_post_profile=15.35GiB "
             "non_torch_memory=0.35GiB kv_cache_size=3.81GiB gpu_memory_utilization=0.90\n"
             "GPU blocks: 1952, # CPU blocks: 2048\n"
             "Maximum concurrency for 20000 tokens per request: 1.56x\n",
             NULL),
        0);
    /* 14.9888 x 2^30 = 16094101451.6 -> 16094101452; resolution 0.00005 GiB =
     * 2^30 / 20000 = 53687.09 -> 53687 */
    expect_bytes(&im, "vllm.model_weights", -1, -1, 16094101452LL, 53687);
    /* 3.81 x 2^30 = 4090956349.44 -> 4090956349; 0.005 GiB = 5368709.12 */
    expect_bytes(&im, "vllm.kv_cache_memory", -1, -1, 4090956349LL, 5368709);
    /* 0.35 x 2^30 = 375809638.4; 23.58 x 2^30 = 25318832209.92 */
    expect_bytes(&im, "vllm.non_torch_memory", -1, -1, 375809638LL, 5368709);
    expect_bytes(&im, "vllm.total_gpu_memory", -1, -1, 25318832210LL, 5368709);
    expect_count(&im, "vllm.gpu_memory_utilization", 0.90, "fraction");
    expect_count(&im, "vllm.gpu_blocks", 1952, "blocks");
    expect_count(&im, "vllm.cpu_blocks", 2048, "blocks");
    expect_count(&im, "vllm.tokens_per_request", 20000, "tokens");
    expect_count(&im, "vllm.max_concurrency", 1.56, "x");
    ck_assert_str_eq(
        json_string_value(json_object_get(find(&im, "vllm.model_weights", -1, -1), "text")),
        "Loading model weights took 14.9888 GB");
    vs_import_clear(&im);
}
END_TEST

/* https://github.com/vllm-project/vllm/pull/10511 (0.6.5): the block form;
 * https://github.com/vllm-project/vllm/pull/12126 (0.7): the one-line
 * breakdown and "# CUDA blocks";
 * https://github.com/kubernetes-sigs/gateway-api-inference-extension/pull/550:
 * "# cuda blocks" in lower case (0.8). */
START_TEST(vllm_v0_block_and_breakdown)
{
    vs_import im;
    ck_assert_int_eq(vs_import_init(&im), 0);
    im.run_key = "log";
    ck_assert_int_eq(
        feed(imp("vllm"), &im,
             "INFO 12-13 19:54:18 worker.py:243] Memory profiling results:\n"
             "INFO 12-13 19:54:18 worker.py:243] duration     0.75 seconds\n"
             "INFO 12-13 19:54:18 worker.py:243] total_gpu_memory     79.22GiB\n"
             "INFO 12-13 19:54:18 worker.py:243] gpu_memory_utilization       0.90\n"
             "INFO 12-13 19:54:18 worker.py:243] the current vLLM instance can use    71.29GiB\n"
             "INFO 12-13 19:54:18 worker.py:243] model weights take   14.96GiB\n"
             "INFO 12-13 19:54:18 worker.py:243] non_torch_memory     1.79GiB\n"
             "INFO 12-13 19:54:18 worker.py:243] PyTorch activation peak memory       1.26GiB\n"
             "INFO 12-13 19:54:18 worker.py:243] available_kv_cache_memory    53.29GiB\n",
             NULL),
        0);
    /* 79.22 x 2^30 = 85061827297.28; 71.29 x 2^30 = 76547054632.96;
     * 14.96 x 2^30 = 16063177687.04; 1.79 x 2^30 = 1921997864.96;
     * 1.26 x 2^30 = 1352914698.24; 53.29 x 2^30 = 57219701800.96 */
    expect_bytes(&im, "vllm.total_gpu_memory", -1, -1, 85061827297LL, 5368709);
    expect_bytes(&im, "vllm.usable_memory", -1, -1, 76547054633LL, 5368709);
    expect_bytes(&im, "vllm.model_weights", -1, -1, 16063177687LL, 5368709);
    expect_bytes(&im, "vllm.non_torch_memory", -1, -1, 1921997865LL, 5368709);
    expect_bytes(&im, "vllm.activation_peak", -1, -1, 1352914698LL, 5368709);
    expect_bytes(&im, "vllm.kv_cache_memory", -1, -1, 57219701801LL, 5368709);
    vs_import_clear(&im);

    ck_assert_int_eq(vs_import_init(&im), 0);
    im.run_key = "log";
    ck_assert_int_eq(
        feed(
            imp("vllm"), &im,
            "INFO 01-16 09:40:00 worker.py:238] the current vLLM instance can use total_gpu_memory "
            "(79.22GiB) x gpu_memory_utilization (0.90) = 71.29GiB\n"
            "INFO 01-16 09:40:00 worker.py:238] model weights take 19.86GiB; non_torch_memory "
            "takes "
            "0.16GiB; PyTorch activation peak memory takes 36.63GiB; the rest of the memory "
            "reserved for KV Cache is 14.65GiB.\n"
            "INFO 01-16 09:40:00 executor_base.py:95] # CUDA blocks: 6001, # CPU blocks: 1638\n",
            NULL),
        0);
    expect_bytes(&im, "vllm.usable_memory", -1, -1, 76547054633LL, 5368709);
    expect_bytes(&im, "vllm.total_gpu_memory", -1, -1, 85061827297LL, 5368709);
    /* 19.86 x 2^30 = 21324512624.64; 0.16 x 2^30 = 171798691.84;
     * 36.63 x 2^30 = 39331163013.12; 14.65 x 2^30 = 15730317721.6 */
    expect_bytes(&im, "vllm.model_weights", -1, -1, 21324512625LL, 5368709);
    expect_bytes(&im, "vllm.non_torch_memory", -1, -1, 171798692LL, 5368709);
    expect_bytes(&im, "vllm.activation_peak", -1, -1, 39331163013LL, 5368709);
    expect_bytes(&im, "vllm.kv_cache_memory", -1, -1, 15730317722LL, 5368709);
    expect_count(&im, "vllm.gpu_blocks", 6001, "blocks");
    expect_count(&im, "vllm.cpu_blocks", 1638, "blocks");
    vs_import_clear(&im);

    ck_assert_int_eq(vs_import_init(&im), 0);
    im.run_key = "log";
    ck_assert_int_eq(feed(imp("vllm"), &im,
                          "INFO 03-21 20:15:46 [executor_base.py:111] # cuda blocks: 7191, # CPU "
                          "blocks: 512\n",
                          NULL),
                     0);
    expect_count(&im, "vllm.gpu_blocks", 7191, "blocks");
    vs_import_clear(&im);
}
END_TEST

/* Worker ranks: https://github.com/vllm-project/vllm/pull/14447 (4 workers of
 * one TP group printing the same breakdown, "(VllmWorkerProcess pid=N)": no
 * rank, merged); https://github.com/gpustack/runner/pull/251 ("(Worker_TP0
 * pid=447)": rank 0). */
START_TEST(vllm_workers)
{
    vs_import im;
    ck_assert_int_eq(vs_import_init(&im), 0);
    im.run_key = "log";
    ck_assert_int_eq(
        feed(imp("vllm"), &im,
             "(VllmWorkerProcess pid=521) INFO 04-12 08:21:19 [worker.py:267] model weights take "
             "21.21GiB; non_torch_memory takes 0.20GiB; PyTorch activation peak memory takes "
             "0.37GiB; the rest of the memory reserved for KV Cache is 1.57GiB.\n"
             "(VllmWorkerProcess pid=507) INFO 04-12 08:21:19 [worker.py:267] the current vLLM "
             "instance can use total_gpu_memory (23.58GiB) x gpu_memory_utilization (0.99) = "
             "23.35GiB\n"
             "(VllmWorkerProcess pid=507) INFO 04-12 08:21:19 [worker.py:267] model weights take "
             "21.21GiB; non_torch_memory takes 0.20GiB; PyTorch activation peak memory takes "
             "0.37GiB; the rest of the memory reserved for KV Cache is 1.57GiB.\n"
             "(Worker_TP0 pid=447) INFO 08-14 14:07:22 [gpu_worker.py:563] Available KV cache "
             "memory: 6.87 GiB\n",
             NULL),
        0);
    /* 21.21 x 2^30 = 22774064087.04; 0.20 x 2^30 = 214748364.8;
     * 0.37 x 2^30 = 397284474.88; 1.57 x 2^30 = 1685774663.68;
     * 23.35 x 2^30 = 25071871590.4; 6.87 x 2^30 = 7376606330.88 */
    expect_bytes(&im, "vllm.model_weights", -1, -1, 22774064087LL, 5368709);
    expect_bytes(&im, "vllm.non_torch_memory", -1, -1, 214748365LL, 5368709);
    expect_bytes(&im, "vllm.activation_peak", -1, -1, 397284475LL, 5368709);
    expect_bytes(&im, "vllm.kv_cache_memory", -1, -1, 1685774664LL, 5368709);
    expect_bytes(&im, "vllm.usable_memory", -1, -1, 25071871590LL, 5368709);
    expect_count(&im, "vllm.gpu_memory_utilization", 0.99, "fraction");
    expect_bytes(&im, "vllm.kv_cache_memory", -1, 0, 7376606331LL, 5368709);
    vs_import_clear(&im);
    /* a seven-digit rank is read whole (it was cut to its first six digits) */
    ck_assert_int_eq(vs_import_init(&im), 0);
    im.run_key = "log";
    ck_assert_int_eq(feed(imp("vllm"), &im,
                          "(VllmWorker rank=1234567 pid=9) INFO Available KV cache memory: 6.87 "
                          "GiB\n",
                          NULL),
                     0);
    expect_bytes(&im, "vllm.kv_cache_memory", -1, 1234567, 7376606331LL, 5368709);
    vs_import_clear(&im);
}
END_TEST

/* V1: https://github.com/vllm-project/vllm/pull/17122 (L40S, Llama-3.1-8B),
 * https://github.com/LMCache/LMCache/issues/1739 (Qwen3-14B),
 * https://github.com/vllm-project/vllm/pull/13596 ("2,042,016 tokens",
 * "997.08x"); CUDA graphs: https://github.com/vllm-project/vllm/pull/11349. */
START_TEST(vllm_v1)
{
    vs_import im;
    ck_assert_int_eq(vs_import_init(&im), 0);
    im.run_key = "log";
    ck_assert_int_eq(
        feed(imp("vllm"), &im,
             "INFO 04-24 16:33:00 [gpu_model_runner.py:1316] Model loading took 14.9889 GiB and "
             "3.652170 seconds\n"
             "INFO 04-24 16:33:13 [kv_cache_utils.py:634] GPU KV cache size: 158,656 tokens\n"
             "INFO 04-24 16:33:13 [kv_cache_utils.py:637] Maximum concurrency for 32,768 tokens "
             "per request: 4.84x\n"
             "(EngineCore_DP0 pid=1133552) INFO 10-03 16:22:17 [gpu_worker.py:298] Available KV "
             "cache memory: 6.51 GiB\n"
             "INFO 12-19 22:58:41 model_runner.py:1535] Graph capturing finished in 14 secs, took "
             "0.21 GiB\n",
             NULL),
        0);
    /* 14.9889 x 2^30 = 16094208825.96 -> 16094208826, resolution 53687 */
    expect_bytes(&im, "vllm.model_weights", -1, -1, 16094208826LL, 53687);
    expect_count(&im, "vllm.kv_cache_tokens", 158656, "tokens");
    expect_count(&im, "vllm.tokens_per_request", 32768, "tokens");
    expect_count(&im, "vllm.max_concurrency", 4.84, "x");
    /* 6.51 x 2^30 = 6990059274.24; 0.21 x 2^30 = 225485783.04 */
    expect_bytes(&im, "vllm.kv_cache_memory", -1, -1, 6990059274LL, 5368709);
    expect_bytes(&im, "vllm.cuda_graph_memory", -1, -1, 225485783LL, 5368709);
    ck_assert_str_eq(
        json_string_value(json_object_get(find(&im, "vllm.kv_cache_tokens", -2, -2), "text")),
        "GPU KV cache size: 158,656 tokens");
    vs_import_clear(&im);

    ck_assert_int_eq(vs_import_init(&im), 0);
    im.run_key = "log";
    ck_assert_int_eq(feed(imp("vllm"), &im,
                          "INFO 02-19 23:56:55 kv_cache_utils.py:524] GPU KV cache size: "
                          "2,042,016 tokens\n"
                          "INFO 02-19 23:56:55 kv_cache_utils.py:527] Maximum concurrency for "
                          "2,048 tokens per request: 997.08x\n",
                          NULL),
                     0);
    expect_count(&im, "vllm.kv_cache_tokens", 2042016, "tokens");
    expect_count(&im, "vllm.max_concurrency", 997.08, "x");
    vs_import_clear(&im);
}
END_TEST

/* The figure before its name: https://github.com/vllm-project/vllm-ascend/pull/8289
 * ("Actual usage: 1.14 GiB for weights, ..."); the CUDA graph estimate of
 * vLLM 0.27: https://github.com/gpustack/runner/pull/251. */
START_TEST(vllm_actual_usage)
{
    vs_import im;
    ck_assert_int_eq(vs_import_init(&im), 0);
    im.run_key = "log";
    ck_assert_int_eq(
        feed(imp("vllm"), &im,
             "(EngineCore pid=2884597) INFO 04-15 06:30:01 [worker.py:575] Free memory on device "
             "(60.86/61.27 GiB) on startup. Desired GPU memory utilization is (0.9, 55.14 GiB). "
             "Actual usage: 1.14 GiB for weights, 0.22 GiB for peak activation, 0.13 GiB for "
             "non-torch memory, 0.04 GiB for NPU graph memory. Replace gpu_memory_utilization "
             "with `--kv-cache-memory=57403864576` (53.46 GiB) to fit in\n"
             "(Worker_TP1 pid=448) INFO 08-14 14:07:22 [gpu_model_runner.py:6806] Estimated CUDA "
             "graph memory: 0.36 GiB total\n",
             NULL),
        0);
    /* 1.14 x 2^30 = 1224065679.36; 0.22 x 2^30 = 236223201.28;
     * 0.13 x 2^30 = 139586437.12; 0.04 x 2^30 = 42949672.96;
     * 0.36 x 2^30 = 386547056.64 */
    expect_bytes(&im, "vllm.model_weights", -1, -1, 1224065679LL, 5368709);
    expect_bytes(&im, "vllm.activation_peak", -1, -1, 236223201LL, 5368709);
    expect_bytes(&im, "vllm.non_torch_memory", -1, -1, 139586437LL, 5368709);
    expect_bytes(&im, "vllm.cuda_graph_memory", -1, -1, 42949673LL, 5368709);
    expect_bytes(&im, "vllm.cuda_graph_memory_estimate", -1, 1, 386547057LL, 5368709);
    ck_assert_str_eq(
        json_string_value(json_object_get(find(&im, "vllm.non_torch_memory", -1, -1), "text")),
        "0.13 GiB for non-torch memory");
    vs_import_clear(&im);
}
END_TEST

/* ------------------------------------------------------------- llama.cpp */

/* https://github.com/mozilla-ai/llamafile/pull/552 (RTX 4080, older names);
 * https://github.com/ggml-org/llama.cpp/pull/6122 (two GPUs);
 * https://github.com/ollama/ollama/issues/10114 ("CUDA0 model buffer size",
 * "CPU_Mapped"); https://github.com/ggml-org/llama.cpp/issues/27680
 * ("llama_kv_cache: CUDA0 KV buffer size", colour codes before it). */
START_TEST(llamacpp_buffers)
{
    vs_import im;
    ck_assert_int_eq(vs_import_init(&im), 0);
    im.run_key = "log";
    ck_assert_int_eq(
        feed(imp("llamacpp"), &im,
             "llm_load_tensors:        CPU buffer size =   297.00 MiB\n"
             "llm_load_tensors:      CUDA0 buffer size =  7317.71 MiB\n"
             "llama_kv_cache_init:      CUDA0 KV buffer size =   180.00 MiB\n"
             "llama_new_context_with_model: KV self size  =  180.00 MiB, K (f16):   90.00 MiB, V "
             "(f16):   90.00 MiB\n"
             "llama_new_context_with_model:  CUDA_Host  output buffer size =     0.19 MiB\n"
             "llama_new_context_with_model:      CUDA0 compute buffer size =   105.00 MiB\n"
             "llm_load_tensors:      CUDA1 buffer size = 13989.53 MiB\n"
             "llama_kv_cache_init:      CUDA1 KV buffer size =  3584.00 MiB\n",
             NULL),
        0);
    /* 7317.71 x 2^20 = 7673175080.96 -> 7673175081; 0.005 MiB = 5242.88 -> 5243 */
    expect_bytes(&im, "llamacpp.model_buffer", 0, -1, 7673175081LL, 5243);
    expect_bytes(&im, "llamacpp.kv_buffer", 0, -1, 180LL * 1048576, 5243);
    expect_bytes(&im, "llamacpp.compute_buffer", 0, -1, 105LL * 1048576, 5243);
    /* 297.00 MiB on the CPU; 0.19 MiB = 199229.44 on CUDA_Host */
    expect_bytes(&im, "llamacpp.CPU.model_buffer", -1, -1, 297LL * 1048576, 5243);
    expect_bytes(&im, "llamacpp.CUDA_Host.output_buffer", -1, -1, 199229, 5243);
    /* 13989.53 x 2^20 = 14669085409.28 */
    expect_bytes(&im, "llamacpp.model_buffer", 1, -1, 14669085409LL, 5243);
    expect_bytes(&im, "llamacpp.kv_buffer", 1, -1, 3584LL * 1048576, 5243);
    vs_import_clear(&im);

    ck_assert_int_eq(vs_import_init(&im), 0);
    im.run_key = "log";
    ck_assert_int_eq(
        feed(imp("llamacpp"), &im,
             "load_tensors:        CUDA0 model buffer size =   577.22 MiB\n"
             "load_tensors:   CPU_Mapped model buffer size =   520.30 MiB\n"
             "\x1b[34m1.14.610.021\x1b[0m \x1b[32mI \x1b[0mllama_kv_cache:      CUDA0 KV buffer "
             "size =   182.75 MiB\n",
             NULL),
        0);
    /* 577.22 x 2^20 = 605259038.72; 520.30 x 2^20 = 545574092.8;
     * 182.75 x 2^20 = 191627264 */
    expect_bytes(&im, "llamacpp.model_buffer", 0, -1, 605259039LL, 5243);
    expect_bytes(&im, "llamacpp.CPU_Mapped.model_buffer", -1, -1, 545574093LL, 5243);
    expect_bytes(&im, "llamacpp.kv_buffer", 0, -1, 191627264LL, 5243);
    vs_import_clear(&im);
}
END_TEST

/* The breakdown at exit: https://github.com/ggml-org/llama.cpp/issues/19437
 * (GTX 1080 Ti; its unaccounted column is a size_t wrap, 17592186036877 MiB,
 * which is not kept; and self 10001 is not 9814 + 134 + 51 = 9999: each
 * figure is truncated to whole MiB on its own, so self may exceed the sum of
 * its three parts by up to 2); https://github.com/ggml-org/llama.cpp/pull/22673 (a
 * negative unaccounted); https://github.com/ggml-org/llama.cpp/pull/15860 (the
 * first form, without the table's bars). */
START_TEST(llamacpp_breakdown)
{
    vs_import im;
    ck_assert_int_eq(vs_import_init(&im), 0);
    im.run_key = "log";
    ck_assert_int_eq(
        feed(imp("llamacpp"), &im,
             "llama_memory_breakdown_print: | memory breakdown [MiB]  | total   free     self   "
             "model   context   compute       unaccounted |\n"
             "llama_memory_breakdown_print: |   - CUDA0 (GTX 1080 Ti) | 11165 = 8702 + (10001 =  "
             "9814 +     134 +      51) + 17592186036877 |\n"
             "llama_memory_breakdown_print: |   - Host                |                   197 =  "
             " 166 +       0 +      30                   |\n",
             NULL),
        0);
    expect_bytes(&im, "llamacpp.total", 0, -1, 11165LL * 1048576, 524288);
    expect_bytes(&im, "llamacpp.free", 0, -1, 8702LL * 1048576, 524288);
    expect_bytes(&im, "llamacpp.self", 0, -1, 10001LL * 1048576, 524288);
    expect_bytes(&im, "llamacpp.model", 0, -1, 9814LL * 1048576, 524288);
    expect_bytes(&im, "llamacpp.context", 0, -1, 134LL * 1048576, 524288);
    expect_bytes(&im, "llamacpp.compute", 0, -1, 51LL * 1048576, 524288);
    expect_bytes(&im, "llamacpp.Host.self", -1, -1, 197LL * 1048576, 524288);
    expect_bytes(&im, "llamacpp.Host.model", -1, -1, 166LL * 1048576, 524288);
    expect_bytes(&im, "llamacpp.Host.compute", -1, -1, 30LL * 1048576, 524288);
    ck_assert_str_eq(
        json_string_value(json_object_get(find(&im, "llamacpp.model", 0, -1), "gpu_name")),
        "CUDA0");
    vs_import_clear(&im);

    ck_assert_int_eq(vs_import_init(&im), 0);
    im.run_key = "log";
    ck_assert_int_eq(
        feed(imp("llamacpp"), &im,
             "common_memory_breakdown_print: |   - CUDA0 (RTX 2000 Ada Generation Laptop GPU) |  "
             "7807 = 7627 + ( 5658 =  2542 +    2622 +     493) +       -5478 |\n"
             "llama_print_memory_breakdown:   - CUDA1 (RTX 4090):  24080 = 9868 + (13756 = 13169 "
             "+      38 +     548) +         456\n",
             NULL),
        0);
    expect_bytes(&im, "llamacpp.self", 0, -1, 5658LL * 1048576, 524288);
    expect_bytes(&im, "llamacpp.context", 0, -1, 2622LL * 1048576, 524288);
    expect_bytes(&im, "llamacpp.model", 1, -1, 13169LL * 1048576, 524288);
    vs_import_clear(&im);
}
END_TEST

/* A model with sliding-window layers prints one KV buffer per cache
 * (llama_kv_cache_iswa, src/llama-kv-cache-iswa.cpp at llama.cpp 0c1e570): the
 * lines llama.cpp printed for Laguna at 1M context, q4_0 K/V, as
 * raketenkater/ggrun keeps them (pkg/placement, lagunaKVLog): 13824.00 + 40.50 =
 * 13864.50 MiB on the CPU, 14,537,981,952 B. A compute buffer closes the context:
 * the next context's caches start a new sum (and the larger is kept). */
START_TEST(llamacpp_iswa_kv_summed)
{
    vs_import im;
    ck_assert_int_eq(vs_import_init(&im), 0);
    im.run_key = "log";
    ck_assert_int_eq(
        feed(imp("llamacpp"), &im,
             "0.48.540.324 I llama_kv_cache_iswa: creating non-SWA KV cache, size = 1048576 cells\n"
             "0.48.547.909 I llama_kv_cache:        CPU KV buffer size = 13824.00 MiB\n"
             "0.49.565.811 I llama_kv_cache: size = 13824.00 MiB (1048576 cells,  12 layers,  "
             "1/1 seqs), K (q4_0): 6912.00 MiB, V (q4_0): 6912.00 MiB\n"
             "0.49.565.836 I llama_kv_cache_iswa: creating     SWA KV cache, size = 1024 cells\n"
             "0.49.565.927 I llama_kv_cache:        CPU KV buffer size =    40.50 MiB\n"
             "0.49.569.136 I llama_kv_cache: size =   40.50 MiB (  1024 cells,  36 layers,  "
             "1/1 seqs), K (q4_0):   20.25 MiB, V (q4_0):   20.25 MiB\n"
             "llama_context:        CPU compute buffer size =   509.00 MiB\n"
             "llama_kv_cache:        CPU KV buffer size =   416.00 MiB\n",
             NULL),
        0);
    /* 13864.50 x 2^20; two figures printed to 0.005 MiB: 2 x 5243 */
    expect_bytes(&im, "llamacpp.CPU.kv_buffer", -1, -1, 14537981952LL, 10486);
    vs_import_clear(&im);
}
END_TEST

/* Metal: "Metal" and its mapped model buffer are Apple's one GPU (ggml-org/ci, the
 * llama.cpp CI log of build 4658 (855cd073) on ggml-100-mac-m4, bge-small):
 * 40.73 MiB mapped for the GPU, 23.11 MiB CPU_Mapped, 9.00 MiB of KV on Metal;
 * newer builds name the device MTL0 (MTL0_Mapped). */
START_TEST(llamacpp_metal_mapped)
{
    vs_import im;
    ck_assert_int_eq(vs_import_init(&im), 0);
    im.run_key = "log";
    ck_assert_int_eq(
        feed(imp("llamacpp"), &im,
             "0.00.045.180 I load_tensors: Metal_Mapped model buffer size =    40.73 MiB\n"
             "0.00.045.182 I load_tensors:   CPU_Mapped model buffer size =    23.11 MiB\n"
             "0.00.063.233 I llama_kv_cache_init:      Metal KV buffer size =     9.00 MiB\n"
             "0.00.064.433 I llama_init_from_model:      Metal compute buffer size =    16.00 "
             "MiB\n"
             "load_tensors:  MTL1_Mapped model buffer size = 11536.18 MiB\n",
             NULL),
        0);
    /* 40.73 x 2^20 = 42708500.48 -> 42708500; 23.11 x 2^20 = 24232591.36 */
    expect_bytes(&im, "llamacpp.model_buffer", 0, -1, 42708500LL, 5243);
    expect_bytes(&im, "llamacpp.CPU_Mapped.model_buffer", -1, -1, 24232591LL, 5243);
    expect_bytes(&im, "llamacpp.kv_buffer", 0, -1, 9LL * 1048576, 5243);
    expect_bytes(&im, "llamacpp.compute_buffer", 0, -1, 16LL * 1048576, 5243);
    /* 11536.18 x 2^20 = 12096561479.68 */
    expect_bytes(&im, "llamacpp.model_buffer", 1, -1, 12096561480LL, 5243);
    vs_import_clear(&im);
}
END_TEST

/* A build with --fit prints the breakdown while it projects at start-up
 * (common/fit.cpp, between "fitting params to device memory" and "fitting params
 * to free memory took") and again at exit: the first is phase load, the second
 * exit. The first row as ollama/ollama#17482 printed it (RTX 3090). */
START_TEST(llamacpp_fit_projection_is_load)
{
    vs_import im;
    json_t *m;
    size_t i;
    int load = 0, exit_ = 0;
    ck_assert_int_eq(vs_import_init(&im), 0);
    im.run_key = "log";
    ck_assert_int_eq(
        feed(imp("llamacpp"), &im,
             "common_init_result: fitting params to device memory ...\n"
             "common_params_fit_impl: getting device memory data for initial parameters:\n"
             "common_memory_breakdown_print: |   - CUDA0 (RTX 3090)   | 24124 = 23860 + (15946 = "
             "15364 +     411 +     170) +      -15681 |\n"
             "common_fit_params: fitting params to free memory took 0.52 seconds\n"
             "load_tensors:        CUDA0 model buffer size = 15364.20 MiB\n"
             "common_memory_breakdown_print: |   - CUDA0 (RTX 3090)   | 24124 =  7900 + (15946 = "
             "15364 +     411 +     170) +         278 |\n",
             NULL),
        0);
    json_array_foreach(im.items, i, m)
    {
        const char *c = json_string_value(json_object_get(m, "counter"));
        const char *ph = json_string_value(json_object_get(m, "phase"));
        if (strcmp(c, "llamacpp.free"))
            continue;
        if (!strcmp(ph, "load")) {
            ck_assert_int_eq(json_integer_value(json_object_get(m, "peak_bytes")), 23860LL << 20);
            load = 1;
        } else if (!strcmp(ph, "exit")) {
            ck_assert_int_eq(json_integer_value(json_object_get(m, "peak_bytes")), 7900LL << 20);
            exit_ = 1;
        }
    }
    ck_assert(load && exit_);
    vs_import_clear(&im);
}
END_TEST

/* ------------------------------------------------------------- torchtune */

/* The GiB form: torchtune's end-to-end tutorial (docs/source/tutorials/
 * e2e_flow.rst, https://pytorch.org/torchtune/main/tutorials/e2e_flow.html);
 * the dict form in GB of 1e9: torchtune's README and distributed tutorial
 * ("{'peak_memory_active': 9.478172672, ...}"); step lines:
 * https://github.com/meta-pytorch/torchtune/pull/2406. */
START_TEST(torchtune_stats)
{
    vs_import im;
    ck_assert_int_eq(vs_import_init(&im), 0);
    im.run_key = "log";
    ck_assert_int_eq(feed(imp("torchtune"), &im,
                          "    Memory stats after model init:\n"
                          "            GPU peak memory allocation: 6.21 GiB\n"
                          "            GPU peak memory reserved: 6.27 GiB\n"
                          "            GPU peak memory active: 6.21 GiB\n",
                          NULL),
                     0);
    /* 6.21 x 2^30 = 6667936727.04; 6.27 x 2^30 = 6732361236.48 */
    expect_bytes(&im, "torchtune.peak_memory_alloc", -1, -1, 6667936727LL, 5368709);
    expect_bytes(&im, "torchtune.peak_memory_reserved", -1, -1, 6732361236LL, 5368709);
    expect_bytes(&im, "torchtune.peak_memory_active", -1, -1, 6667936727LL, 5368709);
    ck_assert_str_eq(json_string_value(json_object_get(
                         find(&im, "torchtune.peak_memory_reserved", -1, -1), "scope")),
                     "allocator");
    vs_import_clear(&im);

    ck_assert_int_eq(vs_import_init(&im), 0);
    im.run_key = "log";
    ck_assert_int_eq(feed(imp("torchtune"), &im,
                          "INFO:torchtune.utils.logging:Memory Stats after model init:\n"
                          "{'peak_memory_active': 9.478172672, 'peak_memory_alloc': 8.953868288, "
                          "'peak_memory_reserved': 11.112808448}\n",
                          NULL),
                     0);
    /* GB of 1e9, nine decimals: exact bytes, resolution 0.0000000005 GB = 0.5 -> 1 */
    expect_bytes(&im, "torchtune.peak_memory_active", -1, -1, 9478172672LL, 1);
    expect_bytes(&im, "torchtune.peak_memory_alloc", -1, -1, 8953868288LL, 1);
    expect_bytes(&im, "torchtune.peak_memory_reserved", -1, -1, 11112808448LL, 1);
    vs_import_clear(&im);

    ck_assert_int_eq(vs_import_init(&im), 0);
    im.run_key = "log";
    ck_assert_int_eq(
        feed(
            imp("torchtune"), &im,
            "Step 1 | loss:2.4555773735046387 lr:2e-05 tokens_per_second_per_gpu:46.73149108886719 "
            "peak_memory_active:47.32469987869263 peak_memory_alloc:52.001708984375 "
            "peak_memory_reserved:52.001708984375 \n"
            "Step 2 | loss:1.4622046947479248 lr:2e-05 tokens_per_second_per_gpu:45.71133041381836 "
            "peak_memory_active:47.32469987869263 peak_memory_alloc:53.99104309082031 "
            "peak_memory_reserved:53.99104309082031 \n",
            NULL),
        0);
    /* the largest step kept: 53.99104309082031 GiB. 53.99104309082031 x 2^30 =
     * 57972441088.0 (bytes / 2^30 printed by Python's repr: exact to the byte);
     * resolution 2^30 / (2 x 10^14) = 0.0000054 -> 0 */
    expect_bytes(&im, "torchtune.peak_memory_alloc", -1, -1, 57972441088LL, 0);
    /* 47.32469987869263 x 2^30 = 50814509568.00 */
    expect_bytes(&im, "torchtune.peak_memory_active", -1, -1, 50814509568LL, 0);
    ck_assert_str_eq(json_string_value(json_object_get(
                         find(&im, "torchtune.peak_memory_alloc", -1, -1), "phase")),
                     "train");
    vs_import_clear(&im);
}
END_TEST

/* ------------------------------------------------------------ nvidia-smi */

/* The header and units nvidia-smi prints for --query-gpu (nvidia-smi
 * --help-query-gpu); 81559 MiB is an H100 80GB HBM3's total as nvidia-smi
 * reports it, the row as quoted with `nvidia-smi --query-gpu=index,name,uuid,
 * ...` in public notes; csv,noheader,nounits gives bare numbers. */
START_TEST(nvsmi_csv)
{
    vs_import im;
    json_t *run;
    ck_assert_int_eq(vs_import_init(&im), 0);
    im.run_key = "log";
    ck_assert_int_eq(feed(imp("nvidia-smi"), &im,
                          "index, name, memory.total [MiB], memory.used [MiB]\n"
                          "0, NVIDIA H100 80GB HBM3, 81559 MiB, 412 MiB\n"
                          "1, NVIDIA H100 80GB HBM3, 81559 MiB, 18560 MiB\n"
                          "1, NVIDIA H100 80GB HBM3, 81559 MiB, 9000 MiB\n",
                          NULL),
                     0);
    /* 81559 x 2^20 = 85520809984; resolution half a MiB */
    expect_bytes(&im, "nvidia-smi.memory.total", 0, -1, 85520809984LL, 524288);
    expect_bytes(&im, "nvidia-smi.memory.used", 0, -1, 412LL * 1048576, 524288);
    expect_bytes(&im, "nvidia-smi.memory.used", 1, -1, 18560LL * 1048576, 524288);
    run = json_object_get(im.runs, "log");
    ck_assert_uint_eq(json_array_size(json_object_get(run, "gpus")), 2);
    ck_assert_str_eq(json_string_value(json_object_get(
                         json_array_get(json_object_get(run, "gpus"), 0), "total_basis")),
                     "nvidia-smi");
    vs_import_clear(&im);

    ck_assert_int_eq(vs_import_init(&im), 0);
    im.run_key = "log";
    ck_assert_int_eq(feed(imp("nvidia-smi"), &im,
                          "index, name, memory.total [MiB], memory.used [MiB]\n"
                          "0, NVIDIA H100 80GB HBM3, 81559, 412\n",
                          NULL),
                     0);
    expect_bytes(&im, "nvidia-smi.memory.used", 0, -1, 412LL * 1048576, 524288);
    vs_import_clear(&im);

    ck_assert_int_eq(vs_import_init(&im), 0);
    im.run_key = "log";
    ck_assert_int_eq(
        feed(imp("nvidia-smi"), &im, "0, NVIDIA H100 80GB HBM3, 81559 MiB, 412 MiB\n", NULL), 0);
    expect_bytes(&im, "nvidia-smi.memory.total", 0, -1, 85520809984LL, 524288);
    vs_import_clear(&im);
}
END_TEST

/* ----------------------------------------------------------------- torch */

/* json.dump(torch.cuda.memory_stats(), f): the keys are those PyTorch
 * documents for torch.cuda.memory_stats (https://pytorch.org/docs/stable/
 * generated/torch.cuda.memory_stats.html; an OrderedDict of them is printed in
 * https://github.com/ROCm/pytorch/issues/703). Exact bytes, resolution 0. */
START_TEST(torch_dump)
{
    vs_import im;
    ck_assert_int_eq(vs_import_init(&im), 0);
    im.run_key = "log";
    ck_assert_int_eq(feed(imp("torch"), &im,
                          "{\n"
                          "  \"active.all.peak\": 412,\n"
                          "  \"active_bytes.all.peak\": 16106127360,\n"
                          "  \"allocated_bytes.all.current\": 15032385536,\n"
                          "  \"allocated_bytes.all.peak\": 16106127360,\n"
                          "  \"num_alloc_retries\": 0,\n"
                          "  \"num_ooms\": 1,\n"
                          "  \"reserved_bytes.all.peak\": 17179869184\n"
                          "}\n",
                          NULL),
                     0);
    expect_bytes(&im, "torch.allocated_bytes.all.peak", -1, -1, 16106127360LL, 0);
    expect_bytes(&im, "torch.reserved_bytes.all.peak", -1, -1, 17179869184LL, 0);
    expect_bytes(&im, "torch.active_bytes.all.peak", -1, -1, 16106127360LL, 0);
    expect_count(&im, "torch.num_ooms", 1, "events");
    vs_import_clear(&im);

    /* one object per GPU */
    ck_assert_int_eq(vs_import_init(&im), 0);
    im.run_key = "log";
    ck_assert_int_eq(feed(imp("torch"), &im,
                          "[{\"allocated_bytes.all.peak\": 1024}, {\"allocated_bytes.all.peak\": "
                          "2048}]\n",
                          NULL),
                     0);
    expect_bytes(&im, "torch.allocated_bytes.all.peak", 1, -1, 2048, 0);
    vs_import_clear(&im);
}
END_TEST

/* --------------------------------------------------------- malformed ones */

/* Each variant refused, with the line it is on. */
START_TEST(malformed_refused_with_line)
{
    static const struct {
        const char *format, *text, *needle;
        size_t line;
    } bad[] = {
        {"probe", "{\"type\":\"run\",\"driver\":{\"evil\":[1,2]}}\n", "\"driver\"", 1},
        {"probe", "{\"type\":\"run\"}\n{\"type\":\"run\",\"gpus\":[{\"index\":\"zero\"}]}\n",
         "\"index\"", 2},
        {"probe", "{\"type\":\"run\",\"gpus\":[{\"index\":0,\"total_bytes\":-5}]}\n",
         "\"total_bytes\"", 1},
        {"probe",
         "{\"type\":\"peak\",\"phase\":\"p\",\"counter\":\"c\",\"peak_bytes\":1,\"scope\":"
         "\"dev\\nice\"}\n",
         "control character", 1},
        {"probe",
         "{\"type\":\"peak\",\"phase\":\"p\",\"counter\":\"c\",\"peak_bytes\":1,\"evil\":1}\n",
         "unknown key", 1},
        {"probe", "{\"type\":\"peak\",\"phase\":\"p\",\"counter\":\"c\",\"peak_bytes\":-1}\n",
         "peak_bytes", 1},
        {"probe",
         "{\"type\":\"peak\",\"phase\":\"p\",\"counter\":\"c\",\"peak_bytes\":9223372036854775808}"
         "\n",
         "too big", 1},
        {"probe", "{\"type\":\"magic\"}\n", "unknown \"type\"", 1},
        {"probe", "{\"type\":\"run\",\"gpus\":[{\"index\":0,\"evil\":true}]}\n", "unknown key", 1},
        {"llamacpp",
         "llama_memory_breakdown_print: |   - CUDA0 (X) | 10 = 1 + (9 = 1 + 1 + 1) + 0 |\n",
         "does not add up", 1},
        {"llamacpp",
         "llama_memory_breakdown_print: |   - CUDA0 (X) | 99999999999999 = 1 + (9 = 7 + 1 + 1) + 0 "
         "|\n",
         "beyond 2^63", 1},
        {"llamacpp", "load_tensors: CUDA0 model buffer size = 99999999999999999 MiB\n",
         "beyond 2^63", 1},
        {"torchtune", "ok\n  GPU peak memory allocation: lots\n", "needs a figure", 2},
        {"nvidia-smi",
         "index, name, memory.total [MiB], memory.used [MiB]\nzero, X, 1 MiB, 1 MiB\n", "\"index\"",
         2},
        {"nvidia-smi", "index, name, memory.total [MiB], memory.used [MiB]\n0, X, 1 MiB, lots\n",
         "figure", 2},
        {"nvidia-smi", "index, name, memory.total, memory.used\n0, X, 1, 2\n", "unit", 2},
        {"nvidia-smi", "index, name, memory.total [MiB]\n0, X\x07Y, 1 MiB\n", "control", 2},
        {"torch", "{\n  \"allocated_bytes.all.peak\": 1,\n  \"reserved_bytes.all.peak\": -4\n}\n",
         "reserved_bytes.all.peak", 3},
        {"torch", "{\n  \"allocated_bytes.all.peak\": \"many\"\n}\n", "allocated_bytes", 2},
        {"torch", "{\n  \"allocated_bytes.all.peak\": 1,\n", "", 3},
        /* vLLM: a rank beyond int32 and figures that cannot be held, each refused
         * on its line instead of cut short or left out */
        {"vllm",
         "INFO Model loading took 1.5 GiB\n(VllmWorker rank=99999999999 pid=1) INFO Model "
         "loading took 1.5 GiB\n",
         "rank is out of range", 2},
        {"vllm", "INFO Model loading took 99999999999999999999 GiB\n", "out of range", 1},
        {"vllm", "INFO Model loading took 9000000000.5 GiB\n", "out of range", 1},
        {"vllm", "INFO x\nINFO GPU KV cache size: 99,999,999,999,999,999,999 tokens\n",
         "out of range", 2},
        {"vllm", "INFO Maximum concurrency for 2,048 tokens per request: 99999999999999999999.5x\n",
         "out of range", 1},
    };
    size_t k;
    for (k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        vs_import im;
        size_t line = 0;
        ck_assert_int_eq(vs_import_init(&im), 0);
        im.run_key = strcmp(bad[k].format, "probe") ? "log" : NULL;
        ck_assert_msg(feed(imp(bad[k].format), &im, bad[k].text, &line) == VS_IMPORT_REFUSED,
                      "%zu accepted", k);
        ck_assert_msg(strstr(im.why, bad[k].needle) != NULL, "%zu: '%s' lacks '%s'", k, im.why,
                      bad[k].needle);
        ck_assert_msg(line == bad[k].line, "%zu: line %zu, not %zu", k, line, bad[k].line);
        vs_import_clear(&im);
    }
}
END_TEST

START_TEST(sniff_first_lines)
{
    static const struct {
        const char *line, *format;
    } s[] = {
        {"{\"type\":\"peak\",\"phase\":\"p\"}", "probe"},
        {"  \"allocated_bytes.all.peak\": 1,", "torch"},
        {"index, name, memory.total [MiB], memory.used [MiB]", "nvidia-smi"},
        {"INFO 04-24 16:33:13 [kv_cache_utils.py:634] GPU KV cache size: 158,656 tokens", "vllm"},
        {"llm_load_tensors:      CUDA0 buffer size =  7317.71 MiB", "llamacpp"},
        {"INFO:torchtune.utils._logging:Memory stats after model init:", "torchtune"},
    };
    size_t k;
    for (k = 0; k < sizeof s / sizeof s[0]; k++) {
        const vs_importer *i = vs_importer_sniff(s[k].line, strlen(s[k].line));
        ck_assert_ptr_nonnull(i);
        ck_assert_str_eq(i->name, s[k].format);
    }
    ck_assert_ptr_null(vs_importer_sniff("hello", 5));
    /* help's order: the syntax `help` lists showed the first six */
    ck_assert_str_eq(vs_importer_names(),
                     "probe|vllm|llamacpp|torchtune|nvidia-smi|torch|sglang|trtllm");
}
END_TEST

/* Every row of the table is found by its name, named in the syntax and
 * offered for format=, and its summary is in `help measure`. */
START_TEST(every_importer_in_the_table)
{
    const vs_verb *v = vs_verb_find("measure");
    vs_bundle *page = vs_verb_help_bundle(v);
    json_t *pj = vs_test_bundle_json(page), *m = NULL;
    const char *text = json_string_value(json_object_get(pj, "text/plain"));
    const char *code = "measure import a.log format=";
    vs_interp *ip = vs_interp_new(NULL);
    const vs_importer *im;
    size_t i, j, start, end;
    char word[64];
    ck_assert_ptr_nonnull(text);
    ck_assert_int_eq(vs_interp_complete(ip, code, strlen(code), &m, &start, &end), 0);
    for (i = 0; (im = vs_importer_at(i)) != NULL; i++) {
        int offered = 0;
        ck_assert_ptr_eq(vs_importer_find(im->name), im);
        ck_assert_ptr_nonnull(im->sniff);
        ck_assert_ptr_nonnull(im->line);
        ck_assert_ptr_nonnull(im->summary);
        ck_assert_msg(strstr(text, im->summary) != NULL, "help measure lacks %s", im->name);
        snprintf(word, sizeof word, "|%s", im->name);
        ck_assert_msg(strstr(v->syntax, word) != NULL, "the syntax lacks %s", im->name);
        for (j = 0; j < json_array_size(m); j++)
            offered |= !strcmp(json_string_value(json_array_get(m, j)), im->name);
        ck_assert_msg(offered, "format= does not offer %s", im->name);
    }
    ck_assert_uint_gt(i, 0);
    ck_assert_uint_eq(json_array_size(m), i + 1); /* and auto */
    json_decref(m);
    json_decref(pj);
    vs_bundle_free(page);
    vs_interp_free(ip);
}
END_TEST

/* ------------------------------------------------- through the interpreter */

static void on_display(void *ctx, const vs_bundle *vb, const char *id, int update)
{
    (void)ctx, (void)vb, (void)id, (void)update;
}
static void on_stream(void *ctx, const char *name, const char *text, size_t len)
{
    (void)ctx, (void)name, (void)text, (void)len;
}

static int exec(vs_interp *ip, const char *code, json_t **payload, vs_error *err)
{
    vs_sink sink;
    json_t *result = NULL;
    int rc;
    memset(&sink, 0, sizeof sink);
    sink.display = on_display;
    sink.stream = on_stream;
    vs_error_clear(err);
    rc = vs_test_execute(ip, code, &sink, &result, err);
    *payload = result ? json_incref(json_object_get(result, VS_MIME_JSON)) : NULL;
    json_decref(result);
    return rc;
}

/* The current sheet (the `sheet` verb's payload is the sheet), as a record. */
static json_t *sheet_now(vs_interp *ip)
{
    json_t *p;
    vs_error err;
    ck_assert_int_eq(exec(ip, "sheet \"imp\"", &p, &err), 0);
    ck_assert_str_eq(json_string_value(json_object_get(p, "kind")), "sheet");
    json_object_del(p, "kind");
    return p;
}

/* Issue 15 item 4: a probe file with a value of the wrong type used to enter
 * the sheet (and the record then could not be read back): each is refused
 * with file and line, and the sheet gains nothing. Then a vLLM log by
 * format=auto: what it adds dumps and loads back. */
/* A figure or not: 0 with the bytes, or 1 (never an error code) when there is
 * none or it overflows. 1.5 MiB is 1572864 bytes, half a tenth of a MiB 52429. */
START_TEST(decimal_contract)
{
    uint64_t bytes = 0, res = 0;
    size_t used = 0;
    ck_assert_int_eq(vs_import_decimal("1.5 MiB", 7, 1048576, 0, &bytes, &res, &used), 0);
    ck_assert_uint_eq(bytes, 1572864);
    ck_assert_uint_eq(res, 52429);
    ck_assert_uint_eq(used, 3);
    ck_assert_int_eq(vs_import_decimal("MiB", 3, 1048576, 0, &bytes, &res, &used), 1);
    ck_assert_int_eq(vs_import_decimal("", 0, 1, 0, &bytes, &res, &used), 1);
    ck_assert_int_eq(
        vs_import_decimal("99999999999", 11, (uint64_t)1 << 40, 0, &bytes, &res, &used),
        1); /* beyond int64 */
}
END_TEST

START_TEST(verb_refuses_and_reads_back)
{
    static const char *const bad[] = {
        "{\"type\":\"run\",\"driver\":{\"evil\":[1,2]},\"gpus\":[]}\n",
        "{\"type\":\"run\",\"gpus\":[{\"index\":\"zero\"}]}\n",
        "{\"type\":\"run\",\"gpus\":[{\"index\":0,\"total_bytes\":-5}]}\n",
        "{\"type\":\"peak\",\"phase\":\"p\",\"gpu\":0,\"counter\":\"c\",\"scope\":\"a\\nb\",\"peak_"
        "bytes\":1}\n",
    };
    vs_interp *ip;
    vs_error err;
    json_t *p, *sheet, *loaded = NULL;
    char path[512], code[1200];
    char *dump;
    size_t k;
    mt_tmpdir();
    mt_path(path, sizeof path, "records");
    setenv("VRAMSHEET_RECORDS", path, 1);
    ip = vs_interp_new(NULL);
    ck_assert_ptr_nonnull(ip);
    ck_assert_int_eq(exec(ip, "sheet \"imp\"", &p, &err), 0);
    json_decref(p);
    for (k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        mt_write(
            "bad.jsonl",
            "{\"type\":\"peak\",\"phase\":\"ok\",\"gpu\":0,\"counter\":\"c\",\"peak_bytes\":1}\n%s",
            bad[k]);
        mt_path(path, sizeof path, "bad.jsonl");
        snprintf(code, sizeof code, "measure import \"%s\"", path);
        ck_assert_int_eq(exec(ip, code, &p, &err), VS_EFORMAT);
        snprintf(code, sizeof code, "%s:2:", path);
        ck_assert_msg(strstr(err.message, code) != NULL, "%s", err.message);
        ck_assert_ptr_nonnull(strstr(err.message, "nothing was imported"));
    }
    sheet = sheet_now(ip);
    ck_assert_uint_eq(json_array_size(json_object_get(sheet, "measurements")), 0);
    ck_assert_uint_eq(json_array_size(json_object_get(sheet, "runs")), 0);
    json_decref(sheet);
    /* a vLLM log, sniffed */
    mt_write("v.log", "INFO x] Model loading took 14.9889 GiB and 3.6 seconds\n"
                      "INFO x] GPU KV cache size: 158,656 tokens\n"
                      "INFO x] Maximum concurrency for 32,768 tokens per request: 4.84x\n");
    mt_path(path, sizeof path, "v.log");
    snprintf(code, sizeof code, "measure import \"%s\" format=auto", path);
    ck_assert_int_eq(exec(ip, code, &p, &err), 0);
    ck_assert_uint_eq(json_array_size(json_object_get(p, "rows")), 4);
    json_decref(p);
    /* compare: the imported weights against a sheet with no estimate */
    ck_assert_int_eq(exec(ip, "compare", &p, &err), 0);
    ck_assert_str_eq(json_string_value(json_object_get(p, "kind")), "compare");
    ck_assert_uint_eq(json_array_size(json_object_get(p, "rows")), VS_CMP_NROWS);
    ck_assert_int_eq(json_integer_value(json_object_get(
                         json_array_get(json_object_get(p, "rows"), 0), "measured_bytes")),
                     16094208826LL);
    ck_assert_str_eq(
        json_string_value(json_object_get(json_array_get(json_object_get(p, "rows"), 0), "status")),
        "not estimated");
    json_decref(p);
    snprintf(code, sizeof code, "measure import \"%s\" format=llama", path);
    ck_assert_int_eq(exec(ip, code, &p, &err), VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "probe|"));
    /* what entered the sheet is a record that reads back */
    sheet = sheet_now(ip);
    dump = vs_sheet_dump(sheet);
    json_decref(sheet);
    ck_assert_ptr_nonnull(dump);
    ck_assert_int_eq(vs_sheet_load(&loaded, dump, strlen(dump), &err), 0);
    ck_assert_uint_eq(json_array_size(json_object_get(loaded, "measurements")), 4);
    ck_assert_uint_eq(json_array_size(json_object_get(loaded, "runs")), 1);
    ck_assert_ptr_nonnull(strstr(dump, "\"text\": \"GPU KV cache size: 158,656 tokens\""));
    free(dump);
    json_decref(loaded);
    vs_interp_free(ip);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("measure_import");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, vllm_v0_one_line);
    tcase_add_test(tc, vllm_v0_block_and_breakdown);
    tcase_add_test(tc, vllm_workers);
    tcase_add_test(tc, vllm_v1);
    tcase_add_test(tc, vllm_actual_usage);
    tcase_add_test(tc, llamacpp_buffers);
    tcase_add_test(tc, llamacpp_breakdown);
    tcase_add_test(tc, llamacpp_iswa_kv_summed);
    tcase_add_test(tc, llamacpp_metal_mapped);
    tcase_add_test(tc, llamacpp_fit_projection_is_load);
    tcase_add_test(tc, torchtune_stats);
    tcase_add_test(tc, nvsmi_csv);
    tcase_add_test(tc, torch_dump);
    tcase_add_test(tc, malformed_refused_with_line);
    tcase_add_test(tc, sniff_first_lines);
    tcase_add_test(tc, every_importer_in_the_table);
    tcase_add_test(tc, verb_refuses_and_reads_back);
    tcase_add_test(tc, decimal_contract);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
