/* bundle_internal.h — what render/bundle.c's vs_bundle_new_table needs of
 * the tables render/bundle_table.c keeps. Private to render/bundle*.c.
 */
#ifndef VS_RENDER_BUNDLE_INTERNAL_H
#define VS_RENDER_BUNDLE_INTERNAL_H

#include <stddef.h>

#include "render/bundle.h"
#include "util/buf.h"

/* Appends t's text form (vs_table_text) or its HTML (vs_table_html) to out,
 * escaped for the inside of a JSON string when json. */
void vs_bundle_table_text(const vs_table *t, vs_buf *out, int json);
void vs_bundle_table_html(const vs_table *t, vs_buf *out, int json);
/* About how many bytes the two forms of t take, escapes aside: room to
 * reserve before writing them. */
size_t vs_bundle_table_room(const vs_table *t);

#endif
