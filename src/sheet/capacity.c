#include "sheet/capacity.h"

#include <string.h>

static int positive(const json_t *v, uint64_t *out)
{
    if (!json_is_integer(v) || json_integer_value(v) <= 0)
        return 0;
    *out = (uint64_t)json_integer_value(v);
    return 1;
}

uint64_t vs_capacity_nominal_binary(uint64_t nominal_bytes)
{
    const uint64_t giga = 1000000000u, gibi = (uint64_t)1 << 30;
    uint64_t whole = nominal_bytes / giga, rest = nominal_bytes % giga;
    /* rest < 10^9 < 2^30, so rest x 2^30 < 2^60: no overflow. */
    uint64_t frac = rest * gibi / giga;
    if (whole > (UINT64_MAX - frac) / gibi)
        return UINT64_MAX;
    return whole * gibi + frac;
}

void vs_offer_capacity(vs_offer_cap *out, const json_t *offer)
{
    memset(out, 0, sizeof *out);
    out->nominal_known = positive(json_object_get(offer, "memory_bytes"), &out->nominal_bytes);
    if (out->nominal_known)
        out->nominal_binary_bytes = vs_capacity_nominal_binary(out->nominal_bytes);
    out->reported_known = positive(json_object_get(offer, "reported_bytes"), &out->reported_bytes);
    if (out->reported_known)
        out->reported_source = json_string_value(json_object_get(offer, "reported_basis"));
    if (out->reported_known) {
        out->basis = VS_CAPACITY_REPORTED;
        out->bytes = out->reported_bytes;
        out->known = 1;
    } else if (out->nominal_known) {
        out->basis = VS_CAPACITY_NOMINAL;
        out->bytes = out->nominal_bytes;
        out->known = 1;
    }
}

const char *vs_capacity_basis_code(vs_capacity_basis b)
{
    switch (b) {
    case VS_CAPACITY_REPORTED:
        return "reported";
    case VS_CAPACITY_NOMINAL:
        return "nominal";
    case VS_CAPACITY_UNKNOWN:
    default:
        return NULL;
    }
}
