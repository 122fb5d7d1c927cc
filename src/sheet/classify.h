/* classify.h — classifying GPU offers against the sheet's mandatory requirements.
 *
 * Each offer of the sheet ("offers") is a candidate; each mandatory requirement
 * gets a verdict for it: admissible (a piece of evidence confirms
 * it within its scope), to-confirm (evidence missing), exclude (an established
 * failure prevents the workload). The requirements are:
 *   - capacity, built in: the per-GPU envelope (after the placement) against one
 *     card's capacity, on the device-reported bytes when known, else on the
 *     nominal bytes (the row says which basis; the rule is vs_offer_capacity's,
 *     sheet/capacity.h). exclude when the known part of the envelope already
 *     exceeds the capacity (on a nominal basis: exceeds even the nominal figure
 *     read in binary units, 80 GB as 80 GiB; in between it is to-confirm, naming
 *     the missing device-reported total), or when the placement needs more GPUs
 *     than the offer has (also a note of its own); admissible when every component and the weights
 *     are known and the envelope fits; to-confirm when it fits so far but
 *     something is unknown, or the capacity itself is unknown;
 *   - what the card implies: length, concurrency (inference) or microbatch
 *     (training tasks) — for image and video generation resolution, batch and
 *     (video) frames instead —, available-memory (memory actually free on the device),
 *     compatibility (software), quality; to-confirm until evidence says otherwise;
 *   - the sheet's declared "requirements" (`require`).
 * Evidence decides a verdict: any exclude excludes; else any admissible admits;
 * computed capacity exclusions are never lifted by evidence (a preference or a
 * document never offsets an eliminating criterion).
 *
 * A candidate is retained only when every requirement is admissible. Retained
 * candidates are ranked by total package cost (the offer's price, compared as
 * exact decimals, only within one currency), then useful margin (capacity minus
 * per-GPU envelope, larger first), then documented schedule (an offer with a
 * documented `available` before one without; two ISO dates, earlier first;
 * `now` first; anything that is not `now` or a real YYYY-MM-DD counts as not
 * documented, so the order is total);
 * equal keys share a rank. When retained candidates cannot all be compared by
 * cost (different currencies, a missing price) none is ranked and a note says
 * why. Several cards count only through a placement on that many GPUs: a card
 * beyond the placement adds nothing, and a note says so. Prices are never a
 * measure of speed.
 *
 * The model says why with codes and the figures they need (vs_classify_why,
 * vs_classify_note, vs_classify_ask); it writes no prose: the words of the
 * reasons, the notes and the labels, GiB and GB amounts included, are
 * render/candidates.c's. Pure: no I/O, no globals. The envelope is an input
 * (vs_envelope_compute).
 */
#ifndef VS_SHEET_CLASSIFY_H
#define VS_SHEET_CLASSIFY_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "sheet/envelope.h"
#include "sheet/placement.h"
#include "sheet/vocab.h"
#include "util/error.h"

/* The verdicts are sheet/vocab.h's vocabulary, value for value. */
typedef enum {
    VS_VERDICT_ADMISSIBLE = VS_VOCAB_VERDICT_ADMISSIBLE,
    VS_VERDICT_TO_CONFIRM = VS_VOCAB_VERDICT_TO_CONFIRM,
    VS_VERDICT_EXCLUDE = VS_VOCAB_VERDICT_EXCLUDE
} vs_verdict;

/* "admissible", "to-confirm", "exclude": vs_vocab_verdict_name's. */
const char *vs_verdict_name(vs_verdict v);
/* Parses those names ("to confirm" and "to_confirm" too, any case), as
 * vs_vocab_verdict_parse does. Returns 0 or VS_EVALUE naming the three. */
int vs_verdict_parse(vs_verdict *out, const char *text, vs_error *err);

/* Why a requirement has its verdict. The model gives the code and the
 * figures; the words are render/candidates.c's (vs_candidates_why_text). */
