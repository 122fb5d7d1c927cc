#include "util/pool.h"

#include "util/buf.h"

#include <jansson.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <string.h>

/* Each block starts with an 8-byte header holding its size class, so free
 * needs no size and a large (malloc'd) block is told apart. 8 bytes keeps the
 * payload 8-aligned, all that jansson's structs need. */
#define HEADER 8u
#define STEP 16u
#define NCLASS 32u /* blocks of 16, 32, ..., 512 bytes, header included */
#define LARGE 0xFFFFFFFFu
#define CHUNK (64u * 1024u)

typedef union block {
    union block *next; /* on a free list */
    uint64_t cls;      /* in use: the header */
} block;

/* Per thread: the kernel's control thread parses and answers messages while a
 * cell runs on the main thread, so lists are never shared and need no lock. A
 * block freed on another thread than the one that made it joins the freeing
 * thread's list; chunks are never returned, so that is always safe. */
static _Thread_local block *free_list[NCLASS];
static _Thread_local char *bump, *bump_end;

/* Every chunk, linked through its first word. Chunks outlive the thread that
 * took them (its blocks may be in use anywhere), so they stay reachable from
 * here for the life of the process: a leak checker sees memory in use, not
 * memory lost. Taken rarely (64 KiB at a time), so a lock costs nothing. */
static pthread_mutex_t chunks_lock = PTHREAD_MUTEX_INITIALIZER;
static void *chunks;

static void *carve(size_t size)
{
    char *p;
    if ((size_t)(bump_end - bump) < size) {
        /* the tail of the old chunk (under 512 bytes) is left unused */
        char *c = malloc(CHUNK);
        if (!c)
            return NULL;
        pthread_mutex_lock(&chunks_lock);
        *(void **)c = chunks;
        chunks = c;
        pthread_mutex_unlock(&chunks_lock);
        bump = c + 16; /* after the link, keeping blocks 16-aligned */
        bump_end = c + CHUNK;
    }
    p = bump;
    bump += size;
    return p;
}

void *vs_pool_alloc(size_t n)
{
    size_t c = (n + HEADER + STEP - 1) / STEP; /* 1..NCLASS for pooled sizes */
    block *b;
    if (n > NCLASS * STEP - HEADER) {
        b = n <= SIZE_MAX - HEADER ? malloc(n + HEADER) : NULL;
        if (!b)
            return NULL;
        b->cls = LARGE;
        return (char *)b + HEADER;
    }
    if (c == 0)
        c = 1;
    b = free_list[c - 1];
    if (b)
        free_list[c - 1] = b->next;
    else if (!(b = carve(c * STEP)))
        return NULL;
    b->cls = c - 1;
    return (char *)b + HEADER;
}

void vs_pool_free(void *p)
{
    block *b;
    uint64_t c;
    if (!p)
        return;
    b = (block *)((char *)p - HEADER);
    c = b->cls;
    if (c == LARGE) {
        free(b);
        return;
    }
    b->next = free_list[c];
    free_list[c] = b;
}

int vs_pool_install(void)
{
    static int installed = -1;
    const char *env;
    if (installed >= 0)
        return installed;
    installed = 0;
#if defined(__SANITIZE_ADDRESS__)
    return installed;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
    return installed;
#endif
#endif
    env = getenv("VRAMSHEET_POOL");
    if (env && !strcmp(env, "0"))
        return installed;
    json_set_alloc_funcs(vs_pool_alloc, vs_pool_free);
#if defined(__GLIBC__)
    /* A long cell's buffers (text, HTML, bundles) reach a few hundred KB and
     * are freed at its end; glibc then trimmed the heap top and mapped the
     * largest ones afresh each cell, and touching those pages again cost
     * ~54 page faults per cell, as much as a tenth of it. Up to 2 MiB of
     * freed heap is kept, and blocks under 1 MiB come from the heap. */
    mallopt(M_TRIM_THRESHOLD, 2 << 20);
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
    vs_buf_recycle(1);
    installed = 1;
    return installed;
}

void vs_pool_json_free(void *p)
{
    json_malloc_t m;
    json_free_t f;
    json_get_alloc_funcs(&m, &f);
    f(p);
}
