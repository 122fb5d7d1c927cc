/* engine/offload and launch with host memory: the parts' bytes worked by hand on
 * small numbers; published llama.cpp runs with whole layers and with routed
 * experts on the CPU as the oracles (their buffer sizes, with the links); launch's -ngl /
 * --n-cpu-moe and
 * --cpu-offload-gb with the bytes per device; a host smaller than the
 * offloaded part refused as exclude. */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fcntl.h>
#include <unistd.h>

#include "cell_run.h"
#include "check_run.h"
#include "engine/offload.h"
#include "gguf_writer.h"
#include "results.h"
#include "test_tmp.h"

#ifndef VS_LLAMACPP_DATA
#error "VS_LLAMACPP_DATA (the tests/data/llamacpp folder) must be defined"
#endif

#define MIB 1048576ull
#define GIB 1073741824ull

/* A made-up model, small enough to tally by hand: vocab 10 x hidden 5 = 50
 * parameters of embedding and 50 of output; 10 layers of 90 (attention 20, 10
 * experts of 7); 1,000 in all; 2 experts used: active = 1,000 - (10 - 2) x 7 x
 * 10 = 440; 2 bytes a parameter. */
static vs_offload_in toy(uint64_t room, int moe)
{
    vs_offload_in in;
    memset(&in, 0, sizeof in);
    in.weights_bytes = 2000;
    in.room_bytes = room;
    in.params_total = 1000;
    in.params_active = moe ? 440 : 0;
    in.layers = 10;
    in.vocab = 10;
    in.hidden = 5;
    in.experts = moe ? 10 : 0;
    in.experts_used = moe ? 2 : 0;
    return in;
}

START_TEST(parts_by_hand)
{
    vs_offload_in in = toy(1400, 1);
    vs_offload_plan p;
    uint64_t gpu, host;
    memset(&p, 0, sizeof p);
    vs_offload_parts(&p, &in);
    ck_assert_uint_eq(p.embed_bytes, 100);        /* 2000 x 50 / 1000 */
    ck_assert_uint_eq(p.output_bytes, 100);       /* untied */
    ck_assert_uint_eq(p.layer_bytes, 180);        /* (2000 - 200) / 10 */
    ck_assert_uint_eq(p.expert_layer_bytes, 140); /* 10 x 7 params x 2 B */
    /* -ngl 11 (all): everything but the embedding on the GPU */
    vs_offload_layers(&gpu, &host, &in, 11);
    ck_assert_uint_eq(gpu, 1900);
    ck_assert_uint_eq(host, 100);
    /* -ngl 10: the output goes to the CPU too */
    vs_offload_layers(&gpu, &host, &in, 10);
    ck_assert_uint_eq(gpu, 1800);
    /* --n-cpu-moe 4: 4 x 140 more in host memory */
    vs_offload_experts(&gpu, &host, &in, 4);
    ck_assert_uint_eq(gpu, 1340);
    ck_assert_uint_eq(host, 660);
    /* the mapped span, in the file order [output 100][embedding 100][layer 0..9, 180
     * each]: --n-cpu-moe 4 with the output on the GPU maps from the embedding (byte
     * 100) to the end of layer 3 (100 + 100 + 4 x 180 = 920): 820 bytes, where 660 are
     * on the CPU */
    ck_assert_uint_eq(vs_offload_mapped(&in, 11, 0, 4), 820);
    /* -ngl 7: layers 0..2 and the output on the CPU, one block from byte 0 to 740 */
    ck_assert_uint_eq(vs_offload_mapped(&in, 7, 0, 0), 740);
    /* everything on the GPU but the embedding: the embedding alone */
    ck_assert_uint_eq(vs_offload_mapped(&in, 11, 0, 0), 100);
    /* the experts of layers 6..9 with -ngl 10: from the output (byte 0) to the end */
    ck_assert_uint_eq(vs_offload_mapped(&in, 10, 6, 10), 2000);
}
END_TEST

