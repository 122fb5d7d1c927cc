#include "render/candidates.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/bundle.h"
#include "sheet/derived.h"
#include "sheet/placement.h"
#include "sheet/units.h"
#include "util/buf.h"
#include "util/json.h"

/* ---- the words of the reasons ---- */

static void gib(vs_buf *b, uint64_t bytes)
{
    char n[96];
    vs_units_round(n, sizeof n, bytes, VS_UNIT_GIB, 2);
    vs_buf_printf(b, "%s GiB", n);
}

static void gb(vs_buf *b, uint64_t bytes)
{
    char n[96];
    vs_units_round(n, sizeof n, bytes, VS_UNIT_GB, 2);
    vs_buf_printf(b, "%s GB", n);
}

/* The capacity as the capacity check shows it: a nominal capacity with its
 * marketed GB first, the basis, and the nominal figure beside a reported one. */
static void capacity_words(vs_buf *b, const vs_classify_row *row, uint64_t capacity)
{
    if (!row->reported_known) {
        gb(b, capacity);
        vs_buf_puts(b, " = ");
    }
    gib(b, capacity);
    vs_buf_printf(b, " (%s",
                  row->capacity_basis && !strcmp(row->capacity_basis, "reported")
                      ? "device-reported total"
                      : "nominal, as marketed");
    if (row->reported_known && row->nominal_known) {
        /* The nominal figure too, so both scopes are side by side, each labelled. */
        vs_buf_puts(b, "; nominal ");
        gb(b, row->nominal_bytes);
        vs_buf_puts(b, " = ");
        gib(b, row->nominal_bytes);
    }
    vs_buf_puts(b, ")");
}

static void unknown_words(vs_buf *b, const vs_classification *c)
{
    size_t i;
    json_t *n;
    int first = 1;
    if (!c->env.weights_known) {
        vs_buf_puts(b, "the weights");
        first = 0;
    }
    json_array_foreach(c->unknown, i, n)
    {
        vs_buf_printf(b, "%s%s", first ? "" : ", ", json_string_value(n));
        first = 0;
    }
}

/* The capacity reasons: "the known part of the per-GPU envelope, A, ...". */
static void capacity_why(vs_buf *out, const vs_classification *c, const vs_classify_row *row,
                         const vs_classify_why *w)
{
    vs_buf a = VS_BUF_INIT, b = VS_BUF_INIT, m = VS_BUF_INIT, bin = VS_BUF_INIT;
    gib(&a, w->need_bytes);
    capacity_words(&b, row, w->capacity_bytes);
    gib(&m, w->margin_bytes);
    gib(&bin, w->binary_bytes);
    switch (w->code) {
    case VS_WHY_CAP_NOMINAL_UNSURE:
        vs_buf_printf(out,
                      "the known part of the per-GPU envelope, %s, exceeds the capacity, %s, by "
                      "%s, but not %s, the nominal figure read in binary units: a nominal figure "
                      "cannot exclude alone; missing: the device-reported total in bytes (give "
                      "reported=AMOUNT reported_source=\"...\", e.g. nvidia-smi's memory.total)",
                      vs_buf_str(&a), vs_buf_str(&b), vs_buf_str(&m), vs_buf_str(&bin));
        break;
    case VS_WHY_CAP_EXCEEDS_NOMINAL:
        vs_buf_printf(out,
                      "the known part of the per-GPU envelope, %s, already exceeds the capacity, "
                      "%s, by %s, and even %s, the nominal figure read in binary units",
                      vs_buf_str(&a), vs_buf_str(&b), vs_buf_str(&m), vs_buf_str(&bin));
        break;
    case VS_WHY_CAP_EXCEEDS:
        vs_buf_printf(out,
                      "the known part of the per-GPU envelope, %s, already exceeds the capacity, "
                      "%s, by %s",
                      vs_buf_str(&a), vs_buf_str(&b), vs_buf_str(&m));
        break;
    case VS_WHY_CAP_FITS_UNKNOWN:
        vs_buf_printf(out, "fits so far: %s (known part) within %s, margin %s; unknown: ",
                      vs_buf_str(&a), vs_buf_str(&b), vs_buf_str(&m));
        unknown_words(out, c);
        break;
    case VS_WHY_CAP_FITS_STALE:
        vs_buf_printf(out, "fits so far: %s within %s, margin %s; but %s: %s", vs_buf_str(&a),
                      vs_buf_str(&b), vs_buf_str(&m), VS_STALE_FLAG, c->env.stale);
        break;
    default:
        vs_buf_printf(out,
                      "every component known: the per-GPU envelope %s fits within %s, margin %s",
                      vs_buf_str(&a), vs_buf_str(&b), vs_buf_str(&m));
        break;
    }
    if (vs_buf_failed(&a) || vs_buf_failed(&b) || vs_buf_failed(&m) || vs_buf_failed(&bin))
        out->failed = 1;
    vs_buf_free(&a);
    vs_buf_free(&b);
    vs_buf_free(&m);
    vs_buf_free(&bin);
}

