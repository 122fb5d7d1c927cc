/* Tests of the GPU verbs (gpu, gpus, require, evidence, candidates) through the
 * interpreter, as a notebook cell would run them. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "lang/interp.h"
#include "render/bundle.h"
#include "util/error.h"

#include "check_run.h"
#include "results.h"

#include "cell_run.h"

#define MIB (1024ULL * 1024ULL)
#define GIB (1024ULL * 1024ULL * 1024ULL)

static json_t *row_of(json_t *cands, const char *gpu)
{
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(cands, "rows"), i, r)
    {
        if (!strcmp(json_string_value(json_object_get(r, "gpu")), gpu))
            return r;
    }
    ck_abort_msg("no row for %s", gpu);
    return NULL;
}

static const char *req_verdict(json_t *row, const char *name)
{
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(row, "requirements"), i, r)
    {
        if (!strcmp(json_string_value(json_object_get(r, "name")), name))
            return json_string_value(json_object_get(r, "verdict"));
    }
    ck_abort_msg("no requirement %s", name);
    return NULL;
}

static int notes_have(json_t *p, const char *needle)
{
    size_t i;
    json_t *n;
    json_array_foreach(json_object_get(p, "notes"), i, n)
    {
        if (strstr(json_string_value(n), needle))
            return 1;
    }
    return 0;
}

START_TEST(test_gpu_catalogue_fills)
{
    json_t *o;
    run_ok("gpu \"RTX 4090\" memory=24GB price=47.14USD period=3d cards=1");
    ck_assert_str_eq(json_string_value(json_object_get(lastp(), "kind")), "offer");
    o = json_object_get(lastp(), "offer");
    ck_assert_int_eq(json_integer_value(json_object_get(o, "memory_bytes")), 24000000000LL);
    ck_assert_int_eq(json_integer_value(json_object_get(o, "reported_bytes")),
                     (json_int_t)(24564 * MIB));
    ck_assert_str_eq(json_string_value(json_object_get(o, "price")), "47.14");
    ck_assert_str_eq(json_string_value(json_object_get(o, "currency")), "USD");
    ck_assert_str_eq(json_string_value(json_object_get(o, "period")), "3d");
    ck_assert_str_eq(json_string_value(json_object_get(o, "catalog")), "RTX 4090");
    ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(o, "reported_basis")), "24564"));
    ck_assert_ptr_nonnull(strstr(text(last()), "22.35 GiB"));
    ck_assert_ptr_nonnull(json_object_get(last(), "text/html"));

    /* the catalogue's entry as the payload carries it, in this order: the
     * RTX 4090's row of the catalogue (24 GB as marketed, 24564 MiB reported
     * = 25,757,220,864 bytes, ECC off, bf16 and fp8, three sources: the memory, the SM
     * count, the threads a SM) */
    {
        static const char *const order[] = {"name", "memory_bytes", "reported_bytes", "ecc",
                                            "bf16", "fp8",          "sources",        NULL};
        json_t *cat = json_object_get(lastp(), "catalog");
        void *it = json_object_iter(cat);
        size_t i;
        ck_assert_str_eq(json_string_value(json_object_get(lastp(), "kind")), "offer");
        for (i = 0; order[i]; i++, it = json_object_iter_next(cat, it)) {
            ck_assert_ptr_nonnull(it);
            ck_assert_str_eq(json_object_iter_key(it), order[i]);
        }
        ck_assert_ptr_null(it);
        ck_assert_str_eq(json_string_value(json_object_get(cat, "name")), "RTX 4090");
        ck_assert_int_eq(json_integer_value(json_object_get(cat, "memory_bytes")), 24000000000LL);
        ck_assert_int_eq(json_integer_value(json_object_get(cat, "reported_bytes")), 25757220864LL);
        ck_assert_str_eq(json_string_value(json_object_get(cat, "ecc")), "off");
        ck_assert(json_is_true(json_object_get(cat, "bf16")));
        ck_assert(json_is_true(json_object_get(cat, "fp8")));
        ck_assert_int_eq(json_array_size(json_object_get(cat, "sources")), 3);
        ck_assert(json_is_array(json_object_get(lastp(), "notes")));
    }
    /* the offer's keys in the order the records have always had them */
    {
        static const char *const order[] = {
            "name",   "memory_bytes", "reported_bytes", "reported_basis", "price",   "currency",
            "period", "cards",        "available",      "interconnect",   "catalog", NULL};
        json_t *off = json_object_get(lastp(), "offer");
        void *it = json_object_iter(off);
        size_t i;
        for (i = 0; order[i]; i++, it = json_object_iter_next(off, it)) {
            ck_assert_ptr_nonnull(it);
            ck_assert_str_eq(json_object_iter_key(it), order[i]);
        }
        ck_assert(json_is_null(json_object_get(off, "available")));
        ck_assert_int_eq(json_integer_value(json_object_get(off, "cards")), 1);
    }

    /* the offer's lines are "  %-22s %s": printf's own padding of each label
     * (22 bytes, then one space) read back from the text */
    {
        static const char *const labels[] = {"nominal memory", "reported total", "package",
                                             "available", NULL};
        const char *t = text(last());
        size_t i;
        for (i = 0; labels[i]; i++) {
            char want[64];
            snprintf(want, sizeof want, "\n  %-22s ", labels[i]);
            ck_assert_msg(strstr(t, want) != NULL, "no line '%s' in:\n%s", want + 1, t);
        }
        ck_assert_ptr_nonnull(strstr(t, "\n  nominal memory         24,000,000,000 B"));
    }

    /* Nothing given: the catalogue's nominal memory fills memory_bytes. */
    run_ok("gpu rtx4090");
    o = json_object_get(lastp(), "offer");
    ck_assert_int_eq(json_integer_value(json_object_get(o, "memory_bytes")), 24000000000LL);
    ck_assert(json_is_null(json_object_get(o, "price")));
    /* the chart's legend names the basis, not the catalogue's whole citation */
    run_ok("model m params=7B\nformat bf16\nenvelope");
    {
        const char *svg = json_string_value(json_object_get(last(), "image/svg+xml"));
        ck_assert_ptr_nonnull(svg);
        ck_assert_ptr_nonnull(strstr(svg, "(device-reported, catalogue)"));
        ck_assert_ptr_null(strstr(svg, "https://"));
    }
}
END_TEST

