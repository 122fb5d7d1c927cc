/* KV layouts against hand-worked arithmetic: each expected figure is the
 * product written out in its comment, not a call into the code under test. */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "sheet/kvlayout.h"

#include "check_run.h"

static vs_kv_group grp(vs_kv_kind kind, uint64_t layers, uint64_t heads, uint64_t dim,
                       uint64_t window)
{
    vs_kv_group g;
    memset(&g, 0, sizeof g);
    g.kind = kind;
    g.layers = layers;
    g.kv_heads = heads;
    g.head_dim = dim;
    g.window = window;
    return g;
}

START_TEST(uniform_is_the_classic_formula)
{
    /* Llama-2-7B: 2 x 32 x 32 x 128 x 2 B x 4096 x 8 = 16 GiB. */
    vs_kv_layout l;
    vs_kv_dims d = {4096, 8, 0, 16, 1, 0};
    uint64_t total = 0, per_token = 0;
    vs_error err;
    vs_kv_layout_uniform(&l, 32, 32, 128);
    ck_assert_int_eq(vs_kv_layout_bytes(&total, &per_token, NULL, &l, &d, &err), 0);
    ck_assert_uint_eq(total, 17179869184ULL);
    /* 2 x 32 x 32 x 128 x 2 B = 524,288 B per token and sequence */
    ck_assert_uint_eq(per_token, 524288);
}
END_TEST

START_TEST(gemma3_interleaved_local_global)
{
    /* Gemma-3-27B: 62 layers, 16 KV heads of 128, window 1024, one global
     * layer in six: 10 global, 52 local. At 131,072 tokens, bf16, 1 sequence:
     * global 2 x 10 x 16 x 128 x 2 x 131,072 = 10,737,418,240 B,
     * local  2 x 52 x 16 x 128 x 2 x 1,024   =    436,207,616 B. */
    vs_kv_layout l = {0};
    vs_kv_group local = grp(VS_KV_SLIDING, 1, 16, 128, 1024);
    vs_kv_group global = grp(VS_KV_FULL, 1, 16, 128, 0);
    vs_kv_group_bytes gb[VS_KV_GROUPS_MAX];
    vs_kv_dims d = {131072, 1, 0, 16, 1, 0};
    uint64_t total = 0, per_token = 0;
    vs_error err;
    int i;
    for (i = 0; i < 62; i++)
        ck_assert_int_eq(vs_kv_layout_add(&l, (i % 6 == 5) ? &global : &local, &err), 0);
    ck_assert_uint_eq(l.n, 2);
    ck_assert_uint_eq(l.g[0].layers, 52);
    ck_assert_uint_eq(l.g[1].layers, 10);
    ck_assert_uint_eq(vs_kv_layout_layers(&l), 62);
    ck_assert_int_eq(vs_kv_layout_bytes(&total, &per_token, gb, &l, &d, &err), 0);
    ck_assert_uint_eq(gb[0].tokens, 1024);
    ck_assert_uint_eq(gb[0].bytes, 436207616ULL);
    ck_assert_uint_eq(gb[1].bytes, 10737418240ULL);
    ck_assert_uint_eq(total, 11173625856ULL);
    /* beyond the window only the global layers grow: 2 x 10 x 16 x 128 x 2 */
    ck_assert_uint_eq(per_token, 81920);
    /* below the window every layer keeps every token: 2 x 62 x 16 x 128 x 2 x 512 */
    d.length = 512;
    ck_assert_int_eq(vs_kv_layout_bytes(&total, &per_token, gb, &l, &d, &err), 0);
    ck_assert_uint_eq(total, 260046848ULL);
    ck_assert_uint_eq(per_token, 507904);
}
END_TEST

START_TEST(latent_has_no_factor_two_and_is_not_split)
{
    /* DeepSeek-V3: 61 layers, latent 512 + 64 = 576 values, bf16:
     * 61 x 576 x 2 = 70,272 B per token; at 4,096 x 2: 575,668,224 B. */
    vs_kv_layout l = {0};
    vs_kv_group g = grp(VS_KV_LATENT, 61, 0, 0, 0);
    vs_kv_dims d = {4096, 2, 0, 16, 8, 0};
    uint64_t total = 0, per_token = 0;
    vs_error err;
    g.latent = 576;
    ck_assert_int_eq(vs_kv_layout_add(&l, &g, &err), 0);
    ck_assert_int_eq(vs_kv_layout_bytes(&total, &per_token, NULL, &l, &d, &err), 0);
    ck_assert_uint_eq(per_token, 70272);
    ck_assert_uint_eq(total, 575668224ULL);
}
END_TEST

