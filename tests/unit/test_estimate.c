/* The estimators against hand-computed cases. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include <string.h>

#include "lang/derive.h"
#include "lang/verb.h"
#include "sheet/estimate.h"

#include "check_run.h"

/* The bits of a dtype, which must parse. */
static unsigned dtype_bits(const char *dtype)
{
    unsigned bits = 0;
    ck_assert_int_eq(vs_estimate_dtype_bits(&bits, dtype, NULL), 0);
    return bits;
}

START_TEST(kv_llama2_7b_mha)
{
    /* 2 x 32 x 32 x 128 x 2 B x 4096 x 8: the reserve example, 16 GiB. */
    uint64_t v = 0;
    vs_error err;
    ck_assert_int_eq(vs_estimate_kv(&v, 32, 32, 128, dtype_bits("fp16"), 4096, 8, &err), 0);
    ck_assert_uint_eq(v, 17179869184ULL);
    ck_assert_uint_eq(v, 16ULL << 30);
}
END_TEST

START_TEST(kv_gqa_and_mqa)
{
    uint64_t v = 0;
    vs_error err;
    /* Llama-3-8B: 8 KV heads of 32 query heads. 2*32*8*128*2*8192 = 1 GiB. */
    ck_assert_int_eq(vs_estimate_kv(&v, 32, 8, 128, 16, 8192, 1, &err), 0);
    ck_assert_uint_eq(v, 1073741824ULL);
    /* MQA (Falcon-7B): one KV head of dim 64, bf16, 2048 x 4. */
    ck_assert_int_eq(vs_estimate_kv(&v, 32, 1, 64, dtype_bits("bf16"), 2048, 4, &err), 0);
    ck_assert_uint_eq(v, 67108864ULL);
}
END_TEST

START_TEST(kv_fp8_and_int4_cache)
{
    uint64_t fp16 = 0, fp8 = 0, int4 = 0;
    unsigned bits = 99;
    vs_error err;
    ck_assert_uint_eq(dtype_bits("fp8"), 8);
    ck_assert_uint_eq(dtype_bits("e4m3"), 8);
    ck_assert_uint_eq(dtype_bits("int4"), 4);
    ck_assert_uint_eq(dtype_bits("fp32"), 32);
    ck_assert_int_eq(vs_estimate_dtype_bits(&bits, "fp12", &err), VS_EVALUE);
    ck_assert_uint_eq(bits, 99); /* untouched */
    ck_assert_int_eq(vs_estimate_kv(&fp16, 32, 8, 128, 16, 8192, 1, &err), 0);
    ck_assert_int_eq(vs_estimate_kv(&fp8, 32, 8, 128, 8, 8192, 1, &err), 0);
    ck_assert_int_eq(vs_estimate_kv(&int4, 32, 8, 128, 4, 8192, 1, &err), 0);
    ck_assert_uint_eq(fp8, 536870912ULL);
    ck_assert_uint_eq(fp16, 2 * fp8);
    ck_assert_uint_eq(int4, fp8 / 2);
    /* 3 bits: 2 x 1 x 1 x 1 x 1 x 1 = 2 values x 3 bits = 6 bits -> 1 byte, rounded up. */
    ck_assert_int_eq(vs_estimate_kv(&int4, 1, 1, 1, 3, 1, 1, &err), 0);
    ck_assert_uint_eq(int4, 1);
    ck_assert_int_eq(vs_estimate_kv(&int4, 1, 1, 1, 0, 1, 1, &err), VS_EVALUE);
}
END_TEST

START_TEST(kv_overflow_is_a_unit_error)
{
    uint64_t v = 42;
    vs_error err;
    vs_error_clear(&err);
    ck_assert_int_eq(vs_estimate_kv(&v, 1ULL << 40, 1ULL << 20, 128, 16, 4096, 8, &err), VS_EUNIT);
    ck_assert_uint_eq(v, 42); /* untouched */
    ck_assert_int_eq(err.code, VS_EUNIT);
}
END_TEST

