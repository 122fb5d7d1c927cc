/* Tests of the sampler's kernel in vLLM's profiling pass (engine/engine_sampler.c):
 * the activation peak with sampler=native (the sort, 40 B per entry) and
 * sampler=flashinfer (no sort, 14 B), worked by hand and set beside the one
 * published figure of a run whose sampler was FlashInfer's: llm-d/llm-d-benchmark's
 * config_explorer/empirical-vllm-memory-results.md (at 4f4d449), vLLM 0.11.0 in the
 * vllm/vllm-openai image on an H100, Mistral-Small-3.2-24B-Instruct-2506, 8192
 * batched tokens and 1024 sequences: "2.12 GiB for peak activation". The same
 * file's text models, run on a later image (after vllm-project/vllm#26859 made the
 * FlashInfer sampler opt-in), print the sort's figure: Llama-3.1-8B 4.76 GiB. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/engine.h"
#include "engine/vllm.h"
#include "lang/interp.h"
#include "util/error.h"

#include "check_run.h"
#include "results.h"

#include "cell_run.h"
#include "test_tmp.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

/* Mistral-Small-3.2's text model (config.json text_config): hidden 5120,
 * intermediate 32768, vocab 131072; 8192 tokens, 1024 sequences, one GPU. */
static vs_runtime_shape mistral_small(void)
{
    vs_runtime_shape s;
    memset(&s, 0, sizeof s);
    s.tokens = 8192;
    s.seqs = 1024;
    s.hidden = 5120;
    s.intermediate = 32768;
    s.vocab = 131072;
    s.tp = 1;
    return s;
}

/* By hand:
 *   forward = 8192 x (3 x 32768 + 4 x 5120) x 2 = 8192 x 118,784 x 2 = 1,946,157,056 B
 *   native sampler = 1024 x 131072 x 40 = 5,368,709,120 B (5.00 GiB): the peak
 *   FlashInfer sampler = 1024 x 131072 x 14 = 1,879,048,192 B < forward: the peak is
 *   the forward pass, 1.8125 GiB, 14.5% under the 2.12 GiB printed (the native rule:
 *   +136%). */
START_TEST(mistral_small_by_hand)
{
    vs_runtime_shape s = mistral_small();
    vs_runtime_estimate est;
    double pub = 2.12 * GIB;
    ck_assert_int_eq(vs_runtime_estimate_activation_sampler(&est, &s, "native", &err), 0);
    ck_assert_uint_eq(est.bytes, 5368709120ULL);
    ck_assert_int_eq(vs_runtime_estimate_activation_sampler(&est, &s, NULL, &err), 0);
    ck_assert_uint_eq(est.bytes, 5368709120ULL);
    ck_assert_int_eq(vs_runtime_estimate_activation_sampler(&est, &s, "flashinfer", &err), 0);
    ck_assert_uint_eq(est.bytes, 1946157056ULL);
    ck_assert_ptr_nonnull(strstr(est.rule, "max_num_batched_tokens"));
    ck_assert_msg((double)est.bytes > 0.85 * pub && (double)est.bytes < 1.15 * pub,
                  "%.3f GiB against 2.12", (double)est.bytes / GIB);
}
END_TEST

/* Llama-3.1-8B's widths (hidden 4096, intermediate 14336, vocab 128256) at
 * Mistral-Small's batch: 1024 sequences, 8192 tokens */
static vs_runtime_shape llama31_8b(void)
{
    vs_runtime_shape s = mistral_small();
    s.hidden = 4096;
    s.intermediate = 14336;
    s.vocab = 128256;
    return s;
}

/* Llama-3.1-8B (hidden 4096, intermediate 14336, vocab 128256) at 1024 sequences:
 * FlashInfer's run 1024 x 128256 x 14 = 1,838,678,016 B is above the forward pass
 * 8192 x (3 x 14336 + 4 x 4096) x 2 = 973,078,528 B and is the peak; a V0 rank that
 * runs no sampler keeps the forward pass; another word is refused. */
START_TEST(flashinfer_sampler_peak)
{
    vs_runtime_shape s = llama31_8b();
    vs_runtime_estimate est;
    ck_assert_int_eq(vs_runtime_estimate_activation_sampler(&est, &s, "flashinfer", &err), 0);
    ck_assert_uint_eq(est.bytes, 1838678016ULL);
    ck_assert_ptr_nonnull(strstr(est.rule, "14 B"));
    s.sampler_off = 1;
    ck_assert_int_eq(vs_runtime_estimate_activation_sampler(&est, &s, "flashinfer", &err), 0);
    ck_assert_uint_eq(est.bytes, 973078528ULL);
    ck_assert_int_eq(vs_runtime_estimate_activation_sampler(&est, &s, "sort", &err), VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "native, flashinfer or triton"));
}
END_TEST

