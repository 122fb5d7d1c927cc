#include "model/gguf_arch.h"

#include <jansson.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- GGUF metadata -> KV layout ---- */

/* Adds one layer to the group of the same kind and shape, wherever it is. */
static int add_layer(vs_kv_layout *l, const vs_kv_group *g, vs_error *err)
{
    size_t i;
    for (i = 0; i < l->n; i++) {
        vs_kv_group *h = &l->g[i];
        if (h->kind == g->kind && h->kv_heads == g->kv_heads && h->head_dim == g->head_dim &&
            h->head_dim_v == g->head_dim_v && h->window == g->window && h->latent == g->latent &&
            h->state_bytes == g->state_bytes) {
            h->layers += g->layers;
            return 0;
        }
    }
    if (l->n >= VS_KV_GROUPS_MAX)
        return vs_error_set(err, VS_EVALUE,
                            "the GGUF metadata describes more than %d kinds of attention layer",
                            VS_KV_GROUPS_MAX);
    l->g[l->n++] = *g;
    return 0;
}

/* What llama.cpp's load_hparams fixes per architecture when the file has
 * no sliding_window_pattern key (set_swa_pattern(n)), the window it assumes
 * when the file has none, and the first layer that keeps no cache of its
 * own (n_layer_kv_from_start; 0 = every layer keeps one). */
typedef struct fixed {
    const char *arch;
    uint64_t pattern, window, kv_from;
    int dense_first;      /* set_swa_pattern(n, true): layer il slides unless il % n == 0 */
    int all;              /* every attention layer slides when the file has a window */
    int chunked;          /* the window is llama.cpp's LLAMA_SWA_TYPE_CHUNKED */
    uint64_t only_layers; /* the window only at this block_count (0: any) */
} fixed;

static const fixed fixed_archs[] = {
    {"gemma2", 2, 4096, 0, 0, 0, 0, 0}, /* "default value of gemma 2" */
    {"gemma3", 6, 0, 0, 0, 0, 0, 0},
    {"gemma3n", 5, 0, 20, 0, 0, 0, 0},
    {"cohere2", 4, 0, 0, 0, 0, 0, 0},
    {"olmo2", 4, 0, 0, 0, 0, 0, 0}, /* only with a window > 0 */
    /* src/models/<arch>.cpp at llama.cpp 0c1e570 (load_swa_pattern) */
    {"gpt-oss", 2, 0, 0, 0, 0, 0, 0}, /* openai-moe.cpp */
    {"cohere2moe", 4, 0, 0, 1, 0, 0, 0},
    {"exaone-moe", 4, 128, 0, 0, 0, 0, 0},
    {"afmoe", 4, 0, 0, 0, 0, 0, 0},
    {"laguna", 4, 0, 0, 1, 0, 0, 0},
    {"plamo3", 8, 0, 0, 0, 0, 0, 0},
    /* exaone4.cpp: the 64-layer (32B) model only, 4,096 tokens unless the file says */
    {"exaone4", 4, 4096, 0, 0, 0, 0, 64},
    /* lfm2.cpp: with sliding_window > 0 every attention (non-recurrent) layer slides */
    {"lfm2", 0, 0, 0, 0, 1, 0, 0},
    /* llama4.cpp: chunks of 8,192 on three layers of four unless sliding_window is 0 */
    {"llama4", 4, 8192, 0, 0, 0, 1, 0},
};

/* Which layers of a recurrent or hybrid architecture keep a recurrent state
 * (hparams.is_recr_impl in src/models/<arch>.cpp at llama.cpp 0c1e570), and
 * which keep attention cells (llama_model::create_memory's filter_attn). */
typedef enum {
    R_ALL = 1,  /* mamba.cpp, mamba2.cpp: every layer, no attention */
    R_KV0,      /* jamba, granite-hybrid, lfm2, lfm2moe: head_count_kv(il) == 0 */
    R_KV0_FF0,  /* nemotron-h: head_count_kv(il) == 0 and feed_forward_length(il) == 0;
                 * attention where neither is recurrent nor has an MLP */
    R_INTERVAL, /* qwen3next, qwen35, qwen35moe: attention.recurrent_layers, else
                 * (il + 1) % full_attention_interval != 0 (4 by default) */
    R_BOTH      /* falcon-h1: every layer both recurrent and attention */
} recr_rule;

