/* Unit tests for sheet/vocab: every name round-trips through parse and name,
 * unknown spellings are refused, and the strings records hold are checked
 * against literals written here (a change to one is a change to the records). */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "sheet/classify.h"
#include "sheet/envelope.h"
#include "sheet/vocab.h"

#include "check_run.h"

START_TEST(classes_as_recorded)
{
    static const char *const want[] = {"other",       "kv_cache",   "gradients", "optimizer",
                                       "activations", "parameters", NULL};
    int i;
    for (i = 0; want[i]; i++) {
        vs_vocab_class c = VS_CLASS_COUNT;
        ck_assert_str_eq(vs_vocab_class_names[i], want[i]);
        ck_assert_str_eq(vs_vocab_class_name((vs_vocab_class)i), want[i]);
        ck_assert_int_eq(vs_vocab_class_parse(&c, want[i], NULL), 0);
        ck_assert_int_eq(c, i);
        ck_assert_int_eq(vs_vocab_class_of(want[i]), i);
    }
    ck_assert_int_eq(i, VS_CLASS_COUNT);
    ck_assert_ptr_null(vs_vocab_class_names[VS_CLASS_COUNT]);
    ck_assert_str_eq(vs_vocab_class_name(VS_CLASS_KV_CACHE), "kv_cache");
    ck_assert_ptr_null(vs_vocab_class_name(VS_CLASS_COUNT));
}
END_TEST

START_TEST(classes_refused)
{
    static const char *const bad[] = {"weights", "KV_cache", "kv-cache", "", "other ", "optim"};
    size_t i;
    vs_vocab_class c = VS_CLASS_KV_CACHE;
    vs_error err;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        vs_error_clear(&err);
        ck_assert_int_eq(vs_vocab_class_parse(&c, bad[i], &err), VS_EVALUE);
        ck_assert_ptr_nonnull(strstr(err.message, "kv_cache"));
    }
    ck_assert_int_eq(vs_vocab_class_parse(&c, NULL, NULL), VS_EVALUE);
    ck_assert_int_eq(c, VS_CLASS_KV_CACHE); /* untouched */
    /* a placement's reading: the weights shard as parameters, the rest as other */
    ck_assert_int_eq(vs_vocab_class_of("weights"), VS_CLASS_PARAMETERS);
    ck_assert_int_eq(vs_vocab_class_of(NULL), VS_CLASS_OTHER);
    ck_assert_int_eq(vs_vocab_class_of("buffers"), VS_CLASS_OTHER);
}
END_TEST

START_TEST(tasks_as_recorded)
{
    static const char *const want[] = {"inference", "finetune",       "lora",           "qlora",
                                       "pretrain",  "generate-image", "generate-video", NULL};
    static const int trains[] = {0, 1, 1, 1, 1, 0, 0};
    int i;
    vs_error err;
    for (i = 0; want[i]; i++) {
        vs_vocab_task t = VS_TASK_COUNT;
        ck_assert_str_eq(vs_vocab_task_names[i], want[i]);
        ck_assert_str_eq(vs_vocab_task_name((vs_vocab_task)i), want[i]);
        ck_assert_int_eq(vs_vocab_task_parse(&t, want[i], NULL), 0);
        ck_assert_int_eq(t, i);
        ck_assert_int_eq(vs_vocab_task_trains(t), trains[i]);
    }
    ck_assert_int_eq(i, VS_TASK_COUNT);
    ck_assert_ptr_null(vs_vocab_task_names[VS_TASK_COUNT]);
    ck_assert_str_eq(vs_vocab_task_choices(), "inference, finetune, lora, qlora, pretrain, "
                                              "generate-image or generate-video");
    {
        vs_vocab_task t;
        ck_assert_int_eq(vs_vocab_task_parse(&t, "Inference", &err), VS_EVALUE);
        ck_assert_str_eq(err.message, "unknown task 'Inference'; expected inference, finetune, "
                                      "lora, qlora, pretrain, generate-image or generate-video");
        ck_assert_int_eq(vs_vocab_task_parse(&t, "generate_image", NULL), VS_EVALUE);
        ck_assert_int_eq(vs_vocab_task_parse(&t, "train", NULL), VS_EVALUE);
    }
}
END_TEST

