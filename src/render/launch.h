/* launch.h — the words of `launch`: each offer's command, or why it has none.
 *
 * Pure: builds a bundle from the launch objects of engine/launch.h.
 */
#ifndef VS_RENDER_LAUNCH_H
#define VS_RENDER_LAUNCH_H

#include <jansson.h>

#include "render/bundle.h"

/* launches: the launch objects (engine/launch.h); refused: [{"offer", "reason"}].
 * Payload kind launch. NULL when memory is short. */
vs_bundle *vs_render_launch(const char *engine, const char *release, const json_t *launches,
                            const json_t *refused);

#endif
