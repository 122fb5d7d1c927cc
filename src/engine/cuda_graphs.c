/* vLLM's CUDA graphs: the capture sizes of each modelled release, and the
 * cuda_graphs item as their count times the decoder's layers times a fitted
 * per layer-graph constant. */
#include "engine/cuda_graphs.h"
#include "engine/vllm.h"

#include <string.h>

/* The capture sizes 1, 2, 4, 8, 16, ... (multiples of 8) up to and including
 * limit: how many there are. */
static uint64_t sizes_upto(uint64_t limit)
{
    uint64_t n = 0;
    n += limit >= 1;
    n += limit >= 2;
    n += limit >= 4;
    return n + limit / 8;
}

/* From 0.12.0: 1, 2, 4, multiples of 8 below 256, then multiples of 16 from 256, up
 * to and including limit: how many there are. */
static uint64_t sizes_step16(uint64_t limit)
{
    if (limit < 256)
        return sizes_upto(limit < 248 ? limit : 248);
    return sizes_upto(248) + (limit - 256) / 16 + 1;
}

/* The largest size of that list not above limit. */
static uint64_t largest_step16(uint64_t limit)
{
    if (limit >= 256)
        return 256 + (limit - 256) / 16 * 16;
    if (limit >= 8)
        return limit / 8 * 8;
    return limit >= 4 ? 4 : limit >= 2 ? 2 : limit;
}

