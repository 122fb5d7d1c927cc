/* inflate.c — RFC 1950/1951 decoding, canonical Huffman codes decoded a bit at
 * a time (the method of zlib's contrib/puff, written anew): small tables, no
 * lookup tables to build, every step bounded. */
#include "util/inflate.h"

#include <stdint.h>
#include <string.h>

#define MAXBITS 15 /* the longest code, RFC 1951 section 3.2.7 */
#define MAXLCODES 286
#define MAXDCODES 30
#define FIXLCODES 288

typedef struct inf {
    const unsigned char *in;
    size_t in_len, in_pos;
    unsigned char *out;
    size_t out_len, out_pos;
    uint32_t bitbuf;
    unsigned bitcnt;
    int bad; /* out of input: every later read yields 0 */
} inf;

typedef struct huff {
    short count[MAXBITS + 1]; /* codes of each length */
    short symbol[FIXLCODES];  /* symbols in canonical order */
} huff;

static unsigned bits(inf *s, unsigned need)
{
    uint32_t v = s->bitbuf;
    while (s->bitcnt < need) {
        if (s->in_pos == s->in_len) {
            s->bad = 1;
            return 0;
        }
        v |= (uint32_t)s->in[s->in_pos++] << s->bitcnt;
        s->bitcnt += 8;
    }
    s->bitbuf = v >> need;
    s->bitcnt -= need;
    return v & ((1u << need) - 1);
}

/* A symbol of h, or -1 when the bits are no code of h or the input ended. */
static int decode(inf *s, const huff *h)
{
    int code = 0, first = 0, index = 0, len;
    for (len = 1; len <= MAXBITS; len++) {
        int count;
        code |= (int)bits(s, 1);
        if (s->bad)
            return -1;
        count = h->count[len];
        if (code - count < first)
            return h->symbol[index + (code - first)];
        index += count;
        first += count;
        first <<= 1;
        code <<= 1;
    }
    return -1;
}

/* The code of n symbols of lengths length[]: 0 complete, >0 incomplete (some
 * bit strings are no code: decode refuses them), <0 over-subscribed. */
static int construct(huff *h, const short *length, int n)
{
    short offs[MAXBITS + 1];
    int symbol, len, left = 1;
    memset(h->count, 0, sizeof h->count);
    for (symbol = 0; symbol < n; symbol++)
        h->count[length[symbol]]++;
    if (h->count[0] == n)
        return 0; /* no codes: decode refuses every input */
    for (len = 1; len <= MAXBITS; len++) {
        left <<= 1;
        left -= h->count[len];
        if (left < 0)
            return -1;
    }
    offs[1] = 0;
    for (len = 1; len < MAXBITS; len++)
        offs[len + 1] = (short)(offs[len] + h->count[len]);
    for (symbol = 0; symbol < n; symbol++)
        if (length[symbol] != 0)
            h->symbol[offs[length[symbol]]++] = (short)symbol;
    return left;
}

