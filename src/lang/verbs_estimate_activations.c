/* estimate activations: the activations a training step saves for its backward
 * pass (Korthikanti et al. 2022), with the attention the card's framework uses,
 * and the logits of the loss. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "lang/derive.h"
#include "lang/verbs_common.h"
#include "lang/verbs_estimate.h"
#include "lang/verbs_estimate_internal.h"
#include "render/component.h"
#include "sheet/estimate.h"
#include "sheet/sheet.h"
#include "sheet/units.h"
#include "util/buf.h"
#include "util/checked.h"
#include "util/json.h"

/* The attention of the card's engine or framework, when it has an `attention`
 * key (as written on the engine line, else its default); else eager, the
 * formula with the score matrix. *from says which. */
static const char *card_attention(const json_t *sheet, const char **from)
{
    const json_t *eng = vs_sheet_card_get(sheet, VS_CK_ENGINE);
    const vs_engine *engine =
        vs_engine_find(json_string_value(vs_sheet_engine_field(eng, VS_EK_NAME)));
    const char *written = vs_json_str_of(vs_sheet_engine_field(eng, VS_EK_KEYS), "attention");
    size_t i;
    if (engine && vs_engine_key_index(engine, "attention", &i)) {
        *from = written ? "the card's engine line" : "the card's engine's default";
        return written ? written : engine->keys[i].def;
    }
    *from = "no engine on the card with an attention key";
    return "eager";
}

/* Whether the output layer is trained: head= as written, else frozen under a
 * LoRA task (PEFT's adapters leave lm_head out, all-linear included), else
 * trained. *why says which. */
static int head_trained(const vs_line *line, const json_t *sheet, const char **why)
{
    const vs_arg *hd = vs_line_pair(line, "head");
    const char *task = vs_sheet_card_str(sheet, VS_CK_TASK);
    vs_vocab_task t;
    if (hd) {
        *why = "head= on the line";
        return !strcmp(hd->value, "trained");
    }
    if (task && !vs_vocab_task_parse(&t, task, NULL) && (t == VS_TASK_LORA || t == VS_TASK_QLORA)) {
        *why = "the card's task trains an adapter";
        return 0;
    }
    *why = task ? "the card's task trains every weight" : "no task on the card";
    return 1;
}

/* loss=cce: Cut Cross-Entropy, the terms named; the output layer's gradient when
 * it is trained or, under cce=24.12, always. */
static int cce_source(uint64_t *out_bytes, const vs_line *line, const json_t *sheet,
                      uint64_t tokens, uint64_t hidden, uint64_t V, int always, char *src,
                      size_t srclen, vs_error *err)
{
    const char *why;
    int trained = head_trained(line, sheet, &why), rc;
    char gt[40], gH[40], gV[40], gdc[40], gb[40], w[300];
    if ((rc = vs_estimate_loss_cce(out_bytes, tokens, hidden, V, trained || always, err)) < 0)
        return rc;
    vs_units_grouped(gt, sizeof gt, tokens);
    vs_units_grouped(gH, sizeof gH, hidden);
    vs_units_grouped(gV, sizeof gV, V);
    vs_units_grouped(gb, sizeof gb, *out_bytes);
    if (trained || always) {
        vs_units_grouped(gdc, sizeof gdc, V * hidden * 2); /* within *out_bytes: no overflow */
        snprintf(w, sizeof w,
                 " + dc, the output layer's gradient, %s vocab x %s hidden x 2 B = %s B (%s)", gV,
                 gH, gdc,
                 trained ? why
                         : "cce=24.12: cut-cross-entropy 24.11.4 to 24.12.3 allocate it for a "
                           "frozen output layer too");
    } else
        snprintf(w, sizeof w, " (the output layer frozen, no dc: %s; cce=25.1)", why);
    snprintf(src, srclen,
             "%s tokens x (4 B + 8 B + 2 B x %s hidden)%s = %s B (Cut Cross-Entropy writes no "
             "logits: a float32 log-sum-exp and an int64 label index a token, and, in the "
             "backward, the 16-bit gradient into the last hidden state; cut-cross-entropy "
             "cce_backward.py, utils.py, read in 24.11.4, 24.12.3 and 25.1.1, the loss Unsloth "
             "calls)",
             gt, gH, w, gb);
    return 0;
}

