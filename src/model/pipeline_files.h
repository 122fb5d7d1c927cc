/* pipeline_files.h — a diffusers pipeline folder on disk, read into a sheet.
 *
 * model_index.json (model/pipeline.h) names the components; each one's
 * weights come from its folder's safetensors headers, through the weights-file
 * interface (model/wfile.h, model/model.h), as diffusers' from_pretrained
 * finds them (diffusers/utils/constants.py and pipeline_loading_utils.py):
 *   <dir>/<name>/diffusion_pytorch_model[.VARIANT].safetensors   (diffusers models)
 *   <dir>/<name>/model[.VARIANT].safetensors                    (transformers models)
 * or their sharded index (diffusion_pytorch_model.safetensors.index[.VARIANT].json,
 * also spelled ...[.VARIANT].safetensors.index.json) with the shards beside it.
 * A component without the variant's files falls back to its plain files, as
 * diffusers does, and says so. Never tensor data, never the network. On any
 * error the sheet is unchanged.
 */
#ifndef VS_MODEL_PIPELINE_FILES_H
#define VS_MODEL_PIPELINE_FILES_H

#include <jansson.h>

#include "util/error.h"

/* Reads the pipeline at dir (variant NULL: the plain files): sets
 * weights_files (path dir, bytes and params the sum of the components,
 * by_dtype merged, files as "<component>/<file>", and "components":
 * [{name, class, library, bytes, params, by_dtype, largest_group,
 * largest_group_bytes, variant}]) and card.params (params_source
 * "safetensors (diffusers pipeline)"). The largest group is the component's
 * module with the most bytes of its own tensors (model/pipeline_modules.h):
 * what sequential CPU offload keeps on the GPU at once, at
 * most. *out_payload (may be NULL) receives the "weights" payload with its
 * "components". A missing model_index.json or component file is VS_EIO or
 * VS_EFORMAT naming the file. */
int vs_pipeline_apply(json_t *sheet, const char *dir, const char *variant, json_t **out_payload,
                      vs_error *err);

/* 1 when dir holds a model_index.json. */
int vs_pipeline_is_dir(const char *dir);

#endif
