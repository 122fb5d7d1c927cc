/* verbs_gpu_here.h — `gpu here`: the GPUs of this machine, from NVML, as offers.
 *
 * Each group of identical GPUs (same name and total) becomes one offer of that
 * many cards, with the total the driver reports as its device-reported capacity
 * (exact bytes, NVML's memory total), the source naming this host and driver,
 * and CUDA's own total in the source when the CUDA driver gives it. The offers
 * go through the ordinary `gpu` line, so the catalogue, the checks and the
 * results are the ones a typed `gpu "NAME" reported=...` gets.
 */
#ifndef VS_LANG_VERBS_GPU_HERE_H
#define VS_LANG_VERBS_GPU_HERE_H

#include "lang/verb.h"

/* Runs gpu_line (the `gpu` verb) once per group of this machine's GPUs.
 * VS_EMEASURE when NVML cannot be loaded or finds no GPU (the message says
 * what is missing and that `gpu NAME` adds an offer by hand). */
int vs_verbs_gpu_here(vs_ctx *ctx, const vs_line *line,
                      int (*gpu_line)(vs_ctx *ctx, const vs_line *line, vs_error *err),
                      vs_error *err);

#endif
