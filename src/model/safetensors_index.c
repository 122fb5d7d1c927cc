/* safetensors_index.c — model.safetensors.index.json: its weight_map read and
 * checked against the shards' headers (the contract: model/safetensors.h). */
#include <stdlib.h>
#include <string.h>

#include "model/jscan.h"
#include "model/safetensors.h"
#include "model/safetensors_internal.h"
#include "util/cmp.h"

void vs_st_index_free(vs_st_index *ix)
{
    size_t i;
    if (!ix)
        return;
    for (i = 0; i < ix->count; i++)
        free(ix->tensors[i]);
    for (i = 0; i < ix->nshards; i++)
        free(ix->shards[i]);
    free(ix->tensors);
    free(ix->shard_of);
    free(ix->shards);
    free(ix);
}

static int plain_file_name(const char *s)
{
    return *s && !strchr(s, '/') && strcmp(s, ".") != 0 && strcmp(s, "..") != 0;
}

/* Grows an array of n elements of size sz to hold one more: 0 or VS_ENOMEM. */
static int grow(void *arrp, size_t *cap, size_t n, size_t sz)
{
    void **arr = arrp, *p;
    size_t ncap;
    if (n < *cap)
        return 0;
    ncap = *cap ? *cap * 2 : 256;
    if (!(p = realloc(*arr, ncap * sz)))
        return VS_ENOMEM;
    *arr = p;
    *cap = ncap;
    return 0;
}

/* The shard's number in ix->shards, appended when new. Consecutive entries
 * usually name the same shard: that is checked before the map. */
static int shard_number(vs_st_index *ix, size_t *scap, vs_st_map *known, const char *shard,
                        size_t *out)
{
    size_t *hit = NULL;
    char *copy;
    int r;
    if (ix->count > 0 && !strcmp(ix->shards[ix->shard_of[ix->count - 1]], shard)) {
        *out = ix->shard_of[ix->count - 1];
        return 0;
    }
    if ((hit = vs_st_map_get(known, shard))) {
        *out = *hit;
        return 0;
    }
    if (grow(&ix->shards, scap, ix->nshards, sizeof *ix->shards) || !(copy = strdup(shard)))
        return VS_ENOMEM;
    ix->shards[ix->nshards] = copy;
    *out = ix->nshards++;
    r = vs_st_map_put(known, copy, *out, NULL);
    return r < 0 ? VS_ENOMEM : 0;
}

