/* Tests of the engine profiles and `fit`: public start-up logs reproduced, each
 * engine's rules by hand, layouts with sliding-window groups, a latent cache,
 * tensor placement with fewer KV heads than GPUs, and candidates agreeing with
 * fit. Expected numbers are worked by hand in the comments, from the logs'
 * printed figures; never from the code under test. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/engine.h"
#include "engine/fit.h"
#include "lang/interp.h"
#include "lang/verb.h"
#include "render/bundle.h"
#include "render/markdown.h"
#include "sheet/classify.h"
#include "sheet/envelope.h"
#include "sheet/sheet.h"
#include "util/buf.h"
#include "util/error.h"

#include "check_run.h"
#include "results.h"

#include "cell_run.h"
#include "test_tmp.h"

#define MIB (1024ULL * 1024ULL)
#define GIB (1024ULL * 1024ULL * 1024ULL)

static json_t *fit_row(size_t i)
{
    json_t *p = lastp();
    ck_assert_str_eq(json_string_value(json_object_get(p, "kind")), "fit");
    ck_assert_ptr_nonnull(json_array_get(json_object_get(p, "rows"), i));
    return json_array_get(json_object_get(p, "rows"), i);
}

static long long ival(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    ck_assert_msg(json_is_integer(v), "%s is not an integer", k);
    return (long long)json_integer_value(v);
}

static double dval(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    ck_assert_msg(json_is_number(v), "%s is not a number", k);
    return json_number_value(v);
}

static const char *sval(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    ck_assert_msg(s != NULL, "%s is not a string", k);
    return s;
}

/* ---- vLLM logs ---- */

/* generative-computing/mellea pull request #416
 * (https://github.com/generative-computing/mellea/pull/416), vLLM v0 worker.py:
 *   total_gpu_memory (79.19GiB) x gpu_memory_utilization (0.80) = 63.35GiB
 *   model weights take 1.12GiB; non_torch_memory takes 0.16GiB; PyTorch activation peak
 *   memory takes 0.23GiB; the rest of the memory reserved for KV Cache is 61.84GiB.
 *   # cuda blocks: 36184
 *   Maximum concurrency for 8192 tokens per request: 70.67x
 * The model's shape, 28 layers of 8 KV heads of 128 (Qwen3-0.6B's; its 0.6B bf16
 * parameters are the 1.12 GiB of weights), gives a block of 16 x 28 x 2 x 8 x 128 x 2 B
 * = 1,835,008 B; 36,184 blocks x 1,835,008 B = 61.838 GiB, the printed 61.84.
 * By hand: 79.19 x 0.8 - 1.12 - 0.16 - 0.23 = 61.842 GiB. Each of the four inputs is
 * printed to 0.005 GiB (the total's error scaled by 0.8): at most 0.019 GiB =
 * 20.4 MB = 11.1 blocks either way. Concurrency: blocks / cdiv(8192, 16) = blocks / 512,
 * so 36184 / 512 = 70.67, within 11.1 / 512 + 0.005 = 0.027. The CUDA graphs (0.13 GiB
 * in the log) were captured after the KV cache in that release: graphs_in_budget=no. */
START_TEST(vllm_log_mellea_416)
{
    json_t *r;
    run_ok("sheet \"mellea 416\"\n"
           "model qwen3-0.6b params=601295421\nformat bf16\ntask inference\n"
           "length 8192\nconcurrency 64\n"
           "estimate kv layers=28 kv_heads=8 head_dim=128\n"
           "gpu \"log GPU\" memory=80GB reported=79.19GiB reported_source=\"mellea#416 log\"\n"
           "engine vllm gpu_memory_utilization=0.80 graphs_in_budget=no\n"
           "reserve non_torch 0.16GiB status=measured source=\"mellea#416\"\n"
           "reserve activation_peak 0.23GiB status=measured source=\"mellea#416\"\n"
           "reserve cuda_graphs 0.13GiB status=measured source=\"mellea#416\"\n"
           "fit");
    r = fit_row(0);
    ck_assert_str_eq(sval(r, "capacity_basis"), "reported");
    ck_assert_int_eq(ival(r, "block_bytes"), 1835008);
    ck_assert_msg(llabs(ival(r, "blocks") - 36184) <= 11, "blocks %lld", ival(r, "blocks"));
    ck_assert_msg(llabs(ival(r, "kv_pool_bytes") - (long long)(61.84 * GIB)) <= 20401094,
                  "pool %lld", ival(r, "kv_pool_bytes"));
    ck_assert_int_eq(ival(r, "kv_tokens"), ival(r, "blocks") * 16);
    ck_assert_msg(fabs(dval(r, "max_concurrency") - 70.67) <= 0.027, "%f",
                  dval(r, "max_concurrency"));
    /* every runtime item known: no upper bound; 64 requests fit 70 */
    ck_assert(json_is_false(json_object_get(r, "upper_bound")));
    ck_assert_str_eq(sval(r, "verdict"), "admissible");
}
END_TEST

/* Serving extras: num_speculative_tokens= and max_loras= add draft_model and
 * lora_adapters as runtime items, unknown (each saying where vLLM keeps them)
 * until declared; declared, they come out of the budget before the pool, so the
 * mellea#416 sheet above loses exactly their 1 GiB + 0.5 GiB of pool; without
 * the keys they go again. */
START_TEST(vllm_serving_extras)
{
    static const char base[] =
        "sheet \"extras\"\n"
        "model qwen3-0.6b params=601295421\nformat bf16\ntask inference\n"
        "length 8192\nconcurrency 64\n"
        "estimate kv layers=28 kv_heads=8 head_dim=128\n"
        "gpu \"log GPU\" memory=80GB reported=79.19GiB reported_source=\"mellea#416 log\"\n"
        "reserve non_torch 0.16GiB status=measured source=\"mellea#416\"\n"
        "reserve activation_peak 0.23GiB status=measured source=\"mellea#416\"\n"
        "reserve cuda_graphs 0.13GiB status=measured source=\"mellea#416\"\n";
    char cell[1024];
    json_t *r, *c;
    size_t i;
    long long pool0;
    int seen = 0;
    snprintf(cell, sizeof cell, "%sengine vllm gpu_memory_utilization=0.80\nfit", base);
    run_ok(cell);
    pool0 = ival(fit_row(0), "kv_pool_bytes");
    run_ok("engine vllm gpu_memory_utilization=0.80 num_speculative_tokens=3 max_loras=2\n"
           "envelope");
    json_array_foreach(json_object_get(lastp(), "components"), i, c)
    {
        const char *n = sval(c, "name");
        if (!strcmp(n, "draft_model")) {
            ck_assert_str_eq(sval(c, "status"), "unknown");
            ck_assert(strstr(sval(c, "source"), "vllm/v1/spec_decode/eagle.py") != NULL);
            seen |= 1;
        } else if (!strcmp(n, "lora_adapters")) {
            ck_assert_str_eq(sval(c, "status"), "unknown");
            ck_assert(strstr(sval(c, "source"), "create_lora_weights") != NULL);
            seen |= 2;
        }
    }
    ck_assert_int_eq(seen, 3);
    run_ok("fit");
    r = fit_row(0);
    ck_assert(json_is_true(json_object_get(r, "upper_bound")));
    ck_assert_str_ne(sval(r, "verdict"), "admissible");
    run_ok("reserve draft_model 1GiB status=measured source=\"test\"\n"
           "reserve lora_adapters 0.5GiB status=measured source=\"test\"\nfit");
    r = fit_row(0);
    ck_assert(json_is_false(json_object_get(r, "upper_bound")));
    ck_assert_int_eq(ival(r, "kv_pool_bytes"), pool0 - (long long)GIB - (long long)GIB / 2);
    /* without the keys the engine has no such items: the declared ones stay the
     * person's components (ordinary reserve lines), the unknown ones would go */
    run_ok("engine vllm gpu_memory_utilization=0.80\nfit");
    ck_assert_int_eq(ival(fit_row(0), "kv_pool_bytes"),
                     pool0 - (long long)GIB - (long long)GIB / 2);
}
END_TEST

/* The same log, imported (`measure import`, src/measure/import_vllm.c): the runtime items
 * are set from its measurements with `measured`, and fit's blocks and concurrency agree
 * with the log's 36184 blocks and 70.67x within the same 11 blocks and 0.027 worked out
 * above. */
static const char MELLEA_LOG[] =
    "INFO 02-11 10:17:54 [worker.py:294] Memory profiling takes 0.44 seconds\n"
    "INFO 02-11 10:17:54 [worker.py:294] the current vLLM instance can use total_gpu_memory "
    "(79.19GiB) x gpu_memory_utilization (0.80) = 63.35GiB\n"
    "INFO 02-11 10:17:54 [worker.py:294] model weights take 1.12GiB; non_torch_memory takes "
    "0.16GiB; PyTorch activation peak memory takes 0.23GiB; the rest of the memory reserved "
    "for KV Cache is 61.84GiB.\n"
    "INFO 02-11 10:17:54 [executor_base.py:113] # cuda blocks: 36184, # CPU blocks: 2340\n"
    "INFO 02-11 10:17:54 [executor_base.py:118] Maximum concurrency for 8192 tokens per "
    "request: 70.67x\n"
    "INFO 02-11 10:17:59 [model_runner.py:1671] Graph capturing finished in 2 secs, took 0.13 "
    "GiB\n";

START_TEST(vllm_log_imported)
{
    char path[200], cell[768];
    json_t *r;
    ck_assert_int_eq(vs_test_tmp_write(path, sizeof path, "vs-engine-log-XXXXXX", MELLEA_LOG), 0);
    snprintf(cell, sizeof cell,
             "sheet \"mellea 416 imported\"\n"
             "model qwen3-0.6b params=601295421\nformat bf16\ntask inference\n"
             "length 8192\nconcurrency 64\n"
             "estimate kv layers=28 kv_heads=8 head_dim=128\n"
             "measure import %s format=vllm\n",
             path);
    run_ok(cell);
    unlink(path);
    {
        /* the imported figures, exact bytes, as the runtime items (a start-up counter has
         * no dims, so it is declared measured with its source rather than through
         * `measured`, which asks for a run at the card's dims) */
        static const char *const map[][2] = {{"vllm.non_torch_memory", "non_torch"},
                                             {"vllm.activation_peak", "activation_peak"},
                                             {"vllm.cuda_graph_memory", "cuda_graphs"},
                                             {"vllm.total_gpu_memory", NULL}};
        json_t *rows, *m;
        size_t i, k;
        long long total = 0;
        vs_buf b = VS_BUF_INIT;
        run_ok("measurements");
        rows = json_object_get(lastp(), "rows");
        for (k = 0; k < 4; k++) {
            int found = 0;
            json_array_foreach(rows, i, m)
            {
                if (strcmp(sval(m, "counter"), map[k][0]))
                    continue;
                found = 1;
                if (map[k][1])
                    vs_buf_printf(&b, "reserve %s %lldB status=measured source=\"imported %s\"\n",
                                  map[k][1], ival(m, "peak_bytes"), map[k][0]);
                else
                    total = ival(m, "peak_bytes");
            }
            ck_assert_msg(found, "no %s", map[k][0]);
        }
        vs_buf_printf(&b,
                      "gpu \"log GPU\" memory=80GB reported=%lldB reported_source=\"imported "
                      "total_gpu_memory\"\n"
                      "engine vllm gpu_memory_utilization=0.80 graphs_in_budget=no\nfit",
                      total);
        run_ok(vs_buf_str(&b));
        vs_buf_free(&b);
    }
    r = fit_row(0);
    /* the log's "# cuda blocks: 36184" and "70.67x" */
    ck_assert_msg(llabs(ival(r, "blocks") - 36184) <= 11, "blocks %lld", ival(r, "blocks"));
    ck_assert_msg(fabs(dval(r, "max_concurrency") - 70.67) <= 0.027, "%f",
                  dval(r, "max_concurrency"));
    ck_assert(json_is_false(json_object_get(r, "upper_bound")));
}
END_TEST

