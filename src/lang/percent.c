/* A notebook as a percent script, and back (percent.h). */
#include "lang/percent.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/utf8.h"

/* jupytext/header.py: the first line of a script whose cells are not all ASCII */
#define CODING "# -*- coding: utf-8 -*-\n"

static int add_cell(vs_percent_cells *out, vs_percent_kind kind, const char *src, size_t len,
                    int line)
{
    vs_percent_cell *cells = realloc(out->cells, (out->n + 1) * sizeof *cells);
    char *copy;
    if (!cells)
        return VS_ENOMEM;
    out->cells = cells;
    if (!(copy = malloc(len + 1)))
        return VS_ENOMEM;
    if (len)
        memcpy(copy, src, len);
    copy[len] = '\0';
    cells[out->n].kind = kind;
    cells[out->n].source = copy;
    cells[out->n].len = len;
    cells[out->n].line = line;
    out->n++;
    return 0;
}

void vs_percent_cells_free(vs_percent_cells *c)
{
    size_t i;
    if (!c)
        return;
    for (i = 0; i < c->n; i++)
        free(c->cells[i].source);
    free(c->cells);
    c->cells = NULL;
    c->n = 0;
}

/* 1 when the line (len bytes, a trailing '\r' ignored) opens a cell: `# %%`
 * or `#%%`, alone or followed by a space; *kind from its [markdown], [md] or
 * [raw]. */
static int is_marker(const char *l, size_t len, vs_percent_kind *kind)
{
    size_t at;
    if (len && l[len - 1] == '\r')
        len--;
    if (len >= 4 && !memcmp(l, "# %%", 4))
        at = 4;
    else if (len >= 3 && !memcmp(l, "#%%", 3))
        at = 3;
    else
        return 0;
    if (at < len && l[at] != ' ' && l[at] != '\t')
        return 0;
    *kind = VS_PERCENT_CODE;
    for (; at < len; at++) {
        if (l[at] != '[')
            continue;
        if (len - at >= 10 && !memcmp(l + at, "[markdown]", 10))
            *kind = VS_PERCENT_MARKDOWN;
        else if (len - at >= 4 && !memcmp(l + at, "[md]", 4))
            *kind = VS_PERCENT_MARKDOWN;
        else if (len - at >= 5 && !memcmp(l + at, "[raw]", 5))
            *kind = VS_PERCENT_RAW;
        else
            continue;
        break;
    }
    return 1;
}

static int is_blank(const char *p, size_t len)
{
    size_t i;
    for (i = 0; i < len; i++)
        if (!strchr(" \t\r\n", p[i]) || !p[i])
            return 0;
    return 1;
}

/* A cell's lines as they were written: one blank line before the next marker is
 * the separator; a text cell's lines lose their "# " (or the "#" of an empty one). */
static int end_cell(vs_percent_cells *out, vs_percent_kind kind, vs_buf *lines, int separated,
                    int line)
{
    vs_buf src = VS_BUF_INIT;
    const char *p = vs_buf_str(lines), *end = p + lines->len;
    int rc;
    /* lines holds each line followed by '\n': drop the separator, then the last '\n' */
    size_t len = lines->len;
    if (separated && len >= 1 && (len == 1 || p[len - 2] == '\n') && p[len - 1] == '\n')
        len--;
    end = p + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = (size_t)(nl - p);
        int text_line = kind != VS_PERCENT_CODE && n >= 1 && p[0] == '#';
        if (text_line && n >= 2 && p[1] == ' ')
            vs_buf_append(&src, p + 2, n - 2);
        else if (!text_line || n > 1)
            vs_buf_append(&src, p, n); /* "#" alone is an empty line of text */
        if (nl + 1 < end)
            vs_buf_putc(&src, '\n');
        p = nl + 1;
    }
    rc = vs_buf_failed(&src) ? VS_ENOMEM : add_cell(out, kind, vs_buf_str(&src), src.len, line);
    vs_buf_free(&src);
    return rc;
}

