/* fit.h — what the declared engine will do with each offer, before renting it.
 *
 * Per offer and per GPU of the placement: the capacity the engine sees (the
 * offer's declared reported= total, else the catalogue's CUDA total, else the
 * device-reported nvidia-smi total, else the nominal figure, and which), the
 * engine's budget, the non-KV part (weights, the other components, the runtime
 * items the engine takes out of its budget), the KV pool, its capacity in
 * tokens, the maximum concurrency at the card's length, the maximum length at
 * the card's concurrency, and which formats of a list fit. What is unknown is
 * named; with unknown items every figure is an upper bound. `fit` and the
 * capacity requirement of `candidates` both come from here.
 *
 * Pure: no I/O (the catalogue is embedded data).
 */
#ifndef VS_ENGINE_FIT_H
#define VS_ENGINE_FIT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"
#include "sheet/classify.h"
#include "sheet/placement.h"
#include "util/error.h"

#define VS_FIT_FORMATS_MAX 16
#define VS_FIT_DEVICES_MAX 16

/* What a sheet gives every offer's fit, read once. */
typedef struct vs_fit_ctx {
    const json_t *sheet;
    const vs_engine *engine;
    vs_engine_env env; /* every field but the offer's total (and the weights per format) */
    vs_placement placement;
    int params_known;
    uint64_t params;
    const char *layout_source; /* static: where the KV layout came from, NULL unknown */
    json_t *unknown;           /* names of unknown components and items (array, owned) */
    const char *format;        /* the card's format, borrowed */
    /* the whole model's weights of the formats= list, where the caller found
     * them (a scheme summed over the tensor list, a llama.cpp file type);
     * a format not here is params x its bits */
    size_t nweights;
    struct {
        const char *format; /* borrowed */
        uint64_t bytes;
    } weights[VS_FIT_FORMATS_MAX];
} vs_fit_ctx;

typedef struct vs_fit_format {
    const char *format; /* borrowed from the caller's list */
    int bits_known;     /* format is a format name (vs_envelope_format_bits) */
    unsigned bits;
    int weights_known;
    uint64_t weights_bytes; /* per GPU */
    int64_t kv_pool_bytes;
    uint64_t kv_tokens;
    double max_concurrency;
    vs_verdict verdict;
} vs_fit_format;

/* One GPU of an uneven split (placement split=) or of an offer of mixed cards
 * (gpu ... devices=): its own total and budget, and its share. */
typedef struct vs_fit_device {
    char name[64];           /* the card's catalogue name; "" for a card of the offer's kind */
    uint64_t capacity_bytes; /* its total on the offer's basis */
    uint64_t budget_bytes;   /* the engine's budget on that total */
    uint64_t share_bytes;    /* its weights, KV cache and other components */
    int64_t kv_pool_bytes;   /* its budget less its weights and other components: its room
                                for the KV cache (may be negative) */
    int holds;               /* share within budget */
} vs_fit_device;

typedef struct vs_fit_row {
    char gpu[128];
    int capacity_known;
    uint64_t capacity_bytes;
    const char *capacity_basis; /* "reported" (declared), "cuda", "device", "nominal"; NULL */
    char capacity_note[1024];
    unsigned cards;
    uint64_t budget_bytes;
    uint64_t non_kv_bytes; /* known part */
    int64_t kv_pool_bytes; /* may be negative: the non-KV part exceeds the budget */
    uint64_t kv_tokens;
    uint64_t blocks, page_bytes;
    int need_known;
    uint64_t need_bytes;
    double max_concurrency;
    uint64_t max_length;
    uint64_t outside_bytes;   /* known runtime items held beyond the budget */
    int upper_bound;          /* something unknown: the figures are upper bounds */
    json_t *unknown;          /* names (new array) */
    vs_verdict verdict;       /* overall */
    vs_verdict start_verdict; /* the engine starts: non-KV within the budget, one request */
    vs_verdict concurrency_verdict;
    vs_verdict length_verdict;
    char note[640];
    char budget_rule[320];
    char kv_rule[400];
    uint64_t host_bytes;   /* what the engine keeps in host memory (weights and KV) */
    char host_rule[480];   /* which ("" when nothing) */
    char layout_note[480]; /* where the engine's KV layout differs from the model's */
    vs_fit_format formats[VS_FIT_FORMATS_MAX];
    size_t nformats;
    /* each GPU on its own (fit_devices.c): none unless the placement splits
     * unevenly or the offer mixes cards */
    vs_fit_device devices[VS_FIT_DEVICES_MAX];
    size_t ndevices;
    int devices_uneven;     /* the shares follow split= or the cards' totals (llama.cpp) */
    char devices_rule[480]; /* how the shares were made ("" when none) */
} vs_fit_row;

/* Reads the sheet once (engine, keys, layout, components, placement).
 * 0, or a negative code (an engine key that does not parse, memory). */
int vs_fit_prepare(vs_fit_ctx *c, const json_t *sheet, vs_error *err);
void vs_fit_ctx_free(vs_fit_ctx *c);

/* One offer (a sheet offer object). formats may be NULL (nformats 0).
 * row->unknown is a new array the caller frees with vs_fit_row_free; on an
 * error (VS_EVALUE: an engine rule refuses the keys) the row holds nothing. */
int vs_fit_offer(vs_fit_row *row, const vs_fit_ctx *c, const json_t *offer,
                 const char *const *formats, size_t nformats, vs_error *err);
void vs_fit_row_free(vs_fit_row *row);

/* The capacity the engine sees for an offer, and its basis (see above). */
void vs_fit_capacity(vs_fit_row *row, const json_t *offer);

/* The engine's budget on a GPU of total_bytes named gpu (a catalogue name,
 * NULL: the offer's), the offer's other keys as given. 0, or a negative code. */
int vs_fit_budget_at(uint64_t *budget, const vs_fit_ctx *c, const json_t *offer, const char *gpu,
                     uint64_t total_bytes, vs_error *err);

/* The row's KV figures (pool, tokens, concurrency, length) for a pool of
 * pool bytes per GPU on the row's capacity: the split's, when each GPU of an
 * uneven one is sized on its own. 0, or a negative code. */
int vs_fit_pool_at(vs_fit_row *row, const vs_fit_ctx *c, const json_t *offer, int64_t pool,
                   vs_error *err);

/* Each GPU of the row's offer on its own, after the row's own fit (of one GPU
 * of an even split, the smallest card of mixed ones): under an engine that
 * takes uneven shares of the layers (llama.cpp's -ts; without -ts it splits
 * by each device's free memory), each GPU's share of the weights and the KV
 * cache by split= or by the cards' totals, plus its own other components,
 * against its own budget, the verdict naming the GPU that does not hold;
 * under an engine that splits every layer evenly, each card's even share
 * against its own budget (the smallest card decides). Nothing when the
 * placement splits evenly over cards of one kind. 0, or a negative code. */
int vs_fit_devices(vs_fit_row *row, const vs_fit_ctx *c, const json_t *offer, vs_error *err);

/* sheet/classify.h's classification of every offer, under the card's engine:
 * an engine other than none whose keys resolve decides capacity, length and
 * concurrency by its fit of each offer (an offer it cannot fit by capacity);
 * engine none, or keys that do not resolve, by capacity alone. 0, or VS_ENOMEM. */
int vs_fit_classify(vs_classification **out, const json_t *sheet, const vs_envelope *env,
                    const vs_component_views *views, vs_error *err);

#endif
