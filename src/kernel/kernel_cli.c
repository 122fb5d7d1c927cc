/* kernel_cli.c — the `kernel` and `install` subcommands (cli.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "kernel/conn.h"
#include "kernel/install.h"
#include "kernel/kernel.h"
#include "kernel/testcell.h"
#include "lang/interp.h"
#include "measure/runner.h"

/* ---- the interpreter as the transport sees it (ops.h): only this file knows both ---- */

static int interp_execute(void *self, const char *code, const vs_sink *sink, vs_bundle **out_result,
                          vs_error *err)
{
    return vs_interp_execute(self, code, sink, out_result, err);
}

static int interp_complete(void *self, const char *code, size_t cursor, json_t **out_matches,
                           size_t *out_start, size_t *out_end)
{
    return vs_interp_complete(self, code, cursor, out_matches, out_start, out_end);
}

static int interp_inspect(void *self, const char *code, size_t cursor, int detail,
                          json_t **out_bundle)
{
    return vs_interp_inspect(self, code, cursor, detail, out_bundle);
}

static const char *interp_is_complete(void *self, const char *code, const char **out_indent)
{
    return vs_interp_is_complete(self, code, out_indent);
}

static int interp_is_exit(void *self, const char *code)
{
    return vs_interp_is_exit(code);
}

static const char *interp_banner(void *self)
{
    return vs_interp_banner();
}

static json_t *interp_language_info(void *self)
{
    return vs_interp_language_info();
}

/* A measured command's descendant that left its group (setsid) is the kernel's
 * child now: reaped while idle, not left a zombie (measure/runner.h). */
static void interp_idle(void *self)
{
    vs_runner_reap_strays();
}

/* SIGTERM: a measured command's process group is ended at once (runner.h). */
static void interp_terminate(void *self)
{
    vs_runner_terminate();
}

static void interp_shutdown(void *self)
{
    /* nothing to release before vs_interp_free */
}

static const vs_kernel_ops interp_ops = {
    interp_execute, interp_complete,      interp_inspect, interp_is_complete, interp_is_exit,
    interp_banner,  interp_language_info, interp_idle,    interp_terminate,   interp_shutdown};

static void kernel_usage(FILE *f)
{
    fprintf(f,
            "usage: vramsheet kernel -f CONNECTION_FILE\n\n"
            "Runs vramsheet as a Jupyter kernel (messaging protocol %s) on the sockets\n"
            "named in CONNECTION_FILE, the JSON file a Jupyter client writes (tcp or ipc).\n"
            "Jupyter starts this through the kernelspec; see `vramsheet install`.\n"
            "Logs go to stderr. SIGTERM ends a running measured command, then the\n"
            "kernel; with JPY_PARENT_PID set (as Jupyter's launcher does), the kernel\n"
            "exits when that process is gone. Exit status: 0 after a shutdown request\n"
            "or SIGTERM, 1 when the sockets cannot be bound, 2 for a usage error or a\n"
            "bad connection file.\n\n"
            "  -f, --connection-file FILE   the connection file (required)\n"
            "  -h, --help                   this text\n",
            "5.3");
}