START_TEST(smallest_offload)
{
    vs_offload_plan p;
    vs_offload_in in = toy(1400, 1);
    vs_error e;
    /* experts: 1900 - 140 K <= 1400 first at K = 4 */
    ck_assert_int_eq(vs_offload_llamacpp(&p, &in, &e), 0);
    ck_assert_int_eq(p.kind, VS_OFFLOAD_EXPERTS);
    ck_assert_uint_eq(p.cpu_moe, 4);
    ck_assert_uint_eq(p.ngl, 11);
    ck_assert_uint_eq(p.gpu_weights_bytes, 1340);
    ck_assert_uint_eq(p.host_bytes, 660);
    ck_assert_uint_eq(p.mapped_bytes, 820);
    /* dense: 180 n <= 1400 at most at n = 7 */
    in = toy(1400, 0);
    ck_assert_int_eq(vs_offload_llamacpp(&p, &in, &e), 0);
    ck_assert_int_eq(p.kind, VS_OFFLOAD_LAYERS);
    ck_assert_uint_eq(p.ngl, 7);
    ck_assert_uint_eq(p.gpu_weights_bytes, 1260);
    ck_assert_uint_eq(p.host_bytes, 740);
    ck_assert_uint_eq(p.mapped_bytes, 740); /* layers 0..2 and the output: one block */
    /* room for no layer */
    in = toy(100, 0);
    ck_assert_int_eq(vs_offload_llamacpp(&p, &in, &e), VS_EVALUE);
    /* a missing figure */
    in = toy(1400, 0);
    in.layers = 0;
    ck_assert_int_eq(vs_offload_llamacpp(&p, &in, &e), VS_EVALUE);
}
END_TEST

/* https://github.com/ggml-org/llama.cpp/issues/13729 (build b5466): Qwen3-30B-A3B,
 * `-ngl 30`: "offloaded 30/49 layers to GPU", "CUDA0 model buffer size = 10750.86
 * MiB", "CPU_Mapped model buffer size = 6940.48 MiB". The model: 48 layers,
 * hidden 2048, vocabulary 151,936, untied, 30,532,122,624 parameters (its
 * config.json tallied: 48 x 623,120,640 + 2 x 151,936 x 2,048 + 2,048). The
 * weights are the two buffers together. */
START_TEST(published_ngl_run)
{
    vs_offload_in in;
    uint64_t gpu, host, log_gpu = 1075086 * MIB / 100, log_cpu = 694048 * MIB / 100;
    memset(&in, 0, sizeof in);
    in.weights_bytes = log_gpu + log_cpu;
    in.params_total = 48ull * 623120640 + 2ull * 151936 * 2048 + 2048;
    ck_assert_uint_eq(in.params_total, 30532122624ull);
    in.layers = 48;
    in.vocab = 151936;
    in.hidden = 2048;
    vs_offload_layers(&gpu, &host, &in, 30);
    ck_assert_msg(fabs((double)gpu - (double)log_gpu) / (double)log_gpu < 0.05,
                  "GPU %.2f MiB against 10750.86 MiB", (double)gpu / MIB);
    ck_assert_msg(fabs((double)host - (double)log_cpu) / (double)log_cpu < 0.05,
                  "host %.2f MiB against 6940.48 MiB", (double)host / MIB);
}
END_TEST

/* One line of the tensor list: its bytes (F16 2 B, F32 4 B a value), the layer
 * (-1 for none) and whether it is a routed expert tensor (ffn_*_exps). */
typedef struct {
    uint64_t bytes;
    int layer, expert;
    char name[64];
    unsigned ndims;
    uint64_t ne[3];
    uint32_t type; /* ggml's: 0 F32, 1 F16 */
} tensor_row;

