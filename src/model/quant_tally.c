/* A family's tensor list summed under a quantisation scheme (model/quant.h):
 * which tensors the loader quantises, what each costs, and what stays in the
 * model dtype, walked rule by rule (a rule is one tensor repeated over layers
 * and experts), so that a 400-tensor-per-layer model costs a few hundred
 * rules, not its tens of thousands of tensors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/quant.h"
#include "sheet/sheet_access.h"
#include "sheet/units.h"

/* '*' matches any run of characters; everything else itself. */
static int glob(const char *p, const char *s)
{
    if (!*p)
        return !*s;
    if (*p == '*') {
        for (;; s++) {
            if (glob(p + 1, s))
                return 1;
            if (!*s)
                return 0;
        }
    }
    return *s && *p == *s && glob(p + 1, s + 1);
}

/* A kept-module pattern against a module name ("model.layers.3.self_attn.q_proj"):
 * the name, a dotted prefix of it (its parent module), or a dotted run inside
 * it, as transformers' should_convert_module and vLLM's is_layer_skipped
 * compare names; a "re:" pattern as re.match does (from the start; "$" ends it),
 * in the subset the checkpoints use (".*", "\\.", "^", "$"). */
static int keep_match(const char *pat, int regex, const char *m)
{
    char g[128], buf[256];
    size_t i = 0, n = strlen(m), k;
    if (regex) {
        const char *p = pat;
        int end = 0;
        if (*p == '^')
            p++;
        for (; *p && i + 2 < sizeof g; p++) {
            if (p[0] == '.' && p[1] == '*') {
                g[i++] = '*';
                p++;
            } else if (p[0] == '\\' && p[1]) {
                g[i++] = *++p;
            } else if (p[0] == '$' && !p[1]) {
                end = 1;
            } else {
                g[i++] = *p;
            }
        }
        if (!end)
            g[i++] = '*';
        g[i] = '\0';
        return glob(g, m);
    }
    if (glob(pat, m))
        return 1;
    /* a parent module: the pattern matches the name up to a dot */
    for (k = 0; k < n && k + 1 < sizeof buf; k++) {
        if (m[k] != '.')
            continue;
        memcpy(buf, m, k);
        buf[k] = '\0';
        if (glob(pat, buf))
            return 1;
    }
    /* a dotted run inside the name (a bare "lm_head", "mlp.gate") */
    if (!strchr(pat, '*')) {
        size_t pl = strlen(pat);
        const char *s = m;
        while ((s = strstr(s, pat))) {
            if ((s == m || s[-1] == '.') && (s[pl] == '\0' || s[pl] == '.'))
                return 1;
            s++;
        }
    }
    return 0;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcmp(s + a - b, suffix);
}

/* Why the loaders keep a tensor unquantised ("" when they quantise it). The
 * names are the Hugging Face checkpoint's: the loaders select by module name
 * and class (vLLM quantises its LinearBase and FusedMoE layers; embeddings,
 * lm_head unless the config says otherwise, norms and the MoE routers it builds
 * with quant_config=None; transformers the nn.Linear modules not in
 * modules_to_not_convert, lm_head kept by get_keys_to_not_convert). */
