/* The budget chart: stacked components, unknown ones hatched, capacity lines. */
#include <check.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/svg.h"
#include "util/buf.h"

#include "check_run.h"

static size_t count(const char *s, const char *needle)
{
    size_t n = 0;
    const char *p = s;
    while ((p = strstr(p, needle)) != NULL) {
        n++;
        p += strlen(needle);
    }
    return n;
}

/* A legend line cut from a longer text is escaped like the whole text
 * (vs_buf_put_html); the escapes written out by hand. */
START_TEST(escape_a_piece)
{
    const char *s = "a<b>&\"c'd & the rest <not cut>";
    vs_buf b = VS_BUF_INIT, whole = VS_BUF_INIT;
    vs_buf_put_htmln(&b, s, 9);
    ck_assert_str_eq(vs_buf_str(&b), "a&lt;b&gt;&amp;&quot;c&#39;d");
    vs_buf_reset(&b);
    vs_buf_put_htmln(&b, s, strlen(s));
    vs_buf_put_html(&whole, s);
    ck_assert_str_eq(vs_buf_str(&b), vs_buf_str(&whole));
    vs_buf_reset(&b);
    vs_buf_put_htmln(&b, "plain", 0);
    ck_assert_uint_eq(b.len, 0);
    vs_buf_put_htmln(&b, "plain text", 5);
    ck_assert_str_eq(vs_buf_str(&b), "plain");
    vs_buf_free(&b);
    vs_buf_free(&whole);
}
END_TEST

START_TEST(seed_chart)
{
    vs_svg_segment segs[] = {{"weights", 1, 14000000000ULL, "params x bits / 8"},
                             {"reserve", 1, 6442450944ULL, "estimated"},
                             {"workspace", 0, 0, "unknown"}};
    vs_svg_line lines[] = {{"RTX 4090", 24000000000ULL, "nominal 24 GB"},
                           {"RTX 6000 Ada", 48000000000ULL, "nominal 48 GB"}};
    char *svg = vs_svg_budget("Seed <7B> & co", segs, 3, lines, 2);
    ck_assert_ptr_nonnull(svg);
    ck_assert(strncmp(svg, "<svg xmlns='http://www.w3.org/2000/svg'", 39) == 0);
    ck_assert(strstr(svg, "</svg>\n") != NULL);
    /* escaped title, never raw markup */
    ck_assert(strstr(svg, "Seed &lt;7B&gt; &amp; co") != NULL);
    ck_assert(strstr(svg, "<7B>") == NULL);
    /* the axis is in GiB and says so */
    ck_assert(strstr(svg, "GiB (2^30 bytes)") != NULL);
    /* weights first: the first stacked rect is the weights */
    ck_assert(strstr(svg, "<title>weights: 13.04 GiB</title>") != NULL);
    ck_assert(strstr(svg, "<title>weights: 13.04 GiB</title>") <
              strstr(svg, "<title>reserve: 6.00 GiB</title>"));
    /* the unknown one is hatched, dashed and labelled unknown */
    ck_assert_uint_eq(count(svg, "class='unknown'"), 1);
    ck_assert(strstr(svg, "url(#vs-hatch)") != NULL);
    ck_assert(strstr(svg, "stroke-dasharray") != NULL);
    ck_assert(strstr(svg, "workspace: unknown") != NULL);
    ck_assert(strstr(svg, "known part 19.04 GiB + 1 unknown") != NULL);
    /* one capacity line per offer, labelled with its basis */
    ck_assert_uint_eq(count(svg, "class='capacity'"), 2);
    ck_assert(strstr(svg, ">[1] RTX 4090: 22.35 GiB (nominal 24 GB)<") != NULL);
    /* 43 characters: wrapped at the space before the basis */
    ck_assert(strstr(svg, ">[2] RTX 6000 Ada: 44.70 GiB<") != NULL);
    ck_assert(strstr(svg, ">(nominal 48 GB)<") != NULL);
    /* each line's label, by its number in the legend */
    ck_assert(strstr(svg, ">22.35 GiB [1]<") != NULL);
    ck_assert(strstr(svg, ">44.70 GiB [2]<") != NULL);
    free(svg);
}
END_TEST

