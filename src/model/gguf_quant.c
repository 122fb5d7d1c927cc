#include "model/gguf_quant.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/checked.h"

/* llama_ftype numbers (include/llama.h) */
enum {
    FT_F32 = 0,
    FT_F16 = 1,
    FT_Q4_0 = 2,
    FT_Q4_1 = 3,
    FT_Q8_0 = 7,
    FT_Q5_0 = 8,
    FT_Q5_1 = 9,
    FT_Q2_K = 10,
    FT_Q3_K_S = 11,
    FT_Q3_K_M = 12,
    FT_Q3_K_L = 13,
    FT_Q4_K_S = 14,
    FT_Q4_K_M = 15,
    FT_Q5_K_S = 16,
    FT_Q5_K_M = 17,
    FT_Q6_K = 18,
    FT_IQ2_XXS = 19,
    FT_IQ2_XS = 20,
    FT_Q2_K_S = 21,
    FT_IQ3_XS = 22,
    FT_IQ3_XXS = 23,
    FT_IQ1_S = 24,
    FT_IQ4_NL = 25,
    FT_IQ3_S = 26,
    FT_IQ3_M = 27,
    FT_IQ2_S = 28,
    FT_IQ2_M = 29,
    FT_IQ4_XS = 30,
    FT_IQ1_M = 31,
    FT_BF16 = 32,
    FT_TQ1_0 = 36,
    FT_TQ2_0 = 37,
    FT_MXFP4_MOE = 38,
    FT_NVFP4 = 39,
    FT_Q1_0 = 40,
    FT_Q2_0 = 41
};

/* ggml type numbers */
enum {
    T_F32 = 0,
    T_F16 = 1,
    T_Q4_0 = 2,
    T_Q4_1 = 3,
    T_Q5_0 = 6,
    T_Q5_1 = 7,
    T_Q8_0 = 8,
    T_Q2_K = 10,
    T_Q3_K = 11,
    T_Q4_K = 12,
    T_Q5_K = 13,
    T_Q6_K = 14,
    T_IQ2_XXS = 16,
    T_IQ2_XS = 17,
    T_IQ3_XXS = 18,
    T_IQ1_S = 19,
    T_IQ4_NL = 20,
    T_IQ3_S = 21,
    T_IQ2_S = 22,
    T_IQ4_XS = 23,
    T_IQ1_M = 29,
    T_BF16 = 30,
    T_TQ1_0 = 34,
    T_TQ2_0 = 35,
    T_MXFP4 = 39,
    T_NVFP4 = 40,
    T_Q1_0 = 41,
    T_Q2_0 = 42
};

/* llama_ftype_get_default_type */
static int default_type(int ft)
{
    switch (ft) {
    case FT_Q4_0:
        return T_Q4_0;
    case FT_Q4_1:
        return T_Q4_1;
    case FT_Q5_0:
        return T_Q5_0;
    case FT_Q5_1:
        return T_Q5_1;
    case FT_Q8_0:
        return T_Q8_0;
    case FT_F16:
        return T_F16;
    case FT_BF16:
        return T_BF16;
    case FT_F32:
        return T_F32;
    case FT_Q1_0:
        return T_Q1_0;
    case FT_Q2_0:
        return T_Q2_0;
    case FT_MXFP4_MOE:
        return T_MXFP4;
    case FT_NVFP4:
        return T_NVFP4;
    case FT_Q2_K_S:
    case FT_Q2_K:
        return T_Q2_K;
    case FT_IQ3_XS:
        return T_IQ3_S;
    case FT_Q3_K_S:
    case FT_Q3_K_M:
    case FT_Q3_K_L:
        return T_Q3_K;
    case FT_Q4_K_S:
    case FT_Q4_K_M:
        return T_Q4_K;
    case FT_Q5_K_S:
    case FT_Q5_K_M:
        return T_Q5_K;
    case FT_Q6_K:
        return T_Q6_K;
    case FT_TQ1_0:
        return T_TQ1_0;
    case FT_TQ2_0:
        return T_TQ2_0;
    case FT_IQ2_XXS:
        return T_IQ2_XXS;
    case FT_IQ2_XS:
        return T_IQ2_XS;
    case FT_IQ2_S:
        return T_IQ2_XS;
    case FT_IQ2_M:
        return T_IQ2_S;
    case FT_IQ3_XXS:
        return T_IQ3_XXS;
    case FT_IQ1_S:
        return T_IQ1_S;
    case FT_IQ1_M:
        return T_IQ1_M;
    case FT_IQ4_NL:
        return T_IQ4_NL;
    case FT_IQ4_XS:
        return T_IQ4_XS;
    case FT_IQ3_S:
    case FT_IQ3_M:
        return T_IQ3_S;
    default:
        return -1;
    }
}

