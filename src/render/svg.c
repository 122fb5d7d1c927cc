#include "render/svg.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sheet/units.h"
#include "util/buf.h"

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
    t /= 10;
    do {
        *--p = (char)('0' + t % 10);
        t /= 10;
    } while (t);
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
            char d[32];
            snprintf(d, sizeof d, "%zu", va_arg(ap, size_t));
            vs_buf_puts(b, d);
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

static int larger_first(const void *a, const void *b)
{
    const vs_svg_segment *x = *(const vs_svg_segment *const *)a;
    const vs_svg_segment *y = *(const vs_svg_segment *const *)b;
    return x->bytes < y->bytes ? 1 : x->bytes > y->bytes ? -1 : (x > y) - (x < y);
}

/* Fills d from segs; the segments drawn point into segs. -1 when memory is short. */
static int group_segments(drawn_segments *d, const vs_svg_segment *segs, size_t nsegs,
                          size_t nunknown)
{
    /* slots: the first known segment, `keep` others, the summed rest */
    const size_t keep = CHART_KNOWN_MAX - 2;
    size_t i, k = 0, nknown = nsegs - nunknown, nrest = 0, ties = 0;
    uint64_t threshold = 0, rest = 0;
    const vs_svg_segment *first = NULL;
    int grouping = nknown > CHART_KNOWN_MAX;

    d->n = 0;
    if (grouping) {
        const vs_svg_segment **by_size = malloc(nknown * sizeof *by_size);
        if (!by_size)
            return -1;
        for (i = 0; i < nsegs; i++) {
            if (!segs[i].known)
                continue;
            if (!first)
                first = &segs[i];
            else
                by_size[k++] = &segs[i];
        }
        qsort(by_size, k, sizeof *by_size, larger_first);
        threshold = by_size[keep - 1]->bytes;
        /* of the components as large as the threshold, the earliest are kept */
        for (i = 0; i < keep; i++)
            ties += by_size[i]->bytes == threshold;
        free(by_size);
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

char *vs_svg_budget(const char *title, const vs_svg_segment *all_segs, size_t all_nsegs,
                    const vs_svg_line *lines, size_t nlines)
{
    const double left = 70, right = 450, top = 50, bar_x = 140, bar_w = 150, legend_x = 470;
    vs_buf b = VS_BUF_INIT;
    double known = 0, maxcap = 0, base, stub, top_val, step, axis_max, bottom, width = 780, height;
    double y_cursor, v;
    size_t i, nunknown = 0, ndrawn_unknown = 0, nlegend, nsegs;
    uint64_t known_bytes = 0;
    drawn_segments d;
    const vs_svg_segment *segs;

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
    nlegend = nsegs + nlines;
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
    height = 440;
    if (top + 20 + 18.0 * (double)(nlegend + 3) > height)
        height = top + 20 + 18.0 * (double)(nlegend + 3);
    bottom = height - 50;
#define Y(g) (bottom - (g) / axis_max * (bottom - top))

    svgf(&b,
         "<svg xmlns='http://www.w3.org/2000/svg' width='%f' height='%f' "
         "viewBox='0 0 %f %f' font-family='sans-serif' font-size='12' "
         "role='img'>\n",
         width, height, width, height);
    vs_buf_puts(&b, "<defs><pattern id='vs-hatch' width='8' height='8' "
                    "patternUnits='userSpaceOnUse' patternTransform='rotate(45)'>"
                    "<rect width='8' height='8' fill='#f4f4f4'/>"
                    "<line x1='0' y1='0' x2='0' y2='8' stroke='#888' stroke-width='3'/>"
                    "</pattern></defs>\n");
    vs_buf_puts(&b, "<title>");
    vs_buf_put_html(&b, title ? title : "memory budget per GPU");
    vs_buf_puts(&b, "</title>\n<text x='16' y='24' font-size='15' font-weight='bold'>");
    vs_buf_put_html(&b, title ? title : "memory budget per GPU");
    vs_buf_puts(&b, "</text>\n");

    /* axis and grid, in GiB */
    svgf(&b,
         "<line x1='%f' y1='%f' x2='%f' y2='%f' stroke='#333'/>\n"
         "<line x1='%f' y1='%f' x2='%f' y2='%f' stroke='#333'/>\n",
         left, top, left, bottom, left, bottom, right, bottom);
    for (v = 0; v <= axis_max + step / 1000; v += step) {
        double y = Y(v);
        char tick[32];
        snprintf(tick, sizeof tick, "%g", v);
        svgf(&b,
             "<line x1='%f' y1='%f' x2='%f' y2='%f' stroke='#ddd'/>"
             "<text x='%f' y='%f' text-anchor='end'>%s</text>\n",
             left, y, right, y, left - 6, y + 4, tick);
    }
    svgf(&b,
         "<text x='18' y='%f' transform='rotate(-90 18 %f)' "
         "text-anchor='middle'>memory per GPU, GiB (2^30 bytes)</text>\n",
         (top + bottom) / 2, (top + bottom) / 2);

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
            svgf(&b, " x='%f' y='%f' width='%f' height='%f'><title>", bar_x, y1, bar_w, y0 - y1);
            vs_buf_put_html(&b, segs[i].label ? segs[i].label : "");
            vs_buf_puts(&b, ": ");
            if (segs[i].known)
                put_gib(&b, segs[i].bytes);
            else
                vs_buf_puts(&b, "unknown (not to scale)");
            vs_buf_puts(&b, "</title></rect>\n");
            if (!segs[i].known && y0 - y1 >= 11) {
                svgf(&b,
                     "<text x='%f' y='%f' text-anchor='middle' "
                     "font-size='10'>",
                     bar_x + bar_w / 2, (y0 + y1) / 2 + 4);
                vs_buf_put_html(&b, segs[i].label ? segs[i].label : "");
                vs_buf_puts(&b, ": unknown</text>\n");
            }
            y_cursor += h;
        }
    }
    svgf(&b, "<text x='%f' y='%f' text-anchor='middle' font-weight='bold'>", bar_x + bar_w / 2,
         Y(y_cursor) - 6);
    vs_buf_puts(&b, nunknown ? "known part " : "envelope ");
    put_gib(&b, known_bytes);
    if (nunknown)
        svgf(&b, " + %z unknown", nunknown);
    vs_buf_puts(&b, "</text>\n");

    /* capacity lines */
    for (i = 0; i < nlines; i++) {
        const char *c = line_colors[i % (sizeof line_colors / sizeof line_colors[0])];
        double y = Y((double)lines[i].bytes / GIB);
        svgf(&b,
             "<line x1='%f' y1='%f' x2='%f' y2='%f' stroke='%s' "
             "stroke-width='2' class='capacity'/>\n<text x='%f' y='%f' "
             "text-anchor='end' fill='%s'>",
             left, y, right, y, c, right - 2, y - 4 - 13.0 * (double)(i % 2), c);
        vs_buf_put_html(&b, lines[i].label ? lines[i].label : "");
        vs_buf_puts(&b, ": ");
        put_gib(&b, lines[i].bytes);
        if (lines[i].basis) {
            vs_buf_puts(&b, " (");
            vs_buf_put_html(&b, lines[i].basis);
            vs_buf_puts(&b, ")");
        }
        vs_buf_puts(&b, "</text>\n");
    }

    /* legend: the top of the stack first, then the capacities */
    {
        double ly = top + 10;
        size_t color, k;
        size_t nknown = nsegs - ndrawn_unknown;
        svgf(&b, "<text x='%f' y='%f' font-weight='bold'>components, per GPU</text>\n", legend_x,
             ly);
        ly += 18;
        color = nknown;
        for (k = nsegs; k-- > 0;) {
            if (segs[k].known) {
                color--;
                svgf(&b, "<rect x='%f' y='%f' width='12' height='12' fill='%s'/>", legend_x,
                     ly - 10, seg_colors[color % (sizeof seg_colors / sizeof seg_colors[0])]);
            } else {
                svgf(&b,
                     "<rect x='%f' y='%f' width='12' height='12' "
                     "fill='url(#vs-hatch)' stroke='#555' stroke-dasharray='2 2'/>",
                     legend_x, ly - 10);
            }
            svgf(&b, "<text x='%f' y='%f'>", legend_x + 18, ly);
            vs_buf_put_html(&b, segs[k].label ? segs[k].label : "");
            vs_buf_puts(&b, ": ");
            if (segs[k].known)
                put_gib(&b, segs[k].bytes);
            else
                vs_buf_puts(&b, "unknown, not to scale");
            if (segs[k].known && segs[k].status) {
                vs_buf_puts(&b, " (");
                vs_buf_put_html(&b, segs[k].status);
                vs_buf_puts(&b, ")");
            }
            vs_buf_puts(&b, "</text>\n");
            ly += 18;
        }
        if (nlines) {
            ly += 6;
            svgf(&b, "<text x='%f' y='%f' font-weight='bold'>capacity per GPU</text>\n", legend_x,
                 ly);
            ly += 18;
        }
        for (k = 0; k < nlines; k++) {
            const char *c = line_colors[k % (sizeof line_colors / sizeof line_colors[0])];
            svgf(&b,
                 "<line x1='%f' y1='%f' x2='%f' y2='%f' stroke='%s' "
                 "stroke-width='2'/><text x='%f' y='%f'>",
                 legend_x, ly - 4, legend_x + 12, ly - 4, c, legend_x + 18, ly);
            vs_buf_put_html(&b, lines[k].label ? lines[k].label : "");
            vs_buf_puts(&b, ": ");
            put_gib(&b, lines[k].bytes);
            if (lines[k].basis) {
                vs_buf_puts(&b, " (");
                vs_buf_put_html(&b, lines[k].basis);
                vs_buf_puts(&b, ")");
            }
            vs_buf_puts(&b, "</text>\n");
            ly += 18;
        }
    }
    if (nunknown)
        svgf(&b,
             "<text x='%f' y='%f' font-size='11' fill='#555'>hatched: unknown "
             "components, drawn at a fixed height, not to scale; missing from the "
             "envelope, not zero</text>\n",
             left, height - 14);
    vs_buf_puts(&b, "</svg>\n");
#undef Y
    return vs_buf_take(&b);
}
