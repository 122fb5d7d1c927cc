/* libFuzzer target: a whole safetensors file (length, header, data) through
 * the reader, then the summary of what it parsed; and the same bytes as a
 * model.safetensors.index.json. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "model/safetensors.h"

typedef struct mem {
    const uint8_t *data;
    size_t len;
} mem;

static long long mem_read(void *ctx, void *buf, size_t n, uint64_t offset)
{
    const mem *m = ctx;
    size_t k;
    if (offset >= m->len)
        return 0;
    k = m->len - (size_t)offset < n ? m->len - (size_t)offset : n;
    memcpy(buf, m->data + offset, k);
    return (long long)k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mem m = {data, size};
    vs_st_file *f = NULL;
    vs_st_summary *s;
    vs_error err;
    uint64_t got = 0;
    size_t n;
    int failed;
    vs_st_index *ix = NULL;
    if (vs_st_index_parse(&ix, "fuzz.index.json", (const char *)data, size, &err) == 0) {
        for (n = 0; n < ix->count; n++)
            if (ix->shard_of[n] >= ix->nshards)
                __builtin_trap();
        for (n = 1; n < ix->nshards; n++)
            if (strcmp(ix->shards[n - 1], ix->shards[n]) >= 0)
                __builtin_trap(); /* sorted and unique */
        vs_st_index_free(ix);
    }
    if (vs_safetensors_read(&f, "fuzz.safetensors", size, mem_read, &m, &got, &err) != 0)
        return 0;
    if (got != 8 + f->header_len || f->data_bytes != size - got)
        __builtin_trap(); /* a parsed file's tensors tile exactly its data area */
    s = vs_st_summary_new();
    if (s && vs_st_summary_add(s, f, &err) == 0) {
        vs_st_summary_dtypes(s, &n);
        vs_st_summary_others(s, &n, &failed);
        if (vs_st_summary_bytes(s) != f->data_bytes)
            __builtin_trap();
    }
    vs_st_summary_free(s);
    vs_st_file_free(f);
    return 0;
}
