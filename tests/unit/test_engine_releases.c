/* Tests of the engines' release tables: `engine llamacpp build=` and `engine
 * tensorrt_llm version=`, each row's defaults applied to the keys not written, the
 * newest modelled release without the key, and a release outside the table refused
 * with the list. Expected figures are worked by hand in the comments. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/interp.h"
#include "util/error.h"

#include "check_run.h"
#include "results.h"

#include "cell_run.h"

#define MIB (1024ULL * 1024ULL)

static long long ival(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    ck_assert_msg(json_is_integer(v), "%s is not an integer", k);
    return (long long)json_integer_value(v);
}

static json_t *fit_row(void)
{
    json_t *p = lastp();
    ck_assert_str_eq(json_string_value(json_object_get(p, "kind")), "fit");
    return json_array_get(json_object_get(p, "rows"), 0);
}

/* The engine card's row of key name: its value and source. */
static json_t *key_row(const char *name)
{
    size_t i;
    json_t *k;
    json_array_foreach(json_object_get(lastp(), "keys"), i, k)
    {
        if (!strcmp(json_string_value(json_object_get(k, "name")), name))
            return k;
    }
    ck_abort_msg("no key %s on the engine card", name);
    return NULL;
}

static void run_model(const char *rest)
{
    char cell[2048];
    snprintf(cell, sizeof cell,
             "sheet \"releases\"\nmodel m config=%s/llama-3.1-8b.json\ntask inference\n"
             "format bf16\nlength 8192\nconcurrency 1\n%s",
             VS_MODEL_CONFIGS, rest);
    run_ok(cell);
}

/* llama.cpp by build, Llama-3.1-8B (32 layers, 8 KV heads of 128) at bf16, 8192 cells
 * on an RTX 3090 with free=23860MiB:
 *   0c1e570 (no build=): --fit keeps 1024 MiB: budget (23860 - 1024) MiB;
 *   b6325: no --fit yet: budget 23860 MiB; -fa auto and all layers on the GPU: the KV
 *     cache, 32 x 8192 x 2 x 8 x 128 x 2 B = 1 GiB, on the GPU;
 *   b6324 (before ggml-org/llama.cpp#15434): no layers on the GPU (-ngl 0), so the
 *     KV cells of every layer stay on the host: 0 B on the GPU; n_gpu_layers=33
 *     written brings the 1 GiB back. */
START_TEST(llamacpp_by_build)
{
    json_t *r;
    run_model("gpu \"RTX 3090\" free=23860MiB\nengine llamacpp\n"
              "reserve activation_peak 0GiB status=measured source=\"t\"\nengine");
    ck_assert_str_eq(json_string_value(json_object_get(key_row("build"), "value")), "0c1e570");
    ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(key_row("build"), "source")),
                                 "newest build modelled here"));
    run_ok("fit \"RTX 3090\"");
    ck_assert_int_eq(ival(fit_row(), "budget_bytes"), (23860 - 1024) * MIB);
    run_ok("engine llamacpp build=b6325\nfit \"RTX 3090\"");
    r = fit_row();
    ck_assert_int_eq(ival(r, "budget_bytes"), 23860 * MIB);
    ck_assert_int_eq(ival(r, "kv_need_bytes"), 1024 * MIB);
    run_ok("engine llamacpp build=b6324\nfit \"RTX 3090\"");
    r = fit_row();
    ck_assert_int_eq(ival(r, "budget_bytes"), 23860 * MIB);
    ck_assert_int_eq(ival(r, "kv_need_bytes"), 0);
    run_ok("engine llamacpp build=b6324 n_gpu_layers=33\nfit \"RTX 3090\"");
    ck_assert_int_eq(ival(fit_row(), "kv_need_bytes"), 1024 * MIB);
    /* the card says which build's defaults it shows */
    run_ok("engine");
    ck_assert_str_eq(json_string_value(json_object_get(key_row("flash_attn"), "value")), "off");
}
END_TEST

/* b6324's flash attention is off unless given, and a quantised V cache needs it
 * (src/llama-context.cpp): q8_0 caches are refused under b6324, accepted under b6325
 * (-fa auto) and under b6324 with flash_attn=on written. */
