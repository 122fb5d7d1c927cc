/* bench_gguf — GGUF headers and the Hugging Face cache, headers only.
 *
 * 1. A 400 GB GGUF file (1,200 tensors at Q8_0, Llama-3's 128,256-token
 *    vocabulary in the metadata, as real files carry it), its data a sparse
 *    hole: `weights from=FILE.gguf` (vs_model_apply_weights_files).
 * 2. A fake hub cache holding a 163-shard checkpoint (DeepSeek-V3's shard
 *    count; 60 tensors a shard, each shard a sparse file): `model ORG/NAME`'s
 *    resolution (refs/main, the snapshot, config.json) plus `weights` without
 *    from= (the index, every shard present, every header).
 * Each is timed (median of 7 after a warm-up) with the bytes the process read
 * counted from /proc/self/io; beside it, a reference: python3 reading the
 * same header bytes (open + read), which is what reading the headers costs
 * with nothing parsed.
 *
 *   bench_gguf              print the figures
 *   bench_gguf --check      also fail when a median is over 50 ms
 *   bench_gguf --bytes-only fail only when tensor data is read (ctest)
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench_clock.h"

#include "model/hfcache.h"
#include "model/model.h"
#include "sheet/sheet.h"
#include "util/buf.h"

#define RUNS 7
#define TENSORS 1200
#define SHARDS 163
#define PER_SHARD 60

static long long rchar(void)
{
    char line[128];
    long long v = -1;
    FILE *f = fopen("/proc/self/io", "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "rchar: %lld", &v) == 1)
            break;
    fclose(f);
    return v;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct buf {
    unsigned char *p;
    size_t len, cap;
} buf;

static void put(buf *b, const void *s, size_t n)
{
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2;
        if (!(b->p = realloc(b->p, b->cap)))
            exit(2);
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
}
static void p32(buf *b, uint32_t v)
{
    put(b, &v, 4); /* little-endian hosts only, as the benchmark machines */
}
static void p64(buf *b, uint64_t v)
{
    put(b, &v, 8);
}
static void pstr(buf *b, const char *s)
{
    p64(b, strlen(s));
    put(b, s, strlen(s));
}

/* python3 reading `bytes` bytes of each file (the headers), in ms: the
 * median of RUNS runs inside one interpreter. */
static double python_reference(const char *list_file)
{
    char cmd[1024];
    double ms = -1;
    FILE *p;
    snprintf(cmd, sizeof cmd,
             "python3 -c \"import time,sys\n"
             "files=[l.split('\\t') for l in open('%s').read().splitlines()]\n"
             "ts=[]\n"
             "for r in range(%d):\n"
             "  t=time.perf_counter()\n"
             "  for p,n in files:\n"
             "    f=open(p,'rb'); f.read(int(n)); f.close()\n"
             "  ts.append((time.perf_counter()-t)*1e3)\n"
             "ts.sort(); print(ts[len(ts)//2])\" 2>/dev/null",
             list_file, RUNS + 1);
    if ((p = popen(cmd, "r"))) {
        if (fscanf(p, "%lf", &ms) != 1)
            ms = -1;
        pclose(p);
    }
    return ms;
}

typedef struct result {
    double median, min, max, cpu;
    long long read;
} result;

static int timed(result *r, int (*fn)(void *), void *ctx)
{
    double t[RUNS], c[RUNS];
    long long overhead, r0 = 0, r1 = 0, before;
    int i;
    before = rchar();
    overhead = rchar() - before;
    if (fn(ctx))
        return 1; /* warm-up */
    for (i = 0; i < RUNS; i++) {
        double t0, c0;
        r0 = rchar();
        t0 = now_ms();
        c0 = cpu_ms();
        if (fn(ctx))
            return 1;
        t[i] = now_ms() - t0;
        c[i] = cpu_ms() - c0;
        r1 = rchar();
    }
    qsort(t, RUNS, sizeof t[0], cmp_d);
    qsort(c, RUNS, sizeof c[0], cmp_d);
    r->cpu = c[RUNS / 2];
    r->median = t[RUNS / 2];
    r->min = t[0];
    r->max = t[RUNS - 1];
    r->read = r0 >= 0 ? r1 - r0 - overhead : -1;
    return 0;
}

static const char *g_path;
static uint64_t g_bytes;

static int read_gguf(void *ctx)
{
    json_t *sheet = vs_sheet_new("bench"), *p = NULL;
    vs_error err;
    int rc;
    (void)ctx;
    rc = vs_model_apply_weights_files(sheet, g_path, 0, &p, &err);
    if (rc)
        fprintf(stderr, "bench_gguf: %s\n", err.message);
    else if ((uint64_t)json_integer_value(json_object_get(p, "bytes")) != g_bytes) {
        fprintf(stderr, "bench_gguf: wrong total\n");
        rc = 1;
    }
    json_decref(p);
    json_decref(sheet);
    return rc != 0;
}

static uint64_t g_st_bytes;

/* `model bench/deep` (refs/main, the snapshot, config.json) then `weights`
 * without from= (the snapshot's index and every shard's header) */
