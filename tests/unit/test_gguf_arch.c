/* GGUF metadata -> the card's kv_layout (and `estimate kv` with no config),
 * and llama.cpp file types over the family registry's tensor lists
 * (model/gguf_arch.h). Expected numbers are hand arithmetic in this file or
 * published GGUF file sizes (cited where used). */
#include <check.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lang/interp.h"
#include "lang/verb.h"
#include "model/family.h"
#include "model/gguf.h"
#include "model/gguf_arch.h"
#include "model/gguf_quant.h"
#include "model/model.h"
#include "render/bundle.h"
#include "sheet/sheet.h"

#include "cell_run.h"
#include "check_run.h"
#include "gguf_writer.h"
#include "results.h"
#include "test_tmp.h"

#ifndef VS_MODEL_CONFIGS
#error "VS_MODEL_CONFIGS (the tests/model/configs folder) must be defined"
#endif

/* ---- GGUF files built by hand (gguf_writer.h) ---- */

static char tmpdir[256];

static const char *at(const char *name)
{
    static char p[8][512];
    static int k;
    k = (k + 1) % 8;
    snprintf(p[k], sizeof p[k], "%s/%s", tmpdir, name);
    return p[k];
}

/* Starts a header of nkv pairs holding one F16 tensor token_embd.weight
 * {hidden, vocab}; finish() writes the table and the data as a hole. */
static void begin(wb *w, uint64_t nkv, const char *arch)
{
    memset(w, 0, sizeof *w);
    put(w, "GGUF", 4);
    p32(w, 3);
    p64(w, 1);
    p64(w, nkv + 1);
    kv_str(w, "general.architecture", arch);
}

static void finish(wb *w, const char *path, uint64_t hidden, uint64_t vocab)
{
    int fd;
    pstr(w, "token_embd.weight");
    p32(w, 2);
    p64(w, hidden);
    p64(w, vocab);
    p32(w, 1); /* F16 */
    p64(w, 0);
    while (w->len % 32)
        put(w, "", 1);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, w->p, w->len), (ssize_t)w->len);
    ck_assert_int_eq(ftruncate(fd, (off_t)(w->len + hidden * vocab * 2)), 0);
    close(fd);
    free(w->p);
    memset(w, 0, sizeof *w);
}

/* A header of nkv pairs (then the caller's) and a table of n F16/F32
 * tensors, data as a hole. */
typedef struct tdesc {
    const char *name;
    unsigned ndims;
    uint64_t ne[3];
    uint32_t type; /* 0 F32, 1 F16 */
} tdesc;

