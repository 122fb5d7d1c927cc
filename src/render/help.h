/* help.h (render) — the help of the language: one verb's page, and the list
 * of every verb.
 *
 * render/ does not see the verb registry (lang/): the registry fills a
 * vs_help_facts per verb with what the verb declares (name, group, syntax,
 * summary, help text, keys, words) and this module writes it as text/plain,
 * text/html and the payload (kind "help"). Pure: no I/O.
 */
#ifndef VS_RENDER_HELP_H
#define VS_RENDER_HELP_H

#include <stddef.h>

#include "render/bundle.h"

/* What one verb declares, borrowed. Any member but name may be NULL; keys and
 * words are NULL-terminated lists. */
typedef struct vs_help_facts {
    const char *name;  /* "estimate" */
    const char *group; /* "sizing", or NULL when the verb is in no table */
    const char *syntax;
    const char *summary;
    const char *help;
    const char *const *keys;
    const char *const *words;
    int schemes; /* 1: the page lists the formats (sheet/vocab's plain widths and schemes) */
} vs_help_facts;

/* One verb's page, as `help VERB` and inspect show it: the syntax, the
 * summary, the help text, the keys and the words; payload {kind "help",
 * verb, group, syntax, summary, help, keys, words}. With schemes set, a table
 * of every format written from sheet/vocab's tables (its word, keys, nominal
 * bits, bits per weight with the scales, what the loaders keep unquantised)
 * and the payload's "formats": [{format, keys, bits, bits_per_weight, kept,
 * kind}]. NULL when memory is short. */
vs_bundle *vs_render_help(const vs_help_facts *verb);

/* The list of every verb (`help` alone), n of them in table order: a table of
 * group (named once, at its first verb), verb and summary, then how amounts
 * and counts are written; payload {kind "help", verbs: [{name, group,
 * syntax, summary}]}. NULL when memory is short. */
vs_bundle *vs_render_help_list(const vs_help_facts *verbs, size_t n);

#endif
