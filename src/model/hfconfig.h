/* hfconfig.h — a Hugging Face config.json read as an architecture and an exact
 * parameter count.
 *
 * Seed 2: plan from the model's own files. This module turns the text of a
 * config.json into the shapes the estimators need (layers, hidden size, heads,
 * KV heads, head dim, intermediate size, vocabulary, tied embeddings, experts)
 * and counts the parameters the way the family's Hugging Face model class lays
 * out its tensors. Each family has one rule, named in the result, so the person
 * sees which arithmetic was used. A family without a rule is refused (VS_EVALUE),
 * never guessed: `params=` remains the way out. Only keys that the architecture
 * itself defaults are defaulted (KV heads = heads, head dim = hidden / heads,
 * tied embeddings and biases as the family's class does); a missing dimension is
 * an error, not a silent default. Pure: no I/O, no globals.
 */
#ifndef VS_MODEL_HFCONFIG_H
#define VS_MODEL_HFCONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

typedef struct vs_hfconfig {
    char family[24];     /* "llama", "mistral", "qwen2", "qwen3", "gemma", "gemma2",
                            "gpt2", "gpt_neox", "falcon", "mixtral" */
    char rule[40];       /* "llama rule", ... as shown in params_source */
    char model_type[64]; /* the config's model_type ("" when absent) */
    uint64_t layers;
    uint64_t hidden;
    uint64_t heads;
    uint64_t kv_heads;
    uint64_t head_dim;
    uint64_t intermediate; /* per expert for MoE */
    uint64_t vocab;
    uint64_t positions;         /* learned position embeddings (GPT-2); 0 when none */
    uint64_t experts;           /* 0 for a dense model */
    uint64_t experts_per_token; /* 0 for a dense model */
    int tied_embeddings;
    uint64_t params_total;
    uint64_t params_active; /* experts_per_token experts per layer (MoE); = total when dense */
} vs_hfconfig;

/* Parses config.json text (len bytes, need not be NUL-terminated) into *out.
 * Returns 0; VS_EFORMAT (the position in the text when it is not JSON) for a
 * malformed config or a dimension that is missing, not a positive integer, or
 * overflows; VS_EVALUE for an architecture without a rule (the message lists
 * the known families and says params= can be given instead). */
int vs_hfconfig_parse(vs_hfconfig *out, const char *text, size_t len, vs_error *err);

/* The families with a rule, comma-separated, for help and error texts. */
const char *vs_hfconfig_families(void);

#endif
