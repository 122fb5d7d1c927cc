/* interp_complete.c — what the front end asks of text it has not run:
 * complete (verbs, keys, values, sheet and record ids, GPU names), inspect
 * (a verb's help at the cursor), is_complete and is_exit (the contract:
 * lang/interp.h). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "catalog/catalog.h"
#include "lang/interp.h"
#include "lang/interp_internal.h"
#include "lang/parse.h"
#include "lang/verb.h"
#include "render/bundle.h"
#include "sheet/sheet.h"
#include "sheet/vocab.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/json.h"

/* --------------------------------------------------------------- completion */

typedef struct {
    size_t start;   /* byte offset of the token */
    int quoted;     /* it opens with '"' still unclosed (or closed) */
    int in_comment; /* the cursor is in a comment or raw text */
} token_pos;

/* The tokens of the logical line holding the cursor, up to the cursor. Returns
 * the number of tokens before the current one; the current token's start goes to
 * cur. first_tok gets the verb's byte range when present. */
static size_t scan_line(const char *code, size_t cursor, token_pos *cur, size_t *verb_start,
                        size_t *verb_end, size_t *toks_start, size_t max_toks)
{
    size_t ls = cursor, i, ntok = 0;
    int inq = 0, intok = 0;
    /* back to the start of the logical line (across `\` continuations) */
    for (;;) {
        while (ls > 0 && code[ls - 1] != '\n')
            ls--;
        if (ls >= 2 && code[ls - 2] == '\\')
            ls -= 2;
        else if (ls >= 3 && code[ls - 2] == '\r' && code[ls - 3] == '\\')
            ls -= 3;
        else
            break;
    }
    memset(cur, 0, sizeof *cur);
    cur->start = cursor;
    *verb_start = *verb_end = (size_t)-1;
    for (i = ls; i < cursor; i++) {
        char c = code[i];
        if (inq) {
            if (c == '\\' && i + 1 < cursor)
                i++;
            else if (c == '"')
                inq = 0;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\\') {
            if (intok) {
                if (ntok == 0)
                    *verb_end = i;
                ntok++;
                intok = 0;
            }
            continue;
        }
        if (!intok) {
            if (c == '#') {
                cur->in_comment = 1;
                return ntok;
            }
            if (c == '-' && i + 1 < cursor && code[i + 1] == '-' &&
                (i + 2 >= cursor || code[i + 2] == ' ' || code[i + 2] == '\t')) {
                if (i + 2 < cursor) {
                    cur->in_comment = 1; /* raw text after `--` */
                    return ntok;
                }
            }
            intok = 1;
            cur->start = i;
            cur->quoted = 0;
            if (ntok == 0)
                *verb_start = i;
            if (ntok < max_toks)
                toks_start[ntok] = i;
        }
        if (c == '"') {
            inq = 1;
            if (cur->start == i)
                cur->quoted = 1;
        }
    }
    if (!intok) {
        cur->start = cursor;
        cur->quoted = 0;
    } else if (ntok == 0) {
        *verb_end = cursor;
    }
    return ntok;
}

static void add_match(json_t *m, const char *s, const char *prefix, size_t plen)
{
    size_t i;
    json_t *x;
    if (strncmp(s, prefix, plen) != 0)
        return;
    json_array_foreach(m, i, x) if (!strcmp(json_string_value(x), s)) return;
    json_array_append_new(m, json_string(s));
}

typedef struct {
    json_t *m;
    const char *prefix;
    size_t plen;
} verb_match;

static void add_verb(const vs_verb *v, void *data)
{
    verb_match *vm = data;
    add_match(vm->m, v->name, vm->prefix, vm->plen);
}

static void add_sheet_ids(vs_interp *ip, json_t *m, const char *prefix, size_t plen,
                          const char *suffix)
{
    size_t i;
    json_t *s;
    json_array_foreach(ip->sheets, i, s)
    {
        const char *id = vs_sheet_get_str(s, VS_SK_ID);
        char buf[VS_SHEET_ID_MAX + 4];
        if (!id)
            continue;
        snprintf(buf, sizeof buf, "%s%s", id, suffix);
        add_match(m, buf, prefix, plen);
    }
}

/* The ids of the sheets the records hold at their tip, after the session's:
 * a sheet committed by another kernel (or before a restart) completes too. */
