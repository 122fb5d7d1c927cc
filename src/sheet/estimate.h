/* estimate.h — the estimators of the sizing method, in exact integer bytes.
 *
 * Each estimator turns declared shapes into bytes with the formula its help
 * cites: the KV cache (2 x L x H x D x bytes(dtype) x length x concurrency),
 * training state per trainable parameter (ZeRO, Rajbhandari et al. 2020),
 * saved activations per layer (Korthikanti et al. 2022) and quantisation
 * metadata per group (QLoRA, Dettmers et al. 2023; GPTQ, Frantar et al. 2022).
 * Everything is integer arithmetic with overflow checks (VS_EUNIT, never a
 * wrap-around); fractions of a byte round up once, at the end. This module only
 * computes: it does not read the sheet, print, or decide what is missing.
 * Pure: no I/O, no globals.
 */
#ifndef VS_SHEET_ESTIMATE_H
#define VS_SHEET_ESTIMATE_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

/* An estimator as `estimate NAME` knows it: its name, the keys its line
 * takes, its syntax and a one-line summary. The arithmetic of each is in
 * sheet/estimators/NAME.c; the one table of estimators (lang/derive.h's
 * vs_estimators) pairs each with what it reads from the sheet and prints. */
typedef struct vs_estimator_info {
    const char *name;
    const char *const *keys; /* NULL-terminated */
    const char *syntax;
    const char *summary;
} vs_estimator_info;

extern const vs_estimator_info vs_estimator_kv, vs_estimator_training, vs_estimator_activations,
    vs_estimator_quant, vs_estimator_runtime, vs_estimator_latents, vs_estimator_attention,
    vs_estimator_decode;
extern const char *const vs_estimate_kv_keys[],
    *const vs_estimate_training_keys[], *const vs_estimate_activations_keys[],
                                            *const vs_estimate_quant_keys[],
                                                *const vs_estimate_runtime_keys[],
                                                    *const vs_estimate_latents_keys[],
                                                        *const vs_estimate_attention_keys[],
                                                            *const vs_estimate_decode_keys[];

/* Bits per stored value of a cache or tensor dtype: fp32/float32 32, fp16/bf16
 * 16, fp8/e4m3/e5m2/int8 8, int4/nf4/fp4 4, in any case. 0 and *bits, or
 * VS_EVALUE naming the dtypes (*bits untouched; err may be NULL). */
int vs_estimate_dtype_bits(unsigned *bits, const char *dtype, vs_error *err);
/* The names vs_estimate_dtype_bits accepts, as a list for messages ("fp32, ..., nf4 or fp4"). */
const char *vs_estimate_dtype_names(void);

/* KV cache of one full group (every layer full attention): 2 x layers x
 * kv_heads x head_dim x bits/8 x length x concurrency bytes, rounded up (GQA
 * and MQA through kv_heads). A shorthand for sheet/kvlayout.h, where the
 * formula of every layout kind lives. */
int vs_estimate_kv(uint64_t *out, uint64_t layers, uint64_t kv_heads, uint64_t head_dim,
                   unsigned bits, uint64_t length, uint64_t concurrency, vs_error *err);

typedef enum {
    VS_CKPT_NONE = 0,
    VS_CKPT_SELECTIVE,
    VS_CKPT_FULL,
    VS_CKPT_OFFLOAD /* full, with the layer inputs kept in host memory */
} vs_checkpointing;

/* "none" | "selective" | "full" | "offload"; 0 or VS_EVALUE naming them. */
int vs_checkpointing_parse(vs_checkpointing *out, const char *name, vs_error *err);
const char *vs_checkpointing_name(vs_checkpointing mode);

/* Saved activations of a transformer, 16-bit, per layer (s = length,
 * b = microbatch, h = hidden, a = heads), times layers:
 *   none:      s*b*h*(34 + 5*a*s/h) = 34*s*b*h + 5*a*s*s*b   (exact)
 *   selective: 34*s*b*h
 *   full:      2*s*b*h (the layer input only)                  */
