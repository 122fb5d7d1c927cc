/* Unit tests for src/sheet/classify: verdicts per requirement, retention and
 * ranking of GPU offers. The per-GPU envelope is given directly, as
 * vs_envelope_compute would give it, so these tests exercise classification only. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/candidates.h"
#include "sheet/classify.h"
#include "sheet/sheet.h"

#include "check_run.h"

#define GIB (1024ULL * 1024ULL * 1024ULL)
#define MIB (1024ULL * 1024ULL)

/* The seed's card: 7e9 params at 16 bits, one declared 6 GiB reserve. */
static json_t *seed_sheet(void)
{
    json_t *s = vs_sheet_new("seed");
    json_t *card = vs_sheet_card(s);
    json_object_set_new(card, "params", json_integer(7000000000LL));
    json_object_set_new(card, "format", json_string("bf16"));
    json_object_set_new(card, "bits", json_integer(16));
    json_object_set_new(card, "task", json_string("inference"));
    ck_assert_int_eq(vs_sheet_set_component(s, "reserve", 1, 6 * GIB, "estimated", "declared lump",
                                            NULL, NULL, NULL),
                     0);
    return s;
}

static vs_envelope seed_envelope(void)
{
    vs_envelope e;
    memset(&e, 0, sizeof e);
    e.weights_known = 1;
    e.weights_bytes = e.weights_gpu_bytes = 14000000000ULL;
    e.reserve_bytes = 6 * GIB;
    e.envelope_bytes = e.weights_gpu_bytes + e.reserve_bytes; /* 19.04 GiB */
    e.conservative = 1;
    e.gpus = 1;
    return e;
}

static void add_offer(json_t *s, const char *name, long long memory, long long reported,
                      const char *price, const char *currency, int cards, const char *available)
{
    json_t *o = json_pack(
        "{s:s, s:o, s:o, s:n, s:o, s:o, s:s, s:i, s:o, s:n, s:n}", "name", name, "memory_bytes",
        memory ? json_integer(memory) : json_null(), "reported_bytes",
        reported ? json_integer(reported) : json_null(), "reported_basis", "price",
        price ? json_string(price) : json_null(), "currency",
        currency ? json_string(currency) : json_null(), "period", "3d", "cards", cards, "available",
        available ? json_string(available) : json_null(), "interconnect", "catalog");
    ck_assert_ptr_nonnull(o);
    json_array_append_new(vs_sheet_array(s, VS_SK_OFFERS), o);
}

static void add_evidence(json_t *s, const char *cand, const char *req, const char *verdict)
{
    json_array_append_new(vs_sheet_array(s, VS_SK_EVIDENCE),
                          json_pack("{s:s, s:s, s:s, s:s, s:n, s:n}", "candidate", cand,
                                    "requirement", req, "verdict", verdict, "source", "test",
                                    "version", "scope"));
}

/* Evidence that admits every requirement but capacity (which is computed). */
static void admit_all(json_t *s, const char *cand)
{
    json_t *names = vs_classify_requirement_names(s), *n;
    size_t i;
    json_array_foreach(names, i, n)
    {
        if (strcmp(json_string_value(n), "capacity"))
            add_evidence(s, cand, json_string_value(n), "admissible");
    }
    json_decref(names);
}

static vs_classification *classify(const json_t *s, const vs_envelope *e)
{
    vs_classification *c = NULL;
    vs_error err = {0};
    ck_assert_int_eq(vs_classify(&c, s, e, NULL, &err), 0);
    ck_assert_ptr_nonnull(c);
    return c;
}

static const vs_classify_req *req(const vs_classify_row *r, const char *name)
{
    size_t i;
    for (i = 0; i < r->nreqs; i++)
        if (!strcmp(r->reqs[i].name, name))
            return &r->reqs[i];
    ck_abort_msg("requirement %s missing", name);
    return NULL;
}

/* The words render/candidates gives r's reason (a ring of copies, so that one
 * assertion may quote several). */
static const char *note_of(const vs_classification *c, const vs_classify_req *r)
{
    static char ring[8][2048];
    static size_t next;
    char *out = ring[next++ % 8];
    size_t i;
    vs_buf b = VS_BUF_INIT;
    for (i = 0; i < c->nrows; i++)
        if (r >= c->rows[i].reqs && r < c->rows[i].reqs + c->rows[i].nreqs)
            vs_candidates_why_text(&b, c, &c->rows[i], r);
    ck_assert(!vs_buf_failed(&b) && b.len < sizeof ring[0]);
    snprintf(out, sizeof ring[0], "%s", vs_buf_str(&b));
    vs_buf_free(&b);
    return out;
}

static int has_note(const vs_classification *c, const char *needle)
{
    size_t i;
    int found = 0;
    for (i = 0; i < c->nnotes && !found; i++) {
        vs_buf b = VS_BUF_INIT;
        vs_candidates_note_text(&b, c, &c->notes[i]);
        found = strstr(vs_buf_str(&b), needle) != NULL;
        vs_buf_free(&b);
    }
    return found;
}

