/* units.h — exact memory amounts and counts, and their labelled display.
 *
 * Memory always carries a byte unit: B, KB, MB, GB, TB (powers of 10) and KiB,
 * MiB, GiB, TiB (powers of 2). Counts (params=) take K, M, B, T (10^3 .. 10^12)
 * or plain numbers, including scientific notation ("7e9", "6.74B"). Values are
 * parsed as exact decimals, never through double; a fraction of a byte rounds up
 * to a whole byte; a value that does not fit in 64 bits is VS_EUNIT, never a
 * wrap-around. Display (GB/GiB with two decimals, rounded half up) is exact
 * integer arithmetic too. An amount that may be unknown travels with a valid
 * bit beside it, never as a sentinel value (sheet/vocab.h). Pure: no I/O, no
 * globals.
 */
#ifndef VS_SHEET_UNITS_H
#define VS_SHEET_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

typedef enum {
    VS_UNIT_B,
    VS_UNIT_KB,
    VS_UNIT_MB,
    VS_UNIT_GB,
    VS_UNIT_TB,
    VS_UNIT_KIB,
    VS_UNIT_MIB,
    VS_UNIT_GIB,
    VS_UNIT_TIB
} vs_unit;

/* "GiB" -> VS_UNIT_GIB (exact spelling, case-sensitive). Returns 0 or VS_EUNIT. */
int vs_unit_parse(vs_unit *out, const char *name, vs_error *err);
const char *vs_unit_name(vs_unit u);
uint64_t vs_unit_bytes(vs_unit u); /* bytes in one unit */

/* "24GB", "13.04GiB", "1.5 TiB" -> exact bytes (fractions round up). A missing or
 * unknown unit is VS_EUNIT naming the allowed units. */
int vs_units_parse_bytes(uint64_t *out, const char *text, vs_error *err);

/* "7e9", "6.74B", "6738415616", "70M", "32k" -> exact count; K (or k), M, B,
 * T are powers of 10, Ki, Mi, Gi, Ti powers of 2 ("32Ki" = 32,768); a
 * fractional count is VS_EVALUE. */
int vs_units_parse_count(uint64_t *out, const char *text, vs_error *err);

/* What a count with a suffix means, for its echo: "32k is 32,000 (K = 10^3,
 * as everywhere here); for 32,768 write 32Ki", "32Ki is 32,768 (Ki = 2^10)".
 * NULL (out empty) for a plain number or one that does not parse. */
char *vs_units_count_note(char *out, size_t outlen, const char *text);

/* 1 when w, in any case, is a byte unit (GiB, gb) or a bare prefix (G, Gi). */
int vs_units_unit_word(const char *w);

/* For an amount written as two words ("24" then "GiB"): sets err to "write
 * 24GiB (no space ...)" and returns VS_EUNIT, or returns 0 when number is not
 * a plain number or unit not a unit. */
int vs_units_space_error(vs_error *err, const char *number, const char *unit);

/* A plain non-negative integer ("4096", "8"); VS_EVALUE otherwise. */
int vs_units_parse_uint(uint64_t *out, const char *text, vs_error *err);

/* bytes / unit as an exact decimal string (no rounding: 24e9 B in GiB is
 * "22.351741790771484375"); out must hold at least 96 bytes. */
char *vs_units_exact(char *out, size_t outlen, uint64_t bytes, vs_unit u);

/* bytes / unit rounded half up to `decimals` places ("22.35"). */
char *vs_units_round(char *out, size_t outlen, uint64_t bytes, vs_unit u, int decimals);

/* "14,000,000,000" (thousands separators). */
char *vs_units_grouped(char *out, size_t outlen, uint64_t n);

/* The labelled display used everywhere: "14,000,000,000 B = 14.00 GB = 13.04 GiB". */
char *vs_units_describe(char *out, size_t outlen, uint64_t bytes);

/* The three amounts of a table row, "14,000,000,000 B", "14.00 GB" and
 * "13.04 GiB": vs_units_grouped then " B", and vs_units_round to two places
 * then " GB" and " GiB", formatted in one pass (every row of a long envelope
 * shows them). Each buffer holds at least VS_UNITS_AMOUNT bytes. */
#define VS_UNITS_AMOUNT 40
void vs_units_amounts(uint64_t bytes, char *b, char *gb, char *gib);

/* Checked arithmetic (util/checked.h): 0, or VS_EUNIT when the result would not fit in 64 bits. */
int vs_units_add(uint64_t *out, uint64_t a, uint64_t b);
int vs_units_mul(uint64_t *out, uint64_t a, uint64_t b);

#endif
