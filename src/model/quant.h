/* quant.h — weights as a quantising loader keeps them, tensor by tensor.
 *
 * A quantised checkpoint is not "params x bits": the loaders quantise the
 * Linear layers only and keep embeddings, lm_head, norms, MoE routers and the
 * modules the checkpoint names (modules_to_not_convert, ignore,
 * exclude_modules) in 16 bits, and each quantised matrix carries its scales
 * (and zeros, and indices) as the loader stores them. This module reads a
 * config.json's quantization_config into a vs_quant (quant_config.c), or a
 * scheme the user names (`format gptq bits=4 group=128`), and sums a family's
 * tensor list (model/family.h) under it (quant_tally.c). Each scheme is one
 * file, quant_<scheme>.c, one row of the table in quant_config.c: the bytes of
 * one quantised matrix, with the loader's source cited there.
 */
#ifndef VS_MODEL_QUANT_H
#define VS_MODEL_QUANT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"
#include "model/family.h"
#include "util/error.h"

typedef enum {
    VS_QUANT_GPTQ = 0,
    VS_QUANT_AWQ,
    VS_QUANT_BNB,   /* bitsandbytes: nf4 / fp4 (4 bit) or LLM.int8 (8 bit) */
    VS_QUANT_FP8,   /* fp8 e4m3 weights: per-tensor, per-channel or block scales */
    VS_QUANT_MXFP4, /* OCP MX fp4: 32-value blocks, an e8m0 scale each */
    VS_QUANT_NVFP4, /* 16-value blocks, an fp8 scale each, a float32 per tensor */
    VS_QUANT_COUNT
} vs_quant_method;

enum { VS_QUANT_SCALE_TENSOR = 0, VS_QUANT_SCALE_CHANNEL, VS_QUANT_SCALE_BLOCK };

/* The layouts of engines whose loaders lay some scheme out differently from the
 * checkpoint: the engine row's weights slot (engine/engine.h) says which. */
typedef vs_engine_weights vs_quant_engine;
#define VS_QUANT_ENGINE_CHECKPOINT VS_ENGINE_WEIGHTS_CHECKPOINT
#define VS_QUANT_ENGINE_VLLM VS_ENGINE_WEIGHTS_VLLM
#define VS_QUANT_ENGINE_VLLM_MARLIN VS_ENGINE_WEIGHTS_VLLM_MARLIN

#define VS_QUANT_KEEP_MAX 32

typedef struct vs_quant {
    vs_quant_method method;
    unsigned bits;        /* 2..8 for integer schemes, 4 or 8 for the float ones */
    uint64_t group;       /* GPTQ/AWQ group size; 0: one group per row (group_size -1) */
    int sym;              /* GPTQ: symmetric (zeros still stored, as the loaders do) */
    int desc_act;         /* GPTQ: act-order (g_idx is meaningful) */
    int double_quant;     /* bitsandbytes 4-bit: bnb_4bit_use_double_quant */
    int fp4;              /* bitsandbytes 4-bit: fp4 instead of nf4 */
    int scale;            /* FP8: VS_QUANT_SCALE_* */
    uint64_t block[2];    /* FP8 block scales: weight_block_size [out, in] */
    int static_input;     /* FP8 / NVFP4: a stored input (activation) scale per matrix */
    int lm_head;          /* lm_head quantised too (GPTQ lm_head: true) */
    int ct;               /* compressed-tensors packing: zeros only when asymmetric */
    unsigned dense_bytes; /* bytes per value of what stays unquantised (the model dtype) */
    char dense_dtype[12]; /* "bf16", "fp16", "fp32" */
    char method_name[32]; /* the config's quant_method ("compressed-tensors", ...) */
    int from_config;      /* read from a quantization_config (else named by `format`) */
    size_t nkeep;
    char keep[VS_QUANT_KEEP_MAX][96]; /* kept module patterns ("re:" stripped, a regex) */
    int keep_regex[VS_QUANT_KEEP_MAX];
} vs_quant;

/* The bytes of one quantised matrix of out x in values (a 3-D fused expert
 * tensor is `count` such matrices), by part. */
typedef struct vs_quant_bytes {
    uint64_t values; /* the packed weights */
    uint64_t scales; /* scales, absmax, global scales */
    uint64_t zeros;  /* zero points */
    uint64_t index;  /* GPTQ g_idx; bitsandbytes' code tables */
    uint64_t pad;    /* the zeros a kernel's layout adds (vLLM's Marlin MoE), biases' included */
} vs_quant_bytes;

/* The matrix a scheme is asked about. */
typedef struct vs_quant_matrix {
    uint64_t out, in, count;
    int fused_experts; /* a 3-D [experts, in, out] tensor of a fused MoE (gpt-oss) */
    uint64_t moe_intermediate;
    uint64_t hidden;
} vs_quant_matrix;

