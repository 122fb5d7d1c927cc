/* The phase-fd line parser (src/measure/phasefd.c). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/phasefd.h"

#include "check_run.h"

static int parse(vs_phasefd_event *ev, const char *s, vs_error *err)
{
    vs_error_clear(err);
    return vs_phasefd_parse(ev, s, strlen(s), err);
}

START_TEST(test_phase)
{
    vs_phasefd_event ev;
    vs_error err;
    ck_assert_int_eq(parse(&ev, "phase load\n", &err), 0);
    ck_assert_int_eq(ev.kind, VS_PHASEFD_PHASE);
    ck_assert_str_eq(ev.name, "load");
    ck_assert_int_eq(parse(&ev, "  phase\toptimizer.step  \r\n", &err), 0);
    ck_assert_str_eq(ev.name, "optimizer.step");
    ck_assert_int_eq(parse(&ev, "phase", &err), VS_ESYNTAX);
    ck_assert_int_eq(parse(&ev, "phase a b", &err), VS_ESYNTAX);
    ck_assert_int_eq(parse(&ev, "phase a;b", &err), VS_EVALUE);
    ck_assert_int_eq(err.column, 7);
}
END_TEST

START_TEST(test_blank_comment_unknown)
{
    vs_phasefd_event ev;
    vs_error err;
    ck_assert_int_eq(parse(&ev, "", &err), 0);
    ck_assert_int_eq(ev.kind, VS_PHASEFD_NONE);
    ck_assert_int_eq(parse(&ev, "   # a note", &err), 0);
    ck_assert_int_eq(ev.kind, VS_PHASEFD_NONE);
    ck_assert_int_eq(parse(&ev, "phrase load", &err), VS_ESYNTAX);
    ck_assert_ptr_nonnull(strstr(err.message, "expected phase, dims or counter"));
    ck_assert_int_eq(vs_phasefd_parse(&ev, "phase a\0b", 9, &err), VS_ESYNTAX);
    ck_assert_int_eq(parse(&ev, "phase \xc3\xa9t\xc3\xa9", &err), VS_ESYNTAX);
}
END_TEST

START_TEST(test_dims)
{
    vs_phasefd_event ev;
    vs_error err;
    ck_assert_int_eq(parse(&ev, "dims length=4096 concurrency=8 microbatch=2", &err), 0);
    ck_assert_int_eq(ev.kind, VS_PHASEFD_DIMS);
    ck_assert_uint_eq(ev.ndims, 3);
    ck_assert_str_eq(ev.dims[0].key, "length");
    ck_assert_uint_eq(ev.dims[0].value, 4096);
    ck_assert_str_eq(ev.dims[1].key, "concurrency");
    ck_assert_uint_eq(ev.dims[1].value, 8);
    ck_assert_uint_eq(ev.dims[2].value, 2);
    ck_assert_int_eq(parse(&ev, "dims", &err), VS_ESYNTAX);
    ck_assert_int_eq(parse(&ev, "dims length", &err), VS_ESYNTAX);
    ck_assert_int_eq(parse(&ev, "dims length=-1", &err), VS_EVALUE);
    ck_assert_int_eq(parse(&ev, "dims length=1.5", &err), VS_EVALUE);
    ck_assert_int_eq(parse(&ev, "dims Length=1", &err), VS_EVALUE);
    ck_assert_int_eq(parse(&ev, "dims length=1 length=2", &err), VS_EVALUE);
    ck_assert_int_eq(parse(&ev, "dims length=99999999999999999999", &err), VS_EVALUE);
    /* resolution=WxH stands for the width and height dims */
    ck_assert_int_eq(parse(&ev, "dims resolution=1280x720 frames=81 batch=1", &err), 0);
    ck_assert_uint_eq(ev.ndims, 4);
    ck_assert_str_eq(ev.dims[0].key, "width");
    ck_assert_uint_eq(ev.dims[0].value, 1280);
    ck_assert_str_eq(ev.dims[1].key, "height");
    ck_assert_uint_eq(ev.dims[1].value, 720);
    ck_assert_str_eq(ev.dims[2].key, "frames");
    ck_assert_uint_eq(ev.dims[2].value, 81);
    ck_assert_int_eq(parse(&ev, "dims resolution=1280", &err), VS_EVALUE);
    ck_assert_int_eq(parse(&ev, "dims resolution=1280x", &err), VS_EVALUE);
    ck_assert_int_eq(parse(&ev, "dims width=8 resolution=8x8", &err), VS_EVALUE);
}
END_TEST

