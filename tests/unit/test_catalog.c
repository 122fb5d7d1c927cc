/* Unit tests for src/catalog: the embedded GPU catalogue and its name lookup. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"

#include "check_run.h"

#define MIB (1024ULL * 1024ULL)

static void find_ok(const char *query, const char *expected)
{
    vs_gpu_spec s;
    vs_error err = {0};
    int rc = vs_catalog_find(&s, query, &err);
    ck_assert_msg(rc == 0, "'%s': %s", query, err.message);
    ck_assert_str_eq(s.name, expected);
}

START_TEST(test_required_entries)
{
    static const char *const required[] = {
        "H200",      "H100 SXM", "H100 PCIe", "H100 NVL",  "B200",      "A100 40GB",
        "A100 80GB", "L40S",     "L4",        "A10",       "A10G",      "RTX 6000 Ada",
        "RTX 5090",  "RTX 4090", "RTX 3090",  "RTX A6000", "V100 16GB", "V100 32GB",
        "T4",        "MI300X",   "MI325X",    NULL};
    size_t i;
    for (i = 0; required[i]; i++)
        find_ok(required[i], required[i]);
}
END_TEST

START_TEST(test_aliases_and_spelling)
{
    find_ok("RTX 4090", "RTX 4090");
    find_ok("rtx4090", "RTX 4090");
    find_ok("GeForce RTX 4090", "RTX 4090");
    find_ok("NVIDIA GeForce RTX 4090", "RTX 4090");
    find_ok("  rtx-4090 ", "RTX 4090");
    find_ok("NVIDIA RTX 6000 Ada Generation", "RTX 6000 Ada");
    find_ok("A100-SXM4-80GB", "A100 80GB");
    find_ok("NVIDIA H100 80GB HBM3", "H100 SXM");
    /* The vendor's name without the memory type: the same card (nvidia-smi
     * prints "NVIDIA H100 80GB HBM3" for the SXM module). */
    find_ok("H100 80GB", "H100 SXM");
    find_ok("h100 80gb", "H100 SXM");
    find_ok("NVIDIA H100 NVL", "H100 NVL");
    find_ok("NVIDIA GeForce RTX 5090", "RTX 5090");
    find_ok("A10", "A10");
    find_ok("AMD Instinct MI325X", "MI325X");
    find_ok("Tesla T4", "T4");
    find_ok("AMD Instinct MI300X", "MI300X");
    find_ok("rtx a6000", "RTX A6000");
}
END_TEST

START_TEST(test_key)
{
    char k[64];
    ck_assert_str_eq(vs_catalog_key(k, sizeof k, "NVIDIA GeForce RTX 4090"), "rtx4090");
    ck_assert_str_eq(vs_catalog_key(k, sizeof k, "A100-SXM4-80GB"), "a100sxm480gb");
    ck_assert_str_eq(vs_catalog_key(k, sizeof k, ""), "");
    /* Truncation is safe and terminated. */
    ck_assert_str_eq(vs_catalog_key(k, 4, "RTX 4090"), "rtx");
}
END_TEST

/* Each figure below is the MiB nvidia-smi printed in the public capture the
 * catalogue links (the link is in the comment), times 2^20 by hand. */