/* The offload placement's host memory line: the weights it keeps there
 * against the offer's host= (the machine's RAM). */
static void host_why(vs_buf *out, const vs_classify_why *w)
{
    vs_buf a = VS_BUF_INIT, b = VS_BUF_INIT, m = VS_BUF_INIT;
    gib(&a, w->need_bytes);
    if (w->code == VS_WHY_HOST_UNKNOWN) {
        vs_buf_printf(out,
                      "the placement keeps %s of weights in host memory; the offer's host "
                      "memory is unknown: give it on the gpu line (host=64GB)",
                      vs_buf_str(&a));
    } else {
        gib(&b, w->capacity_bytes);
        gib(&m, w->margin_bytes);
        if (w->code == VS_WHY_HOST_EXCEEDS)
            vs_buf_printf(out,
                          "the weights the placement keeps in host memory, %s, exceed the "
                          "offer's host memory, %s, by %s",
                          vs_buf_str(&a), vs_buf_str(&b), vs_buf_str(&m));
        else
            vs_buf_printf(out,
                          "the weights kept in host memory, %s, fit within the offer's host "
                          "memory, %s, margin %s",
                          vs_buf_str(&a), vs_buf_str(&b), vs_buf_str(&m));
    }
    if (vs_buf_failed(&a) || vs_buf_failed(&b) || vs_buf_failed(&m))
        out->failed = 1;
    vs_buf_free(&a);
    vs_buf_free(&b);
    vs_buf_free(&m);
}

