/* `vramsheet convert FILE --to py|ipynb`: a notebook to a percent script and
 * back (lang/percent.h does the converting; this reads and writes the files). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "lang/interp.h"
#include "lang/percent.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/file.h"
#include "util/pool.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: vramsheet convert FILE [--to py|ipynb] [-o OUT]\n\n"
               "Converts a Jupyter notebook (.ipynb, nbformat 4) into a script in the percent\n"
               "format, as Jupytext writes it, or such a script into a notebook. In the\n"
               "script each cell opens with `# %%%%` (`# %%%% [markdown]` for a text cell,\n"
               "whose lines start with `# `; `# %%%% [raw]` for a raw one) and a blank line\n"
               "ends it; `vramsheet run` reads either form, and a notebook converted there\n"
               "and back has the same cells with the same sources (outputs, execution\n"
               "counts and cell metadata are left out of the script, as Jupytext does).\n"
               "Which FILE is is read from its content, not its name.\n\n"
               "  --to py     a script: the default when FILE is a notebook; written to FILE\n"
               "              with .py in place of .ipynb\n"
               "  --to ipynb  a notebook: the default when FILE is a script; written to FILE\n"
               "              with .ipynb in place of its extension\n"
               "  -o OUT      write to OUT instead (- for stdout); never FILE itself\n\n"
               "exit status: 0 converted, 1 FILE cannot be read or converted or OUT cannot\n"
               "be written, 2 usage\n");
}

/* OUT written whole or not at all: a temporary file beside it, renamed. */
static int write_all(const char *path, const vs_buf *text, vs_error *err)
{
    vs_buf tmp = VS_BUF_INIT;
    FILE *f;
    int rc = 0;
    if (!strcmp(path, "-")) {
        if (fwrite(vs_buf_str(text), 1, text->len, stdout) != text->len || fflush(stdout))
            return vs_error_set(err, VS_EIO, "cannot write to stdout: %s", strerror(errno));
        return 0;
    }
    vs_buf_printf(&tmp, "%s.tmp-convert", path);
    if (vs_buf_failed(&tmp))
        return vs_error_oom(err);
    if (!(f = fopen(vs_buf_str(&tmp), "wb"))) {
        rc = vs_error_set(err, VS_EIO, "cannot write '%s': %s", path, strerror(errno));
        goto done;
    }
    if (fwrite(vs_buf_str(text), 1, text->len, f) != text->len)
        rc = vs_error_set(err, VS_EIO, "cannot write '%s': %s", path, strerror(errno));
    if (fclose(f) && rc == 0)
        rc = vs_error_set(err, VS_EIO, "cannot write '%s': %s", path, strerror(errno));
    if (rc == 0 && rename(vs_buf_str(&tmp), path))
        rc = vs_error_set(err, VS_EIO, "cannot write '%s': %s", path, strerror(errno));
    if (rc < 0)
        remove(vs_buf_str(&tmp));
done:
    vs_buf_free(&tmp);
    return rc;
}

/* FILE's name with ext in place of its own extension (or after it). */
static void out_name(vs_buf *out, const char *path, const char *ext)
{
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    size_t keep = strlen(path);
    if (dot && (!slash || dot > slash + 1))
        keep = (size_t)(dot - path);
    vs_buf_append(out, path, keep);
    vs_buf_puts(out, ext);
}

static int is_notebook(const vs_buf *text)
{
    const char *p = vs_buf_str(text), *end = p + text->len;
    if (end - p >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3))
        p += 3;
    while (p < end && strchr(" \t\r\n", *p) && *p)
        p++;
    return p < end && *p == '{';
}

static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (!strcmp(a, b))
        return 1;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

