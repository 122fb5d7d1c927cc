#include "render/sizing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/bundle.h"
#include "render/svg.h"
#include "sheet/capacity.h"
#include "sheet/derived.h"
#include "sheet/kvlayout.h"
#include "sheet/placement.h"
#include "sheet/sheet.h"
#include "sheet/units.h"
#include "util/buf.h"
#include "util/json.h"

#define AMT 64

/* out = s + suffix (out holds AMT bytes; s is at most 39 characters) */
static void with_unit(char *out, const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    memcpy(out, s, n);
    memcpy(out + n, suffix, k + 1);
}

void vs_render_amount(uint64_t bytes, char *b, char *gb, char *gib)
{
    char t[40];
    /* every row of an envelope shows three amounts: no printf here */
    vs_units_grouped(t, sizeof t, bytes);
    with_unit(b, t, " B");
    vs_units_round(t, sizeof t, bytes, VS_UNIT_GB, 2);
    with_unit(gb, t, " GB");
    vs_units_round(t, sizeof t, bytes, VS_UNIT_GIB, 2);
    with_unit(gib, t, " GiB");
}

static json_t *int_or_null(int known, uint64_t v)
{
    return known ? json_integer((json_int_t)v) : json_null();
}

/* Finishes a bundle whose payload was written as JSON text (vs_jw); frees all
 * three buffers. */
static vs_bundle *finish_text(vs_buf *text, vs_buf *html, const char *svg, vs_buf *payload)
{
    vs_bundle *b = NULL;
    if (!vs_buf_failed(payload) && !vs_buf_failed(text) && !vs_buf_failed(html))
        b = vs_bundle_new_text(vs_buf_str(text), vs_buf_str(html), svg, vs_buf_str(payload),
                               payload->len);
    vs_buf_free(text);
    vs_buf_free(html);
    vs_buf_free(payload);
    return b;
}

/* finish_text for a payload built as a tree (taken). */
static vs_bundle *finish(vs_buf *text, vs_buf *html, const char *svg, json_t *payload)
{
    vs_buf p = VS_BUF_INIT;
    vs_json_dump_take(payload, &p);
    return finish_text(text, html, svg, &p);
}

static void put_notes(vs_buf *text, vs_buf *html, const char *const *notes, size_t n)
{
    size_t i;
    if (!n)
        return;
    vs_buf_puts(html, "<ul>\n");
    for (i = 0; i < n; i++) {
        if (!notes[i])
            continue;
        vs_buf_printf(text, "%s\n", notes[i]);
        vs_buf_puts(html, "<li>");
        vs_buf_put_html(html, notes[i]);
        vs_buf_puts(html, "</li>\n");
    }
    vs_buf_puts(html, "</ul>\n");
}

static void put_headline(vs_buf *text, vs_buf *html, const char *headline)
{
    if (!headline)
        return;
    vs_buf_printf(text, "%s\n", headline);
    vs_buf_puts(html, "<p>");
    vs_buf_put_html(html, headline);
    vs_buf_puts(html, "</p>\n");
}

static void put_table(vs_buf *text, vs_buf *html, vs_table *t)
{
    vs_table_text(t, text);
    vs_table_html(t, html);
    if (vs_table_failed(t))
        text->failed = 1;
}

/* The shape of a table result: headline, table (freed here), the notes of a
 * NULL-terminated list after a blank line, then the bundle with the payload's
 * text (freed here, as finish_text does). */
static vs_bundle *finish_table(vs_buf *text, vs_buf *html, const char *headline, vs_table *t,
                               const char *const *notes, vs_buf *payload)
{
    size_t nnotes = 0;
    put_headline(text, html, headline);
    put_table(text, html, t);
    vs_table_free(t);
    while (notes && notes[nnotes])
        nnotes++;
    if (nnotes)
        vs_buf_puts(text, "\n");
    put_notes(text, html, notes, nnotes);
    return finish_text(text, html, NULL, payload);
}

static const char *placement_text(const json_t *sheet, char *out, size_t outlen)
{
    vs_placement pl;
    if (vs_placement_from_sheet(&pl, sheet, NULL))
        return "single GPU";
    return vs_placement_describe(&pl, out, outlen);
}

/* ----------------------------------------------------------------- weights */