START_TEST(test_gpu_person_wins)
{
    json_t *o;
    run_ok("gpu \"RTX 4090\" reported=24000MiB");
    o = json_object_get(lastp(), "offer");
    ck_assert_int_eq(json_integer_value(json_object_get(o, "reported_bytes")),
                     (json_int_t)(24000 * MIB));
    ck_assert_str_eq(json_string_value(json_object_get(o, "reported_basis")),
                     "declared with reported= (no source given)");
    /* With its source, the offer records where the figure comes from. */
    run_ok("gpu \"H100 PCIe\" reported=81559MiB reported_source=\"nvidia-smi on the rented host, "
           "2026-11-30\"");
    o = json_object_get(lastp(), "offer");
    ck_assert_int_eq(json_integer_value(json_object_get(o, "reported_bytes")),
                     (json_int_t)(81559 * MIB));
    ck_assert_str_eq(json_string_value(json_object_get(o, "reported_basis")),
                     "declared with reported=; source: nvidia-smi on the rented host, 2026-11-30");
    ck_assert_int_eq(json_integer_value(json_object_get(o, "memory_bytes")), 80000000000LL);
    /* A source with no figure is refused, with the fix. */
    ck_assert_int_eq(run("gpu \"H100 PCIe\" reported_source=\"nvidia-smi\""), VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "give reported=AMOUNT too"));
    ck_assert_int_eq(err.column, 17);
    /* A nominal figure other than the catalogue's: its reported total is not used. */
    run_ok("gpu \"RTX 4090\" memory=20GB");
    o = json_object_get(lastp(), "offer");
    ck_assert_int_eq(json_integer_value(json_object_get(o, "memory_bytes")), 20000000000LL);
    ck_assert(json_is_null(json_object_get(o, "reported_bytes")));
    ck_assert(notes_have(lastp(), "differs"));
}
END_TEST

