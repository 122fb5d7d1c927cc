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
    const json_t *eng = json_object_get(vs_sheet_card(sheet), "engine");
    const vs_engine *engine = vs_engine_find(vs_json_str_of(eng, "name"));
    const char *written = vs_json_str_of(json_object_get(eng, "keys"), "attention");
    size_t i;
    if (engine && vs_engine_key_index(engine, "attention", &i)) {
        *from = written ? "the card's engine line" : "the card's engine's default";
        return written ? written : engine->keys[i].def;
    }
    *from = "no engine on the card with an attention key";
    return "eager";
}

/* Adds the logits component: the float32 upcast of the loss over tokens x vocab. */
static int estimate_logits(const vs_line *line, json_t *sheet, uint64_t s, uint64_t b,
                           uint64_t *out_bytes, int *counted, char *src, size_t srclen,
                           vs_buf *skipped, json_t *sk, vs_error *err)
{
    const vs_arg *ls = vs_line_pair(line, "loss"), *ch = vs_line_pair(line, "chunks");
    uint64_t V = 0, chunks = 1, tokens;
    int rc, from_arch = 0;
    char gV[40], gt[40], gbytes[40];
    *counted = 0;
    if ((rc = vs_verbs_estimate_shape(line, sheet, "vocab", "vocab", &V, &from_arch, err)) < 0)
        return rc;
    if (rc == 0 || V == 0)
        return 0; /* no vocabulary known: said in a note */
    if (ls && strcmp(ls->value, "full") && strcmp(ls->value, "chunked"))
        return vs_arg_error(
            ls, err,
            vs_error_set(err, VS_EVALUE, "loss must be full or chunked, not '%s'", ls->value));
    if (ch && (!ls || strcmp(ls->value, "chunked")))
        return vs_arg_error(ch, err,
                            vs_error_set(err, VS_EVALUE, "chunks= goes with loss=chunked"));
    if (ls && !strcmp(ls->value, "chunked")) {
        chunks = 8; /* torchtune's CEWithChunkedOutputLoss(num_output_chunks=8) */
        int present = 0;
        if ((rc = vs_line_get_uint(line, "chunks", 0, &chunks, &present, err)) < 0)
            return rc;
        if (present && chunks == 0)
            return vs_arg_error(ch, err, vs_error_set(err, VS_EVALUE, "chunks must be at least 1"));
    }
    if (vs_checked_mul(&tokens, s, b))
        return vs_error_set(err, VS_EUNIT, "the logits: length x microbatch overflows");
    if ((rc = vs_estimate_logits(out_bytes, tokens, V, chunks, err)) < 0)
        return rc;
    vs_units_grouped(gV, sizeof gV, V);
    vs_units_grouped(gt, sizeof gt, tokens);
    vs_units_grouped(gbytes, sizeof gbytes, *out_bytes);
    if (chunks > 1)
        snprintf(src, srclen,
                 "%s tokens x %s vocabulary x 4 B / %" PRIu64 " chunks = %s B (the float32 "
                 "logits of one chunk of the loss at a time: torchtune CEWithChunkedOutputLoss)",
                 gt, gV, chunks, gbytes);
    else
        snprintf(src, srclen,
                 "%s tokens x %s vocabulary x 4 B = %s B (the float32 upcast of the logits the "
                 "loss takes: transformers loss_utils.py ForCausalLMLoss, logits.float())",
                 gt, gV, gbytes);
    if ((rc = vs_verbs_estimate_store(sheet, "logits", *out_bytes, src, VS_CLASS_ACTIVATIONS,
                                      skipped, sk, err)) < 0)
        return rc;
    *counted = 1;
    return 0;
}

