/* `vramsheet log` and `vramsheet show`: the records from a shell, without Jupyter. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "cli.h"
#include "render/markdown.h"
#include "render/records.h"
#include "sheet/sheet.h"
#include "store/store.h"
#include "store/store_sheet.h"
#include "util/clock.h"
#include "util/pool.h"

static const char log_help[] =
    "usage: vramsheet log [SHEET] [--records PATH] [-n N] [--json]\n"
    "\n"
    "Lists the revisions of the records repository, newest first: every commit of its\n"
    "branch, or with SHEET only the commits that changed sheets/SHEET/. One line per\n"
    "commit: the full commit id, the committer time (ISO 8601) and the message's first\n"
    "line.\n"
    "\n"
    "  --records PATH  the records repository (default: VRAMSHEET_RECORDS, else\n"
    "                  $XDG_DATA_HOME/vramsheet/records, else\n"
    "                  ~/.local/share/vramsheet/records)\n"
    "  -n N            at most N revisions\n"
    "  --json          one JSON object {\"kind\": \"history\", \"sheet\", \"revisions\":\n"
    "                  [{\"commit\", \"message\", \"time\"}]} instead of lines\n"
    "\n"
    "\n"
    "A sheet's revisions are read from the revision index kept beside the repository\n"
    "(.git/vramsheet/), brought up to the branch tip first: only the revisions listed\n"
    "are read. In a shallow clone the history stops at the clone's boundary, and\n"
    "says so on stderr.\n"
    "\n"
    "Exit status: 0 listed (possibly nothing), 1 the records could not be read, 2 usage.\n";

static const char show_help[] =
    "usage: vramsheet show SHEET[@REV] [--records PATH] [--json]\n"
    "\n"
    "Prints a recorded sheet as it is stored: sheets/SHEET/sheet.md (for people) or,\n"
    "with --json, sheets/SHEET/sheet.json (the canonical record), byte for byte. REV is\n"
    "~N, N revisions back in that sheet's own history (the commits that changed\n"
    "sheets/SHEET/: SHEET@~0 its latest, SHEET@~1 the one before), or git's own:\n"
    "HEAD~N (N commits back on the branch, of any sheet), a commit id or prefix, a\n"
    "branch; the branch tip when omitted.\n"
    "\n"
    "  --records PATH  the records repository (default: VRAMSHEET_RECORDS, else\n"
    "                  $XDG_DATA_HOME/vramsheet/records, else\n"
    "                  ~/.local/share/vramsheet/records)\n"
    "  --json          print sheet.json instead of sheet.md\n"
    "\n"
    "The record is checked first, as `show` in a kernel checks it: one that is not a\n"
    "valid sheet is refused with the reason (line and column), and nothing is printed.\n"
    "sheet.md is printed only when it is the page of that sheet.json; a page edited\n"
    "by hand or written from other JSON is stale: the page rendered from sheet.json is\n"
    "printed instead, and the exit status is 3.\n"
    "\n"
    "Exit status: 0 printed, 1 no such sheet or revision, an invalid record, or the\n"
    "records could not be read, 2 usage, 3 printed from sheet.json because the stored\n"
    "sheet.md is stale.\n";

/* The records path in force, by the kernel's rule (store.h). Returns a malloc'd string. */
static char *records_path(const char *given)
{
    return given ? strdup(given) : vs_store_default_path();
}

static int usage_error(const char *cmd, const char *msg, const char *help)
{
    fprintf(stderr, "vramsheet %s: %s\n\n%s", cmd, msg, help);
    return 2;
}