START_TEST(stack_label_above_a_line_at_its_height)
{
    /* Notebook 06's picture: 52.85 GiB known plus three unknown stubs under an
     * 80 GB line. The stack's label is drawn after every capacity line, on a
     * white halo, so the line runs behind the words instead of through them. */
    vs_svg_segment segs[] = {{"weights", 1, 35270000000ULL, NULL},
                             {"kv_cache", 1, 21474836480ULL, "estimated"},
                             {"non_torch", 0, 0, "unknown"},
                             {"activation_peak", 0, 0, "unknown"},
                             {"cuda_graphs", 0, 0, "unknown"}};
    vs_svg_line lines[] = {{"A100 80GB", 80ULL << 30, "device-reported"}};
    char *svg = vs_svg_budget(NULL, segs, 5, lines, 1);
    const char *line = strstr(svg, "class='capacity'"), *label = strstr(svg, "+ 3 unknown");
    ck_assert_ptr_nonnull(line);
    ck_assert_ptr_nonnull(label);
    ck_assert(label > line);
    while (label > svg && strncmp(label, "<text", 5))
        label--;
    ck_assert(!strncmp(label, "<text", 5));
    ck_assert_ptr_nonnull(strstr(label, "paint-order='stroke' stroke='#fff'"));
    ck_assert(strstr(label, "paint-order") < strstr(label, "</text>"));
    free(svg);
}
END_TEST

START_TEST(lines_sit_at_their_capacity)
{
    /* With the axis at 0..N GiB, a line's y is proportional to its GiB: the
     * 48 GB line lies above (smaller y than) the 24 GB one. */
    vs_svg_segment segs[] = {{"weights", 1, 1ULL << 30, NULL}};
    vs_svg_line lines[] = {{"a", 24000000000ULL, "nominal"}, {"b", 48000000000ULL, "nominal"}};
    char *svg = vs_svg_budget(NULL, segs, 1, lines, 2);
    const char *la = strstr(svg, "class='capacity'"), *lb;
    double ya, yb;
    ck_assert_ptr_nonnull(la);
    lb = strstr(la + 1, "class='capacity'");
    ck_assert_ptr_nonnull(lb);
    /* the y1 attribute of each line precedes its class */
    {
        const char *p = la;
        while (p > svg && strncmp(p, "<line", 5))
            p--;
        ya = atof(strstr(p, "y1='") + 4);
        p = lb;
        while (p > svg && strncmp(p, "<line", 5))
            p--;
        yb = atof(strstr(p, "y1='") + 4);
    }
    ck_assert(yb < ya);
    ck_assert(strstr(svg, "envelope 1.00 GiB") != NULL);
    free(svg);
}
END_TEST

START_TEST(empty_and_huge)
{
    char *svg = vs_svg_budget(NULL, NULL, 0, NULL, 0);
    vs_svg_segment big[] = {{"weights", 1, 1ULL << 62, NULL}};
    ck_assert_ptr_nonnull(svg);
    ck_assert(strstr(svg, "</svg>") != NULL);
    free(svg);
    svg = vs_svg_budget("x", big, 1, NULL, 0);
    ck_assert_ptr_nonnull(svg);
    ck_assert(strstr(svg, "4294967296.00 GiB") != NULL);
    free(svg);
}
END_TEST

/* The axis' tick labels read as printf's %g writes their values (a whole
 * number or a quarter is written without printf), from charts a fraction of a
 * GiB tall to ones past 10^4 GiB (below 10^6 GiB, where a label fits its
 * seven characters): every label is %g of its own value, and they rise from 0. */