const vs_gguf_type *vs_gguf_quant_default_type(int ftype)
{
    int t = default_type(ftype);
    return t < 0 ? NULL : vs_gguf_type_by_id((uint32_t)t);
}

static int is_quantized(int t)
{
    return t != T_F32 && t != T_F16 && t != T_BF16 && t != 24 && t != 25 && t != 26 && t != 27 &&
           t != 28;
}

enum cat {
    C_TOKEN_EMBD,
    C_Q,
    C_V,
    C_K,
    C_QKV,
    C_KV_B,
    C_OUT,
    C_UP,
    C_GATE,
    C_DOWN,
    C_OUTPUT,
    C_OTHER
};

static int has(const char *s, const char *part)
{
    return strstr(s, part) != NULL;
}

/* tensor_get_category */
static enum cat category(const char *n)
{
    if (!strcmp(n, "output.weight"))
        return C_OUTPUT;
    if (!strcmp(n, "token_embd.weight") || !strcmp(n, "per_layer_token_embd.weight"))
        return C_TOKEN_EMBD;
    if (has(n, "attn_qkv.weight"))
        return C_QKV;
    if (has(n, "attn_kv_b.weight"))
        return C_KV_B;
    if (has(n, "attn_v.weight"))
        return C_V;
    if (has(n, "attn_k.weight"))
        return C_K;
    if (has(n, "attn_q.weight"))
        return C_Q;
    if (has(n, "attn_output.weight"))
        return C_OUT;
    if (has(n, "ffn_up"))
        return C_UP;
    if (has(n, "ffn_gate"))
        return C_GATE;
    if (has(n, "ffn_down"))
        return C_DOWN;
    return C_OTHER;
}

static int is_attn_v(enum cat c)
{
    return c == C_V || c == C_QKV || c == C_KV_B;
}

/* tensor_allows_quantization (the name tests; positional embeddings and
 * token types by their convert_hf_to_gguf.py names) */
static int allows_quantization(const vs_gguf_quant_tensor *t)
{
    static const char *const never[] = {"_norm.weight",
                                        "ffn_gate_inp.weight",
                                        "ffn_gate_tid2eid.weight",
                                        "altup",
                                        "laurel",
                                        "per_layer_model_proj",
                                        "ssm_conv1d",
                                        "shortconv.conv.weight",
                                        "indexer.k_proj.weight",
                                        "indexer.q_proj.weight",
                                        "time_mix_first.weight",
                                        "time_mix_w0.weight",
                                        "time_mix_w1.weight",
                                        "time_mix_w2.weight",
                                        "time_mix_v0.weight",
                                        "time_mix_v1.weight",
                                        "time_mix_v2.weight",
                                        "time_mix_a0.weight",
                                        "time_mix_a1.weight",
                                        "time_mix_a2.weight",
                                        "time_mix_g1.weight",
                                        "time_mix_g2.weight",
                                        "time_mix_decay_w1.weight",
                                        "time_mix_decay_w2.weight",
                                        "time_mix_lerp_fused.weight",
                                        "attn_rel_b.weight",
                                        ".position_embd",
                                        "sam.pos_embd",
                                        "sam.neck.",
                                        "sam.net_",
                                        ".rel_pos",
                                        ".patch_embd",
                                        ".patch_merger",
                                        "a.rvq.codebook",
                                        "mm.a.code_embd"};
    size_t len = strlen(t->name), i;
    unsigned dims = t->ndims;
    while (dims > 1 && t->shape[dims - 1] == 1) /* ggml_n_dims */
        dims--;
    if (dims < 2)
        return 0;
    if (len < 6 || strcmp(t->name + len - 6, "weight"))
        return 0;
    for (i = 0; i < sizeof never / sizeof never[0]; i++)
        if (has(t->name, never[i]))
            return 0;
    if (!strcmp(t->name, "position_embd.weight") || !strcmp(t->name, "token_types.weight"))
        return 0;
    return 1;
}