START_TEST(activations_each_checkpointing_mode)
{
    uint64_t v = 0;
    vs_error err;
    vs_checkpointing m;
    /* s=2048, b=1, h=4096, a=32, 32 layers: s*b*h*(34 + 5*32*2048/4096 = 80) = 956,301,312 per
     * layer. */
    ck_assert_int_eq(vs_estimate_activations(&v, 32, 4096, 32, 2048, 1, VS_CKPT_NONE, &err), 0);
    ck_assert_uint_eq(v, 956301312ULL * 32);
    ck_assert_int_eq(vs_estimate_activations(&v, 32, 4096, 32, 2048, 1, VS_CKPT_SELECTIVE, &err),
                     0);
    ck_assert_uint_eq(v, 34ULL * 2048 * 4096 * 32);
    ck_assert_int_eq(vs_estimate_activations(&v, 32, 4096, 32, 2048, 1, VS_CKPT_FULL, &err), 0);
    ck_assert_uint_eq(v, 2ULL * 2048 * 4096 * 32);
    /* microbatch scales linearly */
    ck_assert_int_eq(vs_estimate_activations(&v, 32, 4096, 32, 2048, 4, VS_CKPT_FULL, &err), 0);
    ck_assert_uint_eq(v, 4ULL * 2 * 2048 * 4096 * 32);
    ck_assert_int_eq(vs_checkpointing_parse(&m, "selective", &err), 0);
    ck_assert_int_eq(m, VS_CKPT_SELECTIVE);
    ck_assert_int_eq(vs_checkpointing_parse(&m, "some", &err), VS_EVALUE);
    ck_assert_str_eq(vs_checkpointing_name(VS_CKPT_FULL), "full");
}
END_TEST

START_TEST(activations_fractional_attention_term_is_exact)
{
    /* 5*a*s/h = 5*32*100/4096 = 3.90625: s*b*h*(34 + 3.90625) = 15,526,400 exactly. */
    uint64_t v = 0;
    vs_error err;
    ck_assert_int_eq(vs_estimate_activations(&v, 1, 4096, 32, 100, 1, VS_CKPT_NONE, &err), 0);
    ck_assert_uint_eq(v, 15526400ULL);
    /* odd everything: s=7, h=3, a=1, b=1: 7*3*(34 + 35/3) = 714 + 245 = 959 */
    ck_assert_int_eq(vs_estimate_activations(&v, 1, 3, 1, 7, 1, VS_CKPT_NONE, &err), 0);
    ck_assert_uint_eq(v, 959ULL);
    ck_assert_int_eq(vs_estimate_activations(&v, 1ULL << 40, 1ULL << 20, 1, 1ULL << 20, 1,
                                             VS_CKPT_SELECTIVE, &err),
                     VS_EUNIT);
}
END_TEST

START_TEST(training_mixed_adamw_is_16_bytes_with_weights)
{
    vs_training_rule r;
    vs_training_est e;
    vs_error err;
    ck_assert_int_eq(vs_training_rule_get(&r, "adamw", NULL, &err), 0);
    ck_assert_str_eq(r.precision, "mixed");
    ck_assert_int_eq(vs_estimate_training(&e, &r, 7000000000ULL, &err), 0);
    ck_assert_uint_eq(e.gradients, 14000000000ULL);
    ck_assert_uint_eq(e.master_copy, 28000000000ULL);
    ck_assert_uint_eq(e.optimizer_state, 56000000000ULL);
    /* with 2 B of 16-bit weights: 16 B per parameter; K = 12 for the optimizer part */
    ck_assert_uint_eq(2 * 7000000000ULL + e.gradients + e.master_copy + e.optimizer_state,
                      16 * 7000000000ULL);
    ck_assert_uint_eq(r.master_bytes + r.state_bytes, 12);
}
END_TEST

