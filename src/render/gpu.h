/* gpu.h (render) — what the GPU verbs say: an offer (`gpu`), the catalogue
 * (`gpus`), the mandatory requirements (`require`) and a piece of evidence
 * recorded (`evidence`).
 *
 * The verbs (lang/verbs_gpu.c) read the line, fill the sheet and build the
 * payloads; this module writes the text/plain and text/html of each result
 * into two buffers the verb then emits. The `candidates` table is
 * render/candidates'. Pure: no I/O.
 */
#ifndef VS_RENDER_GPU_H
#define VS_RENDER_GPU_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "catalog/catalog.h"
#include "render/bundle.h"
#include "sheet/classify.h"
#include "util/buf.h"

/* An offer as `gpu` stored it, borrowed. */
typedef struct vs_gpu_offer_facts {
    const char *name;
    const vs_gpu_spec *spec; /* the catalogue entry it used, or NULL */
    int memory_known;
    uint64_t memory_bytes; /* nominal, as marketed */
    int reported_known;
    uint64_t reported_bytes; /* the device-reported total */
    const char *reported_basis;
    const char *price;                             /* exact decimal, or NULL */
    const char *currency;                          /* with price */
    const char *period, *available, *interconnect; /* NULL when not given */
    uint64_t cards;
} vs_gpu_offer_facts;

/* The offer: nominal memory, reported total, the basis of the capacity
 * check, the package, the schedule, the formats the catalogue knows, then
 * the notes (an array of strings) as a list; the payload (kind "offer") the
 * offer as the sheet stores it (borrowed), its catalogue entry and the notes.
 * NULL when memory is short. */
vs_bundle *vs_render_gpu_offer(const vs_gpu_offer_facts *f, const json_t *offer,
                               const json_t *notes);

/* The notes of an offer, each written into note (appended): the verb keeps
 * them in the offer's payload and vs_render_gpu_offer lists them. */

/* The name is not in the catalogue (why: the catalogue's message) and the
 * memory was declared on the line. */
void vs_render_gpu_note_uncatalogued(vs_buf *note, const char *why);

/* memory= is not the catalogue entry's (catalog: its name) nominal figure,
 * so the entry's device-reported total is not used. */
void vs_render_gpu_note_nominal_differs(vs_buf *note, const char *catalog);

/* The card's format (its name) is one the catalogue entry (catalog) says
 * the GPU does not support. */
void vs_render_gpu_note_format_unsupported(vs_buf *note, const char *format, const char *catalog);

/* What an offer never proves, the last note of every offer. */
void vs_render_gpu_note_proves_nothing(vs_buf *note);

/* The catalogue's entries specs[0..n): one row each, then where the reported
 * totals are unknown and which CUDA totals are known; the payload (kind
 * "catalog") every entry with its sources. NULL when memory is short. */
vs_bundle *vs_render_gpu_catalogue(const vs_gpu_spec *specs, size_t n);

/* `require`: the requirement added (or already there, was_new 0) and the
 * sheet's mandatory requirements (names, an array of strings, borrowed), in
 * the text and the payload (kind "requirements"). NULL when memory is short. */
vs_bundle *vs_render_requirements(const char *added, int was_new, const json_t *names);

/* `evidence`: the piece recorded (entry: candidate, requirement, verdict,
 * source, version, scope) and, when found in c, what requirement r of row is
 * now and whether the candidate is retained (row and r may be NULL); the
 * payload (kind "evidence") the entry and both verdicts, given (the line's
 * verdict) when r is NULL. NULL when memory is short. */
vs_bundle *vs_render_evidence(const json_t *entry, const vs_classification *c,
                              const vs_classify_row *row, const vs_classify_req *r,
                              const char *given);

#endif
