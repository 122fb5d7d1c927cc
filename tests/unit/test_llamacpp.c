/* Tests of llama.cpp as it allocates (engine/llamacpp.c, engine/llamacpp_arch.c):
 * the KV cache of the public models whose sliding window llama.cpp does not
 * follow (or follows in its own way), the weights it keeps in host memory, its
 * budget from free memory, and the refusals it makes. Every expected figure is
 * worked by hand in the comments from the model's public config.json (the
 * fixtures of tests/model/configs) and llama.cpp's rules read at commit
 * 0c1e570 (the tree llama-cpp-python 0.3.36 vendors); the comparison with a
 * real llama.cpp's own figures is test_llamacpp_oracle.c. */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/engine.h"
#include "engine/llamacpp_arch.h"
#include "lang/interp.h"
#include "render/bundle.h"
#include "util/error.h"

#include "check_run.h"
#include "results.h"

#include "cell_run.h"
#include "gguf_writer.h"
#include "test_tmp.h"

#ifndef VS_MODEL_CONFIGS
#error "VS_MODEL_CONFIGS (the tests/model/configs folder) must be defined"
#endif
#ifndef VS_LLAMACPP_DATA
#error "VS_LLAMACPP_DATA (the tests/data/llamacpp folder) must be defined"
#endif

#define MIB (1024LL * 1024LL)

static char tmpdir[256];

