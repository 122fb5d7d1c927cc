/* estimate runtime: the runtime items of the card's engine (vLLM's profiling-pass
 * peak, non-torch memory by GPU generation). The rules and their stated errors
 * are engine/engine_runtime.c's; the verb that reads the sheet is lang/verbs_engine.c. */
#include "sheet/estimate.h"

const char *const vs_estimate_runtime_keys[] = {"items", NULL};

const vs_estimator_info vs_estimator_runtime = {
    "runtime", vs_estimate_runtime_keys, "estimate runtime [items=activation_peak,non_torch]",
    "the engine's runtime items: vLLM's profiling peak and non-torch memory, with their stated "
    "errors"};
