/* Core verbs: help, convert, sheet. Their results are render/help's and
 * render/core's. */
#include <stdlib.h>
#include <string.h>

#include "lang/verb.h"
#include "render/bundle.h"
#include "render/core.h"
#include "render/help.h"
#include "render/result_memo.h"
#include "sheet/sheet.h"
#include "sheet/units.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/json.h"

/* ------------------------------------------------------------------- help */

/* Every verb's declared facts, in table order, for the list. */
typedef struct {
    vs_help_facts *v;
    size_t n, cap;
    int failed;
} help_acc;

static void help_each(const vs_verb *v, void *data)
{
    help_acc *acc = data;
    vs_help_facts *f;
    if (acc->n == acc->cap) {
        size_t cap = acc->cap ? acc->cap * 2 : 64;
        vs_help_facts *grown = realloc(acc->v, cap * sizeof *grown);
        if (!grown) {
            acc->failed = 1;
            return;
        }
        acc->v = grown;
        acc->cap = cap;
    }
    f = &acc->v[acc->n++];
    memset(f, 0, sizeof *f);
    f->name = v->name;
    f->group = vs_verb_group(v);
    f->syntax = v->syntax;
    f->summary = v->summary;
}

static int verb_help(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    const vs_arg *a;
    int rc = vs_line_check_keys(line, NULL, err);
    if (rc < 0)
        return rc;
    if ((rc = vs_line_no_extra(line, 1, "help [VERB]", err)) < 0)
        return rc;
    a = vs_line_positional(line, 0);
    if (a) {
        const vs_verb *v = vs_verb_find(a->value);
        vs_bundle *b;
        if (!v) {
            const char *near[3];
            size_t n = vs_verb_suggest(a->value, near, 3), i;
            vs_buf s = VS_BUF_INIT;
            for (i = 0; i < n; i++)
                vs_buf_printf(&s, "%s`%s`",
                              i == 0       ? "; did you mean "
                              : i + 1 == n ? " or "
                                           : ", ",
                              near[i]);
            if (n)
                vs_buf_puts(&s, "?");
            rc = vs_error_set_at(err, VS_ENOTFOUND, a->line, a->column,
                                 "no verb named '%s'%s (`help` alone lists every verb)", a->value,
                                 vs_buf_str(&s));
            vs_buf_free(&s);
            return rc;
        }
        b = vs_verb_help_bundle(v);
        if (!b)
            return vs_error_oom(err);
        vs_ctx_emit(ctx, b);
        return 0;
    }
    {
        help_acc acc = {NULL, 0, 0, 0};
        vs_bundle *b = NULL;
        vs_verb_each(help_each, &acc);
        if (!acc.failed)
            b = vs_render_help_list(acc.v, acc.n);
        free(acc.v);
        if (!b)
            return vs_error_oom(err);
        vs_ctx_emit(ctx, b);
        return 0;
    }
}

/* ----------------------------------------------------------------- convert */

static int verb_convert(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    const char *syntax = "convert QUANTITY UNIT (convert 24GB GiB)";
    const vs_arg *q, *u;
    vs_buf qty = VS_BUF_INIT;
    uint64_t bytes;
    vs_unit unit;
    size_t np = vs_line_npositional(line);
    int rc = vs_line_check_keys(line, NULL, err);
    if (rc < 0)
        return rc;
    if (np < 2)
        return vs_error_set_at(
            err, VS_EVALUE, line->line, line->column,
            "expected `%s`: an amount with its unit, then the unit to show it in", syntax);
    /* "convert 24 GB GiB" reads as "convert 24GB GiB" */
    q = vs_line_positional(line, 0);
    if (np == 3 && q->value[0] && strchr("0123456789.", q->value[strlen(q->value) - 1])) {
        u = vs_line_positional(line, 2);
        vs_buf_printf(&qty, "%s%s", q->value, vs_line_positional(line, 1)->value);
    } else {
        if ((rc = vs_line_no_extra(line, 2, syntax, err)) < 0)
            return rc;
        u = vs_line_positional(line, 1);
        vs_buf_puts(&qty, q->value);
    }
    if (vs_buf_failed(&qty)) {
        rc = vs_error_oom(err);
        goto done;
    }
    rc = vs_units_parse_bytes(&bytes, vs_buf_str(&qty), err);
    if (rc < 0) {
        err->line = q->line;
        err->column = q->column;
        goto done;
    }
    rc = vs_unit_parse(&unit, u->value, err);
    if (rc < 0) {
        err->line = u->line;
        err->column = u->column;
        goto done;
    }
    if (bytes > (uint64_t)INT64_MAX) {
        rc = vs_error_set_at(err, VS_EUNIT, q->line, q->column,
                             "'%s' is more bytes than a record can hold (at most 2^63-1)",
                             vs_buf_str(&qty));
        goto done;
    }
    {
        /* the result is drawn from the amount as typed and the unit alone:
         * a cell run again takes it as kept (render/result_memo.h) */
        vs_result_key key;
        vs_bundle *b;
        vs_result_key_init(&key, "convert");
        vs_result_key_str(&key, vs_buf_str(&qty));
        vs_result_key_u64(&key, bytes);
        vs_result_key_u64(&key, (uint64_t)unit);
        if (!(b = vs_result_memo_get(vs_ctx_results(ctx), &key))) {
            b = vs_render_convert(vs_buf_str(&qty), bytes, unit);
            vs_result_memo_put(vs_ctx_results(ctx), &key, b);
        }
        if (!b) {
            rc = vs_error_oom(err);
            goto done;
        }
        vs_ctx_emit(ctx, b);
        rc = 0;
    }
done:
    vs_buf_free(&qty);
    return rc;
}

