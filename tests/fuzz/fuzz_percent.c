/* fuzz_percent — libFuzzer target: lang/percent on arbitrary bytes. Whatever a
 * script reads as, writing those cells and reading them again gives the same
 * cells (kinds and sources, byte for byte), and so does a notebook made of
 * them read back; a write may refuse (a line that would open a cell), never
 * crash. Build with CC=clang cmake -DVS_FUZZ=ON; run:
 * ./fuzz_percent tests/fuzz/corpus_percent */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lang/percent.h"

static void same_cells(const vs_percent_cells *a, const vs_percent_cells *b)
{
    size_t i;
    if (a->n != b->n)
        abort();
    for (i = 0; i < a->n; i++)
        if (a->cells[i].kind != b->cells[i].kind || a->cells[i].len != b->cells[i].len ||
            memcmp(a->cells[i].source, b->cells[i].source, a->cells[i].len))
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vs_percent_cells cells, again;
    vs_buf text = VS_BUF_INIT;
    vs_error err;
    json_t *nb = NULL;
    if (vs_percent_read(&cells, (const char *)data, size, &err) < 0)
        return 0;
    if (vs_percent_write(&cells, &text, &err) == 0) {
        if (vs_percent_read(&again, vs_buf_str(&text), text.len, &err) < 0)
            abort();
        same_cells(&cells, &again);
        vs_percent_cells_free(&again);
    }
    if (vs_percent_to_notebook(&nb, &cells, NULL, &err) == 0) {
        if (vs_percent_from_notebook(&again, nb, &err) < 0)
            abort();
        same_cells(&cells, &again);
        vs_percent_cells_free(&again);
    }
    json_decref(nb);
    vs_buf_free(&text);
    vs_percent_cells_free(&cells);
    return 0;
}