static const struct recurrent {
    const char *arch;
    recr_rule rule;
} recurrent_archs[] = {
    {"mamba", R_ALL},          {"mamba2", R_ALL},
    {"jamba", R_KV0},          {"granitehybrid", R_KV0},
    {"lfm2", R_KV0},           {"lfm2moe", R_KV0},
    {"nemotron_h", R_KV0_FF0}, {"nemotron_h_moe", R_KV0_FF0},
    {"qwen3next", R_INTERVAL}, {"qwen35", R_INTERVAL},
    {"qwen35moe", R_INTERVAL}, {"falcon-h1", R_BOTH},
};

static recr_rule recurrent_for(const char *arch)
{
    size_t i;
    for (i = 0; i < sizeof recurrent_archs / sizeof recurrent_archs[0]; i++)
        if (!strcmp(arch, recurrent_archs[i].arch))
            return recurrent_archs[i].rule;
    return 0;
}

static uint64_t kv_heads_at(const vs_gguf_arch *a, uint64_t il)
{
    return a->head_count_kv_layers ? a->head_count_kv_layers[il]
           : a->head_count_kv      ? a->head_count_kv
                                   : a->head_count;
}

/* 1 when layer il keeps a recurrent state under rule r. */
static int is_recurrent(const vs_gguf_arch *a, recr_rule r, uint64_t il)
{
    uint64_t ff = a->feed_forward_layers ? a->feed_forward_layers[il] : a->feed_forward_length,
             every = a->full_attention_interval ? a->full_attention_interval : 4;
    switch (r) {
    case R_ALL:
    case R_BOTH:
        return 1;
    case R_KV0:
        return kv_heads_at(a, il) == 0;
    case R_KV0_FF0:
        return kv_heads_at(a, il) == 0 && ff == 0;
    case R_INTERVAL:
        return a->recurrent_layers ? a->recurrent_layers[il] != 0 : (il + 1) % every != 0;
    }
    return 0;
}

/* A recurrent layer's two rows per sequence, in values (llama_hparams::n_embd_r
 * and n_embd_s, src/llama-hparams.cpp at 0c1e570): the convolution's
 * (d_conv - 1) x (d_inner + 2 x n_group x d_state), or LFM2's n_embd x
 * (l_cache - 1); the state's d_state x d_inner. llama.cpp keeps both in F32
 * (create_memory's recurrent_type_r / _s), one row per sequence. */
static int state_group(vs_kv_group *g, const vs_gguf_arch *a, vs_error *err)
{
    uint64_t r, s;
    memset(g, 0, sizeof *g);
    if (a->shortconv_l_cache)
        r = a->embedding_length * (a->shortconv_l_cache - 1);
    else
        r = (a->ssm_conv_kernel ? a->ssm_conv_kernel - 1 : 0) *
            (a->ssm_inner_size + 2 * a->ssm_group_count * a->ssm_state_size);
    s = a->ssm_state_size * a->ssm_inner_size;
    if (!r && !s)
        return vs_error_set(err, VS_EVALUE,
                            "%s has recurrent layers but the GGUF metadata gives no state size "
                            "(%s.ssm.conv_kernel, ssm.inner_size, ssm.state_size, or "
                            "shortconv.l_cache)",
                            a->name, a->name);
    g->kind = VS_KV_STATE;
    g->layers = 1;
    g->state_conv = r;
    g->state_ssm = s;
    g->state_bytes = 4 * (r + s);
    return 0;
}

static const fixed *fixed_for(const char *arch)
{
    size_t i;
    for (i = 0; i < sizeof fixed_archs / sizeof fixed_archs[0]; i++)
        if (!strcmp(arch, fixed_archs[i].arch))
            return &fixed_archs[i];
    return NULL;
}

