/* bench_offers.h — the sheet bench_fit and bench_launch time: a 27 B model of
 * a hybrid (sliding + full) KV layout at 32,768 tokens x 8 under vLLM, and 20
 * offers of 24 to 176 GB, each reporting 0.5 GB less than its nominal memory.
 * model may be NULL (fit needs none; a launch command names it). */
#ifndef VS_BENCH_OFFERS_H
#define VS_BENCH_OFFERS_H

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "sheet/sheet.h"

#define BENCH_OFFERS 20

/* The two benchmarks' command line: a count of runs (200 unless given, at
 * least 1) and --check (exit 1 when the median passes the reference). */
static inline void bench_offers_args(int argc, char **argv, int *runs, int *check)
{
    int i;
    *runs = 200;
    *check = 0;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--check"))
            *check = 1;
        else
            *runs = atoi(argv[i]);
    }
    if (*runs < 1)
        *runs = 1;
}

static inline json_t *bench_offers_sheet(const char *name, const char *model)
{
    json_t *sheet = vs_sheet_new(name), *card = vs_sheet_card(sheet), *offers;
    json_error_t je;
    int k;
    if (model)
        json_object_set_new(card, "model", json_string(model));
    json_object_set_new(card, "params", json_integer(27000000000LL));
    json_object_set_new(card, "format", json_string("bf16"));
    json_object_set_new(card, "length", json_integer(32768));
    json_object_set_new(card, "concurrency", json_integer(8));
    json_object_set_new(
        card, "arch",
        json_pack("{s:o}", "kv_layout",
                  json_loads("[{\"kind\": \"sliding\", \"layers\": 52, \"kv_heads\": 16, "
                             "\"head_dim\": 128, \"window\": 1024},"
                             " {\"kind\": \"full\", \"layers\": 10, \"kv_heads\": 16, "
                             "\"head_dim\": 128}]",
                             0, &je)));
    json_object_set_new(card, "engine", json_loads("{\"name\": \"vllm\", \"keys\": {}}", 0, &je));
    offers = vs_sheet_array(sheet, VS_SK_OFFERS);
    for (k = 0; k < BENCH_OFFERS; k++)
        json_array_append_new(offers,
                              json_pack("{s:s, s:I, s:I, s:s, s:i}", "name", "gpu", "memory_bytes",
                                        (json_int_t)(24 + 8 * k) * 1000000000, "reported_bytes",
                                        (json_int_t)(24 + 8 * k) * 1000000000 - 500000000,
                                        "reported_basis", "declared with reported=", "cards", 1));
    return sheet;
}

#endif
