/* sheet.h — the sizing sheet: its document layout and the operations on it.
 *
 * A sheet is a jansson object (json_t) laid out as records/sheet.schema.json
 * describes (the layout's one description; the summary below is a map of it);
 * it is the model in memory and, written canonically (vs_sheet_dump), the
 * record that git stores. Its keys are named in the code once,
 * sheet/sheet_keys.def, checked against the schema, and read and written
 * through sheet/sheet_access.h, so that records keep one shape. Keys
 * beginning with "_" are this module's caches about the sheet's own contents
 * ("_component_at", "_card_gen"); they are never written to records. State
 * about the world outside the sheet (the records
 * blob it was loaded from) is kept beside it, by its holder (lang/verb.h's
 * vs_ctx_base_blob), never in it. This module is pure: no I/O, no globals.
 *
 * Units: every amount of memory is an exact integer number of bytes (JSON
 * integer); GB and GiB exist only in rendering. Unknown = JSON null. The words
 * of task, format, status, class, verdict and scope are sheet/vocab.h's.
 *
 * {
 *   "schema": "vramsheet/sheet/2",                  (records of /1 load too)
 *   "id": "llama-2-7b-chat-inference-campaign-a",     slug of the title
 *   "title": "Llama-2-7B chat, inference, campaign A",
 *   "lineage": null | {"sheet": ID, "commit": HEX40, "title": STR},
 *   "card": {
 *     "model": STR|null, "revision": STR|null,
 *     "params": INT|null,            parameter count
 *     "params_source": STR|null,     "declared", "config.json (llama rule)", "safetensors"
 *     "task": "inference"|"finetune"|"lora"|"qlora"|"pretrain"|"generate-image"|
 *             "generate-video"|null,
 *     "format": "fp32"|"fp16"|"bf16"|"fp8"|"int8"|"int4"|"nf4"|"fp4"|"bits=N"|null,
 *     "bits": INT|null,
 *     "length": INT|null,            required tokens per sequence
 *     "concurrency": INT|null,       simultaneous sequences (inference)
 *     "microbatch": INT|null, "accumulation": INT|null,      (training)
 *     "width": INT|null, "height": INT|null, "frames": INT|null, "batch": INT|null,
 *                                    (schema 2: image and video generation)
 *     "quality": STR|null,
 *     "arch": null | {"family": STR, "rule": STR, "config": PATH,
 *                     "layers", "hidden", "heads", "kv_heads", "head_dim", "intermediate",
 *                     "vocab", "experts", "experts_per_token", "params_total",
 *                     "params_active": INT|null, "tied_embeddings": BOOL,
 *                     "kv_layout": null | [{"kind", "layers", "kv_heads", "head_dim",
 *                                           "head_dim_v", "window", "latent", "state_bytes"}]}
 *                     (the layer groups of sheet/kvlayout.h; a schema-1 record's arch
 *                     loads as one full group)
 *     "engine": null | {"name": "vllm"|"llamacpp"|..., "keys": {STR: STR as written}}
 *   },
 *   "weights_files": null | {       set by `weights from=PATH`, cleared by model/format changes
 *     "path": STR, "bytes": INT, "params": INT,
 *     "by_dtype": [{"dtype": "BF16", "bytes": INT, "params": INT}],
 *     "other_dtype": [{"pattern": STR, "dtype": STR, "bytes": INT, "tensors": INT}],
 *     "files": [{"name": STR, "size": INT, "sha256": STR|null}],
 *     "components": null | [{"name", "class", "library", "bytes", "params", "by_dtype",
 *                            "largest_group", "largest_group_bytes", "variant"}]
 *                                    (schema 2: a diffusers pipeline, model/pipeline_files.h)
 *   },
 *   "components": [                 the reserve, in declaration order; never the weights
 *     {"name": STR, "bytes": INT|null, "status": "estimated"|"measured"|"unknown",
 *      "source": STR|null, "phase": STR|null,
 *      "class": "other"|"kv_cache"|"gradients"|"optimizer"|"activations"|"parameters",
 *      "derived": {"estimator": "kv", "keys": {KEY: "as written"}, "reads": {FIELD: VALUE}},
 *      "memory": "managed" (absent: the caching allocator's; sheet/vocab.h)}
 *   ],                              "class" says how a placement shards it (sheet/placement);
 *                                   "derived" (estimates only, sheet/derived.h): how to recompute
 * it "placement": {"kind": "single"|"ddp"|"zero"|"fsdp"|"tensor", "gpus": INT, "stage": INT|null,
 *                 "offload": "model"|"sequential"|null},     (schema 2: CPU offload, single)
 *   "stages": [{"name": "short"|"usual"|"limit"|STR, "length": INT|null,
 *               "concurrency": INT|null, "microbatch": INT|null, "note": STR|null,
 *               "width", "height", "frames", "batch": INT|null (schema 2)}],
 *   "offers": [{"name": STR, "memory_bytes": INT|null (nominal, as marketed),
 *               "reported_bytes": INT|null (device-reported total), "reported_basis": STR|null,
 *               "price": STR|null (exact decimal text, "47.14"), "currency": STR|null,
 *               "period": STR|null ("3d"), "cards": INT, "available": STR|null,
 *               "interconnect": STR|null, "catalog": STR|null (catalogue entry used)}],
 *   "requirements": [{"name": STR}],            declared with `require` (built-ins are implied)
 *   "evidence": [{"candidate": STR, "requirement": STR,
 *                 "verdict": "admissible"|"to-confirm"|"exclude",
 *                 "source": STR, "version": STR|null, "scope": STR|null,
 *                 "card": {FIELD: VALUE}}],  the card it was obtained under (sheet/derived.h)
 *   "runs": [{"id": "m1", "command": STR, "phase": STR|null, "exit_status": INT|null,
 *             "overflow_phase": STR|null, "started": ISO8601, "elapsed_ms": INT,
 *             "host": STR|null, "driver": STR|null, "nvml": STR|null,
 *             "gpus": [{"index": INT, "name": STR, "total_bytes": INT, "total_basis":
 * "nvml"|"cuda"}]}], "measurements": [{"run": STR|null, "phase": STR, "gpu": INT|null, "gpu_name":
 * STR|null, "counter": STR, "scope": "device"|"process"|"allocator"|"tensors"|STR, "peak_bytes":
 * INT, "dims": {STR: INT}, "stage": STR|null, "host": STR|null, "rank": INT|null, "validates_card":
 * BOOL, "state": "current"|"to re-measure", "time": ISO8601|null, "text": STR|null,
 * "resolution_bytes": INT|null,    (schema 2: from a log, "value": NUMBER|null, "unit": STR|null,
 * "engine_version": STR|null: the log's own version line; older records lack it, read as null}],
 * a count has peak_bytes null) "invalidate": [STR], "oom": [{"phase": STR, "note": STR|null,
 *   "run": STR (the measure run that overflowed, when one did)}], "decision": STR|null
 * }
 */