START_TEST(tick_labels_read_as_printf_g)
{
    double gib = 0.01;
    int charts = 0;
    for (; gib < 6e5; gib *= 1.37, charts++) {
        vs_svg_segment seg[] = {{"weights", 1, (uint64_t)(gib * 1073741824.0), NULL}};
        char *svg = vs_svg_budget(NULL, seg, 1, NULL, 0);
        const char *p = svg, *mark = "text-anchor='end'>";
        double last = -1;
        int ticks = 0;
        ck_assert_ptr_nonnull(svg);
        while ((p = strstr(p, mark)) != NULL) {
            char label[32], want[32];
            size_t n;
            p += strlen(mark);
            n = strcspn(p, "<");
            ck_assert_uint_lt(n, sizeof label);
            memcpy(label, p, n);
            label[n] = '\0';
            snprintf(want, sizeof want, "%g", strtod(label, NULL));
            ck_assert_msg(!strcmp(label, want), "%g GiB: tick '%s', %%g writes '%s'", gib, label,
                          want);
            ck_assert(strtod(label, NULL) > last);
            last = strtod(label, NULL);
            if (!ticks++)
                ck_assert_str_eq(label, "0");
        }
        ck_assert_int_ge(ticks, 2);
        free(svg);
    }
    ck_assert_int_gt(charts, 30);
}
END_TEST

/* A long reserve: the weights, the ten largest components in the sheet's
 * order, one slice for the rest summed, one hatched slice for the unknown. */
START_TEST(long_reserves_are_grouped)
{
    vs_svg_segment segs[41];
    char names[41][16], *svg;
    size_t i;
    segs[0] = (vs_svg_segment){"weights", 1, 13ULL << 30, "params x bits / 8"};
    for (i = 1; i <= 30; i++) {
        snprintf(names[i], sizeof names[i], "part_%zu", i);
        /* sizes 1..30 MiB, but part_20 and part_22 weigh 21 MiB as part_21 does:
         * three ties at the threshold for two places */
        segs[i] = (vs_svg_segment){names[i], 1, (uint64_t)(i == 20 || i == 22 ? 21 : i) << 20,
                                   "estimated"};
    }
    for (i = 31; i <= 40; i++) {
        snprintf(names[i], sizeof names[i], "unk_%zu", i);
        segs[i] = (vs_svg_segment){names[i], 0, 0, "unknown"};
    }
    svg = vs_svg_budget(NULL, segs, 41, NULL, 0);
    ck_assert_ptr_nonnull(svg);
    ck_assert(strstr(svg, "<title>weights: 13.00 GiB</title>") != NULL);
    /* the ten largest: part_23 .. part_30, then the two earliest of the ties */
    for (i = 20; i <= 30; i++) {
        char t[64];
        snprintf(t, sizeof t, "<title>part_%zu: ", i);
        ck_assert_msg(i == 22 ? !strstr(svg, t) : strstr(svg, t) != NULL, "%s", t);
    }
    ck_assert(strstr(svg, "<title>part_19: ") == NULL);
    /* the other 20 summed: 1+..+19 MiB + 21 MiB (part_22) = 211 MiB = 0.21 GiB */
    ck_assert(strstr(svg, "<title>20 smaller components: 0.21 GiB</title>") != NULL);
    ck_assert_uint_eq(count(svg, "class='unknown'"), 1);
    ck_assert(strstr(svg, "10 unknown components: unknown") != NULL);
    /* the total still counts every component */
    ck_assert(strstr(svg, "known part 13.45 GiB + 10 unknown") != NULL);
    /* one legend row per slice drawn, not per component */
    ck_assert_uint_eq(count(svg, "<rect x="), 13);
    free(svg);
    /* twenty equal components after the weights, largest last in the sheet:
     * the ten earliest are kept, the ten others summed (10 x 5 MiB) */
    for (i = 1; i <= 20; i++)
        segs[i] = (vs_svg_segment){names[i], 1, 5ULL << 20, "estimated"};
    svg = vs_svg_budget(NULL, segs, 21, NULL, 0);
    ck_assert_ptr_nonnull(svg);
    for (i = 1; i <= 20; i++) {
        char t[64];
        snprintf(t, sizeof t, "<title>part_%zu: ", i);
        ck_assert_msg(i <= 10 ? strstr(svg, t) != NULL : !strstr(svg, t), "%s", t);
    }
    ck_assert(strstr(svg, "<title>10 smaller components: 0.05 GiB</title>") != NULL);
    free(svg);
}
END_TEST

