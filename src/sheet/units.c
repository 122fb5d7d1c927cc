#include "sheet/units.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util/checked.h"
#include "util/word.h"

/* A parsed decimal is kept as its digits and a power of ten, never as a double:
 * value = digits x 10^exp10. Digits are bounded so that the work per number is
 * bounded whatever the input. */
#define VS_UNITS_MAX_DIGITS 64
#define VS_UNITS_MAX_EXP 4000

typedef struct {
    unsigned char d[VS_UNITS_MAX_DIGITS + 24]; /* room for multiplying by a unit */
    size_t n;                                  /* significant digits, most significant first */
    long exp10;
} decimal;

static const struct {
    const char *name;
    uint64_t bytes;
} unit_table[] = {
    [VS_UNIT_B] = {"B", 1ULL},
    [VS_UNIT_KB] = {"KB", 1000ULL},
    [VS_UNIT_MB] = {"MB", 1000000ULL},
    [VS_UNIT_GB] = {"GB", 1000000000ULL},
    [VS_UNIT_TB] = {"TB", 1000000000000ULL},
    [VS_UNIT_KIB] = {"KiB", 1ULL << 10},
    [VS_UNIT_MIB] = {"MiB", 1ULL << 20},
    [VS_UNIT_GIB] = {"GiB", 1ULL << 30},
    [VS_UNIT_TIB] = {"TiB", 1ULL << 40},
};

#define UNIT_COUNT (sizeof unit_table / sizeof unit_table[0])
#define UNIT_LIST "B, KB, MB, GB, TB, KiB, MiB, GiB, TiB"

int vs_units_add(uint64_t *out, uint64_t a, uint64_t b)
{
    uint64_t r;
    if (vs_checked_add(&r, a, b))
        return VS_EUNIT;
    *out = r;
    return 0;
}

int vs_units_mul(uint64_t *out, uint64_t a, uint64_t b)
{
    uint64_t r;
    if (vs_checked_mul(&r, a, b))
        return VS_EUNIT;
    *out = r;
    return 0;
}

int vs_unit_parse(vs_unit *out, const char *name, vs_error *err)
{
    size_t i;
    for (i = 0; i < UNIT_COUNT; i++) {
        if (!strcmp(name, unit_table[i].name)) {
            *out = (vs_unit)i;
            return 0;
        }
    }
    return vs_error_set(err, VS_EUNIT, "unknown unit '%s' (expected one of " UNIT_LIST ")", name);
}

const char *vs_unit_name(vs_unit u)
{
    return (size_t)u < UNIT_COUNT ? unit_table[u].name : "?";
}

