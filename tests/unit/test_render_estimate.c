/* The words of the estimate verbs outside the component table
 * (src/render/estimate.c): the `estimate kv` headline, the note on an
 * estimate not stored over a measurement, and the tensor-placement note.
 * The expected texts are written out by hand. */
#include <check.h>
#include <string.h>

#include "render/estimate.h"

#include "check_run.h"

START_TEST(kv_headline)
{
    vs_buf b = VS_BUF_INIT;
    vs_render_estimate_kv_headline(&b, "2 x 32 layers x 8 kv_heads x 128 head_dim x 2 B (bf16) "
                                       "x 4,096 tokens x 1 sequences = 536,870,912 B");
    ck_assert_str_eq(vs_buf_str(&b), "estimate kv: 2 x 32 layers x 8 kv_heads x 128 head_dim x "
                                     "2 B (bf16) x 4,096 tokens x 1 sequences = 536,870,912 B");
    vs_buf_free(&b);
}
END_TEST

/* 2 GiB = 2,147,483,648 B = 2.15 GB (decimal, 2 decimals) = 2.00 GiB; under
 * 1,000 B the bytes alone; two notes run on, each ending with a space */
START_TEST(skipped_runs_on)
{
    vs_buf b = VS_BUF_INIT;
    vs_render_estimate_skipped(&b, "kv_cache", 2147483648ULL);
    ck_assert_str_eq(vs_buf_str(&b),
                     "kv_cache is measured: the estimate (2,147,483,648 B = 2.15 GB = 2.00 GiB) "
                     "was not stored; an estimate never overwrites a measurement. ");
    vs_buf_reset(&b);
    vs_render_estimate_skipped(&b, "a", 512);
    vs_render_estimate_skipped(&b, "b", 512);
    ck_assert_str_eq(vs_buf_str(&b),
                     "a is measured: the estimate (512 B) was not stored; an estimate never "
                     "overwrites a measurement. b is measured: the estimate (512 B) was not "
                     "stored; an estimate never overwrites a measurement. ");
    vs_buf_free(&b);
}
END_TEST

START_TEST(kv_tensor_note)
{
    vs_buf b = VS_BUF_INIT;
    vs_render_estimate_kv_tensor_note(&b, 4);
    ck_assert_str_eq(vs_buf_str(&b),
                     "placement tensor on 4 GPUs: each GPU holds ceil(kv_heads / 4) KV heads, one "
                     "at least (fewer heads than GPUs are replicated), and the whole of any latent "
                     "cache");
    vs_buf_free(&b);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("render_estimate");
    TCase *tc = tcase_create("words");
    tcase_add_test(tc, kv_headline);
    tcase_add_test(tc, skipped_runs_on);
    tcase_add_test(tc, kv_tensor_note);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
