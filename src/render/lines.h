/* lines.h — a result that is a headline and a list of lines.
 *
 * What the procedure verbs (stage, invalidate, oom, decide), `placement` and
 * `reserve remove` print: the headline, then each line, in text and as an
 * HTML list, with the payload the verb built (it names its own kind). Pure:
 * no I/O.
 */
#ifndef VS_RENDER_LINES_H
#define VS_RENDER_LINES_H

#include <jansson.h>
#include <stddef.h>

#include "render/bundle.h"

/* headline (may be NULL), nlines lines (NULL entries print empty) as
 * "  - line" in text and an HTML list, and payload_take (taken; must have
 * "kind"). New bundle or NULL. */
vs_bundle *vs_render_lines(const char *headline, const char *const *lines, size_t nlines,
                           json_t *payload_take);

#endif