START_TEST(test_seed_selection)
{
    /* The worked example: RTX 4090 (24 GB; the catalogue knows 24564 MiB reported) and RTX
     * 6000 Ada (48 GB, nothing reported known) for the 19.04 GiB envelope. */
    json_t *s = seed_sheet();
    vs_envelope e = seed_envelope();
    vs_classification *c;
    static const char *const implied[] = {"length",        "concurrency", "available-memory",
                                          "compatibility", "quality",     NULL};
    size_t i, k;
    add_offer(s, "RTX 4090", 24000000000LL, (long long)(24564 * MIB), "47.14", "USD", 1, NULL);
    add_offer(s, "RTX 6000 Ada", 48000000000LL, 0, "55.71", "USD", 1, NULL);
    c = classify(s, &e);
    ck_assert_uint_eq(c->nrows, 2);
    ck_assert_str_eq(c->rows[0].capacity_basis, "reported");
    ck_assert_uint_eq(c->rows[0].capacity_bytes, 24564 * MIB);
    ck_assert_str_eq(c->rows[1].capacity_basis, "nominal");
    ck_assert_uint_eq(c->rows[1].capacity_bytes, 48000000000ULL);
    for (i = 0; i < 2; i++) {
        const vs_classify_row *r = &c->rows[i];
        ck_assert_uint_eq(r->nreqs, 6);
        ck_assert_str_eq(r->reqs[0].name, "capacity");
        ck_assert_int_eq(req(r, "capacity")->verdict, VS_VERDICT_ADMISSIBLE);
        for (k = 0; implied[k]; k++) {
            ck_assert_int_eq(req(r, implied[k])->verdict, VS_VERDICT_TO_CONFIRM);
            ck_assert_uint_eq(json_array_size(req(r, implied[k])->evidence), 0);
        }
        ck_assert_int_eq(r->verdict, VS_VERDICT_TO_CONFIRM);
        ck_assert_int_eq(r->ranked, 0);
        ck_assert(r->margin_known && r->margin_bytes > 0);
    }
    ck_assert_int_eq((int)c->rows[1].margin_bytes,
                     (int)(48000000000LL - (long long)e.envelope_bytes));
    ck_assert_uint_eq(c->nretained, 0);
    ck_assert(has_note(c, "rank no speed"));
    vs_classification_free(c);
    json_decref(s);
}
END_TEST

START_TEST(test_nominal_24gb_passes_seed_envelope)
{
    /* 24 GB = 22.35 GiB >= 19.04 GiB on the nominal figure alone. */
    json_t *s = seed_sheet();
    vs_envelope e = seed_envelope();
    vs_classification *c;
    add_offer(s, "custom 24", 24000000000LL, 0, NULL, NULL, 1, NULL);
    c = classify(s, &e);
    ck_assert_str_eq(c->rows[0].capacity_basis, "nominal");
    ck_assert_int_eq(c->rows[0].reqs[0].verdict, VS_VERDICT_ADMISSIBLE);
    ck_assert_ptr_nonnull(strstr(note_of(c, &c->rows[0].reqs[0]), "19.04 GiB"));
    ck_assert_ptr_nonnull(strstr(note_of(c, &c->rows[0].reqs[0]), "22.35 GiB"));
    ck_assert(!has_note(c, "rank no speed")); /* no price, nothing to warn about */
    vs_classification_free(c);
    json_decref(s);
}
END_TEST

START_TEST(test_nominal_versus_reported)
{
    /* Envelope 21 GiB: a nominal 24 GB (22.35 GiB) fits, but a card reporting
     * 20 GiB does not. The reported figure wins when it is known. */
    json_t *s = seed_sheet();
    vs_envelope e = seed_envelope();
    vs_classification *c;
    e.envelope_bytes = 21 * GIB;
    add_offer(s, "nominal only", 24000000000LL, 0, NULL, NULL, 1, NULL);
    add_offer(s, "reported", 24000000000LL, (long long)(20 * GIB), NULL, NULL, 1, NULL);
    c = classify(s, &e);
    ck_assert_int_eq(c->rows[0].reqs[0].verdict, VS_VERDICT_ADMISSIBLE);
    ck_assert_str_eq(c->rows[0].capacity_basis, "nominal");
    ck_assert_int_eq(c->rows[1].reqs[0].verdict, VS_VERDICT_EXCLUDE);
    ck_assert_str_eq(c->rows[1].capacity_basis, "reported");
    ck_assert_int_eq(c->rows[1].verdict, VS_VERDICT_EXCLUDE);
    ck_assert(c->rows[1].margin_bytes < 0);
    ck_assert_ptr_nonnull(strstr(note_of(c, &c->rows[1].reqs[0]), "exceeds"));
    vs_classification_free(c);
    json_decref(s);
}
END_TEST

