/* The cell parser: arguments, continuations, raw text, %% cells, and every
 * error path with its line and column. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lang/parse.h"
#include "util/buf.h"

#include "check_run.h"

static vs_cell *parse_ok(const char *text)
{
    vs_cell *cell = NULL;
    vs_error err;
    vs_error_clear(&err);
    ck_assert_msg(vs_parse_cell(&cell, text, strlen(text), &err) == 0, "%s: %s", text, err.message);
    ck_assert_ptr_nonnull(cell);
    return cell;
}

/* Expects a syntax error at line:col whose message contains what. */
static void parse_fails(const char *text, size_t len, int line, int col, const char *what)
{
    vs_cell *cell = (vs_cell *)1;
    vs_error err;
    vs_error_clear(&err);
    ck_assert_int_eq(vs_parse_cell(&cell, text, len, &err), VS_ESYNTAX);
    ck_assert_ptr_null(cell);
    ck_assert_int_eq(err.code, VS_ESYNTAX);
    ck_assert_msg(err.line == line && err.column == col, "%s: at %d:%d, expected %d:%d (%s)", text,
                  err.line, err.column, line, col, err.message);
    ck_assert_msg(strstr(err.message, what) != NULL, "'%s' not in '%s'", what, err.message);
}

/* Runs of every length around the 16-byte scan, ended by each byte that
 * stops one (a space, '=', '"', an escape, a multi-byte character, the end of
 * the cell): values and columns come out as a byte-at-a-time reader gives. */
/* Two parses of one line agree on everything a verb reads. */
static void same_line(const vs_line *a, const vs_line *b, const char *what)
{
    size_t k;
    ck_assert_msg(!strcmp(a->verb, b->verb), "%s: verb", what);
    ck_assert_msg(a->line == b->line && a->column == b->column, "%s: position", what);
    ck_assert_msg(a->nargs == b->nargs, "%s: %zu arguments, %zu", what, a->nargs, b->nargs);
    ck_assert_msg(!a->raw && !b->raw, "%s: raw", what);
    for (k = 0; k < a->nargs; k++) {
        const vs_arg *x = &a->args[k], *y = &b->args[k];
        ck_assert_msg(x->kind == y->kind && x->quoted == y->quoted, "%s: arg %zu kind", what, k);
        ck_assert_msg(!strcmp(x->value, y->value), "%s: arg %zu '%s' '%s'", what, k, x->value,
                      y->value);
        ck_assert_msg((!x->key && !y->key) || (x->key && y->key && !strcmp(x->key, y->key)),
                      "%s: arg %zu key", what, k);
        ck_assert_msg(x->line == y->line && x->column == y->column &&
                          x->value_column == y->value_column,
                      "%s: arg %zu at %d:%d/%d, %d:%d/%d", what, k, x->line, x->column,
                      x->value_column, y->line, y->column, y->value_column);
    }
}

/* Plain lines (printable ASCII) are read in one pass (lang/parse_simple.c);
 * a line with any other byte, here a comment ending in "é" that changes
 * none of its arguments, is read by the careful reader. Random lines of
 * words, pairs, strings and comments, each read both ways in cells of 40
 * lines: every line that parses parses the same both ways, at the same
 * lines and columns. */
