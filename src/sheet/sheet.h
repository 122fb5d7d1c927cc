/* sheet.h — the sizing sheet: the operations on its document.
 *
 * A sheet is a jansson object (json_t): the model in memory and, written
 * canonically (vs_sheet_dump), the record that git stores. Its layout is
 * described in one place, records/sheet.schema.json: each key's "description"
 * says what it holds and in what unit (docs/sheet-layout.md renders that as a
 * table); this header does not restate it. The keys are named in the code
 * once, sheet/sheet_keys.def, in the schema's order (test_sheet_access checks
 * both the order and that every key there is described), and are read and
 * written through sheet/sheet_access.h, so that records keep one shape.
 *
 * Beside the document, not in the record: keys beginning with "_" are this
 * module's caches about the sheet's own contents ("_component_at",
 * "_card_gen"), which vs_sheet_dump leaves out; state about the world outside
 * the sheet (the records blob it was loaded from) is kept by its holder
 * (lang/verb.h's vs_ctx_base_blob), never in it. This module is pure: no I/O,
 * no globals. Every amount of memory is an exact integer number of bytes;
 * unknown is null; the words of task, format, status, class, verdict and scope
 * are sheet/vocab.h's.
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
    int bytes_null;                               /* "bytes" is null (unknown, as stored) */
    uint64_t value;                               /* "bytes" when known, else 0 */
    unsigned keys;  /* how many of the six layout keys it has, whatever their values */
    unsigned nulls; /* how many of them hold null */
    int managed;    /* "memory": "managed" (sheet/vocab.h): CUDA managed memory, outside
                       the caching allocator's counters */
    int cache;      /* "memory": "cache": the caching allocator's reserved-but-free
                       memory, outside its allocated (tensors) counters */
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
 * (runtime "_" keys left out): the `sheet` result's payload. views, when not
 * NULL, are the sheet's component views (vs_component_views_read, of this
 * sheet as it is now): a cell's verbs share them rather than each reading
 * every component again; NULL reads each here. */
void vs_sheet_fields_write(const json_t *sheet, const vs_component_views *views, vs_jw *w);

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
 * *view (when not NULL) its view and *at (when not NULL) its position among
 * the components, so that the caller need not look it up or read it again. A
 * component that already holds exactly these fields is kept as it is (*out is
 * that object): a cell run again rebuilds nothing. */
typedef struct vs_component_words {
    /* A JSON string of word (borrowed), or NULL for none (the function may be
     * NULL: every string is made anew) */
    json_t *(*word)(void *data, const char *word);
    void *data;
    /* The view of c, component at of the sheet, when the caller holds one
     * read from that very object (NULL: none; the function may be NULL): a
     * cell run again finds each of its components stored, and reading the
     * stored one's keys back was a third of keeping it. */
    const vs_component_view *(*view)(void *data, size_t at, const json_t *c);
    /* Where the name is looked for first (its place is checked by name): the
     * place after the caller's last component. A cell run again declares its
     * components in the order they are stored, so this spares the index's
     * hashed lookup; any other place falls back to it. */
    size_t hint;
    /* 1 when the name and the strings given with words are already known to
     * be UTF-8 without NUL (a parsed cell's words: the parser checks the
     * whole cell before reading it), so that they are not checked again:
     * two checks a `reserve` line. 0: each is checked, and a bad one fails. */
    int checked;
} vs_component_words;
/* words (may be NULL): where the strings come from that many components
 * share, their status and class (a cell's `reserve` lines): a component
 * built holds the string words gives for its status and its class, when it
 * gives one, rather than a copy of its own (strings are shared, never
 * edited: util/json.h). Asked only when a component is built, not when one
 * that holds these fields is kept. */
int vs_sheet_put_component(json_t **out, vs_component_view *view, size_t *at, json_t *sheet,
                           const vs_component_words *words, const char *name, int known,
                           uint64_t bytes, const char *status, const char *source,
                           const char *phase, const char *cls, vs_error *err);

/* Replaces component i by a copy of it with key set to value (taken): a
 * stored component is never edited in place, so that snapshots sharing it
 * keep what they saw. For keys beyond the six of the layout ("derived").
 * Returns 0 or VS_ENOMEM. */
int vs_sheet_component_with(json_t *sheet, size_t i, const char *key, json_t *value_take);

/* Position of the component named name among the sheet's components, or -1:
 * the lookup vs_sheet_component makes, for vs_sheet_component_with and
 * vs_sheet_remove_component. */
long vs_sheet_component_index(const json_t *sheet, const char *name);

/* Removes component i (json_array_remove's result). */
int vs_sheet_remove_component(json_t *sheet, size_t i);

/* The card's generation: a count in a runtime key ("_card_gen") that every
 * writer of the card or the placement moves with vs_sheet_card_touch, so that
 * what follows the card (lang/derive.c) learns whether it moved from one
 * integer (the count and, in its low bit, whether it was seen) instead of
 * comparing documents after every line. A sheet made or loaded elsewhere has
 * no count: vs_sheet_card_unseen says 1 until vs_sheet_card_saw. When the
 * count cannot be written (memory), the key goes, which reads as unseen:
 * never a stale "nothing moved". */
void vs_sheet_card_touch(json_t *sheet);
/* 1 unless vs_sheet_card_saw ran since the last touch. */
int vs_sheet_card_unseen(const json_t *sheet);
/* Notes the generation in force as seen. */
void vs_sheet_card_saw(json_t *sheet);

/* What is derived from the rest of the sheet (validation, estimate reads,
 * stale measured components, evidence the card moved past): sheet/derived.h. */

#endif