START_TEST(test_figures_from_public_captures)
{
    static const struct {
        const char *name;
        uint64_t mib, bytes;
        const char *ecc;
    } want[] = {
        /* sgl-project/sglang#3196: 143771MiB */
        {"H200", 143771, 150754820096ULL, "on"},
        /* NVIDIA/nccl#1264: 81559MiB */
        {"H100 SXM", 81559, 85520809984ULL, "on"},
        /* NVIDIA/gpu-admin-tools#4: 95830MiB */
        {"H100 NVL", 95830, 100485038080ULL, "on"},
        /* NVIDIA/TensorRT-LLM#10278: 183359MiB */
        {"B200", 183359, 192265846784ULL, "on"},
        /* modal-labs/modal-client#2797: A100 40GB 40960MiB, L4 23034MiB, T4 15360MiB */
        {"A100 40GB", 40960, 42949672960ULL, NULL},
        {"L4", 23034, 24152899584ULL, "on"},
        {"T4", 15360, 16106127360ULL, "on"},
        /* akash-network/provider-configs#99: 46068 MiB */
        {"L40S", 46068, 48305799168ULL, "on"},
        /* NVIDIA/DCGM#232: 23028MiB */
        {"A10G", 23028, 24146608128ULL, "on"},
        /* noonghunna/club-3090#617: 32607MiB, ECC N/A */
        {"RTX 5090", 32607, 34190917632ULL, "unsupported"},
        /* RLinf/RLinf#255: 24564MiB, ECC Off */
        {"RTX 4090", 24564, 25757220864ULL, "off"},
        /* noonghunna/club-3090#1047: NVIDIA RTX A6000 | 49140 MiB (49140 x 1048576) */
        {"RTX A6000", 49140, 51527024640ULL, "off"},
        /* 1CatAI/1Cat-vLLM#85: 16384MiB; Wan-Video/Wan2.1#5: 32768MiB */
        {"V100 16GB", 16384, 17179869184ULL, "on"},
        {"V100 32GB", 32768, 34359738368ULL, "on"},
    };
    size_t i;
    for (i = 0; i < sizeof want / sizeof want[0]; i++) {
        vs_gpu_spec s;
        vs_error err = {0};
        ck_assert_int_eq(vs_catalog_find(&s, want[i].name, &err), 0);
        ck_assert_msg(s.reported_known, "%s", want[i].name);
        ck_assert_uint_eq(s.reported_mib, want[i].mib);
        ck_assert_uint_eq(s.reported_bytes, want[i].bytes);
        if (want[i].ecc)
            ck_assert_str_eq(s.ecc, want[i].ecc);
        ck_assert_msg(s.reported_source && !strncmp(s.reported_source, "https://", 8), "%s: %s",
                      want[i].name, s.reported_source ? s.reported_source : "(none)");
    }
    {
        vs_gpu_spec s;
        vs_error err = {0};
        ck_assert_int_eq(vs_catalog_find(&s, "H200", &err), 0);
        ck_assert_uint_eq(s.memory_bytes, 141000000000ULL);
        ck_assert_int_eq(vs_catalog_find(&s, "RTX 4090", &err), 0);
        ck_assert_uint_eq(s.memory_bytes, 24000000000ULL);
        ck_assert_int_eq(vs_catalog_find(&s, "RTX A6000", &err), 0);
        ck_assert_int_eq(s.fp8_known, 1);
        ck_assert_int_eq(s.fp8, 0);
        ck_assert_int_eq(s.bf16_known, 1);
        ck_assert_int_eq(s.bf16, 1);
        ck_assert_int_eq(vs_catalog_find(&s, "V100 32GB", &err), 0);
        ck_assert_int_eq(s.bf16, 0);
    }
}
END_TEST

START_TEST(test_unknown_stays_unknown)
{
    /* No public capture was sourced for these: the catalogue must not invent
     * one, and says why. */
    static const char *const unknown[] = {"H100 PCIe", "RTX 6000 Ada", "MI300X", "MI325X", NULL};
    size_t i;
    for (i = 0; unknown[i]; i++) {
        vs_gpu_spec s;
        vs_error err = {0};
        ck_assert_int_eq(vs_catalog_find(&s, unknown[i], &err), 0);
        ck_assert_msg(!s.reported_known, "%s", unknown[i]);
        ck_assert_ptr_null(s.ecc);
        ck_assert_ptr_null(s.reported_source);
        ck_assert_msg(s.reported_unknown && strstr(s.reported_unknown, "no public"), "%s",
                      unknown[i]);
        ck_assert(s.memory_known);
    }
    {
        vs_gpu_spec s;
        vs_error err = {0};
        ck_assert_int_eq(vs_catalog_find(&s, "MI300X", &err), 0);
        ck_assert_uint_eq(s.memory_bytes, 192000000000ULL);
        ck_assert_int_eq(vs_catalog_find(&s, "MI325X", &err), 0);
        ck_assert_uint_eq(s.memory_bytes, 256000000000ULL);
    }
}
END_TEST

/* The JSON file itself, read here with jansson from the tree (not through the
 * embedded copy): every non-null total has a public source, every null one
 * says why, and nothing cites an internal file. */
