/* Unit tests for src/kernel/wire: signing, framing, parsing, headers. */
#include <check.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/wire.h"

#include "check_run.h"

#define KEY "a0436f6c-1916-498b-8eb9-e81ab9368e84"
#define VECTOR "c127e7d687f9b04ac08b5d4d8d044e23d5af43c9f4c7df6ab23ca59210031b80"

static vs_frame F(const char *s)
{
    vs_frame f = {(unsigned char *)s, strlen(s)};
    return f;
}

static const unsigned char *K = (const unsigned char *)KEY;
static const size_t KL = sizeof KEY - 1;

START_TEST(test_sign_vector_from_notes)
{
    vs_frame parts[4] = {F("{\"msg_id\":\"1\"}"), F("{}"), F("{}"), F("{\"code\":\"x\"}")};
    char hex[VS_WIRE_SIG_HEX + 1];
    vs_wire_sign(K, KL, parts, hex);
    ck_assert_str_eq(hex, VECTOR);
    ck_assert(vs_wire_verify(K, KL, parts, (const unsigned char *)VECTOR, 64));
    /* A change anywhere, a truncation or an extension is refused. */
    ck_assert(!vs_wire_verify(K, KL, parts, (const unsigned char *)VECTOR, 63));
    ck_assert(!vs_wire_verify(K, KL, parts, (const unsigned char *)VECTOR "0", 65));
    hex[10] = hex[10] == '0' ? '1' : '0';
    ck_assert(!vs_wire_verify(K, KL, parts, (const unsigned char *)hex, 64));
    parts[3] = F("{\"code\":\"y\"}");
    ck_assert(!vs_wire_verify(K, KL, parts, (const unsigned char *)VECTOR, 64));
    /* No key: no signature, and anything is accepted. */
    vs_wire_sign(K, 0, parts, hex);
    ck_assert_str_eq(hex, "");
    ck_assert(vs_wire_verify(K, 0, parts, (const unsigned char *)"", 0));
}
END_TEST

/* Builds frames: ids..., delim, signature (computed unless sig given), 4 parts. */
static size_t build(vs_frame *out, char sig[65], const char **ids, size_t nids, const char *h,
                    const char *p, const char *md, const char *c, const char *forced_sig)
{
    size_t i, n = 0;
    for (i = 0; i < nids; i++)
        out[n++] = F(ids[i]);
    out[n++] = F(VS_WIRE_DELIM);
    out[n + 1] = F(h);
    out[n + 2] = F(p);
    out[n + 3] = F(md);
    out[n + 4] = F(c);
    if (forced_sig)
        strcpy(sig, forced_sig);
    else
        vs_wire_sign(K, KL, &out[n + 1], sig);
    out[n] = F(sig);
    return n + 5;
}

START_TEST(test_parse_valid_with_ids_and_buffers)
{
    vs_frame f[16];
    char sig[65];
    const char *ids[] = {"client-a", "router-b"};
    vs_msg *m = NULL;
    vs_error err;
    size_t n = build(f, sig, ids, 2,
                     "{\"msg_id\":\"m1\",\"msg_type\":\"execute_request\",\"session\":\"s\","
                     "\"username\":\"u\",\"date\":\"x\",\"version\":\"5.3\"}",
                     "{}", "{}", "{\"code\":\"help\"}", NULL);
    f[n++] = F("buffer-1");
    f[n++] = F("buffer-2");
    vs_error_clear(&err);
    ck_assert_int_eq(vs_wire_parse(&m, f, n, K, KL, &err), 0);
    ck_assert_ptr_nonnull(m);
    ck_assert_uint_eq(m->nids, 2);
    ck_assert_mem_eq(m->ids[0].data, "client-a", 8);
    ck_assert_uint_eq(m->ids[1].len, 8);
    ck_assert_str_eq(m->msg_type, "execute_request");
    ck_assert_str_eq(m->msg_id, "m1");
    ck_assert_str_eq(json_string_value(json_object_get(m->content, "code")), "help");
    ck_assert_uint_eq(m->nbuffers, 2);
    ck_assert_uint_eq(m->header_raw.len, f[4].len);
    ck_assert_mem_eq(m->header_raw.data, f[4].data, f[4].len);
    vs_msg_free(m);
    vs_msg_free(NULL);
}
END_TEST