static uint64_t min_u(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* The largest size of the list 1, 2, 4, 8, 16, ... not above limit. */
static uint64_t largest_upto(uint64_t limit)
{
    if (limit >= 8)
        return limit / 8 * 8;
    return limit >= 4 ? 4 : limit >= 2 ? 2 : limit;
}

int vs_cuda_graphs_count_of(vs_cuda_graphs_count *out, const char *release, uint64_t max_num_seqs,
                            uint64_t max_num_batched_tokens, vs_error *err)
{
    uint64_t cap;
    int rule;
    memset(out, 0, sizeof *out);
    if (!max_num_seqs)
        return vs_error_set(err, VS_EVALUE, "the CUDA graph count needs max_num_seqs (at least 1)");
    if (release && !strcmp(release, "v0")) {
        /* V0 (vllm/config/__init__.py _set_cudagraph_sizes, not VLLM_USE_V1;
         * vllm/worker/model_runner.py _BATCH_SIZES_TO_CAPTURE before it): from
         * [1, 2, 4] + [8 x i for i in 1..1024], every size up to the first one not
         * below max_num_seqs */
        cap = max_num_seqs <= 4 ? (max_num_seqs <= 1   ? 1
                                   : max_num_seqs <= 2 ? 2
                                                       : 4)
                                : (max_num_seqs + 7) / 8 * 8;
        if (cap > 8192)
            cap = 8192;
        out->piecewise = sizes_upto(cap);
        out->largest = cap;
        return 0;
    }
    rule = vs_vllm_graphs(release);
    if (rule == VS_VLLM_GRAPHS_STEP16) {
        /* from 0.12.0 (vllm-project/vllm#26016; vllm/config/vllm.py
         * _set_cudagraph_sizes): [1, 2, 4] + range(8, 256, 8) + range(256, max + 1, 16),
         * max = min(max_num_seqs x 2, 512) and none above max_num_batched_tokens;
         * FULL_AND_PIECEWISE still the default, a full decode graph per size up to
         * max_num_seqs */
        cap = min_u(max_num_seqs * 2, 512);
        if (max_num_batched_tokens && max_num_batched_tokens < cap)
            cap = max_num_batched_tokens;
        out->piecewise = sizes_step16(cap);
        out->largest = largest_step16(cap);
        out->full = sizes_step16(min_u(cap, max_num_seqs));
        return 0;
    }
    if (rule == VS_VLLM_GRAPHS_PIECEWISE || rule == VS_VLLM_GRAPHS_FULL) {
        /* V1 (vllm/config/__init__.py _set_cudagraph_sizes with
         * SchedulerConfig.cuda_graph_sizes = [min(max_num_seqs x 2, 512)],
         * vllm/config/scheduler.py): [1, 2, 4] + range(8, that + 1, 8), none above
         * max_num_batched_tokens */
        cap = min_u(max_num_seqs * 2, 512);
        if (max_num_batched_tokens && max_num_batched_tokens < cap)
            cap = max_num_batched_tokens;
        out->piecewise = sizes_upto(cap);
        out->largest = largest_upto(cap);
        /* 0.11.0 defaults cudagraph_mode to FULL_AND_PIECEWISE
         * (vllm-project/vllm#25444; vllm/config/compilation.py): a full decode
         * graph too for each size a batch of max_num_seqs one-token requests
         * reaches (vllm/v1/worker/gpu_model_runner.py capture_model) */
        if (rule == VS_VLLM_GRAPHS_FULL)
            out->full = sizes_upto(min_u(cap, max_num_seqs));
        return 0;
    }
    return vs_error_set(err, VS_ENOTFOUND,
                        "no CUDA graph rule for vLLM %s: the rules known are 0.10.2 to 0.19.0 "
                        "(and V0's); measure the graphs (`measure import` of its start-up log: "
                        "\"Graph capturing finished in N secs, took X GiB\") or declare them",
                        release ? release : "(unknown)");
}

int vs_cuda_graphs_estimate(vs_runtime_estimate *out, vs_cuda_graphs_count *count,
                            const char *release, uint64_t max_num_seqs,
                            uint64_t max_num_batched_tokens, uint64_t layers, vs_error *err)
{
    int rc;
    memset(out, 0, sizeof *out);
    if ((rc = vs_cuda_graphs_count_of(count, release, max_num_seqs, max_num_batched_tokens, err)) <
        0)
        return rc;
    if (!layers)
        return vs_error_set(err, VS_EVALUE,
                            "the CUDA graph estimate needs the model's decoder layers "
                            "(num_hidden_layers: `model NAME config=PATH`)");
    out->bytes = (count->piecewise + count->full) * layers * VS_CUDA_GRAPHS_PER_LAYER_GRAPH;
    /* the published rows the constant misses by the most: 19.5% held out (Qwen3-8B,
     * 0.10.2), +188% on a V0 Qwen3-0.6B whose capture sizes the log does not show */
    out->rule =
        vs_vllm_graphs(release) == VS_VLLM_GRAPHS_STEP16
            ? "graphs x layers x 400 KiB: one piecewise graph per capture size (1, 2, 4, "
              "multiples of 8 below 256, then of 16 from 256 up to min(2 x max_num_seqs, 512), "
              "none above max_num_batched_tokens: vllm/config/vllm.py _set_cudagraph_sizes "
              "from 0.12.0, vllm-project/vllm#26016) and a full decode graph per size up to "
              "max_num_seqs (FULL_AND_PIECEWISE), each holding a piece per decoder layer "
              "(vllm/compilation/backends.py split_graph); the 400 KiB fitted on published "
              "start-up logs of 0.10 and 0.11"
        : count->full
            ? "graphs x layers x 400 KiB: one piecewise graph per capture size (1, 2, 4, then "
              "multiples of 8 up to min(2 x max_num_seqs, 512), none above "
              "max_num_batched_tokens: vllm/config/__init__.py _set_cudagraph_sizes) and a full "
              "decode graph per size up to max_num_seqs (FULL_AND_PIECEWISE, the default from "
              "0.11.0, vllm-project/vllm#25444), each holding a piece per decoder layer "
              "(vllm/compilation/backends.py split_graph); the 400 KiB fitted on published "
              "start-up logs (a backend without full graphs, as MLA, captures the piecewise "
              "ones only)"
            : "graphs x layers x 400 KiB: one piecewise graph per capture size (1, 2, 4, then "
              "multiples of 8 up to min(2 x max_num_seqs, 512), none above "
              "max_num_batched_tokens: vllm/config/__init__.py _set_cudagraph_sizes; "
              "cudagraph_mode PIECEWISE, the default before 0.11.0), each holding a piece per "
              "decoder layer (vllm/compilation/backends.py split_graph); the 400 KiB fitted on "
              "published start-up logs";
    out->error = 1.88;
    return 0;
}
