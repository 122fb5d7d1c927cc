#include "render/card.h"

#include <stdio.h>
#include <string.h>

#include "render/result.h"
#include "sheet/envelope.h"
#include "sheet/kvlayout.h"
#include "sheet/sheet.h"
#include "sheet/units.h"
#include "sheet/vocab.h"
#include "util/json.h"
#include "util/utf8.h"

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

/* A string as jansson's json_string takes it: valid UTF-8 (the tree this
 * payload was built as before dropped a note or a `set` that was not). */
static int utf8_ok(const char *s)
{
    return vs_utf8_valid_nul(s, strlen(s));
}

/* The notes as a list, those that are not UTF-8 left out */
static void write_notes(vs_jw *w, const char *const *notes)
{
    size_t i;
    vs_jw_open(w, '[');
    for (i = 0; notes[i]; i++)
        if (utf8_ok(notes[i]))
            vs_jw_str(w, notes[i]);
    vs_jw_close(w, ']');
}

/* Writes the card payload into out: kind "card", the whole card and the
 * placement, the keys of extra_take (taken, may be NULL; one named like those
 * three takes its place), notes (when given; in extra's place if it has
 * one), then set (when given, likewise). Written, not built as a tree and
 * dumped (the card copied for it): every card line makes one. The keys and
 * their order are those of json_object_update then json_object_set_new on
 * that tree. */
static void card_payload(vs_buf *out, const json_t *sheet, const char *const *notes,
                         json_t *extra_take, const char *set)
{
    static const char *const own[] = {"kind", "card", "placement"};
    const json_t *own_v[3] = {NULL, vs_sheet_card(sheet), vs_sheet_get(sheet, VS_SK_PLACEMENT)};
    json_t *extra = json_is_object(extra_take) ? extra_take : NULL, *v;
    const char *k;
    vs_jw w = VS_JW_INIT(out);
    size_t i;
    vs_jw_open(&w, '{');
    for (i = 0; i < 3; i++) {
        json_t *x = json_object_get(extra, own[i]);
        vs_jw_key(&w, own[i]);
        if (x)
            vs_jw_value(&w, x);
        else if (i == 0)
            vs_jw_str(&w, "card");
        else
            vs_jw_value(&w, own_v[i]); /* null when absent */
    }
    json_object_foreach(extra, k, v)
    {
        if (!strcmp(k, "kind") || !strcmp(k, "card") || !strcmp(k, "placement"))
            continue;
        vs_jw_key(&w, k);
        if (notes && !strcmp(k, "notes"))
            write_notes(&w, notes);
        else if (set && !strcmp(k, "set") && utf8_ok(set))
            vs_jw_str(&w, set);
        else
            vs_jw_value(&w, v);
    }
    if (notes && !json_object_get(extra, "notes")) {
        vs_jw_key(&w, "notes");
        write_notes(&w, notes);
    }
    if (set && !json_object_get(extra, "set") && utf8_ok(set))
        vs_jw_member_str(&w, "set", set);
    vs_jw_close(&w, '}');
    json_decref(extra_take);
}

