/* MIME bundles and tables: text and HTML agree, alignment by code points,
 * escaping, invalid UTF-8 kept as U+FFFD. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/bundle.h"
#include "render/result_memo.h"
#include "util/json.h"

#include "check_run.h"
#include "results.h"

/* Checks that vb is byte for byte jansson's compact dump of want (the length
 * too), what prefixing the message; frees both. */
static void bundle_is_dumps(vs_bundle *vb, json_t *want, const char *what)
{
    char *dumped = json_dumps(want, JSON_COMPACT);
    ck_assert_ptr_nonnull(vb);
    ck_assert_ptr_nonnull(dumped);
    ck_assert_msg(!strcmp(vb->json, dumped), "%s%s\nwanted %s", what, vb->json, dumped);
    ck_assert_uint_eq(vb->len, strlen(dumped));
    /* the block it holds, given back to util/buf when it is freed */
    ck_assert_uint_ge(vb->cap, vb->len + 1);
    free(dumped);
    json_decref(want);
    vs_bundle_free(vb);
}

/* A result given back by the memo of a session's results is a bundle as
 * any other: its block is known with its capacity, so freeing it hands the
 * block to util/buf, whose next buffer of that size takes it (recycling on,
 * as the kernel has it) and writes there without running past it. */
START_TEST(test_memo_bundle_block_goes_back)
{
    static const char json[] = "{\"text/plain\":\"reserve kv 1GiB\"}";
    vs_result_memo *m = vs_result_memo_new();
    vs_result_key k;
    vs_bundle *put, *got;
    vs_buf next = VS_BUF_INIT;
    vs_buf src = VS_BUF_INIT;
    char *block;
    size_t i, cap;
    vs_buf_recycle(1);
    ck_assert_ptr_nonnull(m);
    vs_buf_puts(&src, json);
    put = vs_bundle_from_buf(&src);
    vs_result_key_init(&k, "reserve");
    vs_result_key_str(&k, "kv");
    vs_result_memo_put(m, &k, put);
    vs_bundle_free(put);
    vs_result_key_init(&k, "reserve");
    vs_result_key_str(&k, "kv");
    got = vs_result_memo_get(m, &k);
    ck_assert_ptr_nonnull(got);
    ck_assert_str_eq(got->json, json);
    ck_assert_uint_eq(got->len, sizeof json - 1);
    ck_assert_uint_ge(got->cap, got->len + 1);
    block = got->json;
    cap = got->cap;
    vs_bundle_free(got);
    vs_buf_fill(&next, 'x', cap - 1); /* fits the block given back */
    ck_assert_uint_eq(next.len, cap - 1);
    for (i = 0; i < next.len; i++)
        ck_assert_int_eq(next.data[i], 'x');
    ck_assert_ptr_eq(next.data, block);
    vs_buf_free(&next);
    vs_buf_recycle(0);
    vs_result_memo_free(m);
}
END_TEST

START_TEST(test_bundle_keys)
{
    json_t *p = json_pack("{s:s, s:I}", "kind", "convert", "bytes", (json_int_t)24000000000LL);
    vs_bundle *vb = vs_bundle_new("plain", "<p>h</p>", "<svg/>", p);
    json_t *b = vs_test_bundle_json(vb);
    char *plain;
    ck_assert_str_eq(json_string_value(json_object_get(b, "text/plain")), "plain");
    /* the chart is also inside the HTML, which frontends prefer to the SVG */
    ck_assert_str_eq(json_string_value(json_object_get(b, "text/html")),
                     "<p>h</p><div class='vramsheet-chart'>\n<svg/></div>\n");
    ck_assert_str_eq(json_string_value(json_object_get(b, "image/svg+xml")), "<svg/>");
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(b, VS_MIME_JSON), "bytes")),
                     24000000000LL);
    ck_assert_uint_eq(json_object_size(b), 4);
    plain = vs_bundle_plain(vb);
    ck_assert_str_eq(plain, "plain");
    free(plain);
    json_decref(b);
    vs_bundle_free(vb);
    vb = vs_bundle_new("plain", "<p>h</p>", NULL, NULL);
    b = vs_test_bundle_json(vb);
    ck_assert_str_eq(json_string_value(json_object_get(b, "text/html")), "<p>h</p>");
    json_decref(b);
    vs_bundle_free(vb);
    vb = vs_bundle_new("only", NULL, NULL, NULL);
    b = vs_test_bundle_json(vb);
    ck_assert_uint_eq(json_object_size(b), 1);
    json_decref(b);
    vs_bundle_free(vb);
    /* no plain text: no bundle, and the payload is released */
    ck_assert_ptr_null(vs_bundle_new(NULL, "x", NULL, json_object()));
    ck_assert_ptr_null(vs_bundle_plain(NULL));
}
END_TEST