int vs_estimate_activations(uint64_t *out, uint64_t layers, uint64_t hidden, uint64_t heads,
                            uint64_t length, uint64_t microbatch, vs_checkpointing mode,
                            vs_error *err);

/* How attention is computed, which decides whether the score matrix is kept for
 * the backward pass: eager keeps it (Korthikanti's 5*a*s/h term); PyTorch's SDPA
 * and FlashAttention work in tiles and recompute it, so that with no checkpointing
 * the layer keeps what selective recomputation keeps (Dao et al. 2022,
 * "FlashAttention"; torch.nn.functional.scaled_dot_product_attention). */
typedef enum { VS_ATTN_EAGER = 0, VS_ATTN_SDPA, VS_ATTN_FLASH, VS_ATTN_XFORMERS } vs_attention;

/* "eager" | "sdpa" | "flash" | "xformers"; 0 or VS_EVALUE naming them. xformers'
 * memory_efficient_attention (Unsloth's attention when flash-attn is not
 * installed) works in tiles too. */
int vs_attention_parse(vs_attention *out, const char *name, vs_error *err);
const char *vs_attention_name(vs_attention a);

/* The shapes the activations of one decoder layer follow. kv_width (kv_heads x
 * head_dim) and intermediate 0: Korthikanti's GPT layer (4h MLP, dropout);
 * both set: a gated-MLP decoder (Llama's SwiGLU, RMSNorm, no dropout). */
typedef struct vs_act_shape {
    uint64_t layers, hidden, heads, length, microbatch;
    uint64_t kv_width, intermediate;
} vs_act_shape;

/* What the layers keep for the backward pass, 16-bit, T = length x microbatch:
 *   per_layer: one layer with nothing recomputed: gated T x (12h + 4 kv_width +
 *     8 intermediate) (autograd's saved tensors: each norm's input and output,
 *     q, k, v and the attention output, the MLP's gate, up, their product and
 *     the activation), else Korthikanti's 34 T h; eager attention adds the score
 *     matrix and its softmax (a x s^2 x b x 4 B gated, 5 B with Korthikanti's
 *     dropout mask)
 *   kept: none L x per_layer; selective L x per_layer without the scores;
 *     full L x 2 T h (each layer's input); offload 0 (the inputs in host memory)
 *   recompute: under full or offload one layer rematerialised in the backward
 *     (per_layer); 0 otherwise
 *   total = kept + recompute */
typedef struct vs_act_est {
    uint64_t per_layer, kept, recompute, total;
    uint64_t working; /* of recompute: the backward's own tensors beside the saved ones */
} vs_act_est;
int vs_estimate_activations_layers(vs_act_est *out, const vs_act_shape *s, vs_checkpointing mode,
                                   vs_attention attn, vs_error *err);

