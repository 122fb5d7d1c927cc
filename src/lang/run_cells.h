/* run_cells.h — the cells of a file for `vramsheet run`, in either form a person
 * keeps them: a script in the percent format (jupytext's, which editors share:
 * `# %%` opens a code cell, `# %% [markdown]` a text cell whose lines are
 * comments), or a Jupyter notebook (.ipynb, nbformat 4: its code cells' source, as
 * a string or a list of lines). Pure: the caller reads the file.
 */
#ifndef VS_LANG_RUN_CELLS_H
#define VS_LANG_RUN_CELLS_H

#include <stddef.h>

#include "util/error.h"

typedef struct vs_run_cells {
    char **cells; /* each NUL-terminated (and possibly holding NUL bytes), code only */
    size_t *lens; /* each cell's length in bytes */
    size_t n;
} vs_run_cells;

/* Splits text (len bytes, may hold NUL bytes, which a cell keeps so that the
 * parser reports them) into out's cells. A notebook is recognised by its
 * content, not its name: an object with a "cells" array. A UTF-8 byte-order
 * mark at the start is skipped. Empty cells (only blank lines, or a markdown
 * cell) are dropped. Returns 0, VS_EVALUE for a notebook that is not valid
 * nbformat 4 JSON (err says where), or VS_ENOMEM. out is empty on error. */
int vs_run_cells_split(vs_run_cells *out, const char *text, size_t len, vs_error *err);
void vs_run_cells_free(vs_run_cells *c);

#endif
