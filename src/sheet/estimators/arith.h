/* arith.h — checked integer steps the estimator files share. Internal. */
#ifndef VS_SHEET_ESTIMATORS_ARITH_H
#define VS_SHEET_ESTIMATORS_ARITH_H

#include <stdint.h>

#include "util/checked.h"
#include "util/error.h"

static inline int vs_arith_mul(uint64_t *acc, uint64_t x, const char *what, vs_error *err)
{
    if (vs_checked_mul(acc, *acc, x))
        return vs_error_set(err, VS_EUNIT, "%s does not fit in 64-bit bytes", what);
    return 0;
}

static inline int vs_arith_add(uint64_t *acc, uint64_t x, const char *what, vs_error *err)
{
    if (vs_checked_add(acc, *acc, x))
        return vs_error_set(err, VS_EUNIT, "%s does not fit in 64-bit bytes", what);
    return 0;
}

static inline uint64_t vs_arith_ceil_div(uint64_t a, uint64_t b)
{
    return a / b + (a % b != 0);
}

#endif
