/* cuda_graphs.h — vLLM's CUDA graphs: how many a release captures, and an
 * estimate of their memory.
 *
 * The count follows the release's compilation config: the capture sizes are
 * 1, 2, 4 and every multiple of 8 up to min(2 x max_num_seqs, 512), none above
 * max_num_batched_tokens (V1, 0.10.2 and 0.11.0; V0 captured up to the first
 * size not below max_num_seqs). 0.10.2 captures one piecewise graph per size;
 * 0.11.0 (FULL_AND_PIECEWISE) adds a full decode graph per size up to
 * max_num_seqs. No source gives the bytes of a graph, but it fixes what a graph
 * holds: V1 compiles the model split at every attention (and state-space) layer
 * (splitting_ops, vllm/compilation/backends.py split_graph) and captures each
 * piece at each size (vllm/compilation/cuda_piecewise_backend.py), a full graph
 * records every layer's kernels, and V0 records the whole decoder per size: the
 * bytes follow graphs x layers. The estimate is that product times a per
 * layer-graph constant fitted on published start-up logs
 * (tests/data/engine_startup/vllm_graphs.tsv, tests/bench/bench_graphs.c).
 *
 * Pure: no I/O, no globals beyond the constant tables.
 */
#ifndef VS_ENGINE_CUDA_GRAPHS_H
#define VS_ENGINE_CUDA_GRAPHS_H

#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"
#include "util/error.h"

/* The bytes one captured graph is estimated to hold per decoder layer (fitted:
 * 400 KiB, the mean of the fitting half's 0.384 and 0.393 MiB, rounded). */
#define VS_CUDA_GRAPHS_PER_LAYER_GRAPH ((uint64_t)400 << 10)

typedef struct vs_cuda_graphs_count {
    uint64_t piecewise; /* graphs of mixed prefill-decode batches (V0: its decode graphs) */
    uint64_t full;      /* full decode graphs (0.11.0's FULL_AND_PIECEWISE) */
    uint64_t largest;   /* the largest capture size, in tokens */
} vs_cuda_graphs_count;

/* The graphs a release captures: release "v0" (vllm/worker/model_runner.py's
 * sizes, up to the first not below max_num_seqs) or one of engine/vllm.c's table
 * ("0.10.2", "0.11.0"; from "0.12.0" the sizes step by 16 from 256);
 * max_num_seqs and max_num_batched_tokens as resolved (V0 ignores the latter).
 * 0, or VS_ENOTFOUND naming the releases whose rule is known, VS_EVALUE for a
 * zero max_num_seqs. */
int vs_cuda_graphs_count_of(vs_cuda_graphs_count *out, const char *release, uint64_t max_num_seqs,
                            uint64_t max_num_batched_tokens, vs_error *err);

/* The cuda_graphs item: the count of vs_cuda_graphs_count_of times the model's
 * decoder layers (num_hidden_layers) times VS_CUDA_GRAPHS_PER_LAYER_GRAPH, with its
 * rule (static) and stated error. VS_EVALUE for a zero layer count. */
int vs_cuda_graphs_estimate(vs_runtime_estimate *out, vs_cuda_graphs_count *count,
                            const char *release, uint64_t max_num_seqs,
                            uint64_t max_num_batched_tokens, uint64_t layers, vs_error *err);

#endif
