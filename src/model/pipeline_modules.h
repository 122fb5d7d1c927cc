/* pipeline_modules.h — a pipeline component's modules, each with the bytes of
 * its own tensors: what sequential CPU offload puts on the GPU at once.
 *
 * diffusers' enable_sequential_cpu_offload calls accelerate's cpu_offload on
 * each component (diffusers 0.22.0 src/diffusers/pipelines/pipeline_utils.py;
 * the same in 0.21.4 and 0.23.1), which attaches an AlignDevicesHook to every
 * module that has direct tensors (accelerate 0.23.0 src/accelerate/hooks.py,
 * attach_align_device_hook and AlignDevicesHook; the same in 0.24.1). Its
 * pre_forward moves that module's own tensors only (named_module_tensors with
 * recurse=False) to the GPU and post_forward puts them back on the meta
 * device, so while a module runs the GPU holds its own weights and no other
 * module's; with offload_buffers False the buffers stay on the GPU throughout.
 * A module's own tensors are the tensors whose name, less its last part
 * (.weight, .bias, ...), is the module's path: up_blocks.0.resnets.0.conv1
 * for up_blocks.0.resnets.0.conv1.weight. A name without a dot is the
 * component's top module's (path "").
 */
#ifndef VS_MODEL_PIPELINE_MODULES_H
#define VS_MODEL_PIPELINE_MODULES_H

#include <stddef.h>
#include <stdint.h>

#define VS_PIPELINE_MODULE_NAME_MAX 200

typedef struct vs_pipeline_module {
    char name[VS_PIPELINE_MODULE_NAME_MAX];
    uint64_t bytes;
} vs_pipeline_module;

/* Zero-initialised is empty; vs_pipeline_modules_free releases it. */
typedef struct vs_pipeline_modules {
    vs_pipeline_module *m;
    size_t n, cap;
} vs_pipeline_modules;

/* The module of a tensor name, written into out (n bytes): the name less its
 * last dotted part, "" for a name without a dot. */
void vs_pipeline_modules_of(char *out, size_t n, const char *tensor);

/* Adds a tensor's bytes to its module's (tensors of one module may come in
 * any order and from several files). 0 or VS_ENOMEM (the set unchanged). */
int vs_pipeline_modules_add(vs_pipeline_modules *t, const char *tensor, uint64_t bytes);

/* The largest module's own bytes (0 when empty); *name (may be NULL) its path,
 * the first of equals in the order they were added. */
uint64_t vs_pipeline_modules_largest(const vs_pipeline_modules *t, const char **name);

void vs_pipeline_modules_free(vs_pipeline_modules *t);

#endif