void vs_candidates_why_text(vs_buf *out, const vs_classification *c, const vs_classify_row *row,
                            const vs_classify_req *r)
{
    const vs_classify_why *w = &r->why;
    char p[64], b[64];
    switch (w->code) {
    case VS_WHY_NO_EVIDENCE:
        vs_buf_puts(out, "no evidence yet");
        break;
    case VS_WHY_EVIDENCE_EXCLUDES:
        vs_buf_puts(out, "excluded by evidence");
        break;
    case VS_WHY_EVIDENCE_ADMITS:
        vs_buf_puts(out, "confirmed by evidence");
        break;
    case VS_WHY_EVIDENCE_MOVED:
        vs_buf_printf(out,
                      "the evidence no longer holds: the card changed since it was given (%s); "
                      "confirm it again for this card",
                      w->text ? w->text : "");
        break;
    case VS_WHY_CAP_TOO_FEW_CARDS:
        vs_buf_printf(out,
                      "the placement spreads the work over %u GPUs; this offer has %u card%s, so "
                      "the per-GPU envelope does not apply to it",
                      w->gpus, w->cards, w->cards == 1 ? "" : "s");
        break;
    case VS_WHY_CAP_UNKNOWN:
        vs_buf_puts(out, "the card's memory is unknown: give memory= (nominal) or reported= "
                         "(device-reported)");
        break;
    case VS_WHY_CAP_EXCEEDS:
    case VS_WHY_CAP_EXCEEDS_NOMINAL:
    case VS_WHY_CAP_NOMINAL_UNSURE:
    case VS_WHY_CAP_FITS_UNKNOWN:
    case VS_WHY_CAP_FITS_STALE:
    case VS_WHY_CAP_FITS:
        capacity_why(out, c, row, w);
        break;
    case VS_WHY_HOST_UNKNOWN_WEIGHTS:
        vs_buf_puts(out, "the placement keeps weights in host memory, but the weights are not "
                         "known yet");
        break;
    case VS_WHY_HOST_UNKNOWN:
    case VS_WHY_HOST_EXCEEDS:
    case VS_WHY_HOST_FITS:
        host_why(out, w);
        break;
    case VS_WHY_ENGINE_START:
        vs_units_round(p, sizeof p, w->kv_pool_bytes, VS_UNIT_GIB, 2);
        vs_units_round(b, sizeof b, w->budget_bytes, VS_UNIT_GIB, 2);
        vs_buf_printf(out, "engine %s: budget %s GiB, KV pool %s GiB%s; %s", w->engine, b, p,
                      w->upper_bound ? " (an upper bound: some items are unknown)" : "",
                      w->text ? w->text : "");
        break;
    case VS_WHY_ENGINE_CONCURRENCY:
        vs_buf_printf(out, "engine %s: the KV pool holds %.2f requests of the card's length%s",
                      w->engine, w->max_concurrency, w->upper_bound ? " at most" : "");
        break;
    case VS_WHY_ENGINE_LENGTH:
        vs_buf_printf(
            out, "engine %s: at the card's concurrency the longest sequence is %llu tokens%s",
            w->engine, (unsigned long long)w->max_length, w->upper_bound ? " at most" : "");
        break;
    }
    if (w->not_offset)
        vs_buf_puts(out, "; evidence marked it admissible, but an established failure is not "
                         "offset: revise the envelope instead");
}

void vs_candidates_label_text(vs_buf *out, const vs_classify_req *r)
{
    const vs_classify_ask *a = &r->ask;
    const char *n = r->name;
    unsigned long long v = a->value, v2 = a->value2;
    if (!r->builtin) {
        vs_buf_puts(out, n);
    } else if (!strcmp(n, "capacity")) {
        vs_buf_puts(out, "the per-GPU envelope within one card's memory");
    } else if (!strcmp(n, "host-memory")) {
        vs_buf_puts(out, "the weights the offload placement keeps in host memory within the "
                         "machine's RAM");
    } else if (!strcmp(n, "available-memory")) {
        vs_buf_puts(out, "memory actually available on the device (after the driver, the CUDA "
                         "context and other processes), not the nominal or reported total");
    } else if (!strcmp(n, "compatibility")) {
        if (a->text)
            vs_buf_printf(out, "software compatibility: driver, CUDA, framework and the %s format",
                          a->text);
        else
            vs_buf_puts(out, "software compatibility: driver, CUDA and framework");
    } else if (!strcmp(n, "quality") && a->text) {
        vs_buf_printf(out, "quality criterion: %s", a->text);
    } else if (!strcmp(n, "resolution") && a->known && a->known2) {
        vs_buf_printf(out, "resolution %llux%llu pixels", v, v2);
    } else if (!a->known || !strcmp(n, "resolution")) {
        /* what the card does not declare yet, under the name people read */
        vs_buf_printf(out, "%s: not declared on the card yet",
                      !strcmp(n, "length")    ? "required length"
                      : !strcmp(n, "quality") ? "quality criterion"
                                              : n);
    } else if (!strcmp(n, "length")) {
        vs_buf_printf(out, "required length: %llu tokens per sequence", v);
    } else if (!strcmp(n, "concurrency")) {
        vs_buf_printf(out, "concurrency: %llu simultaneous sequences", v);
    } else if (!strcmp(n, "microbatch")) {
        vs_buf_printf(out, "microbatch %llu", v);
        if (a->known2)
            vs_buf_printf(out, ", accumulation %llu", v2);
    } else {
        vs_buf_printf(out, "%s: %llu", n, v); /* frames, batch */
    }
}