int vs_cli_log(int argc, char **argv)
{
    const char *sheet = NULL, *given = NULL;
    long limit = 0;
    int json = 0, i, rc = 1;
    char *path = NULL;
    vs_store *st = NULL;
    vs_store_revisions h = {0};
    vs_error err;
    size_t k;
    vs_error_clear(&err);
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(log_help, stdout);
            return 0;
        } else if (!strcmp(argv[i], "--records") && i + 1 < argc) {
            given = argv[++i];
        } else if (!strcmp(argv[i], "-n") && i + 1 < argc) {
            char *end;
            limit = strtol(argv[++i], &end, 10);
            if (*end || limit <= 0)
                return usage_error("log", "-n takes a positive number", log_help);
        } else if (!strcmp(argv[i], "--json")) {
            json = 1;
        } else if (argv[i][0] == '-' || sheet) {
            char m[300];
            snprintf(m, sizeof m, "unexpected argument '%s'", argv[i]);
            return usage_error("log", m, log_help);
        } else {
            sheet = argv[i];
        }
    }
    if (sheet && !vs_sheet_id_valid(sheet))
        return usage_error("log", "SHEET must be a sheet id (lowercase letters, digits, '-')",
                           log_help);
    if (!(path = records_path(given))) {
        fprintf(stderr, "vramsheet log: out of memory\n");
        return 1;
    }
    if (vs_store_open(&st, path, &err) < 0)
        goto done;
    if (*vs_store_notice(st))
        fprintf(stderr, "vramsheet log: %s\n", vs_store_notice(st));
    if (vs_store_history(st, sheet, (size_t)limit, &h, &err) < 0)
        goto done;
    if (sheet && h.n == 0) {
        /* a sheet the records never held: a typo, or other records */
        vs_error_set(&err, VS_ENOTFOUND,
                     "no sheet '%s' in the records %s (`vramsheet log` lists every commit)", sheet,
                     vs_store_path(st));
        goto done;
    }
    if (json) {
        vs_records_revision *revs = calloc(h.n ? h.n : 1, sizeof *revs);
        json_t *out = NULL;
        char *s;
        for (k = 0; revs && k < h.n; k++) {
            revs[k].commit = h.revs[k].commit;
            revs[k].message = h.revs[k].message;
            revs[k].time = h.revs[k].time;
            revs[k].offset = h.revs[k].offset;
        }
        if (revs)
            out = vs_records_log_payload(sheet, path, revs, h.n);
        free(revs);
        s = out ? json_dumps(out, JSON_INDENT(2)) : NULL;
        json_decref(out);
        if (!s) {
            vs_error_set(&err, VS_ENOMEM, "out of memory");
            goto done;
        }
        printf("%s\n", s);
        vs_pool_json_free(s);
    } else {
        for (k = 0; k < h.n; k++) {
            char when[80];
            vs_clock_iso_offset(when, sizeof when, h.revs[k].time, h.revs[k].offset);
            printf("%s %s %.*s\n", h.revs[k].commit, when, (int)strcspn(h.revs[k].message, "\n"),
                   h.revs[k].message);
        }
    }
    if (*h.truncated && (!limit || h.n < (size_t)limit))
        fprintf(stderr,
                "vramsheet log: the records are a shallow clone: this history stops at %.12s, "
                "the clone's boundary (`git -C %s fetch --unshallow` fetches the rest)\n",
                h.truncated, vs_store_path(st));
    rc = 0;
done:
    if (rc)
        fprintf(stderr, "vramsheet log: %s\n", err.message);
    vs_store_revisions_clear(&h);
    vs_store_free(st);
    free(path);
    return rc;
}

int vs_cli_show(int argc, char **argv)
{
    const char *spec = NULL, *given = NULL, *rev = NULL;
    int json = 0, i, rc = 1;
    char id[VS_SHEET_ID_MAX], *path = NULL;
    vs_store *st = NULL;
    vs_store_blob blob = {0}, page = {0};
    json_t *sheet = NULL;
    char *md = NULL;
    vs_error err;
    vs_error_clear(&err);
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(show_help, stdout);
            return 0;
        } else if (!strcmp(argv[i], "--records") && i + 1 < argc) {
            given = argv[++i];
        } else if (!strcmp(argv[i], "--json")) {
            json = 1;
        } else if (argv[i][0] == '-' || spec) {
            char m[300];
            snprintf(m, sizeof m, "unexpected argument '%s'", argv[i]);
            return usage_error("show", m, show_help);
        } else {
            spec = argv[i];
        }
    }
    if (!spec)
        return usage_error("show", "which sheet? give SHEET or SHEET@REV", show_help);
    if (vs_store_parse_spec(spec, id, sizeof id, &rev, &err) < 0)
        return usage_error("show", err.message, show_help);
    if (!(path = records_path(given))) {
        fprintf(stderr, "vramsheet show: out of memory\n");
        return 1;
    }
    if (vs_store_open(&st, path, &err) < 0)
        goto done;
    if (*vs_store_notice(st))
        fprintf(stderr, "vramsheet show: %s\n", vs_store_notice(st));
    /* the record is checked as the kernel's `show` checks it, whatever is printed */
    if (vs_store_load_sheet(st, id, rev, &sheet, &blob, &err) < 0)
        goto done;
    if (json) {
        fwrite(blob.data, 1, blob.len, stdout);
        rc = 0;
        goto done;
    }
    if (!(md = vs_markdown_sheet(sheet))) {
        vs_error_set(&err, VS_ENOMEM, "out of memory");
        goto done;
    }
    /* the page stored beside it, at the same commit */
    rc = vs_store_read(st, id, blob.commit, "sheet.md", &page, &err);
    if (rc < 0 && err.code != VS_ENOTFOUND) {
        rc = 1;
        goto done;
    }
    /* A record written without its page is shown from the JSON. A page that is
     * not the record's (edited by hand, or written from other JSON) is never
     * printed as if it were: the record's own page is, and the exit status
     * says the stored one is stale. */
    fwrite(md, 1, strlen(md), stdout);
    rc = 0;
    if (page.data && (page.len != strlen(md) || memcmp(page.data, md, page.len))) {
        fprintf(stderr,
                "vramsheet show: sheets/%s/sheet.md at %.12s is not the page of its sheet.json "
                "(edited by hand, or written by another version): printed the page rendered from "
                "sheet.json instead; `vramsheet show %s --json` prints the record itself\n",
                id, blob.commit, spec);
        rc = 3;
    }
    vs_error_clear(&err);
done:
    if (rc == 1)
        fprintf(stderr, "vramsheet show: %s\n", err.message);
    json_decref(sheet);
    free(md);
    vs_store_blob_clear(&page);
    vs_store_blob_clear(&blob);
    vs_store_free(st);
    free(path);
    return rc;
}
