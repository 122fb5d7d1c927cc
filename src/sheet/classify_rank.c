/* The ranking of the retained candidates (cost, margin, schedule) and the
 * exact decimals prices are compared as; sheet/classify.h says the rules. */
#include <stdlib.h>
#include <string.h>

#include "sheet/classify.h"
#include "sheet/classify_internal.h"
#include "sheet/vocab.h"

/* ---- exact decimals (prices) ---- */

int vs_classify_decimal_valid(const char *text)
{
    const char *p = text;
    size_t digits = 0;
    if (!p)
        return 0;
    for (; *p >= '0' && *p <= '9'; p++)
        digits++;
    if (*p == '.') {
        size_t frac = 0;
        for (p++; *p >= '0' && *p <= '9'; p++)
            frac++;
        if (!frac)
            return 0;
        digits += frac;
    }
    return digits > 0 && *p == '\0';
}

int vs_classify_decimal_cmp(const char *a, const char *b)
{
    const char *ai, *bi, *af, *bf;
    size_t al, bl;
    int va = vs_classify_decimal_valid(a), vb = vs_classify_decimal_valid(b);
    if (!va || !vb)
        return va - vb ? (va ? -1 : 1) : 0;
    for (ai = a; *ai == '0'; ai++)
        ;
    for (bi = b; *bi == '0'; bi++)
        ;
    for (al = 0; ai[al] >= '0' && ai[al] <= '9'; al++)
        ;
    for (bl = 0; bi[bl] >= '0' && bi[bl] <= '9'; bl++)
        ;
    if (al != bl)
        return al < bl ? -1 : 1;
    if (al) {
        int c = strncmp(ai, bi, al);
        if (c)
            return c < 0 ? -1 : 1;
    }
    /* Fractions, the shorter one padded with zeros. */
    af = ai[al] == '.' ? ai + al + 1 : "";
    bf = bi[bl] == '.' ? bi + bl + 1 : "";
    while (*af || *bf) {
        char ca = *af ? *af++ : '0', cb = *bf ? *bf++ : '0';
        if (ca != cb)
            return ca < cb ? -1 : 1;
    }
    return 0;
}

/* ---- ranking ---- */

/* 1 when s is exactly YYYY-MM-DD naming a real day (2026-13-45 is not one). */
static int iso_date(const char *s)
{
    static const int mdays[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int i, y = 0, m, d;
    for (i = 0; i < 10; i++) {
        char c = s[i];
        if (i == 4 || i == 7) {
            if (c != '-')
                return 0;
        } else if (c < '0' || c > '9') {
            return 0;
        }
    }
    if (s[10] != '\0')
        return 0;
    for (i = 0; i < 4; i++)
        y = y * 10 + (s[i] - '0');
    m = (s[5] - '0') * 10 + (s[6] - '0');
    d = (s[8] - '0') * 10 + (s[9] - '0');
    if (m < 1 || m > 12 || d < 1 || d > mdays[m - 1])
        return 0;
    if (m == 2 && d == 29 && !(y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)))
        return 0;
    return 1;
}

/* The schedule as a sort class: 0 available now, 1 a documented date (in
 * *date), 2 anything else, including text that is not a date. Every value
 * falls in exactly one class, so the order is total: a free-text `available`
 * that compared equal to everything made rank_cmp intransitive, and the
 * ranking depended on the order of the offers. */
static int schedule_class(const char *available, const char **date)
{
    *date = NULL;
    if (!available || !*available)
        return 2;
    if (vs_vocab_same_name(available, "now") || vs_vocab_same_name(available, "immediate") ||
        vs_vocab_same_name(available, "immediately"))
        return 0;
    if (iso_date(available)) {
        *date = available;
        return 1;
    }
    return 2;
}

static int rank_cmp(const vs_classify_row *a, const vs_classify_row *b)
{
    const char *da, *db;
    int ca, cb, c = vs_classify_decimal_cmp(a->price, b->price);
    if (c)
        return c;
    if (a->margin_bytes != b->margin_bytes)
        return a->margin_bytes > b->margin_bytes ? -1 : 1;
    ca = schedule_class(a->available, &da);
    cb = schedule_class(b->available, &db);
    if (ca != cb)
        return ca < cb ? -1 : 1;
    if (ca == 1) {
        c = strcmp(da, db);
        return c < 0 ? -1 : c > 0;
    }
    return 0;
}

int vs_classify_rank_rows(vs_classification *c)
{
    size_t i, j, n = 0, *idx = NULL;
    const char *cur = NULL, *period = NULL;
    int periods_differ = 0, rc = 0;
    vs_classify_note why;
    memset(&why, 0, sizeof why);
    why.code = VS_NOTE_NOT_RANKED;
    for (i = 0; i < c->nrows; i++)
        if (c->rows[i].verdict == VS_VERDICT_ADMISSIBLE)
            n++;
    c->nretained = n;
    if (n == 0)
        return 0;
    if (n == 1) {
        for (i = 0; i < c->nrows; i++)
            if (c->rows[i].verdict == VS_VERDICT_ADMISSIBLE) {
                c->rows[i].ranked = 1;
                c->rows[i].rank = 1;
            }
        c->ranked = 1;
        return 0;
    }
    why.parts = calloc(n, sizeof *why.parts);
    if (!why.parts)
        return VS_ENOMEM;
    for (i = 0; i < c->nrows; i++) {
        vs_classify_row *r = &c->rows[i];
        if (r->verdict != VS_VERDICT_ADMISSIBLE)
            continue;
        if (!r->price || !vs_classify_decimal_valid(r->price) || !r->currency) {
            why.parts[why.nparts++].gpu = r->gpu;
        } else if (!cur) {
            cur = r->currency;
        } else if (strcmp(cur, r->currency) != 0) {
            why.parts[why.nparts].currency = cur;
            why.parts[why.nparts++].other = r->currency;
        }
        if (r->period) {
            if (period && strcmp(period, r->period))
                periods_differ = 1;
            period = period ? period : r->period;
        }
    }
    if (why.nparts) {
        why.count = n;
        return vs_classify_add_note(c, &why);
    }
    free(why.parts);
    idx = malloc(n * sizeof *idx);
    if (!idx)
        return VS_ENOMEM;
    for (i = 0, j = 0; i < c->nrows; i++)
        if (c->rows[i].verdict == VS_VERDICT_ADMISSIBLE)
            idx[j++] = i;
    /* Insertion sort: stable, and the lists are short. */
    for (i = 1; i < n; i++) {
        size_t k = idx[i];
        for (j = i; j > 0 && rank_cmp(&c->rows[idx[j - 1]], &c->rows[k]) > 0; j--)
            idx[j] = idx[j - 1];
        idx[j] = k;
    }
    for (i = 0; i < n; i++) {
        c->rows[idx[i]].ranked = 1;
        if (i > 0 && rank_cmp(&c->rows[idx[i - 1]], &c->rows[idx[i]]) == 0)
            c->rows[idx[i]].rank = c->rows[idx[i - 1]].rank;
        else
            c->rows[idx[i]].rank = i + 1;
    }
    free(idx);
    c->ranked = 1;
    if (periods_differ)
        rc = vs_classify_add_note_code(c, VS_NOTE_PERIODS_DIFFER);
    return rc;
}
