#include "model/jscan.h"

#include <stdlib.h>
#include <string.h>

#include "util/checked.h"
#include "util/utf8.h"

void vs_jscan_init(vs_jscan *s, const char *text, size_t len)
{
    memset(s, 0, sizeof *s);
    s->start = s->p = text;
    s->end = text + len;
}

void vs_jscan_free(vs_jscan *s)
{
    free(s->str);
    s->str = NULL;
    s->str_len = s->str_cap = 0;
}

static int fail(vs_jscan *s, const char *what)
{
    if (!s->error) {
        s->error = what;
        s->error_at = (size_t)(s->p - s->start);
    }
    return VS_JSCAN_BAD;
}

static void ws(vs_jscan *s)
{
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\n' || *s->p == '\r' || *s->p == '\t'))
        s->p++;
}

char vs_jscan_peek(vs_jscan *s)
{
    if (s->error)
        return '\0';
    ws(s);
    return s->p < s->end ? *s->p : '\0';
}

static int expect(vs_jscan *s, char c, const char *what)
{
    if (s->error)
        return VS_JSCAN_BAD;
    ws(s);
    if (s->p >= s->end || *s->p != c)
        return fail(s, what);
    s->p++;
    return 0;
}

int vs_jscan_object(vs_jscan *s)
{
    return expect(s, '{', "expected '{'");
}
int vs_jscan_array(vs_jscan *s)
{
    return expect(s, '[', "expected '['");
}

int vs_jscan_key(vs_jscan *s, int first)
{
    char c = vs_jscan_peek(s);
    if (s->error)
        return VS_JSCAN_BAD;
    if (c == '}') {
        s->p++;
        return 0;
    }
    if (!first) {
        if (c != ',')
            return fail(s, "expected ',' or '}'");
        s->p++;
    }
    if (vs_jscan_string(s) || expect(s, ':', "expected ':'"))
        return VS_JSCAN_BAD;
    return 1;
}

int vs_jscan_next(vs_jscan *s, int first)
{
    char c = vs_jscan_peek(s);
    if (s->error)
        return VS_JSCAN_BAD;
    if (c == ']') {
        s->p++;
        return 0;
    }
    if (!first) {
        if (c != ',')
            return fail(s, "expected ',' or ']'");
        s->p++;
    }
    return 1;
}

static int append(vs_jscan *s, const char *b, size_t n)
{
    if (s->str_len + n + 1 > s->str_cap) {
        size_t cap = s->str_cap ? s->str_cap : 64;
        char *p;
        while (cap < s->str_len + n + 1)
            cap *= 2;
        if (!(p = realloc(s->str, cap))) {
            s->nomem = 1;
            return fail(s, "out of memory");
        }
        s->str = p;
        s->str_cap = cap;
    }
    memcpy(s->str + s->str_len, b, n);
    s->str_len += n;
    return 0;
}

