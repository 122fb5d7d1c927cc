/* Benchmark: classifying and rendering many GPU offers against many
 * requirements (the `candidates` verb without the interpreter). Prints the
 * median time per classification and per rendering. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "render/candidates.h"
#include "sheet/classify.h"
#include "sheet/sheet.h"
#include "util/pool.h"

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    size_t noffers = argc > 1 ? (size_t)atoi(argv[1]) : 50, nreq = 10, i, j, runs = 200;
    /* jansson on the pool, as in the vramsheet binary: before any JSON value */
    int pooled = vs_pool_install();
    json_t *s = vs_sheet_new("bench");
    vs_envelope env;
    double *tc = calloc(runs, sizeof *tc), *tr = calloc(runs, sizeof *tr);
    char name[64], price[32];
    memset(&env, 0, sizeof env);
    env.weights_known = 1;
    env.envelope_bytes = 20442450944ULL;
    env.gpus = 1;
    for (j = 0; j < nreq; j++) {
        snprintf(name, sizeof name, "requirement %zu", j);
        json_array_append_new(vs_sheet_array(s, VS_SK_REQUIREMENTS),
                              json_pack("{s:s}", "name", name));
    }
    for (i = 0; i < noffers; i++) {
        json_t *names;
        json_t *n;
        size_t k;
        snprintf(name, sizeof name, "offer %zu", i);
        snprintf(price, sizeof price, "%zu.%02zu", 10 + i % 7, i % 100);
        json_array_append_new(
            vs_sheet_array(s, VS_SK_OFFERS),
            json_pack("{s:s, s:I, s:n, s:s, s:s, s:s, s:i}", "name", name, "memory_bytes",
                      (json_int_t)(24000000000LL + i * 1000000000LL), "reported_bytes", "price",
                      price, "currency", "USD", "period", "3d", "cards", 1));
        names = vs_classify_requirement_names(s);
        json_array_foreach(names, k, n)
        {
            if (k == 0)
                continue;
            json_array_append_new(vs_sheet_array(s, VS_SK_EVIDENCE),
                                  json_pack("{s:s, s:s, s:s, s:s, s:n, s:n}", "candidate", name,
                                            "requirement", json_string_value(n), "verdict",
                                            "admissible", "source", "bench", "version", "scope"));
        }
        json_decref(names);
    }
    for (i = 0; i < runs; i++) {
        vs_classification *c = NULL;
        vs_bundle *b;
        double t0 = now_us(), t1, t2;
        if (vs_classify(&c, s, &env, NULL, NULL))
            return 1;
        t1 = now_us();
        b = vs_candidates_bundle(c, NULL);
        t2 = now_us();
        if (!b)
            return 1;
        vs_bundle_free(b);
        vs_classification_free(c);
        tc[i] = t1 - t0;
        tr[i] = t2 - t1;
    }
    qsort(tc, runs, sizeof *tc, cmp_d);
    qsort(tr, runs, sizeof *tr, cmp_d);
    printf("candidates: %zu offers x %zu requirements (%zu evidence): classify %.1f us, render "
           "%.1f us (median of %zu%s)\n",
           noffers, nreq + 6, json_array_size(vs_sheet_array(s, VS_SK_EVIDENCE)), tc[runs / 2],
           tr[runs / 2], runs, pooled ? "" : "; jansson on malloc");
    free(tc);
    free(tr);
    json_decref(s);
    return 0;
}