START_TEST(test_parse_rejects)
{
    static const struct {
        const char *h, *p, *md, *c, *sig, *says;
    } cases[] = {
        {"{\"msg_id\":\"1\",\"msg_type\":\"t\"}", "{}", "{}", "{}", "0000", "bad signature"},
        {"{\"msg_id\":\"1\",\"msg_type\":\"t\"}", "{}", "{}", "{}",
         "c127e7d687f9b04ac08b5d4d8d044e23d5af43c9f4c7df6ab23ca59210031b80", "bad signature"},
        {"{\"msg_id\":\"1\",\"msg_type\":\"t\"", "{}", "{}", "{}", NULL, "header is not valid"},
        {"{\"msg_id\":\"1\",\"msg_type\":\"t\"}", "[]", "{}", "{}", NULL, "parent_header"},
        {"{\"msg_id\":\"1\",\"msg_type\":\"t\"}", "{}", "3", "{}", NULL, "metadata"},
        {"{\"msg_id\":\"1\"}", "{}", "{}", "{}", NULL, "msg_type"},
        {"{\"msg_id\":\"1\",\"msg_type\":\"\"}", "{}", "{}", "{}", NULL, "msg_type"},
        {"{\"msg_id\":1,\"msg_type\":\"t\"}", "{}", "{}", "{}", NULL, "msg_id"},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        vs_frame f[8];
        char sig[65];
        vs_msg *m = (vs_msg *)1;
        vs_error err;
        size_t n =
            build(f, sig, NULL, 0, cases[i].h, cases[i].p, cases[i].md, cases[i].c, cases[i].sig);
        vs_error_clear(&err);
        ck_assert_int_eq(vs_wire_parse(&m, f, n, K, KL, &err), VS_EPROTOCOL);
        ck_assert_ptr_null(m);
        ck_assert_msg(strstr(err.message, cases[i].says), "case %zu: '%s' lacks '%s'", i,
                      err.message, cases[i].says);
    }
    /* A signed message whose content alone cannot be read is kept, with an empty
     * content and the reason, so that the request can be answered with an error. */
    {
        static const char *const bad[] = {"\"x\"", "{\"a\":\"\xff\xfe\"}", "{\"a\":\"\\u0000\"}",
                                          "{\"a\":\"\\ud800\"}", "{\"c\":18446744073709551616}"};
        for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            vs_frame f[8];
            char sig[65];
            vs_msg *m = NULL;
            vs_error err;
            size_t n = build(f, sig, NULL, 0, "{\"msg_id\":\"1\",\"msg_type\":\"t_request\"}", "{}",
                             "{}", bad[i], NULL);
            vs_error_clear(&err);
            ck_assert_int_eq(vs_wire_parse(&m, f, n, K, KL, &err), 0);
            ck_assert_ptr_nonnull(m);
            ck_assert_msg(m->content_error && strstr(m->content_error, "content"), "bad[%zu]", i);
            ck_assert(json_is_object(m->content) && json_object_size(m->content) == 0);
            ck_assert_str_eq(m->msg_type, "t_request");
            vs_msg_free(m);
        }
    }
}
END_TEST

/* A part that is not JSON names jansson's position, in the text and in the
 * error: "{\"msg_id\":\"1\",x" is 15 bytes up to and with the x. */
START_TEST(test_parse_error_position)
{
    vs_frame f[8];
    char sig[65];
    vs_msg *m = (vs_msg *)1;
    vs_error err;
    size_t n = build(f, sig, NULL, 0, "{\"msg_id\":\"1\",x}", "{}", "{}", "{}", NULL);
    ck_assert_int_eq(vs_wire_parse(&m, f, n, K, KL, &err), VS_EPROTOCOL);
    ck_assert_ptr_null(m);
    ck_assert_msg(strstr(err.message, "(position 15)"), "%s", err.message);
    ck_assert(err.position == 15);
    ck_assert_int_eq(err.line, 0);
}
END_TEST

START_TEST(test_parse_framing_errors)
{
    vs_frame f[8];
    char sig[65];
    vs_msg *m = NULL;
    vs_error err;
    size_t n =
        build(f, sig, NULL, 0, "{\"msg_id\":\"1\",\"msg_type\":\"t\"}", "{}", "{}", "{}", NULL);
    ck_assert_int_eq(vs_wire_parse(&m, f, n - 1, K, KL, &err), VS_EPROTOCOL);
    ck_assert_ptr_nonnull(strstr(err.message, "after the delimiter"));
    ck_assert_int_eq(vs_wire_parse(&m, f + 1, n - 1, K, KL, &err), VS_EPROTOCOL);
    ck_assert_ptr_nonnull(strstr(err.message, "delimiter"));
    ck_assert_int_eq(vs_wire_parse(&m, f, 0, K, KL, &err), VS_EPROTOCOL);
    /* A near-delimiter is not the delimiter. */
    f[0] = F("<IDS|MSG");
    ck_assert_int_eq(vs_wire_parse(&m, f, n, K, KL, &err), VS_EPROTOCOL);
    /* With an empty key, any signature frame passes. */
    f[0] = F(VS_WIRE_DELIM);
    f[1] = F("whatever");
    ck_assert_int_eq(vs_wire_parse(&m, f, n, K, 0, &err), 0);
    vs_msg_free(m);
}
END_TEST