START_TEST(test_plain_lines_read_as_the_careful_reader_does)
{
    static const char alphabet[] = "ab_1.=\"\"  #-/xk";
    unsigned long seed = 12345;
    int round, kept = 0;
    for (round = 0; round < 200; round++) {
        vs_buf plain = VS_BUF_INIT, careful = VS_BUF_INIT;
        vs_cell *a = NULL, *b = NULL;
        vs_error err;
        int n = 0;
        while (n < 40) {
            char line[40], verb[8];
            size_t len = 0, k, words;
            vs_cell *one = NULL;
            vs_buf with = VS_BUF_INIT;
            seed = seed * 6364136223846793005UL + 1442695040888963407UL;
            snprintf(verb, sizeof verb, "%s", (seed >> 33) % 3 == 0 ? "reserve" : "v");
            words = (seed >> 40) % 20;
            for (k = 0; k < words; k++) {
                seed = seed * 6364136223846793005UL + 1442695040888963407UL;
                line[len++] = alphabet[(seed >> 33) % (sizeof alphabet - 1)];
            }
            line[len] = '\0';
            if (strstr(line, "--"))
                continue; /* raw text: the comment would be part of it */
            vs_buf_printf(&with, "%s %s # \xc3\xa9", verb, line);
            vs_error_clear(&err);
            if (vs_parse_cell(&one, vs_buf_str(&with), with.len, &err) == 0) {
                vs_buf_printf(&plain, "%s %s\n", verb, line);
                vs_buf_printf(&careful, "%s\n", vs_buf_str(&with));
                n++;
            }
            vs_cell_free(one);
            vs_buf_free(&with);
        }
        ck_assert_int_eq(vs_parse_cell(&a, vs_buf_str(&plain), plain.len, &err), 0);
        ck_assert_int_eq(vs_parse_cell(&b, vs_buf_str(&careful), careful.len, &err), 0);
        ck_assert_uint_eq(a->nlines, b->nlines);
        for (n = 0; n < (int)a->nlines; n++) {
            same_line(&a->lines[n], &b->lines[n], vs_buf_str(&plain));
            kept += a->lines[n].nargs > 0;
        }
        vs_cell_free(a);
        vs_cell_free(b);
        vs_buf_free(&plain);
        vs_buf_free(&careful);
    }
    ck_assert_int_gt(kept, 4000); /* most lines have arguments */
}
END_TEST

/* A cell of many short lines of many arguments, more than the arrays are
 * first sized for (an argument every 16 bytes, a line every 32): each line
 * keeps its own arguments, in order, wherever the arrays moved to. */
START_TEST(test_many_lines_many_arguments)
{
    static const char line[] = "v a b c=d e f g\n"; /* 16 bytes, 6 arguments */
    char text[600 * sizeof line];
    vs_cell *c;
    size_t i, n = 0;
    for (i = 0; i < 600; i++) {
        memcpy(text + n, line, sizeof line - 1);
        n += sizeof line - 1;
    }
    memcpy(text + n, "w\nx y\n", 7); /* one line without arguments, one with; its NUL */
    c = parse_ok(text);
    ck_assert_uint_eq(c->nlines, 602);
    for (i = 0; i < 600; i++) {
        const vs_line *l = &c->lines[i];
        ck_assert_int_eq(l->line, (int)i + 1);
        ck_assert_str_eq(l->verb, "v");
        ck_assert_uint_eq(l->nargs, 6);
        ck_assert_str_eq(l->args[0].value, "a");
        ck_assert_str_eq(l->args[2].key, "c");
        ck_assert_str_eq(l->args[2].value, "d");
        ck_assert_int_eq(l->args[2].column, 7);
        ck_assert_str_eq(l->args[5].value, "g");
        ck_assert_int_eq(l->args[5].line, (int)i + 1);
    }
    ck_assert_uint_eq(c->lines[600].nargs, 0);
    ck_assert_ptr_null(c->lines[600].args);
    ck_assert_uint_eq(c->lines[601].nargs, 1);
    ck_assert_str_eq(c->lines[601].args[0].value, "y");
    vs_cell_free(c);
}
END_TEST

