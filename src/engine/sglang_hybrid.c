/* SGLang's separate pools for hybrid models (Mamba and linear-attention layers
 * beside attention): python/sglang/srt/model_executor/model_runner_kv_cache_mixin.py
 * (sgl-project/sglang at commit 001ccef, the 0.5 series) handle_max_mamba_cache and
 * init_memory.
 *
 * The memory left for caches is split: max_mamba_cache_size state slots (given, or
 * max_running_requests with the radix cache off, else as many as
 * rest x r / (1 + r) holds, r = mamba_full_memory_ratio, 0.9 by default in
 * server_args.py), each slot mamba_cache_per_req = the recurrent layers' conv
 * state in bf16 (mamba_utils.py CONV_DTYPE) and temporal state in mamba_ssm_dtype
 * (float32 by default), per rank; the attention layers' token pool takes the rest.
 * The requests running at once are at most max_mamba_cache_size // ratio, ratio 3
 * with the radix cache (MAMBA_CACHE_SIZE_MAX_RUNNING_REQUESTS_RATIO) and 1 without,
 * below max_num_reqs = min(max(tokens / context_len x 512, 2048), 4096). */
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/sglang_internal.h"

static uint64_t cdiv(uint64_t a, uint64_t b)
{
    return b ? (a + b - 1) / b : a;
}

uint64_t vs_sglang_state_per_req(const vs_engine_env *e)
{
    const vs_engine_val *d = vs_engine_get(e, "mamba_ssm_dtype");
    uint64_t ssm_bytes = d && d->word && !strcmp(d->word, "bfloat16") ? 2 : 4, sum = 0,
             tp = e->tp ? e->tp : 1;
    size_t i;
    if (!e->layout_known)
        return 0;
    for (i = 0; i < e->layout.n; i++) {
        const vs_kv_group *g = &e->layout.g[i];
        if (g->kind != VS_KV_STATE)
            continue;
        if (g->state_conv || g->state_ssm)
            sum += g->layers * (cdiv(g->state_conv, tp) * 2 + cdiv(g->state_ssm, tp) * ssm_bytes);
        else
            sum += g->layers * cdiv(g->state_bytes, tp);
    }
    return sum;
}

int vs_sglang_hybrid_kv(const vs_engine_env *e, uint64_t pool, unsigned bits, uint64_t per_req,
                        vs_engine_kv *out, vs_error *err)
{
    const vs_engine_val *mr = vs_engine_get(e, "mamba_full_memory_ratio"),
                        *ms = vs_engine_get(e, "max_mamba_cache_size"),
                        *nr = vs_engine_get(e, "disable_radix_cache"),
                        *rr = vs_engine_get(e, "max_running_requests");
    vs_engine_env a = *e;
    uint64_t slots, state, rest, ratio = nr->u ? 1 : 3, reqs, ctx;
    size_t i, n = 0;
    int rc;
    if (ms->set)
        slots = ms->u;
    else if (nr->u && rr->set)
        slots = rr->u;
    else /* rest x r / (1 + r), r in parts per million */
        slots = (uint64_t)((long double)pool * (long double)mr->u / (1e6L + (long double)mr->u) /
                           (long double)per_req);
    state = slots * per_req;
    rest = state < pool ? pool - state : 0;
    /* the attention layers alone share the token pool */
    for (i = 0; i < e->layout.n; i++)
        if (e->layout.g[i].kind != VS_KV_STATE)
            a.layout.g[n++] = e->layout.g[i];
    a.layout.n = n;
    if ((rc = vs_engine_token_kv(&a, rest, bits, 1, NULL, out, err)) < 0)
        return rc;
    if (out->need_known)
        out->need_bytes += e->concurrency * per_req;
    ctx = e->length_known && e->length ? e->length : 1;
    reqs = out->kv_tokens * 512 / ctx; /* int(max_total_num_tokens / context_len * 512) */
    reqs = reqs < 2048 ? 2048 : reqs > 4096 ? 4096 : reqs;
    if (rr->set && rr->u < reqs)
        reqs = rr->u;
    if (slots / ratio < reqs)
        reqs = slots / ratio;
    out->seq_limited = 1;
    out->seq_limit = reqs;
    if (out->max_concurrency > (double)reqs)
        out->max_concurrency = (double)reqs;
    snprintf(out->rule, sizeof out->rule,
             "hybrid pools: %llu state slots of %llu B (conv bf16, temporal %s) = %llu B, the "
             "attention token pool the rest; at most %llu requests at once (slots // %llu)",
             (unsigned long long)slots, (unsigned long long)per_req,
             vs_engine_get(e, "mamba_ssm_dtype")->word, (unsigned long long)state,
             (unsigned long long)reqs, (unsigned long long)ratio);
    return 0;
}
