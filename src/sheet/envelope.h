/* envelope.h — weights only, the declared reserve, and the per-GPU envelope.
 *
 * Weights only = params x bits / 8 (rounded up to a whole byte), or the exact
 * bytes of the model's files when `weights from=` read them. Envelope = weights +
 * every reserve component, per GPU after the sheet's placement (sheet/placement);
 * under CPU offload, the largest phase of what the GPU holds in it (sheet/phases),
 * the plain sum kept beside as the conservative figure.
 * A component in CUDA managed memory counts in the envelope (the device holds
 * it while resident) and is named apart (managed_bytes), the rest being what
 * PyTorch's caching allocator sees (allocator_bytes: what memory_reserved
 * counts). A component of the allocator's reserved-but-free memory ("memory":
 * "cache") counts there too and is named apart again (cache_bytes), the rest
 * being the live tensors (tensors_bytes: what max_memory_allocated counts).
 * Unknown components are counted as missing, never as zero: the envelope then
 * holds only its known part, and says which names are unknown. A sum of
 * estimated or independently measured maxima is a conservative envelope, never
 * an observed peak. Pure: no I/O.
 */
#ifndef VS_SHEET_ENVELOPE_H
#define VS_SHEET_ENVELOPE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "sheet/phases.h"
#include "sheet/sheet.h"
#include "util/error.h"
#include "util/json.h"

typedef struct vs_envelope {
    int weights_known;          /* params and bits (or files) are known */
    uint64_t weights_bytes;     /* whole model, before placement */
    const char *weights_basis;  /* "params x bits / 8", "safetensors files", "tensor list"
                                 * (a quantisation tally) or "measured" (one GPU's figure
                                 * from a loader: `measured weights`); static */
    uint64_t weights_gpu_bytes; /* per GPU, after placement */
    uint64_t reserve_bytes;     /* known reserve components, per GPU after placement */
    uint64_t envelope_bytes;    /* the known part: sum_bytes, or under offload the worst
                                   phase's bytes (phases.n > 0) */
    uint64_t sum_bytes;         /* weights_gpu_bytes + reserve_bytes: the plain sum of every
                                   maximum, conservative */
    vs_phases phases;           /* under offload: each phase's part (sheet/phases.h); n 0
                                   when the sum is the basis */
    size_t n_unknown;           /* reserve components with unknown bytes */
    int conservative;           /* it sums maxima: not an observed peak */
    unsigned gpus;              /* GPUs of the placement */
    size_t n_stale;             /* measured components whose measurement no longer validates
                                   the card (sheet/derived.h): no capacity verdict is
                                   admissible on them */
    char stale[400];            /* "kv_cache (length 4096 < the card's 8192)", ", "-joined,
                                   cut short when long; "" when none */
    uint64_t managed_bytes;     /* of envelope_bytes, the components in CUDA managed memory
                                   ("memory": "managed": a paged optimizer's state), which the
                                   device holds while resident but torch's allocator counters
                                   leave out */
    uint64_t allocator_bytes;   /* envelope_bytes - managed_bytes: what
                                   torch.cuda.max_memory_reserved can see */
    uint64_t cache_bytes;       /* of allocator_bytes, the components of the caching
                                   allocator's reserved-but-free memory ("memory": "cache"),
                                   in the worst phase when the phases are the basis */
    uint64_t tensors_bytes;     /* the live tensors' peak, what torch.cuda.max_memory_allocated
                                   can see: allocator_bytes - cache_bytes, or under a phase
                                   basis the largest phase's less its managed and cache
                                   components (the worst phase may be worst by its cache);
                                   allocator_bytes when there is no cache component */
    uint64_t host_bytes;        /* weights kept in host memory (offload=), 0 without */
    const char *offload_basis;  /* what weights_gpu_bytes is under offload= (static), or NULL */
} vs_envelope;

/* Bits per value of a format name ("bf16" -> 16, "nf4" -> 4, "bits=6" -> 6):
 * 0 and *bits, or VS_EVALUE naming the choices (err may be NULL). The names
 * and spellings are vs_vocab_format_parse's: it is that parse, for its bits. */
int vs_envelope_format_bits(unsigned *bits, const char *format, vs_error *err);

/* weights = params x bits / 8 bytes, rounded up; VS_EUNIT on overflow. */
int vs_envelope_weights_bytes(uint64_t *out, uint64_t params, unsigned bits, vs_error *err);

/* For a quantised width (8 bits or fewer) weighed as params x bits / 8: the
 * note that scales, metadata and layers kept in another format are not
 * included, so the figure is not a guaranteed peak (static). NULL otherwise. */
const char *vs_envelope_format_quant_note(unsigned bits);

/* The bits of the sheet's weights: 1 and *bits from card.bits (1 to 64),
 * else from card.format; 0 when neither says them (*bits untouched). */
int vs_sheet_weight_bits(const json_t *sheet, unsigned *bits);

/* Computes the sheet's envelope from views, the sheet's components
 * (vs_component_views_read; NULL: read here). Returns 0 (also when the
 * weights are unknown: out->weights_known says so) or a negative code on
 * overflow or when memory is short. */
int vs_envelope_compute(vs_envelope *out, const json_t *sheet, const vs_component_views *views,
                        vs_error *err);

#endif
