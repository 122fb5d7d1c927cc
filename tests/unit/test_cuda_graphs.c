/* Tests of vLLM's CUDA graph count and the cuda_graphs estimate
 * (engine/cuda_graphs.h): the capture sizes worked by hand from the release's rule
 * (1, 2, 4, then multiples of 8 up to min(2 x max_num_seqs, 512), none above
 * max_num_batched_tokens; 0.11.0 adds a full decode graph per size up to
 * max_num_seqs), checked against the progress bars published logs print, and the
 * estimate through `engine vllm estimate=yes`. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/cuda_graphs.h"
#include "lang/interp.h"
#include "util/error.h"

#include "check_run.h"
#include "results.h"

#include "cell_run.h"
#include "test_tmp.h"

#define MIB (1024ULL * 1024ULL)

static long long comp_bytes(json_t *comps, const char *name, const char **source)
{
    size_t i;
    json_t *c;
    json_array_foreach(comps, i, c)
    {
        if (!strcmp(json_string_value(json_object_get(c, "name")), name)) {
            if (source)
                *source = json_string_value(json_object_get(c, "source"));
            return json_is_integer(json_object_get(c, "bytes"))
                       ? (long long)json_integer_value(json_object_get(c, "bytes"))
                       : -1;
        }
    }
    return -2;
}

/* By hand: 256 sequences, 2048 tokens: sizes up to min(512, 2048) = 512 are 1, 2, 4
 * and 8..512 by 8 (64 sizes): 67 piecewise graphs; 0.11.0 adds the sizes up to 256,
 * 3 + 32 = 35 full ones, 102 in all. 1024 sequences and 8192 tokens: still 512, and
 * 67 + 67. 128 sequences: up to 256, 35 (+ up to 128: 3 + 16 = 19). A pass of 100
 * tokens: 1, 2, 4, 8..96, 15. V0 at 256 sequences: 1, 2, 4, 8..256, 35 graphs; at 60:
 * up to 64, 3 + 8 = 11. From 0.12.0 the sizes are 1, 2, 4, 8..248 by 8 and 256.. by 16
 * (vllm/config/vllm.py _set_cudagraph_sizes after vllm-project/vllm#26016): at 256
 * sequences up to 512, 3 + 31 + 17 = 51 piecewise and 3 + 31 + 1 = 35 full (sizes up to
 * 256); 1024 sequences and 8192 tokens: 51 + 51; 128 sequences: up to 256, 35 + 19; a pass
 * of 300 tokens: 3 + 31 + 3 (256, 272, 288) = 37, largest 288, full 35. */