START_TEST(statuses_as_recorded)
{
    static const char *const want[] = {"estimated", "measured", "unknown", NULL};
    int i;
    vs_vocab_status s;
    for (i = 0; want[i]; i++) {
        ck_assert_str_eq(vs_vocab_status_names[i], want[i]);
        ck_assert_str_eq(vs_vocab_status_name((vs_vocab_status)i), want[i]);
        ck_assert_int_eq(vs_vocab_status_parse(&s, want[i], NULL), 0);
        ck_assert_int_eq(s, i);
        ck_assert(vs_vocab_status_is(want[i], s));
    }
    ck_assert_int_eq(i, VS_STATUS_COUNT);
    ck_assert(!vs_vocab_status_is("measured", VS_STATUS_ESTIMATED));
    ck_assert(!vs_vocab_status_is(NULL, VS_STATUS_MEASURED));
    ck_assert(!vs_vocab_status_is("measured", VS_STATUS_COUNT));
    ck_assert_int_eq(vs_vocab_status_parse(&s, "Measured", NULL), VS_EVALUE);
    ck_assert_int_eq(vs_vocab_status_parse(&s, "estimate", NULL), VS_EVALUE);
    ck_assert_int_eq(vs_vocab_status_parse(&s, NULL, NULL), VS_EVALUE);
}
END_TEST

START_TEST(verdicts_as_recorded)
{
    static const char *const want[] = {"admissible", "to-confirm", "exclude", NULL};
    int i;
    vs_vocab_verdict v;
    vs_error err;
    for (i = 0; want[i]; i++) {
        ck_assert_str_eq(vs_vocab_verdict_names[i], want[i]);
        ck_assert_str_eq(vs_vocab_verdict_name((vs_vocab_verdict)i), want[i]);
        ck_assert_int_eq(vs_vocab_verdict_parse(&v, want[i], NULL), 0);
        ck_assert_int_eq(v, i);
        /* the same values and strings as classify's */
        ck_assert_str_eq(vs_verdict_name((vs_verdict)i), want[i]);
    }
    ck_assert_int_eq(VS_VOCAB_VERDICT_ADMISSIBLE, VS_VERDICT_ADMISSIBLE);
    ck_assert_int_eq(VS_VOCAB_VERDICT_TO_CONFIRM, VS_VERDICT_TO_CONFIRM);
    ck_assert_int_eq(VS_VOCAB_VERDICT_EXCLUDE, VS_VERDICT_EXCLUDE);
    ck_assert_str_eq(vs_vocab_verdict_name(VS_VOCAB_VERDICT_COUNT), "to-confirm");
    /* the spellings evidence is accepted in */
    ck_assert_int_eq(vs_vocab_verdict_parse(&v, "To Confirm", NULL), 0);
    ck_assert_int_eq(v, VS_VOCAB_VERDICT_TO_CONFIRM);
    ck_assert_int_eq(vs_vocab_verdict_parse(&v, "to_confirm", NULL), 0);
    ck_assert_int_eq(v, VS_VOCAB_VERDICT_TO_CONFIRM);
    ck_assert_int_eq(vs_vocab_verdict_parse(&v, "EXCLUDED", NULL), 0);
    ck_assert_int_eq(v, VS_VOCAB_VERDICT_EXCLUDE);
    ck_assert_int_eq(vs_vocab_verdict_parse(&v, "maybe", &err), VS_EVALUE);
    ck_assert_str_eq(err.message,
                     "'maybe' is not a verdict: expected admissible, to-confirm or exclude");
    ck_assert_int_eq(vs_vocab_verdict_parse(&v, "", NULL), VS_EVALUE);
    ck_assert_int_eq(vs_vocab_verdict_parse(&v, NULL, NULL), VS_EVALUE);
    ck_assert(vs_vocab_same_name("Memory actually-available", "memoryactuallyavailable"));
    ck_assert(vs_vocab_same_name("--", "--"));
    ck_assert(!vs_vocab_same_name("--", "-"));
    ck_assert(!vs_vocab_same_name(NULL, "a"));
}
END_TEST

