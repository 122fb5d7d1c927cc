/* Per-GPU bytes of each component class under each named placement. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sheet/placement.h"
#include "sheet/sheet.h"

#include "check_run.h"

static const char *const classes[] = {"weights",     "parameters", "gradients", "optimizer",
                                      "activations", "kv_cache",   "other"};

static void expect_ways(vs_place_kind kind, unsigned gpus, unsigned stage, const unsigned *ways)
{
    vs_placement p = {kind, gpus, stage, VS_OFFLOAD_NONE};
    size_t i;
    for (i = 0; i < sizeof classes / sizeof classes[0]; i++)
        ck_assert_msg(vs_placement_ways(&p, classes[i]) == ways[i], "%s %s: %u ways, expected %u",
                      vs_placement_kind_name(kind), classes[i], vs_placement_ways(&p, classes[i]),
                      ways[i]);
}

START_TEST(single_and_ddp_replicate)
{
    const unsigned one[] = {1, 1, 1, 1, 1, 1, 1};
    expect_ways(VS_PLACE_SINGLE, 1, 0, one);
    expect_ways(VS_PLACE_DDP, 4, 0, one);
}
END_TEST

START_TEST(zero_stages_shard_more_each_stage)
{
    /* weights parameters gradients optimizer activations kv_cache other */
    const unsigned s1[] = {1, 1, 1, 4, 1, 1, 1};
    const unsigned s2[] = {1, 1, 4, 4, 1, 1, 1};
    const unsigned s3[] = {4, 4, 4, 4, 1, 1, 1};
    expect_ways(VS_PLACE_ZERO, 4, 1, s1);
    expect_ways(VS_PLACE_ZERO, 4, 2, s2);
    expect_ways(VS_PLACE_ZERO, 4, 3, s3);
    expect_ways(VS_PLACE_FSDP, 4, 0, s3);
}
END_TEST

START_TEST(tensor_splits_weights_and_kv)
{
    const unsigned t[] = {2, 2, 1, 1, 1, 2, 1};
    expect_ways(VS_PLACE_TENSOR, 2, 0, t);
}
END_TEST

START_TEST(per_gpu_is_the_largest_shard)
{
    vs_placement p = {VS_PLACE_ZERO, 4, 3, VS_OFFLOAD_NONE};
    ck_assert_uint_eq(vs_placement_per_gpu(&p, "weights", 14000000000ULL), 3500000000ULL);
    ck_assert_uint_eq(vs_placement_per_gpu(&p, "optimizer", 10), 3);
    ck_assert_uint_eq(vs_placement_per_gpu(&p, "activations", 10), 10);
    ck_assert_uint_eq(vs_placement_per_gpu(&p, NULL, 10), 10);
    ck_assert_uint_eq(vs_placement_per_gpu(&p, "gradients", 0), 0);
    p.kind = VS_PLACE_TENSOR;
    p.stage = 0;
    p.gpus = 3;
    ck_assert_uint_eq(vs_placement_per_gpu(&p, "kv_cache", 17179869184ULL), 5726623062ULL);
}
END_TEST

START_TEST(check_rejects_meaningless_placements)
{
    vs_error err;
    vs_placement p = {VS_PLACE_SINGLE, 2, 0, VS_OFFLOAD_NONE};
    vs_place_kind k;
    ck_assert_int_eq(vs_placement_check(&p, &err), VS_EVALUE);
    ck_assert(strstr(err.message, "named placement") != NULL);
    p = (vs_placement){VS_PLACE_ZERO, 4, 0, VS_OFFLOAD_NONE};
    ck_assert_int_eq(vs_placement_check(&p, &err), VS_EVALUE);
    p = (vs_placement){VS_PLACE_ZERO, 4, 4, VS_OFFLOAD_NONE};
    ck_assert_int_eq(vs_placement_check(&p, &err), VS_EVALUE);
    p = (vs_placement){VS_PLACE_DDP, 4, 2, VS_OFFLOAD_NONE};
    ck_assert_int_eq(vs_placement_check(&p, &err), VS_EVALUE);
    p = (vs_placement){VS_PLACE_DDP, 0, 0, VS_OFFLOAD_NONE};
    ck_assert_int_eq(vs_placement_check(&p, &err), VS_EVALUE);
    p = (vs_placement){VS_PLACE_FSDP, 8, 0, VS_OFFLOAD_NONE};
    ck_assert_int_eq(vs_placement_check(&p, &err), 0);
    ck_assert_int_eq(vs_placement_kind_parse(&k, "fsdp", &err), 0);
    ck_assert_int_eq(k, VS_PLACE_FSDP);
    ck_assert_int_eq(vs_placement_kind_parse(&k, "pipeline", &err), VS_EVALUE);
}
END_TEST

