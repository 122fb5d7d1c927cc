#include "sheet/vocab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/quants/quants.h"

/* The index of s in a NULL-terminated table, or -1. */
static int index_of(const char *const *names, const char *s)
{
    int i;
    if (!s)
        return -1;
    for (i = 0; names[i]; i++)
        if (!strcmp(names[i], s))
            return i;
    return -1;
}

static const char *name_at(const char *const *names, int n, int i)
{
    return i >= 0 && i < n ? names[i] : NULL;
}

/* ---- classes ---- */

const char *const vs_vocab_class_names[VS_CLASS_COUNT + 1] = {
    "other", "kv_cache", "gradients", "optimizer", "activations", "parameters", NULL};

const char *vs_vocab_class_name(vs_vocab_class c)
{
    return name_at(vs_vocab_class_names, VS_CLASS_COUNT, (int)c);
}

int vs_vocab_class_parse(vs_vocab_class *out, const char *s, vs_error *err)
{
    int i = index_of(vs_vocab_class_names, s);
    if (i < 0)
        return vs_error_set(err, VS_EVALUE,
                            "'%s' is not a component class: expected other, kv_cache, gradients, "
                            "optimizer, activations or parameters",
                            s ? s : "");
    *out = (vs_vocab_class)i;
    return 0;
}

vs_vocab_class vs_vocab_class_of(const char *s)
{
    int i;
    if (s && !strcmp(s, VS_VOCAB_WEIGHTS))
        return VS_CLASS_PARAMETERS;
    i = index_of(vs_vocab_class_names, s);
    return i < 0 ? VS_CLASS_OTHER : (vs_vocab_class)i;
}

/* ---- tasks ---- */

const char *const vs_vocab_task_names[VS_TASK_COUNT + 1] = {
    "inference", "finetune", "lora", "qlora", "pretrain", "generate-image", "generate-video", NULL};

const char *vs_vocab_task_name(vs_vocab_task t)
{
    return name_at(vs_vocab_task_names, VS_TASK_COUNT, (int)t);
}

const char *vs_vocab_task_choices(void)
{
    return "inference, finetune, lora, qlora, pretrain, generate-image or generate-video";
}

int vs_vocab_task_parse(vs_vocab_task *out, const char *s, vs_error *err)
{
    int i = index_of(vs_vocab_task_names, s);
    if (i < 0)
        return vs_error_set(err, VS_EVALUE, "unknown task '%s'; expected %s", s ? s : "",
                            vs_vocab_task_choices());
    *out = (vs_vocab_task)i;
    return 0;
}

int vs_vocab_task_trains(vs_vocab_task t)
{
    return t == VS_TASK_FINETUNE || t == VS_TASK_LORA || t == VS_TASK_QLORA ||
           t == VS_TASK_PRETRAIN;
}

/* ---- statuses ---- */

const char *const vs_vocab_status_names[VS_STATUS_COUNT + 1] = {"estimated", "measured", "unknown",
                                                                NULL};

const char *vs_vocab_status_name(vs_vocab_status s)
{
    return name_at(vs_vocab_status_names, VS_STATUS_COUNT, (int)s);
}

int vs_vocab_status_parse(vs_vocab_status *out, const char *s, vs_error *err)
{
    int i = index_of(vs_vocab_status_names, s);
    if (i < 0)
        return vs_error_set(err, VS_EVALUE,
                            "'%s' is not a status: expected estimated, measured or unknown",
                            s ? s : "");
    *out = (vs_vocab_status)i;
    return 0;
}

int vs_vocab_status_is(const char *s, vs_vocab_status st)
{
    const char *name = vs_vocab_status_name(st);
    /* the first letter before strcmp: asked several times a reserve line */
    return s && name && s[0] == name[0] && !strcmp(s, name);
}

/* ---- verdicts ---- */

const char *const vs_vocab_verdict_names[VS_VOCAB_VERDICT_COUNT + 1] = {"admissible", "to-confirm",
                                                                        "exclude", NULL};

