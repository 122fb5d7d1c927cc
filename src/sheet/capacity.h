/* capacity.h — one offer's capacity per card, and on which basis.
 *
 * The rule, in one place: the device-reported total (bytes, from the catalogue
 * or `gpu NAME reported=AMOUNT`) when it is known, else the nominal memory as
 * marketed (GB = 10^9 bytes). A nominal figure is not what a device gives: an
 * 80 GB card reports between 80 x 10^9 bytes and 80 GiB depending on how its
 * vendor counts, so on a nominal basis a check may only exclude when the need
 * exceeds the nominal figure read in binary units (80 GB read as 80 GiB); in
 * between, the device-reported total is what is missing.
 *
 * This module returns facts and a basis code; the words are render/'s (and the
 * classification's notes). Pure: no I/O, no globals.
 */
#ifndef VS_SHEET_CAPACITY_H
#define VS_SHEET_CAPACITY_H

#include <jansson.h>
#include <stdint.h>

typedef enum {
    VS_CAPACITY_UNKNOWN = 0,  /* neither figure known */
    VS_CAPACITY_REPORTED = 1, /* the device-reported total */
    VS_CAPACITY_NOMINAL = 2   /* the nominal memory, as marketed */
} vs_capacity_basis;

typedef struct vs_offer_cap {
    vs_capacity_basis basis;
    int known;      /* a basis is known (basis != VS_CAPACITY_UNKNOWN) */
    uint64_t bytes; /* the capacity of one card on that basis, when known */
    int nominal_known;
    uint64_t nominal_bytes;        /* memory_bytes: as marketed */
    uint64_t nominal_binary_bytes; /* the same figure read in binary units: GB as GiB */
    int reported_known;
    uint64_t reported_bytes;     /* reported_bytes: the device-reported total */
    const char *reported_source; /* reported_basis, borrowed from the offer; NULL if none */
} vs_offer_cap;

/* Fills out from a sheet's offer object (records/sheet.schema.json: memory_bytes,
 * reported_bytes, reported_basis; positive integers count, anything else is
 * unknown). Never fails; an offer of NULL gives VS_CAPACITY_UNKNOWN. */
void vs_offer_capacity(vs_offer_cap *out, const json_t *offer);

/* A nominal byte count read in binary units: bytes / 10^9 x 2^30, rounded
 * down, saturating at UINT64_MAX (80 x 10^9 -> 80 x 2^30). */
uint64_t vs_capacity_nominal_binary(uint64_t nominal_bytes);

/* "reported", "nominal", or NULL for VS_CAPACITY_UNKNOWN (static strings, as
 * the candidates payload's capacity_basis). */
const char *vs_capacity_basis_code(vs_capacity_basis b);

#endif
