/* percent.h — a notebook as a script in the percent format, and back.
 *
 * The percent format is Jupytext's (jupytext/cell_to_text.py and
 * cell_reader.py, https://jupytext.readthedocs.io/en/latest/formats-scripts.html):
 * every cell opens with a line `# %%`, followed by `[markdown]` (or `[md]`)
 * for a text cell and `[raw]` for a raw one, with an optional title before
 * and metadata after (read past, never written); a code cell's lines follow as
 * they are, a text cell's are commented (`# ` before each line, `#` alone for
 * an empty one); one blank line separates a cell from the next marker. A
 * Jupytext header (a `# ---` ... `# ---` block of YAML comments before the
 * first cell) is read past, and so is the line `# -*- coding: utf-8 -*-` that
 * Jupytext writes first when a cell is not all ASCII (and that is written
 * here the same way). Lines before the first marker are a code cell.
 *
 * Written this way, a notebook converted to a script and back has the same
 * cells, in the same order, with the same types and the same sources, byte
 * for byte (outputs, execution counts and cell metadata are not kept, as in
 * Jupytext's scripts). The notebook written is nbformat 4.5: each cell has an
 * id, the kernelspec and language_info are vramsheet's.
 *
 * Pure: text and JSON in, text and JSON out; the caller reads and writes files.
 */
#ifndef VS_LANG_PERCENT_H
#define VS_LANG_PERCENT_H

#include <jansson.h>
#include <stddef.h>

#include "util/buf.h"
#include "util/error.h"

/* The cell kinds of nbformat 4. */
typedef enum { VS_PERCENT_CODE, VS_PERCENT_MARKDOWN, VS_PERCENT_RAW } vs_percent_kind;

typedef struct vs_percent_cell {
    vs_percent_kind kind;
    char *source; /* NUL-terminated; may hold NUL bytes up to len */
    size_t len;
    int line; /* 1-based line of the cell's first line in the script; 0 from a notebook */
} vs_percent_cell;

typedef struct vs_percent_cells {
    vs_percent_cell *cells;
    size_t n;
} vs_percent_cells;

/* Splits a percent script (len bytes; a UTF-8 byte-order mark at the start is
 * skipped) into out's cells, text cells uncommented. Returns 0 or VS_ENOMEM;
 * out is empty on error. */
int vs_percent_read(vs_percent_cells *out, const char *text, size_t len, vs_error *err);

/* The cells of an nbformat 4 notebook (its "cells": each a cell_type of code,
 * markdown or raw, and a source, a string or a list of strings). VS_EVALUE
 * naming the cell that is not so. */
int vs_percent_from_notebook(vs_percent_cells *out, const json_t *nb, vs_error *err);

void vs_percent_cells_free(vs_percent_cells *c);

/* Appends cells as a percent script to out. VS_EVALUE when a code cell holds
 * a line that would open a cell of its own (`# %%`), naming the cell and the
 * line; VS_ENOMEM. */
int vs_percent_write(const vs_percent_cells *cells, vs_buf *out, vs_error *err);

/* cells as an nbformat 4.5 notebook in *out (a new object) with language_info
 * lang (borrowed; NULL for none). VS_EVALUE for a cell that is not UTF-8 text
 * (naming it and its line in the script), VS_ENOMEM. */
int vs_percent_to_notebook(json_t **out, const vs_percent_cells *cells, const json_t *lang,
                           vs_error *err);

#endif
