/* family.h — the registry of model families: what a config.json says a model is.
 *
 * Each family (or close group of families) is one file under model/families/
 * holding one vs_family: the model_types and architectures it accepts, the
 * config keys it reads, a parser that turns config.json into a vs_arch, a KV
 * layout builder, and the checkpoint's tensor list. The families are listed
 * in one table in family.c; a new family is one new file and one row there.
 *
 * The parameter rule of a family is its tensor list: name pattern and shape,
 * repeated per layer (and per expert), in the order and with the names the
 * Hugging Face checkpoint stores them. The count is the sum of those tensors,
 * what a safetensors index totals; the same list serves file-type predictions
 * for GGUF (vs_family_tensors gives every concrete name with its shape).
 * Shapes are in PyTorch order ([out, in] for a linear weight), as safetensors
 * headers give them.
 *
 * Only what the architecture itself defaults is defaulted (KV heads = heads,
 * head dim = hidden / heads, the biases and tied embeddings the family's model
 * class has, and for the text and vision parts of a multimodal config the
 * defaults of the Hugging Face config class named by their model_type); a
 * missing dimension is an error, never a guess. Pure: no I/O, no globals.
 */
#ifndef VS_MODEL_FAMILY_H
#define VS_MODEL_FAMILY_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "sheet/kvlayout.h"
#include "util/error.h"

/* The parts a checkpoint's tensors belong to, named in the model payload. */
typedef enum {
    VS_PART_TEXT = 0,  /* the language model (or the whole model when unimodal) */
    VS_PART_VISION,    /* a vision tower (CLIP, SigLIP, Mllama's vision encoder) */
    VS_PART_PROJECTOR, /* the multimodal projector */
    VS_PART_MTP,       /* multi-token-prediction layers: excluded from params */
    VS_PART_HEADS,     /* pre-training heads stored beside an encoder (BERT) */
    VS_PART_AUDIO,     /* an audio encoder (Phi-4-multimodal's conformer) */
    VS_PART_ADAPTER,   /* LoRA adapters stored beside the base weights (Phi-4-multimodal) */
    VS_PART_COUNT
} vs_part;

/* "text", "vision_tower", "projector", "mtp", "pretraining_heads", "audio_tower",
 * "lora_adapters". */
const char *vs_part_name(vs_part p);

/* A ViT-style vision tower read from vision_config. */
typedef struct vs_arch_vision {
    uint64_t layers, hidden, heads, intermediate, patch, image_size, channels;
    uint64_t global_layers;    /* Mllama: the global transformer */
    uint64_t max_tiles;        /* Mllama: tiles per image */
    uint64_t aspect_ratio_ids; /* Mllama: supported aspect ratios + 1 */
    uint64_t output_dim;       /* Mllama: vision_output_dim */
} vs_arch_vision;

#define VS_ARCH_LAYERS_MAX 256 /* per-layer kinds are kept for this many layers */

/* Per-layer kinds kept in vs_arch.layer_kind (family-specific meaning). */
enum {
    VS_LAYER_FULL = 0,
    VS_LAYER_SLIDING = 1,
    VS_LAYER_CHUNKED = 2,
    VS_LAYER_CROSS = 3, /* Mllama cross-attention layer */
    VS_LAYER_STATE = 4  /* a recurrent layer (Mamba, gated delta net): a fixed state */
};

/* The recurrent layers of a hybrid model: Mamba-1 (Jamba), Mamba-2
 * (Nemotron-H, Granite 4.0-H, Falcon-H1), gated delta nets (Qwen3-Next). */
typedef struct vs_arch_ssm {
    uint64_t layers;                  /* recurrent layers */
    uint64_t inner;                   /* Mamba: the mixer's inner size */
    uint64_t heads, head_dim, groups; /* Mamba-2 */
    uint64_t state;                   /* Mamba: state size per channel (d_state) */
    uint64_t conv;                    /* the causal convolution's kernel */
    uint64_t dt_rank;                 /* Mamba-1 */
    uint64_t key_heads, key_dim;      /* gated delta net */
    uint64_t value_heads, value_dim;  /* gated delta net */
    uint64_t state_bytes;             /* per sequence and layer (see sheet/kvlayout.h) */
    uint64_t conv_values, ssm_values; /* its values: the convolution's, the SSM state's */
} vs_arch_ssm;

