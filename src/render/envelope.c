#include "render/envelope.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/result.h"
#include "render/svg.h"
#include "sheet/capacity.h"
#include "sheet/derived.h"
#include "sheet/placement.h"
#include "sheet/sheet_access.h"
#include "sheet/units.h"
#include "sheet/vocab.h"
#include "util/buf.h"
#include "util/json.h"

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

/* One paragraph of notes below the table: a line of text, a <p> of html. */
static void put_note(vs_buf *text, vs_buf *html, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void put_note(vs_buf *text, vs_buf *html, const char *fmt, ...)
{
    vs_buf n = VS_BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    vs_buf_vprintf(&n, fmt, ap);
    va_end(ap);
    vs_buf_puts(text, vs_buf_str(&n));
    vs_buf_putc(text, '\n');
    vs_buf_puts(html, "<p>");
    vs_buf_put_html(html, vs_buf_str(&n));
    vs_buf_puts(html, "</p>\n");
    vs_buf_free(&n);
}

/* One line per offer with fewer cards than the placement's GPUs: its
 * capacity line is one card's, and the per-GPU envelope does not apply to it. */
static void cards_short_lines(vs_buf *text, vs_buf *html, const json_t *sheet,
                              const vs_placement *pl)
{
    json_t *o;
    size_t i;
    json_array_foreach(vs_sheet_array(sheet, VS_SK_OFFERS), i, o)
    {
        json_t *c = json_object_get(o, "cards");
        json_int_t cards =
            json_is_integer(c) && json_integer_value(c) > 0 ? json_integer_value(c) : 1;
        const char *name = json_string_value(json_object_get(o, "name"));
        if ((uint64_t)cards >= pl->gpus)
            continue;
        put_note(text, html,
                 "%s: cards=%lld is fewer than the placement's gpus=%u: the per-GPU envelope "
                 "does not apply to this offer (give cards=%u, or a placement on %lld GPU%s)",
                 name ? name : "?", (long long)cards, pl->gpus, pl->gpus, (long long)cards,
                 cards == 1 ? "" : "s");
    }
}

/* What the budget chart draws: the weights and each component per GPU, and
 * each offer's capacity line. */
typedef struct budget {
    vs_svg_segment *segs;
    size_t nseg;
    vs_svg_line *lines;
    size_t nlines;
    size_t held_from;  /* the first segment drawn from a component view */
    char (*basis)[96]; /* each line's capacity basis */
    char wlabel[96];   /* the weights' label under a phase basis */
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
    json_t *offers = vs_sheet_array(sheet, VS_SK_OFFERS);
    json_t *c;
    size_t i;
    /* a pipeline's weights stack component by component (unless offloaded:
     * then the GPU holds one of them at a time) */
    json_t *wc = json_object_get(vs_sheet_get(sheet, VS_SK_WEIGHTS_FILES), "components");
    size_t nw = env->weights_known && !env->offload_basis ? json_array_size(wc) : 0;
    const vs_phase_row *worst = env->phases.n ? &env->phases.row[env->phases.worst] : NULL;
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
    if (worst) { /* the chart stacks the worst phase: what the GPU holds then */
        snprintf(b->wlabel, sizeof b->wlabel, "weights in %s%s%s", worst->name,
                 worst->weights_of ? ": " : "", worst->weights_of ? worst->weights_of : "");
        b->segs[0].label = b->wlabel;
        b->segs[0].bytes = worst->weights_bytes;
    }
    b->segs[0].status =
        env->weights_known ? env->weights_basis : vs_vocab_status_name(VS_STATUS_UNKNOWN);
    b->nseg = 1;
    if (nw) {
        b->nseg = 0;
        json_array_foreach(wc, i, c)
        {
            vs_svg_segment *sg = &b->segs[b->nseg++];
            sg->label = json_string_value(json_object_get(c, "name"));
            sg->known = 1;
            sg->bytes = vs_placement_per_gpu(
                pl, VS_VOCAB_WEIGHTS, (uint64_t)json_integer_value(json_object_get(c, "bytes")));
            sg->status = env->weights_basis;
        }
    }
    /* the views' texts live as long as the views (vs_svg_budget_memo) */
    b->held_from = b->nseg;
    for (i = 0; i < views->n; i++) {
        const vs_component_view *v = &views->v[i];
        vs_svg_segment *sg;
        if (worst && !vs_phases_holds(json_string_value(v->phase), worst->name))
            continue;
        /* a known 0 B component draws no slice: no legend row either (the
         * table lists it, with why it is 0) */
        if (v->known && !vs_placement_per_gpu(pl, json_string_value(v->cls), v->value))
            continue;
        sg = &b->segs[b->nseg++];
        sg->label = json_string_value(v->name);
        sg->known = v->known;
        sg->bytes = v->known ? vs_placement_per_gpu(pl, json_string_value(v->cls), v->value) : 0;
        sg->status = json_string_value(v->status);
        if (v->managed) /* drawn as what it is: outside the allocator */
            sg->status = vs_vocab_status_is(sg->status, VS_STATUS_MEASURED)
                             ? "measured, managed memory"
                             : "estimated, managed memory";
        else if (v->cache) /* reserved, no tensor in it */
            sg->status = vs_vocab_status_is(sg->status, VS_STATUS_MEASURED)
                             ? "measured, allocator cache"
                             : "estimated, allocator cache";
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

/* The chart through memo: drawn only when what it shows changed since the
 * last one drawn through memo (render/svg.h). Borrowed from memo. */
static const char *budget_svg(const json_t *sheet, const vs_envelope *env, const budget *b,
                              vs_svg_memo *memo)
{
    char title[200], ph[48] = "";
    const char *st = vs_sheet_get_str(sheet, VS_SK_TITLE);
    if (env->phases.n)
        snprintf(ph, sizeof ph, ", worst phase %s", env->phases.row[env->phases.worst].name);
    snprintf(title, sizeof title, "Memory budget per GPU%s%s%s", ph, st ? ": " : "", st ? st : "");
    return vs_svg_budget_memo(memo, title, b->segs, b->nseg, b->held_from, b->lines, b->nlines);
}

static void placement_or_single(vs_placement *pl, const json_t *sheet)
{
    if (vs_placement_from_sheet(pl, sheet, NULL)) {
        pl->kind = VS_PLACE_SINGLE;
        pl->gpus = 1;
        pl->stage = 0;
    }
}

const char *vs_render_envelope_chart(const json_t *sheet, const vs_envelope *env,
                                     const vs_component_views *views, vs_svg_memo *memo)
{
    vs_placement pl;
    budget b;
    const char *svg = NULL;
    placement_or_single(&pl, sheet);
    if (budget_build(&b, sheet, env, views, &pl) == 0) {
        svg = budget_svg(sheet, env, &b, memo);
        budget_free(&b);
    }
    return svg;
}

char *vs_render_envelope_svg(const json_t *sheet, const vs_envelope *env,
                             const vs_component_views *views)
{
    vs_svg_memo memo = VS_SVG_MEMO_INIT;
    const char *svg = vs_render_envelope_chart(sheet, env, views, &memo);
    char *copy = svg ? strdup(svg) : NULL;
    vs_svg_memo_free(&memo);
    return copy;
}

void vs_envelope_payload_write(vs_jw *w, const vs_envelope *env, const json_t *sheet,
                               const vs_component_views *views)
{
    json_t *card = vs_sheet_card(sheet);
    vs_placement pl;
    size_t i;
    unsigned bits = 0;
    int bits_known = vs_sheet_weight_bits(sheet, &bits);
    uint64_t params;
    int have_params = vs_sheet_card_uint(sheet, VS_CK_PARAMS, &params);
    const char *note;
    vs_buf unknown = VS_BUF_INIT;
    vs_jw uw = VS_JW_INIT(&unknown);
    if (vs_placement_from_sheet(&pl, sheet, NULL)) {
        pl.kind = VS_PLACE_SINGLE;
        pl.gpus = 1;
        pl.stage = 0;
    }
    vs_jw_open(&uw, '[');
    vs_jw_member_str(w, "kind", "envelope");
    vs_jw_member_bytes(w, "weights_bytes", env->weights_known, env->weights_bytes);
    vs_jw_member_bytes(w, "weights_gpu_bytes", env->weights_known, env->weights_gpu_bytes);
    vs_jw_member_str(w, "weights_basis", env->weights_known ? env->weights_basis : NULL);
    vs_jw_member_bool(w, "weights_known", env->weights_known);
    vs_jw_member_u64(w, "host_bytes", env->host_bytes);
    vs_jw_member_str(w, "offload_basis", env->offload_basis);
    {
        /* a pipeline's weights, one row per component (model/pipeline_files.h) */
        json_t *wc = json_object_get(vs_sheet_get(sheet, VS_SK_WEIGHTS_FILES), "components"), *c;
        vs_jw_key(w, "weights_components");
        if (!json_is_array(wc))
            vs_jw_null(w);
        else {
            vs_jw_open(w, '[');
            json_array_foreach(wc, i, c)
            {
                vs_jw_open(w, '{');
                vs_jw_member_str(w, "name", json_string_value(json_object_get(c, "name")));
                vs_jw_member_str(w, "class", json_string_value(json_object_get(c, "class")));
                vs_jw_member_u64(w, "bytes",
                                 (uint64_t)json_integer_value(json_object_get(c, "bytes")));
                vs_jw_member_u64(
                    w, "largest_group_bytes",
                    (uint64_t)json_integer_value(json_object_get(c, "largest_group_bytes")));
                vs_jw_close(w, '}');
            }
            vs_jw_close(w, ']');
        }
    }
    vs_jw_member_u64(w, "reserve_bytes", env->reserve_bytes);
    vs_jw_member_u64(w, "envelope_bytes", env->envelope_bytes);
    vs_jw_member_u64(w, "sum_bytes", env->sum_bytes);
    vs_jw_member_u64(w, "managed_bytes", env->managed_bytes);
    vs_jw_member_u64(w, "allocator_bytes", env->allocator_bytes);
    vs_jw_member_u64(w, "cache_bytes", env->cache_bytes);
    vs_jw_member_u64(w, "tensors_bytes", env->tensors_bytes);
    vs_jw_member_str(w, "peak_basis", env->phases.n ? "worst phase" : "sum");
    vs_jw_member_str(w, "worst_phase",
                     env->phases.n ? env->phases.row[env->phases.worst].name : NULL);
    vs_jw_key(w, "phases");
    vs_jw_open(w, '[');
    for (i = 0; i < env->phases.n; i++) {
        const vs_phase_row *r = &env->phases.row[i];
        vs_jw_open(w, '{');
        vs_jw_member_str(w, "name", r->name);
        vs_jw_member_u64(w, "weights_gpu_bytes", r->weights_bytes);
        vs_jw_member_str(w, "weights_of", r->weights_of);
        vs_jw_member_u64(w, "reserve_bytes", r->reserve_bytes);
        vs_jw_member_u64(w, "bytes", r->bytes);
        vs_jw_member_u64(w, "unknown", r->n_unknown);
        vs_jw_close(w, '}');
    }
    vs_jw_close(w, ']');
    vs_jw_member_bool(w, "conservative", env->conservative);
    vs_jw_member_bool(w, "complete", env->weights_known && env->n_unknown == 0);
    /* Written, not built as a tree: a long sheet has hundreds of components,
     * and this payload is most of an `envelope` result. */
    vs_jw_key(w, "components");
    vs_jw_open(w, '[');
    for (i = 0; i < views->n; i++) {
        const vs_component_view *v = &views->v[i];
        const char *cls = json_string_value(v->cls);
        vs_jw_open(w, '{');
        vs_component_view_write(v, w);
        vs_jw_member_bytes(w, "gpu_bytes", v->known, vs_placement_per_gpu(&pl, cls, v->value));
        vs_jw_member_u64(w, "ways", vs_placement_ways(&pl, cls));
        if (env->n_stale && vs_vocab_status_is(json_string_value(v->status), VS_STATUS_MEASURED) &&
            vs_derived_component_stale(
                sheet, json_array_get(vs_sheet_array(sheet, VS_SK_COMPONENTS), i), NULL))
            vs_jw_member_str(w, "flag", VS_STALE_FLAG);
        vs_jw_close(w, '}');
        if (!v->known && v->name) /* the names list, written beside in the same walk */
            vs_jw_value(&uw, v->name);
    }
    vs_jw_close(w, ']');
    vs_jw_key(w, "unknown");
    vs_jw_close(&uw, ']');
    if (vs_buf_failed(&unknown))
        w->out->failed = 1;
    vs_jw_raw(w, vs_buf_str(&unknown), unknown.len);
    vs_buf_free(&unknown);
    vs_jw_member_u64(w, "gpus", env->gpus);
    vs_jw_key(w, "placement");
    vs_jw_open(w, '{');
    vs_jw_member_str(w, "kind", vs_placement_kind_name(pl.kind));
    vs_jw_member_u64(w, "gpus", pl.gpus);
    vs_jw_member_str(w, "offload", vs_offload_name(pl.offload));
    vs_jw_key(w, "stage");
    if (pl.kind == VS_PLACE_ZERO)
        vs_jw_i64(w, pl.stage);
    else
        vs_jw_null(w);
    vs_jw_close(w, '}');
    vs_jw_member_bytes(w, "params", have_params, params);
    vs_jw_member_bytes(w, "bits", bits_known, bits);
    vs_jw_member_str(w, "format", json_string_value(vs_sheet_card_field(card, VS_CK_FORMAT)));
    vs_jw_key(w, "notes");
    vs_jw_open(w, '[');
    if (env->weights_known && env->weights_basis &&
        !strcmp(env->weights_basis, "params x bits / 8") && bits_known &&
        (note = vs_envelope_format_quant_note(bits)))
        vs_jw_str(w, note);
    if (env->phases.n)
        vs_jw_str(w, "under CPU offload the components are on the GPU in turn: the envelope is "
                     "the worst phase of what the GPU holds in it; sum_bytes, the plain sum of "
                     "every maximum, is the conservative figure");
    if (env->managed_bytes)
        vs_jw_str(w, "managed memory (cudaMallocManaged: a paged optimizer's state) is in the "
                     "envelope, as the device holds it while resident; PyTorch's allocator "
                     "neither makes nor counts it: allocator_bytes is what "
                     "torch.cuda.max_memory_reserved can report (tensors_bytes what "
                     "max_memory_allocated can), and the driver may page managed memory out "
                     "to the host under pressure");
    if (env->cache_bytes)
        vs_jw_str(w, "allocator cache (the caching allocator's reserved-but-free memory) is in "
                     "the envelope and allocator_bytes, as the device holds what "
                     "torch.cuda.max_memory_reserved counts; tensors_bytes, the live tensors' "
                     "peak, is what torch.cuda.max_memory_allocated can report");
    if (env->conservative)
        vs_jw_str(w, "a conservative envelope: a sum of independent maxima, not an observed peak");
    if (env->n_unknown)
        vs_jw_str(w, "unknown components are missing from the envelope, not counted as zero: it "
                     "is only the known part");
    if (env->n_stale) {
        vs_buf sn = VS_BUF_INIT;
        vs_buf_printf(&sn,
                      "%s: %s; no capacity verdict is admissible on it until it is "
                      "measured again at the card's dims",
                      VS_STALE_FLAG, env->stale);
        vs_jw_str(w, vs_buf_str(&sn));
        vs_buf_free(&sn);
    }
    vs_jw_close(w, ']');
}

vs_bundle *vs_render_envelope(const json_t *sheet, const vs_envelope *env,
                              const vs_component_views *views)
{
    vs_svg_memo memo = VS_SVG_MEMO_INIT;
    vs_bundle *b = vs_render_envelope_memo(sheet, env, views, &memo);
    vs_svg_memo_free(&memo);
    return b;
}

/* What the envelope's payload is written from, for vs_bundle_new_table */
typedef struct {
    const vs_envelope *env;
    const json_t *sheet;
    const vs_component_views *views;
    const json_t *caps;
} payload_of;

static void write_payload(vs_buf *out, void *ctx)
{
    const payload_of *p = ctx;
    vs_jw w = VS_JW_INIT(out);
    vs_jw_open(&w, '{');
    vs_envelope_payload_write(&w, p->env, p->sheet, p->views);
    vs_jw_member_value(&w, "capacities", p->caps);
    vs_jw_close(&w, '}');
}

vs_bundle *vs_render_envelope_memo(const json_t *sheet, const vs_envelope *env,
                                   const vs_component_views *views, vs_svg_memo *memo)
{
    static const char *const hdr[] = {"component", "status", "class", "per GPU",
                                      "GB",        "GiB",    "source"};
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT, unk = VS_BUF_INIT, stale = VS_BUF_INIT,
           phline = VS_BUF_INIT, phnote = VS_BUF_INIT, text_pre = VS_BUF_INIT,
           html_pre = VS_BUF_INIT;
    vs_table *t = vs_table_new(7, hdr);
    json_t *caps = NULL;
    vs_placement pl;
    budget bud;
    int have_budget = 0;
    size_t i;
    char b[VS_RENDER_AMT], gb[VS_RENDER_AMT], gib[VS_RENDER_AMT], desc[160], pls[128], wsrc[400],
        gp[40];
    const char *notes[6];
    /* the weights are no component: they shard as parameters */
    const char *weights_class = vs_vocab_class_name(vs_vocab_class_of(VS_VOCAB_WEIGHTS));
    size_t nn = 0;
    const vs_buf *chart = NULL;
    unsigned bits = 0; /* printed as 0 in the basis when unknown, as before */
    int bits_known = vs_sheet_weight_bits(sheet, &bits);
    uint64_t params = 0;
    vs_bundle *bundle = NULL;
    const json_t *wf = vs_sheet_get(sheet, VS_SK_WEIGHTS_FILES);

    if (!t)
        return NULL;
    placement_or_single(&pl, sheet);
    vs_placement_describe(&pl, pls, sizeof pls);
    for (i = 3; i <= 5; i++)
        vs_table_align_right(t, i);
    /* one row a component and a few more (weights, phases, the sum, the
     * envelope): sized once rather than copied as it grows */
    vs_table_reserve(t, views->n + env->phases.n + 8, (views->n + env->phases.n + 8) * 128);
    caps = json_array();
    if (!caps || budget_build(&bud, sheet, env, views, &pl) < 0)
        goto done;
    have_budget = 1;

    vs_sheet_card_uint(sheet, VS_CK_PARAMS, &params);
    vs_units_grouped(gp, sizeof gp, params);
    if (env->weights_basis && !strcmp(env->weights_basis, "safetensors files")) {
        /* the basis names the files read, whatever their format */
        const json_t *fs = json_object_get(wf, "files");
        const char *first = json_string_value(json_object_get(json_array_get(fs, 0), "name"));
        size_t fl = first ? strlen(first) : 0;
        snprintf(wsrc, sizeof wsrc, "bytes of the %s files",
                 fl > 5 && !strcmp(first + fl - 5, ".gguf") ? "GGUF" : "safetensors");
    } else if (env->weights_basis && !strcmp(env->weights_basis, "measured")) {
        snprintf(wsrc, sizeof wsrc, "%s", vs_json_str_of(wf, "measured"));
    } else if (env->weights_basis && !strcmp(env->weights_basis, "tensor list")) {
        snprintf(wsrc, sizeof wsrc, "tensor by tensor: %s", vs_json_str_of(wf, "scheme"));
    } else
        snprintf(wsrc, sizeof wsrc, "%s params x %u bits / 8", gp, bits);
    if (env->weights_known && json_array_size(json_object_get(wf, "components"))) {
        /* a diffusers pipeline: one row per component, then what one GPU holds */
        json_t *c;
        int any_pinned = 0;
        json_array_foreach(json_object_get(wf, "components"), i, c)
        {
            char nm[128], src2[256];
            const char *row[7] = {nm, "weights only", weights_class, b, gb, gib, src2};
            uint64_t cb = (uint64_t)json_integer_value(json_object_get(c, "bytes"));
            const int pinned = vs_placement_pinned(&pl, c);
            any_pinned |= pinned;
            snprintf(nm, sizeof nm, "weights: %s", json_string_value(json_object_get(c, "name")));
            /* `format bnb-nf4 components=` puts the scheme first in by_dtype */
            const char *q =
                vs_json_str_of(json_array_get(json_object_get(c, "by_dtype"), 0), "dtype");
            snprintf(src2, sizeof src2, "%s, %s%s",
                     json_string_value(json_object_get(c, "class"))
                         ? json_string_value(json_object_get(c, "class"))
                         : "?",
                     q && (!strncmp(q, "bnb-", 4) || !strcmp(q, "fp8-layerwise"))
                         ? "its Linear layers quantised on load"
                         : "bytes of its safetensors files",
                     !env->offload_basis ? ""
                     : pinned            ? " (on the GPU throughout: the offload skips "
                                           "a bitsandbytes 8-bit model)"
                                         : " (in host memory; on the GPU in turn)");
            vs_render_amount(env->offload_basis ? cb
                                                : vs_placement_per_gpu(&pl, VS_VOCAB_WEIGHTS, cb),
                             b, gb, gib);
            vs_table_add_row(t, row);
        }
        if (env->offload_basis) {
            char hb[VS_RENDER_AMT], hgb[VS_RENDER_AMT], hgib[VS_RENDER_AMT];
            const char *row[7] = {"weights on the GPU", "offload", weights_class, b, gb, gib,
                                  env->offload_basis};
            const char *hrow[7] = {"host memory (not GPU)",
                                   "offload",
                                   weights_class,
                                   hb,
                                   hgb,
                                   hgib,
                                   any_pinned ? "the components the offload moves stay in "
                                                "host RAM; not in the envelope"
                                              : "every component stays in host RAM; not in "
                                                "the envelope"};
            vs_render_amount(env->weights_gpu_bytes, b, gb, gib);
            vs_table_add_row(t, row);
            vs_render_amount(env->host_bytes, hb, hgb, hgib);
            vs_table_add_row(t, hrow);
        }
    } else if (env->weights_known) {
        const char *row[7] = {"weights",
                              "weights only",
                              weights_class,
                              b,
                              gb,
                              gib,
                              env->offload_basis ? env->offload_basis : wsrc};
        vs_render_amount(env->weights_gpu_bytes, b, gb, gib);
        vs_table_add_row(t, row);
    } else {
        const char *row[7] = {"weights",
                              vs_vocab_status_name(VS_STATUS_UNKNOWN),
                              weights_class,
                              "unknown",
                              "",
                              "",
                              "no params or format yet"};
        vs_table_add_row(t, row);
    }
    for (i = 0; i < views->n; i++) {
        const vs_component_view *v = &views->v[i];
        const char *name, *status, *cls, *src;
        int known;
        uint64_t per;
        char srcbuf[512], clsbuf[64];
        const char *row[7];
        size_t len[7]; /* the strings' lengths, held by their views */
        name = json_string_value(v->name);
        status = json_string_value(v->status);
        cls = json_string_value(v->cls);
        src = json_string_value(v->source);
        known = v->known;
        per = known ? vs_placement_per_gpu(&pl, cls, v->value) : 0;
        if (known)
            vs_render_amount(per, b, gb, gib);
        len[6] = src ? json_string_length(v->source) : 0;
        if (known && vs_placement_ways(&pl, cls) > 1) {
            char whole[48];
            int n;
            vs_units_grouped(whole, sizeof whole, v->value);
            n = snprintf(srcbuf, sizeof srcbuf, "%s B / %u GPUs; %s", whole,
                         vs_placement_ways(&pl, cls), src ? src : "");
            src = srcbuf;
            len[6] = n < 0 ? 0 : (size_t)n < sizeof srcbuf ? (size_t)n : sizeof srcbuf - 1;
        }
        row[0] = name;
        len[0] = name ? json_string_length(v->name) : 0;
        row[1] = status;
        len[1] = status ? json_string_length(v->status) : 0;
        row[2] = cls ? cls : vs_vocab_class_name(VS_CLASS_OTHER);
        len[2] = cls ? json_string_length(v->cls) : strlen(row[2]);
        if (v->managed || v->cache) {
            int n = snprintf(clsbuf, sizeof clsbuf, "%s, %s", row[2],
                             v->managed ? "managed memory" : "allocator cache");
            row[2] = clsbuf;
            len[2] = n < 0 ? 0 : (size_t)n < sizeof clsbuf ? (size_t)n : sizeof clsbuf - 1;
        }
        row[3] = known ? b : "unknown";
        row[4] = known ? gb : "";
        row[5] = known ? gib : "";
        len[3] = strlen(row[3]);
        len[4] = strlen(row[4]);
        len[5] = strlen(row[5]);
        row[6] = src ? src : "";
        vs_table_add_rown(t, row, len);
        if (!known) { /* the names, without printf: a long reserve has dozens */
            if (unk.len)
                vs_buf_puts(&unk, ", ");
            vs_buf_puts(&unk, name ? name : "?");
        }
    }
    for (i = 0; i < env->phases.n; i++) {
        /* under offload, one row per phase: what the GPU holds in it */
        const vs_phase_row *r = &env->phases.row[i];
        char nm[48], src2[200], w[64];
        const char *row[7] = {nm,  i == env->phases.worst ? "worst phase" : "phase", "", b, gb, gib,
                              src2};
        vs_units_round(w, sizeof w, r->weights_bytes, VS_UNIT_GIB, 2);
        snprintf(nm, sizeof nm, "phase %s", r->name);
        snprintf(src2, sizeof src2,
                 "weights on the GPU%s%s (%s GiB) + this phase's components and those with no "
                 "phase%s",
                 r->weights_of ? ": " : "", r->weights_of ? r->weights_of : "", w,
                 r->n_unknown ? "; some unknown, not counted" : "");
        vs_render_amount(r->bytes, b, gb, gib);
        vs_table_add_row(t, row);
    }
    if (env->phases.n) {
        const char *row[7] = {"sum of every maximum",
                              "conservative",
                              "",
                              b,
                              gb,
                              gib,
                              "the weights on the GPU + every component, as if all coexisted"};
        vs_render_amount(env->sum_bytes, b, gb, gib);
        vs_table_add_row(t, row);
    }
    {
        char lab[64];
        const char *row[7] = {
            lab, env->conservative && !env->phases.n ? "conservative" : "", "", b, gb, gib, pls};
        snprintf(lab, sizeof lab, "envelope%s%s%s%s",
                 env->n_unknown || !env->weights_known ? " (known part)" : "",
                 env->phases.n ? " (worst phase: " : "",
                 env->phases.n ? env->phases.row[env->phases.worst].name : "",
                 env->phases.n ? ")" : "");
        vs_render_amount(env->envelope_bytes, b, gb, gib);
        vs_table_add_row(t, row);
    }
    for (i = 0; i < bud.nlines; i++)
        json_array_append_new(caps, json_pack("{s:s?, s:I, s:s}", "name", bud.lines[i].label,
                                              "capacity_bytes", (json_int_t)bud.lines[i].bytes,
                                              "capacity_basis", bud.lines[i].basis));

    vs_units_describe(desc, sizeof desc, env->envelope_bytes);
    if (env->phases.n)
        vs_buf_printf(&phline, ", the worst phase (%s)", env->phases.row[env->phases.worst].name);
    vs_buf_printf(&text, "envelope per GPU (%s)%s: %s%s\n", pls, vs_buf_str(&phline), desc,
                  env->n_unknown || !env->weights_known ? " (known part only)" : "");
    vs_buf_puts(&html, "<p>");
    vs_buf_put_html(&html, "envelope per GPU (");
    vs_buf_put_html(&html, pls);
    vs_buf_put_html(&html, ")");
    vs_buf_put_html(&html, vs_buf_str(&phline));
    vs_buf_put_html(&html, ": ");
    vs_buf_put_html(&html, desc);
    if (env->n_unknown || !env->weights_known)
        vs_buf_put_html(&html, " (known part only)");
    vs_buf_puts(&html, "</p>\n");
    /* the table goes between what is written so far and what follows, all
     * three written into the bundle at the end, the table escaped as it is
     * written (vs_bundle_new_table): text and html go on with what follows */
    text_pre = text;
    html_pre = html;
    vs_buf_init(&text);
    vs_buf_init(&html);
    vs_buf_puts(&text, "\n");
    if (env->managed_bytes) {
        char md[160], ad[160], td[160];
        vs_units_describe(md, sizeof md, env->managed_bytes);
        vs_units_describe(ad, sizeof ad, env->allocator_bytes);
        vs_units_describe(td, sizeof td, env->tensors_bytes);
        put_note(&text, &html,
                 "of the envelope, %s is CUDA managed memory (cudaMallocManaged: a paged "
                 "optimizer's state), on the device while resident, which the driver may "
                 "page out to the host; PyTorch's caching allocator neither makes nor "
                 "counts it, so torch.cuda.memory_reserved reports at most the allocator's "
                 "part, %s, and max_memory_allocated at most the tensors', %s",
                 md, ad, td);
    }
    if (env->cache_bytes) {
        char cd[160], td[160];
        vs_units_describe(cd, sizeof cd, env->cache_bytes);
        vs_units_describe(td, sizeof td, env->tensors_bytes);
        put_note(&text, &html,
                 "of the envelope, %s is the caching allocator's reserved-but-free memory "
                 "(allocator cache): the device holds it and torch.cuda.max_memory_reserved "
                 "counts it, but no tensor is in it, so torch.cuda.max_memory_allocated "
                 "reports at most the live tensors' peak, %s",
                 cd, td);
    }

    if (env->phases.n) {
        char sd[160];
        vs_units_describe(sd, sizeof sd, env->sum_bytes);
        if (env->offload_basis)
            vs_buf_printf(&phnote,
                          "CPU offload keeps the components on the GPU in turn (accelerate's hooks "
                          "move each in when it runs): the envelope is the worst phase, %s, of "
                          "what the GPU holds in each phase; the plain sum of every maximum, %s, "
                          "is the conservative figure, as if all coexisted",
                          env->phases.row[env->phases.worst].name, sd);
        else
            vs_buf_printf(&phnote,
                          "the components name phases that never coexist (a pipeline's "
                          "denoising and its VAE decode; a training step's backward, which holds "
                          "the activations, and its optimizer step the gradients, which fill as "
                          "the activations are freed): the envelope is the worst "
                          "phase, %s, every weight resident in each; the plain sum of every "
                          "maximum, %s, is the conservative figure, as if all coexisted",
                          env->phases.row[env->phases.worst].name, sd);
        notes[nn++] = vs_buf_str(&phnote);
    } else if (env->conservative)
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
        !strcmp(env->weights_basis, "params x bits / 8") && bits_known &&
        vs_envelope_format_quant_note(bits))
        notes[nn++] = vs_envelope_format_quant_note(bits);
    if (pl.gpus > 1)
        notes[nn++] = "per GPU after the placement: two cards are never one memory space";
    if (env->n_stale) {
        vs_buf_printf(&stale,
                      "%s: %s; no capacity verdict is admissible on it until it is "
                      "measured again at the card's dims",
                      VS_STALE_FLAG, env->stale);
        notes[nn++] = vs_buf_str(&stale);
    }
    vs_render_put_notes(&text, &html, notes, nn);
    for (i = 0; i < bud.nlines; i++) {
        vs_units_describe(desc, sizeof desc, bud.lines[i].bytes);
        vs_buf_printf(&text, "capacity line %s: %s (%s)\n",
                      bud.lines[i].label ? bud.lines[i].label : "?", desc, bud.lines[i].basis);
    }
    cards_short_lines(&text, &html, sheet, &pl);

    if (!budget_svg(sheet, env, &bud, memo) || !(chart = vs_svg_memo_json(memo)))
        goto done;
    {
        /* a component's object is about 150 bytes: the bundle is allocated
         * once with room for them */
        payload_of p = {env, sheet, views, caps};
        bundle = vs_bundle_new_table(&text_pre, &text, &html_pre, &html, t, chart, write_payload,
                                     &p, 2048 + views->n * 192);
    }
done:
    vs_table_free(t);
    vs_buf_free(&text);
    vs_buf_free(&html);
    vs_buf_free(&unk);
    vs_buf_free(&stale);
    vs_buf_free(&phline);
    vs_buf_free(&phnote);
    vs_buf_free(&text_pre);
    vs_buf_free(&html_pre);
    json_decref(caps);
    if (have_budget)
        budget_free(&bud);
    return bundle;
}