START_TEST(training_other_optimizers_and_precisions)
{
    vs_training_rule r;
    vs_training_est e;
    vs_error err;
    ck_assert_int_eq(vs_training_rule_get(&r, "sgd", "mixed", &err), 0);
    ck_assert_int_eq(vs_estimate_training(&e, &r, 1000, &err), 0);
    ck_assert_uint_eq(e.optimizer_state, 4000);
    ck_assert_uint_eq(e.master_copy, 4000);
    ck_assert_int_eq(vs_training_rule_get(&r, "adamw8bit", NULL, &err), 0);
    ck_assert_int_eq(vs_estimate_training(&e, &r, 1000, &err), 0);
    /* two 1-byte moments, each with an fp32 scale per block of 256: 4 blocks */
    ck_assert_uint_eq(e.optimizer_state, 1000 * 2 + 2 * 4 * 4);
    ck_assert_str_eq(r.optimizer, "adamw8bit");
    ck_assert_int_eq(vs_training_rule_get(&r, "paged_adamw8bit", NULL, &err), 0);
    ck_assert_str_eq(r.optimizer, "paged_adamw8bit");
    ck_assert_int_eq(r.paged, 1);
    ck_assert_int_eq(vs_estimate_training(&e, &r, 1000, &err), 0);
    /* the two 1-byte moments in managed memory; their 4 + 4 fp32 scales not */
    ck_assert_uint_eq(e.paged_state, 1000 * 2);
    ck_assert_uint_eq(e.optimizer_state, 2 * 4 * 4);
    /* bitsandbytes' 32-bit paged AdamW keeps float32 moments under bf16 too */
    ck_assert_int_eq(vs_training_rule_get(&r, "paged_adamw_32bit", "bf16", &err), 0);
    ck_assert_str_eq(r.optimizer, "paged_adamw");
    ck_assert_int_eq(vs_estimate_training(&e, &r, 1000, &err), 0);
    ck_assert_uint_eq(e.paged_state, 1000 * 8);
    ck_assert_uint_eq(e.optimizer_state, 0);
    ck_assert_uint_eq(e.gradients, 2000);
    ck_assert_int_eq(vs_training_rule_get(&r, "adamw8bit", NULL, &err), 0);
    ck_assert_int_eq(r.paged, 0);
    ck_assert_int_eq(vs_training_rule_get(&r, "adamw", "fp32", &err), 0);
    ck_assert_int_eq(vs_estimate_training(&e, &r, 1000, &err), 0);
    ck_assert_uint_eq(e.gradients, 4000);
    ck_assert_uint_eq(e.master_copy, 0);
    ck_assert_uint_eq(e.optimizer_state, 8000);
    ck_assert_int_eq(vs_training_rule_get(&r, "adam", "bf16", &err), 0);
    ck_assert_int_eq(vs_estimate_training(&e, &r, 1000, &err), 0);
    ck_assert_uint_eq(e.gradients, 2000);
    ck_assert_uint_eq(e.optimizer_state, 4000);
    ck_assert_int_eq(vs_training_rule_get(&r, "lbfgs", NULL, &err), VS_EVALUE);
    ck_assert_int_eq(vs_training_rule_get(&r, "adamw", "fp8", &err), VS_EVALUE);
}
END_TEST

START_TEST(training_lora_trainable_only)
{
    /* LoRA r=8 on q and v of a 7B Llama: 4,194,304 trainable parameters. */
    vs_training_rule r;
    vs_training_est e;
    vs_error err;
    ck_assert_int_eq(vs_training_rule_get(&r, "adamw", "mixed", &err), 0);
    ck_assert_int_eq(vs_estimate_training(&e, &r, 4194304ULL, &err), 0);
    ck_assert_uint_eq(e.gradients, 8388608ULL);
    ck_assert_uint_eq(e.master_copy, 16777216ULL);
    ck_assert_uint_eq(e.optimizer_state, 33554432ULL);
    ck_assert_int_eq(vs_estimate_training(&e, &r, UINT64_MAX / 3, &err), VS_EUNIT);
}
END_TEST