int vs_gguf_arch_kv_layout(vs_kv_layout *out, const vs_gguf_arch *a, vs_error *err)
{
    uint64_t L = a->block_count, il, pattern = a->sliding_window_pattern;
    uint64_t hd, hdv, window = a->sliding_window, kv_from = 0;
    int has_pattern = a->sliding_window_layers || pattern;
    const fixed *fx = fixed_for(a->name);
    recr_rule rr = recurrent_for(a->name);
    vs_kv_layout l;
    memset(&l, 0, sizeof l);
    memset(out, 0, sizeof *out);
    if (!L)
        return vs_error_set(err, VS_EFORMAT, "the GGUF metadata has no %s.block_count",
                            a->name[0] ? a->name : "<arch>");
    if (L > VS_GGUF_ARCH_LAYERS_MAX) /* the layers are walked one by one below */
        return vs_error_set(err, VS_EFORMAT,
                            "%s.block_count %llu is not a model's (llama.cpp loads at most "
                            "LLAMA_MAX_LAYERS = 512)",
                            a->name, (unsigned long long)L);
    if (a->kv_lora_rank) {
        vs_kv_group g;
        memset(&g, 0, sizeof g);
        if (!a->rope_dimension_count)
            return vs_error_set(err, VS_EVALUE,
                                "%s.attention.kv_lora_rank is set but %s.rope.dimension_count "
                                "is not: the latent size cannot be told",
                                a->name, a->name);
        g.kind = VS_KV_LATENT;
        g.layers = L;
        g.latent = a->kv_lora_rank + a->rope_dimension_count;
        return vs_kv_layout_add(out, &g, err);
    }
    if (a->head_count_kv_layers && a->n_head_count_kv_layers != L)
        return vs_error_set(err, VS_EFORMAT,
                            "%s.attention.head_count_kv holds %zu values for %llu layers", a->name,
                            a->n_head_count_kv_layers, (unsigned long long)L);
    if (a->sliding_window_layers && a->n_sliding_window_layers != L)
        return vs_error_set(err, VS_EFORMAT,
                            "%s.attention.sliding_window_pattern holds %zu values for %llu layers",
                            a->name, a->n_sliding_window_layers, (unsigned long long)L);
    if (a->feed_forward_layers && a->n_feed_forward_layers != L)
        return vs_error_set(err, VS_EFORMAT,
                            "%s.feed_forward_length holds %zu values for %llu layers", a->name,
                            a->n_feed_forward_layers, (unsigned long long)L);
    if (a->recurrent_layers && a->n_recurrent_layers < L)
        return vs_error_set(err, VS_EFORMAT,
                            "%s.attention.recurrent_layers holds %zu values for %llu layers",
                            a->name, a->n_recurrent_layers, (unsigned long long)L);
    hd = a->key_length;
    if (!hd && rr == R_ALL)
        hd = 1; /* no attention: no head size needed */
    if (!hd) {
        if (!a->embedding_length || !a->head_count || a->embedding_length % a->head_count)
            return vs_error_set(err, VS_EVALUE,
                                "the GGUF metadata has no %s.attention.key_length, and "
                                "embedding_length / head_count does not give one",
                                a->name);
        hd = a->embedding_length / a->head_count;
    }
    hdv = a->value_length ? a->value_length : hd;
    if (fx) {
        if (fx->only_layers && L != fx->only_layers)
            window = 0; /* exaone4: no window at other sizes */
        else if (fx->chunked && a->has_sliding_window && !window)
            window = 0; /* llama4: sliding_window 0 turns the chunks off */
        else if (!window)
            window = fx->window;
        if (!has_pattern && window)
            pattern = fx->pattern;
        kv_from = fx->kv_from < L ? fx->kv_from : 0;
    }
    for (il = 0; il < L; il++) {
        vs_kv_group g;
        uint64_t kvh = kv_heads_at(a, il);
        int sliding = 0, recr = rr ? is_recurrent(a, rr, il) : 0;
        int rc;
        memset(&g, 0, sizeof g);
        if (recr) {
            if ((rc = state_group(&g, a, err)) || (rc = add_layer(&l, &g, err)))
                return rc;
            memset(&g, 0, sizeof g);
            if (rr != R_BOTH)
                continue; /* no attention cells: filter_attn leaves the layer out */
        }
        if (window) {
            if (a->sliding_window_layers)
                sliding = a->sliding_window_layers[il] != 0;
            else if (fx && fx->all)
                sliding = 1;
            else if (fx && fx->dense_first)
                sliding = pattern == 0 || il % pattern != 0;
            else if (has_pattern || pattern)
                sliding = pattern == 0 || il % pattern < pattern - 1;
        }
        g.layers = 1;
        if (!kvh || (kv_from && il >= kv_from)) {
            g.kind = VS_KV_NONE; /* no heads, or reusing an earlier layer's cache */
        } else {
            g.kind = sliding ? (fx && fx->chunked ? VS_KV_CHUNKED : VS_KV_SLIDING) : VS_KV_FULL;
            g.kv_heads = kvh;
            g.head_dim = hd;
            g.head_dim_v = hdv == hd ? 0 : hdv;
            g.window = sliding ? window : 0;
        }
        if ((rc = add_layer(&l, &g, err)))
            return rc;
    }
    *out = l;
    return 0;
}

