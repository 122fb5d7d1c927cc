/* libFuzzer target: a GGUF file's first bytes through the header reader,
 * twice: as the whole file, and as the start of a file claiming 2^40 bytes
 * (counts are then bounded by that size, not the input's: no allocation may
 * follow them); then what it parsed through the weights-file list and the
 * summary, and its architecture metadata as a KV layout (model/gguf_arch.h). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "model/gguf.h"
#include "model/gguf_arch.h"
#include "model/wfile.h"
#include "model/wfile_gguf.h"

typedef struct mem {
    const uint8_t *data;
    size_t len;
} mem;

static long long mem_read(void *ctx, void *buf, size_t n, uint64_t offset)
{
    const mem *m = ctx;
    size_t k;
    if (offset >= m->len) /* past the input: the end, as far as this reader knows */
        return 0;
    k = m->len - (size_t)offset < n ? m->len - (size_t)offset : n;
    memcpy(buf, m->data + offset, k);
    return (long long)k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vs_gguf_file *f = NULL;
    vs_error err;
    mem m = {data, size};
    uint64_t got = 0;
    if (vs_gguf_parse(&f, "fuzz.gguf", data, size, size, &err) == 0) {
        vs_wf_list *l = NULL;
        vs_wf_summary *s = vs_wf_summary_new();
        size_t n;
        int failed;
        if (s && vs_wfile_gguf_list(&l, f, &err) == 0) {
            vs_wf_summary_add(s, l, &err);
            vs_wf_summary_dtypes(s, &n);
            vs_wf_summary_others(s, &n, &failed);
        }
        {
            /* the metadata as a KV layout, and its bytes (overflow is refused) */
            vs_kv_layout kl;
            vs_kv_dims d = {131072, 64, 0, 16, 1, 0};
            uint64_t total, per_token;
            if (vs_gguf_arch_kv_layout(&kl, &f->arch, &err) == 0)
                vs_kv_layout_bytes(&total, &per_token, NULL, &kl, &d, &err);
        }
        vs_wf_list_free(l);
        vs_wf_summary_free(s);
        vs_gguf_file_free(f);
    }
    /* the same bytes as the header of a huge file: reads stay inside them,
     * or the reader says the file is truncated */
    if (size >= 24 &&
        vs_gguf_read(&f, "fuzz.gguf", (uint64_t)1 << 40, mem_read, &m, &got, &err) == 0)
        vs_gguf_file_free(f);
    return 0;
}
