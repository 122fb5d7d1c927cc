/* Sizing verbs: the tables. The verbs themselves live by concept: the workload
 * card (lang/verbs_card), the estimators (lang/verbs_estimate, with
 * lang/estimate_generate and lang/verbs_engine's runtime; their table is
 * lang/estimators.def), the budget around
 * the weights (lang/verbs_budget) and the procedure lines (lang/verbs_procedure).
 * Here: the forms of `estimate` with
 * keys of their own (lang/verb.h), and vs_verbs_sizing, whose order is the
 * order `help` lists the verbs in. */
#include <string.h>

#include "lang/derive.h"
#include "lang/verb.h"
#include "lang/verbs_budget.h"
#include "lang/verbs_card.h"
#include "lang/verbs_estimate.h"
#include "lang/verbs_procedure.h"
#include "model/family.h"
#include "sheet/estimate.h"
#include "sheet/vocab.h"

/* `estimate`'s words, forms and the forms' syntax in its help come from the
 * estimators' table (lang/estimators.def): a new estimator is its row. */
static const char *estimator_word(size_t i)
{
    const vs_estimator *const *e = vs_estimators;
    for (; *e && i > 0; e++, i--)
        ;
    return *e ? (*e)->info->name : NULL;
}

static const char *estimator_key(const char *word, size_t n, size_t i)
{
    const vs_estimator *const *e;
    size_t k;
    for (e = vs_estimators; *e; e++)
        if (strlen((*e)->info->name) == n && !strncmp((*e)->info->name, word, n)) {
            for (k = 0; k < i && (*e)->info->keys[k]; k++)
                ;
            return (*e)->info->keys[k];
        }
    return NULL;
}

static void estimator_help(vs_buf *out)
{
    const vs_estimator *const *e;
    vs_buf_puts(out, "\nThe estimators, one form each:");
    for (e = vs_estimators; *e; e++)
        vs_buf_printf(out, "\n  %s: %s", (*e)->info->syntax, (*e)->info->summary);
}

static const vs_verb_registry estimators_registry = {estimator_word, estimator_key, NULL,
                                                     estimator_help};

/* `model`'s help lists the families of model/families/families.def. */
static void families_help(vs_buf *out)
{
    char names[VS_FAMILY_NAMES_MAX];
    vs_buf_printf(out, "\nFamilies (config.json's model_type): %s.",
                  vs_family_names(names, sizeof names));
}

static const vs_verb_registry families_registry = {NULL, NULL, NULL, families_help};