/* ---- family tensor list -> GGUF tensor list ---- */

typedef struct conv {
    const vs_arch *a;
    vs_gguf_quant_tensor *t;
    size_t n, cap;
    int rc;
    vs_error *err;
} conv;

static int push(conv *c, const char *name, unsigned nd, uint64_t d0, uint64_t d1, uint64_t d2)
{
    vs_gguf_quant_tensor *x;
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 256;
        vs_gguf_quant_tensor *t = realloc(c->t, cap * sizeof *t);
        if (!t)
            return vs_error_set(c->err, VS_ENOMEM, "out of memory");
        c->t = t;
        c->cap = cap;
    }
    x = &c->t[c->n];
    memset(x, 0, sizeof *x);
    if (!(x->name = strdup(name)))
        return vs_error_set(c->err, VS_ENOMEM, "out of memory");
    x->ndims = nd;
    x->shape[0] = d0;
    x->shape[1] = nd > 1 ? d1 : 1;
    x->shape[2] = nd > 2 ? d2 : 1;
    x->shape[3] = 1;
    c->n++;
    return 0;
}

/* Hugging Face names inside a layer -> convert_hf_to_gguf.py's (gguf-py
 * tensor_mapping.py). */
static const struct {
    const char *hf, *gguf;
} per_layer[] = {
    {"input_layernorm.weight", "attn_norm.weight"},
    {"pre_feedforward_layernorm.weight", "ffn_norm.weight"},
    {"post_feedforward_layernorm.weight", "post_ffw_norm.weight"},
    {"self_attn.q_proj.weight", "attn_q.weight"},
    {"self_attn.q_proj.bias", "attn_q.bias"},
    {"self_attn.k_proj.weight", "attn_k.weight"},
    {"self_attn.k_proj.bias", "attn_k.bias"},
    {"self_attn.v_proj.weight", "attn_v.weight"},
    {"self_attn.v_proj.bias", "attn_v.bias"},
    {"self_attn.o_proj.weight", "attn_output.weight"},
    {"self_attn.o_proj.bias", "attn_output.bias"},
    {"self_attn.qkv_proj.weight", "attn_qkv.weight"},
    {"self_attn.q_norm.weight", "attn_q_norm.weight"},
    {"self_attn.k_norm.weight", "attn_k_norm.weight"},
    {"self_attn.q_a_proj.weight", "attn_q_a.weight"},
    {"self_attn.q_a_layernorm.weight", "attn_q_a_norm.weight"},
    {"self_attn.q_b_proj.weight", "attn_q_b.weight"},
    {"self_attn.kv_a_proj_with_mqa.weight", "attn_kv_a_mqa.weight"},
    {"self_attn.kv_a_layernorm.weight", "attn_kv_a_norm.weight"},
    {"mlp.gate_proj.weight", "ffn_gate.weight"},
    {"mlp.up_proj.weight", "ffn_up.weight"},
    {"mlp.down_proj.weight", "ffn_down.weight"},
    {"mlp.gate_up_proj.weight", "ffn_up.weight"},
    {"mlp.gate.weight", "ffn_gate_inp.weight"},
    {"block_sparse_moe.gate.weight", "ffn_gate_inp.weight"},
    {"mlp.gate.e_score_correction_bias", "exp_probs_b.bias"},
    {"mlp.shared_expert.gate_proj.weight", "ffn_gate_shexp.weight"},
    {"mlp.shared_expert.up_proj.weight", "ffn_up_shexp.weight"},
    {"mlp.shared_expert.down_proj.weight", "ffn_down_shexp.weight"},
    {"mlp.shared_experts.gate_proj.weight", "ffn_gate_shexp.weight"},
    {"mlp.shared_experts.up_proj.weight", "ffn_up_shexp.weight"},
    {"mlp.shared_experts.down_proj.weight", "ffn_down_shexp.weight"},
    {"mlp.shared_expert_gate.weight", "ffn_gate_inp_shexp.weight"},
};

