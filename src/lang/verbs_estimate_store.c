/* verbs_estimate_store.c — an estimate's components into the sheet, never over
 * a measured one (see verbs_estimate_internal.h). */
#include "lang/verbs_estimate_internal.h"

#include <stdint.h>
#include <string.h>

#include "render/estimate.h"
#include "sheet/sheet.h"
#include "sheet/vocab.h"
#include "util/buf.h"

/* Sets an estimated component unless a measurement holds the name: then the
 * estimate is only shown. Returns 1 when stored, 0 when skipped. */
int vs_verbs_estimate_store(json_t *sheet, const char *name, uint64_t bytes, const char *source,
                            vs_vocab_class cls, vs_buf *skipped, json_t *skipped_list,
                            vs_error *err)
{
    return vs_verbs_estimate_store_phase(sheet, name, bytes, source, cls, NULL, skipped,
                                         skipped_list, err);
}

int vs_verbs_estimate_store_phase(json_t *sheet, const char *name, uint64_t bytes,
                                  const char *source, vs_vocab_class cls, const char *phase,
                                  vs_buf *skipped, json_t *skipped_list, vs_error *err)
{
    json_t *old = vs_sheet_component(sheet, name);
    const char *st = vs_sheet_component_str(old, VS_COMPK_STATUS);
    int rc;
    if (vs_vocab_status_is(st, VS_STATUS_MEASURED)) {
        vs_render_estimate_skipped(skipped, name, bytes);
        if (skipped_list)
            json_array_append_new(skipped_list, json_pack("{s:s, s:I}", "name", name,
                                                          "estimate_bytes", (json_int_t)bytes));
        return 0;
    }
    if (bytes > (uint64_t)INT64_MAX)
        return vs_error_set(err, VS_EUNIT, "%s: the estimate does not fit a record", name);
    rc = vs_sheet_set_component(sheet, name, 1, bytes, vs_vocab_status_name(VS_STATUS_ESTIMATED),
                                source, phase, vs_vocab_class_name(cls), err);
    return rc < 0 ? rc : 1;
}

int vs_verbs_estimate_drop(json_t *sheet, const char *name, const char *memory, vs_error *err)
{
    long at = vs_sheet_component_index(sheet, name);
    json_t *c = at < 0 ? NULL : json_array_get(vs_sheet_array(sheet, VS_SK_COMPONENTS), (size_t)at);
    const char *st = vs_sheet_component_str(c, VS_COMPK_STATUS), *m;
    if (!c || vs_vocab_status_is(st, VS_STATUS_MEASURED))
        return 0;
    if (memory &&
        (!vs_vocab_status_is(st, VS_STATUS_ESTIMATED) ||
         !(m = json_string_value(json_object_get(c, VS_MEMORY_KEY))) || strcmp(m, memory)))
        return 0;
    return vs_sheet_remove_component(sheet, (size_t)at) < 0 ? vs_error_oom(err) : 0;
}
