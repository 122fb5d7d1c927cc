/* safetensors_map.c — the string -> index map safetensors' header and index
 * checks share (model/safetensors_internal.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/safetensors_internal.h"

int vs_st_map_init(vs_st_map *m, size_t hint)
{
    size_t cap = 16;
    while (cap < 2 * hint + 2)
        cap *= 2;
    m->mask = cap - 1;
    m->n = 0;
    m->keys = calloc(cap, sizeof *m->keys);
    m->vals = malloc(cap * sizeof *m->vals);
    if (!m->keys || !m->vals) {
        free(m->keys);
        free(m->vals);
        m->keys = NULL;
        m->vals = NULL;
        return VS_ENOMEM;
    }
    return 0;
}

void vs_st_map_free(vs_st_map *m)
{
    free(m->keys);
    free(m->vals);
    m->keys = NULL;
    m->vals = NULL;
}

static size_t strmap_slot(const char *const *keys, size_t mask, const char *key)
{
    uint64_t h = 14695981039346656037ULL;
    const unsigned char *p;
    size_t i;
    for (p = (const unsigned char *)key; *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    for (i = (size_t)h & mask; keys[i] && strcmp(keys[i], key) != 0; i = (i + 1) & mask)
        ;
    return i;
}

size_t *vs_st_map_get(const vs_st_map *m, const char *key)
{
    size_t i = strmap_slot(m->keys, m->mask, key);
    return m->keys[i] ? &m->vals[i] : NULL;
}

/* Keeps the load under 1/2. */
int vs_st_map_put(vs_st_map *m, const char *key, size_t val, size_t **existing)
{
    size_t i = strmap_slot(m->keys, m->mask, key);
    if (m->keys[i]) {
        if (existing)
            *existing = &m->vals[i];
        return 1;
    }
    if (2 * (m->n + 1) > m->mask + 1) {
        size_t cap = 2 * (m->mask + 1), k;
        const char **keys = calloc(cap, sizeof *keys);
        size_t *vals = malloc(cap * sizeof *vals);
        if (!keys || !vals) {
            free(keys);
            free(vals);
            return VS_ENOMEM;
        }
        for (k = 0; k <= m->mask; k++) {
            if (m->keys[k]) {
                size_t j = strmap_slot(keys, cap - 1, m->keys[k]);
                keys[j] = m->keys[k];
                vals[j] = m->vals[k];
            }
        }
        free(m->keys);
        free(m->vals);
        m->keys = keys;
        m->vals = vals;
        m->mask = cap - 1;
        i = strmap_slot(m->keys, m->mask, key);
    }
    m->keys[i] = key;
    m->vals[i] = val;
    m->n++;
    return 0;
}