/* The same for a gated decoder under Unsloth's kernels (unslothai/unsloth at
 * 0050c73), which save their own tensors rather than autograd's, T = length x
 * microbatch, 16-bit unless said:
 *   per_layer: T x (12 h + 4 kv_width + 4 intermediate + 4 heads + 8): each
 *     Fast_RMS_Layernorm its input and a float32 1/rms a row (X, W, r), 2h + 4
 *     twice; LoRA_QKV its input X, 2h; the rotary embedding in place, nothing;
 *     flash attention q, k, v, its output and a float32 log-sum-exp a head
 *     (2h + 4 kv + 2h + 4 heads), LoRA_W (o_proj) that output again, a view;
 *     attention=xformers (no flash-attn: LlamaAttention_fast_forward at unsloth
 *     2024.12.4 expands K and V to every head and, with grad, reshapes them
 *     into copies, which xformers saves) 2h + 4h + 2h + 4 heads;
 *     the residual sum the second norm takes is that norm's X; LoRA_MLP X, e
 *     and g (2h + 4 intermediate); the product h = silu(e) g is recomputed in
 *     the backward, not saved
 *   working: T x (4 h + 4 intermediate), in LoRA_MLP's backward, the first the
 *     layer runs, besides all of that: the recomputed layer's output the
 *     checkpointer holds and the incoming gradient dY (2h each), DW = dY x
 *     down^T (2 intermediate) and, before matmul_lora's in-place add, DW's
 *     LoRA term (dY B^T)(s A^T), a fresh T x intermediate product (2
 *     intermediate; kernels/utils.py); the SwiGLU backward then writes h, df,
 *     de over DW, e, g, and dX over X
 *   kept: full L x 2 T h (Unsloth_Gradient_Checkpointer keeps each input, the
 *     first layer's being the embedding's output); offload 2 T h, the
 *     embedding's output alone (Unsloth_Offloaded_Gradient_Checkpointer moves
 *     each layer's input to host memory and copies it back in the backward,
 *     but prepare_model_for_kbit_training's enable_input_require_grads makes
 *     the embedding's output a leaf that requires grad, which the graph holds
 *     until the backward ends); recompute = per_layer + working, less under
 *     full the top layer's input, which is in kept.
 * Only full and offload: Unsloth checkpoints every layer. */
int vs_estimate_activations_unsloth(vs_act_est *out, const vs_act_shape *s, vs_checkpointing mode,
                                    vs_attention attn, vs_error *err);

/* The rotary tables Unsloth keeps on the GPU for a Llama-shaped decoder, a cos
 * and a sin of head_dim a position. One table (LlamaRotaryEmbedding,
 * LlamaExtendedRotaryEmbedding in unsloth/models/llama.py) caches
 * min(4 x 8,192, context) positions in float32 (torch.get_default_dtype()) when
 * built; LlamaAttention_fast_forward's extend_rope_embedding(V, seq_len)
 * rebuilds it past that at ceil(length / 8,192) x 8,192 positions in V's
 * 16-bit dtype:
 *   table(length) = 2 x min(32,768, context) x head_dim x 4    (length <= that)
 *                   2 x ceil(length / 8,192) x 8,192 x head_dim x 2 (longer)
 * per_layer (Unsloth 2024.12.x, transformers <= 4.47.1): patch_llama_rope_scaling
 * (unsloth/models/_utils.py) rewrites LlamaAttention.__init__ so that every
 * layer's attention builds and extends its own table, and the model's
 * LlamaModel.rotary_emb, Unsloth's class too (pre_patch swaps it in), keeps one
 * as built, never extended: layers x table(length) + table(0). Otherwise
 * (from 2025.1.1, from_pretrained: layer.self_attn.rotary_emb =
 * model.model.rotary_emb) the layers share one table: table(length).
 * cast16 (unsloth 2024.8, 2024.9.post1 and 2024.10.0: post_patch's "Downcast
 * RoPE embedding to correct data type", models/llama.py, gone by 2024.12.4):
 * every table as built is cast to the model's 16-bit dtype, 2 B, not 4.
 * context 0 (unknown) reads as 32,768. The length is one sequence's (the
 * tables are by position, not by token of the batch). */
int vs_estimate_unsloth_rope(uint64_t *out, uint64_t layers, uint64_t head_dim, uint64_t context,
                             uint64_t length, int per_layer, int cast16, vs_error *err);

/* The logits and the loss of a causal language model over tokens positions
 * (length x microbatch) and a vocabulary of vocab entries, T x V elements:
 *   chunks <= 1: the float32 logits the loss takes (4 B), their gradient (4 B)
 *     and the 16-bit gradient into the output layer (2 B): 10 B per element
 *   chunks > 1 (torchtune's CEWithChunkedOutputLoss, 8 chunks): the 16-bit
 *     logits of every chunk, kept for the backward (2 B per element), and one
 *     chunk's 16-bit gradient at a time (2 B / chunks, rounded up). */
int vs_estimate_logits(uint64_t *out, uint64_t tokens, uint64_t vocab, uint64_t chunks,
                       vs_error *err);

