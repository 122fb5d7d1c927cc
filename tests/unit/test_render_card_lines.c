/* The words of the card verbs' headlines (src/render/card_lines.c). Expected
 * strings are worked by hand: 3,221,225,472 B = 3 x 2^30 = 3.22 GB = 3.00 GiB,
 * 1,073,741,824 B = 2^30 = 1.07 GB = 1.00 GiB. */
#include <check.h>
#include <jansson.h>
#include <string.h>

#include "render/card_lines.h"

#include "check_run.h"

START_TEST(card_headline)
{
    vs_buf b = VS_BUF_INIT;
    json_t *s = json_pack("{s:s, s:s}", "id", "seed-7b", "title", "Seed 7B");
    json_t *bare = json_object();
    vs_render_card_headline(&b, s);
    ck_assert_str_eq(vs_buf_str(&b), "workload card of sheet seed-7b (\"Seed 7B\"), held fixed: "
                                     "every candidate is compared against it");
    vs_buf_reset(&b);
    vs_render_card_headline(&b, bare);
    ck_assert_str_eq(vs_buf_str(&b), "workload card of sheet ? (\"\"), held fixed: every "
                                     "candidate is compared against it");
    vs_buf_free(&b);
    json_decref(s);
    json_decref(bare);
}
END_TEST

START_TEST(card_unset)
{
    vs_buf b = VS_BUF_INIT;
    vs_render_card_unset(&b, 0);
    ck_assert_str_eq(vs_buf_str(&b), "");
    vs_render_card_unset(&b, VS_CARD_UNSET_CONCURRENCY);
    ck_assert_str_eq(vs_buf_str(&b), "concurrency: not set yet");
    vs_buf_reset(&b);
    /* the order is the card's, whatever order the bits are given in */
    vs_render_card_unset(&b, VS_CARD_UNSET_QUALITY | VS_CARD_UNSET_TASK | VS_CARD_UNSET_MODEL |
                                 VS_CARD_UNSET_PARAMS);
    ck_assert_str_eq(vs_buf_str(&b), "model, params, task, quality: not set yet");
    vs_buf_reset(&b);
    vs_render_card_unset(&b, 0x7ffu);
    ck_assert_str_eq(vs_buf_str(&b), "model, params, length, task, format, resolution, batch, "
                                     "frames, concurrency, microbatch, quality: not set yet");
    vs_buf_free(&b);
}
END_TEST

START_TEST(model_config)
{
    vs_buf b = VS_BUF_INIT;
    json_t *s = json_pack("{s:{s:s, s:s, s:I, s:s, s:{s:s, s:i, s:i, s:i}}}", "card", "model",
                          "org/seed", "revision", "abc123", "params", (json_int_t)7000000000LL,
                          "params_source", "config", "arch", "family", "llama", "layers", 32,
                          "hidden", 4096, "params_active", 1000);
    json_t *cfg = json_pack("{s:[{s:s, s:I}, {s:s, s:I}], s:[{s:I, s:s}]}", "parts", "part",
                            "language_model", "params", (json_int_t)7000000000LL, "part", "vision",
                            "params", (json_int_t)300000000, "params_excluded", "params",
                            (json_int_t)1000000, "reason", "the MTP head");
    json_t *one = json_pack("{s:[{s:s, s:I}]}", "parts", "part", "language_model", "params",
                            (json_int_t)7000000000LL);
    vs_render_card_model_headline(&b, s, "org/seed", cfg, NULL);
    ck_assert_str_eq(vs_buf_str(&b),
                     "model org/seed at revision abc123: 7,000,000,000 params (config), 1,000 "
                     "active per token; counted: language_model 7,000,000,000, vision "
                     "300,000,000; left out: 1,000,000 params of the MTP head; architecture "
                     "llama layers=32 hidden=4096");
    /* one part is not "counted"; without a config, nothing of what one token uses */
    vs_buf_reset(&b);
    vs_render_card_model_headline(&b, s, "org/seed", one, NULL);
    ck_assert_str_eq(vs_buf_str(&b), "model org/seed at revision abc123: 7,000,000,000 params "
                                     "(config), 1,000 active per token; architecture llama "
                                     "layers=32 hidden=4096");
    vs_buf_reset(&b);
    vs_render_card_model_headline(&b, s, "org/seed", NULL, NULL);
    ck_assert_str_eq(vs_buf_str(&b), "model org/seed at revision abc123: 7,000,000,000 params "
                                     "(config); architecture llama layers=32 hidden=4096");
    vs_buf_free(&b);
    json_decref(s);
    json_decref(cfg);
    json_decref(one);
}
END_TEST