static size_t read_tensors(tensor_row *t, size_t max, const char *file)
{
    char path[1024], line[512];
    FILE *f;
    size_t n = 0;
    snprintf(path, sizeof path, "%s/%s", VS_LLAMACPP_DATA, file);
    f = fopen(path, "r");
    ck_assert_msg(f != NULL, "%s", path);
    while (fgets(line, sizeof line, f) && n < max) {
        char name[256], ne[128], type[16], *p;
        uint64_t values = 1;
        if (line[0] == '#' || sscanf(line, "%255s %127s %15s", name, ne, type) != 3)
            continue;
        t[n].ndims = 0;
        for (p = strtok(ne, ","); p; p = strtok(NULL, ",")) {
            values *= strtoull(p, NULL, 10);
            if (t[n].ndims < 3)
                t[n].ne[t[n].ndims++] = strtoull(p, NULL, 10);
        }
        snprintf(t[n].name, sizeof t[n].name, "%.63s", name);
        t[n].type = !strcmp(type, "f16") ? 1 : 0;
        ck_assert_msg(!strcmp(type, "f16") || !strcmp(type, "f32"), "%s: %s", name, type);
        t[n].bytes = values * (!strcmp(type, "f16") ? 2 : 4);
        t[n].layer = !strncmp(name, "blk.", 4) ? atoi(name + 4) : -1;
        t[n].expert = strstr(name, "_exps.") != NULL;
        n++;
    }
    fclose(f);
    return n;
}

/* A published run with expert offload: llama.cpp's own tools/fit-params/README.md
 * (https://github.com/ggml-org/llama.cpp/blob/master/tools/fit-params/README.md,
 * build 6895, 4341dc8bc), Qwen3-30B-A3B in F16 on one RTX 4090: `-ngl 48` and the
 * experts of layers 14 to 47 on the CPU (`-ot blk\.N\.ffn_(up|down|gate)_(ch|)exps=CPU`),
 * whose memory breakdown printed "CUDA0 ... 17904" MiB of model and "Host ... 58259"
 * (tests/data/llamacpp/fit-params-qwen3-30b-a3b-f16.log). The tensor list at the
 * model's shapes (tests/data/llamacpp/qwen3-30b-a3b-f16.tensors, llama-quantize
 * --dry-run F16 at llama.cpp 0c1e570: 58,259.80 MiB) is the file. */