START_TEST(llamacpp_old_build_needs_fa)
{
    run_model("gpu \"RTX 3090\" free=23860MiB\n");
    ck_assert_int_ne(run("engine llamacpp build=b6324 cache_type_k=q8_0 cache_type_v=q8_0\n"
                         "fit \"RTX 3090\""),
                     0);
    ck_assert_ptr_nonnull(strstr(err.message, "flash"));
    run_ok("engine llamacpp build=b6325 cache_type_k=q8_0 cache_type_v=q8_0\nfit \"RTX 3090\"");
    run_ok("engine llamacpp build=b6324 flash_attn=on cache_type_k=q8_0 cache_type_v=q8_0\n"
           "fit \"RTX 3090\"");
}
END_TEST

/* The cells' padding: before 0c1e570 llama_kv_cache_unified::get_padding pads to 32
 * without flash attention, 256 with it. Llama-3.1-8B (131,072 B a cell over its 32
 * layers) at 8200 tokens, all 33 layers on the GPU:
 *   b6324 (flash attention off): pad(8200, 32) = 8224 cells = 1,077,936,128 B;
 *   b6325 (-fa auto) and 0c1e570: pad(8200, 256) = 8448 cells = 1,107,296,256 B;
 *   b6325 with flash_attn=off: 8224 cells again; 0c1e570 with it off: 8448. */
START_TEST(llamacpp_padding_by_build)
{
    run_model("gpu \"RTX 3090\" free=23860MiB\nlength 8200\n"
              "engine llamacpp build=b6324 n_gpu_layers=33\nfit \"RTX 3090\"");
    ck_assert_int_eq(ival(fit_row(), "kv_need_bytes"), 1077936128LL);
    run_ok("engine llamacpp build=b6325\nfit \"RTX 3090\"");
    ck_assert_int_eq(ival(fit_row(), "kv_need_bytes"), 1107296256LL);
    run_ok("engine llamacpp build=b6325 flash_attn=off\nfit \"RTX 3090\"");
    ck_assert_int_eq(ival(fit_row(), "kv_need_bytes"), 1077936128LL);
    run_ok("engine llamacpp flash_attn=off\nfit \"RTX 3090\"");
    ck_assert_int_eq(ival(fit_row(), "kv_need_bytes"), 1107296256LL);
}
END_TEST

/* A build outside the table is refused at its value, naming the modelled ones; the sheet
 * keeps its engine. */
START_TEST(llamacpp_bad_build_refused)
{
    run_model("engine llamacpp build=b6325\n");
    ck_assert_int_eq(run("engine llamacpp build=b9999"), VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "b6324, b6325, 0c1e570"));
    run_ok("engine");
    ck_assert_str_eq(json_string_value(json_object_get(key_row("build"), "value")), "b6325");
}
END_TEST

/* TensorRT-LLM by release: 1.0.0 (no version=) allocates blocks of 32 tokens, 0.21.0
 * (TensorRT engines) blocks of 64. Llama-3.1-8B keeps 32 x 2 x 8 x 128 x 2 B = 131,072 B
 * a token; a request of 70 tokens takes cdiv(70, 32) = 3 blocks = 96 tokens =
 * 12,582,912 B, or cdiv(70, 64) = 2 blocks = 128 tokens = 16,777,216 B. */
START_TEST(tensorrt_llm_by_version)
{
    run_model("length 70\ngpu \"H100 SXM\"\nengine tensorrt_llm\nengine");
    ck_assert_str_eq(json_string_value(json_object_get(key_row("version"), "value")), "1.0.0");
    ck_assert_str_eq(json_string_value(json_object_get(key_row("tokens_per_block"), "value")),
                     "32");
    run_ok("fit");
    ck_assert_int_eq(ival(fit_row(), "kv_need_bytes"), 12582912LL);
    run_ok("engine tensorrt_llm version=0.21.0\nfit");
    ck_assert_int_eq(ival(fit_row(), "kv_need_bytes"), 16777216LL);
    /* a block size written wins over the release's */
    run_ok("engine tensorrt_llm version=0.21.0 tokens_per_block=32\nfit");
    ck_assert_int_eq(ival(fit_row(), "kv_need_bytes"), 12582912LL);
    ck_assert_int_eq(run("engine tensorrt_llm version=0.9"), VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "0.21.0, 1.0.0"));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("engine_releases");
    TCase *t = tcase_create("core");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, llamacpp_by_build);
    tcase_add_test(t, llamacpp_old_build_needs_fa);
    tcase_add_test(t, llamacpp_padding_by_build);
    tcase_add_test(t, llamacpp_bad_build_refused);
    tcase_add_test(t, tensorrt_llm_by_version);
    suite_add_tcase(s, t);
    return vs_check_run(s);
}
