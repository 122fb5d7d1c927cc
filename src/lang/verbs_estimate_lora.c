/* verbs_estimate_lora.c — `estimate training lora rank=R targets=...`: the
 * adapter's trainable parameters from the card's architecture, and under task
 * qlora the 4-bit base's quantisation metadata and dequantisation buffer (see
 * verbs_estimate_internal.h). */
#include "lang/verbs_estimate_internal.h"

#include <stdio.h>
#include <string.h>

#include "sheet/estimate.h"
#include "sheet/sheet.h"
#include "sheet/units.h"

/* Families whose decoder layers are Llama's separate q/k/v/o and gated
 * gate/up/down projections, which the module roles describe. */
static const char *const lora_families[] = {
    "llama", "mistral", "mixtral",     "qwen2",  "qwen2_moe", "qwen3", "qwen3_moe",
    "gemma", "gemma2",  "gemma3_text", "gemma3", "olmo2",     NULL};

static uint64_t arch_u(const json_t *arch, const char *key)
{
    json_t *v = json_object_get(arch, key);
    return json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
}

static int family_ok(const char *family)
{
    size_t i;
    for (i = 0; family && lora_families[i]; i++)
        if (!strcmp(family, lora_families[i]))
            return 1;
    return 0;
}

/* Dense decoders whose layer is exactly Llama's: two RMSNorms, separate q, k,
 * v, o, a SwiGLU MLP, no dropout (Qwen3's q/k norms, Gemma 2's extra norms and
 * OLMo 2's post-norms save more, mixtures of experts route). */
static const char *const gated_families[] = {"llama", "mistral", "qwen2", NULL};

int vs_verbs_estimate_gated_decoder(const json_t *sheet, uint64_t *kv_width, uint64_t *intermediate)
{
    json_t *arch = vs_sheet_card_get(sheet, VS_CK_ARCH);
    const char *family = json_string_value(json_object_get(arch, "family"));
    uint64_t heads = arch_u(arch, "heads"), kv = arch_u(arch, "kv_heads"),
             d = arch_u(arch, "head_dim"), hidden = arch_u(arch, "hidden");
    size_t i;
    int ok = 0;
    for (i = 0; family && gated_families[i]; i++)
        ok |= !strcmp(family, gated_families[i]);
    if (!d && heads && hidden % heads == 0)
        d = hidden / heads;
    if (!kv)
        kv = heads;
    if (!ok || !kv || !d || !arch_u(arch, "intermediate"))
        return 0;
    *kv_width = kv * d;
    *intermediate = arch_u(arch, "intermediate");
    return 1;
}

int vs_verbs_estimate_lora(const vs_line *line, const json_t *sheet, vs_lora_est *e, uint64_t *rank,
                           vs_buf *formula, vs_error *err)
{
    const vs_arg *ra = vs_line_pair(line, "rank"), *ta = vs_line_pair(line, "targets");
    const vs_arg *word = vs_line_positional(line, 1);
    json_t *arch = vs_sheet_card_get(sheet, VS_CK_ARCH);
    const char *family = json_string_value(json_object_get(arch, "family"));
    unsigned mask = VS_LORA_ALL_LINEAR, i;
    vs_lora_shape s;
    int rc, have = 0;
    char g[40], gl[40];
    const char *sep = "";
    if (!ra) {
        if (word || ta)
            return vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                                   "`estimate training lora` needs rank=R (the adapter's rank, "
                                   "PEFT's r)");
        return 0;
    }
    if ((rc = vs_line_get_uint(line, "rank", 1, rank, &have, err)) < 0)
        return rc;
    if (*rank == 0)
        return vs_arg_error(ra, err, vs_error_set(err, VS_EVALUE, "rank= must be at least 1"));
    if (ta && (rc = vs_estimate_lora_targets_parse(&mask, ta->value, err)) < 0)
        return vs_arg_error(ta, err, rc);
    if (!json_is_object(arch))
        return vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                               "`estimate training lora` takes its shapes from the card's "
                               "architecture: `model NAME config=PATH` first (or give "
                               "trainable=N)");
    if (!family_ok(family))
        return vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                               "`estimate training lora` knows the separate q, k, v, o and gated "
                               "gate, up, down projections of llama, mistral, mixtral, qwen2, "
                               "qwen2_moe, qwen3, qwen3_moe, gemma, gemma2, gemma3 and olmo2; "
                               "family %s lays its layers out otherwise: give trainable=N",
                               family ? family : "(none)");
    memset(&s, 0, sizeof s);
    s.layers = arch_u(arch, "layers");
    s.hidden = arch_u(arch, "hidden");
    s.heads = arch_u(arch, "heads");
    s.kv_heads = arch_u(arch, "kv_heads") ? arch_u(arch, "kv_heads") : s.heads;
    s.head_dim = arch_u(arch, "head_dim");
    if (!s.head_dim && s.heads && s.hidden % s.heads == 0)
        s.head_dim = s.hidden / s.heads;
    s.intermediate = arch_u(arch, "intermediate");
    s.experts = arch_u(arch, "experts");
    s.moe_intermediate = arch_u(arch, "moe_intermediate");
    s.shared_intermediate = arch_u(arch, "shared_intermediate");
    s.dense_layers = arch_u(arch, "dense_layers");
    if ((rc = vs_estimate_lora(e, &s, mask, *rank, err)) < 0) {
        char why[sizeof err->message];
        snprintf(why, sizeof why, "%s", err->message);
        return vs_error_set_at(err, rc, line->line, line->column,
                               "`estimate training lora`: %s (the card's architecture)", why);
    }
    vs_units_grouped(g, sizeof g, *rank);
    vs_units_grouped(gl, sizeof gl, s.layers);
    vs_buf_printf(formula, "rank %s x (in + out) per targeted module x %s layers:", g, gl);
    for (i = 0; i < VS_LORA_MODULES; i++) {
        if (!((mask >> i) & 1))
            continue;
        vs_units_grouped(g, sizeof g, e->per_module[i]);
        vs_buf_printf(formula, "%s %s %s", sep, vs_estimate_lora_module_name(i), g);
        sep = " +";
    }
    if (e->router) {
        vs_units_grouped(g, sizeof g, e->router);
        vs_buf_printf(formula, " + router %s", g);
    }
    vs_units_grouped(g, sizeof g, e->trainable);
    vs_buf_printf(formula, " = %s trainable%s", g,
                  s.experts ? " (each routed expert's gate, up and down at its own size)" : "");
    return vs_buf_failed(formula) ? vs_error_oom(err) : 1;
}

