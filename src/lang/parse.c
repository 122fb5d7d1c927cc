#include "lang/parse.h"
#include "lang/parse_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/arena.h"
#include "util/utf8.h"
#include "util/word.h"

/* The parser walks the text once, left to right, with a cursor that knows its
 * line and column; it never backtracks more than one character and never
 * recurses, so any input costs time linear in its length.
 *
 * Choices the header leaves open (documented here and in `help syntax`):
 * - `#` starts a comment only at the start of an argument (after whitespace), so
 *   that `source=PR#12` stays one value.
 * - A comment ends at the end of its physical line; a `\` inside it continues
 *   nothing.
 * - A double-quoted string may span lines (the newline is part of the value);
 *   `\` then newline inside a string joins the lines without a newline.
 *   Escapes: \" \\ \n \t.
 * - A word is a pair when it reads `key=value` with key = [A-Za-z_][A-Za-z0-9_.-]*;
 *   any other word containing `=` (a URL) stays a word.
 * - A verb is [A-Za-z][A-Za-z0-9_-]* (or `%%` followed by one on the cell's first
 *   line). */

typedef struct {
    const char *s;
    size_t len;
    size_t i;
    int line;
    int col;
} cursor;

static inline int at_end(const cursor *c)
{
    return c->i >= c->len;
}

static inline int peek(const cursor *c, size_t k)
{
    return c->i + k < c->len ? (unsigned char)c->s[c->i + k] : -1;
}

static inline void advance(cursor *c)
{
    unsigned char ch;
    if (at_end(c))
        return;
    ch = (unsigned char)c->s[c->i++];
    if (ch == '\n') {
        c->line++;
        c->col = 1;
    } else if ((ch & 0xC0) != 0x80) {
        /* a continuation byte belongs to the code point already counted */
        c->col++;
    }
}

/* Fast paths. A cell is read a byte at a time through advance(), which keeps
 * line and column right for any text; in the plain runs that make most of a
 * cell (printable ASCII inside words and strings, spaces between them) one
 * byte is one column and nothing else can happen, so these skip them whole.
 * Each stops before any byte the careful path must see. */

/* The end of the run of printable ASCII at s[i..len) that holds no byte below
 * lo (0x21: a space ends it too; 0x20: it does not), no '"', '\\' or stop.
 * Sixteen bytes at a time (util/word): most runs, words and string values,
 * are one block; the cell's last few bytes go one by one. */
static size_t plain_run(const char *s, size_t i, size_t len, char lo, char stop)
{
    while (i + 16 <= len) {
        size_t k = vs_word_block_run(s + i, lo, 0x7F, '"', '\\', stop, 0);
        i += k;
        if (k < 16)
            return i;
    }
    while (i < len) {
        unsigned char ch = (unsigned char)s[i];
        if (ch < (unsigned char)lo || ch >= 0x7F || ch == '"' || ch == '\\' ||
            ch == (unsigned char)stop)
            break;
        i++;
    }
    return i;
}

/* Printable ASCII that cannot end a word: anything but a space, '"', '\\' and
 * stop (the caller's own delimiter: '=' in a key, '#' after a verb; 0 for
 * none). */
static inline void skip_word_run(cursor *c, char stop)
{
    size_t i = plain_run(c->s, c->i, c->len, 0x21, stop);
    c->col += (int)(i - c->i);
    c->i = i;
}

/* Where a string's value is written: its own place in the cell's copy (see
 * scratch), from its opening quote on. The value is never longer than the
 * text it is read from (an escape is two bytes for one, a joined line two or
 * three for none), so it never reaches the closing quote. */
typedef struct {
    char *p;
    size_t n;
} out_text;

/* Printable ASCII inside a string other than '"' and '\\', copied to o. */
static void copy_string_run(cursor *c, out_text *o)
{
    size_t i = plain_run(c->s, c->i, c->len, 0x20, 0);
    memcpy(o->p + o->n, c->s + c->i, i - c->i);
    o->n += i - c->i;
    c->col += (int)(i - c->i);
    c->i = i;
}

