/* verbs_estimate_internal.h — what the estimators of `estimate` share across
 * their files (verbs_estimate.c, verbs_estimate_activations.c): shapes from the
 * line or the card's architecture, the errors for a missing shape or card
 * field, and storing an estimated component. */
#ifndef VS_LANG_VERBS_ESTIMATE_INTERNAL_H
#define VS_LANG_VERBS_ESTIMATE_INTERNAL_H

#include <jansson.h>
#include <stdint.h>

#include "lang/verb.h"
#include "sheet/vocab.h"
#include "util/buf.h"

/* A shape: the key when given (0 refused), else card.arch.<arch_key> (arch_key
 * NULL: none). 1 found (*from_arch set when from the architecture), 0 not
 * found, or a negative error. */
int vs_verbs_estimate_shape(const vs_line *line, const json_t *sheet, const char *key,
                            const char *arch_key, uint64_t *out, int *from_arch, vs_error *err);
/* VS_EVALUE at the line: `estimate SUB` needs KEY=N (or a config.json). */
int vs_verbs_estimate_need_shape(const vs_line *line, const char *key, const char *sub,
                                 vs_error *err);
/* VS_EVALUE at the line: `estimate SUB` uses the card's KEY: set it (`EXAMPLE`). */
int vs_verbs_estimate_need_card(const vs_line *line, const char *key, const char *sub,
                                const char *example, vs_error *err);
/* Sets an estimated component unless a measurement holds the name: then the
 * estimate is only shown (skipped, skipped_list say so). 1 stored, 0 skipped,
 * or a negative error. */
int vs_verbs_estimate_store(json_t *sheet, const char *name, uint64_t bytes, const char *source,
                            vs_vocab_class cls, vs_buf *skipped, json_t *skipped_list,
                            vs_error *err);

#endif