uint64_t vs_unit_bytes(vs_unit u)
{
    return (size_t)u < UNIT_COUNT ? unit_table[u].bytes : 0;
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Reads digits[.digits][e[+-]digits] from s; *end is set past the number.
 * Returns 0, or VS_EVALUE with a message naming what was expected. */
static int decimal_read(decimal *out, const char *s, const char **end, const char *what,
                        vs_error *err)
{
    const char *p = s;
    int seen = 0, point = 0;
    long frac = 0;
    size_t dropped_nonzero = 0;
    memset(out, 0, sizeof *out);
    if (*p == '-')
        return vs_error_set(err, VS_EVALUE, "%s '%s' is negative; expected a non-negative number",
                            what, s);
    if (*p == '+')
        p++;
    for (;; p++) {
        if (is_digit(*p)) {
            seen = 1;
            if (point)
                frac++;
            if (out->n == 0 && *p == '0')
                continue; /* leading zeros carry no value */
            if (out->n >= VS_UNITS_MAX_DIGITS) {
                if (*p != '0')
                    dropped_nonzero = 1;
                if (!point)
                    out->exp10++; /* an integer digit we cannot keep still scales */
                else
                    frac--;
                continue;
            }
            out->d[out->n++] = (unsigned char)(*p - '0');
        } else if (*p == '.' && !point) {
            point = 1;
        } else {
            break;
        }
    }
    if (!seen)
        return vs_error_set(err, VS_EVALUE, "expected a number in %s '%s'", what, s);
    if (dropped_nonzero)
        return vs_error_set(err, VS_EVALUE, "%s '%s' has more than %d significant digits", what, s,
                            VS_UNITS_MAX_DIGITS);
    out->exp10 -= frac;
    if ((*p == 'e' || *p == 'E') &&
        (is_digit(p[1]) || ((p[1] == '+' || p[1] == '-') && is_digit(p[2])))) {
        int neg = 0;
        long e = 0;
        p++;
        if (*p == '+' || *p == '-')
            neg = *p++ == '-';
        for (; is_digit(*p); p++)
            if (e < 100000)
                e = e * 10 + (*p - '0');
        out->exp10 += neg ? -e : e;
    }
    /* Trailing zeros of the digits move into the exponent. */
    while (out->n > 0 && out->d[out->n - 1] == 0) {
        out->n--;
        out->exp10++;
    }
    if (out->n == 0)
        out->exp10 = 0;
    *end = p;
    return 0;
}

/* digits *= m (m < 2^44, so carries fit in 64 bits). */
static int decimal_mul_small(decimal *x, uint64_t m)
{
    unsigned char tmp[sizeof x->d];
    size_t i, n = 0;
    uint64_t carry = 0;
    if (x->n == 0)
        return 0;
    for (i = x->n; i-- > 0;) {
        uint64_t v = (uint64_t)x->d[i] * m + carry;
        tmp[n++] = (unsigned char)(v % 10);
        carry = v / 10;
    }
    while (carry) {
        if (n >= sizeof tmp)
            return VS_EUNIT;
        tmp[n++] = (unsigned char)(carry % 10);
        carry /= 10;
    }
    for (i = 0; i < n; i++)
        x->d[i] = tmp[n - 1 - i];
    x->n = n;
    /* keep the invariant decimal_to_u64 relies on: no trailing zero digits */
    while (x->n > 0 && x->d[x->n - 1] == 0) {
        x->n--;
        x->exp10++;
    }
    return 0;
}

/* The integer value of x, rounded up when round_up (else *inexact says a fraction
 * was dropped). VS_EUNIT when it does not fit in 64 bits. */
static int decimal_to_u64(const decimal *x, int round_up, uint64_t *out, int *inexact)
{
    uint64_t v = 0;
    size_t keep, i;
    int frac = 0;
    long e;
    *inexact = 0;
    if (x->n == 0) {
        *out = 0;
        return 0;
    }
    if (x->exp10 > VS_UNITS_MAX_EXP)
        return VS_EUNIT;
    if (x->exp10 >= 0) {
        keep = x->n;
    } else if ((unsigned long)-x->exp10 >= x->n) {
        keep = 0;
        frac = 1;
    } else {
        keep = x->n - (size_t)-x->exp10;
        frac = 1; /* the digits were stripped of trailing zeros: what is dropped is non-zero */
    }
    for (i = 0; i < keep; i++)
        if (vs_units_mul(&v, v, 10) < 0 || vs_units_add(&v, v, x->d[i]) < 0)
            return VS_EUNIT;
    for (e = x->exp10; e > 0; e--)
        if (vs_units_mul(&v, v, 10) < 0)
            return VS_EUNIT;
    if (frac) {
        *inexact = 1;
        if (round_up && vs_units_add(&v, v, 1) < 0)
            return VS_EUNIT;
    }
    *out = v;
    return 0;
}

static const char *skip_spaces(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* The unit named u exactly, or UNIT_COUNT. */
static size_t unit_named(const char *u)
{
    size_t i;
    for (i = 0; i < UNIT_COUNT; i++)
        if (!strcmp(u, unit_table[i].name))
            break;
    return i;
}

/* The common amount ("112MiB", "12.5 GB"): at most 18 digits with at most
 * one point, then a unit. The same bytes as the decimal path below, which
 * rounds a fraction of a byte up: ceil(digits x unit / 10^decimals). Returns
 * 1 with *out set, or 0 for any other text (an exponent, a sign, more digits,
 * an unknown unit, a product past 64 bits), which the decimal path reads and
 * reports on. Most lines of a long cell hold an amount. */
static int parse_bytes_plain(uint64_t *out, const char *p)
{
    uint64_t m = 0, pow10 = 1, v;
    int digits = 0, point = 0;
    size_t k;
    if (!is_digit(*p))
        return 0;
    for (;; p++) {
        if (is_digit(*p)) {
            if (++digits > 18)
                return 0;
            m = m * 10 + (uint64_t)(*p - '0');
            if (point)
                pow10 *= 10;
        } else if (*p == '.' && !point) {
            point = 1;
        } else {
            break;
        }
    }
    if (*p == 'e' || *p == 'E')
        return 0;
    p = skip_spaces(p);
    if (!*p || (k = unit_named(p)) == UNIT_COUNT || vs_units_mul(&v, m, unit_table[k].bytes) < 0)
        return 0;
    *out = v / pow10 + (v % pow10 != 0);
    return 1;
}

int vs_units_parse_bytes(uint64_t *out, const char *text, vs_error *err)
{
    decimal x;
    const char *end, *u;
    vs_unit unit;
    int inexact, rc;
    size_t i;
    if (!text)
        return vs_error_set(err, VS_EVALUE, "expected an amount of memory");
    text = skip_spaces(text);
    if (parse_bytes_plain(out, text))
        return 0;
    rc = decimal_read(&x, text, &end, "amount", err);
    if (rc < 0)
        return rc;
    u = skip_spaces(end);
    if (!*u)
        return vs_error_set(
            err, VS_EUNIT, "'%s' has no unit; memory amounts always carry one of " UNIT_LIST, text);
    if ((i = unit_named(u)) == UNIT_COUNT) {
        size_t j;
        static const char *const prefix[] = {"K", "M", "G", "T"};
        for (j = 0; j < sizeof prefix / sizeof prefix[0]; j++)
            if (!strcasecmp(u, prefix[j]) ||
                ((u[0] == prefix[j][0] || u[0] == prefix[j][0] + 32) && u[1] == 'i' && !u[2]))
                return vs_error_set(err, VS_EUNIT,
                                    "'%s' has no byte unit: did you mean %.*s%sB or %.*s%siB? (%sB "
                                    "is 10^%d bytes, %siB is 2^%d)",
                                    text, (int)(u - text), text, prefix[j], (int)(u - text), text,
                                    prefix[j], prefix[j], 3 * (int)(j + 1), prefix[j],
                                    10 * (int)(j + 1));
        for (j = 0; j < UNIT_COUNT; j++)
            if (!strcasecmp(u, unit_table[j].name))
                return vs_error_set(err, VS_EUNIT,
                                    "unknown unit '%s' in '%s' (did you mean %s? units are "
                                    "case-sensitive: " UNIT_LIST ")",
                                    u, text, unit_table[j].name);
        return vs_error_set(err, VS_EUNIT,
                            "unknown unit '%s' in '%s' (expected one of " UNIT_LIST ")", u, text);
    }
    unit = (vs_unit)i;
    if (decimal_mul_small(&x, unit_table[unit].bytes) < 0 ||
        decimal_to_u64(&x, 1, out, &inexact) < 0)
        return vs_error_set(err, VS_EUNIT, "'%s' does not fit in 64 bits of bytes", text);
    return 0;
}

/* The suffixes of a count: K, M, B, T are powers of ten as in every other
 * figure here (k is K); Ki, Mi, Gi, Ti powers of two, for the "32k context"
 * that means 32,768 tokens. */
static const struct {
    const char *name;
    uint64_t mult;
} count_suffix[] = {{"K", 1000ULL},       {"k", 1000ULL},          {"M", 1000000ULL},
                    {"B", 1000000000ULL}, {"T", 1000000000000ULL}, {"Ki", 1ULL << 10},
                    {"Mi", 1ULL << 20},   {"Gi", 1ULL << 30},      {"Ti", 1ULL << 40}};

#define COUNT_SUFFIXES "K (or k), M, B, T (powers of 10) or Ki, Mi, Gi, Ti (powers of 2)"

int vs_units_parse_count(uint64_t *out, const char *text, vs_error *err)
{
    decimal x;
    const char *end;
    uint64_t mult = 1;
    int inexact, rc;
    size_t i;
    if (!text)
        return vs_error_set(err, VS_EVALUE, "expected a count");
    rc = decimal_read(&x, text, &end, "count", err);
    if (rc < 0)
        return rc;
    if (*end) {
        for (i = 0; i < sizeof count_suffix / sizeof count_suffix[0]; i++)
            if (!strcmp(end, count_suffix[i].name))
                break;
        if (i == sizeof count_suffix / sizeof count_suffix[0]) {
            if (!strcmp(end, "G"))
                return vs_error_set(err, VS_EVALUE,
                                    "count '%s' ends with 'G'; did you mean %.*sB (10^9) or "
                                    "%.*sGi (2^30)? a count takes " COUNT_SUFFIXES,
                                    text, (int)(end - text), text, (int)(end - text), text);
            if (!strcmp(end, "m") || !strcmp(end, "b") || !strcmp(end, "t"))
                return vs_error_set(err, VS_EVALUE,
                                    "count '%s' ends with '%s'; did you mean %.*s%s? a count "
                                    "takes " COUNT_SUFFIXES,
                                    text, end, (int)(end - text), text,
                                    !strcmp(end, "m")   ? "M"
                                    : !strcmp(end, "b") ? "B"
                                                        : "T");
            return vs_error_set(err, VS_EVALUE,
                                "count '%s' ends with '%s'; expected a plain number (7e9, "
                                "6738415616) or one of the suffixes " COUNT_SUFFIXES,
                                text, end);
        }
        mult = count_suffix[i].mult;
    }
    if (decimal_mul_small(&x, mult) < 0 || decimal_to_u64(&x, 0, out, &inexact) < 0)
        return vs_error_set(err, VS_EUNIT, "count '%s' does not fit in 64 bits", text);
    if (inexact)
        return vs_error_set(err, VS_EVALUE, "count '%s' is not a whole number", text);
    return 0;
}

char *vs_units_count_note(char *out, size_t outlen, const char *text)
{
    size_t n = text ? strlen(text) : 0;
    uint64_t v, alt;
    char g[32], ga[32];
    const char *suffix, *altsuffix;
    vs_error e;
    if (!outlen)
        return NULL;
    out[0] = '\0';
    if (n < 2 || vs_units_parse_count(&v, text, &e) < 0)
        return NULL;
    if (text[n - 1] == 'i') {
        suffix = text[n - 2] == 'K'   ? "Ki = 2^10"
                 : text[n - 2] == 'M' ? "Mi = 2^20"
                 : text[n - 2] == 'G' ? "Gi = 2^30"
                                      : "Ti = 2^40";
        vs_units_grouped(g, sizeof g, v);
        snprintf(out, outlen, "%s is %s (%s)", text, g, suffix);
        return out;
    }
    if (text[n - 1] == 'K' || text[n - 1] == 'k')
        suffix = "K = 10^3", altsuffix = "Ki";
    else if (text[n - 1] == 'M')
        suffix = "M = 10^6", altsuffix = "Mi";
    else
        return NULL;
    /* the same digits read with the binary suffix */
    {
        char bin[64];
        snprintf(bin, sizeof bin, "%.*s%s", (int)(n - 1), text, altsuffix);
        if (vs_units_parse_count(&alt, bin, &e) < 0)
            return NULL;
        vs_units_grouped(g, sizeof g, v);
        vs_units_grouped(ga, sizeof ga, alt);
        snprintf(out, outlen, "%s is %s (%s, as everywhere here); for %s write %s", text, g, suffix,
                 ga, bin);
    }
    return out;
}

int vs_units_unit_word(const char *w)
{
    static const char *const bare[] = {"K", "M", "G", "T", "Ki", "Mi", "Gi", "Ti"};
    size_t i;
    if (!w || !*w)
        return 0;
    for (i = 0; i < UNIT_COUNT; i++)
        if (!strcasecmp(w, unit_table[i].name))
            return 1;
    for (i = 0; i < sizeof bare / sizeof bare[0]; i++)
        if (!strcasecmp(w, bare[i]))
            return 1;
    return 0;
}

int vs_units_space_error(vs_error *err, const char *number, const char *unit)
{
    decimal x;
    const char *end;
    vs_error e;
    if (!number || !vs_units_unit_word(unit) || decimal_read(&x, number, &end, "amount", &e) < 0 ||
        *end)
        return 0;
    return vs_error_set(err, VS_EUNIT,
                        "'%s %s': write %s%s (no space between the number and its unit)", number,
                        unit, number, unit);
}

int vs_units_parse_uint(uint64_t *out, const char *text, vs_error *err)
{
    uint64_t v = 0;
    const char *p;
    if (!text || !*text)
        return vs_error_set(err, VS_EVALUE, "expected a whole number");
    for (p = text; *p; p++) {
        if (!is_digit(*p))
            return vs_error_set(err, VS_EVALUE, "expected a whole number, got '%s'", text);
        if (vs_units_mul(&v, v, 10) < 0 || vs_units_add(&v, v, (uint64_t)(*p - '0')) < 0)
            return vs_error_set(err, VS_EVALUE, "'%s' is too large (at most %llu)", text,
                                (unsigned long long)UINT64_MAX);
    }
    *out = v;
    return 0;
}

/* Decimal digits of n into buf (at least 21 bytes) with its NUL; returns the
 * length. Used instead of printf on the hot rendering path (three amounts
 * per row of a long envelope). */
static size_t u64_digits(char *buf, uint64_t n)
{
    char tmp[24], *p = vs_word_u64_digits(n, tmp + sizeof tmp);
    size_t len = (size_t)(tmp + sizeof tmp - p);
    memcpy(buf, p, len);
    buf[len] = '\0';
    return len;
}

/* The n bytes at s into out, cut to fit with its NUL; returns out. */
static char *put_cut(char *out, size_t outlen, const char *s, size_t n)
{
    if (n >= outlen)
        n = outlen - 1;
    memcpy(out, s, n);
    out[n] = '\0';
    return out;
}

/* "q" or "q.digits" (outlen > 0), cut to fit. Written whole in a local
 * buffer, then copied once: every amount a table shows passes here. */
static char *put_quotient(char *out, size_t outlen, uint64_t q, const char *digits)
{
    char full[24 + 1 + 64];
    size_t n = u64_digits(full, q), nd = strlen(digits);
    if (nd > 64)
        nd = 64;
    if (nd) {
        full[n++] = '.';
        memcpy(full + n, digits, nd);
        n += nd;
    }
    return put_cut(out, outlen, full, n);
}

char *vs_units_exact(char *out, size_t outlen, uint64_t bytes, vs_unit u)
{
    uint64_t d = vs_unit_bytes(u), q, r;
    char digits[64];
    size_t n = 0;
    if (!out || outlen == 0)
        return out;
    if (d == 0)
        d = 1;
    q = bytes / d;
    r = bytes % d;
    /* d divides a power of ten (10^12 or 2^40 | 10^40), so this ends within 40 digits. */
    for (; r != 0 && n < sizeof digits - 1; n++) {
        uint64_t t = r * 10;
        digits[n] = (char)('0' + t / d);
        r = t % d;
    }
    digits[n] = '\0';
    return put_quotient(out, outlen, q, digits);
}

char *vs_units_round(char *out, size_t outlen, uint64_t bytes, vs_unit u, int decimals)
{
    uint64_t d = vs_unit_bytes(u), q, r;
    char digits[24];
    int i;
    if (!out || outlen == 0)
        return out;
    if (d == 0)
        d = 1;
    if (decimals < 0)
        decimals = 0;
    if (decimals > 18)
        decimals = 18;
    q = bytes / d;
    r = bytes % d;
    for (i = 0; i < decimals; i++) {
        r *= 10;
        digits[i] = (char)('0' + r / d);
        r %= d;
    }
    digits[decimals] = '\0';
    /* Half up: the remainder is at least half of the divisor (r < d <= 2^40). */
    if (r * 2 >= d) {
        for (i = decimals - 1; i >= 0; i--) {
            if (digits[i] == '9') {
                digits[i] = '0';
            } else {
                digits[i]++;
                break;
            }
        }
        if (i < 0)
            q++; /* q <= 2^64 / d - 1 when d > 1, so this cannot wrap */
    }
    return put_quotient(out, outlen, q, digits);
}

/* n with a comma every three digits, written at p (room for 27 bytes);
 * returns the end. The leading group (one to three digits), then whole
 * groups of three: no test per digit. */
static char *put_grouped(char *p, uint64_t n)
{
    char plain[24];
    size_t len = u64_digits(plain, n), i, lead = len % 3 ? len % 3 : 3;
    memcpy(p, plain, lead);
    p += lead;
    for (i = lead; i < len; i += 3) {
        p[0] = ',';
        memcpy(p + 1, plain + i, 3);
        p += 4;
    }
    return p;
}

char *vs_units_grouped(char *out, size_t outlen, uint64_t n)
{
    char tmp[40];
    if (!out || outlen == 0)
        return out;
    return put_cut(out, outlen, tmp, (size_t)(put_grouped(tmp, n) - tmp));
}

/* bytes in units of d, rounded half up to two decimals, written grouped
 * ("1,862.65"), then " " and the unit's name; returns the end. As
 * vs_units_round gives it: r < d <= 2^40, so r * 200 cannot overflow. */
static char *put_rounded2(char *p, uint64_t bytes, vs_unit u)
{
    uint64_t d = unit_table[u].bytes, q = bytes / d, r = bytes % d;
    uint64_t cents = (r * 200 + d) / (2 * d); /* floor(100 r / d + 1/2) */
    const char *name = unit_table[u].name;
    if (cents == 100) {
        q++;
        cents = 0;
    }
    p = put_grouped(p, q);
    *p++ = '.';
    *p++ = (char)('0' + cents / 10);
    *p++ = (char)('0' + cents % 10);
    *p++ = ' ';
    while (*name)
        *p++ = *name++;
    return p;
}

/* bytes in units of u rounded half up to two decimals, not grouped, as
 * vs_units_round(.., 2) writes it ("1862.65"), then " " and the unit's name,
 * and the NUL (at most 20 + 3 + 1 + 3 + 1 bytes). floor(100 r / d + 1/2) is
 * the two digits vs_units_round finds one at a time with its half-up carry. */
static void put_round2_named(char *p, uint64_t bytes, vs_unit u)
{
    uint64_t d = unit_table[u].bytes, q = bytes / d, r = bytes % d;
    uint64_t cents = (r * 200 + d) / (2 * d);
    const char *name = unit_table[u].name;
    if (cents == 100) {
        q++;
        cents = 0;
    }
    p += u64_digits(p, q);
    *p++ = '.';
    *p++ = (char)('0' + cents / 10);
    *p++ = (char)('0' + cents % 10);
    *p++ = ' ';
    while (*name)
        *p++ = *name++;
    *p = '\0';
}

void vs_units_amounts(uint64_t bytes, char *b, char *gb, char *gib)
{
    char *p = put_grouped(b, bytes); /* at most 26 bytes */
    memcpy(p, " B", 3);
    put_round2_named(gb, bytes, VS_UNIT_GB);
    put_round2_named(gib, bytes, VS_UNIT_GIB);
}

char *vs_units_describe(char *out, size_t outlen, uint64_t bytes)
{
    /* at most 26 + 4 + 2 x (26 + 3 + 4) + 3 bytes: written whole, then cut to
     * fit; formatted here in one pass, not printed, rounded and grouped again
     * (most lines of a long cell describe an amount) */
    char full[112], *p = full;
    vs_unit du, bu;
    size_t n;
    if (!out || outlen == 0)
        return out;
    p = put_grouped(p, bytes);
    memcpy(p, " B", 2);
    p += 2;
    /* GB/GiB for everything from 0.1 GB up, so that sizes in one sheet read in one
     * scale; smaller amounts in MB/MiB or KB/KiB so they do not show as 0.00. */
    if (bytes >= 1000ULL) {
        if (bytes >= 100000000ULL) {
            du = VS_UNIT_GB;
            bu = VS_UNIT_GIB;
        } else if (bytes >= 100000ULL) {
            du = VS_UNIT_MB;
            bu = VS_UNIT_MIB;
        } else {
            du = VS_UNIT_KB;
            bu = VS_UNIT_KIB;
        }
        memcpy(p, " = ", 3);
        p = put_rounded2(p + 3, bytes, du);
        memcpy(p, " = ", 3);
        p = put_rounded2(p + 3, bytes, bu);
    }
    n = (size_t)(p - full);
    if (n >= outlen)
        n = outlen - 1;
    memcpy(out, full, n);
    out[n] = '\0';
    return out;
}