START_TEST(published_expert_run)
{
    static tensor_row t[600];
    const uint64_t log_gpu = 17904 * MIB, log_host = 58259 * MIB;
    uint64_t whole = 0, gpu = 0, host = 0, span = 0, pgpu, phost, pmapped;
    size_t n = read_tensors(t, 600, "qwen3-30b-a3b-f16.tensors"), i, first = n, last = 0;
    vs_offload_in in;
    vs_offload_plan p;
    char *log;
    FILE *f;
    char path[1024];
    long len;
    /* the figures are the log's */
    snprintf(path, sizeof path, "%s/fit-params-qwen3-30b-a3b-f16.log", VS_LLAMACPP_DATA);
    ck_assert_ptr_nonnull(f = fopen(path, "rb"));
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    rewind(f);
    log = calloc(1, (size_t)len + 1);
    ck_assert_uint_eq(fread(log, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    ck_assert_ptr_nonnull(strstr(log, "(19187 = 17904 +     384 +     898)"));
    ck_assert_ptr_nonnull(strstr(log, "58259 = 58259 +       0 +      12"));
    ck_assert_ptr_nonnull(strstr(log, "-c 4096 -ngl 48 -ot blk\\.(1[4-9]|[2-3][0-9]|4[0-7])"));
    free(log);
    /* the run's placement, tensor by tensor: -ngl 48 of 48 layers keeps the output
     * (and the token embedding) on the CPU; layers 14..47 keep their experts there */
    ck_assert_uint_eq(n, 579);
    for (i = 0; i < n; i++) {
        int on_cpu = t[i].layer < 0 || (t[i].expert && t[i].layer >= 14);
        whole += t[i].bytes;
        if (on_cpu) {
            host += t[i].bytes;
            first = i < first ? i : first;
            last = i;
        } else {
            gpu += t[i].bytes;
        }
    }
    ck_assert_msg(fabs((double)gpu - (double)log_gpu) / (double)log_gpu < 0.05,
                  "tensor list: GPU %.2f MiB against 17904 MiB", (double)gpu / MIB);
    /* the planner's parts, the quantised file's types spread evenly: the weights
     * (the tensor list's), 30,532,122,624 parameters of which the routed experts
     * are 48 x 128 x 3 x 2,048 x 768 and 8 of 128 are active, 48 layers, vocabulary
     * 151,936 x hidden 2,048, untied (its config.json); 48 layers on the GPU, the
     * experts of 34 of them off */
    memset(&in, 0, sizeof in);
    in.weights_bytes = whole;
    in.params_total = 30532122624ull;
    in.params_active = in.params_total - 48ull * 128 * 3 * 2048 * 768 + 48ull * 8 * 3 * 2048 * 768;
    in.layers = 48;
    in.vocab = 151936;
    in.hidden = 2048;
    in.experts = 128;
    in.experts_used = 8;
    memset(&p, 0, sizeof p);
    vs_offload_parts(&p, &in);
    vs_offload_layers(&pgpu, &phost, &in, 48);
    pgpu -= 34 * p.expert_layer_bytes;
    phost += 34 * p.expert_layer_bytes;
    ck_assert_msg(fabs((double)pgpu - (double)log_gpu) / (double)log_gpu < 0.05,
                  "planner: GPU %.2f MiB against 17904 MiB", (double)pgpu / MIB);
    /* the host: llama.cpp maps the file and prints the span from the first to the
     * last tensor it keeps on the CPU (src/llama-model-loader.cpp get_mapping_range,
     * used by src/llama-model.cpp load_tensors for an mmap'd buffer, at 0c1e570),
     * here from the output (the list's first tensor) to layer 47's experts (its
     * last): the whole file, where the host tensors alone are 40,355 MiB */
    for (i = first; i <= last; i++)
        span += t[i].bytes;
    ck_assert_msg(fabs((double)span - (double)log_host) / (double)log_host < 0.05,
                  "span %.2f MiB against 58259 MiB", (double)span / MIB);
    ck_assert_uint_eq(host + gpu, whole);
    ck_assert_msg(fabs((double)phost - (double)host) / (double)host < 0.05,
                  "planner host %.2f MiB against the host tensors' %.2f MiB", (double)phost / MIB,
                  (double)host / MIB);
    /* the two host figures by hand from the list: resident, the output, output_norm,
     * token_embd and 34 layers' three expert tensors (2 x 2,048 x 151,936 x 2 + 2,048 x 4
     * + 34 x 3 x 2,048 x 768 x 128 x 2 = 42,315,727,872 B = 40,355.01 MiB); mapped, the
     * whole list (58,259.80 MiB) */
    ck_assert_uint_eq(host, 2ull * 2048 * 151936 * 2 + 2048 * 4 + 34ull * 3 * 2048 * 768 * 128 * 2);
    ck_assert_uint_eq(span, whole);
    /* the planner's mapped span for the run's placement: -ngl 48 (the output on the
     * CPU, so the span starts at the file's first tensor) and the experts of layers
     * 14..47 (so it ends with the last layer): against the printed 58,259 MiB and the
     * list's span */
    pmapped = vs_offload_mapped(&in, 48, 14, 48);
    ck_assert_msg(fabs((double)pmapped - (double)log_host) / (double)log_host < 0.05,
                  "planner mapped %.2f MiB against 58259 MiB", (double)pmapped / MIB);
    ck_assert_msg(fabs((double)pmapped - (double)span) / (double)span < 0.05,
                  "planner mapped %.2f MiB against the list's span %.2f MiB", (double)pmapped / MIB,
                  (double)span / MIB);
    /* and the planner's own choice, --n-cpu-moe K (the first K layers, the output on
     * the GPU): the span from token_embd (after the output and output_norm) through
     * layer K-1, summed from the list for K = 34 */
    {
        uint64_t want = 0;
        for (i = 0; i < n; i++)
            if (i >= 2 && (t[i].layer < 34))
                want += t[i].bytes;
        pmapped = vs_offload_mapped(&in, 49, 0, 34);
        ck_assert_msg(fabs((double)pmapped - (double)want) / (double)want < 0.05,
                      "planner mapped %.2f MiB against the list's %.2f MiB for --n-cpu-moe 34",
                      (double)pmapped / MIB, (double)want / MIB);
        printf("fit-params run: mapped printed 58259.00, list %.2f, planner %.2f MiB; resident "
               "list %.2f, planner %.2f MiB; --n-cpu-moe 34 mapped list %.2f, planner %.2f MiB\n",
               (double)span / MIB, (double)vs_offload_mapped(&in, 48, 14, 48) / MIB,
               (double)host / MIB, (double)phost / MIB, (double)want / MIB, (double)pmapped / MIB);
    }
}
END_TEST

static const json_t *launch_of(size_t i)
{
    json_t *p = lastp();
    ck_assert_str_eq(gets(p, "kind"), "launch");
    return json_array_get(json_object_get(p, "launches"), i);
}

static long long device_bytes(const json_t *l, const char *dev)
{
    const json_t *d;
    size_t i;
    json_array_foreach(json_object_get(l, "devices"), i, d)
    {
        if (!strcmp(json_string_value(json_object_get(d, "device")), dev))
            return json_integer_value(json_object_get(d, "bytes"));
    }
    return -1;
}

static long long device_field(const json_t *l, const char *dev, const char *key)
{
    const json_t *d, *v;
    size_t i;
    json_array_foreach(json_object_get(l, "devices"), i, d)
    {
        if (!strcmp(json_string_value(json_object_get(d, "device")), dev)) {
            v = json_object_get(d, key);
            return json_is_integer(v) ? json_integer_value(v) : -1;
        }
    }
    return -1;
}

/* Qwen3-30B-A3B in bf16 (about 61 GB) on one RTX 4090 with 64 GB of host memory:
 * the experts of the first K layers go to the CPU, K the smallest that leaves
 * the KV cache and --fit's margin on the GPU. */
START_TEST(llamacpp_experts_to_host)
{
    const json_t *l;
    long long gpu, host, budget;
    char cell[1024];
    int rc;
    snprintf(cell, sizeof cell,
             "sheet \"offload moe\"\nmodel m config=%s/qwen3-30b-a3b.json\nformat bf16\n"
             "task inference\nlength 8192\nconcurrency 1\nestimate kv\n"
             "gpu \"RTX 4090\" host=64GB\nengine llamacpp\nfit",
             VS_MODEL_CONFIGS);
    run_ok(cell);
    {
        const json_t *r = json_array_get(json_object_get(lastp(), "rows"), 0);
        ck_assert_str_eq(gets((json_t *)r, "verdict"), "exclude");
        budget = geti((json_t *)r, "budget_bytes");
    }
    run_ok("launch");
    l = launch_of(0);
    ck_assert_ptr_nonnull(strstr(gets((json_t *)l, "command"), " -ngl 49 --n-cpu-moe "));
    gpu = device_bytes(l, "gpu");
    host = device_bytes(l, "host");
    /* the GPU within llama.cpp's budget (fit's), the rest in 64 GB */
    ck_assert_msg(gpu > 0 && gpu <= budget, "gpu %lld, budget %lld", gpu, budget);
    ck_assert_msg(host > 0 && host <= 64000000000LL, "host %lld", host);
    ck_assert_ptr_nonnull(strstr(gets((json_t *)l, "note"), "throughput drops"));
    {
        /* K is the smallest: one fewer layer's experts would not fit */
        const char *k = strstr(gets((json_t *)l, "command"), "--n-cpu-moe ") + 12;
        long long kk = atoll(k);
        /* each layer's experts: 128 x 3 x 2048 x 768 parameters x 2 bytes */
        long long per = 128LL * 3 * 2048 * 768 * 2;
        ck_assert_msg(kk > 1 && kk < 48, "K %lld", kk);
        /* the GPU holds the rest at K; with K - 1 one more layer's experts would
         * not fit in the budget */
        ck_assert_msg(gpu + per > budget, "K %lld is not the smallest", kk);
        /* what llama.cpp maps and prints as its host buffer (mmap, its default): the
         * span from token_embd (the output is on the GPU) through layer K-1, every
         * tensor of those layers: 151,936 x 2,048 x 2 B + K x 623,120,640 x 2 B (a
         * layer's parameters, tallied from config.json above) */
        {
            long long want = 151936LL * 2048 * 2 + kk * 623120640LL * 2;
            long long mapped = device_field(l, "host", "mapped_bytes");
            ck_assert_msg(llabs(mapped - want) < want / 1000, "mapped %lld, by hand %lld", mapped,
                          want);
            ck_assert_msg(mapped > host, "mapped %lld, resident %lld", mapped, host);
            ck_assert_ptr_nonnull(strstr(gets((json_t *)l, "note"), "of the file mapped"));
            ck_assert_ptr_null(strstr(gets((json_t *)l, "command"), "--no-mmap"));
        }
    }
    /* without mmap the host buffer holds the tensors alone, nothing is mapped;
     * 0c1e570 spells it --load-mode none (its common/arg.cpp has no --no-mmap) */
    run_ok("engine llamacpp mmap=no");
    run_ok("launch");
    l = launch_of(0);
    ck_assert_ptr_nonnull(strstr(gets((json_t *)l, "command"), " --load-mode none"));
    ck_assert_int_eq(device_field(l, "host", "mapped_bytes"), -1);
    ck_assert_int_eq(device_bytes(l, "host"), host);
    run_ok("engine llamacpp");
    /* 16 GB of host memory holds less than the offloaded part: exclude */
    run_ok("gpu \"RTX 4090\" host=16GB");
    rc = run("launch");
    ck_assert_int_eq(rc, VS_EVALUE);
    ck_assert_msg(strstr(err.message, "exclude: RTX 4090's host memory") != NULL, "%s",
                  err.message);
    /* without host memory the refusal says how to declare it */
    run_ok("gpu \"RTX 4090\"");
    ck_assert_int_eq(run("launch"), VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "host=64GB"));
}
END_TEST

/* The GGUF's own order decides the span: the kept tensor list (Qwen3-30B-A3B in
 * F16) written as a GGUF header (gguf_writer.h, data as a hole) with its layers in
 * the order their numbers sort as text (0, 1, 10, ..., 19, 2, 20, ...), as sorted
 * checkpoint names can give them, the output and token_embd first. The launch's
 * mapped span is then from token_embd to the last of the CPU's expert tensors in
 * that order, tallied here from the offsets written. */
START_TEST(mapped_in_file_order)
{
    static tensor_row t[600];
    static size_t order[600];
    static uint64_t at[600];
    size_t n = read_tensors(t, 600, "qwen3-30b-a3b-f16.tensors"), i, k = 0, j;
    char dir[256], path[512], cell[1024], key[16];
    const char *cmd;
    const json_t *l;
    uint64_t off = 0, first = UINT64_MAX, end = 0;
    long long cpu_moe, mapped;
    wb w;
    int fd;
    unsigned d;
    vs_test_tmp(dir, sizeof dir, "vs-offload-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/qwen3-30b-a3b-f16.gguf", dir);
    /* the order: the tensors outside the layers, then layer "0", "1", "10", ... */
    for (i = 0; i < n; i++)
        if (t[i].layer < 0)
            order[k++] = i;
    for (j = 0; j < 48; j++) {
        /* the j-th layer number in text order */
        static int text[48];
        if (!j) {
            int a, b, c;
            for (a = 0; a < 48; a++)
                text[a] = a;
            for (a = 0; a < 48; a++)
                for (b = a + 1; b < 48; b++) {
                    char x[8], y[8];
                    snprintf(x, sizeof x, "%d", text[a]);
                    snprintf(y, sizeof y, "%d", text[b]);
                    if (strcmp(x, y) > 0) {
                        c = text[a];
                        text[a] = text[b];
                        text[b] = c;
                    }
                }
            ck_assert_int_eq(text[2], 10);
        }
        for (i = 0; i < n; i++)
            if (t[i].layer == text[j])
                order[k++] = i;
    }
    ck_assert_uint_eq(k, n);
    memset(&w, 0, sizeof w);
    put(&w, "GGUF", 4);
    p32(&w, 3);
    p64(&w, n);
    p64(&w, 1);
    kv_str(&w, "general.architecture", "qwen3moe");
    for (k = 0; k < n; k++) {
        const tensor_row *r = &t[order[k]];
        pstr(&w, r->name);
        p32(&w, r->ndims);
        for (d = 0; d < r->ndims; d++)
            p64(&w, r->ne[d]);
        p32(&w, r->type);
        p64(&w, off);
        at[order[k]] = off;
        off += (r->bytes + 31) / 32 * 32;
    }
    while (w.len % 32)
        put(&w, "", 1);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, w.p, w.len), (ssize_t)w.len);
    ck_assert_int_eq(ftruncate(fd, (off_t)(w.len + off)), 0);
    close(fd);
    free(w.p);
    snprintf(cell, sizeof cell,
             "sheet \"offload file order\"\nmodel m config=%s/qwen3-30b-a3b.json\n"
             "weights from=%s\ntask inference\nlength 8192\nconcurrency 1\nestimate kv\n"
             "gpu \"RTX 4090\" host=96GB\nengine llamacpp\nlaunch",
             VS_MODEL_CONFIGS, path);
    run_ok(cell);
    l = launch_of(0);
    cmd = gets((json_t *)l, "command");
    ck_assert_ptr_nonnull(strstr(cmd, "--n-cpu-moe "));
    cpu_moe = atoll(strstr(cmd, "--n-cpu-moe ") + 12);
    ck_assert_msg(cpu_moe > 2 && cpu_moe < 48, "%s", cmd);
    /* the CPU's tensors: token_embd and the experts of layers 0..K-1 (the output is
     * on the GPU with -ngl 49) */
    for (i = 0; i < n; i++) {
        int cpu = !strcmp(t[i].name, "token_embd.weight") ||
                  (t[i].expert && t[i].layer >= 0 && t[i].layer < cpu_moe);
        if (!cpu)
            continue;
        first = at[i] < first ? at[i] : first;
        end = at[i] + t[i].bytes > end ? at[i] + t[i].bytes : end;
    }
    mapped = device_field(l, "host", "mapped_bytes");
    ck_assert_msg(mapped == (long long)(end - first), "mapped %lld, by the file %llu (K %lld)",
                  mapped, (unsigned long long)(end - first), cpu_moe);
    ck_assert_ptr_nonnull(strstr(gets((json_t *)l, "note"), "in the GGUF's own order"));
    snprintf(key, sizeof key, "%lld", cpu_moe);
    printf("file order: --n-cpu-moe %s maps %.2f MiB, resident %.2f MiB\n", key,
           (double)mapped / MIB, (double)device_bytes(l, "host") / MIB);
    vs_test_rmtree(dir);
}
END_TEST