const char *vs_vocab_verdict_name(vs_vocab_verdict v)
{
    const char *n = name_at(vs_vocab_verdict_names, VS_VOCAB_VERDICT_COUNT, (int)v);
    return n ? n : vs_vocab_verdict_names[VS_VOCAB_VERDICT_TO_CONFIRM];
}

/* The next byte of *p that counts in a name (a letter, lowercased, a digit,
 * or any byte of a non-ASCII character), moving past it; 0 at the end. */
static int next_significant(const char **p)
{
    for (; **p; (*p)++) {
        unsigned char c = (unsigned char)**p;
        if (c >= 'A' && c <= 'Z') {
            (*p)++;
            return c - 'A' + 'a';
        }
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c >= 0x80) {
            (*p)++;
            return c;
        }
    }
    return 0;
}

int vs_vocab_same_name(const char *a, const char *b)
{
    const char *a0 = a, *b0 = b;
    int ca, cb, any = 0;
    if (!a || !b)
        return 0;
    do {
        ca = next_significant(&a);
        cb = next_significant(&b);
        if (ca != cb)
            return 0;
        any |= ca;
    } while (ca);
    /* nothing significant on either side: only the very same text matches */
    return any != 0 || !strcmp(a0, b0);
}

int vs_vocab_verdict_parse(vs_vocab_verdict *out, const char *s, vs_error *err)
{
    if (vs_vocab_same_name(s, "admissible"))
        *out = VS_VOCAB_VERDICT_ADMISSIBLE;
    else if (vs_vocab_same_name(s, "to-confirm"))
        *out = VS_VOCAB_VERDICT_TO_CONFIRM;
    else if (vs_vocab_same_name(s, "exclude") || vs_vocab_same_name(s, "excluded"))
        *out = VS_VOCAB_VERDICT_EXCLUDE;
    else
        return vs_error_set(err, VS_EVALUE,
                            "'%s' is not a verdict: expected admissible, to-confirm or exclude",
                            s ? s : "");
    return 0;
}

/* ---- formats ---- */

const char *const vs_vocab_format_names[VS_FORMAT_BITS + 1] = {
    "fp32", "fp16", "bf16", "fp8", "int8", "int4", "nf4", "fp4", NULL};

static const unsigned format_bits[VS_FORMAT_BITS] = {32, 16, 16, 8, 8, 4, 4, 4};

const char *vs_vocab_format_name(vs_vocab_format f)
{
    return name_at(vs_vocab_format_names, VS_FORMAT_BITS, (int)f);
}

int vs_vocab_format_bits(vs_vocab_format f, unsigned *bits)
{
    if ((int)f < 0 || f >= VS_FORMAT_BITS)
        return 0;
    *bits = format_bits[f];
    return 1;
}

/* N of "bits=N" (1..64, no leading zero), or 0. */
static unsigned bits_of(const char *p)
{
    unsigned v = 0;
    if (*p < '1' || *p > '9')
        return 0;
    for (; *p; p++) {
        if (*p < '0' || *p > '9' || v > 64)
            return 0;
        v = v * 10 + (unsigned)(*p - '0');
    }
    return v >= 1 && v <= 64 ? v : 0;
}

/* llama.cpp's file types (include/llama.h, enum llama_ftype, as llama-quantize
 * names them); the safetensors schemes the loaders read are the rows of
 * model/quants/quants.def, listed before them. The GGUF file
 * types' bits are their main type's (q4_k_m: 4); the per-tensor choice is
 * model/gguf_quant.h's. */