typedef struct state {
    const vs_gguf_quant_model *m;
    int n_attention_wv, i_attention_wv;
    int n_ffn_down, n_ffn_gate, n_ffn_up, i_ffn_down, i_ffn_gate, i_ffn_up;
    int tied;
    unsigned n_gqa;
} state;

static int use_more_bits(int i_layer, int n_layers)
{
    return i_layer < n_layers / 8 || i_layer >= 7 * n_layers / 8 ||
           (i_layer - n_layers / 8) % 3 == 2;
}

static int layer_of(const char *name)
{
    int l = -1;
    if (sscanf(name, "blk.%d.", &l) != 1)
        return -1;
    return l;
}

static int blck(int type)
{
    const vs_gguf_type *t = vs_gguf_type_by_id((uint32_t)type);
    return t ? (int)t->block : 1;
}

#define IS(f) (ft == (f))

/* llama_tensor_get_type_impl */
static int get_type_impl(state *qs, int new_type, const vs_gguf_quant_tensor *t, int ft, enum cat c,
                         int *bad_layer)
{
    const vs_gguf_quant_model *m = qs->m;
    const int n_expert = m->n_expert > 1 ? (int)m->n_expert : 1;
    const int falcon = m->falcon;
    int i_layer, n_layer;

#define LAYER_INFO(counter, total)                                                                 \
    do {                                                                                           \
        i_layer = (counter);                                                                       \
        n_layer = (total);                                                                         \
        if (n_expert > 1) {                                                                        \
            i_layer = layer_of(t->name);                                                           \
            if (i_layer < 0 || i_layer >= n_layer) {                                               \
                *bad_layer = 1;                                                                    \
                return new_type;                                                                   \
            }                                                                                      \
        }                                                                                          \
    } while (0)

    if (c == C_OUTPUT || (qs->tied && c == C_TOKEN_EMBD)) {
        const uint64_t nx = t->shape[0];
        const int qk_k = blck(new_type);
        if (IS(FT_MXFP4_MOE))
            new_type = T_Q8_0;
        else if (falcon || nx % (uint64_t)qk_k != 0)
            new_type = T_Q8_0;
        else if (IS(FT_IQ2_XXS) || IS(FT_IQ2_XS) || IS(FT_IQ3_XXS) || IS(FT_IQ1_S) ||
                 IS(FT_IQ2_S) || IS(FT_IQ2_M) || IS(FT_IQ1_M))
            new_type = T_Q5_K;
        else if (new_type != T_Q8_0)
            new_type = T_Q6_K;
    } else if (IS(FT_MXFP4_MOE)) {
        new_type = t->ndims >= 3 && t->shape[2] > 1 ? T_MXFP4 : T_Q8_0;
    } else if (c == C_TOKEN_EMBD) {
        if (IS(FT_IQ2_XXS) || IS(FT_IQ2_XS) || IS(FT_IQ1_S) || IS(FT_IQ1_M))
            new_type = T_Q2_K;
        else if (IS(FT_IQ2_S) || IS(FT_IQ2_M))
            new_type = T_IQ3_S;
        else if (IS(FT_IQ3_XXS))
            new_type = T_IQ3_S;
        else if (IS(FT_TQ1_0) || IS(FT_TQ2_0) || IS(FT_Q2_0))
            new_type = T_Q4_K;
    } else if (IS(FT_IQ2_XXS) || IS(FT_IQ2_XS) || IS(FT_IQ1_S) || IS(FT_IQ2_S) || IS(FT_IQ2_M) ||
               IS(FT_IQ1_M)) {
        if (is_attn_v(c)) {
            if (qs->n_gqa >= 4 || m->n_expert >= 4)
                new_type = T_Q4_K;
            else
                new_type = IS(FT_IQ2_S) || IS(FT_IQ2_M) ? T_IQ3_S : T_Q2_K;
            ++qs->i_attention_wv;
        } else if (m->n_expert == 8 && c == C_K) {
            new_type = T_Q4_K;
        } else if (c == C_DOWN) {
            if (qs->i_ffn_down < qs->n_ffn_down / 8)
                new_type = IS(FT_IQ2_S) || IS(FT_IQ2_M) ? T_IQ3_S : T_Q2_K;
            ++qs->i_ffn_down;
        } else if (c == C_OUT) {
            if (m->n_expert == 8)
                new_type = T_Q5_K;
            else if (IS(FT_IQ1_S) || IS(FT_IQ1_M))
                new_type = T_IQ2_XXS;
            else if (IS(FT_IQ2_S) || IS(FT_IQ2_M))
                new_type = T_IQ3_S;
        }
    } else if (is_attn_v(c)) {
        if (IS(FT_Q2_K))
            new_type = qs->n_gqa >= 4 ? T_Q4_K : T_Q3_K;
        else if (IS(FT_Q2_K_S) && qs->n_gqa >= 4)
            new_type = T_Q4_K;
        else if (IS(FT_IQ3_XXS))
            new_type = qs->n_gqa >= 4 ? T_Q4_K : !m->has_imatrix ? T_IQ3_S : T_IQ3_XXS;
        else if ((IS(FT_IQ3_XS) || IS(FT_IQ3_S)) && qs->n_gqa >= 4)
            new_type = T_Q4_K;
        else if (IS(FT_IQ3_M))
            new_type = T_Q4_K;
        else if (IS(FT_Q3_K_M))
            new_type = qs->i_attention_wv < 2 ? T_Q5_K : T_Q4_K;
        else if (IS(FT_Q3_K_L))
            new_type = T_Q5_K;
        else if ((IS(FT_IQ4_NL) || IS(FT_IQ4_XS)) && qs->n_gqa >= 4)
            new_type = T_Q5_K;
        else if ((IS(FT_Q4_K_M) || IS(FT_Q5_K_M)) &&
                 use_more_bits(qs->i_attention_wv, qs->n_attention_wv))
            new_type = T_Q6_K;
        else if (IS(FT_Q4_K_S) && qs->i_attention_wv < 4)
            new_type = T_Q5_K;
        if (m->type_70b && (new_type == T_Q3_K || new_type == T_Q4_K))
            new_type = T_Q5_K;
        if (m->n_expert == 8)
            new_type = T_Q8_0;
        ++qs->i_attention_wv;
    } else if (c == C_K) {
        if (m->n_expert == 8)
            new_type = T_Q8_0;
        else if (IS(FT_IQ3_XS))
            new_type = T_IQ3_XXS;
        else if (IS(FT_IQ3_XXS))
            new_type = T_IQ2_S;
    } else if (c == C_Q) {
        if (IS(FT_IQ3_XS))
            new_type = T_IQ3_XXS;
        else if (IS(FT_IQ3_XXS))
            new_type = T_IQ2_S;
    } else if (c == C_DOWN) {
        LAYER_INFO(qs->i_ffn_down, qs->n_ffn_down);
        if (IS(FT_Q2_K))
            new_type = T_Q3_K;
        else if (IS(FT_Q2_K_S)) {
            if (i_layer < n_layer / 8)
                new_type = T_Q4_K;
        } else if (IS(FT_IQ3_XXS) && !m->has_imatrix)
            new_type = i_layer < n_layer / 8 ? T_Q4_K : T_Q3_K;
        else if (IS(FT_Q3_K_M))
            new_type = i_layer < n_layer / 16                       ? T_Q5_K
                       : !falcon || use_more_bits(i_layer, n_layer) ? T_Q4_K
                                                                    : T_Q3_K;
        else if (IS(FT_IQ3_M) &&
                 (i_layer < n_layer / 8 || (m->n_expert == 8 && use_more_bits(i_layer, n_layer))))
            new_type = T_Q4_K;
        else if (IS(FT_Q3_K_L))
            new_type = falcon ? T_Q4_K : T_Q5_K;
        else if (IS(FT_Q4_K_M)) {
            if (falcon)
                new_type = i_layer < n_layer / 16            ? T_Q6_K
                           : use_more_bits(i_layer, n_layer) ? T_Q5_K
                                                             : T_Q4_K;
            else if (use_more_bits(i_layer, n_layer))
                new_type = T_Q6_K;
        } else if (i_layer < n_layer / 8 && (IS(FT_IQ4_NL) || IS(FT_IQ4_XS)) && !m->has_imatrix)
            new_type = T_Q5_K;
        else if (IS(FT_Q5_K_M) && use_more_bits(i_layer, n_layer))
            new_type = T_Q6_K;
        else if (IS(FT_Q4_K_S) && !falcon && i_layer < n_layer / 8)
            new_type = T_Q5_K;
        else if ((IS(FT_Q4_0) || IS(FT_Q5_0)) && m->has_imatrix && i_layer < n_layer / 8)
            new_type = IS(FT_Q4_0) ? T_Q4_1 : T_Q5_1;
        ++qs->i_ffn_down;
    } else if (c == C_OUT) {
        if (!falcon) {
            if (m->n_expert == 8) {
                if (IS(FT_Q2_K) || IS(FT_IQ3_XS) || IS(FT_IQ3_XXS) || IS(FT_Q3_K_S) ||
                    IS(FT_Q3_K_M) || IS(FT_IQ4_NL) || IS(FT_Q4_K_S) || IS(FT_Q4_K_M) ||
                    IS(FT_IQ3_S) || IS(FT_IQ3_M) || IS(FT_IQ4_XS))
                    new_type = T_Q5_K;
            } else {
                if (IS(FT_Q2_K))
                    new_type = T_Q3_K;
                else if (IS(FT_IQ3_XXS))
                    new_type = T_IQ3_S;
                else if (IS(FT_Q3_K_M))
                    new_type = T_Q4_K;
                else if (IS(FT_Q3_K_L))
                    new_type = T_Q5_K;
                else if (IS(FT_IQ3_M))
                    new_type = T_Q4_K;
            }
        } else if (IS(FT_Q3_K_L)) {
            new_type = T_Q4_K;
        }
    } else if (c == C_QKV) {
        /* unreachable in llama.cpp too: attn_qkv is attn_v-like above */
        if (IS(FT_Q3_K_M) || IS(FT_Q3_K_L) || IS(FT_IQ3_M))
            new_type = T_Q4_K;
        else if (IS(FT_Q4_K_M))
            new_type = T_Q5_K;
        else if (IS(FT_Q5_K_M))
            new_type = T_Q6_K;
    } else if (c == C_GATE) {
        LAYER_INFO(qs->i_ffn_gate, qs->n_ffn_gate);
        if (IS(FT_IQ3_XS) && i_layer >= n_layer / 8 && i_layer < 7 * n_layer / 8)
            new_type = T_IQ3_XXS;
        ++qs->i_ffn_gate;
    } else if (c == C_UP) {
        LAYER_INFO(qs->i_ffn_up, qs->n_ffn_up);
        if (IS(FT_IQ3_XS) && i_layer >= n_layer / 8 && i_layer < 7 * n_layer / 8)
            new_type = T_IQ3_XXS;
        ++qs->i_ffn_up;
    }
#undef LAYER_INFO
    return new_type;
}

