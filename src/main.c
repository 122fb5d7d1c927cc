/* vramsheet — one binary, several subcommands (see cli.h). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "util/pool.h"

static const struct {
    const char *name;
    int (*main)(int, char **);
    const char *summary;
} commands[] = {
    {"kernel", vs_cli_kernel, "kernel -f CONNECTION_FILE   run as a Jupyter kernel"},
    {"install", vs_cli_install, "install [--user | --prefix DIR]   install the kernelspec"},
    {"run", vs_cli_run, "run FILE                    evaluate a file of cells without Jupyter"},
    {"log", vs_cli_log, "log [SHEET]                 list the records' revisions"},
    {"show", vs_cli_show, "show SHEET[@REV]            print a recorded sheet"},
    {"convert", vs_cli_convert,
     "convert FILE [--to py|ipynb]  a notebook to a percent script (Jupytext's), and back"},
    {"report", vs_cli_report,
     "report SHEET[@REV]          one page on a sheet, for a pull request (md, html)"},
    {"probe", vs_cli_probe, "probe --out FILE -- COMMAND  measure GPU memory outside Jupyter"},
};

static void usage(FILE *f)
{
    size_t i;
    fprintf(f, "usage: vramsheet COMMAND [ARGS]\n\n"
               "Size GPU memory as an explicit hypothesis, measure it, keep it in git.\n\n"
               "commands:\n");
    for (i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %s\n", commands[i].summary);
    fprintf(f, "\n  --version                   print the version\n"
               "  --help                      this text; COMMAND --help for each command\n");
}

int main(int argc, char **argv)
{
    size_t i;
    vs_pool_install(); /* before any JSON value exists */
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
        printf("vramsheet %s\n", VS_VERSION);
        return 0;
    }
    for (i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].main(argc - 1, argv + 1);
    fprintf(stderr, "vramsheet: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return 2;
}