START_TEST(quant_bitsandbytes_and_gptq)
{
    vs_quant_rule q;
    uint64_t v = 0;
    vs_error err;
    /* nf4 with double quantisation: 7e9/64 = 109,375,000 8-bit absmax, plus
     * ceil(109,375,000/256) = 427,247 fp32 constants: 0.127 bits per parameter. */
    ck_assert_int_eq(vs_quant_rule_get(&q, "bnb", 0, 1, 4, 0, &err), 0);
    ck_assert_int_eq(vs_estimate_quant(&v, &q, 7000000000ULL, &err), 0);
    ck_assert_uint_eq(v, 109375000ULL + 427247ULL * 4);
    ck_assert(v * 8 * 1000 / 7000000000ULL == 126); /* 0.1269.. bits/param */
    /* without double quantisation: an fp32 absmax per 64 = 0.5 bits per parameter */
    ck_assert_int_eq(vs_quant_rule_get(&q, "bnb", 0, 0, 4, 0, &err), 0);
    ck_assert_int_eq(vs_estimate_quant(&v, &q, 7000000000ULL, &err), 0);
    ck_assert_uint_eq(v, 437500000ULL);
    /* GPTQ 4-bit, group 128: fp16 scale + 4-bit zero = 20 bits per 128 values */
    ck_assert_int_eq(vs_quant_rule_get(&q, "gptq", 0, 0, 4, 0, &err), 0);
    ck_assert_uint_eq(q.group, 128);
    ck_assert_int_eq(vs_estimate_quant(&v, &q, 7000000000ULL, &err), 0);
    ck_assert_uint_eq(v, 136718750ULL);
    /* a partial last group still costs a whole group, rounded up to bytes */
    ck_assert_int_eq(vs_quant_rule_get(&q, "gptq", 0, 0, 4, 0, &err), 0);
    ck_assert_int_eq(vs_estimate_quant(&v, &q, 129, &err), 0);
    ck_assert_uint_eq(v, 5); /* 2 groups x 20 bits = 40 bits */
    ck_assert_int_eq(vs_quant_rule_get(&q, "group", 32, 0, 0, 16, &err), 0);
    ck_assert_int_eq(vs_estimate_quant(&v, &q, 1024, &err), 0);
    ck_assert_uint_eq(v, 64);
    ck_assert_int_eq(vs_quant_rule_get(&q, "group", 0, 0, 0, 16, &err), VS_EVALUE);
    /* the citation names the group actually used, not a fixed 128 or 64 */
    ck_assert_int_eq(vs_quant_rule_get(&q, "gptq", 1, 0, 4, 0, &err), 0);
    ck_assert_ptr_nonnull(strstr(q.source, "per group of 1 input rows"));
    ck_assert_int_eq(vs_quant_rule_get(&q, "gptq", 0, 0, 4, 0, &err), 0);
    ck_assert_ptr_nonnull(strstr(q.source, "per group of 128 input rows"));
    ck_assert_int_eq(vs_quant_rule_get(&q, "bnb", 32, 0, 4, 0, &err), 0);
    ck_assert_ptr_nonnull(strstr(q.source, "per block of 32"));
    ck_assert_int_eq(vs_quant_rule_get(&q, "bnb", 32, 1, 4, 0, &err), 0);
    ck_assert_ptr_nonnull(strstr(q.source, "per block of 32"));
    ck_assert_int_eq(vs_quant_rule_get(&q, "group", 32, 0, 0, 8, &err), 0);
    ck_assert_ptr_nonnull(strstr(q.source, "8-bit scale per group of 32"));
    /* group=0 as given is refused, with what to write instead */
    ck_assert_int_eq(vs_estimate_quant_group_check(0, &err), VS_EVALUE);
    ck_assert_ptr_nonnull(strstr(err.message, "at least 1"));
    ck_assert_int_eq(vs_estimate_quant_group_check(1, &err), 0);
    ck_assert_int_eq(vs_quant_rule_get(&q, "awq2", 0, 0, 0, 0, &err), VS_EVALUE);
    ck_assert_int_eq(vs_quant_rule_get(&q, "gptq", 0, 0, 16, 0, &err), VS_EVALUE);
}
END_TEST

/* Every estimator of the table is one `estimate NAME` form, with the table's
 * keys for completion. */
START_TEST(estimator_table_is_the_verb)
{
    const vs_estimator *const *r, *const *o;
    const vs_verb *v = vs_verb_find("estimate");
    size_t i, n = 0;
    ck_assert_ptr_nonnull(v);
    ck_assert_ptr_nonnull(v->registry);
    for (r = vs_estimators; *r; r++, n++) {
        const vs_estimator *e = *r;
        const char *name = e->info->name;
        ck_assert_ptr_eq(vs_estimator_find(name), e);
        ck_assert_ptr_nonnull(e->run);
        ck_assert_ptr_nonnull(e->reads);
        ck_assert_ptr_nonnull(e->info->keys[0]);
        ck_assert_ptr_nonnull(e->info->summary);
        ck_assert_ptr_nonnull(strstr(e->info->syntax, name));
        for (o = vs_estimators; o < r; o++)
            ck_assert_msg(strcmp((*o)->info->name, name) != 0, "%s twice", name);
        /* completion: the word, and the form's own keys */
        ck_assert_str_eq(vs_verb_word(v, n), name);
        for (i = 0; e->info->keys[i]; i++)
            ck_assert_ptr_eq(v->registry->form_key(name, strlen(name), i), e->info->keys[i]);
        ck_assert_ptr_null(v->registry->form_key(name, strlen(name), i));
    }
    ck_assert_uint_gt(n, 0);
    ck_assert_ptr_null(vs_verb_word(v, n));
    ck_assert_ptr_null(vs_estimator_find("memory"));
    ck_assert_ptr_null(v->registry->form_key("memory", 6, 0));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("estimate");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, estimator_table_is_the_verb);
    tcase_add_test(tc, kv_llama2_7b_mha);
    tcase_add_test(tc, kv_gqa_and_mqa);
    tcase_add_test(tc, kv_fp8_and_int4_cache);
    tcase_add_test(tc, kv_overflow_is_a_unit_error);
    tcase_add_test(tc, activations_each_checkpointing_mode);
    tcase_add_test(tc, activations_fractional_attention_term_is_exact);
    tcase_add_test(tc, training_mixed_adamw_is_16_bytes_with_weights);
    tcase_add_test(tc, training_other_optimizers_and_precisions);
    tcase_add_test(tc, training_lora_trainable_only);
    tcase_add_test(tc, quant_bitsandbytes_and_gptq);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
