/* verbs_estimate.c — `estimate` and the estimators of language models (see
 * verbs_estimate.h). */
#include "lang/verbs_estimate.h"
#include "lang/verbs_estimate_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "lang/derive.h"
#include "lang/verbs_common.h"
#include "render/component.h"
#include "render/estimate.h"
#include "sheet/envelope.h"
#include "sheet/estimate.h"
#include "sheet/kvlayout.h"
#include "sheet/placement.h"
#include "sheet/sheet.h"
#include "sheet/units.h"
#include "sheet/vocab.h"
#include "util/buf.h"
#include "util/checked.h"
#include "util/json.h"

/* A shape: the key when given, else card.arch.<arch_key> (arch_key NULL: none). */
int vs_verbs_estimate_shape(const vs_line *line, const json_t *sheet, const char *key,
                            const char *arch_key, uint64_t *out, int *from_arch, vs_error *err)
{
    int present = 0, rc;
    json_t *arch = vs_sheet_card_get(sheet, VS_CK_ARCH), *v;
    if ((rc = vs_line_get_uint(line, key, 0, out, &present, err)) < 0)
        return rc;
    if (present) {
        if (*out == 0)
            return vs_arg_error(vs_line_pair(line, key), err,
                                vs_error_set(err, VS_EVALUE, "%s= must be at least 1", key));
        return 1;
    }
    v = arch_key ? json_object_get(arch, arch_key) : NULL;
    if (json_is_integer(v) && json_integer_value(v) > 0) {
        *out = (uint64_t)json_integer_value(v);
        if (from_arch)
            *from_arch = 1;
        return 1;
    }
    return 0;
}

int vs_verbs_estimate_need_shape(const vs_line *line, const char *key, const char *sub,
                                 vs_error *err)
{
    return vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                           "`estimate %s` needs %s=N (or `model NAME config=PATH`, whose "
                           "config.json gives the shapes)",
                           sub, key);
}

int vs_verbs_estimate_need_card(const vs_line *line, const char *key, const char *sub,
                                const char *example, vs_error *err)
{
    return vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                           "`estimate %s` uses the card's %s: set it first (`%s`)", sub, key,
                           example);
}

static void grouped(char *out, size_t n, uint64_t v)
{
    vs_units_grouped(out, n, v);
}

/* The layout estimate kv sizes: layers= kv_heads= head_dim= on the line
 * describe one full group (shapes not given taken from the card's arch);
 * otherwise the card's kv_layout; otherwise the arch's one shape. Returns 1
 * when a layout was found, 0 when a shape is missing (*missing names it). */
static int kv_layout_for(vs_kv_layout *l, const vs_line *line, const json_t *sheet, int *from_arch,
                         const char **missing, vs_error *err)
{
    json_t *arch = vs_sheet_card_get(sheet, VS_CK_ARCH);
    json_t *kv = json_object_get(arch, "kv_layout");
    uint64_t L, H, D;
    int rc, on_line = vs_line_pair(line, "layers") || vs_line_pair(line, "kv_heads") ||
                      vs_line_pair(line, "head_dim");
    if (!on_line && json_is_array(kv) && json_array_size(kv) > 0 &&
        vs_kv_layout_from_json(l, kv, NULL) == 0) {
        *from_arch = 1;
        return 1;
    }
    *missing = "layers";
    if ((rc = vs_verbs_estimate_shape(line, sheet, "layers", "layers", &L, from_arch, err)) <= 0)
        return rc;
    *missing = "kv_heads";
    if ((rc = vs_verbs_estimate_shape(line, sheet, "kv_heads", "kv_heads", &H, from_arch, err)) ==
        0)
        rc = vs_verbs_estimate_shape(line, sheet, "kv_heads", "heads", &H, from_arch, err);
    if (rc <= 0)
        return rc;
    *missing = "head_dim";
    if ((rc = vs_verbs_estimate_shape(line, sheet, "head_dim", "head_dim", &D, from_arch, err)) ==
        0) {
        json_t *hid = json_object_get(arch, "hidden"), *hd = json_object_get(arch, "heads");
        if (json_is_integer(hid) && json_is_integer(hd) && json_integer_value(hd) > 0 &&
            json_integer_value(hid) > 0 && json_integer_value(hid) % json_integer_value(hd) == 0) {
            D = (uint64_t)(json_integer_value(hid) / json_integer_value(hd));
            *from_arch = 1;
            rc = 1;
        }
    }
    if (rc <= 0)
        return rc;
    vs_kv_layout_uniform(l, L, H, D);
    return 1;
}

