/* Unit tests for src/kernel/conn: connection files and endpoints. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/conn.h"

#include "check_run.h"
#include "test_tmp.h"

static const char *const good =
    "{\"shell_port\": 5001, \"iopub_port\": 5002, \"stdin_port\": 5003,"
    " \"control_port\": 5004, \"hb_port\": 5005, \"ip\": \"127.0.0.1\","
    " \"key\": \"a0436f6c-1916-498b-8eb9-e81ab9368e84\", \"transport\": \"tcp\","
    " \"signature_scheme\": \"hmac-sha256\", \"kernel_name\": \"vramsheet\","
    " \"some_future_field\": [1, 2, {\"x\": null}]}";

static int parse(vs_conn *c, const char *text, vs_error *err)
{
    vs_error_clear(err);
    return vs_conn_parse(c, text, strlen(text), err);
}

START_TEST(test_parse_tcp)
{
    vs_conn c;
    vs_error err;
    char ep[128];
    ck_assert_int_eq(parse(&c, good, &err), 0);
    ck_assert_str_eq(c.transport, "tcp");
    ck_assert_str_eq(c.ip, "127.0.0.1");
    ck_assert_int_eq(c.ports[VS_CHAN_SHELL], 5001);
    ck_assert_int_eq(c.ports[VS_CHAN_IOPUB], 5002);
    ck_assert_int_eq(c.ports[VS_CHAN_STDIN], 5003);
    ck_assert_int_eq(c.ports[VS_CHAN_CONTROL], 5004);
    ck_assert_int_eq(c.ports[VS_CHAN_HB], 5005);
    ck_assert_uint_eq(c.key_len, 36);
    ck_assert_str_eq(c.key, "a0436f6c-1916-498b-8eb9-e81ab9368e84");
    ck_assert_int_eq(vs_conn_endpoint(&c, VS_CHAN_CONTROL, ep, sizeof ep, &err), 0);
    ck_assert_str_eq(ep, "tcp://127.0.0.1:5004");
    ck_assert_int_eq(vs_conn_endpoint(&c, VS_CHAN_COUNT, ep, sizeof ep, &err), VS_EVALUE);
    ck_assert_int_eq(vs_conn_endpoint(&c, VS_CHAN_SHELL, ep, 8, &err), VS_EVALUE);
}
END_TEST

START_TEST(test_parse_ipc_and_ipv6)
{
    vs_conn c;
    vs_error err;
    char ep[128];
    ck_assert_int_eq(parse(&c,
                           "{\"transport\": \"ipc\", \"ip\": \"/tmp/kernel-x\", \"shell_port\": 1,"
                           " \"iopub_port\": 2, \"stdin_port\": 3, \"control_port\": 4,"
                           " \"hb_port\": 5, \"key\": \"\"}",
                           &err),
                     0);
    ck_assert_int_eq(vs_conn_endpoint(&c, VS_CHAN_HB, ep, sizeof ep, &err), 0);
    ck_assert_str_eq(ep, "ipc:///tmp/kernel-x-5");
    ck_assert_uint_eq(c.key_len, 0);
    ck_assert_int_eq(parse(&c,
                           "{\"ip\": \"::1\", \"shell_port\": 1, \"iopub_port\": 2,"
                           " \"stdin_port\": 3, \"control_port\": 4, \"hb_port\": 5}",
                           &err),
                     0);
    ck_assert_str_eq(c.transport, "tcp"); /* the default */
    ck_assert_int_eq(vs_conn_endpoint(&c, VS_CHAN_SHELL, ep, sizeof ep, &err), 0);
    ck_assert_str_eq(ep, "tcp://[::1]:1");
}
END_TEST

START_TEST(test_bad_files_are_explained)
{
    static const struct {
        const char *text;
        const char *says;
    } cases[] = {
        {"", "not JSON"},
        {"{", "not JSON"},
        {"[1]", "JSON object"},
        {"{\"shell_port\": 1}", "iopub_port"},
        {"{\"shell_port\": \"1\", \"iopub_port\": 2, \"stdin_port\": 3, \"control_port\": 4,"
         " \"hb_port\": 5}",
         "shell_port"},
        {"{\"shell_port\": 70000, \"iopub_port\": 2, \"stdin_port\": 3, \"control_port\": 4,"
         " \"hb_port\": 5}",
         "not a port"},
        {"{\"shell_port\": 0, \"iopub_port\": 2, \"stdin_port\": 3, \"control_port\": 4,"
         " \"hb_port\": 5}",
         "not a port"},
        {"{\"transport\": \"udp\", \"shell_port\": 1, \"iopub_port\": 2, \"stdin_port\": 3,"
         " \"control_port\": 4, \"hb_port\": 5}",
         "udp"},
        {"{\"key\": \"k\", \"signature_scheme\": \"hmac-md5\", \"shell_port\": 1,"
         " \"iopub_port\": 2, \"stdin_port\": 3, \"control_port\": 4, \"hb_port\": 5}",
         "hmac-md5"},
        {"{\"key\": 5, \"shell_port\": 1, \"iopub_port\": 2, \"stdin_port\": 3,"
         " \"control_port\": 4, \"hb_port\": 5}",
         "\"key\""},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        vs_conn c;
        vs_error err;
        int rc = parse(&c, cases[i].text, &err);
        ck_assert_msg(rc < 0, "case %zu accepted", i);
        ck_assert_int_eq(err.code, rc);
        ck_assert_msg(strstr(err.message, cases[i].says), "case %zu: '%s' lacks '%s'", i,
                      err.message, cases[i].says);
    }
}
END_TEST

START_TEST(test_load_file)
{
    char path[200];
    int fd = mkstemp(vs_test_tmp(path, sizeof path, "vs_test_conn_XXXXXX"));
    vs_conn c;
    vs_error err;
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, good, strlen(good)), (ssize_t)strlen(good));
    close(fd);
    vs_error_clear(&err);
    ck_assert_int_eq(vs_conn_load(&c, path, &err), 0);
    ck_assert_int_eq(c.ports[VS_CHAN_HB], 5005);
    unlink(path);
    ck_assert_int_eq(vs_conn_load(&c, path, &err), VS_EIO);
    ck_assert_ptr_nonnull(strstr(err.message, path));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("conn");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_parse_tcp);
    tcase_add_test(tc, test_parse_ipc_and_ipv6);
    tcase_add_test(tc, test_bad_files_are_explained);
    tcase_add_test(tc, test_load_file);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
