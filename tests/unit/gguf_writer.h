/* gguf_writer.h — a GGUF writer for the unit tests that build files by hand
 * (test_gguf, test_gguf_arch): the format as docs/gguf.md of ggml-org/ggml
 * describes it, little-endian, written independently of src/model/gguf.c so
 * that the parser is checked against the format, not against itself. */
#ifndef VS_TESTS_GGUF_WRITER_H
#define VS_TESTS_GGUF_WRITER_H

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct wb {
    unsigned char *p;
    size_t len, cap;
} wb;

static inline void put(wb *w, const void *src, size_t n)
{
    if (w->len + n > w->cap) {
        w->cap = (w->len + n) * 2 + 64;
        w->p = realloc(w->p, w->cap);
        ck_assert_ptr_nonnull(w->p);
    }
    memcpy(w->p + w->len, src, n);
    w->len += n;
}
static inline void p32(wb *w, uint32_t v)
{
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    put(w, b, 4);
}
static inline void p64(wb *w, uint64_t v)
{
    p32(w, (uint32_t)v);
    p32(w, (uint32_t)(v >> 32));
}
static inline void pstr(wb *w, const char *s)
{
    p64(w, strlen(s));
    put(w, s, strlen(s));
}
/* metadata: key, type (docs/gguf.md's gguf_metadata_value_type), value */
static inline void kv_u32(wb *w, const char *k, uint32_t v)
{
    pstr(w, k);
    p32(w, 4);
    p32(w, v);
}
static inline void kv_u16(wb *w, const char *k, uint16_t v)
{
    unsigned char b[2] = {(unsigned char)v, (unsigned char)(v >> 8)};
    pstr(w, k);
    p32(w, 2);
    put(w, b, 2);
}
static inline void kv_i32(wb *w, const char *k, int32_t v)
{
    pstr(w, k);
    p32(w, 5);
    p32(w, (uint32_t)v);
}
static inline void kv_str(wb *w, const char *k, const char *v)
{
    pstr(w, k);
    p32(w, 8);
    pstr(w, v);
}
static inline void kv_f32(wb *w, const char *k, float f)
{
    uint32_t v;
    memcpy(&v, &f, 4);
    pstr(w, k);
    p32(w, 6);
    p32(w, v);
}
static inline void kv_arr_u32(wb *w, const char *k, const uint32_t *v, size_t n)
{
    size_t i;
    pstr(w, k);
    p32(w, 9);
    p32(w, 4);
    p64(w, n);
    for (i = 0; i < n; i++)
        p32(w, v[i]);
}
static inline void kv_arr_bool(wb *w, const char *k, const unsigned char *v, size_t n)
{
    pstr(w, k);
    p32(w, 9);
    p32(w, 7);
    p64(w, n);
    put(w, v, n);
}

#endif
