/* pipeline_quant.h — some components of a diffusers pipeline quantised as
 * bitsandbytes keeps them, the way diffusers' PipelineQuantizationConfig
 * quantises the components it names (quant_mapping, components_to_quantize).
 *
 * The pipeline's weights_files (model/pipeline_files.h) are summed again for
 * each named component, tensor by tensor from its safetensors headers: every
 * nn.Linear weight (a 2-D `.weight` that is no embedding) as the scheme stores
 * one matrix (model/quant.h), what the component's class keeps in float32 at 4
 * bytes a value, everything else as stored. Under a bitsandbytes scheme the
 * component also gets load_transient_bytes, the 16-bit copy of its largest
 * quantised weight, which bitsandbytes holds on the GPU while it quantises
 * that weight at loading. Pure but for reading the headers;
 * never tensor data. On any error the sheet is unchanged.
 */
#ifndef VS_MODEL_PIPELINE_QUANT_H
#define VS_MODEL_PIPELINE_QUANT_H

#include <jansson.h>
#include <stddef.h>

#include "model/quant.h"
#include "util/error.h"

/* Quantises the components named in list ("transformer,text_encoder_2") of
 * the sheet's pipeline under q, a bitsandbytes scheme, named word on the
 * record's by_dtype ("bnb-nf4"). q NULL is diffusers' layerwise casting to
 * fp8 (enable_layerwise_casting(storage_dtype=torch.float8_e4m3fn)): every
 * nn.Linear and convolution parameter at 1 byte, but the modules its default
 * skip patterns name (pos_embed, patch_embed, norm, proj_in, proj_out), word
 * "fp8-layerwise". Writes one line per component into note
 * ("transformer 23,802,816,640 -> 6,763,651,392 B; ..."). VS_EVALUE when the
 * card is no pipeline, a name is no component with weights, the scheme is not
 * bitsandbytes or a component is already quantised; VS_EIO for a file. */
int vs_pipeline_quantize(json_t *sheet, const vs_quant *q, const char *word, const char *list,
                         char *note, size_t cap, vs_error *err);

#endif
