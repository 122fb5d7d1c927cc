/* fit of each GPU on its own: an offer of mixed cards and an uneven split,
 * worked by hand from the catalogue's nvidia-smi totals (RTX 5090 32,607 MiB =
 * 34,190,917,632 B, RTX 4090 24,564 MiB = 25,757,220,864 B) and llama.cpp's
 * budget, total - cuda_context 264 MiB - fit_target 1024 MiB. */
#include <check.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cell_run.h"
#include "check_run.h"
#include "results.h"

#define RTX5090 34190917632LL
#define RTX4090 25757220864LL
#define BUDGET(total_mib) (((long long)(total_mib)-264 - 1024) << 20)

/* a 96B model at 4 bits (48,000,000,000 B) and 80 layers x 8 kv_heads x 128 of
 * f16 KV at 8,192 tokens (8,192 x 80 x 2 x 8 x 128 x 2 B = 2,684,354,560 B):
 * 50,684,354,560 B over two GPUs */
#define SHEET                                                                                      \
    "sheet \"mixed fit\"\nmodel m96b params=96B\nformat int4\ntask inference\nlength 8192\n"       \
    "concurrency 1\nestimate kv layers=80 kv_heads=8 head_dim=128\n"                               \
    "gpu \"home rig\" devices=\"RTX 5090, RTX 4090\"\nplacement tensor gpus=2\n"

static const json_t *row0(void)
{
    json_t *p = lastp();
    ck_assert_str_eq(gets(p, "kind"), "fit");
    return json_array_get(json_object_get(p, "rows"), 0);
}

static const json_t *device(const json_t *row, size_t i)
{
    return json_array_get(json_object_get(row, "devices"), i);
}

/* llama.cpp without -ts splits by each device's memory: the 5090 takes
 * 50,684,354,560 x 34,190,917,632 / 59,948,138,496 = 28,907,396,217 B, the
 * 4090 21,776,958,342 B, each within its budget (31,319 and 23,276 MiB), where
 * an even split on the 4090 (25,342,177,280 B) would not be */
START_TEST(mixed_cards_by_their_totals)
{
    const json_t *r;
    run_ok(SHEET "engine llamacpp\nfit");
    r = row0();
    ck_assert_str_eq(gets((json_t *)r, "verdict"), "to-confirm"); /* activation_peak unknown */
    ck_assert_int_eq(json_array_size(json_object_get(r, "devices")), 2);
    ck_assert_str_eq(gets((json_t *)device(r, 0), "name"), "RTX 5090");
    ck_assert_int_eq(geti((json_t *)device(r, 0), "capacity_bytes"), RTX5090);
    ck_assert_int_eq(geti((json_t *)device(r, 0), "budget_bytes"), BUDGET(32607));
    ck_assert_int_eq(geti((json_t *)device(r, 0), "share_bytes"), 28907396217LL);
    ck_assert(json_is_true(json_object_get(device(r, 0), "holds")));
    ck_assert_str_eq(gets((json_t *)device(r, 1), "name"), "RTX 4090");
    ck_assert_int_eq(geti((json_t *)device(r, 1), "budget_bytes"), BUDGET(24564));
    ck_assert_int_eq(geti((json_t *)device(r, 1), "share_bytes"), 21776958342LL);
    ck_assert(json_is_true(json_object_get(device(r, 1), "holds")));
    ck_assert_int_gt(24000000000LL + 1342177280LL, BUDGET(24564));
    ck_assert_ptr_nonnull(strstr(gets((json_t *)r, "note"), "each GPU holds its share"));
    /* each card's room for the KV cache: its budget less its weights (48,000,000,000
     * x its total / 59,948,138,496): the 5090 32,840,351,744 - 27,376,397,124 =
     * 5,463,954,620 B, the 4090 24,406,654,976 - 20,623,602,875 = 3,783,052,101 B
     * (a byte either way: each share is rounded down on its own) */
    ck_assert_int_le(llabs(geti((json_t *)device(r, 0), "kv_pool_bytes") - 5463954620LL), 2);
    ck_assert_int_le(llabs(geti((json_t *)device(r, 1), "kv_pool_bytes") - 3783052101LL), 2);
    /* the row's pool is the split's, per GPU: the 4090 holds 25,757,220,864 /
     * 59,948,138,496 of every layer's cache, so its room allows 3,783,052,101 x
     * 59,948,138,496 / 25,757,220,864 / 2 = 4,402,395,205 B per GPU (the 5090's
     * 4,790,071,910); a sequence of 8,192 tokens takes 2,684,354,560 / 2 B per GPU,
     * so 3 fit (3.28), where the even split on the 4090 left 24,406,654,976 -
     * 24,000,000,000 = 406,654,976 B, no sequence, beside a verdict that holds */
    ck_assert_int_le(llabs(geti((json_t *)r, "kv_pool_bytes") - 4402395205LL), 4);
    ck_assert_msg(json_real_value(json_object_get(r, "max_concurrency")) == 3.0 ||
                      json_number_value(json_object_get(r, "max_concurrency")) == 3.0,
                  "max_concurrency %f", json_number_value(json_object_get(r, "max_concurrency")));
    ck_assert_ptr_nonnull(strstr(gets((json_t *)r, "devices_rule"), "bound by GPU 1 (RTX 4090)"));
    /* the launch takes the same shares */
    run_ok("launch");
    {
        const json_t *d =
            json_object_get(json_array_get(json_object_get(lastp(), "launches"), 0), "devices");
        ck_assert_int_eq(geti(json_array_get(d, 0), "bytes"), 28907396217LL);
        ck_assert_int_eq(geti(json_array_get(d, 1), "bytes"), 21776958342LL);
    }
}
END_TEST