/* Advancing counts columns on lead bytes; a lead byte moves the column when it
 * is consumed, so the column of the next character is right once the whole
 * sequence is consumed. Skips one whole code point. */
static void skip_char(cursor *c)
{
    advance(c);
    while (!at_end(c) && ((unsigned char)c->s[c->i] & 0xC0) == 0x80)
        advance(c);
}

/* Copies one whole code point to o. */
static void copy_char(cursor *c, out_text *o)
{
    size_t start = c->i;
    skip_char(c);
    memcpy(o->p + o->n, c->s + start, c->i - start);
    o->n += c->i - start;
}

/* A control character that typed text may not hold: every C0 control but tab
 * and newline (a carriage return only as the CR of CRLF), DEL, and the C1
 * controls U+0080..U+009F. ESC, BEL and OSC would reach the records, commit
 * messages and a terminal that prints them. Returns its code point, or 0. */
static unsigned control_at(const unsigned char *s, size_t i, size_t len)
{
    unsigned char ch = s[i];
    if (ch == '\t' || ch == '\n' || (ch == '\r' && i + 1 < len && s[i + 1] == '\n'))
        return 0;
    if (ch < 0x20 || ch == 0x7f)
        return ch ? ch : 0x100; /* NUL has its own message */
    if (ch == 0xc2 && i + 1 < len && s[i + 1] >= 0x80 && s[i + 1] <= 0x9f)
        return s[i + 1];
    return 0;
}

/* Sixteen bytes at a time (util/word): a block of printable ASCII, most of a
 * cell, cannot hold one; a byte that stops the block (a line break, a byte of
 * a multi-byte character, DEL) is looked at alone. */
static int has_control(const unsigned char *s, size_t len)
{
    size_t i = 0;
    while (i < len) {
        if (i + 16 <= len) {
            size_t k = vs_word_block_run((const char *)s + i, 0x20, 0x7F, 0, 0, 0, 0);
            i += k;
            if (k == 16)
                continue;
        }
        if ((s[i] < 0x20 || s[i] == 0x7f || s[i] == 0xc2) && control_at(s, i, len))
            return 1;
        i++;
    }
    return 0;
}

/* One pass over the bytes before tokenizing: NUL bytes, invalid UTF-8 and
 * control characters are reported at their own position, whatever surrounds
 * them (the careful walk, which counts lines and columns, runs only when there
 * is one). */
static int check_text(const char *s, size_t len, vs_error *err)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;
    int line = 1, col = 1;
    if (vs_utf8_valid(s, len) && !has_control(u, len))
        return 0;
    while (i < len) {
        unsigned char ch = u[i];
        unsigned cp;
        size_t k;
        if (ch == 0)
            return vs_error_set_at_pos(err, VS_ESYNTAX, line, col, (long long)i,
                                       "unexpected NUL byte; expected text (UTF-8)");
        k = vs_utf8_seq(u + i, len - i);
        if (k == 0)
            return vs_error_set_at_pos(err, VS_ESYNTAX, line, col, (long long)i,
                                       "invalid UTF-8 byte 0x%02X; expected text encoded as UTF-8",
                                       ch);
        if ((cp = control_at(u, i, len)) != 0)
            return vs_error_set_at_pos(err, VS_ESYNTAX, line, col, (long long)i,
                                       "control character U+%04X; typed text may hold tabs and "
                                       "line breaks, no other control characters (ESC, BEL...)",
                                       cp);
        if (ch == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
        i += k;
    }
    return 0;
}

static inline int is_space(int ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v';
}

/* A backslash that ends the physical line (optionally "\r\n"). */
static inline int at_continuation(const cursor *c)
{
    if (peek(c, 0) != '\\')
        return 0;
    if (c->i + 1 >= c->len)
        return 1; /* a trailing backslash at the very end: nothing follows */
    return peek(c, 1) == '\n' || (peek(c, 1) == '\r' && peek(c, 2) == '\n');
}