static void lsetup(void)
{
    vs_test_tmp(tmpdir, sizeof tmpdir, "vs-llamacpp-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
    setup();
}

static void lteardown(void)
{
    teardown();
    vs_test_rmtree(tmpdir);
}

static json_t *fit_row(void)
{
    json_t *p = lastp();
    ck_assert_str_eq(json_string_value(json_object_get(p, "kind")), "fit");
    return json_array_get(json_object_get(p, "rows"), 0);
}

static long long ival(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    ck_assert_msg(json_is_integer(v), "%s is not an integer", k);
    return (long long)json_integer_value(v);
}

static const char *sval(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    ck_assert_msg(s != NULL, "%s is not a string", k);
    return s;
}

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

/* ---- the KV cache of the cases ---- */

/* Mistral-7B-v0.1 (config: 32 layers, 8 KV heads of 128, sliding_window 4096) at
 * -c 131072: it converts to llama.cpp's 'llama' architecture (conversion/llama.py),
 * which has no sliding window, so every layer keeps 131072 cells:
 *   32 x 131072 x (8 x 128 x 2 B) x 2 = 17,179,869,184 B = 16,384 MiB.
 * The model's own layout, 4096 + 512 = 4608 cells: 32 x 4608 x 4096 B = 576 MiB. */
START_TEST(mistral_has_no_window)
{
    json_t *r;
    run_model("mistral-7b-v0.1.json", "length 131072\nconcurrency 1\nengine llamacpp\nfit");
    r = fit_row();
    ck_assert_int_eq(ival(r, "kv_need_bytes"), 16384 * MIB);
    ck_assert_ptr_nonnull(strstr(sval(r, "kv_layout_note"), "'llama' architecture has no sliding"));
    ck_assert_ptr_nonnull(strstr(sval(r, "kv_layout_note"), "would need 576.00 MiB"));
}
END_TEST

/* Phi-3-mini-4k (32 layers, 32 KV heads of 96, sliding_window 2047) at -c 131072:
 * src/models/phi3.cpp "Phi SWA is currently disabled":
 *   32 x 131072 x (32 x 96 x 2 B) x 2 = 51,539,607,552 B = 49,152 MiB.
 * Own layout: pad(2047 + 512, 256) = 2560 cells: 32 x 2560 x 12288 B = 960 MiB. */
START_TEST(phi3_window_disabled)
{
    json_t *r;
    run_model("phi-3-mini-4k-instruct.json", "length 131072\nconcurrency 1\nengine llamacpp\nfit");
    r = fit_row();
    ck_assert_int_eq(ival(r, "kv_need_bytes"), 49152 * MIB);
    ck_assert_ptr_nonnull(strstr(sval(r, "kv_layout_note"), "Phi SWA is currently disabled"));
    ck_assert_ptr_nonnull(strstr(sval(r, "kv_layout_note"), "would need 960.00 MiB"));
}
END_TEST

/* Gemma-3-27B (62 layers, 16 KV heads of 128, window 1024, every 6th layer full:
 * 10 full, 52 sliding) at -c 8192 -np 4 with q8_0 caches (34 bytes per 32 values):
 * n_ctx_seq = 2048 per stream, 4 streams; a row of 16 x 128 = 2048 values is 2176 B.
 *   full:    10 x 2048 x 4 x 2176 x 2 = 356,515,840 B = 340 MiB
 *   sliding: pad(min(2048, 1024 + 512), 256) = 1536 cells:
 *            52 x 1536 x 4 x 2176 x 2 = 1,390,411,776 B = 1,326 MiB
 * 1,666 MiB in all: the sliding cache takes q8_0 too (#21277 kept it f16, #21332
 * reverted that; src/llama-kv-cache-iswa.cpp passes type_k, type_v to both). */
START_TEST(gemma3_sliding_takes_cache_types)
{
    json_t *r;
    run_model(
        "gemma-3-27b-it.json",
        "length 2048\nconcurrency 4\nengine llamacpp cache_type_k=q8_0 cache_type_v=q8_0\nfit");
    r = fit_row();
    ck_assert_int_eq(ival(r, "kv_need_bytes"), 1666 * MIB);
    ck_assert_int_eq(ival(r, "kv_tokens"), 8192);
    /* the same through -c: n_ctx=8192 parallel=4 */
    run_ok("engine llamacpp n_ctx=8192 parallel=4 cache_type_k=q8_0 cache_type_v=q8_0\nfit");
    ck_assert_int_eq(ival(fit_row(), "kv_need_bytes"), 1666 * MIB);
    /* kv_unified: one stream of 8192 cells; sliding pad(min(8192, 1024 x 4 + 512), 256) =
     * 4608: 10 x 8192 x 4352 + 52 x 4608 x 4352 = 356,515,840 + 1,042,808,832 =
     * 1,399,324,672 B */
    run_ok("engine llamacpp n_ctx=8192 parallel=4 kv_unified=yes cache_type_k=q8_0 "
           "cache_type_v=q8_0\nfit");
    ck_assert_int_eq(ival(fit_row(), "kv_need_bytes"), 1399324672LL);
    /* --swa-full, f16: 62 x 8192 x 8192 B = 4,160,749,568 B */
    run_ok("engine llamacpp n_ctx=8192 parallel=4 swa_full=yes\nfit");
    ck_assert_int_eq(ival(fit_row(), "kv_need_bytes"), 4160749568LL);
}
END_TEST

/* -c 1024 -np 3: n_ctx_seq = pad(1024 / 3, 256) = 512, n_ctx rounded to 3 x 512 = 1536
 * cells (src/llama-context.cpp "n_ctx is not divisible by n_seq_max"), as
 * unslothai/unsloth pull request #7530 measured on a live llama-server. */
START_TEST(streams_round_the_context)
{
    run_model("llama-3.1-8b.json", "length 1024\nconcurrency 3\nengine llamacpp n_ctx=1024\nfit");
    ck_assert_int_eq(ival(fit_row(), "kv_tokens"), 1536);
    /* Llama-3.1-8B: 32 layers x 1536 cells x 8 x 128 x 2 B x 2 = 192 MiB */
    ck_assert_int_eq(ival(fit_row(), "kv_need_bytes"), 192 * MIB);
}
END_TEST

/* A GGUF header written by hand (gguf_writer.h): metadata then a table of tensors
 * of the given ggml types, data as a hole. */
typedef struct tdesc {
    const char *name;
    unsigned ndims;
    uint64_t ne[2];
    uint32_t type; /* ggml type id: 0 F32, 1 F16, 8 Q8_0, 12 Q4_K, 14 Q6_K */
} tdesc;

static uint64_t tbytes(const tdesc *t)
{
    uint64_t e = t->ne[0] * (t->ndims > 1 ? t->ne[1] : 1);
    switch (t->type) {
    case 0:
        return e * 4;
    case 1:
        return e * 2;
    case 8:
        return e / 32 * 34; /* ggml-common.h block_q8_0 */
    case 12:
        return e / 256 * 144; /* ggml-common.h block_q4_K */
    case 14:
        return e / 256 * 210; /* block_q6_K */
    default:
        ck_abort_msg("type %u", t->type);
    }
    return 0;
}

static void write_gguf(const char *path, wb *w, const tdesc *t, size_t n)
{
    uint64_t off = 0;
    size_t i;
    unsigned d;
    int fd;
    for (i = 0; i < n; i++) {
        pstr(w, t[i].name);
        p32(w, t[i].ndims);
        for (d = 0; d < t[i].ndims; d++)
            p64(w, t[i].ne[d]);
        p32(w, t[i].type);
        p64(w, off);
        off += (tbytes(&t[i]) + 31) / 32 * 32;
    }
    while (w->len % 32)
        put(w, "", 1);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, w->p, w->len), (ssize_t)w->len);
    ck_assert_int_eq(ftruncate(fd, (off_t)(w->len + off)), 0);
    close(fd);
    free(w->p);
    memset(w, 0, sizeof *w);
}

