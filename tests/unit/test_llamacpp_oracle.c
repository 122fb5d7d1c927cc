/* vramsheet's llama.cpp figures against a real llama.cpp's: every line of
 * tests/data/llamacpp/fit_params.tsv (llama-fit-params at llama.cpp commit 0c1e570,
 * written by hand with tests/tools/llamacpp_oracle.py from the public configs of
 * tests/model/configs) is a model and an engine line; the KV cache `fit` gives for
 * it must be the sum of the caches llama.cpp printed, to their printed 0.01 MiB,
 * and its cells the cells llama.cpp allocated. The compute buffer estimate is
 * checked against the same runs within the error `help engine` states, and the
 * GPU's share of the weights against a published CUDA0 model buffer, at the tensor
 * types llama-quantize chose (the same tool's --dry-run). */
#include <check.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

#define MIB 1048576.0

typedef struct ocase {
    char config[128], keys[256], args[256], caches[128];
    double kv_mib, compute_mib;
} ocase;

/* The cases of one TSV of tests/data/llamacpp; *n of them. */
static ocase *read_file_cases(const char *file, size_t *n)
{
    char path[512], line[1024];
    FILE *f;
    ocase *c = NULL;
    size_t cap = 0;
    snprintf(path, sizeof path, "%s/%s", VS_LLAMACPP_DATA, file);
    f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    *n = 0;
    while (fgets(line, sizeof line, f)) {
        char *col[7], *p = line;
        size_t k = 0;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        line[strcspn(line, "\n")] = '\0';
        while (k < 7 && p) {
            col[k++] = p;
            p = strchr(p, '\t');
            if (p)
                *p++ = '\0';
        }
        ck_assert_msg(k == 7, "a line of %zu columns", k);
        if (*n == cap) {
            cap = cap ? cap * 2 : 64;
            c = realloc(c, cap * sizeof *c);
            ck_assert_ptr_nonnull(c);
        }
        snprintf(c[*n].config, sizeof c[*n].config, "%s", col[0]);
        snprintf(c[*n].keys, sizeof c[*n].keys, "%s", col[1]);
        snprintf(c[*n].args, sizeof c[*n].args, "%s", col[2]);
        c[*n].kv_mib = atof(col[3]);
        snprintf(c[*n].caches, sizeof c[*n].caches, "%s", col[4]);
        c[*n].compute_mib = atof(col[5]);
        (*n)++;
    }
    fclose(f);
    return c;
}

static ocase *read_cases(size_t *n)
{
    return read_file_cases("fit_params.tsv", n);
}

static json_t *fit_row(void)
{
    json_t *p = lastp();
    ck_assert_str_eq(json_string_value(json_object_get(p, "kind")), "fit");
    return json_array_get(json_object_get(p, "rows"), 0);
}

/* The full cache's cells per stream x streams (the first cache llama.cpp printed;
 * -np streams). */
static long long full_cells(const ocase *c)
{
    long long cells = atoll(c->caches), np = 1;
    const char *p = strstr(c->args, "-np ");
    if (p)
        np = atoll(p + 4);
    return cells * np;
}

START_TEST(kv_as_llama_cpp_prints_it)
{
    size_t n = 0, i, worst = 0;
    ocase *c = read_cases(&n);
    ck_assert_uint_ge(n, 30);
    for (i = 0; i < n; i++) {
        char cell[1024];
        json_t *r;
        double mib;
        snprintf(cell, sizeof cell,
                 "sheet \"oracle %zu\"\nmodel m config=%s/%s\ntask inference\n"
                 "length 4096\nconcurrency 1\ngpu \"H100 SXM\"\nengine llamacpp %s\nfit",
                 i, VS_MODEL_CONFIGS, c[i].config, c[i].keys);
        run_ok(cell);
        r = fit_row();
        mib = (double)json_integer_value(json_object_get(r, "kv_need_bytes")) / MIB;
        /* llama.cpp prints each cache to 0.01 MiB ("%7.2f"): the sum is good to
         * 0.005 MiB per cache */
        ck_assert_msg(fabs(mib - c[i].kv_mib) < 0.011, "%s %s: vramsheet %.4f MiB, llama.cpp %.2f",
                      c[i].config, c[i].args, mib, c[i].kv_mib);
        ck_assert_msg(json_integer_value(json_object_get(r, "kv_tokens")) == full_cells(&c[i]),
                      "%s %s: %lld cells, llama.cpp %lld", c[i].config, c[i].args,
                      (long long)json_integer_value(json_object_get(r, "kv_tokens")),
                      full_cells(&c[i]));
        worst++;
    }
    ck_assert_uint_eq(worst, n);
    free(c);
}
END_TEST