START_TEST(formats_as_recorded)
{
    static const struct {
        const char *name;
        unsigned bits;
    } want[] = {{"fp32", 32}, {"fp16", 16}, {"bf16", 16}, {"fp8", 8},
                {"int8", 8},  {"int4", 4},  {"nf4", 4},   {"fp4", 4}};
    size_t i;
    char buf[16];
    vs_vocab_format f;
    unsigned bits;
    for (i = 0; i < sizeof want / sizeof want[0]; i++) {
        ck_assert_str_eq(vs_vocab_format_names[i], want[i].name);
        ck_assert_str_eq(vs_vocab_format_name((vs_vocab_format)i), want[i].name);
        bits = 0;
        ck_assert_int_eq(vs_vocab_format_bits((vs_vocab_format)i, &bits), 1);
        ck_assert_uint_eq(bits, want[i].bits);
        ck_assert_int_eq(vs_vocab_format_parse(&f, &bits, want[i].name, NULL), 0);
        ck_assert_int_eq(f, (int)i);
        ck_assert_uint_eq(bits, want[i].bits);
        ck_assert_str_eq(vs_vocab_format_print(buf, sizeof buf, f, 0), want[i].name);
        bits = 0;
        ck_assert_int_eq(vs_envelope_format_bits(&bits, want[i].name, NULL), 0);
        ck_assert_uint_eq(bits, want[i].bits);
    }
    ck_assert_int_eq((int)i, VS_FORMAT_BITS);
    ck_assert_ptr_null(vs_vocab_format_names[VS_FORMAT_BITS]);
    ck_assert_ptr_null(vs_vocab_format_name(VS_FORMAT_BITS));
    ck_assert_int_eq(vs_vocab_format_bits(VS_FORMAT_BITS, &bits), 0);
    ck_assert_int_eq(vs_vocab_format_bits(VS_FORMAT_COUNT, &bits), 0);
    for (bits = 1; bits <= 64; bits++) {
        unsigned b = 0;
        ck_assert_ptr_nonnull(vs_vocab_format_print(buf, sizeof buf, VS_FORMAT_BITS, bits));
        ck_assert_int_eq(vs_vocab_format_parse(&f, &b, buf, NULL), 0);
        ck_assert_int_eq(f, VS_FORMAT_BITS);
        ck_assert_uint_eq(b, bits);
        b = 0;
        ck_assert_int_eq(vs_envelope_format_bits(&b, buf, NULL), 0);
        ck_assert_uint_eq(b, bits);
    }
    ck_assert_str_eq(vs_vocab_format_print(buf, sizeof buf, VS_FORMAT_BITS, 3), "bits=3");
    ck_assert_ptr_null(vs_vocab_format_print(buf, sizeof buf, VS_FORMAT_BITS, 0));
    ck_assert_ptr_null(vs_vocab_format_print(buf, sizeof buf, VS_FORMAT_BITS, 65));
    ck_assert_ptr_null(vs_vocab_format_print(buf, 4, VS_FORMAT_FP32, 0));
    ck_assert_ptr_null(vs_vocab_format_print(buf, sizeof buf, VS_FORMAT_COUNT, 0));
    {
        static const char *const bad[] = {"FP32",     "float32", "bfloat16", "q4_k_x",
                                          "bits=",    "bits=0",  "bits=07",  "bits=65",
                                          "bits=100", "bits=4x", "bits= 4",  ""};
        vs_error err;
        f = VS_FORMAT_NF4;
        bits = 99;
        for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            ck_assert_int_eq(vs_vocab_format_parse(&f, &bits, bad[i], &err), VS_EVALUE);
            ck_assert_ptr_nonnull(strstr(err.message, "bits=N"));
            ck_assert_int_eq(vs_envelope_format_bits(&bits, bad[i], NULL), VS_EVALUE);
        }
        ck_assert_int_eq(vs_vocab_format_parse(&f, NULL, NULL, NULL), VS_EVALUE);
        ck_assert_int_eq(f, VS_FORMAT_NF4);
        ck_assert_uint_eq(bits, 99);
    }
}
END_TEST

START_TEST(scopes_as_recorded)
{
    static const char *const want[] = {"device",  "process",  "allocator",
                                       "tensors", "reported", NULL};
    int i;
    vs_vocab_scope s;
    for (i = 0; want[i]; i++) {
        ck_assert_str_eq(vs_vocab_scope_names[i], want[i]);
        ck_assert_str_eq(vs_vocab_scope_name((vs_vocab_scope)i), want[i]);
        ck_assert_int_eq(vs_vocab_scope_parse(&s, want[i], NULL), 0);
        ck_assert_int_eq(s, i);
    }
    ck_assert_int_eq(i, VS_SCOPE_COUNT);
    ck_assert_ptr_null(vs_vocab_scope_name(VS_SCOPE_COUNT));
    ck_assert_int_eq(vs_vocab_scope_parse(&s, "Device", NULL), VS_EVALUE);
    ck_assert_int_eq(vs_vocab_scope_parse(&s, "gpu", NULL), VS_EVALUE);
    ck_assert_str_eq(VS_COUNTER_DEVICE, "nvml.device_used");
    ck_assert_str_eq(VS_COUNTER_PROCESS, "nvml.process_used");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sheet_vocab");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, classes_as_recorded);
    tcase_add_test(tc, classes_refused);
    tcase_add_test(tc, tasks_as_recorded);
    tcase_add_test(tc, statuses_as_recorded);
    tcase_add_test(tc, verdicts_as_recorded);
    tcase_add_test(tc, formats_as_recorded);
    tcase_add_test(tc, scopes_as_recorded);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
