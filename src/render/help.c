#include "render/help.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "sheet/vocab.h"
#include "util/buf.h"

/* A bundle from the two buffers and the payload (taken), or NULL when any of
 * them failed. */
static vs_bundle *bundle_of(vs_buf *t, vs_buf *h, json_t *payload_take)
{
    vs_bundle *b = NULL;
    if (payload_take && !vs_buf_failed(t) && !vs_buf_failed(h))
        b = vs_bundle_new(vs_buf_str(t), vs_buf_str(h), NULL, payload_take);
    else
        json_decref(payload_take);
    vs_buf_free(t);
    vs_buf_free(h);
    return b;
}

/* " key=" or " word" after a label, in both forms, and into the list. */
static void put_list(vs_buf *t, vs_buf *h, json_t *list, const char *label,
                     const char *const *items, const char *suffix)
{
    size_t i;
    vs_buf_puts(t, label);
    vs_buf_puts(h, "<p>");
    vs_buf_puts(h, label);
    for (i = 0; items[i]; i++) {
        vs_buf_printf(t, " %s%s", items[i], suffix);
        vs_buf_puts(h, " <code>");
        vs_buf_put_html(h, items[i]);
        vs_buf_printf(h, "%s</code>", suffix);
        json_array_append_new(list, json_string(items[i]));
    }
    vs_buf_puts(t, "\n");
    vs_buf_puts(h, "</p>\n");
}

static void put_formats(vs_buf *t, vs_buf *h, json_t *list);

vs_bundle *vs_render_help(const vs_help_facts *v)
{
    vs_buf t = VS_BUF_INIT, h = VS_BUF_INIT;
    json_t *payload, *keys = json_array(), *words = json_array();
    json_t *formats = v->schemes ? json_array() : NULL;
    vs_buf_printf(&t, "%s\n\n", v->syntax ? v->syntax : v->name);
    if (v->summary)
        vs_buf_printf(&t, "%s\n", v->summary);
    if (v->help)
        vs_buf_printf(&t, "\n%s\n", v->help);
    vs_buf_puts(&h, "<div class='vramsheet-help'><pre><code>");
    vs_buf_put_html(&h, v->syntax ? v->syntax : v->name);
    vs_buf_puts(&h, "</code></pre>\n");
    if (v->summary) {
        vs_buf_puts(&h, "<p><b>");
        vs_buf_put_html(&h, v->summary);
        vs_buf_puts(&h, "</b></p>\n");
    }
    if (v->help) {
        vs_buf_puts(&h, "<pre>");
        vs_buf_put_html(&h, v->help);
        vs_buf_puts(&h, "</pre>\n");
    }
    if (v->keys && v->keys[0]) {
        vs_buf_puts(&t, "\n");
        put_list(&t, &h, keys, "keys:", v->keys, "=");
    }
    if (v->words && v->words[0])
        put_list(&t, &h, words, "words:", v->words, "");
    if (v->schemes && formats)
        put_formats(&t, &h, formats);
    vs_buf_puts(&h, "</div>\n");
    payload = json_pack("{s:s, s:s, s:s?, s:s?, s:s?, s:s?, s:o, s:o}", "kind", "help", "verb",
                        v->name, "group", v->group, "syntax", v->syntax, "summary", v->summary,
                        "help", v->help, "keys", keys, "words", words);
    if (payload && formats)
        json_object_set_new(payload, "formats", formats);
    else
        json_decref(formats);
    return bundle_of(&t, &h, payload);
}

static const char *const format_headers[] = {
    "format", "keys", "bits", "bits per weight (scales included)", "kept unquantised", "kind"};

/* Every format of the vocabulary, from its tables: the plain widths first,
 * then the schemes in their table's order. */
