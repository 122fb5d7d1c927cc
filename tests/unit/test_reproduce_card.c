/* reproduce's card overrides (src/lang/reproduce_card.c) through the
 * interpreter, with a temporary records repository: what the new sheet's card
 * holds once committed and read back, the estimates that followed it, and the
 * refusals that leave the session's sheets as they were.
 *
 * The KV cache figures are worked by hand: 2 (K and V) x 32 layers x 8
 * kv_heads x 128 head_dim x 2 B (fp16) = 131,072 B per token; x 4,096 tokens
 * x 1 sequence = 536,870,912 B; x 32,768 tokens x 2 sequences =
 * 8,589,934,592 B. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/interp.h"
#include "render/bundle.h"

#include "check_run.h"
#include "results.h"
#include "test_tmp.h"

static char tmpdir[256], records[300];

static void setup(void)
{
    vs_test_tmp(tmpdir, sizeof tmpdir, "vs_test_reproduce_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
    snprintf(records, sizeof records, "%s/records", tmpdir);
    setenv("VRAMSHEET_RECORDS", records, 1);
    setenv("GIT_AUTHOR_NAME", "tester", 1);
    setenv("GIT_AUTHOR_EMAIL", "tester@example.org", 1);
}

static void teardown(void)
{
    vs_test_rmtree(tmpdir);
}

/* Runs a cell; the last result's payload (new reference) in *payload when
 * asked, its text in *text (new string) when asked. */
static int run(vs_interp *ip, const char *code, json_t **payload, char **text, vs_error *err)
{
    json_t *res = NULL;
    vs_sink sink;
    int rc;
    memset(&sink, 0, sizeof sink);
    vs_error_clear(err);
    rc = vs_test_execute(ip, code, &sink, &res, err);
    if (payload)
        *payload = res ? json_incref(json_object_get(res, VS_MIME_JSON)) : NULL;
    if (text) {
        const char *t = res ? json_string_value(json_object_get(res, "text/plain")) : NULL;
        *text = strdup(t ? t : "");
    }
    json_decref(res);
    return rc;
}

static const char *pstr(const json_t *p, const char *k)
{
    return json_string_value(json_object_get(p, k));
}

static json_int_t card_int(const json_t *sheet, const char *k)
{
    return json_integer_value(json_object_get(json_object_get(sheet, "card"), k));
}

static const json_t *component(const json_t *sheet, const char *name)
{
    size_t i;
    const json_t *c;
    json_array_foreach(json_object_get(sheet, "components"), i,
                       c) if (!strcmp(pstr(c, "name"), name)) return c;
    return NULL;
}

static const char source_cell[] =
    "sheet \"Campaign A\"\n"
    "model m params=7e9\n"
    "format bf16\n"
    "length 4096\n"
    "concurrency 1\n"
    "engine llamacpp\n"
    "estimate kv layers=32 kv_heads=8 head_dim=128\n"
    "gpu \"RTX 4090\"\n"
    "record phase=generate gpu=0 gpu_name=\"RTX 4090\" counter=torch.max_memory_reserved 20GiB\n"
    "commit \"f16 cache\"\n";

/* length= and concurrency=: the card carries them and the KV estimate follows */
START_TEST(test_length_and_concurrency_reestimate)
{
    vs_interp *ip = vs_interp_new(NULL);
    vs_error err;
    json_t *p = NULL, *ch;
    char *text = NULL;
    const json_t *kv;
    const uint64_t per_token = 2ull * 32 * 8 * 128 * 2;
    ck_assert_int_eq(run(ip, source_cell, NULL, NULL, &err), 0);
    ck_assert_int_eq(run(ip, "reproduce campaign-a as \"long context\" length=32768 concurrency=2",
                         &p, &text, &err),
                     0);
    ck_assert_ptr_nonnull(strstr(text, "Its card: length 4,096 → 32,768; concurrency 1 → 2; "
                                       "re-estimated: kv_cache 0.50 GiB → 8.00 GiB.\n"));
    /* neither the GPU nor the software changed: the measurement stays current */
    ck_assert_ptr_nonnull(strstr(text, "Same hardware and software: the 1 measurement stay"));
    ch = json_object_get(p, "card_changes");
    ck_assert_uint_eq(json_array_size(ch), 2);
    ck_assert_str_eq(pstr(json_array_get(ch, 0), "field"), "length");
    ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(ch, 0), "from")), 4096);
    ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(ch, 0), "to")), 32768);
    ch = json_object_get(p, "reestimated");
    ck_assert_uint_eq(json_array_size(ch), 1);
    ck_assert_str_eq(pstr(json_array_get(ch, 0), "component"), "kv_cache");
    ck_assert_str_eq(pstr(json_array_get(ch, 0), "change"), "re-estimated");
    ck_assert_uint_eq(json_integer_value(json_object_get(json_array_get(ch, 0), "from")),
                      per_token * 4096);
    ck_assert_uint_eq(json_integer_value(json_object_get(json_array_get(ch, 0), "to")),
                      per_token * 32768 * 2);
    json_decref(p);
    free(text);
    /* what the records hold once committed, read back in a new session */
    ck_assert_int_eq(run(ip, "commit \"long\"", NULL, NULL, &err), 0);
    vs_interp_free(ip);
    ip = vs_interp_new(NULL);
    ck_assert_int_eq(run(ip, "show long-context", &p, NULL, &err), 0);
    ck_assert_int_eq(card_int(p, "length"), 32768);
    ck_assert_int_eq(card_int(p, "concurrency"), 2);
    kv = component(p, "kv_cache");
    ck_assert_ptr_nonnull(kv);
    ck_assert_uint_eq(json_integer_value(json_object_get(kv, "bytes")), per_token * 32768 * 2);
    ck_assert_int_eq(json_integer_value(json_object_get(
                         json_object_get(json_object_get(kv, "derived"), "reads"), "length")),
                     32768);
    ck_assert_str_eq(pstr(json_array_get(json_object_get(p, "measurements"), 0), "state"),
                     "current");
    ck_assert_str_eq(pstr(json_object_get(p, "lineage"), "sheet"), "campaign-a");
    json_decref(p);
    vs_interp_free(ip);
}
END_TEST

