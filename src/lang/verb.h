/* verb.h — how a verb of the language is defined, and what it may touch.
 *
 * Each group of verbs lives in its own file (src/lang/verbs_<group>.c) and
 * exports a table ending with a {NULL} entry; src/lang/verbs.c lists the tables.
 * A verb reads its parsed line, changes the session's sheets through the
 * context, and emits results (MIME bundles) through the context. It never
 * talks to the transport: it does not know a kernel exists.
 *
 * Atomicity: the interpreter copies a sheet before the first verb of a cell is
 * handed it (vs_ctx_sheet, vs_ctx_find_sheet, vs_ctx_open_sheet; every sheet
 * for vs_ctx_sheets) and puts the copies back when any line fails, so a verb
 * may change the sheet and then fail. A verb reaches sheets only through
 * these.
 * Verbs with effects outside the kernel (commit, measure, push) report them with
 * vs_ctx_effect() so a later error can say what was kept.
 */
#ifndef VS_LANG_VERB_H
#define VS_LANG_VERB_H

#include <jansson.h>
#include <stdint.h>

#include "lang/interp.h"
#include "lang/parse.h"
#include "util/buf.h"
#include "util/error.h"

typedef struct vs_ctx vs_ctx;
struct vs_component_view; /* sheet/sheet.h */

typedef int (*vs_verb_fn)(vs_ctx *ctx, const vs_line *line, vs_error *err);

/* What a verb tells the interpreter and completion about itself, so that
 * neither keeps lists of verb names. */
enum {
    /* opens, loads or changes sheets other than the current one: after it,
     * every open sheet follows its card */
    VS_VERB_OPENS_SHEETS = 1u << 0,
    /* its first argument is an open sheet's id (completion) */
    VS_VERB_SHEET_ID = 1u << 1,
    /* its first argument is a sheet or a record, SHEET or SHEET@REV (completion) */
    VS_VERB_SHEET_REV = 1u << 2,
    /* its first argument is a GPU name (completion: the offers, the catalogue) */
    VS_VERB_GPU_NAME = 1u << 3,
    /* its arguments are weights formats (completion) */
    VS_VERB_FORMAT_ARGS = 1u << 4,
    /* its help page lists every weights format and scheme */
    VS_VERB_LISTS_FORMATS = 1u << 7,
    /* its first argument is a verb (completion) */
    VS_VERB_VERB_ARG = 1u << 5,
    /* it records an estimate with what it read from the card (lang/derive.h):
     * the card is not followed after its own line */
    VS_VERB_DERIVES = 1u << 6
};

/* What a registry (the estimators, the log importers, the model families)
 * gives a verb whose words, forms, values or help come from its rows: a new
 * row shows in completion and help without touching the verb. Each slot may
 * be NULL. */
typedef struct vs_verb_registry {
    /* The i-th first word (`estimate kv`), NULL past the end. */
    const char *(*word)(size_t i);
    /* The i-th key of the form first word word (n bytes, one of the words)
     * picks, NULL past the end. */
    const char *(*form_key)(const char *word, size_t n, size_t i);
    /* The i-th value key= (klen bytes) takes, NULL past the end or when the
     * key's values are not the registry's. */
    const char *(*value)(const char *key, size_t klen, size_t i);
    /* Appends to the verb's help what the rows say (each row's summary). */
    void (*help)(vs_buf *out);
} vs_verb_registry;

typedef struct vs_verb {
    const char *name; /* "estimate" */
    vs_verb_fn run;
    const char *syntax;       /* "estimate kv layers=L kv_heads=H head_dim=D [dtype=fp16]" */
    const char *summary;      /* one line, for `help` */
    const char *help;         /* meaning, formula and source: the text inspect shows */
    const char *const *keys;  /* the key= names it accepts, NULL-terminated (completion) */
    const char *const *words; /* first words it accepts (sub-verbs, formats), NULL-terminated */
    unsigned flags;           /* VS_VERB_* */
    const vs_verb_registry *registry; /* NULL, or where its words, forms and help come from */
} vs_verb;

/* The i-th first word of v: its words, then its registry's; NULL past the end. */
const char *vs_verb_word(const vs_verb *v, size_t i);

