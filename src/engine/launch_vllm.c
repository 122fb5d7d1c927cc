/* vLLM's command: `vllm serve MODEL` with the flags that decide its memory. */
#include <stdio.h>
#include <string.h>

#include "engine/launch.h"

#define ARGS "vllm/engine/arg_utils.py (EngineArgs.add_cli_args, vllm-project/vllm 99d7eb5, v0.11)"

/* the releases after 0.11.0: no stored source holds their arg_utils.py, so the v0.11
 * table stands for them; every flag the command writes is one of it */
#define LATER ARGS ", its own table not read: standing for "

/* 0.10.2's table is 99d7eb5's without --kv-cache-memory-bytes: that flag came
 * with vllm-project/vllm#21489, which no stored source places before 0.10.2 */
static const vs_launch_release releases[] = {
    {"0.10.2", ARGS " less --kv-cache-memory-bytes (vllm-project/vllm#21489), standing for "
                    "0.10.2"},
    {"0.11.0", ARGS ", standing for 0.11.0"},
    {"0.12.0", LATER "0.12.0"},
    {"0.13.0", LATER "0.13.0"},
    {"0.14.0", LATER "0.14.0"},
    {"0.15.0", LATER "0.15.0"},
    {"0.16.0", LATER "0.16.0"},
    {"0.17.0", LATER "0.17.0"},
    {"0.18.0", LATER "0.18.0"},
    {"0.19.0", LATER "0.19.0"},
    {NULL, NULL}};

/* --cpu-offload-gb G: G GiB of each GPU's weights live in host memory and
 * stream in for every forward pass (CacheConfig.cpu_offload_gb, GiB per GPU);
 * the pool grows by what the weights give up. */
static int plan(vs_launch_offload *out, const vs_launch_in *in, uint64_t shortfall, vs_error *err)
{
    const vs_engine_env *e = &in->ctx->env;
    uint64_t gib = 1ull << 30, g = (shortfall + gib - 1) / gib, tp = e->tp ? e->tp : 1;
    if (!e->weights_known || g * gib > e->weights_bytes)
        return vs_error_set(err, VS_EVALUE,
                            "the GPU lacks %llu bytes for the KV cache, more than its weights "
                            "could give up",
                            (unsigned long long)shortfall);
    out->cpu_offload_gib = g;
    out->gpu_bytes = in->row->non_kv_bytes - g * gib + in->row->need_bytes;
    out->host_bytes = g * gib * tp;
    snprintf(out->rule, sizeof out->rule,
             "--cpu-offload-gb %llu keeps %llu GiB of each GPU's weights in host memory (the "
             "KV pool lacked %llu bytes)",
             (unsigned long long)g, (unsigned long long)g, (unsigned long long)shortfall);
    return 0;
}

static int build(json_t *argv, const vs_launch_in *in, vs_buf *note, vs_error *err)
{
    const vs_engine_env *e = &in->ctx->env;
    const char *model = vs_launch_card_str(in->sheet, "model"),
               *rev = vs_launch_card_str(in->sheet, "revision");
    const vs_engine_val *u = vs_engine_get(e, "gpu_memory_utilization"),
                        *len = vs_engine_get(e, "max_model_len"),
                        *seqs = vs_engine_get(e, "max_num_seqs"),
                        *mem = vs_engine_get(e, "kv_cache_memory"),
                        *dt = vs_engine_get(e, "kv_cache_dtype"),
                        *eager = vs_engine_get(e, "enforce_eager");
    char frac[32];
    int rc = 0;
    if ((rc = vs_launch_word(argv, "vllm", err)) < 0 ||
        (rc = vs_launch_word(argv, "serve", err)) < 0 ||
        (rc = vs_launch_word(argv, model ? model : "MODEL", err)) < 0)
        return rc;
    if (!model)
        vs_buf_puts(note, "the card names no model: MODEL stands for it");
    if (rev && (rc = vs_launch_flag(argv, "--revision", err, "%s", rev)) < 0)
        return rc;
    if ((rc = vs_launch_flag(argv, "--tensor-parallel-size", err, "%llu",
                             (unsigned long long)(e->tp ? e->tp : 1))) < 0)
        return rc;
    /* max_model_len comes from the card's length unless given */
    if (len && len->set)
        rc = vs_launch_flag(argv, "--max-model-len", err, "%llu", (unsigned long long)len->u);
    else if (e->length_known)
        rc = vs_launch_flag(argv, "--max-model-len", err, "%llu", (unsigned long long)e->length);
    if (rc < 0)
        return rc;
    /* the pool given has no flag in that release: a command without it would
     * size the pool from the utilisation, not as the sheet did, so none */
    if (mem && mem->set && vs_launch_release_of(&vs_launch_vllm, e) == &releases[0])
        return vs_error_set(err, VS_EVALUE,
                            "kv_cache_memory has no flag in vLLM 0.10.2's argument table "
                            "(--kv-cache-memory-bytes came with vllm-project/vllm#21489, not "
                            "placed before 0.10.2): the command could not give the pool the "
                            "sheet sizes; drop kv_cache_memory= (the pool is then "
                            "gpu_memory_utilization's) or name version=0.11.0");
    if (mem && mem->set) {
        /* the pool is given: vLLM then does not use the utilisation */
        if ((rc = vs_launch_flag(argv, "--kv-cache-memory-bytes", err, "%llu",
                                 (unsigned long long)mem->u)) < 0)
            return rc;
    } else if (u && u->set) {
        vs_launch_ppm(frac, sizeof frac, u->u);
        if ((rc = vs_launch_flag(argv, "--gpu-memory-utilization", err, "%s", frac)) < 0)
            return rc;
    }
    if (seqs && seqs->set &&
        (rc = vs_launch_flag(argv, "--max-num-seqs", err, "%llu", (unsigned long long)seqs->u)) < 0)
        return rc;
    if (dt && dt->word && strcmp(dt->word, "auto") &&
        (rc = vs_launch_flag(argv, "--kv-cache-dtype", err, "%s", dt->word)) < 0)
        return rc;
    if (eager && eager->set && eager->u &&
        (rc = vs_launch_flag(argv, "--enforce-eager", err, NULL)) < 0)
        return rc;
    if (in->off && (rc = vs_launch_flag(argv, "--cpu-offload-gb", err, "%llu",
                                        (unsigned long long)in->off->cpu_offload_gib)) < 0)
        return rc;
    return 0;
}

const vs_launch_rule vs_launch_vllm = {
    "vllm", "vllm serve MODEL", "version", releases, 0, "vllm", build, plan};