/* loss=liger: Liger-Kernel's fused linear cross-entropy, the terms named. */
static int liger_source(uint64_t *out_bytes, const vs_line *line, const json_t *sheet,
                        uint64_t tokens, uint64_t hidden, uint64_t V, char *src, size_t srclen,
                        vs_error *err)
{
    const char *why;
    int trained = head_trained(line, sheet, &why), rc;
    vs_liger_est e;
    char gt[40], gH[40], gV[40], gr[40], gn[40], g1[40], g2[40], g3[40], g4[40], gb[40], w[300];
    if ((rc = vs_estimate_loss_liger(&e, tokens, hidden, V, 2, trained, err)) < 0)
        return rc;
    vs_units_grouped(gt, sizeof gt, tokens);
    vs_units_grouped(gH, sizeof gH, hidden);
    vs_units_grouped(gV, sizeof gV, V);
    vs_units_grouped(gr, sizeof gr, e.chunk_rows);
    vs_units_grouped(gn, sizeof gn, e.chunks);
    vs_units_grouped(g1, sizeof g1, e.logits_chunk);
    vs_units_grouped(g2, sizeof g2, e.grad_input);
    vs_units_grouped(g3, sizeof g3, e.per_token);
    vs_units_grouped(g4, sizeof g4, e.grad_weight);
    vs_units_grouped(gb, sizeof gb, e.total);
    if (trained)
        snprintf(w, sizeof w,
                 " + grad_weight %s vocab x %s hidden x 2 B = %s B (the output layer trained: %s)",
                 gV, gH, g4, why);
    else
        snprintf(w, sizeof w, " (the output layer frozen, no grad_weight: %s)", why);
    snprintf(src, srclen,
             "Liger fused linear cross-entropy in %s chunks of %s tokens (the next power of 2 "
             "of ceil(%s tokens / ceil(%s vocab / %s hidden)), at most the tokens): one chunk's "
             "16-bit logits, the "
             "gradient written over them, %s x %s x 2 B = %s B + grad_input %s tokens x %s "
             "hidden x 2 B = %s B + the float32 loss and the ignore mask, %s tokens x 5 B = %s "
             "B%s = %s B (linkedin/Liger-Kernel ops/fused_linear_cross_entropy.py at 00eba63)",
             gn, gr, gt, gV, gH, gr, gV, g1, gt, gH, g2, gt, g3, w, gb);
    *out_bytes = e.total;
    return 0;
}

/* loss=unsloth: Unsloth's loss before Cut Cross-Entropy, the terms named. */
static int unsloth_loss_source(uint64_t *out_bytes, uint64_t tokens, uint64_t hidden, uint64_t V,
                               int fp32, char *src, size_t srclen, vs_error *err)
{
    vs_unsloth_loss_est e;
    char gt[40], gH[40], gV[40], g1[40], g2[40], g3[40], g4[40], gb[40], w[600];
    int rc;
    if ((rc = vs_estimate_loss_unsloth(&e, tokens, hidden, V, fp32, err)) < 0)
        return rc;
    vs_units_grouped(gt, sizeof gt, tokens);
    vs_units_grouped(gH, sizeof gH, hidden);
    vs_units_grouped(gV, sizeof gV, V);
    vs_units_grouped(g1, sizeof g1, e.logits);
    vs_units_grouped(g2, sizeof g2, e.forward);
    vs_units_grouped(g3, sizeof g3, e.grad_hidden);
    vs_units_grouped(g4, sizeof g4, e.outputs);
    vs_units_grouped(gb, sizeof gb, e.total);
    if (fp32)
        snprintf(w, sizeof w,
                 "; outputs=fp32: the returned logits converted to float32 beside them and the "
                 "saved log-sum-exp, %s x %s x 4 B + %s x 4 B = %s B (accelerate's "
                 "convert_outputs_to_fp32, installed by the Trainer's fp16=True or bf16=True: "
                 "accelerate 0.34.2 accelerator.py prepare_model)",
                 gt, gV, gt, g4);
    else
        w[0] = '\0';
    snprintf(src, srclen,
             "Unsloth's loss before Cut Cross-Entropy: the output layer's 16-bit logits, "
             "saved by the loss and its gradient written over them, %s tokens x %s vocabulary x "
             "2 B = %s B, + the largest of the float32 losses and log-sum-exps of %" PRIu64
             " block(s) of 65,536 (%s B), the 16-bit gradient into the %s-wide hidden state "
             "(%s B)%s: %s B (unsloth 2024.8 to 2024.10.0 models/llama.py "
             "CausalLM_fast_forward, kernels/cross_entropy_loss.py Fast_CrossEntropyLoss)",
             gt, gV, g1, e.chunks, g2, gH, g3, w, gb);
    *out_bytes = e.total;
    return 0;
}