START_TEST(test_unknowns_keep_capacity_to_confirm)
{
    json_t *s = seed_sheet();
    vs_envelope e = seed_envelope();
    vs_classification *c;
    add_offer(s, "big", 80000000000LL, 0, NULL, NULL, 1, NULL);
    add_offer(s, "no memory given", 0, 0, NULL, NULL, 1, NULL);
    ck_assert_int_eq(vs_sheet_set_component(s, "workspace", 0, 0, "unknown", "attention workspace",
                                            NULL, NULL, NULL),
                     0);
    e.n_unknown = 1;
    c = classify(s, &e);
    ck_assert_int_eq(c->rows[0].reqs[0].verdict, VS_VERDICT_TO_CONFIRM);
    ck_assert_ptr_nonnull(strstr(note_of(c, &c->rows[0].reqs[0]), "workspace"));
    ck_assert_int_eq(c->rows[1].reqs[0].verdict, VS_VERDICT_TO_CONFIRM);
    ck_assert_int_eq(c->rows[1].capacity_known, 0);
    ck_assert_ptr_null(c->rows[1].capacity_basis);
    ck_assert_uint_eq(json_array_size(c->unknown), 1);
    vs_classification_free(c);
    {
        /* from the views a verb read once: the same unknown names */
        vs_component_views views;
        vs_error err = {0};
        ck_assert_int_eq(vs_component_views_read(&views, s), 0);
        ck_assert_int_eq(vs_classify(&c, s, &e, &views, &err), 0);
        ck_assert_uint_eq(json_array_size(c->unknown), 1);
        ck_assert_str_eq(json_string_value(json_array_get(c->unknown, 0)), "workspace");
        ck_assert_int_eq(c->rows[0].reqs[0].verdict, VS_VERDICT_TO_CONFIRM);
        vs_classification_free(c);
        vs_component_views_free(&views);
    }

    /* Unknown weights: only the reserve is known, so it may still exclude. */
    e = seed_envelope();
    e.weights_known = 0;
    e.weights_gpu_bytes = 0;
    e.envelope_bytes = e.reserve_bytes;
    json_array_remove(vs_sheet_array(s, VS_SK_COMPONENTS), 1);
    c = classify(s, &e);
    ck_assert_int_eq(c->rows[0].reqs[0].verdict, VS_VERDICT_TO_CONFIRM);
    ck_assert_ptr_nonnull(strstr(note_of(c, &c->rows[0].reqs[0]), "weights"));
    vs_classification_free(c);
    e.envelope_bytes = 90 * GIB; /* the known part alone exceeds 80 GB */
    c = classify(s, &e);
    ck_assert_int_eq(c->rows[0].reqs[0].verdict, VS_VERDICT_EXCLUDE);
    vs_classification_free(c);
    json_decref(s);
}
END_TEST

START_TEST(test_missing_evidence)
{
    json_t *s = seed_sheet();
    vs_envelope e = seed_envelope();
    vs_classification *c;
    add_offer(s, "A", 48000000000LL, 0, "10", "USD", 1, NULL);
    admit_all(s, "A");
    /* One admissible evidence removed: the candidate is no longer retained. */
    json_array_remove(vs_sheet_array(s, VS_SK_EVIDENCE), 0);
    c = classify(s, &e);
    ck_assert_int_eq(c->rows[0].verdict, VS_VERDICT_TO_CONFIRM);
    ck_assert_int_eq(req(&c->rows[0], "length")->verdict, VS_VERDICT_TO_CONFIRM);
    ck_assert_str_eq(note_of(c, req(&c->rows[0], "length")), "no evidence yet");
    ck_assert_int_eq(req(&c->rows[0], "quality")->verdict, VS_VERDICT_ADMISSIBLE);
    ck_assert_uint_eq(json_array_size(req(&c->rows[0], "quality")->evidence), 1);
    ck_assert_uint_eq(c->nretained, 0);
    ck_assert_int_eq(c->rows[0].ranked, 0);
    vs_classification_free(c);

    add_evidence(s, "A", "required length", "admissible"); /* an alias of length */
    c = classify(s, &e);
    ck_assert_int_eq(c->rows[0].verdict, VS_VERDICT_ADMISSIBLE);
    ck_assert_uint_eq(c->nretained, 1);
    ck_assert_uint_eq(c->rows[0].rank, 1);
    vs_classification_free(c);
    json_decref(s);
}
END_TEST

START_TEST(test_exclusion_never_offset)
{
    json_t *s = seed_sheet();
    vs_envelope e = seed_envelope();
    vs_classification *c;
    /* The cheapest offer, with every other requirement admitted, is excluded by
     * one piece of evidence; a second admissible piece does not lift it. */
    add_offer(s, "cheap", 48000000000LL, 0, "1.00", "USD", 1, "now");
    add_offer(s, "dear", 48000000000LL, 0, "99.00", "USD", 1, NULL);
    admit_all(s, "cheap");
    admit_all(s, "dear");
    add_evidence(s, "cheap", "compatibility", "exclude");
    c = classify(s, &e);
    ck_assert_int_eq(req(&c->rows[0], "compatibility")->verdict, VS_VERDICT_EXCLUDE);
    ck_assert_int_eq(c->rows[0].verdict, VS_VERDICT_EXCLUDE);
    ck_assert_int_eq(c->rows[0].ranked, 0);
    ck_assert_uint_eq(c->rows[1].rank, 1);
    vs_classification_free(c);

    /* A computed capacity exclusion is not lifted by admissible evidence. */
    add_evidence(s, "dear", "capacity", "admissible");
    e.envelope_bytes = 50 * GIB;
    c = classify(s, &e);
    ck_assert_int_eq(c->rows[1].reqs[0].verdict, VS_VERDICT_EXCLUDE);
    ck_assert_ptr_nonnull(strstr(note_of(c, &c->rows[1].reqs[0]), "not offset"));
    ck_assert_uint_eq(c->nretained, 0);
    vs_classification_free(c);
    json_decref(s);
}
END_TEST