vs_bundle *vs_render_weights(const json_t *sheet, const vs_envelope *env,
                             const json_t *files_payload)
{
    static const char *const hdr[] = {"quantity", "bytes", "GB", "GiB", "basis"};
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    json_t *card = vs_sheet_card(sheet), *p, *wf = json_object_get(sheet, "weights_files");
    vs_table *t = vs_table_new(5, hdr);
    uint64_t params = 0;
    int have_params = vs_sheet_card_uint(sheet, "params", &params);
    unsigned bits = vs_sheet_weight_bits(sheet);
    int files = env->weights_basis && !strcmp(env->weights_basis, "safetensors files");
    char b[AMT], gb[AMT], gib[AMT], desc[160], basis[160], pl[128], gp[40], ftnote[96];
    const char *notes[4];
    size_t nn = 0;
    const char *qnote = files ? NULL : vs_format_quant_note(bits);

    if (!t)
        return NULL;
    vs_table_align_right(t, 1);
    vs_table_align_right(t, 2);
    vs_table_align_right(t, 3);
    vs_units_grouped(gp, sizeof gp, params);
    if (files)
        snprintf(basis, sizeof basis, "the files' tensor bytes (%s)",
                 json_string_value(json_object_get(wf, "path"))
                     ? json_string_value(json_object_get(wf, "path"))
                     : "safetensors");
    else
        snprintf(basis, sizeof basis, "%s params x %u bits / 8", gp, bits);
    vs_render_amount(env->weights_bytes, b, gb, gib);
    {
        const char *row[5] = {"weights only", b, gb, gib, basis};
        vs_table_add_row(t, row);
    }
    if (env->weights_gpu_bytes != env->weights_bytes || env->gpus > 1) {
        char b2[AMT], gb2[AMT], gib2[AMT];
        const char *row[5] = {"weights per GPU", b2, gb2, gib2,
                              placement_text(sheet, pl, sizeof pl)};
        vs_render_amount(env->weights_gpu_bytes, b2, gb2, gib2);
        vs_table_add_row(t, row);
    }
    vs_units_describe(desc, sizeof desc, env->weights_bytes);
    if (files)
        vs_buf_printf(&text, "weights only, from the files: %s\n", desc);
    else
        vs_buf_printf(&text, "weights only: %s params x %u bits / 8 = %s\n", gp, bits, desc);
    vs_buf_puts(&html, "<p>");
    vs_buf_put_html(&html, files ? "weights only, from the files: " : "weights only: ");
    vs_buf_put_html(&html, desc);
    vs_buf_puts(&html, "</p>\n");
    put_table(&text, &html, t);
    vs_table_free(t);
    notes[nn++] = "a lower bound, not a GPU recommendation: the KV cache, activations, "
                  "workspaces, the CUDA context and other allocations come on top";
    if (qnote)
        notes[nn++] = qnote;
    if (files)
        notes[nn++] = "the sheet's weights are these bytes until the model or the format changes";
    if (files && json_is_string(json_object_get(files_payload, "file_type"))) {
        snprintf(ftnote, sizeof ftnote, "GGUF file type %s (general.file_type)",
                 json_string_value(json_object_get(files_payload, "file_type")));
        notes[nn++] = ftnote;
    }

    if (files && json_is_array(json_object_get(wf, "by_dtype")) &&
        json_array_size(json_object_get(wf, "by_dtype"))) {
        static const char *const h2[] = {"dtype", "params", "bytes", "GB", "GiB"};
        vs_table *d = vs_table_new(5, h2);
        size_t i;
        json_t *x;
        if (d) {
            vs_table_align_right(d, 1);
            vs_table_align_right(d, 2);
            vs_table_align_right(d, 3);
            vs_table_align_right(d, 4);
            vs_json_array_foreach(json_object_get(wf, "by_dtype"), i, x)
            {
                char pc[40] = "";
                json_t *xp = json_object_get(x, "params");
                const char *row[5] = {json_string_value(json_object_get(x, "dtype")), pc, b, gb,
                                      gib};
                if (json_is_integer(xp))
                    vs_units_grouped(pc, sizeof pc, (uint64_t)json_integer_value(xp));
                vs_render_amount((uint64_t)json_integer_value(json_object_get(x, "bytes")), b, gb,
                                 gib);
                vs_table_add_row(d, row);
            }
            vs_buf_puts(&text, "\nby dtype:\n");
            vs_buf_puts(&html, "<p>by dtype</p>\n");
            put_table(&text, &html, d);
            vs_table_free(d);
        } else {
            text.failed = 1;
        }
    }
    if (files && json_array_size(json_object_get(wf, "components"))) {
        /* a diffusers pipeline: each component's bytes */
        static const char *const h4[] = {"component", "class", "params", "bytes", "GB", "GiB"};
        vs_table *d = vs_table_new(6, h4);
        size_t i;
        json_t *x;
        if (d) {
            vs_table_align_right(d, 2);
            vs_table_align_right(d, 3);
            vs_table_align_right(d, 4);
            vs_table_align_right(d, 5);
            vs_json_array_foreach(json_object_get(wf, "components"), i, x)
            {
                char pc[40] = "";
                const char *row[6] = {json_string_value(json_object_get(x, "name")),
                                      json_string_value(json_object_get(x, "class")),
                                      pc,
                                      b,
                                      gb,
                                      gib};
                if (json_is_integer(json_object_get(x, "params")))
                    vs_units_grouped(pc, sizeof pc,
                                     (uint64_t)json_integer_value(json_object_get(x, "params")));
                vs_render_amount((uint64_t)json_integer_value(json_object_get(x, "bytes")), b, gb,
                                 gib);
                vs_table_add_row(d, row);
            }
            vs_buf_puts(&text, "\npipeline components:\n");
            vs_buf_puts(&html, "<p>pipeline components</p>\n");
            put_table(&text, &html, d);
            vs_table_free(d);
        } else {
            text.failed = 1;
        }
    }
    if (files && json_array_size(json_object_get(wf, "other_dtype"))) {
        static const char *const h3[] = {"tensors kept in another format", "dtype", "tensors",
                                         "bytes"};
        vs_table *d = vs_table_new(4, h3);
        size_t i;
        json_t *x;
        if (d) {
            vs_table_align_right(d, 2);
            vs_table_align_right(d, 3);
            vs_json_array_foreach(json_object_get(wf, "other_dtype"), i, x)
            {
                char nt[40] = "";
                json_t *xt = json_object_get(x, "tensors");
                const char *row[4] = {json_string_value(json_object_get(x, "pattern")),
                                      json_string_value(json_object_get(x, "dtype")), nt, desc};
                if (json_is_integer(xt))
                    vs_units_grouped(nt, sizeof nt, (uint64_t)json_integer_value(xt));
                vs_units_describe(desc, sizeof desc,
                                  (uint64_t)json_integer_value(json_object_get(x, "bytes")));
                vs_table_add_row(d, row);
            }
            vs_buf_puts(&text, "\n");
            put_table(&text, &html, d);
            vs_table_free(d);
        } else {
            text.failed = 1;
        }
    }
    vs_buf_puts(&text, "\n");
    put_notes(&text, &html, notes, nn);

    p = files_payload ? json_deep_copy(files_payload) : json_object();
    if (!p)
        goto fail;
    json_object_set_new(p, "kind", json_string("weights"));
    if (!files || !json_object_get(p, "params"))
        json_object_set_new(p, "params", int_or_null(have_params, params));
    if (!files_payload)
        json_object_set_new(p, "bits", bits && !files ? json_integer(bits) : json_null());
    json_object_set_new(p, "bytes", json_integer((json_int_t)env->weights_bytes));
    json_object_set_new(p, "basis", json_string(env->weights_basis));
    json_object_set_new(p, "gpu_bytes", json_integer((json_int_t)env->weights_gpu_bytes));
    json_object_set_new(p, "gpus", json_integer(env->gpus));
    /* read from files, "format" is theirs ("gguf", "safetensors"); the card's is card_format */
    if (!json_is_string(json_object_get(files_payload, "format")))
        json_object_set_new(p, "format", json_deep_copy(json_object_get(card, "format")));
    if (!json_object_get(p, "format"))
        json_object_set_new(p, "format", json_null());
    json_object_set_new(p, "card_format", json_deep_copy(json_object_get(card, "format")));
    if (!json_object_get(p, "card_format"))
        json_object_set_new(p, "card_format", json_null());
    json_object_set_new(p, "lower_bound", json_true());
    if (files && !json_object_get(p, "components") &&
        json_is_array(json_object_get(wf, "components")))
        json_object_set_new(p, "components", json_deep_copy(json_object_get(wf, "components")));
    if (files && !files_payload) {
        json_object_set_new(p, "path", json_deep_copy(json_object_get(wf, "path")));
        json_object_set_new(p, "by_dtype", json_deep_copy(json_object_get(wf, "by_dtype")));
        json_object_set_new(p, "other_dtype", json_deep_copy(json_object_get(wf, "other_dtype")));
    }
    {
        json_t *ns = json_array();
        size_t i;
        for (i = 0; ns && i < nn; i++)
            json_array_append_new(ns, json_string(notes[i]));
        json_object_set_new(p, "notes", ns ? ns : json_array());
    }
    return finish(&text, &html, NULL, p);
fail:
    vs_buf_free(&text);
    vs_buf_free(&html);
    return NULL;
}