START_TEST(model_bare_and_pipeline)
{
    vs_buf b = VS_BUF_INIT;
    json_t *bare = json_pack("{s:{s:s}}", "card", "model", "mine");
    json_t *declared = json_pack("{s:{s:I}}", "card", "params", (json_int_t)12345);
    json_t *pipe =
        json_pack("{s:s, s:[{s:s, s:I}, {s:s, s:I}]}", "pipeline", "StableDiffusionXLPipeline",
                  "components", "name", "unet", "bytes", (json_int_t)3221225472LL, "name", "vae",
                  "bytes", (json_int_t)1073741824LL);
    vs_render_card_model_headline(&b, bare, "mine", NULL, NULL);
    ck_assert_str_eq(vs_buf_str(&b), "model mine");
    vs_buf_reset(&b);
    /* a count without a source has no parentheses */
    vs_render_card_model_headline(&b, declared, "mine", NULL, NULL);
    ck_assert_str_eq(vs_buf_str(&b), "model mine: 12,345 params");
    vs_buf_reset(&b);
    vs_render_card_model_headline(&b, bare, "org/sdxl", NULL, pipe);
    ck_assert_str_eq(vs_buf_str(&b), "model org/sdxl; diffusers pipeline "
                                     "StableDiffusionXLPipeline: unet 3,221,225,472 B = 3.22 GB "
                                     "= 3.00 GiB, vae 1,073,741,824 B = 1.07 GB = 1.00 GiB");
    vs_buf_reset(&b);
    vs_render_card_params_note(&b, 7000000000ULL, 6738415616ULL);
    ck_assert_str_eq(vs_buf_str(&b), "the declared params=7,000,000,000 replaces the "
                                     "6,738,415,616 computed from the config");
    vs_buf_free(&b);
    json_decref(bare);
    json_decref(declared);
    json_decref(pipe);
}
END_TEST

START_TEST(task_lines)
{
    vs_buf b = VS_BUF_INIT;
    const char *added[] = {"adapter_weights", "gradients"};
    vs_render_card_task_headline(&b, "inference", VS_TASK_INFERENCE, NULL, 0);
    ck_assert_str_eq(vs_buf_str(&b), "task inference: adds no component by itself");
    vs_buf_reset(&b);
    vs_render_card_task_headline(&b, "generate-video", VS_TASK_GENERATE_VIDEO, NULL, 0);
    ck_assert_str_eq(vs_buf_str(&b), "task generate-video: adds no component by itself");
    vs_buf_reset(&b);
    vs_render_card_task_headline(&b, "lora", VS_TASK_LORA, added, 2);
    ck_assert_str_eq(vs_buf_str(&b), "task lora: nothing is multiplied; these components are "
                                     "listed as unknown until estimated or measured: "
                                     "adapter_weights, gradients");
    vs_buf_reset(&b);
    vs_render_card_task_headline(&b, "pretrain", VS_TASK_PRETRAIN, NULL, 0);
    ck_assert_str_eq(vs_buf_str(&b),
                     "task pretrain: nothing is multiplied; its components are already on the "
                     "sheet");
    ck_assert_str_eq(vs_render_card_task_note(VS_TASK_INFERENCE),
                     "the KV cache (`estimate kv`), workspaces and the CUDA context are yours to "
                     "declare with `reserve` or estimate");
    ck_assert_str_eq(vs_render_card_task_note(VS_TASK_QLORA),
                     "`estimate training`, `estimate activations` and `reserve NAME AMOUNT` "
                     "document them; an envelope with unknown components is only its known part");
    ck_assert_str_eq(vs_render_card_task_note(VS_TASK_GENERATE_IMAGE),
                     "a diffusers pipeline (`model NAME pipeline=DIR`) sets the weights; "
                     "`resolution WxH`, `batch N` and (video) `frames N` are held fixed; "
                     "`estimate latents`, `estimate attention` and `estimate decode` (its own "
                     "phase) document the rest");
    vs_buf_reset(&b);
    vs_render_card_quality_headline(&b, "exact match");
    ck_assert_str_eq(vs_buf_str(&b), "quality \"exact match\": the criterion every change "
                                     "(format, length, candidate) is re-checked against");
    vs_buf_free(&b);
}
END_TEST

