/* bench_model — `weights from=` on a 30-shard checkpoint.
 *
 * Writes a model.safetensors.index.json and 30 shards with realistic Llama
 * tensor names (1,000 layers x 9 tensors + embeddings, head and norm: about
 * 300 tensors a shard, BF16 matrices and F32 norms), each shard a sparse file
 * of about 13.5 GB whose tensor area is a hole. Times vs_model_apply_weights_files
 * (median of 7 after a warm-up) and counts, from /proc/self/io, the bytes the
 * process read: they must be the index plus, per shard, 8 bytes and the
 * header, never tensor data.
 *
 *   bench_model             print the figures
 *   bench_model --check     also fail when the median is over 50 ms
 *   bench_model --bytes-only  fail only when tensor data is read (ctest)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench_clock.h"

#include "model/model.h"
#include "sheet/sheet.h"
#include "util/buf.h"

#define SHARDS 30
#define LAYERS 1000
#define RUNS 7

static const unsigned long long H = 4096, I = 11008, V = 32000;
static unsigned long index_entries;

static double clock_ms(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Bytes this process has read through read(2)-like calls so far. */
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

typedef struct shard {
    vs_buf header;
    unsigned long long off;
    int count;
} shard;

static void add(shard *s, vs_buf *index, const char *file, const char *name, const char *dtype,
                unsigned elem, unsigned long long rows, unsigned long long cols)
{
    unsigned long long bytes = rows * (cols ? cols : 1) * elem;
    if (cols)
        vs_buf_printf(&s->header, "%s\"%s\":{\"dtype\":\"%s\",\"shape\":[%llu,%llu],",
                      s->count ? "," : "", name, dtype, rows, cols);
    else
        vs_buf_printf(&s->header, "%s\"%s\":{\"dtype\":\"%s\",\"shape\":[%llu],",
                      s->count ? "," : "", name, dtype, rows);
    vs_buf_printf(&s->header, "\"data_offsets\":[%llu,%llu]}", s->off, s->off + bytes);
    vs_buf_printf(index, "%s\n    \"%s\": \"%s\"", index_entries++ ? "," : "", name, file);
    s->off += bytes;
    s->count++;
}

static int write_shard(const char *dir, const char *file, shard *s, unsigned long long *hdr)
{
    char path[512];
    unsigned char len8[8];
    size_t hl;
    FILE *f;
    int i;
    vs_buf_putc(&s->header, '}');
    hl = s->header.len;
    for (i = 0; i < 8; i++)
        len8[i] = (unsigned char)((hl >> (8 * i)) & 0xff);
    snprintf(path, sizeof path, "%s/%s", dir, file);
    if (!(f = fopen(path, "wb")))
        return -1;
    fwrite(len8, 1, 8, f);
    fwrite(s->header.data, 1, hl, f);
    fflush(f);
    if (ftruncate(fileno(f), (off_t)(8 + hl + s->off)) != 0) {
        fclose(f);
        return -1;
    }
    fclose(f);
    *hdr += 8 + hl;
    return 0;
}