static void add_record_ids(vs_interp *ip, json_t *m, const char *prefix, size_t plen,
                           const char *suffix)
{
    vs_store *st = NULL;
    vs_error e;
    char **ids = NULL;
    size_t n = 0, i;
    vs_error_clear(&e);
    if (vs_store_open(&st, vs_interp_records_path(ip), &e) == 0 &&
        vs_store_ids(st, NULL, &ids, &n, &e) == 0) {
        for (i = 0; i < n; i++) {
            char buf[VS_SHEET_ID_MAX + 4];
            snprintf(buf, sizeof buf, "%s%s", ids[i], suffix);
            add_match(m, buf, prefix, plen);
        }
    }
    for (i = 0; i < n; i++)
        free(ids[i]);
    free(ids);
    vs_store_free(st);
}

/* A GPU name as a completion: quoted when it holds a space; matched without
 * regard to case, with or without the opening quote typed. */
static void add_gpu_name(json_t *m, const char *name, const char *prefix, size_t plen)
{
    vs_buf b = VS_BUF_INIT;
    size_t i;
    json_t *x;
    int quote = strchr(name, ' ') != NULL || (plen > 0 && prefix[0] == '"');
    if (plen > 0 && prefix[0] == '"') {
        prefix++;
        plen--;
    }
    if (strlen(name) < plen || strncasecmp(name, prefix, plen) != 0)
        return;
    if (quote)
        vs_buf_putc(&b, '"');
    vs_buf_puts(&b, name);
    if (quote)
        vs_buf_putc(&b, '"');
    if (!vs_buf_failed(&b)) {
        int dup = 0;
        json_array_foreach(m, i, x) if (!strcmp(json_string_value(x), vs_buf_str(&b))) dup = 1;
        if (!dup)
            json_array_append_new(m, json_string(vs_buf_str(&b)));
    }
    vs_buf_free(&b);
}

/* The session's offers first (what this sheet compares), then the catalogue. */
static void add_gpu_names(vs_interp *ip, json_t *m, const char *prefix, size_t plen)
{
    json_t *sheet, *o;
    size_t i;
    const char *const *names = vs_catalog_names();
    if (ip->current >= 0) {
        sheet = json_array_get(ip->sheets, (size_t)ip->current);
        vs_json_array_foreach(vs_sheet_array(sheet, VS_SK_OFFERS), i, o)
        {
            const char *name = json_string_value(json_object_get(o, "name"));
            if (name)
                add_gpu_name(m, name, prefix, plen);
        }
    }
    for (i = 0; names && names[i]; i++)
        add_gpu_name(m, names[i], prefix, plen);
}

/* Moves a byte offset back onto the start of a code point. */
static size_t char_boundary(const char *code, size_t len, size_t pos)
{
    if (pos > len)
        pos = len;
    while (pos > 0 && pos < len && ((unsigned char)code[pos] & 0xC0) == 0x80)
        pos--;
    return pos;
}

/* The keys to offer on a line of verb v: those of the form its first word
 * names (its registry's form_key), else all the verb's keys, else (no form
 * named yet) the keys of every form. toks holds the starts of the line's first
 * tokens (the verb first). */
static void add_form_keys(json_t *m, const vs_verb *v, const char *code, size_t ntok,
                          const size_t *toks, const char *prefix, size_t plen)
{
    const char *k, *w;
    size_t i, j, n;
    char kk[80];
    if (v->registry && v->registry->form_key && ntok >= 2) {
        n = strcspn(code + toks[1], " \t\r\n");
        for (j = 0; (w = vs_verb_word(v, j)) != NULL; j++) {
            if (strlen(w) != n || strncmp(w, code + toks[1], n) != 0)
                continue;
            /* a form: its keys, which may be none, and the verb's own */
            for (i = 0; (k = v->registry->form_key(w, n, i)) != NULL; i++) {
                snprintf(kk, sizeof kk, "%s=", k);
                add_match(m, kk, prefix, plen);
            }
            for (i = 0; v->keys && v->keys[i]; i++) {
                snprintf(kk, sizeof kk, "%s=", v->keys[i]);
                add_match(m, kk, prefix, plen);
            }
            return;
        }
    }
    for (i = 0; v->keys && v->keys[i]; i++) {
        snprintf(kk, sizeof kk, "%s=", v->keys[i]);
        add_match(m, kk, prefix, plen);
    }
    if (!v->registry || !v->registry->form_key)
        return;
    for (j = 0; (w = vs_verb_word(v, j)) != NULL; j++)
        for (i = 0; (k = v->registry->form_key(w, strlen(w), i)) != NULL; i++) {
            snprintf(kk, sizeof kk, "%s=", k);
            add_match(m, kk, prefix, plen);
        }
}