/* Routed experts: "mlp.experts.{E}.gate_proj.weight" and Mixtral's
 * "block_sparse_moe.experts.{E}.w1.weight", merged into one tensor. */
static const struct {
    const char *hf, *gguf;
} experts[] = {
    {"gate_proj.weight", "ffn_gate_exps.weight"}, {"up_proj.weight", "ffn_up_exps.weight"},
    {"down_proj.weight", "ffn_down_exps.weight"}, {"w1.weight", "ffn_gate_exps.weight"},
    {"w3.weight", "ffn_up_exps.weight"},          {"w2.weight", "ffn_down_exps.weight"},
};

/* gpt-oss (LLM_ARCH_OPENAI_MOE): convert_hf_to_gguf.py's GptOssModel writes the
 * sinks as attn_sinks, the router as ffn_gate_inp (weight and bias), the
 * post-attention norm as post_attention_norm, and splits the fused experts:
 * gate_up_proj [E, hidden, 2 x ff] into ffn_gate_exps and ffn_up_exps
 * {hidden, ff, E}, their bias [E, 2 x ff] into ffn_gate_exps.bias and
 * ffn_up_exps.bias {ff, E}, down_proj [E, ff, hidden] as ffn_down_exps
 * {ff, hidden, E} (gguf-py tensor_mapping.py). 1 when rest is none of these. */
