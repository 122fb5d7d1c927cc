#include "render/candidates.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/bundle.h"
#include "sheet/units.h"
#include "util/buf.h"
#include "util/json.h"

static json_t *str_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *bytes_or_null(int known, uint64_t b)
{
    return known ? json_integer((json_int_t)b) : json_null();
}

/* Built key by key (vs_json_object_of): json_pack parsing its format for
 * every row and requirement was most of a `candidates` payload. */
static json_t *req_payload(const vs_classify_req *r)
{
    return vs_json_object_of("name", json_string(r->name), "label", json_string(r->label),
                             "builtin", json_boolean(r->builtin), "verdict",
                             json_string(vs_verdict_name(r->verdict)), "evidence",
                             json_incref(r->evidence), "note", json_string(r->note), NULL);
}

static json_t *row_payload(const vs_classify_row *r)
{
    json_t *reqs = json_array();
    size_t i;
    if (!reqs)
        return NULL;
    for (i = 0; i < r->nreqs; i++)
        json_array_append_new(reqs, req_payload(&r->reqs[i]));
    return vs_json_object_of(
        "gpu", json_string(r->gpu), "catalog", str_or_null(r->catalog), "capacity_bytes",
        bytes_or_null(r->capacity_known, r->capacity_bytes), "capacity_basis",
        str_or_null(r->capacity_basis), "nominal_bytes",
        bytes_or_null(r->nominal_known, r->nominal_bytes), "reported_bytes",
        bytes_or_null(r->reported_known, r->reported_bytes), "reported_basis",
        str_or_null(r->reported_basis), "margin_bytes",
        r->margin_known ? json_integer((json_int_t)r->margin_bytes) : json_null(), "cards",
        json_integer((json_int_t)r->cards), "cards_counted",
        json_integer((json_int_t)r->cards_counted), "price", str_or_null(r->price), "currency",
        str_or_null(r->currency), "period", str_or_null(r->period), "available",
        str_or_null(r->available), "interconnect", str_or_null(r->interconnect), "requirements",
        reqs, "verdict", json_string(vs_verdict_name(r->verdict)), "retained",
        json_boolean(r->verdict == VS_VERDICT_ADMISSIBLE), "rank",
        r->rank ? json_integer((json_int_t)r->rank) : json_null(), "package_cost",
        r->price && r->currency
            ? vs_json_object_of("amount", json_string(r->price), "currency",
                                json_string(r->currency), NULL)
            : json_null(),
        NULL);
}

json_t *vs_candidates_payload(const vs_classification *c)
{
    json_t *rows = json_array(), *notes = json_array(), *names = json_array(), *by;
    size_t i;
    if (!rows || !notes || !names) {
        json_decref(rows);
        json_decref(notes);
        json_decref(names);
        return NULL;
    }
    for (i = 0; i < c->nrows; i++)
        json_array_append_new(rows, row_payload(&c->rows[i]));
    for (i = 0; i < c->nnotes; i++)
        json_array_append_new(notes, json_string(c->notes[i]));
    if (c->nrows)
        for (i = 0; i < c->rows[0].nreqs; i++)
            json_array_append_new(names, json_string(c->rows[0].reqs[i].name));
    by = json_array();
    if (by) {
        json_array_append_new(by, json_string_nocheck("total package cost"));
        json_array_append_new(by, json_string_nocheck("useful margin"));
        json_array_append_new(by, json_string_nocheck("documented schedule"));
    }
    return vs_json_object_of(
        "kind", json_string_nocheck("candidates"), "envelope_bytes",
        json_integer((json_int_t)c->env.envelope_bytes), "envelope_complete",
        json_boolean(c->env.weights_known && json_array_size(c->unknown) == 0 &&
                     c->env.n_unknown == 0),
        "conservative", json_boolean(c->env.conservative), "unknown", json_incref(c->unknown),
        "gpus", json_integer((json_int_t)(c->env.gpus ? c->env.gpus : 1)), "requirements", names,
        "rows", rows, "retained", json_integer((json_int_t)c->nretained), "ranked",
        json_boolean(c->ranked), "ranked_by", by, "notes", notes, NULL);
}

/* ---- text and HTML ---- */

static const char *basis_text(const vs_classify_row *r)
{
    if (!r->capacity_basis)
        return "unknown";
    if (!strcmp(r->capacity_basis, "reported"))
        return "device-reported total";
    return "nominal, as marketed";
}

static char *margin_text(char *out, size_t outlen, const vs_classify_row *r)
{
    char n[96];
    uint64_t m;
    if (!r->margin_known) {
        snprintf(out, outlen, "unknown");
        return out;
    }
    m = r->margin_bytes < 0 ? (uint64_t)(-(r->margin_bytes + 1)) + 1 : (uint64_t)r->margin_bytes;
    vs_units_round(n, sizeof n, m, VS_UNIT_GIB, 2);
    snprintf(out, outlen, "%s%s GiB", r->margin_bytes < 0 ? "-" : "+", n);
    return out;
}

