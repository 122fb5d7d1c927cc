/* engine.h — the runtimes a card runs under, and what each does with a GPU.
 *
 * An inference engine does not use a GPU the way the sheet's sum of components
 * does: vLLM budgets a fraction of CUDA's total and fills what its weights,
 * profiling pass and runtime leave with pages of KV cache; llama.cpp allocates
 * exactly the cells of its context, padded; transformers keeps the model's own
 * cache and, in eager attention, materialises the score matrix. Each engine is
 * one file (src/engine/<name>.c) behind one struct: its keys with their
 * defaults and sources, its budget rule, its KV allocation rule and the
 * runtime items it has; the table below lists them, and help, completion and
 * `engine` come from it. The sizing code never branches on an engine's name.
 *
 * Runtime items are components with fixed names (non_torch, activation_peak,
 * cuda_graphs): what the engine needs outside weights and KV that only a run
 * can measure. A sheet's component of that name fills the item; an item no
 * component fills is unknown, and every figure that depends on it is an upper
 * bound.
 *
 * Pure: no I/O, no globals beyond the constant tables.
 */
#ifndef VS_ENGINE_ENGINE_H
#define VS_ENGINE_ENGINE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "sheet/kvlayout.h"
#include "util/error.h"

/* ---- runtime items ---- */

typedef enum {
    VS_RT_NON_TORCH = 0,   /* CUDA context, NCCL, memory outside the framework's allocator */
    VS_RT_ACTIVATION_PEAK, /* the profiling (or largest) forward pass's transient peak */
    VS_RT_CUDA_GRAPHS,     /* captured CUDA graphs' memory pool */
    VS_RT_ENCODER_PROFILE, /* a multimodal model's encoder run on dummy items at start-up */
    VS_RT_DRAFT_MODEL,     /* speculative decoding's draft: its weights and its own KV layers */
    VS_RT_LORA,            /* LoRA serving: the adapter slots the engine allocates */
    VS_RT_COUNT
} vs_runtime_item;

#define VS_RT_BIT(i) (1u << (i))

/* "non_torch", "activation_peak", "cuda_graphs", "encoder_profile", "draft_model",
 * "lora_adapters" (static). */
const char *vs_runtime_item_name(vs_runtime_item i);
/* 1 and *item when name (may be NULL) is a runtime item's component name, else 0. */
int vs_runtime_item_find(vs_runtime_item *item, const char *name);

/* ---- keys ---- */

typedef enum {
    VS_EKEY_FRACTION = 0, /* a decimal in (0, 1]: stored as parts per million */
    VS_EKEY_COUNT,        /* a count (K, M, Ki accepted) */
    VS_EKEY_BYTES,        /* an amount with its unit */
    VS_EKEY_BOOL,         /* yes/no, true/false, 1/0, on/off */
    VS_EKEY_WORD          /* one of words[] */
} vs_ekey_kind;

typedef struct vs_engine_key {
    const char *name;
    vs_ekey_kind kind;
    const char *def;    /* the default as text; NULL when it comes from the card or is unset */
    const char *source; /* where the default comes from (an engine source file and release) */
    const char *const *words; /* VS_EKEY_WORD: the accepted values, NULL-terminated */
    const char *help;
} vs_engine_key;

#define VS_ENGINE_KEYS_MAX 20

/* One resolved key. */
typedef struct vs_engine_val {
    int set;          /* a value is known (given, defaulted, or from the card) */
    int given;        /* written on the engine line */
    uint64_t u;       /* count, bytes, bool (0/1), fraction in parts per million */
    const char *word; /* VS_EKEY_WORD: the value (static, from words[]) */
} vs_engine_val;

/* ---- what an engine computes with ---- */

typedef struct vs_engine vs_engine;
typedef struct vs_runtime_estimate vs_runtime_estimate; /* below */

/* How an engine's loader lays a quantised checkpoint's weights out on the GPU
 * where it differs from the checkpoint (model/quant.h tallies each layout). */