START_TEST(test_runs_of_every_length)
{
    size_t n;
    for (n = 0; n < 40; n++) {
        char word[64], str[64], text[400], want_str[80];
        vs_cell *c;
        const vs_line *l;
        int col;
        memset(word, 'a', n);
        word[n] = '\0';
        memset(str, 'b', n);
        str[n] = '\0';
        /* v Xa..a key=Ya..a "b..b\"c" b..bé z   (é: two bytes, one column) */
        snprintf(text, sizeof text, "v X%s key=Y%s \"%s\\\"c\" %s\xc3\xa9 z", word, word, str, str);
        c = parse_ok(text);
        l = &c->lines[0];
        ck_assert_uint_eq(l->nargs, 5);
        ck_assert_str_eq(l->args[0].value + 1, word);
        ck_assert_int_eq(l->args[1].kind, VS_ARG_PAIR);
        ck_assert_str_eq(l->args[1].key, "key");
        ck_assert_str_eq(l->args[1].value + 1, word);
        snprintf(want_str, sizeof want_str, "%s\"c", str);
        ck_assert_str_eq(l->args[2].value, want_str);
        col = 3 + 1 + (int)n + 1;
        ck_assert_int_eq(l->args[1].column, col);
        col += 4 + 1 + (int)n + 1;
        ck_assert_int_eq(l->args[2].column, col);
        col += (int)n + 5 + 1;
        ck_assert_int_eq(l->args[3].column, col);
        ck_assert_int_eq(l->args[4].column, col + (int)n + 2);
        ck_assert_str_eq(l->args[4].value, "z");
        vs_cell_free(c);
        /* the run ends at the end of the cell */
        snprintf(text, sizeof text, "v %s", str);
        c = parse_ok(text);
        if (n) {
            ck_assert_str_eq(c->lines[0].args[0].value, str);
        } else {
            ck_assert_uint_eq(c->lines[0].nargs, 0);
        }
        vs_cell_free(c);
    }
}
END_TEST

START_TEST(test_words_pairs_strings)
{
    vs_cell *c = parse_ok("reserve kv_cache 16GiB status=estimated source=\"2 x 32 \\\"x\\\"\"");
    const vs_line *l;
    ck_assert_uint_eq(c->nlines, 1);
    l = &c->lines[0];
    ck_assert_str_eq(l->verb, "reserve");
    ck_assert_int_eq(l->line, 1);
    ck_assert_int_eq(l->column, 1);
    ck_assert_uint_eq(l->nargs, 4);
    ck_assert_int_eq(l->args[0].kind, VS_ARG_WORD);
    ck_assert_str_eq(l->args[0].value, "kv_cache");
    ck_assert_int_eq(l->args[0].column, 9);
    ck_assert_int_eq(l->args[2].kind, VS_ARG_PAIR);
    ck_assert_str_eq(l->args[2].key, "status");
    ck_assert_str_eq(l->args[2].value, "estimated");
    ck_assert_int_eq(l->args[2].column, 24);
    ck_assert_int_eq(l->args[2].value_column, 31);
    ck_assert_int_eq(l->args[3].quoted, 1);
    ck_assert_str_eq(l->args[3].value, "2 x 32 \"x\"");
    ck_assert_str_eq(vs_line_pair(l, "source")->value, "2 x 32 \"x\"");
    ck_assert_ptr_null(vs_line_pair(l, "phase"));
    ck_assert_uint_eq(vs_line_npositional(l), 2);
    ck_assert_str_eq(vs_line_positional(l, 1)->value, "16GiB");
    ck_assert_ptr_null(vs_line_positional(l, 2));
    ck_assert_ptr_null(l->raw);
    vs_cell_free(c);

    c = parse_ok("sheet \"Llama-2-7B chat, inference\"\nquality \"a \\\\ b\\n\"");
    ck_assert_uint_eq(c->nlines, 2);
    ck_assert_int_eq(c->lines[0].args[0].kind, VS_ARG_STRING);
    ck_assert_str_eq(c->lines[0].args[0].value, "Llama-2-7B chat, inference");
    ck_assert_str_eq(c->lines[1].args[0].value, "a \\ b\n");
    ck_assert_int_eq(c->lines[1].line, 2);
    vs_cell_free(c);

    /* a word with '=' that is not key=value stays a word (URLs) */
    c = parse_ok("model http://x/y?a=b key.sub-1=v");
    ck_assert_int_eq(c->lines[0].args[0].kind, VS_ARG_WORD);
    ck_assert_str_eq(c->lines[0].args[0].value, "http://x/y?a=b");
    ck_assert_str_eq(vs_line_pair(&c->lines[0], "key.sub-1")->value, "v");
    vs_cell_free(c);

    /* a word ends where its first scan stops (a blank, a tab, a continuation,
     * the end) or reads on past an '=' that starts no pair; columns by hand */
    c = parse_ok("sheet w1\tw2 9=x \\\n  a/b=c=d e");
    ck_assert_uint_eq(c->lines[0].nargs, 5);
    ck_assert_str_eq(c->lines[0].args[0].value, "w1");
    ck_assert_str_eq(c->lines[0].args[1].value, "w2");
    ck_assert_int_eq(c->lines[0].args[1].column, 10);
    ck_assert_int_eq(c->lines[0].args[2].kind, VS_ARG_WORD);
    ck_assert_str_eq(c->lines[0].args[2].value, "9=x");
    ck_assert_int_eq(c->lines[0].args[3].kind, VS_ARG_WORD);
    ck_assert_str_eq(c->lines[0].args[3].value, "a/b=c=d");
    ck_assert_int_eq(c->lines[0].args[3].line, 2);
    ck_assert_int_eq(c->lines[0].args[3].column, 3);
    ck_assert_str_eq(c->lines[0].args[4].value, "e");
    ck_assert_int_eq(c->lines[0].args[4].column, 11);
    vs_cell_free(c);

    /* an empty quoted value is a value */
    c = parse_ok("quality source=\"\"");
    ck_assert_str_eq(c->lines[0].args[0].value, "");
    vs_cell_free(c);
}
END_TEST

