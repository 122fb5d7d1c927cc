/* estimate kv and placement tensor through the verbs, on the fixture configs
 * of tests/model/configs (published checkpoints' config.json): the bytes of
 * each KV layout kind against hand-worked products. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lang/interp.h"
#include "lang/verb.h"
#include "render/bundle.h"

#include "check_run.h"
#include "results.h"

#ifndef VS_MODEL_CONFIGS
#error "VS_MODEL_CONFIGS (the tests/model/configs folder) must be defined"
#endif

/* ------------------------------------------------------------------ harness */

#include "cell_run.h"

static json_t *inputs(void)
{
    return json_object_get(lastp(), "inputs");
}

static json_t *group(size_t i)
{
    return json_array_get(json_object_get(inputs(), "groups"), i);
}

/* model NAME config=<fixture> then the rest of the cell */
static void with_model(const char *fixture, const char *rest)
{
    char cell[1024];
    snprintf(cell, sizeof cell, "model m config=%s/%s\n%s", VS_MODEL_CONFIGS, fixture, rest);
    run_ok(cell);
}

#define TEXT_HAS(b, needle)                                                                        \
    ck_assert_msg(strstr(text(b), needle) != NULL, "text lacks '%s':\n%s", needle, text(b))

/* Mistral 7B v0.1: 32 layers sliding over 4,096 tokens, 8 KV heads of 128. */
START_TEST(sliding_below_and_above_the_window)
{
    with_model("mistral-7b-v0.1.json", "length 2048\nconcurrency 1\nestimate kv");
    /* below: every token, 2 x 32 x 8 x 128 x 2 B x 2,048 */
    ck_assert_int_eq(geti(lastp(), "bytes"), 2LL * 32 * 8 * 128 * 2 * 2048);
    ck_assert_int_eq(geti(inputs(), "bytes_per_token"), 2LL * 32 * 8 * 128 * 2);
    ck_assert_str_eq(gets(group(0), "kind"), "sliding");
    ck_assert_int_eq(geti(group(0), "tokens"), 2048);
    run_ok("length 65536\nestimate kv");
    /* above: the window only, 2 x 32 x 8 x 128 x 2 B x 4,096 */
    ck_assert_int_eq(geti(lastp(), "bytes"), 2LL * 32 * 8 * 128 * 2 * 4096);
    ck_assert_int_eq(geti(group(0), "tokens"), 4096);
    ck_assert_int_eq(geti(inputs(), "bytes_per_token"), 0);
    TEXT_HAS(last(), "min(4,096 window, 65,536) = 4,096 tokens");
}
END_TEST

/* Gemma 3 27B at 131,072 tokens: 52 local layers over 1,024 tokens and 10
 * global layers, 16 KV heads of 128 each. */
START_TEST(interleaved_local_global)
{
    long long local = 2LL * 52 * 16 * 128 * 2 * 1024, global = 2LL * 10 * 16 * 128 * 2 * 131072;
    with_model("gemma-3-27b-it.json", "length 131072\nconcurrency 1\nestimate kv dtype=bf16");
    ck_assert_int_eq(geti(lastp(), "bytes"), local + global); /* 11,173,625,856 B, 10.4 GiB */
    ck_assert_int_eq(local + global, 11173625856LL);
    ck_assert_int_eq(geti(group(0), "bytes"), local);
    ck_assert_int_eq(geti(group(1), "bytes"), global);
    ck_assert_int_eq(geti(inputs(), "bytes_per_token"), 2LL * 10 * 16 * 128 * 2);
    ck_assert(json_is_null(json_object_get(inputs(), "layers")));
    TEXT_HAS(last(), "sliding: 2 x 52 layers x 16 kv_heads x 128 head_dim");
    TEXT_HAS(last(), "full: 2 x 10 layers");
    /* the card shows the layout */
    run_ok("card");
    TEXT_HAS(last(), "52 sliding (16 KV heads x 128, window 1024) + 10 full");
}
END_TEST