START_TEST(test_ranking_order_and_ties)
{
    json_t *s = seed_sheet();
    vs_envelope e = seed_envelope();
    vs_classification *c;
    const char *names[] = {"big dear",       "small cheap",     "big cheap",
                           "big cheap twin", "big cheap dated", "big cheap earlier"};
    size_t i;
    add_offer(s, names[0], 80000000000LL, 0, "20.00", "USD", 1, NULL);
    add_offer(s, names[1], 24000000000LL, 0, "9.5", "USD", 1, NULL);
    add_offer(s, names[2], 48000000000LL, 0, "9.50", "USD", 1, NULL);
    add_offer(s, names[3], 48000000000LL, 0, "009.500", "USD", 1, NULL);
    add_offer(s, names[4], 48000000000LL, 0, "9.5", "USD", 1, "2026-12-01");
    add_offer(s, names[5], 48000000000LL, 0, "9.5", "USD", 1, "2026-11-20");
    for (i = 0; i < 6; i++)
        admit_all(s, names[i]);
    c = classify(s, &e);
    ck_assert_uint_eq(c->nretained, 6);
    ck_assert(c->ranked);
    /* Cost first; at equal cost the larger margin; then a documented schedule,
     * the earlier first; equal keys share a rank. */
    ck_assert_uint_eq(c->rows[5].rank, 1); /* 48 GB, 9.5, 2026-11-20 */
    ck_assert_uint_eq(c->rows[4].rank, 2); /* 48 GB, 9.5, 2026-12-01 */
    ck_assert_uint_eq(c->rows[2].rank, 3); /* 48 GB, 9.50, no schedule */
    ck_assert_uint_eq(c->rows[3].rank, 3); /* its exact twin: a tie */
    ck_assert_uint_eq(c->rows[1].rank, 5); /* 24 GB: smaller margin at the same cost */
    ck_assert_uint_eq(c->rows[0].rank, 6); /* the largest margin never beats a lower cost */
    vs_classification_free(c);
    json_decref(s);
}
END_TEST

/* A free-text or impossible `available` compared equal to everything, so the
 * order was not transitive and the ranks depended on the offers' order. Now
 * anything but `now` or a real YYYY-MM-DD ranks as undocumented. */
START_TEST(test_schedule_order_is_total)
{
    static const char *const avail[] = {"2026-12-01", "soon",       "2026-11-20", "now",
                                        "2026-13-45", "2026-02-30", "2024-02-29", "2026-11-20x"};
    /* expected ranks: now, 2024-02-29, 2026-11-20, 2026-12-01, then the rest tied */
    static const size_t want[] = {4, 5, 3, 1, 5, 5, 2, 5};
    size_t order, i;
    for (order = 0; order < 2; order++) {
        json_t *s = seed_sheet();
        vs_envelope e = seed_envelope();
        vs_classification *c;
        char name[32];
        for (i = 0; i < 8; i++) {
            size_t k = order ? 7 - i : i;
            snprintf(name, sizeof name, "offer %zu", k);
            add_offer(s, name, 48000000000LL, 0, "9.5", "USD", 1, avail[k]);
            admit_all(s, name);
        }
        c = classify(s, &e);
        ck_assert(c->ranked);
        for (i = 0; i < 8; i++) {
            size_t k = order ? 7 - i : i;
            ck_assert_msg(c->rows[i].rank == want[k], "%s: rank %zu, expected %zu", avail[k],
                          c->rows[i].rank, want[k]);
        }
        vs_classification_free(c);
        json_decref(s);
    }
}
END_TEST

START_TEST(test_currencies_not_ranked)
{
    json_t *s = seed_sheet();
    vs_envelope e = seed_envelope();
    vs_classification *c;
    add_offer(s, "usd", 48000000000LL, 0, "10", "USD", 1, NULL);
    add_offer(s, "eur", 48000000000LL, 0, "9", "EUR", 1, NULL);
    add_offer(s, "none", 48000000000LL, 0, NULL, NULL, 1, NULL);
    admit_all(s, "usd");
    admit_all(s, "eur");
    c = classify(s, &e);
    ck_assert_uint_eq(c->nretained, 2);
    ck_assert_int_eq(c->ranked, 0);
    ck_assert_int_eq(c->rows[0].ranked, 0);
    ck_assert_int_eq(c->rows[1].ranked, 0);
    ck_assert(has_note(c, "USD and EUR"));
    vs_classification_free(c);

    admit_all(s, "none");
    json_array_remove(vs_sheet_array(s, VS_SK_OFFERS), 1); /* drop the EUR offer */
    c = classify(s, &e);
    ck_assert_int_eq(c->ranked, 0);
    ck_assert(has_note(c, "none has no price"));
    ck_assert(has_note(c, "eur / ")); /* its evidence is now stale */
    vs_classification_free(c);
    json_decref(s);
}
END_TEST

