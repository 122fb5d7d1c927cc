/* report.h — one page on a recorded sheet, for a pull request comment (Markdown)
 * or a static page (HTML): the decision, the verdict per offer with its margin,
 * the components per GPU, what changed since an earlier revision with byte
 * deltas, and what would invalidate the decision.
 *
 * The page is composed from the results the kernel itself shows (the
 * `candidates`, `envelope` and `diff` bundles), so a report never says something
 * the notebook would not. The HTML is self-contained: inline SVG and CSS, no
 * script, no external resource. Pure: no I/O.
 */
#ifndef VS_RENDER_REPORT_H
#define VS_RENDER_REPORT_H

#include <jansson.h>

#include "render/bundle.h"
#include "util/buf.h"

typedef enum vs_report_format { VS_REPORT_MD, VS_REPORT_HTML } vs_report_format;

typedef struct vs_report_parts {
    const json_t *sheet; /* the sheet at the revision reported */
    const char *sheet_id;
    const char *commit;          /* full 40-hex id of that revision */
    const char *records;         /* the records repository's path */
    const vs_bundle *candidates; /* the `candidates` result for that sheet */
    const vs_bundle *envelope;   /* the `envelope` result */
    const vs_bundle *diff;       /* the `diff` result since, or NULL */
    const char *since; /* what the diff starts from ("sheet@~2, commit 3f2a..."), or NULL */
} vs_report_parts;

/* Appends the page to out (check vs_buf_failed). */
void vs_report_page(vs_buf *out, const vs_report_parts *p, vs_report_format format);

#endif