/* ------------------------------------------------------------- layout
 * The text boxes, recomputed from the SVG alone with the metrics the chart
 * declares (src/render/svg.c): a monospaced face, each character 0.6 em wide
 * (DejaVu Sans Mono: advance 1233 of 2048 units per em), 0.8 em above the
 * baseline and 0.2 em below it. */
typedef struct box {
    double x0, y0, x1, y1;
    char text[160];
} box;

static double attr_num(const char *tag, const char *end, const char *name, double dflt)
{
    char key[32];
    const char *p;
    snprintf(key, sizeof key, " %s='", name);
    p = strstr(tag, key);
    if (!p || p > end)
        return dflt;
    return atof(p + strlen(key));
}

static int attr_is(const char *tag, const char *end, const char *kv)
{
    const char *p = strstr(tag, kv);
    return p && p < end;
}

/* Code points of the text between > and </text>, with the five XML
 * entities read as one character each. */
static size_t text_chars(const char *s, const char *end, char *copy, size_t cap)
{
    size_t n = 0, o = 0;
    while (s < end) {
        unsigned char c = (unsigned char)*s;
        ck_assert_msg(c != '<', "markup inside a text: %.40s", s);
        if (o + 1 < cap)
            copy[o++] = (char)c;
        if (c == '&') {
            const char *semi = strchr(s, ';');
            ck_assert(semi && semi < end);
            s = semi + 1;
            n++;
            continue;
        }
        n += (c & 0xC0) != 0x80;
        s++;
    }
    copy[o] = '\0';
    return n;
}

static size_t text_boxes(const char *svg, box **out, double *vw, double *vh)
{
    const char *p = strstr(svg, "viewBox='0 0 "), *root_end = strchr(svg, '>');
    double root_fs;
    size_t n = 0, cap = 64;
    box *b = malloc(cap * sizeof *b);
    ck_assert_ptr_nonnull(p);
    ck_assert(sscanf(p, "viewBox='0 0 %lf %lf'", vw, vh) == 2);
    root_fs = attr_num(svg, root_end, "font-size", 16);
    ck_assert(attr_is(svg, root_end, "monospace"));
    p = svg;
    while ((p = strstr(p, "<text ")) != NULL) {
        const char *tag_end = strchr(p, '>'), *close = strstr(tag_end, "</text>");
        double x = attr_num(p, tag_end, "x", 0), y = attr_num(p, tag_end, "y", 0);
        double fs = attr_num(p, tag_end, "font-size", root_fs), w, x0;
        size_t chars;
        if (n == cap)
            b = realloc(b, (cap *= 2) * sizeof *b);
        chars = text_chars(tag_end + 1, close, b[n].text, sizeof b[n].text);
        w = (double)chars * 0.6 * fs;
        x0 = attr_is(p, tag_end, "text-anchor='end'")      ? x - w
             : attr_is(p, tag_end, "text-anchor='middle'") ? x - w / 2
                                                           : x;
        b[n].x0 = x0;
        b[n].x1 = x0 + w;
        b[n].y0 = y - 0.8 * fs;
        b[n].y1 = y + 0.2 * fs;
        {
            const char *rot = strstr(p, "rotate(-90 ");
            if (rot && rot < tag_end) {
                /* turned a quarter left about (cx, cy): (px, py) -> (cx + py - cy, cy - px + cx) */
                double cx, cy;
                box r;
                ck_assert(sscanf(rot, "rotate(-90 %lf %lf)", &cx, &cy) == 2);
                r.x0 = cx + b[n].y0 - cy;
                r.x1 = cx + b[n].y1 - cy;
                r.y0 = cy - (b[n].x1 - cx);
                r.y1 = cy - (b[n].x0 - cx);
                b[n].x0 = r.x0, b[n].x1 = r.x1, b[n].y0 = r.y0, b[n].y1 = r.y1;
            }
        }
        n++;
        p = close;
    }
    *out = b;
    return n;
}

