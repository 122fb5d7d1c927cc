#include "render/svg.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sheet/units.h"
#include "util/buf.h"
#include "util/word.h"

static const char *const seg_colors[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
                                         "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
static const char *const line_colors[] = {"#d62728", "#2ca02c", "#9467bd",
                                          "#8c564b", "#e377c2", "#17becf"};

#define GIB 1073741824.0

/* Appends v with one decimal (a coordinate) by integer arithmetic, straight
 * into the buffer: charts are rendered on every `envelope` and `candidates`,
 * with a few numbers per component, and printf's float path dominated them. */
static void put_num(vs_buf *b, double v)
{
    char tmp[32], *p = tmp + sizeof tmp;
    unsigned long long t;
    int neg = v < 0;
    if (neg)
        v = -v;
    if (!(v < 1e15)) /* also NaN */
        v = 1e15;
    t = (unsigned long long)(v * 10 + 0.5);
    *--p = (char)('0' + t % 10);
    *--p = '.';
    p = vs_word_u64_digits(t / 10, p); /* two digits a division */
    if (neg)
        *--p = '-';
    vs_buf_append(b, p, (size_t)(tmp + sizeof tmp - p));
}

/* A small formatter for the chart: %f a coordinate (one decimal), %s a string
 * as is, %e a string escaped for XML, %z a size_t, %% a percent sign. The
 * literal text between directives is copied whole. */
static void svgf(vs_buf *b, const char *fmt, ...)
{
    va_list ap;
    const char *p = fmt, *pct;
    va_start(ap, fmt);
    while ((pct = strchr(p, '%')) != NULL) {
        vs_buf_append(b, p, (size_t)(pct - p));
        p = pct + 2;
        switch (pct[1]) {
        case 'f':
            put_num(b, va_arg(ap, double));
            break;
        case 's':
            vs_buf_puts(b, va_arg(ap, const char *));
            break;
        case 'e':
            vs_buf_put_html(b, va_arg(ap, const char *));
            break;
        case 'z': {
            char d[24], *q = vs_word_u64_digits(va_arg(ap, size_t), d + sizeof d);
            vs_buf_append(b, q, (size_t)(d + sizeof d - q));
            break;
        }
        case '%':
            vs_buf_putc(b, '%');
            break;
        default:
            /* not a directive: keep it as text */
            vs_buf_putc(b, '%');
            p = pct + 1;
            break;
        }
    }
    vs_buf_puts(b, p);
    va_end(ap);
}

static double nice_step(double top)
{
    static const double steps[] = {0.25, 0.5, 1, 2, 4, 5, 8, 10, 16, 20, 25, 40, 50, 64, 80, 100};
    double scale = 1;
    size_t i;
    while (scale < 1e30) {
        for (i = 0; i < sizeof steps / sizeof steps[0]; i++)
            if (top / (steps[i] * scale) <= 8)
                return steps[i] * scale;
        scale *= 10;
    }
    return top > 0 ? top : 1;
}

/* A tick's value as printf's %g writes it. Ticks are multiples of
 * nice_step(), so most are whole numbers or quarters, and below 10^4 %g writes
 * those as their digits (at most six significant ones): written here; any
 * other value goes to snprintf, which each chart called a dozen times. */
static void tick_text(char *out, size_t n, double v)
{
    static const char *const quarter[] = {"", ".25", ".5", ".75"};
    double q = v * 4;
    if (n >= 12 && v >= 0 && v < 1e4 && q == (double)(unsigned long)q) {
        unsigned long t = (unsigned long)q, whole = t / 4;
        char d[8], *p = d + sizeof d;
        do {
            *--p = (char)('0' + whole % 10);
            whole /= 10;
        } while (whole);
        memcpy(out, p, (size_t)(d + sizeof d - p));
        strcpy(out + (d + sizeof d - p), quarter[t % 4]);
        return;
    }
    snprintf(out, n, "%g", v);
}

static void put_gib(vs_buf *b, uint64_t bytes)
{
    char r[64];
    vs_units_round(r, sizeof r, bytes, VS_UNIT_GIB, 2);
    vs_buf_puts(b, r);
    vs_buf_puts(b, " GiB");
}

/* What the chart draws of a long reserve. Past a dozen slices a stack is
 * unreadable (a 185-component sheet drew 185 slivers and as many legend rows)
 * and the unknown ones, each at a fixed height, outgrew the known part. The
 * chart keeps the first segment (the weights), the largest known components
 * in the sheet's order, one slice for the other known ones summed, and one
 * hatched slice for the unknown ones when there are more than a few. The
 * envelope's table beside it lists every component. */
#define CHART_KNOWN_MAX 12
#define CHART_UNKNOWN_MAX 3

typedef struct {
    vs_svg_segment segs[CHART_KNOWN_MAX + CHART_UNKNOWN_MAX + 1];
    size_t n;
    char rest_label[48], unknown_label[48];
} drawn_segments;

/* Fills d from segs; the segments drawn point into segs. Returns 0. */
static int group_segments(drawn_segments *d, const vs_svg_segment *segs, size_t nsegs,
                          size_t nunknown)
{
    /* slots: the first known segment, `keep` others, the summed rest */
    const size_t keep = CHART_KNOWN_MAX - 2;
    size_t i, nknown = nsegs - nunknown, nrest = 0, ties = 0;
    uint64_t threshold = 0, rest = 0;
    const vs_svg_segment *first = NULL;
    int grouping = nknown > CHART_KNOWN_MAX;

    d->n = 0;
    if (grouping) {
        /* The keep largest amounts of the known segments after the first
         * (counted with repeats), largest first: the last is the threshold.
         * An insertion into ten slots per segment, not a sort of them all. */
        uint64_t top[CHART_KNOWN_MAX - 2] = {0}; /* all written before read (grouping) */
        size_t ntop = 0, larger = 0;
        for (i = 0; i < nsegs; i++) {
            size_t j;
            if (!segs[i].known)
                continue;
            if (!first) {
                first = &segs[i];
                continue;
            }
            if (ntop == keep && segs[i].bytes <= top[keep - 1])
                continue;
            j = ntop < keep ? ntop++ : keep - 1;
            for (; j > 0 && top[j - 1] < segs[i].bytes; j--)
                top[j] = top[j - 1];
            top[j] = segs[i].bytes;
        }
        threshold = top[keep - 1];
        /* the kept ones are those above the threshold and, of those as large
         * as it, the earliest, as many as the slots left */
        for (i = 0; i < nsegs; i++)
            larger += segs[i].known && &segs[i] != first && segs[i].bytes > threshold;
        ties = keep - larger;
    }
    for (i = 0; i < nsegs; i++) {
        const vs_svg_segment *s = &segs[i];
        if (!s->known) {
            if (nunknown <= CHART_UNKNOWN_MAX)
                d->segs[d->n++] = *s;
        } else if (!grouping || s == first || s->bytes > threshold ||
                   (s->bytes == threshold && ties && ties--)) {
            d->segs[d->n++] = *s;
        } else {
            rest += s->bytes;
            nrest++;
        }
    }
    if (nrest) {
        snprintf(d->rest_label, sizeof d->rest_label, "%zu smaller components", nrest);
        d->segs[d->n++] = (vs_svg_segment){d->rest_label, 1, rest, "summed"};
    }
    if (nunknown > CHART_UNKNOWN_MAX) {
        snprintf(d->unknown_label, sizeof d->unknown_label, "%zu unknown components", nunknown);
        d->segs[d->n++] = (vs_svg_segment){d->unknown_label, 0, 0, NULL};
    }
    return 0;
}

/* ------------------------------------------------------------------ text
 * Every text of the chart is set in one monospaced face at a fixed size, so
 * its box is known before a browser draws it: a line of n characters at
 * font-size s is n x 0.6 s wide (DejaVu Sans Mono's advance is 1233/2048 em,
 * Liberation Mono's and Courier's 1229/2048) and spans s x 0.8 above the
 * baseline and s x 0.2 below it. The layout below places every text from
 * those boxes; tests/unit/test_svg.c recomputes them from the SVG alone. */
#define FONT_PX 12.0
#define ADVANCE 0.6 /* em per character */
#define CH(px) ((px)*ADVANCE)

/* Code points of s (UTF-8), the unit of the advance. */
static size_t cps(const char *s, size_t len)
{
    size_t i, n = 0;
    for (i = 0; i < len; i++)
        n += ((unsigned char)s[i] & 0xC0) != 0x80;
    return n;
}

/* The byte length of the first max code points of s[0..len). */
static size_t cp_prefix(const char *s, size_t len, size_t max)
{
    size_t i, n = 0;
    for (i = 0; i < len; i++) {
        if (((unsigned char)s[i] & 0xC0) != 0x80) {
            if (n == max)
                return i;
            n++;
        }
    }
    return len;
}

static void put_escaped_n(vs_buf *b, const char *s, size_t len)
{
    vs_buf_put_htmln(b, s, len);
}

/* One <text> of s, cut to max code points with an ellipsis. attrs is put
 * as is after x and y ("" for none). */
static void put_text(vs_buf *b, double x, double y, const char *attrs, const char *s, size_t max)
{
    size_t len = strlen(s);
    svgf(b, "<text x='%f' y='%f'%s>", x, y, attrs);
    if (max && cps(s, len) > max) {
        put_escaped_n(b, s, cp_prefix(s, len, max - 1));
        vs_buf_puts(b, "\xe2\x80\xa6"); /* … */
    } else {
        vs_buf_put_html(b, s);
    }
    vs_buf_puts(b, "</text>\n");
}

/* s as lines of at most max code points, broken after spaces (a word longer
 * than a line is cut), one <text> each, from baseline *y down by lh; the
 * lines after the first start at x + indent. Returns the number of lines. */
/* Where the line of s[0..len) that starts at pos ends, room code points at
 * most: before the last " (" in the line's second half, a basis or a status
 * kept whole; else after its last space, if any. */
static size_t wrap_cut(const char *s, size_t len, size_t pos, size_t room)
{
    size_t end = pos + cp_prefix(s + pos, len - pos, room), cut = end;
    if (end < len) {
        size_t k = end, half = pos + (end - pos) / 2;
        while (k > half && !(s[k] == ' ' && s[k + 1] == '('))
            k--;
        if (k <= half) {
            k = end;
            while (k > pos && s[k] != ' ')
                k--;
        }
        if (k > pos)
            cut = k;
    }
    return cut;
}

/* The lines put_wrapped writes of s with no indent, counted without writing
 * them: the legend's dry run, which only needs its height. */
static size_t wrapped_lines(const char *s, size_t max)
{
    size_t len = strlen(s), pos = 0, lines = 0;
    while (pos < len) {
        pos = wrap_cut(s, len, pos, max);
        lines++;
        while (pos < len && s[pos] == ' ')
            pos++;
    }
    return lines;
}

static size_t put_wrapped(vs_buf *b, double x, double indent, double *y, double lh, const char *s,
                          size_t max)
{
    size_t len = strlen(s), pos = 0, lines = 0;
    while (pos < len) {
        size_t room = lines ? max - (size_t)(indent / CH(FONT_PX) + 0.5) : max;
        size_t cut = wrap_cut(s, len, pos, room);
        svgf(b, "<text x='%f' y='%f'>", lines ? x + indent : x, *y);
        put_escaped_n(b, s + pos, cut - pos);
        vs_buf_puts(b, "</text>\n");
        lines++;
        *y += lh;
        pos = cut;
        while (pos < len && s[pos] == ' ')
            pos++;
    }
    return lines;
}

/* ------------------------------------------------------------------ chart */

/* Geometry, in user units (the viewBox is W x height). */
#define W 900.0
#define PLOT_LEFT 76.0   /* the y axis; tick labels end 6 to its left */
#define PLOT_RIGHT 420.0 /* capacity lines end here */
#define PLOT_TOP 50.0
#define BAR_X 96.0
#define BAR_W 150.0
#define LABEL_X 428.0 /* capacity labels: a column right of the plot */
#define LABEL_MAX 20  /* characters */
#define LEGEND_X 580.0
#define LEGEND_MAX 40  /* characters after the swatch: (W - 8 - LEGEND_X - 18) / 7.2 */
#define LINE_H 16.0    /* legend line pitch */
#define LABEL_GAP 15.0 /* least pitch of capacity labels */
#define TITLE_PX 15.0

/* Capacity lines with the same displayed value share one label. */
typedef struct cap_label {
    double want, y; /* baselines: where the line is, where the label goes */
    double line_y;
    size_t first; /* index of its first line */
    char text[400];
} cap_label;

static int by_want(const void *a, const void *b)
{
    const cap_label *x = a, *y = b;
    return x->want < y->want ? -1 : x->want > y->want;
}

/* "80.00 GiB [2,3]"; past LABEL_MAX, "80.00 GiB [7 offers]". */
static void label_text(cap_label *l, const vs_svg_line *lines, size_t nlines, const char *value)
{
    char list[256];
    size_t k, off = 0, n = 0;
    list[0] = '\0';
    for (k = 0; k < nlines; k++) {
        char r[64];
        vs_units_round(r, sizeof r, lines[k].bytes, VS_UNIT_GIB, 2);
        if (strcmp(r, value))
            continue;
        n++;
        if (off < sizeof list - 8)
            off +=
                (size_t)snprintf(list + off, sizeof list - off, "%s%zu", n > 1 ? "," : "", k + 1);
    }
    snprintf(l->text, sizeof l->text, "%s GiB [%s]", value, list);
    if (strlen(l->text) > LABEL_MAX && n > 1)
        snprintf(l->text, sizeof l->text, "%s GiB [%zu offers]", value, n);
}

/* The legend's entry of a segment ("kv_cache: 4.00 GiB (estimated)") and of
 * a capacity line ("[1] RTX 4090: 23.99 GiB (nominal 24 GB)") into s, which
 * they empty first: each is written twice a chart (the dry run that sizes the
 * legend, then the drawing), so piece by piece rather than through printf. */
static void seg_legend(vs_buf *s, const vs_svg_segment *g)
{
    vs_buf_reset(s);
    vs_buf_puts(s, g->label ? g->label : "");
    vs_buf_puts(s, ": ");
    if (g->known)
        put_gib(s, g->bytes);
    else
        vs_buf_puts(s, "unknown, not to scale");
    if (g->known && g->status) {
        vs_buf_puts(s, " (");
        vs_buf_puts(s, g->status);
        vs_buf_putc(s, ')');
    }
}

static void line_legend(vs_buf *s, size_t k, const vs_svg_line *l)
{
    vs_buf_reset(s);
    svgf(s, "[%z] ", k + 1);
    vs_buf_puts(s, l->label ? l->label : "");
    vs_buf_puts(s, ": ");
    put_gib(s, l->bytes);
    if (l->basis) {
        vs_buf_puts(s, " (");
        vs_buf_puts(s, l->basis);
        vs_buf_putc(s, ')');
    }
}

char *vs_svg_budget(const char *title, const vs_svg_segment *all_segs, size_t all_nsegs,
                    const vs_svg_line *lines, size_t nlines)
{
    vs_buf b = VS_BUF_INIT, s = VS_BUF_INIT;
    double known = 0, maxcap = 0, base, stub, top_val, step, axis_max, bottom, height;
    double y_cursor, v, legend_h = 0;
    size_t i, nunknown = 0, ndrawn_unknown = 0, nsegs, nlabels = 0;
    uint64_t known_bytes = 0;
    drawn_segments d;
    const vs_svg_segment *segs;
    cap_label *labels = NULL;
    const char *ttl = title ? title : "memory budget per GPU";

    for (i = 0; i < all_nsegs; i++) {
        if (all_segs[i].known) {
            known += (double)all_segs[i].bytes / GIB;
            known_bytes += all_segs[i].bytes;
        } else {
            nunknown++;
        }
    }
    if (group_segments(&d, all_segs, all_nsegs, nunknown) < 0)
        return NULL;
    segs = d.segs;
    nsegs = d.n;
    for (i = 0; i < nsegs; i++)
        ndrawn_unknown += !segs[i].known;
    for (i = 0; i < nlines; i++)
        if ((double)lines[i].bytes / GIB > maxcap)
            maxcap = (double)lines[i].bytes / GIB;
    base = known > maxcap ? known : maxcap;
    if (base < 1)
        base = 1;
    stub = base * 0.06; /* drawing height of one unknown slice: not to scale */
    top_val = known + (double)ndrawn_unknown * stub;
    if (maxcap > top_val)
        top_val = maxcap;
    top_val *= 1.1;
    step = nice_step(top_val);
    axis_max = step;
    while (axis_max < top_val)
        axis_max += step;

    /* The legend's entries, wrapped, decide the height: a dry run counts
     * their lines. */
    {
        double ly = 0;
        size_t n;
        for (i = 0; i < nsegs; i++) {
            seg_legend(&s, &segs[i]);
            for (n = wrapped_lines(vs_buf_str(&s), LEGEND_MAX); n > 0; n--)
                ly += LINE_H;
            ly += 2;
        }
        for (i = 0; i < nlines; i++) {
            line_legend(&s, i, &lines[i]);
            for (n = wrapped_lines(vs_buf_str(&s), LEGEND_MAX); n > 0; n--)
                ly += LINE_H;
            ly += 2;
        }
        legend_h = ly + 18 + (nlines ? 24 + 18 : 0);
    }
    height = 440;
    if (PLOT_TOP + 10 + legend_h + 44 > height)
        height = PLOT_TOP + 10 + legend_h + 44;
    if (PLOT_TOP + 20 + LABEL_GAP * (double)nlines + 50 > height)
        height = PLOT_TOP + 20 + LABEL_GAP * (double)nlines + 50;
    bottom = height - 50;
#define Y(g) (bottom - (g) / axis_max * (bottom - PLOT_TOP))

    svgf(&b,
         "<svg xmlns='http://www.w3.org/2000/svg' width='%f' height='%f' "
         "viewBox='0 0 %f %f' font-family=\"'DejaVu Sans Mono', 'Liberation Mono', "
         "monospace\" font-size='12' role='img'>\n",
         W, height, W, height);
    vs_buf_puts(&b, "<defs><pattern id='vs-hatch' width='8' height='8' "
                    "patternUnits='userSpaceOnUse' patternTransform='rotate(45)'>"
                    "<rect width='8' height='8' fill='#f4f4f4'/>"
                    "<line x1='0' y1='0' x2='0' y2='8' stroke='#888' stroke-width='3'/>"
                    "</pattern></defs>\n");
    vs_buf_puts(&b, "<title>");
    vs_buf_put_html(&b, ttl);
    vs_buf_puts(&b, "</title>\n");
    put_text(&b, 16, 24, " font-size='15' font-weight='bold'", ttl,
             (size_t)((W - 32) / CH(TITLE_PX)));

    /* axis and grid, in GiB */
    svgf(&b,
         "<line x1='%f' y1='%f' x2='%f' y2='%f' stroke='#333'/>\n"
         "<line x1='%f' y1='%f' x2='%f' y2='%f' stroke='#333'/>\n",
         PLOT_LEFT, PLOT_TOP, PLOT_LEFT, bottom, PLOT_LEFT, bottom, PLOT_RIGHT, bottom);
    for (v = 0; v <= axis_max + step / 1000; v += step) {
        double y = Y(v);
        char tick[32];
        tick_text(tick, sizeof tick, v);
        svgf(&b, "<line x1='%f' y1='%f' x2='%f' y2='%f' stroke='#ddd'/>", PLOT_LEFT, y, PLOT_RIGHT,
             y);
        put_text(&b, PLOT_LEFT - 6, y + 4, " text-anchor='end'", tick, 7);
    }
    svgf(&b,
         "<text x='14' y='%f' transform='rotate(-90 14 %f)' "
         "text-anchor='middle'>memory per GPU, GiB (2^30 bytes)</text>\n",
         (PLOT_TOP + bottom) / 2, (PLOT_TOP + bottom) / 2);

    /* the stack, weights first */
    y_cursor = 0;
    {
        size_t color = 0;
        for (i = 0; i < nsegs; i++) {
            double h = segs[i].known ? (double)segs[i].bytes / GIB : stub;
            double y1 = Y(y_cursor + h), y0 = Y(y_cursor);
            vs_buf_puts(&b, "<rect ");
            if (segs[i].known)
                svgf(&b, "fill='%s' stroke='#fff'",
                     seg_colors[color++ % (sizeof seg_colors / sizeof seg_colors[0])]);
            else
                vs_buf_puts(&b, "fill='url(#vs-hatch)' stroke='#555' stroke-dasharray='4 3' "
                                "class='unknown'");
            svgf(&b, " x='%f' y='%f' width='%f' height='%f'><title>", BAR_X, y1, BAR_W, y0 - y1);
            vs_buf_put_html(&b, segs[i].label ? segs[i].label : "");
            vs_buf_puts(&b, ": ");
            if (segs[i].known)
                put_gib(&b, segs[i].bytes);
            else
                vs_buf_puts(&b, "unknown (not to scale)");
            vs_buf_puts(&b, "</title></rect>\n");
            if (!segs[i].known && y0 - y1 >= 11) {
                vs_buf_reset(&s);
                vs_buf_printf(&s, "%s: unknown", segs[i].label ? segs[i].label : "");
                put_text(&b, BAR_X + BAR_W / 2, (y0 + y1) / 2 + 4,
                         " text-anchor='middle' font-size='10'", vs_buf_str(&s),
                         (size_t)((BAR_W - 6) / CH(10.0)));
            }
            y_cursor += h;
        }
    }
    vs_buf_reset(&s);
    vs_buf_puts(&s, nunknown ? "known part " : "envelope ");
    put_gib(&s, known_bytes);
    if (nunknown)
        vs_buf_printf(&s, " + %zu unknown", nunknown);
    /* the stack's label is drawn after the capacity lines (below), so that a
     * line at the same height passes behind it, not through it */

    /* capacity lines, then their labels in a column right of the plot: one
     * label per displayed value, spaced LABEL_GAP apart at least, each tied
     * to its line by a leader */
    if (nlines && !(labels = calloc(nlines, sizeof *labels)))
        b.failed = 1;
    for (i = 0; labels && i < nlines; i++) {
        const char *c = line_colors[i % (sizeof line_colors / sizeof line_colors[0])];
        double y = Y((double)lines[i].bytes / GIB);
        char r[64];
        size_t k;
        svgf(&b,
             "<line x1='%f' y1='%f' x2='%f' y2='%f' stroke='%s' "
             "stroke-width='2' class='capacity'><title>",
             PLOT_LEFT, y, PLOT_RIGHT, y, c);
        vs_buf_put_html(&b, lines[i].label ? lines[i].label : "");
        vs_buf_puts(&b, ": ");
        put_gib(&b, lines[i].bytes);
        vs_buf_puts(&b, "</title></line>\n");
        vs_units_round(r, sizeof r, lines[i].bytes, VS_UNIT_GIB, 2);
        for (k = 0; k < i; k++) {
            char q[64];
            vs_units_round(q, sizeof q, lines[k].bytes, VS_UNIT_GIB, 2);
            if (!strcmp(q, r))
                break;
        }
        if (k < i)
            continue; /* labelled with an earlier line */
        labels[nlabels].line_y = y;
        labels[nlabels].want = y + 4;
        labels[nlabels].first = i;
        label_text(&labels[nlabels], lines, nlines, r);
        nlabels++;
    }
    if (labels) {
        const double lo = PLOT_TOP + 10, hi = bottom + 4;
        qsort(labels, nlabels, sizeof *labels, by_want);
        for (i = 0; i < nlabels; i++) {
            double y = labels[i].want < lo ? lo : labels[i].want;
            if (i && y < labels[i - 1].y + LABEL_GAP)
                y = labels[i - 1].y + LABEL_GAP;
            labels[i].y = y;
        }
        for (i = nlabels; i-- > 0;) {
            if (labels[i].y > hi)
                labels[i].y = hi;
            if (i + 1 < nlabels && labels[i].y > labels[i + 1].y - LABEL_GAP)
                labels[i].y = labels[i + 1].y - LABEL_GAP;
        }
        for (i = 0; i < nlabels; i++) {
            const char *c =
                line_colors[labels[i].first % (sizeof line_colors / sizeof line_colors[0])];
            char attrs[48];
            svgf(&b,
                 "<polyline points='%f,%f %f,%f %f,%f' fill='none' stroke='%s' "
                 "stroke-width='1'/>\n",
                 PLOT_RIGHT, labels[i].line_y, PLOT_RIGHT + 4, labels[i].line_y, LABEL_X - 3,
                 labels[i].y - 4, c);
            snprintf(attrs, sizeof attrs, " fill='%s'", c);
            put_text(&b, LABEL_X, labels[i].y, attrs, labels[i].text, LABEL_MAX);
        }
    }
    free(labels);
    /* the stack's label, on a white halo: a capacity line close to the top of
     * the stack (80 GB over a 52.85 GiB known part) runs behind the words */
    put_text(&b, BAR_X, Y(y_cursor) - 6,
             " font-weight='bold' paint-order='stroke' stroke='#fff' stroke-width='4' "
             "stroke-linejoin='round'",
             vs_buf_str(&s), (size_t)((PLOT_RIGHT - BAR_X) / CH(FONT_PX)));

    /* legend: the top of the stack first, then the capacities, each entry
     * wrapped to the legend's width */
    {
        double ly = PLOT_TOP + 10;
        size_t color, k;
        size_t nknown = nsegs - ndrawn_unknown;
        put_text(&b, LEGEND_X, ly, " font-weight='bold'", "components, per GPU", 0);
        ly += 18;
        color = nknown;
        for (k = nsegs; k-- > 0;) {
            if (segs[k].known) {
                color--;
                svgf(&b, "<rect x='%f' y='%f' width='12' height='12' fill='%s'/>", LEGEND_X,
                     ly - 10, seg_colors[color % (sizeof seg_colors / sizeof seg_colors[0])]);
            } else {
                svgf(&b,
                     "<rect x='%f' y='%f' width='12' height='12' "
                     "fill='url(#vs-hatch)' stroke='#555' stroke-dasharray='2 2'/>",
                     LEGEND_X, ly - 10);
            }
            seg_legend(&s, &segs[k]);
            put_wrapped(&b, LEGEND_X + 18, CH(FONT_PX) * 2, &ly, LINE_H, vs_buf_str(&s),
                        LEGEND_MAX);
            ly += 2;
        }
        if (nlines) {
            ly += 6;
            put_text(&b, LEGEND_X, ly, " font-weight='bold'", "capacity per GPU", 0);
            ly += 18;
        }
        for (k = 0; k < nlines; k++) {
            const char *c = line_colors[k % (sizeof line_colors / sizeof line_colors[0])];
            svgf(&b,
                 "<line x1='%f' y1='%f' x2='%f' y2='%f' stroke='%s' "
                 "stroke-width='2'/>",
                 LEGEND_X, ly - 4, LEGEND_X + 12, ly - 4, c);
            line_legend(&s, k, &lines[k]);
            put_wrapped(&b, LEGEND_X + 18, CH(FONT_PX) * 2, &ly, LINE_H, vs_buf_str(&s),
                        LEGEND_MAX);
            ly += 2;
        }
    }
    if (nunknown)
        put_text(&b, PLOT_LEFT, height - 14, " font-size='11' fill='#555'",
                 "hatched: unknown components, drawn at a fixed height, not to scale; "
                 "missing from the envelope, not zero",
                 0);
    vs_buf_puts(&b, "</svg>\n");
#undef Y
    vs_buf_free(&s);
    if (vs_buf_failed(&b)) {
        vs_buf_free(&b);
        return NULL;
    }
    return vs_buf_take(&b);
}