/* The Triton kernel (0.17.0 on), Llama-3.1-8B at 1024 sequences and 8192 tokens:
 * 1024 x 128256 x 14 = 1,838,678,016 B of logits, softmax and noise + the forward
 * pass's output 8192 x 4096 x 2 = 67,108,864 B = 1,905,786,880 B (1.775 GiB; the
 * 0.19.0 image printed 1.89 at TP 1, 2 and 4: -6.1%), above the forward pass; below 8
 * sequences apply_top_k_top_p sorts: 4 x 128256 x 40 = 20,520,960 B, under the forward
 * pass's 973,078,528 B, which is the peak. */
START_TEST(triton_sampler_peak)
{
    vs_runtime_shape s = llama31_8b();
    vs_runtime_estimate est;
    ck_assert_int_eq(vs_runtime_estimate_activation_sampler(&est, &s, "triton", &err), 0);
    ck_assert_uint_eq(est.bytes, 1905786880ULL);
    ck_assert_ptr_nonnull(strstr(est.rule, "Triton"));
    ck_assert(fabs((double)est.bytes / GIB / 1.89 - 1 + 0.061) < 0.001);
    s.tp = 4; /* the sampler is not divided; the forward pass is, and stays below */
    ck_assert_int_eq(vs_runtime_estimate_activation_sampler(&est, &s, "triton", &err), 0);
    ck_assert_uint_eq(est.bytes, 1905786880ULL);
    s.tp = 1;
    s.seqs = 4;
    ck_assert_int_eq(vs_runtime_estimate_activation_sampler(&est, &s, "triton", &err), 0);
    ck_assert_uint_eq(est.bytes, 973078528ULL);
}
END_TEST

/* The bytes of the last envelope's component name: -1 when absent, -2 when not a
 * number of bytes. */
static long long comp_bytes(const char *name)
{
    json_t *comps = json_object_get(lastp(), "components"), *c;
    size_t i;
    json_array_foreach(comps, i, c)
    {
        const char *n = json_string_value(json_object_get(c, "name"));
        json_t *b = json_object_get(c, "bytes");
        if (n && !strcmp(n, name))
            return json_is_integer(b) ? (long long)json_integer_value(b) : -2;
    }
    return -1;
}

/* Through the verbs, on the catalogue's H100 SXM (1024 sequences, 8192 tokens):
 * the default release (0.19.0) takes the Triton kernel, 1024 x 131072 x 14 + 8192 x
 * 5120 x 2 = 1,879,048,192 + 83,886,080 = 1,962,934,272 B; 0.16.0 the sort's
 * 1024 x 131072 x 40 = 5,368,709,120 B; sampler=flashinfer the forward pass,
 * 1,946,157,056 B. */
START_TEST(sampler_key_through_engine)
{
    char path[200];
    char cell[600];
    ck_assert_int_eq(
        vs_test_tmp_write(
            path, sizeof path, "vs-sampler-cfg-XXXXXX",
            "{\"model_type\": \"mistral\", \"hidden_size\": 5120, \"intermediate_size\": 32768, "
            "\"num_hidden_layers\": 40, \"num_attention_heads\": 32, \"num_key_value_heads\": 8, "
            "\"head_dim\": 128, \"vocab_size\": 131072, \"tie_word_embeddings\": false}"),
        0);
    snprintf(cell, sizeof cell,
             "sheet \"smp\"\nmodel mistral config=%s\nformat bf16\ntask inference\n"
             "length 16000\nconcurrency 1\ngpu \"H100 SXM\"\nengine vllm estimate=yes\nenvelope",
             path);
    run_ok(cell);
    ck_assert_int_eq(comp_bytes("activation_peak"), 1962934272LL);
    run_ok("engine vllm version=0.16.0 estimate=yes\nenvelope");
    ck_assert_int_eq(comp_bytes("activation_peak"), 5368709120LL);
    run_ok("engine vllm version=0.16.0 install=image estimate=yes\nenvelope");
    ck_assert_int_eq(comp_bytes("activation_peak"), 5368709120LL);
    run_ok("engine vllm sampler=flashinfer estimate=yes\nenvelope");
    ck_assert_int_eq(comp_bytes("activation_peak"), 1946157056LL);
    /* sampler unwritten: 0.11.0 in the vllm/vllm-openai image samples with FlashInfer
     * (the forward pass is the peak), a pip install of it natively (the sort), and a
     * written sampler= stands over install= */
    run_ok("engine vllm version=0.11.0 install=image estimate=yes\nenvelope");
    ck_assert_int_eq(comp_bytes("activation_peak"), 1946157056LL);
    run_ok("engine vllm version=0.10.2 install=image estimate=yes\nenvelope");
    ck_assert_int_eq(comp_bytes("activation_peak"), 1946157056LL);
    run_ok("engine vllm version=0.11.0 install=pip estimate=yes\nenvelope");
    ck_assert_int_eq(comp_bytes("activation_peak"), 5368709120LL);
    run_ok("engine vllm install=image sampler=native estimate=yes\nenvelope");
    ck_assert_int_eq(comp_bytes("activation_peak"), 5368709120LL);
    unlink(path);
}
END_TEST

