/* bench_import — `measure import` of a 100,000-line log, end to end through
 * the interpreter (file read, sniffing, the importer, the checks, the sheet,
 * the table), beside two references over the same file: `grep -c` of one
 * phrase, and python3 matching the same phrases with a regular expression.
 * Logs: a vLLM start-up log (eight TP workers' lines among plain INFO lines)
 * and a llama.cpp one. Usage: bench_import [LINES]. Exit status 1 when an
 * import takes 200 ms of CPU or more (wall time is printed too: on a shared
 * machine it also counts the others' work). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_clock.h"

#include "lang/interp.h"
#include "render/bundle.h"

static const char *const vllm_lines[] = {
    "(VllmWorker rank=%d pid=4%d) INFO 04-24 16:32:03 [loader.py:458] Loading weights took 2.72 "
    "seconds",
    "(VllmWorker rank=%d pid=4%d) INFO 04-24 16:33:00 [gpu_model_runner.py:1316] Model loading "
    "took 14.9889 GiB and 3.652170 seconds",
    "(VllmWorker rank=%d pid=4%d) INFO 04-24 16:33:06 [backends.py:420] Using cache directory: "
    "/home/u/.cache/vllm/torch_compile_cache/0dd1850a5d/rank_0_0 for vLLM's torch.compile",
    "(VllmWorker rank=%d pid=4%d) INFO 04-24 16:33:12 [monitor.py:33] torch.compile takes 6.41 s "
    "in total",
    "(VllmWorker rank=%d pid=4%d) INFO 10-03 16:22:17 [gpu_worker.py:298] Available KV cache "
    "memory: 6.51 GiB",
    "(VllmWorker rank=%d pid=4%d) INFO 04-24 16:33:13 [kv_cache_utils.py:634] GPU KV cache size: "
    "158,656 tokens",
    "(VllmWorker rank=%d pid=4%d) INFO 04-24 16:33:13 [kv_cache_utils.py:637] Maximum concurrency "
    "for 32,768 tokens per request: 4.84x",
    "INFO:     127.0.0.1:5%d%d - \"POST /v1/completions HTTP/1.1\" 200 OK",
    "(VllmWorker rank=%d pid=4%d) INFO 12-19 22:58:41 model_runner.py:1535] Graph capturing "
    "finished in 14 secs, took 0.21 GiB",
    "INFO 04-12 08:21:1%d [metrics.py:%d] Avg prompt throughput: 0.0 tokens/s, Avg generation "
    "throughput: 84.1 tokens/s, Running: 1 reqs",
};

static const char *const llama_lines[] = {
    "llm_load_tensors:      CUDA%d buffer size =  731%d.71 MiB",
    "llama_kv_cache_init:      CUDA%d KV buffer size =   18%d.00 MiB",
    "llama_new_context_with_model:      CUDA%d compute buffer size =   10%d.00 MiB",
    "llama_kv_cache_init: layer %d: n_embd_k_gqa = 1024, n_embd_v_gqa = 102%d",
    "llama_model_loader: - kv  %d:                       general.architecture str = llama%d",
    "slot update_slots: id  %d | task %d | prompt done, n_past = 512, n_tokens = 512",
};

static void write_log(const char *path, const char *const *lines, size_t nl, size_t n)
{
    FILE *f = fopen(path, "w");
    size_t i;
    if (!f) {
        perror(path);
        exit(2);
    }
    for (i = 0; i < n; i++) {
        fprintf(f, lines[i % nl], (int)(i / nl) % 8, (int)(i % 10));
        fputc('\n', f);
    }
    fclose(f);
}

static double run_cmd(const char *cmd)
{
    double t0 = now_ms();
    if (system(cmd) != 0)
        return -1;
    return now_ms() - t0;
}

static void on_display(void *ctx, const vs_bundle *b, const char *id, int update)
{
    (void)ctx, (void)b, (void)id, (void)update;
}

/* Wall milliseconds of one import; *cpu its CPU milliseconds (the machine
 * may be shared: the CPU time is what the gate reads). */
static double import_ms(const char *path, const char *format, size_t *rows, double *cpu)
{
    vs_interp *ip = vs_interp_new(NULL);
    vs_sink sink;
    vs_bundle *b = NULL;
    vs_error err;
    char code[1024];
    double t0, t, c0;
    memset(&sink, 0, sizeof sink);
    sink.display = on_display;
    snprintf(code, sizeof code, "sheet \"bench\"\nmeasure import \"%s\" format=%s", path, format);
    t0 = now_ms();
    c0 = cpu_ms();
    if (vs_interp_execute(ip, code, &sink, &b, &err) != 0) {
        fprintf(stderr, "bench_import: %s\n", err.message);
        exit(2);
    }
    t = now_ms() - t0;
    *cpu = cpu_ms() - c0;
    *rows = b ? b->len : 0;
    vs_bundle_free(b);
    vs_interp_free(ip);
    return t;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? (size_t)strtoul(argv[1], NULL, 10) : 100000, len;
    char dir[] = "/tmp/vs-bench-import-XXXXXX", vpath[256], lpath[256], cmd[1024];
    double best_v = 1e9, best_l = 1e9, cpu_v = 1e9, cpu_l = 1e9, g, py, cv, cl;
    int k, fail = 0;
    char records[300];
    if (!mkdtemp(dir))
        return 2;
    snprintf(records, sizeof records, "%s/records", dir);
    setenv("VRAMSHEET_RECORDS", records, 1);
    snprintf(vpath, sizeof vpath, "%s/vllm.log", dir);
    snprintf(lpath, sizeof lpath, "%s/llama.log", dir);
    write_log(vpath, vllm_lines, sizeof vllm_lines / sizeof vllm_lines[0], n);
    write_log(lpath, llama_lines, sizeof llama_lines / sizeof llama_lines[0], n);
    for (k = 0; k < 5; k++) {
        double v = import_ms(vpath, "auto", &len, &cv), l = import_ms(lpath, "llamacpp", &len, &cl);
        if (v < best_v)
            best_v = v;
        if (l < best_l)
            best_l = l;
        if (cv < cpu_v)
            cpu_v = cv;
        if (cl < cpu_l)
            cpu_l = cl;
    }
    snprintf(cmd, sizeof cmd, "grep -c 'KV cache' '%s' > /dev/null", vpath);
    g = run_cmd(cmd);
    snprintf(cmd, sizeof cmd,
             "python3 -c \"import re,sys; r=re.compile(r'(Model loading took|Available KV cache "
             "memory:|GPU KV cache size:|Maximum concurrency for|Graph capturing finished in) "
             "([0-9.,]+)'); print(sum(1 for l in open(sys.argv[1]) if r.search(l)))\" '%s' > "
             "/dev/null",
             vpath);
    py = run_cmd(cmd);
    printf("import of %zu lines (best of 5, through the interpreter):\n", n);
    printf("  vllm log, format=auto   %8.1f ms wall, %8.1f ms CPU   (target < 200 ms)\n", best_v,
           cpu_v);
    printf("  llama.cpp log           %8.1f ms wall, %8.1f ms CPU   (target < 200 ms)\n", best_l,
           cpu_l);
    printf("references on the vllm log:\n");
    printf("  grep -c 'KV cache'      %8.1f ms\n", g);
    printf("  python3 re, 5 phrases   %8.1f ms   (process start included)\n", py);
    if (cpu_v >= 200 || cpu_l >= 200)
        fail = 1;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "bench_import: could not remove %s\n", dir);
    return fail;
}