int main(int argc, char **argv)
{
    int check = argc > 1 && !strcmp(argv[1], "--check");
    int bytes_only = argc > 1 && !strcmp(argv[1], "--bytes-only");
    const char *tmp = getenv("TMPDIR");
    char dir[256], path[512], file[64], name[128], cmd[300];
    static const char *proj[] = {"q_proj", "k_proj", "v_proj", "o_proj"};
    static const char *mlp[] = {"gate_proj", "up_proj", "down_proj"};
    vs_buf index = VS_BUF_INIT;
    shard s;
    unsigned long long headers = 0, data = 0, tensors = 0;
    int layer = 0, k, j, rc = 1, status = 0;
    double times[RUNS], cpu[RUNS];
    long long before, overhead, read_bytes = 0, index_size;
    struct stat st;
    vs_error err;

    snprintf(dir, sizeof dir, "%s/vs_bench_model_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    vs_buf_puts(&index, "{\n  \"metadata\": {\"total_size\": 0},\n  \"weight_map\": {");
    for (k = 0; k < SHARDS; k++) {
        int last = (k + 1) * LAYERS / SHARDS;
        memset(&s, 0, sizeof s);
        vs_buf_putc(&s.header, '{');
        snprintf(file, sizeof file, "model-%05d-of-%05d.safetensors", k + 1, SHARDS);
        if (k == 0)
            add(&s, &index, file, "model.embed_tokens.weight", "BF16", 2, V, H);
        for (; layer < last; layer++) {
            for (j = 0; j < 4; j++) {
                snprintf(name, sizeof name, "model.layers.%d.self_attn.%s.weight", layer, proj[j]);
                add(&s, &index, file, name, "BF16", 2, H, H);
            }
            for (j = 0; j < 3; j++) {
                snprintf(name, sizeof name, "model.layers.%d.mlp.%s.weight", layer, mlp[j]);
                add(&s, &index, file, name, "BF16", 2, j == 2 ? H : I, j == 2 ? I : H);
            }
            snprintf(name, sizeof name, "model.layers.%d.input_layernorm.weight", layer);
            add(&s, &index, file, name, "F32", 4, H, 0);
            snprintf(name, sizeof name, "model.layers.%d.post_attention_layernorm.weight", layer);
            add(&s, &index, file, name, "F32", 4, H, 0);
        }
        if (k == SHARDS - 1) {
            add(&s, &index, file, "model.norm.weight", "F32", 4, H, 0);
            add(&s, &index, file, "lm_head.weight", "BF16", 2, V, H);
        }
        tensors += (unsigned long long)s.count;
        data += s.off;
        if (write_shard(dir, file, &s, &headers) != 0) {
            perror("write shard");
            vs_buf_free(&s.header);
            goto done;
        }
        vs_buf_free(&s.header);
    }
    vs_buf_puts(&index, "\n  }\n}\n");
    snprintf(path, sizeof path, "%s/model.safetensors.index.json", dir);
    {
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(index.data, 1, index.len, f) != index.len) {
            perror("write index");
            if (f)
                fclose(f);
            goto done;
        }
        fclose(f);
    }
    index_size = stat(path, &st) == 0 ? (long long)st.st_size : -1;

    for (k = -1; k < RUNS; k++) { /* run -1 warms the page cache */
        json_t *sheet = vs_sheet_new("bench"), *payload = NULL;
        double t0, c0;
        long long r0;
        vs_error_clear(&err);
        /* reading /proc/self/io is itself counted: measure that, take it off */
        before = rchar();
        overhead = rchar() - before;
        r0 = rchar();
        t0 = clock_ms(CLOCK_MONOTONIC);
        c0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
        rc = vs_model_apply_weights_files(sheet, path, 0, &payload, &err);
        if (k >= 0) {
            times[k] = clock_ms(CLOCK_MONOTONIC) - t0;
            cpu[k] = clock_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
        }
        if (r0 >= 0 && before >= 0)
            read_bytes = rchar() - r0 - overhead;
        if (rc != 0) {
            fprintf(stderr, "bench_model: %s\n", err.message);
            json_decref(sheet);
            rc = 1;
            goto done;
        }
        if ((unsigned long long)json_integer_value(json_object_get(payload, "bytes")) != data ||
            (unsigned long long)json_integer_value(json_object_get(payload, "tensors")) !=
                tensors) {
            fprintf(stderr, "bench_model: wrong totals\n");
            rc = 1;
        }
        json_decref(payload);
        json_decref(sheet);
        if (rc)
            goto done;
    }
    qsort(times, RUNS, sizeof times[0], cmp_double);
    qsort(cpu, RUNS, sizeof cpu[0], cmp_double);
    printf("bench_model: %d shards, %llu tensors, %llu bytes of tensor data (%.1f GB, sparse)\n",
           SHARDS, tensors, data, (double)data / 1e9);
    printf("bench_model: headers read in %.2f ms (median of %d; min %.2f, max %.2f; CPU %.2f ms); "
           "reference < 50 ms\n",
           times[RUNS / 2], RUNS, times[0], times[RUNS - 1], cpu[RUNS / 2]);
    printf("bench_model: bytes read %lld = index %lld + %d x (8 + header) %llu; tensor data "
           "read: %lld\n",
           read_bytes, index_size, SHARDS, headers, read_bytes - index_size - (long long)headers);
    if (read_bytes < 0) {
        printf("bench_model: /proc/self/io unavailable; bytes read not checked\n");
    } else if (read_bytes != index_size + (long long)headers) {
        fprintf(stderr,
                "bench_model: FAILED: read %lld bytes, expected only the index and "
                "headers (%lld)\n",
                read_bytes, index_size + (long long)headers);
        status = 1;
    }
    if (check && times[RUNS / 2] > 50.0) {
        fprintf(stderr, "bench_model: FAILED: median %.2f ms over 50 ms\n", times[RUNS / 2]);
        status = 1;
    }
    (void)bytes_only;
    rc = status;
done:
    vs_buf_free(&index);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "bench_model: could not remove %s\n", dir);
    return rc;
}
