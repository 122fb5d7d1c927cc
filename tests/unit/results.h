/* results.h — the interpreter's results as jansson objects, for tests that look
 * inside them. Results travel as JSON text (render/bundle.h); parsing it here
 * also checks, on every result a test sees, that the text is one valid JSON
 * object with text/plain first. */
#ifndef VS_TESTS_RESULTS_H
#define VS_TESTS_RESULTS_H

#include <check.h>
#include <jansson.h>
#include <string.h>

#include "lang/interp.h"
#include "render/bundle.h"

/* b as a new jansson object; NULL for NULL. Fails the test when b is not a
 * JSON object that starts with its text/plain. */
static inline json_t *vs_test_bundle_json(const vs_bundle *b)
{
    json_t *j;
    if (!b)
        return NULL;
    j = vs_bundle_to_json(b);
    ck_assert_msg(json_is_object(j), "a bundle that is not a JSON object: %.200s", b->json);
    ck_assert_msg(!strncmp(b->json, "{\"text/plain\":", 14), "text/plain is not first: %.200s",
                  b->json);
    ck_assert_uint_eq(strlen(b->json), b->len);
    return j;
}

/* vs_interp_execute with the result as a jansson object (*out NULL when the
 * cell produced none). */
static inline int vs_test_execute(vs_interp *ip, const char *code, const vs_sink *sink,
                                  json_t **out, vs_error *err)
{
    vs_bundle *b = NULL;
    int rc = vs_interp_execute(ip, code, sink, &b, err);
    *out = vs_test_bundle_json(b);
    vs_bundle_free(b);
    return rc;
}

#endif
