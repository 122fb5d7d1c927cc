#include "sheet/vocab.h"

#include <stdio.h>
#include <string.h>

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
    return s && name && !strcmp(s, name);
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

int vs_vocab_format_parse(vs_vocab_format *out, unsigned *bits, const char *s, vs_error *err)
{
    int i = index_of(vs_vocab_format_names, s);
    unsigned b = 0;
    if (i >= 0) {
        *out = (vs_vocab_format)i;
        b = format_bits[i];
    } else if (s && !strncmp(s, "bits=", 5) && (b = bits_of(s + 5)) != 0) {
        *out = VS_FORMAT_BITS;
    } else {
        return vs_error_set(err, VS_EVALUE,
                            "'%s' is not a format: expected fp32, fp16, bf16, fp8, int8, int4, "
                            "nf4, fp4 or bits=N (N from 1 to 64)",
                            s ? s : "");
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