/* One group's formula with its numbers, as the text and the source show it. */
static void kv_group_formula(vs_buf *b, const vs_kv_group *g, const vs_kv_group_bytes *r,
                             const vs_kv_dims *d, const char *per, const char *dtype)
{
    char gl[40], gh[40], gd[40], gdv[40], gt[40], gc[40], gb[40], gw[40], glen[40];
    grouped(gl, sizeof gl, g->layers);
    grouped(gh, sizeof gh, r->kv_heads);
    grouped(gd, sizeof gd, g->head_dim);
    grouped(gdv, sizeof gdv, g->head_dim_v ? g->head_dim_v : g->head_dim);
    grouped(gt, sizeof gt, r->tokens);
    grouped(gc, sizeof gc, d->concurrency);
    grouped(gb, sizeof gb, r->bytes);
    grouped(gw, sizeof gw, g->window);
    grouped(glen, sizeof glen, d->length);
    switch (g->kind) {
    case VS_KV_FULL:
    case VS_KV_SLIDING:
    case VS_KV_CHUNKED:
    case VS_KV_CROSS:
        if (g->head_dim_v && g->head_dim_v != g->head_dim)
            vs_buf_printf(b, "%s layers x %s kv_heads x (%s + %s) head_dim", gl, gh, gd, gdv);
        else
            vs_buf_printf(b, "2 x %s layers x %s kv_heads x %s head_dim", gl, gh, gd);
        vs_buf_printf(b, " x %s (%s) x ", per, dtype);
        if (g->kind == VS_KV_SLIDING || g->kind == VS_KV_CHUNKED)
            vs_buf_printf(b, "min(%s window, %s) = %s tokens", gw, glen, gt);
        else if (g->kind == VS_KV_CROSS)
            vs_buf_printf(b, "%s encoder tokens", gt);
        else
            vs_buf_printf(b, "%s tokens", gt);
        vs_buf_printf(b, " x %s sequences = %s B", gc, gb);
        break;
    case VS_KV_LATENT:
        vs_buf_printf(b, "%s layers x %llu latent x %s (%s) x %s tokens x %s sequences = %s B", gl,
                      (unsigned long long)g->latent, per, dtype, gt, gc, gb);
        break;
    case VS_KV_STATE:
        vs_buf_printf(b, "%s layers x %llu B state x %s sequences = %s B", gl,
                      (unsigned long long)g->state_bytes, gc, gb);
        break;
    default:
        vs_buf_printf(b, "%s layers keep no cache = 0 B", gl);
        break;
    }
}