START_TEST(test_counter)
{
    vs_phasefd_event ev;
    vs_error err;
    ck_assert_int_eq(parse(&ev, "counter torch.max_memory_allocated 14000000000 gpu=1", &err), 0);
    ck_assert_int_eq(ev.kind, VS_PHASEFD_COUNTER);
    ck_assert_str_eq(ev.name, "torch.max_memory_allocated");
    ck_assert_uint_eq(ev.bytes, 14000000000ULL);
    ck_assert_int_eq(ev.gpu_known, 1);
    ck_assert_uint_eq(ev.gpu, 1);
    ck_assert_int_eq(parse(&ev, "counter x 2GiB", &err), 0);
    ck_assert_uint_eq(ev.bytes, 2147483648ULL);
    ck_assert_int_eq(ev.gpu_known, 0);
    ck_assert_int_eq(parse(&ev, "counter x 1 uuid=GPU-0a1b", &err), 0);
    ck_assert_str_eq(ev.uuid, "GPU-0a1b");
    ck_assert_int_eq(parse(&ev, "counter x 12apples", &err), VS_EUNIT);
    ck_assert_int_eq(err.column, 11);
    ck_assert_int_eq(parse(&ev, "counter x", &err), VS_ESYNTAX);
    ck_assert_int_eq(parse(&ev, "counter x 1 gpu=a", &err), VS_EVALUE);
    ck_assert_int_eq(parse(&ev, "counter x 1 gpu=1 gpu=2", &err), VS_EVALUE);
    ck_assert_int_eq(parse(&ev, "counter x 1 card=1", &err), VS_EVALUE);
    ck_assert_int_eq(parse(&ev, "counter x 99999999999999999999", &err), VS_EUNIT);
}
END_TEST

START_TEST(test_limits)
{
    vs_phasefd_event ev;
    vs_error err;
    char line[2048];
    memset(line, 'a', sizeof line);
    memcpy(line, "phase ", 6);
    ck_assert_int_eq(vs_phasefd_parse(&ev, line, sizeof line, &err), VS_ESYNTAX);
    memset(line, 0, sizeof line);
    strcpy(line, "phase ");
    memset(line + 6, 'p', 64);
    ck_assert_int_eq(parse(&ev, line, &err), VS_EVALUE);
    line[6 + 63] = '\0';
    ck_assert_int_eq(parse(&ev, line, &err), 0);
    ck_assert_uint_eq(strlen(ev.name), 63);
    /* more dims than the event holds: refused, never written past the array
     * (a libFuzzer find) */
    {
        int i, n = 0;
        n += snprintf(line + n, sizeof line - (size_t)n, "dims");
        for (i = 0; i < VS_PHASEFD_DIMS_MAX; i++)
            n += snprintf(line + n, sizeof line - (size_t)n, " k%d=%d", i, i);
        ck_assert_int_eq(parse(&ev, line, &err), 0);
        ck_assert_uint_eq(ev.ndims, VS_PHASEFD_DIMS_MAX);
        snprintf(line + n, sizeof line - (size_t)n, " extra=1");
        ck_assert_int_eq(parse(&ev, line, &err), VS_EVALUE);
        ck_assert_ptr_nonnull(strstr(err.message, "at most"));
    }
    ck_assert_int_eq(vs_phasefd_name_valid("load"), 1);
    ck_assert_int_eq(vs_phasefd_name_valid(""), 0);
    ck_assert_int_eq(vs_phasefd_name_valid("a b"), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("measure_phasefd");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_phase);
    tcase_add_test(tc, test_blank_comment_unknown);
    tcase_add_test(tc, test_dims);
    tcase_add_test(tc, test_counter);
    tcase_add_test(tc, test_limits);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
