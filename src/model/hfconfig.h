/* hfconfig.h — a Hugging Face config.json read as an architecture and an exact
 * parameter count: the name kept for model/family.h's vs_arch_parse.
 *
 * The families, their parameter rules (the checkpoint's tensor lists) and
 * their KV layouts live in the registry of model/family.h; this header keeps
 * the names the rest of the code used before the registry. A family without a rule is refused
 * (VS_EVALUE), never guessed: `params=` remains the way out. Pure.
 */
#ifndef VS_MODEL_HFCONFIG_H
#define VS_MODEL_HFCONFIG_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "model/family.h"
#include "util/error.h"

typedef vs_arch vs_hfconfig;

/* vs_arch_parse. */
int vs_hfconfig_parse(vs_hfconfig *out, const char *text, size_t len, vs_error *err);

/* The card's "arch" object for c read from path: the family, rule, config,
 * the dimensions, params_total and params_active, tied_embeddings, kv_layout
 * (kv, borrowed: a reference is taken) and the context (context, context_key,
 * rope_scaling; null where the config gives none). New reference or NULL. */
json_t *vs_hfconfig_arch_json(const vs_hfconfig *c, const char *path, json_t *kv);

#endif
