/* One answer per sheet: under an engine the kv_cache component is what that
 * engine allocates, so `estimate kv`, `envelope`, `candidates` and `fit` say
 * the same bytes; without one it is the model-level estimate. Every expected
 * figure is worked by hand below from the model's public config.json (the
 * fixtures of tests/model/configs) and the engines' rules: llama.cpp's cells
 * (src/llama-context.cpp, src/llama-kv-cache-iswa.cpp, ggml-common.h's block_q8_0
 * of 34 bytes per 32 values, at commit 0c1e570) and vLLM's pages
 * (vllm/v1/kv_cache_interface.py page_size_bytes, v0.11.0). */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "lang/interp.h"
#include "render/bundle.h"
#include "util/error.h"

#include "check_run.h"
#include "results.h"

#include "cell_run.h"

#ifndef VS_MODEL_CONFIGS
#error "VS_MODEL_CONFIGS (the tests/model/configs folder) must be defined"
#endif

/* A cell that opens a sheet on a fixture's config.json, then the rest. */
static void run_model(const char *fixture, const char *rest)
{
    char cell[2048];
    snprintf(cell, sizeof cell,
             "sheet \"%s\"\nmodel m config=%s/%s\ntask inference\nformat bf16\n"
             "gpu \"H100 SXM\"\n%s",
             fixture, VS_MODEL_CONFIGS, fixture, rest);
    run_ok(cell);
}

/* The kv_cache component's bytes (over every GPU of the placement) and source,
 * from `envelope`'s payload. */
static long long envelope_kv(const char **source)
{
    json_t *p, *c;
    size_t i;
    run_ok("envelope");
    p = lastp();
    ck_assert_str_eq(gets(p, "kind"), "envelope");
    json_array_foreach(json_object_get(p, "components"), i, c)
    {
        if (!strcmp(gets(c, "name"), "kv_cache")) {
            if (source)
                *source = gets(c, "source");
            ck_assert(json_is_integer(json_object_get(c, "bytes")));
            return geti(c, "bytes");
        }
    }
    ck_assert_msg(0, "no kv_cache in the envelope");
    return -1;
}

/* fit's KV need on the one offer. */
static long long fit_need(void)
{
    json_t *r;
    run_ok("fit");
    ck_assert_str_eq(gets(lastp(), "kind"), "fit");
    r = json_array_get(json_object_get(lastp(), "rows"), 0);
    ck_assert(json_is_integer(json_object_get(r, "kv_need_bytes")));
    return geti(r, "kv_need_bytes");
}

/* candidates' per-GPU envelope, which holds the kv_cache component. */
static long long candidates_envelope(void)
{
    run_ok("candidates");
    ck_assert(json_is_integer(json_object_get(lastp(), "envelope_bytes")));
    return geti(lastp(), "envelope_bytes");
}

/* Envelope, candidates and fit on the figure want (per GPU); weights is the
 * rest of candidates' envelope (the known part: runtime items unknown). */
static void one_answer(long long want, long long weights)
{
    const char *src = NULL;
    ck_assert_int_eq(envelope_kv(&src), want);
    ck_assert_int_eq(candidates_envelope(), weights + want);
    ck_assert_int_eq(fit_need(), want);
}

/* Llama-3.1-8B (32 layers, 8 KV heads of 128; llama.cpp's 'llama' architecture,
 * no sliding window) at length 4096, concurrency 2.
 *   model level, fp16:  2 x 32 x 8 x 128 x 2 B x 4096 x 2 = 1,073,741,824 B
 *   llama.cpp -c 8192 -np 2, q8_0 K and V: n_ctx = pad(8192, 256) = 8192 cells (two
 *   streams of pad(4096, 256) = 4096); a row of 8 x 128 = 1024 values in q8_0 is
 *   1024 / 32 x 34 = 1088 B, K and V 2176 B per cell and layer:
 *     32 x 8192 x 2176 = 570,425,344 B
 *   f16 (the defaults): 32 x 8192 x 2 x 1024 x 2 B = 1,073,741,824 B, the model's.
 * The weights: 8,030,261,248 params x 2 B = 16,060,522,496 B (the config's count). */
START_TEST(llamacpp_q8_0_cache)
{
    const char *src = NULL;
    long long w;
    run_model("llama-3.1-8b.json", "length 4096\nconcurrency 2\nestimate kv");
    ck_assert_int_eq(envelope_kv(NULL), 1073741824LL);
    run_ok("engine llamacpp cache_type_k=q8_0 cache_type_v=q8_0 flash_attn=on");
    /* the engine line re-estimated the component */
    ck_assert_int_eq(envelope_kv(&src), 570425344LL);
    ck_assert_ptr_nonnull(strstr(src, "engine llamacpp"));
    ck_assert_ptr_nonnull(strstr(src, "K q8_0 V q8_0"));
    ck_assert_ptr_nonnull(strstr(src, "llama.cpp at 0c1e570"));
    w = candidates_envelope() - 570425344LL;
    one_answer(570425344LL, w);
    /* estimate kv written under the engine says the same */
    run_ok("estimate kv");
    ck_assert_int_eq(envelope_kv(NULL), 570425344LL);
    /* back to f16, then no engine: the model-level figure again */
    run_ok("engine llamacpp");
    ck_assert_int_eq(envelope_kv(NULL), 1073741824LL);
    run_ok("engine none");
    ck_assert_int_eq(envelope_kv(&src), 1073741824LL);
    ck_assert_ptr_null(strstr(src, "engine"));
}
END_TEST

