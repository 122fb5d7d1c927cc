/* Unified memory as catalogue bases: each row's figure against the figure its
 * public source printed (parsed here, not by the code under test) and the
 * share of the RAM it is; `gpu` and `fit` take the basis and say it; a Grace
 * GPU's LPDDR5X becomes the offer's host memory, so an offload plans into it. */
#include <check.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"
#include "cell_run.h"
#include "check_run.h"
#include "results.h"

#define MIB (1024ULL * 1024ULL)
#define GIB (1024ULL * MIB)

/* "21845.34 MiB" or "107.52 GiB" as bytes in hundredths (x 100), and its unit */
static uint64_t printed_x100(const char *s, uint64_t *unit)
{
    unsigned long long whole = 0, frac = 0;
    char u[8] = "";
    ck_assert_int_eq(sscanf(s, "%llu.%2llu %7s", &whole, &frac, u), 3);
    *unit = !strcmp(u, "GiB") ? GIB : MIB;
    ck_assert_msg(!strcmp(u, "GiB") || !strcmp(u, "MiB"), "%s", s);
    return whole * 100 + frac;
}

/* every unified row: kind, rule, public source; the bytes are the printed
 * figure within half its last digit */
START_TEST(rows_from_their_sources)
{
    size_t i, n = vs_catalog_count(), metal = 0, c2c = 0, gtt = 0;
    for (i = 0; i < n; i++) {
        vs_gpu_spec s;
        const json_t *u;
        const char *pr;
        ck_assert_int_eq(vs_catalog_at(&s, i), 0);
        if (!s.unified_kind)
            continue;
        u = json_object_get(s.entry, "unified");
        ck_assert_msg(s.unified_rule && strlen(s.unified_rule) > 40, "%s: a rule", s.name);
        ck_assert_msg(s.unified_source && !strncmp(s.unified_source, "https://", 8), "%s", s.name);
        metal += !strcmp(s.unified_kind, "metal");
        c2c += !strcmp(s.unified_kind, "nvlink-c2c");
        gtt += !strcmp(s.unified_kind, "gtt");
        pr = json_string_value(json_object_get(u, "gpu_printed"));
        ck_assert_msg(s.unified_gpu_known == (pr != NULL), "%s: bytes with their printed figure",
                      s.name);
        if (pr && strcmp(s.unified_kind, "gtt")) {
            uint64_t unit, x100 = printed_x100(pr, &unit);
            /* |bytes x 100 - printed x 100 x unit| <= half a hundredth of the unit */
            uint64_t a = s.unified_gpu_bytes * 100, b = x100 * unit;
            ck_assert_msg((a > b ? a - b : b - a) <= unit / 2, "%s: %llu B against %s", s.name,
                          (unsigned long long)s.unified_gpu_bytes, pr);
        }
        /* the GPU's share is below the RAM */
        if (s.unified_gpu_known)
            ck_assert_uint_lt(s.unified_gpu_bytes, s.memory_bytes / 1000000000u * GIB);
        if (!strcmp(s.unified_kind, "nvlink-c2c"))
            ck_assert_msg(s.unified_host_known && !s.unified_gpu_known, "%s", s.name);
    }
    ck_assert_uint_ge(metal, 3);
    ck_assert_uint_ge(c2c, 2);
    ck_assert_uint_ge(gtt, 1);
}
END_TEST

/* the shares, by hand: two thirds of 32 GiB (rounded up to Metal's 16 KiB
 * pages, printed 21845.34), three quarters of 96 GiB exactly; the APU's GTT is
 * amd-ttm's 16469033 pages of 4 KiB, about half its 125.65 GiB */
