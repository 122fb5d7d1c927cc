/* The local Hugging Face cache: a fake hub tree built here as huggingface_hub
 * lays it out (refs/<branch or tag> holding the commit, snapshots/<commit>/
 * whose files are symlinks into ../../blobs/), then `model ORG/NAME` by main
 * and by a tag, the revision recorded, `weights` without from= (safetensors
 * index, GGUF), each missing-file message, and quantised safetensors
 * checkpoints (GPTQ, AWQ, FP8, MXFP4, NVFP4, bitsandbytes) counted from their
 * stored tensors with quantization_config named; a FIFO, a folder or a
 * symlink loop where a ref or config.json should be, refused by name. */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lang/interp.h"
#include "model/hfcache.h"
#include "render/bundle.h"

#include "check_run.h"
#include "results.h"
#include "test_tmp.h"

static vs_interp *ip;
static json_t *bundles;
static vs_error err;
static char hub[256];

#define C1 "1111111111111111111111111111111111111111"
#define C2 "2222222222222222222222222222222222222222"
#define C3 "3333333333333333333333333333333333333333"

static void on_display(void *ctx, const vs_bundle *bundle, const char *id, int update)
{
    (void)ctx;
    (void)id;
    (void)update;
    json_array_append_new(bundles, vs_test_bundle_json(bundle));
}

static int run(const char *code)
{
    vs_sink sink;
    json_t *result = NULL;
    int rc;
    memset(&sink, 0, sizeof sink);
    sink.display = on_display;
    json_array_clear(bundles);
    vs_error_clear(&err);
    rc = vs_test_execute(ip, code, &sink, &result, &err);
    if (result)
        json_array_append_new(bundles, result);
    return rc;
}

static json_t *lastp(void)
{
    return json_object_get(json_array_get(bundles, json_array_size(bundles) - 1), VS_MIME_JSON);
}

static void run_ok(const char *code)
{
    int rc = run(code);
    ck_assert_msg(rc == 0, "cell failed (%d): %s\n--\n%s", rc, err.message, code);
}

static void sh(const char *fmt, const char *a)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, fmt, a);
    ck_assert_msg(system(cmd) == 0, "%s", cmd);
}

static void write_file(const char *path, const void *data, size_t n, uint64_t hole)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, data, n), (ssize_t)n);
    if (hole)
        ck_assert_int_eq(ftruncate(fd, (off_t)(n + hole)), 0);
    close(fd);
}

/* A safetensors file from a header text whose data area is `data` bytes. */
static void safetensors(const char *path, const char *header, uint64_t data)
{
    size_t h = strlen(header), i;
    unsigned char *b = malloc(8 + h);
    for (i = 0; i < 8; i++)
        b[i] = (unsigned char)(((uint64_t)h >> (8 * i)) & 0xff);
    memcpy(b + 8, header, h);
    write_file(path, b, 8 + h, data);
    free(b);
}

/* A blob in the repository and its link in a snapshot. */
static void blob(const char *repo, const char *commit, const char *name, const char *blobname)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "mkdir -p %s/%s/snapshots/%s && ln -sf ../../blobs/%s %s/%s/snapshots/%s/%s", hub,
             repo, commit, blobname, hub, repo, commit, name);
    ck_assert_int_eq(system(cmd), 0);
}

static char *blobpath(const char *repo, const char *blobname)
{
    static char p[1024];
    snprintf(p, sizeof p, "%s/%s/blobs/%s", hub, repo, blobname);
    return p;
}

static const char *cfg_llama =
    "{\"architectures\":[\"LlamaForCausalLM\"],\"model_type\":\"llama\",\"hidden_size\":64,"
    "\"intermediate_size\":128,\"num_attention_heads\":4,\"num_hidden_layers\":2,"
    "\"num_key_value_heads\":2,\"vocab_size\":256,\"tie_word_embeddings\":false}";

/* The repository: main -> C1 (config + a 2-shard index), tag v1.0 -> C2
 * (config + one GGUF file), C3 has only a config. */
