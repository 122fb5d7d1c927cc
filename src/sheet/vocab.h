/* vocab.h — the words a record stores, each vocabulary declared once.
 *
 * A component's class and status, the card's task and format, an evidence
 * verdict and a measurement's scope are strings in the record (sheet/sheet.h
 * shows where). Here each vocabulary is an enum, a NULL-terminated table of
 * its record strings in the enum's order (usable as a list of choices), a
 * name function (enum -> the exact string records hold) and a parse function
 * (string -> enum, with the spellings the product accepts; anything else
 * refused with VS_EVALUE naming the choices). Comparing against the enum, not
 * against a literal, keeps a misspelt word from compiling. Pure: no I/O, no
 * globals but the constant tables; it reads no sheet.
 *
 * Unknown amounts. A record writes an unknown amount as JSON null, and only
 * there. In C, an amount that may be unknown is a value with a valid bit
 * beside it (`int known; uint64_t value;`, as vs_component_view has), never
 * a sentinel in the value itself (0, -1, UINT64_MAX): 0 is a real amount
 * and an unsigned wraps. A pointer field that may be absent is NULL.
 */
#ifndef VS_SHEET_VOCAB_H
#define VS_SHEET_VOCAB_H

#include <stddef.h>

#include "util/error.h"

/* ---- component classes: how a placement shards a component ---- */

typedef enum vs_vocab_class {
    VS_CLASS_OTHER = 0,   /* "other": never divided; a missing class reads as this */
    VS_CLASS_KV_CACHE,    /* "kv_cache" */
    VS_CLASS_GRADIENTS,   /* "gradients" */
    VS_CLASS_OPTIMIZER,   /* "optimizer" */
    VS_CLASS_ACTIVATIONS, /* "activations" */
    VS_CLASS_PARAMETERS,  /* "parameters" */
    VS_CLASS_COUNT
} vs_vocab_class;

extern const char *const vs_vocab_class_names[VS_CLASS_COUNT + 1];
/* The record string of c; NULL out of range. */
const char *vs_vocab_class_name(vs_vocab_class c);
/* One of the six names, exactly; 0 or VS_EVALUE naming them. */
int vs_vocab_class_parse(vs_vocab_class *out, const char *s, vs_error *err);
/* The class as a placement reads it: "weights" (the model's weights, which
 * are no component) shards as parameters; NULL or any other word is other. */
vs_vocab_class vs_vocab_class_of(const char *s);
/* The word for the model's weights where a class is asked (a placement's
 * ways, compare's rows): they are no component, so no class of their own. */
#define VS_VOCAB_WEIGHTS "weights"

/* ---- tasks: the card's "task" ---- */

typedef enum vs_vocab_task {
    VS_TASK_INFERENCE = 0,
    VS_TASK_FINETUNE,
    VS_TASK_LORA,
    VS_TASK_QLORA,
    VS_TASK_PRETRAIN,
    VS_TASK_GENERATE_IMAGE, /* "generate-image" */
    VS_TASK_GENERATE_VIDEO, /* "generate-video" */
    VS_TASK_COUNT
} vs_vocab_task;

extern const char *const vs_vocab_task_names[VS_TASK_COUNT + 1];
const char *vs_vocab_task_name(vs_vocab_task t);
/* Exactly one of the names; 0 or VS_EVALUE naming them. */
int vs_vocab_task_parse(vs_vocab_task *out, const char *s, vs_error *err);
/* "inference, finetune, ... or generate-video", for messages (static). */
const char *vs_vocab_task_choices(void);
/* 1 for the training tasks (finetune, lora, qlora, pretrain). */
int vs_vocab_task_trains(vs_vocab_task t);

/* ---- statuses: a component's "status" ---- */

typedef enum vs_vocab_status {
    VS_STATUS_ESTIMATED = 0,
    VS_STATUS_MEASURED,
    VS_STATUS_UNKNOWN, /* its bytes are null */
    VS_STATUS_COUNT
} vs_vocab_status;

extern const char *const vs_vocab_status_names[VS_STATUS_COUNT + 1];
const char *vs_vocab_status_name(vs_vocab_status s);
/* Exactly one of the names; 0 or VS_EVALUE naming them. */
int vs_vocab_status_parse(vs_vocab_status *out, const char *s, vs_error *err);
/* 1 when s is the record string of st (s may be NULL): the common test. */
int vs_vocab_status_is(const char *s, vs_vocab_status st);

/* ---- verdicts: an evidence's "verdict" ----
 * The same values as sheet/classify.h's vs_verdict. */

typedef enum vs_vocab_verdict {
    VS_VOCAB_VERDICT_ADMISSIBLE = 0,
    VS_VOCAB_VERDICT_TO_CONFIRM = 1, /* "to-confirm" */
    VS_VOCAB_VERDICT_EXCLUDE = 2,
    VS_VOCAB_VERDICT_COUNT
} vs_vocab_verdict;

extern const char *const vs_vocab_verdict_names[VS_VOCAB_VERDICT_COUNT + 1];
/* The record string; anything out of range is "to-confirm", as classify's. */
const char *vs_vocab_verdict_name(vs_vocab_verdict v);
/* A name as vs_vocab_same_name matches it ("To confirm", "to_confirm"), and
 * "excluded"; 0 or VS_EVALUE naming the three. */
