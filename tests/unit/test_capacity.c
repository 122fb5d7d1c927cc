/* Unit tests for src/sheet/capacity: an offer's capacity and its basis. */
#include <check.h>
#include <stdint.h>

#include "sheet/capacity.h"

#include "check_run.h"

#define GIB (1024ULL * 1024ULL * 1024ULL)
#define MIB (1024ULL * 1024ULL)

START_TEST(test_nominal_binary)
{
    /* Hand arithmetic: 80 GB read as GiB is 80 x 2^30 = 85,899,345,920. */
    ck_assert_uint_eq(vs_capacity_nominal_binary(80000000000ULL), 85899345920ULL);
    /* 24.5 GB as 24.5 GiB = 26,306,674,688 (exact: 2^30 / 2 = 536,870,912). */
    ck_assert_uint_eq(vs_capacity_nominal_binary(24500000000ULL), 24 * GIB + 536870912ULL);
    /* 1 byte: 1.073741824, rounded down. */
    ck_assert_uint_eq(vs_capacity_nominal_binary(1), 1);
    ck_assert_uint_eq(vs_capacity_nominal_binary(0), 0);
    ck_assert_uint_eq(vs_capacity_nominal_binary(UINT64_MAX), UINT64_MAX);
}
END_TEST

START_TEST(test_reported_first)
{
    vs_offer_cap cap;
    json_t *o =
        json_pack("{s:I, s:I, s:s}", "memory_bytes", (json_int_t)80000000000LL, "reported_bytes",
                  (json_int_t)(81559 * MIB), "reported_basis", "nvidia-smi");
    vs_offer_capacity(&cap, o);
    ck_assert_int_eq(cap.basis, VS_CAPACITY_REPORTED);
    ck_assert_int_eq(cap.known, 1);
    ck_assert_uint_eq(cap.bytes, 81559 * MIB);
    ck_assert_str_eq(cap.reported_source, "nvidia-smi");
    ck_assert_uint_eq(cap.nominal_bytes, 80000000000ULL);
    ck_assert_uint_eq(cap.nominal_binary_bytes, 80 * GIB);
    ck_assert_str_eq(vs_capacity_basis_code(cap.basis), "reported");

    json_object_set_new(o, "reported_bytes", json_null());
    vs_offer_capacity(&cap, o);
    ck_assert_int_eq(cap.basis, VS_CAPACITY_NOMINAL);
    ck_assert_uint_eq(cap.bytes, 80000000000ULL);
    ck_assert_ptr_null(cap.reported_source);
    ck_assert_str_eq(vs_capacity_basis_code(cap.basis), "nominal");

    json_object_set_new(o, "memory_bytes", json_integer(0)); /* not a capacity */
    vs_offer_capacity(&cap, o);
    ck_assert_int_eq(cap.basis, VS_CAPACITY_UNKNOWN);
    ck_assert_int_eq(cap.known, 0);
    ck_assert_uint_eq(cap.bytes, 0);
    ck_assert_ptr_null(vs_capacity_basis_code(cap.basis));
    json_decref(o);

    vs_offer_capacity(&cap, NULL);
    ck_assert_int_eq(cap.basis, VS_CAPACITY_UNKNOWN);
}
END_TEST

static Suite *capacity_suite(void)
{
    Suite *s = suite_create("capacity");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_nominal_binary);
    tcase_add_test(tc, test_reported_first);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return vs_check_run(capacity_suite());
}
