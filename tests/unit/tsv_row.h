/* tsv_row.h — one row of the tab-separated tables of published figures
 * (tests/data/...), split in place, for the tests and benchmarks that read
 * them. */
#ifndef VS_TESTS_TSV_ROW_H
#define VS_TESTS_TSV_ROW_H

#include <string.h>

/* Drops line's newline, then splits it in place at tabs into at most max
 * columns (the last keeps any further tabs); returns how many. */
static int vs_tsv_split(char *line, char **col, int max) __attribute__((unused));
static int vs_tsv_split(char *line, char **col, int max)
{
    char *p = line, *tab;
    int n = 0;
    line[strcspn(line, "\n")] = '\0';
    while (n < max) {
        col[n++] = p;
        if (!(tab = strchr(p, '\t')))
            break;
        *tab = '\0';
        p = tab + 1;
    }
    return n;
}

#endif