int vs_percent_read(vs_percent_cells *out, const char *text, size_t len, vs_error *err)
{
    const char *p = text, *end = text + len;
    vs_buf lines = VS_BUF_INIT;
    vs_percent_kind kind = VS_PERCENT_CODE;
    int rc = 0, lineno = 1, start = 1, marked = 0;
    memset(out, 0, sizeof *out);
    if (len >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3))
        p += 3;
    /* the encoding line Jupytext writes first in a script that is not all ASCII */
    if (end - p >= (ptrdiff_t)strlen(CODING) && !memcmp(p, CODING, strlen(CODING))) {
        p += strlen(CODING);
        lineno = start = 2;
    }
    /* Jupytext's header: YAML comments between two `# ---` lines, then a blank line */
    if (end - p >= 6 && !memcmp(p, "# ---\n", 6)) {
        const char *q = p + 6, *close = NULL;
        int n = lineno;
        while (q < end) {
            const char *nl = memchr(q, '\n', (size_t)(end - q));
            size_t l = nl ? (size_t)(nl - q) : (size_t)(end - q);
            n++;
            if (l == 5 && !memcmp(q, "# ---", 5)) {
                close = nl ? nl + 1 : end;
                break;
            }
            if (l < 1 || q[0] != '#')
                break;
            q = nl ? nl + 1 : end;
        }
        if (close) {
            p = close;
            lineno = start = n + 1;
            if (p < end && *p == '\n') {
                p++;
                lineno = start = n + 2;
            }
        }
    }
    while (p < end && rc == 0) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        vs_percent_kind k;
        if (is_marker(p, n, &k)) {
            /* what came before the first marker is a cell only when it says something */
            if (marked || !is_blank(vs_buf_str(&lines), lines.len))
                rc = end_cell(out, kind, &lines, 1, start);
            vs_buf_reset(&lines);
            kind = k;
            marked = 1;
            start = lineno + 1;
        } else {
            vs_buf_append(&lines, p, n);
            vs_buf_putc(&lines, '\n');
            if (vs_buf_failed(&lines))
                rc = VS_ENOMEM;
        }
        lineno++;
        p = nl ? nl + 1 : end;
    }
    if (rc == 0 && (marked || !is_blank(vs_buf_str(&lines), lines.len)))
        rc = end_cell(out, kind, &lines, 0, start);
    vs_buf_free(&lines);
    if (rc < 0) {
        vs_percent_cells_free(out);
        return vs_error_oom(err);
    }
    return 0;
}

int vs_percent_from_notebook(vs_percent_cells *out, const json_t *nb, vs_error *err)
{
    const json_t *cells = json_object_get(nb, "cells"), *c;
    vs_buf src = VS_BUF_INIT;
    size_t i;
    int rc = 0;
    memset(out, 0, sizeof *out);
    if (!json_is_object(nb) || !json_is_array(cells))
        return vs_error_set(err, VS_EVALUE, "not a Jupyter notebook: no \"cells\" array");
    if (json_integer_value(json_object_get(nb, "nbformat")) != 4)
        return vs_error_set(err, VS_EVALUE,
                            "not an nbformat 4 notebook (\"nbformat\": 4 is missing)");
    json_array_foreach(cells, i, c)
    {
        const char *type = json_string_value(json_object_get(c, "cell_type"));
        const json_t *s = json_object_get(c, "source"), *l;
        vs_percent_kind kind;
        size_t j;
        if (type && !strcmp(type, "code"))
            kind = VS_PERCENT_CODE;
        else if (type && !strcmp(type, "markdown"))
            kind = VS_PERCENT_MARKDOWN;
        else if (type && !strcmp(type, "raw"))
            kind = VS_PERCENT_RAW;
        else {
            rc = vs_error_set(err, VS_EVALUE,
                              "notebook cell %zu: cell_type %s%s%s is not code, markdown or raw",
                              i + 1, type ? "'" : "", type ? type : "missing", type ? "'" : "");
            break;
        }
        vs_buf_reset(&src);
        if (json_is_string(s)) {
            vs_buf_append(&src, json_string_value(s), json_string_length(s));
        } else if (json_is_array(s)) {
            json_array_foreach(s, j, l)
            {
                if (!json_is_string(l)) {
                    rc = vs_error_set(err, VS_EVALUE,
                                      "notebook cell %zu: source line %zu is not a string", i + 1,
                                      j + 1);
                    break;
                }
                vs_buf_append(&src, json_string_value(l), json_string_length(l));
            }
        } else {
            rc = vs_error_set(err, VS_EVALUE,
                              "notebook cell %zu: its source is neither a string nor a list of "
                              "strings",
                              i + 1);
        }
        if (rc)
            break;
        if (vs_buf_failed(&src) || add_cell(out, kind, vs_buf_str(&src), src.len, 0) < 0) {
            rc = vs_error_oom(err);
            break;
        }
    }
    vs_buf_free(&src);
    if (rc < 0)
        vs_percent_cells_free(out);
    return rc;
}

