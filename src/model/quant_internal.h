/* quant_internal.h — what the scheme files and the table share (model/quant.h). */
#ifndef VS_MODEL_QUANT_INTERNAL_H
#define VS_MODEL_QUANT_INTERNAL_H

#include "model/quant.h"

extern const vs_quant_scheme vs_quant_scheme_gptq, vs_quant_scheme_awq, vs_quant_scheme_bnb,
    vs_quant_scheme_fp8, vs_quant_scheme_mxfp4, vs_quant_scheme_nvfp4;

#endif
