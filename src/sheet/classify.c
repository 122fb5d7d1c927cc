/* The classification: requirements, evidence, the capacity check, the rows
 * and their notes. The ranking is classify_rank.c's. */
#include "sheet/classify.h"

#include <stdlib.h>
#include <string.h>

#include "sheet/capacity.h"
#include "sheet/classify_internal.h"
#include "sheet/derived.h"
#include "sheet/placement.h"
#include "sheet/sheet.h"
#include "sheet/vocab.h"
#include "util/buf.h"
#include "util/json.h"

/* ---- verdicts ---- */

/* vs_verdict and vs_vocab_verdict have the same values: the words are vocab's. */
const char *vs_verdict_name(vs_verdict v)
{
    return vs_vocab_verdict_name((vs_vocab_verdict)v);
}

int vs_verdict_parse(vs_verdict *out, const char *text, vs_error *err)
{
    vs_vocab_verdict v;
    int rc = vs_vocab_verdict_parse(&v, text, err);
    if (rc == 0)
        *out = (vs_verdict)v;
    return rc;
}

/* ---- the requirements ---- */

/* 1 when the card names a task, *t set; a missing or null task is none. */
static int card_task(const json_t *sheet, vs_vocab_task *t)
{
    const char *s = vs_sheet_card_str(sheet, VS_CK_TASK);
    return s && vs_vocab_task_parse(t, s, NULL) == 0;
}

/* 1 for any task named but inference (a word no task has counts too). */
static int task_is_training(const json_t *sheet)
{
    vs_vocab_task t;
    if (!vs_sheet_card_str(sheet, VS_CK_TASK))
        return 0;
    return !card_task(sheet, &t) || t != VS_TASK_INFERENCE;
}

/* 1 for task generate-image or generate-video (diffusers pipelines). */
static int task_is_generation(const json_t *sheet)
{
    vs_vocab_task t;
    return card_task(sheet, &t) && (t == VS_TASK_GENERATE_IMAGE || t == VS_TASK_GENERATE_VIDEO);
}

/* The built-in requirements, capacity first. The second of "concurrency" and
 * "microbatch" is chosen by the task; image and video generation ask for
 * resolution and batch (and frames, for video) instead of both and of length. */
static const struct builtin {
    const char *name;
    const char *aliases[4];
} builtins[] = {
    {"capacity", {"memory capacity", "capacity check", NULL}},
    {"length", {"required length", "context", "context length", NULL}},
    {"concurrency", {"simultaneous sequences", NULL}},
    {"microbatch", {"micro-batch", "batch", NULL}},
    {"resolution", {"image size", "image resolution", NULL}},
    {"frames", {"video frames", "frame count", NULL}},
    {"batch", {"images per batch", "generation batch", NULL}},
    {"available-memory", {"memory actually available", "memory available", "free memory", NULL}},
    {"host-memory", {"host memory", "host ram", "ram", NULL}},
    {"compatibility", {"software compatibility", "software", NULL}},
    {"quality", {"quality criterion", NULL}},
};
#define NBUILTINS (sizeof builtins / sizeof builtins[0])

/* Host memory is a requirement only where the placement keeps weights there. */
static int offloads(const json_t *sheet)
{
    vs_placement p;
    return vs_placement_from_sheet(&p, sheet, NULL) == 0 && p.offload != VS_OFFLOAD_NONE;
}

static int builtin_applies(const json_t *sheet, const char *name)
{
    int gen = task_is_generation(sheet);
    vs_vocab_task t;
    if (!strcmp(name, "host-memory"))
        return offloads(sheet);
    if (!strcmp(name, "resolution") || !strcmp(name, "batch"))
        return gen;
    if (!strcmp(name, "frames"))
        return gen && card_task(sheet, &t) && t == VS_TASK_GENERATE_VIDEO;
    if (gen &&
        (!strcmp(name, "length") || !strcmp(name, "concurrency") || !strcmp(name, "microbatch")))
        return 0;
    if (!strcmp(name, "concurrency"))
        return !task_is_training(sheet);
    if (!strcmp(name, "microbatch"))
        return task_is_training(sheet);
    return 1;
}

json_t *vs_classify_requirement_names(const json_t *sheet)
{
    json_t *out = json_array(), *r;
    size_t i;
    if (!out)
        return NULL;
    for (i = 0; i < NBUILTINS; i++)
        if (builtin_applies(sheet, builtins[i].name))
            json_array_append_new(out, json_string(builtins[i].name));
    vs_json_array_foreach(vs_sheet_array(sheet, VS_SK_REQUIREMENTS), i, r)
    {
        const char *n = json_string_value(json_object_get(r, "name"));
        if (n)
            json_array_append_new(out, json_string(n));
    }
    return out;
}