/* vllm-project/vllm issue #10517 (https://github.com/vllm-project/vllm/issues/10517),
 * Llama-3.1-8B-Instruct on an RTX 3090, vLLM 0.6.4:
 *   Loading model weights took 14.9888 GB            (GiB, as that release prints)
 *   Memory profiling results: total_gpu_memory=23.58GiB initial_memory_usage=15.34GiB
 *   peak_torch_memory=17.06GiB ... non_torch_memory=0.35GiB kv_cache_size=3.81GiB
 *   gpu_memory_utilization=0.90
 *   # GPU blocks: 1952
 *   Maximum concurrency for 20000 tokens per request: 1.56x
 * and at --max-model-len 29000: peak_torch_memory=17.98GiB, kv_cache_size=2.89GiB,
 * # GPU blocks: 1478, 0.82x, "larger than the maximum number of tokens that can be
 * stored in KV cache (23648)", so vLLM refused to start.
 * peak_torch includes the weights: activation peak = 17.06 - 14.9888 = 2.0712 GiB
 * (17.98 - 14.9888 = 2.9912 at 29000). Llama-3.1-8B: 32 layers, 8 KV heads of 128:
 * a block is 16 x 32 x 2 x 8 x 128 x 2 B = 2 MiB, 512 blocks per GiB.
 * By hand: 23.58 x 0.9 - 14.9888 - 2.0712 - 0.35 = 3.8124 GiB -> 1951.9 blocks; the
 * printed inputs (0.0045 + 0.005 + 0.005 GiB) allow 0.0145 GiB = 7.4 blocks.
 * Concurrency 1952 / cdiv(20000, 16) = 1952 / 1250 = 1.5616 ("1.56x"), within
 * 7.4 / 1250 + 0.005. At 29000: 3.8124 - 0.92 = 2.8924 GiB -> 1480.9 blocks against
 * the printed 1478 (within 7.4); 1478 / cdiv(29000, 16) = 1478 / 1813 = 0.815 < 1. */
START_TEST(vllm_log_10517)
{
    json_t *r;
    run_ok("sheet \"vllm 10517\"\n"
           "model llama-3.1-8b params=8047050726\nformat bf16\ntask inference\n"
           "length 20000\nconcurrency 1\n"
           "estimate kv layers=32 kv_heads=8 head_dim=128\n"
           "gpu \"RTX 3090 log\" memory=24GB reported=23.58GiB reported_source=\"vllm#10517\"\n"
           "engine vllm graphs_in_budget=no\n"
           "reserve non_torch 0.35GiB status=measured source=\"vllm#10517\"\n"
           "reserve activation_peak 2.0712GiB status=measured source=\"vllm#10517\"\n"
           "reserve cuda_graphs 0GiB status=measured source=\"outside the budget here\"\n"
           "fit");
    r = fit_row(0);
    ck_assert_int_eq(ival(r, "block_bytes"), 2 * MIB);
    ck_assert_msg(llabs(ival(r, "blocks") - 1952) <= 7, "blocks %lld", ival(r, "blocks"));
    ck_assert_msg(fabs(dval(r, "max_concurrency") - 1.56) <= 7.4 / 1250 + 0.005, "%f",
                  dval(r, "max_concurrency"));
    ck_assert_str_eq(sval(r, "start"), "admissible");
    run_ok("length 29000\n"
           "reserve activation_peak 2.9912GiB status=measured source=\"vllm#10517\"\n"
           "fit");
    r = fit_row(0);
    ck_assert_msg(llabs(ival(r, "blocks") - 1478) <= 7, "blocks %lld", ival(r, "blocks"));
    ck_assert_msg(llabs(ival(r, "kv_tokens") - 23648) <= 7 * 16, "tokens %lld",
                  ival(r, "kv_tokens"));
    ck_assert(dval(r, "max_concurrency") < 1.0);
    /* vLLM refused to start: fewer tokens than one request */
    ck_assert_str_eq(sval(r, "start"), "exclude");
    ck_assert_str_eq(sval(r, "verdict"), "exclude");
}
END_TEST

/* vllm-project/vllm pull request #10511 (https://github.com/vllm-project/vllm/pull/10511),
 * vllm serve meta-llama/Meta-Llama-3-8B on an H100:
 *   total_gpu_memory 79.22GiB, gpu_memory_utilization 0.90, the current vLLM instance
 *   can use 71.29GiB, model weights take 14.96GiB, non_torch_memory 1.79GiB, PyTorch
 *   activation peak memory 1.26GiB, available_kv_cache_memory 53.29GiB.
 * By hand: 79.22 x 0.9 = 71.298; - 14.96 - 1.79 - 1.26 = 53.288 GiB; the printed
 * inputs allow 0.0045 + 3 x 0.005 = 0.0195 GiB. */
START_TEST(vllm_log_10511)
{
    json_t *r;
    run_ok("sheet \"vllm 10511\"\n"
           "model meta-llama-3-8b params=8031588844\nformat bf16\ntask inference\n"
           "length 8192\nconcurrency 1\n"
           "estimate kv layers=32 kv_heads=8 head_dim=128\n"
           "gpu \"H100 log\" memory=80GB reported=79.22GiB reported_source=\"vllm#10511\"\n"
           "engine vllm\n"
           "reserve non_torch 1.79GiB status=measured source=\"vllm#10511\"\n"
           "reserve activation_peak 1.26GiB status=measured source=\"vllm#10511\"\n"
           "fit");
    r = fit_row(0);
    ck_assert_msg(llabs(ival(r, "kv_pool_bytes") - (long long)(53.29 * GIB)) <=
                      (long long)(0.0195 * GIB),
                  "pool %lld", ival(r, "kv_pool_bytes"));
    /* the CUDA graphs are unknown: an upper bound, at best to-confirm */
    ck_assert(json_is_true(json_object_get(r, "upper_bound")));
    ck_assert_str_eq(sval(r, "verdict"), "to-confirm");
}
END_TEST

/* ---- llama.cpp logs ---- */

/* fedora-copr/logdetective pull request #106
 * (https://github.com/fedora-copr/logdetective/pull/106), llama-server with
 * flash_attn = 0 and a 32-layer model of 8 KV heads of 128 (rope freq_base 1e6):
 *   n_ctx = 2048:  KV self size =  256.00 MiB, K (f16):  128.00 MiB, V (f16):  128.00 MiB
 *   n_ctx = 32768: KV self size = 4096.00 MiB, K (f16): 2048.00 MiB, V (f16): 2048.00 MiB
 * By hand: 2048 cells x 32 layers x (8 x 128 x 2 B + 8 x 128 x 2 B) = 256 MiB;
 * 32768 cells -> 4096 MiB; exact. */
START_TEST(llamacpp_log_logdetective_106)
{
    json_t *r;
    run_ok("sheet \"logdetective 106\"\n"
           "model m7b params=7.24B\nformat int4\ntask inference\nlength 2048\nconcurrency 1\n"
           "estimate kv layers=32 kv_heads=8 head_dim=128\n"
           "gpu \"RTX 4090\"\n"
           "engine llamacpp flash_attn=off\n"
           "fit");
    r = fit_row(0);
    ck_assert_int_eq(ival(r, "kv_need_bytes"), 256 * MIB);
    ck_assert_int_eq(ival(r, "kv_tokens"), 2048);
    run_ok("engine llamacpp ctx=32768 flash_attn=off\nfit");
    r = fit_row(0);
    ck_assert_int_eq(ival(r, "kv_need_bytes"), 4096 * MIB);
    ck_assert_int_eq(ival(r, "kv_tokens"), 32768);
    /* llama.cpp's budget: the free memory less --fit's 1024 MiB; no free= given, the
     * total (RTX 4090: the catalogue's nvidia-smi 24564 MiB) less the stated 264 MiB of
     * a CUDA context */
    ck_assert_int_eq(ival(r, "budget_bytes"),
                     ival(r, "capacity_bytes") - (264 + 1024) * (long long)MIB);
    {
        /* the same log lines imported (src/measure/import_llamacpp.c): the KV buffer
         * measured is the KV fit allocates */
        char path[200], cell[256];
        json_t *rows, *m;
        size_t i;
        int found = 0;
        long long need = ival(r, "kv_need_bytes");
        ck_assert_int_eq(
            vs_test_tmp_write(
                path, sizeof path, "vs-engine-llama-XXXXXX",
                "llama_new_context_with_model: n_ctx      = 32768\n"
                "llama_new_context_with_model: flash_attn = 0\n"
                "llama_kv_cache_init:      CUDA0 KV buffer size =  4096.00 MiB\n"
                "llama_new_context_with_model: KV self size  = 4096.00 MiB, K (f16): 2048.00 MiB, "
                "V (f16): 2048.00 MiB\n"
                "llama_new_context_with_model:      CUDA0 compute buffer size =  2144.00 MiB\n"),
            0);
        snprintf(cell, sizeof cell, "measure import %s format=llamacpp\nmeasurements", path);
        run_ok(cell);
        unlink(path);
        rows = json_object_get(lastp(), "rows");
        json_array_foreach(rows, i, m) if (!strcmp(sval(m, "counter"), "llamacpp.kv_buffer"))
        {
            ck_assert_int_eq(ival(m, "peak_bytes"), need);
            found = 1;
        }
        ck_assert(found);
    }
}
END_TEST

/* llama.cpp's padding and streams (src/llama-context.cpp): n_ctx padded to 256, one
 * stream of n_ctx / n_seq cells per sequence. By hand, for the same 128 KiB cell:
 *   ctx 35000 x 1      -> 35072 cells -> 35072 x 128 KiB = 4384 MiB
 *   ctx 2048  x 4 seqs -> 8192 cells (4 streams of 2048) -> 1024 MiB
 *   q8_0 K and V: 34 bytes per 32 values -> 8192 cells x 32 x 2 x 1024 x 34 / 32 = 544 MiB */
START_TEST(llamacpp_padding_streams)
{
    json_t *r;
    run_ok("sheet \"llama pad\"\nmodel m params=8B\nformat int4\ntask inference\n"
           "length 35000\nconcurrency 1\nestimate kv layers=32 kv_heads=8 head_dim=128\n"
           "gpu \"RTX 4090\"\nengine llamacpp\nfit");
    r = fit_row(0);
    ck_assert_int_eq(ival(r, "kv_tokens"), 35072);
    ck_assert_int_eq(ival(r, "kv_need_bytes"), 4384 * MIB);
    run_ok("length 2048\nconcurrency 4\nfit");
    r = fit_row(0);
    ck_assert_int_eq(ival(r, "kv_tokens"), 8192);
    ck_assert_int_eq(ival(r, "kv_need_bytes"), 1024 * MIB);
    run_ok("length 8192\nconcurrency 1\nengine llamacpp cache_type_k=q8_0 cache_type_v=q8_0\nfit");
    r = fit_row(0);
    ck_assert_int_eq(ival(r, "kv_need_bytes"), 544 * MIB);
    /* a quantised V cache needs flash attention */
    ck_assert_int_ne(run("engine llamacpp cache_type_v=q8_0 flash_attn=off\nfit"), 0);
}
END_TEST

/* ---- layouts through the pure API ---- */

static json_t *sheet_with(const char *layout_json, unsigned tp, uint64_t length,
                          uint64_t concurrency, const char *engine_json)
{
    json_t *s = vs_sheet_new("t"), *card = vs_sheet_card(s), *arch;
    json_error_t je;
    vs_error e;
    ck_assert_ptr_nonnull(s);
    arch = json_pack("{s:o}", "kv_layout", json_loads(layout_json, 0, &je));
    json_object_set_new(card, "arch", arch);
    json_object_set_new(card, "params", json_integer(7000000000));
    json_object_set_new(card, "format", json_string("bf16"));
    json_object_set_new(card, "length", json_integer((json_int_t)length));
    json_object_set_new(card, "concurrency", json_integer((json_int_t)concurrency));
    json_object_set_new(card, "engine", json_loads(engine_json, 0, &je));
    json_object_set_new(s, "placement",
                        json_pack("{s:s, s:i, s:n}", "kind", tp > 1 ? "tensor" : "single", "gpus",
                                  (int)tp, "stage"));
    ck_assert_int_eq(vs_sheet_set_component(s, "non_torch", 1, 0, "measured", "t", NULL, NULL, &e),
                     0);
    ck_assert_int_eq(
        vs_sheet_set_component(s, "activation_peak", 1, 0, "measured", "t", NULL, NULL, &e), 0);
    ck_assert_int_eq(
        vs_sheet_set_component(s, "cuda_graphs", 1, 0, "measured", "t", NULL, NULL, &e), 0);
    return s;
}

