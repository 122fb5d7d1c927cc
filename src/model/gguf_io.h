/* gguf_io.h — where llama.cpp puts a GGUF's weights: its input and output layers.
 *
 * llama.cpp keeps its input layer (token_embd, position and token-type
 * embeddings) in host memory whatever -ngl says, and a model without an
 * output.weight (tied embeddings) gets token_embd copied to the output layer's
 * device (src/llama-model.cpp load_tensors at llama.cpp commit 0c1e570;
 * engine/llamacpp_arch.h says which tensor is which). This module sums those
 * tensors of a header for `weights from=`, and writes them beside the
 * weights' totals (weights_files: input_layer_bytes, token_embd_bytes,
 * output_layer_bytes, tied_output, cuda_pad_bytes, layer_bytes: one per
 * repeating layer, for -ngl; and for a single file tensor_order, where the
 * input layer, the output layer, each layer and each layer's routed experts
 * (ffn_*_exps) lie in the data section, for the span llama.cpp maps), where
 * engine/fit and the launch read them. A CUDA buffer holds a tensor in more
 * than its bytes (ggml/src/ggml-cuda/ggml-cuda.cu at 0c1e570, get_alloc_size and get_alignment): a
 * quantised tensor whose rows are not a multiple of 512 values (MATRIX_ROW_PADDING) gets the rest
 * of one row, and every tensor starts on 128 bytes. Pure.
 */
#ifndef VS_MODEL_GGUF_IO_H
#define VS_MODEL_GGUF_IO_H

#include <jansson.h>
#include <stdint.h>

#include "model/gguf.h"

#define VS_GGUF_IO_LAYERS 512 /* llama.cpp's LLAMA_MAX_LAYERS */

typedef struct vs_gguf_io {
    uint64_t input_bytes;    /* the input layer */
    uint64_t embd_bytes;     /* token_embd.weight alone */
    uint64_t output_bytes;   /* the output layer (output.weight, output_norm, ...) */
    int has_output;          /* an output.weight was seen */
    uint64_t cuda_pad_bytes; /* what a CUDA buffer adds to the tensors off the input layer */
    uint64_t embd_pad_bytes; /* ... to token_embd, when it is copied as a tied output */
    uint64_t layer_bytes[VS_GGUF_IO_LAYERS]; /* blk.N.*: each repeating layer's tensors */
    size_t layers;                           /* 1 + the largest N seen */
    /* where each part lies in the data section, first byte and one past the
     * last (end 0: none): llama.cpp maps its host buffer from the first to the
     * last tensor kept on the CPU, so the file's order decides its size */
    uint64_t input_at[2], output_at[2];
    uint64_t layer_at[VS_GGUF_IO_LAYERS][4]; /* the layer's tensors, then its routed experts' */
    unsigned files;                          /* shards added: the order is kept for one */
} vs_gguf_io;

/* Adds one file's (one shard's) tensors. */
void vs_gguf_io_add(vs_gguf_io *io, const vs_gguf_file *f);
/* Sets the keys on wf: 0, or VS_ENOMEM. */
int vs_gguf_io_json(json_t *wf, const vs_gguf_io *io);

#endif