static void finish_table(wb *w, const char *path, const tdesc *t, size_t n)
{
    uint64_t off = 0;
    size_t i;
    unsigned d;
    int fd;
    for (i = 0; i < n; i++) {
        uint64_t e = 1;
        pstr(w, t[i].name);
        p32(w, t[i].ndims);
        for (d = 0; d < t[i].ndims; d++) {
            p64(w, t[i].ne[d]);
            e *= t[i].ne[d];
        }
        p32(w, t[i].type);
        p64(w, off);
        off += (e * (t[i].type ? 2 : 4) + 31) / 32 * 32;
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

/* ---- the interpreter (cell_run.h), with a folder for the files ---- */

static void arch_setup(void)
{
    vs_test_tmp(tmpdir, sizeof tmpdir, "vs-gguf-arch-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
    setup();
}

static void arch_teardown(void)
{
    char cmd[300];
    teardown();
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    ck_assert_int_eq(system(cmd), 0);
}

/* the payload of the cell's bundle of that kind */
static json_t *of_kind(const char *kind)
{
    size_t i;
    for (i = 0; i < json_array_size(st.bundles); i++) {
        json_t *p = json_object_get(json_array_get(st.bundles, i), VS_MIME_JSON);
        if (!strcmp(json_is_string(json_object_get(p, "kind"))
                        ? json_string_value(json_object_get(p, "kind"))
                        : "",
                    kind))
            return p;
    }
    ck_abort_msg("no %s bundle", kind);
    return NULL;
}

static json_t *card_arch(void)
{
    run_ok("card");
    return json_object_get(json_object_get(lastp(), "card"), "arch");
}

/* ---- metadata -> layout, pure ---- */

START_TEST(layout_from_metadata)
{
    vs_gguf_arch a;
    vs_kv_layout l;
    vs_error e;
    uint64_t kvh[6] = {8, 8, 4, 8, 8, 0}, swa[6] = {1, 1, 0, 1, 1, 0};

    /* Llama-3-8B: 32 layers of 8 KV heads, head size 4096 / 32 */
    memset(&a, 0, sizeof a);
    strcpy(a.name, "llama");
    a.block_count = 32;
    a.embedding_length = 4096;
    a.head_count = 32;
    a.head_count_kv = 8;
    ck_assert_int_eq(vs_gguf_arch_kv_layout(&l, &a, &e), 0);
    ck_assert_uint_eq(l.n, 1);
    ck_assert_int_eq(l.g[0].kind, VS_KV_FULL);
    ck_assert_uint_eq(l.g[0].layers, 32);
    ck_assert_uint_eq(l.g[0].kv_heads, 8);
    ck_assert_uint_eq(l.g[0].head_dim, 128);
    /* no head_count_kv: llama.cpp's default, head_count */
    a.head_count_kv = 0;
    ck_assert_int_eq(vs_gguf_arch_kv_layout(&l, &a, &e), 0);
    ck_assert_uint_eq(l.g[0].kv_heads, 32);

    /* Gemma-3 with a number pattern 6 over 12 layers: layers 5 and 11 full */
    memset(&a, 0, sizeof a);
    strcpy(a.name, "gemma3");
    a.block_count = 12;
    a.head_count = 8;
    a.head_count_kv = 4;
    a.key_length = a.value_length = 256;
    a.sliding_window = 1024;
    a.sliding_window_pattern = 6;
    ck_assert_int_eq(vs_gguf_arch_kv_layout(&l, &a, &e), 0);
    ck_assert_uint_eq(l.n, 2);
    ck_assert_int_eq(l.g[0].kind, VS_KV_SLIDING);
    ck_assert_uint_eq(l.g[0].layers, 10);
    ck_assert_uint_eq(l.g[0].window, 1024);
    ck_assert_uint_eq(l.g[0].head_dim, 256);
    ck_assert_int_eq(l.g[1].kind, VS_KV_FULL);
    ck_assert_uint_eq(l.g[1].layers, 2);
    /* no pattern key: llama.cpp fixes 6 for gemma3 (and 2 for gemma2) */
    a.sliding_window_pattern = 0;
    ck_assert_int_eq(vs_gguf_arch_kv_layout(&l, &a, &e), 0);
    ck_assert_uint_eq(l.g[0].layers, 10);
    strcpy(a.name, "gemma2");
    ck_assert_int_eq(vs_gguf_arch_kv_layout(&l, &a, &e), 0);
    ck_assert_uint_eq(l.g[0].layers, 6);
    ck_assert_uint_eq(l.g[1].layers, 6);
    /* gemma2 without a window key: llama.cpp's default of 4,096 */
    a.sliding_window = 0;
    ck_assert_int_eq(vs_gguf_arch_kv_layout(&l, &a, &e), 0);
    ck_assert_uint_eq(l.g[0].window, 4096);
    ck_assert_uint_eq(l.g[0].layers, 6);
    a.sliding_window = 1024;
    /* gemma3n over 30 layers: one full in five, layers 20 on keep no cache */
    strcpy(a.name, "gemma3n");
    a.block_count = 30;
    ck_assert_int_eq(vs_gguf_arch_kv_layout(&l, &a, &e), 0);
    ck_assert_uint_eq(l.n, 3);
    ck_assert_int_eq(l.g[0].kind, VS_KV_SLIDING);
    ck_assert_uint_eq(l.g[0].layers, 16); /* 0-19 but 4, 9, 14, 19 */
    ck_assert_int_eq(l.g[1].kind, VS_KV_FULL);
    ck_assert_uint_eq(l.g[1].layers, 4);
    ck_assert_int_eq(l.g[2].kind, VS_KV_NONE);
    ck_assert_uint_eq(l.g[2].layers, 10);
    a.block_count = 12;
    /* an architecture llama.cpp fixes no pattern for: every layer full */
    strcpy(a.name, "qwen2");
    ck_assert_int_eq(vs_gguf_arch_kv_layout(&l, &a, &e), 0);
    ck_assert_uint_eq(l.n, 1);
    ck_assert_int_eq(l.g[0].kind, VS_KV_FULL);

    /* per-layer KV heads and a per-layer pattern: layer 5 keeps no cache,
     * layer 2 is full with 4 heads, the others slide with 8 */
    memset(&a, 0, sizeof a);
    strcpy(a.name, "hybrid");
    a.block_count = 6;
    a.head_count = 16;
    a.head_count_kv = 8;
    a.head_count_kv_layers = kvh;
    a.n_head_count_kv_layers = 6;
    a.sliding_window_layers = swa;
    a.n_sliding_window_layers = 6;
    a.sliding_window = 512;
    a.key_length = 128;
    a.value_length = 64;
    ck_assert_int_eq(vs_gguf_arch_kv_layout(&l, &a, &e), 0);
    ck_assert_uint_eq(l.n, 3);
    ck_assert_int_eq(l.g[0].kind, VS_KV_SLIDING);
    ck_assert_uint_eq(l.g[0].layers, 4);
    ck_assert_uint_eq(l.g[0].kv_heads, 8);
    ck_assert_uint_eq(l.g[0].head_dim_v, 64);
    ck_assert_int_eq(l.g[1].kind, VS_KV_FULL);
    ck_assert_uint_eq(l.g[1].layers, 1);
    ck_assert_uint_eq(l.g[1].kv_heads, 4);
    ck_assert_int_eq(l.g[2].kind, VS_KV_NONE);
    ck_assert_uint_eq(l.g[2].layers, 1);
    /* arrays that do not match the layers are refused */
    a.n_head_count_kv_layers = 5;
    ck_assert_int_eq(vs_gguf_arch_kv_layout(&l, &a, &e), VS_EFORMAT);
    ck_assert_msg(strstr(e.message, "head_count_kv holds 5 values for 6 layers"), "%s", e.message);

    /* DeepSeek-V3: 61 latent layers of 512 + 64 */
    memset(&a, 0, sizeof a);
    strcpy(a.name, "deepseek2");
    a.block_count = 61;
    a.head_count = a.head_count_kv = 128;
    a.kv_lora_rank = 512;
    a.rope_dimension_count = 64;
    ck_assert_int_eq(vs_gguf_arch_kv_layout(&l, &a, &e), 0);
    ck_assert_uint_eq(l.n, 1);
    ck_assert_int_eq(l.g[0].kind, VS_KV_LATENT);
    ck_assert_uint_eq(l.g[0].latent, 576);
    ck_assert_uint_eq(l.g[0].layers, 61);
    a.rope_dimension_count = 0; /* too little said: no latent size */
    ck_assert_int_eq(vs_gguf_arch_kv_layout(&l, &a, &e), VS_EVALUE);

    /* a block_count no model has: refused before the layers are walked */
    a.block_count = (uint64_t)1 << 40;
    ck_assert_int_eq(vs_gguf_arch_kv_layout(&l, &a, &e), VS_EFORMAT);
    ck_assert_msg(strstr(e.message, "not a model's"), "%s", e.message);

    /* no block_count */
    memset(&a, 0, sizeof a);
    strcpy(a.name, "llama");
    ck_assert_int_eq(vs_gguf_arch_kv_layout(&l, &a, &e), VS_EFORMAT);
    ck_assert_msg(strstr(e.message, "llama.block_count"), "%s", e.message);
}
END_TEST

/* Recurrent and hybrid architectures as llama.cpp 0c1e570 reads them
 * (src/models/<arch>.cpp's is_recr_impl, create_memory's filter_attn,
 * llama_hparams::n_embd_r / n_embd_s): each state row in values, kept in F32. */
START_TEST(recurrent_layouts_from_metadata)
{
    vs_gguf_arch a;
    vs_kv_layout l;
    vs_error e;
    uint64_t kv[32], ff[6] = {0, 21504, 0, 0, 21504, 0}, kvn[6] = {0, 0, 8, 0, 0, 0};
    uint64_t kvl[4] = {0, 8, 0, 8}, i;

    /* Qwen3-Next-80B-A3B: 48 layers, full attention every 4th; gated delta nets of 16
     * key heads x 128 and 32 value heads x 128 (inner 4096), kernel 4:
     * conv 3 x (4096 + 2 x 16 x 128) = 24,576, state 128 x 4096 = 524,288 */
    memset(&a, 0, sizeof a);
    strcpy(a.name, "qwen3next");
    a.block_count = 48;
    a.head_count = 16;
    a.head_count_kv = 2;
    a.key_length = a.value_length = 256;
    a.full_attention_interval = 4;
    a.ssm_conv_kernel = 4;
    a.ssm_inner_size = 4096;
    a.ssm_state_size = 128;
    a.ssm_group_count = 16;
    ck_assert_int_eq(vs_gguf_arch_kv_layout(&l, &a, &e), 0);
    ck_assert_uint_eq(l.n, 2);
    ck_assert_int_eq(l.g[0].kind, VS_KV_STATE);
    ck_assert_uint_eq(l.g[0].layers, 36);
    ck_assert_uint_eq(l.g[0].state_conv, 24576);
    ck_assert_uint_eq(l.g[0].state_ssm, 524288);
    ck_assert_uint_eq(l.g[0].state_bytes, 4 * (24576 + 524288));
    ck_assert_int_eq(l.g[1].kind, VS_KV_FULL);
    ck_assert_uint_eq(l.g[1].layers, 12);
    ck_assert_uint_eq(l.g[1].kv_heads, 2);
    ck_assert_uint_eq(l.g[1].head_dim, 256);
    /* no interval key: llama.cpp's 4 */
    a.full_attention_interval = 0;
    ck_assert_int_eq(vs_gguf_arch_kv_layout(&l, &a, &e), 0);
    ck_assert_uint_eq(l.g[0].layers, 36);
    /* the same rule under Qwen3.5's names */
    strcpy(a.name, "qwen35moe");
    ck_assert_int_eq(vs_gguf_arch_kv_layout(&l, &a, &e), 0);
    ck_assert_uint_eq(l.g[1].layers, 12);

    /* Jamba-v0.1: 32 layers, attention (8 KV heads of 128) where il % 8 == 4, Mamba-1
     * elsewhere (inner 8192, d_state 16, kernel 4, no groups): conv 3 x 8192, state
     * 16 x 8192 */
    memset(&a, 0, sizeof a);
    strcpy(a.name, "jamba");
    a.block_count = 32;
    a.head_count = 32;
    a.embedding_length = 4096;
    for (i = 0; i < 32; i++)
        kv[i] = i % 8 == 4 ? 8 : 0;
    a.head_count_kv_layers = kv;
    a.n_head_count_kv_layers = 32;
    a.head_count_kv = 8;
    a.ssm_conv_kernel = 4;
    a.ssm_inner_size = 8192;
    a.ssm_state_size = 16;
    ck_assert_int_eq(vs_gguf_arch_kv_layout(&l, &a, &e), 0);
    ck_assert_uint_eq(l.n, 2);
    ck_assert_int_eq(l.g[0].kind, VS_KV_STATE);
    ck_assert_uint_eq(l.g[0].layers, 28);
    ck_assert_uint_eq(l.g[0].state_bytes, 4 * (3 * 8192 + 16 * 8192));
    ck_assert_int_eq(l.g[1].kind, VS_KV_FULL);
    ck_assert_uint_eq(l.g[1].layers, 4);
    ck_assert_uint_eq(l.g[1].head_dim, 128);

    /* Nemotron-H, six layers M - * M - M: recurrent where neither KV heads nor an MLP,
     * attention where KV heads and no MLP, the MLP layers neither (Mamba-2: inner 4096,
     * 8 groups of d_state 128, kernel 4: conv 3 x (4096 + 2 x 8 x 128), state 128 x 4096) */
    memset(&a, 0, sizeof a);
    strcpy(a.name, "nemotron_h");
    a.block_count = 6;
    a.head_count = 32;
    a.key_length = a.value_length = 128;
    a.head_count_kv_layers = kvn;
    a.n_head_count_kv_layers = 6;
    a.head_count_kv = 8;
    a.feed_forward_layers = ff;
    a.n_feed_forward_layers = 6;
    a.feed_forward_length = 21504;
    a.ssm_conv_kernel = 4;
    a.ssm_inner_size = 4096;
    a.ssm_state_size = 128;
    a.ssm_group_count = 8;
    ck_assert_int_eq(vs_gguf_arch_kv_layout(&l, &a, &e), 0);
    ck_assert_uint_eq(l.n, 3);
    ck_assert_int_eq(l.g[0].kind, VS_KV_STATE);
    ck_assert_uint_eq(l.g[0].layers, 3);
    ck_assert_uint_eq(l.g[0].state_conv, 3 * (4096 + 2 * 8 * 128));
    ck_assert_uint_eq(l.g[0].state_ssm, 128 * 4096);
    ck_assert_int_eq(l.g[1].kind, VS_KV_NONE);
    ck_assert_uint_eq(l.g[1].layers, 2);
    ck_assert_int_eq(l.g[2].kind, VS_KV_FULL);
    ck_assert_uint_eq(l.g[2].layers, 1);
    /* a per-layer array that does not match is refused */
    a.n_feed_forward_layers = 5;
    ck_assert_int_eq(vs_gguf_arch_kv_layout(&l, &a, &e), VS_EFORMAT);
    ck_assert_msg(strstr(e.message, "feed_forward_length holds 5 values"), "%s", e.message);
    /* recurrent layers with no state size said */
    a.n_feed_forward_layers = 6;
    a.ssm_conv_kernel = a.ssm_inner_size = a.ssm_state_size = 0;
    ck_assert_int_eq(vs_gguf_arch_kv_layout(&l, &a, &e), VS_EVALUE);
    ck_assert_msg(strstr(e.message, "ssm.conv_kernel"), "%s", e.message);

    /* Falcon-H1: every layer both attention and Mamba-2 */
    memset(&a, 0, sizeof a);
    strcpy(a.name, "falcon-h1");
    a.block_count = 24;
    a.head_count = 8;
    a.head_count_kv = 2;
    a.key_length = a.value_length = 64;
    a.ssm_conv_kernel = 4;
    a.ssm_inner_size = 768;
    a.ssm_state_size = 64;
    a.ssm_group_count = 1;
    ck_assert_int_eq(vs_gguf_arch_kv_layout(&l, &a, &e), 0);
    ck_assert_uint_eq(l.n, 2);
    ck_assert_uint_eq(l.g[0].layers, 24);
    ck_assert_uint_eq(l.g[0].state_bytes, 4 * (3 * (768 + 2 * 64) + 64 * 768));
    ck_assert_int_eq(l.g[1].kind, VS_KV_FULL);
    ck_assert_uint_eq(l.g[1].layers, 24);

    /* Mamba-2 alone: states, no attention (no head size needed) */
    strcpy(a.name, "mamba2");
    a.head_count = a.head_count_kv = a.key_length = a.value_length = 0;
    ck_assert_int_eq(vs_gguf_arch_kv_layout(&l, &a, &e), 0);
    ck_assert_uint_eq(l.n, 1);
    ck_assert_int_eq(l.g[0].kind, VS_KV_STATE);

    /* LFM2: short convolutions of l_cache 3 over 1024 channels (1024 x 2 values, no SSM
     * state) where head_count_kv is 0; with a window the attention layers slide */
    memset(&a, 0, sizeof a);
    strcpy(a.name, "lfm2");
    a.block_count = 4;
    a.embedding_length = 1024;
    a.head_count = 16;
    a.head_count_kv_layers = kvl;
    a.n_head_count_kv_layers = 4;
    a.head_count_kv = 8;
    a.shortconv_l_cache = 3;
    ck_assert_int_eq(vs_gguf_arch_kv_layout(&l, &a, &e), 0);
    ck_assert_uint_eq(l.n, 2);
    ck_assert_uint_eq(l.g[0].state_conv, 2048);
    ck_assert_uint_eq(l.g[0].state_ssm, 0);
    ck_assert_uint_eq(l.g[0].layers, 2);
    ck_assert_int_eq(l.g[1].kind, VS_KV_FULL);
    ck_assert_uint_eq(l.g[1].head_dim, 64);
    a.sliding_window = 512;
    ck_assert_int_eq(vs_gguf_arch_kv_layout(&l, &a, &e), 0);
    ck_assert_int_eq(l.g[1].kind, VS_KV_SLIDING);
    ck_assert_uint_eq(l.g[1].layers, 2);

    /* Llama 4 without a window key: chunks of 8,192 on three layers of four; a
     * sliding_window of 0 turns them off */
    memset(&a, 0, sizeof a);
    strcpy(a.name, "llama4");
    a.block_count = 48;
    a.head_count = 40;
    a.head_count_kv = 8;
    a.key_length = a.value_length = 128;
    ck_assert_int_eq(vs_gguf_arch_kv_layout(&l, &a, &e), 0);
    ck_assert_uint_eq(l.n, 2);
    ck_assert_int_eq(l.g[0].kind, VS_KV_CHUNKED);
    ck_assert_uint_eq(l.g[0].layers, 36);
    ck_assert_uint_eq(l.g[0].window, 8192);
    ck_assert_uint_eq(l.g[1].layers, 12);
    a.has_sliding_window = 1;
    ck_assert_int_eq(vs_gguf_arch_kv_layout(&l, &a, &e), 0);
    ck_assert_uint_eq(l.n, 1);
    ck_assert_int_eq(l.g[0].kind, VS_KV_FULL);

    /* EXAONE 4.0: the 64-layer model slides 4,096 tokens on three layers of four; the
     * 30-layer one keeps every layer full */
    memset(&a, 0, sizeof a);
    strcpy(a.name, "exaone4");
    a.block_count = 64;
    a.head_count = 40;
    a.head_count_kv = 8;
    a.key_length = a.value_length = 128;
    ck_assert_int_eq(vs_gguf_arch_kv_layout(&l, &a, &e), 0);
    ck_assert_uint_eq(l.n, 2);
    ck_assert_int_eq(l.g[0].kind, VS_KV_SLIDING);
    ck_assert_uint_eq(l.g[0].layers, 48);
    ck_assert_uint_eq(l.g[0].window, 4096);
    a.block_count = 30;
    a.sliding_window = 4096;
    ck_assert_int_eq(vs_gguf_arch_kv_layout(&l, &a, &e), 0);
    ck_assert_uint_eq(l.n, 1);
    ck_assert_int_eq(l.g[0].kind, VS_KV_FULL);
}
END_TEST

/* ---- GGUF files -> card -> estimate kv, no config ---- */

START_TEST(llama_file_estimate_kv)
{
    wb w;
    char cell[1024];
    json_t *arch;
    begin(&w, 6, "llama");
    kv_u32(&w, "llama.block_count", 32);
    kv_u32(&w, "llama.context_length", 8192);
    kv_u32(&w, "llama.embedding_length", 4096);
    kv_u32(&w, "llama.feed_forward_length", 14336);
    kv_u32(&w, "llama.attention.head_count", 32);
    kv_u32(&w, "llama.attention.head_count_kv", 8);
    finish(&w, at("llama.gguf"), 4096, 128256);
    snprintf(cell, sizeof cell, "model m params=8B\nweights from=%s", at("llama.gguf"));
    run_ok(cell);
    arch = card_arch();
    ck_assert_str_eq(json_string_value(json_object_get(arch, "family")), "llama");
    ck_assert_str_eq(json_string_value(json_object_get(arch, "rule")), "GGUF metadata");
    ck_assert_int_eq(geti(arch, "layers"), 32);
    ck_assert_int_eq(geti(arch, "kv_heads"), 8);
    ck_assert_int_eq(geti(arch, "head_dim"), 128);
    ck_assert_int_eq(geti(arch, "vocab"), 128256); /* token_embd's rows */
    ck_assert_int_eq(geti(arch, "context_length"), 8192);
    ck_assert(json_is_true(json_object_get(arch, "tied_embeddings"))); /* no output.weight */
    run_ok("length 8192\nconcurrency 1\nestimate kv");
    /* by hand: K and V x 32 layers x 8 heads x 128 x 2 B x 8,192 tokens */
    ck_assert_int_eq(geti(lastp(), "bytes"), 2LL * 32 * 8 * 128 * 2 * 8192);

    /* the card's GGUF arch survives the record's canonical text */
    {
        json_t *sheet = vs_sheet_new("t"), *back = NULL, *p = NULL, *ba;
        char *text;
        vs_error e;
        vs_kv_layout l;
        ck_assert_int_eq(vs_model_apply_weights_files(sheet, at("llama.gguf"), 0, &p, &e), 0);
        ck_assert_str_eq(json_string_value(json_object_get(p, "arch_from")), "gguf");
        text = vs_sheet_dump(sheet);
        ck_assert_ptr_nonnull(text);
        ck_assert_msg(vs_sheet_load(&back, text, strlen(text), &e) == 0, "%s", e.message);
        ba = json_object_get(vs_sheet_card(back), "arch");
        ck_assert_int_eq(geti(ba, "context_length"), 8192);
        ck_assert_int_eq(vs_kv_layout_from_json(&l, json_object_get(ba, "kv_layout"), &e), 0);
        ck_assert_uint_eq(l.n, 1);
        ck_assert_uint_eq(l.g[0].layers, 32);
        free(text);
        json_decref(p);
        json_decref(back);
        json_decref(sheet);
    }

    /* metadata without a head size: the weights are read, the shapes it
     * gives fill the card, kv_layout stays null and the payload says why */
    begin(&w, 2, "llama");
    kv_u32(&w, "llama.block_count", 32);
    kv_u32(&w, "llama.attention.head_count_kv", 8);
    finish(&w, at("thin.gguf"), 4096, 1000);
    snprintf(cell, sizeof cell, "model t params=8B\nweights from=%s", at("thin.gguf"));
    run_ok(cell);
    ck_assert_msg(strstr(json_string_value(json_object_get(of_kind("weights"), "kv_layout_note")),
                         "key_length"),
                  "%s", json_dumps(of_kind("weights"), 0));
    arch = card_arch();
    ck_assert_int_eq(geti(arch, "layers"), 32);
    ck_assert(json_is_null(json_object_get(arch, "head_dim")));

    /* a Hugging Face snapshot folder holding only the GGUF file */
    mkdir(at("snap"), 0755);
    ck_assert_int_eq(rename(at("llama.gguf"), at("snap/model-Q4_K_M.gguf")), 0);
    snprintf(cell, sizeof cell,
             "model m2 params=8B\nweights from=%s\nlength 4096\nconcurrency "
             "2\nestimate kv",
             at("snap"));
    run_ok(cell);
    ck_assert_int_eq(geti(lastp(), "bytes"), 2LL * 32 * 8 * 128 * 2 * 4096 * 2);
}
END_TEST

/* A Hugging Face cache snapshot of a GGUF repository (no config.json):
 * `model ORG/NAME` then `weights` without from= fills the shapes from the
 * header, and `estimate kv` works. */
START_TEST(hf_cache_gguf_only)
{
    wb w;
    char cmd[1024];
    const char *commit = "0123456789abcdef0123456789abcdef01234567";
    snprintf(cmd, sizeof cmd,
             "mkdir -p %s/hub/models--acme--small-GGUF/refs "
             "%s/hub/models--acme--small-GGUF/snapshots/%s && printf %s > "
             "%s/hub/models--acme--small-GGUF/refs/main",
             tmpdir, tmpdir, commit, commit, tmpdir);
    ck_assert_int_eq(system(cmd), 0);
    begin(&w, 5, "qwen3");
    kv_u32(&w, "qwen3.block_count", 28);
    kv_u32(&w, "qwen3.embedding_length", 1024);
    kv_u32(&w, "qwen3.attention.head_count", 16);
    kv_u32(&w, "qwen3.attention.head_count_kv", 8);
    kv_u32(&w, "qwen3.attention.key_length", 128);
    snprintf(cmd, sizeof cmd, "%s/hub/models--acme--small-GGUF/snapshots/%s/small-Q8_0.gguf",
             tmpdir, commit);
    finish(&w, cmd, 1024, 151936);
    snprintf(cmd, sizeof cmd, "%s/hub", tmpdir);
    setenv("HF_HUB_CACHE", cmd, 1);
    run_ok("model acme/small-GGUF\nweights\nlength 2048\nconcurrency 1\nestimate kv");
    unsetenv("HF_HUB_CACHE");
    /* by hand: K and V x 28 layers x 8 heads x 128 x 2 B x 2,048 */
    ck_assert_int_eq(geti(lastp(), "bytes"), 2LL * 28 * 8 * 128 * 2 * 2048);
}
END_TEST

/* A Jamba header as convert_hf_to_gguf.py's JambaModel writes it (head_count_kv one
 * per layer, 0 on the Mamba layers; ssm.* keys) read into the card: 28 states of
 * 4 x (3 x 8192 + 16 x 8192) = 622,592 B (llama.cpp's F32 rows) and 4 attention layers;
 * at 1,024 tokens x 4 sequences, by hand: 28 x 622,592 x 4 = 69,730,304 B of states and
 * 2 x 4 x 8 x 128 x 2 B x 1,024 x 4 = 67,108,864 B of attention cells. A Qwen3-Next
 * header's recurrent_layers array names its delta-net layers. */
START_TEST(hybrid_files_estimate_kv)
{
    wb w;
    char cell[1024];
    uint32_t kv[32];
    unsigned char recr[8] = {1, 1, 1, 0, 1, 1, 1, 0};
    json_t *kl;
    size_t i;
    for (i = 0; i < 32; i++)
        kv[i] = i % 8 == 4 ? 8 : 0;
    begin(&w, 7, "jamba");
    kv_u32(&w, "jamba.block_count", 32);
    kv_u32(&w, "jamba.embedding_length", 4096);
    kv_u32(&w, "jamba.attention.head_count", 32);
    kv_arr_u32(&w, "jamba.attention.head_count_kv", kv, 32);
    kv_u32(&w, "jamba.ssm.conv_kernel", 4);
    kv_u32(&w, "jamba.ssm.inner_size", 8192);
    kv_u32(&w, "jamba.ssm.state_size", 16);
    finish(&w, at("jamba.gguf"), 4096, 65536);
    snprintf(cell, sizeof cell,
             "model j params=52B\nweights from=%s\nlength 1024\nconcurrency 4\nestimate kv",
             at("jamba.gguf"));
    run_ok(cell);
    ck_assert_int_eq(geti(lastp(), "bytes"), 69730304LL + 67108864LL);
    kl = json_object_get(card_arch(), "kv_layout");
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(kl, 0), "kind")), "state");
    ck_assert_int_eq(geti(json_array_get(kl, 0), "state_conv"), 3 * 8192);
    ck_assert_int_eq(geti(json_array_get(kl, 0), "state_ssm"), 16 * 8192);

    begin(&w, 10, "qwen3next");
    kv_u32(&w, "qwen3next.block_count", 8);
    kv_u32(&w, "qwen3next.embedding_length", 2048);
    kv_u32(&w, "qwen3next.attention.head_count", 16);
    kv_u32(&w, "qwen3next.attention.head_count_kv", 2);
    kv_u32(&w, "qwen3next.attention.key_length", 256);
    kv_arr_bool(&w, "qwen3next.attention.recurrent_layers", recr, 8);
    kv_u32(&w, "qwen3next.ssm.conv_kernel", 4);
    kv_u32(&w, "qwen3next.ssm.inner_size", 4096);
    kv_u32(&w, "qwen3next.ssm.state_size", 128);
    kv_u32(&w, "qwen3next.ssm.group_count", 16);
    finish(&w, at("next.gguf"), 2048, 151936);
    snprintf(cell, sizeof cell,
             "model n params=1B\nweights from=%s\nlength 1024\nconcurrency 1\nestimate kv",
             at("next.gguf"));
    run_ok(cell);
    /* 6 states of 4 x (3 x (4096 + 2 x 16 x 128) + 128 x 4096) and 2 attention layers of
     * 2 heads x 256, K and V in 2 B, 1,024 tokens */
    ck_assert_int_eq(geti(lastp(), "bytes"),
                     6LL * 4 * (3 * 8192 + 128 * 4096) + 2LL * 2 * 2 * 256 * 2 * 1024);

    /* Nemotron-H, M - * M - M, its per-layer head_count_kv and feed_forward_length
     * arrays as convert_hf_to_gguf.py writes them: 3 Mamba-2 states of
     * 4 x (3 x (4096 + 2 x 8 x 128) + 128 x 4096) and one attention layer of 8 heads x 128,
     * at 1,024 tokens x 2 sequences */
    {
        uint32_t kvn[6] = {0, 0, 8, 0, 0, 0}, ffn[6] = {0, 21504, 0, 0, 21504, 0};
        begin(&w, 10, "nemotron_h");
        kv_u32(&w, "nemotron_h.block_count", 6);
        kv_u32(&w, "nemotron_h.embedding_length", 4096);
        kv_u32(&w, "nemotron_h.attention.head_count", 32);
        kv_arr_u32(&w, "nemotron_h.attention.head_count_kv", kvn, 6);
        kv_arr_u32(&w, "nemotron_h.feed_forward_length", ffn, 6);
        kv_u32(&w, "nemotron_h.attention.key_length", 128);
        kv_u32(&w, "nemotron_h.ssm.conv_kernel", 4);
        kv_u32(&w, "nemotron_h.ssm.inner_size", 4096);
        kv_u32(&w, "nemotron_h.ssm.state_size", 128);
        kv_u32(&w, "nemotron_h.ssm.group_count", 8);
        finish(&w, at("nh.gguf"), 4096, 131072);
        snprintf(cell, sizeof cell,
                 "model h params=1B\nweights from=%s\nlength 1024\nconcurrency 2\nestimate kv",
                 at("nh.gguf"));
        run_ok(cell);
        ck_assert_int_eq(geti(lastp(), "bytes"),
                         3LL * 2 * 4 * (3 * (4096 + 2 * 8 * 128) + 128 * 4096) +
                             2LL * 8 * 128 * 2 * 1024 * 2);
    }
}
END_TEST