/* split=1,3 gives the 4090 three quarters, 38,013,265,920 B, beyond its
 * 23,276 MiB: the verdict names it; the 5090's quarter is 12,671,088,640 B */
START_TEST(uneven_split_names_the_card)
{
    const json_t *r;
    run_ok(SHEET "engine llamacpp\nplacement tensor gpus=2 split=1,3\nfit");
    r = row0();
    ck_assert_str_eq(gets((json_t *)r, "verdict"), "exclude");
    ck_assert_int_eq(geti((json_t *)device(r, 0), "share_bytes"), 12671088640LL);
    ck_assert_int_eq(geti((json_t *)device(r, 1), "share_bytes"), 38013265920LL);
    ck_assert(json_is_false(json_object_get(device(r, 1), "holds")));
    ck_assert_ptr_nonnull(strstr(gets((json_t *)r, "note"), "GPU 1 (RTX 4090) of the split"));
    /* the 4090's room: 24,406,654,976 - 36,000,000,000 (three quarters of the
     * weights) < 0: no pool, no sequence, as the verdict says */
    ck_assert_int_le(llabs(geti((json_t *)device(r, 1), "kv_pool_bytes") + 11593345024LL), 2);
    ck_assert_int_lt(geti((json_t *)r, "kv_pool_bytes"), 0);
    ck_assert(json_number_value(json_object_get(r, "max_concurrency")) == 0.0);
    ck_assert_int_eq(run("launch"), VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "GPU 1 (RTX 4090)"));
}
END_TEST

/* two cards of one kind: split=3,1 of a 70B model at 4 bits (35,000,000,000 B
 * and the same 2,684,354,560 B of KV) puts 28,263,265,920 B on GPU 0, more than
 * 23,276 MiB, where the even split (18,842,177,280 B each) holds */
START_TEST(uneven_split_of_one_kind)
{
    const json_t *r;
    run_ok("sheet \"split fit\"\nmodel m70b params=70B\nformat int4\ntask inference\n"
           "length 8192\nconcurrency 1\nestimate kv layers=80 kv_heads=8 head_dim=128\n"
           "gpu \"RTX 4090\" cards=2\nplacement tensor gpus=2\nengine llamacpp\nfit");
    r = row0();
    ck_assert_str_eq(gets((json_t *)r, "verdict"), "to-confirm");
    ck_assert_ptr_null(json_object_get(r, "devices")); /* an even split over one kind */
    run_ok("placement tensor gpus=2 split=3,1\nfit");
    r = row0();
    ck_assert_str_eq(gets((json_t *)r, "verdict"), "exclude");
    ck_assert(json_is_null(json_object_get(device(r, 0), "name"))); /* no mixed cards */
    ck_assert_int_eq(geti((json_t *)device(r, 0), "share_bytes"), 28263265920LL);
    ck_assert_int_eq(geti((json_t *)device(r, 1), "share_bytes"), 9421088640LL);
    ck_assert_int_eq(geti((json_t *)device(r, 0), "budget_bytes"), BUDGET(24564));
    ck_assert_ptr_nonnull(strstr(gets((json_t *)r, "note"), "GPU 0 of the split holds"));
}
END_TEST

/* vLLM splits every layer evenly: each card holds 24,000,000,000 B of weights
 * and 512 pages x 32,768 B x 80 layers = 1,342,177,280 B of KV (4 of the 8
 * heads per rank), against ceil(0.9 x its total): 30,771,825,869 B on the 5090,
 * 23,181,498,778 B on the 4090, which decides and is named */
START_TEST(even_engine_names_the_smallest)
{
    const json_t *r;
    run_ok(SHEET "engine vllm gpu_memory_utilization=0.9\nfit");
    r = row0();
    ck_assert_str_eq(gets((json_t *)r, "verdict"), "exclude");
    ck_assert_int_eq(geti((json_t *)device(r, 0), "budget_bytes"), 30771825869LL);
    ck_assert_int_eq(geti((json_t *)device(r, 1), "budget_bytes"), 23181498778LL);
    ck_assert_int_eq(geti((json_t *)device(r, 0), "share_bytes"), 25342177280LL);
    ck_assert_int_eq(geti((json_t *)device(r, 1), "share_bytes"), 25342177280LL);
    ck_assert(json_is_true(json_object_get(device(r, 0), "holds")));
    ck_assert(json_is_false(json_object_get(device(r, 1), "holds")));
    ck_assert_ptr_nonnull(strstr(gets((json_t *)r, "note"), "on GPU 1 (RTX 4090), the smallest"));
    /* an uneven split= is not what vLLM does: said, and the even split sized */
    run_ok("placement tensor gpus=2 split=3,1\nfit");
    ck_assert_ptr_nonnull(strstr(gets((json_t *)row0(), "note"), "vllm splits each layer evenly"));
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("fit_devices");
    TCase *t = tcase_create("fit_devices");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, mixed_cards_by_their_totals);
    tcase_add_test(t, uneven_split_names_the_card);
    tcase_add_test(t, uneven_split_of_one_kind);
    tcase_add_test(t, even_engine_names_the_smallest);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return vs_check_run(suite());
}