START_TEST(test_every_total_has_a_public_source)
{
#ifdef VS_CATALOG_FILE
    json_error_t jerr;
    json_t *root = json_load_file(VS_CATALOG_FILE, 0, &jerr), *g;
    size_t i, n = 0;
    FILE *f;
    char line[4096];
    ck_assert_msg(root != NULL, "%s:%d: %s", VS_CATALOG_FILE, jerr.line, jerr.text);
    json_array_foreach(json_object_get(root, "gpus"), i, g)
    {
        const char *name = json_string_value(json_object_get(g, "name"));
        json_t *rb = json_object_get(g, "reported_bytes");
        json_t *mib = json_object_get(g, "reported_mib");
        json_t *cb = json_object_get(g, "cuda_total_bytes");
        const char *rs = json_string_value(json_object_get(g, "reported_source"));
        const char *cs = json_string_value(json_object_get(g, "cuda_total_source"));
        ck_assert_msg(rb && cb, "%s: reported_bytes and cuda_total_bytes (null if unknown)", name);
        if (!json_is_null(rb)) {
            ck_assert_msg(json_is_integer(rb) && json_is_integer(mib), "%s", name);
            ck_assert_msg((uint64_t)json_integer_value(rb) ==
                              (uint64_t)json_integer_value(mib) * MIB,
                          "%s: reported_bytes is not reported_mib x 2^20", name);
            ck_assert_msg(rs && !strncmp(rs, "https://", 8) && strlen(rs) > 20,
                          "%s: a reported total without a public link", name);
            n++;
        } else {
            ck_assert_msg(json_is_null(mib), "%s", name);
            ck_assert_msg(json_string_value(json_object_get(g, "reported_unknown")),
                          "%s: an unknown total must say why", name);
        }
        if (!json_is_null(cb))
            ck_assert_msg(json_is_integer(cb) && cs && !strncmp(cs, "https://", 8),
                          "%s: a CUDA total without a public link", name);
        else
            ck_assert_msg(cs == NULL, "%s: a CUDA source without a total", name);
    }
    ck_assert_uint_ge(n, 15);
    json_decref(root);
    /* No internal file is cited: line by line, as a person would grep it. */
    f = fopen(VS_CATALOG_FILE, "r");
    ck_assert_ptr_nonnull(f);
    while (fgets(line, sizeof line, f)) {
        ck_assert_msg(!strstr(line, "NOTES") && !strstr(line, "SPEC") &&
                          !strstr(line, "project notes") && !strstr(line, "seed"),
                      "cites an internal file: %s", line);
    }
    fclose(f);
#else
    ck_abort_msg("VS_CATALOG_FILE not defined by src/catalog/build.cmake");
#endif
}
END_TEST

START_TEST(test_every_entry_consistent)
{
    size_t i, n = vs_catalog_count(), j;
    ck_assert_uint_ge(n, 16);
    for (i = 0; i < n; i++) {
        vs_gpu_spec s, t;
        vs_error err = {0};
        json_t *a, *src;
        ck_assert_int_eq(vs_catalog_at(&s, i), 0);
        ck_assert_ptr_nonnull(s.name);
        ck_assert_msg(s.memory_known, "%s: nominal memory", s.name);
        if (s.reported_known)
            ck_assert_msg(s.reported_bytes == s.reported_mib * MIB, "%s: bytes != MiB", s.name);
        src = json_object_get(s.entry, "sources");
        ck_assert_msg(json_array_size(src) > 0, "%s: no sources", s.name);
        /* Each name and alias leads back to this entry and to no other. */
        ck_assert_int_eq(vs_catalog_find(&t, s.name, &err), 0);
        ck_assert_ptr_eq(t.entry, s.entry);
        json_array_foreach(json_object_get(s.entry, "aliases"), j, a)
        {
            ck_assert_msg(vs_catalog_find(&t, json_string_value(a), &err) == 0, "%s",
                          json_string_value(a));
            ck_assert_msg(t.entry == s.entry, "alias '%s' of %s leads to %s", json_string_value(a),
                          s.name, t.name);
        }
    }
    ck_assert_int_eq(vs_catalog_at(NULL, n), VS_ENOTFOUND);
}
END_TEST