static void begin(wb *w, uint64_t ntensors, uint64_t nkv, const char *arch)
{
    memset(w, 0, sizeof *w);
    put(w, "GGUF", 4);
    p32(w, 3);
    p64(w, ntensors);
    p64(w, nkv + 1);
    kv_str(w, "general.architecture", arch);
}

/* gpt-oss-20b from its GGUF alone (24 layers, 8 KV heads of 64, sliding_window 128,
 * no pattern key: src/models/openai-moe.cpp fixes load_swa_pattern(ml, 2), so the
 * even layers slide) at -c 131072:
 *   full:    12 x 131072 x (8 x 64 x 2 B) x 2 = 3,221,225,472 B = 3,072 MiB
 *   sliding: pad(128 + 512, 256) = 768 cells: 12 x 768 x 2048 B = 18 MiB
 * 3,090 MiB in all, and the card's own layout alternates the same way. */
START_TEST(gpt_oss_gguf_pattern)
{
    char path[512], cell[1024];
    wb w;
    json_t *r;
    tdesc t[1] = {{"token_embd.weight", 2, {2880, 201088}, 1}};
    snprintf(path, sizeof path, "%s/gpt-oss-20b.gguf", tmpdir);
    begin(&w, 1, 8, "gpt-oss");
    kv_u32(&w, "gpt-oss.block_count", 24);
    kv_u32(&w, "gpt-oss.context_length", 131072);
    kv_u32(&w, "gpt-oss.embedding_length", 2880);
    kv_u32(&w, "gpt-oss.attention.head_count", 64);
    kv_u32(&w, "gpt-oss.attention.head_count_kv", 8);
    kv_u32(&w, "gpt-oss.attention.key_length", 64);
    kv_u32(&w, "gpt-oss.attention.value_length", 64);
    kv_u32(&w, "gpt-oss.attention.sliding_window", 128);
    write_gguf(path, &w, t, 1);
    snprintf(cell, sizeof cell,
             "sheet \"gpt-oss\"\nmodel openai/gpt-oss-20b\ntask inference\nweights from=%s\n"
             "length 131072\nconcurrency 1\ngpu \"H100 SXM\"\nengine llamacpp\nfit",
             path);
    run_ok(cell);
    r = fit_row();
    ck_assert_int_eq(ival(r, "kv_need_bytes"), 3090 * MIB);
    ck_assert(json_is_null(json_object_get(r, "kv_layout_note"))); /* the same layout */
}
END_TEST

/* An architecture whose pattern llama.cpp fixes dense-first (src/models/laguna.cpp:
 * load_swa_pattern(ml, 4, true): layer il slides unless il % 4 == 0), from a GGUF with
 * a window and no pattern key. Six layers: 0 and 4 full, 1, 2, 3, 5 sliding (the
 * other rule, il % 4 < 3, would give five sliding). 4 KV heads of 128, f16: 2048 B a
 * cell; at 4096 tokens full 2 x 4096 x 2048 = 16 MiB, sliding pad(512 + 512, 256) =
 * 1024 cells: 4 x 1024 x 2048 = 8 MiB; 24 MiB. */