int vs_percent_write(const vs_percent_cells *cells, vs_buf *out, vs_error *err)
{
    size_t i, j;
    for (i = 0; i < cells->n; i++)
        for (j = 0; j < cells->cells[i].len; j++)
            if ((unsigned char)cells->cells[i].source[j] >= 0x80) {
                vs_buf_puts(out, CODING);
                i = cells->n;
                break;
            }
    for (i = 0; i < cells->n; i++) {
        const vs_percent_cell *c = &cells->cells[i];
        const char *p = c->source, *end = c->source + c->len;
        size_t lineno = 1;
        vs_buf_puts(out, c->kind == VS_PERCENT_MARKDOWN ? "# %% [markdown]\n"
                         : c->kind == VS_PERCENT_RAW    ? "# %% [raw]\n"
                                                        : "# %%\n");
        /* "a\nb" is the lines a, b; "a\n" is a and an empty line; "" none */
        while (c->len) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
            vs_percent_kind k;
            /* a text line "%% x" is written "# %% x": a marker too */
            if (c->kind == VS_PERCENT_CODE
                    ? is_marker(p, n, &k)
                    : n >= 2 && p[0] == '%' && p[1] == '%' && (n == 2 || strchr(" \t\r", p[2])))
                return vs_error_set(err, VS_EVALUE,
                                    "cell %zu, line %zu: this line would be written as `# %%%%`, "
                                    "which opens a cell of its own in the script",
                                    i + 1, lineno);
            if (c->kind != VS_PERCENT_CODE)
                vs_buf_puts(out, n ? "# " : "#");
            vs_buf_append(out, p, n);
            vs_buf_putc(out, '\n');
            if (!nl)
                break;
            p = nl + 1;
            lineno++;
        }
        if (i + 1 < cells->n)
            vs_buf_putc(out, '\n');
    }
    return vs_buf_failed(out) ? vs_error_oom(err) : 0;
}

/* nbformat 4.5 wants ids of 1 to 64 of [a-zA-Z0-9-_], unique in the notebook:
 * eight hex digits of the cell's index and source (FNV-1a), the same for the
 * same notebook, bumped past one already given. */
static void cell_id(char out[9], const json_t *given, size_t index, const vs_percent_cell *c)
{
    uint32_t h = 2166136261u;
    size_t i, k;
    for (i = 0; i < sizeof index; i++)
        h = (h ^ (unsigned char)(index >> (8 * i))) * 16777619u;
    for (i = 0; i < c->len; i++)
        h = (h ^ (unsigned char)c->source[i]) * 16777619u;
    for (;;) {
        const json_t *g;
        int taken = 0;
        snprintf(out, 9, "%08x", (unsigned)h);
        json_array_foreach((json_t *)given, k, g)
        {
            if (!strcmp(json_string_value(json_object_get(g, "id")), out))
                taken = 1;
        }
        if (!taken)
            return;
        h++;
    }
}

int vs_percent_to_notebook(json_t **out, const vs_percent_cells *cells, const json_t *lang,
                           vs_error *err)
{
    json_t *nb = NULL, *arr = json_array(), *meta;
    size_t i;
    *out = NULL;
    if (!arr)
        return vs_error_oom(err);
    for (i = 0; i < cells->n; i++) {
        const vs_percent_cell *c = &cells->cells[i];
        json_t *cell, *src = json_array();
        const char *p = c->source, *end = c->source + c->len;
        char id[9];
        if (!vs_utf8_valid(c->source, c->len)) {
            json_decref(src);
            json_decref(arr);
            return vs_error_set_at(err, VS_EVALUE, c->line, 0,
                                   "cell %zu (line %d) is not UTF-8 text without NUL bytes: a "
                                   "notebook holds only text",
                                   i + 1, c->line);
        }
        /* nbformat's lines: each keeps its '\n', the last may have none */
        while (src && p < end) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
            if (json_array_append_new(src, json_stringn(p, n)) < 0)
                src = (json_decref(src), NULL);
            p += n;
        }
        cell_id(id, arr, i, c);
        if (c->kind == VS_PERCENT_CODE)
            cell = json_pack("{s:s, s:n, s:s, s:{}, s:[], s:o*}", "cell_type", "code",
                             "execution_count", "id", id, "metadata", "outputs", "source", src);
        else
            cell = json_pack("{s:s, s:s, s:{}, s:o*}", "cell_type",
                             c->kind == VS_PERCENT_MARKDOWN ? "markdown" : "raw", "id", id,
                             "metadata", "source", src);
        if (!src || !cell || json_array_append_new(arr, cell) < 0) {
            if (!src)
                json_decref(cell);
            json_decref(arr);
            return vs_error_oom(err);
        }
    }
    meta = json_pack("{s:{s:s, s:s, s:s}}", "kernelspec", "display_name", "vramsheet", "language",
                     "vramsheet", "name", "vramsheet");
    if (meta && lang)
        json_object_set(meta, "language_info", (json_t *)lang);
    if (!meta) {
        json_decref(arr);
        return vs_error_oom(err);
    }
    nb = json_pack("{s:o, s:o, s:i, s:i}", "cells", arr, "metadata", meta, "nbformat", 4,
                   "nbformat_minor", 5);
    if (!nb)
        return vs_error_oom(err);
    *out = nb;
    return 0;
}
