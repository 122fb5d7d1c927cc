/* `gpu here`: this machine's GPUs from NVML as offers (measure/nvml). */
#include "lang/verbs_gpu_here.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lang/parse.h"
#include "measure/nvml.h"
#include "util/buf.h"

/* A name as a quoted string of the language: '"' and '\' escaped, control
 * characters (which a driver should never report) dropped. */
void vs_verbs_gpu_put_name(vs_buf *b, const char *s)
{
    vs_buf_putc(b, '"');
    for (; *s; s++) {
        if ((unsigned char)*s < 0x20)
            continue;
        if (*s == '"' || *s == '\\')
            vs_buf_putc(b, '\\');
        vs_buf_putc(b, *s);
    }
    vs_buf_putc(b, '"');
}

static int same_group(const vs_nvml_gpu *a, const vs_nvml_gpu *b)
{
    return !strcmp(a->name, b->name) && a->total_known == b->total_known &&
           a->total_bytes == b->total_bytes && a->cuda_total_known == b->cuda_total_known &&
           a->cuda_total_bytes == b->cuda_total_bytes;
}

int vs_verbs_gpu_here(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    vs_nvml *n = NULL;
    vs_buf cell = VS_BUF_INIT;
    char host[256] = "this machine";
    unsigned i, j, count;
    int rc;
    if (line->nargs > 1)
        return vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                               "`gpu here` takes nothing more: it adds this machine's GPUs as "
                               "offers (add a price with `gpu NAME price=...` afterwards)");
    if ((rc = vs_nvml_open(&n, err)) < 0) {
        char why[VS_ERROR_MESSAGE_MAX];
        snprintf(why, sizeof why, "%s", err->message);
        return vs_error_set_at(err, rc, line->line, line->column,
                               "gpu here: %s (`gpu NAME memory=...` adds an offer by hand)", why);
    }
    if (gethostname(host, sizeof host) != 0)
        snprintf(host, sizeof host, "this machine");
    host[sizeof host - 1] = '\0';
    count = vs_nvml_count(n);
    for (i = 0; i < count; i = j) {
        const vs_nvml_gpu *g = vs_nvml_gpu_at(n, i);
        for (j = i + 1; j < count && same_group(g, vs_nvml_gpu_at(n, j)); j++)
            ;
        vs_buf_puts(&cell, "gpu ");
        vs_verbs_gpu_put_name(&cell, g->name);
        if (g->total_known)
            vs_buf_printf(&cell, " reported=%" PRIu64 "B", g->total_bytes);
        vs_buf_printf(&cell, " cards=%u", j - i);
        if (g->total_known) {
            vs_buf_puts(&cell, " reported_source=");
            {
                vs_buf src = VS_BUF_INIT;
                vs_buf_printf(&src, "NVML memory total on %s, GPU %u", host, g->index);
                if (j - i > 1)
                    vs_buf_printf(&src, "-%u", vs_nvml_gpu_at(n, j - 1)->index);
                if (*vs_nvml_driver_version(n))
                    vs_buf_printf(&src, ", driver %s", vs_nvml_driver_version(n));
                if (g->cuda_total_known)
                    vs_buf_printf(&src, "; CUDA's total %" PRIu64 " B", g->cuda_total_bytes);
                vs_verbs_gpu_put_name(&cell, vs_buf_str(&src));
                if (vs_buf_failed(&src))
                    cell.failed = 1;
                vs_buf_free(&src);
            }
        }
        vs_buf_putc(&cell, '\n');
    }
    vs_nvml_free(n);
    if (vs_buf_failed(&cell)) {
        vs_buf_free(&cell);
        return vs_error_oom(err);
    }
    if (count == 0) {
        vs_buf_free(&cell);
        return vs_error_set_at(err, VS_EMEASURE, line->line, line->column,
                               "gpu here: NVML finds no GPU on this machine (`gpu NAME "
                               "memory=...` adds an offer by hand)");
    }
    rc = vs_verbs_gpu_run_lines(ctx, line, &cell, err);
    vs_buf_free(&cell);
    return rc;
}

int vs_verbs_gpu_run_lines(vs_ctx *ctx, const vs_line *at, const vs_buf *text, vs_error *err)
{
    const vs_verb *gpu = vs_verb_find("gpu");
    vs_cell *parsed = NULL;
    size_t l;
    int rc;
    if (!gpu)
        return vs_error_set(err, VS_EVALUE, "no `gpu` verb");
    rc = vs_parse_cell(&parsed, vs_buf_str(text), text->len, err);
    for (l = 0; rc == 0 && l < parsed->nlines; l++) {
        /* errors point at the line that asked, not at the text made here */
        vs_line one = parsed->lines[l];
        one.line = at->line;
        one.column = at->column;
        rc = gpu->run(ctx, &one, err);
    }
    vs_cell_free(parsed);
    return rc;
}