static void fit_one(vs_fit_row *row, json_t *s, const char *offer_json)
{
    vs_fit_ctx c;
    vs_error e;
    json_error_t je;
    json_t *o = json_loads(offer_json, 0, &je);
    ck_assert_ptr_nonnull(o);
    ck_assert_msg(vs_fit_prepare(&c, s, &e) == 0, "%s", e.message);
    ck_assert_msg(vs_fit_offer(row, &c, o, NULL, 0, &e) == 0, "%s", e.message);
    json_decref(o);
    vs_fit_ctx_free(&c);
}

#define H100                                                                                       \
    "{\"name\": \"x\", \"memory_bytes\": 80000000000, \"reported_bytes\": 85000000000, "           \
    "\"reported_basis\": \"declared with reported=\", \"cards\": 8}"

/* A Gemma 3 27B-like layout: 52 sliding layers (window 1024) and 10 full, 16 KV heads
 * of 128, bf16, under vLLM with kv_cache_memory=40GiB, max_model_len 32768,
 * max_num_batched_tokens 8192. By hand (kv_cache_utils.py, uniform page size):
 *   page = 16 x 16 x (128 + 128) x 2 B = 131,072 B per layer
 *   group size: the smaller type's 10 layers (52 is not below 1.25 x 10)
 *   groups: cdiv(52, 10) = 6 sliding + 1 full = 7
 *   blocks = 40 GiB // (131072 x 10) = 42,949,672,960 // 1,310,720 = 32,768
 *   tokens = 32768 // 7 x 16 = 4681 x 16 = 74,896
 *   per request: sliding cdiv(min(1023 + 8192, 32768), 16) + 1 = 577 per group, x 6 =
 *   3462; full cdiv(32768, 16) = 2048; 5510 blocks -> 32768 / 5510 = 5.947 requests. */
START_TEST(vllm_sliding_groups)
{
    vs_fit_row r;
    json_t *s =
        sheet_with("[{\"kind\": \"sliding\", \"layers\": 52, \"kv_heads\": 16, "
                   "\"head_dim\": 128, \"window\": 1024},"
                   " {\"kind\": \"full\", \"layers\": 10, \"kv_heads\": 16, "
                   "\"head_dim\": 128}]",
                   1, 32768, 4, "{\"name\": \"vllm\", \"keys\": {\"kv_cache_memory\": \"40GiB\"}}");
    fit_one(&r, s, H100);
    ck_assert_uint_eq(r.page_bytes, 1310720);
    ck_assert_uint_eq(r.blocks, 32768);
    ck_assert_uint_eq(r.kv_tokens, 74896);
    ck_assert_msg(fabs(r.max_concurrency - 32768.0 / 5510.0) < 1e-9, "%f", r.max_concurrency);
    ck_assert_int_eq(r.concurrency_verdict, VS_VERDICT_ADMISSIBLE); /* 4 <= 5.95 */
    vs_fit_row_free(&r);
    /* candidates decides capacity and concurrency the same way: 4 requests fit,
     * 6 do not (5.95) */
    {
        static const int conc[2] = {4, 6};
        static const vs_verdict want[2] = {VS_VERDICT_ADMISSIBLE, VS_VERDICT_EXCLUDE};
        size_t k, q;
        json_error_t je;
        json_array_append_new(vs_sheet_array(s, VS_SK_OFFERS), json_loads(H100, 0, &je));
        for (k = 0; k < 2; k++) {
            vs_classification *cl = NULL;
            vs_envelope env;
            vs_error e;
            json_object_set_new(vs_sheet_card(s), "concurrency", json_integer(conc[k]));
            fit_one(&r, s, H100);
            ck_assert_int_eq(r.concurrency_verdict, want[k]);
            ck_assert_int_eq(vs_envelope_compute(&env, s, NULL, &e), 0);
            ck_assert_int_eq(vs_fit_classify(&cl, s, &env, NULL, &e), 0);
            for (q = 0; q < cl->rows[0].nreqs; q++) {
                const vs_classify_req *rq = &cl->rows[0].reqs[q];
                if (!strcmp(rq->name, "capacity"))
                    ck_assert_int_eq(rq->verdict, r.start_verdict);
                if (!strcmp(rq->name, "concurrency"))
                    ck_assert_int_eq(rq->verdict, r.concurrency_verdict);
                if (!strcmp(rq->name, "length"))
                    ck_assert_int_eq(rq->verdict, r.length_verdict);
            }
            vs_classification_free(cl);
            vs_fit_row_free(&r);
        }
    }
    json_decref(s);
}
END_TEST

/* llama.cpp on the same sliding layers (src/llama-kv-cache-iswa.cpp): a sliding layer
 * keeps pad(min(n_ctx_seq, window + ubatch), 256) cells per stream.
 * ctx 4096, one sequence, ubatch 512: full 4096 cells, sliding pad(min(4096, 1536)) =
 * 1536 cells. Bytes: 10 x 4096 x 16 x 256 x 2 + 52 x 1536 x 16 x 256 x 2 =
 * 335,544,320 + 654,311,424 = 989,855,744 B. */
START_TEST(llamacpp_sliding_cells)
{
    vs_fit_row r;
    json_t *s = sheet_with("[{\"kind\": \"sliding\", \"layers\": 52, \"kv_heads\": 16, "
                           "\"head_dim\": 128, \"window\": 1024},"
                           " {\"kind\": \"full\", \"layers\": 10, \"kv_heads\": 16, "
                           "\"head_dim\": 128}]",
                           1, 4096, 1, "{\"name\": \"llamacpp\", \"keys\": {}}");
    fit_one(&r, s, H100);
    ck_assert_uint_eq(r.need_bytes, 989855744ULL);
    ck_assert_uint_eq(r.kv_tokens, 4096);
    vs_fit_row_free(&r);
    json_decref(s);
}
END_TEST

/* A DeepSeek-V2-Lite-like latent cache: 27 layers of 512 + 64 = 576 values, bf16, under
 * vLLM at tensor parallel 2 (a latent cache is not split) with kv_cache_memory=10GiB.
 * By hand (MLAAttentionSpec: no factor 2): page = 16 x 576 x 2 = 18,432 B per layer;
 * blocks = 10,737,418,240 // (18,432 x 27 = 497,664) = 21,575; tokens 345,200;
 * at 8192 tokens 21575 / 512 = 42.138 requests. */
START_TEST(vllm_latent_cache)
{
    vs_fit_row r;
    json_t *s = sheet_with("[{\"kind\": \"latent\", \"layers\": 27, \"latent\": 576}]", 2, 8192, 8,
                           "{\"name\": \"vllm\", \"keys\": {\"kv_cache_memory\": \"10GiB\"}}");
    fit_one(&r, s, H100);
    ck_assert_uint_eq(r.blocks, 21575);
    ck_assert_uint_eq(r.kv_tokens, 345200);
    ck_assert_msg(fabs(r.max_concurrency - 21575.0 / 512.0) < 1e-9, "%f", r.max_concurrency);
    vs_fit_row_free(&r);
    json_decref(s);
}
END_TEST

/* Tensor placement on 4 GPUs with 2 KV heads: each GPU holds one (replicated), so a
 * 28-layer model of 128-dim heads has page = 2 x 16 x 1 x 128 x 2 = 8,192 B per layer;
 * kv_cache_memory=8GiB: 8,589,934,592 // (8192 x 28 = 229,376) = 37,449 blocks.
 * Weights split 4 ways: 7e9 x 2 B / 4 = 3.5e9 B per GPU. */
START_TEST(vllm_tensor_fewer_heads)
{
    vs_fit_row r;
    json_t *s =
        sheet_with("[{\"kind\": \"full\", \"layers\": 28, \"kv_heads\": 2, "
                   "\"head_dim\": 128}]",
                   4, 8192, 8, "{\"name\": \"vllm\", \"keys\": {\"kv_cache_memory\": \"8GiB\"}}");
    fit_one(&r, s, H100);
    ck_assert_uint_eq(r.blocks, 37449);
    ck_assert_uint_eq(r.non_kv_bytes, 3500000000ULL);
    vs_fit_row_free(&r);
    json_decref(s);
}
END_TEST

/* A Qwen3-Next-80B-like hybrid: 12 full layers of 2 KV heads x 256 and 36 gated
 * delta nets of 24,576 convolution values (3 x 8,192) and 524,288 state values
 * (32 x 128 x 128) per sequence, bf16, TP 1, kv_cache_memory=40GiB, max_model_len
 * 32768. vLLM keeps both states in the model's dtype unless mamba_ssm_cache_dtype
 * says otherwise (mamba_utils.py); by hand (vllm/model_executor/models/config.py,
 * HybridAttentionMambaModelConfig, v0.11.0):
 *   state page = (24,576 + 524,288) x 2 = 1,097,728 B
 *   attention bytes per token and layer = 2 x (256 + 256) x 2 = 2,048
 *   block = 16 x cdiv(1,097,728, 16 x 2,048) = 16 x 34 = 544 tokens
 *   page  = 544 x 2,048 = 1,114,112 B (the state page padded to it)
 *   groups of 12 layers: 1 full + 3 state = 4
 *   blocks = 42,949,672,960 // (1,114,112 x 12) = 3,212
 *   per request: cdiv(32768, 544) = 61 full + 3 state = 64 -> 50.19 requests
 * With mamba_ssm_cache_dtype=float32 the state page is 24,576 x 2 + 524,288 x 4 =
 * 2,146,304 B: block 16 x cdiv(2,146,304, 32,768) = 1,056 tokens, page 2,162,688 B,
 * 1,654 blocks, 32 + 3 = 35 per request. */
START_TEST(vllm_hybrid_state_pages)
{
    static const char layout[] =
        "[{\"kind\": \"full\", \"layers\": 12, \"kv_heads\": 2, \"head_dim\": 256},"
        " {\"kind\": \"state\", \"layers\": 36, \"state_bytes\": 2146304, "
        "\"state_conv\": 24576, \"state_ssm\": 524288}]";
    vs_fit_row r;
    json_t *s = sheet_with(layout, 1, 32768, 4,
                           "{\"name\": \"vllm\", \"keys\": {\"kv_cache_memory\": \"40GiB\"}}");
    fit_one(&r, s, H100);
    ck_assert_uint_eq(r.page_bytes, 1114112ULL * 12);
    ck_assert_uint_eq(r.blocks, 3212);
    ck_assert_msg(fabs(r.max_concurrency - 3212.0 / 64.0) < 1e-9, "%f", r.max_concurrency);
    ck_assert_ptr_nonnull(strstr(r.kv_rule, "grown from 16 to 544 tokens"));
    vs_fit_row_free(&r);
    json_decref(s);
    s = sheet_with(layout, 1, 32768, 4,
                   "{\"name\": \"vllm\", \"keys\": {\"kv_cache_memory\": \"40GiB\", "
                   "\"mamba_ssm_cache_dtype\": \"float32\"}}");
    fit_one(&r, s, H100);
    ck_assert_uint_eq(r.page_bytes, 2162688ULL * 12);
    ck_assert_uint_eq(r.blocks, 1654);
    ck_assert_msg(fabs(r.max_concurrency - 1654.0 / 35.0) < 1e-9, "%f", r.max_concurrency);
    vs_fit_row_free(&r);
    json_decref(s);
}
END_TEST

/* A vision-language model under vLLM has the encoder's profiling pass as a runtime item:
 * unknown (the row an upper bound, naming it) until a component fills it, then inside the
 * budget; a text model has none. Every other item measured at 0 (sheet_with), the KV pool
 * at 0.9 x 85e9 = 76.5e9 budget less 14e9 of weights = 62.5e9 B. */