START_TEST(test_comments_blank_lines)
{
    vs_cell *c = parse_ok("# a comment\n\n   \nweights   # trailing\n  envelope source=PR#12 # x");
    ck_assert_uint_eq(c->nlines, 2);
    ck_assert_str_eq(c->lines[0].verb, "weights");
    ck_assert_uint_eq(c->lines[0].nargs, 0);
    ck_assert_int_eq(c->lines[0].line, 4);
    ck_assert_str_eq(c->lines[1].verb, "envelope");
    ck_assert_int_eq(c->lines[1].column, 3);
    ck_assert_str_eq(c->lines[1].args[0].value, "PR#12"); /* # inside a word is not a comment */
    ck_assert_uint_eq(c->lines[1].nargs, 1);
    vs_cell_free(c);
    c = parse_ok("");
    ck_assert_uint_eq(c->nlines, 0);
    vs_cell_free(c);
    c = parse_ok("quality \"# not a comment\"");
    ck_assert_str_eq(c->lines[0].args[0].value, "# not a comment");
    vs_cell_free(c);
}
END_TEST

START_TEST(test_continuation)
{
    vs_cell *c = parse_ok("estimate kv \\\n  layers=32 \\\r\n kv_heads=8\nweights");
    ck_assert_uint_eq(c->nlines, 2);
    ck_assert_uint_eq(c->lines[0].nargs, 3);
    ck_assert_str_eq(c->lines[0].args[2].key, "kv_heads");
    ck_assert_int_eq(c->lines[0].args[2].line, 3);
    ck_assert_int_eq(c->lines[0].args[2].column, 2);
    ck_assert_int_eq(c->lines[1].line, 4);
    vs_cell_free(c);
    /* a backslash inside a comment continues nothing */
    c = parse_ok("weights # note \\\nenvelope");
    ck_assert_uint_eq(c->nlines, 2);
    vs_cell_free(c);
    /* continuation inside a string joins without a newline; strings may span lines */
    c = parse_ok("quality \"a\\\nb\" x\ndecide \"one\ntwo\"");
    ck_assert_str_eq(c->lines[0].args[0].value, "ab");
    ck_assert_str_eq(c->lines[1].args[0].value, "one\ntwo");
    vs_cell_free(c);
    /* the one-pass reader takes a, b and c, then meets a string that runs past its
     * line and gives the line up: the careful reader reads it whole, the pieces
     * already written dropped, not kept twice */
    c = parse_ok("v a=b c \"one\ntwo\" d=e\nweights");
    ck_assert_uint_eq(c->nlines, 2);
    ck_assert_uint_eq(c->lines[0].nargs, 4);
    ck_assert_str_eq(c->lines[0].args[0].key, "a");
    ck_assert_str_eq(c->lines[0].args[0].value, "b");
    ck_assert_ptr_null(c->lines[0].args[1].key);
    ck_assert_str_eq(c->lines[0].args[1].value, "c");
    ck_assert_str_eq(c->lines[0].args[2].value, "one\ntwo");
    ck_assert_str_eq(c->lines[0].args[3].key, "d");
    ck_assert_int_eq(c->lines[0].args[3].line, 2);
    ck_assert_int_eq(c->lines[1].line, 3);
    vs_cell_free(c);
    /* a trailing backslash at the very end is harmless */
    c = parse_ok("weights \\");
    ck_assert_uint_eq(c->nlines, 1);
    vs_cell_free(c);
}
END_TEST

