/* fast_import_history.h — a random history of sheets written by git
 * fast-import (the git CLI), for the tests of what the revision index reads
 * from packs: fast-import stores each tree as a delta against the same
 * branch's previous one, up to a chain of 50 (fast-import.c's max_depth).
 *
 * Branch main gets commits that write, add or remove one to three sheets
 * (names from the caller, so that new ones sort anywhere in sheets/); a side
 * branch forks from main now and then, takes commits of its own and is merged
 * back (a merge that also writes a sheet, sometimes). */
#ifndef VS_TESTS_FAST_IMPORT_HISTORY_H
#define VS_TESTS_FAST_IMPORT_HISTORY_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

typedef void (*fi_name_fn)(char *out, size_t len, unsigned k);

static unsigned fi_rnd(unsigned *seed, unsigned n)
{
    *seed = *seed * 1103515245u + 12345u;
    return (*seed >> 8) % n;
}

/* A bare repository at path (created) holding refs/heads/main. */
static void fi_history(const char *path, unsigned seed, int steps, unsigned nsheets,
                       fi_name_fn name) __attribute__((unused));
static void fi_history(const char *path, unsigned seed, int steps, unsigned nsheets,
                       fi_name_fn name)
{
    char cmd[2400], stream[320];
    FILE *f;
    int i, mark = 0, main_mark = 0, side_mark = 0, serial = 0;
    long when = 1700000000;
    snprintf(stream, sizeof stream, "%s.stream", path);
    f = fopen(stream, "w");
    ck_assert_ptr_nonnull(f);
    for (i = 0; i < steps; i++) {
        int on_side = side_mark && fi_rnd(&seed, 3) == 0;
        int merge = !on_side && side_mark && fi_rnd(&seed, 4) == 0;
        unsigned n = merge ? fi_rnd(&seed, 2) : 1 + fi_rnd(&seed, 3), j;
        char msg[64];
        if (!side_mark && main_mark && fi_rnd(&seed, 6) == 0) {
            fprintf(f, "reset refs/heads/side\nfrom :%d\n\n", main_mark);
            side_mark = main_mark;
        }
        snprintf(msg, sizeof msg, "change %d", i);
        fprintf(f, "commit refs/heads/%s\nmark :%d\n", on_side ? "side" : "main", ++mark);
        when += 1 + fi_rnd(&seed, 100);
        fprintf(f, "committer T <t@example.org> %ld +0000\ndata %zu\n%s\n", when, strlen(msg), msg);
        if (merge)
            fprintf(f, "merge :%d\n", side_mark);
        for (j = 0; j < n; j++) {
            char id[32], text[64];
            name(id, sizeof id, i == 0 ? j : fi_rnd(&seed, nsheets));
            if (i > 0 && fi_rnd(&seed, 8) == 0) {
                fprintf(f, "D sheets/%s\n", id);
                continue;
            }
            snprintf(text, sizeof text, "{\"v\": %d}\n", ++serial);
            fprintf(f, "M 100644 inline sheets/%s/sheet.json\ndata %zu\n%s\n", id, strlen(text),
                    text);
        }
        fprintf(f, "\n");
        if (merge)
            side_mark = 0; /* merged: a later fork starts anew */
        if (on_side)
            side_mark = mark;
        else
            main_mark = mark;
    }
    ck_assert_int_eq(fclose(f), 0);
    snprintf(cmd, sizeof cmd,
             "git init -q --bare -b main '%s' && git -C '%s' fast-import --quiet < '%s' && rm '%s'",
             path, path, stream, stream);
    ck_assert_int_eq(system(cmd), 0);
}

#endif
