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

/* The largest parameter's values from the card's architecture: the embedding
 * (vocab x hidden) or an MLP projection (intermediate x hidden). *out 0 when
 * the card has no such shape; -1 when it does not fit in 64 bits. */
static int largest_param(const json_t *sheet, uint64_t *out)
{
    json_t *arch = vs_sheet_card_get(sheet, VS_CK_ARCH);
    uint64_t V = (uint64_t)json_integer_value(json_object_get(arch, "vocab"));
    uint64_t H = (uint64_t)json_integer_value(json_object_get(arch, "hidden"));
    uint64_t I = (uint64_t)json_integer_value(json_object_get(arch, "intermediate"));
    *out = 0;
    if (!V || !H)
        return 0;
    return vs_checked_mul(out, V > I ? V : I, H) ? -1 : 0;
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

/* What the optimizer step allocates beyond its state, for the parameter where
 * that is largest. torchao's AdamW8bit steps each parameter through
 * single_param_adam under torch.compile (torchao/prototype/low_bit_optim/
 * adam.py at 0d7edae): the parameter, its gradient and both moments are
 * upcast to float32, and each moment's copy_ into its OptimState8bit
 * re-quantises it (subclass_8bit.py, quant_utils.py quantize_8bit_with_qmap
 * at 0b05caa: the absmax of each block of 256, the codes by a binary search of
 * the map). Inductor compiles the whole step into one persistent reduction,
 * a block of 256 a row, so the float32 values stay in registers and the codes
 * and the parameter are written in place; the only buffers are the two new
 * absmax, 2 x n / 256 x 4 B, copied into the state's scales after the kernel
 * (PyTorch 2.15's Inductor, its Triton output code for the 128,256 x 3,072
 * embedding: one triton_per_fused kernel, two float32 buffers of 1,539,072).
 * An INNER reduction of 256 or more gets a single launch config
 * (torch/_inductor/runtime/triton_heuristics.py, _persistent_reduction_configs,
 * at 00131b6, as persistent_reduction had it in the 2.x releases before), so
 * no autotuning clones the mutated parameter and codes. bitsandbytes' AdamW8bit updates in
 * place (F.optimizer_update_8bit_blockwise): nothing; 8-bit AdamW here is the
 * larger of the two. Fused AdamW and the paged optimizers allocate nothing
 * either. The step of the largest parameter comes after the backward (phase
 * step) or, with in_backward=yes, at the end of the backward, when the
 * embedding's gradient is complete (phase backward, the logits freed). */
int vs_verbs_estimate_step_transient(const vs_line *line, json_t *sheet,
                                     const vs_training_rule *rule, int lora, vs_buf *skipped,
                                     json_t *skipped_list, vs_error *err)
{
    const vs_arg *ib = vs_line_pair(line, "in_backward");
    json_t *comps, *c;
    uint64_t n = 0, blocks, bytes;
    char gn[40], gb[40], gk[40], src[400];
    size_t i;
    if (rule->state_block && !rule->paged && !lora && largest_param(sheet, &n) < 0)
        return vs_error_set(err, VS_EUNIT, "the largest parameter does not fit in 64 bits");
    /* torchao keeps a tensor under 4,096 values, or not a whole number of
     * blocks, in the parameter's dtype: no scales, nothing new */
    if (!rule->state_block || rule->paged || lora || n < 4096 || n % rule->state_block) {
        /* one an earlier line estimated goes, or left unknown when the card
         * changed under it (a task lora); a measured one stays */
        comps = vs_sheet_array(sheet, VS_SK_COMPONENTS);
        vs_json_array_foreach(comps, i, c)
        {
            if (vs_sheet_component_str(c, VS_COMPK_NAME) &&
                !strcmp(vs_sheet_component_str(c, VS_COMPK_NAME), STEP_NAME) &&
                !vs_vocab_status_is(vs_sheet_component_str(c, VS_COMPK_STATUS), VS_STATUS_MEASURED))
                return vs_sheet_remove_component(sheet, i) < 0 ? vs_error_oom(err) : 0;
        }
        return 0;
    }
    blocks = n / rule->state_block;
    bytes = 2 * blocks * 4; /* n fits in 64 bits, so does a byte per 32 of it */
    vs_units_grouped(gn, sizeof gn, n);
    vs_units_grouped(gk, sizeof gk, blocks);
    vs_units_grouped(gb, sizeof gb, bytes);
    snprintf(src, sizeof src,
             "2 x %s blocks (%s values / %u) x 4 B = %s B: the new absmax of both moments of the "
             "largest parameter, which torchao's compiled AdamW8bit step writes beside its state "
             "(one fused kernel, the float32 values in registers; bitsandbytes' AdamW8bit: none)",
             gk, gn, rule->state_block, gb);
    return vs_verbs_estimate_store_phase(sheet, STEP_NAME, bytes, src, VS_CLASS_OPTIMIZER,
                                         ib && !strcmp(ib->value, "yes") ? "backward" : "step",
                                         skipped, skipped_list, err);
}