/* tensor_type_fallback */
static int fallback(const vs_gguf_quant_tensor *t, int target)
{
    int ret = target;
    if (t->shape[0] % (uint64_t)blck(target) == 0)
        return target;
    switch (target) {
    case T_IQ1_S:
    case T_IQ1_M:
    case T_IQ2_XXS:
    case T_IQ2_XS:
    case T_IQ2_S:
    case T_IQ3_XXS:
    case T_IQ3_S:
    case T_IQ4_XS:
        ret = T_IQ4_NL;
        break;
    case T_Q2_0:
    case T_Q2_K:
    case T_Q3_K:
    case T_TQ1_0:
    case T_TQ2_0:
        ret = T_Q4_0;
        break;
    case T_Q4_K:
        ret = T_Q5_0;
        break;
    case T_Q5_K:
        ret = T_Q5_1;
        break;
    case T_Q6_K:
        ret = T_Q8_0;
        break;
    default:
        return T_F16; /* llama.cpp refuses the file; F16 keeps the arithmetic going */
    }
    if (t->shape[0] % (uint64_t)blck(ret) != 0)
        ret = T_F16;
    return ret;
}

/* weight_name_comparer: by layer (none first), then by name */
typedef struct ordered {
    const vs_gguf_quant_tensor *t;
    size_t index;
    int layer;
} ordered;