static int estimate_kv(vs_ctx *ctx, const vs_line *line, json_t *sheet, vs_error *err)
{
    uint64_t len, conc, bytes, per_gpu = 0, per_token = 0, enc = 0, model_bytes;
    int rc, from_arch = 0, have_enc = 0, cross = 0, uniform, under;
    const vs_arg *dt = vs_line_pair(line, "dtype"), *nm = vs_line_pair(line, "name");
    const char *dtype = dt ? dt->value : "fp16", *name = nm ? nm->value : "kv_cache", *missing;
    unsigned bits;
    char per[32], gb[40], gtp[40];
    vs_buf src = VS_BUF_INIT, skipped = VS_BUF_INIT, tpnote = VS_BUF_INIT, esrc = VS_BUF_INIT,
           enote = VS_BUF_INIT;
    json_t *sk = json_array(), *inputs = NULL, *groups = NULL;
    const char *notes[8] = {NULL};
    size_t nn = 0, i;
    vs_kv_layout l;
    vs_kv_dims d;
    vs_kv_group_bytes r[VS_KV_GROUPS_MAX];
    vs_placement pl;

    if (!sk)
        return vs_error_oom(err);
    if ((rc = vs_line_check_keys(line, vs_estimate_kv_keys, err)) < 0)
        goto done;
    if ((rc = kv_layout_for(&l, line, sheet, &from_arch, &missing, err)) <= 0) {
        rc = rc < 0 ? rc : vs_verbs_estimate_need_shape(line, missing, "kv", err);
        goto done;
    }
    uniform = l.n == 1 && l.g[0].kind == VS_KV_FULL;
    if (vs_estimate_dtype_bits(&bits, dtype, NULL) < 0) {
        rc = vs_error_set_at(err, VS_EVALUE, dt->line, dt->value_column,
                             "unknown cache dtype '%s'; expected %s (in any case)", dtype,
                             vs_estimate_dtype_names());
        goto done;
    }
    if (!vs_sheet_card_uint(sheet, VS_CK_LENGTH, &len)) {
        rc = vs_verbs_estimate_need_card(line, "length", "kv", "length 4096", err);
        goto done;
    }
    if (!vs_sheet_card_uint(sheet, VS_CK_CONCURRENCY, &conc)) {
        rc = vs_verbs_estimate_need_card(line, "concurrency", "kv", "concurrency 8", err);
        goto done;
    }
    if ((rc = vs_line_get_uint(line, "encoder_length", 0, &enc, &have_enc, err)) < 0)
        goto done;
    if (have_enc && enc == 0) {
        rc = vs_arg_error(vs_line_pair(line, "encoder_length"), err,
                          vs_error_set(err, VS_EVALUE, "encoder_length= must be at least 1"));
        goto done;
    }
    for (i = 0; i < l.n; i++)
        cross |= l.g[i].kind == VS_KV_CROSS;
    /* under tensor parallelism each GPU holds its share of the KV heads (one at
     * least) and the whole latent: the component is what all GPUs hold together */
    memset(&d, 0, sizeof d);
    d.length = len;
    d.concurrency = conc;
    d.encoder_known = have_enc;
    d.encoder_length = enc;
    d.bits = bits;
    d.tp = 1;
    if (vs_placement_from_sheet(&pl, sheet, NULL) == 0 && pl.kind == VS_PLACE_TENSOR && pl.gpus > 1)
        d.tp = pl.gpus;
    if ((rc = vs_kv_layout_bytes(&per_gpu, &per_token, r, &l, &d, err)) < 0)
        goto done;
    if (__builtin_mul_overflow(per_gpu, d.tp, &bytes)) {
        rc = vs_error_set(err, VS_EUNIT, "the KV cache does not fit in 64-bit bytes");
        goto done;
    }
    if (bits % 8 == 0)
        snprintf(per, sizeof per, "%u B", bits / 8);
    else
        snprintf(per, sizeof per, "%u/8 B", bits);
    groups = json_array();
    for (i = 0; groups && i < l.n; i++) {
        if (i)
            vs_buf_puts(&src, " + ");
        if (l.n > 1)
            vs_buf_printf(&src, "%s: ", vs_kv_kind_name(l.g[i].kind));
        kv_group_formula(&src, &l.g[i], &r[i], &d, per, dtype);
        json_array_append_new(
            groups,
            json_pack("{s:s, s:I, s:I, s:I, s:I}", "kind", vs_kv_kind_name(l.g[i].kind), "layers",
                      (json_int_t)l.g[i].layers, "tokens", (json_int_t)r[i].tokens, "kv_heads",
                      (json_int_t)r[i].kv_heads, "bytes", (json_int_t)r[i].bytes));
    }
    if (!groups) {
        rc = vs_error_oom(err);
        goto done;
    }
    grouped(gb, sizeof gb, bytes);
    if (l.n > 1)
        vs_buf_printf(&src, " = %s B", gb);
    if (d.tp > 1) {
        grouped(gtp, sizeof gtp, d.tp);
        vs_buf_printf(&src, ", per GPU; x %s GPUs (placement tensor) = %s B", gtp, gb);
    }
    if (vs_buf_failed(&src)) {
        rc = vs_error_oom(err);
        goto done;
    }
    /* under an engine the component is what that engine allocates, by the rule
     * fit uses: one figure for envelope, candidates, the records and fit */
    model_bytes = bytes;
    if ((rc = vs_verbs_estimate_kv_engine(sheet, &l, d.tp, &bytes, &esrc, err)) < 0)
        goto done;
    under = rc == 1;
    if ((rc = vs_verbs_estimate_store(sheet, name, bytes, vs_buf_str(under ? &esrc : &src),
                                      VS_CLASS_KV_CACHE, &skipped, sk, err)) < 0)
        goto done;
    if (under) {
        grouped(gb, sizeof gb, model_bytes);
        vs_buf_printf(&enote,
                      "the KV cache as the card's engine allocates it, by the rule fit uses "
                      "(`engine` without it: the model-level estimate); the model's own layout "
                      "would need %s B: %s",
                      gb, vs_buf_str(&src));
        if (dt)
            vs_buf_printf(&enote,
                          "; dtype=%s on the line gives way to the engine's cache type "
                          "(its keys: `help engine`)",
                          dtype);
        notes[nn++] = vs_buf_str(&enote);
    } else if (uniform)
        notes[nn++] =
            "keys and values of every layer for every token kept: GQA and MQA through "
            "kv_heads; the cache dtype, not the weights' format, sets the bytes per value";
    else
        notes[nn++] = "each group of layers keeps what its attention needs: full layers every "
                      "token, sliding and chunked layers at most their window, a latent layer one "
                      "compressed vector per token (DeepSeek-V2, Liu et al. 2024, section 2.1), a "
                      "cross-attention layer the encoder's tokens, a recurrent (Mamba, gated delta "
                      "net) layer a fixed state per sequence whatever the length; an engine's "
                      "pages and padding come on top";
    if (cross && !have_enc)
        notes[nn++] = "cross-attention layers sized for encoder_length = length (give "
                      "encoder_length=N for the encoder's tokens)";
    if (d.tp > 1) {
        vs_render_estimate_kv_tensor_note(&tpnote, d.tp);
        notes[nn++] = vs_buf_str(&tpnote);
    }
    if (from_arch)
        notes[nn++] = "shapes not given on the line come from the card's config.json architecture";
    if (skipped.len)
        notes[nn++] = vs_buf_str(&skipped);
    inputs = json_pack(
        "{s:o, s:o, s:o, s:s, s:i, s:I, s:I, s:o, s:I, s:O, s:I, s:O}", "layers",
        uniform ? json_integer((json_int_t)l.g[0].layers) : json_null(), "kv_heads",
        uniform ? json_integer((json_int_t)l.g[0].kv_heads) : json_null(), "head_dim",
        uniform ? json_integer((json_int_t)l.g[0].head_dim) : json_null(), "dtype", dtype, "bits",
        (int)bits, "length", (json_int_t)len, "concurrency", (json_int_t)conc, "encoder_length",
        cross ? json_integer((json_int_t)(enc ? enc : len)) : json_null(), "tp", (json_int_t)d.tp,
        "groups", groups, "bytes_per_token", (json_int_t)per_token, "skipped", sk);
    if (inputs && under &&
        (json_object_set_new(inputs, "engine", json_copy(vs_sheet_card_get(sheet, VS_CK_ENGINE))) <
             0 ||
         json_object_set_new(inputs, "model_bytes", json_integer((json_int_t)model_bytes)) < 0)) {
        json_decref(inputs);
        inputs = NULL;
    }
    {
        const char *names[1] = {name};
        vs_buf head = VS_BUF_INIT;
        json_t *extra = json_array_size(sk)
                            ? vs_json_object_of("estimate_bytes", json_integer((json_int_t)bytes),
                                                (const char *)NULL)
                            : NULL;
        vs_render_estimate_kv_headline(&head, vs_buf_str(under ? &esrc : &src));
        rc = vs_buf_failed(&head)
                 ? vs_error_oom(err)
                 : vs_verb_emit(ctx,
                                vs_render_components(sheet, "kv", names, 1, vs_buf_str(&head),
                                                     notes, inputs, extra),
                                err);
        vs_buf_free(&head);
    }
done:
    vs_buf_free(&src);
    vs_buf_free(&skipped);
    vs_buf_free(&tpnote);
    vs_buf_free(&esrc);
    vs_buf_free(&enote);
    json_decref(groups);
    json_decref(sk);
    return rc;
}