static void setup(void)
{
    const char *repo = "models--acme--tiny";
    char d[512];
    size_t i;
    vs_test_tmp(hub, sizeof hub, "vs-hf-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(hub));
    setenv("HF_HUB_CACHE", hub, 1);
    snprintf(d, sizeof d, "%s/%s", hub, repo);
    {
        char cmd[1200];
        snprintf(cmd, sizeof cmd, "mkdir -p %s/refs %s/blobs", d, d);
        ck_assert_int_eq(system(cmd), 0);
    }
    snprintf(d, sizeof d, "%s/%s/refs/main", hub, repo);
    write_file(d, C1 "\n", 41, 0);
    snprintf(d, sizeof d, "%s/%s/refs/v1.0", hub, repo);
    write_file(d, C2, 40, 0);
    snprintf(d, sizeof d, "%s/%s/blobs", hub, repo);
    write_file(blobpath(repo, "cfg"), cfg_llama, strlen(cfg_llama), 0);
    {
        const char *ix = "{\"metadata\":{},\"weight_map\":{\"a.weight\":\"model-00001-of-00002."
                         "safetensors\",\"b.weight\":\"model-00002-of-00002.safetensors\"}}";
        write_file(blobpath(repo, "ix"), ix, strlen(ix), 0);
    }
    /* shard 1: a.weight BF16 [64, 64] = 8192 bytes; shard 2: b.weight F32 [64] */
    safetensors(blobpath(repo, "s1"),
                "{\"a.weight\":{\"dtype\":\"BF16\",\"shape\":[64,64],\"data_offsets\":[0,8192]}}",
                8192);
    safetensors(blobpath(repo, "s2"),
                "{\"b.weight\":{\"dtype\":\"F32\",\"shape\":[64],\"data_offsets\":[0,256]}}", 256);
    blob(repo, C1, "config.json", "cfg");
    blob(repo, C1, "model.safetensors.index.json", "ix");
    blob(repo, C1, "model-00001-of-00002.safetensors", "s1");
    blob(repo, C1, "model-00002-of-00002.safetensors", "s2");
    /* C2: a GGUF with one F16 tensor of 32 x 4 (256 bytes) */
    {
        unsigned char hdr[256];
        size_t n = 0;
#define P32(v)                                                                                     \
    do {                                                                                           \
        uint32_t x_ = (v);                                                                         \
        for (i = 0; i < 4; i++)                                                                    \
            hdr[n++] = (unsigned char)(x_ >> (8 * i));                                             \
    } while (0)
#define P64(v)                                                                                     \
    do {                                                                                           \
        uint64_t x_ = (v);                                                                         \
        for (i = 0; i < 8; i++)                                                                    \
            hdr[n++] = (unsigned char)(x_ >> (8 * i));                                             \
    } while (0)
        memcpy(hdr, "GGUF", 4);
        n = 4;
        P32(3);
        P64(1);
        P64(0);
        P64(8);
        memcpy(hdr + n, "t.weight", 8);
        n += 8;
        P32(2);
        P64(32);
        P64(4);
        P32(1);
        P64(0);
        while (n % 32)
            hdr[n++] = 0;
        write_file(blobpath(repo, "gg"), hdr, n, 256);
#undef P32
#undef P64
    }
    blob(repo, C2, "config.json", "cfg");
    blob(repo, C2, "tiny-F16.gguf", "gg");
    blob(repo, C3, "config.json", "cfg");
    /* a GGUF repository: no config.json, one .gguf file */
    {
        char cmd[2048];
        snprintf(cmd, sizeof cmd,
                 "mkdir -p %s/models--acme--tiny-GGUF/refs %s/models--acme--tiny-GGUF/blobs && "
                 "printf %s > %s/models--acme--tiny-GGUF/refs/main && "
                 "cp %s/%s/blobs/gg %s/models--acme--tiny-GGUF/blobs/gg",
                 hub, hub, C3, hub, hub, repo, hub);
        ck_assert_int_eq(system(cmd), 0);
    }
    blob("models--acme--tiny-GGUF", C3, "tiny-Q8_0.gguf", "gg");
    ip = vs_interp_new(NULL);
    bundles = json_array();
}

static void teardown(void)
{
    vs_interp_free(ip);
    json_decref(bundles);
    sh("rm -rf %s", hub);
}

static const char *card_rev(void)
{
    return json_string_value(json_object_get(json_object_get(lastp(), "card"), "revision"));
}

START_TEST(by_main_and_by_tag)
{
    json_t *p;
    run_ok("model acme/tiny");
    ck_assert_str_eq(card_rev(), C1);
    p = lastp();
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(p, "hf_cache"), "commit")),
                     C1);
    /* the config's shapes: 2 layers of hidden 64 */
    ck_assert_int_eq(json_integer_value(json_object_get(
                         json_object_get(json_object_get(p, "card"), "arch"), "layers")),
                     2);
    run_ok("model acme/tiny revision=v1.0");
    ck_assert_str_eq(card_rev(), C2);
    run_ok("model acme/tiny revision=" C3);
    ck_assert_str_eq(card_rev(), C3);
}
END_TEST

