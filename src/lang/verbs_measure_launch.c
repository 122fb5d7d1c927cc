/* `measure launch [OFFER] [timeout=S] [interval=MS]`: closes the loop from the
 * sheet to the engine. The command `launch` writes for the offer (the first
 * offer when none is named) runs under `measure phase=launch`, which samples
 * NVML while it runs; its output, kept in a file beside, is then read by the
 * engine's own importer (`measure import FILE format=ENGINE`), so the sheet
 * holds the estimate, the engine's start-up figures and NVML's peaks together
 * and `compare` lines them up. The two are ordinary lines of the measure verb,
 * made here, and one run of the sheet: the engine's lines join the run that
 * NVML's samples made, instead of a run of their own named after the file. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/fit.h"
#include "engine/launch.h"
#include "lang/parse.h"
#include "lang/verb.h"
#include "lang/verbs_measure.h"
#include "sheet/classify.h"
#include "sheet/sheet.h"
#include "util/buf.h"
#include "util/json.h"

/* Runs text's lines (made here) through the measure verb, their errors placed
 * at the line that asked; with into, an import line's measurements join that
 * run of the sheet. */
static int run_lines(vs_ctx *ctx, const vs_line *at, const char *text, const char *into,
                     vs_error *err)
{
    const vs_verb *measure = vs_verb_find("measure");
    vs_cell *parsed = NULL;
    size_t l;
    int rc;
    if (!measure)
        return vs_error_set(err, VS_EVALUE, "no `measure` verb");
    rc = vs_parse_cell(&parsed, text, strlen(text), err);
    for (l = 0; rc == 0 && l < parsed->nlines; l++) {
        vs_line one = parsed->lines[l];
        one.line = at->line;
        one.column = at->column;
        rc =
            into ? vs_verb_measure_import_into(ctx, &one, into, err) : measure->run(ctx, &one, err);
    }
    vs_cell_free(parsed);
    return rc;
}

/* 1 when the sheet has a run of that id. */
static int has_run(const json_t *sheet, const char *id)
{
    const json_t *r;
    size_t i;
    vs_json_array_foreach(vs_sheet_array(sheet, VS_SK_RUNS), i, r)
    {
        const char *x = json_string_value(json_object_get(r, "id"));
        if (x && !strcmp(x, id))
            return 1;
    }
    return 0;
}

/* The command `launch` writes for offer (NULL: the first), and its rule. */
static int launch_command(vs_buf *cmd, const vs_launch_rule **rule, json_t *sheet,
                          const vs_arg *offer_arg, vs_error *err)
{
    vs_fit_ctx c;
    vs_fit_row row;
    vs_launch_in in;
    json_t *l = NULL, *offer;
    int rc;
    if ((rc = vs_fit_prepare(&c, sheet, err)) < 0)
        return rc;
    if (!(*rule = vs_launch_find(c.engine->name))) {
        char names[160];
        vs_launch_engine_list(names, sizeof names);
        rc = vs_error_set(err, VS_EVALUE,
                          "the card's engine is %s, which has no command line: declare one of %s "
                          "with `engine NAME` first",
                          c.engine->name, names);
        goto done;
    }
    offer = offer_arg ? vs_classify_offer_find(sheet, offer_arg->value)
                      : json_array_get(vs_sheet_array(sheet, VS_SK_OFFERS), 0);
    if (!offer) {
        rc = offer_arg
                 ? vs_error_set_at(err, VS_ENOTFOUND, offer_arg->line, offer_arg->column,
                                   "no offer '%s' on the sheet", offer_arg->value)
                 : vs_error_set(err, VS_EVALUE, "no offer to launch on: add one with `gpu NAME`");
        goto done;
    }
    if ((rc = vs_fit_offer(&row, &c, offer, NULL, 0, err)) < 0)
        goto done;
    in.sheet = sheet;
    in.ctx = &c;
    in.row = &row;
    in.off = NULL;
    rc = vs_launch_build(&l, &in, err);
    vs_fit_row_free(&row);
    if (rc == 0) {
        vs_buf_puts(cmd, json_string_value(json_object_get(l, "command")));
        rc = cmd->failed ? vs_error_oom(err) : 0;
    } else if (rc == VS_EVALUE) {
        vs_error_prefix(err, "measure launch refused: ");
    }
    json_decref(l);
done:
    vs_fit_ctx_free(&c);
    return rc;
}