static int cmp_order(const void *a, const void *b)
{
    const ordered *x = a, *y = b;
    if (x->layer != y->layer)
        return x->layer < y->layer ? -1 : 1;
    return strcmp(x->t->name, y->t->name);
}

int vs_gguf_quant_predict(const vs_gguf_quant_tensor *t, size_t n, int ftype,
                          const vs_gguf_quant_model *m, const vs_gguf_type **types, uint64_t *bytes,
                          uint64_t *total, vs_error *err)
{
    static const vs_gguf_quant_model none;
    state qs;
    ordered *ord;
    int dflt = default_type(ftype), max_layer = -1;
    const vs_gguf_type *source;
    size_t i;
    uint64_t sum = 0;
    if (!m)
        m = &none;
    source = m->source ? m->source : vs_gguf_type_by_id(T_F16);
    if (dflt < 0)
        return vs_error_set(err, VS_EVALUE, "llama.cpp file type %d has no default tensor type",
                            ftype);
    if (!(ord = malloc((n ? n : 1) * sizeof *ord)))
        return vs_error_oom(err);
    memset(&qs, 0, sizeof qs);
    qs.m = m;
    qs.tied = 1;
    qs.n_gqa = m->n_head && m->n_head_kv ? m->n_head / m->n_head_kv : 1;
    for (i = 0; i < n; i++) {
        enum cat c = category(t[i].name);
        ord[i].t = &t[i];
        ord[i].index = i;
        ord[i].layer = layer_of(t[i].name);
        if (ord[i].layer > max_layer)
            max_layer = ord[i].layer;
        if (is_attn_v(c))
            qs.n_attention_wv++;
        if (c == C_OUTPUT)
            qs.tied = 0;
    }
    qs.n_ffn_down = qs.n_ffn_gate = qs.n_ffn_up = m->n_layer ? (int)m->n_layer : max_layer + 1;
    qsort(ord, n, sizeof *ord, cmp_order);
    for (i = 0; i < n; i++) {
        const vs_gguf_quant_tensor *x = ord[i].t;
        const vs_gguf_type *ty;
        int type, bad = 0;
        uint64_t el = 1, b;
        unsigned d;
        for (d = 0; d < x->ndims && d < 4; d++)
            if (vs_checked_mul(&el, el, x->shape[d])) {
                free(ord);
                return vs_error_set(err, VS_EFORMAT, "tensor '%s': its shape overflows 64 bits",
                                    x->name);
            }
        if (!allows_quantization(x)) {
            /* kept as stored: convert_hf_to_gguf.py (prepare_tensors) writes 1-D
             * tensors and the expert routers (ffn_gate_inp) in F32, other 2-D
             * tensors in the source type */
            /* biases too: 2-D per-expert ones (gpt-oss's ffn_*_exps.bias
             * {n_ff, n_expert}) are F32 in the converted files as the 1-D ones are */
            ty = x->ndims <= 1 || has(x->name, "ffn_gate_inp") || has(x->name, ".bias")
                     ? vs_gguf_type_by_id(T_F32)
                     : source;
        } else {
            type = dflt;
            if (is_quantized(dflt)) {
                type = get_type_impl(&qs, type, x, ftype, category(x->name), &bad);
                if (bad) {
                    free(ord);
                    return vs_error_set(err, VS_EVALUE,
                                        "tensor '%s': its layer is not in [0, %d), as llama.cpp "
                                        "requires for a mixture of experts",
                                        x->name, qs.n_ffn_down);
                }
                type = fallback(x, type);
            }
            ty = vs_gguf_type_by_id((uint32_t)type);
        }
        if (el % ty->block) /* a row not whole blocks even at F16: counted as F16 */
            ty = vs_gguf_type_by_id(T_F16);
        if (vs_gguf_type_bytes(ty, el, &b) || vs_checked_add(&sum, sum, b)) {
            free(ord);
            return vs_error_set(err, VS_EFORMAT, "the model's bytes overflow 64 bits");
        }
        types[ord[i].index] = ty;
        if (bytes)
            bytes[ord[i].index] = b;
    }
    free(ord);
    *total = sum;
    return 0;
}