/* vs_hfcache_find on a snapshot struct full of junk (the callers no longer
 * zero it): found, each field is the path built from the hub folder; not
 * found, or not a repository id, the texts past what was found are empty. */
START_TEST(find_writes_every_field)
{
    vs_hf_snapshot *s = malloc(sizeof *s);
    char want[600];
    vs_error e;
    ck_assert_ptr_nonnull(s);
    memset(s, 'x', sizeof *s);
    ck_assert_int_eq(vs_hfcache_find(s, "acme/tiny", "v1.0", &e), 0);
    ck_assert_str_eq(s->hub, hub);
    snprintf(want, sizeof want, "%s/models--acme--tiny", hub);
    ck_assert_str_eq(s->repo_dir, want);
    snprintf(want, sizeof want, "%s/models--acme--tiny/snapshots/" C2, hub);
    ck_assert_str_eq(s->path, want);
    ck_assert_str_eq(s->commit, C2);
    ck_assert_str_eq(s->ref, "v1.0");
    memset(s, 'x', sizeof *s);
    ck_assert_int_eq(vs_hfcache_find(s, "acme/absent", NULL, &e), VS_ENOTFOUND);
    ck_assert_str_eq(s->commit, "");
    ck_assert_str_eq(s->path, "");
    memset(s, 'x', sizeof *s);
    ck_assert_int_eq(vs_hfcache_find(s, "no-slash", NULL, &e), VS_EVALUE);
    ck_assert_str_eq(s->hub, "");
    ck_assert_str_eq(s->repo_dir, "");
    ck_assert_str_eq(s->path, "");
    ck_assert_str_eq(s->commit, "");
    ck_assert_str_eq(s->ref, "");
    free(s);
}
END_TEST