START_TEST(dense_first_pattern)
{
    char path[512], cell[1024];
    wb w;
    tdesc t[1] = {{"token_embd.weight", 2, {2048, 1024}, 1}};
    snprintf(path, sizeof path, "%s/laguna.gguf", tmpdir);
    begin(&w, 1, 7, "laguna");
    kv_u32(&w, "laguna.block_count", 6);
    kv_u32(&w, "laguna.embedding_length", 2048);
    kv_u32(&w, "laguna.attention.head_count", 16);
    kv_u32(&w, "laguna.attention.head_count_kv", 4);
    kv_u32(&w, "laguna.attention.key_length", 128);
    kv_u32(&w, "laguna.attention.value_length", 128);
    kv_u32(&w, "laguna.attention.sliding_window", 512);
    write_gguf(path, &w, t, 1);
    snprintf(cell, sizeof cell,
             "sheet \"laguna\"\nmodel m\ntask inference\nweights from=%s\nlength 4096\n"
             "concurrency 1\ngpu \"H100 SXM\"\nengine llamacpp\nfit",
             path);
    run_ok(cell);
    ck_assert_int_eq(ival(fit_row(), "kv_need_bytes"), 24 * MIB);
}
END_TEST

/* DeepSeek-R1-Distill-Qwen-32B Q4_K_M keeps token_embd in host memory: its
 * {5120, 152064} Q4_K tensor is 778,567,680 / 256 x 144 = 437,944,320 B = 417.66 MiB,
 * the CPU_Mapped buffer llama.cpp prints for it. A header with that token_embd, the
 * Q6_K output {5120, 152064} (3,041,280 blocks x 210 = 638,668,800 B), output_norm F32
 * (20,480 B) and one Q4_K layer tensor {5120, 5120} (14,745,600 B): the GPU holds
 * everything but token_embd, 653,434,880 B. Tied (no output.weight): the GPU holds a
 * copy of token_embd as the output, so all of the file. */
START_TEST(token_embd_on_host)
{
    char path[512], cell[1024];
    wb w;
    json_t *r;
    tdesc t[4] = {{"token_embd.weight", 2, {5120, 152064}, 12},
                  {"output.weight", 2, {5120, 152064}, 14},
                  {"output_norm.weight", 1, {5120, 0}, 0},
                  {"blk.0.attn_q.weight", 2, {5120, 5120}, 12}};
    snprintf(path, sizeof path, "%s/r1-distill.gguf", tmpdir);
    begin(&w, 4, 5, "qwen2");
    kv_u32(&w, "qwen2.block_count", 64);
    kv_u32(&w, "qwen2.embedding_length", 5120);
    kv_u32(&w, "qwen2.attention.head_count", 40);
    kv_u32(&w, "qwen2.attention.head_count_kv", 8);
    kv_u32(&w, "qwen2.context_length", 131072);
    write_gguf(path, &w, t, 4);
    snprintf(cell, sizeof cell,
             "sheet \"r1\"\nmodel deepseek-ai/DeepSeek-R1-Distill-Qwen-32B\ntask inference\n"
             "weights from=%s\nlength 4096\nconcurrency 1\ngpu \"H100 SXM\"\n"
             "reserve activation_peak 0GiB status=measured source=\"t\"\nengine llamacpp\nfit",
             path);
    run_ok(cell);
    r = fit_row();
    ck_assert_int_eq(ival(r, "non_kv_bytes"), 653434880LL);
    ck_assert_int_eq(ival(r, "host_bytes"), 437944320LL);
    ck_assert_ptr_nonnull(strstr(sval(r, "host_rule"), "417.66 MiB"));

    begin(&w, 3, 5, "qwen2");
    kv_u32(&w, "qwen2.block_count", 64);
    kv_u32(&w, "qwen2.embedding_length", 5120);
    kv_u32(&w, "qwen2.attention.head_count", 40);
    kv_u32(&w, "qwen2.attention.head_count_kv", 8);
    kv_u32(&w, "qwen2.context_length", 131072);
    {
        tdesc tied[3] = {t[0], t[2], t[3]};
        write_gguf(path, &w, tied, 3);
    }
    snprintf(cell, sizeof cell, "weights from=%s\nfit", path);
    run_ok(cell);
    /* 437,944,320 + 20,480 + 14,745,600 */
    ck_assert_int_eq(ival(fit_row(), "non_kv_bytes"), 452710400LL);
}
END_TEST