static void skip_continuation(cursor *c)
{
    advance(c); /* the backslash */
    if (peek(c, 0) == '\r')
        advance(c);
    advance(c); /* the newline (no-op at the end) */
}

/* Skips spaces and continuations within a logical line. A byte above the
 * space other than a backslash starts an argument: most calls end there,
 * without the tests for the other blanks. */
static inline void skip_blanks(cursor *c)
{
    for (;;) {
        int ch;
        /* the run of spaces counted in a local: a byte read through the
         * cell's char pointer may alias the cursor, which would otherwise be
         * stored and read again at every space */
        size_t i = c->i;
        while (i < c->len && c->s[i] == ' ')
            i++;
        c->col += (int)(i - c->i);
        c->i = i;
        if (c->i >= c->len)
            return;
        ch = (unsigned char)c->s[c->i];
        if (ch > ' ' && ch != '\\')
            return;
        if (is_space(ch))
            advance(c);
        else if (at_continuation(c))
            skip_continuation(c);
        else
            return;
    }
}

static void skip_to_eol(cursor *c)
{
    while (!at_end(c) && peek(c, 0) != '\n')
        advance(c);
}

static inline int line_ends(const cursor *c)
{
    return c->i >= c->len || c->s[c->i] == '\n';
}

/* Whether the argument ends here: the end, a newline, a blank or a
 * continuation. A byte above the space other than a backslash is none of
 * them (the common case, tested first). */
static inline int arg_ends(const cursor *c)
{
    int ch;
    if (c->i >= c->len)
        return 1;
    ch = (unsigned char)c->s[c->i];
    if (ch > ' ' && ch != '\\')
        return 0;
    return ch == '\n' || is_space(ch) || at_continuation(c);
}

/* Reads a double-quoted string at the cursor (on the quote) into o. */
static int read_string(cursor *c, out_text *o, vs_error *err)
{
    int line = c->line, col = c->col;
    long long at = (long long)c->i;
    advance(c); /* opening quote */
    for (;;) {
        int ch;
        if (at_end(c))
            return vs_error_set_at_pos(err, VS_ESYNTAX, line, col, at,
                                       "unterminated string: expected a closing '\"' for the "
                                       "string that starts here");
        ch = peek(c, 0);
        if (ch == '"') {
            advance(c);
            return 0;
        }
        if (ch == '\\') {
            int eline = c->line, ecol = c->col, nx = peek(c, 1);
            long long eat = (long long)c->i;
            if (at_continuation(c)) {
                if (c->i + 1 >= c->len)
                    return vs_error_set_at_pos(err, VS_ESYNTAX, line, col, at,
                                               "unterminated string: expected a closing '\"' "
                                               "for the string that starts here");
                skip_continuation(c);
                continue;
            }
            switch (nx) {
            case '"':
                o->p[o->n++] = '"';
                break;
            case '\\':
                o->p[o->n++] = '\\';
                break;
            case 'n':
                o->p[o->n++] = '\n';
                break;
            case 't':
                o->p[o->n++] = '\t';
                break;
            default:
                if (nx < 0)
                    return vs_error_set_at_pos(err, VS_ESYNTAX, line, col, at,
                                               "unterminated string: expected a closing '\"'");
                if (nx >= 0x20 && nx < 0x7F)
                    return vs_error_set_at_pos(err, VS_ESYNTAX, eline, ecol, eat,
                                               "bad escape '\\%c' in string: expected \\\", \\\\, "
                                               "\\n or \\t",
                                               nx);
                return vs_error_set_at_pos(err, VS_ESYNTAX, eline, ecol, eat,
                                           "bad escape in string: expected \\\", \\\\, \\n or \\t "
                                           "after '\\'");
            }
            advance(c);
            advance(c);
            continue;
        }
        copy_string_run(c, o);
        if (!at_end(c) && peek(c, 0) != '"' && peek(c, 0) != '\\')
            copy_char(c, o);
    }
}

/* Reads an unquoted word up to whitespace; a '"' inside it is an error. The
 * word is the text between where the cursor was and where it is: the caller
 * copies it from there. */