void vs_candidates_note_text(vs_buf *out, const vs_classification *c, const vs_classify_note *n)
{
    const vs_classify_row *row = n->row < c->nrows ? &c->rows[n->row] : NULL;
    char pl[96];
    const char *desc = NULL;
    size_t i;
    if (n->placement_known)
        desc = vs_placement_describe(&n->placement, pl, sizeof pl);
    switch (n->code) {
    case VS_NOTE_TOO_FEW_CARDS:
        if (!row)
            break;
        vs_buf_printf(out,
                      "%s: cards=%u is fewer than the placement's gpus=%u (%s): the per-GPU "
                      "envelope does not apply to this offer, so its capacity is excluded; give "
                      "cards=%u, or a placement on %u GPU%s",
                      row->gpu, row->cards, n->gpus, desc ? desc : "the placement", n->gpus,
                      row->cards, row->cards == 1 ? "" : "s");
        break;
    case VS_NOTE_CARDS_UNPLACED:
        if (!row)
            break;
        vs_buf_printf(out,
                      "%s: %u cards, but without a placement on %u GPUs a second card adds "
                      "nothing: two cards are not one memory space, so the capacity is one card's",
                      row->gpu, row->cards, row->cards);
        break;
    case VS_NOTE_CARDS_IDLE:
        if (!row)
            break;
        vs_buf_printf(out,
                      "%s: %u cards, of which the placement (%s) uses %u; the others add nothing "
                      "to the capacity",
                      row->gpu, row->cards, desc ? desc : "a single GPU", n->gpus);
        break;
    case VS_NOTE_NOT_RANKED:
        vs_buf_printf(out,
                      "%zu candidates are retained but not ranked: the total package cost comes "
                      "first, and ",
                      n->count);
        for (i = 0; i < n->nparts; i++) {
            const vs_classify_unranked *u = &n->parts[i];
            if (i)
                vs_buf_puts(out, "; ");
            if (u->gpu)
                vs_buf_printf(out, "%s has no price", u->gpu);
            else
                vs_buf_printf(out,
                              "prices in %s and %s cannot be compared without a documented "
                              "exchange rate",
                              u->currency, u->other);
        }
        break;
    case VS_NOTE_PERIODS_DIFFER:
        vs_buf_puts(out, "the retained packages cover different periods: the ranking compares "
                         "each package's total cost, not a rate");
        break;
    case VS_NOTE_EVIDENCE_UNUSED:
        vs_buf_printf(out,
                      "evidence for %s / %s names no current candidate or requirement; it is "
                      "kept but not used",
                      n->text ? n->text : "?", n->text2 ? n->text2 : "?");
        break;
    case VS_NOTE_ENGINE:
        vs_buf_printf(out,
                      "capacity, length and concurrency follow `fit` under engine %s: its budget "
                      "and KV pool, not the envelope's sum",
                      n->engine);
        break;
    case VS_NOTE_PRICES:
        vs_buf_puts(out, "prices rank the total package cost only; they rank no speed");
        break;
    }
}

/* ---- the payload ---- */

/* Written, not built as a tree and dumped: a candidates payload repeats
 * every requirement's evidence and notes for every offer. */
static void req_write(vs_jw *w, const vs_classification *c, const vs_classify_row *row,
                      const vs_classify_req *r, vs_buf *scratch)
{
    vs_jw_open(w, '{');
    vs_jw_member_str(w, "name", r->name);
    vs_buf_reset(scratch);
    vs_candidates_label_text(scratch, r);
    vs_jw_member_str(w, "label", vs_buf_str(scratch));
    vs_buf_reset(scratch);
    vs_candidates_why_text(scratch, c, row, r);
    vs_jw_member_bool(w, "builtin", r->builtin);
    vs_jw_member_str(w, "verdict", vs_verdict_name(r->verdict));
    vs_jw_member_value(w, "evidence", r->evidence);
    vs_jw_member_str(w, "note", vs_buf_str(scratch));
    vs_jw_close(w, '}');
}

