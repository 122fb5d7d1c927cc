/* arena.h — many small allocations freed at once.
 *
 * A parsed cell holds its copy of the text (the verbs, keys and values are
 * pieces of it), its lines' argument arrays and raw texts, that all live
 * exactly as long as the cell: allocating them one by one from malloc, then
 * freeing each, was a quarter of parsing. An arena hands out pieces of large
 * blocks and frees the blocks together. No I/O; not thread-safe (one owner).
 */
#ifndef VS_UTIL_ARENA_H
#define VS_UTIL_ARENA_H

#include <stddef.h>

typedef struct vs_arena vs_arena;

/* A new, empty arena, or NULL when memory is short. */
vs_arena *vs_arena_new(void);
/* Frees every piece handed out, and the arena. NULL is a no-op. */
void vs_arena_free(vs_arena *a);
/* n bytes aligned for any object, valid until vs_arena_free; NULL when memory
 * is short. */
void *vs_arena_alloc(vs_arena *a, size_t n);
/* A NUL-terminated copy of s[0..n), or NULL when memory is short. */
char *vs_arena_strndup(vs_arena *a, const char *s, size_t n);

#endif