static void package_text(vs_buf *b, const vs_classify_row *r)
{
    if (r->price)
        vs_buf_printf(b, "%s %s", r->price, r->currency ? r->currency : "(no currency)");
    else
        vs_buf_puts(b, "no price");
    if (r->period)
        vs_buf_printf(b, " for %s", r->period);
    vs_buf_printf(b, ", %u card%s", r->cards, r->cards == 1 ? "" : "s");
}

static vs_table *summary_table(const vs_classification *c)
{
    static const char *const headers[] = {
        "candidate", "capacity per GPU", "basis", "useful margin", "package (total cost)",
        "available", "verdict",          "rank"};
    vs_table *t = vs_table_new(8, headers);
    size_t i;
    if (!t)
        return NULL;
    vs_table_align_right(t, 3);
    vs_table_align_right(t, 7);
    for (i = 0; i < c->nrows; i++) {
        const vs_classify_row *r = &c->rows[i];
        char cap[160] = "unknown", margin[128], rank[32] = "-";
        vs_buf pkg = VS_BUF_INIT;
        const char *cells[8];
        if (r->capacity_known)
            vs_units_describe(cap, sizeof cap, r->capacity_bytes);
        margin_text(margin, sizeof margin, r);
        if (r->rank)
            snprintf(rank, sizeof rank, "%zu", r->rank);
        package_text(&pkg, r);
        cells[0] = r->gpu;
        cells[1] = cap;
        cells[2] = basis_text(r);
        cells[3] = margin;
        cells[4] = vs_buf_str(&pkg);
        cells[5] = r->available ? r->available : "not documented";
        cells[6] = vs_verdict_name(r->verdict);
        cells[7] = rank;
        vs_table_add_row(t, cells);
        vs_buf_free(&pkg);
    }
    return t;
}

/* Requirements down, candidates across: each cell a verdict, marked with the
 * number of pieces of evidence behind it. */
static vs_table *matrix_table(const vs_classification *c)
{
    size_t ncols = c->nrows + 1, i, j;
    const char **cells = calloc(ncols, sizeof *cells);
    char **owned = calloc(ncols, sizeof *owned);
    vs_table *t = NULL;
    if (!cells || !owned)
        goto done;
    cells[0] = "requirement";
    for (i = 0; i < c->nrows; i++)
        cells[i + 1] = c->rows[i].gpu;
    t = vs_table_new(ncols, cells);
    if (!t)
        goto done;
    for (j = 0; j < c->rows[0].nreqs; j++) {
        cells[0] = c->rows[0].reqs[j].name;
        for (i = 0; i < c->nrows; i++) {
            const vs_classify_req *r = j < c->rows[i].nreqs ? &c->rows[i].reqs[j] : NULL;
            vs_buf b = VS_BUF_INIT;
            size_t ne = r ? json_array_size(r->evidence) : 0;
            if (r)
                vs_buf_puts(&b, vs_verdict_name(r->verdict));
            if (ne)
                vs_buf_printf(&b, " (%zu evidence)", ne);
            free(owned[i + 1]);
            owned[i + 1] = vs_buf_take(&b);
            cells[i + 1] = owned[i + 1] ? owned[i + 1] : "";
        }
        vs_table_add_row(t, cells);
    }
done:
    if (owned)
        for (i = 0; i < ncols; i++)
            free(owned[i]);
    free(owned);
    free(cells);
    return t;
}

static void evidence_line(vs_buf *b, const char *gpu, const vs_classify_req *r, const json_t *e)
{
    const char *ver = json_string_value(json_object_get(e, "version"));
    const char *scope = json_string_value(json_object_get(e, "scope"));
    vs_buf_printf(b, "%s / %s: %s, source: %s", gpu, r->name,
                  json_string_value(json_object_get(e, "verdict")),
                  json_string_value(json_object_get(e, "source")));
    if (ver)
        vs_buf_printf(b, ", version %s", ver);
    if (scope)
        vs_buf_printf(b, ", scope: %s", scope);
}

static void header_text(vs_buf *b, const vs_classification *c)
{
    char env[160];
    vs_units_describe(env, sizeof env, c->env.envelope_bytes);
    vs_buf_printf(b, "Candidates against the per-GPU envelope%s: %s",
                  c->env.weights_known && !json_array_size(c->unknown) ? "" : " (known part)", env);
    if (c->env.gpus > 1)
        vs_buf_printf(b, ", per GPU on %u GPUs", c->env.gpus);
    if (c->env.conservative)
        vs_buf_puts(b, " (a conservative envelope: a sum of maxima, not an observed peak)");
}