START_TEST(vllm_encoder_profile_item)
{
    static const char layout[] = "[{\"kind\": \"full\", \"layers\": 28, \"kv_heads\": 4, "
                                 "\"head_dim\": 128}]";
    vs_fit_row r;
    vs_error e;
    size_t i;
    int named = 0;
    json_t *s = sheet_with(layout, 1, 8192, 4, "{\"name\": \"vllm\", \"keys\": {}}");
    /* text only: no encoder item, nothing unknown */
    fit_one(&r, s, H100);
    ck_assert_int_eq(r.upper_bound, 0);
    ck_assert_int_eq(r.kv_pool_bytes, 62500000000LL);
    vs_fit_row_free(&r);
    /* Qwen2.5-VL-7B's vision tower and projector: 631,975,680 + 44,574,464 */
    json_object_set_new(json_object_get(vs_sheet_card(s), "arch"), "encoder_params",
                        json_integer(676550144));
    fit_one(&r, s, H100);
    ck_assert_int_eq(r.upper_bound, 1);
    for (i = 0; i < json_array_size(r.unknown); i++)
        if (!strcmp(json_string_value(json_array_get(r.unknown, i)),
                    "encoder_profile (runtime item)"))
            named = 1;
    ck_assert_int_eq(named, 1);
    ck_assert_int_eq(r.kv_pool_bytes, 62500000000LL);
    vs_fit_row_free(&r);
    /* measured at 1.5e9 B: taken out of the budget before the pool */
    ck_assert_int_eq(vs_sheet_set_component(s, "encoder_profile", 1, 1500000000ULL, "measured", "t",
                                            NULL, NULL, &e),
                     0);
    fit_one(&r, s, H100);
    ck_assert_int_eq(r.upper_bound, 0);
    ck_assert_int_eq(r.kv_pool_bytes, 61000000000LL);
    vs_fit_row_free(&r);
    json_decref(s);
}
END_TEST

/* SGLang's separate pools for a hybrid model (engine/sglang_hybrid.c): Qwen3-Next-80B's
 * layout (12 attention layers of 2 KV heads x 256, 36 gated delta nets of 24,576 conv and
 * 524,288 temporal values) on the 85e9 B offer, mem_fraction_static 0.88, 14e9 B of
 * weights, the runtime items 0. By hand (model_runner_kv_cache_mixin.py at 001ccef):
 *   pool = floor(85e9 x 0.88) - 14e9 = 60.8e9 B
 *   mamba_cache_per_req = 36 x (24,576 x 2 + 524,288 x 4) = 77,266,944 B
 *   slots = 60.8e9 x 0.9 / 1.9 // 77,266,944 = 28.8e9 // 77,266,944 = 372
 *   tokens = (60.8e9 - 372 x 77,266,944) // (12 x 2 x 2 x 256 x 2) = 32,056,696,832 //
 *   24,576 = 1,304,390
 *   requests at once: min(4096, 372 // 3 = 124) = 124 */
START_TEST(sglang_hybrid_pools)
{
    static const char layout[] =
        "[{\"kind\": \"full\", \"layers\": 12, \"kv_heads\": 2, \"head_dim\": 256},"
        " {\"kind\": \"state\", \"layers\": 36, \"state_bytes\": 2146304, "
        "\"state_conv\": 24576, \"state_ssm\": 524288}]";
    vs_fit_row r;
    json_t *s = sheet_with(layout, 1, 1024, 4,
                           "{\"name\": \"sglang\", \"keys\": {\"mem_fraction_static\": \"0.88\"}}");
    fit_one(&r, s, H100);
    ck_assert_int_eq(r.kv_pool_bytes, 60800000000LL);
    ck_assert_uint_eq(r.kv_tokens, 1304390);
    ck_assert_msg(fabs(r.max_concurrency - 124.0) < 1e-9, "%f", r.max_concurrency);
    ck_assert_uint_eq(r.need_bytes, 4ULL * 1024 * 24576 + 4ULL * 77266944);
    ck_assert_ptr_nonnull(strstr(r.kv_rule, "372 state slots"));
    vs_fit_row_free(&r);
    json_decref(s);
    /* bf16 temporal state: 36 x (49,152 + 1,048,576) = 39,518,208 B a slot,
     * 28.8e9 // 39,518,208 = 728 slots; max_mamba_cache_size=100 given: 100 slots,
     * (60.8e9 - 100 x 77,266,944) // 24,576 = 2,159,558 tokens, 33 requests */
    s = sheet_with(layout, 1, 1024, 4,
                   "{\"name\": \"sglang\", \"keys\": {\"mamba_ssm_dtype\": \"bfloat16\", "
                   "\"mem_fraction_static\": \"0.88\"}}");
    fit_one(&r, s, H100);
    ck_assert_ptr_nonnull(strstr(r.kv_rule, "728 state slots of 39518208 B"));
    vs_fit_row_free(&r);
    json_decref(s);
    s = sheet_with(layout, 1, 1024, 4,
                   "{\"name\": \"sglang\", \"keys\": {\"max_mamba_cache_size\": \"100\", "
                   "\"mem_fraction_static\": \"0.88\"}}");
    fit_one(&r, s, H100);
    ck_assert_uint_eq(r.kv_tokens, 2159558);
    ck_assert_msg(fabs(r.max_concurrency - 33.0) < 1e-9, "%f", r.max_concurrency);
    vs_fit_row_free(&r);
    json_decref(s);
}
END_TEST

/* fit's maximum length stops at the model's context (card.arch.context, from
 * config.json): the 1,654 blocks above hold 1,654 x 1,056 tokens, but a model of
 * 40,960 positions is not offered more. */
START_TEST(fit_max_length_capped_at_the_context)
{
    vs_fit_row r;
    json_t *s =
        sheet_with("[{\"kind\": \"full\", \"layers\": 28, \"kv_heads\": 2, "
                   "\"head_dim\": 128}]",
                   1, 8192, 1, "{\"name\": \"vllm\", \"keys\": {\"kv_cache_memory\": \"8GiB\"}}");
    fit_one(&r, s, H100);
    /* 8 GiB // (2 x 16 x 2 x 128 x 2 x 28 = 458,752) = 18,724 blocks = 299,584 tokens */
    ck_assert_uint_eq(r.max_length, 299584);
    vs_fit_row_free(&r);
    json_object_set_new(json_object_get(vs_sheet_card(s), "arch"), "context", json_integer(40960));
    fit_one(&r, s, H100);
    ck_assert_uint_eq(r.max_length, 40960);
    vs_fit_row_free(&r);
    json_decref(s);
}
END_TEST

/* ---- each engine's budget rule ---- */

/* On a declared total of 85e9 B with 14e9 B of weights (7e9 params, bf16) and the
 * runtime items at 1e9 B (non_torch) and 2e9 B (activation_peak), full layout of
 * 32 x 8 x 128 (128 KiB per token):
 *   vllm 0.9:    budget ceil(85e9 x 0.9) = 76.5e9; pool 76.5e9 - 14e9 - 3e9 = 59.5e9
 *   sglang 0.4 (0.88 at tp 1): the fraction of the free memory before loading, the total
 *               less non_torch: budget floor(84e9 x 0.88) + 1e9 = 74.92e9; pool 74.92e9 -
 *               14e9 - 1e9 = 59.92e9 (activations beyond the budget)
 *   sglang 0.5:  85e9 B = 81,062.5 MiB, under 90 GiB: chunked_prefill_size 8192,
 *               cuda_graph_max_bs 256; reserved 512 + 12,288 + 512 + 128 = 13,440 MiB;
 *               round(67,622.5 / 81,062.5, 3) = 0.834; budget floor(84e9 x 0.834) + 1e9 =
 *               71.056e9; pool 56.056e9
 *   trt 0.9:     pool 0.9 x (85e9 - 14e9 - 3e9) = 61.2e9
 *   llamacpp:    free = 85e9 less the measured non_torch 1e9 (the CUDA context, which
 *                common/fit.cpp finds gone from the free memory), budget free - 1 GiB =
 *                82,926,258,176; pool that - 16e9 (the compute buffer inside)
 *   none:        pool 85e9 - 17e9 = 68e9, tokens 68e9 // 131072 = 518,798 */
START_TEST(engine_budget_rules)
{
    static const struct {
        const char *engine;
        long long budget, pool;
    } cases[] = {
        {"{\"name\": \"vllm\", \"keys\": {}}", 76500000000LL, 59500000000LL},
        {"{\"name\": \"sglang\", \"keys\": {\"version\": \"0.4\"}}", 74920000000LL, 59920000000LL},
        {"{\"name\": \"sglang\", \"keys\": {}}", 71056000000LL, 56056000000LL},
        {"{\"name\": \"tensorrt_llm\", \"keys\": {}}", 85000000000LL, 61200000000LL},
        {"{\"name\": \"llamacpp\", \"keys\": {}}", 82926258176LL, 66926258176LL},
        {"{\"name\": \"none\", \"keys\": {}}", 85000000000LL, 68000000000LL},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        vs_fit_row r;
        vs_error e;
        json_t *s = sheet_with("[{\"kind\": \"full\", \"layers\": 32, \"kv_heads\": 8, "
                               "\"head_dim\": 128}]",
                               1, 4096, 1, cases[i].engine);
        ck_assert_int_eq(
            vs_sheet_set_component(s, "non_torch", 1, 1000000000, "measured", "t", NULL, NULL, &e),
            0);
        ck_assert_int_eq(vs_sheet_set_component(s, "activation_peak", 1, 2000000000, "measured",
                                                "t", NULL, NULL, &e),
                         0);
        fit_one(&r, s,
                "{\"name\": \"x\", \"reported_bytes\": 85000000000, \"reported_basis\": "
                "\"declared with reported=\"}");
        ck_assert_msg(r.budget_bytes == (uint64_t)cases[i].budget, "%s budget %llu",
                      cases[i].engine, (unsigned long long)r.budget_bytes);
        ck_assert_msg(r.kv_pool_bytes == cases[i].pool, "%s pool %lld", cases[i].engine,
                      (long long)r.kv_pool_bytes);
        if (strstr(cases[i].engine, "none"))
            ck_assert_uint_eq(r.kv_tokens, 68000000000ULL / 131072);
        vs_fit_row_free(&r);
        json_decref(s);
    }
}
END_TEST

/* SGLang 0.4 unset chooses mem_fraction_static by tensor-parallel size
 * (python/sglang/srt/server_args.py __post_init__, v0.4): at tp 4, 0.85, so
 * the budget on 85e9 B is floor(85e9 x 0.85) = 72,250,000,000; given, 0.88
 * is kept: 74,800,000,000. SGLang 0.5 (the default) by the card and tp
 * (server_args.py _handle_gpu_memory_settings): 81,062.5 MiB at tp 4 takes
 * chunked_prefill_size 8192, cuda_graph_max_bs 512, reserved 512 + 12,288 + 1,024 +
 * 512 = 14,336 MiB, round(66,726.5 / 81,062.5, 3) = 0.823: floor(85e9 x 0.823) =
 * 69,955,000,000. */
START_TEST(sglang_fraction_by_tp)
{
    static const struct {
        const char *engine;
        long long budget;
    } cases[] = {
        {"{\"name\": \"sglang\", \"keys\": {\"version\": \"0.4\"}}", 72250000000LL},
        {"{\"name\": \"sglang\", \"keys\": {}}", 69955000000LL},
        {"{\"name\": \"sglang\", \"keys\": {\"mem_fraction_static\": \"0.88\"}}", 74800000000LL},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        vs_fit_row r;
        json_t *s = sheet_with("[{\"kind\": \"full\", \"layers\": 32, \"kv_heads\": 8, "
                               "\"head_dim\": 128}]",
                               4, 4096, 1, cases[i].engine);
        fit_one(&r, s,
                "{\"name\": \"x\", \"reported_bytes\": 85000000000, \"reported_basis\": "
                "\"declared with reported=\"}");
        ck_assert_msg(r.budget_bytes == (uint64_t)cases[i].budget, "%s budget %llu",
                      cases[i].engine, (unsigned long long)r.budget_bytes);
        vs_fit_row_free(&r);
        json_decref(s);
    }
}
END_TEST

