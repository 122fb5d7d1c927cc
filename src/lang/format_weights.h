/* format_weights.h — the weights of one format of the vocabulary, on the card's model.
 *
 * `formats`, `fit formats=` and the card's `format` take the same words
 * (sheet/vocab.h): a plain width (params x bits / 8), a safetensors scheme
 * (gptq, awq, bnb-*, fp8 block=, mxfp4, nvfp4: summed over the card's tensor
 * list, model/quant.h), a GGUF type or a llama.cpp file type (model/model.h's
 * vs_model_gguf_format_row). This module picks the right one for a word, so
 * that every verb gives the same bytes for the same name. It reads the card's
 * config.json (through model/) and changes nothing.
 */
#ifndef VS_LANG_FORMAT_WEIGHTS_H
#define VS_LANG_FORMAT_WEIGHTS_H

#include <jansson.h>
#include <stdint.h>

#include "util/error.h"

typedef struct vs_format_weights {
    char name[64];      /* the format as the card would print it ("gptq bits=3 group=64") */
    unsigned bits;      /* nominal bits (rounded down for a GGUF file type) */
    char bits_text[24]; /* a file type's exact bits per weight, else "" */
    char basis[160];    /* how the bytes were found ("" for params x bits) */
    uint64_t bytes;     /* the whole model's weights, before any placement */
} vs_format_weights;

/* The keys a scheme word may take on a `formats=` list or a `format` line. */
typedef struct vs_format_keys {
    uint64_t bits, group, block; /* 0: not given */
} vs_format_keys;

/* 1 when key ("bits", "group", "block") is one word's scheme takes (gptq and
 * awq bits= and group=, fp8 block=). */
int vs_format_weights_takes(const char *word, const char *key);

/* The weights of word (with keys, NULL for none) on sheet's card: 0 and *out;
 * VS_EVALUE naming the vocabulary for a word that is no format, or what the
 * card lacks (its parameter count, or the tensor list a scheme needs). */
int vs_format_weights_of(const json_t *sheet, const char *word, const vs_format_keys *keys,
                         vs_format_weights *out, vs_error *err);

#endif
