/* sglang_internal.h — what engine/sglang.c and engine/sglang_hybrid.c share. */
#ifndef VS_ENGINE_SGLANG_INTERNAL_H
#define VS_ENGINE_SGLANG_INTERNAL_H

#include "engine/engine.h"

/* mamba_cache_per_req: the bytes one request's state slot takes on one rank
 * (0 when the layout has no state group). */
uint64_t vs_sglang_state_per_req(const vs_engine_env *e);

/* The KV allocation of a hybrid model from the pool left for caches: the state
 * slots first, the attention layers' token pool from the rest, the requests
 * capped by the slots. */
int vs_sglang_hybrid_kv(const vs_engine_env *e, uint64_t pool, unsigned bits, uint64_t per_req,
                        vs_engine_kv *out, vs_error *err);

/* The CUDA context SGLang holds before the weights load on a GPU of architecture (the
 * catalogue's word, may be NULL) named gpu (the catalogue's name), against nvidia-smi's
 * total: the outside MiB that total counts beyond CUDA's (*outside_known 0 where no public
 * log gives the card's CUDA total), the local memory of the card's sms resident threads
 * and a fixed part. 0, or VS_ENOTFOUND saying why. */
int vs_sglang_context(uint64_t *bytes, uint64_t *sms, uint64_t *outside, int *outside_known,
                      const char *architecture, const char *gpu, vs_error *err);

/* SGLang's non_torch (engine/sglang_context.c): what a GPU of architecture (the
 * catalogue's word, may be NULL) named gpu (its name says whether its peers are on PCIe;
 * may be NULL) holds at tp ranks before the weights load, from the published start-up
 * runs. 0, or VS_ENOTFOUND saying why no run backs a figure. */
int vs_sglang_non_torch(uint64_t *bytes, const char *architecture, const char *gpu, uint64_t tp,
                        vs_error *err);

/* The engine's runtime_estimate (engine.h): non_torch for the offer's GPU (e->gpu_name,
 * looked up in the catalogue) and e->tp. */
int vs_sglang_runtime(vs_runtime_estimate *out, char *rule, size_t rule_size,
                      const vs_engine_env *e, const json_t *arch, vs_error *err);

#endif
