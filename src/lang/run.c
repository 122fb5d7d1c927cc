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
#include "util/buf.h"
#include "util/error.h"

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

/* The whole file at path into out: 0, VS_EIO when it cannot be opened or
 * read ("cannot read 'PATH': REASON"), or VS_ENOMEM; err says which. */
static int read_file(const char *path, vs_buf *out, vs_error *err)
{
    FILE *f = fopen(path, "rb");
    char chunk[65536];
    size_t n;
    int rc = 0;
    if (!f)
        return vs_error_set(err, VS_EIO, "cannot read '%s': %s", path, strerror(errno));
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0 && !vs_buf_failed(out))
        vs_buf_append(out, chunk, n);
    if (ferror(f))
        rc = vs_error_set(err, VS_EIO, "cannot read '%s': %s", path, strerror(errno));
    else if (vs_buf_failed(out))
        rc = vs_error_oom(err);
    fclose(f);
    return rc;
}

static int is_separator(const char *line, size_t len)
{
    return len >= 4 && !strncmp(line, "# %%", 4);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: vramsheet run FILE\n\n"
               "Evaluates FILE, a script of vramsheet cells, with one interpreter, as a\n"
               "notebook would: cells are separated by lines starting with `# %%%%`, and\n"
               "run in order. Every result prints as text to stdout. At the first failing\n"
               "cell, `cell N, ename: evalue` goes to stderr and the exit status is 1.\n"
               "The records repository is VRAMSHEET_RECORDS, else the per-user default.\n\n"
               "exit status: 0 all cells ran, 1 a cell failed, 2 usage or unreadable file\n");
}

int vs_cli_run(int argc, char **argv)
{
    vs_buf text = VS_BUF_INIT, cell = VS_BUF_INIT;
    vs_interp *ip = NULL;
    vs_sink sink;
    const char *path = NULL, *p, *end;
    int i, status = 0, cellno = 0, has_code = 0;
    struct sigaction sa;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
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
    if (!path) {
        usage(stderr);
        return 2;
    }
    {
        vs_error err;
        int rc = read_file(path, &text, &err);
        if (rc < 0) {
            /* an unreadable file is a usage error; short memory is the
             * interpreter's failure, as below */
            fprintf(stderr, "vramsheet run: %s\n", err.message);
            vs_buf_free(&text);
            return rc == VS_ENOMEM ? 1 : 2;
        }
    }
    ip = vs_interp_new(NULL);
    if (!ip) {
        fprintf(stderr, "vramsheet run: out of memory\n");
        vs_buf_free(&text);
        return 1;
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

    p = vs_buf_str(&text);
    end = p + text.len;
    for (;;) {
        const char *nl = p < end ? memchr(p, '\n', (size_t)(end - p)) : NULL;
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        int last = p >= end || !nl;
        int sep = p < end && is_separator(p, len);
        if (!sep && p < end) {
            vs_buf_append(&cell, p, len);
            vs_buf_putc(&cell, '\n');
            if (len)
                has_code = 1;
        }
        if (sep || last) {
            if (has_code) {
                vs_bundle *result = NULL;
                vs_error err;
                cellno++;
                if (vs_buf_failed(&cell)) {
                    fprintf(stderr, "vramsheet run: out of memory\n");
                    status = 1;
                    break;
                }
                /* the text may hold NUL bytes; the parser reports them */
                if (memchr(vs_buf_str(&cell), '\0', cell.len)) {
                    fprintf(stderr, "cell %d, SyntaxError: unexpected NUL byte\n", cellno);
                    status = 1;
                    break;
                }
                if (vs_interp_execute(ip, vs_buf_str(&cell), &sink, &result, &err) < 0) {
                    char ev[VS_ERROR_MESSAGE_MAX + 64];
                    vs_error_evalue(&err, ev, sizeof ev);
                    fflush(stdout);
                    fprintf(stderr, "cell %d, %s: %s\n", cellno, vs_error_ename(err.code), ev);
                    status = 1;
                    break;
                }
                if (result)
                    print_bundle(result);
                vs_bundle_free(result);
            }
            vs_buf_reset(&cell);
            has_code = 0;
        }
        if (last)
            break;
        p = nl + 1;
    }
    vs_buf_free(&cell);
    vs_buf_free(&text);
    vs_interp_free(ip);
    return status;
}
