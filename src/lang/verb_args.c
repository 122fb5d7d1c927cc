/* The checks a verb runs on its line's arguments (lang/verb.h): keys it does
 * not take, a word too many, a key's number, amount or count, each error at its
 * line and column. */
#include <stdint.h>
#include <string.h>

#include "lang/parse.h"
#include "lang/verb.h"
#include "sheet/units.h"
#include "util/buf.h"

static void list_keys(vs_buf *b, const char *const *allowed)
{
    size_t i;
    if (!allowed || !allowed[0]) {
        vs_buf_puts(b, "none");
        return;
    }
    for (i = 0; allowed[i]; i++)
        vs_buf_printf(b, "%s%s=", i ? ", " : "", allowed[i]);
}

int vs_line_no_extra(const vs_line *line, size_t keep, const char *syntax, vs_error *err)
{
    const vs_arg *a = vs_line_positional(line, keep);
    if (!a)
        return 0;
    /* "24 GiB": an amount written as two words */
    if (a > line->args && !a->quoted && vs_units_space_error(err, a[-1].value, a->value) < 0) {
        err->line = a[-1].line;
        err->column = a[-1].kind == VS_ARG_PAIR ? a[-1].value_column : a[-1].column;
        return VS_EUNIT;
    }
    return vs_error_set_at(err, VS_EVALUE, a->line, a->column,
                           "unexpected argument '%s'; expected `%s`", a->value, syntax);
}

int vs_arg_error(const vs_arg *a, vs_error *err, int rc)
{
    if (rc < 0 && a && err) {
        err->line = a->line;
        err->column = a->kind == VS_ARG_PAIR ? a->value_column : a->column;
    }
    return rc;
}

int vs_line_check_keys(const vs_line *line, const char *const *allowed, vs_error *err)
{
    size_t i, j, k;
    for (i = 0; i < line->nargs; i++) {
        const vs_arg *a = &line->args[i];
        int ok = 0;
        if (a->kind != VS_ARG_PAIR)
            continue;
        for (k = 0; allowed && allowed[k] && !ok; k++)
            ok = allowed[k][0] == a->key[0] && !strcmp(allowed[k], a->key);
        if (!ok) {
            vs_buf b = VS_BUF_INIT;
            int rc;
            list_keys(&b, allowed);
            rc = vs_error_set_at(err, VS_EVALUE, a->line, a->column,
                                 "unknown key '%s=' for `%s`; expected one of: %s", a->key,
                                 line->verb, vs_buf_str(&b));
            vs_buf_free(&b);
            return rc;
        }
        for (j = 0; j < i; j++)
            if (line->args[j].kind == VS_ARG_PAIR && !strcmp(line->args[j].key, a->key))
                return vs_error_set_at(err, VS_EVALUE, a->line, a->column,
                                       "key '%s=' is given twice; expected it once", a->key);
    }
    return 0;
}

int vs_line_take_keys(const vs_line *line, const char *const *allowed, const vs_arg **found,
                      vs_error *err)
{
    size_t i, k, n = 0;
    while (allowed[n])
        found[n++] = NULL;
    for (i = 0; i < line->nargs; i++) {
        const vs_arg *a = &line->args[i];
        if (a->kind != VS_ARG_PAIR)
            continue;
        for (k = 0; k < n && !(allowed[k][0] == a->key[0] && !strcmp(allowed[k], a->key)); k++)
            ;
        /* an unknown key or one given twice: the error vs_line_check_keys
         * gives, word for word (it stops at this same pair) */
        if (k == n || found[k])
            return vs_line_check_keys(line, allowed, err);
        found[k] = a;
    }
    return 0;
}

typedef int (*parse_fn)(uint64_t *out, const char *text, vs_error *err);

static int get_key(const vs_line *line, const char *key, int required, uint64_t *out, int *present,
                   parse_fn fn, const char *what, vs_error *err)
{
    const vs_arg *a = vs_line_pair(line, key);
    int rc;
    if (present)
        *present = 0;
    if (!a) {
        if (required)
            return vs_error_set_at(err, VS_EVALUE, line->line, line->column, "`%s` needs %s=%s",
                                   line->verb, key, what);
        return 0;
    }
    rc = fn(out, a->value, err);
    if (rc < 0 && fn == vs_units_parse_bytes && a + 1 < line->args + line->nargs &&
        a[1].kind == VS_ARG_WORD && !a[1].quoted)
        vs_units_space_error(err, a->value, a[1].value); /* "memory=24 GiB" */
    if (rc < 0) {
        vs_error_prefix(err, "%s=: ", key);
        err->line = a->line;
        err->column = a->value_column;
        return rc;
    }
    if (present)
        *present = 1;
    return 0;
}

int vs_line_get_uint(const vs_line *line, const char *key, int required, uint64_t *out,
                     int *present, vs_error *err)
{
    return get_key(line, key, required, out, present, vs_units_parse_uint, "N (a whole number)",
                   err);
}

int vs_line_get_bytes(const vs_line *line, const char *key, int required, uint64_t *out,
                      int *present, vs_error *err)
{
    return get_key(line, key, required, out, present, vs_units_parse_bytes,
                   "AMOUNT with a unit (24GB, 6GiB)", err);
}

int vs_line_get_count(const vs_line *line, const char *key, int required, uint64_t *out,
                      int *present, vs_error *err)
{
    return get_key(line, key, required, out, present, vs_units_parse_count,
                   "COUNT (7e9, 6.74B, 70M)", err);
}