/* Gemma-3-27B's metadata as convert_hf_to_gguf.py writes it (no pattern
 * key: llama.cpp's gemma3 loader fixes one full layer in six): the same
 * bytes as the config.json route of test_kv_estimate, by hand. */
START_TEST(gemma3_file_estimate_kv)
{
    wb w;
    char cell[1024];
    long long local = 2LL * 52 * 16 * 128 * 2 * 1024, global = 2LL * 10 * 16 * 128 * 2 * 131072;
    begin(&w, 8, "gemma3");
    kv_u32(&w, "gemma3.block_count", 62);
    kv_u32(&w, "gemma3.context_length", 131072);
    kv_u32(&w, "gemma3.embedding_length", 5376);
    kv_u32(&w, "gemma3.attention.head_count", 32);
    kv_u32(&w, "gemma3.attention.head_count_kv", 16);
    kv_u32(&w, "gemma3.attention.key_length", 128);
    kv_u32(&w, "gemma3.attention.value_length", 128);
    kv_u32(&w, "gemma3.attention.sliding_window", 1024);
    finish(&w, at("gemma.gguf"), 5376, 262208);
    snprintf(cell, sizeof cell,
             "model g params=27B\nweights from=%s\nlength 131072\nconcurrency 1\nestimate kv "
             "dtype=bf16",
             at("gemma.gguf"));
    run_ok(cell);
    ck_assert_int_eq(geti(lastp(), "bytes"), local + global);
    ck_assert_int_eq(local + global, 11173625856LL);

    /* the same with a per-layer bool pattern: layers 5, 11, ... not sliding */
    {
        unsigned char pat[62];
        int i;
        for (i = 0; i < 62; i++)
            pat[i] = i % 6 != 5;
        begin(&w, 9, "gemma3");
        kv_u32(&w, "gemma3.block_count", 62);
        kv_u32(&w, "gemma3.context_length", 131072);
        kv_u32(&w, "gemma3.embedding_length", 5376);
        kv_u32(&w, "gemma3.attention.head_count", 32);
        kv_u32(&w, "gemma3.attention.head_count_kv", 16);
        kv_u32(&w, "gemma3.attention.key_length", 128);
        kv_u32(&w, "gemma3.attention.value_length", 128);
        kv_u32(&w, "gemma3.attention.sliding_window", 1024);
        kv_arr_bool(&w, "gemma3.attention.sliding_window_pattern", pat, 62);
        finish(&w, at("gemma-b.gguf"), 5376, 262208);
    }
    snprintf(cell, sizeof cell,
             "model g params=27B\nweights from=%s\nlength 131072\nconcurrency 1\nestimate kv "
             "dtype=bf16",
             at("gemma-b.gguf"));
    run_ok(cell);
    ck_assert_int_eq(geti(lastp(), "bytes"), local + global);
}
END_TEST