/* A multimodal model's projector and vision dims beyond a ViT's. */
typedef struct vs_arch_mm {
    uint64_t merge;             /* spatial merge (Qwen-VL, Pixtral): merge x merge patches */
    uint64_t temporal_patch;    /* Qwen-VL: frames per patch */
    uint64_t out_hidden;        /* the projector's output (the language model's hidden) */
    uint64_t pos_embeds;        /* Qwen3-VL: learned position embeddings */
    uint64_t deepstack;         /* Qwen3-VL: deepstack mergers */
    uint64_t proj_in, proj_out; /* Llama 4: the vision adapter's sizes */
    int bias;                   /* the projector's biases */
} vs_arch_mm;

/* An audio encoder (Phi-4-multimodal's conformer) and the LoRA adapters a
 * checkpoint keeps beside its base weights. */
typedef struct vs_arch_audio {
    uint64_t blocks, hidden, heads, intermediate; /* conformer blocks */
    uint64_t channels, input, time_reduction;     /* the convolutional subsampling */
    uint64_t kernel, ext_pw_out, dw_out, dw_mult; /* each block's convolution module */
    uint64_t bias_buckets;                        /* relative attention bias */
    uint64_t downsample;                          /* the projector's input stacking */
    uint64_t lora_rank[2];                        /* vision_lora.r, speech_lora.r; 0 when none */
} vs_arch_audio;

typedef struct vs_family vs_family;

/* A model read from config.json. Fields a family does not use stay 0. */
typedef struct vs_arch {
    const vs_family *fam;
    char family[24];     /* the family's name ("llama", "deepseek_v3", ...) */
    char rule[40];       /* "llama rule": the arithmetic used, shown in params_source */
    char model_type[64]; /* the config's model_type ("" when absent) */
    uint64_t layers;     /* decoder layers (encoder layers for an encoder-only model) */
    uint64_t hidden, heads, kv_heads, head_dim, head_dim_v, intermediate, vocab;
    uint64_t positions; /* learned position embeddings; 0 when none */
    /* mixture of experts */
    uint64_t experts, experts_per_token, moe_intermediate;
    uint64_t shared_experts, shared_intermediate;
    uint64_t dense_layers; /* first_k_dense_replace */
    uint64_t moe_latent;   /* Nemotron 3: the experts' latent width (moe_latent_size), 0 none */
    /* multi-head latent attention */
    uint64_t q_lora_rank, kv_lora_rank, rope_dim, nope_dim;
    uint64_t mtp_layers; /* num_nextn_predict_layers */
    /* encoder-decoder / encoder-only */
    uint64_t encoder_layers, type_vocab, num_buckets;
    uint64_t sliding_window; /* 0 when none */
    int tied_embeddings;
    /* 1: the MLP is one up-projection, an activation and a down-projection (GPT-2's
     * c_fc/c_proj, GPT-NeoX's and BLOOM's dense_h_to_4h/dense_4h_to_h, Falcon's,
     * StarCoder2's c_fc/c_proj); 0: gated, a gate and an up projection both
     * intermediate wide (Llama's gate_proj/up_proj, SwiGLU) */
    int mlp_plain;
    unsigned flags; /* family options (biases, norms), private to the family file */
    unsigned char layer_kind[VS_ARCH_LAYERS_MAX];  /* VS_LAYER_* of each layer */
    unsigned char layer_dense[VS_ARCH_LAYERS_MAX]; /* MoE model: 1 where the MLP is dense */
    const vs_family *text_fam;                     /* multimodal: the language model's family */
    int has_vision;
    vs_arch_vision vision;
    uint64_t text_hidden; /* multimodal: the language model's hidden size */
    vs_arch_mm mm;
    vs_arch_audio audio; /* Phi-4-multimodal */
    vs_arch_ssm ssm;
    uint64_t chunk;        /* chunked attention: attention_chunk_size */
    uint64_t context;      /* the model's context (max_position_embeddings); 0 unknown */
    char context_key[64];  /* the config key that gave it */
    char rope_scaling[64]; /* rope_scaling's type and factor, "" when none */
    vs_kv_layout kv;
    /* results */
    uint64_t params_total;  /* every counted tensor (parts other than mtp) */
    uint64_t params_active; /* what one token uses: routed experts at experts_per_token */
    uint64_t part_params[VS_PART_COUNT];
    char excluded_reason[160]; /* why VS_PART_MTP is left out ("" when nothing is) */
} vs_arch;