START_TEST(test_raw_and_magic)
{
    vs_cell *c =
        parse_ok("measure phase=load timeout=60 -- python3 -c \"print('#x')\" # kept\nweights");
    ck_assert_uint_eq(c->nlines, 2);
    ck_assert_uint_eq(c->lines[0].nargs, 2);
    ck_assert_str_eq(c->lines[0].raw, "python3 -c \"print('#x')\" # kept");
    ck_assert_int_eq(c->lines[0].raw_line, 1);
    vs_cell_free(c);
    /* raw text keeps a backslash-newline for the shell */
    c = parse_ok("measure phase=x -- a \\\nb\nweights");
    ck_assert_str_eq(c->lines[0].raw, "a \\\nb");
    ck_assert_uint_eq(c->lines[1].line, 3);
    vs_cell_free(c);
    /* --x is a word, not the separator */
    c = parse_ok("help --x");
    ck_assert_ptr_null(c->lines[0].raw);
    ck_assert_str_eq(c->lines[0].args[0].value, "--x");
    vs_cell_free(c);
    c = parse_ok("%%measure phase=train timeout=5\nimport torch\n\"unbalanced\n# %% not a comment");
    ck_assert_uint_eq(c->nlines, 1);
    ck_assert_str_eq(c->lines[0].verb, "%%measure");
    ck_assert_uint_eq(c->lines[0].nargs, 2);
    ck_assert_str_eq(c->lines[0].raw, "import torch\n\"unbalanced\n# %% not a comment");
    ck_assert_int_eq(c->lines[0].raw_line, 2);
    vs_cell_free(c);
    c = parse_ok("%%measure");
    ck_assert_str_eq(c->lines[0].raw, "");
    vs_cell_free(c);
}
END_TEST

START_TEST(test_unicode_columns)
{
    /* columns count code points: "é" and "日本" are one column per character */
    vs_cell *c = parse_ok("quality \"é日本\" x=1");
    ck_assert_int_eq(c->lines[0].args[1].column, 15);
    vs_cell_free(c);
    parse_fails("quality \"é日本\" \"x", strlen("quality \"é日本\" \"x"), 1, 15, "unterminated");
}
END_TEST

START_TEST(test_error_unterminated_string)
{
    parse_fails("weights\nsheet \"abc", 18, 2, 7, "unterminated string");
    parse_fails("sheet \"abc\\\"", 12, 1, 7, "closing '\"'");
    parse_fails("sheet x=\"a", 10, 1, 9, "unterminated");
    parse_fails("sheet \"abc\\", 11, 1, 7, "unterminated");
}
END_TEST

START_TEST(test_error_bad_escape)
{
    parse_fails("sheet \"a\\qb\"", 12, 1, 9, "bad escape '\\q'");
    parse_fails("sheet \"a\\qb\"", 12, 1, 9, "expected");
}
END_TEST