START_TEST(test_serialize_round_trip)
{
    vs_frame ids[1] = {F("peer")}, parent = F("{\"msg_id\":\"p\",\"msg_type\":\"x\"}");
    vs_frame *out = NULL;
    size_t n = 0;
    vs_msg *m = NULL;
    vs_error err;
    json_t *h = vs_wire_header_new("stream", "id-1", "sess", "user", "2026-01-01T00:00:00.000000Z");
    json_t *c = json_pack("{s:s, s:s}", "name", "stdout", "text", "h\xc3\xa9llo\n");
    vs_error_clear(&err);
    ck_assert_int_eq(vs_wire_serialize(&out, &n, ids, 1, h, &parent, NULL, c, K, KL, &err), 0);
    ck_assert_uint_eq(n, 7);
    ck_assert_mem_eq(out[1].data, VS_WIRE_DELIM, 9);
    ck_assert_uint_eq(out[2].len, 64);
    ck_assert_mem_eq(out[4].data, parent.data, parent.len);
    ck_assert_int_eq(vs_wire_parse(&m, out, n, K, KL, &err), 0);
    ck_assert_str_eq(m->msg_type, "stream");
    ck_assert_str_eq(json_string_value(json_object_get(m->header, "version")), "5.3");
    ck_assert_str_eq(json_string_value(json_object_get(m->parent_header, "msg_id")), "p");
    ck_assert(json_equal(m->content, c));
    ck_assert_int_eq(json_object_size(m->metadata), 0);
    ck_assert_uint_eq(m->nids, 1);
    vs_msg_free(m);
    vs_wire_frames_free(out, n);
    /* No key: an empty signature frame. */
    ck_assert_int_eq(vs_wire_serialize(&out, &n, NULL, 0, h, NULL, NULL, c, K, 0, &err), 0);
    ck_assert_uint_eq(out[1].len, 0);
    ck_assert_mem_eq(out[3].data, "{}", 2);
    vs_wire_frames_free(out, n);
    json_decref(h);
    json_decref(c);
}
END_TEST

START_TEST(test_uuid4_and_date)
{
    unsigned char zeros[16] = {0}, ones[16];
    char a[37], b[37], d[32];
    int i;
    memset(ones, 0xff, sizeof ones);
    vs_wire_uuid4_from(zeros, a);
    ck_assert_str_eq(a, "00000000-0000-4000-8000-000000000000");
    vs_wire_uuid4_from(ones, a);
    ck_assert_str_eq(a, "ffffffff-ffff-4fff-bfff-ffffffffffff");
    ck_assert_int_ge(sodium_init(), 0);
    vs_wire_uuid4(a);
    ck_assert_uint_eq(strlen(a), 36);
    ck_assert_int_eq(a[14], '4');
    ck_assert_ptr_nonnull(strchr("89ab", a[19]));
    for (i = 0; i < 100; i++) {
        vs_wire_uuid4(b);
        ck_assert_str_ne(a, b);
    }
    vs_wire_format_date(0, 7, d);
    ck_assert_str_eq(d, "1970-01-01T00:00:00.000007Z");
    vs_wire_format_date(1796161300, 123456, d);
    ck_assert_str_eq(d, "2026-12-01T21:41:40.123456Z");
    vs_wire_date_now(d);
    ck_assert_uint_eq(strlen(d), 27);
    ck_assert_int_eq(d[26], 'Z');
}
END_TEST

START_TEST(test_large_message)
{
    /* 10 MB of content parses and round-trips. */
    size_t big = 10u << 20, i;
    char *c = malloc(big + 32), sig[65];
    vs_frame f[8];
    vs_msg *m = NULL;
    vs_error err;
    size_t n;
    ck_assert_ptr_nonnull(c);
    strcpy(c, "{\"code\":\"");
    for (i = 9; i < big; i++)
        c[i] = 'a' + (char)(i % 26);
    strcpy(c + big, "\"}");
    n = build(f, sig, NULL, 0, "{\"msg_id\":\"1\",\"msg_type\":\"execute_request\"}", "{}", "{}", c,
              NULL);
    ck_assert_int_eq(vs_wire_parse(&m, f, n, K, KL, &err), 0);
    ck_assert_uint_eq(json_string_length(json_object_get(m->content, "code")), big - 9);
    vs_msg_free(m);
    free(c);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("wire");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_sign_vector_from_notes);
    tcase_add_test(tc, test_parse_valid_with_ids_and_buffers);
    tcase_add_test(tc, test_parse_rejects);
    tcase_add_test(tc, test_parse_error_position);
    tcase_add_test(tc, test_parse_framing_errors);
    tcase_add_test(tc, test_serialize_round_trip);
    tcase_add_test(tc, test_uuid4_and_date);
    tcase_add_test(tc, test_large_message);
    suite_add_tcase(s, tc);
    return vs_check_run(s);
}