START_TEST(weights_without_from)
{
    json_t *p;
    run_ok("model acme/tiny\nweights");
    p = lastp();
    ck_assert_str_eq(json_string_value(json_object_get(p, "kind")), "weights");
    ck_assert_str_eq(json_string_value(json_object_get(p, "format")), "safetensors");
    ck_assert_int_eq(json_integer_value(json_object_get(p, "bytes")), 8192 + 256);
    ck_assert_uint_eq(json_array_size(json_object_get(p, "files")), 2);
    /* the tag's snapshot holds a GGUF file */
    run_ok("model acme/tiny revision=v1.0\nweights");
    p = lastp();
    ck_assert_str_eq(json_string_value(json_object_get(p, "format")), "gguf");
    ck_assert_int_eq(json_integer_value(json_object_get(p, "bytes")), 256);
    ck_assert_int_eq(json_integer_value(json_object_get(p, "params")), 128);
    /* a GGUF repository has no config.json: the revision is still the commit,
     * and `weights` reads the GGUF headers */
    run_ok("model acme/tiny-GGUF");
    ck_assert_str_eq(card_rev(), C3);
    ck_assert_str_eq(
        json_string_value(json_object_get(json_object_get(lastp(), "hf_cache"), "commit")), C3);
    ck_assert(json_is_null(json_object_get(json_object_get(lastp(), "hf_cache"), "config")));
    ck_assert(strstr(json_string_value(json_array_get(json_object_get(lastp(), "notes"), 0)),
                     "holds GGUF files"));
    run_ok("weights");
    p = lastp();
    ck_assert_str_eq(json_string_value(json_object_get(p, "format")), "gguf");
    ck_assert_int_eq(json_integer_value(json_object_get(p, "bytes")), 256);
    /* config only: says what to fetch and where */
    ck_assert_int_eq(run("model acme/tiny revision=" C3 "\nweights"), VS_ENOTFOUND);
    ck_assert_msg(strstr(err.message, "huggingface-cli download acme/tiny "
                                      "model.safetensors.index.json --revision " C3),
                  "%s", err.message);
    ck_assert_msg(strstr(err.message, "snapshots/" C3), "%s", err.message);
}
END_TEST

START_TEST(missing_messages)
{
    char p[600];
    json_t *notes;
    /* a model not in the cache: a note with the command and the place */
    run_ok("model acme/absent");
    notes = json_object_get(lastp(), "notes");
    ck_assert_msg(strstr(json_string_value(json_array_get(notes, 0)),
                         "huggingface-cli download acme/absent config.json "
                         "model.safetensors.index.json"),
                  "%s", json_string_value(json_array_get(notes, 0)));
    ck_assert(strstr(json_string_value(json_array_get(notes, 0)), "models--acme--absent"));
    ck_assert_ptr_null(card_rev());
    /* a ref that is not there */
    run_ok("model acme/tiny revision=v9");
    ck_assert(strstr(json_string_value(json_array_get(json_object_get(lastp(), "notes"), 0)),
                     "no ref 'v9'"));
    ck_assert(strstr(json_string_value(json_array_get(json_object_get(lastp(), "notes"), 0)),
                     "--revision v9"));
    /* a commit without a snapshot */
    run_ok("model acme/tiny revision=4444444444444444444444444444444444444444");
    ck_assert(strstr(json_string_value(json_array_get(json_object_get(lastp(), "notes"), 0)),
                     "has no snapshot"));
    /* a config that is a link to a missing blob */
    snprintf(p, sizeof p, "%s/models--acme--tiny/blobs/cfg", hub);
    unlink(p);
    run_ok("model acme/tiny");
    ck_assert(strstr(json_string_value(json_array_get(json_object_get(lastp(), "notes"), 0)),
                     "huggingface-cli download acme/tiny config.json --revision " C1));
    ck_assert(strstr(json_string_value(json_array_get(json_object_get(lastp(), "notes"), 0)),
                     "missing blob"));
    /* a shard missing from the snapshot */
    write_file(p, cfg_llama, strlen(cfg_llama), 0);
    snprintf(p, sizeof p, "%s/models--acme--tiny/snapshots/" C1 "/model-00002-of-00002.safetensors",
             hub);
    unlink(p);
    ck_assert_int_eq(run("model acme/tiny\nweights"), VS_ENOTFOUND);
    ck_assert_msg(strstr(err.message, "1 of the 2 shards"), "%s", err.message);
    ck_assert_msg(strstr(err.message, "huggingface-cli download acme/tiny "
                                      "model-00002-of-00002.safetensors --revision " C1),
                  "%s", err.message);
    /* a ref that does not hold a commit is malformed, not missing */
    snprintf(p, sizeof p, "%s/models--acme--tiny/refs/bad", hub);
    write_file(p, "nope", 4, 0);
    ck_assert_int_eq(run("model acme/tiny revision=bad"), VS_EFORMAT);
}
END_TEST