static int hex4(vs_jscan *s, unsigned *out)
{
    unsigned v = 0;
    int i;
    if (s->end - s->p < 4)
        return fail(s, "unterminated \\u escape");
    for (i = 0; i < 4; i++) {
        char c = s->p[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return fail(s, "invalid \\u escape");
    }
    s->p += 4;
    *out = v;
    return 0;
}

static int escape(vs_jscan *s)
{
    char c, u[4];
    unsigned cp, lo;
    size_t n;
    s->p++; /* the backslash */
    if (s->p >= s->end)
        return fail(s, "unterminated string");
    c = *s->p++;
    switch (c) {
    case '"':
        return append(s, "\"", 1);
    case '\\':
        return append(s, "\\", 1);
    case '/':
        return append(s, "/", 1);
    case 'b':
        return append(s, "\b", 1);
    case 'f':
        return append(s, "\f", 1);
    case 'n':
        return append(s, "\n", 1);
    case 'r':
        return append(s, "\r", 1);
    case 't':
        return append(s, "\t", 1);
    case 'u':
        break;
    default:
        s->p--;
        return fail(s, "invalid escape");
    }
    if (hex4(s, &cp))
        return VS_JSCAN_BAD;
    if (cp == 0)
        return fail(s, "\\u0000 is not allowed");
    if (cp >= 0xDC00 && cp <= 0xDFFF)
        return fail(s, "a lone low surrogate");
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        if (s->end - s->p < 2 || s->p[0] != '\\' || s->p[1] != 'u')
            return fail(s, "a high surrogate without its low half");
        s->p += 2;
        if (hex4(s, &lo))
            return VS_JSCAN_BAD;
        if (lo < 0xDC00 || lo > 0xDFFF)
            return fail(s, "a high surrogate without its low half");
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
    }
    if (cp < 0x80) {
        u[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        u[0] = (char)(0xC0 | (cp >> 6));
        u[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        u[0] = (char)(0xE0 | (cp >> 12));
        u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        u[0] = (char)(0xF0 | (cp >> 18));
        u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    return append(s, u, n);
}

/* One UTF-8 sequence starting with a byte >= 0x80, checked (RFC 3629). */
static int utf8(vs_jscan *s)
{
    size_t n = vs_utf8_seq((const unsigned char *)s->p, (size_t)(s->end - s->p));
    if (n < 2)
        return fail(s, "invalid UTF-8");
    if (append(s, s->p, n))
        return VS_JSCAN_BAD;
    s->p += n;
    return 0;
}

int vs_jscan_string(vs_jscan *s)
{
    if (expect(s, '"', "expected a string"))
        return VS_JSCAN_BAD;
    s->str_len = 0;
    for (;;) {
        const char *q = s->p;
        unsigned char c;
        while (q < s->end && (unsigned char)*q >= 0x20 && (unsigned char)*q < 0x80 && *q != '"' &&
               *q != '\\')
            q++;
        if (q > s->p && append(s, s->p, (size_t)(q - s->p)))
            return VS_JSCAN_BAD;
        s->p = q;
        if (s->p >= s->end)
            return fail(s, "unterminated string");
        c = (unsigned char)*s->p;
        if (c == '"') {
            s->p++;
            break;
        }
        if (c == '\\') {
            if (escape(s))
                return VS_JSCAN_BAD;
        } else if (c < 0x20) {
            return fail(s, "a control character in a string");
        } else if (utf8(s)) {
            return VS_JSCAN_BAD;
        }
    }
    if (append(s, "", 1)) /* the terminating NUL, not counted */
        return VS_JSCAN_BAD;
    s->str_len--;
    return 0;
}

static int digit(const vs_jscan *s)
{
    return s->p < s->end && *s->p >= '0' && *s->p <= '9';
}

/* The number grammar; *plain = 1 when it is a non-negative integer, whose
 * digits are [*from, s->p). */
static int number(vs_jscan *s, int *plain, const char **from)
{
    *plain = 1;
    if (s->p < s->end && *s->p == '-') {
        *plain = 0;
        s->p++;
    }
    *from = s->p;
    if (!digit(s))
        return fail(s, "expected a value");
    if (*s->p == '0')
        s->p++;
    else
        while (digit(s))
            s->p++;
    if (s->p < s->end && *s->p == '.') {
        *plain = 0;
        s->p++;
        if (!digit(s))
            return fail(s, "expected a digit after '.'");
        while (digit(s))
            s->p++;
    }
    if (s->p < s->end && (*s->p == 'e' || *s->p == 'E')) {
        *plain = 0;
        s->p++;
        if (s->p < s->end && (*s->p == '+' || *s->p == '-'))
            s->p++;
        if (!digit(s))
            return fail(s, "expected a digit in the exponent");
        while (digit(s))
            s->p++;
    }
    return 0;
}

int vs_jscan_uint(vs_jscan *s, uint64_t *out)
{
    const char *from, *at;
    int plain;
    uint64_t v = 0;
    char c = vs_jscan_peek(s);
    if (s->error)
        return VS_JSCAN_BAD;
    at = s->p;
    if (c != '-' && (c < '0' || c > '9')) {
        if (vs_jscan_skip(s))
            return VS_JSCAN_BAD;
        s->p = at;
        fail(s, "expected a non-negative integer");
        return VS_JSCAN_NOT_COUNT;
    }
    if (number(s, &plain, &from))
        return VS_JSCAN_BAD;
    if (!plain) {
        s->p = at;
        fail(s, "expected a non-negative integer");
        return VS_JSCAN_NOT_COUNT;
    }
    for (; from < s->p; from++) {
        if (vs_checked_mul(&v, v, 10) || vs_checked_add(&v, v, (uint64_t)(*from - '0'))) {
            s->p = at;
            fail(s, "an integer beyond 64 bits");
            return VS_JSCAN_NOT_COUNT;
        }
    }
    *out = v;
    return 0;
}

static int literal(vs_jscan *s, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(s->end - s->p) < n || memcmp(s->p, word, n) != 0)
        return fail(s, "expected a value");
    s->p += n;
    return 0;
}

static int skip(vs_jscan *s, int depth)
{
    char c = vs_jscan_peek(s);
    int more, first = 1, plain;
    const char *from;
    if (s->error)
        return VS_JSCAN_BAD;
    if (depth > VS_JSCAN_DEPTH)
        return fail(s, "nested too deep");
    switch (c) {
    case '{':
        s->p++;
        while ((more = vs_jscan_key(s, first)) == 1) {
            first = 0;
            if (skip(s, depth + 1))
                return VS_JSCAN_BAD;
        }
        return more;
    case '[':
        s->p++;
        while ((more = vs_jscan_next(s, first)) == 1) {
            first = 0;
            if (skip(s, depth + 1))
                return VS_JSCAN_BAD;
        }
        return more;
    case '"':
        return vs_jscan_string(s);
    case 't':
        return literal(s, "true");
    case 'f':
        return literal(s, "false");
    case 'n':
        return literal(s, "null");
    default:
        return number(s, &plain, &from);
    }
}

int vs_jscan_skip(vs_jscan *s)
{
    return skip(s, 0);
}

int vs_jscan_end(vs_jscan *s)
{
    if (s->error)
        return VS_JSCAN_BAD;
    ws(s);
    if (s->p != s->end)
        return fail(s, "unexpected text after the JSON value");
    return 0;
}