/* The tables of the verb groups, each ending with {NULL}. */
extern const vs_verb vs_verbs_core[];    /* help, convert, sheet, ...: src/lang/verbs_core.c */
extern const vs_verb vs_verbs_sizing[];  /* card, reserve, estimate, envelope: verbs_sizing.c */
extern const vs_verb vs_verbs_gpu[];     /* gpu, require, evidence, candidates: verbs_gpu.c */
extern const vs_verb vs_verbs_records[]; /* commit, history, show, diff, ...: verbs_records.c */
extern const vs_verb vs_verbs_measure[]; /* measure, record, probe import: verbs_measure.c */
extern const vs_verb vs_verbs_engine[];  /* engine, fit: verbs_engine.c */
extern const vs_verb vs_verbs_launch[];  /* launch: verbs_launch.c */
/* `compare` (a row of vs_verbs_measure): src/lang/verbs_compare.c */
int vs_verb_compare(vs_ctx *ctx, const vs_line *line, vs_error *err);
extern const char *const vs_verb_compare_keys[];

/* The verb named name across all tables, or NULL. */
const vs_verb *vs_verb_find(const char *name);
/* Calls fn for every verb of every table, in order. */
void vs_verb_each(void (*fn)(const vs_verb *verb, void *data), void *data);
/* The group a verb belongs to ("core", "sizing", "gpu", "records", "measure"),
 * or NULL when verb is not in any table. Static string. */
const char *vs_verb_group(const vs_verb *verb);
/* Up to max names of verbs close to name (typos: edit distance, prefixes), best
 * first, into out (borrowed static names). Returns how many. */
size_t vs_verb_suggest(const char *name, const char **out, size_t max);
/* The help of a verb as a MIME bundle (syntax, summary, help, keys, words; payload
 * kind "help"), as `help VERB` and inspect show it. New reference or NULL. */
vs_bundle *vs_verb_help_bundle(const vs_verb *verb);

/* --- the context a verb runs in (implemented by src/lang/verb_ctx.c) --- */

/* The current sheet (borrowed). When none is open yet, opens one titled
 * "untitled". NULL only when memory is short. */
json_t *vs_ctx_sheet(vs_ctx *ctx);
/* Opens the sheet titled title (creating it when no sheet of that id exists in
 * the session) and makes it current. Returns 0 or a negative code. */
int vs_ctx_open_sheet(vs_ctx *ctx, const char *title, json_t **out_sheet, vs_error *err);
/* Adds a sheet built elsewhere (reproduce, show) to the session and makes it
 * current; takes the reference. base_blob: the sheet.json blob it was loaded
 * from (NULL for a sheet the records do not hold yet), vs_ctx_base_blob's.
 * Fails with VS_EVALUE if its id is taken. */
int vs_ctx_add_sheet(vs_ctx *ctx, json_t *sheet_take, const char *base_blob, vs_error *err);
/* The records as the open sheet id last saw them: the sheets/<id>/sheet.json
 * blob it was loaded from or last committed as, that a commit compares against
 * to tell a concurrent change from its own history (borrowed), or NULL. Kept by
 * the session beside the sheet, never in its document. */
const char *vs_ctx_base_blob(vs_ctx *ctx, const char *id);
/* Sets it (blob copied; NULL clears). 0, or VS_ENOMEM. A change outside the
 * kernel: a cell that fails after it keeps it. */
int vs_ctx_set_base_blob(vs_ctx *ctx, const char *id, const char *blob);
/* The session's sheet of that id (borrowed), or NULL. */
json_t *vs_ctx_find_sheet(vs_ctx *ctx, const char *id);
/* The session's sheets (borrowed array); every one is copied first. */
json_t *vs_ctx_sheets(vs_ctx *ctx);
/* How many sheets are open, reaching none. */
size_t vs_ctx_sheet_count(vs_ctx *ctx);
/* The views of sheet's components (sheet/sheet.h), kept for the cell: all
 * read again when a component was added or removed since, only the replaced
 * ones when each is in its place. Borrowed: valid until the next call (or the
 * end of the cell). NULL when memory is short. */
const struct vs_component_views *vs_ctx_component_views(vs_ctx *ctx, const json_t *sheet);
/* A verb that stored component at position at of a sheet (`reserve`) hands
 * on its view (vs_sheet_put_component's): the next vs_ctx_component_views
 * takes it instead of reading the component again, while that object is
 * still in that place. Best effort (memory): the view is read then. */
void vs_ctx_component_stored(vs_ctx *ctx, size_t at, json_t *component,
                             const struct vs_component_view *view);
/* The view the cell holds of component, at position at of a sheet, read from
 * that very object (the last vs_ctx_component_views), or NULL: a cell run
 * again finds each `reserve` component stored and read by its `sheet` line. */