START_TEST(test_gpu_not_in_catalogue)
{
    json_t *o;
    ck_assert_int_eq(run("gpu \"Voodoo 5\" price=1USD"), VS_ENOTFOUND);
    ck_assert_int_eq(err.line, 1);
    ck_assert_int_eq(err.column, 5);
    ck_assert_int_eq(run("gpu A100"), VS_ENOTFOUND);
    ck_assert_ptr_nonnull(strstr(err.message, "A100 80GB"));
    run_ok("gpu \"Voodoo 5\" memory=32GB");
    o = json_object_get(lastp(), "offer");
    ck_assert(json_is_null(json_object_get(o, "catalog")));
    /* no entry: the payload's catalogue is null */
    ck_assert(json_is_null(json_object_get(lastp(), "catalog")));
    ck_assert_int_eq(json_integer_value(json_object_get(o, "memory_bytes")), 32000000000LL);
    /* An offer with its own name points at a catalogue entry with catalog=. */
    run_ok("gpu \"lot A\" catalog=\"GeForce RTX 4090\" price=10.5EUR");
    o = json_object_get(lastp(), "offer");
    ck_assert_str_eq(json_string_value(json_object_get(o, "catalog")), "RTX 4090");
    ck_assert_str_eq(json_string_value(json_object_get(o, "currency")), "EUR");
    ck_assert_int_eq(run("gpu \"lot B\" catalog=\"RTX 9999\""), VS_ENOTFOUND);
}
END_TEST

START_TEST(test_gpu_bad_values)
{
    ck_assert_int_eq(run("gpu \"RTX 4090\" price=47.14"), VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "47.14USD"));
    ck_assert_int_eq(err.column, 22);
    ck_assert_int_eq(run("gpu \"RTX 4090\" price=USD"), VS_EVALUE);
    ck_assert_int_eq(run("gpu \"RTX 4090\" price=4.7e1USD"), VS_EVALUE);
    ck_assert_int_eq(run("gpu \"RTX 4090\" period=3days"), VS_EVALUE);
    ck_assert_int_eq(run("gpu \"RTX 4090\" period=0d"), VS_EVALUE);
    ck_assert_int_eq(run("gpu \"RTX 4090\" period=000h"), VS_EVALUE);
    ck_assert_int_eq(run("gpu \"RTX 4090\" cards=0"), VS_EVALUE);
    ck_assert_int_eq(run("gpu \"RTX 4090\" memory=24"), VS_EUNIT);
    ck_assert_int_eq(run("gpu \"RTX 4090\" speed=fast"), VS_EVALUE);
    ck_assert_int_eq(run("gpu"), VS_EVALUE);
    ck_assert_int_eq(run("gpu \"RTX 4090\" extra"), VS_EVALUE);
}
END_TEST

START_TEST(test_gpus_lists_catalogue)
{
    json_t *p;
    run_ok("gpus");
    p = lastp();
    ck_assert_str_eq(json_string_value(json_object_get(p, "kind")), "catalog");
    ck_assert_uint_ge(json_array_size(json_object_get(p, "gpus")), 16);
    ck_assert_ptr_nonnull(strstr(text(last()), "143771 MiB"));
    run_ok("gpus a100");
    ck_assert_uint_eq(json_array_size(json_object_get(lastp(), "gpus")), 2);
}
END_TEST

