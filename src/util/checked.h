/* checked.h — unsigned 64-bit arithmetic that says when it overflows.
 *
 * The one helper for sizes, counts and byte totals (C23's ckd_add and ckd_mul,
 * before C23; GCC and Clang builtins underneath). Each returns 1 when the exact
 * result does not fit in 64 bits (*out then holds the wrapped value, as the
 * builtins leave it), else 0 with the result in *out. Arguments are unsigned
 * 64-bit values: a caller with a signed quantity checks its sign first.
 */
#ifndef VS_UTIL_CHECKED_H
#define VS_UTIL_CHECKED_H

#include <stdint.h>

static inline int vs_checked_add(uint64_t *out, uint64_t a, uint64_t b)
{
    return __builtin_add_overflow(a, b, out);
}

static inline int vs_checked_mul(uint64_t *out, uint64_t a, uint64_t b)
{
    return __builtin_mul_overflow(a, b, out);
}

#endif