#define LQ_KEPT "norms and 1-D tensors F32; output, attn_v, ffn_down higher per llama-quantize"
static const vs_vocab_scheme llama_schemes[] = {
    {"q8_0", "", 8, "8.5", LQ_KEPT, "llama.cpp"},
    {"q6_k", "", 6, "6.5625", LQ_KEPT, "llama.cpp"},
    {"q5_k_m", "", 5, "5.5 (most tensors)", LQ_KEPT, "llama.cpp"},
    {"q5_k_s", "", 5, "5.5", LQ_KEPT, "llama.cpp"},
    {"q5_0", "", 5, "5.5", LQ_KEPT, "llama.cpp"},
    {"q5_1", "", 5, "6", LQ_KEPT, "llama.cpp"},
    {"q4_k_m", "", 4, "4.5 (most tensors)", LQ_KEPT, "llama.cpp"},
    {"q4_k_s", "", 4, "4.5", LQ_KEPT, "llama.cpp"},
    {"q4_0", "", 4, "4.5", LQ_KEPT, "llama.cpp"},
    {"q4_1", "", 4, "5", LQ_KEPT, "llama.cpp"},
    {"iq4_xs", "", 4, "4.25", LQ_KEPT, "llama.cpp"},
    {"iq4_nl", "", 4, "4.5", LQ_KEPT, "llama.cpp"},
    {"mxfp4_moe", "", 4, "4.25 (experts)", LQ_KEPT, "llama.cpp"},
    {"q3_k_l", "", 3, "3.4375 (most tensors)", LQ_KEPT, "llama.cpp"},
    {"q3_k_m", "", 3, "3.4375 (most tensors)", LQ_KEPT, "llama.cpp"},
    {"q3_k_s", "", 3, "3.4375", LQ_KEPT, "llama.cpp"},
    {"iq3_m", "", 3, "3.4375", LQ_KEPT, "llama.cpp"},
    {"iq3_s", "", 3, "3.4375", LQ_KEPT, "llama.cpp"},
    {"iq3_xs", "", 3, "3.3 (most tensors)", LQ_KEPT, "llama.cpp"},
    {"iq3_xxs", "", 3, "3.0625", LQ_KEPT, "llama.cpp"},
    {"q2_k", "", 2, "2.625", LQ_KEPT, "llama.cpp"},
    {"q2_k_s", "", 2, "2.625", LQ_KEPT, "llama.cpp"},
    {"iq2_m", "", 2, "2.5625", LQ_KEPT, "llama.cpp"},
    {"iq2_s", "", 2, "2.5625", LQ_KEPT, "llama.cpp"},
    {"iq2_xs", "", 2, "2.3125", LQ_KEPT, "llama.cpp"},
    {"iq2_xxs", "", 2, "2.0625", LQ_KEPT, "llama.cpp"},
    {"iq1_m", "", 1, "1.75", LQ_KEPT, "llama.cpp"},
    {"iq1_s", "", 1, "1.5625", LQ_KEPT, "llama.cpp"},
    {"tq2_0", "", 2, "2.0625", LQ_KEPT, "llama.cpp"},
    {"tq1_0", "", 1, "1.6875", LQ_KEPT, "llama.cpp"},
};

#define NLLAMA (sizeof llama_schemes / sizeof llama_schemes[0])

size_t vs_vocab_scheme_count(void)
{
    size_t i, n = NLLAMA;
    const vs_vocab_scheme *w;
    for (i = 0; i < vs_quant_scheme_count(); i++)
        for (w = vs_quant_scheme_at(i)->words; w && w->word; w++)
            n++;
    return n;
}

const vs_vocab_scheme *vs_vocab_scheme_at(size_t k)
{
    size_t i;
    const vs_vocab_scheme *w;
    for (i = 0; i < vs_quant_scheme_count(); i++)
        for (w = vs_quant_scheme_at(i)->words; w && w->word; w++)
            if (k-- == 0)
                return w;
    return k < NLLAMA ? &llama_schemes[k] : NULL;
}

/* 1 when the word w starts s, followed by its end or a space. */
static int word_starts(const char *w, const char *s)
{
    size_t n = strlen(w);
    return !strncmp(s, w, n) && (s[n] == '\0' || s[n] == ' ');
}

