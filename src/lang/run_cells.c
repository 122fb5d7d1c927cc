/* The cells of a `vramsheet run` file: percent-format script or .ipynb. */
#include "lang/run_cells.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "lang/percent.h"
#include "util/buf.h"

static int push_cell(vs_run_cells *out, vs_buf *cell)
{
    char **cells;
    size_t *lens;
    char *copy;
    size_t i, blank = 1;
    for (i = 0; i < cell->len; i++)
        if (!strchr(" \t\r\n", vs_buf_str(cell)[i]))
            blank = 0;
    if (blank)
        return 0;
    cells = realloc(out->cells, (out->n + 1) * sizeof *cells);
    if (!cells)
        return VS_ENOMEM;
    out->cells = cells;
    lens = realloc(out->lens, (out->n + 1) * sizeof *lens);
    if (!lens)
        return VS_ENOMEM;
    out->lens = lens;
    copy = malloc(cell->len + 1);
    if (!copy)
        return VS_ENOMEM;
    memcpy(copy, vs_buf_str(cell), cell->len);
    copy[cell->len] = '\0';
    out->cells[out->n] = copy;
    out->lens[out->n] = cell->len;
    out->n++;
    return 0;
}

/* The percent format as lang/percent.h reads it (the text cells are not
 * evaluated), so that `run` and `vramsheet convert` split a script alike. */
static int split_percent(vs_run_cells *out, const char *p, const char *end, vs_error *err)
{
    vs_percent_cells pc;
    vs_buf cell = VS_BUF_INIT;
    size_t i;
    int rc = vs_percent_read(&pc, p, (size_t)(end - p), err);
    for (i = 0; rc == 0 && i < pc.n; i++) {
        if (pc.cells[i].kind != VS_PERCENT_CODE)
            continue;
        vs_buf_reset(&cell);
        vs_buf_append(&cell, pc.cells[i].source, pc.cells[i].len);
        vs_buf_putc(&cell, '\n');
        if (vs_buf_failed(&cell) || push_cell(out, &cell) < 0)
            rc = vs_error_oom(err);
    }
    vs_percent_cells_free(&pc);
    vs_buf_free(&cell);
    return rc;
}

/* nbformat 4: {"cells": [{"cell_type": "code", "source": "..." | ["...", ...]}, ...]} */
static int split_notebook(vs_run_cells *out, json_t *nb, vs_error *err)
{
    json_t *cells = json_object_get(nb, "cells"), *c;
    size_t i;
    vs_buf cell = VS_BUF_INIT;
    int rc = 0;
    if (!json_is_array(cells))
        return vs_error_set(err, VS_EVALUE, "not a Jupyter notebook: no \"cells\" array");
    json_array_foreach(cells, i, c)
    {
        json_t *type = json_object_get(c, "cell_type"), *src = json_object_get(c, "source"), *l;
        size_t j;
        if (!json_is_string(type) || (!json_is_string(src) && !json_is_array(src))) {
            rc = vs_error_set(err, VS_EVALUE,
                              "notebook cell %zu: a cell needs a cell_type and a source", i + 1);
            break;
        }
        if (strcmp(json_string_value(type), "code"))
            continue;
        vs_buf_reset(&cell);
        if (json_is_string(src))
            vs_buf_append(&cell, json_string_value(src), json_string_length(src));
        else
            json_array_foreach(src, j, l)
            {
                if (!json_is_string(l)) {
                    rc = vs_error_set(err, VS_EVALUE,
                                      "notebook cell %zu: source line %zu is not a string", i + 1,
                                      j + 1);
                    break;
                }
                vs_buf_append(&cell, json_string_value(l), json_string_length(l));
            }
        if (rc)
            break;
        if (cell.len && vs_buf_str(&cell)[cell.len - 1] != '\n')
            vs_buf_putc(&cell, '\n');
        if (vs_buf_failed(&cell) || push_cell(out, &cell) < 0) {
            rc = vs_error_oom(err);
            break;
        }
    }
    vs_buf_free(&cell);
    return rc;
}

int vs_run_cells_split(vs_run_cells *out, const char *text, size_t len, vs_error *err)
{
    const char *p = text, *end = text + len;
    int rc;
    memset(out, 0, sizeof *out);
    if (len >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3))
        p += 3;
    while (p < end && strchr(" \t\r\n", *p) && *p)
        p++;
    if (p < end && *p == '{') {
        json_error_t jerr;
        json_t *nb = json_loadb(p, (size_t)(end - p), 0, &jerr);
        if (!nb)
            rc = vs_error_set(err, VS_EVALUE, "not a valid notebook: line %d, column %d: %s",
                              jerr.line, jerr.column, jerr.text);
        else
            rc = split_notebook(out, nb, err);
        json_decref(nb);
    } else {
        rc = split_percent(out, text, end, err);
    }
    if (rc < 0)
        vs_run_cells_free(out);
    return rc;
}

void vs_run_cells_free(vs_run_cells *c)
{
    size_t i;
    if (!c)
        return;
    for (i = 0; i < c->n; i++)
        free(c->cells[i]);
    free(c->cells);
    free(c->lens);
    memset(c, 0, sizeof *c);
}