/* The text is what the kernel sends: byte for byte json_dumps of the same
 * object, so a bundle built as text and one built as a tree cannot differ. */
START_TEST(test_bundle_text_is_json_dumps)
{
    const char *plain = "line 1\n\ttab \"q\" \\ \x01 é → 😀";
    const char *html = "<p class=\"x\">a &amp; b</p>\n";
    json_t *want = json_pack("{s:s, s:s, s:{s:s, s:[i, n, b]}}", "text/plain", plain, "text/html",
                             html, VS_MIME_JSON, "kind", "t", "v", 1, 1);
    const char *payload = "{\"kind\":\"t\",\"v\":[1,null,true]}";
    vs_bundle *vb = vs_bundle_new_text(plain, html, NULL, payload, strlen(payload));
    char *dumped = json_dumps(want, JSON_COMPACT), *back;
    ck_assert_str_eq(vb->json, dumped);
    ck_assert_uint_eq(vb->len, strlen(dumped));
    back = vs_bundle_plain(vb);
    ck_assert_str_eq(back, plain);
    free(back);
    free(dumped);
    vs_bundle_free(vb);
    json_decref(want);
}
END_TEST

/* A chart is both inside the HTML and alone, escaped once for the two: the
 * bundle is byte for byte json_dumps of the object with the whole strings,
 * escapes and repaired bytes (U+FFFD) at the pieces' edges included. */
START_TEST(test_bundle_chart_is_json_dumps)
{
    const char *html = "<p class=\"x\">\t\xc3</p>\n\xe2\x82";
    const char *svg = "\x80<svg a=\"1\">\\ \x01 \xc3\xa9 \xf0\x9f\x98\x80</svg>\xc3";
    const char *html_fixed = "<p class=\"x\">\t\xEF\xBF\xBD</p>\n\xEF\xBF\xBD\xEF\xBF\xBD";
    const char *svg_fixed = "\xEF\xBF\xBD<svg a=\"1\">\\ \x01 \xc3\xa9 \xf0\x9f\x98\x80</svg>"
                            "\xEF\xBF\xBD";
    char both[256];
    json_t *want;
    vs_bundle *vb = vs_bundle_new_text("p", html, svg, "{}", 2);
    snprintf(both, sizeof both, "%s<div class='vramsheet-chart'>\n%s</div>\n", html_fixed,
             svg_fixed);
    want = json_pack("{s:s, s:s, s:s, s:{}}", "text/plain", "p", "text/html", both, "image/svg+xml",
                     svg_fixed, VS_MIME_JSON);
    bundle_is_dumps(vb, want, "");
    /* a chart alone */
    vb = vs_bundle_new_text("p", NULL, svg, NULL, 0);
    want = json_pack("{s:s, s:s}", "text/plain", "p", "image/svg+xml", svg_fixed);
    bundle_is_dumps(vb, want, "");
}
END_TEST

/* A one-line result (its HTML the line in a paragraph) is written with the
 * line escaped once for both; the bundle is still jansson's dump of the
 * repaired strings, with quotes, a backslash, a tab, a control character and a
 * broken UTF-8 sequence in the line, and when the HTML is anything else. */
START_TEST(test_bundle_one_line_escaped_once)
{
    static const struct {
        const char *plain, *html, *plain_fixed, *html_fixed;
    } cases[] = {
        {"24 GB = 22.35 GiB\n", "<p>24 GB = 22.35 GiB</p>\n", NULL, NULL},
        {"a \"q\" \\ \t \x01 \xc3 \xc3\xa9\n", "<p>a \"q\" \\ \t \x01 \xc3 \xc3\xa9</p>\n",
         "a \"q\" \\ \t \x01 \xEF\xBF\xBD \xc3\xa9\n",
         "<p>a \"q\" \\ \t \x01 \xEF\xBF\xBD \xc3\xa9</p>\n"},
        {"\xe2\x82\n", "<p>\xe2\x82</p>\n", "\xEF\xBF\xBD\xEF\xBF\xBD\n",
         "<p>\xEF\xBF\xBD\xEF\xBF\xBD</p>\n"},
        {"two\nlines\n", "<p>two\nlines</p>\n", NULL, NULL},
        {"a & b\n", "<p>a &amp; b</p>\n", NULL, NULL},
        {"no newline", "<p>no newlin</p>\n", NULL, NULL},
        {"\n", "<p></p>\n", NULL, NULL},
        {"x\n", "<p>y</p>\n", NULL, NULL},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *pf = cases[i].plain_fixed ? cases[i].plain_fixed : cases[i].plain;
        const char *hf = cases[i].html_fixed ? cases[i].html_fixed : cases[i].html;
        vs_bundle *vb = vs_bundle_new_text(cases[i].plain, cases[i].html, NULL, "{}", 2);
        json_t *want =
            json_pack("{s:s, s:s, s:{}}", "text/plain", pf, "text/html", hf, VS_MIME_JSON);
        char what[32];
        snprintf(what, sizeof what, "case %zu: ", i);
        bundle_is_dumps(vb, want, what);
    }
}
END_TEST