/* SGLang 0.5 unset (python/sglang/srt/server_args.py _handle_gpu_memory_settings,
 * sgl-project/sglang#10975 with #11076's constants): gpu_mem the card's total in MiB,
 * reserved = 512 + 1.5 x chunked_prefill_size + 2 x cuda_graph_max_bs + tp / 8 x 1024 MiB,
 * the fraction round((gpu_mem - reserved) / gpu_mem, 3). By hand:
 *   288 GiB (294,912 MiB), tp 1: over 160 GiB, 16384 and 512: 512 + 24,576 + 1,024 + 128 =
 *     26,240; 268,672 / 294,912 = 0.91102 -> 0.911, what sgl-project/sglang#18263 printed
 *     (mem_fraction_static=0.911 on a 288 GB card, tp 1); floor(309,237,645,312 x 0.911) =
 *     281,715,494,879
 *   H200 (143,771 MiB), tp 8: 8192 and 512: 512 + 12,288 + 1,024 + 1,024 = 14,848;
 *     128,923 / 143,771 = 0.89672 -> 0.897; floor(150,754,820,096 x 0.897) =
 *     135,227,073,626
 *   RTX 4090 (24,564 MiB), tp 1: under 35 GiB, 2048 and 24: 512 + 3,072 + 48 + 128 = 3,760;
 *     20,804 / 24,564 = 0.84693 -> 0.847; floor(25,757,220,864 x 0.847) = 21,816,366,071 */
START_TEST(sglang_fraction_by_memory)
{
    static const struct {
        uint64_t total, tp;
        long long budget;
        const char *fraction;
    } cases[] = {
        {309237645312ULL, 1, 281715494879LL, "mem_fraction_static 0.911 (SGLang 0.5's"},
        {150754820096ULL, 8, 135227073626LL, "mem_fraction_static 0.897 (SGLang 0.5's"},
        {25757220864ULL, 1, 21816366071LL, "mem_fraction_static 0.847 (SGLang 0.5's"},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        vs_fit_row r;
        char offer[200];
        json_t *s = sheet_with("[{\"kind\": \"full\", \"layers\": 32, \"kv_heads\": 8, "
                               "\"head_dim\": 128}]",
                               cases[i].tp, 4096, 1, "{\"name\": \"sglang\", \"keys\": {}}");
        snprintf(offer, sizeof offer,
                 "{\"name\": \"x\", \"reported_bytes\": %llu, \"reported_basis\": "
                 "\"declared with reported=\"}",
                 (unsigned long long)cases[i].total);
        fit_one(&r, s, offer);
        ck_assert_msg(r.budget_bytes == (uint64_t)cases[i].budget, "case %zu budget %llu", i,
                      (unsigned long long)r.budget_bytes);
        ck_assert_msg(strstr(r.budget_rule, cases[i].fraction), "%s", r.budget_rule);
        vs_fit_row_free(&r);
        json_decref(s);
    }
}
END_TEST

/* vLLM V1 captures its CUDA graphs after the KV cache is allocated
 * (vllm/v1/worker/gpu_worker.py at 0012cf691b7e: compile_or_warm_up_model runs
 * capture_model after initialize_from_config), so by default the graphs are held beyond
 * the budget. On 85e9 B at 0.9 (budget 76.5e9), 14e9 B of weights, non_torch 1e9,
 * activation_peak 2e9, cuda_graphs 1e9: pool 76.5e9 - 17e9 = 59.5e9 and 1e9 outside;
 * graphs_in_budget=yes takes them from the pool: 58.5e9, nothing outside. */
START_TEST(vllm_graphs_outside_by_default)
{
    static const struct {
        const char *engine;
        long long pool, outside;
    } cases[] = {
        {"{\"name\": \"vllm\", \"keys\": {}}", 59500000000LL, 1000000000LL},
        {"{\"name\": \"vllm\", \"keys\": {\"graphs_in_budget\": \"yes\"}}", 58500000000LL, 0},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        vs_fit_row r;
        vs_error e;
        json_t *s = sheet_with("[{\"kind\": \"full\", \"layers\": 32, \"kv_heads\": 8, "
                               "\"head_dim\": 128}]",
                               1, 4096, 1, cases[i].engine);
        ck_assert_int_eq(
            vs_sheet_set_component(s, "non_torch", 1, 1000000000, "measured", "t", NULL, NULL, &e),
            0);
        ck_assert_int_eq(vs_sheet_set_component(s, "activation_peak", 1, 2000000000, "measured",
                                                "t", NULL, NULL, &e),
                         0);
        ck_assert_int_eq(vs_sheet_set_component(s, "cuda_graphs", 1, 1000000000, "measured", "t",
                                                NULL, NULL, &e),
                         0);
        fit_one(&r, s,
                "{\"name\": \"x\", \"reported_bytes\": 85000000000, \"reported_basis\": "
                "\"declared with reported=\"}");
        ck_assert_msg(r.kv_pool_bytes == cases[i].pool, "%s pool %lld", cases[i].engine,
                      (long long)r.kv_pool_bytes);
        ck_assert_uint_eq(r.outside_bytes, (uint64_t)cases[i].outside);
        vs_fit_row_free(&r);
        json_decref(s);
    }
}
END_TEST

/* vLLM's batch defaults by release and GPU (vllm/engine/arg_utils.py get_batch_defaults,
 * V1, vllm serve): 1024 sequences and 8192 batched tokens on a GPU of 70 GiB or more whose
 * name has no "a100", else 256 and 2048. One sliding layer of window 1024 (8 heads x 128,
 * page 16 x 8 x 256 x 2 = 65,536 B) at 32,768 tokens keeps cdiv(1023 + mnbt, 16) + 1
 * pages per request: 577 at 8192, 193 at 2048, 321 at 4096 given. 40 GiB is 655,360
 * pages, so 300 requests always fit the pool; only max_num_seqs can exclude them. */
START_TEST(vllm_release_defaults)
{
    static const struct {
        const char *offer, *keys, *rule;
        vs_verdict conc;
    } cases[] = {
        {"{\"name\": \"x\", \"reported_bytes\": 85000000000, \"reported_basis\": \"declared\"}",
         "{}", "577 blocks per request", VS_VERDICT_ADMISSIBLE},
        {"{\"name\": \"x\", \"reported_bytes\": 85000000000, \"reported_basis\": \"declared\"}",
         "{\"version\": \"0.10.2\"}", "577 blocks per request", VS_VERDICT_ADMISSIBLE},
        {"{\"name\": \"A100 80GB\", \"reported_bytes\": 85000000000, \"reported_basis\": "
         "\"declared\"}",
         "{}", "193 blocks per request", VS_VERDICT_EXCLUDE},
        {"{\"name\": \"x\", \"reported_bytes\": 60000000000, \"reported_basis\": \"declared\"}",
         "{}", "193 blocks per request", VS_VERDICT_EXCLUDE},
        {"{\"name\": \"x\", \"reported_bytes\": 85000000000, \"reported_basis\": \"declared\"}",
         "{\"max_num_batched_tokens\": \"4096\"}", "321 blocks per request", VS_VERDICT_ADMISSIBLE},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        vs_fit_row r;
        char eng[160];
        json_t *s, *keys;
        snprintf(eng, sizeof eng, "{\"name\": \"vllm\", \"keys\": %s}", cases[i].keys);
        s = sheet_with("[{\"kind\": \"sliding\", \"layers\": 1, \"kv_heads\": 8, "
                       "\"head_dim\": 128, \"window\": 1024}]",
                       1, 32768, 300, eng);
        keys = json_object_get(json_object_get(vs_sheet_card(s), "engine"), "keys");
        json_object_set_new(keys, "kv_cache_memory", json_string("40GiB"));
        fit_one(&r, s, cases[i].offer);
        ck_assert_msg(strstr(r.kv_rule, cases[i].rule), "case %zu: %s", i, r.kv_rule);
        ck_assert_msg(r.concurrency_verdict == cases[i].conc, "case %zu concurrency %d", i,
                      (int)r.concurrency_verdict);
        vs_fit_row_free(&r);
        json_decref(s);
    }
}
END_TEST

/* version= accepts the modelled releases only, naming them. */
START_TEST(vllm_version_key)
{
    vs_fit_ctx c;
    vs_error e;
    json_t *s = sheet_with("[{\"kind\": \"full\", \"layers\": 32, \"kv_heads\": 8, "
                           "\"head_dim\": 128}]",
                           1, 4096, 1, "{\"name\": \"vllm\", \"keys\": {\"version\": \"0.5.0\"}}");
    ck_assert_int_lt(vs_fit_prepare(&c, s, &e), 0);
    ck_assert_msg(strstr(e.message, "0.11.0") != NULL, "%s", e.message);
    vs_fit_ctx_free(&c);
    json_decref(s);
    run_ok("sheet \"v\"\nmodel m params=1B\nformat bf16\ntask inference\nlength 1024\n"
           "engine vllm");
    {
        json_t *ks = json_object_get(lastp(), "keys"), *k;
        size_t j;
        int seen = 0;
        json_array_foreach(ks, j, k) if (!strcmp(sval(k, "name"), "version"))
        {
            ck_assert_str_eq(sval(k, "value"), "0.19.0");
            ck_assert(strstr(sval(k, "source"), "newest release modelled here") != NULL);
            seen = 1;
        }
        ck_assert(seen);
    }
    run_ok("engine vllm version=0.10.2");
    ck_assert_str_eq(sval(json_object_get(lastp(), "keys_written"), "version"), "0.10.2");
}
END_TEST

/* SGLang starts with a pool smaller than the context and caps each request at
 * max_total_num_tokens - 1 (python/sglang/srt/managers/tp_worker.py max_req_len at
 * 0045f98e); it refuses only when max_req_len - 5 is not positive. On 20e9 B at
 * mem_fraction_static 0.88 with 14e9 B of weights, the pool is floor((20e9 - non_torch)
 * x 0.88) - 14e9 (the fraction of the free memory before loading), so
 *   non_torch 0:                 pool 3.6e9, 3.6e9 // 131,072 = 27,465 tokens; a request
 *                                of 32,768 is capped at 27,464: starts, length excluded;
 *   non_torch 4,090,015,304:     15,909,984,696 x 0.88 = 14,000,786,532.48: pool 786,532 =
 *                                6 tokens (786,432) + 100: refused;
 *   non_torch 4,089,866,359:     15,910,133,641 x 0.88 = 14,000,917,604.08: pool 917,604 =
 *                                7 tokens + 100: starts, capped at 6. */
START_TEST(sglang_starts_short)
{
    static const struct {
        long long non_torch;
        uint64_t tokens, cap;
        vs_verdict start, len;
    } cases[] = {
        {0, 27465, 27464, VS_VERDICT_ADMISSIBLE, VS_VERDICT_EXCLUDE},
        {4090015304LL, 6, 5, VS_VERDICT_EXCLUDE, VS_VERDICT_EXCLUDE},
        {4089866359LL, 7, 6, VS_VERDICT_ADMISSIBLE, VS_VERDICT_EXCLUDE},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        vs_fit_row r;
        vs_error e;
        json_t *s = sheet_with("[{\"kind\": \"full\", \"layers\": 32, \"kv_heads\": 8, "
                               "\"head_dim\": 128}]",
                               1, 32768, 1,
                               "{\"name\": \"sglang\", \"keys\": {\"mem_fraction_static\": "
                               "\"0.88\"}}");
        ck_assert_int_eq(vs_sheet_set_component(s, "non_torch", 1, (uint64_t)cases[i].non_torch,
                                                "measured", "t", NULL, NULL, &e),
                         0);
        fit_one(&r, s,
                "{\"name\": \"x\", \"reported_bytes\": 20000000000, \"reported_basis\": "
                "\"declared with reported=\"}");
        ck_assert_uint_eq(r.kv_tokens, cases[i].tokens);
        ck_assert_msg(r.start_verdict == cases[i].start, "case %zu start %d", i,
                      (int)r.start_verdict);
        ck_assert_msg(r.length_verdict == cases[i].len, "case %zu length %d", i,
                      (int)r.length_verdict);
        ck_assert_uint_le(r.max_length, cases[i].cap);
        if (cases[i].start == VS_VERDICT_EXCLUDE)
            ck_assert_msg(strstr(r.note, "Memory pool size is too small"), "%s", r.note);
        else
            ck_assert_msg(strstr(r.note, "caps each request"), "%s", r.note);
        vs_fit_row_free(&r);
        json_decref(s);
    }
}
END_TEST