static const char *kept_why(const vs_quant *q, const vs_quant_scheme *s, const vs_tensor_rule *r,
                            const char *name)
{
    static const char *const routers[] = {
        ".mlp.gate.weight",           ".block_sparse_moe.gate.weight",
        ".mlp.router.weight",         ".feed_forward.router.weight",
        ".shared_expert_gate.weight", NULL};
    static const char *const embeds[] = {"embed_tokens",
                                         "wte.",
                                         "wpe.",
                                         "word_embeddings",
                                         "position_embeddings",
                                         "token_type_embeddings",
                                         "shared.weight",
                                         "embed_positions",
                                         NULL};
    char mod[256];
    size_t i, n;
    int fused = r->ndims == 3 && !r->experts && !ends_with(name, ".weight");
    int expert = r->experts > 0 || fused;
    if (r->part != VS_PART_TEXT)
        return "a vision tower or projector";
    if (r->ndims < 2 || (r->ndims == 2 && fused))
        return "1-D";
    if (!fused && !(r->ndims == 2 && ends_with(name, ".weight")))
        return "not a Linear weight";
    for (i = 0; embeds[i]; i++)
        if (strstr(name, embeds[i]))
            return "an embedding";
    if (strstr(name, "lm_head.") && !q->lm_head)
        return "lm_head";
    for (i = 0; routers[i]; i++)
        if (ends_with(name, routers[i]))
            return "a MoE router";
    if (expert ? !s->experts : !s->linear)
        return expert ? "experts the scheme does not cover" : "a Linear layer the scheme leaves";
    snprintf(mod, sizeof mod, "%s", name);
    n = strlen(mod);
    if (n > 7 && !strcmp(mod + n - 7, ".weight"))
        mod[n - 7] = '\0';
    for (i = 0; i < q->nkeep; i++)
        if (keep_match(q->keep[i], q->keep_regex[i], mod))
            return q->from_config ? "listed as not converted" : "kept";
    return "";
}

/* "{L}" -> the layer (or "*"), "{E}" -> "0" (or "*"): a concrete name. */
static void expand(char *out, size_t cap, const char *prefix, const char *pat, const char *layer,
                   const char *expert)
{
    size_t o = (size_t)snprintf(out, cap, "%s", prefix);
    for (; *pat && o + 1 < cap; pat++) {
        const char *sub = NULL;
        if (!strncmp(pat, "{L}", 3))
            sub = layer;
        else if (!strncmp(pat, "{E}", 3))
            sub = expert;
        if (sub) {
            o += (size_t)snprintf(out + o, cap - o, "%s", sub);
            if (o >= cap)
                o = cap - 1;
            pat += 2;
        } else {
            out[o++] = *pat;
        }
    }
    out[o < cap ? o : cap - 1] = '\0';
}

typedef struct tally {
    const vs_quant *q;
    const vs_quant_scheme *s;
    const vs_arch *a;
    vs_quant_engine eng;
    vs_quant_bytes qb; /* the quantised matrices' parts */
    uint64_t qparams, kept, kept_params, kept4, kept4_params, one_d, one_d_n;
    uint64_t replicated; /* bytes every tensor-parallel rank holds whole (norms, routers) */
    json_t *other;       /* kept tensors, one row per rule */
    vs_error *err;
    int rc;
} tally;

static uint64_t elements(const vs_tensor_rule *r)
{
    uint64_t e = 1;
    unsigned d;
    for (d = 0; d < r->ndims; d++)
        e *= r->shape[d];
    return e;
}

static int add_kept(tally *t, const vs_tensor_rule *r, const char *name, const char *why,
                    uint64_t count, uint64_t ntensors)
{
    unsigned b = t->s->kept_bytes ? t->s->kept_bytes(t->q, name, t->eng) : 0;
    uint64_t e = elements(r) * count, bytes;
    char pat[256];
    /* vLLM's VocabParallelEmbedding and ParallelLMHead allocate the vocabulary
     * padded to a multiple of 64 rows (pad_vocab_size with
     * DEFAULT_VOCAB_PADDING_SIZE, vllm/model_executor/layers/
     * vocab_parallel_embedding.py at 00db0119) */
    if (t->eng != VS_QUANT_ENGINE_CHECKPOINT &&
        (!strcmp(why, "an embedding") || !strcmp(why, "lm_head")) && r->ndims == 2 && t->a->vocab &&
        r->shape[0] == t->a->vocab)
        e = (r->shape[0] + 63) / 64 * 64 * r->shape[1] * count;
    bytes = e * (b ? b : t->q->dense_bytes);
    /* vLLM's tensor parallelism shards the Linear layers and the vocabulary
     * but builds the norms (RMSNorm over the whole hidden size) and the MoE
     * routers (ReplicatedLinear, quant_config=None) whole on every rank
     * (vllm/model_executor/models/qwen3_moe.py, deepseek_v2.py, mixtral.py at
     * 002456df) */
    if (!strcmp(why, "a MoE router") || (r->ndims == 1 && strstr(name, "norm")))
        t->replicated += bytes;
    if (b == 4) {
        t->kept4 += bytes;
        t->kept4_params += e;
    } else {
        t->kept += bytes;
        t->kept_params += e;
    }
    if (b != 4 && (r->ndims < 2 || (r->ndims == 2 && strstr(name, "_bias")))) {
        t->one_d += bytes;
        t->one_d_n += ntensors;
        return 0;
    }
    expand(pat, sizeof pat, r->prefix, r->pattern, "*", "*");
    {
        /* a rule walked layer by layer: one row for its kept layers */
        json_t *last = json_array_get(t->other, json_array_size(t->other) - 1);
        const char *lp = json_string_value(json_object_get(last, "pattern"));
        if (lp && !strcmp(lp, pat)) {
            json_object_set_new(last, "bytes",
                                json_integer(json_integer_value(json_object_get(last, "bytes")) +
                                             (json_int_t)bytes));
            json_object_set_new(last, "tensors",
                                json_integer(json_integer_value(json_object_get(last, "tensors")) +
                                             (json_int_t)ntensors));
            return 0;
        }
    }
    if (json_array_append_new(t->other,
                              json_pack("{s:s, s:s, s:I, s:I}", "pattern", pat, "dtype",
                                        b == 4 ? "fp32" : t->q->dense_dtype, "bytes",
                                        (json_int_t)bytes, "tensors", (json_int_t)ntensors)))
        return vs_error_oom(t->err);
    return 0;
}