#ifndef VS_SHEET_SHEET_H
#define VS_SHEET_SHEET_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "sheet/sheet_access.h"
#include "util/error.h"
#include "util/json.h"

#define VS_SHEET_SCHEMA "vramsheet/sheet/2"
/* Records of the previous schema load, with the later keys at their defaults. */
#define VS_SHEET_SCHEMA_V1 "vramsheet/sheet/1"
#define VS_SHEET_ID_MAX 64

/* A new, empty sheet with every key of the layout present (nulls and empty
 * arrays), "placement" single on 1 GPU. Returns NULL when memory is short. */
json_t *vs_sheet_new(const char *title);

/* Writes the slug of title into out (lowercase ASCII letters, digits and single
 * '-', no leading or trailing '-', at most VS_SHEET_ID_MAX-1 chars, never
 * empty: "sheet" when nothing is left). A title with characters beyond ASCII
 * gets "-" and 8 hex digits of a fingerprint of the whole title, so that two
 * such titles do not share an id. Returns 0 or VS_EVALUE if outlen < 2. */
int vs_sheet_slug(const char *title, char *out, size_t outlen);

/* 1 when id is a valid slug as produced above (safe as a folder name). */
int vs_sheet_id_valid(const char *id);

/* The canonical text of a sheet: fixed key order (the layout's), two-space
 * indent, one component/measurement per line where possible, integers for bytes,
 * the shortest exact form for any other number, runtime ("_") keys left out,
 * strings escaped as json_dumps escapes them, ending with a newline. Returns a
 * malloc'd string, or NULL when memory is short (or a string is not UTF-8, which
 * the setters never store). */
char *vs_sheet_dump(const json_t *sheet);

/* Parses a record (as written by vs_sheet_dump) into a sheet, checking the
 * schema and the types of the layout; missing keys get their defaults.
 * Returns 0 and a new reference in *out, or VS_EFORMAT with line/column. */
int vs_sheet_load(json_t **out, const char *text, size_t len, vs_error *err);

/* Checks one new element of the array array_key ("runs", "measurements", ...)
 * against the record's layout, as vs_sheet_load would, adding the keys it
 * lacks at their defaults and dropping runtime ("_") keys: what passes can be
 * appended and read back. 0, or VS_EFORMAT naming the key. */
int vs_sheet_check_entry(json_t *entry, const char *array_key, vs_error *err);

/* Borrowed accessors for the layout; NULL when absent. */
json_t *vs_sheet_card(const json_t *sheet);
/* The array k (VS_SK_COMPONENTS, VS_SK_OFFERS, ...), or NULL when it is absent or
 * not an array. */
json_t *vs_sheet_array(const json_t *sheet, vs_sheet_key k);

/* Card integer (VS_CK_PARAMS, VS_CK_LENGTH, ...): 1 and *out when set, 0 when
 * null/unset. */
int vs_sheet_card_uint(const json_t *sheet, vs_card_key k, uint64_t *out);

