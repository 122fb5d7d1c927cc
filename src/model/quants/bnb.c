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
#include <stdio.h>
#include <string.h>

#include "model/quants/quants.h"

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

/* `format bnb-nf4|bnb-fp4|bnb-int8` */
static int bnb_from_format(vs_quant *q, const char *word, uint64_t bits, uint64_t group,
                           uint64_t block, vs_error *err)
{
    (void)bits;
    (void)group;
    if (strcmp(word, "bnb-nf4") && strcmp(word, "bnb-fp4") && strcmp(word, "bnb-int8"))
        return 1;
    q->scheme = &vs_quant_scheme_bnb;
    q->bits = word[4] == 'i' ? 8 : 4;
    q->fp4 = word[4] == 'f';
    return block ? vs_error_set(err, VS_EVALUE, "%s takes no block=", word) : 0;
}

/* BitsAndBytesConfig: load_in_4bit (bnb_4bit_quant_type nf4 or fp4,
 * bnb_4bit_use_double_quant) or load_in_8bit */
static int bnb_from_config(vs_quant *q, const char *m, const json_t *qc, vs_error *err)
{
    q->scheme = &vs_quant_scheme_bnb;
    if (vs_quant_cfg_bool(qc, "load_in_4bit", 0)) {
        const char *t = json_string_value(json_object_get(qc, "bnb_4bit_quant_type"));
        q->bits = 4;
        q->fp4 = t && !strcmp(t, "fp4");
        q->double_quant = vs_quant_cfg_bool(qc, "bnb_4bit_use_double_quant", 0);
    } else if (vs_quant_cfg_bool(qc, "load_in_8bit", 0)) {
        q->bits = 8;
    } else {
        return vs_quant_cfg_bad(err, m, "neither load_in_4bit nor load_in_8bit is true");
    }
    return 0;
}

static const char *bnb_format_name(const vs_quant *q, char *out, size_t cap)
{
    snprintf(out, cap, "%s", q->bits == 8 ? "bnb-int8" : q->fp4 ? "bnb-fp4" : "bnb-nf4");
    return out;
}

static const char *bnb_values_label(const vs_quant *q, char *out, size_t cap)
{
    snprintf(out, cap, "%s",
             q->bits == 8 ? "int8"
             : q->fp4     ? "fp4 (two a byte)"
                          : "nf4 (two a byte)");
    return out;
}

static const vs_vocab_scheme bnb_words[] = {
    {"bnb-nf4", "", 4, "4.5 (an fp32 absmax per 64 values); 4.13 with double quant",
     "embeddings, lm_head, norms, MoE routers", "safetensors"},
    {"bnb-fp4", "", 4, "4.5 (an fp32 absmax per 64 values)", "embeddings, lm_head, norms, routers",
     "safetensors"},
    {"bnb-int8", "", 8, "8 + an fp32 scale per row", "embeddings, lm_head, norms, MoE routers",
     "safetensors"},
    {NULL, NULL, 0, NULL, NULL, NULL}};
static const char *const bnb_methods[] = {"bitsandbytes", NULL};

const vs_quant_scheme vs_quant_scheme_bnb = {
    .name = "bnb",
    .words = bnb_words,
    .methods = bnb_methods,
    .linear = 1,
    .experts = 0,
    .from_format = bnb_from_format,
    .from_config = bnb_from_config,
    .format_name = bnb_format_name,
    .values_label = bnb_values_label,
    .scales_label = "absmax",
    .index_label = "code tables",
    .matrix = bnb_matrix,
    .source =
        "bitsandbytes quantize_4bit / Int8Params as transformers' bitsandbytes quantizers store "
        "them"};