/* A CUDA buffer pads (ggml/src/ggml-cuda/ggml-cuda.cu at 0c1e570, get_alloc_size): a
 * quantised tensor whose rows are not a multiple of 512 values gets the rest of one
 * row, and each tensor starts on 128 bytes. gpt-oss's 2880-wide Q8_0 tensors: 2880 % 512
 * = 320, so 192 values = 6 blocks x 34 = 204 B more each.
 *   blk.0.attn_q {2880, 4096}: 12,533,760 B + 204 = 12,533,964, to 128: 12,534,016
 *   output {2880, 201088}:    615,329,280 B + 204 = 615,329,484, to 128: 615,329,536
 * The GPU holds 627,863,552 B, 512 B more than the tensors' 627,863,040; token_embd
 * (Q8_0, 615,329,280 B) stays on the host unpadded. */
START_TEST(cuda_padding)
{
    char path[512], cell[1024];
    wb w;
    tdesc t[3] = {{"token_embd.weight", 2, {2880, 201088}, 8},
                  {"output.weight", 2, {2880, 201088}, 8},
                  {"blk.0.attn_q.weight", 2, {2880, 4096}, 8}};
    snprintf(path, sizeof path, "%s/pad.gguf", tmpdir);
    begin(&w, 3, 4, "gpt-oss");
    kv_u32(&w, "gpt-oss.block_count", 24);
    kv_u32(&w, "gpt-oss.embedding_length", 2880);
    kv_u32(&w, "gpt-oss.attention.head_count", 64);
    kv_u32(&w, "gpt-oss.attention.head_count_kv", 8);
    write_gguf(path, &w, t, 3);
    snprintf(cell, sizeof cell,
             "sheet \"pad\"\nmodel m\ntask inference\nweights from=%s\nlength 4096\n"
             "concurrency 1\ngpu \"H100 SXM\"\n"
             "reserve activation_peak 0GiB status=measured source=\"t\"\nengine llamacpp\nfit",
             path);
    run_ok(cell);
    ck_assert_int_eq(ival(fit_row(), "non_kv_bytes"), 627863552LL);
    ck_assert_int_eq(ival(fit_row(), "host_bytes"), 615329280LL);
}
END_TEST

/* -ngl below all layers, from a GGUF: the layers on the CPU are the first n_layer + 1 -
 * n_gpu_layers, each with its own tensors' bytes. Four layers of one ffn_down {4096,
 * 4096}, Q6_K on layers 0 and 3 (65,536 blocks x 210 = 13,762,560 B), Q4_K on 1 and 2
 * (x 144 = 9,437,184 B); token_embd Q4_K {4096, 32000} 73,728,000 B, output Q6_K
 * 107,520,000 B; 227,647,488 B in all. All on the GPU but token_embd: 153,919,488 B.
 * n_gpu_layers=3: layers 0 and 1 stay on the CPU too, 73,728,000 + 13,762,560 +
 * 9,437,184 = 96,927,744 B on the host, 130,719,744 B on the GPU. */
START_TEST(partial_offload_gguf)
{
    char path[512], cell[1024];
    wb w;
    json_t *r;
    tdesc t[6] = {{"token_embd.weight", 2, {4096, 32000}, 12},
                  {"output.weight", 2, {4096, 32000}, 14},
                  {"blk.0.ffn_down.weight", 2, {4096, 4096}, 14},
                  {"blk.1.ffn_down.weight", 2, {4096, 4096}, 12},
                  {"blk.2.ffn_down.weight", 2, {4096, 4096}, 12},
                  {"blk.3.ffn_down.weight", 2, {4096, 4096}, 14}};
    snprintf(path, sizeof path, "%s/ngl.gguf", tmpdir);
    begin(&w, 6, 4, "llama");
    kv_u32(&w, "llama.block_count", 4);
    kv_u32(&w, "llama.embedding_length", 4096);
    kv_u32(&w, "llama.attention.head_count", 32);
    kv_u32(&w, "llama.attention.head_count_kv", 8);
    write_gguf(path, &w, t, 6);
    snprintf(cell, sizeof cell,
             "sheet \"ngl\"\nmodel m\ntask inference\nweights from=%s\nlength 4096\n"
             "concurrency 1\ngpu \"H100 SXM\"\n"
             "reserve activation_peak 0GiB status=measured source=\"t\"\nengine llamacpp\nfit",
             path);
    run_ok(cell);
    r = fit_row();
    ck_assert_int_eq(ival(r, "non_kv_bytes"), 153919488LL);
    /* the KV cache: 4 layers x 4096 cells x (8 x 128 x 2 B) x 2 = 64 MiB */
    ck_assert_int_eq(ival(r, "kv_need_bytes"), 64 * MIB);
    run_ok("engine llamacpp n_gpu_layers=3\nfit");
    r = fit_row();
    ck_assert_int_eq(ival(r, "non_kv_bytes"), 130719744LL);
    /* two of the four layers' KV on the host: 32 MiB each side */
    ck_assert_int_eq(ival(r, "kv_need_bytes"), 32 * MIB);
    ck_assert_int_eq(ival(r, "host_bytes"), 96927744LL + 32 * MIB);
    ck_assert_ptr_null(strstr(sval(r, "host_rule"), "spread evenly"));
}
END_TEST

