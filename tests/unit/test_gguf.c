/* GGUF headers: files written here (header and tensor table; the tensor data a
 * sparse hole made by ftruncate), totals against arithmetic done here by hand
 * (block sizes of ggml-common.h), every malformed input refused naming the
 * file, the llama.cpp type rules for Llama-3-8B against llama.cpp's own
 * published sizes, and `weights from=` on GGUF files and split sets. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/gguf.h"
#include "model/gguf_quant.h"
#include "model/model.h"
#include "model/wfile.h"
#include "sheet/sheet.h"

#include "check_run.h"
#include "gguf_writer.h"
#include "test_tmp.h"

/* ---- GGUF files built by hand (gguf_writer.h) ---- */

typedef struct tdesc {
    const char *name;
    unsigned ndims;
    uint64_t ne[4];
    uint32_t type;
} tdesc;

/* Bytes per tensor by hand: (block elements, bytes per block) of the types used. */
static uint64_t hand_bytes(uint32_t type, uint64_t elements)
{
    switch (type) {
    case 0:
        return elements * 4; /* F32 */
    case 1:
        return elements * 2; /* F16 */
    case 30:
        return elements * 2; /* BF16 */
    case 8:
        return elements / 32 * 34; /* Q8_0: fp16 scale + 32 int8 */
    case 2:
        return elements / 32 * 18; /* Q4_0: fp16 scale + 16 bytes */
    case 12:
        return elements / 256 * 144; /* Q4_K: 2 fp16 + 12 scales + 128 */
    case 14:
        return elements / 256 * 210; /* Q6_K: 128 + 64 + 16 + fp16 */
    case 13:
        return elements / 256 * 176; /* Q5_K */
    case 23:
        return elements / 256 * 136; /* IQ4_XS */
    case 39:
        return elements / 32 * 17; /* MXFP4: e8m0 + 16 */
    default:
        ck_abort_msg("no hand size for type %u", type);
        return 0;
    }
}

static uint64_t elems(const tdesc *t)
{
    uint64_t e = 1;
    unsigned d;
    for (d = 0; d < t->ndims; d++)
        e *= t->ne[d];
    return e;
}

/* The tensor table (offsets laid out back to back, padded to align), then
 * padding; *data_len the data section's length. */
static void tensor_table(wb *w, const tdesc *t, size_t n, uint32_t align, uint64_t *data_len)
{
    uint64_t off = 0;
    size_t i;
    unsigned d;
    for (i = 0; i < n; i++) {
        uint64_t b = hand_bytes(t[i].type, elems(&t[i]));
        pstr(w, t[i].name);
        p32(w, t[i].ndims);
        for (d = 0; d < t[i].ndims; d++)
            p64(w, t[i].ne[d]);
        p32(w, t[i].type);
        p64(w, off);
        off += (b + align - 1) / align * align;
    }
    while (w->len % align)
        put(w, "", 1);
    *data_len = off;
}

static char tmpdir[256];

static const char *at(const char *name)
{
    static char p[8][512];
    static int k;
    k = (k + 1) % 8;
    snprintf(p[k], sizeof p[k], "%s/%s", tmpdir, name);
    return p[k];
}

/* Writes the header and makes the file data_len bytes longer: a hole. */
static void write_sparse(const char *path, const wb *w, uint64_t data_len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, w->p, w->len), (ssize_t)w->len);
    ck_assert_int_eq(ftruncate(fd, (off_t)(w->len + data_len)), 0);
    close(fd);
}