/* SGLang's requests at once, unset: min(max_total_num_tokens // 2, max_num_reqs =
 * min(max(int(tokens / context_len x 512), 2048), 4096)) (tp_worker.py, model_runner.py
 * init_memory_pool). On 85e9 B at 0.88 with 14e9 B of weights: pool 60.8e9 B, 60.8e9 //
 * 131,072 = 463,867 tokens. At length 64 the pool holds 7,247.9 requests but
 * 463,867 x 512 / 64 caps max_num_reqs at 4096: max concurrency 4096, and 5000 at once is
 * excluded. max_running_requests=100 given: 100. On 20e9 B with non_torch 4,089,866,359
 * (7 tokens, sglang_starts_short) at length 1: 7 requests by the pool, 7 // 2 = 3. */
START_TEST(sglang_max_running_requests)
{
    static const struct {
        const char *engine;
        long long total, non_torch;
        uint64_t length, concurrency;
        double conc;
        vs_verdict verdict;
    } cases[] = {
        {"{\"name\": \"sglang\", \"keys\": {\"mem_fraction_static\": \"0.88\"}}", 85000000000LL, 0,
         64, 1, 4096.0, VS_VERDICT_ADMISSIBLE},
        {"{\"name\": \"sglang\", \"keys\": {\"mem_fraction_static\": \"0.88\"}}", 85000000000LL, 0,
         64, 5000, 4096.0, VS_VERDICT_EXCLUDE},
        {"{\"name\": \"sglang\", \"keys\": {\"mem_fraction_static\": \"0.88\", "
         "\"max_running_requests\": \"100\"}}",
         85000000000LL, 0, 64, 1, 100.0, VS_VERDICT_ADMISSIBLE},
        {"{\"name\": \"sglang\", \"keys\": {\"mem_fraction_static\": \"0.88\"}}", 20000000000LL,
         4089866359LL, 1, 1, 3.0, VS_VERDICT_ADMISSIBLE},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        vs_fit_row r;
        vs_error e;
        char offer[200];
        json_t *s = sheet_with("[{\"kind\": \"full\", \"layers\": 32, \"kv_heads\": 8, "
                               "\"head_dim\": 128}]",
                               1, cases[i].length, cases[i].concurrency, cases[i].engine);
        ck_assert_int_eq(vs_sheet_set_component(s, "non_torch", 1, (uint64_t)cases[i].non_torch,
                                                "measured", "t", NULL, NULL, &e),
                         0);
        snprintf(offer, sizeof offer,
                 "{\"name\": \"x\", \"reported_bytes\": %lld, \"reported_basis\": "
                 "\"declared with reported=\"}",
                 cases[i].total);
        fit_one(&r, s, offer);
        ck_assert_msg(fabs(r.max_concurrency - cases[i].conc) < 1e-9, "case %zu: %f", i,
                      r.max_concurrency);
        ck_assert_msg(r.concurrency_verdict == cases[i].verdict, "case %zu concurrency %d", i,
                      (int)r.concurrency_verdict);
        vs_fit_row_free(&r);
        json_decref(s);
    }
}
END_TEST

/* Unknown runtime items only shrink the pool: vLLM on 20e9 B at 0.9 (budget 18e9) with
 * 14e9 of weights, non_torch 1e9 measured and activation_peak unknown has at most
 * 3e9 B, 3e9 // (16 x 131,072 = 2,097,152) = 1,430 blocks, and a request of 32,768
 * tokens takes 2,048: 0.70 requests. The engine would refuse whatever the unknown item
 * is, so the verdict is exclude (not to-confirm), and the note names the rule. */
START_TEST(vllm_exclude_from_lower_bounds)
{
    vs_fit_row r;
    vs_error e;
    json_t *s = sheet_with("[{\"kind\": \"full\", \"layers\": 32, \"kv_heads\": 8, "
                           "\"head_dim\": 128}]",
                           1, 32768, 1, "{\"name\": \"vllm\", \"keys\": {}}");
    ck_assert_int_eq(
        vs_sheet_set_component(s, "non_torch", 1, 1000000000, "measured", "t", NULL, NULL, &e), 0);
    /* sheet_with's components: non_torch, activation_peak, cuda_graphs */
    ck_assert_int_eq(vs_sheet_remove_component(s, 1), 0);
    fit_one(&r, s,
            "{\"name\": \"x\", \"reported_bytes\": 20000000000, \"reported_basis\": "
            "\"declared with reported=\"}");
    ck_assert_int_eq(r.upper_bound, 1);
    ck_assert_int_eq(r.kv_pool_bytes, 3000000000LL);
    ck_assert_uint_eq(r.blocks, 1430);
    ck_assert_int_eq(r.start_verdict, VS_VERDICT_EXCLUDE);
    ck_assert_int_eq(r.verdict, VS_VERDICT_EXCLUDE);
    ck_assert_msg(strstr(r.note, "check_enough_kv_cache_memory"), "%s", r.note);
    ck_assert_msg(strstr(r.note, "0.70 requests"), "%s", r.note);
    vs_fit_row_free(&r);
    json_decref(s);
}
END_TEST

/* transformers eager attention: one layer's scores, heads x length^2 x (2 + 4) bytes per
 * sequence. 32 query heads at 4096 tokens: 32 x 4096^2 x 6 = 3,221,225,472 B, on top of
 * the cache, 4096 x 128 KiB = 536,870,912 B. */
START_TEST(transformers_eager_scores)
{
    vs_fit_row r;
    json_t *s = sheet_with("[{\"kind\": \"full\", \"layers\": 32, \"kv_heads\": 8, "
                           "\"head_dim\": 128}]",
                           1, 4096, 1,
                           "{\"name\": \"transformers\", \"keys\": {\"attention\": \"eager\"}}");
    json_object_set_new(json_object_get(vs_sheet_card(s), "arch"), "heads", json_integer(32));
    fit_one(&r, s, H100);
    ck_assert_uint_eq(r.need_bytes, 536870912ULL + 3221225472ULL);
    vs_fit_row_free(&r);
    json_decref(s);
    s = sheet_with("[{\"kind\": \"full\", \"layers\": 32, \"kv_heads\": 8, \"head_dim\": 128}]", 1,
                   4096, 1, "{\"name\": \"transformers\", \"keys\": {}}");
    fit_one(&r, s, H100);
    ck_assert_uint_eq(r.need_bytes, 536870912ULL); /* sdpa: no score matrix */
    vs_fit_row_free(&r);
    json_decref(s);
}
END_TEST

/* ---- keys, defaults, runtime items ---- */

START_TEST(engine_defaults_parse)
{
    size_t i;
    for (i = 0; vs_engines[i]; i++) {
        vs_engine_env env;
        vs_error e;
        memset(&env, 0, sizeof env);
        ck_assert_msg(vs_engine_resolve(&env, vs_engines[i], NULL, &e) == 0, "%s: %s",
                      vs_engines[i]->name, e.message);
        ck_assert_ptr_nonnull(vs_engines[i]->help);
        {
            size_t k = 0;
            while (vs_engines[i]->keys[k].name)
                k++;
            ck_assert_uint_lt(k, VS_ENGINE_KEYS_MAX); /* the resolved values fit */
        }
    }
}
END_TEST

static int offered(json_t *m, const char *s)
{
    size_t i;
    for (i = 0; i < json_array_size(m); i++)
        if (!strcmp(json_string_value(json_array_get(m, i)), s))
            return 1;
    return 0;
}

/* completion and help: the words and keys offered, and the engines `help
 * engine` lists, are the table's; each alias finds its engine */
START_TEST(engine_completion_is_the_table)
{
    const vs_verb *v = vs_verb_find("engine");
    vs_interp *cip = vs_interp_new(NULL);
    vs_bundle *page;
    json_t *m, *words;
    size_t i, k, start, end;
    char code[96], key[64];
    ck_assert_ptr_nonnull(v);
    page = vs_verb_help_bundle(v);
    ck_assert_ptr_nonnull(page);
    ck_assert_int_eq(vs_interp_complete(cip, "engine ", 7, &words, &start, &end), 0);
    for (i = 0; vs_engines[i]; i++) {
        const vs_engine *e = vs_engines[i];
        ck_assert_msg(offered(words, e->name), "engine %s not offered", e->name);
        ck_assert_ptr_nonnull(strstr(page->json, e->summary));
        snprintf(code, sizeof code, "engine %s ", e->name);
        ck_assert_int_eq(vs_interp_complete(cip, code, strlen(code), &m, &start, &end), 0);
        for (k = 0; e->keys[k].name; k++) {
            snprintf(key, sizeof key, "%s=", e->keys[k].name);
            ck_assert_msg(offered(m, key), "engine %s: key %s not offered", e->name,
                          e->keys[k].name);
        }
        ck_assert(offered(m, "estimate="));           /* the verb's own key */
        ck_assert_uint_eq(json_array_size(m), k + 1); /* and that engine's keys only */
        json_decref(m);
        for (k = 0; e->aliases && e->aliases[k]; k++)
            ck_assert_ptr_eq(vs_engine_find(e->aliases[k]), e);
        ck_assert_ptr_eq(vs_engine_find(e->name), e);
    }
    /* besides the keys of every engine, only the engines */
    for (k = 0; k < json_array_size(words); k++) {
        const char *w = json_string_value(json_array_get(words, k));
        ck_assert_msg(strchr(w, '=') || vs_engine_find(w), "%s offered", w);
    }
    ck_assert_ptr_eq(vs_engine_find("llama.cpp"), vs_engine_find("llamacpp"));
    ck_assert_ptr_null(vs_engine_find("nosuch"));
    json_decref(words);
    vs_bundle_free(page);
    vs_interp_free(cip);
}
END_TEST

START_TEST(engine_verb)
{
    json_t *p, *comps;
    run_ok("sheet \"e\"\nmodel m params=7B\nformat bf16\nengine vllm");
    p = lastp();
    ck_assert_str_eq(sval(p, "kind"), "engine");
    ck_assert_str_eq(sval(p, "name"), "vllm");
    /* the defaults with their sources */
    ck_assert_str_eq(sval(json_array_get(json_object_get(p, "keys"), 0), "value"), "0.9");
    ck_assert(strstr(sval(json_array_get(json_object_get(p, "keys"), 0), "source"),
                     "vllm/config/cache.py") != NULL);
    /* the runtime items are components, unknown */
    run_ok("envelope");
    comps = json_object_get(lastp(), "components");
    ck_assert_uint_eq(json_array_size(comps), 3);
    ck_assert(json_is_null(json_object_get(json_array_get(comps, 0), "bytes")));
    /* a measurement fills an item; enforce_eager says there are no graphs */
    run_ok("reserve cuda_graphs 0GiB status=measured source=\"--enforce-eager\"\nengine vllm");
    run_ok("engine");
    p = lastp();
    ck_assert(json_is_integer(
        json_object_get(json_array_get(json_object_get(p, "runtime_items"), 2), "bytes")));
    /* errors: an unknown engine, an unknown key, a bad value */
    ck_assert_int_eq(run("engine vlm"), VS_ENOTFOUND);
    ck_assert_int_eq(run("engine vllm gpu_util=0.9"), VS_EVALUE);
    ck_assert(strstr(err.message, "gpu_memory_utilization=") != NULL);
    ck_assert_int_eq(run("engine vllm gpu_memory_utilization=1.5"), VS_EVALUE);
    /* engine none takes the engine's unknown items away, keeps the measurement */
    run_ok("engine none\nenvelope");
    comps = json_object_get(lastp(), "components");
    ck_assert_uint_eq(json_array_size(comps), 1);
    ck_assert_str_eq(sval(json_array_get(comps, 0), "name"), "cuda_graphs");
}
END_TEST