typedef enum {
    VS_ENGINE_WEIGHTS_CHECKPOINT = 0, /* as stored */
    VS_ENGINE_WEIGHTS_VLLM,       /* vLLM, its MXFP4 MoE on the Triton kernel (Hopper's default) */
    VS_ENGINE_WEIGHTS_VLLM_MARLIN /* vLLM, its MXFP4 MoE on Marlin (mxfp4_backend=marlin) */
} vs_engine_weights;

typedef struct vs_engine_env {
    const vs_engine *engine;
    vs_engine_val val[VS_ENGINE_KEYS_MAX]; /* in the order of engine->keys */
    /* one GPU of the offer */
    uint64_t total_bytes; /* what the engine sees as the device's total */
    const char *gpu_name; /* the offer's catalogue name or name (NULL: unknown) */
    /* the card */
    int length_known, concurrency_known;
    uint64_t length, concurrency;
    int weight_bits_known;
    unsigned weight_bits; /* the weights' format (16 for bf16) */
    uint64_t tp;          /* tensor-parallel ways (1: none) */
    int heads_known;
    uint64_t heads; /* query heads (card.arch) */
    int layout_known;
    vs_kv_layout layout;
    /* per GPU, after the placement */
    int weights_known;
    uint64_t weights_bytes;
    uint64_t other_bytes; /* known reserve components that are neither KV nor runtime items */
    size_t other_unknown; /* such components of unknown size */
    int item_known[VS_RT_COUNT];
    uint64_t item_bytes[VS_RT_COUNT];
    uint64_t kv_component_bytes; /* the sheet's own kv_cache components (engine none) */
    int kv_component_known;
    /* what llama.cpp reads beside the layout (NULL / 0 when unknown) */
    const char *family; /* card.arch.family: a GGUF architecture or a config family */
    int free_known;     /* the offer's free memory (gpu ... free=) */
    uint64_t free_bytes;
    int io_known;              /* the weights' input and output layers are known */
    int io_exact;              /* ... from the GGUF's tensor list (else from the card's shapes) */
    uint64_t input_bytes;      /* token_embd, position and token-type embeddings */
    uint64_t embd_bytes;       /* token_embd alone */
    uint64_t output_bytes;     /* output.weight and output_norm */
    int tied;                  /* no output.weight: llama.cpp copies token_embd as the output */
    uint64_t pad_bytes;        /* what a CUDA buffer adds to the GPU's tensors (alignment, rows) */
    const json_t *layer_bytes; /* borrowed: each repeating layer's weights (GGUF), or NULL */
    uint64_t n_layer;          /* repeating layers (card.arch.layers) */
    int encoder;               /* the model has a vision or audio encoder (card.arch) */
} vs_engine_env;

typedef struct vs_engine_budget {
    uint64_t budget_bytes;      /* what the engine lets itself use on one GPU */
    int pool_fixed;             /* the KV pool is given directly (vLLM kv_cache_memory=) */
    int pool_fraction;          /* the pool is a fraction of what is left (else all of it) */
    uint64_t pool_fraction_ppm; /* that fraction, when pool_fraction */
    uint64_t pool_fixed_bytes;
    unsigned inside;  /* runtime items taken out of the budget before the KV pool */
    unsigned outside; /* runtime items the engine holds beyond its budget (must fit the total) */
    char rule[320];   /* the rule in words, with its figures */
    uint64_t weights_host_bytes;     /* of the weights, what the engine keeps in host memory */
    uint64_t weights_gpu_copy_bytes; /* beyond the file: a tied output copied, buffer padding */
    char host_rule[480];             /* which, with its figures ("" when nothing) */
} vs_engine_budget;