/* ---------------------------------------------------------------- envelope */

/* The words for an offer's capacity basis (the rule is vs_offer_capacity's):
 * "device-reported, <source>" or "nominal 80 GB". 0 when neither is known. */
static int offer_capacity(const json_t *offer, uint64_t *bytes, char *basis, size_t blen)
{
    vs_offer_cap cap;
    vs_offer_capacity(&cap, offer);
    *bytes = cap.bytes;
    if (cap.basis == VS_CAPACITY_REPORTED) {
        const char *rb = cap.reported_source;
        /* a chart's legend keeps where the figure comes from ("catalogue"),
         * not its whole citation: the offer's own output gives that */
        size_t n = rb ? strcspn(rb, ":;(") : 0;
        if (rb && !strncmp(rb, "catalogue", 9))
            n = 9;
        while (n && rb[n - 1] == ' ')
            n--;
        snprintf(basis, blen, "device-reported%s%.*s", n ? ", " : "", (int)n, n ? rb : "");
        return 1;
    }
    if (cap.basis == VS_CAPACITY_NOMINAL) {
        char g[48];
        vs_units_round(g, sizeof g, cap.bytes, VS_UNIT_GB, 0);
        snprintf(basis, blen, "nominal %s GB", g);
        return 1;
    }
    return 0;
}

/* One line per offer with fewer cards than the placement's GPUs: its
 * capacity line is one card's, and the per-GPU envelope does not apply to it. */
static void cards_short_lines(vs_buf *text, vs_buf *html, const json_t *sheet,
                              const vs_placement *pl)
{
    json_t *o;
    size_t i;
    json_array_foreach(vs_sheet_array(sheet, "offers"), i, o)
    {
        json_t *c = json_object_get(o, "cards");
        json_int_t cards =
            json_is_integer(c) && json_integer_value(c) > 0 ? json_integer_value(c) : 1;
        const char *name = json_string_value(json_object_get(o, "name"));
        vs_buf line = VS_BUF_INIT;
        if ((uint64_t)cards >= pl->gpus)
            continue;
        vs_buf_printf(&line,
                      "%s: cards=%lld is fewer than the placement's gpus=%u: the per-GPU "
                      "envelope does not apply to this offer (give cards=%u, or a placement on "
                      "%lld GPU%s)",
                      name ? name : "?", (long long)cards, pl->gpus, pl->gpus, (long long)cards,
                      cards == 1 ? "" : "s");
        vs_buf_printf(text, "%s\n", vs_buf_str(&line));
        vs_buf_puts(html, "<p>");
        vs_buf_put_html(html, vs_buf_str(&line));
        vs_buf_puts(html, "</p>\n");
        vs_buf_free(&line);
    }
}

/* What the budget chart draws: the weights and each component per GPU, and
 * each offer's capacity line. */
typedef struct budget {
    vs_svg_segment *segs;
    size_t nseg;
    vs_svg_line *lines;
    size_t nlines;
    char (*basis)[96]; /* each line's capacity basis */
} budget;

static void budget_free(budget *b)
{
    free(b->segs);
    free(b->lines);
    free(b->basis);
}