static int read_word(cursor *c, vs_error *err)
{
    for (;;) {
        skip_word_run(c, 0);
        if (arg_ends(c))
            break;
        if (peek(c, 0) == '"')
            return vs_error_set_at_pos(err, VS_ESYNTAX, c->line, c->col, (long long)c->i,
                                       "unexpected '\"' inside a word: expected a space before it, "
                                       "or quote the whole argument");
        advance(c);
    }
    return 0;
}

void vs_cell_free(vs_cell *cell)
{
    if (!cell)
        return;
    free(cell->lines);
    free(cell->args);
    vs_arena_free(cell->arena);
    free(cell);
}

/* Parses the arguments of one logical line (the verb is already read). On `--`,
 * the rest of the logical line becomes raw (when allow_raw). */
static int parse_args(cursor *c, vs_line *l, int allow_raw, vs_parse_scratch *s, vs_error *err)
{
    int rc = 0;
    size_t first = s->nargs; /* the cell's arguments so far */
    for (;;) {
        vs_arg a;
        size_t word = 0; /* where the value starts in the text, when is_word */
        int is_word = 0;
        out_text text = {NULL, 0}; /* a string's value */
        int ch;
        skip_blanks(c);
        if (line_ends(c))
            break;
        ch = peek(c, 0);
        memset(&a, 0, sizeof a);
        a.line = c->line;
        a.column = c->col;
        a.value_column = c->col;
        if (ch == '#') {
            skip_to_eol(c);
            break;
        }
        if (ch == '-' && peek(c, 1) == '-') {
            cursor save = *c;
            advance(c);
            advance(c);
            if (arg_ends(c)) {
                size_t start;
                if (!allow_raw) {
                    rc = vs_error_set_at(err, VS_ESYNTAX, a.line, a.column,
                                         "'--' is not allowed on a %%%% line: the cell's body is "
                                         "the raw text");
                    goto done;
                }
                while (!line_ends(c) && is_space(peek(c, 0)))
                    advance(c);
                l->raw_line = c->line;
                start = c->i;
                /* raw text runs to the end of the logical line; a backslash-newline
                 * stays in it, as the shell that reads it expects */
                for (;;) {
                    if (at_end(c))
                        break;
                    if (peek(c, 0) == '\n') {
                        if (c->i > start && c->s[c->i - 1] == '\\') {
                            advance(c);
                            continue;
                        }
                        break;
                    }
                    advance(c);
                }
                l->raw = vs_arena_strndup(s->arena, c->s + start, c->i - start);
                if (!l->raw) {
                    rc = vs_error_oom(err);
                    goto done;
                }
                break;
            }
            *c = save;
        }
        if (ch == '"') {
            text.p = s->copy + c->i;
            rc = read_string(c, &text, err);
            if (rc < 0)
                goto done;
            if (!arg_ends(c)) {
                rc = vs_error_set_at(err, VS_ESYNTAX, c->line, c->col,
                                     "expected a space after the closing '\"'");
                goto done;
            }
            a.kind = VS_ARG_STRING;
            a.quoted = 1;
        } else if (ch == '=') {
            rc = vs_error_set_at(err, VS_ESYNTAX, c->line, c->col,
                                 "expected a key before '=' (key=value)");
            goto done;
        } else {
            /* A word; it becomes a pair if it starts with a valid key and '='.
             * A word is a piece of the cell's text (most arguments are). */
            size_t start = c->i;
            for (;;) {
                skip_word_run(c, '=');
                if (arg_ends(c) || peek(c, 0) == '=' || peek(c, 0) == '"')
                    break;
                advance(c);
            }
            if (peek(c, 0) == '=' && vs_parse_key_valid(c->s + start, c->i - start)) {
                a.kind = VS_ARG_PAIR;
                a.key = vs_parse_piece(s, start, c->i); /* over the '=' */
                advance(c);                             /* '=' */
                a.value_column = c->col;
                if (arg_ends(c)) {
                    rc = vs_error_set_at(err, VS_ESYNTAX, c->line, c->col,
                                         "'%s=' has no value: expected %s=VALUE (quote an empty "
                                         "or spaced value: %s=\"...\")",
                                         a.key, a.key, a.key);
                    goto done;
                }
                if (peek(c, 0) == '"') {
                    text.p = s->copy + c->i;
                    rc = read_string(c, &text, err);
                    if (rc == 0 && !arg_ends(c))
                        rc = vs_error_set_at(err, VS_ESYNTAX, c->line, c->col,
                                             "expected a space after the closing '\"'");
                    a.quoted = 1;
                } else {
                    word = c->i;
                    is_word = 1;
                    rc = read_word(c, err);
                }
                if (rc < 0) {
                    goto done;
                }
            } else {
                word = start;
                is_word = 1;
                /* the loop above stopped at the word's end (most words), or at
                 * a '"' or an '=' that is no pair's (a URL): read on from there */
                if (!arg_ends(c) && (rc = read_word(c, err)) < 0)
                    goto done;
                a.kind = VS_ARG_WORD;
            }
        }
        /* a word ends at the blank, newline or end after it; a string's value
         * inside its own quotes */
        a.value = is_word ? vs_parse_piece(s, word, c->i)
                          : vs_parse_piece(s, (size_t)(text.p - s->copy),
                                           (size_t)(text.p - s->copy) + text.n);
        if (vs_parse_push_arg(s, &a) < 0) {
            rc = vs_error_oom(err);
            goto done;
        }
    }
    /* l->args is set once the cell is read: the array may still move */
    l->nargs = s->nargs - first;
done:
    return rc;
}