int vs_st_index_parse(vs_st_index **out, const char *name, const char *json, size_t len,
                      vs_error *err)
{
    vs_jscan j;
    vs_st_index *ix = calloc(1, sizeof *ix);
    vs_st_map known = {NULL, NULL, 0, 0}, seen = {NULL, NULL, 0, 0};
    size_t tcap = 0, scap = 0, i, *map = NULL, shard;
    char *tensor = NULL, **sorted = NULL;
    int more, first = 1, rc = 0, have_map = 0;

    *out = NULL;
    vs_jscan_init(&j, json, len);
    if (!ix || vs_st_map_init(&known, 16)) {
        rc = vs_error_set(err, VS_ENOMEM, "out of memory");
        goto done;
    }
    if (vs_jscan_peek(&j) != '{') {
        rc = vs_jscan_skip(&j) || vs_jscan_end(&j)
                 ? vs_safetensors_not_json(&j, name, "index", err)
                 : vs_error_set(err, VS_EFORMAT, "%s: the index is not a JSON object", name);
        goto done;
    }
    vs_jscan_object(&j);
    while ((more = vs_jscan_key(&j, first)) == 1) {
        int m, mfirst = 1;
        first = 0;
        if (strcmp(j.str, "weight_map") != 0 || vs_jscan_peek(&j) != '{') {
            if (vs_jscan_skip(&j)) {
                rc = vs_safetensors_not_json(&j, name, "index", err);
                goto done;
            }
            continue;
        }
        if (have_map++) {
            rc = vs_error_set(err, VS_EFORMAT, "%s: \"weight_map\" is given twice", name);
            goto done;
        }
        vs_jscan_object(&j);
        while ((m = vs_jscan_key(&j, mfirst)) == 1) {
            mfirst = 0;
            if (!(tensor = strdup(j.str))) {
                rc = vs_error_set(err, VS_ENOMEM, "out of memory");
                goto done;
            }
            if (vs_jscan_peek(&j) != '"') {
                if (vs_jscan_skip(&j)) {
                    rc = vs_safetensors_not_json(&j, name, "index", err);
                    goto done;
                }
                rc = vs_error_set(err, VS_EFORMAT,
                                  "%s: weight_map entry for '%s' must name a shard file beside "
                                  "the index",
                                  name, tensor);
                goto done;
            }
            if (vs_jscan_string(&j)) {
                rc = vs_safetensors_not_json(&j, name, "index", err);
                goto done;
            }
            if (!plain_file_name(j.str)) {
                rc = vs_error_set(err, VS_EFORMAT,
                                  "%s: weight_map entry for '%s' must name a shard file beside "
                                  "the index, not '%s'",
                                  name, tensor, j.str);
                goto done;
            }
            if (ix->count == tcap) {
                size_t ocap = tcap, scap2 = tcap;
                if (grow(&ix->tensors, &tcap, ix->count, sizeof *ix->tensors) ||
                    grow(&ix->shard_of, &scap2, ocap, sizeof *ix->shard_of)) {
                    rc = vs_error_set(err, VS_ENOMEM, "out of memory");
                    goto done;
                }
            }
            if (shard_number(ix, &scap, &known, j.str, &shard)) {
                rc = vs_error_set(err, VS_ENOMEM, "out of memory");
                goto done;
            }
            ix->tensors[ix->count] = tensor;
            ix->shard_of[ix->count++] = shard;
            tensor = NULL;
        }
        if (m < 0) {
            rc = vs_safetensors_not_json(&j, name, "index", err);
            goto done;
        }
    }
    if (more < 0 || vs_jscan_end(&j)) {
        rc = vs_safetensors_not_json(&j, name, "index", err);
        goto done;
    }
    if (ix->count == 0) {
        rc = vs_error_set(err, VS_EFORMAT,
                          "%s: no \"weight_map\" object with entries (a "
                          "model.safetensors.index.json maps each tensor to its shard)",
                          name);
        goto done;
    }
    /* a tensor mapped twice */
    if (vs_st_map_init(&seen, ix->count)) {
        rc = vs_error_set(err, VS_ENOMEM, "out of memory");
        goto done;
    }
    for (i = 0; i < ix->count; i++) {
        int r = vs_st_map_put(&seen, ix->tensors[i], i, NULL);
        if (r < 0) {
            rc = vs_error_set(err, VS_ENOMEM, "out of memory");
            goto done;
        }
        if (r > 0) {
            rc = vs_error_set(err, VS_EFORMAT, "%s: tensor '%s' is listed twice in weight_map",
                              name, ix->tensors[i]);
            goto done;
        }
    }
    /* shards in name order, so that files are read and listed the same way
     * whatever the index's order */
    sorted = malloc(ix->nshards * sizeof *sorted);
    map = malloc(ix->nshards * sizeof *map);
    if (!sorted || !map) {
        rc = vs_error_set(err, VS_ENOMEM, "out of memory");
        goto done;
    }
    memcpy(sorted, ix->shards, ix->nshards * sizeof *sorted);
    qsort(sorted, ix->nshards, sizeof *sorted, vs_cmp_str);
    for (i = 0; i < ix->nshards; i++)
        map[*vs_st_map_get(&known, sorted[i])] = i;
    for (i = 0; i < ix->count; i++)
        ix->shard_of[i] = map[ix->shard_of[i]];
    memcpy(ix->shards, sorted, ix->nshards * sizeof *sorted);
    *out = ix;
    ix = NULL;
done:
    free(tensor);
    free(sorted);
    free(map);
    vs_st_map_free(&known);
    vs_st_map_free(&seen);
    vs_st_index_free(ix);
    vs_jscan_free(&j);
    return rc;
}

int vs_st_index_check(const vs_st_index *ix, const vs_st_file *const *files, const char *name,
                      vs_error *err)
{
    vs_st_map where;
    size_t total = 0, i, k, *hit;
    int rc = 0;
    for (k = 0; k < ix->nshards; k++)
        total += files[k]->count;
    if (vs_st_map_init(&where, total))
        return vs_error_set(err, VS_ENOMEM, "out of memory");
    for (k = 0; k < ix->nshards; k++) {
        for (i = 0; i < files[k]->count; i++) {
            int r = vs_st_map_put(&where, files[k]->tensors[i].name, k, &hit);
            if (r < 0) {
                rc = vs_error_set(err, VS_ENOMEM, "out of memory");
                goto done;
            }
            if (r > 0) {
                rc = vs_error_set(err, VS_EFORMAT,
                                  "%s: tensor '%s' is stored in two shards (%s, %s)", name,
                                  files[k]->tensors[i].name, ix->shards[*hit], ix->shards[k]);
                goto done;
            }
        }
    }
    for (i = 0; i < ix->count; i++) {
        hit = vs_st_map_get(&where, ix->tensors[i]);
        if (!hit || *hit != ix->shard_of[i]) {
            rc = vs_error_set(err, VS_EFORMAT,
                              "%s: weight_map puts tensor '%s' in %s, whose header does not "
                              "have it",
                              name, ix->tensors[i], ix->shards[ix->shard_of[i]]);
            goto done;
        }
    }
done:
    vs_st_map_free(&where);
    return rc;
}
