/* launch.h — the command that starts the card's engine on an offer, from the
 * sheet's own figures.
 *
 * After `fit` says an offer holds the card, the person still has to type the
 * engine's flags: the context, the parallelism, the memory fraction, the KV
 * dtype. Each engine with a command is one rule (src/engine/launch_<name>.c)
 * behind one struct: the program, the argument parser the flags were read in
 * (file and commit; `help launch` lists each flag with its source), and a build function
 * that turns the resolved engine keys, the card and the offer's fit row into
 * words of a command line. The table below lists them; an engine without a
 * rule has no launch command. An offer whose fit verdict is exclude gets no
 * command: the reason is the fit's own note.
 *
 * Pure: no I/O; the words are jansson strings.
 */
#ifndef VS_ENGINE_LAUNCH_H
#define VS_ENGINE_LAUNCH_H

#include <jansson.h>
#include <stddef.h>

#include "engine/fit.h"
#include "util/buf.h"
#include "util/error.h"

/* An offload to host memory: what the rule's plan chose, the command's flags
 * and the bytes per device. */
typedef struct vs_launch_offload {
    uint64_t ngl;             /* llama.cpp: -ngl (layers + 1: all) */
    uint64_t cpu_moe;         /* llama.cpp: --n-cpu-moe K (0: none) */
    uint64_t cpu_offload_gib; /* vLLM: --cpu-offload-gb G, GiB per GPU */
    uint64_t gpu_bytes;       /* one GPU: its weights, KV cache and other components */
    uint64_t host_bytes;      /* host memory the offloaded part takes, every GPU's together */
    uint64_t mapped_bytes;    /* llama.cpp with mmap: the span of the file its host buffer maps,
                                 what it prints as the host model buffer (0: none) */
    int mapped_from_file;     /* ... in the GGUF's own order (else llama-quantize's, assumed) */
    char rule[400];           /* the plan in words, with its figures */
} vs_launch_offload;

/* What a rule reads: the sheet, its fit context, one offer's fit row, and the
 * offload its plan chose (NULL when the card fits on the GPU). */
typedef struct vs_launch_in {
    const json_t *sheet;
    const vs_fit_ctx *ctx;
    const vs_fit_row *row;
    const vs_launch_offload *off;
} vs_launch_in;

/* One release an engine models, and the argument table its flags were
 * checked against (tests/data/launch/<engine>-<name>-args.txt). */
typedef struct vs_launch_release {
    const char *name;   /* the engine key's word ("0.11.0", "b6324"); NULL ends a list */
    const char *source; /* the argument parser read for it: file, commit, why it stands */
} vs_launch_release;

typedef struct vs_launch_rule {
    const char *engine;  /* the engine's name (engine/engine.h) */
    const char *program; /* the first words, for help */
    /* the engine key naming the release ("version", "build"); NULL: one release */
    const char *release_key;
    /* every release that key accepts, oldest first, NULL-name terminated; the
     * last is the one without the key */
    const vs_launch_release *releases;
    int splits;           /* takes uneven shares of the layers per GPU (placement split=) */
    const char *importer; /* the `measure import` format of its start-up lines; NULL: none */
    /* Appends the command's words to argv (a JSON array of strings); a note
     * for the person (what was left to the engine's default) may go to note.
     * 0, or a negative code. */
    int (*build)(json_t *argv, const vs_launch_in *in, vs_buf *note, vs_error *err);
    /* Optional: the smallest offload to host memory that leaves the KV cache
     * the card needs on the GPU, shortfall_bytes being what the GPU lacks.
     * 0, or VS_EVALUE saying why there is none. NULL: the engine has no offload. */
    int (*plan)(vs_launch_offload *out, const vs_launch_in *in, uint64_t shortfall_bytes,
                vs_error *err);
} vs_launch_rule;

extern const vs_launch_rule vs_launch_vllm;
extern const vs_launch_rule vs_launch_llamacpp;
extern const vs_launch_rule vs_launch_sglang;
extern const vs_launch_rule vs_launch_tensorrt_llm;
extern const vs_launch_rule vs_launch_transformers;

/* The rules, NULL-terminated. */
extern const vs_launch_rule *const vs_launch_rules[];
/* The engines with a rule, in words ("vllm, llamacpp, sglang or tensorrt_llm"). */
void vs_launch_engine_list(char *out, size_t len);
/* The rule of an engine, or NULL when it has none. */
const vs_launch_rule *vs_launch_find(const char *engine);
/* The release the resolved keys name (the last of r->releases without it). */
const vs_launch_release *vs_launch_release_of(const vs_launch_rule *r, const vs_engine_env *e);

/* One offer's launch: a new object {"offer", "engine", "release", "argv",
 * "command", "note", "devices"} in *out. When the fit excludes the offer for
 * want of memory and the offer declares its host memory (host_bytes), the
 * rule's plan offloads to it, and "devices" holds the bytes per device (each
 * GPU, the host); otherwise, and when the host holds less than the offloaded
 * part, VS_EVALUE with the reason in err. VS_ENOTFOUND when the engine has no
 * rule. */
int vs_launch_build(json_t **out, const vs_launch_in *in, vs_error *err);

/* The launch column of `fit`: for each of the n rows (the fit of the offers of
 * the sheet, under ctx), the launch object vs_launch_build makes, or
 * {"offer", "reason"} when the offer gets no command. A new array in *out, or
 * NULL when the card's engine has no rule. 0, or VS_ENOMEM. */
int vs_launch_fit_column(json_t **out, const json_t *sheet, const vs_fit_ctx *ctx,
                         const vs_fit_row *rows, size_t n, vs_error *err);

/* argv as one shell line: words with anything but [A-Za-z0-9_./:=,+@%-] in
 * single quotes. */
void vs_launch_shell_join(vs_buf *b, const json_t *argv);

/* ---- what the rules share ---- */

/* Appends a word / a flag and its value (printf-style) to argv; 0 or VS_ENOMEM. */
int vs_launch_word(json_t *argv, const char *word, vs_error *err);
int vs_launch_flag(json_t *argv, const char *flag, vs_error *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A fraction in parts per million as the shortest decimal: 900000 -> "0.9". */
void vs_launch_ppm(char *out, size_t len, uint64_t ppm);
/* card.<key> as text, or NULL. */
const char *vs_launch_card_str(const json_t *sheet, const char *key);
/* card.arch.<key> as a count, or 0. */
uint64_t vs_launch_arch_count(const json_t *sheet, const char *key);

#endif