static int on_rule(void *ud, const vs_tensor_rule *r)
{
    tally *t = ud;
    char name[256], layer[24];
    uint64_t l, per = r->experts ? r->experts : 1;
    int rc;
    if (r->part == VS_PART_MTP)
        return 0; /* not loaded (model/family.h: excluded from params) */
    for (l = r->layer0; l < r->layer0 + r->layers; l++) {
        const char *why;
        snprintf(layer, sizeof layer, "%llu", (unsigned long long)l);
        expand(name, sizeof name, r->prefix, r->pattern, layer, "0");
        why = kept_why(t->q, t->s, r, name);
        /* a kept-module list may name single layers; without one every layer
         * of a rule is alike, and one is enough */
        if (t->q->nkeep == 0 || r->layers == 1 || !strstr(r->pattern, "{L}")) {
            uint64_t count = per * (r->layer0 + r->layers - l);
            if (*why)
                return add_kept(t, r, name, why, count, count);
            {
                vs_quant_matrix m;
                vs_quant_bytes b;
                int fused = r->ndims == 3;
                memset(&m, 0, sizeof m);
                m.out = fused ? r->shape[2] : r->shape[0];
                m.in = fused ? r->shape[1] : r->shape[1];
                m.count = count * (fused ? r->shape[0] : 1);
                m.fused_experts = fused;
                m.moe_intermediate = t->a->moe_intermediate;
                m.hidden = t->a->hidden;
                memset(&b, 0, sizeof b);
                if ((rc = t->s->matrix(t->q, &m, t->eng, &b, t->err)))
                    return rc;
                t->qb.values += b.values * m.count;
                t->qb.scales += b.scales * m.count;
                t->qb.zeros += b.zeros * m.count;
                t->qb.index += b.index * m.count;
                t->qb.pad += b.pad * m.count;
                t->qparams += elements(r) * count;
            }
            return 0;
        }
        if (*why) {
            if ((rc = add_kept(t, r, name, why, per, per)))
                return rc;
        } else {
            vs_quant_matrix m;
            vs_quant_bytes b;
            int fused = r->ndims == 3;
            memset(&m, 0, sizeof m);
            m.out = fused ? r->shape[2] : r->shape[0];
            m.in = r->shape[1];
            m.count = per * (fused ? r->shape[0] : 1);
            m.fused_experts = fused;
            m.moe_intermediate = t->a->moe_intermediate;
            m.hidden = t->a->hidden;
            memset(&b, 0, sizeof b);
            if ((rc = t->s->matrix(t->q, &m, t->eng, &b, t->err)))
                return rc;
            t->qb.values += b.values * m.count;
            t->qb.scales += b.scales * m.count;
            t->qb.zeros += b.zeros * m.count;
            t->qb.index += b.index * m.count;
            t->qb.pad += b.pad * m.count;
            t->qparams += elements(r) * per;
        }
    }
    return 0;
}