typedef enum {
    VS_WHY_NO_EVIDENCE = 0,      /* nothing computed and no evidence yet */
    VS_WHY_EVIDENCE_EXCLUDES,    /* a piece of evidence excludes */
    VS_WHY_EVIDENCE_ADMITS,      /* a piece of evidence confirms */
    VS_WHY_EVIDENCE_MOVED,       /* the evidence was given under another card (text: the change) */
    VS_WHY_CAP_TOO_FEW_CARDS,    /* exclude: the placement needs gpus GPUs, the offer has cards */
    VS_WHY_CAP_UNKNOWN,          /* to-confirm: neither the nominal nor the reported memory */
    VS_WHY_CAP_EXCEEDS,          /* exclude: need over a device-reported capacity by margin */
    VS_WHY_CAP_EXCEEDS_NOMINAL,  /* exclude: need over a nominal capacity and binary_bytes */
    VS_WHY_CAP_NOMINAL_UNSURE,   /* to-confirm: need over a nominal capacity, within binary_bytes */
    VS_WHY_CAP_FITS_UNKNOWN,     /* to-confirm: the known part fits by margin; parts unknown */
    VS_WHY_CAP_FITS_STALE,       /* to-confirm: fits by margin, but a measurement is stale */
    VS_WHY_CAP_FITS,             /* admissible: every component known, fits by margin */
    VS_WHY_HOST_UNKNOWN_WEIGHTS, /* to-confirm: offloaded, but the weights are unknown */
    VS_WHY_HOST_UNKNOWN, /* to-confirm: offloaded weights need_bytes; no host= on the offer */
    VS_WHY_HOST_EXCEEDS, /* exclude: offloaded need_bytes over host capacity_bytes by margin */
    VS_WHY_HOST_FITS,    /* admissible: offloaded need_bytes within capacity_bytes */
    VS_WHY_ENGINE_START, /* under an engine: budget, KV pool (text: the fit's own note) */
    VS_WHY_ENGINE_CONCURRENCY, /* under an engine: requests of the card's length the pool holds */
    VS_WHY_ENGINE_LENGTH       /* under an engine: the longest sequence at the card's concurrency */
} vs_classify_why_code;

typedef struct vs_classify_why {
    vs_classify_why_code code;
    int not_offset;          /* admissible evidence left a computed exclusion in place */
    unsigned gpus, cards;    /* CAP_TOO_FEW_CARDS */
    uint64_t need_bytes;     /* CAP_*: the per-GPU envelope (its known part) */
    uint64_t capacity_bytes; /* CAP_*: one card's capacity (the row's basis) */
    uint64_t margin_bytes;   /* CAP_EXCEEDS*, NOMINAL_UNSURE: need - capacity; FITS*: the reverse */
    uint64_t binary_bytes;   /* CAP_EXCEEDS_NOMINAL, NOMINAL_UNSURE: nominal read in binary units */
    const char *engine;      /* ENGINE_*: the engine's name (static) */
    uint64_t budget_bytes;   /* ENGINE_START */
    uint64_t kv_pool_bytes;  /* ENGINE_START: 0 when the non-KV part exceeds the budget */
    double max_concurrency;  /* ENGINE_CONCURRENCY */
    uint64_t max_length;     /* ENGINE_LENGTH: tokens */
    int upper_bound;         /* ENGINE_*: some items are unknown, the figures are upper bounds */
    char *text;              /* ENGINE_START, EVIDENCE_MOVED (see above), or NULL; owned */
} vs_classify_why;

/* What a built-in requirement asks, from the card (the words are
 * render/candidates.c's, vs_candidates_label_text): length, concurrency,
 * frames, batch: value; microbatch: value and the accumulation in value2;
 * resolution: width and height; compatibility: the card's format in text;
 * quality: its criterion in text. Each known flag says the card declares it. */
typedef struct vs_classify_ask {
    int known, known2;
    uint64_t value, value2;
    char *text; /* owned, or NULL */
} vs_classify_ask;

typedef struct vs_classify_req {
    char *name;          /* "capacity", "length", ..., or the declared text */
    int builtin;         /* 1 for capacity and the card's requirements */
    vs_classify_ask ask; /* built-ins: what it asks */
    vs_verdict verdict;
    vs_classify_why why; /* why this verdict */
    json_t *evidence;    /* array: the sheet's evidence entries for this pair (copies) */
} vs_classify_req;

typedef struct vs_classify_row {
    char *gpu;     /* the offer's name */
    char *catalog; /* the catalogue entry it used, or NULL */
    int nominal_known;
    uint64_t nominal_bytes;        /* memory_bytes: nominal, as marketed */
    uint64_t nominal_binary_bytes; /* the nominal figure read in binary units (GB as GiB) */
    int reported_known;
    uint64_t reported_bytes; /* device-reported total */
    char *reported_basis;    /* where the reported figure comes from, or NULL */
    int capacity_known;
    uint64_t capacity_bytes;    /* one card: vs_offer_capacity (reported, else nominal) */
    const char *capacity_basis; /* "reported", "nominal", or NULL when unknown (static) */
    unsigned cards;             /* cards in the offer */
    unsigned cards_counted;     /* cards the placement uses (<= cards) */
    int margin_known;           /* capacity and the envelope's known part are known */
    int64_t margin_bytes;       /* capacity - per-GPU envelope (known part); may be < 0 */
    char *price;                /* exact decimal text, or NULL */
    char *currency;
    char *period;
    char *available;
    char *interconnect;
    vs_verdict verdict; /* the worst requirement verdict */
    vs_classify_req *reqs;
    size_t nreqs;
    int ranked;  /* rank holds its place: retained, and the table could be ranked */
    size_t rank; /* 1-based among retained (ties share one) */
} vs_classify_row;

/* What the table says once, for every row: a code and its facts; the words
 * are render/candidates.c's (vs_candidates_note_text). */
