/* The encoder's profiling pass: a runtime item only a multimodal model has.
 *
 * vLLM's profile_run (vllm/v1/worker/gpu_model_runner.py, v0.10.2 and 0.11.0)
 * first runs the model's vision (or audio) encoder on a batch of dummy items of
 * the largest size its processor accepts (the model's get_dummy_mm_data, its
 * get_image_size_with_most_features: vllm/multimodal/profiling.py), as many
 * as MultiModalBudget.get_max_items allows (vllm/v1/worker/utils.py:
 * max(1, min(encoder budget // tokens per item, max_num_seqs x
 * min(limit_mm_per_prompt, max_model_len // tokens per item)))), keeps their
 * outputs in the encoder cache and only then runs the text model's dummy
 * batch: the encoder's activations and its cached outputs are in the peak the
 * KV pool is sized after. They depend on the processor's largest image and on
 * limit_mm_per_prompt, which config.json does not give, so the item is
 * unknown until a measurement or a declared component fills it. A model
 * without an encoder has no such pass. */
#include "engine/engine.h"

int vs_engine_encoder_present(const json_t *arch)
{
    const json_t *p = json_object_get(arch, "encoder_params");
    return json_is_integer(p) && json_integer_value(p) > 0;
}

int vs_engine_item_applies(vs_runtime_item i, int encoder)
{
    return i != VS_RT_ENCODER_PROFILE || encoder;
}