/* Adds the logits component: the float32 upcast of the loss over tokens x vocab. */
static int estimate_logits(const vs_line *line, json_t *sheet, uint64_t s, uint64_t b,
                           uint64_t hidden, int unsloth, uint64_t *out_bytes, int *counted,
                           char *src, size_t srclen, vs_buf *skipped, json_t *sk, vs_error *err)
{
    const vs_arg *ls = vs_line_pair(line, "loss"), *ch = vs_line_pair(line, "chunks");
    const vs_arg *hd = vs_line_pair(line, "head"), *op = vs_line_pair(line, "outputs");
    const vs_arg *cr = vs_line_pair(line, "cce");
    uint64_t V = 0, chunks = 1, tokens;
    int rc, from_arch = 0;
    char gV[40], gt[40], gbytes[40];
    *counted = 0;
    /* the keys are checked before the vocabulary is looked up: a card without
     * one still refuses a misused key rather than skipping it in silence */
    if (ls && strcmp(ls->value, "full") && strcmp(ls->value, "chunked") &&
        strcmp(ls->value, "cce") && strcmp(ls->value, "liger") && strcmp(ls->value, "unsloth"))
        return vs_arg_error(ls, err,
                            vs_error_set(err, VS_EVALUE,
                                         "loss must be full, chunked, cce, liger or unsloth, not "
                                         "'%s'",
                                         ls->value));
    if (ls && !strcmp(ls->value, "unsloth") && !unsloth)
        return vs_arg_error(
            ls, err, vs_error_set(err, VS_EVALUE, "loss=unsloth goes with framework=unsloth"));
    /* the other losses hand back float32 logits (full) or none (cce, liger:
     * Unsloth's and Liger's return no logits to convert; torchtune's chunked
     * loss runs without accelerate) */
    if (op && (!ls || strcmp(ls->value, "unsloth")))
        return vs_arg_error(op, err,
                            vs_error_set(err, VS_EVALUE, "outputs= goes with loss=unsloth"));
    if (op && strcmp(op->value, "fp32") && strcmp(op->value, "native"))
        return vs_arg_error(
            op, err,
            vs_error_set(err, VS_EVALUE, "outputs must be fp32 or native, not '%s'", op->value));
    if (ch && (!ls || strcmp(ls->value, "chunked")))
        return vs_arg_error(ch, err,
                            vs_error_set(err, VS_EVALUE, "chunks= goes with loss=chunked"));
    if (hd && (!ls || (strcmp(ls->value, "liger") && strcmp(ls->value, "cce"))))
        return vs_arg_error(hd, err,
                            vs_error_set(err, VS_EVALUE, "head= goes with loss=liger or loss=cce"));
    if (cr && (!ls || strcmp(ls->value, "cce")))
        return vs_arg_error(cr, err, vs_error_set(err, VS_EVALUE, "cce= goes with loss=cce"));
    if (cr && strcmp(cr->value, "24.12") && strcmp(cr->value, "25.1"))
        return vs_arg_error(
            cr, err,
            vs_error_set(err, VS_EVALUE, "cce must be 24.12 or 25.1, not '%s'", cr->value));
    if (hd && strcmp(hd->value, "trained") && strcmp(hd->value, "frozen"))
        return vs_arg_error(
            hd, err,
            vs_error_set(err, VS_EVALUE, "head must be trained or frozen, not '%s'", hd->value));
    if (ls && !strcmp(ls->value, "chunked")) {
        chunks = 8; /* torchtune's CEWithChunkedOutputLoss(num_output_chunks=8) */
        int present = 0;
        if ((rc = vs_line_get_uint(line, "chunks", 0, &chunks, &present, err)) < 0)
            return rc;
        if (present && chunks == 0)
            return vs_arg_error(ch, err, vs_error_set(err, VS_EVALUE, "chunks must be at least 1"));
    }
    if ((rc = vs_verbs_estimate_shape(line, sheet, "vocab", "vocab", &V, &from_arch, err)) < 0)
        return rc;
    if (rc == 0 || V == 0)
        return 0; /* no vocabulary known: said in a note */
    if (vs_checked_mul(&tokens, s, b))
        return vs_error_set(err, VS_EUNIT, "the logits: length x microbatch overflows");
    vs_units_grouped(gt, sizeof gt, tokens);
    if (ls && !strcmp(ls->value, "liger")) {
        if ((rc = liger_source(out_bytes, line, sheet, tokens, hidden, V, src, srclen, err)) < 0)
            return rc;
    } else if (ls && !strcmp(ls->value, "unsloth")) {
        if ((rc = unsloth_loss_source(out_bytes, tokens, hidden, V,
                                      op && !strcmp(op->value, "fp32"), src, srclen, err)) < 0)
            return rc;
    } else if (ls && !strcmp(ls->value, "cce")) {
        if ((rc = cce_source(out_bytes, line, sheet, tokens, hidden, V,
                             cr && !strcmp(cr->value, "24.12"), src, srclen, err)) < 0)
            return rc;
    } else {
        if ((rc = vs_estimate_logits(out_bytes, tokens, V, chunks, err)) < 0)
            return rc;
        vs_units_grouped(gV, sizeof gV, V);
        vs_units_grouped(gbytes, sizeof gbytes, *out_bytes);
        if (chunks > 1)
            snprintf(src, srclen,
                     "%s tokens x %s vocabulary x (2 B + 2 B / %" PRIu64 " chunks) = %s B (the "
                     "16-bit logits of every chunk kept for the backward, and one chunk's float32 "
                     "loss at a time handing back a 16-bit gradient: torchtune "
                     "CEWithChunkedOutputLoss)",
                     gt, gV, chunks, gbytes);
        else
            snprintf(src, srclen,
                     "%s tokens x %s vocabulary x (4 + 4 + 2) B = %s B (the float32 logits the "
                     "loss takes, their gradient, and the 16-bit gradient into the output layer: "
                     "torchtune TransformerDecoder's self.output(h).float(), transformers "
                     "ForCausalLMLoss's logits.float())",
                     gt, gV, gbytes);
    }
    if ((rc = vs_verbs_estimate_store_phase(sheet, "logits", *out_bytes, src, VS_CLASS_ACTIVATIONS,
                                            "loss", skipped, sk, err)) < 0)
        return rc;
    *counted = 1;
    return 0;
}