START_TEST(engine_record_roundtrip)
{
    json_t *s = vs_sheet_new("r"), *l = NULL;
    char *d, *d2;
    vs_error e;
    json_error_t je;
    json_object_set_new(vs_sheet_card(s), "engine",
                        json_loads("{\"name\": \"vllm\", \"keys\": {\"max_num_seqs\": \"64\", "
                                   "\"block_size\": \"32\"}}",
                                   0, &je));
    d = vs_sheet_dump(s);
    ck_assert_ptr_nonnull(d);
    ck_assert(strstr(d, "\"schema\": \"vramsheet/sheet/2\"") != NULL);
    ck_assert(strstr(d, "\"engine\": {") != NULL);
    ck_assert_msg(vs_sheet_load(&l, d, strlen(d), &e) == 0, "%s", e.message);
    d2 = vs_sheet_dump(l);
    ck_assert_str_eq(d, d2);
    free(d);
    free(d2);
    json_decref(l);
    /* sheet.md shows the engine as written */
    d = vs_markdown_sheet(s);
    ck_assert_ptr_nonnull(d);
    ck_assert_msg(strstr(d, "| engine | vllm max_num_seqs=64 block_size=32 |") != NULL, "%s", d);
    free(d);
    json_decref(s);
    /* a schema-1 record loads, as schema 2, with engine null */
    {
        const char *old = "{\"schema\": \"vramsheet/sheet/1\", \"id\": \"o\"}";
        ck_assert_int_eq(vs_sheet_load(&l, old, strlen(old), &e), 0);
        ck_assert(json_is_null(json_object_get(vs_sheet_card(l), "engine")));
        ck_assert_str_eq(json_string_value(json_object_get(l, "schema")), "vramsheet/sheet/2");
        json_decref(l);
    }
}
END_TEST

/* ---- runtime-item estimates ---- */

/* The larger of the forward pass's MLP peak and the sampler's run, worked by hand:
 * Llama-3-8B widths (hidden 4096, intermediate 14336, vocab 128256) at 8192 tokens:
 * forward 8192 x (3 x 14336 + 4 x 4096) x 2 = 8192 x 59392 x 2 = 973,078,528 B;
 * sampler at 256 sequences 256 x 128256 x 40 = 1,313,341,440 B (the larger), at 64
 * sequences 328,335,360 B (the forward pass is). At TP 2 the MLP's width halves:
 * 8192 x (3 x 7168 + 16384) x 2 = 620,756,992 B. Qwen3-235B-A22B at TP 4 (hidden
 * 4096, moe_intermediate 1536, 8 experts per token, no dense layer; its dense
 * intermediate_size 12288 unused) with 16 sequences: 8192 x (8 x (3 x 384 + 4096) +
 * 4 x 4096) x 2 = 8192 x 58368 x 2 = 956,301,312 B, where the dense width would give
 * 8192 x (3 x 3072 + 16384) x 2 = 419,430,400 B. A V0 rank past the first runs no
 * sampler: at 256 sequences and TP 1 its peak is the forward pass, 973,078,528 B.
 * non_torch: Hopper 160 MiB; at TP 2 + 403 MiB of NVLink buffers = 563 MiB; at TP 4
 * + 1,800 MiB of NVLink rings and 4 x 32 MiB of NVLS: 160 + 1800 + 128 = 2088 MiB; Ada Lovelace 30
 * MiB, at TP 2 30 + 225 = 255 MiB; Blackwell 70 MiB; Blackwell at TP 2 has no figure
 * (NVLink or PCIe), nor Ampere at TP 2 when the GPU's name says neither. */
START_TEST(activation_rule)
{
    vs_runtime_estimate est;
    vs_error e;
    vs_runtime_shape s = {8192, 256, 4096, 14336, 128256, 0, 0, 0, 1, 0, 0};
    ck_assert_int_eq(vs_runtime_estimate_activation(&est, &s, &e), 0);
    ck_assert_uint_eq(est.bytes, 1313341440ULL);
    ck_assert(strstr(est.rule, "sampler") != NULL);
    ck_assert(est.error > 0 && est.rule != NULL);
    s.sampler_off = 1;
    ck_assert_int_eq(vs_runtime_estimate_activation(&est, &s, &e), 0);
    ck_assert_uint_eq(est.bytes, 973078528ULL);
    s.sampler_off = 0;
    s.seqs = 64;
    ck_assert_int_eq(vs_runtime_estimate_activation(&est, &s, &e), 0);
    ck_assert_uint_eq(est.bytes, 973078528ULL);
    s.tp = 2;
    ck_assert_int_eq(vs_runtime_estimate_activation(&est, &s, &e), 0);
    ck_assert_uint_eq(est.bytes, 620756992ULL);
    {
        vs_runtime_shape q = {8192, 16, 4096, 12288, 151936, 1536, 8, 0, 4, 0, 0};
        ck_assert_int_eq(vs_runtime_estimate_activation(&est, &q, &e), 0);
        ck_assert_uint_eq(est.bytes, 956301312ULL);
        ck_assert(strstr(est.rule, "fused_moe") != NULL);
        /* one dense layer at the same widths: the wider of the two MLPs */
        q.dense_layers = 1;
        q.intermediate = 65536;
        ck_assert_int_eq(vs_runtime_estimate_activation(&est, &q, &e), 0);
        ck_assert_uint_eq(est.bytes, 8192ULL * (3 * 16384 + 4 * 4096) * 2);
    }
    s.hidden = 0;
    ck_assert_int_eq(vs_runtime_estimate_activation(&est, &s, &e), VS_EVALUE);
    ck_assert_int_eq(vs_runtime_estimate_context(&est, "Hopper", NULL, 1, &e), 0);
    ck_assert_uint_eq(est.bytes, 160 * MIB);
    ck_assert_int_eq(vs_runtime_estimate_context(&est, "Hopper", NULL, 2, &e), 0);
    ck_assert_uint_eq(est.bytes, 563 * MIB);
    ck_assert_int_eq(vs_runtime_estimate_context(&est, "Hopper", NULL, 4, &e), 0);
    ck_assert_uint_eq(est.bytes, 2088 * MIB);
    ck_assert_int_eq(vs_runtime_estimate_context(&est, "Ada Lovelace", NULL, 1, &e), 0);
    ck_assert_uint_eq(est.bytes, 30 * MIB);
    ck_assert_int_eq(vs_runtime_estimate_context(&est, "Ada Lovelace", NULL, 2, &e), 0);
    ck_assert_uint_eq(est.bytes, 255 * MIB);
    ck_assert_int_eq(vs_runtime_estimate_context(&est, "Blackwell", NULL, 1, &e), 0);
    ck_assert_uint_eq(est.bytes, 70 * MIB);
    ck_assert_int_eq(vs_runtime_estimate_context(&est, "Blackwell", NULL, 2, &e), VS_ENOTFOUND);
    ck_assert_int_eq(vs_runtime_estimate_context(&est, "Ampere", NULL, 1, &e), 0);
    ck_assert_int_eq(vs_runtime_estimate_context(&est, "Ampere", NULL, 2, &e), VS_ENOTFOUND);
    ck_assert(strstr(e.message, "NVLink") != NULL);
    ck_assert_int_eq(vs_runtime_estimate_context(&est, "Kepler", NULL, 1, &e), VS_ENOTFOUND);
    /* Ampere 90 MiB; PCIe or bridged cards add nothing at tp 4 (A30s: 90 MiB), an SXM
     * board at tp 8 adds 2,060 MiB of NVSwitch rings: 2,150 MiB; an SXM board at tp 2
     * and a name that says neither have no figure; Turing 50 MiB, none at tp 2; Volta
     * none */
    ck_assert_int_eq(vs_runtime_estimate_context(&est, "Ampere", NULL, 1, &e), 0);
    ck_assert_uint_eq(est.bytes, 90 * MIB);
    ck_assert_int_eq(vs_runtime_estimate_context(&est, "Ampere", "4x A30", 4, &e), 0);
    ck_assert_uint_eq(est.bytes, 90 * MIB);
    ck_assert_int_eq(vs_runtime_estimate_context(&est, "Ampere", "A100-SXM4-40GB", 8, &e), 0);
    ck_assert_uint_eq(est.bytes, 2150 * MIB);
    ck_assert_int_eq(vs_runtime_estimate_context(&est, "Ampere", "A100-SXM4-40GB", 2, &e),
                     VS_ENOTFOUND);
    ck_assert_int_eq(vs_runtime_estimate_context(&est, "Ampere", "A100 80GB", 8, &e), VS_ENOTFOUND);
    ck_assert(strstr(e.message, "SXM or PCIe") != NULL);
    ck_assert_int_eq(vs_runtime_estimate_context(&est, "Turing", "Tesla T4", 1, &e), 0);
    ck_assert_uint_eq(est.bytes, 50 * MIB);
    ck_assert_int_eq(vs_runtime_estimate_context(&est, "Turing", "Tesla T4", 2, &e), VS_ENOTFOUND);
    ck_assert_int_eq(vs_runtime_estimate_context(&est, "Volta", "V100-SXM2-32GB", 1, &e),
                     VS_ENOTFOUND);
}
END_TEST

/* A Llama-3-8B config.json in a temporary file (path, size bytes): hidden 4096,
 * intermediate 14336, 32 layers, 32 heads, 8 KV heads, vocab 128256. */
static void write_llama3_8b_config(char *path, size_t size)
{
    ck_assert_int_eq(
        vs_test_tmp_write(
            path, size, "vs-engine-cfg-XXXXXX",
            "{\"model_type\": \"llama\", \"hidden_size\": 4096, \"intermediate_size\": 14336, "
            "\"num_hidden_layers\": 32, \"num_attention_heads\": 32, \"num_key_value_heads\": 8, "
            "\"vocab_size\": 128256, \"tie_word_embeddings\": false}"),
        0);
}

/* estimate=yes through the verbs: a Llama-3-8B config.json (hidden 4096, intermediate
 * 14336, vocab 128256); on the catalogue's H100 SXM the release schedules 1024
 * sequences and 8192 tokens, so the sampler's run is the peak; the default release
 * (0.19.0) samples with the Triton kernel: 1024 x 128256 x 14 + 8192 x 4096 x 2 =
 * 1,838,678,016 + 67,108,864 = 1,905,786,880 B (the forward pass 973,078,528 B, as
 * above; 0.11.0's sort: 1024 x 128256 x 40 = 5,253,365,760 B); the H100 is a Hopper:
 * non_torch 160 MiB + 0.18.0's 96 MiB = 256 MiB (0.11.0: 160 MiB). */