const char *vs_classify_requirement_find(const json_t *sheet, const char *spelled)
{
    size_t i, j;
    json_t *r;
    for (i = 0; i < NBUILTINS; i++) {
        if (!builtin_applies(sheet, builtins[i].name))
            continue;
        if (vs_vocab_same_name(spelled, builtins[i].name))
            return builtins[i].name;
        for (j = 0; builtins[i].aliases[j]; j++)
            if (vs_vocab_same_name(spelled, builtins[i].aliases[j]))
                return builtins[i].name;
    }
    vs_json_array_foreach(vs_sheet_array(sheet, VS_SK_REQUIREMENTS), i, r)
    {
        const char *n = json_string_value(json_object_get(r, "name"));
        if (vs_vocab_same_name(spelled, n))
            return n;
    }
    return NULL;
}

json_t *vs_classify_offer_find(const json_t *sheet, const char *spelled)
{
    size_t i;
    json_t *o;
    vs_json_array_foreach(vs_sheet_array(sheet, VS_SK_OFFERS), i, o)
    {
        const char *n = json_string_value(json_object_get(o, "name"));
        if (n && spelled && !strcmp(n, spelled))
            return o;
    }
    vs_json_array_foreach(vs_sheet_array(sheet, VS_SK_OFFERS), i, o)
    {
        if (vs_vocab_same_name(json_string_value(json_object_get(o, "name")), spelled))
            return o;
    }
    return NULL;
}

/* ---- building the classification ---- */