static void check_layout(const char *svg, const char *what)
{
    box *b;
    double vw, vh;
    size_t n = text_boxes(svg, &b, &vw, &vh), i, j;
    ck_assert_msg(n > 0, "%s: no text", what);
    for (i = 0; i < n; i++) {
        ck_assert_msg(b[i].x0 >= 0 && b[i].y0 >= 0 && b[i].x1 <= vw && b[i].y1 <= vh,
                      "%s: '%s' [%.1f %.1f %.1f %.1f] leaves the %.0f x %.0f picture", what,
                      b[i].text, b[i].x0, b[i].y0, b[i].x1, b[i].y1, vw, vh);
        for (j = 0; j < i; j++)
            ck_assert_msg(b[i].x1 <= b[j].x0 || b[j].x1 <= b[i].x0 || b[i].y1 <= b[j].y0 ||
                              b[j].y1 <= b[i].y0,
                          "%s: '%s' overlaps '%s'", what, b[i].text, b[j].text);
    }
    free(b);
}

/* Offers as the catalogue and the notebooks give them: long names, long
 * bases, two lines 0.35 GiB apart (79.65 and 80.00 GiB), equal capacities. */
static const vs_svg_line offers[16] = {
    {"H100 SXM", 85520809984ULL, "device-reported, catalogue"},
    {"H100 80GB PCIe (another vendor's board)", 85899345920ULL, "nominal 86 GB"},
    {"A100 80GB", 85899345920ULL, "nominal 86 GB"},
    {"RTX 4090", 24000000000ULL, "nominal 24 GB"},
    {"RTX 6000 Ada", 48000000000ULL, "nominal 48 GB"},
    {"L4", 24000000000ULL, "nominal 24 GB"},
    {"H200", 150754820096ULL, "device-reported, catalogue"},
    {"MI300X", 206158430208ULL, "nominal 206 GB"},
    {"A10G", 23836033024ULL, "device-reported, catalogue"},
    {"T4", 16000000000ULL, "nominal 16 GB"},
    {"L40S", 48000000000ULL, "nominal 48 GB"},
    {"B200", 192000000000ULL, "nominal 192 GB"},
    {"RTX 3090", 25769803776ULL, "device-reported, catalogue"},
    {"GH200 (Grace Hopper superchip, HBM3e)", 154618822656ULL, "nominal 155 GB"},
    {"V100 32GB", 34359738368ULL, "nominal 34 GB"},
    {"laptop RTX 4060", 8589934592ULL, "device-reported, catalogue"},
};

START_TEST(layout_for_every_count)
{
    static char names[30][48];
    vs_svg_segment segs[30];
    size_t nl, nc, i;
    segs[0] = (vs_svg_segment){"weights", 1, 70000000000ULL, "params x bits / 8"};
    for (i = 1; i < 30; i++) {
        snprintf(names[i], sizeof names[i],
                 i % 3 ? "kv_cache_%zu" : "activations_per_microbatch_%zu", i);
        segs[i] = (vs_svg_segment){names[i], i % 7 != 3, (uint64_t)i * 700000000ULL,
                                   i % 2 ? "estimated" : "measured"};
    }
    for (nl = 1; nl <= 16; nl++)
        for (nc = 1; nc <= 30; nc++) {
            char what[64], *svg;
            snprintf(what, sizeof what, "%zu offers, %zu components", nl, nc);
            svg = vs_svg_budget("Memory budget per GPU: Llama-3.1-70B-Instruct on vLLM, "
                                "tensor placement over two GPUs, 32,768 tokens",
                                segs, nc, offers, nl);
            ck_assert_ptr_nonnull(svg);
            check_layout(svg, what);
            free(svg);
        }
}
END_TEST