/* A one-line result written straight into its bundle (vs_bundle_line_begin,
 * a payload repeating the headline with vs_jw_str_again, vs_bundle_line_end)
 * is jansson's dump of the object written out here by hand: the line and its
 * newline, the line escaped for HTML in a paragraph, the headline again in
 * the payload; bytes that are not UTF-8 as U+FFFD, each, in all three. */
START_TEST(test_bundle_line_written_in_one_pass)
{
    static const struct {
        const char *headline, *notes[3], *line, *html, *formula;
    } cases[] = {
        {"reserve a: 1 B",
         {"class other", "source: x", NULL},
         "reserve a: 1 B; class other; source: x",
         "reserve a: 1 B; class other; source: x",
         "reserve a: 1 B"},
        {"plain", {NULL}, "plain", "plain", "plain"},
        {"", {NULL}, "", "", ""},
        {"q \"x\" \\ \t \x01 \xc3\xa9",
         {"tab\there", NULL},
         "q \"x\" \\ \t \x01 \xc3\xa9; tab\there",
         "q &quot;x&quot; \\ \t \x01 \xc3\xa9; tab\there",
         "q \"x\" \\ \t \x01 \xc3\xa9"},
        {"a & b <c>",
         {"it's", NULL},
         "a & b <c>; it's",
         "a &amp; b &lt;c&gt;; it&#39;s",
         "a & b <c>"},
        /* a backslash just before a quote: two escapes side by side */
        {"p\\\"q<", {NULL}, "p\\\"q<", "p\\&quot;q&lt;", "p\\\"q<"},
        {"cut \xe2\x82",
         {"\xff end", NULL},
         "cut \xEF\xBF\xBD\xEF\xBF\xBD; \xEF\xBF\xBD end",
         "cut \xEF\xBF\xBD\xEF\xBF\xBD; \xEF\xBF\xBD end",
         "cut \xEF\xBF\xBD\xEF\xBF\xBD"},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        vs_buf out = VS_BUF_INIT, plain = VS_BUF_INIT, html = VS_BUF_INIT;
        vs_jw w = VS_JW_INIT(&out);
        size_t at = 0, len = 0;
        json_t *want;
        char what[32];
        vs_bundle_line_begin(&out, cases[i].headline, cases[i].notes, 16, &at, &len);
        vs_jw_open(&w, '{');
        vs_jw_key(&w, "formula");
        vs_jw_str_again(&w, at, len);
        vs_jw_close(&w, '}');
        vs_buf_printf(&plain, "%s\n", cases[i].line);
        vs_buf_printf(&html, "<p>%s</p>\n", cases[i].html);
        want = json_pack("{s:s, s:s, s:{s:s}}", "text/plain", vs_buf_str(&plain), "text/html",
                         vs_buf_str(&html), VS_MIME_JSON, "formula", cases[i].formula);
        snprintf(what, sizeof what, "case %zu: ", i);
        bundle_is_dumps(vs_bundle_line_end(&out), want, what);
        ck_assert_ptr_null(out.data); /* taken */
        vs_buf_free(&plain);
        vs_buf_free(&html);
    }
}
END_TEST

/* s with each byte that starts no valid UTF-8 sequence replaced by U+FFFD,
 * decoded here by the rules of RFC 3629 (malloc'd). */
static char *repaired(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    vs_buf b = VS_BUF_INIT;
    size_t i = 0, n = strlen(s);
    while (i < n) {
        size_t k = u[i] < 0x80                    ? 1
                   : u[i] >= 0xC2 && u[i] <= 0xDF ? 2
                   : u[i] >= 0xE0 && u[i] <= 0xEF ? 3
                   : u[i] >= 0xF0 && u[i] <= 0xF4 ? 4
                                                  : 0,
               j;
        int ok = k && i + k <= n;
        for (j = 1; ok && j < k; j++)
            ok = (u[i + j] & 0xC0) == 0x80;
        /* no overlong three- and four-byte forms, no surrogates, nothing past U+10FFFF */
        if (ok && k == 3)
            ok = !(u[i] == 0xE0 && u[i + 1] < 0xA0) && !(u[i] == 0xED && u[i + 1] >= 0xA0);
        if (ok && k == 4)
            ok = !(u[i] == 0xF0 && u[i + 1] < 0x90) && !(u[i] == 0xF4 && u[i + 1] >= 0x90);
        if (ok) {
            vs_buf_append(&b, s + i, k);
            i += k;
        } else {
            vs_buf_puts(&b, "\xEF\xBF\xBD");
            i++;
        }
    }
    return vs_buf_take(&b);
}