START_TEST(test_partial_names_not_guessed)
{
    vs_gpu_spec s;
    vs_error err = {0};
    ck_assert_int_eq(vs_catalog_find(&s, "A100", &err), VS_ENOTFOUND);
    ck_assert_ptr_nonnull(strstr(err.message, "A100 80GB"));
    ck_assert_ptr_nonnull(strstr(err.message, "A100 40GB"));
    ck_assert_int_eq(vs_catalog_find(&s, "H100", &err), VS_ENOTFOUND);
    ck_assert_ptr_nonnull(strstr(err.message, "H100 SXM"));
    ck_assert_ptr_nonnull(strstr(err.message, "H100 PCIe"));
    ck_assert_int_eq(vs_catalog_find(&s, "RTX 6000", &err), VS_ENOTFOUND);
    ck_assert_ptr_nonnull(strstr(err.message, "RTX 6000 Ada"));
    ck_assert_int_eq(vs_catalog_find(&s, "Voodoo 5", &err), VS_ENOTFOUND);
    ck_assert_ptr_nonnull(strstr(err.message, "memory="));
    ck_assert_int_eq(vs_catalog_find(&s, "", &err), VS_ENOTFOUND);
}
END_TEST

START_TEST(test_names)
{
    const char *const *names = vs_catalog_names();
    size_t n = 0;
    int seen = 0;
    for (; names[n]; n++)
        if (!strcmp(names[n], "RTX 4090"))
            seen = 1;
    ck_assert_uint_eq(n, vs_catalog_count());
    ck_assert(seen);
}
END_TEST

START_TEST(test_embedded_text_is_the_file)
{
#ifdef VS_CATALOG_FILE
    FILE *f = fopen(VS_CATALOG_FILE, "rb");
    size_t len, got;
    const char *text = vs_catalog_text(&len);
    char *buf;
    ck_assert_ptr_nonnull(f);
    buf = malloc(len + 2);
    got = fread(buf, 1, len + 1, f);
    fclose(f);
    ck_assert_uint_eq(got, len);
    ck_assert(memcmp(buf, text, len) == 0);
    free(buf);
    ck_assert_str_eq(json_string_value(json_object_get(vs_catalog(), "schema")), VS_CATALOG_SCHEMA);
#else
    ck_abort_msg("VS_CATALOG_FILE not defined by src/catalog/build.cmake");
#endif
}
END_TEST

/* 1 when the entry's sources name fact (one of the comma-separated facts of a row) with a
 * public link. */
static int fact_sourced(const json_t *entry, const char *fact)
{
    size_t i, n = strlen(fact);
    json_t *src;
    json_array_foreach(json_object_get(entry, "sources"), i, src)
    {
        const char *f = json_string_value(json_object_get(src, "fact"));
        const char *ref = json_string_value(json_object_get(src, "ref"));
        if (f && ref && !strncmp(ref, "https://", 8) && !strncmp(f, fact, n) &&
            (f[n] == '\0' || f[n] == ' ' || f[n] == ','))
            return 1;
    }
    return 0;
}

/* Every Hopper and Ada Lovelace card (the architectures an engine's context rule reads the
 * SMs on) has its SM count and resident threads a SM, each with a public source; the
 * threads are the compute capability's (CUDA C++ Programming Guide: 2,048 at 9.0, 1,536 at
 * 8.9), the same on every card of an architecture. A card added without them would make
 * the rule unknown; this says which. The SMs checked by hand: H100 SXM5 132 and PCIe 114
 * (NVIDIA's H100 whitepaper), the Ada cards' CUDA cores at 128 a SM: L4 7,424 / 128 = 58,
 * RTX 4090 16,384 / 128 = 128, L40S 18,176 / 128 = 142; T4 2,560 / 64 = 40. */