static int estimate_training(vs_ctx *ctx, const vs_line *line, json_t *sheet, vs_error *err)
{
    const vs_arg *op = vs_line_pair(line, "optimizer"), *pr = vs_line_pair(line, "precision");
    const vs_arg *comp_arg = vs_line_pair(line, "component");
    json_t *comp = NULL;
    char compnote[300];
    vs_training_rule rule;
    vs_training_est e;
    uint64_t trainable = 0, adapter = 0, rank = 0;
    int rc, step_rc = 0, have_trainable = 0, lora, by_rank = 0, qlora = 0;
    vs_lora_est le;
    vs_buf lsrc = VS_BUF_INIT;
    const char *task = vs_sheet_card_str(sheet, VS_CK_TASK);
    vs_vocab_task task_of;
    char gt[40], src[3][320], head[700], asrc[320];
    const char *names[10];
    size_t nnames = 0, nn = 0;
    const char *notes[10] = {NULL};
    vs_buf skipped = VS_BUF_INIT;
    json_t *sk = json_array(), *inputs;
    const char *grad_phase = NULL;
    char gphase_note[400] = "", one_grad[200] = "";

    if (!sk)
        return vs_error_oom(err);
    if ((rc = vs_line_check_keys(line, vs_estimate_training_keys, err)) < 0)
        goto done;
    if ((rc = vs_training_rule_get(&rule, op ? op->value : NULL, pr ? pr->value : NULL, err)) < 0) {
        rc = vs_arg_error(op && (!pr || strstr(err->message, "optimizer")) ? op : pr, err, rc);
        goto done;
    }
    if ((rc = vs_line_get_count(line, "trainable", 0, &trainable, &have_trainable, err)) < 0)
        goto done;
    lora = task && !vs_vocab_task_parse(&task_of, task, NULL) &&
           (task_of == VS_TASK_LORA || task_of == VS_TASK_QLORA);
    qlora = lora && task_of == VS_TASK_QLORA;
    if ((rc = vs_verbs_estimate_lora(line, sheet, &le, &rank, &lsrc, err)) < 0)
        goto done;
    if (rc == 1) {
        if (have_trainable || comp_arg) {
            rc = vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                                 "rank= derives the adapter's trainable parameters from the "
                                 "card's architecture: give rank= or %s, not both",
                                 have_trainable ? "trainable=" : "component=");
            goto done;
        }
        by_rank = lora = 1;
        trainable = le.trainable;
    }
    if (comp_arg) {
        /* one component of a diffusers pipeline is trained; the others stay frozen */
        json_t *wc = json_object_get(vs_sheet_get(sheet, VS_SK_WEIGHTS_FILES), "components"), *x;
        size_t k;
        vs_buf cnames = VS_BUF_INIT;
        json_array_foreach(wc, k, x)
        {
            const char *n = json_string_value(json_object_get(x, "name"));
            if (n && !strcmp(n, comp_arg->value))
                comp = x;
            vs_buf_printf(&cnames, "%s%s", cnames.len ? ", " : "", n ? n : "?");
        }
        if (!comp) {
            rc = vs_arg_error(comp_arg, err,
                              vs_error_set(err, VS_EVALUE,
                                           json_array_size(wc)
                                               ? "component=%s: the pipeline's components are %s"
                                               : "component=%s needs a diffusers pipeline on the "
                                                 "card (`model NAME pipeline=DIR`)%s",
                                           comp_arg->value, vs_buf_str(&cnames)));
            vs_buf_free(&cnames);
            goto done;
        }
        vs_buf_free(&cnames);
        if (!have_trainable && !lora)
            trainable = (uint64_t)json_integer_value(json_object_get(comp, "params"));
    }
    if (!have_trainable && !comp && !by_rank) {
        if (lora) {
            rc = vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                                 "task %s trains an adapter: give `lora rank=R [targets=...]` or "
                                 "trainable=N (its parameter count); the whole model's would "
                                 "overstate every component",
                                 task);
            goto done;
        }
        if (!vs_sheet_card_uint(sheet, VS_CK_PARAMS, &trainable)) {
            rc = vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                                 "`estimate training` needs the card's params (`model NAME "
                                 "params=N`) or trainable=N");
            goto done;
        }
    }
    if ((rc = vs_estimate_training(&e, &rule, trainable, err)) < 0)
        goto done;
    if ((rc = vs_verbs_estimate_step_gradients(line, sheet, &rule, lora, &e, &grad_phase,
                                               gphase_note, sizeof gphase_note, one_grad,
                                               sizeof one_grad, err)) < 0)
        goto done;
    grouped(gt, sizeof gt, trainable);
    snprintf(src[0], sizeof src[0], "%s trainable x %u B (gradients; precision=%s)", gt,
             rule.gradient_bytes, rule.precision);
    if (rule.paged) /* the moments are optimizer_state_paged; their scales stay here */
        snprintf(src[1], sizeof src[1],
                 rule.state_block ? "%s trainable: an fp32 scale per 256 values of each moment "
                                    "(%s; the moments: optimizer_state_paged)"
                                  : "0 B%.0s: %s keeps its moments in optimizer_state_paged",
                 gt, rule.optimizer);
    else
        snprintf(src[1], sizeof src[1], "%s trainable x %u B%s (%s moments; optimizer=%s)", gt,
                 rule.state_bytes,
                 rule.state_block ? " + an fp32 scale per 256 values of each" : "", rule.optimizer,
                 rule.optimizer);
    if (rule.master_bytes)
        snprintf(src[2], sizeof src[2], "%s trainable x %u B (fp32 master copy; precision=%s)", gt,
                 rule.master_bytes, rule.precision);
    else
        snprintf(src[2], sizeof src[2], "0 B: precision=%s keeps no separate master copy",
                 rule.precision);
    if (one_grad[0])
        snprintf(src[0], sizeof src[0], "%s", one_grad);
    if ((rc = vs_verbs_estimate_store_phase(sheet, "gradients", e.gradients, src[0],
                                            VS_CLASS_GRADIENTS, grad_phase, &skipped, sk, err)) <
            0 ||
        (rc = vs_verbs_estimate_store(sheet, "optimizer_state", e.optimizer_state, src[1],
                                      VS_CLASS_OPTIMIZER, &skipped, sk, err)) < 0 ||
        (rc = vs_verbs_estimate_store(sheet, "master_copy", e.master_copy, src[2],
                                      VS_CLASS_OPTIMIZER, &skipped, sk, err)) < 0 ||
        (rc = vs_verbs_estimate_paged_state(sheet, &rule, &e, gt, &skipped, sk, err)) < 0 ||
        (rc = step_rc =
             vs_verbs_estimate_step_transient(line, sheet, &rule, lora, &skipped, sk, err)) < 0)
        goto done;
    names[nnames++] = "gradients";
    names[nnames++] = "optimizer_state";
    if (rule.paged)
        names[nnames++] = "optimizer_state_paged";
    if (step_rc & 1)
        names[nnames++] = "optimizer_step";
    if (step_rc & 2)
        names[nnames++] = "optimizer_autotune";
    if (step_rc & 4)
        names[nnames++] = "optimizer_step_layers";
    names[nnames++] = "master_copy";
    if (lora) {
        unsigned ab = !strcmp(rule.precision, "fp32") ? 4 : 2;
        if (__builtin_mul_overflow(trainable, (uint64_t)ab, &adapter)) {
            rc = vs_error_set(err, VS_EUNIT, "the adapter weights do not fit in 64 bits");
            goto done;
        }
        snprintf(asrc, sizeof asrc, "%s adapter params x %u B (%s working copy)", gt, ab,
                 ab == 4 ? "fp32" : "16-bit");
        if ((rc = vs_verbs_estimate_store(sheet, "adapter_weights", adapter, asrc,
                                          VS_CLASS_PARAMETERS, &skipped, sk, err)) < 0)
            goto done;
        names[nnames++] = "adapter_weights";
    }
    if (by_rank && qlora) {
        if ((rc = vs_verbs_estimate_lora_qlora(sheet, &le, &skipped, sk, err)) < 0)
            goto done;
        names[nnames++] = "quant_metadata";
        names[nnames++] = "dequant_buffer";
    }
    snprintf(head, sizeof head,
             "estimate training optimizer=%s precision=%s: %s trainable params x (%u B gradients + "
             "%u B master copy + %u B optimizer state) = %u B per trainable param, the weights on "
             "top (%s)",
             rule.optimizer, rule.precision, gt, rule.gradient_bytes, rule.master_bytes,
             rule.state_bytes, rule.gradient_bytes + rule.master_bytes + rule.state_bytes,
             rule.why);
    notes[nn++] = "source: Rajbhandari et al. 2020, ZeRO (mixed-precision Adam: 2 B weights + 2 B "
                  "gradients + K = 12 B of optimizer state, the master copy included, per "
                  "parameter); ZeRO stage 1 shards all 12";
    if (by_rank) {
        notes[nn++] = vs_buf_str(&lsrc);
        notes[nn++] = "LoRA (Hu et al. 2021) as PEFT builds it: each targeted nn.Linear(in, out) "
                      "gets lora_A (in x r) and lora_B (r x out), no bias "
                      "(peft/tuners/lora/layer.py, LoraLayer.update_layer, PEFT commit "
                      "00336949, the 0.17 series); alpha scales the update, not the memory";
    }
    if (by_rank && qlora)
        notes[nn++] = "QLoRA: the frozen base in nf4 with double quantisation (quant_metadata) and "
                      "the largest layer dequantised to bf16 for its matmul (dequant_buffer); the "
                      "embeddings and the output layer stay 16-bit";
    if (lora)
        notes[nn++] = "LoRA/QLoRA: gradients and optimizer state cover the trainable adapter only; "
                      "the frozen weights keep the sheet's format";
    if (comp) {
        snprintf(compnote, sizeof compnote,
                 "component %s (%s) is trained%s; the pipeline's other components stay frozen in "
                 "their stored format (their bytes are the sheet's weights, unchanged)",
                 comp_arg->value, json_string_value(json_object_get(comp, "class")),
                 lora ? " through its adapter" : ": trainable = its parameters, from its files");
        notes[nn++] = compnote;
    }
    if (gphase_note[0])
        notes[nn++] = gphase_note;
    notes[nn++] = "activations are separate: `estimate activations`";
    if (skipped.len)
        notes[nn++] = vs_buf_str(&skipped);
    inputs = json_pack(
        "{s:s, s:s, s:I, s:b, s:i, s:i, s:i, s:O, s:o, s:o}", "optimizer", rule.optimizer,
        "precision", rule.precision, "trainable", (json_int_t)trainable, "trainable_declared",
        have_trainable, "gradient_bytes", (int)rule.gradient_bytes, "master_bytes",
        (int)rule.master_bytes, "state_bytes", (int)rule.state_bytes, "skipped", sk, "rank",
        by_rank ? json_integer((json_int_t)rank) : json_null(), "targets",
        by_rank ? json_string(vs_line_pair(line, "targets") ? vs_line_pair(line, "targets")->value
                                                            : "all-linear")
                : json_null());
    rc = vs_verb_emit(
        ctx, vs_render_components(sheet, "training", names, nnames, head, notes, inputs, NULL),
        err);
