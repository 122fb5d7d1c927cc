/* vllm.h — what the vLLM engine row (engine/vllm.c) gives beside its row in
 * engines.def: the sampler's kernel its release table says a release takes, for
 * the runtime table's scoring (tests/unit/runtime_rows.h) to score each published
 * row as `estimate=yes` would. Pure.
 */
#ifndef VS_ENGINE_VLLM_H
#define VS_ENGINE_VLLM_H

/* The sampler's kernel vLLM `release` ("0.11.0") takes in its profiling pass when
 * sampler= is not written: "flashinfer" where the release samples with FlashInfer
 * whenever it is importable and image is 1 (the vllm/vllm-openai image, which ships
 * it), else "native": a pip install, or a release the table does not model (V0 never
 * samples with FlashInfer by default; the releases after vllm-project/vllm#26859 opt
 * in). */
const char *vs_vllm_sampler(const char *release, int image);

#endif
