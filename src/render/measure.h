/* measure.h (render) — how the measurement verbs are shown: the table of
 * measurements (phase, GPU, counter, scope, peak, executed dims, stage,
 * whether it validates the card), a measured run's result, a measurement
 * typed by hand, an import, the sheet's list of measurements, and a reserve
 * component made measured; each as text/plain and text/html appended to two
 * buffers.
 *
 * Pure: no I/O. The verbs decide (what validates the card, which earlier run
 * a run restates, what a component's source reads) and hand the facts here;
 * measurements are the sheet's JSON objects, as its layout has them
 * (sheet/sheet.h). A measured run's result is built here whole, payload
 * included; the other payloads stay with the verbs.
 */
#ifndef VS_RENDER_MEASURE_H
#define VS_RENDER_MEASURE_H

#include <jansson.h>
#include <stdint.h>

#include "render/bundle.h"
#include "util/buf.h"

/* What a measured run's result shows, besides its measurements. Strings are
 * borrowed; "" and NULL read the same. */
typedef struct vs_measure_run_view {
    const char *run;  /* the run shown: the new one, or the earlier one it restates */
    int restates;     /* 1: the run gave the result of `run`; nothing was recorded */
    const char *host; /* "": this host */
    const char *command;
    int64_t elapsed_ms;
    int exit_status;
    int term_signal;
    int timed_out;
    const char *overflow_phase; /* the phase it ran out of memory in; "": none */
    const char *oom_pattern;    /* the message that said so */
    const char *triage;         /* what to examine for that phase */
    int process_available;      /* the driver listed processes */
    int process_attributed;     /* ... and some were the command's */
    unsigned foreign_pids;      /* processes listed, none of the command's */
    const char *not_valid_why;  /* why it does not validate the card; NULL: it does */
    int leftovers;              /* processes of its group that were ended */
    int bad_lines;              /* phase lines ignored */
    const char *first_bad_line;
    const char *driver, *nvml_version; /* "": unknown */
    uint64_t samples;
    int interval_ms;
    int64_t max_gap_ms;
    /* the payload's versions and sampler figures, beside the text's */
    const char *memory_api, *process_api;
    int64_t cpu_ns;
    uint64_t errors;
} vs_measure_run_view;

/* Adds to why (the reasons a run does not validate the card, "; "-separated)
 * that the run did not complete: it failed or overflowed. */
void vs_render_measure_incomplete(vs_buf *why);

/* A measured run: its head, how the command ended, the out-of-memory
 * advice, the table of rows (the measurements recorded, or restated), the
 * scope notes, process memory, the card check, and the sampler's figures.
 * 0 or VS_ENOMEM. */
int vs_render_measure_run(vs_buf *text, vs_buf *html, const vs_measure_run_view *v,
                          const json_t *rows);

/* A measured run's result whole: the text and HTML above and the payload
 * (kind "measurement": the run, its rows as vs_render_measure_payload_row
 * writes them, how the command ended, the card check, gpus (an array of
 * {index, name, uuid, total_bytes, total_basis, cuda_total_bytes}, borrowed),
 * the versions and the sampler's figures; restates when v->restates). NULL
 * when memory is short. */
vs_bundle *vs_render_measure_result(const vs_measure_run_view *v, const json_t *rows,
                                    const json_t *gpus);

/* A measurement as the payloads list it: phase, gpu, gpu_name, counter,
 * scope, peak_bytes, dims, stage, validates_card, run. New object. */
json_t *vs_render_measure_payload_row(const json_t *m);

/* A measurement typed by hand (`record`): again says it was already on the
 * sheet; not_valid_why (NULL when it validates the card) says why not.
 * 0 or VS_ENOMEM. */
int vs_render_measure_record(vs_buf *text, vs_buf *html, const json_t *m, int again,
                             const char *not_valid_why);

/* `record`'s result whole: the text and HTML above and the payload (kind
 * "measurement", m its one row). NULL when memory is short. */
vs_bundle *vs_render_measure_record_result(const json_t *m, int again, const char *not_valid_why);

/* The measurements an import brought (or restated, when restated is set),
 * from nfiles files of nlines non-empty lines. 0 or VS_ENOMEM. */
int vs_render_measure_import(vs_buf *text, vs_buf *html, const json_t *rows, int restated,
                             size_t nfiles, size_t nlines);

/* An import's result whole: the text and HTML above and the payload (kind
 * "measurement": each row as vs_render_measure_payload_row writes it with the
 * log's text, resolution, value, unit and engine version; what was imported:
 * files, lines and nruns new runs). NULL when memory is short. */
vs_bundle *vs_render_measure_import_result(const json_t *rows, int restated, size_t nfiles,
                                           size_t nlines, size_t nruns);

/* The sheet's measurements (ms, an array), numbered #1.. as `measured
 * from=#N` takes them; valid[i] says whether the i-th validates the card as it
 * is now. 0 or VS_ENOMEM. */
int vs_render_measurements(vs_buf *text, vs_buf *html, const json_t *ms, const int *valid);

/* `measurements`' result whole: the text and HTML above and the payload (kind
 * "measurement", a row each, validates_card as valid[i] says). NULL when
 * memory is short. */
vs_bundle *vs_render_measurements_result(const json_t *ms, const int *valid);

/* A reserve component made measured (`measured`): its bytes and source;
 * log_item when the figure is an engine log's start-up figure, scope the
 * measurement's (a device or process peak covers the weights too). Text
 * only. */
void vs_render_measured_component(vs_buf *text, const char *name, uint64_t bytes,
                                  const char *source, int log_item, const char *scope);

/* `measured`'s result whole: the text above and the payload (kind
 * "component": name, bytes, status measured, source, validates_card unless
 * log_item). Text only, no HTML. NULL when memory is short. */
vs_bundle *vs_render_measured_component_result(const char *name, uint64_t bytes, const char *source,
                                               int log_item, const char *scope);

/* `measured weights`: the weights made the loader's figure (format the
 * card's, NULL when not set; source what it came from), text only, and the
 * payload (kind "component", name weights). NULL when memory is short. */
vs_bundle *vs_render_measured_weights(const char *format, uint64_t bytes, const char *source);

#endif
