/* catalog.h — the catalogue of common GPUs, for filling offers.
 *
 * The catalogue is a data file (src/catalog/gpus.json, with a source for each
 * fact) compiled into the binary. For each GPU it gives names and aliases, the
 * nominal memory as marketed (GB = 10^9 bytes), the total the driver reported in
 * one public nvidia-smi capture (MiB, so bytes) with the ECC state it assumes and
 * the link to that capture, the total CUDA reports (cudaMemGetInfo) where a
 * public log printed it (in bytes, or as printed with its unit), the SM count and
 * resident threads a SM, and bf16/fp8 support; what is not known stays unknown,
 * with the reason. Those are facts about a
 * product, never about an offer: a catalogue entry proves neither a software
 * installation, nor free memory, nor an availability period. Names are found
 * case-insensitively, ignoring spaces, punctuation and the words NVIDIA,
 * GeForce, Tesla, AMD, Instinct and Generation ("RTX 4090", "rtx4090" and
 * "NVIDIA GeForce RTX 4090" are one entry); a partial name is never guessed.
 *
 * The embedded text is parsed once, on first use (thread-safe); the catalogue is
 * read-only afterwards. This module does no I/O.
 */
#ifndef VS_CATALOG_CATALOG_H
#define VS_CATALOG_CATALOG_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

#define VS_CATALOG_SCHEMA "vramsheet/gpus/1"

typedef struct vs_gpu_spec {
    const char *name;   /* canonical name ("RTX 4090"); borrowed from the catalogue */
    const char *vendor; /* "NVIDIA", "AMD" */
    int memory_known;
    uint64_t memory_bytes; /* nominal, as marketed: memory_gb x 10^9 */
    int reported_known;
    uint64_t reported_bytes; /* the driver's total (nvidia-smi memory.total) in bytes */
    uint64_t reported_mib;   /* the same, as nvidia-smi printed it */
    const char *ecc; /* ECC state that total assumes: "on", "off", "unsupported"; NULL unknown */
    const char *reported_source;  /* the public capture that printed it (a link); NULL unknown */
    const char *reported_unknown; /* why no total is given, when none is; else NULL */
    int cuda_known;
    uint64_t cuda_bytes;     /* CUDA's total (cudaMemGetInfo), below nvidia-smi's */
    const char *cuda_source; /* the public log that printed it; NULL unknown */
    /* CUDA's total as a public log printed it ("22.168" GiB): a figure to its printed
     * digits, never bytes, so it does not fill cuda_bytes; rounded to whole MiB here. */
    int cuda_printed_known;
    uint64_t cuda_printed_mib;
    const char *cuda_printed_value;  /* the digits as printed */
    const char *cuda_printed_unit;   /* "MiB" or "GiB" */
    const char *cuda_printed_source; /* the public log that printed it */
    /* The card's streaming multiprocessors and the resident threads a SM of its compute
     * capability, each 0 when the catalogue does not give it (its source in the entry's
     * sources, fact "sm_count" and "max_threads_per_sm"). */
    uint64_t sm_count;
    uint64_t max_threads_per_sm;
    int bf16_known; /* the catalogue says whether bf16 is supported */
    int bf16;       /* when known: 1 supported, 0 not */
    int fp8_known;
    int fp8;
    /* Unified memory (a GPU that shares memory with its CPU): the basis of its
     * capacity, NULL for a card with memory of its own: "metal" (Apple's
     * working-set limit), "gtt" (an AMD APU's GTT beside the carve-out),
     * "nvlink-c2c" (Grace: the HBM, the CPU's LPDDR5X as host memory). */
    const char *unified_kind;
    int unified_gpu_known;
    uint64_t unified_gpu_bytes; /* what the GPU may hold by default, as a public log printed it */
    int unified_host_known;
    uint64_t unified_host_bytes; /* host memory it reaches (host_gb x 10^9) */
    const char *unified_rule;    /* the rule in words, with its figures */
    const char *unified_source;  /* the public page it comes from */
    const json_t *entry;         /* the whole entry (aliases, sources, notes); borrowed */
} vs_gpu_spec;

/* The parsed catalogue ({"schema", "about", "gpus": [...]}), borrowed and
 * read-only; NULL when the embedded text could not be parsed (a build error). */
const json_t *vs_catalog(void);

/* The embedded JSON text and its length in bytes. */
const char *vs_catalog_text(size_t *len);

/* Number of entries, and entry i filled into out (0, or VS_ENOTFOUND past the end). */
size_t vs_catalog_count(void);
int vs_catalog_at(vs_gpu_spec *out, size_t i);

/* Fills out from the entry whose name or alias matches name (see above); the
 * aliases are the catalogue's ("H100 80GB" is listed for the H100 SXM, whose
 * nvidia-smi name is "NVIDIA H100 80GB HBM3"), never guessed.
 * Returns 0, or VS_ENOTFOUND with a message naming the entries it may have
 * meant ("A100" -> "A100 80GB, A100 40GB"). */
int vs_catalog_find(vs_gpu_spec *out, const char *name, vs_error *err);

/* The canonical names, NULL-terminated, in catalogue order (for completion).
 * Never NULL: an empty list when the catalogue is unavailable. */
const char *const *vs_catalog_names(void);

/* The lookup key of a name: lowercase letters and digits, brand words dropped
 * ("NVIDIA GeForce RTX 4090" -> "rtx4090"). Returns out; truncates safely. */
char *vs_catalog_key(char *out, size_t outlen, const char *name);

#endif