/* -ngl below all layers and --no-kv-offload (src/llama-model.cpp: i_gpu_start =
 * n_layer + 1 - n_gpu_layers; the KV of a CPU layer is on the CPU). Llama-3.1-8B
 * (32 layers, vocab 128256 x hidden 4096 untied) at bf16, 8192 tokens:
 *   KV 32 x 8192 x 4096 B = 1 GiB; -ngl 17 leaves 32 + 1 - 17 = 16 layers on the CPU:
 *   half the KV, 512 MiB, stays in host memory. */
START_TEST(partial_offload)
{
    json_t *r;
    long long w_all, io;
    run_model("llama-3.1-8b.json",
              "length 8192\nconcurrency 1\n"
              "reserve activation_peak 0GiB status=measured source=\"t\"\nengine llamacpp\nfit");
    r = fit_row();
    ck_assert_int_eq(ival(r, "kv_need_bytes"), 1024 * MIB);
    /* token_embd from the card: 128256 x 4096 x 2 B = 1,050,673,152 B on the host */
    ck_assert_int_eq(ival(r, "host_bytes"), 1050673152LL);
    w_all = ival(r, "non_kv_bytes") + 1050673152LL; /* the weights */
    run_ok("engine llamacpp n_gpu_layers=17\nfit");
    r = fit_row();
    ck_assert_int_eq(ival(r, "kv_need_bytes"), 512 * MIB);
    /* the repeating layers' weights: all less token_embd and output (2 x 1,050,673,152),
     * 16 of 32 layers of them on the host (an even share per layer) */
    io = 2 * 1050673152LL;
    ck_assert_int_eq(ival(r, "non_kv_bytes"), w_all - 1050673152LL - (w_all - io) / 32 * 16);
    run_ok("engine llamacpp no_kv_offload=yes\nfit");
    r = fit_row();
    ck_assert_int_eq(ival(r, "kv_need_bytes"), 0);
    ck_assert_int_eq(ival(r, "host_bytes"), 1050673152LL + 1024 * MIB);
}
END_TEST

/* The budget: common/fit.cpp projects from the device's free memory. With free= on the
 * offer, free - 1024 MiB; without it the total less the stated 264 MiB of a CUDA
 * context (an idle RTX 3090 in ollama/ollama#17482: 24124 MiB total, 23860 MiB free). */
START_TEST(budget_from_free)
{
    json_t *r;
    run_model("llama-3.1-8b.json",
              "length 8192\nconcurrency 1\ngpu \"RTX 3090\" free=23860MiB\nengine llamacpp\n"
              "fit \"RTX 3090\"");
    r = fit_row();
    ck_assert_int_eq(ival(r, "budget_bytes"), (23860 - 1024) * MIB);
    run_ok("gpu \"RTX 3090\" reported=24124MiB\nfit \"RTX 3090\"");
    ck_assert_int_eq(ival(fit_row(), "budget_bytes"), (24124 - 264 - 1024) * MIB);
    ck_assert_int_ne(run("gpu \"RTX 3090\" free=0MiB"), 0);
}
END_TEST

/* An MLA model with different K and V cache types: src/llama-context.cpp refuses it
 * ("model does not support different K (q8_0) and V (f16) cache types"). DeepSeek-V2-
 * Lite's latent cache is K only: 27 layers x (512 + 64) values; at 4096 cells q8_0 on
 * both: 27 x 4096 x 576 / 32 x 34 = 67,682,304 B. */