static char *xstrdup(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* Appends a note (its owned strings are the classification's from here on,
 * even when memory is short). */
int vs_classify_add_note(vs_classification *c, const vs_classify_note *note)
{
    vs_classify_note *n = realloc(c->notes, (c->nnotes + 1) * sizeof *n);
    if (!n) {
        free(note->parts);
        free(note->text);
        free(note->text2);
        return VS_ENOMEM;
    }
    c->notes = n;
    c->notes[c->nnotes++] = *note;
    return 0;
}

int vs_classify_add_note_code(vs_classification *c, vs_classify_note_code code)
{
    vs_classify_note n;
    memset(&n, 0, sizeof n);
    n.code = code;
    return vs_classify_add_note(c, &n);
}

static uint64_t card_uint(const json_t *sheet, vs_card_key key, int *known)
{
    uint64_t v = 0;
    *known = vs_sheet_card_uint(sheet, key, &v);
    return v;
}

/* What a built-in requirement asks: the card's figures. 0 or VS_ENOMEM. */
static int builtin_ask(vs_classify_ask *ask, const json_t *sheet, const char *name)
{
    const char *s = NULL;
    if (!strcmp(name, "length")) {
        ask->value = card_uint(sheet, VS_CK_LENGTH, &ask->known);
    } else if (!strcmp(name, "concurrency")) {
        ask->value = card_uint(sheet, VS_CK_CONCURRENCY, &ask->known);
    } else if (!strcmp(name, "frames")) {
        ask->value = card_uint(sheet, VS_CK_FRAMES, &ask->known);
    } else if (!strcmp(name, "batch")) {
        ask->value = card_uint(sheet, VS_CK_BATCH, &ask->known);
    } else if (!strcmp(name, "microbatch")) {
        ask->value = card_uint(sheet, VS_CK_MICROBATCH, &ask->known);
        ask->value2 = card_uint(sheet, VS_CK_ACCUMULATION, &ask->known2);
    } else if (!strcmp(name, "resolution")) {
        ask->value = card_uint(sheet, VS_CK_WIDTH, &ask->known);
        ask->value2 = card_uint(sheet, VS_CK_HEIGHT, &ask->known2);
    } else if (!strcmp(name, "compatibility")) {
        s = vs_sheet_card_str(sheet, VS_CK_FORMAT);
    } else if (!strcmp(name, "quality")) {
        s = vs_sheet_card_str(sheet, VS_CK_QUALITY);
    }
    ask->known |= s != NULL;
    ask->text = xstrdup(s);
    return s && !ask->text ? VS_ENOMEM : 0;
}

/* The sheet's evidence, each entry resolved once to the offer and the
 * requirement it names (as the person's spelling would be, so an alias stored
 * in an older record still counts); NULL names when it matches none. */
typedef struct resolved {
    const json_t *entry;
    const char *offer; /* borrowed from the sheet */
    const char *req;   /* canonical: static or borrowed from the sheet */
    vs_verdict verdict;
    int valid;   /* its verdict could be read */
    char *moved; /* the card has moved past it since ("format bf16 → int4"), or NULL */
} resolved;

static resolved *resolve_evidence(const json_t *sheet, size_t *n)
{
    json_t *arr = vs_sheet_array(sheet, VS_SK_EVIDENCE), *e;
    resolved *out = calloc(json_array_size(arr) + 1, sizeof *out);
    size_t i;
    *n = 0;
    if (!out)
        return NULL;
    json_array_foreach(arr, i, e)
    {
        resolved *r = &out[(*n)++];
        const json_t *o = vs_classify_offer_find(sheet, vs_json_str_of(e, "candidate"));
        r->entry = e;
        r->offer = o ? vs_json_str_of(o, "name") : NULL;
        r->req = vs_classify_requirement_find(sheet, vs_json_str_of(e, "requirement"));
        r->valid = vs_verdict_parse(&r->verdict, vs_json_str_of(e, "verdict"), NULL) == 0;
        {
            vs_buf why = VS_BUF_INIT;
            if (vs_derived_evidence_moved(sheet, e, &why))
                r->moved = vs_buf_take(&why);
            vs_buf_free(&why);
        }
    }
    return out;
}

static void resolved_free(resolved *ev, size_t n)
{
    size_t i;
    for (i = 0; ev && i < n; i++)
        free(ev[i].moved);
    free(ev);
}

/* Evidence for (offer, requirement), as copies; worst and best verdicts found. */
static json_t *evidence_for(const resolved *ev, size_t nev, const char *offer, const char *req,
                            int *any_exclude, int *any_admissible, const char **moved)
{
    json_t *out = json_array();
    size_t i;
    *any_exclude = *any_admissible = 0;
    *moved = NULL;
    if (!out)
        return NULL;
    for (i = 0; i < nev; i++) {
        const resolved *r = &ev[i];
        if (!r->valid || !r->offer || !r->req || strcmp(r->req, req) || strcmp(r->offer, offer))
            continue;
        if (r->moved) {
            /* obtained under another card: shown, but it decides nothing now */
            json_t *copy = json_deep_copy(r->entry);
            json_object_set_new(copy, "moved", json_string(r->moved));
            json_array_append_new(out, copy);
            *moved = r->moved;
            continue;
        }
        if (r->verdict == VS_VERDICT_EXCLUDE)
            *any_exclude = 1;
        else if (r->verdict == VS_VERDICT_ADMISSIBLE)
            *any_admissible = 1;
        json_array_append_new(out, json_deep_copy(r->entry));
    }
    return out;
}

/* The built-in capacity check for one row (before evidence). */
static vs_verdict capacity_check(const vs_classification *c, const vs_classify_row *row,
                                 vs_classify_why *why)
{
    const vs_envelope *env = &c->env;
    unsigned gpus = env->gpus ? env->gpus : 1;
    uint64_t need = env->envelope_bytes;
    if (row->cards < gpus) {
        why->code = VS_WHY_CAP_TOO_FEW_CARDS;
        why->gpus = gpus;
        why->cards = row->cards;
        return VS_VERDICT_EXCLUDE;
    }
    if (!row->capacity_known) {
        why->code = VS_WHY_CAP_UNKNOWN;
        return VS_VERDICT_TO_CONFIRM;
    }
    why->need_bytes = need;
    why->capacity_bytes = row->capacity_bytes;
    if (need > row->capacity_bytes) {
        why->margin_bytes = need - row->capacity_bytes;
        if (!row->capacity_basis || strcmp(row->capacity_basis, "reported")) {
            why->binary_bytes = row->nominal_binary_bytes;
            /* A marketed "80 GB" may be 80 x 10^9 bytes or 80 GiB: between the
             * two, only the device's own total can tell. */
            why->code = need <= row->nominal_binary_bytes ? VS_WHY_CAP_NOMINAL_UNSURE
                                                          : VS_WHY_CAP_EXCEEDS_NOMINAL;
            return why->code == VS_WHY_CAP_NOMINAL_UNSURE ? VS_VERDICT_TO_CONFIRM
                                                          : VS_VERDICT_EXCLUDE;
        }
        why->code = VS_WHY_CAP_EXCEEDS;
        return VS_VERDICT_EXCLUDE;
    }
    why->margin_bytes = row->capacity_bytes - need;
    if (!env->weights_known || json_array_size(c->unknown) > 0 || env->n_unknown > 0) {
        why->code = VS_WHY_CAP_FITS_UNKNOWN;
        return VS_VERDICT_TO_CONFIRM;
    }
    if (env->n_stale) {
        /* a run at smaller dims than the card never stands for it */
        why->code = VS_WHY_CAP_FITS_STALE;
        return VS_VERDICT_TO_CONFIRM;
    }
    why->code = VS_WHY_CAP_FITS;
    return VS_VERDICT_ADMISSIBLE;
}

/* The weights an offload placement keeps in host memory against the offer's
 * host= (the machine's RAM). The same figure the GPU's check leaves out, so a
 * machine short of RAM is excluded on this line, not on capacity. */
static vs_verdict host_check(const vs_classification *c, const json_t *offer, vs_classify_why *why)
{
    json_t *h = json_object_get(offer, "host_bytes");
    why->need_bytes = c->env.host_bytes;
    if (!c->env.weights_known) {
        why->code = VS_WHY_HOST_UNKNOWN_WEIGHTS;
        return VS_VERDICT_TO_CONFIRM;
    }
    if (!json_is_integer(h) || json_integer_value(h) < 0) {
        why->code = VS_WHY_HOST_UNKNOWN;
        return VS_VERDICT_TO_CONFIRM;
    }
    why->capacity_bytes = (uint64_t)json_integer_value(h);
    if (why->need_bytes > why->capacity_bytes) {
        why->margin_bytes = why->need_bytes - why->capacity_bytes;
        why->code = VS_WHY_HOST_EXCEEDS;
        return VS_VERDICT_EXCLUDE;
    }
    why->margin_bytes = why->capacity_bytes - why->need_bytes;
    why->code = VS_WHY_HOST_FITS;
    return VS_VERDICT_ADMISSIBLE;
}

static int row_fill_offer(vs_classify_row *row, const json_t *o, unsigned gpus)
{
    json_t *cards = json_object_get(o, "cards");
    vs_offer_cap cap;
    row->gpu = xstrdup(vs_json_str_of(o, "name") ? vs_json_str_of(o, "name") : "(unnamed)");
    row->catalog = xstrdup(vs_json_str_of(o, "catalog"));
    row->reported_basis = xstrdup(vs_json_str_of(o, "reported_basis"));
    row->price = xstrdup(vs_json_str_of(o, "price"));
    row->currency = xstrdup(vs_json_str_of(o, "currency"));
    row->period = xstrdup(vs_json_str_of(o, "period"));
    row->available = xstrdup(vs_json_str_of(o, "available"));
    row->interconnect = xstrdup(vs_json_str_of(o, "interconnect"));
    vs_offer_capacity(&cap, o);
    row->nominal_known = cap.nominal_known;
    row->nominal_bytes = cap.nominal_bytes;
    row->nominal_binary_bytes = cap.nominal_binary_bytes;
    row->reported_known = cap.reported_known;
    row->reported_bytes = cap.reported_bytes;
    row->capacity_known = cap.known;
    row->capacity_bytes = cap.bytes;
    row->capacity_basis = vs_capacity_basis_code(cap.basis);
    row->cards = json_is_integer(cards) && json_integer_value(cards) > 0 &&
                         json_integer_value(cards) <= 1000000
                     ? (unsigned)json_integer_value(cards)
                     : 1;
    row->cards_counted = row->cards < gpus ? row->cards : gpus;
    return row->gpu ? 0 : VS_ENOMEM;
}

/* Adds the requirement name to row: computed is the verdict computed before
 * evidence, with its reason in *cwhy (taken), or NULL when nothing was
 * computed. */
static int row_add_req(vs_classify_row *row, const json_t *sheet, const resolved *ev, size_t nev,
                       const char *name, int builtin, vs_verdict computed, vs_classify_why *cwhy)
{
    vs_classify_req *r;
    int ex, ad;
    const char *moved;
    vs_classify_req *grown = realloc(row->reqs, (row->nreqs + 1) * sizeof *grown);
    if (!grown) {
        if (cwhy)
            free(cwhy->text);
        return VS_ENOMEM;
    }
    row->reqs = grown;
    r = &row->reqs[row->nreqs++];
    memset(r, 0, sizeof *r);
    if (cwhy)
        r->why = *cwhy;
    r->name = xstrdup(name);
    r->builtin = builtin;
    r->evidence = evidence_for(ev, nev, row->gpu, name, &ex, &ad, &moved);
    if (!r->name || !r->evidence || (builtin && builtin_ask(&r->ask, sheet, name) < 0))
        return VS_ENOMEM;
    if (computed == VS_VERDICT_EXCLUDE) {
        r->verdict = VS_VERDICT_EXCLUDE;
        /* Evidence never lifts an established failure. */
        r->why.not_offset = ad && !ex && cwhy;
    } else if (ex) {
        r->verdict = VS_VERDICT_EXCLUDE;
    } else if (ad) {
        r->verdict = VS_VERDICT_ADMISSIBLE;
    } else {
        r->verdict = computed;
    }
    if (!cwhy) {
        if (!ex && !ad && moved) {
            r->why.code = VS_WHY_EVIDENCE_MOVED;
            if (!(r->why.text = xstrdup(moved)))
                return VS_ENOMEM;
        } else {
            r->why.code = ex   ? VS_WHY_EVIDENCE_EXCLUDES
                          : ad ? VS_WHY_EVIDENCE_ADMITS
                               : VS_WHY_NO_EVIDENCE;
        }
    }
    if (r->verdict > row->verdict)
        row->verdict = r->verdict;
    return 0;
}

/* ---- entry points ---- */

static int stale_evidence_notes(vs_classification *c, const resolved *ev, size_t nev)
{
    size_t i;
    for (i = 0; i < nev; i++) {
        const char *cand = vs_json_str_of(ev[i].entry, "candidate"),
                   *req = vs_json_str_of(ev[i].entry, "requirement");
        vs_classify_note n;
        int rc;
        if (ev[i].offer && ev[i].req)
            continue;
        memset(&n, 0, sizeof n);
        n.code = VS_NOTE_EVIDENCE_UNUSED;
        n.text = xstrdup(cand);
        n.text2 = xstrdup(req);
        if ((cand && !n.text) || (req && !n.text2)) {
            free(n.text);
            free(n.text2);
            return VS_ENOMEM;
        }
        if ((rc = vs_classify_add_note(c, &n)))
            return rc;
    }
    return 0;
}

/* The note on an offer whose cards do not match the placement's gpus. */
static int cards_note(vs_classification *c, const json_t *sheet, vs_classify_note_code code,
                      unsigned gpus)
{
    vs_classify_note n;
    memset(&n, 0, sizeof n);
    n.code = code;
    n.row = c->nrows - 1;
    n.gpus = gpus;
    n.placement_known = vs_placement_from_sheet(&n.placement, sheet, NULL) == 0;
    return vs_classify_add_note(c, &n);
}

int vs_classify(vs_classification **out, const json_t *sheet, const vs_envelope *env,
                const vs_component_views *views, vs_error *err)
{
    return vs_classify_under(out, sheet, env, views, NULL, err);
}

int vs_classify_under(vs_classification **out, const json_t *sheet, const vs_envelope *env,
                      const vs_component_views *views, const vs_classify_engine *engine,
                      vs_error *err)
{
    vs_classification *c = calloc(1, sizeof *c);
    json_t *offers = vs_sheet_array(sheet, VS_SK_OFFERS), *o, *names = NULL;
    vs_component_views own = {NULL, 0};
    size_t i, j, nbuiltin, nev = 0;
    unsigned gpus;
    int rc = VS_ENOMEM, any_price = 0;
    resolved *ev = NULL;
    *out = NULL;
    if (!c)
        goto done;
    ev = resolve_evidence(sheet, &nev);
    if (!ev)
        goto done;
    c->env = *env;
    gpus = env->gpus ? env->gpus : 1;
    c->unknown = json_array();
    names = vs_classify_requirement_names(sheet);
    if (!c->unknown || !names)
        goto done;
    if (!views) {
        if (vs_component_views_read(&own, sheet) < 0)
            goto done;
        views = &own;
    }
    for (i = 0; i < views->n; i++) /* unknown: no amount, as the envelope counts them */
        if (!views->v[i].known && views->v[i].name)
            json_array_append_new(c->unknown, json_incref(views->v[i].name));
    /* The built-ins come first in names, then the declared requirements. */
    nbuiltin = json_array_size(names) - json_array_size(vs_sheet_array(sheet, VS_SK_REQUIREMENTS));
    c->rows = calloc(json_array_size(offers) + 1, sizeof *c->rows);
    if (!c->rows)
        goto done;
    json_array_foreach(offers, i, o)
    {
        vs_classify_row *row = &c->rows[c->nrows++];
        json_t *nm;
        if ((rc = row_fill_offer(row, o, gpus)))
            goto done;
        if (row->capacity_known) {
            row->margin_known = 1;
            row->margin_bytes = (int64_t)row->capacity_bytes - (int64_t)env->envelope_bytes;
        }
        if (row->price)
            any_price = 1;
        /* an engine other than none decides capacity, length and concurrency by its
         * own budget and KV allocation (engine/fit.h) */
        const vs_classify_fit *fr = engine && i < engine->n ? &engine->fits[i] : NULL;
        int have_fit = fr && fr->known;
        json_array_foreach(names, j, nm)
        {
            const char *n = json_string_value(nm);
            vs_classify_why why;
            vs_verdict computed = VS_VERDICT_TO_CONFIRM;
            int have_why = 1;
            memset(&why, 0, sizeof why);
            if (j == 0 && have_fit) {
                computed = fr->start_verdict;
                why.code = VS_WHY_ENGINE_START;
                why.budget_bytes = fr->budget_bytes;
                why.kv_pool_bytes = fr->kv_pool_bytes;
                why.text = xstrdup(fr->note);
                have_why = why.text != NULL;
            } else if (j == 0) {
                computed = capacity_check(c, row, &why);
            } else if (j < nbuiltin && !strcmp(n, "host-memory")) {
                computed = host_check(c, o, &why);
            } else if (have_fit && j < nbuiltin && !strcmp(n, "concurrency")) {
                computed = fr->concurrency_verdict;
                why.code = VS_WHY_ENGINE_CONCURRENCY;
                why.max_concurrency = fr->max_concurrency;
            } else if (have_fit && j < nbuiltin && !strcmp(n, "length")) {
                computed = fr->length_verdict;
                why.code = VS_WHY_ENGINE_LENGTH;
                why.max_length = fr->max_length;
            } else {
                have_why = 0;
            }
            if (have_fit && why.code >= VS_WHY_ENGINE_START) {
                why.engine = engine->name;
                why.upper_bound = fr->upper_bound;
            }
            if ((rc = row_add_req(row, sheet, ev, nev, n, j < nbuiltin, computed,
                                  have_why ? &why : NULL)))
                goto done;
        }
        if (row->cards < gpus && (rc = cards_note(c, sheet, VS_NOTE_TOO_FEW_CARDS, gpus)))
            goto done;
        if (row->cards > gpus &&
            (rc = cards_note(c, sheet, gpus == 1 ? VS_NOTE_CARDS_UNPLACED : VS_NOTE_CARDS_IDLE,
                             gpus)))
            goto done;
    }
    if ((rc = vs_classify_rank_rows(c)) || (rc = stale_evidence_notes(c, ev, nev)))
        goto done;
    if (engine) {
        vs_classify_note n;
        memset(&n, 0, sizeof n);
        n.code = VS_NOTE_ENGINE;
        n.engine = engine->name;
        if ((rc = vs_classify_add_note(c, &n)))
            goto done;
    }
    if (any_price && (rc = vs_classify_add_note_code(c, VS_NOTE_PRICES)))
        goto done;
    *out = c;
    c = NULL;
    rc = 0;
done:
    resolved_free(ev, nev);
    json_decref(names);
    vs_component_views_free(&own);
    vs_classification_free(c);
    if (rc == VS_ENOMEM)
        vs_error_set(err, VS_ENOMEM, "out of memory while classifying candidates");
    return rc;
}

void vs_classification_free(vs_classification *c)
{
    size_t i, j;
    if (!c)
        return;
    for (i = 0; i < c->nrows; i++) {
        vs_classify_row *r = &c->rows[i];
        for (j = 0; j < r->nreqs; j++) {
            free(r->reqs[j].name);
            free(r->reqs[j].ask.text);
            free(r->reqs[j].why.text);
            json_decref(r->reqs[j].evidence);
        }
        free(r->reqs);
        free(r->gpu);
        free(r->catalog);
        free(r->reported_basis);
        free(r->price);
        free(r->currency);
        free(r->period);
        free(r->available);
        free(r->interconnect);
    }
    free(c->rows);
    for (i = 0; i < c->nnotes; i++) {
        free(c->notes[i].parts);
        free(c->notes[i].text);
        free(c->notes[i].text2);
    }
    free(c->notes);
    json_decref(c->unknown);
    free(c);
}