/* engine= is the rest of an engine line: the card's engine is that one, with its
 * keys; the measurements are to re-measure (another software), the GPU stays */
START_TEST(test_engine_is_the_new_engine)
{
    vs_interp *ip = vs_interp_new(NULL);
    vs_error err;
    json_t *p = NULL, *eng, *ch;
    char *text = NULL;
    ck_assert_int_eq(run(ip, source_cell, NULL, NULL, &err), 0);
    ck_assert_int_eq(run(ip,
                         "reproduce campaign-a as \"q8 cache\" "
                         "engine=\"llamacpp cache_type_k=q8_0 cache_type_v=q8_0 flash_attn=on\"",
                         &p, &text, &err),
                     0);
    /* the KV cache follows the engine's cache types: a row of 8 x 128 = 1,024 values
     * in q8_0 is 1,024 / 32 x 34 = 1,088 B, K and V 2,176 B per cell and layer:
     * 32 x 4,096 x 2,176 = 285,212,672 B = 0.27 GiB */
    ck_assert_ptr_nonnull(strstr(text, "Its card: engine llamacpp → llamacpp cache_type_k=q8_0 "
                                       "cache_type_v=q8_0 flash_attn=on; re-estimated: kv_cache "
                                       "0.50 GiB → 0.27 GiB.\n"));
    ck_assert_ptr_nonnull(strstr(text, "The new campaign changes the engine to llamacpp "
                                       "cache_type_k=q8_0 cache_type_v=q8_0 flash_attn=on: 1 of 1 "
                                       "measurement marked \"to re-measure\".\n"));
    ck_assert_int_eq(json_integer_value(json_object_get(p, "to_remeasure")), 1);
    ch = json_array_get(json_object_get(p, "card_changes"), 0);
    ck_assert_str_eq(pstr(ch, "field"), "engine");
    ck_assert_str_eq(pstr(json_object_get(json_object_get(ch, "to"), "keys"), "cache_type_k"),
                     "q8_0");
    json_decref(p);
    free(text);
    ck_assert_int_eq(run(ip, "commit \"q8\"\nshow q8-cache", &p, NULL, &err), 0);
    eng = json_object_get(json_object_get(p, "card"), "engine");
    ck_assert_str_eq(pstr(eng, "name"), "llamacpp");
    ck_assert_str_eq(pstr(json_object_get(eng, "keys"), "cache_type_k"), "q8_0");
    ck_assert_str_eq(pstr(json_object_get(eng, "keys"), "cache_type_v"), "q8_0");
    ck_assert_int_eq(card_int(p, "length"), 4096);
    ck_assert_str_eq(pstr(json_array_get(json_object_get(p, "measurements"), 0), "state"),
                     "to re-measure");
    /* the records hold the engine's figure */
    ck_assert_uint_eq(json_integer_value(json_object_get(component(p, "kv_cache"), "bytes")),
                      285212672u);
    /* no gpu=: the source's offer stays */
    ck_assert_str_eq(pstr(json_array_get(json_object_get(p, "offers"), 0), "name"), "RTX 4090");
    json_decref(p);
    /* an engine switch brings the other engine's runtime items */
    ck_assert_int_eq(
        run(ip, "reproduce campaign-a as \"on vllm\" engine=vllm format=fp8", &p, &text, &err), 0);
    ck_assert_ptr_nonnull(strstr(text, "format bf16 → fp8; engine llamacpp → vllm"));
    ck_assert_ptr_nonnull(strstr(text, "; added: non_torch (unknown)"));
    json_decref(p);
    free(text);
    vs_interp_free(ip);
}
END_TEST