START_TEST(test_error_key_without_value)
{
    parse_fails("reserve kv status=", 18, 1, 19, "'status=' has no value");
    parse_fails("reserve kv status= x", 20, 1, 19, "has no value");
    parse_fails("reserve =x", 10, 1, 9, "expected a key before '='");
}
END_TEST

START_TEST(test_error_not_a_verb)
{
    parse_fails("weights\n  \"quoted\" x", 20, 2, 3, "expected a verb");
    parse_fails("key=value", 9, 1, 1, "found the pair 'key=value'");
    parse_fails("123 x", 5, 1, 1, "expected a verb");
    parse_fails("-- ls", 5, 1, 1, "expected a verb");
    parse_fails("wei!ghts", 8, 1, 1, "expected a verb");
    parse_fails("weights\n%%measure x", 19, 2, 1, "first line");
    parse_fails("%%", 2, 1, 1, "expected a verb");
    parse_fails("%%measure x -- y", 16, 1, 13, "'--' is not allowed");
}
END_TEST

START_TEST(test_error_quotes_in_words)
{
    parse_fails("sheet ab\"c\"", 11, 1, 9, "inside a word");
    parse_fails("sheet \"ab\"c", 11, 1, 11, "expected a space after the closing");
    parse_fails("sheet k=\"ab\"c", 13, 1, 13, "expected a space after the closing");
    parse_fails("sheet k=a\"b", 11, 1, 10, "inside a word");
}
END_TEST

START_TEST(test_error_bytes)
{
    const char nul[] = "weights\nsheet a\0b";
    parse_fails(nul, sizeof nul - 1, 2, 8, "NUL byte");
    parse_fails("sheet \"\xff\"", 9, 1, 8, "invalid UTF-8");
    parse_fails("é \xc3\x28", 5, 1, 3, "invalid UTF-8");
    parse_fails("sheet \xed\xa0\x80", 9, 1, 7, "UTF-8"); /* a surrogate */
    parse_fails("sheet \xc0\xaf", 8, 1, 7, "UTF-8");     /* overlong */
    parse_fails("sheet \xe6\x97", 8, 1, 7, "UTF-8");     /* truncated */
}
END_TEST

START_TEST(test_not_nul_terminated)
{
    /* len bounds the text: what lies after it is never read */
    const char text[] = "weights \"abc\" trailing-garbage";
    vs_cell *c = NULL;
    vs_error err;
    ck_assert_int_eq(vs_parse_cell(&c, text, 13, &err), 0);
    ck_assert_uint_eq(c->lines[0].nargs, 1);
    ck_assert_str_eq(c->lines[0].args[0].value, "abc");
    vs_cell_free(c);
    vs_cell_free(NULL);
}
END_TEST

/* Every verb, key and value is a piece of one copy of the cell, ended by a
 * NUL over the byte after it: pieces that meet at a delimiter (a verb before
 * '#', a key before '=', a value before a continuation or at the very end),
 * strings written over their own quotes (escapes and joined lines make them
 * shorter, an empty one is empty), and the text handed in is left as it was. */
START_TEST(test_pieces_meet_at_delimiters)
{
    const char text[] = "reserve#c\n"
                        "gpu k=\"\" q=\"a\\\"b\\\\c\\td\" w=x\\\n"
                        "  y \"p\\\nq\" last";
    char before[sizeof text];
    vs_cell *c = NULL;
    vs_error err;
    const vs_line *l;
    memcpy(before, text, sizeof text);
    ck_assert_int_eq(vs_parse_cell(&c, text, sizeof text - 1, &err), 0);
    ck_assert_mem_eq(text, before, sizeof text); /* the input is not written */
    ck_assert_uint_eq(c->nlines, 2);
    ck_assert_str_eq(c->lines[0].verb, "reserve");
    ck_assert_uint_eq(c->lines[0].nargs, 0);
    l = &c->lines[1];
    ck_assert_str_eq(l->verb, "gpu");
    ck_assert_uint_eq(l->nargs, 6);
    ck_assert_str_eq(l->args[0].key, "k");
    ck_assert_str_eq(l->args[0].value, "");
    ck_assert_int_eq(l->args[0].quoted, 1);
    ck_assert_str_eq(l->args[1].key, "q");
    ck_assert_str_eq(l->args[1].value, "a\"b\\c\td");
    ck_assert_str_eq(l->args[2].key, "w");
    ck_assert_str_eq(l->args[2].value, "x"); /* the continuation's backslash ends it */
    ck_assert_str_eq(l->args[3].value, "y");
    ck_assert_str_eq(l->args[4].value, "pq");   /* the line joined inside the string */
    ck_assert_str_eq(l->args[5].value, "last"); /* ends at the end of the text */
    vs_cell_free(c);
}
END_TEST