/* The activations component's source: the rule with its numbers. */
static void activations_source(char *src, size_t n, const vs_act_shape *sh, vs_checkpointing mode,
                               vs_attention attn, const vs_act_est *e)
{
    char gL[40], gs[40], gb[40], gH[40], gA[40], gk[40], gi[40], gper[40], gbytes[40], rule[500];
    char how[240];
    vs_units_grouped(gL, sizeof gL, sh->layers);
    vs_units_grouped(gs, sizeof gs, sh->length);
    vs_units_grouped(gb, sizeof gb, sh->microbatch);
    vs_units_grouped(gH, sizeof gH, sh->hidden);
    vs_units_grouped(gA, sizeof gA, sh->heads);
    vs_units_grouped(gk, sizeof gk, sh->kv_width);
    vs_units_grouped(gi, sizeof gi, sh->intermediate);
    vs_units_grouped(gper, sizeof gper, e->per_layer);
    vs_units_grouped(gbytes, sizeof gbytes, e->total);
    if (sh->kv_width && sh->intermediate)
        snprintf(rule, sizeof rule,
                 "%s tokens x %s microbatch x (12 x %s hidden + 4 x %s kv + 8 x %s intermediate)%s "
                 "= %s B a layer (a gated decoder's saved tensors)",
                 gs, gb, gH, gk, gi, attn == VS_ATTN_EAGER ? " + 4 x heads x tokens^2" : "", gper);
    else if (attn == VS_ATTN_EAGER)
        snprintf(rule, sizeof rule,
                 "%s tokens x %s microbatch x %s hidden x (34 + 5 x %s heads x %s / %s) = %s B a "
                 "layer (Korthikanti et al. 2022)",
                 gs, gb, gH, gA, gs, gH, gper);
    else
        snprintf(rule, sizeof rule,
                 "%s tokens x %s microbatch x %s hidden x 34 = %s B a layer (Korthikanti et al. "
                 "2022; attention=%s keeps no score matrix, Dao et al. 2022)",
                 gs, gb, gH, gper, vs_attention_name(attn));
    switch (mode) {
    case VS_CKPT_NONE:
        snprintf(how, sizeof how, "%s layers x that", gL);
        break;
    case VS_CKPT_SELECTIVE:
        snprintf(how, sizeof how, "%s layers x that, the scores recomputed", gL);
        break;
    case VS_CKPT_FULL:
        snprintf(how, sizeof how,
                 "%s layers x the layer input 2 x tokens x hidden + one layer recomputed in the "
                 "backward",
                 gL);
        break;
    default:
        snprintf(how, sizeof how,
                 "the layer inputs in host memory + one layer recomputed in the backward");
        break;
    }
    snprintf(src, n, "%s: %s = %s B (checkpointing=%s, attention=%s)", rule, how, gbytes,
             vs_checkpointing_name(mode), vs_attention_name(attn));
}

/* The activations component's source under framework=unsloth. */
static void unsloth_source(char *src, size_t n, const vs_act_shape *sh, vs_checkpointing mode,
                           vs_attention attn, const vs_act_est *e)
{
    const int xf = attn == VS_ATTN_XFORMERS;
    char gs[40], gb[40], gH[40], gk[40], gi[40], gA[40], gper[40], gw[40], gbytes[40];
    vs_units_grouped(gs, sizeof gs, sh->length);
    vs_units_grouped(gb, sizeof gb, sh->microbatch);
    vs_units_grouped(gH, sizeof gH, sh->hidden);
    vs_units_grouped(gk, sizeof gk, xf ? sh->hidden : sh->kv_width);
    vs_units_grouped(gi, sizeof gi, sh->intermediate);
    vs_units_grouped(gA, sizeof gA, sh->heads);
    vs_units_grouped(gper, sizeof gper, e->per_layer);
    vs_units_grouped(gw, sizeof gw, e->working);
    vs_units_grouped(gbytes, sizeof gbytes, e->total);
    snprintf(
        src, n,
        "%s tokens x %s microbatch x (12 x %s hidden + 4 x %s kv%s + 4 x %s intermediate + 4 "
        "x %s heads + 8) = %s B a layer, what Unsloth's kernels save (Fast_RMS_Layernorm X and "
        "a float32 1/rms twice, LoRA_QKV X, %s attention q, k, v, output and log-sum-exp, "
        "LoRA_MLP X, e, g), + %s B in LoRA_MLP's backward (the recomputed output, dY, DW and "
        "DW's LoRA term before its in-place add: 4 x hidden + 4 x intermediate a token): %s = "
        "%s B (framework=unsloth, checkpointing=%s; unslothai/unsloth at 0050c73, "
        "kernels/utils.py matmul_lora)",
        gs, gb, gH, gk, xf ? " (K and V expanded to every head)" : "", gi, gA, gper,
        xf ? "xformers" : "flash", gw,
        mode == VS_CKPT_FULL ? "the layer inputs + one layer recomputed in the backward"
                             : "the embedding's output (the layer inputs in host memory) + one "
                               "layer recomputed in the backward",
        gbytes, vs_checkpointing_name(mode));
}

