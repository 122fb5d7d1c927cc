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
#include "util/buf.h"

/* Appends name as a quoted string of the language ('"' and '\\' escaped,
 * control characters dropped). */
void vs_verbs_gpu_put_name(vs_buf *b, const char *name);

/* Parses text (lines of `gpu ...` made by the caller) and runs the gpu verb
 * on each, their errors placed at the line `at`: an offer added exactly as a
 * typed `gpu` line adds it. 0 or the first line's negative error. */
int vs_verbs_gpu_run_lines(vs_ctx *ctx, const vs_line *at, const vs_buf *text, vs_error *err);

/* Runs the `gpu` verb once per group of this machine's GPUs.
 * VS_EMEASURE when NVML cannot be loaded or finds no GPU (the message says
 * what is missing and that `gpu NAME` adds an offer by hand). */
int vs_verbs_gpu_here(vs_ctx *ctx, const vs_line *line, vs_error *err);

#endif
