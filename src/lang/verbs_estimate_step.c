/* verbs_estimate_step.c — when a training step's gradients are on the GPU,
 * the phase `estimate training` gives them, and what the optimizer step itself
 * allocates (see verbs_estimate_internal.h). */
#include "lang/verbs_estimate_internal.h"

#include <stdio.h>
#include <string.h>

#include "sheet/sheet.h"
#include "sheet/units.h"
#include "sheet/vocab.h"
#include "util/checked.h"
#include "util/json.h"

/* The output layer's values (vocab x hidden) and a layer's largest
 * projection's (intermediate x hidden) from the card's architecture, and
 * whether the output layer is the input embedding (tie_word_embeddings). 0s
 * when the card has no such shape; -1 when one does not fit in 64 bits. */
static int param_shapes(const json_t *sheet, uint64_t *head, uint64_t *layer, int *tied)
{
    json_t *arch = vs_sheet_card_get(sheet, VS_CK_ARCH);
    uint64_t V = (uint64_t)json_integer_value(json_object_get(arch, "vocab"));
    uint64_t H = (uint64_t)json_integer_value(json_object_get(arch, "hidden"));
    uint64_t I = (uint64_t)json_integer_value(json_object_get(arch, "intermediate"));
    *head = *layer = 0;
    *tied = json_is_true(json_object_get(arch, "tied_embeddings"));
    if (!V || !H)
        return 0;
    return vs_checked_mul(head, V, H) || vs_checked_mul(layer, I, H) ? -1 : 0;
}

/* The largest parameter's values from the card's architecture: the embedding
 * (vocab x hidden) or an MLP projection (intermediate x hidden). *out 0 when
 * the card has no such shape; -1 when it does not fit in 64 bits. */
static int largest_param(const json_t *sheet, uint64_t *out)
{
    uint64_t head, layer;
    int tied;
    *out = 0;
    if (param_shapes(sheet, &head, &layer, &tied) < 0)
        return -1;
    *out = head > layer ? head : layer;
    return 0;
}

/* When the gradients are on the GPU. One micro-batch a step, they are filled
 * by the backward as it frees the activations and held through the optimizer
 * step: phase step (the envelope is then the larger of backward and step).
 * An adapter's (task lora, qlora) are filled the same way, layer by layer, as
 * each layer's backward ends (autograd's AccumulateGrad), but they are not
 * traded against what the backward frees: the layer the backward recomputes
 * last runs beside nearly all of them (under checkpointing=offload nothing of
 * the forward is left on the GPU to free; Unsloth's checkpointer calls
 * torch.autograd.backward inside each layer's backward, unsloth_zoo
 * gradient_checkpointing.py at 2024.12.1), so they are counted whole in the
 * backward too: phases backward and step (an over-count by the last layer's
 * own, 1 / layers of them).
 * Accumulated over micro-batches, they stay through the next forward: no
 * phase. in_backward=yes (torchtune's optimizer_in_bwd, a step per parameter
 * as its gradient is ready, the gradient freed): one parameter's gradient at a
 * time, the largest, beside the activations. */