done:
    vs_buf_free(&skipped);
    vs_buf_free(&lsrc);
    json_decref(sk);
    return rc;
}

static int estimate_quant(vs_ctx *ctx, const vs_line *line, json_t *sheet, vs_error *err)
{
    const vs_arg *sc = vs_line_pair(line, "scheme"), *dq = vs_line_pair(line, "double");
    const vs_arg *nm = vs_line_pair(line, "name");
    const char *name = nm ? nm->value : "quant_metadata", *scheme,
               *format = vs_sheet_card_str(sheet, VS_CK_FORMAT);
    vs_quant_rule q;
    uint64_t group = 0, params = 0, bits = 0, bytes;
    int rc, have_params = 0, dbl = 1, have_bits = 0, have_group = 0, counted = 0;
    vs_vocab_format format_of;
    const int format_known = !vs_vocab_format_parse(&format_of, NULL, format, NULL);
    char gp[40], gg[40], gbytes[40], g2[40], src[700], head[800];
    const char *notes[4] = {NULL};
    size_t nn = 0;
    vs_buf skipped = VS_BUF_INIT;
    json_t *sk = json_array(), *inputs;

    if (!sk)
        return vs_error_oom(err);
    if ((rc = vs_line_check_keys(line, vs_estimate_quant_keys, err)) < 0)
        goto done;
    /* the words of `format` (`help format`): gptq and awq store an fp16 scale
     * and a packed zero per group alike; bnb-nf4 and bnb-fp4 are bitsandbytes */
    if (sc && (!strcmp(sc->value, "awq") || !strcmp(sc->value, "gptq")))
        scheme = "gptq";
    else if (sc && (!strcmp(sc->value, "bnb-nf4") || !strcmp(sc->value, "bnb-fp4")))
        scheme = "bnb";
    else if (sc)
        scheme = sc->value;
    else if (format_known && (format_of == VS_FORMAT_NF4 || format_of == VS_FORMAT_FP4))
        scheme = "bnb";
    else if (format_known && format_of == VS_FORMAT_INT4)
        scheme = "gptq";
    else if (format_known && format_of == VS_FORMAT_SCHEME &&
             (!strncmp(format, "gptq", 4) || !strncmp(format, "awq", 3)))
        scheme = "gptq";
    else if (format_known && format_of == VS_FORMAT_SCHEME &&
             (!strcmp(format, "bnb-nf4") || !strcmp(format, "bnb-fp4")))
        scheme = "bnb";
    else {
        rc = vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                             "`estimate quant` needs scheme=bnb|gptq|group (the card's format "
                             "%s does not imply one)",
                             format ? format : "is not set and");
        goto done;
    }
    if (dq) {
        if (!strcmp(dq->value, "yes") || !strcmp(dq->value, "true"))
            dbl = 1;
        else if (!strcmp(dq->value, "no") || !strcmp(dq->value, "false"))
            dbl = 0;
        else {
            rc = vs_error_set_at(err, VS_EVALUE, dq->line, dq->value_column,
                                 "double= must be yes or no, not '%s'", dq->value);
            goto done;
        }
    }
    if ((rc = vs_line_get_uint(line, "group", 0, &group, &have_group, err)) < 0 ||
        (rc = vs_line_get_uint(line, "bits", 0, &bits, &have_bits, err)) < 0 ||
        (rc = vs_line_get_count(line, "params", 0, &params, &have_params, err)) < 0)
        goto done;
    /* 0 stands for "the scheme's default" below; a written group=0 is a mistake */
    if (have_group && (rc = vs_estimate_quant_group_check(group, err)) < 0) {
        rc = vs_arg_error(vs_line_pair(line, "group"), err, rc);
        goto done;
    }
    if (!have_group && format_known && format_of == VS_FORMAT_SCHEME && strstr(format, " group="))
        group = strtoull(strstr(format, " group=") + 7, NULL, 10); /* the card's scheme's group */
    if (!have_bits) {
        /* the card's width when it is a quantised one, else the scheme's (0) */
        unsigned wb;
        bits = vs_sheet_weight_bits(sheet, &wb) && wb <= 8 ? wb : 0;
    }
    if (bits > 64) {
        rc = vs_arg_error(vs_line_pair(line, "bits"), err,
                          vs_error_set(err, VS_EVALUE, "bits= must be 1 to 8"));
        goto done;
    }
    if ((rc = vs_quant_rule_get(&q, scheme, group, dbl, (unsigned)bits, 16, err)) < 0) {
        rc = vs_arg_error(sc ? sc : vs_line_pair(line, "group"), err, rc);
        goto done;
    }
    if (!have_params && !vs_sheet_card_uint(sheet, VS_CK_PARAMS, &params)) {
        rc = vs_error_set_at(err, VS_EVALUE, line->line, line->column,
                             "`estimate quant` needs the card's params or params=COUNT (the "
                             "quantised ones)");
        goto done;
    }
    if ((rc = vs_estimate_quant(&bytes, &q, params, err)) < 0)
        goto done;
    if (json_is_string(json_object_get(vs_sheet_get(sheet, VS_SK_WEIGHTS_FILES), "scheme")) ||
        json_is_string(json_object_get(vs_sheet_get(sheet, VS_SK_WEIGHTS_FILES), "measured"))) {
        /* the card's weights already hold the scales and zeros (a tally tensor by
         * tensor, or the loader's own figure): counting them again would be twice */
        bytes = 0;
        counted = 1;
        snprintf(src, sizeof src,
                 "0 B: the weights of format %s already hold their scales, zeros and indices "
                 "(`weights` lists them)",
                 format ? format : "?");
        goto store;
    }
    grouped(gp, sizeof gp, params);
    grouped(gg, sizeof gg, q.group);
    grouped(gbytes, sizeof gbytes, bytes);
    if (q.group2) {
        uint64_t groups = params / q.group + (params % q.group != 0);
        grouped(g2, sizeof g2, groups);
        snprintf(src, sizeof src,
                 "ceil(%s / %s) x %u bits + ceil(%s / %llu) x %u bits = %s B (scheme=%s, double "
                 "quantisation)",
                 gp, gg, q.meta_bits, g2, (unsigned long long)q.group2, q.meta2_bits, gbytes,
                 q.scheme);
    } else {
        snprintf(src, sizeof src, "ceil(%s / %s) x %u bits = %s B (scheme=%s%s)", gp, gg,
                 q.meta_bits, gbytes, q.scheme,
                 !strcmp(q.scheme, "bnb") ? ", no double quantisation" : "");
    }
    if (format_known && format_of == VS_FORMAT_SCHEME)
        snprintf(src + strlen(src) - 1, sizeof src - strlen(src) + 1, ", format %s)", format);
