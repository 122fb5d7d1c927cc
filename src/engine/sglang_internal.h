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

/* The engine's runtime_estimate (engine.h, engine/sglang_context.c): non_torch, what the
 * offer's GPU (e->gpu_name, looked up in the catalogue: its architecture, SM count, threads
 * a SM and totals) holds at e->tp ranks before the weights load, from the published
 * start-up runs. 0, or VS_ENOTFOUND saying why no run backs a figure. */
int vs_sglang_runtime(vs_runtime_estimate *out, char *rule, size_t rule_size,
                      const vs_engine_env *e, const json_t *arch, vs_error *err);

#endif
