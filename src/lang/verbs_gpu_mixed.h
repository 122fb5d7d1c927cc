/* verbs_gpu_mixed.h — `gpu NAME devices="RTX 4090,RTX 3090"`: cards of several
 * kinds in one offer (a machine with a 4090 and a 3090).
 *
 * Each name is a catalogue entry; the offer keeps them in order as its
 * "devices" ({name, memory_bytes, reported_bytes}), has that many cards, and
 * takes the smallest card's memory as its own, so every check that sizes one
 * GPU (fit, candidates) holds for each card. `launch` under llama.cpp gives
 * each device its own share and checks it against that device.
 */
#ifndef VS_LANG_VERBS_GPU_MIXED_H
#define VS_LANG_VERBS_GPU_MIXED_H

#include <jansson.h>
#include <stdint.h>

#include "lang/parse.h"
#include "util/error.h"

typedef struct vs_gpu_mixed {
    json_t *devices; /* new array, in the order given */
    size_t n;
    int memory_known, reported_known;
    uint64_t memory_bytes;   /* the smallest nominal memory */
    uint64_t reported_bytes; /* the smallest device-reported total (every card's known) */
    char smallest[128];      /* the card with the smallest reported (else nominal) memory */
} vs_gpu_mixed;

/* Reads the devices= value a (comma-separated catalogue names, at least two).
 * 0, or VS_ENOTFOUND / VS_EVALUE at the name's position. */
int vs_verbs_gpu_mixed(vs_gpu_mixed *out, const vs_arg *a, vs_error *err);

#endif