static int estimate_activations(vs_ctx *ctx, const vs_line *line, json_t *sheet, vs_error *err)
{
    const vs_arg *ck = vs_line_pair(line, "checkpointing"), *nm = vs_line_pair(line, "name");
    const vs_arg *at = vs_line_pair(line, "attention");
    const char *name = nm ? nm->value : "activations", *attn_from = "the line";
    vs_checkpointing mode, formula;
    vs_attention attn;
    uint64_t L, H, A = 0, s, b, bytes, logit_bytes = 0;
    int rc, from_arch = 0, logits = 0;
    char gL[40], gH[40], gA[40], gs[40], gb[40], gbytes[40], src[600], head[700], lsrc[400];
    char attn_note[200];
    const char *notes[6] = {NULL};
    size_t nn = 0;
    vs_buf skipped = VS_BUF_INIT;
    json_t *sk = json_array(), *inputs;

    if (!sk)
        return vs_error_oom(err);
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
    /* tiled attention keeps no score matrix: with no checkpointing the layer keeps
     * what selective recomputation keeps */
    formula = mode == VS_CKPT_NONE && attn != VS_ATTN_EAGER ? VS_CKPT_SELECTIVE : mode;
    if ((rc = vs_verbs_estimate_shape(line, sheet, "layers", "layers", &L, &from_arch, err)) <= 0) {
        rc = rc < 0 ? rc : vs_verbs_estimate_need_shape(line, "layers", "activations", err);
        goto done;
    }
    if ((rc = vs_verbs_estimate_shape(line, sheet, "hidden", "hidden", &H, &from_arch, err)) <= 0) {
        rc = rc < 0 ? rc : vs_verbs_estimate_need_shape(line, "hidden", "activations", err);
        goto done;
    }
    if (formula == VS_CKPT_NONE) {
        if ((rc = vs_verbs_estimate_shape(line, sheet, "heads", "heads", &A, &from_arch, err)) <=
            0) {
            rc = rc < 0 ? rc : vs_verbs_estimate_need_shape(line, "heads", "activations", err);
            goto done;
        }
    } else if ((rc = vs_verbs_estimate_shape(line, sheet, "heads", "heads", &A, &from_arch, err)) <
               0) {
        goto done;
    }
    if (!vs_sheet_card_uint(sheet, "length", &s)) {
        rc = vs_verbs_estimate_need_card(line, "length", "activations", "length 4096", err);
        goto done;
    }
    if (!vs_sheet_card_uint(sheet, "microbatch", &b)) {
        rc = vs_verbs_estimate_need_card(line, "microbatch", "activations", "microbatch 4", err);
        goto done;
    }
    if ((rc = vs_estimate_activations(&bytes, L, H, A, s, b, formula, err)) < 0)
        goto done;
    vs_units_grouped(gL, sizeof gL, L);
    vs_units_grouped(gH, sizeof gH, H);
    vs_units_grouped(gA, sizeof gA, A);
    vs_units_grouped(gs, sizeof gs, s);
    vs_units_grouped(gb, sizeof gb, b);
    vs_units_grouped(gbytes, sizeof gbytes, bytes);
    if (formula == VS_CKPT_NONE)
        snprintf(src, sizeof src,
                 "%s layers x %s tokens x %s microbatch x %s hidden x (34 + 5 x %s heads x %s / "
                 "%s) = %s B (checkpointing=none, attention=eager; Korthikanti et al. 2022)",
                 gL, gs, gb, gH, gA, gs, gH, gbytes);
    else if (mode == VS_CKPT_NONE)
        snprintf(src, sizeof src,
                 "%s layers x %s tokens x %s microbatch x %s hidden x 34 = %s B "
                 "(checkpointing=none, attention=%s: no score matrix is kept; Korthikanti et al. "
                 "2022, Dao et al. 2022)",
                 gL, gs, gb, gH, gbytes, vs_attention_name(attn));
    else if (mode == VS_CKPT_SELECTIVE)
        snprintf(src, sizeof src,
                 "%s layers x %s tokens x %s microbatch x %s hidden x 34 = %s B "
                 "(checkpointing=selective; Korthikanti et al. 2022)",
                 gL, gs, gb, gH, gbytes);
    else
        snprintf(
            src, sizeof src,
            "%s layers x 2 x %s tokens x %s microbatch x %s hidden = %s B (checkpointing=full: "
            "the layer input only; Korthikanti et al. 2022)",
            gL, gs, gb, gH, gbytes);
    if ((rc = vs_verbs_estimate_store(sheet, name, bytes, src, VS_CLASS_ACTIVATIONS, &skipped, sk,
                                      err)) < 0)
        goto done;
    if ((rc = estimate_logits(line, sheet, s, b, &logit_bytes, &logits, lsrc, sizeof lsrc, &skipped,
                              sk, err)) < 0)
        goto done;
    snprintf(head, sizeof head, "estimate activations: %s", src);
    notes[nn++] =
        "source: Korthikanti et al. 2022, \"Reducing Activation Recomputation in Large "
        "Transformer Models\": per layer s*b*h*(34 + 5*a*s/h) bytes of 16-bit "
        "activations; selective recomputation keeps 34*s*b*h, full keeps the 2*s*b*h input";
    snprintf(attn_note, sizeof attn_note, "attention=%s (%s)%s", vs_attention_name(attn), attn_from,
             attn == VS_ATTN_EAGER && mode == VS_CKPT_NONE
                 ? ": SDPA and flash attention, the default in transformers and torchtune, keep "
                   "no score matrix (attention=sdpa)"
                 : "");
    notes[nn++] = attn_note;
    if (!logits)
        notes[nn++] = "the logits and the loss are not counted: give vocab= (or model config=) "
                      "to add them";
    if (from_arch)
        notes[nn++] = "shapes not given on the line come from the card's config.json architecture";
    if (skipped.len)
        notes[nn++] = vs_buf_str(&skipped);
    inputs = json_pack("{s:I, s:I, s:I, s:I, s:I, s:s, s:s, s:O}", "layers", (json_int_t)L,
                       "hidden", (json_int_t)H, "heads", (json_int_t)A, "length", (json_int_t)s,
                       "microbatch", (json_int_t)b, "checkpointing", vs_checkpointing_name(mode),
                       "attention", vs_attention_name(attn), "skipped", sk);
    if (inputs && logits)
        json_object_set_new(inputs, "logits_bytes", json_integer((json_int_t)logit_bytes));
    {
        const char *names[2] = {name, "logits"};
        rc = vs_verb_emit(ctx,
                          vs_render_components(sheet, "activations", names, logits ? 2 : 1, head,
                                               notes, inputs, NULL),
                          err);
    }
done:
    vs_buf_free(&skipped);
    json_decref(sk);
    return rc;
}

/* What it reads from the card (sheet/derived.h; see lang/verbs_estimate.c's kv_reads). */
static const vs_derived_read act_reads[] = {
    {"length", NULL}, {"microbatch", NULL}, {"arch", "layers,hidden,heads"}, {NULL, NULL}};

const vs_estimator vs_estimator_row_activations = {&vs_estimator_activations, estimate_activations,
                                                   act_reads};