START_TEST(env_resolution)
{
    char out[4096];
    unsetenv("HF_HUB_CACHE");
    setenv("HF_HOME", "/x/hf", 1);
    ck_assert_int_eq(vs_hfcache_hub_dir(out, sizeof out, &err), 0);
    ck_assert_str_eq(out, "/x/hf/hub");
    unsetenv("HF_HOME");
    setenv("HOME", "/home/u", 1);
    ck_assert_int_eq(vs_hfcache_hub_dir(out, sizeof out, &err), 0);
    ck_assert_str_eq(out, "/home/u/.cache/huggingface/hub");
    setenv("HF_HUB_CACHE", hub, 1);
    ck_assert(vs_hfcache_is_repo_id("Qwen/Qwen3-8B"));
    ck_assert(!vs_hfcache_is_repo_id("llama-7b"));
    ck_assert(!vs_hfcache_is_repo_id("a/../b"));
    ck_assert(!vs_hfcache_is_repo_id("a/b/c"));
}
END_TEST

/* Quantised checkpoints: the stored tensors as they are (packed integers,
 * scales, zeros), and the config's quantization_config named. */
START_TEST(quantised_safetensors)
{
    static const struct {
        const char *method, *header;
        uint64_t bytes;
    } q[] = {
        /* GPTQ 4-bit, group 128: qweight I32 [in/8, out], scales F16 [in/128, out], qzeros
         * I32 [in/128, out/8], g_idx I32 [in] for in = out = 256 */
        {"gptq",
         "{\"l.qweight\":{\"dtype\":\"I32\",\"shape\":[32,256],\"data_offsets\":[0,32768]},"
         "\"l.scales\":{\"dtype\":\"F16\",\"shape\":[2,256],\"data_offsets\":[32768,33792]},"
         "\"l.qzeros\":{\"dtype\":\"I32\",\"shape\":[2,32],\"data_offsets\":[33792,34048]},"
         "\"l.g_idx\":{\"dtype\":\"I32\",\"shape\":[256],\"data_offsets\":[34048,35072]}}",
         32768 + 1024 + 256 + 1024},
        /* AWQ: qweight I32 [in, out/8], qzeros I32, scales F16 */
        {"awq",
         "{\"l.qweight\":{\"dtype\":\"I32\",\"shape\":[256,32],\"data_offsets\":[0,32768]},"
         "\"l.qzeros\":{\"dtype\":\"I32\",\"shape\":[2,32],\"data_offsets\":[32768,33024]},"
         "\"l.scales\":{\"dtype\":\"F16\",\"shape\":[2,256],\"data_offsets\":[33024,34048]}}",
         32768 + 256 + 1024},
        /* FP8 with block scales (DeepSeek-V3 style): F8_E4M3 weight, F32 scale_inv */
        {"fp8",
         "{\"l.weight\":{\"dtype\":\"F8_E4M3\",\"shape\":[256,256],\"data_offsets\":[0,65536]},"
         "\"l.weight_scale_inv\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[65536,"
         "65552]}}",
         65536 + 16},
        /* MXFP4 (gpt-oss): U8 blocks of 16 bytes per 32 values, U8 E8M0 scales */
        {"mxfp4",
         "{\"e.gate_up_proj_blocks\":{\"dtype\":\"U8\",\"shape\":[2,256,8,16],\"data_offsets\":[0,"
         "65536]},\"e.gate_up_proj_scales\":{\"dtype\":\"U8\",\"shape\":[2,256,8],"
         "\"data_offsets\":[65536,69632]}}",
         65536 + 4096},
        /* NVFP4 (ModelOpt): U8 packed pairs, F8_E4M3 scales per 16, F32 global scale */
        {"modelopt",
         "{\"l.weight\":{\"dtype\":\"U8\",\"shape\":[256,128],\"data_offsets\":[0,32768]},"
         "\"l.weight_scale\":{\"dtype\":\"F8_E4M3\",\"shape\":[256,16],\"data_offsets\":[32768,"
         "36864]},\"l.weight_scale_2\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[36864,"
         "36868]}}",
         32768 + 4096 + 4},
        /* bitsandbytes nf4: U8 packed weight, F32 absmax, quant_map, the state as U8 */
        {"bitsandbytes",
         "{\"l.weight\":{\"dtype\":\"U8\",\"shape\":[32768,1],\"data_offsets\":[0,32768]},"
         "\"l.weight.absmax\":{\"dtype\":\"F32\",\"shape\":[1024],\"data_offsets\":[32768,36864]},"
         "\"l.weight.quant_map\":{\"dtype\":\"F32\",\"shape\":[16],\"data_offsets\":[36864,"
         "36928]},\"l.weight.quant_state.bitsandbytes__nf4\":{\"dtype\":\"U8\",\"shape\":[100],"
         "\"data_offsets\":[36928,37028]}}",
         32768 + 4096 + 64 + 100},
    };
    char dir[512], path[600], cfg[300], cell[700];
    size_t i;
    for (i = 0; i < sizeof q / sizeof q[0]; i++) {
        json_t *p;
        snprintf(dir, sizeof dir, "%s/q%zu", hub, i);
        sh("mkdir -p %s", dir);
        snprintf(path, sizeof path, "%s/model.safetensors", dir);
        safetensors(path, q[i].header, q[i].bytes);
        snprintf(path, sizeof path, "%s/config.json", dir);
        snprintf(cfg, sizeof cfg, "{\"quantization_config\":{\"quant_method\":\"%s\",\"bits\":4}}",
                 q[i].method);
        write_file(path, cfg, strlen(cfg), 0);
        snprintf(cell, sizeof cell, "model q%zu\nweights from=%s", i, dir);
        run_ok(cell);
        p = lastp();
        ck_assert_int_eq(json_integer_value(json_object_get(p, "bytes")), (json_int_t)q[i].bytes);
        ck_assert_str_eq(json_string_value(json_object_get(p, "quant_method")), q[i].method);
        ck_assert_int_eq(
            json_integer_value(json_object_get(json_object_get(p, "quantization_config"), "bits")),
            4);
    }
}
END_TEST