/* DeepSeek-V3: 61 latent layers of 512 + 64 values, 70,272 B per token in bf16. */
START_TEST(latent)
{
    with_model("deepseek-v3.json", "length 4096\nconcurrency 1\nestimate kv dtype=bf16");
    ck_assert_int_eq(geti(lastp(), "bytes"), 61LL * 576 * 2 * 4096);
    ck_assert_int_eq(geti(inputs(), "bytes_per_token"), 70272);
    ck_assert_str_eq(gets(group(0), "kind"), "latent");
    TEXT_HAS(last(), "61 layers x 576 latent x 2 B (bf16) x 4,096 tokens");
    /* the model payload names what it left out */
    with_model("deepseek-v3.json", "");
    TEXT_HAS(json_array_get(st.bundles, 0), "left out: 13,463,426,304 params of 1 "
                                            "multi-token-prediction layer");
    TEXT_HAS(json_array_get(st.bundles, 0), "37,552,297,472 active per token");
    {
        json_t *cfg = json_object_get(lastp(), "config");
        json_t *ex = json_array_get(json_object_get(cfg, "params_excluded"), 0);
        ck_assert_int_eq(geti(cfg, "params"), 671026419200LL);
        ck_assert_str_eq(gets(ex, "part"), "mtp");
        ck_assert(strstr(gets(ex, "reason"), "speculative decoding") != NULL);
        ck_assert_str_eq(gets(json_array_get(json_object_get(cfg, "kv_layout"), 0), "kind"),
                         "latent");
        ck_assert_int_lt(geti(cfg, "params_active"), geti(cfg, "params"));
    }
}
END_TEST

/* T5-base: 12 decoder layers, 12 heads of 64: own keys and values, and the
 * encoder's 1,024 tokens in every cross-attention layer. */
START_TEST(encoder_decoder)
{
    long long per = 2LL * 12 * 12 * 64 * 2;
    with_model("t5-base.json", "length 512\nconcurrency 4\nestimate kv encoder_length=1024");
    ck_assert_int_eq(geti(group(0), "bytes"), per * 512 * 4);
    ck_assert_int_eq(geti(group(1), "bytes"), per * 1024 * 4);
    ck_assert_int_eq(geti(lastp(), "bytes"), per * (512 + 1024) * 4);
    ck_assert_int_eq(geti(inputs(), "encoder_length"), 1024);
    TEXT_HAS(last(), "1,024 encoder tokens");
    ck_assert_int_eq(run("estimate kv encoder_length=0"), VS_EVALUE);
}
END_TEST

START_TEST(encoder_only)
{
    with_model("bert-base-uncased.json", "length 512\nconcurrency 8\nestimate kv");
    ck_assert_int_eq(geti(lastp(), "bytes"), 0);
    ck_assert_str_eq(gets(group(0), "kind"), "none");
    TEXT_HAS(last(), "12 layers keep no cache");
}
END_TEST

/* Gemma 7B: hidden 3,072 over 16 heads would be 192, its head_dim is 256. */
START_TEST(head_dim_not_hidden_over_heads)
{
    with_model("gemma-7b.json", "length 1024\nconcurrency 1\nestimate kv");
    ck_assert_int_eq(geti(lastp(), "bytes"), 2LL * 28 * 16 * 256 * 2 * 1024);
    ck_assert_int_eq(geti(inputs(), "head_dim"), 256);
    /* the line still describes one full group */
    run_ok("estimate kv layers=2 kv_heads=1 head_dim=8");
    ck_assert_int_eq(geti(lastp(), "bytes"), 2LL * 2 * 1 * 8 * 2 * 1024);
}
END_TEST

/* Llama 3.1 8B has 8 KV heads: on 4 GPUs each holds 2, on 16 each holds one
 * (replicated); the component is what all GPUs hold together, so the envelope's
 * per-GPU share is one GPU's heads. */
START_TEST(tensor_placement_fewer_kv_heads_than_gpus)
{
    long long one_head = 2LL * 32 * 1 * 128 * 2 * 8192;
    with_model("llama-3.1-8b.json", "length 8192\nconcurrency 1\nplacement tensor gpus=16");
    TEXT_HAS(last(), "full layers 1 of 8 (fewer KV heads than GPUs: replicated)");
    run_ok("estimate kv");
    ck_assert_int_eq(geti(group(0), "kv_heads"), 1);
    ck_assert_int_eq(geti(lastp(), "bytes"), one_head * 16);
    ck_assert_int_eq(geti(inputs(), "tp"), 16);
    run_ok("placement tensor gpus=4\nestimate kv");
    ck_assert_int_eq(geti(group(0), "kv_heads"), 2);
    ck_assert_int_eq(geti(lastp(), "bytes"), 2 * one_head * 4);
    /* a latent cache is not split: every GPU holds all of it */
    with_model("deepseek-v3.json", "length 4096\nconcurrency 1\nplacement tensor gpus=8");
    /* the placement's lines, then the kv_cache above re-estimated for it */
    TEXT_HAS(json_array_get(st.bundles, json_array_size(st.bundles) - 2),
             "61 latent layers not split");
    TEXT_HAS(last(), "kv_cache re-estimated: placement.tp 4 → 8");
    run_ok("estimate kv");
    ck_assert_int_eq(geti(lastp(), "bytes"), 61LL * 576 * 2 * 4096 * 8);
}
END_TEST

