/* fuzz_cell — libFuzzer target: the parser, then the whole interpreter, on
 * arbitrary bytes; completion, inspection and is_complete at every offset of
 * short inputs.
 *
 * Cells that name a verb with effects outside the process (measure runs a
 * shell command; commit and records write git repositories) are parsed but not
 * executed: a fuzzer must not run shell text it invented. Build with
 * CC=clang cmake -DVS_FUZZ=ON; run: ./fuzz_cell tests/fuzz/corpus_lang
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lang/interp.h"
#include "lang/parse.h"

static const char *const outside[] = {"measure", "%%measure", "commit", "records",
                                      "probe",   "push",      "pull",   NULL};

static int has_outside_effect(const vs_cell *cell)
{
    size_t i, k;
    for (i = 0; i < cell->nlines; i++)
        for (k = 0; outside[k]; k++)
            if (!strcmp(cell->lines[i].verb, outside[k]) ||
                (cell->lines[i].verb[0] == '%' && !strcmp(cell->lines[i].verb + 2, outside[k])))
                return 1;
    return 0;
}

/* Every result is written as JSON text: whatever the cell, it must parse as
 * one object whose text/plain comes first. */
static void check_bundle(void *ctx, const vs_bundle *b, const char *id, int update)
{
    json_t *j;
    (void)ctx;
    (void)id;
    (void)update;
    if (!b)
        return;
    j = json_loadb(b->json, b->len, 0, NULL);
    if (!json_is_string(json_object_get(j, "text/plain")) ||
        strncmp(b->json, "{\"text/plain\":", 14) != 0)
        abort();
    json_decref(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static vs_interp *ip;
    vs_cell *cell = NULL;
    vs_error err;
    char *code;
    vs_bundle *r = NULL;
    vs_sink sink = {NULL, check_bundle, NULL, NULL, NULL};
    const char *indent;
    size_t i;

    if (!ip) {
        setenv("VRAMSHEET_RECORDS", "/nonexistent/vramsheet-fuzz", 1);
        ip = vs_interp_new(NULL);
    }
    if (vs_parse_cell(&cell, (const char *)data, size, &err) < 0) {
        if (err.code != VS_ESYNTAX && err.code != VS_ENOMEM)
            abort();
        if (err.line < 1 || err.column < 1)
            abort();
        return 0;
    }
    code = malloc(size + 1);
    if (!code) {
        vs_cell_free(cell);
        return 0;
    }
    memcpy(code, data, size);
    code[size] = '\0';
    vs_interp_is_complete(ip, code, &indent);
    if (size < 256) {
        for (i = 0; i <= size + 1; i++) {
            json_t *m = NULL, *b = NULL;
            size_t s, e;
            vs_interp_complete(ip, code, i, &m, &s, &e);
            if (s > e || e > strlen(code))
                abort();
            json_decref(m);
            vs_interp_inspect(ip, code, i, 0, &b);
            json_decref(b);
        }
    }
    /* a NUL inside: the interpreter sees the text before it (as strlen would) */
    if (!has_outside_effect(cell) && strlen(code) == size) {
        if (vs_interp_execute(ip, code, &sink, &r, &err) < 0 && err.code >= 0)
            abort();
        check_bundle(NULL, r, NULL, 0);
        vs_bundle_free(r);
    }
    /* keep the session small so that the fuzzer's runs stay independent enough */
    {
        static unsigned n;
        if (++n % 1000 == 0) {
            vs_interp_free(ip);
            ip = vs_interp_new(NULL);
        }
    }
    free(code);
    vs_cell_free(cell);
    return 0;
}