/* The sources of split activations: what the forward keeps for the backward
 * (kept), and the one layer rematerialised in it (rec). */
static void split_sources(char *kept, size_t n, char *rec, size_t m, const vs_act_shape *sh,
                          vs_checkpointing mode, const vs_act_est *e, int unsloth)
{
    char gL[40], gs[40], gb[40], gH[40], gk[40], gv[40];
    vs_units_grouped(gL, sizeof gL, sh->layers);
    vs_units_grouped(gs, sizeof gs, sh->length);
    vs_units_grouped(gb, sizeof gb, sh->microbatch);
    vs_units_grouped(gH, sizeof gH, sh->hidden);
    vs_units_grouped(gk, sizeof gk, e->kept);
    vs_units_grouped(gv, sizeof gv, e->recompute);
    if (mode == VS_CKPT_FULL)
        snprintf(kept, n,
                 "%s layers x the layer input 2 B x %s tokens x %s microbatch x %s hidden = %s "
                 "B, saved in the forward and held through the loss and the backward "
                 "(checkpointing=full)",
                 gL, gs, gb, gH, gk);
    else if (unsloth)
        snprintf(kept, n,
                 "the embedding's output 2 B x %s tokens x %s microbatch x %s hidden = %s B, held "
                 "through the loss and the backward: Unsloth's model preparation makes it a leaf "
                 "that requires grad (prepare_model_for_kbit_training calls "
                 "enable_input_require_grads, unsloth/models/_utils.py at 2024.12.4) and the "
                 "graph keeps it; the layer inputs are in host memory (checkpointing=%s)",
                 gs, gb, gH, gk, vs_checkpointing_name(mode));
    else
        snprintf(kept, n, "0 B on the GPU: the layer inputs are in host memory (checkpointing=%s)",
                 vs_checkpointing_name(mode));
    if (unsloth)
        snprintf(rec, m,
                 "one layer rematerialised in the backward after the loss, %s B: its saved "
                 "tensors and LoRA_MLP's backward beside them (Unsloth's checkpointer copies the "
                 "layer's input back, reruns the layer and calls torch.autograd.backward(output, "
                 "dY): unsloth_zoo gradient_checkpointing.py at 0373fcc)",
                 gv);
    else
        snprintf(rec, m,
                 "one layer's saved tensors, %s B, rematerialised in the backward after the loss "
                 "has freed the logits (torch.utils.checkpoint reruns each layer's forward as the "
                 "backward reaches it)",
                 gv);
}

/* framework=unsloth: the rotary tables (vs_estimate_unsloth_rope), component
 * rope_cache, in every phase: built with the model, rebuilt longer at the first
 * forward past them. per_layer: rope=layers (Unsloth 2024.12.x). cast16:
 * rope_cast=16bit, the tables as built in the model's 16-bit dtype. */