START_TEST(mla_types_refused)
{
    run_model(
        "deepseek-v2-lite.json",
        "length 4096\nconcurrency 1\nengine llamacpp cache_type_k=q8_0 cache_type_v=q8_0\nfit");
    ck_assert_int_eq(ival(fit_row(), "kv_need_bytes"), 67682304LL);
    ck_assert_int_ne(run("engine llamacpp cache_type_k=q8_0\nfit"), 0);
    ck_assert_ptr_nonnull(strstr(err.message, "different K (q8_0) and V (f16)"));
}
END_TEST

/* The compute buffer estimate (engine/llamacpp_compute.h) on the published CUDA figure
 * of fedora-copr/logdetective#106: a 32-layer model of 32 heads, 4096 hidden (Mistral
 * 7B's shape) at n_ctx 32768, flash attention off, "CUDA0 compute buffer size =
 * 2144.00 MiB". By hand, the attention phase: the f32 mask 32768 x 512 x 4 = 64 MiB,
 * the scores 32768 x 512 x 32 x 4 = 2048 MiB, four hidden states 4 x 512 x 4096 x 4 =
 * 32 MiB: 2144 MiB; the estimate is 1.10 times that, rounded up: 2359 MiB. */
START_TEST(compute_buffer_published)
{
    json_t *c;
    run_model("mistral-7b-v0.1.json", "length 32768\nconcurrency 1\nengine llamacpp "
                                      "flash_attn=off\nestimate runtime\nenvelope");
    c = json_array_get(json_object_get(lastp(), "components"), 0);
    ck_assert_str_eq(sval(c, "name"), "activation_peak");
    ck_assert_int_eq(ival(c, "bytes"), 2359 * MIB);
    ck_assert_int_ge(ival(c, "bytes"), 2144 * MIB);
}
END_TEST

/* ggml-org/llama.cpp#11861, DeepSeek-R1-Distill-Qwen-32B Q4_K_M on CUDA at n_ctx 16384,
 * n_ubatch 512, flash attention on: "CUDA0 compute buffer size = 307.00 MiB" (and 42.01
 * MiB of CUDA_Host compute buffer in host memory). By hand, the output phase is the
 * largest: logits 152064 x 512 x 4 = 297 MiB, two hidden states 2 x 512 x 5120 x 4 =
 * 20 MiB, 317 MiB; x 1.10 = 348.7, 349 MiB: above the printed figure, by 14%. */
START_TEST(compute_buffer_published_fa)
{
    char cell[1024];
    json_t *items, *x;
    size_t j;
    long long bytes = -1;
    snprintf(cell, sizeof cell,
             "sheet \"r1c\"\nmodel m config=%s/deepseek-r1-distill-qwen-32b.json\n"
             "task inference\nlength 16384\nconcurrency 1\nengine llamacpp flash_attn=on\n"
             "estimate runtime\nengine",
             VS_LLAMACPP_DATA);
    run_ok(cell);
    items = json_object_get(lastp(), "runtime_items");
    json_array_foreach(items, j, x) if (!strcmp(sval(x, "name"), "activation_peak")) bytes =
        ival(x, "bytes");
    ck_assert_int_eq(bytes, 349 * MIB);
    ck_assert_int_ge(bytes, 307 * MIB);
}
END_TEST

/* ---- the architecture table ---- */

/* Jamba-v0.1's 28 Mamba layers under llama.cpp keep F32 states, one row per
 * sequence (src/llama-memory-recurrent.cpp): conv (d_conv - 1) x d_inner = 3 x
 * 8192 = 24,576 values and SSM d_inner x d_state = 8192 x 16 = 131,072 values,
 * so 28 x 155,648 x 4 B = 17,432,576 B per sequence, x 4 sequences =
 * 69,730,304 B; its 4 attention layers (8 KV heads of 128) at -c 4096 -np 4,
 * 1024 cells per stream: 4 x 4 x 1024 x (1024 x 2 B) x 2 = 67,108,864 B. */
START_TEST(recurrent_states_in_f32)
{
    json_t *r;
    run_model("jamba-v0.1.json", "length 1024\nconcurrency 4\nengine llamacpp\nfit");
    r = fit_row();
    ck_assert_int_eq(ival(r, "kv_need_bytes"), 69730304LL + 67108864LL);
}
END_TEST