static void setup(void)
{
    vs_test_tmp(tmpdir, sizeof tmpdir, "vs-gguf-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void teardown(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    ck_assert_int_eq(system(cmd), 0);
}

/* ---- Llama-3-8B at Q4_K_M, built per llama.cpp's rules by hand ---- */

enum { L = 32, HID = 4096, KVD = 1024, FF = 14336, VOCAB = 128256 };

/* llama.cpp's use_more_bits for 32 layers, written out: the first 4, the
 * last 4, and every third from 6. */
static int more_bits_32(int i)
{
    static const int set[] = {0, 1, 2, 3, 6, 9, 12, 15, 18, 21, 24, 27, 28, 29, 30, 31};
    size_t k;
    for (k = 0; k < sizeof set / sizeof set[0]; k++)
        if (set[k] == i)
            return 1;
    return 0;
}

static char names[L * 9 + 3][48];

static size_t llama_q4km(tdesc *t)
{
    size_t n = 0;
    int l;
#define T(nm, nd, a, b, ty)                                                                        \
    do {                                                                                           \
        t[n].name = nm;                                                                            \
        t[n].ndims = nd;                                                                           \
        t[n].ne[0] = a;                                                                            \
        t[n].ne[1] = b;                                                                            \
        t[n].type = ty;                                                                            \
        n++;                                                                                       \
    } while (0)
    T("token_embd.weight", 2, HID, VOCAB, 12);
    for (l = 0; l < L; l++) {
        static const char *const parts[] = {"attn_norm", "attn_q",      "attn_k",
                                            "attn_v",    "attn_output", "ffn_norm",
                                            "ffn_gate",  "ffn_up",      "ffn_down"};
        int j;
        for (j = 0; j < 9; j++) {
            char *nm = names[n];
            snprintf(nm, sizeof names[0], "blk.%d.%s.weight", l, parts[j]);
            switch (j) {
            case 0:
            case 5:
                T(nm, 1, HID, 1, 0);
                break;
            case 1:
                T(nm, 2, HID, HID, 12);
                break;
            case 2:
                T(nm, 2, HID, KVD, 12);
                break;
            case 3:
                T(nm, 2, HID, KVD, more_bits_32(l) ? 14 : 12);
                break;
            case 4:
                T(nm, 2, HID, HID, 12);
                break;
            case 6:
            case 7:
                T(nm, 2, HID, FF, 12);
                break;
            case 8:
                T(nm, 2, FF, HID, more_bits_32(l) ? 14 : 12);
                break;
            }
        }
    }
    T("output_norm.weight", 1, HID, 1, 0);
    T("output.weight", 2, HID, VOCAB, 14);
#undef T
    return n;
}

static void llama_header(wb *w, size_t ntensors, int nkv_extra)
{
    put(w, "GGUF", 4);
    p32(w, 3);
    p64(w, ntensors);
    p64(w, 9 + (uint64_t)nkv_extra);
    kv_str(w, "general.architecture", "llama");
    kv_str(w, "general.name", "Meta Llama 3 8B Instruct");
    kv_u32(w, "llama.block_count", L);
    kv_u32(w, "llama.context_length", 8192);
    kv_u32(w, "llama.embedding_length", HID);
    kv_u32(w, "llama.attention.head_count", 32);
    kv_u32(w, "llama.attention.head_count_kv", 8);
    kv_f32(w, "llama.rope.freq_base", 500000.0f);
    kv_u32(w, "general.file_type", 15);
}

START_TEST(llama_q4_k_m_file)
{
    static tdesc t[L * 9 + 3];
    size_t n = llama_q4km(t), i;
    wb w = {0};
    uint64_t data_len, size = 0, read = 0, q4 = 0, q6 = 0, f32 = 0;
    vs_gguf_file *f = NULL;
    vs_error err;
    struct stat st;
    llama_header(&w, n, 0);
    tensor_table(&w, t, n, 32, &data_len);
    write_sparse(at("llama.gguf"), &w, data_len);
    ck_assert_int_eq(vs_gguf_read_file(&f, at("llama.gguf"), &size, &read, &err), 0);
    ck_assert_uint_eq(f->count, n);
    ck_assert_uint_eq(f->version, 3);
    ck_assert_int_eq(f->file_type, 15);
    ck_assert_str_eq(vs_gguf_ftype_name((uint32_t)f->file_type), "MOSTLY_Q4_K_M");
    ck_assert_str_eq(f->arch.name, "llama");
    ck_assert_uint_eq(f->arch.block_count, 32);
    ck_assert_uint_eq(f->arch.head_count_kv, 8);
    ck_assert_uint_eq(f->arch.context_length, 8192);
    ck_assert_uint_eq(f->data_start, w.len);
    /* only the header was read: the data is a hole */
    ck_assert_uint_le(read, w.len + 65536);
    ck_assert_int_eq(stat(at("llama.gguf"), &st), 0);
    ck_assert_uint_lt((uint64_t)st.st_blocks * 512, 1 << 20);
    /* by hand: 16 layers keep attn_v and ffn_down at Q6_K */
    for (i = 0; i < n; i++)
        ck_assert_uint_eq(f->tensors[i].bytes, hand_bytes(t[i].type, elems(&t[i])));
    q6 = (uint64_t)HID * VOCAB / 256 * 210 +
         16 * ((uint64_t)HID * KVD + (uint64_t)FF * HID) / 256 * 210;
    q4 = (uint64_t)HID * VOCAB / 256 * 144 +
         32 * (2ull * HID * HID + (uint64_t)HID * KVD + 2ull * HID * FF) / 256 * 144 +
         16 * ((uint64_t)HID * KVD + (uint64_t)FF * HID) / 256 * 144;
    f32 = (2ull * L + 1) * HID * 4;
    ck_assert_uint_eq(f->data_bytes, q4 + q6 + f32);
    ck_assert_uint_eq(f->data_bytes, 4912898048ull);
    ck_assert_uint_eq(f->params, 8030261248ull); /* Llama-3-8B's parameter count */
    vs_gguf_file_free(f);
    free(w.p);
}
END_TEST

/* The predictor on the same tensor list gives the same types as the file
 * built by hand, and the sizes llama.cpp reports for Llama-3-8B files within
 * 0.5%: Q4_K_M 4.58 GiB and Q8_0 7.96 GiB (the sizes quoted for llama.cpp's own files), and
 * the "size" column of published llama-bench runs on Llama-3.1-8B Instruct
 * (Q5_K_M 5.33 GiB, Q6_K 6.14 GiB, Q3_K_M 3.74 GiB, Q2_K 2.96 GiB, Q8_0 7.95 GiB). */
START_TEST(llama_rules_predict)
{
    static tdesc t[L * 9 + 3];
    size_t n = llama_q4km(t), m = 0, i;
    vs_gguf_quant_tensor *list = NULL;
    const vs_gguf_type *types[L * 9 + 3];
    uint64_t total = 0;
    vs_gguf_quant_model md = {0};
    vs_error err;
    double gib;
    md.n_head = 32;
    md.n_head_kv = 8;
    ck_assert_int_eq(vs_gguf_quant_llama_list(&list, &m, L, HID, 32, 8, 128, FF, VOCAB, 0, &err),
                     0);
    ck_assert_uint_eq(m, n);
    ck_assert_int_eq(vs_gguf_quant_predict(list, m, 15, &md, types, NULL, &total, &err), 0);
    for (i = 0; i < n; i++) {
        ck_assert_str_eq(list[i].name, t[i].name);
        ck_assert_msg(types[i]->id == t[i].type, "%s: predicted %s, built %u", t[i].name,
                      types[i]->name, t[i].type);
    }
    ck_assert_uint_eq(total, 4912898048ull);
    gib = (double)total / (1 << 30);
    ck_assert_msg(gib > 4.58 * 0.995 && gib < 4.58 * 1.005, "q4_k_m %.3f GiB", gib);
    ck_assert_int_eq(vs_gguf_quant_predict(list, m, 7, &md, types, NULL, &total, &err), 0);
    /* Q8_0 everywhere but the F32 norms: 34 bytes per 32 */
    ck_assert_uint_eq(total,
                      (8030261248ull - (2ull * L + 1) * HID) / 32 * 34 + (2ull * L + 1) * HID * 4);
    gib = (double)total / (1 << 30);
    ck_assert_msg(gib > 7.96 * 0.995 && gib < 7.96 * 1.005, "q8_0 %.3f GiB", gib);
    /* Q4_0: the output at Q6_K, the rest Q4_0 */
    ck_assert_int_eq(vs_gguf_quant_predict(list, m, 2, &md, types, NULL, &total, &err), 0);
    ck_assert_str_eq(types[n - 1]->name, "Q6_K");
    ck_assert_str_eq(types[0]->name, "Q4_0");
    /* Q6_K file: all Q6_K */
    ck_assert_int_eq(vs_gguf_quant_predict(list, m, 18, &md, types, NULL, &total, &err), 0);
    ck_assert_str_eq(types[4]->name, "Q6_K");
    /* Q3_K_M: the first two attn_v at Q5_K, others Q4_K; attn_output Q4_K; ffn_down of
     * layers below 32/16 = 2 at Q5_K, the rest Q4_K (not Falcon) */
    ck_assert_int_eq(vs_gguf_quant_predict(list, m, 12, &md, types, NULL, &total, &err), 0);
    ck_assert_str_eq(types[1 + 3]->name, "Q5_K");         /* blk.0.attn_v */
    ck_assert_str_eq(types[1 + 2 * 9 + 3]->name, "Q4_K"); /* blk.2.attn_v */
    ck_assert_str_eq(types[1 + 4]->name, "Q4_K");         /* blk.0.attn_output */
    ck_assert_str_eq(types[1 + 8]->name, "Q5_K");         /* blk.0.ffn_down */
    ck_assert_str_eq(types[1 + 2 * 9 + 8]->name, "Q4_K"); /* blk.2.ffn_down */
    ck_assert_str_eq(types[1 + 2 * 9 + 1]->name, "Q3_K"); /* blk.2.attn_q */
    /* IQ4_XS with GQA 4: attn_v at Q5_K, ffn_down of the first 4 layers Q5_K */
    ck_assert_int_eq(vs_gguf_quant_predict(list, m, 30, &md, types, NULL, &total, &err), 0);
    ck_assert_str_eq(types[1 + 3]->name, "Q5_K");
    ck_assert_str_eq(types[1 + 3 * 9 + 8]->name, "Q5_K");
    ck_assert_str_eq(types[1 + 4 * 9 + 8]->name, "IQ4_XS");
    ck_assert_str_eq(types[n - 1]->name, "Q6_K");
    {
        static const struct {
            int ftype;
            double gib;
        } published[] = {{17, 5.33}, {18, 6.14}, {12, 3.74}, {10, 2.96}, {7, 7.95}};
        size_t k;
        for (k = 0; k < sizeof published / sizeof published[0]; k++) {
            ck_assert_int_eq(
                vs_gguf_quant_predict(list, m, published[k].ftype, &md, types, NULL, &total, &err),
                0);
            gib = (double)total / (1 << 30);
            ck_assert_msg(gib > published[k].gib * 0.995 && gib < published[k].gib * 1.005,
                          "file type %d: %.3f GiB, published %.2f", published[k].ftype, gib,
                          published[k].gib);
        }
    }
    vs_gguf_quant_list_free(list, m);

    /* tied embeddings: token_embd takes the output's Q6_K */
    ck_assert_int_eq(vs_gguf_quant_llama_list(&list, &m, 2, 256, 2, 2, 128, 512, 1000, 1, &err), 0);
    ck_assert_int_eq(vs_gguf_quant_predict(list, m, 15, &md, types, NULL, &total, &err), 0);
    ck_assert_str_eq(types[0]->name, "Q6_K");
    vs_gguf_quant_list_free(list, m);
    /* a row of 100 is not whole blocks of 256 (Q4_K) nor 32 (Q5_0): F16 */
    ck_assert_int_eq(vs_gguf_quant_llama_list(&list, &m, 1, 100, 1, 1, 100, 256, 64, 0, &err), 0);
    ck_assert_int_eq(vs_gguf_quant_predict(list, m, 15, &md, types, NULL, &total, &err), 0);
    ck_assert_str_eq(types[2]->name, "F16"); /* blk.0.attn_q */
    vs_gguf_quant_list_free(list, m);
    ck_assert_int_eq(vs_gguf_quant_predict(NULL, 0, 99, &md, types, NULL, &total, &err), VS_EVALUE);
}
END_TEST

START_TEST(type_table)
{
    /* bits per weight from ggml-common.h's comments */
    static const struct {
        const char *name;
        double bpw;
    } want[] = {{"Q4_K", 4.5},       {"Q5_K", 5.5},      {"Q6_K", 6.5625},  {"Q3_K", 3.4375},
                {"Q2_K", 2.625},     {"Q8_0", 8.5},      {"Q4_0", 4.5},     {"IQ4_XS", 4.25},
                {"IQ2_XXS", 2.0625}, {"IQ2_XS", 2.3125}, {"IQ2_S", 2.5625}, {"IQ3_XXS", 3.0625},
                {"IQ3_S", 3.4375},   {"IQ1_S", 1.5625},  {"IQ1_M", 1.75},   {"TQ1_0", 1.6875},
                {"TQ2_0", 2.0625},   {"MXFP4", 4.25},    {"NVFP4", 4.5},    {"Q1_0", 1.125},
                {"Q2_0", 2.25},      {"BF16", 16},       {"F32", 32}};
    size_t i, n;
    const vs_gguf_type *all = vs_gguf_types(&n);
    for (i = 0; i < sizeof want / sizeof want[0]; i++) {
        const vs_gguf_type *t = vs_gguf_type_by_name(want[i].name);
        ck_assert_ptr_nonnull(t);
        ck_assert_msg(t->bytes * 8.0 / t->block == want[i].bpw, "%s", want[i].name);
    }
    ck_assert_uint_eq(n, 35);
    ck_assert_uint_eq(all[n - 1].id, 42);
    ck_assert_ptr_null(vs_gguf_type_by_id(4));
    ck_assert_ptr_null(vs_gguf_type_by_id(31));
    ck_assert_ptr_null(vs_gguf_type_by_id(43));
    ck_assert_ptr_nonnull(vs_gguf_type_by_name("q4_k"));
    ck_assert_int_eq(vs_gguf_ftype_parse("q4_k_m"), 15);
    ck_assert_int_eq(vs_gguf_ftype_parse("MOSTLY_IQ4_XS"), 30);
    ck_assert_int_eq(vs_gguf_ftype_parse("q8_0"), 7);
    ck_assert_int_eq(vs_gguf_ftype_parse("nope"), -1);
}
END_TEST

/* ---- sliding window, MLA, per-layer KV heads, nested arrays ---- */

START_TEST(arch_metadata)
{
    static const uint32_t kvh[6] = {8, 8, 4, 8, 8, 0};
    static const uint32_t swa[6] = {1, 1, 1, 1, 1, 0};
    tdesc t[2] = {{"token_embd.weight", 2, {256, 10}, 0},
                  {"blk.0.attn_q.weight", 2, {256, 256}, 12}};
    wb w = {0};
    uint64_t data_len;
    vs_gguf_file *f = NULL;
    vs_error err;
    put(&w, "GGUF", 4);
    p32(&w, 2); /* version 2 */
    p64(&w, 2);
    p64(&w, 15);
    kv_str(&w, "general.architecture", "gemma3");
    kv_u32(&w, "gemma3.block_count", 6);
    kv_arr_u32(&w, "gemma3.attention.head_count_kv", kvh, 6);
    kv_u32(&w, "gemma3.attention.sliding_window", 1024);
    kv_arr_u32(&w, "gemma3.attention.sliding_window_pattern", swa, 6);
    kv_u32(&w, "gemma3.attention.key_length", 256);
    kv_u32(&w, "gemma3.attention.value_length", 256);
    /* an MLA model's keys, under another prefix: ignored for gemma3 */
    kv_u32(&w, "deepseek2.attention.kv_lora_rank", 512);
    kv_u16(&w, "split.unrelated", 3);
    kv_i32(&w, "gemma3.expert_count", 0);
    /* a nested array: [[1, 2], [3]] of u8 */
    pstr(&w, "tokenizer.nested");
    p32(&w, 9);
    p32(&w, 9);
    p64(&w, 2);
    p32(&w, 0);
    p64(&w, 2);
    put(&w, "\1\2", 2);
    p32(&w, 0);
    p64(&w, 1);
    put(&w, "\3", 1);
    /* an array of strings, a bool, an f64, an i64 */
    pstr(&w, "tokenizer.ggml.tokens");
    p32(&w, 9);
    p32(&w, 8);
    p64(&w, 2);
    pstr(&w, "<s>");
    pstr(&w, "hello");
    pstr(&w, "general.flag");
    p32(&w, 7);
    put(&w, "\1", 1);
    pstr(&w, "general.f64");
    p32(&w, 12);
    p64(&w, 0);
    pstr(&w, "general.i64");
    p32(&w, 11);
    p64(&w, (uint64_t)-5);
    tensor_table(&w, t, 2, 32, &data_len);
    ck_assert_msg(vs_gguf_parse(&f, "swa.gguf", w.p, w.len, w.len + data_len, &err) == 0, "%s",
                  err.message);
    ck_assert_str_eq(f->arch.name, "gemma3");
    ck_assert_uint_eq(f->version, 2);
    ck_assert_uint_eq(f->arch.block_count, 6);
    ck_assert_uint_eq(f->arch.n_head_count_kv_layers, 6);
    ck_assert_uint_eq(f->arch.head_count_kv_layers[2], 4);
    ck_assert_uint_eq(f->arch.head_count_kv_layers[5], 0);
    ck_assert_uint_eq(f->arch.head_count_kv, 8);
    ck_assert_uint_eq(f->arch.sliding_window, 1024);
    ck_assert_uint_eq(f->arch.n_sliding_window_layers, 6);
    ck_assert_uint_eq(f->arch.sliding_window_layers[5], 0);
    ck_assert_uint_eq(f->arch.key_length, 256);
    ck_assert_uint_eq(f->arch.kv_lora_rank, 0);
    ck_assert_uint_eq(f->params, 2560 + 65536);
    ck_assert_uint_eq(f->data_bytes, 2560 * 4 + 65536 / 256 * 144);
    vs_gguf_file_free(f);
    free(w.p);

    /* DeepSeek-V3's MLA keys */
    memset(&w, 0, sizeof w);
    put(&w, "GGUF", 4);
    p32(&w, 3);
    p64(&w, 1);
    p64(&w, 10);
    kv_str(&w, "general.architecture", "deepseek2");
    kv_u32(&w, "deepseek2.block_count", 61);
    kv_u32(&w, "deepseek2.attention.head_count", 128);
    kv_u32(&w, "deepseek2.attention.head_count_kv", 128);
    kv_u32(&w, "deepseek2.attention.kv_lora_rank", 512);
    kv_u32(&w, "deepseek2.attention.q_lora_rank", 1536);
    kv_u32(&w, "deepseek2.rope.dimension_count", 64);
    kv_u32(&w, "deepseek2.expert_count", 256);
    kv_u32(&w, "deepseek2.expert_used_count", 8);
    kv_u32(&w, "deepseek2.context_length", 163840);
    tensor_table(&w, t, 1, 32, &data_len);
    ck_assert_int_eq(vs_gguf_parse(&f, "mla.gguf", w.p, w.len, w.len + data_len, &err), 0);
    ck_assert_uint_eq(f->arch.kv_lora_rank, 512);
    ck_assert_uint_eq(f->arch.q_lora_rank, 1536);
    ck_assert_uint_eq(f->arch.rope_dimension_count, 64);
    ck_assert_uint_eq(f->arch.expert_count, 256);
    ck_assert_uint_eq(f->arch.expert_used_count, 8);
    ck_assert_uint_eq(f->arch.context_length, 163840);
    ck_assert_int_eq(f->file_type, -1);
    vs_gguf_file_free(f);
    free(w.p);
}
END_TEST

/* ---- malformed files ---- */

static wb small_file(uint32_t version, uint64_t ntensors, uint64_t nkv, uint64_t *data_len)
{
    tdesc t[2] = {{"a.weight", 2, {32, 4}, 8}, {"b.weight", 1, {8}, 0}};
    wb w = {0};
    put(&w, "GGUF", 4);
    p32(&w, version);
    p64(&w, ntensors);
    p64(&w, nkv);
    kv_str(&w, "general.architecture", "llama");
    tensor_table(&w, t, 2, 32, data_len);
    return w;
}

static void refused(const wb *w, uint64_t file_size, const char *needle)
{
    vs_gguf_file *f = (vs_gguf_file *)0x1;
    vs_error err;
    int rc;
    vs_error_clear(&err);
    rc = vs_gguf_parse(&f, "bad.gguf", w->p, w->len, file_size, &err);
    ck_assert_int_eq(rc, VS_EFORMAT);
    ck_assert_ptr_null(f);
    ck_assert_msg(strstr(err.message, "bad.gguf") != NULL, "no file name: %s", err.message);
    ck_assert_msg(strstr(err.message, needle) != NULL, "'%s' not in: %s", needle, err.message);
}

/* one tensor, entry written field by field */
static wb one_tensor(const char *name, uint32_t ndims, const uint64_t *ne, uint32_t type,
                     uint64_t offset)
{
    wb w = {0};
    uint32_t d;
    put(&w, "GGUF", 4);
    p32(&w, 3);
    p64(&w, 1);
    p64(&w, 0);
    pstr(&w, name);
    p32(&w, ndims);
    for (d = 0; d < ndims; d++)
        p64(&w, ne[d]);
    p32(&w, type);
    p64(&w, offset);
    while (w.len % 32)
        put(&w, "", 1);
    return w;
}

START_TEST(malformed)
{
    uint64_t dl, ne[5] = {32, 4, 1, 1, 1};
    wb w = small_file(3, 2, 1, &dl), x;
    size_t cut;
    char long_name[80];
    vs_gguf_file *f = NULL;
    vs_error err;
    /* the good one parses */
    ck_assert_int_eq(vs_gguf_parse(&f, "good.gguf", w.p, w.len, w.len + dl, &err), 0);
    vs_gguf_file_free(f);
    /* 1: truncated at every byte of the header and table */
    for (cut = 0; cut < w.len - 24; cut++) { /* the last 24 bytes are padding */
        wb c = {w.p, cut, cut};
        vs_gguf_file *g = (vs_gguf_file *)0x1;
        int rc = vs_gguf_parse(&g, "bad.gguf", c.p, c.len, c.len, &err);
        ck_assert_msg(rc == VS_EFORMAT, "cut at %zu: rc %d", cut, rc);
        ck_assert_ptr_null(g);
        ck_assert_msg(strstr(err.message, "bad.gguf"), "cut %zu: %s", cut, err.message);
    }
    /* 2: data past the end (the file is shorter than its tensors) */
    refused(&w, w.len + dl - 1, "past the end");
    /* 3: a wrong magic */
    x = w;
    x.p = malloc(w.len);
    memcpy(x.p, w.p, w.len);
    x.p[0] = 'X';
    refused(&x, x.len + dl, "not a GGUF file");
    /* 4: version 1, 5: version 4, 6: big-endian */
    x.p[0] = 'G';
    x.p[4] = 1;
    refused(&x, x.len + dl, "version 1");
    x.p[4] = 4;
    refused(&x, x.len + dl, "version 4");
    x.p[4] = 0;
    x.p[7] = 3;
    refused(&x, x.len + dl, "big-endian");
    free(x.p);
    free(w.p);
    /* 7: 2^60 tensors, 8: 2^60 keys: refused at once */
    w = small_file(3, (uint64_t)1 << 60, 1, &dl);
    refused(&w, w.len + dl, "claims 1152921504606846976 tensors");
    free(w.p);
    w = small_file(3, 2, (uint64_t)1 << 60, &dl);
    refused(&w, w.len + dl, "metadata keys");
    free(w.p);
    /* 9: an array claiming 2^60 elements */
    memset(&w, 0, sizeof w);
    put(&w, "GGUF", 4);
    p32(&w, 3);
    p64(&w, 0);
    p64(&w, 1);
    pstr(&w, "tokenizer.ggml.tokens");
    p32(&w, 9);
    p32(&w, 8);
    p64(&w, (uint64_t)1 << 60);
    refused(&w, w.len, "claims 1152921504606846976 string elements");
    free(w.p);
    /* 10: a string claiming 2^62 bytes */
    memset(&w, 0, sizeof w);
    put(&w, "GGUF", 4);
    p32(&w, 3);
    p64(&w, 0);
    p64(&w, 1);
    p64(&w, (uint64_t)1 << 62);
    refused(&w, w.len, "more than the");
    free(w.p);
    /* 11: an unknown value type */
    memset(&w, 0, sizeof w);
    put(&w, "GGUF", 4);
    p32(&w, 3);
    p64(&w, 0);
    p64(&w, 1);
    pstr(&w, "general.x");
    p32(&w, 13);
    p32(&w, 0);
    refused(&w, w.len, "unknown value type 13");
    free(w.p);
    /* 12: arrays nested 9 deep */
    {
        int d;
        memset(&w, 0, sizeof w);
        put(&w, "GGUF", 4);
        p32(&w, 3);
        p64(&w, 0);
        p64(&w, 1);
        pstr(&w, "general.deep");
        p32(&w, 9);
        for (d = 0; d < 9; d++) {
            p32(&w, 9);
            p64(&w, 1);
        }
        p32(&w, 0);
        p64(&w, 0);
        refused(&w, w.len, "nests arrays");
        free(w.p);
    }
    /* 13: an unknown ggml type, named; 14: a removed one (Q4_2 = 4) */
    w = one_tensor("a.weight", 2, ne, 43, 0);
    refused(&w, w.len + 4096, "ggml type 43");
    free(w.p);
    w = one_tensor("a.weight", 2, ne, 4, 0);
    refused(&w, w.len + 4096, "ggml type 4,");
    free(w.p);
    /* 15: 5 dimensions; 16: 0 dimensions */
    w = one_tensor("a.weight", 5, ne, 0, 0);
    refused(&w, w.len + 4096, "5 dimensions");
    free(w.p);
    w = one_tensor("a.weight", 0, ne, 0, 0);
    refused(&w, w.len + 4096, "0 dimensions");
    free(w.p);
    /* 17: a negative dimension; 18: an overflowing shape */
    ne[1] = (uint64_t)-4;
    w = one_tensor("a.weight", 2, ne, 0, 0);
    refused(&w, w.len + 4096, "negative");
    free(w.p);
    ne[0] = (uint64_t)1 << 32;
    ne[1] = (uint64_t)1 << 32;
    w = one_tensor("a.weight", 2, ne, 0, 0);
    refused(&w, w.len + 4096, "64 bits");
    free(w.p);
    /* 19: a row not whole blocks (33 values of Q8_0) */
    ne[0] = 33;
    ne[1] = 1;
    w = one_tensor("a.weight", 2, ne, 8, 0);
    refused(&w, w.len + 4096, "not a whole number of Q8_0 blocks of 32");
    free(w.p);
    /* 20: an offset not aligned; 21: an offset leaving a hole */
    ne[0] = 32;
    w = one_tensor("a.weight", 2, ne, 0, 8);
    refused(&w, w.len + 4096, "not a multiple of the alignment");
    free(w.p);
    w = one_tensor("a.weight", 2, ne, 0, 64);
    refused(&w, w.len + 4096, "a hole");
    free(w.p);
    /* 22: a name longer than 63 bytes */
    memset(long_name, 'n', 64);
    long_name[64] = '\0';
    w = one_tensor(long_name, 2, ne, 0, 0);
    refused(&w, w.len + 4096, "longer than 63");
    free(w.p);
    /* 23: overlapping (two tensors at offset 0), 24: the same name twice,
     * 25: out of order */
    {
        static const struct {
            const char *a, *b;
            uint64_t off_a, off_b;
            const char *needle;
        } two[] = {{"a.weight", "b.weight", 0, 0, "overlapping or out of order"},
                   {"a.weight", "a.weight", 0, 128, "twice"},
                   {"a.weight", "b.weight", 128, 0, "expected 0"}};
        size_t k;
        for (k = 0; k < 3; k++) {
            memset(&w, 0, sizeof w);
            put(&w, "GGUF", 4);
            p32(&w, 3);
            p64(&w, 2);
            p64(&w, 0);
            pstr(&w, two[k].a);
            p32(&w, 1);
            p64(&w, 32);
            p32(&w, 0);
            p64(&w, two[k].off_a);
            pstr(&w, two[k].b);
            p32(&w, 1);
            p64(&w, 32);
            p32(&w, 0);
            p64(&w, two[k].off_b);
            refused(&w, w.len + 4096, two[k].needle);
            free(w.p);
        }
    }
    /* 26: general.alignment not a power of two; 27: a key given twice;
     * 28: general.architecture not a string; 29: split.no >= split.count */
    {
        static const struct {
            int which;
            const char *needle;
        } kv[] = {{0, "power of two"},
                  {1, "appears twice"},
                  {2, "not a string"},
                  {3, "split set"},
                  {4, "key 'llama.block_count' appears twice"}};
        size_t k;
        for (k = 0; k < 5; k++) {
            memset(&w, 0, sizeof w);
            put(&w, "GGUF", 4);
            p32(&w, 3);
            p64(&w, 0);
            p64(&w, 2);
            switch (kv[k].which) {
            case 0:
                kv_u32(&w, "general.alignment", 48);
                kv_u32(&w, "general.x", 1);
                break;
            case 1:
                kv_u32(&w, "general.file_type", 15);
                kv_u32(&w, "general.file_type", 15);
                break;
            case 2:
                kv_u32(&w, "general.architecture", 1);
                kv_u32(&w, "general.x", 1);
                break;
            case 3:
                kv_u16(&w, "split.no", 3);
                kv_u16(&w, "split.count", 3);
                break;
            case 4: /* 30: any key given twice, as gguf.cpp refuses */
                kv_u32(&w, "llama.block_count", 3);
                kv_u32(&w, "llama.block_count", 4);
                break;
            }
            refused(&w, w.len, kv[k].needle);
            free(w.p);
        }
    }
}
END_TEST

/* ---- through the model adapter: weights from=FILE.gguf and split sets ---- */

static json_t *fresh_sheet(void)
{
    json_t *s = vs_sheet_new("t");
    ck_assert_ptr_nonnull(s);
    return s;
}

START_TEST(weights_payload_and_split)
{
    static tdesc t[L * 9 + 3];
    size_t n = llama_q4km(t), third = n / 3, k;
    wb w = {0};
    uint64_t data_len, total = 0;
    json_t *sheet = fresh_sheet(), *p = NULL, *by;
    vs_error err;
    llama_header(&w, n, 0);
    tensor_table(&w, t, n, 32, &data_len);
    write_sparse(at("llama.gguf"), &w, data_len);
    free(w.p);
    ck_assert_int_eq(vs_model_apply_weights_files(sheet, at("llama.gguf"), 0, &p, &err), 0);
    ck_assert_str_eq(json_string_value(json_object_get(p, "format")), "gguf");
    ck_assert_str_eq(json_string_value(json_object_get(p, "file_type")), "MOSTLY_Q4_K_M");
    ck_assert_int_eq(json_integer_value(json_object_get(p, "bytes")), 4912898048ll);
    ck_assert_int_eq(json_integer_value(json_object_get(p, "params")), 8030261248ll);
    by = json_object_get(p, "by_dtype");
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(by, 0), "dtype")), "Q4_K");
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(by, 1), "dtype")), "Q6_K");
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(by, 2), "dtype")), "F32");
    ck_assert_int_eq(
        json_integer_value(json_object_get(json_object_get(p, "gguf_arch"), "head_count_kv")), 8);
    ck_assert_str_eq(json_string_value(json_object_get(vs_sheet_card(sheet), "params_source")),
                     "gguf");
    json_decref(p);

    /* the same tensors in three shards, found from the first */
    for (k = 0; k < 3; k++) {
        char name[64];
        size_t lo = k * third, hi = k == 2 ? n : (k + 1) * third;
        wb s = {0};
        uint64_t dl;
        put(&s, "GGUF", 4);
        p32(&s, 3);
        p64(&s, hi - lo);
        p64(&s, 4);
        kv_str(&s, "general.architecture", "llama");
        kv_u16(&s, "split.no", (uint16_t)k);
        kv_u16(&s, "split.count", 3);
        kv_i32(&s, "split.tensors.count", (int32_t)n);
        tensor_table(&s, t + lo, hi - lo, 32, &dl);
        snprintf(name, sizeof name, "llama-0000%zu-of-00003.gguf", k + 1);
        write_sparse(at(name), &s, dl);
        free(s.p);
        for (; lo < hi; lo++)
            total += hand_bytes(t[lo].type, elems(&t[lo]));
    }
    ck_assert_int_eq(
        vs_model_apply_weights_files(sheet, at("llama-00001-of-00003.gguf"), 0, &p, &err), 0);
    ck_assert_int_eq(json_integer_value(json_object_get(p, "bytes")), (json_int_t)total);
    ck_assert_uint_eq(json_array_size(json_object_get(p, "files")), 3);
    json_decref(p);
    /* a folder holding one GGUF set stands for it */
    unlink(at("llama.gguf"));
    ck_assert_int_eq(vs_model_apply_weights_files(sheet, tmpdir, 0, &p, &err), 0);
    ck_assert_int_eq(json_integer_value(json_object_get(p, "bytes")), (json_int_t)total);
    json_decref(p);
    /* a missing shard */
    unlink(at("llama-00002-of-00003.gguf"));
    ck_assert_int_eq(
        vs_model_apply_weights_files(sheet, at("llama-00001-of-00003.gguf"), 0, &p, &err),
        VS_EFORMAT);
    ck_assert_msg(strstr(err.message, "shard 2 of 3 is missing"), "%s", err.message);
    json_decref(sheet);
}
END_TEST