START_TEST(test_evidence_for_unknown_requirement)
{
    json_t *s = seed_sheet();
    vs_envelope e = seed_envelope();
    vs_classification *c;
    add_offer(s, "A", 48000000000LL, 0, NULL, NULL, 1, NULL);
    add_evidence(s, "A", "CUDA 12.4 driver", "exclude"); /* never declared with require */
    add_evidence(s, "B", "length", "admissible");        /* no such candidate */
    ck_assert_ptr_null(vs_classify_requirement_find(s, "CUDA 12.4 driver"));
    c = classify(s, &e);
    ck_assert_int_ne(c->rows[0].verdict, VS_VERDICT_EXCLUDE);
    ck_assert(has_note(c, "A / CUDA 12.4 driver"));
    ck_assert(has_note(c, "B / length"));
    vs_classification_free(c);

    /* Once declared, the same evidence applies and excludes. */
    json_array_append_new(vs_sheet_array(s, VS_SK_REQUIREMENTS),
                          json_pack("{s:s}", "name", "CUDA 12.4 driver"));
    ck_assert_str_eq(vs_classify_requirement_find(s, "cuda 12.4 DRIVER"), "CUDA 12.4 driver");
    c = classify(s, &e);
    ck_assert_uint_eq(c->rows[0].nreqs, 7);
    ck_assert_int_eq(c->rows[0].reqs[6].builtin, 0);
    ck_assert_int_eq(req(&c->rows[0], "CUDA 12.4 driver")->verdict, VS_VERDICT_EXCLUDE);
    ck_assert_int_eq(c->rows[0].verdict, VS_VERDICT_EXCLUDE);
    vs_classification_free(c);
    json_decref(s);
}
END_TEST

START_TEST(test_several_gpus)
{
    json_t *s = seed_sheet();
    vs_envelope e = seed_envelope();
    vs_classification *c;
    /* Envelope 30 GiB per GPU without a placement: two 24 GB cards are not one
     * 48 GB memory space. */
    e.envelope_bytes = 30 * GIB;
    add_offer(s, "2x24", 24000000000LL, 0, NULL, NULL, 2, NULL);
    c = classify(s, &e);
    ck_assert_uint_eq(c->rows[0].capacity_bytes, 24000000000ULL);
    ck_assert_uint_eq(c->rows[0].cards_counted, 1);
    ck_assert_int_eq(c->rows[0].reqs[0].verdict, VS_VERDICT_EXCLUDE);
    ck_assert(has_note(c, "adds nothing"));
    vs_classification_free(c);

    /* With tensor parallelism on 2 GPUs the per-GPU envelope is smaller: it fits. */
    json_object_set_new(s, "placement",
                        json_pack("{s:s, s:i, s:n}", "kind", "tensor", "gpus", 2, "stage"));
    e.gpus = 2;
    e.envelope_bytes = 16 * GIB;
    c = classify(s, &e);
    ck_assert_uint_eq(c->rows[0].cards_counted, 2);
    ck_assert_int_eq(c->rows[0].reqs[0].verdict, VS_VERDICT_ADMISSIBLE);
    ck_assert(!has_note(c, "adds nothing"));
    vs_classification_free(c);

    /* A placement on 4 GPUs cannot run on an offer of 2 cards. */
    json_object_set_new(s, "placement",
                        json_pack("{s:s, s:i, s:n}", "kind", "tensor", "gpus", 4, "stage"));
    e.gpus = 4;
    e.envelope_bytes = 8 * GIB;
    c = classify(s, &e);
    ck_assert_int_eq(c->rows[0].reqs[0].verdict, VS_VERDICT_EXCLUDE);
    ck_assert_ptr_nonnull(strstr(note_of(c, &c->rows[0].reqs[0]), "4 GPUs"));
    /* ... and says so on its own line, with the fix. */
    ck_assert(has_note(c, "2x24: cards=2 is fewer than the placement's gpus=4"));
    ck_assert(has_note(c, "give cards=4, or a placement on 2 GPUs"));
    vs_classification_free(c);
    json_decref(s);
}
END_TEST

