/* quants.h — the weights formats a quantising loader reads, one row each.
 *
 * A scheme is one file under model/quants/ defining a vs_quant_scheme and one
 * row of quants.def: the words `format` takes for it (with what `help format`
 * says of each), the quant_method values of a config.json's
 * quantization_config it reads, the bytes of one quantised matrix as the
 * loader stores it (with the loader's source cited in its file), and the
 * labels the tally prints. Everything that lists the schemes (the vocabulary
 * of `format`, the help table, the errors' lists, the config reader) iterates
 * the rows. Pure: no I/O, no globals.
 */
#ifndef VS_MODEL_QUANTS_QUANTS_H
#define VS_MODEL_QUANTS_QUANTS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"
#include "sheet/vocab.h"
#include "util/error.h"

enum { VS_QUANT_SCALE_TENSOR = 0, VS_QUANT_SCALE_CHANNEL, VS_QUANT_SCALE_BLOCK };

/* The layouts of engines whose loaders lay some scheme out differently from the
 * checkpoint: the engine row's weights slot (engine/engine.h) says which. */
typedef vs_engine_weights vs_quant_engine;
#define VS_QUANT_ENGINE_CHECKPOINT VS_ENGINE_WEIGHTS_CHECKPOINT
#define VS_QUANT_ENGINE_VLLM VS_ENGINE_WEIGHTS_VLLM
#define VS_QUANT_ENGINE_VLLM_MARLIN VS_ENGINE_WEIGHTS_VLLM_MARLIN

#define VS_QUANT_KEEP_MAX 32

struct vs_quant_scheme;

typedef struct vs_quant {
    const struct vs_quant_scheme *scheme; /* the row it is summed under */
    unsigned bits;                        /* 2..8 for integer schemes, 4 or 8 for the float ones */
    uint64_t group;       /* GPTQ/AWQ group size; 0: one group per row (group_size -1) */
    int sym;              /* GPTQ: symmetric (zeros still stored, as the loaders do) */
    int desc_act;         /* GPTQ: act-order (g_idx is meaningful) */
    int double_quant;     /* bitsandbytes 4-bit: bnb_4bit_use_double_quant */
    int fp4;              /* bitsandbytes 4-bit: fp4 instead of nf4 */
    int scale;            /* FP8: VS_QUANT_SCALE_* */
    uint64_t block[2];    /* FP8 block scales: weight_block_size [out, in] */
    int static_input;     /* FP8 / NVFP4: a stored input (activation) scale per matrix */
    int lm_head;          /* lm_head quantised too (GPTQ lm_head: true) */
    int ct;               /* compressed-tensors packing: zeros only when asymmetric */
    unsigned dense_bytes; /* bytes per value of what stays unquantised (the model dtype) */
    char dense_dtype[12]; /* "bf16", "fp16", "fp32" */
    char method_name[32]; /* the config's quant_method ("compressed-tensors", ...) */
    int from_config;      /* read from a quantization_config (else named by `format`) */
    size_t nkeep;
    char keep[VS_QUANT_KEEP_MAX][96]; /* kept module patterns ("re:" stripped, a regex) */
    int keep_regex[VS_QUANT_KEEP_MAX];
} vs_quant;

/* The bytes of one quantised matrix of out x in values (a 3-D fused expert
 * tensor is `count` such matrices), by part. */
typedef struct vs_quant_bytes {
    uint64_t values; /* the packed weights */
    uint64_t scales; /* scales, absmax, global scales */
    uint64_t zeros;  /* zero points */
    uint64_t index;  /* GPTQ g_idx; bitsandbytes' code tables */
    uint64_t pad;    /* the zeros a kernel's layout adds (vLLM's Marlin MoE), biases' included */
} vs_quant_bytes;

/* The matrix a scheme is asked about. */
typedef struct vs_quant_matrix {
    uint64_t out, in, count;
    int fused_experts; /* a 3-D [experts, in, out] tensor of a fused MoE (gpt-oss) */
    uint64_t moe_intermediate;
    uint64_t hidden;
} vs_quant_matrix;

