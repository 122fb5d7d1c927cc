/* gguf_dump FILE... — vramsheet's GGUF reader, as JSON on stdout: for each
 * file its version, alignment, data start, totals, file type, architecture
 * and tensor table. tests/model/gguf_independent.py compares it with Hugging
 * Face's own parser (@huggingface/gguf). */
#include <stdio.h>

#include "model/gguf.h"

static void u64s(const char *key, const uint64_t *a, size_t n)
{
    size_t i;
    printf(", \"%s\": ", key);
    if (!a) {
        printf("null");
        return;
    }
    printf("[");
    for (i = 0; i < n; i++)
        printf("%s%llu", i ? ", " : "", (unsigned long long)a[i]);
    printf("]");
}

int main(int argc, char **argv)
{
    int i, bad = 0;
    printf("{");
    for (i = 1; i < argc; i++) {
        vs_gguf_file *f = NULL;
        vs_error err;
        uint64_t read = 0;
        size_t t;
        unsigned d;
        if (vs_gguf_read_file(&f, argv[i], NULL, &read, &err)) {
            fprintf(stderr, "%s\n", err.message);
            bad = 1;
            continue;
        }
        printf(
            "%s\"%s\": {\"version\": %u, \"alignment\": %u, \"data_start\": %llu, "
            "\"data_bytes\": %llu, \"params\": %llu, \"bytes_read\": %llu, \"file_type\": %lld, "
            "\"split_no\": %u, \"split_count\": %u, \"arch\": {\"name\": \"%s\", "
            "\"block_count\": %llu, \"head_count\": %llu, \"head_count_kv\": %llu, "
            "\"sliding_window\": %llu, \"kv_lora_rank\": %llu, \"q_lora_rank\": %llu, "
            "\"rope_dimension_count\": %llu, \"expert_count\": %llu, "
            "\"expert_used_count\": %llu, \"context_length\": %llu, \"key_length\": %llu, "
            "\"value_length\": %llu, \"embedding_length\": %llu",
            i > 1 ? ", " : "", argv[i], f->version, f->alignment, (unsigned long long)f->data_start,
            (unsigned long long)f->data_bytes, (unsigned long long)f->params,
            (unsigned long long)read, (long long)f->file_type, f->split_no, f->split_count,
            f->arch.name, (unsigned long long)f->arch.block_count,
            (unsigned long long)f->arch.head_count, (unsigned long long)f->arch.head_count_kv,
            (unsigned long long)f->arch.sliding_window, (unsigned long long)f->arch.kv_lora_rank,
            (unsigned long long)f->arch.q_lora_rank,
            (unsigned long long)f->arch.rope_dimension_count,
            (unsigned long long)f->arch.expert_count, (unsigned long long)f->arch.expert_used_count,
            (unsigned long long)f->arch.context_length, (unsigned long long)f->arch.key_length,
            (unsigned long long)f->arch.value_length, (unsigned long long)f->arch.embedding_length);
        u64s("head_count_kv_per_layer", f->arch.head_count_kv_layers,
             f->arch.n_head_count_kv_layers);
        u64s("sliding_window_per_layer", f->arch.sliding_window_layers,
             f->arch.n_sliding_window_layers);
        printf("}, \"tensors\": [");
        for (t = 0; t < f->count; t++) {
            const vs_gguf_tensor *x = &f->tensors[t];
            printf("%s{\"name\": \"%s\", \"type\": %u, \"type_name\": \"%s\", \"offset\": %llu, "
                   "\"bytes\": %llu, \"shape\": [",
                   t ? ", " : "", x->name, x->type->id, x->type->name,
                   (unsigned long long)x->offset, (unsigned long long)x->bytes);
            for (d = 0; d < x->ndims; d++)
                printf("%s%llu", d ? ", " : "", (unsigned long long)x->ne[d]);
            printf("]}");
        }
        printf("]}");
        vs_gguf_file_free(f);
    }
    printf("}\n");
    return bad;
}