START_TEST(tensor_parallel_splits_or_replicates_heads)
{
    /* 8 KV heads over 2 GPUs: 4 each; over 16 GPUs: one each (replicated). */
    vs_kv_group g = grp(VS_KV_FULL, 80, 8, 128, 0);
    vs_kv_layout l = {0};
    vs_kv_dims d = {32768, 1, 0, 16, 16, 0};
    uint64_t total = 0;
    vs_error err;
    ck_assert_uint_eq(vs_kv_group_heads_per_gpu(&g, 2), 4);
    ck_assert_uint_eq(vs_kv_group_heads_per_gpu(&g, 3), 3);
    ck_assert_uint_eq(vs_kv_group_heads_per_gpu(&g, 16), 1);
    ck_assert_int_eq(vs_kv_layout_add(&l, &g, &err), 0);
    /* 2 x 80 x 1 x 128 x 2 x 32,768 = 1,342,177,280 B per GPU at tp 16 */
    ck_assert_int_eq(vs_kv_layout_bytes(&total, NULL, NULL, &l, &d, &err), 0);
    ck_assert_uint_eq(total, 1342177280ULL);
}
END_TEST

START_TEST(cross_state_none_and_value_dim)
{
    /* T5-base decoder: 12 self layers (12 heads of 64) and 12 cross layers,
     * encoder 512 tokens, decoder 128, fp32, 1 sequence:
     * self  2 x 12 x 12 x 64 x 4 x 128 = 9,437,184
     * cross 2 x 12 x 12 x 64 x 4 x 512 = 37,748,736 */
    vs_kv_layout l = {0};
    vs_kv_group self = grp(VS_KV_FULL, 12, 12, 64, 0);
    vs_kv_group cross = grp(VS_KV_CROSS, 12, 12, 64, 0);
    vs_kv_group none = grp(VS_KV_NONE, 12, 0, 0, 0);
    vs_kv_group state = grp(VS_KV_STATE, 4, 0, 0, 0);
    vs_kv_group mla_like = grp(VS_KV_FULL, 2, 4, 192, 0);
    vs_kv_group_bytes gb[VS_KV_GROUPS_MAX];
    vs_kv_dims d = {128, 1, 512, 32, 1, 1};
    uint64_t total = 0, per_token = 0;
    vs_error err;
    ck_assert_int_eq(vs_kv_layout_add(&l, &self, &err), 0);
    ck_assert_int_eq(vs_kv_layout_add(&l, &cross, &err), 0);
    ck_assert_int_eq(vs_kv_layout_bytes(&total, &per_token, gb, &l, &d, &err), 0);
    ck_assert_uint_eq(gb[0].bytes, 9437184);
    ck_assert_uint_eq(gb[1].bytes, 37748736);
    ck_assert_uint_eq(per_token, 2 * 12 * 12 * 64 * 4);
    /* encoder-only: nothing at any length */
    memset(&l, 0, sizeof l);
    ck_assert_int_eq(vs_kv_layout_add(&l, &none, &err), 0);
    ck_assert_int_eq(vs_kv_layout_bytes(&total, &per_token, NULL, &l, &d, &err), 0);
    ck_assert_uint_eq(total, 0);
    ck_assert_uint_eq(per_token, 0);
    /* a recurrent state: 4 layers x 1,000,000 B x 3 sequences, whatever the length */
    state.state_bytes = 1000000;
    memset(&l, 0, sizeof l);
    ck_assert_int_eq(vs_kv_layout_add(&l, &state, &err), 0);
    d.concurrency = 3;
    ck_assert_int_eq(vs_kv_layout_bytes(&total, NULL, NULL, &l, &d, &err), 0);
    ck_assert_uint_eq(total, 12000000);
    /* keys of 192, values of 128: 2 layers x 4 heads x (192 + 128) x 2 B x 10 x 1 */
    mla_like.head_dim_v = 128;
    memset(&l, 0, sizeof l);
    ck_assert_int_eq(vs_kv_layout_add(&l, &mla_like, &err), 0);
    d.length = 10;
    d.concurrency = 1;
    d.bits = 16;
    ck_assert_int_eq(vs_kv_layout_bytes(&total, NULL, NULL, &l, &d, &err), 0);
    ck_assert_uint_eq(total, 2 * 4 * 320 * 2 * 10);
}
END_TEST

/* A hybrid (Nemotron Nano 9B v2): 4 attention layers of 8 KV heads x 128 and
 * 27 Mamba-2 layers of 2,695,168 B per sequence (conv 3 x 12,288 x 2 B + state
 * 128 x 80 x 128 x 2 B). At 131,072 tokens x 2 sequences, one GPU:
 *   full  2 x 4 x 8 x 128 x 2 B x 131,072 x 2 = 4,294,967,296
 *   state 27 x 2,695,168 x 2                  =   145,539,072
 * Under tensor parallelism 4 the state's heads and channels split 4 ways (vLLM's
 * MambaStateShapeCalculator): 27 x 673,792 x 2 = 36,384,768; the 8 KV heads 2 each. */
