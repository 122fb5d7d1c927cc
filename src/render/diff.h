/* diff.h — the difference between two versions of a sheet, shown.
 *
 * The changes come from vs_diff_changes() (sheet/diff.h, which also documents the
 * payload); this writes the table and wraps it in a bundle.
 */
#ifndef VS_RENDER_DIFF_H
#define VS_RENDER_DIFF_H

#include <jansson.h>

#include "render/bundle.h"

/* The bundle showing the changes; from_label and to_label name the two versions
 * ("llama@3f2a1c0", "this session"). The keys of extra_take (an object, taken,
 * may be NULL) are added to the payload; a string "warning" among them is also
 * printed, after the table. Returns a new bundle or NULL. */
vs_bundle *vs_diff_bundle(const json_t *a, const json_t *b, const char *from_label,
                          const char *to_label, json_t *extra_take);

#endif
