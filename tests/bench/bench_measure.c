/* bench_measure — the cost of measuring, against the fake NVML.
 *
 * 1. CPU of the sampler thread at 10 ms (1 and 8 GPUs) over a few seconds, and of
 *    the whole measuring process (sampler + the runner's loop): target < 1% of
 *    one core for the sampler.
 * 2. Output latency with the live gauge on: a command prints its clock every
 *    20 ms; each line's delay until the notebook's stream callback is measured
 *    while the gauge is rendered and serialised (as the kernel would) 4 times a
 *    second through the real interpreter.
 * Usage: bench_measure FAKE_NVML_LIBRARY [SECONDS]. Prints each figure beside
 * its target; exit status 1 on a regression: the sampler at 3% of a core or
 * more (three times its target), or an output line waited over 100 ms.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "lang/interp.h"
#include "measure/measure.h"
#include "render/bundle.h"

static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

static int sampler_cost(int gpus, double seconds, double *thread_pct)
{
    char script[2048], cmd[64];
    FILE *f;
    size_t off = 0;
    int g;
    vs_measure_options o;
    vs_measure_result r;
    vs_error err;
    double c0, c1;
    for (g = 0; g < gpus; g++)
        off += (size_t)snprintf(script + off, sizeof script - off,
                                "gpu %d name=\"Fake\" total=85899345920 used=%d\n", g, 1000 + g);
    f = fopen("/tmp/bench_measure_script", "w");
    fputs(script, f);
    fclose(f);
    setenv("FAKE_NVML_SCRIPT", "/tmp/bench_measure_script", 1);
    unsetenv("FAKE_NVML_STATE");
    snprintf(cmd, sizeof cmd, "sleep %.1f", seconds);
    memset(&o, 0, sizeof o);
    o.command = cmd;
    o.phase = "bench";
    c0 = cpu_s();
    if (vs_measure_run(&o, &r, &err) < 0) {
        fprintf(stderr, "bench_measure: %s\n", err.message);
        return -1;
    }
    c1 = cpu_s();
    *thread_pct = 100.0 * (double)r.view->cpu_ns / 1e9 / ((double)r.run.elapsed_ms / 1000.0);
    printf("sampler at 10 ms, %d GPU(s), %.1f s: %llu rounds, longest gap %lld ms; sampler thread "
           "%.3f%% of a core; whole process (sampler + runner loop) %.3f%%\n",
           gpus, (double)r.run.elapsed_ms / 1000.0, (unsigned long long)r.view->samples,
           (long long)r.view->max_gap_ms, *thread_pct,
           100.0 * (c1 - c0) / ((double)r.run.elapsed_ms / 1000.0));
    vs_measure_result_clear(&r);
    return 0;
}

typedef struct lat {
    double max_ms, sum_ms;
    int lines, gauges;
    char partial[256];
    size_t npartial;
    double max_gauge_ms;
} lat;

static double now_real_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

static void on_stream(void *ctx, const char *name, const char *text, size_t len)
{
    lat *l = ctx;
    size_t i;
    double t = now_real_ms();
    (void)name;
    for (i = 0; i < len; i++) {
        if (text[i] == '\n') {
            l->partial[l->npartial] = '\0';
            if (l->npartial > 10) {
                double sent = strtod(l->partial, NULL) / 1e6;
                double d = t - sent;
                if (d > l->max_ms)
                    l->max_ms = d;
                l->sum_ms += d;
                l->lines++;
            }
            l->npartial = 0;
        } else if (l->npartial + 1 < sizeof l->partial) {
            l->partial[l->npartial++] = text[i];
        }
    }
}

static void on_display(void *ctx, const vs_bundle *bundle, const char *id, int update)
{
    lat *l = ctx;
    double t0 = now_real_ms(), d;
    char *s = malloc(bundle->len + 40); /* what the kernel does with it: one copy */
    (void)id;
    (void)update;
    if (s)
        snprintf(s, bundle->len + 40, "{\"data\":%s,\"metadata\":{}}", bundle->json);
    free(s);
    d = now_real_ms() - t0;
    if (d > l->max_gauge_ms)
        l->max_gauge_ms = d;
    l->gauges++;
}

static int output_latency(double seconds, lat *l)
{
    vs_interp *ip = vs_interp_new(NULL);
    vs_sink sink;
    vs_bundle *res = NULL;
    vs_error err;
    char code[512];
    int n = (int)(seconds * 50), rc;
    FILE *f = fopen("/tmp/bench_measure_script", "w");
    fputs("gpu 0 name=\"Fake\" total=85899345920 used=1000\ngpu 1 name=\"Fake\" total=85899345920 "
          "used=1000\n",
          f);
    fclose(f);
    memset(&sink, 0, sizeof sink);
    memset(l, 0, sizeof *l);
    sink.ctx = l;
    sink.stream = on_stream;
    sink.display = on_display;
    snprintf(code, sizeof code,
             "measure phase=bench -- i=0; while [ $i -lt %d ]; do date +%%s%%N; sleep 0.02; "
             "i=$((i+1)); done",
             n);
    rc = vs_interp_execute(ip, code, &sink, &res, &err);
    vs_bundle_free(res);
    vs_interp_free(ip);
    if (rc < 0) {
        fprintf(stderr, "bench_measure: %s\n", err.message);
        return -1;
    }
    printf("output with the gauge on: %d lines, delay mean %.2f ms, max %.2f ms; %d gauge "
           "displays, the slowest rendered in %.2f ms\n",
           l->lines, l->lines ? l->sum_ms / l->lines : 0.0, l->max_ms, l->gauges, l->max_gauge_ms);
    return 0;
}

int main(int argc, char **argv)
{
    double seconds = argc > 2 ? atof(argv[2]) : 3.0, pct1 = 0, pct8 = 0;
    lat l;
    int fail = 0;
    if (argc < 2) {
        fprintf(stderr, "usage: bench_measure FAKE_NVML_LIBRARY [SECONDS]\n");
        return 2;
    }
    setenv("VRAMSHEET_NVML_LIBRARY", argv[1], 1);
    setenv("VRAMSHEET_RECORDS", "/tmp/bench_measure_records", 1);
    if (sampler_cost(1, seconds, &pct1) < 0 || sampler_cost(8, seconds, &pct8) < 0 ||
        output_latency(seconds, &l) < 0)
        return 1;
    /* The target is printed; the exit status guards against a regression only.
     * A thread's CPU share over 3 s moves by a third on a shared machine
     * (0.75-1.01% on one build), and a sampler that spins costs tens of times
     * the target, so the gate sits at three times it. */
    printf("sampler target < 1%% of a core at 10 ms: %s (%.3f%%)\n",
           pct1 < 1.0 ? "met" : "not met on this run", pct1);
    if (pct1 >= 3.0) {
        printf("FAIL: the sampler costs %.3f%% of a core at 10 ms (3x the 1%% target)\n", pct1);
        fail = 1;
    }
    if (l.lines == 0 || l.max_ms > 100.0 || l.gauges < 2) {
        printf("FAIL: output waited %.2f ms (%d lines, %d gauges)\n", l.max_ms, l.lines, l.gauges);
        fail = 1;
    }
    return fail;
}