/* The component named name in "components", or NULL. */
json_t *vs_sheet_component(const json_t *sheet, const char *name);

/* A copy of a session's sheets (a JSON array of sheets) to put back when a
 * cell fails. A stored component is never edited in place (it is replaced
 * whole by vs_sheet_put_component or removed), so the copy shares the
 * component objects; everything else a verb may edit in place (the sheets,
 * their card, arrays and other objects) is copied. Scalars are shared as
 * util/json says. A new reference, or NULL when memory is short. */
json_t *vs_sheet_snapshot_all(json_t *sheets);
/* The same for one sheet: a new reference, or NULL when memory is short. */
json_t *vs_sheet_snapshot(json_t *sheet);

/* A component's fields, read in one walk over its keys: a long sheet's
 * envelope, chart, table and payload read five or six fields of each of
 * hundreds of components, and a hashed lookup per field was a tenth of a
 * cell. Values are borrowed from the component; a field that is absent, or
 * not of its type, reads as NULL ("bytes": known = 0). */
typedef struct vs_component_view {
    json_t *name, *status, *source, *phase, *cls; /* JSON strings */
    int known;                                    /* "bytes" is an integer >= 0 */
    uint64_t value;                               /* "bytes" when known, else 0 */
    unsigned keys;  /* how many of the six layout keys it has, whatever their values */
    unsigned nulls; /* how many of them hold null */
    int managed;    /* "memory": "managed" (sheet/vocab.h): CUDA managed memory, outside
                       the caching allocator's counters */
} vs_component_view;
void vs_component_view_read(vs_component_view *out, const json_t *component);
/* The views of every component of a sheet, in its order, for a verb that
 * walks them several times (`envelope`: its chart, table and payload). They
 * borrow from the sheet: valid until a component is set or removed. */
typedef struct vs_component_views {
    vs_component_view *v;
    size_t n;
} vs_component_views;
/* Returns 0, or VS_ENOMEM with out empty. */
int vs_component_views_read(vs_component_views *out, const json_t *sheet);
void vs_component_views_free(vs_component_views *views);
/* Writes the fields of v in the sheet's order (name, bytes, status, source,
 * phase, class; a missing class as "other") as members of the object w has
 * open: every payload that lists components shows them the same way. */
void vs_component_view_write(const vs_component_view *v, vs_jw *w);

/* Writes the sheet's fields, as stored, as members of the object w has open
 * (runtime "_" keys left out): the `sheet` result's payload. */
void vs_sheet_fields_write(const json_t *sheet, vs_jw *w);

/* Adds or replaces the component named name. An existing "measured" component is
 * never replaced by an estimate: returns VS_EVALUE saying so. known=0 stores
 * bytes null. status is "estimated", "measured" or "unknown"; source and phase
 * may be NULL; cls is one of the layout's classes (NULL = "other"). Lookups
 * by name go through a runtime key, "_component_at" (name -> position, never
 * recorded): a cache that this module keeps, so the components of a sheet
 * change only through these functions (set, put, remove). */
int vs_sheet_set_component(json_t *sheet, const char *name, int known, uint64_t bytes,
                           const char *status, const char *source, const char *phase,
                           const char *cls, vs_error *err);

/* As vs_sheet_set_component; *out (borrowed) receives the component as stored,
 * and *view (when not NULL) its view, so that the caller need not look it up
 * or read it again. A component that already holds exactly these fields is
 * kept as it is (*out is that object): a cell run again rebuilds nothing. */
int vs_sheet_put_component(json_t **out, vs_component_view *view, json_t *sheet, const char *name,
                           int known, uint64_t bytes, const char *status, const char *source,
                           const char *phase, const char *cls, vs_error *err);

/* Replaces component i by a copy of it with key set to value (taken): a
 * stored component is never edited in place, so that snapshots sharing it
 * keep what they saw. For keys beyond the six of the layout ("derived").
 * Returns 0 or VS_ENOMEM. */
int vs_sheet_component_with(json_t *sheet, size_t i, const char *key, json_t *value_take);

/* Removes component i (json_array_remove's result). */
int vs_sheet_remove_component(json_t *sheet, size_t i);

/* The card's generation: a count in a runtime key ("_card_gen") that every
 * writer of the card or the placement moves with vs_sheet_card_touch, so that
 * what follows the card (lang/derive.c) learns whether it moved from two
 * integers instead of comparing documents after every line. A sheet made or
 * loaded elsewhere has no count: vs_sheet_card_unseen says 1 until
 * vs_sheet_card_saw. When the count cannot be written (memory), both keys go,
 * which reads as unseen: never a stale "nothing moved". */
void vs_sheet_card_touch(json_t *sheet);
/* 1 unless vs_sheet_card_saw ran since the last touch. */
int vs_sheet_card_unseen(const json_t *sheet);
/* Notes the generation in force as seen. */
void vs_sheet_card_saw(json_t *sheet);

/* What is derived from the rest of the sheet (validation, estimate reads,
 * stale measured components, evidence the card moved past): sheet/derived.h. */

#endif