typedef enum {
    VS_NOTE_TOO_FEW_CARDS,   /* rows[row]: cards fewer than the placement's gpus */
    VS_NOTE_CARDS_UNPLACED,  /* rows[row]: several cards without a placement over them */
    VS_NOTE_CARDS_IDLE,      /* rows[row]: cards beyond the placement's gpus */
    VS_NOTE_NOT_RANKED,      /* count retained, not comparable by cost: parts say why */
    VS_NOTE_PERIODS_DIFFER,  /* the retained packages cover different periods */
    VS_NOTE_EVIDENCE_UNUSED, /* evidence for text / text2 names no candidate or requirement */
    VS_NOTE_ENGINE,          /* capacity, length and concurrency follow the engine's fit */
    VS_NOTE_PRICES           /* prices rank cost only */
} vs_classify_note_code;

/* One reason a cost comparison fails: gpu has no price (currency NULL), or
 * prices in currency and other cannot be compared (gpu NULL). Borrowed from
 * the rows. */
typedef struct vs_classify_unranked {
    const char *gpu;
    const char *currency, *other;
} vs_classify_unranked;

typedef struct vs_classify_note {
    vs_classify_note_code code;
    size_t row;                  /* the row a cards note is about */
    int placement_known;         /* cards notes: the sheet's placement could be read */
    vs_placement placement;      /* cards notes */
    unsigned gpus;               /* cards notes: the GPUs the work is placed on */
    size_t count;                /* NOT_RANKED: candidates retained */
    vs_classify_unranked *parts; /* NOT_RANKED, owned */
    size_t nparts;
    const char *engine; /* ENGINE: the engine's name (static) */
    char *text, *text2; /* EVIDENCE_UNUSED: candidate and requirement as given; owned */
} vs_classify_note;

typedef struct vs_classification {
    vs_envelope env; /* the per-GPU envelope classified against (copy) */
    json_t *unknown; /* array of the unknown reserve component names */
    vs_classify_row *rows;
    size_t nrows;
    size_t nretained;
    int ranked;              /* the retained candidates could be ordered */
    vs_classify_note *notes; /* said once for the table: why not ranked, idle cards, ... */
    size_t nnotes;
} vs_classification;

/* What an engine's fit says of one offer (engine/fit.h's vs_fit_classify
 * computes it, above this module): the verdicts that replace capacity's, and
 * the card's length's and concurrency's, with their figures. */
typedef struct vs_classify_fit {
    int known; /* the engine's fit of this offer is known (else capacity decides) */
    vs_verdict start_verdict, concurrency_verdict, length_verdict;
    uint64_t budget_bytes;
    uint64_t kv_pool_bytes; /* 0 when the non-KV part exceeds the budget */
    double max_concurrency;
    uint64_t max_length;
    int upper_bound;  /* something unknown: the figures are upper bounds */
    const char *note; /* the fit's own words (borrowed) */
} vs_classify_fit;

/* The card's engine (other than none) and its fit of each offer. */
typedef struct vs_classify_engine {
    const char *name;            /* static */
    const vs_classify_fit *fits; /* one per offer of the sheet, in order */
    size_t n;
} vs_classify_engine;

/* Classifies every offer of sheet against env (the sheet's per-GPU envelope,
 * computed from views, the sheet's components: NULL reads them here), by
 * capacity alone. Returns 0 and a new classification in *out, or VS_ENOMEM. A
 * sheet without offers gives zero rows. */
int vs_classify(vs_classification **out, const json_t *sheet, const vs_envelope *env,
                const vs_component_views *views, vs_error *err);
/* As vs_classify, with capacity, length and concurrency decided by engine's
 * fit of each offer where it is known (engine NULL: as vs_classify). */
int vs_classify_under(vs_classification **out, const json_t *sheet, const vs_envelope *env,
                      const vs_component_views *views, const vs_classify_engine *engine,
                      vs_error *err);
void vs_classification_free(vs_classification *c);

/* The names of the sheet's mandatory requirements, in table order: capacity,
 * the card's, then the declared ones. Returns a new array of strings or NULL. */
json_t *vs_classify_requirement_names(const json_t *sheet);

/* The requirement a person's spelling names (case, spaces, '-' and '_' are
 * ignored; "memory actually available" names available-memory), as its
 * canonical name (static or borrowed from the sheet), or NULL. */
const char *vs_classify_requirement_find(const json_t *sheet, const char *spelled);

/* The offer of sheet a person's spelling names (exact name first, then
 * ignoring case, spaces and punctuation, so "rtx4090" finds "RTX 4090");
 * borrowed, or NULL. */
json_t *vs_classify_offer_find(const json_t *sheet, const char *spelled);

/* Exact comparison of two non-negative decimals written as digits with an
 * optional fraction ("47.14", "047.140"): <0, 0, >0. Text that is not such a
 * decimal sorts after every decimal. */
int vs_classify_decimal_cmp(const char *a, const char *b);
/* 1 when text is a non-negative decimal as above. */
int vs_classify_decimal_valid(const char *text);

#endif