static int convert(const char *path, int to_py, const char *out_path, vs_error *err)
{
    vs_buf text = VS_BUF_INIT, out = VS_BUF_INIT, name = VS_BUF_INIT;
    vs_percent_cells cells = {0};
    json_t *nb = NULL, *lang = NULL;
    const char *dest;
    int rc;
    if ((rc = vs_file_read_all(path, 0, &text, err)) < 0)
        goto done;
    if (to_py < 0)
        to_py = is_notebook(&text);
    if (to_py && !is_notebook(&text)) {
        rc = vs_error_set(err, VS_EVALUE,
                          "%s is not a notebook (a JSON object): --to py "
                          "converts a notebook",
                          path);
        goto done;
    }
    if (!to_py && is_notebook(&text)) {
        rc = vs_error_set(err, VS_EVALUE, "%s is a notebook already: --to py makes it a script",
                          path);
        goto done;
    }
    if (to_py) {
        json_error_t jerr;
        const char *p = vs_buf_str(&text);
        size_t skip = text.len >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3) ? 3 : 0;
        if (!(nb = json_loadb(p + skip, text.len - skip, 0, &jerr))) {
            rc = vs_error_set(err, VS_EVALUE, "%s: not a valid notebook: line %d, column %d: %s",
                              path, jerr.line, jerr.column, jerr.text);
            goto done;
        }
        if ((rc = vs_percent_from_notebook(&cells, nb, err)) < 0 ||
            (rc = vs_percent_write(&cells, &out, err)) < 0)
            goto done;
    } else {
        char *dump;
        if ((rc = vs_percent_read(&cells, vs_buf_str(&text), text.len, err)) < 0)
            goto done;
        lang = vs_interp_language_info();
        if ((rc = vs_percent_to_notebook(&nb, &cells, lang, err)) < 0)
            goto done;
        /* as Jupyter writes a notebook: one space of indent, keys sorted, a final newline */
        if (!(dump = json_dumps(nb, JSON_INDENT(1) | JSON_SORT_KEYS))) {
            rc = vs_error_oom(err);
            goto done;
        }
        vs_buf_puts(&out, dump);
        vs_buf_putc(&out, '\n');
        vs_pool_json_free(dump); /* jansson's allocator, not malloc's */
    }
    if (!out_path)
        out_name(&name, path, to_py ? ".py" : ".ipynb");
    if (vs_buf_failed(&name) || vs_buf_failed(&out)) {
        rc = vs_error_oom(err);
        goto done;
    }
    dest = out_path ? out_path : vs_buf_str(&name);
    if (same_file(dest, path)) {
        rc = vs_error_set(err, VS_EVALUE, "%s would be written over itself: name another with -o",
                          path);
        goto done;
    }
    if ((rc = write_all(dest, &out, err)) == 0 && strcmp(dest, "-"))
        fprintf(stderr, "vramsheet convert: %s: %zu cell%s written to %s\n", path, cells.n,
                cells.n == 1 ? "" : "s", dest);
done:
    vs_percent_cells_free(&cells);
    json_decref(nb);
    json_decref(lang);
    vs_buf_free(&text);
    vs_buf_free(&out);
    vs_buf_free(&name);
    return rc;
}

int vs_cli_convert(int argc, char **argv)
{
    const char *path = NULL, *out = NULL;
    int to_py = -1, i;
    vs_error err;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--to") && i + 1 < argc) {
            const char *to = argv[++i];
            if (!strcmp(to, "py") || !strcmp(to, "py:percent"))
                to_py = 1;
            else if (!strcmp(to, "ipynb") || !strcmp(to, "notebook"))
                to_py = 0;
            else {
                fprintf(stderr, "vramsheet convert: --to %s: expected py or ipynb\n", to);
                return 2;
            }
        } else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
            out = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "vramsheet convert: unknown option '%s'\n\n", argv[i]);
            usage(stderr);
            return 2;
        } else if (path) {
            fprintf(stderr, "vramsheet convert: one FILE only\n");
            return 2;
        } else {
            path = argv[i];
        }
    }
    if (!path) {
        usage(stderr);
        return 2;
    }
    vs_error_clear(&err);
    if (convert(path, to_py, out, &err) < 0) {
        fprintf(stderr, "vramsheet convert: %s\n", err.message);
        return 1;
    }
    return 0;
}