static void write_test_payload(vs_buf *out, void *ctx)
{
    vs_buf_puts(out, (const char *)ctx);
}

/* A table written escaped straight into its bundle (vs_bundle_new_table) is
 * jansson's dump of the object whose text is the pieces and vs_table_text's
 * form end to end, and whose HTML is the pieces and vs_table_html's form
 * (then the chart): cells with quotes, a backslash, markup, a tab and a
 * newline (spaces in the text), a control byte, a character that is not
 * ASCII and a byte that is not UTF-8 (U+FFFD), numbers right-aligned. */
START_TEST(test_table_written_escaped_into_its_bundle)
{
    static const char *const hdr[] = {"name", "bytes", "note"};
    static const char *const rows[][3] = {
        {"plain", "1,024 B", "nothing to escape"},
        {"q\"uote", "2 B", "back\\slash"},
        {"<b>&'", "3 B", "tab\there, new\nline"},
        {"\x01ctl", "", "\xc3\xa9t\xc3\xa9 \xff cut"},
        {"to-confirm", "40,000,000,000 B",
         "a long source that runs on for more than forty-eight "
         "columns, so it may break"},
    };
    vs_table *t = vs_table_new(3, hdr);
    vs_buf tpre = VS_BUF_INIT, tpost = VS_BUF_INIT, hpre = VS_BUF_INIT, hpost = VS_BUF_INIT;
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT, chart = VS_BUF_INIT;
    json_t *want, *svg = json_string("<svg a='1'>\"x\"</svg>");
    char *svg_json = json_dumps(svg, JSON_ENCODE_ANY), *fixed_text, *fixed_html;
    size_t i;
    int with_chart;
    ck_assert_ptr_nonnull(t);
    vs_table_align_right(t, 1);
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++)
        vs_table_add_row(t, rows[i]);
    vs_buf_puts(&tpre, "head \"q\" <x>\n");
    vs_buf_puts(&tpost, "\nnote \\ \xff end\n");
    vs_buf_puts(&hpre, "<p>head &quot;q&quot;</p>\n");
    vs_buf_puts(&hpost, "<ul>\n<li>note</li>\n</ul>\n");
    vs_buf_puts(&chart, svg_json);
    /* the unescaped forms, end to end, repaired as the bundle repairs them */
    vs_buf_append(&text, tpre.data, tpre.len);
    vs_table_text(t, &text);
    vs_buf_append(&text, tpost.data, tpost.len);
    vs_buf_append(&html, hpre.data, hpre.len);
    vs_table_html(t, &html);
    vs_buf_append(&html, hpost.data, hpost.len);
    fixed_text = repaired(vs_buf_str(&text));
    fixed_html = repaired(vs_buf_str(&html));
    for (with_chart = 0; with_chart < 2; with_chart++) {
        vs_bundle *vb =
            vs_bundle_new_table(&tpre, &tpost, &hpre, &hpost, t, with_chart ? &chart : NULL,
                                write_test_payload, "{\"kind\":\"t\"}", 16);
        if (with_chart) {
            vs_buf both = VS_BUF_INIT;
            vs_buf_printf(&both, "%s<div class='vramsheet-chart'>\n%s</div>\n", fixed_html,
                          json_string_value(svg));
            want = json_pack("{s:s, s:s, s:O, s:{s:s}}", "text/plain", fixed_text, "text/html",
                             vs_buf_str(&both), "image/svg+xml", svg, VS_MIME_JSON, "kind", "t");
            vs_buf_free(&both);
        } else {
            want = json_pack("{s:s, s:s, s:{s:s}}", "text/plain", fixed_text, "text/html",
                             fixed_html, VS_MIME_JSON, "kind", "t");
        }
        ck_assert_ptr_nonnull(want);
        bundle_is_dumps(vb, want, with_chart ? "chart: " : "no chart: ");
    }
    /* a chart that is no JSON string is refused */
    vs_buf_reset(&chart);
    vs_buf_puts(&chart, "<svg/>");
    ck_assert_ptr_null(vs_bundle_new_table(&tpre, &tpost, &hpre, &hpost, t, &chart, NULL, NULL, 0));
    free(fixed_text);
    free(fixed_html);
    free(svg_json);
    json_decref(svg);
    vs_buf_free(&tpre);
    vs_buf_free(&tpost);
    vs_buf_free(&hpre);
    vs_buf_free(&hpost);
    vs_buf_free(&text);
    vs_buf_free(&html);
    vs_buf_free(&chart);
    vs_table_free(t);
}
END_TEST