void vs_gguf_quant_list_free(vs_gguf_quant_tensor *t, size_t n)
{
    size_t i;
    if (!t)
        return;
    for (i = 0; i < n; i++)
        free((char *)t[i].name);
    free(t);
}

int vs_gguf_quant_llama_list(vs_gguf_quant_tensor **out, size_t *n, uint64_t layers,
                             uint64_t hidden, uint64_t heads, uint64_t kv_heads, uint64_t head_dim,
                             uint64_t intermediate, uint64_t vocab, int tied, vs_error *err)
{
    static const char *const per_layer[] = {"attn_norm", "attn_q",      "attn_k",
                                            "attn_v",    "attn_output", "ffn_norm",
                                            "ffn_gate",  "ffn_up",      "ffn_down"};
    size_t cap, k = 0, j;
    uint64_t l;
    vs_gguf_quant_tensor *t;
    char name[96];
    *out = NULL;
    *n = 0;
    if (!layers || !hidden || !heads || !vocab || !intermediate || layers > 100000)
        return vs_error_set(err, VS_EVALUE,
                            "a tensor list needs layers, hidden, heads, intermediate and vocab");
    if (!kv_heads)
        kv_heads = heads;
    if (!head_dim)
        head_dim = hidden / heads;
    cap = (size_t)layers * 9 + 3;
    if (!(t = calloc(cap, sizeof *t)))
        return vs_error_oom(err);
#define ADD(nm, d0, d1, nd)                                                                        \
    do {                                                                                           \
        t[k].name = strdup(nm);                                                                    \
        t[k].shape[0] = (d0);                                                                      \
        t[k].shape[1] = (d1);                                                                      \
        t[k].shape[2] = t[k].shape[3] = 1;                                                         \
        t[k].ndims = (nd);                                                                         \
        if (!t[k++].name)                                                                          \
            goto oom;                                                                              \
    } while (0)
    ADD("token_embd.weight", hidden, vocab, 2);
    for (l = 0; l < layers; l++) {
        for (j = 0; j < sizeof per_layer / sizeof per_layer[0]; j++) {
            uint64_t d0 = hidden, d1 = 1;
            unsigned nd = 2;
            snprintf(name, sizeof name, "blk.%llu.%s.weight", (unsigned long long)l, per_layer[j]);
            switch (j) {
            case 0:
            case 5:
                nd = 1;
                break;
            case 1:
                d1 = heads * head_dim;
                break;
            case 2:
            case 3:
                d1 = kv_heads * head_dim;
                break;
            case 4:
                d0 = heads * head_dim;
                d1 = hidden;
                break;
            case 6:
            case 7:
                d1 = intermediate;
                break;
            case 8:
                d0 = intermediate;
                d1 = hidden;
                break;
            default:
                break;
            }
            ADD(name, d0, d1, nd);
        }
    }
    ADD("output_norm.weight", hidden, 1, 1);
    if (!tied)
        ADD("output.weight", hidden, vocab, 2);
#undef ADD
    *out = t;
    *n = k;
    return 0;
oom:
    vs_gguf_quant_list_free(t, k);
    return vs_error_oom(err);
}
