/* llamacpp.h — what the llama.cpp engine row (engine/llamacpp.c) gives the
 * other llama.cpp files beside its row in engines.def: how its KV cache is
 * allocated, which the compute buffer's estimate (engine/llamacpp_compute.c)
 * sizes its graph by. Pure.
 */
#ifndef VS_ENGINE_LLAMACPP_H
#define VS_ENGINE_LLAMACPP_H

#include <stdint.h>

#include "engine/engine.h"

/* The cells per stream of the largest cache and the effective ubatch, as
 * llama.cpp allocates them under e. */
void vs_llamacpp_compute_cells(const vs_engine_env *e, uint64_t *cells, uint64_t *ubatch);

#endif