START_TEST(counts_by_hand)
{
    static const struct {
        const char *rel;
        uint64_t seqs, mnbt, piecewise, full, largest;
    } cases[] = {
        {"0.10.2", 256, 2048, 67, 0, 512},
        {"0.11.0", 256, 2048, 67, 35, 512},
        {"0.11.0", 1024, 8192, 67, 67, 512},
        {"0.10.2", 128, 2048, 35, 0, 256},
        {"0.11.0", 128, 2048, 35, 19, 256},
        {"0.10.2", 256, 100, 15, 0, 96},
        {"0.11.0", 256, 100, 15, 15, 96},
        {"v0", 256, 0, 35, 0, 256},
        {"v0", 60, 0, 11, 0, 64},
        {"0.10.2", 1, 2048, 2, 0, 2},
        {"0.12.0", 256, 2048, 51, 35, 512},
        {"0.19.0", 1024, 8192, 51, 51, 512},
        {"0.15.0", 128, 2048, 35, 19, 256},
        {"0.17.0", 256, 300, 37, 35, 288},
        {"0.19.0", 256, 100, 15, 15, 96},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        vs_cuda_graphs_count n;
        ck_assert_int_eq(
            vs_cuda_graphs_count_of(&n, cases[i].rel, cases[i].seqs, cases[i].mnbt, &err), 0);
        ck_assert_msg(n.piecewise == cases[i].piecewise && n.full == cases[i].full &&
                          n.largest == cases[i].largest,
                      "case %zu: %llu + %llu, largest %llu", i, (unsigned long long)n.piecewise,
                      (unsigned long long)n.full, (unsigned long long)n.largest);
    }
    {
        vs_cuda_graphs_count n;
        vs_runtime_estimate est;
        ck_assert_int_eq(vs_cuda_graphs_count_of(&n, "0.9.2", 256, 2048, &err), VS_ENOTFOUND);
        ck_assert_ptr_nonnull(strstr(err.message, "0.10.2 to 0.19.0"));
        ck_assert_int_eq(vs_cuda_graphs_count_of(&n, "0.11.0", 0, 2048, &err), VS_EVALUE);
        /* 102 graphs x 32 layers x 400 KiB = 102 x 32 x 409,600 = 1,336,934,400 B; no
         * layer count, no estimate */
        ck_assert_int_eq(vs_cuda_graphs_estimate(&est, &n, "0.11.0", 256, 2048, 32, &err), 0);
        ck_assert_uint_eq(est.bytes, 1336934400ULL);
        ck_assert_ptr_nonnull(strstr(est.rule, "FULL_AND_PIECEWISE"));
        ck_assert_int_eq(vs_cuda_graphs_estimate(&est, &n, "0.11.0", 256, 2048, 0, &err),
                         VS_EVALUE);
        ck_assert_ptr_nonnull(strstr(err.message, "num_hidden_layers"));
    }
}
END_TEST

/* The progress bars published logs print, against the rule:
 * - gpustack/gpustack#3098, vLLM 0.11.0 (gpu_model_runner.py:2602) serving
 *   Qwen3-VL-4B-Instruct-FP8 with the defaults: "Capturing CUDA graphs (mixed
 *   prefill-decode, PIECEWISE): ... 67/67" (256 sequences: 67 piecewise);
 * - vllm-project/vllm#25848, V1 of September 2025 at tp 4 on a 70 GiB-class GPU
 *   (1024 sequences, 8192 tokens): "Capturing CUDA graphs (decode, FULL): 67/67";
 * - vllm-project/vllm#11349 and #18446, V0 with the defaults: "Capturing CUDA graph
 *   shapes: 100%| 35/35". */
START_TEST(counts_match_published_bars)
{
    vs_cuda_graphs_count n;
    ck_assert_int_eq(vs_cuda_graphs_count_of(&n, "0.11.0", 256, 2048, &err), 0);
    ck_assert_uint_eq(n.piecewise, 67);
    ck_assert_int_eq(vs_cuda_graphs_count_of(&n, "0.11.0", 1024, 8192, &err), 0);
    ck_assert_uint_eq(n.full, 67);
    ck_assert_int_eq(vs_cuda_graphs_count_of(&n, "v0", 256, 0, &err), 0);
    ck_assert_uint_eq(n.piecewise, 35);
}
END_TEST

/* Against published "took X GiB" lines (tests/data/engine_startup/vllm_graphs.tsv):
 * - vllm-project/vllm#27782, 0.11.0 on four RTX 4090s (256 sequences, 2048 tokens),
 *   Qwen3-30B-A3B (48 layers): 102 graphs x 48 x 409,600 B = 2,005,401,600 B = 1.868
 *   GiB against 1.88 printed (fitting half);
 * - LMCache/LMCache#1740, 0.10.2, Qwen3-8B (36 layers): 67 x 36 x 409,600 B =
 *   987,955,200 B = 0.920 GiB against 0.77 (held out: +19.5%). */
START_TEST(estimate_against_published)
{
    vs_cuda_graphs_count n;
    vs_runtime_estimate est;
    double gib = 1024.0 * 1024.0 * 1024.0;
    ck_assert_int_eq(vs_cuda_graphs_estimate(&est, &n, "0.11.0", 256, 2048, 48, &err), 0);
    ck_assert_uint_eq(est.bytes, 2005401600ULL);
    ck_assert(est.bytes / gib > 0.98 * 1.88 && est.bytes / gib < 1.02 * 1.88);
    ck_assert_int_eq(vs_cuda_graphs_estimate(&est, &n, "0.10.2", 256, 0, 36, &err), 0);
    ck_assert_uint_eq(est.bytes, 987955200ULL);
    ck_assert(est.bytes / gib > 0.77 && est.bytes / gib < 1.2 * 0.77);
}
END_TEST