/* a 400 GB sparse file: headers only, quickly */
START_TEST(huge_sparse_file)
{
    static tdesc t[1200];
    static char nm[1200][32];
    wb w = {0};
    uint64_t data_len, read = 0;
    size_t i;
    vs_gguf_file *f = NULL;
    vs_error err;
    for (i = 0; i < 1200; i++) {
        snprintf(nm[i], sizeof nm[i], "blk.%zu.ffn_up.weight", i);
        t[i].name = nm[i];
        t[i].ndims = 2;
        t[i].ne[0] = 16384;
        t[i].ne[1] = 40000; /* 655 M values of Q8_0 each: 348 MB */
        t[i].type = 8;
    }
    llama_header(&w, 1200, 0);
    tensor_table(&w, t, 1200, 32, &data_len);
    ck_assert_uint_gt(data_len, 400000000000ull);
    write_sparse(at("huge.gguf"), &w, data_len);
    ck_assert_int_eq(vs_gguf_read_file(&f, at("huge.gguf"), NULL, &read, &err), 0);
    ck_assert_uint_eq(f->data_bytes, 1200ull * 16384 * 40000 / 32 * 34);
    ck_assert_uint_le(read, w.len + 65536);
    vs_gguf_file_free(f);
    free(w.p);
}
END_TEST

