/* `vramsheet report SHEET[@REV] [--since REV] [--format md|html]`: one page on a
 * recorded sheet, for a pull request comment or a static page. It reads the
 * record as the kernel's `show` does (validated), computes what `candidates`,
 * `envelope` and `diff` would show for it, and lets render/report compose them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "engine/fit.h"
#include "render/candidates.h"
#include "render/diff.h"
#include "render/envelope.h"
#include "render/report.h"
#include "sheet/classify.h"
#include "sheet/envelope.h"
#include "sheet/sheet.h"
#include "store/store.h"
#include "store/store_sheet.h"
#include "util/buf.h"
#include "util/error.h"

static const char report_help[] =
    "usage: vramsheet report SHEET[@REV] [--since REV] [--format md|html] [--records PATH]\n\n"
    "One page on a recorded sheet, for a pull request comment (md, the default) or a\n"
    "static page (html: self-contained, inline SVG, no script): the decision, the\n"
    "verdict per GPU offer with its margin, the components per GPU, what changed since\n"
    "REV (--since, with byte deltas) and what would invalidate the decision; the same\n"
    "tables the kernel's `candidates`, `envelope` and `diff` print.\n"
    "REV as for `vramsheet show`: ~N is N revisions back in the sheet's own history,\n"
    "HEAD~N N commits back on the branch, or a commit id. The records repository is\n"
    "--records, else VRAMSHEET_RECORDS, else the per-user default.\n\n"
    "exit status: 0 the page was written, 1 the sheet or revision cannot be read,\n"
    "2 usage\n";

static int usage(const char *msg)
{
    if (msg)
        fprintf(stderr, "vramsheet report: %s\n\n", msg);
    fputs(report_help, stderr);
    return 2;
}

/* sheets/ID/sheet.json at rev, checked as the kernel's `show` checks it (the one
 * reader, store/store_sheet). */
static int load(vs_store *st, const char *id, const char *rev, json_t **out, char *commit,
                vs_error *err)
{
    vs_store_blob blob = {0};
    int rc = vs_store_load_sheet(st, id, rev, out, &blob, err);
    if (rc == 0)
        memcpy(commit, blob.commit, VS_STORE_HEX);
    vs_store_blob_clear(&blob);
    return rc;
}

/* The candidates and envelope results, as the verbs build them. */
static int results(const json_t *sheet, vs_bundle **cand, vs_bundle **envb, vs_error *err)
{
    vs_component_views views;
    vs_envelope env;
    vs_classification *c = NULL;
    char *svg = NULL;
    int rc;
    if (vs_component_views_read(&views, sheet) < 0)
        return vs_error_oom(err);
    if ((rc = vs_envelope_compute(&env, sheet, &views, err)) == 0 &&
        (rc = vs_fit_classify(&c, sheet, &env, &views, err)) == 0) {
        svg = vs_render_envelope_svg(sheet, &c->env, &views);
        *cand = svg ? vs_candidates_bundle(c, svg) : NULL;
        *envb = vs_render_envelope(sheet, &env, &views);
        if (!*cand || !*envb)
            rc = vs_error_oom(err);
    }
    free(svg);
    vs_classification_free(c);
    vs_component_views_free(&views);
    return rc;
}

int vs_cli_report(int argc, char **argv)
{
    const char *spec = NULL, *since = NULL, *format = "md", *records = NULL, *rev = NULL;
    char id[VS_SHEET_ID_MAX], commit[VS_STORE_HEX], since_commit[VS_STORE_HEX];
    char *path = NULL;
    vs_store *st = NULL;
    json_t *sheet = NULL, *before = NULL;
    vs_bundle *cand = NULL, *envb = NULL, *diff = NULL;
    vs_buf out = VS_BUF_INIT, since_label = VS_BUF_INIT;
    vs_report_parts parts;
    vs_error err;
    int i, status = 1;
    vs_error_clear(&err);
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(report_help, stdout);
            return 0;
        } else if (!strcmp(argv[i], "--since") || !strcmp(argv[i], "--format") ||
                   !strcmp(argv[i], "--records")) {
            if (i + 1 >= argc)
                return usage("an option needs a value");
            if (!strcmp(argv[i], "--since"))
                since = argv[++i];
            else if (!strcmp(argv[i], "--format"))
                format = argv[++i];
            else
                records = argv[++i];
        } else if (argv[i][0] == '-')
            return usage("unknown option");
        else if (spec)
            return usage("one SHEET[@REV] only");
        else
            spec = argv[i];
    }
    if (!spec)
        return usage("which sheet? (SHEET[@REV])");
    if (strcmp(format, "md") && strcmp(format, "html"))
        return usage("--format is md or html");
    if (vs_store_parse_spec(spec, id, sizeof id, &rev, &err) < 0) {
        fprintf(stderr, "vramsheet report: %s\n", err.message);
        return 2;
    }
    path = records ? strdup(records) : vs_store_default_path();
    if (!path || vs_store_open(&st, path, &err) < 0 ||
        load(st, id, rev, &sheet, commit, &err) < 0 ||
        (since && load(st, id, since, &before, since_commit, &err) < 0) ||
        results(sheet, &cand, &envb, &err) < 0)
        goto done;
    if (before) {
        vs_buf_printf(&since_label, "%s (commit %.12s)", since, since_commit);
        diff = vs_diff_bundle(before, sheet, since, rev ? rev : "the latest revision", NULL);
        if (!diff || vs_buf_failed(&since_label)) {
            vs_error_oom(&err);
            goto done;
        }
    }
    memset(&parts, 0, sizeof parts);
    parts.sheet = sheet;
    parts.sheet_id = id;
    parts.commit = commit;
    parts.records = vs_store_path(st);
    parts.candidates = cand;
    parts.envelope = envb;
    parts.diff = diff;
    parts.since = before ? vs_buf_str(&since_label) : NULL;
    vs_report_page(&out, &parts, !strcmp(format, "html") ? VS_REPORT_HTML : VS_REPORT_MD);
    if (vs_buf_failed(&out)) {
        vs_error_oom(&err);
        goto done;
    }
    fwrite(vs_buf_str(&out), 1, out.len, stdout);
    status = fflush(stdout) == 0 ? 0 : 1;
done:
    if (status && err.message[0])
        fprintf(stderr, "vramsheet report: %s\n", err.message);
    vs_bundle_free(cand);
    vs_bundle_free(envb);
    vs_bundle_free(diff);
    json_decref(sheet);
    json_decref(before);
    vs_buf_free(&out);
    vs_buf_free(&since_label);
    vs_store_free(st);
    free(path);
    return status;
}