/* `formats` with GGUF types and llama.cpp file types over the config's
 * architecture (2 layers, hidden 64, 4 heads, 2 KV heads, intermediate 128,
 * vocab 256: rows of 64 and 128 values are not whole Q4_K/Q6_K blocks of
 * 256, so llama.cpp falls back to Q5_0 and Q8_0) */
START_TEST(formats_rows)
{
    json_t *rows, *r;
    run_ok("model acme/tiny\nformats q4_k_m q4_k q8_0 bf16");
    rows = json_object_get(lastp(), "rows");
    ck_assert_uint_eq(json_array_size(rows), 4);
    r = json_array_get(rows, 0);
    /* by hand: token_embd Q5_0 11264 + output Q8_0 17408 + output_norm 256;
     * layer 0: norms 512, q 2816, k 1408, v Q5_0 1408, o 2816, gate/up 2 x 5632,
     * down Q5_0 5632; layer 1 (use_more_bits): v Q6_K->Q8_0 2176, down Q6_K->Q8_0 8704 */
    ck_assert_int_eq(json_integer_value(json_object_get(r, "weights_bytes")),
                     11264 + 17408 + 256 + (512 + 2816 + 1408 + 1408 + 2816 + 3 * 5632) +
                         (512 + 2816 + 1408 + 2176 + 2816 + 2 * 5632 + 8704));
    ck_assert_ptr_nonnull(json_string_value(json_object_get(r, "basis")));
    ck_assert(!json_is_true(json_object_get(r, "quantized")));
    r = json_array_get(rows, 1);
    ck_assert_str_eq(json_string_value(json_object_get(r, "bits_per_weight")), "4.5");
    /* the config's parameter count x 144 / 256, rounded up */
    {
        long long params = json_integer_value(json_object_get(lastp(), "params"));
        ck_assert_int_eq(json_integer_value(json_object_get(r, "weights_bytes")),
                         (params * 144 + 255) / 256);
    }
    r = json_array_get(rows, 2);
    ck_assert_str_eq(json_string_value(json_object_get(r, "format")), "q8_0");
    ck_assert_ptr_nonnull(json_string_value(json_object_get(r, "basis"))); /* the file type */
    /* a file type without an architecture */
    run_ok("model other params=1B");
    ck_assert_int_eq(run("formats q4_k_m"), VS_EVALUE);
    ck_assert_msg(strstr(err.message, "architecture"), "%s", err.message);
    run_ok("formats q4_k q6_k");
    ck_assert_str_eq(json_string_value(json_object_get(
                         json_array_get(json_object_get(lastp(), "rows"), 1), "bits_per_weight")),
                     "6.5625");
}
END_TEST

