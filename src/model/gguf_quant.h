/* gguf_quant.h — the per-tensor types llama.cpp gives a model for a file type.
 *
 * `llama-quantize model.gguf Q4_K_M` does not write every tensor at Q4_K: the
 * output tensor goes to Q6_K, half of the layers keep attn_v and ffn_down at
 * Q6_K, norms stay F32, and a row that is not a whole number of blocks falls
 * back to another type. This module is those rules as a pure function of the
 * tensor list (name, ggml shape) and the file type, so a model's bytes at
 * Q4_K_M can be told before the file exists.
 *
 * Followed: ggml-org/llama.cpp src/llama-quant.cpp at commit 007dbbf3fd17
 * (tensor_allows_quantization, llama_tensor_get_type_impl, its use_more_bits
 * and layer_info helpers, tensor_type_fallback, llama_ftype_get_default_type,
 * the tensor order of llama_model_loader's weight_name_comparer: by layer,
 * then by name). Mixtures of experts as there: with 8 experts attn_v and
 * attn_k go to Q8_0 and attn_output to Q5_K, and ffn_* (the merged
 * ffn_*_exps and ffn_*_shexp included) take their layer from the name
 * (layer_info). Tensors never quantised keep the type convert_hf_to_gguf.py
 * stored them in (F32 for 1-D tensors and the ffn_gate_inp routers).
 * model/gguf_arch.h gives the tensor list of each mapped family. Not
 * modelled: --tensor-type overrides, --pure, --leave-output and the
 * per-architecture exceptions other than Falcon's (none of them change a
 * Llama-style model).
 */
#ifndef VS_MODEL_GGUF_QUANT_H
#define VS_MODEL_GGUF_QUANT_H

#include <stddef.h>
#include <stdint.h>

#include "model/gguf.h"
#include "util/error.h"

/* One tensor of a model, as a GGUF file names and shapes it: "blk.3.attn_v.weight",
 * ne[0] the row length (a Hugging Face weight [out, in] is ne = {in, out}). */
typedef struct vs_gguf_quant_tensor {
    const char *name;
    uint64_t shape[4];
    unsigned ndims;
} vs_gguf_quant_tensor;

/* What the rules read from the model's hyperparameters. */
typedef struct vs_gguf_quant_model {
    unsigned n_layer; /* 0: one more than the largest blk.N in the names */
    unsigned n_head;  /* n_gqa = n_head / n_head_kv (1 when either is 0) */
    unsigned n_head_kv;
    unsigned n_expert;          /* 0 or 1: dense */
    int falcon;                 /* LLM_ARCH_FALCON */
    int type_70b;               /* llama.cpp's LLM_TYPE_70B (a 70B Llama: 80 layers) */
    int has_imatrix;            /* quantised with an importance matrix */
    const vs_gguf_type *source; /* the stored type of 2-D tensors never quantised; NULL: F16 */
} vs_gguf_quant_model;

/* The file types the rules are for: llama_ftype numbers (gguf.h names them);
 * the ggml type most tensors get, NULL for a number with none. */
const vs_gguf_type *vs_gguf_quant_default_type(int ftype);

/* types[i] (and bytes[i], may be NULL) for each of the n tensors; *total the
 * bytes summed. VS_EVALUE for a file type with no default type, VS_EFORMAT
 * for a shape that overflows. */
int vs_gguf_quant_predict(const vs_gguf_quant_tensor *t, size_t n, int ftype,
                          const vs_gguf_quant_model *m, const vs_gguf_type **types, uint64_t *bytes,
                          uint64_t *total, vs_error *err);

/* A Llama-style decoder's tensor list as convert_hf_to_gguf.py names it
 * (token_embd, blk.N.{attn_norm, attn_q, attn_k, attn_v, attn_output, ffn_norm,
 * ffn_gate, ffn_up, ffn_down}, output_norm, output unless tied). Free with
 * vs_gguf_quant_list_free. */
int vs_gguf_quant_llama_list(vs_gguf_quant_tensor **out, size_t *n, uint64_t layers,
                             uint64_t hidden, uint64_t heads, uint64_t kv_heads, uint64_t head_dim,
                             uint64_t intermediate, uint64_t vocab, int tied, vs_error *err);
void vs_gguf_quant_list_free(vs_gguf_quant_tensor *t, size_t n);

#endif