int vs_cli_kernel(int argc, char **argv)
{
    const char *file = NULL;
    vs_conn conn;
    vs_error err;
    vs_interp *ip = NULL;
    vs_kernel_options opts = {0};
    const char *test = getenv("VRAMSHEET_KERNEL_TEST");
    int i, rc;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            kernel_usage(stdout);
            return 0;
        } else if ((!strcmp(argv[i], "-f") || !strcmp(argv[i], "--connection-file")) &&
                   i + 1 < argc) {
            file = argv[++i];
        } else if (!strncmp(argv[i], "--connection-file=", 18)) {
            file = argv[i] + 18;
        } else if (!strncmp(argv[i], "-f=", 3)) {
            file = argv[i] + 3;
        } else {
            fprintf(stderr, "vramsheet kernel: unexpected argument '%s'\n\n", argv[i]);
            kernel_usage(stderr);
            return 2;
        }
    }
    if (!file) {
        fprintf(stderr, "vramsheet kernel: a connection file is required (-f FILE)\n\n");
        kernel_usage(stderr);
        return 2;
    }
    vs_error_clear(&err);
    if (vs_conn_load(&conn, file, &err) < 0) {
        fprintf(stderr, "vramsheet kernel: %s\n", err.message);
        return 2;
    }
    ip = vs_interp_new(NULL);
    if (!ip) {
        fprintf(stderr, "vramsheet kernel: out of memory starting the interpreter\n");
        return 1;
    }
    {
        /* Set by jupyter_client's launcher to the pid of the process that
         * started this kernel (jupyter_client/launcher.py). */
        const char *parent = getenv("JPY_PARENT_PID");
        char *end;
        long p = parent && *parent ? strtol(parent, &end, 10) : 0;
        opts.parent_pid = parent && *parent && !*end && p > 1 && p < 1L << 30 ? (int)p : 0;
    }
    if (test && !strcmp(test, "1")) {
        /* the transport's own tests: "%%kernel-test" cells (testcell.h) */
        vs_testcell_wrap wrap = {&interp_ops, ip};
        rc = vs_kernel_serve(&conn, &vs_testcell_ops, &wrap, &opts, &err);
    } else {
        rc = vs_kernel_serve(&conn, &interp_ops, ip, &opts, &err);
    }
    if (rc < 0)
        fprintf(stderr, "vramsheet kernel: %s\n", err.message);
    vs_interp_free(ip);
    return rc < 0 ? 1 : 0;
}

static void install_usage(FILE *f)
{
    fprintf(f, "usage: vramsheet install [--user | --prefix DIR]\n\n"
               "Writes the Jupyter kernelspec \"vramsheet\" (kernel.json and logos) naming\n"
               "this binary, so that Jupyter lists and starts the kernel.\n\n"
               "  --user        in the per-user data directory (the default):\n"
               "                $JUPYTER_DATA_DIR, else $XDG_DATA_HOME/jupyter,\n"
               "                else ~/.local/share/jupyter; then kernels/vramsheet\n"
               "  --prefix DIR  in DIR/share/jupyter/kernels/vramsheet (for example a\n"
               "                virtual environment's prefix)\n"
               "  -h, --help    this text\n");
}

int vs_cli_install(int argc, char **argv)
{
    char data_dir[PATH_MAX + 32], binary[PATH_MAX], dir[4096];
    const char *prefix = NULL;
    vs_error err;
    int i, user = 0;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            install_usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--user")) {
            user = 1;
        } else if (!strcmp(argv[i], "--prefix") && i + 1 < argc) {
            prefix = argv[++i];
        } else if (!strncmp(argv[i], "--prefix=", 9)) {
            prefix = argv[i] + 9;
        } else {
            fprintf(stderr, "vramsheet install: unexpected argument '%s'\n\n", argv[i]);
            install_usage(stderr);
            return 2;
        }
    }
    if (user && prefix) {
        fprintf(stderr, "vramsheet install: --user and --prefix exclude each other\n");
        return 2;
    }
    vs_error_clear(&err);
    if (prefix) {
        if (!*prefix) {
            fprintf(stderr, "vramsheet install: --prefix needs a directory\n");
            return 2;
        }
        snprintf(data_dir, sizeof data_dir, "%s/share/jupyter", prefix);
    } else if (vs_install_user_data_dir(data_dir, sizeof data_dir, &err) < 0) {
        fprintf(stderr, "vramsheet install: %s\n", err.message);
        return 1;
    }
    /* The kernelspec names this very binary, wherever it was started from. */
    if (!realpath("/proc/self/exe", binary)) {
        fprintf(stderr, "vramsheet install: cannot find the path of this binary\n");
        return 1;
    }
    if (vs_install_kernelspec(data_dir, binary, dir, sizeof dir, &err) < 0) {
        fprintf(stderr, "vramsheet install: %s\n", err.message);
        return 1;
    }
    printf("installed kernelspec vramsheet in %s\n", dir);
    return 0;
}