START_TEST(test_random_megabyte)
{
    /* a 1 MB cell of random bytes is a clean error (or a clean parse), quickly */
    size_t n = 1 << 20, i, round;
    char *buf = malloc(n);
    unsigned seed = 12345;
    clock_t t0 = clock();
    ck_assert_ptr_nonnull(buf);
    for (round = 0; round < 3; round++) {
        vs_cell *c = NULL;
        vs_error err;
        int rc;
        for (i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            buf[i] = (char)(seed >> 16);
            if (round == 1)
                buf[i] &= 0x7f; /* ASCII only: deeper into the tokenizer */
            if (round == 2 && buf[i] == 0)
                buf[i] = '"';
        }
        rc = vs_parse_cell(&c, buf, n, &err);
        ck_assert(rc == 0 || rc == VS_ESYNTAX);
        if (rc < 0) {
            ck_assert_ptr_null(c);
            ck_assert_int_gt(err.line, 0);
            ck_assert_int_gt(err.column, 0);
        }
        vs_cell_free(c);
    }
    /* one megabyte of valid, long lines: linear time */
    for (i = 0; i < n; i++)
        buf[i] = (i % 100 == 99) ? '\n' : (i % 100 == 0) ? 'w' : (i % 7 == 0) ? ' ' : 'a';
    {
        vs_cell *c = NULL;
        vs_error err;
        ck_assert_int_eq(vs_parse_cell(&c, buf, n, &err), 0);
        ck_assert_uint_gt(c->nlines, 10000);
        vs_cell_free(c);
    }
    /* one huge string and one huge line of continuations */
    memset(buf, 'x', n);
    buf[0] = 's';
    buf[1] = ' ';
    buf[2] = '"';
    buf[n - 1] = '"';
    {
        vs_cell *c = NULL;
        vs_error err;
        ck_assert_int_eq(vs_parse_cell(&c, buf, n, &err), 0);
        ck_assert_uint_eq(strlen(c->lines[0].args[0].value), n - 4);
        vs_cell_free(c);
    }
    ck_assert_msg((double)(clock() - t0) / CLOCKS_PER_SEC < 5.0, "parsing is too slow");
    free(buf);
}
END_TEST

/* Byte faults carry their offset in the cell, beside line and column. */
START_TEST(test_error_positions)
{
    static const struct {
        const char *text;
        size_t len;
        int line, column;
        long long at;
    } cases[] = {
        {"a\0b", 3, 1, 2, 1},                /* the NUL */
        {"card\n\xc3\xa9 \xff", 9, 2, 3, 8}, /* the 0xFF after "é " */
        {"card \"abc", 9, 1, 6, 5},          /* the opening quote */
        {"card \"a\\qb\"", 11, 1, 8, 7},     /* the backslash */
        {"card a\"b", 8, 1, 7, 6},           /* the quote inside the word */
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        vs_cell *c = NULL;
        vs_error err;
        ck_assert_int_eq(vs_parse_cell(&c, cases[i].text, cases[i].len, &err), VS_ESYNTAX);
        ck_assert_msg(err.line == cases[i].line && err.column == cases[i].column &&
                          err.position == cases[i].at,
                      "case %zu: line %d, column %d, position %lld: %s", i, err.line, err.column,
                      err.position, err.message);
    }
}
END_TEST