/* vLLM: --cpu-offload-gb is the shortfall of the KV pool rounded up to GiB. */
START_TEST(vllm_cpu_offload)
{
    const json_t *l, *r;
    long long need, pool, g;
    char want[64];
    char cell[1024];
    snprintf(cell, sizeof cell,
             "sheet \"offload vllm\"\nmodel m config=%s/qwen3-8b.json\nformat bf16\n"
             "task inference\nlength 32768\nconcurrency 1\nestimate kv\n"
             "gpu \"L4\" host=64GB\nengine vllm\n"
             "reserve non_torch 0.5GiB status=measured source=\"test\"\n"
             "reserve activation_peak 1GiB status=measured source=\"test\"\n"
             "reserve cuda_graphs 0.5GiB status=measured source=\"test\"\nfit",
             VS_MODEL_CONFIGS);
    run_ok(cell);
    r = json_array_get(json_object_get(lastp(), "rows"), 0);
    ck_assert_str_eq(gets((json_t *)r, "verdict"), "exclude");
    need = geti((json_t *)r, "kv_need_bytes");
    pool = geti((json_t *)r, "kv_pool_bytes");
    g = (need - pool + (long long)GIB - 1) / (long long)GIB;
    run_ok("launch");
    l = launch_of(0);
    snprintf(want, sizeof want, " --cpu-offload-gb %lld", g);
    ck_assert_msg(strstr(gets((json_t *)l, "command"), want) != NULL, "%s lacks%s",
                  gets((json_t *)l, "command"), want);
    ck_assert_int_eq(device_bytes(l, "host"), g * (long long)GIB);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("offload");
    TCase *t = tcase_create("offload");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, parts_by_hand);
    tcase_add_test(t, smallest_offload);
    tcase_add_test(t, published_ngl_run);
    tcase_add_test(t, published_expert_run);
    tcase_add_test(t, llamacpp_experts_to_host);
    tcase_add_test(t, mapped_in_file_order);
    tcase_add_test(t, vllm_cpu_offload);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return vs_check_run(suite());
}