/* DeepSeek-V3's MLA keys: 61 layers x (512 + 64) latent values. Also a
 * per-layer head_count_kv with 0 (a layer keeping no cache). */
START_TEST(mla_and_per_layer_files)
{
    wb w;
    char cell[1024];
    static const uint32_t kvh[4] = {8, 0, 8, 4};
    begin(&w, 7, "deepseek2");
    kv_u32(&w, "deepseek2.block_count", 61);
    kv_u32(&w, "deepseek2.embedding_length", 7168);
    kv_u32(&w, "deepseek2.attention.head_count", 128);
    kv_u32(&w, "deepseek2.attention.head_count_kv", 128);
    kv_u32(&w, "deepseek2.attention.kv_lora_rank", 512);
    kv_u32(&w, "deepseek2.rope.dimension_count", 64);
    kv_u32(&w, "deepseek2.expert_count", 256);
    finish(&w, at("ds.gguf"), 7168, 129280);
    snprintf(cell, sizeof cell,
             "model d params=671B\nweights from=%s\nlength 4096\nconcurrency 1\nestimate kv "
             "dtype=bf16",
             at("ds.gguf"));
    run_ok(cell);
    ck_assert_int_eq(geti(lastp(), "bytes"), 61LL * 576 * 2 * 4096);
    ck_assert_int_eq(geti(card_arch(), "experts"), 256);

    begin(&w, 4, "hybrid");
    kv_u32(&w, "hybrid.block_count", 4);
    kv_u32(&w, "hybrid.embedding_length", 1024);
    kv_u32(&w, "hybrid.attention.head_count", 8);
    kv_arr_u32(&w, "hybrid.attention.head_count_kv", kvh, 4);
    finish(&w, at("hy.gguf"), 1024, 1000);
    snprintf(cell, sizeof cell,
             "model h params=1B\nweights from=%s\nlength 1000\nconcurrency 1\nestimate kv",
             at("hy.gguf"));
    run_ok(cell);
    /* by hand: head size 1024 / 8 = 128; layers of 8, 8, 4 heads; one with none */
    ck_assert_int_eq(geti(lastp(), "bytes"), 2LL * (8 + 8 + 4) * 128 * 2 * 1000);

    /* a config.json keeps the card's shapes: the GGUF does not replace them */
    snprintf(cell, sizeof cell, "model q config=%s/qwen3-8b.json\nweights from=%s",
             VS_MODEL_CONFIGS, at("hy.gguf"));
    run_ok(cell);
    ck_assert_int_eq(geti(card_arch(), "layers"), 36);
}
END_TEST