START_TEST(not_a_file_in_the_cache)
{
    const char *snap = "models--acme--tiny/snapshots/" C1;
    char p[600], q[600];
    /* refs/main a FIFO with no writer: reading it would block until one came
     * (Check's per-test timeout bounds this test); refused, named */
    snprintf(p, sizeof p, "%s/models--acme--tiny/refs/main", hub);
    ck_assert_int_eq(unlink(p), 0);
    ck_assert_int_eq(mkfifo(p, 0644), 0);
    ck_assert_int_eq(run("model acme/tiny"), VS_EIO);
    ck_assert_msg(strstr(err.message, "refs/main") && strstr(err.message, "is a FIFO"), "%s",
                  err.message);
    /* refs/main a folder */
    ck_assert_int_eq(unlink(p), 0);
    ck_assert_int_eq(mkdir(p, 0755), 0);
    ck_assert_int_eq(run("model acme/tiny"), VS_EIO);
    ck_assert_msg(strstr(err.message, "is a folder"), "%s", err.message);
    ck_assert_int_eq(rmdir(p), 0);
    write_file(p, C1, 40, 0);
    run_ok("model acme/tiny");
    /* config.json a folder, a FIFO, a symlink loop: each named as what it is,
     * not "a link to a missing blob" */
    snprintf(p, sizeof p, "%s/%s/config.json", hub, snap);
    ck_assert_int_eq(unlink(p), 0);
    ck_assert_int_eq(mkdir(p, 0755), 0);
    ck_assert_int_eq(run("model acme/tiny"), VS_EIO);
    ck_assert_msg(strstr(err.message, "config.json in the snapshot is a folder"), "%s",
                  err.message);
    ck_assert_ptr_null(strstr(err.message, "missing blob"));
    ck_assert_int_eq(rmdir(p), 0);
    ck_assert_int_eq(mkfifo(p, 0644), 0);
    ck_assert_int_eq(run("model acme/tiny"), VS_EIO);
    ck_assert_msg(strstr(err.message, "is a FIFO"), "%s", err.message);
    ck_assert_int_eq(unlink(p), 0);
    snprintf(q, sizeof q, "%s/%s/loop", hub, snap);
    ck_assert_int_eq(symlink("loop", q), 0);
    ck_assert_int_eq(symlink("loop", p), 0);
    ck_assert_int_eq(run("model acme/tiny"), VS_EIO);
    ck_assert_msg(strstr(err.message, "is a symlink loop"), "%s", err.message);
    /* the link to its blob again: read as before */
    ck_assert_int_eq(unlink(p), 0);
    ck_assert_int_eq(symlink("../../blobs/cfg", p), 0);
    run_ok("model acme/tiny");
    ck_assert_str_eq(card_rev(), C1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("hfcache");
    TCase *tc = tcase_create("hfcache");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, by_main_and_by_tag);
    tcase_add_test(tc, find_writes_every_field);
    tcase_add_test(tc, weights_without_from);
    tcase_add_test(tc, missing_messages);
    tcase_add_test(tc, env_resolution);
    tcase_add_test(tc, quantised_safetensors);
    tcase_add_test(tc, formats_rows);
    tcase_add_test(tc, not_a_file_in_the_cache);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