START_TEST(close_and_equal_lines)
{
    vs_svg_segment segs[] = {{"weights", 1, 70000000000ULL, "params x bits / 8"}};
    char *svg = vs_svg_budget(NULL, segs, 1, offers, 3);
    const char *a, *c;
    ck_assert_ptr_nonnull(svg);
    /* 79.65 GiB has its own label; the two 80.00 GiB lines share one */
    ck_assert((a = strstr(svg, ">79.65 GiB [1]<")) != NULL);
    ck_assert((c = strstr(svg, ">80.00 GiB [2,3]<")) != NULL);
    ck_assert_uint_eq(count(svg, "class='capacity'"), 3);
    /* the legend keeps the whole basis, wrapped, never cut */
    ck_assert(strstr(svg, "catalogue)<") != NULL);
    ck_assert(strstr(svg, "\xe2\x80\xa6") == NULL);
    check_layout(svg, "three lines");
    free(svg);
    {
        /* eight equal lines: one label, their count, past the label's width */
        vs_svg_line eight[8];
        size_t i;
        for (i = 0; i < 8; i++)
            eight[i] = (vs_svg_line){"A100 80GB", 85899345920ULL, "nominal 86 GB"};
        svg = vs_svg_budget(NULL, segs, 1, eight, 8);
        ck_assert_ptr_nonnull(strstr(svg, ">80.00 GiB [8 offers]<"));
        ck_assert_uint_eq(count(svg, "GiB [8 offers]"), 1);
        check_layout(svg, "eight equal lines");
        free(svg);
    }
}
END_TEST

/* The memo (vs_svg_budget_memo) hands back the chart it holds only when every
 * input is the same: each change below, one field at a time, must draw again
 * (drawn moves) and give vs_svg_budget's chart of the changed inputs, byte for
 * byte; the same inputs again, in fresh copies of the texts, draw nothing. */
static void memo_is(vs_svg_memo *m, const char *title, const vs_svg_segment *segs, size_t nsegs,
                    const vs_svg_line *lines, size_t nlines, unsigned long drawn, const char *what)
{
    const char *got = vs_svg_budget_memo(m, title, segs, nsegs, nsegs, lines, nlines);
    char *want = vs_svg_budget(title, segs, nsegs, lines, nlines);
    ck_assert_ptr_nonnull(got);
    ck_assert_ptr_nonnull(want);
    ck_assert_msg(!strcmp(got, want), "%s: the memo's chart differs from a fresh one", what);
    ck_assert_msg(m->drawn == drawn, "%s: drawn %lu times, expected %lu", what, m->drawn, drawn);
    free(want);
}