/* The engine's release is one of its keys: a sheet on build=b6325 reproduced keeps it,
 * an engine= override names another, and a build outside the table is refused with the
 * modelled ones. */
START_TEST(test_release_is_carried)
{
    vs_interp *ip = vs_interp_new(NULL);
    vs_error err;
    json_t *p = NULL;
    ck_assert_int_eq(run(ip, source_cell, NULL, NULL, &err), 0);
    ck_assert_int_eq(run(ip, "engine llamacpp build=b6325\ncommit \"on b6325\"", NULL, NULL, &err),
                     0);
    ck_assert_int_eq(
        run(ip, "reproduce campaign-a as \"again\"\ncommit \"again\"\nshow again", &p, NULL, &err),
        0);
    ck_assert_str_eq(
        pstr(json_object_get(json_object_get(json_object_get(p, "card"), "engine"), "keys"),
             "build"),
        "b6325");
    json_decref(p);
    ck_assert_int_eq(run(ip,
                         "reproduce campaign-a as \"older\" engine=\"llamacpp build=b6324\"\n"
                         "commit \"older\"\nshow older",
                         &p, NULL, &err),
                     0);
    ck_assert_str_eq(
        pstr(json_object_get(json_object_get(json_object_get(p, "card"), "engine"), "keys"),
             "build"),
        "b6324");
    json_decref(p);
    ck_assert_int_ne(
        run(ip, "reproduce campaign-a as \"bad\" engine=\"llamacpp build=b1\"", NULL, NULL, &err),
        0);
    ck_assert_ptr_nonnull(strstr(err.message, "b6324, b6325, 0c1e570"));
    vs_interp_free(ip);
}
END_TEST

/* A value the verb refuses: its message after the override, at the value;
 * the cell is undone, no new sheet, the current one unchanged. */
START_TEST(test_bad_override_leaves_the_sheets)
{
    static const char *const bad[][2] = {
        {"length=banana", "length=banana: "},
        {"concurrency=0x", "concurrency=0x: "},
        {"format=bf17", "format=bf17: unknown format 'bf17'"},
        {"engine=vlm", "engine=vlm: unknown engine 'vlm'"},
        {"engine=\"llamacpp cache_type_k=q9\"",
         "engine=llamacpp cache_type_k=q9: cache_type_k=q9: expected one of"},
        {"engine=\"vllm\nlength 5\"", "engine= is one line"},
    };
    vs_interp *ip = vs_interp_new(NULL);
    vs_error err;
    json_t *p = NULL;
    char cell[200], *text = NULL;
    size_t i;
    ck_assert_int_eq(run(ip, source_cell, NULL, NULL, &err), 0);
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(cell, sizeof cell,
                 "length 8192\nreproduce campaign-a as \"B\" gpu=\"RTX 5090\" %s", bad[i][0]);
        ck_assert_int_lt(run(ip, cell, NULL, NULL, &err), 0);
        ck_assert_msg(strstr(err.message, bad[i][1]), "%s: %s", bad[i][0], err.message);
        ck_assert_int_eq(err.line, 2);
        /* the value's column: after `reproduce campaign-a as "B" gpu="RTX 5090" KEY=` */
        ck_assert_int_eq(err.column,
                         (int)(strlen("reproduce campaign-a as \"B\" gpu=\"RTX 5090\" ") +
                               (size_t)(strchr(bad[i][0], '=') - bad[i][0]) + 2));
        /* the current sheet is still the source, as recorded (length 8192 undone) */
        ck_assert_int_eq(run(ip, "card", NULL, &text, &err), 0);
        ck_assert_ptr_nonnull(strstr(text, "workload card of sheet campaign-a (\"Campaign A\")"));
        free(text);
        ck_assert_int_eq(run(ip, "diff campaign-a", &p, NULL, &err), 0);
        ck_assert(json_is_true(json_object_get(p, "same")));
        json_decref(p);
    }
    ck_assert_int_eq(run(ip, "show b", NULL, NULL, &err), VS_ENOTFOUND);
    vs_interp_free(ip);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("reproduce_card");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_length_and_concurrency_reestimate);
    tcase_add_test(tc, test_engine_is_the_new_engine);
    tcase_add_test(tc, test_release_is_carried);
    tcase_add_test(tc, test_bad_override_leaves_the_sheets);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return vs_check_run(suite());
}
