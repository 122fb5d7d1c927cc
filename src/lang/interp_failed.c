/* interp_failed.c — what a failed cell keeps of what it did: the interpreter
 * puts every sheet back as the cell found it (interp.c), but what happened
 * outside the kernel stays true (interp_internal.h).
 */
#include <string.h>

#include "lang/interp_internal.h"
#include "sheet/sheet.h"
#include "util/json.h"

static int has_run(const json_t *runs, const char *id)
{
    size_t i;
    json_t *r;
    json_array_foreach(runs, i, r)
    {
        const char *rid = json_string_value(json_object_get(r, "id"));
        if (rid && !strcmp(rid, id))
            return 1;
    }
    return 0;
}

/* The `oom` entries the run rid wrote (their "run", lang/verbs_measure.c): an
 * overflow seen by a command that ran is as true as its run. */
static void keep_run_oom(json_t *restored, json_t *failed, const char *rid)
{
    size_t k;
    json_t *o, *have = vs_sheet_get(restored, VS_SK_OOM);
    vs_json_array_foreach(vs_sheet_get(failed, VS_SK_OOM), k, o)
    {
        const char *run = json_string_value(json_object_get(o, "run"));
        if (!run || strcmp(run, rid) != 0)
            continue;
        if (!json_is_array(have)) {
            if (json_object_set_new(restored, "oom", json_array()) < 0)
                return;
            have = vs_sheet_get(restored, VS_SK_OOM);
        }
        json_array_append(have, o);
    }
}

/* interp_internal.h says what it keeps. */
void vs_interp_keep_outside_world(json_t *restored, json_t *failed)
{
    size_t i, j, k;
    json_t *s, *f, *v;
    json_array_foreach(restored, i, s)
    {
        const char *id = vs_sheet_get_str(s, VS_SK_ID);
        json_t *runs, *meas;
        if (!id)
            continue;
        json_array_foreach(failed, j, f)
        {
            const char *fid = json_string_value(json_object_get(f, "id"));
            if (f == s)
                break; /* untouched by the cell: nothing to carry */
            if (!fid || strcmp(fid, id) != 0)
                continue;
            runs = vs_sheet_get(s, VS_SK_RUNS);
            meas = vs_sheet_get(s, VS_SK_MEASUREMENTS);
            if (!json_is_array(runs) || !json_is_array(meas))
                break;
            vs_json_array_foreach(vs_sheet_get(f, VS_SK_RUNS), k, v)
            {
                const char *rid = json_string_value(json_object_get(v, "id"));
                size_t m;
                json_t *x;
                if (!rid || has_run(runs, rid))
                    continue;
                json_array_append(runs, v);
                vs_json_array_foreach(vs_sheet_get(f, VS_SK_MEASUREMENTS), m, x)
                {
                    const char *mr = json_string_value(json_object_get(x, "run"));
                    if (mr && !strcmp(mr, rid))
                        json_array_append(meas, x);
                }
                keep_run_oom(s, f, rid);
            }
            break;
        }
    }
}

/* interp_internal.h says why. */
void vs_interp_drop_closed_bases(vs_interp *ip)
{
    const char *id;
    json_t *v, *tmp, *s;
    size_t i;
    json_object_foreach_safe(ip->bases, tmp, id, v)
    {
        int open = 0;
        json_array_foreach(ip->sheets, i, s)
        {
            const char *sid = vs_sheet_get_str(s, VS_SK_ID);
            if (sid && !strcmp(sid, id))
                open = 1;
        }
        if (!open)
            json_object_del(ip->bases, id);
    }
}
