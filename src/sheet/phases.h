/* phases.h — the peak as the largest of the phases, under CPU offload.
 *
 * Under diffusers' model or sequential CPU offload (sheet/placement.h) the GPU
 * never holds the whole pipeline: accelerate's hooks move a component to the
 * GPU when it runs and back when the next one does, so the text encoders
 * (phase encode), the denoiser (denoise) and the VAE (decode) are on the GPU in
 * turn, each with the working memory of its own phase. The peak is then the
 * largest phase, not the sum of every component's maximum: per phase, the
 * weights on the GPU (the largest of that phase's components, or under
 * sequential offload the largest module among them, its own tensors), plus
 * each reserve component of that phase and every component with no phase
 * (which stays on the GPU throughout: a CUDA context, a declared lump), and
 * under model offload every component the
 * offload leaves on the GPU (vs_placement_pinned: bitsandbytes 8-bit).
 * Before them, when a pipeline component is quantised by bitsandbytes, the
 * phase load: diffusers' and transformers' bitsandbytes quantizers load such
 * a model straight to the current CUDA device, quantising each weight there
 * from a 16-bit copy of it, and from_pretrained keeps every component it has
 * loaded, so at the end of loading every bitsandbytes component is on the GPU
 * at once, the last weight's 16-bit copy beside them; enable_model_cpu_offload
 * (and enable_sequential_cpu_offload) only move them off afterwards
 * (sheet/placement.h, vs_placement_loads_on_gpu). Its weights are those
 * components' bytes plus the largest load_transient_bytes among them; its
 * components those with no phase (or phase=load). A pipeline with no such
 * component loads to host memory and has no load phase.
 * Phases other than these are the ones the components name (a `reserve
 * ... phase=backward`), with the weights on the GPU as the offload leaves
 * them. Without offload, a sheet whose components name two phases or more (a
 * pipeline: the latents and attention in denoise, the VAE's working memory in
 * decode; a training step: activations in phase backward, gradients in phase
 * step) is the worst of them, every weight resident in each, with or without
 * a per-component weights tally: a phase's working memory is freed before the
 * next runs. The plain sum stays the envelope's conservative figure. Pure: no
 * I/O.
 */
#ifndef VS_SHEET_PHASES_H
#define VS_SHEET_PHASES_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "sheet/placement.h"
#include "sheet/sheet.h"
#include "util/error.h"

#define VS_PHASES_MAX 8

typedef struct vs_phase_row {
    char name[24];          /* "load", "encode", "denoise", "decode", or a component's phase */
    uint64_t weights_bytes; /* weights on the GPU in this phase */
    const char *weights_of; /* the pipeline component they are (borrowed), or NULL */
    uint64_t reserve_bytes; /* this phase's components and those with no phase, per GPU */
    uint64_t bytes;         /* weights_bytes + reserve_bytes: the phase's known part */
    size_t n_unknown;       /* unknown components counted in this phase */
} vs_phase_row;

typedef struct vs_phases {
    size_t n;     /* 0: no phase basis (no offload, or nothing sets phases apart) */
    size_t worst; /* the row with the most bytes (the first of equals) */
    vs_phase_row row[VS_PHASES_MAX];
} vs_phases;

/* The phase a pipeline component's weights belong to: "decode" for a VAE,
 * "encode" for a text or image encoder, "denoise" for the rest (unet,
 * transformer, controlnet, prior). Static. */
const char *vs_phases_of_component(const char *name);

/* Whether a reserve component whose phase is `phase` (NULL or "" for none, or
 * several names between commas) is on the GPU in the phase named `in`. */
int vs_phases_holds(const char *phase, const char *in);

/* The phases of sheet under placement pl, with views the sheet's components
 * and offload_gpu the weights on the GPU as the offload leaves them (for a
 * phase none of the pipeline's components belongs to). 0, or VS_EUNIT on
 * overflow. */
int vs_phases_compute(vs_phases *out, const json_t *sheet, const vs_component_views *views,
                      const vs_placement *pl, uint64_t offload_gpu, vs_error *err);

#endif
