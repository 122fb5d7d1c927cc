/* pipeline_modules.c — a component's modules and their own tensors' bytes
 * (see pipeline_modules.h). */
#include "model/pipeline_modules.h"

#include <stdlib.h>
#include <string.h>

#include "util/error.h"

void vs_pipeline_modules_of(char *out, size_t n, const char *tensor)
{
    const char *dot = strrchr(tensor, '.');
    size_t len = dot ? (size_t)(dot - tensor) : 0;
    if (!n)
        return;
    if (len >= n)
        len = n - 1;
    memcpy(out, tensor, len);
    out[len] = '\0';
}

int vs_pipeline_modules_add(vs_pipeline_modules *t, const char *tensor, uint64_t bytes)
{
    char name[VS_PIPELINE_MODULE_NAME_MAX];
    size_t k;
    vs_pipeline_modules_of(name, sizeof name, tensor);
    /* a module's tensors are mostly stored together: the last one first */
    if (t->n && !strcmp(t->m[t->n - 1].name, name)) {
        t->m[t->n - 1].bytes += bytes;
        return 0;
    }
    for (k = 0; k < t->n; k++)
        if (!strcmp(t->m[k].name, name)) {
            t->m[k].bytes += bytes;
            return 0;
        }
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        vs_pipeline_module *m = realloc(t->m, cap * sizeof *m);
        if (!m)
            return VS_ENOMEM;
        t->m = m;
        t->cap = cap;
    }
    memcpy(t->m[t->n].name, name, sizeof name);
    t->m[t->n++].bytes = bytes;
    return 0;
}

uint64_t vs_pipeline_modules_largest(const vs_pipeline_modules *t, const char **name)
{
    uint64_t best = 0;
    size_t k;
    if (name)
        *name = "";
    for (k = 0; k < t->n; k++)
        if (t->m[k].bytes > best) {
            best = t->m[k].bytes;
            if (name)
                *name = t->m[k].name;
        }
    return best;
}

void vs_pipeline_modules_free(vs_pipeline_modules *t)
{
    free(t->m);
    memset(t, 0, sizeof *t);
}
