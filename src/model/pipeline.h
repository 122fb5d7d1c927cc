/* pipeline.h — a diffusers pipeline's model_index.json: which components hold weights.
 *
 * diffusers' DiffusionPipeline.save_pretrained writes model_index.json: the
 * pipeline's class ("_class_name"), its version keys ("_diffusers_version"),
 * flags (scalars), and one member per component, [library, class], a folder
 * of that name beside it ([null, null] for an optional component left out).
 * Tokenizers, schedulers, feature extractors and image processors hold no
 * weights. This module only parses the text (pure, fuzzed: tests/fuzz/
 * fuzz_pipeline.c); model/pipeline_files.h reads the folders. A component's
 * name is checked to be a plain folder name (no '/', no leading '.'), so a
 * file cannot point the reader outside the pipeline's folder.
 */
#ifndef VS_MODEL_PIPELINE_H
#define VS_MODEL_PIPELINE_H

#include <stddef.h>

#include "util/error.h"

#define VS_PIPE_MAX 32
#define VS_PIPE_NAME_MAX 64
#define VS_PIPE_CLASS_MAX 96

typedef struct vs_pipe_component {
    char name[VS_PIPE_NAME_MAX];    /* "unet", "text_encoder_2" (its folder) */
    char library[VS_PIPE_NAME_MAX]; /* "diffusers", "transformers" */
    char cls[VS_PIPE_CLASS_MAX];    /* "UNet2DConditionModel" */
    int weights;                    /* 1 when the component holds weights */
    int denoiser;                   /* unet, transformer, prior: the model denoising latents */
} vs_pipe_component;

typedef struct vs_pipeline {
    char cls[VS_PIPE_CLASS_MAX]; /* "StableDiffusionXLPipeline"; "" when absent */
    size_t n;                    /* components named (left-out ones not counted) */
    vs_pipe_component c[VS_PIPE_MAX];
} vs_pipeline;

/* Parses model_index.json text (len bytes). 0, or VS_EFORMAT saying what is
 * wrong (not an object, a component that is not [library, class] strings, a
 * name that is not a plain folder name, more than VS_PIPE_MAX components,
 * none holding weights). */
int vs_pipeline_parse(vs_pipeline *out, const char *text, size_t len, vs_error *err);

/* 1 when a component of this name and class holds no weights (tokenizer,
 * scheduler, feature extractor, image processor). */
int vs_pipeline_weightless(const char *name, const char *cls);

#endif
