#include "kernel/history.h"

#include <stdlib.h>
#include <string.h>

#include "util/error.h"

typedef struct entry {
    int line;
    char *input;
    char *output; /* NULL when none */
    size_t bytes;
} entry;

/* A ring of entries: oldest at head. */
struct vs_history {
    entry *ring;
    size_t cap, head, count;
    size_t bytes, max_bytes;
};

vs_history *vs_history_new(size_t max_entries, size_t max_bytes)
{
    vs_history *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    if (!max_entries)
        max_entries = 1;
    h->ring = calloc(max_entries, sizeof *h->ring);
    if (!h->ring) {
        free(h);
        return NULL;
    }
    h->cap = max_entries;
    h->max_bytes = max_bytes;
    return h;
}

static void drop_oldest(vs_history *h)
{
    entry *e = &h->ring[h->head];
    h->bytes -= e->bytes;
    free(e->input);
    free(e->output);
    memset(e, 0, sizeof *e);
    h->head = (h->head + 1) % h->cap;
    h->count--;
}

void vs_history_free(vs_history *h)
{
    if (!h)
        return;
    while (h->count)
        drop_oldest(h);
    free(h->ring);
    free(h);
}

size_t vs_history_count(const vs_history *h)
{
    return h->count;
}

static const entry *at(const vs_history *h, size_t i)
{
    return &h->ring[(h->head + i) % h->cap];
}

int vs_history_add(vs_history *h, int line, const char *input, const char *output)
{
    entry e = {line, NULL, NULL, 0};
    e.input = strdup(input ? input : "");
    if (!e.input)
        return VS_ENOMEM;
    e.bytes = strlen(e.input);
    if (output && e.bytes + strlen(output) <= h->max_bytes) {
        e.output = strdup(output);
        if (!e.output) {
            free(e.input);
            return VS_ENOMEM;
        }
        e.bytes += strlen(output);
    }
    while (h->count && (h->count == h->cap || h->bytes + e.bytes > h->max_bytes))
        drop_oldest(h);
    h->ring[(h->head + h->count) % h->cap] = e;
    h->count++;
    h->bytes += e.bytes;
    return 0;
}

static int append_entry(json_t *arr, const entry *e, int output)
{
    json_t *item;
    if (output)
        item = json_pack("[i, i, [s, s?]]", VS_HISTORY_SESSION, e->line, e->input, e->output);
    else
        item = json_pack("[i, i, s]", VS_HISTORY_SESSION, e->line, e->input);
    return item ? json_array_append_new(arr, item) : -1;
}

json_t *vs_history_tail(const vs_history *h, size_t n, int output)
{
    json_t *arr = json_array();
    size_t i, first = h->count > n ? h->count - n : 0;
    if (!arr)
        return NULL;
    for (i = first; i < h->count; i++)
        if (append_entry(arr, at(h, i), output) < 0) {
            json_decref(arr);
            return NULL;
        }
    return arr;
}

json_t *vs_history_range(const vs_history *h, int session, int start, int stop, int output)
{
    json_t *arr = json_array();
    size_t i;
    if (!arr)
        return NULL;
    if (session != 0 && session != VS_HISTORY_SESSION)
        return arr;
    for (i = 0; i < h->count; i++) {
        const entry *e = at(h, i);
        if (e->line < start || (stop > 0 && e->line >= stop))
            continue;
        if (append_entry(arr, e, output) < 0) {
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}

static size_t cp_len(const char *s)
{
    size_t n = 1;
    while (s[n] && ((unsigned char)s[n] & 0xc0) == 0x80)
        n++;
    return n;
}

int vs_history_glob(const char *p, const char *t)
{
    /* Iterative matcher with one backtrack point: linear-ish, no recursion. */
    const char *star = NULL, *resume = NULL;
    while (*t) {
        if (*p == '*') {
            star = ++p;
            resume = t;
        } else if (*p == '?') {
            p++;
            t += cp_len(t);
        } else if (*p && *p == *t) {
            p++;
            t++;
        } else if (star) {
            p = star;
            resume += cp_len(resume);
            t = resume;
        } else {
            return 0;
        }
    }
    while (*p == '*')
        p++;
    return *p == '\0';
}

json_t *vs_history_search(const vs_history *h, const char *pattern, size_t n, int unique,
                          int output)
{
    json_t *arr = json_array();
    size_t i, j, total, *hits = NULL, nhits = 0;
    if (!arr)
        return NULL;
    hits = malloc((h->count ? h->count : 1) * sizeof *hits);
    if (!hits) {
        json_decref(arr);
        return NULL;
    }
    for (i = 0; i < h->count; i++) {
        const entry *e = at(h, i);
        if (!vs_history_glob(pattern, e->input))
            continue;
        if (unique) {
            /* Keep the latest of equal inputs: drop an earlier hit. */
            for (j = 0; j < nhits; j++)
                if (!strcmp(at(h, hits[j])->input, e->input)) {
                    memmove(hits + j, hits + j + 1, (nhits - j - 1) * sizeof *hits);
                    nhits--;
                    break;
                }
        }
        hits[nhits++] = i;
    }
    total = nhits;
    for (i = (n && total > n) ? total - n : 0; i < total; i++)
        if (append_entry(arr, at(h, hits[i]), output) < 0) {
            json_decref(arr);
            arr = NULL;
            break;
        }
    free(hits);
    return arr;
}
