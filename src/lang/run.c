/* `vramsheet run FILE`: evaluates a file of cells with one interpreter, without
 * Jupyter. Cells are separated by lines that start with `# %%` (the percent
 * format editors and jupytext use). Results print as their text/plain. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lang/interp.h"
#include "lang/run_cells.h"
#include "sheet/classify.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/file.h"

static volatile sig_atomic_t run_interrupted;

static void on_sigint(int sig)
{
    (void)sig;
    run_interrupted = 1;
}

static void print_bundle(const vs_bundle *bundle)
{
    char *text = vs_bundle_plain(bundle);
    size_t n;
    if (!text)
        return;
    n = strlen(text);
    fputs(text, stdout);
    if (n == 0 || text[n - 1] != '\n')
        fputc('\n', stdout);
    fflush(stdout);
    free(text);
}

static void sink_display(void *ctx, const vs_bundle *bundle, const char *display_id, int update)
{
    (void)ctx;
    (void)display_id;
    /* live updates (gauges) would flood a log; the final result prints anyway */
    if (update)
        return;
    print_bundle(bundle);
}

static void sink_stream(void *ctx, const char *name, const char *text, size_t len)
{
    FILE *f = name && !strcmp(name, "stderr") ? stderr : stdout;
    (void)ctx;
    fwrite(text, 1, len, f);
    fflush(f);
}

static int sink_interrupted(void *ctx)
{
    (void)ctx;
    return run_interrupted != 0;
}

static int sink_input(void *ctx, const char *prompt, int password, char **out)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    (void)ctx;
    (void)password;
    fputs(prompt ? prompt : "", stderr);
    fflush(stderr);
    n = getline(&line, &cap, stdin);
    if (n < 0) {
        free(line);
        return VS_EVALUE;
    }
    if (n > 0 && line[n - 1] == '\n')
        line[n - 1] = '\0';
    *out = line;
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: vramsheet run FILE [--check]\n\n"
               "Evaluates FILE with one interpreter, as a notebook would, cell by cell in\n"
               "order. FILE is a script in the percent format (jupytext's: a line starting\n"
               "with `# %%%%` opens a cell, `# %%%% [markdown]` a text cell, which is skipped)\n"
               "or a Jupyter notebook (.ipynb: its code cells; `vramsheet convert` makes\n"
               "one form from the other). Every result prints as text to stdout. At the\n"
               "first failing cell, `cell N, ename: evalue` goes to stderr. The records\n"
               "repository is VRAMSHEET_RECORDS, else the per-user default.\n\n"
               "  --check  after the last cell, classify the GPU offers of the sheet then\n"
               "           current (as `candidates` does) and exit with its verdict, so that\n"
               "           CI can refuse a change that no longer fits; one line per offer\n"
               "           goes to stderr\n\n"
               "exit status: 0 all cells ran, 1 a cell failed, 2 usage or unreadable file;\n"
               "with --check: 0 every offer admissible, 1 an offer is exclude, 2 an offer\n"
               "is to-confirm (or the sheet has no offer), 3 a cell failed, usage, or an\n"
               "unreadable file\n");
}

/* What `--check` answers: the candidates payload of the current sheet, read
 * back from the interpreter's own result (the same classification `candidates`
 * prints), so the exit status can never disagree with the table. */