static void row_write(vs_jw *w, const vs_classification *c, const vs_classify_row *r,
                      vs_buf *scratch)
{
    size_t i;
    vs_jw_open(w, '{');
    vs_jw_member_str(w, "gpu", r->gpu);
    vs_jw_member_str(w, "catalog", r->catalog);
    vs_jw_member_bytes(w, "capacity_bytes", r->capacity_known, r->capacity_bytes);
    vs_jw_member_str(w, "capacity_basis", r->capacity_basis);
    vs_jw_member_bytes(w, "nominal_bytes", r->nominal_known, r->nominal_bytes);
    vs_jw_member_bytes(w, "reported_bytes", r->reported_known, r->reported_bytes);
    vs_jw_member_str(w, "reported_basis", r->reported_basis);
    vs_jw_key(w, "margin_bytes");
    if (r->margin_known)
        vs_jw_i64(w, r->margin_bytes);
    else
        vs_jw_null(w);
    vs_jw_member_u64(w, "cards", r->cards);
    vs_jw_member_u64(w, "cards_counted", r->cards_counted);
    vs_jw_member_str(w, "price", r->price);
    vs_jw_member_str(w, "currency", r->currency);
    vs_jw_member_str(w, "period", r->period);
    vs_jw_member_str(w, "available", r->available);
    vs_jw_member_str(w, "interconnect", r->interconnect);
    vs_jw_key(w, "requirements");
    vs_jw_open(w, '[');
    for (i = 0; i < r->nreqs; i++)
        req_write(w, c, r, &r->reqs[i], scratch);
    vs_jw_close(w, ']');
    vs_jw_member_str(w, "verdict", vs_verdict_name(r->verdict));
    vs_jw_member_bool(w, "retained", r->verdict == VS_VERDICT_ADMISSIBLE);
    vs_jw_member_bytes(w, "rank", r->ranked, r->rank);
    vs_jw_key(w, "package_cost");
    if (r->price && r->currency) {
        vs_jw_open(w, '{');
        vs_jw_member_str(w, "amount", r->price);
        vs_jw_member_str(w, "currency", r->currency);
        vs_jw_close(w, '}');
    } else {
        vs_jw_null(w);
    }
    vs_jw_close(w, '}');
}

void vs_candidates_payload_write(vs_jw *w, const vs_classification *c)
{
    size_t i;
    vs_buf scratch = VS_BUF_INIT;
    vs_jw_member_str(w, "kind", "candidates");
    vs_jw_member_u64(w, "envelope_bytes", c->env.envelope_bytes);
    vs_jw_key(w, "envelope_complete");
    vs_jw_bool(w,
               c->env.weights_known && json_array_size(c->unknown) == 0 && c->env.n_unknown == 0);
    vs_jw_member_bool(w, "conservative", c->env.conservative);
    vs_jw_member_value(w, "unknown", c->unknown);
    vs_jw_member_u64(w, "gpus", c->env.gpus ? c->env.gpus : 1);
    vs_jw_key(w, "requirements");
    vs_jw_open(w, '[');
    for (i = 0; c->nrows && i < c->rows[0].nreqs; i++)
        vs_jw_str(w, c->rows[0].reqs[i].name);
    vs_jw_close(w, ']');
    vs_jw_key(w, "rows");
    vs_jw_open(w, '[');
    for (i = 0; i < c->nrows; i++)
        row_write(w, c, &c->rows[i], &scratch);
    vs_jw_close(w, ']');
    vs_jw_member_u64(w, "retained", c->nretained);
    vs_jw_member_bool(w, "ranked", c->ranked);
    vs_jw_key(w, "ranked_by");
    vs_jw_open(w, '[');
    vs_jw_str(w, "total package cost");
    vs_jw_str(w, "useful margin");
    vs_jw_str(w, "documented schedule");
    vs_jw_close(w, ']');
    vs_jw_key(w, "notes");
    vs_jw_open(w, '[');
    for (i = 0; i < c->nnotes; i++) {
        vs_buf_reset(&scratch);
        vs_candidates_note_text(&scratch, c, &c->notes[i]);
        vs_jw_str(w, vs_buf_str(&scratch));
    }
    vs_jw_close(w, ']');
    if (vs_buf_failed(&scratch))
        w->out->failed = 1;
    vs_buf_free(&scratch);
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
        if (r->ranked)
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
    if (json_string_value(json_object_get(e, "moved")))
        vs_buf_printf(b, "; no longer holds, the card changed since (%s): to confirm again",
                      json_string_value(json_object_get(e, "moved")));
}