START_TEST(engine_estimate_items)
{
    char path[200];
    char cell[512];
    json_t *comps, *c;
    size_t i;
    int seen = 0;
    write_llama3_8b_config(path, sizeof path);
    snprintf(cell, sizeof cell,
             "sheet \"est\"\nmodel llama config=%s\nformat bf16\ntask inference\n"
             "length 8192\nconcurrency 8\ngpu \"H100 SXM\"\nengine vllm estimate=yes\nenvelope",
             path);
    run_ok(cell);
    unlink(path);
    comps = json_object_get(lastp(), "components");
    json_array_foreach(comps, i, c)
    {
        const char *n = sval(c, "name");
        if (!strcmp(n, "activation_peak")) {
            ck_assert_int_eq(ival(c, "bytes"), 1905786880LL);
            ck_assert_str_eq(sval(c, "status"), "estimated");
            seen++;
        } else if (!strcmp(n, "non_torch")) {
            ck_assert_int_eq(ival(c, "bytes"), 256 * (long long)MIB);
            seen++;
        }
    }
    ck_assert_int_eq(seen, 2);
    /* the estimate follows the engine's keys: 64 sequences leave the forward pass as
     * the peak (64 x 128256 x 14 + 67,108,864 = 182,026,240 B < 973,078,528 B), and the
     * result says so */
    run_ok("engine vllm max_num_seqs=64");
    ck_assert_str_eq(sval(lastp(), "kind"), "rederived");
    {
        json_t *rows = json_object_get(lastp(), "rows");
        int found = 0;
        json_array_foreach(rows, i, c) if (!strcmp(sval(c, "name"), "activation_peak"))
        {
            ck_assert_int_eq(ival(c, "to_bytes"), 973078528LL);
            ck_assert_int_eq(ival(c, "from_bytes"), 1905786880LL);
            found = 1;
        }
        ck_assert(found);
    }
    run_ok("envelope");
    json_array_foreach(json_object_get(lastp(), "components"), i,
                       c) if (!strcmp(sval(c, "name"), "activation_peak"))
        ck_assert_int_eq(ival(c, "bytes"), 973078528LL);
    /* another engine: vLLM's rules do not apply; llama.cpp's own rule (its compute
     * buffer, engine/llamacpp_compute.h) takes the item over, and vLLM's non_torch goes;
     * back under vLLM they come back by themselves */
    run_ok("engine llamacpp\nenvelope");
    {
        int peak = 0, nt = 0;
        json_array_foreach(json_object_get(lastp(), "components"), i, c)
        {
            if (!strcmp(sval(c, "name"), "activation_peak")) {
                ck_assert(json_is_integer(json_object_get(c, "bytes")));
                ck_assert(strstr(sval(c, "source"), "llama.cpp's compute buffer") != NULL);
                peak = 1;
            }
            nt |= !strcmp(sval(c, "name"), "non_torch");
        }
        ck_assert(peak && !nt);
    }
    /* its row's own rule estimates that one item: items= without it is refused
     * with the row's words, at the line */
    ck_assert_int_eq(run("estimate runtime items=non_torch"), VS_EVALUE);
    ck_assert_int_eq(err.line, 1);
    ck_assert_str_eq(err.message, "llama.cpp's runtime item is its compute buffer, "
                                  "activation_peak (the CUDA context is in its budget from free "
                                  "memory)");
    run_ok("engine vllm\nenvelope");
    json_array_foreach(json_object_get(lastp(), "components"), i,
                       c) if (!strcmp(sval(c, "name"), "activation_peak"))
        ck_assert_int_eq(ival(c, "bytes"), 1905786880LL);
    /* 0.11.0 named: the sort and 160 MiB */
    run_ok("engine vllm version=0.11.0\nenvelope");
    json_array_foreach(json_object_get(lastp(), "components"), i, c)
    {
        if (!strcmp(sval(c, "name"), "activation_peak"))
            ck_assert_int_eq(ival(c, "bytes"), 5253365760LL);
        if (!strcmp(sval(c, "name"), "non_torch"))
            ck_assert_int_eq(ival(c, "bytes"), 160 * (long long)MIB);
    }
    /* the estimator on its own line, too */
    run_ok("estimate runtime items=non_torch");
    /* the layout came from the config: fit knows it */
    run_ok("fit");
    ck_assert(strstr(sval(lastp(), "layout_source"), "card.arch") != NULL);
}
END_TEST

/* estimate=yes at TP 2 on two H100 SXM boards (NVLink) under the default release
 * (0.19.0): non_torch = Hopper's 160 MiB + 403 MiB of NVLink buffers at tp 2 + 0.18.0's
 * 96 MiB + 0.19.0's pair term, a larger group's 1,800 MiB of rings and 2 x 32 MiB of
 * NVLS less tp 2's own 403 (1,461 MiB) = 2,120 MiB; 0.16.0 takes neither: 563 MiB. */
START_TEST(engine_estimate_pair_as_group)
{
    char path[200];
    char cell[512];
    json_t *c;
    size_t i;
    int seen = 0;
    write_llama3_8b_config(path, sizeof path);
    snprintf(cell, sizeof cell,
             "sheet \"est2\"\nmodel llama config=%s\nformat bf16\ntask inference\n"
             "length 8192\nconcurrency 8\nplacement tensor gpus=2\ngpu \"H100 SXM\" cards=2\n"
             "engine vllm estimate=yes\nenvelope",
             path);
    run_ok(cell);
    unlink(path);
    json_array_foreach(json_object_get(lastp(), "components"), i, c)
    {
        if (strcmp(sval(c, "name"), "non_torch"))
            continue;
        ck_assert_int_eq(ival(c, "bytes"), 2120 * (long long)MIB);
        ck_assert(strstr(sval(c, "source"), "+ 1,461 MiB at tp 2 under vLLM 0.19.0") != NULL);
        seen++;
    }
    ck_assert_int_eq(seen, 1);
    run_ok("engine vllm version=0.16.0\nenvelope");
    json_array_foreach(json_object_get(lastp(), "components"), i,
                       c) if (!strcmp(sval(c, "name"), "non_torch"))
    {
        ck_assert_int_eq(ival(c, "bytes"), 563 * (long long)MIB);
        ck_assert(strstr(sval(c, "source"), "at tp 2 under") == NULL);
        seen++;
    }
    ck_assert_int_eq(seen, 2);
}
END_TEST

/* A GPU named on the fit line that is no offer comes from the catalogue, with its
 * nvidia-smi total (basis "device"); vLLM schedules at most max_num_seqs at once. */
START_TEST(fit_named_gpu_and_seq_limit)
{
    json_t *r;
    run_ok("sheet \"named\"\nmodel m params=1B\nformat bf16\ntask inference\nlength 1024\n"
           "concurrency 300\nestimate kv layers=16 kv_heads=8 head_dim=64\n"
           "engine vllm kv_cache_memory=40GiB\nfit \"H100 SXM\"");
    r = fit_row(0);
    ck_assert_str_eq(sval(r, "gpu"), "H100 SXM");
    ck_assert_str_eq(sval(r, "capacity_basis"), "device");
    /* 300 requests of 1024 tokens fit the pool (40 GiB / (16 x 16 x 2 x 8 x 64 x 2 B) =
     * 81,920 blocks, 64 per request: 1280 requests), and on an 80 GiB H100 V1 schedules
     * 1024 at once (arg_utils.py get_batch_defaults) */
    ck_assert_msg(fabs(dval(r, "max_concurrency") - 1280.0) < 1e-9, "%f",
                  dval(r, "max_concurrency"));
    ck_assert_str_ne(sval(r, "concurrency"), "exclude");
    /* with max_num_seqs=256 it schedules fewer than 300 */
    run_ok("engine vllm kv_cache_memory=40GiB max_num_seqs=256\nfit \"H100 SXM\"");
    ck_assert_str_eq(sval(fit_row(0), "concurrency"), "exclude");
    ck_assert(strstr(sval(fit_row(0), "note"), "max_num_seqs") != NULL);
    ck_assert_int_eq(run("fit \"H1000\""), VS_ENOTFOUND);
    /* no engine declared: the sheet's own components against the whole card; the
     * sheet's KV estimate is the need (16 x 2 x 8 x 64 x 2 B x 1024 x 300 =
     * 10,066,329,600 B) */
    run_ok("sheet \"no engine\"\nmodel m params=1B\nformat bf16\ntask inference\nlength 1024\n"
           "concurrency 300\nestimate kv layers=16 kv_heads=8 head_dim=64\nfit \"H100 SXM\"");
    ck_assert_str_eq(sval(lastp(), "engine"), "none");
    r = fit_row(0);
    ck_assert_int_eq(ival(r, "kv_need_bytes"), 10066329600LL);
    ck_assert_int_eq(ival(r, "budget_bytes"), ival(r, "capacity_bytes"));
    ck_assert_int_eq(ival(r, "kv_pool_bytes"), ival(r, "capacity_bytes") - 2000000000LL);
    ck_assert_str_eq(sval(r, "verdict"), "admissible");
}
END_TEST

/* ---- candidates agrees with fit ---- */

START_TEST(candidates_agree_with_fit)
{
    json_t *rows, *row, *reqs, *r;
    size_t i, j;
    const char *fit_v[2], *fit_c[2];
    /* two offers: the H100's pool holds the card's 64 requests, the 4090's does not */
    run_ok("sheet \"agree\"\nmodel m params=8031588844\nformat bf16\ntask inference\n"
           "length 8192\nconcurrency 64\nestimate kv layers=32 kv_heads=8 head_dim=128\n"
           "gpu \"H100 log\" memory=80GB reported=79.22GiB reported_source=\"x\"\n"
           "gpu \"RTX 4090\"\n"
           "engine vllm\n"
           "reserve non_torch 1GiB status=measured source=\"x\"\n"
           "reserve activation_peak 1GiB status=measured source=\"x\"\n"
           "reserve cuda_graphs 0GiB status=measured source=\"--enforce-eager\"\nfit");
    for (i = 0; i < 2; i++) {
        r = fit_row(i);
        fit_v[i] = strdup(sval(r, "start"));
        fit_c[i] = strdup(sval(r, "concurrency"));
    }
    /* 71.298 - 14.96 - 2 = 54.34 GiB holds 54.34 / 2 MiB = 27,821 blocks, 54.3 requests
     * of 512 blocks: fewer than 64 */
    ck_assert_str_eq(fit_c[0], "exclude");
    run_ok("candidates");
    rows = json_object_get(lastp(), "rows");
    ck_assert_uint_eq(json_array_size(rows), 2);
    json_array_foreach(rows, i, row)
    {
        reqs = json_object_get(row, "requirements");
        json_array_foreach(reqs, j, r)
        {
            const char *n = sval(r, "name");
            if (!strcmp(n, "capacity"))
                ck_assert_str_eq(sval(r, "verdict"), fit_v[i]);
            if (!strcmp(n, "concurrency"))
                ck_assert_str_eq(sval(r, "verdict"), fit_c[i]);
        }
        free((void *)fit_v[i]);
        free((void *)fit_c[i]);
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("engine");
    TCase *t = tcase_create("core");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, vllm_log_mellea_416);
    tcase_add_test(t, vllm_serving_extras);
    tcase_add_test(t, vllm_log_imported);
    tcase_add_test(t, vllm_log_10517);
    tcase_add_test(t, vllm_log_10511);
    tcase_add_test(t, llamacpp_log_logdetective_106);
    tcase_add_test(t, llamacpp_padding_streams);
    tcase_add_test(t, vllm_sliding_groups);
    tcase_add_test(t, llamacpp_sliding_cells);
    tcase_add_test(t, vllm_latent_cache);
    tcase_add_test(t, vllm_tensor_fewer_heads);
    tcase_add_test(t, vllm_hybrid_state_pages);
    tcase_add_test(t, fit_max_length_capped_at_the_context);
    tcase_add_test(t, vllm_encoder_profile_item);
    tcase_add_test(t, sglang_hybrid_pools);
    tcase_add_test(t, engine_budget_rules);
    tcase_add_test(t, sglang_fraction_by_tp);
    tcase_add_test(t, sglang_fraction_by_memory);
    tcase_add_test(t, sglang_starts_short);
    tcase_add_test(t, sglang_max_running_requests);
    tcase_add_test(t, vllm_release_defaults);
    tcase_add_test(t, vllm_version_key);
    tcase_add_test(t, vllm_graphs_outside_by_default);
    tcase_add_test(t, vllm_exclude_from_lower_bounds);
    tcase_add_test(t, transformers_eager_scores);
    tcase_add_test(t, engine_defaults_parse);
    tcase_add_test(t, engine_verb);
    tcase_add_test(t, engine_completion_is_the_table);
    tcase_add_test(t, engine_record_roundtrip);
    tcase_add_test(t, activation_rule);
    tcase_add_test(t, candidates_agree_with_fit);
    tcase_add_test(t, engine_estimate_items);
    tcase_add_test(t, engine_estimate_pair_as_group);
    tcase_add_test(t, fit_named_gpu_and_seq_limit);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return vs_check_run(suite());
}