/* The loss of Cut Cross-Entropy (Wijmans et al. 2024; apple/ml-cross-entropy's
 * linear_cross_entropy, which Unsloth calls): the logits are never written to
 * memory, each block of them is made and reduced in the kernel. What it
 * allocates over tokens positions of a hidden-wide last hidden state, read in
 * cut-cross-entropy 24.11.4, 24.12.3 and 25.1.1 on PyPI: the float32
 * log-sum-exp of each position (4 B) and the int64 index of each label
 * (valids, 8 B), both saved for the backward, and in the backward the gradient
 * into the hidden state, torch.zeros_like(e) (2 B x hidden); and, when
 * classifier_grad, the output layer's gradient dc = torch.zeros_like(c),
 * vocab x hidden x 2 B: allocated by 24.11.4 to 24.12.3 whatever the output
 * layer, by 25.1.1 only when it requires grad. The int32 lock arrays (about
 * 4 B a position and 4 B a vocabulary row) and the float32 logit average a
 * vocabulary row (filter_eps) are not counted. */
int vs_estimate_loss_cce(uint64_t *out, uint64_t tokens, uint64_t hidden, uint64_t vocab,
                         int classifier_grad, vs_error *err);

/* The loss of Unsloth before Cut Cross-Entropy (unsloth 2024.8, 2024.9.post1
 * and 2024.10.0 on PyPI, read there: models/llama.py CausalLM_fast_forward,
 * kernels/cross_entropy_loss.py Fast_CrossEntropyLoss), over tokens positions
 * (T) of a hidden-wide last hidden state (H) and a vocabulary (V):
 *   logits: T x V x 2, the output layer's 16-bit logits (the model's dtype, to
 *     which logits.to(config.torch_dtype) casts: transformers' from_pretrained
 *     sets config.torch_dtype to the dtype Unsloth loads in), saved by the
 *     loss, which writes its gradient over them in the backward;
 *   chunks: ceil(V / 65,536) (MAX_FUSED_SIZE), the forward's blocks a token;
 *   forward: the float32 losses (T x 4) and log-sum-exps, T x 4 for one block,
 *     else T x chunks x 4 reduced by torch.logsumexp into T x 4 beside them:
 *     T x 8, else T x 4 x (chunks + 2);
 *   grad_hidden: T x H x 2, the gradient into the last hidden state, made by
 *     the output layer's backward while the logits' gradient is alive;
 *   outputs: under fp32_outputs, T x V x 4 + T x 4: accelerate's mixed
 *     precision wrapper (convert_outputs_to_fp32, what the Trainer's fp16=True
 *     or bf16=True installs) converts the returned 16-bit logits to float32
 *     while the loss holds the 16-bit ones and its T x 4 log-sum-exp; else 0;
 *   total: logits + the largest of forward, grad_hidden and outputs. */
typedef struct vs_unsloth_loss_est {
    uint64_t chunks, logits, forward, grad_hidden, outputs, total;
} vs_unsloth_loss_est;
int vs_estimate_loss_unsloth(vs_unsloth_loss_est *out, uint64_t tokens, uint64_t hidden,
                             uint64_t vocab, int fp32_outputs, vs_error *err);

/* The loss of Liger-Kernel's fused linear cross-entropy (LigerFusedLinear-
 * CrossEntropyFunction, linkedin/Liger-Kernel at 00eba63), which runs the
 * output layer and the loss together over chunks of tokens and computes their
 * gradients in the forward. At its peak, over tokens positions (BT), a
 * hidden-wide last hidden state (H), a vocabulary (V), in a bytes-wide dtype
 * (2 for bf16):
 *   chunk_rows = min(next_power_of_2(ceil(BT / ceil(V / H))), BT), chunks =
 *     ceil(BT / chunk_rows);
 *   logits_chunk: chunk_rows x V x bytes, one chunk's logits in the input's
 *     dtype, not upcast, the gradient written over them;
 *   grad_input: BT x H x bytes, the gradient into the hidden state;
 *   per_token: BT x 5 B, the float32 loss of each token and the bool mask of
 *     the ignored ones;
 *   grad_weight: V x H x bytes when the output layer is trained
 *     (head_trained), in its own dtype; 0 when frozen (LoRA);
 *   total: their sum. */