static const short lbase[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const short lext[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                               2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const unsigned short dbase[30] = {
    1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
    193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const short dext[30] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                               6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

/* The symbols of one Huffman-coded block, to its end code. */
static int codes(inf *s, const huff *lc, const huff *dc)
{
    for (;;) {
        int sym = decode(s, lc);
        size_t len, dist;
        if (sym < 0)
            return -1;
        if (sym < 256) {
            if (s->out_pos == s->out_len)
                return -1;
            s->out[s->out_pos++] = (unsigned char)sym;
            continue;
        }
        if (sym == 256)
            return 0;
        sym -= 257;
        if (sym >= 29)
            return -1;
        len = (size_t)lbase[sym] + bits(s, (unsigned)lext[sym]);
        sym = decode(s, dc);
        if (sym < 0 || sym >= 30)
            return -1;
        dist = (size_t)dbase[sym] + bits(s, (unsigned)dext[sym]);
        if (s->bad || dist > s->out_pos || len > s->out_len - s->out_pos)
            return -1;
        /* byte by byte: a copy may overlap what it writes */
        while (len--) {
            s->out[s->out_pos] = s->out[s->out_pos - dist];
            s->out_pos++;
        }
    }
}

static int stored(inf *s)
{
    size_t len;
    s->bitbuf = 0; /* the rest of the current byte is padding */
    s->bitcnt = 0;
    if (s->in_len - s->in_pos < 4)
        return -1;
    len = (size_t)s->in[s->in_pos] | (size_t)s->in[s->in_pos + 1] << 8;
    if ((s->in[s->in_pos + 2] ^ s->in[s->in_pos]) != 0xff ||
        (s->in[s->in_pos + 3] ^ s->in[s->in_pos + 1]) != 0xff) /* NLEN, LEN's complement */
        return -1;
    s->in_pos += 4;
    if (len > s->in_len - s->in_pos || len > s->out_len - s->out_pos)
        return -1;
    memcpy(s->out + s->out_pos, s->in + s->in_pos, len);
    s->in_pos += len;
    s->out_pos += len;
    return 0;
}

/* RFC 1951 section 3.2.6's codes, built per block (a microsecond; no shared state
 * between threads) */
static int fixed(inf *s)
{
    short lengths[FIXLCODES];
    huff lc, dc;
    int i;
    for (i = 0; i < 144; i++)
        lengths[i] = 8;
    for (; i < 256; i++)
        lengths[i] = 9;
    for (; i < 280; i++)
        lengths[i] = 7;
    for (; i < FIXLCODES; i++)
        lengths[i] = 8;
    construct(&lc, lengths, FIXLCODES);
    for (i = 0; i < MAXDCODES; i++)
        lengths[i] = 5;
    construct(&dc, lengths, MAXDCODES);
    return codes(s, &lc, &dc);
}

static int dynamic(inf *s)
{
    static const short order[19] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                    11, 4,  12, 3, 13, 2, 14, 1, 15};
    short lengths[MAXLCODES + MAXDCODES];
    huff lc, dc;
    int nlen, ndist, ncode, index, err;
    nlen = (int)bits(s, 5) + 257;
    ndist = (int)bits(s, 5) + 1;
    ncode = (int)bits(s, 4) + 4;
    if (s->bad || nlen > MAXLCODES || ndist > MAXDCODES)
        return -1;
    for (index = 0; index < ncode; index++)
        lengths[order[index]] = (short)bits(s, 3);
    for (; index < 19; index++)
        lengths[order[index]] = 0;
    if (s->bad || construct(&lc, lengths, 19) != 0)
        return -1; /* the code lengths' code must be complete */
    index = 0;
    while (index < nlen + ndist) {
        int sym = decode(s, &lc), len = 0, rep;
        if (sym < 0)
            return -1;
        if (sym < 16) {
            lengths[index++] = (short)sym;
            continue;
        }
        if (sym == 16) {
            if (index == 0)
                return -1; /* nothing to repeat */
            len = lengths[index - 1];
            rep = 3 + (int)bits(s, 2);
        } else if (sym == 17) {
            rep = 3 + (int)bits(s, 3);
        } else {
            rep = 11 + (int)bits(s, 7);
        }
        if (s->bad || index + rep > nlen + ndist)
            return -1;
        while (rep--)
            lengths[index++] = (short)len;
    }
    if (lengths[256] == 0)
        return -1; /* a block with no end */
    err = construct(&lc, lengths, nlen);
    /* an incomplete literal/length code is allowed only as a single code */
    if (err < 0 || (err > 0 && nlen - lc.count[0] != 1))
        return -1;
    err = construct(&dc, lengths + nlen, ndist);
    if (err < 0 || (err > 0 && ndist - dc.count[0] != 1))
        return -1;
    return codes(s, &lc, &dc);
}

static uint32_t adler32(const unsigned char *p, size_t n)
{
    uint32_t a = 1, b = 0;
    while (n) {
        size_t k = n < 5552 ? n : 5552; /* the longest run before b can overflow */
        n -= k;
        while (k--) {
            a += *p++;
            b += a;
        }
        a %= 65521u;
        b %= 65521u;
    }
    return b << 16 | a;
}

int vs_inflate_zlib(const unsigned char *in, size_t in_len, unsigned char *out, size_t out_len,
                    vs_error *err)
{
    inf s;
    unsigned last;
    uint32_t want;
    if (in_len < 6 || (in[0] & 0x0f) != 8 || (in[0] >> 4) > 7 ||
        ((unsigned)in[0] << 8 | in[1]) % 31 != 0 || (in[1] & 0x20))
        return vs_error_set(err, VS_EFORMAT, "not a zlib stream");
    memset(&s, 0, sizeof s);
    s.in = in + 2;
    s.in_len = in_len - 2;
    s.out = out;
    s.out_len = out_len;
    do {
        unsigned type;
        int rc;
        last = bits(&s, 1);
        type = bits(&s, 2);
        if (s.bad)
            return vs_error_set(err, VS_EFORMAT, "a truncated deflate stream");
        rc = type == 0 ? stored(&s) : type == 1 ? fixed(&s) : type == 2 ? dynamic(&s) : -1;
        if (rc < 0 || s.bad)
            return vs_error_set(err, VS_EFORMAT, "a malformed deflate block at byte %zu",
                                s.in_pos + 2);
    } while (!last);
    if (s.out_pos != out_len)
        return vs_error_set(err, VS_EFORMAT, "a deflate stream of %zu bytes, not %zu", s.out_pos,
                            out_len);
    /* the Adler-32 starts at the next byte boundary */
    if (s.in_len - s.in_pos < 4)
        return vs_error_set(err, VS_EFORMAT, "a zlib stream without its checksum");
    want = (uint32_t)s.in[s.in_pos] << 24 | (uint32_t)s.in[s.in_pos + 1] << 16 |
           (uint32_t)s.in[s.in_pos + 2] << 8 | s.in[s.in_pos + 3];
    if (adler32(out, out_len) != want)
        return vs_error_set(err, VS_EFORMAT, "a zlib stream whose checksum does not match");
    return 0;
}