static int resolve_and_read(void *ctx)
{
    json_t *sheet = vs_sheet_new("bench"), *p = NULL;
    char *cfg = NULL, *commit = NULL, *note = NULL;
    vs_error err;
    int rc;
    (void)ctx;
    rc = vs_hfcache_model_config("bench/deep", NULL, &cfg, &commit, &note, NULL, NULL, &err);
    if (!rc && !cfg) {
        fprintf(stderr, "bench_gguf: %s\n", note);
        rc = 1;
    }
    if (!rc)
        rc = vs_model_apply_config(sheet, cfg, NULL, &err);
    if (!rc && (json_object_set_new(vs_sheet_card(sheet), "revision", json_string(commit)) ||
                json_object_set_new(vs_sheet_card(sheet), "model", json_string("bench/deep"))))
        rc = 1;
    if (!rc && (rc = vs_hfcache_card_weights(sheet, NULL, &p, NULL, NULL, &err)) == 1)
        snprintf(err.message, sizeof err.message, "the card does not come from the cache");
    if (rc)
        fprintf(stderr, "bench_gguf: %s\n", err.message);
    else if ((uint64_t)json_integer_value(json_object_get(p, "bytes")) != g_st_bytes) {
        fprintf(stderr, "bench_gguf: wrong safetensors total\n");
        rc = 1;
    }
    free(cfg);
    free(commit);
    free(note);
    json_decref(p);
    json_decref(sheet);
    return rc != 0;
}

