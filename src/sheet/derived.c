/* derived.c — the parts of a sheet that are a function of the rest of it, written
 * fresh before the sheet is recorded (commit, records pull, reproduce), so that a
 * record never keeps a value the card contradicts. Pure: no I/O, no globals. */
#include <string.h>

#include "sheet/sheet.h"

static const char *const card_dims[] = {"length", "concurrency", "microbatch", NULL};

/* The run of that id did not complete: a non-zero exit, or out of memory. */
static int run_failed(const json_t *sheet, const char *run)
{
    size_t i;
    json_t *r;
    if (!run)
        return 0;
    vs_json_array_foreach(vs_sheet_array(sheet, "runs"), i, r) {
        const json_t *es = json_object_get(r, "exit_status");
        const char *id = json_string_value(json_object_get(r, "id"));
        if (!id || strcmp(id, run))
            continue;
        return (json_is_integer(es) && json_integer_value(es) != 0) ||
               json_is_string(json_object_get(r, "overflow_phase"));
    }
    return 0;
}

int vs_sheet_measurement_validates(const json_t *sheet, const json_t *m)
{
    const json_t *dims = json_object_get(m, "dims");
    const char *state = json_string_value(json_object_get(m, "state"));
    int any = 0;
    size_t i;
    if (state && !strcmp(state, "to re-measure"))
        return 0;
    for (i = 0; card_dims[i]; i++) {
        uint64_t want;
        const json_t *have;
        if (!vs_sheet_card_uint(sheet, card_dims[i], &want))
            continue;
        any = 1;
        have = json_object_get(dims, card_dims[i]);
        if (!json_is_integer(have) || json_integer_value(have) < 0 ||
            (uint64_t)json_integer_value(have) < want)
            return 0;
    }
    return any && !run_failed(sheet, json_string_value(json_object_get(m, "run")));
}

int vs_sheet_refresh_derived(json_t *sheet)
{
    size_t i;
    json_t *m;
    int changed = 0;
    vs_json_array_foreach(vs_sheet_array(sheet, "measurements"), i, m) {
        int v;
        if (!json_is_object(m))
            continue;
        v = vs_sheet_measurement_validates(sheet, m);
        if (json_is_true(json_object_get(m, "validates_card")) != v) {
            json_object_set_new(m, "validates_card", json_boolean(v));
            changed++;
        }
    }
    return changed;
}
