/* format_components.h — `format WORD components=A,B`: some components of a
 * diffusers pipeline quantised, the others as stored.
 *
 * diffusers quantises the components a PipelineQuantizationConfig names
 * (quant_mapping, components_to_quantize) and loads the rest in torch_dtype;
 * the card's format stays the pipeline's own. The tally is the model layer's
 * (model/pipeline_quant.h); this module reads the word and the list off the
 * line and prints the result.
 */
#ifndef VS_LANG_FORMAT_COMPONENTS_H
#define VS_LANG_FORMAT_COMPONENTS_H

#include "lang/verb.h"

/* line: `format WORD components=A,B`, list its components= argument; WORD a
 * bitsandbytes word (bnb-nf4, bnb-fp4, bnb-int8, nf4, int8) or fp8-layerwise
 * (diffusers' enable_layerwise_casting to float8_e4m3fn). 0 and one card
 * line; negative with err at the argument at fault, the sheet unchanged. */
int vs_format_components_apply(vs_ctx *ctx, const vs_line *line, const vs_arg *list, vs_error *err);

#endif