vs_bundle *vs_render_card(const json_t *sheet, const char *headline, const char *const *notes,
                          json_t *extra_take)
{
    static const char *const hdr[] = {"card", "value"};
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT, p = VS_BUF_INIT;
    vs_table *t = vs_table_new(2, hdr);
    json_t *card = vs_sheet_card(sheet), *arch = vs_sheet_card_field(card, VS_CK_ARCH);
    char buf[512], g[40], pls[128];
    if (!t) {
        json_decref(extra_take);
        return NULL;
    }
    card_row(t, "model", json_string_value(vs_sheet_card_field(card, VS_CK_MODEL)));
    card_row(t, "revision", json_string_value(vs_sheet_card_field(card, VS_CK_REVISION)));
    if (json_is_integer(vs_sheet_card_field(card, VS_CK_PARAMS))) {
        const char *src = json_string_value(vs_sheet_card_field(card, VS_CK_PARAMS_SOURCE));
        vs_units_grouped(g, sizeof g,
                         (uint64_t)json_integer_value(vs_sheet_card_field(card, VS_CK_PARAMS)));
        snprintf(buf, sizeof buf, "%s%s%s%s", g, src ? " (" : "", src ? src : "", src ? ")" : "");
        card_row(t, "params", buf);
    } else {
        card_row(t, "params", NULL);
    }
    card_row(t, "task", json_string_value(vs_sheet_card_field(card, VS_CK_TASK)));
    if (json_is_string(vs_sheet_card_field(card, VS_CK_FORMAT))) {
        unsigned bits = 0; /* a format the card holds is one of vocab's: its bits are known */
        vs_sheet_weight_bits(sheet, &bits);
        snprintf(buf, sizeof buf, "%s (%u bits)",
                 json_string_value(vs_sheet_card_field(card, VS_CK_FORMAT)), bits);
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
        const char *task = json_string_value(vs_sheet_card_field(card, VS_CK_TASK));
        vs_vocab_task task_of;
        int gen = !vs_vocab_task_parse(&task_of, task, NULL) &&
                  (task_of == VS_TASK_GENERATE_IMAGE || task_of == VS_TASK_GENERATE_VIDEO);
        json_t *w = vs_sheet_card_field(card, VS_CK_WIDTH),
               *h = vs_sheet_card_field(card, VS_CK_HEIGHT);
        if (json_is_integer(w) && json_is_integer(h)) {
            snprintf(buf, sizeof buf, "%" JSON_INTEGER_FORMAT "x%" JSON_INTEGER_FORMAT " px",
                     json_integer_value(w), json_integer_value(h));
            card_row(t, "resolution", buf);
        } else if (gen) {
            card_row(t, "resolution", NULL);
        }
        if (gen || json_is_integer(vs_sheet_card_field(card, VS_CK_FRAMES)))
            card_uint_row(t, card, "frames", "frames");
        if (gen || json_is_integer(vs_sheet_card_field(card, VS_CK_BATCH)))
            card_uint_row(t, card, "batch", "batch");
    }
    card_row(t, "quality", json_string_value(vs_sheet_card_field(card, VS_CK_QUALITY)));
    if (json_is_object(arch)) {
        vs_buf a = VS_BUF_INIT;
        vs_render_arch(arch, &a);
        card_row(t, "arch", vs_buf_str(&a));
        if (vs_buf_failed(&a))
            text.failed = 1;
        vs_buf_free(&a);
    }
    card_row(t, "placement", vs_render_placement_text(sheet, pls, sizeof pls));
    card_payload(&p, sheet, notes, extra_take, NULL);
    return vs_render_finish_table(&text, &html, headline, t, notes, &p);
}

vs_bundle *vs_render_card_line(const json_t *sheet, const char *set, const char *headline,
                               const char *const *notes, json_t *extra_take)
{
    /* the line and the payload written straight into the bundle */
    vs_buf out = VS_BUF_INIT;
    size_t at, len;
    vs_bundle_line_begin(&out, headline, notes, 2048, &at, &len);
    card_payload(&out, sheet, notes, extra_take, set);
    return vs_bundle_line_end(&out);
}

vs_bundle *vs_render_card_model(const json_t *sheet, const char *headline, const char *const *notes,
                                const vs_card_model_read *r)
{
    json_t *extra = r->config                     ? json_pack("{s:O}", "config", r->config)
                    : r->hf_commit || r->pipeline ? json_object()
                                                  : NULL;
    if (extra && r->pipeline)
        json_object_set(extra, "weights", (json_t *)r->pipeline);
    if (extra && r->hf_commit) /* where the cache put it */
        json_object_set_new(
            extra, "hf_cache",
            json_pack("{s:s?, s:s, s:s, s:o}", "config", r->hf_config, "commit", r->hf_commit,
                      "ref", r->hf_ref ? r->hf_ref : "main", "hub",
                      r->hub_requests ? json_pack("{s:I, s:I}", "bytes", (json_int_t)r->hub_bytes,
                                                  "requests", (json_int_t)r->hub_requests)
                                      : json_null()));
    return vs_render_card_line(sheet, "model", headline, notes, extra);
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