int vs_verbs_estimate_lora_qlora(json_t *sheet, const vs_lora_est *e, vs_buf *skipped,
                                 json_t *skipped_list, vs_error *err)
{
    vs_quant_rule q;
    uint64_t meta, buf;
    char gp[40], gm[40], gb[40], gw[40], src[2][600];
    int rc, in_weights;
    /* bitsandbytes nf4 with double quantisation (QLoRA's setting) over every
     * linear module of the layers: the embeddings and the output layer stay 16-bit */
    if ((rc = vs_quant_rule_get(&q, "bnb", 0, 1, 4, 16, err)) < 0 ||
        (rc = vs_estimate_quant(&meta, &q, e->base_linear, err)) < 0)
        return rc;
    /* weights summed tensor by tensor (`format nf4` over a config.json's
     * tensor list) already hold the absmax: counted once, there */
    in_weights =
        json_is_string(json_object_get(vs_sheet_get(sheet, VS_SK_WEIGHTS_FILES), "scheme"));
    if (in_weights)
        meta = 0;
    /* MatMul4Bit dequantises the whole weight to the compute dtype before each
     * matmul (bitsandbytes/autograd/_functions.py, commit 60a0d8a5:
     * F.dequantize_4bit(B, quant_state).to(A.dtype)): the largest layer's bf16
     * copy is the transient that sets the peak */
    if (__builtin_mul_overflow(e->largest_linear, (uint64_t)2, &buf))
        return vs_error_set(err, VS_EUNIT, "the dequantisation buffer does not fit in 64 bits");
    vs_units_grouped(gp, sizeof gp, e->base_linear);
    vs_units_grouped(gm, sizeof gm, meta);
    vs_units_grouped(gw, sizeof gw, e->largest_linear);
    vs_units_grouped(gb, sizeof gb, buf);
    if (in_weights)
        snprintf(src[0], sizeof src[0],
                 "0 B: the weights are summed tensor by tensor and hold the absmax of the "
                 "layers' %s linear weights already (`weights` lists them)",
                 gp);
    else
        snprintf(src[0], sizeof src[0],
                 "nf4 with double quantisation over the layers' %s linear weights: an 8-bit absmax "
                 "per block of 64 and an fp32 constant per 256 blocks = %s B (QLoRA, Dettmers et "
                 "al. 2023)",
                 gp, gm);
    snprintf(src[1], sizeof src[1],
             "the largest linear layer (%s weights) dequantised to bf16 for its matmul: %s x 2 B "
             "= %s B (bitsandbytes MatMul4Bit)",
             gw, gw, gb);
    if ((rc = vs_verbs_estimate_store(sheet, "quant_metadata", meta, src[0], VS_CLASS_PARAMETERS,
                                      skipped, skipped_list, err)) < 0 ||
        (rc = vs_verbs_estimate_store(sheet, "dequant_buffer", buf, src[1], VS_CLASS_OTHER, skipped,
                                      skipped_list, err)) < 0)
        return rc;
    return 0;
}