START_TEST(shares_of_the_ram)
{
    vs_gpu_spec s;
    vs_error e;
    uint64_t third2 = 32 * GIB / 3 * 2;
    ck_assert_int_eq(vs_catalog_find(&s, "M1 Max 32GB", &e), 0);
    ck_assert_uint_le(s.unified_gpu_bytes > third2 ? s.unified_gpu_bytes - third2
                                                   : third2 - s.unified_gpu_bytes,
                      16384);
    ck_assert_int_eq(vs_catalog_find(&s, "Apple M2 Max 96GB", &e), 0);
    ck_assert_uint_eq(s.unified_gpu_bytes, 96 * GIB / 4 * 3);
    ck_assert_str_eq(s.unified_kind, "metal");
    ck_assert_int_eq(vs_catalog_find(&s, "Strix Halo 128GB", &e), 0);
    ck_assert_uint_eq(s.unified_gpu_bytes, 16469033ULL * 4096);
    ck_assert_uint_lt(s.unified_gpu_bytes * 100 / (12565 * GIB / 100), 51);
    ck_assert_int_eq(vs_catalog_find(&s, "NVIDIA GH200 480GB", &e), 0);
    ck_assert_uint_eq(s.unified_host_bytes, 480000000000ULL);
}
END_TEST

/* `gpu` takes the basis as the offer's device-reported capacity, fit names it
 * and its rule; a GH200 gets its LPDDR5X as host memory unless host= says */
START_TEST(gpu_and_fit_say_the_basis)
{
    json_t *rows, *r, *offers;
    run_ok("sheet \"unified\"\nmodel m8b params=8B\nformat int4\ntask inference\n"
           "length 8192\nconcurrency 1\nestimate kv layers=32 kv_heads=8 head_dim=128\n"
           "gpu \"M2 Max 96GB\"\ngpu \"GH200\"\ngpu \"GB200\" host=100GB\nengine llamacpp\nfit");
    rows = json_object_get(lastp(), "rows");
    r = json_array_get(rows, 0);
    ck_assert_str_eq(gets(r, "capacity_basis"), "unified");
    ck_assert_int_eq(geti(r, "capacity_bytes"), 73728LL * (long long)MIB);
    ck_assert_ptr_nonnull(strstr(gets(r, "capacity_note"), "recommendedMaxWorkingSetSize"));
    ck_assert_ptr_nonnull(strstr(gets(r, "capacity_note"), "iogpu.wired_limit_mb"));
    ck_assert_ptr_nonnull(strstr(text(last()), "(unified memory)"));
    ck_assert_ptr_nonnull(strstr(text(last()), "  capacity: unified memory, the M2 Max 96GB's"));
    /* the GH200: its HBM, nominal; the note names NVLink-C2C */
    r = json_array_get(rows, 1);
    ck_assert_str_eq(gets(r, "capacity_basis"), "nominal");
    ck_assert_int_eq(geti(r, "capacity_bytes"), 96000000000LL);
    ck_assert_ptr_nonnull(strstr(gets(r, "capacity_note"), "NVLink-C2C"));
    run_ok("sheet \"unified\"");
    offers = json_object_get(lastp(), "offers");
    ck_assert_ptr_nonnull(strstr(gets(json_array_get(offers, 0), "reported_basis"),
                                 "unified memory (metal), 73728.00 MiB"));
    ck_assert_int_eq(geti(json_array_get(offers, 1), "host_bytes"), 480000000000LL);
    ck_assert_int_eq(geti(json_array_get(offers, 2), "host_bytes"), 100000000000LL);
}
END_TEST

/* a GH200 holding a 70B model's weights in bf16 does not fit its 96 GB of HBM,
 * and vLLM's --cpu-offload-gb goes into the LPDDR5X without host= */
START_TEST(grace_offload_into_lpddr)
{
    const json_t *l;
    run_ok("sheet \"gh200 offload\"\nmodel org/m70b params=70B\nformat bf16\ntask inference\n"
           "length 8192\nconcurrency 1\nestimate kv layers=80 kv_heads=8 head_dim=128\n"
           "gpu \"GH200\"\nengine vllm\nlaunch");
    l = json_array_get(json_object_get(lastp(), "launches"), 0);
    ck_assert_ptr_nonnull(l);
    ck_assert_ptr_nonnull(strstr(gets((json_t *)l, "command"), "--cpu-offload-gb "));
    ck_assert_ptr_nonnull(strstr(gets((json_t *)l, "note"), "throughput drops"));
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("unified");
    TCase *t = tcase_create("unified");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, rows_from_their_sources);
    tcase_add_test(t, shares_of_the_ram);
    tcase_add_test(t, gpu_and_fit_say_the_basis);
    tcase_add_test(t, grace_offload_into_lpddr);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return vs_check_run(suite());
}