START_TEST(test_require_and_evidence_errors)
{
    json_t *p, *row;
    run_ok("gpu \"RTX 4090\" memory=24GB\nrequire \"CUDA 12.4 driver\"");
    p = lastp();
    ck_assert_str_eq(json_string_value(json_object_get(p, "kind")), "requirements");
    ck_assert_uint_eq(json_array_size(json_object_get(p, "requirements")), 7);
    run_ok("require \"cuda 12.4 DRIVER\""); /* the same requirement, spelled differently */
    ck_assert_uint_eq(json_array_size(json_object_get(lastp(), "requirements")), 7);
    ck_assert(json_is_false(json_object_get(lastp(), "new")));
    ck_assert_int_eq(run("require capacity"), VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "built-in"));

    /* Unknown candidate: the error lists the known ones. */
    ck_assert_int_eq(run("evidence \"RTX 3090\" compatibility admissible source=x"), VS_ENOTFOUND);
    ck_assert_ptr_nonnull(strstr(err.message, "\"RTX 4090\""));
    ck_assert_int_eq(err.column, 10);
    /* Unknown requirement: the error lists the requirements. */
    ck_assert_int_eq(run("evidence \"RTX 4090\" \"ROCm 6\" admissible source=x"), VS_ENOTFOUND);
    ck_assert_ptr_nonnull(strstr(err.message, "\"capacity\""));
    ck_assert_ptr_nonnull(strstr(err.message, "\"CUDA 12.4 driver\""));
    ck_assert_ptr_nonnull(strstr(err.message, "require"));
    /* No source: refused. */
    ck_assert_int_eq(run("evidence \"RTX 4090\" compatibility admissible"), VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "source="));
    ck_assert_int_eq(run("evidence \"RTX 4090\" compatibility admissible source=\"\""), VS_EVALUE);
    ck_assert_int_eq(run("evidence \"RTX 4090\" compatibility perhaps source=x"), VS_EVALUE);

    /* A failing line leaves the cell's earlier evidence out of the sheet. */
    ck_assert_int_eq(run("evidence \"RTX 4090\" quality admissible source=eval\n"
                         "evidence \"RTX 4090\" nonsense admissible source=x"),
                     VS_ENOTFOUND);
    run_ok("candidates");
    row = row_of(lastp(), "RTX 4090");
    ck_assert_str_eq(req_verdict(row, "quality"), "to-confirm");
}
END_TEST

START_TEST(test_evidence_decides_and_replaces)
{
    json_t *row, *p;
    run_ok("gpu \"RTX 4090\" memory=24GB\n"
           "evidence rtx4090 \"software compatibility\" admissible source=\"provider image "
           "list\" version=2026-11 scope=\"lot of 1 card\"");
    p = lastp();
    ck_assert_str_eq(json_string_value(json_object_get(p, "kind")), "evidence");
    ck_assert_str_eq(
        json_string_value(json_object_get(json_object_get(p, "evidence"), "candidate")),
        "RTX 4090");
    ck_assert_str_eq(
        json_string_value(json_object_get(json_object_get(p, "evidence"), "requirement")),
        "compatibility");
    ck_assert_str_eq(json_string_value(json_object_get(p, "requirement_verdict")), "admissible");
    run_ok("candidates");
    row = row_of(lastp(), "RTX 4090");
    ck_assert_str_eq(req_verdict(row, "compatibility"), "admissible");
    /* The same source, version and scope again replaces the verdict. */
    run_ok("evidence \"RTX 4090\" compatibility exclude source=\"provider image list\" "
           "version=2026-11 scope=\"lot of 1 card\"\ncandidates");
    row = row_of(lastp(), "RTX 4090");
    ck_assert_str_eq(req_verdict(row, "compatibility"), "exclude");
    ck_assert_str_eq(json_string_value(json_object_get(row, "verdict")), "exclude");
    {
        json_t *reqs = json_object_get(row, "requirements"), *r;
        size_t i;
        json_array_foreach(reqs, i, r)
        {
            if (!strcmp(json_string_value(json_object_get(r, "name")), "compatibility"))
                ck_assert_uint_eq(json_array_size(json_object_get(r, "evidence")), 1);
        }
    }
}
END_TEST

static void admit_everything(const char *gpu)
{
    static const char *const reqs[] = {"length",        "concurrency", "available-memory",
                                       "compatibility", "quality",     NULL};
    char cell[256];
    size_t i;
    for (i = 0; reqs[i]; i++) {
        snprintf(cell, sizeof cell, "evidence \"%s\" %s admissible source=test", gpu, reqs[i]);
        run_ok(cell);
    }
}