START_TEST(set_lines)
{
    vs_buf b = VS_BUF_INIT;
    vs_render_card_format_headline(&b, "int4", 4);
    ck_assert_str_eq(vs_buf_str(&b), "format int4: 4 bits per weight");
    vs_buf_reset(&b);
    vs_render_card_dim_headline(&b, "length", 65536);
    ck_assert_str_eq(vs_buf_str(&b), "length 65,536: the required tokens per sequence, held "
                                     "fixed for every candidate");
    vs_buf_reset(&b);
    vs_render_card_dim_headline(&b, "concurrency", 8);
    ck_assert_str_eq(vs_buf_str(&b), "concurrency 8: simultaneous sequences (inference), held "
                                     "fixed for every candidate");
    vs_buf_reset(&b);
    vs_render_card_dim_headline(&b, "frames", 81);
    ck_assert_str_eq(vs_buf_str(&b),
                     "frames 81: frames per generated video, held fixed for every candidate");
    vs_buf_reset(&b);
    vs_render_card_dim_headline(&b, "batch", 1000);
    ck_assert_str_eq(vs_buf_str(&b), "batch 1,000: images or videos generated together, held "
                                     "fixed for every candidate");
    vs_buf_reset(&b);
    vs_render_card_dim_headline(&b, "depth", 3);
    ck_assert_str_eq(vs_buf_str(&b), "depth 3");
    vs_buf_reset(&b);
    vs_render_card_resolution_headline(&b, 1024, 768);
    ck_assert_str_eq(vs_buf_str(&b), "resolution 1024x768: the generated image or video frame in "
                                     "pixels, held fixed for every candidate");
    vs_buf_reset(&b);
    vs_render_card_microbatch_headline(&b, 4, 0, 0);
    ck_assert_str_eq(vs_buf_str(&b), "microbatch 4: sequences per forward/backward pass");
    vs_buf_reset(&b);
    vs_render_card_microbatch_headline(&b, 4, 1, 16);
    ck_assert_str_eq(vs_buf_str(&b), "microbatch 4, accumulation 16: sequences per "
                                     "forward/backward pass; accumulation keeps the update "
                                     "comparable without more memory");
    ck_assert_str_eq(vs_render_card_note(VS_CARD_NOTE_FILES_OTHER_MODEL),
                     "the weights read from files were for another model or revision: cleared "
                     "(`weights from=PATH` reads them again)");
    ck_assert_str_eq(vs_render_card_note(VS_CARD_NOTE_FILES_OTHER_FORMAT),
                     "the weights read from files were in another format: cleared (`weights "
                     "from=PATH` reads the files of this format)");
    ck_assert_str_eq(vs_render_card_note(VS_CARD_NOTE_NO_PARAMS),
                     "no parameter count yet: give params=COUNT or config=PATH");
    vs_buf_free(&b);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("render_card_lines");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, card_headline);
    tcase_add_test(tc, card_unset);
    tcase_add_test(tc, model_config);
    tcase_add_test(tc, model_bare_and_pipeline);
    tcase_add_test(tc, task_lines);
    tcase_add_test(tc, set_lines);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