/* One row of the scheme table (quant_config.c). */
typedef struct vs_quant_scheme {
    const char *name; /* the vocabulary's word: "gptq", "awq", "bnb", "fp8", "mxfp4", "nvfp4" */
    int linear;       /* quantises dense Linear layers (mxfp4 under vLLM: experts only) */
    int experts;      /* quantises MoE expert tensors */
    /* bytes of one matrix; VS_EVALUE for a shape the scheme cannot hold */
    int (*matrix)(const vs_quant *q, const vs_quant_matrix *m, vs_quant_engine eng,
                  vs_quant_bytes *out, vs_error *err);
    /* under eng, the dtype bytes of a kept tensor whose name matches (vLLM's
     * MXFP4 Triton path keeps expert biases in fp32); 0: the model dtype */
    unsigned (*kept_bytes)(const vs_quant *q, const char *name, vs_quant_engine eng);
    const char *source; /* the loader code followed, with its release */
} vs_quant_scheme;

const vs_quant_scheme *vs_quant_scheme_of(vs_quant_method m);

/* config.json's quantization_config (at the root, or in text_config) into q;
 * the model dtype from torch_dtype / dtype. 1 when the config has none; 0;
 * VS_EVALUE for an unknown quant_method or values the loaders refuse, naming
 * the known methods. */
int vs_quant_from_config(vs_quant *q, const json_t *cfg, vs_error *err);

/* A scheme named by `format` ("gptq", "awq", "bnb-nf4", "bnb-int8", "fp8",
 * "mxfp4", "nvfp4") with its keys (bits, group, block; 0 = default). 1 when
 * the word is none of them; 0; VS_EVALUE for keys the scheme does not take. */
int vs_quant_from_format(vs_quant *q, const char *word, uint64_t bits, uint64_t group,
                         uint64_t block, const char *dense_dtype, vs_error *err);

/* `nf4`, `int8` and `fp8`, plain widths whose words name the schemes people
 * run: on a card with a tensor list `format`, `formats` and `fit formats=`
 * sum them as the loader stores them, the Linear layers only — nf4 as
 * bitsandbytes with double quantisation (as QLoRA sets it), int8 as
 * bitsandbytes' LLM.int8 (a float32 scale per row), fp8 as vLLM's online
 * Fp8LinearMethod (a float32 scale per tensor). 0 with q set; 1 for any
 * other word (int4, fp4 stay plain widths). */
int vs_quant_from_plain(vs_quant *q, const char *word);

/* Whose layout a plain word's scheme follows and what it stores ("bitsandbytes'
 * LLM.int8 (int8, a float32 scale per row)"), for the words that say so. */
const char *vs_quant_plain_keeper(const vs_quant *q);

/* The card's format string of q ("gptq bits=4 group=128", "mxfp4", "fp8 block=128"). */
const char *vs_quant_format_name(const vs_quant *q, char *out, size_t cap);

/* Sums a's tensor list under q as eng's loader keeps it: a new weights_files
 * object (path null, bytes, params, by_dtype, other_dtype — the tensors kept
 * unquantised, files [], scheme: what was summed and from where). */
int vs_quant_tally(const vs_quant *q, const vs_arch *a, vs_quant_engine eng, json_t **out,
                   vs_error *err);

/* The card's engine as a vs_quant_engine. */
vs_quant_engine vs_quant_engine_of(const json_t *sheet);

/* After `model ... config=PATH`: when the config has a quantization_config,
 * sets card.format, card.bits and weights_files to the tally; *note (may be
 * NULL) a line for the model's result (static storage, valid until the next
 * call). 0 (nothing to do, or done); negative with err. */
int vs_quant_apply_config(json_t *sheet, const char *path, const char **note, vs_error *err);

/* `format SCHEME ...` on a card read from a config.json: the tally of that
 * scheme over its tensor list into weights_files. 1 when the card has no
 * config.json to take the tensor list from. */
int vs_quant_apply_format(json_t *sheet, const vs_quant *q, vs_error *err);

/* `formats WORD` and `fit formats=` for a scheme (vs_quant_from_format):
 * the tally's bytes over the card's tensor list, under the card's engine.
 * VS_EVALUE when the card has no config.json. */
int vs_quant_format_bytes(const json_t *sheet, const vs_quant *q, uint64_t *bytes, vs_error *err);

/* The tensors the card's tally keeps unquantised, a line for `format`:
 * "kept unquantised: PATTERN (DTYPE) BYTES B, ...; TOTAL B in all".
 * NULL when the card's weights are no tally. */
const char *vs_quant_kept_line(const json_t *sheet, char *out, size_t cap);

/* After `engine NAME`: the card's weights, when they are a tally (from the
 * quantization_config or a scheme named by `format`), summed again as the new
 * engine's loader keeps them, so that `engine vllm` before or after `model`
 * gives one figure. 1 with *before and *after when the bytes changed; 0 when
 * there is nothing to re-sum or nothing changed; negative with err. */
int vs_quant_follow_engine(json_t *sheet, uint64_t *before, uint64_t *after, vs_error *err);

#endif