/* ------------------------------------------------------------------- sheet */

static int list_sheets(vs_ctx *ctx, vs_error *err)
{
    json_t *sheets = vs_ctx_sheets(ctx);
    const char *current = NULL;
    vs_bundle *b;
    /* which one is current, without opening "untitled" as a side effect */
    if (json_array_size(sheets))
        current = vs_sheet_get_str(vs_ctx_sheet(ctx), VS_SK_ID);
    b = vs_render_sheet_list(sheets, current);
    if (!b)
        return vs_error_oom(err);
    vs_ctx_emit(ctx, b);
    return 0;
}

/* Opens, creates or switches to the sheet titled on the line; alone, lists
 * the session's sheets. */
static int verb_sheet(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    const vs_arg *a;
    json_t *sheet;
    char id[VS_SHEET_ID_MAX];
    const char *action;
    json_t *before;
    int rc = vs_line_check_keys(line, NULL, err);
    if (rc < 0)
        return rc;
    if ((rc = vs_line_no_extra(line, 1, "sheet \"TITLE\"", err)) < 0)
        return rc;
    a = vs_line_positional(line, 0);
    if (!a)
        return list_sheets(ctx, err);
    if (!a->value[0])
        return vs_error_set_at(err, VS_EVALUE, a->line, a->column,
                               "expected a non-empty sheet title");
    vs_sheet_slug(a->value, id, sizeof id);
    before = vs_ctx_find_sheet(ctx, id);
    if (before && vs_ctx_sheet_count(ctx) && vs_ctx_sheet(ctx) == before)
        action = "current";
    else
        action = before ? "switched" : "created";
    rc = vs_ctx_open_sheet(ctx, a->value, &sheet, err);
    if (rc < 0) {
        err->line = a->line;
        err->column = a->column;
        return rc;
    }
    {
        /* the cell's views: a sheet run again is written whole here, and
         * `envelope` and the like walk the same components later in the cell */
        vs_bundle *b =
            vs_render_sheet_opened(sheet, vs_ctx_component_views(ctx, sheet), id, action, a->value);
        if (!b)
            return vs_error_oom(err);
        vs_ctx_emit(ctx, b);
        return 0;
    }
}

/* --------------------------------------------------------------- the table */

static const char help_help[] =
    "Lists every verb with a one-line summary, grouped (core, sizing, gpu, records,\n"
    "measure). `help VERB` prints the verb's syntax, meaning, formula and source.\n"
    "In a notebook, Shift-Tab on a verb shows the same text.";

static const char convert_help[] =
    "Converts an amount of memory to another unit, exactly. Amounts are exact integer\n"
    "bytes: GB = 10^9 B, GiB = 2^30 B (KB/MB/TB and KiB/MiB/TiB likewise). A fraction\n"
    "of a byte rounds up to a whole byte. The result shows the exact quotient (never\n"
    "rounded: 24GB is 22.351741790771484375 GiB) and the two-decimal display, rounded\n"
    "half up (22.35 GiB).\n"
    "Payload: {\"kind\": \"convert\", \"bytes\": INT, \"unit\": UNIT, \"value\": EXACT}; value\n"
    "is the exact decimal as a string, so no reader rounds it through a double.\n"
    "Units: GB = 10^9 bytes (SI), GiB = 2^30 bytes (IEC 80000-13): 24,000,000,000 bytes\n"
    "= 22.35 GiB.";

static const char sheet_help[] =
    "Opens the sheet titled TITLE and makes it current, creating it when the session\n"
    "has no sheet of that id (the id is the title's slug: lowercase letters, digits\n"
    "and '-'). Switching back to a sheet keeps everything it holds. `sheet` alone\n"
    "lists the session's sheets. Verbs that need a sheet before any was opened open\n"
    "one titled \"untitled\".\n"
    "Payload: kind \"sheet\" with the whole sheet as stored, plus \"action\"\n"
    "(created, switched, current); `sheet` alone gives kind \"sheets\".";

const vs_verb vs_verbs_core[] = {
    {"help", verb_help, "help [VERB]", "list the verbs, or show one verb's syntax and meaning",
     help_help, NULL, NULL, VS_VERB_VERB_ARG, NULL},
    {"convert", verb_convert, "convert QUANTITY UNIT",
     "convert an amount of memory exactly (convert 24GB GiB)", convert_help, NULL, NULL, 0, NULL},
    {"sheet", verb_sheet, "sheet [\"TITLE\"]",
     "open, create or switch the current sheet; alone, list the sheets", sheet_help, NULL, NULL,
     VS_VERB_OPENS_SHEETS | VS_VERB_SHEET_ID, NULL},
    {NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL},
};