static int budget_build(budget *b, const json_t *sheet, const vs_envelope *env,
                        const vs_component_views *views, const vs_placement *pl)
{
    json_t *offers = vs_sheet_array(sheet, "offers");
    json_t *c;
    size_t i;
    /* a pipeline's weights stack component by component (unless offloaded:
     * then the GPU holds one of them at a time) */
    json_t *wc = json_object_get(json_object_get(sheet, "weights_files"), "components");
    size_t nw = env->weights_known && !env->offload_basis ? json_array_size(wc) : 0;
    memset(b, 0, sizeof *b);
    b->segs = calloc(views->n + 1 + nw, sizeof *b->segs);
    b->lines = calloc(json_array_size(offers) + 1, sizeof *b->lines);
    b->basis = calloc(json_array_size(offers) + 1, sizeof *b->basis);
    if (!b->segs || !b->lines || !b->basis) {
        budget_free(b);
        return -1;
    }
    b->segs[0].label = env->offload_basis ? "weights on the GPU (offload)" : "weights";
    b->segs[0].known = env->weights_known;
    b->segs[0].bytes = env->weights_known ? env->weights_gpu_bytes : 0;
    b->segs[0].status = env->weights_known ? env->weights_basis : "unknown";
    b->nseg = 1;
    if (nw) {
        b->nseg = 0;
        json_array_foreach(wc, i, c)
        {
            vs_svg_segment *sg = &b->segs[b->nseg++];
            sg->label = json_string_value(json_object_get(c, "name"));
            sg->known = 1;
            sg->bytes = vs_placement_per_gpu(
                pl, "weights", (uint64_t)json_integer_value(json_object_get(c, "bytes")));
            sg->status = env->weights_basis;
        }
    }
    for (i = 0; i < views->n; i++) {
        const vs_component_view *v = &views->v[i];
        vs_svg_segment *sg = &b->segs[b->nseg++];
        sg->label = json_string_value(v->name);
        sg->known = v->known;
        sg->bytes = v->known ? vs_placement_per_gpu(pl, json_string_value(v->cls), v->value) : 0;
        sg->status = json_string_value(v->status);
    }
    json_array_foreach(offers, i, c)
    {
        uint64_t cap;
        if (!offer_capacity(c, &cap, b->basis[b->nlines], sizeof b->basis[b->nlines]))
            continue;
        b->lines[b->nlines].label = json_string_value(json_object_get(c, "name"));
        b->lines[b->nlines].bytes = cap;
        b->lines[b->nlines].basis = b->basis[b->nlines];
        b->nlines++;
    }
    return 0;
}

static char *budget_svg(const json_t *sheet, const budget *b)
{
    char title[200];
    const char *st = json_string_value(json_object_get(sheet, "title"));
    snprintf(title, sizeof title, "Memory budget per GPU%s%s", st ? ": " : "", st ? st : "");
    return vs_svg_budget(title, b->segs, b->nseg, b->lines, b->nlines);
}

static void placement_or_single(vs_placement *pl, const json_t *sheet)
{
    if (vs_placement_from_sheet(pl, sheet, NULL)) {
        pl->kind = VS_PLACE_SINGLE;
        pl->gpus = 1;
        pl->stage = 0;
    }
}

char *vs_render_envelope_svg(const json_t *sheet, const vs_envelope *env,
                             const vs_component_views *views)
{
    vs_placement pl;
    budget b;
    char *svg = NULL;
    placement_or_single(&pl, sheet);
    if (budget_build(&b, sheet, env, views, &pl) == 0) {
        svg = budget_svg(sheet, &b);
        budget_free(&b);
    }
    return svg;
}