const struct vs_component_view *vs_ctx_component_held(vs_ctx *ctx, size_t at,
                                                      const json_t *component);
/* The session's results kept between runs (render/result_memo.h), made at
 * the first call; NULL when memory is short (nothing is kept then). */
struct vs_result_memo *vs_ctx_results(vs_ctx *ctx);
/* The place after the component a verb stored last (vs_ctx_component_stored),
 * 0 before any: where the next `reserve` of a cell run again finds its own. */
size_t vs_ctx_component_next(const vs_ctx *ctx);
/* A JSON string of word, one of a vocabulary's (a status, a class: sheet/
 * vocab.h), made once for the cell and borrowed: a long reserve's components
 * share it (vs_component_words) instead of a copy each. NULL when memory is
 * short or the cell holds as many words as it keeps. */
json_t *vs_ctx_word(vs_ctx *ctx, const char *word);
/* The cell's budget chart memo (render/svg.h): `envelope` and `candidates`
 * draw through it, so the second draws nothing when the chart would be the
 * same. Freed when any component view changes (vs_ctx_component_views): its
 * key holds their texts by address. */
struct vs_svg_memo *vs_ctx_chart_memo(vs_ctx *ctx);

/* Sets whether results are dropped (on != 0) rather than emitted, returning
 * the previous setting: an estimator run again after a card change computes
 * and stores without speaking; derive.c says what changed, once. */
int vs_ctx_quiet(vs_ctx *ctx, int on);
/* Emits a result bundle (takes the reference). The interpreter publishes every
 * result but the cell's last as display_data as soon as the next one arrives. */
void vs_ctx_emit(vs_ctx *ctx, vs_bundle *bundle_take);
/* Streams text to the notebook now (stdout/stderr). */
void vs_ctx_stream(vs_ctx *ctx, const char *name, const char *text, size_t len);
/* Publishes or updates a display with an id now (live gauges). */
void vs_ctx_display(vs_ctx *ctx, const vs_bundle *bundle, const char *display_id, int update);
/* Non-zero once the person asked to interrupt. */
int vs_ctx_interrupted(vs_ctx *ctx);
/* Asks the person for a line of text; see vs_sink.input. */
int vs_ctx_input(vs_ctx *ctx, const char *prompt, char **out, vs_error *err);
/* Notes an effect outside the kernel that stays even if the cell fails later
 * ("committed llama@3f2a... to records"). */
void vs_ctx_effect(vs_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The records repository path in force: `records PATH`, else VRAMSHEET_RECORDS,
 * else the per-user default. Borrowed. */
const char *vs_ctx_records_path(vs_ctx *ctx);
void vs_ctx_set_records_path(vs_ctx *ctx, const char *path);

/* `hub offline` for this session (model/hfhub.h): 1 when set. */
int vs_ctx_hub_offline(vs_ctx *ctx);
void vs_ctx_set_hub_offline(vs_ctx *ctx, int on);

/* VS_EVALUE at the first positional argument past the first `keep`, quoting
 * the verb's syntax; 0 when there is none. */
int vs_line_no_extra(const vs_line *line, size_t keep, const char *syntax, vs_error *err);

/* When rc < 0 and a is not NULL, points err at a (at its value, for a pair).
 * Returns rc, so that `return vs_arg_error(a, err, rc)` reads naturally. */
int vs_arg_error(const vs_arg *a, vs_error *err, int rc);

/* Small helpers shared by verbs: reject unknown keys (VS_EVALUE naming the
 * accepted ones, at the key's column), read an integer/bytes/count key. */
int vs_line_check_keys(const vs_line *line, const char *const *allowed, vs_error *err);
/* vs_line_check_keys, and each allowed key's pair in one walk of the line:
 * found[k] is the pair of allowed[k] (NULL-terminated, not NULL itself), or
 * NULL; found has room for every allowed key. For a verb that reads several
 * keys (`reserve`, every line of a long sheet), where a vs_line_pair each
 * walked the line again. */
int vs_line_take_keys(const vs_line *line, const char *const *allowed, const vs_arg **found,
                      vs_error *err);
int vs_line_get_uint(const vs_line *line, const char *key, int required, uint64_t *out,
                     int *present, vs_error *err);
int vs_line_get_bytes(const vs_line *line, const char *key, int required, uint64_t *out,
                      int *present, vs_error *err);
int vs_line_get_count(const vs_line *line, const char *key, int required, uint64_t *out,
                      int *present, vs_error *err);

#endif