START_TEST(test_seed_selection)
{
    /* The worked example: 7e9 params at 16 bits with a 6 GiB reserve (19.04 GiB); the RTX
     * 4090 (24 GB, 47.14 USD) and RTX 6000 Ada (48 GB, 55.71 USD), lots of one
     * card for 3 days. */
    json_t *p, *r4, *r6;
    const char *implied[] = {"length",        "concurrency", "available-memory",
                             "compatibility", "quality",     NULL};
    size_t i;
    run_ok("model example/llama-7b params=7e9\ntask inference\nformat bf16\nreserve 6GiB\n"
           "gpu \"RTX 4090\" memory=24GB price=47.14USD period=3d cards=1\n"
           "gpu \"RTX 6000 Ada\" memory=48GB price=55.71USD period=3d cards=1\n"
           "candidates");
    p = lastp();
    ck_assert_str_eq(json_string_value(json_object_get(p, "kind")), "candidates");
    ck_assert_int_eq(json_integer_value(json_object_get(p, "envelope_bytes")),
                     (json_int_t)(14000000000ULL + 6 * GIB));
    r4 = row_of(p, "RTX 4090");
    r6 = row_of(p, "RTX 6000 Ada");
    ck_assert_str_eq(json_string_value(json_object_get(r4, "capacity_basis")), "reported");
    ck_assert_int_eq(json_integer_value(json_object_get(r4, "nominal_bytes")), 24000000000LL);
    ck_assert_str_eq(json_string_value(json_object_get(r6, "capacity_basis")), "nominal");
    ck_assert_int_eq(json_integer_value(json_object_get(r6, "capacity_bytes")), 48000000000LL);
    ck_assert_str_eq(req_verdict(r4, "capacity"), "admissible");
    ck_assert_str_eq(req_verdict(r6, "capacity"), "admissible");
    for (i = 0; implied[i]; i++) {
        ck_assert_str_eq(req_verdict(r4, implied[i]), "to-confirm");
        ck_assert_str_eq(req_verdict(r6, implied[i]), "to-confirm");
    }
    ck_assert_str_eq(json_string_value(json_object_get(r4, "verdict")), "to-confirm");
    ck_assert(json_is_null(json_object_get(r4, "rank")));
    ck_assert(json_is_null(json_object_get(r6, "rank")));
    ck_assert_int_eq(json_integer_value(json_object_get(p, "retained")), 0);
    ck_assert(notes_have(p, "rank no speed"));
    ck_assert_ptr_nonnull(strstr(text(last()), "19.04 GiB"));
    ck_assert_ptr_nonnull(strstr(text(last()), "22.35 GiB"));
    ck_assert_ptr_nonnull(strstr(text(last()), "nothing is ranked"));
    ck_assert_ptr_nonnull(json_object_get(last(), "text/html"));
    /* The budget chart draws both offers' capacity lines. */
    ck_assert_ptr_nonnull(
        strstr(json_string_value(json_object_get(last(), "image/svg+xml")), "RTX 6000 Ada"));

    /* Every requirement confirmed for both: ranked by package cost. */
    admit_everything("RTX 4090");
    admit_everything("RTX 6000 Ada");
    run_ok("candidates");
    p = lastp();
    ck_assert_int_eq(json_integer_value(json_object_get(row_of(p, "RTX 4090"), "rank")), 1);
    ck_assert_int_eq(json_integer_value(json_object_get(row_of(p, "RTX 6000 Ada"), "rank")), 2);
}
END_TEST

START_TEST(test_second_card_needs_placement)
{
    json_t *p;
    run_ok("model x params=7e9\nformat bf16\nreserve 6GiB\n"
           "gpu \"2x RTX 3090\" catalog=\"RTX 3090\" cards=2\ncandidates");
    p = lastp();
    ck_assert(notes_have(p, "adds nothing"));
    ck_assert_int_eq(json_integer_value(json_object_get(row_of(p, "2x RTX 3090"), "cards_counted")),
                     1);
    /* A named placement on 2 GPUs counts both cards, and the envelope is per GPU. */
    run_ok("placement tensor gpus=2\ncandidates");
    p = lastp();
    ck_assert(!notes_have(p, "adds nothing"));
    ck_assert_int_eq(json_integer_value(json_object_get(row_of(p, "2x RTX 3090"), "cards_counted")),
                     2);
    ck_assert_int_eq(json_integer_value(json_object_get(p, "gpus")), 2);
    ck_assert_int_lt(json_integer_value(json_object_get(p, "envelope_bytes")),
                     (json_int_t)(14000000000ULL + 6 * GIB));
    ck_assert_str_eq(req_verdict(row_of(p, "2x RTX 3090"), "capacity"), "admissible");
    /* On 4 GPUs, an offer of 2 cards cannot hold the placement. */
    run_ok("placement tensor gpus=4\ncandidates");
    ck_assert_str_eq(req_verdict(row_of(lastp(), "2x RTX 3090"), "capacity"), "exclude");
}
END_TEST

