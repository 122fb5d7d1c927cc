/* parse_internal.h — what the parser's files share: the scratch a cell is
 * built in and the names a verb and a key may have, for parse.c (the careful
 * reader of any text) and parse_simple.c (a plain line read in one pass).
 * Not a contract for other modules: they include lang/parse.h.
 */
#ifndef VS_LANG_PARSE_INTERNAL_H
#define VS_LANG_PARSE_INTERNAL_H

#include <stdlib.h>
#include <string.h>

#include "lang/parse.h"
#include "util/arena.h"
#include "util/error.h"

/* What a line is built in: the cell's argument array, each line's appended
 * after the line before's and handed to the cell at the end, and
 * a copy of the whole cell in its arena that the verb, keys and values are
 * pieces of. A piece ends where the text has a byte that is no part of any
 * piece (the blank, newline, '=' or '#' after it, or the end: the copy has
 * one byte more), overwritten by its NUL in the copy; a string's value is
 * written over its own quoted text in the copy (parse.c's out_text). The cursor reads
 * the text itself, never the copy. One copy of the cell instead of one per
 * word (about 1,100 in a 200-line cell). */
typedef struct {
    vs_arena *arena;
    char *copy; /* the cell's text, len + 1 bytes */
    size_t len;
    vs_arg *args;
    size_t nargs, cap;
} vs_parse_scratch;

/* The piece of the cell [start, end): NUL-terminated in the copy. */
static inline char *vs_parse_piece(vs_parse_scratch *s, size_t start, size_t end)
{
    s->copy[end] = '\0';
    return s->copy + start;
}

/* Room for more arguments: first sized for a cell of short lines (an
 * argument every 16 bytes), so that most cells are never copied as they
 * grow. */
static inline int vs_parse_grow_args(vs_parse_scratch *s)
{
    size_t ncap = s->cap ? s->cap * 2 : 8 + s->len / 16;
    vs_arg *p = realloc(s->args, ncap * sizeof *p);
    if (!p)
        return VS_ENOMEM;
    s->args = p;
    s->cap = ncap;
    return 0;
}

static inline int vs_parse_push_arg(vs_parse_scratch *s, const vs_arg *a)
{
    if (s->nargs == s->cap && vs_parse_grow_args(s) < 0)
        return VS_ENOMEM;
    s->args[s->nargs++] = *a;
    return 0;
}

/* What a byte may be in a verb and in a key, one table lookup a byte rather
 * than five comparisons (keys and verbs are most of a cell's words): */
enum {
    NAME_FIRST_VERB = 1, /* [A-Za-z] */
    NAME_FIRST_KEY = 2,  /* [A-Za-z_] */
    NAME_VERB = 4,       /* [A-Za-z0-9_-] */
    NAME_KEY = 8         /* [A-Za-z0-9_.-] */
};

#define NAME_ALPHA (NAME_FIRST_VERB | NAME_FIRST_KEY | NAME_VERB | NAME_KEY)
#define NAME_DIGIT (NAME_VERB | NAME_KEY)
#define NAME_10(x) x, x, x, x, x, x, x, x, x, x
#define NAME_26(x) NAME_10(x), NAME_10(x), x, x, x, x, x, x

static const unsigned char vs_parse_name_class[256] = {
    ['0'] = NAME_10(NAME_DIGIT),  ['A'] = NAME_26(NAME_ALPHA),
    ['a'] = NAME_26(NAME_ALPHA),  ['_'] = NAME_FIRST_KEY | NAME_VERB | NAME_KEY,
    ['-'] = NAME_VERB | NAME_KEY, ['.'] = NAME_KEY,
};

static inline int vs_parse_key_valid(const char *s, size_t n)
{
    size_t i;
    if (n == 0 || !(vs_parse_name_class[(unsigned char)s[0]] & NAME_FIRST_KEY))
        return 0;
    for (i = 1; i < n; i++)
        if (!(vs_parse_name_class[(unsigned char)s[i]] & NAME_KEY))
            return 0;
    return 1;
}

/* 1 when the n bytes at s are a verb's name */
static inline int vs_parse_verb_valid_n(const char *s, size_t n)
{
    size_t i;
    if (n == 0 || !(vs_parse_name_class[(unsigned char)s[0]] & NAME_FIRST_VERB))
        return 0;
    for (i = 1; i < n; i++)
        if (!(vs_parse_name_class[(unsigned char)s[i]] & NAME_VERB))
            return 0;
    return 1;
}

static inline int vs_parse_verb_valid(const char *s)
{
    return vs_parse_verb_valid_n(s, strlen(s));
}

/* A plain line read at once: one that holds only printable ASCII without a
 * backslash up to its newline (or the text's end), whose words, pairs and
 * strings end where they should (no quote inside a word, no empty value, no
 * string left open, no `--`). *i and *col are the cursor at the line's verb
 * (line its line number); on 1 they are at the line's end, l holds the verb
 * and its arguments' count, and s its arguments. 0: not such a line, nothing
 * changed (the careful reader reads it, with its errors); VS_ENOMEM. */
int vs_parse_simple_line(const char *text, size_t len, size_t *i, int *col, int line, vs_line *l,
                         vs_parse_scratch *s);

#endif