START_TEST(test_sm_counts_on_ruled_architectures)
{
    static const struct {
        const char *gpu;
        uint64_t sms;
    } want[] = {{"H100 SXM", 132}, {"H100 PCIe", 114}, {"L4", 58},
                {"RTX 4090", 128}, {"L40S", 142},      {"T4", 40}};
    size_t i, n = vs_catalog_count(), hopper = 0, ada = 0;
    for (i = 0; i < n; i++) {
        vs_gpu_spec s;
        const char *a;
        ck_assert_int_eq(vs_catalog_at(&s, i), 0);
        a = json_string_value(json_object_get(s.entry, "architecture"));
        if (s.sm_count)
            ck_assert_msg(fact_sourced(s.entry, "sm_count"), "%s: sm_count without a source",
                          s.name);
        if (s.max_threads_per_sm)
            ck_assert_msg(fact_sourced(s.entry, "max_threads_per_sm"),
                          "%s: max_threads_per_sm without a source", s.name);
        if (!a || (strcmp(a, "Hopper") && strcmp(a, "Ada Lovelace")))
            continue;
        ck_assert_msg(s.sm_count > 0, "%s (%s): no sm_count in the catalogue", s.name, a);
        ck_assert_msg(s.max_threads_per_sm == (strcmp(a, "Hopper") ? 1536u : 2048u),
                      "%s (%s): max_threads_per_sm %llu", s.name, a,
                      (unsigned long long)s.max_threads_per_sm);
        if (strcmp(a, "Hopper"))
            ada++;
        else
            hopper++;
    }
    ck_assert_uint_ge(hopper, 5);
    ck_assert_uint_ge(ada, 4);
    for (i = 0; i < sizeof want / sizeof want[0]; i++) {
        vs_gpu_spec s;
        vs_error err = {0};
        ck_assert_int_eq(vs_catalog_find(&s, want[i].gpu, &err), 0);
        ck_assert_uint_eq(s.sm_count, want[i].sms);
    }
}
END_TEST

/* CUDA's totals as public logs printed them, read to whole MiB: the H200's 143156 MiB as
 * printed, the L4's 22.168 GiB x 1,024 = 22,700.03 MiB and the RTX 4090's 23.527 x 1,024 =
 * 24,091.65 MiB, each below the card's nvidia-smi total, each with its link; never bytes. */
START_TEST(test_cuda_totals_as_printed)
{
    static const struct {
        const char *gpu;
        uint64_t mib;
    } want[] = {{"H200", 143156}, {"L4", 22700}, {"RTX 4090", 24092}};
    size_t i, n = vs_catalog_count(), printed = 0;
    for (i = 0; i < sizeof want / sizeof want[0]; i++) {
        vs_gpu_spec s;
        vs_error err = {0};
        ck_assert_int_eq(vs_catalog_find(&s, want[i].gpu, &err), 0);
        ck_assert_msg(s.cuda_printed_known, "%s", want[i].gpu);
        ck_assert_uint_eq(s.cuda_printed_mib, want[i].mib);
        ck_assert_int_eq(s.cuda_known, 0); /* a rounded figure is not bytes */
    }
    for (i = 0; i < n; i++) {
        vs_gpu_spec s;
        ck_assert_int_eq(vs_catalog_at(&s, i), 0);
        if (!json_object_get(s.entry, "cuda_total_printed"))
            continue;
        printed++;
        ck_assert_msg(s.cuda_printed_known, "%s: cuda_total_printed unreadable", s.name);
        ck_assert_msg(!strncmp(s.cuda_printed_source, "https://", 8), "%s: no public link", s.name);
        ck_assert_msg(s.reported_known && s.cuda_printed_mib < s.reported_mib,
                      "%s: CUDA's total not below nvidia-smi's", s.name);
    }
    ck_assert_uint_eq(printed, 3);
}
END_TEST

static Suite *catalog_suite(void)
{
    Suite *s = suite_create("catalog");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_required_entries);
    tcase_add_test(tc, test_aliases_and_spelling);
    tcase_add_test(tc, test_key);
    tcase_add_test(tc, test_figures_from_public_captures);
    tcase_add_test(tc, test_unknown_stays_unknown);
    tcase_add_test(tc, test_every_total_has_a_public_source);
    tcase_add_test(tc, test_every_entry_consistent);
    tcase_add_test(tc, test_partial_names_not_guessed);
    tcase_add_test(tc, test_names);
    tcase_add_test(tc, test_embedded_text_is_the_file);
    tcase_add_test(tc, test_sm_counts_on_ruled_architectures);
    tcase_add_test(tc, test_cuda_totals_as_printed);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return vs_check_run(catalog_suite());
}