vs_bundle *vs_render_envelope(const json_t *sheet, const vs_envelope *env,
                              const vs_component_views *views)
{
    static const char *const hdr[] = {"component", "status", "class", "per GPU",
                                      "GB",        "GiB",    "source"};
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT, unk = VS_BUF_INIT, stale = VS_BUF_INIT;
    vs_table *t = vs_table_new(7, hdr);
    json_t *caps = NULL;
    vs_placement pl;
    budget bud;
    int have_budget = 0;
    size_t i;
    char b[AMT], gb[AMT], gib[AMT], desc[160], pls[128], wsrc[160], gp[40];
    const char *notes[5];
    size_t nn = 0;
    char *svg = NULL;
    unsigned bits = vs_sheet_weight_bits(sheet);
    uint64_t params = 0;
    vs_bundle *bundle = NULL;

    if (!t)
        return NULL;
    placement_or_single(&pl, sheet);
    vs_placement_describe(&pl, pls, sizeof pls);
    for (i = 3; i <= 5; i++)
        vs_table_align_right(t, i);
    caps = json_array();
    if (!caps || budget_build(&bud, sheet, env, views, &pl) < 0)
        goto done;
    have_budget = 1;

    vs_sheet_card_uint(sheet, "params", &params);
    vs_units_grouped(gp, sizeof gp, params);
    if (env->weights_basis && !strcmp(env->weights_basis, "safetensors files")) {
        /* the basis names the files read, whatever their format */
        const json_t *fs = json_object_get(json_object_get(sheet, "weights_files"), "files");
        const char *first = json_string_value(json_object_get(json_array_get(fs, 0), "name"));
        size_t fl = first ? strlen(first) : 0;
        snprintf(wsrc, sizeof wsrc, "bytes of the %s files",
                 fl > 5 && !strcmp(first + fl - 5, ".gguf") ? "GGUF" : "safetensors");
    } else
        snprintf(wsrc, sizeof wsrc, "%s params x %u bits / 8", gp, bits);
    if (env->weights_known &&
        json_array_size(json_object_get(json_object_get(sheet, "weights_files"), "components"))) {
        /* a diffusers pipeline: one row per component, then what one GPU holds */
        json_t *c;
        json_array_foreach(json_object_get(json_object_get(sheet, "weights_files"), "components"),
                           i, c)
        {
            char nm[128], src2[256];
            const char *row[7] = {nm, "weights only", "parameters", b, gb, gib, src2};
            uint64_t cb = (uint64_t)json_integer_value(json_object_get(c, "bytes"));
            snprintf(nm, sizeof nm, "weights: %s", json_string_value(json_object_get(c, "name")));
            snprintf(src2, sizeof src2, "%s, bytes of its safetensors files%s",
                     json_string_value(json_object_get(c, "class"))
                         ? json_string_value(json_object_get(c, "class"))
                         : "?",
                     env->offload_basis ? " (in host memory; on the GPU in turn)" : "");
            vs_render_amount(env->offload_basis ? cb : vs_placement_per_gpu(&pl, "weights", cb), b,
                             gb, gib);
            vs_table_add_row(t, row);
        }
        if (env->offload_basis) {
            char hb[AMT], hgb[AMT], hgib[AMT];
            const char *row[7] = {"weights on the GPU", "offload", "parameters", b, gb, gib,
                                  env->offload_basis};
            const char *hrow[7] = {"host memory (not GPU)",
                                   "offload",
                                   "parameters",
                                   hb,
                                   hgb,
                                   hgib,
                                   "every component stays in host RAM; not in the envelope"};
            vs_render_amount(env->weights_gpu_bytes, b, gb, gib);
            vs_table_add_row(t, row);
            vs_render_amount(env->host_bytes, hb, hgb, hgib);
            vs_table_add_row(t, hrow);
        }
    } else if (env->weights_known) {
        const char *row[7] = {"weights",
                              "weights only",
                              "parameters",
                              b,
                              gb,
                              gib,
                              env->offload_basis ? env->offload_basis : wsrc};
        vs_render_amount(env->weights_gpu_bytes, b, gb, gib);
        vs_table_add_row(t, row);
    } else {
        const char *row[7] = {
            "weights", "unknown", "parameters", "unknown", "", "", "no params or format yet"};
        vs_table_add_row(t, row);
    }
    for (i = 0; i < views->n; i++) {
        const vs_component_view *v = &views->v[i];
        const char *name, *status, *cls, *src;
        int known;
        uint64_t per;
        char srcbuf[512];
        const char *row[7];
        name = json_string_value(v->name);
        status = json_string_value(v->status);
        cls = json_string_value(v->cls);
        src = json_string_value(v->source);
        known = v->known;
        per = known ? vs_placement_per_gpu(&pl, cls, v->value) : 0;
        if (known)
            vs_render_amount(per, b, gb, gib);
        if (known && vs_placement_ways(&pl, cls) > 1) {
            char whole[48];
            vs_units_grouped(whole, sizeof whole, v->value);
            snprintf(srcbuf, sizeof srcbuf, "%s B / %u GPUs; %s", whole,
                     vs_placement_ways(&pl, cls), src ? src : "");
            src = srcbuf;
        }
        row[0] = name;
        row[1] = status;
        row[2] = cls ? cls : "other";
        row[3] = known ? b : "unknown";
        row[4] = known ? gb : "";
        row[5] = known ? gib : "";
        row[6] = src ? src : "";
        vs_table_add_row(t, row);
        if (!known) { /* the names, without printf: a long reserve has dozens */
            if (unk.len)
                vs_buf_puts(&unk, ", ");
            vs_buf_puts(&unk, name ? name : "?");
        }
    }
    {
        const char *row[7] = {env->n_unknown || !env->weights_known ? "envelope (known part)"
                                                                    : "envelope",
                              env->conservative ? "conservative" : "",
                              "",
                              b,
                              gb,
                              gib,
                              pls};
        vs_render_amount(env->envelope_bytes, b, gb, gib);
        vs_table_add_row(t, row);
    }
    for (i = 0; i < bud.nlines; i++)
        json_array_append_new(caps, json_pack("{s:s?, s:I, s:s}", "name", bud.lines[i].label,
                                              "capacity_bytes", (json_int_t)bud.lines[i].bytes,
                                              "capacity_basis", bud.lines[i].basis));

    vs_units_describe(desc, sizeof desc, env->envelope_bytes);
    vs_buf_printf(&text, "envelope per GPU (%s): %s%s\n", pls, desc,
                  env->n_unknown || !env->weights_known ? " (known part only)" : "");
    vs_buf_puts(&html, "<p>");
    vs_buf_put_html(&html, "envelope per GPU (");
    vs_buf_put_html(&html, pls);
    vs_buf_put_html(&html, "): ");
    vs_buf_put_html(&html, desc);
    if (env->n_unknown || !env->weights_known)
        vs_buf_put_html(&html, " (known part only)");
    vs_buf_puts(&html, "</p>\n");
    put_table(&text, &html, t);
    vs_buf_puts(&text, "\n");

    if (env->conservative)
        notes[nn++] = "a conservative envelope: a sum of independent maxima (weights + each "
                      "component's own peak), not an observed peak";
    if (unk.len) {
        vs_buf_puts(&unk, env->n_unknown == 1
                              ? " is unknown: missing from the envelope, not counted as zero; it "
                                "is only the known part until it is estimated or measured"
                              : " are unknown: missing from the envelope, not counted as zero; it "
                                "is only the known part until they are estimated or measured");
        notes[nn++] = vs_buf_str(&unk);
    }
    if (env->weights_known && env->weights_basis &&
        !strcmp(env->weights_basis, "params x bits / 8") && vs_format_quant_note(bits))
        notes[nn++] = vs_format_quant_note(bits);
    if (pl.gpus > 1)
        notes[nn++] = "per GPU after the placement: two cards are never one memory space";
    if (env->n_stale) {
        vs_buf_printf(&stale,
                      "%s: %s; no capacity verdict is admissible on it until it is "
                      "measured again at the card's dims",
                      VS_STALE_FLAG, env->stale);
        notes[nn++] = vs_buf_str(&stale);
    }
    put_notes(&text, &html, notes, nn);
    for (i = 0; i < bud.nlines; i++) {
        vs_units_describe(desc, sizeof desc, bud.lines[i].bytes);
        vs_buf_printf(&text, "capacity line %s: %s (%s)\n",
                      bud.lines[i].label ? bud.lines[i].label : "?", desc, bud.lines[i].basis);
    }
    cards_short_lines(&text, &html, sheet, &pl);

    svg = budget_svg(sheet, &bud);
    if (!svg)
        goto done;
    {
        vs_buf pb = VS_BUF_INIT;
        vs_jw w = VS_JW_INIT(&pb);
        vs_jw_open(&w, '{');
        vs_envelope_payload_write(&w, env, sheet, views);
        vs_jw_member_value(&w, "capacities", caps);
        vs_jw_close(&w, '}');
        bundle = finish_text(&text, &html, svg, &pb);
    }
done:
    vs_table_free(t);
    vs_buf_free(&text);
    vs_buf_free(&html);
    vs_buf_free(&unk);
    vs_buf_free(&stale);
    json_decref(caps);
    free(svg);
    if (have_budget)
        budget_free(&bud);
    return bundle;
}

/* ----------------------------------------------------------------- formats */