START_TEST(from_sheet_and_back)
{
    json_t *s = vs_sheet_new("t"), *j;
    vs_placement p;
    vs_error err;
    char d[128];
    ck_assert_int_eq(vs_placement_from_sheet(&p, s, &err), 0);
    ck_assert_int_eq(p.kind, VS_PLACE_SINGLE);
    ck_assert_uint_eq(p.gpus, 1);
    json_object_set_new(s, "placement",
                        json_pack("{s:s, s:i, s:i}", "kind", "zero", "gpus", 4, "stage", 2));
    ck_assert_int_eq(vs_placement_from_sheet(&p, s, &err), 0);
    ck_assert_int_eq(p.kind, VS_PLACE_ZERO);
    ck_assert_uint_eq(p.stage, 2);
    ck_assert_str_eq(vs_placement_describe(&p, d, sizeof d),
                     "ZeRO stage 2 on 4 GPUs (optimizer state and gradients sharded)");
    j = vs_placement_to_json(&p);
    ck_assert(json_equal(j, json_object_get(s, "placement")));
    json_decref(j);
    json_object_set_new(s, "placement",
                        json_pack("{s:s, s:i, s:n}", "kind", "single", "gpus", 2, "stage"));
    ck_assert_int_eq(vs_placement_from_sheet(&p, s, &err), VS_EVALUE);
    json_decref(s);
}
END_TEST

/* Model CPU offload leaves a bitsandbytes 8-bit component on the GPU (diffusers skips its
 * hook): three components of 100 (8-bit), 60 and 30 B, 4-bit the last. */
START_TEST(model_offload_keeps_8bit_components_on_the_gpu)
{
    json_t *wf = json_pack(
        "{s:[{s:s, s:i, s:i, s:[{s:s}]}, {s:s, s:i, s:i, s:[{s:s}]}, {s:s, s:i, s:i, s:[{s:s}]}]}",
        "components", "name", "transformer", "bytes", 100, "largest_group_bytes", 10, "by_dtype",
        "dtype", "bnb-int8", "name", "text_encoder", "bytes", 60, "largest_group_bytes", 6,
        "by_dtype", "dtype", "BF16", "name", "vae", "bytes", 30, "largest_group_bytes", 3,
        "by_dtype", "dtype", "bnb-nf4");
    json_t *comps = json_object_get(wf, "components");
    vs_placement model = {VS_PLACE_SINGLE, 1, 0, VS_OFFLOAD_MODEL};
    vs_placement seq = {VS_PLACE_SINGLE, 1, 0, VS_OFFLOAD_SEQUENTIAL};
    vs_placement none = {VS_PLACE_SINGLE, 1, 0, VS_OFFLOAD_NONE};
    uint64_t gpu, host;
    const char *basis;
    ck_assert_ptr_nonnull(wf);
    ck_assert_int_eq(vs_placement_pinned(&model, json_array_get(comps, 0)), 1);
    ck_assert_int_eq(vs_placement_pinned(&model, json_array_get(comps, 1)), 0);
    ck_assert_int_eq(vs_placement_pinned(&model, json_array_get(comps, 2)), 0); /* 4-bit moves */
    ck_assert_int_eq(vs_placement_pinned(&seq, json_array_get(comps, 0)), 0);
    ck_assert_int_eq(vs_placement_pinned(&none, json_array_get(comps, 0)), 0);
    /* the 8-bit 100 B stays, the largest of the others (60 B) comes in turn */
    vs_placement_offload_weights(&model, wf, 190, 190, &gpu, &host, &basis);
    ck_assert_uint_eq(gpu, 100 + 60);
    ck_assert_uint_eq(host, 60 + 30);
    ck_assert_ptr_nonnull(strstr(basis, "8-bit"));
    vs_placement_offload_weights(&seq, wf, 190, 190, &gpu, &host, &basis);
    ck_assert_uint_eq(gpu, 10);
    ck_assert_uint_eq(host, 190);
    /* while loading, both bitsandbytes components are on the GPU (8-bit and 4-bit alike),
     * whatever the placement; the bf16 one is in host memory */
    ck_assert_int_eq(vs_placement_loads_on_gpu(json_array_get(comps, 0)), 1);
    ck_assert_int_eq(vs_placement_loads_on_gpu(json_array_get(comps, 1)), 0);
    ck_assert_int_eq(vs_placement_loads_on_gpu(json_array_get(comps, 2)), 1);
    ck_assert_int_eq(vs_placement_loads_on_gpu(NULL), 0);
    json_decref(wf);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("placement");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, single_and_ddp_replicate);
    tcase_add_test(tc, zero_stages_shard_more_each_stage);
    tcase_add_test(tc, tensor_splits_weights_and_kv);
    tcase_add_test(tc, per_gpu_is_the_largest_shard);
    tcase_add_test(tc, check_rejects_meaningless_placements);
    tcase_add_test(tc, from_sheet_and_back);
    tcase_add_test(tc, model_offload_keeps_8bit_components_on_the_gpu);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