static int push_line(vs_cell *cell, size_t *cap, vs_line *l, size_t len)
{
    if (cell->nlines == *cap) {
        /* first sized for lines of 32 bytes and more, as the arguments */
        size_t ncap = *cap ? *cap * 2 : 8 + len / 32;
        vs_line *p = realloc(cell->lines, ncap * sizeof *p);
        if (!p)
            return VS_ENOMEM;
        cell->lines = p;
        *cap = ncap;
    }
    cell->lines[cell->nlines++] = *l;
    return 0;
}

/* Reads the verb at the cursor (a name, or %%name when magic). */
static int read_verb(cursor *c, vs_line *l, int magic, vs_parse_scratch *s, vs_error *err)
{
    char what[32];
    const char *v;
    size_t start = c->i;
    int rc = 0;
    if (magic) { /* the "%%" stays in the verb */
        advance(c);
        advance(c);
    }
    if (peek(c, 0) == '"') {
        rc = vs_error_set_at(err, VS_ESYNTAX, l->line, l->column,
                             "expected a verb at the start of the line, found a string");
        goto done;
    }
    for (;;) {
        skip_word_run(c, '#');
        if (arg_ends(c) || peek(c, 0) == '#')
            break;
        skip_char(c);
    }
    v = vs_parse_piece(s, start, c->i); /* over the blank, newline or '#' after it */
    if (!vs_parse_verb_valid(v + (magic ? 2 : 0))) {
        snprintf(what, sizeof what, "%s", v);
        if (strlen(v) >= sizeof what) {
            /* cut on a code point boundary */
            size_t n = sizeof what - 4;
            while (n > 0 && ((unsigned char)what[n] & 0xC0) == 0x80)
                n--;
            memcpy(what + n, "...", 4);
        }
        if (strchr(v, '=') && !magic)
            rc = vs_error_set_at(err, VS_ESYNTAX, l->line, l->column,
                                 "expected a verb at the start of the line, found the pair '%s' "
                                 "(a line reads `verb arguments`; `help` lists the verbs)",
                                 what);
        else
            rc = vs_error_set_at(err, VS_ESYNTAX, l->line, l->column,
                                 "expected a verb at the start of the line (a name such as "
                                 "`sheet` or `reserve`; `help` lists them), found '%s'",
                                 what);
        goto done;
    }
    l->verb = (char *)v;
done:
    return rc;
}