START_TEST(test_nominal_cannot_exclude_alone)
{
    /* Issue: an H100 PCIe (80 GB, no device-reported total) was excluded for a
     * 75.84 GiB envelope because 80 GB was read as 74.51 GiB, while the H100 SXM
     * with the same memory (nvidia-smi: 81559 MiB = 79.65 GiB) fits. On a
     * nominal basis, exclusion needs more than 80 GB read as 80 GiB. */
    json_t *s = seed_sheet();
    vs_envelope e = seed_envelope();
    vs_classification *c;
    const vs_classify_req *cap;
    e.envelope_bytes = 7584 * GIB / 100; /* 75.84 GiB */
    add_offer(s, "H100 PCIe", 80000000000LL, 0, NULL, NULL, 1, NULL);
    add_offer(s, "H100 SXM", 80000000000LL, (long long)(81559 * MIB), NULL, NULL, 1, NULL);
    c = classify(s, &e);
    cap = req(&c->rows[0], "capacity");
    ck_assert_str_eq(c->rows[0].capacity_basis, "nominal");
    ck_assert_uint_eq(c->rows[0].nominal_binary_bytes, 80 * GIB);
    ck_assert_int_eq(cap->verdict, VS_VERDICT_TO_CONFIRM);
    ck_assert_int_eq(c->rows[0].verdict, VS_VERDICT_TO_CONFIRM);
    ck_assert_msg(
        strstr(note_of(c, cap), "75.84 GiB") && strstr(note_of(c, cap), "80.00 GB = 74.51 GiB") &&
            strstr(note_of(c, cap), "80.00 GiB, the nominal figure read in binary units") &&
            strstr(note_of(c, cap), "missing: the device-reported total"),
        "%s", note_of(c, cap));
    ck_assert(c->rows[0].margin_bytes < 0); /* the margin stays what it is */
    /* The SXM's device-reported 79.65 GiB: the envelope fits. */
    ck_assert_str_eq(c->rows[1].capacity_basis, "reported");
    ck_assert_int_eq(req(&c->rows[1], "capacity")->verdict, VS_VERDICT_ADMISSIBLE);
    ck_assert_ptr_nonnull(strstr(note_of(c, req(&c->rows[1], "capacity")), "79.65 GiB"));
    vs_classification_free(c);

    /* Exactly 80 GiB: still within the binary reading, to-confirm. */
    e.envelope_bytes = 80 * GIB;
    c = classify(s, &e);
    ck_assert_int_eq(req(&c->rows[0], "capacity")->verdict, VS_VERDICT_TO_CONFIRM);
    ck_assert_int_eq(req(&c->rows[1], "capacity")->verdict, VS_VERDICT_EXCLUDE);
    vs_classification_free(c);

    /* One byte more: beyond any reading of 80 GB, the nominal figure excludes. */
    e.envelope_bytes = 80 * GIB + 1;
    c = classify(s, &e);
    cap = req(&c->rows[0], "capacity");
    ck_assert_int_eq(cap->verdict, VS_VERDICT_EXCLUDE);
    ck_assert_ptr_nonnull(strstr(note_of(c, cap), "and even 80.00 GiB"));
    vs_classification_free(c);

    /* A device-reported total below the need excludes at once (no binary reading). */
    e.envelope_bytes = 7584 * GIB / 100;
    json_object_set_new(json_array_get(vs_sheet_array(s, VS_SK_OFFERS), 0), "reported_bytes",
                        json_integer((json_int_t)(75 * GIB)));
    c = classify(s, &e);
    ck_assert_str_eq(c->rows[0].capacity_basis, "reported");
    ck_assert_int_eq(req(&c->rows[0], "capacity")->verdict, VS_VERDICT_EXCLUDE);
    vs_classification_free(c);
    json_decref(s);
}
END_TEST

START_TEST(test_training_asks_microbatch)
{
    json_t *s = seed_sheet();
    json_t *names;
    json_object_set_new(vs_sheet_card(s), "task", json_string("lora"));
    json_object_set_new(vs_sheet_card(s), "microbatch", json_integer(4));
    names = vs_classify_requirement_names(s);
    ck_assert_str_eq(json_string_value(json_array_get(names, 2)), "microbatch");
    ck_assert_ptr_null(vs_classify_requirement_find(s, "concurrency"));
    ck_assert_str_eq(vs_classify_requirement_find(s, "Micro batch"), "microbatch");
    ck_assert_str_eq(vs_classify_requirement_find(s, "memory actually available"),
                     "available-memory");
    json_decref(names);
    json_decref(s);
}
END_TEST

START_TEST(test_offer_find)
{
    json_t *s = seed_sheet();
    add_offer(s, "RTX 4090", 24000000000LL, 0, NULL, NULL, 1, NULL);
    ck_assert_ptr_nonnull(vs_classify_offer_find(s, "RTX 4090"));
    ck_assert_ptr_nonnull(vs_classify_offer_find(s, "rtx4090"));
    ck_assert_ptr_null(vs_classify_offer_find(s, "RTX 3090"));
    ck_assert_ptr_null(vs_classify_offer_find(s, ""));
    json_decref(s);
}
END_TEST