/* Control characters in typed text are refused where they stand: ESC (a
 * terminal's escape sequences), BEL, OSC as C1 U+009D, DEL, a lone CR; tab,
 * newline and CRLF are text. Columns count code points ("é" is one). */
START_TEST(test_error_controls)
{
    vs_cell *c;
    parse_fails("sheet \"a\x1b[31mred\"", 18, 1, 9, "control character U+001B");
    parse_fails("decide x\x07", 9, 1, 9, "U+0007");
    parse_fails("sheet \"\xc3\xa9\xc2\x9d"
                "8;;http://x\x1b\\\"",
                22, 1, 9, "U+009D");
    parse_fails("card\nsheet a\x7f", 13, 2, 8, "U+007F");
    parse_fails("sheet a\rb", 9, 1, 8, "U+000D");
    parse_fails("# a comment \x1b\nsheet a", 20, 1, 13, "U+001B");
    parse_fails("measure -- echo \x1b]0;t\x07", 22, 1, 17, "U+001B");
    c = parse_ok("sheet \"a\tb\"\r\ndecide \"x\ny\"\r\n");
    ck_assert_uint_eq(c->nlines, 2);
    ck_assert_str_eq(c->lines[0].args[0].value, "a\tb");
    vs_cell_free(c);
}
END_TEST

/* The check that a cell holds no control character reads it sixteen bytes at a
 * time: one at every offset of a long line (inside a block, across its edge,
 * in the last few bytes) is found where it stands, and CRLF at every offset is
 * text. */
START_TEST(test_error_controls_every_offset)
{
    static const char *const controls[] = {"\x1b", "\x7f", "\xc2\x9d", "\r"};
    static const char *const names[] = {"U+001B", "U+007F", "U+009D", "U+000D"};
    char text[80];
    size_t off, k;
    for (k = 0; k < 4; k++) {
        for (off = 0; off < 48; off++) {
            size_t n = strlen(controls[k]);
            /* "sheet " then off letters, the control, then letters to 60 bytes */
            memset(text, 'a', sizeof text);
            memcpy(text, "sheet ", 6);
            memcpy(text + 6 + off, controls[k], n);
            text[66] = '\0';
            parse_fails(text, 66, 1, (int)(7 + off), names[k]);
        }
    }
    for (off = 1; off < 48; off++) {
        vs_cell *c;
        memset(text, 'a', sizeof text);
        memcpy(text, "sheet ", 6);
        memcpy(text + 6 + off, "\r\nsheet b", 10);
        text[6 + off + 10] = '\0';
        c = parse_ok(text);
        ck_assert_uint_eq(c->nlines, 2);
        ck_assert_uint_eq(strlen(c->lines[0].args[0].value), off);
        vs_cell_free(c);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("parse");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_runs_of_every_length);
    tcase_add_test(tc, test_many_lines_many_arguments);
    tcase_add_test(tc, test_plain_lines_read_as_the_careful_reader_does);
    tcase_add_test(tc, test_words_pairs_strings);
    tcase_add_test(tc, test_comments_blank_lines);
    tcase_add_test(tc, test_continuation);
    tcase_add_test(tc, test_raw_and_magic);
    tcase_add_test(tc, test_unicode_columns);
    tcase_add_test(tc, test_error_unterminated_string);
    tcase_add_test(tc, test_error_bad_escape);
    tcase_add_test(tc, test_error_key_without_value);
    tcase_add_test(tc, test_error_not_a_verb);
    tcase_add_test(tc, test_error_quotes_in_words);
    tcase_add_test(tc, test_error_bytes);
    tcase_add_test(tc, test_error_controls);
    tcase_add_test(tc, test_error_controls_every_offset);
    tcase_add_test(tc, test_error_positions);
    tcase_add_test(tc, test_not_nul_terminated);
    tcase_add_test(tc, test_pieces_meet_at_delimiters);
    tcase_add_test(tc, test_random_megabyte);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
