/* model.h — the model's real files: config.json shapes and safetensors headers.
 *
 * Seed 2: plan from the exact revision and from the format the real loader
 * produces. These adapters read files on disk (never tensor data, never the
 * network) and fill the sheet's card.arch / card.params and weights_files
 * (layout in sheet/sheet.h). The parsing underneath is pure and fuzzed
 * (model/hfconfig.h, model/safetensors.h). On any error the sheet is unchanged.
 */
#ifndef VS_MODEL_MODEL_H
#define VS_MODEL_MODEL_H

#include <jansson.h>

#include "util/error.h"

/* Reads the Hugging Face config.json at path: sets card.arch (with the family
 * rule used) and card.params (params_source "config.json (<rule>)"). An
 * unknown architecture is VS_EVALUE saying params= can still be given.
 * *out_payload (may be NULL) receives a new "model" payload describing it. */
int vs_model_apply_config(json_t *sheet, const char *path, json_t **out_payload, vs_error *err);

/* Reads safetensors headers at path (one .safetensors file, or a
 * model.safetensors.index.json with its shards beside it): sets
 * weights_files and card.params (params_source "safetensors"). sha256 != 0 also
 * hashes each file. *out_payload (may be NULL) receives the "weights" payload
 * (kind, params, bits (null when mixed), bytes, by_dtype, other_dtype, files). */
int vs_model_apply_weights_files(json_t *sheet, const char *path, int sha256,
                                 json_t **out_payload, vs_error *err);

#endif