/* The release's kernel by install: 0.10.2 and 0.11.0 take FlashInfer's wherever it is
 * importable (vllm/v1/sample/ops/topk_topp_sampler.py: VLLM_USE_FLASHINFER_SAMPLER
 * unset is "not False" in V1), the image being where it is; a release the table does
 * not model (0.11.1, after vllm-project/vllm#26859 made it opt-in; V0's 0.7.1) and a
 * pip install take the sort. */
START_TEST(release_sampler_by_install)
{
    ck_assert_str_eq(vs_vllm_sampler("0.11.0", 1), "flashinfer");
    ck_assert_str_eq(vs_vllm_sampler("0.10.2", 1), "flashinfer");
    ck_assert_str_eq(vs_vllm_sampler("0.11.0", 0), "native");
    ck_assert_str_eq(vs_vllm_sampler("0.11.1", 1), "native");
    ck_assert_str_eq(vs_vllm_sampler("0.7.1", 1), "native");
    ck_assert_str_eq(vs_vllm_sampler(NULL, 1), "native");
    /* 0.12.0 to 0.16.0: FlashInfer's opt-in, the sort; from 0.17.0 the Triton kernel,
     * image or pip (vllm-project/vllm#33538) */
    ck_assert_str_eq(vs_vllm_sampler("0.12.0", 1), "native");
    ck_assert_str_eq(vs_vllm_sampler("0.16.0", 1), "native");
    ck_assert_str_eq(vs_vllm_sampler("0.17.0", 1), "triton");
    ck_assert_str_eq(vs_vllm_sampler("0.19.0", 0), "triton");
}
END_TEST

/* The source of the last envelope's component name ("" when absent) */
static const char *comp_source(const char *name)
{
    json_t *comps = json_object_get(lastp(), "components"), *c;
    size_t i;
    json_array_foreach(comps, i, c)
    {
        const char *n = json_string_value(json_object_get(c, "name")),
                   *s = json_string_value(json_object_get(c, "source"));
        if (n && !strcmp(n, name))
            return s ? s : "";
    }
    return "";
}

/* A plain MLP (GPT-2's c_fc, activation, c_proj: no gate) through the verbs: the GPT-2
 * family's card says mlp plain, a Llama of the same widths gated. H100 SXM, 8192 tokens,
 * max_num_seqs=256, FlashInfer's sampler (256 x 50272 x 14 = 180,174,848 B, below both
 * forward passes), tp 1:
 *   plain: 8192 x (2 x 10240 + 4 x 2560) x 2 = 8192 x 30720 x 2 = 503,316,480 B
 *   gated: 8192 x (3 x 10240 + 4 x 2560) x 2 = 8192 x 40960 x 2 = 671,088,640 B */
START_TEST(plain_mlp_through_engine)
{
    char gpt2[200], llama[200];
    char cell[700];
    ck_assert_int_eq(vs_test_tmp_write(gpt2, sizeof gpt2, "vs-plainmlp-cfg-XXXXXX",
                                       "{\"model_type\": \"gpt2\", \"n_layer\": 32, \"n_embd\": "
                                       "2560, \"n_head\": 32, \"n_inner\": 10240, \"n_positions\": "
                                       "2048, \"vocab_size\": 50272}"),
                     0);
    ck_assert_int_eq(vs_test_tmp_write(llama, sizeof llama, "vs-gatedmlp-cfg-XXXXXX",
                                       "{\"model_type\": \"llama\", \"hidden_size\": 2560, "
                                       "\"intermediate_size\": 10240, \"num_hidden_layers\": 32, "
                                       "\"num_attention_heads\": 32, \"vocab_size\": 50272, "
                                       "\"max_position_embeddings\": 2048}"),
                     0);
    snprintf(cell, sizeof cell,
             "sheet \"mlp\"\nmodel gpt2 config=%s\nformat bf16\ntask inference\n"
             "length 2000\nconcurrency 1\ngpu \"H100 SXM\"\nengine vllm max_num_seqs=256 "
             "sampler=flashinfer estimate=yes\nenvelope",
             gpt2);
    run_ok(cell);
    ck_assert_int_eq(comp_bytes("activation_peak"), 503316480LL);
    ck_assert(strstr(comp_source("activation_peak"), "plain MLP") != NULL);
    snprintf(cell, sizeof cell, "model llama config=%s\nenvelope", llama);
    run_ok(cell);
    ck_assert_int_eq(comp_bytes("activation_peak"), 671088640LL);
    ck_assert(strstr(comp_source("activation_peak"), "gate/up") != NULL);
    unlink(gpt2);
    unlink(llama);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("engine_sampler");
    TCase *t = tcase_create("core");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, mistral_small_by_hand);
    tcase_add_test(t, flashinfer_sampler_peak);
    tcase_add_test(t, triton_sampler_peak);
    tcase_add_test(t, sampler_key_through_engine);
    tcase_add_test(t, release_sampler_by_install);
    tcase_add_test(t, plain_mlp_through_engine);
    suite_add_tcase(s, t);
    return vs_check_run(s);
}
