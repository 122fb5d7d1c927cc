/* Quantised checkpoints against the loaders' published figures (model/quant.h).
 *
 * tests/data/quant_published/cases.tsv holds, per case, the link where an
 * engine printed the weights one GPU held after loading a quantised
 * checkpoint, the engine line, the tensor-parallel size, the model's
 * config.json facts and the printed figure. Each case goes through the
 * language as a user would type it (engine, model config=, placement tensor
 * gpus=N, envelope) and the envelope's per-GPU weights must lie within 3% of
 * the figure. The oracle is the engines' own output, not this code: the table
 * is read by a parser of its own here, the figures kept as the decimal text
 * printed. */
#include <check.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cell_run.h"
#include "check_run.h"

#define CASES VS_SOURCE_DIR "/tests/data/quant_published/cases.tsv"
#define NCOL 8

typedef unsigned long long ull;

/* "64.38" -> 6438 and 2 decimals: the printed figure without a double */
static void decimal(const char *s, ull *mant, unsigned *places)
{
    int seen = 0;
    *mant = 0;
    *places = 0;
    for (; *s; s++) {
        if (*s == '.') {
            seen = 1;
            continue;
        }
        ck_assert_msg(*s >= '0' && *s <= '9', "figure '%s' is not a decimal", s);
        *mant = *mant * 10 + (ull)(*s - '0');
        *places += (unsigned)seen;
    }
}

/* the weights one GPU holds in the last envelope */
static ull weights_per_gpu(void)
{
    json_t *p = lastp();
    ck_assert_msg(json_is_true(json_object_get(p, "weights_known")), "the weights are unknown");
    return (ull)json_integer_value(json_object_get(p, "weights_gpu_bytes"));
}

START_TEST(published_loader_figures)
{
    FILE *f = fopen(CASES, "r");
    char line[1200], cell[1400], *col[NCOL], *p;
    int n = 0, k;
    ck_assert_ptr_nonnull(f);
    while (fgets(line, sizeof line, f)) {
        ull got, mant, scale = 1, lo, hi, want;
        unsigned places, i;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        line[strcspn(line, "\n")] = '\0';
        for (k = 0, p = line; k < NCOL; k++) {
            col[k] = p;
            p = strchr(p, '\t');
            ck_assert_msg(p || k == NCOL - 1, "%s: %d columns, not %d", line, k + 1, NCOL);
            if (p)
                *p++ = '\0';
        }
        snprintf(cell, sizeof cell,
                 "sheet case%d\n%s\nmodel m config=%s/%s\nplacement tensor gpus=%s\nenvelope", n,
                 col[4], VS_SOURCE_DIR, col[5], col[3]);
        run_ok(cell);
        got = weights_per_gpu();
        decimal(col[6], &mant, &places);
        for (i = 0; i < places; i++)
            scale *= 10;
        /* got / 2^30 within 3% of mant / scale: got x scale x 100 against
         * mant x 2^30 x 97 and x 103 */
        want = mant << 30;
        lo = want * 97;
        hi = want * 103;
        ck_assert_msg(got * scale * 100 >= lo && got * scale * 100 <= hi,
                      "%s (%s, %s): %llu B per GPU against the printed %s GiB (%s)", col[5], col[1],
                      col[0], got, col[6], col[7]);
        printf("%s tp %s: %llu B per GPU = %.2f%% of the printed %s GiB (%s)\n", col[5], col[3],
               got, 100.0 * (double)(got * scale) / (double)want, col[6], col[0]);
        n++;
    }
    fclose(f);
    ck_assert_int_ge(n, 7);
}
END_TEST

/* Under tensor parallelism vLLM builds the norms and the MoE routers whole on
 * every rank (RMSNorm, ReplicatedLinear in vllm/model_executor/models/
 * qwen3_moe.py at 002456df) and shards the rest. Qwen3-235B-A22B-FP8 by hand:
 * the router 128 x 4,096 bf16 in each of 94 layers = 98,566,144 B; the norms,
 * 94 x (2 x 4,096 + 2 x 128) + 4,096 = 798,208 values = 1,596,416 B; so
 * 100,162,560 B stay whole and the other 236,345,292,800 B of the
 * 236,445,455,360 B tally are split 4 ways. */
START_TEST(tensor_parallel_keeps_norms_and_routers_whole)
{
    char cell[600];
    const ull whole = 236445455360ULL, rep = 98566144ULL + 1596416ULL;
    snprintf(cell, sizeof cell,
             "model m config=%s/tests/data/quant_published/qwen3-235b-a22b-fp8.json\nweights",
             VS_SOURCE_DIR);
    run_ok(cell);
    ck_assert_uint_eq((ull)geti(lastp(), "bytes"), whole);
    run_ok("placement tensor gpus=4\nenvelope");
    ck_assert_uint_eq(weights_per_gpu(), rep + (whole - rep + 3) / 4);
    /* ZeRO-3 shards every parameter, the norms too: a quarter of the whole */
    run_ok("placement zero stage=3 gpus=4\nenvelope");
    ck_assert_uint_eq(weights_per_gpu(), (whole + 3) / 4);
}
END_TEST

/* The W4A16 Qwen3-30B-A3B case by hand (compressed-tensors pack-quantized, 4
 * bits, group 128, symmetric: no zeros). Per layer the attention's q and o
 * 4,096 x 2,048 and k and v 512 x 2,048 (18,874,368) and 128 experts of gate,
 * up and down 768 x 2,048 (603,979,776): x 48 = 29,896,998,912 values, half a
 * byte each (14,948,499,456 B), a 16-bit scale per 128 (467,140,608 B), the
 * two int64 of weight_shape for each of the 48 x 388 matrices (297,984 B).
 * Kept in bf16: embed_tokens and lm_head 2 x 151,936 x 2,048 x 2 =
 * 1,244,659,712 B, the routers 48 x 128 x 2,048 x 2 = 25,165,824 B and the
 * norms (48 x (2 x 2,048 + 2 x 128) + 2,048) x 2 = 421,888 B. */
START_TEST(w4a16_moe_by_hand)
{
    char cell[600];
    snprintf(cell, sizeof cell,
             "engine vllm\nmodel m config=%s/tests/data/quant_published/qwen3-30b-a3b-w4a16.json\n"
             "weights",
             VS_SOURCE_DIR);
    run_ok(cell);
    ck_assert_uint_eq((ull)geti(lastp(), "bytes"), 14948499456ULL + 467140608ULL + 297984ULL +
                                                       1244659712ULL + 25165824ULL + 421888ULL);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("quant_published");
    TCase *tc = tcase_create("quant_published");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, published_loader_figures);
    tcase_add_test(tc, tensor_parallel_keeps_norms_and_routers_whole);
    tcase_add_test(tc, w4a16_moe_by_hand);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