static int gpt_oss_tensor(conv *c, unsigned long long layer, const char *rest, const vs_tensor *t)
{
    char out[128];
    int rc;
    if (!strcmp(rest, "self_attn.sinks")) {
        snprintf(out, sizeof out, "blk.%llu.attn_sinks.weight", layer);
        return push(c, out, 1, t->shape[0], 1, 1);
    }
    if (!strcmp(rest, "post_attention_layernorm.weight")) {
        snprintf(out, sizeof out, "blk.%llu.post_attention_norm.weight", layer);
        return push(c, out, 1, t->shape[0], 1, 1);
    }
    if (!strcmp(rest, "mlp.router.weight")) {
        snprintf(out, sizeof out, "blk.%llu.ffn_gate_inp.weight", layer);
        return push(c, out, 2, t->shape[1], t->shape[0], 1);
    }
    if (!strcmp(rest, "mlp.router.bias")) {
        snprintf(out, sizeof out, "blk.%llu.ffn_gate_inp.bias", layer);
        return push(c, out, 1, t->shape[0], 1, 1);
    }
    if (!strcmp(rest, "mlp.experts.gate_up_proj") && t->ndims == 3) {
        snprintf(out, sizeof out, "blk.%llu.ffn_gate_exps.weight", layer);
        if ((rc = push(c, out, 3, t->shape[1], t->shape[2] / 2, t->shape[0])))
            return rc;
        snprintf(out, sizeof out, "blk.%llu.ffn_up_exps.weight", layer);
        return push(c, out, 3, t->shape[1], t->shape[2] / 2, t->shape[0]);
    }
    if (!strcmp(rest, "mlp.experts.gate_up_proj_bias") && t->ndims == 2) {
        snprintf(out, sizeof out, "blk.%llu.ffn_gate_exps.bias", layer);
        if ((rc = push(c, out, 2, t->shape[1] / 2, t->shape[0], 1)))
            return rc;
        snprintf(out, sizeof out, "blk.%llu.ffn_up_exps.bias", layer);
        return push(c, out, 2, t->shape[1] / 2, t->shape[0], 1);
    }
    if (!strcmp(rest, "mlp.experts.down_proj") && t->ndims == 3) {
        snprintf(out, sizeof out, "blk.%llu.ffn_down_exps.weight", layer);
        return push(c, out, 3, t->shape[1], t->shape[2], t->shape[0]);
    }
    if (!strcmp(rest, "mlp.experts.down_proj_bias") && t->ndims == 2) {
        snprintf(out, sizeof out, "blk.%llu.ffn_down_exps.bias", layer);
        return push(c, out, 2, t->shape[1], t->shape[0], 1);
    }
    return 1;
}

static int is_gemma(const vs_arch *a)
{
    return !strncmp(a->family, "gemma", 5);
}

static int conv_one(void *ud, const vs_tensor *t)
{
    conv *c = ud;
    const vs_arch *a = c->a;
    const char *n = t->name, *p;
    char out[128];
    unsigned long long layer;
    int used = 0;
    size_t i;
    /* HF [out, in] -> ggml ne {in, out} */
    uint64_t d0 = t->ndims >= 2 ? t->shape[t->ndims - 1] : t->shape[0];
    uint64_t d1 = t->ndims >= 2 ? t->shape[t->ndims - 2] : 1;
    if (t->part != VS_PART_TEXT)
        return 0;
    if ((p = strstr(n, "model.layers.")) && sscanf(p, "model.layers.%llu.%n", &layer, &used) == 1 &&
        used > 0) {
        const char *rest = p + used, *e;
        if (!strcmp(rest, "post_attention_layernorm.weight")) {
            snprintf(out, sizeof out, "blk.%llu.%s", layer,
                     is_gemma(a) ? "post_attention_norm.weight" : "ffn_norm.weight");
            return push(c, out, 1, d0, 1, 1);
        }
        if (!strcmp(rest, "self_attn.kv_b_proj.weight")) {
            /* split for MLA's absorption: k_b transposed, {nope, kv_lora, heads},
             * v_b {kv_lora, v_head, heads} */
            int rc;
            snprintf(out, sizeof out, "blk.%llu.attn_k_b.weight", layer);
            if ((rc = push(c, out, 3, a->nope_dim, a->kv_lora_rank, a->heads)))
                return rc;
            snprintf(out, sizeof out, "blk.%llu.attn_v_b.weight", layer);
            return push(c, out, 3, a->kv_lora_rank, a->head_dim_v, a->heads);
        }
        if (!strcmp(a->family, "gpt_oss")) {
            int rc = gpt_oss_tensor(c, layer, rest, t);
            if (rc <= 0)
                return rc;
        }
        for (i = 0; i < sizeof per_layer / sizeof per_layer[0]; i++)
            if (!strcmp(rest, per_layer[i].hf)) {
                snprintf(out, sizeof out, "blk.%llu.%s", layer, per_layer[i].gguf);
                return push(c, out, t->ndims >= 2 ? 2 : 1, d0, d1, 1);
            }
        if ((!strncmp(rest, "mlp.experts.", 12) && (e = rest + 12)) ||
            (!strncmp(rest, "block_sparse_moe.experts.", 25) && (e = rest + 25))) {
            unsigned long long x;
            int u = 0;
            if (sscanf(e, "%llu.%n", &x, &u) == 1 && u > 0) {
                for (i = 0; i < sizeof experts / sizeof experts[0]; i++)
                    if (!strcmp(e + u, experts[i].hf)) {
                        if (x != 0)
                            return 0; /* merged into expert 0's entry */
                        snprintf(out, sizeof out, "blk.%llu.%s", layer, experts[i].gguf);
                        return push(c, out, 3, d0, d1, a->experts);
                    }
            }
        }
    } else {
        size_t len = strlen(n);
        if (len >= 25 && !strcmp(n + len - 25, "model.embed_tokens.weight"))
            return push(c, "token_embd.weight", 2, d0, d1, 1);
        if (len >= 17 && !strcmp(n + len - 17, "model.norm.weight"))
            return push(c, "output_norm.weight", 1, d0, 1, 1);
        if (len >= 14 && !strcmp(n + len - 14, "lm_head.weight"))
            return push(c, "output.weight", 2, d0, d1, 1);
    }
    return vs_error_set(c->err, VS_EVALUE,
                        "the %s tensor list is not mapped to GGUF names here (no name for %s); "
                        "`formats` with a GGUF type (q4_k) gives a uniform figure",
                        a->family, n);
}