/* One rule of a tensor list: a name pattern and its shape, repeated.
 * pattern may hold "{L}" (the layer, from layer0 for layers layers) and "{E}"
 * (the expert, 0 .. experts-1). routed != 0 marks routed-expert weights: the
 * rule's tensors are spread over `routed` experts, of which experts_per_token
 * serve one token. */
typedef struct vs_tensor_rule {
    const char *prefix;  /* "" or "language_model." ... */
    const char *pattern; /* "model.layers.{L}.self_attn.q_proj.weight" */
    unsigned ndims;
    uint64_t shape[4];
    uint64_t layer0, layers; /* layers >= 1 */
    uint64_t experts;        /* 0: no {E} */
    uint64_t routed;
    vs_part part;
} vs_tensor_rule;

/* Returns 0 to go on, anything else stops the walk and is returned. */
typedef int (*vs_tensor_rule_cb)(void *ud, const vs_tensor_rule *r);

/* One concrete tensor. */
typedef struct vs_tensor {
    const char *name; /* valid during the callback */
    unsigned ndims;
    uint64_t shape[4];
    vs_part part;
} vs_tensor;

typedef int (*vs_tensor_cb)(void *ud, const vs_tensor *t);

struct vs_family {
    const char *name;
    const char *const *model_types;   /* NULL-terminated */
    const char *const *architectures; /* matched when model_type is absent */
    const char *const *keys;          /* config keys it reads (help, fuzz corpus) */
    /* Reads the dimensions into a (model_type and family already set). */
    int (*parse)(vs_arch *a, const json_t *cfg, vs_error *err);
    /* Builds a->kv from the config and the parsed dimensions. */
    int (*kv_layout)(vs_arch *a, const json_t *cfg, vs_error *err);
    /* The tensor list. */
    int (*tensors)(const vs_arch *a, vs_tensor_rule_cb cb, void *ud);
};

/* The family table and its size. */
const vs_family *const *vs_family_table(size_t *n);

/* The family accepting a model_type (or, when mt is NULL, an architecture). */
const vs_family *vs_family_find(const char *model_type, const char *architecture);

/* The model_types the table knows, comma-separated in table order, for help
 * and error texts, written into buf (n bytes; VS_FAMILY_NAMES_MAX holds them
 * all). Returns buf. */
#define VS_FAMILY_NAMES_MAX 1024
const char *vs_family_names(char *buf, size_t n);

/* Parses config.json text (len bytes, need not be NUL-terminated): the family,
 * its dimensions, its KV layout and its exact counts. 0; VS_EFORMAT for a
 * malformed config or a missing or impossible dimension; VS_EVALUE for an
 * unknown family, naming the known ones and saying params= can be given. */
int vs_arch_parse(vs_arch *out, const char *text, size_t len, vs_error *err);

/* The same from a parsed object (multimodal families parse their parts so). */
int vs_arch_from_json(vs_arch *out, const json_t *cfg, vs_error *err);

/* Walks the tensor list's rules. */
int vs_family_tensor_rules(const vs_arch *a, vs_tensor_rule_cb cb, void *ud);

/* Walks every concrete tensor of the checkpoint ("{L}" and "{E}" expanded),
 * the excluded parts included (their part says so). */
int vs_family_tensors(const vs_arch *a, vs_tensor_cb cb, void *ud);

/* Counts a's tensor list into a->params_total, params_active, part_params.
 * VS_EFORMAT on overflow (the dimensions are not a real model's). */
int vs_arch_count(vs_arch *a, vs_error *err);

#endif
