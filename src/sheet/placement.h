/* placement.h — how a named software placement spreads memory over GPUs.
 *
 * Two cards are never one memory space: several GPUs only count through a
 * named placement. This module says, for each component class of the sheet
 * layout (records/sheet.schema.json) and for the weights, how many ways a placement splits
 * it, and the bytes left on each GPU (ceil division: the largest shard).
 *   single              everything on one GPU
 *   ddp gpus=N          everything replicated on every GPU
 *   zero stage=1 gpus=N optimizer state (master copy included) sharded N ways
 *   zero stage=2        ... and gradients
 *   zero stage=3        ... and parameters (the weights and class "parameters")
 *   fsdp gpus=N         as zero stage 3
 *   tensor gpus=N       weights (class "parameters") and the KV cache split N ways
 * Activations and "other" components are never divided.
 * On one GPU, a diffusers pipeline may keep its weights in host memory
 * (offload=, diffusers' DiffusionPipeline.enable_model_cpu_offload and
 * enable_sequential_cpu_offload, through accelerate's hooks):
 *   offload=model       one component on the GPU at a time: the largest component
 *   offload=sequential  one module's own tensors at a time (accelerate's
 *                       AlignDevicesHook on each module with direct tensors):
 *                       the largest module (model/pipeline_modules.h)
 * the whole set of weights staying in host memory. Pure: no I/O, no globals.
 */
#ifndef VS_SHEET_PLACEMENT_H
#define VS_SHEET_PLACEMENT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

typedef enum {
    VS_PLACE_SINGLE = 0,
    VS_PLACE_DDP,
    VS_PLACE_ZERO,
    VS_PLACE_FSDP,
    VS_PLACE_TENSOR
} vs_place_kind;

typedef enum { VS_OFFLOAD_NONE = 0, VS_OFFLOAD_MODEL, VS_OFFLOAD_SEQUENTIAL } vs_offload;

typedef struct vs_placement {
    vs_place_kind kind;
    unsigned gpus;      /* >= 1 */
    unsigned stage;     /* zero only: 1..3; 0 otherwise */
    vs_offload offload; /* single only */
} vs_placement;

/* "model" | "sequential" -> offload ("none" too); 0 or VS_EVALUE naming them. */
int vs_offload_parse(vs_offload *out, const char *name, vs_error *err);
/* "model", "sequential", or NULL for none. */
const char *vs_offload_name(vs_offload o);

/* Whether model CPU offload leaves a pipeline component (an element of
 * weights_files' "components") on the GPU throughout: one whose Linear layers
 * bitsandbytes stores in 8 bits (`format bnb-int8 components=`, its by_dtype
 * led by "bnb-int8"). diffusers' enable_model_cpu_offload skips the hook of
 * such a model, "as it is loaded in `bitsandbytes` 8bit" and an 8-bit model
 * cannot move to the CPU (src/diffusers/pipelines/pipeline_utils.py at
 * 007fbf0, gated there on transformers < 4.58 or bitsandbytes < 0.48, which
 * the releases of 2025's first half all are; diffusers issue 10653, January
 * 2025: "enable_model_cpu_offload works with 4bit but not with 8bit"). 0 under
 * any other placement. */
int vs_placement_pinned(const vs_placement *p, const json_t *component);

/* Whether a pipeline component (an element of weights_files' "components")
 * is on the GPU while the pipeline loads, before any offload moves it: one
 * bitsandbytes quantises (`format bnb-nf4|bnb-int8 components=`, its by_dtype
 * led by a "bnb-" scheme). A model bitsandbytes quantises with no device_map
 * loads to the current CUDA device in every diffusers release that has the
 * integration: before the model-loading refactor (diffusers pull request
 * 10604, 2025) modeling_utils.py's from_pretrained set param_device to
 * torch.cuda.current_device() whenever a quantizer was given (diffusers pull
 * request 10069, December 2024); since, the bitsandbytes quantizers'
 * update_device_map sets {"": "cuda:N"}, the method the integration (pull
 * request 9213) left commented out "until the loading refactor"
 * (src/diffusers/quantizers/bitsandbytes/bnb_quantizer.py, read at 7256cbc
 * of the fork Holosemantix/diffusers and dfdbbf3 of aseembits93/diffusers).
 * load_model_dict_into_meta then puts every tensor of the model on that
 * device and create_quantized_param quantises each weight there;
 * transformers does the same for a transformers model such as the T5 encoder
 * (Bnb4BitHfQuantizer.update_device_map). A component with no quantizer
 * loads to the CPU (model_loading_utils.py's _determine_param_device: no
 * device_map is "cpu", at 771d7f1). */
int vs_placement_loads_on_gpu(const json_t *component);

/* The weights one GPU holds under p's offload, from weights_files (the
 * sheet's; its "components" when a pipeline was read) and the whole
 * weights' bytes: *gpu the largest component (model) or the largest module
 * of any component (sequential: largest_group_bytes), with every component
 * model offload leaves on the GPU (vs_placement_pinned) besides, *host the
 * weights kept in host memory (all of them but those), *basis a static
 * phrase saying which figure it is. Without offload, *gpu = per_gpu_whole and *host = 0. Without
 * components (a model read as one checkpoint), both offloads keep the whole
 * model as the one component, and sequential, lacking modules, is the whole
 * model too (said in *basis). */
void vs_placement_offload_weights(const vs_placement *p, const json_t *weights_files,
                                  uint64_t whole, uint64_t per_gpu_whole, uint64_t *gpu,
                                  uint64_t *host, const char **basis);

/* "single" ... "tensor" -> kind; 0 or VS_EVALUE naming them. */
int vs_placement_kind_parse(vs_place_kind *out, const char *name, vs_error *err);
const char *vs_placement_kind_name(vs_place_kind kind);

/* Checks a placement (gpus >= 1; single on 1 GPU; zero with stage 1..3, others
 * with none). 0 or VS_EVALUE saying what is wrong. */
int vs_placement_check(const vs_placement *p, vs_error *err);

/* Reads the sheet's "placement" (missing = single on 1 GPU) and checks it. */
int vs_placement_from_sheet(vs_placement *out, const json_t *sheet, vs_error *err);

/* A new {"kind", "gpus", "stage"} object as the layout stores it ("offload"
 * added when there is one), or NULL. */
json_t *vs_placement_to_json(const vs_placement *p);

/* The number of ways p splits a component of class cls ("weights" for the
 * model's weights; NULL or unknown classes count as "other"): 1 or gpus. */
unsigned vs_placement_ways(const vs_placement *p, const char *cls);

/* bytes of class cls on each GPU: ceil(bytes / ways). */
uint64_t vs_placement_per_gpu(const vs_placement *p, const char *cls, uint64_t bytes);

/* The weights one GPU holds: as vs_placement_per_gpu for the weights, except
 * that under tensor parallelism the part weights_files names as
 * replicated_bytes (the norms and MoE routers a tally of the tensor list finds,
 * built whole on every rank) is not divided: replicated + ceil((whole -
 * replicated) / gpus). */
uint64_t vs_placement_weights_per_gpu(const vs_placement *p, const json_t *weights_files,
                                      uint64_t whole);

/* A short description: "ZeRO stage 2 on 4 GPUs", "single GPU". Static or
 * written into out (outlen >= 64). */
const char *vs_placement_describe(const vs_placement *p, char *out, size_t outlen);

#endif
