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
 * file under model/quants/ and one row of model/quants/quants.def
 * (model/quants/quants.h): its words, the bytes of one quantised matrix, with
 * the loader's source cited there.
 */
#ifndef VS_MODEL_QUANT_H
#define VS_MODEL_QUANT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "model/family.h"
#include "model/quants/quants.h"
#include "util/error.h"

/* config.json's quantization_config (at the root, or in text_config) into q;
 * the model dtype from torch_dtype / dtype. 1 when the config has none; 0;
 * VS_EVALUE for an unknown quant_method or values the loaders refuse, naming
 * the known methods. */
int vs_quant_from_config(vs_quant *q, const json_t *cfg, vs_error *err);

/* A scheme named by `format` (a word of a row of model/quants/quants.def:
 * "gptq", "bnb-nf4", "fp8" with block=, ...) with its keys (bits, group, block;
 * 0 = default). 1 when the word is none of them; 0; VS_EVALUE for keys the
 * scheme does not take. */
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
