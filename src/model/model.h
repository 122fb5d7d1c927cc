/* model.h — the model's real files: config.json shapes and safetensors headers.
 *
 * Plan from the exact revision and from the format the real loader
 * produces. These adapters read files on disk (never tensor data, never the
 * network) and fill the sheet's card.arch / card.params and weights_files
 * (layout in records/sheet.schema.json). The parsing underneath is pure and fuzzed
 * (model/hfconfig.h, model/safetensors.h). On any error the sheet is unchanged.
 */
#ifndef VS_MODEL_MODEL_H
#define VS_MODEL_MODEL_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "model/hfconfig.h"
#include "util/error.h"

/* Reads the Hugging Face config.json at path: sets card.arch (with the family
 * rule used) and card.params (params_source "config.json (<rule>)"). An
 * unknown architecture is VS_EVALUE saying params= can still be given.
 * *out_config (may be NULL) receives what the config gave, on success only
 * (render/card_lines builds the `model` result's account of it). */
int vs_model_apply_config(json_t *sheet, const char *path, vs_hfconfig *out_config, vs_error *err);

/* Reads weights headers at path (one .safetensors file, a
 * model.safetensors.index.json with its shards beside it, or a GGUF file,
 * the first of a split set bringing the others; model/wfile.h): sets
 * weights_files and card.params (params_source "safetensors"). sha256 != 0 also
 * hashes each file. *out_payload (may be NULL) receives the "weights" payload
 * (kind, format, params, bits (null when mixed), bytes, by_dtype, other_dtype,
 * files; for GGUF file_type and gguf_arch, for safetensors the
 * quantization_config of a config.json beside the files). */
int vs_model_apply_weights_files(json_t *sheet, const char *path, int sha256, json_t **out_payload,
                                 vs_error *err);

/* The weights file a path names: the path itself, or for a folder its
 * model.safetensors.index.json, model.safetensors, or its one GGUF file (the
 * first shard of a split set). *out is malloc'd. VS_EIO otherwise. */
int vs_model_weights_in(const char *path, char **out, vs_error *err);

/* A `formats` name that is a GGUF type ("q4_k": params x its exact bits per
 * weight, the scales of its blocks included) or a llama.cpp file type
 * ("q4_k_m": tensor by tensor, llama.cpp's choices over the card's
 * architecture): 0 with *bits (rounded down), bits_text, basis ("" for a
 * uniform type) and *bytes; 1 when the name is neither; a negative code
 * (a file type without an architecture) otherwise. */
int vs_model_gguf_format_row(const json_t *sheet, const char *name, uint64_t params, unsigned *bits,
                             char *bits_text, size_t nbt, char *basis, size_t nb, uint64_t *bytes,
                             vs_error *err);

#endif
