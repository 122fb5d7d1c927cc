/* The registry of verbs: the group tables, in the order `help` lists them.
 * A verb's help page is render/help's, from the facts the verb declares. */
#include "lang/verb.h"

#include <string.h>

#include "render/help.h"

static const struct {
    const char *group;
    const vs_verb *table;
} groups[] = {
    {"core", vs_verbs_core},       {"sizing", vs_verbs_sizing},   {"gpu", vs_verbs_gpu},
    {"records", vs_verbs_records}, {"measure", vs_verbs_measure}, {"engine", vs_verbs_engine},
    {"engine", vs_verbs_launch},
};

#define NGROUPS (sizeof groups / sizeof groups[0])

const vs_verb *vs_verb_find(const char *name)
{
    size_t g;
    const vs_verb *v;
    if (!name)
        return NULL;
    /* every line of a cell is looked up: the first letters rule out most
     * verbs without a call to strcmp */
    for (g = 0; g < NGROUPS; g++)
        for (v = groups[g].table; v->name; v++)
            if (v->name[0] == name[0] && !strcmp(v->name, name))
                return v;
    return NULL;
}

void vs_verb_each(void (*fn)(const vs_verb *verb, void *data), void *data)
{
    size_t g;
    const vs_verb *v;
    for (g = 0; g < NGROUPS; g++)
        for (v = groups[g].table; v->name; v++)
            fn(v, data);
}

const char *vs_verb_group(const vs_verb *verb)
{
    size_t g;
    const vs_verb *v;
    for (g = 0; g < NGROUPS; g++)
        for (v = groups[g].table; v->name; v++)
            if (v == verb)
                return groups[g].group;
    return NULL;
}

#define MAXLEN 48

/* Levenshtein distance with adjacent transpositions counted as one edit;
 * strings longer than MAXLEN are too far from any verb to matter. */
static size_t distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), i, j;
    size_t prev2[MAXLEN + 1], prev[MAXLEN + 1], cur[MAXLEN + 1];
    if (la > MAXLEN || lb > MAXLEN)
        return (size_t)-1;
    for (j = 0; j <= lb; j++)
        prev[j] = j;
    memset(prev2, 0, sizeof prev2);
    for (i = 1; i <= la; i++) {
        cur[0] = i;
        for (j = 1; j <= lb; j++) {
            size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            size_t best = prev[j - 1] + cost;
            if (prev[j] + 1 < best)
                best = prev[j] + 1;
            if (cur[j - 1] + 1 < best)
                best = cur[j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                prev2[j - 2] + 1 < best)
                best = prev2[j - 2] + 1;
            cur[j] = best;
        }
        memcpy(prev2, prev, sizeof prev);
        memcpy(prev, cur, sizeof cur);
    }
    return prev[lb];
}

size_t vs_verb_suggest(const char *name, const char **out, size_t max)
{
    size_t g, n = 0, k, dists[16];
    const vs_verb *v;
    if (!name || max == 0)
        return 0;
    if (max > 16)
        max = 16;
    for (g = 0; g < NGROUPS; g++) {
        for (v = groups[g].table; v->name; v++) {
            size_t d = distance(name, v->name), len = strlen(name);
            size_t limit = len <= 3 ? 1 : len <= 6 ? 2 : 3;
            if (len >= 2 && !strncmp(v->name, name, len))
                d = 1; /* a prefix of a verb is as good as one typo */
            if (d > limit)
                continue;
            /* insert sorted by distance, keeping table order among equals */
            for (k = n; k > 0 && dists[k - 1] > d; k--)
                ;
            if (k >= max)
                continue;
            if (n < max)
                n++;
            memmove(out + k + 1, out + k, (n - 1 - k) * sizeof *out);
            memmove(dists + k + 1, dists + k, (n - 1 - k) * sizeof *dists);
            out[k] = v->name;
            dists[k] = d;
        }
    }
    return n;
}

const char *vs_verb_word(const vs_verb *v, size_t i)
{
    size_t n = 0;
    while (v->words && v->words[n])
        n++;
    if (i < n)
        return v->words[i];
    return v->registry && v->registry->word ? v->registry->word(i - n) : NULL;
}

#define HELP_WORDS_MAX 128

/* The page shows the registry's words and help beside the verb's own. */
vs_bundle *vs_verb_help_bundle(const vs_verb *v)
{
    vs_help_facts f;
    const char *words[HELP_WORDS_MAX + 1];
    vs_buf help = VS_BUF_INIT;
    vs_bundle *b;
    size_t i;
    f.name = v->name;
    f.group = vs_verb_group(v);
    f.syntax = v->syntax;
    f.summary = v->summary;
    f.help = v->help;
    f.keys = v->keys;
    f.words = v->words;
    f.schemes = (v->flags & VS_VERB_LISTS_FORMATS) != 0;
    if (v->registry) {
        for (i = 0; i < HELP_WORDS_MAX && (words[i] = vs_verb_word(v, i)) != NULL; i++)
            ;
        words[i] = NULL;
        f.words = i ? words : NULL;
        if (v->registry->help) {
            vs_buf_puts(&help, v->help ? v->help : "");
            v->registry->help(&help);
            if (vs_buf_failed(&help)) {
                vs_buf_free(&help);
                return NULL;
            }
            f.help = vs_buf_str(&help);
        }
    }
    b = vs_render_help(&f);
    vs_buf_free(&help);
    return b;
}