START_TEST(memo_draws_again_on_any_change)
{
    vs_svg_segment segs[] = {{"weights", 1, 14000000000ULL, "params x bits / 8"},
                             {"kv_cache", 1, 6442450944ULL, "estimated"},
                             {"workspace", 0, 0, "unknown"}};
    vs_svg_line lines[] = {{"RTX 4090", 24000000000ULL, "nominal 24 GB"},
                           {"RTX 6000 Ada", 48000000000ULL, "nominal 48 GB"}};
    char kv[] = "kv_cache", title[] = "Memory budget per GPU: t";
    vs_svg_memo m = VS_SVG_MEMO_INIT;
    const vs_buf *js;
    unsigned long n = 0;
    memo_is(&m, title, segs, 3, lines, 2, ++n, "first");
    /* the same again, the texts in other buffers: kept */
    segs[1].label = kv;
    memo_is(&m, "Memory budget per GPU: t", segs, 3, lines, 2, n, "same inputs");
    /* the chart as a JSON string: jansson reads it back as the chart */
    js = vs_svg_memo_json(&m);
    ck_assert_ptr_nonnull(js);
    {
        json_t *back = json_loadb(js->data, js->len, JSON_DECODE_ANY, NULL);
        ck_assert(json_is_string(back));
        ck_assert_str_eq(json_string_value(back), m.svg);
        json_decref(back);
    }
    memo_is(&m, "Memory budget per GPU: u", segs, 3, lines, 2, ++n, "title");
    memo_is(&m, NULL, segs, 3, lines, 2, ++n, "no title");
    memo_is(&m, "", segs, 3, lines, 2, ++n, "empty title, not none");
    kv[0] = 'K';
    memo_is(&m, "", segs, 3, lines, 2, ++n, "a label's text changed in place");
    segs[1].bytes += 1;
    memo_is(&m, "", segs, 3, lines, 2, ++n, "one byte more");
    segs[1].status = "measured";
    memo_is(&m, "", segs, 3, lines, 2, ++n, "status");
    segs[2].known = 1;
    memo_is(&m, "", segs, 3, lines, 2, ++n, "known");
    segs[2].status = NULL;
    memo_is(&m, "", segs, 3, lines, 2, ++n, "no status");
    memo_is(&m, "", segs, 2, lines, 2, ++n, "a segment fewer");
    memo_is(&m, "", segs, 2, lines, 1, ++n, "a line fewer");
    lines[0].bytes = 24564ULL << 20;
    memo_is(&m, "", segs, 2, lines, 1, ++n, "a capacity");
    lines[0].basis = "device-reported";
    memo_is(&m, "", segs, 2, lines, 1, ++n, "a basis");
    lines[0].label = "RTX 4090 D";
    memo_is(&m, "", segs, 2, lines, 1, ++n, "an offer's name");
    memo_is(&m, "", segs, 2, lines, 1, n, "nothing changed");
    /* segments held from index 1: their texts keyed by address, so the same
     * text elsewhere draws again (the same chart), the same address does not */
    {
        char a1[] = "kv_cache", a2[] = "kv_cache";
        vs_svg_segment h[] = {{"weights", 1, 14000000000ULL, "params x bits / 8"},
                              {a1, 1, 6442450944ULL, "estimated"}};
        vs_svg_memo m3 = VS_SVG_MEMO_INIT;
        char *want = vs_svg_budget(NULL, h, 2, lines, 1);
        ck_assert_str_eq(vs_svg_budget_memo(&m3, NULL, h, 2, 1, lines, 1), want);
        ck_assert_str_eq(vs_svg_budget_memo(&m3, NULL, h, 2, 1, lines, 1), want);
        ck_assert_uint_eq(m3.drawn, 1);
        h[1].label = a2;
        ck_assert_str_eq(vs_svg_budget_memo(&m3, NULL, h, 2, 1, lines, 1), want);
        ck_assert_uint_eq(m3.drawn, 2);
        h[1].bytes++; /* a figure is keyed by value, held or not */
        free(want);
        want = vs_svg_budget(NULL, h, 2, lines, 1);
        ck_assert_str_eq(vs_svg_budget_memo(&m3, NULL, h, 2, 1, lines, 1), want);
        ck_assert_uint_eq(m3.drawn, 3);
        /* the same segments, now all keyed by their text: a new key */
        ck_assert_str_eq(vs_svg_budget_memo(&m3, NULL, h, 2, 2, lines, 1), want);
        ck_assert_uint_eq(m3.drawn, 4);
        /* forgotten: drawn again */
        vs_svg_memo_free(&m3);
        ck_assert_str_eq(vs_svg_budget_memo(&m3, NULL, h, 2, 2, lines, 1), want);
        ck_assert_uint_eq(m3.drawn, 5);
        free(want);
        vs_svg_memo_free(&m3);
    }
    /* a change moved into the next field keeps no two keys equal */
    {
        vs_svg_segment a[] = {{"ab", 1, 1, "c"}}, b[] = {{"a", 1, 1, "bc"}};
        vs_svg_memo m2 = VS_SVG_MEMO_INIT;
        memo_is(&m2, NULL, a, 1, NULL, 0, 1, "ab|c");
        memo_is(&m2, NULL, b, 1, NULL, 0, 2, "a|bc");
        vs_svg_memo_free(&m2);
    }
    vs_svg_memo_free(&m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("svg");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, seed_chart);
    tcase_add_test(tc, escape_a_piece);
    tcase_add_test(tc, lines_sit_at_their_capacity);
    tcase_add_test(tc, stack_label_above_a_line_at_its_height);
    tcase_add_test(tc, empty_and_huge);
    tcase_add_test(tc, tick_labels_read_as_printf_g);
    tcase_add_test(tc, long_reserves_are_grouped);
    tcase_add_test(tc, layout_for_every_count);
    tcase_add_test(tc, close_and_equal_lines);
    tcase_add_test(tc, memo_draws_again_on_any_change);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