static int check_verdicts(vs_interp *ip, const vs_sink *quiet)
{
    vs_bundle *result = NULL;
    vs_error err;
    json_t *bundle, *rows, *row;
    size_t i;
    int n_exclude = 0, n_confirm = 0, n_ok = 0, status;
    if (vs_interp_execute(ip, "candidates\n", quiet, &result, &err) < 0) {
        char ev[VS_ERROR_MESSAGE_MAX + 64];
        vs_error_evalue(&err, ev, sizeof ev);
        fprintf(stderr, "check: %s: %s\n", vs_error_ename(err.code), ev);
        return 3;
    }
    bundle = vs_bundle_to_json(result);
    vs_bundle_free(result);
    rows = json_object_get(json_object_get(bundle, VS_MIME_JSON), "rows");
    json_array_foreach(rows, i, row)
    {
        const char *gpu = json_string_value(json_object_get(row, "gpu"));
        const char *verdict = json_string_value(json_object_get(row, "verdict"));
        fprintf(stderr, "check: %s: %s\n", gpu ? gpu : "?", verdict ? verdict : "?");
        if (verdict && !strcmp(verdict, vs_verdict_name(VS_VERDICT_EXCLUDE)))
            n_exclude++;
        else if (verdict && !strcmp(verdict, vs_verdict_name(VS_VERDICT_ADMISSIBLE)))
            n_ok++;
        else
            n_confirm++;
    }
    if (json_array_size(rows) == 0)
        fprintf(stderr, "check: the sheet has no GPU offer (add one with `gpu NAME`)\n");
    status = n_exclude ? 1 : n_confirm || !n_ok ? 2 : 0;
    fprintf(stderr, "check: %d admissible, %d to-confirm, %d exclude: exit %d\n", n_ok, n_confirm,
            n_exclude, status);
    json_decref(bundle);
    return status;
}

static void sink_drop(void *ctx, const vs_bundle *bundle, const char *display_id, int update)
{
    (void)ctx;
    (void)bundle;
    (void)display_id;
    (void)update;
}

int vs_cli_run(int argc, char **argv)
{
    vs_buf text = VS_BUF_INIT;
    vs_run_cells cells = {0};
    vs_interp *ip = NULL;
    vs_sink sink, quiet;
    const char *path = NULL;
    int i, status = 0, check = 0, fail, bad_usage;
    size_t c;
    struct sigaction sa;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(argv[i], "--check")) {
            check = 1;
            continue;
        }
        if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "vramsheet run: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
        if (path) {
            fprintf(stderr, "vramsheet run: one FILE only\n");
            usage(stderr);
            return 2;
        }
        path = argv[i];
    }
    /* with --check, 1 and 2 are verdicts: every failure of the run itself is 3 */
    fail = check ? 3 : 1;
    bad_usage = check ? 3 : 2;
    if (!path) {
        usage(stderr);
        return bad_usage;
    }
    {
        vs_error err;
        int rc = vs_file_read_all(path, 0, &text, &err);
        if (rc == 0)
            rc = vs_run_cells_split(&cells, vs_buf_str(&text), text.len, &err);
        vs_buf_free(&text);
        if (rc < 0) {
            /* an unreadable file is a usage error; short memory is the
             * interpreter's failure, as below */
            fprintf(stderr, "vramsheet run: %s%s%s\n", rc == VS_EVALUE ? path : "",
                    rc == VS_EVALUE ? ": " : "", err.message);
            return rc == VS_ENOMEM ? fail : bad_usage;
        }
    }
    ip = vs_interp_new(NULL);
    if (!ip) {
        fprintf(stderr, "vramsheet run: out of memory\n");
        vs_run_cells_free(&cells);
        return fail;
    }
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    memset(&sink, 0, sizeof sink);
    sink.display = sink_display;
    sink.stream = sink_stream;
    sink.interrupted = sink_interrupted;
    sink.input = sink_input;

    for (c = 0; c < cells.n; c++) {
        vs_bundle *result = NULL;
        vs_error err;
        /* the text may hold NUL bytes; the parser would stop at the first */
        if (memchr(cells.cells[c], '\0', cells.lens[c])) {
            fprintf(stderr, "cell %zu, SyntaxError: unexpected NUL byte\n", c + 1);
            status = fail;
            break;
        }
        if (vs_interp_execute(ip, cells.cells[c], &sink, &result, &err) < 0) {
            char ev[VS_ERROR_MESSAGE_MAX + 64];
            vs_error_evalue(&err, ev, sizeof ev);
            fflush(stdout);
            fprintf(stderr, "cell %zu, %s: %s\n", c + 1, vs_error_ename(err.code), ev);
            status = fail;
            break;
        }
        if (result)
            print_bundle(result);
        vs_bundle_free(result);
    }
    if (check && status == 0) {
        fflush(stdout);
        quiet = sink;
        quiet.display = sink_drop;
        status = check_verdicts(ip, &quiet);
    }
    vs_run_cells_free(&cells);
    vs_interp_free(ip);
    return status;
}
