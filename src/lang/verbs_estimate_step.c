/* verbs_estimate_step.c — when a training step's gradients are on the GPU:
 * the phase `estimate training` gives them (see verbs_estimate_internal.h). */
#include "lang/verbs_estimate_internal.h"

#include <stdio.h>
#include <string.h>

#include "sheet/sheet.h"
#include "sheet/units.h"
#include "sheet/vocab.h"
#include "util/checked.h"
#include "util/json.h"

/* When the gradients are on the GPU. One micro-batch a step, they are filled
 * by the backward as it frees the activations and held through the optimizer
 * step: phase step (the envelope is then the larger of backward and step).
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
    json_t *arch = vs_sheet_card_get(sheet, VS_CK_ARCH);
    uint64_t acc = 1, V, H, I, largest;
    char gl[40], gb[40];
    *phase = "step";
    note[0] = 0;
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
        V = (uint64_t)json_integer_value(json_object_get(arch, "vocab"));
        H = (uint64_t)json_integer_value(json_object_get(arch, "hidden"));
        I = (uint64_t)json_integer_value(json_object_get(arch, "intermediate"));
        if (!V || !H)
            return vs_arg_error(ib, err,
                                vs_error_set(err, VS_EVALUE,
                                             "in_backward=yes holds the largest parameter's "
                                             "gradient: the card's architecture (`model NAME "
                                             "config=PATH`) gives its shape"));
        largest = V > I ? V : I; /* the embedding or an MLP projection, x hidden */
        if (vs_checked_mul(&largest, largest, H) ||
            vs_checked_mul(&e->gradients, largest, rule->gradient_bytes))
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