/* ---- file types over the family tensor lists ---- */

static uint64_t q4k(uint64_t e)
{
    return e / 256 * 144;
}
static uint64_t q6k(uint64_t e)
{
    return e / 256 * 210;
}
static uint64_t q5k(uint64_t e)
{
    return e / 256 * 176;
}
static uint64_t q80(uint64_t e)
{
    return e / 32 * 34;
}

/* llama.cpp's use_more_bits(i, n), written out */
static int more_bits(int i, int n)
{
    return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2;
}

static int load_arch(vs_arch *a, const char *fixture)
{
    char path[512];
    json_t *root;
    int rc;
    snprintf(path, sizeof path, "%s/%s", VS_MODEL_CONFIGS, fixture);
    root = json_load_file(path, 0, NULL);
    ck_assert_ptr_nonnull(root);
    rc = vs_arch_from_json(a, root, &err);
    json_decref(root);
    return rc;
}

typedef struct predicted {
    vs_gguf_quant_tensor *t;
    size_t n;
    const vs_gguf_type **types;
    uint64_t *bytes, total;
} predicted;

static void predict(predicted *p, const char *fixture, int ftype)
{
    static vs_arch a;
    vs_gguf_quant_model m;
    memset(&a, 0, sizeof a);
    ck_assert_msg(load_arch(&a, fixture) == 0, "%s", err.message);
    ck_assert_msg(vs_gguf_arch_from_family(&a, &p->t, &p->n, &err) == 0, "%s", err.message);
    vs_gguf_arch_llq_model(&m, &a);
    p->types = calloc(p->n, sizeof *p->types);
    p->bytes = calloc(p->n, sizeof *p->bytes);
    ck_assert_int_eq(
        vs_gguf_quant_predict(p->t, p->n, ftype, &m, p->types, p->bytes, &p->total, &err), 0);
}

