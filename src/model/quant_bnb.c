/* bitsandbytes: 4-bit nf4 / fp4 with an absmax per 64 values, or LLM.int8.
 *
 * bitsandbytes/functional.py quantize_4bit (blocksize 64 in transformers'
 * Bnb4BitHfQuantizer, integrations/bitsandbytes.py): two values per uint8,
 * one float32 absmax per block, a 16-entry float32 code; with
 * bnb_4bit_use_double_quant the absmax are themselves quantised to uint8 in
 * blocks of 256 (quantize_blockwise), with a float32 absmax per such block,
 * a 256-entry float32 code and a float32 offset. Int8 (Linear8bitLt, Int8Params):
 * int8 [out, in] and a float32 row scale (SCB) per output row. vLLM's
 * bitsandbytes loader (model_loader/bitsandbytes_loader.py) reads the same
 * quant_state back, but undoes the double quantisation while it loads
 * (BitsAndBytesModelLoader._dequantize_dq at c9e9c484: the absmax become
 * float32 again, the nested state dropped, "at the cost of increased memory
 * usage"). */
#include "model/quant_internal.h"

static int bnb_matrix(const vs_quant *q, const vs_quant_matrix *m, vs_quant_engine eng,
                      vs_quant_bytes *out, vs_error *err)
{
    uint64_t n = m->out * m->in, blocks = (n + 63) / 64;
    int nested = q->double_quant && eng == VS_QUANT_ENGINE_CHECKPOINT;
    (void)err;
    if (q->bits == 8) {
        out->values = n;
        out->scales = m->out * 4;
        out->zeros = out->index = 0;
        return 0;
    }
    out->values = (n + 1) / 2;
    out->zeros = 0;
    out->index = 16 * 4;
    if (nested) {
        out->scales = blocks + (blocks + 255) / 256 * 4 + 4;
        out->index += 256 * 4;
    } else {
        out->scales = blocks * 4;
    }
    return 0;
}

const vs_quant_scheme vs_quant_scheme_bnb = {
    "bnb",
    1,
    0,
    bnb_matrix,
    NULL,
    "bitsandbytes quantize_4bit / Int8Params as transformers' bitsandbytes quantizers store them"};