store:
    if ((rc = vs_verbs_estimate_store(sheet, name, bytes, src, VS_CLASS_PARAMETERS, &skipped, sk,
                                      err)) < 0)
        goto done;
    snprintf(head, sizeof head, "estimate quant: %s", src);
    if (counted) {
        notes[nn++] = "scales and zeros are counted once: in the weights";
    } else {
        notes[nn++] = q.source;
        notes[nn++] = "not included: per-tensor constants (code tables, act-order indices) and "
                      "the layers kept in 16 bits (embeddings, lm_head, norms), which `weights "
                      "from=PATH` measures exactly";
    }
    if (skipped.len)
        notes[nn++] = vs_buf_str(&skipped);
    inputs = json_pack("{s:s, s:I, s:i, s:I, s:i, s:I, s:O}", "scheme", q.scheme, "group",
                       (json_int_t)q.group, "meta_bits", (int)q.meta_bits, "group2",
                       (json_int_t)q.group2, "meta2_bits", (int)q.meta2_bits, "params",
                       (json_int_t)params, "skipped", sk);
    {
        const char *names[1] = {name};
        rc = vs_verb_emit(
            ctx, vs_render_components(sheet, "quant", names, 1, head, notes, inputs, NULL), err);
    }
done:
    vs_buf_free(&skipped);
    json_decref(sk);
    return rc;
}