const vs_verb vs_verbs_sizing[] = {
    {"card", vs_verb_card, "card", "show the whole workload card as a table",
     "Shows the current sheet's workload card as a table: model and revision, parameter count "
     "and where it came from, task, format and its bits, required length, concurrency "
     "(inference) or microbatch and accumulation (training), the quality criterion, the "
     "architecture read from a config.json, and the placement; a note names what the method "
     "still needs on the card. The card is held fixed: every candidate is compared against it. "
     "The verbs that set it (model, task, format, length, concurrency, microbatch, quality) "
     "each print one line saying what they set; `card` shows the whole. Payload kind \"card\", "
     "with the whole card, as those verbs give it too.",
     NULL, NULL, 0, NULL},
    {"model", vs_verb_model,
     "model NAME [revision=REV] [params=COUNT] [config=PATH | pipeline=DIR [variant=fp16]]",
     "the model and revision of the workload card, and its parameter count",
     "Sets the card's model (a Hugging Face id or any name) and revision. params= takes a count "
     "(6.74B, 7e9, 6738415616). config=PATH reads a Hugging Face config.json on disk: the "
     "architecture (layers, hidden, heads, KV heads, head dim, ...) and its KV layout (groups of "
     "full, sliding, chunked, latent, cross or no-cache layers, and the recurrent state layers "
     "of hybrid models: Mamba's and gated delta nets' fixed bytes per sequence, from "
     "layer_types, hybrid_override_pattern, attn_layer_period / attn_layer_offset or "
     "full_attention_interval) go into the card, with the model's context "
     "(max_position_embeddings and any rope_scaling), and the "
     "parameter count is the sum of the checkpoint's tensors as the family's Hugging Face model "
     "class stores them (params_active: what one token uses in a mixture of experts; "
     "params_excluded: what the checkpoint holds and the count leaves out, such as "
     "DeepSeek-V3's multi-token-prediction layers; vision towers and projectors of multimodal "
     "models counted and named; the families are listed below). `estimate kv` and `estimate "
     "activations` then take their shapes from it. A declared params= wins over the computed "
     "one. Changing the model or its revision clears what was learnt about the previous one "
     "(architecture, weights read from files). Without config=, an "
     "ORG/NAME is looked for in the local Hugging Face cache ($HF_HUB_CACHE, else $HF_HOME/hub, "
     "else ~/.cache/huggingface/hub, as huggingface_hub lays it out): "
     "models--ORG--NAME/refs/REV (default main; a 40-hex revision= is used as it is) names the "
     "snapshot commit, its config.json sets the shapes, and the revision recorded is that full "
     "commit. When the cache lacks it, the Hub is asked ($HF_ENDPOINT, default "
     "https://huggingface.co; $HF_TOKEN or the token file of `huggingface-cli login` for gated "
     "repositories, sent to the endpoint only, never shown or recorded): the revision is "
     "resolved to its commit and config.json alone is fetched into the cache (refs, blobs, "
     "snapshots, as huggingface_hub writes them), so the next run works offline. A "
     "repository with a model_index.json and no config.json is a diffusers pipeline: each "
     "weighted component's safetensors headers are read from the Hub (variant= as on disk). "
     "With "
     "HF_HUB_OFFLINE=1, without libcurl, or when the Hub refuses (a gated repository: log in; "
     "no such name or revision), a note says so, which files to fetch (`huggingface-cli "
     "download ...`) and where they go; a ref or config.json that is not a file (a FIFO, a "
     "folder, a symlink loop) is refused, saying what it is.\n"
     "pipeline=DIR reads a diffusers pipeline folder: its model_index.json names the components "
     "(unet or transformer, vae, text_encoder, text_encoder_2, text_encoder_3, image_encoder, "
     "...; tokenizers, schedulers and feature extractors hold no weights), and each one's exact "
     "bytes per dtype come from its folder's safetensors headers "
     "(diffusion_pytorch_model.safetensors or model.safetensors, or their sharded "
     ".index.json), as diffusers' from_pretrained finds them; variant=fp16 picks "
     "*.fp16.safetensors (a component without it falls back to its plain files, as diffusers "
     "does, and says so). The sheet's weights are the components' sum; `weights` and "
     "`envelope` list one row per component and the budget chart stacks them. A cached ORG/NAME "
     "whose snapshot holds a model_index.json is read the same way. A missing component file is "
     "named in the error.",
     vs_verb_model_keys, NULL, 0, &families_registry},
    {"task", vs_verb_task,
     "task inference|finetune|lora|qlora|pretrain|generate-image|generate-video",
     "inference or adaptation/training; training lists its components as unknown",
     "Sets the card's task. No hidden multiplier: `task inference` adds no component; finetune, "
     "lora, qlora and pretrain add the components still to document (gradients, optimizer_state, "
     "master_copy, activations, buffers; adapter_weights for lora/qlora; quant_metadata for "
     "qlora) with status unknown, until `estimate training`, `estimate activations` or `reserve` "
     "documents them. Placeholders an earlier task listed and nobody documented are removed. "
     "generate-image and generate-video (diffusers pipelines) add no component: `resolution`, "
     "`batch` and `frames` set their dimensions, `estimate latents|attention|decode` their "
     "activations.",
     NULL, vs_vocab_task_names, 0, NULL},
    {"format", vs_verb_format,
     "format NAME [bits=N] [group=G] [block=N] [components=A,B] | format bits=N (the names "
     "below)",
     "the weights' format: a plain width or a quantisation scheme",
     "Sets the card's weight format. A plain width (fp32 32 bits, fp16/bf16 16, fp8/int8 8, "
     "int4/nf4/fp4 4, or bits=N) sizes the weights as params x bits / 8 bytes, rounded up; a "
     "quantised width (8 bits or fewer) says that scales and layers kept in another format are "
     "not included. On a card with a tensor list three words name what the loaders run, the "
     "Linear layers only, the embeddings, lm_head and norms in 16 bits (the output lists them "
     "with their bytes): nf4 is bitsandbytes' (4 bits with double-quantised absmax, as QLoRA "
     "loads its base), int8 bitsandbytes' LLM.int8 (int8 and a float32 scale per row, "
     "Int8Params in bitsandbytes nn/modules.py at 20e1677d), fp8 vLLM's online fp8 "
     "(--quantization fp8 on a 16-bit checkpoint: a float32 scale per tensor, Fp8LinearMethod "
     "in vllm/model_executor/layers/quantization/fp8.py at 0071b24b); int4 and fp4 stay plain "
     "widths. A scheme (gptq bits=4 group=128, awq, bnb-nf4, bnb-int8, fp8 "
     "block=128, "
     "mxfp4, nvfp4, or a llama.cpp file type such as q4_k_m) is summed tensor by tensor over "
     "the card's tensor list (`model NAME config=PATH`) as the loader keeps it: the Linear "
     "layers quantised with their scales, zeros and indices, the tensors the loaders keep in "
     "16 bits (embeddings, lm_head, norms, MoE routers) at 16 bits; `weights` lists both. A "
     "config.json with a quantization_config sets the scheme itself, and another format is "
     "then refused. Under `engine vllm` the tally follows vLLM's own layout where it differs "
     "(MXFP4 MoE), whichever line comes first. Changing the format clears the weights read "
     "from files. On a diffusers pipeline (`model NAME pipeline=DIR`) `format bnb-nf4 "
     "components=transformer,text_encoder_2` (or bnb-fp4, bnb-int8, nf4, int8) quantises only "
     "those components, as diffusers' PipelineQuantizationConfig does: each nn.Linear weight "
     "as bitsandbytes stores it, embeddings, norms and convolutions as stored, and what a "
     "transformers class keeps in float32 under bitsandbytes (T5's wo, _keep_in_fp32_modules) "
     "at 4 bytes; the card's format and the other components stay. `format fp8-layerwise "
     "components=transformer` is diffusers' enable_layerwise_casting to float8_e4m3fn: every "
     "nn.Linear and convolution at a byte a value, but the modules its default skip patterns "
     "name (pos_embed, patch_embed, norm, ^proj_in$, ^proj_out$). Checked against the diffusers "
     "quantisation post's FLUX.1-dev runs: 4-bit -2.7%, 8-bit -5.2%, fp8 layerwise -2.8% of the "
     "peak.",
     vs_verb_format_keys, vs_vocab_format_names, VS_VERB_FORMAT_ARGS | VS_VERB_LISTS_FORMATS, NULL},
    {"length", vs_verb_length, "length TOKENS", "the required tokens per sequence",
     "Sets the card's required length: tokens per sequence the workload must process. It is "
     "held fixed: every candidate is compared at this length, and only a run at this length "
     "(the limit stage) validates the card. `estimate kv` and `estimate activations` use it. "
     "Beyond the context the model's config.json gives (max_position_embeddings, with its "
     "rope_scaling), a warning says so and names the key; the length is kept as asked, and "
     "`fit` offers no maximum length above that context.",
     NULL, NULL, 0, NULL},
    {"concurrency", vs_verb_concurrency, "concurrency N", "simultaneous sequences (inference)",
     "Sets the card's concurrency: sequences served at once (inference). The KV cache grows "
     "with it: 2 x L x H x D x bytes x length x concurrency (`estimate kv`).",
     NULL, NULL, 0, NULL},
    {"microbatch", vs_verb_microbatch, "microbatch N [accumulation=N]",
     "sequences per forward/backward pass, and gradient accumulation (training)",
     "Sets the card's microbatch (sequences per pass, which the saved activations scale with: "
     "`estimate activations`) and gradient accumulation (micro-steps per optimizer update: it "
     "keeps the update comparable without more memory).",
     vs_verb_microbatch_keys, NULL, 0, NULL},
    {"resolution", vs_verb_resolution, "resolution WIDTHxHEIGHT",
     "the generated image's (or video frame's) size in pixels (image and video generation)",
     "Sets the card's width and height (resolution 1024x1024), divisible by 8 as diffusers "
     "pipelines require. Held fixed like length: `estimate latents`, `estimate attention` and "
     "`estimate decode` follow it, and only a measurement run at least at this width and height "
     "validates the card (dims width= and height=).",
     NULL, NULL, 0, NULL},
    {"frames", vs_verb_frames, "frames N", "frames per generated video (task generate-video)",
     "Sets the card's frames (frames 81). Video VAEs compress time too: the latents hold "
     "(frames - 1) / 4 + 1 frames (Wan 2.1, HunyuanVideo; temporal= on the estimate line). Held "
     "fixed: a run with fewer frames does not validate the card.",
     NULL, NULL, 0, NULL},
    {"batch", vs_verb_batch, "batch N",
     "images or videos generated together (image and video generation)",
     "Sets the card's batch: images (num_images_per_prompt x prompts) or videos generated at "
     "once. The latents, the denoiser's attention and the VAE decode scale with it (cfg=yes on "
     "`estimate attention` doubles it for classifier-free guidance). Held fixed like concurrency.",
     NULL, NULL, 0, NULL},
    {"quality", vs_verb_quality, "quality \"CRITERION\"", "the quality criterion of the card",
     "Sets the card's quality criterion, e.g. \"exact match within 0.5 points of the bf16 "
     "reference\". A change of format, length or candidate is accepted only once it is "
     "re-checked against it.",
     NULL, NULL, 0, NULL},
    {"reserve", vs_verb_reserve,
     "reserve AMOUNT | reserve NAME AMOUNT [status=estimated|measured] [source=\"...\"] "
     "[phase=P] [class=C] | reserve NAME status=unknown [source=\"...\"] | reserve remove NAME",
     "a declared reserve: one lump, or named components with status and source",
     "Declares the reserve added to the weights. `reserve 6GiB` is one lump named reserve; "
     "`reserve kv_cache 16GiB status=estimated source=\"2 x 32 x 32 x 128 x 2 B x 4096 x 8\"` a "
     "named component; `reserve workspace status=unknown` one still to document (counted as "
     "missing, never as zero). Amounts carry a byte unit (B KB MB GB TB powers of 10, KiB MiB "
     "GiB TiB powers of 2). status is estimated (default with an amount), measured or unknown; "
     "phase= says when it peaks; class= (other, kv_cache, gradients, optimizer, activations, "
     "parameters; guessed from the name) says how a placement shards it. A measured component "
     "is never replaced by an estimate. A declared amount is never recomputed when the card "
     "changes (an `estimate` is).",
     vs_verb_reserve_keys, NULL, 0, NULL},
    {"estimate", vs_verb_estimate,
     "estimate kv [layers=L] [kv_heads=H] [head_dim=D] [dtype=fp16] [encoder_length=N] | "
     "estimate training [lora rank=R [targets=all-linear|q,k,v,o,gate,up,down] [alpha=A]] "
     "[optimizer=adamw|sgd|adamw8bit|paged_adamw8bit|paged_adamw] [precision=mixed] [trainable=N] "
     "[in_backward=yes] [torch=2.5|2.6|2.15] | estimate "
     "activations [layers=L] [hidden=H] [heads=A] [checkpointing=none|selective|full|offload] "
     "[attention=eager|sdpa|flash|xformers] [vocab=V] [loss=full|chunked [chunks=8]|cce "
     "[cce=25.1|24.12] [head=trained|frozen]|liger [head=trained|frozen]|unsloth "
     "[outputs=fp32|native]] [framework=pytorch|unsloth "
     "[rope=shared|layers] [rope_cast=16bit]] | estimate quant "
     "[scheme=bnb|gptq|group] [group=N] [double=yes|no] [bits=N] [params=N]",
     "estimators that print their formula and add estimated components",
     "Each estimator prints its formula with the numbers and adds `estimated` components "
     "(never over a measured one). Shapes not given come from the card's config.json "
     "architecture (`model ... config=PATH`). An estimate follows the card: it keeps its "
     "keys as written and what it read from the card (length, concurrency, microbatch, "
     "format, params, task, the model's shape), and a later line that changes any of those "
     "recomputes it in the same cell, saying so (kv_cache re-estimated: length 4,096 -> "
     "65,536, 4.00 GiB -> 64.00 GiB); one the new card cannot compute becomes unknown, "
     "saying why.\n"
     "kv: the sum over the model's KV layer groups (the card's kv_layout, from config.json or a "
     "GGUF header's metadata), "
     "bytes(dtype) per value, length tokens, concurrency sequences: full 2 x layers x kv_heads x "
     "head_dim x bytes x length x concurrency (head_dim + head_dim_v when values differ); "
     "sliding and chunked the same over min(window, length) tokens; latent (DeepSeek MLA: "
     "kv_lora_rank + qk_rope_head_dim values, keys and values at once) layers x latent x bytes x "
     "length x concurrency; cross-attention over encoder_length=N encoder tokens (default: "
     "length); encoder-only layers keep nothing. layers= kv_heads= head_dim= on the line "
     "describe one full group instead. Under `placement tensor gpus=N` a GPU holds "
     "ceil(kv_heads / N) KV heads, one at least (replicated), and a latent cache whole. The "
     "payload gives each group (kind, layers, tokens, bytes) and bytes_per_token, what one more "
     "token costs. Component kv_cache; dtype fp32 fp16 bf16 fp8 int8 int4. Under an engine "
     "(`engine NAME`, any but none) the component is what that engine allocates, by the rule "
     "`fit` uses, so that envelope, candidates, the records and fit say one figure: vLLM's "
     "pages of block_size tokens at kv_cache_dtype (each request cdiv(length, block_size) "
     "blocks; sliding groups and the hybrid allocator's groups as it forms them), llama.cpp's "
     "cells (pad(ctx x parallel, 256), a sliding layer its window + ubatch padded to 256) at "
     "cache_type_k / cache_type_v (q8_0: 34 B per 32 values), SGLang's and TensorRT-LLM's "
     "token pools; dtype= then gives way to the engine's cache type (its keys), the source "
     "names the engine, its keys, its release and the rule with its figures, and the "
     "payload's model_bytes keeps the model-level figure. An `engine` line, or a change of "
     "its keys, re-estimates it; `engine none` brings the model-level estimate back.\n"
     "training: per trainable parameter, precision=mixed (default: 16-bit weights and "
     "gradients, fp32 master copy and moments): gradients 2 B, master copy 4 B, optimizer "
     "state 8 B (adamw), 4 B (sgd, one fp32 momentum), 2 B (adamw8bit, and an fp32 scale per "
     "256 values of each moment, as torchao and bitsandbytes keep them); paged_adamw8bit and "
     "paged_adamw (bitsandbytes' PagedAdamW8bit and PagedAdamW, transformers' paged_adamw_8bit "
     "and paged_adamw_32bit; the 32-bit one keeps float32 moments, 8 B, under every "
     "precision) put the moments in their own component, optimizer_state_paged, marked "
     "memory=managed: bitsandbytes takes them from get_paged, cudaMallocManaged "
     "(bitsandbytes/optim/optimizer.py get_state_buffer, bitsandbytes/functional.py, "
     "csrc/pythonInterface.cpp cget_managed_ptr, at 06029dd), which the device holds while "
     "resident and the driver may page out to the host, and which PyTorch's caching "
     "allocator neither makes nor counts; the envelope counts it and names it apart "
     "(managed_bytes, and allocator_bytes, what torch.cuda.max_memory_reserved can report), "
     "and `compare` measures the allocator's part with PyTorch's counters; precision=fp32: 4 B "
     "gradients and no master copy; precision=bf16: 2 B gradients, 16-bit moments, no master "
     "copy. trainable=N (LoRA, QLoRA) limits them to the adapter, which is added as "
     "adapter_weights; frozen weights keep the sheet's format. Source: Rajbhandari et al. 2020, "
     "\"ZeRO: Memory Optimizations Toward Training Trillion Parameter Models\" (K = 12). The "
     "gradients are in phase step: the backward fills them as it frees the activations (phase "
     "backward), so the envelope is the larger of the two phases, every weight and optimizer "
     "state in both; an adapter's (task lora, qlora) in phases backward and step, as each "
     "layer's backward fills its own and the layer recomputed last runs beside them; with "
     "microbatch accumulation=N > 1 they stay beside the next forward (no "
     "phase); in_backward=yes (torchtune's optimizer_in_bwd) holds one gradient at a time, the "
     "largest parameter's. adamw8bit on a full finetune adds what torchao's AdamW8bit step, "
     "which Inductor compiles (torchao/prototype/low_bit_optim/adam.py single_param_adam), "
     "allocates beside its state for the largest parameter n, by the PyTorch release torch= "
     "names (read in Inductor's output code for Llama-3.2-3B's 128,256 x 3,072 embedding): "
     "2.15 (the default) one persistent reduction that writes only the new absmax of both "
     "moments, optimizer_step 2 x n / 256 x 4 B (12,312,576 B); 2.5 (torch 2.5.1) a looped "
     "reduction whose wrapper allocates a float32 buffer of the parameter's shape each step, "
     "optimizer_step 4n (1,576,009,728 B), and 2.5 and 2.6 (torch 2.6.0) autotune that kernel "
     "at the first step (six launch configs, torch/_inductor/runtime/triton_heuristics.py): "
     "optimizer_autotune, a clone of every tensor it writes in place, the parameter, both "
     "codes and both scales, each twice (CachingAutotuner.clone_args), and triton's L2 flush "
     "buffer (256e6 B in triton 3.1, 256 MiB in 3.2): 3,432,644,608 B and 3,445,080,064 B; an "
     "Inductor autotune cache from an earlier run of the same shapes skips it. Both in phase "
     "step; with in_backward=yes too for a tied embedding, stepped last, after the backward "
     "has freed the layers it recomputed (its one AccumulateGrad runs once both uses' "
     "gradients are in), the layers' own steps beside the layer recomputed being "
     "optimizer_step_layers (a projection of intermediate x hidden, the same rule, phase "
     "backward); an untied output layer, stepped first, in phase backward. torch= is refused "
     "under task lora or qlora (no adapter step is estimated); bitsandbytes' AdamW8bit "
     "updates in place, and fused AdamW and the paged optimizers allocate nothing. Checked against "
     "torchtune's published peaks (README: Llama-3.2-3B "
     "at 4,096 x 2 under its optimization flags, Llama-3.1-8B at 2,048 x 2 on an RTX 4090), the "
     "allocator's part against the printed allocator counter: 11 of 11 within 10%, median error "
     "3.3% (the 3B full finetunes -4.2% to +0.0%, with 8-bit AdamW -0.8% under torch=2.5, the "
     "stable PyTorch of the table's date, -14.8% with 2.15's step; 3B LoRA +2.2%, QLoRA +5.2%; "
     "8B LoRA +6.0%, QLoRA +3.2%, the PagedAdamW8bit full finetune -3.3%).\n"
     "training lora rank=R [targets=all-linear | a list of q,k,v,o,gate,up,down, PEFT's q_proj "
     "names accepted] [alpha=A]: the adapter's trainable parameters from the card's "
     "architecture (`model ... config=`), r x (in + out) per targeted module per layer: q hidden "
     "-> heads x head_dim, k and v hidden -> kv_heads x head_dim, o back to hidden, gate and up "
     "hidden -> intermediate, down back; in a mixture of experts every routed expert's gate, up "
     "and down at the experts' own intermediate size, the shared experts at theirs, and with "
     "all-linear the router (hidden -> experts) too. As PEFT builds it: LoraLayer.update_layer "
     "gives each targeted nn.Linear(in, out) lora_A = nn.Linear(in, r) and lora_B = "
     "nn.Linear(r, out), no bias (peft/tuners/lora/layer.py, PEFT commit 00336949, the 0.17 "
     "series). Llama-3.1-8B at rank 16 on all seven: 41,943,040. Gradients, master copy, "
     "optimizer state and the 16-bit adapter_weights follow from that count as above; alpha "
     "scales the update, not the memory. Families with fused projections (gpt2, falcon, bloom, "
     "phi3, ...) take trainable=N. Under task qlora also quant_metadata (the layers' linear "
     "weights in nf4 with double quantisation, as `estimate quant scheme=bnb`) and "
     "dequant_buffer (the largest linear layer dequantised to bf16 for its matmul, bitsandbytes' "
     "MatMul4Bit: F.dequantize_4bit(...).to(A.dtype), commit 60a0d8a5).\n"
     "activations (phases loss and backward): per layer s*b*h*(34 + 5*a*s/h) bytes with s = "
     "length, b = "
     "microbatch, 16-bit activations (Korthikanti et al. 2022, \"Reducing Activation "
     "Recomputation in Large Transformer Models\"); a Llama-shaped card (llama, mistral, qwen2 "
     "from config=) counts its own layer instead, s*b*(12h + 4 x kv_heads x head_dim + 8 x "
     "intermediate), what autograd saves (norms in and out, q, k, v, the attention output, the "
     "SwiGLU's gate, up, silu and product), eager attention adding 4*a*s*s*b. sdpa and flash "
     "keep no scores; selective drops them; full keeps each layer's 2*s*b*h input and one layer "
     "recomputed in the backward; offload keeps the inputs in host memory and the one layer. "
     "With a vocabulary, logits: unchunked tokens x vocab x 10 B (the float32 logits, their "
     "gradient, the 16-bit gradient), loss=chunked tokens x vocab x (2 B + 2 B / chunks) (the "
     "16-bit logits of every chunk, one chunk's gradient at a time: torchtune "
     "CEWithChunkedOutputLoss), loss=cce tokens x (4 B + 8 B + 2 B x hidden) (Cut Cross-Entropy, "
     "Unsloth's loss, writes no logits: a float32 log-sum-exp and an int64 label index a token "
     "and the 16-bit gradient into the last hidden state) + with a trained output layer its "
     "gradient dc, vocab x hidden x 2 B (head=, frozen by default under task lora or qlora); "
     "cce=24.12 "
     "counts dc for a frozen one too, as cut-cross-entropy 24.11.4 to 24.12.3 allocate it "
     "(cce_backward.py dc = torch.zeros_like(c); 25.1.1, cce=25.1 the default, only when the "
     "layer requires grad; the releases Unsloth 2024.12.x ran), loss=liger (Liger-Kernel's "
     "fused linear cross-entropy, which computes the gradients in the forward, chunk by chunk: "
     "linkedin/Liger-Kernel ops/fused_linear_cross_entropy.py at 00eba63) one chunk's 16-bit "
     "logits, c x vocab x 2 B with c = min(next power of 2 of tokens / ceil(vocab / hidden), "
     "tokens), + grad_input tokens x hidden x 2 B + tokens x 5 B (the float32 loss, the ignore "
     "mask) + with a trained output layer grad_weight vocab x hidden x 2 B (head=trained|frozen; "
     "default frozen under task lora or qlora, trained otherwise). Phases: the logits in phase "
     "loss, freed by the loss's backward "
     "before the backward recomputes a layer; that layer apart as activations_recomputed "
     "(phase backward); what the forward saves in both (phase loss,backward). Without a "
     "vocabulary one activations component, phase backward. framework=unsloth (a Llama-shaped "
     "card, checkpointing=full or offload): what Unsloth's kernels save a token, 12 h + 4 kv + 4 "
     "intermediate + 4 heads + 8 B (its norms' X and float32 1/rms, LoRA_QKV's X, flash "
     "attention's q, k, v, output and log-sum-exp, LoRA_MLP's X, e, g: unslothai/unsloth at "
     "0050c73), and in the recomputed layer LoRA_MLP's backward beside them, 4 h + 4 "
     "intermediate (the layer's output, dY, DW and DW's LoRA term before its in-place add: "
     "kernels/utils.py matmul_lora); under offload the embedding's output, 2 h, stays on the "
     "GPU (enable_input_require_grads makes it a leaf the graph holds: unsloth/models/_utils.py "
     "prepare_model_for_kbit_training, unsloth 2024.12.4, which also keeps the adapter in "
     "float32: `estimate training ... precision=fp32`); with attention=xformers (Unsloth without "
     "flash-attn: LlamaAttention_fast_forward expands K and V to every head and xformers saves "
     "the copies) 4 h instead of 4 kv; component rope_cache, in every phase, the "
     "rotary tables each layer's attention keeps (unsloth/models/_utils.py "
     "patch_llama_rope_scaling builds one per LlamaAttention): layers x 2 x min(32,768, "
     "max_position_embeddings) positions x head_dim x 4 B as built (float32), or, for a longer "
     "sequence, its length rounded up to 8,192 positions x head_dim x 2 B (extend_rope_embedding, "
     "unsloth/models/llama.py); rope_cast=16bit: the tables as built in 2 B, as unsloth 2024.8 to "
     "2024.10.0 ran (post_patch casts each to the model's dtype, models/llama.py). loss=unsloth "
     "(with framework=unsloth; Unsloth before Cut Cross-Entropy, unsloth 2024.8 to 2024.10.0 "
     "kernels/cross_entropy_loss.py): the 16-bit logits the loss saves and writes its gradient "
     "over, tokens x vocab x 2 B, + the larger of the float32 losses and log-sum-exps and the "
     "gradient into the hidden state, tokens x hidden x 2 B; outputs=fp32 (the Trainer's "
     "fp16=True or bf16=True: accelerate's convert_outputs_to_fp32 converts the returned logits) "
     "+ tokens x vocab x 4 B beside them instead.\n"
     "quant: quantisation metadata by group: bitsandbytes nf4/fp4 (scheme=bnb) an fp32 absmax "
     "per block of 64, or with double quantisation (default) an 8-bit absmax per block and an "
     "fp32 constant per 256 blocks: 0.127 bits per parameter (Dettmers et al. 2023, QLoRA); "
     "GPTQ (scheme=gptq, group 128) an fp16 scale and a packed zero point per group (Frantar et "
     "al. 2022); scheme=group group=N a 16-bit scale per group. Component quant_metadata.\n"
     "training component=NAME (a diffusers pipeline's unet or transformer): trainable = that "
     "component's parameters from its files (a LoRA gives trainable=N); the other components "
     "stay frozen in their stored format.\n"
     "latents channels=C [factor=8] [temporal=4] [dtype=]: batch x channels x (H / 8) x (W / 8) "
     "[x (frames - 1) / temporal + 1] x bytes (diffusers' prepare_latents). Component latents.\n"
     "attention heads=A [patch=1|2] [downsample=1] [text_tokens=N] [attention=sdpa|eager] "
     "[cfg=yes|no]: the denoiser's attention over latent tokens, tokens = (H / (8 x patch x "
     "downsample)) x (W / ...) [x latent frames] + text tokens; eager attention materialises "
     "batch x heads x tokens^2 x bytes of scores (Vaswani et al. 2017), fused SDPA / flash "
     "attention none (0 B, said so). Component attention_scores.\n"
     "decode [rule=split|diffusers|invokeai] [blocks=128,256,512,512] [layers=2] "
     "[attention=sdpa|eager] [workspace=4] [tile=N] "
     "[slicing=yes]: the VAE decode, its own phase (decode). The default, rule=split, is two "
     "parts, each from one of InvokeAI's sources: the decoder's tensors (component vae_decode, "
     "what torch.cuda.max_memory_allocated counts), diffusers' AutoencoderKL walked as "
     "rule=diffusers does with cuDNN's workspace=4 fitted to InvokeAI's decodes of the VAE "
     "alone (invoke-ai/InvokeAI vae_benchmarks at 7785061, max_memory_allocated); and the "
     "caching allocator's reserved-but-free memory at the decode (vae_decode_cache, memory "
     "cache), max(0, InvokeAI's constant - the tensors), the constant of "
     "invokeai/backend/util/vae_working_memory.py, set on reserved memory with headroom "
     "(frames x H x W x bytes x 2200 for the first image, 128 channels x 5 live tensors for "
     "each further one, what each holds at the convolution where the decode peaks). The split "
     "is empirical: reserved less allocated as InvokeAI's two measurements give it, headroom "
     "included, not read in PyTorch's allocator. The envelope and every capacity verdict "
     "count both parts (the GPU must hold what is reserved); its payload's tensors_bytes and "
     "`compare`'s tensors row leave the cache out, for max_memory_allocated, "
     "allocator_bytes and the allocator row keep it, for max_memory_reserved. rule=invokeai: "
     "the constant alone. rule=diffusers (implied by blocks= or layers=, a decoder the "
     "constant was not measured on) walks diffusers' AutoencoderKL decoder tensor by tensor "
     "under torch.no_grad from its config (block_out_channels, layers_per_block; those of the "
     "SD, SDXL, SD3 and Flux.1 VAEs by default), no cache, and takes its peak step: for those "
     "VAEs the last up block's first ResnetBlock2D, its 256-channel input beside norm1's and "
     "the SiLU's outputs (3 x 256 channels x H x W x bytes x batch: 3.0 GiB for one fp32 "
     "1024x1024 image), in bf16 Upsample2D's float32 interpolation (1.875 GiB) (diffusers "
     "models/autoencoders/vae.py, models/resnet.py, models/upsampling.py); attention=eager "
     "adds the mid block's two float32 score matrices of the older AttnProcessor (latent "
     "tokens^2 each). Without workspace= it counts allocated tensors only, without cuDNN's "
     "convolution workspace, which PyTorch does not cap and no source sizes: a lower bound. "
     "workspace=B (4 under rule=split, 0 under rule=diffusers) adds B bytes per element of "
     "each 3 x 3 convolution's input at that convolution's step; 4 is fitted to InvokeAI's "
     "published decodes of the SD 1.5 and SDXL VAEs alone (RTX 4090, one image, fp16 and "
     "fp32, 512 to 2048 px: 1,024 B per output pixel beside the tensors at the third up "
     "block's upsampler conv, to within 2 MiB, in both dtypes), so the peak moves there "
     "(3.75 GiB for one fp32 1024x1024 image, 2.375 in fp16 or bf16). channels= live= "
     "a flat rule of your own. tile= is enable_vae_tiling (one tile at a time), slicing=yes "
     "enable_vae_slicing (one image at a time). All three follow the card's resolution, "
     "frames and batch. Checked against 16 published peaks, SDXL (diffusers' "
     "simple-optimizations notebook, diffusion-fast: max_memory_allocated, against the "
     "tensors) and FLUX.1-dev (the diffusers quantisation post and its benchmark table: "
     "max_memory_reserved, against the allocator's part): the default 15 within 10%, median "
     "error 1.8%, the one miss low (-25.6%: VAE slicing with sequential CPU offload, 2.7 GiB "
     "above the slicing row's decode that no source read explains); "
     "rule=invokeai 12 within, every miss high (the constant against max_memory_allocated: "
     "+17% to +29%, VAE slicing with sequential CPU offload +16.7%); rule=diffusers "
     "workspace=4 12 within, every miss low (VAE slicing with sequential CPU offload -25.6%, "
     "the FLUX.1-dev rows on max_memory_reserved -10% to -14%); rule=diffusers 7 within, every "
     "miss low (-11% to -32%, VAE slicing with sequential CPU offload -32.1%). Each rule was "
     "fitted on InvokeAI's data, not on those rows; comparing each row with its counter's "
     "part was designed after they were seen.",
     NULL, NULL, VS_VERB_DERIVES, &estimators_registry},
    {"placement", vs_verb_placement,
     "placement single | ddp gpus=N | zero stage=1|2|3 gpus=N | fsdp gpus=N | tensor gpus=N "
     "[split=3,1]",
     "how the work is spread over GPUs: the envelope is per GPU",
     "Names the software placement; the envelope and the capacity check are per GPU after it. "
     "single (default): one GPU. ddp: everything replicated on every GPU. zero stage=1 shards "
     "the optimizer state (master copy included) N ways, stage=2 also the gradients, stage=3 "
     "also the parameters. fsdp: as ZeRO stage 3. tensor: the weights and the KV cache split N "
     "ways. Activations and other components are never divided. Two cards are never one memory "
     "space: without a placement a second GPU adds nothing. offload=model|sequential (single "
     "only): diffusers' enable_model_cpu_offload keeps one component on the GPU at a time (the "
     "per-GPU weights are the largest component; a component in bitsandbytes 8-bit, `format "
     "bnb-int8 components=`, stays on the GPU throughout, as diffusers skips its hook: "
     "pipeline_utils.py) and enable_sequential_cpu_offload one module's own tensors at a time "
     "(accelerate's cpu_offload gives every module with direct tensors an AlignDevicesHook "
     "whose pre_forward moves that module's tensors only to the GPU and post_forward puts "
     "them back: accelerate 0.23.0 big_modeling.py and hooks.py, from diffusers 0.22.0 "
     "pipeline_utils.py; the per-GPU weights are the largest module of any component, its "
     "tensors grouped by name less the last part, .weight or .bias, such as "
     "up_blocks.0.resnets.0.conv1 or text_model.embeddings.token_embedding; buffers stay on "
     "the GPU), the weights all in host memory, "
     "shown beside; capacity verdicts use the per-GPU figure. split=3,1 (tensor only): the "
     "share of the layers each GPU holds, one whole number per GPU, as llama.cpp's -ts; "
     "`launch` writes it and each GPU's bytes (the envelope and `fit` still size the even "
     "split).",
     vs_verb_placement_keys, vs_verb_placement_words, 0, NULL},
    {"weights", vs_verb_weights, "weights [from=PATH | file=NAME] [sha256=yes]",
     "weights only, in bytes, GB and GiB (a lower bound)",
     "Weights only = params x bits / 8 bytes (rounded up), shown as exact bytes, GB (10^9) and "
     "GiB (2^30): a lower bound, not a GPU recommendation. from=PATH reads safetensors headers "
     "(one file, or a model.safetensors.index.json with its shards) without loading tensors: the "
     "exact stored bytes per dtype, the tensors kept in another format, and the parameter count; "
     "from then on the sheet's weights are those bytes until the model or format changes. "
     "sha256=yes also hashes the files. from=FILE.gguf reads a GGUF header (versions 2 and 3; "
     "the first file of a split set NAME-00001-of-0000N.gguf brings the others) without its "
     "tensor data: bytes per tensor from each ggml type's block size and bytes per block "
     "(ggml/src/ggml-common.h, llama.cpp commit 01243c58), by_dtype keyed by ggml type (Q4_K, "
     "Q6_K, F32), the file type as llama.cpp names it (MOSTLY_Q4_K_M) and the architecture's "
     "metadata (block_count, head_count_kv, one per layer or one number, key/value lengths, "
     "sliding window and its pattern, MLA ranks, experts, context length). A folder stands for "
     "its index, model.safetensors or one GGUF file. After `model ORG/NAME` found in the local "
     "Hugging Face cache, `weights` without from= reads that snapshot's files; when they are "
     "not there, it reads their headers from the Hub with HTTP range requests (safetensors: 8 "
     "bytes, then the header length they give; GGUF: growing ranges until the tensor table "
     "ends), never tensor data: a server that ignores Range is refused. The headers are kept "
     "beside the snapshot (models--ORG--NAME/vramsheet-headers/COMMIT/, sparse files that "
     "huggingface_hub never takes for the real ones), the record keeps each header's sha256, "
     "and a later run reads them offline. With HF_HUB_OFFLINE=1 or without libcurl it says "
     "which files to fetch. file=NAME picks one file of the card's repository (in the "
     "snapshot, else its headers from the Hub): a GGUF repository holds one file per "
     "quantisation (file=Qwen3-8B-Q4_K_M.gguf; the first of a split set brings the others). "
     "HF_HUB_DOWNLOAD_TIMEOUT (default 10 s) ends a stalled transfer; a "
     "slow one prints a progress line each second. Quantised safetensors checkpoints (GPTQ, AWQ, "
     "FP8, MXFP4, NVFP4, bitsandbytes) "
     "count their stored tensors as they are (packed integers, scales, zeros), with the "
     "quantization_config of a config.json beside them named.",
     vs_verb_weights_keys, NULL, 0, NULL},
    {"envelope", vs_verb_envelope, "envelope", "weights + reserve per GPU, with the budget chart",
     "Indicative envelope = weights + every known reserve component, per GPU after the "
     "placement, with a stacked chart against the capacity of each GPU offer on the sheet "
     "(device-reported bytes when known, else nominal). Unknown components are missing, never "
     "zero: the envelope is then its known part, and says so. A sum of independent maxima is a "
     "conservative envelope, not an observed peak. Under `placement offload=model|sequential` "
     "the components are on the GPU in turn (accelerate's hooks move each in when it runs), so "
     "the envelope is the worst phase: per phase (load, when some component is in bitsandbytes: "
     "diffusers loads those straight to the GPU and quantises them there, so all of them and "
     "the largest weight's 16-bit copy; encode: the text encoders; denoise: the unet "
     "or transformer; decode: the VAE; and any phase a component names, such as `reserve ... "
     "phase=backward`), the weights on the GPU then (the largest of that phase's components, or "
     "under sequential offload the largest module among them, its own tensors) plus that "
     "phase's components and every component "
     "with no phase. Each phase is a row; the chart stacks the worst one and names it; the plain "
     "sum of every maximum stays beside (sum_bytes) as the conservative figure. A capacity "
     "verdict is exclude only when the known part of some phase alone exceeds the capacity.",
     NULL, NULL, 0, NULL},
    {"formats", vs_verb_formats,
     "formats F1 F2 ... (names, GGUF types, llama.cpp file types or bits=N)",
     "one row per format, with the same reserve",
     "One row per format: weights = params x bits / 8 and the envelope per GPU with the same "
     "reserve, to show only the arithmetic effect of the format. Quantised rows are flagged: "
     "scales, metadata and layers kept in another format are not included, so they are not a "
     "guaranteed peak. With no format: fp32 bf16 int8 int4. A GGUF type (q4_0 q4_k q5_k q6_k "
     "q8_0 iq4_xs mxfp4 nvfp4 ...) counts its exact bits per weight, block scales included "
     "(ggml/src/ggml-common.h, llama.cpp commit 01243c58: Q4_K 4.5, Q6_K 6.5625, Q8_0 8.5). A "
     "llama.cpp file type (q4_k_m q5_k_m q3_k_m q4_0 q8_0 q6_k iq4_xs ...) with the card's "
     "architecture known gives the bytes tensor by tensor as llama-quantize would write them "
     "(src/llama-quant.cpp at commit 007dbbf3: the output at Q6_K, attn_v and ffn_down at Q6_K "
     "in half the layers for Q4_K_M, norms in F32, rows of the wrong width falling back), not "
     "one uniform width, over the family's tensor list as convert_hf_to_gguf.py names it "
     "(experts merged into ffn_*_exps; with 8 experts attn_v and attn_k at Q8_0, attn_output "
     "at Q5_K).",
     vs_verb_formats_keys, vs_vocab_format_names, VS_VERB_FORMAT_ARGS | VS_VERB_LISTS_FORMATS,
     NULL},
    {"stage", vs_verb_stage,
     "stage short|usual|limit [length=N] [concurrency=N] [microbatch=N] [width=N height=N "
     "frames=N batch=N] [note=\"...\"]",
     "a stage of the validation procedure",
     "Records a stage of the staged validation: short input and small batch first, "
     "then the usual input, then the required limit. The limit stage is the card's dimensions "
     "(filled from the card; other values are refused): a run at smaller dimensions never "
     "validates the card. Image and video generation stage their width, height, frames and "
     "batch the same way.",
     vs_verb_stage_keys, vs_verb_stage_words, 0, NULL},
    {"invalidate", vs_verb_invalidate, "invalidate \"CONDITION\"",
     "a condition that would invalidate the conclusion",
     "Adds a condition under which the conclusion no longer holds (a longer context, another "
     "evaluation, a new driver). It is committed with the sheet.",
     NULL, NULL, 0, NULL},
    {"oom", vs_verb_oom,
     "oom phase=load|prefill|generate|forward|backward|optimizer|validation|export|denoise|decode "
     "[note=\"...\"]",
     "after an overflow: what to examine for its phase",
     "Records where the first overflow happened and shows what to examine for it: load -> "
     "weights, format, transient allocation; prefill/generate -> context and concurrency (KV "
     "cache); forward/backward -> microbatch, activations, computation strategy; optimizer -> "
     "optimizer state, precision, sharding; denoise -> the denoiser's attention, resolution, "
     "batch, CPU offload; decode (the VAE decode, its own phase) -> tiled decoding "
     "(enable_vae_tiling), sliced decoding (enable_vae_slicing), a lower resolution, fewer "
     "frames. Change one thing at a time, then re-check quality and coverage.",
     vs_verb_oom_keys, vs_verb_oom_words, 0, NULL},
    {"decide", vs_verb_decide, "decide \"DECISION\"", "the decision, with what is still pending",
     "Records the decision (with no text, asks for it). It lists what the decision still rests "
     "on: unknown components, missing measurements, missing invalidating conditions.",
     NULL, NULL, 0, NULL},
    {NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL},
};