typedef struct vs_engine_kv {
    int need_known;
    uint64_t need_bytes;    /* what the card's length x concurrency takes as the engine allocates */
    uint64_t kv_tokens;     /* tokens of context the pool holds, as the engine counts them */
    uint64_t blocks;        /* paged engines: blocks of the pool; 0 otherwise */
    uint64_t page_bytes;    /* paged engines: bytes of one block over every layer */
    double max_concurrency; /* requests of the card's length the pool holds (fractional) */
    uint64_t max_length;    /* longest sequence at the card's concurrency (0: not one token) */
    int seq_limited;        /* the engine schedules at most seq_limit sequences at once */
    uint64_t seq_limit;     /* that limit, when seq_limited */
    char rule[400];         /* the allocation in words, with its figures */
    uint64_t host_bytes;    /* of the need, what the engine keeps in host memory */
    char layout_note[480];  /* where the engine's layout differs from the model's, and why */
    /* below one request of the card's length: the rule that refuses the start, with its
     * source (static; NULL: the generic one), or the engine starts and caps requests */
    const char *start_rule;
    int caps_length;     /* starts with a pool smaller than one request, capping requests */
    uint64_t length_cap; /* the longest request it then accepts, in tokens */
    uint64_t min_tokens; /* caps_length: fewer pool tokens than this and it refuses */
} vs_engine_kv;

struct vs_engine {
    const char *name;
    const char *summary;       /* one line */
    const char *help;          /* the rules with their sources (file and release) */
    const vs_engine_key *keys; /* ending with {NULL} */
    unsigned runtime;          /* VS_RT_BIT of the runtime items this engine has */
    /* The budget of one GPU (out zeroed by the caller). */
    int (*budget)(const vs_engine_env *e, vs_engine_budget *out, vs_error *err);
    /* The KV allocation from a pool of pool_bytes (out zeroed by the caller). */
    int (*kv)(const vs_engine_env *e, uint64_t pool_bytes, vs_engine_kv *out, vs_error *err);
    /* The defaults that depend on the release (the version key) and on the GPU
     * (total_bytes, gpu_name), put into the keys not written on the line; NULL when
     * none does. Called once resolved and again per offer. */
    void (*defaults)(vs_engine_env *e);
    /* Other spellings the engine's own docs use ("llama.cpp"), NULL-terminated;
     * NULL: none. */
    const char *const *aliases;
    /* VS_RT_BIT of the runtime items `estimate runtime` has rules for under
     * this engine (engine/runtime.h); 0: none, they are measured or declared. */
    unsigned estimates;
    /* Optional: the engine's own rule for `estimate runtime`, where the shared
     * ones (engine/runtime.h: vLLM's start-up figures) do not apply, as
     * llama.cpp's compute buffer. Estimates the lowest item of `estimates` into
     * est (its rule in rule, rule_size bytes) from e and the card's
     * architecture arch (borrowed, may be NULL); 0, or VS_EVALUE naming what is
     * missing. NULL: the shared rules. */
    int (*runtime_estimate)(vs_runtime_estimate *est, char *rule, size_t rule_size,
                            const vs_engine_env *e, const json_t *arch, vs_error *err);
    /* With runtime_estimate: what an items= list that leaves that item out is
     * told (NULL: which item the engine estimates). */
    const char *runtime_items_note;
    /* Optional: what the release (the version key) adds on every rank to the
     * shared non_torch rule (vs_runtime_estimate_context) at e->tp on a GPU of
     * architecture (the catalogue's word, may be NULL), writing why into note
     * (note_size bytes, "" when it adds none). NULL: nothing. */
    uint64_t (*non_torch_extra)(const vs_engine_env *e, const char *architecture, char *note,
                                size_t note_size);
    /* Optional: how the engine lays out quantised weights, from the card's
     * engine keys as written (keys borrowed, may be NULL). NULL: as the
     * checkpoint stores them. */
    vs_engine_weights (*weights)(const json_t *keys);
};

/* The engines, in help order, NULL-terminated (the rows of engine/engines.def);
 * "none" is the default. */