static void predicted_free(predicted *p)
{
    vs_gguf_quant_list_free(p->t, p->n);
    free(p->types);
    free(p->bytes);
}

static const char *type_of(const predicted *p, const char *name)
{
    size_t i;
    for (i = 0; i < p->n; i++)
        if (!strcmp(p->t[i].name, name))
            return p->types[i]->name;
    ck_abort_msg("no tensor %s", name);
    return NULL;
}

/* Qwen3-8B at Q4_K_M, every tensor by hand: 36 layers; attn_v and ffn_down
 * at Q6_K where use_more_bits, Q4_K elsewhere; output Q6_K; norms F32. */
START_TEST(qwen3_8b_q4_k_m_by_hand)
{
    predicted p;
    const uint64_t H = 4096, Q = 32 * 128, KV = 8 * 128, FF = 12288, V = 151936;
    uint64_t want = 0;
    int l;
    char nm[64];
    predict(&p, "qwen3-8b.json", 15);
    ck_assert_str_eq(type_of(&p, "token_embd.weight"), "Q4_K");
    ck_assert_str_eq(type_of(&p, "output.weight"), "Q6_K");
    ck_assert_str_eq(type_of(&p, "blk.0.attn_q_norm.weight"), "F32");
    want += q4k(H * V) + q6k(H * V) + 4 * H;
    for (l = 0; l < 36; l++) {
        int mb = more_bits(l, 36);
        snprintf(nm, sizeof nm, "blk.%d.attn_v.weight", l);
        ck_assert_str_eq(type_of(&p, nm), mb ? "Q6_K" : "Q4_K");
        snprintf(nm, sizeof nm, "blk.%d.ffn_down.weight", l);
        ck_assert_str_eq(type_of(&p, nm), mb ? "Q6_K" : "Q4_K");
        snprintf(nm, sizeof nm, "blk.%d.attn_k.weight", l);
        ck_assert_str_eq(type_of(&p, nm), "Q4_K");
        want += q4k(H * Q) + q4k(H * KV) + (mb ? q6k(H * KV) : q4k(H * KV)) + q4k(Q * H);
        want += 2 * q4k(H * FF) + (mb ? q6k(FF * H) : q4k(FF * H));
        want += 4 * (2 * H + 2 * 128); /* attn_norm, ffn_norm, q_norm, k_norm */
    }
    ck_assert_uint_eq(p.total, want);
    predicted_free(&p);
}
END_TEST

/* Gemma-3-27B (multimodal checkpoint: the language model only; the vision
 * tower goes to the mmproj file): tied embeddings, so token_embd is the
 * output and goes to Q6_K; attn_v by use_more_bits over 62 layers. */
START_TEST(gemma3_q4_k_m_rules)
{
    predicted p;
    size_t i;
    predict(&p, "gemma-3-27b-it.json", 15);
    ck_assert_str_eq(type_of(&p, "token_embd.weight"), "Q6_K");
    for (i = 0; i < p.n; i++) {
        ck_assert_msg(strcmp(p.t[i].name, "output.weight"), "tied: no output tensor");
        ck_assert_msg(!strstr(p.t[i].name, "vision"), "%s", p.t[i].name);
    }
    /* 62 / 8 = 7: layers 0-6 and 54-61, and 9, 12, ... 51 */
    ck_assert_str_eq(type_of(&p, "blk.6.attn_v.weight"), "Q6_K");
    ck_assert_str_eq(type_of(&p, "blk.7.attn_v.weight"), "Q4_K");
    ck_assert_str_eq(type_of(&p, "blk.9.attn_v.weight"), "Q6_K");
    ck_assert_str_eq(type_of(&p, "blk.53.ffn_down.weight"), "Q4_K");
    ck_assert_str_eq(type_of(&p, "blk.54.ffn_down.weight"), "Q6_K");
    ck_assert_str_eq(type_of(&p, "blk.10.post_ffw_norm.weight"), "F32");
    predicted_free(&p);
}
END_TEST

/* Mixtral-8x7B at Q4_K_M, per tensor (llama-quant.cpp, n_expert == 8):
 * attn_v and attn_k Q8_0, attn_output Q5_K, the merged ffn_down_exps by
 * use_more_bits of its layer (from the name), ffn_gate/up_exps Q4_K, the
 * router kept in F32 as convert_hf_to_gguf.py writes it (never quantised). Published: 26.49 GiB for
 * the Q4_K_M file (localmodel.run/model/mixtral-8x7b, sizes of the
 * MaziyarPanahi/Mixtral-8x7B-Instruct-v0.1-GGUF files; its Q8_0 at 46.22
 * shows the unit is GiB: 46.7 B params x 8.5 / 8 = 46.2 GiB). */
START_TEST(mixtral_q4_k_m)
{
    predicted p;
    const uint64_t H = 4096, KV = 1024, FF = 14336, V = 32000, E = 8;
    uint64_t want = 0;
    double pub = 26.49 * 1073741824.0;
    int l;
    char nm[64];
    predict(&p, "mixtral-8x7b-v0.1.json", 15);
    want += q4k(H * V) + q6k(H * V) + 4 * H;
    for (l = 0; l < 32; l++) {
        int mb = more_bits(l, 32);
        snprintf(nm, sizeof nm, "blk.%d.ffn_down_exps.weight", l);
        ck_assert_str_eq(type_of(&p, nm), mb ? "Q6_K" : "Q4_K");
        snprintf(nm, sizeof nm, "blk.%d.attn_v.weight", l);
        ck_assert_str_eq(type_of(&p, nm), "Q8_0");
        snprintf(nm, sizeof nm, "blk.%d.attn_k.weight", l);
        ck_assert_str_eq(type_of(&p, nm), "Q8_0");
        snprintf(nm, sizeof nm, "blk.%d.attn_output.weight", l);
        ck_assert_str_eq(type_of(&p, nm), "Q5_K");
        snprintf(nm, sizeof nm, "blk.%d.ffn_gate_inp.weight", l);
        ck_assert_str_eq(type_of(&p, nm), "F32");
        want += q4k(H * H) + 2 * q80(H * KV) + q5k(H * H);
        want += 2 * q4k(H * FF * E) + (mb ? q6k(FF * H * E) : q4k(FF * H * E));
        want += H * E * 4 + 2 * 4 * H;
    }
    ck_assert_uint_eq(p.total, want);
    printf("Mixtral-8x7B Q4_K_M: %llu B = %.3f GiB (published 26.49 GiB)\n",
           (unsigned long long)p.total, p.total / 1073741824.0);
    ck_assert_msg(p.total > pub * 0.99 && p.total < pub * 1.01, "%llu B against %.0f B",
                  (unsigned long long)p.total, pub);
    predicted_free(&p);

    /* through the verb: the row follows the family list */
    {
        char cell[512];
        json_t *r;
        snprintf(cell, sizeof cell, "model mx config=%s/mixtral-8x7b-v0.1.json\nformats q4_k_m",
                 VS_MODEL_CONFIGS);
        run_ok(cell);
        r = json_array_get(json_object_get(lastp(), "rows"), 0);
        ck_assert_int_eq(geti(r, "weights_bytes"), (long long)want);
        ck_assert(strstr(json_string_value(json_object_get(r, "basis")), "tensor list"));
    }
}
END_TEST

