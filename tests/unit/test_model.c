/* The model-file adapters on a real sheet: config.json into card.arch and
 * card.params, safetensors files (one, or an index and its shards) into
 * weights_files, and the sheet left exactly as it was after every error. */
#include <check.h>
#include <jansson.h>
#include <sodium.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/model.h"
#include "render/card_lines.h"
#include "sheet/sheet.h"
#include "util/buf.h"

#include "check_run.h"

static char dir[256];

static void make_dir(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/vs_model_XXXXXX", t && *t ? t : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void remove_dir(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

static const char *at(const char *name)
{
    static char p[2][512];
    static int k;
    k ^= 1;
    snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
    return p[k];
}

static void write_text(const char *name, const char *text)
{
    FILE *f = fopen(at(name), "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(text, 1, strlen(text), f), strlen(text));
    fclose(f);
}

typedef struct tspec {
    char name[96];
    const char *dtype;
    unsigned elem;
    unsigned long long rows, cols; /* cols 0: a vector */
} tspec;

/* Writes a safetensors file with the tensors back to back; data bytes follow a
 * simple pattern so that the sha256 depends on every byte. Returns its size. */
static size_t write_st(const char *name, const tspec *t, size_t n)
{
    vs_buf b = VS_BUF_INIT;
    uint64_t off = 0, i;
    unsigned char len8[8];
    FILE *f;
    size_t k, hl;
    vs_buf_putc(&b, '{');
    for (k = 0; k < n; k++) {
        uint64_t elems = t[k].cols ? t[k].rows * t[k].cols : t[k].rows;
        uint64_t bytes = elems * t[k].elem;
        if (t[k].cols)
            vs_buf_printf(&b, "%s\"%s\": {\"dtype\": \"%s\", \"shape\": [%llu, %llu], ",
                          k ? ", " : "", t[k].name, t[k].dtype, t[k].rows, t[k].cols);
        else
            vs_buf_printf(&b, "%s\"%s\": {\"dtype\": \"%s\", \"shape\": [%llu], ", k ? ", " : "",
                          t[k].name, t[k].dtype, t[k].rows);
        vs_buf_printf(&b, "\"data_offsets\": [%llu, %llu]}", (unsigned long long)off,
                      (unsigned long long)(off + bytes));
        off += bytes;
    }
    vs_buf_puts(&b, "}");
    hl = b.len;
    for (k = 0; k < 8; k++)
        len8[k] = (unsigned char)((hl >> (8 * k)) & 0xff);
    f = fopen(at(name), "wb");
    ck_assert_ptr_nonnull(f);
    fwrite(len8, 1, 8, f);
    fwrite(b.data, 1, hl, f);
    for (i = 0; i < off; i++)
        fputc((int)(i * 31 % 251), f);
    fclose(f);
    vs_buf_free(&b);
    return 8 + hl + off;
}

/* A tiny Llama as HF lays it out (bf16 matrices, fp32 norms), to cross-check
 * the config rule against the stored element count. layers [from, to). */
static size_t llama_tensors(tspec *t, unsigned from, unsigned to, int embed, int head)
{
    const unsigned long long H = 32, I = 48, V = 40, KV = 16; /* 4 heads, 2 KV heads */
    size_t n = 0;
    unsigned l;
#define ADD(nm, dt, el, r, c)                                                                      \
    do {                                                                                           \
        snprintf(t[n].name, sizeof t[n].name, "%s", nm);                                           \
        t[n].dtype = dt;                                                                           \
        t[n].elem = el;                                                                            \
        t[n].rows = r;                                                                             \
        t[n].cols = c;                                                                             \
        n++;                                                                                       \
    } while (0)
    char nm[96];
    if (embed)
        ADD("model.embed_tokens.weight", "BF16", 2, V, H);
    for (l = from; l < to; l++) {
        snprintf(nm, sizeof nm, "model.layers.%u.self_attn.q_proj.weight", l);
        ADD(nm, "BF16", 2, H, H);
        snprintf(nm, sizeof nm, "model.layers.%u.self_attn.k_proj.weight", l);
        ADD(nm, "BF16", 2, KV, H);
        snprintf(nm, sizeof nm, "model.layers.%u.self_attn.v_proj.weight", l);
        ADD(nm, "BF16", 2, KV, H);
        snprintf(nm, sizeof nm, "model.layers.%u.self_attn.o_proj.weight", l);
        ADD(nm, "BF16", 2, H, H);
        snprintf(nm, sizeof nm, "model.layers.%u.mlp.gate_proj.weight", l);
        ADD(nm, "BF16", 2, I, H);
        snprintf(nm, sizeof nm, "model.layers.%u.mlp.up_proj.weight", l);
        ADD(nm, "BF16", 2, I, H);
        snprintf(nm, sizeof nm, "model.layers.%u.mlp.down_proj.weight", l);
        ADD(nm, "BF16", 2, H, I);
        snprintf(nm, sizeof nm, "model.layers.%u.input_layernorm.weight", l);
        ADD(nm, "F32", 4, H, 0);
        snprintf(nm, sizeof nm, "model.layers.%u.post_attention_layernorm.weight", l);
        ADD(nm, "F32", 4, H, 0);
    }
    if (head) {
        ADD("model.norm.weight", "F32", 4, H, 0);
        ADD("lm_head.weight", "BF16", 2, V, H);
    }
#undef ADD
    return n;
}

static const char *tiny_llama_config =
    "{\"architectures\": [\"LlamaForCausalLM\"], \"model_type\": \"llama\", "
    "\"hidden_size\": 32, \"intermediate_size\": 48, \"num_attention_heads\": 4, "
    "\"num_hidden_layers\": 3, \"num_key_value_heads\": 2, \"vocab_size\": 40, "
    "\"tie_word_embeddings\": false}";

static json_t *get(json_t *o, const char *path)
{
    char key[64];
    const char *dot;
    while ((dot = strchr(path, '.'))) {
        snprintf(key, sizeof key, "%.*s", (int)(dot - path), path);
        o = json_object_get(o, key);
        path = dot + 1;
    }
    return json_object_get(o, path);
}

static long long iget(json_t *o, const char *path)
{
    json_t *v = get(o, path);
    ck_assert_msg(json_is_integer(v), "%s is not an integer", path);
    return (long long)json_integer_value(v);
}

/* Runs fn's failure on sheet and checks that nothing in the sheet changed. */
static void expect_unchanged(json_t *sheet, int rc, int want, vs_error *err, const char *needle,
                             const json_t *before)
{
    ck_assert_msg(rc == want, "rc %d, wanted %d: %s", rc, want, err->message);
    ck_assert_msg(strstr(err->message, needle) != NULL, "'%s' not in: %s", needle, err->message);
    ck_assert_msg(json_equal(sheet, (json_t *)before), "the sheet changed after an error");
}

START_TEST(config_fills_the_card)
{
    json_t *sheet = vs_sheet_new("Tiny llama"), *payload = NULL, *arch;
    vs_hfconfig read;
    vs_error err;
    const char *keys[] = {"family",
                          "rule",
                          "config",
                          "layers",
                          "hidden",
                          "heads",
                          "kv_heads",
                          "head_dim",
                          "intermediate",
                          "vocab",
                          "experts",
                          "experts_per_token",
                          "moe_intermediate",
                          "shared_intermediate",
                          "dense_layers",
                          "params_total",
                          "params_active",
                          "tied_embeddings",
                          "mlp",
                          "kv_layout",
                          "context",
                          "context_key",
                          "rope_scaling",
                          "encoder_params"};
    size_t i;
    tspec t[64];
    size_t n = llama_tensors(t, 0, 3, 1, 1);
    unsigned long long want = 0;
    for (i = 0; i < n; i++)
        want += t[i].cols ? t[i].rows * t[i].cols : t[i].rows;
    make_dir();
    write_text("config.json", tiny_llama_config);
    ck_assert_int_eq(vs_model_apply_config(sheet, at("config.json"), &read, &err), 0);
    arch = get(sheet, "card.arch");
    ck_assert_ptr_nonnull(arch);
    for (i = 0; i < sizeof keys / sizeof keys[0]; i++)
        ck_assert_msg(json_object_get(arch, keys[i]) != NULL, "card.arch lacks %s", keys[i]);
    ck_assert_uint_eq(json_object_size(arch), sizeof keys / sizeof keys[0]);
    ck_assert_str_eq(json_string_value(get(arch, "family")), "llama");
    ck_assert_str_eq(json_string_value(get(arch, "rule")), "llama rule");
    ck_assert_str_eq(json_string_value(get(arch, "config")), at("config.json"));
    ck_assert_int_eq(iget(arch, "layers"), 3);
    ck_assert(json_is_null(get(arch, "encoder_params")));           /* a text model: no encoder */
    ck_assert_str_eq(json_string_value(get(arch, "mlp")), "gated"); /* gate_proj, up_proj */
    ck_assert_int_eq(iget(arch, "hidden"), 32);
    ck_assert_int_eq(iget(arch, "heads"), 4);
    ck_assert_int_eq(iget(arch, "kv_heads"), 2);
    ck_assert_int_eq(iget(arch, "head_dim"), 8);
    ck_assert_int_eq(iget(arch, "intermediate"), 48);
    ck_assert_int_eq(iget(arch, "vocab"), 40);
    ck_assert(json_is_null(get(arch, "experts")));
    ck_assert(json_is_null(get(arch, "experts_per_token")));
    ck_assert(json_is_null(get(arch, "params_active")));
    ck_assert(json_is_false(get(arch, "tied_embeddings")));
    /* one full group: 3 layers of 2 KV heads x 8 */
    ck_assert_str_eq(json_string_value(get(json_array_get(get(arch, "kv_layout"), 0), "kind")),
                     "full");
    ck_assert_int_eq(iget(json_array_get(get(arch, "kv_layout"), 0), "layers"), 3);
    ck_assert_int_eq(iget(json_array_get(get(arch, "kv_layout"), 0), "kv_heads"), 2);
    ck_assert_int_eq(iget(arch, "params_total"), (long long)want);
    ck_assert_int_eq(iget(sheet, "card.params"), (long long)want);
    ck_assert_str_eq(json_string_value(get(sheet, "card.params_source")),
                     "config.json (llama rule)");
    /* the `model` result's account of it (render/card_lines): the arch as read, the count */
    payload = vs_render_card_config(arch, &read);
    ck_assert_ptr_nonnull(payload);
    ck_assert(json_equal(get(payload, "kv_layout"), get(arch, "kv_layout")));
    ck_assert_str_eq(json_string_value(get(payload, "model_type")), "llama");
    /* a unimodal model is one part, the text model, holding every counted tensor */
    ck_assert_int_eq(json_array_size(get(payload, "parts")), 1);
    ck_assert_int_eq(iget(json_array_get(get(payload, "parts"), 0), "params"), (long long)want);
    ck_assert_int_eq(json_array_size(get(payload, "params_excluded")), 0);
    ck_assert_str_eq(json_string_value(get(payload, "kind")), "model");
    ck_assert_int_eq(iget(payload, "params"), (long long)want);
    ck_assert_str_eq(json_string_value(get(payload, "params_source")), "config.json (llama rule)");
    json_decref(payload);

    /* a MoE config fills the expert keys; no payload asked */
    write_text("moe.json", "{\"model_type\": \"mixtral\", \"hidden_size\": 32, "
                           "\"intermediate_size\": 48, \"num_attention_heads\": 4, "
                           "\"num_hidden_layers\": 2, \"num_key_value_heads\": 2, "
                           "\"vocab_size\": 40, \"num_local_experts\": 4, "
                           "\"num_experts_per_tok\": 1}");
    ck_assert_int_eq(vs_model_apply_config(sheet, at("moe.json"), NULL, &err), 0);
    arch = get(sheet, "card.arch");
    ck_assert_int_eq(iget(arch, "experts"), 4);
    ck_assert_int_eq(iget(arch, "experts_per_token"), 1);
    ck_assert_int_lt(iget(arch, "params_active"), iget(arch, "params_total"));
    ck_assert_int_eq(iget(sheet, "card.params"), iget(arch, "params_total"));
    ck_assert_str_eq(json_string_value(get(sheet, "card.params_source")),
                     "config.json (mixtral rule)");
    json_decref(sheet);
    remove_dir();
}
END_TEST

START_TEST(config_errors_leave_the_sheet)
{
    json_t *sheet = vs_sheet_new("x"), *before;
    vs_hfconfig read;
    vs_error err;
    make_dir();
    /* what the config gave is written on success only */
    memset(&read, 0xa5, sizeof read);
    ck_assert_int_eq(vs_model_apply_config(sheet, "/nonexistent/config.json", &read, &err), VS_EIO);
    ck_assert_uint_eq(read.params_total, 0xa5a5a5a5a5a5a5a5ULL);
    /* a sheet that already has an architecture keeps it */
    write_text("config.json", tiny_llama_config);
    ck_assert_int_eq(vs_model_apply_config(sheet, at("config.json"), NULL, &err), 0);
    before = json_deep_copy(sheet);

    expect_unchanged(sheet, vs_model_apply_config(sheet, at("missing.json"), NULL, &err), VS_EIO,
                     &err, "missing.json", before);
    write_text("bad.json", "{\"model_type\": \"llama\",");
    expect_unchanged(sheet, vs_model_apply_config(sheet, at("bad.json"), &read, &err), VS_EFORMAT,
                     &err, "bad.json", before);
    ck_assert_uint_eq(read.params_total, 0xa5a5a5a5a5a5a5a5ULL);
    write_text("mamba.json", "{\"model_type\": \"mamba\", \"hidden_size\": 768}");
    expect_unchanged(sheet, vs_model_apply_config(sheet, at("mamba.json"), NULL, &err), VS_EVALUE,
                     &err, "params=", before);
    ck_assert_ptr_nonnull(strstr(err.message, "mamba.json"));
    write_text("nolayers.json", "{\"model_type\": \"llama\", \"hidden_size\": 32}");
    expect_unchanged(sheet, vs_model_apply_config(sheet, at("nolayers.json"), NULL, &err),
                     VS_EFORMAT, &err, "num_hidden_layers", before);
    expect_unchanged(sheet, vs_model_apply_config(sheet, dir, NULL, &err), VS_EIO, &err, dir,
                     before);
    json_decref(before);
    json_decref(sheet);
    remove_dir();
}
END_TEST

START_TEST(weights_from_one_file)
{
    json_t *sheet = vs_sheet_new("w"), *payload = NULL, *wf, *by, *other, *files;
    vs_error err;
    tspec t[64];
    size_t n = llama_tensors(t, 0, 3, 1, 1), size;
    long long cfg_params;
    make_dir();
    write_text("config.json", tiny_llama_config);
    ck_assert_int_eq(vs_model_apply_config(sheet, at("config.json"), NULL, &err), 0);
    cfg_params = iget(sheet, "card.params");
    size = write_st("model.safetensors", t, n);
    ck_assert_int_eq(
        vs_model_apply_weights_files(sheet, at("model.safetensors"), 0, &payload, &err), 0);
    /* the stored element count agrees with the config rule */
    ck_assert_int_eq(iget(sheet, "card.params"), cfg_params);
    ck_assert_str_eq(json_string_value(get(sheet, "card.params_source")), "safetensors");
    ck_assert_ptr_nonnull(get(sheet, "card.arch")); /* the shapes stay */
    wf = get(sheet, "weights_files");
    ck_assert_str_eq(json_string_value(get(wf, "path")), at("model.safetensors"));
    ck_assert_int_eq(iget(wf, "params"), cfg_params);
    /* bytes: every matrix in bf16, the 7 norms in fp32 */
    ck_assert_int_eq(iget(wf, "bytes"), (cfg_params - 7 * 32) * 2 + 7 * 32 * 4);
    by = get(wf, "by_dtype");
    ck_assert_uint_eq(json_array_size(by), 2);
    ck_assert_str_eq(json_string_value(get(json_array_get(by, 0), "dtype")), "BF16");
    ck_assert_int_eq(iget(json_array_get(by, 0), "params"), cfg_params - 7 * 32);
    ck_assert_int_eq(iget(json_array_get(by, 0), "bytes"), (cfg_params - 7 * 32) * 2);
    ck_assert_str_eq(json_string_value(get(json_array_get(by, 1), "dtype")), "F32");
    ck_assert_int_eq(iget(json_array_get(by, 1), "bytes"), 7 * 32 * 4);
    ck_assert_uint_eq(json_object_size(json_array_get(by, 0)), 3);
    other = get(wf, "other_dtype");
    ck_assert_uint_eq(json_array_size(other), 3);
    ck_assert_str_eq(json_string_value(get(json_array_get(other, 0), "pattern")),
                     "model.layers.*.input_layernorm.weight");
    ck_assert_str_eq(json_string_value(get(json_array_get(other, 0), "dtype")), "F32");
    ck_assert_int_eq(iget(json_array_get(other, 0), "tensors"), 3);
    ck_assert_int_eq(iget(json_array_get(other, 0), "bytes"), 3 * 32 * 4);
    ck_assert_str_eq(json_string_value(get(json_array_get(other, 1), "pattern")),
                     "model.layers.*.post_attention_layernorm.weight");
    ck_assert_str_eq(json_string_value(get(json_array_get(other, 2), "pattern")),
                     "model.norm.weight");
    files = get(wf, "files");
    ck_assert_uint_eq(json_array_size(files), 1);
    ck_assert_str_eq(json_string_value(get(json_array_get(files, 0), "name")), "model.safetensors");
    ck_assert_int_eq(iget(json_array_get(files, 0), "size"), (long long)size);
    ck_assert(json_is_null(get(json_array_get(files, 0), "sha256")));
    /* the payload */
    ck_assert_str_eq(json_string_value(get(payload, "kind")), "weights");
    ck_assert_str_eq(json_string_value(get(payload, "source")), "safetensors");
    ck_assert(json_is_null(get(payload, "bits"))); /* mixed */
    ck_assert_int_eq(iget(payload, "bytes"), iget(wf, "bytes"));
    ck_assert_int_eq(iget(payload, "params"), cfg_params);
    ck_assert_int_eq(iget(payload, "params_config"), cfg_params);
    ck_assert(json_equal(get(payload, "by_dtype"), by));
    ck_assert(json_equal(get(payload, "other_dtype"), other));
    ck_assert(json_equal(get(payload, "files"), files));
    /* the payload is not the sheet's storage */
    json_array_clear(get(payload, "files"));
    ck_assert_uint_eq(json_array_size(get(sheet, "weights_files.files")), 1);
    json_decref(payload);
    json_decref(sheet);
    remove_dir();
}
END_TEST

START_TEST(single_dtype_bits_and_sha256)
{
    json_t *sheet = vs_sheet_new("w"), *payload = NULL;
    vs_error err;
    tspec t[2] = {{"a.weight", "F16", 2, 10, 4}, {"b.weight", "F16", 2, 3, 0}};
    unsigned char digest[crypto_hash_sha256_BYTES], *bytes;
    char hex[65];
    size_t size;
    FILE *f;
    make_dir();
    size = write_st("one.safetensors", t, 2);
    ck_assert_int_eq(vs_model_apply_weights_files(sheet, at("one.safetensors"), 1, &payload, &err),
                     0);
    ck_assert_int_eq(iget(payload, "bits"), 16);
    ck_assert(json_is_null(get(payload, "params_config"))); /* no config read */
    ck_assert_int_eq(iget(payload, "bytes"), 86);
    ck_assert_int_eq(iget(payload, "params"), 43);
    ck_assert_uint_eq(json_array_size(get(payload, "other_dtype")), 0);
    /* the digest, computed here in one shot over the whole file */
    bytes = malloc(size);
    f = fopen(at("one.safetensors"), "rb");
    ck_assert_uint_eq(fread(bytes, 1, size, f), size);
    fclose(f);
    ck_assert_int_ge(sodium_init(), 0);
    crypto_hash_sha256(digest, bytes, size);
    sodium_bin2hex(hex, sizeof hex, digest, sizeof digest);
    ck_assert_str_eq(
        json_string_value(get(json_array_get(get(sheet, "weights_files.files"), 0), "sha256")),
        hex);
    free(bytes);
    json_decref(payload);
    json_decref(sheet);
    remove_dir();
}
END_TEST

/* Three shards (embeddings; layers 0-1; layer 2 and the head) and their index. */
static void write_sharded(size_t sizes[3])
{
    tspec t[64];
    vs_buf idx = VS_BUF_INIT;
    const char *shard[3] = {"model-00001-of-00003.safetensors", "model-00002-of-00003.safetensors",
                            "model-00003-of-00003.safetensors"};
    size_t n, i, k;
    int first = 1;
    vs_buf_puts(&idx, "{\"metadata\": {\"total_size\": 0}, \"weight_map\": {");
    for (k = 0; k < 3; k++) {
        n = k == 0   ? llama_tensors(t, 0, 0, 1, 0)
            : k == 1 ? llama_tensors(t, 0, 2, 0, 0)
                     : llama_tensors(t, 2, 3, 0, 1);
        sizes[k] = write_st(shard[k], t, n);
        for (i = 0; i < n; i++) {
            vs_buf_printf(&idx, "%s\"%s\": \"%s\"", first ? "" : ", ", t[i].name, shard[k]);
            first = 0;
        }
    }
    vs_buf_puts(&idx, "}}");
    write_text("model.safetensors.index.json", vs_buf_str(&idx));
    vs_buf_free(&idx);
}

START_TEST(weights_from_an_index)
{
    json_t *sheet = vs_sheet_new("w"), *payload = NULL, *files, *other;
    vs_error err;
    size_t sizes[3];
    long long cfg_params;
    make_dir();
    write_text("config.json", tiny_llama_config);
    ck_assert_int_eq(vs_model_apply_config(sheet, at("config.json"), NULL, &err), 0);
    cfg_params = iget(sheet, "card.params");
    write_sharded(sizes);
    ck_assert_int_eq(
        vs_model_apply_weights_files(sheet, at("model.safetensors.index.json"), 0, &payload, &err),
        0);
    ck_assert_int_eq(iget(payload, "params"), cfg_params);
    ck_assert_int_eq(iget(payload, "bytes"), (cfg_params - 7 * 32) * 2 + 7 * 32 * 4);
    ck_assert_int_eq(iget(sheet, "weights_files.params"), cfg_params);
    files = get(sheet, "weights_files.files");
    ck_assert_uint_eq(json_array_size(files), 3);
    ck_assert_str_eq(json_string_value(get(json_array_get(files, 1), "name")),
                     "model-00002-of-00003.safetensors");
    ck_assert_int_eq(iget(json_array_get(files, 0), "size"), (long long)sizes[0]);
    ck_assert_int_eq(iget(json_array_get(files, 1), "size"), (long long)sizes[1]);
    ck_assert_int_eq(iget(json_array_get(files, 2), "size"), (long long)sizes[2]);
    other = get(sheet, "weights_files.other_dtype");
    ck_assert_int_eq(iget(json_array_get(other, 0), "tensors"), 3); /* across shards */
    json_decref(payload);

    /* a folder stands for the index inside it */
    ck_assert_int_eq(vs_model_apply_weights_files(sheet, dir, 0, &payload, &err), 0);
    ck_assert_int_eq(iget(payload, "params"), cfg_params);
    ck_assert_str_eq(json_string_value(get(sheet, "weights_files.path")), dir);
    json_decref(payload);
    json_decref(sheet);
    remove_dir();
}
END_TEST

START_TEST(weights_errors_leave_the_sheet)
{
    json_t *sheet = vs_sheet_new("w"), *before, *payload = NULL;
    vs_error err;
    size_t sizes[3];
    tspec t[64];
    size_t n;
    const char *idx = "model.safetensors.index.json";
    make_dir();
    write_sharded(sizes);
    ck_assert_int_eq(vs_model_apply_weights_files(sheet, at(idx), 0, NULL, &err), 0);
    before = json_deep_copy(sheet);

    /* a missing shard, named */
    ck_assert_int_eq(rename(at("model-00002-of-00003.safetensors"), at("moved")), 0);
    expect_unchanged(sheet, vs_model_apply_weights_files(sheet, at(idx), 0, &payload, &err),
                     VS_EFORMAT, &err, "model-00002-of-00003.safetensors", before);
    ck_assert_ptr_nonnull(strstr(err.message, "missing"));
    ck_assert_ptr_null(payload);
    ck_assert_int_eq(rename(at("moved"), at("model-00002-of-00003.safetensors")), 0);

    /* a corrupt shard: its name and the tensor */
    n = llama_tensors(t, 0, 2, 0, 0);
    write_st("model-00002-of-00003.safetensors", t, n);
    {
        FILE *f = fopen(at("model-00002-of-00003.safetensors"), "r+b");
        fseek(f, 0, SEEK_END);
        ck_assert_int_eq(ftruncate(fileno(f), ftell(f) - 3), 0);
        fclose(f);
    }
    expect_unchanged(sheet, vs_model_apply_weights_files(sheet, at(idx), 0, NULL, &err), VS_EFORMAT,
                     &err, "model-00002-of-00003.safetensors", before);
    ck_assert_ptr_nonnull(strstr(err.message, "model.layers.1."));
    write_sharded(sizes);

    /* an index naming a tensor its shard does not have */
    write_text(idx, "{\"weight_map\": {\"model.embed_tokens.weight\": "
                    "\"model-00002-of-00003.safetensors\", \"model.layers.0.mlp.up_proj.weight\": "
                    "\"model-00002-of-00003.safetensors\"}}");
    expect_unchanged(sheet, vs_model_apply_weights_files(sheet, at(idx), 0, NULL, &err), VS_EFORMAT,
                     &err, "model.embed_tokens.weight", before);
    /* a tensor stored in two shards */
    n = llama_tensors(t, 0, 1, 1, 0);
    write_st("dup.safetensors", t, n);
    write_text(idx, "{\"weight_map\": {\"model.embed_tokens.weight\": "
                    "\"model-00001-of-00003.safetensors\", \"model.layers.0.mlp.up_proj.weight\": "
                    "\"dup.safetensors\"}}");
    expect_unchanged(sheet, vs_model_apply_weights_files(sheet, at(idx), 0, NULL, &err), VS_EFORMAT,
                     &err, "two shards", before);
    /* shard names that leave the folder */
    write_text(idx, "{\"weight_map\": {\"a\": \"../model-00001-of-00003.safetensors\"}}");
    expect_unchanged(sheet, vs_model_apply_weights_files(sheet, at(idx), 0, NULL, &err), VS_EFORMAT,
                     &err, "beside the index", before);
    write_text(idx, "{\"weight_map\": {\"a\": 3}}");
    expect_unchanged(sheet, vs_model_apply_weights_files(sheet, at(idx), 0, NULL, &err), VS_EFORMAT,
                     &err, "'a'", before);
    /* an index that is not one */
    write_text(idx, "{\"weight_map\": ");
    expect_unchanged(sheet, vs_model_apply_weights_files(sheet, at(idx), 0, NULL, &err), VS_EFORMAT,
                     &err, "not JSON", before);
    write_text(idx, "{\"metadata\": {}}");
    expect_unchanged(sheet, vs_model_apply_weights_files(sheet, at(idx), 0, NULL, &err), VS_EFORMAT,
                     &err, "weight_map", before);
    /* single files: missing, not safetensors, empty of tensors */
    expect_unchanged(sheet,
                     vs_model_apply_weights_files(sheet, at("none.safetensors"), 0, NULL, &err),
                     VS_EIO, &err, "none.safetensors", before);
    write_text("text.safetensors", "this is not a safetensors file at all");
    expect_unchanged(sheet,
                     vs_model_apply_weights_files(sheet, at("text.safetensors"), 0, NULL, &err),
                     VS_EFORMAT, &err, "text.safetensors", before);
    write_st("empty.safetensors", t, 0);
    expect_unchanged(sheet,
                     vs_model_apply_weights_files(sheet, at("empty.safetensors"), 0, NULL, &err),
                     VS_EFORMAT, &err, "no tensors", before);
    /* a folder with neither file */
    ck_assert_int_eq(mkdir(at("sub"), 0700), 0);
    expect_unchanged(sheet, vs_model_apply_weights_files(sheet, at("sub"), 0, NULL, &err), VS_EIO,
                     &err, "name the file", before);
    json_decref(before);
    json_decref(sheet);
    remove_dir();
}
END_TEST

/* A FIFO with no writer blocked open() forever; a device never ends. Both are
 * refused at once, naming the file and what it is. */
START_TEST(not_regular_files_are_refused)
{
    json_t *sheet = vs_sheet_new("f"), *before = json_deep_copy(sheet);
    vs_error err;
    make_dir();
    ck_assert_int_eq(mkfifo(at("fifo"), 0600), 0);
    expect_unchanged(sheet, vs_model_apply_config(sheet, at("fifo"), NULL, &err), VS_EIO, &err,
                     "is a FIFO, not a regular file", before);
    ck_assert_ptr_nonnull(strstr(err.message, at("fifo")));
    expect_unchanged(sheet, vs_model_apply_weights_files(sheet, at("fifo"), 0, NULL, &err), VS_EIO,
                     &err, "is a FIFO, not a regular file", before);
    expect_unchanged(sheet, vs_model_apply_config(sheet, "/dev/zero", NULL, &err), VS_EIO, &err,
                     "character device", before);
    expect_unchanged(sheet, vs_model_apply_weights_files(sheet, "/dev/zero", 0, NULL, &err), VS_EIO,
                     &err, "character device", before);
    json_decref(before);
    json_decref(sheet);
    remove_dir();
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("model");
    TCase *tc = tcase_create("apply");
    tcase_add_test(tc, config_fills_the_card);
    tcase_add_test(tc, config_errors_leave_the_sheet);
    tcase_add_test(tc, weights_from_one_file);
    tcase_add_test(tc, single_dtype_bits_and_sha256);
    tcase_add_test(tc, weights_from_an_index);
    tcase_add_test(tc, weights_errors_leave_the_sheet);
    tcase_add_test(tc, not_regular_files_are_refused);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return vs_check_run(suite());
}