int vs_parse_cell(vs_cell **out, const char *text, size_t len, vs_error *err)
{
    vs_cell *cell = NULL;
    cursor c;
    vs_parse_scratch sc = {NULL, NULL, 0, NULL, 0, 0};
    size_t cap = 0;
    int rc, first = 1;
    *out = NULL;
    rc = check_text(text, len, err);
    if (rc < 0)
        return rc;
    cell = calloc(1, sizeof *cell);
    if (!cell || !(cell->arena = sc.arena = vs_arena_new()) ||
        !(sc.copy = vs_arena_alloc(sc.arena, len + 1))) {
        vs_cell_free(cell);
        return vs_error_oom(err);
    }
    memcpy(sc.copy, text, len);
    sc.copy[len] = '\0';
    sc.len = len;
    c.s = text;
    c.len = len;
    c.i = 0;
    c.line = 1;
    c.col = 1;
    for (;;) {
        vs_line l;
        int magic;
        /* between lines: blanks, empty lines, comment lines */
        for (;;) {
            skip_blanks(&c);
            if (peek(&c, 0) == '\n')
                advance(&c);
            else if (peek(&c, 0) == '#')
                skip_to_eol(&c);
            else
                break;
        }
        if (at_end(&c))
            break;
        memset(&l, 0, sizeof l);
        l.line = c.line;
        l.column = c.col;
        magic = peek(&c, 0) == '%' && peek(&c, 1) == '%';
        if (magic && !(first && c.line == 1)) {
            rc = vs_error_set_at(err, VS_ESYNTAX, c.line, c.col,
                                 "a %%%%VERB line must be the cell's first line; expected a verb");
            goto fail;
        }
        first = 0;
        /* a plain line at once (parse_simple.c), any other the careful way */
        rc = magic ? 0 : vs_parse_simple_line(c.s, c.len, &c.i, &c.col, c.line, &l, &sc);
        if (rc == 1) {
            rc = 0;
        } else if (rc < 0) {
            rc = vs_error_oom(err);
        } else {
            rc = read_verb(&c, &l, magic, &sc, err);
            if (rc == 0)
                rc = parse_args(&c, &l, !magic, &sc, err);
        }
        if (rc == 0 && magic) {
            /* the rest of the cell, after the first line, is the body */
            if (peek(&c, 0) == '\n')
                advance(&c);
            l.raw_line = c.line;
            l.raw = vs_arena_strndup(sc.arena, c.s + c.i, c.len - c.i);
            if (!l.raw)
                rc = vs_error_oom(err);
            c.i = c.len;
        }
        if (rc == 0 && push_line(cell, &cap, &l, len) < 0)
            rc = vs_error_oom(err);
        if (rc < 0)
            goto fail;
    }
    /* every line's arguments in one array, as they were read, rather than
     * an arena copy a line: each line points at its own run of it */
    {
        size_t k, at = 0;
        cell->args = sc.args;
        sc.args = NULL;
        for (k = 0; k < cell->nlines; k++) {
            cell->lines[k].args = cell->lines[k].nargs ? cell->args + at : NULL;
            at += cell->lines[k].nargs;
        }
    }
    *out = cell;
    cell = NULL;
fail:
    vs_cell_free(cell);
    free(sc.args);
    return rc;
}

const vs_arg *vs_line_pair(const vs_line *line, const char *key)
{
    size_t i;
    for (i = 0; i < line->nargs; i++)
        if (line->args[i].kind == VS_ARG_PAIR && line->args[i].key[0] == key[0] &&
            !strcmp(line->args[i].key, key))
            return &line->args[i];
    return NULL;
}

const vs_arg *vs_line_positional(const vs_line *line, size_t i)
{
    size_t k;
    for (k = 0; k < line->nargs; k++) {
        if (line->args[k].kind == VS_ARG_PAIR)
            continue;
        if (i-- == 0)
            return &line->args[k];
    }
    return NULL;
}

size_t vs_line_npositional(const vs_line *line)
{
    size_t k, n = 0;
    for (k = 0; k < line->nargs; k++)
        if (line->args[k].kind != VS_ARG_PAIR)
            n++;
    return n;
}