START_TEST(test_gpu_names_forgiven)
{
    json_t *o;
    /* The vendor's name without the memory type is the H100 SXM (nvidia-smi
     * prints "NVIDIA H100 80GB HBM3" for it), as the full name already was. */
    run_ok("gpu \"H100 80GB\"");
    o = json_object_get(lastp(), "offer");
    ck_assert_str_eq(json_string_value(json_object_get(o, "catalog")), "H100 SXM");
    ck_assert_int_eq(json_integer_value(json_object_get(o, "reported_bytes")),
                     (json_int_t)(81559 * MIB));
    run_ok("gpu \"NVIDIA H100 80GB HBM3\"");
    o = json_object_get(lastp(), "offer");
    ck_assert_str_eq(json_string_value(json_object_get(o, "catalog")), "H100 SXM");

    /* Unquoted words: the fix, with the catalogue's spelling, at the name. */
    ck_assert_int_eq(run("gpu h100 sxm"), VS_EVALUE);
    ck_assert_str_eq(err.message, "quote a name with spaces: gpu \"H100 SXM\"");
    ck_assert_int_eq(err.column, 5);
    ck_assert_int_eq(run("gpu rtx 4090 price=47.14USD"), VS_EVALUE);
    ck_assert_str_eq(err.message, "quote a name with spaces: gpu \"RTX 4090\"");
    /* Words the catalogue does not know are quoted as written. */
    ck_assert_int_eq(run("gpu my lab card memory=24GB"), VS_EVALUE);
    ck_assert_str_eq(err.message, "quote a name with spaces: gpu \"my lab card\"");
    /* A quoted name followed by a stray word is another mistake: the syntax. */
    ck_assert_int_eq(run("gpu \"RTX 4090\" spare"), VS_EVALUE);
    ck_assert_ptr_null(strstr(err.message, "quote a name"));
}
END_TEST

START_TEST(test_nominal_basis_cannot_exclude_alone)
{
    /* 1e9 params at 16 bits (2,000,000,000 B) + 73.98 GiB reserve
     * (73 x 2^30 + 0.98 x 2^30 = 79,435,420,139.52, rounded up to 79,435,420,140 B)
     * = 81,435,420,140 B = 75.84 GiB per GPU:
     * above 80 GB = 74.51 GiB, below 80 GiB = 85,899,345,920 B, below the
     * H100 SXM's 81559 MiB = 85,520,809,984 B. */
    json_t *p, *pcie, *sxm, *r;
    size_t i;
    const char *note = NULL;
    run_ok("model x params=1e9\nformat bf16\nreserve 73.98GiB\n"
           "gpu \"H100 PCIe\"\ngpu \"H100 SXM\"\ncandidates");
    p = lastp();
    ck_assert_int_eq(json_integer_value(json_object_get(p, "envelope_bytes")), 81435420140LL);
    pcie = row_of(p, "H100 PCIe");
    sxm = row_of(p, "H100 SXM");
    ck_assert_str_eq(json_string_value(json_object_get(pcie, "capacity_basis")), "nominal");
    ck_assert_str_eq(req_verdict(pcie, "capacity"), "to-confirm");
    json_array_foreach(json_object_get(pcie, "requirements"), i, r)
    {
        if (!strcmp(json_string_value(json_object_get(r, "name")), "capacity"))
            note = json_string_value(json_object_get(r, "note"));
    }
    ck_assert_ptr_nonnull(note);
    ck_assert_msg(strstr(note, "80.00 GiB, the nominal figure read in binary units") &&
                      strstr(note, "missing: the device-reported total"),
                  "%s", note);
    ck_assert_str_eq(json_string_value(json_object_get(sxm, "capacity_basis")), "reported");
    ck_assert_str_eq(req_verdict(sxm, "capacity"), "admissible");

    /* Given the card's own total, the check is on it: 75 GiB excludes. */
    run_ok("gpu \"H100 PCIe\" reported=75GiB reported_source=\"nvidia-smi\"\ncandidates");
    ck_assert_str_eq(req_verdict(row_of(lastp(), "H100 PCIe"), "capacity"), "exclude");
}
END_TEST