/* Recurrent and hybrid models (tests/data/llamacpp/fit_params_hybrid.tsv: Jamba-v0.1's
 * Mamba-1, Qwen3-Next-80B's gated delta nets, Nemotron Nano 9B v2's Mamba-2): the attention cache
 * and the recurrent cells llama.cpp printed, summed, from the config's layout (its state group's
 * conv and SSM values, kept in F32, one row per sequence), and the attention cells. Only the KV is
 * checked: the compute buffer estimate has no rule for these architectures. */
START_TEST(hybrid_kv_as_llama_cpp_prints_it)
{
    size_t n = 0, i;
    ocase *c = read_file_cases("fit_params_hybrid.tsv", &n);
    ck_assert_uint_ge(n, 9);
    for (i = 0; i < n; i++) {
        char cell[1024];
        json_t *r;
        double mib;
        snprintf(cell, sizeof cell,
                 "sheet \"hybrid %zu\"\nmodel m config=%s/%s\ntask inference\n"
                 "length 4096\nconcurrency 1\ngpu \"H100 SXM\"\nengine llamacpp %s\nfit",
                 i, VS_MODEL_CONFIGS, c[i].config, c[i].keys);
        run_ok(cell);
        r = fit_row();
        mib = (double)json_integer_value(json_object_get(r, "kv_need_bytes")) / MIB;
        /* two caches, each printed to 0.005 MiB */
        ck_assert_msg(fabs(mib - c[i].kv_mib) < 0.011, "%s %s: vramsheet %.4f MiB, llama.cpp %.2f",
                      c[i].config, c[i].args, mib, c[i].kv_mib);
        ck_assert_msg(json_integer_value(json_object_get(r, "kv_tokens")) == full_cells(&c[i]),
                      "%s %s: %lld cells, llama.cpp %lld", c[i].config, c[i].args,
                      (long long)json_integer_value(json_object_get(r, "kv_tokens")),
                      full_cells(&c[i]));
    }
    free(c);
}
END_TEST

/* The compute buffer estimate (engine/llamacpp_compute.h) against the CPU compute
 * buffer llama-fit-params reserved: never below it, and above it by at most the
 * stated error. */
START_TEST(compute_within_stated_error)
{
    size_t n = 0, i;
    ocase *c = read_cases(&n);
    double lo = 1e9, hi = 0;
    for (i = 0; i < n; i++) {
        char cell[1024];
        json_t *comp;
        double mib, r;
        snprintf(cell, sizeof cell,
                 "sheet \"oracle c%zu\"\nmodel m config=%s/%s\ntask inference\n"
                 "length 4096\nconcurrency 1\nengine llamacpp %s\nestimate runtime\nengine",
                 i, VS_MODEL_CONFIGS, c[i].config, c[i].keys);
        run_ok(cell);
        comp = NULL;
        {
            /* `engine` alone lists the runtime items with their bytes */
            json_t *items = json_object_get(lastp(), "runtime_items"), *x;
            size_t j;
            json_array_foreach(items, j, x)
            {
                const char *nm = json_string_value(json_object_get(x, "name"));
                if (nm && !strcmp(nm, "activation_peak"))
                    comp = x;
            }
        }
        mib = (double)json_integer_value(json_object_get(comp, "bytes")) / MIB;
        r = mib / c[i].compute_mib;
        if (r < lo)
            lo = r;
        if (r > hi)
            hi = r;
        ck_assert_msg(r >= 1.0, "%s %s: under-estimated", c[i].config, c[i].args);
        /* the stated error: 1.22 times at most, 2.0 for DeepSeek (the card's intermediate
         * size is its dense layers', wider than its experts') */
        ck_assert_msg(r <= (strstr(c[i].config, "deepseek") ? 2.0 : 1.22), "%s %s: %.3f times",
                      c[i].config, c[i].args, r);
    }
    ck_assert(lo >= 1.0 && hi <= 2.0);
    free(c);
}
END_TEST

/* ggml's id, block and bytes per block of the types llama-quantize chose
 * (ggml/include/ggml.h, ggml-common.h) */
static void gtype(const char *name, uint32_t *id, uint64_t *block, uint64_t *bytes)
{
    static const struct {
        const char *name;
        uint32_t id;
        uint64_t block, bytes;
    } t[] = {{"f32", 0, 1, 4},       {"f16", 1, 1, 2},       {"q8_0", 8, 32, 34},
             {"q4_k", 12, 256, 144}, {"q5_k", 13, 256, 176}, {"q6_k", 14, 256, 210}};
    size_t i;
    for (i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(t[i].name, name)) {
            *id = t[i].id;
            *block = t[i].block;
            *bytes = t[i].bytes;
            return;
        }
    ck_abort_msg("type %s", name);
}