static int lora_word(const vs_line *line, const vs_arg *a)
{
    const vs_arg *b = vs_line_positional(line, 1);
    return b && !strcmp(a->value, "training") && !strcmp(b->value, "lora");
}

int vs_verb_estimate(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    const vs_arg *a = vs_line_positional(line, 0);
    const vs_estimator *e, *const *r;
    json_t *sheet;
    vs_buf syntax = VS_BUF_INIT, names = VS_BUF_INIT;
    int rc;
    /* the names and the syntax quoted in errors, from the table */
    vs_buf_puts(&syntax, "estimate ");
    for (r = vs_estimators; *r; r++) {
        vs_buf_printf(&syntax, "%s%s", r == vs_estimators ? "" : "|", (*r)->info->name);
        vs_buf_printf(&names, "%s%s",
                      r == vs_estimators ? ""
                      : r[1]             ? ", "
                                         : " or ",
                      (*r)->info->name);
    }
    vs_buf_puts(&syntax, " [KEY=VALUE ...]");
    if (vs_buf_failed(&syntax) || vs_buf_failed(&names))
        rc = vs_error_oom(err);
    else if (!a)
        rc = vs_error_set_at(err, VS_EVALUE, line->line, line->column, "expected `%s`",
                             vs_buf_str(&syntax));
    /* `estimate training lora rank=...`: the word says what rank= means */
    else if ((rc = vs_line_no_extra(line, lora_word(line, a) ? 2 : 1, vs_buf_str(&syntax), err)) <
             0)
        ;
    else if (!(sheet = vs_verb_sheet_of(ctx, err)))
        rc = VS_ENOMEM;
    else if ((e = vs_estimator_find(a->value)) != NULL)
        rc = vs_derive_run(ctx, line, sheet, e, err);
    else
        rc = vs_error_set_at(err, VS_EVALUE, a->line, a->column,
                             "unknown estimator '%s'; expected %s", a->value, vs_buf_str(&names));
    vs_buf_free(&syntax);
    vs_buf_free(&names);
    return rc;
}

