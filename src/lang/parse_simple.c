#include "lang/parse_internal.h"

#include <string.h>

#include "util/word.h"

/* Most lines of a cell read `verb word key=value key="a string"` in plain
 * ASCII. The careful reader (parse.c) moves a cursor that counts lines and
 * columns and looks at each argument's bytes for continuations, escapes and
 * multi-byte characters, none of which such a line can hold: here one byte is
 * one column and each piece is found with one scan. Whatever this reader is
 * not sure of (an error, `--`, a string that runs past the line) it leaves to
 * the careful one, which then reads the line as if this one had not looked at
 * it: the pieces' NULs written in the cell's copy are undone and the
 * arguments taken back. The pieces are those the careful reader makes (a
 * string's value inside its quotes rather than over its opening quote: the
 * same text), so the two agree on every line this one reads (test_parse). */

#define NONE ((size_t)-1)

/* The end of the physical line at i (its newline or the text's end) when
 * every byte before it is printable ASCII other than a backslash; NONE
 * otherwise. Sixteen bytes at a time (util/word). */
static size_t plain_line_end(const char *t, size_t i, size_t len)
{
    while (i + 16 <= len) {
        size_t k = vs_word_block_run(t + i, 0x20, 0x7F, '\\', 0, 0, 0);
        i += k;
        if (k < 16)
            return t[i] == '\n' ? i : NONE;
    }
    for (; i < len; i++) {
        unsigned char ch = (unsigned char)t[i];
        if (ch == '\n')
            return i;
        if (ch < 0x20 || ch >= 0x7F || ch == '\\')
            return NONE;
    }
    return len;
}

/* The first space, '"' or stop (0: none) at or after i in a plain line
 * ending at e (its newline or the text's end stops the blocks too). */
static size_t word_end(const char *t, size_t i, size_t e, size_t len, char stop)
{
    while (i + 16 <= len) {
        size_t k = vs_word_block_run(t + i, 0x21, '"', stop, 0, 0, 0);
        i += k;
        if (k < 16)
            return i;
    }
    while (i < e && t[i] != ' ' && t[i] != '"' && t[i] != stop)
        i++;
    return i;
}

/* The closing quote of a string whose text starts at i, when it closes
 * before e and a space or the line's end follows it; NONE otherwise. */
static size_t string_end(const char *t, size_t i, size_t e)
{
    const char *q = memchr(t + i, '"', e - i);
    size_t at = q ? (size_t)(q - t) : NONE;
    return at != NONE && (at + 1 == e || t[at + 1] == ' ') ? at : NONE;
}

/* One argument at p (not a space, before e) into a; the position after it,
 * or NONE when the careful reader must read the line. */
static size_t read_arg(const char *t, size_t p, size_t e, size_t len, int col_at_p,
                       vs_parse_scratch *s, vs_arg *a)
{
    size_t k, v, end;
    if (t[p] == '"') {
        if ((end = string_end(t, p + 1, e)) == NONE)
            return NONE;
        a->kind = VS_ARG_STRING;
        a->quoted = 1;
        a->value = vs_parse_piece(s, p + 1, end);
        return end + 1;
    }
    if (t[p] == '=' || (t[p] == '-' && p + 1 < e && t[p + 1] == '-' &&
                        (p + 2 == e || t[p + 2] == ' '))) /* an error, or `--` */
        return NONE;
    k = word_end(t, p, e, len, '=');
    if (k < e && t[k] == '"')
        return NONE; /* a quote inside a word */
    if (k < e && t[k] == '=' && vs_parse_key_valid(t + p, k - p)) {
        v = k + 1;
        if (v == e || t[v] == ' ')
            return NONE; /* a key without its value */
        a->kind = VS_ARG_PAIR;
        a->value_column = col_at_p + (int)(v - p);
        if (t[v] == '"') {
            if ((end = string_end(t, v + 1, e)) == NONE)
                return NONE;
            a->quoted = 1;
            a->key = vs_parse_piece(s, p, k);
            a->value = vs_parse_piece(s, v + 1, end);
            return end + 1;
        }
        if ((end = word_end(t, v, e, len, 0)) < e && t[end] == '"')
            return NONE;
        a->key = vs_parse_piece(s, p, k);
        a->value = vs_parse_piece(s, v, end);
        return end;
    }
    /* a word (most end at the first scan's stop), also one with an '=' that
     * starts no pair (a URL), read on to its end */
    end = k < e && t[k] == '=' ? word_end(t, k, e, len, 0) : k;
    if (end < e && t[end] == '"')
        return NONE;
    a->kind = VS_ARG_WORD;
    a->value = vs_parse_piece(s, p, end);
    return end;
}

int vs_parse_simple_line(const char *t, size_t len, size_t *i, int *col, int line, vs_line *l,
                         vs_parse_scratch *s)
{
    size_t i0 = *i, e = plain_line_end(t, i0, len), p = i0, verb_end, first = s->nargs;
    if (e == NONE)
        return 0;
    p = word_end(t, i0, e, len, '#');
    if ((p < e && t[p] == '"') || !vs_parse_verb_valid_n(t + i0, p - i0))
        return 0; /* the careful reader says what is wrong with it (or reads a %% line) */
    verb_end = p;
    for (;;) {
        vs_arg *a;
        size_t next;
        while (p < e && t[p] == ' ')
            p++;
        if (p >= e || t[p] == '#') /* the line's end, or a comment to it */
            break;
        /* written in place, at the array's end */
        if (s->nargs == s->cap && vs_parse_grow_args(s) < 0)
            return VS_ENOMEM;
        a = &s->args[s->nargs];
        memset(a, 0, sizeof *a);
        a->line = line;
        a->column = a->value_column = *col + (int)(p - i0);
        if ((next = read_arg(t, p, e, len, a->column, s, a)) == NONE) {
            /* undone: the pieces' NULs (the copy is the text) and the arguments */
            memcpy(s->copy + i0, t + i0, e - i0);
            s->copy[e] = e < len ? t[e] : '\0';
            s->nargs = first;
            return 0;
        }
        s->nargs++;
        p = next;
    }
    l->verb = vs_parse_piece(s, i0, verb_end);
    l->nargs = s->nargs - first;
    *col += (int)(e - i0);
    *i = e;
    return 1;
}