typedef struct vs_liger_est {
    uint64_t chunk_rows, chunks;
    uint64_t logits_chunk, grad_input, per_token, grad_weight, total;
} vs_liger_est;
int vs_estimate_loss_liger(vs_liger_est *out, uint64_t tokens, uint64_t hidden, uint64_t vocab,
                           unsigned bytes, int head_trained, vs_error *err);

/* Bytes per trainable parameter of one optimizer under one precision policy. */
typedef struct vs_training_rule {
    const char *optimizer; /* canonical name: "adamw", "sgd", "adamw8bit" */
    const char *precision; /* "mixed", "fp32", "bf16" */
    unsigned gradient_bytes;
    unsigned master_bytes; /* fp32 master copy (mixed precision only) */
    unsigned state_bytes;  /* optimizer moments */
    unsigned state_block; /* 8-bit moments: values per fp32 scale, one scale per moment (0: none) */
    int paged;            /* bitsandbytes' paged optimizers: the moments in CUDA managed memory */
    const char *why;      /* one line: what each number is (static) */
} vs_training_rule;

/* optimizer: adamw (alias adam), sgd, adamw8bit, and bitsandbytes' paged
 * optimizers paged_adamw8bit (alias paged_adamw_8bit) and paged_adamw (aliases
 * paged_adamw32bit, paged_adamw_32bit; float32 moments whatever the precision),
 * whose moments are CUDA managed memory (paged = 1);
 * precision (NULL = "mixed"): mixed (16-bit weights and gradients, fp32 master
 * copy, fp32 moments), fp32 (no master copy), bf16 (pure 16-bit: moments in
 * 16 bits, no master copy). Returns 0 or VS_EVALUE naming the choices. */
int vs_training_rule_get(vs_training_rule *out, const char *optimizer, const char *precision,
                         vs_error *err);

typedef struct vs_training_est {
    uint64_t gradients;       /* class gradients */
    uint64_t master_copy;     /* class optimizer */
    uint64_t optimizer_state; /* class optimizer; under a paged optimizer the 8-bit
                                 moments' block scales only */
    uint64_t paged_state;     /* class optimizer, managed memory: a paged optimizer's
                                 moments (0 otherwise) */
} vs_training_est;

int vs_estimate_training(vs_training_est *out, const vs_training_rule *rule, uint64_t trainable,
                         vs_error *err);

/* What torchao's compiled AdamW8bit step allocates beside its state for one
 * parameter of n values (param_bytes a value, moments in blocks of block), by
 * the PyTorch release whose Inductor compiles it (torch: "2.5", "2.6" or
 * "2.15"; NULL = "2.15"). every_step: each step (2.5: a float32 buffer of the
 * parameter's shape, 4n; 2.15: the two new absmax, 2 x n / block x 4);
 * first_step: on top of it at the first step, the kernel's autotuning (2.5 and
 * 2.6: clones of the parameter, both codes and both scales, each twice, and
 * triton's L2 flush buffer); 0 where there is none. The whys are static.
 * VS_EVALUE for another release or n not a whole number of blocks. */
typedef struct vs_adamw8bit_step_est {
    const char *torch;
    uint64_t update_f32, new_absmax, every_step;
    uint64_t clones, flush, first_step;
    const char *every_why, *first_why;
} vs_adamw8bit_step_est;
int vs_estimate_adamw8bit_step(vs_adamw8bit_step_est *out, const char *torch, uint64_t n,
                               unsigned param_bytes, unsigned block, vs_error *err);

/* ---- LoRA adapters (PEFT) ---- */