int vs_verbs_estimate_step_gradients(const vs_line *line, const json_t *sheet,
                                     const vs_training_rule *rule, int lora, vs_training_est *e,
                                     const char **phase, char *note, size_t notelen, char *src,
                                     size_t srclen, vs_error *err)
{
    const vs_arg *ib = vs_line_pair(line, "in_backward");
    uint64_t acc = 1, largest;
    char gl[40], gb[40];
    *phase = lora ? "backward,step" : "step";
    note[0] = 0;
    if (lora)
        snprintf(note, notelen,
                 "the adapter's gradients are filled by the backward as each layer's ends and "
                 "the layers recomputed last run beside them: phases backward and step");
    if (ib && strcmp(ib->value, "yes") && strcmp(ib->value, "no"))
        return vs_arg_error(
            ib, err,
            vs_error_set(err, VS_EVALUE, "in_backward= must be yes or no, not '%s'", ib->value));
    if (ib && !strcmp(ib->value, "yes")) {
        if (lora)
            return vs_arg_error(ib, err,
                                vs_error_set(err, VS_EVALUE,
                                             "in_backward=yes steps each parameter of a full "
                                             "finetune as its gradient is ready; an adapter's "
                                             "gradients are small: leave it out"));
        if (largest_param(sheet, &largest) < 0)
            return vs_error_set(err, VS_EUNIT, "the gradient does not fit in 64 bits");
        if (!largest)
            return vs_arg_error(ib, err,
                                vs_error_set(err, VS_EVALUE,
                                             "in_backward=yes holds the largest parameter's "
                                             "gradient: the card's architecture (`model NAME "
                                             "config=PATH`) gives its shape"));
        if (vs_checked_mul(&e->gradients, largest, rule->gradient_bytes))
            return vs_error_set(err, VS_EUNIT, "the gradient does not fit in 64 bits");
        *phase = NULL;
        vs_units_grouped(gl, sizeof gl, largest);
        vs_units_grouped(gb, sizeof gb, e->gradients);
        snprintf(src, srclen,
                 "the largest parameter's gradient, %s x %u B (one at a time: in_backward=yes)", gl,
                 rule->gradient_bytes);
        snprintf(note, notelen,
                 "in_backward=yes: the optimizer steps each parameter in the backward as its "
                 "gradient is ready and frees it (torchtune optimizer_in_bwd): one gradient at a "
                 "time, the largest parameter's, %s x %u B = %s B, beside the activations",
                 gl, rule->gradient_bytes, gb);
        return 0;
    }
    if (vs_sheet_card_uint(sheet, VS_CK_ACCUMULATION, &acc) && acc > 1) {
        *phase = NULL;
        snprintf(note, notelen,
                 "microbatch accumulation=%llu: the gradients accumulate over the micro-batches, "
                 "so they are on the GPU with the next forward's activations (no phase)",
                 (unsigned long long)acc);
    }
    return 0;
}

#define PAGED_NAME "optimizer_state_paged"

int vs_verbs_estimate_paged_state(json_t *sheet, const vs_training_rule *rule,
                                  const vs_training_est *e, const char *gt, vs_buf *skipped,
                                  json_t *skipped_list, vs_error *err)
{
    json_t *comps = vs_sheet_array(sheet, VS_SK_COMPONENTS), *c;
    char src[400];
    size_t i;
    int rc;
    if (!rule->paged) {
        /* another optimizer now: the paged moments an earlier line estimated go */
        vs_json_array_foreach(comps, i, c)
        {
            if (vs_sheet_component_str(c, VS_COMPK_NAME) &&
                !strcmp(vs_sheet_component_str(c, VS_COMPK_NAME), PAGED_NAME) &&
                vs_vocab_status_is(vs_sheet_component_str(c, VS_COMPK_STATUS), VS_STATUS_ESTIMATED))
                return vs_sheet_remove_component(sheet, i) < 0
                           ? vs_error_set(err, VS_ENOMEM, "out of memory")
                           : 0;
        }
        return 0;
    }
    snprintf(src, sizeof src,
             "%s trainable x %u B (the moments of %s, CUDA managed memory: bitsandbytes' "
             "get_paged, cudaMallocManaged; the device holds it while resident, "
             "torch.cuda.max_memory_allocated does not count it)",
             gt, rule->state_bytes, rule->optimizer);
    if ((rc = vs_verbs_estimate_store(sheet, PAGED_NAME, e->paged_state, src, VS_CLASS_OPTIMIZER,
                                      skipped, skipped_list, err)) <= 0)
        return rc; /* 0: a measured component of that name kept */
    comps = vs_sheet_array(sheet, VS_SK_COMPONENTS);
    vs_json_array_foreach(comps, i, c)
    {
        if (vs_sheet_component_str(c, VS_COMPK_NAME) &&
            !strcmp(vs_sheet_component_str(c, VS_COMPK_NAME), PAGED_NAME))
            return vs_sheet_component_with(sheet, i, VS_MEMORY_KEY,
                                           json_string(VS_MEMORY_MANAGED)) < 0
                       ? vs_error_set(err, VS_ENOMEM, "out of memory")
                       : 1;
    }
    return 1;
}

#define STEP_NAME "optimizer_step"
#define TUNE_NAME "optimizer_autotune"

#define LAYERS_NAME "optimizer_step_layers"