/* What each estimator reads from the card (sheet/derived.h): when any of it
 * changes, the estimate is recomputed from its keys (lang/derive.h). A read
 * with `unless` keys is skipped when the line wrote all of them. An estimator
 * whose figure depends on the placement (or, later, the engine) lists
 * {"placement", NULL}; estimate kv reads {"placement.tp", NULL}, the tensor
 * ways alone (under tensor parallelism a GPU holds ceil(kv_heads / tp) heads,
 * which the envelope's split by class cannot say; ZeRO or DDP change nothing),
 * and the engine, whose pages, cells and cache types the component is. */
static const vs_derived_read kv_reads[] = {
    {"length", NULL},
    {"concurrency", NULL},
    {"arch", "layers,kv_heads,head_dim"},
    {"placement.tp", NULL}, /* tensor parallel: the KV heads each GPU holds */
    {"engine", NULL},       /* under an engine, what it allocates (its keys, its release) */
    {NULL, NULL}};
static const vs_derived_read training_reads[] = {{"params", "trainable"},
                                                 {"task", NULL},
                                                 {"arch", "trainable"},
                                                 {"accumulation", NULL},
                                                 {NULL, NULL}};
static const vs_derived_read quant_reads[] = {
    {"format", "scheme,bits"}, {"bits", "bits"}, {"params", "params"}, {NULL, NULL}};

const vs_estimator vs_estimator_row_kv = {&vs_estimator_kv, estimate_kv, kv_reads};
const vs_estimator vs_estimator_row_training = {&vs_estimator_training, estimate_training,
                                                training_reads};
const vs_estimator vs_estimator_row_quant = {&vs_estimator_quant, estimate_quant, quant_reads};