int main(int argc, char **argv)
{
    int check = argc > 1 && !strcmp(argv[1], "--check");
    int bytes_only = argc > 1 && !strcmp(argv[1], "--bytes-only");
    const char *tmp = getenv("TMPDIR");
    char dir[512], path[1024], list[1024], cmd[4096];
    buf b = {0};
    uint64_t off = 0, header_len, index_len = 0, headers = 0;
    result r1, r2;
    double py1, py2;
    int i, k, fd, bad = 0;
    FILE *lf;

    snprintf(dir, sizeof dir, "%s/vs_bench_gguf_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        return 2;
    /* ---- 1: a 400 GB GGUF file ---- */
    put(&b, "GGUF", 4);
    p32(&b, 3);
    p64(&b, TENSORS);
    p64(&b, 4);
    pstr(&b, "general.architecture");
    p32(&b, 8);
    pstr(&b, "llama");
    pstr(&b, "llama.block_count");
    p32(&b, 4);
    p32(&b, TENSORS);
    pstr(&b, "general.file_type");
    p32(&b, 4);
    p32(&b, 7);
    pstr(&b, "tokenizer.ggml.tokens");
    p32(&b, 9);
    p32(&b, 8);
    p64(&b, 128256);
    for (i = 0; i < 128256; i++) {
        char tok[32];
        snprintf(tok, sizeof tok, "tok%06d", i);
        pstr(&b, tok);
    }
    for (i = 0; i < TENSORS; i++) {
        char name[64];
        uint64_t bytes = 16384ull * 19200 / 32 * 34;
        snprintf(name, sizeof name, "blk.%d.ffn_up.weight", i);
        pstr(&b, name);
        p32(&b, 2);
        p64(&b, 16384);
        p64(&b, 19200);
        p32(&b, 8);
        p64(&b, off);
        off += (bytes + 31) / 32 * 32;
        g_bytes += bytes;
    }
    while (b.len % 32)
        put(&b, "", 1);
    header_len = b.len;
    snprintf(path, sizeof path, "%s/huge.gguf", dir);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write(fd, b.p, b.len) != (ssize_t)b.len || ftruncate(fd, (off_t)(b.len + off)))
        return 2;
    close(fd);
    g_path = path;
    if (timed(&r1, read_gguf, NULL))
        return 1;
    snprintf(list, sizeof list, "%s/list1.tsv", dir);
    lf = fopen(list, "w");
    fprintf(lf, "%s\t%llu\n", path, (unsigned long long)header_len);
    fclose(lf);
    py1 = python_reference(list);

    /* ---- 2: a fake hub cache with a 163-shard checkpoint ---- */
    {
        const char *commit = "abcdefabcdefabcdefabcdefabcdefabcdefabcd";
        char repo[700], snap[800];
        vs_buf index = VS_BUF_INIT;
        FILE *f;
        snprintf(repo, sizeof repo, "%s/hub/models--bench--deep", dir);
        snprintf(snap, sizeof snap, "%s/snapshots/%s", repo, commit);
        snprintf(cmd, sizeof cmd, "mkdir -p %s/refs %s/blobs %s", repo, repo, snap);
        if (system(cmd))
            return 2;
        snprintf(path, sizeof path, "%s/refs/main", repo);
        f = fopen(path, "w");
        fputs(commit, f);
        fclose(f);
        snprintf(path, sizeof path, "%s/config.json", snap);
        f = fopen(path, "w");
        fputs("{\"architectures\": [\"LlamaForCausalLM\"], \"model_type\": \"llama\", "
              "\"hidden_size\": 7168, \"intermediate_size\": 2048, \"num_attention_heads\": 56, "
              "\"num_hidden_layers\": 61, \"num_key_value_heads\": 8, \"vocab_size\": 129280}",
              f);
        fclose(f);
        snprintf(list, sizeof list, "%s/list2.tsv", dir);
        lf = fopen(list, "w");
        vs_buf_puts(&index, "{\"metadata\": {}, \"weight_map\": {");
        for (k = 0; k < SHARDS; k++) {
            vs_buf h = VS_BUF_INIT;
            char file[64];
            uint64_t o = 0;
            unsigned char len8[8];
            snprintf(file, sizeof file, "model-%05d-of-%05d.safetensors", k + 1, SHARDS);
            vs_buf_putc(&h, '{');
            for (i = 0; i < PER_SHARD; i++) {
                char name[96];
                uint64_t bytes = 7168ull * 2048 * 2;
                snprintf(name, sizeof name, "model.layers.%d.mlp.experts.%d.up_proj.weight", k, i);
                vs_buf_printf(&h,
                              "%s\"%s\":{\"dtype\":\"BF16\",\"shape\":[2048,7168],"
                              "\"data_offsets\":[%llu,%llu]}",
                              i ? "," : "", name, (unsigned long long)o,
                              (unsigned long long)(o + bytes));
                vs_buf_printf(&index, "%s\"%s\": \"%s\"", k || i ? ", " : "", name, file);
                o += bytes;
            }
            vs_buf_putc(&h, '}');
            g_st_bytes += o;
            snprintf(path, sizeof path, "%s/%s", snap, file);
            fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            for (i = 0; i < 8; i++)
                len8[i] = (unsigned char)((uint64_t)h.len >> (8 * i));
            if (fd < 0 || write(fd, len8, 8) != 8 ||
                write(fd, vs_buf_str(&h), h.len) != (ssize_t)h.len ||
                ftruncate(fd, (off_t)(8 + h.len + o)))
                return 2;
            close(fd);
            fprintf(lf, "%s\t%llu\n", path, (unsigned long long)(8 + h.len));
            headers += 8 + h.len;
            vs_buf_free(&h);
        }
        vs_buf_puts(&index, "}}");
        snprintf(path, sizeof path, "%s/model.safetensors.index.json", snap);
        f = fopen(path, "w");
        fwrite(vs_buf_str(&index), 1, index.len, f);
        fclose(f);
        index_len = index.len;
        fprintf(lf, "%s\t%llu\n", path, (unsigned long long)index_len);
        fclose(lf);
        vs_buf_free(&index);
        snprintf(path, sizeof path, "%s/hub", dir);
        setenv("HF_HUB_CACHE", path, 1);
    }
    if (timed(&r2, resolve_and_read, NULL))
        return 1;
    py2 = python_reference(list);

    printf("bench_gguf: GGUF: %d tensors, %.1f GB of tensor data (sparse), a %llu-byte header "
           "(128,256 tokens)\n",
           TENSORS, (double)g_bytes / 1e9, (unsigned long long)header_len);
    printf("bench_gguf: GGUF headers read in %.2f ms (median of %d; min %.2f, max %.2f); bytes "
           "read %lld; CPU %.2f ms; python3 reading the same %llu header bytes: %.2f ms; limit 50 "
           "ms\n",
           r1.median, RUNS, r1.min, r1.max, r1.read, r1.cpu, (unsigned long long)header_len, py1);
    printf("bench_gguf: HF cache: %d shards, %d tensors, %.1f GB (sparse); resolution + index + "
           "headers in %.2f ms (median of %d; min %.2f, max %.2f; CPU %.2f ms); bytes read %lld = "
           "index %llu + "
           "headers %llu (+ refs/main, config.json); python3 reading the same bytes: %.2f ms; "
           "limit 50 ms\n",
           SHARDS, SHARDS * PER_SHARD, (double)g_st_bytes / 1e9, r2.median, RUNS, r2.min, r2.max,
           r2.cpu, r2.read, (unsigned long long)index_len, (unsigned long long)headers, py2);
    /* tensor data is never read: what was read is the header and the
     * reader's last 64 KiB chunk at most (GGUF); the index, the headers, the
     * ref and the config (cache) */
    if (r1.read >= 0 && (uint64_t)r1.read > header_len + 65536) {
        fprintf(stderr, "bench_gguf: FAILED: %lld bytes read for a %llu-byte GGUF header\n",
                r1.read, (unsigned long long)header_len);
        bad = 1;
    }
    if (r2.read >= 0 && (uint64_t)r2.read > index_len + headers + 8192) {
        fprintf(stderr, "bench_gguf: FAILED: %lld bytes read for %llu bytes of headers\n", r2.read,
                (unsigned long long)(index_len + headers));
        bad = 1;
    }
    if (!bytes_only && check && (r1.median > 50 || r2.median > 50)) {
        fprintf(stderr, "bench_gguf: FAILED: a median over 50 ms\n");
        bad = 1;
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd))
        fprintf(stderr, "bench_gguf: could not remove %s\n", dir);
    free(b.p);
    return bad;
}