START_TEST(test_decimal)
{
    ck_assert_int_eq(vs_classify_decimal_cmp("47.14", "47.140"), 0);
    ck_assert_int_eq(vs_classify_decimal_cmp("047.14", "47.14"), 0);
    ck_assert_int_lt(vs_classify_decimal_cmp("9.99", "10"), 0);
    ck_assert_int_gt(vs_classify_decimal_cmp("55.71", "47.14"), 0);
    ck_assert_int_lt(vs_classify_decimal_cmp("0.1", "0.10000000000000000001"), 0);
    ck_assert_int_gt(vs_classify_decimal_cmp("100000000000000000000001", "99999999999999999999999"),
                     0);
    ck_assert_int_eq(vs_classify_decimal_cmp("0", "0.000"), 0);
    ck_assert_int_lt(vs_classify_decimal_cmp("5", "abc"), 0); /* text sorts after numbers */
    ck_assert(vs_classify_decimal_valid("47.14"));
    ck_assert(!vs_classify_decimal_valid("47."));
    ck_assert(!vs_classify_decimal_valid("-1"));
    ck_assert(!vs_classify_decimal_valid("1e3"));
    ck_assert(!vs_classify_decimal_valid(""));
}
END_TEST

START_TEST(test_verdict_names)
{
    vs_verdict v;
    vs_error err = {0};
    ck_assert_int_eq(vs_verdict_parse(&v, "to confirm", &err), 0);
    ck_assert_int_eq(v, VS_VERDICT_TO_CONFIRM);
    ck_assert_int_eq(vs_verdict_parse(&v, "Admissible", &err), 0);
    ck_assert_int_eq(v, VS_VERDICT_ADMISSIBLE);
    ck_assert_int_eq(vs_verdict_parse(&v, "exclude", &err), 0);
    ck_assert_int_eq(v, VS_VERDICT_EXCLUDE);
    ck_assert_int_eq(vs_verdict_parse(&v, "maybe", &err), VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "to-confirm"));
    ck_assert_str_eq(vs_verdict_name(VS_VERDICT_TO_CONFIRM), "to-confirm");
}
END_TEST

/* The reasons as codes and figures, worked by hand for the seed's envelope:
 * 14 x 10^9 B of weights + 6 GiB = 20,442,450,944 B. */