/* The layers' own steps under in_backward=yes, while the backward recomputes
 * a layer: each parameter of a layer is stepped as its gradient is ready,
 * one at a time, the largest a projection of layer values (gate, up, down),
 * its step's buffer and, at the first step, its autotuning (one shape at a
 * time) in phase backward. 1 when stored, 0 when not (an earlier estimate
 * dropped), or a negative error. */
static int layer_steps(json_t *sheet, const vs_arg *ta, const vs_training_rule *rule,
                       uint64_t layer, unsigned pb, vs_buf *skipped, json_t *skipped_list,
                       vs_error *err)
{
    vs_adamw8bit_step_est s;
    uint64_t bytes;
    char gn[40], gb[40], gt[40], src[700];
    int rc;
    if (layer < 4096 || layer % rule->state_block)
        return vs_verbs_estimate_drop(sheet, LAYERS_NAME, NULL, err);
    if ((rc = vs_estimate_adamw8bit_step(&s, ta ? ta->value : NULL, layer, pb, rule->state_block,
                                         err)) < 0)
        return ta ? vs_arg_error(ta, err, rc) : rc;
    if (vs_checked_add(&bytes, s.every_step, s.first_step))
        return vs_error_set(err, VS_EUNIT, "the layers' step does not fit in 64 bits");
    if (!bytes)
        return vs_verbs_estimate_drop(sheet, LAYERS_NAME, NULL, err);
    vs_units_grouped(gn, sizeof gn, layer);
    vs_units_grouped(gb, sizeof gb, s.every_step);
    vs_units_grouped(gt, sizeof gt, s.first_step);
    snprintf(src, sizeof src,
             "a layer's largest projection, %s values (intermediate x hidden), stepped in the "
             "backward beside the layer it recomputes (in_backward=yes): %s B each step + %s B "
             "at the first step, the same rule as the output layer's (torch=%s)",
             gn, gb, gt, s.torch);
    return vs_verbs_estimate_store_phase(sheet, LAYERS_NAME, bytes, src, VS_CLASS_OPTIMIZER,
                                         "backward", skipped, skipped_list, err);
}

/* What the optimizer step allocates beyond its state, for the parameter where
 * that is largest: torchao's AdamW8bit, whose step Inductor compiles, by the
 * release torch= names (vs_estimate_adamw8bit_step: 2.5 a float32 buffer of the
 * parameter's shape each step, 2.5 and 2.6 the first step's autotuning clones,
 * 2.15 the two new absmax). bitsandbytes' AdamW8bit updates in place
 * (F.optimizer_update_8bit_blockwise): nothing; 8-bit AdamW here is the
 * larger of the two. Fused AdamW and the paged optimizers allocate nothing
 * either. The step of the largest parameter comes after the backward (phase
 * step). With in_backward=yes (torchtune's register_optim_in_bwd_hooks: a
 * post-accumulate-grad hook steps each parameter, training/memory.py) a tied
 * embedding is stepped last: autograd runs its AccumulateGrad once, when both
 * uses' gradients are in, after the embedding lookup's backward, so no layer is
 * being recomputed and the logits are freed; its step is then phase step
 * (what is on the GPU there: the weights, the state, the gradient) and the
 * layers' smaller steps are in the backward (layer_steps). An untied output
 * layer is stepped first, beside what the forward saved, and a layer's
 * projection beside the layer recomputed: phase backward. */