/* A table whose cells grow past the room made for the table when they are
 * escaped (control bytes: six bytes each in a JSON string, a tab printed as a
 * space first), between plain cells that are copied as they are: the bundle
 * is jansson's dump of the text and the HTML built here by hand, row by row
 * (the text padded to the widest cell, the right column right-aligned). */
START_TEST(test_table_escapes_outgrow_the_room)
{
    static const char *const hdr[] = {"a", "b", "c"};
    static const char ctl[] = "\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0e\x0f\x10\x11\x12";
    vs_table *t = vs_table_new(3, hdr);
    vs_buf empty = VS_BUF_INIT, text = VS_BUF_INIT, html = VS_BUF_INIT;
    json_t *want;
    size_t i;
    ck_assert_ptr_nonnull(t);
    vs_table_align_right(t, 1);
    /* the header row and its rule: every column 15 wide (the control cells) */
    vs_buf_puts(&text, "a");
    vs_buf_fill(&text, ' ', 14 + 2 + 14);
    vs_buf_puts(&text, "b  c\n");
    vs_buf_fill(&text, '-', 15 + 2 + 15 + 2 + 15);
    vs_buf_putc(&text, '\n');
    vs_buf_puts(&html, "<table class='vramsheet'>\n<thead><tr><th style='text-align:left'>a</th>"
                       "<th style='text-align:right'>b</th><th style='text-align:left'>c</th>"
                       "</tr></thead>\n<tbody>\n");
    for (i = 0; i < 200; i++) {
        const char *row[3] = {i % 2 ? "x" : ctl, i % 2 ? ctl : "7 B", i % 2 ? "tab\tx" : ctl};
        vs_table_add_row(t, row);
        if (i % 2)
            vs_buf_printf(&text, "x                %s  tab x\n", ctl);
        else
            vs_buf_printf(&text, "%s              7 B  %s\n", ctl, ctl);
        vs_buf_printf(&html,
                      "<tr><td style='text-align:left'>%s</td><td "
                      "style='text-align:right;white-space:nowrap'>%s</td><td "
                      "style='text-align:left'>%s</td></tr>\n",
                      row[0], row[1], row[2]);
    }
    vs_buf_puts(&html, "</tbody>\n</table>\n");
    want = json_pack("{s:s, s:s}", "text/plain", vs_buf_str(&text), "text/html", vs_buf_str(&html));
    ck_assert_ptr_nonnull(want);
    bundle_is_dumps(vs_bundle_new_table(&empty, &empty, &empty, &empty, t, NULL, NULL, NULL, 0),
                    want, "");
    vs_buf_free(&text);
    vs_buf_free(&html);
    vs_table_free(t);
}
END_TEST

/* vs_jw_str_again copies only a span inside its own buffer: one past its end
 * fails the buffer rather than reading outside it. */
START_TEST(test_bundle_str_again_outside_fails)
{
    vs_buf out = VS_BUF_INIT;
    vs_jw w = VS_JW_INIT(&out);
    vs_buf_puts(&out, "abc");
    vs_jw_str_again(&w, 1, 2);
    ck_assert_str_eq(vs_buf_str(&out), "abc\"bc\"");
    vs_jw_str_again(&w, 7, 2);
    ck_assert(vs_buf_failed(&out));
    vs_buf_free(&out);
}
END_TEST

/* A chart handed over already escaped (vs_bundle_new_chart: the memo's JSON
 * string, here jansson's dump of the repaired chart) is copied as it is: the
 * bundle is jansson's dump of the whole, as with the chart's SVG. */
START_TEST(test_bundle_chart_already_escaped)
{
    const char *html = "<p class=\"x\">\t</p>\n";
    const char *svg_fixed = "\xEF\xBF\xBD<svg a=\"1\">\\ \x01 \xc3\xa9</svg>";
    char both[256];
    json_t *want, *js = json_string(svg_fixed);
    char *esc = json_dumps(js, JSON_ENCODE_ANY);
    vs_buf chart = VS_BUF_INIT;
    vs_bundle *vb;
    vs_buf_puts(&chart, esc);
    vb = vs_bundle_new_chart("p", html, &chart, "{}", 2);
    ck_assert_ptr_nonnull(vb);
    snprintf(both, sizeof both, "%s<div class='vramsheet-chart'>\n%s</div>\n", html, svg_fixed);
    want = json_pack("{s:s, s:s, s:s, s:{}}", "text/plain", "p", "text/html", both, "image/svg+xml",
                     svg_fixed, VS_MIME_JSON);
    bundle_is_dumps(vb, want, "");
    /* a chart alone, no HTML */
    vb = vs_bundle_new_chart("p", NULL, &chart, NULL, 0);
    want = json_pack("{s:s, s:s}", "text/plain", "p", "image/svg+xml", svg_fixed);
    bundle_is_dumps(vb, want, "");
    /* what is no JSON string is refused, not spliced */
    vs_buf_reset(&chart);
    vs_buf_puts(&chart, "<svg/>");
    ck_assert_ptr_null(vs_bundle_new_chart("p", html, &chart, NULL, 0));
    ck_assert_ptr_null(vs_bundle_new_chart("p", html, NULL, NULL, 0));
    vs_buf_free(&chart);
    free(esc);
    json_decref(js);
}
END_TEST