/* the weights-file interface: each format sniffed and listed (name, type,
 * elements, bytes, shape) */
START_TEST(wfile_interface)
{
    static const char hdr[] =
        "{\"w\":{\"dtype\":\"F8_E4M3\",\"shape\":[64,32],\"data_offsets\":[0,2048]}}";
    tdesc t[1] = {{"blk.0.attn_q.weight", 2, {256, 8}, 12}};
    unsigned char len8[8];
    wb w = {0};
    uint64_t dl, size = 0, read = 0;
    const vs_wf_format *f;
    vs_wf_list *l = NULL;
    vs_error err;
    size_t i, n;
    int fd;
    vs_wfile_formats(&n);
    ck_assert_uint_eq(n, 2);
    put(&w, "GGUF", 4);
    p32(&w, 3);
    p64(&w, 1);
    p64(&w, 0);
    tensor_table(&w, t, 1, 32, &dl);
    write_sparse(at("m.gguf"), &w, dl);
    free(w.p);
    ck_assert_ptr_nonnull(f = vs_wfile_sniff_file(at("m.gguf"), &err));
    ck_assert_str_eq(f->name, "gguf");
    ck_assert_int_eq(f->read(&l, at("m.gguf"), &size, &read, &err), 0);
    ck_assert_uint_eq(l->count, 1);
    ck_assert_str_eq(l->tensors[0].dtype, "Q4_K");
    ck_assert_uint_eq(l->tensors[0].bytes, 8 * 144);
    ck_assert_uint_eq(l->tensors[0].ndims, 2);
    ck_assert_uint_eq(l->tensors[0].shape[1], 8);
    vs_wf_list_free(l);
    fd = open(at("m.safetensors"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    for (i = 0; i < 8; i++)
        len8[i] = (unsigned char)((sizeof hdr - 1) >> (8 * i));
    ck_assert_int_eq(write(fd, len8, 8), 8);
    ck_assert_int_eq(write(fd, hdr, sizeof hdr - 1), (ssize_t)(sizeof hdr - 1));
    ck_assert_int_eq(ftruncate(fd, (off_t)(8 + sizeof hdr - 1 + 2048)), 0);
    close(fd);
    ck_assert_ptr_nonnull(f = vs_wfile_sniff_file(at("m.safetensors"), &err));
    ck_assert_str_eq(f->name, "safetensors");
    ck_assert_int_eq(f->read(&l, at("m.safetensors"), &size, &read, &err), 0);
    ck_assert_str_eq(l->tensors[0].dtype, "F8_E4M3");
    ck_assert_uint_eq(l->tensors[0].bytes, 2048);
    ck_assert_uint_eq(l->tensors[0].ndims, 2);
    ck_assert_uint_eq(l->tensors[0].shape[0], 64);
    ck_assert_uint_eq(l->tensors[0].shape[1], 32);
    vs_wf_list_free(l);
}
END_TEST

/* A malformed header's error names the byte where the fault lies; the offsets
 * counted here by hand from the layout: magic 0-3, version 4-7, tensor count
 * 8-15, key count 16-23, the first key's length at 24 and its bytes from 32. */
static long long position_of(const wb *w, uint64_t file_size, const char *needle)
{
    vs_gguf_file *f = NULL;
    vs_error err;
    ck_assert_int_eq(vs_gguf_parse(&f, "p.gguf", w->p, w->len, file_size, &err), VS_EFORMAT);
    ck_assert_msg(strstr(err.message, needle), "%s", err.message);
    return err.position;
}

static wb header(uint64_t n_tensors, uint64_t n_kv)
{
    wb w = {0};
    put(&w, "GGUF", 4);
    p32(&w, 3);
    p64(&w, n_tensors);
    p64(&w, n_kv);
    return w;
}

START_TEST(error_positions)
{
    wb w;
    /* the file ends inside the tensor count: 4 of its 8 bytes, at 8 */
    memset(&w, 0, sizeof w);
    put(&w, "GGUF", 4);
    p32(&w, 3);
    p32(&w, 0);
    ck_assert_int_eq(position_of(&w, w.len, "ends inside the tensor count"), 8);
    free(w.p);
    /* counts the bytes left cannot hold: the tensor count (8), the key count (16) */
    w = header((uint64_t)1 << 60, 0);
    ck_assert_int_eq(position_of(&w, w.len, "tensors"), 8);
    free(w.p);
    w = header(0, (uint64_t)1 << 60);
    ck_assert_int_eq(position_of(&w, w.len, "metadata keys"), 16);
    free(w.p);
    /* the first key's length claims 2^62 bytes: the length at 24 */
    w = header(0, 1);
    p64(&w, (uint64_t)1 << 62);
    put(&w, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16); /* room for one key */
    ck_assert_int_eq(position_of(&w, w.len, "claims 4611686018427387904 bytes"), 24);
    free(w.p);
    /* "ab\0c": the NUL is the key's third byte, 32 + 2 */
    w = header(0, 1);
    p64(&w, 4);
    put(&w, "ab\0c", 4);
    p32(&w, 4);
    p32(&w, 7);
    ck_assert_int_eq(position_of(&w, w.len, "NUL"), 34);
    free(w.p);
    /* an array of 2^60 strings: key length 24-31, "tokenizer.ggml.tokens" 32-52,
     * value type 53-56, element type 57-60, the count at 61 */
    w = header(0, 1);
    pstr(&w, "tokenizer.ggml.tokens");
    p32(&w, 9);
    p32(&w, 8);
    p64(&w, (uint64_t)1 << 60);
    ck_assert_int_eq(position_of(&w, w.len, "string elements"), 61);
    free(w.p);
    /* a key's value cut short: "k" 24-32, type 33-36, its u32 value from 37 */
    w = header(0, 1);
    pstr(&w, "k");
    p32(&w, 4);
    put(&w, "\1\0", 2);
    ck_assert_int_eq(position_of(&w, w.len, "ends inside the value of key 'k'"), 37);
    free(w.p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gguf");
    TCase *tc = tcase_create("gguf");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, type_table);
    tcase_add_test(tc, llama_q4_k_m_file);
    tcase_add_test(tc, llama_rules_predict);
    tcase_add_test(tc, arch_metadata);
    tcase_add_test(tc, malformed);
    tcase_add_test(tc, error_positions);
    tcase_add_test(tc, weights_payload_and_split);
    tcase_add_test(tc, huge_sparse_file);
    tcase_add_test(tc, wfile_interface);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
