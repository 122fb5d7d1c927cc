/* safetensors_internal.h — what the safetensors files share among themselves:
 * safetensors.c (dtypes, the header, reading a file), safetensors_index.c (the
 * index), safetensors_map.c (the map below) and safetensors_summary.c. Not a
 * contract for other modules: they include model/safetensors.h.
 */
#ifndef VS_MODEL_SAFETENSORS_INTERNAL_H
#define VS_MODEL_SAFETENSORS_INTERNAL_H

#include <stddef.h>

#include "model/jscan.h"
#include "util/error.h"

/* A string -> index map (open addressing, FNV-1a): duplicate names and
 * lookups over thousands of tensors whose names share long prefixes, where
 * sorting would spend its time in strcmp. Keys are borrowed. */
typedef struct vs_st_map {
    const char **keys;
    size_t *vals;
    size_t mask, n;
} vs_st_map;

/* Room for about hint keys: 0 or VS_ENOMEM (m then holds nothing to free). */
int vs_st_map_init(vs_st_map *m, size_t hint);
void vs_st_map_free(vs_st_map *m);
/* The value stored for key, or NULL. */
size_t *vs_st_map_get(const vs_st_map *m, const char *key);
/* Stores key -> val: 0 when inserted, 1 when key was there (*existing, when
 * not NULL, then points at its value), VS_ENOMEM when memory is short. */
int vs_st_map_put(vs_st_map *m, const char *key, size_t val, size_t **existing);

/* The header's or index's text (what: "header", "index") was not JSON: where
 * (vs_error.position, and in the message) and what was expected; VS_ENOMEM
 * when the reader ran out of memory. */
int vs_safetensors_not_json(const vs_jscan *j, const char *file, const char *what, vs_error *err);

#endif
