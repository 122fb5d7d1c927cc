/* pool.h — a small-block allocator for jansson's nodes.
 *
 * A 200-line cell builds and frees about 13,000 JSON nodes (a sheet snapshot,
 * a payload and a bundle per line). glibc keeps 7 free blocks per size in its
 * per-thread cache, so almost every one of those frees and mallocs took the
 * slow path: 30% of a cell's instructions were malloc and free. This pool keeps
 * freed blocks on per-thread lists by size class (16-byte steps up to 512
 * bytes), so taking and returning a node is a few instructions; larger blocks
 * go to malloc.
 *
 * Process-level, not pure: it changes jansson's allocator for the whole
 * process, so a program installs it once, first, before any JSON value exists
 * (json_set_alloc_funcs must precede every allocation). Memory taken for small
 * blocks is kept for reuse, never returned to the system: the pool holds what
 * the largest cell needed; with glibc, installing it also keeps up to 2 MiB
 * of freed heap rather than returning it after every cell (page faults were
 * a tenth of a long cell). Sanitizer builds never install it, and
 * VRAMSHEET_POOL=0 in the environment keeps jansson on malloc (for valgrind),
 * so those tools still see every node.
 */
#ifndef VS_UTIL_POOL_H
#define VS_UTIL_POOL_H

#include <stddef.h>

/* Makes jansson allocate through the pool. Returns 1 when installed, 0 when
 * left on malloc (sanitizer build, VRAMSHEET_POOL=0). Call before any JSON
 * value is made; calling again does nothing. */
int vs_pool_install(void);

/* The pool's malloc and free, usable directly (tests). vs_pool_free(NULL) is a
 * no-op; a block must come from vs_pool_alloc. */
void *vs_pool_alloc(size_t n);
void vs_pool_free(void *p);

/* Frees memory that jansson allocated and handed over (json_dumps's text),
 * through whichever allocator jansson uses: free() would be wrong once the
 * pool is installed. */
void vs_pool_json_free(void *p);

#endif