extern const vs_engine *const vs_engines[];
const vs_engine *vs_engine_find(const char *name);
const vs_engine *vs_engine_default(void);
/* 1 and *index of key name in engine->keys, or 0 when the engine has no such
 * key (engine or name NULL: none). */
int vs_engine_key_index(const vs_engine *engine, const char *name, size_t *index);

/* Parses one key's value text. 0, or VS_EVALUE / VS_EUNIT saying what is expected. */
int vs_engine_key_parse(vs_engine_val *out, const vs_engine_key *key, const char *text,
                        vs_error *err);

/* Resolves every key of engine: the card's engine.keys (text as written)
 * first, then the defaults; keys whose default comes from the card
 * (max_model_len, ctx, parallel) are filled by the engine's rules from env.
 * VS_EVALUE naming an unknown key or a bad value. */
int vs_engine_resolve(vs_engine_env *env, const vs_engine *engine, const json_t *keys,
                      vs_error *err);

/* The value of key name (NULL when the engine has no such key). */
const vs_engine_val *vs_engine_get(const vs_engine_env *e, const char *name);

/* VS_RT_BIT of the runtime items the resolved env has: its engine's own, plus
 * the serving extras its keys turn on (num_speculative_tokens set: draft_model;
 * max_loras set: lora_adapters), for an engine that has those keys. */
unsigned vs_engine_items(const vs_engine_env *env);
/* Where an extra item comes from when it is unknown (static), NULL for the
 * engine's own items. */
const char *vs_runtime_item_source(vs_runtime_item i);

/* ---- helpers the engines share ---- */

/* ceil(bytes x ppm / 10^6), without overflow for any byte count a GPU has. */
uint64_t vs_engine_fraction_ceil(uint64_t bytes, uint64_t ppm);
/* floor(bytes x ppm / 10^6). */
uint64_t vs_engine_fraction_floor(uint64_t bytes, uint64_t ppm);
/* Bits per cached value of a KV dtype word ("auto" or NULL gives auto_bits):
 * 1 and *bits, or 0 for a word with no whole bits per value (q8_0, which the
 * llama.cpp profile handles, or no cache dtype at all; *bits untouched). */
int vs_engine_kv_bits(const char *word, unsigned auto_bits, unsigned *bits);
/* The bits of the model's own values, what "auto" means: 32 for fp32
 * weights, else 16 (an unknown format too). */
unsigned vs_engine_model_bits(const vs_engine_env *e);

/* The KV bytes of the layout for length tokens x concurrency on one GPU (tp
 * from env) at bits per value, exact (kvlayout's rule). VS_EUNIT on overflow. */
int vs_engine_layout_bytes(uint64_t *out, const vs_engine_env *e, uint64_t length,
                           uint64_t concurrency, unsigned bits, vs_error *err);
/* The token-level allocation the engines without pages share (and TensorRT-LLM
 * with blocks of `block` tokens; block 1 = token level): need = the layout's
 * bytes at the card's dims (+ extra_per_seq(length) per sequence when given),
 * tokens = pool / bytes of one token over every layer, concurrency and length
 * by search. */
int vs_engine_token_kv(const vs_engine_env *e, uint64_t pool, unsigned bits, uint64_t block,
                       uint64_t (*extra_per_seq)(const vs_engine_env *e, uint64_t length),
                       vs_engine_kv *out, vs_error *err);

/* The longest length in [0, cap] for which fits(length) holds, fits being
 * monotone (binary search); 0 when not even one token fits. */
uint64_t vs_engine_max_length(uint64_t cap, int (*fits)(const void *data, uint64_t length),
                              const void *data);

/* ---- the encoder's profiling pass (engine/engine_encoder.c) ---- */

/* 1 when card.arch (may be NULL) names encoder parameters (a vision or audio
 * tower and its projector: encoder_params), else 0. */
int vs_engine_encoder_present(const json_t *arch);
/* Whether runtime item i applies to a card with (encoder 1) or without an
 * encoder: encoder_profile only with one; the others always. */