int vs_interp_complete(vs_interp *ip, const char *code, size_t cursor, json_t **out_matches,
                       size_t *out_start, size_t *out_end)
{
    size_t len = code ? strlen(code) : 0, ntok, vs, ve, plen, toks[4];
    token_pos cur;
    const char *prefix;
    char verb[64] = "";
    const vs_verb *v = NULL;
    json_t *m = json_array();
    const char *eq;

    *out_matches = m;
    cursor = char_boundary(code ? code : "", len, cursor);
    *out_start = *out_end = cursor;
    if (!m || !code)
        return 0;
    ntok = scan_line(code, cursor, &cur, &vs, &ve, toks, 4);
    if (cur.in_comment)
        return 0;
    prefix = code + cur.start;
    plen = cursor - cur.start;
    *out_start = cur.start;
    if (ntok == 0) {
        verb_match vm = {m, prefix, plen};
        vs_verb_each(add_verb, &vm);
        return 0;
    }
    if (ve - vs < sizeof verb) {
        memcpy(verb, code + vs, ve - vs);
        verb[ve - vs] = '\0';
    }
    v = vs_interp_lookup(verb);
    eq = cur.quoted ? NULL : memchr(prefix, '=', plen);
    if (eq) {
        size_t klen = (size_t)(eq - prefix);
        const char *val = eq + 1;
        size_t vlen = plen - klen - 1, i;
        const char *x;
        *out_start = (size_t)(val - code);
        if (v && v->registry && v->registry->value && v->registry->value(prefix, klen, 0)) {
            /* the key's values are the registry's (`measure import format=`) */
            for (i = 0; (x = v->registry->value(prefix, klen, i)) != NULL; i++)
                add_match(m, x, val, vlen);
        } else if ((klen == 5 && !strncmp(prefix, "dtype", 5)) ||
                   (klen == 6 && !strncmp(prefix, "format", 6))) {
            for (i = 0; vs_vocab_format_names[i]; i++)
                add_match(m, vs_vocab_format_names[i], val, vlen);
        }
        return 0;
    }
    if (!v)
        return 0;
    if (v->flags & VS_VERB_FORMAT_ARGS) {
        size_t i;
        for (i = 0; vs_vocab_format_names[i]; i++)
            add_match(m, vs_vocab_format_names[i], prefix, plen);
    }
    if ((v->flags & VS_VERB_VERB_ARG) && ntok == 1) {
        verb_match vm = {m, prefix, plen};
        vs_verb_each(add_verb, &vm);
    }
    if ((v->flags & VS_VERB_SHEET_ID) && ntok == 1)
        add_sheet_ids(ip, m, prefix, plen, "");
    if ((v->flags & VS_VERB_SHEET_REV) && !memchr(prefix, '@', plen)) {
        add_sheet_ids(ip, m, prefix, plen, "@");
        add_sheet_ids(ip, m, prefix, plen, "");
        add_record_ids(ip, m, prefix, plen, "@");
        add_record_ids(ip, m, prefix, plen, "");
    }
    if ((v->flags & VS_VERB_GPU_NAME) && ntok == 1)
        add_gpu_names(ip, m, prefix, plen);
    if (!cur.quoted) {
        const char *w;
        size_t i;
        for (i = 0; ntok == 1 && (w = vs_verb_word(v, i)) != NULL; i++)
            add_match(m, w, prefix, plen);
        add_form_keys(m, v, code, ntok, toks, prefix, plen);
    }
    return 0;
}

/* ------------------------------------------------------------------ inspect */

