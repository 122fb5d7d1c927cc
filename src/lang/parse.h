/* parse.h — reads a cell of the vramsheet language into lines of arguments.
 *
 * A cell is lines of `verb arguments`. `#` starts a comment (outside quotes); a
 * trailing `\` continues the line. Arguments are words, `key=value` pairs and
 * double-quoted strings (`\"` and `\\` escapes; a value may be quoted:
 * key="a b"). `--` ends the arguments: the rest of the line, untouched (no quote
 * or comment processing), is the line's raw text (for `measure`). A cell whose
 * first line starts with `%%VERB` is one line: the arguments of that first line,
 * and the rest of the cell as raw text. Positions are 1-based lines and columns
 * counted in Unicode code points. The parser is pure and knows no verb.
 */
#ifndef VS_LANG_PARSE_H
#define VS_LANG_PARSE_H

#include <stddef.h>

#include "util/error.h"

typedef enum { VS_ARG_WORD, VS_ARG_STRING, VS_ARG_PAIR } vs_arg_kind;

typedef struct vs_arg {
    vs_arg_kind kind;
    char *key;   /* VS_ARG_PAIR only, else NULL */
    char *value; /* the word, the unescaped string, or the pair's value */
    int quoted;  /* the value was written as a double-quoted string */
    int line;    /* where the argument starts */
    int column;
    int value_column; /* where the value starts (after `key=`) */
} vs_arg;

typedef struct vs_line {
    char *verb; /* "%%measure" keeps its %% */
    int line;
    int column;
    vs_arg *args;
    size_t nargs;
    char *raw; /* text after `--` (or a %% cell's body); NULL when none */
    int raw_line;
} vs_line;

typedef struct vs_cell {
    vs_line *lines;
    size_t nlines;
    struct vs_arena *arena; /* owns every verb, key, value and raw text */
    vs_arg *args;           /* every line's arguments end to end (lines[i].args point in) */
} vs_cell;

/* Parses text (len bytes, need not be NUL-terminated). Returns 0 and a new cell
 * in *out, or VS_ESYNTAX (unterminated string, invalid UTF-8, NUL byte, ...)
 * with line and column, or VS_ENOMEM. A NUL byte, an invalid UTF-8 byte, an
 * unterminated string, a bad escape and a '"' inside a word also carry the
 * byte offset in text (vs_error.position: the byte, the opening quote, the
 * backslash, the quote). */
int vs_parse_cell(vs_cell **out, const char *text, size_t len, vs_error *err);
void vs_cell_free(vs_cell *cell);

/* Lookups on a parsed line (borrowed; NULL when absent). */
const vs_arg *vs_line_pair(const vs_line *line, const char *key);
/* The i-th positional argument (word or string), skipping pairs; NULL past the end. */
const vs_arg *vs_line_positional(const vs_line *line, size_t i);
size_t vs_line_npositional(const vs_line *line);

#endif