START_TEST(test_bundle_invalid_utf8)
{
    vs_bundle *vb = vs_bundle_new("a\xff"
                                  "b",
                                  "<p>\xc3</p>", NULL, NULL);
    json_t *b = vs_test_bundle_json(vb);
    ck_assert_str_eq(json_string_value(json_object_get(b, "text/plain")), "a\xEF\xBF\xBD"
                                                                          "b");
    ck_assert_str_eq(json_string_value(json_object_get(b, "text/html")), "<p>\xEF\xBF\xBD</p>");
    json_decref(b);
    vs_bundle_free(vb);
}
END_TEST

static const char *const headers[] = {"component", "bytes", "status"};

START_TEST(test_table_text)
{
    vs_table *t = vs_table_new(3, headers);
    vs_buf out = VS_BUF_INIT;
    const char *r1[] = {"weights", "14,000,000,000", "estimated"};
    const char *r2[] = {"kv_cache é", "1", NULL};
    vs_table_align_right(t, 1);
    vs_table_add_row(t, r1);
    vs_table_add_row(t, r2);
    ck_assert_int_eq(vs_table_failed(t), 0);
    vs_table_text(t, &out);
    ck_assert_str_eq(vs_buf_str(&out), "component            bytes  status\n"
                                       "-------------------------------------\n"
                                       "weights     14,000,000,000  estimated\n"
                                       "kv_cache é               1\n");
    vs_buf_free(&out);
    vs_table_free(t);
    vs_table_free(NULL);
}
END_TEST

/* Cells given with their lengths (a piece of a longer string, a NULL cell
 * whatever its length) into a table sized beforehand, then grown past it:
 * the same text as the hand-aligned one. */
START_TEST(test_table_rows_with_lengths)
{
    vs_table *t = vs_table_new(3, headers);
    vs_buf out = VS_BUF_INIT;
    const char *longer = "weights and more";
    const char *r1[] = {longer, "14,000,000,000", "estimated"};
    const size_t l1[] = {7, 14, 9}; /* "weights" of the longer string */
    const char *r2[] = {"kv_cache é", "1", NULL};
    const size_t l2[] = {11, 1, 99}; /* é is two bytes, one column */
    size_t i;
    vs_table_reserve(t, 2, 64);
    vs_table_align_right(t, 1);
    vs_table_add_rown(t, r1, l1);
    vs_table_add_rown(t, r2, l2);
    ck_assert_int_eq(vs_table_failed(t), 0);
    vs_table_text(t, &out);
    ck_assert_str_eq(vs_buf_str(&out), "component            bytes  status\n"
                                       "-------------------------------------\n"
                                       "weights     14,000,000,000  estimated\n"
                                       "kv_cache é               1\n");
    /* past the reserved rows: 2 + 20 rows of "x", "2", "" */
    for (i = 0; i < 20; i++) {
        const char *r[] = {"x", "2", ""};
        const size_t l[] = {1, 1, 0};
        vs_table_add_rown(t, r, l);
    }
    ck_assert_int_eq(vs_table_failed(t), 0);
    vs_buf_reset(&out);
    vs_table_text(t, &out);
    /* in bytes: the header 35, the rule 38, the rows 38 and 28 (é is two
     * bytes), then 20 of 27: "x", 24 spaces, "2" right-aligned, newline */
    ck_assert_uint_eq(out.len, 35 + 38 + 38 + 28 + 20 * 27);
    ck_assert_ptr_nonnull(strstr(vs_buf_str(&out), "\nx                        2\n"));
    vs_buf_free(&out);
    vs_table_free(t);
    vs_table_reserve(NULL, 1, 1);
}
END_TEST