/* Gemma-3-27B (62 layers: 52 sliding with a 1,024-token window, 10 full; 16 KV heads
 * of 128) at length 131,072, one sequence. A cell of one layer holds
 * 2 x 16 x 128 x 2 B = 8,192 B in f16.
 *   model level: full 10 x 131,072 x 8,192 = 10,737,418,240 B; sliding 52 x 1,024 x
 *     8,192 = 436,207,616 B; 11,173,625,856 B (10.41 GiB)
 *   llama.cpp: full layers 131,072 cells; sliding pad(min(131,072, 1,024 + ubatch 512),
 *     256) = 1,536 cells: 10,737,418,240 + 52 x 1,536 x 8,192 = 654,311,424 B, in all
 *     11,391,729,664 B = 10,864 MiB
 *   cache_type_k=q8_0 (V stays f16): K 2,048 values / 32 x 34 = 2,176 B + V 4,096 B =
 *     6,272 B a cell: 10 x 131,072 x 6,272 = 8,220,835,840 + 52 x 1,536 x 6,272 =
 *     500,957,184; 8,721,793,024 B */
START_TEST(gemma3_sliding_under_llamacpp)
{
    long long w;
    run_model("gemma-3-27b-it.json", "length 131072\nconcurrency 1\nestimate kv");
    ck_assert_int_eq(envelope_kv(NULL), 11173625856LL);
    w = candidates_envelope() - 11173625856LL;
    run_ok("engine llamacpp");
    one_answer(11391729664LL, w);
    ck_assert_int_eq(11391729664LL, 10864LL * 1024 * 1024);
    run_ok("engine llamacpp cache_type_k=q8_0");
    one_answer(8721793024LL, w);
}
END_TEST

/* vLLM with an fp8 cache and block padding: Llama-3.1-8B (32 layers, 8 KV heads of
 * 128) at length 1,000, concurrency 3, kv_cache_dtype=fp8 (1 byte a value).
 *   a page of one layer: block 16 x 2 x 8 x 128 x 1 B = 32,768 B
 *   a request: cdiv(1,000, 16) = 63 blocks (1,008 tokens: the last block padded)
 *   3 x 63 x 32 layers x 32,768 B = 198,180,864 B
 *   model level, fp16 and unpadded: 2 x 32 x 8 x 128 x 2 B x 1,000 x 3 = 393,216,000 B
 * Under placement tensor gpus=2 each rank holds 4 KV heads: a page of 16,384 B,
 * 3 x 63 x 32 x 16,384 = 99,090,432 B per GPU, 198,180,864 B on the two. */
START_TEST(vllm_fp8_blocks)
{
    json_t *p;
    const char *src = NULL;
    long long w;
    run_model("llama-3.1-8b.json", "length 1000\nconcurrency 3\nestimate kv");
    ck_assert_int_eq(envelope_kv(NULL), 393216000LL);
    w = candidates_envelope() - 393216000LL;
    run_ok("engine vllm kv_cache_dtype=fp8");
    one_answer(198180864LL, w);
    ck_assert_int_eq(envelope_kv(&src), 198180864LL);
    ck_assert_ptr_nonnull(strstr(src, "engine vllm kv_cache_dtype=fp8 (release 0.19.0)"));
    ck_assert_ptr_nonnull(strstr(src, "page 32,768 B per layer (16 tokens)"));
    /* dtype= on the line gives way to the engine's cache type, and says so */
    run_ok("estimate kv dtype=fp16");
    p = lastp();
    ck_assert_int_eq(geti(json_object_get(p, "inputs"), "model_bytes"), 393216000LL);
    ck_assert_int_eq(envelope_kv(NULL), 198180864LL);
    /* tensor parallel: each rank's share, as fit counts one GPU */
    run_ok("placement tensor gpus=2");
    ck_assert_int_eq(envelope_kv(NULL), 198180864LL);            /* the component: both GPUs */
    ck_assert_ptr_nonnull(strstr(text(last()), "99,090,432 B")); /* the envelope's per GPU */
    ck_assert_ptr_nonnull(strstr(text(last()), "198,180,864 B / 2 GPUs"));
    ck_assert_int_eq(fit_need(), 99090432LL);
}
END_TEST

/* SGLang's pool of tokens (no block padding) at kv_cache_dtype=fp8_e4m3, 1 byte a
 * value: Llama-3.1-8B at 1,000 x 3 takes 2 x 32 x 8 x 128 x 1 B x 3,000 =
 * 196,608,000 B, half the model-level fp16 figure (393,216,000 B). */
START_TEST(sglang_token_pool)
{
    long long w;
    run_model("llama-3.1-8b.json", "length 1000\nconcurrency 3\nestimate kv");
    w = candidates_envelope() - 393216000LL;
    run_ok("engine sglang kv_cache_dtype=fp8_e4m3");
    one_answer(196608000LL, w);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("kv_engine");
    TCase *t = tcase_create("core");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, llamacpp_q8_0_cache);
    tcase_add_test(t, gemma3_sliding_under_llamacpp);
    tcase_add_test(t, vllm_fp8_blocks);
    tcase_add_test(t, sglang_token_pool);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return vs_check_run(suite());
}
