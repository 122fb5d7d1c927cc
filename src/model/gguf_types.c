/* gguf_types.c — the ggml types and llama.cpp's file types (the tables the
 * GGUF reader and `formats` look up), and the names of a split set's shards
 * (the contract: model/gguf.h). */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "model/gguf.h"
#include "util/checked.h"

/* ggml-org/llama.cpp ggml/include/ggml.h (enum ggml_type) and
 * ggml/src/ggml-common.h (block_* structs; ggml.c type_traits: blck_size,
 * type_size), commit 01243c587fec. Ids 4, 5, 31-33 and 36-38 were removed
 * from the format and are refused like any unknown id. */
static const vs_gguf_type types[] = {
    {0, "F32", 1, 4},         {1, "F16", 1, 2},         {2, "Q4_0", 32, 18},
    {3, "Q4_1", 32, 20},      {6, "Q5_0", 32, 22},      {7, "Q5_1", 32, 24},
    {8, "Q8_0", 32, 34},      {9, "Q8_1", 32, 36},      {10, "Q2_K", 256, 84},
    {11, "Q3_K", 256, 110},   {12, "Q4_K", 256, 144},   {13, "Q5_K", 256, 176},
    {14, "Q6_K", 256, 210},   {15, "Q8_K", 256, 292},   {16, "IQ2_XXS", 256, 66},
    {17, "IQ2_XS", 256, 74},  {18, "IQ3_XXS", 256, 98}, {19, "IQ1_S", 256, 50},
    {20, "IQ4_NL", 32, 18},   {21, "IQ3_S", 256, 110},  {22, "IQ2_S", 256, 82},
    {23, "IQ4_XS", 256, 136}, {24, "I8", 1, 1},         {25, "I16", 1, 2},
    {26, "I32", 1, 4},        {27, "I64", 1, 8},        {28, "F64", 1, 8},
    {29, "IQ1_M", 256, 56},   {30, "BF16", 1, 2},       {34, "TQ1_0", 256, 54},
    {35, "TQ2_0", 256, 66},   {39, "MXFP4", 32, 17},    {40, "NVFP4", 64, 36},
    {41, "Q1_0", 128, 18},    {42, "Q2_0", 64, 18},
};
#define NTYPES (sizeof types / sizeof types[0])

const vs_gguf_type *vs_gguf_type_by_id(uint32_t id)
{
    size_t i;
    for (i = 0; i < NTYPES; i++)
        if (types[i].id == id)
            return &types[i];
    return NULL;
}

const vs_gguf_type *vs_gguf_type_by_name(const char *name)
{
    size_t i;
    for (i = 0; i < NTYPES; i++)
        if (!strcasecmp(types[i].name, name))
            return &types[i];
    return NULL;
}

const vs_gguf_type *vs_gguf_types(size_t *n)
{
    *n = NTYPES;
    return types;
}

int vs_gguf_type_bytes(const vs_gguf_type *t, uint64_t elements, uint64_t *out)
{
    uint64_t b;
    if (elements % t->block)
        return vs_error_set(NULL, VS_EFORMAT, "not whole blocks");
    if (vs_checked_mul(&b, elements / t->block, (uint64_t)t->bytes))
        return vs_error_set(NULL, VS_EFORMAT, "overflow");
    *out = b;
    return 0;
}

/* include/llama.h, enum llama_ftype (the name without LLAMA_FTYPE_). */
static const struct {
    uint32_t id;
    const char *name;
} ftypes[] = {
    {0, "ALL_F32"},           {1, "MOSTLY_F16"},     {2, "MOSTLY_Q4_0"},    {3, "MOSTLY_Q4_1"},
    {7, "MOSTLY_Q8_0"},       {8, "MOSTLY_Q5_0"},    {9, "MOSTLY_Q5_1"},    {10, "MOSTLY_Q2_K"},
    {11, "MOSTLY_Q3_K_S"},    {12, "MOSTLY_Q3_K_M"}, {13, "MOSTLY_Q3_K_L"}, {14, "MOSTLY_Q4_K_S"},
    {15, "MOSTLY_Q4_K_M"},    {16, "MOSTLY_Q5_K_S"}, {17, "MOSTLY_Q5_K_M"}, {18, "MOSTLY_Q6_K"},
    {19, "MOSTLY_IQ2_XXS"},   {20, "MOSTLY_IQ2_XS"}, {21, "MOSTLY_Q2_K_S"}, {22, "MOSTLY_IQ3_XS"},
    {23, "MOSTLY_IQ3_XXS"},   {24, "MOSTLY_IQ1_S"},  {25, "MOSTLY_IQ4_NL"}, {26, "MOSTLY_IQ3_S"},
    {27, "MOSTLY_IQ3_M"},     {28, "MOSTLY_IQ2_S"},  {29, "MOSTLY_IQ2_M"},  {30, "MOSTLY_IQ4_XS"},
    {31, "MOSTLY_IQ1_M"},     {32, "MOSTLY_BF16"},   {36, "MOSTLY_TQ1_0"},  {37, "MOSTLY_TQ2_0"},
    {38, "MOSTLY_MXFP4_MOE"}, {39, "MOSTLY_NVFP4"},  {40, "MOSTLY_Q1_0"},   {41, "MOSTLY_Q2_0"},
};

const char *vs_gguf_ftype_name(uint32_t ftype)
{
    size_t i;
    for (i = 0; i < sizeof ftypes / sizeof ftypes[0]; i++)
        if (ftypes[i].id == ftype)
            return ftypes[i].name;
    return NULL;
}

int vs_gguf_ftype_parse(const char *name)
{
    size_t i;
    for (i = 0; i < sizeof ftypes / sizeof ftypes[0]; i++) {
        const char *n = ftypes[i].name;
        const char *bare = strchr(n, '_') + 1;
        if (!strcasecmp(n, name) || !strcasecmp(bare, name))
            return (int)ftypes[i].id;
    }
    return -1;
}

int vs_gguf_sniff(const unsigned char *head, size_t n)
{
    return n >= 4 && !memcmp(head, "GGUF", 4);
}

int vs_gguf_split_name(const char *path, unsigned *no, unsigned *count, size_t *prefix_len)
{
    /* llama.cpp's llama_split_path: "%s-%05d-of-%05d.gguf" */
    size_t n = strlen(path);
    const char *p;
    unsigned a = 0, b = 0;
    int i;
    if (n < 20 || strcmp(path + n - 5, ".gguf"))
        return 0;
    p = path + n - 5 - 15; /* "-00001-of-00003" */
    if (p[0] != '-' || memcmp(p + 6, "-of-", 4))
        return 0;
    for (i = 1; i <= 5; i++) {
        if (!isdigit((unsigned char)p[i]) || !isdigit((unsigned char)p[9 + i]))
            return 0;
        a = a * 10 + (unsigned)(p[i] - '0');
        b = b * 10 + (unsigned)(p[9 + i] - '0');
    }
    if (a < 1 || b < 1 || a > b)
        return 0;
    *no = a;
    *count = b;
    *prefix_len = (size_t)(p - path);
    return 1;
}