START_TEST(test_table_html)
{
    vs_table *t = vs_table_new(3, headers);
    vs_buf out = VS_BUF_INIT;
    const char *r1[] = {"<script>", "1 & 2", "\"q\" 'a'"};
    vs_table_align_right(t, 1);
    vs_table_add_row(t, r1);
    vs_table_html(t, &out);
    ck_assert_ptr_nonnull(strstr(vs_buf_str(&out), "<table class='vramsheet'>"));
    ck_assert_ptr_nonnull(strstr(vs_buf_str(&out), "&lt;script&gt;"));
    ck_assert_ptr_nonnull(
        strstr(vs_buf_str(&out), "<td style='text-align:right;white-space:nowrap'>1 &amp; 2</td>"));
    /* attributes are quoted with ': a value can close neither quote */
    ck_assert_ptr_nonnull(strstr(vs_buf_str(&out), "&quot;q&quot; &#39;a&#39;"));
    ck_assert_ptr_null(strstr(vs_buf_str(&out), "<script>"));
    ck_assert_ptr_nonnull(strstr(vs_buf_str(&out), "<th style='text-align:left'>component</th>"));
    vs_buf_free(&out);
    vs_table_free(t);
}
END_TEST

/* Cells of every length around the 16-byte block, plain, with a two-byte
 * character or a tab at every place: each prints as wide as its code points
 * (a tab as a space), so the next column starts at the same place on every
 * row. */
START_TEST(test_table_widths_of_every_length)
{
    static const char *const two[] = {"a", "b"};
    vs_table *t = vs_table_new(2, two);
    vs_buf out = VS_BUF_INIT;
    char cells[3 * 40 * 40][48];
    size_t n, at, k = 0, col = 0, lines = 0;
    const char *p;
    for (n = 1; n < 40; n++)
        for (at = 0; at < n; at++) {
            const char *row[2];
            int kind;
            for (kind = 0; kind < 3; kind++, k++) {
                memset(cells[k], 'x', n);
                cells[k][n] = '\0';
                if (kind == 1) { /* é in place of one x: one more byte, the same width */
                    memmove(cells[k] + at + 2, cells[k] + at + 1, n - at);
                    memcpy(cells[k] + at, "\xc3\xa9", 2);
                } else if (kind == 2) {
                    cells[k][at] = '\t';
                }
                row[0] = cells[k];
                row[1] = "|";
                vs_table_add_row(t, row);
            }
        }
    ck_assert(!vs_table_failed(t));
    vs_table_text(t, &out);
    p = vs_buf_str(&out);
    p = strchr(p, '\n') + 1; /* the header */
    p = strchr(p, '\n') + 1; /* the rule */
    while (*p) {
        size_t w = 0;
        for (; *p != '|'; p++) {
            ck_assert_int_ne(*p, '\t');
            ck_assert_int_ne(*p, '\n');
            w += ((unsigned char)*p & 0xC0) != 0x80;
        }
        if (!col)
            col = w;
        ck_assert_uint_eq(w, col);
        p = strchr(p, '\n') + 1;
        lines++;
    }
    ck_assert_uint_eq(lines, k);
    ck_assert_uint_eq(col, 39 + 2);
    vs_buf_free(&out);
    vs_table_free(t);
}
END_TEST

/* Markup at every place of cells of every length around the 16-byte block is
 * escaped in the HTML table; cells without it are copied as they are. */