vs_bundle *vs_render_formats(const json_t *sheet, const vs_envelope *env, const vs_format_row *rows,
                             size_t nrows)
{
    static const char *const hdr[] = {"format",      "bits",         "weights",
                                      "weights GB",  "weights GiB",  "envelope per GPU",
                                      "envelope GB", "envelope GiB", "note"};
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    vs_table *t = vs_table_new(9, hdr);
    json_t *jrows = json_array(), *p;
    uint64_t params = 0;
    char gp[40], desc[160], pls[128], headline[512];
    const char *notes[4];
    size_t nn = 0, i;
    int flagged = 0;
    if (!t || !jrows) {
        vs_table_free(t);
        json_decref(jrows);
        return NULL;
    }
    for (i = 1; i <= 7; i++)
        vs_table_align_right(t, i);
    vs_sheet_card_uint(sheet, "params", &params);
    vs_units_grouped(gp, sizeof gp, params);
    vs_units_describe(desc, sizeof desc, env->reserve_bytes);
    snprintf(headline, sizeof headline, "formats for %s params, the same reserve: %s per GPU (%s)",
             gp, desc, placement_text(sheet, pls, sizeof pls));
    for (i = 0; i < nrows; i++) {
        char bits[16], wb[AMT], wgb[AMT], wgib[AMT], eb[AMT], egb[AMT], egib[AMT];
        const char *q = rows[i].basis ? NULL : vs_format_quant_note(rows[i].bits);
        const char *row[9] = {
            rows[i].format, bits, wb, wgb, wgib, eb, egb, egib, q ? "* not a guaranteed peak" : ""};
        if (rows[i].bits_text)
            snprintf(bits, sizeof bits, "%s", rows[i].bits_text);
        else
            snprintf(bits, sizeof bits, "%u", rows[i].bits);
        vs_render_amount(rows[i].weights_bytes, wb, wgb, wgib);
        vs_render_amount(rows[i].envelope_bytes, eb, egb, egib);
        vs_table_add_row(t, row);
        if (q)
            flagged = 1;
        json_array_append_new(
            jrows, json_pack("{s:s, s:I, s:I, s:I, s:I, s:b, s:s?, s:s?, s:s?}", "format",
                             rows[i].format, "bits", (json_int_t)rows[i].bits, "weights_bytes",
                             (json_int_t)rows[i].weights_bytes, "weights_gpu_bytes",
                             (json_int_t)rows[i].weights_gpu_bytes, "envelope_bytes",
                             (json_int_t)rows[i].envelope_bytes, "quantized", q != NULL, "note", q,
                             "bits_per_weight", rows[i].bits_text, "basis", rows[i].basis));
    }
    put_headline(&text, &html, headline);
    put_table(&text, &html, t);
    vs_table_free(t);
    vs_buf_puts(&text, "\n");
    if (flagged)
        notes[nn++] = "* quantised (8 bits or fewer): scales, metadata and layers kept in another "
                      "format are not included, so the row is not a guaranteed peak";
    notes[nn++] = "the same reserve in every row shows only the arithmetic effect of the format; "
                  "in a real run the other allocations can change too";
    if (env->n_unknown)
        notes[nn++] = "some components are unknown: each envelope is only its known part";
    if (env->conservative)
        notes[nn++] =
            "each envelope is a conservative sum of independent maxima, not an observed peak";
    put_notes(&text, &html, notes, nn);
    p = json_pack("{s:s, s:o, s:o, s:I, s:I, s:b, s:I}", "kind", "formats", "rows", jrows, "params",
                  json_integer((json_int_t)params), "reserve_bytes", (json_int_t)env->reserve_bytes,
                  "gpus", (json_int_t)env->gpus, "conservative", env->conservative, "unknown_count",
                  (json_int_t)env->n_unknown);
    return finish(&text, &html, NULL, p);
}

/* -------------------------------------------------------------- components */

/* What produced the components, as members: estimator, formula (the
 * headline), inputs (taken; {} when NULL), then the keys of extra (taken, may
 * be NULL). */
static void write_origin(vs_jw *w, const char *estimator, const char *headline, json_t *inputs_take,
                         json_t *extra_take)
{
    const char *k;
    json_t *v;
    vs_jw_member_str(w, "estimator", estimator);
    vs_jw_member_str(w, "formula", headline);
    vs_jw_key(w, "inputs");
    if (inputs_take) {
        vs_jw_value(w, inputs_take);
    } else {
        vs_jw_open(w, '{');
        vs_jw_close(w, '}');
    }
    json_object_foreach(extra_take, k, v)
    {
        vs_jw_key(w, k);
        vs_jw_value(w, v);
    }
    json_decref(inputs_take);
    json_decref(extra_take);
}

/* The payload of one component (kind "component"): its fields, then what
 * produced it. Written, not built as a tree: most lines of a long cell are
 * `reserve` lines. */
static void component_payload(vs_buf *out, const vs_component_view *component,
                              const char *estimator, const char *headline, json_t *inputs_take,
                              json_t *extra_take)
{
    vs_jw w = VS_JW_INIT(out);
    vs_buf_reserve(out, 256 + (headline ? strlen(headline) : 0));
    vs_jw_open(&w, '{');
    vs_component_view_write(component, &w);
    vs_jw_member_str(&w, "kind", "component");
    write_origin(&w, estimator, headline, inputs_take, extra_take);
    vs_jw_close(&w, '}');
}

/* The payload of the components an estimator set: one found gives kind
 * "component", several kind "components" with their total (null when any is
 * unknown). */