/* One row of quants.def. Slots marked optional may be NULL. */
typedef struct vs_quant_scheme {
    const char *name; /* the row's name: "gptq", "awq", "bnb", "fp8", "mxfp4", "nvfp4" */
    /* the words of `format` that name it, in `help format`'s order, ended by a
     * row whose word is NULL (family "safetensors") */
    const vs_vocab_scheme *words;
    /* the quant_method values of a quantization_config it reads (any case),
     * NULL-terminated; optional: a scheme reached only through another format's
     * config (compressed-tensors, ModelOpt) */
    const char *const *methods;
    int linear;  /* quantises dense Linear layers (mxfp4 under vLLM: experts only) */
    int experts; /* quantises MoE expert tensors */
    /* a word of `words` with the keys `format` gave (0 = not given) into q, which
     * comes zeroed with its dense dtype set: 0; 1 when the word is none of this
     * scheme's (plain `fp8` stays a width); VS_EVALUE for keys it does not take */
    int (*from_format)(vs_quant *q, const char *word, uint64_t bits, uint64_t group, uint64_t block,
                       vs_error *err);
    /* optional (with methods): a quantization_config qc whose quant_method is
     * method into q (dense dtype, method_name and the kept modules set): 0 or
     * VS_EVALUE for values the loaders refuse */
    int (*from_config)(vs_quant *q, const char *method, const json_t *qc, vs_error *err);
    /* optional: 1 when rest, what follows word in a card's format text
     * (" bits=3 group=64"), is the scheme's canonical form, with *bits its
     * bits; NULL: nothing may follow the word */
    int (*canonical)(const char *word, const char *rest, unsigned *bits);
    /* the card's format text of q ("gptq bits=4 group=128", "fp8 block=128") */
    const char *(*format_name)(const vs_quant *q, char *out, size_t cap);
    /* what the tally calls the packed values ("int4, packed in int32") */
    const char *(*values_label)(const vs_quant *q, char *out, size_t cap);
    const char *scales_label; /* the tally's name of the scales */
    const char *index_label;  /* of the index tensors (g_idx, code tables); "" when none */
    /* optional: the end of the tally's scheme line under eng when its loader lays
     * the scheme out its own way (", as vLLM's MXFP4 Triton MoE lays it out") */
    const char *(*layout_note)(vs_quant_engine eng);
    /* bytes of one matrix; VS_EVALUE for a shape the scheme cannot hold */
    int (*matrix)(const vs_quant *q, const vs_quant_matrix *m, vs_quant_engine eng,
                  vs_quant_bytes *out, vs_error *err);
    /* optional: under eng, the dtype bytes of a kept tensor whose name matches
     * (vLLM's MXFP4 Triton path keeps expert biases in fp32); 0: the model dtype */
    unsigned (*kept_bytes)(const vs_quant *q, const char *name, vs_quant_engine eng);
    const char *source; /* the loader code followed, with its release */
} vs_quant_scheme;

/* The rows: one extern per row of quants.def. */
#define VS_QUANT(id) extern const vs_quant_scheme vs_quant_scheme_##id;
#include "model/quants/quants.def"
#undef VS_QUANT

/* The number of rows, and row i in quants.def's order (NULL past the end). */
size_t vs_quant_scheme_count(void);
const vs_quant_scheme *vs_quant_scheme_at(size_t i);
/* The row one of whose `format` words is exactly word, or NULL. */
const vs_quant_scheme *vs_quant_scheme_of_word(const char *word);
/* The row that reads a quantization_config of quant_method method (any case), or NULL. */
const vs_quant_scheme *vs_quant_scheme_of_method(const char *method);

/* The rows' words of `format` joined by sep into out (truncated to cap): those
 * whose keys name key ("bits="), or every word when key is NULL, a word whose
 * keys start with block= then written "WORD block=N" (plain fp8 is a width). */
const char *vs_quant_scheme_words(char *out, size_t cap, const char *key, const char *sep);

/* What the scheme files share to read a quantization_config: a positive
 * integer key (else dflt), a boolean key (else dflt), module patterns to keep
 * unquantised from an array of strings ("re:" marks a regex), and the error
 * "quantization_config (METHOD): WHAT" (VS_EVALUE). */
uint64_t vs_quant_cfg_uint(const json_t *o, const char *key, uint64_t dflt);
int vs_quant_cfg_bool(const json_t *o, const char *key, int dflt);
void vs_quant_keep_modules(vs_quant *q, const json_t *patterns);
int vs_quant_cfg_bad(vs_error *err, const char *method, const char *what);

#endif