static int store_rope(json_t *sheet, const vs_act_shape *sh, int per_layer, int cast16,
                      vs_buf *skipped, json_t *sk, vs_error *err)
{
    json_t *arch = vs_sheet_card_get(sheet, VS_CK_ARCH);
    json_t *hd = json_object_get(arch, "head_dim"), *cx = json_object_get(arch, "context");
    uint64_t d = json_is_integer(hd) && json_integer_value(hd) > 0
                     ? (uint64_t)json_integer_value(hd)
                 : sh->heads && sh->hidden % sh->heads == 0 ? sh->hidden / sh->heads
                                                            : 0;
    uint64_t ctxlen =
        json_is_integer(cx) && json_integer_value(cx) > 0 ? (uint64_t)json_integer_value(cx) : 0;
    uint64_t bytes, built = ctxlen && ctxlen < 32768 ? ctxlen : 32768, step = 8192, pos;
    char src[1100], gL[40], gd[40], gp[40], gs[40], gb[40], gB[40];
    int rc, rebuilt = sh->length > built;
    if ((rc = vs_estimate_unsloth_rope(&bytes, sh->layers, d, ctxlen, sh->length, per_layer, cast16,
                                       err)) < 0)
        return rc;
    pos = rebuilt ? (sh->length + step - 1) / step * step : built;
    vs_units_grouped(gL, sizeof gL, per_layer ? sh->layers : 1);
    vs_units_grouped(gd, sizeof gd, d);
    vs_units_grouped(gp, sizeof gp, pos);
    vs_units_grouped(gs, sizeof gs, sh->length);
    vs_units_grouped(gb, sizeof gb, bytes);
    vs_units_grouped(gB, sizeof gB, built);
    snprintf(
        src, sizeof src,
        "%s x (cos + sin) x %s positions x %s head_dim x %s%s%s%s = %s B, %s (length %s; "
        "unsloth/models/llama.py LlamaRotaryEmbedding, LlamaExtendedRotaryEmbedding, "
        "extend_rope_embedding); %s",
        gL, gp, gd, rebuilt || cast16 ? "2 B" : "4 B",
        per_layer ? " + the model's own, (cos + sin) x " : "", per_layer ? gB : "",
        per_layer ? (cast16 ? " x head_dim x 2 B as built" : " x head_dim x 4 B as built") : "", gb,
        rebuilt  ? "rebuilt past the length rounded up to 8,192 positions in the activations' "
                   "16-bit dtype"
        : cast16 ? "as built: min(4 x 8,192, max_position_embeddings) positions, cast to the "
                   "model's 16-bit dtype after loading (rope_cast=16bit: post_patch's "
                   "module.cos_cached.to(correct_dtype), 'Downcast RoPE embedding to correct data "
                   "type', unsloth 2024.8 to 2024.10.0 models/llama.py; gone by 2024.12.4)"
                 : "as built: min(4 x 8,192, max_position_embeddings) positions in float32",
        gs,
        per_layer ? "rope=layers: every layer's attention builds its own table "
                    "(unsloth/models/_utils.py patch_llama_rope_scaling rewrites "
                    "LlamaAttention.__init__; Unsloth 2024.12.x with transformers <= 4.47.1)"
                  : "rope=shared: the layers share the model's table (from_pretrained sets "
                    "layer.self_attn.rotary_emb = model.model.rotary_emb, Unsloth 2025.1.1 "
                    "on)");
    return vs_verbs_estimate_store(sheet, "rope_cache", bytes, src, VS_CLASS_OTHER, skipped, sk,
                                   err);
}

