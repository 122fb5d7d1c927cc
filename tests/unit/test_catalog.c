/* Unit tests for src/catalog: the embedded GPU catalogue and its name lookup. */
#include <check.h>
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
        "H200",      "H100 SXM",  "H100 PCIe",    "A100 40GB", "A100 80GB", "L40S",
        "L4",        "A10G",      "RTX 6000 Ada", "RTX 4090",  "RTX 3090",  "RTX A6000",
        "V100 16GB", "V100 32GB", "T4",           "MI300X",    NULL};
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

START_TEST(test_figures_from_notes)
{
    vs_gpu_spec s;
    vs_error err = {0};
    ck_assert_int_eq(vs_catalog_find(&s, "H200", &err), 0);
    ck_assert(s.reported_known);
    ck_assert_uint_eq(s.reported_mib, 143771);
    ck_assert_uint_eq(s.reported_bytes, 143771ULL * MIB);
    ck_assert_uint_eq(s.memory_bytes, 141000000000ULL);

    ck_assert_int_eq(vs_catalog_find(&s, "RTX A6000", &err), 0);
    ck_assert_uint_eq(s.reported_bytes, 46068ULL * MIB);
    ck_assert_str_eq(s.ecc, "on");
    ck_assert_int_eq(s.fp8, 0);
    ck_assert_int_eq(s.bf16, 1);

    ck_assert_int_eq(vs_catalog_find(&s, "RTX 4090", &err), 0);
    ck_assert_uint_eq(s.memory_bytes, 24000000000ULL);
    ck_assert_uint_eq(s.reported_bytes, 24564ULL * MIB);

    ck_assert_int_eq(vs_catalog_find(&s, "V100 32GB", &err), 0);
    ck_assert_int_eq(s.bf16, 0);
}
END_TEST

START_TEST(test_unknown_stays_unknown)
{
    vs_gpu_spec s;
    vs_error err = {0};
    /* No public capture was sourced for these: the catalogue must not invent one. */
    ck_assert_int_eq(vs_catalog_find(&s, "H100 PCIe", &err), 0);
    ck_assert_int_eq(s.reported_known, 0);
    ck_assert_ptr_null(s.ecc);
    ck_assert(s.memory_known);
    ck_assert_int_eq(vs_catalog_find(&s, "MI300X", &err), 0);
    ck_assert_int_eq(s.reported_known, 0);
    ck_assert_uint_eq(s.memory_bytes, 192000000000ULL);
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

static Suite *catalog_suite(void)
{
    Suite *s = suite_create("catalog");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_required_entries);
    tcase_add_test(tc, test_aliases_and_spelling);
    tcase_add_test(tc, test_key);
    tcase_add_test(tc, test_figures_from_notes);
    tcase_add_test(tc, test_unknown_stays_unknown);
    tcase_add_test(tc, test_every_entry_consistent);
    tcase_add_test(tc, test_partial_names_not_guessed);
    tcase_add_test(tc, test_names);
    tcase_add_test(tc, test_embedded_text_is_the_file);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return vs_check_run(catalog_suite());
}
