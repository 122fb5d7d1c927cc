/* seed_record.h — the seed's worked example made by the verbs: one definition,
 * shared by test_sizing_records (which compares it with the stored example)
 * and tests/tools/regen_records.c (which writes the stored example; the test
 * never does). */
#ifndef VS_TESTS_SEED_RECORD_H
#define VS_TESTS_SEED_RECORD_H

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/interp.h"
#include "render/bundle.h"
#include "sheet/sheet.h"

/* 7e9 params at 16 bits, a 6 GiB reserve, the two offers of the seed. */
static const char *const VS_SEED_CELL =
    "sheet \"Seed 7B inference\"\n"
    "model example/7b params=7e9\n"
    "task inference\n"
    "format bf16\n"
    "reserve 6GiB\n"
    "gpu \"RTX 4090\" memory=24GB price=47.14USD period=3d cards=1\n"
    "gpu \"RTX 6000 Ada\" memory=48GB price=55.71USD period=3d cards=1\n"
    "sheet \"Seed 7B inference\"\n";

/* The seed sheet as the verbs build it, dumped canonically (malloc'd); NULL
 * with why[] filled when the cell fails. */
static inline char *vs_seed_from_verbs(char *why, size_t whylen)
{
    vs_interp *ip;
    vs_sink sink;
    vs_bundle *b = NULL;
    json_t *result, *p;
    const char *kind;
    vs_error err;
    char *text = NULL;
    setenv("VRAMSHEET_RECORDS", "/nonexistent/vramsheet-test-records", 1);
    ip = vs_interp_new(NULL);
    if (!ip) {
        snprintf(why, whylen, "out of memory");
        return NULL;
    }
    memset(&sink, 0, sizeof sink);
    if (vs_interp_execute(ip, VS_SEED_CELL, &sink, &b, &err) != 0) {
        snprintf(why, whylen, "%.*s", (int)(whylen > 1 ? whylen - 1 : 0), err.message);
        vs_interp_free(ip);
        return NULL;
    }
    result = vs_bundle_to_json(b);
    p = json_object_get(result, VS_MIME_JSON);
    kind = json_string_value(json_object_get(p, "kind"));
    if (!kind || strcmp(kind, "sheet") != 0) {
        snprintf(why, whylen, "the last line's result is not a sheet");
    } else {
        /* the `sheet` payload is the whole sheet as stored, plus what the verb did */
        json_object_del(p, "kind");
        json_object_del(p, "action");
        text = vs_sheet_dump(p);
        if (!text)
            snprintf(why, whylen, "the sheet cannot be dumped");
    }
    json_decref(result);
    vs_bundle_free(b);
    vs_interp_free(ip);
    return text;
}

#endif
