#include "sheet/estimate.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "sheet/vocab.h"

/* A dtype is a weight format (sheet/vocab.h, whose bits it has) under its own
 * name or a framework's; matched ignoring case. */
static const struct {
    const char *name;
    vs_vocab_format format;
} dtype_table[] = {
    {"fp32", VS_FORMAT_FP32},    {"float32", VS_FORMAT_FP32}, {"fp16", VS_FORMAT_FP16},
    {"float16", VS_FORMAT_FP16}, {"bf16", VS_FORMAT_BF16},    {"bfloat16", VS_FORMAT_BF16},
    {"fp8", VS_FORMAT_FP8},      {"e4m3", VS_FORMAT_FP8},     {"e5m2", VS_FORMAT_FP8},
    {"fp8_e4m3", VS_FORMAT_FP8}, {"fp8_e5m2", VS_FORMAT_FP8}, {"int8", VS_FORMAT_INT8},
    {"int4", VS_FORMAT_INT4},    {"nf4", VS_FORMAT_NF4},      {"fp4", VS_FORMAT_FP4}};

int vs_estimate_dtype_bits(unsigned *bits, const char *dtype, vs_error *err)
{
    size_t i;
    for (i = 0; dtype && i < sizeof dtype_table / sizeof dtype_table[0]; i++)
        if (!strcasecmp(dtype, dtype_table[i].name)) {
            vs_vocab_format_bits(dtype_table[i].format, bits); /* every row names one */
            return 0;
        }
    return vs_error_set(err, VS_EVALUE, "'%s' is not a dtype: expected %s (in any case)",
                        dtype ? dtype : "", vs_estimate_dtype_names());
}

const char *vs_estimate_dtype_names(void)
{
    /* every name of dtype_table, in its order */
    return "fp32, float32, fp16, float16, bf16, bfloat16, fp8, e4m3, e5m2, fp8_e4m3, fp8_e5m2, "
           "int8, int4, nf4 or fp4";
}