/* Through the verbs: on the catalogue's H100 SXM (80 GiB, not an A100) the default
 * release (0.19.0) schedules 1024 sequences and 8192 tokens; a Llama-3-8B config.json
 * has 32 layers: 51 + 51 = 102 graphs x 32 x 409,600 B = 1,336,934,400 B, estimated,
 * held beyond the budget; version=0.11.0: 134 x 32 x 409,600 = 1,756,364,800 B;
 * version=0.10.2 follows: 67 x 32 x 409,600 = 878,182,400 B; max_num_seqs=128: 35 x 32 x
 * 409,600 = 458,752,000 B; enforce_eager=yes: 0. A model without a config has no layer
 * count: the item stays unknown, saying why. */
START_TEST(estimate_through_engine)
{
    const char *src = NULL;
    json_t *comps;
    char path[200], cell[512];
    ck_assert_int_eq(
        vs_test_tmp_write(
            path, sizeof path, "vs-graphs-cfg-XXXXXX",
            "{\"model_type\": \"llama\", \"hidden_size\": 4096, \"intermediate_size\": 14336, "
            "\"num_hidden_layers\": 32, \"num_attention_heads\": 32, \"num_key_value_heads\": 8, "
            "\"vocab_size\": 128256, \"tie_word_embeddings\": false}"),
        0);
    snprintf(cell, sizeof cell,
             "sheet \"graphs\"\nmodel llama config=%s\nformat bf16\ntask inference\n"
             "length 4096\nconcurrency 1\ngpu \"H100 SXM\"\nengine vllm estimate=yes\nenvelope",
             path);
    run_ok(cell);
    unlink(path);
    comps = json_object_get(lastp(), "components");
    ck_assert_int_eq(comp_bytes(comps, "cuda_graphs", &src), 1336934400LL);
    ck_assert_ptr_nonnull(strstr(src, "102 graphs (51 piecewise, 51 full"));
    ck_assert_ptr_nonnull(strstr(src, "x 32 layers under vLLM 0.19.0"));
    run_ok("engine vllm version=0.11.0 estimate=yes\nenvelope");
    comps = json_object_get(lastp(), "components");
    ck_assert_int_eq(comp_bytes(comps, "cuda_graphs", &src), 1756364800LL);
    ck_assert_ptr_nonnull(strstr(src, "134 graphs (67 piecewise, 67 full"));
    run_ok("engine vllm version=0.10.2 estimate=yes\nenvelope");
    ck_assert_int_eq(comp_bytes(json_object_get(lastp(), "components"), "cuda_graphs", NULL),
                     878182400LL);
    run_ok("engine vllm version=0.10.2 max_num_seqs=128 estimate=yes\nenvelope");
    ck_assert_int_eq(comp_bytes(json_object_get(lastp(), "components"), "cuda_graphs", NULL),
                     458752000LL);
    run_ok("engine vllm enforce_eager=yes estimate=yes\nenvelope");
    ck_assert_int_eq(comp_bytes(json_object_get(lastp(), "components"), "cuda_graphs", NULL), 0);
    /* items= names it alone */
    run_ok("engine vllm\nestimate runtime items=cuda_graphs\nenvelope");
    ck_assert_int_eq(comp_bytes(json_object_get(lastp(), "components"), "cuda_graphs", NULL),
                     1336934400LL);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cuda_graphs");
    TCase *t = tcase_create("core");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, counts_by_hand);
    tcase_add_test(t, counts_match_published_bars);
    tcase_add_test(t, estimate_against_published);
    tcase_add_test(t, estimate_through_engine);
    suite_add_tcase(s, t);
    return vs_check_run(s);
}
