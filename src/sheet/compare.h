/* compare.h — the sheet's estimate against what was measured, per component
 * class (`compare`).
 *
 * Classes: weights, kv_cache, activations, non_torch (CUDA context, NCCL and
 * other memory outside the framework's allocator), cuda_graphs, other. The
 * estimate of a class is the sum of the sheet's components of that class on
 * one GPU after placement (the weights as the envelope weighs them; the
 * runtime items by their fixed names non_torch, activation_peak, cuda_graphs).
 * The measurement of a class is the largest current measurement of the
 * counters that stand for it (vLLM's, llama.cpp's), on the GPU compared or
 * with no GPU; a total (device used, nvidia-smi used, vLLM's usable budget,
 * llama.cpp's self) gives the `unaccounted` row: the measured total minus the
 * measured parts. Components in CUDA managed memory ("memory": "managed") make
 * the managed row, in the total (the device holds them) but not in the
 * allocator row: the total less them, measured by PyTorch's caching-allocator
 * counters (torch.max_memory_allocated / max_memory_reserved and the like,
 * torchtune's peak_memory_*), which never see managed memory. Components of
 * the caching allocator's reserved-but-free memory ("memory": "cache") make the
 * allocator cache row, in the total and the allocator row (memory_reserved
 * counts them) but not in the tensors row, the allocator row less them: a
 * counter of live tensors (max_memory_allocated, memory_stats' allocated_bytes
 * and active_bytes, torchtune's peak_memory_active and peak_memory_alloc) is
 * compared against the tensors row, a reserved one (max_memory_reserved,
 * reserved_bytes, torchtune's peak_memory_reserved) against the allocator
 * row. A failure the engine printed (no room
 * for the KV cache) measures the kv_cache row at 0, status "engine found no room". An estimate
 * below its measurement by more than the printed figures' resolution is an under-estimate, flagged.
 * Pure: no I/O.
 */
#ifndef VS_SHEET_COMPARE_H
#define VS_SHEET_COMPARE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

enum {
    VS_CMP_NONE = -1, /* a counter that stands for no row */
    VS_CMP_WEIGHTS = 0,
    VS_CMP_KV,
    VS_CMP_ACTIVATIONS,
    VS_CMP_NON_TORCH,
    VS_CMP_CUDA_GRAPHS,
    VS_CMP_OTHER,
    VS_CMP_MANAGED, /* CUDA managed memory (a paged optimizer's state): no counter */
    VS_CMP_CACHE,   /* the caching allocator's reserved-but-free memory: no counter */
    VS_CMP_UNACCOUNTED,
    VS_CMP_TOTAL,
    VS_CMP_ALLOCATOR, /* the total less managed memory, against PyTorch's reserved counters */
    VS_CMP_TENSORS,   /* the allocator row less its cache, against the allocated ones */
    VS_CMP_NROWS
};

typedef struct vs_compare_row {
    const char *cls;         /* "weights", ..., "unaccounted", "total" (static) */
    int has_estimate;        /* at least one component of the class is known */
    size_t unknown;          /* components of the class with unknown bytes */
    int64_t estimated_bytes; /* per GPU */
    int has_measured;
    int64_t measured_bytes;    /* per GPU (unaccounted: may be negative) */
    uint64_t resolution_bytes; /* how far the printed figures may be from the bytes */
    const char *measured_from; /* the counter taken (borrowed from the sheet), or NULL */
    int has_delta;
    int64_t delta_bytes; /* estimated - measured */
    const char *status;  /* "under-estimate", "covers", "not measured",
                            "not estimated", "unaccounted", "accounted",
                            "engine found no room" (static) */
} vs_compare_row;

typedef struct vs_compare {
    vs_compare_row rows[VS_CMP_NROWS];
    int gpu_known; /* 0: no GPU named, measurements with no GPU only */
    int gpu;       /* the GPU compared, when gpu_known */
    unsigned gpus; /* GPUs of the placement */
    size_t under;  /* rows flagged under-estimate */
    /* the engine said it found no room for the KV cache (vLLM's negative
     * "Available KV cache memory", its "No available memory for the cache
     * blocks", SGLang's "leave no GPU memory for the KV cache"): the kv_cache
     * row is measured at 0 and its status says so */
    int no_room;
    const char *no_room_from; /* the counter (borrowed from the sheet) */
    int has_shortfall;        /* the pool's negative figure, when printed */
    int64_t shortfall_bytes;  /* what the pool lacked (> 0) */
} vs_compare;

/* The class a measurement counter stands for ("vllm.model_weights" ->
 * VS_CMP_WEIGHTS), VS_CMP_TOTAL for a total, or VS_CMP_NONE. From the name
 * alone: vs_compare_sheet reads a measurement's scope first ("tensors",
 * "allocator"), and the name when it has none. */
int vs_compare_counter_class(const char *counter);

/* Compares the sheet on gpu when gpu_known; else on the lowest GPU index
 * among the measurements, or on none. 0, or a negative code on overflow. */
int vs_compare_sheet(vs_compare *out, const json_t *sheet, int gpu_known, unsigned gpu,
                     vs_error *err);

#endif