/* The linear modules of a decoder layer a LoRA can target, by their role (Llama's
 * q_proj k_proj v_proj o_proj gate_proj up_proj down_proj). */
enum { VS_LORA_MODULES = 7, VS_LORA_ALL_LINEAR = 0x7f };

/* "q", "k", ... "down" for module i. */
const char *vs_estimate_lora_module_name(unsigned i);

/* "all-linear" (every linear module of the decoder layers: PEFT's all-linear,
 * which leaves the output layer out) or a comma list of q, k, v, o, gate, up,
 * down (q_proj ... accepted): a bit mask, bit i for module i. 0 or VS_EVALUE. */
int vs_estimate_lora_targets_parse(unsigned *mask, const char *text, vs_error *err);

/* A decoder's shapes: q is hidden -> heads x head_dim, k and v hidden ->
 * kv_heads x head_dim, o heads x head_dim -> hidden; gate and up hidden ->
 * intermediate, down back. A mixture of experts (experts > 0) has dense_layers
 * dense MLPs first, then in each other layer experts MLPs at moe_intermediate,
 * a shared MLP at shared_intermediate (0: none) and a router hidden -> experts. */
typedef struct vs_lora_shape {
    uint64_t layers, hidden, heads, kv_heads, head_dim, intermediate;
    uint64_t experts, moe_intermediate, shared_intermediate, dense_layers;
} vs_lora_shape;

typedef struct vs_lora_est {
    uint64_t trainable;                   /* r x (in + out), summed over targeted modules */
    uint64_t per_module[VS_LORA_MODULES]; /* the same, per role, over all layers */
    uint64_t router;                      /* all-linear on experts: the routers' share */
    uint64_t base_linear;    /* in x out of every linear module of the layers (targeted or not):
                                what a 4-bit base quantises */
    uint64_t largest_linear; /* in x out of the largest of them */
} vs_lora_est;

/* PEFT's LoRA: each targeted nn.Linear(in, out) gets lora_A (in x r) and lora_B
 * (r x out), no bias (peft/tuners/lora/layer.py, LoraLayer.update_layer). 0,
 * VS_EVALUE (rank 0, shapes missing) or VS_EUNIT. */
int vs_estimate_lora(vs_lora_est *out, const vs_lora_shape *s, unsigned mask, uint64_t rank,
                     vs_error *err);

/* Quantisation metadata stored beside the packed weights. */
typedef struct vs_quant_rule {
    const char *scheme; /* "bnb", "gptq", "group" */
    uint64_t group;     /* values per group (block) */
    unsigned meta_bits; /* bits stored per group: scale (+ zero point) */
    uint64_t group2; /* double quantisation: first-level scales per second-level block, 0 = none */
    unsigned meta2_bits; /* bits per second-level block */
    /* citation, naming the group actually used (a static text said 128 for any
     * group=) */
    char source[400];
} vs_quant_rule;

/* scheme: "bnb" (bitsandbytes nf4/fp4: blocks of 64, an fp32 absmax each; with
 * double quantisation (dq != 0) the absmax is 8-bit, with one fp32 constant per
 * 256 blocks), "gptq" (group 128: fp16 scale + a zero point of `bits` bits per
 * group and output column), "group" (generic: scale_bits per group). group 0
 * keeps the scheme's default. Returns 0 or VS_EVALUE. */
int vs_quant_rule_get(vs_quant_rule *out, const char *scheme, uint64_t group, int dq, unsigned bits,
                      unsigned scale_bits, vs_error *err);

/* 0 when group= as a person gave it is usable; VS_EVALUE for 0, which
 * vs_quant_rule_get would otherwise read as "the scheme's default": a verb that
 * reads group= calls this when the key is present, so group=0 is refused
 * instead of silently becoming 64 or 128. */
int vs_estimate_quant_group_check(uint64_t group, vs_error *err);

/* ceil(params / group) x meta_bits / 8 + ceil(params / (group x group2)) x
 * meta2_bits / 8, each rounded up to whole bytes. */
