/* cell_run.h — one interpreter and a cell runner for the unit tests that type
 * cells as a person would (test_sizing, test_kv_estimate, test_engine, test_gguf_arch,
 * test_verbs_gpu): every bundle of the last cell lands in st.bundles; run_ok
 * fails the test with the position. The tests include it once, after
 * results.h, and give setup/teardown to their test cases. */
#ifndef VS_TESTS_CELL_RUN_H
#define VS_TESTS_CELL_RUN_H

#include <check.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "lang/interp.h"
#include "results.h"

typedef struct {
    json_t *bundles; /* every bundle of the last cell, in order */
    const char *answer;
} sink_state;

static inline void on_display(void *ctx, const vs_bundle *bundle, const char *id, int update)
{
    sink_state *s = ctx;
    (void)id;
    (void)update;
    json_array_append_new(s->bundles, vs_test_bundle_json(bundle));
}

static inline int on_input(void *ctx, const char *prompt, int password, char **out)
{
    sink_state *s = ctx;
    (void)prompt;
    (void)password;
    if (!s->answer)
        return VS_EVALUE;
    *out = strdup(s->answer);
    return 0;
}

static vs_interp *ip;
static sink_state st;
static vs_error err;

static inline void setup(void)
{
    ip = vs_interp_new(NULL);
    st.bundles = json_array();
    st.answer = NULL;
}

static inline void teardown(void)
{
    vs_interp_free(ip);
    json_decref(st.bundles);
}

/* Runs a cell; returns its rc. All bundles land in st.bundles. */
static inline int run(const char *code)
{
    vs_sink sink;
    json_t *result = NULL;
    int rc;
    memset(&sink, 0, sizeof sink);
    sink.ctx = &st;
    sink.display = on_display;
    sink.input = on_input;
    json_array_clear(st.bundles);
    vs_error_clear(&err);
    rc = vs_test_execute(ip, code, &sink, &result, &err);
    if (result)
        json_array_append_new(st.bundles, result);
    return rc;
}

static inline void run_ok(const char *code)
{
    int rc = run(code);
    ck_assert_msg(rc == 0, "cell failed (%d): line %d col %d: %s\n--\n%s", rc, err.line, err.column,
                  err.message, code);
}

static inline json_t *last(void)
{
    return json_array_get(st.bundles, json_array_size(st.bundles) - 1);
}
static inline json_t *payload(json_t *b)
{
    return json_object_get(b, VS_MIME_JSON);
}
static inline json_t *lastp(void)
{
    return payload(last());
}
static inline const char *text(json_t *b)
{
    return json_string_value(json_object_get(b, "text/plain"));
}
static inline long long geti(json_t *o, const char *k)
{
    return json_integer_value(json_object_get(o, k));
}
static inline const char *gets(json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

#endif