START_TEST(arch_table)
{
    const vs_llamacpp_arch *a;
    /* families that convert to another GGUF architecture (conversion/__init__.py) */
    ck_assert_str_eq(vs_llamacpp_arch_find("mistral")->name, "llama");
    ck_assert_str_eq(vs_llamacpp_arch_find("gpt_oss")->name, "gpt-oss");
    ck_assert_str_eq(vs_llamacpp_arch_find("gemma3_text")->name, "gemma3");
    ck_assert_str_eq(vs_llamacpp_arch_find("deepseek_v3")->name, "deepseek2");
    ck_assert_int_eq(vs_llamacpp_arch_find("qwen2")->swa, VS_LCP_SWA_NONE);
    ck_assert_int_eq(vs_llamacpp_arch_find("starcoder2")->swa, VS_LCP_SWA_NONE);
    a = vs_llamacpp_arch_find("gemma2");
    ck_assert_int_eq(a->swa, VS_LCP_SWA_KEPT);
    ck_assert_ptr_null(vs_llamacpp_arch_find("mllama"));
    ck_assert_ptr_null(vs_llamacpp_arch_find(NULL));
    /* the input layer (src/llama-arch.cpp LLM_TENSOR_INFOS) */
    ck_assert_int_eq(vs_llamacpp_arch_tensor_layer("token_embd.weight"), VS_LCP_LAYER_INPUT);
    ck_assert_int_eq(vs_llamacpp_arch_tensor_layer("position_embd.weight"), VS_LCP_LAYER_INPUT);
    ck_assert_int_eq(vs_llamacpp_arch_tensor_layer("token_embd_norm.weight"),
                     VS_LCP_LAYER_REPEATING);
    ck_assert_int_eq(vs_llamacpp_arch_tensor_layer("blk.3.attn_q.weight"), VS_LCP_LAYER_REPEATING);
    ck_assert_int_eq(vs_llamacpp_arch_tensor_layer("output.weight"), VS_LCP_LAYER_OUTPUT);
    ck_assert_int_eq(vs_llamacpp_arch_tensor_layer("output_norm.weight"), VS_LCP_LAYER_OUTPUT);
}
END_TEST

/* An architecture llama.cpp's table does not hold keeps the model's layout, and says so. */
START_TEST(unknown_arch_keeps_layout)
{
    vs_kv_layout in, out;
    int changed = 1;
    char why[400];
    memset(&in, 0, sizeof in);
    in.n = 1;
    in.g[0].kind = VS_KV_SLIDING;
    in.g[0].layers = 4;
    in.g[0].kv_heads = 2;
    in.g[0].head_dim = 64;
    in.g[0].window = 512;
    vs_llamacpp_arch_layout(&out, &changed, why, sizeof why, NULL, "mllama", &in);
    ck_assert_int_eq(changed, 0);
    ck_assert_int_eq(out.g[0].kind, VS_KV_SLIDING);
    ck_assert_ptr_nonnull(strstr(why, "'mllama' are not modelled"));
    vs_llamacpp_arch_layout(&out, &changed, why, sizeof why, vs_llamacpp_arch_find("llama"),
                            "llama", &in);
    ck_assert_int_eq(changed, 1);
    ck_assert_int_eq(out.n, 1);
    ck_assert_int_eq(out.g[0].kind, VS_KV_FULL);
    ck_assert_int_eq(out.g[0].layers, 4);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("llamacpp");
    TCase *t = tcase_create("core");
    tcase_add_checked_fixture(t, lsetup, lteardown);
    tcase_set_timeout(t, 60);
    tcase_add_test(t, mistral_has_no_window);
    tcase_add_test(t, phi3_window_disabled);
    tcase_add_test(t, gemma3_sliding_takes_cache_types);
    tcase_add_test(t, streams_round_the_context);
    tcase_add_test(t, gpt_oss_gguf_pattern);
    tcase_add_test(t, dense_first_pattern);
    tcase_add_test(t, token_embd_on_host);
    tcase_add_test(t, cuda_padding);
    tcase_add_test(t, partial_offload);
    tcase_add_test(t, partial_offload_gguf);
    tcase_add_test(t, budget_from_free);
    tcase_add_test(t, mla_types_refused);
    tcase_add_test(t, compute_buffer_published);
    tcase_add_test(t, compute_buffer_published_fa);
    tcase_add_test(t, arch_table);
    tcase_add_test(t, recurrent_states_in_f32);
    tcase_add_test(t, unknown_arch_keeps_layout);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return vs_check_run(suite());
}