/* Qwen3-30B-A3B (4 KV heads) on 8 GPUs, as vLLM places it: each rank holds
 * ceil(4 / 8) = 1 head, replicated: 2 x 48 layers x 1 x 128 x 2 B x 32,768 x 4
 * = 3,221,225,472 B per GPU, whether the cache was estimated before or after
 * the placement (it follows the placement). */
START_TEST(tensor_placement_after_the_estimate)
{
    long long per_gpu = 2LL * 48 * 1 * 128 * 2 * 32768 * 4;
    json_t *comps, *c;
    size_t i;
    int seen = 0;
    with_model("qwen3-30b-a3b.json", "format bf16\nlength 32768\nconcurrency 4\nestimate kv");
    ck_assert_int_eq(geti(lastp(), "bytes"), 4 * per_gpu); /* 4 heads on one GPU */
    run_ok("placement tensor gpus=8\nenvelope");
    comps = json_object_get(lastp(), "components");
    json_array_foreach(comps, i, c)
    {
        if (!strcmp(gets(c, "name"), "kv_cache")) {
            ck_assert_int_eq(geti(c, "gpu_bytes"), per_gpu);
            seen = 1;
        }
    }
    ck_assert_int_eq(seen, 1);
}
END_TEST

/* Qwen3-Next: 12 full layers (2 KV heads of 256) grow with the length; 36
 * gated delta nets keep 2,146,304 B per sequence each (conv 3 x 8,192 x 2 B +
 * state 32 x 128 x 128 x 4 B, vLLM mamba_utils.py), whatever the length. */
START_TEST(hybrid_state_independent_of_length)
{
    long long state = 36LL * (3 * 8192 * 2 + 32LL * 128 * 128 * 4) * 2;
    with_model("qwen3-next-80b-a3b-instruct.json", "length 4096\nconcurrency 2\nestimate kv");
    ck_assert_str_eq(gets(group(1), "kind"), "state");
    ck_assert_int_eq(geti(group(1), "bytes"), state);
    ck_assert_int_eq(geti(lastp(), "bytes"), 2LL * 12 * 2 * 256 * 2 * 4096 * 2 + state);
    ck_assert_int_eq(geti(inputs(), "bytes_per_token"), 2LL * 12 * 2 * 256 * 2);
    run_ok("length 65536\nestimate kv");
    ck_assert_int_eq(geti(group(1), "bytes"), state);
    ck_assert_int_eq(geti(lastp(), "bytes"), 2LL * 12 * 2 * 256 * 2 * 65536 * 2 + state);
}
END_TEST

/* Beyond the model's context: a warning naming the key, never an error. */
START_TEST(length_beyond_the_context)
{
    with_model("qwen3-30b-a3b.json", "length 1Mi");
    TEXT_HAS(last(), "warning: 1,048,576 tokens exceed the model's context of 40,960 tokens "
                     "(config.json max_position_embeddings, no rope_scaling)");
    run_ok("length 40960");
    ck_assert_ptr_null(strstr(text(last()), "warning"));
    with_model("llama-4-scout-17b-16e-instruct.json", "length 16Mi");
    TEXT_HAS(last(), "context of 10,485,760 tokens (config.json "
                     "text_config.max_position_embeddings, rope_scaling llama3, factor 16)");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("kv_estimate");
    TCase *tc = tcase_create("kv");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, sliding_below_and_above_the_window);
    tcase_add_test(tc, interleaved_local_global);
    tcase_add_test(tc, latent);
    tcase_add_test(tc, encoder_decoder);
    tcase_add_test(tc, encoder_only);
    tcase_add_test(tc, head_dim_not_hidden_over_heads);
    tcase_add_test(tc, tensor_placement_fewer_kv_heads_than_gpus);
    tcase_add_test(tc, hybrid_state_independent_of_length);
    tcase_add_test(tc, tensor_placement_after_the_estimate);
    tcase_add_test(tc, length_beyond_the_context);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return vs_check_run(suite());
}