int vs_verbs_estimate_step_transient(const vs_line *line, json_t *sheet,
                                     const vs_training_rule *rule, int lora, vs_buf *skipped,
                                     json_t *skipped_list, vs_error *err)
{
    const vs_arg *ib = vs_line_pair(line, "in_backward"), *ta = vs_line_pair(line, "torch");
    const int in_bwd = ib && !strcmp(ib->value, "yes");
    const char *phase = "step";
    vs_adamw8bit_step_est s;
    uint64_t n = 0, head = 0, layer = 0;
    unsigned pb = rule->master_bytes ? rule->master_bytes : rule->gradient_bytes;
    char gn[40], gb[40], gk[40], gc[40], gf[40], src[900];
    int rc, stored = 0, tied = 0, last = 0;
    if (ta && (!rule->state_block || rule->paged))
        return vs_arg_error(ta, err,
                            vs_error_set(err, VS_EVALUE,
                                         "torch= names the release whose Inductor compiles "
                                         "torchao's AdamW8bit step: optimizer=adamw8bit, not %s",
                                         rule->optimizer));
    if (ta && lora)
        return vs_arg_error(
            ta, err,
            vs_error_set(err, VS_EVALUE,
                         "torch= sizes the compiled step of a full finetune's largest "
                         "parameter (task finetune); an adapter's step is not estimated under "
                         "task lora or qlora, so torch= would change nothing: leave it out"));
    if (ta && (rc = vs_estimate_adamw8bit_step(&s, ta->value, 256, pb, 256, err)) < 0)
        return vs_arg_error(ta, err, rc);
    if (rule->state_block && !rule->paged && !lora && param_shapes(sheet, &head, &layer, &tied) < 0)
        return vs_error_set(err, VS_EUNIT, "the largest parameter does not fit in 64 bits");
    n = head > layer ? head : layer;
    /* torchao keeps a tensor under 4,096 values, or not a whole number of
     * blocks, in the parameter's dtype: no scales, nothing new; an earlier
     * line's estimate goes, or is left unknown when the card changed under it
     * (a task lora); a measured one stays */
    if (!rule->state_block || rule->paged || lora || n < 4096 || n % rule->state_block)
        return (rc = vs_verbs_estimate_drop(sheet, STEP_NAME, NULL, err)) < 0 ||
                       (rc = vs_verbs_estimate_drop(sheet, TUNE_NAME, NULL, err)) < 0
                   ? rc
                   : vs_verbs_estimate_drop(sheet, LAYERS_NAME, NULL, err);
    last = in_bwd && tied && head >= layer;
    if (in_bwd && !last)
        phase = "backward";
    if ((rc = vs_estimate_adamw8bit_step(&s, ta ? ta->value : NULL, n, pb, rule->state_block,
                                         err)) < 0)
        return ta ? vs_arg_error(ta, err, rc) : rc;
    if ((rc = last ? layer_steps(sheet, ta, rule, layer, pb, skipped, skipped_list, err)
                   : vs_verbs_estimate_drop(sheet, LAYERS_NAME, NULL, err)) < 0)
        return rc;
    stored = rc > 0 ? 4 : 0;
    vs_units_grouped(gn, sizeof gn, n);
    vs_units_grouped(gk, sizeof gk, n / rule->state_block);
    vs_units_grouped(gb, sizeof gb, s.every_step);
    if (s.update_f32)
        snprintf(src, sizeof src, "%s values x 4 B = %s B: %s (torch=%s)%s", gn, gb, s.every_why,
                 s.torch, last ? "; the tied embedding, stepped at the end of the backward" : "");
    else
        snprintf(src, sizeof src,
                 "2 x %s blocks (%s values / %u) x 4 B = %s B of the largest parameter: %s "
                 "(torch=%s)%s",
                 gk, gn, rule->state_block, gb, s.every_why, s.torch,
                 last ? "; the tied embedding, stepped at the end of the backward" : "");
    if (s.every_step) {
        if ((rc = vs_verbs_estimate_store_phase(sheet, STEP_NAME, s.every_step, src,
                                                VS_CLASS_OPTIMIZER, phase, skipped, skipped_list,
                                                err)) < 0)
            return rc;
        stored |= rc;
    } else if ((rc = vs_verbs_estimate_drop(sheet, STEP_NAME, NULL, err)) < 0)
        return rc;
    if (!s.first_step)
        return (rc = vs_verbs_estimate_drop(sheet, TUNE_NAME, NULL, err)) < 0 ? rc : stored;
    vs_units_grouped(gc, sizeof gc, s.clones);
    vs_units_grouped(gf, sizeof gf, s.flush);
    vs_units_grouped(gb, sizeof gb, s.first_step);
    snprintf(src, sizeof src,
             "2 x (%s x %u B + 2 x %s B + 2 x %s x 4 B) = %s B of clones + %s B = %s B, at the "
             "first step only: %s (torch=%s; an Inductor autotune cache from an earlier run of "
             "the same shapes skips it)",
             gn, pb, gn, gk, gc, gf, gb, s.first_why, s.torch);
    if ((rc = vs_verbs_estimate_store_phase(sheet, TUNE_NAME, s.first_step, src, VS_CLASS_OPTIMIZER,
                                            phase, skipped, skipped_list, err)) < 0)
        return rc;
    return stored | rc << 1;
}
