/* import.h — what real runs print, read as measurements (`measure import`).
 *
 * One importer per format, each one file (import_probe.c, import_vllm.c,
 * import_llamacpp.c, import_torchtune.c, import_nvsmi.c, import_torch.c,
 * import_sglang.c, import_trtllm.c) behind
 * the struct below, one row each in measure/importers.def. An importer is pure: it is
 * handed one line at a time and adds measurements (and, for the probe's files,
 * runs) to a vs_import; it reads no file and never touches a sheet. The verb
 * reads the files, picks the importer (format= or by sniffing the first lines)
 * and moves the result into the sheet only after every value was checked.
 *
 * A measurement read here is a jansson object with the record's measurement
 * keys (sheet/sheet.h: phase, gpu, gpu_name, counter, scope, peak_bytes, dims,
 * host, rank, time) and what a log adds: "text" (the printed text it came
 * from), "resolution_bytes" (half a unit of the last printed digit: the figure
 * was rounded by the program), "value" and "unit" for counts (tokens, blocks,
 * concurrency; their peak_bytes is null). Units are read as the program meant
 * them; bytes are exact integers, rounded half up from the printed decimal.
 */
#ifndef VS_MEASURE_IMPORT_H
#define VS_MEASURE_IMPORT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "sheet/vocab.h"
#include "util/buf.h"
#include "util/error.h"

#define VS_IMPORT_GPU_MAX 4095
/* What an importer returns when it refuses a line (the reason in im->why). */
#define VS_IMPORT_REFUSED VS_EFORMAT
#define VS_IMPORT_TEXT_MAX 200

typedef struct vs_import {
    json_t *runs;        /* run key -> run skeleton (command, started, exit_status, ...) */
    json_t *items;       /* measurements, merged: one per key, the largest kept */
    json_t *where;       /* merge key -> index in items */
    const char *run_key; /* log formats: the run the file's measurements belong to
                            (the verb sets it per file); NULL: by the line's host */
    const char *format;  /* the importer's name, for the run it makes */
    char why[256];       /* the reason of the last refusal (importers write it) */
    size_t why_line;     /* the line it is about when not the line at hand (a JSON
                            dump read whole at the end); 0: the line at hand */
    vs_buf key;          /* scratch */
} vs_import;

/* Where a log's figure was: phase (a phase name), the GPU index and the rank
 * when the log names them (null in the measurement otherwise), the device's
 * name or NULL. */
typedef struct vs_import_at {
    const char *phase;
    int gpu_known;
    unsigned gpu; /* when gpu_known */
    int rank_known;
    unsigned rank; /* when rank_known */
    const char *gpu_name;
} vs_import_at;

typedef struct vs_importer {
    const char *name;    /* the format= word */
    const char *summary; /* what it reads, with the source it follows (`help measure`) */
    size_t state_size;   /* bytes of zeroed state the caller gives each file */
    /* 1 when line (n bytes, no newline) is this format's beyond doubt. */
    int (*sniff)(const char *line, size_t n);
    /* One line (n bytes, no newline; line[n] == '\0'). 0 (taken, or not a
     * line this importer reads), VS_IMPORT_REFUSED (why in im->why), or
     * VS_ENOMEM. */
    int (*line)(vs_import *im, void *state, const char *line, size_t n);
    /* After the file's last line: 0, VS_IMPORT_REFUSED, VS_ENOMEM. NULL: nothing. */
    int (*finish)(vs_import *im, void *state);
    /* Frees what state holds (not state itself). NULL: nothing. */
    void (*clear)(void *state);
} vs_importer;

/* The importer named name ("probe", "vllm", ...), or NULL. */
const vs_importer *vs_importer_find(const char *name);
/* The i-th importer of the table (help's order), NULL past the end. */
const vs_importer *vs_importer_at(size_t i);
/* The importer that claims line, or NULL: the structured formats first, then
 * the logs, each in table order. */
const vs_importer *vs_importer_sniff(const char *line, size_t n);
/* The names joined with '|' ("probe|vllm|..."), in table order; static. */
const char *vs_importer_names(void);

/* 0 or VS_ENOMEM. */
int vs_import_init(vs_import *im);
void vs_import_clear(vs_import *im);

/* Adds m (taken) under the merge key of its run, GPU, rank (log formats
 * only), phase and counter; of two, the larger peak_bytes (or value) is kept.
 * 0 or VS_ENOMEM. */
int vs_import_add(vs_import *im, json_t *m_take);

/* The run skeleton of key (created empty when new): borrowed, NULL when
 * memory is short. */
json_t *vs_import_run(vs_import *im, const char *key);

/* A measurement of bytes (with the printed text and its resolution) at at;
 * scope as the program reported it (VS_SCOPE_REPORTED when it does not say
 * more). 0 or VS_ENOMEM. */
int vs_import_bytes(vs_import *im, const vs_import_at *at, const char *counter,
                    vs_vocab_scope scope, uint64_t bytes, uint64_t resolution_bytes,
                    const char *text, size_t text_len);
/* A count (value_take: a JSON integer or real >= 0) with its unit; its
 * scope is VS_SCOPE_REPORTED. */
int vs_import_count(vs_import *im, const vs_import_at *at, const char *counter, json_t *value_take,
                    const char *unit, const char *text, size_t text_len);

/* A decimal figure at s (digits, optional '.', digits; ',' thousands
 * separators when commas is set) times mult bytes per unit: *bytes rounded half
 * up, *resolution half a unit of the last digit, *used the characters read.
 * 0, or 1 when there is no figure or it overflows int64 (not an error code: the
 * caller says what was expected). */
int vs_import_decimal(const char *s, size_t n, uint64_t mult, int commas, uint64_t *bytes,
                      uint64_t *resolution, size_t *used);
/* The same figure as a JSON integer (no '.') or real: NULL when none. */
json_t *vs_import_number(const char *s, size_t n, int commas, size_t *used);

/* A unit word at s ("GiB", "GB", "MiB", "MB", "KiB", "kB", "B"): its bytes,
 * *used its length; 0 when none. */
uint64_t vs_import_unit(const char *s, size_t n, size_t *used);

/* A byte figure at s after blanks, '=' and ':' ("avail mem=21.63 GB",
 * "K size: 8.23 GB"): the number, an optional blank, a unit. binary reads
 * "KB", "MB", "GB" as powers of 1024 (SGLang and TensorRT-LLM divide by 2^30
 * and print GB). 0 with *bytes, *resolution and *used (from s); 1 when there
 * is no such figure; -1 when its digits are out of range (the caller refuses). */
int vs_import_figure(const char *s, size_t n, int binary, uint64_t *bytes, uint64_t *resolution,
                     size_t *used);

/* The first occurrence of needle in s[0..n), or NULL (ci: ASCII case ignored). */
const char *vs_import_find(const char *s, size_t n, const char *needle, int ci);

/* The engine's release as its log's own version line prints it, at s (n bytes
 * from the first digit: "0.9.2", "0.8.5.dev169+gce17db808.d20250423"): kept on the
 * file's run and given to each of its measurements as engine_version when they
 * reach the sheet (the verb does). Nothing when s starts with no digit or the
 * importer runs without a run key. 0 or VS_ENOMEM. */
#define VS_IMPORT_VERSION_MAX 64
int vs_import_engine_version(vs_import *im, const char *s, size_t n);

/* 1 when s holds no control characters (below 0x20, 0x7f) and is UTF-8. */
int vs_import_text_valid(const char *s);

/* Writes the reason of a refusal into im->why; returns VS_IMPORT_REFUSED. */
int vs_import_refuse(vs_import *im, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
