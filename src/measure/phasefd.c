#include "measure/phasefd.h"

#include <string.h>

#include "sheet/units.h"

static int name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == ':' || c == '/' || c == '+' || c == '-';
}

static int check_name(const char *s, size_t n)
{
    size_t i;
    if (n == 0 || n >= VS_PHASEFD_NAME_MAX)
        return 0;
    for (i = 0; i < n; i++)
        if (!name_char(s[i]))
            return 0;
    return 1;
}

int vs_phasefd_name_valid(const char *s)
{
    return s && check_name(s, strlen(s));
}

typedef struct token {
    const char *s;
    size_t n;
    size_t col; /* 1-based */
} token;

#define MAX_TOKENS (VS_PHASEFD_DIMS_MAX + 2)

static int parse_uint(uint64_t *out, const char *s, size_t n)
{
    uint64_t v = 0;
    size_t i;
    if (n == 0)
        return -1;
    for (i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        if (v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    *out = v;
    return 0;
}

/* Adds KEY=value to ev's dims: each key once, at most VS_PHASEFD_DIMS_MAX. */
static int push_dim(vs_phasefd_event *ev, const char *key, size_t klen, uint64_t value, size_t col,
                    vs_error *err)
{
    size_t d;
    if (ev->ndims == VS_PHASEFD_DIMS_MAX)
        return vs_error_set_at(err, VS_EVALUE, 1, (int)col, "at most %d dims on one line",
                               VS_PHASEFD_DIMS_MAX);
    for (d = 0; d < ev->ndims; d++)
        if (strlen(ev->dims[d].key) == klen && !memcmp(ev->dims[d].key, key, klen))
            return vs_error_set_at(err, VS_EVALUE, 1, (int)col, "dims key %.*s given twice",
                                   (int)klen, key);
    memcpy(ev->dims[ev->ndims].key, key, klen);
    ev->dims[ev->ndims].key[klen] = '\0';
    ev->dims[ev->ndims].value = value;
    ev->ndims++;
    return 0;
}

static int parse_bytes(uint64_t *out, const token *t, vs_error *err)
{
    char tmp[96];
    if (parse_uint(out, t->s, t->n) == 0)
        return 0;
    if (t->n >= sizeof tmp)
        return vs_error_set_at(err, VS_EUNIT, 1, (int)t->col, "amount too long");
    memcpy(tmp, t->s, t->n);
    tmp[t->n] = '\0';
    if (vs_units_parse_bytes(out, tmp, err) < 0) {
        if (err) {
            err->line = 1;
            err->column = (int)t->col;
        }
        return VS_EUNIT;
    }
    return 0;
}

static int split_pair(const token *t, const char **val, size_t *vlen, size_t *klen)
{
    const char *eq = memchr(t->s, '=', t->n);
    if (!eq)
        return 0;
    *klen = (size_t)(eq - t->s);
    *val = eq + 1;
    *vlen = t->n - *klen - 1;
    return 1;
}

int vs_phasefd_parse(vs_phasefd_event *ev, const char *line, size_t len, vs_error *err)
{
    token tok[MAX_TOKENS];
    size_t ntok = 0, i = 0, k;
    memset(ev, 0, sizeof *ev);
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
        len--;
    if (len > VS_PHASEFD_LINE_MAX)
        return vs_error_set_at(err, VS_ESYNTAX, 1, VS_PHASEFD_LINE_MAX, "line longer than %d bytes",
                               VS_PHASEFD_LINE_MAX);
    while (i < len) {
        size_t start;
        if (line[i] == ' ' || line[i] == '\t') {
            i++;
            continue;
        }
        if (line[i] == '\0' || (unsigned char)line[i] < 0x20 || (unsigned char)line[i] >= 0x7f)
            return vs_error_set_at(err, VS_ESYNTAX, 1, (int)i + 1,
                                   "unexpected byte 0x%02x (expected printable ASCII)",
                                   (unsigned char)line[i]);
        if (ntok == 0 && line[i] == '#')
            return 0;
        if (ntok == MAX_TOKENS)
            return vs_error_set_at(err, VS_ESYNTAX, 1, (int)i + 1, "too many words (at most %d)",
                                   MAX_TOKENS);
        start = i;
        while (i < len && line[i] != ' ' && line[i] != '\t') {
            if ((unsigned char)line[i] < 0x20 || (unsigned char)line[i] >= 0x7f)
                return vs_error_set_at(err, VS_ESYNTAX, 1, (int)i + 1,
                                       "unexpected byte 0x%02x (expected printable ASCII)",
                                       (unsigned char)line[i]);
            i++;
        }
        tok[ntok].s = line + start;
        tok[ntok].n = i - start;
        tok[ntok].col = start + 1;
        ntok++;
    }
    if (ntok == 0)
        return 0;

    if (tok[0].n == 5 && !memcmp(tok[0].s, "phase", 5)) {
        if (ntok != 2)
            return vs_error_set_at(err, VS_ESYNTAX, 1, (int)tok[ntok > 2 ? 2 : 0].col,
                                   "expected `phase NAME` (one name)");
        if (!check_name(tok[1].s, tok[1].n))
            return vs_error_set_at(err, VS_EVALUE, 1, (int)tok[1].col,
                                   "phase name must be 1-%d characters of A-Z a-z 0-9 _ . : / + -",
                                   VS_PHASEFD_NAME_MAX - 1);
        ev->kind = VS_PHASEFD_PHASE;
        memcpy(ev->name, tok[1].s, tok[1].n);
        ev->name[tok[1].n] = '\0';
        return 0;
    }
    if (tok[0].n == 4 && !memcmp(tok[0].s, "dims", 4)) {
        if (ntok < 2)
            return vs_error_set_at(err, VS_ESYNTAX, 1, (int)tok[0].col,
                                   "expected `dims KEY=N ...` (length=, concurrency=, ...)");
        ev->kind = VS_PHASEFD_DIMS;
        for (k = 1; k < ntok; k++) {
            const char *v;
            size_t vlen, klen, j;
            uint64_t value;
            int rc;
            if (!split_pair(&tok[k], &v, &vlen, &klen) || klen == 0 || klen >= VS_PHASEFD_NAME_MAX)
                return vs_error_set_at(err, VS_ESYNTAX, 1, (int)tok[k].col,
                                       "expected KEY=N (for example length=4096)");
            for (j = 0; j < klen; j++) {
                char c = tok[k].s[j];
                if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
                    return vs_error_set_at(err, VS_EVALUE, 1, (int)(tok[k].col + j),
                                           "dims keys are lowercase letters, digits and _");
            }
            if (klen == 10 && !memcmp(tok[k].s, "resolution", 10)) {
                /* resolution=WxH: the width and height dims in one */
                const char *x = memchr(v, 'x', vlen);
                uint64_t w, h;
                if (!x || parse_uint(&w, v, (size_t)(x - v)) < 0 ||
                    parse_uint(&h, x + 1, vlen - (size_t)(x - v) - 1) < 0 ||
                    w > (uint64_t)INT64_MAX || h > (uint64_t)INT64_MAX)
                    return vs_error_set_at(err, VS_EVALUE, 1, (int)(tok[k].col + klen + 1),
                                           "expected WIDTHxHEIGHT after resolution= (1024x1024)");
                if ((rc = push_dim(ev, "width", 5, w, tok[k].col, err)) < 0 ||
                    (rc = push_dim(ev, "height", 6, h, tok[k].col, err)) < 0)
                    return rc;
                continue;
            }
            if (parse_uint(&value, v, vlen) < 0 || value > (uint64_t)INT64_MAX)
                return vs_error_set_at(err, VS_EVALUE, 1, (int)(tok[k].col + klen + 1),
                                       "expected a non-negative integer after %.*s=", (int)klen,
                                       tok[k].s);
            if ((rc = push_dim(ev, tok[k].s, klen, value, tok[k].col, err)) < 0)
                return rc;
        }
        return 0;
    }
    if (tok[0].n == 7 && !memcmp(tok[0].s, "counter", 7)) {
        if (ntok < 3)
            return vs_error_set_at(err, VS_ESYNTAX, 1, (int)tok[0].col,
                                   "expected `counter NAME BYTES [gpu=I] [uuid=GPU-...]`");
        if (!check_name(tok[1].s, tok[1].n))
            return vs_error_set_at(
                err, VS_EVALUE, 1, (int)tok[1].col,
                "counter name must be 1-%d characters of A-Z a-z 0-9 _ . : / + -",
                VS_PHASEFD_NAME_MAX - 1);
        ev->kind = VS_PHASEFD_COUNTER;
        memcpy(ev->name, tok[1].s, tok[1].n);
        ev->name[tok[1].n] = '\0';
        if (parse_bytes(&ev->bytes, &tok[2], err) < 0)
            return VS_EUNIT;
        if (ev->bytes > (uint64_t)INT64_MAX)
            return vs_error_set_at(err, VS_EUNIT, 1, (int)tok[2].col, "amount too large");
        for (k = 3; k < ntok; k++) {
            const char *v;
            size_t vlen, klen;
            uint64_t g;
            if (!split_pair(&tok[k], &v, &vlen, &klen))
                return vs_error_set_at(err, VS_ESYNTAX, 1, (int)tok[k].col,
                                       "expected gpu=I or uuid=GPU-...");
            if (klen == 3 && !memcmp(tok[k].s, "gpu", 3)) {
                if (ev->gpu_known || parse_uint(&g, v, vlen) < 0 || g > 4095)
                    return vs_error_set_at(err, VS_EVALUE, 1, (int)(tok[k].col + 4),
                                           "expected one GPU index 0..4095 after gpu=");
                ev->gpu_known = 1;
                ev->gpu = (unsigned)g;
            } else if (klen == 4 && !memcmp(tok[k].s, "uuid", 4)) {
                if (ev->uuid[0] || vlen == 0 || vlen >= sizeof ev->uuid ||
                    !check_name(v, vlen < VS_PHASEFD_NAME_MAX ? vlen : 1) ||
                    vlen >= VS_PHASEFD_NAME_MAX)
                    return vs_error_set_at(err, VS_EVALUE, 1, (int)(tok[k].col + 5),
                                           "expected one GPU UUID after uuid=");
                memcpy(ev->uuid, v, vlen);
                ev->uuid[vlen] = '\0';
            } else {
                return vs_error_set_at(err, VS_EVALUE, 1, (int)tok[k].col,
                                       "unknown key %.*s= (expected gpu= or uuid=)", (int)klen,
                                       tok[k].s);
            }
        }
        return 0;
    }
    return vs_error_set_at(err, VS_ESYNTAX, 1, (int)tok[0].col,
                           "unknown line '%.*s' (expected phase, dims or counter)",
                           (int)(tok[0].n > 32 ? 32 : tok[0].n), tok[0].s);
}
