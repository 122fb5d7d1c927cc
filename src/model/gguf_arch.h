/* gguf_arch.h — a model's architecture between Hugging Face and GGUF.
 *
 * Two directions, both pure:
 * - a GGUF header's architecture metadata (model/gguf.h vs_gguf_arch) as the
 *   card's KV layout (sheet/kvlayout.h), the way llama.cpp reads it
 *   (ggml-org/llama.cpp src/llama-model.cpp load_hparams at commit
 *   00342301d01a, src/llama-hparams.cpp at 01b77b579398):
 *   attention.head_count_kv one number or one per layer (a layer with 0 KV
 *   heads keeps no cache), key_length / value_length (default
 *   embedding_length / head_count), attention.sliding_window with
 *   attention.sliding_window_pattern as a per-layer array (true: sliding) or
 *   a number n (set_swa_pattern: layer il slides unless il % n == n - 1;
 *   0 = all), without a pattern key the pattern llama.cpp fixes for the
 *   architecture (gemma2: 2 with a 4,096 window when none is given; gemma3:
 *   6; gemma3n: 5, layers from 20 on reusing earlier caches; cohere2 and
 *   olmo2: 4), any other architecture every layer full; and MLA
 *   (attention.kv_lora_rank with rope.dimension_count: one latent vector of
 *   their sum per token and layer, as llama.cpp's DeepSeek-V2/V3 cache keeps
 *   it); llama.cpp's recurrent and hybrid architectures (at 0c1e570: mamba,
 *   mamba2, jamba, granitehybrid, lfm2, lfm2moe, nemotron_h, nemotron_h_moe,
 *   qwen3next, qwen35, qwen35moe, falcon-h1) as a state group of their
 *   recurrent layers (the ssm.* keys, or shortconv.l_cache: conv and SSM rows
 *   in F32, one per sequence) and attention cells only on their attention
 *   layers; llama4's chunks (8,192 on three layers of four), exaone4's and
 *   lfm2's windows;
 * - a family's Hugging Face tensor list (model/family.h) as the tensors
 *   convert_hf_to_gguf.py writes (token_embd, output, blk.N.attn_q/k/v/output,
 *   ffn_gate/up/down, experts merged into one 3-D ffn_*_exps per layer, shared
 *   experts ffn_*_shexp, MLA attn_q_a/attn_q_b/attn_kv_a_mqa and kv_b_proj
 *   split into attn_k_b / attn_v_b), for vs_gguf_quant_predict (model/gguf_quant.h).
 */
#ifndef VS_MODEL_GGUF_ARCH_H
#define VS_MODEL_GGUF_ARCH_H

#include <jansson.h>
#include <stddef.h>

#include "model/family.h"
#include "model/gguf.h"
#include "model/gguf_quant.h"
#include "sheet/kvlayout.h"
#include "util/error.h"

/* More layers than this is a corrupt header (llama.cpp's src/llama-hparams.h
 * LLAMA_MAX_LAYERS is 512). */
#define VS_GGUF_ARCH_LAYERS_MAX 65536

/* The KV layout the metadata describes. VS_EFORMAT (naming the key) when
 * block_count is missing or above VS_GGUF_ARCH_LAYERS_MAX, a per-layer array is not one value per
 * layer; VS_EVALUE when the metadata does not say enough (no head size: neither key_length nor
 * embedding_length / head_count; MLA without rope.dimension_count) or the layers need more than
 * VS_KV_GROUPS_MAX groups. Layers of the same kind and shape share a group wherever they sit. */
int vs_gguf_arch_kv_layout(vs_kv_layout *out, const vs_gguf_arch *a, vs_error *err);

/* The GGUF tensor list of a family's language model (vision towers and
 * projectors go to a separate mmproj file, multi-token-prediction layers are
 * not converted). Free with vs_gguf_quant_list_free. VS_EVALUE naming the first
 * tensor that has no GGUF name here (the family is not mapped). */
int vs_gguf_arch_from_family(const vs_arch *a, vs_gguf_quant_tensor **out, size_t *n,
                             vs_error *err);

/* The same, with what convert_hf_to_gguf.py adds from the config.json (cfg
 * may be NULL): Llama 3.1's rope_freqs.weight when rope_scaling is llama3. */
int vs_gguf_arch_from_config(const vs_arch *a, const json_t *cfg, vs_gguf_quant_tensor **out,
                             size_t *n, vs_error *err);

/* What vs_gguf_quant_predict reads from the architecture (layers, heads, experts,
 * llama.cpp's LLM_TYPE_70B for an 80-layer Llama / Qwen2). */
void vs_gguf_arch_llq_model(vs_gguf_quant_model *m, const vs_arch *a);

#endif