START_TEST(test_cards_fewer_than_placement)
{
    const char *t;
    run_ok("model x params=7e9\nformat bf16\nreserve 6GiB\nplacement tensor gpus=2\n"
           "gpu \"RTX 4090\" cards=1\ncandidates");
    ck_assert(notes_have(lastp(), "RTX 4090: cards=1 is fewer than the placement's gpus=2"));
    t = strstr(text(last()), "RTX 4090: cards=1 is fewer than the placement's gpus=2");
    ck_assert_msg(t && (t[-1] == '\n' || t[-1] == ' '), "not on its own line:\n%s", text(last()));
    run_ok("envelope");
    t = text(last());
    ck_assert_msg(strstr(t, "\nRTX 4090: cards=1 is fewer than the placement's gpus=2: the per-GPU "
                            "envelope does not apply to this offer (give cards=2, or a placement "
                            "on 1 GPU)\n"),
                  "%s", t);
    /* Enough cards: no such line. */
    run_ok("gpu \"RTX 4090\" cards=2\nenvelope");
    ck_assert_ptr_null(strstr(text(last()), "is fewer than the placement"));
}
END_TEST

/* The chart of the bundle of kind kind in the last cell (the first one). */
static const char *chart_of(const char *kind)
{
    size_t i;
    json_t *b;
    json_array_foreach(st.bundles, i, b)
    {
        if (!strcmp(gets(payload(b), "kind"), kind))
            return json_string_value(json_object_get(b, "image/svg+xml"));
    }
    return NULL;
}

/* `candidates` draws the chart of `envelope`, and the cell keeps the last one
 * drawn: after a writer moved the card between them (`format int8` halves the
 * weights: 7e9 B = 6.52 GiB where bf16's 14e9 B are 13.04 GiB), candidates'
 * chart must be the new one, as the next cell draws it afresh; with nothing
 * between them the two charts are one. */
START_TEST(test_candidates_chart_follows_the_card)
{
    char *env_svg, *cand_svg;
    run_ok("model m params=7B\nformat bf16\ngpu rtx4090\nenvelope\nformat int8\ncandidates");
    ck_assert_ptr_nonnull(chart_of("envelope"));
    ck_assert_ptr_nonnull(chart_of("candidates"));
    env_svg = strdup(chart_of("envelope"));
    cand_svg = strdup(chart_of("candidates"));
    ck_assert_ptr_nonnull(strstr(env_svg, "13.04 GiB"));
    ck_assert_ptr_nonnull(strstr(cand_svg, "6.52 GiB"));
    ck_assert_str_ne(env_svg, cand_svg);
    run_ok("candidates");
    ck_assert_str_eq(chart_of("candidates"), cand_svg);
    free(cand_svg);
    free(env_svg);
    /* a component set between them moves the chart too */
    run_ok("envelope\nreserve workspace 2GiB status=estimated source=\"a guess\"\ncandidates");
    ck_assert_str_ne(chart_of("envelope"), chart_of("candidates"));
    cand_svg = strdup(chart_of("candidates"));
    run_ok("candidates");
    ck_assert_str_eq(chart_of("candidates"), cand_svg);
    free(cand_svg);
    /* nothing between them: the same chart */
    run_ok("envelope\ncandidates");
    ck_assert_str_eq(chart_of("envelope"), chart_of("candidates"));
}
END_TEST

static Suite *verbs_gpu_suite(void)
{
    Suite *s = suite_create("verbs_gpu");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_gpu_catalogue_fills);
    tcase_add_test(tc, test_gpu_person_wins);
    tcase_add_test(tc, test_gpu_not_in_catalogue);
    tcase_add_test(tc, test_gpu_bad_values);
    tcase_add_test(tc, test_gpus_lists_catalogue);
    tcase_add_test(tc, test_require_and_evidence_errors);
    tcase_add_test(tc, test_evidence_decides_and_replaces);
    tcase_add_test(tc, test_seed_selection);
    tcase_add_test(tc, test_second_card_needs_placement);
    tcase_add_test(tc, test_gpu_names_forgiven);
    tcase_add_test(tc, test_nominal_basis_cannot_exclude_alone);
    tcase_add_test(tc, test_cards_fewer_than_placement);
    tcase_add_test(tc, test_candidates_chart_follows_the_card);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return vs_check_run(verbs_gpu_suite());
}