int vs_engine_item_applies(vs_runtime_item i, int encoder);

/* ---- runtime-item estimates (each with its source and stated error) ---- */

typedef struct vs_runtime_estimate {
    uint64_t bytes;
    const char *rule; /* static: the rule and its source */
    double error;     /* the largest relative error seen against published logs */
} vs_runtime_estimate;

/* What the activation-peak rule reads: the profiling pass's tokens
 * (max_num_batched_tokens) and sequences (max_num_seqs), the model's widths
 * (config.json), and the tensor-parallel size. moe_intermediate and
 * experts_per_token are 0 for a dense model; dense_layers counts a mixture of
 * experts' dense layers (they use intermediate). mlp_plain 1: the dense MLP is
 * one up-projection, an activation and a down-projection (OPT's fc1/fc2, GPT-2's
 * c_fc/c_proj), not a gate and an up projection (SwiGLU). sampler_off 1: a rank that runs no
 * sampler (V0's ranks past the first), to check what such a rank prints; the engine
 * sizes its pool from the first rank's larger peak, so `estimate` leaves it 0. */
typedef struct vs_runtime_shape {
    uint64_t tokens, seqs;
    uint64_t hidden, intermediate, vocab;
    uint64_t moe_intermediate, experts_per_token, dense_layers;
    uint64_t tp;
    int sampler_off;
    int mlp_plain;
} vs_runtime_shape;

/* The activation peak of vLLM's profiling pass: the larger of the forward pass's
 * MLP peak and the sampler's run over max_num_seqs rows of logits. 0, or VS_EVALUE
 * when a width is missing (0). */
int vs_runtime_estimate_activation(vs_runtime_estimate *out, const vs_runtime_shape *s,
                                   vs_error *err);
/* The activation peak with the sampler's top-k/top-p kernel named (vLLM's
 * sampler= key; engine/engine_sampler.c): "native" (or NULL) is
 * vs_runtime_estimate_activation's sort; "flashinfer" the larger of its forward
 * pass and max_num_seqs x vocab x 14 B; "triton" (0.17.0 on) the larger of the
 * forward pass and max_num_seqs x vocab x 14 B + max_num_batched_tokens x hidden x
 * 2 B, the sort below 8 sequences. VS_EVALUE for another word or a missing width. */
int vs_runtime_estimate_activation_sampler(vs_runtime_estimate *out, const vs_runtime_shape *s,
                                           const char *sampler, vs_error *err);
/* Non-torch memory (cuBLAS workspaces; NCCL's buffers under tp > 1) by GPU
 * architecture ("Ampere", "Hopper", ...: the catalogue's word) and, where one
 * generation ships both NVSwitch boards and PCIe cards, the GPU's name (an offer's
 * or a log's, "A100-SXM4-40GB", "A30"; may be NULL). VS_ENOTFOUND for an
 * architecture, or a tp > 1 on one, without published figures. */
int vs_runtime_estimate_context(vs_runtime_estimate *out, const char *architecture, const char *gpu,
                                uint64_t tp, vs_error *err);
/* What a group of two ranks adds over vs_runtime_estimate_context's tp 2 figure when
 * it takes the buffers of larger groups (the NVLink rings and 2 x 32 MiB of NVLS), on
 * an architecture whose rule gives tp 2 its own term (Hopper), in bytes; 0 elsewhere
 * (NVLS needs NVSwitch: a caller leaves PCIe cards out). A release that does so says it
 * (engine/vllm.c). */
uint64_t vs_engine_context_pair_as_group(const char *architecture);
/* 1 when a GPU's name says a PCIe card (or a bridged pair, a workstation card: "L4",
 * "RTX 4090", "H100 PCIe"), whose links to its peers are PCIe; 0 for an SXM board and a
 * name that says neither ("H200", "A100 80GB") or NULL. */
int vs_engine_board_pcie(const char *gpu);

#endif
