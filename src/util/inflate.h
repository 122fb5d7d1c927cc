/* inflate.h — a zlib stream (RFC 1950 around RFC 1951's stored, fixed and
 * dynamic Huffman blocks) inflated into a buffer of the size the caller knows.
 *
 * Why: the revision index reads git's small pack deltas (hundreds of bytes)
 * itself, and zlib is not one of the product's dependencies (libgit2 links
 * it privately). Written for small inputs and for hostile ones: every read
 * and every write is bounded, codes are checked as RFC 1951 section 3.2 asks, and the
 * Adler-32 at the end is verified. Not fast on large streams (a symbol is
 * decoded a bit at a time): large objects are read through libgit2. */
#ifndef VS_UTIL_INFLATE_H
#define VS_UTIL_INFLATE_H

#include <stddef.h>

#include "util/error.h"

/* Inflates the zlib stream at in (at most in_len bytes: what follows it is
 * ignored) into out, which it must fill exactly (out_len bytes). 0, or
 * VS_EFORMAT when the stream is malformed, truncated, or of another length. */
int vs_inflate_zlib(const unsigned char *in, size_t in_len, unsigned char *out, size_t out_len,
                    vs_error *err);

#endif
