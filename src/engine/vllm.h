/* vllm.h — what the vLLM engine row (engine/vllm.c) gives beside its row in
 * engines.def: what its release table says a release does, for the estimators
 * (engine/cuda_graphs.c, the estimate verb) and the runtime table's scoring
 * (tests/unit/runtime_rows.h) to follow the release a sheet or a published row
 * names. Pure.
 */
#ifndef VS_ENGINE_VLLM_H
#define VS_ENGINE_VLLM_H

#include <stddef.h>
#include <stdint.h>

/* The capture sizes a release's CUDA graphs follow (engine/cuda_graphs.c). */
enum {
    VS_VLLM_GRAPHS_UNKNOWN,
    VS_VLLM_GRAPHS_PIECEWISE, /* 0.10.2: 1, 2, 4, 8k; piecewise graphs only */
    VS_VLLM_GRAPHS_FULL,      /* 0.11.0: the same sizes, + full decode graphs */
    VS_VLLM_GRAPHS_STEP16     /* 0.12.0 on: by 8 to 248, by 16 from 256; + full */
};

/* The sampler's kernel vLLM `release` ("0.11.0") takes in its profiling pass when
 * sampler= is not written: "flashinfer" where the release samples with FlashInfer
 * whenever it is importable and image is 1 (the vllm/vllm-openai image, which ships
 * it); "triton" from 0.17.0 (the Triton top-k/top-p kernel); else "native": a pip
 * install of 0.10.2 or 0.11.0, the releases between, or a release the table does
 * not model (V0 never samples with FlashInfer by default). */
const char *vs_vllm_sampler(const char *release, int image);

/* The capture-size rule of `release` (VS_VLLM_GRAPHS_*; UNKNOWN for a release the
 * table does not model). */
int vs_vllm_graphs(const char *release);

/* What `release` adds on every rank to the non-torch memory of 0.11 and before
 * (vs_runtime_estimate_context) at tensor parallelism tp on a GPU of `architecture`
 * (the catalogue's word, may be NULL) named `gpu` (may be NULL), in bytes: 96 MiB from
 * 0.18.0, fitted; in 0.19.0 at tp 2 the buffers of a larger group
 * (vs_engine_context_pair_as_group), but on a card the name says is a PCIe one (no
 * NVSwitch, no NVLS). 0 for a release the table does not model. */
uint64_t vs_vllm_non_torch_release(const char *release, const char *architecture, const char *gpu,
                                   uint64_t tp);

/* The table's releases, oldest first: the i-th release's version, the release it
 * carries unchanged (NULL: it changes something) and what it changes (NULL when
 * carried). 0 past the last. */
int vs_vllm_release_at(size_t i, const char **version, const char **carried, const char **changed);

#endif
