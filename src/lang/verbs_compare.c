/* The `compare` verb: the sheet's estimate per component class against its
 * measurements (sheet/compare.c), shown by render/compare.c. */
#include <string.h>

#include "lang/verb.h"
#include "render/compare.h"
#include "sheet/compare.h"

const char *const vs_verb_compare_keys[] = {"gpu", NULL};

int vs_verb_compare(vs_ctx *ctx, const vs_line *line, vs_error *err)
{
    vs_compare c;
    vs_bundle *bundle;
    json_t *sheet = vs_ctx_sheet(ctx);
    uint64_t gpu = 0;
    int rc, present = 0;
    if (!sheet)
        return vs_error_oom(err);
    if (vs_line_npositional(line) > 0)
        return vs_error_set(err, VS_EVALUE, "expected `compare [gpu=I]`");
    if ((rc = vs_line_check_keys(line, vs_verb_compare_keys, err)) < 0)
        return rc;
    if ((rc = vs_line_get_uint(line, "gpu", 0, &gpu, &present, err)) < 0)
        return rc;
    if (present && gpu > 4095)
        return vs_error_set(err, VS_EVALUE, "gpu= is a GPU index from 0 to 4095");
    if ((rc = vs_compare_sheet(&c, sheet, present, (unsigned)gpu, err)) < 0)
        return rc;
    if (!(bundle = vs_render_compare(&c)))
        return vs_error_oom(err);
    vs_ctx_emit(ctx, bundle);
    return 0;
}