static void components_payload(vs_buf *out, const json_t *sheet, const char *estimator,
                               const char *const *names, size_t nnames, const char *headline,
                               json_t *inputs_take, json_t *extra_take)
{
    vs_jw w = VS_JW_INIT(out);
    vs_component_view *found = malloc((nnames ? nnames : 1) * sizeof *found);
    json_t *c;
    uint64_t total = 0;
    size_t i, n = 0;
    int all_known = 1;
    if (!found) {
        out->failed = 1;
        json_decref(inputs_take);
        json_decref(extra_take);
        return;
    }
    for (i = 0; i < nnames; i++) {
        if (!(c = vs_sheet_component(sheet, names[i])))
            continue;
        vs_component_view_read(&found[n], c);
        if (found[n].known)
            total += found[n].value;
        else
            all_known = 0;
        n++;
    }
    if (n == 1) {
        component_payload(out, &found[0], estimator, headline, inputs_take, extra_take);
        free(found);
        return;
    }
    vs_jw_open(&w, '{');
    vs_jw_member_str(&w, "kind", "components");
    vs_jw_key(&w, "components");
    vs_jw_open(&w, '[');
    for (i = 0; i < n; i++) {
        vs_jw_open(&w, '{');
        vs_component_view_write(&found[i], &w);
        vs_jw_close(&w, '}');
    }
    vs_jw_close(&w, ']');
    vs_jw_member_bytes(&w, "total_bytes", all_known, total);
    write_origin(&w, estimator, headline, inputs_take, extra_take);
    vs_jw_close(&w, '}');
    free(found);
}

vs_bundle *vs_render_components(const json_t *sheet, const char *estimator,
                                const char *const *names, size_t nnames, const char *headline,
                                const char *const *notes, json_t *inputs_take, json_t *extra_take)
{
    static const char *const hdr[] = {"component", "status", "class", "bytes",
                                      "GB",        "GiB",    "source"};
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT, p = VS_BUF_INIT;
    vs_table *t = vs_table_new(7, hdr);
    size_t i;
    if (!t) {
        json_decref(inputs_take);
        json_decref(extra_take);
        return NULL;
    }
    vs_table_align_right(t, 3);
    vs_table_align_right(t, 4);
    vs_table_align_right(t, 5);
    for (i = 0; i < nnames; i++) {
        json_t *c = vs_sheet_component(sheet, names[i]), *jb;
        char b[AMT], gb[AMT], gib[AMT];
        const char *row[7];
        int known;
        if (!c)
            continue;
        jb = json_object_get(c, "bytes");
        known = json_is_integer(jb);
        if (known)
            vs_render_amount((uint64_t)json_integer_value(jb), b, gb, gib);
        row[0] = names[i];
        row[1] = json_string_value(json_object_get(c, "status"));
        row[2] = json_string_value(json_object_get(c, "class"));
        row[3] = known ? b : "unknown";
        row[4] = known ? gb : "";
        row[5] = known ? gib : "";
        row[6] = json_string_value(json_object_get(c, "source"));
        vs_table_add_row(t, row);
    }
    components_payload(&p, sheet, estimator, names, nnames, headline, inputs_take, extra_take);
    return finish_table(&text, &html, headline, t, notes, &p);
}

/* Appends headline and then each note, "; "-separated, as one line. */
static void put_one_line(vs_buf *text, vs_buf *html, const char *headline, const char *const *notes)
{
    size_t i, n = headline ? strlen(headline) : 0;
    for (i = 0; notes && notes[i]; i++)
        n += strlen(notes[i]) + 2;
    /* one allocation each, not a doubling series: most lines of a cell are these */
    vs_buf_reserve(text, n + 2);
    vs_buf_reserve(html, n + n / 8 + 16);
    vs_buf_puts(text, headline ? headline : "");
    vs_buf_puts(html, "<p>");
    vs_buf_put_html(html, headline ? headline : "");
    for (i = 0; notes && notes[i]; i++) {
        vs_buf_puts(text, "; ");
        vs_buf_puts(text, notes[i]);
        vs_buf_puts(html, "; ");
        vs_buf_put_html(html, notes[i]);
    }
    vs_buf_putc(text, '\n');
    vs_buf_puts(html, "</p>\n");
}

vs_bundle *vs_render_component_line(const vs_component_view *component, const char *estimator,
                                    const char *headline, const char *const *notes,
                                    json_t *inputs_take)
{
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT, p = VS_BUF_INIT;
    put_one_line(&text, &html, headline, notes);
    component_payload(&p, component, estimator, headline, inputs_take, NULL);
    return finish_text(&text, &html, NULL, &p);
}

/* -------------------------------------------------------------------- card */

static void card_row(vs_table *t, const char *k, const char *v)
{
    const char *row[2] = {k, v ? v : "(not set)"};
    vs_table_add_row(t, row);
}

static void card_uint_row(vs_table *t, const json_t *card, const char *key, const char *label)
{
    json_t *v = json_object_get(card, key);
    char g[40];
    if (json_is_integer(v)) {
        vs_units_grouped(g, sizeof g, (uint64_t)json_integer_value(v));
        card_row(t, label, g);
    } else {
        card_row(t, label, NULL);
    }
}

/* The card payload: kind "card", the whole card and the placement, notes (when
 * given), and extra_take merged in. */
static json_t *card_payload(const json_t *sheet, const char *const *notes, json_t *extra_take)
{
    json_t *card = vs_json_copy(vs_sheet_card(sheet));
    json_t *pl = vs_json_copy(json_object_get(sheet, "placement"));
    json_t *p = json_pack("{s:s, s:o, s:o}", "kind", "card", "card", card ? card : json_null(),
                          "placement", pl ? pl : json_null());
    size_t i;
    if (p && json_is_object(extra_take))
        json_object_update(p, extra_take);
    json_decref(extra_take);
    if (p && notes) {
        json_t *ns = json_array();
        for (i = 0; ns && notes[i]; i++)
            json_array_append_new(ns, json_string(notes[i]));
        if (ns)
            json_object_set_new(p, "notes", ns);
    }
    return p;
}