int vs_estimate_quant(uint64_t *out, const vs_quant_rule *rule, uint64_t params, vs_error *err);

/* ---- image and video generation (diffusers pipelines) ---- */

/* Latent frames of a video VAE with temporal compression t (t = 0 or 1: none):
 * (frames - 1) / t + 1, the causal first frame kept whole (diffusers'
 * pipeline_wan.py, pipeline_hunyuan_video.py: num_latent_frames). frames 0
 * reads as 1 (an image). */
uint64_t vs_estimate_latent_frames(uint64_t frames, uint64_t temporal);

/* Latents: batch x channels x (height / factor) x (width / factor) x
 * latent_frames x bits / 8, rounded up (diffusers' prepare_latents: shape
 * (batch, num_channels_latents, height // vae_scale_factor, width //
 * vae_scale_factor)). */
int vs_estimate_latents(uint64_t *out, uint64_t batch, uint64_t channels, uint64_t width,
                        uint64_t height, uint64_t factor, uint64_t latent_frames, unsigned bits,
                        vs_error *err);

/* Latent tokens the denoiser attends over: (height / div) x (width / div) x
 * latent_frames + text_tokens, div = the VAE factor x the patch size x the
 * extra downsampling before the attention level. */
int vs_estimate_latent_tokens(uint64_t *out, uint64_t width, uint64_t height, uint64_t div,
                              uint64_t latent_frames, uint64_t text_tokens, vs_error *err);

/* The attention score matrix eager attention materialises: batch x heads x
 * tokens^2 x bits / 8 (fused scaled-dot-product / flash attention does not
 * materialise it). */
int vs_estimate_attention_scores(uint64_t *out, uint64_t batch, uint64_t heads, uint64_t tokens,
                                 unsigned bits, vs_error *err);

/* The VAE decode's working memory: batch x frames x height x width x bits/8
 * x per_pixel, per_pixel the bytes per output pixel per byte of element: a
 * measured constant (2200 for the SD/SDXL AutoencoderKL, InvokeAI's
 * vae_working_memory.py) or channels x live tensors of the decoder's last,
 * full-resolution block. */
int vs_estimate_decode(uint64_t *out, uint64_t batch, uint64_t frames, uint64_t width,
                       uint64_t height, unsigned bits, uint64_t per_pixel, vs_error *err);

#define VS_DECODE_STEP_MAX 96

/* An AutoencoderKL decode, for vs_estimate_decode_kl: blocks the VAE's
 * block_out_channels (n_blocks of them), layers its layers_per_block; batch x
 * frames images of width x height at bits per element; bf16 when the decode
 * runs in bfloat16 (Upsample2D's float32 interpolation), eager when the mid
 * block's attention runs the older AttnProcessor (its score matrices; else SDPA,
 * none); ws cuDNN's convolution workspace, bytes per element of each 3 x 3
 * convolution's input, added at the convolution's step (0: activations only). */
typedef struct vs_decode_kl {
    const uint64_t *blocks;
    size_t n_blocks;
    uint64_t layers, batch, frames, width, height;
    unsigned bits;
    int bf16, eager;
    unsigned ws;
} vs_decode_kl;

/* The AutoencoderKL decoder's peak under torch.no_grad, walked tensor by
 * tensor from its config (sheet/estimators/decoder_kl.c says what each step
 * holds, read in diffusers' source). bytes: every image of the batch at once;
 * per_image_pixel: one image's bytes per output pixel; step: the first step
 * where the peak is reached; workspace: cuDNN's bytes at the peak step (within
 * bytes). */
typedef struct vs_decode_peak {
    uint64_t bytes;
    uint64_t per_image_pixel;
    uint64_t workspace;
    char step[VS_DECODE_STEP_MAX];
} vs_decode_peak;

int vs_estimate_decode_kl(vs_decode_peak *out, const vs_decode_kl *d, vs_error *err);

#endif