int vs_verb_measure_launch(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    static const char *const keys[] = {"timeout", "interval", NULL};
    json_t *sheet = vs_ctx_sheet(ctx);
    const vs_launch_rule *rule = NULL;
    const vs_arg *t = vs_line_pair(line, "timeout"), *iv = vs_line_pair(line, "interval");
    vs_buf cmd = VS_BUF_INIT, cell = VS_BUF_INIT;
    char log[512] = "", rcfile[600] = "", run_id[32] = "";
    const char *tmp = getenv("TMPDIR");
    int fd, rc;
    if (!sheet)
        return vs_error_oom(err);
    if ((rc = vs_line_check_keys(line, keys, err)) < 0)
        return rc;
    if (vs_line_npositional(line) > 2 || line->raw)
        return vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                               "expected `measure launch [OFFER] [timeout=SECONDS] "
                               "[interval=MS]`: the command is the one `launch` writes");
    if ((rc = launch_command(&cmd, &rule, sheet, vs_line_positional(line, 1), err)) < 0)
        goto done;
    /* the engine's output goes to the cell as it comes and to a file for its importer */
    snprintf(log, sizeof log, "%s/vramsheet-launch-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if ((fd = mkstemp(log)) < 0) {
        rc = vs_error_set(err, VS_EIO, "measure launch: no temporary file for the engine's output");
        log[0] = '\0';
        goto done;
    }
    close(fd);
    snprintf(rcfile, sizeof rcfile, "%s.rc", log);
    vs_buf_puts(&cell, "measure phase=launch");
    if (t)
        vs_buf_printf(&cell, " timeout=%s", t->value);
    if (iv)
        vs_buf_printf(&cell, " interval=%s", iv->value);
    /* the engine's exit status, not tee's, is the run's */
    vs_buf_printf(&cell, " -- { %s 2>&1; echo $? > '%s'; } | tee '%s'; exit \"$(cat '%s')\"\n",
                  vs_buf_str(&cmd), rcfile, log, rcfile);
    if (cell.failed) {
        rc = vs_error_oom(err);
        goto done;
    }
    /* the run measure records: the engine's lines join it below */
    vs_verbs_measure_next_run_id(sheet, run_id, sizeof run_id);
    if ((rc = run_lines(ctx, line, vs_buf_str(&cell), NULL, err)) < 0)
        goto done;
    if (!rule->importer) {
        vs_ctx_effect(ctx, "measure launch: %s prints no start-up lines this reads", rule->engine);
        goto done;
    }
    vs_buf_reset(&cell);
    vs_buf_printf(&cell, "measure import \"%s\" format=%s\n", log, rule->importer);
    if (cell.failed) {
        rc = vs_error_oom(err);
        goto done;
    }
    /* a run that restated an earlier one was not kept: the lines make a run of their own */
    rc = run_lines(ctx, line, vs_buf_str(&cell), has_run(sheet, run_id) ? run_id : NULL, err);
    /* an engine that printed none of its start-up lines leaves NVML's run alone */
    if (rc == VS_EVALUE && strstr(err->message, "no measurements")) {
        vs_ctx_effect(ctx, "measure launch: the %s output held none of its start-up lines",
                      rule->engine);
        rc = 0;
    }
done:
    if (log[0])
        unlink(log);
    if (rcfile[0])
        unlink(rcfile);
    vs_buf_free(&cmd);
    vs_buf_free(&cell);
    return rc;
}
