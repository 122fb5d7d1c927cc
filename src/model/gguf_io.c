/* The input and output layers of a GGUF's tensors, as llama.cpp places them. */
#include "model/gguf_io.h"

#include <stdlib.h>
#include <string.h>

#include "engine/llamacpp_arch.h"
#include "util/error.h"

/* What a CUDA buffer adds to one tensor: the tail of a quantised row to 512
 * values (ggml_row_size of the missing values), then the 128-byte alignment. */
static uint64_t cuda_pad(const vs_gguf_tensor *t)
{
    uint64_t size = t->bytes, ne0 = t->ne[0];
    if (t->type && t->type->block > 1 && ne0 % 512)
        size += (uint64_t)t->type->bytes * (512 - ne0 % 512) / t->type->block;
    return (size + 127) / 128 * 128 - t->bytes;
}

/* widens [at[0], at[1]) to hold the tensor t */
static void span(uint64_t *at, const vs_gguf_tensor *t)
{
    uint64_t end = t->offset + t->bytes;
    if (!at[1] || t->offset < at[0])
        at[0] = t->offset;
    if (end > at[1])
        at[1] = end;
}

void vs_gguf_io_add(vs_gguf_io *io, const vs_gguf_file *f)
{
    size_t i;
    io->files++;
    for (i = 0; i < f->count; i++) {
        const vs_gguf_tensor *t = &f->tensors[i];
        vs_llamacpp_layer where = vs_llamacpp_arch_tensor_layer(t->name);
        if (where == VS_LCP_LAYER_INPUT)
            span(io->input_at, t);
        else if (where == VS_LCP_LAYER_OUTPUT)
            span(io->output_at, t);
        if (where != VS_LCP_LAYER_INPUT)
            io->cuda_pad_bytes += cuda_pad(t);
        else if (!strcmp(t->name, "token_embd.weight"))
            io->embd_pad_bytes += cuda_pad(t); /* on the GPU as a tied output's copy */
        switch (where) {
        case VS_LCP_LAYER_INPUT:
            io->input_bytes += t->bytes;
            if (!strcmp(t->name, "token_embd.weight"))
                io->embd_bytes += t->bytes;
            break;
        case VS_LCP_LAYER_OUTPUT:
            io->output_bytes += t->bytes;
            if (!strcmp(t->name, "output.weight"))
                io->has_output = 1;
            break;
        default: {
            /* blk.N.: layer N's (a number past llama.cpp's 512 layers is not kept) */
            unsigned long il = strtoul(t->name + 4, NULL, 10);
            if (!strncmp(t->name, "blk.", 4) && il < VS_GGUF_IO_LAYERS) {
                io->layer_bytes[il] += t->bytes;
                span(io->layer_at[il], t);
                /* --n-cpu-moe's pattern: LLM_FFN_EXPS_REGEX,
                 * "\\.ffn_(up|down|gate|gate_up)_(ch|)exps" (common/common.h, 0c1e570) */
                if (strstr(t->name, ".ffn_") &&
                    (strstr(t->name, "_exps") || strstr(t->name, "_chexps")))
                    span(io->layer_at[il] + 2, t);
                if (il + 1 > io->layers)
                    io->layers = il + 1;
            }
            break;
        }
        }
    }
}

/* {"input": [first, end], "output": [...], "layers": [[first, end, experts' first,
 * experts' end], ...]}: offsets in the data section, [0, 0] for none */
static json_t *order_json(const vs_gguf_io *io)
{
    json_t *o, *layers = json_array();
    size_t i;
    for (i = 0; layers && i < io->layers; i++) {
        const uint64_t *a = io->layer_at[i];
        if (json_array_append_new(layers,
                                  json_pack("[I, I, I, I]", (json_int_t)a[0], (json_int_t)a[1],
                                            (json_int_t)a[2], (json_int_t)a[3]))) {
            json_decref(layers);
            return NULL;
        }
    }
    o = layers ? json_pack("{s:[I, I], s:[I, I], s:o}", "input", (json_int_t)io->input_at[0],
                           (json_int_t)io->input_at[1], "output", (json_int_t)io->output_at[0],
                           (json_int_t)io->output_at[1], "layers", layers)
               : NULL;
    return o;
}

int vs_gguf_io_json(json_t *wf, const vs_gguf_io *io)
{
    json_t *layers = json_array();
    size_t i;
    /* one mapping per file: a split model's order is not kept */
    if (io->files == 1) {
        json_t *o = order_json(io);
        if (!o || json_object_set_new(wf, "tensor_order", o)) {
            json_decref(layers);
            return VS_ENOMEM;
        }
    }
    for (i = 0; layers && i < io->layers; i++)
        if (json_array_append_new(layers, json_integer((json_int_t)io->layer_bytes[i]))) {
            json_decref(layers);
            layers = NULL;
        }
    if (!layers || json_object_set_new(wf, "layer_bytes", layers) ||
        json_object_set_new(wf, "input_layer_bytes", json_integer((json_int_t)io->input_bytes)) ||
        json_object_set_new(wf, "token_embd_bytes", json_integer((json_int_t)io->embd_bytes)) ||
        json_object_set_new(wf, "output_layer_bytes", json_integer((json_int_t)io->output_bytes)) ||
        json_object_set_new(wf, "tied_output", json_boolean(!io->has_output)) ||
        json_object_set_new(wf, "cuda_pad_bytes",
                            json_integer((json_int_t)(io->cuda_pad_bytes +
                                                      (io->has_output ? 0 : io->embd_pad_bytes)))))
        return VS_ENOMEM;
    return 0;
}