static void put_formats(vs_buf *t, vs_buf *h, json_t *list)
{
    vs_table *table = vs_table_new(6, format_headers);
    const vs_vocab_scheme *sc;
    size_t i;
    char bits[8], bpw[32];
    if (!table) {
        t->failed = 1;
        return;
    }
    for (i = 0; vs_vocab_format_names[i]; i++) {
        unsigned b = 0;
        const char *cells[6];
        vs_vocab_format_bits((vs_vocab_format)i, &b);
        snprintf(bits, sizeof bits, "%u", b);
        snprintf(bpw, sizeof bpw, "%u (params x bits)", b);
        cells[0] = vs_vocab_format_names[i];
        cells[1] = "";
        cells[2] = bits;
        cells[3] = bpw;
        /* nf4, int8 and fp8 name the loaders' layouts wherever the card has a
         * tensor list (model/quant.h vs_quant_from_plain) */
        cells[4] = (vs_vocab_format)i == VS_FORMAT_NF4
                       ? "with a tensor list as bnb-nf4 (double quant): embeddings, lm_head, "
                         "norms; without one nothing"
                   : (vs_vocab_format)i == VS_FORMAT_INT8
                       ? "with a tensor list as bnb-int8 (LLM.int8, an fp32 scale per row): "
                         "embeddings, lm_head, norms; without one nothing"
                   : (vs_vocab_format)i == VS_FORMAT_FP8
                       ? "with a tensor list as vLLM's online fp8 (an fp32 scale per tensor): "
                         "embeddings, lm_head, norms, MoE routers; without one nothing"
                       : "nothing: every parameter at this width";
        cells[5] = "plain width";
        vs_table_add_row(table, cells);
        json_array_append_new(list, json_pack("{s:s, s:s, s:i, s:s, s:s, s:s}", "format", cells[0],
                                              "keys", "", "bits", (int)b, "bits_per_weight", bpw,
                                              "kept", cells[4], "kind", cells[5]));
    }
    {
        const char *cells[6] = {
            "bits=N",     "", "N", "N (params x bits)", "nothing: every parameter at N bits",
            "plain width"};
        vs_table_add_row(table, cells);
    }
    for (i = 0; (sc = vs_vocab_scheme_at(i)); i++) {
        const char *cells[6];
        snprintf(bits, sizeof bits, "%u", sc->bits);
        cells[0] = sc->word;
        cells[1] = sc->keys;
        cells[2] = bits;
        cells[3] = sc->bpw;
        cells[4] = sc->kept;
        cells[5] = sc->family;
        vs_table_add_row(table, cells);
        json_array_append_new(list,
                              json_pack("{s:s, s:s, s:i, s:s, s:s, s:s}", "format", sc->word,
                                        "keys", sc->keys, "bits", (int)sc->bits, "bits_per_weight",
                                        sc->bpw, "kept", sc->kept, "kind", sc->family));
    }
    vs_buf_puts(t, "\nformats (the same words for format, formats, fit formats= and estimate "
                   "quant):\n");
    vs_table_text(table, t);
    vs_buf_puts(h, "<p>formats (the same words for <code>format</code>, <code>formats</code>, "
                   "<code>fit formats=</code> and <code>estimate quant</code>):</p>\n");
    vs_table_html(table, h);
    if (vs_table_failed(table))
        t->failed = 1;
    vs_table_free(table);
}

static const char *const list_headers[] = {"group", "verb", "summary"};

vs_bundle *vs_render_help_list(const vs_help_facts *verbs, size_t n)
{
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    vs_table *table = vs_table_new(3, list_headers);
    json_t *list = json_array();
    const char *last_group = NULL;
    size_t i;
    if (!table || !list) {
        vs_table_free(table);
        json_decref(list);
        return NULL;
    }
    for (i = 0; i < n; i++) {
        const vs_help_facts *v = &verbs[i];
        const char *cells[3];
        cells[0] = v->group && (!last_group || strcmp(last_group, v->group)) ? v->group : "";
        cells[1] = v->name;
        cells[2] = v->summary ? v->summary : "";
        last_group = v->group;
        vs_table_add_row(table, cells);
        json_array_append_new(list,
                              json_pack("{s:s, s:s?, s:s?, s:s?}", "name", v->name, "group",
                                        v->group, "syntax", v->syntax, "summary", v->summary));
    }
    vs_buf_puts(&text, "vramsheet verbs (`help VERB` for the syntax, meaning and formula):\n\n");
    vs_table_text(table, &text);
    vs_buf_puts(&text, "\nAmounts carry a byte unit: B KB MB GB TB (powers of 10), KiB MiB GiB "
                       "TiB (powers of 2).\nCounts take K M B T or plain numbers (7e9). `#` starts "
                       "a comment; a trailing `\\` continues a line.\n");
    vs_buf_puts(&html, "<p>vramsheet verbs (<code>help VERB</code> for the syntax, meaning "
                       "and formula)</p>\n");
    vs_table_html(table, &html);
    if (vs_table_failed(table))
        text.failed = 1;
    vs_table_free(table);
    return bundle_of(&text, &html, json_pack("{s:s, s:o}", "kind", "help", "verbs", list));
}