int vs_gguf_arch_from_family(const vs_arch *a, vs_gguf_quant_tensor **out, size_t *n, vs_error *err)
{
    return vs_gguf_arch_from_config(a, NULL, out, n, err);
}

/* rope_scaling's type ("rope_type", or "type" in older configs), or NULL */
static const char *rope_type(const json_t *cfg)
{
    const json_t *rs = json_object_get(cfg, "rope_scaling");
    const char *t = json_string_value(json_object_get(rs, "rope_type"));
    return t ? t : json_string_value(json_object_get(rs, "type"));
}

int vs_gguf_arch_from_config(const vs_arch *a, const json_t *cfg, vs_gguf_quant_tensor **out,
                             size_t *n, vs_error *err)
{
    conv c;
    int rc;
    memset(&c, 0, sizeof c);
    c.a = a;
    c.err = err;
    *out = NULL;
    *n = 0;
    if (!a->fam)
        return vs_error_set(err, VS_EVALUE, "the architecture has no family tensor list");
    if ((rc = vs_family_tensors(a, conv_one, &c))) {
        vs_gguf_quant_list_free(c.t, c.n);
        return rc;
    }
    /* Llama 3.1's rope scaling: convert_hf_to_gguf.py's LlamaModel
     * generate_extra_tensors writes rope_freqs.weight, one F32 factor per
     * rotary pair (head_dim / 2), when rope_scaling's type is llama3 */
    {
        const char *rt = rope_type(cfg);
        if (rt && !strcmp(rt, "llama3") && a->head_dim &&
            (rc = push(&c, "rope_freqs.weight", 1, a->head_dim / 2, 1, 1))) {
            vs_gguf_quant_list_free(c.t, c.n);
            return rc;
        }
    }
    *out = c.t;
    *n = c.n;
    return 0;
}

void vs_gguf_arch_llq_model(vs_gguf_quant_model *m, const vs_arch *a)
{
    memset(m, 0, sizeof *m);
    m->n_layer = (unsigned)a->layers;
    m->n_head = (unsigned)a->heads;
    m->n_head_kv = (unsigned)(a->kv_heads ? a->kv_heads : a->heads);
    m->n_expert = (unsigned)a->experts;
    m->falcon = !strcmp(a->family, "falcon");
    /* llama-model.cpp, LLM_ARCH_LLAMA: 80 layers are LLM_TYPE_70B with grouped
     * KV heads (LLM_TYPE_65B without); Mistral and Mixtral convert as llama */
    m->type_70b = (!strcmp(a->family, "llama") || !strcmp(a->family, "mistral") ||
                   !strcmp(a->family, "mixtral")) &&
                  a->layers == 80 && m->n_head_kv != m->n_head;
}