static int estimate_activations(vs_ctx *ctx, const vs_line *line, json_t *sheet, vs_error *err)
{
    const vs_arg *ck = vs_line_pair(line, "checkpointing"), *nm = vs_line_pair(line, "name");
    const vs_arg *at = vs_line_pair(line, "attention"), *fw = vs_line_pair(line, "framework");
    const vs_arg *rp = vs_line_pair(line, "rope"), *rc16 = vs_line_pair(line, "rope_cast");
    const char *name = nm ? nm->value : "activations", *attn_from = "the line";
    vs_checkpointing mode;
    vs_attention attn;
    vs_act_shape sh;
    vs_act_est e;
    uint64_t logit_bytes = 0;
    int rc, from_arch = 0, logits = 0, gated, split = 0, unsloth = 0;
    char src[1000], head[1100], lsrc[1400], ksrc[640], rsrc[400], rname[80];
    char attn_note[200];
    const char *notes[7] = {NULL};
    size_t nn = 0;
    vs_buf skipped = VS_BUF_INIT;
    json_t *sk = json_array(), *inputs;

    if (!sk)
        return vs_error_oom(err);
    memset(&sh, 0, sizeof sh);
    if ((rc = vs_line_check_keys(line, vs_estimate_activations_keys, err)) < 0)
        goto done;
    if ((rc = vs_checkpointing_parse(&mode, ck ? ck->value : NULL, err)) < 0) {
        rc = vs_arg_error(ck, err, rc);
        goto done;
    }
    if ((rc = vs_attention_parse(&attn, at ? at->value : card_attention(sheet, &attn_from), err)) <
        0) {
        rc = vs_arg_error(at, err, rc);
        goto done;
    }
    if (fw && strcmp(fw->value, "pytorch") && strcmp(fw->value, "unsloth")) {
        rc =
            vs_arg_error(fw, err,
                         vs_error_set(err, VS_EVALUE,
                                      "framework must be pytorch or unsloth, not '%s'", fw->value));
        goto done;
    }
    unsloth = fw && !strcmp(fw->value, "unsloth");
    if (rp && (!unsloth || (strcmp(rp->value, "layers") && strcmp(rp->value, "shared")))) {
        rc = vs_arg_error(rp, err,
                          vs_error_set(err, VS_EVALUE,
                                       unsloth ? "rope must be shared or layers, not '%s'"
                                               : "rope= goes with framework=unsloth ('%s')",
                                       rp->value));
        goto done;
    }
    if (rc16 && (!unsloth || strcmp(rc16->value, "16bit"))) {
        rc = vs_arg_error(rc16, err,
                          vs_error_set(err, VS_EVALUE,
                                       unsloth ? "rope_cast must be 16bit, not '%s'"
                                               : "rope_cast= goes with framework=unsloth ('%s')",
                                       rc16->value));
        goto done;
    }
    if (!unsloth && attn == VS_ATTN_XFORMERS) {
        /* transformers' Llama has no xformers attention; Unsloth's runs it when
         * flash-attn is not installed */
        rc = vs_arg_error(at, err,
                          vs_error_set(err, VS_EVALUE,
                                       "attention=xformers goes with framework=unsloth (its "
                                       "attention without flash-attn)"));
        goto done;
    }
    if (unsloth && attn == VS_ATTN_EAGER) {
        /* Unsloth's Llama attention runs flash attention, else xformers or SDPA:
         * no score matrix */
        rc = vs_arg_error(at ? at : fw, err,
                          vs_error_set(err, VS_EVALUE,
                                       "framework=unsloth computes attention in tiles: give "
                                       "attention=flash or xformers, not eager"));
        goto done;
    }
    if ((rc = vs_verbs_estimate_shape(line, sheet, "layers", "layers", &sh.layers, &from_arch,
                                      err)) <= 0) {
        rc = rc < 0 ? rc : vs_verbs_estimate_need_shape(line, "layers", "activations", err);
        goto done;
    }
    if ((rc = vs_verbs_estimate_shape(line, sheet, "hidden", "hidden", &sh.hidden, &from_arch,
                                      err)) <= 0) {
        rc = rc < 0 ? rc : vs_verbs_estimate_need_shape(line, "hidden", "activations", err);
        goto done;
    }
    if (attn == VS_ATTN_EAGER) {
        if ((rc = vs_verbs_estimate_shape(line, sheet, "heads", "heads", &sh.heads, &from_arch,
                                          err)) <= 0) {
            rc = rc < 0 ? rc : vs_verbs_estimate_need_shape(line, "heads", "activations", err);
            goto done;
        }
    } else if ((rc = vs_verbs_estimate_shape(line, sheet, "heads", "heads", &sh.heads, &from_arch,
                                             err)) < 0) {
        goto done;
    }
    /* a Llama-shaped decoder on the card, its shapes not overridden on the line:
     * the tensors its layer saves, from its own widths */
    gated = !vs_line_pair(line, "layers") && !vs_line_pair(line, "hidden") &&
            vs_verbs_estimate_gated_decoder(sheet, &sh.kv_width, &sh.intermediate);
    if (!vs_sheet_card_uint(sheet, VS_CK_LENGTH, &sh.length)) {
        rc = vs_verbs_estimate_need_card(line, "length", "activations", "length 4096", err);
        goto done;
    }
    if (!vs_sheet_card_uint(sheet, VS_CK_MICROBATCH, &sh.microbatch)) {
        rc = vs_verbs_estimate_need_card(line, "microbatch", "activations", "microbatch 4", err);
        goto done;
    }
    if (unsloth) {
        if (!gated || !sh.heads) {
            rc = vs_arg_error(fw, err,
                              vs_error_set(err, VS_EVALUE,
                                           "framework=unsloth needs a Llama-shaped decoder on the "
                                           "card (model config=...), its widths not overridden on "
                                           "the line"));
            goto done;
        }
        if ((rc = vs_estimate_activations_unsloth(&e, &sh, mode, attn, err)) < 0) {
            rc = vs_arg_error(ck ? ck : fw, err, rc);
            goto done;
        }
        unsloth_source(src, sizeof src, &sh, mode, attn, &e);
        if ((rc = store_rope(sheet, &sh, rp && !strcmp(rp->value, "layers"), rc16 != NULL, &skipped,
                             sk, err)) < 0) {
            rc = vs_arg_error(rp ? rp : fw, err, rc);
            goto done;
        }
    } else {
        if ((rc = vs_estimate_activations_layers(&e, &sh, mode, attn, err)) < 0 ||
            (rc = vs_verbs_estimate_drop(sheet, "rope_cache", NULL, err)) < 0)
            goto done;
        activations_source(src, sizeof src, &sh, mode, attn, &e);
    }
    if ((rc = estimate_logits(line, sheet, sh.length, sh.microbatch, sh.hidden, unsloth,
                              &logit_bytes, &logits, lsrc, sizeof lsrc, &skipped, sk, err)) < 0)
        goto done;
    snprintf(rname, sizeof rname, "%s_recomputed", name);
    /* The logits are made after the last layer and freed by the loss's backward
     * before the backward reaches that layer, so the one layer checkpointing
     * rematerialises never coexists with them: what the forward saves is held
     * through the loss and the backward (phases loss and backward), the logits in
     * the loss only, the recomputed layer in the backward only. The optimizer
     * step runs after all are freed. */
    split = logits && e.recompute;
    if (split) {
        split_sources(ksrc, sizeof ksrc, rsrc, sizeof rsrc, &sh, mode, &e, unsloth);
        if ((rc = vs_verbs_estimate_store_phase(sheet, name, e.kept, ksrc, VS_CLASS_ACTIVATIONS,
                                                "loss,backward", &skipped, sk, err)) < 0 ||
            (rc = vs_verbs_estimate_store_phase(sheet, rname, e.recompute, rsrc,
                                                VS_CLASS_ACTIVATIONS, "backward", &skipped, sk,
                                                err)) < 0)
            goto done;
    } else {
        if ((rc = vs_verbs_estimate_store_phase(sheet, name, e.total, src, VS_CLASS_ACTIVATIONS,
                                                logits ? "loss,backward" : "backward", &skipped, sk,
                                                err)) < 0 ||
            (rc = vs_verbs_estimate_drop(sheet, rname, NULL, err)) < 0)
            goto done;
    }
    snprintf(head, sizeof head, "estimate activations (phase %s): %s",
             logits ? "loss and backward" : "backward", src);
    notes[nn++] =
        unsloth
            ? "source: Unsloth's own autograd Functions (unslothai/unsloth at 0050c73: "
              "unsloth/kernels/fast_lora.py LoRA_QKV, LoRA_W and LoRA_MLP save their inputs and, "
              "for the MLP, e and g, not the SwiGLU product; rms_layernorm.py saves X and a "
              "float32 1/rms; the rotary embedding is applied in place) and its checkpointer "
              "(unsloth_zoo/gradient_checkpointing.py: the offloaded one keeps each layer's input "
              "in host memory, copies it back and reruns the layer in the backward); each "
              "layer's rotary tables are rope_cache (unsloth/models/_utils.py "
              "patch_llama_rope_scaling, llama.py extend_rope_embedding); the "
              "allocator's fragmentation and what flash attention's own backward allocates are "
              "not counted"
        : gated
            ? "source: the tensors autograd saves for the backward in a Llama-shaped layer "
              "(RMSNorm, separate q/k/v/o, SwiGLU, no dropout), 16-bit, counted from the card's "
              "widths; full checkpointing keeps each layer's input and rematerialises one layer "
              "at a time (torch.utils.checkpoint, as transformers' gradient_checkpointing and "
              "torchtune's enable_activation_checkpointing wrap each decoder layer); offload "
              "keeps the inputs in host memory (torchtune's enable_activation_offloading)"
            : "source: Korthikanti et al. 2022, \"Reducing Activation Recomputation in Large "
              "Transformer Models\": per layer s*b*h*(34 + 5*a*s/h) bytes of 16-bit "
              "activations; selective recomputation keeps 34*s*b*h; full keeps the 2*s*b*h "
              "input of each layer and rematerialises one layer at a time in the backward";
    snprintf(attn_note, sizeof attn_note, "attention=%s (%s)%s", vs_attention_name(attn), attn_from,
             attn == VS_ATTN_EAGER && mode == VS_CKPT_NONE
                 ? ": SDPA and flash attention, the default in transformers and torchtune, keep "
                   "no score matrix (attention=sdpa)"
                 : "");
    notes[nn++] = attn_note;
    notes[nn++] =
        logits ? "phases: the logits (loss) are freed before the backward recomputes a layer "
                 "(backward), the saved activations held through both; with an optimizer's "
                 "gradients in phase step (`estimate training`) the envelope is the largest of the "
                 "three, as the gradients fill while the activations are freed"
               : "phase backward: with an optimizer's gradients in phase step (`estimate "
                 "training`) the envelope is the larger of the two, as the gradients fill while "
                 "the activations are freed";
    if (!logits)
        notes[nn++] = "the logits and the loss are not counted: give vocab= (or model config=) "
                      "to add them";
    if (from_arch)
        notes[nn++] = "shapes not given on the line come from the card's config.json architecture";
    if (skipped.len)
        notes[nn++] = vs_buf_str(&skipped);
    inputs = json_pack("{s:I, s:I, s:I, s:I, s:I, s:s, s:s, s:I, s:I, s:I, s:O}", "layers",
                       (json_int_t)sh.layers, "hidden", (json_int_t)sh.hidden, "heads",
                       (json_int_t)sh.heads, "length", (json_int_t)sh.length, "microbatch",
                       (json_int_t)sh.microbatch, "checkpointing", vs_checkpointing_name(mode),
                       "attention", vs_attention_name(attn), "per_layer_bytes",
                       (json_int_t)e.per_layer, "kv_width", (json_int_t)sh.kv_width, "intermediate",
                       (json_int_t)sh.intermediate, "skipped", sk);
    if (inputs && logits)
        json_object_set_new(inputs, "logits_bytes", json_integer((json_int_t)logit_bytes));
    {
        const char *names[4] = {name, NULL, NULL, NULL};
        size_t k = 1;
        if (split)
            names[k++] = rname;
        if (logits)
            names[k++] = "logits";
        if (unsloth)
            names[k++] = "rope_cache";
        rc = vs_verb_emit(
            ctx, vs_render_components(sheet, "activations", names, k, head, notes, inputs, NULL),
            err);
    }
done:
    vs_buf_free(&skipped);
    json_decref(sk);
    return rc;
}

/* What it reads from the card (sheet/derived.h; see lang/verbs_estimate.c's kv_reads). */
static const vs_derived_read act_reads[] = {
    {"length", NULL},
    {"microbatch", NULL},
    {"arch", "layers,hidden,heads,head_dim,context"},
    {"task", "head"}, /* loss=liger: whether the output layer is trained */
    {NULL, NULL}};

const vs_estimator vs_estimator_row_activations = {&vs_estimator_activations, estimate_activations,
                                                   act_reads};