int vs_vocab_verdict_parse(vs_vocab_verdict *out, const char *s, vs_error *err);
/* Names match ignoring case, spaces and punctuation: a letter (lowercased), a
 * digit and any byte of a non-ASCII character count, nothing else. Two texts
 * with nothing that counts match only when identical. NULL matches nothing. */
int vs_vocab_same_name(const char *a, const char *b);

/* ---- weight formats: the card's "format", with their bits ---- */

typedef enum vs_vocab_format {
    VS_FORMAT_FP32 = 0, /* 32 bits */
    VS_FORMAT_FP16,     /* 16 */
    VS_FORMAT_BF16,     /* 16 */
    VS_FORMAT_FP8,      /* 8 */
    VS_FORMAT_INT8,     /* 8 */
    VS_FORMAT_INT4,     /* 4 */
    VS_FORMAT_NF4,      /* 4 */
    VS_FORMAT_FP4,      /* 4 */
    VS_FORMAT_BITS,     /* "bits=N", N in 1..64 without leading zeros */
    VS_FORMAT_SCHEME,   /* a quantisation scheme: "gptq bits=4 group=128", "mxfp4", "q4_k_m" */
    VS_FORMAT_COUNT
} vs_vocab_format;

/* The named formats (not "bits=N"), NULL-terminated. */
extern const char *const vs_vocab_format_names[VS_FORMAT_BITS + 1];
/* The record string of a named format; "bits=N" for VS_FORMAT_BITS is
 * written by vs_vocab_format_print. NULL for VS_FORMAT_BITS or out of range. */
const char *vs_vocab_format_name(vs_vocab_format f);
/* Bits per value of a named format: 1 and *bits; 0 for VS_FORMAT_BITS (its
 * bits are the record's N, not the format's) or out of range. */
int vs_vocab_format_bits(vs_vocab_format f, unsigned *bits);
/* Exactly a name, "bits=N", or a scheme's canonical text (VS_FORMAT_SCHEME,
 * *bits its nominal bits): *out and, when bits is not NULL, its bits.
 * 0 or VS_EVALUE naming the choices. */
int vs_vocab_format_parse(vs_vocab_format *out, unsigned *bits, const char *s, vs_error *err);
/* Writes the record string of f (bits for VS_FORMAT_BITS) into out; returns
 * out, or NULL when it does not fit (cap >= 8 always does) or is not a format. */
const char *vs_vocab_format_print(char *out, size_t cap, vs_vocab_format f, unsigned bits);

/* The quantisation schemes, in `help format`'s order: the word, the keys it
 * takes, its nominal bits, its bits per weight with their scales, and what
 * the loaders keep unquantised. A scheme's weights are summed tensor by tensor
 * (model/quant.h, model/gguf_quant.h); the plain names above stay plain widths. */
typedef struct vs_vocab_scheme {
    const char *word, *keys;
    unsigned bits;
    const char *bpw, *kept, *family; /* family: "safetensors" or "llama.cpp" */
} vs_vocab_scheme;
/* The number of schemes, and scheme k (NULL past the end): the rows of
 * model/quants/quants.def (safetensors), then llama.cpp's file types. */
size_t vs_vocab_scheme_count(void);
const vs_vocab_scheme *vs_vocab_scheme_at(size_t k);
/* The scheme whose word starts s ("gptq bits=3" -> gptq), or NULL. */
const vs_vocab_scheme *vs_vocab_scheme_of(const char *s);

/* ---- measurement scopes: what a counter covers ---- */

typedef enum vs_vocab_scope {
    VS_SCOPE_DEVICE = 0, /* every process and the driver (NVML's device used) */
    VS_SCOPE_PROCESS,    /* the measured command's processes */
    VS_SCOPE_ALLOCATOR,  /* what a framework's caching allocator reserved */
    VS_SCOPE_TENSORS,    /* what live tensors hold */
    VS_SCOPE_REPORTED,   /* as a program reported it, scope not known */
    VS_SCOPE_COUNT
} vs_vocab_scope;

extern const char *const vs_vocab_scope_names[VS_SCOPE_COUNT + 1];
const char *vs_vocab_scope_name(vs_vocab_scope s);
/* Exactly one of the names; 0 or VS_EVALUE naming them. A record may hold
 * other scopes (a log's own word): a caller keeps the string then. */
int vs_vocab_scope_parse(vs_vocab_scope *out, const char *s, vs_error *err);

/* A component's optional "memory" key: "managed" for CUDA managed memory
 * (cudaMallocManaged: bitsandbytes' paged optimizer state), which the device
 * holds while it is resident but PyTorch's caching allocator neither makes nor
 * counts (torch.cuda.max_memory_allocated / memory_reserved leave it out);
 * "cache" for the caching allocator's reserved-but-free segments, which the
 * device holds and memory_reserved counts (scope allocator) but no live tensor
 * is (max_memory_allocated, scope tensors, leaves them out); absent, the
 * allocator's tensors. */
#define VS_MEMORY_KEY "memory"
#define VS_MEMORY_MANAGED "managed"
#define VS_MEMORY_CACHE "cache"

/* The counters the sampler itself writes (scopes device and process). */
#define VS_COUNTER_DEVICE "nvml.device_used"
#define VS_COUNTER_PROCESS "nvml.process_used"

#endif
