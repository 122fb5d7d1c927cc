/* llama.cpp's offload of layers and experts to host memory (engine/offload.h). */
#include "engine/offload.h"

#include <string.h>

/* bytes x num / den without overflow (num <= den in every use) */
static uint64_t share(uint64_t bytes, uint64_t num, uint64_t den)
{
    return den ? (uint64_t)((unsigned __int128)bytes * num / den) : 0;
}

void vs_offload_parts(vs_offload_plan *out, const vs_offload_in *in)
{
    uint64_t rest;
    out->embed_bytes = share(in->weights_bytes, in->vocab * in->hidden, in->params_total);
    out->output_bytes = in->tied ? 0 : out->embed_bytes;
    rest = in->weights_bytes - out->embed_bytes - out->output_bytes;
    if (out->embed_bytes + out->output_bytes > in->weights_bytes)
        rest = 0;
    out->layer_bytes = in->layers ? rest / in->layers : 0;
    out->expert_layer_bytes = 0;
    if (in->params_active && in->experts > in->experts_used && in->layers &&
        in->params_total > in->params_active) {
        /* total - active = (experts - used) x one expert over every layer */
        uint64_t routed = (uint64_t)((unsigned __int128)(in->params_total - in->params_active) *
                                     in->experts / (in->experts - in->experts_used));
        out->expert_layer_bytes =
            share(in->weights_bytes, routed < in->params_total ? routed : in->params_total,
                  in->params_total) /
            in->layers;
    }
}

void vs_offload_layers(uint64_t *gpu, uint64_t *host, const vs_offload_in *in, uint64_t ngl)
{
    vs_offload_plan p;
    uint64_t on = ngl < in->layers ? ngl : in->layers;
    memset(&p, 0, sizeof p);
    vs_offload_parts(&p, in);
    *gpu = on * p.layer_bytes + (ngl > in->layers ? p.output_bytes : 0);
    *host = in->weights_bytes - *gpu;
}

void vs_offload_experts(uint64_t *gpu, uint64_t *host, const vs_offload_in *in, uint64_t k)
{
    vs_offload_plan p;
    uint64_t off;
    memset(&p, 0, sizeof p);
    vs_offload_parts(&p, in);
    vs_offload_layers(gpu, host, in, in->layers + 1);
    off = (k < in->layers ? k : in->layers) * p.expert_layer_bytes;
    off = off < *gpu ? off : *gpu;
    *gpu -= off;
    *host += off;
}

uint64_t vs_offload_mapped(const vs_offload_in *in, uint64_t ngl, uint64_t lo, uint64_t hi)
{
    vs_offload_plan p;
    uint64_t on = ngl < in->layers ? ngl : in->layers, below = in->layers - on, start, end, last;
    memset(&p, 0, sizeof p);
    vs_offload_parts(&p, in);
    hi = hi < in->layers ? hi : in->layers;
    /* [output][token_embd][layer 0]...[layer n-1]: the embedding is always on the CPU */
    start = ngl <= in->layers ? 0 : p.output_bytes;
    last = below; /* one past the last layer with a tensor on the CPU */
    if (hi > lo && hi > last)
        last = hi;
    end = p.output_bytes + p.embed_bytes + last * p.layer_bytes;
    if (end > in->weights_bytes) /* the layers' share is rounded down: never past the file */
        end = in->weights_bytes;
    return end - start;
}

static void widen(uint64_t *first, uint64_t *end, const uint64_t *at)
{
    if (!at[1])
        return;
    if (!*end || at[0] < *first)
        *first = at[0];
    if (at[1] > *end)
        *end = at[1];
}

uint64_t vs_offload_mapped_in(const vs_offload_order *o, uint64_t ngl, uint64_t lo, uint64_t hi)
{
    uint64_t first = 0, end = 0, on = ngl < o->n ? ngl : o->n, i;
    widen(&first, &end, o->input);
    if (ngl <= o->n)
        widen(&first, &end, o->output);
    for (i = 0; i < o->n; i++) {
        if (i < o->n - on)
            widen(&first, &end, o->layers[i]);
        else if (i >= lo && i < hi)
            widen(&first, &end, o->layers[i] + 2);
    }
    return end - first;
}

int vs_offload_llamacpp(vs_offload_plan *out, const vs_offload_in *in, vs_error *err)
{
    uint64_t gpu, host, n;
    memset(out, 0, sizeof *out);
    if (!in->layers || !in->params_total || !in->vocab || !in->hidden)
        return vs_error_set(err, VS_EVALUE,
                            "an offload plan needs the model's layers, hidden size, vocabulary "
                            "and parameter count (`model ORG/NAME` or config=)");
    vs_offload_parts(out, in);
    if (out->expert_layer_bytes) {
        for (n = 0; n <= in->layers; n++) {
            vs_offload_experts(&gpu, &host, in, n);
            if (gpu <= in->room_bytes)
                break;
        }
        if (n <= in->layers) {
            out->kind = VS_OFFLOAD_EXPERTS;
            out->ngl = in->layers + 1;
            out->cpu_moe = n;
            out->gpu_weights_bytes = gpu;
            out->host_bytes = host;
            out->mapped_bytes = vs_offload_mapped(in, out->ngl, 0, n);
            return 0;
        }
    }
    for (n = in->layers + 1;; n--) {
        vs_offload_layers(&gpu, &host, in, n);
        if (gpu <= in->room_bytes || n == 0)
            break;
    }
    if (gpu > in->room_bytes || n == 0)
        return vs_error_set(err, VS_EVALUE,
                            "not one layer fits beside the KV cache: the GPU has room for %llu "
                            "bytes of weights, a layer takes %llu",
                            (unsigned long long)in->room_bytes,
                            (unsigned long long)out->layer_bytes);
    out->kind = VS_OFFLOAD_LAYERS;
    out->ngl = n;
    out->gpu_weights_bytes = gpu;
    out->host_bytes = host;
    out->mapped_bytes = vs_offload_mapped(in, n, 0, 0);
    return 0;
}
