/* svg.h — the memory budget chart: stacked components against capacity lines.
 *
 * One stacked bar per GPU envelope: the weights first, then each known
 * component in the sheet's order; unknown components are drawn hatched with a
 * dashed outline and a fixed, labelled height ("unknown": not to scale), never
 * as zero. Each GPU offer is a horizontal line at its capacity, labelled with
 * its basis (device-reported bytes or nominal GB). The axis is in GiB and says
 * so. A long reserve is grouped so the chart stays readable: past 12 known
 * components, the 10 largest are drawn and the others summed in one slice;
 * past 3 unknown ones, one hatched slice stands for all of them (the totals
 * still count each one). Pure string building: no I/O; every text is escaped.
 *
 * Layout: every text is set in one monospaced face at a fixed size, so its
 * box is known here (n characters are n x 0.6 em wide, 0.8 em above the
 * baseline, 0.2 em below). The capacity labels stand in a column right of the
 * plot, spaced 15 units apart at least and tied to their lines by leaders;
 * lines with the same displayed value share one label ("80.00 GiB [2,3]", the
 * numbers of the legend); legend entries wrap. No text leaves the picture or
 * overlaps another (tests/unit/test_svg.c checks 1-16 offers x 1-30 components).
 */
#ifndef VS_RENDER_SVG_H
#define VS_RENDER_SVG_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

typedef struct vs_svg_segment {
    const char *label;  /* "weights", "kv_cache" */
    int known;          /* 0: unknown (drawn hatched, not to scale) */
    uint64_t bytes;     /* per GPU, when known */
    const char *status; /* "estimated", "measured", "unknown", or the weights' basis; may be NULL */
} vs_svg_segment;

typedef struct vs_svg_line {
    const char *label; /* "RTX 4090" */
    uint64_t bytes;    /* capacity per GPU */
    const char *basis; /* "nominal 24 GB", "device-reported" */
} vs_svg_line;

/* A complete <svg> document (malloc'd), or NULL when memory is short. title
 * may be NULL. */
char *vs_svg_budget(const char *title, const vs_svg_segment *segs, size_t nsegs,
                    const vs_svg_line *lines, size_t nlines);

/* The last chart drawn through it and what it was drawn from: `envelope` and
 * `candidates` draw the same chart of the same sheet, often with nothing
 * changed between them, and a long reserve's chart is a tenth of a cell. The
 * key is every input written out (each text with its NUL, each figure's
 * bytes), so an equal key is the same chart whatever changed the sheet or did
 * not: there is no count for a writer to forget. The texts of the segments
 * from held_from on are keyed by their address instead (a long reserve's
 * names, read again for each chart, cost more than the chart): the caller
 * holds them alive and unchanged until it calls vs_svg_memo_free, as the
 * cell's component views are (lang/verb_ctx.c). svg_json is the chart as a
 * JSON string (vs_json_dump_string_lossy), escaped once for every bundle. */
typedef struct vs_svg_memo {
    vs_buf key;
    vs_buf scratch; /* the key asked for */
    char *svg;
    vs_buf svg_json;
    unsigned long drawn; /* how many times it drew (tests) */
} vs_svg_memo;

#define VS_SVG_MEMO_INIT                                                                           \
    {                                                                                              \
        VS_BUF_INIT, VS_BUF_INIT, NULL, VS_BUF_INIT, 0                                             \
    }

/* vs_svg_budget through m: the chart kept in m when its inputs are the same
 * (the texts of segs[held_from..] at the same addresses), else drawn and
 * kept. Borrowed (valid until the next call on m or vs_svg_memo_free); NULL
 * when memory is short. */
const char *vs_svg_budget_memo(vs_svg_memo *m, const char *title, const vs_svg_segment *segs,
                               size_t nsegs, size_t held_from, const vs_svg_line *lines,
                               size_t nlines);
/* The chart vs_svg_budget_memo returned last, as a JSON string (quotes
 * included); NULL when memory is short or none was drawn. */
const vs_buf *vs_svg_memo_json(vs_svg_memo *m);
/* Forgets the chart and its key (the memo is reusable after). */
void vs_svg_memo_free(vs_svg_memo *m);

#endif