static void verdict_summary(vs_buf *b, const vs_classification *c)
{
    if (!c->nrows)
        vs_buf_puts(b, "No GPU offers yet: add one with `gpu NAME memory=... price=...`.");
    else if (!c->nretained)
        vs_buf_puts(b, "Retained: none. A candidate is retained only when every mandatory "
                       "requirement is admissible; nothing is ranked.");
    else if (c->ranked)
        vs_buf_printf(b,
                      "Retained: %zu, ranked by total package cost, then useful margin, then "
                      "documented schedule.",
                      c->nretained);
    else
        vs_buf_printf(b, "Retained: %zu, not ranked (see the notes).", c->nretained);
}

static void render(const vs_classification *c, vs_buf *text, vs_buf *html)
{
    vs_table *sum = summary_table(c), *mx = c->nrows ? matrix_table(c) : NULL;
    size_t i, j, k;
    vs_buf line = VS_BUF_INIT;
    int any_evidence = 0;

    header_text(&line, c);
    vs_buf_printf(text, "%s\n", vs_buf_str(&line));
    vs_buf_puts(html, "<p>");
    vs_buf_put_html(html, vs_buf_str(&line));
    vs_buf_puts(html, "</p>\n");
    vs_buf_reset(&line);

    if (c->nrows && sum && mx) {
        vs_buf_putc(text, '\n');
        vs_table_text(sum, text);
        vs_buf_puts(text, "\nRequirements (mandatory):\n");
        vs_table_text(mx, text);
        vs_table_html(sum, html);
        vs_buf_puts(html, "\n<p>Requirements (mandatory):</p>\n");
        vs_table_html(mx, html);
        vs_buf_putc(html, '\n');

        vs_buf_puts(text, "\nWhy:\n");
        vs_buf_puts(html, "<p>Why:</p>\n<ul>\n");
        for (i = 0; i < c->nrows; i++) {
            const vs_classify_req *cap = &c->rows[i].reqs[0];
            vs_buf_printf(&line, "%s / capacity: %s: %s", c->rows[i].gpu,
                          vs_verdict_name(cap->verdict), cap->note);
            vs_buf_printf(text, "  - %s\n", vs_buf_str(&line));
            vs_buf_puts(html, "<li>");
            vs_buf_put_html(html, vs_buf_str(&line));
            vs_buf_puts(html, "</li>\n");
            vs_buf_reset(&line);
        }
        vs_buf_puts(html, "</ul>\n");

        for (i = 0; i < c->nrows; i++)
            for (j = 0; j < c->rows[i].nreqs; j++) {
                const vs_classify_req *r = &c->rows[i].reqs[j];
                json_t *e;
                json_array_foreach(r->evidence, k, e)
                {
                    if (!any_evidence) {
                        vs_buf_puts(text, "\nEvidence:\n");
                        vs_buf_puts(html, "<p>Evidence:</p>\n<ul>\n");
                        any_evidence = 1;
                    }
                    evidence_line(&line, c->rows[i].gpu, r, e);
                    vs_buf_printf(text, "  - %s\n", vs_buf_str(&line));
                    vs_buf_puts(html, "<li>");
                    vs_buf_put_html(html, vs_buf_str(&line));
                    vs_buf_puts(html, "</li>\n");
                    vs_buf_reset(&line);
                }
            }
        if (any_evidence)
            vs_buf_puts(html, "</ul>\n");
    }

    if (c->nnotes) {
        vs_buf_puts(text, "\nNotes:\n");
        vs_buf_puts(html, "<p>Notes:</p>\n<ul>\n");
        for (i = 0; i < c->nnotes; i++) {
            vs_buf_printf(text, "  - %s\n", c->notes[i]);
            vs_buf_puts(html, "<li>");
            vs_buf_put_html(html, c->notes[i]);
            vs_buf_puts(html, "</li>\n");
        }
        vs_buf_puts(html, "</ul>\n");
    }

    verdict_summary(&line, c);
    vs_buf_printf(text, "\n%s\n", vs_buf_str(&line));
    vs_buf_puts(html, "<p>");
    vs_buf_put_html(html, vs_buf_str(&line));
    vs_buf_puts(html, "</p>\n");
    vs_buf_free(&line);
    if (!sum || vs_table_failed(sum) || (c->nrows && (!mx || vs_table_failed(mx))))
        text->failed = 1;
    vs_table_free(sum);
    vs_table_free(mx);
}

vs_bundle *vs_candidates_bundle(const vs_classification *c, const char *svg)
{
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    json_t *payload = vs_candidates_payload(c);
    vs_bundle *bundle = NULL;
    if (!payload)
        goto done;
    render(c, &text, &html);
    if (vs_buf_failed(&text) || vs_buf_failed(&html))
        goto done;
    bundle = vs_bundle_new(vs_buf_str(&text), vs_buf_str(&html), svg, payload);
    payload = NULL;
done:
    json_decref(payload);
    vs_buf_free(&text);
    vs_buf_free(&html);
    return bundle;
}