vs_bundle *vs_render_card(const json_t *sheet, const char *headline, const char *const *notes,
                          json_t *extra_take)
{
    static const char *const hdr[] = {"card", "value"};
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT, p = VS_BUF_INIT;
    vs_table *t = vs_table_new(2, hdr);
    json_t *card = vs_sheet_card(sheet), *arch = json_object_get(card, "arch");
    char buf[512], g[40], pls[128];
    if (!t) {
        json_decref(extra_take);
        return NULL;
    }
    card_row(t, "model", json_string_value(json_object_get(card, "model")));
    card_row(t, "revision", json_string_value(json_object_get(card, "revision")));
    if (json_is_integer(json_object_get(card, "params"))) {
        const char *src = json_string_value(json_object_get(card, "params_source"));
        vs_units_grouped(g, sizeof g,
                         (uint64_t)json_integer_value(json_object_get(card, "params")));
        snprintf(buf, sizeof buf, "%s%s%s%s", g, src ? " (" : "", src ? src : "", src ? ")" : "");
        card_row(t, "params", buf);
    } else {
        card_row(t, "params", NULL);
    }
    card_row(t, "task", json_string_value(json_object_get(card, "task")));
    if (json_is_string(json_object_get(card, "format"))) {
        snprintf(buf, sizeof buf, "%s (%u bits)",
                 json_string_value(json_object_get(card, "format")), vs_sheet_weight_bits(sheet));
        card_row(t, "format", buf);
    } else {
        card_row(t, "format", NULL);
    }
    card_uint_row(t, card, "length", "length (tokens)");
    card_uint_row(t, card, "concurrency", "concurrency");
    card_uint_row(t, card, "microbatch", "microbatch");
    card_uint_row(t, card, "accumulation", "accumulation");
    {
        /* image and video generation: shown when the task is one, or when set */
        const char *task = json_string_value(json_object_get(card, "task"));
        int gen = task && !strncmp(task, "generate-", 9);
        json_t *w = json_object_get(card, "width"), *h = json_object_get(card, "height");
        if (json_is_integer(w) && json_is_integer(h)) {
            snprintf(buf, sizeof buf, "%" JSON_INTEGER_FORMAT "x%" JSON_INTEGER_FORMAT " px",
                     json_integer_value(w), json_integer_value(h));
            card_row(t, "resolution", buf);
        } else if (gen) {
            card_row(t, "resolution", NULL);
        }
        if (gen || json_is_integer(json_object_get(card, "frames")))
            card_uint_row(t, card, "frames", "frames");
        if (gen || json_is_integer(json_object_get(card, "batch")))
            card_uint_row(t, card, "batch", "batch");
    }
    card_row(t, "quality", json_string_value(json_object_get(card, "quality")));
    if (json_is_object(arch)) {
        vs_buf a = VS_BUF_INIT;
        vs_render_arch(arch, &a);
        card_row(t, "arch", vs_buf_str(&a));
        if (vs_buf_failed(&a))
            text.failed = 1;
        vs_buf_free(&a);
    }
    card_row(t, "placement", placement_text(sheet, pls, sizeof pls));
    vs_json_dump_take(card_payload(sheet, notes, extra_take), &p);
    return finish_table(&text, &html, headline, t, notes, &p);
}

vs_bundle *vs_render_card_line(const json_t *sheet, const char *set, const char *headline,
                               const char *const *notes, json_t *extra_take)
{
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    json_t *p;
    put_one_line(&text, &html, headline, notes);
    p = card_payload(sheet, notes, extra_take);
    if (p && set)
        json_object_set_new(p, "set", json_string(set));
    return finish(&text, &html, NULL, p);
}

void vs_render_arch(const json_t *arch, vs_buf *out)
{
    static const char *const keys[] = {"layers",   "hidden",       "heads", "kv_heads",
                                       "head_dim", "intermediate", "vocab", "experts"};
    size_t i;
    const char *fam = json_string_value(json_object_get(arch, "family"));
    vs_buf_puts(out, fam ? fam : "?");
    for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        json_t *v = json_object_get(arch, keys[i]);
        if (json_is_integer(v))
            vs_buf_printf(out, " %s=%" JSON_INTEGER_FORMAT, keys[i], json_integer_value(v));
    }
    vs_render_kv_layout(json_object_get(arch, "kv_layout"), out);
}

void vs_render_kv_layout(const json_t *kv, vs_buf *out)
{
    vs_kv_layout l;
    size_t i;
    if (!json_is_array(kv) || vs_kv_layout_from_json(&l, kv, NULL) < 0 || l.n == 0)
        return;
    vs_buf_puts(out, "; KV cache per layer: ");
    for (i = 0; i < l.n; i++) {
        const vs_kv_group *g = &l.g[i];
        unsigned long long hv = g->head_dim_v ? g->head_dim_v : g->head_dim;
        vs_buf_printf(out, "%s%llu %s", i ? " + " : "", (unsigned long long)g->layers,
                      vs_kv_kind_name(g->kind));
        switch (g->kind) {
        case VS_KV_FULL:
        case VS_KV_CROSS:
        case VS_KV_SLIDING:
        case VS_KV_CHUNKED:
            vs_buf_printf(out, " (%llu KV heads x %llu", (unsigned long long)g->kv_heads,
                          (unsigned long long)g->head_dim);
            if (hv != g->head_dim)
                vs_buf_printf(out, "+%llu", hv);
            if (g->kind == VS_KV_SLIDING || g->kind == VS_KV_CHUNKED)
                vs_buf_printf(out, ", window %llu", (unsigned long long)g->window);
            vs_buf_puts(out, ")");
            break;
        case VS_KV_LATENT:
            vs_buf_printf(out, " (%llu values)", (unsigned long long)g->latent);
            break;
        case VS_KV_STATE:
            vs_buf_printf(out, " (%llu B per sequence)", (unsigned long long)g->state_bytes);
            break;
        default:
            vs_buf_puts(out, " (no cache)");
            break;
        }
    }
}

vs_bundle *vs_render_lines(const char *headline, const char *const *lines, size_t nlines,
                           json_t *payload_take)
{
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    size_t i;
    put_headline(&text, &html, headline);
    if (nlines) {
        vs_buf_puts(&html, "<ul>\n");
        for (i = 0; i < nlines; i++) {
            vs_buf_printf(&text, "  - %s\n", lines[i] ? lines[i] : "");
            vs_buf_puts(&html, "<li>");
            vs_buf_put_html(&html, lines[i] ? lines[i] : "");
            vs_buf_puts(&html, "</li>\n");
        }
        vs_buf_puts(&html, "</ul>\n");
    }
    return finish(&text, &html, NULL, payload_take);
}
