/* libFuzzer target: model_index.json text through the pipeline parser. The
 * seed corpus holds published pipelines' model_index.json (SDXL, Flux.1,
 * SD3, a video pipeline) and malformed ones. Invariants: a parsed pipeline
 * has 1 to VS_PIPE_MAX components, at least one holding weights, every name a
 * plain folder name (no '/', no leading '.'), every string terminated. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "model/pipeline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vs_pipeline p;
    vs_error err;
    size_t i, weights = 0;
    if (vs_pipeline_parse(&p, (const char *)data, size, &err) != 0)
        return 0;
    if (p.n == 0 || p.n > VS_PIPE_MAX)
        __builtin_trap();
    for (i = 0; i < p.n; i++) {
        const vs_pipe_component *c = &p.c[i];
        if (memchr(c->name, '\0', sizeof c->name) == NULL ||
            memchr(c->cls, '\0', sizeof c->cls) == NULL || !c->name[0] || c->name[0] == '.' ||
            strchr(c->name, '/') || (c->denoiser && !c->weights))
            __builtin_trap();
        weights += (size_t)c->weights;
    }
    if (!weights)
        __builtin_trap();
    return 0;
}
