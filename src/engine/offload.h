/* offload.h — what llama.cpp keeps in host memory when the card's weights do
 * not fit beside its KV cache: whole layers (-ngl) or, for a mixture of
 * experts, the routed experts of some layers (--n-cpu-moe).
 *
 * llama.cpp places the token embedding on the CPU always, the repeating
 * layers from the last (layers i >= n_layer - n_gpu_layers go to the GPU) and
 * the output layer on the GPU only when n_gpu_layers > n_layer
 * (src/llama-model.cpp load_tensors, ggml-org/llama.cpp); --n-cpu-moe K keeps
 * the expert tensors (ffn_*_exps) of the first K layers on the CPU
 * (common/arg.cpp, 145b628). The bytes of a part are the weights' bytes in
 * proportion to its parameters: the embedding and output vocab x hidden each,
 * a layer an equal share of the rest, the routed experts of a layer experts x
 * (total - active) / (experts - used) / layers, so a quantised file's mix of
 * types is spread evenly.
 *
 * Pure: arithmetic only.
 */
#ifndef VS_ENGINE_OFFLOAD_H
#define VS_ENGINE_OFFLOAD_H

#include <stdint.h>

#include "util/error.h"

typedef struct vs_offload_in {
    uint64_t weights_bytes; /* the model's weights, on one GPU when nothing is offloaded */
    uint64_t room_bytes;    /* the GPU's room for weights once the KV cache, the fit target
                               and the other components are set aside */
    uint64_t params_total;
    uint64_t params_active; /* 0: not a mixture of experts (or unknown) */
    uint64_t layers, vocab, hidden;
    int tied; /* the output shares the embedding: no output tensor of its own */
    uint64_t experts, experts_used;
} vs_offload_in;

typedef enum { VS_OFFLOAD_LAYERS = 0, VS_OFFLOAD_EXPERTS } vs_offload_kind;

typedef struct vs_offload_plan {
    vs_offload_kind kind;
    uint64_t ngl;     /* -ngl: layers on the GPU, the output counted as one (layers + 1: all) */
    uint64_t cpu_moe; /* --n-cpu-moe: the first K layers' experts on the CPU (experts only) */
    uint64_t gpu_weights_bytes, host_bytes;
    uint64_t mapped_bytes; /* the span of the file llama.cpp maps for its host buffer (mmap) */
    uint64_t embed_bytes, output_bytes, layer_bytes, expert_layer_bytes;
} vs_offload_plan;

/* The parts' bytes (embed, output, layer, expert layer) of in, into out. */
void vs_offload_parts(vs_offload_plan *out, const vs_offload_in *in);
/* The weights on the GPU and in host memory with -ngl ngl (no expert override). */
void vs_offload_layers(uint64_t *gpu, uint64_t *host, const vs_offload_in *in, uint64_t ngl);
/* The weights on the GPU and in host memory with every layer on the GPU and
 * --n-cpu-moe k. */
void vs_offload_experts(uint64_t *gpu, uint64_t *host, const vs_offload_in *in, uint64_t k);

/* The bytes llama.cpp maps as its host model buffer with the weights on mmap
 * (its default): the span of the file from the first to the last tensor kept
 * on the CPU (src/llama-model-loader.cpp get_mapping_range, used by
 * src/llama-model.cpp load_tensors for a CPU buffer made from the mapping, at
 * 0c1e570), every tensor between them included, so not what must be resident.
 * The file's order assumed is the one llama-quantize writes (its weights_map,
 * ordered by weight_name_comparer, src/llama-model-loader.h): the tensors
 * outside the layers by name (output.weight before token_embd.weight), then
 * each layer in turn; a layer's tensors are taken as one block. The CPU holds
 * the token embedding, the output when ngl <= layers, the layers below
 * layers - ngl, and the routed experts of layers [lo, hi). */
uint64_t vs_offload_mapped(const vs_offload_in *in, uint64_t ngl, uint64_t lo, uint64_t hi);

/* Where a GGUF's parts lie in its data section (weights_files.tensor_order,
 * model/gguf_io.h): the input layer, the output layer, and per layer its
 * tensors' [first byte, end) and its routed experts' (end 0: none). */
typedef struct vs_offload_order {
    uint64_t input[2], output[2];
    const uint64_t (*layers)[4];
    uint64_t n; /* the layers */
} vs_offload_order;

/* vs_offload_mapped in the file's own order: from the first byte of a part on
 * the CPU to the end of the last. */
uint64_t vs_offload_mapped_in(const vs_offload_order *o, uint64_t ngl, uint64_t lo, uint64_t hi);

/* The smallest offload that leaves room_bytes of weights or less on the GPU:
 * for a mixture of experts, the fewest layers' experts; else the most layers
 * on the GPU. VS_EVALUE when even the smallest GPU share does not fit, or a
 * figure is missing (layers, parameters). */
int vs_offload_llamacpp(vs_offload_plan *out, const vs_offload_in *in, vs_error *err);

#endif