static int row(json_t *arr, const char *dtype, uint64_t bytes, int has_params, uint64_t params)
{
    if (!bytes)
        return 0;
    return json_array_append_new(
        arr, json_pack("{s:s, s:I, s:o}", "dtype", dtype, "bytes", (json_int_t)bytes, "params",
                       has_params ? json_integer((json_int_t)params) : json_null()));
}

int vs_quant_tally(const vs_quant *q, const vs_arch *a, vs_quant_engine eng, json_t **out,
                   vs_error *err)
{
    tally t;
    json_t *by, *wf;
    char vl[48], fname[48], scheme[200], kept1[64];
    const char *note;
    uint64_t total = 0;
    int rc;
    *out = NULL;
    memset(&t, 0, sizeof t);
    t.q = q;
    t.s = q->scheme;
    note = t.s && t.s->layout_note ? t.s->layout_note(eng) : NULL;
    t.a = a;
    t.eng = eng;
    t.err = err;
    if (!t.s)
        return vs_error_set(err, VS_EVALUE, "no such quantisation scheme");
    if (!(t.other = json_array()))
        return vs_error_oom(err);
    if ((rc = vs_family_tensor_rules(a, on_rule, &t))) {
        json_decref(t.other);
        return rc < 0 ? rc : vs_error_set(err, VS_EVALUE, "the tensor list stopped early");
    }
    if (t.one_d_n) {
        snprintf(kept1, sizeof kept1, "1-D tensors (norms, biases, sinks)");
        json_array_append_new(t.other, json_pack("{s:s, s:s, s:I, s:I}", "pattern", kept1, "dtype",
                                                 q->dense_dtype, "bytes", (json_int_t)t.one_d,
                                                 "tensors", (json_int_t)t.one_d_n));
    }
    total = t.qb.values + t.qb.scales + t.qb.zeros + t.qb.index + t.qb.pad + t.kept + t.kept4;
    by = json_array();
    if (!by || row(by, t.s->values_label(q, vl, sizeof vl), t.qb.values, 1, t.qparams) ||
        row(by, t.s->scales_label, t.qb.scales, 0, 0) || row(by, "int32 zeros", t.qb.zeros, 0, 0) ||
        row(by, q->ct ? "weight_shape, g_idx" : t.s->index_label, t.qb.index, 0, 0) ||
        row(by, "padding of the kernel's layout", t.qb.pad, 0, 0) ||
        row(by, q->dense_dtype, t.kept, 1, t.kept_params) ||
        row(by, "fp32", t.kept4, 1, t.kept4_params)) {
        json_decref(by);
        json_decref(t.other);
        return vs_error_oom(err);
    }
    snprintf(scheme, sizeof scheme, "%s, %s%s", vs_quant_format_name(q, fname, sizeof fname),
             q->from_config ? "from quantization_config" : "named by format", note ? note : "");
    wf = json_pack("{s:n, s:I, s:I, s:o, s:o, s:[], s:s, s:s, s:I}", "path", "bytes",
                   (json_int_t)total, "params",
                   (json_int_t)(t.qparams + t.kept_params + t.kept4_params), "by_dtype", by,
                   "other_dtype", t.other, "files", "scheme", scheme, "source", t.s->source,
                   "replicated_bytes", (json_int_t)t.replicated);
    if (!wf)
        return vs_error_oom(err);
    *out = wf;
    return 0;
}

vs_quant_engine vs_quant_engine_of(const json_t *sheet)
{
    const json_t *eng = vs_sheet_card_get(sheet, VS_CK_ENGINE);
    const vs_engine *e = vs_engine_find(json_string_value(vs_sheet_engine_field(eng, VS_EK_NAME)));
    return e && e->weights ? e->weights(vs_sheet_engine_field(eng, VS_EK_KEYS))
                           : VS_QUANT_ENGINE_CHECKPOINT;
}