START_TEST(hybrid_state_groups)
{
    vs_kv_layout l = {0};
    vs_kv_group full = grp(VS_KV_FULL, 4, 8, 128, 0);
    vs_kv_group state = grp(VS_KV_STATE, 27, 0, 0, 0);
    vs_kv_group_bytes gb[VS_KV_GROUPS_MAX];
    vs_kv_dims d = {131072, 2, 0, 16, 1, 0};
    uint64_t total = 0, per_token = 0;
    vs_error err;
    state.state_bytes = 3ULL * 12288 * 2 + 128ULL * 80 * 128 * 2;
    ck_assert_uint_eq(state.state_bytes, 2695168);
    ck_assert_int_eq(vs_kv_layout_add(&l, &full, &err), 0);
    ck_assert_int_eq(vs_kv_layout_add(&l, &state, &err), 0);
    ck_assert_int_eq(vs_kv_layout_bytes(&total, &per_token, gb, &l, &d, &err), 0);
    ck_assert_uint_eq(gb[0].bytes, 4294967296ULL);
    ck_assert_uint_eq(gb[1].bytes, 145539072ULL);
    ck_assert_uint_eq(gb[1].tokens, 0);
    ck_assert_uint_eq(total, 4294967296ULL + 145539072ULL);
    ck_assert_uint_eq(per_token, 2 * 4 * 8 * 128 * 2); /* the state does not grow */
    d.tp = 4;
    ck_assert_int_eq(vs_kv_layout_bytes(&total, NULL, gb, &l, &d, &err), 0);
    ck_assert_uint_eq(gb[0].bytes, 4294967296ULL / 4);
    ck_assert_uint_eq(gb[1].bytes, 36384768ULL);
    /* the state's values travel with the card (for the engines' own dtypes);
     * an attention group carries no such keys */
    {
        vs_kv_layout back;
        json_t *j;
        l.g[1].state_conv = 3 * 12288;
        l.g[1].state_ssm = 128 * 80 * 128;
        j = vs_kv_layout_to_json(&l);
        ck_assert_ptr_null(json_object_get(json_array_get(j, 0), "state_conv"));
        ck_assert_int_eq(vs_kv_layout_from_json(&back, j, &err), 0);
        ck_assert_uint_eq(back.g[1].state_conv, 36864);
        ck_assert_uint_eq(back.g[1].state_ssm, 1310720);
        ck_assert_uint_eq(back.g[1].state_bytes, 2695168);
        json_decref(j);
    }
}
END_TEST

START_TEST(json_round_trip_and_refusals)
{
    vs_kv_layout l = {0}, back;
    vs_kv_group s = grp(VS_KV_SLIDING, 20, 8, 128, 4096);
    vs_kv_group f = grp(VS_KV_FULL, 4, 8, 128, 0);
    vs_error err;
    json_t *j, *bad;
    ck_assert_int_eq(vs_kv_layout_add(&l, &s, &err), 0);
    ck_assert_int_eq(vs_kv_layout_add(&l, &f, &err), 0);
    j = vs_kv_layout_to_json(&l);
    ck_assert_ptr_nonnull(j);
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(j, 0), "kind")), "sliding");
    ck_assert(json_is_null(json_object_get(json_array_get(j, 1), "window")));
    ck_assert_int_eq(vs_kv_layout_from_json(&back, j, &err), 0);
    ck_assert_int_eq(memcmp(&back, &l, sizeof l), 0);
    json_decref(j);
    bad = json_loads("[{\"kind\": \"paged\", \"layers\": 2}]", 0, NULL);
    ck_assert_int_eq(vs_kv_layout_from_json(&back, bad, &err), VS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.message, "paged"));
    json_decref(bad);
    bad = json_loads("[{\"kind\": \"full\", \"layers\": -2}]", 0, NULL);
    ck_assert_int_eq(vs_kv_layout_from_json(&back, bad, &err), VS_EFORMAT);
    json_decref(bad);
}
END_TEST

START_TEST(overflow_and_zero_bits)
{
    vs_kv_layout l;
    vs_kv_dims d = {UINT64_MAX / 2, 8, 0, 16, 1, 0};
    uint64_t total = 7;
    vs_error err;
    vs_kv_layout_uniform(&l, 32, 32, 128);
    ck_assert_int_eq(vs_kv_layout_bytes(&total, NULL, NULL, &l, &d, &err), VS_EUNIT);
    ck_assert_uint_eq(total, 7);
    d.length = 1;
    d.bits = 0;
    ck_assert_int_eq(vs_kv_layout_bytes(&total, NULL, NULL, &l, &d, &err), VS_EVALUE);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kvlayout");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, uniform_is_the_classic_formula);
    tcase_add_test(tc, gemma3_interleaved_local_global);
    tcase_add_test(tc, latent_has_no_factor_two_and_is_not_split);
    tcase_add_test(tc, tensor_parallel_splits_or_replicates_heads);
    tcase_add_test(tc, cross_state_none_and_value_dim);
    tcase_add_test(tc, hybrid_state_groups);
    tcase_add_test(tc, json_round_trip_and_refusals);
    tcase_add_test(tc, overflow_and_zero_bits);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
