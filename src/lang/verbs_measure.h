/* verbs_measure.h — inside the measurement verbs (vs_verbs_measure): what
 * their files share. Not part of the language's contract: only the
 * verbs_measure*.c, verbs_measure_import.c and verbs_measure_record.c files include it.
 *
 * The verbs turn src/measure/'s results, imported logs and typed figures into
 * the sheet's "runs" and "measurements" (layout in sheet/sheet.h); how those
 * are shown is render/measure.h's and render/gauge.h's. The files:
 *   verbs_measure.c        `measure` and `%%measure`: a run recorded, or
 *                          restating an earlier one; the verb table
 *   verbs_measure_live.c   a running measurement: its gauge and its output
 *   verbs_measure_sheet.c  run ids, stages, measurement objects, payload rows
 *   verbs_measure_import.c         `measure import`
 *   verbs_measure_record.c         `record`, `measured`, `measurements`
 */
#ifndef VS_LANG_VERBS_MEASURE_H
#define VS_LANG_VERBS_MEASURE_H

#include <stddef.h>
#include <stdint.h>

#include "lang/verb.h"
#include "measure/measure.h"
#include "render/gauge.h"
#include "sheet/sheet_access.h"

/* ------------------------------------------------- the sheet's measurements */

/* The executed dims written on a `record` or `measure` line into dims: each of
 * the card's dimensions (sheet/sheet_access.h's vs_sheet_card_dims) as KEY=N, and resolution=WxH
 * for width and height. 0, or VS_EVALUE at the key (VS_ENOMEM). */
int vs_verbs_measure_line_dims(const vs_line *line, json_t *dims, vs_error *err);

/* A new JSON string of s, or null when s is NULL or empty. */
json_t *vs_verbs_measure_str_or_null(const char *s);

/* The sheet's next run id into out: m1, m2, ... after the largest in use. */
void vs_verbs_measure_next_run_id(const json_t *sheet, char *out, size_t n);

/* The sheet's array under key (borrowed), made empty when absent; NULL when
 * memory is short. */
json_t *vs_verbs_measure_ensure_array(json_t *sheet, vs_sheet_key key);

/* The first of the sheet's stages whose declared dims all equal the executed
 * ones (borrowed name), or NULL. */
const char *vs_verbs_measure_match_stage(const json_t *sheet, const json_t *dims);

/* A new measurement object as the layout has it. run, gpu_name, stage and
 * host may be NULL (stage NULL: the stage its dims match); gpu and rank
 * only when gpu_known and rank_known (null in the record otherwise); at in
 * wall milliseconds. Takes dims_take (NULL: returns NULL).
 * NULL when memory is short. */
json_t *vs_verbs_measure_measurement_new(const json_t *sheet, const char *run, const char *phase,
                                         int gpu_known, unsigned gpu, const char *gpu_name,
                                         const char *counter, const char *scope, uint64_t peak,
                                         json_t *dims_take, const char *stage, const char *host,
                                         int rank_known, unsigned rank, int64_t at);

/* ------------------------------------------------------ a running measure */

/* The gauge's last state, kept so that a run that restates an earlier one
 * can name that run in the gauge too. */
typedef struct vs_mv_gauge_snap {
    vs_gauge g;
    vs_gauge_gpu *gpus;
    char (*names)[128];
    char state[24], phase[64], why[160];
} vs_mv_gauge_snap;

/* One measure's live side: the gauge it displays and updates, and the
 * command's output streamed as text. */
typedef struct vs_mv_gauge {
    vs_ctx *ctx;
    char id[96];
    char run[32];
    vs_mv_gauge_snap snap;   /* gpus NULL until the run ended */
    int envelope_known;      /* the sheet has an envelope: the gauge's mark */
    uint64_t envelope_bytes; /* the sheet's, per GPU, when envelope_known */
    int shown;
    /* UTF-8 carried between reads, per stream */
    char carry[3][4];
    size_t ncarry[3];
} vs_mv_gauge;

/* Sets gz up for run (a display id unique within the kernel) and hooks its
 * callbacks into o: output, ticks, the end, interrupts, bad phase lines. The
 * envelope marks the gauge when envelope_known. */
void vs_mv_gauge_start(vs_mv_gauge *gz, vs_ctx *ctx, const char *run, int envelope_known,
                       uint64_t envelope_bytes, vs_measure_options *o);

/* The output still carried (a sequence the end cut), streamed. */
void vs_mv_gauge_flush(vs_mv_gauge *gz);

/* The gauge shown again in its last state, naming the run it restates. */
void vs_mv_gauge_restated(vs_mv_gauge *gz, const char *run);

/* Frees what the gauge kept. */
void vs_mv_gauge_clear(vs_mv_gauge *gz);

/* ------------------------------------------------------------- the verbs */

/* `measure import FILE... [format=...]` (verbs_measure_import.c). */
int vs_verb_measure_import(vs_ctx *ctx, const vs_line *line, vs_error *err);
/* The same, every imported measurement joining the sheet's run run_id (no run
 * added): `measure launch` puts the engine's lines into NVML's run. */
int vs_verb_measure_import_into(vs_ctx *ctx, const vs_line *line, const char *run_id,
                                vs_error *err);
/* `measure launch [OFFER]`: the offer's launch command measured, then its
 * output read by the engine's importer (verbs_measure_launch.c). */
int vs_verb_measure_launch(vs_ctx *ctx, const vs_line *line, vs_error *err);

/* `record`, `measured`, `measurements` and their keys (verbs_measure_record.c). */
int vs_verb_record(vs_ctx *ctx, const vs_line *line, vs_error *err);
int vs_verb_measured(vs_ctx *ctx, const vs_line *line, vs_error *err);
int vs_verb_measurements(vs_ctx *ctx, const vs_line *line, vs_error *err);
extern const char *const vs_verbs_measure_record_keys[];
extern const char *const vs_verbs_measure_measured_keys[];

#endif