/* Qwen3-4B (tied embeddings: token_embd at Q6_K) at Q4_K_M: 2.50 GB
 * published by huggingface.co/bartowski/Qwen_Qwen3-4B-GGUF (llama.cpp
 * b5200); the file also holds the tokenizer in its metadata, a few MB. The
 * config is Qwen/Qwen3-4B's. */
START_TEST(qwen3_4b_published)
{
    static const char cfg[] =
        "{\"architectures\": [\"Qwen3ForCausalLM\"], \"head_dim\": 128, \"hidden_size\": 2560, "
        "\"intermediate_size\": 9728, \"max_position_embeddings\": 40960, \"max_window_layers\": "
        "36, \"model_type\": \"qwen3\", \"num_attention_heads\": 32, \"num_hidden_layers\": 36, "
        "\"num_key_value_heads\": 8, \"rms_norm_eps\": 1e-06, \"rope_theta\": 1000000, "
        "\"sliding_window\": null, \"tie_word_embeddings\": true, \"use_sliding_window\": false, "
        "\"vocab_size\": 151936}";
    char cell[512];
    FILE *f = fopen(at("qwen3-4b.json"), "w");
    long long b;
    ck_assert_ptr_nonnull(f);
    fputs(cfg, f);
    fclose(f);
    snprintf(cell, sizeof cell, "model q config=%s\nformats q4_k_m", at("qwen3-4b.json"));
    run_ok(cell);
    b = geti(json_array_get(json_object_get(lastp(), "rows"), 0), "weights_bytes");
    printf("Qwen3-4B Q4_K_M: %lld B = %.3f GB (published 2.50 GB)\n", b, b / 1e9);
    ck_assert_msg(b > 2.50e9 * 0.99 && b < 2.50e9 * 1.01, "%lld B against 2.50 GB", b);
}
END_TEST

/* Llama-3.1-8B through the family list: the same bytes as test_gguf's
 * Q4_K_M file built tensor by tensor by hand (4,912,898,048 B: 4.58 GiB, as
 * llama.cpp's own table gives for Llama-3-8B), plus the 64 F32 rope_freqs
 * factors (256 B) convert_hf_to_gguf.py writes for Llama 3.1's llama3 rope
 * scaling, and a family with no GGUF
 * names here is refused, naming the tensor. */
START_TEST(llama_family_and_refusal)
{
    char cell[512];
    snprintf(cell, sizeof cell, "model l config=%s/llama-3.1-8b.json\nformats q4_k_m",
             VS_MODEL_CONFIGS);
    run_ok(cell);
    ck_assert_int_eq(geti(json_array_get(json_object_get(lastp(), "rows"), 0), "weights_bytes"),
                     4912898048LL + 64 * 4);
    snprintf(cell, sizeof cell, "model g config=%s/gpt2.json\nformats q4_k_m", VS_MODEL_CONFIGS);
    ck_assert_int_eq(run(cell), VS_EVALUE);
    ck_assert_msg(strstr(err.message, "not mapped to GGUF names"), "%s", err.message);
    snprintf(cell, sizeof cell, "model g config=%s/gpt2.json\nformats q4_k", VS_MODEL_CONFIGS);
    run_ok(cell);
}
END_TEST

/* A GGUF file with experts and no config.json: `formats q4_k_m` follows the
 * file's own tensors with the 8-expert rules, by hand. */
START_TEST(gguf_file_tensor_list)
{
    static char names[32][48];
    tdesc t[32];
    size_t n = 0;
    int l;
    wb w;
    char cell[512];
    long long want = 0, per;
    memset(&w, 0, sizeof w);
    put(&w, "GGUF", 4);
    p32(&w, 3);
    p64(&w, 3 + 2 * 11); /* tensors */
    p64(&w, 7);
    kv_str(&w, "general.architecture", "llama");
    kv_u32(&w, "llama.block_count", 2);
    kv_u32(&w, "llama.embedding_length", 256);
    kv_u32(&w, "llama.feed_forward_length", 512);
    kv_u32(&w, "llama.attention.head_count", 4);
    kv_u32(&w, "llama.attention.head_count_kv", 1);
    kv_u32(&w, "llama.expert_count", 8);
#define T(nm, nd, a, b, c, ty)                                                                     \
    do {                                                                                           \
        t[n].name = nm;                                                                            \
        t[n].ndims = nd;                                                                           \
        t[n].ne[0] = a;                                                                            \
        t[n].ne[1] = b;                                                                            \
        t[n].ne[2] = c;                                                                            \
        t[n].type = ty;                                                                            \
        n++;                                                                                       \
    } while (0)
    T("token_embd.weight", 2, 256, 1000, 1, 1);
    for (l = 0; l < 2; l++) {
        static const char *const parts[] = {"attn_norm",     "attn_q",        "attn_k",
                                            "attn_v",        "attn_output",   "ffn_norm",
                                            "ffn_gate_inp",  "ffn_gate_exps", "ffn_up_exps",
                                            "ffn_down_exps", "attn_q_norm"};
        int j;
        for (j = 0; j < 11; j++) {
            char *nm = names[l * 11 + j];
            snprintf(nm, sizeof names[0], "blk.%d.%s.weight", l, parts[j]);
            switch (j) {
            case 0:
            case 5:
            case 10:
                T(nm, 1, 256, 1, 1, 0);
                break;
            case 1:
            case 4:
                T(nm, 2, 256, 256, 1, 1);
                break;
            case 2:
            case 3:
                T(nm, 2, 256, 64, 1, 1);
                break;
            case 6:
                T(nm, 2, 256, 8, 1, 0);
                break;
            case 7:
            case 8:
                T(nm, 3, 256, 512, 8, 1);
                break;
            case 9:
                T(nm, 3, 512, 256, 8, 1);
                break;
            }
        }
    }
    T("output_norm.weight", 1, 256, 1, 1, 0);
    T("output.weight", 2, 256, 1000, 1, 1);
#undef T
    finish_table(&w, at("moe.gguf"), t, n);
    snprintf(cell, sizeof cell, "model m params=1B\nweights from=%s\nformats q4_k_m",
             at("moe.gguf"));
    run_ok(cell);
    /* by hand (Q4_K 144 B per 256, Q6_K 210 per 256, Q5_K 176 per 256,
     * Q8_0 34 per 32): token_embd Q4_K, output Q6_K; per layer attn_q Q4_K,
     * attn_k and attn_v Q8_0 and attn_output Q5_K (8 experts), the router and
     * norms F32, gate/up exps Q4_K; down exps Q4_K in layer 0 and Q6_K in
     * layer 1 (use_more_bits(1, 2): 1 >= 7 * 2 / 8) */
    want = 256000 / 256 * 144 + 256000 / 256 * 210 + 256 * 4;
    per = 65536 / 256 * 144 + 2 * (16384 / 32 * 34) + 65536 / 256 * 176 + 2048 * 4 + 3 * 256 * 4 +
          2 * (1048576 / 256 * 144);
    want += per + 1048576 / 256 * 144 + per + 1048576 / 256 * 210;
    ck_assert_int_eq(geti(json_array_get(json_object_get(lastp(), "rows"), 0), "weights_bytes"),
                     want);
    ck_assert(strstr(json_string_value(json_object_get(
                         json_array_get(json_object_get(lastp(), "rows"), 0), "basis")),
                     "GGUF file"));
}
END_TEST

/* Mixtral-8x22B-v0.1 at Q4_K_M: 85.58 GB published by
 * huggingface.co/bartowski/Mixtral-8x22B-v0.1-GGUF (llama.cpp b2636). The
 * config is mistral-community/Mixtral-8x22B-v0.1's. */