int vs_interp_inspect(vs_interp *ip, const char *code, size_t cursor, int detail,
                      json_t **out_bundle)
{
    size_t len = code ? strlen(code) : 0, s, e, ntok, vs, ve, toks[4];
    char word[64];
    token_pos cur;
    const vs_verb *v = NULL;
    (void)ip;
    (void)detail;
    *out_bundle = NULL;
    if (!code)
        return 0;
    cursor = char_boundary(code, len, cursor);
    /* the word under the cursor, if it names a verb */
    s = e = cursor;
    while (s > 0 && code[s - 1] != ' ' && code[s - 1] != '\t' && code[s - 1] != '\n')
        s--;
    while (e < len && code[e] != ' ' && code[e] != '\t' && code[e] != '\n' && code[e] != '\r')
        e++;
    if (e > s && e - s < sizeof word) {
        memcpy(word, code + s, e - s);
        word[e - s] = '\0';
        v = vs_interp_lookup(word);
    }
    if (!v) {
        /* else the verb of the line the cursor is on */
        ntok = scan_line(code, cursor, &cur, &vs, &ve, toks, 4);
        if (vs != (size_t)-1) {
            e = vs;
            while (e < len && code[e] != ' ' && code[e] != '\t' && code[e] != '\n' &&
                   code[e] != '\r' && code[e] != '\\')
                e++;
            if (e - vs < sizeof word) {
                memcpy(word, code + vs, e - vs);
                word[e - vs] = '\0';
                v = vs_interp_lookup(word);
            }
        }
        (void)ntok;
    }
    if (v) {
        vs_bundle *b = vs_verb_help_bundle(v);
        *out_bundle = vs_bundle_to_json(b);
        vs_bundle_free(b);
    }
    return 0;
}

/* -------------------------------------------------------------- is_complete */

int vs_interp_is_exit(const char *code)
{
    const char *p = code, *w;
    size_t n;
    if (!p)
        return 0;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    w = p;
    while (*p >= 'a' && *p <= 'z')
        p++;
    n = (size_t)(p - w);
    if (!((n == 4 && !strncmp(w, "exit", 4)) || (n == 4 && !strncmp(w, "quit", 4))))
        return 0;
    if (p[0] == '(' && p[1] == ')') /* as typed at a Python prompt */
        p += 2;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return *p == '\0';
}

const char *vs_interp_is_complete(vs_interp *ip, const char *code, const char **out_indent)
{
    size_t len, i;
    int inq = 0, cont = 0, tokstart = 1, line_start = 1;
    vs_cell *cell = NULL;
    vs_error err;
    (void)ip;
    *out_indent = "";
    if (!code)
        return "complete";
    len = strlen(code);
    /* invalid UTF-8 (and NUL, which strlen already cut) can never become valid */
    if (vs_parse_cell(&cell, code, len, &err) == 0) {
        vs_cell_free(cell);
    } else if (err.code == VS_ESYNTAX && strstr(err.message, "UTF-8")) {
        return "invalid";
    }
    if (len >= 2 && code[0] == '%' && code[1] == '%') {
        /* a %% cell: only its first line is language; the body is raw */
        const char *nl = memchr(code, '\n', len);
        if (nl)
            len = (size_t)(nl - code);
    }
    for (i = 0; i < len; i++) {
        char c = code[i];
        cont = 0;
        if (inq) {
            if (c == '\\') {
                if (i + 1 >= len)
                    cont = 1;
                i++;
            } else if (c == '"') {
                inq = 0;
            }
            continue;
        }
        if (c == '\n') {
            tokstart = 1;
            line_start = 1;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r') {
            tokstart = 1;
            continue;
        }
        if (c == '\\' && (i + 1 >= len || code[i + 1] == '\n' ||
                          (code[i + 1] == '\r' && i + 2 < len && code[i + 2] == '\n'))) {
            cont = 1;
            tokstart = 1;
            continue;
        }
        if (tokstart && c == '#') {
            while (i + 1 < len && code[i + 1] != '\n')
                i++;
            continue;
        }
        if (tokstart && !line_start && c == '-' && i + 1 < len && code[i + 1] == '-' &&
            (i + 2 >= len || code[i + 2] == ' ' || code[i + 2] == '\t' || code[i + 2] == '\n')) {
            /* raw text to the end of the logical line */
            while (i + 1 < len && !(code[i + 1] == '\n' && code[i] != '\\'))
                i++;
            cont = code[i] == '\\';
            continue;
        }
        if (c == '"')
            inq = 1;
        tokstart = 0;
        line_start = 0;
    }
    if (inq)
        return "incomplete";
    if (cont) {
        *out_indent = "    "; /* the continued line, set off */
        return "incomplete";
    }
    return "complete";
}