/* DeepSeek-R1-Distill-Qwen-32B Q4_K_M: the tensor types llama-quantize --dry-run chose
 * at its shapes (tests/data/llamacpp/deepseek-r1-distill-qwen-32b-q4_k_m.tensors,
 * "quant size = 18926.01 MiB"), written as a GGUF header. llama.cpp printed for that
 * file "CUDA0 model buffer size = 18508.35 MiB" and "CPU_Mapped model buffer size =
 * 417.66 MiB" (ggml-org/llama.cpp#11861, all 65 layers offloaded): fit's GPU weights
 * must be that buffer to its printed 0.01 MiB, and the host's the token_embd. */
START_TEST(gpu_weights_as_cuda0)
{
    char path[600], tpath[512], line[512], cell[1024];
    char dir[512];
    FILE *f;
    wb w, tab;
    uint64_t off = 0, ntensors = 0;
    int fd;
    json_t *r;
    vs_test_tmp(dir, sizeof dir, "vs-lcp-oracle-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/r1.gguf", dir);
    snprintf(tpath, sizeof tpath, "%s/deepseek-r1-distill-qwen-32b-q4_k_m.tensors",
             VS_LLAMACPP_DATA);
    f = fopen(tpath, "r");
    ck_assert_ptr_nonnull(f);
    memset(&tab, 0, sizeof tab);
    while (fgets(line, sizeof line, f)) {
        char *name = line, *ne, *ty, *p;
        uint64_t dims[4], e = 1, block, bytes;
        uint32_t id, nd = 0, d;
        if (line[0] == '#')
            continue;
        line[strcspn(line, "\n")] = '\0';
        ne = strchr(name, '\t');
        ck_assert_ptr_nonnull(ne);
        *ne++ = '\0';
        ty = strchr(ne, '\t');
        ck_assert_ptr_nonnull(ty);
        *ty++ = '\0';
        for (p = ne; p && nd < 4; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
            dims[nd++] = strtoull(p, NULL, 10);
        gtype(ty, &id, &block, &bytes);
        pstr(&tab, name);
        p32(&tab, nd);
        for (d = 0; d < nd; d++) {
            p64(&tab, dims[d]);
            e *= dims[d];
        }
        p32(&tab, id);
        p64(&tab, off);
        off += (e / block * bytes + 31) / 32 * 32;
        ntensors++;
    }
    fclose(f);
    ck_assert_uint_eq(ntensors, 771);
    memset(&w, 0, sizeof w);
    put(&w, "GGUF", 4);
    p32(&w, 3);
    p64(&w, ntensors);
    p64(&w, 6);
    kv_str(&w, "general.architecture", "qwen2");
    kv_u32(&w, "qwen2.block_count", 64);
    kv_u32(&w, "qwen2.embedding_length", 5120);
    kv_u32(&w, "qwen2.attention.head_count", 40);
    kv_u32(&w, "qwen2.attention.head_count_kv", 8);
    kv_u32(&w, "qwen2.context_length", 131072);
    put(&w, tab.p, tab.len);
    while (w.len % 32)
        put(&w, "", 1);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, w.p, w.len), (ssize_t)w.len);
    ck_assert_int_eq(ftruncate(fd, (off_t)(w.len + off)), 0);
    close(fd);
    free(w.p);
    free(tab.p);
    snprintf(cell, sizeof cell,
             "sheet \"r1\"\nmodel deepseek-ai/DeepSeek-R1-Distill-Qwen-32B\ntask inference\n"
             "weights from=%s\nlength 16384\nconcurrency 1\ngpu \"H100 SXM\"\n"
             "reserve activation_peak 0GiB status=measured source=\"t\"\nengine llamacpp\nfit",
             path);
    run_ok(cell);
    r = fit_row();
    ck_assert_msg(fabs((double)json_integer_value(json_object_get(r, "non_kv_bytes")) / MIB -
                       18508.35) < 0.005,
                  "GPU weights %.4f MiB",
                  (double)json_integer_value(json_object_get(r, "non_kv_bytes")) / MIB);
    ck_assert_msg(
        fabs((double)json_integer_value(json_object_get(r, "host_bytes")) / MIB - 417.66) < 0.005,
        "host %.4f MiB", (double)json_integer_value(json_object_get(r, "host_bytes")) / MIB);
    /* its KV cache at 16384 cells, f16: 64 x 16384 x (8 x 128 x 2 B) x 2 = 4096 MiB */
    ck_assert_int_eq(json_integer_value(json_object_get(r, "kv_need_bytes")), 4096LL << 20);
    vs_test_rmtree(dir);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("llamacpp_oracle");
    TCase *t = tcase_create("core");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 120);
    tcase_add_test(t, kv_as_llama_cpp_prints_it);
    tcase_add_test(t, hybrid_kv_as_llama_cpp_prints_it);
    tcase_add_test(t, compute_within_stated_error);
    tcase_add_test(t, gpu_weights_as_cuda0);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return vs_check_run(suite());
}