START_TEST(mixtral_8x22b_published)
{
    static const char cfg[] =
        "{\"architectures\": [\"MixtralForCausalLM\"], \"hidden_size\": 6144, "
        "\"intermediate_size\": 16384, \"max_position_embeddings\": 65536, \"model_type\": "
        "\"mixtral\", \"num_attention_heads\": 48, \"num_experts_per_tok\": 2, "
        "\"num_hidden_layers\": 56, \"num_key_value_heads\": 8, \"num_local_experts\": 8, "
        "\"rms_norm_eps\": 1e-05, \"rope_theta\": 1000000, \"sliding_window\": null, "
        "\"tie_word_embeddings\": false, \"vocab_size\": 32000}";
    char cell[512];
    FILE *f = fopen(at("mixtral-8x22b.json"), "w");
    long long b;
    ck_assert_ptr_nonnull(f);
    fputs(cfg, f);
    fclose(f);
    snprintf(cell, sizeof cell, "model mx config=%s\nformats q4_k_m", at("mixtral-8x22b.json"));
    run_ok(cell);
    b = geti(json_array_get(json_object_get(lastp(), "rows"), 0), "weights_bytes");
    printf("Mixtral-8x22B Q4_K_M: %lld B = %.3f GB (published 85.58 GB)\n", b, b / 1e9);
    ck_assert_msg(b > 85.58e9 * 0.99 && b < 85.58e9 * 1.01, "%lld B against 85.58 GB", b);
}
END_TEST

/* Qwen3-30B-A3B (128 experts) and DeepSeek-V3 (MLA, 256 experts, shared
 * experts, 3 dense layers): mapped, and the MoE rule keyed to 8 experts
 * does not apply. */
START_TEST(other_moe_families)
{
    predicted p;
    size_t i;
    int mtp = 0;
    predict(&p, "qwen3-30b-a3b.json", 15);
    ck_assert_str_eq(type_of(&p, "blk.0.ffn_gate_exps.weight"), "Q4_K");
    ck_assert_str_eq(type_of(&p, "blk.0.ffn_down_exps.weight"), "Q6_K"); /* layer 0 */
    ck_assert_str_eq(type_of(&p, "blk.8.attn_k.weight"), "Q4_K");
    predicted_free(&p);

    predict(&p, "deepseek-v3.json", 15);
    ck_assert_str_eq(type_of(&p, "blk.0.ffn_down.weight"), "Q6_K"); /* dense layer */
    ck_assert_str_eq(type_of(&p, "blk.3.ffn_up_exps.weight"), "Q4_K");
    /* ffn_down by the layer in the name: 3 < 61 / 8 = 7 more bits, 10 not, 9 yes */
    ck_assert_str_eq(type_of(&p, "blk.3.ffn_down_exps.weight"), "Q6_K");
    ck_assert_str_eq(type_of(&p, "blk.3.ffn_down_shexp.weight"), "Q6_K");
    ck_assert_str_eq(type_of(&p, "blk.10.ffn_down_exps.weight"), "Q4_K");
    ck_assert_str_eq(type_of(&p, "blk.10.ffn_down_shexp.weight"), "Q4_K");
    ck_assert_str_eq(type_of(&p, "blk.9.ffn_down_exps.weight"), "Q6_K");
    ck_assert_str_eq(type_of(&p, "blk.3.attn_kv_a_mqa.weight"), "Q4_K");
    /* k_b rows of 128 (qk_nope) are not whole Q4_K blocks: llama.cpp falls back to Q5_0 */
    ck_assert_str_eq(type_of(&p, "blk.3.attn_k_b.weight"), "Q5_0");
    ck_assert_str_eq(type_of(&p, "blk.3.attn_v_b.weight"), "Q4_K");
    for (i = 0; i < p.n; i++)
        if (!strncmp(p.t[i].name, "blk.61.", 7))
            mtp = 1;
    /* published: 404.43 GB for DeepSeek-V3-0324 Q4_K_M
     * (huggingface.co/bartowski/deepseek-ai_DeepSeek-V3-0324-GGUF, llama.cpp
     * b4944, when the file still held attn_kv_b unsplit: ~1 B params laid
     * out differently, well inside 1%) */
    printf("DeepSeek-V3 Q4_K_M: %llu B = %.2f GB (published 404.43 GB)\n",
           (unsigned long long)p.total, p.total / 1e9);
    ck_assert_msg(p.total > 404.43e9 * 0.99 && p.total < 404.43e9 * 1.01, "%llu",
                  (unsigned long long)p.total);
    ck_assert_msg(!mtp, "the multi-token-prediction layer is not converted");
    predicted_free(&p);
}
END_TEST

/* Every mapped family's fixture: the GGUF list holds exactly the language
 * model's elements (the family's own count of its text part), so no tensor
 * is lost or counted twice when the experts are merged or kv_b is split. */
START_TEST(mapping_keeps_every_element)
{
    static const char *const fixtures[] = {
        "llama-3.1-8b.json",      "mistral-7b-v0.1.json",   "qwen2.5-7b.json",
        "qwen3-8b.json",          "gemma-7b.json",          "gemma-2-9b.json",
        "gemma-3-1b-it.json",     "gemma-3-27b-it.json",    "olmo-2-1124-7b.json",
        "mixtral-8x7b-v0.1.json", "qwen1.5-moe-a2.7b.json", "qwen3-30b-a3b.json",
        "deepseek-v2-lite.json",  "deepseek-v3.json",       "phi-3-mini-4k-instruct.json"};
    size_t f;
    for (f = 0; f < sizeof fixtures / sizeof fixtures[0]; f++) {
        static vs_arch a;
        vs_gguf_quant_tensor *t = NULL;
        size_t n = 0, i;
        uint64_t el = 0;
        memset(&a, 0, sizeof a);
        ck_assert_msg(load_arch(&a, fixtures[f]) == 0, "%s: %s", fixtures[f], err.message);
        ck_assert_msg(vs_gguf_arch_from_family(&a, &t, &n, &err) == 0, "%s: %s", fixtures[f],
                      err.message);
        for (i = 0; i < n; i++) {
            uint64_t e = 1;
            unsigned d;
            for (d = 0; d < t[i].ndims; d++)
                e *= t[i].shape[d];
            el += e;
        }
        ck_assert_msg(el == a.part_params[VS_PART_TEXT], "%s: %llu elements, the text part %llu",
                      fixtures[f], (unsigned long long)el,
                      (unsigned long long)a.part_params[VS_PART_TEXT]);
        vs_gguf_quant_list_free(t, n);
    }
}
END_TEST

/* general.architecture that is not UTF-8 text: the file is refused for that,
 * with the byte and where it lies, not as "out of memory". */
START_TEST(architecture_not_utf8)
{
    wb w;
    char cell[700];
    begin(&w, 0,
          "lla\xff"
          "ma");
    finish(&w, at("bad-arch.gguf"), 64, 32);
    snprintf(cell, sizeof cell, "model m params=8B\nweights from=%s", at("bad-arch.gguf"));
    ck_assert_int_eq(run(cell), VS_EFORMAT);
    ck_assert_msg(strstr(err.message, "general.architecture is not UTF-8"), "%s", err.message);
    ck_assert_msg(strstr(err.message, "0xFF"), "%s", err.message);
    ck_assert_ptr_null(strstr(err.message, "memory"));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gguf_arch");
    TCase *tc = tcase_create("gguf_arch");
    tcase_add_checked_fixture(tc, arch_setup, arch_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, layout_from_metadata);
    tcase_add_test(tc, recurrent_layouts_from_metadata);
    tcase_add_test(tc, hybrid_files_estimate_kv);
    tcase_add_test(tc, llama_file_estimate_kv);
    tcase_add_test(tc, hf_cache_gguf_only);
    tcase_add_test(tc, gemma3_file_estimate_kv);
    tcase_add_test(tc, mla_and_per_layer_files);
    tcase_add_test(tc, qwen3_8b_q4_k_m_by_hand);
    tcase_add_test(tc, gemma3_q4_k_m_rules);
    tcase_add_test(tc, mixtral_q4_k_m);
    tcase_add_test(tc, mixtral_8x22b_published);
    tcase_add_test(tc, llama_family_and_refusal);
    tcase_add_test(tc, qwen3_4b_published);
    tcase_add_test(tc, gguf_file_tensor_list);
    tcase_add_test(tc, other_moe_families);
    tcase_add_test(tc, mapping_keeps_every_element);
    tcase_add_test(tc, architecture_not_utf8);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