/* The rows in vs_vocab_scheme_at's order, walked once: asking _at for each k
 * walks the quantisation rows from their start every time, and `formats` asks
 * this for every word it reads (most of them plain widths, found nowhere). */
const vs_vocab_scheme *vs_vocab_scheme_of(const char *s)
{
    size_t i;
    const vs_vocab_scheme *w;
    if (!s)
        return NULL;
    for (i = 0; i < vs_quant_scheme_count(); i++)
        for (w = vs_quant_scheme_at(i)->words; w && w->word; w++)
            if (word_starts(w->word, s))
                return w;
    for (i = 0; i < NLLAMA; i++)
        if (word_starts(llama_schemes[i].word, s))
            return &llama_schemes[i];
    return NULL;
}

/* A scheme's canonical text: its word, then what its row's canonical slot
 * takes (gptq and awq "bits=N" and "group=G", fp8 "block=N", "block=RxC",
 * "channel" or "tensor"; plain "fp8" is the plain width). *b its bits. */
static int scheme_text(const char *s, unsigned *b)
{
    const vs_vocab_scheme *sc = vs_vocab_scheme_of(s);
    const vs_quant_scheme *q;
    const char *p;
    if (!sc)
        return 0;
    p = s + strlen(sc->word);
    *b = sc->bits;
    q = vs_quant_scheme_of_word(sc->word);
    if (q && q->canonical)
        return q->canonical(sc->word, p, b);
    return *p == '\0';
}

int vs_vocab_format_parse(vs_vocab_format *out, unsigned *bits, const char *s, vs_error *err)
{
    int i = index_of(vs_vocab_format_names, s);
    unsigned b = 0;
    if (i < 0 && scheme_text(s, &b)) {
        *out = VS_FORMAT_SCHEME;
    } else if (i >= 0) {
        *out = (vs_vocab_format)i;
        b = format_bits[i];
    } else if (s && !strncmp(s, "bits=", 5) && (b = bits_of(s + 5)) != 0) {
        *out = VS_FORMAT_BITS;
    } else {
        char words[400];
        return vs_error_set(err, VS_EVALUE,
                            "'%s' is not a format: expected fp32, fp16, bf16, fp8, int8, int4, "
                            "nf4, fp4 (plain widths), bits=N (N from 1 to 64), or a scheme: "
                            "%s, a llama.cpp file type (q4_k_m, iq4_xs, ...)",
                            s ? s : "", vs_quant_scheme_words(words, sizeof words, NULL, ", "));
    }
    if (bits)
        *bits = b;
    return 0;
}

const char *vs_vocab_format_print(char *out, size_t cap, vs_vocab_format f, unsigned bits)
{
    int n;
    if (f == VS_FORMAT_BITS) {
        if (bits < 1 || bits > 64)
            return NULL;
        n = snprintf(out, cap, "bits=%u", bits);
    } else if (vs_vocab_format_name(f)) {
        n = snprintf(out, cap, "%s", vs_vocab_format_name(f));
    } else {
        return NULL;
    }
    return n >= 0 && (size_t)n < cap ? out : NULL;
}

/* ---- scopes ---- */

const char *const vs_vocab_scope_names[VS_SCOPE_COUNT + 1] = {"device",  "process",  "allocator",
                                                              "tensors", "reported", NULL};

const char *vs_vocab_scope_name(vs_vocab_scope s)
{
    return name_at(vs_vocab_scope_names, VS_SCOPE_COUNT, (int)s);
}

int vs_vocab_scope_parse(vs_vocab_scope *out, const char *s, vs_error *err)
{
    int i = index_of(vs_vocab_scope_names, s);
    if (i < 0)
        return vs_error_set(err, VS_EVALUE,
                            "'%s' is not a scope: expected device, process, allocator, tensors or "
                            "reported",
                            s ? s : "");
    *out = (vs_vocab_scope)i;
    return 0;
}