START_TEST(test_reason_codes)
{
    json_t *s = seed_sheet();
    vs_envelope e = seed_envelope();
    vs_classification *c;
    const vs_classify_why *w;
    /* R: 24564 MiB reported = 25,757,220,864 B, two cards without a placement */
    add_offer(s, "R", 24000000000LL, (long long)(24564 * MIB), NULL, NULL, 2, NULL);
    add_offer(s, "N", 20000000000LL, 0, NULL, NULL, 1, NULL); /* 20 GB: 20 GiB read binary */
    add_offer(s, "S", 16000000000LL, 0, NULL, NULL, 1, NULL); /* 16 GB: 16 GiB read binary */
    add_offer(s, "T", 0, (long long)(16 * GIB), NULL, NULL, 1, NULL);
    add_offer(s, "U", 0, 0, NULL, NULL, 1, NULL);
    add_evidence(s, "R", "compatibility", "exclude");
    add_evidence(s, "R", "quality", "admissible");
    add_evidence(s, "S", "capacity", "admissible");
    add_evidence(s, "ghost", "length", "admissible");
    c = classify(s, &e);
    ck_assert_uint_eq(c->nrows, 5);

    w = &req(&c->rows[0], "capacity")->why;
    ck_assert_int_eq(w->code, VS_WHY_CAP_FITS);
    ck_assert_uint_eq(w->need_bytes, 20442450944ULL);
    ck_assert_uint_eq(w->capacity_bytes, 25757220864ULL);
    ck_assert_uint_eq(w->margin_bytes, 5314769920ULL); /* 25,757,220,864 - 20,442,450,944 */
    ck_assert_int_eq(req(&c->rows[0], "length")->why.code, VS_WHY_NO_EVIDENCE);
    ck_assert_int_eq(req(&c->rows[0], "compatibility")->why.code, VS_WHY_EVIDENCE_EXCLUDES);
    ck_assert_int_eq(req(&c->rows[0], "quality")->why.code, VS_WHY_EVIDENCE_ADMITS);

    /* N: 20 x 10^9 < need <= 20 x 2^30 = 21,474,836,480: only the device can tell */
    w = &req(&c->rows[1], "capacity")->why;
    ck_assert_int_eq(w->code, VS_WHY_CAP_NOMINAL_UNSURE);
    ck_assert_int_eq(req(&c->rows[1], "capacity")->verdict, VS_VERDICT_TO_CONFIRM);
    ck_assert_uint_eq(w->margin_bytes, 442450944ULL);
    ck_assert_uint_eq(w->binary_bytes, 21474836480ULL);

    /* S: need > 16 x 2^30 = 17,179,869,184; the admissible evidence lifts nothing */
    w = &req(&c->rows[2], "capacity")->why;
    ck_assert_int_eq(w->code, VS_WHY_CAP_EXCEEDS_NOMINAL);
    ck_assert_int_eq(req(&c->rows[2], "capacity")->verdict, VS_VERDICT_EXCLUDE);
    ck_assert_uint_eq(w->margin_bytes, 4442450944ULL);
    ck_assert_uint_eq(w->binary_bytes, 17179869184ULL);
    ck_assert_int_eq(w->not_offset, 1);

    /* T: 16 GiB reported, short by 20,442,450,944 - 17,179,869,184 */
    w = &req(&c->rows[3], "capacity")->why;
    ck_assert_int_eq(w->code, VS_WHY_CAP_EXCEEDS);
    ck_assert_uint_eq(w->margin_bytes, 3262581760ULL);
    ck_assert_int_eq(w->not_offset, 0);

    ck_assert_int_eq(req(&c->rows[4], "capacity")->why.code, VS_WHY_CAP_UNKNOWN);

    /* R's second card is noted; the ghost's evidence is kept, unused; nothing is
     * retained (R's compatibility is excluded), so no ranking note */
    ck_assert_uint_eq(c->nnotes, 2);
    ck_assert_int_eq(c->notes[0].code, VS_NOTE_CARDS_UNPLACED);
    ck_assert_uint_eq(c->notes[0].row, 0);
    ck_assert_int_eq(c->notes[1].code, VS_NOTE_EVIDENCE_UNUSED);
    ck_assert_str_eq(c->notes[1].text, "ghost");
    ck_assert_str_eq(c->notes[1].text2, "length");
    vs_classification_free(c);

    /* the weights unknown: R fits so far; on two GPUs, N's one card is too few */
    e.weights_known = 0;
    c = classify(s, &e);
    ck_assert_int_eq(req(&c->rows[0], "capacity")->why.code, VS_WHY_CAP_FITS_UNKNOWN);
    vs_classification_free(c);
    e = seed_envelope();
    e.gpus = 2;
    c = classify(s, &e);
    w = &req(&c->rows[1], "capacity")->why;
    ck_assert_int_eq(w->code, VS_WHY_CAP_TOO_FEW_CARDS);
    ck_assert_uint_eq(w->gpus, 2);
    ck_assert_uint_eq(w->cards, 1);
    ck_assert_int_eq(c->notes[0].code, VS_NOTE_TOO_FEW_CARDS);
    ck_assert_uint_eq(c->notes[0].row, 1);
    ck_assert_uint_eq(c->notes[0].gpus, 2);
    vs_classification_free(c);
    json_decref(s);

    /* two retained offers priced in USD and EUR: not ranked, one reason */
    s = seed_sheet();
    e = seed_envelope();
    add_offer(s, "A", 24000000000LL, (long long)(24564 * MIB), "1", "USD", 1, NULL);
    add_offer(s, "B", 24000000000LL, (long long)(24564 * MIB), "1", "EUR", 1, NULL);
    admit_all(s, "A");
    admit_all(s, "B");
    c = classify(s, &e);
    ck_assert_uint_eq(c->nretained, 2);
    ck_assert_int_eq(c->ranked, 0);
    ck_assert_uint_eq(c->nnotes, 2);
    ck_assert_int_eq(c->notes[0].code, VS_NOTE_NOT_RANKED);
    ck_assert_uint_eq(c->notes[0].count, 2);
    ck_assert_uint_eq(c->notes[0].nparts, 1);
    ck_assert_ptr_null(c->notes[0].parts[0].gpu);
    ck_assert_str_eq(c->notes[0].parts[0].currency, "USD");
    ck_assert_str_eq(c->notes[0].parts[0].other, "EUR");
    ck_assert_int_eq(c->notes[1].code, VS_NOTE_PRICES);
    vs_classification_free(c);
    json_decref(s);
}
END_TEST

START_TEST(test_no_offers)
{
    json_t *s = seed_sheet();
    vs_envelope e = seed_envelope();
    vs_classification *c = classify(s, &e);
    ck_assert_uint_eq(c->nrows, 0);
    ck_assert_uint_eq(c->nretained, 0);
    vs_classification_free(c);
    vs_classification_free(NULL);
    json_decref(s);
}
END_TEST

static Suite *classify_suite(void)
{
    Suite *s = suite_create("classify");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_seed_selection);
    tcase_add_test(tc, test_nominal_24gb_passes_seed_envelope);
    tcase_add_test(tc, test_nominal_versus_reported);
    tcase_add_test(tc, test_unknowns_keep_capacity_to_confirm);
    tcase_add_test(tc, test_missing_evidence);
    tcase_add_test(tc, test_exclusion_never_offset);
    tcase_add_test(tc, test_ranking_order_and_ties);
    tcase_add_test(tc, test_currencies_not_ranked);
    tcase_add_test(tc, test_evidence_for_unknown_requirement);
    tcase_add_test(tc, test_several_gpus);
    tcase_add_test(tc, test_nominal_cannot_exclude_alone);
    tcase_add_test(tc, test_training_asks_microbatch);
    tcase_add_test(tc, test_offer_find);
    tcase_add_test(tc, test_decimal);
    tcase_add_test(tc, test_verdict_names);
    tcase_add_test(tc, test_no_offers);
    tcase_add_test(tc, test_schedule_order_is_total);
    tcase_add_test(tc, test_reason_codes);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return vs_check_run(classify_suite());
}