static void header_text(vs_buf *b, const vs_classification *c)
{
    char env[160];
    vs_units_describe(env, sizeof env, c->env.envelope_bytes);
    vs_buf_printf(b, "Candidates against the per-GPU envelope%s: %s",
                  c->env.weights_known && !json_array_size(c->unknown) ? "" : " (known part)", env);
    if (c->env.gpus > 1)
        vs_buf_printf(b, ", per GPU on %u GPUs", c->env.gpus);
    if (c->env.phases.n)
        vs_buf_printf(b,
                      " (the worst phase%s, %s, a sum of that phase's maxima, not an observed "
                      "peak)",
                      c->env.offload_basis ? " under CPU offload" : "",
                      c->env.phases.row[c->env.phases.worst].name);
    else if (c->env.conservative)
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
    vs_buf_puts(text, vs_buf_str(&line));
    vs_buf_putc(text, '\n');
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
            vs_buf_printf(&line, "%s / capacity: %s: ", c->rows[i].gpu,
                          vs_verdict_name(cap->verdict));
            vs_candidates_why_text(&line, c, &c->rows[i], cap);
            vs_buf_append(text, "  - ", 4);
            vs_buf_puts(text, vs_buf_str(&line));
            vs_buf_putc(text, '\n');
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
                    vs_buf_append(text, "  - ", 4);
                    vs_buf_puts(text, vs_buf_str(&line));
                    vs_buf_putc(text, '\n');
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
            vs_candidates_note_text(&line, c, &c->notes[i]);
            vs_buf_append(text, "  - ", 4);
            vs_buf_puts(text, vs_buf_str(&line));
            vs_buf_putc(text, '\n');
            vs_buf_puts(html, "<li>");
            vs_buf_put_html(html, vs_buf_str(&line));
            vs_buf_puts(html, "</li>\n");
            vs_buf_reset(&line);
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

/* svg or chart_json (the chart as a JSON string) or neither. */
static vs_bundle *bundle_of(const vs_classification *c, const char *svg, const vs_buf *chart_json)
{
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT, payload = VS_BUF_INIT;
    vs_jw w = VS_JW_INIT(&payload);
    vs_bundle *bundle = NULL;
    vs_jw_open(&w, '{');
    vs_candidates_payload_write(&w, c);
    vs_jw_close(&w, '}');
    render(c, &text, &html);
    if (vs_buf_failed(&text) || vs_buf_failed(&html) || vs_buf_failed(&payload))
        ;
    else if (chart_json)
        bundle = vs_bundle_new_chart(vs_buf_str(&text), vs_buf_str(&html), chart_json,
                                     vs_buf_str(&payload), payload.len);
    else
        bundle = vs_bundle_new_text(vs_buf_str(&text), vs_buf_str(&html), svg, vs_buf_str(&payload),
                                    payload.len);
    vs_buf_free(&text);
    vs_buf_free(&html);
    vs_buf_free(&payload);
    return bundle;
}

vs_bundle *vs_candidates_bundle(const vs_classification *c, const char *svg)
{
    return bundle_of(c, svg, NULL);
}

vs_bundle *vs_candidates_bundle_chart(const vs_classification *c, const vs_buf *chart_json)
{
    return chart_json ? bundle_of(c, NULL, chart_json) : NULL;
}
