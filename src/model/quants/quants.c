/* The table of weights formats (model/quants/quants.h), one row of quants.def
 * each, and what the scheme files share to read a quantization_config. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "model/quants/quants.h"

static const vs_quant_scheme *const table[] = {
#define VS_QUANT(id) &vs_quant_scheme_##id,
#include "model/quants/quants.def"
#undef VS_QUANT
};

size_t vs_quant_scheme_count(void)
{
    return sizeof table / sizeof table[0];
}

const vs_quant_scheme *vs_quant_scheme_at(size_t i)
{
    return i < sizeof table / sizeof table[0] ? table[i] : NULL;
}

const vs_quant_scheme *vs_quant_scheme_of_word(const char *word)
{
    size_t i;
    const vs_vocab_scheme *w;
    if (!word)
        return NULL;
    for (i = 0; i < sizeof table / sizeof table[0]; i++)
        for (w = table[i]->words; w && w->word; w++)
            if (!strcmp(w->word, word))
                return table[i];
    return NULL;
}

const vs_quant_scheme *vs_quant_scheme_of_method(const char *method)
{
    size_t i;
    const char *const *m;
    if (!method)
        return NULL;
    for (i = 0; i < sizeof table / sizeof table[0]; i++)
        for (m = table[i]->methods; m && *m; m++)
            if (!strcasecmp(*m, method))
                return table[i];
    return NULL;
}

const char *vs_quant_scheme_words(char *out, size_t cap, const char *key, const char *sep)
{
    size_t i, len = 0;
    const vs_vocab_scheme *w;
    int n;
    out[0] = '\0';
    for (i = 0; i < sizeof table / sizeof table[0]; i++)
        for (w = table[i]->words; w && w->word && len < cap; w++) {
            if (key && !strstr(w->keys, key))
                continue;
            n = snprintf(out + len, cap - len, "%s%s%s", len ? sep : "", w->word,
                         !key && !strncmp(w->keys, "block=", 6) ? " block=N" : "");
            len = n < 0 ? cap : len + (size_t)n;
        }
    return out;
}

uint64_t vs_quant_cfg_uint(const json_t *o, const char *key, uint64_t dflt)
{
    json_t *v = json_object_get(o, key);
    return json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : dflt;
}

int vs_quant_cfg_bool(const json_t *o, const char *key, int dflt)
{
    json_t *v = json_object_get(o, key);
    return json_is_boolean(v) ? json_is_true(v) : dflt;
}

static void keep_one(vs_quant *q, const char *pat)
{
    int re = 0;
    if (!pat || !*pat || q->nkeep == VS_QUANT_KEEP_MAX)
        return;
    if (!strncmp(pat, "re:", 3)) {
        pat += 3;
        re = 1;
    }
    snprintf(q->keep[q->nkeep], sizeof q->keep[q->nkeep], "%s", pat);
    q->keep_regex[q->nkeep++] = re;
}

void vs_quant_keep_modules(vs_quant *q, const json_t *patterns)
{
    size_t i;
    json_t *x;
    json_array_foreach(patterns, i, x) keep_one(q, json_string_value(x));
}

int vs_quant_cfg_bad(vs_error *err, const char *method, const char *what)
{
    return vs_error_set(err, VS_EVALUE, "quantization_config (%s): %s", method, what);
}