START_TEST(test_table_html_escapes_markup_anywhere)
{
    static const char marks[] = "&<>\"'";
    static const char *const entity[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&#39;"};
    static const char *const one[] = {"c"};
    size_t m, n, at;
    for (m = 0; m < 5; m++)
        for (n = 1; n < 36; n++)
            for (at = 0; at < n; at++) {
                vs_table *t = vs_table_new(1, one);
                vs_buf out = VS_BUF_INIT;
                char cell[48], want[96];
                const char *row[1] = {cell};
                memset(cell, 'x', n);
                cell[n] = '\0';
                cell[at] = marks[m];
                vs_table_add_row(t, row);
                vs_table_html(t, &out);
                snprintf(want, sizeof want, "<td style='text-align:left'>%.*s%s%s</td>", (int)at,
                         cell, entity[m], cell + at + 1);
                ck_assert_msg(strstr(vs_buf_str(&out), want) != NULL, "%s not in %s", want,
                              vs_buf_str(&out));
                vs_buf_free(&out);
                vs_table_free(t);
            }
    {
        /* and a plain cell, copied */
        vs_table *t = vs_table_new(1, one);
        vs_buf out = VS_BUF_INIT;
        const char *row[1] = {"plain cell, sixteen bytes and more"};
        vs_table_add_row(t, row);
        vs_table_html(t, &out);
        ck_assert_ptr_nonnull(strstr(vs_buf_str(&out),
                                     "<td style='text-align:left'>plain cell, sixteen bytes and "
                                     "more</td>"));
        vs_buf_free(&out);
        vs_table_free(t);
    }
}
END_TEST

/* In a page, a number and its unit never break; a long source may break
 * anywhere; other text breaks at spaces. */
START_TEST(test_table_html_wrapping)
{
    static const char *const h[] = {"component", "bytes", "source"};
    const char *row2[3] = {"length=4096 concurrency=8", "x=1 y", "a=b"};
    const char *row3[3] = {"to-confirm", "a-b c", "x"};
    const char *row[3] = {"kv cache", "14,000,000,000 B = 14.00 GB = 13.04 GiB",
                          "https://huggingface.co/meta-llama/Llama-3.1-70B-Instruct/blob/main/"
                          "config.json"};
    vs_table *t = vs_table_new(3, h);
    vs_buf out = VS_BUF_INIT;
    vs_table_add_row(t, row);
    vs_table_add_row(t, row2);
    vs_table_add_row(t, row3);
    vs_table_html(t, &out);
    /* a verdict is not split at its hyphen ("to-" over "confirm"); words with spaces are */
    ck_assert_ptr_nonnull(
        strstr(vs_buf_str(&out), "<td style='text-align:left;white-space:nowrap'>to-confirm</td>"));
    ck_assert_ptr_nonnull(strstr(vs_buf_str(&out), "<td style='text-align:left'>a-b c</td>"));
    ck_assert_ptr_nonnull(strstr(vs_buf_str(&out), "<td style='text-align:left'>kv cache</td>"));
    /* executed dimensions may break between their pairs, never inside one */
    ck_assert_ptr_nonnull(
        strstr(vs_buf_str(&out), "<td style='text-align:left'>length=4096 concurrency=8</td>"));
    ck_assert_ptr_nonnull(strstr(vs_buf_str(&out), "<td style='text-align:left'>x=1 y</td>"));
    ck_assert_ptr_nonnull(strstr(vs_buf_str(&out), "<td style='text-align:left'>a=b</td>"));
    ck_assert_ptr_nonnull(strstr(vs_buf_str(&out), "<td style='text-align:left;white-space:nowrap'>"
                                                   "14,000,000,000 B = 14.00 GB = 13.04 GiB</td>"));
    ck_assert_ptr_nonnull(
        strstr(vs_buf_str(&out), "overflow-wrap:anywhere;min-width:16em'>https://"));
    vs_buf_free(&out);
    vs_table_free(t);
}
END_TEST

START_TEST(test_table_many_rows)
{
    vs_table *t = vs_table_new(3, headers);
    vs_buf text = VS_BUF_INIT, html = VS_BUF_INIT;
    size_t i, lines = 0;
    const char *p;
    for (i = 0; i < 1000; i++) {
        char n[32];
        const char *row[3];
        snprintf(n, sizeof n, "%zu", i);
        row[0] = n;
        row[1] = "x\ny"; /* a newline inside a cell prints as a space in text */
        row[2] = "z";
        vs_table_add_row(t, row);
    }
    vs_table_text(t, &text);
    vs_table_html(t, &html);
    for (p = vs_buf_str(&text); *p; p++)
        lines += *p == '\n';
    ck_assert_uint_eq(lines, 1002);
    ck_assert_ptr_nonnull(strstr(vs_buf_str(&text), "999        x y    z\n"));
    ck_assert_ptr_nonnull(
        strstr(vs_buf_str(&html), "<td style='text-align:left;white-space:nowrap'>999</td>"));
    vs_buf_free(&text);
    vs_buf_free(&html);
    vs_table_free(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("bundle");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_bundle_keys);
    tcase_add_test(tc, test_memo_bundle_block_goes_back);
    tcase_add_test(tc, test_bundle_text_is_json_dumps);
    tcase_add_test(tc, test_bundle_chart_is_json_dumps);
    tcase_add_test(tc, test_bundle_chart_already_escaped);
    tcase_add_test(tc, test_bundle_one_line_escaped_once);
    tcase_add_test(tc, test_bundle_invalid_utf8);
    tcase_add_test(tc, test_bundle_line_written_in_one_pass);
    tcase_add_test(tc, test_bundle_str_again_outside_fails);
    tcase_add_test(tc, test_table_written_escaped_into_its_bundle);
    tcase_add_test(tc, test_table_escapes_outgrow_the_room);
    tcase_add_test(tc, test_table_text);
    tcase_add_test(tc, test_table_rows_with_lengths);
    tcase_add_test(tc, test_table_html);
    tcase_add_test(tc, test_table_html_wrapping);
    tcase_add_test(tc, test_table_many_rows);
    tcase_add_test(tc, test_table_widths_of_every_length);
    tcase_add_test(tc, test_table_html_escapes_markup_anywhere);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
