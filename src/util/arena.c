#include "util/arena.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK 4096u

typedef struct block {
    struct block *next;
    size_t used, cap;
    alignas(max_align_t) unsigned char data[];
} block;

struct vs_arena {
    block *head; /* the block pieces come from; older ones follow */
};

vs_arena *vs_arena_new(void)
{
    return calloc(1, sizeof(vs_arena));
}

void vs_arena_free(vs_arena *a)
{
    block *b, *next;
    if (!a)
        return;
    for (b = a->head; b; b = next) {
        next = b->next;
        free(b);
    }
    free(a);
}

void *vs_arena_alloc(vs_arena *a, size_t n)
{
    const size_t align = alignof(max_align_t);
    block *b = a->head;
    size_t need = (n + align - 1) & ~(align - 1);
    void *p;
    if (n > SIZE_MAX - align - sizeof(block))
        return NULL;
    if (b) /* strings are packed unaligned: align the next piece */
        b->used = (b->used + align - 1) & ~(align - 1);
    if (!b || b->cap - b->used < need) {
        size_t cap = need > BLOCK ? need : BLOCK;
        block *nb = malloc(sizeof(block) + cap);
        if (!nb)
            return NULL;
        nb->used = 0;
        nb->cap = cap;
        if (b && need > BLOCK) {
            /* a large piece gets its own block, behind the current one, so
             * the current block's free space stays in use */
            nb->next = b->next;
            b->next = nb;
            nb->used = need;
            return nb->data;
        }
        nb->next = b;
        a->head = b = nb;
    }
    p = b->data + b->used;
    b->used += need;
    return p;
}

char *vs_arena_strndup(vs_arena *a, const char *s, size_t n)
{
    /* A string needs no alignment: it goes right after the last piece when
     * it fits (a parsed cell holds a thousand short ones), else through
     * vs_arena_alloc. */
    block *b = a->head;
    char *p;
    if (b && b->cap - b->used > n) {
        p = (char *)b->data + b->used;
        b->used += n + 1;
    } else if (!(p = n < SIZE_MAX ? vs_arena_alloc(a, n + 1) : NULL)) {
        return NULL;
    }
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}
